"""The store's journal: every table change on disk with one ``fdatasync`` per batch.

Writing a table's whole file for each change (a temporary file, ``fsync``, a rename)
costs the file system far more than the change itself: a create and a rename per
action. The server instead appends each batch of changes to a journal file in
``STORE/journal/`` and syncs it once (a *group commit*: every change waiting at that
moment, of every table, rides on one sync), and acknowledges them after that. Every
``checkpoint_seconds`` (or ``checkpoint_bytes`` of journal) the journal file is
closed, a new one begun, and a second thread writes each table changed in the closed
file to ``STORE/NAME.json`` the usual way (atomically), then deletes the closed file.
A clean stop checkpoints everything, so a stopped server leaves plain table files.

After a crash, :func:`recover` (run before the store is opened) writes the latest
change of each table found in the journal files to its table file and removes the
journal: the store is then exactly what was acknowledged. A change whose line was cut
short by the crash was never acknowledged, and is dropped.

A journal line is ``NAME<TAB>TIME<TAB>SAVE``: the table's name, when the change was
made (seconds since the epoch; it becomes the table file's time) and its save as
compact JSON, or ``null`` when the table was removed.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
import time
from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import attrs

from ..protocol import ProtocolError, Table, table_name_ok, write_atomically

__all__ = ["Journal", "JournalReport", "pending_changes", "read_saved", "recover"]

_log = logging.getLogger("cambio.store")

FOLDER = "journal"
"""The journal's folder inside the store."""

_SUFFIX = ".log"

_Leftover = tuple[list[Path], dict[str, tuple[float, str | None]]]
"""A failed checkpoint's journal files and the changes it could not write out."""


@attrs.define
class JournalReport:
    """What the journal files of a store hold that their table files do not yet."""

    files: list[str] = attrs.Factory(list)
    """The journal files, oldest first."""
    changes: int = 0
    """Complete change lines read."""
    latest: dict[str, tuple[float, str | None]] = attrs.Factory(dict)
    """Each table's latest change: its time, and its save (``None``: removed)."""
    skipped: list[str] = attrs.Factory(list)
    """Why lines were not taken (cut short by a crash, or not a change line)."""

    def lines(self) -> list[str]:
        """The report as text, for ``cambio serve --check``."""
        if not self.files:
            return []
        removed = sum(1 for _, text in self.latest.values() if text is None)
        out = [
            f"journal: {self.changes} change{'' if self.changes == 1 else 's'} of "
            f"{len(self.latest)} table{'' if len(self.latest) == 1 else 's'} in "
            f"{', '.join(self.files)} not yet in their files ({removed} removed); "
            "start-up writes them first"
        ]
        out += [f"journal: skipped {why}" for why in self.skipped]
        return out


def _journal_files(store: Path) -> list[Path]:
    folder = store / FOLDER
    if not folder.is_dir() or folder.is_symlink():
        return []
    found = []
    for path in folder.iterdir():
        stem = path.name.removesuffix(_SUFFIX)
        if path.name.endswith(_SUFFIX) and stem.isdigit() and path.is_file():
            found.append((int(stem), path))
    return [path for _, path in sorted(found)]


def pending_changes(store: str | os.PathLike[str]) -> JournalReport:
    """Read every journal file of ``store`` (changing nothing): each table's latest
    change and what could not be read. A line without its newline at the end of a file
    was cut short by a crash before it was synced: it was never acknowledged."""
    report = JournalReport()
    for path in _journal_files(Path(store)):
        report.files.append(f"{FOLDER}/{path.name}")
        try:
            raw = path.read_bytes()
        except OSError as error:
            report.skipped.append(f"{path.name}: cannot be read: {error.strerror or error}")
            continue
        lines = raw.split(b"\n")
        if lines[-1]:
            report.skipped.append(f"{path.name}: a last line cut short ({len(lines[-1])} bytes)")
        for number, line in enumerate(lines[:-1], 1):
            parsed = _parse(line)
            if isinstance(parsed, str):
                report.skipped.append(f"{path.name} line {number}: {parsed}")
                continue
            name, when, text = parsed
            report.changes += 1
            report.latest.pop(name, None)  # in the order of each table's last change
            report.latest[name] = (when, text)
    return report


def _parse(line: bytes) -> tuple[str, float, str | None] | str:
    parts = line.split(b"\t", 2)
    if len(parts) != 3:
        return "not a change line"
    try:
        name, when, text = (part.decode("utf-8") for part in parts)
        stamp = float(when)
    except (UnicodeDecodeError, ValueError):
        return "not a change line"
    if not table_name_ok(name):
        return "not a table name"
    if not stamp >= 0 or stamp == float("inf"):
        return "not a time"
    return name, stamp, None if text == "null" else text


def recover(store: str | os.PathLike[str]) -> JournalReport:
    """Write the journal's latest change of each table to its file (each save as it
    was acknowledged: whether it loads is for the store's opening to judge), then
    delete the journal files. Run before the store is opened."""
    folder = Path(store)
    report = pending_changes(folder)
    for why in report.skipped:
        _log.warning("cambio: journal: skipped %s", why)
    for name, (when, text) in report.latest.items():
        _write(folder, name, when, text)
    if report.latest:
        _sync_folder(folder)
        _log.info("cambio: wrote %d tables' latest changes from the journal", len(report.latest))
    for path in _journal_files(folder):
        path.unlink()
    if report.files:
        _sync_folder(folder / FOLDER)
    return report


def read_saved(store: str | os.PathLike[str], name: str) -> str | None:
    """The latest save of table ``name`` that a server on ``store`` acknowledged
    (its journal's, else its file's), or ``None`` if it has none: what a restart loads."""
    latest = pending_changes(store).latest.get(name)
    if latest is not None:
        return latest[1]
    try:
        return (Path(store) / f"{name}.json").read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


def _write(folder: Path, name: str, when: float, text: str | None) -> None:
    path = folder / f"{name}.json"
    if text is None:
        path.unlink(missing_ok=True)
        return
    write_atomically(path, text)
    with contextlib.suppress(OSError):
        os.utime(path, (when, when))


def _sync_folder(folder: Path) -> None:
    """Make the folder's entries (new, renamed, removed files) durable."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Journal:
    """The journal of one server's store (see the module): :meth:`commit` from one
    thread at a time (the server's writer), :meth:`close` once at the end."""

    def __init__(
        self,
        store: str | os.PathLike[str],
        *,
        checkpoint_seconds: float = 2.0,
        checkpoint_bytes: int = 16 * 1024 * 1024,
    ) -> None:
        self.store = Path(store)
        self.checkpoint_seconds = checkpoint_seconds
        self.checkpoint_bytes = checkpoint_bytes
        self.folder = self.store / FOLDER
        self.folder.mkdir(parents=True, exist_ok=True)
        existing = _journal_files(self.store)
        self._number = int(existing[-1].name.removesuffix(_SUFFIX)) if existing else 0
        self._fd = -1
        self._path: Path | None = None
        self._bytes = 0
        self._began = time.monotonic()
        self._dirty: dict[str, tuple[float, str | None]] = {}
        """Changes in the current file: what its checkpoint writes."""
        self._checkpointer = ThreadPoolExecutor(1, thread_name_prefix="cambio-checkpoint")
        self._checkpoint: Future[_Leftover | None] | None = None
        self._lock = threading.Lock()
        self.checkpoints = 0
        """Checkpoints finished (each closed journal file written out and deleted)."""

    def _open(self) -> None:
        self._number += 1
        self._path = self.folder / f"{self._number:08d}{_SUFFIX}"
        self._fd = os.open(self._path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        _sync_folder(self.folder)
        self._bytes = 0
        self._began = time.monotonic()

    def commit(self, changes: Mapping[str, str | None]) -> None:
        """Append ``changes`` (table name -> its save, or ``None``: removed) and sync:
        when this returns they survive a crash. Raises ``OSError`` if the disk refuses
        (nothing of the batch counts as written then)."""
        if not changes:
            return
        with self._lock:
            if self._fd < 0:
                self._open()
            now = time.time()
            data = "".join(
                f"{name}\t{now:.6f}\t{'null' if text is None else text}\n"
                for name, text in changes.items()
            ).encode("utf-8")
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view) :]
            os.fdatasync(self._fd)
            self._bytes += len(data)
            for name, text in changes.items():
                self._dirty[name] = (now, text)
            self._maybe_checkpoint()

    def tick(self) -> None:
        """Start a checkpoint if one is due (the journal has changes older than
        ``checkpoint_seconds``) and none is running; commits call it too."""
        with self._lock:
            if self._fd >= 0:
                self._maybe_checkpoint()

    def _maybe_checkpoint(self) -> None:
        due = (
            self._bytes >= self.checkpoint_bytes
            or time.monotonic() - self._began >= self.checkpoint_seconds
        )
        if not due or (self._checkpoint is not None and not self._checkpoint.done()):
            return  # a checkpoint still running: this file grows until it is done
        files, dirty = self._rotate()
        self._checkpoint = self._checkpointer.submit(self._write_out, files, dirty)

    def _rotate(self) -> tuple[list[Path], dict[str, tuple[float, str | None]]]:
        """Close the current file; its changes, after those of a checkpoint that
        failed (whose files are still there), are what the next checkpoint writes."""
        assert self._path is not None
        os.close(self._fd)
        files, dirty = [self._path], self._dirty
        self._fd, self._path, self._dirty = -1, None, {}
        if self._checkpoint is not None:
            failed = self._checkpoint.result()
            self._checkpoint = None
            if failed is not None:
                files = [*failed[0], *files]
                dirty = {**failed[1], **dirty}
        return files, dirty

    def _write_out(
        self, files: list[Path], dirty: dict[str, tuple[float, str | None]]
    ) -> tuple[list[Path], dict[str, tuple[float, str | None]]] | None:
        """The checkpoint thread's job: the closed files' tables to their table files,
        then the closed files away. ``None`` when done; what is left to do if the disk
        refused (the next checkpoint tries again; until then a restart recovers it from
        the files, which are kept)."""
        try:
            for name, (when, text) in dirty.items():
                _write(self.store, name, when, text)
            _sync_folder(self.store)
            for path in files:
                path.unlink()
            _sync_folder(self.folder)
        except OSError as error:
            _log.warning("cambio: a checkpoint of the journal failed: %s", error)
            return files, dirty
        self.checkpoints += 1
        return None

    def checkpoint(self) -> None:
        """Write out every change committed so far and delete the journal files
        (after a checkpoint under way). Raises ``OSError`` if the disk refuses; the
        journal files are kept then, for the next start-up to recover."""
        with self._lock:
            if self._checkpoint is not None:
                self._checkpoint.result()
            if self._fd >= 0:
                os.close(self._fd)
                self._fd, self._path, self._dirty = -1, None, {}
            self._checkpoint = None
            recover(self.store)  # every file, oldest first: exactly what was committed
            self.checkpoints += 1

    def close(self) -> None:
        """Checkpoint everything and stop the checkpoint thread."""
        try:
            self.checkpoint()
        finally:
            self._checkpointer.shutdown(wait=True)


def check_saves(report: JournalReport) -> list[str]:
    """Why each journal save that a start-up would write does not load (for
    ``--check``): one line per table."""
    out = []
    for name, (_, text) in report.latest.items():
        if text is None:
            continue
        try:
            table = Table.from_dict(json.loads(text))
        except (ValueError, RecursionError) as error:
            out.append(f"journal: {name}: not JSON: {error}")
            continue
        except ProtocolError as error:
            out.append(f"journal: {name}: not a valid save: {error.message}")
            continue
        if table.name != name:
            out.append(f"journal: {name}: the save is named {table.name!r}")
    return out
