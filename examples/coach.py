"""A coach after the round: play a round against a bot, then see where it was lost.

    python examples/coach.py [--variant practice] [--seed 1] [--samples 32] [--top 3]

Seat 0 plays the memory bot's rules, seat 1 is the search bot. After the round,
``cambio.review`` replays it and analyses each of seat 0's decisions from seat 0's view
at that moment; the costliest are printed, then the analysis of the first of them in
full (every action with its win share and score).
"""

from __future__ import annotations

import argparse

import cambio
from cambio.bots import MemoryBot, SearchBot, SearchBotConfig, play_round


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Review seat 0's decisions in one round.")
    parser.add_argument("--variant", default="practice", help="a profile name or a .toml file")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--samples", type=int, default=32, help="drawn rounds per decision")
    parser.add_argument("--top", type=int, default=3, help="how many decisions to list")
    args = parser.parse_args(argv)

    rnd = cambio.Round(args.variant, players=2, seed=args.seed)
    bots = [MemoryBot(), SearchBot(SearchBotConfig(playouts=48))]
    played = play_round(rnd, bots, seed=args.seed)
    outcome = "won" if 0 in played.result.winners else "lost"
    print(f"{rnd.rules.name}: seat 0 {outcome} ({played.result.totals[0]} points)")

    report = cambio.review(rnd, 0, samples=args.samples, seed=args.seed)
    print(f"{len(report.decisions)} decisions reviewed; the costliest:")
    for d in report.decisions[: args.top]:
        better = "" if d.taken is d.best else f", best {d.best.label}"
        print(
            f"  turn {d.turn} ({d.phase}): took {d.taken.label}{better}: "
            f"{d.win_cost:.0%} +/- {d.win_cost_error:.0%} of the win, {d.score_cost:+.1f} points"
        )
    if report.decisions:
        first = report.decisions[0].analysis
        print(f"every action of that decision ({first.samples} drawn rounds each):")
        for e in first.estimates:
            print(
                f"  {e.label:18} win {e.win:6.1%} [{e.win_low:.0%}, {e.win_high:.0%}]"
                f"  score {e.score:6.2f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
