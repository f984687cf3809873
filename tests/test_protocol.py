"""The protocol over standard input and output: every message type, every error code.

``cambio engine`` runs in a child process; every reply is checked against the schema
shipped in the package, and every refused request leaves the table as it was.
"""

from __future__ import annotations

import json
import os
import random
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from cambio.engine import serve_lines
from cambio.match import Match
from cambio.protocol import ERROR_CODES, REQUEST_TYPES, Engine, schema
from protocol_clients import StdioEngine, check_reply, reveals_only_when_over, secrets_of

Send = Callable[[object], dict[str, Any]]

SERVER_ONLY = {"unauthorized", "expired-token", "forbidden", "rate-limited"}
"""Codes that only a server connection can earn (tokens, per-connection limits)."""
BUG_ONLY = {"internal"}
"""Reported only if the engine itself fails: no request can provoke it on purpose."""


class Recorder:
    """Sends through a transport and records the reply types and error codes seen."""

    def __init__(self, send: Callable[[str], dict[str, Any]]) -> None:
        self._send = send
        self.types: set[str] = set()
        self.codes: set[str] = set()

    def __call__(self, message: object) -> dict[str, Any]:
        text = message if isinstance(message, str) else json.dumps(message)
        reply = self._send(text)
        self.types.add(reply["type"])
        if reply["type"] == "error":
            self.codes.add(reply["code"])
        return reply

    def refused(self, message: object, code: str, table: str | None = None) -> dict[str, Any]:
        """Send a bad message: it must get ``code`` and leave ``table`` unchanged."""
        before = None if table is None else self({"type": "save", "table": table})["save"]
        reply = self(message)
        assert reply["type"] == "error" and reply["code"] == code, (message, reply)
        assert reply["message"]
        if table is not None:
            assert self({"type": "save", "table": table})["save"] == before
        return reply


@pytest.fixture(scope="module")
def stdio() -> Iterator[StdioEngine]:
    engine = StdioEngine("--max-tables", "6", "--max-bytes", "20000")
    yield engine
    assert engine.close() == 0


def play_seat_until(
    send: Send, table: str, seats: list[int], stop: Callable[[dict[str, Any]], bool], seed: int
) -> dict[str, Any]:
    """Random legal moves for ``seats`` (by id or by text) until ``stop(view)``."""
    rng = random.Random(seed)
    for _ in range(5000):
        view = send({"type": "view", "table": table, "seat": seats[0]})["view"]
        if stop(view):
            return view
        seat = view["to_act"]
        assert seat in seats, view
        mine = send({"type": "view", "table": table, "seat": seat})
        choice = rng.choice(mine["legal"])
        action = choice["text"] if rng.random() < 0.3 else choice["id"]
        reply = send(
            {
                "type": "act",
                "table": table,
                "seat": seat,
                "action": action,
                "at": mine["view"]["at"],
            }
        )
        assert reply["type"] == "acted", reply
        assert reply["action"]["id"] == choice["id"]
    raise AssertionError("the round did not end")


def scenario(send: Recorder) -> None:
    """Every request type and every engine error code, in one table's life."""
    assert send({"type": "hello", "id": 1}) == {**send({"type": "hello"}), "reply_to": 1}
    assert send({"type": "hello", "protocol": 1})["protocol"] == 1
    send.refused({"type": "hello", "protocol": 2}, "unsupported-version")
    names = {v["name"] for v in send({"type": "variants"})["variants"]}
    assert {"practice", "snap", "elimination"} <= names
    send.refused("not json", "bad-json")
    send.refused("[1, 2]", "bad-message")
    send.refused({}, "missing-field")
    send.refused({"type": "fly"}, "unknown-type")
    send.refused({"type": "hello", "extra": 1}, "bad-field")
    send.refused({"type": "view", "table": "a"}, "missing-field")
    send.refused("x" * 20001, "too-large")

    created = send({"type": "create", "table": "a", "variant": "practice", "seed": 42})
    assert created == {
        "type": "created",
        "table": "a",
        "players": 3,
        "rules": "practice",
        "arranged": True,
        "seed": 42,
        "bots": {},
    }
    send.refused({"type": "create", "table": "a"}, "table-exists", "a")
    send.refused({"type": "create", "variant": "no-such-table"}, "bad-rules")
    send.refused({"type": "create", "rules": "[players]\nmin = 'two'\n"}, "bad-rules")
    send.refused({"type": "create", "rules": 'extends = "/etc/passwd"\n'}, "bad-rules")
    send.refused({"type": "create", "variant": "practice", "players": 40}, "bad-rules")
    send.refused({"type": "create", "variant": "practice", "bots": {"7": "memory"}}, "wrong-seat")
    send.refused({"type": "create", "variant": "practice", "bots": {"1": "genius"}}, "bad-field")
    send.refused({"type": "view", "table": "a", "seat": 5}, "wrong-seat", "a")
    send.refused({"type": "view", "table": "zz", "seat": 0}, "unknown-table", "a")

    look = send({"type": "view", "table": "a", "seat": 0})
    view = look["view"]
    seat, other = view["to_act"], (view["to_act"] + 1) % 3
    mine = send({"type": "view", "table": "a", "seat": seat})["legal"]
    assert [a["kind"] for a in mine] == ["draw", "take", "call"]
    send.refused(
        {"type": "act", "table": "a", "seat": other, "action": mine[0]["id"]}, "wrong-seat", "a"
    )
    send.refused(
        {"type": "act", "table": "a", "seat": other, "action": "draw"}, "illegal-action", "a"
    )
    send.refused(
        {"type": "act", "table": "a", "seat": seat, "action": "fly"}, "illegal-action", "a"
    )
    send.refused(
        {"type": "act", "table": "a", "seat": seat, "action": 10**6}, "illegal-action", "a"
    )
    send.refused(
        {"type": "act", "table": "a", "seat": seat, "action": "draw", "at": 3}, "stale-action", "a"
    )
    send.refused({"type": "next-round", "table": "a"}, "not-between-rounds", "a")
    send.refused({"type": "rematch", "table": "a"}, "match-running", "a")
    send.refused({"type": "name", "table": "a", "seat": 0, "name": " "}, "bad-field", "a")
    named = send({"type": "name", "table": "a", "seat": 0, "name": "  Ana   Lee "})
    assert named == {"type": "named", "table": "a", "seat": 0, "name": "Ana Lee"}
    names = send({"type": "view", "table": "a", "seat": 1})["view"]["names"]
    assert names == ["Ana Lee", "Player 2", "Player 3"]

    acted = send({"type": "act", "table": "a", "seat": seat, "action": f"P{seat} TAKE", "at": 0})
    assert acted["action"]["kind"] == "take" and acted["at"] == 1
    assert [e["kind"] for e in acted["events"]] == ["take"]
    # An old action replayed is refused: the table has moved past its position.
    send.refused(
        {"type": "act", "table": "a", "seat": seat, "action": "take", "at": 0}, "stale-action", "a"
    )
    everything = send({"type": "events", "table": "a", "seat": seat})
    assert everything["next"] == len(everything["events"]) > 1
    assert (
        send({"type": "events", "table": "a", "seat": seat, "since": everything["next"] - 1})[
            "events"
        ]
        == everything["events"][-1:]
    )

    saved = send({"type": "save", "table": "a"})["save"]
    assert send({"type": "load", "table": "b", "save": saved})["type"] == "loaded"
    for s in range(3):
        a, b = (send({"type": "view", "table": t, "seat": s}) for t in ("a", "b"))
        assert {**a["view"], "table": "b"} == b["view"] and a["legal"] == b["legal"]
    send.refused({"type": "load", "save": {"format": "other"}}, "bad-save")
    send.refused({"type": "load", "table": "c", "save": {**saved, "match": {"x": 1}}}, "bad-save")
    send.refused({"type": "load", "table": "a", "save": saved}, "table-exists", "a")

    final = play_seat_until(send, "a", [0, 1, 2], lambda v: v["match_over"], seed=1)
    assert final["result"]["reason"] and final["to_act"] is None
    assert all(card is not None for hand in final["result"]["hands"] for card in hand)
    send.refused({"type": "act", "table": "a", "seat": 0, "action": "draw"}, "match-over", "a")
    send.refused({"type": "next-round", "table": "a"}, "match-over", "a")
    assert send({"type": "rematch", "table": "a"})["type"] == "rematched"
    again = send({"type": "view", "table": "a", "seat": 0})["view"]
    assert not again["match_over"] and again["result"] is None and again["at"] == 0
    assert again["names"][0] == "Ana Lee" and not again["arranged"]

    # A match of several rounds, two seats played by bots on the engine's side.
    made = send(
        {
            "type": "create",
            "table": "m",
            "variant": "elimination",
            "players": 3,
            "seed": 5,
            "bots": {"1": "memory", "2": "random"},
        }
    )
    assert made["bots"] == {"1": "memory", "2": "random"}
    send.refused({"type": "act", "table": "m", "seat": 1, "action": "draw"}, "wrong-seat", "m")
    between = play_seat_until(
        send, "m", [0], lambda v: v["between_rounds"] or v["match_over"], seed=2
    )
    assert between["between_rounds"], "a 100-point elimination match has a second round"
    assert between["result"] is not None and between["match"]["rounds"]
    send.refused({"type": "act", "table": "m", "seat": 0, "action": "draw"}, "round-over", "m")
    started = send({"type": "next-round", "table": "m"})
    assert started["round"] == 2
    assert send({"type": "view", "table": "m", "seat": 0})["view"]["round"] == 2

    assert send({"type": "close", "table": "b"}) == {"type": "closed", "table": "b"}
    send.refused({"type": "view", "table": "b", "seat": 0}, "unknown-table")
    for name in ("f1", "f2", "f3", "f4"):  # the engine under test holds six tables
        if send({"type": "create", "table": name})["type"] == "error":
            break
    send.refused({"type": "create", "table": "f9"}, "too-many-tables", "a")


def test_stdio_covers_every_message_and_error(stdio: StdioEngine) -> None:
    send = Recorder(stdio.send_text)
    scenario(send)
    assert send.types == {
        "hello",
        "variants",
        "created",
        "view",
        "acted",
        "events",
        "saved",
        "loaded",
        "round-started",
        "named",
        "rematched",
        "closed",
        "error",
    }
    assert send.codes == set(ERROR_CODES) - SERVER_ONLY - BUG_ONLY


def test_in_process_engine_answers_the_same() -> None:
    """The same scenario straight through Engine.handle_text (what both transports call)."""
    engine = Engine(max_tables=6, max_bytes=20000)
    send = Recorder(lambda text: check_reply(engine.handle_text(text)))
    scenario(send)
    assert send.codes == set(ERROR_CODES) - SERVER_ONLY - BUG_ONLY


def test_schema_lists_every_request_and_code() -> None:
    doc = schema()
    assert doc["requests"] == list(REQUEST_TYPES)
    assert {f"request.{t}" for t in REQUEST_TYPES} <= set(doc["$defs"])
    assert doc["$defs"]["reply.error"]["properties"]["code"]["enum"] == list(ERROR_CODES)
    for name in doc["replies"]:
        assert f"reply.{name}" in doc["$defs"]


def test_stdio_ignores_blank_lines_and_stops_at_end_of_input() -> None:
    engine = StdioEngine()
    assert engine.process.stdin is not None and engine.process.stdout is not None
    engine.process.stdin.write('\n  \n{"type": "hello"}\n')
    engine.process.stdin.close()
    lines = engine.process.stdout.read().splitlines()
    assert [json.loads(x)["type"] for x in lines] == ["hello"]
    assert engine.process.wait(timeout=30) == 0


def test_stdio_store_resumes_tables(tmp_path: Any) -> None:
    first = StdioEngine("--store", str(tmp_path))
    first.send({"type": "create", "table": "kept", "seed": 3})
    view = first.send({"type": "view", "table": "kept", "seat": 0})["view"]
    seat = view["to_act"]
    first.send({"type": "act", "table": "kept", "seat": seat, "action": "draw"})
    before = first.send({"type": "save", "table": "kept"})["save"]
    assert first.close() == 0
    second = StdioEngine("--store", str(tmp_path))
    assert second.send({"type": "save", "table": "kept"})["save"] == before
    assert second.close() == 0


def test_deferred_writes_keep_each_tables_last_state_until_written(tmp_path: Any) -> None:
    """With ``defer_writes`` nothing touches the store until the kept saves are written;
    each table's entry is its state when last changed, and a closed table's is removal."""
    store = tmp_path / "tables"
    engine = Engine(store=store, defer_writes=True)
    made = engine.handle({"type": "create", "variant": "practice", "seed": 5})
    gone = engine.handle({"type": "create", "variant": "practice", "seed": 6})
    name, closed = made["table"], gone["table"]
    engine.handle({"type": "act", "table": name, "seat": 0, "action": "draw"})
    assert list(store.glob("*.json")) == []
    unsaved = engine.take_unsaved()
    assert list(unsaved) == [name, closed]
    assert engine.take_unsaved() == {}
    for table, text in unsaved.items():
        engine.write_saved(table, text)
    assert len(json.loads((store / f"{name}.json").read_text())["match"]["actions"]) == 1
    engine.handle({"type": "close", "table": closed})
    assert engine.take_unsaved() == {closed: None}
    engine.write_saved(closed, None)
    assert sorted(p.name for p in store.iterdir()) == [f"{name}.json"]
    resumed = Engine(store=store)  # a new engine on the folder: the written state
    assert resumed.handle({"type": "view", "table": name, "seat": 0})["view"]["at"] == 1


# ---------------------------------------------------------------------------------------
# The seed and the deck are secret while the match runs; arranged tables say so


class LineClient:
    """``cambio engine``'s line loop (:func:`cambio.engine.serve_lines`) on pipes, in a
    thread of this process, so the test holds the omniscient table objects too. Every
    reply line is kept as the client received it."""

    def __init__(self, engine: Engine) -> None:
        read_in, write_in = os.pipe()
        read_out, write_out = os.pipe()
        self._to = os.fdopen(write_in, "w", encoding="utf-8")
        self._from = os.fdopen(read_out, "r", encoding="utf-8")
        stdin = os.fdopen(read_in, "r", encoding="utf-8")
        stdout = os.fdopen(write_out, "w", encoding="utf-8")

        def run() -> None:
            with stdin, stdout:
                serve_lines(stdin, stdout, engine)

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()
        self.lines: list[str] = []

    def send(self, message: object) -> dict[str, Any]:
        self._to.write(json.dumps(message) + "\n")
        self._to.flush()
        line = self._from.readline()
        assert line, "the engine stopped answering"
        self.lines.append(line)
        return check_reply(json.loads(line))

    def close(self) -> None:
        self._to.close()
        self._thread.join(timeout=30)
        self._from.close()


def test_a_drawn_seed_reaches_no_engine_client_while_the_match_runs() -> None:
    """A whole elimination match over the engine's line protocol, created without a seed,
    two seats played by bots: no created, view, events, acted or error reply carries the
    match's seed or any round's seed (searched as decimal text, read from the table
    object) while the match runs; once it is over the view's match part shows the seed."""
    engine = Engine()
    client = LineClient(engine)
    try:
        created = client.send(
            {"type": "create", "variant": "elimination", "players": 3, "bots": {"1": "memory"}}
        )
        assert created["arranged"] is False and "seed" not in created
        name = created["table"]
        table = engine.tables[name]
        rng = random.Random(3)
        for _ in range(5000):
            if table.match.is_over:
                break
            for seat in range(3):
                client.send({"type": "view", "table": name, "seat": seat})
            view = client.send({"type": "view", "table": name, "seat": 0})
            assert view["view"]["arranged"] is False
            assert view["view"]["match"]["seed"] is None
            client.send({"type": "events", "table": name, "seat": 2, "since": 0})
            if view["view"]["between_rounds"]:
                client.send({"type": "act", "table": name, "seat": 0, "action": "draw"})
                client.send({"type": "next-round", "table": name})
                continue
            seat = view["view"]["to_act"]
            mine = client.send({"type": "view", "table": name, "seat": seat})
            at = mine["view"]["at"]
            wrong = (seat + 1) % 3
            client.send({"type": "act", "table": name, "seat": seat, "action": "fly", "at": at})
            client.send({"type": "act", "table": name, "seat": wrong, "action": "draw"})
            client.send({"type": "act", "table": name, "seat": seat, "action": 0, "at": at + 9})
            client.send({"type": "view", "table": name, "seat": 9})
            client.send({"type": "next-round", "table": name})
            choice = rng.choice(mine["legal"])
            acted = client.send(
                {"type": "act", "table": name, "seat": seat, "action": choice["id"], "at": at}
            )
            assert acted["type"] == "acted", acted
        assert table.match.is_over and len(table.match.played_rounds) > 1
        secrets = secrets_of(table)
        while_running = list(client.lines)
        final = client.send({"type": "view", "table": name, "seat": 0})
    finally:
        client.close()
    kinds = {json.loads(line)["type"] for line in while_running}
    assert kinds == {"created", "view", "events", "acted", "error", "round-started"}
    assert not [line for line in while_running if any(s in line for s in secrets)]
    assert all(reveals_only_when_over(line, secrets) for line in client.lines)
    assert final["view"]["match"]["seed"] == table.match.seed  # revealed once it is over


def test_stdio_created_does_not_echo_a_drawn_seed() -> None:
    """Over ``cambio engine`` in its own process: created, views, events, acted and
    errors carry no drawn seed; only the host's own save request returns it."""
    stdio = StdioEngine()
    try:
        made = stdio.send({"type": "create", "table": "secret", "bots": {"1": "memory"}})
        assert made["arranged"] is False and "seed" not in made
        rng = random.Random(5)
        for _ in range(12):
            for seat in range(3):
                view = stdio.send({"type": "view", "table": "secret", "seat": seat})
                assert view["view"]["arranged"] is False
                assert view["view"]["match"]["seed"] is None
                stdio.send({"type": "events", "table": "secret", "seat": seat})
            seat = view["view"]["to_act"]
            if seat is None:
                break
            legal = stdio.send({"type": "view", "table": "secret", "seat": seat})["legal"]
            legal = [a for a in legal if a["kind"] != "call"]  # the match goes on
            stdio.send({"type": "act", "table": "secret", "seat": seat, "action": "fly"})
            stdio.send({"type": "act", "table": "secret", "seat": seat, "action": 0, "at": 99})
            stdio.send(
                {"type": "act", "table": "secret", "seat": seat, "action": rng.choice(legal)["id"]}
            )
        lines = list(stdio.lines)
        save = stdio.send({"type": "save", "table": "secret"})["save"]
        assert save["arranged"] is False
        seed = save["match"]["seed"]
    finally:
        assert stdio.close() == 0
    assert {json.loads(line)["type"] for line in lines} == {
        "created",
        "view",
        "events",
        "acted",
        "error",
    }
    assert not [line for line in lines if str(seed) in line]
    assert str(seed) in stdio.lines[-1]  # the search would find it: the save holds it


def _deck() -> list[str]:
    return [str(card) for card in Match("practice", 3, seed=1).round.deck]  # type: ignore[attr-defined]


ARRANGEMENTS: dict[str, tuple[dict[str, Any], bool]] = {
    "drawn seed": ({}, False),
    "no prepared deck": ({"decks": [None]}, False),
    "seed": ({"seed": 12345678}, True),
    "prepared deck": ({"decks": [_deck()]}, True),
    "seed and deck": ({"seed": 7, "decks": [_deck()]}, True),
}


@pytest.mark.parametrize("case", list(ARRANGEMENTS))
def test_arranged_is_told_to_every_seat_and_kept_in_saves(case: str) -> None:
    """A seed or a prepared deck makes the table arranged: created, every seat's view
    and the spectator's say so; a save keeps the flag and a load reads it back."""
    fields, arranged = ARRANGEMENTS[case]
    engine = Engine()
    send = Recorder(lambda text: check_reply(engine.handle_text(text)))
    made = send({"type": "create", "variant": "practice", "bots": {"2": "memory"}, **fields})
    assert made["arranged"] is arranged
    assert made.get("seed") == fields.get("seed")  # only the creator's own seed is echoed
    name = made["table"]
    for seat in range(3):
        assert send({"type": "view", "table": name, "seat": seat})["view"]["arranged"] is arranged
    assert (
        check_reply({"type": "view", "view": engine.tables[name].view(None), "legal": []})["view"][
            "arranged"
        ]
        is arranged
    )
    saved = send({"type": "save", "table": name})["save"]
    assert saved["arranged"] is arranged
    loaded = send({"type": "load", "table": "copy", "save": saved})
    assert loaded["arranged"] is arranged and "seed" not in loaded
    assert send({"type": "view", "table": "copy", "seat": 1})["view"]["arranged"] is arranged
    # A save written without the flag cannot tell a seed the creator gave from a drawn
    # one: it loads as not arranged, unless it holds a prepared deck.
    old = {k: v for k, v in saved.items() if k != "arranged"}
    again = send({"type": "load", "table": "old", "save": old})
    assert again["arranged"] is ("decks" in fields and fields["decks"] != [None])
    send.refused({"type": "load", "table": "bad", "save": {**saved, "arranged": 1}}, "bad-save")
