"""Actions: frozen records for people and programs, stable integer ids for bots.

Every action names the player who takes it and the positions it touches, as
``(owner, position)`` pairs with positions numbered from 1 (row by row, then extra
cards). Each action also has an integer id in a fixed :class:`ActionSpace` for the
round's player count, grid and rules: ``id = player * per_player + local``.

Every constructor that names places takes them as ``(owner, position)`` pairs (peek,
swap, snap); those that can only touch the player's own cards take bare positions
(replace, exchange, give, opening peek). An action prints as the event it causes
begins, ``P<player> <kind> P<owner>:<position> ...``:

>>> Action.draw(0)
Action(kind=<ActionKind.DRAW: 'draw'>, player=0, positions=())
>>> str(Action.swap(1, (1, 2), (0, 3)))
'P1 swap P0:3 P1:2'
>>> str(Action.peek(0, (2, 4)))
'P0 peek P2:4'
"""

from __future__ import annotations

import enum
import functools
import itertools
import warnings
from collections.abc import Iterable, Iterator, Sequence
from typing import overload

import attrs

__all__ = ["Action", "ActionKind", "ActionList", "ActionSpace", "kinds_wanted", "space_size"]

Slot = tuple[int, int]
"""A place on the table: ``(owner seat, position from 1)``."""


class ActionKind(str, enum.Enum):
    """What an action does."""

    OPENING_PEEK = "opening-peek"
    """Choose which positions to look at in the opening peek."""
    DRAW = "draw"
    """Draw the top card of the stock (seen by the drawer only)."""
    TAKE = "take"
    """Take the top discard (public); it must replace a grid card."""
    CALL = "call"
    """Call Cambio."""
    PASS = "pass"
    """End the turn without calling (only where calling is at the end of a turn)."""
    RE_PEEK = "re-peek"
    """Look again at one's opening positions, once per round, without using the turn."""
    REPLACE = "replace"
    """Put the held card into one's position; the card there goes to the discard."""
    EXCHANGE = "exchange"
    """Replace two or more of one's cards that share a rank with the drawn card."""
    DISCARD = "discard"
    """Discard the drawn card."""
    PEEK = "peek"
    """A power's peek at one card."""
    SWAP = "swap"
    """A power's swap of two cards."""
    SKIP = "skip"
    """Skip the rest of the current power."""
    SNAP = "snap"
    """Throw one or more grid cards that match the top discard."""
    GIVE = "give"
    """After snapping another player's card, give one of one's own cards in its place."""


_SIMPLE = (
    ActionKind.DRAW,
    ActionKind.TAKE,
    ActionKind.CALL,
    ActionKind.PASS,
    ActionKind.RE_PEEK,
    ActionKind.DISCARD,
    ActionKind.SKIP,
)


def space_size(players: int, positions: int, openings: int, exchange: bool, several: bool) -> int:
    """How many ids an :class:`ActionSpace` with these parameters holds, computed
    without building it (``openings`` is the number of opening-peek choices).

    The validator uses it to bound what a table may cost before any round is dealt.

    >>> space_size(2, 8, 0, False, False) == ActionSpace(2, 8).size
    True
    """
    slots = players * positions
    per_player = len(_SIMPLE) + openings + 2 * positions + 2 * slots
    per_player += slots * (slots - 1) // 2
    per_player += (1 << positions) * (int(exchange) + int(several))
    return per_player * players


@attrs.frozen(slots=True)
class Action:
    """One fully specified action: who does what to which positions.

    Build one with the constructors below (``Action.draw(0)``,
    ``Action.peek(0, (1, 2))``, ...), or decode an id with :meth:`ActionSpace.decode`.
    ``str(action)`` reads like the :class:`~cambio.events.Event` it causes, without the
    cards: ``P0 swap P0:1 P2:3``.
    """

    kind: ActionKind
    """What the action does."""
    player: int
    """The seat taking the action."""
    positions: tuple[Slot, ...] = ()
    """The places it touches, as ``(owner seat, position from 1)`` pairs."""

    def __str__(self) -> str:
        where = " ".join(_place_text(place) for place in self.positions)
        return f"P{self.player} {self.kind.value}" + (f" {where}" if where else "")

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready record: ``{"kind": ..., "player": ..., "positions": [[o, p], ...]}``."""
        return {
            "kind": self.kind.value,
            "player": self.player,
            "positions": [list(p) for p in self.positions],
        }

    @classmethod
    def from_dict(cls, data: object) -> Action:
        """The action :meth:`to_dict` wrote; ``ValueError`` for anything malformed."""
        if not isinstance(data, dict) or set(data) != {"kind", "player", "positions"}:
            raise ValueError(f"expected an action record with kind, player, positions: {data!r}")
        kind, player, positions = data["kind"], data["player"], data["positions"]
        if not isinstance(kind, str) or type(player) is not int or not isinstance(positions, list):
            raise ValueError(f"malformed action record {data!r}")
        slots = []
        for pos in positions:
            if (
                not isinstance(pos, (list, tuple))
                or len(pos) != 2
                or not all(type(x) is int for x in pos)
            ):
                raise ValueError(f"malformed position {pos!r} in action record")
            slots.append((pos[0], pos[1]))
        try:
            return cls(ActionKind(kind), player, tuple(slots))
        except ValueError:
            raise ValueError(f"unknown action kind {kind!r}") from None

    # Convenience constructors -------------------------------------------------
    @classmethod
    def draw(cls, player: int) -> Action:
        """Draw the top card of the stock."""
        return cls(ActionKind.DRAW, player)

    @classmethod
    def take(cls, player: int) -> Action:
        """Take the top discard (it must then replace one of the player's cards)."""
        return cls(ActionKind.TAKE, player)

    @classmethod
    def call(cls, player: int) -> Action:
        """Call Cambio."""
        return cls(ActionKind.CALL, player)

    @classmethod
    def pass_(cls, player: int) -> Action:
        """End the turn without calling (where calling comes at the end of a turn)."""
        return cls(ActionKind.PASS, player)

    @classmethod
    def re_peek(cls, player: int) -> Action:
        """Look again at one's opening positions (once per round, where allowed)."""
        return cls(ActionKind.RE_PEEK, player)

    @classmethod
    def discard(cls, player: int) -> Action:
        """Discard the drawn card (its power, if any, follows)."""
        return cls(ActionKind.DISCARD, player)

    @classmethod
    def skip(cls, player: int) -> Action:
        """Skip the rest of the current power."""
        return cls(ActionKind.SKIP, player)

    @classmethod
    def opening_peek(cls, player: int, *positions: int) -> Action:
        """Choose which of one's own ``positions`` to look at in the opening peek."""
        return cls(ActionKind.OPENING_PEEK, player, tuple((player, p) for p in sorted(positions)))

    @classmethod
    def replace(cls, player: int, position: int) -> Action:
        """Put the held card at one's own ``position``; the card there is discarded."""
        return cls(ActionKind.REPLACE, player, ((player, position),))

    @classmethod
    def exchange(cls, player: int, *positions: int) -> Action:
        """Replace two or more of one's own cards of one rank with the drawn card."""
        return cls(ActionKind.EXCHANGE, player, tuple((player, p) for p in sorted(positions)))

    @overload
    @classmethod
    def peek(cls, player: int, slot: Slot) -> Action: ...

    @overload
    @classmethod
    def peek(cls, player: int, slot: int, position: int) -> Action: ...

    @overload
    @classmethod
    def peek(cls, player: int, *, owner: int, position: int) -> Action: ...

    @classmethod
    def peek(
        cls,
        player: int,
        slot: Slot | int | None = None,
        position: int | None = None,
        *,
        owner: int | None = None,
    ) -> Action:
        """A power's peek at the card at ``slot``, an ``(owner, position)`` pair.

        The old spelling ``Action.peek(player, owner, position)`` (also with ``owner=``
        and ``position=`` by keyword) still works but is deprecated (a
        :class:`DeprecationWarning`): write ``Action.peek(player, (owner, position))``,
        as for :meth:`swap` and :meth:`snap`.
        """
        if owner is not None:
            if slot is not None:
                raise TypeError("Action.peek takes an (owner, position) pair or owner=, not both")
            slot = owner
        if position is not None or owner is not None:
            warnings.warn(
                "Action.peek(player, owner, position) is deprecated; "
                "write Action.peek(player, (owner, position))",
                DeprecationWarning,
                stacklevel=2,
            )
            return cls(ActionKind.PEEK, player, ((slot, position),))  # type: ignore[arg-type]
        return cls(ActionKind.PEEK, player, (_place(slot),))

    @classmethod
    def swap(cls, player: int, first: Slot, second: Slot) -> Action:
        """A power's swap of the cards at two ``(owner, position)`` places.

        A swap is the same whichever place comes first: the two are kept in table order
        (by seat, then position), the order of the ``swap`` event it causes.
        """
        return cls(ActionKind.SWAP, player, _in_order((_place(first), _place(second))))

    @classmethod
    def snap(cls, player: int, *slots: Slot) -> Action:
        """Snap the card(s) at ``(owner, position)`` places that match the top discard."""
        return cls(ActionKind.SNAP, player, _in_order(tuple(_place(s) for s in slots)))

    @classmethod
    def give(cls, player: int, position: int) -> Action:
        """After snapping another player's card, give one's own ``position`` in its place."""
        return cls(ActionKind.GIVE, player, ((player, position),))


class ActionSpace:
    """The fixed integer ids of every action for one seat count, grid and rule set.

    Local ids per player, in this order: the seven simple actions, the opening-peek
    choices, ``replace`` per position, ``peek`` per table slot, ``snap`` per table slot,
    ``give`` per position, ``swap`` per unordered pair of table slots, and, when the rules
    allow them, ``exchange`` and multi-card ``snap`` per subset of own positions.
    """

    def __init__(
        self,
        players: int,
        positions: int,
        opening: Sequence[tuple[int, ...]] = (),
        exchange: bool = False,
        several: bool = False,
    ) -> None:
        self.players = players
        """How many seats."""
        self.positions = positions
        """Positions per player (the grid plus its extra positions)."""
        self.opening = tuple(tuple(c) for c in opening)
        """The opening-peek choices, each a sorted tuple of positions."""
        self.exchange = exchange
        """Whether exchanges of several equal cards have ids."""
        self.several = several
        """Whether snaps of several own cards at once have ids."""
        slots = players * positions
        self.slots = slots
        """Places on the table: ``players * positions``."""
        self.o_simple = 0
        """First local id of the seven simple actions (draw, take, call, pass, re-peek,
        discard, skip)."""
        self.o_opening = len(_SIMPLE)
        """First local id of the opening-peek choices."""
        self.o_replace = self.o_opening + len(self.opening)
        """First local id of ``replace``, one per own position."""
        self.o_peek = self.o_replace + positions
        """First local id of ``peek``, one per table place."""
        self.o_snap = self.o_peek + slots
        """First local id of single-card ``snap``, one per table place."""
        self.o_give = self.o_snap + slots
        """First local id of ``give``, one per own position."""
        self.o_swap = self.o_give + positions
        """First local id of ``swap``, one per unordered pair of table places."""
        self.o_exchange = self.o_swap + slots * (slots - 1) // 2
        """First local id of ``exchange``, one per subset of own positions (when allowed)."""
        self.o_snap_many = self.o_exchange + ((1 << positions) if exchange else 0)
        """First local id of multi-card ``snap``, one per subset of own positions (when
        allowed). The ids of subsets of fewer than two positions are never legal (as for
        exchanges): a one-position subset decodes to the single-card snap, whose id is
        the one :meth:`encode` gives."""
        self.per_player = self.o_snap_many + ((1 << positions) if several else 0)
        """Local ids per player: a global id is ``player * per_player + local``."""
        self.size = self.per_player * players
        """How many ids in all (ids run from 0 to ``size - 1``)."""
        self._pair_base = [0] * slots
        base = 0
        for a in range(slots):
            self._pair_base[a] = base - a - 1
            base += slots - a - 1
        self._decode_cache: dict[int, Action] = {}
        # id() of each Action in _decode_cache -> its action id (see decoded_id); the
        # cache keeps those objects alive, so their id() is not reused meanwhile
        self._decoded_ids: dict[int, int] = {}
        self._deal_caches: dict[tuple[int, bool], dict[int, tuple[int, ...]]] = {}
        self.snap_flags = bytes(self.is_snap(a) for a in range(self.size))
        """``snap_flags[id]`` is 1 for a snap's id, else 0 (:meth:`is_snap` of every id)."""
        call = _SIMPLE.index(ActionKind.CALL)
        self.call_flags = bytes(a % self.per_player == call for a in range(self.size))
        """``call_flags[id]`` is 1 for a call's id, else 0."""
        self._encode_cache: dict[Action, int] = {}

    def deal_cache(self, grid: int, snap_any: bool) -> dict[int, tuple[int, ...]]:
        """The cache of legal ids (by a key of the round's choosing) that every round
        with this space shares while its grids are as dealt: each seat's first ``grid``
        positions filled, nobody called; ``snap_any`` tells tables whose snaps reach
        every grid from those that reach one's own only."""
        key = (grid, snap_any)
        cache = self._deal_caches.get(key)
        if cache is None:
            cache = self._deal_caches[key] = {}
        return cache

    def is_snap(self, action_id: int) -> bool:
        """Whether the action with this id is a snap (of one card or several)."""
        local = action_id % self.per_player
        return self.o_snap <= local < self.o_give or local >= self.o_snap_many

    # ids from internal coordinates ------------------------------------------------
    def pair(self, a: int, b: int) -> int:
        """Local offset of the swap of global slots ``a`` and ``b`` (any order)."""
        if a > b:
            a, b = b, a
        return self.o_swap + self._pair_base[a] + b

    def pairs(self, pairs: Iterable[tuple[int, int]], offset: int = 0) -> list[int]:
        """``offset`` plus :meth:`pair` of each ``(a, b)``, in one call (the engine lists
        every swap a power may make)."""
        o, first = offset + self.o_swap, self._pair_base
        return [o + first[a] + b if a < b else o + first[b] + a for a, b in pairs]

    def decode(self, action_id: int) -> Action:
        """The :class:`Action` with this id."""
        cached = self._decode_cache.get(action_id)
        if cached is not None:
            return cached
        if not 0 <= action_id < self.size:
            raise ValueError(f"action id {action_id} is outside 0..{self.size - 1}")
        player, local = divmod(action_id, self.per_player)
        action = self._decode_local(player, local)
        self._decode_cache[action_id] = action
        self._decoded_ids[id(action)] = action_id
        return action

    def decoded_id(self, action: object) -> int:
        """The id of ``action`` when it is the very object :meth:`decode` returned for
        that id, else -1 (an equal action built elsewhere gives -1; use :meth:`encode`).
        """
        aid = self._decoded_ids.get(id(action), -1)
        if aid >= 0 and self._decode_cache.get(aid) is action:
            return aid
        return -1

    def _slot(self, g: int) -> Slot:
        owner, i = divmod(g, self.positions)
        return (owner, i + 1)

    def _mask_positions(self, player: int, mask: int) -> tuple[Slot, ...]:
        return tuple((player, i + 1) for i in range(self.positions) if mask >> i & 1)

    def _decode_local(self, player: int, local: int) -> Action:
        if local < self.o_opening:
            return Action(_SIMPLE[local], player)
        if local < self.o_replace:
            combo = self.opening[local - self.o_opening]
            return Action(ActionKind.OPENING_PEEK, player, tuple((player, p) for p in combo))
        if local < self.o_peek:
            return Action(ActionKind.REPLACE, player, ((player, local - self.o_replace + 1),))
        if local < self.o_snap:
            return Action(ActionKind.PEEK, player, (self._slot(local - self.o_peek),))
        if local < self.o_give:
            return Action(ActionKind.SNAP, player, (self._slot(local - self.o_snap),))
        if local < self.o_swap:
            return Action(ActionKind.GIVE, player, ((player, local - self.o_give + 1),))
        if local < self.o_exchange:
            k = local - self.o_swap
            for a in range(self.slots - 1):
                first = self._pair_base[a] + a + 1
                if k < first + (self.slots - a - 1):
                    b = k - self._pair_base[a]
                    return Action(ActionKind.SWAP, player, (self._slot(a), self._slot(b)))
            raise AssertionError("unreachable")
        if local < self.o_snap_many:
            mask = local - self.o_exchange
            return Action(ActionKind.EXCHANGE, player, self._mask_positions(player, mask))
        mask = local - self.o_snap_many
        return Action(ActionKind.SNAP, player, self._mask_positions(player, mask))

    def encode(self, action: Action) -> int:
        """The id of ``action``; ``ValueError`` if it has no id in this space."""
        _check_shape(action)
        cached = self._encode_cache.get(action)
        if cached is not None:
            return cached
        local = self._encode_local(action)
        action_id = action.player * self.per_player + local
        self._encode_cache[action] = action_id
        return action_id

    def _global(self, slot: Slot) -> int:
        owner, position = slot
        if not (isinstance(owner, int) and isinstance(position, int)):
            raise ValueError(f"position {slot!r} is not a pair of whole numbers")
        if not 0 <= owner < self.players:
            raise ValueError(f"there is no player {owner}")
        if not 1 <= position <= self.positions:
            raise ValueError(f"position {position} is outside 1..{self.positions}")
        return owner * self.positions + position - 1

    def _own_mask(self, action: Action) -> int:
        mask = 0
        for owner, position in action.positions:
            if owner != action.player:
                raise ValueError("every position must be the acting player's own")
            g = self._global((owner, position)) - owner * self.positions
            mask |= 1 << g
        return mask

    def _encode_local(self, action: Action) -> int:
        kind = action.kind
        player = action.player
        if not isinstance(player, int) or isinstance(player, bool):
            raise ValueError(f"player {player!r} is not a seat number")
        if not 0 <= player < self.players:
            raise ValueError(f"there is no player {player}")
        pos = action.positions
        if kind in _SIMPLE:
            if pos:
                raise ValueError(f"{kind.value} takes no positions")
            return _SIMPLE.index(kind)
        if kind is ActionKind.OPENING_PEEK:
            chosen = tuple(sorted(p for o, p in pos))
            if any(o != player for o, _ in pos) or chosen not in self.opening:
                raise ValueError(f"{chosen} is not an opening-peek choice")
            return self.o_opening + self.opening.index(chosen)
        if kind in (ActionKind.REPLACE, ActionKind.GIVE):
            if len(pos) != 1 or pos[0][0] != player:
                raise ValueError(f"{kind.value} takes exactly one of the player's own positions")
            g = self._global(pos[0]) - player * self.positions
            base = self.o_replace if kind is ActionKind.REPLACE else self.o_give
            return base + g
        if kind is ActionKind.PEEK:
            if len(pos) != 1:
                raise ValueError("peek takes exactly one position")
            return self.o_peek + self._global(pos[0])
        if kind is ActionKind.SWAP:
            if len(pos) != 2:
                raise ValueError("swap takes exactly two positions")
            a, b = self._global(pos[0]), self._global(pos[1])
            if a == b:
                raise ValueError("swap needs two different positions")
            return self.pair(a, b)
        if kind is ActionKind.EXCHANGE:
            if not self.exchange:
                raise ValueError("this table does not allow exchanging several cards")
            mask = self._own_mask(action)
            if mask.bit_count() < 2:
                raise ValueError("exchange takes two or more positions")
            return self.o_exchange + mask
        if kind is ActionKind.SNAP:
            if len(pos) == 1:
                return self.o_snap + self._global(pos[0])
            if not self.several or not pos:
                raise ValueError("snap takes exactly one position at this table")
            return self.o_snap_many + self._own_mask(action)
        raise ValueError(f"unknown action kind {kind!r}")


def _place_text(place: object) -> str:
    """``P<owner>:<position>``, or the place as given when it is not a pair."""
    if isinstance(place, tuple) and len(place) == 2:
        return f"P{place[0]}:{place[1]}"
    return repr(place)


def _place(value: object) -> Slot:
    """``value`` as an ``(owner, position)`` tuple when it is a list or tuple.

    Anything else is kept as given, for :meth:`ActionSpace.encode` (and so
    :meth:`~cambio.round.Round.apply`) to refuse with the position named.
    """
    return tuple(value) if isinstance(value, (list, tuple)) else value  # type: ignore[return-value]


def _in_order(slots: tuple[Slot, ...]) -> tuple[Slot, ...]:
    """``slots`` in table order when every one is a pair of whole numbers, else as given."""
    if all(type(s) is tuple and len(s) == 2 and all(type(x) is int for x in s) for s in slots):
        return tuple(sorted(slots))
    return slots


def _check_shape(action: object) -> None:
    """Refuse anything but a well-typed Action before it is compared with known ones.

    ``Action(DRAW, 0.0) == Action(DRAW, 0)`` (and ``False == 0``), so the types are
    checked first: a float or a bool is never a seat or a position. A position named
    twice is refused too: an action's positions are a set of places, and several of them
    fold into one id (a bit mask), so a repeat would otherwise become another action.
    """
    if not isinstance(action, Action):
        raise ValueError(f"expected an Action, got {action!r}")
    if not isinstance(action.kind, ActionKind):
        raise ValueError(f"unknown action kind {action.kind!r}")
    if type(action.player) is not int:
        raise ValueError(f"player {action.player!r} is not a seat number")
    positions = action.positions
    if type(positions) is not tuple:
        raise ValueError(f"positions {positions!r} are not a tuple of (owner, position) pairs")
    for pos in positions:
        if type(pos) is not tuple or len(pos) != 2 or not all(type(x) is int for x in pos):
            raise ValueError(f"position {pos!r} is not an (owner, position) pair of whole numbers")
    if len(set(positions)) != len(positions):
        # several positions fold into one id (a mask), so a repeat would silently become
        # another action: refuse it, whatever the kind
        twice = next(p for i, p in enumerate(positions) if p in positions[:i])
        raise ValueError(f"position P{twice[0]}:{twice[1]} is named twice")


class ActionList(Sequence[Action]):
    """A read-only sequence of the actions with some ids, each decoded when it is read.

    The bot driver hands bots their legal actions as one: a bot that reads one action
    (the random bot picks an index) makes one :class:`Action`, not one per legal id.
    Reading the same item twice gives the same object (the space caches its decodings).

    >>> space = ActionSpace(2, 4)
    >>> legal = ActionList([0, 1], space)
    >>> len(legal), str(legal[1]), [str(a) for a in legal]
    (2, 'P0 take', ['P0 draw', 'P0 take'])
    """

    __slots__ = ("_decode", "_space", "ids")

    def __init__(self, ids: Sequence[int], space: ActionSpace) -> None:
        self.ids = ids
        """The ids of the actions, in order."""
        self._space = space
        self._decode = space.decode

    def without_snaps(self) -> ActionList:
        """The actions that are not snaps, in order (told apart by id, not decoded)."""
        snaps = self._space.snap_flags
        kept = [a for a in self.ids if not snaps[a]]
        return self if len(kept) == len(self.ids) else ActionList(kept, self._space)

    def non_snap_actions(self) -> list[Action]:
        """The actions that are not snaps, in order, as a new list (told apart by id;
        each decoded once per space, as :meth:`ActionSpace.decode` caches them)."""
        space = self._space
        snaps = space.snap_flags
        cache = space._decode_cache
        try:
            return [cache[a] for a in self.ids if not snaps[a]]  # each decoded before
        except KeyError:
            decode = self._decode
            return [cache[a] if a in cache else decode(a) for a in self.ids if not snaps[a]]

    def __len__(self) -> int:
        return len(self.ids)

    @overload
    def __getitem__(self, index: int) -> Action: ...

    @overload
    def __getitem__(self, index: slice) -> list[Action]: ...

    def __getitem__(self, index: int | slice) -> Action | list[Action]:
        if isinstance(index, slice):
            return [self._decode(a) for a in self.ids[index]]
        return self._decode(self.ids[index])

    def __iter__(self) -> Iterator[Action]:
        return map(self._decode, self.ids)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ActionList):
            return list(self.ids) == list(other.ids)
        if isinstance(other, (list, tuple)):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ActionList([{', '.join(str(a) for a in self)}])"


def kinds_wanted(
    kind: ActionKind | str | Iterable[ActionKind | str] | None,
) -> frozenset[ActionKind] | None:
    """The action kinds a ``kind=`` filter asks for (``None``: every kind).

    A kind is an :class:`ActionKind` or its text; several may be given in any iterable.

    >>> sorted(k.value for k in kinds_wanted(["snap", ActionKind.DRAW]))
    ['draw', 'snap']
    """
    if kind is None:
        return None
    if isinstance(kind, (str, ActionKind)):
        items: list[object] = [kind]
    elif isinstance(kind, Iterable):
        items = list(kind)
    else:
        raise TypeError(f"kind must be an action kind, its text, or several of them, got {kind!r}")
    out = set()
    for item in items:
        try:
            out.add(ActionKind(item))
        except ValueError:
            words = ", ".join(k.value for k in ActionKind)
            raise ValueError(f"unknown action kind {item!r}; expected one of: {words}") from None
    return frozenset(out)


@functools.lru_cache(maxsize=64)
def action_space(
    players: int,
    positions: int,
    opening: tuple[tuple[int, ...], ...],
    exchange: bool,
    several: bool,
) -> ActionSpace:
    """A shared, immutable-by-convention :class:`ActionSpace` for these parameters."""
    return ActionSpace(players, positions, opening, exchange, several)


def opening_choices(positions: Sequence[int], count: int) -> tuple[tuple[int, ...], ...]:
    """Every way to choose ``count`` of ``positions`` (sorted), when there is a choice."""
    if count == 0 or count >= len(positions):
        return ()
    return tuple(tuple(sorted(c)) for c in itertools.combinations(sorted(positions), count))
