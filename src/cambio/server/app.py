"""The ASGI application of ``cambio serve``: HTTP to create tables, a WebSocket per seat.

``POST /api/tables`` creates a table (the body holds the fields of the protocol's
``create`` request) and answers with one join link per seat that people play, each
carrying an unguessable token, and a spectator link. ``/ws?token=TOKEN`` is the
WebSocket of that seat (or of a spectator): on connecting it receives an ``update``
(its view, its legal actions and every event as it saw them), then one after each
change at the table. It sends the protocol's requests; the table and the seat are the
token's, so a token can act and look only for its own seat. Bots move on the server,
``bot_delay`` seconds apart. Every table is written to ``store`` after each change and a
new server on the same folder resumes them all. ``/learn`` and ``/api/lessons`` run the
guided lessons (:mod:`cambio.server.lessons`).

The server is meant to face strangers: tables are swept once their links expire, their
match is over or they are abandoned; each client has its own caps; only the server's
own pages (its origin, and ``origins``) may create tables and connect; each connection
has a bounded queue and its own writer, so a client that reads slowly or not at all
holds up nobody; every request kind is rate-limited per token; bad input gets an error
reply in bounded memory. :class:`ServerConfig` holds every limit; what only uvicorn
sees (silent connections, request heads, oversized frames) is guarded in
:mod:`cambio.server.guards`.

A table's seed and decks stay on the server while its match runs: the create reply
echoes only a seed the request gave, views and events never carry one (the view's
``match`` part shows it once the match is over), and no connection may ask for a
``save`` (the whole table). A table created with a seed or a prepared deck is
*arranged*, and every seat's and spectator's view says so.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import ipaddress
import json
import logging
import re
import secrets
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from importlib.resources import files
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import attrs
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, HTTPConnection, Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..loading import available_variants, load_ruleset
from ..protocol import (
    Engine,
    ProtocolError,
    Table,
    analysis_json,
    analysis_position,
    write_atomically,
)
from ..rules import table_costs
from .analyses import AnalysisJob, AnalysisPool
from .journal import Journal, recover
from .lessons import Refused, lesson_routes
from .rules_page import rules_html
from .workers import BotPool

__all__ = ["GameServer", "ServerConfig", "create_app"]

_log = logging.getLogger("cambio.server")

# No connection may ask for save (the whole table: its seed, every card) or load.
_SEAT_REQUESTS = frozenset(
    {"hello", "variants", "view", "act", "events", "next-round", "name", "rematch", "analyse"}
)
_SPECTATOR_REQUESTS = frozenset({"hello", "variants", "view", "events"})
_STATUS = {"too-many-tables": 503, "rate-limited": 429, "unauthorized": 401, "expired-token": 403}


@attrs.frozen
class ServerConfig:
    """The server's folder and limits."""

    store: Path = Path("cambio-tables")
    """Where every table is saved, one JSON file each (and the journal of the latest
    changes, in ``STORE/journal/``)."""
    checkpoint_seconds: float = 2.0
    """How often the journal's changes are written out to the table files (at most
    once per table in that time, whatever its number of actions)."""
    max_tables: int = 200
    """Tables the server holds at once, all clients together."""
    max_bytes: int = 64 * 1024
    """The longest message (WebSocket or HTTP body) accepted, in bytes."""
    actions_per_second: float = 20.0
    """Actions one token may send per second, all of its connections together (a burst
    of as many is allowed)."""
    bot_delay: float = 0.6
    """Seconds a bot waits before each move."""
    bot_workers: int = 0
    """Worker processes that take the bots' decisions (0: one per core but one)."""
    bot_seconds: float = 10.0
    """The time budget of one bot decision; a later one gets the memory bot's answer."""
    analysis_workers: int = 1
    """Worker processes that run analyses (the ``analyse`` request, at tables created
    with hints), beside the bots' workers."""
    analysis_samples: int = 100
    """The most rounds one analysis may draw (a request asking for more is refused)."""
    analysis_seconds: float = 2.0
    """The time budget of one analysis: it stops drawing rounds after this long."""
    analyses_waiting: int = 4
    """Analyses queued or running at once, all tables together (one more is refused
    with ``rate-limited``); each seat's link has at most one at a time."""
    token_seconds: float = 72 * 3600
    """How long a table's links stay valid after it was created; the sweep then removes
    the table, which frees its place."""

    # -- the life of a table ------------------------------------------------------------
    sweep_seconds: float = 60.0
    """How often the sweep looks for tables to remove (it also runs once at start)."""
    idle_seconds: float = 24 * 3600
    """A table where nothing happened for this long (no action by anyone, person or
    bot) is abandoned: the sweep removes it."""
    finished_seconds: float = 3600.0
    """A table whose match is over is removed this long after its last change."""
    archive: bool = False
    """Move each removed table's file to ``STORE/archive/`` instead of deleting it."""

    # -- per client (an IP address; IPv6 addresses by their /64 network) ------------------
    tables_per_client: int = 10
    """Tables one client may hold at once (those it created and the sweep has not yet
    removed), beside the server-wide ``max_tables``."""
    creates_per_minute: float = 5.0
    """Tables one client may create per minute (a burst of as many is allowed)."""
    connections_per_client: int = 64
    """WebSockets one client may hold open at once."""
    trust_proxy: tuple[str, ...] = ()
    """Addresses of reverse proxies whose ``X-Forwarded-For`` names the client; from any
    other peer the header is ignored and the peer's own address is the client."""

    # -- who may create and connect -----------------------------------------------------
    public_url: str | None = None
    """The server's address as people reach it (``https://cambio.example.org``): the
    join links are built from it, and its origin is allowed. ``None``: the address the
    connection came in on (its socket's, never the ``Host`` header)."""
    origins: tuple[str, ...] = ()
    """More origins (``https://example.org``) whose pages may create tables and open
    WebSockets, beside the server's own."""

    # -- connections --------------------------------------------------------------------
    max_connections: int = 1000
    """WebSockets the server holds open at once, all clients together."""
    connections_per_table: int = 32
    """Spectators' WebSockets open to one table (its spectator link is shared by the
    whole audience). A seat's link is capped by ``connections_per_token`` instead, so a
    crowd of spectators never keeps a player out."""
    connections_per_token: int = 4
    """WebSockets open with one seat's link."""
    requests_per_second: float = 10.0
    """Requests other than ``act`` one token may make per second, all of its
    connections together (a burst of as many is allowed); also the connections a seat's
    link (or one client with the spectator link) may open per second."""
    send_queue: int = 16
    """Messages waiting to be sent to one connection; one more closes it (code 4408)."""
    send_timeout: float = 10.0
    """Seconds one message may take to be sent; a slower connection is closed (4408)."""
    body_seconds: float = 10.0
    """Seconds an HTTP request's body may take to arrive (408 after that)."""
    max_legal_actions: int = 2000
    """A table whose one decision may offer more legal actions than this (at its number
    of players) is refused at creation: a seat's update lists them all."""

    # -- read by ``cambio serve`` for uvicorn ---------------------------------------------
    header_timeout: float = 10.0
    """Seconds a connection may take to send a complete request head (its first, or
    the next on a kept-alive connection); then ``408`` and closed."""
    max_head_bytes: int = 8192
    """The longest request line and headers, in bytes (``431`` beyond)."""
    keep_alive_seconds: float = 5.0
    """Seconds an idle kept-alive HTTP connection stays open."""
    ping_seconds: float = 20.0
    """Seconds between WebSocket pings; a peer that has not answered one this long
    after it was sent is dropped."""

    def __attrs_post_init__(self) -> None:
        """Refuse a limit that would switch a guard off or make no sense: every count
        and time is a finite number, none below what it can mean."""
        at_least_zero = {"bot_delay", "bot_workers"}
        for field in attrs.fields(type(self)):
            value = getattr(self, field.name)
            if field.type not in ("int", "float"):
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"ServerConfig.{field.name} must be a number, got {value!r}")
            if field.type == "int" and not isinstance(value, int):
                raise TypeError(f"ServerConfig.{field.name} must be a whole number, got {value!r}")
            least_ok = value >= 0 if field.name in at_least_zero else value > 0
            if not (least_ok and value != float("inf")):
                need = "at least 0" if field.name in at_least_zero else "above 0"
                raise ValueError(
                    f"ServerConfig.{field.name} must be a finite number {need}, got {value!r}"
                )
        if self.analysis_samples < 2:
            raise ValueError(
                f"ServerConfig.analysis_samples must be 2 or more, got {self.analysis_samples}"
            )


@attrs.define(eq=False)
class _Connection:
    socket: WebSocket
    table: str
    seat: int | None
    token: str = ""
    client: str = ""
    sent: int = 0
    """How many of the table's events this connection has been sent."""
    queue: asyncio.Queue[str | _Close] = attrs.field(factory=asyncio.Queue)
    """What waits to be sent, in order; its own writer task sends it (see _write)."""
    writer: asyncio.Task[None] | None = None
    closing: bool = False
    """The connection is being closed: nothing more is queued."""


@attrs.frozen
class _Close:
    """Queued after a connection's last message: the writer then closes the socket."""

    code: int
    reason: str = ""


@attrs.define
class _Bucket:
    """A token bucket: ``rate`` per second, up to ``burst`` at once."""

    allowance: float
    checked: float

    def take(self, rate: float, burst: float, now: float) -> bool:
        self.allowance = min(burst, self.allowance + (now - self.checked) * rate)
        self.checked = now
        if self.allowance < 1:
            return False
        self.allowance -= 1
        return True

    def full(self, rate: float, burst: float, now: float) -> bool:
        return self.allowance + (now - self.checked) * rate >= burst


class GameServer:
    """The tables of one server, their tokens, connections and bot drivers."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        recover(config.store)  # the changes a crash left only in the journal, first
        self.engine = Engine(
            store=config.store,
            max_tables=config.max_tables,
            max_bytes=config.max_bytes,
            auto_bots=False,
            defer_writes=True,
        )
        # the store's journal is written by one thread, in the order of the changes, so
        # its sync never holds up the event loop (see flush)
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cambio-store")
        self.journal = Journal(config.store, checkpoint_seconds=config.checkpoint_seconds)
        self._batch: dict[str, str | None] = {}
        """Changes waiting for the next commit (table name -> save, or None: removed)."""
        self._batch_done: asyncio.Future[None] | None = None
        self._committer: asyncio.Task[None] | None = None
        self.tokens: dict[str, tuple[str, int | None]] = {}
        for table in self.engine:
            self._index(table)
        self.connections: dict[str, list[_Connection]] = {}
        self._drivers: dict[str, asyncio.Task[None]] = {}
        self._buckets: dict[tuple[str, str], _Bucket] = {}
        self.clock: Callable[[], float] = time.monotonic
        """The rate limits' clock (seconds, only differences count)."""
        """Rate limits: (kind, token or client) -> its bucket (see _allow)."""
        self._owned: collections.Counter[str] = collections.Counter()
        """Tables each client holds (see ServerConfig.tables_per_client)."""
        self._active: dict[str, float] = {}
        """When each table last changed (time.time()), for the sweep."""
        self._closing: set[asyncio.Task[None]] = set()
        self._variants: dict[str, Any] | None = None
        for table in self.engine:
            self._owned[str(table.meta.get("client", ""))] += 1
            self._active[table.name] = _last_change(config.store, table)
        self.bots = BotPool(config.bot_workers, config.bot_seconds)
        self.analyses = AnalysisPool(config.analysis_workers, config.analyses_waiting)
        self._analysing: set[str] = set()
        """The seat links with an analysis under way (one each at a time)."""

    def _index(self, table: Table) -> None:
        for seat, token in table.meta.get("tokens", {}).items():
            self.tokens[token] = (table.name, int(seat))
        spectator = table.meta.get("spectator")
        if isinstance(spectator, str):
            self.tokens[spectator] = (table.name, None)

    # -- who is asking ------------------------------------------------------------------
    def client_of(self, conn: HTTPConnection) -> str:
        """The client a request or WebSocket comes from (see :func:`client_key`): the
        peer's address, or, from a proxy in ``trust_proxy``, the nearest address in
        ``X-Forwarded-For`` that is not a trusted proxy."""
        peer = conn.client.host if conn.client is not None else ""
        trusted = self.config.trust_proxy
        if peer in trusted:
            hops = [
                hop.strip()
                for value in conn.headers.getlist("x-forwarded-for")
                for hop in value.split(",")
                if hop.strip()
            ]
            for hop in reversed(hops):
                if hop not in trusted:
                    return client_key(hop)
        return client_key(peer)

    def own_base(self, conn: HTTPConnection) -> str:
        """The server's address for links: ``public_url``, else the address the
        connection came in on (the socket's own, never the ``Host`` header)."""
        if self.config.public_url:
            return self.config.public_url.rstrip("/")
        scheme = "https" if conn.url.scheme in ("https", "wss") else "http"
        server = conn.scope.get("server") or ("127.0.0.1", None)
        host, port = str(server[0]), server[1]
        shown = f"[{host}]" if ":" in host else host
        default = 443 if scheme == "https" else 80
        return f"{scheme}://{shown}" + ("" if port in (None, default) else f":{port}")

    def origins(self, conn: HTTPConnection) -> set[tuple[str, str, int]]:
        """The origins whose pages may create tables and connect: the server's own
        (``public_url``, or the address the connection came in on, with its loopback
        names when that is a loopback address) and ``origins``."""
        own = origin_of(self.own_base(conn))
        allowed = {o for o in map(origin_of, self.config.origins) if o is not None}
        if own is not None:
            allowed.add(own)
            if not self.config.public_url and own[1] in _LOOPBACK:
                allowed |= {(own[0], name, own[2]) for name in _LOOPBACK}
        return allowed

    def origin_allowed(self, conn: HTTPConnection) -> bool:
        """Whether a request may act here: no ``Origin`` header (not a browser's page:
        curl, a program), or an allowed one (see :meth:`origins`)."""
        origin = conn.headers.get("origin")
        if origin is None:
            return True
        found = origin_of(origin)
        return found is not None and found in self.origins(conn)

    # -- tokens ------------------------------------------------------------------------
    def open_token(self, token: str | None) -> tuple[Table, int | None]:
        """The table and seat (``None``: spectator) a token opens; refuses bad ones."""
        if not token:
            raise ProtocolError("unauthorized", "a token is needed (the join link carries it)")
        found = self.tokens.get(token)
        if found is None:
            raise ProtocolError("unauthorized", "this token opens no seat")
        name, seat = found
        table = self.engine.tables.get(name)
        if table is None:
            raise ProtocolError("expired-token", "this token's table is closed")
        if time.time() > float(table.meta.get("expires", 0)):
            raise ProtocolError("expired-token", "this token's table has expired")
        return table, seat

    # -- tables ------------------------------------------------------------------------
    def create(self, body: object, client: str = "") -> dict[str, Any]:
        """Create a table from a ``create`` request's fields for ``client`` (its address,
        see :meth:`client_of`); returns its tokens. A client over its own limits gets
        a :class:`ClientLimit` error."""
        if not isinstance(body, dict):
            raise ProtocolError("bad-message", "the body must be a JSON object")
        request = {k: v for k, v in body.items() if k != "type"}
        if "table" in request:
            raise ProtocolError("bad-field", "the server names tables itself", "$.table")
        request.update(type="create", table=secrets.token_hex(8))
        self.engine.check(request)
        config = self.config
        if self._owned[client] >= config.tables_per_client:
            raise ClientLimit(
                "too-many-tables",
                f"one client may hold at most {config.tables_per_client} tables; a table "
                "is removed once its match is over, abandoned, or its links expired",
            )
        per_minute = config.creates_per_minute
        if not self._allow("create", client, per_minute / 60, per_minute):
            raise ClientLimit(
                "rate-limited",
                f"one client may create {config.creates_per_minute:g} tables a minute",
            )
        reply = self.engine.handle(request)
        if reply["type"] == "error":
            raise ProtocolError(reply["code"], reply["message"], reply.get("where", ""))
        table = self.engine.tables[reply["table"]]
        try:
            self._check_size(table)
        except ProtocolError:
            self.engine.handle({"type": "close", "table": table.name})
            raise
        people = [s for s in range(table.match.players) if s not in table.bot_names]
        now = time.time()
        table.meta = {
            "tokens": {str(s): secrets.token_urlsafe(24) for s in people},
            "spectator": secrets.token_urlsafe(24),
            "expires": now + self.config.token_seconds,
            "created": now,
            "client": client,
        }
        self._owned[client] += 1
        self._active[table.name] = now
        self.engine.persist(table)
        self._index(table)
        self.start_bots(table)
        return {
            **reply,
            "tokens": dict(table.meta["tokens"]),
            "spectator": table.meta["spectator"],
            "expires": table.meta["expires"],
        }

    def _check_size(self, table: Table) -> None:
        """Refuse a table whose updates would be huge: a name or power name longer than
        :data:`MAX_NAME` (views and events carry them), or more legal actions in one
        decision than ``max_legal_actions`` at its number of players (an update lists
        the seat's legal actions)."""
        rules = table.match.rules
        names = [rules.name, *(power.name for power in rules.powers.table)]
        if max(len(name) for name in names) > MAX_NAME:
            raise ProtocolError(
                "bad-rules",
                f"a name in the rules is longer than {MAX_NAME} characters (views carry it)",
                "$.rules",
            )
        seated = attrs.evolve(rules, players=attrs.evolve(rules.players, max=table.match.players))
        most = table_costs(seated).legal_actions
        if most > self.config.max_legal_actions:
            raise ProtocolError(
                "bad-rules",
                f"one decision of this table may offer {most:,} legal actions at "
                f"{table.match.players} players; this server allows "
                f"{self.config.max_legal_actions:,}",
                "$.rules",
            )

    # -- the life of tables -------------------------------------------------------------
    def due(self, table: Table, now: float) -> str | None:
        """Why the sweep removes ``table`` at ``now`` (``time.time()``), or ``None``.
        Only tables this server created (their links have an expiry) are removed."""
        config = self.config
        expires = table.meta.get("expires")
        if not isinstance(expires, (int, float)):
            return None
        if now > expires:
            return "its links expired"
        idle = now - self._active.get(table.name, now)
        if table.match.is_over and idle >= config.finished_seconds:
            return "its match is over"
        if idle >= config.idle_seconds:
            return f"nothing happened at it for {idle / 3600:.3g} hours"
        return None

    async def sweep(self) -> list[str]:
        """Remove every table that is due (see :meth:`due`); returns their names. Also
        forgets the rate-limit buckets that are full again."""
        now = time.time()
        removed = []
        for table in self.engine:
            reason = self.due(table, now)
            if reason is not None:
                await self.remove(table, reason)
                removed.append(table.name)
        config = self.config
        rates = {
            "act": (config.actions_per_second, config.actions_per_second),
            "request": (config.requests_per_second, config.requests_per_second),
            "connect": (config.requests_per_second, config.requests_per_second),
            "create": (config.creates_per_minute / 60, config.creates_per_minute),
        }
        clock = self.clock()
        for key, bucket in list(self._buckets.items()):
            rate, burst = rates.get(key[0], (1.0, 1.0))
            if bucket.full(rate, max(1.0, burst), clock):
                del self._buckets[key]
        return removed

    async def sweeping(self) -> None:
        """Sweep now and then every ``sweep_seconds``, until cancelled."""
        while True:
            try:
                await self.sweep()
            except OSError as error:  # the disk refused: try again at the next sweep
                _log.warning("cambio serve: the sweep could not remove a table: %s", error)
            await asyncio.sleep(self.config.sweep_seconds)

    async def remove(self, table: Table, reason: str) -> None:
        """Take ``table`` off the server: each of its connections gets ``expired-token``
        and is closed (4403), its links stop working, its bots stop and its file is
        deleted, or with ``archive`` moved to ``STORE/archive/`` (the table as it was
        removed is written there first; if that fails, the server logs it and deletes
        the table all the same)."""
        name = table.name
        if self.engine.tables.get(name) is not table:
            return
        closed = ProtocolError("expired-token", f"this table was closed: {reason}").reply()
        for conn in list(self.connections.get(name, ())):
            self.finish(conn, 4403, closed)
        driver = self._drivers.pop(name, None)
        if driver is not None:
            driver.cancel()
        tokens = [*table.meta.get("tokens", {}).values(), table.meta.get("spectator")]
        for token in tokens:
            if isinstance(token, str) and self.tokens.get(token, ("",))[0] == name:
                del self.tokens[token]
                self._buckets.pop(("act", token), None)
                self._buckets.pop(("request", token), None)
                self._buckets.pop(("connect", token), None)
        client = str(table.meta.get("client", ""))
        self._owned[client] -= 1
        if self._owned[client] <= 0:
            del self._owned[client]
        self._active.pop(name, None)
        if self.config.archive:
            saved = json.dumps(table.to_dict(), separators=(",", ":"))
            try:
                await asyncio.get_running_loop().run_in_executor(
                    self._writer, _archive, self.config.store, name, saved
                )
            except OSError as error:  # removed all the same: the sweep frees places
                _log.warning("cambio serve: table %s could not be archived: %s", name, error)
        self.engine.handle({"type": "close", "table": name})
        await self.flush()

    def variants(self) -> dict[str, Any]:
        """The ``variants`` reply, made once (loading every profile takes tens of
        milliseconds: asked for in a loop it would keep a core busy)."""
        if self._variants is None:
            self._variants = self.engine.handle({"type": "variants"})
        return self._variants

    # -- the store ---------------------------------------------------------------------
    async def flush(self) -> None:
        """Commit the change just made (call it right after each change) to the store's
        journal and return once it is on disk: a change is acknowledged only after this,
        so a crash loses no acknowledged action. Changes made while a commit is under way
        wait for the next one, which takes them all with one sync (see
        :mod:`cambio.server.journal`); the writer thread does the work, so other
        connections are served meanwhile. Raises ``OSError`` if the disk refused."""
        unsaved = self.engine.take_unsaved()
        if not unsaved:
            return
        loop = asyncio.get_running_loop()
        self._batch.update(unsaved)
        if self._batch_done is None:
            self._batch_done = loop.create_future()
            self._batch_done.add_done_callback(_retrieved)
        done = self._batch_done
        if self._committer is None or self._committer.done():
            self._committer = loop.create_task(self._commit())
        await asyncio.shield(done)

    async def checkpointing(self) -> None:
        """Every ``checkpoint_seconds``, have the journal written out to the table files
        when it is due, even if no change came since (until cancelled)."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(self.config.checkpoint_seconds)
            await loop.run_in_executor(self._writer, self.journal.tick)

    async def _commit(self) -> None:
        """Commit the waiting changes, one batch after another, until none wait."""
        loop = asyncio.get_running_loop()
        while self._batch and self._batch_done is not None:
            batch, done = self._batch, self._batch_done
            self._batch, self._batch_done = {}, None
            try:
                await loop.run_in_executor(self._writer, self.journal.commit, batch)
            except Exception as error:  # the disk refused: every waiter hears of it
                done.set_exception(error)
            else:
                done.set_result(None)

    # -- pushing -----------------------------------------------------------------------
    def update_for(self, table: Table, conn: _Connection) -> dict[str, Any]:
        events = table.events(conn.seat, conn.sent)
        conn.sent += len(events)
        return {
            "type": "update",
            "view": table.view(conn.seat),
            "legal": table.legal(conn.seat),
            "events": events,
        }

    async def broadcast(self, table: Table) -> None:
        """Queue for every connection of ``table`` its fresh view and its new events.

        Each update is encoded once per audience (a seat, or the spectators) and queued
        for each of its connections; each connection's writer sends it, so none waits
        for another. A connection that has fallen behind is closed (see :meth:`push`)."""
        self._active[table.name] = time.time()
        encoded: dict[tuple[int | None, int], tuple[str, int]] = {}
        for conn in list(self.connections.get(table.name, ())):
            key = (conn.seat, conn.sent)
            if key not in encoded:
                events = table.events(conn.seat, conn.sent)
                update = {
                    "type": "update",
                    "view": table.view(conn.seat),
                    "legal": table.legal(conn.seat),
                    "events": events,
                }
                encoded[key] = (_encode(update), conn.sent + len(events))
            text, conn.sent = encoded[key]
            self.push(conn, text)

    # -- connections -------------------------------------------------------------------
    def push(self, conn: _Connection, text: str) -> None:
        """Queue ``text`` for ``conn``; a connection with ``send_queue`` messages still
        waiting is too slow and is closed (it may reconnect: its first update is the
        whole state)."""
        if conn.closing:
            return
        if conn.queue.qsize() >= self.config.send_queue:
            self.drop(conn, 4408, "too slow: messages were waiting; reconnect")
            return
        conn.queue.put_nowait(text)

    def finish(self, conn: _Connection, code: int, reply: dict[str, Any] | None = None) -> None:
        """Send what is queued, then ``reply``, then close ``conn`` with ``code``."""
        if conn.closing:
            return
        if reply is not None:
            self.push(conn, _encode(reply))
            if conn.closing:  # too slow even for that
                return
        conn.closing = True
        self._forget(conn)
        conn.queue.put_nowait(_Close(code, str(reply["code"]) if reply else ""))

    def drop(self, conn: _Connection, code: int, reason: str) -> None:
        """Close ``conn`` now, dropping what is still queued."""
        if conn.closing:
            return
        conn.closing = True
        self._forget(conn)
        if conn.writer is not None and conn.writer is not asyncio.current_task():
            conn.writer.cancel()
        task = asyncio.get_running_loop().create_task(self._close(conn, code, reason))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def _close(self, conn: _Connection, code: int, reason: str) -> None:
        with contextlib.suppress(Exception):  # closed already
            await asyncio.wait_for(conn.socket.close(code, reason), self.config.send_timeout)

    async def _write(self, conn: _Connection) -> None:
        """The writer of one connection: sends its queue in order, each message within
        ``send_timeout`` seconds, until the queue says to close."""
        try:
            while True:
                item = await conn.queue.get()
                if isinstance(item, _Close):
                    await self._close(conn, item.code, item.reason)
                    return
                await asyncio.wait_for(conn.socket.send_text(item), self.config.send_timeout)
        except (TimeoutError, asyncio.TimeoutError):
            self.drop(conn, 4408, "too slow: a message could not be sent in time; reconnect")
        except Exception:  # the socket is gone; its session cleans up
            self._forget(conn)

    def _forget(self, conn: _Connection) -> None:
        conns = self.connections.get(conn.table)
        if conns is not None and conn in conns:
            conns.remove(conn)
            if not conns:
                del self.connections[conn.table]

    def _admit(self, table: Table, seat: int | None, token: str, client: str) -> None:
        """Refuse a new connection over a cap (``rate-limited``): the server's, the
        client's, and a seat link's ``connections_per_token`` or the spectators'
        ``connections_per_table``."""
        config = self.config
        conns = self.connections.get(table.name, [])
        every = [c for cs in self.connections.values() for c in cs]
        if len(every) >= config.max_connections:
            raise ProtocolError(
                "rate-limited", f"the server holds {config.max_connections} connections"
            )
        same_link = sum(c.token == token for c in conns)
        if seat is None and same_link >= config.connections_per_table:
            raise ProtocolError(
                "rate-limited", f"at most {config.connections_per_table} spectators at a table"
            )
        if seat is not None and same_link >= config.connections_per_token:
            raise ProtocolError(
                "rate-limited",
                f"at most {config.connections_per_token} connections with one link",
            )
        if sum(c.client == client for c in every) >= config.connections_per_client:
            raise ProtocolError(
                "rate-limited",
                f"at most {config.connections_per_client} connections from one client",
            )
        # connecting counts too: per seat link, or per client for the spectator link
        key = token if seat is not None else f"{token} {client}"
        if not self._allow("connect", key, config.requests_per_second):
            raise ProtocolError(
                "rate-limited",
                f"at most {config.requests_per_second:g} connections per second with one link",
            )

    # -- rate limits -------------------------------------------------------------------
    def _allow(self, kind: str, key: str, rate: float, burst: float | None = None) -> bool:
        """Take one from the bucket of ``kind`` for ``key``: ``rate`` per second, a
        burst of ``burst`` (default: one second's worth, at least one)."""
        now = self.clock()
        most = max(1.0, rate if burst is None else burst)
        bucket = self._buckets.get((kind, key))
        if bucket is None:
            bucket = self._buckets[kind, key] = _Bucket(most, now)
        return bucket.take(rate, most, now)

    def _limit(self, kind: str, token: str, rate: float, what: str) -> None:
        if not self._allow(kind, token, rate):
            raise ProtocolError("rate-limited", f"at most {rate:g} {what} per second with one link")

    # -- bots --------------------------------------------------------------------------
    def start_bots(self, table: Table) -> None:
        """Make sure a driver lets the table's bots move (at most one per table)."""
        if not table.bot_names:
            return
        running = self._drivers.get(table.name)
        if running is None or running.done():
            self._drivers[table.name] = asyncio.get_running_loop().create_task(self._drive(table))

    async def _drive(self, table: Table) -> None:
        """Let the table's bots move: each decision is taken in a worker process (see
        :class:`~cambio.server.workers.BotPool`), so the loop serves everyone meanwhile;
        an answer that comes back after the table moved on is dropped and asked anew."""
        for _ in range(100_000):
            await asyncio.sleep(self.config.bot_delay)
            for _ in range(table.match.players + 1):  # reactors may let a snap go
                if self.engine.tables.get(table.name) is not table:
                    return
                turn = table.bot_turn()
                if turn is None:
                    return
                chosen = await self.bots.decide(turn)
                if self.engine.tables.get(table.name) is not table:
                    return  # the table was removed while its bot thought
                if table.apply_bot(turn, chosen):
                    break
            else:
                continue
            self.engine.persist(table)
            await self.flush()
            await self.broadcast(table)

    async def stop(self) -> None:
        for task in self._drivers.values():
            task.cancel()
        for task in self._drivers.values():
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self.bots.shutdown()
        self.analyses.shutdown()
        try:
            await self.flush()
            if self._committer is not None:
                await self._committer
        finally:
            self._writer.shutdown(wait=True)
            self.journal.close()  # a stopped server leaves plain table files

    # -- one connection's requests -----------------------------------------------------
    def _rate(self, conn: _Connection) -> None:
        """Count one action of ``conn``'s token (all its connections share the limit)."""
        self._limit("act", conn.token, self.config.actions_per_second, "actions")

    async def answer(self, conn: _Connection, text: str | None) -> tuple[dict[str, Any], bool]:
        """The reply to one message from ``conn`` (``None``: a binary frame), and
        whether the table changed. Every message counts against its token's limits:
        ``act`` against ``actions_per_second``, any other against
        ``requests_per_second``. An ``analyse`` request waits for its analysis (see
        :meth:`analysis`) while the loop serves everyone else."""
        try:
            message = decode(text, self.config.max_bytes)
        except ProtocolError as error:
            try:
                self._limit("request", conn.token, self.config.requests_per_second, "requests")
            except ProtocolError as limited:
                return limited.reply(), False
            return error.reply(), False
        reply_to = message.get("id") if isinstance(message, dict) else None
        if isinstance(reply_to, (dict, list, float, bool)):
            reply_to = None
        try:
            table, seat = self.open_token(conn.token)
            if not (isinstance(message, dict) and message.get("type") == "act"):
                self._limit("request", conn.token, self.config.requests_per_second, "requests")
            return self._answer(conn, table, seat, message), False
        except ProtocolError as error:
            return error.reply(reply_to), False
        except _Changed as changed:
            return changed.reply, True
        except _Analysing as asked:
            try:
                return await self.analysis(conn, asked), False
            except ProtocolError as error:
                return error.reply(reply_to), False

    async def analysis(self, conn: _Connection, asked: _Analysing) -> dict[str, Any]:
        """The ``analysis`` reply to ``asked``, run in the analysis workers. A table that
        moved on meanwhile (an action, the next round, a rematch, its removal) gets a
        ``stale-action`` error instead: the figures are of a position that is gone."""
        table, match, showing, at = asked.table, asked.table.match, asked.table.showing, asked.at
        if conn.token in self._analysing:
            raise ProtocolError(
                "rate-limited", "one analysis at a time with one link: wait for its reply"
            )
        self._analysing.add(conn.token)
        try:
            result = await self.analyses.analyse(asked.job)
        finally:
            self._analysing.discard(conn.token)
        gone = self.engine.tables.get(table.name) is not table or table.match is not match
        if gone or table.showing != showing or table.at != at:
            raise ProtocolError(
                "stale-action",
                f"the table moved on while position {at} was analysed: ask again",
                "$.at",
            )
        reply = analysis_json(table, asked.seat, result)
        if asked.reply_to is not None:
            reply["reply_to"] = asked.reply_to
        return reply

    def _answer(
        self, conn: _Connection, table: Table, seat: int | None, message: object
    ) -> dict[str, Any]:
        if not isinstance(message, dict):
            raise ProtocolError("bad-message", "a message must be a JSON object")
        kind = message.get("type")
        allowed = _SEAT_REQUESTS if seat is not None else _SPECTATOR_REQUESTS
        if isinstance(kind, str) and kind not in allowed and kind in _ALL_REQUESTS:
            who = "a seat" if seat is not None else "a spectator"
            raise ProtocolError("forbidden", f"{who} may not send {kind} here", "$.type")
        if "table" in message and message["table"] != table.name:
            raise ProtocolError("forbidden", "this token is for another table", "$.table")
        if "seat" in message and message["seat"] != seat:
            raise ProtocolError("wrong-seat", "this token is for another seat", "$.seat")
        request = dict(message)
        if kind in ("view", "act", "events", "save", "next-round", "name", "rematch"):
            request["table"] = table.name
            if seat is not None:
                request["seat"] = seat
        if seat is None and kind in ("view", "events"):
            checked = self.engine.check({**request, "seat": 0})
            if kind == "view":
                return {"type": "view", "view": table.view(None), "legal": []}
            since = min(checked.get("since", 0), len(table.log))
            events = table.events(None, since)
            return {
                "type": "events",
                "table": table.name,
                "seat": None,
                "events": events,
                "next": since + len(events),
            }
        if kind == "act":
            self.engine.check(request)
            if "at" not in request:
                raise ProtocolError(
                    "missing-field", "the server needs at (the view's at) with act", "$.at"
                )
            self._rate(conn)
        if kind == "analyse":
            raise self._analysing_request(table, seat, request)
        if kind == "variants":
            self.engine.check(request)
            reply = dict(self.variants())
            if "id" in request and request["id"] is not None:
                reply["reply_to"] = request["id"]
            return reply
        reply = self.engine.handle(request)
        if reply["type"] == "error":
            raise ProtocolError(reply["code"], reply["message"], reply.get("where", ""))
        if kind == "rematch":  # a fresh log: every connection gets it from the start
            for other in self.connections.get(table.name, ()):
                other.sent = 0
        if kind in ("act", "next-round", "name", "rematch"):
            raise _Changed(reply)
        return reply

    def _analysing_request(
        self, table: Table, seat: int | None, request: dict[str, Any]
    ) -> _Analysing:
        """The analysis an ``analyse`` request asks for, checked (its reply waits for
        a worker, see :meth:`analysis`)."""
        if seat is None:
            raise ProtocolError("forbidden", "a spectator may not send analyse here", "$.type")
        request.update(table=table.name, seat=seat)
        checked = self.engine.check(request)
        most = self.config.analysis_samples
        samples = checked.get("samples", min(64, most))
        if samples > most:
            raise ProtocolError(
                "bad-field", f"this server draws at most {most} rounds per analysis", "$.samples"
            )
        view, rules = analysis_position(table, seat)
        if not table.legal(seat):
            raise ProtocolError("illegal-action", f"seat {seat} has no decision now", "$.seat")
        job = AnalysisJob(view, rules, samples, self.config.analysis_seconds, checked.get("seed"))
        return _Analysing(job, table, seat, table.at, checked.get("id"))

    async def session(self, socket: WebSocket) -> None:
        """Serve one WebSocket until it closes. Its requests are answered in order;
        replies and updates go through its queue, which its own writer sends."""
        await socket.accept()
        token = socket.query_params.get("token") or ""
        conn = _Connection(socket, "", None, token=token, client=self.client_of(socket))
        conn.writer = asyncio.get_running_loop().create_task(self._write(conn))
        try:
            try:
                if not self.origin_allowed(socket):
                    origin = socket.headers.get("origin", "")
                    raise ProtocolError("forbidden", f"pages from {origin} may not connect here")
                table, seat = self.open_token(token)
                self._admit(table, seat, token, conn.client)
            except ProtocolError as error:
                self.finish(conn, _CLOSE_CODES.get(error.code, 4403), error.reply())
                with contextlib.suppress(Exception):
                    await conn.writer
                return
            conn.table, conn.seat = table.name, seat
            self.connections.setdefault(table.name, []).append(conn)
            self.push(conn, _encode(self.update_for(table, conn)))
            self.start_bots(table)
            while True:
                message = await socket.receive()
                if message["type"] == "websocket.disconnect":
                    return
                if conn.closing:
                    continue  # closed by the server: wait for the socket to end
                reply, changed = await self.answer(conn, message.get("text"))
                try:
                    await self.flush()
                except OSError as error:  # the disk refused: say so rather than ack
                    reply = ProtocolError(
                        "internal", f"the table could not be saved: {error}"
                    ).reply(reply.get("reply_to"))
                self.push(conn, _encode(reply))
                if changed:
                    await self.broadcast(table)
                    self.start_bots(table)
                if reply.get("code") == "expired-token":
                    self.finish(conn, 4403)
        except (WebSocketDisconnect, RuntimeError, OSError):
            return
        finally:
            self._forget(conn)
            if not conn.closing:  # the peer left: the writer ends after what is queued
                conn.closing = True
                conn.queue.put_nowait(_Close(1000))


def _retrieved(done: asyncio.Future[None]) -> None:
    """Mark a commit's error as seen (its waiters may all have gone)."""
    if not done.cancelled():
        done.exception()


def _archive(store: Path, name: str, text: str) -> None:
    """Write a removed table's save to ``STORE/archive/NAME.json`` (the writer thread's
    job, before its removal is committed); atomically, like every save."""
    folder = store / "archive"
    folder.mkdir(exist_ok=True)
    write_atomically(folder / f"{name}.json", text)


def _last_change(store: Path, table: Table) -> float:
    """When a loaded table last changed: its file's time (each checkpoint, and the
    recovery of a journal, gives the file the time of the table's last change)."""
    try:
        return (store / f"{table.name}.json").stat().st_mtime
    except OSError:
        return time.time()


MAX_NAME = 120
"""The longest rules name or power name a table created here may have, in characters."""

MAX_DEPTH = 64
"""The deepest nesting of arrays and objects a message may have (``bad-json`` beyond)."""

_CLOSE_CODES = {"unauthorized": 4401, "rate-limited": 4429}
"""The close code after a refused connection's error (4403 for any other)."""

_BRACKETS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[{]|[\]}]')


def too_deep(text: str, limit: int = MAX_DEPTH) -> bool:
    """Whether ``text`` nests arrays and objects deeper than ``limit`` (strings are
    skipped; whether it is JSON at all is left to the parser)."""
    if text.count("[") + text.count("{") <= limit:
        return False
    depth = 0
    for found in _BRACKETS.finditer(text):
        mark = found.group()
        if mark in "[{":
            depth += 1
            if depth > limit:
                return True
        elif mark in "]}":
            depth -= 1
    return False


def decode(text: str | bytes | None, max_bytes: int) -> Any:
    """One message decoded, or the ``ProtocolError`` its sender gets: ``too-large`` over
    ``max_bytes``, ``bad-json`` for a binary frame (``None``), text that is not UTF-8 or
    JSON, or JSON nested deeper than :data:`MAX_DEPTH`."""
    if text is None:
        raise ProtocolError("bad-json", "not JSON: a binary frame (send JSON as text)")
    size = len(text) if isinstance(text, bytes) else len(text.encode("utf-8", "replace"))
    if size > max_bytes:
        raise ProtocolError("too-large", f"the message has {size} bytes; the limit is {max_bytes}")
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ProtocolError("bad-json", f"not JSON: not UTF-8 ({error.reason})") from None
    if too_deep(text):
        raise ProtocolError("bad-json", f"not JSON: nested deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as error:
        raise ProtocolError("bad-json", f"not JSON: {error}") from None


_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, check_circular=False)
"""Compact JSON, UTF-8 text as it is (a WebSocket text frame is UTF-8), no cycle check
(messages are trees the server builds): about a fifth cheaper than ``json.dumps``."""


def _encode(message: dict[str, Any]) -> str:
    return _ENCODER.encode(message)


class ClientLimit(ProtocolError):
    """A refusal because of one client's own limit (HTTP 429, not the server's 503)."""


def client_key(address: str) -> str:
    """The client an address stands for: the address, or an IPv6 address's /64 network
    (one subscriber usually holds a whole /64)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def origin_of(url: str) -> tuple[str, str, int] | None:
    """``(scheme, host, port)`` of an origin or URL (``None`` if it is not http(s))."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        return None
    return scheme, parts.hostname.lower(), port or (443 if scheme == "https" else 80)


_LOOPBACK = ("127.0.0.1", "localhost", "::1")


_ALL_REQUESTS = frozenset(
    {
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
    }
)


class _Changed(Exception):
    """Carries a successful reply that changed the table (so it is broadcast)."""

    def __init__(self, reply: dict[str, Any]) -> None:
        super().__init__("changed")
        self.reply = reply


class _Analysing(Exception):
    """Carries an ``analyse`` request that was accepted: its reply waits for a worker."""

    def __init__(
        self, job: AnalysisJob, table: Table, seat: int, at: int, reply_to: object
    ) -> None:
        super().__init__("analysing")
        self.job = job
        self.table = table
        self.seat = seat
        self.at = at
        self.reply_to = reply_to


class _Refused(Exception):
    """An HTTP request refused with ``error`` and ``status``."""

    def __init__(self, error: ProtocolError, status: int) -> None:
        super().__init__(error.message)
        self.error = error
        self.status = status


def _refuse(error: ProtocolError, status: int) -> Response:
    """An error reply to a request whose body may be unread: the connection closes."""
    return JSONResponse(error.reply(), status_code=status, headers={"connection": "close"})


async def read_body(request: Request, limit: int, seconds: float) -> bytes:
    """The request's body, read as it arrives and refused (``_Refused``) once it is
    over ``limit`` bytes (413, also when ``Content-Length`` is absent or says less) or
    has taken more than ``seconds`` (408); a ``Content-Length`` over the limit is
    refused before anything is read."""
    too_large = ProtocolError("too-large", f"the body is over {limit} bytes")
    declared = request.headers.get("content-length")
    if declared is not None and declared.strip().isdigit() and int(declared) > limit:
        raise _Refused(too_large, 413)
    chunks: list[bytes] = []

    async def read() -> None:
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise _Refused(too_large, 413)
            chunks.append(chunk)

    try:
        await asyncio.wait_for(read(), seconds)
    except (TimeoutError, asyncio.TimeoutError):
        late = ProtocolError("bad-json", f"the body took more than {seconds:g} seconds")
        raise _Refused(late, 408) from None
    except ClientDisconnect:
        raise _Refused(ProtocolError("bad-json", "the body was cut off"), 400) from None
    return b"".join(chunks)


def _static() -> Path:
    return Path(str(files("cambio.server").joinpath("static")))


def create_app(config: ServerConfig | None = None) -> Starlette:
    """The ASGI application (``config`` defaults to :class:`ServerConfig`)."""
    config = config or ServerConfig()
    holder: dict[str, GameServer] = {}

    def server() -> GameServer:
        return holder["server"]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        game = GameServer(config)
        holder["server"] = game
        app.state.game = game
        for table in game.engine:
            game.start_bots(table)
        loop = asyncio.get_running_loop()
        chores = [loop.create_task(game.sweeping()), loop.create_task(game.checkpointing())]
        yield
        for chore in chores:
            chore.cancel()
        for chore in chores:
            with contextlib.suppress(asyncio.CancelledError):
                await chore
        await game.stop()

    async def index(request: Request) -> Response:
        return FileResponse(_static() / "index.html", media_type="text/html")

    async def variants(request: Request) -> Response:
        return JSONResponse(server().variants())

    async def rules(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in available_variants():
            return HTMLResponse(
                "<!doctype html><title>No such table</title><p>There is no bundled table "
                'of that name. <a href="/">Back to the tables</a></p>',
                status_code=404,
            )
        return HTMLResponse(rules_html(load_ruleset(name)))

    async def create(request: Request) -> Response:
        game = server()
        limits = game.config
        if not game.origin_allowed(request):
            origin = request.headers.get("origin", "")
            error = ProtocolError("forbidden", f"pages from {origin} may not create tables here")
            return _refuse(error, 403)
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            error = ProtocolError(
                "bad-json", "the body must be JSON, sent with Content-Type: application/json"
            )
            return _refuse(error, 415)
        try:
            body = await read_body(request, limits.max_bytes, limits.body_seconds)
        except _Refused as refused:
            return _refuse(refused.error, refused.status)
        try:
            reply = game.create(decode(body, limits.max_bytes), game.client_of(request))
        except ProtocolError as error:
            status = 429 if isinstance(error, ClientLimit) else _STATUS.get(error.code, 400)
            return JSONResponse(error.reply(), status_code=status)
        try:
            await game.flush()
        except OSError as exc:
            unsaved = ProtocolError("internal", f"the table could not be saved: {exc}")
            return JSONResponse(unsaved.reply(), status_code=500)
        base = game.own_base(request)
        reply["links"] = {s: f"{base}/#join={t}" for s, t in reply["tokens"].items()}
        reply["spectator_link"] = f"{base}/#watch={reply['spectator']}"
        return JSONResponse(reply, status_code=201)

    async def websocket(socket: WebSocket) -> None:
        await server().session(socket)

    async def lesson_body(request: Request, limit: int) -> object:
        try:
            body = await read_body(request, limit, config.body_seconds)
        except _Refused as refused:
            raise Refused(refused.error.code, refused.error.message, refused.status) from None
        return decode(body, limit)

    return Starlette(
        routes=[
            Route("/", index),
            Route("/api/variants", variants),
            Route("/rules/{name}", rules),
            Route("/api/tables", create, methods=["POST"]),
            WebSocketRoute("/ws", websocket),
            *lesson_routes(
                lambda r: server().origin_allowed(r),
                lambda r: server().client_of(r),
                lesson_body,
                _static,
            ),
            Mount("/static", StaticFiles(directory=_static()), name="static"),
        ],
        lifespan=lifespan,
    )
