"""A view is a value: nothing a bot does to it reaches the round or a later view.

Every object reachable from a view (its fields, the history and its events, cards,
power steps, results; private attributes too) is attacked with every ordinary way to
change an object: setting and deleting each attribute, public or private, and calling
each mutating container method. Whatever succeeds must leave the round, and every view
built afterwards, equal to an untouched copy of the round.

Bypassing a frozen class with ``object.__setattr__`` is out of reach of any Python
value short of copying every card, and is not attempted.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

import cambio
from cambio import Match, Round
from test_properties import random_choice

_LEAVES = (str, bytes, int, float, bool, type(None), range)
_MUTATORS: tuple[tuple[str, tuple[Any, ...]], ...] = (
    ("append", (None,)),
    ("extend", ((None,),)),
    ("insert", (0, None)),
    ("pop", ()),
    ("clear", ()),
    ("add", (None,)),
    ("update", ({},)),
    ("remove", (None,)),
    ("discard", (None,)),
    ("sort", ()),
    ("reverse", ()),
    ("__setitem__", (0, None)),
    ("__delitem__", (0,)),
    ("__iadd__", ((None,),)),
)


def reachable(root: object) -> Iterator[object]:
    """Every object reachable from ``root`` through items and attributes (slots too)."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, (*_LEAVES, type)):
            continue
        seen.add(id(obj))
        yield obj
        if isinstance(obj, dict):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, (tuple, list, set, frozenset)):
            stack.extend(obj)
        for name in _attribute_names(obj):
            try:
                value = getattr(obj, name)
            except Exception:
                continue
            if not callable(value):
                stack.append(value)


def _attribute_names(obj: object) -> list[str]:
    names = set(getattr(obj, "__dict__", {}))
    for klass in type(obj).__mro__:
        slots = klass.__dict__.get("__slots__", ())
        names.update([slots] if isinstance(slots, str) else slots)
    names.update(n for n in dir(obj) if not (n.startswith("__") and n.endswith("__")))
    return sorted(names)


def attack(root: object) -> int:
    """Try every ordinary mutation on everything reachable from ``root``; count successes."""
    done = 0
    for obj in list(reachable(root)):
        for name in [*_attribute_names(obj), "_planted"]:
            for act, args in ((setattr, (obj, name, None)), (delattr, (obj, name))):
                try:
                    act(*args)
                    done += 1
                except Exception:
                    pass
        for method, args in _MUTATORS:
            fn = getattr(obj, method, None)
            if fn is None:
                continue
            try:
                fn(*args)
                done += 1
            except Exception:
                pass
    return done


def _played(name: str, seed: int, steps: int) -> Round:
    r = Round(name, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if r.is_over:
            break
        r.apply(random_choice(r, rng.randrange(1 << 16), rng.random() < 0.3))
    return r


@pytest.mark.parametrize("name", ["practice", "snap", "penalty", "draw-power", "teams"])
def test_attacking_a_view_changes_neither_the_round_nor_later_views(name: str) -> None:
    for steps in (0, 25, 400):
        r = _played(name, 11, steps)
        untouched = r.copy()
        for p in range(r.players):
            r.view(p)  # a view built before the attack shares the cached history
            attack(r.view(p))
        assert r == untouched, "attacking a view changed the round"
        for p in range(r.players):
            assert r.view(p) == untouched.view(p), f"attacking a view changed P{p}'s next view"
        if not r.is_over:  # and the round plays on exactly as the copy does
            a = r.legal_action_ids()[0]
            assert r.apply(a) == untouched.apply(a)
            assert all(r.view(p) == untouched.view(p) for p in range(r.players))


def test_a_view_history_is_a_tuple_of_immutable_events() -> None:
    r = _played("snap", 3, 30)
    view = r.view(0)
    assert type(view.history) is tuple
    with pytest.raises(AttributeError):
        view.history[0].positions = ()  # type: ignore[misc]


def test_attacking_a_match_view_changes_neither_the_match_nor_later_views() -> None:
    m = Match("elimination", players=3, seed=4)
    rng = random.Random(4)
    for _ in range(200):
        if m.is_over:
            break
        ids = m.legal_action_ids()
        m.apply(ids[rng.randrange(len(ids))])
    untouched = m.copy()
    for p in range(m.players):
        attack(m.view(p))
    assert m == untouched
    assert all(m.view(p) == untouched.view(p) for p in range(m.players))


class _Handle:
    """The shape of the old history: a read-only face over a private list."""

    __slots__ = ("_events",)

    def __init__(self, events: list[int]) -> None:
        self._events = events


def test_the_attack_reaches_a_list_behind_a_private_attribute() -> None:
    """The attacker is strong enough to find and change what the old history shared."""
    shared = [1, 2, 3]
    attack((_Handle(shared), ({"a": [4]}, frozenset({5}))))
    assert shared != [1, 2, 3]


def test_rulesets_built_apart_share_nothing_mutable() -> None:
    """Changing one RuleSet's tables (they are plain dicts) never changes another's."""
    first, second = cambio.RuleSet(), cambio.RuleSet()
    shared = {id(x) for x in reachable(first)} & {id(x) for x in reachable(second)}
    mutable = [x for x in reachable(first) if id(x) in shared and isinstance(x, (dict, list, set))]
    assert mutable == []
