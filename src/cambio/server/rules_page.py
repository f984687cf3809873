"""A table's quick reference as a web page (``/rules/NAME`` of ``cambio serve``).

The text is :func:`cambio.render.quick_reference`'s, computed from the RuleSet; this
module only marks it up: the title, the summary paragraphs, a heading per section, a
list item per rule and the grid's diagram as preformatted text. The page links the
table's style sheet, whose print rules give a plain page on paper.

>>> from cambio.loading import load_ruleset
>>> page = rules_html(load_ruleset("practice"))
>>> "<h1>CAMBIO · PRACTICE</h1>" in page and "<h2>A TURN</h2>" in page
True
"""

from __future__ import annotations

import html
import textwrap

from ..render import quick_reference
from ..rules import RuleSet

__all__ = ["rules_html"]

_WIDE = 10_000
"""A line width no sentence reaches: each rule comes out on one line."""


def _is_heading(line: str) -> bool:
    return not line.startswith(" ") and line.upper() == line and any(c.isalpha() for c in line)


def _body(text: str) -> list[str]:
    """The quick reference's lines as HTML elements."""
    lines = text.splitlines()
    out: list[str] = [f"<h1>{html.escape(lines[0])}</h1>"]
    items: list[list[str]] = []

    def close_list() -> None:
        if not items:
            return
        out.append("<ul>")
        for item in items:
            words = [x for x in item if not x.lstrip().startswith("[")]
            diagram = [x for x in item if x.lstrip().startswith("[")]
            cell = html.escape(" ".join(w.strip() for w in words))
            if diagram:
                cell += (
                    '<pre class="diagram">'
                    + html.escape(textwrap.dedent("\n".join(diagram)))
                    + "</pre>"
                )
            out.append(f"<li>{cell}</li>")
        out.append("</ul>")
        items.clear()

    for line in lines[1:]:
        if set(line) == {"="}:
            continue
        if not line.strip():
            close_list()
        elif line.startswith("  - "):
            items.append([line[4:]])
        elif line.startswith("    ") and items:
            items[-1].append(line)
        elif _is_heading(line):
            close_list()
            out.append(f"<h2>{html.escape(line)}</h2>")
        else:
            close_list()
            out.append(f"<p>{html.escape(line)}</p>")
    close_list()
    return out


def rules_html(rules: RuleSet) -> str:
    """The whole HTML page of ``rules``'s quick reference."""
    title = html.escape(f"Cambio: the {rules.name} table's rules")
    body = "\n".join(_body(quick_reference(rules, width=_WIDE)))
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{title}</title>\n"
        '<link rel="icon" href="data:,">\n'
        '<link rel="stylesheet" href="/static/style.css">\n'
        '</head>\n<body class="rules-page">\n'
        '<nav class="no-print"><a href="/">Back to the tables</a> \u00b7 '
        '<button type="button" onclick="window.print()">Print these rules</button></nav>\n'
        f'<main class="reference">\n{body}\n</main>\n</body>\n</html>\n'
    )
