"""The guided lessons in a real browser (Debian's Chromium driven by Playwright).

From the first page's *Learn* link, each lesson is taken by clicking: the opening cards
stay face up until *Hide cards & begin*, then every grid card is face down (a peek is
shown until it is hidden, and lesson 3's calling step shows the learner's four cards);
a wrong click shows the step's sentence and plays nothing; after lesson 3 the offer of a
fresh round opens a practice table against Robin and Alex. The screenshots the docs show
(``docs/img/learn-N-desktop.png`` and ``-phone.png``) are written here.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from cambio.lessons import lessons
from test_web import (
    DESKTOP,
    IMAGES,
    PHONE,
    WAIT,
    Page,
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


@pytest.fixture(scope="module")
def lesson_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = Server(tmp_path_factory.mktemp("lessons") / "tables")
    try:
        yield running
    finally:
        running.stop()


def shoot(page: Page, name: str) -> None:
    """Save the page at 1280 and at 375 pixels wide as docs/img/NAME-desktop/phone.png."""
    IMAGES.mkdir(parents=True, exist_ok=True)
    for label, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        page.set_viewport_size(viewport)
        page.wait_for_timeout(100)
        page.screenshot(path=str(IMAGES / f"{name}-{label}.png"), full_page=True)
    page.set_viewport_size(DESKTOP)


def grid_faces(page: Page) -> list[str]:
    """The faces the page draws on grid cards (empty for a face-down card)."""
    faces: list[str] = page.eval_on_selector_all(
        ".seat .card.up", "cards => cards.map(c => c.textContent)"
    )
    return faces


def wait_step(page: Page, step: int) -> None:
    page.wait_for_function(
        f"() => window.cambioLesson && !window.cambioLesson.busy && "
        f"window.cambioLesson.state.step === {step}",
        timeout=WAIT,
    )


def click_action(page: Page, kind: str, positions: tuple[tuple[int, int], ...]) -> None:
    if not positions:
        page.click(f"button.act[data-kind='{kind}']")
        return
    for owner, position in positions:
        page.click(f"button.card[data-owner='{owner}'][data-pos='{position}']")


def take_lesson(page: Page, number: int) -> None:
    """Start lesson ``number`` from the list and pass every step by clicking."""
    lesson = lessons()[number - 1]
    page.click(f"#start-{number}")
    page.wait_for_selector("#hide-cards", timeout=WAIT)
    assert page.inner_text("#hide-cards") == "Hide cards & begin"
    assert len(grid_faces(page)) == 2  # the opening peek, on show
    if number == 1:
        shoot(page, "learn-opening")
    page.click("#hide-cards")
    assert grid_faces(page) == []  # memory: position numbers only
    first = lesson.steps[0]
    for index, step in enumerate(lesson.steps):
        wait_step(page, index + 1)
        assert page.inner_text("#prompt") == step.prompt
        if index == 0:  # a wrong click: the step's sentence, nothing played
            wrong = "call" if first.accept[0].kind.value != "call" else "draw"
            page.click(f"button.act[data-kind='{wrong}']")
            page.wait_for_selector("#wrong", timeout=WAIT)
            assert page.inner_text("#wrong") == step.wrong
            assert page.evaluate("() => window.cambioLesson.state.step") == 1
        if step.show_own:
            assert len(grid_faces(page)) == 4  # the lesson's one look at all four cards
            assert page.inner_text("#shown").startswith("Shown by this lesson, once")
        if (number == 2 and index == 2) or (number == 3 and step.show_own):
            shoot(page, f"learn-{number}")
        action = step.accept[0]
        click_action(page, action.kind.value, action.positions)
        wait_step(page, index + 2)
        if page.query_selector("#hide-cards") is not None:  # a peek: shown until hidden
            assert len(grid_faces(page)) == 1
            if number == 2 and index == 2:
                shoot(page, "learn-peek")
            page.click("#hide-cards")
        later = lesson.steps[index + 1] if index + 1 < len(lesson.steps) else None
        if later is not None and later.show_own:
            assert len(grid_faces(page)) == 4
        elif later is None and lesson.winners:
            assert len(grid_faces(page)) == 12  # the round is over: every hand is shown
        else:
            assert grid_faces(page) == []
    page.wait_for_selector("#back", timeout=WAIT)
    assert page.inner_text("#prompt") == lesson.closing
    if number == 1:
        shoot(page, "learn-1")


def test_the_three_lessons_by_clicking_then_a_fresh_round(
    browser: Any, lesson_server: Server
) -> None:
    page = open_page(browser, lesson_server.url)
    page.wait_for_selector("#create", timeout=WAIT)
    assert page.is_visible("#learn-link")
    page.click("#learn-link")
    page.wait_for_selector("#start-1", timeout=WAIT)
    shoot(page, "learn-list")
    for number in (1, 2, 3):
        if number > 1:
            page.click("#back")
            page.wait_for_selector(f"#start-{number}", timeout=WAIT)
        take_lesson(page, number)
    assert page.inner_text("#result") == "Totals: You 10, Robin 32, Alex 30. You win."
    page.click("#fresh-round")
    page.wait_for_url("**/#join=*", timeout=WAIT)
    wait_ready(page)
    view = state(page)["view"]
    assert view["rules"] == "practice" and view["seat"] == 0
    assert view["names"][1:] == ["Robin", "Alex"] and set(view["bots"]) == {"1", "2"}
    assert not page.is_visible("#learn-link")  # offered on the first page, not at a table
    no_script_errors(page)


def test_a_wrong_card_click_shows_its_sentence(browser: Any, lesson_server: Server) -> None:
    """Lesson 1's second step accepts cards 1 and 2: card 3 is refused with its sentence."""
    page = open_page(browser, lesson_server.url + "learn", viewport=PHONE)
    page.click("#start-1")
    page.click("#hide-cards")
    page.click("button.act[data-kind='draw']")
    wait_step(page, 2)
    page.click("button.card[data-owner='0'][data-pos='3']")
    page.wait_for_selector("#wrong", timeout=WAIT)
    assert page.inner_text("#wrong") == lessons()[0].steps[1].wrong
    assert page.evaluate("() => window.cambioLesson.state.step") == 2
    assert grid_faces(page) == []
    no_script_errors(page)
