"""Test configuration: hypothesis profiles and the import path of the shared strategies.

Hypothesis profiles: ``dev`` (the default, 100 examples) and ``ci`` (few examples,
derandomized so a run is reproducible), selected when the environment sets ``CI=true``;
``seeded`` has CI's sizes but follows ``--hypothesis-seed``. ``HYPOTHESIS_PROFILE``
picks one by name. ``tests/strategies.py`` is importable as
``strategies`` from every test module.

``CAMBIO_EXPECT_COMPILED=1`` (set by ``.ci/run`` for its second run) makes the session
refuse to start unless the imported ``cambio`` is the compiled build, so that run can
never test ``src/`` by mistake.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

import cambio

_TESTS = str(Path(__file__).resolve().parent)
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)

settings.register_profile(
    "ci",
    max_examples=20,
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", max_examples=100, deadline=None)
# CI's sizes without derandomizing: `HYPOTHESIS_PROFILE=seeded pytest --hypothesis-seed=N`
# runs the suite as CI does but on seed N (CI's own profile ignores the seed)
settings.register_profile(
    "seeded",
    max_examples=20,
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") == "true" else "dev")
)


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get("CAMBIO_EXPECT_COMPILED") == "1" and not cambio.compiled:
        raise pytest.UsageError(
            f"CAMBIO_EXPECT_COMPILED=1 but the cambio imported from {cambio.__file__} "
            "is pure Python: install the compiled build (CAMBIO_COMPILE=1 pip install .)"
        )


# The slow parts, so a fast subset can leave them out (`pytest -m "not browser and not
# slow"`): the browser tests drive Chromium; the slow ones start servers under load,
# train or solve, or compare every door of every table move by move.
_BROWSER = {"test_web", "test_every_door_web"}
_SLOW = {"test_server_load", "test_openspiel_cfr", "test_every_door", "test_server_hostile"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        module = item.module.__name__ if isinstance(item, pytest.Function) else ""
        if module in _BROWSER:
            item.add_marker(pytest.mark.browser)
        elif module in _SLOW:
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def fresh_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run the test in a folder of its own, with a data folder of its own: a game left
    part-way writes a save in the current folder, and ``cambio`` keeps its records under
    ``XDG_DATA_HOME``."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
