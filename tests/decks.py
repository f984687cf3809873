"""Prepared decks for scripted tests (shared by the test modules)."""

from __future__ import annotations

from collections.abc import Sequence


def deal(*grids: Sequence[str], discard: str, stock: Sequence[str] = ()) -> list[str]:
    """A prepared deck: each seat's grid, the first discard, then the stock top-down."""
    out: list[str] = []
    for g in grids:
        out.extend(g)
    out.append(discard)
    out.extend(stock)
    return out
