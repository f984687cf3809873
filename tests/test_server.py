"""``cambio serve`` in process: HTTP, WebSockets, tokens, limits, bots, saving, resuming.

Every message the server sends is checked against the schema shipped in the package.
"""

from __future__ import annotations

import contextlib
import json
import logging
import random
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from cambio.match import Match
from cambio.protocol import ERROR_CODES
from cambio.server.app import ServerConfig, create_app
from cambio.server.journal import Journal, read_saved
from protocol_clients import SEAT_REFUSALS, check_reply, reveals_only_when_over, secrets_of

ENGINE_ONLY = {"unknown-table", "table-exists", "bad-save"}
"""Codes a seat's connection cannot earn: its table is fixed by its token, and it may
not load or name tables (create goes over HTTP)."""


OPEN: list[Seat] = []
"""Connections still open: the client fixture closes them (an open one blocks its exit)."""


class Seat:
    """One WebSocket connection: requests answered in order, updates kept aside."""

    def __init__(self, client: TestClient, token: str) -> None:
        self._cm = client.websocket_connect(f"/ws?token={token}")
        self.ws = self._cm.__enter__()
        OPEN.append(self)
        self.updates: list[dict[str, Any]] = []
        self.texts: list[str] = []
        """Every message received, as the text that came over the socket."""
        self.codes: set[str] = set()
        self.types: set[str] = set()
        self.receive()  # the update sent on connecting

    def receive(self) -> dict[str, Any]:
        text = self.ws.receive_text()
        self.texts.append(text)
        message = check_reply(json.loads(text))
        if message["type"] == "update":
            self.updates.append(message)
        return message

    @property
    def latest(self) -> dict[str, Any]:
        return self.updates[-1]

    def send(self, message: object) -> dict[str, Any]:
        self.ws.send_text(message if isinstance(message, str) else json.dumps(message))
        while True:
            reply = self.receive()
            if reply["type"] != "update":
                self.types.add(reply["type"])
                if reply["type"] == "error":
                    self.codes.add(reply["code"])
                return reply

    def refused(self, message: object, code: str) -> dict[str, Any]:
        reply = self.send(message)
        assert reply["type"] == "error" and reply["code"] == code, (message, reply)
        return reply

    def wait(self, until: Any, limit: int = 2000) -> dict[str, Any]:
        """Read updates until ``until(update)`` holds."""
        for _ in range(limit):
            if self.updates and until(self.latest):
                return self.latest
            self.receive()
        raise AssertionError("the awaited update never came")

    def close(self) -> None:
        if self in OPEN:
            OPEN.remove(self)
            with contextlib.suppress(Exception):  # the server may have closed it already
                self._cm.__exit__(None, None, None)


def close_all() -> None:
    for seat in list(OPEN):
        seat.close()


@pytest.fixture
def config(tmp_path: Path) -> ServerConfig:
    return ServerConfig(
        store=tmp_path / "tables",
        max_tables=4,
        max_bytes=4000,
        actions_per_second=1000,
        bot_delay=0.0,
        requests_per_second=1000,
        creates_per_minute=1000,
    )


@pytest.fixture
def client(config: ServerConfig) -> Iterator[TestClient]:
    with TestClient(create_app(config)) as test_client:
        yield test_client
        close_all()


def create(client: TestClient, **fields: Any) -> dict[str, Any]:
    response = client.post("/api/tables", json=fields)
    assert response.status_code == 201, response.text
    reply: dict[str, Any] = response.json()
    return reply


def _moment(view: dict[str, Any]) -> tuple[int, int, bool]:
    """Where a view stands: next-round shows a new round without a new action."""
    return view["at"], view["round"], view["between_rounds"]


def play(
    seats: dict[int, Seat], rng: random.Random, *, until: str = "match_over"
) -> dict[str, Any]:
    """Random legal moves by whichever connected seat must decide, until ``until``."""
    any_seat = next(iter(seats.values()))
    for _ in range(3000):
        view = any_seat.latest["view"]
        if view[until] or view["match_over"]:
            return view
        actor = view["to_act"]
        if actor in seats and _moment(seats[actor].latest["view"]) == _moment(view):
            legal = seats[actor].latest["legal"]
            choice = rng.choice(legal)
            action = choice["text"] if rng.random() < 0.3 else choice["id"]
            reply = seats[actor].send({"type": "act", "action": action, "at": view["at"]})
            assert reply["type"] == "acted", reply
            for seat in seats.values():
                seat.wait(lambda u, at=reply["at"]: u["view"]["at"] >= at)
        elif actor in seats:
            seats[actor].receive()  # its update is on its way
        else:
            any_seat.receive()  # a bot's move is on its way
    raise AssertionError("the game did not end")


def test_http_create_and_its_errors(client: TestClient, config: ServerConfig) -> None:
    assert client.get("/").status_code == 200
    names = {v["name"] for v in client.get("/api/variants").json()["variants"]}
    assert "snap" in names
    made = create(client, variant="snap", players=3, seed=1, bots={"2": "memory"})
    assert set(made["tokens"]) == {"0", "1"} and made["bots"] == {"2": "memory"}
    assert made["links"]["0"].endswith("/#join=" + made["tokens"]["0"])
    assert made["spectator_link"].endswith("/#watch=" + made["spectator"])
    assert len({*made["tokens"].values(), made["spectator"]}) == 3
    assert all(len(t) >= 32 for t in made["tokens"].values())

    def refused(body: bytes, code: str, status: int = 400) -> None:
        response = client.post(
            "/api/tables", content=body, headers={"content-type": "application/json"}
        )
        assert response.status_code == status and check_reply(response.json())["code"] == code

    refused(b"{nope", "bad-json")
    refused(b"[1]", "bad-message")
    refused(json.dumps({"rules": "x" * 5000}).encode(), "too-large", 413)
    refused(json.dumps({"table": "mine"}).encode(), "bad-field")
    refused(json.dumps({"variant": "nonesuch"}).encode(), "bad-rules")
    refused(json.dumps({"players": "three"}).encode(), "bad-field")
    for _ in range(3):
        create(client)
    refused(json.dumps({}).encode(), "too-many-tables", 503)


def test_websocket_covers_every_message_and_error(client: TestClient) -> None:
    made = create(client, variant="elimination", players=3, seed=5, bots={"2": "random"})
    me, other = Seat(client, made["tokens"]["0"]), Seat(client, made["tokens"]["1"])
    watcher = Seat(client, made["spectator"])
    assert me.send({"type": "hello", "protocol": 1, "id": "h"})["reply_to"] == "h"
    assert me.send({"type": "variants"})["bots"]
    for message, code in SEAT_REFUSALS:
        me.refused(message, code)
    watcher.refused({"type": "act", "action": 0, "at": 0}, "forbidden")
    watcher.refused({"type": "next-round"}, "forbidden")
    watcher.refused({"type": "name", "name": "Eve"}, "forbidden")
    me.refused({"type": "rematch"}, "match-running")
    assert me.send({"type": "name", "name": "Ana"})["type"] == "named"
    assert other.wait(lambda u: u["view"]["names"][0] == "Ana")["view"]["names"][2] == "Robin"
    assert watcher.send({"type": "view"})["legal"] == []
    assert watcher.send({"type": "events", "since": 0})["seat"] is None

    view = me.send({"type": "view"})
    assert view["view"] == me.latest["view"] and view["legal"] == me.latest["legal"]
    me.refused({"type": "act", "action": "draw"}, "missing-field")  # the server needs at
    actor = {0: me, 1: other}[view["view"]["to_act"]] if view["view"]["to_act"] in (0, 1) else None
    if actor is None:  # the bot starts: wait for it
        me.wait(lambda u: u["view"]["to_act"] in (0, 1))
        actor = {0: me, 1: other}[me.latest["view"]["to_act"]]
    idle = other if actor is me else me
    at = actor.latest["view"]["at"]
    idle.refused({"type": "act", "action": "draw", "at": at}, "illegal-action")
    idle.refused({"type": "act", "action": actor.latest["legal"][0]["id"], "at": at}, "wrong-seat")
    actor.refused({"type": "act", "action": "draw", "at": at + 5}, "stale-action")
    acted = actor.send({"type": "act", "action": "draw", "at": at})
    assert acted["type"] == "acted" and acted["at"] == at + 1
    actor.refused({"type": "act", "action": "draw", "at": at}, "stale-action")  # replayed
    events = actor.send({"type": "events"})
    assert events["events"] and events["next"] == len(events["events"])

    rng = random.Random(4)
    view = play({0: me, 1: other}, rng, until="between_rounds")
    assert view["result"] is not None
    me.refused({"type": "act", "action": 0, "at": view["at"]}, "round-over")
    started = other.send({"type": "next-round"})
    assert started["type"] == "round-started" and started["round"] == 2
    me.wait(lambda u: u["view"]["round"] == 2 and not u["view"]["between_rounds"])

    game = client.app.state.game  # type: ignore[attr-defined]
    table = game.engine.tables[made["table"]]
    for _ in range(40):  # play on to the match's end
        view = (
            play({0: me, 1: other}, rng, until="between_rounds")
            if not me.latest["view"]["match_over"]
            else me.latest["view"]
        )
        if view["match_over"]:
            break
        me.send({"type": "next-round"})
        me.wait(lambda u: not u["view"]["between_rounds"])
    assert table.match.is_over
    me.refused({"type": "act", "action": 0, "at": me.latest["view"]["at"]}, "match-over")
    assert other.send({"type": "rematch"})["type"] == "rematched"
    fresh = me.wait(lambda u: not u["view"]["match_over"])
    assert fresh["view"]["round"] == 1 and fresh["view"]["names"][0] == "Ana"
    assert [e["index"] for e in fresh["events"]][:1] == [0]  # the new match's log from its start

    slow = create(client, variant="practice", seed=2)
    game.config = ServerConfig(store=game.config.store, actions_per_second=3, bot_delay=0.0)
    hasty = Seat(client, slow["tokens"]["0"])
    codes = [hasty.send({"type": "act", "action": "draw", "at": 99})["code"] for _ in range(8)]
    assert codes[:3] == ["stale-action"] * 3 and "rate-limited" in codes
    me.codes |= hasty.codes

    with pytest.raises(WebSocketDisconnect):
        Seat(client, "forged-token").receive()
    with pytest.raises(WebSocketDisconnect):
        Seat(client, "").receive()
    game.engine.tables[slow["table"]].meta["expires"] = 0
    hasty.refused({"type": "view"}, "expired-token")

    seen_codes = me.codes | other.codes | watcher.codes | {"unauthorized", "expired-token"}
    expected = set(ERROR_CODES) - ENGINE_ONLY - {"internal", "too-many-tables", "bad-rules"}
    assert seen_codes >= expected, expected - seen_codes
    seen_types = me.types | other.types | watcher.types
    assert seen_types >= {"hello", "variants", "view", "acted", "events", "round-started", "error"}


def test_refused_tokens_get_an_error_then_a_close(client: TestClient) -> None:
    made = create(client, seed=3)
    for token, code in (("forged", "unauthorized"), ("", "unauthorized")):
        with client.websocket_connect(f"/ws?token={token}") as ws:
            assert check_reply(ws.receive_json())["code"] == code
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 4401
    client.app.state.game.engine.tables[made["table"]].meta["expires"] = 0  # type: ignore[attr-defined]
    with client.websocket_connect(f"/ws?token={made['tokens']['0']}") as ws:
        assert check_reply(ws.receive_json())["code"] == "expired-token"
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 4403


def test_a_seat_sees_only_its_own_view(client: TestClient) -> None:
    made = create(client, variant="practice", seed=11)
    seats = {s: Seat(client, made["tokens"][str(s)]) for s in range(3)}
    table = client.app.state.game.engine.tables[made["table"]]  # type: ignore[attr-defined]
    play(seats, random.Random(1), until="match_over")
    for seat, conn in seats.items():
        for update in conn.updates:
            assert update["view"]["seat"] == seat
            assert all(a["player"] == seat for a in update["legal"])
        assert conn.latest["view"] == table.view(seat)
        seen = [e for u in conn.updates for e in u["events"]]
        assert seen == table.events(seat)
        for other in set(seats) - {seat}:
            conn.refused({"type": "view", "seat": other}, "wrong-seat")
            conn.refused({"type": "events", "seat": other}, "wrong-seat")


def _spectated(client: TestClient, deck: list[str]) -> tuple[list[dict[str, Any]], list[Any]]:
    """A scripted practice round on ``deck``: what the spectator and seat 0 received."""
    made = create(client, variant="practice", seed=1, decks=[deck])
    seats = {s: Seat(client, made["tokens"][str(s)]) for s in range(3)}
    watcher = Seat(client, made["spectator"])
    for _ in range(200):
        view = seats[0].latest["view"]
        if view["match_over"] or view["at"] >= 24:
            break
        actor = seats[view["to_act"]]
        legal = actor.latest["legal"]
        kinds = [a["kind"] for a in legal]
        pick = next(
            (legal[kinds.index(k)] for k in ("draw", "discard", "skip") if k in kinds), legal[0]
        )
        assert (
            actor.send({"type": "act", "action": pick["id"], "at": view["at"]})["type"] == "acted"
        )
        for seat in (*seats.values(), watcher):
            seat.wait(lambda u, at=view["at"] + 1: u["view"]["at"] >= at)

    def public(update: dict[str, Any]) -> dict[str, Any]:
        return {**update, "view": {**update["view"], "table": "-"}}

    mine = [u["view"]["grids"] for u in seats[0].updates]
    return [public(u) for u in watcher.updates], mine


def test_spectator_never_receives_a_hidden_card(client: TestClient) -> None:
    """Two deals differing only in seat 2's unseen first two cards: the spectator's
    stream is identical, card for card, although the cards differ."""
    grids = ["2S", "3S", "4S", "5S", "2H", "3H", "4H", "5H", "9C", "10C", "2D", "3D"]
    rest = ["6D", "4C", "5C", "6C", "3C", "2C", "5D", "4D"]
    swapped = [*grids[:8], "10C", "9C", *grids[10:]]
    first, _ = _spectated(client, grids + rest)
    second, _ = _spectated(client, swapped + rest)
    assert first == second
    text = json.dumps(first)
    assert "9C" not in text and "10C" not in text
    for update in first:
        assert all(card is None for grid in update["view"]["grids"] for card in grid)


def test_reconnecting_resumes_and_restart_resumes(config: ServerConfig) -> None:
    with TestClient(create_app(config)) as client:
        made = create(client, variant="practice", seed=8, bots={"1": "memory", "2": "memory"})
        seat = Seat(client, made["tokens"]["0"])
        seat.wait(lambda u: u["view"]["to_act"] == 0)
        at = seat.latest["view"]["at"]
        assert seat.send({"type": "act", "action": "draw", "at": at})["type"] == "acted"
        before = seat.send({"type": "view"})
        history = seat.send({"type": "events"})["events"]
        seat.close()
        again = Seat(client, made["tokens"]["0"])
        assert again.latest["view"] == before["view"] and again.latest["events"] == history
        again.close()
    saved = json.loads((config.store / f"{made['table']}.json").read_text())
    assert len(saved["match"]["actions"]) == before["view"]["at"]
    assert not list(config.store.glob("*.tmp"))
    with TestClient(create_app(config)) as client:  # a new server on the same folder
        resumed = Seat(client, made["tokens"]["0"])
        assert resumed.latest["view"] == before["view"]
        assert resumed.latest["legal"] == before["legal"]
        play({0: resumed}, random.Random(2))
        assert resumed.latest["view"]["result"] is not None
        close_all()


def test_a_slow_disk_holds_up_the_ack_but_not_other_tables(
    client: TestClient, config: ServerConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A save's write runs in the store's thread: while one table's write is held, a
    connection to another table is answered at once; the held action is acknowledged
    only once its save is on disk."""
    held = create(client, variant="practice", seed=3)
    other = create(client, variant="practice", seed=4)
    slow, quick = Seat(client, held["tokens"]["0"]), Seat(client, other["tokens"]["0"])
    started, release = threading.Event(), threading.Event()
    written: list[str] = []
    commit = Journal.commit

    def held_commit(journal: Journal, changes: Mapping[str, str | None]) -> None:
        if held["table"] in changes:
            started.set()
            assert release.wait(10), "the test never released the write"
        commit(journal, changes)
        written.extend(changes)

    monkeypatch.setattr(Journal, "commit", held_commit)
    at = slow.latest["view"]["at"]
    slow.ws.send_text(json.dumps({"type": "act", "action": "draw", "at": at}))
    assert started.wait(10)  # the write is under way, and held
    assert quick.send({"type": "view"})["type"] == "view"  # answered meanwhile
    assert written == []
    release.set()
    while (reply := slow.receive())["type"] == "update":
        pass
    assert reply["type"] == "acted" and reply["at"] == at + 1
    assert written == [held["table"]]  # the ack came after the write
    saved = json.loads(read_saved(config.store, held["table"]) or "null")
    assert len(saved["match"]["actions"]) == at + 1


# ---------------------------------------------------------------------------------------
# The seed and the deck stay on the server while the match runs; arranged tables say so


def test_no_seat_or_spectator_receives_a_drawn_seed(
    client: TestClient, config: ServerConfig, caplog: pytest.LogCaptureFixture
) -> None:
    """A practice match created over HTTP without a seed, one seat a bot, played to its
    end: the create reply, every update and reply of both seats and of the spectator
    (errors included) and every log line carry neither the match's seed nor the round's
    (searched as decimal text, read from the server's table object) while the match
    runs; once it is over the views show the seed."""
    caplog.set_level(logging.DEBUG)
    response = client.post("/api/tables", json={"variant": "practice", "bots": {"2": "memory"}})
    assert response.status_code == 201
    made = response.json()
    assert made["arranged"] is False and "seed" not in made
    table = client.app.state.game.engine.tables[made["table"]]  # type: ignore[attr-defined]
    secrets = secrets_of(table)
    assert not [s for s in secrets if s in response.text]
    # the server keeps it: the search finds it where it is
    assert secrets[0] in (read_saved(config.store, made["table"]) or "")
    seats = {s: Seat(client, made["tokens"][str(s)]) for s in (0, 1)}
    watcher = Seat(client, made["spectator"])
    for conn in (*seats.values(), watcher):
        conn.refused({"type": "save"}, "forbidden")
        at = conn.latest["view"]["at"]
        assert conn.send({"type": "act", "action": "fly", "at": at})["type"] == "error"
        conn.send({"type": "view"})
        conn.send({"type": "events", "since": 0})
        assert conn.latest["view"]["arranged"] is False
        assert conn.latest["view"]["match"]["seed"] is None
    view = play(seats, random.Random(6), until="match_over")
    assert view["match_over"] and table.match.is_over
    for conn in (*seats.values(), watcher):
        conn.wait(lambda u: u["view"]["match_over"])
        final = conn.send({"type": "view"})
        assert final["view"]["match"]["seed"] == table.match.seed  # revealed once over
        conn.refused({"type": "save"}, "forbidden")
        leaked = [t for t in conn.texts if not reveals_only_when_over(t, secrets)]
        assert leaked == []
        assert any(secrets[0] in t for t in conn.texts)  # the search does find the seed
        kinds = {json.loads(t)["type"] for t in conn.texts}
        assert {"update", "view", "events", "error"} <= kinds
    assert "acted" in {json.loads(t)["type"] for c in seats.values() for t in c.texts}
    assert not [s for s in secrets if s in caplog.text]


def _practice_deck() -> list[str]:
    return [str(card) for card in Match("practice", 3, seed=1).round.deck]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("fields", "arranged"),
    [
        ({}, False),
        ({"seed": 424242}, True),
        ({"decks": [_practice_deck()]}, True),
    ],
    ids=["drawn seed", "seed", "prepared deck"],
)
def test_every_seat_and_the_spectator_are_told_an_arranged_table(
    client: TestClient, fields: dict[str, Any], arranged: bool
) -> None:
    made = create(client, variant="practice", bots={"2": "memory"}, **fields)
    assert made["arranged"] is arranged
    assert made.get("seed") == fields.get("seed")  # the creator's own seed, or none
    conns = [Seat(client, made["tokens"]["0"]), Seat(client, made["tokens"]["1"])]
    conns.append(Seat(client, made["spectator"]))
    for conn in conns:
        assert conn.latest["view"]["arranged"] is arranged  # the update sent on joining
        assert conn.send({"type": "view"})["view"]["arranged"] is arranged


def test_no_connection_may_ask_for_a_save(client: TestClient) -> None:
    """A save holds the seed and every card: seats and spectators get forbidden."""
    made = create(client, variant="practice", seed=4)
    for token in (made["tokens"]["0"], made["spectator"]):
        conn = Seat(client, token)
        for message in (
            {"type": "save"},
            {"type": "save", "table": made["table"]},
            {"type": "save", "id": 3},
        ):
            reply = conn.refused(message, "forbidden")
            assert reply["where"] == "$.type" and "save" in reply["message"]
            assert "match" not in json.dumps(reply)
