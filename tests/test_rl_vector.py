"""The vectorized environment: equal to Gymnasium's SyncVectorEnv over single
environments with the same seeds and actions, in both auto-reset modes, with the Dict
and the flat observation; never an all-zero mask; partial resets; bad input.
"""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from cambio.bots import MemoryBot
from cambio.rl import CambioVectorEnv, gym_env, vector_env

CAP = 30
MODES = [("same-step", AutoresetMode.SAME_STEP), ("next-step", AutoresetMode.NEXT_STEP)]


def _sample(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """One uniformly random legal id per row."""
    return np.array([rng.choice(np.flatnonzero(row)) for row in masks])


@pytest.mark.parametrize(("mode", "gym_mode"), MODES)
@pytest.mark.parametrize(
    ("name", "players", "opponents", "flat"),
    [
        ("practice", 2, "random", False),
        ("snap", 3, "memory", True),
        ("cabo", 4, "random", False),
        ("competitive", 3, MemoryBot(), True),
    ],
)
def test_the_batch_is_gymnasiums_sync_vector_env_over_single_envs(
    mode: str, gym_mode: AutoresetMode, name: str, players: int, opponents: object, flat: bool
) -> None:
    n = 6
    v = vector_env(
        n, name, players, opponents=opponents, flat=flat, max_turns=CAP, autoreset_mode=mode
    )
    s = SyncVectorEnv(
        [
            lambda: gym_env(name, players, opponents=opponents, flat=flat, max_turns=CAP)
            for _ in range(n)
        ],
        autoreset_mode=gym_mode,
    )
    assert v.single_observation_space == s.single_observation_space
    assert v.observation_space == s.observation_space
    assert v.action_space == s.action_space
    mine, theirs = v.reset(seed=7), s.reset(seed=7)
    assert data_equivalence(mine, theirs)
    rng = np.random.default_rng(7)
    ended = 0
    info = mine[1]
    for t in range(300):
        actions = _sample(rng, info["action_mask"])
        mine, theirs = v.step(actions), s.step(actions)
        for label, a, b in zip(
            ["obs", "reward", "terminated", "truncated", "info"], mine, theirs, strict=True
        ):
            assert data_equivalence(a, b), f"{label} differs at step {t}"
        info = mine[4]
        ended += int(mine[2].sum())
    assert ended > 10


@pytest.mark.parametrize(("mode", "_gym"), MODES)
def test_no_mask_is_ever_all_zero_and_final_observations_are_kept(mode: str, _gym: object) -> None:
    v = vector_env(8, "snap", 3, seed=1, max_turns=CAP, autoreset_mode=mode)
    obs, info = v.reset()
    rng = np.random.default_rng(1)
    finals = 0
    for _ in range(300):
        assert obs["action_mask"].any(axis=1).all()
        assert (obs["action_mask"] == info["action_mask"]).all()
        obs, rewards, terminated, truncated, info = v.step(_sample(rng, obs["action_mask"]))
        assert not truncated.any()
        assert set(rewards[~terminated].tolist()) <= {0.0}
        if mode == "same-step" and terminated.any():
            assert (info["_final_obs"] == terminated).all()
            for i in np.flatnonzero(terminated):
                last = info["final_obs"][i]
                assert np.flatnonzero(last["action_mask"]).tolist() == [v.decline]
                finals += 1
            assert all(info["final_obs"][i] is None for i in np.flatnonzero(~terminated))
        if mode == "next-step":
            for i in np.flatnonzero(terminated):
                assert np.flatnonzero(obs["action_mask"][i]).tolist() == [v.decline]
    assert finals > 0 or mode == "next-step"


def test_a_reset_mask_deals_only_where_it_is_true() -> None:
    v = vector_env(4, "practice", 2, seed=3)
    obs, _ = v.reset()
    rounds = [c.round for c in v.cores]
    where = np.array([True, False, True, False])
    obs2, _ = v.reset(options={"reset_mask": where})
    assert [c.round is r for c, r in zip(v.cores, rounds, strict=True)] == [
        False,
        True,
        False,
        True,
    ]
    assert (obs2["observation"][~where] == obs["observation"][~where]).all()


def test_bots_are_copied_per_sub_environment() -> None:
    bot = MemoryBot()
    v = vector_env(3, "snap", 3, opponents=[bot, "random"])
    firsts = [c.opponents[1] for c in v.cores]
    assert all(o is not None for o in firsts)
    bots = [o.bot for o in firsts if o is not None]
    assert bots[0] is bot and bots[1] is not bot and bots[2] is not bots[1]


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="num_envs"):
        vector_env(0)
    with pytest.raises(ValueError, match="autoreset_mode"):
        vector_env(2, autoreset_mode="later")
    with pytest.raises(ValueError, match="autoreset_mode"):
        vector_env(2, autoreset_mode=AutoresetMode.DISABLED)
    v = vector_env(2, seed=0)
    with pytest.raises(RuntimeError, match="reset"):
        v.step(np.zeros(2, dtype=np.int64))
    v.reset()
    with pytest.raises(ValueError, match="expected 2 actions"):
        v.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="3 seeds were given for 2"):
        v.reset(seed=[1, 2, 3])
    with pytest.raises(ValueError, match="reset_mask"):
        v.reset(options={"reset_mask": np.array([1, 0])})
    assert isinstance(v, CambioVectorEnv)
