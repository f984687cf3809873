"""Two table decisions of issue 12: the dealt discard is a discard; penalty cards stay
unknown to their owner where the table says so (``snap.penalty_seen_by = "others"``).

Both are RuleSet settings, so each is tested on the bundled profile that sets it and
on house tables that turn it on or off, never by a profile's name in the engine.
"""

from __future__ import annotations

import random

import attrs
import pytest

import cambio
from cambio import Action, ActionKind, Round, RuleSet
from cambio.events import EventKind
from cambio.rules import Power, Step
from decks import deal


def with_snap(rules: RuleSet | str, **changes: object) -> RuleSet:
    base = cambio.load_ruleset(rules) if isinstance(rules, str) else rules
    return attrs.evolve(base, snap=attrs.evolve(base.snap, **changes))


# --------------------------------------------------------------------------- dealt discard

GRIDS = (["7S", "2S", "3S", "4S"], ["7H", "9H", "9D", "5H"], ["AC", "2C", "3C", "4C"])


def dealt_round(rules: RuleSet | str, players: int = 3) -> Round:
    deck = deal(*GRIDS[:players], discard="7D", stock=["KC", "QD", "JD", "10D"])
    return Round(rules, players, deck=deck, seed=1, dealer=players - 1)


def test_any_time_tables_snap_the_dealt_card_from_the_deal_in_seat_order() -> None:
    for name in ("snap", "penalty"):
        r = dealt_round(name)
        assert r.window_open
        assert r.reactors == (0, 1, 2), name  # seat order from the starter (seat 0)
        r.apply(Action.snap(1, (1, 1)))  # P1's 7 of hearts matches the dealt 7
        assert r.events[-1].kind == EventKind.SNAP
        assert r.discard_pile[-1] == cambio.Card("7", "H")


def test_own_turn_tables_let_the_starter_stick_on_the_dealt_card_in_its_first_turn() -> None:
    r = dealt_round("elimination")
    assert r.reactors == (0,)
    assert not r.can_apply(Action.snap(1, (1, 1)))  # not P1's turn
    assert r.can_apply(Action.snap(0, (0, 1)))
    # once the starter discards, the dealt card is covered and its window gone
    r.apply(Action.draw(0))
    r.apply(Action.discard(0))
    assert r.discard_pile[-2] == cambio.Card("7", "D")
    assert not any(
        a.kind is ActionKind.SNAP and a.positions == ((0, 1),) and r.discard_pile[-1].rank == "7"
        for a in r.legal_actions(0)
    )


def test_after_other_discard_tables_cannot_snap_the_dealt_card() -> None:
    r = dealt_round("draw-power")
    assert not r.window_open and r.reactors == ()
    assert not any(a.kind is ActionKind.SNAP for a in r.legal_actions())


def test_the_switch_turns_the_dealt_window_off() -> None:
    for name in ("snap", "elimination"):
        r = dealt_round(with_snap(name, dealt_discard=False))
        assert not r.window_open and r.reactors == ()
        assert not any(a.kind is ActionKind.SNAP for a in r.legal_actions())


def test_bundled_tables_record_the_switch() -> None:
    for name in cambio.available_variants():
        rules = cambio.load_ruleset(name)
        assert rules.snap.dealt_discard, name
        r = Round(rules, seed=3)
        # (a table whose deal turns no card face up has no dealt card to snap)
        reaches = rules.snap.when in ("any-time", "own-turn") and rules.opening.upcard
        assert r.window_open is (reaches and not r.is_over), name


# --------------------------------------------------------------------------- penalty cards


def penalty_round(rules: RuleSet | str) -> Round:
    """Three players; P0 sticks wrongly at once (a 2 on the dealt 7): a penalty card,
    the 5 of clubs, lands at P0's position 5."""
    deck = deal(*GRIDS, discard="7D", stock=["5C", "KC", "QD", "JD", "10D"])
    r = Round(rules, 3, deck=deck, seed=1, dealer=2)
    r.apply(Action.snap(0, (0, 2)))
    assert r.events[-1].kind == EventKind.PENALTY and r.hand(0)[4] == cambio.Card("5", "C")
    return r


def test_the_penalty_table_hides_penalty_cards_from_their_owner() -> None:
    rules = cambio.load_ruleset("penalty")
    assert rules.snap.penalty_seen_by == "others"
    r = penalty_round(rules)
    # P1 sticks P0's penalty card wrongly: everyone but P0 sees the 5 of clubs
    r.apply(Action.snap(1, (0, 5)))
    wrong = next(e for e in reversed(r.events) if e.kind == EventKind.WRONG_SNAP)
    assert wrong.seen_by == frozenset({1, 2})
    assert r.view(0).known(0, 5) is None
    assert all(c != cambio.Card("5", "C") for e in r.view(0).history for c in e.cards)
    assert r.view(1).known(0, 5) == cambio.Card("5", "C")
    assert r.view(2).known(0, 5) == cambio.Card("5", "C")


def test_an_owner_sticking_its_own_penalty_card_does_not_see_it() -> None:
    r = penalty_round("penalty")
    r.apply(Action.draw(0))
    r.apply(Action.discard(0))  # the king of clubs: a window P0 may stick on
    assert r.can_apply(Action.snap(0, (0, 5)))
    r.apply(Action.snap(0, (0, 5)))
    assert r.view(0).known(0, 5) is None
    assert r.view(1).known(0, 5) == cambio.Card("5", "C")


def test_no_peek_re_peek_or_seen_swap_shows_an_owner_its_penalty_card() -> None:
    """A house table that would otherwise let the owner look: peekable penalty cards,
    re-peek, a seen swap of any two cards, and a penalty card placed in a grid position."""
    base = cambio.load_ruleset("penalty")
    rules = attrs.evolve(
        base,
        opening=attrs.evolve(base.opening, re_peek=True),
        snap=attrs.evolve(base.snap, penalty_peekable=True),
    )
    r = penalty_round(rules)
    targets = {a.positions for a in _peeks(r, 0)}
    assert ((0, 5),) not in targets and ((0, 1),) in targets
    # with "all", the same table lets the owner peek at it
    open_table = with_snap(rules, penalty_seen_by="all")
    assert ((0, 5),) in {a.positions for a in _peeks(penalty_round(open_table), 0)}


def _peeks(r: Round, p: int) -> list[Action]:
    """The peeks ``p`` could make with an own-or-any peek power now (by the engine)."""
    P = r._P
    return [Action(ActionKind.PEEK, p, ((g // P, g % P + 1),)) for g in r._peek_targets(p, "any")]


def test_a_penalty_card_given_away_is_ordinary() -> None:
    r = penalty_round("penalty")
    c = r._slots[0][4]
    assert r._blind_to_owner(0, 4, c)
    # move it to P1 as a swap would, then P1 may see it as an ordinary card
    r._slots[0][4], r._slots[1][1] = r._slots[1][1], c
    assert not r._blind_to_owner(1, 1, c)


@pytest.mark.parametrize("seed", range(10))
def test_random_play_never_shows_an_owner_its_penalty_card(seed: int) -> None:
    """On the penalty table and a peek-happy house version of it, no owner's view
    ever holds one of its own penalty cards while the card is in its hand."""
    base = cambio.load_ruleset("penalty")
    tables = [
        base,
        attrs.evolve(
            base,
            opening=attrs.evolve(base.opening, re_peek=True),
            snap=attrs.evolve(base.snap, penalty_peekable=True, penalty_position="first-empty"),
        ),
        # penalty cards past the grid, with own peeks and seen swaps of any two cards: a
        # swap within a hand must not carry a penalty card into the grid, where a peek
        # would reach it
        attrs.evolve(
            base,
            powers=attrs.evolve(
                base.powers,
                table=(
                    Power(ranks=("7", "8"), steps=(Step(action="peek", scope="own"),)),
                    Power(
                        ranks=("9", "10", "J", "Q", "K"),
                        steps=(Step(action="swap", scope="any-two", seen=True),),
                    ),
                ),
            ),
            snap=attrs.evolve(base.snap, penalty_peekable=True),
        ),
    ]
    for rules in tables:
        r = Round(rules, 3, seed=seed)
        rng = random.Random(seed)
        penalties = 0
        marked: list[set[int]] = [set() for _ in range(3)]  # penalty card ids per owner
        for _ in range(400):
            if r.is_over:
                break
            start = len(r.events)
            reactors = r.reactors
            if reactors and rng.random() < 0.3:
                who = rng.choice(reactors)
                r.apply(rng.choice([a for a in r.legal_actions(who) if a.kind is ActionKind.SNAP]))
            else:
                who = r.to_act
                assert who is not None
                legal = [a for a in r.legal_actions(who) if a.kind is not ActionKind.CALL]
                grid = rules.grid.size
                for a in legal:
                    if a.kind is ActionKind.SWAP and a.positions[0][0] == a.positions[1][0]:
                        crossing = (a.positions[0][1] > grid) != (a.positions[1][1] > grid)
                        assert not crossing, f"{a} would carry a penalty card into the grid"
                r.apply(rng.choice(legal or r.legal_actions(who)))
            if r.is_over:
                break
            for e in r.events[start:]:
                if e.kind == EventKind.PENALTY and e.positions:
                    ((o, pos),) = e.positions
                    marked[o].add(r._slots[o][pos - 1])
            for p in range(3):
                row = r._slots[p]
                marked[p] &= set(row)  # a card moved to another hand is ordinary
                own = r.view(p).own
                for c in marked[p]:
                    penalties += 1
                    assert own[row.index(c)] is None, f"P{p} sees its penalty card"
        assert penalties > 0
