"""``cambio serve`` and the ``analyse`` request: a connection may ask only for its own
seat, and a table the server made (no hints) refuses it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from cambio.server.app import ServerConfig, create_app
from protocol_clients import check_reply


def _ask(ws: Any, message: dict[str, Any]) -> dict[str, Any]:
    ws.send_text(json.dumps(message))
    while True:
        reply = check_reply(json.loads(ws.receive_text()))
        if reply["type"] != "update":
            return reply


def test_a_connection_asks_only_for_its_own_seat(tmp_path: Path) -> None:
    config = ServerConfig(
        store=tmp_path / "tables",
        max_tables=4,
        bot_delay=0.0,
        requests_per_second=1000,
        creates_per_minute=1000,
    )
    with TestClient(create_app(config)) as client:
        response = client.post("/api/tables", json={"variant": "practice", "players": 2, "seed": 4})
        assert response.status_code == 201, response.text
        made = response.json()
        name = made["table"]
        with (
            client.websocket_connect(f"/ws?token={made['tokens']['0']}") as me,
            client.websocket_connect(f"/ws?token={made['spectator']}") as watcher,
        ):
            me.receive_text()  # the update sent on connecting
            watcher.receive_text()
            other = _ask(me, {"type": "analyse", "table": name, "seat": 1})
            assert other["code"] == "wrong-seat"
            spying = _ask(watcher, {"type": "analyse", "table": name, "seat": 0})
            assert spying["code"] == "wrong-seat"
            own = _ask(me, {"type": "analyse", "table": name, "seat": 0, "samples": 2})
            assert own["code"] == "forbidden" and "hints" in own["message"]
