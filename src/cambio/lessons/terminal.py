"""``cambio learn``: the lessons in the terminal, then a fresh round against Robin and Alex.

The learner types the commands of ``cambio play`` (``help`` lists them) and plays from
memory: the opening peek and every later look stay on screen until Enter, then the
cards lie face down with their position numbers. A lesson step that shows all of the
learner's cards does so once, beside its prompt. Input is read line by line, so a
script can take the lessons::

    printf '\\nd\\nr 1\\nt\\nr 4\\n' | cambio learn --lesson 1
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Sequence
from typing import TextIO

from ..events import Event, EventKind
from ..play import (
    InputEnded,
    Leave,
    Terminal,
    TerminalPlayer,
    board_text,
    end_text,
    is_info,
    narrate,
    play,
)
from .model import Lesson
from .run import LessonRun

__all__ = ["add_arguments", "learn", "run_command"]

_LOOKS = frozenset({EventKind.PEEK, EventKind.RE_PEEK, EventKind.SWAP})


class _Course:
    def __init__(self, term: Terminal) -> None:
        self.term = term

    def say(self, text: str = "") -> None:
        self.term.say(text)

    def wrapped(self, text: str) -> None:
        for paragraph in text.splitlines() or [""]:
            self.say(textwrap.fill(paragraph, 78) if paragraph else "")

    def hide(self, prompt: str) -> None:
        line = self.term.ask(prompt)
        if line.strip().lower() in ("q", "quit", "exit"):
            raise Leave
        self.term.clear()

    def tell(self, event: Event, names: Sequence[str]) -> None:
        term = self.term
        looked = event.player == 0 and any(c is not None for c in event.cards)
        if event.kind == EventKind.OPENING_PEEK and looked:
            self.say("Your opening peek. Remember these cards and where they lie:")
            for (_, pos), card in zip(event.positions, event.cards, strict=False):
                self.say(f"  [{pos}] {term.card(card)}")
            self.hide("Press Enter to hide them and begin. ")
            self.say("Your cards are face down now; the numbers [1] [2] ... are their places.")
            return
        text = narrate(event, names, 0, term.card)
        if event.kind == EventKind.TURN:
            self.say(f"{term.rule * 3} {text[:-1]} {term.rule * 3}")
        elif text:
            self.say(f"  {text}")
        if looked and event.kind in _LOOKS:
            self.hide("Remember it. Press Enter to hide it. ")

    def lesson(self, lesson: Lesson, total: int) -> None:
        term = self.term
        run = LessonRun(lesson)
        names = list(lesson.names)
        person = TerminalPlayer(term, run.round.rules, names)
        self.say(term.rule * 60)
        self.say(f"Lesson {lesson.number} of {total}: {lesson.title}")
        self.wrapped(lesson.summary)
        self.say(term.rule * 60)
        for event in run.opening:
            self.tell(event, names)
        shown_at = 0
        while not run.finished:
            view = run.view
            legal = run.legal()
            if shown_at != run.step_number:
                shown_at = run.step_number
                self.say()
                self.say(board_text(view, names, run.round.rules, term.card, False))
                if run.shown:
                    cards = "  ".join(f"[{pos}] {term.card(c)}" for pos, c in run.shown)
                    self.say(f"Shown by this lesson, once: {cards}")
                self.say(f"Step {run.step_number} of {len(lesson.steps)}.")
                self.wrapped(run.prompt)
                self.say(person.situation(view, legal))
            line = term.ask("> ")
            words = line.split()
            action = person.interpret(line, view, legal)
            if action is None:
                step = run.step
                if words and not is_info(words[0]) and step is not None:
                    self.wrapped(step.wrong)
                continue
            feedback = run.act(action)
            if not feedback.ok:
                self.wrapped(feedback.message)
                continue
            events = list(feedback.events)
            if run.finished:
                while events and events[-1].kind == EventKind.TURN:
                    events.pop()  # the lesson ends here, not at the next turn
            mine = next((i for i, e in enumerate(events) if e.kind == EventKind.TURN), len(events))
            for event in events[:mine]:
                self.tell(event, names)
            if feedback.message:
                self.wrapped(feedback.message)
            for event in events[mine:]:
                self.tell(event, names)
        if run.result is not None:
            self.say(end_text(run.result, names, 0, term.card))
        self.say()
        self.wrapped(lesson.closing)


def learn(
    first: int = 1,
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    seed: int | None = None,
) -> int:
    """Take the lessons from number ``first`` on, then play a fresh round of the practice
    table against Robin and Alex (MemoryBots, from memory); return an exit status."""
    from . import lessons

    course = lessons()
    chosen = [lesson for lesson in course if lesson.number >= first]
    if not chosen or first < 1:
        raise ValueError(f"there are lessons 1 to {len(course)}, not {first}")
    term = Terminal(stdin or sys.stdin, stdout or sys.stdout)
    teacher = _Course(term)
    try:
        for lesson in chosen:
            teacher.lesson(lesson, len(course))
    except Leave as stop:
        term.say("")
        term.say("Input ended." if isinstance(stop, InputEnded) else "You left the lessons.")
        return 0
    except KeyboardInterrupt:
        term.say("")
        term.say("Interrupted.")
        return 130
    term.say(term.rule * 60)
    teacher.wrapped(
        "Now a fresh, shuffled round of the practice table against Robin and Alex, the "
        "learning opponents: they remember what they legally see and guess the rest."
    )
    return play(
        "practice",
        stdin=term.stdin,
        stdout=term.stdout,
        seed=seed,
        whole_match=False,
        opponents="memory",
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``cambio learn``."""
    parser.add_argument(
        "--lesson",
        type=int,
        default=1,
        metavar="N",
        help="start at lesson N (1 replace, 2 peek, 3 swap and call); the later lessons "
        "and the round follow",
    )
    parser.add_argument(
        "--seed", type=int, default=None, metavar="S", help="deal seed of the closing round"
    )


def run_command(args: argparse.Namespace) -> int:
    """Run ``cambio learn`` from parsed arguments; return the exit status."""
    try:
        return learn(args.lesson, seed=args.seed)
    except ValueError as error:
        sys.stderr.write(f"cambio learn: error: --lesson: {error}\n")
        return 2
