"""The search bot's figures: its win share against memory bots, its time per decision,
and the cost of ``determinize``.

Sections (``--only`` picks some; all run by default):

``duel``
    ``--games`` rounds of ``--variant`` with ``--players`` seats: one ``SearchBot``
    (``--playouts`` per decision) and memory bots in the other seats. Seats rotate:
    in round ``g`` the search bot sits at seat ``g % players``; round ``g`` is dealt with
    seed ``--seed + g`` and the bots are reset with ``derive_seed(--seed, g)``. Reports
    the search bot's win share (a win shared by ``k`` players counts ``1/k``) with a
    95% confidence interval (normal approximation), the fair share ``1/players``, and
    the search bot's mean and 95th-percentile process time per searched decision.
    With ``--baseline`` every deal is played a second time with a memory bot in the
    search bot's seat (with ``--style-baseline``, the search bot's own style, a
    memory bot with its ``style`` knobs, which shows what the search itself adds): the
    baseline's share on the same deals, and the paired difference with its 95%
    interval (the fairest comparison: same cards, same seats). ``--search-players``
    sets :attr:`SearchBotConfig.search_players` (at larger tables the bot searches
    only the phases of ``wide_phases`` and its final turn after another's call).
``determinize``
    Views of the player to act, taken every third decision of ``--views`` practice
    rounds (``--players``, 3 unless given with ``--only determinize``) played by memory
    bots. Microseconds (process time, median over the views) per call of
    ``determinize(view, rules, rng)`` in three ways a caller meets it:

    * ``cold``: the first call in a process that has read nothing of that round (the
      kept readings cleared before each call): the whole history is read;
    * ``incremental``: the views called in the order the round made them, as a bot
      calls it at each of its decisions: the player's history is read on from where
      that player's previous view left it (the views here are every third decision, so
      about ten events are new);
    * ``repeated``: the same view called again (a bot drawing several rounds at one
      decision): no reading, one round drawn;

    and per ``InfoSet.sample`` (one more round from an ``InfoSet`` already built).

Run ``python benchmarks/bench_search.py --help``; ``--json`` prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time

import attrs

import cambio
from cambio.bots import MemoryBot, SearchBot, SearchBotConfig, derive_seed, play_round
from cambio.determinize import _LAST, _READS, InfoSet, determinize


def duel(
    variant: str,
    players: int,
    games: int,
    seed: int,
    playouts: int,
    progress: bool = False,
    baseline: bool = False,
    style_baseline: bool = False,
    search_players: int | None = None,
) -> dict[str, object]:
    rules = cambio.load_ruleset(variant)
    config = SearchBotConfig(playouts=playouts)
    if search_players is not None:
        config = attrs.evolve(config, search_players=search_players)
    shares: list[float] = []
    memory: list[float] = []
    times: list[float] = []
    for g in range(games):
        seat = g % players
        search = SearchBot(config)
        original = search.search

        def timed(*args: object, _orig: object = original, **kwargs: object) -> cambio.Action:
            t0 = time.process_time()
            try:
                return _orig(*args, **kwargs)  # type: ignore[operator,no-any-return]
            finally:
                times.append(time.process_time() - t0)

        search.search = timed  # type: ignore[method-assign]
        bots: list[object] = [MemoryBot() for _ in range(players)]
        bots[seat] = search
        rnd = cambio.Round(rules, players, seed=seed + g)
        played = play_round(rnd, bots, seed=derive_seed(seed, g))  # type: ignore[arg-type]
        winners = played.result.winners
        shares.append(1.0 / len(winners) if seat in winners else 0.0)
        if baseline or style_baseline:  # the same deal, another bot in the search bot's seat
            rnd = cambio.Round(rules, players, seed=seed + g)
            mem = [MemoryBot() for _ in range(players)]
            if style_baseline:
                mem[seat] = MemoryBot(config.style)
            played = play_round(rnd, mem, seed=derive_seed(seed, g))
            winners = played.result.winners
            memory.append(1.0 / len(winners) if seat in winners else 0.0)
        if progress and (g + 1) % 25 == 0:
            ms = 1000 * statistics.fmean(times) if times else 0.0
            print(
                f"{g + 1} rounds: win share {statistics.fmean(shares):.3f}, {ms:.1f} ms",
                file=sys.stderr,
                flush=True,
            )
    mean = statistics.fmean(shares)
    half = 1.96 * statistics.pstdev(shares) / math.sqrt(len(shares)) if len(shares) > 1 else 0.0
    times.sort()
    extra: dict[str, object] = {}
    if memory:
        m = statistics.fmean(memory)
        diffs = [a - b for a, b in zip(shares, memory, strict=True)]
        d = statistics.fmean(diffs)
        dh = 1.96 * statistics.pstdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else 0.0
        extra = {
            "baseline": "style" if style_baseline else "memory",
            "baseline_share_same_deals": round(m, 4),
            "difference": round(d, 4),
            "difference_ci95": [round(d - dh, 4), round(d + dh, 4)],
        }
    return {
        "variant": variant,
        "players": players,
        "games": games,
        "seed": seed,
        "playouts": playouts,
        "win_share": round(mean, 4),
        "ci95": [round(mean - half, 4), round(mean + half, 4)],
        "fair_share": round(1 / players, 4),
        "searched_decisions": len(times),
        "ms_per_decision_mean": round(1000 * statistics.fmean(times), 2) if times else 0.0,
        "ms_per_decision_p95": round(1000 * times[int(0.95 * (len(times) - 1))], 2)
        if times
        else 0.0,
        **extra,
    }


def determinize_cost(rounds: int, players: int = 3) -> dict[str, object]:
    rules = cambio.load_ruleset("practice")
    views = []
    for s in range(rounds):
        rnd = cambio.Round(rules, players, seed=s)
        bots = [MemoryBot() for _ in range(players)]
        for i, b in enumerate(bots):
            b.reset(i, rules, None)
        k = 0
        while not rnd.is_over:
            who = rnd.to_act
            assert who is not None
            view = rnd.view(who)
            if k % 3 == 0:
                views.append(view)
            rnd.apply(bots[who].act(view, rnd.legal_actions(who)))
            k += 1
    clock = time.process_time
    rng = random.Random(1)
    cold, incremental, repeated, one = [], [], [], []
    for view in views:
        _forget()
        t0 = clock()
        determinize(view, rules, rng)
        cold.append(clock() - t0)
    _forget()
    for view in views:  # in the order the rounds made them
        t0 = clock()
        determinize(view, rules, rng)
        incremental.append(clock() - t0)
        t0 = clock()
        for _ in range(10):
            determinize(view, rules, rng)
        repeated.append((clock() - t0) / 10)
        info = InfoSet(view, rules)
        t0 = clock()
        for _ in range(10):
            info.sample(rng)
        one.append((clock() - t0) / 10)

    def us(xs: list[float]) -> float:
        return round(1e6 * statistics.median(xs), 1)

    return {
        "views": len(views),
        "players": players,
        "determinize_us_median_cold": us(cold),
        "determinize_us_median_incremental": us(incremental),
        "determinize_us_median_repeated": us(repeated),
        "sample_us_median": us(one),
    }


def _forget() -> None:
    """Clear what determinize keeps of the views it read (a cold start)."""
    _LAST.clear()
    _READS.clear()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="practice")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--playouts", type=int, default=SearchBotConfig().playouts)
    parser.add_argument("--views", type=int, default=20, help="rounds for the determinize cost")
    parser.add_argument("--only", default="duel,determinize")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--progress", action="store_true", help="running figures on stderr")
    parser.add_argument(
        "--baseline",
        action="store_true",
        help="also play each deal with a memory bot in the search bot's seat (paired)",
    )
    parser.add_argument(
        "--style-baseline",
        action="store_true",
        help="also play each deal with the search bot's style alone in its seat (paired)",
    )
    parser.add_argument(
        "--search-players",
        type=int,
        default=None,
        help="the most players at which the search bot searches (SearchBotConfig)",
    )
    args = parser.parse_args(argv)
    args.players_given = "--players" in (argv if argv is not None else sys.argv[1:])
    out: dict[str, object] = {}
    only = set(args.only.split(","))
    if "duel" in only:
        out["duel"] = duel(
            args.variant,
            args.players,
            args.games,
            args.seed,
            args.playouts,
            args.progress,
            args.baseline,
            args.style_baseline,
            args.search_players,
        )
    if "determinize" in only:
        players = args.players if args.players_given and "duel" not in only else 3
        out["determinize"] = determinize_cost(args.views, players)
    if args.json:
        print(json.dumps(out))
    else:
        for section, figures in out.items():
            print(f"[{section}]")
            for key, value in figures.items():  # type: ignore[attr-defined]
                print(f"  {key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
