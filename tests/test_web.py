"""The web table in a real browser: Debian's Chromium driven by Playwright for Python.

Every test starts ``cambio serve`` as a new user would (a separate process on a free
port, with its own folder of tables), opens the page headless and plays by clicking.
Without ``/usr/bin/chromium`` (or ``CAMBIO_CHROMIUM``) the tests skip, except under
``CI=true``, where they fail: ``.ci/run`` installs Chromium from the distribution.
Playwright never downloads a browser of its own here.

The screenshots the docs show (``docs/img/web-*.png``, at 1280 and at 375 pixels wide)
are written by :func:`test_two_people_and_a_bot_play_a_snap_round`.
"""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import cambio

if os.environ.get("CI") == "true":
    import playwright.sync_api as playwright_sync  # under CI a missing driver fails
else:
    playwright_sync = pytest.importorskip(
        "playwright.sync_api", reason="the browser tests need playwright (the dev extra)"
    )
Page = playwright_sync.Page

ROOT = Path(__file__).resolve().parent.parent
IMAGES = ROOT / "docs" / "img"
CHROMIUM = os.environ.get("CAMBIO_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 375, "height": 740}
WAIT = 20_000
"""Milliseconds a step may wait for the page (generous: two cores are shared)."""


# ---------------------------------------------------------------------------------------
# Fixtures: the browser and the server


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but there is no Chromium at {CHROMIUM} (.ci/run installs it)")
        pytest.skip(f"no Chromium at {CHROMIUM}: apt-get install chromium (or set CAMBIO_CHROMIUM)")
    with playwright_sync.sync_playwright() as driver:
        # launch() gives the browser a fresh, temporary user-data-dir of its own.
        launched = driver.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture(autouse=True)
def _close_pages(browser: Any) -> Iterator[None]:
    """Close every page a test opened (a page left open keeps reconnecting)."""
    yield
    for context in list(browser.contexts):
        context.close()


class Server:
    """``cambio serve`` in a child process; ``url`` is the address it printed."""

    def __init__(self, store: Path, port: int = 0, bot_delay: float = 0.05) -> None:
        self.store = store
        env = {**os.environ, "PYTHONPATH": str(Path(cambio.__file__).parent.parent)}
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "cambio",
                "serve",
                "--port",
                str(port),
                "--store",
                str(store),
                "--bot-delay",
                str(bot_delay),
                # every page and test client comes from one address
                "--creates-per-minute",
                "1000000",
                "--tables-per-client",
                "1000000",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        found = re.search(r"(http://\S+/)", line)
        if found is None:
            self.stop()
            raise AssertionError(f"cambio serve printed no address: {line!r}")
        self.url = found.group(1)
        self.port = int(self.url.rsplit(":", 1)[1].strip("/"))
        deadline = time.monotonic() + 30
        while True:  # the address is printed just before uvicorn starts listening
            try:
                with urllib.request.urlopen(self.url + "api/variants", timeout=5):
                    break
            except OSError:
                assert time.monotonic() < deadline, "cambio serve never answered"
                time.sleep(0.05)

    def create(self, **body: Any) -> dict[str, Any]:
        """Create a table over HTTP (as the page's form does)."""
        request = urllib.request.Request(
            self.url + "api/tables",
            data=json.dumps(body).encode(),
            headers={"content-type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30) as reply:
            data: dict[str, Any] = json.loads(reply.read())
        return data

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover
            self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    running = Server(tmp_path / "tables")
    try:
        yield running
    finally:
        running.stop()


def open_page(browser: Any, url: str, viewport: dict[str, int] = DESKTOP) -> Page:
    """A page in a browser context of its own (one person), failing on script errors."""
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on(
        "console",
        lambda message: problems.append(message.text) if message.type == "error" else None,
    )
    page.problems = problems  # type: ignore[attr-defined]
    page.goto(url)
    return page


def no_script_errors(page: Page) -> None:
    problems = [p for p in page.problems if "WebSocket" not in p]  # type: ignore[attr-defined]
    assert problems == []


def state(page: Page) -> dict[str, Any]:
    """The view and legal actions the page holds (exactly what the server sent it)."""
    data: dict[str, Any] = page.evaluate(
        "() => ({view: window.cambioTable.view, legal: window.cambioTable.legal})"
    )
    return data


def wait_ready(page: Page) -> None:
    page.wait_for_function("() => window.cambioTable && window.cambioTable.view", timeout=WAIT)


def shoot(page: Page, name: str) -> None:
    """Save the page at desktop and at phone size as docs/img/web-NAME-*.png."""
    IMAGES.mkdir(parents=True, exist_ok=True)
    size = page.viewport_size
    for label, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        page.set_viewport_size(viewport)
        page.wait_for_timeout(100)
        page.screenshot(path=str(IMAGES / f"web-{name}-{label}.png"), full_page=True)
    if size is not None:
        page.set_viewport_size(size)


# ---------------------------------------------------------------------------------------
# A person at the table, clicking


def rank(card: str | None) -> str | None:
    if card is None or card.lower() == "joker":
        return card
    return card[:-1] if card[-1] in "SHDC" else card


class Person:
    """Plays one seat of a page by clicking what the page offers."""

    def __init__(
        self, page: Page, *, call_after: int = 3, snap: bool = True, last: bool = False
    ) -> None:
        self.page = page
        pick = "nth=-1" if last else "nth=0"
        self.target = f".card.target:not(.selected) >> {pick}"
        self.turns = 0
        self.call_after = call_after
        self.want_snap = snap
        self.snapped = False
        self.replaced = False
        self.powers = 0
        self.hidden = 0

    def done(self) -> bool:
        return self.page.locator("#result").count() > 0

    def click_and_wait(self, selector: str) -> None:
        """Click, then wait until the table moved on, a card is chosen or an error shows."""
        at = state(self.page)["view"]["at"]
        chosen = self.page.evaluate("() => window.cambioTable.selection.length")
        try:
            self.page.locator(selector).first.click(timeout=5000)
        except playwright_sync.TimeoutError:
            return  # the page kept redrawing under the click: look at it again
        try:
            self.page.wait_for_function(
                "([at, chosen]) => window.cambioTable.view.at !== at"
                " || window.cambioTable.selection.length > chosen"
                " || document.querySelector('#errors .error')",
                arg=[at, chosen],
                timeout=WAIT,
            )
        except playwright_sync.Error as error:
            prompt = self.page.inner_text("#prompt")
            raise AssertionError(
                f"clicking {selector} changed nothing; the page asks: {prompt}"
            ) from error

    def hide(self) -> bool:
        """Hide the cards the table shows (the opening peek, a peek), if it shows any."""
        button = self.page.locator("#hide-cards")
        if not button.count():
            return False
        try:
            button.click(timeout=5000)
        except playwright_sync.TimeoutError:
            return True  # redrawn under the click: look again
        self.hidden += 1
        return True

    def step(self) -> bool:
        """Make one move if the page asks this seat for one; False when it does not."""
        if self.hide():
            return True
        data = state(self.page)
        view, legal = data["view"], data["legal"]
        if not legal or view["result"] is not None:
            return False
        seat = view["seat"]
        kinds = {a["kind"] for a in legal}
        mine = view["to_act"] == seat
        if self.want_snap and not self.snapped and "snap" in kinds and mine:
            top = rank(view["discard_top"])
            known = [
                i + 1
                for i, card in enumerate(view["grids"][seat])
                if card is not None and rank(card) == top
            ]
            own = [
                a["positions"][0][1]
                for a in legal
                if a["kind"] == "snap" and len(a["positions"]) == 1 and a["positions"][0][0] == seat
            ]
            known = [p for p in known if p in own]
            if known or (own and self.turns >= self.call_after - 1):
                # A known match is a sure snap; otherwise a blind one (possibly wrong).
                position = known[0] if known else own[0]
                self.page.locator("#snap-button").click()
                self.snapped = True
                self.click_and_wait(f".card[data-owner='{seat}'][data-pos='{position}']")
                return True
        if not mine:
            return False
        if "give" in kinds or "opening-peek" in kinds or "re-peek" in kinds:
            self.click_and_wait(self.target)
            return True
        if view["power_step"] is not None:
            self.powers += 1
            if "skip" in kinds and self.powers > 2:
                self.click_and_wait("button[data-kind='skip']")
            elif self.page.locator(".card.target").count():
                self.click_and_wait(self.target)
            else:
                self.click_and_wait("#prompt .actions button")
            return True
        if "draw" in kinds:
            if "call" in kinds and self.turns >= self.call_after:
                self.click_and_wait("button[data-kind='call']")
            else:
                self.turns += 1
                self.click_and_wait("button[data-kind='draw']")
            return True
        if "replace" in kinds and (not self.replaced or "discard" not in kinds):
            self.replaced = True
            self.click_and_wait(self.target)
            return True
        plain = [a["kind"] for a in legal if not a["positions"]]
        if plain:
            self.click_and_wait(f"button[data-kind='{plain[0]}']")
            return True
        self.click_and_wait(self.target)
        return True


def play_to_the_end(people: list[Person], *, on_move: Any = None, limit: float = 180.0) -> None:
    """Let every person move as the page asks until every page shows the result."""
    deadline = time.monotonic() + limit
    moves = 0
    while not all(p.done() for p in people):
        assert time.monotonic() < deadline, "the round did not end in time"
        moved = False
        for person in people:
            if not person.done() and person.step():
                moved = True
                moves += 1
                if on_move is not None:
                    on_move(moves)
        if not moved:
            people[0].page.wait_for_timeout(60)


def faces(page: Page, seat: int) -> dict[tuple[int, int], str]:
    """The cards the page shows face up in the grids: {(owner, position): text}."""
    found: dict[tuple[int, int], str] = {}
    for card in page.locator(".seat .card.up").all():
        owner = int(card.get_attribute("data-owner") or -1)
        position = int(card.get_attribute("data-pos") or -1)
        found[(owner, position)] = card.inner_text().split("\n")[-1]
    return found


# ---------------------------------------------------------------------------------------
# Tests


def test_two_people_and_a_bot_play_a_snap_round(browser: Any, server: Server) -> None:
    """Create the table with the form, share the link, play a snap round to the scores."""
    host = open_page(browser, server.url)
    host.wait_for_selector("#create-button", timeout=WAIT)
    host.select_option("#variant", "snap")
    host.fill("#players", "3")
    host.dispatch_event("#players", "input")
    host.select_option("select[data-seat='0']", "person")
    host.select_option("select[data-seat='1']", "person")
    host.select_option("select[data-seat='2']", "memory")
    host.fill("#seed", "11")
    host.click("#create-button")
    host.wait_for_selector("#links a.sit", timeout=WAIT)
    assert host.locator("#links a.sit").count() == 2  # the bot's seat has no link
    link = host.locator("#links li[data-seat='1'] input").input_value()
    assert "#join=" in link
    host.click("#links a.sit[data-seat='0']")
    wait_ready(host)
    guest = open_page(browser, link, PHONE)
    wait_ready(guest)

    # Each person sees its own opening cards, and nothing of the other person's.
    for page, seat in ((host, 0), (guest, 1)):
        page.wait_for_selector(f".seat[data-seat='{seat}'] .card.up", timeout=WAIT)
        shown = faces(page, seat)
        view = state(page)["view"]
        assert sorted(p for o, p in shown if o == seat) == view["opening_positions"]
        assert not [o for o, _ in shown if o == 1 - seat]
    assert faces(host, 0) != faces(guest, 1)
    assert host.get_attribute(".seat[data-seat='2']", "aria-label") is not None
    shoot(host, "start")

    people = [Person(host, call_after=3), Person(guest, call_after=99)]
    # once hidden, the opening cards are face down: the memory game
    assert people[0].hide()
    host.wait_for_selector("#hide-cards", state="detached", timeout=WAIT)
    assert host.locator(".seat .card.up").count() == 0
    shoot(host, "memory")
    shots: dict[str, bool] = {"mid": False, "reload": False}

    def on_move(moves: int) -> None:
        if moves >= 4 and not shots["reload"]:
            shots["reload"] = True
            before = state(guest)["view"]["at"]
            guest.reload()
            wait_ready(guest)
            after = state(guest)["view"]
            assert after["at"] >= before and after["result"] is None
            assert after["seat"] == 1
        if moves >= 6 and not shots["mid"]:
            shots["mid"] = True
            shoot(host, "mid")

    play_to_the_end(people, on_move=on_move)
    assert shots["reload"] and shots["mid"]
    for page in (host, guest):
        page.wait_for_selector("#result", timeout=WAIT)
        result = state(page)["view"]["result"]
        rows = page.locator("#result tbody tr")
        assert rows.count() == 3
        assert [
            int(t) for t in page.locator("#result tbody tr td:nth-child(3)").all_inner_texts()
        ] == result["totals"]
        assert page.locator("#match").inner_text().count("Total") == 1
        log = page.locator("#log").inner_text()
        assert "snapped" in log and "called Cambio" in log
        no_script_errors(page)
    assert people[0].snapped and people[0].turns >= 3
    shoot(host, "end")
    # The snap table's match goes on: the next round waits for a person to start it.
    totals = state(host)["view"]["match"]["totals"]
    cells = host.locator("#match tbody tr:last-child td").all_inner_texts()
    assert [int(c) for c in cells] == totals
    guest.click("#next-round")
    for page in (host, guest):
        page.wait_for_function("() => window.cambioTable.view.round === 2", timeout=WAIT)
        page.wait_for_selector("#result", state="detached", timeout=WAIT)
        assert "Round 2" in page.locator("#log").inner_text()
        assert page.locator("#match tbody tr").count() == 2  # round 1 and the totals


def test_a_practice_round_against_bots(browser: Any, server: Server) -> None:
    """One person and two bots; the first moves are made with the keyboard."""
    table = server.create(
        variant="practice", players=3, seed=5, bots={"1": "memory", "2": "random"}
    )
    page = open_page(browser, table["links"]["0"])
    wait_ready(page)
    page.wait_for_selector("#hide-cards", timeout=WAIT)
    page.locator("#hide-cards").focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("#hide-cards", state="detached", timeout=WAIT)
    button = page.locator("#prompt .actions button").first
    assert button.inner_text()
    button.focus()
    at = state(page)["view"]["at"]
    page.keyboard.press("Enter")
    page.wait_for_function("(at) => window.cambioTable.view.at !== at", arg=at, timeout=WAIT)
    for card in page.locator(".seat .card").all():
        assert card.get_attribute("aria-label")
    play_to_the_end([Person(page, call_after=2, snap=False)])
    assert page.locator("#result tbody tr").count() == 3
    totals = state(page)["view"]["match"]["totals"]
    cells = page.locator("#match tbody tr:last-child td").all_inner_texts()
    assert [int(c) for c in cells] == totals
    # The practice table plays a single round: the match is over with it.
    winners = state(page)["view"]["match"]["winners"]
    names = state(page)["view"]["names"]
    over = page.locator("#match-over").inner_text()
    if winners == [0]:
        assert over == "You win the match!"
    elif len(winners) == 1:
        assert over == f"{names[winners[0]]} wins the match."
    assert page.locator("#next-round").count() == 0
    assert page.locator("#rematch").is_visible() and page.locator("#new-table").is_visible()
    no_script_errors(page)


def test_the_server_s_refusals_appear_on_the_page(browser: Any, server: Server) -> None:
    page = open_page(browser, server.url)
    page.wait_for_selector("#create-button", timeout=WAIT)
    page.select_option("#variant", "")
    page.fill("#rules", 'extends = "snap"\nname = "broken"\n[grid\n')
    page.click("#create-button")
    page.wait_for_selector("#errors .error", timeout=WAIT)
    assert "not created" in page.locator("#errors").inner_text()
    page.goto(server.url + "#join=not-a-token")
    page.wait_for_selector("#errors .error", timeout=WAIT)
    assert "no seat" in page.locator("#errors").inner_text()


def test_a_dropped_connection_reconnects_and_resumes(browser: Any, tmp_path: Path) -> None:
    first = Server(tmp_path / "tables")
    try:
        table = first.create(variant="snap", players=2, seed=3, bots={"1": "memory"})
        page = open_page(browser, table["links"]["0"])
        wait_ready(page)
        person = Person(page, call_after=99, snap=False)
        for _ in range(50):
            if state(page)["view"]["at"] >= 3:
                break
            if not person.step():
                page.wait_for_timeout(60)
        before = state(page)["view"]
    finally:
        first.stop()
    page.wait_for_function("() => document.body.dataset.connected === 'false'", timeout=WAIT)
    second = Server(tmp_path / "tables", port=first.port)
    try:
        page.wait_for_function("() => document.body.dataset.connected === 'true'", timeout=WAIT)
        after = state(page)["view"]
        assert after["table"] == before["table"] and after["at"] >= before["at"]
        assert after["grids"][0] == before["grids"][0] or after["at"] > before["at"]
        play_to_the_end([Person(page, call_after=person.turns + 1, snap=False)])
    finally:
        second.stop()


def _pages_of(browser: Any, folder: Path, deck: list[str], moves: int = 10) -> list[str]:
    """The HTML of P0's, P1's and a spectator's page after each of a few moves.

    The table is written into the server's folder before it starts: always the same
    name, tokens and seed, two people and no bot, only ``deck`` varies. Both people
    discard what they draw, skip powers where they may and otherwise aim them at the
    last card offered, so no move turns up P1's first two cards.
    """
    from cambio.match import Match
    from cambio.protocol import Table

    folder.mkdir()
    meta = {
        "tokens": {"0": "seat-zero-token-0000", "1": "seat-one-token-11111"},
        "spectator": "spectator-token-2222",
        "expires": time.time() + 3600,
    }
    table = Table("same", Match("snap", 2, seed=21, decks=[deck]), {}, meta=meta)
    (folder / "same.json").write_text(json.dumps(table.to_dict()), encoding="utf-8")
    running = Server(folder)
    snapshots: list[str] = []
    try:
        zero = open_page(browser, running.url + "#join=seat-zero-token-0000")
        one = open_page(browser, running.url + "#join=seat-one-token-11111")
        watch = open_page(browser, running.url + "#watch=spectator-token-2222")
        people = []
        for page in (zero, one):
            person = Person(page, call_after=99, snap=False, last=True)
            person.replaced = True
            person.powers = 10
            people.append(person)
        for page in (zero, one, watch):
            wait_ready(page)
        snapshots.extend(p.inner_html("main") for p in (zero, one, watch))
        for _ in range(moves):
            moved = next((p for p in people if p.step()), None)
            if moved is None:
                break
            at = state(moved.page)["view"]["at"]
            for page in (zero, one, watch):
                page.wait_for_function(
                    "(at) => window.cambioTable.view.at === at", arg=at, timeout=WAIT
                )
            snapshots.extend(p.inner_html("main") for p in (zero, one, watch))
        for page in (zero, one, watch):
            no_script_errors(page)
            page.context.close()  # before its server stops
    finally:
        running.stop()
    return snapshots


def test_the_page_never_shows_a_hidden_card(browser: Any, tmp_path: Path) -> None:
    """Tables that differ only in cards nobody has seen draw the same pages, move by move.

    The second deck swaps P1's first two cards (which P1 never looks at here) and the
    two cards at the bottom of the stock; the third, a control, changes a card P0 looked
    at in the opening peek, and must change P0's page.
    """
    from cambio.match import Match

    base = [str(c) for c in Match("snap", 2, seed=21).round.deck]  # type: ignore[attr-defined]
    hidden = list(base)
    hidden[4], hidden[5] = hidden[5], hidden[4]  # P1's positions 1 and 2
    hidden[-1], hidden[-2] = hidden[-2], hidden[-1]  # the bottom of the stock
    seen = list(base)
    seen[2], seen[5] = seen[5], seen[2]  # P0's position 3 (peeked) and P1's position 2
    assert len({tuple(base), tuple(hidden), tuple(seen)}) == 3
    first = _pages_of(browser, tmp_path / "a", base)
    assert len(first) >= 3 * 6, "a few moves were made"
    assert _pages_of(browser, tmp_path / "b", hidden) == first
    control = _pages_of(browser, tmp_path / "c", seen, moves=0)
    assert control[0] != first[0]


def test_an_arranged_table_says_so_to_every_seat_and_spectator(
    browser: Any, server: Server
) -> None:
    """A table created with a seed shows the arranged-table notice to a seat and to a
    spectator as they join; a table whose seed the server drew shows it to nobody. The
    form says next to its seed field that a seed makes the table arranged."""
    form = open_page(browser, server.url)
    form.wait_for_selector("#seed-hint", timeout=WAIT)
    hint = form.locator("#seed-hint").inner_text()
    assert "arranged" in hint and "every player" in hint
    assert form.get_attribute("#seed", "aria-describedby") == "seed-hint"
    arranged = server.create(variant="practice", seed=9, bots={"1": "memory", "2": "memory"})
    drawn = server.create(variant="practice", bots={"1": "memory", "2": "memory"})
    assert arranged["arranged"] is True and drawn["arranged"] is False
    for table, shown in ((arranged, True), (drawn, False)):
        for link in (table["links"]["0"], table["spectator_link"]):
            page = open_page(browser, link)
            wait_ready(page)
            page.wait_for_selector(".felt", timeout=WAIT)
            assert state(page)["view"]["arranged"] is shown
            notice = page.locator("#arranged")
            if shown:
                assert notice.is_visible()
                assert notice.inner_text() == (
                    "Arranged table: its creator chose the deal, so the creator may know the cards."
                )
            else:
                assert notice.count() == 0
                assert "Arranged" not in page.inner_text("main")
            no_script_errors(page)
            page.context.close()


def test_a_redraw_during_a_click_does_not_lose_it(browser: Any, server: Server) -> None:
    """The first click on *Start the next round* always starts it.

    The page redraws the table on every update and when a highlight ends; a click is
    lost when its press and its release land on two different elements, which is what
    a redraw that replaced the button between the two did. Here the table redraws
    (with a change elsewhere on it: the stock's size) while the button is held down.
    """
    table = server.create(variant="snap", players=3, seed=4, bots={"1": "memory", "2": "memory"})
    page = open_page(browser, table["links"]["0"])
    wait_ready(page)
    play_to_the_end([Person(page, call_after=2, snap=False)])
    page.wait_for_selector("#next-round", timeout=WAIT)
    box = page.locator("#next-round").bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.evaluate(
        "() => { const t = window.cambioTable; t.view = {...t.view, stock_size: 99}; t.render(); }"
    )
    assert "Stock 99" in page.inner_text("#stock")  # the table was redrawn
    page.mouse.up()
    page.wait_for_function("() => window.cambioTable.view.round === 2", timeout=WAIT)
    no_script_errors(page)


def test_moves_are_highlighted_and_the_last_line_stays_in_view(
    browser: Any, server: Server
) -> None:
    table = server.create(variant="practice", seed=6, bots={"1": "memory", "2": "memory"})
    page = open_page(browser, table["links"]["0"], {"width": 375, "height": 740})
    wait_ready(page)
    person = Person(page, call_after=99, snap=False)
    assert person.hide()
    touched_bot = False
    for _ in range(300):
        if person.done():
            break
        if page.locator(".seat:not(.me) .card.touched").count():
            touched_bot = True
            label = page.locator(".seat:not(.me) .card.touched").first.get_attribute("aria-label")
            assert label is not None and "just changed" in label
            break
        if not person.step():
            page.wait_for_timeout(40)
    assert touched_bot, "no move of a computer player was highlighted"
    # the latest line of the log is in the prompt, on screen without scrolling
    page.wait_for_selector("#latest", timeout=WAIT)
    seen = page.evaluate(
        "() => { const p = document.querySelector('#latest'); const r = p.getBoundingClientRect();"
        " const lines = [...document.querySelectorAll('#log li')].map((li) => li.innerText);"
        " return {top: r.top, bottom: r.bottom, text: p.innerText, last: lines.at(-1)}; }"
    )
    assert seen["top"] >= 0 and seen["bottom"] <= 740, seen
    assert seen["text"].removeprefix("Last: ").strip() == seen["last"].strip()
    # the highlight lasts a moment only: its animation ends
    page.wait_for_function(
        "() => [...document.querySelectorAll('.card.touched')].every("
        "(el) => el.getAnimations().every((a) => a.playState === 'finished'))",
        timeout=WAIT,
    )
    no_script_errors(page)


def test_the_end_of_a_match_offers_a_rematch_and_a_new_table(browser: Any, server: Server) -> None:
    table = server.create(variant="practice", seed=5, bots={"1": "memory", "2": "memory"})
    page = open_page(browser, table["links"]["0"])
    watch = open_page(browser, table["spectator_link"])
    wait_ready(page)
    play_to_the_end([Person(page, call_after=2, snap=False)])
    assert page.get_attribute("#new-table", "href") == "/"
    assert watch.locator("#rematch").count() == 0  # a spectator cannot start one
    page.click("#rematch")
    for seen in (page, watch):
        seen.wait_for_function(
            "() => !window.cambioTable.view.match_over && !window.cambioTable.view.result",
            timeout=WAIT,
        )
        seen.wait_for_selector("#result", state="detached", timeout=WAIT)
    # the new match is dealt afresh: the opening cards are shown, then hidden again
    page.wait_for_selector("#hide-cards", timeout=WAIT)
    assert state(page)["view"]["arranged"] is False
    log = page.locator("#log").inner_text()
    assert "wins the match" not in log and "win the match" not in log
    no_script_errors(page)
    no_script_errors(watch)


CONTRAST = """(el) => {
  const parse = (text) => {
    const parts = text.match(/rgba?\\(([^)]+)\\)/)[1].split(/[\\s,/]+/).filter(Boolean).map(Number);
    return [parts[0], parts[1], parts[2], parts.length > 3 ? parts[3] : 1];
  };
  const layers = [];
  for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
    const style = getComputedStyle(node);
    if (style.backgroundImage !== "none") return null;  // a pattern: no text on it
    const colour = parse(style.backgroundColor);
    layers.push(colour);
    if (colour[3] >= 1) break;
  }
  let base = [255, 255, 255];
  for (const layer of layers.reverse()) {
    base = base.map((c, i) => layer[i] * layer[3] + c * (1 - layer[3]));
  }
  // a card with no face shows only its position number
  let text = el;
  if (parse(getComputedStyle(el).color)[3] === 0) text = el.querySelector(".pos");
  if (!text) return null;
  const fg = parse(getComputedStyle(text).color);
  const ink = base.map((c, i) => fg[i] * fg[3] + c * (1 - fg[3]));
  const linear = (v) => (v / 255 <= 0.03928 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4);
  const lum = (rgb) => {
    const [r, g, b] = rgb.map(linear);
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [a, b] = [lum(ink), lum(base)];
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}"""
"""The WCAG contrast ratio of an element's text on what is behind it (``null`` for text
on a patterned background, which the page never uses)."""


def _button_contrasts(page: Page, state_name: str, found: dict[str, float]) -> None:
    """Measure every visible button with text as it is, hovered and focused."""
    buttons = page.locator("main button:visible, main a.button-link:visible, #errors button")
    for i in range(buttons.count()):
        button = buttons.nth(i)
        try:
            text = button.inner_text(timeout=1000).strip()
        except playwright_sync.Error:
            continue  # redrawn meanwhile
        if not text:
            continue
        for how in ("", "hover", "focus"):
            try:
                if how == "hover":
                    button.hover(timeout=1000)
                elif how == "focus":
                    button.focus(timeout=1000)
                ratio = button.evaluate(CONTRAST, timeout=1000)
                pressed = button.get_attribute("aria-pressed", timeout=1000) == "true"
            except playwright_sync.Error:
                continue
            if ratio is not None:
                key = f"{state_name}: {text[:30]}{' pressed' if pressed else ''} {how}".strip()
                found[key] = min(ratio, found.get(key, 99.0))
    page.mouse.move(0, 0)


def test_every_button_state_is_readable(browser: Any, server: Server) -> None:
    """WCAG AA: each button's text, in every state met, contrasts 4.5:1 with its ground."""
    found: dict[str, float] = {}
    form = open_page(browser, server.url)
    form.wait_for_selector("#create-button", timeout=WAIT)
    _button_contrasts(form, "form", found)
    rules = open_page(browser, server.url + "rules/snap")
    rules.wait_for_selector("main.reference", timeout=WAIT)
    ratio = rules.locator("nav button").evaluate(CONTRAST)
    found["rules: print"] = ratio
    table = server.create(variant="snap", players=3, seed=12, bots={"1": "memory", "2": "memory"})
    page = open_page(browser, table["links"]["0"])
    wait_ready(page)
    person = Person(page, call_after=3, snap=False)
    pressed_snap = False
    for _ in range(200):
        if person.done():
            break
        if page.locator("#prompt .actions button").count():
            _button_contrasts(page, "table", found)
        snap = page.locator("#snap-button")
        if snap.count() and not pressed_snap:
            snap.click()
            page.wait_for_selector("#snap-button[aria-pressed='true']", timeout=WAIT)
            _button_contrasts(page, "snapping", found)
            pressed_snap = True
            snap.click()
        if not person.step():
            page.wait_for_timeout(40)
    page.wait_for_selector("#result", timeout=WAIT)
    _button_contrasts(page, "end", found)
    low = {k: round(v, 2) for k, v in found.items() if v < 4.5}
    assert not low, low
    assert pressed_snap, "the pressed Snap! button was measured"
    assert any("pressed" in k for k in found)
    assert len(found) >= 20


def test_a_phone_shows_a_whole_decision_without_scrolling(browser: Any, server: Server) -> None:
    """375 x 740, four players, a seeded table (its notice shown) and the name box."""
    table = server.create(
        variant="penalty", players=4, seed=3, bots={"1": "memory", "2": "memory", "3": "memory"}
    )
    page = open_page(browser, table["links"]["0"], {"width": 375, "height": 740})
    wait_ready(page)
    person = Person(page, call_after=6, snap=False)
    person.powers = -3
    decisions = 0
    for _ in range(300):
        if person.done() or decisions >= 12:
            break
        if page.locator("#prompt .actions button").count():
            fit = page.evaluate(
                "() => ({bottom: document.querySelector('.felt').getBoundingClientRect().bottom,"
                " top: document.querySelector('.felt').getBoundingClientRect().top,"
                " wide: document.documentElement.scrollWidth, y: window.scrollY})"
            )
            assert fit["y"] == 0 and fit["top"] >= 0
            assert fit["bottom"] <= 740, f"the table ends at {fit['bottom']} px: {fit}"
            assert fit["wide"] <= 375, "the page scrolls sideways"
            decisions += 1
        if not person.step():
            page.wait_for_timeout(40)
    assert decisions >= 6
    no_script_errors(page)


def test_every_table_s_rules_page_is_its_quick_reference(server: Server) -> None:
    """/rules/NAME holds every sentence of the table's quick reference, and no other
    name opens a page."""
    from cambio.loading import available_variants, load_ruleset
    from cambio.render import quick_reference

    for name in available_variants():
        with urllib.request.urlopen(server.url + f"rules/{name}", timeout=10) as reply:
            assert reply.status == 200
            page = reply.read().decode()
        text = html.unescape(re.sub(r"<[^>]+>", " ", page))
        words = " ".join(text.split())
        for line in quick_reference(load_ruleset(name), width=10_000).splitlines():
            line = " ".join(line.strip().removeprefix("- ").split())
            if line and set(line) != {"="}:
                assert line in words, f"{name}: {line!r} is not on its rules page"
    try:
        urllib.request.urlopen(server.url + "rules/no-such-table", timeout=10)
    except urllib.error.HTTPError as error:
        assert error.code == 404
    else:
        raise AssertionError("a table that does not exist has a rules page")


def test_the_table_links_to_its_rules_which_print_plainly(browser: Any, server: Server) -> None:
    table = server.create(variant="five-card", players=3, bots={"1": "memory", "2": "memory"})
    page = open_page(browser, table["links"]["0"])
    wait_ready(page)
    with page.context.expect_page() as opened:
        page.click("#rules-link")
    rules = opened.value
    rules.wait_for_selector("main.reference h1", timeout=WAIT)
    assert rules.inner_text("h1") == "CAMBIO · FIVE-CARD"
    assert "[3*] [4*]" in rules.inner_text("pre.diagram")
    assert rules.locator("nav").is_visible()
    rules.emulate_media(media="print")
    assert not rules.locator("nav").is_visible()  # the print stylesheet drops the buttons
    assert rules.evaluate("() => getComputedStyle(document.body).backgroundColor") in (
        "rgb(255, 255, 255)",
        "rgba(0, 0, 0, 0)",
    )
    no_script_errors(page)
