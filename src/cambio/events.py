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
from typing import NamedTuple, SupportsIndex

from .arguments import whole
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
    """The cards are dealt; ``cards`` holds the card that starts the discard pile (none
    where the deal turns no card face up: ``opening.upcard = false``)."""
    OPENING_PEEK = "opening-peek"
    """A player looks at its opening positions (the cards are seen by that player only)."""
    TURN = "turn"
    """A player's turn begins."""
    DRAW = "draw"
    """A player draws from the stock (the card is seen by the drawer only)."""
    TAKE = "take"
    """A player takes the top discard (a public card)."""
    REPLACE = "replace"
    """The held card goes to a position; ``cards`` holds the card that comes out,
    face up on the discard pile."""
    EXCHANGE = "exchange"
    """Equal cards at ``positions`` are discarded for the drawn card."""
    FAILED_EXCHANGE = "failed-exchange"
    """An exchange of cards that were not equal: they are shown and stay."""
    DISCARD = "discard"
    """The drawn card is discarded face up."""
    POWER = "power"
    """A power starts (``note``: its name; ``cards``: the card that gives it)."""
    PEEK = "peek"
    """A power's peek at ``positions[0]`` (the card is seen by the peeker only)."""
    SWAP = "swap"
    """A power swaps the cards at the two ``positions`` (a seen swap shows them to the
    swapper)."""
    SKIP = "skip"
    """The rest of a power is skipped."""
    SNAP = "snap"
    """A correct snap: the cards at ``positions`` match the top discard and go onto it."""
    WRONG_SNAP = "wrong-snap"
    """A snap that did not match: the cards are shown (to all or to the snapper) and stay."""
    PENALTY = "penalty"
    """A penalty card is dealt to ``positions[0]`` (nobody sees it)."""
    GIVE = "give"
    """After snapping another's card, the snapper gives ``positions[0]`` to ``positions[1]``."""
    CALL = "call"
    """A player calls Cambio (``note`` ``empty grid``: a grid emptied by snapping counts
    as a call)."""
    PASS = "pass"
    """A player ends its turn without calling."""
    RE_PEEK = "re-peek"
    """A player looks again at its opening positions."""
    RECYCLE = "recycle"
    """The discard pile is shuffled into a new stock."""
    END = "end"
    """The round ends (``note``: why: ``call``, ``stock``, ``empty-grid``, ``turn-cap``)."""

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


_new = tuple.__new__  # an Event from its six fields, without the keyword wrapper


class Event(NamedTuple):
    """One thing that happened in a round (an immutable record).

    ``player`` is who acted (-1 for the table itself), ``positions`` the places involved
    as ``(owner, position)``, ``cards`` the cards involved (in the order of positions
    where that applies), ``seen_by`` who saw those cards (``None``: everyone), and
    ``note`` a short free text (a power's name, an ending reason).
    """

    kind: str
    """What happened: an :class:`EventKind` (a match event: a ``MatchEventKind``); both
    are strings."""
    player: int = -1
    """The seat that acted, or -1 for the table itself (the deal, a recycle, the end)."""
    positions: tuple[tuple[int, int], ...] = ()
    """The places involved, as ``(owner seat, position from 1)`` pairs."""
    cards: tuple[Card | None, ...] = ()
    """The cards involved, in the order of ``positions`` where that applies; ``None``
    for a card the viewer did not see (after :meth:`as_seen_by`)."""
    seen_by: frozenset[int] | None = None
    """The seats that saw the cards, or ``None`` when everyone did."""
    note: str = ""
    """A short free text: a power's name, why the round ended, ``seen`` for a seen swap."""

    @property
    def public(self) -> bool:
        """Whether everyone saw the event's cards (``seen_by`` is ``None``)."""
        return self.seen_by is None

    def as_seen_by(self, player: SupportsIndex) -> Event:
        """This event as ``player`` saw it: unseen cards become ``None``."""
        if type(player) is not int:
            player = whole("player", player)
        seen_by = self.seen_by
        if seen_by is None or player in seen_by or not self.cards:
            return self
        kind, who, positions, cards, _, note = self
        return _new(Event, (kind, who, positions, (None,) * len(cards), seen_by, note))

    def __str__(self) -> str:
        who = f"P{self.player} " if self.player >= 0 else ""
        where = " ".join(f"P{o}:{p}" for o, p in self.positions)
        cards = " ".join("??" if c is None else str(c) for c in self.cards)
        parts = [f"{who}{self.kind}", where, f"[{cards}]" if self.cards else "", self.note]
        return " ".join(p for p in parts if p)
