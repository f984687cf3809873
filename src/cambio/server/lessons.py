"""The guided lessons over HTTP: the routes the lesson page (``/learn``) talks to.

``GET /api/lessons`` lists the lessons. ``POST /api/lessons`` with ``{"lesson": N}``
starts lesson ``N`` and answers with the run's state, under an unguessable ``run`` id;
``POST /api/lessons/RUN`` with ``{"action": ID, "step": S}`` tries one of the legal
actions the last state listed, for step ``S``. Every state holds the learner's view
(the same card and grid encoding as a table's view), the step's prompt, the legal
actions as ids with sentences, what the step shows (``shown``), the events the learner
saw since the last state, and the result once the lesson ends the round. A move the
step does not accept is answered with ``feedback.ok`` false and the step's sentence,
and nothing is played.

Runs are held in memory, at most :attr:`LessonLimits.max_runs` at once (and
:attr:`LessonLimits.runs_per_client` per client); one left alone for
:attr:`LessonLimits.idle_seconds` is forgotten. Bad input gets one ``error`` reply in
the protocol's style (``code``, ``message``, ``where``).
"""

from __future__ import annotations

import re
import secrets
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import attrs
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from ..actions import Action
from ..cards import JOKER, Card
from ..events import Event, EventKind
from ..lessons import LessonRun, lessons
from ..play import narrate
from ..protocol import ProtocolError
from ..scoring import RoundResult
from ..views import PlayerView

__all__ = [
    "LessonLimits",
    "LessonRuns",
    "Refused",
    "action_words",
    "card_words",
    "lesson_routes",
    "view_json",
]

_RANKS = {"A": "ace", "J": "jack", "Q": "queen", "K": "king"}
_SUITS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
_OWN_LOOKS = frozenset({EventKind.OPENING_PEEK, EventKind.RE_PEEK, EventKind.PEEK})
_STATUS = {"unauthorized": 404, "too-many-tables": 503, "rate-limited": 429, "too-large": 413}


class Refused(ProtocolError):
    """A refused lesson request with the HTTP status it is answered with."""

    def __init__(self, code: str, message: str, status: int) -> None:
        super().__init__(code, message)
        self.status = status


@attrs.frozen
class LessonLimits:
    """How many lesson runs the server holds, and for how long."""

    max_runs: int = 500
    """Runs held at once, all clients together."""
    runs_per_client: int = 20
    """Runs one client may hold at once."""
    idle_seconds: float = 2 * 3600
    """A run nobody acted in for this long is forgotten."""
    max_bytes: int = 4096
    """The longest request body accepted, in bytes."""


def card_words(card: Card | None) -> str:
    """A card for people to read: ``the 2 of diamonds``, ``a joker``, ``a card``."""
    if card is None:
        return "a card"
    if card.rank == JOKER:
        return "a joker"
    rank = _RANKS.get(card.rank, card.rank)
    if card.suit in _SUITS:
        return f"the {rank} of {_SUITS[card.suit]}"
    return f"a {rank}"


def _whose(owner: int, names: Sequence[str]) -> str:
    return "your" if owner == 0 else f"{names[owner]}'s"


def _place(slot: tuple[int, int], names: Sequence[str]) -> str:
    return f"{_whose(slot[0], names)} card {slot[1]}"


def action_words(action: Action, names: Sequence[str]) -> str:
    """The learner's action as a sentence for a button."""
    places = [_place(p, names) for p in action.positions]
    kind = action.kind.value
    fixed = {
        "draw": "Draw from the stock",
        "take": "Take the top card of the discard pile",
        "call": "Call Cambio",
        "pass": "End the turn",
        "discard": "Throw the held card away",
        "skip": "Skip the power",
    }
    if kind in fixed:
        return fixed[kind]
    if kind == "replace":
        return f"Put the held card in place of {places[0]}"
    if kind == "peek":
        return f"Look at {places[0]}"
    if kind == "swap":
        return f"Swap {places[0]} with {places[1]}"
    both = " and ".join(places)
    if kind == "snap":
        return f"Snap {both}"
    if kind in ("opening-peek", "re-peek"):
        return f"Look{' again' if kind == 're-peek' else ''} at {both}"
    if kind == "exchange":
        return f"Exchange {both} for the held card"
    if kind == "give":
        return f"Give {places[0]} to fill {places[1]}"
    return f"Play {both}".strip()


def _event_text(event: Event, names: Sequence[str], visible: frozenset[Card]) -> str:
    """The event as a sentence that names only the cards in ``visible`` (those face up
    now): the page keeps the line after the learner has hidden a card it shows."""

    def words(card: Card | None) -> str:
        return card_words(card) if card is not None and card in visible else "a card"

    if event.player == 0 and event.kind in _OWN_LOOKS:  # the page shows the cards
        places = " and ".join(_place(p, names) for p in event.positions)
        again = " again" if event.kind == EventKind.RE_PEEK else ""
        return f"You look{again} at {places}."
    text = narrate(event, names, 0, words)
    text = re.sub(r"positions (\d+), (\d+)", r"cards \1 and \2", text)
    text = re.sub(r"(the power of [^:]+): [^.]*\.", r"\1.", text)  # no engine words
    text = re.sub(r"\bat (your|their|\S+'s) \[", r"in place of \1 [", text)
    return re.sub(r"\[(\d+)\]", r"card \1", text)


def _card(card: Card | None) -> str | None:
    return None if card is None else str(card)


def view_json(view: PlayerView, names: Sequence[str]) -> dict[str, Any]:
    """The learner's view, with a table view's fields and encoding (seat 0 is the learner)."""
    return {
        "seat": 0,
        "players": view.players,
        "names": list(names),
        "phase": view.phase,
        "current": view.current,
        "to_act": view.to_act,
        "caller": view.caller,
        "grid_size": view.grid_size,
        "grids": [[_card(c) for c in grid] for grid in view.grids],
        "present": [list(row) for row in view.present],
        "discard_top": _card(view.top_discard),
        "discard_size": len(view.discard),
        "stock_size": view.stock_size,
        "holding": _card(view.holding),
        "holding_from_stock": view.holding_from_stock,
        "power": view.power,
        "opening_positions": list(view.opening_positions),
    }


def _event_json(event: Event, names: Sequence[str], visible: frozenset[Card]) -> dict[str, Any]:
    return {
        "kind": event.kind,
        "player": event.player,
        "positions": [list(p) for p in event.positions],
        "cards": [_card(c) for c in event.cards],
        "text": _event_text(event, names, visible),
    }


def _result_json(result: RoundResult) -> dict[str, Any]:
    return {
        "reason": result.reason,
        "caller": result.caller,
        "winners": list(result.winners),
        "totals": list(result.totals),
        "scores": list(result.scores),
        "hands": [
            [{"position": h.position, "card": str(h.card), "value": h.value} for h in hand]
            for hand in result.hands
        ],
    }


@attrs.define(eq=False)
class _Held:
    run: LessonRun
    client: str
    touched: float


class LessonRuns:
    """The lesson runs a server holds, by id."""

    def __init__(
        self, limits: LessonLimits | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limits = limits or LessonLimits()
        self.clock = clock
        self._runs: dict[str, _Held] = {}

    def __len__(self) -> int:
        return len(self._runs)

    def sweep(self) -> None:
        """Forget every run left alone for longer than the limit."""
        late = self.clock() - self.limits.idle_seconds
        for key in [k for k, held in self._runs.items() if held.touched < late]:
            del self._runs[key]

    def start(self, body: object, client: str) -> dict[str, Any]:
        """Start the lesson a request body names; the first state, with the opening."""
        if not isinstance(body, dict):
            raise ProtocolError("bad-message", "the body must be a JSON object")
        extra = sorted(set(body) - {"lesson"})
        if extra:
            raise ProtocolError(
                "bad-field", f"{extra[0]} is not part of the request", f"$.{extra[0]}"
            )
        course = lessons()
        number = body.get("lesson")
        if number is None:
            raise ProtocolError("missing-field", "say which lesson: 1 to 3", "$.lesson")
        if isinstance(number, bool) or not isinstance(number, int):
            raise ProtocolError("bad-field", "the lesson is a number", "$.lesson")
        if not 1 <= number <= len(course):
            raise ProtocolError(
                "bad-field", f"there are lessons 1 to {len(course)}, not {number}", "$.lesson"
            )
        self.sweep()
        limits = self.limits
        if len(self._runs) >= limits.max_runs:
            raise ProtocolError(
                "too-many-tables", f"the server holds {limits.max_runs} lessons; try again later"
            )
        owned = Counter(held.client for held in self._runs.values())
        if owned[client] >= limits.runs_per_client:
            raise ProtocolError(
                "rate-limited", f"one client may hold at most {limits.runs_per_client} lessons"
            )
        run = LessonRun(course[number - 1])
        key = secrets.token_urlsafe(24)
        self._runs[key] = _Held(run, client, self.clock())
        state = self.state(key, run, run.opening)
        state["type"] = "lesson"
        return state

    def act(self, key: str, body: object) -> dict[str, Any]:
        """Try the action a request body names in run ``key``; the new state."""
        self.sweep()
        held = self._runs.get(key)
        if held is None:
            raise ProtocolError("unauthorized", "no lesson has this id (it may have expired)")
        if not isinstance(body, dict):
            raise ProtocolError("bad-message", "the body must be a JSON object")
        extra = sorted(set(body) - {"action", "step"})
        if extra:
            raise ProtocolError(
                "bad-field", f"{extra[0]} is not part of the request", f"$.{extra[0]}"
            )
        run = held.run
        for field in ("action", "step"):
            value = body.get(field)
            if value is None:
                raise ProtocolError("missing-field", f"the request needs {field}", f"$.{field}")
            if isinstance(value, bool) or not isinstance(value, int):
                raise ProtocolError("bad-field", f"{field} is a whole number", f"$.{field}")
        if run.finished:
            raise ProtocolError("round-over", "this lesson is over")
        if body["step"] != run.step_number:
            raise ProtocolError(
                "stale-action", f"the lesson is at step {run.step_number}, not {body['step']}"
            )
        legal = run.legal()
        choice = body["action"]
        if not 0 <= choice < len(legal):
            raise ProtocolError("illegal-action", f"there is no action {choice} now", "$.action")
        held.touched = self.clock()
        feedback = run.act(legal[choice])
        state = self.state(key, run, feedback.events)
        state["type"] = "lesson"
        state["feedback"] = {"ok": feedback.ok, "message": feedback.message}
        return state

    @staticmethod
    def state(key: str, run: LessonRun, events: Sequence[Event]) -> dict[str, Any]:
        """What the page is sent about ``run`` after ``events``."""
        lesson = run.lesson
        names = lesson.names
        seen = [e for e in events if e.kind != EventKind.TURN or not run.finished]
        view = run.view
        visible = frozenset(c for c in (view.top_discard, view.holding) if c is not None)
        return {
            "run": key,
            "lesson": {
                "number": lesson.number,
                "title": lesson.title,
                "summary": lesson.summary,
                "steps": len(lesson.steps),
            },
            "step": run.step_number,
            "finished": run.finished,
            "prompt": run.prompt,
            "view": view_json(view, names),
            "legal": [
                {
                    "id": i,
                    "kind": a.kind.value,
                    "positions": [list(p) for p in a.positions],
                    "text": action_words(a, names),
                }
                for i, a in enumerate(run.legal())
            ],
            "shown": [{"position": p, "card": str(c)} for p, c in run.shown],
            "events": [_event_json(e, names, visible) for e in seen],
            "result": None if run.result is None else _result_json(run.result),
            "lessons": len(lessons()),
        }


def lesson_routes(
    allowed: Callable[[Request], bool],
    client_of: Callable[[Request], str],
    read: Callable[[Request, int], Awaitable[object]],
    static: Callable[[], Path],
    limits: LessonLimits | None = None,
) -> list[Route]:
    """The lesson page and its endpoints. ``allowed`` says whether a request's page may
    use them (the server's own origins), ``client_of`` names its client, ``read`` reads
    and decodes a body of at most a number of bytes (raising :class:`ProtocolError`, or
    :class:`Refused` with the HTTP status) and ``static`` is the folder of the pages."""
    runs = LessonRuns(limits)

    def refuse(error: ProtocolError) -> Response:
        if isinstance(error, Refused):  # the body may be unread: the connection closes
            return JSONResponse(
                error.reply(), status_code=error.status, headers={"connection": "close"}
            )
        return JSONResponse(error.reply(), status_code=_STATUS.get(error.code, 400))

    async def checked(request: Request) -> object:
        if not allowed(request):
            origin = request.headers.get("origin", "")
            raise Refused("forbidden", f"pages from {origin} may not use the lessons here", 403)
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            raise Refused(
                "bad-json", "the body must be JSON, sent with Content-Type: application/json", 415
            )
        return await read(request, runs.limits.max_bytes)

    async def page(request: Request) -> Response:
        return FileResponse(static() / "learn.html", media_type="text/html")

    async def listing(request: Request) -> Response:
        return JSONResponse(
            {
                "type": "lessons",
                "lessons": [
                    {
                        "number": lesson.number,
                        "title": lesson.title,
                        "summary": lesson.summary,
                        "steps": len(lesson.steps),
                    }
                    for lesson in lessons()
                ],
            }
        )

    async def start(request: Request) -> Response:
        try:
            body = await checked(request)
            return JSONResponse(runs.start(body, client_of(request)), status_code=201)
        except ProtocolError as error:
            return refuse(error)

    async def act(request: Request) -> Response:
        try:
            body = await checked(request)
            return JSONResponse(runs.act(request.path_params["run"], body))
        except ProtocolError as error:
            return refuse(error)

    return [
        Route("/learn", page),
        Route("/api/lessons", listing, methods=["GET"]),
        Route("/api/lessons", start, methods=["POST"]),
        Route("/api/lessons/{run}", act, methods=["POST"]),
    ]
