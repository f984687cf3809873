"""What one player may know: a view built from that player's knowledge and history.

A :class:`PlayerView` is made by :meth:`cambio.Round.view`. Its grids hold a card only
where the viewer legally saw that card and has followed it since (through public moves);
its history holds every event as the viewer saw it. Nothing in a view points back at the
round, so a bot handed a view cannot reach hidden cards.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import overload

import attrs

from .cards import Card
from .events import Event
from .rules import Step
from .scoring import RoundResult

__all__ = ["History", "PlayerView"]


class History(Sequence[Event]):
    """A player's event history at one moment: a read-only, fixed-length sequence.

    It shares the player's own history list (events already redacted to what that
    player saw, so it holds nothing hidden) instead of copying it, which keeps building
    a view cheap; later events never show through, as the length is fixed.
    """

    __slots__ = ("_events", "_length")

    def __init__(self, events: Sequence[Event], length: int | None = None) -> None:
        self._events = events
        self._length = len(events) if length is None else length

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> Event: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Event, ...]: ...

    def __getitem__(self, index: int | slice) -> Event | tuple[Event, ...]:
        if isinstance(index, slice):
            return tuple(self._events[: self._length][index])
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError("history index out of range")
        return self._events[index]

    def __iter__(self) -> Iterator[Event]:
        events = self._events
        for i in range(self._length):
            yield events[i]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str):
            return len(other) == self._length and all(
                a == b for a, b in zip(self, other, strict=True)
            )
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"History({list(self)!r})"


@attrs.frozen(slots=True)
class PlayerView:
    """One player's legal knowledge of a round at one moment.

    ``grids[owner][i]`` is the card at ``owner``'s position ``i + 1`` when the viewer
    knows it, else ``None``; ``present[owner][i]`` says whether a card lies there at all.
    Positions past ``grid_size`` hold penalty or extra cards.
    """

    player: int
    players: int
    grid_size: int
    phase: str
    current: int
    to_act: int | None
    caller: int | None
    grids: tuple[tuple[Card | None, ...], ...]
    present: tuple[tuple[bool, ...], ...]
    discard: tuple[Card, ...]
    stock_size: int
    holding: Card | None
    """The card the current player holds (drawn or taken), if this viewer saw it."""
    holding_from_stock: bool | None
    power: str | None
    power_step: Step | None
    peeked: tuple[tuple[int, int], ...]
    window_open: bool
    opening_positions: tuple[int, ...]
    re_peek_used: bool
    turns: tuple[int, ...]
    history: Sequence[Event]
    result: RoundResult | None

    @property
    def top_discard(self) -> Card | None:
        return self.discard[-1] if self.discard else None

    @property
    def own(self) -> tuple[Card | None, ...]:
        """The viewer's own positions as the viewer knows them."""
        return self.grids[self.player]

    def positions_of(self, owner: int) -> list[int]:
        """Positions (from 1) of ``owner`` that hold a card."""
        return [i + 1 for i, here in enumerate(self.present[owner]) if here]

    def known(self, owner: int, position: int) -> Card | None:
        """The card at ``owner``'s ``position`` if the viewer knows it."""
        return self.grids[owner][position - 1]
