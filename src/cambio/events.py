"""Events: what happened, with who saw the cards involved.

Every event is public in the sense that all players know it happened and where; the
*cards* it carries are seen only by the players in ``seen_by`` (``None``: everyone).
:meth:`Event.as_seen_by` gives the event as one player saw it, with the cards that
player did not see replaced by ``None``.

>>> from cambio.cards import Card
>>> e = Event("draw", 1, cards=(Card("7", "S"),), seen_by=frozenset({1}))
>>> e.as_seen_by(0).cards
(None,)
>>> e.as_seen_by(1).cards
(Card(rank='7', suit='S'),)
"""

from __future__ import annotations

import enum
from typing import NamedTuple

from .cards import Card

__all__ = ["Event", "EventKind"]


class EventKind(str, enum.Enum):
    """What an event records: an enum like :class:`~cambio.actions.ActionKind`.

    Each member is also its string (``EventKind.DRAW == "draw"``), so code that compares
    an event's kind with the plain text still works, and logs and saves stay readable.

    >>> EventKind.WRONG_SNAP == "wrong-snap", str(EventKind.WRONG_SNAP)
    (True, 'wrong-snap')
    >>> EventKind("draw") is EventKind.DRAW
    True
    """

    DEAL = "deal"
    OPENING_PEEK = "opening-peek"
    TURN = "turn"
    DRAW = "draw"
    TAKE = "take"
    REPLACE = "replace"
    EXCHANGE = "exchange"
    FAILED_EXCHANGE = "failed-exchange"
    DISCARD = "discard"
    POWER = "power"
    PEEK = "peek"
    SWAP = "swap"
    SKIP = "skip"
    SNAP = "snap"
    WRONG_SNAP = "wrong-snap"
    PENALTY = "penalty"
    GIVE = "give"
    CALL = "call"
    PASS = "pass"
    RE_PEEK = "re-peek"
    RECYCLE = "recycle"
    END = "end"

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


class Event(NamedTuple):
    """One thing that happened in a round (an immutable record).

    ``player`` is who acted (-1 for the table itself), ``positions`` the places involved
    as ``(owner, position)``, ``cards`` the cards involved (in the order of positions
    where that applies), ``seen_by`` who saw those cards (``None``: everyone), and
    ``note`` a short free text (a power's name, an ending reason).
    """

    kind: str
    """An :class:`EventKind` (a match event: a ``MatchEventKind``); both are strings."""
    player: int = -1
    positions: tuple[tuple[int, int], ...] = ()
    cards: tuple[Card | None, ...] = ()
    seen_by: frozenset[int] | None = None
    note: str = ""

    @property
    def public(self) -> bool:
        return self.seen_by is None

    def as_seen_by(self, player: int) -> Event:
        """This event as ``player`` saw it: unseen cards become ``None``."""
        if self.seen_by is None or player in self.seen_by or not self.cards:
            return self
        return self._replace(cards=(None,) * len(self.cards))

    def __str__(self) -> str:
        who = f"P{self.player} " if self.player >= 0 else ""
        where = " ".join(f"P{o}:{p}" for o, p in self.positions)
        cards = " ".join("??" if c is None else str(c) for c in self.cards)
        parts = [f"{who}{self.kind}", where, f"[{cards}]" if self.cards else "", self.note]
        return " ".join(p for p in parts if p)
