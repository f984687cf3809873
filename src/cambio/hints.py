"""The protocol's ``analyse`` request: a seat's legal actions estimated, at tables with hints.

A table gives hints only when it was created with ``"hints": true`` (the ``create``
request's option, off by default: a table with hints is another game, so the choice
belongs to whoever sets the table up, applies to every seat and shows in every view;
saves keep it). The analysis is :func:`cambio.analyse` of the seat's view of the
round on show (:func:`analysis_position`), so it reads nothing else; its actions are
written in match seats, like every action of the protocol (:func:`analysis_json`). An
:class:`~cambio.protocol.Engine` answers at once (:func:`analysis_reply`); ``cambio
serve`` runs the analysis in worker processes (:mod:`cambio.server.analyses`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .analysis import Analysis
    from .protocol import Table
    from .rules import RuleSet
    from .views import PlayerView

__all__ = [
    "HINTS_KEY",
    "MAX_HINT_SAMPLES",
    "analysis_json",
    "analysis_position",
    "analysis_reply",
    "hints_on",
]

HINTS_KEY = "hints"
"""The field that turns hints on: of the ``create`` request, of every view and of a
table's save."""

MAX_HINT_SAMPLES = 200
"""The most drawn rounds one ``analyse`` request may ask for."""


def hints_on(table: Table) -> bool:
    """Whether ``table`` was set up with hints."""
    return table.hints


def analysis_position(table: Table, seat: int) -> tuple[PlayerView, RuleSet]:
    """The view of match seat ``seat`` that an ``analyse`` request analyses, with the
    table's rules; a :class:`~cambio.protocol.ProtocolError` when the table has no
    hints, the round on show is over, or the seat sits this round out."""
    from .protocol import ProtocolError

    if not hints_on(table):
        raise ProtocolError("forbidden", f"table {table.name} was not set up with hints", "$.type")
    match = table.match
    if table.between_rounds or match.is_over:
        raise ProtocolError("round-over", "the round on show is over: nothing to analyse")
    inner = match.round_seat(seat)
    if inner is None:
        raise ProtocolError("wrong-seat", f"seat {seat} sits out this round", "$.seat")
    rnd = match.round
    return rnd.view(inner), rnd.rules


def analysis_json(table: Table, seat: int, result: Analysis) -> dict[str, Any]:
    """The ``analysis`` reply of ``result``, an analysis of match seat ``seat``'s
    decision at ``table`` as it stands, its actions written in match seats."""
    from .protocol import _action_json

    match = table.match
    estimates = []
    for e in result.estimates:
        action = None
        label = f"P{seat} no snap"
        if e.action is not None:
            outer = match._action_out(e.action)
            action = _action_json(outer, match.space.encode(outer))
            label = action["text"]
        estimates.append(
            {
                "action": action,
                "text": label,
                "win": e.win,
                "win_interval": [e.win_low, e.win_high],
                "score": e.score,
                "score_interval": [e.score_low, e.score_high],
                "behind": e.behind,
                "behind_error": e.behind_error,
            }
        )
    return {
        "type": "analysis",
        "table": table.name,
        "seat": seat,
        "at": table.at,
        "phase": result.phase,
        "samples": result.samples,
        "estimates": estimates,
    }


def analysis_reply(table: Table, seat: int, samples: int, seed: int | None) -> dict[str, Any]:
    """The ``analysis`` reply for match seat ``seat`` of ``table``; a
    :class:`~cambio.protocol.ProtocolError` when the table has no hints, the round on
    show is over, or the seat has no decision now."""
    from .analysis import AnalysisError, analyse
    from .protocol import ProtocolError

    view, rules = analysis_position(table, seat)
    try:
        result = analyse(view, rules, samples=samples, seed=seed)
    except AnalysisError as error:
        raise ProtocolError("illegal-action", str(error), "$.seat") from None
    return analysis_json(table, seat, result)
