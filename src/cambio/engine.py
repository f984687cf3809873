"""``cambio engine``: the protocol on standard input and output, one JSON message a line.

Each line read is one request; each is answered by exactly one line, in order (see
:mod:`cambio.protocol`). Bad input gets an ``error`` reply and the engine reads on; only
the end of input stops it. A line longer than the limit is read in pieces and refused
whole, so no line can exhaust memory.

>>> import io
>>> out = io.StringIO()
>>> serve_lines(io.StringIO('{"type": "hello"}\\n\\nnope\\n'), out)
0
>>> [json.loads(line)["type"] for line in out.getvalue().splitlines()]
['hello', 'error']
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TextIO

from .protocol import MAX_MESSAGE_BYTES, Engine

__all__ = ["add_arguments", "run_command", "serve_lines"]


def serve_lines(
    stdin: TextIO, stdout: TextIO, engine: Engine | None = None, *, max_bytes: int | None = None
) -> int:
    """Answer every line of ``stdin`` on ``stdout`` until the end of input; returns 0.

    Blank lines are ignored.
    """
    engine = engine or Engine(max_bytes=max_bytes or MAX_MESSAGE_BYTES)
    limit = engine.max_bytes
    while True:
        line = stdin.readline(limit + 2)
        if not line:
            return 0
        if not line.endswith("\n") and len(line.encode("utf-8", "replace")) > limit:
            while True:  # drop the rest of an oversized line
                rest = stdin.readline(limit + 2)
                if not rest or rest.endswith("\n"):
                    break
            reply = engine.handle_text(line)  # refused as too large
        elif not line.strip():
            continue
        else:
            reply = engine.handle_text(line)
        stdout.write(json.dumps(reply, separators=(",", ":")) + "\n")
        stdout.flush()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``cambio engine``."""
    parser.add_argument(
        "--max-bytes",
        type=int,
        default=MAX_MESSAGE_BYTES,
        help=f"the longest message accepted, in bytes (default {MAX_MESSAGE_BYTES})",
    )
    parser.add_argument(
        "--max-tables", type=int, default=1000, help="the most tables held at once (default 1000)"
    )
    parser.add_argument(
        "--store",
        metavar="FOLDER",
        help="keep every table in FOLDER after each change and resume them on start",
    )


def run_command(args: argparse.Namespace) -> int:
    """Run ``cambio engine`` with parsed arguments."""
    engine = Engine(store=args.store, max_tables=args.max_tables, max_bytes=args.max_bytes)
    stdin = sys.stdin
    if hasattr(stdin, "reconfigure"):
        stdin.reconfigure(encoding="utf-8", errors="replace")
    return serve_lines(stdin, sys.stdout, engine)
