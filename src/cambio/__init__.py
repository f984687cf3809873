"""cambio-rules: the card game Cambio (Cabo, Pablo, Cactus) under any house-rule table."""

from __future__ import annotations

from .actions import Action, ActionKind, ActionSpace
from .analysis import ActionEstimate, Analysis, AnalysisError, analyse, analyse_round
from .cards import Card
from .determinize import determinize
from .errors import IllegalActionError, PositionError, Problem, RuleSetError, SaveError
from .events import Event, EventKind
from .loading import (
    available_variants,
    load_ruleset,
    ruleset_from_dict,
    ruleset_from_toml,
    ruleset_to_dict,
    ruleset_to_toml,
    variant_summaries,
)
from .match import Match, MatchResult, MatchView, RoundRecord
from .round import Phase, Round
from .round_review import Review, ReviewedDecision, review
from .rules import RuleSet, check_rules
from .scoring import HandCard, RoundResult, score_hands
from .simulate import SimulationReport, simulate
from .views import PlayerView

__all__ = [
    "Action",
    "ActionEstimate",
    "ActionKind",
    "ActionSpace",
    "Card",
    "Event",
    "EventKind",
    "HandCard",
    "Match",
    "MatchResult",
    "MatchView",
    "Phase",
    "PlayerView",
    "PositionError",
    "Round",
    "Review",
    "ReviewedDecision",
    "RoundRecord",
    "RoundResult",
    "IllegalActionError",
    "Problem",
    "RuleSet",
    "RuleSetError",
    "SaveError",
    "SimulationReport",
    "Analysis",
    "AnalysisError",
    "analyse",
    "analyse_round",
    "available_variants",
    "check_rules",
    "compiled",
    "determinize",
    "load_ruleset",
    "review",
    "ruleset_from_dict",
    "ruleset_from_toml",
    "ruleset_to_dict",
    "ruleset_to_toml",
    "score_hands",
    "simulate",
    "variant_summaries",
]

__version__ = "0.1.0"


def _is_compiled() -> bool:
    from importlib.machinery import EXTENSION_SUFFIXES

    from . import round as engine

    return (engine.__file__ or "").endswith(tuple(EXTENSION_SUFFIXES))


compiled: bool = _is_compiled()
"""Whether this is the compiled build: the engine core as C extensions made by mypyc
(``CAMBIO_COMPILE=1 pip install .``), rather than pure Python. Both behave the same."""
