"""Tables from elsewhere: folders in CAMBIO_VARIANTS_PATH and packages' entry points."""

from __future__ import annotations

import base64
import hashlib
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import cambio
from cambio import registry
from cambio.cli import main

CLUB = 'extends = "practice"\nname = "{name}"\nsummary = "{summary}"\n[call]\npenalty = 5\n'


def write_table(folder: Path, name: str, summary: str = "A club's own table") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.toml"
    path.write_text(CLUB.format(name=name, summary=summary), encoding="utf-8")
    return path


def test_a_table_in_a_folder_of_the_variable_loads_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = tmp_path / "club", tmp_path / "more"
    write_table(first, "club-night")
    write_table(second, "tuesday", "Tuesdays at the club")
    monkeypatch.setenv(registry.VARIANTS_PATH_ENV, os.pathsep.join([str(first), str(second)]))
    rules = cambio.load_ruleset("club-night")
    assert rules.name == "club-night" and rules.call.penalty == 5
    assert cambio.load_ruleset("tuesday").summary == "Tuesdays at the club"
    assert {"club-night", "tuesday", "practice"} <= set(cambio.available_variants())
    found = registry.tables()
    assert found["club-night"].origin == registry.VARIANTS_PATH_ENV
    assert found["club-night"].place == str(first / "club-night.toml")
    # the command finds it too, and says where it comes from
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["variants"]) == 0
    out = capsys.readouterr().out
    assert "club-night" in out and str(first) in out and "bundled" in out
    assert main(["rules", "tuesday"]) == 0
    monkeypatch.delenv(registry.VARIANTS_PATH_ENV)
    with pytest.raises(cambio.RuleSetError, match="unknown profile"):
        cambio.load_ruleset("club-night")


def test_a_name_defined_twice_is_an_error_naming_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    a = write_table(tmp_path / "a", "club-night")
    b = write_table(tmp_path / "b", "club-night")
    shadow = write_table(tmp_path / "c", "practice")
    monkeypatch.setenv(registry.VARIANTS_PATH_ENV, os.pathsep.join(str(p.parent) for p in (a, b)))
    with pytest.raises(registry.DuplicateTableError) as caught:
        cambio.load_ruleset("club-night")
    message = str(caught.value)
    assert str(a) in message and str(b) in message and "defined twice" in message
    monkeypatch.setenv(registry.VARIANTS_PATH_ENV, str(shadow.parent))
    with pytest.raises(registry.DuplicateTableError, match=r"bundled \(variants/practice.toml\)"):
        cambio.load_ruleset("practice")
    # a file that extends the duplicated name is told where
    child = tmp_path / "child.toml"
    child.write_text('extends = "practice"\n', encoding="utf-8")
    with pytest.raises(registry.DuplicateTableError) as caught:
        cambio.load_ruleset(child)
    assert caught.value.problems[0].path == "extends"
    monkeypatch.setenv("COLUMNS", "250")
    assert main(["variants"]) == 1
    out = capsys.readouterr().out
    assert "defined twice" in out


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def build_plugin_wheel(folder: Path) -> Path:
    """A wheel of a package that offers one table through the cambio.variants group.

    Written from local files with :mod:`zipfile`, so the test needs no network and no
    build tools; ``pip install`` then installs it as it would any wheel.
    """
    dist = "club_tables-1.0.dist-info"
    files = {
        "club_tables/__init__.py": b'"""A club\'s Cambio tables."""\n',
        "club_tables/tables/club-night.toml": CLUB.format(
            name="club-night", summary="Practice with a caller penalty of 5"
        ).encode(),
        f"{dist}/METADATA": b"Metadata-Version: 2.1\nName: club-tables\nVersion: 1.0\n",
        f"{dist}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
        b"Tag: py3-none-any\n",
        f"{dist}/entry_points.txt": b"[cambio.variants]\nclub = club_tables:tables\n",
    }
    wheel = folder / "club_tables-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
        record = [_record_line(name, data) for name, data in files.items()]
        archive.writestr(f"{dist}/RECORD", "\n".join([*record, f"{dist}/RECORD,,"]) + "\n")
    return wheel


def test_a_table_from_an_installed_plugin_package_loads_by_name(tmp_path: Path) -> None:
    wheel = build_plugin_wheel(tmp_path)
    site = tmp_path / "site"
    install = subprocess.run(
        [
            *(sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index"),
            *("--no-build-isolation", "--disable-pip-version-check"),
            *("--target", str(site), str(wheel)),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert install.returncode == 0, install.stderr
    assert (site / "club_tables-1.0.dist-info" / "entry_points.txt").exists()
    env = {
        **{k: v for k, v in os.environ.items() if k != registry.VARIANTS_PATH_ENV},
        # the plugin's folder, then the cambio these tests import (not another checkout's)
        "PYTHONPATH": os.pathsep.join([str(site), str(Path(cambio.__file__).parents[1])]),
        "COLUMNS": "200",
    }
    code = (
        "import cambio; from cambio import registry;"
        "r = cambio.load_ruleset('club-night'); s = registry.tables()['club-night'];"
        "print(r.name, r.call.penalty, s.origin, s.place)"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )
    assert loaded.returncode == 0, loaded.stderr
    assert loaded.stdout.split() == [
        "club-night",
        "5",
        "package",
        "club-tables",
        "club_tables:tables/club-night.toml",
    ]
    listed = subprocess.run(
        [sys.executable, "-m", "cambio", "variants"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert listed.returncode == 0, listed.stderr
    assert "club-night" in listed.stdout and "package club-tables" in listed.stdout
    played = subprocess.run(
        [sys.executable, "-m", "cambio", "simulate", "--variant", "club-night", "--games", "5"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert played.returncode == 0, played.stderr


def test_a_broken_entry_point_is_reported_not_fatal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dist = tmp_path / "broken-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[cambio.variants]\nbad = no_such_package_here\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert any("no_such_package_here" in p for p in registry.problems())
    assert cambio.load_ruleset("practice").name == "practice"
