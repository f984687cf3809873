"""Test configuration: hypothesis profiles and the import path of the shared strategies.

Hypothesis profiles: ``dev`` (the default, 100 examples) and ``ci`` (few examples,
derandomized so a run is reproducible), selected when the environment sets ``CI=true``;
``seeded`` has CI's sizes but follows ``--hypothesis-seed``. ``HYPOTHESIS_PROFILE``
picks one by name. ``tests/strategies.py`` is importable as
``strategies`` from every test module.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

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
