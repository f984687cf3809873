"""The server under load: tables of WebSocket clients playing random legal moves at once.

Starts ``cambio serve`` in a child process on a free loopback port (a fresh folder in a
temporary directory), creates ``--tables`` practice tables over HTTP and connects one
WebSocket client per seat; every client plays random legal moves (no call before
``--call-from`` actions) until its round ends. Reports the action latency (from sending
``act`` to its ``acted`` reply) and the throughput; checks on the way that every action
was acknowledged exactly once and the saved tables hold exactly the acknowledged actions.

Run ``python benchmarks/bench_server.py --help``; ``--json`` prints one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from live_server import LiveServer, PlayStats, play_tables


def run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        store = Path(folder) / "tables"
        server = LiveServer(
            store, "--actions-per-second", "100000", "--max-tables", str(args.tables + 10)
        )
        try:
            tables = [
                server.create(variant="practice", players=args.players, seed=args.seed + i)
                for i in range(args.tables)
            ]
            stats = PlayStats()
            began = time.perf_counter()
            outcomes = asyncio.run(play_tables(server, tables, stats, call_from=args.call_from))
            seconds = time.perf_counter() - began
            failures = [repr(o) for o in outcomes if isinstance(o, BaseException)]
            lost = 0
            for made in tables:
                acks = stats.acks.get(made["table"], [])
                saved = json.loads((store / f"{made['table']}.json").read_text())
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
        "clients": args.tables * args.players,
        "actions": actions,
        "seconds": seconds,
        "actions_per_second": actions / seconds if seconds else 0.0,
        "p50_ms": statistics.median(latencies) * 1000 if latencies else 0.0,
        "p95_ms": stats.p95() * 1000,
        "max_ms": latencies[-1] * 1000 if latencies else 0.0,
        "errors": len(stats.errors),
        "failed_tables": len(failures),
        "inconsistent_tables": lost,
    }


def report(out: dict[str, Any]) -> str:
    return (
        f"{out['tables']} tables x {out['clients'] // max(out['tables'], 1)} clients: "
        f"{out['actions']} actions in {out['seconds']:.1f} s "
        f"({out['actions_per_second']:.0f} actions/s)\n"
        f"action latency: p50 {out['p50_ms']:.1f} ms, p95 {out['p95_ms']:.1f} ms, "
        f"max {out['max_ms']:.1f} ms\n"
        f"errors {out['errors']}, failed tables {out['failed_tables']}, "
        f"inconsistent tables {out['inconsistent_tables']}"
    )


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=50, help="tables played at once")
    ap.add_argument("--players", type=int, default=3, help="clients (seats) per table")
    ap.add_argument("--seed", type=int, default=0, help="seed of the first table")
    ap.add_argument(
        "--call-from", type=int, default=3, help="actions before a client may call Cambio"
    )
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    out = run(args)
    print(json.dumps(out) if args.json else report(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
