"""The web table speaks about cards and players, never in the engine's vocabulary.

Several tables are played in the browser through their powers (peeks, swaps, snaps,
exchanges, the call) to the end of the round; after every move the words the page
shows (its rendered text, and the labels and titles a screen reader reads) are checked
against a list of engine words: scope names such as ``own-other``, seat and slot codes
such as ``P0:1``, JSON paths such as ``$.action`` from error replies, event kinds. The
names of the players (Robin and Alex at the practice table, a name a person types) are
shown to every seat, and the end of the match names its winner in a sentence.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from test_web import (
    WAIT,
    Person,
    Server,
    _close_pages,
    browser,
    no_script_errors,
    open_page,
    play_to_the_end,
    state,
    wait_ready,
)

__all__ = ["_close_pages", "browser"]  # the fixtures, used by name

pytestmark = pytest.mark.browser

ENGINE_WORDS = re.compile(
    r"own-other|any-two|other-other|peeked-(?:pair|any|own|other)|opening-peek"
    r"|wrong-snap|failed-exchange|power_step|\bP\d+\b|\bP\d+:\d+|\$\.|\[\d+\]"
    r"|\bsingle:|\bYou wins\b|\bbot (?:memory|random|greedy|search)\b|\bnull\b|undefined"
    r"|\bpeek (?:own|other|any)\b"
)
"""Words of the engine that must never reach a person's screen."""


@pytest.fixture(scope="module")
def quick_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = Server(tmp_path_factory.mktemp("words") / "tables", bot_delay=0.0)
    try:
        yield running
    finally:
        running.stop()


def shown_words(page: Any) -> str:
    """The page's rendered text, and every label and title on it."""
    text: str = page.evaluate(
        """() => [document.body.innerText,
          ...[...document.querySelectorAll('[aria-label],[title]')].map(
            (e) => (e.getAttribute('aria-label') || '') + ' ' + (e.getAttribute('title') || ''))
        ].join('\\n')"""
    )
    return text


def check_words(page: Any) -> bool:
    """Check the words on the page; True if it offered to discard a card with a power."""
    words = shown_words(page)
    found = ENGINE_WORDS.search(words)
    if found is not None:
        around = words[max(0, found.start() - 80) : found.end() + 80]
        raise AssertionError(f"the page shows {found.group(0)!r}: ...{around}...")
    if not page.evaluate("() => Boolean(window.cambioTable && window.cambioTable.view)"):
        return False  # the form that creates a table
    data = state(page)
    if data["view"]["discard_power"] and page.locator("button[data-kind='discard']").count():
        label = page.inner_text("button[data-kind='discard']")
        assert "its power follows: " in label, label
        return True
    return False


def play_and_check(pages: list[Any], people: list[Person]) -> int:
    """Play to the end of the round, checking every page after each move; returns how
    often a discard offered a power."""
    powers = []

    def on_move(_: int) -> None:
        powers.extend(check_words(page) for page in pages)

    play_to_the_end(people, on_move=on_move)
    for page in pages:
        check_words(page)
        no_script_errors(page)
    return sum(powers)


@pytest.mark.parametrize(
    ("name", "players"),
    [("practice", 3), ("snap", 3), ("cabo", 3), ("penalty", 4), ("five-card", 3)],
)
def test_the_page_speaks_about_cards_and_players(
    browser: Any, quick_server: Server, name: str, players: int
) -> None:
    bots = {str(s): "memory" for s in range(1, players)}
    table = quick_server.create(variant=name, players=players, seed=8, bots=bots)
    page = open_page(browser, table["links"]["0"])
    watch = open_page(browser, table["spectator_link"])
    wait_ready(page)
    wait_ready(watch)
    names = state(page)["view"]["names"]
    assert names[1:3] == ["Robin", "Alex"]
    assert "Robin" in page.inner_text(".players")
    person = Person(page, call_after=4, snap=True)
    person.powers = -3  # use the powers rather than skip them
    offered = play_and_check([page, watch], [person])
    if name == "practice":
        assert offered >= 1, "no discard offered its power"
    assert page.locator("#result").is_visible()
    log = page.inner_text("#log")
    assert "looked at" in log and "called Cambio" in log
    assert "swapped" in log or "snapped" in log, "no power or snap was played"
    view = state(page)["view"]
    if view["match_over"]:
        winners = view["match"]["winners"]
        over = page.inner_text("#match-over")
        expected = (
            "You win the match!"
            if winners == [0]
            else f"{names[winners[0]]} wins the match."
            if len(winners) == 1
            else " and ".join("You" if s == 0 else names[s] for s in winners) + " share the match."
        )
        assert over == expected


def test_a_person_s_name_is_shown_to_every_seat(browser: Any, quick_server: Server) -> None:
    table = quick_server.create(variant="snap", players=3, seed=2, bots={"2": "memory"})
    host = open_page(browser, table["links"]["0"])
    guest = open_page(browser, table["links"]["1"])
    for page in (host, guest):
        wait_ready(page)
    host.wait_for_selector("#name-input", timeout=WAIT)
    host.fill("#name-input", "  Ana   Lee ")
    host.click("#name-form button")
    guest.wait_for_function("() => window.cambioTable.view.names[0] === 'Ana Lee'", timeout=WAIT)
    assert "Ana Lee" in guest.inner_text(".players")
    assert host.inner_text("#my-name") == "Ana Lee"
    assert host.locator("#name-form").count() == 0
    assert "Robin" in guest.inner_text(".players")  # the bot at seat 2
    # an empty name is refused in words, with no field path
    guest.fill("#name-input", "   ")
    guest.click("#name-form button")
    guest.wait_for_selector("#errors .error", timeout=WAIT)
    check_words(guest)
    for page in (host, guest):
        no_script_errors(page)


def test_refusals_read_as_sentences(browser: Any, quick_server: Server) -> None:
    """A refused move and a rule file that does not load give errors without codes."""
    table = quick_server.create(variant="practice", seed=1, bots={"1": "memory", "2": "memory"})
    page = open_page(browser, table["links"]["0"])
    wait_ready(page)
    page.evaluate("() => window.cambioTable.send({type: 'act', action: 999999, at: 0})")
    page.wait_for_selector("#errors .error", timeout=WAIT)
    assert "not allowed" in page.inner_text("#errors")
    check_words(page)
    page.evaluate("() => window.cambioTable.send({type: 'act', action: 'fly P0:1', at: 0})")
    page.wait_for_timeout(300)
    check_words(page)
    form = open_page(browser, quick_server.url)
    form.wait_for_selector("#create-button", timeout=WAIT)
    form.select_option("#variant", "")
    form.fill("#rules", 'extends = "snap"\nname = "broken"\n[players]\nmin = "two"\n')
    form.click("#create-button")
    form.wait_for_selector("#errors .error", timeout=WAIT)
    assert "not created" in form.inner_text("#errors")
    check_words(form)
