"""The view's ``known_by``: which other seats are known, from public moves, to have seen a card."""

from __future__ import annotations

from typing import Any

from cambio.protocol import Engine


def _table(variant: str = "practice") -> Engine:
    engine = Engine(auto_bots=False)
    reply = engine.handle({"type": "create", "variant": variant, "players": 3, "seed": 4})
    assert reply["type"] == "created"
    return engine


def _view(engine: Engine, seat: int) -> dict[str, Any]:
    reply = engine.handle({"type": "view", "table": "t1", "seat": seat})
    assert reply["type"] == "view"
    view: dict[str, Any] = reply["view"]
    return view


def _act(engine: Engine, seat: int, kind: str, positions: list[list[int]] | None = None) -> None:
    legal = engine.handle({"type": "view", "table": "t1", "seat": seat})["legal"]
    chosen = [
        a for a in legal if a["kind"] == kind and (positions is None or a["positions"] == positions)
    ]
    assert chosen, f"P{seat} may not {kind} {positions}: {[a['text'] for a in legal]}"
    assert (
        engine.handle({"type": "act", "table": "t1", "seat": seat, "action": chosen[0]["id"]})[
            "type"
        ]
        == "acted"
    )


def test_the_opening_peek_is_known_to_its_player_and_the_viewer_is_never_listed() -> None:
    engine = _table()
    table = engine.tables["t1"]
    for seat in range(3):
        view = _view(engine, seat)
        opening = view["opening_positions"]
        assert opening
        for owner in range(3):
            for index, seen in enumerate(view["known_by"][owner]):
                expected = [owner] if owner != seat and index + 1 in opening else []
                assert seen == expected, (seat, owner, index)
    public = table.view(None)["known_by"]
    assert [[i + 1 for i, seen in enumerate(g) if seen] for g in public] == [opening] * 3


def test_a_card_taken_face_up_is_known_to_all_and_a_drawn_one_to_its_player() -> None:
    engine = _table()
    first = _view(engine, 0)["to_act"]
    assert first is not None
    _act(engine, first, "take")
    _act(engine, first, "replace", [[first, 1]])
    for seat in range(3):
        seen = _view(engine, seat)["known_by"][first][0]
        assert seen == [s for s in range(3) if s != seat]
    second = _view(engine, 0)["to_act"]
    assert second is not None and second != first
    _act(engine, second, "draw")
    _act(engine, second, "replace", [[second, 2]])
    for seat in range(3):
        seen = _view(engine, seat)["known_by"][second][1]
        assert seen == ([] if seat == second else [second])
