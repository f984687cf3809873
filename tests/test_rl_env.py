"""The PettingZoo environment: PettingZoo's own API and seed tests on every profile,
reaction turns, rewards, match mode and rendering.

The turn cap (``max_turns``) keeps each episode short: a round that reaches it is
scored as it stands, so the tests see whole episodes quickly.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from pettingzoo import AECEnv
from pettingzoo.test import api_test, seed_test
from pettingzoo.test.api_test import play_test

import cambio
from cambio import ActionKind
from cambio.rl import env, raw_env
from test_club_rules import EVERY_NEW

PROFILES = cambio.available_variants()
CAP = 12
ROOT = Path(__file__).resolve().parents[1]
OWN_TABLES = {
    "club_table.toml": cambio.load_ruleset(ROOT / "examples" / "club_table.toml"),
    **{f"every-new-{k}": v for k, v in EVERY_NEW.items()},
}
"""A user's own tables: the club example and every newer axis at once."""


def _play(e: raw_env, seed: int) -> dict[str, float]:
    """Play one episode with random masked actions; return the rewards summed."""
    e.reset(seed=seed)
    rng = random.Random(seed)
    total = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter(100_000):
        obs, reward, terminated, truncated, _ = e.last()
        total[agent] += reward
        if terminated or truncated:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal), f"{agent} must act but has nothing legal"
        e.step(int(rng.choice(legal)))
    return total


# api_test suggests flat observations; a dict of observation and action_mask is the
# convention of PettingZoo's own classic card games, which draw the same two warnings.
QUIET = (
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably:UserWarning"),
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array:UserWarning"),
)


EPISODES = 40
"""Episodes of PettingZoo's play test per table (its api_test plays one)."""
SEEDS = 10
"""Seeds of the determinism check per table (its seed_test tries one)."""


def _many_episodes(make: Callable[[], AECEnv], episodes: int = EPISODES) -> None:
    """PettingZoo's api_test once, then its play test (rewards accumulated as ``last``
    reports them, agents removed as they finish, observations in their space) over
    ``episodes`` whole episodes, each dealt with a new seed."""
    e = make()
    api_test(e, num_cycles=1000)
    e.reset(seed=0)
    obs0 = e.observe(e.agents[0])
    if isinstance(obs0, dict):
        obs0 = obs0["observation"]  # as api_test hands it to its play test
    for k in range(episodes):
        e.reset(seed=k)
        play_test(_Reseeded(e, k), obs0, 100_000)


class _Reseeded:
    """``e`` with ``reset()`` dealing with ``seed`` (play_test resets without one)."""

    def __init__(self, e: AECEnv, seed: int) -> None:
        self._e = e
        self._seed = seed

    def reset(self, seed: int | None = None, options: dict[str, object] | None = None) -> None:
        self._e.reset(seed=self._seed if seed is None else seed, options=options)

    def __getattr__(self, name: str) -> object:
        return getattr(self._e, name)


def _deterministic_over_seeds(make: Callable[[], AECEnv], seeds: int = SEEDS) -> None:
    """seed_test's check (the same seed gives the same episode, actions sampled from
    the mask by seeded spaces) over ``seeds`` seeds: both envs played to the end."""
    seed_test(make, num_cycles=100_000)
    for seed in range(seeds):
        runs = []
        for _ in range(2):
            e = make()
            e.reset(seed=seed)
            rng = np.random.default_rng(seed)
            trace: list[object] = []
            for agent in e.agent_iter():
                obs, reward, terminated, truncated, info = e.last()
                mask = obs["action_mask"] if isinstance(obs, dict) else info["action_mask"]
                flat = obs if not isinstance(obs, dict) else obs["observation"]
                trace.append((agent, float(reward), bytes(np.asarray(flat).tobytes())))
                if terminated or truncated:
                    e.step(None)
                else:
                    e.step(int(rng.choice(np.flatnonzero(mask))))
            runs.append(trace)
        assert runs[0] == runs[1]
        assert len(runs[0]) > 2


@pytest.mark.parametrize("name", PROFILES)
@QUIET[0]
@QUIET[1]
def test_pettingzoo_api_and_seed_tests(name: str) -> None:
    _many_episodes(lambda: env(variant=name, max_turns=CAP))
    _deterministic_over_seeds(lambda: env(variant=name, max_turns=CAP))


@pytest.mark.parametrize(("name", "players"), [("practice", 2), ("snap", 3), ("cabo", 4)])
def test_the_flat_observation_passes_the_same_tests(name: str, players: int) -> None:
    _many_episodes(lambda: env(variant=name, players=players, max_turns=CAP, flat=True))
    _deterministic_over_seeds(lambda: env(variant=name, players=players, max_turns=CAP, flat=True))
    d = raw_env(variant=name, players=players, max_turns=CAP)
    f = raw_env(variant=name, players=players, max_turns=CAP, flat=True)
    assert f.observation_space("player_0").shape == (f.mask_offset + f.decline + 1,)
    for seed in range(5):
        d.reset(seed=seed)
        f.reset(seed=seed)
        rng = random.Random(seed)
        while not d.game.is_over:
            agent = d.agent_selection
            assert f.agent_selection == agent
            for a in d.agents:
                od, of = d.observe(a), f.observe(a)
                assert (of[: f.mask_offset] == od["observation"]).all()
                assert (of[f.mask_offset :] == od["action_mask"]).all()
            mask = f.infos[agent]["action_mask"]
            assert (mask == d.observe(agent)["action_mask"]).all()
            choice = rng.choice([int(x) for x in np.flatnonzero(mask)])
            d.step(choice)
            f.step(choice)


@pytest.mark.parametrize("name", sorted(OWN_TABLES))
@QUIET[0]
@QUIET[1]
def test_api_and_seed_tests_on_a_users_own_tables(name: str) -> None:
    rules = OWN_TABLES[name]
    _many_episodes(lambda: env(variant=rules, max_turns=CAP))
    _deterministic_over_seeds(lambda: env(variant=rules, max_turns=CAP))
    e = raw_env(variant=rules, players=3, max_turns=CAP)
    for seed in range(3):
        assert sum(_play(e, seed).values()) == pytest.approx(1.0)


@pytest.mark.parametrize("name", ["elimination", "teams", "practice"])
@QUIET[0]
@QUIET[1]
def test_match_mode_passes_the_api_test_and_plays_the_whole_match(name: str) -> None:
    _many_episodes(lambda: env(variant=name, match=True, max_turns=CAP), 10)
    e = raw_env(variant=name, match=True, max_turns=CAP)
    total = _play(e, 3)
    result = e.game.result
    assert result is not None and isinstance(e.game, cambio.Match)
    assert sum(total.values()) == pytest.approx(1.0)
    assert {a for a, r in total.items() if r > 0} == {f"player_{s}" for s in result.winners}


def test_rewards_win_share_and_minus_the_score() -> None:
    for seed in range(5):
        e = raw_env(variant="penalty", players=3, max_turns=CAP)
        total = _play(e, seed)
        res = e.game.result
        assert res is not None and not isinstance(res, cambio.MatchResult)
        assert sum(total.values()) == pytest.approx(1.0)
        assert total == {
            f"player_{p}": (1.0 / len(res.winners) if p in res.winners else 0.0) for p in range(3)
        }
        e = raw_env(variant="penalty", players=3, max_turns=CAP, reward="score")
        total = _play(e, seed)
        res = e.game.result
        assert res is not None and not isinstance(res, cambio.MatchResult)
        assert total == {f"player_{p}": -float(s) for p, s in enumerate(res.scores)}


def test_reaction_windows_are_turns_of_the_players_who_may_snap() -> None:
    """On the snap table, a discard gives each reactor a turn: its snaps or decline."""
    e = raw_env(variant="snap", players=3, max_turns=CAP)
    seen_reaction = 0
    for seed in range(10):
        e.reset(seed=seed)
        rng = random.Random(seed)
        while not e.game.is_over:
            game = e.game
            assert isinstance(game, cambio.Round)
            agent = e.agent_selection
            seat = e.possible_agents.index(agent)
            mask = e.observe(agent)["action_mask"]
            legal = [int(a) for a in np.flatnonzero(mask)]
            reactors = [p for p in game.reactors if p in range(3)]
            if mask[e.decline]:
                seen_reaction += 1
                # a reaction turn: only snaps and decline, for the first reactor asked
                assert seat in reactors
                kinds = {game.space.decode(a).kind for a in legal if a != e.decline}
                assert kinds <= {ActionKind.SNAP}
                others = [a for a in e.possible_agents if a != agent]
                assert all(not e.observe(a)["action_mask"].any() for a in others)
                choice = e.decline if rng.random() < 0.7 else rng.choice(legal)
            else:
                assert legal == game.legal_action_ids(seat)
                choice = rng.choice(legal)
            e.step(choice)
    assert seen_reaction > 10


def test_render_modes_use_the_board_text() -> None:
    e = raw_env(variant="practice", players=2, render_mode="ansi")
    e.reset(seed=0)
    text = e.render()
    assert isinstance(text, str) and "Discard:" in text and "player_0 to act" in text
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="rgb_array")


def test_bad_options_are_refused() -> None:
    with pytest.raises(ValueError, match="reward"):
        raw_env(reward="money")
    with pytest.raises(ValueError, match="max_turns"):
        raw_env(max_turns=0)
    with pytest.raises(ValueError, match="seats"):
        raw_env(variant="micro", players=3)
    with pytest.raises(cambio.RuleSetError):
        raw_env(variant="no-such-table")


def test_the_observation_space_is_one_object_and_holds_every_observation() -> None:
    e = raw_env(variant="competitive", players=4, max_turns=CAP)
    space = e.observation_space("player_2")
    assert space is e.observation_space("player_2")
    e.reset(seed=9)
    for _ in e.agent_iter(400):
        for agent in e.agents:
            assert space.contains(e.observe(agent))
        obs, _, terminated, truncated, _ = e.last()
        if terminated or truncated:
            e.step(None)
        else:
            e.step(int(np.flatnonzero(obs["action_mask"])[0]))


@pytest.mark.parametrize(("name", "players"), [("practice", 2), ("snap", 3)])
def test_supersuits_observation_wrappers_take_the_flat_observation(name: str, players: int) -> None:
    """SuperSuit's observation wrappers want a Box: they refuse the Dict observation and
    take the flat one, which then passes api_test and plays whole episodes."""
    supersuit = pytest.importorskip("supersuit")
    with pytest.raises(AttributeError):
        supersuit.normalize_obs_v0(env(variant=name, players=players, max_turns=CAP))

    def wrapped() -> AECEnv:
        e = env(variant=name, players=players, max_turns=CAP, flat=True)
        e = supersuit.dtype_v0(e, np.float32)
        return supersuit.normalize_obs_v0(e, env_min=0.0, env_max=1.0)

    _many_episodes(wrapped, 10)
    e = wrapped()
    e.reset(seed=1)
    obs = e.observe(e.agent_selection)
    assert obs.shape == e.observation_space(e.agent_selection).shape
    assert obs.min() >= 0.0 and obs.max() <= 1.0
