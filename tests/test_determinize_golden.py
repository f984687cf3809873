"""Determinization's reading of a history, pinned: the same views give the same samples.

At random points of random rounds (several bundled tables, fixed seeds) the rounds
that :func:`cambio.determinize.determinize` samples for a random player are hashed
(their whole saved state) and compared with the hashes recorded in
``tests/golden/determinize_samples.json``. The views are sampled both cold (nothing
kept of the round) and in the order the round made them (the reading resumed from the
player's previous view), so a change to how the history is read, from the deal or
from a kept reading, shows up as a different sample. Regenerate the golden file only
for an intended change of the samples:
``CAMBIO_REGEN_GOLDEN=1 pytest tests/test_determinize_golden.py``.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
from pathlib import Path

import pytest

import cambio
from cambio import Round
from cambio.determinize import _LAST, _READS, determinize
from cambio.saving import dumps

GOLDEN = Path(__file__).resolve().parent / "golden" / "determinize_samples.json"
TABLES = ["practice", "snap", "penalty", "draw-power", "open-draw", "teams", "re-peek"]
SEEDS = range(8)


def _digest(table: str, seed: int) -> str:
    """One hash of every sample drawn at random points of one random round."""
    rules = cambio.load_ruleset(table)
    rng = random.Random(f"golden:{table}:{seed}")
    lo = max(rules.players.min, rules.teams.size)
    n = lo if rules.teams.size > 1 else rng.randint(lo, min(rules.players.max, 4))
    real = Round(rules, n, seed=seed)
    h = hashlib.sha256()
    steps = drawn = 0
    while not real.is_over and steps < 300:
        if rng.random() < 0.25:
            player = rng.randrange(n)
            view = real.view(player)
            if rng.random() < 0.5:  # cold: read from the deal
                _LAST.clear()
                _READS.clear()
            sample = determinize(view, rules, random.Random(rng.getrandbits(32)))
            h.update(dumps(sample).encode())
            drawn += 1
        ids = real.legal_action_ids(None)
        calls = [a for a in ids if real.space.decode(a).kind is cambio.ActionKind.CALL]
        if calls and len(ids) > len(calls) and rng.random() < 0.9:
            ids = [a for a in ids if a not in calls]
        real.apply(rng.choice(ids))
        steps += 1
    return f"{drawn}:{h.hexdigest()}"


def _digests() -> dict[str, str]:
    return {f"{t}:{s}": _digest(t, s) for t in TABLES for s in SEEDS}


def test_samples_match_the_recorded_ones() -> None:
    got = _digests()
    assert sum(int(d.split(":")[0]) for d in got.values()) > 500  # samples drawn
    if os.environ.get("CAMBIO_REGEN_GOLDEN"):
        GOLDEN.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        pytest.skip("golden file written")
    want = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert got == want
