"""Reading rule tables: strict structuring, every problem at once, extends, round trips."""

from __future__ import annotations

import json
import os
import re
import string
import tempfile
from pathlib import Path
from typing import Any

import attrs
import pytest
import tomli_w
from hypothesis import assume, given
from hypothesis import strategies as st

import cambio
from cambio import Problem, Round, RuleSet, RuleSetError, check_rules, load_ruleset
from cambio.loading import (
    ruleset_from_dict,
    ruleset_from_toml,
    ruleset_to_dict,
    ruleset_to_toml,
)
from cambio.rules import MAX_CARDS, DeckRules, ScoringRules
from strategies import rulesets


def problems_of(text: str, source: str = "t.toml") -> list[Problem]:
    with pytest.raises(RuleSetError) as info:
        ruleset_from_toml(text, source)
    return list(info.value.problems)


def paths_of(text: str) -> dict[str, str]:
    return {p.path: p.message for p in problems_of(text)}


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------- basics


def test_empty_table_is_the_default_ruleset() -> None:
    assert ruleset_from_toml("") == RuleSet()


def test_a_few_keys_override_the_defaults() -> None:
    rules = ruleset_from_toml('name = "x"\n[call]\npenalty = 10\n[grid]\nrows = [3, 2]\n')
    assert rules.name == "x"
    assert rules.call.penalty == 10
    assert rules.grid.rows == (3, 2)
    assert rules.grid.size == 5
    assert rules.snap == RuleSet().snap


def test_arrays_become_tuples_and_tables_of_steps_become_records() -> None:
    rules = ruleset_from_toml(
        """
        [[powers.table]]
        ranks = ["K"]
        colour = "black"
        name = "peek, then swap"
        steps = [{ action = "peek", scope = "any" },
                 { action = "swap", scope = "own-other", optional = true }]
        """
    )
    (power,) = rules.powers.table
    assert power.ranks == ("K",)
    assert power.colour == "black"
    assert [(s.action, s.scope, s.optional) for s in power.steps] == [
        ("peek", "any", False),
        ("swap", "own-other", True),
    ]
    assert power.matches(cambio.Card("K", "S"))
    assert not power.matches(cambio.Card("K", "H"))


def test_optional_combination_table() -> None:
    assert ruleset_from_toml("").scoring.combination is None
    rules = ruleset_from_toml('[scoring.combination]\nranks = ["Q", "Q", "K", "K"]\nholder = 0\n')
    combo = rules.scoring.combination
    assert combo is not None
    assert combo.ranks == ("Q", "Q", "K", "K")
    assert combo.others == 50


def test_error_is_a_value_error_with_one_line_per_problem() -> None:
    with pytest.raises(ValueError) as info:
        ruleset_from_toml("[players]\nmin = 0\nmax = -1\n", "x.toml")
    assert isinstance(info.value, RuleSetError)
    lines = str(info.value).splitlines()
    assert len(lines) == len(info.value.problems) >= 2
    assert all(line.startswith("x.toml: players.") for line in lines)


# --------------------------------------------------------------------------- strictness


@pytest.mark.parametrize(
    ("text", "path", "expected", "found"),
    [
        ('[players]\nmax = "6"', "players.max", "an integer", 'the string "6"'),
        ("[players]\nmax = 6.0", "players.max", "an integer", "the float 6.0"),
        ("[players]\nmax = true", "players.max", "an integer", "the boolean true"),
        ("[players]\nmax = [6]", "players.max", "an integer", "an array of 1 item"),
        ("[players]\nmax = 2026-01-01", "players.max", "an integer", "the date/time 2026-01-01"),
        ("[turn]\ntake_discard = 1", "turn.take_discard", "a boolean", "the integer 1"),
        ('[turn]\ntake_discard = "yes"', "turn.take_discard", "a boolean", 'the string "yes"'),
        ("name = 7", "name", "a string", "the integer 7"),
        ("summary = false", "summary", "a string", "the boolean false"),
        ("[values]\nrank = { K = 1.5 }", "values.rank.K", "an integer", "the float 1.5"),
        ("[values]\nred = { K = true }", "values.red.K", "an integer", "the boolean true"),
        ("[values]\nrank = [1, 2]", "values.rank", "a table of integers", "an array"),
        ('[deck]\nranks = "A"', "deck.ranks", "an array", 'the string "A"'),
        ("[deck]\nranks = [1]", "deck.ranks[0]", "a string", "the integer 1"),
        ("[grid]\nrows = [2, 2.5]", "grid.rows[1]", "an integer", "the float 2.5"),
        ("[deck]\ncustom = { 0 = true }", "deck.custom.0", "an integer", "the boolean true"),
        ('[snap]\nwhen = "sometimes"', "snap.when", '"any-time"', 'the string "sometimes"'),
        ("[snap]\nwhen = 1", "snap.when", '"never"', "the integer 1"),
        ('[stock]\non_empty = "END"', "stock.on_empty", '"recycle"', 'the string "END"'),
        ('[scoring]\ntie_break = ["coin"]', "scoring.tie_break[0]", '"share"', 'the string "coin"'),
        ("[scoring]\ncombination = 5", "scoring.combination", "a table", "the integer 5"),
        ("players = 4", "players", "a table", "the integer 4"),
        (
            '[[powers.table]]\nranks = ["7"]\nsteps = [{ action = "look", scope = "own" }]',
            "powers.table[0].steps[0].action",
            '"peek", "swap"',
            'the string "look"',
        ),
        (
            '[[powers.table]]\nranks = ["7"]\ncolour = "green"\nsteps = []',
            "powers.table[0].colour",
            '"red"',
            'the string "green"',
        ),
    ],
)
def test_no_silent_coercion(text: str, path: str, expected: str, found: str) -> None:
    problems = problems_of(text)
    assert [p.path for p in problems] == [path]
    message = problems[0].message
    assert message.startswith("expected ")
    assert expected in message
    assert f"found {found}" in message
    assert problems[0].source == "t.toml"


def test_unknown_keys_are_rejected_with_the_known_ones_listed() -> None:
    found = paths_of(
        'colour = "red"\n[players]\nmaximum = 4\n'
        '[[powers.table]]\nranks = ["7"]\nsteps = [{ action = "peek", scope = "own", who = 1 }]\n'
    )
    assert set(found) == {"colour", "players.maximum", "powers.table[0].steps[0].who"}
    assert "min, max, default" in found["players.maximum"]
    assert "action, scope, optional, seen" in found["powers.table[0].steps[0].who"]
    assert all(m.startswith("unknown key") for m in found.values())


def test_missing_required_keys_are_named() -> None:
    found = paths_of('[[powers.table]]\nranks = ["7"]\nsteps = [{ scope = "own" }]\n')
    assert found == {"powers.table[0].steps[0].action": "missing required key"}
    found = paths_of('[[powers.table]]\nranks = ["7"]\n')
    assert found == {"powers.table[0].steps": "missing required key"}


def test_three_mistakes_in_one_file_are_all_reported() -> None:
    text = """
    [values.rank]
    K = "thirteen"

    [[powers.table]]
    ranks = ["K"]
    steps = [{ action = "peek", scope = "own" }]

    [[powers.table]]
    ranks = ["Q"]
    steps = [{ action = "peek", scope = "own" }, { action = "swap", scope = 3 }]

    [[powers.table]]
    ranks = ["J"]
    steps = [{ action = "swap", scope = "own-other" }]

    [match]
    end = "forever"
    """
    problems = problems_of(text, "three.toml")
    assert [(p.path, p.source) for p in problems] == [
        ("values.rank.K", "three.toml"),
        ("powers.table[1].steps[1].scope", "three.toml"),
        ("match.end", "three.toml"),
    ]
    assert 'found the string "thirteen"' in problems[0].message
    assert "found the integer 3" in problems[1].message
    assert '"elimination"' in problems[2].message


def test_structural_and_semantic_problems_are_reported_together() -> None:
    found = paths_of('[players]\nmax = "6"\n[opening]\ncount = 3\n[snap]\npenalty_cards = -1\n')
    assert set(found) == {"players.max", "opening.count", "snap.penalty_cards"}
    assert "at most 2" in found["opening.count"]


def test_semantic_problems_that_read_a_broken_value_are_held_back() -> None:
    # players.max is broken, so the deal check (which reads players.max) would only
    # guess; a problem in an unrelated section is still reported.
    found = paths_of(
        '[players]\nmax = "sixty"\n[deck]\nranks = ["A"]\n[[powers.table]]\nranks = ["A"]\n'
        'steps = [{ action = "swap", scope = "peeked-own" }]\n'
    )
    assert "players.max" in found
    assert "deck" not in found
    assert found["powers.table[0].steps[0].scope"] == "peeked-own needs a peek step before it"


def test_an_unknown_key_does_not_hide_semantic_problems() -> None:
    found = paths_of("[players]\nmaxx = 9\nmin = 3\nmax = 2\n")
    assert set(found) == {"players.maxx", "players.max", "players.default"}


# --------------------------------------------------------------------------- semantic checks


def _rank_entry(kind: str, rank: str) -> dict[str, Any]:
    """One entry of ``kind`` that names ``rank``, as a (partial) table."""
    peek = {"action": "peek", "scope": "own"}
    return {
        "value": {"values": {"rank": {rank: 4}}},
        "colour override": {"values": {"red": {rank: -1}}},
        "power": {"powers": {"table": [{"ranks": [rank], "steps": [peek]}]}},
        "combination": {"scoring": {"combination": {"ranks": [rank], "others": 5}}},
    }[kind]


ABSENT: dict[str, tuple[str, dict[str, Any]]] = {
    "left out of deck.ranks": ("Q", {"deck": {"ranks": ["A", "2", "3", "4", "5", "6", "7"]}}),
    "a custom count of 0": (
        "X",
        {
            "deck": {"custom": {"1": 30, "X": 0}},
            "values": {"rank": {"1": 1}},
            "powers": {"table": []},
        },
    ),
    "jokers = 0": ("Joker", {"deck": {"jokers": 0}}),
}
"""Decks that hold no card of a rank they know (a custom count of 0 included), and the rank."""

RANK_ENTRIES = ("value", "colour override", "power", "combination")


@pytest.mark.parametrize("deck", sorted(ABSENT))
@pytest.mark.parametrize("kind", RANK_ENTRIES)
def test_an_entry_for_a_rank_the_deck_does_not_hold_is_unused(deck: str, kind: str) -> None:
    """Every kind of entry on every kind of absent rank is judged alike: accepted, unused."""
    rank, table = ABSENT[deck]
    entry = _rank_entry(kind, rank)
    for section, body in entry.items():
        for key, value in body.items():
            old = table.setdefault(section, {}).get(key)
            merged = {**old, **value} if isinstance(old, dict) else value
            table = {**table, section: {**table[section], key: merged}}
    rules = ruleset_from_toml(tomli_w.dumps({"extends": "practice", **table}))
    assert rank not in rules.deck.rank_names()
    assert all(card.rank != rank for card in Round(rules, 2, seed=3).deck)


@pytest.mark.parametrize("kind", RANK_ENTRIES[1:])
def test_an_entry_for_no_rank_at_all_is_refused(kind: str) -> None:
    """A name the deck does not hold and values.rank does not know is a typo."""
    found = paths_of(tomli_w.dumps(_rank_entry(kind, "q")))
    assert len(found) == 1
    (message,) = found.values()
    assert message == "no such rank 'q': not a rank of this deck and not in values.rank"


def test_an_inherited_entry_that_no_longer_fits_names_the_childs_file(tmp_path: Path) -> None:
    """The child's deck makes the parent's red king impossible: the child is named."""
    child = write(
        tmp_path,
        "child.toml",
        'extends = "practice"\n[deck]\ncustom = { K = 8, "0" = 40 }\n[values.rank]\n"0" = 0\n',
    )
    with pytest.raises(RuleSetError) as info:
        load_ruleset(child)
    found = {p.path: p for p in info.value.problems}
    assert set(found) == {"values.red.K", "powers.table[3].ranks[0]"}
    for problem in found.values():
        assert problem.source == str(child)
        assert "inherited from" in problem.message and "practice.toml" in problem.message


def test_opening_peeks_more_than_positions() -> None:
    found = paths_of("[opening]\npositions = [3]\ncount = 2\n")
    assert found == {"opening.count": "expected at most 1 (the number of opening.positions), got 2"}


def test_opening_position_outside_the_grid() -> None:
    found = paths_of("[grid]\nrows = [1, 1]\n[opening]\npositions = [1, 3]\ncount = 1\n")
    assert set(found) == {"opening.positions[1]"}


def test_deck_too_small_for_players_times_grid() -> None:
    found = paths_of('[deck]\nranks = ["A", "2", "3"]\n[values]\nred = {}\n[powers]\ntable = []\n')
    assert set(found) == {"deck"}
    assert "12 cards cannot deal 6 players" in found["deck"]
    assert "25 needed" in found["deck"]


def test_an_empty_deck_is_a_problem() -> None:
    found = paths_of("[deck]\nranks = []\n[values]\nred = {}\n")
    assert "deck" in found
    assert "0 cards" in found["deck"]


def test_negative_counts() -> None:
    found = paths_of(
        "[deck]\njokers = -2\n[grid]\nextra = -1\n[snap]\npenalty_cards = -3\n"
        "[call]\nfinal_turns = -1\nearliest = -5\n[turn]\nmax_turns = -1\n"
    )
    assert set(found) == {
        "deck.jokers",
        "grid.extra",
        "snap.penalty_cards",
        "call.final_turns",
        "call.earliest",
        "turn.max_turns",
    }
    assert all("0 or more" in message for message in found.values())


def test_unknown_tie_break_step() -> None:
    # From TOML the Literal rejects it while structuring...
    found = paths_of('[scoring]\ntie_break = ["caller", "dice"]\n')
    assert set(found) == {"scoring.tie_break[1]"}
    # ...and check_rules catches it in a RuleSet built in Python.
    bad = RuleSet(scoring=ScoringRules(tie_break=("caller", "dice")))  # type: ignore[arg-type]
    assert [path for path, _ in check_rules(bad)] == ["scoring.tie_break[1]"]


def test_absurd_numbers_are_rule_problems_not_memory_errors() -> None:
    found = paths_of("[deck]\ndecks = 1000000000000\n")
    assert found == {"deck": f"expected at most {MAX_CARDS} cards in all, got 52000000000000"}
    found = paths_of(f"[deck]\ncustom = {{ X = {10**15} }}\n[values.rank]\nX = 1\n")
    assert "deck" in found
    rules = RuleSet(deck=DeckRules(jokers=10**15))
    assert any(path == "deck" for path, _ in check_rules(rules))


def test_coloured_power_on_a_suitless_rank() -> None:
    found = paths_of(
        '[deck]\njokers = 2\n[[powers.table]]\nranks = ["Joker"]\ncolour = "red"\n'
        'steps = [{ action = "peek", scope = "own" }]\n'
    )
    assert set(found) == {"powers.table[0].ranks[0]"}
    assert "no suit" in found["powers.table[0].ranks[0]"]


# --------------------------------------------------------------------------- unreadable input


def test_toml_syntax_error_has_line_and_column() -> None:
    problems = problems_of('name = "x"\n[players]\nmax = = 4\n')
    assert len(problems) == 1
    assert problems[0].path == ""
    assert "line 3" in problems[0].message
    assert "column" in problems[0].message
    assert problems[0].message.startswith("invalid TOML")


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.toml"
    with pytest.raises(RuleSetError) as info:
        load_ruleset(path)
    assert info.value.problems == (Problem(str(path), "", "no such file"),)


def test_directory(tmp_path: Path) -> None:
    folder = tmp_path / "dir.toml"
    folder.mkdir()
    with pytest.raises(RuleSetError) as info:
        load_ruleset(folder)
    (problem,) = info.value.problems
    assert "directory" in problem.message


def test_binary_garbage(tmp_path: Path) -> None:
    path = tmp_path / "garbage.toml"
    path.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(RuleSetError) as info:
        load_ruleset(path)
    (problem,) = info.value.problems
    assert problem.source == str(path)
    assert "binary" in problem.message


def test_non_utf8_text(tmp_path: Path) -> None:
    path = tmp_path / "latin1.toml"
    path.write_bytes('name = "caf\u00e9"\n'.encode("latin-1"))
    with pytest.raises(RuleSetError) as info:
        load_ruleset(path)
    (problem,) = info.value.problems
    assert "not UTF-8" in problem.message
    assert "0xe9" in problem.message
    assert "line 1" in problem.message


def test_unreadable_file(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        # root reads anything: make an unreadable path another way (a dangling
        # symlink into a missing folder reads as missing, a FIFO would block)
        path = tmp_path / "loop.toml"
        path.symlink_to(path)
    else:  # pragma: no cover - the CI and dev machines run as root
        path = tmp_path / "locked.toml"
        path.write_text("")
        path.chmod(0)
    with pytest.raises(RuleSetError) as info:
        load_ruleset(path)
    (problem,) = info.value.problems
    assert problem.source == str(path)
    assert problem.message.startswith("cannot read the file: ")


def test_utf8_bom_is_accepted() -> None:
    assert ruleset_from_toml('\ufeffname = "bom"').name == "bom"


def test_huge_integer_literal_and_deep_nesting() -> None:
    problems = problems_of("[players]\nmax = " + "9" * 5000 + "\n")
    assert len(problems) == 1
    problems = problems_of("x = " + "[" * 100_000 + "]" * 100_000 + "\n")
    assert len(problems) == 1


def test_unknown_profile_name_lists_the_available_ones() -> None:
    with pytest.raises(RuleSetError) as info:
        load_ruleset("pratice")
    (problem,) = info.value.problems
    assert "unknown profile" in problem.message
    for name in cambio.available_variants():
        assert name in problem.message


def test_not_a_mapping_for_from_dict() -> None:
    with pytest.raises(RuleSetError):
        ruleset_from_dict([1, 2])  # type: ignore[arg-type]


# --------------------------------------------------------------------------- paths and names


def test_load_by_path_str_and_pathlike(tmp_path: Path) -> None:
    path = write(tmp_path, "house rules.toml", "[call]\npenalty = 3\n")
    by_path = load_ruleset(path)
    by_str = load_ruleset(str(path))
    assert by_path == by_str
    assert by_path.name == "house rules"  # the file stem when the file sets no name
    assert by_path.call.penalty == 3
    named = write(tmp_path, "named.toml", 'name = "Friday"\n')
    assert load_ruleset(named).name == "Friday"


def test_relative_path_with_a_separator_is_a_path(tmp_path: Path, monkeypatch: Any) -> None:
    write(tmp_path, "sub/mine.toml", "[call]\npenalty = 4\n")
    monkeypatch.chdir(tmp_path)
    assert load_ruleset("sub/mine.toml").call.penalty == 4
    assert load_ruleset("sub/mine.toml").name == "mine"


# --------------------------------------------------------------------------- extends


def test_extends_deep_merges_tables_and_replaces_arrays(tmp_path: Path) -> None:
    write(
        tmp_path,
        "base.toml",
        'name = "base"\nsummary = "the base"\n[values.rank]\nA = 1\n2 = 2\n3 = 3\n4 = 4\n'
        '5 = 5\n6 = 6\n7 = 7\n8 = 8\n9 = 9\n10 = 10\nJ = 11\nQ = 12\nK = 13\n'
        '[grid]\nrows = [2, 2]\nextra = 2\n[call]\npenalty = 10\nbonus = -5\n',
    )  # fmt: skip
    child = write(
        tmp_path,
        "child.toml",
        'extends = "base.toml"\n[values.rank]\nK = 0\n[grid]\nrows = [2, 3]\n[call]\nbonus = 0\n',
    )
    rules = load_ruleset(child)
    assert rules.values.rank["K"] == 0  # the child's value
    assert rules.values.rank["Q"] == 12  # the parent's, kept: tables merge key by key
    assert "Joker" not in rules.values.rank  # the parent's table replaced the default
    assert rules.grid.rows == (2, 3)  # arrays replace whole
    assert rules.grid.extra == 2  # a sibling key of the parent survives
    assert rules.call.penalty == 10
    assert rules.call.bonus == 0
    assert rules.name == "child"  # not the parent's name
    assert rules.summary == "base with changes to: call.bonus, grid.rows, values.rank.K"


def test_extends_a_bundled_profile_and_a_chain(tmp_path: Path) -> None:
    write(tmp_path, "a.toml", 'extends = "penalty"\nsummary = "a"\n[call]\npenalty = 7\n')
    write(tmp_path, "b.toml", 'extends = "a.toml"\nsummary = "b"\n[opening]\ncount = 1\n')
    rules = load_ruleset(tmp_path / "b.toml")
    penalty = load_ruleset("penalty")
    assert rules.call.penalty == 7
    assert rules.opening.count == 1
    assert rules.snap == penalty.snap
    assert rules.scoring == penalty.scoring
    assert (rules.name, rules.summary) == ("b", "b")


def test_extends_from_text_uses_base_folder(tmp_path: Path) -> None:
    write(tmp_path, "p.toml", "[call]\npenalty = 9\n")
    rules = ruleset_from_toml('extends = "p.toml"\n', base=tmp_path)
    assert rules.call.penalty == 9
    assert rules.name == "custom"


def test_extends_itself_is_a_cycle(tmp_path: Path) -> None:
    path = write(tmp_path, "me.toml", 'extends = "me.toml"\n')
    with pytest.raises(RuleSetError) as info:
        load_ruleset(path)
    (problem,) = info.value.problems
    assert problem.path == "extends"
    assert "cycle" in problem.message
    assert problem.message.count("me.toml") == 2


def test_two_files_extending_each_other_is_a_cycle(tmp_path: Path) -> None:
    write(tmp_path, "a.toml", 'extends = "b.toml"\n')
    write(tmp_path, "b.toml", 'extends = "./a.toml"\n')
    with pytest.raises(RuleSetError) as info:
        load_ruleset(tmp_path / "a.toml")
    (problem,) = info.value.problems
    assert "cycle" in problem.message
    chain = problem.message.split(": ", 1)[1].split(" -> ")
    assert [Path(p).name for p in chain] == ["a.toml", "b.toml", "a.toml"]


def test_unknown_parent_name(tmp_path: Path) -> None:
    path = write(tmp_path, "x.toml", 'extends = "elimnation"\n')
    with pytest.raises(RuleSetError) as info:
        load_ruleset(path)
    (problem,) = info.value.problems
    assert (problem.source, problem.path) == (str(path), "extends")
    assert '"elimnation"' in problem.message
    assert "elimination" in problem.message


def test_missing_parent_file(tmp_path: Path) -> None:
    path = write(tmp_path, "x.toml", 'extends = "gone.toml"\n')
    with pytest.raises(RuleSetError) as info:
        load_ruleset(path)
    (problem,) = info.value.problems
    assert problem.path == "extends"
    assert "does not exist" in problem.message


def test_extends_must_be_a_string(tmp_path: Path) -> None:
    problems = problems_of("extends = 3\n")
    assert [(p.path, "found the integer 3" in p.message) for p in problems] == [("extends", True)]


def test_problems_name_the_file_that_set_the_key(tmp_path: Path) -> None:
    write(tmp_path, "parent.toml", '[players]\nmax = "many"\n')
    child = write(tmp_path, "child.toml", 'extends = "parent.toml"\n[snap]\nwhen = "often"\n')
    with pytest.raises(RuleSetError) as info:
        load_ruleset(child)
    sources = {p.path: Path(p.source).name for p in info.value.problems}
    assert sources == {"players.max": "parent.toml", "snap.when": "child.toml"}


def test_a_broken_parent_reports_its_own_problems(tmp_path: Path) -> None:
    write(tmp_path, "parent.toml", "[players\n")
    child = write(tmp_path, "child.toml", 'extends = "parent.toml"\n')
    with pytest.raises(RuleSetError) as info:
        load_ruleset(child)
    (problem,) = info.value.problems
    assert Path(problem.source).name == "parent.toml"
    assert "line 1" in problem.message


# --------------------------------------------------------------------------- round trips


def test_round_trip_keeps_a_missing_combination_missing() -> None:
    text = ruleset_to_toml(RuleSet())
    assert "combination" not in text
    assert "extends" not in text
    assert ruleset_from_toml(text) == RuleSet()


def test_dict_form_is_json_compatible() -> None:
    rules = load_ruleset("penalty")
    data = ruleset_to_dict(rules)
    assert json.loads(json.dumps(data)) == data
    assert ruleset_from_dict(json.loads(json.dumps(data))) == rules


@given(rulesets())
def test_generated_rulesets_are_valid(rules: RuleSet) -> None:
    assert check_rules(rules) == []


@given(rulesets())
def test_round_trip_of_generated_rulesets(rules: RuleSet) -> None:
    text = ruleset_to_toml(rules)
    assert ruleset_from_toml(text) == rules
    assert ruleset_to_toml(ruleset_from_toml(text)) == text
    data = json.loads(json.dumps(ruleset_to_dict(rules)))
    assert ruleset_from_dict(data) == rules


# --------------------------------------------------------------------------- broken input


def _leaves(node: Any, at: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    if isinstance(node, dict):
        return [leaf for key, sub in node.items() for leaf in _leaves(sub, (*at, key))]
    if isinstance(node, list):
        return [leaf for i, sub in enumerate(node) for leaf in _leaves(sub, (*at, i))]
    return [(at, node)]


def _set(node: Any, at: tuple[Any, ...], value: Any) -> None:
    for key in at[:-1]:
        node = node[key]
    node[at[-1]] = value


_OTHER_KINDS: dict[type, st.SearchStrategy[Any]] = {
    bool: st.one_of(st.integers(), st.text(max_size=5), st.floats(allow_nan=False)),
    int: st.one_of(st.booleans(), st.text(max_size=5), st.floats(allow_nan=False)),
    str: st.one_of(st.booleans(), st.integers(), st.lists(st.integers(), max_size=2)),
}


_TOML_VALUES = st.recursive(
    st.one_of(st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=6)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=12,
)


def dotted(at: tuple[Any, ...]) -> str:
    out = ""
    for key in at:
        if isinstance(key, int):
            out += f"[{key}]"
        else:
            text = (
                key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key, ensure_ascii=False)
            )
            out += ("." if out else "") + text
    return out


def _record_tables(node: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Paths of the tables that are records (fixed keys), not free-form rank tables."""
    found: list[tuple[Any, ...]] = []
    if isinstance(node, dict):
        free = len(at) == 2 and at[0] in ("values", "deck") and at[1] in _FREE_FORM
        free = free or at == ("scoring", "placement")  # keyed by player count
        if not free:
            found.append(at)
        for key, sub in node.items():
            found += _record_tables(sub, (*at, key))
    elif isinstance(node, list):
        for i, sub in enumerate(node):
            found += _record_tables(sub, (*at, i))
    return found


_FREE_FORM = ("rank", "red", "black", "custom")


@given(rulesets(), st.data())
def test_a_wrong_type_anywhere_is_reported_at_its_path(rules: RuleSet, data: st.DataObject) -> None:
    table = ruleset_to_dict(rules)
    at, old = data.draw(st.sampled_from(_leaves(table)))
    _set(table, at, data.draw(_OTHER_KINDS[type(old)]))
    with pytest.raises(RuleSetError) as info:
        ruleset_from_toml(tomli_w.dumps(table), "m.toml")
    wrong = [p for p in info.value.problems if p.path == dotted(at)]
    assert len(wrong) == 1, (dotted(at), info.value.problems)
    assert wrong[0].message.startswith("expected ")
    assert "found" in wrong[0].message
    assert wrong[0].source == "m.toml"


@given(rulesets(), st.data())
def test_an_unknown_key_anywhere_is_reported(rules: RuleSet, data: st.DataObject) -> None:
    table = ruleset_to_dict(rules)
    at = data.draw(st.sampled_from(_record_tables(table)))
    node: Any = table
    for key in at:
        node = node[key]
    bogus = data.draw(st.text(string.ascii_lowercase, min_size=12, max_size=14))
    node[bogus] = data.draw(_TOML_VALUES)
    with pytest.raises(RuleSetError) as info:
        ruleset_from_toml(tomli_w.dumps(table))
    assert len(info.value.problems) == 1, info.value.problems
    (problem,) = info.value.problems
    assert problem.path == dotted((*at, bogus))
    assert problem.message.startswith("unknown key; expected one of: ")


_COUNTS = [
    ("players", "min"),
    ("deck", "decks"),
    ("deck", "jokers"),
    ("grid", "extra"),
    ("opening", "count"),
    ("turn", "max_turns"),
    ("snap", "penalty_cards"),
    ("call", "earliest"),
    ("call", "final_turns"),
    ("teams", "size"),
]


@given(rulesets(), st.sampled_from(_COUNTS), st.integers(max_value=-1))
def test_out_of_range_counts_are_reported(
    rules: RuleSet, where: tuple[str, str], value: int
) -> None:
    table = ruleset_to_dict(rules)
    table[where[0]][where[1]] = value
    with pytest.raises(RuleSetError) as info:
        ruleset_from_toml(tomli_w.dumps(table))
    assert ".".join(where) in [p.path for p in info.value.problems]


@given(rulesets(), st.integers(min_value=MAX_CARDS + 1, max_value=2**63 - 1))
def test_huge_decks_are_reported(rules: RuleSet, cards: int) -> None:
    table = ruleset_to_dict(rules)
    table["deck"]["decks"] = cards
    with pytest.raises(RuleSetError) as info:
        ruleset_from_toml(tomli_w.dumps(table))
    assert any(p.path == "deck" for p in info.value.problems)


@given(rulesets(), st.data())
def test_truncated_files_never_raise_anything_else(rules: RuleSet, data: st.DataObject) -> None:
    text = ruleset_to_toml(rules)
    cut = data.draw(st.integers(0, len(text)))
    try:
        result = ruleset_from_toml(text[:cut])
    except RuleSetError as exc:
        assert exc.problems
    else:
        assert check_rules(result) == []


@given(st.binary(max_size=300))
def test_random_bytes_never_raise_anything_else(raw: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "random.toml"
        path.write_bytes(raw)
        try:
            result = load_ruleset(path)
        except RuleSetError as exc:
            assert exc.problems
            assert all(p.source for p in exc.problems)
        else:
            assert check_rules(result) == []


@given(st.text(alphabet=string.printable + "[]{}=\"'#.-", max_size=200))
def test_random_text_never_raises_anything_else(text: str) -> None:
    try:
        ruleset_from_toml(text)
    except RuleSetError as exc:
        assert exc.problems


@given(st.dictionaries(st.sampled_from([f.name for f in attrs.fields(RuleSet)]), _TOML_VALUES))
def test_random_tables_never_raise_anything_else(table: dict[str, Any]) -> None:
    assume(table)
    try:
        ruleset_from_dict(table)
    except RuleSetError as exc:
        assert exc.problems
        assert all(isinstance(p.path, str) for p in exc.problems)


def test_a_syntax_error_at_the_end_of_the_file_still_names_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "cut.toml"
    path.write_text("[players]\nmax = [1,\n", encoding="utf-8")
    with pytest.raises(RuleSetError) as err:
        load_ruleset(path)
    assert "line 3, column 1" in str(err.value)


# --------------------------------------------------------------------------- extends confinement

SECRET = "TOP_SECRET_VALUE_1234"
"""Content of a file outside the allowed folders: no error may quote it."""


def _outside_file(tmp_path: Path) -> Path:
    """A readable TOML file outside the folder ``tmp_path / "tables"``: a record that
    would pass the loader, so only confinement can refuse it."""
    secret = write(
        tmp_path, "private/secret.toml", f'name = "{SECRET}"\n[players]\nmax = "{SECRET}"\n'
    )
    (tmp_path / "tables").mkdir()
    return secret


def _refused(child: Path, **kwargs: Any) -> Problem:
    with pytest.raises(RuleSetError) as info:
        load_ruleset(child, **kwargs)
    (problem,) = info.value.problems
    assert SECRET not in str(info.value)
    assert (problem.source, problem.path) == (str(child), "extends")
    assert "outside" in problem.message
    return problem


def test_extends_an_absolute_path_outside_the_folder_is_refused(tmp_path: Path) -> None:
    secret = _outside_file(tmp_path)
    child = write(tmp_path, "tables/child.toml", f'extends = "{secret}"\n')
    _refused(child)


def test_extends_a_dotdot_escape_is_refused(tmp_path: Path) -> None:
    _outside_file(tmp_path)
    child = write(tmp_path, "tables/child.toml", 'extends = "../private/secret.toml"\n')
    _refused(child)
    # a path that leaves and comes back in stays inside: allowed
    write(tmp_path, "tables/base.toml", 'extends = "snap"\n')
    ok = write(tmp_path, "tables/ok.toml", 'extends = "../tables/base.toml"\n')
    assert load_ruleset(ok).snap == load_ruleset("snap").snap


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links here")
def test_extends_a_symlink_escape_is_refused(tmp_path: Path) -> None:
    secret = _outside_file(tmp_path)
    link = tmp_path / "tables" / "link.toml"
    folder_link = tmp_path / "tables" / "elsewhere"
    try:
        link.symlink_to(secret)
        folder_link.symlink_to(secret.parent, target_is_directory=True)
    except OSError:  # pragma: no cover - links not permitted
        pytest.skip("cannot create symbolic links")
    for spec in ("link.toml", "elsewhere/secret.toml"):
        child = write(tmp_path, "tables/child.toml", f'extends = "{spec}"\n')
        _refused(child)


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="no /proc here")
@pytest.mark.parametrize("spec", ["/proc/self/environ", "../../../../../../proc/self/environ"])
def test_extends_proc_self_environ_is_refused(tmp_path: Path, spec: str) -> None:
    (tmp_path / "tables").mkdir()
    child = write(tmp_path, "tables/child.toml", f'extends = "{spec}"\n')
    problem = _refused(child)
    environ = Path("/proc/self/environ").read_bytes().split(b"\0")
    for entry in environ:
        value = entry.partition(b"=")[2].decode("utf-8", "replace")
        assert len(value) < 6 or value not in problem.message


def test_extends_text_without_a_folder_reaches_no_file(tmp_path: Path) -> None:
    write(tmp_path, "base.toml", 'extends = "snap"\n')
    for spec in ("base.toml", str(tmp_path / "base.toml")):
        with pytest.raises(RuleSetError) as info:
            ruleset_from_toml(f'extends = "{spec}"\n')
        (problem,) = info.value.problems
        assert problem.path == "extends" and "outside" in problem.message
    assert ruleset_from_toml('extends = "base.toml"\n', base=tmp_path).snap.when != "never"
    assert ruleset_from_toml('extends = "base.toml"\n', search_path=[tmp_path]).name == "custom"


def test_extends_outside_the_folder_is_allowed_through_search_path(tmp_path: Path) -> None:
    secret = _outside_file(tmp_path)
    secret.write_text('extends = "penalty"\n[call]\npenalty = 9\n', encoding="utf-8")
    absolute = write(tmp_path, "tables/a.toml", f'extends = "{secret}"\n')
    dotdot = write(tmp_path, "tables/b.toml", 'extends = "../private/secret.toml"\n')
    by_name = write(tmp_path, "tables/c.toml", 'extends = "secret.toml"\n')
    for child in (absolute, dotdot):
        _refused(child)
    with pytest.raises(RuleSetError, match="does not exist"):
        load_ruleset(by_name)  # looked up in its own folder only
    for child in (absolute, dotdot, by_name):
        rules = load_ruleset(child, search_path=[secret.parent])
        assert rules.call.penalty == 9
        assert load_ruleset(child, search_path=str(secret.parent)).call.penalty == 9
    # allowing one folder allows nothing beside it
    other = write(tmp_path, "other/x.toml", 'extends = "snap"\n')
    child = write(tmp_path, "tables/d.toml", f'extends = "{other}"\n')
    _refused(child, search_path=[secret.parent])


def test_a_parent_inside_the_folder_is_confined_to_its_own_folder(tmp_path: Path) -> None:
    """Each file's extends is judged from its own folder: sub/p.toml may not climb out."""
    _outside_file(tmp_path)
    write(tmp_path, "tables/sub/p.toml", 'extends = "../../private/secret.toml"\n')
    child = write(tmp_path, "tables/child.toml", 'extends = "sub/p.toml"\n')
    with pytest.raises(RuleSetError) as info:
        load_ruleset(child)
    (problem,) = info.value.problems
    assert SECRET not in str(info.value)
    assert problem.source.endswith("p.toml") and "outside" in problem.message


def test_an_extends_chain_longer_than_the_limit_is_refused(tmp_path: Path) -> None:
    limit = cambio.loading.MAX_EXTENDS
    for i in range(limit + 1):
        write(tmp_path, f"t{i}.toml", f'extends = "t{i + 1}.toml"\n')
    write(tmp_path, f"t{limit + 1}.toml", 'extends = "practice"\n')
    with pytest.raises(RuleSetError) as info:
        load_ruleset(tmp_path / "t0.toml")
    (problem,) = info.value.problems
    assert (problem.source, problem.path) == (str(tmp_path / "t0.toml"), "extends")
    # exactly the limit of files above t0 (the last of them practice) is fine
    write(tmp_path, f"t{limit - 1}.toml", 'extends = "practice"\n')
    assert load_ruleset(tmp_path / "t0.toml").name == "t0"


@pytest.mark.parametrize(
    "spec", ["a" * 5000 + ".toml", "x/" * 3000 + "a.toml", "/", "a.toml/", "sub/../" * 9 + "b.toml"]
)
def test_extends_odd_paths_are_one_problem_each(tmp_path: Path, spec: str) -> None:
    child = write(tmp_path, "child.toml", f'extends = "{spec}"\n')
    with pytest.raises(RuleSetError) as info:
        load_ruleset(child)
    (problem,) = info.value.problems
    assert (problem.source, problem.path) == (str(child), "extends")
    assert len(problem.message) < 400
