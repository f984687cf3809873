"""Smoke tests of the benchmark scripts: tiny sizes, no timing asserted.

Each script runs in a subprocess with ``--json`` and must finish and print the keys the
README documents. The reference loop must play the very games the engine plays (same
deals, same choices): otherwise the two figures would not measure one workload.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"

pytestmark = pytest.mark.skipif(not BENCH.is_dir(), reason="no benchmarks folder")


def _run(script: str, *args: str) -> dict:
    proc = subprocess.run(
        [sys.executable, str(BENCH / script), *args, "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_reference_loop_runs() -> None:
    out = _run("reference_loop.py", "--rounds", "5", "--repeat", "1")
    for key in ("decisions", "decisions_per_second", "rounds_per_second", "decisions_per_round"):
        assert key in out
    assert out["decisions"] > 0


def test_bench_engine_runs() -> None:
    out = _run(
        "bench_engine.py",
        "--rounds", "3", "--repeat", "1", "--profile-rounds", "1", "--copy-samples", "3",
        "--view-samples", "3", "--memory-rounds", "5", "--mid", "20",
    )  # fmt: skip
    for key in (
        "decisions_per_second",
        "rounds_per_second",
        "decisions_per_round",
        "profiles",
        "copy_start_us",
        "copy_mid_us",
        "view_us",
        "memory_per_round_bytes",
    ):
        assert key in out
    profiles = out["profiles"]
    if "skipped" not in profiles:
        assert "practice" in profiles
        assert all("error" not in r for r in profiles.values()), profiles


def test_compare_runs() -> None:
    out = _run(
        "compare.py",
        "--repeat", "1", "--reference-rounds", "5", "--engine-rounds", "3",
        "--copy-samples", "3", "--check", "3",
    )  # fmt: skip
    for key in ("reference_decisions_per_second", "engine_decisions_per_second", "ratio"):
        assert key in out
    for key in ("ratio_min_holds", "ratio_aim_holds", "copy_holds", "copy_start_us"):
        assert key in out
    assert out["same_games_mismatches"] == []


def test_profile_engine_runs() -> None:
    out = _run("profile_engine.py", "--rounds", "2", "--top", "5")
    assert out["cumulative"] and out["own"]
    assert {"function", "cumulative_pct", "own_pct"} <= set(out["cumulative"][0])


def test_reference_plays_the_engine_games() -> None:
    sys.path.insert(0, str(BENCH))
    try:
        import bench_engine
        import reference_loop
    finally:
        sys.path.remove(str(BENCH))
    import cambio

    rules = cambio.RuleSet()
    for seed in range(25):
        log: list = []
        decisions, totals = reference_loop.play_round(seed, log=log)
        n, rnd = bench_engine.play_practice_round(rules, seed)
        assert rnd.result is not None and rnd.result.reason == "stock"
        assert (n, tuple(rnd.result.totals)) == (decisions, totals), seed
        assert [e[0] for e in log] == [e.kind for e in rnd.events], seed


def test_bench_search_runs() -> None:
    out = _run("bench_search.py", "--games", "2", "--playouts", "4", "--views", "1", "--seed", "3")
    duel = out["duel"]
    for key in ("win_share", "ci95", "fair_share", "ms_per_decision_mean", "searched_decisions"):
        assert key in duel
    assert 0.0 <= duel["win_share"] <= 1.0
    assert out["determinize"]["views"] > 0


def test_speed_reports_every_figure_with_its_target() -> None:
    out = _run("speed.py", "--quick")
    figures = (
        "engine_ratio",
        "simulate_random_ratio",
        "simulate_memory_ratio",
        "snap_vs_practice",
        "penalty_vs_practice",
        "deal_us",
        "copy_us",
        "to_json_ms",
        "save_kb",
        "from_json_ms",
    )
    assert set(out["targets"]) == set(figures)
    for key in figures:
        assert out[key] > 0
        assert {"target", "kind", "met"} <= set(out["targets"][key])


def _has_revision(rev: str) -> bool:
    """Whether git can read ``rev`` in this checkout (not in a shallow clone without it,
    nor where git or the repository is missing)."""
    try:
        done = subprocess.run(
            ["git", "-C", str(BENCH), "cat-file", "-e", f"{rev}^{{commit}}"],
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def test_speed_measures_an_older_revision_beside_this_tree() -> None:
    rev = "c37d725"  # the code issue 17 was filed against
    if not _has_revision(rev):
        pytest.skip(f"git or revision {rev} is not available here")
    out = _run("speed.py", "--quick", "--baseline", rev)
    assert out["baseline"] == rev
    assert out["baseline_decisions"] > 0 and out["memory_decisions"] > 0
    assert out["baseline_memory_dps"] > 0
    assert out["simulate_memory_vs_baseline"] > 0
    target = out["targets"]["simulate_memory_vs_baseline"]
    assert target["target"] == 2.0 and target["kind"] == "min"


def test_server_benchmark_runs() -> None:
    out = _run("bench_server.py", "--tables", "2")
    for key in ("actions", "actions_per_second", "p50_ms", "p95_ms", "errors", "failed_tables"):
        assert key in out
    assert out["actions"] > 0
    assert out["errors"] == out["failed_tables"] == out["inconsistent_tables"] == 0


def test_bench_analysis_runs() -> None:
    out = _run("bench_analysis.py", "--rounds", "1", "--samples", "2", "--every", "4")
    for key in ("analyses", "candidates_mean", "drawn_rounds_per_second", "playouts_per_second"):
        assert key in out
    assert out["analyses"] > 0 and out["samples"] == 2
    assert out["review"]["decisions"] > 0


def test_bench_rl_runs() -> None:
    out = _run("bench_rl.py", "--seconds", "0.02", "--repeat", "1", "--num-envs", "3")
    tables = out["steps_per_cpu_second"]
    assert set(tables) == {"practice 2p", "snap 3p", "cabo 4p"}
    for row in tables.values():
        assert set(row) == {"single", "vector", "pettingzoo", "engine"}
        assert all(cell["best"] >= cell["worst"] > 0 for cell in row.values())
