"""The cambio protocol: JSON messages that drive tables, shared by every transport.

A client sends one JSON object per message (a *request*); the engine answers each with
exactly one *reply*, an ``error`` reply when it refuses. ``cambio engine`` speaks it on
standard input and output, one message per line; ``cambio serve`` speaks it over
WebSockets. Both hand every message to the same :class:`Engine`.

Every request and reply is described by a JSON Schema shipped in the package
(:func:`schema`), and requests are checked against it before anything else happens.
A refused request never changes any table.

A table's seed (drawn at random when ``create`` gives none) rebuilds every card of the
match, so it is kept secret while the match runs: no ``created``, ``view``, ``events``,
``acted`` or ``error`` reply carries a seed the engine drew; the view's ``match`` part
reveals it once the match is over. A table created with a seed or a prepared deck is
*arranged* (its creator may know the cards) and every view says so. Only ``save``
returns the whole table, seed included: it is for the program that hosts the engine,
which holds every seat anyway (``cambio serve`` refuses it to every connection).

>>> engine = Engine()
>>> engine.handle_text('{"type": "hello", "id": 1}')["protocol"]
1
>>> reply = engine.handle({"type": "create", "variant": "practice", "seed": 7})
>>> reply["type"], reply["table"], reply["players"]
('created', 't1', 3)
>>> view = engine.handle({"type": "view", "table": "t1", "seat": 0})
>>> view["view"]["to_act"], [a["text"] for a in view["legal"]]
(0, ['P0 draw', 'P0 take', 'P0 call'])
>>> engine.handle({"type": "act", "table": "t1", "seat": 0, "action": "take"})["type"]
'acted'
>>> error = engine.handle({"type": "act", "table": "t1", "seat": 1, "action": "draw"})
>>> error["code"], error["message"]
('illegal-action', 'P1 has no legal action now (the table waits for P0)')
>>> engine.handle_text("not json")["code"]
'bad-json'
"""

from __future__ import annotations

import json
import logging
import os
import re
import secrets
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from . import __version__
from .actions import Action
from .bots import BOT_NAMES, Bot, derive_seed, make_bot
from .cards import Card
from .errors import IllegalActionError, RuleSetError
from .events import Event
from .knowledge import SeenBy, seen_by
from .loading import available_variants, load_ruleset, ruleset_from_toml, variant_summaries
from .match import Match
from .round import Round
from .rules import RuleSet
from .scoring import RoundResult
from .seat_names import clean_name, default_names
from .views import PlayerView

if TYPE_CHECKING:
    from .analysis import Analysis

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

__all__ = [
    "ERROR_CODES",
    "HINTS_KEY",
    "MAX_HINT_SAMPLES",
    "MAX_MESSAGE_BYTES",
    "PROTOCOL_VERSION",
    "REQUEST_TYPES",
    "TABLE_FORMAT",
    "MAX_SAVE_BYTES",
    "BotTurn",
    "DamagedFile",
    "Engine",
    "ProtocolError",
    "StoreReport",
    "Table",
    "analysis_json",
    "analysis_position",
    "analysis_reply",
    "check_store",
    "decide_turn",
    "hints_on",
    "schema",
]

PROTOCOL_VERSION = 1
"""The protocol's version; ``hello`` reports it and a client may ask for it."""

MAX_MESSAGE_BYTES = 64 * 1024
"""The default limit on one message's size, in bytes of UTF-8."""

TABLE_FORMAT = "cambio-table/1"
"""The ``format`` of a saved table (``save`` replies and the server's table files)."""

ERROR_CODES: dict[str, str] = {
    "bad-json": "the message is not JSON (or not UTF-8)",
    "bad-message": "the message is JSON but not an object",
    "too-large": "the message is longer than the limit",
    "missing-field": "a field the message type requires is missing",
    "bad-field": "a field has the wrong type or value, or is not part of the message",
    "unknown-type": "no request has this type",
    "unsupported-version": "the engine does not speak the protocol version asked for",
    "unknown-table": "no table has this name",
    "table-exists": "a table already has this name",
    "too-many-tables": "the engine holds as many tables as it may",
    "wrong-seat": "the seat does not exist, is played by a bot, or is not this connection's",
    "illegal-action": "the action is not legal for this seat now",
    "stale-action": (
        "the request answers an earlier position (at differs): an action resent or too "
        "late, or an analysis the table moved on from while it ran"
    ),
    "round-over": "the round shown is over: ask for next-round",
    "not-between-rounds": "next-round while a round is still being played",
    "match-over": "the match is over",
    "match-running": "a rematch while the match is still being played",
    "bad-rules": "the profile or rule text cannot be loaded, or the table cannot seat that",
    "bad-save": "the save document cannot be loaded",
    "unauthorized": "no token, or a token that opens no seat",
    "expired-token": "the token's table has expired",
    "forbidden": "this connection may not send this request",
    "rate-limited": "too many requests or connections from this link or client",
    "internal": "the engine failed; the table is unchanged",
}
"""Every error code a reply may carry, with what it means."""

REQUEST_TYPES = (
    "hello",
    "variants",
    "create",
    "view",
    "act",
    "events",
    "save",
    "load",
    "next-round",
    "name",
    "rematch",
    "close",
    "analyse",
)
"""The request types, in the order the docs list them."""

_MAX_BOT_STEPS = 100_000
_AUTO_NAME = re.compile(r"^t[0-9]+$")


class ProtocolError(Exception):
    """A refused request: ``code`` (one of :data:`ERROR_CODES`), a message, a JSON path."""

    def __init__(self, code: str, message: str, where: str = "") -> None:
        if code not in ERROR_CODES:  # pragma: no cover - a programming mistake
            raise ValueError(f"unknown error code {code!r}")
        self.code = code
        self.message = message
        self.where = where
        super().__init__(f"{code}: {message}")

    def reply(self, reply_to: object = None) -> dict[str, Any]:
        """This error as an ``error`` reply."""
        out: dict[str, Any] = {"type": "error", "code": self.code, "message": self.message}
        if self.where:
            out["where"] = self.where
        if reply_to is not None:
            out["reply_to"] = reply_to
        return out


# ---------------------------------------------------------------------------------------
# Schemas


@cache
def _schema_text() -> str:
    return files("cambio.schemas").joinpath("protocol.json").read_text(encoding="utf-8")


def schema() -> dict[str, Any]:
    """The protocol's JSON Schema document (a fresh copy): ``$defs`` holds every message.

    >>> s = schema()
    >>> s["version"] == PROTOCOL_VERSION, "request.act" in s["$defs"]
    (True, True)
    """
    data: dict[str, Any] = json.loads(_schema_text())
    return data


@cache
def _defs() -> dict[str, Any]:
    defs: dict[str, Any] = schema()["$defs"]
    return defs


_JSON_TYPES: dict[str, Callable[[object], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: type(v) is int,
    "number": lambda v: type(v) in (int, float),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def _describe(value: object) -> str:
    text = json.dumps(value) if not isinstance(value, (dict, list)) else type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."


def _check(node: Mapping[str, Any], value: object, where: str) -> None:
    """Check ``value`` against the subset of JSON Schema the protocol's requests use."""
    if "$ref" in node:
        _check(_defs()[node["$ref"].rsplit("/", 1)[1]], value, where)
        return
    if "const" in node and value != node["const"]:
        raise ProtocolError("bad-field", f"expected {node['const']!r}", where)
    if "enum" in node and value not in node["enum"]:
        raise ProtocolError("bad-field", f"expected one of {node['enum']}", where)
    kinds = node.get("type")
    if kinds is not None:
        kinds = [kinds] if isinstance(kinds, str) else kinds
        if not any(_JSON_TYPES[k](value) for k in kinds):
            raise ProtocolError(
                "bad-field", f"expected {' or '.join(kinds)}, found {_describe(value)}", where
            )
    if isinstance(value, str):
        if len(value) > node.get("maxLength", len(value)) or len(value) < node.get("minLength", 0):
            raise ProtocolError("bad-field", "text of the wrong length", where)
        if "pattern" in node and not re.search(node["pattern"], value):
            raise ProtocolError("bad-field", f"expected text matching {node['pattern']}", where)
    if type(value) is int and not node.get("minimum", value) <= value <= node.get("maximum", value):
        raise ProtocolError("bad-field", f"{value} is out of range", where)
    if isinstance(value, list):
        if len(value) > node.get("maxItems", len(value)):
            raise ProtocolError("bad-field", "too many items", where)
        if len(value) < node.get("minItems", 0):
            raise ProtocolError("bad-field", "too few items", where)
        if "items" in node:
            for i, item in enumerate(value):
                _check(node["items"], item, f"{where}[{i}]")
    if isinstance(value, dict):
        for key in node.get("required", ()):
            if key not in value:
                raise ProtocolError("missing-field", f"missing field {key!r}", f"{where}.{key}")
        props: Mapping[str, Any] = node.get("properties", {})
        if len(value) > node.get("maxProperties", len(value)):
            raise ProtocolError("bad-field", "too many entries", where)
        for key, item in value.items():
            at = f"{where}.{key}"
            if "propertyNames" in node:
                _check(node["propertyNames"], key, at)
            if key in props:
                _check(props[key], item, at)
            elif node.get("additionalProperties") is False:
                raise ProtocolError("bad-field", f"unexpected field {key!r}", at)
            elif isinstance(node.get("additionalProperties"), dict):
                _check(node["additionalProperties"], item, at)


# ---------------------------------------------------------------------------------------
# JSON forms of engine records


def _card(card: Card | None) -> str | None:
    return None if card is None else str(card)


def _action_json(action: Action, action_id: int) -> dict[str, Any]:
    return {
        "id": action_id,
        "text": str(action),
        "kind": action.kind.value,
        "player": action.player,
        "positions": [list(p) for p in action.positions],
    }


def _event_json(event: Event, index: int) -> dict[str, Any]:
    return {
        "index": index,
        "kind": event.kind,
        "player": event.player,
        "positions": [list(p) for p in event.positions],
        "cards": [_card(c) for c in event.cards],
        "note": event.note,
        "text": str(event),
    }


def _result_json(result: RoundResult, seats: tuple[int, ...]) -> dict[str, Any]:
    """A round's result in match seats (``seats[r]`` is round seat ``r``)."""
    return {
        "reason": result.reason,
        "caller": None if result.caller is None else seats[result.caller],
        "winners": [seats[w] for w in result.winners],
        "seats": list(seats),
        "totals": list(result.totals),
        "scores": list(result.scores),
        "hands": [
            [{"position": h.position, "card": str(h.card), "value": h.value} for h in hand]
            for hand in result.hands
        ],
    }


class _SeenFold:
    """:func:`~cambio.knowledge.seen_by` of a round's public record, fed only the events
    logged since the last view (the answer is the same for every viewer of a round)."""

    def __init__(self) -> None:
        self.round: Round | None = None
        self.fold: SeenBy | None = None
        self.fed = 0

    def masks(self, rnd: Round, view: PlayerView, width: int) -> tuple[tuple[int, ...], ...]:
        history = view.history
        fold = self.fold
        if (
            self.round is not rnd
            or fold is None
            or fold.positions != width
            or self.fed > len(history)
        ):
            fold = self.fold = SeenBy(view.players, width)
            self.round, self.fed = rnd, 0
        fold.feed(history[self.fed :])
        self.fed = len(history)
        return fold.masks()


def _known_by(
    view: PlayerView,
    seats: tuple[int, ...],
    players: int,
    viewer: int | None,
    masks: tuple[tuple[int, ...], ...] | None = None,
) -> list[list[list[int]]]:
    """Who else is known to have seen the card now at each position, in match seats.

    ``out[owner][i]`` lists the seats other than ``viewer`` that saw the card now at
    ``owner``'s position ``i + 1``, worked out from the public part of the history (see
    :mod:`cambio.knowledge`; ``masks``: its answer, when the caller keeps it). Never a
    card, only seats.
    """
    if masks is None:
        width = max((len(row) for row in view.present), default=0)
        masks = seen_by(view.history, players=view.players, positions=width)
    out: list[list[list[int]]] = [[] for _ in range(players)]
    for r, s in enumerate(seats):
        out[s] = [
            sorted(seats[o] for o in range(view.players) if mask >> o & 1 and seats[o] != viewer)
            if here
            else []
            for here, mask in zip(view.present[r], masks[r], strict=False)
        ]
    return out


def _normalise(text: str) -> str:
    return " ".join(text.lower().split())


# ---------------------------------------------------------------------------------------
# Tables


@attrs.frozen
class BotTurn:
    """A decision a table's bot owes: everything the bot may know, and nothing else.

    Picklable, so the decision can be taken in another process (:func:`decide_turn`).
    """

    table: str
    at: int
    """The table's position when the turn was asked (:attr:`Table.at`)."""
    showing: int
    seat: int
    kind: str
    """``act`` (its move) or ``react`` (it may snap)."""
    bot: str
    """The bot's name (:data:`cambio.bots.BOT_NAMES`)."""
    rules: RuleSet
    seed: int
    """The seed of this decision (from the match's seed, the round, the seat, ``at``)."""
    view: PlayerView
    choices: tuple[Action, ...]


def decide_turn(turn: BotTurn) -> Action | None:
    """A fresh bot's answer to ``turn`` (``None``: it does not snap).

    The answer depends only on the turn (the bot reads its memory from the view's
    history), so any process gives the same one.
    """
    bot = make_bot(turn.bot)
    bot.reset(turn.seat, turn.rules, turn.seed)
    if turn.kind == "react":
        return bot.react(turn.view, turn.choices)
    return bot.act(turn.view, turn.choices)


class Table:
    """One table: a :class:`~cambio.match.Match`, its bots, and the round on show.

    Between two rounds of a match the finished round stays on show (its final reveal
    and scores) until somebody asks for ``next-round``; meanwhile nobody may act.
    ``meta`` is free data that a transport keeps with the table (the server's tokens).

    ``names`` holds the names seats chose (a seat without one is called as
    :func:`~cambio.seat_names.default_names` says). ``aids`` marks a table of learner's
    aids: its pages keep showing every card a seat has seen, where a table without
    them shows a card only while the table shows it (the opening peek until it is
    hidden, a peek until it is hidden, the final reveal). It is chosen when the table
    is created and every view carries it. ``hints`` marks a table whose seats may ask
    for the ``analyse`` request (:func:`analysis_reply`): chosen at creation too, kept in
    saves, and carried by every view, since a table with hints is another game.

    ``arranged`` says that whoever made the table may know its cards: it gave the seed
    or a prepared deck. A match with a prepared deck is always arranged. Every view
    carries the flag, and saves keep it. The match's seed itself appears in no view
    until the match is over (then in the view's ``match`` part, so the deal can be
    checked afterwards).
    """

    def __init__(
        self,
        name: str,
        match: Match,
        bots: Mapping[int, str],
        *,
        showing: int | None = None,
        meta: Mapping[str, Any] | None = None,
        log: list[Event] | None = None,
        arranged: bool = False,
        names: Mapping[int, str] | None = None,
        aids: bool = False,
        hints: bool = False,
    ) -> None:
        self.name = name
        self.names: dict[int, str] = dict(sorted((names or {}).items()))
        """The names seats chose, by match seat."""
        self.aids = bool(aids)
        """Learner's aids: pages show every card a seat has seen, for the whole round."""
        self.hints = bool(hints)
        """Seats may ask for an analysis of their decision (the ``analyse`` request)."""
        self.match = match
        self.arranged = bool(arranged) or any(d is not None for d in match.decks)
        """Its creator chose the seed or a deck, so the creator may know the cards."""
        self.log: list[Event] = _opening_log(match) if log is None else log
        """Every event of the match so far, round and match events, in match seats."""
        self.bot_names: dict[int, str] = dict(sorted(bots.items()))
        self.showing = len(match.played_rounds) - 1 if showing is None else showing
        self.meta: dict[str, Any] = dict(meta or {})
        self._bots: dict[int, Bot] = {seat: make_bot(n) for seat, n in self.bot_names.items()}
        self._asked: set[tuple[int, int]] = set()
        self._seen = _SeenFold()
        self._public: tuple[Round, int, PlayerView] | None = None
        """The round on show's public view at a position: every seat's view reads it."""
        self._reset_bots()

    # -- state -------------------------------------------------------------------------
    @property
    def at(self) -> int:
        """How many actions the table has applied (the sequence number ``act`` checks)."""
        return len(self.match.actions)

    @property
    def between_rounds(self) -> bool:
        """The round on show is over and the match has dealt the next one."""
        return self.showing < len(self.match.played_rounds) - 1

    def _shown(self) -> tuple[Round, tuple[int, ...]]:
        """The round on show and its seats (round seat ``r`` is match seat ``seats[r]``)."""
        m = self.match
        if self.showing < len(m.records):
            return m.played_rounds[self.showing], m.records[self.showing].players
        return m.round, m.round_seats

    def seat_names(self) -> list[str]:
        """The name of every match seat (a chosen one, else the default)."""
        names = default_names(self.match.players, self.bot_names)
        for seat, chosen in self.names.items():
            if 0 <= seat < len(names):
                names[seat] = chosen
        return names

    def rename(self, seat: int, name: object) -> None:
        """Give ``seat`` the name ``name`` (cleaned; ``bad-field`` if it cannot be one)."""
        try:
            self.names[seat] = clean_name(name)
        except ValueError as error:
            raise ProtocolError("bad-field", str(error), "$.name") from None

    def rematch(self) -> None:
        """Start the match again once it is over: the same rules, seats, bots, names,
        aids and hints, a fresh deal from a seed drawn here (kept secret, so not arranged)."""
        m = self.match
        if not m.is_over:
            raise ProtocolError("match-running", "the match is still being played")
        self.match = Match(m.rules, m.players, seed=secrets.randbelow(2**63))
        self.arranged = False
        self.log = _opening_log(self.match)
        self.showing = 0
        self._seen = _SeenFold()
        self._reset_bots()

    def _reset_bots(self) -> None:
        for seat, bot in self._bots.items():
            bot.reset(seat, self.match.rules, derive_seed(self.match.seed, self.showing, seat))
        self._asked.clear()

    # -- views -------------------------------------------------------------------------
    def view(self, seat: int | None) -> dict[str, Any]:
        """The JSON view of match seat ``seat`` (``None``: a spectator, public only)."""
        m = self.match
        rnd, seats = self._shown()
        n = m.players
        index = {s: r for r, s in enumerate(seats)}
        # a spectator's own view, public information only; every action changes the
        # position (``at``), so one made per round and position serves every seat
        cached = self._public
        if cached is None or cached[0] is not rnd or cached[1] != self.at:
            cached = self._public = (rnd, self.at, rnd.public_view())
        reference = cached[2]
        own: PlayerView | None = None
        if seat is not None and seat in index:
            own = rnd.view(index[seat])
        shown = own if own is not None else reference

        def match_seat(r: int | None) -> int | None:
            return None if r is None else seats[r]

        grids: list[list[str | None]] = [[] for _ in range(n)]
        present: list[list[bool]] = [[] for _ in range(n)]
        for r, s in enumerate(seats):
            present[s] = list(reference.present[r])
            if own is not None:
                grids[s] = [_card(c) for c in own.grids[r]]
            else:
                grids[s] = [None] * len(reference.present[r])
        holding = shown.holding if own is not None else None
        if own is None and reference.holding_from_stock is False:
            holding = reference.holding  # taken from the discard pile: public
        result = rnd.result
        records = m.records
        step = shown.power_step
        fires = None  # the steps that discarding the card this seat holds would start
        powers = m.rules.powers
        if own is not None and own.holding is not None and own.holding_from_stock:
            power = powers.power_of(own.holding) if powers.timing == "discard" else None
            if power is not None:
                fires = [
                    f"{s.action} {s.scope}" + (" (optional)" if s.optional else "")
                    for s in power.steps
                ]
        return {
            "table": self.name,
            "seat": seat,
            "players": n,
            "rules": m.rules.name,
            "arranged": self.arranged,
            "at": self.at,
            "round": self.showing + 1,
            "between_rounds": self.between_rounds,
            "match_over": m.is_over and self.showing == len(m.played_rounds) - 1,
            "phase": shown.phase,
            "current": seats[shown.current],
            "to_act": None if self.between_rounds else match_seat(shown.to_act),
            "caller": match_seat(shown.caller),
            "grid_size": shown.grid_size,
            "round_seats": list(seats),
            "grids": grids,
            "present": present,
            "discard_top": _card(shown.top_discard),
            "discard_size": len(shown.discard),
            "stock_size": shown.stock_size,
            "holding": _card(holding),
            "holding_from_stock": shown.holding_from_stock,
            "power": shown.power,
            "power_step": None
            if step is None
            else f"{step.action} {step.scope}" + (" (optional)" if step.optional else ""),
            "window_open": shown.window_open,
            "discard_power": fires,
            "opening_positions": list(own.opening_positions) if own is not None else [],
            "known_by": _known_by(
                shown,
                seats,
                n,
                seat,
                self._seen.masks(rnd, shown, max((len(row) for row in shown.present), default=0)),
            ),
            "bots": {str(s): name for s, name in self.bot_names.items()},
            "names": self.seat_names(),
            "aids": self.aids,
            "hints": self.hints,
            "result": None if result is None else _result_json(result, seats),
            "match": {
                "round_number": self.showing + 1,
                "totals": list(records[self.showing].totals)
                if self.showing < len(records)
                else list(m.totals),
                "rounds": [
                    {"number": r.number, "scores": list(r.scores), "totals": list(r.totals)}
                    for r in records[: self.showing + (1 if result is not None else 0)]
                ],
                "eliminated": list(m.eliminated),
                "over": m.is_over,
                "winners": [] if m.result is None else list(m.result.winners),
                "reason": None if m.result is None else m.result.reason,
                "seed": m.seed if m.is_over else None,  # secret while the match runs
            },
        }

    def legal(self, seat: int | None) -> list[dict[str, Any]]:
        """The legal actions of ``seat`` now (none between rounds or for a spectator)."""
        if seat is None or self.between_rounds or self.match.is_over:
            return []
        m = self.match
        return [_action_json(m.space.decode(i), i) for i in m.legal_action_ids(seat)]

    def events(self, seat: int | None, since: int = 0) -> list[dict[str, Any]]:
        """The table's events from ``since`` as ``seat`` saw them (``None``: public only)."""
        viewer = -1 if seat is None else seat
        log = self.log
        return [_event_json(log[i].as_seen_by(viewer), i) for i in range(since, len(log))]

    # -- changes -----------------------------------------------------------------------
    def resolve(self, seat: int, action: object) -> int:
        """The id of the action ``seat`` asks for (an id or a text); errors if not legal."""
        m = self.match
        if m.is_over and not self.between_rounds:
            raise ProtocolError("match-over", "the match is over")
        if self.between_rounds:
            raise ProtocolError("round-over", "the round is over: ask for next-round")
        legal = m.legal_action_ids(seat)
        if type(action) is int:
            if not 0 <= action < m.space.size:
                raise ProtocolError("illegal-action", f"there is no action {action}", "$.action")
            decoded = m.space.decode(action)
            if decoded.player != seat:
                raise ProtocolError(
                    "wrong-seat", f"action {action} ({decoded}) is P{decoded.player}'s", "$.action"
                )
            if action not in legal:
                try:
                    m.verify(action)
                except IllegalActionError as error:
                    raise ProtocolError("illegal-action", str(error), "$.action") from None
                raise ProtocolError("illegal-action", f"{decoded} is not legal now", "$.action")
            return action
        wanted = _normalise(str(action))
        prefix = f"p{seat} "
        for i in legal:
            text = _normalise(str(m.space.decode(i)))
            if wanted in (text, text.removeprefix(prefix)):
                return i
        if not legal:
            waiting = "" if m.to_act is None else f" (the table waits for P{m.to_act})"
            raise ProtocolError(
                "illegal-action", f"P{seat} has no legal action now{waiting}", "$.action"
            )
        raise ProtocolError(
            "illegal-action",
            f"no legal action of P{seat} reads {str(action)!r}; legal: "
            + ", ".join(str(m.space.decode(i)) for i in legal),
            "$.action",
        )

    def apply(self, action_id: int) -> None:
        """Apply a checked action id."""
        self.log.extend(self.match.apply(action_id))

    def bot_turn(self) -> BotTurn | None:
        """The next decision a bot of this table owes, or ``None`` (a person decides, or
        nobody): a reaction of a bot that may snap (asked once per position), else the
        move of a bot to act. A bot's answer comes back through :meth:`apply_bot`."""
        m = self.match
        if self.between_rounds or m.is_over:
            return None
        for p in m.reactors:
            if p in self._bots and (self.at, p) not in self._asked:
                self._asked.add((self.at, p))
                view = m.view(p).round
                snaps = tuple(a for a in m.legal_actions(p) if a.kind.value == "snap")
                if view is not None and snaps:
                    return self._turn(p, "react", view, snaps)
        actor = m.to_act
        if actor is not None and actor in self._bots:
            view = m.view(actor).round
            if view is not None:
                return self._turn(actor, "act", view, tuple(m.legal_actions(actor)))
        return None

    def _turn(self, seat: int, kind: str, view: PlayerView, choices: tuple[Action, ...]) -> BotTurn:
        return BotTurn(
            table=self.name,
            at=self.at,
            showing=self.showing,
            seat=seat,
            kind=kind,
            bot=self.bot_names[seat],
            rules=self.match.rules,
            seed=derive_seed(self.match.seed, self.showing, seat, self.at, kind),
            view=view,
            choices=choices,
        )

    def apply_bot(self, turn: BotTurn, action: Action | None) -> bool:
        """Apply a bot's answer to ``turn`` if the table is still where the turn was
        asked and the action is legal; True if it was applied."""
        if action is None or turn.at != self.at or turn.showing != self.showing:
            return False
        if action not in turn.choices or not self.match.can_apply(action):
            return False
        self.log.extend(self.match.apply(action))
        return True

    def bot_step(self) -> bool:
        """Let one bot decide, if the round waits for one or a bot may snap; True if one
        did. The table's own bots decide here, in this process, each keeping its memory
        from one decision to the next (a server asks :func:`decide_turn` elsewhere)."""
        for _ in range(self.match.players + 1):
            turn = self.bot_turn()
            if turn is None:
                return False
            bot = self._bots[turn.seat]
            if turn.kind == "react":
                chosen = bot.react(turn.view, turn.choices)
                if chosen is None:
                    continue  # it lets the snap go: ask the next reactor or the actor
            else:
                chosen = bot.act(turn.view, turn.choices)
            return self.apply_bot(turn, chosen)
        return False

    def run_bots(self) -> None:
        """Let the bots move until a person must decide (bounded)."""
        for _ in range(_MAX_BOT_STEPS):
            if not self.bot_step():
                return

    def next_round(self) -> None:
        """Show the next round of the match (only between rounds)."""
        if not self.between_rounds:
            if self.match.is_over:
                raise ProtocolError("match-over", "the match is over: there is no next round")
            raise ProtocolError("not-between-rounds", "the current round is still being played")
        self.showing += 1
        self._reset_bots()

    # -- saving ------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The table as a save document (:meth:`from_dict` reads it back)."""
        return self._document(self.match.to_dict())

    def _document(self, match: object) -> dict[str, Any]:
        """The save document with ``match`` in the match's place."""
        return {
            "format": TABLE_FORMAT,
            "name": self.name,
            "match": match,
            "bots": {str(s): n for s, n in self.bot_names.items()},
            "showing": self.showing,
            "arranged": self.arranged,
            "names": {str(s): n for s, n in self.names.items()},
            "aids": self.aids,
            "hints": self.hints,
            "meta": self.meta,
        }

    def to_json(self) -> str:
        """:meth:`to_dict` as compact JSON text, made without re-encoding the parts of
        the match that never change (see :meth:`cambio.Match.to_json`)."""
        head, _, tail = json.dumps(self._document(0), separators=(",", ":")).partition('"match":0,')
        return f'{head}"match":{self.match.to_json()},{tail}'

    @classmethod
    def from_dict(cls, data: object, name: str | None = None) -> Table:
        """A table from :meth:`to_dict`'s document; ``ProtocolError('bad-save')`` if not one."""
        if not isinstance(data, dict) or data.get("format") != TABLE_FORMAT:
            raise ProtocolError("bad-save", f"not a saved table (format {TABLE_FORMAT!r})")
        try:
            checked = Match.from_dict(data["match"])  # every action checked as replayed
            match = Match(checked.rules, checked.players, seed=checked.seed, decks=checked.decks)
            log = _opening_log(match)
            for action in checked.actions:  # replayed again to rebuild the event log
                log.extend(match.apply(action))
            bots = _bots_from(data.get("bots", {}), match.players)
            showing = data.get("showing", 0)
            if type(showing) is not int or not 0 <= showing < len(match.played_rounds):
                raise ValueError(f"bad showing {showing!r}")
            meta = data.get("meta", {})
            if not isinstance(meta, dict):
                raise ValueError("meta must be an object")
            table_name = name or data.get("name")
            if not isinstance(table_name, str):
                raise ValueError("a saved table needs a name")
            # a save without the flag (written before tables carried it) cannot tell a
            # seed its creator gave from one the engine drew: only its decks arrange it
            arranged = data.get("arranged", False)
            if not isinstance(arranged, bool):
                raise ValueError("arranged must be true or false")
            aids = data.get("aids", False)
            if not isinstance(aids, bool):
                raise ValueError("aids must be true or false")
            hints = data.get("hints", False)
            if not isinstance(hints, bool):
                raise ValueError("hints must be true or false")
            names = _names_from(data.get("names", {}), match.players)
            return cls(
                table_name,
                match,
                bots,
                showing=showing,
                meta=meta,
                log=log,
                arranged=arranged,
                names=names,
                aids=aids,
                hints=hints,
            )
        except ProtocolError as error:
            raise ProtocolError("bad-save", error.message) from None
        except (ValueError, TypeError, KeyError, IndexError, RuleSetError) as error:
            raise ProtocolError("bad-save", f"cannot load the table: {error}") from None


def _opening_log(match: Match) -> list[Event]:
    """The events of a match that no action has touched yet (the deal of round one)."""
    if match.actions:
        raise ValueError("the opening log of a match already under way is unknown")
    return [*match.events, *match.round.events]


def _names_from(raw: object, players: int) -> dict[int, str]:
    """The ``names`` of a create request or a save: seat number as a string, a name."""
    if not isinstance(raw, dict):
        raise ProtocolError("bad-field", "names must map seats to names", "$.names")
    out: dict[int, str] = {}
    for key, name in raw.items():
        where = f"$.names.{key}"
        if not isinstance(key, str) or not key.isdigit() or int(key) >= players:
            raise ProtocolError("wrong-seat", f"there is no seat {key} at this table", where)
        try:
            out[int(key)] = clean_name(name)
        except ValueError as error:
            raise ProtocolError("bad-field", str(error), where) from None
    return out


def _bots_from(raw: object, players: int) -> dict[int, str]:
    if not isinstance(raw, dict):
        raise ProtocolError("bad-field", "bots must map seats to bot names", "$.bots")
    out: dict[int, str] = {}
    for key, name in raw.items():
        where = f"$.bots.{key}"
        if not isinstance(key, str) or not key.isdigit() or int(key) >= players:
            raise ProtocolError("wrong-seat", f"there is no seat {key} at this table", where)
        if not isinstance(name, str) or name.strip().lower() not in BOT_NAMES:
            raise ProtocolError(
                "bad-field", f"unknown bot {name!r}; bots: {', '.join(BOT_NAMES)}", where
            )
        out[int(key)] = name.strip().lower()
    return out


# ---------------------------------------------------------------------------------------
# The engine


# -- the store: one file per table; a file that does not load spoils only itself -------

MAX_SAVE_BYTES = 16 * 1024 * 1024
"""The largest table file a store loads; a larger one is moved aside without being read."""

_TABLE_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
# what write_saved's tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp") leaves on a kill
_LEFTOVER = re.compile(r"\..+\.[A-Za-z0-9_]+\.tmp")
_store_log = logging.getLogger("cambio.store")


def table_name_ok(name: str) -> bool:
    """Whether ``name`` may name a table (and its file ``NAME.json``)."""
    return _TABLE_NAME.fullmatch(name) is not None


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that a crash leaves the old file or the new one,
    never a part: a temporary file beside it, fsync, then a rename over ``path``."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@attrs.frozen
class DamagedFile:
    """A file of a store that does not load as a table, and why."""

    file: str
    """Its name in the store's folder."""
    reason: str
    moved_to: Path | None = None
    """Where it was moved aside (``None``: left where it is, as ``--check`` leaves it)."""


@attrs.define
class StoreReport:
    """What opening a store found: the tables that load, the files that do not, and
    the leftovers of interrupted writes. ``changed`` is False when nothing was moved
    or removed (:func:`check_store`)."""

    folder: Path
    changed: bool = True
    loaded: list[str] = attrs.Factory(list)
    """The names of the tables that load, in the order of their files."""
    damaged: list[DamagedFile] = attrs.Factory(list)
    leftovers: list[str] = attrs.Factory(list)
    """Temporary files left by interrupted writes (removed, unless ``changed`` is False)."""

    @property
    def ok(self) -> bool:
        """Every table file loads."""
        return not self.damaged

    def lines(self) -> list[str]:
        """The report as text: a summary line, then one line per file."""

        def count(items: list[Any], noun: str) -> str:
            return f"{len(items)} {noun}{'' if len(items) == 1 else 's'}"

        loads, moved, removed = (
            ("loaded", "moved aside", "removed")
            if self.changed
            else ("loads", "to move", "to remove")
        )
        out = [
            f"{self.folder}: {loads} {count(self.loaded, 'table')}; "
            f"{count(self.damaged, 'damaged file')} {moved} into {self.folder / 'damaged'}; "
            f"{count(self.leftovers, 'leftover')} of interrupted writes {removed}"
        ]
        out += [f"loads: {name}.json" for name in self.loaded]
        for entry in self.damaged:
            where = f" (now {entry.moved_to})" if entry.moved_to is not None else ""
            out.append(f"damaged: {entry.file}: {entry.reason}{where}")
        out += [f"leftover: {name}" for name in self.leftovers]
        return out


def _reason(text: str) -> str:
    """One short line (an error's text may be long or span lines)."""
    line = " ".join(text.split())
    return line if len(line) <= 300 else line[:297] + "..."


def _read_table_file(path: Path) -> Table | str:
    """The table saved in ``path``, or why it does not load. Refuses anything but a
    regular file (a folder, a symbolic link), and a file over :data:`MAX_SAVE_BYTES`
    before reading it."""
    try:
        info = path.lstat()
    except OSError as error:
        return f"cannot be read: {error.strerror or error}"
    if stat.S_ISLNK(info.st_mode):
        return "a symbolic link, not a table file"
    if stat.S_ISDIR(info.st_mode):
        return "a folder, not a table file"
    if not stat.S_ISREG(info.st_mode):
        return "not a regular file"
    if info.st_size > MAX_SAVE_BYTES:
        return f"{info.st_size} bytes, more than a table file may hold ({MAX_SAVE_BYTES})"
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        with os.fdopen(os.open(path, flags), "rb") as stream:
            if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
                return "not a regular file"
            raw = stream.read(MAX_SAVE_BYTES + 1)
    except OSError as error:
        return f"cannot be read: {error.strerror or error}"
    if len(raw) > MAX_SAVE_BYTES:
        return f"more than a table file may hold ({MAX_SAVE_BYTES} bytes)"
    if not raw.strip():
        return "empty"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return f"not UTF-8 text (byte {error.start})"
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as error:
        return _reason(f"not JSON: {error}")
    try:
        return Table.from_dict(data)
    except ProtocolError as error:
        return _reason(f"not a valid save: {error.message}")
    except Exception as error:  # a save no check foresaw: it spoils only itself
        return _reason(f"cannot load the table: {type(error).__name__}: {error}")


def _move_aside(folder: Path, path: Path) -> Path:
    """Move ``path`` into ``folder/damaged/``, its name plus the time (never over
    another file)."""
    aside = folder / "damaged"
    aside.mkdir(exist_ok=True)
    if aside.is_symlink() or not aside.is_dir():
        raise OSError(f"{aside} is not a folder")
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    target, n = aside / f"{path.name}.{stamp}", 1
    while os.path.lexists(target):
        n += 1
        target = aside / f"{path.name}.{stamp}.{n}"
    os.rename(path, target)
    return target


def _open_store(folder: Path, *, change: bool) -> tuple[StoreReport, list[Table]]:
    """Every table of ``folder`` that loads, each on its own, and the report. With
    ``change``, files that do not load are moved aside (each logged on the
    ``cambio.store`` logger) and leftovers of interrupted writes removed."""
    report = StoreReport(folder, changed=change)
    for path in sorted(folder.glob(".*.tmp")):
        if not _LEFTOVER.fullmatch(path.name) or path.is_symlink() or not path.is_file():
            continue
        report.leftovers.append(path.name)
        if change:
            try:
                path.unlink()
                _store_log.info("cambio: removed %s, left by an interrupted write", path)
            except OSError as error:
                _store_log.warning("cambio: cannot remove %s: %s", path, error)
    bad: list[tuple[Path, str]] = []
    good: list[tuple[Path, Table]] = []
    for path in sorted(folder.glob("*.json")):
        if not _TABLE_NAME.fullmatch(path.stem):
            bad.append((path, "the file name is not a table name (A-Z a-z 0-9 _ . -, 64 at most)"))
            continue
        loaded = _read_table_file(path)
        if isinstance(loaded, str):
            bad.append((path, loaded))
        else:
            good.append((path, loaded))
    # the file a table's name belongs to is NAME.json: another file with a save of that
    # name is a duplicate, and a save named unlike its file is refused
    owners = {table.name: path for path, table in good if table.name == path.stem}
    tables: list[Table] = []
    for path, table in good:
        owner = owners.get(table.name)
        if owner is None:
            bad.append((path, _reason(f"the save is named {table.name!r}, unlike its file")))
        elif owner != path:
            bad.append((path, f"duplicate table name {table.name} (also in {owner.name})"))
        else:
            tables.append(table)
            report.loaded.append(table.name)
    for path, reason in sorted(bad):
        moved: Path | None = None
        if change:
            try:
                moved = _move_aside(folder, path)
                _store_log.warning("cambio: %s moved aside to %s: %s", path, moved, reason)
            except OSError as error:
                _store_log.warning(
                    "cambio: %s not loaded (and cannot be moved aside: %s): %s", path, error, reason
                )
        report.damaged.append(DamagedFile(path.name, reason, moved))
    return report, tables


def check_store(folder: str | os.PathLike[str]) -> StoreReport:
    """What an engine on ``folder`` would load, move aside and remove, changing nothing."""
    return _open_store(Path(folder), change=False)[0]


class Engine:
    """Every table of one engine process, and the one function that answers a message.

    ``store`` (a folder) keeps every table on disk: each change is written atomically to
    ``STORE/TABLE.json``, and a new engine on the same folder resumes every table at its
    last applied action. A file there that does not load is moved aside into
    ``STORE/damaged/`` and every other table loads (see :attr:`store_report`).
    ``max_tables`` and ``max_bytes`` are the limits.

    With ``defer_writes`` a change is not written at once: its save is taken (the table
    as it is now) and kept until :meth:`take_unsaved` hands it over, for a server to
    write with :meth:`write_saved` away from its event loop before it answers.
    """

    def __init__(
        self,
        *,
        store: str | os.PathLike[str] | None = None,
        max_tables: int = 1000,
        max_bytes: int = MAX_MESSAGE_BYTES,
        auto_bots: bool = True,
        defer_writes: bool = False,
    ) -> None:
        self.tables: dict[str, Table] = {}
        self.defer_writes = defer_writes
        # table name -> its save text to write, or None: its file to remove (deferred)
        self._unsaved: dict[str, str | None] = {}
        self.auto_bots = auto_bots
        """Bots move at once after each change; a server that paces them turns this off."""
        self.max_tables = max_tables
        self.max_bytes = max_bytes
        self.store = None if store is None else Path(store)
        self._counter = 0
        self.store_report: StoreReport | None = None
        """What opening the store found (``None`` without one): the tables loaded, the
        files moved aside into ``STORE/damaged/`` and why, the leftovers removed."""
        if self.store is not None:
            self.store.mkdir(parents=True, exist_ok=True)
            self.store_report, tables = _open_store(self.store, change=True)
            for table in tables:
                self.tables[table.name] = table
                self._bots_move(table)

    # -- persistence -------------------------------------------------------------------
    def persist(self, table: Table) -> None:
        """Write ``table`` to the store (atomically: a temporary file, fsync, rename);
        with ``defer_writes``, take its save now and keep it for :meth:`take_unsaved`."""
        if self.store is None:
            return
        text = table.to_json()
        if self.defer_writes:
            self._unsaved[table.name] = text
        else:
            self.write_saved(table.name, text)

    def take_unsaved(self) -> dict[str, str | None]:
        """The changes kept since the last call (``defer_writes``), in the order they
        were made: table name -> its save text, or ``None`` when the table was closed.
        Write them in that order with :meth:`write_saved`."""
        unsaved, self._unsaved = self._unsaved, {}
        return unsaved

    def write_saved(self, name: str, text: str | None) -> None:
        """Write one table's save ``text`` to the store atomically (a temporary file,
        fsync, rename), or remove its file when ``text`` is ``None``. Touches no table,
        so a server may call it from another thread (one writer at a time)."""
        if self.store is None:
            return
        path = self.store / f"{name}.json"
        if text is None:
            path.unlink(missing_ok=True)
            return
        write_atomically(path, text)

    def _forget(self, name: str) -> None:
        self.tables.pop(name, None)
        if self.store is None:
            return
        if self.defer_writes:
            self._unsaved[name] = None
        else:
            self.write_saved(name, None)

    # -- entry points ------------------------------------------------------------------
    def handle_text(self, text: str | bytes) -> dict[str, Any]:
        """Answer one message given as text (a line of ``cambio engine``'s input)."""
        size = len(text) if isinstance(text, bytes) else len(text.encode("utf-8", "replace"))
        if size > self.max_bytes:
            return ProtocolError(
                "too-large", f"the message has {size} bytes; the limit is {self.max_bytes}"
            ).reply()
        try:
            message = json.loads(text)
        except (ValueError, RecursionError) as error:
            return ProtocolError("bad-json", f"not JSON: {error}").reply()
        return self.handle(message)

    def handle(self, message: object) -> dict[str, Any]:
        """Answer one decoded message; never raises for anything a client sends."""
        reply_to = message.get("id") if isinstance(message, dict) else None
        if isinstance(reply_to, (dict, list, float, bool)):
            reply_to = None
        try:
            reply = self._dispatch(message)
        except ProtocolError as error:
            return error.reply(reply_to)
        except Exception as error:  # pragma: no cover - a bug, reported not raised
            return ProtocolError("internal", f"{type(error).__name__}: {error}").reply(reply_to)
        if reply_to is not None:
            reply["reply_to"] = reply_to
        return reply

    def check(self, message: object) -> dict[str, Any]:
        """The message checked against its request schema; ``ProtocolError`` if it fails."""
        if not isinstance(message, dict):
            raise ProtocolError("bad-message", "a message must be a JSON object")
        kind = message.get("type")
        if kind is None:
            raise ProtocolError("missing-field", "a message needs a type", "$.type")
        if not isinstance(kind, str) or kind not in REQUEST_TYPES:
            raise ProtocolError(
                "unknown-type",
                f"unknown message type {_describe(kind)}; types: {', '.join(REQUEST_TYPES)}",
                "$.type",
            )
        _check(_defs()[f"request.{kind}"], message, "$")
        return message

    def _dispatch(self, message: object) -> dict[str, Any]:
        msg = self.check(message)
        handler: Callable[[dict[str, Any]], dict[str, Any]] = getattr(
            self, "_on_" + msg["type"].replace("-", "_")
        )
        return handler(msg)

    def table(self, name: str) -> Table:
        """The table called ``name``, or ``ProtocolError('unknown-table')``."""
        try:
            return self.tables[name]
        except KeyError:
            raise ProtocolError("unknown-table", f"no table {name!r}", "$.table") from None

    def _seat(self, table: Table, seat: int, *, acting: bool) -> int:
        if seat >= table.match.players:
            raise ProtocolError("wrong-seat", f"table {table.name} has no seat {seat}", "$.seat")
        if acting and seat in table.bot_names:
            raise ProtocolError("wrong-seat", f"seat {seat} is played by a bot", "$.seat")
        return seat

    def _new_name(self) -> str:
        while True:
            self._counter += 1
            name = f"t{self._counter}"
            if name not in self.tables:
                return name

    def _bots_move(self, table: Table) -> None:
        if self.auto_bots:
            table.run_bots()

    def _add(self, table: Table) -> None:
        self.tables[table.name] = table
        self._bots_move(table)
        self.persist(table)

    def _room_for(self, name: str | None) -> str:
        if name is not None and name in self.tables:
            raise ProtocolError("table-exists", f"a table is already called {name!r}", "$.table")
        if len(self.tables) >= self.max_tables:
            raise ProtocolError(
                "too-many-tables", f"this engine holds at most {self.max_tables} tables"
            )
        return name if name is not None else self._new_name()

    # -- handlers ----------------------------------------------------------------------
    def _on_hello(self, msg: dict[str, Any]) -> dict[str, Any]:
        wanted = msg.get("protocol", PROTOCOL_VERSION)
        if wanted != PROTOCOL_VERSION:
            raise ProtocolError(
                "unsupported-version",
                f"this engine speaks protocol {PROTOCOL_VERSION}, not {wanted}",
                "$.protocol",
            )
        return {
            "type": "hello",
            "protocol": PROTOCOL_VERSION,
            "engine": "cambio-rules",
            "version": __version__,
            "requests": list(REQUEST_TYPES),
            "limits": {"max_bytes": self.max_bytes, "max_tables": self.max_tables},
        }

    def _on_variants(self, msg: dict[str, Any]) -> dict[str, Any]:
        variants = []
        for name, summary in variant_summaries().items():
            rules = load_ruleset(name)
            p = rules.players
            variants.append(
                {
                    "name": name,
                    "summary": summary,
                    "players": {"min": p.min, "max": p.max, "default": p.default},
                }
            )
        return {"type": "variants", "variants": variants, "bots": dict(BOT_NAMES)}

    def _on_create(self, msg: dict[str, Any]) -> dict[str, Any]:
        name = self._room_for(msg.get("table"))
        rules = _rules_of(msg)
        seed: int = msg["seed"] if "seed" in msg else secrets.randbelow(2**63)
        try:
            match = Match(rules, msg.get("players"), seed=seed, decks=msg.get("decks"))
            for deck in match.decks[1:]:  # later rounds' decks are dealt later: check now
                if deck is not None:
                    Round(rules, match.players, seed=0, deck=deck)
        except (ValueError, TypeError) as error:
            where = "$.decks" if "deck" in str(error) or "card" in str(error) else "$.players"
            raise ProtocolError("bad-rules", str(error), where) from None
        bots = _bots_from(msg.get("bots", {}), match.players)
        names = _names_from(msg.get("names", {}), match.players)
        table = Table(
            name,
            match,
            bots,
            arranged="seed" in msg,
            names=names,
            aids=msg.get("aids", False),
            hints=msg.get("hints", False),
        )
        self._add(table)
        reply = {"type": "created", **_summary(table)}
        if "seed" in msg:  # the creator's own seed: it knows it; a drawn one stays here
            reply["seed"] = seed
        return reply

    def _on_view(self, msg: dict[str, Any]) -> dict[str, Any]:
        table = self.table(msg["table"])
        seat = self._seat(table, msg["seat"], acting=False)
        return {"type": "view", "view": table.view(seat), "legal": table.legal(seat)}

    def _on_act(self, msg: dict[str, Any]) -> dict[str, Any]:
        table = self.table(msg["table"])
        seat = self._seat(table, msg["seat"], acting=True)
        at = msg.get("at")
        if at is not None and at != table.at:
            raise ProtocolError(
                "stale-action",
                f"the action answers position {at}, but the table is at {table.at}",
                "$.at",
            )
        action_id = table.resolve(seat, msg["action"])
        before = len(table.log)
        table.apply(action_id)
        self._bots_move(table)
        self.persist(table)
        return {
            "type": "acted",
            "table": table.name,
            "seat": seat,
            "action": _action_json(table.match.space.decode(action_id), action_id),
            "at": table.at,
            "events": table.events(seat, before),
        }

    def _on_events(self, msg: dict[str, Any]) -> dict[str, Any]:
        table = self.table(msg["table"])
        seat = self._seat(table, msg["seat"], acting=False)
        since = min(msg.get("since", 0), len(table.log))
        events = table.events(seat, since)
        return {
            "type": "events",
            "table": table.name,
            "seat": seat,
            "events": events,
            "next": since + len(events),
        }

    def _on_save(self, msg: dict[str, Any]) -> dict[str, Any]:
        table = self.table(msg["table"])
        return {"type": "saved", "table": table.name, "save": table.to_dict()}

    def _on_load(self, msg: dict[str, Any]) -> dict[str, Any]:
        wanted = msg.get("table")
        saved = msg["save"]
        if wanted is None and isinstance(saved.get("name"), str):
            wanted = saved["name"]
            if wanted in self.tables and _AUTO_NAME.match(wanted):
                wanted = None  # an engine-made name: take a fresh one
        if isinstance(wanted, str) and not re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", wanted):
            raise ProtocolError("bad-save", f"bad table name {wanted!r}", "$.save.name")
        name = self._room_for(wanted)
        table = Table.from_dict(saved, name)
        self._add(table)
        return {"type": "loaded", **_summary(table)}

    def _on_next_round(self, msg: dict[str, Any]) -> dict[str, Any]:
        table = self.table(msg["table"])
        table.next_round()
        self._bots_move(table)
        self.persist(table)
        return {
            "type": "round-started",
            "table": table.name,
            "round": table.showing + 1,
            "at": table.at,
        }

    def _on_name(self, msg: dict[str, Any]) -> dict[str, Any]:
        table = self.table(msg["table"])
        seat = self._seat(table, msg["seat"], acting=True)
        table.rename(seat, msg["name"])
        self.persist(table)
        return {"type": "named", "table": table.name, "seat": seat, "name": table.names[seat]}

    def _on_rematch(self, msg: dict[str, Any]) -> dict[str, Any]:
        table = self.table(msg["table"])
        table.rematch()
        self._bots_move(table)
        self.persist(table)
        return {"type": "rematched", "table": table.name, "at": table.at}

    def _on_close(self, msg: dict[str, Any]) -> dict[str, Any]:
        table = self.table(msg["table"])
        self._forget(table.name)
        return {"type": "closed", "table": table.name}

    def _on_analyse(self, msg: dict[str, Any]) -> dict[str, Any]:
        table = self.table(msg["table"])
        seat = self._seat(table, msg["seat"], acting=True)
        return analysis_reply(table, seat, msg.get("samples", 64), msg.get("seed"))

    def __iter__(self) -> Iterator[Table]:
        return iter(list(self.tables.values()))


def _rules_of(msg: Mapping[str, Any]) -> RuleSet:
    variant, text = msg.get("variant"), msg.get("rules")
    if variant is not None and text is not None:
        raise ProtocolError("bad-field", "give variant or rules, not both", "$.rules")
    try:
        if text is not None:
            _check_extends(text)
            return ruleset_from_toml(text, source="<rules>")
        name = variant if variant is not None else "practice"
        if "/" in name or "\\" in name or name.endswith(".toml"):
            raise ProtocolError(
                "bad-rules",
                "variant names a bundled profile; send a file's text as rules",
                "$.variant",
            )
        return load_ruleset(name)
    except RuleSetError as error:
        where = "$.rules" if text is not None else "$.variant"
        raise ProtocolError("bad-rules", str(error), where) from None


def _check_extends(text: str) -> None:
    """Refuse rule text that extends anything but a bundled profile (no file reads)."""
    try:
        parent = tomllib.loads(text).get("extends")
    except tomllib.TOMLDecodeError:
        return  # the loader reports the syntax error with its line and column
    if parent is not None and parent not in available_variants():
        raise ProtocolError(
            "bad-rules",
            f"rules sent as text may only extend a bundled profile, not {parent!r}",
            "$.rules",
        )


def _summary(table: Table) -> dict[str, Any]:
    """A table in brief (``created``, ``loaded``): its seed only once the match is over."""
    out: dict[str, Any] = {
        "table": table.name,
        "players": table.match.players,
        "rules": table.match.rules.name,
        "arranged": table.arranged,
        "bots": {str(s): n for s, n in table.bot_names.items()},
    }
    if table.match.is_over:
        out["seed"] = table.match.seed
    return out


# ---------------------------------------------------------------------------------------
# The analyse request: a seat's legal actions estimated, at tables with hints
#
# A table gives hints only when it was created with ``"hints": true`` (the ``create``
# request's option, off by default: a table with hints is another game, so the choice
# belongs to whoever sets the table up, applies to every seat and shows in every view;
# saves keep it). The analysis is :func:`cambio.analyse` of the seat's view of the round
# on show (:func:`analysis_position`), so it reads nothing else; its actions are written
# in match seats, like every action of the protocol (:func:`analysis_json`). An
# :class:`Engine` answers at once (:func:`analysis_reply`); ``cambio serve`` runs the
# analysis in worker processes (:mod:`cambio.server.analyses`).

HINTS_KEY = "hints"
"""The field that turns hints on: of the ``create`` request, of every view and of a
table's save."""

MAX_HINT_SAMPLES = 200
"""The most drawn rounds one ``analyse`` request may ask for."""


def hints_on(table: Table) -> bool:
    """Whether ``table`` was set up with hints."""
    return table.hints


def analysis_position(table: Table, seat: int) -> tuple[PlayerView, RuleSet]:
    """The view of match seat ``seat`` that an ``analyse`` request analyses, with the
    table's rules; a :class:`~cambio.protocol.ProtocolError` when the table has no
    hints, the round on show is over, or the seat sits this round out."""
    if not hints_on(table):
        raise ProtocolError("forbidden", f"table {table.name} was not set up with hints", "$.type")
    match = table.match
    if table.between_rounds or match.is_over:
        raise ProtocolError("round-over", "the round on show is over: nothing to analyse")
    inner = match.round_seat(seat)
    if inner is None:
        raise ProtocolError("wrong-seat", f"seat {seat} sits out this round", "$.seat")
    rnd = match.round
    return rnd.view(inner), rnd.rules


def analysis_json(table: Table, seat: int, result: Analysis) -> dict[str, Any]:
    """The ``analysis`` reply of ``result``, an analysis of match seat ``seat``'s
    decision at ``table`` as it stands, its actions written in match seats."""
    match = table.match
    estimates = []
    for e in result.estimates:
        action = None
        label = f"P{seat} no snap"
        if e.action is not None:
            outer = match._action_out(e.action)
            action = _action_json(outer, match.space.encode(outer))
            label = action["text"]
        estimates.append(
            {
                "action": action,
                "text": label,
                "win": e.win,
                "win_interval": [e.win_low, e.win_high],
                "score": e.score,
                "score_interval": [e.score_low, e.score_high],
                "behind": e.behind,
                "behind_error": e.behind_error,
            }
        )
    return {
        "type": "analysis",
        "table": table.name,
        "seat": seat,
        "at": table.at,
        "phase": result.phase,
        "samples": result.samples,
        "estimates": estimates,
    }


def analysis_reply(table: Table, seat: int, samples: int, seed: int | None) -> dict[str, Any]:
    """The ``analysis`` reply for match seat ``seat`` of ``table``; a
    :class:`~cambio.protocol.ProtocolError` when the table has no hints, the round on
    show is over, or the seat has no decision now."""
    from .analysis import AnalysisError, analyse

    view, rules = analysis_position(table, seat)
    try:
        result = analyse(view, rules, samples=samples, seed=seed)
    except AnalysisError as error:
        raise ProtocolError("illegal-action", str(error), "$.seat") from None
    return analysis_json(table, seat, result)
