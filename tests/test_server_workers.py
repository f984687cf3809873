"""Bots decide in worker processes: the same answers, a time budget, and a loop kept free.

The figures (how long a quiet table waits while tables of search bots play) are
measured by ``benchmarks/bench_server.py --search-tables 16``, never asserted here.
"""

from __future__ import annotations

import asyncio
import json
import os
import time

import pytest

from cambio.match import Match
from cambio.protocol import BotTurn, Table, decide_turn

pytest.importorskip("starlette")

from cambio.server.journal import read_saved
from cambio.server.workers import BotPool


def _turns(bot: str, count: int) -> list[BotTurn]:
    """The first ``count`` decisions owed by the bots of a table of three ``bot``s."""
    table = Table("t", Match("practice", 3, seed=5), {0: bot, 1: bot, 2: bot})
    turns = []
    while len(turns) < count:
        turn = table.bot_turn()
        assert turn is not None
        turns.append(turn)
        chosen = decide_turn(turn)
        if not table.apply_bot(turn, chosen):
            assert turn.kind == "react"  # it let the snap go
    return turns


def test_a_decision_depends_on_the_turn_only() -> None:
    for turn in _turns("memory", 12):
        assert decide_turn(turn) == decide_turn(turn)
        assert turn.view.player == turn.seat


def test_workers_give_the_answers_the_server_would() -> None:
    turns = _turns("search", 3)
    pool = BotPool(workers=1, seconds=120)

    async def ask() -> list[object]:
        return [await pool.decide(t) for t in turns]

    try:
        answers = asyncio.run(ask())
    finally:
        pool.shutdown()
    assert answers == [decide_turn(t) for t in turns]
    assert pool.late == 0


def test_a_decision_over_its_budget_gets_the_memory_bot_s_answer() -> None:
    turns = _turns("search", 1)
    pool = BotPool(workers=1, seconds=1e-6)

    async def ask() -> object:
        return await pool.decide(turns[0])

    try:
        answer = asyncio.run(ask())
    finally:
        pool.shutdown()
    assert pool.late == 1
    assert answer in turns[0].choices


def test_a_table_of_search_bots_plays_in_workers_while_people_play(tmp_path: object) -> None:
    """A live server: one table of three search bots and one of three people; the
    people's round is played to its end, every action acknowledged, while the bots'
    table moves on (its decisions taken in a worker, not in the server's process)."""
    from pathlib import Path

    from live_server import LiveServer, PlayStats, play_tables

    assert isinstance(tmp_path, Path)
    server = LiveServer(tmp_path / "tables", "--bot-delay", "0", "--bot-workers", "1")
    try:
        bots = server.create(
            variant="practice",
            players=3,
            seed=1,
            bots={"0": "search", "1": "search", "2": "search"},
        )
        people = server.create(variant="practice", players=3, seed=2)
        stats = PlayStats()
        outcomes = asyncio.run(play_tables(server, [people], stats, call_from=3))
        assert [o for o in outcomes if isinstance(o, BaseException)] == []
        assert stats.errors == []
        acks = stats.acks[people["table"]]
        assert acks == list(range(1, len(acks) + 1))
        # the first decision waits for the worker to start (a process, an import):
        # on a busy machine that may come after the people's round ended
        for _ in range(600):
            saved = json.loads(read_saved(tmp_path / "tables", bots["table"]) or "null")
            if saved["match"]["actions"]:
                break
            time.sleep(0.05)
        assert saved["match"]["actions"], "the bots' table never moved"
        pid = server.process.pid
        below = [p for p in _processes() if pid in _ancestors(p)]
        assert below, "the server started no worker process"
    finally:
        server.stop()
    # stopping the server stops its workers (none is left behind, orphaned)
    for _ in range(100):
        if not [p for p in below if p in _processes()]:
            break
        time.sleep(0.05)
    assert not [p for p in below if p in _processes()], "a worker outlived the server"


def _processes() -> list[int]:
    return [int(p) for p in os.listdir("/proc") if p.isdigit()]


def _ancestors(pid: int) -> list[int]:
    out = []
    for _ in range(20):
        try:
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError):
            break
        if pid <= 1:
            break
        out.append(pid)
    return out
