"""Prepared decks and written positions for scripted tests (shared by the test modules)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import attrs

import cambio
from cambio import Round, RuleSet


def deal(*grids: Sequence[str], discard: str, stock: Sequence[str] = ()) -> list[str]:
    """A prepared deck: each seat's grid, the first discard, then the stock top-down."""
    out: list[str] = []
    for g in grids:
        out.extend(g)
    out.append(discard)
    out.extend(stock)
    return out


def position(rules: RuleSet | str, *fields: str) -> Round:
    """A round built from a written position given field by field (see docs/positions.md).

    Writing the fields apart lets a test put a comment beside each one; the stock may end
    in ``...`` (every card not written elsewhere, face down).
    """
    return Round.from_position(rules, " ".join(fields))


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


def random_step(r: Round, rng: random.Random) -> None:
    """Apply one random legal action: the turn's options and every reactor's snaps, as one
    sorted list (the choices the save fixtures were made with)."""
    who = r.to_act
    assert who is not None
    options = list(r.legal_action_ids(who))
    for q in r.reactors:
        options.extend(r.legal_action_ids(q))
    r.apply(rng.choice(sorted(set(options))))


def random_steps(r: Round, seed: int, steps: int) -> Round:
    """Up to ``steps`` :func:`random_step` actions drawn from ``random.Random(seed)``."""
    rng = random.Random(seed)
    for _ in range(steps):
        if r.is_over:
            break
        random_step(r, rng)
    return r


def seat_counts(rules: RuleSet) -> list[int]:
    """The player counts a round of ``rules`` may be dealt for."""
    size = rules.teams.size
    return [n for n in range(rules.players.min, rules.players.max + 1) if n % size == 0]
