"""Reading rule tables: TOML profiles to :class:`~cambio.rules.RuleSet`, and back.

A profile is a TOML file with the shape of :class:`~cambio.rules.RuleSet`: one table per
concern (``[deck]``, ``[values]``, ``[powers]``, ...). The bundled profiles live in the
package's ``variants/`` folder and are loaded by name; any other file is loaded by path.

>>> rules = load_ruleset("practice")
>>> rules.name, rules.grid.size, rules.snap.when
('practice', 4, 'never')
>>> "penalty" in available_variants()
True

Structuring is strict: a string, a float or a boolean where an integer belongs is an
error, never a silent conversion; so are unknown keys and words that a field does not
list. Every problem of a file is collected into one :class:`~cambio.errors.RuleSetError`
that names the file and the dotted key path of each mistake:

>>> ruleset_from_toml('[players]\\nmax = "six"\\nmin = true\\n')
Traceback (most recent call last):
...
cambio.errors.RuleSetError: <string>: players.min: expected an integer, found the boolean true
<string>: players.max: expected an integer, found the string "six"

A file may start with ``extends = "parent"`` (a bundled name, or a path ending in
``.toml`` or holding a ``/``, relative to the file): the parent's table is merged with the
file's, key by key for tables, while arrays and single values are replaced whole. So a
child can change one card value (``[values.rank]`` with ``K = 0``) but cannot delete a
key its parent set, except through ``remove`` (below). Because a child's values are
added to its parent's, each name it gives a value must be a rank its deck can hold: a
misspelt one (``Jocker = -5``) is an error at ``values.rank.Jocker`` that names the rank
it probably means, not a new entry that leaves the joker's old value in force. A child
is named after its own file unless it sets ``name``; one that sets no ``summary`` gets
one that names its parent and the keys it changes. A problem is reported against the
file that set the offending key (or, when a child's change makes an inherited entry
wrong, against the child).

``extends`` is confined, because a rule file may come from a stranger: a parent path
must lie inside the folder of the file that extends it (compared after resolving ``..``
and symbolic links), or inside a folder the caller allows with ``search_path``. Any
other path is refused before it is read, so no error can quote a file outside those
folders. At most :data:`MAX_EXTENDS` files may stand above the one loaded.

Removing an inherited entry
---------------------------
A ``[remove]`` table takes entries out of what the file inherits (its parent's table,
or the defaults when it extends nothing). It mirrors the RuleSet's shape, and each leaf
lists what to take out of the value at that path:

* a table of values (``values.rank``, ``values.red``, ``values.black``,
  ``deck.custom``, ``scoring.placement``): the keys to delete;
* an array of words or numbers (``scoring.tie_break``, ``deck.ranks``,
  ``opening.positions``, ``scoring.combination.ranks``, ...): the entries to delete
  (every copy);
* ``powers.table``: ranks whose power is dropped (an entry left with no rank goes);
* an optional table (``scoring.combination``): ``true`` drops it.

Removal comes before the file's own keys, so a file may remove a power and add another.
Removing something that is not there is a problem reported at ``remove.<path>``.

>>> rules = ruleset_from_toml('''
... extends = "penalty"
... [remove]
... values.red = ["K"]
... powers.table = ["K"]
... scoring.tie_break = ["lower-cards"]
... ''')
>>> rules.values.red, rules.scoring.tie_break, [p.ranks for p in rules.powers.table][-1]
({}, ('not-caller', 'share'), ('J', 'Q'))

A RuleSet written with :func:`ruleset_to_toml` (or :func:`ruleset_to_dict`) and read back
is equal to the original:

>>> ruleset_from_toml(ruleset_to_toml(rules)) == rules
True
"""

from __future__ import annotations

import ast
import contextlib
import json
import os
import re
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import date, datetime, time
from pathlib import Path
from typing import Any, Literal, cast, get_args, get_origin
from typing import get_type_hints as typing_get_type_hints

import attrs
import tomli_w
from cattrs.errors import (
    AttributeValidationNote,
    BaseValidationError,
    ForbiddenExtraKeysError,
    IterableValidationNote,
)
from cattrs.gen import make_dict_structure_fn
from cattrs.preconf.tomllib import TomllibConverter, make_converter

from . import registry
from .cards import JOKER, STANDARD_RANKS
from .errors import Problem, RuleSetError, did_you_mean
from .registry import _variants_dir
from .rules import MAX_EXTENDS, DeckRules, RuleSet, check_rules

if sys.version_info >= (3, 11):
    from importlib.resources.abc import Traversable

    import tomllib
else:  # pragma: no cover
    from importlib.abc import Traversable

    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

__all__ = [
    "as_ruleset",
    "MAX_EXTENDS",
    "available_variants",
    "load_ruleset",
    "ruleset_from_dict",
    "ruleset_from_toml",
    "ruleset_to_dict",
    "ruleset_to_toml",
    "variant_summaries",
]

_Key = str | int
_KeyPath = tuple[_Key, ...]


# --------------------------------------------------------------------------- registry


def _bundled() -> dict[str, Traversable]:
    folder = _variants_dir()
    try:
        entries = list(folder.iterdir()) if folder.is_dir() else []
    except OSError:  # pragma: no cover - defensive
        entries = []
    found = {
        entry.name[: -len(".toml")]: entry
        for entry in entries
        if entry.name.endswith(".toml") and entry.is_file()
    }
    return dict(sorted(found.items()))


def as_ruleset(rules: object) -> RuleSet:
    """``rules`` itself when it is a :class:`RuleSet`, the table
    :func:`load_ruleset` loads for it when it is text (a profile's name);
    a ``TypeError`` for anything else. Every function that takes "a RuleSet or a profile
    name" reads its argument through this."""
    if isinstance(rules, RuleSet):
        return rules
    if isinstance(rules, str):
        return load_ruleset(rules)
    raise TypeError(f"expected a RuleSet or a profile name, got {rules!r}")


def available_variants() -> list[str]:
    """The names of every table found by name, sorted alphabetically: the bundled
    profiles and those from elsewhere (see :mod:`cambio.registry`).

    >>> available_variants()[:3]
    ['blind', 'cabo', 'caller-plus-five']
    """
    return registry.names()


def variant_summaries() -> dict[str, str]:
    """Each table's name (see :func:`available_variants`) and its one-line summary.

    >>> variant_summaries()["practice"].startswith("The practice table")
    True
    """
    return {name: load_ruleset(name).summary for name in available_variants()}


# --------------------------------------------------------------------------- loading


def _looks_like_path(text: str) -> bool:
    separators = {"/", os.sep, os.altsep or "/"}
    return text.endswith(".toml") or any(sep in text for sep in separators)


_Folders = Sequence[str | os.PathLike[str]]


def load_ruleset(name_or_path: str | os.PathLike[str], *, search_path: _Folders = ()) -> RuleSet:
    """Load a bundled profile by name (``"practice"``) or a TOML file by path.

    A ``str`` that ends in ``.toml`` or holds a path separator, and any
    :class:`os.PathLike`, is a path; any other string is a bundled name (see
    :func:`available_variants`). A profile that does not set ``name`` is named after its
    file. Every mistake raises :class:`~cambio.errors.RuleSetError`, and only that.

    A file's ``extends`` may name a bundled profile or a file inside the file's own
    folder; ``search_path`` lists further folders whose files may be extended (a
    relative ``extends`` path is looked up in the file's folder, then in each of them).

    >>> load_ruleset("penalty").scoring.tie_break
    ('not-caller', 'lower-cards', 'share')
    >>> load_ruleset("no-such-table")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    cambio.errors.RuleSetError: no-such-table: unknown profile "no-such-table"; ...
    """
    layer: _Layer
    if isinstance(name_or_path, os.PathLike) or _looks_like_path(str(name_or_path)):
        path = Path(os.fspath(name_or_path))
        layer = _FileLayer(path, str(path))
    else:
        name = str(name_or_path)
        layer = _named_layer(name, Problem(name, "", ""))
    table, origin, lineage, kinds = _resolve(layer, (), _folders(search_path))
    return _build(table, origin, lineage, kinds)


def ruleset_from_toml(
    text: str,
    source: str = "<string>",
    *,
    base: str | os.PathLike[str] | None = None,
    search_path: _Folders = (),
) -> RuleSet:
    """Read a RuleSet from TOML text; ``source`` names it in error messages.

    The text may extend a bundled profile. It may extend a file only inside ``base`` (the
    folder the text stands for; an ``extends`` path is relative to it) or inside a folder
    of ``search_path``: text with neither extends no file at all.

    >>> ruleset_from_toml('extends = "practice"\\n[call]\\npenalty = 10\\n').call.penalty
    10
    """
    raw = _parse_toml(text, source)
    layer = _TextLayer(raw, source, Path(base) if base is not None else None)
    table, origin, lineage, kinds = _resolve(layer, (), _folders(search_path))
    return _build(table, origin, lineage, kinds)


def _folders(search_path: _Folders) -> tuple[Path, ...]:
    """The allowed extra folders, resolved (a single path is one folder, not letters)."""
    if isinstance(search_path, (str, os.PathLike)):
        search_path = [search_path]
    out: list[Path] = []
    for folder in search_path:
        try:
            out.append(Path(os.fspath(folder)).resolve())
        except (OSError, RuntimeError, TypeError, ValueError):
            continue  # a folder that cannot be resolved allows nothing
    return tuple(out)


def ruleset_from_dict(data: Mapping[str, Any], source: str = "<dict>") -> RuleSet:
    """Read a RuleSet from the plain form :func:`ruleset_to_dict` writes (for example JSON).

    The same strict checks as for TOML apply; ``extends`` is not allowed here.

    >>> rules = load_ruleset("snap")
    >>> ruleset_from_dict(ruleset_to_dict(rules)) == rules
    True
    """
    if not isinstance(data, Mapping):
        raise RuleSetError([Problem(source, "", f"expected a table, found {_found(data)}")])
    return _build(dict(data), {}, (source,))


def ruleset_to_dict(rules: RuleSet) -> dict[str, Any]:
    """The RuleSet as plain, JSON-compatible data: every field, arrays as lists.

    An absent ``scoring.combination`` is left out rather than written as ``null``.

    >>> ruleset_to_dict(load_ruleset("practice"))["grid"]
    {'rows': [2, 2], 'extra': 4}
    """
    return cast(dict[str, Any], _plain(_converter.unstructure(rules, RuleSet)))


def ruleset_to_toml(rules: RuleSet) -> str:
    """The RuleSet as a complete TOML document (every field explicit, no ``extends``).

    >>> print(ruleset_to_toml(load_ruleset("practice")).splitlines()[0])
    name = "practice"
    """
    return tomli_w.dumps(ruleset_to_dict(rules))


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


# --------------------------------------------------------------------------- reading files


def _read_text(path: Path, label: str) -> str:
    def fail(message: str) -> RuleSetError:
        return RuleSetError([Problem(label, "", message)])

    if path.is_dir():
        raise fail("is a directory, not a TOML file")
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise fail("no such file") from None
    except IsADirectoryError:  # pragma: no cover - caught by is_dir above
        raise fail("is a directory, not a TOML file") from None
    except OSError as exc:
        raise fail(f"cannot read the file: {exc.strerror or exc}") from None
    return _decode(data, label)


def _decode(data: bytes, label: str) -> str:
    if b"\x00" in data:
        at = data.index(b"\x00")
        raise RuleSetError(
            [Problem(label, "", f"binary data, not a TOML text file (a NUL byte at offset {at})")]
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise RuleSetError(
            [
                Problem(
                    label,
                    "",
                    f"not UTF-8 text: byte 0x{data[exc.start]:02x} at offset {exc.start} "
                    f"(line {line}) cannot be decoded; TOML files must be UTF-8",
                )
            ]
        ) from None
    return text


def _parse_toml(text: str, label: str) -> dict[str, Any]:
    try:
        table: dict[str, Any] = tomllib.loads(text.removeprefix("\ufeff"))
        return table
    except tomllib.TOMLDecodeError as exc:
        message = f"invalid TOML: {exc}"
        if "(at end of document)" in message:
            # name the place as a line and column like every other syntax error
            body = text.removeprefix("\ufeff")
            lines = body.split("\n")
            where = f"(at end of document, line {len(lines)}, column {len(lines[-1]) + 1})"
            message = message.replace("(at end of document)", where)
    except (ValueError, RecursionError) as exc:  # huge integers, absurd nesting
        message = f"invalid TOML: {exc}"
    raise RuleSetError([Problem(label, "", message)])


# --------------------------------------------------------------------------- extends


@attrs.frozen
class _FileLayer:
    path: Path
    label: str
    name: str = ""  # the bundled name, when loaded by name


@attrs.frozen
class _BundledLayer:
    entry: Traversable
    name: str


@attrs.frozen
class _TextLayer:
    raw: dict[str, Any]
    label: str
    folder: Path | None  # None: text that stands for no folder


_Layer = _FileLayer | _BundledLayer | _TextLayer


def _named_layer(name: str, at: Problem) -> _Layer:
    found = registry.lookup(name, at.source, at.path)
    if found is None:
        known = registry.names()
        names = ", ".join(known) or "(none found)"
        message = f"unknown profile {json.dumps(name)}; the profiles are: {names}"
        hint = did_you_mean(name, known)
        raise RuleSetError([Problem(at.source or name, at.path, _hinted(message, hint))])
    entry = found.entry
    if isinstance(entry, Path):
        return _FileLayer(entry, str(entry), name)
    return _BundledLayer(entry, name)  # pragma: no cover - only inside a zipped install


def _identity(layer: _Layer) -> str:
    if isinstance(layer, _FileLayer):
        try:
            return str(layer.path.resolve())
        except OSError:  # pragma: no cover - defensive
            return str(layer.path.absolute())
    if isinstance(layer, _BundledLayer):
        return f"bundled:{layer.name}"
    return f"text:{layer.label}"


def _read_layer(layer: _Layer) -> tuple[dict[str, Any], str, str]:
    """The raw table of one layer, its label for messages, and its default name."""
    if isinstance(layer, _FileLayer):
        text = _read_text(layer.path, layer.label)
        return _parse_toml(text, layer.label), layer.label, layer.name or layer.path.stem
    if isinstance(layer, _BundledLayer):  # pragma: no cover - only inside a zipped install
        label = f"cambio/variants/{layer.name}.toml"
        try:
            data = layer.entry.read_bytes()
        except OSError as exc:
            raise RuleSetError([Problem(label, "", f"cannot read the file: {exc}")]) from None
        return _parse_toml(_decode(data, label), label), label, layer.name
    return layer.raw, layer.label, ""


def _inside(path: Path, folders: Sequence[Path]) -> bool:
    """Whether ``path``, with ``..`` and symbolic links resolved, lies inside a folder."""
    try:
        real = path.resolve()
    except (OSError, RuntimeError, ValueError):  # a link loop, an unreadable part
        return False
    return any(real.is_relative_to(folder) for folder in folders)


def _parent_layer(spec: str, child: _Layer, label: str, allowed: tuple[Path, ...]) -> _Layer:
    """The layer ``extends = spec`` names, confined to the child's folder and ``allowed``."""
    if not _looks_like_path(spec):
        return _named_layer(spec, Problem(label, "extends", ""))
    if isinstance(child, _BundledLayer):  # pragma: no cover - only inside a zipped install
        entry = _variants_dir().joinpath(*spec.split("/"))
        return _BundledLayer(entry, spec.removesuffix(".toml"))
    own = child.path.parent if isinstance(child, _FileLayer) else child.folder
    roots: list[Path] = []
    if own is not None:
        with contextlib.suppress(OSError, RuntimeError, ValueError):
            roots.append(own.resolve())
    roots += [folder for folder in allowed if folder not in roots]

    def fail(message: str) -> RuleSetError:
        return RuleSetError([Problem(label, "extends", message)])

    if "\x00" in spec:
        raise fail("expected a profile name or a .toml path, found a NUL character")
    if Path(spec).is_absolute():
        candidates = [Path(spec)]
    else:  # the child's folder first, then each allowed folder
        candidates = [base / spec for base in ([own] if own is not None else []) + list(allowed)]
    inside = [path for path in candidates if _inside(path, roots)]
    shown = json.dumps(spec if len(spec) <= 80 else spec[:77] + "...", ensure_ascii=False)
    for path in inside:
        try:
            if path.is_file():  # read the very file that was checked, not a link to it
                return _FileLayer(path.resolve(), str(path))
        except OSError as exc:  # a name too long, a folder that cannot be searched
            raise fail(f"the parent file {shown} cannot be read: {exc.strerror}") from None
    if not inside:
        where = [f"the folder of this file ({own})"] if own is not None else []
        where += [f"the allowed folder {folder}" for folder in allowed]
        raise fail(
            f"the parent file {shown} lies outside "
            + (" and ".join(where) if where else "every allowed folder (none was given)")
            + "; extend a bundled profile or a file inside the file's folder, or allow "
            "another folder with search_path (cambio validate --allow-dir)"
        )
    path = inside[0]
    what = "is a directory" if path.is_dir() else "does not exist"
    raise fail(f"the parent file {shown} ({path}) {what}")


_Origin = dict[tuple[str, ...], str]
_Kinds = dict[str, frozenset[str]]
"""Each file's label and the rank names of its deck's kind (see :func:`_deck_kind`)."""


def _deck_kind(table: Mapping[str, Any]) -> frozenset[str]:
    """The rank names a raw table's deck can hold: the keys of ``deck.custom``, or the
    standard ranks and the joker."""
    deck = table.get("deck")
    custom = deck.get("custom") if isinstance(deck, Mapping) else None
    if isinstance(custom, Mapping) and custom:
        return frozenset(str(rank) for rank in custom)
    return frozenset((*STANDARD_RANKS, JOKER))


def _resolve(
    layer: _Layer, chain: tuple[tuple[str, str], ...], allowed: tuple[Path, ...]
) -> tuple[dict[str, Any], _Origin, tuple[str, ...], _Kinds]:
    """The merged raw table of ``layer`` and its ancestors, who set each key, the
    labels of the files from ``layer`` (first) up to its furthest ancestor, and the
    rank names of the deck each of those files ends with.

    ``chain`` holds the identity and label of every file below this one; ``allowed`` the
    extra folders a parent file may lie in.
    """
    raw, label, default_name = _read_layer(layer)
    ident = _identity(layer)
    chain = (*chain, (ident, label))
    own = dict(raw)
    spec = own.pop("extends", None)
    ancestors: tuple[str, ...] = ()
    kinds: _Kinds = {}
    if spec is None:
        table: dict[str, Any] = {}
        origin: _Origin = {}
    else:
        if not isinstance(spec, str):
            expected = "expected a string (a profile name or a .toml path)"
            problem = Problem(label, "extends", f"{expected}, found {_found(spec)}")
            raise RuleSetError([problem])
        parent = _parent_layer(spec, layer, label, allowed)
        parent_ident = _identity(parent)
        if any(parent_ident == seen for seen, _ in chain):
            names = " -> ".join([*(lbl for _, lbl in chain), _layer_label(parent)])
            raise RuleSetError(
                [Problem(label, "extends", f"profiles extend each other in a cycle: {names}")]
            )
        if len(chain) > MAX_EXTENDS:
            message = (
                f"more than {MAX_EXTENDS} files stand above this one in its chain of extends "
                f"(at most {MAX_EXTENDS} allowed; the chain was cut at {label})"
            )
            raise RuleSetError([Problem(chain[0][1], "extends", message)])
        table, origin, ancestors, kinds = _resolve(parent, chain, allowed)
        parent_name = table.get("name", ancestors[0])
        if "summary" not in own:
            changed = ", ".join(sorted(_leaf_paths(own) - {"name"})) or "nothing"
            table["summary"] = f"{parent_name} with changes to: {changed}"
            origin[("summary",)] = label
    if "name" not in own and default_name:
        own["name"] = default_name
    elif "name" not in own:
        table.pop("name", None)
    removal = own.pop("remove", None)
    if removal is not None:
        table = _removed(table, origin, removal, label)
    _merge_into(table, own, origin, label, ())
    kinds[label] = _deck_kind(table)
    return table, origin, (label, *ancestors), kinds


def _removed(table: dict[str, Any], origin: _Origin, removal: Any, label: str) -> dict[str, Any]:
    """``table`` made complete (every default written out) minus the ``remove`` entries."""
    if not isinstance(removal, Mapping):
        raise RuleSetError([Problem(label, "remove", f"expected a table, found {_found(removal)}")])
    try:
        whole = _converter.structure(_copy_tables(table), RuleSet)
    except Exception:
        _build(table, origin, (label,))  # raises the inherited table's own problems
        raise  # pragma: no cover - _build raised above
    full = ruleset_to_dict(whole)
    for key in ("name", "summary"):
        full.pop(key, None)
        if key in table:
            full[key] = table[key]
    problems: list[Problem] = []
    _remove_entries(full, removal, ("remove",), problems, label, RuleSet)
    if problems:
        raise RuleSetError(problems)
    return full


def _remove_entries(
    node: dict[str, Any],
    removal: Mapping[str, Any],
    at: tuple[str, ...],
    problems: list[Problem],
    label: str,
    cls: Any,
) -> None:
    fields = {f.name: f for f in attrs.fields(cls)} if attrs.has(cls) else {}
    hints = typing_get_type_hints(cls) if attrs.has(cls) else {}
    for key, what in removal.items():
        path = (*at, key)
        where = _dotted(path)
        if key not in fields:
            expected = ", ".join(fields) or "nothing"
            message = f"unknown key; expected one of: {expected}"
            problems.append(Problem(label, where, _hinted(message, did_you_mean(key, fields))))
            continue
        tp = hints[key]
        inner = next((a for a in get_args(tp) if attrs.has(a)), None)
        optional = type(None) in get_args(tp) and inner is not None
        current = node.get(key)
        if attrs.has(tp) and isinstance(what, Mapping):
            _remove_entries(node.setdefault(key, {}), what, path, problems, label, tp)
        elif optional and what is True:
            if current is None:
                problems.append(Problem(label, where, "there is no inherited table to remove"))
            node.pop(key, None)
        elif optional and isinstance(what, Mapping) and isinstance(current, dict):
            _remove_entries(current, what, path, problems, label, inner)
        elif not isinstance(what, list):
            problems.append(
                Problem(
                    label, where, f"expected an array of entries to remove, found {_found(what)}"
                )
            )
        elif path == ("remove", "powers", "table"):
            _remove_powers(node, what, where, problems, label)
        elif isinstance(current, dict):
            for i, entry in enumerate(what):
                name = str(entry) if isinstance(entry, (str, int)) and entry is not True else None
                if name is None or name not in current:
                    message = f"{_found(entry)} is not an inherited key"
                    hint = did_you_mean(name, current) if name is not None else ""
                    problems.append(Problem(label, f"{where}[{i}]", _hinted(message, hint)))
                else:
                    del current[name]
        elif isinstance(current, list) and all(not isinstance(v, (dict, list)) for v in current):
            for i, entry in enumerate(what):
                if entry not in current or isinstance(entry, bool):
                    message = f"{_found(entry)} is not an inherited entry"
                    words = [v for v in current if isinstance(v, str)]
                    hint = did_you_mean(entry, words) if isinstance(entry, str) else ""
                    problems.append(Problem(label, f"{where}[{i}]", _hinted(message, hint)))
                else:
                    current[:] = [v for v in current if v != entry]
        else:
            problems.append(
                Problem(
                    label,
                    where,
                    "only tables of values, arrays and optional tables can lose entries",
                )
            )


def _remove_powers(
    node: dict[str, Any], ranks: list[Any], where: str, problems: list[Problem], label: str
) -> None:
    table = node.get("table", [])
    for i, rank in enumerate(ranks):
        if not isinstance(rank, str) or not any(rank in p.get("ranks", ()) for p in table):
            owned = [r for p in table for r in p.get("ranks", ()) if isinstance(r, str)]
            hint = did_you_mean(rank, owned) if isinstance(rank, str) else ""
            message = _hinted(f"no inherited power of {_found(rank)}", hint)
            problems.append(Problem(label, f"{where}[{i}]", message))
            continue
        for power in table:
            power["ranks"] = [r for r in power.get("ranks", ()) if r != rank]
    node["table"] = [p for p in table if p.get("ranks")]


def _layer_label(layer: _Layer) -> str:
    if isinstance(layer, _FileLayer):
        return layer.label
    if isinstance(layer, _BundledLayer):  # pragma: no cover - only inside a zipped install
        return f"cambio/variants/{layer.name}.toml"
    return layer.label


def _leaf_paths(table: Mapping[str, Any], prefix: str = "") -> set[str]:
    out: set[str] = set()
    for key, value in table.items():
        path = f"{prefix}{_key_text(key)}"
        if isinstance(value, Mapping) and value:
            out |= _leaf_paths(value, path + ".")
        else:
            out.add(path)
    return out


def _merge_into(
    base: dict[str, Any], over: Mapping[str, Any], origin: _Origin, label: str, at: tuple[str, ...]
) -> None:
    """Deep-merge ``over`` into ``base``: tables key by key, everything else replaced."""
    for key, value in over.items():
        path = (*at, key)
        origin[path] = label
        old = base.get(key)
        if isinstance(value, Mapping) and isinstance(old, dict):
            merged = dict(old)
            _merge_into(merged, value, origin, label, path)
            base[key] = merged
        else:
            base[key] = value
            _mark(value, origin, label, path)


def _mark(value: Any, origin: _Origin, label: str, at: tuple[str, ...]) -> None:
    if isinstance(value, Mapping):
        for key, sub in value.items():
            sub_path = (*at, key)
            origin[sub_path] = label
            _mark(sub, origin, label, sub_path)


# --------------------------------------------------------------------------- strict structuring


class _Mismatch(Exception):
    """A value of the wrong kind; the message says what was expected and what was found."""


class _ItemErrors(Exception):
    """Problems inside an array or a table of values, keyed by index or key."""

    def __init__(self, errors: list[tuple[_Key, Exception]]) -> None:
        super().__init__(f"{len(errors)} invalid item(s)")
        self.errors = errors


def _found(value: object) -> str:
    if isinstance(value, bool):
        return f"the boolean {'true' if value else 'false'}"
    if isinstance(value, int):
        return f"the integer {value}"
    if isinstance(value, float):
        return f"the float {value!r}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"the string {json.dumps(shown, ensure_ascii=False)}"
    if isinstance(value, (list, tuple)):
        return f"an array of {len(value)} item{'s' if len(value) != 1 else ''}"
    if isinstance(value, Mapping):
        return "a table"
    if isinstance(value, (datetime, date, time)):
        return f"the date/time {value.isoformat()}"
    if value is None:
        return "nothing (null)"
    return f"a {type(value).__name__}"  # pragma: no cover - not produced by TOML or JSON


def _expected(cl: Any) -> str:
    if cl is int:
        return "an integer"
    if cl is bool:
        return "a boolean (true or false)"
    if cl is str:
        return "a string"
    origin = get_origin(cl)
    if origin is Literal:
        return "one of " + ", ".join(json.dumps(a) for a in get_args(cl))
    if origin is tuple:
        inner = _expected(get_args(cl)[0])
        return f"an array (each item {inner})"
    if origin is dict:
        value = get_args(cl)[1]
        return f"a table of {_expected(value).removeprefix('an ').removeprefix('a ')}s"
    if attrs.has(cl):
        return "a table"
    return str(cl)  # pragma: no cover


def _origin_is(kind: object) -> Callable[[Any], bool]:
    def predicate(cl: Any) -> bool:
        origin: object = get_origin(cl)
        return origin is kind

    return predicate


def _make_converter() -> TomllibConverter:
    conv = make_converter(forbid_extra_keys=True, detailed_validation=True)

    def strict(cl: type) -> Callable[[Any, Any], Any]:
        def hook(value: Any, _: Any) -> Any:
            if type(value) is not cl:
                raise _Mismatch(f"expected {_expected(cl)}, found {_found(value)}")
            return value

        return hook

    for cl in (int, bool, str):
        conv.register_structure_hook(cl, strict(cl))

    def literal_factory(cl: Any) -> Callable[[Any, Any], Any]:
        allowed = get_args(cl)

        def hook(value: Any, _: Any) -> Any:
            if not isinstance(value, str) or value not in allowed:
                message = f"expected {_expected(cl)}, found {_found(value)}"
                if isinstance(value, str):  # a misspelt word gets the closest allowed one
                    message = _hinted(message, did_you_mean(value, [str(a) for a in allowed]))
                raise _Mismatch(message)
            return value

        return hook

    def tuple_factory(cl: Any) -> Callable[[Any, Any], Any]:
        args = get_args(cl)
        item = args[0] if args else Any

        def hook(value: Any, _: Any) -> Any:
            if not isinstance(value, (list, tuple)):
                raise _Mismatch(f"expected {_expected(cl)}, found {_found(value)}")
            out: list[Any] = []
            errors: list[tuple[_Key, Exception]] = []
            for i, sub in enumerate(value):
                try:
                    out.append(conv.structure(sub, item))
                except Exception as exc:
                    errors.append((i, exc))
            if errors:
                raise _ItemErrors(errors)
            return tuple(out)

        return hook

    def dict_factory(cl: Any) -> Callable[[Any, Any], Any]:
        key_type, value_type = get_args(cl)

        def hook(value: Any, _: Any) -> Any:
            if not isinstance(value, Mapping):
                raise _Mismatch(f"expected {_expected(cl)}, found {_found(value)}")
            out: dict[Any, Any] = {}
            errors: list[tuple[_Key, Exception]] = []
            for k, sub in value.items():
                try:
                    if type(k) is not key_type:
                        raise _Mismatch(f"expected a {key_type.__name__} key, found {_found(k)}")
                    out[k] = conv.structure(sub, value_type)
                except Exception as exc:
                    errors.append((str(k), exc))
            if errors:
                raise _ItemErrors(errors)
            return out

        return hook

    def class_factory(cl: Any) -> Callable[[Any, Any], Any]:
        inner = make_dict_structure_fn(
            cl, conv, _cattrs_forbid_extra_keys=True, _cattrs_detailed_validation=True
        )

        def hook(value: Any, _: Any) -> Any:
            if not isinstance(value, Mapping):
                raise _Mismatch(f"expected a table, found {_found(value)}")
            return inner(value, cl)

        return hook

    conv.register_structure_hook_factory(_origin_is(Literal), literal_factory)
    conv.register_structure_hook_factory(_origin_is(tuple), tuple_factory)
    conv.register_structure_hook_factory(_origin_is(dict), dict_factory)
    conv.register_structure_hook_factory(attrs.has, class_factory)
    return conv


_converter = _make_converter()


def _structure_problems(exc: BaseException, at: _KeyPath) -> Iterator[tuple[_KeyPath, str, bool]]:
    """Each structural problem: its key path, the message, and whether a value is wrong
    (``False`` for an unknown key, which changes no value when dropped)."""
    if isinstance(exc, BaseValidationError):
        for sub in exc.exceptions:
            step: _KeyPath = ()
            for note in getattr(sub, "__notes__", ()):
                if isinstance(note, AttributeValidationNote):
                    step = (note.name,)
                elif isinstance(note, IterableValidationNote):  # pragma: no cover
                    step = (note.index,)
            yield from _structure_problems(sub, at + step)
    elif isinstance(exc, _ItemErrors):
        for key, sub in exc.errors:
            yield from _structure_problems(sub, (*at, key))
    elif isinstance(exc, ForbiddenExtraKeysError):
        names = [a.name for a in attrs.fields(exc.cl)]
        known = ", ".join(names)
        for key in sorted(exc.extra_fields):
            message = f"unknown key; expected one of: {known}"
            yield (*at, key), _hinted(message, did_you_mean(key, names)), False
    elif isinstance(exc, _Mismatch):
        yield at, str(exc), True
    elif isinstance(exc, KeyError):
        yield at, "missing required key", True
    else:  # pragma: no cover - every hook above raises one of the kinds handled
        yield at, f"invalid value: {exc}", True


_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _key_text(key: str) -> str:
    return key if _BARE_KEY.match(key) else json.dumps(key, ensure_ascii=False)


def _dotted(path: _KeyPath) -> str:
    out = ""
    for key in path:
        if isinstance(key, int):
            out += f"[{key}]"
        else:
            out += ("." if out else "") + _key_text(key)
    return out


def _table_keys(path: _KeyPath) -> tuple[str, ...]:
    """The leading table keys of a path (up to the first array index)."""
    keys: list[str] = []
    for key in path:
        if isinstance(key, int):
            break
        keys.append(key)
    return tuple(keys)


_DOTTED_PART = re.compile(r'"(?:[^"\\]|\\.)*"|[^.\[\]]+|\[\d+\]')


def _split_dotted(path: str) -> _KeyPath:
    out: list[_Key] = []
    for part in _DOTTED_PART.findall(path):
        if part.startswith("["):
            out.append(int(part[1:-1]))
        elif part.startswith('"'):
            out.append(json.loads(part))
        else:
            out.append(part)
    return tuple(out)


def _source_of(path: _KeyPath, origin: _Origin, default: str) -> str:
    keys = _table_keys(path)
    while keys:
        if keys in origin:
            return origin[keys]
        keys = keys[:-1]
    return default


def _reads(path: str) -> list[str]:
    """The table keys a semantic problem at ``path`` depends on.

    A semantic problem is reported only when nothing it reads had a structural problem
    (where a default stands in for the broken value, the message could mislead).
    """
    own = _dotted(_table_keys(_split_dotted(path)))
    reads = [own]
    section = own.split(".", 1)[0]
    if path == "deck":
        reads += ["players.max", "grid.rows"]
    elif section == "players":
        reads += ["players", "teams.size"]
    elif section == "teams":
        reads += ["players"]
    elif section == "values" or ".ranks" in path:
        reads += ["deck"]
    elif section == "opening":
        reads += ["opening", "grid.rows"]
    return reads


def _related(a: str, b: str) -> bool:
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


def _remove(table: dict[str, Any], path: _KeyPath) -> bool:
    """Drop the value at ``path`` so that a default stands in for it; report success."""
    if not path:
        return False
    node: Any = table
    for key in path[:-1]:
        in_table = isinstance(node, dict) and isinstance(key, str) and key in node
        in_array = isinstance(node, list) and isinstance(key, int) and 0 <= key < len(node)
        if not (in_table or in_array):
            return False
        node = node[key]
    if isinstance(node, dict) and path[-1] in node:
        del node[path[-1]]
        return True
    return False


def _copy_tables(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _copy_tables(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_copy_tables(v) for v in value]
    return value


def _setter(path: _KeyPath, origin: _Origin) -> str | None:
    """The file that set the key at ``path`` (or a table holding it), if any did."""
    keys = _table_keys(path)
    while keys:
        if keys in origin:
            return origin[keys]
        keys = keys[:-1]
    return None


def _blame(where: str, origin: _Origin, lineage: Sequence[str]) -> tuple[str, str]:
    """The file to name for a semantic problem at ``where``, and a note when the entry
    itself comes from another file.

    A problem belongs to the most derived file that set anything it reads: when a child
    changes the deck so that an entry it inherits no longer fits, the child is named
    (and the note says where the entry was written), not the parent.
    """
    label = lineage[0]
    own = _setter(_split_dotted(where), origin) or label
    depth = {name: i for i, name in reversed(list(enumerate(lineage)))}
    setters = [own]
    for read in _reads(where):
        setter = _setter(_split_dotted(read), origin)
        if setter is not None:
            setters.append(setter)
    source = min(setters, key=lambda name: depth.get(name, len(lineage)))
    note = "" if source == own else f" (this entry is inherited from {own})"
    return source, note


def _hinted(message: str, hint: str) -> str:
    """``message`` with a "did you mean" hint after it, when there is one."""
    return f"{message}; {hint}" if hint else message


def _kind_of(deck: DeckRules) -> frozenset[str]:
    """The rank names a deck of this kind can hold (whether or not it holds them)."""
    return frozenset(deck.custom) if deck.custom else frozenset((*STANDARD_RANKS, JOKER))


_NO_SUCH_RANK = re.compile(r"""no such rank ('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")""")
_DECK_RANK = re.compile(r"deck\.ranks\[(\d+)\]")


def _suggested(rules: RuleSet, where: str, message: str) -> str:
    """A problem of :func:`~cambio.rules.check_rules`; one that names no rank at all
    gets the closest rank names of the deck."""
    found = _NO_SUCH_RANK.match(message)
    if found is not None:
        name = ast.literal_eval(found.group(1))
        known = _kind_of(rules.deck) | set(rules.values.rank)
        return _hinted(message, did_you_mean(name, sorted(known)))
    index = _DECK_RANK.fullmatch(where)
    if index is not None and message.startswith("expected one of"):
        return _hinted(message, did_you_mean(rules.deck.ranks[int(index[1])], STANDARD_RANKS))
    return message


def _rank_name_problems(
    rules: RuleSet, origin: _Origin, lineage: Sequence[str], kinds: Mapping[str, frozenset[str]]
) -> Iterator[Problem]:
    """The values a file that extends another gives to names that are no rank.

    Such a file's ``values.rank`` is merged into the one it inherits, so a misspelt
    rank would add an entry no card reads and leave the inherited value in force. A
    name passes when the final deck can hold it, or when the deck of the file that
    wrote it could (a parent's entry stays valid when a child changes the deck). A
    table that extends nothing lists every value itself: a misspelt rank there leaves
    a held rank without a value, which :func:`~cambio.rules.check_rules` reports.
    """
    final = _kind_of(rules.deck)
    extending = set(lineage[:-1])
    for rank in rules.values.rank:
        setter = origin.get(("values", "rank", rank))
        if setter is None or setter not in extending:
            continue
        if rank in final or rank in kinds.get(setter, final):
            continue
        kind = "a key of deck.custom" if rules.deck.custom else "a standard rank or Joker"
        message = (
            f"no such rank {rank!r}: not a rank of this deck ({kind}), so no card would "
            "score this value"
        )
        hint = did_you_mean(rank, sorted(final | kinds.get(setter, final)))
        yield Problem(setter, _dotted(("values", "rank", rank)), _hinted(message, hint))


def _build(
    table: dict[str, Any],
    origin: _Origin,
    lineage: Sequence[str],
    kinds: Mapping[str, frozenset[str]] | None = None,
) -> RuleSet:
    """Structure strictly, then check the rules; raise every problem found at once.

    ``lineage`` names the file read first and then each file it extends, in order;
    ``kinds`` the rank names of each file's deck (see :func:`_rank_name_problems`).
    """
    label = lineage[0]
    problems: list[Problem] = []
    broken: set[str] = set()
    rules: RuleSet | None = None
    attempt = _copy_tables(table)
    for round_ in range(8):
        try:
            rules = _converter.structure(attempt, RuleSet)
            break
        except Exception as exc:
            found = list(_structure_problems(exc, ()))
            if not found:  # pragma: no cover - defensive
                problems.append(Problem(label, "", f"invalid rule table: {exc}"))
                break
            progress = False
            for path, message, replaced in found:
                if round_ == 0:
                    source = _source_of(path, origin, label)
                    problems.append(Problem(source, _dotted(path), message))
                if replaced:
                    # A wrong value inside an array: the whole array gives way to its default.
                    path = _table_keys(path)
                    broken.add(_dotted(path))
                progress = _remove(attempt, path) or progress
            if not progress:
                break
    if rules is not None:
        for where, message in check_rules(rules):
            if any(_related(read, bad) for read in _reads(where) for bad in broken):
                continue
            source, note = _blame(where, origin, lineage)
            problems.append(Problem(source, where, _suggested(rules, where, message) + note))
        for problem in _rank_name_problems(rules, origin, lineage, kinds or {}):
            if any(_related(read, bad) for read in _reads(problem.path) for bad in broken):
                continue
            problems.append(problem)
    if problems:
        raise RuleSetError(problems)
    assert rules is not None
    return rules
