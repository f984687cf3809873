"""Every speed figure of the engine, with its target, in one command and one process.

The figures that are ratios are measured in the same process against the reference loop
(``benchmarks/reference_loop.py``, a hand-written practice round that does the real work
the engine does), interleaved repetition by repetition, so a busy machine slows both
sides alike. The lean loop (``../shared/bench/lean_loop.py`` when it is there, or
``--lean PATH``: a hard-coded round with no events and no knowledge) is reported for the
record only.

    python benchmarks/speed.py            # the table of figures and targets (about a minute)
    python benchmarks/speed.py --json     # one JSON object
    python benchmarks/speed.py --quick    # tiny sizes: a smoke run (figures meaningless)

This is a measurement, not a test: the exit code is 0 whatever the figures.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bench_engine
import reference_loop

import cambio
from cambio import Round, RuleSet

HERE = Path(__file__).resolve().parent
LEAN = HERE.parent.parent / "shared" / "bench" / "lean_loop.py"

# (key, what, unit, target, "min" or "max")
TARGETS: list[tuple[str, str, str, float, str]] = [
    ("engine_ratio", "bare engine loop / reference loop", "ratio", 0.30, "min"),
    ("simulate_random_ratio", "simulate, 3 random no-call bots / reference", "ratio", 0.10, "min"),
    ("simulate_memory_ratio", "simulate, 3 memory bots / reference", "ratio", 0.04, "min"),
    ("snap_vs_practice", "simulate random, snap table / practice", "ratio", 0.6, "min"),
    ("penalty_vs_practice", "simulate random, penalty table / practice", "ratio", 0.6, "min"),
    ("deal_us", "Round() on a RuleSet used before", "us", 25.0, "max"),
    ("copy_us", "Round.copy() at the start of a round", "us", 3.0, "max"),
    ("to_json_ms", "to_json of a random practice round", "ms", 0.3, "max"),
    ("save_kb", "size of that save", "KB", 8.0, "max"),
    ("from_json_ms", "from_json of that save (checked)", "ms", 1.0, "max"),
]


def _cpu_rate(fn: Any) -> tuple[int, float]:
    """Run ``fn()`` (which returns a number of decisions); (decisions, CPU seconds)."""
    t = time.process_time()
    n = fn()
    return n, max(time.process_time() - t, 1e-9)


def _simulate(variant: str, bots: list[str], games: int) -> int:
    report = cambio.simulate(variant, len(bots), bots, games, seed=1)
    return report.decisions


def _median_us(fn: Any, samples: int, batch: int) -> float:
    per = []
    for _ in range(samples):
        t = time.process_time()
        for _ in range(batch):
            fn()
        per.append((time.process_time() - t) / batch * 1e6)
    return statistics.median(per)


def _lean(path: Path | None, rounds: int) -> float | None:
    """Decisions per CPU-second of the lean loop, or None when it is not available."""
    if path is None or not path.is_file():
        return None
    spec = importlib.util.spec_from_file_location("lean_loop", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rng = random.Random(0)
    t = time.process_time()
    actions = 0
    for _ in range(rounds):
        played = module.play(rng)
        actions += played if isinstance(played, int) else played[0]
    return actions / max(time.process_time() - t, 1e-9)


def measure(args: argparse.Namespace) -> dict[str, Any]:
    q = args.quick
    reps = 1 if q else args.repeat
    ref_rounds, eng_rounds = (20, 10) if q else (1500, 300)
    games = 4 if q else args.games
    samples: dict[str, list[float]] = {}

    def note(key: str, value: float) -> None:
        samples.setdefault(key, []).append(value)

    for _ in range(reps):
        ref = reference_loop.run(ref_rounds, 0)["decisions_per_cpu_second"]
        note("reference_dps", ref)
        eng = bench_engine.run_practice(eng_rounds, 0)["decisions_per_cpu_second"]
        note("engine_dps", eng)
        note("engine_ratio", eng / ref)
        n, cpu = _cpu_rate(lambda: _simulate("practice", ["random-nocall"] * 3, games))
        rates = {"nocall": n / cpu}
        # the snap and penalty tables recycle their stock: bots that never call would
        # never end a round, so these three are played by random bots that may call
        for variant in ("practice", "snap", "penalty"):
            n, cpu = _cpu_rate(lambda v=variant: _simulate(v, ["random"] * 3, games))
            rates[variant] = n / cpu
        n, cpu = _cpu_rate(lambda: _simulate("practice", ["memory"] * 3, max(2, games // 3)))
        note("simulate_random_dps", rates["nocall"])
        note("simulate_memory_dps", n / cpu)
        note("simulate_random_ratio", rates["nocall"] / ref)
        note("simulate_memory_ratio", n / cpu / ref)
        note("snap_vs_practice", rates["snap"] / rates["practice"])
        note("penalty_vs_practice", rates["penalty"] / rates["practice"])

    rules = RuleSet()
    Round(rules, 3, seed=0)
    seeds = iter(range(10**9))
    note("deal_us", _median_us(lambda: Round(rules, 3, seed=next(seeds)), 15 if not q else 2, 200))
    start = Round(rules, 3, seed=0)
    note("copy_us", _median_us(start.copy, 15 if not q else 2, 2000))
    played = bench_engine.play_practice_round(rules, 5)[1]
    text = played.to_json()
    note("save_kb", len(text.encode()) / 1000)
    note("to_json_ms", _median_us(played.to_json, 9 if not q else 2, 20) / 1000)
    note("from_json_ms", _median_us(lambda: Round.from_json(text), 9 if not q else 2, 10) / 1000)

    out: dict[str, Any] = {
        k: (max(v) if k.endswith(("ratio", "dps", "practice")) else min(v))
        for k, v in samples.items()
    }
    lean = _lean(args.lean, 20 if q else 1500)
    if lean is not None:
        out["lean_dps"] = lean
        out["reference_vs_lean"] = out["reference_dps"] / lean
    out["targets"] = {
        key: {"target": target, "kind": kind, "met": _met(out[key], target, kind)}
        for key, _, _, target, kind in TARGETS
    }
    out["repeat"] = reps
    out["python"] = sys.version.split()[0]
    return out


def _met(value: float, target: float, kind: str) -> bool:
    return value >= target if kind == "min" else value <= target


def report(out: dict[str, Any]) -> str:
    lines = [
        f"reference loop: {out['reference_dps']:,.0f} decisions per CPU-second",
        f"engine loop:    {out['engine_dps']:,.0f}   simulate random: "
        f"{out['simulate_random_dps']:,.0f}   simulate memory: {out['simulate_memory_dps']:,.0f}",
    ]
    if "lean_dps" in out:
        lines.append(
            f"lean loop:      {out['lean_dps']:,.0f} (the reference loop is "
            f"{out['reference_vs_lean']:.2f} of it; for the record)"
        )
    lines.append("")
    lines.append(f"{'figure':44} {'measured':>10} {'target':>10}  ")
    for key, what, unit, target, kind in TARGETS:
        sign = ">=" if kind == "min" else "<="
        ok = "ok" if out["targets"][key]["met"] else "MISSED"
        lines.append(f"{what:44} {out[key]:10.3f} {sign} {target:<7g} {unit:5} {ok}")
    return "\n".join(lines)


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3, help="repetitions of the ratios (best kept)")
    ap.add_argument("--games", type=int, default=150, help="rounds per simulate figure")
    ap.add_argument(
        "--lean",
        type=Path,
        default=LEAN if LEAN.is_file() else None,
        help="path of lean_loop.py (default: ../shared/bench/lean_loop.py if present)",
    )
    ap.add_argument("--quick", action="store_true", help="tiny sizes (a smoke run)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    out = measure(args)
    print(json.dumps(out, indent=2) if args.json else report(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
