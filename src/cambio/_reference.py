"""The generated pages of the documentation: the RuleSet reference and one page per profile.

Nothing here is written by hand per key or per table. The reference walks the attrs
classes of :mod:`cambio.rules` (``attrs.fields``, recursively) and takes each key's
meaning from the string literal that follows the field in the source (read with
:mod:`ast`); the few fields that carry no such string get theirs from :data:`NOTES`
below, and a field with neither is an error, so a new key cannot go undocumented. A
profile page is built from the comment block at the top of the profile's TOML file,
:func:`cambio.render.diff_rows` against its parent and
:func:`cambio.render.quick_reference`.

The committed pages must equal what this module generates (``tests/test_docs.py``
checks it). To regenerate them after changing ``rules.py`` or a profile::

    python -m cambio._reference --write docs

``python -m cambio._reference`` alone prints the reference page.

>>> text = reference_markdown()
>>> "| `snap.when` |" in text.replace('<a id="snap.when"></a>', "")
True
"""

from __future__ import annotations

import argparse
import ast
import functools
import inspect
import json
import re
import sys
import types
import typing
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import attrs

from . import rules as rules_module
from .loading import _bundled, load_ruleset, ruleset_from_toml, ruleset_to_dict
from .render import diff_rows, quick_reference
from .rules import RuleSet

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

__all__ = [
    "NOTES",
    "DocKey",
    "MissingMeaningError",
    "field_meanings",
    "generated_pages",
    "main",
    "profile_markdown",
    "profiles_index_markdown",
    "readme_profiles",
    "reference_keys",
    "reference_markdown",
    "toml_document",
    "write_pages",
]

REGENERATE = "python -m cambio._reference --write docs"
"""The command that rewrites every generated page."""

README_BEGIN = "<!-- BEGIN generated profile table -->"
README_END = "<!-- END generated profile table -->"
"""Markers around the table of profiles in ``README.md``, rewritten by :func:`write_pages`."""

NAV_BEGIN = "# BEGIN generated profile pages"
NAV_END = "# END generated profile pages"
"""Markers around the profile pages in ``mkdocs.yml``'s nav, rewritten by :func:`write_pages`."""

FIRST_PROFILE = "practice"
"""The default table: every other top-level table's page is compared with it."""

# ---------------------------------------------------------------------------------------
# Meanings for the fields whose source carries no docstring. Keyed by the dotted path
# of the reference (``[]`` marks each element of an array). A docstring in rules.py wins
# over a note; a note for a path that does not exist is an error.

NOTES: dict[str, str] = {
    "extends": (
        "Not a RuleSet field but an instruction to the loader: start from this profile "
        '(a bundled name such as `"practice"`, or a path ending in `.toml`, relative to '
        "this file) and change only what this file sets. Tables merge key by key; "
        "arrays and single values replace the parent's whole. A path must lead inside "
        "this file's folder (after `..` and links are resolved) or a folder the caller "
        "allows (`search_path`, `cambio validate --allow-dir`); at most 8 files may "
        "stand above the one loaded."
    ),
    "name": (
        "The table's name, shown by `cambio variants`, the quick reference and "
        "simulation reports. A file that does not set it is named after the file."
    ),
    "summary": (
        "One line saying what the table is. A file that extends another and sets none "
        "gets one naming its parent and the keys it changes."
    ),
    "players.min": "The fewest players the table seats.",
    "players.max": (
        "The most players the table seats. The deck must be able to deal this many "
        "grids and start a discard pile."
    ),
    "players.default": "How many players sit down when a program or command does not say.",
    "deck.decks": "How many copies of the whole deck (jokers included) are shuffled together.",
    "deck.jokers": (
        "Jokers added to each deck. A joker has no suit, so no colour override applies "
        "to it; its value is `values.rank.Joker`."
    ),
    "deck.ranks": (
        "The ranks of a standard deck, each in the four suits; leave some out for a "
        "short deck. Ignored when `deck.custom` is set."
    ),
    "deck.custom": (
        "A suitless deck instead of the standard one: each rank name with its count per "
        "deck, for example a numbered deck `{ 0 = 2, 1 = 4, ..., 13 = 2 }`. Empty means "
        "the standard deck. A rank name is printed on its cards and written in positions, "
        "so it holds no spaces or control characters, none of `, / @ # ! : ; * =`, and is "
        "not `-`, `--` or `...`."
    ),
    "values.rank": (
        "Points per rank. Every rank the deck holds needs a value (a joker's is under "
        "`Joker`). A file that extends another adds its entries to the inherited ones, so "
        "each name it writes must be a rank its deck can hold (a standard rank or `Joker`, "
        "or a key of `deck.custom`): a misspelt name such as `Jocker` is an error (with "
        "the rank it probably means), not an entry no card reads."
    ),
    "values.red": (
        "Values that replace `values.rank` for red cards (hearts and diamonds) of the ranks listed."
    ),
    "values.black": (
        "Values that replace `values.rank` for black cards (spades and clubs) of the ranks listed."
    ),
    "grid.rows": (
        "Cards per row, top row first. Positions are numbered row by row from 1: "
        "`[2, 2]` is 1 2 over 3 4, and `[2, 2, 1]` adds a fifth position below."
    ),
    "opening.positions": "The grid positions the opening peek may look at.",
    "opening.count": (
        "How many of `opening.positions` each player looks at before play. As many as "
        "there are positions: no choice. Fewer: each player chooses (an `opening-peek` "
        "action). 0: no opening peek, every card starts unknown."
    ),
    "powers.optional": (
        "Whether a player may decline a power (a `skip` action). When false only the "
        "steps marked `optional` may be declined."
    ),
    "powers.table": (
        "Which card grants which power. A card that matches no entry has no power; a "
        "rank (and colour) may appear in one entry only."
    ),
    "powers.table[].ranks": "The ranks that grant this power.",
    "powers.table[].steps": (
        "What the power lets its player do, in order: each step is one action (a peek or a swap)."
    ),
    "powers.table[].colour": (
        "Limit the power to the red or black cards of those ranks (the practice table's "
        "black king), or `any`."
    ),
    "powers.table[].name": "A label for people (quick reference, events); no rule reads it.",
    "powers.table[].steps[].action": "`peek`: look at one card. `swap`: exchange two cards.",
    "powers.table[].steps[].scope": (
        "Which cards the step may reach: a peek scope for a peek, a swap scope for a "
        "swap (both listed below)."
    ),
    "snap.when": (
        "When a player may snap (stick) a card that matches the top discard: `never`; "
        "`own-turn`: only the player whose turn it is; `any-time`: anyone, during any "
        "turn; `after-other-discard`: anyone but the player who discarded it. A snap "
        "is possible while the discard's reaction window is open, one attempt per player "
        "per discard."
    ),
    "snap.match": (
        "What counts as a match: the same `rank`, or the same `value` in points (by "
        "value a jack worth 10 matches a 10, and a red king at -1 does not match a black "
        "king at 13)."
    ),
    "snap.penalty_cards": (
        "Cards a wrong snap costs: drawn from the stock, face down, into the snapper's "
        "extra positions. A player without that many free extra positions (see "
        "`grid.extra`) cannot snap."
    ),
    "snap.wrong_seen_by": (
        "Who sees the card of a wrong snap before it goes back: `all`, or only the `snapper`."
    ),
    "snap.arbitration": (
        "The order in which snaps declared at the same moment are tried "
        "(`Round.resolve_snaps`): `first`: as they arrived; `seat-order`: seat order "
        "from the player who discarded; `random`: a random order drawn from the round's "
        "seed. The first correct snap closes the window."
    ),
    "call.allowed": (
        "Whether anyone may call Cambio. Without calls a round ends when the stock runs "
        "out (or on the turn cap, or an emptied grid)."
    ),
    "call.timing": (
        "`before-draw`: at the start of one's turn, instead of drawing. `end-of-turn`: "
        "after one's main action, by choosing `call` rather than `pass`."
    ),
    "call.caller_final_turn": "Whether the caller also takes a final turn, after the others.",
    "scoring.winner_scores_zero": (
        "The round's winners score 0; everyone else scores their total."
    ),
    "scoring.tie_break": (
        "How a tie for the lowest total is settled: the steps are tried in order until "
        "one winner is left (the steps are listed below); whoever is still tied shares."
    ),
    "scoring.combination": "A special final hand that rewrites the round's scores; absent: none.",
    "scoring.combination.ranks": (
        "The ranks of the hand, as a multiset: a player whose final cards (extra cards "
        'included) have exactly these ranks holds it, for example `["Q", "Q", "K", "K"]`.'
    ),
    "scoring.combination.holder": "The round score of the player holding the combination.",
    "scoring.combination.others": "The round score of every other player.",
    "stock.on_empty": (
        "When a card must be drawn and the stock is empty. `end`: the current action "
        "finishes, then every hand is revealed and scored. `recycle`: the discard pile "
        "except its top card is shuffled into a new stock, at the moment "
        "`stock.recycle_when` says (with nothing to recycle, the "
        "round ends as with `end`)."
    ),
    "match.end": (
        "`single`: one round. `elimination`: a player whose total crosses `match.limit` "
        "is out; the last one left wins. `limit`: once any total crosses the limit, the "
        "lowest total wins. `rounds`: after `match.rounds` rounds, the lowest total wins."
    ),
    "match.limit": "The score limit of an `elimination` or `limit` match.",
    "match.rounds": "The number of rounds of a `rounds` match (tie-break rounds not counted).",
    "match.tie": (
        "A tie for the match: the tied players `share` the win, or play an "
        "`extra-round` among themselves."
    ),
    "match.first_dealer": (
        "Who deals the first round: the `last-seat` (the highest seat, so seat 0 plays "
        "first, as in a lone round), the `first-seat` (seat 0), a `random` seat, or the "
        "`high-card` of a draw. The deal then passes to the left each round."
    ),
    "match.starter": (
        "Who plays first in a round: the player `left-of-dealer`, or (after the first "
        "round) the player with the `worst-hand` of the previous round."
    ),
    "teams.size": (
        "Players per team; 1 means no teams. Partners score their combined total as one "
        "and either of them may call for the team."
    ),
}

# ---------------------------------------------------------------------------------------
# Reading the source of rules.py


class MissingMeaningError(ValueError):
    """A RuleSet key has neither a docstring in ``rules.py`` nor an entry in :data:`NOTES`."""


@attrs.frozen
class _Source:
    class_docs: dict[str, str]
    field_docs: dict[str, dict[str, str]]
    alias_docs: dict[str, str]


def _string_after(body: Sequence[ast.stmt], index: int) -> str | None:
    if index + 1 >= len(body):
        return None
    follower = body[index + 1]
    if (
        isinstance(follower, ast.Expr)
        and isinstance(follower.value, ast.Constant)
        and isinstance(follower.value.value, str)
    ):
        return inspect.cleandoc(follower.value.value)
    return None


def _read_source() -> _Source:
    """The docstrings of ``rules.py``: classes, fields (the string after a field), aliases."""
    tree = ast.parse(inspect.getsource(rules_module))
    class_docs: dict[str, str] = {}
    field_docs: dict[str, dict[str, str]] = {}
    alias_docs: dict[str, str] = {}
    for i, node in enumerate(tree.body):
        if isinstance(node, ast.ClassDef):
            class_docs[node.name] = inspect.cleandoc(ast.get_docstring(node) or "")
            docs: dict[str, str] = {}
            for j, item in enumerate(node.body):
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    text = _string_after(node.body, j)
                    if text:
                        docs[item.target.id] = text
            field_docs[node.name] = docs
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            text = _string_after(tree.body, i)
            if isinstance(target, ast.Name) and text:
                alias_docs[target.id] = text
    return _Source(class_docs, field_docs, alias_docs)


_ROLE = re.compile(r":[a-z]+:`(~?)([^`<]*?)(?:\s*<([^>]+)>)?`")


def _markdown(text: str) -> str:
    """reST inline markup of a docstring as Markdown, on one line."""

    def role(match: re.Match[str]) -> str:
        tilde, title, target = match.group(1), match.group(2).strip(), match.group(3)
        if target:
            return f"`{title}`"
        name = title.rsplit(".", 1)[-1] if tilde else title
        return f"`{name}`"

    text = _ROLE.sub(role, text)
    text = text.replace("``", "`")
    return " ".join(text.split())


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


# ---------------------------------------------------------------------------------------
# Types and values as a TOML writer sees them


def _is_attrs(tp: object) -> bool:
    return isinstance(tp, type) and attrs.has(tp)


def _union_args(tp: object) -> tuple[Any, ...] | None:
    origin = typing.get_origin(tp)
    if origin is typing.Union or origin is types.UnionType:
        return typing.get_args(tp)
    return None


def _words(values: Sequence[object]) -> str:
    return ", ".join(f"`{v}`" for v in values)


def _type_text(tp: Any) -> str:
    """A field's type in TOML terms: ``integer``, ``string: `a`, `b```, ``array of ...``."""
    if tp is bool:
        return "boolean"
    if tp is int:
        return "integer"
    if tp is float:
        return "number"
    if tp is str:
        return "string"
    if _is_attrs(tp):
        return "table"
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is Literal:
        return f"string: {_words(args)}"
    union = _union_args(tp)
    if union is not None:
        rest = [a for a in union if a is not type(None)]
        if len(rest) == 1:
            return f"{_type_text(rest[0])} (optional)"
        return " or ".join(_type_text(a) for a in rest)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        item = args[0]
        if _is_attrs(item):
            return "array of tables"
        inner = _type_text(item)
        if inner.startswith("string: "):
            return f"array of strings: {inner[len('string: ') :]}"
        return f"array of {inner}s"
    if origin is tuple:
        return "array"
    if origin is dict:
        inner = _type_text(args[1])
        return f"table of {inner}" if inner.startswith("array") else f"table of {inner}s"
    return str(tp)  # pragma: no cover - a type this page does not know yet


def _plain(value: Any) -> Any:
    if _is_attrs(type(value)):
        return {f.name: _plain(getattr(value, f.name)) for f in attrs.fields(type(value))}
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _toml_key(key: str) -> str:
    return key if _BARE_KEY.match(key) else json.dumps(key, ensure_ascii=False)


def _inline(value: Any) -> str:
    """A plain value as inline TOML."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, Mapping):
        if not value:
            return "{}"
        return "{ " + ", ".join(f"{_toml_key(k)} = {_inline(v)}" for k, v in value.items()) + " }"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_inline(v) for v in value) + "]"
    raise TypeError(f"no TOML for {value!r}")  # pragma: no cover


def _non_default(value: Any) -> dict[str, Any]:
    """An attrs instance as plain data, leaving out the fields equal to their default."""
    out: dict[str, Any] = {}
    for f in attrs.fields(type(value)):
        current = getattr(value, f.name)
        default = _resolve_default(f.default)
        if default is attrs.NOTHING or current != default:
            if isinstance(current, tuple) and current and _is_attrs(type(current[0])):
                out[f.name] = [_non_default(v) for v in current]
            else:
                out[f.name] = _plain(current)
    return out


def toml_document(rules: RuleSet) -> str:
    """A RuleSet as a compact TOML document: every key, one line each, inline arrays.

    >>> from cambio.loading import ruleset_from_toml
    >>> ruleset_from_toml(toml_document(RuleSet())) == RuleSet()
    True
    """
    data = ruleset_to_dict(rules)
    lines = [f"{_toml_key(k)} = {_inline(v)}" for k, v in data.items() if not isinstance(v, dict)]
    for name, table in data.items():
        if not isinstance(table, dict):
            continue
        lines += ["", f"[{name}]"]
        arrays: list[tuple[str, list[Any]]] = []
        for key, value in table.items():
            if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
                arrays.append((key, value))
            else:
                lines.append(f"{_toml_key(key)} = {_inline(value)}")
        for key, items in arrays:
            for item in items:
                lines += ["", f"[[{name}.{key}]]"]
                lines += [f"{_toml_key(k)} = {_inline(v)}" for k, v in item.items()]
    return "\n".join(lines) + "\n"


INLINE_LIMIT = 48
"""A default longer than this (as inline TOML) is shown in a block under its section."""


# ---------------------------------------------------------------------------------------
# The keys


@attrs.frozen
class DocKey:
    """One key of the reference.

    ``path`` is the dotted TOML path (``snap.when``; ``[]`` marks each element of an
    array: ``powers.table[].steps[].scope``), ``section`` the top-level table it belongs
    to (``""`` for top-level keys), ``default`` the default as inline TOML (``""`` for a
    required key), ``block`` a longer default as a TOML snippet, ``meaning`` Markdown.
    """

    path: str
    section: str
    type: str
    default: str
    block: str
    meaning: str


def _default_of(field: attrs.Attribute[Any]) -> Any:
    """A field's default value (a factory is called; ``attrs.NOTHING`` when required)."""
    return _resolve_default(field.default)


def _resolve_default(default: Any) -> Any:
    factory = getattr(default, "factory", None)
    if callable(factory) and not getattr(default, "takes_self", False):
        return factory()
    return default


def _block(path: str, value: Any) -> str:
    """A TOML snippet that sets ``path`` (a field of a top-level table) to ``value``."""
    table, _, key = path.replace("[]", "").rpartition(".")
    if isinstance(value, tuple) and value and _is_attrs(type(value[0])):
        chunks = []
        for item in value:
            lines = [f"[[{table}.{key}]]"]
            lines += [f"{k} = {_inline(v)}" for k, v in _non_default(item).items()]
            chunks.append("\n".join(lines))
        return "\n\n".join(chunks)
    return f"[{table}]\n{key} = {_inline(_plain(value))}"


def _meaning(path: str, owner: str, name: str, source: _Source) -> str | None:
    doc = source.field_docs.get(owner, {}).get(name)
    if doc:
        return _markdown(doc)
    return NOTES.get(path)


def _walk(
    cls: type, prefix: str, section: str, source: _Source, values: object
) -> Iterator[DocKey]:
    """The keys of ``cls`` under ``prefix``; defaults are read from ``values`` when it is
    an instance (a section's default), else from the class's own field defaults."""
    hints = typing.get_type_hints(cls)
    for field in attrs.fields(cls):
        path = f"{prefix}{field.name}"
        tp = hints[field.name]
        meaning = _meaning(path, cls.__name__, field.name, source)
        if meaning is None:
            raise MissingMeaningError(path)
        if isinstance(values, cls):
            default_value = getattr(values, field.name)
        else:
            default_value = _default_of(field)
        union = _union_args(tp)
        inner = next((a for a in union if a is not type(None)), tp) if union else tp
        args = typing.get_args(inner)
        element = args[0] if typing.get_origin(inner) is tuple and args else None

        default = block = ""
        if default_value is attrs.NOTHING:
            default = "required"
        elif default_value is None:
            default = "absent"
        elif not _is_attrs(type(default_value)):
            text = _inline(_plain(default_value))
            if len(text) > INLINE_LIMIT or (
                isinstance(default_value, tuple) and default_value and _is_attrs(element)
            ):
                default, block = "see below", _block(path, default_value)
            else:
                default = text
        yield DocKey(path, section, _type_text(tp), default, block, meaning)

        if _is_attrs(inner):
            yield from _walk(inner, f"{path}.", section, source, default_value)
        elif element is not None and _is_attrs(element):
            yield from _walk(element, f"{path}[].", section, source, None)


def _sections() -> list[tuple[str, type]]:
    hints = typing.get_type_hints(RuleSet)
    return [(f.name, hints[f.name]) for f in attrs.fields(RuleSet) if _is_attrs(hints[f.name])]


def reference_keys() -> list[DocKey]:
    """Every key a profile may set, in schema order, ``extends`` first.

    Raises :class:`MissingMeaningError` naming every key without a meaning.
    """
    source = _read_source()
    keys = [DocKey("extends", "", "string", "", "", NOTES["extends"])]
    hints = typing.get_type_hints(RuleSet)
    missing: list[str] = []
    for field in attrs.fields(RuleSet):
        tp = hints[field.name]
        try:
            if _is_attrs(tp):
                keys += _walk(tp, f"{field.name}.", field.name, source, _default_of(field))
            else:
                meaning = _meaning(field.name, "RuleSet", field.name, source)
                if meaning is None:
                    raise MissingMeaningError(field.name)
                default = _inline(_plain(_default_of(field)))
                keys.append(DocKey(field.name, "", _type_text(tp), default, "", meaning))
        except MissingMeaningError as error:
            missing.append(str(error))
    if missing:
        raise MissingMeaningError(
            "no meaning for "
            + ", ".join(missing)
            + ": add a docstring after the field in src/cambio/rules.py (or a note in "
            "cambio._reference.NOTES)"
        )
    paths = {k.path for k in keys}
    stale = sorted(set(NOTES) - paths)
    if stale:
        raise MissingMeaningError(f"NOTES names keys that do not exist: {', '.join(stale)}")
    return keys


def field_meanings() -> dict[tuple[str, str], str]:
    """What each field of the :mod:`cambio.rules` classes means, by ``(class, field)``.

    The text is the reference page's (the field's docstring, else its note in
    :data:`NOTES`), in Markdown; a section of :class:`~cambio.rules.RuleSet` is
    described by the first line of its class's docstring. The API reference shows these
    beside fields whose source carries no docstring. A class reached by several key paths
    takes the first one's meaning.

    >>> meanings = field_meanings()
    >>> meanings[("SnapRules", "when")].startswith("When a player may snap")
    True
    >>> meanings[("RuleSet", "snap")]
    'The `[snap]` table: snapping (sticking): throwing a grid card that matches the top discard.'
    """
    meanings = {key.path: key.meaning for key in reference_keys()}
    found: dict[tuple[str, str], str] = {}

    def visit(cls: type, prefix: str) -> None:
        hints = typing.get_type_hints(cls)
        for field in attrs.fields(cls):
            path = f"{prefix}{field.name}"
            tp = hints[field.name]
            union = _union_args(tp)
            inner = next((a for a in union if a is not type(None)), tp) if union else tp
            args = typing.get_args(inner)
            element = args[0] if typing.get_origin(inner) is tuple and args else None
            if path in meanings:
                found.setdefault((cls.__name__, field.name), meanings[path])
            elif _is_attrs(inner):
                first = _markdown(inspect.getdoc(inner) or "").split(". ")[0].rstrip(".")
                first = first[:1].lower() + first[1:]
                found.setdefault((cls.__name__, field.name), f"The `[{path}]` table: {first}.")
            if _is_attrs(inner):
                visit(inner, f"{path}.")
            elif element is not None and _is_attrs(element):
                visit(element, f"{path}[].")

    visit(RuleSet, "")
    return found


# ---------------------------------------------------------------------------------------
# The reference page

_GENERATED = "<!-- Generated by `{command}` from {source}. Do not edit by hand. -->"

_INTRO = """\
# RuleSet reference

Every key a table may set, with its TOML path, its type, its default and what it
does. A profile is a TOML file with exactly this shape; in Python the same key is an
attribute path on a `RuleSet` (`snap.when` is `rules.snap.when`). This page is
generated from the attrs classes in `cambio.rules`, so it always matches the code.

How to read it:

- A **path** names a key by its tables: `players.min` is `min` under `[players]`.
  `[]` marks each element of an array of tables: `powers.table[].ranks` is the
  `ranks` key of every `[[powers.table]]` entry, and
  `powers.table[].steps[].scope` the `scope` of each of its steps.
- A **type** is a TOML type. A string with listed words accepts only those words.
- A **default** is what a key is when no file sets it. A profile that `extends`
  another starts from that profile's values instead, and changes only what it sets.
- Loading is strict: a wrong type, an unknown key or a word not in the list is an
  error that names the file and the key's path, and every mistake is reported at
  once (`cambio validate FILE`). A misspelt key, rank or profile name is answered
  with the closest known one (`did you mean Joker?`).
"""


def _table(keys: Sequence[DocKey]) -> list[str]:
    lines = ["| key | type | default | meaning |", "|---|---|---|---|"]
    for k in keys:
        anchor = f'<a id="{k.path}"></a>'
        default = (
            k.default if k.default in ("required", "see below", "absent") else f"`{k.default}`"
        )
        default = default or "\u2014"
        lines.append(
            f"| {anchor}`{k.path}` | {_cell(k.type)} | {_cell(default)} | {_cell(k.meaning)} |"
        )
    return lines


def _limits_markdown() -> list[str]:
    """The section on the ceilings :func:`cambio.check_rules` enforces."""
    out = [
        "## Limits",
        "",
        "A table is also refused when playing it would cost too much memory or time: the",
        "validator checks these ceilings (each error names the key to change), so every",
        "table `cambio validate` accepts deals and plays with a bounded action space.",
        "Each ceiling lies well above what a real table needs (the last column) and well",
        "below what would exhaust a machine. The action space counts, per seat, the",
        "simple actions, the opening-peek choices, a replace, peek, snap and give per",
        "position, a swap per pair of cards on the table, and with",
        "[`turn.exchange_equal`](#turn.exchange_equal) or",
        "[`snap.several`](#snap.several) one id per subset of a player's positions: so",
        "those two switches allow only small grids (2 to the power of",
        "`grid.rows` + `grid.extra` ids each). Its error names the switch; an error on",
        "the legal actions of one decision names the key whose decision is largest.",
        "",
        "| key | at most | what is counted | real tables |",
        "|---|---|---|---|",
    ]
    for limit in rules_module.LIMITS:
        key = limit.key if limit.key.startswith("(") else f"`{limit.key}`"
        out.append(f"| {key} | {limit.ceiling:,} | {_cell(limit.measures)} | {_cell(limit.real)} |")
    return out


def reference_markdown() -> str:
    """The whole ``docs/reference.md`` page."""
    source = _read_source()
    keys = reference_keys()
    default_table = toml_document(RuleSet())
    if ruleset_from_toml(default_table) != RuleSet():  # pragma: no cover - a writer bug
        raise AssertionError("the default table does not read back as RuleSet()")
    out = [
        _GENERATED.format(command=REGENERATE, source="src/cambio/rules.py"),
        "",
        _INTRO,
        "## Top-level keys",
        "",
        *_table([k for k in keys if not k.section]),
    ]
    for name, cls in _sections():
        out += ["", f"## {name}", ""]
        intro = _markdown(source.class_docs.get(cls.__name__, ""))
        if intro:
            out += [intro, ""]
        section = [k for k in keys if k.section == name]
        out += _table(section)
        for k in section:
            if k.block:
                out += ["", f"Default of `{k.path}`:", "", "```toml", k.block, "```"]

    out += ["", *_limits_markdown()]
    out += ["", "## Words in the power table and the tie-break chain", ""]
    for alias, title in (
        ("PeekScope", "Peek scopes (`powers.table[].steps[].scope` of a peek)"),
        ("SwapScope", "Swap scopes (`powers.table[].steps[].scope` of a swap)"),
        ("TieBreak", "Tie-break steps (`scoring.tie_break`)"),
    ):
        words = typing.get_args(getattr(rules_module, alias))
        out += [f"### {title}", "", f"One of {_words(words)}.", ""]
        doc = source.alias_docs.get(alias, "")
        out += [_markdown(paragraph) + "\n" for paragraph in doc.split("\n\n") if paragraph]

    out += [
        "## The whole default table",
        "",
        "`RuleSet()` with every key written out: the practice table under the name",
        "`custom`. A good start for a table that extends nothing.",
        "",
        "```toml",
        default_table.rstrip("\n"),
        "```",
        "",
    ]
    return "\n".join(out)


# ---------------------------------------------------------------------------------------
# Profile pages


def _profile_files() -> dict[str, str]:
    """Each bundled profile's name and its TOML text."""
    return {name: entry.read_text(encoding="utf-8-sig") for name, entry in _bundled().items()}


def _header(text: str) -> list[str]:
    """The comment block that opens a TOML file, without the ``#`` marks."""
    lines: list[str] = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        lines.append(line[2:] if line.startswith("# ") else line[1:])
    return lines


def _blocks(lines: Sequence[str]) -> list[list[str]]:
    blocks: list[list[str]] = [[]]
    for line in lines:
        if line.strip():
            blocks[-1].append(line)
        elif blocks[-1]:
            blocks.append([])
    return [b for b in blocks if b]


@attrs.frozen
class _Item:
    """One ``- `` item of a header block: its text, and any lines indented as code."""

    text: str
    code: tuple[str, ...] = ()


def _split_items(block: Sequence[str]) -> tuple[str, list[_Item]]:
    """A block's lead text and its ``- `` items (continuation lines joined; lines
    indented by four spaces or more are kept apart as the item's code)."""
    lead: list[str] = []
    items: list[_Item] = []
    for line in block:
        if line.startswith("- "):
            items.append(_Item(line[2:].strip()))
        elif items and line.startswith("    "):
            items[-1] = attrs.evolve(items[-1], code=(*items[-1].code, line))
        elif items and line.startswith(" "):
            items[-1] = attrs.evolve(items[-1], text=f"{items[-1].text} {line.strip()}")
        else:
            lead.append(line.strip())
    return " ".join(lead), items


_TOML_LINE = re.compile(r"^\s*(\[.*\]|[\w.-]+\s*=.*)$")


def _item_lines(items: Sequence[_Item], profiles: Sequence[str]) -> list[str]:
    """Markdown for a list of header items; an item's code becomes a fenced block."""
    out: list[str] = []
    for item in items:
        out.append(f"- {_decorate(item.text, profiles)}")
        if item.code:
            indent = min(len(line) - len(line.lstrip()) for line in item.code)
            language = "toml" if all(_TOML_LINE.match(line) for line in item.code) else "text"
            out += ["", f"    ```{language}"]
            out += [f"    {line[indent:]}" for line in item.code]
            out += ["    ```", ""]
    return [*out, ""] if items else []


@functools.cache
def _key_paths() -> frozenset[str]:
    return frozenset(k.path for k in reference_keys())


_KEY_PATH = re.compile(r"(?<![\w.`/-])([a-z]+)\.([a-z_]+)(\.[A-Za-z0-9_]+)?(?![\w`/-])")
_SEE_FILE = re.compile(r"\(see ([a-z0-9-]+)\.toml\)")


def _decorate(text: str, profiles: Sequence[str]) -> str:
    """Key paths become links to the reference, ``(see x.toml)`` a link to x's page."""
    known = _key_paths()

    def key(match: re.Match[str]) -> str:
        anchor = f"{match.group(1)}.{match.group(2)}"
        if anchor not in known:  # "snap.toml" is a file name, not a key
            return match.group(0)
        return f"[`{match.group(0)}`](../reference.md#{anchor})"

    def see(match: re.Match[str]) -> str:
        name = match.group(1)
        return f"(see [{name}]({name}.md))" if name in profiles else match.group(0)

    parts = text.split("`")
    for i in range(0, len(parts), 2):  # outside inline code only
        parts[i] = _SEE_FILE.sub(see, _KEY_PATH.sub(key, parts[i]))
    return "`".join(parts)


_SECTIONS = (
    (
        "Decisions",
        "## Decisions",
        "Where the source was silent or contradicted itself, this profile decides:",
    ),
    ("Mapping choices", "## How it maps onto the RuleSet", ""),
)


def _position_lines(items: Sequence[_Item], profiles: Sequence[str], name: str) -> list[str]:
    """The ``Positions:`` block of a header: each item's words, its written position (the
    item's code line) and the drawing ``cambio show`` makes of it under the profile."""
    from .position import describe, read_position

    out = [
        "## In play: written positions",
        "",
        "Moments of a round on this table, each written as a [position](../positions.md) "
        f"and drawn as `cambio show POSITION --variant {name}` draws it.",
        "",
    ]
    rules = load_ruleset(name)
    for item in items:
        text = " ".join(line.strip() for line in item.code)
        picture = describe(read_position(rules, text))
        out += [
            f"- {_decorate(item.text, profiles)}",
            "",
            "    ```text",
            f"    {text}",
            "    ```",
            "",
        ]
        out += ["    ```text", *(f"    {line}".rstrip() for line in picture.splitlines())]
        out += ["    ```", ""]
    return out


def _header_markdown(
    lines: Sequence[str], profiles: Sequence[str], name: str = ""
) -> tuple[str, list[str]]:
    """The title line's description and the rest of the header as Markdown.

    A block that starts ``Positions:`` lists moments of play, each item with its
    written position indented below it (a profile's ``name`` is needed to draw them).
    """
    blocks = _blocks(lines)
    if not blocks:
        return "", []
    title = " ".join(line.strip() for line in blocks[0])
    description = title.split(":", 1)[1].strip() if ":" in title else title
    out: list[str] = []
    for block in blocks[1:]:
        lead, items = _split_items(block)
        heading = next((s for s in _SECTIONS if lead.startswith(s[0])), None)
        if lead.startswith("Positions") and items and name:
            out += _position_lines(items, profiles, name)
        elif heading is not None:
            out += [heading[1], ""]
            rest = lead.split(":", 1)[1].strip() if ":" in lead else ""
            if items:
                if heading[2]:
                    out += [heading[2], ""]
                if rest:
                    out += [_decorate(rest[:1].upper() + rest[1:], profiles), ""]
                out += _item_lines(items, profiles)
            else:
                out += [_decorate(rest[:1].upper() + rest[1:] or "None.", profiles), ""]
        elif lead.startswith("Source:"):
            source = lead[len("Source:") :].strip()
            out += ["## Source", "", _decorate(source[:1].upper() + source[1:], profiles), ""]
            out += _item_lines(items, profiles)
        else:
            if lead:
                out += [_decorate(lead, profiles), ""]
            out += _item_lines(items, profiles)
    return description, out


def _parent(text: str) -> str | None:
    parent = tomllib.loads(text).get("extends")
    return parent if isinstance(parent, str) else None


def profile_markdown(name: str, text: str | None = None) -> str:
    """The page of one bundled profile (``docs/profiles/NAME.md``)."""
    files = _profile_files()
    if text is None:
        text = files[name]
    profiles = list(files)
    rules = load_ruleset(name)
    description, body = _header_markdown(_header(text), profiles, name)
    parent = _parent(text)
    out = [
        _GENERATED.format(command=REGENERATE, source=f"variants/{name}.toml"),
        "",
        f"# {name}",
        "",
    ]
    if description:
        out += [f"*{description[:1].upper()}{description[1:]}*", ""]
    if rules.summary:
        out += [f"> {rules.summary}", ""]
    lines = [f'Load it with `cambio.load_ruleset("{name}")`; print it with `cambio rules {name}`.']
    if parent is not None:
        link = f"[{parent}]({parent}.md)" if parent in files else f"`{parent}`"
        lines.insert(0, f"Extends {link}.")
    out += [" ".join(lines), "", *body]

    base_name = parent if parent is not None else (FIRST_PROFILE if name != FIRST_PROFILE else None)
    if base_name is not None:
        base = load_ruleset(base_name) if parent is None or parent in files else None
        if base is not None:
            what = "its parent" if parent is not None else "the default table"
            out += [f"## How it differs from {what}, {base_name}", ""]
            rows = diff_rows(base, rules)
            if rows:
                out += [f"| rule | {base_name} | {name} |", "|---|---|---|"]
                out += [f"| {_cell(r.label)} | {_cell(r.a)} | {_cell(r.b)} |" for r in rows]
            else:
                out.append("No difference in play.")
            out.append("")
    out += [
        "## Quick reference",
        "",
        "Every line below is computed from the profile's RuleSet (`cambio rules "
        f"{name}` prints the same).",
        "",
        "```text",
        quick_reference(rules).rstrip("\n"),
        "```",
        "",
    ]
    return "\n".join(out)


def _families(files: Mapping[str, str]) -> list[tuple[str, list[str]]]:
    """The top-level profiles, each with the profiles that extend it (file order)."""
    parents = {name: _parent(text) for name, text in files.items()}
    roots = [n for n, p in parents.items() if p is None or p not in files]
    roots.sort(key=lambda n: (n != FIRST_PROFILE, n))
    return [(root, [n for n, p in parents.items() if p == root]) for root in roots]


def profiles_index_markdown() -> str:
    """The ``docs/profiles/index.md`` page: every bundled profile, grouped by parent."""
    files = _profile_files()
    out = [
        _GENERATED.format(command=REGENERATE, source="variants/*.toml"),
        "",
        "# Profiles",
        "",
        "The tables bundled with cambio-rules. Load one by name with",
        '`cambio.load_ruleset("NAME")`, print it with `cambio rules NAME`, compare two with',
        "`cambio diff A B`. Each page opens with the profile's own notes: where its rules",
        "come from, the decisions it takes where its source was silent or contradicted",
        "itself, and how it maps onto the [RuleSet](../reference.md); then how it differs",
        "from its parent, and its quick reference.",
        "",
        "| profile | extends | what it is |",
        "|---|---|---|",
    ]
    for root, children in _families(files):
        for name in (root, *children):
            parent = _parent(files[name]) or ""
            parent_cell = f"[{parent}]({parent}.md)" if parent in files else parent
            summary = load_ruleset(name).summary
            out.append(f"| [{name}]({name}.md) | {parent_cell} | {_cell(summary)} |")
    out.append("")
    return "\n".join(out)


def readme_profiles(text: str) -> str:
    """``README.md`` with the table of profiles between the markers rewritten.

    One row per profile in ``variants/`` (grouped by parent as in the profile index),
    each linking to its page, with its parent and its summary.
    """
    lines = text.splitlines()
    try:
        begin = next(i for i, line in enumerate(lines) if line.strip() == README_BEGIN)
        end = next(i for i, line in enumerate(lines) if line.strip() == README_END)
    except StopIteration:
        raise ValueError(f"README.md needs the lines {README_BEGIN!r} and {README_END!r}") from None
    files = _profile_files()
    table = ["| profile | extends | what it is |", "|---|---|---|"]
    for root, children in _families(files):
        for name in (root, *children):
            parent = _parent(files[name]) or ""
            parent_cell = f"`{parent}`" if parent else ""
            summary = _cell(load_ruleset(name).summary)
            table.append(f"| [`{name}`](docs/profiles/{name}.md) | {parent_cell} | {summary} |")
    return "\n".join([*lines[: begin + 1], *table, *lines[end:]]) + "\n"


def _nav_lines(indent: str) -> list[str]:
    files = _profile_files()
    lines = [f"{indent}- profiles/index.md"]
    for root, children in _families(files):
        for name in (root, *children):
            lines.append(f"{indent}- {name}: profiles/{name}.md")
    return lines


def mkdocs_nav(text: str) -> str:
    """``mkdocs.yml`` with the profile pages between the markers rewritten."""
    lines = text.splitlines()
    try:
        begin = next(i for i, line in enumerate(lines) if line.strip() == NAV_BEGIN)
        end = next(i for i, line in enumerate(lines) if line.strip() == NAV_END)
    except StopIteration:
        raise ValueError(f"mkdocs.yml needs the lines {NAV_BEGIN!r} and {NAV_END!r}") from None
    indent = lines[begin][: len(lines[begin]) - len(lines[begin].lstrip())]
    return "\n".join([*lines[: begin + 1], *_nav_lines(indent), *lines[end:]]) + "\n"


def generated_pages() -> dict[str, str]:
    """Every generated page: its path under ``docs/`` and its text."""
    pages = {"reference.md": reference_markdown(), "profiles/index.md": profiles_index_markdown()}
    for name, text in _profile_files().items():
        pages[f"profiles/{name}.md"] = profile_markdown(name, text)
    return pages


def write_pages(docs: Path, mkdocs_yml: Path | None = None) -> list[Path]:
    """Write every generated page under ``docs`` (stale profile pages are removed).

    ``mkdocs_yml`` (default: ``mkdocs.yml`` beside ``docs``) gets its nav of profile
    pages rewritten. Returns the files written or removed.
    """
    changed: list[Path] = []
    pages = generated_pages()
    for relative, text in pages.items():
        path = docs / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            changed.append(path)
    for stale in sorted((docs / "profiles").glob("*.md")):
        if f"profiles/{stale.name}" not in pages:
            stale.unlink()
            changed.append(stale)
    yml = mkdocs_yml if mkdocs_yml is not None else docs.parent / "mkdocs.yml"
    readme = docs.parent / "README.md"
    for path, rewrite in ((yml, mkdocs_nav), (readme, readme_profiles)):
        if path.exists():
            old = path.read_text(encoding="utf-8")
            if path == readme and README_BEGIN not in old:
                continue
            new = rewrite(old)
            if new != old:
                path.write_text(new, encoding="utf-8")
                changed.append(path)
    return changed


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m cambio._reference [--write DOCS]``."""
    parser = argparse.ArgumentParser(
        prog="python -m cambio._reference",
        description="Print the RuleSet reference page, or write every generated page.",
    )
    parser.add_argument(
        "--write",
        metavar="DOCS",
        type=Path,
        help="write reference.md and profiles/*.md under DOCS (and, beside DOCS, the "
        "mkdocs.yml nav and the README's table of profiles)",
    )
    args = parser.parse_args(argv)
    if args.write is None:
        sys.stdout.write(reference_markdown())
        return 0
    for path in write_pages(args.write):
        sys.stdout.write(f"wrote {path}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
