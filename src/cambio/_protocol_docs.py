"""The protocol page of the docs, generated from the shipped JSON Schema.

``docs/protocol.md`` is written from :func:`cambio.protocol.schema` and
:data:`cambio.protocol.ERROR_CODES`, so the page cannot drift from what the engine
checks; a test compares the committed page with :func:`protocol_markdown`. Rewrite it
with::

    python -m cambio._protocol_docs --write docs
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .protocol import ERROR_CODES, PROTOCOL_VERSION, schema

__all__ = ["PAGE", "REGENERATE", "main", "protocol_markdown"]

PAGE = "protocol.md"
"""The page's file name inside the docs folder."""

REGENERATE = "python -m cambio._protocol_docs --write docs"
"""The command that rewrites the page."""

_SHARED = ("id", "table", "seat", "card", "slot", "action", "event", "view")


def _type_of(node: Mapping[str, Any]) -> str:
    """A short human reading of a schema node's type."""
    if "$ref" in node:
        name = str(node["$ref"]).rsplit("/", 1)[-1]
        return f"[{name}](#{name})"
    if "const" in node:
        return f'`"{node["const"]}"`'
    if "enum" in node:
        return "one of the codes below"
    kind = node.get("type", "any")
    names = [kind] if isinstance(kind, str) else list(kind)
    text = " or ".join(names)
    if "array" in names and isinstance(node.get("items"), Mapping):
        text = text.replace("array", f"array of {_type_of(node['items'])}")
    if "object" in names and isinstance(node.get("additionalProperties"), Mapping):
        text = text.replace("object", f"object of {_type_of(node['additionalProperties'])}")
    return text


def _limits(node: Mapping[str, Any]) -> str:
    parts = []
    for key, label in (
        ("minimum", "at least"),
        ("maximum", "at most"),
        ("maxLength", "at most {} characters"),
        ("maxItems", "at most {} items"),
        ("maxProperties", "at most {} entries"),
    ):
        if key in node:
            parts.append(label.format(node[key]) if "{}" in label else f"{label} {node[key]}")
    if "pattern" in node:
        parts.append(f"matches `{node['pattern']}`")
    return "; ".join(parts)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _fields(node: Mapping[str, Any]) -> list[str]:
    properties: Mapping[str, Any] = node.get("properties", {})
    if not properties:
        return []
    required: Sequence[str] = node.get("required", [])
    lines = ["| field | type | required | meaning |", "| --- | --- | --- | --- |"]
    for name, field in properties.items():
        meaning = str(field.get("description", ""))
        limits = _limits(field)
        if limits:
            meaning = f"{meaning} ({limits})" if meaning else limits
        lines.append(
            f"| `{name}` | {_cell(_type_of(field))} | {'yes' if name in required else 'no'} "
            f"| {_cell(meaning)} |"
        )
    return lines


def _section(title: str, anchor: str, node: Mapping[str, Any]) -> list[str]:
    lines = [f"### {title} {{#{anchor}}}", ""]
    if "description" in node:
        lines += [str(node["description"]), ""]
    fields = _fields(node)
    if fields:
        lines += [*fields, ""]
    elif "$ref" not in node:
        limits = _limits(node)
        lines += [f"Type: {_type_of(node)}" + (f" ({limits})" if limits else "") + ".", ""]
    return lines


def protocol_markdown() -> str:
    """The whole ``docs/protocol.md`` page."""
    doc = schema()
    defs: Mapping[str, Any] = doc["$defs"]
    lines = [
        "# The protocol",
        "",
        "<!-- Generated from src/cambio/schemas/protocol.json by "
        f"`{REGENERATE}`; do not edit by hand. -->",
        "",
        str(doc["description"]),
        "",
        f"This page describes protocol version **{PROTOCOL_VERSION}**; a client learns the "
        "version an engine speaks from the `hello` reply and may ask for one with "
        '`{"type": "hello", "protocol": 1}`. The same messages travel one per line over '
        "`cambio engine`'s standard input and output, and one per WebSocket message with "
        "`cambio serve` (see [Running the server](server.md)). The schema itself ships in "
        "the package: `cambio.protocol.schema()` returns it.",
        "",
        "Every request may carry an `id`; its reply carries the same value as `reply_to`. "
        "A field the schema does not list is refused (`bad-field`), and a refused request "
        "never changes a table.",
        "",
        "## The seed, the deck and arranged tables",
        "",
        "A table's seed decides every deal of its match: with the seed and this library, "
        "anyone can rebuild every seat's cards and the whole stock. So when `create` gives "
        "no seed (and no prepared deck), the engine draws one at random and keeps it to "
        "itself while the match runs: no `created`, `loaded`, `view`, `events`, `acted` or "
        "`error` reply carries it. Once the match is over, the view's `match` part shows "
        "it (`seed`, `null` until then), and `created` or `loaded` carry it for a match "
        "that is already over, so anyone can check the deal afterwards.",
        "",
        "A table created with a `seed` or with at least one prepared deck (`decks`) is "
        "*arranged*: its creator may know the cards. Every view says so (`arranged`: "
        "`true`), for every seat and for spectators, and `created` echoes the seed the "
        "request gave (the creator knows it already). Saves keep the flag. A save made "
        "without the flag cannot tell a seed its creator gave from one the engine drew, "
        "so it loads as not arranged, unless it holds a prepared deck.",
        "",
        "The `save` request is the exception: it returns the whole table, seed and every "
        "card included. `cambio engine` answers it because the program driving the engine "
        "over standard input and output plays or hosts every seat and may know "
        "everything; a host that passes replies on to players must not pass a save on. "
        "`cambio serve` refuses `save` (and `load`) to every seat and spectator with "
        "`forbidden`.",
        "",
        "## Requests",
        "",
    ]
    for name in doc["requests"]:
        lines += _section(f"`{name}`", f"request-{name}", defs[f"request.{name}"])
    lines += ["## Replies", ""]
    for name in doc["replies"]:
        lines += _section(f"`{name}`", f"reply-{name}", defs[f"reply.{name}"])
    lines += [
        "## Error codes",
        "",
        "An `error` reply carries one of these codes, a message in words and, when one "
        "field is at fault, its JSON path in `where`.",
        "",
        "| code | meaning |",
        "| --- | --- |",
        *(f"| `{code}` | {_cell(meaning)} |" for code, meaning in ERROR_CODES.items()),
        "",
        "## Shared definitions",
        "",
    ]
    for name in _SHARED:
        if name in defs:
            lines += _section(f"`{name}`", name, defs[name])
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Print the page, or write it into a docs folder with ``--write DOCS``."""
    parser = argparse.ArgumentParser(prog="python -m cambio._protocol_docs")
    parser.add_argument("--write", metavar="DOCS", help="write DOCS/protocol.md")
    args = parser.parse_args(argv)
    text = protocol_markdown()
    if args.write is None:
        sys.stdout.write(text)
    else:
        Path(args.write, PAGE).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
