"""``cambio serve`` in a child process on a free loopback port, and clients that play it.

Shared by the live server tests and ``benchmarks/bench_server.py``: the server runs as
a real process (uvicorn, real sockets), tables are created over HTTP with ``httpx`` and
played over WebSockets with the ``websockets`` library.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect

import cambio

__all__ = ["ONE_CLIENT", "LiveServer", "PlayStats", "play_round", "play_tables"]

# where the imported cambio lives (src/, or the compiled build's site-packages), so the
# server runs the build under test
_SRC = str(Path(cambio.__file__).resolve().parents[1])


ONE_CLIENT = (
    "--creates-per-minute",
    "1000000",
    "--tables-per-client",
    "1000000",
    "--connections-per-client",
    "1000000",
)
"""Per-client limits out of the way: every client of these tests comes from one address
(``options`` given to :class:`LiveServer` come later and win)."""


class LiveServer:
    """``python -m cambio serve --port 0`` on ``store``; ``base`` is its http address."""

    def __init__(self, store: Path, *options: str) -> None:
        env = {**os.environ, "PYTHONPATH": _SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
        command = [sys.executable, "-m", "cambio", "serve", "--port", "0", "--store", str(store)]
        command += ONE_CLIENT
        self.process = subprocess.Popen(
            [*command, *options],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()  # "cambio serve: http://127.0.0.1:PORT/ (...)"
        assert line.startswith("cambio serve: http://"), line
        self.base = line.split()[2].rstrip("/")
        self.ws_base = "ws" + self.base.removeprefix("http")
        self._wait_ready()

    def _wait_ready(self) -> None:
        for _ in range(200):
            try:
                httpx.get(self.base + "/api/variants", timeout=5).raise_for_status()
                return
            except httpx.HTTPError:
                time.sleep(0.05)
        raise AssertionError("the server never answered")

    def create(self, **fields: Any) -> dict[str, Any]:
        """Create a table over HTTP; returns the server's reply (tokens and links)."""
        response = httpx.post(self.base + "/api/tables", json=fields, timeout=30)
        assert response.status_code == 201, response.text
        made: dict[str, Any] = response.json()
        return made

    def url(self, token: str) -> str:
        return f"{self.ws_base}/ws?token={token}"

    def kill(self) -> None:
        """SIGKILL: no chance to write anything more."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()
        if self.process.stdout is not None:
            self.process.stdout.close()


@dataclass
class PlayStats:
    """What the clients saw: acknowledged positions per table, latencies, errors."""

    acks: dict[str, list[int]] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    in_flight: dict[str, int] = field(default_factory=dict)
    """Per table, the position of an action sent but not yet acknowledged."""
    finals: dict[str, dict[str, Any]] = field(default_factory=dict)

    def p95(self) -> float:
        ordered = sorted(self.latencies)
        return ordered[max(0, int(len(ordered) * 0.95) - 1)] if ordered else 0.0


async def _seat(
    url: str,
    table: str,
    seat: int,
    rng: random.Random,
    stats: PlayStats,
    call_from: int,
    gate: tuple[int, asyncio.Event] | None,
) -> dict[str, Any]:
    """One seat's connection: random legal moves whenever the update says it must act."""
    sent_at = -1
    started = 0.0
    async with connect(url, max_size=1 << 22, open_timeout=60, ping_interval=None) as ws:
        async for text in ws:
            message = json.loads(text)
            kind = message["type"]
            if kind == "error":
                stats.errors.append(message)
                continue
            if kind == "acted":
                stats.latencies.append(time.perf_counter() - started)
                stats.acks.setdefault(table, []).append(message["at"])
                stats.in_flight.pop(table, None)
                continue
            if kind != "update":
                continue
            view = message["view"]
            if view["result"] is not None or view["match_over"]:
                stats.finals[table] = view
                return view
            if view["to_act"] != seat or view["at"] == sent_at or not message["legal"]:
                continue
            if gate is not None and view["at"] >= gate[0]:
                await gate[1].wait()
            legal = message["legal"]
            if view["at"] < call_from:
                legal = [a for a in legal if a["kind"] != "call"] or legal
            choice = rng.choice(legal)
            sent_at = view["at"]
            stats.in_flight[table] = sent_at
            started = time.perf_counter()
            await ws.send(json.dumps({"type": "act", "action": choice["id"], "at": sent_at}))
    raise ConnectionError(f"seat {seat} of {table} was closed before the round ended")


async def play_round(
    server: LiveServer,
    made: dict[str, Any],
    seed: int,
    stats: PlayStats,
    *,
    call_from: int = 0,
    gate: tuple[int, asyncio.Event] | None = None,
) -> dict[str, Any]:
    """Three (or more) seats of one table play to the end of the round on show."""
    seats = sorted(int(s) for s in made["tokens"])
    views = await asyncio.gather(
        *(
            _seat(
                server.url(made["tokens"][str(s)]),
                made["table"],
                s,
                random.Random(seed * 100 + s),
                stats,
                call_from,
                gate,
            )
            for s in seats
        )
    )
    return views[0]


async def play_tables(
    server: LiveServer, tables: Sequence[dict[str, Any]], stats: PlayStats, **options: Any
) -> list[Any]:
    """Every table's round at once; exceptions are returned, not raised."""
    return list(
        await asyncio.gather(
            *(play_round(server, made, i, stats, **options) for i, made in enumerate(tables)),
            return_exceptions=True,
        )
    )
