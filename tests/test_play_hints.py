"""`cambio play --hints`: a table option chosen at the start and kept in the save; the
``hint`` command lists the best moves with their win share and interval, drawn from
the player's own view, and says hints are off at a table without them."""

from __future__ import annotations

import io
import json
import random
import re
from pathlib import Path

import pytest

import cambio
from cambio.play import play
from piped import cambio_command

HINT_LINE = re.compile(r"^  (\S.*?)\s+win\s+\d+% \(\d+%-\d+%\)  score\s+-?\d+\.\d  ", re.M)


pytestmark = pytest.mark.usefixtures("fresh_folder")


def text_of(script: str, **kwargs: object) -> str:
    out = io.StringIO()
    assert play(stdin=io.StringIO(script), stdout=out, **kwargs) == 0  # type: ignore[arg-type]
    return out.getvalue()


def _hints(out: str) -> list[str]:
    """Every hint's text: from its first line to the next prompt."""
    return re.findall(r"> hint\n(Hint: .*?)(?=\n> )", out, re.S)


def test_a_hint_lists_the_best_moves_as_commands(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    out = text_of("\nhint\nd\nhint\nq\n", seed=3, players=2, hints=True, save_to=save)
    assert "Cambio at the practice table, hints on: 2 players, seed 3." in out
    turn, drawn = _hints(out)
    assert turn.startswith("Hint: the best moves over 64 rounds drawn from what you know")
    assert sorted(HINT_LINE.findall(turn)) == ["c", "d", "t"]  # the turn's three moves
    moves = HINT_LINE.findall(drawn)
    assert len(moves) == 3 and all(m == "x" or re.fullmatch(r"r [1-4]", m) for m in moves)
    assert "the best" in drawn.splitlines()[1] and "behind" in drawn.splitlines()[2]
    assert re.search(r"\(\d more moves? estimated no better\)", drawn)
    assert json.loads(save.read_text(encoding="utf-8"))["hints"] is True


def test_without_hints_the_command_says_they_are_off(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    out = text_of("\nhint\nq\n", seed=3, players=2, save_to=save)
    assert "hints on" not in out and "Hint:" not in out
    assert "Hints are off for this table (a game started with --hints has them)." in out
    assert json.loads(save.read_text(encoding="utf-8"))["hints"] is False


def test_hints_are_resumed_and_a_resumed_hint_is_the_same(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    first = text_of("\nd\nhint\nq\n", seed=5, players=2, hints=True, save_to=save)
    again = text_of("hint\nscore\nq\n", resume=save)
    assert len(_hints(first)) == 1
    assert _hints(again) == _hints(first)  # the same decision, the same seed
    assert "Cambio at the practice table, hints on: 2 players, seed 5." in again
    data = json.loads(save.read_text(encoding="utf-8"))
    data["hints"] = "yes"
    save.write_text(json.dumps(data), encoding="utf-8")
    run = cambio_command(["play", "--resume", str(save)])
    assert run.returncode == 1 and "$.hints" in run.stderr and "Traceback" not in run.stderr


def test_the_command_line_option_starts_a_table_with_hints(tmp_path: Path) -> None:
    run = cambio_command(["play", "--seed", "3", "--hints", "--round"], "\nhint\nq\n")
    assert run.returncode == 0, run.stderr
    assert "hints on" in run.stdout and "Hint: the best moves" in run.stdout


def test_a_hint_at_a_snap_offer_weighs_letting_it_go() -> None:
    from cambio.actions import ActionKind
    from cambio.play import Terminal, TerminalPlayer

    rules = cambio.load_ruleset("snap")
    rnd = cambio.Round(rules, seed=3)
    rng = random.Random(3)
    while 0 not in rnd.reactors:
        rnd.apply(rng.choice([a for a in rnd.legal_actions() if a.kind is not ActionKind.SNAP]))
    out = io.StringIO()
    person = TerminalPlayer(
        Terminal(io.StringIO("hint\n\n"), out), rules, ["You", "Robin", "Alex", "Sam"], hints=True
    )
    person.reset(0, rules, 11)
    snaps = [a for a in rnd.legal_actions(0) if a.kind is ActionKind.SNAP]
    assert person.react(rnd.view(0), snaps) is None  # the hint is shown, then Enter
    assert person.answers == [None]
    hint = out.getvalue()
    moves = HINT_LINE.findall(hint)
    assert hint.count("Hint: the best moves") == 1 and moves
    assert all(m.startswith(("Enter (let it go), then ", "n ")) for m in moves)
    assert any(m.startswith("Enter (let it go), then ") for m in moves)
