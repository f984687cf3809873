"""How fast ``cambio.analyse`` works: drawn rounds and playouts per second.

``--rounds`` rounds of ``--variant`` with ``--players`` seats are played by memory bots
(round ``g`` dealt with seed ``--seed + g``); the view of the player to act at every
``--every``-th decision is analysed with ``--samples`` drawn rounds (``seed=g``). The
figures are process time: per analysis (median and total), drawn rounds per second
(each one played out once per candidate), playouts per second, and the mean number of
candidates. ``review`` times ``cambio.review`` of seat 0 in the first round (its
decisions with more than one choice, ``--samples`` each).

Run ``python benchmarks/bench_analysis.py --help``; ``--json`` prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import cambio
from cambio.bots import MemoryBot, play_round


def _positions(variant: str, players: int, rounds: int, seed: int, every: int) -> list:
    """(round copy, seat) at every ``every``-th decision of memory-bot rounds."""
    found = []
    for g in range(rounds):
        rnd = cambio.Round(variant, players=players, seed=seed + g)
        count = [0]

        def observe(
            action: object, events: object, rnd: cambio.Round = rnd, count: list[int] = count
        ) -> None:
            count[0] += 1
            if count[0] % every == 0 and rnd.to_act is not None:
                found.append((rnd.copy(), rnd.to_act))

        play_round(rnd, [MemoryBot() for _ in range(players)], seed=seed + g, observer=observe)
    return found


def measure(
    variant: str, players: int, rounds: int, seed: int, every: int, samples: int
) -> dict[str, object]:
    positions = _positions(variant, players, rounds, seed, every)
    times: list[float] = []
    candidates: list[int] = []
    for k, (rnd, seat) in enumerate(positions):
        start = time.process_time()
        result = cambio.analyse_round(rnd, seat, samples=samples, seed=k)
        times.append(time.process_time() - start)
        candidates.append(len(result.estimates))
    total = sum(times)
    drawn = samples * len(times)
    playouts = samples * sum(candidates)
    first = cambio.Round(variant, players=players, seed=seed)
    play_round(first, [MemoryBot() for _ in range(players)], seed=seed)
    start = time.process_time()
    report = cambio.review(first, 0, samples=samples, seed=1)
    review_seconds = time.process_time() - start
    return {
        "variant": variant,
        "players": players,
        "samples": samples,
        "analyses": len(times),
        "candidates_mean": statistics.fmean(candidates) if candidates else 0.0,
        "ms_per_analysis_median": 1000 * statistics.median(times) if times else 0.0,
        "seconds_total": total,
        "drawn_rounds_per_second": drawn / total if total else 0.0,
        "playouts_per_second": playouts / total if total else 0.0,
        "review": {
            "decisions": len(report.decisions),
            "seconds": review_seconds,
            "actions_in_round": len(first.actions),
        },
        "compiled": cambio.compiled,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="practice", help="the table (default practice)")
    parser.add_argument("--players", type=int, default=2, help="seats (default 2)")
    parser.add_argument("--rounds", type=int, default=4, help="rounds to take views from")
    parser.add_argument("--every", type=int, default=3, help="analyse every N-th decision")
    parser.add_argument("--samples", type=int, default=64, help="drawn rounds per analysis")
    parser.add_argument("--seed", type=int, default=1, help="the first round's seed")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    out = measure(args.variant, args.players, args.rounds, args.seed, args.every, args.samples)
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    print(
        f"{out['variant']}, {out['players']} players, {out['samples']} drawn rounds per "
        f"analysis ({'compiled' if out['compiled'] else 'pure Python'}):"
    )
    print(
        f"  {out['analyses']} analyses, {out['candidates_mean']:.1f} candidates on average, "
        f"median {out['ms_per_analysis_median']:.0f} ms each"
    )
    print(
        f"  {out['drawn_rounds_per_second']:.0f} drawn rounds and "
        f"{out['playouts_per_second']:.0f} playouts per CPU second"
    )
    review = out["review"]
    assert isinstance(review, dict)
    print(
        f"  review of seat 0 in round 1: {review['decisions']} decisions of "
        f"{review['actions_in_round']} actions in {review['seconds']:.1f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
