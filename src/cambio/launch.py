"""Where ``cambio play`` keeps its saves, and how to type the command that runs cambio.

Saves go in the user's data folder: ``$XDG_DATA_HOME/cambio/saves``, or
``~/.local/share/cambio/saves`` when ``XDG_DATA_HOME`` is unset or empty.

:func:`launch_command` is the command a person types to run cambio again, worked out
from how this process was started: ``cambio`` when that name on ``PATH`` is this
program, the script path as it was typed otherwise (``.venv/bin/cambio`` after the
README's quick start), and ``PYTHON -m cambio`` for ``python -m cambio``.

>>> launch_command(".venv/bin/cambio", which=lambda name: None)
'.venv/bin/cambio'
>>> launch_command("/usr/bin/cambio", which=lambda name: "/usr/bin/cambio")
'cambio'
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

__all__ = ["launch_command", "saves_folder"]


def saves_folder(environ: Mapping[str, str] | None = None) -> Path:
    """The folder for saved games (not created here)."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_DATA_HOME", "")
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".local" / "share"
    return root / "cambio" / "saves"


_SCRIPT_NAMES = ("cambio", "cambio.exe", "cambio-script.py")


def launch_command(
    argv0: str | None = None,
    *,
    which: Callable[[str], str | None] = shutil.which,
    executable: str | None = None,
    cwd: Path | None = None,
) -> str:
    """The command line (quoted for a POSIX shell) that runs cambio the way it was run.

    ``argv0`` defaults to ``sys.argv[0]``, ``executable`` to ``sys.executable`` and
    ``cwd`` to the current folder; ``which`` finds a name on ``PATH``.
    """
    first = sys.argv[0] if argv0 is None else argv0
    found = which("cambio")
    if Path(first).name in _SCRIPT_NAMES:
        if found and _same(found, first):
            return "cambio"
        return shlex.quote(first)
    if first.endswith("__main__.py") or first in ("-m", "-c", ""):
        return f"{shlex.quote(_short(executable or sys.executable, cwd))} -m cambio"
    if found:  # cambio embedded in another program: the installed command
        return "cambio"
    return f"{shlex.quote(_short(executable or sys.executable, cwd))} -m cambio"


def _same(a: str, b: str) -> bool:
    try:
        return Path(a).resolve() == Path(b).resolve()
    except OSError:
        return False


def _short(path: str, cwd: Path | None) -> str:
    """``path`` relative to the current folder when it lies inside it."""
    here = Path.cwd() if cwd is None else cwd
    try:
        short = str(Path(path).relative_to(here))
    except ValueError:
        return path
    return short if os.sep in short else os.curdir + os.sep + short
