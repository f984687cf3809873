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
    (
        "ismcts_openspiel.py",
        ("--games", "4", "--simulations", "5"),
        ("practice: ISMCTS (5 simulations a decision) won", "of 4 rounds"),
    ),
    ("minimal_embed.py", (), ("practice: the round ended by", "P2:", "winners: P")),
    (
        "train_vector.py",
        ("--envs", "4", "--updates", "4", "--episodes", "8", "--report", "2"),
        ("updates   1-2   win rate", "practice, 2 players, against random: win rate"),
    ),
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
    (
        "coach.py",
        ("--samples", "4", "--seed", "2"),
        ("practice: seat 0", "decisions reviewed; the costliest:", "every action of that decision"),
    ),
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


def test_club_table_is_valid_and_plays() -> None:
    """The club table of examples/ builds on snap with the newer settings, and a match under
    it plays to the end with the bots, through the command line as well."""
    import cambio
    from cambio.bots import MemoryBot

    rules = cambio.load_ruleset(EXAMPLES / "club_table.toml")
    snap = cambio.load_ruleset("snap")
    assert rules.name == "the-tuesday-club"
    assert rules.values.red == {} and snap.values.red == {"K": -1}
    assert rules.powers.power_of(cambio.Card("K", "S")) is None
    assert rules.powers.power_of(cambio.Card("Q", "S")) == snap.powers.power_of(
        cambio.Card("Q", "S")
    )
    assert (rules.snap.per_discard, rules.snap.last_discard) == ("each", True)
    assert rules.scoring.placement["4"] == (-5, -2, 0, 0)
    assert rules.match.starter == "last-winner"

    for seed in range(3):
        m = cambio.Match(rules, 4, seed=seed)
        bots = [MemoryBot() for _ in range(4)]
        for seat, bot in enumerate(bots):
            bot.reset(seat, rules, seed)
        steps = 0
        while not m.is_over and steps < 20_000:
            steps += 1
            for seat in m.reactors:
                view = m.view(seat).round
                assert view is not None
                snap_action = bots[seat].react(view, m.legal_actions(seat, kind="snap"))
                if snap_action is not None and m.can_apply(snap_action):
                    m.apply(snap_action)
                    break
            else:
                who = m.to_act
                assert who is not None
                view = m.view(who).round
                assert view is not None
                m.apply(bots[who].act(view, m.legal_actions(who)))
        result = m.result
        assert result is not None, "the club's match did not end"
        for record in result.rounds:
            # every round scored as the public scoring function scores its final hands,
            # placement bonuses included
            res = record.result
            hands = []
            for hand in res.hands:
                row: list[cambio.Card | None] = [None] * max((h.position for h in hand), default=0)
                for h in hand:
                    row[h.position - 1] = h.card
                hands.append(row)
            again = cambio.score_hands(rules, hands, caller=res.caller, reason=res.reason)
            assert again == res
        assert cambio.Match.from_json(m.to_json()) == m

    report = cambio.simulate(rules, 3, ["memory", "random", "memory"], games=30, seed=4)
    assert report.games == 30

    proc = subprocess.run(
        [sys.executable, "-m", "cambio", "validate", str(EXAMPLES / "club_table.toml")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0 and "ok" in proc.stdout
