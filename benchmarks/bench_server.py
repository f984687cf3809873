"""The server under load: tables of WebSocket clients playing random legal moves at once.

Starts ``cambio serve`` in a child process on a free loopback port (a fresh folder in a
temporary directory), creates ``--tables`` practice tables over HTTP and connects one
WebSocket client per seat; every client plays random legal moves (no call before
``--call-from`` actions) until its round ends. Reports the action latency (from sending
``act`` to its ``acted`` reply: p50, p95, p99), the throughput and the server's CPU time
per acknowledged action (user and system time of the server process, from ``/proc``);
checks on the way that every action was acknowledged exactly once and the saved tables
hold exactly the acknowledged actions.

``--search-tables K`` also starts K tables whose every seat is a search bot (moving
with no delay) before the people's tables play, so the figures show how much a busy
table delays the quiet ones.

Run ``python benchmarks/bench_server.py --help``; ``--json`` prints one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from cambio.server.journal import read_saved
from live_server import LiveServer, PlayStats, play_tables


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of process ``pid`` so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def percentile(ordered: list[float], q: float) -> float:
    return ordered[max(0, int(len(ordered) * q + 0.5) - 1)] if ordered else 0.0


def run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        store = Path(folder) / "tables"
        server = LiveServer(
            store,
            "--actions-per-second",
            "100000",
            "--max-tables",
            str(args.tables + args.search_tables + 10),
            "--bot-delay",
            "0",
        )
        try:
            search = []
            for i in range(args.search_tables):
                bots = {str(s): "search" for s in range(args.players)}
                search.append(
                    server.create(
                        variant="practice", players=args.players, seed=10_000 + i, bots=bots
                    )
                )
            tables = [
                server.create(variant="practice", players=args.players, seed=args.seed + i)
                for i in range(args.tables)
            ]
            search_names = [made["table"] for made in search]
            search_before = sum(_actions(store, n) for n in search_names)
            stats = PlayStats()
            pid = server.process.pid
            cpu_before = cpu_seconds(pid)
            began = time.perf_counter()
            outcomes = asyncio.run(play_tables(server, tables, stats, call_from=args.call_from))
            seconds = time.perf_counter() - began
            cpu = cpu_seconds(pid) - cpu_before
            search_actions = sum(_actions(store, n) for n in search_names) - search_before
            failures = [repr(o) for o in outcomes if isinstance(o, BaseException)]
            lost = 0
            for made in tables:
                acks = stats.acks.get(made["table"], [])
                saved = json.loads(read_saved(store, made["table"]) or "null")
                if acks != list(range(1, len(acks) + 1)) or len(saved["match"]["actions"]) != len(
                    acks
                ):
                    lost += 1
        finally:
            server.stop()
    latencies = sorted(stats.latencies)
    actions = len(latencies)
    return {
        "tables": args.tables,
        "search_tables": args.search_tables,
        "clients": args.tables * args.players,
        "actions": actions,
        "seconds": seconds,
        "actions_per_second": actions / seconds if seconds else 0.0,
        "cpu_ms_per_action": cpu * 1000 / actions if actions else 0.0,
        "p50_ms": statistics.median(latencies) * 1000 if latencies else 0.0,
        "p95_ms": percentile(latencies, 0.95) * 1000,
        "p99_ms": percentile(latencies, 0.99) * 1000,
        "max_ms": latencies[-1] * 1000 if latencies else 0.0,
        "search_actions": search_actions,
        "errors": len(stats.errors),
        "failed_tables": len(failures),
        "inconsistent_tables": lost,
    }


def _actions(store: Path, name: str) -> int:
    saved = read_saved(store, name)
    return len(json.loads(saved)["match"]["actions"]) if saved else 0


MATRIX = [(50, 0), (200, 0), (50, 16), (200, 16), (4, 0), (4, 16)]
"""``--matrix``'s runs: (people's tables, tables of search bots). The last two measure
a few quiet tables alone and beside 16 busy ones."""


def matrix_report(rows: list[dict[str, Any]]) -> str:
    lines = [
        "tables  search  actions  CPU ms/action  p50 ms  p95 ms  p99 ms  max ms  "
        "search actions  errors",
    ]
    for out in rows:
        lines.append(
            f"{out['tables']:>6}  {out['search_tables']:>6}  {out['actions']:>7}  "
            f"{out['cpu_ms_per_action']:>13.2f}  {out['p50_ms']:>6.1f}  {out['p95_ms']:>6.1f}  "
            f"{out['p99_ms']:>6.1f}  {out['max_ms']:>6.1f}  {out['search_actions']:>14}  "
            f"{out['errors'] + out['failed_tables'] + out['inconsistent_tables']:>6}"
        )
    return "\n".join(lines)


def report(out: dict[str, Any]) -> str:
    busy = f", beside {out['search_tables']} tables of search bots" if out["search_tables"] else ""
    return (
        f"{out['tables']} tables x {out['clients'] // max(out['tables'], 1)} clients{busy}: "
        f"{out['actions']} actions in {out['seconds']:.1f} s "
        f"({out['actions_per_second']:.0f} actions/s)\n"
        f"server CPU per action: {out['cpu_ms_per_action']:.2f} ms\n"
        f"action latency: p50 {out['p50_ms']:.1f} ms, p95 {out['p95_ms']:.1f} ms, "
        f"p99 {out['p99_ms']:.1f} ms, max {out['max_ms']:.1f} ms\n"
        + (
            f"the search bots' tables made {out['search_actions']} actions meanwhile\n"
            if out["search_tables"]
            else ""
        )
        + f"errors {out['errors']}, failed tables {out['failed_tables']}, "
        f"inconsistent tables {out['inconsistent_tables']}"
    )


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=50, help="tables played at once")
    ap.add_argument("--players", type=int, default=3, help="clients (seats) per table")
    ap.add_argument("--seed", type=int, default=0, help="seed of the first table")
    ap.add_argument(
        "--call-from",
        type=int,
        default=40,
        help="actions before a client may call Cambio (default 40: long rounds, many samples)",
    )
    ap.add_argument(
        "--search-tables",
        type=int,
        default=0,
        help="tables of search bots (every seat, no delay) playing beside the clients' tables",
    )
    ap.add_argument(
        "--matrix",
        action="store_true",
        help="run every configuration of MATRIX (50 and 200 tables, with and without 16 "
        "tables of search bots; 4 quiet tables alone and beside 16 busy ones), one server "
        "each, and print one line per run",
    )
    ap.add_argument(
        "--json", action="store_true", help="print one JSON object (a list with --matrix)"
    )
    return ap


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if not args.matrix:
        out = run(args)
        print(json.dumps(out) if args.json else report(out))
        return 0
    rows = []
    for tables, search_tables in MATRIX:
        one = argparse.Namespace(**{**vars(args), "tables": tables, "search_tables": search_tables})
        rows.append(run(one))
        if not args.json:
            print(report(rows[-1]), end="\n\n", flush=True)
    print(json.dumps(rows) if args.json else matrix_report(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
