"""How actions are written and printed.

* ``peek``, ``swap`` and ``snap`` all take places as ``(owner, position)`` pairs; the old
  ``Action.peek(player, owner, position)`` still works, with a ``DeprecationWarning``.
* An action prints the way the event it causes begins: the same seat, kind word and
  places in the same order (``str(Action.swap(0, (0, 1), (2, 3)))`` is
  ``P0 swap P0:1 P2:3`` and the event is ``P0 swap P0:1 P2:3``); the event adds its
  cards, notes and what the action could not know (the places a re-peek shows, the
  place a given card goes to).
"""

from __future__ import annotations

import random
import warnings

import attrs
import pytest

import cambio
from cambio import Action, ActionKind, Event, IllegalActionError, Round

# --------------------------------------------------------------------------- spellings


def test_peek_swap_and_snap_take_owner_position_pairs() -> None:
    assert Action.peek(0, (1, 2)) == Action(ActionKind.PEEK, 0, ((1, 2),))
    assert Action.peek(0, [1, 2]) == Action.peek(0, (1, 2))  # type: ignore[arg-type]
    assert Action.swap(0, (0, 1), (1, 2)).positions == ((0, 1), (1, 2))
    assert Action.snap(2, (1, 3)).positions == ((1, 3),)
    assert Action.snap(1, (1, 4), (1, 2)).positions == ((1, 2), (1, 4))


def test_a_swap_is_the_same_action_whichever_place_comes_first() -> None:
    assert Action.swap(1, (1, 2), (0, 3)) == Action.swap(1, (0, 3), (1, 2))
    assert Action.swap(1, [1, 2], [0, 3]).positions == ((0, 3), (1, 2))  # type: ignore[arg-type]
    rnd = Round("practice", players=3, seed=5)
    space = rnd.space
    assert space.encode(Action.swap(0, (2, 1), (0, 4))) == space.encode(
        Action.swap(0, (0, 4), (2, 1))
    )


def test_the_old_peek_spelling_warns_and_means_the_same() -> None:
    with pytest.warns(DeprecationWarning, match=r"Action\.peek\(player, \(owner, position\)\)"):
        old = Action.peek(0, 1, 2)
    assert old == Action.peek(0, (1, 2))
    with pytest.warns(DeprecationWarning):
        assert Action.peek(0, owner=1, position=2) == old
    with pytest.warns(DeprecationWarning):
        assert Action.peek(0, 1, position=2) == old
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Action.peek(0, 1, 2)
    assert caught[0].filename == __file__  # the warning points at the caller's line


def test_the_new_spellings_do_not_warn() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Action.peek(0, (1, 2))
        Action.swap(0, (0, 1), (1, 2))
        Action.snap(0, (1, 2))


def test_the_old_peek_spelling_still_plays() -> None:
    deck = ["2S", "3S", "4S", "5S", "6S", "8S", "9S", "10S", "3H", "7C", "2H"]
    rnd = Round("practice", players=2, seed=1, deck=deck)
    rnd.apply(Action.draw(0))
    rnd.apply(Action.discard(0))  # 7: peek one's own card
    with pytest.warns(DeprecationWarning):
        action = Action.peek(0, 0, 3)
    rnd.apply(action)
    assert rnd.view(0).known(0, 3) == cambio.Card("4", "S")


@pytest.mark.parametrize(
    "action",
    [
        Action.peek(0, "12"),  # type: ignore[arg-type]
        Action.peek(0, (1,)),  # type: ignore[arg-type]
        Action.peek(0, (0, 1, 2)),  # type: ignore[arg-type]
        Action.swap(0, (0, 1), None),  # type: ignore[arg-type]
        Action.swap(0, (0, "1"), (1, 2)),  # type: ignore[arg-type]
        Action.snap(0, (1, 2.0)),  # type: ignore[arg-type]
        Action.snap(0, "ab", (1, 2)),  # type: ignore[arg-type]
    ],
    ids=str,
)
def test_a_malformed_place_is_an_illegal_action_not_a_crash(action: Action) -> None:
    rnd = Round("practice", players=2, seed=1)
    with pytest.raises(IllegalActionError, match="position"):
        rnd.apply(action)


# --------------------------------------------------------------------------- printing

# The event kinds an action may cause (a failed exchange or a wrong snap is its own kind).
CAUSES = {kind: {kind.value} for kind in ActionKind}
CAUSES[ActionKind.EXCHANGE] = {"exchange", "failed-exchange"}
CAUSES[ActionKind.SNAP] = {"snap", "wrong-snap"}


def caused(action: Action, events: list[Event]) -> Event | None:
    """The event ``action`` caused: the first by its player of a kind it can cause."""
    for event in events:
        if event.player == action.player and event.kind in CAUSES[action.kind]:
            return event
    return None


def printed_alike(action: Action, event: Event) -> bool:
    """The event's text begins with the action's, its own kind word in place of the
    action's (the same word unless a snap or an exchange failed)."""
    head = f"P{action.player} {action.kind.value}"
    text = str(action)
    assert text.startswith(head)
    expected = f"P{event.player} {event.kind}" + text[len(head) :]
    shown = str(event)
    return shown == expected or shown.startswith(expected + " ")


def test_each_kind_of_action_prints_as_its_event_begins() -> None:
    """Random play over every bundled table, until every action kind has been seen."""
    seen: dict[ActionKind, tuple[str, str]] = {}
    rng = random.Random(13)
    practice = cambio.load_ruleset("practice")
    end_of_turn = attrs.evolve(practice, call=attrs.evolve(practice.call, timing="end-of-turn"))
    tables = [cambio.load_ruleset(name) for name in cambio.available_variants()]
    for rules in [*tables, end_of_turn]:  # the last one calls (or passes) after a turn
        for seed in range(4):
            rnd = Round(rules, seed=seed)
            for _ in range(400):
                if rnd.is_over:
                    break
                legal = rnd.legal_actions()
                fresh = [a for a in legal if a.kind not in seen]
                action = rng.choice(fresh if fresh and rng.random() < 0.5 else legal)
                event = caused(action, rnd.apply(action))
                if event is None:  # a skip of a power nobody else knew of: no event
                    assert action.kind is ActionKind.SKIP
                    continue
                assert printed_alike(action, event), (rules.name, seed, str(action), str(event))
                seen.setdefault(action.kind, (str(action), str(event)))
    assert set(seen) == set(ActionKind), f"never played: {set(ActionKind) - set(seen)}"


@pytest.mark.parametrize(
    ("action", "text"),
    [
        (Action.draw(0), "P0 draw"),
        (Action.opening_peek(1, 4, 3), "P1 opening-peek P1:3 P1:4"),
        (Action.replace(2, 3), "P2 replace P2:3"),
        (Action.exchange(0, 3, 1), "P0 exchange P0:1 P0:3"),
        (Action.peek(0, (2, 4)), "P0 peek P2:4"),
        (Action.swap(1, (1, 2), (0, 3)), "P1 swap P0:3 P1:2"),
        (Action.snap(2, (0, 1)), "P2 snap P0:1"),
        (Action.snap(2, (2, 3), (2, 1)), "P2 snap P2:1 P2:3"),
        (Action.give(2, 4), "P2 give P2:4"),
        (Action.re_peek(1), "P1 re-peek"),
        (Action.pass_(0), "P0 pass"),
    ],
    ids=str,
)
def test_action_text(action: Action, text: str) -> None:
    assert str(action) == text
