"""The build backend of cambio-rules: setuptools, plus mypy when a compiled build is asked for.

``CAMBIO_COMPILE=1 pip install .`` builds the engine core with mypyc (see ``setup.py``).
Under pip's build isolation the build environment holds only what the backend asks for,
so this thin wrapper around ``setuptools.build_meta`` adds mypy (which brings mypyc) and
the packages the compiled modules import (mypy type-checks them before compiling) to the
wheel's build requirements when ``CAMBIO_COMPILE`` is set. Without it the requirements,
and the build, are exactly setuptools' own: a pure-Python wheel.
"""

from __future__ import annotations

import os

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403  (every hook setuptools offers)

# what mypyc needs in the build environment: mypy itself, and the typed packages the
# compiled modules import (mypy follows those imports while checking them)
COMPILE_REQUIRES = [
    "mypy>=1.8",
    "attrs>=23.1",
    "cattrs>=23.2",
    "tomli>=2.0; python_version < '3.11'",
    "tomli-w>=1.0",
    "rich>=13",
]


def compile_requested() -> bool:
    """Whether ``CAMBIO_COMPILE`` asks for the compiled build (``1``, ``true``, ``yes``)."""
    return os.environ.get("CAMBIO_COMPILE", "").strip().lower() in ("1", "true", "yes", "on")


def get_requires_for_build_wheel(
    config_settings: dict[str, str | list[str]] | None = None,
) -> list[str]:
    requires: list[str] = list(_setuptools.get_requires_for_build_wheel(config_settings))
    if compile_requested():
        requires += COMPILE_REQUIRES
    return requires
