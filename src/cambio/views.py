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

from typing import SupportsIndex

import attrs

from .arguments import whole
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
    """The viewer's seat (from 0): whose knowledge this view holds."""
    players: int
    """How many seats the round has."""
    grid_size: int
    """Positions in a dealt grid (4 on most tables); positions past it hold penalty or
    extra cards."""
    phase: str
    """Where the round stands, a :class:`~cambio.round.Phase` name in lower case:
    ``opening``, ``turn``, ``drawn``, ``taken``, ``power``, ``end_of_turn``, ``give`` or
    ``over``. Another player's private draw whose power is not yet announced shows as
    ``drawn``."""
    current: int
    """The seat whose turn it is."""
    to_act: int | None
    """The seat whose decision moves the round on (``None`` once the round is over); it
    differs from ``current`` in the opening peek and after a snap that owes a card."""
    caller: int | None
    """The seat that called Cambio, or ``None`` before anybody has."""
    grids: tuple[tuple[Card | None, ...], ...]
    """``grids[owner][i]`` is the card at ``owner``'s position ``i + 1`` when the viewer
    legally knows it (saw it and followed it through public moves since), else
    ``None``. The viewer's own positions are ``grids[player]`` (also :attr:`own`)."""
    present: tuple[tuple[bool, ...], ...]
    """``present[owner][i]``: whether a card lies at ``owner``'s position ``i + 1`` at
    all (snapped-away positions are empty; penalty cards add positions)."""
    discard: tuple[Card, ...]
    """The discard pile, bottom first: every card in it is face up (see
    :attr:`top_discard`)."""
    stock_size: int
    """How many cards are left in the stock (their faces are never in a view)."""
    holding: Card | None
    """The card the current player holds (drawn or taken), if this viewer saw it."""
    holding_from_stock: bool | None
    """Whether the held card was drawn from the stock (``True``) or taken from the
    discard pile (``False``); ``None`` when nobody holds a card."""
    power: str | None
    """The name of the power being used (``None`` outside one, and while another player
    uses the power of a card this viewer has not seen: its steps are seen as they are
    taken, never which power it is)."""
    power_step: Step | None
    """The step of the power waiting for a decision now (a peek or a swap, with its
    scope), or ``None`` (also where :attr:`power` is hidden)."""
    peeked: tuple[tuple[int, int], ...]
    """The ``(owner, position)`` places peeked at so far in the current power (a
    peek-then-swap power swaps among them)."""
    window_open: bool
    """Whether the top discard may be snapped now."""
    opening_positions: tuple[int, ...]
    """The viewer's positions looked at in the opening peek (what a re-peek shows again)."""
    re_peek_used: bool
    """Whether the viewer has used the table's once-per-round re-peek."""
    turns: tuple[int, ...]
    """``turns[seat]``: how many turns each seat has completed this round."""
    history: tuple[Event, ...]
    """Every event of the round so far as the viewer saw it, oldest first (cards the
    viewer did not see are ``None``): an immutable tuple."""
    result: RoundResult | None
    """The round's result once it is over (every card is then public), else ``None``."""

    @property
    def top_discard(self) -> Card | None:
        """The card on top of the discard pile (``None`` when the pile is empty)."""
        return self.discard[-1] if self.discard else None

    @property
    def own(self) -> tuple[Card | None, ...]:
        """The viewer's own positions as the viewer knows them."""
        return self.grids[self.player]

    def positions_of(self, owner: SupportsIndex) -> list[int]:
        """Positions (from 1) of ``owner`` that hold a card."""
        owner = self._seat(owner)
        return [i + 1 for i, here in enumerate(self.present[owner]) if here]

    def known(self, owner: SupportsIndex, position: SupportsIndex) -> Card | None:
        """The card at ``owner``'s ``position`` if the viewer knows it."""
        row = self.grids[self._seat(owner)]
        index = whole("position", position)
        if not 1 <= index <= len(row):
            raise ValueError(f"position must be from 1 to {len(row)}, got {index}")
        return row[index - 1]

    def _seat(self, owner: object) -> int:
        seat = whole("owner", owner)
        if not 0 <= seat < len(self.grids):
            raise ValueError(f"there is no player {seat}")
        return seat
