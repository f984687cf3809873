"""Golden transcripts: one seeded round per bundled profile, written as plain text.

Each transcript is a regression file in the spirit of python-chess's perft files: a
fixed deal (the profile's default player count, a fixed seed), a deterministic chooser
(``random.Random`` seeded by the profile name) picking among the legal actions, and the
full event log of the round, one event per line with the players who saw its cards,
then the result. ``tests/test_golden.py`` rebuilds every transcript and compares it
with the file; a change of behaviour shows up as a diff a reviewer can read.

The chooser calls Cambio only after a number of turns that depends on the profile, so
some rounds end by a call, the practice round (no recycling) by the exhausted stock, and
a few rounds on recycling tables only after the discard pile has been recycled. Players
snap now and then (often wrongly), so penalty cards, gives and forfeits appear too.

To rewrite the files deliberately after an intended change of behaviour::

    python tests/golden/regenerate.py            # every profile
    python tests/golden/regenerate.py snap penalty

and review ``git diff tests/golden`` before committing.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import cambio
from cambio import ActionKind, Round
from cambio.events import Event
from cambio.scoring import RoundResult

GOLDEN_DIR = Path(__file__).resolve().parent

SEED = 20240601
"""The deal of every golden round."""

NEVER = 10**9

CALL_AFTER: dict[str, int] = {
    "practice": NEVER,  # no recycling: the stock runs out
    "snap": 70,  # long rounds: the discard pile is recycled before the call
    "snap-refill": 70,  # and refilled under the stock's last card
    "draw-power": 60,
    "penalty": 50,
}
"""Turns before the chooser calls (when it may); the others call after DEFAULT_CALL_AFTER."""

DEFAULT_CALL_AFTER = 9

SNAP_RATE = 0.12
"""How often the chooser lets a reactor snap (a random card of the offered ones)."""

DRAW_RATE = 0.6
"""How often the chooser draws from the stock outright when it may (else any action)."""

MAX_DECISIONS = 5000


def _seen(event: Event) -> str:
    if not event.cards:
        return ""
    if event.seen_by is None:
        return "  {all}"
    return "  {" + ",".join(f"P{p}" for p in sorted(event.seen_by)) + "}"


def _result_lines(result: RoundResult) -> list[str]:
    lines = [
        f"result: {result.reason}; caller "
        + ("-" if result.caller is None else f"P{result.caller}")
        + f"; caller lowest {result.caller_lowest}"
        + f"; combination {'-' if result.combination is None else f'P{result.combination}'}",
    ]
    for p, hand in enumerate(result.hands):
        cards = " ".join(f"{h.position}:{h.card}={h.value}" for h in hand) or "(empty)"
        lines.append(f"  P{p}: {cards} | total {result.totals[p]} | score {result.scores[p]}")
    if result.team_totals:
        lines.append("  team totals: " + " ".join(str(t) for t in result.team_totals))
    lines.append("  winners: " + " ".join(f"P{p}" for p in result.winners))
    return lines


def choose(r: Round, rng: random.Random, call_after: int) -> int:
    """The next action id: a rare snap by a reactor, else a random decision of ``to_act``."""
    decode = r.space.decode
    reactors = r.reactors
    if reactors and rng.random() < SNAP_RATE:
        p = reactors[rng.randrange(len(reactors))]
        snaps = [a for a in r.legal_action_ids(p) if decode(a).kind is ActionKind.SNAP]
        return snaps[rng.randrange(len(snaps))]
    who = r.to_act
    assert who is not None
    ids = [a for a in r.legal_action_ids(who) if decode(a).kind is not ActionKind.SNAP]
    calls = [a for a in ids if decode(a).kind is ActionKind.CALL]
    if calls and r.turns_taken >= call_after:
        return calls[0]
    ids = [a for a in ids if decode(a).kind is not ActionKind.CALL] or ids
    draws = [a for a in ids if decode(a).kind is ActionKind.DRAW]
    if draws and rng.random() < DRAW_RATE:
        return draws[0]
    return ids[rng.randrange(len(ids))]


def play(name: str) -> Round:
    """The golden round of profile ``name``."""
    rules = cambio.load_ruleset(name)
    r = Round(rules, seed=SEED)
    rng = random.Random(f"golden:{name}")
    call_after = CALL_AFTER.get(name, DEFAULT_CALL_AFTER)
    for _ in range(MAX_DECISIONS):
        if r.is_over:
            break
        r.apply(choose(r, rng, call_after))
    assert r.is_over, f"the golden round of {name} did not end"
    return r


def transcript(name: str) -> str:
    """The text of the golden transcript of profile ``name``."""
    r = play(name)
    lines = [
        f"# golden transcript: profile {name}, {r.players} players, seed {SEED}",
        f"# dealer P{r.dealer}, starter P{r.starter}; regenerate with tests/golden/regenerate.py",
        "deck: " + " ".join(str(c) for c in r.deck),
    ]
    lines.extend(f"{event}{_seen(event)}" for event in r.events)
    assert r.result is not None
    lines.extend(_result_lines(r.result))
    lines.append(f"decisions: {len(r.actions)}; turns: {r.turns_taken}")
    return "\n".join(lines) + "\n"


def path_of(name: str) -> Path:
    return GOLDEN_DIR / f"{name}.txt"


def main(argv: list[str]) -> int:
    names = argv or cambio.available_variants()
    unknown = sorted(set(names) - set(cambio.available_variants()))
    if unknown:
        print(f"unknown profiles: {', '.join(unknown)}", file=sys.stderr)
        return 2
    for name in names:
        text = transcript(name)
        path = path_of(name)
        old = path.read_text(encoding="utf-8") if path.exists() else None
        path.write_text(text, encoding="utf-8")
        state = "unchanged" if old == text else ("written" if old is None else "CHANGED")
        print(f"{state:9} {path.name} ({text.count(chr(10))} lines)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
