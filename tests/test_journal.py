"""The store's journal (:mod:`cambio.server.journal`): group commits, checkpoints, recovery.

A change counts as saved once :meth:`Journal.commit` returns; these tests check that
what was committed is what a start-up finds, whatever state a crash or a refusing disk
left the journal files in, and that ``cambio serve --check`` reports it.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette")

from cambio.server import journal as journal_module
from cambio.server.journal import (
    Journal,
    pending_changes,
    read_saved,
    recover,
)
from cambio.server.options import check_command


def _save(name: str, n: int) -> str:
    return json.dumps({"name": name, "n": n}, separators=(",", ":"))


def _wait_for(predicate: object, seconds: float = 10.0) -> None:
    assert callable(predicate)
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def _journal_files(store: Path) -> list[str]:
    folder = store / "journal"
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def test_a_commit_is_in_the_journal_before_any_table_file(tmp_path: Path) -> None:
    journal = Journal(tmp_path, checkpoint_seconds=3600)
    try:
        journal.commit({"alpha": _save("alpha", 1), "beta": _save("beta", 1)})
        journal.commit({"alpha": _save("alpha", 2)})
        assert not (tmp_path / "alpha.json").exists()  # not checkpointed yet
        report = pending_changes(tmp_path)
        assert report.changes == 3
        assert list(report.latest) == ["beta", "alpha"]  # by each table's last change
        assert report.latest["alpha"][1] == _save("alpha", 2)
        assert read_saved(tmp_path, "alpha") == _save("alpha", 2)
        assert read_saved(tmp_path, "gamma") is None
    finally:
        journal.close()
    # a clean stop leaves plain table files and no journal file
    assert json.loads((tmp_path / "alpha.json").read_text())["n"] == 2
    assert json.loads((tmp_path / "beta.json").read_text())["n"] == 1
    assert _journal_files(tmp_path) == []


def test_a_removal_in_the_journal_removes_the_table_file(tmp_path: Path) -> None:
    (tmp_path / "gone.json").write_text(_save("gone", 0))
    journal = Journal(tmp_path, checkpoint_seconds=3600)
    journal.commit({"gone": _save("gone", 1)})
    journal.commit({"gone": None})
    assert read_saved(tmp_path, "gone") is None  # the journal's word beats the file's
    journal.close()
    assert not (tmp_path / "gone.json").exists()


def test_recovery_drops_a_line_cut_short_and_keeps_every_complete_one(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "journal"
    folder.mkdir()
    when = 1_700_000_000.25
    complete = f"alpha\t{when:.6f}\t{_save('alpha', 5)}\nbeta\t{when:.6f}\t{_save('beta', 1)}\n"
    cut = f"alpha\t{when + 1:.6f}\t" + _save("alpha", 6)[:7]  # no newline: never synced
    (folder / "00000003.log").write_text(complete + cut)
    report = recover(tmp_path)
    assert report.changes == 2
    assert any("cut short" in why for why in report.skipped)
    assert json.loads((tmp_path / "alpha.json").read_text())["n"] == 5
    assert json.loads((tmp_path / "beta.json").read_text())["n"] == 1
    # the table file takes the time of the change
    assert abs(os.stat(tmp_path / "alpha.json").st_mtime - when) < 0.01
    assert _journal_files(tmp_path) == []


def test_recovery_reads_the_files_oldest_first_and_skips_lines_that_are_not_changes(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "journal"
    folder.mkdir()
    (folder / "00000002.log").write_text(f"alpha\t1.0\t{_save('alpha', 2)}\n")
    (folder / "00000010.log").write_text(
        f"alpha\t2.0\t{_save('alpha', 10)}\n"
        "no tabs here\n"
        f"../escape\t3.0\t{_save('x', 1)}\n"
        f"beta\tnan\t{_save('beta', 1)}\n"
        f"beta\t-1\t{_save('beta', 1)}\n"
    )
    (folder / "notes.txt").write_text("not a journal file")
    report = recover(tmp_path)
    assert json.loads((tmp_path / "alpha.json").read_text())["n"] == 10  # 10 after 2
    assert not (tmp_path / "beta.json").exists()
    assert not (tmp_path.parent / "escape.json").exists()
    reasons = " | ".join(report.skipped)
    assert reasons.count("not a change line") == 1
    assert "not a table name" in reasons
    assert reasons.count("not a time") == 2
    assert (folder / "notes.txt").exists()  # only journal files are removed


def test_a_checkpoint_writes_the_table_files_and_deletes_the_closed_journal_file(
    tmp_path: Path,
) -> None:
    journal = Journal(tmp_path, checkpoint_seconds=0)
    try:
        journal.commit({"alpha": _save("alpha", 1)})  # due at once: rotated, written out
        _wait_for(lambda: journal.checkpoints >= 1)
        assert json.loads((tmp_path / "alpha.json").read_text())["n"] == 1
        assert _journal_files(tmp_path) == []
        journal.commit({"alpha": _save("alpha", 2)})
        _wait_for(lambda: journal.checkpoints >= 2)
        assert json.loads((tmp_path / "alpha.json").read_text())["n"] == 2
    finally:
        journal.close()


def test_a_checkpoint_the_disk_refused_is_merged_into_the_next_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_write = journal_module._write
    refuse = {"on": True}

    def flaky_write(folder: Path, name: str, when: float, text: str | None) -> None:
        if refuse["on"]:
            raise OSError(28, "No space left on device")
        real_write(folder, name, when, text)

    monkeypatch.setattr(journal_module, "_write", flaky_write)
    journal = Journal(tmp_path, checkpoint_seconds=0)
    try:
        journal.commit({"alpha": _save("alpha", 1), "beta": _save("beta", 1)})
        _wait_for(lambda: journal._checkpoint is not None and journal._checkpoint.done())
        assert journal.checkpoints == 0
        assert _journal_files(tmp_path) == ["00000001.log"]  # kept for a restart
        assert read_saved(tmp_path, "beta") == _save("beta", 1)
        refuse["on"] = False
        journal.commit({"alpha": _save("alpha", 2)})  # its checkpoint takes both files
        _wait_for(lambda: journal.checkpoints >= 1)
        assert json.loads((tmp_path / "alpha.json").read_text())["n"] == 2
        assert json.loads((tmp_path / "beta.json").read_text())["n"] == 1
        assert _journal_files(tmp_path) == []
    finally:
        journal.close()


def test_a_new_journal_continues_the_numbering_of_files_left_behind(tmp_path: Path) -> None:
    folder = tmp_path / "journal"
    folder.mkdir()
    (folder / "00000007.log").write_text(f"alpha\t1.0\t{_save('alpha', 1)}\n")
    journal = Journal(tmp_path, checkpoint_seconds=3600)
    try:
        journal.commit({"alpha": _save("alpha", 2)})
        assert _journal_files(tmp_path) == ["00000007.log", "00000008.log"]
        assert read_saved(tmp_path, "alpha") == _save("alpha", 2)  # the newer file wins
    finally:
        journal.close()
    assert json.loads((tmp_path / "alpha.json").read_text())["n"] == 2


def test_serve_check_reports_the_journal_and_its_bad_saves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "journal"
    folder.mkdir()
    (folder / "00000001.log").write_text(
        "alpha\t1.0\t{not json\nbeta\t1.0\tnull\n" + "gamma\t1.0\t" + _save("gamma", 1)[:5]
    )
    before = sorted(p.name for p in tmp_path.rglob("*"))
    assert check_command(tmp_path) == 1  # alpha's save would not load
    out = capsys.readouterr().out
    assert "journal: 2 changes of 2 tables" in out
    assert "(1 removed)" in out
    assert "cut short" in out
    assert "journal: alpha: not JSON" in out
    assert sorted(p.name for p in tmp_path.rglob("*")) == before  # --check changes nothing
