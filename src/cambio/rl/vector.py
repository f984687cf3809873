"""Many rounds of one table stepped together, behind Gymnasium's ``VectorEnv`` API.

>>> import numpy as np
>>> from cambio.rl import vector_env
>>> envs = vector_env(4, variant="practice", players=2, opponents="random", seed=0)
>>> obs, info = envs.reset()
>>> obs["observation"].shape[0], obs["action_mask"].shape[0]
(4, 4)
>>> actions = np.array([np.flatnonzero(m)[0] for m in obs["action_mask"]])
>>> obs, rewards, terminated, truncated, info = envs.step(actions)
>>> bool(obs["action_mask"].any(axis=1).all())
True

Sub-environment ``i`` is a :class:`~cambio.rl.CambioEnv` of the same options (its
round, opponents and random numbers its own); the batch is what Gymnasium's
``SyncVectorEnv`` over those environments gives, bit for bit (tested), written straight
into preallocated arrays.

Auto-reset: with ``autoreset_mode="same-step"`` (default, Gymnasium's ``SameStep``) a
sub-environment whose round ends is dealt its next round in the same step: the
observation returned is the new round's first (its mask never all zero), the last
observation of the old round is in ``info["final_obs"]`` (an object array, ``None``
where no round ended; ``info["_final_obs"]`` marks where one did) and its info in
``info["final_info"]``. With ``"next-step"`` (Gymnasium's ``NextStep``) the last
observation is returned, its mask holding only the decline id, and the next step deals
the new round whatever action it is given (reward 0).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..bots import Bot
from ..loading import load_ruleset
from ..rules import RuleSet
from .opponents import OpponentSpec
from .seat_round import SeatRound
from .spaces import rules_with_cap, table_spaces

__all__ = ["AUTORESET_MODES", "CambioVectorEnv", "vector_env"]

AUTORESET_MODES = {"same-step": AutoresetMode.SAME_STEP, "next-step": AutoresetMode.NEXT_STEP}
"""The auto-reset modes, by name."""


def vector_env(
    num_envs: int,
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
    autoreset_mode: str | AutoresetMode = "same-step",
) -> CambioVectorEnv:
    """A :class:`CambioVectorEnv` of ``num_envs`` rounds of one table."""
    return CambioVectorEnv(
        num_envs,
        variant,
        players,
        opponents,
        seat,
        seed,
        flat,
        reward=reward,
        illegal=illegal,
        max_turns=max_turns,
        autoreset_mode=autoreset_mode,
    )


def _own_copy(spec: OpponentSpec) -> OpponentSpec:
    """``spec`` for one more sub-environment: a bot is copied (its memory is its own)."""
    if isinstance(spec, Bot):
        return copy.deepcopy(spec)
    if isinstance(spec, (list, tuple)):
        return [copy.deepcopy(s) if isinstance(s, Bot) else s for s in spec]
    return spec


class CambioVectorEnv(VectorEnv[Any, Any, Any]):
    """``num_envs`` single-learner rounds of one table (see the module's documentation).

    ``seed`` seeds the first :meth:`reset` given none; ``reset(seed=s)`` seeds
    sub-environment ``i`` with ``s + i`` (a list gives one seed each), as Gymnasium's
    vector environments do.
    """

    def __init__(
        self,
        num_envs: int,
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
        autoreset_mode: str | AutoresetMode = "same-step",
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a whole number of 1 or more, got {num_envs!r}")
        if isinstance(autoreset_mode, str):
            if autoreset_mode not in AUTORESET_MODES:
                raise ValueError(
                    f"autoreset_mode must be one of {', '.join(AUTORESET_MODES)}, "
                    f"got {autoreset_mode!r}"
                )
            autoreset_mode = AUTORESET_MODES[autoreset_mode]
        if autoreset_mode not in AUTORESET_MODES.values():
            raise ValueError(f"autoreset_mode {autoreset_mode!r} is not supported")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise TypeError(f"seed must be a whole number or None, got {seed!r}")
        if not isinstance(flat, bool):
            raise TypeError(f"flat must be True or False, got {flat!r}")
        rules = variant if isinstance(variant, RuleSet) else load_ruleset(variant)
        self.rules = rules_with_cap(rules, max_turns)
        n = rules.players.default if players is None else players
        self.cores = [
            SeatRound(
                self.rules, n, seat, opponents if k == 0 else _own_copy(opponents), reward, illegal
            )
            for k in range(num_envs)
        ]
        self.num_envs = num_envs
        self.players = n
        self.seat = seat
        self.flat = flat
        self.autoreset_mode = autoreset_mode
        self.metadata = {"autoreset_mode": autoreset_mode}
        self.render_mode = None
        enc = self.cores[0].encoder
        self.encoder = enc
        self.decline = self.cores[0].decline
        self.mask_offset = enc.size
        self.single_observation_space, self.single_action_space = table_spaces(enc, flat)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        actions = self.cores[0].actions
        self._obs = np.zeros((num_envs, enc.size), dtype=np.float32)
        self._mask = np.zeros((num_envs, actions), dtype=np.int8)
        self._rewards = np.zeros(num_envs, dtype=np.float64)
        self._terminations = np.zeros(num_envs, dtype=np.bool_)
        self._truncations = np.zeros(num_envs, dtype=np.bool_)
        self._first_seed = seed
        self._rngs = [random.Random() for _ in range(num_envs)]
        self._dealt = False

    # ------------------------------------------------------------------ the batch
    def _observations(self) -> Any:
        if self.flat:
            return np.concatenate([self._obs, self._mask.astype(np.float32)], axis=1)
        return {"observation": self._obs.copy(), "action_mask": self._mask.copy()}

    def _one(self, i: int) -> Any:
        """Sub-environment ``i``'s observation now, as its own environment gives it."""
        if self.flat:
            return np.concatenate([self._obs[i], self._mask[i].astype(np.float32)])
        return {"observation": self._obs[i].copy(), "action_mask": self._mask[i].copy()}

    def _mask_info(self) -> dict[str, Any]:
        return {"action_mask": self._mask.copy(), "_action_mask": np.ones(self.num_envs, np.bool_)}

    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[Any, dict[str, Any]]:
        """Deal every sub-environment a new round (``options["reset_mask"]``, a boolean
        array, deals only where it is true)."""
        n = self.num_envs
        if seed is None and self._first_seed is not None:
            seed, self._first_seed = self._first_seed, None
        seeds: list[int | None]
        if seed is None:
            seeds = [None] * n
        elif isinstance(seed, bool):
            raise TypeError(f"seed must be a whole number, a list of them or None, got {seed!r}")
        elif isinstance(seed, int):
            seeds = [seed + i for i in range(n)]
        else:
            seeds = list(seed)
            if len(seeds) != n:
                raise ValueError(f"{len(seeds)} seeds were given for {n} environments")
        self._first_seed = None
        where = np.ones(n, dtype=np.bool_)
        if options is not None and "reset_mask" in options:
            where = np.asarray(options["reset_mask"])
            if where.shape != (n,) or where.dtype != np.bool_:
                raise ValueError(f"options['reset_mask'] must be a boolean array of shape ({n},)")
        for i in np.flatnonzero(where).tolist():
            s = seeds[i]
            if s is not None:
                self._rngs[i] = random.Random(s)
            core = self.cores[i]
            core.deal(self._rngs[i])
            core.observe(self._obs[i], self._mask[i])
        self._terminations[where] = False
        self._truncations[where] = False
        self._dealt = True
        info = self._mask_info()
        return self._observations(), info

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[
        Any, npt.NDArray[np.float64], npt.NDArray[np.bool_], npt.NDArray[np.bool_], dict[str, Any]
    ]:
        """Apply one action per sub-environment (``actions``: ``num_envs`` ids)."""
        if not self._dealt:
            raise RuntimeError("call reset() before step()")
        chosen = np.asarray(actions)
        if chosen.shape != (self.num_envs,):
            raise ValueError(
                f"expected {self.num_envs} actions, got an array of shape {chosen.shape}"
            )
        same_step = self.autoreset_mode is AutoresetMode.SAME_STEP
        rewards, terms = self._rewards, self._terminations
        obs, mask = self._obs, self._mask
        final: list[int] = []
        final_obs: list[Any] = []
        for i, a in enumerate(chosen.tolist()):
            core = self.cores[i]
            if not same_step and terms[i]:  # next-step: this step deals the next round
                core.deal(self._rngs[i])
                core.observe(obs[i], mask[i])
                rewards[i] = 0.0
                terms[i] = False
                continue
            rewards[i] = core.step(a)
            over = core.over
            terms[i] = over
            core.observe(obs[i], mask[i])
            if over and same_step:
                final.append(i)
                final_obs.append(self._one(i))
                core.deal(self._rngs[i])
                core.observe(obs[i], mask[i])
        info: dict[str, Any]
        if final:
            n = self.num_envs
            where = np.zeros(n, dtype=np.bool_)
            where[final] = True
            boxed = np.full(n, None, dtype=object)
            final_masks = np.zeros_like(mask)
            for i, o in zip(final, final_obs, strict=True):
                boxed[i] = o
                final_masks[i, self.decline] = 1
            info = {
                "final_obs": boxed,
                "_final_obs": where,
                "final_info": {"action_mask": final_masks, "_action_mask": where.copy()},
                "_final_info": where.copy(),
                **self._mask_info(),
            }
        else:
            info = self._mask_info()
        return (
            self._observations(),
            rewards.copy(),
            terms.copy(),
            self._truncations.copy(),
            info,
        )

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release."""
