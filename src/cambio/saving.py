"""Saving a round as JSON and loading it back.

A saved round holds the rules (in full), the deal (players, seed, dealer, starter, the
deck in deal order), the list of actions taken, and a snapshot of the whole state, so
that loading is immediate rather than a replay. :func:`load_round` can also replay the
actions and check that the replay reaches the same state (``verify=True``).

The document is compact (format ``cambio-round/4``): each action is its integer id in
the round's :class:`~cambio.actions.ActionSpace`, and each event of the log is a short
array ``[kind, player, positions, cards, seen, note]`` where ``kind`` is a number (see
:data:`EVENT_CODES`), ``positions`` the ``(owner, position)`` pairs written flat,
``cards`` indices into the saved ``deck``, ``seen`` a bit mask of the seats that saw the
cards (``-1``: everyone), and trailing fields at their defaults (``[]``, ``[]``, ``-1``,
``""``) are left out: ``[2, 0]`` is "P0's turn begins". Saves written before
(``cambio-round/3``: actions as objects, events in full) still load.
"""

from __future__ import annotations

import json
import weakref
from collections import Counter
from collections.abc import Callable, Sequence
from types import UnionType
from typing import TYPE_CHECKING, Any, Union, get_args, get_origin, get_type_hints

import attrs
import cattrs
from cattrs.preconf.json import make_converter

from .cards import Card, card_from_json, card_to_json
from .errors import RuleSetError, SaveError
from .events import Event, EventKind
from .loading import _found
from .scoring import HandCard, RoundResult

if TYPE_CHECKING:
    from .match import Match
    from .round import Round
    from .rules import RuleSet

__all__ = [
    "MAX_DEPTH",
    "MAX_NODES",
    "MAX_SAVE_CHARS",
    "SAVE_FORMAT",
    "RoundSnapshot",
    "check_shape",
    "load_match",
    "load_round",
    "loads_round",
    "parse_json",
    "rules_from_save",
    "save_round",
]

SAVE_FORMAT = "cambio-round/4"
OLD_SAVE_FORMAT = "cambio-round/3"
"""The previous format (actions as objects, events in full): still read."""

EVENT_CODES: tuple[EventKind, ...] = (
    EventKind.DEAL,
    EventKind.OPENING_PEEK,
    EventKind.TURN,
    EventKind.DRAW,
    EventKind.TAKE,
    EventKind.REPLACE,
    EventKind.EXCHANGE,
    EventKind.FAILED_EXCHANGE,
    EventKind.DISCARD,
    EventKind.POWER,
    EventKind.PEEK,
    EventKind.SWAP,
    EventKind.SKIP,
    EventKind.SNAP,
    EventKind.WRONG_SNAP,
    EventKind.PENALTY,
    EventKind.GIVE,
    EventKind.CALL,
    EventKind.PASS,
    EventKind.RE_PEEK,
    EventKind.RECYCLE,
    EventKind.END,
)
"""The number each event kind is saved as (its index here). Fixed: new kinds go at the
end. A kind that is not a round event kind is saved as its text."""


@attrs.frozen
class SavedAction:
    """An action as written in a save: its kind, player and ``[owner, position]`` pairs."""

    kind: str
    player: int
    positions: list[tuple[int, int]]


@attrs.frozen
class RoundSnapshot:
    """Every piece of a round's mutable state, in plain types."""

    phase: int
    current: int
    slots: list[list[int]]
    discard: list[int]
    stock: list[int]
    known: list[int]
    drawn: int
    from_stock: bool
    power: int
    power_card: int
    step: int
    peeked: list[int]
    after_power_drawn: bool
    caller: int
    final: list[int]
    window_open: bool
    window_discarder: int
    window_tried: int
    snapper: int
    give_target: int
    give_return: int
    turns: list[int]
    total_turns: int
    repeek_used: int
    opening_seen: list[tuple[int, ...]]
    pending: list[int]
    recycles: int
    events: list[Any]
    """The event log as written: compact arrays (``cambio-round/4``, see the module's
    text) or full ones (``cambio-round/3``); checked when the round is restored."""
    result: RoundResult | None
    window_won: bool = False
    closing_reason: str = ""
    penalty_of: list[tuple[int, int]] = attrs.field(factory=list)
    """Penalty cards in grid positions, as ``(card index, owner)`` pairs."""
    calls_owed: int = 0


@attrs.frozen
class SavedRound:
    """The whole JSON document of a saved round."""

    format: str
    rules: dict[str, Any]
    players: int
    seed: int
    dealer: int
    starter: int
    deck: list[Card]
    actions: list[Any]
    """The action ids (``cambio-round/4``), or :class:`SavedAction` objects
    (``cambio-round/3``); checked when the round is restored."""
    state: RoundSnapshot | None = None
    position: str = ""
    """The written position the round was built from (:meth:`Round.from_position`), if
    it was: the actions and events then start there, not at the deal. Left out when empty."""


def _event_to_list(e: Event) -> list[Any]:
    return [
        str(e.kind.value) if isinstance(e.kind, EventKind) else e.kind,
        e.player,
        [list(p) for p in e.positions],
        [None if c is None else card_to_json(c) for c in e.cards],
        None if e.seen_by is None else sorted(e.seen_by),
        e.note,
    ]


_EVENT_KINDS = frozenset(k.value for k in EventKind)


def _converter() -> cattrs.Converter:
    conv = make_converter()
    conv.register_unstructure_hook(Event, _event_to_list)
    conv.register_unstructure_hook(Card, card_to_json)
    return conv


_conv = _converter()


# --------------------------------------------------------------------------- strict reading

MAX_SAVE_CHARS = 64 * 1024 * 1024
"""The longest JSON text :func:`loads_round` and :meth:`cambio.Match.from_json` read."""

MAX_DEPTH = 32
"""The deepest nesting of arrays and objects a save may hold (a real one needs 6)."""

MAX_NODES = 8_000_000
"""The most values (numbers, strings, arrays, objects) a save may hold in all."""


def _key_path(path: str, key: str) -> str:
    if key.isidentifier():
        return f"{path}.{key}"
    return f"{path}[{json.dumps(key)}]"


def check_shape(data: Any, path: str = "$") -> None:
    """Raise :class:`SaveError` where ``data`` nests deeper than :data:`MAX_DEPTH` or
    holds more than :data:`MAX_NODES` values, or holds a value JSON cannot carry.

    The walk is iterative, so no input can exhaust the interpreter's stack. A first walk
    builds no paths; only when it finds a problem does a second one name its place.
    """
    if _shape_ok(data):
        return
    stack: list[tuple[Any, str, int]] = [(data, path, 0)]
    count = 0
    while stack:
        value, at, depth = stack.pop()
        count += 1
        if count > MAX_NODES:
            raise SaveError(at, f"too large: more than {MAX_NODES} values in all")
        if isinstance(value, dict):
            if depth >= MAX_DEPTH:
                raise SaveError(at, f"nested deeper than {MAX_DEPTH} levels")
            items = list(value.items())
            for key, sub in reversed(items):
                if not isinstance(key, str):
                    raise SaveError(at, f"expected string keys, found {_found(key)}")
                stack.append((sub, _key_path(at, key), depth + 1))
        elif isinstance(value, (list, tuple)):
            if depth >= MAX_DEPTH:
                raise SaveError(at, f"nested deeper than {MAX_DEPTH} levels")
            for i in range(len(value) - 1, -1, -1):
                stack.append((value[i], f"{at}[{i}]", depth + 1))
        elif value is not None and not isinstance(value, (str, int, float)):
            raise SaveError(at, f"expected a JSON value, found {_found(value)}")


_LEAVES = frozenset({int, str, float, bool, type(None)})


def _shape_ok(data: Any) -> bool:
    """Whether :func:`check_shape` accepts ``data``: the same limits, with no paths
    (``False`` also for anything unusual, which the full walk then judges)."""
    return 0 <= _nodes(data, 0) <= MAX_NODES


def _nodes(value: Any, depth: int) -> int:
    """How many values ``value`` holds (itself included), or -1 where it nests deeper
    than :data:`MAX_DEPTH` or holds something else than JSON values. The recursion is
    bounded by that depth."""
    kind = type(value)
    if kind is list:
        items: Any = value
    elif kind is dict:
        if not set(map(type, value)) <= _STR:
            return -1
        items = value.values()
    else:
        return 1 if kind in _LEAVES else -1
    if depth >= MAX_DEPTH:
        return -1
    n = 1
    for sub in items:
        t = type(sub)
        if t is int or t is str:
            n += 1
        elif t is list or t is dict:
            k = _nodes(sub, depth + 1)
            if k < 0:
                return -1
            n += k
        elif t in _LEAVES:
            n += 1
        else:
            return -1
    return n


_STR = frozenset({str})


def parse_json(text: Any, what: str) -> Any:
    """The JSON value of ``text`` (a save of ``what``), or :class:`SaveError` at ``$``."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise SaveError("$", f"not UTF-8 text (byte at offset {exc.start})") from None
    if not isinstance(text, str):
        raise SaveError("$", f"expected the JSON text of a saved {what}, found {_found(text)}")
    if len(text) > MAX_SAVE_CHARS:
        raise SaveError("$", f"too large: more than {MAX_SAVE_CHARS} characters")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise SaveError("$", f"not a saved {what}: invalid JSON: {exc}") from None
    except RecursionError:
        raise SaveError("$", f"nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # an integer with too many digits
        raise SaveError("$", f"not a saved {what}: {exc}") from None


def _expect(ok: bool, path: str, what: str, value: Any) -> None:
    if not ok:
        raise SaveError(path, f"expected {what}, found {_found(value)}")


_SHAPES: dict[Any, tuple[Any, tuple[Any, ...]]] = {}
_CARDS: dict[tuple[str, str], Card] = {}
_INT = frozenset({int})


def _shape_of(tp: Any) -> tuple[Any, tuple[Any, ...]]:
    hit = _SHAPES.get(tp)
    if hit is None:
        hit = _SHAPES[tp] = (get_origin(tp), get_args(tp))
    return hit


def _structure(value: Any, tp: Any, path: str) -> Any:
    """``value`` as type ``tp``, with no coercion; :class:`SaveError` at the first misfit."""
    if tp is Any:
        return value  # checked where it is used
    if tp is int:
        _expect(type(value) is int, path, "an integer", value)
        return value
    if tp is bool:
        _expect(type(value) is bool, path, "a boolean (true or false)", value)
        return value
    if tp is str:
        _expect(type(value) is str, path, "a string", value)
        return value
    if tp is Card:
        if type(value) is list and len(value) == 2:
            rank, suit = value
            if type(rank) is str and type(suit) is str:
                hit = _CARDS.get((rank, suit))  # a card read before: the same value
                if hit is not None:
                    return hit
        try:
            card = card_from_json(value)
        except ValueError:
            raise SaveError(
                path, f"expected a card as [rank, suit], found {_found(value)}"
            ) from None
        if len(_CARDS) < 4096:
            _CARDS[card.rank, card.suit] = card  # cards are immutable: shared
        return card
    if tp is Event:
        return _event(value, path)
    origin, args = _shape_of(tp)
    if origin is Union or origin is UnionType:
        if value is None and type(None) in args:
            return None
        (inner,) = [a for a in args if a is not type(None)]
        return _structure(value, inner, path)
    if origin is list or (origin is tuple and args[-1:] == (Ellipsis,)):
        _expect(isinstance(value, (list, tuple)), path, "an array", value)
        item = args[0]
        if item is Any or (item is int and all([type(v) is int for v in value])):  # fast
            return list(value) if origin is list else tuple(value)
        out = [_structure(v, args[0], f"{path}[{i}]") for i, v in enumerate(value)]
        return out if origin is list else tuple(out)
    if origin is tuple:
        n = len(args)
        ok = isinstance(value, (list, tuple)) and len(value) == n
        _expect(ok, path, f"an array of {n}", value)
        return tuple(
            _structure(v, a, f"{path}[{i}]")
            for i, (v, a) in enumerate(zip(value, args, strict=True))
        )
    if origin is dict:
        _expect(isinstance(value, dict), path, "an object", value)
        return value
    if attrs.has(tp):
        return _object(value, tp, path)
    raise AssertionError(f"no strict reading for {tp!r}")  # pragma: no cover


# The field types of the engine's records that saves hold, written out: the compiled
# build (mypyc) keeps only erased annotations on its classes (``tuple``, ``type``), so
# the strict reader takes theirs from here. tests/test_saves.py holds this table equal
# to the classes' own annotations (under the pure build).
ENGINE_HINTS: dict[type, dict[str, Any]] = {
    HandCard: {"position": int, "card": Card, "value": int},
    RoundResult: {
        "reason": str,
        "caller": int | None,
        "hands": tuple[tuple[HandCard, ...], ...],
        "totals": tuple[int, ...],
        "scores": tuple[int, ...],
        "winners": tuple[int, ...],
        "caller_lowest": bool | None,
        "team_totals": tuple[int, ...],
        "combination": int | None,
    },
}
_HINTS: dict[type, dict[str, Any]] = dict(ENGINE_HINTS)


def _object(value: Any, cls: type, path: str) -> Any:
    _expect(isinstance(value, dict), path, "an object", value)
    hints = _HINTS.get(cls)
    if hints is None:
        hints = _HINTS[cls] = get_type_hints(cls)
    fields = attrs.fields(cls)
    names = {f.name for f in fields}
    for key in value:
        if key not in names:
            known = ", ".join(f.name for f in fields)
            raise SaveError(_key_path(path, key), f"unknown key; expected one of: {known}")
    kwargs: dict[str, Any] = {}
    for f in fields:
        at = _key_path(path, f.name)
        if f.name not in value:
            if f.default is attrs.NOTHING:
                raise SaveError(at, "missing required key")
            continue
        kwargs[f.name] = _structure(value[f.name], hints[f.name], at)
    return cls(**kwargs)


def _event(value: Any, path: str) -> Event:
    what = "an event as [kind, player, positions, cards, seen_by, note]"
    _expect(isinstance(value, (list, tuple)) and len(value) == 6, path, what, value)
    kind = _structure(value[0], str, f"{path}[0]")
    player = _structure(value[1], int, f"{path}[1]")
    positions = _structure(value[2], tuple[tuple[int, int], ...], f"{path}[2]")
    cards = _structure(value[3], tuple[Card | None, ...], f"{path}[3]")
    seen = _structure(value[4], tuple[int, ...] | None, f"{path}[4]")
    note = _structure(value[5], str, f"{path}[5]")
    if kind in _EVENT_KINDS:
        kind = EventKind(kind)  # else not a round event kind: kept as its text
    return Event(kind, player, positions, cards, None if seen is None else frozenset(seen), note)


_RULES_TEXT: dict[int, tuple[weakref.ref[RuleSet], str]] = {}


def _rules_doc(rules: RuleSet) -> dict[str, Any]:
    """``ruleset_to_dict(rules)``, a fresh object each call (read from its cached text)."""
    doc: dict[str, Any] = json.loads(_rules_text(rules))
    return doc


def compact_event(e: Event, deck: Sequence[Card]) -> list[Any]:
    """``e`` in the compact form of a save (see the module's text); its cards are written
    as their positions in ``deck`` (a card not there as ``[rank, suit]``)."""
    return _compacter(deck)(e)


def _compacter(deck: Sequence[Card]) -> Callable[[Event], list[Any]]:
    """A function writing events compactly against ``deck`` (its indices built once)."""
    # the cards of a round's events are the very objects of its deck: found by identity,
    # which needs no hashing of cards; an equal card from elsewhere is found by value
    by_id = {id(c): i for i, c in enumerate(deck)}
    by_value: dict[Card, int] = {}
    codes = _CODE_BY_ID
    masks = _MASK_BY_ID

    def card(c: Card | None) -> Any:
        if c is None:
            return None
        i = by_id.get(id(c))
        if i is not None:
            return i
        if not by_value:
            for k, d in enumerate(deck):
                by_value.setdefault(d, k)
        j = by_value.get(c)
        return card_to_json(c) if j is None else j

    def write(e: Event) -> list[Any]:
        kind, player, positions, cards, seen, note = e
        code = codes.get(id(kind))
        head: Any = str(kind) if code is None else code
        if not (note or seen is not None or cards or positions):
            return [head, player]
        if len(positions) == 1:
            flat: list[int] = [*positions[0]]
        else:
            flat = [x for pair in positions for x in pair]
        if not (note or seen is not None or cards):
            return [head, player, flat]
        if len(cards) == 1 and id(cards[0]) in by_id:
            shown: list[Any] = [by_id[id(cards[0])]]
        else:
            shown = [card(c) for c in cards]
        if not (note or seen is not None):
            return [head, player, flat, shown]
        if seen is None:
            mask = -1
        else:
            hit = masks.get(id(seen))
            mask = hit[1] if hit is not None and hit[0] is seen else sum([1 << q for q in seen])
        if not note:
            return [head, player, flat, shown, mask]
        return [head, player, flat, shown, mask, note]

    return write


_CODE_BY_ID: dict[int, int] = {id(k): i for i, k in enumerate(EVENT_CODES)}
_MASK_BY_ID: dict[int, tuple[frozenset[int], int]] = {}
"""The mask of each shared one-seat ``seen_by`` set met (rounds share them per seat
count), by identity; the set is kept with it, so its id is not reused."""


def _note_masks(sets: Sequence[frozenset[int]]) -> None:
    for s in sets:
        if id(s) not in _MASK_BY_ID and len(_MASK_BY_ID) < 1024:
            _MASK_BY_ID[id(s)] = (s, sum(1 << q for q in s))


_COMPACT = "an event as [kind, player, positions, cards, seen, note] (trailing ones optional)"


def _compact_event(value: Any, events_at: str, k: int, deck: list[Card]) -> Event:
    """The event a save wrote with :func:`compact_event` (item ``k`` of the array at
    ``events_at``), read strictly."""
    if type(value) is not list or not 2 <= len(value) <= 6:
        raise SaveError(f"{events_at}[{k}]", f"expected {_COMPACT}, found {_found(value)}")
    n = len(value)
    kind: Any = value[0]
    if type(kind) is int and 0 <= kind < len(EVENT_CODES):
        kind = EVENT_CODES[kind]
    elif type(kind) is str:
        if kind in _EVENT_KINDS:
            kind = EventKind(kind)  # else not a round event kind: kept as its text
    else:
        what = f"an event kind (a number from 0 to {len(EVENT_CODES) - 1}, or a text)"
        raise SaveError(f"{events_at}[{k}][0]", f"expected {what}, found {_found(kind)}")
    player = value[1]
    if type(player) is not int:
        raise SaveError(f"{events_at}[{k}][1]", f"expected an integer, found {_found(player)}")
    positions: tuple[tuple[int, int], ...] = ()
    cards: tuple[Card | None, ...] = ()
    seen: frozenset[int] | None = None
    note = ""
    if n > 2:
        flat = value[2]
        if flat or type(flat) is not list:
            if not (type(flat) is list and len(flat) % 2 == 0 and set(map(type, flat)) <= _INT):
                path = f"{events_at}[{k}][2]"
                if type(flat) is list:
                    for i, x in enumerate(flat):
                        _expect(type(x) is int, f"{path}[{i}]", "an integer", x)
                what = "an array of whole numbers: owner, position, owner, position..."
                raise SaveError(path, f"expected {what}, found {_found(flat)}")
            if len(flat) == 2:
                positions = ((flat[0], flat[1]),)
            else:
                positions = tuple(zip(flat[::2], flat[1::2], strict=True))
    if n > 3:
        raw = value[3]
        m = len(deck)
        if type(raw) is not list:
            path = f"{events_at}[{k}][3]"
            raise SaveError(path, f"expected an array of cards, found {_found(raw)}")
        if len(raw) == 1 and type(raw[0]) is int and 0 <= raw[0] < m:
            cards = (deck[raw[0]],)  # the common case: one card
        elif raw:
            out: list[Card | None] = []
            for i, c in enumerate(raw):
                if type(c) is int:
                    if not 0 <= c < m:
                        what = f"a card of the deck, 0 to {m - 1}"
                        raise SaveError(f"{events_at}[{k}][3][{i}]", f"{what}, found {c}")
                    out.append(deck[c])
                else:
                    at = f"{events_at}[{k}][3][{i}]"
                    out.append(None if c is None else _structure(c, Card, at))
            cards = tuple(out)
    if n > 4:
        mask = value[4]
        if not (type(mask) is int and -1 <= mask < 1 << 64):
            what = "a mask of seats or -1"
            raise SaveError(f"{events_at}[{k}][4]", f"expected {what}, found {_found(mask)}")
        if mask >= 0:
            seen = _SEEN.get(mask)
            if seen is None:
                seen = frozenset([q for q in range(mask.bit_length()) if mask >> q & 1])
                if mask < 256:
                    _SEEN[mask] = seen  # immutable: one set per mask, shared
    if n > 5:
        note = value[5]
        if type(note) is not str:
            raise SaveError(f"{events_at}[{k}][5]", f"expected a string, found {_found(note)}")
    return _new_event(Event, (kind, player, positions, cards, seen, note))


_SEEN: dict[int, frozenset[int]] = {}


_new_event = tuple.__new__


def _result_doc(result: RoundResult) -> dict[str, Any]:
    """A round's result as a save writes it (what cattrs would write, written directly)."""
    return {
        "reason": result.reason,
        "caller": result.caller,
        "hands": [
            [{"position": h.position, "card": card_to_json(h.card), "value": h.value} for h in hand]
            for hand in result.hands
        ],
        "totals": list(result.totals),
        "scores": list(result.scores),
        "winners": list(result.winners),
        "caller_lowest": result.caller_lowest,
        "team_totals": list(result.team_totals),
        "combination": result.combination,
    }


def save_round(rnd: Round, *, rules: bool = True) -> dict[str, Any]:
    """The JSON-ready document of ``rnd`` (see :meth:`cambio.Round.to_dict`); without
    ``rules`` the ``rules`` key is left out (:func:`dumps` writes it as text)."""
    power_index = -1
    if rnd._power_now is not None:
        power_index = rnd.rules.powers.table.index(rnd._power_now)
    _note_masks(rnd._only)
    compact = _compacter(rnd.deck)
    result = rnd._result
    state: dict[str, Any] = {
        "phase": int(rnd._phase),
        "current": rnd._current,
        "slots": [row[:] for row in rnd._slots],
        "discard": rnd._discard[:],
        "stock": rnd._stock[:],
        "known": rnd._known[:],
        "drawn": rnd._drawn,
        "from_stock": rnd._from_stock,
        "power": power_index,
        "power_card": rnd._power_card,
        "step": rnd._step,
        "peeked": rnd._peeked[:],
        "after_power_drawn": rnd._after_power_drawn,
        "caller": rnd._caller,
        "final": rnd._final[:],
        "window_open": rnd._window_open,
        "window_discarder": rnd._window_discarder,
        "window_tried": rnd._window_tried,
        "snapper": rnd._snapper,
        "give_target": rnd._give_target,
        "give_return": int(rnd._give_return),
        "turns": rnd._turns[:],
        "total_turns": rnd._total_turns,
        "repeek_used": rnd._repeek_used,
        "opening_seen": [list(p) for p in rnd._opening_seen],
        "pending": rnd._pending[:],
        "recycles": rnd._recycles,
        "events": [compact(e) for e in rnd._events],
        "result": None if result is None else _result_doc(result),
        "window_won": rnd._window_won,
        "closing_reason": rnd._closing_reason,
        "penalty_of": [list(kv) for kv in sorted(rnd._penalty_of.items())],
        "calls_owed": rnd._calls_owed,
    }
    out: dict[str, Any] = {"format": SAVE_FORMAT}
    if rules:
        out["rules"] = _rules_doc(rnd.rules)
    out |= {
        "players": rnd.players,
        "seed": rnd.seed,
        "dealer": rnd.dealer,
        "starter": rnd.starter,
        "deck": [card_to_json(c) for c in rnd.deck],
        "actions": rnd._actions[:],
        "state": state,
    }
    if rnd._origin:  # a round dealt from the start leaves the key out
        out["position"] = rnd._origin
    return out


def load_round(data: Any, *, verify: bool = False) -> Round:
    """A round from :func:`save_round`'s document, checked before it is returned.

    The document is read strictly (no coercion: ``"3"``, ``3.7`` or ``true`` where a
    whole number belongs are errors), the rules are checked like a rule file, and the
    snapshot is restored directly and must pass every invariant of
    :mod:`cambio.invariants`. With ``verify`` (or when the document has no snapshot)
    the actions are also replayed from the deal, and a replay that disagrees with the
    snapshot is an error. Any problem raises :class:`~cambio.errors.SaveError` naming
    the JSON path of the first problem; nothing else escapes.
    """
    check_shape(data)
    if not isinstance(data, dict):
        raise SaveError("$", f"expected a saved round (an object), found {_found(data)}")
    if data.get("format") not in (SAVE_FORMAT, OLD_SAVE_FORMAT):
        raise SaveError("$.format", f"not a saved round (expected format {SAVE_FORMAT!r})")
    doc: SavedRound = _object(data, SavedRound, "$")
    try:
        return _restore(doc, verify)
    except SaveError:
        raise
    except RecursionError:  # pragma: no cover - check_shape bounds every nesting
        raise SaveError("$", "nested too deeply") from None


def _restore(doc: SavedRound, verify: bool) -> Round:
    from .actions import Action, ActionKind
    from .invariants import ensure_consistent
    from .round import Phase, Round

    rules = rules_from_save(doc.rules, "$.rules")
    deck = _deal_of(rules, doc.players, doc.dealer, doc.starter, doc.deck, "$")
    compact = doc.format == SAVE_FORMAT
    actions: list[Action | int] = []
    if compact:
        actions = _structure(doc.actions, list[int], "$.actions")
    else:
        for k, raw in enumerate(doc.actions):
            a: SavedAction = _object(raw, SavedAction, f"$.actions[{k}]")
            try:
                kind = ActionKind(a.kind)
            except ValueError:
                raise SaveError(f"$.actions[{k}].kind", f"unknown action kind {a.kind!r}") from None
            actions.append(Action(kind, a.player, tuple(a.positions)))

    origin: Round | None = None
    if doc.position:
        from .errors import PositionError
        from .position import read_position

        try:
            origin = read_position(rules, doc.position)
        except PositionError as exc:
            raise SaveError("$.position", str(exc)) from None
        if (origin.players, origin.seed, origin.dealer, origin.starter) != (
            doc.players,
            doc.seed,
            doc.dealer,
            doc.starter,
        ) or list(origin.deck) != list(deck or ()):
            raise SaveError(
                "$.position", "the position does not hold the saved players, seed or deck"
            )

    def fresh() -> Round:
        if origin is not None:
            return origin.copy()
        rnd = Round(rules, doc.players, seed=doc.seed, dealer=doc.dealer, starter=doc.starter)
        if deck is None or list(rnd.deck) == deck:
            return rnd  # the seed deals the saved deck (the usual case)
        return Round(
            rules, doc.players, seed=doc.seed, deck=deck, dealer=doc.dealer, starter=doc.starter
        )

    def replay() -> Round:
        rnd = fresh()
        for k, action in enumerate(actions):
            try:
                rnd.apply(action)
            except ValueError as exc:  # IllegalActionError, a malformed action
                raise SaveError(f"$.actions[{k}]", f"cannot be replayed: {exc}") from None
        return rnd

    state = doc.state
    if state is None:
        return replay()
    rnd = fresh()
    at = "$.state."
    phases = len(Phase)
    for name, value in (("phase", state.phase), ("give_return", state.give_return)):
        if not 0 <= value < phases:
            raise SaveError(at + name, f"expected a phase number from 0 to {phases - 1}")
    table = rules.powers.table
    if not -1 <= state.power < len(table):
        raise SaveError(
            at + "power", f"expected -1 (no power) or a power from 0 to {len(table) - 1}"
        )
    rnd._phase = Phase(state.phase)
    rnd._current = state.current
    rnd._slots = [list(row) for row in state.slots]
    rnd._discard = list(state.discard)
    rnd._stock = list(state.stock)
    rnd._known = list(state.known)
    rnd._drawn = state.drawn
    rnd._from_stock = state.from_stock
    rnd._power_now = table[state.power] if state.power >= 0 else None
    rnd._power_card = state.power_card
    rnd._step = state.step
    rnd._peeked = list(state.peeked)
    rnd._after_power_drawn = state.after_power_drawn
    rnd._caller = state.caller
    rnd._final = list(state.final)
    rnd._window_open = state.window_open
    rnd._window_discarder = state.window_discarder
    rnd._window_tried = state.window_tried
    rnd._window_won = state.window_won
    rnd._closing_reason = state.closing_reason
    rnd._penalty_of = {int(c): int(o) for c, o in state.penalty_of}
    rnd._calls_owed = state.calls_owed
    rnd._snapper = state.snapper
    rnd._give_target = state.give_target
    rnd._give_return = Phase(state.give_return)
    rnd._turns = list(state.turns)
    rnd._total_turns = state.total_turns
    rnd._repeek_used = state.repeek_used
    rnd._opening_seen = [tuple(p) for p in state.opening_seen]
    rnd._pending = list(state.pending)
    rnd._recycles = state.recycles
    if compact:
        deck_cards = list(rnd.deck)
        where = f"{at}events"
        rnd._events = [_compact_event(e, where, k, deck_cards) for k, e in enumerate(state.events)]
    else:
        rnd._events = [_event(e, f"{at}events[{k}]") for k, e in enumerate(state.events)]
    rnd._histories = [() for _ in range(rnd.players)]
    rnd._result = state.result
    ids = []
    size = rnd.space.size
    for k, action in enumerate(actions):
        if isinstance(action, int):
            if not 0 <= action < size:
                raise SaveError(
                    f"$.actions[{k}]", f"not an action id of this round (0 to {size - 1})"
                )
            ids.append(action)
            continue
        try:
            ids.append(rnd.space.encode(action))
        except (ValueError, TypeError) as exc:
            raise SaveError(f"$.actions[{k}]", f"not an action of this round: {exc}") from None
    rnd._actions = ids
    rnd._drop_caches()
    ensure_consistent(rnd, at, events=origin is None)
    rnd._state_set()
    if verify and replay() != rnd:
        raise SaveError("$.state", "the saved state disagrees with a replay of the saved actions")
    return rnd


_RULES_READ: dict[str, RuleSet] = {}
"""Rule tables read from saves, by their canonical JSON text: loading many saves of one
table checks its rules once (a RuleSet is immutable, so the loaded rounds may share it)."""


def rules_from_save(raw: dict[str, Any], path: str) -> RuleSet:
    """The RuleSet written at ``path`` of a save; :class:`SaveError` at its first problem.

    The rules are checked like a rule file. The same rules (the same JSON, up to the
    order of keys) read again give the same RuleSet object without a second check.
    """
    from .loading import ruleset_from_dict

    try:
        key = json.dumps(raw, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError):  # not plain JSON data: the full reading says where
        key = ""
    hit = _RULES_READ.get(key) if key else None
    if hit is not None:
        return hit
    try:
        rules = ruleset_from_dict(raw, source=path)
    except RuleSetError as exc:
        first = exc.problems[0]
        where = f"{path}.{first.path}" if first.path else path
        raise SaveError(where, first.message) from None
    if key:
        if len(_RULES_READ) >= 64:
            _RULES_READ.pop(next(iter(_RULES_READ)))  # the oldest
        _RULES_READ[key] = rules
    return rules


def _deal_of(
    rules: RuleSet, players: int, dealer: int, starter: int, deck: list[Card] | None, at: str
) -> list[Card] | None:
    """Check a saved deal against the table; the deck it names, in deal order."""
    lo, hi = rules.players.min, rules.players.max
    if not lo <= players <= hi:
        raise SaveError(f"{at}.players", f"the table seats {lo} to {hi} players, not {players}")
    size = rules.teams.size
    if size > 1 and players % size:
        raise SaveError(f"{at}.players", f"teams of {size} need a multiple of {size} players")
    for name, seat in (("dealer", dealer), ("starter", starter)):
        if not 0 <= seat < players:
            raise SaveError(
                f"{at}.{name}", f"expected a seat from 0 to {players - 1}, found {seat}"
            )
    if deck is None:
        return None
    full = rules.deck.cards()
    if len(deck) != len(full):
        raise SaveError(f"{at}.deck", f"expected the table's {len(full)} cards, found {len(deck)}")
    # compared as (rank, suit) pairs: the same test as comparing the cards, hashed faster
    if Counter([(c.rank, c.suit) for c in deck]) == Counter([(c.rank, c.suit) for c in full]):
        return deck
    extra = Counter(deck) - Counter(full)
    if extra:
        card = next(iter(extra))
        k = max(i for i, c in enumerate(deck) if c == card)
        raise SaveError(f"{at}.deck[{k}]", f"the table's deck holds {card} fewer times")
    return deck


@attrs.frozen
class SavedChange:
    """A house change between actions: new rules (``kind = "rules"``) or a redeal."""

    at: int
    kind: str
    rules: dict[str, Any] | None = None


@attrs.frozen
class SavedMatch:
    """The whole JSON document of a saved match: the table, the deal and the actions."""

    format: str
    rules: dict[str, Any]
    players: int
    seed: int
    actions: list[Any]
    """The action ids in the match's space (``cambio-match/3``), or :class:`SavedAction`
    objects (``cambio-match/2``); checked as they are replayed."""
    decks: list[list[Card] | None] = attrs.field(factory=list)
    changes: list[SavedChange] = attrs.field(factory=list)


def load_match(data: Any) -> Match:
    """A match from :meth:`cambio.Match.to_dict`'s document, replayed and checked.

    Read as strictly as a saved round; every action is replayed through the match's
    own checks. Any problem raises :class:`~cambio.errors.SaveError` at its JSON path.
    """
    from .actions import Action, ActionKind
    from .match import OLD_SAVE_FORMAT as OLD_MATCH_FORMAT
    from .match import SAVE_FORMAT as MATCH_FORMAT
    from .match import Match

    check_shape(data)
    if not isinstance(data, dict):
        raise SaveError("$", f"expected a saved match (an object), found {_found(data)}")
    if data.get("format") not in (MATCH_FORMAT, OLD_MATCH_FORMAT):
        raise SaveError("$.format", f"not a saved match (expected format {MATCH_FORMAT!r})")
    doc: SavedMatch = _object(data, SavedMatch, "$")
    compact = doc.format == MATCH_FORMAT
    if compact:
        _structure(doc.actions, list[int], "$.actions")
    rules = rules_from_save(doc.rules, "$.rules")
    _deal_of(rules, doc.players, 0, 0, None, "$")
    for k, deck in enumerate(doc.decks):
        if deck is not None:
            extra = Counter(deck) - Counter(rules.deck.cards())
            if extra:
                card = next(iter(extra))
                message = f"the table's deck holds {card} fewer times"
                raise SaveError(f"$.decks[{k}]", message)
    try:
        match = Match(rules, doc.players, seed=doc.seed, decks=doc.decks)
    except ValueError as exc:  # pragma: no cover - the deal is checked above
        raise SaveError("$", f"cannot deal this match: {exc}") from None
    changes: dict[int, list[tuple[int, RuleSet | None]]] = {}
    last = 0
    for c, change in enumerate(doc.changes):
        at = f"$.changes[{c}]"
        if not last <= change.at <= len(doc.actions):
            raise SaveError(
                at + ".at", f"expected an action index from {last} to {len(doc.actions)}"
            )
        last = change.at
        if change.kind == "rules":
            if change.rules is None:
                raise SaveError(at + ".rules", "a change of rules needs the new rules")
            new: RuleSet | None = rules_from_save(change.rules, at + ".rules")
        elif change.kind == "redeal":
            if change.rules is not None:
                raise SaveError(at + ".rules", "a redeal takes no rules (expected null)")
            new = None
        else:
            raise SaveError(at + ".kind", f"expected 'rules' or 'redeal', found {change.kind!r}")
        changes.setdefault(change.at, []).append((c, new))
    for k in range(len(doc.actions) + 1):
        for c, new in changes.get(k, ()):
            try:
                if new is None:
                    match.redeal()
                else:
                    match.change_rules(new)
            except ValueError as exc:
                raise SaveError(f"$.changes[{c}]", f"cannot be applied: {exc}") from None
        if k == len(doc.actions):
            break
        raw = doc.actions[k]
        action: Action | int
        if compact:
            if not 0 <= raw < match.space.size:
                size = match.space.size
                raise SaveError(
                    f"$.actions[{k}]", f"not an action id of this match (0 to {size - 1})"
                )
            action = raw
        else:
            a: SavedAction = _object(raw, SavedAction, f"$.actions[{k}]")
            try:
                action = Action(ActionKind(a.kind), a.player, tuple(a.positions))
            except ValueError:
                raise SaveError(f"$.actions[{k}].kind", f"unknown action kind {a.kind!r}") from None
        if match.is_over:
            raise SaveError(f"$.actions[{k}]", "the match is already over")
        try:
            match.apply(action)
        except ValueError as exc:  # IllegalActionError, a malformed action
            raise SaveError(f"$.actions[{k}]", f"cannot be replayed: {exc}") from None
    return match


def dumps(rnd: Round) -> str:
    """:func:`save_round` as compact JSON text (what :meth:`cambio.Round.to_json` returns).

    The rules, turned into JSON once per RuleSet, are written as that text.
    """
    doc = save_round(rnd, rules=False)
    head = json.dumps({"format": doc.pop("format")}, separators=(",", ":"))[:-1]
    rest = json.dumps(doc, separators=(",", ":"))
    return f'{head},"rules":{_rules_text(rnd.rules)},{rest[1:]}'


def _rules_text(rules: RuleSet) -> str:
    """``ruleset_to_dict(rules)`` as compact JSON text, made once per RuleSet object."""
    key = id(rules)
    hit = _RULES_TEXT.get(key)
    if hit is None or hit[0]() is not rules:
        from .loading import ruleset_to_dict

        text = json.dumps(ruleset_to_dict(rules), separators=(",", ":"))

        def forget(_ref: weakref.ref[RuleSet], cache: dict[int, Any] = _RULES_TEXT) -> None:
            cache.pop(key, None)  # the cache bound here: it outlives the module at exit

        hit = _RULES_TEXT[key] = (weakref.ref(rules, forget), text)
    return hit[1]


def loads_round(text: Any, *, verify: bool = False) -> Round:
    """A round from the JSON text of a save (see :func:`load_round`)."""
    return load_round(parse_json(text, "round"), verify=verify)
