"""``cambio serve`` against hostile clients: each way a stranger could fill, freeze or
crash the server, tried on loopback, and what the server does instead.

* Filling: one client's creates hit its own limits (tables held, tables a minute) while
  another client still creates; expired, abandoned and finished tables leave at the
  next sweep (also after a restart), which frees their places.
* Cross-site: only the server's own pages (and ``origins``) create tables and connect;
  a ``text/plain`` fetch or a form gets 415, a foreign ``Origin`` 403 (a WebSocket:
  ``forbidden`` and close code 4403); links come from ``public_url`` or the socket's
  own address, never from the ``Host`` header.
* Freezing: a client that never reads, or reads slowly, is closed once it falls behind
  (or, reading nothing at all, once it leaves a ping unanswered); the players of its
  table keep getting their answers meanwhile. An update is encoded once per audience;
  connections are capped per table, per link and per client; every kind of request is
  rate-limited per link, however many sockets it opens; the variants list is made once.
* Size: a table's updates stay small (no rule text in them; huge names and huge legal
  action lists are refused at creation).
* Bad input: deep nesting, binary frames, text that is not UTF-8, oversized messages
  and bodies, long request lines, slow or silent connections: each is answered (the
  protocol's error reply, or an HTTP status) in bounded memory, with no traceback.

The in-process tests use Starlette's TestClient; what only uvicorn sees (raw sockets,
timeouts, buffers) runs against a real ``cambio serve`` process on a free port.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import random
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from cambio.server import app as server_app
from cambio.server.app import ServerConfig, create_app
from live_server import LiveServer
from protocol_clients import check_reply

PROXY = "testclient"
"""The TestClient's own address: trusted as a proxy, so ``X-Forwarded-For`` names the
client of each request (how these tests play several clients)."""


def config_for(tmp_path: Path, **fields: Any) -> ServerConfig:
    base: dict[str, Any] = {
        "store": tmp_path / "tables",
        "bot_delay": 0.0,
        "trust_proxy": (PROXY,),
        "creates_per_minute": 1000.0,
        "requests_per_second": 1000.0,
        "actions_per_second": 1000.0,
        "checkpoint_seconds": 0.2,
    }
    return ServerConfig(**{**base, **fields})


OPEN: list[Conn] = []
"""In-process WebSockets still open: closed before their server stops (an open one
holds up the TestClient's exit)."""


@contextlib.contextmanager
def running(config: ServerConfig) -> Iterator[TestClient]:
    with TestClient(create_app(config)) as client:
        try:
            yield client
        finally:
            while OPEN:
                OPEN.pop().close()


def create(
    client: TestClient, who: str = "198.51.100.1", status: int = 201, **fields: Any
) -> dict[str, Any]:
    response = client.post("/api/tables", json=fields, headers={"x-forwarded-for": who})
    assert response.status_code == status, response.text
    reply: dict[str, Any] = check_reply(response.json()) if status != 201 else response.json()
    return reply


def wait_until(condition: Callable[[], bool], seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.02)


class Conn:
    """One in-process WebSocket: replies in order, updates kept aside."""

    def __init__(self, client: TestClient, token: str, **headers: str) -> None:
        self._cm = client.websocket_connect(f"/ws?token={token}", headers=headers)
        self.ws = self._cm.__enter__()
        self.updates: list[dict[str, Any]] = []
        self.texts: list[str] = []

    def receive(self) -> dict[str, Any]:
        text = self.ws.receive_text()
        self.texts.append(text)
        message = check_reply(json.loads(text))
        if message["type"] == "update":
            self.updates.append(message)
        return message

    def first(self) -> dict[str, Any]:
        """The first message: the update on connecting, or the refusal."""
        return self.receive()

    def send(self, message: object) -> dict[str, Any]:
        if isinstance(message, bytes):
            self.ws.send_bytes(message)
        else:
            self.ws.send_text(message if isinstance(message, str) else json.dumps(message))
        while True:
            reply = self.receive()
            if reply["type"] != "update":
                return reply

    def closed_with(self) -> int:
        with pytest.raises(WebSocketDisconnect) as closed:
            while True:
                self.receive()
        return closed.value.code

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._cm.__exit__(None, None, None)


def opened(client: TestClient, token: str, **headers: str) -> Conn:
    conn = Conn(client, token, **headers)
    OPEN.append(conn)
    return conn


# ---------------------------------------------------------------------------------------
# Filling the server


def test_one_client_fills_only_its_own_share(tmp_path: Path) -> None:
    config = config_for(tmp_path, max_tables=5, tables_per_client=3)
    with running(config) as client:
        for _ in range(3):
            create(client, "203.0.113.7")
        refused = create(client, "203.0.113.7", status=429)
        assert refused["code"] == "too-many-tables" and "one client" in refused["message"]
        create(client, "203.0.113.8")  # another client still creates
        # an IPv6 client is its /64: two addresses of one network share a share
        create(client, "2001:db8::1")
        assert create(client, "2001:db8::2", status=503)["code"] == "too-many-tables"
        assert len(client.app.state.game.engine.tables) == 5  # type: ignore[attr-defined]

    config = config_for(tmp_path / "rate", creates_per_minute=2)
    with running(config) as client:
        create(client, "203.0.113.7")
        create(client, "203.0.113.7")
        refused = create(client, "203.0.113.7", status=429)
        assert refused["code"] == "rate-limited" and "a minute" in refused["message"]
        create(client, "203.0.113.9")

    # without trust_proxy the header is ignored: every request is the peer's own
    config = config_for(tmp_path / "untrusted", trust_proxy=(), tables_per_client=2)
    with running(config) as client:
        create(client, "203.0.113.1")
        create(client, "203.0.113.2")
        assert create(client, "203.0.113.3", status=429)["code"] == "too-many-tables"


def test_expired_abandoned_and_finished_tables_free_their_places(tmp_path: Path) -> None:
    config = config_for(tmp_path, max_tables=2, token_seconds=0.5, sweep_seconds=0.05)
    store = config.store
    with running(config) as client:
        game = client.app.state.game  # type: ignore[attr-defined]
        first = create(client, variant="practice")
        create(client, variant="practice")
        assert create(client, status=503)["code"] == "too-many-tables"
        watcher = opened(client, first["spectator"])
        assert watcher.first()["type"] == "update"
        wait_until(lambda: not game.engine.tables)
        closed = watcher.receive()
        assert closed["code"] == "expired-token" and "links expired" in closed["message"]
        assert watcher.closed_with() == 4403
        wait_until(lambda: not list(store.glob("*.json")))  # their files went with them
        create(client, variant="practice")  # the places are free again
        late = opened(client, first["tokens"]["0"])
        assert late.first()["code"] == "unauthorized"
        assert late.closed_with() == 4401

    # abandoned: nothing happened for idle_seconds; a table in play stays
    config = config_for(tmp_path / "idle", idle_seconds=0.6, sweep_seconds=0.05)
    with running(config) as client:
        game = client.app.state.game  # type: ignore[attr-defined]
        idle = create(client, variant="practice", seed=1)
        busy = create(client, variant="practice", seed=1)
        seats = {s: opened(client, busy["tokens"][str(s)]) for s in range(3)}
        latest = {s: c.first() for s, c in seats.items()}
        started = time.monotonic()
        while time.monotonic() - started < 1.2:
            view = latest[0]["view"]
            actor = view["to_act"]
            legal = latest[actor]["legal"]
            pick = next(a for a in legal if a["kind"] in ("draw", "discard", "skip"))
            acted = seats[actor].send({"type": "act", "action": pick["id"], "at": view["at"]})
            assert acted["type"] == "acted", acted
            for s, c in seats.items():
                while c.updates[-1]["view"]["at"] < view["at"] + 1:
                    c.receive()
                latest[s] = c.updates[-1]
            time.sleep(0.1)
        assert idle["table"] not in game.engine.tables
        assert busy["table"] in game.engine.tables

    # finished: a match that is over leaves finished_seconds after its end, archived
    config = config_for(tmp_path / "over", finished_seconds=0.3, sweep_seconds=0.05, archive=True)
    with running(config) as client:
        game = client.app.state.game  # type: ignore[attr-defined]
        made = create(client, variant="micro", seed=3, bots={"1": "random"})
        seat = opened(client, made["tokens"]["0"])
        seat.first()
        rng = random.Random(1)
        for _ in range(50):
            update = seat.updates[-1]
            if update["view"]["match_over"]:
                break
            if update["view"]["to_act"] == 0 and update["legal"]:
                seat.send(
                    {
                        "type": "act",
                        "action": rng.choice(update["legal"])["id"],
                        "at": update["view"]["at"],
                    }
                )
            else:
                seat.receive()
        assert seat.updates[-1]["view"]["match_over"]
        wait_until(lambda: made["table"] not in game.engine.tables)
        # the files are written and removed by the store's writer thread, right after
        archived = config.store / "archive" / f"{made['table']}.json"
        wait_until(lambda: not (config.store / f"{made['table']}.json").exists())
        wait_until(archived.exists)
        assert json.loads(archived.read_text())["match"]["actions"]

    # a restart: tables whose links expired while no server ran are removed at once
    config = config_for(tmp_path / "restart", token_seconds=0.2, sweep_seconds=3600)
    with running(config) as client:
        made = create(client, variant="practice")
    assert (config.store / f"{made['table']}.json").exists()
    time.sleep(0.3)
    with running(config) as client:
        game = client.app.state.game  # type: ignore[attr-defined]
        wait_until(lambda: not game.engine.tables)
        wait_until(lambda: not (config.store / f"{made['table']}.json").exists())


# ---------------------------------------------------------------------------------------
# Cross-site requests


def test_only_the_servers_own_pages_create_tables(tmp_path: Path) -> None:
    body = json.dumps({"variant": "practice"})
    config = config_for(tmp_path, origins=("https://friend.example",))
    with running(config) as client:

        def post(headers: dict[str, str], content: str = body) -> httpx.Response:
            return client.post("/api/tables", content=content, headers=headers)

        # what a page of another site can send without asking first (no preflight)
        for kind in ("text/plain;charset=UTF-8", "application/x-www-form-urlencoded"):
            assert post({"content-type": kind}).status_code == 415, kind
            response = post({"content-type": kind, "origin": "https://evil.example"})
            assert response.status_code == 403, kind  # refused for its origin first
        form = client.post("/api/tables", data={"variant": "practice"})
        assert form.status_code == 415
        assert check_reply(form.json())["code"] == "bad-json"
        assert post({}).status_code == 415  # no Content-Type at all
        foreign = post({"content-type": "application/json", "origin": "https://evil.example"})
        assert foreign.status_code == 403 and foreign.json()["code"] == "forbidden"
        assert post({"content-type": "application/json", "origin": "null"}).status_code == 403
        for origin in ("http://testserver", "https://friend.example"):
            allowed = post({"content-type": "application/json", "origin": origin})
            assert allowed.status_code == 201, origin
        # no Origin at all: not a page (curl, a program) -- allowed
        made = post({"content-type": "application/json; charset=utf-8", "host": "evil.example"})
        assert made.status_code == 201
        links = made.json()["links"]["0"] + made.json()["spectator_link"]
        assert "evil.example" not in links and links.startswith("http://testserver/#join=")

        # a WebSocket from another site's page
        token = made.json()["tokens"]["0"]
        foreign_ws = opened(client, token, origin="https://evil.example")
        refusal = foreign_ws.first()
        assert refusal["code"] == "forbidden" and "evil.example" in refusal["message"]
        assert foreign_ws.closed_with() == 4403
        own = opened(client, token, origin="http://testserver")
        assert own.first()["type"] == "update"
        assert opened(client, token).first()["type"] == "update"  # not a page

    config = config_for(tmp_path / "public", public_url="https://cambio.example.org/")
    with running(config) as client:
        made = create(client)
        assert made["links"]["0"].startswith("https://cambio.example.org/#join=")
        assert made["spectator_link"].startswith("https://cambio.example.org/#watch=")
        headers = {"content-type": "application/json", "origin": "https://cambio.example.org"}
        assert client.post("/api/tables", content=body, headers=headers).status_code == 201
        headers["origin"] = "http://testserver"  # not the public address
        assert client.post("/api/tables", content=body, headers=headers).status_code == 403


# ---------------------------------------------------------------------------------------
# Connections: encoded once, capped, rate-limited per link


def test_an_update_is_encoded_once_per_audience(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with running(config_for(tmp_path)) as client:
        made = create(client, variant="practice", seed=2)
        seats = {s: opened(client, made["tokens"][str(s)]) for s in range(3)}
        watchers = [opened(client, made["spectator"]) for _ in range(10)]
        for conn in (*seats.values(), *watchers):
            conn.first()
        encoded: list[str] = []
        encode = server_app._encode

        def counted(message: dict[str, Any]) -> str:
            text = encode(message)
            encoded.append(message["type"])
            return text

        monkeypatch.setattr(server_app, "_encode", counted)
        view = seats[0].updates[-1]["view"]
        actor = seats[view["to_act"]]
        draw = next(a for a in actor.updates[-1]["legal"] if a["kind"] == "draw")
        assert (
            actor.send({"type": "act", "action": draw["id"], "at": view["at"]})["type"] == "acted"
        )
        for conn in (*seats.values(), *watchers):
            while conn.updates[-1]["view"]["at"] == view["at"]:
                conn.receive()
        # one reply, one update per seat, one for all ten spectators
        assert sorted(encoded) == ["acted"] + ["update"] * 4
        assert len({w.texts[-1] for w in watchers}) == 1


def test_connections_are_capped_per_table_link_and_client(tmp_path: Path) -> None:
    config = config_for(
        tmp_path, connections_per_table=4, connections_per_token=2, connections_per_client=6
    )
    with running(config) as client:
        made = create(client, variant="practice")
        mine = made["tokens"]["0"]
        for _ in range(2):
            assert opened(client, mine).first()["type"] == "update"
        third = opened(client, mine)
        refused = third.first()
        assert refused["code"] == "rate-limited" and "one link" in refused["message"]
        assert third.closed_with() == 4429
        crowd = {"x-forwarded-for": "192.0.2.9"}
        for _ in range(4):  # the table's spectators, from one client
            assert opened(client, made["spectator"], **crowd).first()["type"] == "update"
        for _ in range(3):  # no room for more spectators
            flood = opened(client, made["spectator"])
            refused = flood.first()
            assert refused["code"] == "rate-limited" and "spectators" in refused["message"]
            assert flood.closed_with() == 4429
        # a crowd of spectators never keeps a player out
        assert opened(client, made["tokens"]["1"]).first()["type"] == "update"
        # one client's connections, across tables
        other = create(client, variant="practice")
        extra = [opened(client, other["spectator"], **crowd).first() for _ in range(3)]
        assert [f["type"] for f in extra] == ["update", "update", "error"]
        assert extra[-1]["code"] == "rate-limited" and "one client" in extra[-1]["message"]


def test_every_request_kind_is_limited_per_link_across_sockets(tmp_path: Path) -> None:
    config = config_for(tmp_path, actions_per_second=4, requests_per_second=5)
    with running(config) as client:
        game = client.app.state.game  # type: ignore[attr-defined]
        now = [1000.0]
        game.clock = lambda: now[0]  # the buckets refill only when the test says
        made = create(client, variant="practice", seed=1)
        token = made["tokens"]["0"]
        one, two = opened(client, token), opened(client, token)
        one.first(), two.first()
        requests: list[object] = [
            {"type": "view"},
            {"type": "events"},
            {"type": "hello"},
            {"type": "variants"},
            "not json",
            {"type": "view"},
        ]
        codes = [
            (one if i % 2 else two).send(message).get("code") for i, message in enumerate(requests)
        ]
        assert codes[:4] == [None, None, None, None] and codes[4:] == ["bad-json", "rate-limited"]
        acts = [
            (one if i % 2 else two).send({"type": "act", "action": "draw", "at": 99})["code"]
            for i in range(6)
        ]
        assert acts == ["stale-action"] * 4 + ["rate-limited"] * 2  # shared by both sockets
        other = opened(client, made["tokens"]["1"])
        other.first()
        assert other.send({"type": "view"})["type"] == "view"  # another link's own limits
        now[0] += 0.5  # the buckets refill
        assert one.send({"type": "view"})["type"] == "view"


def test_asking_for_the_variants_in_a_loop_costs_little(tmp_path: Path) -> None:
    """The variants reply loads every bundled profile (tens of milliseconds): the
    server makes it once."""
    with running(config_for(tmp_path)) as client:
        game = client.app.state.game  # type: ignore[attr-defined]
        asked: list[object] = []
        handle = game.engine.handle

        def counting(message: Any) -> Any:
            asked.append(message)
            return handle(message)

        game.engine.handle = counting
        first = client.get("/api/variants").json()
        for _ in range(50):
            assert client.get("/api/variants").json() == first
        assert [m for m in asked if isinstance(m, dict) and m.get("type") == "variants"] == [
            {"type": "variants"}
        ]


# ---------------------------------------------------------------------------------------
# Size: what one table's updates carry


_TWELVE_SEATS = """extends = "practice"
name = "%s"
[players]
max = 12
default = 12
[deck]
decks = 4
[grid]
rows = [6, 6]
[[powers.table]]
ranks = ["2", "3", "4", "5", "6", "A"]
name = "any two"
steps = [{ action = "swap", scope = "any-two" }]
"""


def test_a_large_rule_file_makes_no_large_update(tmp_path: Path) -> None:
    with running(config_for(tmp_path)) as client:
        # 12 seats of 12 cards and a swap of any two: 10,297 legal actions in one
        # decision, an update of over a megabyte for the seat that decides
        huge = create(client, status=400, rules=_TWELVE_SEATS % "big", seed=1)
        assert huge["code"] == "bad-rules" and "legal actions" in huge["message"]
        named = create(client, status=400, rules=_TWELVE_SEATS % ("N" * 5000), seed=1)
        assert named["code"] == "bad-rules" and "name" in named["message"]
        # a rule file near the size limit (comments): none of its text is in any update
        text = "# house notes\n" * 3900 + 'extends = "practice"\nname = "house"\n'
        assert len(text) > 50_000
        made = create(client, rules=text, seed=1)
        seats = {s: opened(client, made["tokens"][str(s)]) for s in range(3)}
        for conn in seats.values():
            conn.first()
        view = seats[0].updates[-1]["view"]
        actor = seats[view["to_act"]]
        draw = next(a for a in actor.updates[-1]["legal"] if a["kind"] == "draw")
        actor.send({"type": "act", "action": draw["id"], "at": view["at"]})
        for conn in seats.values():
            while conn.updates[-1]["view"]["at"] == view["at"]:
                conn.receive()
            assert "house notes" not in conn.texts[-1]
            assert len(conn.texts[-1].encode()) < 6000, len(conn.texts[-1])


# ---------------------------------------------------------------------------------------
# Bad input, in process


def test_bad_input_gets_an_answer_in_process(tmp_path: Path) -> None:
    config = config_for(tmp_path, max_bytes=4000)
    with running(config) as client:
        made = create(client, variant="practice", seed=1)
        seat = opened(client, made["tokens"]["0"])
        seat.first()
        deep = "[" * 1000 + "]" * 1000
        assert seat.send(deep)["code"] == "bad-json"
        assert (
            seat.send('{"type": "view", "id": ' + "[" * 70 + "]" * 70 + "}")["code"] == "bad-json"
        )
        assert seat.send('{"type": "view", "id": "' + "[" * 90 + '"}')["type"] == "view"
        assert seat.send(b"\x00\x01binary")["code"] == "bad-json"
        assert seat.send("x" * 4001)["code"] == "too-large"
        assert seat.send({"type": "view"})["type"] == "view"  # the socket still serves

        headers = {"content-type": "application/json"}
        response = client.post("/api/tables", content=deep, headers=headers)
        assert response.status_code == 400 and response.json()["code"] == "bad-json"

        def chunks() -> Iterator[bytes]:  # no Content-Length: chunked, over the limit
            for _ in range(100):
                yield b" " * 1000

        response = client.post("/api/tables", content=chunks(), headers=headers)
        assert response.status_code == 413 and response.json()["code"] == "too-large"
        headers["content-length"] = str(10**9)
        response = client.post("/api/tables", content=b"{}", headers=headers)
        assert response.status_code == 413


# ---------------------------------------------------------------------------------------
# A real server: what uvicorn and its sockets see

HEADER_TIMEOUT = 1.0
PING = 1.0
"""Seconds between the live server's pings; a peer that answers none is dropped."""
TOO_SLOW = struct.pack("!H", 4408) + b"too slow"
"""The start of the close frame's payload a connection that fell behind gets."""


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = LiveServer(
        tmp_path_factory.mktemp("hostile") / "tables",
        "--max-bytes", "4000",
        "--actions-per-second", "1000",
        "--requests-per-second", "1000",
        "--header-timeout", str(HEADER_TIMEOUT),
        "--send-timeout", "1",
        "--send-queue", "8",
        "--connections-per-table", "24",
        "--bot-delay", "0",
        "--ping-seconds", str(PING),
    )  # fmt: skip
    yield server
    server.stop()


def _address(server: LiveServer) -> tuple[str, int]:
    host, port = server.base.removeprefix("http://").rsplit(":", 1)
    return host, int(port)


def raw_socket(server: LiveServer, receive_buffer: int | None = None) -> socket.socket:
    sock = socket.socket()
    if receive_buffer is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.connect(_address(server))
    sock.settimeout(10)
    return sock


def raw_websocket(
    server: LiveServer, token: str, receive_buffer: int | None = None, *, answer: bool = True
) -> socket.socket:
    """A WebSocket opened by hand; with ``answer``, once the handshake's answer came
    (frames sent before it would be lost: a client waits for it). Only the answer's
    head is read, byte by byte: what follows is left in the socket."""
    sock = raw_socket(server, receive_buffer)
    key = base64.b64encode(os.urandom(16)).decode()
    host, port = _address(server)
    sock.sendall(
        f"GET /ws?token={token} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    if answer:
        head = b""
        while not head.endswith(b"\r\n\r\n"):
            head += sock.recv(1)
        assert head.startswith(b"HTTP/1.1 101"), head
    return sock


def frame(opcode: int, payload: bytes) -> bytes:
    """A masked client frame."""
    mask = os.urandom(4)
    size = len(payload)
    head = bytes([0x80 | opcode])
    if size < 126:
        head += bytes([0x80 | size])
    elif size < 1 << 16:
        head += bytes([0x80 | 126]) + struct.pack("!H", size)
    else:
        head += bytes([0x80 | 127]) + struct.pack("!Q", size)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def until_closed(sock: socket.socket, seconds: float = 10.0) -> bytes:
    """Everything the server sends until it closes the connection (or resets it)."""
    sock.settimeout(seconds)
    received = b""
    with contextlib.suppress(ConnectionResetError):
        while chunk := sock.recv(65536):
            received += chunk
    return received


def ws_connect(server: LiveServer, token: str, **options: Any) -> ClientConnection:
    return connect(server.url(token), open_timeout=10, max_size=1 << 22, **options)


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def _play_quickly(seats: dict[int, ClientConnection], actions: int) -> tuple[int, float]:
    """Draw-and-discard moves by whoever must act: how many were acknowledged, and the
    slowest acknowledgement in seconds."""
    latest = {s: json.loads(ws.recv(timeout=10)) for s, ws in seats.items()}
    worst = 0.0
    acked = 0
    while acked < actions:
        view = latest[0]["view"]
        if view["result"] is not None:
            break
        actor = view["to_act"]
        legal = latest[actor]["legal"]
        pick = next((a for a in legal if a["kind"] in ("draw", "discard", "skip")), legal[0])
        started = time.perf_counter()
        seats[actor].send(json.dumps({"type": "act", "action": pick["id"], "at": view["at"]}))
        while (reply := json.loads(seats[actor].recv(timeout=10)))["type"] == "update":
            latest[actor] = reply
        worst = max(worst, time.perf_counter() - started)
        assert reply["type"] == "acted", reply
        acked += 1
        for s, ws in seats.items():
            while latest[s]["view"]["at"] < reply["at"]:
                latest[s] = json.loads(ws.recv(timeout=10))
    return acked, worst


def test_silent_and_slow_readers_do_not_hold_up_their_table(
    live: LiveServer, capfd: pytest.CaptureFixture[str]
) -> None:
    made = live.create(variant="practice", players=3, seed=5)
    view = frame(0x1, json.dumps({"type": "view"}).encode())
    # spectators that never read a byte (small buffers, so they fill quickly)
    silent = [raw_websocket(live, made["spectator"], receive_buffer=4096) for _ in range(3)]
    # one that asks for 300 views and reads none of the answers
    asker = raw_websocket(live, made["spectator"], receive_buffer=4096)
    asker.sendall(view * 300)
    # one that asks for as many and reads one answer every 20 ms
    slow = raw_websocket(live, made["spectator"], receive_buffer=4096)
    slow.sendall(view * 300)
    slow_got: list[bytes] = []

    def read_slowly() -> None:
        with contextlib.suppress(OSError):
            while chunk := slow.recv(4096):
                slow_got.append(chunk)
                time.sleep(0.02)
        slow_got.append(b"")  # the end

    reader = threading.Thread(target=read_slowly, daemon=True)
    reader.start()
    opened = contextlib.ExitStack()
    seats = {s: opened.enter_context(ws_connect(live, made["tokens"][str(s)])) for s in range(3)}
    try:
        actions, worst = _play_quickly(seats, 60)
        assert actions >= 40
        assert worst < 1.0, f"an action took {worst:.2f} s to be acknowledged"
        received = until_closed(asker)  # closed as too slow, with what it was sent
        assert 0 < len(received) < 2_000_000
        assert TOO_SLOW in received[-100:]  # the close frame: 4408, too slow
        reader.join(20)
        assert slow_got and slow_got[-1] == b"", "the slow reader was never closed"
        assert TOO_SLOW in b"".join(slow_got)[-100:]
        assert sum(map(len, slow_got)) < 300 * 3000  # it never got all it asked for
        # the spectators that read nothing answer no ping either: they are dropped
        for sock in silent:
            until_closed(sock, 4 * PING + 5)
    finally:
        opened.close()
        for sock in (*silent, asker, slow):
            sock.close()
    assert "Traceback" not in capfd.readouterr().err


def test_a_spectator_flood_is_capped_and_actions_stay_quick(live: LiveServer) -> None:
    made = live.create(variant="practice", players=3, seed=6)
    watchers: list[ClientConnection] = []
    refused = 0
    with contextlib.ExitStack() as stack:
        for _ in range(30):  # 24 spectators per table
            ws = stack.enter_context(ws_connect(live, made["spectator"], max_queue=1000))
            first = json.loads(ws.recv(timeout=10))
            if first["type"] == "update":
                watchers.append(ws)
                continue
            assert first["code"] == "rate-limited" and "spectators" in first["message"]
            with pytest.raises(ConnectionClosed):
                ws.recv(timeout=10)
            assert ws.close_code == 4429
            refused += 1
        seats = {s: stack.enter_context(ws_connect(live, made["tokens"][str(s)])) for s in range(3)}
        assert len(watchers) == 24 and refused == 6
        actions, worst = _play_quickly(seats, 20)
        assert actions >= 20 and worst < 0.5, worst
        for ws in watchers:  # every spectator sees every action
            seen = 0
            while seen < actions:
                seen = json.loads(ws.recv(timeout=10))["view"]["at"]


def test_bad_input_gets_an_answer_from_the_real_server(
    live: LiveServer, capfd: pytest.CaptureFixture[str]
) -> None:
    made = live.create(variant="practice", seed=7)
    token = made["tokens"]["0"]
    with ws_connect(live, token) as ws:
        ws.recv(timeout=10)
        ws.send(b"\x00\x01")
        assert json.loads(ws.recv(timeout=10))["code"] == "bad-json"
        ws.send("[" * 1000 + "]" * 1000)
        assert json.loads(ws.recv(timeout=10))["code"] == "bad-json"
        ws.send("x" * 5000)  # over --max-bytes: refused, the socket stays
        assert json.loads(ws.recv(timeout=10))["code"] == "too-large"
        ws.send("x" * (2 << 20))  # over what the library reads at all: refused, closed
        assert json.loads(ws.recv(timeout=10))["code"] == "too-large"
        with pytest.raises(ConnectionClosed):
            ws.recv(timeout=10)
        assert ws.close_code == 1009

    # a page of another site; the server's own page (its listening address)
    with ws_connect(live, token, origin="https://evil.example") as ws:
        refusal = json.loads(ws.recv(timeout=10))
        assert refusal["code"] == "forbidden"
        with pytest.raises(ConnectionClosed):
            ws.recv(timeout=10)
        assert ws.close_code == 4403
    for origin in (live.base, live.base.replace("127.0.0.1", "localhost")):
        with ws_connect(live, token, origin=origin) as ws:
            assert json.loads(ws.recv(timeout=10))["type"] == "update"

    # text that is not UTF-8: an error reply, then the library's close (1007)
    sock = raw_websocket(live, token)
    sock.sendall(frame(0x1, b"\xff\xfe{}"))
    answer = until_closed(sock)
    assert b'"bad-json"' in answer and b"not UTF-8" in answer
    sock.close()

    # a request head over the limit, sent at once or by pieces: 431
    with raw_websocket(live, "a" * 8200, answer=False) as sock:
        assert until_closed(sock).startswith(b"HTTP/1.1 431")
    with raw_socket(live) as sock:
        sock.sendall(b"GET /" + b"a" * 5000)
        time.sleep(0.1)
        sock.sendall(b"a" * 5000)
        assert until_closed(sock).startswith(b"HTTP/1.1 431")

    # a 100 MB body is refused as it comes, in bounded memory: declared, chunked, or lied
    pid = live.process.pid
    before = rss_kb(pid)
    head = b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    with raw_socket(live) as sock:
        sock.sendall(head + b"Content-Length: 100000000\r\n\r\n" + b"{" * 65536)
        assert until_closed(sock).startswith(b"HTTP/1.1 413")
    for framing in (b"Transfer-Encoding: chunked\r\n\r\n", b"Content-Length: 10\r\n\r\n"):
        sock = raw_socket(live)
        sock.sendall(head + framing)
        answer = b""
        with contextlib.suppress(OSError):
            for _ in range(1600):  # 100 MB in 64 KiB pieces, until the server says no
                piece = b" " * 65536
                sock.sendall(b"10000\r\n" + piece + b"\r\n" if b"chunked" in framing else piece)
        answer = until_closed(sock)
        assert answer.startswith((b"HTTP/1.1 413", b"HTTP/1.1 400")), answer[:80]
        sock.close()
    assert rss_kb(pid) - before < 30_000, "the body was read into memory"

    # connections that never send a byte, or send their head too slowly: 408, closed
    silent = [raw_socket(live) for _ in range(200)]
    dripping = raw_socket(live)
    started = time.monotonic()
    with contextlib.suppress(OSError):  # until the server closes it
        for byte in b"GET / HTTP/1.1\r\nHost: x\r\n":
            dripping.sendall(bytes([byte]))
            time.sleep(HEADER_TIMEOUT / 8)
    for sock in (*silent, dripping):
        assert until_closed(sock, 5).startswith(b"HTTP/1.1 408")
        sock.close()
    assert time.monotonic() - started < HEADER_TIMEOUT + 5
    assert "Traceback" not in capfd.readouterr().err
