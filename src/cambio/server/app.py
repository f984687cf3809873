"""The ASGI application of ``cambio serve``: HTTP to create tables, a WebSocket per seat.

``POST /api/tables`` creates a table (the body holds the fields of the protocol's
``create`` request) and answers with one join link per seat that people play, each
carrying an unguessable token, and a spectator link. ``/ws?token=TOKEN`` is the
WebSocket of that seat (or of a spectator): on connecting it receives an ``update``
(its view, its legal actions and every event as it saw them), then one after each
change at the table. It sends the protocol's requests; the table and the seat are the
token's, so a token can act and look only for its own seat. Bots move on the server,
``bot_delay`` seconds apart. Every table is written to ``store`` after each change and a
new server on the same folder resumes them all.

A table's seed and decks stay on the server while its match runs: the create reply
echoes only a seed the request gave, views and events never carry one (the view's
``match`` part shows it once the match is over), and no connection may ask for a
``save`` (the whole table). A table created with a seed or a prepared deck is
*arranged*, and every seat's and spectator's view says so.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from importlib.resources import files
from pathlib import Path
from typing import Any

import attrs
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..protocol import Engine, ProtocolError, Table
from .workers import BotPool

__all__ = ["GameServer", "ServerConfig", "create_app"]

# No connection may ask for save (the whole table: its seed, every card) or load.
_SEAT_REQUESTS = frozenset({"hello", "variants", "view", "act", "events", "next-round"})
_SPECTATOR_REQUESTS = frozenset({"hello", "variants", "view", "events"})
_STATUS = {"too-many-tables": 503, "rate-limited": 429, "unauthorized": 401, "expired-token": 403}


@attrs.frozen
class ServerConfig:
    """The server's folder and limits."""

    store: Path = Path("cambio-tables")
    """Where every table is saved, one JSON file each."""
    max_tables: int = 200
    max_bytes: int = 64 * 1024
    """The longest message (WebSocket or HTTP body) accepted, in bytes."""
    actions_per_second: float = 20.0
    """Actions one connection may send per second (a burst of as many is allowed)."""
    bot_delay: float = 0.6
    """Seconds a bot waits before each move."""
    bot_workers: int = 0
    """Worker processes that take the bots' decisions (0: one per core but one)."""
    bot_seconds: float = 10.0
    """The time budget of one bot decision; a later one gets the memory bot's answer."""
    token_seconds: float = 72 * 3600
    """How long a table's links stay valid after it was created."""


@attrs.define
class _Connection:
    socket: WebSocket
    table: str
    seat: int | None
    sent: int = 0
    """How many of the table's events this connection has been sent."""
    allowance: float = 0.0
    checked: float = 0.0


class GameServer:
    """The tables of one server, their tokens, connections and bot drivers."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.engine = Engine(
            store=config.store,
            max_tables=config.max_tables,
            max_bytes=config.max_bytes,
            auto_bots=False,
            defer_writes=True,
        )
        # the store is written by one thread, in the order of the changes, so a save's
        # fsync never holds up the event loop (see flush)
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cambio-store")
        self.tokens: dict[str, tuple[str, int | None]] = {}
        for table in self.engine:
            self._index(table)
        self.connections: dict[str, list[_Connection]] = {}
        self._drivers: dict[str, asyncio.Task[None]] = {}
        self.bots = BotPool(config.bot_workers, config.bot_seconds)

    def _index(self, table: Table) -> None:
        for seat, token in table.meta.get("tokens", {}).items():
            self.tokens[token] = (table.name, int(seat))
        spectator = table.meta.get("spectator")
        if isinstance(spectator, str):
            self.tokens[spectator] = (table.name, None)

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
    def create(self, body: object) -> dict[str, Any]:
        """Create a table from a ``create`` request's fields; returns its tokens."""
        if not isinstance(body, dict):
            raise ProtocolError("bad-message", "the body must be a JSON object")
        request = {k: v for k, v in body.items() if k != "type"}
        if "table" in request:
            raise ProtocolError("bad-field", "the server names tables itself", "$.table")
        request.update(type="create", table=secrets.token_hex(8))
        self.engine.check(request)
        reply = self.engine.handle(request)
        if reply["type"] == "error":
            raise ProtocolError(reply["code"], reply["message"], reply.get("where", ""))
        table = self.engine.tables[reply["table"]]
        people = [s for s in range(table.match.players) if s not in table.bot_names]
        table.meta = {
            "tokens": {str(s): secrets.token_urlsafe(24) for s in people},
            "spectator": secrets.token_urlsafe(24),
            "expires": time.time() + self.config.token_seconds,
        }
        self.engine.persist(table)
        self._index(table)
        self.start_bots(table)
        return {
            **reply,
            "tokens": dict(table.meta["tokens"]),
            "spectator": table.meta["spectator"],
            "expires": table.meta["expires"],
        }

    # -- the store ---------------------------------------------------------------------
    async def flush(self) -> None:
        """Write the changes made since the last flush to the store (atomically, one
        table at a time, in the writer thread) and return once they are on disk: a
        change is acknowledged only after this, so a crash loses no acknowledged action,
        and other connections are served while the disk works."""
        unsaved = self.engine.take_unsaved()
        if unsaved:
            await asyncio.get_running_loop().run_in_executor(
                self._writer, _write_all, self.engine, unsaved
            )

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
        """Send every connection of ``table`` its fresh view and its new events."""
        for conn in list(self.connections.get(table.name, ())):
            with contextlib.suppress(Exception):  # a closing socket; its handler cleans up
                await conn.socket.send_text(json.dumps(self.update_for(table, conn)))

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
        try:
            await self.flush()
        finally:
            self._writer.shutdown(wait=True)

    # -- one connection's requests -----------------------------------------------------
    def _rate(self, conn: _Connection) -> None:
        now = time.monotonic()
        rate = self.config.actions_per_second
        conn.allowance = min(rate, conn.allowance + (now - conn.checked) * rate)
        conn.checked = now
        if conn.allowance < 1:
            raise ProtocolError(
                "rate-limited", f"at most {rate:g} actions per second on one connection"
            )
        conn.allowance -= 1

    def answer(self, conn: _Connection, text: str) -> tuple[dict[str, Any], bool]:
        """The reply to one message from ``conn``, and whether the table changed."""
        size = len(text.encode("utf-8", "replace"))
        if size > self.config.max_bytes:
            return ProtocolError(
                "too-large", f"the message has {size} bytes; the limit is {self.config.max_bytes}"
            ).reply(), False
        try:
            message = json.loads(text)
        except ValueError as error:
            return ProtocolError("bad-json", f"not JSON: {error}").reply(), False
        reply_to = message.get("id") if isinstance(message, dict) else None
        if isinstance(reply_to, (dict, list, float, bool)):
            reply_to = None
        try:
            table, seat = self.open_token(self._token_of(conn))
            return self._answer(conn, table, seat, message), False
        except ProtocolError as error:
            return error.reply(reply_to), False
        except _Changed as changed:
            return changed.reply, True

    @staticmethod
    def _token_of(conn: _Connection) -> str | None:
        return conn.socket.query_params.get("token")

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
        if kind in ("view", "act", "events", "save", "next-round"):
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
        reply = self.engine.handle(request)
        if reply["type"] == "error":
            raise ProtocolError(reply["code"], reply["message"], reply.get("where", ""))
        if kind in ("act", "next-round"):
            raise _Changed(reply)
        return reply

    async def session(self, socket: WebSocket) -> None:
        """Serve one WebSocket until it closes."""
        await socket.accept()
        try:
            table, seat = self.open_token(socket.query_params.get("token"))
        except ProtocolError as error:
            await socket.send_text(json.dumps(error.reply()))
            await socket.close(code=4401 if error.code == "unauthorized" else 4403)
            return
        conn = _Connection(socket, table.name, seat, checked=time.monotonic())
        conn.allowance = self.config.actions_per_second
        self.connections.setdefault(table.name, []).append(conn)
        try:
            await socket.send_text(json.dumps(self.update_for(table, conn)))
            self.start_bots(table)
            while True:
                text = await socket.receive_text()
                reply, changed = self.answer(conn, text)
                try:
                    await self.flush()
                except OSError as error:  # the disk refused: say so rather than ack
                    reply = ProtocolError(
                        "internal", f"the table could not be saved: {error}"
                    ).reply(reply.get("reply_to"))
                await socket.send_text(json.dumps(reply))
                if changed:
                    await self.broadcast(table)
                    self.start_bots(table)
                if reply.get("code") == "expired-token":
                    await socket.close(code=4403)
                    return
        except (WebSocketDisconnect, RuntimeError):
            return
        finally:
            conns = self.connections.get(table.name, [])
            if conn in conns:
                conns.remove(conn)


def _write_all(engine: Engine, unsaved: dict[str, str | None]) -> None:
    """Write each table's save (or remove its file) in order: the writer thread's job."""
    for name, text in unsaved.items():
        engine.write_saved(name, text)


_ALL_REQUESTS = frozenset(
    {"hello", "variants", "create", "view", "act", "events", "save", "load", "next-round", "close"}
)


class _Changed(Exception):
    """Carries a successful reply that changed the table (so it is broadcast)."""

    def __init__(self, reply: dict[str, Any]) -> None:
        super().__init__("changed")
        self.reply = reply


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
        yield
        await game.stop()

    async def index(request: Request) -> Response:
        return FileResponse(_static() / "index.html", media_type="text/html")

    async def variants(request: Request) -> Response:
        return JSONResponse(server().engine.handle({"type": "variants"}))

    async def create(request: Request) -> Response:
        body = await request.body()
        if len(body) > config.max_bytes:
            error = ProtocolError("too-large", f"the body is over {config.max_bytes} bytes")
            return JSONResponse(error.reply(), status_code=413)
        try:
            data = json.loads(body)
        except ValueError as exc:
            return JSONResponse(ProtocolError("bad-json", str(exc)).reply(), status_code=400)
        try:
            reply = server().create(data)
        except ProtocolError as error:
            return JSONResponse(error.reply(), status_code=_STATUS.get(error.code, 400))
        try:
            await server().flush()
        except OSError as exc:
            unsaved = ProtocolError("internal", f"the table could not be saved: {exc}")
            return JSONResponse(unsaved.reply(), status_code=500)
        base = str(request.base_url).rstrip("/")
        reply["links"] = {s: f"{base}/#join={t}" for s, t in reply["tokens"].items()}
        reply["spectator_link"] = f"{base}/#watch={reply['spectator']}"
        return JSONResponse(reply, status_code=201)

    async def websocket(socket: WebSocket) -> None:
        await server().session(socket)

    return Starlette(
        routes=[
            Route("/", index),
            Route("/api/variants", variants),
            Route("/api/tables", create, methods=["POST"]),
            WebSocketRoute("/ws", websocket),
            Mount("/static", StaticFiles(directory=_static()), name="static"),
        ],
        lifespan=lifespan,
    )
