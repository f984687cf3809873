"""What one player may know: a view built from that player's knowledge and history.

A :class:`PlayerView` is made by :meth:`cambio.Round.view`. Its grids hold a card only
where the viewer legally saw that card and has followed it since (through public moves);
its history holds every event as the viewer saw it. Nothing in a view points back at the
round, so a bot handed a view cannot reach hidden cards; and a view is immutable all the
way down (frozen records, tuples, frozensets, strings and numbers), so nothing a bot
does to a view can change the round or a later view. The history tuple is shared
between the views of one player built while that player's history did not grow, which
keeps building a view cheap.
"""

from __future__ import annotations

import attrs

from .cards import Card
from .events import Event
from .rules import Step
from .scoring import RoundResult

__all__ = ["PlayerView"]


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
    history: tuple[Event, ...]
    """Every event as the viewer saw it, oldest first (an immutable tuple)."""
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
