"""Running the ``cambio`` command in a child process, the way a person at a terminal does.

The child imports the ``cambio`` these tests import (not another checkout's), reads its
commands from piped input and writes to pipes; its environment is bare (no ``PATH``, a
data folder of the test's own), so a result never depends on the machine.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import cambio

__all__ = ["SRC", "cambio_command"]

SRC = str(Path(cambio.__file__).resolve().parents[1])
"""The folder the child's ``cambio`` is imported from: the one these tests import."""


def cambio_command(
    args: list[str],
    script: str = "",
    *,
    timeout: float = 120,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m cambio ARGS`` in the current folder with ``script`` piped in.

    The child sees UTF-8 pipes, no ``PATH``, ``PYTHONPATH`` set to :data:`SRC`, the
    ``XDG_DATA_HOME`` of this process when it has one, and then ``env``'s entries.
    """
    child = {"PYTHONIOENCODING": "utf-8", "PATH": "", "PYTHONPATH": SRC}
    if "XDG_DATA_HOME" in os.environ:
        child["XDG_DATA_HOME"] = os.environ["XDG_DATA_HOME"]
    child.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "cambio", *args],
        input=script,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env=child,
        cwd=os.getcwd(),
    )
