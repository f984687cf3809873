"""The smallest embedding: load a table, play one round with random legal actions, print it.

    python examples/minimal_embed.py [--variant practice] [--players 3] [--seed 1]

Everything a program needs is on the Round: who must decide (``to_act``), what that
player may do (``legal_actions``), doing it (``apply``) and the end (``result``).
"""

from __future__ import annotations

import argparse
import random

import cambio


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Play one random round and print the result.")
    parser.add_argument("--variant", default="practice", help="a profile name or a .toml file")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    rules = cambio.load_ruleset(args.variant)  # a frozen, validated RuleSet
    rnd = cambio.Round(rules, players=args.players, seed=args.seed)  # same seed, same deal
    rng = random.Random(args.seed)

    while not rnd.is_over:
        player = rnd.to_act  # the player whose decision moves the round on
        legal = rnd.legal_actions(player)  # every legal action, fully specified
        rnd.apply(rng.choice(legal))  # returns the events the action caused

    result = rnd.result
    assert result is not None  # a finished round always has one
    print(f"{rules.name}: the round ended by {result.reason} after {rnd.turns_taken} turns")
    for seat, hand in enumerate(result.hands):
        cards = " ".join(f"{c.card}={c.value}" for c in hand)
        print(f"  P{seat}: {cards}  total {result.totals[seat]}, score {result.scores[seat]}")
    print("winners:", " ".join(f"P{w}" for w in result.winners))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
