"""The observation and action spaces of the learning environments, and the turn cap.

An observation is either a ``Dict`` of ``observation`` (the :class:`~cambio.rl.Encoder`
vector, ``float32`` in [-1, 1]) and ``action_mask`` (``int8``, one entry per action id:
the table's ids, then *decline*), or, *flat*, one ``float32`` ``Box``: the encoder
vector followed by the mask as 0.0/1.0 (the mask starts at ``encoder.size``).
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np
from gymnasium import spaces

from ..rules import RuleSet
from .encoding import Encoder

__all__ = ["rules_with_cap", "table_spaces"]


def rules_with_cap(rules: RuleSet, max_turns: int | None) -> RuleSet:
    """``rules`` with a turn cap of ``max_turns`` (the lower of it and the table's own)."""
    if max_turns is None:
        return rules
    if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
        raise ValueError(f"max_turns must be a whole number of 1 or more, got {max_turns!r}")
    own = rules.turn.max_turns
    cap = max_turns if not own else min(own, max_turns)
    return attrs.evolve(rules, turn=attrs.evolve(rules.turn, max_turns=cap))


def table_spaces(encoder: Encoder, flat: bool) -> tuple[spaces.Space[Any], spaces.Discrete]:
    """The observation space (``Dict``, or the flat ``Box``) and the action space."""
    actions = encoder.space.size + 1
    if flat:
        box = spaces.Box(low=-1.0, high=1.0, shape=(encoder.size + actions,), dtype=np.float32)
        return box, spaces.Discrete(actions)
    obs = spaces.Dict(
        {
            "observation": spaces.Box(low=-1.0, high=1.0, shape=(encoder.size,), dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(actions,), dtype=np.int8),
        }
    )
    return obs, spaces.Discrete(actions)
