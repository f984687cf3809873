"""The protocol's ``analyse`` request: a seat's legal actions estimated, at tables with hints.

A table gives hints only when it was created with ``"hints": true`` (the ``create``
request's option, off by default: a table with hints is another game, so the choice
belongs to whoever sets the table up, applies to every seat and shows in every view;
saves keep it). The analysis is :func:`cambio.analyse_round` of the seat's
decision in the round on show, so it reads only that seat's view; its actions are
written in match seats, like every action of the protocol.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .protocol import Table

__all__ = ["HINTS_KEY", "MAX_HINT_SAMPLES", "analysis_reply", "hints_on"]

HINTS_KEY = "hints"
"""The field that turns hints on: of the ``create`` request, of every view and of a
table's save."""

MAX_HINT_SAMPLES = 200
"""The most drawn rounds one ``analyse`` request may ask for."""


def hints_on(table: Table) -> bool:
    """Whether ``table`` was set up with hints."""
    return table.hints


def analysis_reply(table: Table, seat: int, samples: int, seed: int | None) -> dict[str, Any]:
    """The ``analysis`` reply for match seat ``seat`` of ``table``; a
    :class:`~cambio.protocol.ProtocolError` when the table has no hints, the round on
    show is over, or the seat has no decision now."""
    from .analysis import AnalysisError, analyse_round
    from .protocol import ProtocolError, _action_json

    if not hints_on(table):
        raise ProtocolError("forbidden", f"table {table.name} was not set up with hints", "$.type")
    match = table.match
    if table.between_rounds or match.is_over:
        raise ProtocolError("round-over", "the round on show is over: nothing to analyse")
    rnd = match.round
    inner = match.round_seat(seat)
    if inner is None:
        raise ProtocolError("wrong-seat", f"seat {seat} sits out this round", "$.seat")
    try:
        result = analyse_round(rnd, inner, samples=samples, seed=seed)
    except AnalysisError as error:
        raise ProtocolError("illegal-action", str(error), "$.seat") from None
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
