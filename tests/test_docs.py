"""The documentation: generated pages match the code, examples in the pages run, the site builds.

* ``docs/reference.md``, ``docs/profiles/*.md`` and the profile nav in ``mkdocs.yml``
  must equal what :mod:`cambio._reference` generates; regenerate them with
  ``python -m cambio._reference --write docs``.
* In every page, ``pycon`` blocks are doctests (their output is checked), ``python``
  blocks are run (one namespace per page, in order; a ``py`` block is an illustration
  and is not run), and ``toml`` blocks must load as a table. Blocks that only include
  a file with ``--8<--`` are left to ``tests/test_examples.py``.
* ``mkdocs build --strict`` must succeed: ``tests/test_api_reference.py`` builds the site
  once and checks its API reference too.
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path
from typing import Any

import pytest

import cambio
from cambio import _reference

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
REGENERATE = f"run `{_reference.REGENERATE}` from the repository root and commit the result"

FENCE = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL)


def _pages() -> list[Path]:
    return sorted(DOCS.rglob("*.md"))


def _blocks(page: Path, language: str) -> list[tuple[int, str]]:
    """The fenced blocks of one language in a page, with the line each body starts on."""
    text = page.read_text(encoding="utf-8")
    return [
        (text.count("\n", 0, match.start(2)), match.group(2))
        for match in FENCE.finditer(text)
        if match.group(1) == language and not match.group(2).lstrip().startswith("--8<--")
    ]


def _pages_with(language: str) -> list[Any]:
    return [
        pytest.param(page, id=str(page.relative_to(DOCS)))
        for page in _pages()
        if _blocks(page, language)
    ]


# --------------------------------------------------------------------------- generated pages


def test_every_key_has_a_meaning() -> None:
    keys = _reference.reference_keys()
    paths = [k.path for k in keys]
    assert len(paths) == len(set(paths))
    assert {"snap.when", "powers.table[].steps[].scope", "scoring.combination.holder"} <= set(paths)
    assert all(k.meaning and k.type for k in keys)


def test_reference_page_is_up_to_date() -> None:
    committed = (DOCS / "reference.md").read_text(encoding="utf-8")
    assert committed == _reference.reference_markdown(), (
        f"docs/reference.md does not match src/cambio/rules.py: {REGENERATE}"
    )


def test_every_profile_has_an_up_to_date_page() -> None:
    pages = _reference.generated_pages()
    for name in cambio.available_variants():
        relative = f"profiles/{name}.md"
        path = DOCS / relative
        assert path.exists(), f"the profile {name!r} has no page docs/{relative}: {REGENERATE}"
        assert path.read_text(encoding="utf-8") == pages[relative], (
            f"docs/{relative} does not match variants/{name}.toml: {REGENERATE}"
        )
    index = (DOCS / "profiles" / "index.md").read_text(encoding="utf-8")
    assert index == pages["profiles/index.md"], f"docs/profiles/index.md is stale: {REGENERATE}"


def test_no_page_for_a_profile_that_is_gone() -> None:
    names = set(cambio.available_variants()) | {"index"}
    stray = sorted(p.stem for p in (DOCS / "profiles").glob("*.md") if p.stem not in names)
    assert not stray, f"pages for profiles that do not exist: {stray}: {REGENERATE}"


def test_mkdocs_nav_lists_every_profile() -> None:
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert text == _reference.mkdocs_nav(text), f"the profile pages in mkdocs.yml: {REGENERATE}"


def test_write_pages_round_trip(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "profiles").mkdir(parents=True)
    (docs / "profiles" / "gone.md").write_text("old", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(
        f"nav:\n  - Profiles:\n    {_reference.NAV_BEGIN}\n    {_reference.NAV_END}\n",
        encoding="utf-8",
    )
    _reference.write_pages(docs)
    assert not (docs / "profiles" / "gone.md").exists()
    assert (docs / "reference.md").read_text(encoding="utf-8") == _reference.reference_markdown()
    assert "    - practice: profiles/practice.md" in (tmp_path / "mkdocs.yml").read_text()
    assert _reference.write_pages(docs) == []  # nothing left to change


def test_missing_meaning_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    notes = dict(_reference.NOTES)
    del notes["snap.when"]
    monkeypatch.setattr(_reference, "NOTES", notes)
    with pytest.raises(_reference.MissingMeaningError, match=r"snap\.when"):
        _reference.reference_keys()


def test_reference_main_prints_the_page(capsys: pytest.CaptureFixture[str]) -> None:
    assert _reference.main([]) == 0
    assert capsys.readouterr().out == _reference.reference_markdown()


# --------------------------------------------------------------------------- code in the pages


@pytest.mark.parametrize("page", _pages_with("pycon"))
def test_pycon_blocks_are_true(page: Path) -> None:
    blocks = _blocks(page, "pycon")
    globs: dict[str, object] = {"__name__": f"docs_{page.stem}"}
    report: list[str] = []
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    parser = doctest.DocTestParser()
    for line, block in blocks:  # one namespace per page, in order
        test = parser.get_doctest(block, globs, page.name, str(page), line)
        runner.run(test, out=report.append, clear_globs=False)
        globs = test.globs  # a DocTest works on a copy: carry the names on
    if runner.failures:
        pytest.fail("".join(report))


@pytest.mark.parametrize("page", _pages_with("python"))
def test_python_blocks_run(page: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocks = _blocks(page, "python")
    namespace: dict[str, object] = {"__name__": f"docs_{page.stem}"}
    for line, block in blocks:
        code = compile("\n" * line + block, str(page), "exec")  # tracebacks show page lines
        exec(code, namespace)
    capsys.readouterr()


@pytest.mark.parametrize("page", _pages_with("toml"))
def test_toml_blocks_are_tables(page: Path) -> None:
    blocks = _blocks(page, "toml")
    for line, block in blocks:
        try:
            cambio.ruleset_from_toml(block, f"{page.name} (the toml block on line {line + 1})")
        except cambio.RuleSetError as error:
            pytest.fail(str(error))


def test_reference_module_doctests() -> None:
    failures, tried = doctest.testmod(_reference)
    assert tried > 0
    assert failures == 0


def test_embedding_guide_names_every_action_and_event_kind() -> None:
    text = (DOCS / "embedding.md").read_text(encoding="utf-8")
    kinds = [kind.value for kind in cambio.ActionKind]
    kinds += [
        value
        for name, value in vars(cambio.events.EventKind).items()
        if name.isupper() and isinstance(value, str)
    ]
    missing = [kind for kind in kinds if f"| `{kind}` |" not in text]
    assert not missing, f"docs/embedding.md does not describe: {missing}"
