"""`cambio play`: the score command, resuming, finished saves, the saves folder, the
resume command as printed, and the reasons for who starts and what a call cost."""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import attrs
import pytest

import cambio
from cambio.launch import launch_command, saves_folder
from cambio.play import play
from cambio.reasons import caller_reason, starter_reason
from cambio.rules import CallRules
from cambio.scoring import score_hands
from piped import SRC

SIMPLE = "d\nx\nk\n\nc\n" * 200


pytestmark = pytest.mark.usefixtures("fresh_folder")


def text_of(script: str, **kwargs: object) -> str:
    out = io.StringIO()
    assert play(stdin=io.StringIO(script), stdout=out, **kwargs) == 0  # type: ignore[arg-type]
    return out.getvalue()


def test_score_shows_the_table_round_and_every_total() -> None:
    # elimination: a whole match; play one round, then ask for the score in round 2
    out = text_of("\n" + SIMPLE, rules="elimination", seed=3, players=3)
    assert "The match is over" in out
    short = text_of("\nd\nx\nk\n\nscore\nq\n", rules="elimination", seed=3, players=3)
    block = short[short.index("> score") :]
    assert "Cambio at the elimination table: 3 players, seed 3." in block
    assert "Round 1 is being played" in block
    assert "No round is finished yet: every total is 0." in block


def test_score_after_rounds_lists_each_seat_and_round() -> None:
    out = text_of(
        "\n" + "d\nx\nk\n\nc\nscore\nscore\n" * 40, rules="elimination", seed=3, players=3
    )
    blocks = re.split(r"(?:> |snap\? )score\n", out)[1:]
    later = [b for b in blocks if b.startswith("Cambio at") and "After 1 round:" in b]
    assert later, "a score was asked for in the second round"
    block = later[0]
    assert "Round 2 is being played" in block
    assert re.search(r"After 1 round: totals You -?\d+, Robin -?\d+, Alex -?\d+\.", block)
    for name in ("You", "Robin", "Alex"):
        assert re.search(rf"^  {name} +-?\d+   rounds: -?\d+$", block, re.M), name


def test_resume_prints_the_table_the_round_and_the_totals() -> None:
    save = Path("g.json")
    text_of("\nd\nq\n", rules="elimination", seed=4, players=3, save_to=save)
    again = text_of("q\n", resume=save)
    restored = again[again.index("The saved game is restored") :]
    assert "Cambio at the elimination table: 3 players, seed 4." in restored
    assert "Round 1 is being played" in restored


def test_a_finished_game_is_marked_and_resuming_shows_its_result() -> None:
    save = Path("g.json")
    text_of("\nd\nq\n", rules="practice", seed=6, save_to=save)
    assert json.loads(save.read_text())["finished"] is False
    done = text_of(SIMPLE, resume=save)
    assert "The round is over" in done
    assert f"The save {save} is marked finished." in done
    data = json.loads(save.read_text())
    assert data["finished"] is True
    end = done[done.index("The round is over") :].split("The save ")[0]
    # resuming it again shows the result and asks nothing: no take-back
    shown = text_of("d\nx\nk\nc\n", resume=save)
    assert "This game is over" in shown
    assert "> " not in shown
    assert end.strip("\u2500\n") in shown
    assert json.loads(save.read_text()) == data


def test_a_finished_flag_of_the_wrong_type_is_a_save_error() -> None:
    save = Path("g.json")
    text_of("\nd\nq\n", rules="practice", seed=6, save_to=save)
    data = json.loads(save.read_text())
    data["finished"] = "yes"
    save.write_text(json.dumps(data))
    with pytest.raises(cambio.SaveError, match=r"\$\.finished: expected bool"):
        text_of("", resume=save)


def test_saves_go_in_the_data_folder(tmp_path: Path) -> None:
    text_of("\nq\n", rules="practice", seed=9)
    assert (tmp_path / "data" / "cambio" / "saves" / "cambio-practice-9.json").exists()
    assert not list(tmp_path.glob("cambio-*.json"))
    assert saves_folder({"XDG_DATA_HOME": "/x/y"}) == Path("/x/y/cambio/saves")
    home = saves_folder({})
    assert home == Path.home() / ".local" / "share" / "cambio" / "saves"
    assert saves_folder({"XDG_DATA_HOME": "relative"}) == home  # the spec ignores those


def test_the_launch_command_is_the_one_typed() -> None:
    none = lambda name: None  # noqa: E731
    assert launch_command(".venv/bin/cambio", which=none) == ".venv/bin/cambio"
    assert launch_command("/usr/bin/cambio", which=lambda n: "/usr/bin/cambio") == "cambio"
    here = Path("/home/me/game")
    python = "/home/me/game/.venv/bin/python"
    main = "/home/me/game/.venv/lib/cambio/__main__.py"
    assert launch_command(main, which=none, executable=python, cwd=here) == (
        ".venv/bin/python -m cambio"
    )
    assert launch_command(main, which=none, executable="/usr/bin/python3", cwd=here) == (
        "/usr/bin/python3 -m cambio"
    )
    assert launch_command("/dir with space/cambio", which=none) == "'/dir with space/cambio'"


def test_the_printed_resume_command_runs_as_printed(tmp_path: Path) -> None:
    """A `cambio` script that is not on PATH, run by its path as after the quick start."""
    script = tmp_path / ".venv" / "bin" / "cambio"
    script.parent.mkdir(parents=True)
    script.write_text(
        f"#!{sys.executable}\nimport sys\nfrom cambio.cli import main\nsys.exit(main())\n"
    )
    script.chmod(0o755)
    env = {
        "PYTHONIOENCODING": "utf-8",
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": SRC,
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }

    def run(command: list[str], script_text: str) -> str:
        done = subprocess.run(
            command,
            input=script_text,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            env=env,
            cwd=tmp_path,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    first = run([".venv/bin/cambio", "play", "--seed", "2"], "\nd\nq\n")
    printed = first.strip().splitlines()[-1].split("continue it with: ")[1]
    save = tmp_path / "data" / "cambio" / "saves" / "cambio-practice-2.json"
    assert printed == f".venv/bin/cambio play --resume {save}"
    again = run(shlex.split(printed), "q\n")
    assert "The saved game is restored" in again


def test_the_starter_reason_comes_from_the_rules() -> None:
    practice = cambio.load_ruleset("practice")
    assert starter_reason(practice, first_round=True) == (
        "the last seat deals the first round, and the player to the dealer's left starts"
    )
    later = attrs.evolve(practice, match=attrs.evolve(practice.match, starter="last-winner"))
    assert "the winner of the last round starts" in starter_reason(later, first_round=False)
    renamed = attrs.evolve(practice, name="something else")
    assert starter_reason(renamed, first_round=True) == starter_reason(practice, first_round=True)


def test_the_round_start_line_gives_the_reason() -> None:
    out = text_of("q\n", rules="practice", seed=1)
    assert "Round 1: Alex deals, You start." in out
    assert (
        "(The last seat deals the first round, and the player to the dealer's left starts.)" in out
    )


def test_a_tied_callers_penalty_is_explained() -> None:
    base = cambio.RuleSet()
    strict = attrs.evolve(base, call=CallRules(penalty=10, tie_is_lowest=False))
    tied = score_hands(strict, [["5H", "2C"], ["4D", "3S"]], caller=0)
    assert tied.scores[0] == 17
    why = caller_reason(tied, strict, ["You", "Robin"])
    assert why is not None
    assert why.startswith("You called but only tied for the lowest total")
    assert "+10" in why
    lenient = attrs.evolve(base, call=CallRules(penalty=10, tie_is_lowest=True))
    shared = score_hands(lenient, [["5H", "2C"], ["4D", "3S"]], caller=0)
    assert caller_reason(shared, lenient, ["You", "Robin"]) is None
    beaten = score_hands(lenient, [["9H", "2C"], ["4D", "3S"]], caller=1)
    assert caller_reason(beaten, lenient, ["You", "Robin"]) is None  # Robin was lowest
    lost = score_hands(lenient, [["9H", "2C"], ["4D", "3S"]], caller=0)
    assert caller_reason(lost, lenient, ["You", "Robin"]) == (
        "You called but did not have the lowest total: +10, the table's caller penalty."
    )


def test_no_save_is_left_in_the_working_folder() -> None:
    text_of("\nd\nq\n", rules="practice", seed=5)
    assert not [p for p in os.listdir(".") if p.endswith(".json")]
