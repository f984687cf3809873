"""A review after the round: where a player's decisions cost the most.

:func:`review` replays a round from its deal, action by action, and at each decision
the player made it analyses the player's view *at that moment* (:func:`cambio.analyse`),
so nothing the player learned later, and no card it never saw, goes into the verdict.
Each decision gets the analysis's best action and the estimated cost of the action
taken: how much win share it gave up (measured on the same drawn rounds as the best
action, see :attr:`~cambio.analysis.ActionEstimate.behind`) and how many points of
round score. The decisions are listed with the biggest cost first.

>>> import cambio
>>> from cambio.bots import MemoryBot, RandomBot, play_round
>>> rnd = cambio.Round("practice", players=2, seed=5)
>>> _ = play_round(rnd, [RandomBot(1), MemoryBot()], seed=5)
>>> report = cambio.review(rnd, 0, samples=4, seed=1)
>>> costs = [d.win_cost for d in report.decisions]
>>> costs == sorted(costs, reverse=True)
True
"""

from __future__ import annotations

import attrs

from .analysis import ActionEstimate, Analysis, AnalysisError, analyse_round
from .bots.base import derive_seed
from .bots.search_bot import SearchBotConfig
from .round import Round

__all__ = ["Review", "ReviewedDecision", "review", "replay_from_start"]


@attrs.frozen
class ReviewedDecision:
    """One decision of the reviewed player, with what the analysis thought of it."""

    index: int
    """The decision's place in the round's record: ``Round.actions[index]`` is the
    action taken."""
    turn: int
    """How many turns had been completed, all seats together, when it was made."""
    phase: str
    """The phase as the player saw it (``"turn"``, ``"drawn"``, ``"power"``...)."""
    taken: ActionEstimate
    """The estimate of the action the player took."""
    best: ActionEstimate
    """The estimate of the action the analysis ranks first."""
    win_cost: float
    """The win share given up: the best action's minus the action taken's, on the same
    drawn rounds (0 when the player took the best action)."""
    win_cost_error: float
    """The half-width of the normal 95% interval of :attr:`win_cost` (from the paired
    differences round by round)."""
    score_cost: float
    """Round score points given up: the action taken's mean score minus the best
    action's (a lower score is better, so a positive cost is worse)."""
    analysis: Analysis
    """The whole analysis of the decision."""


@attrs.frozen
class Review:
    """Every decision of one player in a round, the costliest first (:func:`review`)."""

    player: int
    """The reviewed seat (in the round's seats)."""
    decisions: tuple[ReviewedDecision, ...]
    """The decisions that had more than one choice, by :attr:`ReviewedDecision.win_cost`
    (then :attr:`ReviewedDecision.score_cost`), biggest first."""
    samples: int | None
    """The drawn rounds per decision asked for."""
    seed: int | None
    """The seed of the review (each decision's analysis is seeded from it and the
    decision's index)."""

    @property
    def win_cost(self) -> float:
        """The win share given up over all the decisions, added up."""
        return sum(d.win_cost for d in self.decisions)

    @property
    def in_order(self) -> tuple[ReviewedDecision, ...]:
        """The decisions in the order they were made."""
        return tuple(sorted(self.decisions, key=lambda d: d.index))


def replay_from_start(rnd: Round) -> Round:
    """A fresh copy of ``rnd`` as it stood before its first action: the same deal (or
    the same written position), seed, dealer and starter."""
    if rnd._origin:
        return Round.from_position(rnd.rules, rnd._origin)
    fresh = Round(rnd.rules, rnd.players, seed=rnd.seed, dealer=rnd.dealer, starter=rnd.starter)
    if fresh.deck == rnd.deck:
        return fresh
    return Round(
        rnd.rules,
        rnd.players,
        seed=rnd.seed,
        deck=list(rnd.deck),
        dealer=rnd.dealer,
        starter=rnd.starter,
    )


def review(
    rnd: Round,
    player: int,
    *,
    samples: int | None = 32,
    seconds: float | None = None,
    seed: int | None = None,
    policy: SearchBotConfig | None = None,
) -> Review:
    """Review ``player``'s decisions in ``rnd`` (finished or not).

    The round is replayed from its start (:func:`replay_from_start`); before each action
    of ``player`` that was one of several choices, the player's position is analysed
    with :func:`cambio.analyse_round` (``samples``, ``seconds`` and ``policy`` as there,
    per decision; the analysis of decision ``k`` is seeded with
    ``derive_seed(seed, k)``). Only actions the player took are reviewed: a snap window
    it let pass is not a recorded decision. Raises :class:`~cambio.AnalysisError` for a
    seat the round does not have.
    """
    if not isinstance(rnd, Round):
        raise TypeError(f"rnd must be a Round, got {rnd!r}")
    if isinstance(player, bool) or not isinstance(player, int):
        raise TypeError(f"player must be a seat number, got {player!r}")
    if not 0 <= player < rnd.players:
        raise AnalysisError(f"there is no seat {player} (seats 0 to {rnd.players - 1})")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise TypeError(f"seed must be a whole number or None, got {seed!r}")
    now = replay_from_start(rnd)
    per = now.space.per_player
    decode = now.space.decode
    found: list[ReviewedDecision] = []
    for k, aid in enumerate(rnd.action_ids):
        if aid // per == player:
            options = len(now.legal_action_ids(player)) + (now.to_act != player)
            if options > 1:
                analysis = analyse_round(
                    now,
                    player,
                    samples=samples,
                    seconds=seconds,
                    seed=None if seed is None else derive_seed(seed, k),
                    policy=policy,
                )
                taken = analysis.estimate(decode(aid))
                best = analysis.best
                found.append(
                    ReviewedDecision(
                        index=k,
                        turn=now.turns_taken,
                        phase=analysis.phase,
                        taken=taken,
                        best=best,
                        win_cost=taken.behind,
                        win_cost_error=taken.behind_error,
                        score_cost=taken.score - best.score,
                        analysis=analysis,
                    )
                )
        now.apply(aid)
    found.sort(key=lambda d: (-d.win_cost, -d.score_cost, d.index))
    return Review(player=player, decisions=tuple(found), samples=samples, seed=seed)
