"""The single-agent Gymnasium environment: Gymnasium's own checker, many episodes per
table with random masked actions, opponents asked as the bot driver asks them, seeding,
the flat observation and bad options.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Sequence

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import cambio
from cambio import Action
from cambio.actions import ActionList
from cambio.bots import BotError, MemoryBot, RandomBot, play_round
from cambio.rl import CambioEnv, gym_env
from cambio.rl.single_env import ENV_ID

TABLES = [("practice", 2), ("snap", 3), ("cabo", 4), ("penalty", 3), ("competitive", 4)]
EPISODES = {"practice": 300, "snap": 100, "cabo": 100, "penalty": 100, "competitive": 60}
"""Episodes of random masked play per table (docs/rl.md quotes these)."""
CAP = 40


def _episode(e: CambioEnv, seed: int | None, rng: random.Random) -> tuple[float, int]:
    """One episode of random masked actions (snaps one time in ten, as a random player that
    snapped at every chance would lose nearly every round): its reward and the learner's
    decisions."""
    obs, info = e.reset(seed=seed)
    space = e.observation_space
    decisions = 0
    while True:
        assert space.contains(obs)
        mask = info["action_mask"]
        assert mask.dtype == np.int8 and mask.any()
        if e.flat:
            assert (obs[e.mask_offset :] == mask).all()
        else:
            assert (obs["action_mask"] == mask).all()
        legal = [int(a) for a in np.flatnonzero(mask)]
        assert legal == e.legal()
        snaps = e.round.space.snap_flags
        calm = [a for a in legal if a == e.decline or not snaps[a]]
        obs, reward, terminated, truncated, info = e.step(
            rng.choice(calm if calm and rng.random() < 0.9 else legal)
        )
        decisions += 1
        assert not truncated
        if terminated:
            assert space.contains(obs)
            assert [int(a) for a in np.flatnonzero(info["action_mask"])] == [e.decline]
            return float(reward), decisions
        assert reward == 0.0


@pytest.mark.parametrize(("name", "players"), TABLES)
def test_gymnasiums_checker_passes_and_many_episodes_play(name: str, players: int) -> None:
    for flat in (False, True):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", ".*Not able to test alternative render modes")
            check_env(gym_env(name, players, flat=flat, max_turns=CAP))
    e = gym_env(name, players, opponents="random", max_turns=CAP, reward="win")
    rng = random.Random(name)
    outcomes = set()
    for k in range(EPISODES[name]):
        reward, decisions = _episode(e, k, rng)
        res = e.round.result
        assert res is not None and decisions >= 1
        share = 1.0 / len(res.winners) if 0 in res.winners else 0.0
        assert reward == share
        outcomes.add(reward > 0)
    assert outcomes == {True, False}, "the learner should both win and lose some rounds"


def test_gymnasium_make_and_the_checker_with_render_modes() -> None:
    e = gymnasium.make(ENV_ID, variant="snap", players=3, max_turns=CAP, render_mode="ansi")
    check_env(e.unwrapped)
    e.reset(seed=2)
    text = e.render()
    assert isinstance(text, str) and "Discard:" in text


def test_the_score_reward_is_minus_the_learners_score() -> None:
    e = gym_env("penalty", 3, seat=1, reward="score", max_turns=CAP)
    rng = random.Random(4)
    for k in range(20):
        reward, _ = _episode(e, k, rng)
        res = e.round.result
        assert res is not None and reward == -float(res.scores[1])


def test_flat_observation_is_the_vector_then_the_mask() -> None:
    d = gym_env("snap", 3, seed=5, max_turns=CAP)
    f = gym_env("snap", 3, seed=5, max_turns=CAP, flat=True)
    obs_d, _ = d.reset()
    obs_f, _ = f.reset()
    assert obs_f.shape == (d.encoder.size + d.decline + 1,) and obs_f.dtype == np.float32
    rng = random.Random(5)
    for _ in range(200):
        assert (obs_f[: f.mask_offset] == obs_d["observation"]).all()
        assert (obs_f[f.mask_offset :] == obs_d["action_mask"]).all()
        a = rng.choice(d.legal())
        obs_d, _, done, _, _ = d.step(a)
        obs_f, _, done_f, _, _ = f.step(a)
        assert done == done_f
        if done:
            obs_d, _ = d.reset()
            obs_f, _ = f.reset()


def _trace(e: CambioEnv, seed: int | None) -> list[tuple[int, ...]]:
    """Five episodes of random masked play, the first reset with ``seed``: each round's
    action ids."""
    rng = random.Random(0)
    out = []
    for k in range(5):
        _episode(e, seed if k == 0 else None, rng)
        out.append(tuple(e.round._actions))
    return out


def test_a_seed_fixes_every_episode_that_follows() -> None:
    first = _trace(gym_env("snap", 3, opponents="memory", seed=11, max_turns=CAP), None)
    assert _trace(gym_env("snap", 3, opponents="memory", max_turns=CAP), 11) == first
    assert _trace(gym_env("snap", 3, opponents="memory", seed=12, max_turns=CAP), None) != first
    assert len(set(first)) == 5


class _Learner:
    """Drives the learner's seat with a bot, through the env's ids."""

    def __init__(self, bot: RandomBot | MemoryBot) -> None:
        self.bot = bot

    def choose(self, e: CambioEnv) -> int:
        rnd = e.round
        legal = e.legal()
        view = rnd.view(e.seat)
        space = rnd.space
        if e.decline in legal:
            snaps = legal[:-1]
            answer = self.bot.react(view, ActionList(snaps, space))
            return e.decline if answer is None else space.encode(answer)
        chosen: Action = self.bot.act(view, ActionList(legal, space))
        return space.encode(chosen)


@pytest.mark.parametrize(("name", "players"), [("practice", 2), ("snap", 3), ("cabo", 4)])
def test_opponents_are_asked_as_the_bot_driver_asks_them(name: str, players: int) -> None:
    """With a bot at the learner's seat too, every round equals play_round's with the
    same bots and seeds: the env's opponents decide, react and are seeded as the driver
    has them do."""
    for seat in range(players):
        opponents = [MemoryBot() if s % 2 else RandomBot(snap_rate=0.3) for s in range(1, players)]
        e = gym_env(name, players, opponents=opponents, seat=seat, seed=seat, max_turns=CAP)
        for _ in range(6):
            e.reset()
            mine = RandomBot(snap_rate=0.3)
            mine.reset(seat, e.rules, cambio.bots.derive_seed(e.core.deal_seed, seat))
            learner = _Learner(mine)
            done = False
            while not done:
                _, _, done, _, _ = e.step(learner.choose(e))
            bots: list[RandomBot | MemoryBot] = []
            others = iter(
                [MemoryBot() if s % 2 else RandomBot(snap_rate=0.3) for s in range(1, players)]
            )
            for s in range(players):
                bots.append(RandomBot(snap_rate=0.3) if s == seat else next(others))
            rnd = cambio.Round(e.rules, players, seed=e.core.deal_seed)
            play_round(rnd, bots, seed=e.core.deal_seed)
            assert rnd._actions == e.round._actions


def test_opponents_take_names_classes_bots_policies_and_lists() -> None:
    seen: list[tuple[int, Sequence[int]]] = []

    def first_legal(view: cambio.PlayerView, legal: list[int]) -> int:
        seen.append((view.player, legal))
        return legal[-1] if legal[-1] == decline else legal[0]

    e0 = gym_env("snap", 3, max_turns=CAP)
    decline = e0.decline
    for spec in ("random-nocall", MemoryBot, MemoryBot(), first_legal, ["memory", first_legal]):
        e = gym_env("snap", 3, opponents=spec, max_turns=CAP)
        _episode(e, 3, random.Random(3))
    assert {p for p, _ in seen} == {1, 2}
    assert any(decline in legal for _, legal in seen), "policies get reaction turns too"
    one = MemoryBot()
    e = gym_env("cabo", 4, opponents=one, max_turns=CAP)
    bots = [o.bot for o in e.core.opponents if o is not None]
    assert bots[0] is one and all(b is not one and isinstance(b, MemoryBot) for b in bots[1:])


def test_bad_options_and_bad_answers_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown bot"):
        gym_env(opponents="robot")
    with pytest.raises(TypeError, match="opponents"):
        gym_env(opponents=42)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not a bot class"):
        gym_env(opponents=int)
    with pytest.raises(ValueError, match="2 other seats but 1"):
        gym_env("snap", 3, opponents=["random"])
    with pytest.raises(ValueError, match="seat must be from 0 to 1"):
        gym_env(players=2, seat=2)
    with pytest.raises(ValueError, match="seats"):
        gym_env("micro", 3)
    with pytest.raises(ValueError, match="reward"):
        gym_env(reward="money")
    with pytest.raises(ValueError, match="illegal"):
        gym_env(illegal="ignore")
    with pytest.raises(RuntimeError, match="reset"):
        gym_env().step(0)
    e = gym_env(illegal="raise", seed=1)
    _, info = e.reset()
    bad = int(np.flatnonzero(info["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match=f"action {bad} is not legal for seat 0"):
        e.step(bad)
    e = gym_env(seed=1)
    _, info = e.reset()
    _, reward, terminated, _, info = e.step(bad)
    assert terminated and reward == -1.0 and e.legal() == []
    assert [int(a) for a in np.flatnonzero(info["action_mask"])] == [e.decline]
    with pytest.raises(RuntimeError, match="episode is over"):
        e.step(0)
    e = gym_env(opponents=lambda view, legal: -5, seed=1)
    with pytest.raises(BotError, match="policy at seat 1 answered -5"):
        for _ in range(50):
            _episode(e, None, random.Random(0))
