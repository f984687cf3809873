"""A save's text: :meth:`Match.to_json` and the server table's ``to_json`` build the
text from parts encoded once (the rules, the decks, each action), and must say exactly
what ``json.dumps`` of :meth:`to_dict` says, at every position, for every bundled table,
and for copies that go their own way."""

from __future__ import annotations

import json
import random

import pytest

import cambio
from cambio import registry

COMPACT = (",", ":")


def _match(name: str, seed: int) -> cambio.Match:
    for players in (3, 4, 2):  # the first a table seats
        try:
            return cambio.Match(name, players=players, seed=seed)
        except ValueError:
            continue
    raise AssertionError(f"{name} seats none of 2, 3, 4")


@pytest.mark.parametrize("name", registry.names())
def test_the_match_text_is_its_dict_at_every_position(name: str) -> None:
    rng = random.Random(name)
    match = _match(name, rng.randrange(1000))
    steps = 0
    while not match.is_over and steps < 400:
        assert match.to_json() == json.dumps(match.to_dict(), separators=COMPACT)
        if steps == 25:  # a copy's text follows its own actions, not the original's
            twin = match.copy()
            ids = twin.legal_action_ids()
            twin.apply(ids[-1])
            assert twin.to_json() == json.dumps(twin.to_dict(), separators=COMPACT)
            assert cambio.Match.from_json(twin.to_json()) == twin
        match.apply(rng.choice(match.legal_action_ids()))
        steps += 1
    assert match.to_json() == json.dumps(match.to_dict(), separators=COMPACT)
    assert cambio.Match.from_json(match.to_json()) == match


def test_the_server_table_text_is_its_dict() -> None:
    pytest.importorskip("starlette")
    from cambio.protocol import Table

    table = Table("t1", cambio.Match("practice", players=3, seed=4), bots={1: "random"})
    rng = random.Random(4)
    for _ in range(30):
        assert table.to_json() == json.dumps(table.to_dict(), separators=COMPACT)
        if table.match.is_over:
            break
        table.match.apply(rng.choice(table.match.legal_action_ids()))
    assert Table.from_dict(json.loads(table.to_json())).to_dict() == table.to_dict()
