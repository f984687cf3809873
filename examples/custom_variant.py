"""Your own table: load a house-rule TOML, see how it differs from its parent, let bots play it.

    python examples/custom_variant.py [examples/house_rule.toml] [--games 200] [--seed 2]

1. ``cambio.load_ruleset(path)`` reads the file, merges it over the profile it
   ``extends`` and checks the result; every mistake comes back at once in a
   ``RuleSetError``, each with its file and key path.
2. ``cambio.render.diff_rows(parent, rules)`` lists every rule the two tables play
   differently, in words.
3. ``cambio.bots.play_round`` lets bots play one round; ``cambio.simulate`` plays many.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cambio
from cambio.bots import MemoryBot, play_round
from cambio.render import diff_rows

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, installed with cambio-rules
    import tomli as tomllib

HERE = Path(__file__).resolve().parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Validate, compare and play a house rule.")
    parser.add_argument("table", nargs="?", default=HERE / "house_rule.toml", type=Path)
    parser.add_argument("--games", type=int, default=200, help="rounds for the simulation")
    parser.add_argument("--seed", type=int, default=2)
    args = parser.parse_args(argv)

    # 1. Load and validate. A RuleSetError lists every problem, not only the first.
    try:
        rules = cambio.load_ruleset(args.table)
    except cambio.RuleSetError as error:
        print(f"{args.table} is not a valid table:", file=sys.stderr)
        for problem in error.problems:
            print(f"  {problem.path or '(file)'}: {problem.message}", file=sys.stderr)
        return 1
    print(f"{rules.name}: {rules.summary}")

    # 2. Compare with the parent. A RuleSet does not remember where it came from, so read
    #    the `extends` key from the file itself (a bundled name here).
    parent_name = tomllib.loads(args.table.read_text(encoding="utf-8")).get("extends", "practice")
    parent = cambio.load_ruleset(parent_name)
    print(f"\nWhat changes from {parent.name}:")
    for row in diff_rows(parent, rules):
        print(f"  {row.label:<26} {row.a}  ->  {row.b}")

    # 3a. One round between fair bots; each bot sees only its own PlayerView.
    players = rules.players.default
    rnd = cambio.Round(rules, players=players, seed=args.seed)
    played = play_round(rnd, [MemoryBot() for _ in range(players)], seed=args.seed)
    result = played.result
    print(f"\nOne round: ended by {result.reason} after {played.turns} turns;", end=" ")
    print(f"totals {list(result.totals)}, winners {[f'P{w}' for w in result.winners]}")

    # 3b. Many rounds: the same seed gives the same report on any machine. With rotate,
    #     bot i starts at seat i in game 0, at seat i + 1 in game 1, and so on.
    bots = ["memory"] * players
    report = cambio.simulate(rules, players, bots, args.games, args.seed, rotate=True)
    print(f"\n{report.games} rounds between {players} MemoryBots (seats rotated):")
    for seat in report.seats:
        print(
            f"  bot {seat.seat}: win rate {seat.win_rate:6.1%}, mean score {seat.mean_score:5.1f}"
        )
    rate = report.caller_success_rate
    print("  the caller won", "no round" if rate is None else f"{rate:.1%} of the called rounds")
    print(f"  rounds ended by: {report.endings}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
