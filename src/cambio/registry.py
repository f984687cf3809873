"""Where tables come from: the bundled profiles, folders you name, and installed packages.

:func:`cambio.load_ruleset` finds a table *by name* in three kinds of place:

* the profiles bundled with cambio-rules (``variants/``);
* every folder listed in the environment variable :data:`VARIANTS_PATH_ENV`
  (``CAMBIO_VARIANTS_PATH``), separated by :data:`os.pathsep` (``:``, or ``;`` on
  Windows); a folder's file ``NAME.toml`` is the table ``NAME``;
* every installed package that declares an entry point in the group
  :data:`ENTRY_POINT_GROUP` (``cambio.variants``). The entry point's value names a
  package, optionally followed by ``:`` and a folder inside it (``my_tables`` or
  ``my_club:tables``); the ``.toml`` files there are its tables. In ``pyproject.toml``::

      [project.entry-points."cambio.variants"]
      my-club = "my_club:tables"

A name found in two places is an error naming both (:class:`DuplicateTableError`), so a
table can never be shadowed without notice, not even a bundled one. A path
(``./my-table.toml``) is always read as a file and never looked up here.

>>> found = tables()
>>> found["practice"].origin
'bundled'
>>> sorted(found)[:2]
['blind', 'cabo']
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from importlib.resources import files
from pathlib import Path

import attrs

from .errors import Problem, RuleSetError

if sys.version_info >= (3, 11):
    from importlib.resources.abc import Traversable
else:  # pragma: no cover
    from importlib.abc import Traversable

__all__ = [
    "ENTRY_POINT_GROUP",
    "VARIANTS_PATH_ENV",
    "DuplicateTableError",
    "TableSource",
    "lookup",
    "names",
    "problems",
    "sources",
    "tables",
]

VARIANTS_PATH_ENV = "CAMBIO_VARIANTS_PATH"
"""The environment variable listing folders of tables."""

ENTRY_POINT_GROUP = "cambio.variants"
"""The entry point group through which an installed package offers its tables."""


@attrs.frozen
class TableSource:
    """One table found by name: the file and where it was found.

    ``origin`` is ``bundled``, ``CAMBIO_VARIANTS_PATH`` or ``package NAME`` (the
    distribution that declared the entry point); ``place`` is the file's location as a
    reader can find it (a path, or ``package:folder/NAME.toml``).
    """

    name: str
    """The table's name: its file name without ``.toml``."""
    entry: Traversable
    """The file itself (a path or a resource inside a package)."""
    origin: str
    """How it was found: ``bundled``, ``CAMBIO_VARIANTS_PATH`` or ``package NAME``."""
    place: str
    """Where a reader can find the file: a path, or ``package:folder/NAME.toml``."""

    def describe(self) -> str:
        """Where the table comes from, in a few words: ``ORIGIN (PLACE)``."""
        return f"{self.origin} ({self.place})"


class DuplicateTableError(RuleSetError):
    """One name defined by two (or more) tables; ``sources`` lists them all.

    ``source`` and ``path`` say where the name was asked for (a file's ``extends``),
    when not simply by name.
    """

    name: str
    """The name defined more than once."""
    sources: tuple[TableSource, ...]
    """Every table that defines it."""

    def __init__(
        self, name: str, found: tuple[TableSource, ...], source: str = "", path: str = ""
    ) -> None:
        self.name = name
        self.sources = found
        places = " and ".join(s.describe() for s in found)
        message = f"the table name {name!r} is defined twice: by {places}"
        super().__init__([Problem(source or name, path, message)])


def _toml_files(folder: Traversable) -> Iterator[tuple[str, Traversable]]:
    try:
        entries = sorted(folder.iterdir(), key=lambda e: e.name) if folder.is_dir() else []
    except OSError:  # an unreadable folder holds no tables
        entries = []
    for entry in entries:
        if entry.name.endswith(".toml") and not entry.name.startswith("."):
            try:
                is_file = entry.is_file()
            except OSError:  # pragma: no cover - defensive
                is_file = False
            if is_file:
                yield entry.name[: -len(".toml")], entry


def _variants_dir() -> Traversable:
    """The folder of bundled profiles.

    An installed wheel carries them as ``cambio/variants``; a source checkout or an
    editable install reads the repository's top-level ``variants/``.
    """
    try:
        bundled = files("cambio") / "variants"
        if bundled.is_dir():
            return bundled
    except (ModuleNotFoundError, OSError):  # pragma: no cover - defensive
        pass
    return Path(__file__).resolve().parents[2] / "variants"


def _bundled_sources() -> Iterator[TableSource]:
    for name, entry in _toml_files(_variants_dir()):
        yield TableSource(name, entry, "bundled", f"variants/{name}.toml")


def _path_sources(value: str) -> Iterator[TableSource]:
    for part in value.split(os.pathsep):
        if not part.strip():
            continue
        folder = Path(part).expanduser()
        for name, entry in _toml_files(folder):
            yield TableSource(name, entry, VARIANTS_PATH_ENV, str(folder / f"{name}.toml"))


def _package_sources(found_problems: list[str]) -> Iterator[TableSource]:
    from importlib.metadata import entry_points
    from importlib.resources import files

    for point in entry_points(group=ENTRY_POINT_GROUP):
        package, _, inner = point.value.partition(":")
        package = package.strip()
        dist = getattr(point, "dist", None)
        who = getattr(dist, "name", None) or point.name
        try:
            folder = files(package)
        except (ImportError, TypeError, ValueError) as error:
            found_problems.append(
                f"entry point {point.name!r} of {who} ({ENTRY_POINT_GROUP}): cannot open "
                f"package {package!r}: {error}"
            )
            continue
        for step in inner.strip().split("/") if inner.strip() else ():
            folder = folder / step
        if not folder.is_dir():
            found_problems.append(
                f"entry point {point.name!r} of {who} ({ENTRY_POINT_GROUP}): "
                f"{point.value!r} is not a folder"
            )
            continue
        prefix = f"{package}:{inner.strip()}/" if inner.strip() else f"{package}:"
        for name, entry in _toml_files(folder):
            yield TableSource(name, entry, f"package {who}", f"{prefix}{name}.toml")


@attrs.frozen
class _Scan:
    sources: tuple[TableSource, ...]
    problems: tuple[str, ...]


_cache: dict[tuple[str | None, tuple[str, ...]], _Scan] = {}


def _scan() -> _Scan:
    """Every table source; cached until the variable or ``sys.path`` changes."""
    key = (os.environ.get(VARIANTS_PATH_ENV), tuple(sys.path))
    scan = _cache.get(key)
    if scan is None:
        found_problems: list[str] = []
        found = [
            *_bundled_sources(),
            *_path_sources(key[0] or ""),
            *_package_sources(found_problems),
        ]
        scan = _Scan(tuple(found), tuple(found_problems))
        _cache.clear()
        _cache[key] = scan
    return scan


def sources() -> tuple[TableSource, ...]:
    """Every table found, duplicates included: bundled first, then the folders of
    ``CAMBIO_VARIANTS_PATH`` in order, then the packages."""
    return _scan().sources


def problems() -> tuple[str, ...]:
    """What could not be read while looking: a package that cannot be opened, a
    declared folder that does not exist."""
    return _scan().problems


def tables() -> dict[str, TableSource]:
    """Every table name and where it comes from, sorted by name.

    A name defined in two places raises :class:`DuplicateTableError`; use
    :func:`sources` to list everything, duplicates included.
    """
    by_name: dict[str, list[TableSource]] = {}
    for source in sources():
        by_name.setdefault(source.name, []).append(source)
    out: dict[str, TableSource] = {}
    for name in sorted(by_name):
        found = by_name[name]
        if len(found) > 1:
            raise DuplicateTableError(name, tuple(found))
        out[name] = found[0]
    return out


def lookup(name: str, source: str = "", path: str = "") -> TableSource | None:
    """The one table called ``name``, or ``None``; :class:`DuplicateTableError` when
    two places define it (``source`` and ``path`` say where the name was asked for)."""
    found = tuple(s for s in sources() if s.name == name)
    if len(found) > 1:
        raise DuplicateTableError(name, found, source, path)
    return found[0] if found else None


def names() -> list[str]:
    """Every table name found, sorted (a duplicated name once)."""
    return sorted({s.name for s in sources()})
