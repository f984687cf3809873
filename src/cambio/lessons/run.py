"""Playing a lesson on the real engine: :class:`LessonRun`.

The learner is seat 0 of a :class:`~cambio.Round` dealt from the lesson's prepared
deck. :meth:`LessonRun.act` takes the learner's action: one the current step does not
accept is refused with the step's sentence and nothing is applied; an accepted one is
applied, then the opponents' scripted moves, up to the learner's next decision. The run
holds no text for a particular screen: a terminal and a web page show the same run.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ..actions import Action
from ..cards import Card
from ..derived import derived
from ..errors import Problem
from ..events import Event
from ..loading import load_ruleset
from ..round import Round
from ..scoring import RoundResult
from ..views import PlayerView
from .model import Feedback, Lesson, Step

__all__ = ["LessonRun", "rehearse"]

LEARNER = 0
"""The learner's seat."""


class _ScriptError(Exception):
    """A scripted move the engine refuses, or none left when an opponent must act."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


class LessonRun:
    """One learner going through one lesson.

    >>> from cambio.lessons import lessons
    >>> run = LessonRun(lessons()[0])
    >>> run.act(run.legal()[-1]).ok  # calling Cambio is not the first lesson's step
    False
    """

    def __init__(self, lesson: Lesson) -> None:
        self.lesson = lesson
        rules = load_ruleset(lesson.table)
        seats = len(lesson.names)
        self.round = Round(
            rules, seats, seed=lesson.seed, deck=lesson.deck, dealer=seats - 1, starter=0
        )
        self._step = 0
        self._moves = 0
        self._opening = tuple(e.as_seen_by(LEARNER) for e in self.round.events)
        self._advance()

    # --- what the learner sees
    @property
    def view(self) -> PlayerView:
        """The learner's view of the round: only what the learner legally saw."""
        return self.round.view(LEARNER)

    @property
    def opening(self) -> tuple[Event, ...]:
        """The round's first events as the learner saw them (the deal, the opening peeks,
        and any moves the opponents made before the learner's first decision)."""
        return self._opening

    @property
    def step(self) -> Step | None:
        """The current step (``None`` once the lesson is over)."""
        steps = self.lesson.steps
        return steps[self._step] if self._step < len(steps) else None

    @property
    def step_number(self) -> int:
        """The current step's number, from 1 (one past the last when the lesson is over)."""
        return self._step + 1

    @property
    def prompt(self) -> str:
        """What the learner is asked to do now (the lesson's closing words at the end)."""
        step = self.step
        return step.prompt if step is not None else self.lesson.closing

    @property
    def finished(self) -> bool:
        """Whether every step is passed."""
        return self.step is None

    @property
    def shown(self) -> tuple[tuple[int, Card], ...]:
        """The learner's own cards (position, card) that the current step shows face up:
        all of them on a step that explains a prepared ending, none otherwise."""
        step = self.step
        if step is None or not step.show_own:
            return ()
        hand = self.round.hand(LEARNER)
        return tuple((i + 1, c) for i, c in enumerate(hand) if c is not None)

    @property
    def result(self) -> RoundResult | None:
        """The round's result, when the lesson ended the round."""
        return self.round.result

    def legal(self) -> Sequence[Action]:
        """The learner's legal actions now, by the table's rules (empty at the end)."""
        if self.finished or self.round.is_over:
            return ()
        return self.round.legal_actions(LEARNER)

    # --- acting
    def act(self, action: Action) -> Feedback:
        """Try ``action`` for the current step; see the module's notes."""
        step = self.step
        if step is None:
            return Feedback(False, "This lesson is over.")
        if action not in step.accept or not self.round.can_apply(action):
            return Feedback(False, step.wrong)
        seen = [e.as_seen_by(LEARNER) for e in self.round.apply(action)]
        self._step += 1
        seen += self._advance()
        return Feedback(True, step.done, tuple(seen))

    def _advance(self) -> list[Event]:
        """Apply the opponents' scripted moves up to the learner's next decision."""
        seen: list[Event] = []
        rnd = self.round
        moves = self.lesson.moves
        while not rnd.is_over and rnd.to_act is not None and rnd.to_act != LEARNER:
            if self.finished and self._moves >= len(moves):
                break  # the lesson is over: the round need not go on
            path = f"moves[{self._moves}]"
            if self._moves >= len(moves):
                who = self.lesson.names[rnd.to_act]
                raise _ScriptError(path, f"{who} must act here, but the moves have run out")
            action = moves[self._moves].action
            if not rnd.can_apply(action):
                raise _ScriptError(path, f"{action} is not possible at that point")
            self._moves += 1
            seen.extend(e.as_seen_by(LEARNER) for e in rnd.apply(action))
        return seen

    @property
    def moves_left(self) -> int:
        """Scripted moves not used yet."""
        return len(self.lesson.moves) - self._moves


def _deal_problems(lesson: Lesson, deck: Counter[Card], size: int) -> list[tuple[str, str]]:
    """(path, message) for every grid of the wrong size and every dealt card the
    table's deck cannot give."""
    found = [
        (f"deal.grids[{i}]", f"a grid of {size} cards each, not {len(grid)}")
        for i, grid in enumerate(lesson.grids)
        if len(grid) != size
    ]
    places = [
        (f"deal.grids[{i}][{j}]", card)
        for i, grid in enumerate(lesson.grids)
        for j, card in enumerate(grid)
    ]
    places.append(("deal.discard", lesson.discard))
    places += [(f"deal.stock[{k}]", card) for k, card in enumerate(lesson.stock)]
    left = Counter(deck)
    for path, card in places:
        if not deck[card]:
            found.append((path, f"{card} is not a card of the {lesson.table} deck"))
        elif not left[card]:
            found.append((path, f"{card} is dealt more often than the deck holds it"))
        left[card] -= 1
    return found


def rehearse(lesson: Lesson) -> list[Problem]:
    """Play ``lesson`` through with the first accepted action of every step; every
    problem found, by key path (an empty list for a lesson that works)."""
    source = lesson.source

    def problem(path: str, message: str) -> list[Problem]:
        return [Problem(source, path, message)]

    try:
        rules = load_ruleset(lesson.table)
    except (ValueError, OSError) as error:
        return problem("table", str(error).splitlines()[0])
    table = derived(rules)
    dealt = _deal_problems(lesson, Counter(table.cards), table.settings.grid_size)
    if dealt:
        return [Problem(source, path, message) for path, message in dealt]
    try:
        run = LessonRun(lesson)
    except _ScriptError as error:
        return problem(error.path, error.message)
    except (ValueError, TypeError, OSError) as error:
        return problem("deal" if "deck" in str(error) else "table", str(error))
    found: list[Problem] = []
    for i, step in enumerate(lesson.steps):
        if run.round.is_over:
            return problem(f"steps[{i}]", "the round is over before this step")
        for j, action in enumerate(step.accept):
            if not run.round.can_apply(action):
                found += problem(f"steps[{i}].accept[{j}]", f"{action} is not possible here")
        if found:
            return found
        try:
            run.act(step.accept[0])
        except _ScriptError as error:
            return problem(error.path, error.message)
    if run.moves_left:
        first = len(lesson.moves) - run.moves_left
        found += problem(f"moves[{first}]", "never used: the lesson is over before it")
    if lesson.winners:
        result = run.result
        if result is None:
            found += problem("winners", "the lesson does not end the round")
        elif tuple(result.winners) != lesson.winners:
            names = ", ".join(lesson.names[w] for w in result.winners) or "nobody"
            found += problem("winners", f"the round is won by {names}")
    return found
