"""The engine's figures: random play, copy and view costs, memory per live round.

Sections (``--only`` picks some; all run by default):

``practice``
    Uniform random play of the practice table, 3 players, through the public API only:
    ``legal_action_ids(to_act)`` with the call actions set aside (never call; a call that
    is the only legal action would be taken), ``random.choice``, ``apply``. Round ``s``
    is dealt with ``seed=s`` and its choices come from ``random.Random(choice_seed(s))``:
    the very games that ``reference_loop.py`` plays. Building each ``Round`` is timed
    too. Best of ``--repeat``. Reports decisions per second.
``profiles``
    Rounds per second on every bundled profile (``cambio.available_variants()`` and
    ``cambio.load_ruleset``), default player count, the same driver; since tables that
    recycle the discard pile never run out of stock, from turn ``--call-after`` on the
    driver calls as soon as it can. Only the player to act acts: nobody else snaps.
    Skipped, with a message, when the library has no profile loading yet.
``copy``
    ``Round.copy()`` on a fresh practice round (and, for information, mid-round):
    microseconds per copy, median over batches.
``view``
    ``Round.view(p)`` mid-round (after ``--mid`` decisions), every seat in turn:
    microseconds per view, median over batches.
``memory``
    ``tracemalloc``: ``--memory-rounds`` practice rounds, each played ``--mid`` decisions
    in and all kept alive; traced bytes divided by the number of rounds.

Run ``python benchmarks/bench_engine.py --help``; ``--json`` prints one JSON object.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import random
import statistics
import sys
import time
import tracemalloc
from collections import Counter
from typing import Any

import cambio
from cambio import Action, ActionKind, Round, RuleSet

__all__ = [
    "SECTIONS",
    "choice_seed",
    "copy_cost",
    "memory_per_round",
    "play_practice_round",
    "profiles",
    "run",
    "run_practice",
    "view_cost",
]

SECTIONS = ("practice", "profiles", "copy", "view", "memory")


def choice_seed(seed: int) -> int:
    """The seed of the random choices of round ``seed`` (as in reference_loop.py)."""
    return seed + 1_000_000_007


_CALLS: dict[int, tuple[Any, tuple[int, ...]]] = {}


def call_ids(rnd: Round) -> tuple[int, ...]:
    """The id of each player's call action in this round's action space."""
    space = rnd.space
    hit = _CALLS.get(id(space))
    if hit is not None and hit[0] is space:
        return hit[1]
    ids = tuple(space.encode(Action.call(p)) for p in range(rnd.players))
    assert all(space.decode(a).kind is ActionKind.CALL for a in ids)
    _CALLS[id(space)] = (space, ids)
    return ids


# --------------------------------------------------------------------------- play
def play_practice_round(rules: RuleSet, seed: int, players: int = 3) -> tuple[int, Round]:
    """Deal round ``seed`` and play it out at random, never calling; (decisions, round)."""
    rnd = Round(rules, players, seed=seed)
    choice = random.Random(choice_seed(seed)).choice
    calls = call_ids(rnd)
    legal = rnd.legal_action_ids
    apply = rnd.apply
    decisions = 0
    while (p := rnd.to_act) is not None:
        ids = legal(p)
        c = calls[p]
        if c in ids and len(ids) > 1:
            ids = [a for a in ids if a != c]
        apply(choice(ids))
        decisions += 1
    return decisions, rnd


def advance(rnd: Round, rng: random.Random, decisions: int, call_after: int | None = None) -> int:
    """Play up to ``decisions`` random decisions (never calling before ``call_after`` turns)."""
    calls = call_ids(rnd)
    done = 0
    while done < decisions and (p := rnd.to_act) is not None:
        ids = rnd.legal_action_ids(p)
        c = calls[p]
        if c in ids:
            if call_after is not None and rnd.turns_taken >= call_after:
                ids = [c]
            elif len(ids) > 1:
                ids = [a for a in ids if a != c]
        rnd.apply(rng.choice(ids))
        done += 1
    return done


def run_practice(rounds: int = 300, seed: int = 0, players: int = 3) -> dict[str, float]:
    """Random practice rounds ``seed, seed + 1, ...``: the figures as a dict."""
    rules = RuleSet()
    decisions = 0
    cpu = time.process_time()
    start = time.perf_counter()
    for s in range(seed, seed + rounds):
        decisions += play_practice_round(rules, s, players)[0]
    seconds = time.perf_counter() - start
    cpu = time.process_time() - cpu
    return {
        "rounds": rounds,
        "decisions": decisions,
        "seconds": seconds,
        "decisions_per_second": decisions / seconds,
        "rounds_per_second": rounds / seconds,
        "decisions_per_round": decisions / rounds,
        "cpu_seconds": cpu,
        "decisions_per_cpu_second": decisions / max(cpu, 1e-9),
    }


def profiles(
    rounds: int = 30, seed: int = 0, call_after: int = 100, max_decisions: int = 100_000
) -> dict[str, Any]:
    """Rounds per second on every bundled profile; ``{"skipped": why}`` without loading."""
    available = getattr(cambio, "available_variants", None)
    load = getattr(cambio, "load_ruleset", None)
    if available is None or load is None:
        return {"skipped": "cambio has no available_variants()/load_ruleset() yet"}
    try:
        names = list(available())
    except Exception as exc:  # a measurement: report, do not crash
        return {"skipped": f"available_variants() failed: {type(exc).__name__}: {exc}"}
    if not names:
        return {"skipped": "available_variants() lists no profile"}
    out: dict[str, Any] = {}
    for name in names:
        try:
            rules = load(name)
            players = rules.players.default
            decisions = turns = 0
            reasons: Counter[str] = Counter()
            cpu = time.process_time()
            start = time.perf_counter()
            for s in range(seed, seed + rounds):
                rnd = Round(rules, players, seed=s)
                decisions += advance(rnd, random.Random(choice_seed(s)), max_decisions, call_after)
                if not rnd.is_over:
                    raise RuntimeError(f"round {s} did not end within {max_decisions} decisions")
                turns += rnd.turns_taken
                reasons[rnd.result.reason if rnd.result is not None else "?"] += 1
            seconds = time.perf_counter() - start
            cpu = time.process_time() - cpu
        except Exception as exc:
            out[name] = {"error": f"{type(exc).__name__}: {exc}"}
            continue
        out[name] = {
            "players": players,
            "rounds": rounds,
            "rounds_per_second": rounds / seconds,
            "decisions_per_second": decisions / seconds,
            "rounds_per_cpu_second": rounds / max(cpu, 1e-9),
            "decisions_per_round": decisions / rounds,
            "turns_per_round": turns / rounds,
            "ended_by": dict(sorted(reasons.items())),
        }
    return out


# --------------------------------------------------------------------------- costs
def _median_us(fn: Any, samples: int, batch: int) -> float:
    """Median over ``samples`` batches of the microseconds per call of ``fn()``."""
    per = []
    clock = time.perf_counter_ns
    for _ in range(samples):
        t0 = clock()
        for _ in range(batch):
            fn()
        per.append((clock() - t0) / batch / 1000)
    return statistics.median(per)


def _mid_round(seed: int, mid: int, players: int = 3) -> Round:
    rnd = Round(RuleSet(), players, seed=seed)
    advance(rnd, random.Random(choice_seed(seed)), mid)
    return rnd


def copy_cost(
    samples: int = 200, batch: int = 50, seed: int = 0, mid: int = 80
) -> dict[str, float]:
    """Microseconds per ``Round.copy()``: at the start of a practice round, and mid-round."""
    start = Round(RuleSet(), 3, seed=seed)
    middle = _mid_round(seed, mid)
    return {
        "copy_start_us": _median_us(start.copy, samples, batch),
        "copy_mid_us": _median_us(middle.copy, samples, batch),
        "copy_mid_events": float(len(middle.events)),
    }


def view_cost(
    samples: int = 200, batch: int = 30, seed: int = 0, mid: int = 80
) -> dict[str, float]:
    """Microseconds per ``Round.view(p)`` mid-round, seats taken in turn."""
    rnd = _mid_round(seed, mid)
    seats = list(range(rnd.players)) * (batch // rnd.players + 1)
    seats = seats[:batch]
    view = rnd.view

    def all_seats() -> None:
        for p in seats:
            view(p)

    return {"view_us": _median_us(all_seats, samples, 1) / len(seats)}


def memory_per_round(rounds: int = 1000, seed: int = 0, mid: int = 80) -> dict[str, float]:
    """Traced bytes per live practice round ``mid`` decisions in (tracemalloc)."""
    play_practice_round(RuleSet(), seed)  # warm shared caches outside the measurement
    rules = RuleSet()
    gc.collect()
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    try:
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        live = []
        for s in range(seed, seed + rounds):
            rnd = Round(rules, 3, seed=s)
            advance(rnd, random.Random(choice_seed(s)), mid)
            live.append(rnd)
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        if not was_tracing:
            tracemalloc.stop()
    events = statistics.mean(len(r.events) for r in live)
    del live
    return {
        "memory_per_round_bytes": (after - before) / rounds,
        "memory_rounds": float(rounds),
        "memory_mid_events": events,
    }


# --------------------------------------------------------------------------- driver
def run(args: argparse.Namespace) -> dict[str, Any]:
    only = set(args.only or SECTIONS)
    out: dict[str, Any] = {
        "benchmark": "bench_engine",
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "cambio": getattr(cambio, "__version__", "?"),
    }
    if "practice" in only:
        play_practice_round(RuleSet(), args.seed)  # warm-up
        best = max(
            (
                run_practice(args.rounds, args.seed, args.players)
                for _ in range(max(1, args.repeat))
            ),
            key=lambda r: r["decisions_per_second"],
        )
        out.update(best)
    if "profiles" in only:
        out["profiles"] = profiles(args.profile_rounds, args.seed, args.call_after)
    if "copy" in only:
        out.update(copy_cost(args.copy_samples, seed=args.seed, mid=args.mid))
    if "view" in only:
        out.update(view_cost(args.view_samples, seed=args.seed, mid=args.mid))
    if "memory" in only:
        out.update(memory_per_round(args.memory_rounds, seed=args.seed, mid=args.mid))
    return out


def report(out: dict[str, Any]) -> str:
    lines = [f"cambio {out['cambio']} on {out['implementation']} {out['python']}"]
    if "decisions_per_second" in out:
        lines.append(
            "practice, random play, never calling: "
            f"{out['decisions_per_second']:,.0f} decisions/s "
            f"({out['decisions_per_cpu_second']:,.0f} per CPU-second), "
            f"{out['rounds_per_second']:,.1f} rounds/s ({out['decisions_per_round']:.1f} decisions "
            f"per round, {out['rounds']} rounds)"
        )
    if "profiles" in out:
        prof = out["profiles"]
        if "skipped" in prof:
            lines.append(f"profiles: skipped ({prof['skipped']})")
        else:
            lines.append(
                f"profiles:{'':11} {'rounds/s':>9} {'per CPU-s':>9} {'decisions/s':>11} "
                f"{'dec/round':>9} {'turns':>6}  ended by"
            )
            for name, r in prof.items():
                if "error" in r:
                    lines.append(f"  {name:<20} error: {r['error']}")
                    continue
                ends = ", ".join(f"{k} {v}" for k, v in r["ended_by"].items())
                lines.append(
                    f"  {name:<18} {r['rounds_per_second']:9.1f} {r['rounds_per_cpu_second']:9.1f}"
                    f" {r['decisions_per_second']:11,.0f} {r['decisions_per_round']:9.1f}"
                    f" {r['turns_per_round']:6.1f}  {ends}"
                )
    if "copy_start_us" in out:
        lines.append(
            f"Round.copy(): {out['copy_start_us']:.2f} us at the start of a round, "
            f"{out['copy_mid_us']:.2f} us mid-round ({out['copy_mid_events']:.0f} events)"
        )
    if "view_us" in out:
        lines.append(f"Round.view(p) mid-round: {out['view_us']:.2f} us")
    if "memory_per_round_bytes" in out:
        lines.append(
            f"memory per live round mid-play: {out['memory_per_round_bytes'] / 1024:,.1f} KiB "
            f"({out['memory_per_round_bytes']:,.0f} bytes, {out['memory_mid_events']:.0f} events, "
            f"{out['memory_rounds']:.0f} rounds)"
        )
    return "\n".join(lines)


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--only", action="append", choices=SECTIONS, help="run only this section (repeatable)"
    )
    ap.add_argument("--rounds", type=int, default=300, help="practice rounds per repetition")
    ap.add_argument("--repeat", type=int, default=3, help="practice repetitions; the best is kept")
    ap.add_argument("--seed", type=int, default=0, help="seed of the first round")
    ap.add_argument("--players", type=int, default=3, help="players in the practice rounds")
    ap.add_argument("--profile-rounds", type=int, default=30, help="rounds per bundled profile")
    ap.add_argument(
        "--call-after", type=int, default=100, help="profiles: call from this many turns on"
    )
    ap.add_argument("--copy-samples", type=int, default=200, help="batches of 50 copies")
    ap.add_argument("--view-samples", type=int, default=200, help="batches of 30 views")
    ap.add_argument("--memory-rounds", type=int, default=1000, help="live rounds for memory")
    ap.add_argument("--mid", type=int, default=80, help="decisions into a round for 'mid-round'")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    out = run(args)
    print(json.dumps(out) if args.json else report(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
