"""A griffe extension for the API reference: the docstrings' reST in Markdown.

The code's docstrings are written for ``help()`` and Sphinx-style readers: roles such as
``:class:`~cambio.rules.RuleSet``` and doctest examples (``>>>``). mkdocstrings renders
Markdown, so before rendering this extension turns each role into inline code (its
last dotted part when written with ``~``) and each run of doctest lines into a fenced
``pycon`` block; a paragraph ending in ``::`` ends in ``:`` (its indented block is code
in Markdown too). A field of a :mod:`cambio.rules` class whose source has no docstring
gets the meaning the RuleSet reference gives it (``cambio._reference.field_meanings``),
so every key reads the same on both pages. It is named in ``mkdocs.yml`` and used only
to build the site.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import griffe

# The meanings come from this checkout's cambio, the one the reference documents.
_SRC = str(Path(__file__).resolve().parents[1] / "src")
if _SRC not in sys.path:
    sys.path.insert(0, _SRC)

from cambio._reference import field_meanings  # noqa: E402

_ROLE = re.compile(r":(?:py:)?[a-z]+:`(~?)([^`<]*?)\s*(?:<([^>`]+)>)?`")


def _role(match: re.Match[str]) -> str:
    short, text, target = match.group(1), match.group(2).strip(), match.group(3)
    if target and text:
        return f"`{text}`"
    name = (target or text).strip()
    if short:
        name = name.rsplit(".", 1)[-1]
    return f"`{name}`"


def markdown(text: str) -> str:
    """A docstring in Markdown: roles as inline code, doctests fenced."""
    text = _ROLE.sub(_role, text)
    out: list[str] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            block: list[str] = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i][len(indent) :] if lines[i].startswith(indent) else lines[i])
                i += 1
            if out and out[-1].strip():
                out.append("")
            out += [f"{indent}```pycon", *(indent + b for b in block), f"{indent}```", ""]
            continue
        if line.rstrip().endswith("::") and not line.strip().startswith("::"):
            line = line.rstrip()[:-1]
        out.append(line)
        i += 1
    return "\n".join(out)


def _convert(obj: griffe.Object) -> None:
    if obj.docstring is not None:
        obj.docstring.value = markdown(obj.docstring.value)
    for member in obj.members.values():
        if not member.is_alias and isinstance(member, griffe.Object):
            _convert(member)


def _fill_rules(rules: griffe.Object) -> None:
    """Give each undocumented field of a rules class the reference page's meaning."""
    meanings = field_meanings()
    for cls in rules.members.values():
        if cls.is_alias or not isinstance(cls, griffe.Class):
            continue
        for name, field in cls.members.items():
            text = meanings.get((cls.name, name))
            if field.is_alias or not isinstance(field, griffe.Attribute) or not text:
                continue
            if field.docstring is None or not field.docstring.value.strip():
                field.docstring = griffe.Docstring(text, parent=field)


class CambioDocstrings(griffe.Extension):
    """Rewrite every docstring of a loaded package once it is fully loaded."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        if pkg.name == "cambio" and "rules" in pkg.members:
            _fill_rules(pkg.members["rules"])
        _convert(pkg)
