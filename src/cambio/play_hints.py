"""The ``hint`` command of ``cambio play``: the best few moves of a decision, in words.

At a table started with ``--hints`` the player may type ``hint`` at any decision. The
hint is :func:`cambio.analyse` of the player's own view (nothing else: like every bot,
it knows only what the player knows), drawn under a seed fixed by the game and the
decision, so a replayed game gives the same hint. It lists the best
:data:`HINT_MOVES` moves as the commands to type, each with its share of the win and
its 95% interval, its mean round score, and how far it is behind the best move.

>>> import cambio
>>> rnd = cambio.Round("practice", players=2, seed=3)
>>> result = cambio.analyse(rnd.view(0), rnd.rules, samples=8, seed=1)
>>> text = hint_text(result, lambda action: "Enter" if action is None else action.kind.value)
>>> text.splitlines()[0]
'Hint: the best moves over 8 rounds drawn from what you know (win share, 95% interval):'
"""

from __future__ import annotations

from collections.abc import Callable

from .actions import Action
from .analysis import Analysis, analyse
from .rules import RuleSet
from .views import PlayerView

__all__ = ["HINT_MOVES", "HINT_SAMPLES", "HINT_SECONDS", "hint_for", "hint_text"]

HINT_MOVES = 3
"""How many moves a hint lists, the best first."""

HINT_SAMPLES = 64
"""Rounds a hint draws from the player's view."""

HINT_SECONDS = 5.0
"""The longest a hint draws rounds for (a large table's decision may take that long)."""


def _percent(x: float) -> str:
    return f"{100 * x:.0f}%"


def hint_text(result: Analysis, command: Callable[[Action | None], str]) -> str:
    """``result``'s best :data:`HINT_MOVES` moves, one line each, written with
    ``command`` (the command to type for an action; ``None``: letting a snap go)."""
    shown = result.estimates[:HINT_MOVES]
    typed = [command(e.action) for e in shown]
    width = max(len(t) for t in typed)
    lines = [
        f"Hint: the best moves over {result.samples} rounds drawn from what you know "
        "(win share, 95% interval):"
    ]
    for e, text in zip(shown, typed, strict=True):
        behind = (
            "the best"
            if e is result.best
            else f"{_percent(e.behind)} +/- {_percent(e.behind_error)} behind"
        )
        lines.append(
            f"  {text.ljust(width)}  win {_percent(e.win):>4} "
            f"({_percent(e.win_low)}-{_percent(e.win_high)})  "
            f"score {e.score:5.1f}  {behind}"
        )
    left = len(result.estimates) - len(shown)
    if left:
        lines.append(f"  ({left} more move{'s' if left != 1 else ''} estimated no better)")
    return "\n".join(lines)


def hint_for(
    view: PlayerView, rules: RuleSet, seed: int, command: Callable[[Action | None], str]
) -> str:
    """The hint text of ``view``'s decision (:func:`hint_text`), drawn under ``seed``;
    a sentence when the view has no decision to analyse."""
    from .analysis import AnalysisError

    try:
        result = analyse(view, rules, samples=HINT_SAMPLES, seconds=HINT_SECONDS, seed=seed)
    except AnalysisError as error:
        return f"No hint here: {error}."
    return hint_text(result, command)
