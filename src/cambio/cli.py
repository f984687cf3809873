"""The ``cambio`` command: list, check, print and compare rule tables; draw a position.

Each subcommand is a :class:`Command` in the :data:`COMMANDS` registry: a name, help
text, a function that adds its arguments to an :mod:`argparse` parser, and a function
that runs it and returns the exit status. Adding a subcommand is one :func:`register`
call; :func:`main` builds the parser from the registry.

Exit status: 0 on success, 1 when a table cannot be loaded or is invalid, 2 for a usage
mistake (argparse's own convention).

>>> main(["--version"])  # doctest: +ELLIPSIS
cambio ...
0
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import attrs

from . import __version__, compiled
from .errors import RuleSetError, did_you_mean

if TYPE_CHECKING:
    from rich.console import Console

    from .rules import RuleSet

__all__ = ["COMMANDS", "Command", "build_parser", "main", "register"]


@attrs.frozen
class Command:
    """One subcommand of ``cambio``.

    ``arguments`` adds the subcommand's options to its parser; ``run`` receives the
    parsed namespace and returns the exit status.
    """

    name: str
    help: str
    """One line, shown in ``cambio --help``."""
    description: str
    """A paragraph, shown in ``cambio NAME --help``."""
    arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    example: str = ""
    """One or more example command lines, shown at the end of ``cambio NAME --help``."""


COMMANDS: dict[str, Command] = {}
"""The subcommands, in the order ``cambio --help`` lists them."""


def register(command: Command) -> Command:
    """Add (or replace) a subcommand; returns it."""
    COMMANDS[command.name] = command
    return command


# ---------------------------------------------------------------------------------------
# Output helpers (rich is imported only when something is printed)


def _console(file: TextIO | None = None) -> Console:
    """A rich console on stdout (or ``file``); plain text when it is not a terminal.

    Output that is piped or captured gets a generous width instead of rich's 80 columns,
    unless ``COLUMNS`` says otherwise.
    """
    from rich.console import Console

    console = Console(file=file, highlight=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(file=file, highlight=False, width=120)
    return console


def _out(line: str = "") -> None:
    _write(sys.stdout, line)


def _err(line: str) -> None:
    _write(sys.stderr, line)


def _write(stream: TextIO, line: str) -> None:
    """Print a line, replacing characters the stream's encoding cannot show."""
    try:
        stream.write(line + "\n")
    except UnicodeEncodeError:
        encoding = getattr(stream, "encoding", None) or "ascii"
        plain = line.translate(_ASCII)
        stream.write(plain.encode(encoding, "replace").decode(encoding) + "\n")


_ASCII = str.maketrans(
    {"\u2212": "-", "\u2013": "-", "\u2014": "--", "\u00b7": "|", "\u00d7": "x", "\u2019": "'"}
)
"""Typographic characters and their ASCII stand-ins, for a terminal that cannot show them."""


def _spec(text: str) -> str | Path:
    """A command-line table: an existing path is a file, anything else a profile name.

    The loader also reads a string ending in ``.toml`` or holding a slash as a path, so a
    missing file is reported as a missing file, not as an unknown profile.
    """
    return Path(text) if os.path.exists(text) else text


def _load(spec: str | Path) -> RuleSet | None:
    """Load a table, or print every problem on stderr and return None."""
    from .loading import load_ruleset

    try:
        return load_ruleset(spec)
    except RuleSetError as error:
        for problem in _problem_lines(error, str(spec)):
            _err(problem)
    except (OSError, ValueError) as error:  # the loader promises RuleSetError; be safe
        _err(f"{spec}: {_one_line(error)}")
    return None


def _problem_lines(error: RuleSetError, source: str) -> list[str]:
    """One ``FILE: key.path: message`` line per problem (the file named even if missing)."""
    lines = []
    for problem in error.problems or ():
        line = str(problem)
        if not problem.source:
            line = f"{source}: {line}"
        lines.append(_one_line_text(line))
    return lines or [f"{source}: {_one_line(error)}"]


def _one_line(error: BaseException) -> str:
    return _one_line_text(str(error) or type(error).__name__)


def _one_line_text(text: str) -> str:
    return " ".join(text.split())


# ---------------------------------------------------------------------------------------
# cambio variants


def _variants_arguments(parser: argparse.ArgumentParser) -> None:
    del parser  # no options


def _variants(args: argparse.Namespace) -> int:
    from rich.table import Table
    from rich.text import Text

    from . import registry
    from .loading import load_ruleset
    from .render import player_counts

    status = 0
    table = Table(title="Rule tables", title_justify="left")
    table.add_column("name", no_wrap=True, style="bold")
    table.add_column("players", no_wrap=True)
    table.add_column("summary")
    table.add_column("from")
    found = registry.sources()
    counts: dict[str, int] = {}
    for source in found:
        counts[source.name] = counts.get(source.name, 0) + 1
    for source in sorted(found, key=lambda s: s.name):
        name = source.name
        where = Text("bundled" if source.origin == "bundled" else source.describe())
        if counts[name] > 1:
            status = 1
            others = [s.describe() for s in found if s.name == name and s is not source]
            message = f"defined twice: also by {' and '.join(others)}"
            table.add_row(Text(name), Text("?"), Text(message, style="red"), where)
            continue
        try:
            rules = load_ruleset(name)
        except RuleSetError as error:
            status = 1
            first = _problem_lines(error, name)[0]
            table.add_row(Text(name), Text("?"), Text(f"invalid: {first}", style="red"), where)
            continue
        table.add_row(
            Text(name), Text(player_counts(rules)), Text(rules.summary or "\u2014"), where
        )
    if not table.row_count:
        _err("cambio: no rule tables found")
        return 1
    _console().print(table)
    for problem in registry.problems():
        _err(f"cambio: {problem}")
        status = 1
    return status


register(
    Command(
        "variants",
        help="list the rule tables by name, with a summary and where each comes from",
        description="List every rule table you can name (pass the name to `cambio rules`, "
        "`cambio diff`, `cambio play` or `cambio simulate`) with its player count, a "
        "one-line summary and where it comes from: bundled, a folder in "
        "CAMBIO_VARIANTS_PATH, or an installed package (entry point group "
        "cambio.variants). A name defined twice is an error naming both places.",
        arguments=_variants_arguments,
        run=_variants,
        example="cambio variants\nCAMBIO_VARIANTS_PATH=club cambio variants",
    )
)


# ---------------------------------------------------------------------------------------
# cambio validate


def _validate_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="a rule table in TOML (the shape of the files in variants/)",
    )
    parser.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="print only the problems, no 'ok' line for a valid file",
    )
    parser.add_argument(
        "--allow-dir",
        action="append",
        default=[],
        metavar="DIR",
        help="a folder whose files an 'extends' may also name (repeatable); by default only "
        "bundled profiles and files inside the extending file's own folder",
    )


def _validate(args: argparse.Namespace) -> int:
    from .loading import load_ruleset

    status = 0
    for name in args.files:
        try:
            load_ruleset(Path(name), search_path=args.allow_dir)
        except RuleSetError as error:
            status = 1
            for line in _problem_lines(error, name):
                _out(line)
        except (OSError, ValueError) as error:  # the loader promises RuleSetError; be safe
            status = 1
            _out(f"{name}: {_one_line(error)}")
        else:
            if not args.quiet:
                _out(f"{name}: ok")
    return status


register(
    Command(
        "validate",
        help="check rule files and report every mistake",
        description="Load each FILE as a rule table. A valid file prints 'FILE: ok'; every "
        "mistake prints one line 'FILE: key.path: message'. The exit status is 0 when every "
        "file is valid and 1 otherwise.",
        arguments=_validate_arguments,
        run=_validate,
        example="cambio validate examples/house_rule.toml\ncambio validate -q variants/*.toml",
    )
)


# ---------------------------------------------------------------------------------------
# cambio rules


def _rules_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "table",
        metavar="NAME|FILE",
        help="a bundled profile name (see `cambio variants`) or a path to a TOML rule file",
    )
    parser.add_argument(
        "--axes",
        action="store_true",
        help="list every rule axis of the table in a table instead of the quick reference",
    )
    parser.add_argument(
        "--width",
        type=int,
        default=78,
        metavar="N",
        help="line width of the quick reference (default: %(default)s)",
    )


def _rules(args: argparse.Namespace) -> int:
    from .render import describe_axes, quick_reference

    rules = _load(_spec(args.table))
    if rules is None:
        return 1
    if not args.axes:
        for line in quick_reference(rules, width=max(args.width, 40)).splitlines():
            _out(line)
        return 0

    from rich.table import Table
    from rich.text import Text

    table = Table(title=f"{rules.name}: every axis", title_justify="left")
    table.add_column("section", style="dim", no_wrap=True)
    table.add_column("axis", style="bold")
    table.add_column("value")
    for row in describe_axes(rules):
        table.add_row(Text(row.section), Text(row.label), Text(row.value))
    _console().print(table)
    return 0


register(
    Command(
        "rules",
        help="print a table's quick reference",
        description="Print a printable one-page quick reference of a rule table, generated "
        "from its rules: players, deck, values, the grid and the opening peek, a turn, the "
        "powers, sticking, calling, scoring, the stock's end and the match.",
        arguments=_rules_arguments,
        run=_rules,
        example="cambio rules penalty\ncambio rules examples/house_rule.toml --axes",
    )
)


# ---------------------------------------------------------------------------------------
# cambio diff

KEY_AXES: tuple[str, ...] = (
    "values",
    "deck",
    "taking the discard",
    "power timing",
    "sticking",
    "caller penalty",
    "ties",
    "the stock's end",
)
"""Axes ``cambio diff`` lists (marked ``same``) even when both tables agree on them."""


def _diff_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("a", metavar="A", help="the first table: a profile name or a TOML file")
    parser.add_argument("b", metavar="B", help="the second table: a profile name or a TOML file")
    which = parser.add_mutually_exclusive_group()
    which.add_argument(
        "--all",
        action="store_true",
        help="show every axis, not only the differences and the key axes",
    )
    which.add_argument(
        "--only",
        action="store_true",
        help="show only the axes that differ (no key axes for reference)",
    )


def _diff(args: argparse.Namespace) -> int:
    from rich.table import Table
    from rich.text import Text

    from .render import describe_axes, diff_rows

    a, b = _load(_spec(args.a)), _load(_spec(args.b))
    if a is None or b is None:
        return 1
    name_a, name_b = a.name, b.name
    if name_a == name_b:
        name_a, name_b = args.a, args.b

    differ = diff_rows(a, b)
    if not differ:
        _out(f"{name_a} and {name_b} play by the same rules.")
        return 0
    if name_a == name_b:  # two different files with one name: tell the columns apart
        name_a, name_b = f"A: {name_a}", f"B: {name_b}"

    labels = {row.label for row in differ}
    rows_a = describe_axes(a)
    rows_b = {row.label: row.value for row in describe_axes(b)}
    same = [
        row
        for row in rows_a
        if row.label not in labels
        and row.label in rows_b
        and row.label not in ("name", "summary")
        and (args.all or (row.label in KEY_AXES and not args.only))
    ]

    noun = "axis differs" if len(differ) == 1 else "axes differ"
    table = Table(
        title=f"{name_a} vs {name_b}: {len(differ)} {noun}",
        title_justify="left",
        caption="Rows marked 'same' agree in both tables; they are shown for reference."
        if same
        else None,
        caption_justify="left",
        show_lines=True,
    )
    table.add_column("axis", style="bold")
    table.add_column(name_a)
    table.add_column(name_b)
    for diff in differ:
        table.add_row(Text(diff.label), Text(diff.a), Text(diff.b))
    if same:
        table.add_section()
        for row in same:
            table.add_row(Text(row.label), Text(row.value), Text("same"), style="dim")
    _console().print(table)
    return 0


register(
    Command(
        "diff",
        help="compare two tables side by side",
        description="Show, side by side, every rule axis on which two tables differ, each "
        "in words. Key axes on which they agree (values, deck, taking the discard, power "
        "timing, sticking, caller penalty, ties, the stock's end) are listed too, marked "
        "'same', for reference; --only hides them, --all adds every other axis.",
        arguments=_diff_arguments,
        run=_diff,
        example="cambio diff practice penalty\ncambio diff elimination blind --only",
    )
)


def _lazy(
    module: str, arguments_name: str = "add_arguments", run_name: str = "run_command"
) -> tuple[Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]:
    """The options and the code of a command that live in ``module`` (functions
    ``arguments_name`` and ``run_name``, imported when the parser is built, not when this
    module is)."""

    def arguments(parser: argparse.ArgumentParser) -> None:
        getattr(importlib.import_module(module, __package__), arguments_name)(parser)

    def run(args: argparse.Namespace) -> int:
        return int(getattr(importlib.import_module(module, __package__), run_name)(args))

    return arguments, run


# ---------------------------------------------------------------------------------------
# cambio play and cambio simulate: their options and code live in play.py and simulate.py


_PLAY_ARGUMENTS, _PLAY = _lazy(".play")
_SIMULATE_ARGUMENTS, _SIMULATE = _lazy(".simulate")


register(
    Command(
        "play",
        help="play a match (or one round) in the terminal against computer players",
        description="Play as player 0 against MemoryBots, typing short commands (help "
        "lists them): the table's whole match, with running totals between rounds, or one "
        "round with --round. Snaps are offered as --snap says and settled by the table's "
        "arbitration, the same for you and the bots. Leaving (q, end of input, Ctrl-C) saves "
        "the game in the user's data folder; --resume FILE continues it exactly, or shows "
        "the result of a finished game. You play from memory unless --aids. Reads standard "
        "input, so a script can play.",
        arguments=_PLAY_ARGUMENTS,
        run=_PLAY,
        example="cambio play --variant snap --players 4 --snap ask\n"
        "cambio play --variant elimination --seed 7 --round\n"
        "cambio play --resume ~/.local/share/cambio/saves/cambio-elimination-7.json",
    )
)
_LEARN_ARGUMENTS, _LEARN = _lazy(".lessons.terminal")
register(
    Command(
        "learn",
        help="take the three guided lessons in the terminal, then play a round",
        description="Three guided lessons on the practice table, on prepared deals: "
        "replace a card, peek with a 7 or a 9, swap with a jack and call Cambio. Each "
        "step says what to do and refuses anything else with a sentence saying why. Then "
        "a fresh round against Robin and Alex, the learning opponents. You play from "
        "memory throughout. Reads standard input, so a script can take the lessons.",
        arguments=_LEARN_ARGUMENTS,
        run=_LEARN,
        example="cambio learn\ncambio learn --lesson 3",
    )
)
register(
    Command(
        "simulate",
        help="play many rounds between bots and report win rates",
        description="Play --games rounds between bots (memory, random, random-nocall, "
        "memory-forgetful), one per seat, and report each seat's win rate and mean score, "
        "how rounds ended and how fast. The same --seed gives the same numbers whatever "
        "--jobs is.",
        arguments=_SIMULATE_ARGUMENTS,
        run=_SIMULATE,
        example="cambio simulate --variant practice --players 3 --bots memory,random,random "
        "--games 2000 --seed 1\ncambio simulate --variant snap --games 500 --json",
    )
)


# ---------------------------------------------------------------------------------------
# cambio engine and cambio serve: the JSON protocol (protocol.py, engine.py, server/)


_ENGINE_ARGUMENTS, _ENGINE = _lazy(".engine")
_SERVE_ARGUMENTS, _SERVE = _lazy(".server.options")


register(
    Command(
        "engine",
        help="speak the JSON protocol on standard input and output",
        description="Read one JSON request per line and answer each with one JSON line: "
        "create tables, ask for a seat's view and legal actions, act, save and load "
        "(the protocol page of the docs lists every message). Bad input gets an error "
        "reply; the end of input stops the engine.",
        example="""echo '{"type": "hello", "id": 1}' | cambio engine\n"""
        "cambio engine --store saves/ --max-tables 20",
        arguments=_ENGINE_ARGUMENTS,
        run=_ENGINE,
    )
)
register(
    Command(
        "serve",
        help="serve tables over HTTP and WebSockets, with the web table at /",
        description="Run the game server (needs the server extra: pip install "
        "'cambio-rules[server]'): create tables over HTTP, join them by link, play over "
        "WebSockets; every table is saved after each action and resumed on restart. "
        "Listens on 127.0.0.1 unless --host says otherwise.",
        example="cambio serve --port 8000 --store tables/\n"
        "cambio serve --host 0.0.0.0 --port 8000 --store tables/ --max-tables 50",
        arguments=_SERVE_ARGUMENTS,
        run=_SERVE,
    )
)


# ---------------------------------------------------------------------------------------
# cambio show


def _show_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "position",
        nargs="+",
        metavar="POSITION",
        help="a written position: one argument in quotes, or its fields as separate "
        "arguments; - alone reads it from standard input",
    )
    parser.add_argument(
        "--variant",
        required=True,
        metavar="NAME|FILE",
        help="the table the position is played under: a bundled profile name or a TOML file",
    )


def _show(args: argparse.Namespace) -> int:
    from .errors import PositionError
    from .position import describe, read_position

    parts: list[str] = list(args.position)
    text = sys.stdin.read().strip() if parts == ["-"] else " ".join(parts)
    rules = _load(_spec(args.variant))
    if rules is None:
        return 1
    try:
        rnd = read_position(rules, text)
    except PositionError as error:
        _err(f"cambio show: {error}")
        if len(text) <= 400:
            # the line itself, with a caret under the column that is wrong
            _err("  " + text)
            _err("  " + " " * (error.column - 1) + "^")
        return 2
    _out(f"{rules.name}, {rnd.players} seats")
    for line in describe(rnd).splitlines():
        _out(line)
    return 0


register(
    Command(
        "show",
        help="draw a written position",
        description="Read a written position (the one-line notation of Round.position(), "
        "see docs/positions.md) under a table and draw it: every seat's positions with "
        "their cards and the seats that know each one, the discard pile, the stock, the "
        "held card, the phase, whose decision it is and the legal actions. A position that "
        "cannot be read, or that no round could be in, is reported with its column and "
        "exit status 2.",
        example="cambio show 'AS,2S,3S@0,4S@0/5S,6S,7S@1,8S@1 - 9S 10S,... turn 0 0,0' "
        "--variant practice",
        arguments=_show_arguments,
        run=_show,
    )
)


# ---------------------------------------------------------------------------------------
# cambio analyse and cambio review: their options and code live in analysis_cli.py


_ANALYSE_ARGUMENTS, _ANALYSE = _lazy(".analysis_cli", "analyse_arguments", "run_analyse")
_REVIEW_ARGUMENTS, _REVIEW = _lazy(".analysis_cli", "review_arguments", "run_review")


register(
    Command(
        "analyse",
        help="estimate what each legal action is worth to the player to decide",
        description="Read a saved round, a game saved by cambio play, or a written "
        "position, and estimate every legal action of the seat to decide (or --seat): "
        "its share of the win and its round score with 95% intervals, over rounds drawn "
        "from that seat's view only and played out by the search bot's rollout policy. "
        "Every action is tried on the same drawn rounds. The same --seed gives the same "
        "numbers.",
        example="cambio analyse game.json --seat 0 --samples 400\n"
        "cambio analyse position.txt --variant practice --json",
        arguments=_ANALYSE_ARGUMENTS,
        run=_ANALYSE,
    )
)
register(
    Command(
        "review",
        help="list where a player's decisions in a round cost the most",
        description="Replay a saved round, or every round of a game saved by cambio play, "
        "and analyse each decision of --seat from its view at that moment: the best "
        "action, and the win share and round score points the action taken gave up, the "
        "costliest first. The same --seed gives the same numbers.",
        example="cambio review game.json --seat 0\ncambio review round.json --seat 1 --json",
        arguments=_REVIEW_ARGUMENTS,
        run=_REVIEW,
    )
)

# ---------------------------------------------------------------------------------------
# The parser and the entry point


class _Parser(argparse.ArgumentParser):
    """An argument parser that names the closest known option for an unknown one:
    ``cambio simulate --seeed 3`` ends ``unrecognized arguments: --seeed 3; did you mean
    --seed?``. The parser of the subcommand that ran judges the arguments left over (it
    knows the options that were meant); its subparsers are made of this class too."""

    def parse_known_args(self, *args: Any, **kwargs: Any) -> Any:
        parsed, extras = super().parse_known_args(*args, **kwargs)
        commands = [a for a in self._actions if isinstance(a, argparse._SubParsersAction)]
        if any(getattr(parsed, a.dest, None) is not None for a in commands):
            return parsed, extras  # the subcommand's parser has looked at them
        options = [o for action in self._actions for o in action.option_strings]
        hints = {
            word: hint
            for word in (e.split("=", 1)[0] for e in extras if e.startswith("-"))
            if (hint := did_you_mean(word, options))
        }
        if hints:
            said = (
                list(hints.values()) if len(hints) == 1 else [f"{w}: {h}" for w, h in hints.items()]
            )
            self.error(f"unrecognized arguments: {' '.join(extras)}; {'; '.join(said)}")
        return parsed, extras


def build_parser() -> argparse.ArgumentParser:
    """The ``cambio`` argument parser, with one subparser per registered command."""
    parser = _Parser(
        prog="cambio",
        description=_fill(
            "The card game Cambio (Cabo, Pablo, Cactus) under any house-rule table: list "
            "the profiles, check rule files, print a table's quick reference, compare two "
            "tables, play a match in the terminal against fair bots, simulate many games "
            "between bots to weigh a house rule, draw a written position, and serve games "
            "to other programs (a JSON protocol on standard input) and to browsers (a "
            "server with a web table)."
        ),
        epilog="Run `cambio COMMAND --help` for the options of one command and an example.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"cambio {__version__} ({'compiled with mypyc' if compiled else 'pure Python'})",
        help="print the version and which build runs (compiled or pure Python)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for command in COMMANDS.values():
        example = "".join(f"\n  {line}" for line in command.example.splitlines())
        child = sub.add_parser(
            command.name,
            help=command.help,
            description=_fill(command.description),
            epilog=f"example{'s' if example.count(chr(10)) > 1 else ''}:{example}"
            if example
            else None,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        command.arguments(child)
        child.set_defaults(run=command.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``cambio`` with ``argv`` (default: the process arguments); return the status."""
    parser = build_parser()
    try:
        args = parser.parse_args(None if argv is None else list(argv))
    except SystemExit as exit_:  # --help, --version and usage errors
        return _status(exit_.code)
    run: Callable[[argparse.Namespace], int] | None = getattr(args, "run", None)
    if run is None:
        parser.print_help()
        return 0
    try:
        return run(args)
    except BrokenPipeError:  # `cambio variants | head`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        _err("cambio: interrupted")
        return 130


def _fill(text: str) -> str:
    """A paragraph wrapped to the terminal's width (at most 78 columns)."""
    import shutil
    import textwrap

    width = min(78, shutil.get_terminal_size((78, 24)).columns - 2)
    return textwrap.fill(text, max(width, 40))


def _status(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    _err(str(code))
    return 1


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
