"""What one player may know: a view built from that player's knowledge and history.

A :class:`PlayerView` is made by :meth:`cambio.Round.view`. Its grids hold a card only
where the viewer legally saw that card and has followed it since (through public moves);
its history holds every event as the viewer saw it. Nothing in a view points back at the
round, so a bot handed a view cannot reach hidden cards; and a view is immutable all the
way down (frozen records, tuples, frozensets, strings and numbers), so nothing a bot
does to a view can change the round or a later view.

Views are built incrementally, per player: a player's history tuple grows only by the
events since that player's last view, the discard pile's tuple is extended when the
pile only grew, and a :class:`GridCache` keeps each player's grids as its last view
showed them, rebuilding only the rows of the owners that the events since then name.
Views of one player share every part that did not change. ``tests/test_caches.py``
checks after every action of random rounds, on every bundled and on generated tables,
that each player's incremental view equals one built from scratch.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import TYPE_CHECKING, SupportsIndex

import attrs

from .arguments import whole
from .cards import Card
from .events import Event
from .rules import Step
from .scoring import RoundResult

if TYPE_CHECKING:
    from _typeshed import IdentityFunction

try:  # mypyc reads the decorator at compile time; without mypy it does nothing
    from mypy_extensions import mypyc_attr
except ImportError:  # pragma: no cover - the pure build without mypy installed

    def mypyc_attr(*attrs: str, **kwattrs: object) -> IdentityFunction:
        return lambda cls: cls


__all__ = ["PlayerView"]


@mypyc_attr(native_class=False)
class _ViewFields:
    """The storage of a :class:`PlayerView`: its fields as slots, in field order.

    :meth:`Round.view <cambio.round.Round.view>` builds a view as one of these and then
    makes it a :class:`PlayerView` (``view.__class__ = PlayerView``: the same layout,
    since ``PlayerView`` adds no slot of its own). A frozen attrs class stores each
    field through ``object.__setattr__``, 22 calls a view and a fifth of its cost; these
    plain stores are the interpreter's fastest. Once it is a ``PlayerView`` the object
    is frozen like any other (``tests/test_view_immutable.py`` attacks such views), and
    equal to one built by ``PlayerView(...)`` (``tests/test_caches.py``).
    """

    __slots__ = (  # noqa: RUF023 - PlayerView's fields, in its order
        "player",
        "players",
        "grid_size",
        "phase",
        "current",
        "to_act",
        "caller",
        "grids",
        "present",
        "discard",
        "stock_size",
        "holding",
        "holding_from_stock",
        "power",
        "power_step",
        "peeked",
        "window_open",
        "opening_positions",
        "re_peek_used",
        "turns",
        "history",
        "result",
        "__weakref__",
    )

    def __init__(
        self,
        player: int,
        players: int,
        grid_size: int,
        phase: str,
        current: int,
        to_act: int | None,
        caller: int | None,
        grids: tuple[tuple[Card | None, ...], ...],
        present: tuple[tuple[bool, ...], ...],
        discard: tuple[Card, ...],
        stock_size: int,
        holding: Card | None,
        holding_from_stock: bool | None,
        power: str | None,
        power_step: Step | None,
        peeked: tuple[tuple[int, int], ...],
        window_open: bool,
        opening_positions: tuple[int, ...],
        re_peek_used: bool,
        turns: tuple[int, ...],
        history: tuple[Event, ...],
        result: RoundResult | None,
    ) -> None:
        self.player = player
        self.players = players
        self.grid_size = grid_size
        self.phase = phase
        self.current = current
        self.to_act = to_act
        self.caller = caller
        self.grids = grids
        self.present = present
        self.discard = discard
        self.stock_size = stock_size
        self.holding = holding
        self.holding_from_stock = holding_from_stock
        self.power = power
        self.power_step = power_step
        self.peeked = peeked
        self.window_open = window_open
        self.opening_positions = opening_positions
        self.re_peek_used = re_peek_used
        self.turns = turns
        self.history = history
        self.result = result


@attrs.frozen(slots=True)
class PlayerView(_ViewFields):
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


Grid = tuple[tuple[Card | None, ...], ...]
"""A player's grids as its view shows them (:attr:`PlayerView.grids`)."""


class GridCache:
    """Each player's grids as that player's last view showed them, for one round.

    A round owns one: it is built over the round's event log, grids (card indices by
    owner and position, -1 for an empty position), knowledge masks (per card, the
    players who know it) and deck, and serves only a round that holds those very
    objects (:meth:`serves`); a copy, a loaded save or a determinized round holds
    others, so it builds a cache of its own instead of reading a stale one.

    Every change to what a player knows of a grid position, or to the card lying there,
    comes with an event that names the position (a peek, a replace, a swap, a snap, a
    penalty card, a give, an exchange), or is the end of the round, which shows every
    card. So only the positions named by the events logged since that player's last
    view are read again (every position once the round is over); a row is copied only
    where one of its cards changed, and the other rows (another player's unseen card
    replaced leaves a row as it was), and the whole tuple when no row changed, are
    shared with the last view. ``tests/test_caches.py`` compares these grids with grids
    built from scratch after every action of random rounds on every bundled and on
    generated tables.

    A round's view calls :meth:`refresh`, which brings a player's grids and history up
    to date in one pass over the events since that player's last view. Where the two
    stopped at different points (a copied, loaded or determinized round), :meth:`grids_of`
    and :meth:`history` do it apart; the latter takes the events since the history's end
    as one slice of the log and replaces only the private ones the player did not see,
    found in a list of the private events' indices that reads each logged event once for
    every player (:meth:`_scan`).
    """

    def __init__(
        self,
        events: list[Event],
        slots: list[list[int]],
        known: list[int],
        deck: tuple[Card, ...],
        players: int,
    ) -> None:
        self.events = events
        self.slots = slots
        self.known = known
        self.deck = deck
        # per player: how many events the cached grids have followed (-1: none built)
        self.upto: list[int] = [-1] * players
        self.grids: list[Grid] = [() for _ in range(players)]
        # event index -> the event as a player who did not see its cards sees it (the
        # same for every such player, so made once)
        self.hidden: dict[int, Event] = {}
        # how many events _scan has read, and the indices of those whose cards only
        # some players saw (ascending)
        self.scanned = 0
        self.private: list[int] = []

    def __reduce__(self) -> tuple[object, ...]:
        # pickle and deepcopy (a compiled class has no __dict__ to copy): the memo keeps
        # the round's lists shared with the round, so the cache still serves it
        return (
            _grid_cache,
            (
                self.events,
                self.slots,
                self.known,
                self.deck,
                self.upto[:],
                self.grids[:],
                dict(self.hidden),
            ),
        )

    def serves(
        self, events: list[Event], slots: list[list[int]], known: list[int], deck: tuple[Card, ...]
    ) -> bool:
        """Whether this cache was built over these very objects (identity, not equality)."""
        return (
            self.events is events
            and self.slots is slots
            and self.known is known
            and self.deck is deck
        )

    def _scan(self) -> None:
        """Read the events logged since the last scan: which of them only some players
        saw (each event is read once, not per player)."""
        events = self.events
        m = len(events)
        j = self.scanned
        if j > m:
            # a log that shrank (nothing the engine does): read it all again
            j = 0
            self.private = []
        private = self.private
        while j < m:
            e = events[j]
            if e.seen_by is not None and e.cards:
                private.append(j)
            j += 1
        self.scanned = m

    def grids_of(self, player: int, over: bool) -> Grid:
        """``player``'s grids now: each card the player knows, ``None`` elsewhere.

        ``over``: the round has ended (every card is shown, so every row is rebuilt).
        """
        m = len(self.events)
        k = self.upto[player]
        grids = self.grids[player]
        if k == m:
            return grids
        slots, known, deck = self.slots, self.known, self.deck
        bit = 1 << player
        if k < 0 or k > m or over or len(grids) != len(slots):
            grids = tuple(
                [
                    tuple([deck[c] if c >= 0 and known[c] & bit else None for c in row])
                    for row in slots
                ]
            )
        else:
            grids = self._edited(grids, self.events[k:m], bit)
        self.upto[player] = m
        self.grids[player] = grids
        return grids

    def _edited(self, grids: Grid, new: list[Event], bit: int) -> Grid:
        """``grids`` (a player's, ``bit`` its seat's bit) after the events ``new``: only
        the positions they name can have changed, so only those are read again, and a
        row is copied only where a card changed (the others, and the whole tuple when
        none did, are shared with the last view)."""
        slots, known, deck = self.slots, self.known, self.deck
        edits: dict[int, list[Card | None]] | None = None
        for e in new:
            for o, pos in e.positions:
                c = slots[o][pos - 1]
                cell = deck[c] if c >= 0 and known[c] & bit else None
                row = None if edits is None else edits.get(o)
                if row is None:
                    if cell is grids[o][pos - 1]:
                        continue  # the very same card (or unknown before and now)
                    if edits is None:
                        edits = {}
                    row = edits[o] = list(grids[o])
                row[pos - 1] = cell
        if edits is None:
            return grids
        rows = list(grids)
        for o, edited in edits.items():
            rows[o] = tuple(edited)
        return tuple(rows)

    def refresh(
        self, player: int, over: bool, history: tuple[Event, ...]
    ) -> tuple[Grid, tuple[Event, ...]]:
        """``player``'s grids now (:meth:`grids_of`) and ``history`` (the player's history
        so far) brought up to date (:meth:`history`), both from the one slice of events
        logged since the player's last view where both stopped at that view (what a
        round's views do); else by the two methods."""
        events = self.events
        m = len(events)
        k = self.upto[player]
        grids = self.grids[player]
        if k != len(history) or k < 0 or k > m or over or len(grids) != len(self.slots):
            return self.grids_of(player, over), self.history(player, history)
        if k == m:
            return grids, history
        # the positions the events name (as grids_of reads them), then the events as the
        # player saw them (as history makes them, without its index of private events)
        new = events[k:m]
        grids = self._edited(grids, new, 1 << player)
        hidden = self.hidden
        for j, e in enumerate(new, k):
            seen = e.seen_by
            if seen is not None and player not in seen and e.cards:
                twin = hidden.get(j)
                if twin is None:
                    twin = hidden[j] = e.as_seen_by(player)
                new[j - k] = twin
        self.upto[player] = m
        self.grids[player] = grids
        return grids, history + tuple(new)

    def history(self, player: int, history: tuple[Event, ...]) -> tuple[Event, ...]:
        """``history`` (``player``'s history so far) extended by the events logged since,
        as ``player`` saw them: a public event, or one the player saw, is the logged
        object itself; any other is its twin without cards, shared by everyone who did
        not see them (:meth:`Event.as_seen_by`)."""
        events = self.events
        k = len(history)
        m = len(events)
        if k >= m:
            return history
        if self.scanned != m:
            self._scan()
        new = events[k:m]
        private = self.private
        i = bisect_left(private, k)
        if i < len(private):
            hidden = self.hidden
            for j in private[i:]:
                e = events[j]
                seen = e.seen_by
                if seen is not None and player not in seen:
                    twin = hidden.get(j)
                    if twin is None:
                        twin = hidden[j] = e.as_seen_by(player)
                    new[j - k] = twin
        return history + tuple(new)


def _grid_cache(
    events: list[Event],
    slots: list[list[int]],
    known: list[int],
    deck: tuple[Card, ...],
    upto: list[int],
    grids: list[Grid],
    hidden: dict[int, Event],
) -> GridCache:
    """Unpickle a :class:`GridCache` (see ``GridCache.__reduce__``)."""
    cache = GridCache(events, slots, known, deck, len(upto))
    cache.upto = upto
    cache.grids = grids
    cache.hidden = hidden
    return cache
