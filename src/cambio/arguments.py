"""The checks of the plain values people pass to the public functions of the engine.

A public function of the engine takes whole numbers, flags, numbers and text from its
caller, who may pass anything. Each such argument is checked here, by the function's
own code, so a wrong one is refused with the same error and the same message in both
builds of the library: the pure-Python one and the compiled one (``CAMBIO_COMPILE=1``),
whose functions would otherwise refuse a wrongly typed argument with mypyc's own words
before the function's body runs.

To keep that check ours, a parameter is annotated with a type mypyc leaves unchecked
while a type checker still sees the precise type:

- whole numbers (seats, counts, seeds) as :class:`typing.SupportsIndex`: ``int`` and
  the integer types of numpy alike (a learner's ``numpy.int64`` seat works);
- other values as :data:`Arg` ``[T]``, which a type checker reads as ``T``.

``bool`` is refused wherever a whole number is wanted (``True`` is not a seat), and a
whole number is refused wherever a flag is wanted.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from typing import Protocol, SupportsFloat, SupportsIndex, TypeAlias, TypeVar

__all__ = [
    "Arg",
    "CheckedAtRunTime",
    "flag",
    "items",
    "number",
    "optional_whole",
    "text",
    "whole",
]

T = TypeVar("T")


class CheckedAtRunTime(Protocol):
    """No value has this method: ``T | CheckedAtRunTime`` accepts exactly the ``T``
    values to a type checker, and any value at run time (mypyc checks no protocol), where
    the function's own check refuses a wrong one."""

    def __cambio_checked_at_run_time__(self) -> None: ...


Arg: TypeAlias = T | CheckedAtRunTime
"""``Arg[bool]``: a parameter typed ``bool`` for the type checker, checked by the
function's own code at run time (see the module's text)."""


def whole(name: str, value: object) -> int:
    """``value`` as an ``int``; a ``TypeError`` naming ``name`` for a bool, a float, a
    text or anything else that is not a whole number."""
    if type(value) is int:
        return value
    if isinstance(value, SupportsIndex) and not isinstance(value, bool):
        return operator.index(value)
    raise TypeError(f"{name} must be a whole number, got {value!r}")


def optional_whole(name: str, value: object) -> int | None:
    """:func:`whole`, or ``None`` for ``None``."""
    return None if value is None else whole(name, value)


def flag(name: str, value: object) -> bool:
    """``value`` when it is ``True`` or ``False``; a ``TypeError`` naming ``name``
    otherwise (``1`` and ``"yes"`` are not flags)."""
    if value is True or value is False:
        return value
    raise TypeError(f"{name} must be True or False, got {value!r}")


def number(name: str, value: object) -> float:
    """``value`` as a ``float`` when it is a real number (an ``int``, a ``float``, or
    a numpy number); a ``TypeError`` naming ``name`` for a bool, a text or anything else."""
    if type(value) is float:
        return value
    if not isinstance(value, (bool, str, bytes, bytearray)):
        if isinstance(value, SupportsFloat):
            return float(value)
        if isinstance(value, SupportsIndex):
            return float(operator.index(value))
    raise TypeError(f"{name} must be a number, got {value!r}")


def items(name: str, value: object, what: str) -> list[object]:
    """``value``'s items as a list when it is a list, a tuple or another iterable that
    is no text; a ``TypeError`` naming ``name`` (``what`` it should hold) otherwise."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise TypeError(f"{name} must be a list of {what}, got {value!r}")
    return list(value)


def text(name: str, value: object) -> str:
    """``value`` when it is a ``str``; a ``TypeError`` naming ``name`` otherwise."""
    if isinstance(value, str):
        return value
    raise TypeError(f"{name} must be text, got {value!r}")
