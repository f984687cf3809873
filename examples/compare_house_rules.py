"""What does a house rule do to the game? Ask the bots: simulate both tables and compare.

    python examples/compare_house_rules.py [--games 400] [--seed 1] [--players 3] [--jobs 1]

The question here: on the practice table, red kings are worth -1. If they were worth
-2 (``values.red.K = -2``), would calling Cambio pay off more often? Both tables are
played by the same MemoryBots on the same deals (game k is dealt from a seed derived
from ``--seed`` and k, and both decks hold the same 52 cards), so the difference comes
from the rule, not from luck of the draw. The interval is a rough 95% one (two standard
errors of a proportion); more games make it narrower.
"""

from __future__ import annotations

import argparse
import math
from concurrent.futures import Executor, ProcessPoolExecutor

import cambio

# A house rule as a few lines of TOML that extend a bundled table.
RED_KINGS_MINUS_TWO = """
extends = "practice"
name = "red-kings-minus-two"
summary = "Practice with red kings worth -2"

[values.red]
K = -2
"""


def interval(successes: int, trials: int) -> str:
    """``54.0% ± 4.8`` for a proportion, with two standard errors."""
    if trials == 0:
        return "no calls"
    p = successes / trials
    half = 2 * math.sqrt(p * (1 - p) / trials)
    return f"{p:6.1%} ± {half:.1%}"


def compare(games: int, seed: int, players: int, executor: Executor | None) -> None:
    tables = [cambio.load_ruleset("practice"), cambio.ruleset_from_toml(RED_KINGS_MINUS_TWO)]
    bots = ["memory"] * players
    print(f"{games} rounds per table, {players} MemoryBots, seats rotated, seed {seed}\n")
    print(f"{'table':<22}{'called':>8}  {'caller won':>16}{'mean turns':>12}{'mean total':>12}")
    for rules in tables:
        report = cambio.simulate(rules, players, bots, games, seed, executor=executor, rotate=True)
        called = sum(seat.calls for seat in report.seats)
        won = sum(seat.calls_won for seat in report.seats)
        mean_total = sum(seat.mean_total for seat in report.seats) / players
        print(
            f"{rules.name:<22}{called:>8}  {interval(won, called):>16}"
            f"{report.mean_turns:>12.1f}{mean_total:>12.2f}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Compare two tables by simulation.")
    parser.add_argument("--games", type=int, default=400, help="rounds per table")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (same numbers)")
    args = parser.parse_args(argv)

    if args.jobs > 1:
        # Any concurrent.futures.Executor works; the report does not depend on it.
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            compare(args.games, args.seed, args.players, pool)
    else:
        compare(args.games, args.seed, args.players, None)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
