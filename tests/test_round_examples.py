"""The rule pages' worked examples, replayed with prepared decks and scripted actions.

A test about a moment in the middle of a round starts from a written position of that
moment (``decks.position``, one field per line; see docs/positions.md) rather than from
a deal and the plays that lead there: ``call=0:2`` reads "seat 0 has called, seat 2
still has its final turn", ``3S@0`` "a 3S that seat 0 knows", ``5D!`` "the 5D whose power
is in use", and a stock ending in ``...`` holds every card not written elsewhere.
"""

from __future__ import annotations

import attrs
import pytest

import cambio
from cambio import Action, Card, IllegalActionError, Phase, Round
from cambio.rules import CallRules, RuleSet, ScoringRules
from decks import deal, position


def load(name: str) -> RuleSet:
    return cambio.load_ruleset(name)


# --------------------------------------------------------------------------- practice
def test_practice_ten_point_finish_still_wins_after_final_turns() -> None:
    r = position(
        "practice",
        "AS,2C,3H@0,4D@0/KS,QS,9S@1,8S@1/KC,JC,10C@2,6C@2",  # 10, 42 (Q -> 2), 40 (J -> A)
        "-",  # nobody holds a card
        "5D",  # the discard pile
        "2D,AH,6D,...",  # the stock, top card first
        "turn 1",  # P1's turn, not yet drawn
        "1,0,0",  # turns taken: P0 called with its first
        "call=0:2",  # P0 called; after P1, P2 has its final turn
    )
    assert r.caller == 0
    assert r.to_act == 1
    r.apply(Action.draw(1))
    r.apply(Action.replace(1, 2))
    assert r.to_act == 2
    r.apply(Action.draw(2))
    r.apply(Action.replace(2, 2))
    assert r.is_over
    res = r.result
    assert res is not None
    assert res.reason == "call"
    assert res.totals == (10, 32, 30)
    assert res.scores == (10, 32, 30)  # no caller penalty, raw totals
    assert res.winners == (0,)
    # every card with its value is in the result
    assert [h.value for h in res.hands[0]] == [1, 2, 3, 4]
    assert [str(h.card) for h in res.hands[1]] == ["KS", "2D", "9S", "8S"]


def test_practice_red_king_and_black_king_values() -> None:
    rules = load("practice")
    assert rules.value(Card("K", "H")) == -1
    assert rules.value(Card("K", "D")) == -1
    assert rules.value(Card("K", "S")) == 13
    assert rules.value(Card("Q", "C")) == 12


def test_practice_ties_share_the_win() -> None:
    r = position(
        "practice",
        "AS,2C,3H@0,4D@0/AC,2S,3D@1,4H@1/KS,QS,JS@2,10S@2",  # 10, 10, 46
        "- 5D 9D,9C,...",
        "turn 1 1,0,0 call=0:2",  # P0 has called
    )
    for p in (1, 2):
        r.apply(Action.draw(p))
        r.apply(Action.discard(p))
        # the 9 grants a peek: skip it
        r.apply(Action.skip(p))
    assert r.result is not None
    assert r.result.winners == (0, 1)
    assert r.result.scores == (10, 10, 46)


def test_blind_swap_moves_remembered_knowledge() -> None:
    rules = load("practice")
    deck = deal(
        ["5S", "6S", "KH", "2S"],  # P0 peeked 3 (KH) and 4 (2S)
        ["9H", "9D", "8H", "8D"],
        ["4C", "4S", "4H", "4D"],
        discard="3C",
        stock=["3S", "JD", "7C"],
    )
    r = Round(rules, players=3, deck=deck)
    assert r.view(0).known(0, 3) == Card("K", "H")
    assert r.view(1).known(0, 3) is None
    r.apply(Action.draw(0))
    r.apply(Action.discard(0))  # 3S, no power
    r.apply(Action.draw(1))  # JD: blind swap
    r.apply(Action.discard(1))
    assert r.phase is Phase.POWER
    r.apply(Action.swap(1, (1, 1), (0, 3)))
    v0 = r.view(0)
    # P0 followed its red king to P1's position 1, and no longer knows its own 3
    assert v0.known(1, 1) == Card("K", "H")
    assert v0.known(0, 3) is None
    # P1 swapped blind: it knows neither card
    v1 = r.view(1)
    assert v1.known(1, 1) is None
    assert v1.known(0, 3) is None
    # the true cards really moved
    assert r.hand(1)[0] == Card("K", "H")
    assert r.hand(0)[2] == Card("9", "H")
    # the swap event is public, with no cards shown
    swap = [e for e in r.events if e.kind == "swap"][-1]
    assert swap.public and swap.cards == ()


def test_stock_draw_private_discard_take_public_peek_private() -> None:
    rules = load("practice")
    deck = deal(
        ["5S", "6S", "7S", "8S"],
        ["9H", "9D", "8H", "8D"],
        ["4C", "4S", "4H", "4D"],
        discard="3C",
        stock=["10D", "2H"],
    )
    r = Round(rules, players=3, deck=deck)
    r.apply(Action.draw(0))
    assert r.view(0).holding == Card("10", "D")
    assert r.view(1).holding is None
    assert r.view(1).history[-1].cards == (None,)
    r.apply(Action.discard(0))  # 10: peek another's card
    r.apply(Action.peek(0, (2, 1)))
    assert r.view(0).known(2, 1) == Card("4", "C")
    assert r.view(1).known(2, 1) is None
    assert r.view(2).known(2, 1) is None
    peek = r.view(1).history[-2]
    assert r.view(1).history[-1].kind == "turn"
    assert peek.kind == "peek" and peek.positions == ((2, 1),) and peek.cards == (None,)
    # the discard is public; P1 takes it and everybody knows where it went
    r.apply(Action.take(1))
    r.apply(Action.replace(1, 4))
    for p in range(3):
        assert r.view(p).known(1, 4) == Card("10", "D")
        assert r.view(p).top_discard == Card("8", "D")


def test_practice_stock_exhaustion_ends_without_recycling() -> None:
    rules = load("practice")
    r = Round(rules, players=3, seed=11)
    while not r.is_over:
        ids = r.legal_action_ids(r.to_act)
        calls = [a for a in ids if r.space.decode(a).kind is cambio.ActionKind.CALL]
        choice = next((a for a in ids if a not in calls), ids[0])
        r.apply(choice)
    assert r.result is not None and r.result.reason == "stock"
    assert r.stock_size == 0
    assert not any(e.kind == "recycle" for e in r.events)


# --------------------------------------------------------------------------- penalty
def test_penalty_tie_lower_cards_break_joker_and_ace_beat_red_king_and_two() -> None:
    r = position(
        "penalty",
        # the caller 38; P1 and P2 12 each: highest 6, 5, then 1 (Joker, AS) vs 2 (KH, 2C)
        "10S,10C,9S@0,9C@0/Joker,AS,5S@1,6S@1/KH,2C,5C@2,6C@2",
        "- 3D 3S,4S,...",
        "turn 1 1,0,0 call=0:2",
    )
    for p in (1, 2):
        r.apply(Action.draw(p))
        r.apply(Action.discard(p))
    res = r.result
    assert res is not None
    assert res.totals == (38, 12, 12)
    assert res.winners == (1,)


def test_penalty_tie_goes_to_the_non_caller() -> None:
    r = position(
        "penalty",
        "AS,2S,3S@0,4S@0/AC,2C,3C@1,4C@1/KS,QS,JS@2,10S@2",  # the caller 10, P1 10
        "- 3D 5S,5C,...",
        "turn 1 1,0,0 call=0:2",
    )
    for p in (1, 2):
        r.apply(Action.draw(p))
        r.apply(Action.discard(p))
    assert r.result is not None
    assert r.result.winners == (1,)
    assert r.result.scores == (10, 10, 40)


def test_wrong_stick_gives_face_down_penalty_card_its_owner_cannot_peek() -> None:
    rules = load("penalty")
    r = position(
        rules,
        "5S,6S,7S@0,8S@0/9H,9D,2H@1,2D@1/4C,4S,4H@2,4D@2",
        "- 5D,3C QH,7D,3S,...",  # P0 has just discarded the 5D
        "turn 1 1,0,0",
        "window=0",  # which anyone may snap (P0 discarded it)
    )
    assert r.window_open
    assert r.reactors == (0, 1, 2)  # everyone, in seat order from the discarder
    r.apply(Action.snap(1, (1, 1)))  # 9H is not a 5: wrong
    assert r.hand(1)[0] == Card("9", "H")  # the card stays where it was
    assert r.hand(1)[4] == Card("Q", "H")  # penalty card from the stock
    v1 = r.view(1)
    assert v1.present[1][4] and v1.known(1, 5) is None
    assert r.view(0).known(1, 1) == Card("9", "H")  # the wrong card was shown
    # one attempt per window
    assert not r.can_apply(Action.snap(1, (1, 2)))
    # P1 later discards a 7 (peek own): the penalty position is not a target
    r.apply(Action.draw(1))  # 7D
    r.apply(Action.discard(1))
    targets = {a.positions for a in r.legal_actions(1) if a.kind is cambio.ActionKind.PEEK}
    assert ((1, 5),) not in targets
    assert ((1, 1),) in targets
    with pytest.raises(IllegalActionError):
        r.apply(Action.peek(1, (1, 5)))
    # the owner's opponents may still look at it
    res_total = sum(rules.value(c) for c in r.hand(1) if c is not None)
    assert res_total == 9 + 9 + 2 + 2 + 10


def test_correct_snap_of_anothers_card_gives_one_back() -> None:
    r = position(
        "penalty",
        "5S,6S,7S@0,8S@0/9H,9D,2H@1,2D@1/4C,4S,4H@2,4D@2",
        "- 2S,3C AH,...",
        "turn 1 1,0,0 window=0",  # P0's 2S can be snapped
    )
    r.apply(Action.snap(2, (1, 3)))  # P2 snaps P1's 2H: right
    assert r.phase is Phase.GIVE and r.to_act == 2
    assert r.hand(1)[2] is None
    assert not r.window_open
    r.apply(Action.give(2, 4))  # P2 gives its 4D
    assert r.hand(1)[2] == Card("4", "D")
    assert r.hand(2)[3] is None
    assert r.phase is Phase.TURN and r.to_act == 1
    # only one correct snap per discard: the window is closed
    assert r.reactors == ()
    assert not r.can_apply(Action.snap(1, (1, 4)))


def test_grid_emptied_by_snapping_counts_as_a_call() -> None:
    rules = attrs.evolve(load("penalty"), grid=attrs.evolve(load("penalty").grid, rows=(1,)))
    rules = attrs.evolve(rules, opening=attrs.evolve(rules.opening, positions=(1,), count=1))
    deck = deal(["5S"], ["9H"], ["4C"], discard="3C", stock=["5D", "AH", "AS", "AC"])
    r = Round(rules, players=3, deck=deck)
    r.apply(Action.draw(0))
    r.apply(Action.discard(0))  # 5D
    r.apply(Action.snap(0, (0, 1)))
    assert r.caller == 0
    assert r.to_act == 1
    for p in (1, 2):
        r.apply(Action.draw(p))
        r.apply(Action.discard(p))
    assert r.result is not None and r.result.reason == "call"
    assert r.result.totals[0] == 0


# --------------------------------------------------------------------------- snap table
def _snap_call_round(my_grid: list[str]) -> cambio.RoundResult:
    r = position(
        "snap",
        ",".join(my_grid) + "/AC,2C,3C,4C/KS,QS,JS,10S",  # P1 holds 10
        "- 3D 5S,6C,...",
        "turn 1 1,0,0 call=0:2",  # P0 has called
    )
    for p in (1, 2):
        r.apply(Action.draw(p))
        r.apply(Action.discard(p))
    assert r.result is not None
    return r.result


def test_snap_table_caller_minus_ten_when_lowest_alone() -> None:
    res = _snap_call_round(["AS", "2S", "3S", "KH"])  # 5
    assert res.totals[0] == 5 and res.caller_lowest
    assert res.scores == (-5, 10, 40)


def test_snap_table_caller_plus_ten_when_tied() -> None:
    res = _snap_call_round(["AS", "2S", "3S", "4S"])  # 10, tied with P1
    assert res.caller_lowest is False
    assert res.scores == (20, 10, 40)
    assert res.winners == (0, 1)  # the tie is shared


def test_snap_table_caller_plus_ten_when_undercut() -> None:
    res = _snap_call_round(["AS", "2S", "3S", "9S"])  # 15
    assert res.scores == (25, 10, 40)
    assert res.winners == (1,)


def test_snap_table_jack_swaps_any_two_cards() -> None:
    rules = load("snap")
    deck = deal(
        ["5S", "6S", "7S", "8S"],
        ["9H", "9D", "2H", "2D"],
        ["4C", "4S", "4H", "4D"],
        discard="3C",
        stock=["JD"],
    )
    r = Round(rules, players=3, deck=deck)
    r.apply(Action.draw(0))
    r.apply(Action.discard(0))
    # two of someone else's cards
    r.apply(Action.swap(0, (1, 1), (2, 4)))
    assert r.hand(1)[0] == Card("4", "D") and r.hand(2)[3] == Card("9", "H")


# --------------------------------------------------------------------------- elimination
def test_elimination_caller_penalty_and_winner_zero() -> None:
    r = position(
        "elimination",
        # the caller 15; P1 10: strictly lowest, scores 0; P2 -2 + 12 + 11 + 10 = 31
        "AS,2S,3S,9S/AC,2C,3C,4C/KH,QS,JS,10S",
        "- 3D 5S,6C,5C,...",
        "turn 1 1,0,0 call=0:2",
    )
    for p in (1, 2):
        r.apply(Action.draw(p))
        r.apply(Action.discard(p))
    res = r.result
    assert res is not None
    assert res.totals == (15, 10, 31)
    assert res.scores == (25, 0, 31)


def test_elimination_caller_tying_lowest_counts_as_lowest() -> None:
    r = position(
        "elimination",
        "AS,2S,3S,4S/AC,2C,3C,4C/KS,QS,JS,10S",  # the caller ties P1 at 10
        "- 3D 5S,6C,...",
        "turn 1 1,0,0 call=0:2",
    )
    for p in (1, 2):
        r.apply(Action.draw(p))
        r.apply(Action.discard(p))
    res = r.result
    assert res is not None
    assert res.winners == (0,)
    assert res.scores == (0, 10, 33)


def test_elimination_queen_peeks_own_and_opponent_then_may_swap_them() -> None:
    r = position(
        "elimination",
        "5S,6S,7S@0,8S@0/9H,9D,2H@1,2D@1/4C,4S,4H@2,4D@2",
        "- QD!,3C ...",  # P0 discarded a drawn QD: its power is in use
        "power:1 0 0,0,0",  # at its first step, in P0's first turn
        "window=0",
    )
    r.apply(Action.peek(0, (0, 1)))
    with pytest.raises(IllegalActionError):
        r.apply(Action.peek(0, (0, 2)))  # the second peek is at an opponent's card
    r.apply(Action.peek(0, (1, 3)))
    swaps = [a for a in r.legal_actions(0) if a.kind is cambio.ActionKind.SWAP]
    assert [a.positions for a in swaps] == [((0, 1), (1, 3))]
    r.apply(swaps[0])
    v0 = r.view(0)
    assert v0.known(0, 1) == Card("2", "H") and v0.known(1, 3) == Card("5", "S")


def test_elimination_sticking_only_on_own_turn() -> None:
    r = position(
        "elimination",
        "5S,6S,7S@0,8S@0/5H,9D,2H@1,2D@1/4C,4S,4H@2,4D@2",
        "- 5D,3C AH,AC,...",  # P0 discarded the 5D and its turn is over
        "turn 1 1,0,0 window=0",
    )
    assert r.to_act == 1
    assert r.reactors == (1,)  # only the player whose turn it is
    assert not r.can_apply(Action.snap(2, (2, 1)))
    r.apply(Action.snap(1, (1, 1)))
    assert r.hand(1)[0] is None
    assert r.to_act == 1 and r.phase is Phase.TURN


def test_elimination_empty_grid_wins_outright() -> None:
    base = load("elimination")
    rules = attrs.evolve(
        base,
        grid=attrs.evolve(base.grid, rows=(1,)),
        opening=attrs.evolve(base.opening, positions=(1,), count=1),
    )
    deck = deal(["5S"], ["5H"], ["KS"], discard="3C", stock=["5D", "AH"])
    r = Round(rules, players=3, deck=deck)
    r.apply(Action.draw(0))
    r.apply(Action.discard(0))
    r.apply(Action.snap(1, (1, 1)))
    assert r.is_over and r.result is not None
    assert r.result.reason == "empty-grid"
    assert r.result.winners == (1,)
    assert r.result.scores[1] == 0


# --------------------------------------------------------------------------- draw-power
def test_draw_power_fires_when_drawn_before_placing() -> None:
    rules = load("draw-power")
    r = position(
        rules,
        "5S,6S,7S@0,8S@0/9H,9D,2H@1,2D@1",
        "s:KS@0!",  # P0 holds the black king it drew: its power fires at once
        "3C 4D,...",
        "power:1 0 0,0",  # peek an opponent's card, then maybe swap
    )
    # the drawer knows it is using a power; the table sees a player holding a drawn card
    assert r.phase_seen_by(0) is Phase.POWER and r.view(0).phase == "power"
    assert r.phase is Phase.DRAWN and r.phase_seen_by(1) is Phase.DRAWN
    r.apply(Action.peek(0, (1, 3)))
    # the peek is seen, but a 9 (peek only) would end there: whether a swap may follow
    # stays the drawer's secret, so the table still sees a player holding a drawn card
    assert r.phase_seen_by(0) is Phase.POWER and r.phase is Phase.DRAWN
    assert r.view(1).phase == "drawn" and r.view(1).peeked == () and r.view(1).power is None
    legal = r.legal_actions(0)
    swaps = [a for a in legal if a.kind is cambio.ActionKind.SWAP]
    assert {a.positions for a in swaps} == {((0, i), (1, 3)) for i in range(1, 5)}
    # the optional swap is left out by placing the king at once (no skip: a skip would
    # be a move the table sees, which a 9 never makes)
    assert not r.can_apply(Action.skip(0)) and Action.replace(0, 1) in legal
    before = len(r.events)
    r.apply(Action.replace(0, 1))
    assert r.hand(0)[0] == Card("K", "S")
    assert r.events[before].kind == "replace"
    assert not any(e.kind in ("power", "skip") for e in r.events)


def test_draw_power_sticking_only_after_another_players_discard() -> None:
    rules = load("draw-power")
    deck = deal(
        ["5S", "6S", "7S", "8S"],
        ["5H", "9D", "2H", "2D"],
        discard="3C",
        stock=["5D", "AH"],
    )
    r = Round(rules, players=2, deck=deck)
    r.apply(Action.draw(0))
    r.apply(Action.discard(0))
    assert r.reactors == (1,)
    assert not r.can_apply(Action.snap(0, (0, 1)))  # not on one's own discard
    r.apply(Action.snap(1, (1, 1)))
    assert r.hand(1)[0] is None


# --------------------------------------------------------------------------- stock, calls
def test_recycle_keeps_the_top_discard() -> None:
    rules = load("snap")
    r = Round(rules, players=2, seed=3)
    guard = 0
    while True:
        ids = r.legal_action_ids(r.to_act)
        ids = [a for a in ids if r.space.decode(a).kind is not cambio.ActionKind.CALL] or ids
        action = ids[-1] if r.phase is Phase.POWER else ids[0]
        probe = r.copy()
        probe.apply(action)
        if any(e.kind == "recycle" for e in probe.events[len(r.events) :]):
            break
        r.apply(action)
        guard += 1
        assert guard < 2000 and not r.is_over
    top_before = r.discard_pile[-1]
    new = r.apply(action)  # a draw from the empty stock, or a penalty card owed
    recycle = next(e for e in new if e.kind == "recycle")
    before = [e for e in new[: new.index(recycle)] if e.kind in ("discard", "replace", "snap")]
    top = before[-1].cards[-1] if before else top_before
    assert r.discard_pile == (top,)
    moved = int(recycle.note.split()[0])
    held = sum(1 for e in new[new.index(recycle) :] if e.kind == "draw")  # the draw's card
    assert moved == r.stock_size + held
    in_grids = sum(1 for p in range(2) for c in r.hand(p) if c is not None)
    assert in_grids + r.stock_size + len(r.discard_pile) + held == 54


def test_one_call_per_round_and_calling_before_drawing_only() -> None:
    rules = load("practice")
    r = Round(rules, players=3, seed=5)
    r.apply(Action.draw(0))
    assert not r.can_apply(Action.call(0))
    r.apply(Action.discard(0))
    if r.phase is Phase.POWER:
        r.apply(Action.skip(0))
    r.apply(Action.call(1))
    assert r.to_act == 2
    assert not r.can_apply(Action.call(2))


def test_caller_grid_can_still_be_swapped_after_the_call() -> None:
    r = position(
        "practice",
        "AS,2S,3S@0,4S@0/9H,9D,2H@1,2D@1/4C,4H,4D@2,5C@2",
        "- JD!,3C 5D,...",  # P1 discarded a JD: a blind swap
        "power:1 1 1,0,0 call=0:2",  # after P0's call
    )
    r.apply(Action.swap(1, (1, 1), (0, 1)))
    assert r.hand(0)[0] == Card("9", "H")


def test_locked_caller_cannot_be_swapped() -> None:
    base = load("practice")
    rules = attrs.evolve(base, call=attrs.evolve(base.call, caller_locked=True))
    r = position(
        rules,
        "AS,2S,3S@0,4S@0/9H,9D,2H@1,2D@1/4C,4H,4D@2,5C@2",
        "- JD!,3C 5D,...",
        "power:1 1 1,0,0 call=0:2",
    )
    swaps = [a for a in r.legal_actions(1) if a.kind is cambio.ActionKind.SWAP]
    assert swaps and all(o != 0 for a in swaps for o, _ in a.positions)


# --------------------------------------------------------------------------- opening peeks
def test_one_peek_is_a_choice_and_no_peek_sees_nothing() -> None:
    r = Round(load("one-peek"), players=3, seed=1)
    assert r.phase is Phase.OPENING and r.to_act == 0
    choices = r.legal_actions(0)
    assert [a.positions for a in choices] == [((0, 3),), ((0, 4),)]
    r.apply(choices[1])
    assert r.to_act == 1
    assert r.view(0).known(0, 4) is not None and r.view(0).known(0, 3) is None
    r2 = Round(load("no-peek"), players=3, seed=1)
    assert r2.phase is Phase.TURN
    assert all(c is None for c in r2.view(0).own)


def test_re_peek_once_per_round_without_using_the_turn() -> None:
    r = Round(load("re-peek"), players=3, seed=2)
    r.apply(Action.draw(0))
    r.apply(Action.replace(0, 3))  # the opening position now holds the drawn card
    while r.to_act != 0 or r.phase is not Phase.TURN:
        ids = r.legal_action_ids(r.to_act)
        ids = [a for a in ids if r.space.decode(a).kind is not cambio.ActionKind.CALL] or ids
        r.apply(ids[0])
    # P0 knows the card it put in position 3; it forgot nothing yet, but re-peek is there
    assert r.can_apply(Action.re_peek(0))
    r.apply(Action.re_peek(0))
    assert r.to_act == 0 and r.phase is Phase.TURN
    assert not r.can_apply(Action.re_peek(0))


def test_five_card_grid() -> None:
    r = Round(load("five-card"), players=4, seed=3)
    v = r.view(0)
    assert v.grid_size == 5
    assert v.known(0, 3) is not None and v.known(0, 4) is not None
    assert v.known(0, 5) is None and v.present[0][4]


# --------------------------------------------------------------------------- errors
def test_illegal_action_names_reason_and_changes_nothing() -> None:
    r = Round(load("practice"), players=3, seed=9)
    before = r.copy()
    with pytest.raises(IllegalActionError) as err:
        r.apply(Action.draw(1))
    assert "P0" in str(err.value) and "P1" in str(err.value)
    assert r == before
    with pytest.raises(IllegalActionError):
        r.apply(Action.replace(0, 9))
    with pytest.raises(IllegalActionError):
        r.apply(Action.peek(0, (7, 1)))
    with pytest.raises(IllegalActionError):
        r.apply("draw")  # type: ignore[arg-type]
    with pytest.raises(IllegalActionError):
        r.apply(10**9)
    with pytest.raises(IllegalActionError):
        r.apply(Action.snap(0, (0, 1)))  # no snapping at the practice table
    assert r == before


def test_bad_round_arguments() -> None:
    rules = load("practice")
    with pytest.raises(ValueError):
        Round(rules, players=1)
    with pytest.raises(ValueError):
        Round(rules, players=7)
    with pytest.raises(ValueError):
        Round(rules, players=3, deck=["AS", "AS"])
    with pytest.raises(ValueError):
        Round(load("teams"), players=5) if load("teams").players.min <= 5 else Round(rules, 0)


def test_prepared_partial_deck_is_completed_by_seed() -> None:
    rules = load("practice")
    a = Round(rules, players=3, seed=4, deck=["AS", "2S"])
    b = Round(rules, players=3, seed=4, deck=["AS", "2S"])
    assert a == b
    assert a.hand(0)[:2] == (Card("A", "S"), Card("2", "S"))
    assert sorted(map(str, a.deck)) == sorted(map(str, rules.deck.cards()))


def test_custom_caller_bonus_and_lowest_scores_zero() -> None:
    rules = RuleSet(
        call=CallRules(penalty=10, lowest_scores_zero=True),
        scoring=ScoringRules(tie_break=("caller",)),
    )
    deck = deal(
        ["AS", "2S", "3S", "4S"],
        ["AC", "2C", "3C", "4C"],
        ["KS", "QS", "JS", "10S"],
        discard="3D",
        stock=["5S", "6C"],
    )
    r = Round(rules, players=3, deck=deck)
    r.apply(Action.call(0))
    for p in (1, 2):
        r.apply(Action.draw(p))
        r.apply(Action.discard(p))
    assert r.result is not None
    assert r.result.scores == (0, 10, 46)
    assert r.result.winners == (0,)
