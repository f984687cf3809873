"""The axes beyond the five pages (RULES.md, last table), each played with prepared decks.

Every axis is a RuleSet field whose default keeps the five pages' tables as they are; a
test turns the axis on over a small table (mostly the practice table), deals a prepared
deck (``deck[0:G]`` to seat 0's positions 1..G, the next G cards to seat 1, and so on,
then the first discard, then the stock from the top down), plays scripted actions and
checks the cards, the knowledge and the scores. The ``cabo`` and ``competitive``
profiles are checked the same way at the end, and a table with every axis switched on
plays random rounds and matches.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

import attrs
import pytest

import cambio
from cambio import Action, ActionKind, Card, IllegalActionError, Match, Phase, Round, RuleSet
from cambio.rules import PRACTICE_POWERS, CombinationRules


def deal(*grids: Sequence[str], discard: str, stock: Sequence[str] = ()) -> list[str]:
    """A prepared deck: each seat's grid, the first discard, then the stock top-down."""
    out: list[str] = []
    for g in grids:
        out.extend(g)
    out.append(discard)
    out.extend(stock)
    return out


def table(base: str | RuleSet = "practice", **sections: dict[str, Any]) -> RuleSet:
    """A bundled profile (or a RuleSet) with fields of some sections changed."""
    rules = cambio.load_ruleset(base) if isinstance(base, str) else base
    changes = {
        section: attrs.evolve(getattr(rules, section), **fields)
        for section, fields in sections.items()
    }
    out = attrs.evolve(rules, **changes)
    assert cambio.check_rules(out) == []
    return out


def kinds(r: Round, player: int) -> set[ActionKind]:
    return {a.kind for a in r.legal_actions(player)}


def draw_discard(r: Round, player: int) -> None:
    """``player`` draws and throws the card away (the script's stock cards have no power)."""
    r.apply(Action.draw(player))
    r.apply(Action.discard(player))
    assert r.phase is not Phase.POWER


def cards(*texts: str) -> tuple[Card, ...]:
    return tuple(Card.parse(t) for t in texts)


# Sticking on the practice table: any moment, own cards or others'.
STICKING = {"when": "any-time", "targets": "any"}


# =========================================================================== deck
def test_two_decks_hold_104_cards_each_twice() -> None:
    rules = table(deck={"decks": 2})
    full = rules.deck.cards()
    assert len(full) == 104
    assert set(Counter(full).values()) == {2}
    r = Round(rules, 3, seed=4)
    assert len(r.deck) == 104
    assert r.stock_size == 104 - 3 * 4 - 1
    for decks in (3, 4):
        assert len(table(deck={"decks": decks}).deck.cards()) == 52 * decks
    assert ("deck.decks", "expected 1 or more decks, got 0") in cambio.check_rules(
        attrs.evolve(rules, deck=attrs.evolve(rules.deck, decks=0))
    )


def test_two_decks_prepared_duplicates_and_a_snap_on_the_identical_card() -> None:
    rules = table(deck={"decks": 2}, snap={"when": "any-time"})
    # P0 holds one 5S; the stock's top card is the other one.
    deck = deal(
        ["5S", "AS", "2S", "3S"],
        ["AC", "2C", "3C", "4C"],
        discard="6H",
        stock=["5S", "4H"],
    )
    r = Round(rules, 2, deck=deck, seed=1)
    assert r.deck.count(Card("5", "S")) == 2
    r.apply(Action.draw(0))
    assert r.view(0).holding == Card("5", "S")
    r.apply(Action.discard(0))
    assert r.window_open and r.to_act == 1
    # P0 snaps its own 5S on the identical 5S, during P1's turn
    r.apply(Action.snap(0, (0, 1)))
    assert r.hand(0)[:4] == (None, *cards("AS", "2S", "3S"))
    assert r.discard_pile[-2:] == cards("5S", "5S")
    assert not r.window_open
    # each physical copy is its own card: both are accounted for, once each
    placed = [c for row in r._slots for c in row if c >= 0] + r._stock + r._discard
    assert sorted(placed) == list(range(104))
    # a prepared deck cannot hold a card more often than the two decks do
    with pytest.raises(ValueError, match="more often"):
        Round(rules, 2, deck=["5S", "5S", "5S"], seed=1)


def test_a_subset_of_ranks() -> None:
    low = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10")
    base = cambio.load_ruleset("practice")
    # the practice powers and the red king name ranks this deck lacks: reported
    problems = dict(cambio.check_rules(attrs.evolve(base, deck=attrs.evolve(base.deck, ranks=low))))
    assert "never fires" in problems["powers.table[2].ranks[0]"]
    assert problems["values.red.K"] == "the deck holds no 'K'"
    rules = table(
        base, deck={"ranks": low}, values={"red": {}}, powers={"table": PRACTICE_POWERS[:2]}
    )
    assert len(rules.deck.cards()) == 40
    r = Round(rules, 4, seed=9)
    assert {c.rank for c in r.deck} == set(low)
    with pytest.raises(ValueError, match="more often"):
        Round(rules, 2, deck=["JS"], seed=1)
    deck = deal(["AS", "2S", "3S", "4S"], ["10S", "10H", "9S", "9H"], discard="5S", stock=["6S"])
    r = Round(rules, 2, deck=deck, seed=1)
    r.apply(Action.call(0))
    draw_discard(r, 1)
    assert r.result is not None and r.result.totals == (10, 38)


def test_the_dedicated_deck_numbered_0_to_13() -> None:
    rules = cambio.load_ruleset("cabo")
    full = rules.deck.cards()
    assert len(full) == 52
    counts = Counter(c.rank for c in full)
    assert counts == {"0": 2, "13": 2, **{str(n): 4 for n in range(1, 13)}}
    assert all(c.suit == "" for c in full)
    assert Card.parse("13") == Card("13", "")
    assert [rules.value(Card(str(n))) for n in range(14)] == list(range(14))
    deck = deal(["0", "13", "1", "2"], ["13", "12", "0", "11"], discard="3", stock=["7", "4"])
    r = Round(rules, 2, deck=deck, seed=1)
    assert r.view(0).own[2:4] == cards("1", "2")
    r.apply(Action.draw(0))
    r.apply(Action.discard(0))  # a 7: peek one own card
    assert r.phase is Phase.POWER and r.view(0).power == "peek"
    r.apply(Action.peek(0, 0, 2))
    assert r.view(0).known(0, 2) == Card("13")
    r.apply(Action.call(1))
    draw_discard(r, 0)
    res = r.result
    assert res is not None
    assert res.totals == (16, 36)
    with pytest.raises(ValueError, match="more often"):
        Round(rules, 2, deck=["13", "13", "13"], seed=1)


# =========================================================================== powers
def swapped_out_deck() -> list[str]:
    return deal(
        ["9S", "7H", "AS", "2S"],
        ["3C", "4C", "5C", "6C"],
        discard="2D",
        stock=["4H", "AH"],
    )


def test_a_swapped_out_card_fires_its_power() -> None:
    rules = table(powers={"swapped_out": True})
    r = Round(rules, 2, deck=swapped_out_deck(), seed=1)
    r.apply(Action.draw(0))
    r.apply(Action.replace(0, 1))  # the 9S goes out: peek another's card
    assert r.phase is Phase.POWER and r.to_act == 0
    assert r.view(0).power == "peek another's"
    assert r.events[-1].kind == "power" and r.events[-1].cards == cards("9S")
    r.apply(Action.peek(0, 1, 3))
    assert r.view(0).known(1, 3) == Card("5", "C")
    assert r.to_act == 1 and r.phase is Phase.TURN
    # a card taken from the pile that replaces a 7 still sends the 7 out with its power
    r.apply(Action.take(1))
    assert r.phase is Phase.TAKEN
    r.apply(Action.replace(1, 1))  # 3C out, no power
    assert r.to_act == 0 and r.phase is Phase.TURN
    r.apply(Action.take(0))
    r.apply(Action.replace(0, 2))  # 7H out: peek own
    assert r.phase is Phase.POWER and r.view(0).power == "peek own"


def test_a_swapped_out_card_does_not_fire_by_default() -> None:
    r = Round(cambio.load_ruleset("practice"), 2, deck=swapped_out_deck(), seed=1)
    r.apply(Action.draw(0))
    r.apply(Action.replace(0, 1))
    assert r.phase is Phase.TURN and r.to_act == 1
    assert not any(e.kind == "power" for e in r.events)


def test_mandatory_powers_cannot_be_skipped_while_a_target_exists() -> None:
    rules = table(powers={"optional": False})
    deck = deal(
        ["AS", "2S", "3S", "4S"],
        ["AC", "2C", "3C", "4C"],
        discard="5D",
        stock=["7H", "KS"],
    )
    r = Round(rules, 2, deck=deck, seed=1)
    r.apply(Action.draw(0))
    r.apply(Action.discard(0))
    assert r.phase is Phase.POWER
    assert kinds(r, 0) == {ActionKind.PEEK}
    assert not r.can_apply(Action.skip(0))
    with pytest.raises(IllegalActionError):
        r.apply(Action.skip(0))
    r.apply(Action.peek(0, 0, 1))
    # the black king: its peek is mandatory, its swap is an optional step
    r.apply(Action.draw(1))
    r.apply(Action.discard(1))
    assert ActionKind.SKIP not in kinds(r, 1)
    r.apply(Action.peek(1, 0, 2))
    assert kinds(r, 1) == {ActionKind.SKIP, ActionKind.SWAP}
    r.apply(Action.skip(1))
    assert r.to_act == 0 and r.phase is Phase.TURN


def test_a_mandatory_power_without_a_target_is_skipped() -> None:
    # Two players; P1 calls with its grid locked, so P0's final jack has no swap.
    rules = table(powers={"optional": False}, call={"caller_locked": True})
    deck = deal(
        ["AS", "2S", "3S", "4S"],
        ["AC", "2C", "3C", "4C"],
        discard="5D",
        stock=["6D", "JH"],
    )
    r = Round(rules, 2, deck=deck, seed=1)
    draw_discard(r, 0)
    r.apply(Action.call(1))
    r.apply(Action.draw(0))
    r.apply(Action.discard(0))
    assert r.phase is Phase.POWER
    assert [str(a) for a in r.legal_actions(0)] == ["P0 skip"]
    r.apply(Action.skip(0))
    assert r.result is not None and r.result.reason == "call"


# =========================================================================== snapping
def several_deck(second: str) -> list[str]:
    return deal(
        ["AS", "2S", "3S", "4S"],
        ["5C", second, "AH", "2H"],
        discard="9D",
        stock=["5D", "3D", "4D"],
    )


def test_several_cards_per_snap_all_at_once() -> None:
    rules = table(snap={"when": "any-time", "several": True})
    r = Round(rules, 2, deck=several_deck("5H"), seed=1)
    draw_discard(r, 0)  # a 5 on the pile
    both = Action.snap(1, (1, 1), (1, 2))
    assert both in r.legal_actions(1)
    assert Action.snap(1, (1, 1)) in r.legal_actions(1)  # one card alone is still allowed
    r.apply(both)
    assert r.hand(1)[:4] == (None, None, *cards("AH", "2H"))
    assert r.discard_pile[-3:] == cards("5D", "5C", "5H")
    assert not r.window_open
    assert r.events[-1].kind == "snap" and r.events[-1].cards == cards("5C", "5H")
    assert all(r.view(p).known(1, 1) is None for p in (0, 1))
    assert r.view(0).present[1][:4] == (False, False, True, True)


def test_several_cards_per_snap_all_or_nothing() -> None:
    rules = table(snap={"when": "any-time", "several": True})
    r = Round(rules, 2, deck=several_deck("6H"), seed=1)
    draw_discard(r, 0)
    pile = r.discard_pile
    r.apply(Action.snap(1, (1, 1), (1, 2)))  # 5C matches, 6H does not: both stay
    assert r.hand(1)[:5] == (*cards("5C", "6H", "AH", "2H"), Card("3", "D"))
    assert r.discard_pile == pile
    assert [e.kind for e in r.events[-2:]] == ["wrong-snap", "penalty"]
    assert r.events[-1].positions == ((1, 5),)  # one penalty card, whatever the count
    assert r.view(0).known(1, 1) == Card("5", "C") and r.view(0).known(1, 2) == Card("6", "H")
    assert r.view(1).known(1, 5) is None  # the penalty card is face down
    assert r.window_open and not any(a.kind is ActionKind.SNAP for a in r.legal_actions(1))


@pytest.mark.parametrize("seen_by", ["all", "snapper"])
def test_who_sees_a_wrong_snap(seen_by: str) -> None:
    rules = table(snap={**STICKING, "wrong_seen_by": seen_by})
    deck = deal(
        ["AS", "2S", "3S", "4S"],
        ["AC", "2C", "3C", "4C"],
        ["9H", "8H", "7H", "6H"],
        discard="9D",
        stock=["5D", "JD", "QD"],
    )
    r = Round(rules, 3, deck=deck, seed=1)
    draw_discard(r, 0)
    r.apply(Action.snap(1, (2, 1)))  # P1 snaps P2's 9H on a 5: wrong
    wrong = r.events[-2]
    assert wrong.kind == "wrong-snap" and wrong.cards == cards("9H")
    assert r.hand(2)[0] == Card("9", "H")
    assert r.view(1).known(2, 1) == Card("9", "H")
    others = [r.view(p) for p in (0, 2)]
    if seen_by == "all":
        assert wrong.public
        assert all(v.known(2, 1) == Card("9", "H") for v in others)
    else:
        assert wrong.seen_by == frozenset({1})
        # nobody else, not even the card's owner, learns the card
        assert all(v.known(2, 1) is None for v in others)
        assert all(
            [e for e in v.history if e.kind == "wrong-snap"][0].cards == (None,) for v in others
        )


ARBITRATION_DECK = deal(
    ["AS", "2S", "3S", "JS"],
    ["4C", "2C", "3C", "AC"],
    ["4H", "2H", "3H", "AH"],
    discard="9D",
    stock=["4D", "5D", "6D", "7D"],
)


def snapped_by(rules: RuleSet, order: Sequence[int], seed: int = 1) -> tuple[Round, int]:
    """P0 discards a 4; P1 and P2 both snap their own 4 at once, declared in ``order``."""
    r = Round(rules, 3, deck=ARBITRATION_DECK, seed=seed)
    draw_discard(r, 0)
    events = r.resolve_snaps([Action.snap(p, (p, 1)) for p in order])
    snaps = [e for e in events if e.kind == "snap"]
    assert len(snaps) == 1 and not any(e.kind == "wrong-snap" for e in events)
    winner = snaps[0].player
    loser = 3 - winner
    assert r.hand(winner)[0] is None and r.hand(loser)[0] == r.deck[4 * loser]
    # only the winning snap is recorded; the other was void, not a wrong snap
    assert [a for a in r.actions if a.kind is ActionKind.SNAP] == [Action.snap(winner, (winner, 1))]
    return r, winner


def test_arbitration_first_to_act() -> None:
    rules = table(snap={"when": "any-time", "arbitration": "first"})
    assert snapped_by(rules, [2, 1])[1] == 2
    assert snapped_by(rules, [1, 2])[1] == 1


def test_arbitration_seat_order_from_the_discarder() -> None:
    rules = table(snap={"when": "any-time", "arbitration": "seat-order"})
    assert snapped_by(rules, [2, 1])[1] == 1
    assert snapped_by(rules, [1, 2])[1] == 1
    # the discarder itself comes first: P0 holds a 4 too
    deck = ["4S", *ARBITRATION_DECK[1:]]
    deck[3] = "JS"
    r = Round(rules, 3, deck=deck, seed=1)
    draw_discard(r, 0)
    r.resolve_snaps([Action.snap(p, (p, 1)) for p in (2, 1, 0)])
    assert [e.player for e in r.events if e.kind == "snap"] == [0]
    assert r.hand(1)[0] == Card("4", "C") and r.hand(2)[0] == Card("4", "H")


def test_arbitration_random_is_seeded() -> None:
    rules = table(snap={"when": "any-time", "arbitration": "random"})
    winners = {seed: snapped_by(rules, [1, 2], seed)[1] for seed in range(12)}
    assert set(winners.values()) == {1, 2}  # either may win ...
    for seed, winner in winners.items():
        assert snapped_by(rules, [1, 2], seed)[1] == winner  # ... and the seed decides
    r, _ = snapped_by(rules, [1, 2], 3)
    assert Round.replay(rules, r.action_ids, players=3, deck=r.deck, seed=3) == r
