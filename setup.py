"""Build hook: ship the top-level ``variants/`` folder inside the ``cambio`` package.

The rule tables live at the top of the repository so that people find and edit them
easily; a plain (non-editable) install must still load every profile by name, so the
wheel gets a copy under ``cambio/variants``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildPyWithVariants(build_py):
    def run(self) -> None:
        super().run()
        source = Path(__file__).resolve().parent / "variants"
        target = Path(self.build_lib) / "cambio" / "variants"
        target.mkdir(parents=True, exist_ok=True)
        for toml in sorted(source.glob("*.toml")):
            shutil.copy2(toml, target / toml.name)


setup(cmdclass={"build_py": BuildPyWithVariants})
