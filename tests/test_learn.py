"""The lessons: data files read and checked, LessonRun on the engine, `cambio learn`."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

import cambio
from cambio import Action
from cambio.cli import main
from cambio.lessons import LessonError, LessonRun, lesson_from_toml, lessons, parse_action
from piped import cambio_command

LESSONS = Path(cambio.__file__).parent / "lessons"

# each lesson through piped input, with one wrong move in each (marked)
LESSON_1 = "\n" + "c\n" + "d\n" + "r 3\n" + "r 1\n" + "t\n" + "r 4\n"  # c and r 3 are wrong
LESSON_2 = (
    "\n" + "d\n" + "r 1\n" + "x\n" + "p 1\n" + "\n" + "d\n" + "x\n" + "p 3\n" + "p 1 2\n" + "\n"
)
LESSON_3 = "\n" + "d\n" + "x\n" + "s 1 1 1\n" + "s 2 1 1\n" + "d\n" + "c\n"
ROUND = "\n" + "d\nx\nk\nc\n" * 40


pytestmark = pytest.mark.usefixtures("fresh_folder")


def learn(args: list[str], script: str) -> subprocess.CompletedProcess[str]:
    return cambio_command(["learn", *args], script)


# --- the data ------------------------------------------------------------------------


def test_three_lessons_in_order() -> None:
    course = lessons()
    assert [lesson.number for lesson in course] == [1, 2, 3]
    assert [lesson.title for lesson in course] == ["Replace a card", "Peek", "Swap and call"]
    for lesson in course:
        assert lesson.table == "practice"
        assert lesson.names == ("You", "Robin", "Alex")


def test_the_lesson_files_ship_with_the_package() -> None:
    assert sorted(p.name for p in LESSONS.glob("*.toml")) == [
        "1-replace.toml",
        "2-peek.toml",
        "3-swap-and-call.toml",
    ]
    # the files an sdist and a wheel are built from, in the repository (the package
    # above may be an installed copy: the compiled build's tests import that)
    repository = Path(__file__).resolve().parents[1]
    manifest = (repository / "MANIFEST.in").read_text()
    assert "include src/cambio/lessons/*.toml" in manifest
    assert '"lessons/*.toml"' in (repository / "pyproject.toml").read_text()


def test_parse_action_spells_places_by_name() -> None:
    names = ["You", "Robin", "Alex"]
    assert parse_action("replace 3", 0, names) == Action.replace(0, 3)
    assert parse_action("peek alex:4", 0, names) == Action.peek(0, (2, 4))
    assert parse_action("swap 0:2 Robin:1", 0, names) == Action.swap(0, (0, 2), (1, 1))
    for text, message in [
        ("", "an empty action"),
        ("jump", "unknown action 'jump'"),
        ("replace", "replace takes one position"),
        ("peek Sam:1", "no seat is called 'Sam'"),
        ("peek Robin", "is not a place"),
        ("draw 2", "draw takes nothing after it"),
    ]:
        with pytest.raises(ValueError, match=message):
            parse_action(text, 0, names)


def broken(old: str, new: str) -> str:
    name = "3-swap-and-call.toml" if "Alex replace 2" in old else "1-replace.toml"
    text = (LESSONS / name).read_text(encoding="utf-8")
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("title =", "titel =", "titel: unknown key; did you mean title?"),
        ('"Robin replace 3"', '"Robin replace 9"', "moves[1]: P1 replace P1:9 is not possible"),
        ('"Alex discard",', "", "moves[3]: Alex must act here, but the moves have run out"),
        ('"Alex replace 2",', '"Alex replace 2", "Robin draw",', "moves[8]: never used"),
        ('accept = ["take"]', 'accept = ["take", "call"]', ""),
        ('accept = ["replace 4"]', 'accept = ["replace 7"]', "steps[3].accept[0]: P0 replace"),
        ('discard = "9D"', 'discard = "9X"', "deal.discard: 9X is not a card of the practice"),
        ('discard = "9D"', 'discard = "QD"', "deal.discard: QD is dealt more often than"),
        ('["QD", "8C", "3S", "5H"]', '["QD", "QD", "3S", "5H"]', "deal.grids[0][1]: QD is"),
        (
            '"JS", "8H", "10H", "5D"]',
            '"JS", "8H", "10H"]',
            "deal.grids[2]: a grid of 4 cards each, not 3",
        ),
        ("seed = 1", 'seed = "one"', "seed: expected a whole number"),
        ('accept = ["draw"]', 'accept = ["fly"]', "steps[0].accept[0]: unknown action 'fly'"),
        ('"Robin draw"', '"You draw"', "moves[0]: You is the learner"),
        ("number = 1\n", 'number = 1\nwinners = ["You"]\n', "winners: the lesson does not end"),
    ],
)
def test_a_broken_lesson_is_one_error_by_key_path(old: str, new: str, message: str) -> None:
    text = broken(old, new)
    if not message:  # an extra accepted action that is legal there is fine
        assert lesson_from_toml(text, "x.toml").steps[2].accept[1] == Action.call(0)
        return
    with pytest.raises(LessonError) as caught:
        lesson_from_toml(text, "x.toml")
    assert str(caught.value).startswith("x.toml: ")
    assert message in str(caught.value)


def test_not_toml_is_a_lesson_error() -> None:
    with pytest.raises(LessonError, match=r"x\.toml: not TOML"):
        lesson_from_toml("title = ", "x.toml")


# --- LessonRun on the engine -----------------------------------------------------------


def test_a_wrong_action_is_refused_and_nothing_is_applied() -> None:
    for lesson in lessons():
        run = LessonRun(lesson)
        before = run.round.position()
        legal = run.legal()
        step = run.step
        assert step is not None
        wrong = next(a for a in legal if a not in step.accept)
        feedback = run.act(wrong)
        assert not feedback.ok and feedback.message == step.wrong and not feedback.events
        assert run.round.position() == before and run.step_number == 1
        illegal = Action.replace(0, 1)  # nobody holds a card at a turn's start
        assert run.act(illegal).message == step.wrong
        assert run.round.position() == before


def walk(run: LessonRun) -> list[int]:
    """Take the first accepted action of every step; the step numbers that showed cards."""
    showing = []
    while not run.finished:
        step = run.step
        assert step is not None
        assert step.accept[0] in run.legal()
        if run.shown:
            showing.append(run.step_number)
        feedback = run.act(step.accept[0])
        assert feedback.ok, feedback.message
        assert feedback.events[0].player == 0
    return showing


def test_every_lesson_runs_to_its_end_on_the_engine() -> None:
    one, two = LessonRun(lessons()[0]), LessonRun(lessons()[1])
    assert walk(one) == [] and walk(two) == []
    assert one.prompt == lessons()[0].closing
    assert one.act(Action.draw(0)).message == "This lesson is over."
    assert not one.legal()
    # lesson 3 shows all four of the learner's cards once, at the call
    run = LessonRun(lessons()[2])
    assert walk(run) == [4]
    result = run.result
    assert result is not None and result.winners == (0,) and result.caller == 0
    assert result.totals == (10, 32, 30)


def test_the_shown_cards_are_the_learners_true_grid() -> None:
    run = LessonRun(lessons()[2])
    while not run.shown:
        step = run.step
        assert step is not None
        run.act(step.accept[0])
    assert [str(c) for _, c in run.shown] == ["AS", "2C", "3H", "4D"]
    assert [p for p, _ in run.shown] == [1, 2, 3, 4]
    # the learner's view itself knows only what was legally seen
    assert [str(c) if c else None for c in run.view.own[:4]] == [None, None, "3H", "4D"]


def test_the_opponents_moves_are_applied_without_being_asked() -> None:
    run = LessonRun(lessons()[0])
    run.act(Action.draw(0))
    feedback = run.act(Action.replace(0, 1))
    movers = {e.player for e in feedback.events}
    assert {1, 2} <= movers
    assert run.round.to_act == 0
    # the learner sees the opponents' draws face down
    draws = [e for e in feedback.events if e.kind.value == "draw" and e.player != 0]
    assert draws and all(c is None for e in draws for c in e.cards)


# --- cambio learn ----------------------------------------------------------------------


def hidden_board(out: str) -> None:
    for line in out.splitlines():
        if line.startswith(("P0 You", "P1 Robin", "P2 Alex")) and "total" not in line:
            assert set(re.findall(r"\[\d\] (\S+)", line)) <= {"??", "--"}, line


def test_lesson_one_through_piped_input() -> None:
    done = learn(["--lesson", "1"], LESSON_1)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Lesson 1 of 3: Replace a card" in out
    assert "Start by drawing from the stock" in out  # the wrong call, refused
    assert "Put the 2 at position 1 or 2." in out  # the wrong replacement, refused
    assert "You put the card at your [1]; out comes Q\u2666." in out
    assert "Out comes the 5: position 4 is now worth 1 point." in out
    assert "Lesson 2 of 3: Peek" in out and "Input ended." in out
    hidden_board(out)


def test_lesson_two_through_piped_input() -> None:
    done = learn(["--lesson", "2"], LESSON_2)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Throw the 7 away" in out  # r 1 while holding the 7, refused
    assert "You peek at your [1]: 4\u2663." in out
    assert "Look at one of Robin's or Alex's cards, not one of your own." in out  # p 3
    assert "You peek at Robin's [2]: 3\u2663." in out
    assert out.count("Remember it. Press Enter to hide it.") == 2
    assert "Lesson 3 of 3: Swap and call" in out
    hidden_board(out)


def test_lesson_three_through_piped_input() -> None:
    done = learn(["--lesson", "3"], LESSON_3)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Swap your position 2 with Robin's position 1." in out
    assert "You swap your [2] and Robin's [1] (blind)." in out
    assert out.count("Shown by this lesson, once:") == 1
    assert "Call Cambio now, before drawing" in out  # d at the call, refused
    assert "You call Cambio!" in out
    assert "You win with 10!" in out
    assert "Your 10 is the lowest total: you win." in out
    hidden_board(out[: out.index("The round is over")])


def test_the_whole_course_ends_with_a_round_against_robin_and_alex() -> None:
    done = learn(["--seed", "4"], LESSON_1 + LESSON_2 + LESSON_3 + ROUND)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    for n, title in [(1, "Replace a card"), (2, "Peek"), (3, "Swap and call")]:
        assert f"Lesson {n} of 3: {title}" in out
    fresh = out[out.index("Now a fresh, shuffled round") :]
    assert "Cambio at the practice table: 3 players, seed 4." in fresh
    assert "Robin (P1, memory bot), Alex (P2, memory bot)" in fresh
    assert "The round is over" in fresh
    assert "Traceback" not in done.stderr


def test_quitting_a_lesson() -> None:
    done = learn([], "\nq\n")
    assert done.returncode == 0
    assert "You left the lessons." in done.stdout


@pytest.mark.parametrize("number", ["0", "4"])
def test_a_lesson_that_does_not_exist_is_one_line(
    capsys: pytest.CaptureFixture[str], number: str
) -> None:
    assert main(["learn", "--lesson", number]) == 2
    _out, err = capsys.readouterr()
    assert err == f"cambio learn: error: --lesson: there are lessons 1 to 3, not {number}\n"
