"""check_rules keeps its messages and their order across refactors.

``tests/fixtures/rule_problems.json`` was recorded from check_rules for the bad tables of
``tests/rule_problem_tables.py``; each table must yield the same (path, message) pairs in
the same order. Regenerate the file only when a message is meant to change.
"""

from __future__ import annotations

import ast
import inspect
import json
from pathlib import Path

import pytest

from cambio import rules
from cambio.rules import check_rules
from rule_problem_tables import BAD_TABLES

EXPECTED: dict[str, list[list[str]]] = json.loads(
    (Path(__file__).parent / "fixtures" / "rule_problems.json").read_text(encoding="utf-8")
)


def test_every_bad_table_has_its_record() -> None:
    assert sorted(EXPECTED) == sorted(BAD_TABLES)


@pytest.mark.parametrize("name", sorted(BAD_TABLES))
def test_problems_are_the_recorded_ones_in_order(name: str) -> None:
    got = [list(p) for p in check_rules(BAD_TABLES[name])]
    assert got == EXPECTED[name]
    assert got, f"{name} is meant to be a bad table"


def test_the_default_table_has_no_problem() -> None:
    assert check_rules(rules.RuleSet()) == []


def test_section_checks_are_short_and_documented() -> None:
    tree = ast.parse(inspect.getsource(rules))
    checks = [
        node
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name.startswith("_problems")
    ]
    assert len(checks) >= 10
    for node in checks:
        assert ast.get_docstring(node), node.name
        assert node.end_lineno is not None
        assert node.end_lineno - node.lineno + 1 <= 150, node.name
