"""The observation encoding: its layout, its documented table, and that it cannot leak.

The no-leak test follows ``tests/test_no_leak.py``: round A is played with random
actions; round B is dealt from the same deck with two cards the viewer never saw
exchanged, and A's actions are replayed on it. The viewer's encoding (legal-action mask
included) must be the same in A and B at every step, on every bundled profile.
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import cambio
from cambio import Action, Round
from cambio.rl import PHASES, Encoder, Turns, layout_markdown, seen_by
from decks import seat_counts
from test_club_rules import EVERY_NEW
from test_no_leak import play_a, seen_cards

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PROFILES = cambio.available_variants()


def test_layout_is_contiguous_and_depends_on_the_table_and_seats_only() -> None:
    rules = cambio.load_ruleset("snap")
    enc = Encoder(rules, 4)
    offset = 0
    for f in enc.features:
        assert f.offset == offset and f.size > 0, f.name
        offset += f.size
    assert offset == enc.size
    assert enc.feature("legal").size == Round(rules, 4, seed=0).space.size
    for seed in range(3):
        r = Round(rules, 4, seed=seed)
        for p in range(4):
            x = enc.encode(r.view(p), r.legal_action_ids(p))
            assert x.shape == (enc.size,) and x.dtype == np.float32
            assert float(x.min()) >= -1.0 and float(x.max()) <= 1.0
    assert Encoder(rules, 3).size != enc.size  # the seat count changes the layout


def test_the_documented_table_is_the_generated_one() -> None:
    """docs/rl.md holds the layout of practice for three players, as generated."""
    page = (DOCS / "rl.md").read_text(encoding="utf-8")
    table = layout_markdown(Encoder(cambio.load_ruleset("practice"), 3))
    match = re.search(r"<!-- encoding:start -->\n(.*?)<!-- encoding:end -->", page, re.DOTALL)
    assert match is not None, "docs/rl.md has lost its encoding markers"
    assert match.group(1) == table, (
        "docs/rl.md's encoding table is stale: paste layout_markdown(Encoder(practice, 3))"
    )


def test_what_the_encoding_says() -> None:
    r = Round("practice", 3, deck=["AS", "2S", "3S", "4S"], seed=5)
    enc = Encoder(r.rules, 3)
    x = enc.encode(r.view(0), r.legal_action_ids(0))
    text = enc.describe(x)
    assert text.splitlines()[0] == "seat: 0"
    assert "grid +0: ?? ?? 3=3 4=4 -- -- -- --" in text  # positions 3 and 4 were peeked
    assert "grid +1: ?? ?? ?? ??" in text
    assert "legal: P0 draw, P0 take, P0 call" in text
    phase = enc.feature("phase")
    assert x[phase.offset + PHASES.index("turn")] == 1.0
    # seat 1's observation puts seat 1 first and marks its own seat
    y = enc.encode(r.view(1), r.legal_action_ids(1))
    assert y[enc.feature("seat").offset + 1] == 1.0
    assert "legal: -" in enc.describe(y)


def test_what_others_know_of_my_cards_follows_public_events() -> None:
    """P0 peeks at P1's card 2 with a 9; P1's own observation shows P0 knows it."""
    deck = ["AS", "2S", "3S", "4S", "AH", "2H", "3H", "4H", "5C", "9C"]
    r = Round("practice", 2, deck=deck, seed=1)
    r.apply(Action.draw(0))
    r.apply(Action.discard(0))
    r.apply(Action.peek(0, (1, 2)))
    masks = seen_by(r.view(1).history, players=2, positions=8)
    assert masks[1][1] == 0b01  # P0 saw P1's card 2; P1 never did
    assert masks[1][2] == masks[1][3] == 0b10  # P1's opening peek
    enc = Encoder(r.rules, 2)
    x = enc.encode(r.view(1), r.legal_action_ids(1))
    seen = enc.feature("seen_by")
    # block 0 is P1 itself; position 2 (index 1); seat P0 is "+1" from P1
    assert x[seen.offset + 1 * 2 + 1] == 1.0
    assert x[seen.offset + 1 * 2 + 0] == 0.0


def test_bad_input_is_refused() -> None:
    enc = Encoder(cambio.load_ruleset("practice"), 3)
    r = Round("practice", 2, seed=0)
    with pytest.raises(ValueError, match="3 players"):
        enc.encode(r.view(0))
    r3 = Round("practice", 3, seed=0)
    with pytest.raises(ValueError, match="outside"):
        enc.encode(r3.view(0), [enc.space.size])
    with pytest.raises(TypeError):
        enc.encode("a view")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seats 2 to 6"):
        Encoder(cambio.load_ruleset("practice"), 9)


# a user's own tables: the club example and every newer axis at once (a closing
# phase, several snaps per discard, penalty cards in the grid, swaps between others)
OWN_TABLES = {
    "club_table.toml": cambio.load_ruleset(ROOT / "examples" / "club_table.toml"),
    **{f"every-new-{k}": v for k, v in EVERY_NEW.items()},
}


@pytest.mark.parametrize("name", PROFILES + sorted(OWN_TABLES))
def test_exchanging_unseen_cards_never_changes_the_encoding(name: str) -> None:
    rules = OWN_TABLES[name] if name in OWN_TABLES else cambio.load_ruleset(name)
    exchanged = 0
    for seed in range(60):
        if exchanged == 6:
            break
        rng = random.Random(seed)
        players = rng.choice(seat_counts(rules))
        viewer = rng.randrange(players)
        enc = Encoder(rules, players)
        a = Round(rules, players, seed=seed)
        actions, snapped, drawn, moved = play_a(a, rng, rng.randrange(80), rng.randrange(20))
        seen = seen_cards(a, viewer)
        unseen = [c for c in range(len(a.deck)) if a.deck[c] not in seen and c not in snapped]
        handled = [c for c in drawn + moved if c in set(unseen)]
        if not unseen:
            continue
        i = rng.choice(handled or unseen)
        others = [c for c in unseen if a.deck[c] != a.deck[i]]
        if not others:
            continue
        j = rng.choice(others)
        deck = list(a.deck)
        deck[i], deck[j] = deck[j], deck[i]
        a = Round(rules, players, seed=seed)
        b = Round(rules, players, seed=seed, deck=deck, dealer=a.dealer, starter=a.starter)
        for step, action in enumerate([*actions, None]):
            xa = enc.encode(a.view(viewer), a.legal_action_ids(viewer))
            xb = enc.encode(b.view(viewer), b.legal_action_ids(viewer))
            assert np.array_equal(xa, xb), f"{name} seed {seed}: P{viewer} differs at {step}"
            if action is None or not b.can_apply(action):
                break
            a.apply(action)
            b.apply(action)
        exchanged += 1
    assert exchanged, f"{name}: no example had two unseen cards to exchange"


def test_import_cambio_stays_light() -> None:
    code = (
        "import sys, cambio, cambio.bots, cambio.cli\n"
        "heavy = {'numpy', 'pettingzoo', 'gymnasium', 'pyspiel'} & set(sys.modules)\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_an_encoder_that_remembers_histories_encodes_as_a_fresh_one() -> None:
    """The encoder feeds its who-saw-what fold only new events; views of copies that
    went different ways, of other seats and of a new round must not be confused."""
    rules = cambio.load_ruleset("snap")
    kept = Encoder(rules, 3)
    rng = random.Random(7)
    rounds = [Round(rules, 3, seed=s) for s in range(2)]
    for step in range(150):
        r = rng.choice(rounds)
        if r.is_over:
            rounds.remove(r)
            if not rounds:
                break
            continue
        if step % 25 == 0:
            rounds.append(r.copy())  # a copy shares the history so far, then diverges
        viewer = rng.randrange(3)
        view, legal = r.view(viewer), r.legal_action_ids(viewer)
        fresh = Encoder(rules, 3).encode(view, legal)
        assert np.array_equal(kept.encode(view, legal), fresh), f"step {step}"
        who = r.to_act if r.to_act is not None else r.reactors[0]
        r.apply(rng.choice(r.legal_action_ids(who)))


@pytest.mark.parametrize("name", PROFILES)
def test_the_incremental_encoding_equals_the_full_one_bit_for_bit(name: str) -> None:
    """``encode`` updates each viewer's last vector from what changed; ``encode_full``
    computes every block from the view alone. They agree, byte for byte, at every
    decision of rounds played with random actions (reaction turns included), for every
    seat (each encoder sees every seat's views in turn, as the PettingZoo env asks), at
    the fewest and the most seats."""
    rules = cambio.load_ruleset(name)
    for players in sorted({rules.players.min, rules.players.max}):
        enc = Encoder(rules, players)
        out = np.empty(enc.size, dtype=np.float32)
        compared = 0
        for seed in range(4):
            r = Round(rules, players, seed=seed)
            turns = Turns(r, shuffle_seed=seed)
            rng = random.Random(seed)
            while True:
                for p in range(players):
                    view, legal = r.view(p), r.legal_action_ids(p)
                    full = enc.encode_full(view, legal)
                    assert enc.encode(view, legal).tobytes() == full.tobytes()
                    enc.encode_into(view, legal, out)
                    assert out.tobytes() == full.tobytes()
                    compared += 1
                if turns.actor is None or compared > 2000:
                    break
                turns.step(rng.choice(turns.legal()))
        assert compared > 40
