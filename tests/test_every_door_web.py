"""The web table's door: the page of a seat is the same for deals it cannot tell apart.

The pairs of :mod:`test_every_door` (one per bundled profile: the first found, on the
match the server plays) are played on ``cambio serve`` in a real browser: the seat's
page is opened as a person opens it, every move is sent over WebSockets by the seat
that makes it, and after each move the page's DOM (``main``) is read once the page
shows that move. The two deals of a pair must draw the same DOM at every step; the
control (a card the seat saw, exchanged) must draw a different one.
"""

from __future__ import annotations

import contextlib
import json
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from test_every_door import PROFILES, Pair, build, pairs
from test_web import WAIT, Server, _close_pages, browser, no_script_errors, open_page, wait_ready

__all__ = ["_close_pages", "browser"]  # the fixtures, used by name

WEB_STEPS = 10
"""Moves compared per deal (the first ones of the pair's actions)."""


@pytest.fixture(scope="module")
def web_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = Server(tmp_path_factory.mktemp("door") / "tables", bot_delay=0.0)
    try:
        yield running
    finally:
        running.stop()


def _create(server: Server, pair: Pair, deck: Sequence[str]) -> dict[str, Any]:
    body = {"variant": pair.name, "players": pair.players, "seed": pair.seed, "decks": [list(deck)]}
    request = urllib.request.Request(
        server.url + "api/tables",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        made: dict[str, Any] = json.loads(response.read())
    return made


def _pages(browser: Any, server: Server, pair: Pair, deck: Sequence[str]) -> Iterator[str]:
    """The seat's page (``main``) before the first move and after each one."""
    from websockets.sync.client import connect

    made = _create(server, pair, deck)
    secrets = [made["table"], made["spectator"], *made["tokens"].values()]
    ws_url = server.url.replace("http://", "ws://") + "ws?token="
    opened = contextlib.ExitStack()
    sockets = {int(s): opened.enter_context(connect(ws_url + t)) for s, t in made["tokens"].items()}
    for socket in sockets.values():
        socket.recv(timeout=10)  # the update sent on connecting
    page = open_page(browser, server.url + "#join=" + made["tokens"][str(pair.viewer)])
    shadow = build("match", pair.name, pair.players, pair.seed, deck)
    per = shadow.space.per_player

    def dom() -> str:
        html = page.inner_html("main")
        for secret in secrets:
            html = html.replace(secret, "-")
        # a moved card's highlight lasts a moment of wall-clock time: whether a capture
        # falls inside it depends on the machine's speed, not on the deal
        for mark in (" touched", ", just changed", "; just changed"):
            html = html.replace(mark, "")
        return html

    try:
        wait_ready(page)
        yield dom()
        moves = [a for a in pair.actions if a < shadow.space.size][:WEB_STEPS]
        for at, aid in enumerate(moves, start=1):
            socket = sockets[aid // per]
            socket.send(json.dumps({"type": "act", "action": aid, "at": at - 1}))
            while True:
                reply = json.loads(socket.recv(timeout=10))
                if reply["type"] != "update":
                    break
            assert reply["type"] == "acted", reply
            shadow.apply(aid)
            page.wait_for_function(
                "(at) => window.cambioTable.view.at === at", arg=at, timeout=WAIT
            )
            yield dom()
        no_script_errors(page)
    finally:
        page.context.close()
        opened.close()


def _first_difference(browser: Any, server: Server, pair: Pair, deck: Sequence[str]) -> int | None:
    first = _pages(browser, server, pair, pair.first)
    other = _pages(browser, server, pair, deck)
    try:
        for step, (x, y) in enumerate(zip(first, other, strict=True)):
            if x != y:
                return step
        return None
    finally:
        first.close()
        other.close()


def test_the_page_of_a_seat_hides_unseen_cards_on_every_profile(
    browser: Any, web_server: Server, tmp_path: Path
) -> None:
    compared = 0
    for name in PROFILES:
        pair = pairs(name, "match")[0]
        step = _first_difference(browser, web_server, pair, pair.hidden)
        assert step is None, f"{pair.note}: the page tells the deals apart at step {step}"
        compared += 1 + min(WEB_STEPS, len(pair.actions))
        assert _first_difference(browser, web_server, pair, pair.seen) is not None, (
            f"{name}: the page missed the control"
        )
    assert compared >= 5 * len(PROFILES)
