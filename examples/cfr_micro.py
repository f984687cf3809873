"""Solve the micro table with CFR+ in OpenSpiel and watch the exploitability fall.

    python examples/cfr_micro.py [--iterations 30] [--every 5]

``import cambio.openspiel`` registers the game ``python_cambio``; the micro profile
(two players, one card each, five cards, three turns) is small enough for CFR to walk
its whole tree, deal included. NashConv is the sum over players of what a best
response would gain against the average policy: 0 at a Nash equilibrium. The uniform
random policy is printed first, as iteration 0.
"""

from __future__ import annotations

import argparse
import time

import pyspiel
from open_spiel.python import policy
from open_spiel.python.algorithms import cfr, exploitability

import cambio.openspiel  # noqa: F401 - registers python_cambio


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="CFR+ on the micro table.")
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--every", type=int, default=5, help="print NashConv this often")
    parser.add_argument("--variant", default="micro")
    args = parser.parse_args(argv)

    game = pyspiel.load_game(f"python_cambio(variant={args.variant},players=2)")
    start = time.perf_counter()
    uniform = exploitability.nash_conv(game, policy.UniformRandomPolicy(game))
    print(f"iteration {0:4d}  NashConv {uniform:.6f}  (uniform random policy)")
    solver = cfr.CFRPlusSolver(game)
    for i in range(1, args.iterations + 1):
        solver.evaluate_and_update_policy()
        if i % args.every == 0 or i == args.iterations:
            conv = exploitability.nash_conv(game, solver.average_policy())
            print(f"iteration {i:4d}  NashConv {conv:.6f}")
    print(f"{args.iterations} iterations of CFR+ in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
