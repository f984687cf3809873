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

Both builds side by side (the pure-Python one and the compiled one, ``CAMBIO_COMPILE=1
pip install .``): run it with one build's interpreter and name the other's with
``--other``; the two are measured in turn, repetition by repetition, and the table gives
each figure for both and the compiled build's speed-up on the bare engine loop and on
``simulate`` with random bots (target: 2 times or more)::

    .venv/bin/python benchmarks/speed.py --other .venv-compiled/bin/python

This is a measurement, not a test: the exit code is 0 whatever the figures.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import statistics
import subprocess
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

    # warm up: the first simulate imports the bots and reads the tables, which no
    # repetition should pay (a one-repetition run, as --other makes, would)
    reference_loop.run(5, 0)
    bench_engine.run_practice(3, 0)
    for variant, bot in (("practice", "random-nocall"), ("practice", "memory"), ("snap", "random")):
        _simulate(variant, [bot] * 3, 1)

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
    out["compiled"] = bool(getattr(cambio, "compiled", False))
    out["cambio"] = str(Path(cambio.__file__).parent)
    return out


# (key, what, target): the compiled build's figure over the pure build's
SPEEDUPS: list[tuple[str, str, float]] = [
    ("engine_dps", "bare engine loop, compiled / pure", 2.0),
    ("simulate_random_dps", "simulate, 3 random no-call bots, compiled / pure", 2.0),
    ("simulate_memory_dps", "simulate, 3 memory bots, compiled / pure", 0.0),
]


def _best(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The best of several one-repetition runs, by the rule :func:`measure` uses."""
    out = dict(runs[-1])
    for key, value in runs[0].items():
        if isinstance(value, float) and not isinstance(value, bool):
            values = [r[key] for r in runs]
            out[key] = max(values) if key.endswith(("ratio", "dps", "practice")) else min(values)
    out["targets"] = {
        key: {"target": target, "kind": kind, "met": _met(out[key], target, kind)}
        for key, _, _, target, kind in TARGETS
    }
    out["repeat"] = len(runs)
    return out


def _other(python: str, args: argparse.Namespace) -> dict[str, Any]:
    """One repetition measured by another interpreter (the other build) in a subprocess."""
    cmd = [python, str(Path(__file__).resolve()), "--json", "--repeat", "1"]
    cmd += ["--games", str(args.games)] + (["--quick"] if args.quick else [])
    # the other interpreter imports its own installed cambio: no PYTHONPATH=src
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def compare(args: argparse.Namespace) -> dict[str, Any]:
    """Both builds, measured in turn repetition by repetition (a busy machine slows both)."""
    mine: list[dict[str, Any]] = []
    theirs: list[dict[str, Any]] = []
    one = argparse.Namespace(**{**vars(args), "repeat": 1})
    for _ in range(1 if args.quick else args.repeat):
        mine.append(measure(one))
        theirs.append(_other(args.other, args))
    a, b = _best(mine), _best(theirs)
    if a["compiled"] == b["compiled"]:
        raise SystemExit(
            f"both interpreters run the same build (compiled={a['compiled']}): "
            "--other must name the other build's interpreter"
        )
    pure, compiled = (b, a) if a["compiled"] else (a, b)
    speedups = {}
    for key, _, target in SPEEDUPS:
        value = compiled[key] / pure[key]
        speedups[key] = {"speedup": value, "target": target, "met": value >= target}
    return {"pure": pure, "compiled": compiled, "speedups": speedups}


def compare_report(out: dict[str, Any]) -> str:
    pure, compiled = out["pure"], out["compiled"]
    lines = [
        f"pure build:     {pure['cambio']}",
        f"compiled build: {compiled['cambio']}",
        "",
        f"{'figure':44} {'pure':>10} {'compiled':>10} {'target':>10}",
    ]
    rows = [("reference_dps", "reference loop (pure Python in both)", "dps", 0.0, "")]
    rows += [("engine_dps", "bare engine loop", "dps", 0.0, "")]
    rows += [("simulate_random_dps", "simulate, 3 random no-call bots", "dps", 0.0, "")]
    rows += [("simulate_memory_dps", "simulate, 3 memory bots", "dps", 0.0, "")]
    for key, what, unit, target, kind in rows + TARGETS:
        sign = "" if not kind else (">=" if kind == "min" else "<=")
        aim = f"{sign} {target:<7g}" if kind else ""
        p, c = pure[key], compiled[key]
        fmt = "10,.0f" if unit == "dps" else "10.3f"
        lines.append(f"{what:44} {p:{fmt}} {c:{fmt}} {aim:>10} {unit}")
    lines.append("")
    for key, what, target in SPEEDUPS:
        s = out["speedups"][key]
        verdict = "" if not target else ("ok" if s["met"] else "MISSED")
        aim = f">= {target:g}" if target else "(for the record)"
        lines.append(f"{what:52} {s['speedup']:6.2f}x  {aim} {verdict}")
    return "\n".join(lines)


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
    ap.add_argument(
        "--other",
        metavar="PYTHON",
        help="the interpreter of the other build (pure or compiled): report both side by side",
    )
    return ap


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.other:
        both = compare(args)
        print(json.dumps(both, indent=2) if args.json else compare_report(both))
        return 0
    out = measure(args)
    print(json.dumps(out, indent=2) if args.json else report(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
