"""Every card counted, on every table with positions past the grid: after every action
of random rounds, with snaps tried whenever a window is open, each card of the deck lies
in exactly one place (a grid position, the discard pile, the stock or the hand) and the
whole state passes the engine's check (:func:`cambio.invariants.state_problem`).

The tables are the bundled ones that have extra positions, each also with a snap of a
discard already won counting as a wrong snap (``snap.too_late = "penalty"``) and with
penalty cards put in the first empty position: the combinations where a penalty card
and a card given back compete for one empty position."""

from __future__ import annotations

import random
from collections import Counter

import attrs
import pytest

import cambio
from cambio.invariants import state_problem
from cambio.rules import RuleSet


def _tables() -> list[RuleSet]:
    out = []
    for name in cambio.available_variants():
        rules = cambio.load_ruleset(name)
        if not rules.grid.extra or rules.snap.when == "never":
            continue
        out.append(rules)
        for too_late in ("void", "penalty"):
            for where in ("after-grid", "first-empty"):
                snap = attrs.evolve(
                    rules.snap, per_discard="one", too_late=too_late, penalty_position=where
                )
                out.append(attrs.evolve(rules, snap=snap))
    return out


TABLES = _tables()


def _count(r: cambio.Round) -> None:
    places = [c for row in r._slots for c in row if c >= 0]
    places += r._discard + r._stock + ([r._drawn] if r._drawn >= 0 else [])
    assert sorted(places) == list(range(len(r.deck))), Counter(places).most_common(2)


@pytest.mark.parametrize(
    "rules", TABLES, ids=lambda r: f"{r.name}:{r.snap.too_late}:{r.snap.penalty_position}"
)
def test_every_card_lies_in_exactly_one_place_after_every_action(rules: RuleSet) -> None:
    players = min(max(3, rules.players.min), rules.players.max)
    for seed in range(12):
        r = cambio.Round(rules, players, seed=seed)
        rng = random.Random(seed)
        for _ in range(400):
            if r.is_over:
                break
            snaps = [a for p in r.reactors for a in r.legal_actions(p) if a.kind.value == "snap"]
            if snaps and rng.random() < 0.6:
                r.apply(rng.choice(snaps))
            else:
                who = r.to_act
                assert who is not None
                r.apply(rng.choice(r.legal_actions(who)))
            _count(r)
            assert state_problem(r) is None, (seed, r.position())
