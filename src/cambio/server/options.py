"""The options of ``cambio serve`` and its entry point (imports the server lazily)."""

from __future__ import annotations

import argparse
import socket
import sys
from pathlib import Path

__all__ = ["add_arguments", "check_command", "run_command"]


def _number(text: str, *, whole: bool, least: float, what: str) -> float:
    try:
        value = int(text) if whole else float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not {'a whole number' if whole else 'a number'}"
        ) from None
    if not (value >= least and value != float("inf")):
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}")
    return value


def _count(text: str) -> int:
    """A whole number of at least 1 (a limit)."""
    return int(_number(text, whole=True, least=1, what="a whole number of at least 1"))


def _count_or_zero(text: str) -> int:
    """A whole number of at least 0."""
    return int(_number(text, whole=True, least=0, what="a whole number of at least 0"))


def _port(text: str) -> int:
    value = _count_or_zero(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (0 to 65535)")
    return value


def _rate(text: str) -> float:
    """A positive finite number (a rate, a time that must pass)."""
    value = _number(text, whole=False, least=0, what="a positive number")
    if value == 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number")
    return value


def _delay(text: str) -> float:
    """A finite number of at least 0 (a wait)."""
    return _number(text, whole=False, least=0, what="a number of at least 0")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``cambio serve``'s options to ``parser``."""
    parser.add_argument(
        "--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)"
    )
    parser.add_argument(
        "--port", type=_port, default=8765, help="the port (default 8765; 0 picks a free one)"
    )
    parser.add_argument(
        "--store",
        metavar="FOLDER",
        default="cambio-tables",
        help="where every table is saved after each action (default ./cambio-tables)",
    )
    parser.add_argument(
        "--check",
        metavar="FOLDER",
        help="only check the table folder FOLDER and exit, changing nothing: list the tables "
        "that load, the files a server would move aside into FOLDER/damaged/ and why, and "
        "the leftovers of interrupted writes; exits 0 when every table file loads, 1 otherwise",
    )
    parser.add_argument(
        "--max-tables", type=_count, default=200, help="tables the server holds (default 200)"
    )
    parser.add_argument(
        "--max-bytes",
        type=_count,
        default=64 * 1024,
        help="longest message in bytes (default 65536)",
    )
    parser.add_argument(
        "--actions-per-second",
        type=_rate,
        default=20.0,
        help="actions one link (seat token) may send per second, all its connections "
        "together (default 20)",
    )
    parser.add_argument(
        "--bot-delay",
        type=_delay,
        default=0.6,
        help="seconds a bot waits before it moves, so people can follow and snap (default 0.6)",
    )
    parser.add_argument(
        "--bot-workers",
        type=_count_or_zero,
        default=0,
        help="worker processes that take the bots' decisions, off the server's event loop "
        "(default 0: one per core but one, at least one)",
    )
    parser.add_argument(
        "--bot-seconds",
        type=_rate,
        default=10.0,
        help="time budget of one bot decision; a later one is answered by the memory bot "
        "(default 10)",
    )
    parser.add_argument(
        "--token-hours",
        type=_rate,
        default=72.0,
        help="hours a table's join links stay valid; the table is removed then (default 72)",
    )
    _add_limits(parser)


def _add_limits(parser: argparse.ArgumentParser) -> None:
    """The options of a server open to strangers (see ServerConfig for each)."""
    group = parser.add_argument_group(
        "public server", "who may create and connect, and the limits of each client"
    )
    add = group.add_argument
    add(
        "--public-url",
        metavar="URL",
        help="the address people open (https://cambio.example.org behind a TLS proxy): join "
        "links are built from it and its origin may create tables and connect (default: the "
        "address the server listens on)",
    )
    add(
        "--origin",
        metavar="ORIGIN",
        action="append",
        default=[],
        help="another origin (https://example.org) whose pages may create tables and connect; "
        "repeatable",
    )
    add(
        "--trust-proxy",
        metavar="ADDRESSES",
        nargs="?",
        const="127.0.0.1,::1",
        help="believe X-Forwarded-For from these proxy addresses (comma-separated; alone: "
        "127.0.0.1 and ::1) for the per-client limits; without it the header is ignored",
    )
    add("--tables-per-client", type=_count, default=10, help="tables one client holds (default 10)")
    add(
        "--creates-per-minute",
        type=_rate,
        default=5.0,
        help="tables one client may create per minute (default 5)",
    )
    add(
        "--idle-hours",
        type=_rate,
        default=24.0,
        help="a table where nothing happened this long is removed (default 24)",
    )
    add(
        "--finished-minutes",
        type=_rate,
        default=60.0,
        help="a table whose match is over is removed this long after its end (default 60)",
    )
    add(
        "--sweep-seconds",
        type=_rate,
        default=60.0,
        help="how often finished, abandoned and expired tables are looked for (default 60)",
    )
    add(
        "--archive",
        action="store_true",
        help="move removed tables to STORE/archive/ instead of deleting them",
    )
    add(
        "--checkpoint-seconds",
        type=_rate,
        default=2.0,
        help="how often the journal of changes is written out to the table files "
        "(each change is on disk before it is acknowledged; default 2)",
    )
    add(
        "--max-connections",
        type=_count,
        default=1000,
        help="WebSockets open at once (default 1000)",
    )
    add(
        "--connections-per-table",
        type=_count,
        default=32,
        help="spectators' WebSockets open to one table (default 32)",
    )
    add(
        "--connections-per-token",
        type=_count,
        default=4,
        help="WebSockets open with one seat's link (default 4)",
    )
    add(
        "--connections-per-client",
        type=_count,
        default=64,
        help="WebSockets open from one client (default 64)",
    )
    add(
        "--requests-per-second",
        type=_rate,
        default=10.0,
        help="requests other than act (and connections) one link may make per second (default 10)",
    )
    add(
        "--send-queue",
        type=_count,
        default=16,
        help="messages waiting for one connection before it is closed as too slow (default 16)",
    )
    add(
        "--send-timeout",
        type=_rate,
        default=10.0,
        help="seconds one message may take to be sent before its connection is closed (default 10)",
    )
    add(
        "--max-legal-actions",
        type=_count,
        default=2000,
        help="refuse tables whose one decision may offer more legal actions (default 2000)",
    )
    add(
        "--header-timeout",
        type=_rate,
        default=10.0,
        help="seconds a connection may take to send its request line and headers (default 10)",
    )
    add(
        "--ping-seconds",
        type=_rate,
        default=20.0,
        help="seconds between WebSocket pings; a peer that does not answer is dropped (default 20)",
    )


def _config_of(args: argparse.Namespace) -> dict[str, object]:
    """The ServerConfig fields of the public-server options."""
    proxies = tuple(a.strip() for a in (args.trust_proxy or "").split(",") if a.strip())
    return {
        "public_url": args.public_url,
        "origins": tuple(args.origin),
        "trust_proxy": proxies,
        "tables_per_client": args.tables_per_client,
        "creates_per_minute": args.creates_per_minute,
        "idle_seconds": args.idle_hours * 3600,
        "finished_seconds": args.finished_minutes * 60,
        "sweep_seconds": args.sweep_seconds,
        "archive": args.archive,
        "checkpoint_seconds": args.checkpoint_seconds,
        "max_connections": args.max_connections,
        "connections_per_table": args.connections_per_table,
        "connections_per_token": args.connections_per_token,
        "connections_per_client": args.connections_per_client,
        "requests_per_second": args.requests_per_second,
        "send_queue": args.send_queue,
        "send_timeout": args.send_timeout,
        "max_legal_actions": args.max_legal_actions,
        "header_timeout": args.header_timeout,
        "ping_seconds": args.ping_seconds,
    }


def run_command(args: argparse.Namespace) -> int:
    """Run the server until interrupted; prints the address it listens on. With
    ``--check``, only report on a table folder (see :func:`check_command`)."""
    if args.check is not None:
        return check_command(Path(args.check))
    try:
        import uvicorn

        from .app import ServerConfig, create_app
    except ImportError as error:
        print(
            f"cambio serve needs the server extra ({error.name} is missing): "
            "pip install 'cambio-rules[server]'",
            file=sys.stderr,
        )
        return 1
    config = ServerConfig(
        store=Path(args.store),
        max_tables=args.max_tables,
        max_bytes=args.max_bytes,
        actions_per_second=args.actions_per_second,
        bot_delay=args.bot_delay,
        bot_workers=args.bot_workers,
        bot_seconds=args.bot_seconds,
        token_seconds=args.token_hours * 3600,
        **_config_of(args),  # type: ignore[arg-type]
    )
    try:
        app = create_app(config)
    except ValueError as error:
        print(f"cambio serve: {error}", file=sys.stderr)
        return 1
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((args.host, args.port))
    except OSError as error:
        print(f"cambio serve: cannot listen on {args.host}:{args.port}: {error}", file=sys.stderr)
        return 1
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    print(f"cambio serve: http://{shown}:{port}/ (tables in {args.store})", flush=True)
    if host in ("0.0.0.0", "::") and not config.public_url:
        print(
            "cambio serve: without --public-url, pages may connect only from the address "
            "they reached the server at (and its loopback names); name others with --origin",
            file=sys.stderr,
        )
    from .guards import protocols

    # a bit over the protocol's limit: a message between the two gets the protocol's
    # too-large reply; one over this one that reply and a close (code 1009)
    ws_max_size = args.max_bytes + 16 * 1024
    http, ws = protocols(
        header_timeout=config.header_timeout,
        max_head_bytes=config.max_head_bytes,
        max_bytes=args.max_bytes,
        ws_max_size=ws_max_size,
    )
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            log_level="warning",
            http=http,
            ws=ws,
            ws_max_size=ws_max_size,
            # a view is a few KB: compressing each one cost more CPU than anything else
            # the server did per action
            ws_per_message_deflate=False,
            ws_ping_interval=config.ping_seconds,
            ws_ping_timeout=config.ping_seconds,
            h11_max_incomplete_event_size=config.max_head_bytes,
            timeout_keep_alive=max(1, round(config.keep_alive_seconds)),
            # X-Forwarded-For is read by the application, only from --trust-proxy
            # addresses; uvicorn's own reading would trust it from 127.0.0.1
            proxy_headers=False,
        )
    )
    server.run(sockets=[sock])
    return 0


def check_command(folder: Path) -> int:
    """``cambio serve --check FOLDER``: print what a server would load from ``folder``,
    move aside and remove, without changing it; 0 if every table file loads, else 1."""
    from ..protocol import check_store
    from .journal import check_saves, pending_changes

    if not folder.is_dir():
        print(f"cambio serve --check: {folder} is not a folder", file=sys.stderr)
        return 1
    report = check_store(folder)
    journal = pending_changes(folder)
    bad_saves = check_saves(journal)
    replaced = {name for name, (_, text) in journal.latest.items()}
    for line in report.lines():
        print(line)
    for line in [*journal.lines(), *bad_saves]:
        print(line)
    # a damaged file that the journal's (loading) save replaces at start-up is mended
    spoiled = [d for d in report.damaged if d.file.removesuffix(".json") not in replaced]
    return 0 if not spoiled and not bad_saves else 1
