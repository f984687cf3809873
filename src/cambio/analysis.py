"""What each move is worth: every legal action of a player, estimated by playing on.

:func:`analyse` takes one player's :class:`~cambio.views.PlayerView` and the table's
:class:`~cambio.rules.RuleSet`, draws rounds consistent with that view (the search
bot's :class:`~cambio.determinize.InfoSet`, its samples weighed by the other players'
choices as :class:`~cambio.bots.SearchBot` weighs them), tries every legal action of
the player on each drawn round and plays the round out with the search bot's rollout
policy (:func:`~cambio.bots.search_bot.playout`). It reports, for each action, the
player's mean share of the win with a Wilson 95% interval, its mean round score with a
normal 95% interval, and how many drawn rounds stand behind the figures
(:class:`Analysis`).

Every action is tried on the *same* drawn rounds with the *same* playout randomness
(common random numbers), so the difference between two actions is measured on equal
terms: :attr:`ActionEstimate.behind` is that paired difference to the best action,
with its own interval, much narrower than the two actions' intervals would suggest.

It reads the view and the rules only, like every bot: two real rounds that differ only
in cards the player has not seen give the same analysis under the same seed.

>>> import cambio
>>> rnd = cambio.Round("practice", players=2, seed=3)
>>> result = cambio.analyse(rnd.view(0), rnd.rules, samples=8, seed=1)
>>> sorted(str(e.action) for e in result.estimates)
['P0 call', 'P0 draw', 'P0 take']
>>> result.samples, result.best.samples
(8, 8)
>>> result == cambio.analyse(rnd.view(0), rnd.rules, samples=8, seed=1)
True
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Iterator, Sequence

import attrs

from .actions import Action
from .bots.search_bot import (
    SearchBotConfig,
    _resample,
    call_log_weight,
    evidence_log_weight,
    playout,
    rollout_action,
)
from .determinize import DeterminizeError, InfoSet
from .round import Round
from .rules import RuleSet
from .views import PlayerView

__all__ = [
    "ActionEstimate",
    "Analysis",
    "AnalysisError",
    "Z95",
    "analyse",
    "analyse_round",
    "wilson_interval",
]

Z95 = 1.959963984540054
"""The normal quantile of a two-sided 95% interval."""

_CHUNK = 32
"""Worlds drawn (and weighed against each other) at a time."""


class AnalysisError(ValueError):
    """A position that cannot be analysed: nobody to act, a player with no decision, a
    finished round, a view that does not fit the rules. The message says which."""


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a share ``successes / n`` (``successes`` may be
    fractional: a shared win counts ``1/k``).

    >>> low, high = wilson_interval(5, 10)
    >>> round(low, 3), round(high, 3)
    (0.237, 0.763)
    """
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(max(0.0, p * (1 - p) / n + z2 / (4 * n * n))) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _normal_half(values: Sequence[float]) -> tuple[float, float]:
    """The mean of ``values`` and the half-width of its normal 95% interval."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, 0.0
    var = sum((x - mean) ** 2 for x in values) / (n - 1)
    return mean, Z95 * math.sqrt(var / n)


@attrs.frozen
class ActionEstimate:
    """What one action is worth to the player, over the drawn rounds."""

    action: Action | None
    """The action, or ``None`` for letting a snap window pass (a player who may snap
    while another player holds the turn)."""
    label: str
    """The action as text (``"P0 draw"``; ``"P1 no snap"`` for ``None``)."""
    win: float
    """The mean share of the win (1 for a sole win, ``1/k`` for a win shared by ``k``
    players, 0 for a loss): the estimated probability of winning the round."""
    win_low: float
    """The lower end of the Wilson 95% interval of :attr:`win`."""
    win_high: float
    """The upper end of the Wilson 95% interval of :attr:`win`."""
    score: float
    """The mean round score of the player (:attr:`RoundResult.scores`; lower is better;
    a playout cut short at the policy's ``max_decisions`` counts the player's card total
    as it stands)."""
    score_low: float
    """The lower end of the normal 95% interval of :attr:`score` (mean minus 1.96
    standard errors)."""
    score_high: float
    """The upper end of the normal 95% interval of :attr:`score`."""
    behind: float
    """How much lower this action's win share is than the best action's, on the same
    drawn rounds (0 for the best action)."""
    behind_error: float
    """The half-width of the normal 95% interval of :attr:`behind`, from the paired
    differences round by round."""
    samples: int
    """How many drawn rounds the figures stand on."""


@attrs.frozen
class Analysis:
    """Every legal action of the player to decide, estimated (:func:`analyse`)."""

    player: int
    """The seat whose decision is analysed."""
    phase: str
    """The phase of the round as the player sees it (``"turn"``, ``"power"``...)."""
    estimates: tuple[ActionEstimate, ...]
    """One estimate per candidate, the best first: by win share, then by lower score,
    then in the order of the action ids."""
    samples: int
    """How many drawn rounds every action was tried on."""
    seed: int | None
    """The seed the analysis drew its rounds with (``None``: unseeded)."""

    @property
    def best(self) -> ActionEstimate:
        """The estimate of the best action (the first of :attr:`estimates`)."""
        return self.estimates[0]

    def estimate(self, action: Action | None) -> ActionEstimate:
        """The estimate of ``action`` (``None``: letting the snap window pass).

        Raises :class:`AnalysisError` when it is not one of the candidates."""
        for e in self.estimates:
            if e.action == action:
                return e
        labels = ", ".join(e.label for e in self.estimates)
        raise AnalysisError(f"{action} is not one of the actions analysed ({labels})")


def _policy(policy: object) -> SearchBotConfig:
    if policy is None:
        return SearchBotConfig()
    if not isinstance(policy, SearchBotConfig):
        raise TypeError(f"policy must be a SearchBotConfig or None, got {policy!r}")
    return policy


def _budget(samples: object, seconds: object) -> tuple[int | None, float | None]:
    if samples is not None and (isinstance(samples, bool) or not isinstance(samples, int)):
        raise TypeError(f"samples must be a whole number or None, got {samples!r}")
    if samples is not None and samples < 2:
        raise ValueError(f"samples must be 2 or more, got {samples}")
    if seconds is not None and (
        isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not seconds > 0
    ):
        raise ValueError(f"seconds must be None or a number of seconds above 0, got {seconds!r}")
    if samples is None and seconds is None:
        raise ValueError("give a budget: samples, seconds, or both")
    return samples, None if seconds is None else float(seconds)


def _rng(seed: object) -> random.Random:
    if seed is None:
        return random.Random()
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be a whole number or None, got {seed!r}")
    return random.Random(seed)


def analyse(
    view: PlayerView,
    rules: RuleSet,
    *,
    samples: int | None = 64,
    seconds: float | None = None,
    seed: int | None = None,
    policy: SearchBotConfig | None = None,
) -> Analysis:
    """Every legal action of ``view.player``, estimated over rounds drawn from the view.

    ``samples`` rounds are drawn (at least two, whatever the time), and every
    candidate is played out on each of them; ``seconds`` (if given) stops the drawing
    once that much time has passed. With a ``seed`` and no ``seconds`` the same view
    gives the same analysis (with ``seconds`` the count of rounds depends on the
    machine). ``policy`` is a :class:`~cambio.bots.SearchBotConfig` (the default one
    when ``None``): the playouts follow :func:`~cambio.bots.search_bot.rollout_action`
    with its ``style`` for the player and its ``model`` for the others, stop after its
    ``max_decisions``, and the rounds are weighed by the other players' choices
    (:func:`~cambio.bots.search_bot.evidence_log_weight`), and after another player's
    call by that call (:func:`~cambio.bots.search_bot.call_log_weight`), drawn from its
    ``oversample`` times as many (1: rounds drawn uniformly among those the view allows).

    The candidates are the player's legal actions: its turn's actions, a power's steps,
    a card to give, an opening peek, a call, and its snaps. A player who may snap while
    another player holds the turn also gets ``None``: not snapping (the turn holder then
    moves on by the policy).

    Common random numbers: every candidate is tried on the same drawn rounds with the
    same playout randomness, so differences between actions are sharper than the
    actions' own intervals (see :attr:`ActionEstimate.behind`).

    Raises :class:`AnalysisError` when the player has no decision to make, or the view
    cannot come from a round of ``rules``.
    """
    if not isinstance(view, PlayerView):
        raise TypeError(f"view must be a PlayerView, got {view!r}")
    if not isinstance(rules, RuleSet):
        raise TypeError(f"rules must be a RuleSet, got {rules!r}")
    count, limit = _budget(samples, seconds)
    cfg = _policy(policy)
    rng = _rng(seed)
    if view.phase == "over" or view.to_act is None:
        raise AnalysisError("the round is over: there is no decision to analyse")
    try:
        info = InfoSet(view, rules, evidence=cfg.oversample > 1)
    except DeterminizeError as exc:
        raise AnalysisError(f"the view does not fit the rules: {exc}") from None
    return _analyse(
        _info_worlds(info, rng, cfg), view.player, view.phase, count, limit, rng, cfg, seed
    )


def analyse_round(
    rnd: Round,
    player: int,
    *,
    samples: int | None = 64,
    seconds: float | None = None,
    seed: int | None = None,
    policy: SearchBotConfig | None = None,
) -> Analysis:
    """:func:`analyse` of ``player``'s decision in ``rnd``, reading only what ``player``
    may know.

    A round dealt from the start is analysed from ``rnd.view(player)``. A round set up
    from a written position (:meth:`Round.from_position`) has no history from the
    deal to draw rounds from; its rounds are drawn by shuffling the faces of every card
    ``player`` has not seen among the places those cards hold (its grid's unseen cards,
    the other grids' cards it has not seen, the stock, a card another player holds),
    keeping who knows each place as the position writes it. The faces shuffled are the
    same whatever the hidden cards are (the deck minus what the player sees), so two
    positions that differ only in cards ``player`` has not seen give the same analysis.
    A position in the middle of a power whose card only another player has seen cannot
    be analysed this way (its card would have to keep its power): an
    :class:`AnalysisError`.
    """
    if not isinstance(rnd, Round):
        raise TypeError(f"rnd must be a Round, got {rnd!r}")
    if isinstance(player, bool) or not isinstance(player, int):
        raise TypeError(f"player must be a seat number, got {player!r}")
    if not 0 <= player < rnd.players:
        raise AnalysisError(f"there is no seat {player} (seats 0 to {rnd.players - 1})")
    if not rnd._origin:
        return analyse(
            rnd.view(player), rnd.rules, samples=samples, seconds=seconds, seed=seed, policy=policy
        )
    count, limit = _budget(samples, seconds)
    cfg = _policy(policy)
    rng = _rng(seed)
    if rnd.to_act is None:
        raise AnalysisError("the round is over: there is no decision to analyse")
    bit = 1 << player
    if (
        rnd._power_now is not None
        and rnd._power_card >= 0
        and not rnd._known[rnd._power_card] & bit
    ):
        raise AnalysisError(
            f"a power is in use whose card seat {player} has not seen: this position "
            "cannot be analysed from its written form"
        )
    phase = rnd.phase_seen_by(player).name.lower()
    return _analyse(_shuffled_worlds(rnd, player, rng), player, phase, count, limit, rng, cfg, seed)


def _info_worlds(info: InfoSet, rng: random.Random, cfg: SearchBotConfig) -> Iterator[Round]:
    """Rounds drawn from ``info`` without end, weighed like the search bot's (sampling
    importance resampling over ``oversample`` times as many uniform draws, in chunks):
    by the other players' choices, and after another player's call by that call too."""
    over = cfg.oversample
    caller = info.view.caller
    by_call = over > 1 and caller is not None and caller != info.view.player
    while True:
        if by_call:
            assert caller is not None
            pool: list[Round] = []
            logs: list[float] = []
            for _ in range(_CHUNK * over):
                assign = info.assignment(rng)
                world = info.build(assign, rng)
                pool.append(world)
                logs.append(
                    evidence_log_weight(info, assign, cfg) + call_log_weight(world, caller, cfg)
                )
            for i in _resample(logs, _CHUNK, rng):
                yield pool[i]
        elif over <= 1 or not info.evidence:
            for _ in range(_CHUNK):
                yield info.build(info.assignment(rng), rng)
        else:
            assigns = [info.assignment(rng) for _ in range(_CHUNK * over)]
            weights = [evidence_log_weight(info, a, cfg) for a in assigns]
            for i in _resample(weights, _CHUNK, rng):
                yield info.build(assigns[i], rng)


def _shuffled_worlds(rnd: Round, player: int, rng: random.Random) -> Iterator[Round]:
    """Rounds with the faces of the cards ``player`` has not seen shuffled among their
    places (see :func:`analyse_round`)."""
    bit = 1 << player
    known = rnd._known
    places = [c for row in rnd._slots for c in row if c >= 0]
    places += rnd._stock
    if rnd._drawn >= 0:
        places.append(rnd._drawn)
    hidden = sorted(c for c in set(places) if not known[c] & bit)
    deck, value, key, power = rnd.deck, rnd._value, rnd._key, rnd._power
    # the faces in a canonical order: the same list whatever the hidden arrangement
    faces = sorted(
        ((deck[c], value[c], key[c], power[c]) for c in hidden),
        key=lambda f: (f[0].rank, f[0].suit, f[1]),
    )
    while True:
        order = faces[:]
        rng.shuffle(order)
        world = rnd.copy()
        new_deck = list(deck)
        new_value, new_key, new_power = value[:], key[:], power[:]
        for c, (card, v, k, p) in zip(hidden, order, strict=True):
            new_deck[c], new_value[c], new_key[c], new_power[c] = card, v, k, p
        world.deck = tuple(new_deck)
        world._value, world._key, world._power = new_value, new_key, new_power
        world.seed = rng.getrandbits(63)
        world._drop_caches()
        yield world


def _score(rnd: Round, seat: int) -> float:
    result = rnd.result
    if result is not None:
        return float(result.scores[seat])
    return float(sum(rnd._value[c] for c in rnd._slots[seat] if c >= 0))


def _analyse(
    worlds: Iterator[Round],
    seat: int,
    phase: str,
    count: int | None,
    limit: float | None,
    rng: random.Random,
    cfg: SearchBotConfig,
    seed: int | None,
) -> Analysis:
    deadline = None if limit is None else time.perf_counter() + limit
    first = next(worlds)
    ids = first.legal_action_ids(seat)
    to_act = first.to_act
    if not ids:
        raise AnalysisError(
            f"seat {seat} has no decision now (seat {to_act} is to act and seat {seat} cannot snap)"
        )
    space = first.space
    candidates: list[int | None] = list(ids)
    if to_act != seat:
        candidates.append(None)  # letting the window pass
    styles = [cfg.style if q == seat else cfg.model for q in range(first.players)]
    wins: list[list[float]] = [[] for _ in candidates]
    scores: list[list[float]] = [[] for _ in candidates]
    world: Round | None = first
    n = 0
    while world is not None:
        play_seed = rng.getrandbits(64)
        for j, aid in enumerate(candidates):
            trial = world.copy()
            if aid is None:
                who = trial.to_act
                assert who is not None
                trial.apply(rollout_action(trial, who, random.Random(play_seed), styles[who]))
            else:
                trial.apply(aid)
            share = playout(trial, seat, random.Random(play_seed), cfg.max_decisions, styles)
            wins[j].append(share)
            scores[j].append(_score(trial, seat))
        n += 1
        if count is not None and n >= count:
            break
        if deadline is not None and n >= 2 and time.perf_counter() > deadline:
            break
        world = next(worlds)
    means = [sum(w) / n for w in wins]
    top = max(range(len(candidates)), key=lambda j: (means[j], -sum(scores[j]), -j))
    estimates = []
    for j, aid in enumerate(candidates):
        action = None if aid is None else space.decode(aid)
        label = f"P{seat} no snap" if action is None else str(action)
        low, high = wilson_interval(sum(wins[j]), n)
        score, half = _normal_half(scores[j])
        behind, behind_half = _normal_half([b - a for a, b in zip(wins[j], wins[top], strict=True)])
        estimates.append(
            ActionEstimate(
                action=action,
                label=label,
                win=means[j],
                win_low=low,
                win_high=high,
                score=score,
                score_low=score - half,
                score_high=score + half,
                behind=behind,
                behind_error=behind_half,
                samples=n,
            )
        )
    order = sorted(range(len(estimates)), key=lambda j: (-means[j], estimates[j].score, j))
    return Analysis(
        player=seat,
        phase=phase,
        estimates=tuple(estimates[j] for j in order),
        samples=n,
        seed=seed,
    )
