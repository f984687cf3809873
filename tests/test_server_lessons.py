"""The lessons' HTTP endpoints: each lesson taken to its end, refusals, and no hidden card.

Every reply is compared with a :class:`~cambio.lessons.LessonRun` of the same lesson
driven beside it: each card code a reply holds must be one the learner's view shows,
one the step explicitly shows, one an event showed the learner, or (once the round is
over) one of the hands every player sees at the end.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from cambio.cards import Card
from cambio.lessons import LessonRun, lessons
from cambio.server.app import ServerConfig, create_app
from cambio.server.lessons import LessonLimits, LessonRuns, card_words

_CARD = re.compile(r"^(?:10|[2-9AJQK])[SHDC]$")


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(ServerConfig(store=tmp_path / "tables"))) as test_client:
        yield test_client


def _codes(value: object) -> Iterator[str]:
    """Every string in a JSON value that is written as a card."""
    if isinstance(value, str):
        if _CARD.match(value):
            yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _codes(item)
    elif isinstance(value, list):
        for item in value:
            yield from _codes(item)


def _allowed(mirror: LessonRun, seen: set[str]) -> set[str]:
    view = mirror.view
    cards: set[Card | None] = {c for grid in view.grids for c in grid}
    cards |= {view.holding, view.top_discard, *view.discard}
    cards |= {card for _, card in mirror.shown}
    if mirror.result is not None:
        cards |= {h.card for hand in mirror.result.hands for h in hand}
    return seen | {str(c) for c in cards if c is not None}


def _check_reply(reply: dict[str, Any], mirror: LessonRun, seen: set[str]) -> None:
    allowed = _allowed(mirror, seen)
    leaked = set(_codes(reply)) - allowed
    assert not leaked, f"cards the learner has not seen: {leaked}"
    view = mirror.view
    face_up = {c for c in (view.top_discard, view.holding) if c is not None}
    for event in reply["events"]:  # the page keeps a line after its cards are hidden
        named = {c for c in mirror.lesson.deck if card_words(c) in event["text"]}
        assert named <= face_up, event["text"]
        assert not re.search(r"\[|\$\.|\bP\d|own-other|any-two|peek own", event["text"])
    for action in reply["legal"]:  # a sentence for a button, never an engine code
        assert action["text"][0].isupper() and not re.search(r"[:\[$]|\bP\d", action["text"])
    assert reply["view"]["grids"] == [
        [None if c is None else str(c) for c in g] for g in view.grids
    ]
    assert reply["shown"] == [{"position": p, "card": str(c)} for p, c in mirror.shown]


def _start(client: TestClient, number: int) -> dict[str, Any]:
    response = client.post("/api/lessons", json={"lesson": number})
    assert response.status_code == 201, response.text
    reply: dict[str, Any] = response.json()
    return reply


def _act(client: TestClient, state: dict[str, Any], action: int) -> dict[str, Any]:
    response = client.post(
        f"/api/lessons/{state['run']}", json={"action": action, "step": state["step"]}
    )
    assert response.status_code == 200, response.text
    reply: dict[str, Any] = response.json()
    return reply


def test_the_listing_names_the_three_lessons(client: TestClient) -> None:
    listed = client.get("/api/lessons").json()["lessons"]
    assert [(x["number"], x["title"]) for x in listed] == [
        (1, "Replace a card"),
        (2, "Peek"),
        (3, "Swap and call"),
    ]
    page = client.get("/learn")
    assert page.status_code == 200 and "learn.js" in page.text


@pytest.mark.parametrize("number", [1, 2, 3])
def test_each_lesson_completes_and_refuses_a_wrong_move(client: TestClient, number: int) -> None:
    lesson = lessons()[number - 1]
    mirror = LessonRun(lesson)
    seen = {str(c) for e in mirror.opening for c in e.cards if c is not None}
    state = _start(client, number)
    _check_reply(state, mirror, seen)
    assert state["prompt"] == lesson.steps[0].prompt
    # a legal move the first step does not accept: refused with its sentence, nothing played
    wrong = next(a for a in mirror.legal() if a not in lesson.steps[0].accept)
    wrong_id = list(mirror.legal()).index(wrong)
    refused = _act(client, state, wrong_id)
    assert refused["feedback"] == {"ok": False, "message": lesson.steps[0].wrong}
    assert refused["step"] == 1 and refused["view"] == state["view"] and refused["events"] == []
    for step in lesson.steps:
        legal = list(mirror.legal())
        chosen = legal.index(step.accept[0])
        assert state["legal"][chosen]["kind"] == step.accept[0].kind.value
        feedback = mirror.act(step.accept[0])
        seen |= {str(c) for e in feedback.events for c in e.cards if c is not None}
        state = _act(client, state, chosen)
        assert state["feedback"] == {"ok": True, "message": step.done}
        _check_reply(state, mirror, seen)
        if step.show_own:  # lesson 3's one look at all four cards, before the call
            assert len(state["shown"]) == 0  # the step is passed: the look is over
    assert state["finished"] and state["legal"] == [] and state["prompt"] == lesson.closing
    if number == 3:
        assert state["result"]["winners"] == [0] and state["result"]["totals"] == [10, 32, 30]
    over = client.post(f"/api/lessons/{state['run']}", json={"action": 0, "step": state["step"]})
    assert over.status_code == 400 and over.json()["code"] == "round-over"


def test_lesson_three_shows_all_four_cards_on_its_calling_step(client: TestClient) -> None:
    state = _start(client, 3)
    mirror = LessonRun(lessons()[2])
    for step in lessons()[2].steps[:3]:
        chosen = list(mirror.legal()).index(step.accept[0])
        mirror.act(step.accept[0])
        state = _act(client, state, chosen)
    assert [s["card"] for s in state["shown"]] == ["AS", "2C", "3H", "4D"]
    assert state["view"]["grids"][0][:4] == [None, None, "3H", "4D"]  # the view itself: memory


def test_hidden_cards_never_reach_the_page(client: TestClient) -> None:
    """Robin's and Alex's unseen cards and the stock's later cards are in no reply."""
    lesson = lessons()[0]
    hidden = {str(c) for grid in lesson.grids[1:] for c in grid} | {"6C"}  # 6C: drawn by Robin
    hidden -= {"10S"}  # Robin's card 3 goes face up on the discard pile
    state = _start(client, 1)
    replies = [state]
    mirror = LessonRun(lesson)
    for step in lesson.steps:
        chosen = list(mirror.legal()).index(step.accept[0])
        mirror.act(step.accept[0])
        state = _act(client, state, chosen)
        replies.append(state)
    for reply in replies:
        assert not set(_codes(reply)) & hidden


def test_bad_requests_get_one_typed_error(client: TestClient) -> None:
    def post(path: str, **kwargs: Any) -> tuple[int, dict[str, Any]]:
        response = client.post(path, **kwargs)
        return response.status_code, response.json()

    assert post("/api/lessons", json={"lesson": 0}) == (
        400,
        {
            "type": "error",
            "code": "bad-field",
            "message": "there are lessons 1 to 3, not 0",
            "where": "$.lesson",
        },
    )
    assert post("/api/lessons", json={"lesson": "1"})[1]["code"] == "bad-field"
    assert post("/api/lessons", json={"lesson": True})[1]["code"] == "bad-field"
    assert post("/api/lessons", json={})[1]["code"] == "missing-field"
    assert post("/api/lessons", json=[1])[1]["code"] == "bad-message"
    assert post("/api/lessons", json={"lesson": 1, "deck": ["AS"]})[1]["where"] == "$.deck"
    assert (
        post("/api/lessons", content=b"{", headers={"content-type": "application/json"})[1]["code"]
        == "bad-json"
    )
    assert post("/api/lessons", content=b"lesson=1")[0] == 415
    status, big = post(
        "/api/lessons", content=b" " * 10_000, headers={"content-type": "application/json"}
    )
    assert (status, big["code"]) == (413, "too-large")
    state = _start(client, 1)
    path = f"/api/lessons/{state['run']}"
    assert post("/api/lessons/nope", json={"action": 0, "step": 1})[:1] == (404,)
    assert post(path, json={"action": 99, "step": 1})[1]["code"] == "illegal-action"
    assert post(path, json={"action": -1, "step": 1})[1]["code"] == "illegal-action"
    assert post(path, json={"action": "draw", "step": 1})[1]["where"] == "$.action"
    assert post(path, json={"action": 0})[1]["code"] == "missing-field"
    assert post(path, json={"action": 0, "step": 2})[1]["code"] == "stale-action"
    assert post(path, json={"action": 0, "step": 1, "x": 1})[1]["where"] == "$.x"
    assert (
        post(path, json={"action": 0, "step": 1}, headers={"origin": "https://evil.example"})[0]
        == 403
    )
    again = _act(client, state, 0)  # nothing above changed the run
    assert again["feedback"]["ok"] and again["step"] == 2


def test_runs_are_bounded_and_expire() -> None:
    now = [0.0]
    runs = LessonRuns(LessonLimits(max_runs=2, runs_per_client=5, idle_seconds=10), lambda: now[0])
    first = runs.start({"lesson": 1}, "a")
    runs.start({"lesson": 2}, "b")
    with pytest.raises(Exception, match="holds 2 lessons") as full:
        runs.start({"lesson": 3}, "c")
    assert getattr(full.value, "code", "") == "too-many-tables"
    now[0] = 11.0
    runs.start({"lesson": 3}, "c")  # the two idle runs are forgotten
    assert len(runs) == 1
    with pytest.raises(Exception, match="no lesson has this id"):
        runs.act(first["run"], {"action": 0, "step": 1})
    per_client = LessonRuns(LessonLimits(max_runs=10, runs_per_client=1))
    per_client.start({"lesson": 1}, "a")
    with pytest.raises(Exception, match="at most 1 lessons"):
        per_client.start({"lesson": 1}, "a")
