"""``cambio serve`` as a real process over real WebSockets: every message, every error,
and the security of tokens.

The server runs on a free loopback port in a child process; the clients are the
``websockets`` library's, so this is what a browser or another program meets. Every
message the server sends is checked against the schema shipped in the package.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from cambio.protocol import ERROR_CODES
from live_server import LiveServer
from protocol_clients import SEAT_REFUSALS, check_reply

ENGINE_ONLY = {"unknown-table", "table-exists", "bad-save", "internal", "bad-rules"}
"""Codes a WebSocket cannot earn: its table is fixed by its token, it cannot load or
name tables, and ``bad-rules`` belongs to HTTP create (tested with the in-process app)."""


class Client:
    """One real WebSocket: requests answered in order, pushed updates kept aside."""

    def __init__(self, server: LiveServer, token: str) -> None:
        self._cm = connect(server.url(token), open_timeout=30, max_size=1 << 22)
        self.ws = self._cm.__enter__()
        self.updates: list[dict[str, Any]] = []
        self.codes: set[str] = set()
        self.types: set[str] = set()
        first = self.receive()
        assert first["type"] in ("update", "error")

    def receive(self) -> dict[str, Any]:
        message = check_reply(json.loads(self.ws.recv(timeout=60)))
        self.types.add(message["type"])
        if message["type"] == "error":
            self.codes.add(message["code"])
        if message["type"] == "update":
            self.updates.append(message)
        return message

    @property
    def latest(self) -> dict[str, Any]:
        return self.updates[-1]

    def send(self, message: object) -> dict[str, Any]:
        self.ws.send(message if isinstance(message, str) else json.dumps(message))
        while True:
            reply = self.receive()
            if reply["type"] != "update":
                return reply

    def refused(self, message: object, code: str) -> dict[str, Any]:
        reply = self.send(message)
        assert reply["type"] == "error" and reply["code"] == code, (message, reply)
        assert reply["message"]
        return reply

    def wait(self, until: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        for _ in range(5000):
            if self.updates and until(self.latest):
                return self.latest
            self.receive()
        raise AssertionError("the awaited update never came")

    def close(self) -> None:
        self._cm.__exit__(None, None, None)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    store: Path = tmp_path_factory.mktemp("live") / "tables"
    live = LiveServer(
        store,
        "--max-bytes",
        "4000",
        "--actions-per-second",
        "40",
        "--max-tables",
        "20",
        "--requests-per-second",
        "1000",
    )
    yield live
    live.stop()


def _moment(view: dict[str, Any]) -> tuple[int, int, bool]:
    return view["at"], view["round"], view["between_rounds"]


def play(seats: dict[int, Client], rng: random.Random) -> dict[str, Any]:
    """Random legal moves (by id or by text) until the round on show has a result."""
    watch = next(iter(seats.values()))
    for _ in range(3000):
        view = watch.latest["view"]
        if view["result"] is not None:
            return view
        actor = seats[view["to_act"]]
        if _moment(actor.latest["view"]) != _moment(view):
            actor.receive()
            continue
        choice = rng.choice(actor.latest["legal"])
        action = choice["text"] if rng.random() < 0.3 else choice["id"]
        acted = actor.send({"type": "act", "action": action, "at": view["at"]})
        assert acted["type"] == "acted" and acted["at"] == view["at"] + 1, acted
        for seat in seats.values():
            seat.wait(lambda u, at=acted["at"]: u["view"]["at"] >= at)
        time.sleep(0.03)  # under the server's 40 actions per second
    raise AssertionError("the round did not end")


def test_every_message_and_error_over_real_websockets(server: LiveServer) -> None:
    made = server.create(variant="elimination", players=3, seed=5)
    seats = {s: Client(server, made["tokens"][str(s)]) for s in range(3)}
    watcher = Client(server, made["spectator"])
    me = seats[0]
    assert me.send({"type": "hello", "protocol": 1, "id": "h"})["reply_to"] == "h"
    assert me.send({"type": "variants"})["bots"]
    for message, code in SEAT_REFUSALS:
        me.refused(message, code)
    watcher.refused({"type": "act", "action": 0, "at": 0}, "forbidden")
    assert watcher.send({"type": "view"})["legal"] == []
    assert watcher.send({"type": "events", "since": 0})["seat"] is None
    assert me.send({"type": "view"})["view"] == me.latest["view"]
    assert me.send({"type": "events"})["events"] == me.latest["events"]

    view = me.latest["view"]
    actor, idle = seats[view["to_act"]], seats[(view["to_act"] + 1) % 3]
    idle.refused({"type": "act", "action": "draw", "at": view["at"]}, "illegal-action")
    actor.refused({"type": "act", "action": "draw", "at": view["at"] + 3}, "stale-action")
    assert actor.send({"type": "act", "action": "draw", "at": view["at"]})["type"] == "acted"
    actor.refused({"type": "act", "action": "draw", "at": view["at"]}, "stale-action")

    ended = play(seats, random.Random(3))
    assert ended["between_rounds"] and not ended["match_over"]
    me.refused({"type": "act", "action": 0, "at": ended["at"]}, "round-over")
    assert seats[1].send({"type": "next-round"})["type"] == "round-started"
    for seat in seats.values():
        seat.wait(lambda u: u["view"]["round"] == 2 and not u["view"]["between_rounds"])

    single = server.create(variant="practice", players=3, seed=2)
    singles = {s: Client(server, single["tokens"][str(s)]) for s in range(3)}
    over = play(singles, random.Random(5))
    assert over["match_over"]
    singles[0].refused({"type": "act", "action": 0, "at": over["at"]}, "match-over")
    me.refused({"type": "rematch"}, "match-running")  # the elimination match goes on
    assert singles[2].send({"type": "rematch"})["type"] == "rematched"
    singles[0].wait(lambda u: not u["view"]["match_over"] and u["view"]["at"] == 0)
    hasty = singles[1]
    codes = [hasty.send({"type": "act", "action": 0, "at": 0})["code"] for _ in range(60)]
    assert "rate-limited" in codes

    refused = Client(server, "forged-token")
    assert refused.codes == {"unauthorized"}
    with pytest.raises(ConnectionClosed):
        refused.receive()
    every = [*seats.values(), *singles.values(), watcher, refused]
    seen = set().union(*(c.codes for c in every))
    assert seen >= set(ERROR_CODES) - ENGINE_ONLY - {"expired-token", "too-many-tables"}, (
        set(ERROR_CODES) - ENGINE_ONLY - seen
    )
    types = set().union(*(c.types for c in every))
    assert types >= {"hello", "variants", "view", "events", "acted", "round-started", "update"}
    for client in every:
        client.close()


def test_a_token_acts_and_looks_only_for_its_own_seat(server: LiveServer) -> None:
    made = server.create(variant="practice", players=3, seed=21)
    seats = {s: Client(server, made["tokens"][str(s)]) for s in range(3)}
    view = seats[0].latest["view"]
    owner = view["to_act"]
    thief = seats[(owner + 1) % 3]
    theirs = seats[owner].latest["legal"][0]
    thief.refused({"type": "act", "action": theirs["id"], "at": view["at"]}, "wrong-seat")
    thief.refused(
        {"type": "act", "seat": owner, "action": theirs["id"], "at": view["at"]}, "wrong-seat"
    )
    thief.refused({"type": "act", "action": theirs["text"], "at": view["at"]}, "illegal-action")
    thief.refused({"type": "view", "seat": owner}, "wrong-seat")
    thief.refused({"type": "events", "seat": owner, "since": 0}, "wrong-seat")
    thief.refused({"type": "view", "table": "t1"}, "forbidden")
    assert seats[owner].send({"type": "view"})["view"]["at"] == view["at"]  # nothing moved
    play(seats, random.Random(8))
    for seat, client in seats.items():
        assert all(u["view"]["seat"] == seat for u in client.updates)
        assert all(a["player"] == seat for u in client.updates for a in u["legal"])
        pushed = [e for u in client.updates for e in u["events"]]
        assert client.send({"type": "events"})["events"] == pushed  # all of it, once
    for client in seats.values():
        client.close()


def test_missing_forged_and_expired_tokens_are_refused(tmp_path: Path) -> None:
    live = LiveServer(tmp_path / "tables", "--token-hours", "0.0004")  # 1.44 s
    try:
        made = live.create(variant="practice", seed=1)
        for token, code in (("", "unauthorized"), ("x" * 32, "unauthorized")):
            client = Client(live, token)
            assert client.codes == {code}
            with pytest.raises(ConnectionClosed) as closed:
                client.receive()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
        forged = made["tokens"]["0"][:-2] + (
            "AA" if not made["tokens"]["0"].endswith("AA") else "BB"
        )
        assert Client(live, forged).codes == {"unauthorized"}
        good = Client(live, made["tokens"]["0"])
        assert good.codes == set() and good.latest["view"]["seat"] == 0
        time.sleep(1.6)
        good.refused({"type": "view"}, "expired-token")
        late = Client(live, made["tokens"]["1"])
        assert late.codes == {"expired-token"}
        with pytest.raises(ConnectionClosed) as closed:
            late.receive()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403
        response = httpx.post(
            live.base + "/api/tables",
            content=b"{",
            headers={"content-type": "application/json"},
            timeout=30,
        )
        assert response.status_code == 400 and response.json()["code"] == "bad-json"
    finally:
        live.stop()
