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

from collections.abc import Callable, Sequence

import attrs

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
            if e.behind <= 0
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
    view: PlayerView,
    rules: RuleSet,
    seed: int,
    command: Callable[[Action | None], str],
    allowed: Sequence[Action],
) -> str:
    """The hint text of ``view``'s decision (:func:`hint_text`), drawn under ``seed``,
    among the ``allowed`` moves (and letting a snap go); a sentence when the view has
    no decision to analyse.

    At a snap offer to the player whose turn comes next, letting the snap go means
    taking that turn: it is shown as Enter followed by the best move of the turn."""
    from .analysis import AnalysisError

    try:
        result = analyse(view, rules, samples=HINT_SAMPLES, seconds=HINT_SECONDS, seed=seed)
    except AnalysisError as error:
        return f"No hint here: {error}."
    legal = set(allowed)
    kept = [e for e in result.estimates if e.action is None or e.action in legal]
    rest = [e for e in result.estimates if e not in kept]
    then: Action | None = None
    if rest and all(e.action is not None for e in kept):
        then = rest[0].action  # the estimates come best first
        kept = [e for e in result.estimates if e in kept or e is rest[0]]

    def typed(action: Action | None) -> str:
        if then is not None and action == then:
            return f"{command(None)}, then {command(action)}"
        return command(action)

    return hint_text(attrs.evolve(result, estimates=tuple(kept)), typed)
