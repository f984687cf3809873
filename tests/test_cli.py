"""The ``cambio`` command: every subcommand, its output and its exit status."""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

import cambio
from cambio.cli import COMMANDS, build_parser, main
from cambio.loading import available_variants, load_ruleset, ruleset_to_toml
from cambio.rules import RuleSet

# Rich wraps its tables to the terminal width; make captured output wide enough that a
# row's words stay on one line.
WIDE = {"COLUMNS": "250"}


@pytest.fixture(autouse=True)
def _wide(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in WIDE.items():
        monkeypatch.setenv(key, value)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


# --------------------------------------------------------------------------- the parser


def test_no_subcommand_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys)
    assert status == 0
    assert out.startswith("usage: cambio")
    for name in ("variants", "validate", "rules", "diff"):
        assert name in out


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "--version")
    assert status == 0
    build = "compiled with mypyc" if cambio.compiled else "pure Python"
    assert out.strip() == f"cambio {cambio.__version__} ({build})"


def test_usage_mistakes_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "diff", "practice")
    assert status == 2
    assert "usage: cambio diff" in err and "required" in err
    status, _, err = run(capsys, "no-such-command")
    assert status == 2
    assert "invalid choice" in err
    status, _, err = run(capsys, "validate")
    assert status == 2


def _all_actions(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.Action]]:
    found: list[tuple[str, argparse.Action]] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                found += [(f"{name} {a.dest}", a) for a in child._actions]
        else:
            found.append((action.dest, action))
    return found


def test_every_command_and_option_has_help() -> None:
    parser = build_parser()
    for where, action in _all_actions(parser):
        assert action.help, f"{where} has no help text"
    for command in COMMANDS.values():
        assert command.help and command.description


def test_the_top_help_names_every_job(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "--help")
    assert status == 0
    top = " ".join(out.split("options:")[0].split())
    for job in ("list the profiles", "check rule files", "quick reference", "compare two"):
        assert job in top
    for job in ("play a match in the terminal", "simulate many games", "draw a written position"):
        assert job in top


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_command_help_has_an_example(capsys: pytest.CaptureFixture[str], name: str) -> None:
    status, out, _ = run(capsys, name, "--help")
    assert status == 0
    assert COMMANDS[name].example, f"cambio {name} has no example"
    tail = out.split("\nexample")[-1]
    assert out.count("\nexample") == 1 and tail.lstrip("s").startswith(":")
    for line in COMMANDS[name].example.splitlines():
        assert f"cambio {name}" in line
        assert f"  {line}" in tail


def test_the_registry_lists_the_commands_in_order() -> None:
    assert list(COMMANDS)[:4] == ["variants", "validate", "rules", "diff"]
    for name, command in COMMANDS.items():
        assert command.name == name
        assert callable(command.run) and callable(command.arguments)


# --------------------------------------------------------------------------- variants


def test_variants_lists_every_profile_with_its_summary(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "variants")
    assert status == 0, err
    names = available_variants()
    assert len(names) == 28
    for name in names:
        assert f" {name} " in out
        summary = load_ruleset(name).summary
        assert summary and summary in out
    assert "4 or 6" in out  # the teams table seats partnerships only


def test_python_m_cambio_variants() -> None:
    env = {**os.environ, **WIDE}
    proc = subprocess.run(
        [sys.executable, "-m", "cambio", "variants"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env={**env, "PYTHONIOENCODING": "utf-8"},
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "practice" in proc.stdout and "penalty" in proc.stdout
    assert "Traceback" not in proc.stderr


# --------------------------------------------------------------------------- rules


def test_rules_prints_the_quick_reference(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "rules", "practice")
    assert status == 0, err
    assert out.startswith("CAMBIO · PRACTICE")
    assert "K 13, red K −1" in out  # noqa: RUF001
    assert "[3*] [4*]" in out

    status, out, _ = run(capsys, "rules", "penalty")
    assert status == 0
    assert out.startswith("CAMBIO · PENALTY")
    assert "J/Q/K 10" in out
    assert "may never look at it" in " ".join(out.split())


def test_rules_reads_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "house.toml"
    path.write_text('extends = "practice"\nname = "house"\n[stock]\non_empty = "recycle"\n')
    status, out, err = run(capsys, "rules", str(path))
    assert status == 0, err
    assert out.startswith("CAMBIO · HOUSE")
    assert "shuffle the discard pile except its top card" in " ".join(out.split())


def test_rules_axes_lists_every_axis(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "rules", "--axes", "snap")
    assert status == 0
    for label in ("taking the discard", "power timing", "sticking", "caller penalty", "teams"):
        assert label in out


@pytest.mark.parametrize("command", ["rules", "diff"])
def test_unknown_profile_is_one_line_exit_1(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [command, "no-such-table"] + (["practice"] if command == "diff" else [])
    status, out, err = run(capsys, *argv)
    assert status == 1
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("no-such-table: ")
    assert "unknown profile" in lines[0]


def test_rules_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.toml"
    status, out, err = run(capsys, "rules", str(missing))
    assert status == 1 and out == ""
    assert err.splitlines() == [f"{missing}: no such file"]


# --------------------------------------------------------------------------- validate


def test_validate_ok(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.toml"
    good.write_text(ruleset_to_toml(RuleSet(name="good")))
    child = tmp_path / "child.toml"
    child.write_text('extends = "penalty"\nname = "child"\n[call]\npenalty = 5\n')
    status, out, err = run(capsys, "validate", str(good), str(child))
    assert status == 0, out + err
    assert out.splitlines() == [f"{good}: ok", f"{child}: ok"]


def test_validate_reports_every_mistake(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(
        'extends = "practice"\n'
        "[players]\n"
        'max = "six"\n'  # a string where an integer belongs
        "[turn]\n"
        "colour = 1\n"  # an unknown key
        "[opening]\n"
        "positions = [3, 9]\n"  # a position outside the grid (a semantic check)
    )
    status, out, err = run(capsys, "validate", str(bad))
    assert status == 1
    assert "Traceback" not in out + err
    lines = out.splitlines()
    assert len(lines) == 3, lines
    assert all(line.startswith(f"{bad}: ") for line in lines)
    paths = sorted(line.split(": ")[1] for line in lines)
    assert paths == ["opening.positions[1]", "players.max", "turn.colour"]
    text = "\n".join(lines)
    assert '"six"' in text and "9" in text


def test_validate_user_mistakes_are_one_line_each(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "missing.toml"
    folder = tmp_path / "folder"
    folder.mkdir()
    garbage = tmp_path / "garbage.toml"
    garbage.write_bytes(bytes(range(256)) * 4)
    syntax = tmp_path / "syntax.toml"
    syntax.write_text('name = "x"\n[players\nmax = 4\n')
    good = tmp_path / "good.toml"
    good.write_text('extends = "snap"\n')
    files = [missing, folder, garbage, syntax, good]

    status, out, err = run(capsys, "validate", *map(str, files))
    assert status == 1
    assert "Traceback" not in out + err
    lines = out.splitlines()
    assert len(lines) == len(files), lines
    for path, line in zip(files, lines, strict=True):
        assert line.startswith(f"{path}: ")
    assert "no such file" in lines[0]
    assert "directory" in lines[1]
    assert "binary" in lines[2] or "UTF-8" in lines[2]
    assert "TOML" in lines[3] and "line 2" in lines[3]
    assert lines[4] == f"{good}: ok"


def test_validate_quiet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.toml"
    good.write_text('extends = "practice"\n')
    status, out, _ = run(capsys, "validate", "--quiet", str(good))
    assert status == 0 and out == ""


def test_validate_every_bundled_profile_file(capsys: pytest.CaptureFixture[str]) -> None:
    root = Path(__file__).resolve().parents[1] / "variants"
    files = sorted(str(p) for p in root.glob("*.toml"))
    assert len(files) == 28
    status, out, _ = run(capsys, "validate", *files)
    assert status == 0, out
    assert out.splitlines() == [f"{f}: ok" for f in files]


# --------------------------------------------------------------------------- diff


def test_diff_practice_penalty(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "diff", "practice", "penalty")
    assert status == 0, err
    assert "practice vs penalty" in out
    rows = [line for line in out.splitlines() if line.startswith("│")]
    labels = {row.split("│")[1].strip() for row in rows}
    for label in (
        "values",
        "deck",
        "taking the discard",
        "power timing",
        "power: black K",
        "sticking",
        "caller penalty",
        "ties",
        "the stock's end",
    ):
        assert label in labels, label
    by_label = {row.split("│")[1].strip(): [c.strip() for c in row.split("│")[2:4]] for row in rows}
    assert by_label["taking the discard"] == [
        "allowed; the card must replace a grid card",
        "not allowed: draw from the stock only",
    ]
    assert by_label["sticking"][0] == "never"
    # the key axes on which both agree are marked, not shown as differences
    assert by_label["power timing"][1] == "same"
    assert by_label["caller penalty"] == ["none", "same"]


def test_diff_only_differences(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "diff", "--only", "penalty", "winners-bonus")
    assert status == 0
    rows = [line for line in out.splitlines() if line.startswith("│")]
    labels = [row.split("│")[1].strip() for row in rows]
    assert labels == ["winner scores 0"]
    assert "penalty vs winners-bonus: 1 axis differs" in out


def test_diff_all_shows_every_axis(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "diff", "--all", "penalty", "winners-bonus")
    assert status == 0
    assert "teams" in out and "re-peek" in out and "winner scores 0" in out


def test_diff_of_equal_tables_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "diff", "practice", "practice")
    assert status == 0
    assert out.strip() == "practice and practice play by the same rules."
    copy = tmp_path / "copy.toml"
    copy.write_text('extends = "snap"\nname = "my-snap"\nsummary = "mine"\n')
    status, out, _ = run(capsys, "diff", "snap", str(copy))
    assert status == 0
    assert out.strip() == "snap and my-snap play by the same rules."


def test_diff_bad_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[snap]\nwhen = 3\n")
    status, out, err = run(capsys, "diff", "practice", str(bad))
    assert status == 1 and out == ""
    assert err.splitlines() == [f"{bad}: snap.when: " + err.split("snap.when: ", 1)[1].strip()]


def test_diff_all_and_only_exclude_each_other(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "diff", "--all", "--only", "practice", "snap")
    assert status == 2
    assert "not allowed with argument" in err


def test_a_terminal_without_unicode_gets_ascii(monkeypatch: pytest.MonkeyPatch) -> None:
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="ascii", errors="strict")
    monkeypatch.setattr(sys, "stdout", stream)
    assert main(["rules", "practice"]) == 0
    stream.flush()
    text = raw.getvalue().decode("ascii")
    assert "A 1 | 2-10 face value | J 11 | Q 12 | K 13, red K -1." in text
    assert "CAMBIO | PRACTICE" in text


def test_module_doctests() -> None:
    import doctest

    from cambio import cli

    failures, tried = doctest.testmod(cli)
    assert tried >= 1
    assert failures == 0


# --------------------------------------------------------------------------- cambio show
POSITION = "AS,2S,3S@0,4S@0/5S,6S,7S@1,8S@1 - 9S 10S,... turn 0 0,0"


def test_show_draws_a_position(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "show", POSITION, "--variant", "practice")
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0] == "practice, 2 seats"
    assert lines[1].startswith("P0 * [1] AS@none") and "[3] 3S@0" in lines[2]
    assert "Discard: 9S (1 card)   Stock: 43 cards, next 10S" in out
    assert "Legal: P0 draw | P0 take | P0 call" in out
    # the fields may also come as separate arguments, or on standard input
    assert run(capsys, "show", *POSITION.split(" "), "--variant", "practice")[1] == out
    assert "--variant" in run(capsys, "show", "--help")[1]


def test_show_reads_standard_input(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(POSITION + "\n"))
    status, out, _ = run(capsys, "show", "-", "--variant", "practice")
    assert status == 0 and "Stock: 43 cards, next 10S" in out


@pytest.mark.parametrize(
    ("text", "column", "words"),
    [
        (POSITION.replace("turn 0", "turn 5"), 51, "expected the seat whose turn it is"),
        (POSITION.replace("9S", "AS"), 35, "AS is written a second time"),
        (POSITION.replace("7S@1", "7S@1#"), 23, "card 7S is marked a penalty card"),
    ],
)
def test_show_refuses_a_bad_position_with_its_column(
    capsys: pytest.CaptureFixture[str], text: str, column: int, words: str
) -> None:
    status, out, err = run(capsys, "show", text, "--variant", "practice")
    assert status == 2 and out == ""
    first, line, caret = err.splitlines()
    assert first.startswith(f"cambio show: column {column}: ") and words in first
    assert line == "  " + text
    assert caret == "  " + " " * (column - 1) + "^"
    assert "Traceback" not in err


def test_show_a_bad_table_or_no_table(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "show", POSITION, "--variant", "no-such-table")
    assert status == 1 and "no-such-table" in err
    status, _, err = run(capsys, "show", POSITION)
    assert status == 2 and "--variant" in err


def test_show_as_a_process_exits_two_without_a_traceback() -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(cambio.__file__).parents[1])}
    done = subprocess.run(
        [sys.executable, "-m", "cambio.cli", "show", "AS turn", "--variant", "practice"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("cambio show: column ")
    assert "Traceback" not in done.stderr


def test_validate_allow_dir_lets_extends_leave_the_files_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "base.toml").write_text('extends = "snap"\n[call]\npenalty = 3\n')
    house = tmp_path / "house"
    house.mkdir()
    child = house / "child.toml"
    child.write_text('extends = "../shared/base.toml"\n')
    status, out, err = run(capsys, "validate", str(child))
    assert status == 1 and "Traceback" not in out + err
    (line,) = out.splitlines()
    assert line.startswith(f"{child}: extends: ") and "outside" in line
    status, out, _ = run(capsys, "validate", "--allow-dir", str(shared), str(child))
    assert status == 0 and out.splitlines() == [f"{child}: ok"]


def test_validate_a_long_extends_chain_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A chain of 950 files is refused at its limit: one line, no RecursionError."""
    for i in range(950):
        (tmp_path / f"t{i}.toml").write_text(f'extends = "t{i + 1}.toml"\n')
    (tmp_path / "t950.toml").write_text('extends = "practice"\n')
    status, out, err = run(capsys, "validate", str(tmp_path / "t0.toml"))
    assert status == 1 and "Traceback" not in out + err and "Recursion" not in out + err
    (line,) = out.splitlines()
    assert line.startswith(f"{tmp_path / 't0.toml'}: ") and "extends" in line
    assert f"more than {cambio.loading.MAX_EXTENDS} files stand above" in line
