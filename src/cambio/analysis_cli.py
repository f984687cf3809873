"""``cambio analyse`` and ``cambio review``: what each move is worth, from the command line.

Both read a file: a saved round (``Round.to_json``, format ``cambio-round/4``), a game
left by ``cambio play`` (``cambio-play/1``: its match is replayed from its actions), or,
for ``cambio analyse``, a written position (one line of text, with ``--variant``).
Importing this module registers the two commands with :mod:`cambio.cli`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .cli import _console, _err, _load, _out, _spec
from .errors import PositionError, SaveError

if TYPE_CHECKING:
    from .analysis import Analysis
    from .round import Round
    from .round_review import Review

__all__ = [
    "Loaded",
    "analyse_arguments",
    "read_game",
    "review_arguments",
    "run_analyse",
    "run_review",
]


class _Refused(Exception):
    """A mistake in the command's input: the message is printed, the status returned."""

    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.status = status


class Loaded:
    """What a file holds: the rounds to look at, each with its seats' match seats."""

    def __init__(self, rounds: list[tuple[Round, tuple[int, ...]]], kind: str) -> None:
        self.rounds = rounds
        """Every round, in order, with the match seat of each of its seats."""
        self.kind = kind
        """``"round"``, ``"game"`` (a save of ``cambio play``) or ``"position"``."""


def read_game(text: str, variant: str | None) -> Loaded:
    """The rounds of a file's text; :class:`SaveError` or :class:`PositionError` at the
    first problem, ``ValueError`` for a position without a table."""
    from .round import Round

    stripped = text.strip()
    if not stripped.startswith("{"):
        if variant is None:
            raise ValueError("a written position needs --variant (the table it is played under)")
        rules = _load(_spec(variant))
        if rules is None:
            raise _Refused("", 1)
        rnd = Round.from_position(rules, stripped)
        return Loaded([(rnd, tuple(range(rnd.players)))], "position")
    try:
        data = json.loads(stripped)
    except json.JSONDecodeError as error:
        raise SaveError("$", f"not JSON ({error.msg} at line {error.lineno})") from None
    if isinstance(data, dict) and data.get("format") == "cambio-play/1":
        return _read_play(data)
    rnd = Round.from_dict(data)
    return Loaded([(rnd, tuple(range(rnd.players)))], "round")


def _read_play(data: dict[str, Any]) -> Loaded:
    """The match of a ``cambio play`` save, replayed from its actions."""
    import tempfile

    from .actions import Action
    from .match import Match
    from .play import load_save

    # load_save checks every field of the save and reads it from a file
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "game.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        settings, _ = load_save(path)
    match = Match(settings.rules, settings.players, seed=settings.seed)
    for k, raw in enumerate(data["actions"]):
        try:
            match.apply(Action.from_dict(raw))
        except (ValueError, TypeError) as error:  # IllegalActionError, a malformed action
            raise SaveError(f"$.actions[{k}]", f"cannot be replayed: {error}") from None
    rounds = list(match.played_rounds)
    seats = [record.players for record in match.records]
    if len(seats) < len(rounds):
        seats.append(match.round_seats)
    return Loaded(list(zip(rounds, seats, strict=True)), "game")


def _read(args: argparse.Namespace, command: str, positions: bool = True) -> Loaded:
    name = args.file
    try:
        text = sys.stdin.read() if name == "-" else Path(name).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise _Refused(f"cambio {command}: {name}: no such file", 1) from None
    except IsADirectoryError:
        raise _Refused(f"cambio {command}: {name}: a folder, not a file", 1) from None
    except UnicodeDecodeError:
        raise _Refused(f"cambio {command}: {name}: not a text file", 2) from None
    except OSError as error:
        raise _Refused(f"cambio {command}: {name}: {error.strerror or error}", 1) from None
    if not positions and not text.strip().startswith("{"):
        raise _Refused(
            f"cambio {command}: {name}: not a saved round or game (a written position has "
            "no decisions to review; give a saved round or a game saved by cambio play)"
        )
    try:
        return read_game(text, getattr(args, "variant", None))
    except PositionError as error:
        raise _Refused(f"cambio {command}: {name}: {error}") from None
    except SaveError as error:
        raise _Refused(f"cambio {command}: {name}: {error}") from None
    except _Refused as refused:
        raise refused from None
    except ValueError as error:
        raise _Refused(f"cambio {command}: {name}: {error}") from None


def _budget_arguments(parser: argparse.ArgumentParser, samples: int) -> None:
    parser.add_argument(
        "--samples",
        type=int,
        default=samples,
        metavar="N",
        help=f"rounds drawn from the player's view per decision (default {samples})",
    )
    parser.add_argument(
        "--seconds",
        type=float,
        default=None,
        metavar="S",
        help="stop drawing after this many seconds per decision (the numbers then depend "
        "on the machine's speed)",
    )
    parser.add_argument(
        "--seed", type=int, default=1, metavar="N", help="the seed of the drawing (default 1)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def _check_budget(args: argparse.Namespace, command: str) -> None:
    if args.samples < 2:
        raise _Refused(f"cambio {command}: --samples must be 2 or more, got {args.samples}")
    if args.seconds is not None and not args.seconds > 0:
        raise _Refused(f"cambio {command}: --seconds must be above 0, got {args.seconds}")


def _percent(x: float) -> str:
    return f"{100 * x:.1f}%"


def _estimate_doc(e: Any) -> dict[str, Any]:
    return {
        "action": None if e.action is None else e.action.to_dict(),
        "label": e.label,
        "win": e.win,
        "win_interval": [e.win_low, e.win_high],
        "score": e.score,
        "score_interval": [e.score_low, e.score_high],
        "behind": e.behind,
        "behind_error": e.behind_error,
        "samples": e.samples,
    }


# ---------------------------------------------------------------------------------------
# cambio analyse


def analyse_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file",
        metavar="FILE",
        help="a saved round (JSON), a game saved by cambio play, or a file holding a "
        "written position; - reads standard input",
    )
    parser.add_argument(
        "--seat",
        type=int,
        default=None,
        metavar="N",
        help="the seat whose decision is analysed (default: the seat to act); in a game "
        "saved by cambio play, a seat of the match (0 is you)",
    )
    parser.add_argument(
        "--variant",
        default=None,
        metavar="NAME|FILE",
        help="the table of a written position: a bundled profile name or a TOML file",
    )
    _budget_arguments(parser, 200)


def run_analyse(args: argparse.Namespace) -> int:
    try:
        return _analyse_run(args)
    except _Refused as refused:
        if str(refused):
            _err(str(refused))
        return refused.status


def _analyse_run(args: argparse.Namespace) -> int:
    from .analysis import AnalysisError, analyse_round

    _check_budget(args, "analyse")
    loaded = _read(args, "analyse")
    rnd, seats = loaded.rounds[-1]
    if rnd.to_act is None:
        raise _Refused(f"cambio analyse: {args.file}: the round is over; try cambio review")
    if args.seat is None:
        seat = rnd.to_act
    elif args.seat in seats:
        seat = seats.index(args.seat)
    else:
        known = ", ".join(str(s) for s in seats)
        raise _Refused(f"cambio analyse: there is no seat {args.seat} in this round ({known})")
    try:
        result = analyse_round(
            rnd, seat, samples=args.samples, seconds=args.seconds, seed=args.seed
        )
    except AnalysisError as error:
        raise _Refused(f"cambio analyse: {error}") from None
    if args.json:
        doc = {
            "seat": seats[seat],
            "phase": result.phase,
            "samples": result.samples,
            "seed": result.seed,
            "actions": [_estimate_doc(e) for e in result.estimates],
        }
        _out(json.dumps(doc, indent=1))
        return 0
    _out(
        f"{rnd.rules.name}: seat {seats[seat]} to decide ({result.phase}), "
        f"{result.samples} rounds drawn from its view, seed {result.seed}"
    )
    _print_analysis(result)
    return 0


def _print_analysis(result: Analysis) -> None:
    from rich.table import Table

    table = Table(box=None, pad_edge=False)
    for name in ("action", "win", "95% interval", "score", "95% interval", "behind best"):
        table.add_column(name, justify="left" if name == "action" else "right")
    for e in result.estimates:
        table.add_row(
            e.label,
            _percent(e.win),
            f"{_percent(e.win_low)} - {_percent(e.win_high)}",
            f"{e.score:.2f}",
            f"{e.score_low:.2f} - {e.score_high:.2f}",
            "best" if e is result.best else f"{_percent(e.behind)} +/- {_percent(e.behind_error)}",
        )
    _console().print(table)
    _out(
        "win: the mean share of the win (Wilson 95% interval); score: the round score "
        "(lower is better; normal 95% interval); behind best: the win share lower than "
        "the best action's on the same drawn rounds."
    )


# ---------------------------------------------------------------------------------------
# cambio review


def review_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file",
        metavar="FILE",
        help="a saved round (JSON) or a game saved by cambio play; - reads standard input",
    )
    parser.add_argument(
        "--seat",
        type=int,
        default=0,
        metavar="N",
        help="the seat whose decisions are reviewed (default 0: you, in a game saved by "
        "cambio play)",
    )
    parser.add_argument(
        "--top",
        type=int,
        default=10,
        metavar="K",
        help="list the K costliest decisions of each round (default 10; 0: all)",
    )
    _budget_arguments(parser, 64)


def run_review(args: argparse.Namespace) -> int:
    try:
        return _review_run(args)
    except _Refused as refused:
        if str(refused):
            _err(str(refused))
        return refused.status


def _review_run(args: argparse.Namespace) -> int:
    from .analysis import AnalysisError
    from .round_review import review

    _check_budget(args, "review")
    if args.top < 0:
        raise _Refused(f"cambio review: --top must be 0 or more, got {args.top}")
    loaded = _read(args, "review", positions=False)
    if not any(args.seat in seats for _, seats in loaded.rounds):
        known = ", ".join(str(s) for s in sorted({s for _, seats in loaded.rounds for s in seats}))
        raise _Refused(f"cambio review: there is no seat {args.seat} in this game ({known})")
    reports: list[tuple[int, Round, tuple[int, ...], Review]] = []
    for number, (rnd, seats) in enumerate(loaded.rounds, 1):
        if args.seat not in seats:
            continue
        try:
            report = review(
                rnd,
                seats.index(args.seat),
                samples=args.samples,
                seconds=args.seconds,
                seed=args.seed,
            )
        except AnalysisError as error:
            raise _Refused(f"cambio review: round {number}: {error}") from None
        reports.append((number, rnd, seats, report))
    if args.json:
        _out(json.dumps([_review_doc(n, r, s, rep) for n, r, s, rep in reports], indent=1))
        return 0
    for number, rnd, seats, report in reports:
        _print_review(args, number, rnd, seats, report)
    return 0


def _review_doc(number: int, rnd: Round, seats: tuple[int, ...], report: Review) -> dict[str, Any]:
    return {
        "round": number,
        "seat": seats[report.player],
        "finished": rnd.is_over,
        "samples": report.samples,
        "seed": report.seed,
        "win_cost": report.win_cost,
        "decisions": [
            {
                "index": d.index,
                "turn": d.turn,
                "phase": d.phase,
                "taken": _estimate_doc(d.taken),
                "best": _estimate_doc(d.best),
                "win_cost": d.win_cost,
                "win_cost_error": d.win_cost_error,
                "score_cost": d.score_cost,
            }
            for d in report.decisions
        ],
    }


def _print_review(
    args: argparse.Namespace, number: int, rnd: Round, seats: tuple[int, ...], report: Review
) -> None:
    from rich.table import Table

    state = "finished" if rnd.is_over else "unfinished"
    shown = report.decisions if args.top == 0 else report.decisions[: args.top]
    _out(
        f"Round {number} ({state}), seat {seats[report.player]}: "
        f"{len(report.decisions)} decisions reviewed, {report.samples} rounds drawn each, "
        f"seed {report.seed}; win share given up in all: {_percent(report.win_cost)}"
    )
    if not shown:
        _out("  no decision with more than one choice")
        return
    table = Table(box=None, pad_edge=False)
    for name in ("#", "turn", "phase", "taken", "best", "win cost", "score cost"):
        table.add_column(name, justify="right" if name in ("#", "turn") else "left")
    for d in shown:
        table.add_row(
            str(d.index),
            str(d.turn),
            d.phase,
            d.taken.label,
            "(the same)" if d.taken is d.best else d.best.label,
            f"{_percent(d.win_cost)} +/- {_percent(d.win_cost_error)}",
            f"{d.score_cost:+.2f}",
        )
    _console().print(table)
