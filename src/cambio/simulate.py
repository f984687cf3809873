"""Play many rounds between bots and report how each seat did.

>>> import cambio
>>> report = cambio.simulate(cambio.RuleSet(), 3, ["memory", "random", "random"], games=20, seed=1)
>>> report.games, len(report.seats)
(20, 3)
>>> round(sum(seat.win_rate for seat in report.seats), 9)
1.0

Every number except the timing fields (``seconds``, ``decisions_per_second``) depends
only on the arguments: game ``k`` is dealt with the seed ``derive_seed(seed, "game", k)``,
the bots are reset with seeds derived from ``(seed, k, seat)``, and the games are merged
in order, so one process, a process pool or a cluster give the same report.

Parallel runs
-------------
``executor`` is any :class:`concurrent.futures.Executor`. The games are cut into chunks
and each chunk is one ``executor.submit(play_chunk, task)``: a top-level function and a
picklable task (the rule set, the bot specs and a range of games). Bot specs given as
factories must then be picklable too (a top-level function, a class, or a
:func:`functools.partial` of one). With the standard library::

    from concurrent.futures import ProcessPoolExecutor
    with ProcessPoolExecutor(max_workers=4) as pool:
        report = cambio.simulate("practice", 3, ["memory", "random", "random"],
                                 games=10_000, seed=1, executor=pool)

A Dask cluster offers the same interface (``distributed`` is not a dependency of this
package; this is the pattern, not tested here)::

    from dask.distributed import Client
    client = Client("tcp://scheduler:8786")
    report = cambio.simulate("practice", 3, ["memory", "random", "random"],
                             games=100_000, seed=1, executor=client.get_executor())

Ray has no ready-made ``Executor``; a few lines adapt its tasks, since
``ObjectRef.future()`` gives a :class:`concurrent.futures.Future` (again a sketch, not
a tested integration)::

    import concurrent.futures, ray

    class RayExecutor(concurrent.futures.Executor):
        def submit(self, fn, /, *args, **kwargs):
            return ray.remote(fn).remote(*args, **kwargs).future()

    report = cambio.simulate(..., executor=RayExecutor())
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, Future, as_completed
from typing import Any, SupportsIndex

import attrs

from .arguments import Arg, flag, number, optional_whole, whole
from .bots import BOT_NAMES, BotSpec, derive_seed, make_bot, play_round
from .events import EventKind
from .loading import as_ruleset
from .round import Round
from .rules import RuleSet

__all__ = [
    "GameRecord",
    "SeatStats",
    "SimulationReport",
    "add_arguments",
    "play_chunk",
    "run_command",
    "simulate",
    "wilson_interval",
]


@attrs.frozen
class GameRecord:
    """One simulated round, as the merge needs it (seat numbers, not bot numbers)."""

    game: int
    reason: str
    caller: int | None
    winners: tuple[int, ...]
    scores: tuple[int, ...]
    totals: tuple[int, ...]
    turns: int
    decisions: int
    call_turn: int | None = None
    """The caller's own turn in which it called (1: its first turn); ``None`` without
    a chosen call (no call, or a call forced by an empty grid)."""


@attrs.frozen
class ChunkTask:
    """A picklable batch of games for one worker: games ``start`` to ``stop - 1``."""

    rules: RuleSet
    players: int
    bots: tuple[BotSpec, ...]
    seed: int
    start: int
    stop: int
    rotate: bool


def _seat_of(bot: int, game: int, players: int, rotate: bool) -> int:
    return (bot + game) % players if rotate else bot


def play_chunk(task: Arg[ChunkTask]) -> list[GameRecord]:
    """Play one chunk of a simulation (a top-level function, so executors can pickle it)."""
    if not isinstance(task, ChunkTask):
        raise TypeError(f"task must be a ChunkTask, got {task!r}")
    bots = [make_bot(spec) for spec in task.bots]
    n = task.players
    records = []
    for k in range(task.start, task.stop):
        seated = [bots[0]] * n
        for i, bot in enumerate(bots):
            seated[_seat_of(i, k, n, task.rotate)] = bot
        records.append(_play_game(task, k, seated))
    return records


def _play_game(task: ChunkTask, k: int, seated: Sequence[Any]) -> GameRecord:
    rnd = Round(task.rules, task.players, seed=derive_seed(task.seed, "game", k))
    played = play_round(rnd, seated, seed=derive_seed(task.seed, "game", k, "seat"))
    # the turn of the round's first call, read from its log once it is over (the log
    # holds the deal's events and every action's, in order)
    call_turn: int | None = None
    started = [0] * task.players  # turns each seat has begun (TURN events)
    turn, call = EventKind.TURN, EventKind.CALL
    for event in rnd.events:
        kind = event.kind
        if kind == turn and 0 <= event.player < len(started):
            started[event.player] += 1
        elif kind == call and event.note != "empty grid":
            call_turn = started[event.player] if 0 <= event.player < len(started) else 0
            break
    result = played.result
    return GameRecord(
        game=k,
        reason=result.reason,
        caller=result.caller,
        winners=result.winners,
        scores=result.scores,
        totals=result.totals,
        turns=played.turns,
        decisions=played.decisions,
        call_turn=call_turn,
    )


@attrs.frozen
class SeatStats:
    """How one bot did: ``seat`` is its seat (its starting seat with rotation).

    ``wins`` counts a round won alone as 1 and a win shared by ``k`` players as ``1/k``,
    so the win rates of all seats add up to 1. ``outright`` counts rounds won alone.
    """

    seat: int
    """The bot's seat (its starting seat with rotation)."""
    bot: str
    """The bot's name (its spec's name, or its factory's)."""
    wins: float
    """Rounds won, a win shared by ``k`` players counting ``1/k``."""
    outright: int
    """Rounds won alone."""
    win_rate: float
    """``wins`` per round played."""
    mean_score: float
    """The mean round score."""
    mean_total: float
    """The mean card total of the final hand."""
    calls: int
    """How many times the bot called Cambio."""
    calls_won: int
    """How many of its calls ended with the bot among the winners."""
    win_rate_ci95: tuple[float, float] = (0.0, 1.0)
    """A 95% confidence interval for ``win_rate``: the Wilson score interval over the
    rounds played (see :func:`wilson_interval`)."""
    turn_one_calls: int = 0
    """How many of its calls it made in its first turn of the round."""


@attrs.frozen
class SimulationReport:
    """The outcome of :func:`simulate`.

    ``endings`` counts rounds per :attr:`RoundResult.reason <cambio.RoundResult.reason>`;
    ``caller_success_rate`` is the share of rounds with a caller in which the caller
    was among the winners (``None`` when nobody called). ``mean_turns`` and
    ``mean_decisions`` are per round; a decision is one applied action.
    """

    variant: str
    """The table's name."""
    players: int
    """Seats per round."""
    seed: int
    """The seed every round derives from (the same seed gives the same report)."""
    games: int
    """Rounds played."""
    rotate: bool
    """Whether the bots changed seats from round to round."""
    seats: tuple[SeatStats, ...]
    """How each bot did: ``seats[i]`` is bot ``i``."""
    endings: dict[str, int]
    """Rounds per ending reason (``call``, ``stock``, ``empty-grid``, ``turn-cap``)."""
    mean_turns: float
    """Completed turns per round."""
    mean_decisions: float
    """Applied actions per round."""
    caller_success_rate: float | None
    """The share of rounds with a caller in which the caller was among the winners
    (``None`` when nobody called)."""
    turn_one_calls: int
    """Rounds in which the caller called in its first turn (a call forced by an empty
    grid is not counted)."""
    decisions: int
    """Actions applied in all."""
    seconds: float
    """Wall-clock time the simulation took."""
    decisions_per_second: float
    """``decisions`` per second of ``seconds``."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary (what ``cambio simulate --json`` prints)."""
        return {
            "variant": self.variant,
            "players": self.players,
            "seed": self.seed,
            "games": self.games,
            "rotate": self.rotate,
            "seats": [attrs.asdict(s) for s in self.seats],
            "endings": dict(self.endings),
            "mean_turns": self.mean_turns,
            "mean_decisions": self.mean_decisions,
            "caller_success_rate": self.caller_success_rate,
            "turn_one_calls": self.turn_one_calls,
            "ci_method": "wilson",
            "decisions": self.decisions,
            "seconds": self.seconds,
            "decisions_per_second": self.decisions_per_second,
        }


def wilson_interval(
    wins: Arg[float], games: SupportsIndex, z: Arg[float] = 1.959963984540054
) -> tuple[float, float]:
    """The Wilson score interval (95% by default) for a win rate of ``wins / games``.

    A win shared by ``k`` players counts ``1/k``: a round's share then varies no more
    than a win or a loss would at the same rate, so the binomial interval is, if
    anything, a little wide. Unlike the normal approximation it stays inside [0, 1]
    and is not empty at a rate of 0 or 1.

    >>> low, high = wilson_interval(60, 100)
    >>> round(low, 3), round(high, 3)
    (0.502, 0.691)
    >>> wilson_interval(0, 10)[0], wilson_interval(0, 0)
    (0.0, (0.0, 1.0))
    """
    wins, games, z = number("wins", wins), whole("games", games), number("z", z)
    if games <= 0:
        return (0.0, 1.0)
    p = min(1.0, max(0.0, wins / games))
    z2 = z * z
    centre = (p + z2 / (2 * games)) / (1 + z2 / games)
    half = z / (1 + z2 / games) * math.sqrt(p * (1 - p) / games + z2 / (4 * games * games))
    return (max(0.0, centre - half), min(1.0, centre + half))


def _spec_name(spec: BotSpec) -> str:
    """A short name for a bot spec: the name itself, or the factory's (or its function's)."""
    if isinstance(spec, str):
        return spec.strip().lower()
    target = getattr(spec, "func", spec)  # functools.partial
    name = getattr(target, "__name__", None) or type(target).__name__
    return "custom" if name == "<lambda>" else str(name)


def simulate(
    rules: RuleSet | str,
    players: SupportsIndex,
    bots: Sequence[BotSpec],
    games: SupportsIndex,
    seed: SupportsIndex,
    executor: Executor | None = None,
    *,
    rotate: Arg[bool] = False,
    chunk_size: SupportsIndex | None = None,
    progress: Callable[[int], None] | None = None,
) -> SimulationReport:
    """Play ``games`` rounds of ``rules`` between ``bots`` and report per-seat statistics.

    ``rules`` is a :class:`RuleSet` or a profile name. ``bots`` has one spec per seat: a
    name from :data:`cambio.bots.BOT_NAMES` (``"memory"``, ``"random"``,
    ``"random-nocall"``, ...) or a function returning a fresh bot. Bot ``i`` sits at
    seat ``i`` in every game; with ``rotate`` it sits at seat ``(i + k) % players`` in
    game ``k`` (so every bot starts equally often) and ``seats[i]`` still reports bot
    ``i``.

    ``executor`` (any :class:`concurrent.futures.Executor`) plays chunks of
    ``chunk_size`` games in parallel; results are merged in game order, so the report
    is the same with or without it (timing aside). ``progress``, if given, is called
    with the number of games just finished.
    """
    rules = as_ruleset(rules)
    games = whole("games", games)
    if games < 1:
        raise ValueError(f"games must be a whole number of 1 or more, got {games!r}")
    seed = whole("seed", seed)
    players = whole("players", players)
    rotate = flag("rotate", rotate)
    chunk_size = optional_whole("chunk_size", chunk_size)
    if chunk_size is not None and chunk_size < 1:
        raise ValueError(f"chunk_size must be 1 or more, got {chunk_size!r}")
    lo, hi = rules.players.min, rules.players.max
    if not lo <= players <= hi:
        raise ValueError(f"the {rules.name} table seats {lo} to {hi} players, not {players!r}")
    size = rules.teams.size
    if size > 1 and players % size:
        raise ValueError(f"teams of {size} need a multiple of that many players, not {players}")
    specs = tuple(bots)
    if len(specs) != players:
        raise ValueError(f"{players} players need {players} bots, got {len(specs)}")
    for spec in specs:
        if isinstance(spec, str) and spec.strip().lower() not in BOT_NAMES:
            make_bot(spec)  # raises the unknown-bot error
        elif not isinstance(spec, str) and not callable(spec):
            raise TypeError(f"a bot spec is a name or a factory, got {spec!r}")

    started = time.perf_counter()
    if chunk_size is None:
        chunk_size = max(1, min(250, -(-games // 32)))
    tasks = [
        ChunkTask(rules, players, specs, seed, start, min(games, start + chunk_size), rotate)
        for start in range(0, games, chunk_size)
    ]
    records: list[GameRecord] = []
    if executor is None:
        for task in tasks:
            chunk = _play_chunk_with_progress(task, progress)
            records.extend(chunk)
    else:
        futures: list[Future[list[GameRecord]]] = [executor.submit(play_chunk, t) for t in tasks]
        if progress is not None:
            sizes = {id(f): t.stop - t.start for f, t in zip(futures, tasks, strict=True)}
            for future in as_completed(futures):
                future.result()
                progress(sizes[id(future)])
        for future in futures:
            records.extend(future.result())
    seconds = time.perf_counter() - started
    return _report(rules, players, specs, seed, rotate, records, seconds)


def _play_chunk_with_progress(
    task: ChunkTask, progress: Callable[[int], None] | None
) -> list[GameRecord]:
    """:func:`play_chunk` in this process, reporting each finished game to ``progress``."""
    if progress is None:
        return play_chunk(task)
    out = []
    for k in range(task.start, task.stop):
        out.extend(play_chunk(attrs.evolve(task, start=k, stop=k + 1)))
        progress(1)
    return out


def _report(
    rules: RuleSet,
    players: int,
    specs: Sequence[BotSpec],
    seed: int,
    rotate: bool,
    records: Sequence[GameRecord],
    seconds: float,
) -> SimulationReport:
    games = len(records)
    wins = [0.0] * players
    outright = [0] * players
    scores = [0] * players
    totals = [0] * players
    calls = [0] * players
    calls_won = [0] * players
    endings: Counter[str] = Counter()
    first_calls = [0] * players
    turns = decisions = with_caller = caller_won = 0
    for rec in records:
        endings[rec.reason] += 1
        turns += rec.turns
        decisions += rec.decisions
        share = 1.0 / len(rec.winners) if rec.winners else 0.0
        for bot in range(players):
            seat = _seat_of(bot, rec.game, players, rotate)
            if seat in rec.winners:
                wins[bot] += share
                if len(rec.winners) == 1:
                    outright[bot] += 1
            scores[bot] += rec.scores[seat]
            totals[bot] += rec.totals[seat]
            if rec.caller == seat:
                calls[bot] += 1
                if rec.call_turn == 1:
                    first_calls[bot] += 1
                if seat in rec.winners:
                    calls_won[bot] += 1
        if rec.caller is not None:
            with_caller += 1
            caller_won += rec.caller in rec.winners
    seats = tuple(
        SeatStats(
            seat=bot,
            bot=_spec_name(specs[bot]),
            wins=wins[bot],
            outright=outright[bot],
            win_rate=wins[bot] / games,
            mean_score=scores[bot] / games,
            mean_total=totals[bot] / games,
            calls=calls[bot],
            calls_won=calls_won[bot],
            win_rate_ci95=wilson_interval(wins[bot], games),
            turn_one_calls=first_calls[bot],
        )
        for bot in range(players)
    )
    return SimulationReport(
        variant=rules.name,
        players=players,
        seed=seed,
        games=games,
        rotate=rotate,
        seats=seats,
        endings=dict(sorted(endings.items())),
        mean_turns=turns / games,
        mean_decisions=decisions / games,
        caller_success_rate=caller_won / with_caller if with_caller else None,
        turn_one_calls=sum(first_calls),
        decisions=decisions,
        seconds=seconds,
        decisions_per_second=decisions / seconds if seconds > 0 else 0.0,
    )


# ---------------------------------------------------------------------------------------
# The `cambio simulate` command


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``cambio simulate``."""
    parser.add_argument(
        "--variant", default="practice", metavar="V", help="profile name or TOML file"
    )
    parser.add_argument(
        "--players", type=int, default=None, metavar="N", help="seats (default: one per bot)"
    )
    parser.add_argument(
        "--bots",
        default="memory,random,random",
        metavar="B,B,...",
        help=f"one bot per seat, comma-separated: {', '.join(BOT_NAMES)} "
        "(a single name fills every seat)",
    )
    parser.add_argument("--games", type=int, default=1000, metavar="G", help="rounds to play")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="master seed")
    parser.add_argument(
        "--jobs", type=int, default=1, metavar="J", help="worker processes (same numbers)"
    )
    parser.add_argument(
        "--dask",
        default=None,
        metavar="ADDRESS",
        help="play on a Dask cluster: a scheduler address (tcp://host:8786) or 'local' for "
        "a local cluster of --jobs workers (needs the [dask] extra; same numbers as --jobs)",
    )
    parser.add_argument("--rotate", action="store_true", help="rotate the seats every game")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--no-call", action="store_true", help="random bots never call (unless they must)"
    )


def _fail(message: str, status: int = 2) -> int:
    sys.stderr.write(f"cambio simulate: error: {message}\n")
    return status


def run_command(args: argparse.Namespace) -> int:
    """Run ``cambio simulate`` from parsed arguments; return the exit status."""
    from .errors import RuleSetError
    from .loading import load_ruleset

    try:
        rules = load_ruleset(args.variant)
    except (RuleSetError, OSError, ValueError) as error:
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        return _fail(first, 1)
    names = [b.strip().lower() for b in str(args.bots).split(",") if b.strip()]
    if not names:
        return _fail("--bots needs at least one bot name")
    for name in names:
        if name not in BOT_NAMES:
            return _fail(f"unknown bot {name!r} (expected one of: {', '.join(BOT_NAMES)})")
    players = args.players
    if players is None:
        players = len(names) if len(names) > 1 else rules.players.default
    if len(names) == 1:
        names = names * max(1, players)
    lo, hi = rules.players.min, rules.players.max
    if not lo <= players <= hi:
        return _fail(f"the {rules.name} table seats {lo} to {hi} players, not {players}")
    if len(names) != players:
        return _fail(f"--players {players} needs {players} bots, --bots names {len(names)}")
    if rules.teams.size > 1 and players % rules.teams.size:
        return _fail(f"the {rules.name} table plays in teams of {rules.teams.size}")
    if args.games < 1:
        return _fail(f"--games must be 1 or more, got {args.games}")
    if args.jobs < 1:
        return _fail(f"--jobs must be 1 or more, got {args.jobs}")
    if args.no_call:
        names = ["random-nocall" if n == "random" else n for n in names]

    show_progress = not args.json and sys.stdout.isatty()
    try:
        if show_progress:
            report = _with_progress(rules, players, names, args)
        else:
            report = _run(rules, players, names, args, None)
    except ValueError as error:
        return _fail(str(error))
    if args.json:
        sys.stdout.write(json.dumps(report.to_dict(), indent=2) + "\n")
    else:
        _print_report(report)
    return 0


def _run(
    rules: RuleSet,
    players: int,
    names: Sequence[str],
    args: argparse.Namespace,
    progress: Callable[[int], None] | None,
) -> SimulationReport:
    if args.dask is not None:
        with _dask_executor(args.dask, args.jobs) as executor:
            return simulate(
                rules,
                players,
                names,
                args.games,
                args.seed,
                executor,
                rotate=args.rotate,
                progress=progress,
            )
    if args.jobs > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            return simulate(
                rules,
                players,
                names,
                args.games,
                args.seed,
                pool,
                rotate=args.rotate,
                progress=progress,
            )
    return simulate(
        rules, players, names, args.games, args.seed, rotate=args.rotate, progress=progress
    )


class DaskUnavailableError(ValueError):
    """``--dask`` was given but the cluster cannot be reached or Dask is not installed."""


@contextlib.contextmanager
def _dask_executor(address: str, jobs: int) -> Iterator[Executor]:
    """A :class:`concurrent.futures.Executor` on a Dask cluster (``local``: a new one)."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise DaskUnavailableError("--dask needs Dask: pip install 'cambio-rules[dask]'") from None
    with contextlib.ExitStack() as stack:
        try:
            if address == "local":
                cluster = stack.enter_context(
                    LocalCluster(  # type: ignore[no-untyped-call]
                        n_workers=max(1, jobs),
                        threads_per_worker=1,
                        processes=True,
                        dashboard_address=None,
                    )
                )
                client = stack.enter_context(Client(cluster))  # type: ignore[no-untyped-call]
            else:
                client = stack.enter_context(
                    Client(address, timeout=10)  # type: ignore[no-untyped-call]
                )
        except (OSError, TimeoutError) as error:
            raise DaskUnavailableError(
                f"cannot reach the Dask scheduler at {address}: {error}"
            ) from None
        yield client.get_executor()


def _with_progress(
    rules: RuleSet, players: int, names: Sequence[str], args: argparse.Namespace
) -> SimulationReport:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    columns = (
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, transient=True) as bar:
        task = bar.add_task(f"{rules.name}: playing", total=args.games)

        def advance(done: int) -> None:
            bar.advance(task, done)

        return _run(rules, players, names, args, advance)


def _print_report(report: SimulationReport) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(highlight=False)
    title = (
        f"{report.games} rounds of {report.variant}, {report.players} players, "
        f"seed {report.seed}" + (", seats rotated" if report.rotate else "")
    )
    table = Table(title=title, title_justify="left")
    table.add_column("seat", justify="right")
    table.add_column("bot")
    table.add_column("win rate", justify="right")
    table.add_column("wins", justify="right")
    table.add_column("alone", justify="right")
    table.add_column("mean score", justify="right")
    table.add_column("calls won", justify="right")
    best = max(s.win_rate for s in report.seats)
    for s in report.seats:
        style = "bold" if s.win_rate == best else None
        table.add_row(
            str(s.seat),
            s.bot,
            f"{s.win_rate:.1%}",
            f"{s.wins:.1f}".removesuffix(".0"),
            str(s.outright),
            f"{s.mean_score:.2f}",
            f"{s.calls_won}/{s.calls}",
            style=style,
        )
    console.print(table)
    console.print("Win rate, 95% CI (Wilson score interval over the rounds):")
    for s in report.seats:
        low, high = s.win_rate_ci95
        console.print(f"  seat {s.seat} {s.bot}: {s.win_rate:.1%} ({low:.1%} to {high:.1%})")
    endings = ", ".join(f"{reason} {count}" for reason, count in report.endings.items())
    console.print(f"Rounds ended by: {endings}")
    rate = report.caller_success_rate
    console.print(
        "Caller success rate: "
        + ("no calls" if rate is None else f"{rate:.1%} (the caller among the winners)")
    )
    by_seat = ", ".join(f"seat {s.seat}: {s.turn_one_calls}" for s in report.seats)
    console.print(
        f"Turn-one calls (a call in the caller's first turn): {report.turn_one_calls} ({by_seat})"
    )
    console.print(
        f"Per round: {report.mean_turns:.1f} turns, {report.mean_decisions:.1f} decisions"
    )
    console.print(
        f"{report.decisions} decisions in {report.seconds:.2f} s "
        f"({report.decisions_per_second:,.0f} per second)"
    )
    console.print("Wins shared by k players count 1/k each.", style="dim")
