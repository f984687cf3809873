"""Golden transcripts: every profile's seeded round must replay to the recorded text.

A mismatch fails with a unified diff of the recorded and the new transcript. When the
change is intended, rewrite the files with ``python tests/golden/regenerate.py`` and
review ``git diff tests/golden`` like any other change.
"""

from __future__ import annotations

import difflib

import pytest

import cambio
from golden.regenerate import path_of, play, transcript

PROFILES = cambio.available_variants()


def test_every_profile_has_a_transcript_and_no_stray_files() -> None:
    folder = path_of("practice").parent
    recorded = sorted(p.stem for p in folder.glob("*.txt"))
    assert recorded == sorted(PROFILES)


@pytest.mark.parametrize("name", PROFILES)
def test_transcript_matches(name: str) -> None:
    path = path_of(name)
    assert path.exists(), f"no golden transcript for {name}: run tests/golden/regenerate.py"
    want = path.read_text(encoding="utf-8")
    got = transcript(name)
    if got != want:
        diff = "".join(
            difflib.unified_diff(
                want.splitlines(keepends=True),
                got.splitlines(keepends=True),
                fromfile=f"tests/golden/{name}.txt (recorded)",
                tofile=f"{name} (this engine)",
            )
        )
        pytest.fail(
            f"the golden round of {name} changed; if intended, run "
            f"`python tests/golden/regenerate.py {name}` and review the diff:\n{diff}",
            pytrace=False,
        )


@pytest.mark.parametrize("name", PROFILES)
def test_transcript_round_replays_and_round_trips(name: str) -> None:
    r = play(name)
    again = cambio.Round.replay(
        r.rules, r.action_ids, players=r.players, seed=r.seed, dealer=r.dealer, starter=r.starter
    )
    assert again == r
    assert cambio.Round.from_json(r.to_json()) == r


def test_the_transcripts_cover_both_endings_and_recycling() -> None:
    texts = {name: path_of(name).read_text(encoding="utf-8") for name in PROFILES}
    reasons = {
        line.split(";")[0]
        for text in texts.values()
        for line in text.splitlines()
        if line.startswith("result: ")
    }
    assert {"result: call", "result: stock"} <= reasons
    assert any("\nrecycle " in t for t in texts.values())
    assert any(" wrong-snap " in t for t in texts.values())
