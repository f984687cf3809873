"""cambio.simulate and the `cambio simulate` command."""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any

import pytest

import cambio
from cambio.bots import MemoryBot, MemoryBotConfig
from cambio.cli import main

TIMING = ("seconds", "decisions_per_second")


def stable(report: cambio.SimulationReport) -> dict[str, Any]:
    data = report.to_dict()
    for key in TIMING:
        data.pop(key)
    return data


def test_report_fields_add_up() -> None:
    report = cambio.simulate(cambio.RuleSet(), 3, ["memory", "random", "random"], 60, seed=4)
    assert report.games == 60
    assert report.players == 3
    assert [s.bot for s in report.seats] == ["memory", "random", "random"]
    assert sum(s.win_rate for s in report.seats) == pytest.approx(1.0)
    assert sum(report.endings.values()) == 60
    assert report.decisions == pytest.approx(report.mean_decisions * 60)
    assert report.mean_turns <= report.mean_decisions
    assert report.caller_success_rate is None or 0 <= report.caller_success_rate <= 1
    assert report.decisions_per_second > 0
    for seat in report.seats:
        assert seat.outright <= seat.wins + 1e-9
        assert seat.calls_won <= seat.calls


def test_same_seed_same_numbers_whatever_the_chunks_and_executor() -> None:
    args = ("snap", 3, ["memory", "random", "random-nocall"], 40)
    one = stable(cambio.simulate(*args, seed=7))
    assert stable(cambio.simulate(*args, seed=7, chunk_size=3)) == one
    with ThreadPoolExecutor(3) as pool:
        assert stable(cambio.simulate(*args, seed=7, executor=pool, chunk_size=7)) == one
    with ProcessPoolExecutor(2) as pool:
        assert stable(cambio.simulate(*args, seed=7, executor=pool)) == one
    assert stable(cambio.simulate(*args, seed=8)) != one


def test_picklable_factories_run_in_processes() -> None:
    forgetful = functools.partial(MemoryBot, MemoryBotConfig(memory_turns=4))
    bots = [forgetful, "random", "random"]
    with ProcessPoolExecutor(2) as pool:
        parallel = cambio.simulate("practice", 3, bots, 20, seed=1, executor=pool)
    assert stable(parallel) == stable(cambio.simulate("practice", 3, bots, 20, seed=1))
    assert parallel.seats[0].bot == "MemoryBot"


def test_rotation_reports_per_bot() -> None:
    fixed = cambio.simulate("practice", 3, ["memory", "random", "random"], 30, seed=2)
    rotated = cambio.simulate(
        "practice", 3, ["memory", "random", "random"], 30, seed=2, rotate=True
    )
    assert rotated.rotate and not fixed.rotate
    assert sum(s.win_rate for s in rotated.seats) == pytest.approx(1.0)
    assert rotated.seats[0].bot == "memory"


def test_progress_is_reported() -> None:
    done: list[int] = []
    cambio.simulate("practice", 2, ["memory", "random"], 12, seed=1, progress=done.append)
    assert sum(done) == 12
    done.clear()
    with ThreadPoolExecutor(2) as pool:
        cambio.simulate(
            "practice", 2, ["memory", "random"], 12, 1, pool, chunk_size=5, progress=done.append
        )
    assert sorted(done) == [2, 5, 5]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"games": 0}, "games must be"),
        ({"players": 9, "bots": ["random"] * 9}, "seats 2 to 6 players"),
        ({"bots": ["memory", "robot", "random"]}, "unknown bot 'robot'"),
        ({"bots": ["memory", "random"]}, "3 players need 3 bots"),
    ],
)
def test_bad_arguments_raise_clear_errors(kwargs: dict[str, Any], message: str) -> None:
    args: dict[str, Any] = {
        "rules": "practice",
        "players": 3,
        "bots": ["memory", "random", "random"],
        "games": 5,
        "seed": 1,
    }
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        cambio.simulate(**args)


def test_memory_bot_wins_clearly_more_than_random_bots() -> None:
    report = cambio.simulate("practice", 3, ["memory", "random", "random"], 300, seed=1)
    memory, *randoms = report.seats
    for seat in randoms:
        assert memory.win_rate > 3 * seat.win_rate
    assert memory.mean_score < min(s.mean_score for s in randoms)


@pytest.mark.parametrize("table", ["snap", "penalty"])
def test_memory_bot_is_sensible_on_snapping_tables(table: str) -> None:
    report = cambio.simulate(table, 3, ["memory", "random", "random"], 150, seed=1)
    memory, *randoms = report.seats
    for seat in randoms:
        assert memory.win_rate > 2 * seat.win_rate


# ------------------------------------------------------------------ the command
def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["simulate", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_cli_prints_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run_cli(
        capsys,
        "--variant",
        "practice",
        "--players",
        "3",
        "--bots",
        "memory,random,random",
        "--games",
        "30",
        "--seed",
        "1",
    )
    assert status == 0, err
    for text in (
        "win rate",
        "mean score",
        "memory",
        "random",
        "Rounds ended by",
        "call",
        "Caller success rate: ",
        "decisions",
    ):
        assert text in out


def test_cli_json_is_the_same_for_one_and_two_jobs(capsys: pytest.CaptureFixture[str]) -> None:
    common = [
        "--variant",
        "practice",
        "--players",
        "3",
        "--bots",
        "memory,random,random",
        "--games",
        "40",
        "--seed",
        "1",
        "--json",
    ]
    s1, out1, _ = run_cli(capsys, *common, "--jobs", "1")
    s2, out2, _ = run_cli(capsys, *common, "--jobs", "2")
    assert s1 == s2 == 0
    one, two = json.loads(out1), json.loads(out2)
    for key in (
        "games",
        "seats",
        "endings",
        "decisions",
        "seconds",
        "decisions_per_second",
        "variant",
        "players",
        "seed",
        "mean_turns",
        "mean_decisions",
        "caller_success_rate",
    ):
        assert key in one
    assert one["games"] == 40 and one["variant"] == "practice" and one["seed"] == 1
    assert [s["bot"] for s in one["seats"]] == ["memory", "random", "random"]
    assert {"bot", "win_rate", "mean_score"} <= set(one["seats"][0])
    for key in TIMING:
        one.pop(key)
        two.pop(key)
    assert one == two


def test_cli_no_call_makes_random_bots_never_call(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_cli(
        capsys,
        "--bots",
        "memory,random,random",
        "--games",
        "20",
        "--seed",
        "2",
        "--json",
        "--no-call",
    )
    assert status == 0
    data = json.loads(out)
    assert [s["bot"] for s in data["seats"]] == ["memory", "random-nocall", "random-nocall"]
    assert all(s["calls"] == 0 for s in data["seats"][1:])


@pytest.mark.parametrize(
    ("argv", "status", "needle"),
    [
        (["--variant", "nope"], 1, "nope"),
        (["--bots", "memory,robot"], 2, "unknown bot 'robot'"),
        (["--players", "9"], 2, "seats 2 to 6"),
        (["--games", "0"], 2, "--games must be 1 or more"),
        (["--players", "2", "--bots", "memory,random,random"], 2, "needs 2 bots"),
        (["--games", "many"], 2, "invalid int value"),
    ],
)
def test_cli_bad_arguments(
    capsys: pytest.CaptureFixture[str], argv: list[str], status: int, needle: str
) -> None:
    got, out, err = run_cli(capsys, *argv)
    assert got == status
    assert needle in err
    assert "Traceback" not in err + out
    if got == 1 or "invalid int" not in needle:
        assert len(err.strip().splitlines()) == 1


def test_cli_subprocess_json() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "cambio",
            "simulate",
            "--games",
            "10",
            "--seed",
            "3",
            "--json",
            "--jobs",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["games"] == 10


def test_dask_local_gives_the_same_json_as_two_jobs(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("dask.distributed", reason="the [dask] extra is not installed")
    common = ["--variant", "snap", "--bots", "memory,random,random", "--games", "24"]
    common += ["--seed", "5", "--json"]
    s1, out1, err1 = run_cli(capsys, *common, "--jobs", "2")
    s2, out2, err2 = run_cli(capsys, *common, "--jobs", "2", "--dask", "local")
    assert (s1, err1) == (0, "")
    assert s2 == 0, err2
    jobs, dask = json.loads(out1), json.loads(out2)
    for key in TIMING:
        assert dask.pop(key) > 0
        jobs.pop(key)
    assert dask == jobs
    assert dask["games"] == 24


def test_dask_errors_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("dask.distributed", reason="the [dask] extra is not installed")
    status, out, err = run_cli(capsys, "--games", "2", "--dask", "tcp://127.0.0.1:9")
    assert status == 2 and out == ""
    assert err.startswith("cambio simulate: error: cannot reach the Dask scheduler at")
    assert "Traceback" not in err and err.count("\n") == 1


# --- confidence intervals and turn-one calls ----------------------------------------


def test_wilson_interval_matches_the_textbook_and_brackets_the_rate() -> None:
    from cambio.simulate import wilson_interval

    # 60 wins in 100: the Wilson 95% interval is 0.5020 to 0.6906
    low, high = wilson_interval(60, 100)
    assert low == pytest.approx(0.5020, abs=5e-4) and high == pytest.approx(0.6906, abs=5e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    low, high = wilson_interval(0, 20)
    assert low == 0.0 and 0.1 < high < 0.2  # not empty at a rate of 0
    low, high = wilson_interval(20, 20)
    assert high == 1.0 and 0.8 < low < 0.9
    for wins, games in ((3.5, 10), (250, 1000), (999, 1000)):
        low, high = wilson_interval(wins, games)
        assert 0.0 <= low <= wins / games <= high <= 1.0
    # more rounds at the same rate: a narrower interval
    widths = [wilson_interval(0.4 * n, n) for n in (50, 200, 800)]
    assert widths[0][1] - widths[0][0] > widths[1][1] - widths[1][0] > widths[2][1] - widths[2][0]


class CallAtTurn:
    """Calls in its ``turn``-th turn (counted from 1) when it may, else draws and discards."""

    def __init__(self, turn: int) -> None:
        self.turn = turn
        self.seat = -1

    def reset(self, seat: int, rules: cambio.RuleSet, seed: int | None) -> None:
        self.seat = seat

    def act(self, view: cambio.PlayerView, legal: Any) -> cambio.Action:
        kinds = {a.kind: a for a in legal}
        if cambio.ActionKind.CALL in kinds and view.turns[self.seat] + 1 >= self.turn:
            return kinds[cambio.ActionKind.CALL]
        for kind in (cambio.ActionKind.DRAW, cambio.ActionKind.DISCARD, cambio.ActionKind.PASS):
            if kind in kinds:
                return kinds[kind]
        return next(a for a in legal if a.kind is not cambio.ActionKind.CALL)

    def react(self, view: cambio.PlayerView, snaps: Any) -> None:
        return None


def test_turn_one_calls_count_calls_in_the_callers_first_turn() -> None:
    eager = functools.partial(CallAtTurn, 1)
    later = functools.partial(CallAtTurn, 2)
    report = cambio.simulate("practice", 2, [eager, later], 30, seed=3, rotate=True)
    first, second = report.seats
    # the eager bot calls in its first turn in every round it gets one (the other bot
    # never calls before its own second turn)
    assert first.calls == 30 and first.turn_one_calls == 30
    assert second.calls == 0 and second.turn_one_calls == 0
    assert report.turn_one_calls == 30
    report = cambio.simulate("practice", 2, [later, "random-nocall"], 20, seed=3, rotate=True)
    assert report.seats[0].calls == 20 and report.seats[0].turn_one_calls == 0
    assert report.turn_one_calls == 0


def test_each_seat_has_a_confidence_interval_around_its_rate() -> None:
    from cambio.simulate import wilson_interval

    report = cambio.simulate("practice", 3, ["memory", "random", "random"], 60, seed=2)
    for seat in report.seats:
        low, high = seat.win_rate_ci95
        assert low <= seat.win_rate <= high
        assert (low, high) == wilson_interval(seat.wins, report.games)
    assert report.turn_one_calls == sum(s.turn_one_calls for s in report.seats)
    assert report.seats[0].win_rate_ci95[0] > report.seats[1].win_rate_ci95[1]  # memory wins


def test_cli_shows_the_intervals_and_turn_one_calls(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("--bots", "memory,random", "--games", "40", "--seed", "6", "--rotate")
    status, out, _ = run_cli(capsys, *args)
    assert status == 0
    assert "95% CI (Wilson score interval" in out
    assert "Turn-one calls (a call in the caller's first turn): " in out
    status, out, _ = run_cli(capsys, *args, "--json")
    data = json.loads(out)
    assert data["ci_method"] == "wilson"
    assert data["turn_one_calls"] == sum(s["turn_one_calls"] for s in data["seats"])
    for seat in data["seats"]:
        low, high = seat["win_rate_ci95"]
        assert low <= seat["win_rate"] <= high
