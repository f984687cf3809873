"""Connection guards for ``cambio serve``'s uvicorn: what the ASGI application cannot see.

The application answers every message it receives, but some clients never get as far
as sending one, and some send what uvicorn refuses before the application hears of it.
:func:`protocols` gives uvicorn's HTTP and WebSocket protocols with these guards:

* **A request head must arrive in time.** A connection that has sent no complete
  request line and headers ``header_timeout`` seconds after it opened (or after the
  previous response on a kept-alive connection) is answered ``408 Request Timeout`` and
  closed; one that never sends a byte is closed the same way. uvicorn alone keeps such
  a connection open for as long as the client likes.
* **A request head has a size.** One longer than ``max_head_bytes`` is answered ``431``
  and closed, however it arrives (uvicorn's h11 limit only counts an unfinished head).
* **A refused WebSocket handshake is answered.** A request line or header the
  WebSocket library refuses (over its own 8 KiB line limit) gets the library's ``414``
  or ``431`` reply and the connection is closed; uvicorn would leave it unsent.
* **A message over the WebSocket size limit gets the protocol's error reply** (a
  ``too-large`` error as a text frame) before the library's close frame (code 1009);
  text that is not UTF-8 gets ``bad-json`` before its close (code 1007).
* **A peer that stops reading is cut off.** Closing a WebSocket whose send buffer is
  full (the peer reads nothing), a closing handshake the peer never finishes, and a
  keep-alive ping it never answers drop the connection at once instead of waiting for
  the buffer to drain, which it never would.

Everything else is uvicorn's own: these classes override a few of its methods and call
its code for the rest.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from websockets.exceptions import PayloadTooBig
from websockets.frames import Frame, Opcode

try:
    from uvicorn.protocols.websockets.websockets_sansio_impl import (
        WebSocketsSansIOProtocol as _SansIO,
    )
except ImportError:  # pragma: no cover - uvicorn before 0.35
    _SansIO = None  # type: ignore[assignment, misc]

__all__ = ["protocols"]


def _response(status: int, reason: str, text: str) -> bytes:
    body = text.encode("utf-8")
    head = (
        f"HTTP/1.1 {status} {reason}\r\n"
        "content-type: text/plain; charset=utf-8\r\n"
        f"content-length: {len(body)}\r\n"
        "connection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline and a size limit on each request head."""

    header_timeout: ClassVar[float] = 10.0
    max_head_bytes: ClassVar[int] = 8192

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._head_timer: asyncio.TimerHandle | None = None
        self._head_bytes = 0
        self._tail = b""
        self._await_head()

    # -- the deadline of the next request head ------------------------------------------
    def _await_head(self) -> None:
        self._stop_waiting()
        self._head_bytes = 0
        self._tail = b""
        self._head_timer = self.loop.call_later(self.header_timeout, self._head_late)

    def _stop_waiting(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _waiting(self) -> bool:
        """No request is under way: the connection owes the server a request head."""
        if self.conn.their_state is not h11.IDLE:
            return False
        return self.cycle is None or self.cycle.response_complete

    def _head_late(self) -> None:
        self._head_timer = None
        if self.transport.is_closing() or self.transport.get_protocol() is not self:
            return  # closed, or upgraded to a WebSocket
        if not self._waiting():
            return  # a request is under way: the application bounds its body
        self._refuse(408, "Request Timeout", "no complete request head in time\n")

    def _refuse(self, status: int, reason: str, text: str) -> None:
        self._stop_waiting()
        self.transport.write(_response(status, reason, text))
        self.transport.close()
        # a peer that reads nothing would hold the close up: drop it soon regardless
        self.loop.call_later(1.0, self.transport.abort)

    # -- uvicorn's hooks ---------------------------------------------------------------
    def data_received(self, data: bytes) -> None:
        if self._head_timer is not None and self._waiting():
            seen = self._tail + data
            end = seen.find(b"\r\n\r\n")
            size = self._head_bytes + (len(data) if end < 0 else end + 4 - len(self._tail))
            if size > self.max_head_bytes:
                self._refuse(
                    431,
                    "Request Header Fields Too Large",
                    f"the request line and headers are over {self.max_head_bytes} bytes\n",
                )
                return
            self._head_bytes = size
            self._tail = seen[-3:]
        super().data_received(data)
        if self._head_timer is not None and not self._waiting():
            self._stop_waiting()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._await_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_waiting()
        super().connection_lost(exc)


if _SansIO is not None:

    class GuardedWebSocketProtocol(_SansIO):
        """uvicorn's sans-I/O WebSocket protocol with the guards described above."""

        too_large: ClassVar[bytes] = b""
        """The error reply (JSON text) to a message over the size limit."""
        not_text: ClassVar[bytes] = b""
        """The error reply to a text message that is not UTF-8."""
        closing_seconds: ClassVar[float] = 2.0
        """Seconds a peer has to answer the server's close frame before the
        connection is dropped (uvicorn waits 10 s, then for the buffer to drain)."""
        linger: ClassVar[float] = 1.0
        """Seconds the connection stays open after a failure was answered, reading and
        dropping what the peer still sends, so it reads the reply and the close frame
        (closing at once, with its data unread, would reset the connection)."""

        def data_received(self, data: bytes) -> None:
            self.conn.receive_data(data)  # after a failure: read and dropped
            failure = self.conn.parser_exc
            if failure is not None:
                if self.close_sent:
                    return
                if isinstance(failure, PayloadTooBig) and self.handshake_complete:
                    self._answer_failure(self.too_large)
                else:
                    self.handle_parser_exception()
                return
            self.handle_events()
            if not self.handshake_initiated and self.conn.handshake_exc is not None:
                # the library refused the request head and wrote its answer: send it
                self.transport.write(b"".join(self.conn.data_to_send()))
                self.handshake_complete = True
                self.close_sent = True
                self.transport.close()

        def send_receive_event_to_app(self) -> None:
            if self.curr_msg_data_type == "text" and not self.close_sent:
                try:
                    b"".join(self.frames).decode()
                except UnicodeDecodeError:
                    self.frames = []
                    self.conn.fail(1007, "invalid UTF-8")
                    self._answer_failure(self.not_text)
                    return
            super().send_receive_event_to_app()

        def _answer_failure(self, reply: bytes) -> None:
            """Send ``reply`` just before the close frame the library has queued, tell
            the app, and close the connection ``linger`` seconds later."""
            self.transport.write(Frame(Opcode.TEXT, reply).serialize(mask=False))
            closing = self.conn.close_sent
            code = closing.code if closing is not None else 1011
            reason = closing.reason if closing is not None else ""
            self.queue.put_nowait({"type": "websocket.disconnect", "code": code, "reason": reason})
            self.transport.write(b"".join(self.conn.data_to_send()))
            self.close_sent = True
            # as close_timer, uvicorn leaves the closing to it when the app returns
            self.close_timer = self.loop.call_later(self.linger, self.transport.close)
            self.loop.call_later(self.linger + 1.0, self.transport.abort)

        async def send(self, message: Any) -> None:
            closing = message["type"] == "websocket.close" and self.handshake_complete
            if closing and not self.close_sent and not self.writable.is_set():
                # the peer stopped reading and its buffer is full: a close frame would
                # wait behind it for ever, so the connection is dropped instead
                self.close_sent = True
                self.transport.abort()
                return
            await super().send(message)
            if closing and self.close_timer is not None:
                # the closing handshake gets close_timeout seconds, then the drop
                self.close_timer.cancel()
                self.close_timer = self.loop.call_later(self.closing_seconds, self.transport.abort)

        def keepalive_timeout(self) -> None:
            super().keepalive_timeout()
            self.transport.abort()


def protocols(
    *,
    header_timeout: float,
    max_head_bytes: int,
    max_bytes: int,
    ws_max_size: int,
) -> tuple[type[asyncio.Protocol], type[asyncio.Protocol] | str]:
    """uvicorn's ``http`` and ``ws`` protocol classes with the guards, for a server whose
    protocol limit is ``max_bytes`` and whose WebSocket library refuses messages over
    ``ws_max_size``. Without uvicorn's sans-I/O WebSocket protocol (uvicorn before
    0.35) the ``ws`` part is ``"auto"``: uvicorn's own, without the WebSocket guards."""
    http = type(
        "GuardedH11Protocol",
        (GuardedH11Protocol,),
        {"header_timeout": header_timeout, "max_head_bytes": max_head_bytes},
    )
    too_large = json.dumps(
        {
            "type": "error",
            "code": "too-large",
            "message": f"the message is over {ws_max_size} bytes; the limit is {max_bytes}",
        }
    )
    not_text = json.dumps(
        {"type": "error", "code": "bad-json", "message": "not JSON: the text is not UTF-8"}
    )
    if _SansIO is None:  # pragma: no cover - an older uvicorn
        return http, "auto"
    replies = {"too_large": too_large.encode(), "not_text": not_text.encode()}
    ws = type("GuardedWebSocketProtocol", (GuardedWebSocketProtocol,), replies)
    return http, ws
