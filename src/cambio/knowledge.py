"""Who has seen the card at each place, as one player can tell from the public record.

Every event says publicly *where* it happened and *who* saw its cards, even when the
cards themselves are hidden. Following those events from the deal tells a player, for
every position on the table, which players have looked at the card lying there now:
what an opponent knows of my grid is public knowledge, though the cards are not.

>>> import cambio
>>> r = cambio.Round("practice", 2, seed=3)
>>> seen_by(r.view(0).history, players=2, positions=8)[0][2:4]
(1, 1)
"""

from __future__ import annotations

from collections.abc import Iterable

from .events import Event, EventKind

__all__ = ["SeenBy", "seen_by"]


def seen_by(
    history: Iterable[Event], *, players: int, positions: int
) -> tuple[tuple[int, ...], ...]:
    """For each owner and position, a bit mask of the players who saw the card there now.

    ``history`` is a player's history (events as that player saw them); only the
    public part of each event is read (kinds, actors, positions and who saw the cards),
    so the answer is the same for every viewer of the same round.
    """
    fold = SeenBy(players, positions)
    fold.feed(history)
    return fold.masks()


class SeenBy:
    """The fold behind :func:`seen_by`, fed one event at a time.

    A history only grows, so a caller that keeps one of these per history feeds it only
    the new events (the encoder does, which keeps encoding a long round linear).

    >>> import cambio
    >>> r = cambio.Round("practice", 2, seed=3)
    >>> fold = SeenBy(2, 8)
    >>> fold.feed(r.view(0).history)
    >>> fold.masks() == seen_by(r.view(0).history, players=2, positions=8)
    True
    """

    def __init__(self, players: int, positions: int) -> None:
        self.players = players
        self.positions = positions
        self.everyone = (1 << players) - 1
        self._masks = [[0] * positions for _ in range(players)]
        self._held = 0  # who has seen the card in the current player's hand

    def copy(self) -> SeenBy:
        """An independent copy."""
        new = SeenBy(self.players, self.positions)
        new._masks = [row[:] for row in self._masks]
        new._held = self._held
        return new

    def masks(self) -> tuple[tuple[int, ...], ...]:
        """For each owner and position, the bit mask of the players who saw the card there."""
        return tuple(tuple(row) for row in self._masks)

    def _slot(self, pos: tuple[int, int]) -> tuple[int, int] | None:
        owner, position = pos
        if 0 <= owner < self.players and 1 <= position <= self.positions:
            return owner, position - 1
        return None

    def feed(self, events: Iterable[Event]) -> None:
        """Follow ``events`` (the next ones of the history)."""
        everyone = self.everyone
        masks = self._masks
        held = self._held
        for event in events:
            kind = event.kind
            p = event.player
            bit = (1 << p) if p >= 0 else 0
            cards_seen_by = everyone if event.seen_by is None else _bits(event.seen_by)
            places = [s for s in map(self._slot, event.positions) if s is not None]
            if kind in (EventKind.OPENING_PEEK, EventKind.RE_PEEK, EventKind.PEEK):
                for o, i in places:
                    masks[o][i] |= cards_seen_by
            elif kind == EventKind.DRAW:
                held = cards_seen_by
            elif kind == EventKind.TAKE:
                held = everyone
            elif kind == EventKind.REPLACE:
                for o, i in places:
                    masks[o][i] = held
                held = 0
            elif kind == EventKind.DISCARD:
                held = 0
            elif kind == EventKind.EXCHANGE:
                for k, (o, i) in enumerate(places):
                    masks[o][i] = held if k == 0 else 0
                held = 0
            elif kind == EventKind.FAILED_EXCHANGE:
                for o, i in places:
                    masks[o][i] = everyone  # every card involved is shown to all
                held = 0
            elif kind == EventKind.SWAP:
                if len(places) == 2:
                    (oa, ia), (ob, ib) = places
                    masks[oa][ia], masks[ob][ib] = masks[ob][ib], masks[oa][ia]
                    if event.note == "seen":
                        masks[oa][ia] |= bit
                        masks[ob][ib] |= bit
            elif kind == EventKind.SNAP:
                for o, i in places:
                    masks[o][i] = 0
            elif kind == EventKind.WRONG_SNAP:
                for o, i in places:
                    masks[o][i] |= cards_seen_by
            elif kind == EventKind.PENALTY:
                for o, i in places:
                    masks[o][i] = 0
            elif kind == EventKind.GIVE and len(places) == 2:
                (og, ig), (ot, it) = places
                masks[ot][it] = masks[og][ig]
                masks[og][ig] = 0
        self._held = held


def _bits(players: Iterable[int]) -> int:
    mask = 0
    for p in players:
        mask |= 1 << p
    return mask
