"""The learning environments: steps per CPU second with random legal actions.

    python benchmarks/bench_rl.py [--seconds 3] [--repeat 3] [--num-envs 64]

For each table (practice 2 players, snap 3, cabo 4) it measures, in this process:

* ``single``: :func:`cambio.rl.gym_env` against the random bot, one learner step a
  call (the opponents' decisions happen inside the step, as in training);
* ``vector``: :func:`cambio.rl.vector_env` of ``--num-envs`` rounds, each step counted
  once per sub-environment;
* ``pettingzoo``: :func:`cambio.rl.env` (wrapped as PettingZoo's classic games are),
  every agent's decision a step, as ``agent_iter`` hands them out;
* ``engine``: :class:`cambio.rl.Turns` over a bare :class:`cambio.Round`, every
  decision a step and no observation (the floor the environments stand on).

The random legal action is drawn from the mask each environment hands out (the
sampler's cost counts). Each figure is the best and the worst of ``--repeat`` runs of
``--seconds`` of CPU time each (``time.process_time``), since a shared machine slows
some runs. ``--json`` prints one object.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable
from functools import partial

import numpy as np

import cambio
from cambio.rl import Turns, env, gym_env, vector_env

TABLES = (("practice", 2), ("snap", 3), ("cabo", 4))


def single_steps(name: str, players: int, seconds: float, seed: int) -> float:
    e = gym_env(name, players, opponents="random", seed=seed)
    rng = random.Random(seed)
    _, info = e.reset()
    steps = 0
    began = time.process_time()
    while time.process_time() - began < seconds:
        for _ in range(100):
            legal = np.flatnonzero(info["action_mask"])
            _, _, done, _, info = e.step(int(legal[rng.randrange(len(legal))]))
            if done:
                _, info = e.reset()
        steps += 100
    return steps / (time.process_time() - began)


def vector_steps(name: str, players: int, seconds: float, seed: int, num_envs: int) -> float:
    envs = vector_env(num_envs, name, players, opponents="random", seed=seed)
    rng = np.random.default_rng(seed)
    _, info = envs.reset()
    steps = 0
    began = time.process_time()
    while time.process_time() - began < seconds:
        mask = info["action_mask"]
        actions = (rng.random(mask.shape) * mask).argmax(axis=1)  # uniform over legal ids
        _, _, _, _, info = envs.step(actions)
        steps += num_envs
    return steps / (time.process_time() - began)


def pettingzoo_steps(name: str, players: int, seconds: float, seed: int) -> float:
    e = env(variant=name, players=players)
    rng = random.Random(seed)
    steps = 0
    began = time.process_time()
    episode = 0
    while time.process_time() - began < seconds:
        e.reset(seed=seed + episode)
        episode += 1
        for agent in e.agent_iter():
            obs, _, terminated, truncated, _ = e.last()
            if terminated or truncated:
                e.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            e.step(int(legal[rng.randrange(len(legal))]))
            steps += 1
            del agent
    return steps / (time.process_time() - began)


def engine_steps(name: str, players: int, seconds: float, seed: int) -> float:
    rules = cambio.load_ruleset(name)
    rng = random.Random(seed)
    steps = 0
    began = time.process_time()
    deal = seed
    while time.process_time() - began < seconds:
        rnd = cambio.Round(rules, players, seed=deal)
        turns = Turns(rnd, shuffle_seed=deal)
        deal += 1
        while turns.actor is not None:
            legal = turns.legal()
            turns.step(legal[rng.randrange(len(legal))])
            steps += 1
    return steps / (time.process_time() - began)


def spread(measure: Callable[[], float], repeat: int) -> dict[str, float]:
    runs = [measure() for _ in range(repeat)]
    return {"best": max(runs), "worst": min(runs)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds a run")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each figure")
    parser.add_argument("--num-envs", type=int, default=64, help="rounds of the vector env")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    out: dict[str, object] = {"seconds": args.seconds, "repeat": args.repeat}
    out["num_envs"] = args.num_envs
    tables: dict[str, dict[str, dict[str, float]]] = {}
    s, r, seed = args.seconds, args.repeat, args.seed
    for name, players in TABLES:
        tables[f"{name} {players}p"] = {
            "single": spread(partial(single_steps, name, players, s, seed), r),
            "vector": spread(partial(vector_steps, name, players, s, seed, args.num_envs), r),
            "pettingzoo": spread(partial(pettingzoo_steps, name, players, s, seed), r),
            "engine": spread(partial(engine_steps, name, players, s, seed), r),
        }
    out["steps_per_cpu_second"] = tables
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"steps per CPU second, best / worst of {args.repeat} runs of {args.seconds:g} s")
    print(f"{'table':<14}{'single':>18}{'vector':>18}{'pettingzoo':>18}{'engine':>18}")
    for table, row in tables.items():
        cells = "".join(
            f"{row[k]['best']:>10,.0f} /{row[k]['worst']:>6,.0f}"
            for k in ("single", "vector", "pettingzoo", "engine")
        )
        print(f"{table:<14}{cells}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
