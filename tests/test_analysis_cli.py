"""``cambio analyse`` and ``cambio review``: their tables, JSON, and errors without a
traceback, on saved rounds, written positions and games saved by ``cambio play``."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

import cambio
from cambio.bots import MemoryBot, play_round
from cambio.cli import main
from piped import cambio_command

POSITION = "AS,2S,3S@0,4S@0/5S,6S,7S@1,8S@1 s:KH@0 9S 10S,... drawn 0 0,0"


@pytest.fixture(autouse=True)
def _wide(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("COLUMNS", "250")
    monkeypatch.chdir(tmp_path)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def command(args: list[str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    return cambio_command(args, stdin, timeout=300, env={"COLUMNS": "200"})


def _finished(path: Path) -> cambio.Round:
    rnd = cambio.Round("practice", players=2, seed=5)
    play_round(rnd, [MemoryBot(), MemoryBot()], seed=5)
    path.write_text(rnd.to_json(), encoding="utf-8")
    return rnd


def test_analyse_a_position_prints_every_action(capsys: pytest.CaptureFixture[str]) -> None:
    Path("pos.txt").write_text(POSITION + "\n", encoding="utf-8")
    status, out, err = run(capsys, "analyse", "pos.txt", "--variant", "practice", "--samples", "6")
    assert status == 0, err
    assert "seat 0 to decide (drawn), 6 rounds drawn from its view, seed 1" in out
    for label in ("P0 discard", "P0 replace P0:1", "P0 replace P0:4"):
        assert label in out
    assert "best" in out and "Wilson 95% interval" in out
    again = run(capsys, "analyse", "pos.txt", "--variant", "practice", "--samples", "6")
    assert again[1] == out  # the same seed, the same numbers


def test_analyse_json_matches_the_library(capsys: pytest.CaptureFixture[str]) -> None:
    rnd = cambio.Round("practice", players=2, seed=5)
    rnd.apply(cambio.Action.draw(0))
    Path("mid.json").write_text(rnd.to_json(), encoding="utf-8")
    status, out, err = run(capsys, "analyse", "mid.json", "--samples", "5", "--seed", "3", "--json")
    assert status == 0, err
    doc = json.loads(out)
    expected = cambio.analyse(rnd.view(0), rnd.rules, samples=5, seed=3)
    assert doc["seat"] == 0 and doc["phase"] == "drawn" and doc["samples"] == 5
    assert [a["label"] for a in doc["actions"]] == [e.label for e in expected.estimates]
    assert [a["win"] for a in doc["actions"]] == [e.win for e in expected.estimates]
    assert doc["actions"][0]["win_interval"] == [expected.best.win_low, expected.best.win_high]


def test_analyse_refuses_bad_input_without_a_traceback(
    capsys: pytest.CaptureFixture[str],
) -> None:
    Path("pos.txt").write_text(POSITION, encoding="utf-8")
    _finished(Path("round.json"))
    Path("bad.json").write_text('{"format": 3}', encoding="utf-8")
    Path("broken.txt").write_text("AS,2S nonsense", encoding="utf-8")
    cases = [
        (["nofile.json"], 1, "nofile.json: no such file"),
        (["pos.txt"], 2, "a written position needs --variant"),
        (["pos.txt", "--variant", "practice", "--seat", "4"], 2, "there is no seat 4"),
        (["pos.txt", "--variant", "practice", "--seat", "1"], 2, "seat 1 has no decision"),
        (["pos.txt", "--variant", "practice", "--samples", "1"], 2, "--samples must be 2"),
        (["round.json"], 2, "the round is over; try cambio review"),
        (["bad.json"], 2, "$.format: not a saved round"),
        (["broken.txt", "--variant", "practice"], 2, "broken.txt: column"),
        (["pos.txt", "--variant", "no-such-table"], 1, "no-such-table"),
    ]
    for args, status, message in cases:
        got, _, err = run(capsys, "analyse", *args)
        assert got == status, (args, err)
        assert message in err, (args, err)
        assert "Traceback" not in err


def test_review_a_saved_round(capsys: pytest.CaptureFixture[str]) -> None:
    rnd = _finished(Path("round.json"))
    status, out, err = run(capsys, "review", "round.json", "--seat", "1", "--samples", "4")
    assert status == 0, err
    assert out.startswith("Round 1 (finished), seat 1:")
    assert "win cost" in out and "score cost" in out
    status, out, err = run(
        capsys, "review", "round.json", "--seat", "1", "--samples", "4", "--json", "--top", "0"
    )
    assert status == 0, err
    (doc,) = json.loads(out)
    expected = cambio.review(rnd, 1, samples=4, seed=1)
    assert [d["index"] for d in doc["decisions"]] == [d.index for d in expected.decisions]
    assert doc["win_cost"] == pytest.approx(expected.win_cost)
    for args, status, message in [
        (["round.json", "--seat", "3"], 2, "there is no seat 3 in this game (0, 1)"),
        (["round.json", "--top", "-1"], 2, "--top must be 0 or more"),
        (["gone.json"], 1, "gone.json: no such file"),
    ]:
        got, _, err = run(capsys, "review", *args)
        assert got == status and message in err and "Traceback" not in err, (args, err)
    Path("pos.txt").write_text(POSITION, encoding="utf-8")
    got, _, err = run(capsys, "review", "pos.txt")
    assert got == 2 and "a written position has no decisions to review" in err


def test_review_reads_a_game_saved_by_cambio_play() -> None:
    left = command(["play", "--seed", "3", "--save", "g.json"], "d\nx\nd\nx\nq\n")
    assert left.returncode == 0, left.stderr
    assert json.loads(Path("g.json").read_text(encoding="utf-8"))["format"] == "cambio-play/1"
    done = command(["review", "g.json", "--samples", "3"])
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Round 1 (unfinished), seat 0:")
    assert "P0 draw" in done.stdout
    ask = command(["analyse", "g.json", "--seat", "0", "--samples", "3", "--json"])
    assert ask.returncode == 0, ask.stderr
    assert json.loads(ask.stdout)["seat"] == 0


def test_analyse_reads_a_position_piped_on_standard_input() -> None:
    done = command(["analyse", "-", "--variant", "practice", "--samples", "3"], POSITION)
    assert done.returncode == 0, done.stderr
    assert "P0 discard" in done.stdout
    bad = command(["analyse", "-", "--variant", "practice"], "not a position")
    assert bad.returncode == 2
    assert "cambio analyse: -:" in bad.stderr and "Traceback" not in bad.stderr


def test_review_reads_a_saved_round_piped_on_standard_input() -> None:
    rnd = cambio.Round("practice", players=2, seed=5)
    play_round(rnd, [MemoryBot(), MemoryBot()], seed=5)
    done = command(["review", "-", "--seat", "0", "--samples", "3", "--top", "2"], rnd.to_json())
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Round 1 (finished), seat 0:")
    bad = command(["review", "-", "--seat", "0"], "{not json")
    assert bad.returncode == 2
    assert "cambio review: -: $: not JSON" in bad.stderr and "Traceback" not in bad.stderr
