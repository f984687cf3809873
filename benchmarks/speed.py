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

Against an older revision of the engine (the memory-bot target of issue 17 is twice the
decisions per second of the code the issue was filed against, commit ``c37d725``):
``--baseline REV`` takes that revision's ``src`` (and the ``variants`` its tables load
from) with ``git archive`` from the repository this script lives in, runs it in a
subprocess with the same interpreter (its own ``PYTHONPATH``), and measures its
``simulate`` with three memory bots, the same call, one repetition in turn with this
tree's, so a busy machine slows both alike::

    PYTHONPATH=src python benchmarks/speed.py --baseline c37d725

This is a measurement, not a test: the exit code is 0 whatever the figures.
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import json
import os
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
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


# a target that holds in another form too, printed after its line
TARGET_NOTES = {
    "simulate_memory_ratio": "or >= 2x the issue's checkout (c37d725) with --baseline",
}

# the memory-bot target's other form: this tree's simulate figure over REV's
BASELINE_TARGET = 2.0
BASELINE_KEY = "simulate_memory_vs_baseline"

# what the baseline's subprocess runs: the memory-bot simulate call of _simulate, timed
# by CPU time, once per line read on stdin (so the parent interleaves the two sides)
_BASELINE_WORKER = """
import json, sys, time
import cambio

def run(games):
    t = time.process_time()
    report = cambio.simulate("practice", 3, ["memory"] * 3, games, seed=1)
    return report.decisions, max(time.process_time() - t, 1e-9)

run(1)  # warm up: imports the bots and reads the table
print(json.dumps({"cambio": cambio.__file__}), flush=True)
for line in sys.stdin:
    n, cpu = run(int(line))
    print(json.dumps({"decisions": n, "cpu": cpu}), flush=True)
"""


class Baseline:
    """An older revision's ``src`` and ``variants`` (``git archive REV src variants``: a
    source checkout finds its tables beside ``src``) in a temporary directory, with a
    subprocess of the same interpreter that imports it and measures its memory-bot
    ``simulate`` whenever asked (:meth:`measure`)."""

    def __init__(self, rev: str) -> None:
        self.rev = rev
        self._dir = tempfile.TemporaryDirectory(prefix="cambio-baseline-")
        root = Path(self._dir.name)
        top = _git("rev-parse", "--show-toplevel").strip()
        archive = subprocess.run(
            ["git", "-C", top, "archive", "--format=tar", rev, "src", "variants"],
            capture_output=True,
            check=False,
        )
        if archive.returncode != 0:
            self.close()
            raise SystemExit(
                f"--baseline: git cannot archive {rev!r}: "
                f"{archive.stderr.decode(errors='replace').strip()}"
            )
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(root, filter="data")
        src = root / "src"
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        env["PYTHONPATH"] = str(src)
        self._proc = subprocess.Popen(
            [sys.executable, "-c", _BASELINE_WORKER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        first = self._read()
        where = Path(first["cambio"]).resolve()
        if src.resolve() not in where.parents:
            self.close()
            raise SystemExit(f"--baseline: the subprocess imported {where}, not {src}")

    def _read(self) -> dict[str, Any]:
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline()
        if not line:
            self.close()
            raise SystemExit(f"--baseline: the subprocess running {self.rev} failed")
        out: dict[str, Any] = json.loads(line)
        return out

    def measure(self, games: int) -> tuple[int, float]:
        """(decisions, CPU seconds) of REV's ``simulate`` of ``games`` memory-bot rounds."""
        assert self._proc.stdin is not None
        self._proc.stdin.write(f"{games}\n")
        self._proc.stdin.flush()
        out = self._read()
        return int(out["decisions"]), float(out["cpu"])

    def close(self) -> None:
        proc = getattr(self, "_proc", None)
        if proc is not None:
            if proc.stdin is not None:
                proc.stdin.close()
            proc.wait(timeout=60)
            if proc.stdout is not None:
                proc.stdout.close()
            self._proc = None
        self._dir.cleanup()


def _git(*args: str) -> str:
    try:
        done = subprocess.run(
            ["git", "-C", str(HERE), *args], capture_output=True, text=True, check=False
        )
    except OSError as err:  # no git at all
        raise SystemExit(f"--baseline needs git: {err}") from None
    if done.returncode != 0:
        raise SystemExit(f"--baseline needs a git checkout: {done.stderr.strip()}")
    return done.stdout


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


def measure(args: argparse.Namespace, baseline: Baseline | None = None) -> dict[str, Any]:
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
        memory_games = max(2, games // 3)
        n, cpu = _cpu_rate(lambda g=memory_games: _simulate("practice", ["memory"] * 3, g))
        if baseline is not None:
            # the same call on the older revision, right after this tree's
            old_n, old_cpu = baseline.measure(memory_games)
            note("baseline_memory_dps", old_n / old_cpu)
            note("baseline_decisions", old_n)
            note("memory_decisions", n)
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
    if baseline is not None:
        # best of this tree's over best of the baseline's, measured in turn
        ratio = out["simulate_memory_dps"] / out["baseline_memory_dps"]
        out[BASELINE_KEY] = ratio
        out["baseline"] = baseline.rev
        met = ratio >= BASELINE_TARGET
        out["targets"][BASELINE_KEY] = {"target": BASELINE_TARGET, "kind": "min", "met": met}
        # the memory target holds in either form
        out["targets"]["simulate_memory_ratio"]["met"] |= met
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
    rows = [(key, what, unit, target, kind) for key, what, unit, target, kind in TARGETS]
    if BASELINE_KEY in out:
        rev = out["baseline"]
        lines.append(
            f"simulate memory at {rev}: {out['baseline_memory_dps']:,.0f} "
            f"({out['baseline_decisions']:.0f} decisions; this tree "
            f"{out['memory_decisions']:.0f})"
        )
        what = f"simulate, 3 memory bots, this tree / {rev}"
        rows.append((BASELINE_KEY, what, "x", BASELINE_TARGET, "min"))
    width = max(44, *(len(row[1]) for row in rows))
    lines.append("")
    lines.append(f"{'figure':{width}} {'measured':>10} {'target':>10}  ")
    for key, what, unit, target, kind in rows:
        sign = ">=" if kind == "min" else "<="
        ok = "ok" if out["targets"][key]["met"] else "MISSED"
        note = TARGET_NOTES.get(key)
        if note is not None:
            ok += f" ({note}"
            ok += f": {out[BASELINE_KEY]:.2f}x {out['baseline']})" if BASELINE_KEY in out else ")"
        lines.append(f"{what:{width}} {out[key]:10.3f} {sign} {target:<7g} {unit:5} {ok}")
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
    ap.add_argument(
        "--baseline",
        metavar="REV",
        help="also measure simulate with 3 memory bots at git revision REV (its src, from "
        "git archive, run by this interpreter in a subprocess), in turn with this tree's, "
        "and report this tree / REV (target >= 2 for REV c37d725, the issue's checkout)",
    )
    return ap


def main(argv: list[str] | None = None) -> int:
    ap = parser()
    args = ap.parse_args(argv)
    if args.other:
        if args.baseline:
            ap.error("--baseline and --other measure different things: use one of them")
        both = compare(args)
        print(json.dumps(both, indent=2) if args.json else compare_report(both))
        return 0
    baseline = Baseline(args.baseline) if args.baseline else None
    try:
        out = measure(args, baseline)
    finally:
        if baseline is not None:
            baseline.close()
    print(json.dumps(out, indent=2) if args.json else report(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
