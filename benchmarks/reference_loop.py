"""A hard-coded Python loop of one random practice round: the yardstick for the engine.

This plays the practice table (see ``/work/shared/RULES.md``) with plain lists and ints
and no import from :mod:`cambio`: 3 players, one 52-card deck, 2x2 grids, an opening
peek of positions 3 and 4; each turn draws from the stock or takes the top discard, then
replaces a grid card or (a stock draw only) discards it; discarding a fresh stock draw
fires the practice powers (7/8 peek own, 9/10 peek another's, J/Q blind swap own with
another's, black K peek any card then an optional own/other swap; every power may be
skipped). Nobody calls Cambio; the round ends when the stock runs out (no recycling).

The real work is kept: at every decision the legal options are enumerated (calling
included, then set aside, as a driver that never calls does with the engine), one is
chosen uniformly at random, it is applied, an event is logged with the players who saw
its cards, and every player's knowledge is kept up to date (one bit mask per card: who
knows it; a swap moves cards, so knowledge moves with them). The end reveals the grids,
totals them and names the winners.

Card ids follow the engine's unshuffled deck order (rank by rank, suits S H D C), the
deal is ``random.Random(seed).shuffle`` of that order, the choices come from
``random.Random(choice_seed(seed))`` and options are listed in the engine's action-id
order. So, for the same seed, this loop and ``bench_engine.py`` play the *same* game
(``tests/test_benchmarks.py`` checks it): the two figures measure one workload.

Run ``python benchmarks/reference_loop.py --help``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time

__all__ = ["choice_seed", "play_round", "run"]

# --- the practice deck -------------------------------------------------------------
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")
NAMES = [r + s for r in RANKS for s in SUITS]  # card id -> text, engine deck order

NO_POWER, PEEK_OWN, PEEK_OTHER, BLIND_SWAP, PEEK_THEN_SWAP = range(5)
VALUE: list[int] = []
POWER: list[int] = []
for _r, _rank in enumerate(RANKS):
    for _suit in SUITS:
        black = _suit in ("S", "C")
        if _rank == "K":
            VALUE.append(13 if black else -1)
            POWER.append(PEEK_THEN_SWAP if black else NO_POWER)
        else:
            VALUE.append(_r + 1)
            POWER.append(
                PEEK_OWN
                if _rank in ("7", "8")
                else PEEK_OTHER
                if _rank in ("9", "10")
                else BLIND_SWAP
                if _rank in ("J", "Q")
                else NO_POWER
            )

GRID = 4  # positions per player: (1, 2) over (3, 4)
OPENING = (3, 4)  # positions seen once at the start

# --- options (plain ints, listed in the engine's id order) ---------------------------
DRAW, TAKE, CALL, DISCARD, SKIP = 0, 1, 2, 5, 6
REPLACE = 100  # + position index 0..3
PEEK = 200  # + table slot (owner * GRID + index)
SWAP = 1000  # + a * 100 + b, slots a < b


def choice_seed(seed: int) -> int:
    """The seed of the random choices of round ``seed`` (shared with bench_engine.py)."""
    return seed + 1_000_000_007


def play_round(seed: int, players: int = 3, log: list | None = None) -> tuple[int, tuple[int, ...]]:
    """Play one random practice round; return (decisions, final totals).

    ``log`` receives the event log (tuples ``(kind, player, positions, cards, seen_by)``
    with ``seen_by`` a bit mask of players); a fresh list is used when not given.
    """
    n = players
    everyone = (1 << n) - 1
    deck = list(range(len(NAMES)))
    random.Random(seed).shuffle(deck)
    choice = random.Random(choice_seed(seed)).choice
    if log is None:
        log = []
    emit = log.append

    # deal: grids, one card face up on the discard pile, the rest is the stock
    slots = [deck[p * GRID : (p + 1) * GRID] for p in range(n)]
    first = deck[n * GRID]
    discard = [first]
    stock = deck[n * GRID + 1 :]
    stock.reverse()  # the top of the stock is the end of the list
    known = [0] * len(deck)  # card id -> bit mask of the players who know it
    known[first] = everyone
    emit(("deal", -1, (), (first,), everyone))
    for p in range(n):
        row = slots[p]
        bit = 1 << p
        cards = []
        for pos in OPENING:
            c = row[pos - 1]
            known[c] |= bit
            cards.append(c)
        emit(("opening-peek", p, tuple((p, pos) for pos in OPENING), tuple(cards), bit))

    decisions = 0
    p = 0  # the player on the dealer's (the last seat's) left starts
    while True:
        emit(("turn", p, (), (), everyone))
        row = slots[p]
        bit = 1 << p

        # --- start of the turn: draw, take the discard, or call
        options = []
        if stock:
            options.append(DRAW)
        if discard:
            options.append(TAKE)
        options.append(CALL)  # legal (nobody has called), but this driver never calls
        if len(options) > 1:
            options.remove(CALL)
        action = choice(options)
        decisions += 1

        fresh = action == DRAW
        if fresh:
            held = stock.pop()
            known[held] = bit
            emit(("draw", p, (), (held,), bit))
        elif action == TAKE:
            held = discard.pop()
            known[held] = everyone
            emit(("take", p, (), (held,), everyone))
        else:
            raise AssertionError("this driver never calls")

        # --- place the card, or discard a stock draw
        options = [DISCARD] if fresh else []
        for i in range(GRID):
            if row[i] >= 0:
                options.append(REPLACE + i)
        action = choice(options)
        decisions += 1

        if action == DISCARD:
            discard.append(held)
            known[held] = everyone
            emit(("discard", p, (), (held,), everyone))
            power = POWER[held]
            if power:
                emit(("power", p, (), (held,), everyone))
                # --- a peek step (every power but the blind swap starts with one)
                if power != BLIND_SWAP:
                    options = [SKIP]
                    for owner in range(n):
                        if owner == p:
                            if power == PEEK_OTHER:
                                continue
                        elif power == PEEK_OWN:
                            continue
                        for i, c in enumerate(slots[owner]):
                            if c >= 0:
                                options.append(PEEK + owner * GRID + i)
                    action = choice(options)
                    decisions += 1
                    if action == SKIP:
                        emit(("skip", p, (), (), everyone))
                        power = NO_POWER
                    else:
                        owner, i = divmod(action - PEEK, GRID)
                        c = slots[owner][i]
                        known[c] |= bit
                        emit(("peek", p, ((owner, i + 1),), (c,), bit))
                # --- a swap step: one own card with another player's, blind
                if power in (BLIND_SWAP, PEEK_THEN_SWAP):
                    options = [SKIP]
                    table = [
                        owner * GRID + i
                        for owner in range(n)
                        for i, c in enumerate(slots[owner])
                        if c >= 0
                    ]
                    for k, a in enumerate(table):
                        mine = a // GRID == p
                        for b in table[k + 1 :]:
                            if (b // GRID == p) != mine:
                                options.append(SWAP + a * 100 + b)
                    action = choice(options)
                    decisions += 1
                    if action == SKIP:
                        emit(("skip", p, (), (), everyone))
                    else:
                        a, b = divmod(action - SWAP, 100)
                        oa, ia = divmod(a, GRID)
                        ob, ib = divmod(b, GRID)
                        ra, rb = slots[oa], slots[ob]
                        ra[ia], rb[ib] = rb[ib], ra[ia]  # knowledge follows the card ids
                        emit(("swap", p, ((oa, ia + 1), (ob, ib + 1)), (), everyone))
        else:
            i = action - REPLACE
            old = row[i]
            row[i] = held
            discard.append(old)
            known[old] = everyone
            emit(("replace", p, ((p, i + 1),), (old,), everyone))

        # --- end of the turn: an empty stock ends the round (no recycling)
        if not stock:
            break
        p = (p + 1) % n

    totals = []
    for row in slots:
        total = 0
        for c in row:
            if c >= 0:
                known[c] = everyone
                total += VALUE[c]
        totals.append(total)
    low = min(totals)
    winners = tuple(q for q in range(n) if totals[q] == low)
    emit(("end", -1, (), (), everyone, "stock", winners))
    return decisions, tuple(totals)


def run(rounds: int = 2000, seed: int = 0, players: int = 3) -> dict[str, float]:
    """Play ``rounds`` rounds with seeds ``seed, seed + 1, ...``; the figures as a dict."""
    decisions = 0
    cpu = time.process_time()
    start = time.perf_counter()
    for s in range(seed, seed + rounds):
        decisions += play_round(s, players)[0]
    seconds = time.perf_counter() - start
    cpu = time.process_time() - cpu
    return {
        "rounds": rounds,
        "decisions": decisions,
        "seconds": seconds,
        "decisions_per_second": decisions / seconds,
        "rounds_per_second": rounds / seconds,
        "decisions_per_round": decisions / rounds,
        "cpu_seconds": cpu,
        "decisions_per_cpu_second": decisions / max(cpu, 1e-9),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2000, help="rounds per repetition")
    parser.add_argument("--repeat", type=int, default=3, help="repetitions; the best is kept")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first round")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    best = max(
        (run(args.rounds, args.seed, args.players) for _ in range(max(1, args.repeat))),
        key=lambda r: r["decisions_per_second"],
    )
    if args.json:
        print(json.dumps({"benchmark": "reference_loop", **best}))
    else:
        print(
            f"reference loop: {best['decisions_per_second']:,.0f} decisions/s "
            f"({best['decisions_per_cpu_second']:,.0f} per CPU-second), "
            f"{best['rounds_per_second']:,.0f} rounds/s "
            f"({best['decisions_per_round']:.1f} decisions per round, "
            f"best of {args.repeat} x {args.rounds} rounds)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
