"""Every script in examples/ runs, with small sizes, as a new user would run it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"

# (script, arguments, text the output must contain)
CASES: list[tuple[str, tuple[str, ...], tuple[str, ...]]] = [
    ("minimal_embed.py", (), ("practice: the round ended by", "P2:", "winners: P")),
    (
        "minimal_embed.py",
        ("--variant", "penalty", "--players", "4", "--seed", "5"),
        ("penalty: the round ended by", "P3:"),
    ),
    (
        "custom_variant.py",
        ("--games", "20"),
        (
            "kitchen-table: Practice with red kings at -2",
            "What changes from practice:",
            "caller penalty",
            "One round: ended by",
            "20 rounds between 4 MemoryBots",
        ),
    ),
    (
        "compare_house_rules.py",
        ("--games", "20", "--seed", "3"),
        ("20 rounds per table", "practice", "red-kings-minus-two", "±"),
    ),
    (
        "compare_house_rules.py",
        ("--games", "8", "--jobs", "2"),
        ("8 rounds per table", "red-kings-minus-two"),
    ),
    (
        "event_loop.py",
        (),
        (
            "[P0 sees] P1 opening-peek P1:3 P1:4 [?? ??]",
            "refused P2 call: it is P0's decision",
            "every client's events equal its view's history: True",
        ),
    ),
    (
        "event_loop.py",
        ("--variant", "snap", "--seed", "2", "--quiet"),
        ("snap: ended by", "every client's events equal its view's history: True"),
    ),
    (
        "event_loop.py",
        ("--variant", "practice", "--quiet"),
        ("practice: ended by", "every client's events equal its view's history: True"),
    ),
    (
        "pettingzoo_random.py",
        ("--episodes", "2", "--variant", "snap"),
        ("episode 0:", "episode 1:", "returns player_0"),
    ),
    ("cfr_micro.py", ("--iterations", "0"), ("iteration    0  NashConv", "uniform random policy")),
]


def _run(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )


@pytest.mark.parametrize(
    ("script", "args", "expected"),
    CASES,
    ids=[f"{script}{' ' if args else ''}{' '.join(args)}" for script, args, _ in CASES],
)
def test_example_runs(script: str, args: tuple[str, ...], expected: tuple[str, ...]) -> None:
    proc = _run(script, *args)
    assert proc.returncode == 0, f"{script} failed:\n{proc.stdout}\n{proc.stderr}"
    for text in expected:
        assert text in proc.stdout, f"{text!r} not in the output of {script}:\n{proc.stdout}"


def test_every_example_is_run() -> None:
    scripts = {p.name for p in EXAMPLES.glob("*.py")}
    assert scripts == {script for script, _, _ in CASES}


def test_custom_variant_reports_every_problem(tmp_path: Path) -> None:
    table = tmp_path / "broken.toml"
    table.write_text(
        'extends = "practice"\n[values.red]\nK = "minus two"\n[snap]\nwhen = "sometimes"\n',
        encoding="utf-8",
    )
    proc = _run("custom_variant.py", str(table))
    assert proc.returncode == 1
    assert "values.red.K: expected an integer" in proc.stderr
    assert "snap.when: expected one of" in proc.stderr


def test_house_rule_is_a_valid_table() -> None:
    import cambio

    rules = cambio.load_ruleset(EXAMPLES / "house_rule.toml")
    assert rules.name == "kitchen-table"
    assert rules.values.red["K"] == -2
    assert rules.call.penalty == 5
