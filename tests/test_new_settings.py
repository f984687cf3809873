"""Settings of issue 31, each played from a written position or a prepared deck."""

from __future__ import annotations

import random
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cambio import (
    Action,
    ActionKind,
    Card,
    EventKind,
    Match,
    Phase,
    Round,
    RuleSet,
    available_variants,
    check_rules,
    load_ruleset,
)
from cambio.errors import RuleSetError
from cambio.invariants import ensure_consistent
from cambio.loading import ruleset_from_toml
from decks import deal, random_step, seat_counts, table


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


# =========================================================================== match.tied_winners
def _play_round(m: Match) -> None:
    """Play the current round to its end: call at once, otherwise draw and throw away."""
    number = m.round_number
    while not m.is_over and m.round_number == number:
        who = m.to_act
        assert who is not None
        legal = [a for a in m.legal_actions(who) if a.kind is not ActionKind.SNAP]
        order = [ActionKind.CALL, ActionKind.DISCARD, ActionKind.SKIP, ActionKind.DRAW]
        m.apply(next((a for k in order for a in legal if a.kind is k), legal[0]))


# seats 0 and 2 tie for the lowest total (10 each); seat 1 holds 38
TIED = deal(
    ["AS", "2S", "3S", "4S"],
    ["10S", "10H", "9S", "9H"],
    ["AH", "2H", "3H", "4H"],
    discard="5D",
    stock=["5C", "6C", "6D", "5H"],
)


@pytest.mark.parametrize(("tie", "starts"), [("after-dealer", 2), ("lowest-seat", 0)])
def test_which_tied_winner_starts_the_next_round(tie: str, starts: int) -> None:
    rules = table(
        match={"end": "rounds", "rounds": 2, "starter": "last-winner", "tied_winners": tie}
    )
    m = Match(rules, 3, seed=1, decks=[TIED])
    assert (m.dealer, m.starter) == (2, 0)
    _play_round(m)  # P0 calls; P1 and P2 draw and throw away
    assert m.records[0].result.winners == (0, 2)
    # the deal passes to seat 0: seat 2 is the first winner after it, seat 0 the lowest
    assert (m.dealer, m.starter) == (0, starts)


def test_tied_winners_needs_the_last_winner_to_start() -> None:
    base = 'extends = "practice"\nname = "t"\n'
    assert _rule_problems(base + '[match]\ntied_winners = "lowest-seat"\n') == {
        "match.tied_winners": 'has no effect unless match.starter is "last-winner"'
    }


# =========================================================================== opening.upcard
def test_without_an_upcard_the_pile_starts_empty_and_nothing_is_offered_on_it() -> None:
    rules = load_ruleset("no-upcard")  # the snap table: sticking at any moment, taking
    r = Round(rules, 3, seed=4)
    assert r.discard_pile == () and r.stock_size == 54 - 3 * 4
    assert r.events[0].kind is EventKind.DEAL and r.events[0].cards == ()
    assert not r.window_open and r.reactors == () and r.reactor_snaps() == []
    assert {a.kind for a in r.legal_actions(0)} == {ActionKind.DRAW, ActionKind.CALL}
    for seat in range(3):
        assert r.view(seat).top_discard is None and r.legal_snap_ids(seat) == []
    r.apply(Action.draw(0))
    thrown = r.view(0).holding
    r.apply(Action.discard(0))
    while r.phase is Phase.POWER:
        r.apply(Action.skip(0))
    # the first card thrown starts the pile and can be stuck like any discard
    assert r.discard_pile == (thrown,) and r.window_open
    assert r.view(1).top_discard == thrown and r.legal_snap_ids(1)
    assert Action.take(1) in r.legal_actions(1)
    again = Round.from_json(r.to_json(), verify=True)
    assert again == r and Round.from_position(rules, r.position()).position() == r.position()


def test_the_deal_turns_up_the_card_after_the_grids_or_leaves_it_in_the_stock() -> None:
    deck = deal(["AS", "2S", "3S", "4S"], ["5S", "6S", "7S", "8S"], discard="9S", stock=["10S"])
    up = Round(table(), 2, deck=deck, seed=1)
    down = Round(table(opening={"upcard": False}), 2, deck=deck, seed=1)
    assert [str(c) for c in up.discard_pile] == ["9S"]
    assert down.discard_pile == () and down.stock_size == up.stock_size + 1
    down.apply(Action.draw(0))
    assert str(down.view(0).holding) == "9S"


# =========================================================================== call.final_turns = 0
def test_a_call_ends_the_round_at_once() -> None:
    r = Round("sudden-call", 4, seed=3)
    r.apply(Action.call(0))
    assert r.is_over and r.result is not None
    assert r.result.reason == "call" and r.result.caller == 0 and r.turns_taken == 1


def test_a_call_at_the_end_of_a_turn_ends_the_round_at_once() -> None:
    r = Round(table(call={"final_turns": 0, "timing": "end-of-turn"}), 3, seed=3)
    r.apply(Action.draw(0))
    r.apply(Action.discard(0))
    while r.phase is Phase.POWER:
        r.apply(Action.skip(0))
    r.apply(Action.call(0))
    assert r.is_over and r.result is not None and r.result.caller == 0


def test_with_no_final_turns_the_caller_may_still_have_its_own() -> None:
    r = Round(table(call={"final_turns": 0, "caller_final_turn": True}), 3, seed=3)
    r.apply(Action.call(0))
    assert not r.is_over and r.current == 0  # the caller's final turn, nobody else's
    r.apply(Action.draw(0))
    r.apply(Action.discard(0))
    while r.phase is Phase.POWER:
        r.apply(Action.skip(0))
    assert r.is_over and r.result is not None and r.result.caller == 0


def test_an_emptied_hand_with_no_final_turns_ends_the_round_with_the_turn_under_way() -> None:
    rules = table("snap", call={"final_turns": 0})
    # P1 holds one card, a 5S it knows; P2 has just thrown the 5H
    hands = "AS,2S,3S,4S/-,-,-,5S@1/6S,7S,8S,9S"
    r = Round.from_position(rules, f"{hands} - 5H 10S,... turn 1 2,1,1 window=2")
    r.apply(Action.snap(1, (1, 4)))  # before its own draw: the call is its turn
    assert r.is_over and r.result is not None and r.result.caller == 1
    # during P0's turn (a 6D drawn): P0 finishes it, then the round is over
    r = Round.from_position(rules, f"{hands} s:6D@0 5H 10S,... drawn 0 1,1,1 window=2")
    r.apply(Action.snap(1, (1, 4)))
    assert r.caller == 1 and not r.is_over
    r.apply(Action.discard(0))
    assert r.is_over and r.result is not None and r.result.reason == "call"


# =========================================================================== across tables
_SWITCHES: dict[str, dict[str, dict[str, Any]]] = {
    "no upcard": {"opening": {"upcard": False}},
    "refilled with one card left": {"stock": {"on_empty": "recycle", "recycle_when": "one-left"}},
    "recycled once emptied": {"stock": {"on_empty": "recycle", "recycle_when": "emptied"}},
    "no final turns": {"call": {"final_turns": 0}},
    "caller locked against peeks": {"call": {"caller_locked": True, "caller_locked_peeks": True}},
    "open draws": {"turn": {"open_draw": True}},
}


def _switched(name: str, switch: str) -> RuleSet:
    rules = load_ruleset(name)
    changes = {
        section: attrs.evolve(getattr(rules, section), **fields)
        for section, fields in _SWITCHES[switch].items()
    }
    return attrs.evolve(rules, **changes)


@settings(deadline=None)
@given(
    name=st.sampled_from(available_variants()),
    switch=st.sampled_from(sorted(_SWITCHES)),
    seed=st.integers(0, 2**32),
    steps=st.integers(1, 400),
)
def test_every_table_plays_consistently_with_each_new_setting(
    name: str, switch: str, seed: int, steps: int
) -> None:
    rules = _switched(name, switch)
    assert check_rules(rules) == []
    r = Round(rules, seat_counts(rules)[-1], seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if r.is_over:
            break
        random_step(r, rng)
        ensure_consistent(r)
        for seat in range(r.players):  # every view shows the pile as it lies
            view = r.view(seat)
            assert view.top_discard == (r.discard_pile[-1] if r.discard_pile else None)
            assert view.stock_size == r.stock_size
        if r.is_over:
            break
        # a round that is not over always has a decision to make
        assert r.to_act is not None and r.legal_action_ids(r.to_act)
    assert Round.from_json(r.to_json(), verify=True) == r
    assert Round.from_position(rules, r.position()).position() == r.position()


@settings(deadline=None)
@given(name=st.sampled_from(available_variants()), seed=st.integers(0, 2**32))
def test_matches_with_tied_winners_led_by_the_lowest_seat(name: str, seed: int) -> None:
    rules = load_ruleset(name)
    rules = attrs.evolve(
        rules,
        match=attrs.evolve(
            rules.match,
            end="rounds",
            rounds=3,
            starter="last-winner",
            tied_winners="lowest-seat",
        ),
    )
    m = Match(rules, seat_counts(rules)[-1], seed=seed)
    for _ in range(3):
        if m.is_over:
            break
        _play_round(m)
        if m.is_over:
            break
        prev = m.records[-1]
        winners = {prev.players[w] for w in prev.result.winners} & set(m.round_seats)
        if winners:  # (a tie-break round may leave the winner out)
            assert m.starter == min(winners)


# ================================================================ peek scope other-not-peeked
_KING_FIRST = deal(
    ["AS", "2S", "3S", "4S"],
    ["5S", "6S", "7S", "8S"],
    ["AH", "2H", "3H", "4H"],
    discard="5H",
    stock=["KS", "6H"],
)


def _peeks(r: Round, seat: int) -> set[int]:
    """The players whose cards ``seat`` may peek at now."""
    return {a.positions[0][0] for a in r.legal_actions(seat, kind="peek")}


def test_the_black_kings_second_look_goes_to_another_player() -> None:
    r = Round("king-two-others", 3, deck=_KING_FIRST, seed=1)
    r.apply(Action.draw(0))
    r.apply(Action.discard(0))  # the black king: its power starts
    assert _peeks(r, 0) == {1, 2}
    r.apply(Action.peek(0, (1, 2)))
    assert _peeks(r, 0) == {2}  # not P1 again, nor P0's own cards
    r.apply(Action.peek(0, (2, 3)))
    swap = r.legal_actions(0, kind="swap")
    assert [a.positions for a in swap] == [((1, 2), (2, 3))]


def test_with_nobody_left_to_look_at_the_step_can_only_be_skipped() -> None:
    deck = deal(["AS", "2S", "3S", "4S"], ["5S", "6S", "7S", "8S"], discard="5H", stock=["KS"])
    r = Round("king-two-others", 2, deck=deck, seed=1)
    r.apply(Action.draw(0))
    r.apply(Action.discard(0))
    r.apply(Action.peek(0, (1, 1)))
    # (the king on the pile may still be stuck: those are the only other actions)
    assert {a.kind for a in r.legal_actions(0)} - {ActionKind.SNAP} == {ActionKind.SKIP}


# ================================================================ call.caller_locked_peeks
_NINE_AFTER_CALL = deal(
    ["AS", "2S", "3S", "4S"],
    ["5S", "6S", "7S", "8S"],
    ["AH", "2H", "3H", "4H"],
    discard="5H",
    stock=["9S", "6H"],
)


@pytest.mark.parametrize("locked", [False, True])
def test_a_locked_callers_cards_are_closed_to_the_others_peeks(locked: bool) -> None:
    base = load_ruleset("locked-caller")
    rules = table(base, call={"caller_locked_peeks": locked})
    r = Round(rules, 3, deck=_NINE_AFTER_CALL, seed=1)
    assert _peeks_after_a_call(r) == ({2} if locked else {0, 2})


def _peeks_after_a_call(r: Round) -> set[int]:
    """P0 calls; P1 draws the 9 and throws it: whose cards its peek may reach."""
    r.apply(Action.call(0))
    r.apply(Action.draw(1))
    r.apply(Action.discard(1))
    return _peeks(r, 1)


def test_locked_peeks_need_a_locked_caller() -> None:
    base = 'extends = "practice"\nname = "t"\n'
    assert _rule_problems(base + "[call]\ncaller_locked_peeks = true\n") == {
        "call.caller_locked_peeks": "has no effect unless call.caller_locked is true"
    }


# =========================================================================== turn.open_draw
def test_an_open_draw_is_shown_to_everyone_with_its_power() -> None:
    deck = deal(
        ["AS", "2S", "3S", "4S"], ["5S", "6S", "7S", "8S"], discard="5H", stock=["9D", "6H"]
    )
    for open_draw in (False, True):
        r = Round(table("draw-power", turn={"open_draw": open_draw}), 2, deck=deck, seed=1)
        events = r.apply(Action.draw(0))  # a 9: its power fires on the draw
        seen = r.view(1)
        if open_draw:
            assert events[0].seen_by is None and str(seen.holding) == "9D"
            assert r.phase is Phase.POWER and seen.power is not None
            drawn = next(e for e in reversed(seen.history) if e.kind is EventKind.DRAW)
            assert drawn.cards == (Card.parse("9D"),)
        else:
            assert events[0].seen_by == frozenset({0}) and seen.holding is None
            assert r.phase is Phase.DRAWN and seen.power is None  # the power is private
