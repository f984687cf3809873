"""`cambio play`: the terminal game, driven by scripted input."""

from __future__ import annotations

import io
import itertools
import json
import re
import subprocess
from pathlib import Path

import pytest

import cambio
from cambio.cli import main
from cambio.play import board_text, play
from piped import cambio_command

# Commands that fit most moments: draw, discard the draw, skip a power, call.
SIMPLE = "d\nx\nk\nc\n" * 40

WINNER = re.compile(r"(wins with -?\d+|share the win)")


pytestmark = pytest.mark.usefixtures("fresh_folder")


def run(args: list[str], script: str) -> subprocess.CompletedProcess[str]:
    return cambio_command(["play", *args], script)


def test_a_scripted_game_plays_to_the_end() -> None:
    done = run(["--seed", "3"], SIMPLE)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    out = done.stdout
    assert "Your opening peek" in out
    assert "Press Enter to hide them and begin." in out
    assert "Your cards are face down now" in out
    assert "The round is over" in out
    end = out[out.index("The round is over") :]
    for label in ("P0 You", "P1 Robin", "P2 Alex"):
        assert label in end
    assert "total" in end
    assert WINNER.search(end)
    # the bots' moves are printed as they happen
    assert "Robin draws from the stock." in out or "Robin takes" in out


def test_end_of_input_ends_cleanly() -> None:
    done = run(["--seed", "3"], "d\n")
    assert done.returncode == 0
    assert "Input ended" in done.stdout
    assert "Traceback" not in done.stderr


def test_quit() -> None:
    done = run(["--seed", "3"], "q\n")
    assert done.returncode == 0
    assert "You left the table" in done.stdout


def test_bad_input_gets_a_message_and_a_new_prompt() -> None:
    script = "\nzz\nr\nr x\np 9 9\ns 1\nx\n\nhelp\nh\nb\n" + SIMPLE
    done = run(["--seed", "5"], script)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Unknown command 'zz'" in out
    assert "replace: give one of your positions" in out
    assert "positions and players are numbers" in out
    assert "You cannot discard now" in out
    assert "Commands (positions are numbered from 1" in out
    assert "Move history (as you saw it; only cards face up now are named)" in out
    assert "The round is over" in out


@pytest.mark.parametrize(
    ("argv", "status", "needle"),
    [(["--variant", "nope"], 1, "nope"), (["--players", "9"], 2, "seats 2 to 6")],
)
def test_command_errors(
    capsys: pytest.CaptureFixture[str], argv: list[str], status: int, needle: str
) -> None:
    assert main(["play", *argv]) == status
    _out, err = capsys.readouterr()
    assert needle in err
    assert len(err.strip().splitlines()) == 1


def play_text(rules: cambio.RuleSet | str, script: str, **kwargs: object) -> str:
    out = io.StringIO()
    status = play(rules, stdin=io.StringIO(script), stdout=out, **kwargs)  # type: ignore[arg-type]
    assert status == 0
    return out.getvalue()


def test_snapping_table_offers_snaps() -> None:
    script = "\n".join(itertools.islice(itertools.cycle(["d", "x", "k", "n 3", "", "c"]), 400))
    out = play_text("snap", script, seed=8, snap="ask")
    assert "is on the discard pile. Snap?" in out
    assert "The round is over" in out


def test_five_card_grid_is_drawn_two_two_one() -> None:
    out = play_text("five-card", SIMPLE, seed=2, players=3)
    board = out[out.index("P0 You *") :].splitlines()[:3]
    assert "[1]" in board[0] and "[2]" in board[0] and "[3]" not in board[0]
    assert "[3]" in board[1] and "[4]" in board[1] and "[5]" not in board[1]
    assert board[2].strip().startswith("[5]")


@pytest.mark.parametrize(
    "table",
    [
        "practice",
        "snap",
        "penalty",
        "elimination",
        "one-peek",
        "re-peek",
        "draw-power",
        "teams",
        "five-card",
        "cabo",
    ],
)
def test_any_input_never_crashes(table: str) -> None:
    words = [
        "d",
        "x",
        "k",
        "",
        "t",
        "r 1",
        "g 1",
        "o 3",
        "p 1 1",
        "p 2",
        "s 0 1 1 1",
        "n 1",
        "n 1 2",
        "l",
        "e 1 2",
        "b",
        "r 4",
        "c",
        "k",
        "qq",
        "-1",
        "r 99",
        "s 1 2 3",
    ]
    for seed in range(2):
        script = "\n".join(itertools.islice(itertools.cycle(words[seed:] + words[:seed]), 3000))
        out = play_text(table, script, seed=seed)
        assert "The round is over" in out or "Input ended" in out


def text(card: cambio.Card | None) -> str:
    return "??" if card is None else str(card)


def test_from_memory_hides_seen_cards() -> None:
    rnd = cambio.Round(cambio.RuleSet(), 3, seed=1)
    view = rnd.view(0)
    names = ["You", "Robin", "Alex"]
    shown = board_text(view, names, rnd.rules, text, show_known=True)
    hidden = board_text(view, names, rnd.rules, text, show_known=False)
    known = [c for c in view.own if c is not None]
    assert len(known) == 2
    for card in known:
        assert str(card) in shown
        assert str(card) not in hidden.split("Discard")[0]
    assert shown.count("??") == 10 and hidden.count("??") == 12


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_with_aids_a_real_terminal_waits_then_clears_after_the_opening_peek() -> None:
    out = FakeTerminal()
    play("practice", seed=3, stdin=FakeTerminal("\n" + SIMPLE), stdout=out, aids=True)
    text = out.getvalue()
    assert "Press Enter to clear the screen and begin (learner's aids" in text
    assert "\033[2J" in text
    assert "Press Enter to hide" not in text


def test_from_memory_hides_the_opening_peek_after_enter() -> None:
    out = FakeTerminal()
    play("practice", seed=3, stdin=FakeTerminal("\n" + SIMPLE), stdout=out)
    text = out.getvalue()
    assert "Press Enter to hide them and begin." in text
    assert "\033[2J" in text
    after = text[text.index("\033[2J") :]
    assert "[1] ??   [2] ??" in after


# --- --opponents: the computer players' bots ------------------------------------------


def test_opponents_search_plays_a_piped_game_to_the_end() -> None:
    done = run(["--seed", "3", "--players", "2", "--opponents", "search"], SIMPLE)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    out = done.stdout
    assert "Robin (P1, search bot)" in out
    assert "The round is over" in out
    assert WINNER.search(out[out.index("The round is over") :])


def test_opponents_one_per_seat_and_kept_by_the_save(tmp_path: Path) -> None:
    done = run(["--seed", "5", "--opponents", "memory,search", "--save", "g.json"], "d\nq\n")
    assert done.returncode == 0, done.stderr
    assert "Robin (P1, memory bot), Alex (P2, search bot)" in done.stdout
    saved = json.loads((tmp_path / "g.json").read_text(encoding="utf-8"))
    assert saved["opponents"] == ["memory", "search"]
    again = run(["--resume", "g.json"], SIMPLE)
    assert again.returncode == 0, again.stderr
    # the resumed game ends as the same game played without a break (the same bots)
    whole = run(["--seed", "5", "--opponents", "memory,search"], "d\n" + SIMPLE)
    assert whole.returncode == 0, whole.stderr
    end = whole.stdout[whole.stdout.index("The round is over") :]
    resumed = again.stdout[again.stdout.index("The round is over") :]
    assert resumed.split("The save ")[0] == end
    assert "The save g.json is marked finished." in resumed


@pytest.mark.parametrize(
    ("choice", "message"),
    [
        ("robot", "unknown opponent 'robot'"),
        ("memory,search,random", "3 opponents named for 2 other seats"),
    ],
)
def test_opponents_errors_are_one_line(choice: str, message: str) -> None:
    done = run(["--seed", "1", "--players", "3", "--opponents", choice], "")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("cambio play: error: --opponents: ")
    assert message in done.stderr and done.stderr.count("\n") == 1


def test_opponents_names_spread_over_the_seats() -> None:
    from cambio.play import opponent_names

    assert opponent_names(None, 3) == ("memory", "memory")
    assert opponent_names("Search", 4) == ("search",) * 3
    assert opponent_names(["random", "search"], 3) == ("random", "search")
    with pytest.raises(ValueError, match="unknown opponent"):
        opponent_names("memory,nobody", 3)
    with pytest.raises(ValueError, match="2 opponents named for 3 other seats"):
        opponent_names("memory,search", 4)
