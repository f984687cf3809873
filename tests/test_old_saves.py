"""Saves written by earlier versions still load and play on exactly as before.

``tests/fixtures`` holds saves written by the code of the day before the compact save
format (``cambio-round/3``: actions as objects, events in full; ``cambio-match/2``), made
by ``tests/fixtures/make_fixtures.py``: a round of the snap table in the middle and at
its end, and a cabo match in the middle and at its end. The middle one, loaded and
played on with the same random choices as when the fixtures were made, must reach the
saved end exactly: same state, same events, same actions, same result.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from cambio import Match, Round, SaveError
from cambio.invariants import ensure_consistent
from cambio.match import OLD_SAVE_FORMAT as OLD_MATCH_FORMAT
from cambio.match import SAVE_FORMAT as MATCH_FORMAT
from cambio.saving import OLD_SAVE_FORMAT, SAVE_FORMAT
from decks import random_step

FIXTURES = Path(__file__).parent / "fixtures"


def _text(name: str) -> str:
    return (FIXTURES / f"{name}.json").read_text()


def _play_on(r: Round, seed: int) -> None:
    # the choices make_fixtures.py made: snaps of every reactor offered with the turn's
    rng = random.Random(seed)
    while not r.is_over:
        random_step(r, rng)


def test_the_fixtures_are_old_saves() -> None:
    for name in ("round-v3-mid", "round-v3-end"):
        assert json.loads(_text(name))["format"] == OLD_SAVE_FORMAT != SAVE_FORMAT
    for name in ("match-v2-mid", "match-v2-end"):
        assert json.loads(_text(name))["format"] == OLD_MATCH_FORMAT != MATCH_FORMAT


@pytest.mark.parametrize("verify", [False, True])
def test_an_old_round_save_loads_and_plays_on_identically(verify: bool) -> None:
    mid = Round.from_json(_text("round-v3-mid"), verify=verify)
    end = Round.from_json(_text("round-v3-end"), verify=verify)
    ensure_consistent(mid)
    assert not mid.is_over and end.is_over
    assert mid.action_ids == end.action_ids[: len(mid.action_ids)]
    assert mid.events == end.events[: len(mid.events)]
    _play_on(mid, 18)
    assert mid == end
    assert mid.result == end.result and mid.events == end.events


def test_an_old_round_save_is_written_again_in_the_new_format() -> None:
    old = Round.from_json(_text("round-v3-mid"))
    doc = old.to_dict()
    assert doc["format"] == SAVE_FORMAT
    assert all(type(a) is int for a in doc["actions"])
    again = Round.from_dict(doc, verify=True)
    assert again == old
    assert len(old.to_json()) < len(_text("round-v3-mid"))
    end = Round.from_json(_text("round-v3-end"))
    assert len(end.to_json()) < len(_text("round-v3-end")) * 0.75


def test_an_old_match_save_loads_and_plays_on_identically() -> None:
    mid = Match.from_json(_text("match-v2-mid"))
    end = Match.from_json(_text("match-v2-end"))
    assert not mid.is_over and end.is_over
    rng = random.Random(6)
    while not mid.is_over:
        who = mid.to_act
        assert who is not None
        mid.apply(rng.choice(mid.legal_action_ids(who)))
    assert mid == end
    assert Match.from_json(mid.to_json()) == end
    again = mid.to_dict()
    assert again["format"] == MATCH_FORMAT and all(type(a) is int for a in again["actions"])
    assert len(mid.to_json()) < len(_text("match-v2-end"))


def test_an_old_save_is_read_as_strictly_as_a_new_one() -> None:
    doc = json.loads(_text("round-v3-mid"))
    doc["actions"][0] = 0  # an id where the old format holds an object
    with pytest.raises(SaveError) as info:
        Round.from_dict(doc)
    assert info.value.path == "$.actions[0]"
    doc = json.loads(_text("round-v3-mid"))
    doc["state"]["events"][0] = [0, -1]  # a compact event in an old save
    with pytest.raises(SaveError) as info:
        Round.from_dict(doc)
    assert info.value.path == "$.state.events[0]"
