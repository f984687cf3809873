"""cambio-rules: the card game Cambio (Cabo, Pablo, Cactus) under any house-rule table."""

from __future__ import annotations

from .cards import Card
from .errors import IllegalActionError, Problem, RuleSetError
from .rules import RuleSet, check_rules

__all__ = [
    "Card",
    "IllegalActionError",
    "Problem",
    "RuleSet",
    "RuleSetError",
    "check_rules",
]

__version__ = "0.1.0"
