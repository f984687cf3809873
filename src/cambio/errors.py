"""Errors by cause: a bad rule table, or a move the rules do not allow."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

import attrs

__all__ = [
    "BotError",
    "IllegalActionError",
    "PositionError",
    "Problem",
    "RuleSetError",
    "SaveError",
]


@attrs.frozen
class Problem:
    """One thing wrong with a rule table: where (file, dotted key path) and what."""

    source: str
    """The file (or other source) of the table, ``""`` when unknown."""
    path: str
    """The dotted key path of the mistake, such as ``snap.when`` (``""`` for the whole
    table)."""
    message: str
    """What is wrong there."""

    def __str__(self) -> str:
        where = f"{self.source}: " if self.source else ""
        path = f"{self.path}: " if self.path else ""
        return f"{where}{path}{self.message}"


class RuleSetError(ValueError):
    """A rule table that cannot be loaded; ``problems`` lists every mistake found.

    ``str(error)`` is one line per problem, ``FILE: key.path: message``.
    """

    problems: tuple[Problem, ...]
    """Every mistake found, in the order they were found."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems = tuple(problems)
        super().__init__("\n".join(str(p) for p in self.problems) or "invalid rule table")


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """``"did you mean X?"`` naming the candidate closest to ``word`` (by
    :func:`difflib.get_close_matches`; up to three when they are about as close), or
    ``""`` when none is close.

    Every "unknown name" error of the library (a rank, a rule key, a table, a bot, a
    command option) ends with it, so that a misspelling points at the name meant.

    >>> did_you_mean("Jocker", ["A", "K", "Joker"])
    'did you mean Joker?'
    >>> did_you_mean("zzz", ["A", "K", "Joker"])
    ''
    """
    known = [c for c in dict.fromkeys(candidates) if c != word]
    matches = difflib.get_close_matches(word, known, n=3)
    if not matches:
        return ""

    def closeness(candidate: str) -> float:
        return difflib.SequenceMatcher(None, word, candidate).ratio()

    best = closeness(matches[0])
    matches = [m for m in matches if closeness(m) >= best - 0.1]
    if len(matches) == 1:
        return f"did you mean {matches[0]}?"
    return f"did you mean {', '.join(matches[:-1])} or {matches[-1]}?"


class IllegalActionError(ValueError):
    """An action the rules do not allow now; the round is left exactly as it was."""

    action: object
    """The action as it was given (an :class:`~cambio.actions.Action`, an id, or
    whatever else was passed)."""
    reason: str
    """Why it is not allowed now."""

    def __init__(self, action: object, reason: str) -> None:
        self.action = action
        self.reason = reason
        try:
            shown = str(action)
        except Exception:  # a malformed action may not even print
            shown = repr(action)
        super().__init__(f"illegal action {shown}: {reason}")


class BotError(RuntimeError):
    """A bot answered with an action it was not offered (see :func:`cambio.bots.play_round`).

    It lives here rather than in :mod:`cambio.bots` because the compiled build compiles
    the bot driver, and mypyc cannot compile a subclass of a builtin exception.
    """


class SaveError(ValueError):
    """A saved round or match (or a written position) that cannot be loaded.

    ``path`` says where the first problem is: a JSON path such as
    ``$.snapshot.grids[1][2]`` for a save; ``message`` says what is wrong there.
    ``str(error)`` is ``PATH: MESSAGE``. Loading never returns a half-checked object:
    it gives back a consistent round or raises this error.
    """

    path: str
    """Where the first problem is (a JSON path such as ``$.snapshot.grids[1][2]``)."""
    message: str
    """What is wrong there."""

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        self.message = message
        super().__init__(f"{path}: {message}" if path else message)


class PositionError(SaveError):
    """A written position that cannot be read, or that no round could be in.

    ``column`` (1-based) is where in the line the problem is; ``path`` is
    ``column N`` and ``message`` says what was expected there.
    """

    column: int
    """Where in the line the problem is, from 1."""

    def __init__(self, column: int, message: str) -> None:
        self.column = column
        super().__init__(f"column {column}", message)
