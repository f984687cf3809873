"""The bundled profiles: all twenty load, are playable, and say what RULES.md says."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import cambio
from cambio import Card, RuleSet, check_rules, load_ruleset
from cambio.loading import (
    _variants_dir,
    ruleset_from_dict,
    ruleset_from_toml,
    ruleset_to_dict,
    ruleset_to_toml,
)
from cambio.rules import PRACTICE_POWERS, ValueRules

VARIANTS = Path(__file__).resolve().parents[1] / "variants"

PARENTS = {
    "practice": None,
    "elimination": None,
    "snap": None,
    "draw-power": None,
    "penalty": None,
    "blind": "elimination",
    "jokers-minus-five": "elimination",
    "five-card": "elimination",
    "teams": "elimination",
    "open-kings": "elimination",
    "no-penalty": "elimination",
    "winners-bonus": "penalty",
    "caller-plus-five": "penalty",
    "no-stick-others": "penalty",
    "jokers-minus-two": "penalty",
    "one-peek": "penalty",
    "no-peek": "penalty",
    "re-peek": "penalty",
    "cabo": None,
    "competitive": "snap",
    "micro": None,
    "snap-refill": "snap",
    "no-upcard": "snap",
    "winner-leads": "snap",
    "sudden-call": "elimination",
    "king-two-others": "penalty",
    "locked-caller": "penalty",
    "open-draw": "draw-power",
}

BASE_PAGES = {"practice": "000", "elimination": "001", "snap": "002", "draw-power": "003",
              "penalty": "004"}  # fmt: skip

# What each variation changes in its parent, as dotted key paths of the dict form
# (name and summary left out).
CHANGES = {
    "blind": {"opening.count": 0},
    "jokers-minus-five": {"deck.jokers": 2, "values.rank.Joker": -5},
    "five-card": {"grid.rows": [2, 2, 1], "match.limit": 150},
    "teams": {"teams.size": 2, "players.min": 4},
    "open-kings": {"values.red.K": 0},
    "no-penalty": {"call.penalty": 0},
    "winners-bonus": {"scoring.winner_scores_zero": True},
    "caller-plus-five": {"call.penalty": 5},
    "no-stick-others": {"snap.targets": "own"},
    "jokers-minus-two": {"values.rank.Joker": -2},
    "one-peek": {"opening.count": 1},
    "no-peek": {"opening.count": 0},
    "re-peek": {"opening.re_peek": True},
    "competitive": {"powers.swapped_out": True, "snap.several": True, "snap.arbitration": "random"},
    "snap-refill": {"stock.recycle_when": "one-left"},
    "no-upcard": {"opening.upcard": False},
    "winner-leads": {"match.starter": "last-winner", "match.tied_winners": "lowest-seat"},
    "sudden-call": {"call.final_turns": 0},
    "locked-caller": {"call.caller_locked": True, "call.caller_locked_peeks": True},
    "open-draw": {"turn.open_draw": True},
}


def flat(data: Any, prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            out.update(flat(value, path + "."))
        else:
            out[path] = value
    return out


def values(rules: RuleSet, *cards: str) -> list[int]:
    return [rules.value(Card.parse(c)) for c in cards]


def steps(rules: RuleSet, card: str) -> list[tuple[str, str, bool]] | None:
    power = rules.powers.power_of(Card.parse(card))
    if power is None:
        return None
    return [(s.action, s.scope, s.optional) for s in power.steps]


# --------------------------------------------------------------------------- the registry


def test_twenty_profiles() -> None:
    assert cambio.available_variants() == sorted(PARENTS)
    assert sorted(p.stem for p in VARIANTS.glob("*.toml")) == sorted(PARENTS)


def test_bundled_folder_is_found_from_a_source_checkout() -> None:
    folder = _variants_dir()
    assert folder.is_dir()
    assert sorted(e.name for e in folder.iterdir() if e.name.endswith(".toml")) == sorted(
        f"{name}.toml" for name in PARENTS
    )


def test_summaries() -> None:
    summaries = cambio.variant_summaries()
    assert list(summaries) == sorted(PARENTS)
    assert len(set(summaries.values())) == len(summaries)
    for name, summary in summaries.items():
        assert summary and "\n" not in summary, name
        assert len(summary) <= 120, name


@pytest.mark.parametrize("name", sorted(PARENTS))
def test_profile_loads_and_is_playable(name: str) -> None:
    rules = load_ruleset(name)
    assert rules.name == name
    assert check_rules(rules) == []
    assert load_ruleset(VARIANTS / f"{name}.toml") == rules
    assert rules.players.min <= rules.players.default <= rules.players.max


@pytest.mark.parametrize("name", sorted(PARENTS))
def test_profile_file_documents_its_table_and_decisions(name: str) -> None:
    text = (VARIANTS / f"{name}.toml").read_text(encoding="utf-8")
    header = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        header.append(line)
    assert header[0].startswith(f"# {name}: "), "the file opens by naming its table"
    block = "\n".join(header)
    assert "# Decisions" in block
    parent = PARENTS[name]
    if name in BASE_PAGES or parent is None:
        assert "# Source: " in block
    else:
        assert f"the {parent} table" in block
    assert re.search(rf'^name = "{re.escape(name)}"$', text, re.M)
    assert re.search(r'^summary = "', text, re.M)
    extends = re.search(r'^extends = "([^"]+)"$', text, re.M)
    assert (extends.group(1) if extends else None) == parent


@pytest.mark.parametrize("name", sorted(CHANGES))
def test_variation_changes_exactly_what_it_says(name: str) -> None:
    child = flat(ruleset_to_dict(load_ruleset(name)))
    parent = flat(ruleset_to_dict(load_ruleset(PARENTS[name] or "")))
    changed = {
        key: child.get(key)
        for key in set(child) | set(parent)
        if child.get(key) != parent.get(key) and key not in ("name", "summary")
    }
    assert changed == CHANGES[name]


# --------------------------------------------------------------------------- round trips


@pytest.mark.parametrize("name", sorted(PARENTS))
def test_round_trip(name: str) -> None:
    rules = load_ruleset(name)
    text = ruleset_to_toml(rules)
    assert "extends" not in text
    assert ruleset_from_toml(text, f"{name}-copy") == rules
    data = json.loads(json.dumps(ruleset_to_dict(rules)))
    assert ruleset_from_dict(data) == rules


# --------------------------------------------------------------------------- the five tables


def test_practice_is_the_schema_default() -> None:
    rules = load_ruleset("practice")
    default = RuleSet()
    no_joker = {k: v for k, v in ValueRules().rank.items() if k != "Joker"}
    assert rules == RuleSet(
        name="practice", summary=rules.summary, values=ValueRules(rank=no_joker)
    )
    assert rules.powers.table == PRACTICE_POWERS == default.powers.table


def test_practice() -> None:
    r = load_ruleset("practice")
    assert len(r.deck.cards()) == 52
    assert (r.players.min, r.players.max, r.players.default) == (2, 6, 3)
    assert values(r, "AS", "10D", "JS", "QH", "KS", "KH", "KD") == [1, 10, 11, 12, 13, -1, -1]
    assert steps(r, "7S") == steps(r, "8H") == [("peek", "own", False)]
    assert steps(r, "9C") == steps(r, "10D") == [("peek", "other", False)]
    assert steps(r, "JC") == steps(r, "QD") == [("swap", "own-other", False)]
    assert steps(r, "KS") == [("peek", "any", False), ("swap", "own-other", True)]
    assert steps(r, "KH") is None
    assert r.snap.when == "never"
    assert (r.call.penalty, r.call.bonus) == (0, 0)
    assert r.scoring.tie_break == ("share",)
    assert r.stock.on_empty == "end"
    assert r.match.end == "single"
    assert r.turn.take_discard
    assert r.powers.timing == "discard"
    assert r.opening.positions == (3, 4) and r.opening.count == 2
    assert r.match.starter == "left-of-dealer"


def test_elimination() -> None:
    r = load_ruleset("elimination")
    assert len(r.deck.cards()) == 52
    assert values(r, "KH", "KD", "KS", "KC", "JS", "QS") == [-2, -2, 0, 0, 11, 12]
    assert steps(r, "QH") == [
        ("peek", "own", False),
        ("peek", "other", False),
        ("swap", "peeked-pair", True),
    ]
    assert steps(r, "JH") == [("swap", "own-other", False)]
    assert steps(r, "KS") is None and steps(r, "KH") is None
    assert (r.snap.when, r.snap.targets, r.snap.empty_grid) == ("own-turn", "own", "win")
    assert r.snap.penalty_cards == 1
    assert (r.call.penalty, r.call.tie_is_lowest) == (10, True)
    assert r.scoring.winner_scores_zero
    assert r.scoring.tie_break == ("caller", "share")
    assert r.stock.on_empty == "recycle"
    m = r.match
    assert (m.end, m.limit, m.at_limit, m.tie) == ("elimination", 100, True, "extra-round")
    assert (m.first_dealer, m.starter) == ("high-card", "left-of-dealer")


def test_snap() -> None:
    r = load_ruleset("snap")
    assert len(r.deck.cards()) == 54
    assert values(r, "JS", "QH", "KS", "KH", "Joker") == [10, 10, 10, -1, 0]
    assert steps(r, "7C") == [("peek", "own", False)]
    assert steps(r, "10C") == [("peek", "other", False)]
    assert steps(r, "JD") == steps(r, "QS") == [("swap", "any-two", False)]
    king = [("peek", "any", False), ("swap", "peeked-any", True)]
    assert steps(r, "KH") == steps(r, "KS") == king
    assert steps(r, "Joker") is None
    s = r.snap
    assert (s.when, s.targets, s.penalty_cards, s.empty_grid) == ("any-time", "any", 1, "call")
    assert (r.call.bonus, r.call.penalty, r.call.tie_is_lowest) == (-10, 10, False)
    assert r.scoring.tie_break == ("share",)
    assert r.stock.on_empty == "recycle"
    m = r.match
    assert (m.end, m.limit, m.at_limit) == ("limit", 100, True)
    assert (m.first_dealer, m.starter) == ("random", "worst-hand")


def test_draw_power() -> None:
    r = load_ruleset("draw-power")
    assert (r.players.min, r.players.max) == (2, 4)
    assert len(r.deck.cards()) == 54
    assert values(r, "JS", "QH", "KS", "KH", "Joker") == [10, 10, 10, -1, 0]
    assert r.powers.timing == "draw"
    assert not r.turn.take_discard
    assert steps(r, "JD") == steps(r, "QS") == [("swap", "own-other", False)]
    assert steps(r, "KS") == [("peek", "other", False), ("swap", "peeked-own", True)]
    assert steps(r, "KH") is None
    s = r.snap
    assert (s.when, s.targets, s.match) == ("after-other-discard", "own", "rank")
    assert (s.empty_grid, s.penalty_cards) == ("call", 1)
    assert (r.call.penalty, r.call.bonus) == (0, 0)
    assert r.scoring.tie_break == ("share",)
    assert r.stock.on_empty == "recycle"
    assert (r.match.end, r.match.starter) == ("single", "left-of-dealer")


def test_penalty() -> None:
    r = load_ruleset("penalty")
    assert len(r.deck.cards()) == 54
    assert values(r, "JS", "QH", "KS", "KH", "Joker") == [10, 10, 10, -1, 0]
    assert not r.turn.take_discard
    assert steps(r, "JD") == steps(r, "QS") == [("swap", "own-other", False)]
    assert steps(r, "KC") == [
        ("peek", "own", False),
        ("peek", "other", False),
        ("swap", "peeked-pair", True),
    ]
    s = r.snap
    assert (s.when, s.targets, s.penalty_cards, s.penalty_peekable) == (
        "any-time",
        "any",
        1,
        False,
    )
    assert s.empty_grid == "call"
    assert r.scoring.tie_break == ("not-caller", "lower-cards", "share")
    assert r.stock.on_empty == "recycle"
    assert (r.match.end, r.match.limit, r.match.at_limit) == ("limit", 100, False)


# --------------------------------------------------------------------------- the variations


def test_five_card_grid() -> None:
    r = load_ruleset("five-card")
    assert r.grid.rows == (2, 2, 1) and r.grid.size == 5
    assert r.opening.positions == (3, 4) and r.opening.count == 2
    assert r.match.limit == 150


def test_teams() -> None:
    r = load_ruleset("teams")
    assert r.teams.size == 2
    assert (r.players.min, r.players.max, r.players.default) == (4, 6, 4)


def test_jokers_variations() -> None:
    five = load_ruleset("jokers-minus-five")
    assert len(five.deck.cards()) == 54
    assert values(five, "Joker", "KH", "KS") == [-5, -2, 0]
    assert steps(five, "Joker") is None
    assert values(load_ruleset("jokers-minus-two"), "Joker", "KH") == [-2, -1]


def test_kings_and_caller_variations() -> None:
    assert values(load_ruleset("open-kings"), "KH", "KD", "KS", "KC") == [0, 0, 0, 0]
    assert load_ruleset("no-penalty").call.penalty == 0
    plus_five = load_ruleset("caller-plus-five").call
    assert (plus_five.penalty, plus_five.tie_is_lowest) == (5, False)
    assert load_ruleset("winners-bonus").scoring.winner_scores_zero


def test_peek_variations() -> None:
    assert load_ruleset("blind").opening.count == 0
    assert load_ruleset("no-peek").opening.count == 0
    one = load_ruleset("one-peek").opening
    assert (one.positions, one.count) == ((3, 4), 1)
    again = load_ruleset("re-peek").opening
    assert (again.count, again.re_peek) == (2, True)
    assert load_ruleset("no-stick-others").snap.targets == "own"
    assert load_ruleset("no-stick-others").snap.when == "any-time"
