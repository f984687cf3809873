"""Reading a lesson from TOML, with every mistake reported by its key path.

A lesson file holds::

    number = 1
    title = "Replace a card"
    summary = "..."
    table = "practice"                 # a profile name
    names = ["You", "Robin", "Alex"]   # every seat, the learner first
    seed = 1                           # shuffles the cards the deal leaves open
    closing = "..."                    # said when the lesson is over
    winners = ["You"]                  # optional: who wins a round the lesson ends
    moves = ["Robin draw", "Robin replace 3", ...]   # the opponents' moves, in order

    [deal]
    grids = [["QD", "8C", "3S", "5H"], ...]   # each seat's cards, positions from 1
    discard = "9D"                             # starts the discard pile
    stock = ["2D", "6C", "AH"]                 # the next cards drawn, in order

    [[steps]]                          # the learner's steps, in order
    prompt = "..."
    accept = ["draw"]                  # the actions that pass the step
    wrong = "..."                      # said when the learner does anything else
    done = "..."                       # said once the step is passed
    show_own = false                   # show the learner all of their own cards

An action is written ``draw``, ``take``, ``call``, ``discard``, ``skip``, ``pass``,
``replace POS``, ``peek NAME:POS`` or ``swap NAME:POS NAME:POS`` (a seat's name or
number before each colon); a move starts with the name of the seat that makes it.
Loading also plays the lesson through, taking the first accepted action of each step,
so a move or an accepted action the engine would refuse is an error of the file.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from ..actions import Action
from ..cards import Card
from ..errors import Problem
from .model import Lesson, LessonError, Move, Step

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

__all__ = ["lesson_from_toml", "parse_action", "read_lesson"]

_T = TypeVar("_T")

_PLAIN = {
    "draw": Action.draw,
    "take": Action.take,
    "call": Action.call,
    "discard": Action.discard,
    "skip": Action.skip,
    "pass": Action.pass_,
}

_KEYS = {"number", "title", "summary", "table", "names", "seed", "closing", "winners"}
_KEYS |= {"deal", "steps", "moves"}
_STEP_KEYS = {"prompt", "accept", "wrong", "done", "show_own"}
_DEAL_KEYS = {"grids", "discard", "stock"}


def parse_action(text: str, seat: int, names: Sequence[str]) -> Action:
    """The action of ``seat`` that ``text`` writes (see the module's notes).

    Raises ``ValueError`` with a sentence saying what is wrong.

    >>> parse_action("swap You:2 Robin:1", 0, ["You", "Robin"])
    Action(kind=<ActionKind.SWAP: 'swap'>, player=0, positions=((0, 2), (1, 1)))
    """
    words = text.split()
    if not words:
        raise ValueError("an empty action")
    kind, rest = words[0].lower(), words[1:]
    if kind in _PLAIN:
        if rest:
            raise ValueError(f"{kind} takes nothing after it, not {' '.join(rest)!r}")
        return _PLAIN[kind](seat)
    if kind == "replace":
        if len(rest) != 1 or not rest[0].isdigit():
            raise ValueError("replace takes one position, e.g. 'replace 3'")
        return Action.replace(seat, int(rest[0]))
    if kind == "peek":
        if len(rest) != 1:
            raise ValueError("peek takes one place, e.g. 'peek Robin:2'")
        return Action.peek(seat, _place(rest[0], names))
    if kind == "swap":
        if len(rest) != 2:
            raise ValueError("swap takes two places, e.g. 'swap You:2 Robin:1'")
        return Action.swap(seat, _place(rest[0], names), _place(rest[1], names))
    known = ", ".join([*_PLAIN, "replace", "peek", "swap"])
    raise ValueError(f"unknown action {words[0]!r} (expected one of: {known})")


def _place(text: str, names: Sequence[str]) -> tuple[int, int]:
    owner, colon, position = text.partition(":")
    if not colon or not position.isdigit():
        raise ValueError(f"{text!r} is not a place: write NAME:POS, e.g. Robin:2")
    return _seat(owner, names), int(position)


def _seat(text: str, names: Sequence[str]) -> int:
    if text.isdigit() and int(text) < len(names):
        return int(text)
    for seat, name in enumerate(names):
        if name.lower() == text.lower():
            return seat
    raise ValueError(f"no seat is called {text!r} (the seats: {', '.join(names)})")


class _Reader:
    """Collects problems while reading one file's table."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.problems: list[Problem] = []

    def problem(self, path: str, message: str) -> None:
        self.problems.append(Problem(self.source, path, message))

    def get(self, table: dict[str, Any], key: str, kind: type[_T], path: str) -> _T | None:
        where = f"{path}.{key}" if path else key
        if key not in table:
            self.problem(where, "missing")
            return None
        value = table[key]
        if kind is int and type(value) is not int:
            self.problem(where, f"expected a whole number, got {value!r}")
            return None
        if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
            self.problem(where, f"expected {_NAMES.get(kind, kind.__name__)}, got {value!r}")
            return None
        return value

    def unknown(self, table: dict[str, Any], allowed: set[str], path: str) -> None:
        from ..errors import did_you_mean

        for key in table:
            if key not in allowed:
                hint = did_you_mean(key, allowed)
                where = f"{path}.{key}" if path else key
                self.problem(where, "unknown key" + (f"; {hint}" if hint else ""))

    def each(
        self, items: object, path: str, read: Callable[[object, str], _T | None]
    ) -> list[_T | None]:
        if not isinstance(items, list):
            self.problem(path, f"expected a list, got {items!r}")
            return []
        return [read(item, f"{path}[{i}]") for i, item in enumerate(items)]

    def card(self, value: object, path: str) -> Card | None:
        if not isinstance(value, str):
            self.problem(path, f"expected a card such as 'QD', got {value!r}")
            return None
        try:
            return Card.parse(value)
        except ValueError as error:
            self.problem(path, str(error))
            return None


_NAMES = {str: "text", bool: "true or false", list: "a list", dict: "a table"}


def lesson_from_toml(text: str, source: str = "") -> Lesson:
    """A lesson from the text of its TOML file; :class:`LessonError` lists what is wrong."""
    try:
        data = tomllib.loads(text.removeprefix("\ufeff"))
    except tomllib.TOMLDecodeError as error:
        raise LessonError([Problem(source, "", f"not TOML: {error}")]) from None
    reader = _Reader(source)
    reader.unknown(data, _KEYS, "")
    number = reader.get(data, "number", int, "")
    title = reader.get(data, "title", str, "")
    summary = reader.get(data, "summary", str, "")
    table = reader.get(data, "table", str, "")
    seed = reader.get(data, "seed", int, "")
    closing = data.get("closing", "")
    if not isinstance(closing, str):
        reader.problem("closing", f"expected text, got {closing!r}")
        closing = ""
    raw_names = reader.get(data, "names", list, "") or []
    names = [n for n in raw_names if isinstance(n, str) and n.strip()]
    if len(names) != len(raw_names) or len(set(names)) != len(names) or len(names) < 2:
        reader.problem("names", "expected two or more different names, the learner's first")
    deal = reader.get(data, "deal", dict, "") or {}
    reader.unknown(deal, _DEAL_KEYS, "deal")
    grids: list[tuple[Card, ...]] = []
    for i, grid in enumerate(reader.each(deal.get("grids", []), "deal.grids", _as_list)):
        cards = reader.each(grid or [], f"deal.grids[{i}]", reader.card)
        grids.append(tuple(c for c in cards if c is not None))
    if len(grids) != len(names):
        reader.problem("deal.grids", f"expected one grid per seat ({len(names)}), got {len(grids)}")
    discard = reader.card(deal.get("discard"), "deal.discard")
    stock = [c for c in reader.each(deal.get("stock", []), "deal.stock", reader.card) if c]
    steps = [s for s in reader.each(data.get("steps"), "steps", _step(reader, names)) if s]
    if not steps and "steps" in data:
        reader.problem("steps", "a lesson needs at least one step")
    moves = [m for m in reader.each(data.get("moves", []), "moves", _move(reader, names)) if m]
    winners: list[int] = []
    for i, who in enumerate(data.get("winners", [])):
        try:
            winners.append(_seat(str(who), names))
        except ValueError as error:
            reader.problem(f"winners[{i}]", str(error))
    if reader.problems or None in (number, title, summary, table, seed, discard):
        raise LessonError(reader.problems or [Problem(source, "", "incomplete lesson")])
    assert number is not None and title is not None and summary is not None
    assert table is not None and seed is not None and discard is not None
    lesson = Lesson(
        number=number,
        title=title,
        summary=summary,
        table=table,
        names=tuple(names),
        seed=seed,
        grids=tuple(grids),
        discard=discard,
        stock=tuple(stock),
        steps=tuple(steps),
        moves=tuple(moves),
        closing=closing,
        winners=tuple(winners),
        source=source,
    )
    from .run import rehearse

    problems = rehearse(lesson)
    if problems:
        raise LessonError(problems)
    return lesson


def _as_list(value: object, path: str) -> list[object] | None:
    return value if isinstance(value, list) else None


def _step(reader: _Reader, names: Sequence[str]) -> Callable[[object, str], Step | None]:
    def read(value: object, path: str) -> Step | None:
        if not isinstance(value, dict):
            reader.problem(path, f"expected a table, got {value!r}")
            return None
        reader.unknown(value, _STEP_KEYS, path)
        prompt = reader.get(value, "prompt", str, path)
        wrong = reader.get(value, "wrong", str, path)
        done = value.get("done", "")
        show_own = value.get("show_own", False)
        if not isinstance(done, str):
            reader.problem(f"{path}.done", f"expected text, got {done!r}")
        if not isinstance(show_own, bool):
            reader.problem(f"{path}.show_own", f"expected true or false, got {show_own!r}")
        accept: list[Action] = []
        texts = reader.get(value, "accept", list, path) or []
        for i, text in enumerate(texts):
            try:
                accept.append(parse_action(str(text), 0, names))
            except ValueError as error:
                reader.problem(f"{path}.accept[{i}]", str(error))
        if not texts and "accept" in value:
            reader.problem(f"{path}.accept", "a step accepts at least one action")
        if prompt is None or wrong is None or not accept:
            return None
        return Step(
            prompt=prompt,
            accept=tuple(accept),
            wrong=wrong,
            done=done if isinstance(done, str) else "",
            show_own=show_own is True,
        )

    return read


def _move(reader: _Reader, names: Sequence[str]) -> Callable[[object, str], Move | None]:
    def read(value: object, path: str) -> Move | None:
        if not isinstance(value, str) or not value.split():
            reader.problem(path, f"expected a move such as 'Robin draw', got {value!r}")
            return None
        who, _, rest = value.strip().partition(" ")
        try:
            seat = _seat(who, names)
            if seat == 0:
                raise ValueError(f"{who} is the learner: the learner's actions are steps")
            return Move(parse_action(rest, seat, names))
        except ValueError as error:
            reader.problem(path, str(error))
            return None

    return read


def read_lesson(path: str | Path) -> Lesson:
    """A lesson from a TOML file (``OSError`` when it cannot be read)."""
    file = Path(path)
    return lesson_from_toml(file.read_text(encoding="utf-8"), str(file))
