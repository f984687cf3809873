"""Rule bugs of issue 31, each played from a written position or a prepared deck."""

from __future__ import annotations

from cambio import Action, EventKind, Phase, Round

# The snap table (2 x 2 grid): P0 holds one card it knows, the 5S; P2 has just thrown a
# 5H, so the window on it is open as P0's turn begins.
SNAP_OWN_LAST = "-,-,-,5S@0/AS,2S,3S,4S/6S,7S,8S,9S - 5H 10S,... turn 0 1,1,1 window=2"


def test_snapping_ones_last_card_before_drawing_ends_that_turn() -> None:
    r = Round.from_position("snap", SNAP_OWN_LAST)
    r.apply(Action.snap(0, (0, 4)))
    assert r.caller == 0
    assert [e.note for e in r.events if e.kind is EventKind.CALL] == ["empty grid"]
    # the call was P0's turn: the others take their final turns, P0 none
    assert r.current == 1 and r.phase is Phase.TURN
    assert not r.legal_actions(0, kind="draw")
    for seat in (1, 2):
        assert r.to_act == seat
        r.apply(Action.draw(seat))
        r.apply(Action.discard(seat))
        while r.phase is Phase.POWER:  # a 7 or higher may fire: skipped
            r.apply(Action.skip(seat))
    assert r.is_over and r.result is not None
    assert r.result.reason == "call" and r.result.caller == 0


def test_giving_away_ones_last_card_before_drawing_ends_that_turn() -> None:
    # P0 snaps P1's 5S with the 5H on top, then owes P1 a card: its last one
    r = Round.from_position(
        "snap", "-,-,-,4S@0/5S,2S,3S,AS/6S,7S,8S,9S - 5H 10S,... turn 0 1,1,1 window=2"
    )
    r.apply(Action.snap(0, (1, 1)))
    assert r.phase is Phase.GIVE and r.caller is None
    r.apply(Action.give(0, 4))
    assert r.caller == 0 and r.current == 1 and r.phase is Phase.TURN
    assert r.hand(1)[0] is not None and str(r.hand(1)[0]) == "4S"
