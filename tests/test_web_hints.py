"""Hints on the web table, in a real browser (Chromium driven by Playwright, as in
``test_web.py``): the acting player's Hint button asks the server for an analysis and
the page shows the best moves in its own words, with their chances, and marks the best
move's control; a table without hints shows no Hint button.

The screenshot the docs show (``docs/img/web-hint.png``) is written only when
``CAMBIO_SCREENSHOTS=1``.
"""

from __future__ import annotations

import os
import re
from typing import Any

import pytest

from test_web import (
    IMAGES,
    WAIT,
    Server,
    browser,
    no_script_errors,
    open_page,
    server,
    state,
    wait_ready,
)

__all__ = ["browser", "server"]

pytestmark = pytest.mark.browser

SHOTS = os.environ.get("CAMBIO_SCREENSHOTS") == "1"


def _first_decision(page: Any) -> None:
    """Hide the opening cards, then wait until the page asks this seat to draw."""
    wait_ready(page)
    page.wait_for_selector("#hide-cards", timeout=WAIT)
    page.click("#hide-cards")
    page.wait_for_selector("button[data-kind='draw']", timeout=WAIT)


def test_the_hint_button_shows_the_best_moves_with_their_chances(
    browser: Any, server: Server
) -> None:
    table = server.create(variant="practice", players=2, seed=5, hints=True, bots={"1": "memory"})
    page = open_page(browser, table["links"]["0"])
    _first_decision(page)
    assert page.locator("#hints-note").inner_text() == "Hints on"
    button = page.locator("#hint-button")
    assert button.is_visible() and button.inner_text() == "Hint"
    page.click("#hint-button")
    page.wait_for_selector("#hint li", timeout=60_000)
    data = state(page)
    rows = page.locator("#hint li").all_inner_texts()
    assert 1 <= len(rows) <= 3 and len(rows) <= len(data["legal"])
    words = {
        page.evaluate("(a) => window.cambioTable.describe(a)", a): a["id"] for a in data["legal"]
    }
    pattern = re.compile(
        r"^(.+): wins about \d+% \(95% between \d+% and \d+%\), "
        r"expected score -?\d+\.\d \(between -?\d+\.\d and -?\d+\.\d\)$"
    )
    named = []
    for row in rows:
        found = pattern.match(row)
        assert found is not None, row
        assert found.group(1) in words, (found.group(1), sorted(words))
        named.append(found.group(1))
    hint = page.evaluate("() => window.cambioTable.hint")
    assert hint["at"] == data["view"]["at"]
    best = hint["estimates"][0]["action"]
    assert named[0] == page.evaluate("(a) => window.cambioTable.describe(a)", best)
    # The best move's control is marked: its button, or the button of its kind of move.
    marked = page.locator(".hinted")
    assert marked.count() >= 1
    assert best["kind"] in {m.get_attribute("data-kind") for m in marked.all()} or any(
        m.get_attribute("data-key") == f"move-{best['id']}" for m in marked.all()
    )
    if SHOTS:
        IMAGES.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(IMAGES / "web-hint.png"), full_page=True)
    # A move discards the hint: it was of a position that is gone.
    at = data["view"]["at"]
    page.click("button[data-kind='draw']")
    page.wait_for_function("(at) => window.cambioTable.view.at !== at", arg=at, timeout=WAIT)
    assert page.locator("#hint").count() == 0
    assert page.evaluate("() => window.cambioTable.hint") is None
    no_script_errors(page)


def test_a_hint_still_waiting_is_dropped_when_the_table_moves_on(
    browser: Any, server: Server
) -> None:
    table = server.create(variant="practice", players=2, seed=5, hints=True, bots={"1": "memory"})
    page = open_page(browser, table["links"]["0"])
    _first_decision(page)
    at = state(page)["view"]["at"]
    # Ask, then move at once: whatever the server answers, no hint of the old position shows.
    page.click("#hint-button")
    page.click("button[data-kind='draw']")
    page.wait_for_function("(at) => window.cambioTable.view.at !== at", arg=at, timeout=WAIT)
    page.wait_for_function(
        "() => window.cambioTable.hintAsked === null && window.cambioTable.hintDropped.size === 0",
        timeout=60_000,
    )
    assert page.evaluate("() => window.cambioTable.hint") is None
    assert page.locator("#hint").count() == 0
    assert page.locator("#errors .error").count() == 0
    assert page.locator("#hint-button").inner_text() == "Hint"
    no_script_errors(page)


def test_a_table_without_hints_has_no_hint_button(browser: Any, server: Server) -> None:
    table = server.create(variant="practice", players=2, seed=5, bots={"1": "memory"})
    page = open_page(browser, table["links"]["0"])
    _first_decision(page)
    assert state(page)["view"]["hints"] is False
    assert page.locator("#hint-button").count() == 0
    assert page.locator("#hints-note").count() == 0
    no_script_errors(page)


def test_the_create_form_sets_up_a_table_with_hints(browser: Any, server: Server) -> None:
    page = open_page(browser, server.url)
    page.wait_for_selector("#create-button", timeout=WAIT)
    page.select_option("#variant", "practice")
    page.check("#hints")
    page.click("#create-button")
    page.wait_for_selector("#links a.sit", timeout=WAIT)
    link = page.locator("#links a.sit").first.get_attribute("href")
    assert link is not None
    seat = open_page(browser, link if "://" in link else server.url + link.lstrip("/"))
    wait_ready(seat)
    assert state(seat)["view"]["hints"] is True
    no_script_errors(page)
