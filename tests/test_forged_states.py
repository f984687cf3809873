"""States no play reaches, forged in saves and written positions, are refused with the
typed error (:class:`SaveError`, :class:`PositionError`) at the right place; one check
of a round's state (:mod:`cambio.invariants`) serves loading, reading and sampling."""

from __future__ import annotations

import json
from typing import Any

import attrs
import pytest

import cambio
from cambio.errors import PositionError, SaveError
from cambio.round import Phase

SNAP = "AD,10D,3C@0,7H@0/5C,3H,5D@1,KH@1 - 4C 8H,... turn 0 0,0 window=0"
PRACTICE = "KH,3H,10H@0,6D@0/AD,10D,5C@1,3C@1 - 9C 2H,... turn 0 0,0"


@pytest.mark.parametrize(
    ("table", "text", "field", "says"),
    [
        ("snap", SNAP + ":-:won", "window_won", 'snap.too_late = "penalty"'),
        ("practice", PRACTICE + " owed=0", "calls_owed", "calls at its owner's next turn"),
        ("practice", PRACTICE.replace(" turn ", " end "), "phase", "calls before the draw"),
        (
            "practice",
            "-,-,-,-/AD,10D,5C@1,3C@1 - 9C KH,3H,10H,6D,2H,... turn 0 0,0",
            "slots[0]",
            "keeps the 4 cards dealt, found 0",
        ),
        ("practice", PRACTICE.replace("turn 0 0,0", "turn 0 99999,0"), "turns[1]", "go round"),
        ("practice", PRACTICE.replace("turn 0 0,0", "turn 1 0,0"), "turns[0]", "go round"),
    ],
)
def test_a_position_no_play_reaches_is_refused(
    table: str, text: str, field: str, says: str
) -> None:
    with pytest.raises(PositionError, match="state field") as caught:
        cambio.Round.from_position(table, text)
    assert f"(state field {field})" in str(caught.value)
    assert says in str(caught.value)


@pytest.mark.parametrize("option", ["seed", "ply", "recycles"])
def test_a_number_too_long_to_read_is_a_position_error(option: str) -> None:
    with pytest.raises(PositionError, match="at most 4000 digits"):
        cambio.Round.from_position("practice", f"{PRACTICE} {option}={'9' * 5000}")


def test_positions_a_round_reaches_still_read() -> None:
    """The new checks refuse nothing that play reaches: every position of random
    rounds of every bundled table is written and read back."""
    import random

    for name in cambio.available_variants():
        rules = cambio.load_ruleset(name)
        players = max(2, rules.players.min)
        rng = random.Random(name)
        r = cambio.Round(rules, players, seed=rng.randrange(10**6))
        for _ in range(60):
            if r.is_over:
                break
            back = cambio.Round.from_position(rules, r.position())
            assert back.position() == r.position()
            who = r.to_act if r.to_act is not None else r.reactors[0]
            r.apply(rng.choice(r.legal_actions(who)))


def _doc(table: str, text: str, *actions: cambio.Action) -> dict[str, Any]:
    r = cambio.Round.from_position(table, text)
    for action in actions:
        r.apply(action)
    doc: dict[str, Any] = json.loads(r.to_json())
    return doc


def _refused(doc: dict[str, Any], path: str) -> SaveError:
    for verify in (False, True):
        with pytest.raises(SaveError) as caught:
            cambio.Round.from_json(json.dumps(doc), verify=verify)
        assert caught.value.path.startswith(path), caught.value
    return caught.value


def test_a_closing_save_whose_window_is_closed_is_a_save_error() -> None:
    rules = cambio.load_ruleset("snap")
    rules = attrs.evolve(rules, snap=attrs.evolve(rules.snap, last_discard=True))
    r = cambio.Round(rules, 2, seed=3)
    doc: dict[str, Any] = json.loads(r.to_json())
    doc["state"]["phase"] = Phase.CLOSING.value  # a turn save switched to closing
    doc["state"]["closing_reason"] = "call"
    doc["state"]["window_open"] = False
    _refused(doc, "$.state.")


def test_a_won_window_on_a_table_without_too_late_penalties_is_a_save_error() -> None:
    doc = _doc("snap", SNAP)
    doc["state"]["window_won"] = True
    error = _refused(doc, "$.state.window_won")
    assert "too_late" in error.message


def test_a_call_owed_where_emptied_grids_call_at_once_is_a_save_error() -> None:
    doc = _doc("snap", SNAP)  # snap: empty_grid = "call", empty_grid_calls = "at-once"
    doc["state"]["calls_owed"] = 1
    _refused(doc, "$.state.calls_owed")


@pytest.mark.parametrize(
    ("part", "value", "says"),
    [
        (1, 99, "expected a player from -1"),
        (0, 999, "event"),
        (2, [0, 99], "not on this table"),
        (2, [7, 1], "not on this table"),
        (3, [999], "card"),
    ],
)
def test_the_events_of_a_round_saved_after_a_position_are_checked(
    part: int, value: Any, says: str
) -> None:
    doc = _doc("snap", SNAP, cambio.Action.draw(0))
    assert doc["position"]  # played on from a position: no deal in its log
    event = doc["state"]["events"][0]
    event[part] = value
    error = _refused(doc, "$.state.events")
    assert says in error.message
