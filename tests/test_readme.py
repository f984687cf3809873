"""The README: its commands run as written after the quick start; its profile table is current.

Every ``sh`` block of ``README.md`` is run by ``bash -e`` in a fresh copy of the
repository's examples and tables, where ``.venv`` is the environment running the tests
(the quick start's venv). Left out: the blocks that *are* the quick start (they make the
venv), the lines that play in the terminal (``cambio play``, ``cambio learn``) or serve the docs
(``mkdocs serve``), which wait for a person, and the lines that run the test suite
(``-m pytest``: this suite, run by itself).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import cambio
from cambio import _reference

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
FENCE = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL)
SKIP = re.compile(r"cambio (play|learn)\b|mkdocs serve|-m pytest\b")


def sh_blocks() -> list[str]:
    text = README.read_text(encoding="utf-8")
    return [m.group(2) for m in FENCE.finditer(text) if m.group(1) == "sh"]


def runnable(block: str) -> str:
    return "".join(line for line in block.splitlines(keepends=True) if not SKIP.search(line))


def test_every_command_names_the_quick_start_venv() -> None:
    """No bare ``cambio``/``python``/``mkdocs``: each command runs without activating."""
    bare = re.compile(r"(^|&&\s*|\|\s*|=\S+\s+)(cambio|python|pip|mkdocs)\b")
    for block in sh_blocks():
        for line in block.splitlines():
            assert not bare.search(line.strip()) or line.startswith("python3 -m venv"), line


def _fresh_clone(tmp: Path) -> Path:
    clone = tmp / "clone"
    clone.mkdir()
    for folder in ("examples", "variants", "docs"):
        shutil.copytree(ROOT / folder, clone / folder)
    (clone / ".venv").symlink_to(Path(sys.prefix), target_is_directory=True)
    return clone


@pytest.mark.parametrize(
    "block",
    [
        pytest.param(b, id=runnable(b).strip().splitlines()[0][:40])
        for b in sh_blocks()
        if "python3 -m venv" not in b and runnable(b).strip()
    ],
)
def test_readme_commands_run_as_written(tmp_path: Path, block: str) -> None:
    clone = _fresh_clone(tmp_path)
    if not (clone / ".venv" / "bin" / "cambio").exists():
        pytest.fail(f"{sys.prefix} has no cambio command: install the package (pip install -e .)")
    env = {k: v for k, v in os.environ.items() if k != "CAMBIO_VARIANTS_PATH"}
    env["COLUMNS"] = "120"
    # the quick start installs this checkout: its commands run this checkout's cambio
    # (the build under test: src/, or the compiled build's site-packages)
    env["PYTHONPATH"] = str(Path(cambio.__file__).resolve().parents[1])
    # a block that writes a file used by a later block (my-table.toml) runs after it
    before = "".join(runnable(b) for b in sh_blocks() if "my-table.toml <<" in b and b != block)
    script = (before if "my-table" in block else "") + runnable(block)
    done = subprocess.run(
        ["bash", "-e", "-c", script],
        cwd=clone,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=env,
    )
    assert done.returncode == 0, f"{script}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"
    assert "Traceback" not in done.stderr


def test_the_quick_start_installs_and_plays() -> None:
    quick = [b for b in sh_blocks() if "python3 -m venv" in b]
    assert len(quick) == 3  # the quick start, the test command, the compiled build
    assert ".venv/bin/pip install ." in quick[0] and ".venv/bin/cambio play" in quick[0]


def test_commands_in_the_text_name_the_quick_start_venv() -> None:
    """A command quoted in a sentence runs as written too (``.venv/bin/python x.py``)."""
    text = README.read_text(encoding="utf-8")
    spans = re.findall(r"`([^`\n]+)`", FENCE.sub("", text))
    commands = [s for s in spans if re.match(r"(python3?|pip|cambio|mkdocs)\s+\S*[./]", s)]
    assert commands == [], "quote these as .venv/bin/...: " + ", ".join(commands)
    assert "`.venv/bin/python benchmarks/speed.py`" in text


def test_the_suites_time_and_its_fast_subset_are_stated() -> None:
    text = README.read_text(encoding="utf-8")
    assert "The whole suite takes about 13 minutes on 2 cores" in text
    (fast,) = [b for b in sh_blocks() if "-m pytest -m" in b]
    chosen = re.search(r'-m "([^"]+)"', fast)
    assert chosen is not None
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    for marker in re.findall(r"not (\w+)", chosen.group(1)):
        assert f'"{marker}: ' in pyproject, f"{marker} is not a declared marker"


def test_the_lessons_and_the_saves_folder_are_told() -> None:
    text = README.read_text(encoding="utf-8")
    assert ".venv/bin/cambio learn" in text
    assert "~/.local/share/cambio/saves" in text and "--aids" in text


def test_the_speed_section_builds_the_compiled_variant() -> None:
    (block,) = [b for b in sh_blocks() if "CAMBIO_COMPILE=1" in b]
    assert "CAMBIO_COMPILE=1 .venv-compiled/bin/pip install ." in block
    assert "benchmarks/speed.py --other .venv-compiled/bin/python" in block


def test_the_profile_table_is_generated_from_variants() -> None:
    text = README.read_text(encoding="utf-8")
    assert text == _reference.readme_profiles(text), (
        f"the README's table of profiles is stale: run `{_reference.REGENERATE}`"
    )
    table = text.split(_reference.README_BEGIN)[1].split(_reference.README_END)[0]
    for name in ("practice", "cabo", "competitive", *_reference._profile_files()):
        assert f"[`{name}`](docs/profiles/{name}.md)" in table
