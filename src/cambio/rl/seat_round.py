"""One round seen from one learning seat, the other seats played by opponents: the core
of :func:`cambio.rl.gym_env` and :func:`cambio.rl.vector_env`.

:class:`SeatRound` deals a round, lets the opponents decide (reaction turns included,
through :class:`~cambio.rl.Turns`) until the learner must decide or the round is over,
and writes the learner's observation and mask. A round in which the learner never
decides (every decision was the opponents') is dealt again with the next deal seed, so
an episode always starts with a decision of the learner.
"""

from __future__ import annotations

import random

import numpy as np
import numpy.typing as npt

from ..bots import derive_seed
from ..errors import BotError
from ..round import Round
from ..rules import RuleSet
from .encoding import Encoder
from .opponents import Opponent, OpponentSpec, opponents_for
from .turns import Turns

__all__ = ["ILLEGAL", "ILLEGAL_REWARD", "REWARDS", "SeatRound"]

REWARDS = ("win", "score")
"""The reward options: ``"win"`` (the learner's share of 1 among the round's winners) and
``"score"`` (minus the learner's round score)."""

ILLEGAL = ("end", "raise")
"""What an action the learner may not choose does: ``"end"`` ends the episode with the
reward ``ILLEGAL_REWARD`` (as PettingZoo's classic games do), ``"raise"`` raises
``ValueError``."""

ILLEGAL_REWARD = -1.0
"""The reward of an illegal action under ``illegal="end"``."""

_MAX_DECISIONS = 100_000
_MAX_REDEALS = 1_000


class SeatRound:
    """A round at ``rules`` with ``players`` seats, the learner at ``seat``."""

    def __init__(
        self,
        rules: RuleSet,
        players: int,
        seat: int,
        opponents: OpponentSpec,
        reward: str,
        illegal: str = "end",
    ) -> None:
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, got {reward!r}")
        if illegal not in ILLEGAL:
            raise ValueError(f"illegal must be one of {', '.join(ILLEGAL)}, got {illegal!r}")
        self.illegal = illegal
        if isinstance(seat, bool) or not isinstance(seat, int):
            raise TypeError(f"seat must be a whole number, got {seat!r}")
        self.encoder = Encoder(rules, players)  # checks the seat count
        if not 0 <= seat < players:
            raise ValueError(f"seat must be from 0 to {players - 1}, got {seat}")
        self.rules = rules
        self.players = players
        self.seat = seat
        self.reward_mode = reward
        self.opponents: list[Opponent | None] = opponents_for(opponents, seat, players)
        self.decline = self.encoder.space.size
        self.actions = self.decline + 1
        """The number of action ids (the table's, then decline)."""
        self.round: Round | None = None
        self.turns: Turns | None = None
        self.deal_seed = 0
        self.ended_illegally = False
        """The episode ended on an illegal action of the learner (``illegal="end"``)."""

    # ------------------------------------------------------------------ playing
    def deal(self, rng: random.Random) -> None:
        """Deal rounds (deal seeds drawn from ``rng``) until one waits for the learner."""
        for _ in range(_MAX_REDEALS):
            self.ended_illegally = False
            self.deal_seed = rng.randrange(2**63)
            rnd = Round(self.rules, self.players, seed=self.deal_seed)
            self.round = rnd
            self.turns = Turns(rnd, shuffle_seed=self.deal_seed)
            for s, opponent in enumerate(self.opponents):
                if opponent is not None:
                    opponent.reset(s, self.rules, derive_seed(self.deal_seed, s))
            self._advance()
            if not rnd.is_over:
                return
        raise BotError(f"the learner had no decision in {_MAX_REDEALS} rounds dealt")

    def _advance(self) -> None:
        """Let the opponents decide until the learner must, or the round is over."""
        turns = self.turns
        rnd = self.round
        assert turns is not None and rnd is not None
        opponents, seat = self.opponents, self.seat
        for _ in range(_MAX_DECISIONS):
            who = turns.actor
            if who is None or who == seat:
                return
            opponent = opponents[who]
            assert opponent is not None
            turns.step(opponent.choose(rnd, turns))
        raise BotError(f"the opponents made {_MAX_DECISIONS} decisions in a row")

    def legal(self) -> list[int]:
        """The learner's legal ids now (empty once the round is over)."""
        assert self.turns is not None
        if self.ended_illegally or self.turns.actor != self.seat:
            return []
        return self.turns.legal()

    def step(self, action: int) -> float:
        """Apply the learner's ``action``, let the opponents play on; the reward (not 0
        only when the round has ended)."""
        turns = self.turns
        if turns is None or self.round is None:
            raise RuntimeError("call reset() before step()")
        if self.over:
            raise RuntimeError("the episode is over: call reset() to deal the next round")
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise TypeError(f"action must be a whole number, got {action!r}")
        a = int(action)
        if a not in turns.legal():
            if self.illegal == "end":
                self.ended_illegally = True
                return ILLEGAL_REWARD
            raise ValueError(
                f"action {a} is not legal for seat {self.seat} now (legal: {turns.legal()})"
            )
        turns.step(a)
        self._advance()
        return self.reward()

    @property
    def over(self) -> bool:
        """Whether the episode has ended (the round, or an illegal action)."""
        return self.ended_illegally or (self.round is not None and self.round.is_over)

    def reward(self) -> float:
        """The learner's reward now: its outcome once the round has ended, else 0."""
        assert self.round is not None
        res = self.round.result
        if res is None:
            return 0.0
        if self.reward_mode == "score":
            return -float(res.scores[self.seat])
        return 1.0 / len(res.winners) if self.seat in res.winners else 0.0

    # ------------------------------------------------------------------ observing
    def observe(self, obs: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]) -> None:
        """Write the learner's observation into ``obs`` and its mask into ``mask``.

        Once the episode is over the mask holds only the decline id (under Gymnasium's
        next-step auto-reset the action that follows a last observation is ignored), so
        no mask is ever all zero."""
        rnd = self.round
        assert rnd is not None and self.turns is not None
        seat = self.seat
        self.encoder.encode_into(rnd.view(seat), rnd.legal_action_ids(seat), obs)
        mask.fill(0)
        if self.over:
            mask[self.decline] = 1
        else:
            for a in self.turns.legal():
                mask[a] = 1
