"""The protocol page is generated from the shipped schema and is in the docs' nav."""

from __future__ import annotations

from pathlib import Path

from cambio import _protocol_docs
from cambio.protocol import ERROR_CODES, schema

ROOT = Path(__file__).resolve().parents[1]


def test_protocol_page_matches_the_schema() -> None:
    committed = (ROOT / "docs" / _protocol_docs.PAGE).read_text(encoding="utf-8")
    assert committed == _protocol_docs.protocol_markdown(), (
        f"docs/protocol.md does not match the schema: {_protocol_docs.REGENERATE}"
    )


def test_the_page_names_every_message_and_code() -> None:
    page = _protocol_docs.protocol_markdown()
    doc = schema()
    for name in doc["requests"]:
        assert f"{{#request-{name}}}" in page
    for name in doc["replies"]:
        assert f"{{#reply-{name}}}" in page
    for code in ERROR_CODES:
        assert f"| `{code}` |" in page


def test_write_writes_the_page(tmp_path: Path) -> None:
    assert _protocol_docs.main(["--write", str(tmp_path)]) == 0
    assert (tmp_path / "protocol.md").read_text() == _protocol_docs.protocol_markdown()


def test_both_pages_are_in_the_nav() -> None:
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert "protocol.md" in nav and "server.md" in nav
