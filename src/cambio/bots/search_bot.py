"""A bot that searches: it imagines the hidden cards, tries each move, and plays on.

:class:`SearchBot` decides by *determinized Monte Carlo*: at each decision with more
than one choice it reads its view once (an :class:`~cambio.determinize.InfoSet`), then
again and again draws a full round consistent with what it saw
(:meth:`~cambio.determinize.InfoSet.sample`), tries every candidate action on a copy of
that round and plays the round out with a fast policy (:func:`rollout_action`), and
keeps the action with the best mean share of the win. Every candidate is tried on the
same sampled rounds with the same playout randomness, so the comparison between two
actions is not drowned in the noise of the deal.

It reads only its view and the rules, like every bot: the sampled rounds are its own
imagination. Snaps are left to the :class:`~cambio.bots.MemoryBot` rule (snap only a
card it knows matches), which it carries for that purpose.

The budget is a number of playouts per decision (``playouts``; reproducible under a
seed) and, optionally, a time limit per decision (``time_limit`` seconds; then the
decisions depend on the machine's speed). It searches at tables of at most
``search_players`` players (two by default). At larger ones, where searching every
decision lost on the same deals, it searches the start of its turns before anyone
calls (``wide_phases``) on more strongly weighed samples, aims its blind swaps by
weighed samples of the hidden cards (:meth:`SearchBot.beliefs`), searches its final
turn after another player's call, with samples weighed by the call too
(:func:`call_log_weight`), and plays its style's choices elsewhere.

>>> import cambio
>>> from cambio.bots import MemoryBot, SearchBot, SearchBotConfig, play_round
>>> bots = [SearchBot(SearchBotConfig(playouts=24)), MemoryBot()]
>>> played = play_round(cambio.Round("practice", players=2, seed=3), bots, seed=3)
>>> played.result.reason
'call'
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Iterator, Sequence

import attrs

from ..actions import Action, ActionKind
from ..determinize import InfoSet
from ..round import Phase, Round
from ..rules import RuleSet
from ..views import PlayerView
from .memory_bot import MemoryBot, MemoryBotConfig

__all__ = ["SearchBot", "SearchBotConfig", "rollout_action", "playout"]

# local ids of the simple actions (see cambio.actions.ActionSpace)
_DRAW, _TAKE, _CALL, _PASS, _REPEEK, _DISCARD, _SKIP = range(7)


_STYLE = MemoryBotConfig(call_threshold=7.0, take_max=2, swap_margin=1.0)
_MODEL = MemoryBotConfig()


def _positive(instance: object, attribute: attrs.Attribute[int], value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{attribute.name} must be a whole number of 1 or more, got {value!r}")


def _natural(instance: object, attribute: attrs.Attribute[int], value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{attribute.name} must be a whole number of 0 or more, got {value!r}")


def _time_limit(instance: object, attribute: object, value: float | None) -> None:
    if value is not None and (isinstance(value, bool) or not value > 0):
        raise ValueError(f"time_limit must be None or a number of seconds above 0, got {value!r}")


def _share_or_none(instance: object, attribute: object, value: float | None) -> None:
    if value is not None and (
        isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0
    ):
        raise ValueError(f"call_judge must be None or a share of 0 or more, got {value!r}")


# the phases in which a player decides (a round over or closing asks nobody to act)
_PHASE_NAMES = frozenset(p.name.lower() for p in Phase if p not in (Phase.OVER, Phase.CLOSING))


def _phase_names(
    instance: object, attribute: attrs.Attribute[tuple[str, ...]], value: object
) -> None:
    if not isinstance(value, tuple) or not all(
        isinstance(name, str) and name in _PHASE_NAMES for name in value
    ):
        names = ", ".join(sorted(_PHASE_NAMES))
        raise ValueError(
            f"{attribute.name} must be a tuple of phase names ({names}), got {value!r}"
        )


def _weight(instance: object, attribute: object, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        raise ValueError(f"score_weight must be a number of 0 or more, got {value!r}")


@attrs.frozen
class SearchBotConfig:
    """The knobs of a :class:`SearchBot`.

    >>> SearchBotConfig().playouts
    160
    """

    playouts: int = attrs.field(default=160, validator=_positive)
    """Playouts per decision, shared among the candidate actions (each sampled round is
    played once per candidate)."""
    min_samples: int = attrs.field(default=8, validator=_positive)
    """Sampled rounds per decision at the least, however many candidates there are."""
    time_limit: float | None = attrs.field(default=None, validator=_time_limit)
    """Stop sampling after this many seconds (``None``: the playout count alone)."""
    margin: float = 0.05
    """The bot starts from the :class:`~cambio.bots.MemoryBot`'s choice and leaves it only
    for a candidate whose mean win share is higher by more than this ..."""
    confidence: float = 2.0
    """... and by more than this many standard errors of the paired differences (the
    candidates are played on the same samples), so that noise does not move it."""
    phases: tuple[str, ...] = attrs.field(
        default=("turn", "power", "end_of_turn"), validator=_phase_names
    )
    """The phases in which the bot searches at a table of at most :attr:`search_players`
    players; elsewhere (placing a card, the opening, giving a card) it plays its style's
    choice. ``"drawn"`` and ``"taken"`` add the placement of a card. (Larger tables:
    :attr:`wide_phases`.) The names are those of :class:`~cambio.round.Phase`, in lower
    case: ``opening``, ``turn``, ``drawn``, ``taken``, ``power``, ``end_of_turn``,
    ``give``."""
    eager_calls: bool = True
    """Whether the search may call where its :attr:`style` would not (else it may only
    hold back a call). Uniform samples make the opponents' hidden cards look worse than
    a sensible player's are, and a search over them calls too early; the samples
    weighed by the other players' choices (:attr:`oversample`) are close enough."""
    max_decisions: int = attrs.field(default=400, validator=_positive)
    """A playout longer than this is scored as it stands."""
    oversample: int = attrs.field(default=4, validator=_positive)
    """Uniform samples drawn per sample kept: the kept ones are chosen in proportion
    to how well they explain the other players' choices (1: keep every uniform
    sample)."""
    softness: float = 1.5
    """Points over which a modelled player's choice goes from unlikely to likely."""
    floor: float = 0.05
    """The least chance the model gives any recorded choice."""
    style: MemoryBotConfig = _STYLE
    """How the bot plays where it does not search, and how it plays its own seat in
    the playouts: the MemoryBot's rules with these knobs. The default calls sooner
    (at an estimated 7 points rather than 11), takes only discards of 2 or less and
    swaps for a gain of 1: on the practice table that alone wins 56.6% of two-player
    rounds against the default MemoryBot (3,000 rounds, seed 19, seats rotated)."""
    model: MemoryBotConfig = _MODEL
    """How the bot expects the other players to play: their seats in the playouts,
    and the choices :func:`evidence_log_weight` weighs the samples by."""
    search_players: int = attrs.field(default=2, validator=_positive)
    """The most players at which the bot searches every phase of :attr:`phases`; at a
    larger table it searches only :attr:`wide_phases` and its final turn
    (:attr:`final_playouts`), aims its blind swaps by :attr:`belief_samples`, and
    plays its :attr:`style`'s choices elsewhere (and judges calls if :attr:`call_judge`
    is set). With three players the search of every phase changed its style's choices
    for the worse on the same deals (mostly taking a discard the style leaves; see the
    searching page), so by default only two-player rounds get that full search."""
    call_judge: float | None = attrs.field(default=None, validator=_share_or_none)
    """At a table of :attr:`judge_players` or more, where the bot may call and its
    style would not, it calls when the call alone wins at least this share of the
    sampled rounds (:attr:`call_samples` weighed samples, each played out to the end
    of the final turns, which is short and so measured sharply); ``None`` (the
    default): no such judgement. Tried with three players at 0.5, its calls won no
    more often than its style playing on from the same positions (the bots pages
    give the figures)."""
    score_weight: float = attrs.field(default=0.0, validator=_weight)
    """Added to a playout's win share: this much times the bot's lead in points at the
    end (the lowest other total minus its own, over 10 and held within -1 and 1). A
    lead says more than a win or a loss about how good a move was, so the candidates
    separate sooner; 0 (the default) scores the win share alone. Tried with three
    players at 0.5: more changes to the style's choices, no measurable gain."""
    judge_players: int = attrs.field(default=3, validator=_positive)
    """The least number of players at which :attr:`call_judge` applies."""
    call_samples: int = attrs.field(default=64, validator=_positive)
    """Sampled rounds the call is judged on."""
    final_playouts: int = attrs.field(default=400, validator=_natural)
    """At a table larger than :attr:`search_players`, the playouts per decision of the
    bot's final turn after another player's call (0: play the style there too). The
    final turn is short and ends the round, so its playouts are cheap and sharp, and the
    samples are weighed by the call as well: a player who called believed its total
    low."""
    belief_samples: int = attrs.field(default=48, validator=_natural)
    """At a table larger than :attr:`search_players`, weighed samples from which the
    bot reads the expected value of every card on the table at a blind swap (0: its
    style decides it by the unseen cards' mean, as the MemoryBot does). It swaps,
    blind, the card of its own expected highest for the opponent's card expected lowest
    (by a gain of at least its style's ``swap_margin``; the victim with the lowest
    expected total among equals)."""
    wide_oversample: int = attrs.field(default=16, validator=_positive)
    """:attr:`oversample` of the samples at tables larger than :attr:`search_players`
    (the final turn's search and :attr:`belief_samples`): more evidence, as the round
    has gone on longer, so more samples to choose from."""
    wide_phases: tuple[str, ...] = attrs.field(default=("turn",), validator=_phase_names)
    """At a table larger than :attr:`search_players`, the phases in which the bot searches
    before anyone has called (``"turn"``: call, take the discard or draw; see
    :attr:`phases` for the names), with :attr:`wide_playouts` playouts over
    :attr:`wide_oversample` weighed samples. It keeps its style's choice unless another
    candidate is clearly better (:attr:`wide_margin`, :attr:`wide_confidence`). While
    :attr:`belief_samples` is above 0 its blind swaps are aimed by those samples, even
    with ``"power"`` here (its peeks are then searched)."""
    wide_playouts: int = attrs.field(default=240, validator=_positive)
    """Playouts per decision of the searches of :attr:`wide_phases`."""
    wide_margin: float = 0.05
    """:attr:`margin` of the searches of :attr:`wide_phases`."""
    wide_confidence: float = 1.0
    """:attr:`confidence` of the searches of :attr:`wide_phases`: lower than with two
    players, where the style's choices are already close to the search's."""
    final_margin: float = 0.0
    """:attr:`margin` of the final turn's search (:attr:`final_playouts`)."""
    final_confidence: float = 0.0
    """:attr:`confidence` of the final turn's search: 0, the best candidate is played."""


class SearchBot:
    """Determinized Monte Carlo search over the legal actions (see the module docs)."""

    def __init__(self, config: SearchBotConfig | None = None, seed: int | None = None) -> None:
        self.config = config if config is not None else SearchBotConfig()
        self.seat = -1
        self._rules: RuleSet | None = None
        self._rng = random.Random(seed)
        self._seed = seed
        self._memory = MemoryBot(self.config.style)
        self.decisions = 0
        """Decisions made since the last :meth:`reset` (searched or not)."""
        self.searched = 0
        """Decisions since the last :meth:`reset` that needed a search."""

    def __repr__(self) -> str:
        return f"SearchBot({self.config!r})"

    def reset(self, seat: int, rules: RuleSet, seed: int | None) -> None:
        self.seat = seat
        self._rules = rules
        if seed is not None:
            self._rng = random.Random(seed)
        self._seed = seed
        self._memory.reset(seat, rules, seed)
        self.decisions = 0
        self.searched = 0

    def react(self, view: PlayerView, snaps: Sequence[Action]) -> Action | None:
        return self._memory.react(view, snaps)

    def act(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        self.decisions += 1
        choices = [a for a in legal if a.kind is not ActionKind.SNAP] or list(legal)
        if len(choices) == 1:
            return choices[0]
        rules = self._rules
        if rules is None:
            raise RuntimeError("SearchBot.act before reset: the bot does not know the table")
        prior = self._memory.act(view, legal)
        cfg = self.config
        wide = view.players > cfg.search_players
        if wide and view.phase != "opening":
            caller = view.caller
            if cfg.final_playouts and caller is not None and caller != view.player:
                self.searched += 1
                return self.search(view, rules, choices, prior, cfg.final_playouts, wide=True)
        if view.phase not in cfg.phases and not (wide and view.phase in cfg.wide_phases):
            return prior
        if (
            cfg.call_judge is not None
            and view.players >= cfg.judge_players
            and prior.kind is not ActionKind.CALL
        ):
            call = next((a for a in choices if a.kind is ActionKind.CALL), None)
            if call is not None and self.call_share(view, rules, call) >= cfg.call_judge:
                return call
        if wide:
            if view.caller is not None:
                return prior
            if cfg.belief_samples:
                picked = self._belief_choice(view, rules, choices)
                if picked is not None:
                    return picked
            if view.phase in cfg.wide_phases:
                self.searched += 1
                return self.search(view, rules, choices, prior, cfg.wide_playouts, wide=True)
            return prior
        if not self.config.eager_calls and prior.kind is not ActionKind.CALL:
            choices = [a for a in choices if a.kind is not ActionKind.CALL]
            if len(choices) == 1:
                return choices[0]
        self.searched += 1
        return self.search(view, rules, choices, prior)

    def search(
        self,
        view: PlayerView,
        rules: RuleSet,
        choices: Sequence[Action],
        prior: Action | None = None,
        playouts: int | None = None,
        *,
        wide: bool = False,
    ) -> Action:
        """The candidate among ``choices`` with the best mean win share over playouts.

        With a ``prior`` among the choices, another candidate wins only when it is
        clearly better (see :attr:`SearchBotConfig.margin` and ``confidence``).
        """
        cfg = self.config
        over = cfg.wide_oversample if wide else cfg.oversample
        info = InfoSet(view, rules, evidence=over > 1)
        rng = self._rng
        seat = view.player
        k = len(choices)
        samples = max(cfg.min_samples, (cfg.playouts if playouts is None else playouts) // k)
        deadline = None if cfg.time_limit is None else time.perf_counter() + cfg.time_limit
        styles = [cfg.style if q == seat else cfg.model for q in range(view.players)]
        results: list[list[float]] = [[] for _ in range(k)]
        caller = view.caller if wide else None  # two-player searches: as they were
        for world in self._rounds(info, samples, rng, caller, over):
            ids = [world.space.encode(a) for a in choices]
            seed = rng.getrandbits(64)
            for j, aid in enumerate(ids):
                trial = world.copy()
                trial.apply(aid)
                results[j].append(
                    playout(
                        trial,
                        seat,
                        random.Random(seed),
                        cfg.max_decisions,
                        styles,
                        cfg.score_weight,
                    )
                )
            if deadline is not None and time.perf_counter() > deadline:
                break
        totals = [sum(r) for r in results]
        best = max(range(k), key=lambda j: (totals[j], -j))
        if prior is not None and prior in choices:
            p = choices.index(prior)
            if not wide:
                margin, z = cfg.margin, cfg.confidence
            elif caller is not None and caller != seat:
                margin, z = cfg.final_margin, cfg.final_confidence
            else:
                margin, z = cfg.wide_margin, cfg.wide_confidence
            if best != p and not _clearly_better(results[best], results[p], margin, z, k):
                return prior
        return choices[best]

    def beliefs(self, view: PlayerView, rules: RuleSet, count: int) -> list[list[list[int]]]:
        """``count`` weighed samples of every grid's values (``[sample][seat][i]``,
        ``-1`` for an empty position), drawn like the search's rounds."""
        cfg = self.config
        rng = random.Random(f"belief-{self._seed}-{self.decisions}")
        over = cfg.wide_oversample
        info = InfoSet(view, rules, evidence=over > 1)
        out: list[list[list[int]]] = []
        for world in self._rounds(info, count, rng, view.caller, over):
            value = world._value
            out.append([[value[c] if c >= 0 else -1 for c in row] for row in world._slots])
        return out

    def _belief_choice(
        self, view: PlayerView, rules: RuleSet, choices: Sequence[Action]
    ) -> Action | None:
        """A blind swap read from :meth:`beliefs` (``None``: not a swap; the style's)."""
        step = view.power_step
        swaps = [a for a in choices if a.kind is ActionKind.SWAP]
        if view.phase != "power" or step is None or step.action != "swap" or not swaps:
            return None
        cfg = self.config
        me = view.player
        samples = self.beliefs(view, rules, cfg.belief_samples)
        m = len(samples)

        def mean(slot: tuple[int, int]) -> float:
            q, i = slot
            return sum(s[q][i - 1] for s in samples) / m

        totals = [
            sum(sum(x for x in s[q] if x >= 0) for s in samples) / m for q in range(view.players)
        ]
        best, best_key = None, (cfg.style.swap_margin, 0.0)
        for a in swaps:
            x, y = a.positions
            if (x[0] == me) == (y[0] == me):
                continue  # two of its own or two of others': the style's business
            own, other = (x, y) if x[0] == me else (y, x)
            key = (mean(own) - mean(other), -totals[other[0]])
            if key > best_key:
                best, best_key = a, key
        if best is not None:
            return best
        return next((a for a in choices if a.kind is ActionKind.SKIP), None)

    def call_share(self, view: PlayerView, rules: RuleSet, call: Action) -> float:
        """The mean win share of calling now over :attr:`SearchBotConfig.call_samples`
        weighed samples, each played out to the round's end (the other players' final
        turns by the ``model``).

        Its randomness comes from its own generator, seeded from the bot's seed and the
        decision's number, so judging a call leaves the rest of the bot's choices as
        they would be without it."""
        cfg = self.config
        rng = random.Random(f"call-{self._seed}-{self.decisions}")
        info = InfoSet(view, rules, evidence=cfg.oversample > 1)
        seat = view.player
        styles = [cfg.style if q == seat else cfg.model for q in range(view.players)]
        total = 0.0
        worlds = self._worlds(info, cfg.call_samples, rng, cfg.oversample)
        for assign in worlds:
            world = info.build(assign, rng)
            world.apply(world.space.encode(call))
            total += playout(world, seat, rng, cfg.max_decisions, styles)
        return total / len(worlds)

    def _rounds(
        self, info: InfoSet, count: int, rng: random.Random, caller: int | None, oversample: int
    ) -> Iterator[Round]:
        """``count`` sampled rounds: :meth:`_worlds` built, or with another player's
        call in the view, drawn from ``oversample`` times as many built rounds, weighed
        by the other players' choices and by the call (:func:`call_log_weight`)."""
        cfg = self.config
        if caller is None or caller == info.view.player or oversample <= 1:
            for assign in self._worlds(info, count, rng, oversample):
                yield info.build(assign, rng)
            return
        pool: list[Round] = []
        logs: list[float] = []
        for _ in range(count * oversample):
            assign = info.assignment(rng)
            world = info.build(assign, rng)
            pool.append(world)
            weight = evidence_log_weight(info, assign, cfg) + call_log_weight(world, caller, cfg)
            logs.append(weight)
        for i in _resample(logs, count, rng):
            yield pool[i].copy()

    def _worlds(
        self, info: InfoSet, count: int, rng: random.Random, oversample: int
    ) -> list[list[int]]:
        """``count`` card assignments drawn from ``info``, weighed by how well they
        explain the other players' choices (sampling importance resampling): the
        uniform samples are ``oversample`` times as many, and each is kept with a
        chance in proportion to its weight (:func:`evidence_log_weight`)."""
        cfg = self.config
        if oversample <= 1 or not info.evidence:
            return [info.assignment(rng) for _ in range(count)]
        pool = [info.assignment(rng) for _ in range(count * oversample)]
        logs = [evidence_log_weight(info, a, cfg) for a in pool]
        return [pool[i] for i in _resample(logs, count, rng)]


def _resample(logs: list[float], count: int, rng: random.Random) -> list[int]:
    """``count`` indices drawn in proportion to ``exp(logs)`` (a systematic sweep)."""
    top = max(logs)
    weights = [math.exp(x - top) for x in logs]
    step = sum(weights) / count
    x = rng.random() * step
    chosen: list[int] = []
    acc = 0.0
    for i, w in enumerate(weights):
        acc += w
        while x < acc and len(chosen) < count:
            chosen.append(i)
            x += step
    while len(chosen) < count:  # rounding at the end of the sweep
        chosen.append(len(logs) - 1)
    return chosen


def call_log_weight(world: Round, caller: int, cfg: SearchBotConfig) -> float:
    """The log-likelihood of ``caller``'s call in the sampled round ``world``, under the
    model's rule (call when its estimated total is low and below its estimates of the
    others by a margin), read from what ``caller`` knows in ``world`` now (the grids as
    they stand, which the final turns change little)."""
    model = cfg.model
    T = cfg.softness
    value = world._value
    known = world._known
    bit = 1 << caller
    unseen = [v for c, v in enumerate(value) if not known[c] & bit]
    mean = sum(unseen) / len(unseen) if unseen else 0.0
    sums = [
        sum(value[c] if known[c] & bit else mean for c in row if c >= 0) for row in world._slots
    ]
    mine = sums[caller]
    others = min((t for q, t in enumerate(sums) if q != caller), default=mine)
    threshold, margin = model.call_bounds(max(0, world.rules.call.penalty), world._turns[caller])
    p = _sig((threshold - mine) / T) * _sig((others - margin - mine) / T)
    return math.log(max(cfg.floor, p))


def _sig(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


def evidence_log_weight(info: InfoSet, assign: list[int], cfg: SearchBotConfig) -> float:
    """The log-likelihood of the other players' recorded choices (:attr:`InfoSet.evidence`)
    if the hidden cards were ``assign``, under a model of a sensible player: it keeps a
    drawn card only when it is lower than the card it replaces, replaces its highest
    card, discards a drawn card only when no card it knows is much higher, swaps blind
    only a high card of its own, and calls as soon as it knows it is clearly ahead.

    Each choice's chance is a logistic curve of the point gap (``cfg.softness`` points
    wide) and never falls below ``cfg.floor``, so a player who plays otherwise weakens
    the weights instead of ruling samples out.
    """
    fv = info.face_values
    fp = info.face_powers
    mean = info.deck_mean
    model = cfg.model
    T = cfg.softness
    floor = cfg.floor
    log = math.log
    total = 0.0

    def est(v: int, knew: bool) -> float:
        return fv[assign[v]] if knew else mean

    for kind, p, a, b, flag, flag2, grids in info.evidence:
        if kind == "keep":
            grid = grids[p]
            knew_old = any(u == b and kb for u, kb in grid)
            worst = est(b, knew_old)
            if flag:  # drawn from the stock: kept because it was lower
                gain = worst - fv[assign[a]] - model.replace_margin
                total += log(max(floor, _sig(gain / T)))
            for u, kb in grid:  # the card replaced was its highest
                if kb and u != b:
                    total += log(max(floor, _sig((worst - fv[assign[u]] + 0.5) / T)))
        elif kind == "drop":
            dv = fv[assign[a]]
            bonus = model.power_value if fp[assign[a]] is not None else 0.0
            bar = dv + model.replace_margin + bonus
            for u, kb in grids[p]:  # no card it knew was much higher
                if kb:
                    total += log(max(floor, _sig((bar - fv[assign[u]]) / T)))
        elif kind == "swap":
            if flag:  # it sent away a card it knew: a high one
                gain = fv[assign[a]] - est(b, flag2)
                total += log(max(floor, _sig((gain - model.swap_margin) / T)))
        elif kind == "nocall":
            sums = [sum(est(u, kb) for u, kb in row) for row in grids]
            mine = sums[p]
            others = min((t for q, t in enumerate(sums) if q != p), default=mine)
            call = _sig((model.call_threshold - mine) / T) * _sig(
                (others - model.call_margin - mine) / T
            )
            total += log(max(floor, 1.0 - call))
    return total


def _clearly_better(
    best: list[float], prior: list[float], margin: float, confidence: float, candidates: int
) -> bool:
    """Whether ``best`` beats ``prior`` on the same samples by more than the margin and
    by more than ``cfg.confidence`` standard errors of the paired differences (a little
    more with many candidates: the best of many looks better than it is)."""
    diffs = [a - b for a, b in zip(best, prior, strict=True)]
    m = len(diffs)
    mean = sum(diffs) / m
    if mean <= margin:
        return False
    var = sum((d - mean) ** 2 for d in diffs) / max(1, m - 1)
    z = confidence + min(1.5, 0.1 * (candidates - 2)) if confidence > 0 else 0.0
    return bool(mean > z * math.sqrt(var / m))


def _share(rnd: Round, seat: int, score_weight: float = 0.0) -> float:
    result = rnd.result
    if result is None or score_weight:
        totals = [
            sum(rnd._value[c] for c in row if c >= 0) for row in rnd._slots
        ]  # scored as it stands
    if result is None:
        low = min(totals)
        winners = [p for p, t in enumerate(totals) if t == low]
    else:
        winners = list(result.winners)
    share = 1.0 / len(winners) if seat in winners else 0.0
    if score_weight:
        others = min((t for q, t in enumerate(totals) if q != seat), default=totals[seat])
        share += score_weight * max(-1.0, min(1.0, (others - totals[seat]) / 10))
    return share


def playout(
    rnd: Round,
    seat: int,
    rng: random.Random,
    max_decisions: int = 400,
    styles: Sequence[MemoryBotConfig] | None = None,
    score_weight: float = 0.0,
) -> float:
    """Play ``rnd`` to its end with :func:`rollout_action` for every seat (``styles[q]``:
    the knobs of seat ``q``; the MemoryBot's defaults when not given).

    Returns ``seat``'s share of the win (1 for a sole winner, ``1/k`` for a win shared
    by ``k`` players, else 0), plus ``score_weight`` times its lead in points (see
    :attr:`SearchBotConfig.score_weight`). The round is changed in place: pass a copy.
    """
    snapping = rnd.rules.snap.when != "never"
    n = rnd.players
    for _ in range(max_decisions):
        if rnd.phase is Phase.OVER:
            break
        if snapping and rnd._window_open:
            snap = _known_snap(rnd, n)
            if snap >= 0:
                rnd.apply(snap)
                continue
        who = rnd.to_act
        assert who is not None
        rnd.apply(rollout_action(rnd, who, rng, _DEFAULT_STYLE if styles is None else styles[who]))
    return _share(rnd, seat, score_weight)


def _known_snap(rnd: Round, n: int) -> int:
    """A snap some player knows to be right (its own card matching the top), or -1."""
    top = rnd._discard[-1]
    key = rnd._key[top]
    P = rnd._P
    sp = rnd.space
    for p in range(n):
        bit = 1 << p
        for i, c in enumerate(rnd._slots[p]):
            if c >= 0 and rnd._known[c] & bit and rnd._key[c] == key:
                aid = p * sp.per_player + sp.o_snap + p * P + i
                if aid in rnd.legal_action_ids(p):
                    return aid
    return -1


_DEFAULT_STYLE = MemoryBotConfig()


def rollout_action(
    rnd: Round, p: int, rng: random.Random, style: MemoryBotConfig = _DEFAULT_STYLE
) -> int:
    """A quick, sensible action id for player ``p`` from ``p``'s knowledge in ``rnd``.

    Used inside a search's imagined rounds, it reads the round's internals (which cards
    ``p`` knows, their values) instead of building a view, which keeps playouts cheap.
    It follows the :class:`~cambio.bots.MemoryBot`'s rules with the knobs of ``style``
    (a :class:`~cambio.bots.MemoryBotConfig`; perfect memory): it improves the grid
    with low cards, peeks at unknown cards, dumps known high cards on opponents
    through swaps, and calls when clearly ahead by ``p``'s estimate.
    """
    ids = rnd.legal_action_ids(p)
    sp = rnd.space
    base = p * sp.per_player
    phase = rnd._phase  # the true phase: p plays its own (omniscient) world
    value = rnd._value
    known = rnd._known
    bit = 1 << p
    slots = rnd._slots
    row = slots[p]
    unseen = [v for c, v in enumerate(value) if not known[c] & bit]
    mean = sum(unseen) / len(unseen) if unseen else 0.0

    def est(c: int) -> float:
        return value[c] if known[c] & bit else mean

    def worst() -> int:
        best_i, best_v = -1, -1e9
        for i, c in enumerate(row):
            if c >= 0:
                v = est(c)
                if v > best_v:
                    best_i, best_v = i, v
        return best_i

    def should_call() -> bool:
        mine = sum(est(c) for c in row if c >= 0)
        others = [sum(est(c) for c in r if c >= 0) for q, r in enumerate(slots) if q != p]
        threshold, margin = style.call_bounds(max(0, rnd.rules.call.penalty), rnd._turns[p])
        return mine <= threshold and mine + margin <= min(others, default=1e9)

    if phase is Phase.POWER:
        power = rnd._power_now
        assert power is not None
        step = power.steps[rnd._step]
        P = rnd._P
        if step.action == "peek":
            for i, c in enumerate(row):
                if c >= 0 and not known[c] & bit:
                    aid = base + sp.o_peek + p * P + i
                    if aid in ids:
                        return aid
            order = sorted(
                (sum(est(c) for c in r if c >= 0), q) for q, r in enumerate(slots) if q != p
            )
            for _, q in order:
                for i, c in enumerate(slots[q]):
                    aid = base + sp.o_peek + q * P + i
                    if c >= 0 and not known[c] & bit and aid in ids:
                        return aid
        else:
            legal = set(ids)
            best, gain = -1, style.swap_margin - 1e-9
            for i, c in enumerate(row):
                if c < 0:
                    continue
                mine = est(c)
                for q, r in enumerate(slots):
                    if q == p:
                        continue
                    for j, d in enumerate(r):
                        if d >= 0 and mine - est(d) > gain:
                            aid = base + sp.pair(p * P + i, q * P + j)
                            if aid in legal:
                                best, gain = aid, mine - est(d)
            if best >= 0:
                return best
        if base + _SKIP in ids:
            return base + _SKIP
        if base + _DISCARD in ids:
            phase = Phase.DRAWN  # a private power's steps are left out by placing the card
    if phase is Phase.TURN:
        if base + _CALL in ids and should_call():
            return base + _CALL
        if base + _TAKE in ids and rnd._discard:
            i = worst()
            top = value[rnd._discard[-1]]
            if i >= 0 and top <= style.take_max and est(row[i]) - top >= style.take_gain:
                return base + _TAKE
        if base + _DRAW in ids:
            return base + _DRAW
    elif phase is Phase.DRAWN or phase is Phase.TAKEN:
        drawn = rnd._drawn
        held = value[drawn]
        i = worst()
        if i >= 0:
            gain = est(row[i]) - held
            bonus = 0.0
            if rnd._from_stock and rnd._power[drawn] is not None:
                bonus = style.power_value
            if base + _DISCARD not in ids or gain > style.replace_margin + bonus:
                aid = base + sp.o_replace + i
                if aid in ids:
                    return aid
        if base + _DISCARD in ids:
            return base + _DISCARD
    elif phase is Phase.END_OF_TURN:
        if base + _CALL in ids and should_call():
            return base + _CALL
        if base + _PASS in ids:
            return base + _PASS
    elif phase is Phase.GIVE:
        i = worst()
        aid = base + sp.o_give + i
        if aid in ids:
            return aid
    turn_ids = [
        a
        for a in ids
        if not (sp.o_snap <= a - base < sp.o_give or a - base >= sp.o_snap_many)
        and a != base + _CALL
    ]
    pool = turn_ids or ids
    return pool[rng.randrange(len(pool))]
