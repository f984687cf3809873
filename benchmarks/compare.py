"""The engine against the hand-written reference loop, in one process, interleaved.

Both play the same random practice rounds (same deals, same choices: a few seeds are
checked first). Each repetition times a batch of the reference loop, then a batch of the
engine; the best and the median of the repetitions are reported, with the ratio
engine/reference, and the cost of ``Round.copy()`` at the start of a round. The targets:

* decisions per second, engine/reference >= 1/10 (aim: 1/4);
* ``Round.copy()`` at the start of a practice round <= 20 microseconds.

This is a measurement, not a test: the exit code is 0 whatever the figures.
Run ``python benchmarks/compare.py --help``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import traceback
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bench_engine
import reference_loop

from cambio import RuleSet

RATIO_MIN = 1 / 10
RATIO_AIM = 1 / 4
COPY_MAX_US = 20.0


def same_games(seeds: range) -> list[int]:
    """Seeds on which the engine and the reference loop do not play the same game."""
    rules = RuleSet()
    bad = []
    for s in seeds:
        decisions, totals = reference_loop.play_round(s)
        n, rnd = bench_engine.play_practice_round(rules, s)
        result = rnd.result
        if n != decisions or result is None or tuple(result.totals) != totals:
            bad.append(s)
    return bad


def measure(args: argparse.Namespace) -> dict[str, Any]:
    check = range(args.seed, args.seed + args.check)
    mismatches = same_games(check)
    ref, eng, ref_cpu, eng_cpu = [], [], [], []
    for _ in range(max(1, args.repeat)):
        r = reference_loop.run(args.reference_rounds, args.seed)
        e = bench_engine.run_practice(args.engine_rounds, args.seed)
        ref.append(r["decisions_per_second"])
        eng.append(e["decisions_per_second"])
        ref_cpu.append(r["decisions_per_cpu_second"])
        eng_cpu.append(e["decisions_per_cpu_second"])
    copy = bench_engine.copy_cost(args.copy_samples, seed=args.seed)
    best_ratio = max(eng) / max(ref)
    median_ratio = statistics.median(eng) / statistics.median(ref)
    return {
        "benchmark": "compare",
        "repeat": len(ref),
        "same_games_checked": len(check),
        "same_games_mismatches": mismatches,
        "reference_decisions_per_second": max(ref),
        "reference_decisions_per_second_median": statistics.median(ref),
        "engine_decisions_per_second": max(eng),
        "engine_decisions_per_second_median": statistics.median(eng),
        "ratio": best_ratio,
        "ratio_median": median_ratio,
        "reference_decisions_per_cpu_second": max(ref_cpu),
        "engine_decisions_per_cpu_second": max(eng_cpu),
        "ratio_cpu": max(eng_cpu) / max(ref_cpu),
        "ratio_target_min": RATIO_MIN,
        "ratio_target_aim": RATIO_AIM,
        "ratio_min_holds": best_ratio >= RATIO_MIN,
        "ratio_aim_holds": best_ratio >= RATIO_AIM,
        "copy_start_us": copy["copy_start_us"],
        "copy_target_us": COPY_MAX_US,
        "copy_holds": copy["copy_start_us"] <= COPY_MAX_US,
    }


def _verdict(ok: bool) -> str:
    return "HOLDS" if ok else "MISSED"


def report(r: dict[str, Any]) -> str:
    games = (
        f"same games on {r['same_games_checked']} seeds: yes"
        if not r["same_games_mismatches"]
        else f"same games: NO, seeds {r['same_games_mismatches'][:10]} differ "
        "(the two loops no longer measure one workload)"
    )
    return "\n".join(
        [
            f"workload: random practice rounds, 3 players, never calling; {games}",
            f"reference loop: {r['reference_decisions_per_second']:>12,.0f} decisions/s best "
            f"({r['reference_decisions_per_second_median']:,.0f} median of {r['repeat']})",
            f"engine:         {r['engine_decisions_per_second']:>12,.0f} decisions/s best "
            f"({r['engine_decisions_per_second_median']:,.0f} median of {r['repeat']})",
            f"ratio engine/reference: {r['ratio']:.3f} = 1/{1 / r['ratio']:.1f} "
            f"(median {r['ratio_median']:.3f})",
            f"  in CPU time: reference {r['reference_decisions_per_cpu_second']:,.0f}, "
            f"engine {r['engine_decisions_per_cpu_second']:,.0f} decisions per CPU-second, "
            f"ratio {r['ratio_cpu']:.3f}",
            f"  target >= 1/10: {_verdict(r['ratio_min_holds'])}",
            f"  aim    >= 1/4:  {_verdict(r['ratio_aim_holds'])}",
            f"Round.copy() at the start of a round: {r['copy_start_us']:.2f} us",
            f"  target <= {r['copy_target_us']:.0f} us: {_verdict(r['copy_holds'])}",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5, help="interleaved repetitions")
    ap.add_argument(
        "--reference-rounds", type=int, default=2000, help="reference rounds per repetition"
    )
    ap.add_argument("--engine-rounds", type=int, default=300, help="engine rounds per repetition")
    ap.add_argument("--copy-samples", type=int, default=200, help="batches of 50 copies")
    ap.add_argument("--check", type=int, default=20, help="seeds checked for identical games")
    ap.add_argument("--seed", type=int, default=0, help="seed of the first round")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    try:
        r = measure(args)
    except Exception:  # a measurement, not a test: say what broke, exit 0 all the same
        traceback.print_exc()
        print("compare: the measurement failed (see above)")
        return 0
    print(json.dumps(r) if args.json else report(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
