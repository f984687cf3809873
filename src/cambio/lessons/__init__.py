"""Guided lessons on the practice table: replace, peek, swap and call.

Each lesson is a TOML file in this package (see :mod:`cambio.lessons.reading`): a
prepared deal, the steps the learner (seat 0) must pass, and the opponents' scripted
moves. :func:`lessons` reads them in order; a :class:`LessonRun` plays one on the real
engine, for any interface::

    from cambio.lessons import LessonRun, lessons

    run = LessonRun(lessons()[0])
    while not run.finished:
        print(run.prompt)
        feedback = run.act(choose(run.view, run.legal()))
        print(feedback.message)

``cambio learn`` runs them in the terminal, then deals a fresh round of the practice
table against Robin and Alex.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from .model import Feedback, Lesson, LessonError, Move, Step
from .reading import lesson_from_toml, parse_action, read_lesson
from .run import LessonRun

__all__ = [
    "Feedback",
    "Lesson",
    "LessonError",
    "LessonRun",
    "Move",
    "Step",
    "lesson_from_toml",
    "lessons",
    "parse_action",
    "read_lesson",
]


@cache
def lessons() -> tuple[Lesson, ...]:
    """The bundled lessons, in the order they are taught."""
    folder = resources.files(__name__)
    found = [
        lesson_from_toml(entry.read_text(encoding="utf-8"), f"lessons/{entry.name}")
        for entry in folder.iterdir()
        if entry.name.endswith(".toml")
    ]
    return tuple(sorted(found, key=lambda lesson: lesson.number))
