"""Helpers shared by the protocol and server tests: reply checking and a stdio client."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import jsonschema

from cambio.protocol import schema

__all__ = ["SEAT_REFUSALS", "StdioEngine", "check_reply", "reveals_only_when_over", "secrets_of"]

_DOC = schema()
jsonschema.Draft202012Validator.check_schema(_DOC)
_VALIDATORS = {
    name: jsonschema.Draft202012Validator({**_DOC, "$ref": f"#/$defs/{name}"})
    for name in _DOC["$defs"]
    if name.startswith("reply.")
}


# What a seat's socket refuses, and with which code: the in-process and the live server
# tests send every one of these (a str is sent as written, a dict as JSON).
SEAT_REFUSALS: tuple[tuple[str | dict[str, Any], str], ...] = (
    ({"type": "hello", "protocol": 9}, "unsupported-version"),
    ("{", "bad-json"),
    ("7", "bad-message"),
    ("[7]", "bad-message"),
    ("x" * 4001, "too-large"),
    ({"type": "dance"}, "unknown-type"),
    ({"type": "view", "extra": 1}, "bad-field"),
    ({"type": "act", "at": 0}, "missing-field"),
    *(({"type": kind}, "forbidden") for kind in ("save", "create", "load", "close")),
    ({"type": "view", "table": "elsewhere"}, "forbidden"),
    ({"type": "view", "seat": 1}, "wrong-seat"),
    ({"type": "next-round"}, "not-between-rounds"),
)


def check_reply(reply: dict[str, Any]) -> dict[str, Any]:
    """Assert that ``reply`` is valid under the shipped schema of its type; return it."""
    kind = reply.get("type")
    assert isinstance(kind, str) and f"reply.{kind}" in _DOC["$defs"], reply
    _VALIDATORS[f"reply.{kind}"].validate(reply)
    return reply


def secrets_of(table: Any) -> list[str]:
    """The decimal seeds that rebuild a table's cards, read from the omniscient table
    object: the match's seed and the seed of every round dealt so far."""
    match = table.match
    found = [str(match.seed), *(str(r.seed) for r in match.played_rounds)]
    assert all(len(s) >= 6 for s in found), found  # long enough to search text for
    return found


def reveals_only_when_over(text: str, secrets: list[str]) -> bool:
    """Whether the message ``text`` is free of every secret, or shows the match's seed
    (and no round's) only as the view of a match that is over."""
    if not any(s in text for s in secrets):
        return True
    message = json.loads(text)
    view = message.get("view")
    if not isinstance(view, dict) or not view["match"]["over"]:
        return False
    return view["match"]["seed"] == int(secrets[0]) and not any(s in text for s in secrets[1:])


class StdioEngine:
    """``cambio engine`` in a child process: one line out, one line back."""

    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "cambio", "engine", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )
        self.lines: list[str] = []
        """Every reply line, as received."""

    def send_text(self, text: str) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(text.replace("\n", " ") + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        assert line, "the engine stopped answering"
        self.lines.append(line)
        reply: dict[str, Any] = json.loads(line)
        return check_reply(reply)

    def send(self, message: object) -> dict[str, Any]:
        return self.send_text(json.dumps(message))

    def close(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        return self.process.wait(timeout=30)
