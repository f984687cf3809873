"""Cambio for learning code: an observation encoding, Gymnasium and PettingZoo environments.

Needs the ``rl`` extra (``pip install 'cambio-rules[rl]'``: numpy, gymnasium,
pettingzoo). :class:`Encoder` turns a :class:`~cambio.views.PlayerView` into a
fixed-length ``float32`` vector; :func:`gym_env` is a single-agent Gymnasium
environment (one learner, fixed opponents at the other seats), :func:`vector_env` many
of them behind Gymnasium's ``VectorEnv`` API, and :func:`env` and :class:`raw_env` the
PettingZoo ``AECEnv`` (every seat an agent). The environments are imported on first use,
so the encoding alone needs only numpy.
"""

from __future__ import annotations

from typing import Any

from .encoding import PHASES, Encoder, Feature, layout_markdown
from .knowledge import SeenBy, seen_by
from .turns import Turns, decline_id

__all__ = [
    "PHASES",
    "Encoder",
    "Feature",
    "SeenBy",
    "CambioEnv",
    "CambioVectorEnv",
    "Turns",
    "decline_id",
    "env",
    "gym_env",
    "layout_markdown",
    "raw_env",
    "seen_by",
    "vector_env",
]


def __getattr__(name: str) -> Any:
    if name in ("env", "raw_env"):
        from . import pettingzoo_env

        return getattr(pettingzoo_env, name)
    if name in ("gym_env", "CambioEnv"):
        from . import single_env

        return getattr(single_env, name)
    if name in ("vector_env", "CambioVectorEnv"):
        from . import vector

        return getattr(vector, name)
    raise AttributeError(f"module 'cambio.rl' has no attribute {name!r}")
