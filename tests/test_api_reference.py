"""The site and its API reference, built once with ``mkdocs build --strict``.

The API reference (``docs/api/``) is generated from the docstrings by mkdocstrings. The
tests read the built pages: every public name (``cambio.__all__`` and
``cambio.bots.__all__``) has an entry that says something, and so does every field of
``PlayerView``, every member of ``Round`` and ``Match``, every ``Action`` constructor,
every ``EventKind``, every ``RuleSet`` section and each of its keys, and every error.
"""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
import typing
from html.parser import HTMLParser
from pathlib import Path

import attrs
import pytest

import cambio
import cambio.bots
from cambio.events import EventKind
from cambio.registry import DuplicateTableError

ROOT = Path(__file__).resolve().parents[1]


class _Entries(HTMLParser):
    """The text of each documented object on a page, by its anchor (``cambio.X.y``).

    mkdocstrings renders an object as a heading with the object's path as its id,
    followed by a ``doc-contents`` block; the text kept is the one directly in that block
    (not in the blocks of the object's members).
    """

    def __init__(self) -> None:
        super().__init__()
        self.text: dict[str, str] = {}
        self._current: str | None = None
        self._divs: list[bool] = []  # for each open div: is it a doc-contents block

    def handle_starttag(self, tag: str, attributes: list[tuple[str, str | None]]) -> None:
        found = dict(attributes)
        anchor = found.get("id") or ""
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6") and anchor.startswith("cambio."):
            self._current = anchor
            self.text.setdefault(anchor, "")
        if tag == "div":
            self._divs.append("doc-contents" in (found.get("class") or "").split())

    def handle_endtag(self, tag: str) -> None:
        if tag == "div" and self._divs:
            self._divs.pop()

    def handle_data(self, data: str) -> None:
        if self._current and self._divs and self._divs[-1] and data.strip():
            self.text[self._current] += " " + data.strip()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_COLOR": "1", "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stdout}{proc.stderr}"
    return out


@pytest.fixture(scope="module")
def entries(site: Path) -> dict[str, str]:
    """Every documented object of the API pages: its anchor and its text."""
    found: dict[str, str] = {}
    pages = sorted((site / "api").glob("*/index.html"))
    assert pages, "the site has no API pages"
    for page in pages:
        parser = _Entries()
        parser.feed(page.read_text(encoding="utf-8"))
        for anchor, text in parser.text.items():
            found[anchor] = (found.get(anchor, "") + text).strip()
    return found


def _entry(entries: dict[str, str], *anchors: str) -> str:
    """The text of the first of ``anchors`` the reference has; fails when none is there."""
    for anchor in anchors:
        if anchor in entries:
            return entries[anchor]
    pytest.fail(f"the API reference has no entry {' or '.join(anchors)}")


def _documented(entries: dict[str, str], *anchors: str) -> None:
    text = _entry(entries, *anchors)
    assert text, f"the API reference says nothing about {anchors[0]}"


def test_the_site_builds_strictly(site: Path) -> None:
    assert (site / "reference" / "index.html").exists()
    assert (site / "api" / "index.html").exists()


@pytest.mark.parametrize("name", cambio.__all__)
def test_every_public_name_is_in_the_reference(entries: dict[str, str], name: str) -> None:
    module = getattr(getattr(cambio, name), "__module__", "cambio")
    _documented(entries, f"cambio.{name}", f"{module}.{name}")


@pytest.mark.parametrize("name", cambio.bots.__all__)
def test_every_bots_name_is_in_the_reference(entries: dict[str, str], name: str) -> None:
    _documented(entries, f"cambio.bots.{name}")


@pytest.mark.parametrize("field", [f.name for f in attrs.fields(cambio.PlayerView)])
def test_every_player_view_field_says_what_it_means(entries: dict[str, str], field: str) -> None:
    text = _entry(entries, f"cambio.PlayerView.{field}")
    assert len(text.split()) >= 4, f"PlayerView.{field}: {text!r} says too little"


def _public_members(cls: type) -> list[str]:
    return sorted(name for name in vars(cls) if not name.startswith("_"))


@pytest.mark.parametrize(
    ("cls", "member"),
    [
        (cls, member)
        for cls in (cambio.Round, cambio.Match, cambio.PlayerView, cambio.Event)
        for member in sorted(set(_public_members(cls)) | set(typing.get_type_hints(cls)))
        if not member.startswith("_")
    ],
    ids=lambda value: value.__name__ if isinstance(value, type) else str(value),
)
def test_every_member_of_the_main_classes_is_documented(
    entries: dict[str, str], cls: type, member: str
) -> None:
    _documented(entries, f"cambio.{cls.__name__}.{member}")


@pytest.mark.parametrize(
    "constructor",
    sorted(
        name
        for name, value in vars(cambio.Action).items()
        if isinstance(value, classmethod) and name != "from_dict"
    ),
)
def test_every_action_constructor_is_documented(entries: dict[str, str], constructor: str) -> None:
    _documented(entries, f"cambio.Action.{constructor}")


def test_the_constructors_are_all_there() -> None:
    """The parametrised test above covers one constructor per kind of action."""
    constructors = {
        name for name, value in vars(cambio.Action).items() if isinstance(value, classmethod)
    }
    for kind in cambio.ActionKind:
        assert kind.name.lower() in constructors or f"{kind.name.lower()}_" in constructors


@pytest.mark.parametrize("kind", [name for name in vars(EventKind) if name.isupper()])
def test_every_event_kind_says_what_it_means(entries: dict[str, str], kind: str) -> None:
    _documented(entries, f"cambio.events.EventKind.{kind}")


@pytest.mark.parametrize("kind", [kind.name for kind in cambio.ActionKind])
def test_every_action_kind_says_what_it_means(entries: dict[str, str], kind: str) -> None:
    _documented(entries, f"cambio.ActionKind.{kind}", f"cambio.actions.ActionKind.{kind}")


def _sections() -> list[tuple[str, type]]:
    hints = typing.get_type_hints(cambio.RuleSet)
    return [
        (field.name, hints[field.name])
        for field in attrs.fields(cambio.RuleSet)
        if attrs.has(hints[field.name])
    ]


@pytest.mark.parametrize("field", [f.name for f in attrs.fields(cambio.RuleSet)])
def test_every_ruleset_field_is_documented(entries: dict[str, str], field: str) -> None:
    _documented(entries, f"cambio.RuleSet.{field}")


@pytest.mark.parametrize(
    ("section", "key"),
    [(cls.__name__, field.name) for _, cls in _sections() for field in attrs.fields(cls)],
)
def test_every_key_of_every_section_is_documented(
    entries: dict[str, str], section: str, key: str
) -> None:
    _documented(entries, f"cambio.rules.{section}")
    _documented(entries, f"cambio.rules.{section}.{key}")


@pytest.mark.parametrize(
    "error",
    [
        cambio.RuleSetError,
        cambio.Problem,
        cambio.IllegalActionError,
        cambio.SaveError,
        cambio.PositionError,
        DuplicateTableError,
    ],
    ids=lambda error: error.__name__,
)
def test_every_error_and_its_fields_are_documented(entries: dict[str, str], error: type) -> None:
    anchor = f"cambio.{error.__name__}"
    if anchor not in entries:
        anchor = f"{error.__module__}.{error.__name__}"
    _documented(entries, anchor)
    init = vars(error).get("__init__")
    fields = (
        [f.name for f in attrs.fields(error)]
        if attrs.has(error)
        else list(inspect.get_annotations(error))
    )
    assert fields or init is None, f"{error.__name__} documents none of its fields"
    for field in fields:
        _documented(entries, f"{anchor}.{field}")


def test_the_reference_answers_the_held_question(entries: dict[str, str]) -> None:
    """The user who guessed ``view.held`` finds ``holding`` and what it holds."""
    assert "holds" in _entry(entries, "cambio.PlayerView.holding")
