"""Misspelt names: a rank, a rule key, a table, a bot or a command option.

A name that names nothing is refused with the dotted key path of the mistake (or the
option, or the table asked for) and the closest known name ("did you mean Joker?");
legitimate names, a derived deck's new ranks and inherited entries included, still load.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cambio.bots import make_bot
from cambio.cli import main
from cambio.errors import Problem, RuleSetError, did_you_mean
from cambio.loading import (
    available_variants,
    load_ruleset,
    ruleset_from_dict,
    ruleset_from_toml,
    ruleset_to_dict,
    ruleset_to_toml,
)


def problems_of(text: str) -> dict[str, Problem]:
    with pytest.raises(RuleSetError) as info:
        ruleset_from_toml(text)
    return {p.path: p for p in info.value.problems}


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------- the helper


def test_did_you_mean_names_the_close_candidates_only() -> None:
    assert did_you_mean("Jocker", ["A", "K", "Joker"]) == "did you mean Joker?"
    assert did_you_mean("zzz", ["A", "K", "Joker"]) == ""
    assert did_you_mean("Joker", ["Joker"]) == ""  # the word itself is no suggestion
    assert did_you_mean("--seet", ["--seed", "--seat"]) == "did you mean --seed or --seat?"
    assert did_you_mean("--sed", ["--seed", "--seat"]) == "did you mean --seed?"


# --------------------------------------------------------------------------- ranks


def test_a_misspelt_rank_in_a_derived_value_table_is_refused(tmp_path: Path) -> None:
    """The reported case: the child's entry would be added and the Joker keep its 0."""
    child = write(tmp_path, "house.toml", 'extends = "practice"\n[values.rank]\nJocker = -5\n')
    with pytest.raises(RuleSetError) as info:
        load_ruleset(child)
    (problem,) = info.value.problems
    assert problem.source == str(child)
    assert problem.path == "values.rank.Jocker"
    assert problem.message.startswith("no such rank 'Jocker': not a rank of this deck")
    assert problem.message.endswith("did you mean Joker?")


def test_cambio_validate_reports_the_misspelt_rank(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    child = write(tmp_path, "house.toml", 'extends = "practice"\n[values.rank]\nJocker = -5\n')
    assert main(["validate", str(child)]) == 1
    out = capsys.readouterr().out
    assert f"{child}: values.rank.Jocker: no such rank 'Jocker'" in out
    assert "did you mean Joker?" in out


@pytest.mark.parametrize(
    "text",
    [
        # a derived deck that adds jokers names them
        'extends = "practice"\n[deck]\njokers = 2\n[values.rank]\nJoker = -5\n',
        # a joker's value on a deck without jokers is unused, not a typo
        'extends = "practice"\n[values.rank]\nJoker = -5\n',
        # a custom deck's own ranks
        'extends = "practice"\n[deck]\ncustom = { "0" = 30, Star = 4 }\n'
        '[values]\nrank = { "0" = 0, Star = -3 }\nred = {}\n[powers]\ntable = []\n',
        # the child of a custom deck changes one value
        'extends = "cabo"\n[values.rank]\n13 = 20\n',
        # a child that drops the jokers keeps the value it inherits
        'extends = "jokers-minus-five"\n[deck]\njokers = 0\n[values.rank]\nJoker = 3\n',
    ],
)
def test_ranks_the_deck_can_hold_are_accepted(text: str) -> None:
    ruleset_from_toml(text)


def test_a_misspelt_rank_of_a_custom_deck_is_refused() -> None:
    found = problems_of('extends = "cabo"\n[values.rank]\n1O = 10\nJ = 11\n')
    assert set(found) == {"values.rank.1O", "values.rank.J"}
    assert "(a key of deck.custom)" in found["values.rank.1O"].message
    assert found["values.rank.1O"].message.endswith("did you mean 1?")


def test_inherited_entries_stay_valid_when_a_child_changes_the_deck(tmp_path: Path) -> None:
    """The parent's Joker was a rank of its deck; the child's custom deck has none."""
    write(tmp_path, "parent.toml", 'extends = "practice"\n[values.rank]\nJoker = -2\n')
    child = write(
        tmp_path,
        "child.toml",
        'extends = "parent.toml"\n[deck]\ncustom = { "1" = 40 }\n'
        '[values]\nrank = { "1" = 1 }\nred = {}\n[powers]\ntable = []\n',
    )
    rules = load_ruleset(child)
    assert rules.deck.rank_names() == ("1",)
    assert rules.values.rank["Joker"] == -2


def test_a_parents_misspelt_rank_is_reported_against_the_parent(tmp_path: Path) -> None:
    parent = write(tmp_path, "parent.toml", 'extends = "practice"\n[values.rank]\nKk = 0\n')
    child = write(tmp_path, "child.toml", 'extends = "parent.toml"\n[call]\npenalty = 5\n')
    with pytest.raises(RuleSetError) as info:
        load_ruleset(child)
    (problem,) = info.value.problems
    assert (problem.source, problem.path) == (str(parent), "values.rank.Kk")
    assert problem.message.endswith("did you mean K?")


def test_a_complete_table_still_reads_back_with_a_value_for_an_absent_rank() -> None:
    """A table that extends nothing lists all its values (a misspelt held rank leaves
    that rank without a value, which is refused); an extra name is unused, so a table
    written out whole reads back equal."""
    rules = load_ruleset("practice")
    data = ruleset_to_dict(rules)
    data["values"]["rank"]["Star"] = 3
    extra = ruleset_from_dict(data)
    assert ruleset_from_toml(ruleset_to_toml(extra)) == extra
    found = problems_of(ruleset_to_toml(rules).replace("K = 13", "Kk = 13"))
    assert set(found) == {"values.rank"}
    assert "'K' but it has no value" in found["values.rank"].message


@pytest.mark.parametrize(
    ("text", "path", "hint"),
    [
        ("[values.red]\nKk = 3\n", "values.red.Kk", "did you mean K?"),
        (
            '[[powers.table]]\nranks = ["Jocker"]\nsteps = [{ action = "peek", scope = "own" }]\n',
            "powers.table[0].ranks[0]",
            "did you mean Joker?",
        ),
        (
            '[scoring.combination]\nranks = ["Q", "Qu"]\n',
            "scoring.combination.ranks[1]",
            "did you mean Q?",
        ),
        (
            '[deck]\nranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "Kk"]\n',
            "deck.ranks[12]",
            "did you mean K?",
        ),
    ],
)
def test_every_section_naming_ranks_suggests_the_rank_meant(
    text: str, path: str, hint: str
) -> None:
    found = problems_of('extends = "practice"\n' + text)
    assert path in found, found
    assert found[path].message.endswith(hint)


def test_removing_a_misspelt_entry_suggests_the_entry_meant() -> None:
    found = problems_of(
        'extends = "penalty"\n[remove]\nvalues.red = ["Kk"]\npowers.table = ["Q "]\n'
        'deck.ranks = ["10 "]\nvalus = {}\n'
    )
    assert found["remove.values.red[0]"].message.endswith("did you mean K?")
    assert found["remove.powers.table[0]"].message.endswith("did you mean Q?")
    assert found["remove.deck.ranks[0]"].message.endswith("did you mean 10?")
    assert found["remove.valus"].message.endswith("did you mean values?")


def test_every_bundled_table_loads_and_reads_back() -> None:
    for name in available_variants():
        rules = load_ruleset(name)
        assert ruleset_from_toml(ruleset_to_toml(rules)) == rules, name


# --------------------------------------------------------------------------- keys


def test_a_misspelt_key_suggests_the_key_meant() -> None:
    found = problems_of('extends = "practice"\n[snap]\nwhne = "any-time"\n[cal]\npenalty = 1\n')
    assert found["snap.whne"].message.startswith("unknown key; expected one of: when, ")
    assert found["snap.whne"].message.endswith("did you mean when?")
    assert found["cal"].message.endswith("did you mean call?")


def test_an_unknown_key_far_from_every_key_gets_no_suggestion() -> None:
    found = problems_of("[snap]\nxyzzy = 1\n")
    assert "did you mean" not in found["snap.xyzzy"].message


# --------------------------------------------------------------------------- tables


def test_a_misspelt_table_name_suggests_the_table_meant(tmp_path: Path) -> None:
    with pytest.raises(RuleSetError) as info:
        load_ruleset("practise")
    assert str(info.value).startswith('practise: unknown profile "practise"; the profiles are:')
    assert str(info.value).endswith("did you mean practice?")
    child = write(tmp_path, "child.toml", 'extends = "penalti"\n')
    with pytest.raises(RuleSetError) as info:
        load_ruleset(child)
    (problem,) = info.value.problems
    assert (problem.source, problem.path) == (str(child), "extends")
    assert problem.message.endswith("did you mean penalty?")


def test_the_command_line_suggests_the_table_meant(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "practise"]) == 1
    assert "did you mean practice?" in capsys.readouterr().err


# --------------------------------------------------------------------------- bots


def test_a_misspelt_bot_name_suggests_the_bot_meant() -> None:
    with pytest.raises(ValueError, match=r"unknown bot 'memroy' .*; did you mean memory\?$"):
        make_bot("memroy")
    with pytest.raises(ValueError) as info:
        make_bot("robot")
    assert "did you mean" not in str(info.value)


# --------------------------------------------------------------------------- options


def test_a_misspelt_option_suggests_the_option_meant(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--seeed", "3"]) == 2
    err = capsys.readouterr().err
    assert "usage: cambio simulate" in err
    assert "unrecognized arguments: --seeed 3; did you mean --seed?" in err


def test_several_misspelt_options_each_get_a_suggestion(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["simulate", "--seeed=3", "--gmaes", "5"]) == 2
    err = capsys.readouterr().err
    assert "--seeed: did you mean --seed?; --gmaes: did you mean --games?" in err


def test_a_top_level_option_and_an_option_far_from_all(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--verison"]) == 2
    assert "did you mean --version?" in capsys.readouterr().err
    assert main(["validate", "practice", "--xyzzy"]) == 2
    err = capsys.readouterr().err
    assert "unrecognized arguments: --xyzzy" in err and "did you mean" not in err
