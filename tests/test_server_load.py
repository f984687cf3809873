"""``cambio serve`` as a real process under load, and killed with SIGKILL mid-game.

* Load: 50 tables of 3 WebSocket clients each play random legal moves at once to the
  end of their rounds: every action is acknowledged exactly once, in sequence, the
  server's saved table holds exactly the acknowledged actions, and nobody gets an error.
  The 95th-percentile action latency is printed (a measurement, never asserted).
* Fault: 10 games are under way when the server is killed; a new server on the same
  folder resumes each at its last acknowledged action, and every game finishes.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from cambio.server.journal import read_saved
from live_server import LiveServer, PlayStats, play_tables


@pytest.fixture
def store(tmp_path: Path) -> Path:
    return tmp_path / "tables"


def saved_actions(store: Path, table: str) -> int:
    return len(json.loads(read_saved(store, table) or "null")["match"]["actions"])


@pytest.fixture
def server(store: Path) -> Iterator[LiveServer]:
    live = LiveServer(store, "--actions-per-second", "10000", "--max-tables", "60")
    yield live
    live.stop()


def test_fifty_tables_of_three_clients(server: LiveServer, store: Path) -> None:
    tables = [server.create(variant="practice", players=3, seed=s) for s in range(50)]
    stats = PlayStats()
    outcomes = asyncio.run(play_tables(server, tables, stats, call_from=3))
    assert [o for o in outcomes if isinstance(o, BaseException)] == []
    assert stats.errors == []
    for made in tables:
        acks = stats.acks[made["table"]]
        assert acks == list(range(1, len(acks) + 1))  # none lost, none twice
        assert stats.finals[made["table"]]["at"] == len(acks)
        assert saved_actions(store, made["table"]) == len(acks)
    total = sum(len(a) for a in stats.acks.values())
    print(
        f"\n50 tables x 3 clients: {total} actions, "
        f"p95 action latency {stats.p95() * 1000:.1f} ms, "
        f"median {sorted(stats.latencies)[len(stats.latencies) // 2] * 1000:.1f} ms"
    )


def test_sigkill_mid_game_then_every_game_resumes_and_finishes(store: Path) -> None:
    # no checkpoint before the kill: what was acknowledged survives through the journal
    first = LiveServer(store, "--actions-per-second", "10000", "--checkpoint-seconds", "3600")
    tables = [first.create(variant="practice", players=3, seed=40 + s) for s in range(10)]
    stats = PlayStats()

    async def until_killed() -> None:
        gate = asyncio.Event()  # never set: players wait at position 12 for the kill
        task = asyncio.ensure_future(
            play_tables(first, tables, stats, call_from=40, gate=(12, gate))
        )
        for _ in range(6000):
            if len(stats.acks) == 10 and all(len(a) >= 4 for a in stats.acks.values()):
                break
            await asyncio.sleep(0.01)
        first.kill()
        outcomes = await task
        assert all(isinstance(o, BaseException) for o in outcomes)  # every connection cut

    try:
        asyncio.run(until_killed())
    finally:
        first.stop()
    acked = {name: acks[-1] for name, acks in stats.acks.items()}
    assert stats.errors == []
    assert all(4 <= at <= 12 for at in acked.values()), acked  # mid-game, none finished
    in_flight = dict(stats.in_flight)
    assert list((store / "journal").glob("*.log")), "the kill left no journal to recover"

    second = LiveServer(store, "--actions-per-second", "10000")
    try:
        for made in tables:
            name = made["table"]
            saved = saved_actions(store, name)
            # the last acknowledged action, or one more if it was applied unacknowledged
            assert saved == acked[name] or (
                in_flight.get(name) == acked[name] and saved == acked[name] + 1
            )
        after = PlayStats()
        outcomes = asyncio.run(play_tables(second, tables, after, call_from=0))
        assert [o for o in outcomes if isinstance(o, BaseException)] == []
        assert after.errors == []
        for made in tables:
            name = made["table"]
            start = saved_actions(store, name) - len(after.acks.get(name, []))
            assert start in (acked[name], acked[name] + 1)
            assert after.acks.get(name, []) == list(
                range(start + 1, start + 1 + len(after.acks.get(name, [])))
            )
            assert after.finals[name]["result"] is not None
    finally:
        second.stop()
