"""A table folder with damaged files: each bad file spoils only itself.

``Engine(store=...)`` (and so ``cambio serve`` and ``cambio engine --store``) loads every
table file on its own: one that does not load is moved into ``STORE/damaged/`` with its
reason logged and kept in ``Engine.store_report``; leftovers of interrupted writes are
removed; every other table loads and plays on. ``cambio serve --check`` reports the same
without changing the folder.
"""

from __future__ import annotations

import copy
import json
import logging
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from cambio.cli import main
from cambio.protocol import MAX_SAVE_BYTES, Engine, check_store
from cambio.server.app import ServerConfig, create_app

GOOD = ("alpha", "beta")
LEFTOVER = ".alpha.k3j_x9q2.tmp"


def _save(saves: dict[str, Any], name: str) -> dict[str, Any]:
    """Alpha's save renamed ``name`` (a save whose name agrees with its file)."""
    save = copy.deepcopy(saves["alpha"])
    save["name"] = name
    return save


def _tampered_action(saves: dict[str, Any]) -> bytes:
    save = _save(saves, "tampered-action")
    save["match"]["actions"].append(10**6)  # no action has that id
    return json.dumps(save).encode()


def _tampered_card(saves: dict[str, Any]) -> bytes:
    save = _save(saves, "tampered-card")
    save["match"]["decks"] = [[["Z", "S"]]]  # a card the table's deck does not hold
    return json.dumps(save).encode()


# file name -> its bytes (made from the good saves), and a part of the reason it gets
BAD_FILES: dict[str, tuple[Callable[[dict[str, Any]], bytes], str]] = {
    "truncated.json": (lambda s: json.dumps(_save(s, "truncated")).encode()[:200], "not JSON"),
    "empty.json": (lambda s: b"", "empty"),
    "latin1.json": (lambda s: b'{"name": "caf\xe9"}', "not UTF-8 text (byte 13)"),
    "garbage.json": (lambda s: b"this is not a table at all\n", "not JSON"),
    "not-a-save.json": (lambda s: b"[1, 2, 3]", "not a valid save: not a saved table"),
    "tampered-action.json": (_tampered_action, "not an action id of this match"),
    "tampered-card.json": (_tampered_card, "deck holds ZS fewer times"),
    "copy.json": (lambda s: json.dumps(s["alpha"]).encode(), ""),
    "renamed.json": (lambda s: json.dumps(_save(s, "ghost")).encode(), ""),
    "bad name.json": (lambda s: json.dumps(_save(s, "bad name")).encode(), "not a table name"),
}
REASONS = {
    **{name: part for name, (_, part) in BAD_FILES.items()},
    "copy.json": "duplicate table name alpha (also in alpha.json)",
    "renamed.json": "the save is named 'ghost', unlike its file",
    "folder.json": "a folder, not a table file",
    "huge.json": f"{MAX_SAVE_BYTES + 1} bytes, more than a table file may hold",
    "link.json": "a symbolic link, not a table file",
}


def good_tables(folder: Path) -> dict[str, Any]:
    """Two tables, each one action in, saved in ``folder``; their saves."""
    engine = Engine(store=folder)
    saves = {}
    for seed, name in enumerate(GOOD, start=11):
        engine.handle({"type": "create", "table": name, "variant": "practice", "seed": seed})
        act_once(engine, name)
        saves[name] = engine.handle({"type": "save", "table": name})["save"]
    return saves


def act_once(engine: Engine, name: str) -> int:
    """One legal move (not a call) for the seat to act at table ``name``; its ``at`` after."""
    seat = engine.handle({"type": "view", "table": name, "seat": 0})["view"]["to_act"]
    legal = engine.handle({"type": "view", "table": name, "seat": seat})["legal"]
    action = next(a for a in legal if a["kind"] != "call")["id"]
    reply = engine.handle({"type": "act", "table": name, "seat": seat, "action": action})
    assert reply["type"] == "acted", reply
    return int(engine.handle({"type": "view", "table": name, "seat": 0})["view"]["at"])


def damaged_folder(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    """Two good tables beside every kind of bad file and a leftover of a killed write."""
    folder = tmp_path / "tables"
    saves = good_tables(folder)
    for name, (make, _) in BAD_FILES.items():
        (folder / name).write_bytes(make(saves))
    (folder / "folder.json").mkdir()
    (folder / "folder.json" / "inside.txt").write_text("kept with its folder")
    with (folder / "huge.json").open("wb") as huge:  # sparse: nothing to read but its size
        huge.truncate(MAX_SAVE_BYTES + 1)
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps(_save(saves, "link")))
    (folder / "link.json").symlink_to(outside)
    (folder / LEFTOVER).write_text('{"format": "cambio-tab')
    return folder, saves


def listing(folder: Path) -> list[tuple[str, int, int, int]]:
    """Every entry under ``folder`` (not following links): path, mode, size, mtime."""
    out = []
    for root, dirs, names in os.walk(folder):
        for name in sorted(dirs + names):
            path = Path(root) / name
            info = path.lstat()
            out.append(
                (str(path.relative_to(folder)), info.st_mode, info.st_size, info.st_mtime_ns)
            )
    return sorted(out)


# --------------------------------------------------------------------------- the engine


def test_each_bad_file_is_moved_aside_and_the_good_tables_play_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder, _ = damaged_folder(tmp_path)
    contents = {p.name: p.read_bytes() for p in folder.glob("*.json") if p.name in BAD_FILES}
    with caplog.at_level(logging.INFO, logger="cambio.store"):
        engine = Engine(store=folder)
    assert sorted(engine.tables) == list(GOOD)
    report = engine.store_report
    assert report is not None and report.changed and not report.ok
    assert report.loaded == list(GOOD)
    assert report.leftovers == [LEFTOVER]
    reasons = {entry.file: entry.reason for entry in report.damaged}
    assert sorted(reasons) == sorted(REASONS)
    for name, part in REASONS.items():
        assert part in reasons[name], (name, reasons[name])
    # each moved aside into damaged/, its name kept, nothing left in the folder but tables
    assert sorted(p.name for p in folder.iterdir()) == ["alpha.json", "beta.json", "damaged"]
    for entry in report.damaged:
        assert entry.moved_to is not None and entry.moved_to.parent == folder / "damaged"
        assert entry.moved_to.name.startswith(entry.file + ".")
        if entry.file in contents:
            assert entry.moved_to.read_bytes() == contents[entry.file]
    moved = {entry.file: entry.moved_to for entry in report.damaged}
    assert (moved["folder.json"] / "inside.txt").read_text() == "kept with its folder"
    assert moved["link.json"].is_symlink() and (tmp_path / "outside.json").exists()
    assert len(list((folder / "damaged").iterdir())) == len(REASONS)
    # one warning per damaged file, naming it and saying why; the leftover's removal
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warned) == len(REASONS)
    for name, reason in reasons.items():
        assert [w for w in warned if f"/{name} moved aside" in w and w.endswith(reason)]
    assert any(LEFTOVER in r.getMessage() for r in caplog.records if r.levelno == logging.INFO)
    # the good tables play on, and a new engine on the folder finds it clean
    at = {name: act_once(engine, name) for name in GOOD}
    again = Engine(store=folder)
    assert again.store_report is not None and again.store_report.ok
    assert again.store_report.loaded == list(GOOD) and again.store_report.leftovers == []
    for name in GOOD:
        assert again.handle({"type": "view", "table": name, "seat": 0})["view"]["at"] == at[name]


def test_moving_aside_never_overwrites_an_earlier_damaged_file(tmp_path: Path) -> None:
    folder = tmp_path / "tables"
    folder.mkdir()
    for text in ("first", "second", "third"):
        (folder / "garbage.json").write_text(text)
        report = Engine(store=folder).store_report
        assert report is not None and [d.file for d in report.damaged] == ["garbage.json"]
    kept = sorted(p.read_text() for p in (folder / "damaged").iterdir())
    assert kept == ["first", "second", "third"]


def test_a_store_without_damage_reports_only_its_tables(tmp_path: Path) -> None:
    folder = tmp_path / "tables"
    good_tables(folder)
    report = Engine(store=folder).store_report
    assert report is not None and report.ok
    assert (report.loaded, report.damaged, report.leftovers) == (list(GOOD), [], [])
    assert sorted(p.name for p in folder.iterdir()) == ["alpha.json", "beta.json"]
    assert Engine().store_report is None


def test_cambio_engine_store_starts_on_a_damaged_folder(tmp_path: Path) -> None:
    """``cambio engine --store``: one line on stderr per damaged file, no traceback."""
    folder, _ = damaged_folder(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "cambio", "engine", "--store", str(folder)],
        input='{"type": "view", "table": "alpha", "seat": 0}\n',
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["type"] == "view"
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == len(REASONS)
    for name in REASONS:
        assert [line for line in lines if f"/{name} moved aside" in line]


# --------------------------------------------------------------------------- cambio serve


def test_check_reports_every_bad_file_and_changes_nothing(tmp_path: Path) -> None:
    folder, _ = damaged_folder(tmp_path)
    before = listing(folder)
    expected = check_store(folder)
    assert listing(folder) == before and not expected.changed
    done = subprocess.run(
        [sys.executable, "-m", "cambio", "serve", "--check", str(folder)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert listing(folder) == before  # nothing moved, nothing removed
    assert done.returncode == 1 and done.stderr == ""
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"{folder}: loads 2 tables; {len(REASONS)} damaged files to move")
    assert lines[1:] == expected.lines()[1:]
    assert [line for line in lines if line.startswith("loads: ")] == [
        "loads: alpha.json",
        "loads: beta.json",
    ]
    for entry in expected.damaged:
        assert entry.moved_to is None
        assert f"damaged: {entry.file}: {entry.reason}" in lines
        assert REASONS[entry.file] in entry.reason
    assert f"leftover: {LEFTOVER}" in lines
    # the engine then moves aside exactly what the check listed, for the same reasons
    report = Engine(store=folder).store_report
    assert report is not None
    assert [(d.file, d.reason) for d in report.damaged] == [
        (d.file, d.reason) for d in expected.damaged
    ]
    assert (report.loaded, report.leftovers) == (expected.loaded, expected.leftovers)


def test_check_exits_0_on_a_clean_folder_and_1_on_no_folder(tmp_path: Path) -> None:
    folder = tmp_path / "tables"
    good_tables(folder)
    command = [sys.executable, "-m", "cambio", "serve", "--check"]
    done = subprocess.run(
        [*command, str(folder)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stdout
    assert done.stdout.splitlines()[1:] == ["loads: alpha.json", "loads: beta.json"]
    missing = subprocess.run(
        [*command, str(tmp_path / "nowhere")], capture_output=True, text=True, timeout=60
    )
    assert missing.returncode == 1 and "is not a folder" in missing.stderr
    assert not (tmp_path / "nowhere").exists()


def test_serve_help_mentions_check(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "--check FOLDER" in out and "changing nothing" in out


def test_the_server_starts_on_a_damaged_folder(tmp_path: Path) -> None:
    folder, _ = damaged_folder(tmp_path)
    config = ServerConfig(store=folder, bot_delay=0.0, actions_per_second=1000)
    with TestClient(create_app(config)) as client:
        game = client.app.state.game  # type: ignore[attr-defined]
        assert sorted(game.engine.tables) == list(GOOD)
        report = game.engine.store_report
        assert sorted(d.file for d in report.damaged) == sorted(REASONS)
        assert client.get("/api/variants").status_code == 200
        made = client.post("/api/tables", json={"variant": "practice", "players": 2})
        assert made.status_code == 201, made.text
    assert sorted(p.name for p in folder.glob("*.json")) == sorted(
        [*(f"{name}.json" for name in GOOD), f"{made.json()['table']}.json"]
    )
