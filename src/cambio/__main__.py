"""``python -m cambio``: the same as the ``cambio`` command."""

from __future__ import annotations

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
