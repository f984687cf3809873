"""The rules other engines' clubs play (issue 14): each new axis played under each value.

Every test deals a prepared deck (``decks.deal``: each seat's grid, the first discard,
then the stock from the top down) on a small table, plays the situation the setting
changes, and checks the cards, who knows them and the scores. The defaults are the
bundled tables' behaviour, so each test's default case is also a regression check.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import attrs
import pytest

import cambio
from cambio import Action, ActionKind, Card, EventKind, Match, Phase, Round, RuleSet
from cambio.rules import Power, PowerRules, SnapRules, Step
from cambio.scoring import placements, score_hands
from decks import deal, position, table

STICKING = {"when": "any-time", "targets": "any"}
"""Sticking on the practice table: any moment, own cards or another's."""


def cards(*texts: str) -> tuple[Card, ...]:
    return tuple(Card.parse(t) for t in texts)


def snaps(r: Round, player: int) -> list[Action]:
    return r.legal_actions(player, kind=ActionKind.SNAP)


def draw_discard(r: Round, player: int) -> None:
    r.apply(Action.draw(player))
    r.apply(Action.discard(player))
    assert r.phase is not Phase.POWER


# Two players hold a 5 (P1 at 1, P2 at 1); the stock's top card is a 5.
FIVES = deal(
    ["AS", "2S", "3S", "4S"],
    ["5C", "2C", "3C", "4C"],
    ["5S", "AH", "2H", "3H"],
    discard="9D",
    stock=["5D", "6D", "4D", "3D", "2D"],
)


# =========================================================================== item 1
@pytest.mark.parametrize("per_discard", ["one", "each"])
def test_several_correct_snaps_of_one_discard(per_discard: str) -> None:
    rules = table(snap={**STICKING, "per_discard": per_discard})
    r = Round(rules, 3, deck=FIVES, seed=1)
    draw_discard(r, 0)  # the 5D on the pile
    r.apply(Action.snap(1, (1, 1)))
    assert r.hand(1)[0] is None
    assert snaps(r, 1) == []  # one attempt per player and discard
    if per_discard == "one":
        assert not r.window_open and snaps(r, 2) == []
        assert r.discard_pile[-2:] == cards("5D", "5C")
        return
    assert r.window_open and r.reactors == (0, 2)  # everyone who has not tried yet
    r.apply(Action.snap(2, (2, 1)))
    assert r.hand(2)[0] is None
    assert r.discard_pile[-3:] == cards("5D", "5C", "5S")
    assert [e.kind for e in r.events[-2:]] == [EventKind.SNAP, EventKind.SNAP]
    # a player holding no match who tries anyway still pays
    r.apply(Action.snap(0, (0, 1)))
    assert r.events[-2].kind == EventKind.WRONG_SNAP and r.hand(0)[4] is not None
    assert r.reactors == ()


@pytest.mark.parametrize("per_discard", ["one", "each"])
def test_snaps_declared_together_all_succeed_when_each_may_snap(per_discard: str) -> None:
    rules = table(snap={**STICKING, "per_discard": per_discard})
    r = Round(rules, 3, deck=FIVES, seed=1)
    draw_discard(r, 0)
    events = r.resolve_snaps([Action.snap(2, (2, 1)), Action.snap(1, (1, 1))])
    correct = [e.player for e in events if e.kind == EventKind.SNAP]
    assert correct == ([2, 1] if per_discard == "each" else [2])
    assert not any(e.kind == EventKind.PENALTY for e in events)


@pytest.mark.parametrize("too_late", ["void", "penalty"])
def test_the_slower_of_two_correct_snappers(too_late: str) -> None:
    rules = table(snap={**STICKING, "too_late": too_late})
    r = Round(rules, 3, deck=FIVES, seed=1)
    draw_discard(r, 0)
    events = r.resolve_snaps([Action.snap(1, (1, 1)), Action.snap(2, (2, 1))])
    assert [e.player for e in events if e.kind == EventKind.SNAP] == [1]
    if too_late == "void":
        assert not r.window_open and not r.window_won
        assert r.hand(2)[:5] == (*cards("5S", "AH", "2H", "3H"), None)
        assert [a.player for a in r.actions[-1:]] == [1]
        return
    late = events[-2]
    assert late.kind == EventKind.WRONG_SNAP and late.player == 2 and late.note == "too late"
    assert late.cards == cards("5S") and late.public  # shown as a wrong snap is
    assert events[-1].kind == EventKind.PENALTY and events[-1].positions == ((2, 5),)
    assert r.hand(2)[0] == Card("5", "S")  # the card goes back
    assert r.actions[-2:] == (Action.snap(1, (1, 1)), Action.snap(2, (2, 1)))
    # the race stays lost for anyone: a later snap counts as wrong whatever the card
    assert r.window_won and r.reactors == (0,)
    r.apply(Action.snap(0, (2, 1)))  # the 5S matches, but too late
    assert r.events[-2].kind == EventKind.WRONG_SNAP and r.events[-2].note == "too late"
    assert r.hand(0)[4] is not None and r.reactors == ()


def test_a_race_lost_while_the_winner_gives_a_card_back() -> None:
    rules = table(snap={**STICKING, "too_late": "penalty"})
    deck = deal(
        ["AS", "2S", "3S", "4S"],
        ["AC", "2C", "3C", "4C"],
        ["5S", "AH", "2H", "3H"],
        discard="9D",
        stock=["5D", "6D", "4D", "3D"],
    )
    r = Round(rules, 3, deck=deck, seed=1)
    draw_discard(r, 0)
    r.apply(Action.snap(1, (2, 1)))  # P1 takes P2's 5S and owes P2 a card
    assert r.phase is Phase.GIVE and r.to_act == 1
    assert r.window_won and 2 in r.reactors and 1 not in r.reactors
    r.apply(Action.snap(2, (2, 2)))  # too late, and an AH anyway
    assert r.events[-2].kind == EventKind.WRONG_SNAP
    assert r.hand(2)[4] == Card("6", "D")  # the penalty card, after the grid
    r.apply(Action.give(1, 4))
    assert r.hand(2)[0] == Card("4", "C") and r.hand(1)[3] is None
    assert r.phase is Phase.TURN and r.current == 1


def test_too_late_needs_one_snap_per_discard() -> None:
    bad = attrs.evolve(cambio.RuleSet(), snap=SnapRules(too_late="penalty", per_discard="each"))
    assert [p for p, _ in cambio.check_rules(bad)] == ["snap.too_late"]


# =========================================================================== item 2
@pytest.mark.parametrize("last_discard", [False, True])
def test_the_discard_that_ends_the_round(last_discard: bool) -> None:
    rules = table(snap={**STICKING, "last_discard": last_discard})
    r = Round(rules, 3, deck=FIVES, seed=1)
    r.apply(Action.call(0))
    r.apply(Action.draw(1))
    r.apply(Action.discard(1))  # P1's final turn: the 5D
    r.apply(Action.draw(2))
    r.apply(Action.discard(2))  # P2's final turn, the last: a 6D
    assert r.discard_pile[-1] == Card("6", "D")
    if not last_discard:
        assert r.is_over and r.result is not None and r.result.reason == "call"
        return
    assert r.phase is Phase.CLOSING and r.closing_reason == "call" and not r.is_over
    assert r.reactors == (2, 0, 1) and r.to_act == 2
    assert {a.kind for a in r.legal_actions(2)} == {ActionKind.PASS, ActionKind.SNAP}
    assert {a.kind for a in r.legal_actions(0)} == {ActionKind.SNAP}
    r.apply(Action.pass_(2))
    assert r.to_act == 0
    r.apply(Action.snap(1, (1, 1)))  # a 5, not a 6: wrong, and a penalty card
    assert r.events[-2].kind == EventKind.WRONG_SNAP and r.hand(1)[4] is not None
    assert r.to_act == 0 and not r.is_over
    r.apply(Action.pass_(0))
    assert r.is_over and r.result is not None and r.result.reason == "call"
    assert len(r.result.hands[1]) == 5  # the penalty card is scored


def test_the_last_discard_snapped_correctly_ends_the_round_at_once() -> None:
    rules = table(snap={**STICKING, "last_discard": True})
    r = position(
        rules,
        "AS,2S,3S@0,4S@0/6C,2C,3C@1,4C@1/5S,AH,2H@2,3H@2",
        "- 6D,5D,9D 4D,3D,2D,...",  # P2's final turn discarded the 6D
        "closing:call 2 1,1,1",  # the round ends by the call once nobody can snap it
        "call=0:- window=2",  # P0 called, no final turn is left; the 6D can be snapped
    )
    assert r.closing_reason == "call" and r.reactors == (2, 0, 1)
    r.apply(Action.snap(1, (1, 1)))
    assert r.is_over and r.result is not None
    assert Card("6", "C") not in [h.card for h in r.result.hands[1]]
    assert r.discard_pile[-1] == Card("6", "C")


def test_a_snap_of_anothers_card_on_the_last_discard_owes_a_give_then_ends() -> None:
    rules = table(snap={**STICKING, "last_discard": True})
    deck = deal(
        ["AS", "2S", "3S", "4S"],
        ["6C", "2C", "3C", "4C"],
        ["5S", "AH", "2H", "3H"],
        discard="9D",
        stock=["5D", "6D", "4D", "3D", "2D"],
    )
    r = Round(rules, 3, deck=deck, seed=1)
    r.apply(Action.call(0))
    draw_discard(r, 1)
    draw_discard(r, 2)  # the 6D, the last discard
    r.apply(Action.snap(0, (1, 1)))  # P0 snaps P1's 6C and owes P1 a card
    assert r.phase is Phase.GIVE and not r.is_over
    assert Round.from_json(r.to_json(), verify=True) == r  # a state saves and loads
    r.apply(Action.give(0, 2))
    assert r.is_over and r.result is not None and r.result.reason == "call"
    assert r.hand(1)[0] == Card("2", "S")


def test_without_a_window_the_round_ends_as_before() -> None:
    rules = table(snap={"last_discard": True})  # no snapping at all
    r = Round(rules, 3, deck=FIVES, seed=1)
    r.apply(Action.call(0))
    draw_discard(r, 1)
    draw_discard(r, 2)
    assert r.is_over


# =========================================================================== item 3
WRONG = deal(
    ["AS", "2S", "3S", "4S"],
    ["AC", "2C", "3C", "4C"],
    ["9H", "8H", "7H", "6H"],
    discard="9D",
    stock=["5D", "JD", "QD", "KD"],
)


@pytest.mark.parametrize("other", ["as-own", "all", "snapper", "nobody"])
def test_who_sees_a_wrong_snap_of_another_players_card(other: str) -> None:
    rules = table(snap={**STICKING, "wrong_seen_by": "snapper", "wrong_other_seen_by": other})
    r = Round(rules, 3, deck=WRONG, seed=1)
    draw_discard(r, 0)
    r.apply(Action.snap(1, (2, 1)))  # a 9H on a 5: wrong
    wrong = r.events[-2]
    assert wrong.kind == EventKind.WRONG_SNAP and r.hand(2)[0] == Card("9", "H")
    knows = {p for p in range(3) if r.view(p).known(2, 1) is not None}
    expected = {"as-own": {1}, "all": {0, 1, 2}, "snapper": {1}, "nobody": set()}[other]
    assert knows == expected
    for p in range(3):
        shown = next(e for e in r.view(p).history if e.kind == EventKind.WRONG_SNAP).cards
        assert shown == (cards("9H") if p in expected else (None,))


@pytest.mark.parametrize("own", ["all", "snapper", "nobody"])
def test_who_sees_a_wrong_snap_of_ones_own_card(own: str) -> None:
    rules = table(snap={**STICKING, "wrong_seen_by": own, "wrong_other_seen_by": "all"})
    r = Round(rules, 3, deck=WRONG, seed=1)
    draw_discard(r, 0)
    r.apply(Action.snap(2, (2, 1)))  # P2's own 9H, never seen by P2 before (position 1)
    knows = {p for p in range(3) if r.view(p).known(2, 1) is not None}
    assert knows == {"all": {0, 1, 2}, "snapper": {2}, "nobody": set()}[own]
    assert r.hand(2)[0] == Card("9", "H") and r.hand(2)[4] is not None


def test_a_card_that_goes_back_unseen_stays_hidden_whatever_it_is() -> None:
    """Vary the hidden card: the views and histories of a ``nobody`` table do not change."""
    rules = table(snap={**STICKING, "wrong_seen_by": "nobody"})
    seen = set()
    for hidden in ("9H", "KH", "QC"):
        deck = list(WRONG)
        deck[8] = hidden  # P2's position 1
        r = Round(rules, 3, deck=deck, seed=1)
        draw_discard(r, 0)
        r.apply(Action.snap(2, (2, 1)))
        seen.add(tuple((r.view(p).grids, tuple(r.view(p).history)) for p in range(3)))
    assert len(seen) == 1


SEVERAL = deal(["AS", "2S", "3S", "4S"], ["5C", "6H", "AH", "2H"], discard="9D", stock=["5D", "3D"])


@pytest.mark.parametrize("shown", ["all", "unmatched"])
def test_a_failed_snap_of_several_cards_shows(shown: str) -> None:
    rules = table(snap={"when": "any-time", "several": True, "wrong_shown": shown})
    r = Round(rules, 2, deck=SEVERAL, seed=1)
    draw_discard(r, 0)
    r.apply(Action.snap(1, (1, 1), (1, 2)))  # 5C matches the 5D, 6H does not
    wrong = r.events[-2]
    assert wrong.kind == EventKind.WRONG_SNAP
    assert r.hand(1)[:2] == cards("5C", "6H")
    if shown == "all":
        assert wrong.cards == cards("5C", "6H")
        assert r.view(0).known(1, 1) == Card("5", "C")
    else:
        assert wrong.cards == cards("6H") and wrong.positions == ((1, 2),)
        assert r.view(0).known(1, 1) is None
    assert r.view(0).known(1, 2) == Card("6", "H")


# =========================================================================== item 4
@pytest.mark.parametrize("where", ["after-grid", "first-empty"])
def test_where_a_penalty_card_goes(where: str) -> None:
    rules = table(snap={**STICKING, "penalty_position": where, "penalty_peekable": False})
    deck = deal(
        ["AS", "2S", "3S", "4S"],
        ["5C", "2C", "3C", "4C"],
        ["6S", "AH", "2H", "3H"],
        discard="9D",
        stock=["5D", "3D", "KD", "AD", "6D", "7H"],
    )
    r = Round(rules, 3, deck=deck, seed=1)
    draw_discard(r, 0)  # 5D
    r.apply(Action.snap(1, (1, 1)))  # right: P1's position 1 is empty
    draw_discard(r, 1)  # 3D
    r.apply(Action.snap(1, (1, 2)))  # a 2C on a 3: wrong, the KD is the penalty card
    slot = 1 if where == "first-empty" else 5
    assert r.hand(1)[slot - 1] == Card("K", "D")
    assert r.events[-1].kind == EventKind.PENALTY and r.events[-1].positions == ((1, slot),)
    assert r.penalty_cards == (((1, 1),) if where == "first-empty" else ())
    draw_discard(r, 2)  # AD
    draw_discard(r, 0)  # 6D
    r.apply(Action.draw(1))
    r.apply(Action.discard(1))  # a 7: peek one of one's own cards
    assert r.phase is Phase.POWER
    peeks = {a.positions[0] for a in r.legal_actions(1, kind="peek")}
    assert (1, slot) not in peeks  # the owner never sees its penalty card
    assert (1, 2) in peeks


def test_a_penalty_card_in_the_grid_becomes_ordinary_once_it_moves() -> None:
    rules = table(snap={**STICKING, "penalty_position": "first-empty"})
    r = position(
        rules,
        # P1 snapped its 5C, then wrongly its 2C (shown to all): the penalty KD fills P1:1
        "AS,2S,3S@0,4S@0/KD#,2C@*,3C@1,4C@1/6S,AH,2H@2,3H@2",
        "s:JH@2",  # P2 has drawn a JH
        "3D,5C,5D,9D ...",
        "drawn 2 1,1,0",
        "window=1:1",  # P1's 3D may still be snapped, but not by P1 again
    )
    assert r.penalty_cards == ((1, 1),)
    r.apply(Action.discard(2))  # the JH: a blind swap of own and another's
    r.apply(Action.swap(2, (2, 1), (1, 1)))
    assert r.hand(2)[0] == Card("K", "D") and r.penalty_cards == ()
    again = Round.from_json(r.to_json())
    assert again == r and again.penalty_cards == ()


# =========================================================================== item 5
@pytest.mark.parametrize("source", ["any", "stock"])
def test_a_replaced_card_fires_only_after_a_stock_draw(source: str) -> None:
    rules = table(powers={"swapped_out": True, "swapped_out_from": source})
    deck = deal(
        ["7S", "2S", "3S", "4S"],
        ["7C", "2C", "3C", "4C"],
        ["AH", "2H", "3H", "4H"],
        discard="5D",
        stock=["6D", "AD", "2D"],
    )
    r = Round(rules, 3, deck=deck, seed=1)
    r.apply(Action.take(0))
    r.apply(Action.replace(0, 1))  # the 7S goes to the pile after a take
    assert (r.phase is Phase.POWER) == (source == "any")
    if r.phase is Phase.POWER:
        r.apply(Action.skip(0))
    r.apply(Action.draw(1))
    r.apply(Action.replace(1, 1))  # the 7C goes after a stock draw: fires either way
    assert r.phase is Phase.POWER


def test_swapped_out_from_needs_swapped_out() -> None:
    rules = attrs.evolve(
        cambio.RuleSet(), powers=PowerRules(swapped_out=False, swapped_out_from="stock")
    )
    assert [p for p, _ in cambio.check_rules(rules)] == ["powers.swapped_out_from"]


# =========================================================================== item 6
def _other_other_table() -> RuleSet:
    power = Power(ranks=("J",), steps=(Step("swap", "other-other"),), name="swap others")
    return table(powers={"table": (power,)})


def test_a_swap_between_two_other_players() -> None:
    deck = deal(
        ["AS", "2S", "3S", "4S"],
        ["AC", "2C", "3C", "4C"],
        ["AH", "2H", "3H", "4H"],
        discard="5D",
        stock=["JD", "6D"],
    )
    r = Round(_other_other_table(), 3, deck=deck, seed=1)
    r.apply(Action.draw(0))
    r.apply(Action.discard(0))
    swaps = r.legal_actions(0, kind="swap")
    assert len(swaps) == 4 * 4  # every P1 card with every P2 card
    assert all({o for o, _ in a.positions} == {1, 2} for a in swaps)
    r.apply(Action.swap(0, (1, 2), (2, 3)))
    assert r.hand(1)[1] == Card("3", "H") and r.hand(2)[2] == Card("2", "C")
    assert r.view(0).known(1, 2) is None  # a blind swap


def test_two_players_have_no_others_to_swap() -> None:
    deck = deal(["AS", "2S", "3S", "4S"], ["AC", "2C", "3C", "4C"], discard="5D", stock=["JD"])
    r = Round(_other_other_table(), 2, deck=deck, seed=1)
    r.apply(Action.draw(0))
    r.apply(Action.discard(0))
    assert r.phase is Phase.POWER
    assert r.legal_actions(0) == [Action.skip(0)]


# =========================================================================== item 7
def _one_card(**snap: Any) -> RuleSet:
    return table(
        grid={"rows": (1,)},
        opening={"positions": (1,), "count": 1},
        snap={**STICKING, **snap},
    )


ONE_CARD = deal(["3S"], ["7C"], ["KH"], discard="9D", stock=["7D", "AD", "2D", "4D"])


@pytest.mark.parametrize("calls", ["at-once", "next-turn"])
def test_when_an_emptied_hand_calls(calls: str) -> None:
    r = Round(_one_card(empty_grid_calls=calls), 3, deck=ONE_CARD, seed=1)
    r.apply(Action.draw(0))
    r.apply(Action.discard(0))  # a 7: P0's power starts, its turn goes on
    assert r.phase is Phase.POWER
    r.apply(Action.snap(1, (1, 1)))  # P1's only card: the hand is empty
    if calls == "at-once":
        assert r.caller == 1 and r.events[-1].kind == EventKind.CALL
        r.apply(Action.skip(0))
        assert r.current == 2  # P2's final turn; P0's turn was its own
        return
    assert r.caller is None and r.calls_owed == frozenset({1})
    r.apply(Action.skip(0))  # P0's turn ends; P1's turn is spent calling
    assert r.caller == 1 and r.calls_owed == frozenset()
    call = [e for e in r.events if e.kind == EventKind.CALL]
    assert [(e.player, e.note) for e in call] == [(1, "empty grid")]
    assert r.current == 2 and r.phase is Phase.TURN
    draw_discard(r, 2)
    draw_discard(r, 0)
    assert r.is_over and r.result is not None and r.result.caller == 1


@pytest.mark.parametrize("mode", ["call", "win", "end", "nothing"])
def test_what_an_empty_grid_does(mode: str) -> None:
    r = Round(_one_card(empty_grid=mode), 3, deck=ONE_CARD, seed=1)
    r.apply(Action.draw(0))
    r.apply(Action.discard(0))
    r.apply(Action.snap(1, (1, 1)))
    if mode in ("call", "nothing"):
        assert not r.is_over and r.caller == (1 if mode == "call" else None)
        return
    assert r.is_over and r.result is not None and r.result.reason == "empty-grid"
    # P2's red king (-1) is lower than the empty hand's 0
    if mode == "win":
        assert r.result.winners == (1,) and r.result.scores[1] == 0
    else:
        assert r.result.winners == (2,) and r.result.scores == (3, 0, -1)


def test_an_owed_call_is_made_at_the_next_turn_or_lapses() -> None:
    rules = _one_card(empty_grid_calls="next-turn")
    # P1 has snapped its only card away; it calls when its next turn comes
    owed = ("3S@0/-/KH@2", "- 7D,9D AD,2D,...", "turn 0 1,1,1", "owed=1")
    r = position(rules, *owed)
    assert r.calls_owed == frozenset({1}) and r.caller is None
    draw_discard(r, 0)
    assert r.caller == 1 and r.current == 2 and r.calls_owed == frozenset()
    # ... unless somebody calls first: then the owed call lapses and P1 has a final turn
    r = position(rules, *owed)
    r.apply(Action.call(0))
    assert r.caller == 0 and r.current == 1 and r.calls_owed == frozenset()
    draw_discard(r, 1)
    draw_discard(r, 2)
    assert r.result is not None and r.result.caller == 0


def test_a_call_owed_lapses_when_someone_else_calls_first() -> None:
    r = Round(_one_card(empty_grid_calls="next-turn"), 3, deck=ONE_CARD, seed=1)
    r.apply(Action.draw(0))
    r.apply(Action.discard(0))
    r.apply(Action.snap(1, (1, 1)))
    r.apply(Action.skip(0))
    assert r.caller == 1  # P1 called at its turn
    again = Round.from_json(r.to_json(), verify=True)
    assert again == r


# =========================================================================== item 8
def test_placements_share_ties_but_a_caller_takes_the_better_place() -> None:
    assert placements([10, 4, 10, 7]) == (2, 0, 2, 1)
    assert placements([7, 7, 9, 9]) == (0, 0, 2, 2)
    assert placements([7, 7, 9, 9], caller=1) == (1, 0, 2, 2)
    assert placements([7, 7, 9, 9], caller=2) == (0, 0, 2, 3)


def test_placement_bonuses_by_player_count() -> None:
    rules = table(scoring={"placement": {"2": (-3, 0), "4": (-5, -2, 0, 0)}})
    two = score_hands(rules, [["5S", "5H"], ["AS", "2S"]])
    assert two.totals == (10, 3) and two.scores == (10, 0)
    four = score_hands(rules, [["5S"], ["2S"], ["2H"], ["9C"]], caller=2)
    assert four.totals == (5, 2, 2, 9)
    assert four.scores == (5, 2 - 2, 2 - 5, 9)  # the tied caller takes first place
    three = score_hands(rules, [["5S"], ["2S"], ["2H"]])
    assert three.scores == three.totals  # no entry for three players


@pytest.mark.parametrize("bonuses", [(), (-3, 0, 0), (-5, -2)])
def test_placement_bonuses_in_a_played_round(bonuses: tuple[int, ...]) -> None:
    rules = table(call={"penalty": 10}, scoring={"placement": {"3": bonuses}})
    r = Round(rules, 3, deck=FIVES, seed=1)
    r.apply(Action.call(0))
    draw_discard(r, 1)
    draw_discard(r, 2)
    res = r.result
    assert res is not None and res.totals == (10, 14, 11)
    places = placements(res.totals, 0)
    extra = [bonuses[k] if k < len(bonuses) else 0 for k in places]
    assert res.scores == (10 + extra[0], 14 + extra[1], 11 + extra[2])


def test_placement_keys_are_checked() -> None:
    bad = table()
    bad = attrs.evolve(
        bad, scoring=attrs.evolve(bad.scoring, placement={"two": (1,), "2": (1, 2, 3)})
    )
    assert sorted(p for p, _ in cambio.check_rules(bad)) == [
        "scoring.placement.2",
        "scoring.placement.two",
    ]


# =========================================================================== item 9
def _play_round(m: Match) -> None:
    """Play the current round to its end: call at once, otherwise draw and throw away."""
    number = m.round_number
    while not m.is_over and m.round_number == number:
        who = m.to_act
        assert who is not None
        legal = [a for a in m.legal_actions(who) if a.kind is not ActionKind.SNAP]
        order = [ActionKind.CALL, ActionKind.DISCARD, ActionKind.SKIP, ActionKind.DRAW]
        pick = next((a for k in order for a in legal if a.kind is k), legal[0])
        m.apply(pick)


@pytest.mark.parametrize("starter", ["left-of-dealer", "first-seat", "last-winner"])
def test_who_starts_each_round(starter: str) -> None:
    rules = table(match={"end": "rounds", "rounds": 4, "starter": starter})
    m = Match(rules, 3, seed=5)
    starters = []
    for _ in range(4):
        starters.append((m.dealer, m.starter))
        _play_round(m)
    records = m.records
    assert [(r.dealer, r.starter) for r in records] == starters
    assert [d for d, _ in starters] == [2, 0, 1, 2]  # the last seat deals first
    if starter == "left-of-dealer":
        assert [s for _, s in starters] == [0, 1, 2, 0]
    elif starter == "first-seat":
        assert [s for _, s in starters] == [0, 0, 0, 0]
    else:
        assert starters[0][1] == 0
        for prev, (dealer, s) in zip(records, starters[1:], strict=False):
            winners = [prev.players[w] for w in prev.result.winners]
            assert s in winners
            first = next(w for k in range(1, 4) if (w := (dealer + k) % 3) in winners)
            assert s == first


def test_a_match_changes_its_rules_between_rounds() -> None:
    rules = table(match={"end": "rounds", "rounds": 3})
    m = Match(rules, 3, seed=2)
    changed = table(rules, values={"red": {"K": -5}}, call={"penalty": 7})
    events = m.change_rules(changed)
    assert [e.kind for e in events] == ["rules"]
    assert m.round.rules is rules  # the round under way keeps its table
    _play_round(m)
    assert m.round.rules == changed and m.rules == changed
    assert m.played_rounds[0].rules is rules
    copy = Match.from_json(m.to_json())
    assert copy == m and copy.rules == changed
    with pytest.raises(ValueError, match="actions differ"):
        m.change_rules(table(rules, grid={"rows": (2, 2, 1)}, opening={"positions": (3, 4)}))
    with pytest.raises(ValueError, match="seats"):
        m.change_rules(table(rules, players={"min": 4, "max": 6, "default": 4}))
    assert m.rules == changed  # refused changes leave nothing behind


def test_a_match_deals_the_round_again_keeping_its_totals() -> None:
    rules = table(match={"end": "rounds", "rounds": 3})
    m = Match(rules, 3, seed=3)
    _play_round(m)
    totals, number, dealer, starter = m.totals, m.round_number, m.dealer, m.starter
    before = m.round.deck
    m.apply(m.legal_actions(m.to_act)[0])  # a move of the round to abandon
    events = m.redeal()
    assert events[0].kind == "redeal"
    assert (m.totals, m.round_number, m.dealer, m.starter) == (totals, number, dealer, starter)
    assert m.round.deck != before and m.round.action_ids == ()
    assert len(m.records) == 1 and len(m.played_rounds) == 2
    copy = Match.from_json(m.to_json())
    assert copy == m
    _play_round(m)
    assert len(m.records) == 2 and m.records[-1].number == 2


# =========================================================================== item 11
def test_event_kinds_are_an_enum_that_still_compares_with_text() -> None:
    r = Round("practice", 3, seed=1)
    first = r.events[0]
    assert first.kind is EventKind.DEAL and first.kind == "deal"
    assert str(first).startswith("deal") and f"{first.kind}" == "deal"
    assert Round.from_json(r.to_json()).events[0].kind is EventKind.DEAL


def test_legal_actions_of_one_kind() -> None:
    rules = table(snap=STICKING)
    r = Round(rules, 3, deck=FIVES, seed=1)
    draw_discard(r, 0)
    everything = r.legal_actions(1)
    assert r.legal_actions(1, kind="snap") == [a for a in everything if a.kind is ActionKind.SNAP]
    assert r.legal_actions(1, kind=[ActionKind.DRAW, "call"]) == [
        a for a in everything if a.kind in (ActionKind.DRAW, ActionKind.CALL)
    ]
    with pytest.raises(ValueError, match="unknown action kind"):
        r.legal_actions(1, kind="dance")
    m = Match(rules, 3, seed=1)
    assert all(a.kind is ActionKind.DRAW for a in m.legal_actions(m.to_act, kind="draw"))


def test_score_hands_is_public_and_checks_its_input() -> None:
    res = cambio.score_hands(cambio.load_ruleset("penalty"), [["KH", None, "2S"], ["AS", "AD"]])
    assert res.totals == (1, 2) and res.winners == (0,)
    assert [h.position for h in res.hands[0]] == [1, 3]
    with pytest.raises(TypeError):
        score_hands(cambio.RuleSet(), ["AS"])
    with pytest.raises(ValueError, match="caller"):
        score_hands(cambio.RuleSet(), [["AS"]], caller=3)


def test_a_prepared_deck_for_several_decks_may_repeat_cards() -> None:
    rules = table(deck={"decks": 2})
    deck = ["5S", "5S", "AS", "AS", "5S", "AS"]  # a third 5S is one too many
    with pytest.raises(ValueError, match="more often"):
        Round(rules, 3, deck=deck, seed=1)
    r = Round(rules, 3, deck=deck[:4], seed=1)
    assert r.hand(0)[:4] == cards("5S", "5S", "AS", "AS")
    m = Match(rules, 3, seed=1, decks=[deck[:4]])
    assert m.round.hand(0)[:4] == cards("5S", "5S", "AS", "AS")


REMOVING = """
extends = "penalty"
[remove]
values.red = ["K"]
powers.table = ["K", "7"]
scoring.tie_break = ["lower-cards"]
"""


def test_a_table_removes_inherited_entries() -> None:
    parent = cambio.load_ruleset("penalty")
    rules = cambio.ruleset_from_toml(REMOVING)
    assert parent.values.red == {"K": -1} and rules.values.red == {}
    assert rules.values.of(Card("K", "H")) == rules.values.rank["K"]
    assert rules.scoring.tie_break == ("not-caller", "share")
    assert rules.powers.power_of(Card("K", "S")) is None
    assert rules.powers.power_of(Card("7", "S")) is None
    eight = rules.powers.power_of(Card("8", "S"))
    before = parent.powers.power_of(Card("8", "S"))
    assert eight is not None and before is not None and before.ranks == ("7", "8")
    assert eight.ranks == ("8",) and eight.steps == before.steps
    assert "remove" not in cambio.ruleset_to_dict(rules)


def test_removal_comes_before_the_files_own_keys_and_reaches_defaults(tmp_path: Path) -> None:
    text = 'extends = "practice"\n[remove]\npowers.table = ["K"]\n[values.red]\nQ = 0\n'
    rules = cambio.ruleset_from_toml(text)
    assert rules.values.red == {"K": -1, "Q": 0}
    alone = cambio.ruleset_from_toml('[remove]\nvalues.red = ["K"]\n')  # the defaults
    assert alone.values.red == {}
    parent = tmp_path / "kamikaze.toml"
    parent.write_text(
        'extends = "cabo"\n[scoring.combination]\nranks = ["12", "12", "13", "13"]\n',
        encoding="utf-8",
    )
    assert cambio.load_ruleset(parent).scoring.combination is not None
    child = 'extends = "kamikaze.toml"\n[remove]\nscoring.combination = true\n'
    assert cambio.ruleset_from_toml(child, base=tmp_path).scoring.combination is None


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ('[remove]\nvalues.red = ["Q"]\n', "remove.values.red[0]"),
        ('[remove]\npowers.table = ["2"]\n', "remove.powers.table[0]"),
        ('[remove]\nscoring.tie_break = ["caller"]\n', "remove.scoring.tie_break[0]"),
        ("[remove]\nscoring.combination = true\n", "remove.scoring.combination"),
        ('[remove]\nnope = ["x"]\n', "remove.nope"),
        ("[remove]\ncall.penalty = [1]\n", "remove.call.penalty"),
        ('[remove]\nvalues.red = "K"\n', "remove.values.red"),
        ("remove = 3\n", "remove"),
    ],
)
def test_a_removal_that_cannot_apply_is_a_problem_at_its_path(text: str, path: str) -> None:
    with pytest.raises(cambio.RuleSetError) as info:
        cambio.ruleset_from_toml('extends = "practice"\n' + text, "club.toml")
    assert [p.path for p in info.value.problems] == [path]
    assert info.value.problems[0].source == "club.toml"


# =========================================================================== all at once
_SWAP_OTHERS = Power(ranks=("Q",), steps=(Step("swap", "other-other"),), name="swap others")

EVERY_NEW = {
    "race": table(
        "snap",
        powers={
            "swapped_out": True,
            "swapped_out_from": "stock",
            "table": (*cambio.load_ruleset("snap").powers.table[:2], _SWAP_OTHERS),
        },
        turn={"max_turns": 90},
        snap={
            "several": True,
            "too_late": "penalty",
            "last_discard": True,
            "wrong_seen_by": "snapper",
            "wrong_other_seen_by": "nobody",
            "wrong_shown": "unmatched",
            "penalty_position": "first-empty",
            "penalty_peekable": False,
            "empty_grid_calls": "next-turn",
            "arbitration": "random",
        },
        scoring={"placement": {"2": (-3, 0), "3": (-4, -1), "4": (-5, -2, 0, 0)}},
        match={"starter": "last-winner", "limit": 60},
    ),
    "each": table(
        "penalty",
        snap={
            "per_discard": "each",
            "last_discard": True,
            "wrong_seen_by": "nobody",
            "empty_grid": "end",
            "arbitration": "seat-order",
        },
        turn={"max_turns": 90},
        scoring={"placement": {"3": (-2,)}},
        match={"starter": "first-seat", "end": "rounds", "rounds": 3},
    ),
}


@pytest.mark.parametrize("name", sorted(EVERY_NEW))
def test_every_new_axis_at_once_random_rounds_and_matches(name: str) -> None:
    from test_house_rules import random_step

    rules = EVERY_NEW[name]
    closings = 0
    for seed in range(6):
        players = 2 + seed % 3
        rng = random.Random(seed)
        r = Round(rules, players, seed=seed)
        steps = 0
        while not r.is_over:
            closings += r.phase is Phase.CLOSING
            random_step(r, rng)
            steps += 1
            assert steps < 5000
            placed = [c for row in r._slots for c in row if c >= 0]
            placed += r._stock + r._discard + ([r._drawn] if r._drawn >= 0 else [])
            assert sorted(placed) == list(range(len(r.deck)))
            if steps % 25 == 0:
                assert Round.from_json(r.to_json(), verify=True) == r
        assert Round.replay(rules, r.action_ids, players=players, seed=seed) == r
        res = r.result
        assert res is not None
        hands = []
        for hand in res.hands:
            row: list[Card | None] = [None] * max((h.position for h in hand), default=0)
            for h in hand:
                row[h.position - 1] = h.card
            hands.append(row)
        if not (res.reason == "empty-grid" and rules.snap.empty_grid == "win"):
            assert score_hands(rules, hands, caller=res.caller, reason=res.reason) == res
    assert closings > 0, "no round waited for its last discard"
    for seed in range(2):
        m = Match(rules, 3, seed=seed)
        steps = 0
        while not m.is_over:
            random_step(m, random.Random(seed * 1000 + steps))
            steps += 1
            assert steps < 100_000
        res_m = m.result
        assert res_m is not None
        for s in range(3):
            assert res_m.totals[s] == sum(
                (rec.scores[s] or 0) + rec.adjustments[s] for rec in res_m.rounds
            )
        assert Match.from_json(m.to_json()) == m
