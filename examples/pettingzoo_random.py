"""Random masked agents in the PettingZoo environment: the standard AEC loop.

    python examples/pettingzoo_random.py [--variant snap] [--players 3] [--episodes 3]

Each agent picks uniformly among the actions its ``action_mask`` allows. On tables with
snapping, reaction windows show up as turns whose mask holds snaps and the extra
"decline" action (id ``space.size``).
"""

from __future__ import annotations

import argparse

import numpy as np

from cambio.rl import env


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Random masked agents in cambio's AEC env.")
    parser.add_argument("--variant", default="snap")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--episodes", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--reward", default="win", choices=["win", "score"])
    parser.add_argument("--render", action="store_true", help="print the board at each step")
    args = parser.parse_args(argv)

    e = env(
        variant=args.variant,
        players=args.players,
        reward=args.reward,
        render_mode="human" if args.render else None,
    )
    rng = np.random.default_rng(args.seed)
    for episode in range(args.episodes):
        e.reset(seed=args.seed + episode)
        returns = dict.fromkeys(e.possible_agents, 0.0)
        steps = declines = 0
        for agent in e.agent_iter():
            observation, reward, termination, truncation, _info = e.last()
            returns[agent] += reward
            if termination or truncation:
                action = None
            else:
                mask = observation["action_mask"]
                action = int(rng.choice(np.flatnonzero(mask)))
                declines += action == len(mask) - 1
                steps += 1
            e.step(action)
        shown = ", ".join(f"{a} {r:+.2f}" for a, r in returns.items())
        print(f"episode {episode}: {steps} steps ({declines} declined snaps); returns {shown}")
    e.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
