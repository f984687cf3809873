"""Settings of issue 31, each played from a written position or a prepared deck."""

from __future__ import annotations

import pytest

from cambio import Action, EventKind, Round, RuleSet
from cambio.errors import RuleSetError
from cambio.loading import ruleset_from_toml
from decks import table


def _rule_problems(text: str) -> dict[str, str]:
    with pytest.raises(RuleSetError) as info:
        ruleset_from_toml(text)
    return {p.path: p.message for p in info.value.problems}


# =========================================================================== stock.recycle_when
def _recycling(when: str) -> RuleSet:
    """The practice table with sticking at any moment and the discard pile recycled."""
    return table(
        snap={"when": "any-time", "targets": "any"},
        stock={"on_empty": "recycle", "recycle_when": when},
    )


def _low_stock(rules: RuleSet, stock: str) -> Round:
    """P0 to play with ``stock`` the whole stock (top first); P1 knows its 4S; every
    other card is in the discard pile, the AH on top."""
    hands = [["AS", "2S", "3S", "5S"], ["4S@1", "6S", "7S", "8S"]]
    used = {c.split("@")[0] for h in hands for c in h} | set(stock.split(","))
    pile = [str(c) for c in rules.deck.cards() if str(c) not in used]
    pile.remove("AH")
    seats = "/".join(",".join(h) for h in hands)
    return Round.from_position(rules, f"{seats} - AH,{','.join(pile)} {stock} turn 0 5,5")


def _recycles(r: Round) -> int:
    return sum(e.kind is EventKind.RECYCLE for e in r.events)


def test_emptied_recycles_at_the_end_of_the_turn_that_took_the_last_card() -> None:
    r = _low_stock(_recycling("emptied"), "4C")
    r.apply(Action.draw(0))
    r.apply(Action.discard(0))
    # the 4C stays on top; the other 43 cards are the new stock before P1 moves
    assert _recycles(r) == 1 and r.stock_size == 43
    r.apply(Action.snap(1, (1, 1)))  # the 4S goes on the 4C, not under the new stock
    assert [str(c) for c in r.discard_pile] == ["4C", "4S"]


def test_one_left_puts_the_recycled_cards_under_the_last_stock_card() -> None:
    r = _low_stock(_recycling("one-left"), "4C,9D")
    r.apply(Action.draw(0))
    r.apply(Action.discard(0))  # the 4C: one card, the 9D, is left at the turn's end
    assert _recycles(r) == 1 and r.stock_size == 1 + 42  # the 9D and 42 of the 43 on the pile
    assert [str(c) for c in r.discard_pile] == ["4C"]
    r.apply(Action.draw(1))
    assert str(r.events[-1].cards[0]) == "9D"  # the card left is still drawn first
    r.apply(Action.discard(1))
    assert _recycles(r) == 1  # 42 cards left: nothing to refill


def test_one_left_waits_while_two_cards_are_left() -> None:
    r = _low_stock(_recycling("one-left"), "4C,9D,10D")
    r.apply(Action.draw(0))
    r.apply(Action.discard(0))
    assert _recycles(r) == 0 and r.stock_size == 2


def test_recycle_when_needs_recycling_and_a_known_word() -> None:
    base = 'extends = "practice"\nname = "t"\n'
    assert _rule_problems(base + '[stock]\nrecycle_when = "emptied"\n') == {
        "stock.recycle_when": 'has no effect unless stock.on_empty is "recycle"'
    }
    wrong = base + '[stock]\non_empty = "recycle"\nrecycle_when = "one-lef"\n'
    (message,) = _rule_problems(wrong).values()
    assert message.startswith("expected one of") and message.endswith("did you mean one-left?")
