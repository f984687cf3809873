"""The JSON Schemas of the cambio protocol, shipped as data files in this package.

``protocol.json`` describes every request a client sends and every reply the engine
sends back (see :mod:`cambio.protocol`).
"""

from __future__ import annotations

__all__: list[str] = []
