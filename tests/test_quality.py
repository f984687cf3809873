"""The project's own quality gates, run as tests so that one command checks everything."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, check=False)


def _tool(name: str) -> str:
    exe = Path(sys.executable).parent / name
    if exe.exists():
        return str(exe)
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed: install the project with its dev extra")
    return found


def test_mypy_strict() -> None:
    proc = _run(sys.executable, "-m", "mypy", "--strict", "src/cambio")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _python_dirs() -> list[str]:
    places = ("src", "tests", "benchmarks", "examples", "docs/_griffe_cambio.py")
    return [d for d in places if (ROOT / d).exists()]


def test_ruff_check() -> None:
    proc = _run(_tool("ruff"), "check", *_python_dirs())
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_format() -> None:
    proc = _run(_tool("ruff"), "format", "--check", *_python_dirs())
    assert proc.returncode == 0, proc.stdout + proc.stderr
