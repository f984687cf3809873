"""What a lesson is made of: a prepared deal, the learner's steps, the opponents' moves.

A :class:`Lesson` is data, read from a TOML file by :mod:`cambio.lessons.reading`; a
:class:`~cambio.lessons.run.LessonRun` plays it on the real engine.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from ..actions import Action
from ..cards import Card
from ..errors import Problem
from ..events import Event

__all__ = ["Feedback", "Lesson", "LessonError", "Move", "Step"]


class LessonError(ValueError):
    """A lesson file that cannot be used; ``problems`` lists every mistake found.

    ``str(error)`` is one line per problem, ``FILE: key.path: message``, as for a rule
    table (:class:`~cambio.errors.RuleSetError`).
    """

    problems: tuple[Problem, ...]

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems = tuple(problems)
        super().__init__("\n".join(str(p) for p in self.problems) or "invalid lesson")


@attrs.frozen
class Step:
    """One thing the learner is asked to do."""

    prompt: str
    """What the learner reads before acting."""
    accept: tuple[Action, ...]
    """The actions that pass the step (the first is the one a walk-through takes)."""
    wrong: str
    """The sentence said when the learner does anything else (nothing is applied)."""
    done: str = ""
    """Said once the step is passed."""
    show_own: bool = False
    """Whether the step shows the learner every card of their own grid (once, to explain
    a prepared ending); normal play never does."""


@attrs.frozen
class Move:
    """An opponent's scripted move, applied when that opponent is to act."""

    action: Action


@attrs.frozen
class Lesson:
    """A guided lesson: a prepared deal on a table, steps for the learner (seat 0) and
    the opponents' moves, in the order the engine asks for them."""

    number: int
    """The lesson's place in the course, from 1."""
    title: str
    summary: str
    table: str
    """The profile the lesson is played on."""
    names: tuple[str, ...]
    """Every seat's name, the learner's first."""
    seed: int
    """Shuffles the cards the deal does not fix."""
    grids: tuple[tuple[Card, ...], ...]
    """Each seat's dealt grid, positions from 1."""
    discard: Card
    """The card that starts the discard pile."""
    stock: tuple[Card, ...]
    """The first cards of the stock, in the order they are drawn."""
    steps: tuple[Step, ...]
    moves: tuple[Move, ...]
    closing: str = ""
    """Said when the lesson is over."""
    winners: tuple[int, ...] = ()
    """The seats that win the round when the lesson ends it (checked when it loads)."""
    source: str = ""
    """The file the lesson was read from."""

    @property
    def deck(self) -> tuple[Card, ...]:
        """The prepared top of the deck, in the engine's deal order."""
        return (*(c for grid in self.grids for c in grid), self.discard, *self.stock)


@attrs.frozen
class Feedback:
    """What came of one attempt at a step."""

    ok: bool
    """Whether the action was taken (``False``: refused, nothing applied)."""
    message: str
    """A sentence for the learner: what to do instead, or what the step showed."""
    events: tuple[Event, ...] = ()
    """What happened, as the learner saw it: the learner's action, then the opponents'
    moves up to the learner's next decision."""
