"""Actions from strangers: a position named twice, and a match whose seats sit out.

* An action that names one position twice is refused with an
  :class:`~cambio.errors.IllegalActionError` that says so, for every kind of action that
  takes positions, never folded into another action (several positions become one bit
  mask, so a repeat would otherwise vanish).
* Once a seat sits out, a :class:`~cambio.Match` translates seats; it must still refuse
  every malformed action a :class:`~cambio.Round` refuses, and its messages must name
  match seats, not the round's.
"""

from __future__ import annotations

import random
import re

import attrs
import pytest

import cambio
from cambio import Action, ActionKind, IllegalActionError, Match, Round
from cambio.rules import OpeningRules, TurnRules
from test_properties import random_choice

POSITIONAL = {
    ActionKind.OPENING_PEEK,
    ActionKind.REPLACE,
    ActionKind.EXCHANGE,
    ActionKind.PEEK,
    ActionKind.SWAP,
    ActionKind.SNAP,
    ActionKind.GIVE,
}

# a table where every kind that takes positions occurs, several-card ones included
EVERY_KIND = attrs.evolve(
    cambio.load_ruleset("snap"),
    name="every-kind",
    opening=OpeningRules(positions=(3, 4), count=1),
    turn=TurnRules(take_discard=True, exchange_equal=True, exchange_failure="discard-drawn"),
    snap=attrs.evolve(cambio.load_ruleset("snap").snap, several=True),
)


def _doubled(action: Action, k: int) -> Action:
    """``action`` with its ``k``-th position named a second time."""
    pos = action.positions
    return Action(action.kind, action.player, (*pos[: k + 1], pos[k], *pos[k + 1 :]))


def _refuses_repeat(r: Round | Match, action: Action) -> None:
    assert not r.can_apply(action)
    for attempt in (r.verify, r.apply):
        with pytest.raises(IllegalActionError, match="named twice"):
            attempt(action)


def _no_call(r: Round, rng: random.Random) -> int:
    """A random legal id that is not a call, its kind drawn first (so draws, discards and
    the powers they fire come as often as takes and exchanges); reactors snap now and then."""
    reactors = r.reactors
    if reactors and rng.random() < 0.2:
        who = rng.choice(reactors)
        return r.space.encode(
            rng.choice([a for a in r.legal_actions(who) if a.kind is ActionKind.SNAP])
        )
    who = r.to_act
    assert who is not None
    legal = r.legal_actions(who)
    quiet = [a for a in legal if a.kind not in (ActionKind.CALL, ActionKind.SNAP)] or legal
    kind = rng.choice(sorted({a.kind for a in quiet}, key=lambda k: k.value))
    return r.space.encode(rng.choice([a for a in quiet if a.kind is kind]))


def test_a_position_named_twice_is_refused_in_every_kind() -> None:
    """Every legal action that takes positions, with one of them repeated, is refused.

    One action of each kind per decision (chosen at random) keeps the walk cheap; a
    round must be unchanged by the refusals.
    """
    covered: set[ActionKind] = set()
    several: set[ActionKind] = set()
    rng = random.Random(12)
    for seed in range(8):
        r = Round(EVERY_KIND, 3, seed=seed)
        for _ in range(150):
            if r.is_over:
                break
            by_kind: dict[ActionKind, list[Action]] = {}
            for action in r.legal_actions():
                if action.positions:
                    by_kind.setdefault(action.kind, []).append(action)
                    if len(action.positions) > 1:
                        several.add(action.kind)
            before = r.copy()
            for kind, actions in by_kind.items():
                covered.add(kind)
                # a several-position one when there is one, so a mask could swallow it
                many = [a for a in actions if len(a.positions) > 1] or actions
                action = rng.choice(many)
                _refuses_repeat(r, _doubled(action, rng.randrange(len(action.positions))))
            assert r == before
            r.apply(_no_call(r, rng))
    assert covered == POSITIONAL
    assert {ActionKind.EXCHANGE, ActionKind.SNAP, ActionKind.SWAP} <= several


def test_the_reported_snap_with_a_repeat_is_not_a_two_card_snap() -> None:
    """The issue's case: (2, 1), (2, 2), (2, 2) was applied as a snap of two cards."""
    snap = Action(ActionKind.SNAP, 2, ((2, 1), (2, 2), (2, 2)))
    pair = Action(ActionKind.SNAP, 2, ((2, 1), (2, 2)))
    r = Round(EVERY_KIND, 3, seed=1)
    rng = random.Random(1)
    while not r.can_apply(pair):  # until P2 may snap its first two cards together
        assert not r.is_over
        r.apply(random_choice(r, rng.randrange(1 << 16), False))
    before = r.copy()
    _refuses_repeat(r, snap)
    assert r == before
    with pytest.raises(ValueError, match="named twice"):
        r.space.encode(snap)
    exchange = Action(ActionKind.EXCHANGE, 0, ((0, 1), (0, 1), (0, 2)))
    with pytest.raises(ValueError, match="named twice"):
        r.space.encode(exchange)
    _refuses_repeat(r, exchange)


def test_a_match_refuses_a_repeated_position() -> None:
    m = Match(EVERY_KIND, players=3, seed=2)
    _refuses_repeat(m, Action(ActionKind.SNAP, 1, ((1, 1), (1, 2), (1, 1))))


# --------------------------------------------------------------------------- sitting out


def seat_out_match() -> Match:
    """A four-seat elimination match to 30, played until a seat sits out of the round."""
    base = cambio.load_ruleset("elimination")
    rules = attrs.evolve(base, match=attrs.evolve(base.match, limit=30))
    for seed in range(50):
        m = Match(rules, players=4, seed=seed)
        rng = random.Random(seed)
        while not m.is_over and len(m.round_seats) == 4:
            ids = m.legal_action_ids()
            m.apply(ids[rng.randrange(len(ids))])
        if not m.is_over and m.round_seats != tuple(range(len(m.round_seats))):
            return m
    raise AssertionError("no seed puts a seat out before a later seat")


@pytest.mark.parametrize(
    "odd",
    [
        lambda p, o: Action(ActionKind.DRAW, float(p)),
        lambda p, o: Action(ActionKind.DRAW, True),
        lambda p, o: Action(ActionKind.SNAP, p, [(p, 1)]),
        lambda p, o: Action(ActionKind.SNAP, p, ((float(p), 1),)),
        lambda p, o: Action(ActionKind.SNAP, p, ((p, 1.0),)),
        lambda p, o: Action(ActionKind.SNAP, p, ([p, 1],)),
        lambda p, o: Action(ActionKind.PEEK, p, ((o, 1), (o, 1))),
        lambda p, o: Action(ActionKind.DRAW, str(p)),
    ],
    ids=[
        "float-player",
        "bool-player",
        "list-positions",
        "float-owner",
        "float-position",
        "list-slot",
        "repeat",
        "str-player",
    ],
)
def test_a_match_with_a_seat_out_refuses_malformed_actions(odd: object) -> None:
    m = seat_out_match()
    p = m.to_act
    assert p is not None
    other = next(s for s in m.round_seats if s != p)
    action = odd(p, other)  # type: ignore[operator]
    before = m.copy()
    assert not m.can_apply(action)
    with pytest.raises(IllegalActionError):
        m.verify(action)
    with pytest.raises(IllegalActionError):
        m.apply(action)
    assert m == before


def test_a_match_with_a_seat_out_names_match_seats_in_its_messages() -> None:
    m = seat_out_match()
    seats = m.round_seats
    who = m.to_act
    assert who is not None
    # every seat playing the round, acting out of turn, hears the match seats' numbers
    for s in seats:
        if s == who:
            continue
        with pytest.raises(IllegalActionError) as info:
            m.apply(Action.call(s))
        named = {int(x) for x in re.findall(r"\bP(\d+)\b", info.value.reason)}
        assert named == {who, s}, info.value.reason
