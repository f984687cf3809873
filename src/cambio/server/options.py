"""The options of ``cambio serve`` and its entry point (imports the server lazily)."""

from __future__ import annotations

import argparse
import socket
import sys
from pathlib import Path

__all__ = ["add_arguments", "check_command", "run_command"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``cambio serve``'s options to ``parser``."""
    parser.add_argument(
        "--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)"
    )
    parser.add_argument(
        "--port", type=int, default=8765, help="the port (default 8765; 0 picks a free one)"
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
        "--max-tables", type=int, default=200, help="tables the server holds (default 200)"
    )
    parser.add_argument(
        "--max-bytes", type=int, default=64 * 1024, help="longest message in bytes (default 65536)"
    )
    parser.add_argument(
        "--actions-per-second",
        type=float,
        default=20.0,
        help="actions allowed per second on one connection (default 20)",
    )
    parser.add_argument(
        "--bot-delay",
        type=float,
        default=0.6,
        help="seconds a bot waits before it moves, so people can follow and snap (default 0.6)",
    )
    parser.add_argument(
        "--bot-workers",
        type=int,
        default=0,
        help="worker processes that take the bots' decisions, off the server's event loop "
        "(default 0: one per core but one, at least one)",
    )
    parser.add_argument(
        "--bot-seconds",
        type=float,
        default=10.0,
        help="time budget of one bot decision; a later one is answered by the memory bot "
        "(default 10)",
    )
    parser.add_argument(
        "--token-hours",
        type=float,
        default=72.0,
        help="hours a table's join links stay valid (default 72)",
    )


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
    server = uvicorn.Server(
        uvicorn.Config(app, log_level="warning", ws_max_size=max(1 << 20, 4 * args.max_bytes))
    )
    server.run(sockets=[sock])
    return 0


def check_command(folder: Path) -> int:
    """``cambio serve --check FOLDER``: print what a server would load from ``folder``,
    move aside and remove, without changing it; 0 if every table file loads, else 1."""
    from ..protocol import check_store

    if not folder.is_dir():
        print(f"cambio serve --check: {folder} is not a folder", file=sys.stderr)
        return 1
    report = check_store(folder)
    for line in report.lines():
        print(line)
    return 0 if report.ok else 1
