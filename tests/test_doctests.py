"""Every docstring example in the package runs and prints what it says."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import cambio

MODULES = sorted(
    m.name
    for m in pkgutil.walk_packages(cambio.__path__, prefix="cambio.")
    if m.name != "cambio.__main__"
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    failures, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert failures == 0, f"{failures} docstring example(s) of {name} failed"


def test_the_public_names_exist() -> None:
    for name in cambio.__all__:
        assert hasattr(cambio, name), name
