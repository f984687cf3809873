"""Who has seen the card at each place: :mod:`cambio.knowledge`, under its learning-code name.

The fold lives in the core (the terminal table and the protocol read it too); this
module keeps the names :func:`seen_by` and :class:`SeenBy` where learning code finds them.
"""

from __future__ import annotations

from ..knowledge import SeenBy, seen_by

__all__ = ["SeenBy", "seen_by"]
