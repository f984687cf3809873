"""What a table may cost: the ceilings of ``check_rules`` and that they hold in play.

Each ceiling is refused with a problem that names its key, whether the table comes from
Python or from a file. A property test draws tables at and just past the ceilings
(``strategies.large_rulesets()``): every one the validator refuses is over some ceiling,
and every one it accepts deals at its largest seat count and plays to the end with an
action space and legal actions per decision within the documented bounds.
"""

from __future__ import annotations

import random
from pathlib import Path

import attrs
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import cambio
from cambio import ActionKind, Round, RuleSet, RuleSetError
from cambio.actions import ActionSpace, opening_choices, space_size
from cambio.loading import ruleset_from_toml
from cambio.rules import (
    LIMITS,
    MAX_ACTION_SPACE,
    MAX_EARLIEST,
    MAX_EXTRA,
    MAX_FINAL_TURNS,
    MAX_GRID,
    MAX_LEGAL_ACTIONS,
    MAX_OPENING_CHOICES,
    MAX_PLAYERS,
    CallRules,
    DeckRules,
    GridRules,
    OpeningRules,
    PlayerRules,
    SnapRules,
    TurnRules,
    check_rules,
    table_costs,
)
from strategies import large_rulesets

PRACTICE = cambio.load_ruleset("practice")
SMALL_OPENING = OpeningRules(positions=(1, 2), count=2)


def problems(rules: RuleSet) -> dict[str, str]:
    return dict(check_rules(rules))


def test_every_bundled_profile_is_far_below_every_ceiling() -> None:
    for name in cambio.available_variants():
        rules = cambio.load_ruleset(name)
        costs = table_costs(rules)
        assert costs.action_space * 100 < MAX_ACTION_SPACE, name
        assert costs.legal_actions * 30 < MAX_LEGAL_ACTIONS, name
        assert rules.players.max * 2 <= MAX_PLAYERS and rules.grid.max_positions < MAX_GRID


OVER: dict[str, RuleSet] = {
    "players.max": attrs.evolve(PRACTICE, players=PlayerRules(max=2000), deck=DeckRules(decks=154)),
    "grid.rows": attrs.evolve(
        PRACTICE, grid=GridRules(rows=(5, 5, 3), extra=0), deck=DeckRules(decks=2)
    ),
    "grid.extra": attrs.evolve(PRACTICE, grid=GridRules(extra=10**9)),
    "opening.count": attrs.evolve(
        PRACTICE,
        players=PlayerRules(max=4),
        grid=GridRules(rows=(6, 6)),
        opening=OpeningRules(positions=tuple(range(1, 13)), count=6),
    ),
    "call.final_turns": attrs.evolve(PRACTICE, call=CallRules(final_turns=10**9)),
    "call.earliest": attrs.evolve(PRACTICE, call=CallRules(earliest=MAX_EARLIEST + 1)),
    "turn.exchange_equal": attrs.evolve(
        PRACTICE,
        players=PlayerRules(max=4),
        grid=GridRules(rows=(4, 4, 4), extra=12),
        opening=SMALL_OPENING,
        turn=TurnRules(exchange_equal=True),
        deck=DeckRules(decks=2),
    ),
    "snap.several": attrs.evolve(
        PRACTICE,
        players=PlayerRules(max=4),
        grid=GridRules(rows=(4, 4, 4), extra=10),
        opening=SMALL_OPENING,
        snap=SnapRules(when="any-time", several=True),
        deck=DeckRules(decks=2),
    ),
}
"""One table just over each ceiling (and within every other)."""


@pytest.mark.parametrize("key", sorted(OVER))
def test_each_ceiling_is_refused_naming_its_key(key: str) -> None:
    found = problems(OVER[key])
    assert key in found, found
    assert "at most" in found[key]
    assert set(found) == {key}, found  # nothing else is wrong with these tables
    with pytest.raises(RuleSetError) as info:
        cambio.rules.ensure_valid(OVER[key])
    assert key in str(info.value)
    with pytest.raises(ValueError):  # a RuleSetError is a ValueError
        Round(OVER[key], 2, seed=1)


def test_the_issues_tables_are_refused_from_a_file() -> None:
    """The tables of issue 12, as files: each a one-line problem at the key to change."""
    cases = {
        "[grid]\nextra = 1000000000\n": "grid.extra",
        "[grid]\nextra = 20000\n": "grid.extra",
        "[players]\nmax = 2000\n[deck]\ndecks = 100\n": "players.max",
        "[call]\nfinal_turns = 1000000000\n": "call.final_turns",
        "[grid]\nrows = [10, 10, 10, 10]\n[opening]\npositions = ["
        + ", ".join(map(str, range(1, 41)))
        + "]\ncount = 20\n": "grid.rows",
        "[players]\nmax = 3\n[grid]\nrows = [12]\nextra = 10\n[turn]\nexchange_equal = true\n": (
            "turn.exchange_equal"
        ),
        '[players]\nmax = 3\n[grid]\nrows = [12]\nextra = 11\n[snap]\nwhen = "any-time"\n'
        "several = true\n": "snap.several",
    }
    for text, key in cases.items():
        with pytest.raises(RuleSetError) as info:
            ruleset_from_toml('extends = "practice"\n' + text, "big.toml")
        paths = {p.path for p in info.value.problems}
        assert key in paths, (text, paths)
        assert all(p.source == "big.toml" for p in info.value.problems)


def test_a_table_at_every_ceiling_is_accepted() -> None:
    at = attrs.evolve(
        PRACTICE,
        players=PlayerRules(max=MAX_PLAYERS),
        deck=DeckRules(decks=3),
        grid=GridRules(rows=(4, 4, 4), extra=MAX_EXTRA),
        call=CallRules(final_turns=MAX_FINAL_TURNS, earliest=MAX_EARLIEST),
    )
    assert problems(at) == {}
    costs = table_costs(at)
    assert costs.action_space <= MAX_ACTION_SPACE and costs.legal_actions <= MAX_LEGAL_ACTIONS


def test_the_limits_are_documented() -> None:
    page = (Path(__file__).parents[1] / "docs" / "reference.md").read_text(encoding="utf-8")
    assert "## Limits" in page
    for limit in LIMITS:
        assert f"| {limit.ceiling:,} |" in page, limit
    assert MAX_OPENING_CHOICES and MAX_GRID  # the constants the table is built from


def test_table_costs_refuses_a_table_past_the_size_ceilings() -> None:
    with pytest.raises(ValueError, match=r"grid\.extra"):
        table_costs(OVER["grid.extra"])  # 2 ** 10**9 ids: refused, not computed


def test_space_size_is_the_size_of_the_action_space() -> None:
    for players, positions, openings, exchange, several in [
        (2, 8, 0, False, False),
        (6, 9, 2, True, False),
        (12, 24, 0, False, False),
        (3, 12, 6, True, True),
    ]:
        space = ActionSpace(players, positions, [(1,)] * openings, exchange, several)
        assert space.size == space_size(players, positions, openings, exchange, several)


def _chooser(r: Round, rng: random.Random, bound: int) -> int:
    """Check every waiting player's legal actions against ``bound``; pick one that ends
    the round soon (call when possible, draw rather than take, a snap now and then)."""
    for q in r.reactors:
        assert len(r.legal_action_ids(q)) <= bound
    if r.reactors and rng.random() < 0.1:
        q = rng.choice(r.reactors)
        snaps = [a for a in r.legal_action_ids(q) if r.space.decode(a).kind is ActionKind.SNAP]
        if snaps:
            return rng.choice(snaps)
    who = r.to_act
    assert who is not None
    ids = r.legal_action_ids(who)
    assert 0 < len(ids) <= bound
    kinds = {r.space.decode(a).kind: a for a in reversed(ids)}
    for kind in (ActionKind.CALL, ActionKind.DRAW):
        if kind in kinds:
            return kinds[kind]
    quiet = [a for a in ids if r.space.decode(a).kind is not ActionKind.SNAP] or ids
    return rng.choice(quiet)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(large_rulesets(), st.integers(0, 2**32 - 1))
def test_every_table_the_validator_accepts_near_the_ceilings_plays_to_the_end(
    rules: RuleSet, seed: int
) -> None:
    found = problems(rules)
    sized = rules.players.max <= MAX_PLAYERS and rules.grid.max_positions <= MAX_GRID + MAX_EXTRA
    costs = table_costs(rules) if sized else None
    over = (
        rules.players.max > MAX_PLAYERS
        or rules.grid.size > MAX_GRID
        or rules.grid.extra > MAX_EXTRA
        or rules.call.final_turns > MAX_FINAL_TURNS
        or rules.call.earliest > MAX_EARLIEST
        or len(opening_choices(rules.opening.positions, rules.opening.count)) > MAX_OPENING_CHOICES
        or (costs is not None and costs.action_space > MAX_ACTION_SPACE)
        or (costs is not None and costs.legal_actions > MAX_LEGAL_ACTIONS)
    )
    assert over == bool(found), found
    event("refused" if found else "accepted")
    if found:
        for key in found:
            event(f"refused at {key.split('[')[0]}")
        return
    event(f"masks: exchange={rules.turn.exchange_equal} several={rules.snap.several}")
    assert costs is not None
    r = Round(rules, rules.players.max, seed=seed)
    assert r.space.size == costs.action_space <= MAX_ACTION_SPACE
    assert len(r.legal_action_mask(0)) == r.space.size
    rng = random.Random(seed)
    per_turn = 8 + max((len(p.steps) for p in rules.powers.table), default=0) + 3 * r.players
    budget = (rules.turn.max_turns + 2) * per_turn + rules.players.max * 4
    for _ in range(budget):
        if r.is_over:
            break
        r.apply(_chooser(r, rng, costs.legal_actions))
    assert r.is_over, f"not over after {budget} decisions"
    assert r.result is not None and len(r.result.scores) == rules.players.max
