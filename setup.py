"""Build hook: ship ``variants/`` inside the package, and compile the engine core on request.

The rule tables live at the top of the repository so that people find and edit them
easily; a plain (non-editable) install must still load every profile by name, so the
wheel gets a copy under ``cambio/variants``.

``CAMBIO_COMPILE=1 pip install .`` compiles the modules in :data:`COMPILED` with mypyc
(the engine core: the same source, type-checked and turned into C extensions). When
mypyc or a C compiler is missing, or compiling fails, the build says so and goes on
with pure Python; ``cambio.compiled`` (and ``cambio --version``) tell which build runs.
Without ``CAMBIO_COMPILE`` the wheel is pure Python, as before.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import sysconfig
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent

# the modules mypyc compiles: the engine's hot path (a round's state machine, its
# events, views, cards, scoring, the per-table tables it derives, the bot driver and the
# random bot, which simulations and playouts run by the million, simulate's loop, and
# determinize, which a searching bot calls at every decision).
# actions.py stays Python: Action is the boundary where callers hand in anything (an
# Action(DRAW, 0.0) must reach the engine and be refused with IllegalActionError, where
# a compiled class would raise TypeError on construction).
COMPILED = [
    "cards",
    "events",
    "derived",
    "scoring",
    "views",
    "round",
    "bots/driver",
    "bots/random_bot",
    "simulate",
    "determinize",
]


def _say(message: str) -> None:
    # pip shows a build's output with -v; the message is also in the build log
    print(f"cambio-rules: {message}", file=sys.stderr, flush=True)


def _compile_requested() -> bool:
    return os.environ.get("CAMBIO_COMPILE", "").strip().lower() in ("1", "true", "yes", "on")


def _compiler() -> str | None:
    """The C compiler the build would use, if it is installed (else ``None``)."""
    cc = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    words = shlex.split(cc)
    return shutil.which(words[0]) if words else None


# the setup.py commands that build the package (metadata and requirement queries do not)
_BUILDS = {"bdist_wheel", "build", "build_ext", "install", "develop", "editable_wheel"}


def _ext_modules() -> list[Any]:
    if not _compile_requested() or not _BUILDS.intersection(sys.argv[1:]):
        return []
    if "editable_wheel" in sys.argv[1:] or "develop" in sys.argv[1:]:
        _say("an editable install stays pure Python: compile with `CAMBIO_COMPILE=1 pip install .`")
        return []
    if _compiler() is None:
        _say("CAMBIO_COMPILE is set but no C compiler was found: building pure Python")
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        _say("CAMBIO_COMPILE is set but mypyc (pip install mypy) is missing: building pure Python")
        return []
    paths = [f"src/cambio/{name}.py" for name in COMPILED]
    _say(f"compiling {len(paths)} modules with mypyc: {', '.join(COMPILED)}")
    # the optional frameworks (dask, numpy...) are not in the build environment: mypy
    # treats them as untyped, so the ignores the full type check needs are unused here
    flags = ["--ignore-missing-imports", "--no-warn-unused-ignores"]
    return list(mypycify([*flags, *paths], opt_level="3"))


class BuildPyWithVariants(build_py):
    def run(self) -> None:
        super().run()
        if not self.distribution.ext_modules:
            # a pure build in a tree that once built the compiled one: leave no stale
            # extension in build/lib for the wheel to pick up
            lib = Path(self.build_lib)
            for suffix in ("*.so", "*.pyd"):
                for stale in [*lib.glob(suffix), *lib.glob(f"cambio/**/{suffix}")]:
                    stale.unlink()
        source = HERE / "variants"
        target = Path(self.build_lib) / "cambio" / "variants"
        target.mkdir(parents=True, exist_ok=True)
        for toml in sorted(source.glob("*.toml")):
            shutil.copy2(toml, target / toml.name)


class OptionalBuildExt(build_ext):
    """build_ext that falls back to pure Python when the C extensions cannot be built."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # no headers, a broken compiler, a failed link...
            reason = str(error).splitlines()[0][:160] if str(error) else type(error).__name__
            _say(f"compiling the engine failed ({reason}): building pure Python")
            for output in self.get_outputs():
                Path(output).unlink(missing_ok=True)
            self.extensions = []


os.chdir(HERE)  # mypycify takes paths relative to the project
setup(
    cmdclass={"build_py": BuildPyWithVariants, "build_ext": OptionalBuildExt},
    ext_modules=_ext_modules(),
)
