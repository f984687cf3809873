"""The protocol's ``analyse`` request: refused unless the table was set up with hints,
answered from the asking seat's view only, valid under the shipped schema."""

from __future__ import annotations

from typing import Any

import cambio
from cambio.protocol import HINTS_KEY, Engine
from protocol_clients import check_reply


def _table(engine: Engine, deck: list[str] | None = None, hints: bool = True) -> str:
    request: dict[str, Any] = {
        "type": "create",
        "variant": "practice",
        "players": 2,
        "seed": 3,
        "bots": {"1": "memory"},
    }
    if deck is not None:
        request["decks"] = [deck]
    if hints:
        request[HINTS_KEY] = True
    return str(check_reply(engine.handle(request))["table"])


def test_a_table_without_hints_refuses() -> None:
    engine = Engine()
    name = _table(engine, hints=False)
    reply = check_reply(engine.handle({"type": "analyse", "table": name, "seat": 0}))
    assert reply["code"] == "forbidden" and "hints" in reply["message"]


def test_the_analysis_is_the_library_analysis_of_the_seat() -> None:
    engine = Engine()
    name = _table(engine)
    request = {"type": "analyse", "id": 5, "table": name, "seat": 0, "samples": 6, "seed": 4}
    reply = check_reply(engine.handle(request))
    assert reply["type"] == "analysis" and reply["reply_to"] == 5
    assert reply["seat"] == 0 and reply["samples"] == 6 and reply["phase"] == "turn"
    match = engine.tables[name].match
    expected = cambio.analyse_round(match.round, 0, samples=6, seed=4)
    assert [e["text"] for e in reply["estimates"]] == [e.label for e in expected.estimates]
    assert [e["win"] for e in reply["estimates"]] == [e.win for e in expected.estimates]
    legal = {
        a["text"]
        for a in check_reply(engine.handle({"type": "view", "table": name, "seat": 0}))["legal"]
    }
    assert {e["action"]["text"] for e in reply["estimates"]} == legal
    assert check_reply(engine.handle(request)) == reply  # the same seed, the same numbers


def test_tables_that_differ_in_unseen_cards_give_the_same_analysis() -> None:
    base = list(cambio.Round("practice", players=2, seed=3).deck)
    other = base[:]
    other[4], other[-1] = other[-1], other[4]  # seat 1's first card and the stock's last
    engine = Engine()
    one = _table(engine, [str(c) for c in base])
    two = _table(engine, [str(c) for c in other])
    asks = [
        engine.handle({"type": "analyse", "table": t, "seat": 0, "samples": 6, "seed": 1})
        for t in (one, two)
    ]
    assert asks[0]["estimates"] == asks[1]["estimates"]
    hands = [engine.tables[t].match.round.hand(1) for t in (one, two)]
    assert hands[0] != hands[1]


def test_refusals_name_the_problem() -> None:
    engine = Engine()
    name = _table(engine)
    for request, code in [
        ({"seat": 1}, "wrong-seat"),  # a bot's seat
        ({"seat": 5}, "wrong-seat"),
        ({"seat": 0, "samples": 1}, "bad-field"),
        ({"seat": 0, "samples": 201}, "bad-field"),
        ({"seat": 0, "depth": 3}, "bad-field"),
        ({"seat": 0, "table": "nowhere"}, "unknown-table"),
    ]:
        message = {"type": "analyse", "table": name, **request}
        reply = check_reply(engine.handle(message))
        assert reply["code"] == code, (request, reply)


def test_hints_survive_a_save_and_load() -> None:
    engine = Engine()
    name = _table(engine)
    saved = check_reply(engine.handle({"type": "save", "table": name}))["save"]
    loaded = check_reply(engine.handle({"type": "load", "table": "again", "save": saved}))
    reply = engine.handle({"type": "analyse", "table": loaded["table"], "seat": 0, "samples": 2})
    assert check_reply(reply)["type"] == "analysis"


def test_a_seat_without_a_decision_is_told_so() -> None:
    engine = Engine()
    name = check_reply(
        engine.handle(
            {"type": "create", "variant": "practice", "players": 3, "seed": 2, "hints": True}
        )
    )["table"]
    reply = check_reply(engine.handle({"type": "analyse", "table": name, "seat": 2}))
    assert reply["code"] == "illegal-action" and "seat 2 has no decision now" in reply["message"]


def test_hints_are_a_create_option_every_view_shows() -> None:
    engine = Engine()
    plain, hinted = _table(engine, hints=False), _table(engine)
    for seat in (0, 1):
        view = check_reply(engine.handle({"type": "view", "table": hinted, "seat": seat}))
        assert view["view"]["hints"] is True
    assert engine.tables[hinted].view(None)["hints"] is True  # spectators see it too
    assert engine.tables[plain].view(0)["hints"] is False
    saved = check_reply(engine.handle({"type": "save", "table": hinted}))["save"]
    assert saved["hints"] is True and engine.tables[plain].to_dict()["hints"] is False
    bad = {"type": "create", "variant": "practice", "hints": "yes"}
    reply = check_reply(engine.handle(bad))
    assert reply["code"] == "bad-field" and reply["where"] == "$.hints"
    forged = {**saved, "hints": 1}
    reply = check_reply(engine.handle({"type": "load", "table": "forged", "save": forged}))
    assert reply["code"] == "bad-save" and "hints must be true or false" in reply["message"]
