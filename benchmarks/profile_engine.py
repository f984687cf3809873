"""Where the engine spends its time in the practice benchmark (cProfile).

Profiles ``bench_engine.run_practice`` (random practice rounds, never calling) and prints
the hottest functions: cumulative share (the function and everything it calls) and own
share (the function's body alone), as percentages of the whole benchmark. cProfile adds
a cost per call, so functions called very often look heavier than they are; a sampling
profiler gives fairer shares: ``--collapsed FILE`` summarises, the same way, a raw
(collapsed stacks) file written by ``py-spy record -f raw`` (see benchmarks/README.md).

Run ``python benchmarks/profile_engine.py --help``.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import re
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bench_engine

from cambio import RuleSet


def _name(key: tuple[str, int, str]) -> str:
    filename, line, func = key
    if filename == "~":  # a built-in
        return func
    parts = filename.replace("\\", "/").split("/")
    short = "/".join(parts[-2:]) if "cambio" in parts else parts[-1]
    return f"{short}:{line}({func})"


def profile(rounds: int = 300, seed: int = 0) -> dict[str, Any]:
    bench_engine.play_practice_round(RuleSet(), seed)  # warm-up outside the profile
    prof = cProfile.Profile()
    prof.enable()
    bench_engine.run_practice(rounds, seed)
    prof.disable()
    stats = pstats.Stats(prof)
    raw = stats.stats  # type: ignore[attr-defined]
    total = max(ct for (_cc, _nc, _tt, ct, _callers) in raw.values())
    rows = [
        {
            "function": _name(key),
            "calls": nc,
            "cumulative_pct": 100 * ct / total,
            "own_pct": 100 * tt / total,
        }
        for key, (_cc, nc, tt, ct, _callers) in raw.items()
    ]
    return {"total_seconds": total, "functions": rows}


_LINE = re.compile(r":\d+\)$")  # py-spy frames end with (file:line); lines vary, drop them


def collapsed(path: str, root: str = "run_practice") -> dict[str, Any]:
    """Shares per function from collapsed stacks (``frame;frame;... count`` per line).

    Only the samples whose stack passes through ``root`` count; a function's cumulative
    share counts each sample once however often the function recurs in its stack.
    """
    cum: dict[str, int] = {}
    own: dict[str, int] = {}
    total = 0
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            if not stack or not count.isdigit():
                continue
            frames = [_LINE.sub(")", f) for f in stack.split(";")]
            heads = [f.split(" (", 1)[0] for f in frames]
            if root not in heads:
                continue
            frames = frames[heads.index(root) :]
            n = int(count)
            total += n
            for f in set(frames):
                cum[f] = cum.get(f, 0) + n
            own[frames[-1]] = own.get(frames[-1], 0) + n
    rows = [
        {
            "function": f,
            "calls": 0,
            "cumulative_pct": 100 * cum[f] / total,
            "own_pct": 100 * own.get(f, 0) / total,
        }
        for f in cum
    ]
    return {"total_samples": total, "functions": rows}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=300, help="practice rounds to profile")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--top", type=int, default=25, help="rows per table")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument(
        "--collapsed", metavar="FILE", help="summarise a py-spy raw file instead of profiling"
    )
    args = ap.parse_args(argv)
    out = collapsed(args.collapsed) if args.collapsed else profile(args.rounds, args.seed)
    rows = out["functions"]
    by_cum = sorted(rows, key=lambda r: -r["cumulative_pct"])[: args.top]
    by_own = sorted(rows, key=lambda r: -r["own_pct"])[: args.top]
    if args.json:
        print(json.dumps({"benchmark": "profile_engine", "cumulative": by_cum, "own": by_own}))
        return 0
    if args.collapsed:
        print(f"py-spy samples under run_practice in {args.collapsed}: {out['total_samples']}")
    else:
        print(f"cProfile of {args.rounds} random practice rounds ({out['total_seconds']:.2f} s)")
    for title, table in (("by cumulative share", by_cum), ("by own share", by_own)):
        print(f"\n{title}:")
        print(f"  {'cum %':>6} {'own %':>6} {'calls':>9}  function")
        for r in table:
            calls = str(r["calls"]) if r["calls"] else "-"
            print(f"  {r['cumulative_pct']:6.1f} {r['own_pct']:6.1f} {calls:>9}  {r['function']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
