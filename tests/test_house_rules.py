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
from cambio.scoring import RoundResult
from decks import deal, table


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
    # the practice powers on J, Q and K and the red king's value name ranks this deck
    # lacks: unused entries, judged alike and accepted (a K never comes, so none fires)
    short = attrs.evolve(base, deck=attrs.evolve(base.deck, ranks=low))
    assert cambio.check_rules(short) == []
    assert {c.rank for c in Round(short, 4, seed=9).deck} == set(low)
    rules = table(base, deck={"ranks": low}, powers={"table": PRACTICE_POWERS[:2]})
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
    r.apply(Action.peek(0, (0, 2)))
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
    r.apply(Action.peek(0, (1, 3)))
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
    r.apply(Action.peek(0, (0, 1)))
    # the black king: its peek is mandatory, its swap is an optional step
    r.apply(Action.draw(1))
    r.apply(Action.discard(1))
    assert ActionKind.SKIP not in kinds(r, 1)
    r.apply(Action.peek(1, (0, 2)))
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
            next(e for e in v.history if e.kind == "wrong-snap").cards == (None,) for v in others
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


# =========================================================================== exchange
def exchange_deck(second: str) -> list[str]:
    return deal(
        ["5S", second, "AS", "2S"],
        ["AC", "2C", "3C", "4C"],
        discard="9D",
        stock=["3D", "4D", "6D"],
    )


def test_exchange_several_equal_cards_for_the_drawn_card() -> None:
    rules = table(turn={"exchange_equal": True})
    r = Round(rules, 2, deck=exchange_deck("5H"), seed=1)
    r.apply(Action.draw(0))
    assert Action.exchange(0, 1, 2) in r.legal_actions(0)
    r.apply(Action.exchange(0, 1, 2))
    # the drawn card takes the first named position, the others stay empty
    assert r.hand(0)[:4] == (Card("3", "D"), None, *cards("AS", "2S"))
    assert r.discard_pile[-2:] == cards("5S", "5H")
    assert r.events[-2].kind == "exchange" and r.events[-2].public
    assert r.view(0).known(0, 1) == Card("3", "D")  # the drawer saw its draw
    assert r.view(1).known(0, 1) is None  # the other player did not
    assert r.to_act == 1
    # a taken discard may be exchanged too (here for three cards: a wrong guess)
    r.apply(Action.take(1))
    assert Action.exchange(1, 1, 2, 3) in r.legal_actions(1)


def test_a_failed_exchange_keeps_the_cards_and_the_drawn_card_face_up() -> None:
    rules = table(turn={"exchange_equal": True, "exchange_failure": "keep-drawn"})
    r = Round(rules, 2, deck=exchange_deck("6H"), seed=1)
    r.apply(Action.draw(0))
    pile = r.discard_pile
    r.apply(Action.exchange(0, 1, 2))
    assert r.hand(0)[:5] == cards("5S", "6H", "AS", "2S", "3D")
    assert r.discard_pile == pile
    failed = r.events[-2]
    assert failed.kind == "failed-exchange" and failed.public
    assert failed.positions == ((0, 1), (0, 2), (0, 5))
    for p in (0, 1):  # face up: everyone knows all three
        v = r.view(p)
        assert (v.known(0, 1), v.known(0, 2), v.known(0, 5)) == cards("5S", "6H", "3D")
    assert r.to_act == 1 and r.phase is Phase.TURN


def test_a_failed_exchange_may_discard_the_drawn_card_instead() -> None:
    rules = table(turn={"exchange_equal": True, "exchange_failure": "discard-drawn"})
    r = Round(rules, 2, deck=exchange_deck("6H"), seed=1)
    r.apply(Action.draw(0))
    r.apply(Action.exchange(0, 1, 2))
    assert r.hand(0)[:5] == (*cards("5S", "6H", "AS", "2S"), None)
    assert r.discard_pile[-1] == Card("3", "D")
    assert r.view(1).known(0, 1) == Card("5", "S") and r.view(1).known(0, 2) == Card("6", "H")
    assert r.to_act == 1


def test_no_exchange_without_the_switch() -> None:
    r = Round(cambio.load_ruleset("practice"), 2, deck=exchange_deck("5H"), seed=1)
    r.apply(Action.draw(0))
    assert ActionKind.EXCHANGE not in kinds(r, 0)
    with pytest.raises(IllegalActionError):
        r.apply(Action.exchange(0, 1, 2))


# =========================================================================== calling
LOCK_DECK = deal(
    ["JS", "2S", "3S", "4S"],
    ["AC", "2C", "3C", "4C"],
    ["AH", "2H", "3H", "4H"],
    discard="9D",
    stock=["QD", "JD", "5D", "6D"],
)


def test_the_callers_grid_is_locked_after_the_call() -> None:
    rules = table(call={"caller_locked": True}, snap=STICKING)
    r = Round(rules, 3, deck=LOCK_DECK, seed=1)
    r.apply(Action.call(0))
    r.apply(Action.draw(1))
    r.apply(Action.discard(1))  # a queen: blind swap, own with another's
    swaps = [a for a in r.legal_actions(1) if a.kind is ActionKind.SWAP]
    assert swaps and all(owner != 0 for a in swaps for owner, _ in a.positions)
    assert not r.can_apply(Action.swap(1, (1, 1), (0, 1)))
    r.apply(Action.skip(1))
    # a jack on the pile: P0 holds a jack, but nobody may snap it, P0 included
    r.apply(Action.draw(2))
    r.apply(Action.discard(2))
    r.apply(Action.skip(2))
    assert r.discard_pile[-1] == Card("J", "D")
    for p in range(3):
        assert not r.can_apply(Action.snap(p, (0, 1)))
        snaps = [a for a in r.legal_actions(p) if a.kind is ActionKind.SNAP]
        assert all(owner != 0 for a in snaps for owner, _ in a.positions)
    assert r.result is not None and r.hand(0)[0] == Card("J", "S")


def test_the_callers_grid_stays_open_by_default() -> None:
    rules = table(snap=STICKING)
    r = Round(rules, 3, deck=LOCK_DECK, seed=1)
    r.apply(Action.call(0))
    r.apply(Action.draw(1))
    r.apply(Action.discard(1))
    assert r.can_apply(Action.swap(1, (1, 1), (0, 1)))
    r.apply(Action.skip(1))
    r.apply(Action.draw(2))
    r.apply(Action.discard(2))
    assert r.can_apply(Action.snap(1, (0, 1)))
    r.apply(Action.snap(1, (0, 1)))
    assert r.phase is Phase.GIVE and r.to_act == 1


def test_a_locked_caller_cannot_change_its_own_grid_by_snapping() -> None:
    rules = table(call={"caller_locked": True}, snap=STICKING)
    deck = deal(
        ["AS", "2S", "3S", "4S"],
        ["AC", "2C", "3C", "4C"],
        ["5H", "2H", "3H", "4H"],
        discard="9D",
        stock=["5D", "6D", "7D"],
    )
    r = Round(rules, 3, deck=deck, seed=1)
    r.apply(Action.call(0))
    draw_discard(r, 1)  # a 5 on the pile; P2 holds the 5H
    before = r.hand(0)
    # Snapping P2's 5H would make P0 give one of its locked cards away; a wrong snap
    # would add a penalty card to the locked grid.
    assert not r.can_apply(Action.snap(0, (2, 1)))
    assert not r.can_apply(Action.snap(0, (2, 2)))
    assert r.hand(0) == before


def test_no_call_before_every_player_had_the_earliest_turns() -> None:
    rules = table(call={"earliest": 1})
    deck = deal(
        ["AS", "2S", "3S", "4S"],
        ["AC", "2C", "3C", "4C"],
        ["AH", "2H", "3H", "4H"],
        discard="9D",
        stock=["5D", "6D", "5C", "6C"],
    )
    r = Round(rules, 3, deck=deck, seed=1)
    for p in range(3):
        assert r.to_act == p and ActionKind.CALL not in kinds(r, p)
        assert not r.can_apply(Action.call(p))
        draw_discard(r, p)
    assert r.view(0).turns == (1, 1, 1)
    assert r.to_act == 0 and ActionKind.CALL in kinds(r, 0)
    r.apply(Action.call(0))
    assert r.caller == 0
    # two turns each
    rules = table(call={"earliest": 2})
    r = Round(rules, 3, deck=deck, seed=1)
    for p in (0, 1, 2, 0):
        assert not r.can_apply(Action.call(p))
        draw_discard(r, p)
    assert not r.can_apply(Action.call(1))


def test_calling_at_the_end_of_ones_turn() -> None:
    rules = table(call={"timing": "end-of-turn"})
    deck = deal(
        ["AS", "2S", "3S", "4S"],
        ["AC", "2C", "3C", "4C"],
        ["AH", "2H", "3H", "4H"],
        discard="9D",
        stock=["5D", "7D", "5C", "6C", "6H"],
    )
    r = Round(rules, 3, deck=deck, seed=1)
    assert kinds(r, 0) == {ActionKind.DRAW, ActionKind.TAKE}  # no call before drawing
    draw_discard(r, 0)
    assert r.phase is Phase.END_OF_TURN and r.to_act == 0
    assert [str(a) for a in r.legal_actions(0)] == ["P0 call", "P0 pass"]
    r.apply(Action.pass_(0))
    assert r.to_act == 1 and r.phase is Phase.TURN
    # a power first, then the end of the turn
    r.apply(Action.draw(1))
    r.apply(Action.discard(1))
    assert r.phase is Phase.POWER
    r.apply(Action.peek(1, (1, 1)))
    assert r.phase is Phase.END_OF_TURN and r.to_act == 1
    r.apply(Action.call(1))
    assert r.caller == 1
    assert r.view(0).turns == (1, 1, 0)
    # the others' final turns: P2 then P0; they cannot call, and just pass on
    for p in (2, 0):
        assert r.to_act == p
        draw_discard(r, p)
    res = r.result
    assert res is not None and res.reason == "call" and res.caller == 1


def test_no_end_of_turn_call_once_the_stock_has_run_out() -> None:
    # Sixteen cards, three players: a stock of three.
    rules = table(
        players={"max": 3},
        deck={"ranks": ("A", "2", "3", "4")},
        values={"red": {}},
        powers={"table": ()},
        call={"timing": "end-of-turn", "lowest_scores_zero": True, "penalty": 10},
    )
    deck = deal(
        ["2S", "2H", "2D", "2C"],
        ["3S", "3H", "3D", "3C"],
        ["AS", "AH", "AD", "AC"],
        discard="4S",
        stock=["4H", "4D", "4C"],
    )
    r = Round(rules, 3, deck=deck, seed=1)
    for p in (0, 1):
        draw_discard(r, p)
        r.apply(Action.pass_(p))
    draw_discard(r, 2)  # the last card: the round is scored as it stands
    assert r.stock_size == 0
    assert not r.can_apply(Action.call(2))
    assert r.result is not None and r.result.reason == "stock" and r.result.caller is None


def final_turn_order(call: dict[str, Any]) -> list[int]:
    rules = table(call=call)
    deck = deal(
        ["AS", "2S", "3S", "4S"],
        ["AC", "2C", "3C", "4C"],
        ["AH", "2H", "3H", "4H"],
        discard="9D",
        stock=["5D", "6D", "5C", "6C", "5H", "6H"],
    )
    r = Round(rules, 3, deck=deck, seed=1)
    r.apply(Action.call(0))
    order = []
    while not r.is_over:
        p = r.to_act
        assert p is not None
        order.append(p)
        draw_discard(r, p)
    assert r.result is not None and r.result.reason == "call"
    return order


def test_final_turns() -> None:
    assert final_turn_order({}) == [1, 2]
    assert final_turn_order({"final_turns": 2}) == [1, 2, 1, 2]
    assert final_turn_order({"final_turns": 2, "caller_final_turn": True}) == [1, 2, 1, 2, 0]
    assert final_turn_order({"caller_final_turn": True}) == [1, 2, 0]
    assert final_turn_order({"final_turns": 0}) == []
    assert final_turn_order({"final_turns": 0, "caller_final_turn": True}) == [0]


def test_a_turn_cap_ends_the_round() -> None:
    rules = table(turn={"max_turns": 4})
    deck = deal(
        ["AS", "2S", "3S", "4S"],
        ["AC", "2C", "3C", "4C"],
        ["AH", "2H", "3H", "4H"],
        discard="9D",
        stock=["5D", "6D", "5C", "6C", "5H", "6H"],
    )
    r = Round(rules, 3, deck=deck, seed=1)
    for p in (0, 1, 2, 0):
        assert not r.is_over
        draw_discard(r, p)
    res = r.result
    assert res is not None
    assert res.reason == "turn-cap" and r.turns_taken == 4
    assert res.caller is None and res.totals == (10, 10, 10) and res.winners == (0, 1, 2)
    # with no cap the round would go on
    r = Round(cambio.load_ruleset("practice"), 3, deck=deck, seed=1)
    for p in (0, 1, 2, 0):
        draw_discard(r, p)
    assert not r.is_over


REPLAY_DECK = deal(
    ["AS", "2S", "3S", "JS"],
    ["4C", "2C", "3C", "AC"],
    ["4H", "2H", "3H", "AH"],
    discard="9D",
    stock=["4D", "2D", "6D", "7D"],
)


def test_random_arbitration_is_the_same_after_a_replay() -> None:
    # A replay of the recorded actions settles later simultaneous snaps as the original.
    rules = table(snap={"when": "any-time", "arbitration": "random"})
    differ = []
    for seed in range(12):
        r = Round(rules, 3, deck=REPLAY_DECK, seed=seed)
        draw_discard(r, 0)  # a 4: P1 and P2 snap at once
        r.resolve_snaps([Action.snap(1, (1, 1)), Action.snap(2, (2, 1))])
        twin = Round.replay(rules, r.action_ids, players=3, deck=r.deck, seed=seed)
        assert twin == r
        for rnd in (r, twin):
            draw_discard(rnd, 1)  # a 2: P0 and P2 snap at once
            rnd.resolve_snaps([Action.snap(0, (0, 2)), Action.snap(2, (2, 2))])
        if twin.action_ids != r.action_ids:
            differ.append(seed)
    assert differ == []


# =========================================================================== scoring and match
# Cabo values: each card its number. P0's 13 13 12 12 is 50 (and the four-card
# combination, off on the cabo table); P1's 1 2 3 4 is 10.
FIFTY = ["13", "13", "12", "12"]
TEN = ["1", "2", "3", "4"]
CABO_ROUND = deal(FIFTY, TEN, discard="5", stock=["6", "5", "4", "6", "5"])


def finish_round(m: Match, caller: int) -> None:
    """``caller`` calls at its first turn; everyone else draws and discards (no power)."""
    number = m.round_number
    while not m.is_over and m.round_number == number:
        p = m.to_act
        assert p is not None
        if p == caller and m.can_apply(Action.call(p)):
            m.apply(Action.call(p))
            continue
        m.apply(Action.draw(p))
        m.apply(Action.discard(p))
        assert m.is_over or m.round_number != number or m.round.phase is not Phase.POWER


def test_exactly_the_limit_halves_once_per_match() -> None:
    rules = table("cabo", match={"first_dealer": "first-seat"})  # the decks suit seat 0 dealing
    m = Match(rules, 2, seed=3, decks=[CABO_ROUND] * 4)
    assert (m.dealer, m.starter) == (0, 1)
    finish_round(m, caller=1)
    assert m.records[0].scores == (50, 0)  # the lowest caller scores 0; no combination
    finish_round(m, caller=1)
    assert m.records[1].scores == (50, 0)
    assert m.records[1].adjustments == (-50, 0)
    assert m.totals == (50, 0)
    assert [e.player for e in m.events if e.kind == "halved"] == [0]
    finish_round(m, caller=1)  # exactly 100 again: no second halving, and not past 100
    assert m.records[2].adjustments == (0, 0)
    assert m.totals == (100, 0) and not m.is_over
    finish_round(m, caller=1)
    res = m.result
    assert res is not None
    assert res.totals == (150, 0) and res.winners == (1,) and res.reason == "limit"


def test_exactly_the_limit_halves_every_time() -> None:
    rules = table("cabo", match={"exact_limit": "always"})
    m = Match(rules, 2, seed=3, decks=[CABO_ROUND] * 4)
    for _ in range(4):
        finish_round(m, caller=1)
    assert [r.adjustments for r in m.records] == [(0, 0), (-50, 0), (-50, 0), (-50, 0)]
    assert m.totals == (50, 0) and not m.is_over


def test_exactly_the_limit_halves_before_the_end_is_checked() -> None:
    rules = table("cabo", match={"at_limit": True})
    m = Match(rules, 2, seed=3, decks=[CABO_ROUND] * 3)
    finish_round(m, caller=1)
    finish_round(m, caller=1)
    assert m.totals == (50, 0) and not m.is_over  # 100 reached, halved, so not reached
    finish_round(m, caller=1)
    assert m.result is not None and m.result.totals == (100, 0)


COMBINATION = CombinationRules(ranks=("12", "12", "13", "13"), holder=0, others=50)


def test_the_four_card_combination() -> None:
    rules = table("cabo", scoring={"combination": COMBINATION})
    deck = deal(FIFTY, TEN, ["0", "0", "1", "1"], discard="5", stock=["6", "5", "4"])
    r = Round(rules, 3, deck=deck, seed=1)
    r.apply(Action.call(0))  # the holder calls, though not lowest
    draw_discard(r, 1)
    draw_discard(r, 2)
    res = r.result
    assert res is not None
    assert res.totals == (50, 10, 2)
    assert res.combination == 0
    assert res.scores == (0, 50, 50) and res.winners == (0,)
    # off on the cabo table: the same hands score their totals, the caller +10
    r = Round(cambio.load_ruleset("cabo"), 3, deck=deck, seed=1)
    r.apply(Action.call(0))
    draw_discard(r, 1)
    draw_discard(r, 2)
    assert r.result is not None and r.result.combination is None
    assert r.result.scores == (60, 10, 2) and r.result.winners == (2,)


def test_the_combination_needs_exactly_those_four_cards() -> None:
    rules = table("cabo", scoring={"combination": COMBINATION})
    # the holder of 13 13 12 12 takes a failed-exchange extra card: five cards, no combination
    deck = deal(FIFTY, TEN, discard="5", stock=["6", "5", "4"])
    r = Round(rules, 2, deck=deck, seed=1)
    r.apply(Action.draw(0))
    r.apply(Action.exchange(0, 1, 3))  # 13 and 12: wrong, the 6 joins the grid face up
    assert r.hand(0)[:5] == cards("13", "13", "12", "12", "6")
    r.apply(Action.call(1))
    draw_discard(r, 0)
    res = r.result
    assert res is not None and res.combination is None
    assert res.scores == (56, 0)


# =========================================================================== cabo
def cabo(*grids: Sequence[str], stock: Sequence[str] = ("6", "5", "4", "6")) -> Round:
    return Round("cabo", len(grids), deck=deal(*grids, discard="5", stock=stock), seed=1)


def test_cabo_caller_scores_zero_when_lowest_or_tied_else_total_plus_ten() -> None:
    def called(*grids: Sequence[str]) -> RoundResult:
        r = cabo(*grids)
        r.apply(Action.call(0))
        for p in range(1, len(grids)):
            draw_discard(r, p)
        assert r.result is not None and r.result.reason == "call"
        return r.result

    res = called(TEN, FIFTY, ["6", "6", "0", "0"])  # lowest: 0; the others their totals
    assert res.totals == (10, 50, 12) and res.scores == (0, 50, 12)
    res = called(TEN, ["4", "3", "2", "1"])  # tied for the lowest: counts as lowest
    assert res.caller_lowest and res.scores == (0, 10) and res.winners == (0, 1)
    res = called(["5", "3", "2", "1"], TEN, FIFTY)  # 11 against 10: 11 + 10
    assert not res.caller_lowest and res.scores == (21, 10, 50) and res.winners == (1,)


def test_cabo_powers_and_the_discard_pile() -> None:
    r = cabo(TEN, FIFTY, stock=["9", "11", "7", "6"])
    r.apply(Action.draw(0))
    r.apply(Action.discard(0))  # 9: spy on another player's card
    assert r.view(0).power == "spy"
    assert {a.positions[0][0] for a in r.legal_actions(0) if a.kind is ActionKind.PEEK} == {1}
    r.apply(Action.peek(0, (1, 1)))
    # P1 takes the 9 from the pile: it must go into the grid and grants nothing
    r.apply(Action.take(1))
    assert kinds(r, 1) == {ActionKind.REPLACE, ActionKind.EXCHANGE}
    r.apply(Action.exchange(1, 3, 4))  # the two 12s for the 9
    assert r.hand(1)[:4] == (*cards("13", "13", "9"), None)
    assert r.phase is Phase.TURN and r.to_act == 0
    # an 11: a blind swap of one own card with another player's
    r.apply(Action.draw(0))
    r.apply(Action.discard(0))
    assert r.view(0).power == "swap"
    r.apply(Action.swap(0, (0, 1), (1, 1)))
    assert r.hand(0)[0] == Card("13") and r.hand(1)[0] == Card("1")


def test_cabo_has_no_snapping() -> None:
    r = cabo(TEN, ["6", "5", "5", "1"])
    r.apply(Action.draw(0))
    r.apply(Action.discard(0))  # a 6 on the pile, P1 holds a 6
    assert not r.window_open and r.reactors == ()
    assert not any(a.kind is ActionKind.SNAP for a in r.legal_actions())
    assert not r.can_apply(Action.snap(1, (1, 1)))


def test_cabo_failed_exchange_keeps_the_drawn_card() -> None:
    r = cabo(["5", "6", "1", "2"], FIFTY, stock=["3", "4"])
    r.apply(Action.draw(0))
    r.apply(Action.exchange(0, 1, 2))
    assert r.hand(0)[:5] == cards("5", "6", "1", "2", "3")
    assert r.view(1).known(0, 5) == Card("3")


def test_cabo_round_ends_when_the_stock_runs_out() -> None:
    r = Round("cabo", 2, seed=5)
    while not r.is_over:
        p = r.to_act
        assert p is not None
        options = {a.kind: a for a in r.legal_actions(p)}
        for kind in (ActionKind.DRAW, ActionKind.DISCARD, ActionKind.SKIP):
            if kind in options:
                r.apply(options[kind])
                break
        else:
            pytest.fail(f"no draw, discard or skip for P{p} in {r.phase}")
    assert r.result is not None and r.result.reason == "stock"
    assert r.stock_size == 0 and not any(e.kind == "recycle" for e in r.events)


# =========================================================================== competitive
def test_competitive_switches() -> None:
    rules = cambio.load_ruleset("competitive")
    snap = cambio.load_ruleset("snap")
    assert rules.powers.swapped_out and not snap.powers.swapped_out
    assert rules.snap.targets == "any" and rules.snap.several
    assert rules.snap.arbitration == "random" and rules.snap.wrong_seen_by == "all"
    assert rules.call.caller_locked is False
    assert (
        attrs.evolve(
            rules,
            name="snap",
            summary=snap.summary,
            powers=snap.powers,
            snap=snap.snap,
        )
        == snap
    )


def test_competitive_round_swapped_out_power_and_a_double_snap() -> None:
    deck = deal(
        ["9S", "AS", "2S", "3S"],
        ["9H", "9C", "4H", "5H"],
        ["AC", "2C", "3C", "4C"],
        discard="6D",
        stock=["AH", "7C", "8C"],
    )
    r = Round("competitive", 3, deck=deck, seed=1)
    r.apply(Action.draw(0))
    r.apply(Action.replace(0, 1))  # the 9S goes out: its power fires, and it can be snapped
    assert r.phase is Phase.POWER and r.window_open
    # during P0's power, P1 throws both its nines at once
    r.apply(Action.snap(1, (1, 1), (1, 2)))
    assert r.hand(1)[:4] == (None, None, *cards("4H", "5H"))
    assert r.discard_pile[-3:] == cards("9S", "9H", "9C")
    assert r.phase is Phase.POWER and r.to_act == 0
    targets = {a.positions[0] for a in r.legal_actions(0) if a.kind is ActionKind.PEEK}
    assert (1, 1) not in targets and (1, 3) in targets
    r.apply(Action.peek(0, (1, 3)))
    assert r.view(0).known(1, 3) == Card("4", "H")
    assert r.to_act == 1 and r.phase is Phase.TURN


# =========================================================================== every axis at once
EVERYTHING = table(
    "practice",
    deck={"decks": 2},
    turn={"exchange_equal": True, "max_turns": 80},
    powers={"swapped_out": True, "optional": False},
    snap={
        "when": "any-time",
        "targets": "any",
        "several": True,
        "wrong_seen_by": "snapper",
        "arbitration": "random",
    },
    call={
        "caller_locked": True,
        "earliest": 1,
        "timing": "end-of-turn",
        "final_turns": 2,
        "caller_final_turn": True,
        "penalty": 10,
        "lowest_scores_zero": True,
    },
    scoring={"combination": CombinationRules(ranks=("Q", "Q", "K", "K"))},
    match={"end": "limit", "limit": 100, "exact_limit": "once"},
)
EVERYTHING_CABO = table(
    "cabo",
    turn={"exchange_failure": "discard-drawn", "max_turns": 60},
    snap={"when": "after-other-discard", "several": True, "arbitration": "seat-order"},
    call={"final_turns": 2, "caller_locked": True},
    scoring={"combination": COMBINATION},
    match={"exact_limit": "always"},
)


def right_snaps(r: Round, player: int) -> list[Action]:
    """``player``'s snaps that would be right (an omniscient test driver, not a bot)."""
    top = r.discard_pile[-1]
    key = r.rules.values.of if r.rules.snap.match == "value" else (lambda c: c.rank)
    out = []
    for a in r.legal_actions(player):
        if a.kind is ActionKind.SNAP:
            held = [r.hand(o)[p - 1] for o, p in a.positions]
            if all(c is not None and key(c) == key(top) for c in held):
                out.append(a)
    return out


def random_step(r: Round | Match, rng: random.Random) -> None:
    """One random legal move: a random kind of action, then one of that kind. Now and
    then every reactor snaps at once; in a round, snaps are often right ones."""
    reactors = r.reactors
    if reactors and rng.random() < 0.3:
        snaps = []
        for p in reactors:
            mine = right_snaps(r, p) if isinstance(r, Round) else []
            if not mine or rng.random() < 0.3:
                mine = [a for a in r.legal_actions(p) if a.kind is ActionKind.SNAP]
            snaps.append(rng.choice(mine))
        r.resolve_snaps(snaps)
        return
    by_kind: dict[ActionKind, list[Action]] = {}
    for a in r.legal_actions(None):
        by_kind.setdefault(a.kind, []).append(a)
    assert by_kind
    if len(by_kind) > 1 and rng.random() < 0.9:
        by_kind.pop(ActionKind.CALL, None)
    kind = rng.choice(sorted(by_kind))
    r.apply(rng.choice(by_kind[kind]))


@pytest.mark.parametrize("rules", [EVERYTHING, EVERYTHING_CABO], ids=["standard", "cabo"])
def test_every_axis_at_once_random_rounds(rules: RuleSet) -> None:
    reasons = set()
    for seed in range(6):
        players = rules.players.min + seed % (rules.players.max - rules.players.min + 1)
        rng = random.Random(seed)
        r = Round(rules, players, seed=seed)
        steps = 0
        while not r.is_over:
            random_step(r, rng)
            steps += 1
            assert steps < 5000
            placed = [c for row in r._slots for c in row if c >= 0]
            placed += r._stock + r._discard + ([r._drawn] if r._drawn >= 0 else [])
            assert sorted(placed) == list(range(len(r.deck)))
            if steps % 25 == 0:
                assert Round.from_json(r.to_json()) == r
        again = Round.replay(rules, r.action_ids, players=players, seed=seed)
        assert again == r
        assert r.result is not None
        reasons.add(r.result.reason)
    assert reasons <= {"call", "stock", "turn-cap", "empty-grid"}


@pytest.mark.parametrize("rules", [EVERYTHING, EVERYTHING_CABO], ids=["standard", "cabo"])
def test_every_axis_at_once_random_matches(rules: RuleSet) -> None:
    for seed in range(3):
        rng = random.Random(seed)
        m = Match(rules, 3, seed=seed)
        steps = 0
        while not m.is_over:
            random_step(m, rng)
            steps += 1
            assert steps < 100_000
        res = m.result
        assert res is not None and res.reason in ("limit", "round-cap")
        for s in range(3):
            assert res.totals[s] == sum((r.scores[s] or 0) + r.adjustments[s] for r in res.rounds)
        assert Match.from_json(m.to_json()) == m
