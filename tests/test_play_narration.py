"""The terminal's lines for the deal on a table that turns no card face up, and for
another player's draw on a table of open draws."""

from __future__ import annotations

import cambio
from cambio.events import EventKind
from cambio.play import narrate

NAMES = ["Sam", "Robin", "Alex"]


def _first(rnd: cambio.Round, kind: EventKind, seat: int) -> str:
    event = next(e for e in rnd.events if e.kind == kind)
    return narrate(event.as_seen_by(seat), NAMES, seat, str)


def test_a_deal_without_an_upcard_says_the_pile_starts_empty() -> None:
    r = cambio.Round("no-upcard", 3, seed=1)
    assert _first(r, EventKind.DEAL, 0) == "The cards are dealt; the discard pile starts empty."
    r = cambio.Round("practice", 3, seed=1)
    top = r.discard_pile[-1]
    assert _first(r, EventKind.DEAL, 0) == f"The cards are dealt; {top} starts the discard pile."


def test_an_open_draw_names_the_drawer() -> None:
    r = cambio.Round("open-draw", 3, seed=2)
    drawer = r.to_act
    assert drawer is not None
    r.apply(cambio.Action.draw(drawer))
    drawn = next(e for e in r.events if e.kind == EventKind.DRAW).cards[0]
    watcher = (drawer + 1) % 3
    assert _first(r, EventKind.DRAW, watcher) == f"{NAMES[drawer]} draws {drawn}."
    assert _first(r, EventKind.DRAW, drawer) == f"You draw {drawn}."
