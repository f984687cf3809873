"""The memory game in the browser: a card the table no longer shows is not on the page.

On every bundled table a person sits at seat 0 of a seeded table with bots in the other
seats, looks at the opening cards, hides them with *Hide cards & begin* and plays a few
moves (each peek hidden again). After every hide the page must hold no face-up grid
card, and no face of a grid card the seat saw privately (its opening peek, its peeks,
the cards it drew and placed) may appear anywhere in the page's HTML or its rendered
text: not in labels, titles or the log. (A failed exchange turns its cards face up for
everyone: those stay face up.) Cards everybody saw (the discard pile, a taken
discard) are public and may be named by the log. A table created with learner's aids
keeps the seen cards face up and says so to every seat.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from cambio.loading import available_variants, load_ruleset
from test_web import (
    WAIT,
    Person,
    Server,
    _close_pages,
    browser,
    no_script_errors,
    open_page,
    state,
    wait_ready,
)

__all__ = ["_close_pages", "browser"]  # the fixtures, used by name

pytestmark = pytest.mark.browser

SUITS = {"S": ("\u2660", "spades"), "H": ("\u2665", "hearts"), "D": ("\u2666", "diamonds"),
         "C": ("\u2663", "clubs")}  # fmt: skip
RANKS = {"A": "ace", "J": "jack", "Q": "queen", "K": "king"}
PERSON_MOVES = 6
"""Moves the person makes at each table after the opening."""


@pytest.fixture(scope="module")
def quick_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = Server(tmp_path_factory.mktemp("memory") / "tables", bot_delay=0.0)
    try:
        yield running
    finally:
        running.stop()


def spellings(card: str) -> list[str]:
    """How the page would write a suited card: its face ("5♥") and its label."""
    rank, suit = card[:-1], SUITS.get(card[-1])
    if suit is None or not rank:
        return []  # a joker or a numbered card: checked through the grid alone
    return [rank + suit[0], f"{RANKS.get(rank, rank)} of {suit[1]}"]


def public_cards(server: Server, token: str) -> set[str]:
    """Every card a spectator of the table has been shown (the public cards)."""
    from websockets.sync.client import connect

    url = server.url.replace("http://", "ws://") + "ws?token=" + token
    with connect(url) as socket:
        update = json.loads(socket.recv(timeout=10))
    cards = {c for e in update["events"] for c in e["cards"] if c is not None}
    view = update["view"]
    cards |= {c for c in (view["discard_top"], view["holding"]) if c is not None}
    return cards


def check_hidden(page: Any, server: Server, spectator: str) -> int:
    """No face-up grid card and no privately seen face on the page; returns how many
    privately seen suited cards were looked for."""
    data = state(page)
    view = data["view"]
    if view["result"] is not None or page.locator("#hide-cards").count():
        return 0
    up = {
        f"{card.get_attribute('data-owner')}:{card.get_attribute('data-pos')}"
        for card in page.locator(".seat .card.up").all()
    }
    # only the cards a failed exchange turned face up for everyone
    open_for_all = set(page.evaluate("() => [...window.cambioTable.faceUp()]"))
    assert up <= open_for_all, f"grid cards face up after the hide: {sorted(up - open_for_all)}"
    seen = {c for row in view["grids"] for c in row if c is not None}
    private = seen - public_cards(server, spectator)
    html = page.content()
    text = page.inner_text("body")
    looked = 0
    for card in private:
        for spelling in spellings(card):
            looked += 1
            assert spelling not in html, f"{card} is in the page's HTML as {spelling!r}"
            assert spelling not in text, f"{card} is in the page's text as {spelling!r}"
    return looked


def play_a_little(page: Any, server: Server, spectator: str) -> tuple[int, int]:
    """The opening and a few moves, checking the page after every hide."""
    person = Person(page, call_after=99, snap=False)
    looked = 0
    shown_before_hide = 0
    moves = 0
    for _ in range(400):
        if person.done() or moves >= PERSON_MOVES:
            break
        if page.locator("#hide-cards").count():
            shown_before_hide += page.locator(".seat .card.up").count()
            person.hide()
            page.wait_for_selector("#hide-cards", state="detached", timeout=WAIT)
            looked += check_hidden(page, server, spectator)
            continue
        if person.step():
            moves += 1
            page.wait_for_timeout(30)
            looked += check_hidden(page, server, spectator)
        else:
            page.wait_for_timeout(40)
    return looked, shown_before_hide


def make_table(server: Server, name: str, **extra: Any) -> dict[str, Any]:
    players = load_ruleset(name).players.default
    bots = {str(s): "memory" for s in range(1, players)}
    return server.create(variant=name, players=players, seed=3, bots=bots, **extra)


@pytest.mark.parametrize("name", available_variants())
def test_after_the_hide_no_seen_card_is_on_the_page(
    browser: Any, quick_server: Server, name: str
) -> None:
    table = make_table(quick_server, name)
    page = open_page(browser, table["links"]["0"])
    wait_ready(page)
    assert "Memory game" in page.inner_text("#aids-note")
    looked, shown = play_a_little(page, quick_server, table["spectator"])
    rules = load_ruleset(name)
    if rules.opening.count:
        assert shown >= 1, "the opening cards were shown before the hide"
        if not rules.deck.custom:  # suited cards: their faces were looked for in the text
            assert looked >= 1, "no privately seen card was looked for"
    no_script_errors(page)


@pytest.mark.parametrize("name", ["practice", "snap", "cabo"])
def test_learner_s_aids_keep_seen_cards_face_up(
    browser: Any, quick_server: Server, name: str
) -> None:
    table = make_table(quick_server, name, aids=True)
    page = open_page(browser, table["links"]["0"])
    watch = open_page(browser, table["spectator_link"])
    wait_ready(page)
    wait_ready(watch)
    assert page.inner_text("#aids-note") == "Learner's aids on"
    assert watch.inner_text("#aids-note") == "Learner's aids on"
    assert page.locator("#hide-cards").count() == 0  # nothing to hide: the aids show it all
    page.wait_for_selector(".seat[data-seat='0'] .card.up", timeout=WAIT)
    view = state(page)["view"]
    known = sum(c is not None for c in view["grids"][0])
    assert known >= 1
    assert page.locator(".seat[data-seat='0'] .card.up").count() == known
    no_script_errors(page)
