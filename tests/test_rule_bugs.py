"""Rule bugs of issue 31, each played from a written position or a prepared deck."""

from __future__ import annotations

from cambio import Action, EventKind, Phase, Round, RuleSet
from decks import table

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


# =========================================================================== bug 4
def _recycling(**stock: str) -> RuleSet:
    """The practice table with sticking at any moment and the discard pile recycled."""
    return table(
        snap={"when": "any-time", "targets": "any"}, stock={"on_empty": "recycle", **stock}
    )


def last_stock_card(rules: RuleSet, stock: str = "4C") -> Round:
    """P0 to play with ``stock`` the whole stock; P1 knows its 4S; every other card is in
    the discard pile, the AH on top."""
    hands = [["AS", "2S", "3S", "5S"], ["4S@1", "6S", "7S", "8S"]]
    used = {c.split("@")[0] for h in hands for c in h} | set(stock.split(","))
    pile = [str(c) for c in rules.deck.cards() if str(c) not in used]
    pile.remove("AH")
    seats = "/".join(",".join(h) for h in hands)
    return Round.from_position(rules, f"{seats} - AH,{','.join(pile)} {stock} turn 0 5,5")


def test_the_discard_pile_is_recycled_when_a_draw_needs_a_card() -> None:
    r = last_stock_card(_recycling())
    r.apply(Action.draw(0))  # the stock's last card, the 4C ...
    r.apply(Action.discard(0))  # ... thrown away: the stock is empty, the turn is over
    assert r.stock_size == 0 and not any(e.kind is EventKind.RECYCLE for e in r.events)
    assert r.current == 1 and Action.draw(1) in r.legal_actions(1)
    r.apply(Action.snap(1, (1, 1)))  # P1 sticks its 4S on the 4C
    assert [str(c) for c in r.discard_pile[-2:]] == ["4C", "4S"]
    r.apply(Action.draw(1))  # the draw recycles every card but the top one, the 4S
    assert [str(c) for c in r.discard_pile] == ["4S"]
    # the pile held the 43 cards, the 4C and the 4S: 44 recycled, the 4C among them
    assert r.stock_size == 44 - 1
    assert [e.kind for e in r.events[-2:]] == [EventKind.RECYCLE, EventKind.DRAW]


def test_a_penalty_card_recycles_the_discard_pile_when_it_needs_one() -> None:
    r = last_stock_card(_recycling())
    r.apply(Action.draw(0))
    r.apply(Action.discard(0))
    r.apply(Action.snap(1, (0, 1)))  # wrong: P0's AS is no 4, a penalty card is owed
    assert r.events[-2].kind is EventKind.RECYCLE and r.events[-1].kind is EventKind.PENALTY
    # 44 cards were on the pile: all but the 4C recycled, one of them drawn as the penalty
    assert r.stock_size == 43 - 1 and [str(c) for c in r.discard_pile] == ["4C"]
