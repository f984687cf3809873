"""``cambio serve`` and tables created with hints: a seat's ``analyse`` request runs in
the analysis workers, within the server's budget, while the loop serves everyone else;
a table that moved on meanwhile gets ``stale-action`` instead of old figures."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from cambio.analysis import Analysis
from cambio.server.analyses import AnalysisJob, run_job
from cambio.server.app import ServerConfig, create_app
from protocol_clients import check_reply


def _ask(ws: Any, message: dict[str, Any]) -> dict[str, Any]:
    ws.send_text(json.dumps(message))
    return _next(ws)


def _next(ws: Any) -> dict[str, Any]:
    """The next reply on ``ws`` (updates skipped)."""
    while True:
        reply = check_reply(json.loads(ws.receive_text()))
        if reply["type"] != "update":
            return reply


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    config = ServerConfig(
        store=tmp_path / "tables",
        max_tables=8,
        bot_delay=0.0,
        requests_per_second=1000,
        creates_per_minute=1000,
        analysis_samples=20,
    )
    with TestClient(create_app(config)) as made:
        yield made


def _create(client: TestClient, **fields: Any) -> dict[str, Any]:
    body = {"variant": "practice", "players": 2, "seed": 4, **fields}
    response = client.post("/api/tables", json=body)
    assert response.status_code == 201, response.text
    made: dict[str, Any] = response.json()
    return made


def test_a_hints_table_answers_its_own_seat_only(client: TestClient) -> None:
    made = _create(client, hints=True, bots={"1": "memory"})
    name = made["table"]
    with (
        client.websocket_connect(f"/ws?token={made['tokens']['0']}") as me,
        client.websocket_connect(f"/ws?token={made['spectator']}") as watcher,
    ):
        first = check_reply(json.loads(me.receive_text()))
        assert first["view"]["hints"] is True
        assert check_reply(json.loads(watcher.receive_text()))["view"]["hints"] is True
        own = _ask(me, {"type": "analyse", "id": "h1", "samples": 4, "seed": 2})
        assert own["type"] == "analysis" and own["reply_to"] == "h1"
        assert own["table"] == name and own["seat"] == 0 and own["samples"] == 4
        assert own["at"] == first["view"]["at"]
        legal = {a["text"] for a in first["legal"]}
        assert {e["action"]["text"] for e in own["estimates"]} == legal
        assert _ask(me, {"type": "analyse", "seat": 1})["code"] == "wrong-seat"
        too_many = _ask(me, {"type": "analyse", "samples": 21})
        assert too_many["code"] == "bad-field" and too_many["where"] == "$.samples"
        assert "at most 20 rounds" in too_many["message"]
        assert _ask(watcher, {"type": "analyse"})["code"] == "forbidden"
        assert _ask(watcher, {"type": "analyse", "seat": 0})["code"] == "wrong-seat"


def test_a_table_without_hints_refuses_and_says_so_in_its_views(client: TestClient) -> None:
    made = _create(client)
    with client.websocket_connect(f"/ws?token={made['tokens']['0']}") as me:
        assert check_reply(json.loads(me.receive_text()))["view"]["hints"] is False
        refused = _ask(me, {"type": "analyse", "samples": 2})
        assert refused["code"] == "forbidden" and "hints" in refused["message"]
    bad = client.post("/api/tables", json={"variant": "practice", "hints": "on"})
    assert bad.status_code == 400 and bad.json()["where"] == "$.hints"


class _Held:
    """An analysis that starts, then waits until the test lets it finish."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()
        self.jobs: list[AnalysisJob] = []

    def __call__(self, job: AnalysisJob) -> Analysis | str:
        self.jobs.append(job)
        self.started.set()
        assert self.release.wait(60)
        return run_job(job)


def _hold(client: TestClient) -> _Held:
    """Run the server's analyses in a thread that waits for the test's word."""
    held = _Held()
    pool = client.app.state.game.analyses  # type: ignore[attr-defined]
    pool.run = held
    pool._pool = ThreadPoolExecutor(max_workers=2)
    return held


def test_the_loop_serves_another_table_while_an_analysis_runs(client: TestClient) -> None:
    hinted = _create(client, hints=True)
    other = _create(client, seed=9)
    held = _hold(client)
    with (
        client.websocket_connect(f"/ws?token={hinted['tokens']['0']}") as asking,
        client.websocket_connect(f"/ws?token={hinted['tokens']['0']}") as again,
        client.websocket_connect(f"/ws?token={other['tokens']['1']}") as elsewhere,
    ):
        for ws in (asking, again, elsewhere):
            ws.receive_text()
        asking.send_text(json.dumps({"type": "analyse", "id": 1, "samples": 3, "seed": 1}))
        assert held.started.wait(60)  # the analysis is under way and cannot finish yet
        view = _ask(elsewhere, {"type": "view", "id": 2})
        assert view["type"] == "view" and view["reply_to"] == 2 and view["view"]["seat"] == 1
        (job,) = held.jobs  # the asking seat's view, within the server's budget
        assert job.view.player == 0 and job.samples == 3 and job.seed == 1
        assert job.seconds == ServerConfig().analysis_seconds
        busy = _ask(again, {"type": "analyse", "samples": 3})
        assert busy["code"] == "rate-limited" and "one analysis at a time" in busy["message"]
        asking.send_text(json.dumps({"type": "view", "id": 3}))  # waits its turn
        held.release.set()
        answered = _next(asking)
        assert answered["type"] == "analysis" and answered["reply_to"] == 1
        assert _next(asking)["reply_to"] == 3  # then the view, in order


def test_an_analysis_of_a_position_that_is_gone_is_dropped(client: TestClient) -> None:
    hinted = _create(client, hints=True, players=2)
    held = _hold(client)
    with (
        client.websocket_connect(f"/ws?token={hinted['tokens']['0']}") as asking,
        client.websocket_connect(f"/ws?token={hinted['tokens']['0']}") as acting,
    ):
        asking.receive_text()
        update = check_reply(json.loads(acting.receive_text()))
        at = update["view"]["at"]
        asking.send_text(json.dumps({"type": "analyse", "id": 7, "samples": 3}))
        assert held.started.wait(60)
        move = update["legal"][0]["text"]
        acted = _ask(acting, {"type": "act", "action": move, "at": at})
        assert acted["type"] == "acted" and acted["at"] == at + 1
        held.release.set()
        stale = _next(asking)
        assert stale["code"] == "stale-action" and stale["reply_to"] == 7
        assert f"position {at}" in stale["message"]


def test_an_analysis_that_fails_is_an_internal_error(client: TestClient) -> None:
    made = _create(client, hints=True)
    pool = client.app.state.game.analyses  # type: ignore[attr-defined]
    pool.run = _failing
    pool._pool = ThreadPoolExecutor(max_workers=1)
    with client.websocket_connect(f"/ws?token={made['tokens']['0']}") as me:
        me.receive_text()
        failed = _ask(me, {"type": "analyse", "id": 4, "samples": 3})
        assert failed["code"] == "internal" and failed["reply_to"] == 4
        assert "the analysis failed: no worlds" in failed["message"]
        assert _ask(me, {"type": "hello"})["type"] == "hello"  # the connection carries on


def _failing(job: AnalysisJob) -> Analysis | str:
    raise ValueError("no worlds")


def test_the_server_draws_at_least_two_rounds() -> None:
    with pytest.raises(ValueError, match="analysis_samples must be 2 or more"):
        ServerConfig(analysis_samples=1)


def test_a_real_server_answers_a_hints_table_from_its_workers(tmp_path: Path) -> None:
    from websockets.sync.client import connect

    from live_server import LiveServer

    server = LiveServer(tmp_path / "tables", "--bot-delay", "0")
    try:
        made = server.create(variant="practice", players=2, hints=True, bots={"1": "memory"})
        with connect(server.url(made["tokens"]["0"]), open_timeout=30) as ws:
            first = check_reply(json.loads(ws.recv(timeout=30)))
            assert first["view"]["hints"] is True
            ws.send(json.dumps({"type": "analyse", "id": "live", "samples": 4, "seed": 3}))
            while True:
                reply = check_reply(json.loads(ws.recv(timeout=60)))
                if reply["type"] != "update":
                    break
            assert reply["type"] == "analysis" and reply["reply_to"] == "live"
            assert reply["samples"] == 4 and reply["estimates"]
    finally:
        server.stop()
