"""What the players at a table are called: a name per seat, for people to read.

A bot's seat is called after :data:`BOT_PERSON_NAMES`, in seat order (the first bot is
Robin, the second Alex, ...); a person's seat is ``Player N`` (N counts from 1) until
that person chooses a name. Names are for display only: no rule and no bot reads them.

>>> default_names(3, {1: "memory", 2: "random"})
['Player 1', 'Robin', 'Alex']
>>> clean_name("  Ana   María ")
'Ana María'
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping

__all__ = ["BOT_PERSON_NAMES", "MAX_NAME_LENGTH", "clean_name", "default_names"]

BOT_PERSON_NAMES = (
    "Robin",
    "Alex",
    "Sam",
    "Jo",
    "Kit",
    "Max",
    "Lee",
    "Ash",
    "Ray",
    "Noa",
)
"""The names bots sit under, in the order of their seats (numbered after the tenth)."""

MAX_NAME_LENGTH = 24
"""The longest name a seat may carry, in characters."""


def default_names(players: int, bots: Mapping[int, str]) -> list[str]:
    """The name of every seat before anyone chooses one."""
    out: list[str] = []
    met = 0
    for seat in range(players):
        if seat in bots:
            base = BOT_PERSON_NAMES[met % len(BOT_PERSON_NAMES)]
            lap = met // len(BOT_PERSON_NAMES)
            out.append(base if lap == 0 else f"{base} {lap + 1}")
            met += 1
        else:
            out.append(f"Player {seat + 1}")
    return out


def clean_name(text: object) -> str:
    """``text`` as a seat's name: spaces collapsed, 1 to :data:`MAX_NAME_LENGTH`
    characters, no control characters; ``ValueError`` saying what is wrong otherwise."""
    if not isinstance(text, str):
        raise ValueError("a name must be text")
    name = " ".join(text.split())
    if not name:
        raise ValueError("a name needs at least one letter")
    if len(name) > MAX_NAME_LENGTH:
        raise ValueError(f"a name may have at most {MAX_NAME_LENGTH} characters")
    if any(unicodedata.category(ch).startswith("C") for ch in name):
        raise ValueError("a name may not hold control characters")
    return name
