"""Cambio as a single-agent Gymnasium environment: the learner at one seat, fixed
opponents (bots or policies) at the others.

>>> from cambio.rl import gym_env
>>> e = gym_env("practice", players=2, opponents="random")
>>> obs, info = e.reset(seed=1)
>>> sorted(obs), bool((obs["action_mask"] == info["action_mask"]).all())
(['action_mask', 'observation'], True)
>>> obs, reward, terminated, truncated, info = e.step(int(obs["action_mask"].argmax()))

One episode is one round. The learner's decisions are its turns and its reaction turns
(the ids of :class:`~cambio.rl.Turns`: the table's action ids, then *decline*); every
other decision is made by the opponents (see :mod:`cambio.rl.opponents`) before
:meth:`CambioEnv.step` returns. The reward is 0 until the round ends, then the learner's
outcome: with ``reward="win"`` (default) its share of 1 among the round's winners (1
alone, 1/k tied with k-1 others, 0 when it lost), with ``reward="score"`` minus its
round score. The episode ends by termination only (a turn cap, ``max_turns=``, scores
the round as it stands). An action the learner may not choose ends the episode with
reward -1 (``illegal="end"``, the default, as PettingZoo's classic games do; Gymnasium's
``check_env`` steps unmasked random actions) or raises ``ValueError``
(``illegal="raise"``).
"""

from __future__ import annotations

import random
from typing import Any

import gymnasium
import numpy as np

from ..loading import load_ruleset
from ..play import board_text
from ..rules import RuleSet
from .opponents import OpponentSpec
from .seat_round import SeatRound
from .spaces import rules_with_cap, table_spaces

__all__ = ["ENV_ID", "CambioEnv", "gym_env"]

RENDER_MODES = ("ansi", "human")


def gym_env(
    variant: str | RuleSet = "practice",
    players: int | None = None,
    opponents: OpponentSpec = "random",
    seat: int = 0,
    seed: int | None = None,
    flat: bool = False,
    *,
    reward: str = "win",
    illegal: str = "end",
    max_turns: int | None = None,
    render_mode: str | None = None,
) -> CambioEnv:
    """A :class:`CambioEnv`: one learner at ``seat``, ``opponents`` at the other seats."""
    return CambioEnv(
        variant,
        players,
        opponents,
        seat,
        seed,
        flat,
        reward=reward,
        illegal=illegal,
        max_turns=max_turns,
        render_mode=render_mode,
    )


class CambioEnv(gymnasium.Env[Any, Any]):
    """One round of Cambio a reset, from the learner's seat.

    ``observation_space`` is a ``Dict`` of ``observation`` (the
    :class:`~cambio.rl.Encoder` vector of the learner's view) and ``action_mask``
    (``int8``, the ids the learner may choose now), or with ``flat=True`` one ``Box``:
    the encoder vector followed by the mask as 0.0/1.0 (:attr:`mask_offset` says where
    the mask starts). ``info["action_mask"]`` holds the mask either way. ``seed`` seeds
    the first :meth:`reset` that is given none.
    """

    metadata = {  # noqa: RUF012 - Gymnasium reads it from the class
        "render_modes": list(RENDER_MODES),
        "name": "cambio_single_v0",
        "render_fps": 4,
    }

    def __init__(
        self,
        variant: str | RuleSet = "practice",
        players: int | None = None,
        opponents: OpponentSpec = "random",
        seat: int = 0,
        seed: int | None = None,
        flat: bool = False,
        *,
        reward: str = "win",
        illegal: str = "end",
        max_turns: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        rules = variant if isinstance(variant, RuleSet) else load_ruleset(variant)
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be 'ansi', 'human' or None, got {render_mode!r}")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise TypeError(f"seed must be a whole number or None, got {seed!r}")
        if not isinstance(flat, bool):
            raise TypeError(f"flat must be True or False, got {flat!r}")
        self.rules = rules_with_cap(rules, max_turns)
        n = rules.players.default if players is None else players
        self.core = SeatRound(self.rules, n, seat, opponents, reward, illegal)
        self.players = n
        self.seat = seat
        self.flat = flat
        self.render_mode = render_mode
        self.encoder = self.core.encoder
        self.decline = self.core.decline
        self.mask_offset = self.encoder.size
        self.observation_space, self.action_space = table_spaces(self.encoder, flat)
        self._first_seed = seed
        self._rng = random.Random(seed)
        self._obs = np.zeros(self.encoder.size, dtype=np.float32)
        self._mask = np.zeros(self.core.actions, dtype=np.int8)

    def _observation(self) -> tuple[Any, dict[str, Any]]:
        self.core.observe(self._obs, self._mask)
        mask = self._mask.copy()
        if self.flat:
            obs: Any = np.concatenate([self._obs, mask.astype(np.float32)])
        else:
            obs = {"observation": self._obs.copy(), "action_mask": mask}
        return obs, {"action_mask": mask}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Deal a new round and play the opponents up to the learner's first decision."""
        super().reset(seed=seed)
        del options  # none are read
        if seed is None and self._first_seed is not None:
            seed, self._first_seed = self._first_seed, None
        if seed is not None:
            self._rng = random.Random(seed)
            self._first_seed = None
        self.core.deal(self._rng)
        return self._observation()

    def step(self, action: int) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Apply the learner's action; the opponents play until its next decision.

        An action the learner may not choose now ends the episode with reward -1
        (``illegal="end"``, the default) or raises ``ValueError`` (``illegal="raise"``)."""
        reward = self.core.step(action)
        obs, info = self._observation()
        if self.render_mode == "human":
            self.render()
        return obs, reward, self.core.over, False, info

    def legal(self) -> list[int]:
        """The learner's legal ids now (what the mask holds; empty once over)."""
        return self.core.legal()

    @property
    def round(self) -> Any:
        """The round being played (omniscient: for drivers and tests, not learners)."""
        if self.core.round is None:
            raise RuntimeError("call reset() before using the environment")
        return self.core.round

    def render(self) -> str | None:
        """The board as the learner sees it (``"ansi"`` returns it, ``"human"`` prints it)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        rnd = self.round
        names = [f"player_{i}" for i in range(self.players)]
        text = board_text(rnd.view(self.seat), names, self.rules, str)
        if rnd.is_over:
            text += "\nover"
        if self.render_mode == "human":
            print(text)
            return None
        return text


ENV_ID = "cambio/Cambio-v0"
"""The id under which :class:`CambioEnv` is registered with Gymnasium
(``gymnasium.make("cambio/Cambio-v0", variant="snap", players=3)``)."""

if ENV_ID not in gymnasium.registry:
    gymnasium.register(ENV_ID, entry_point="cambio.rl.single_env:CambioEnv")
