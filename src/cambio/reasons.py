"""One-line reasons, read from a table's rules: who deals and starts, and what a caller's
result costs or earns.

Every sentence comes from the :class:`~cambio.rules.RuleSet` alone, so two tables with
the same rules give the same words.

>>> from cambio import RuleSet
>>> starter_reason(RuleSet(), first_round=True)
"the last seat deals the first round, and the player to the dealer's left starts"
"""

from __future__ import annotations

from collections.abc import Sequence

from .rules import RuleSet
from .scoring import RoundResult

__all__ = ["caller_reason", "starter_reason"]

_FIRST_DEALER = {
    "last-seat": "the last seat deals the first round",
    "first-seat": "the first seat deals the first round",
    "random": "a seat drawn at random deals the first round",
    "high-card": "whoever draws the highest card deals the first round",
}

_STARTER = {
    "left-of-dealer": "the player to the dealer's left starts",
    "worst-hand": "the player with the highest total of the last round starts",
    "first-seat": "the first seat still playing starts every round",
    "last-winner": "the winner of the last round starts",
}

_FIRST_ROUND_STARTER = {
    "worst-hand": "the player to the dealer's left starts the first round",
    "last-winner": "the player to the dealer's left starts the first round",
}


def starter_reason(rules: RuleSet, *, first_round: bool) -> str:
    """Why the dealer deals and the starter starts, as the table's match rules say."""
    how = rules.match
    start = _STARTER[how.starter]
    if not first_round:
        deal = "the deal passes to the left" if how.starter != "first-seat" else ""
        return f"{deal}, and {start}" if deal else start
    start = _FIRST_ROUND_STARTER.get(how.starter, start)
    return f"{_FIRST_DEALER[how.first_dealer]}, and {start}"


def caller_reason(result: RoundResult, rules: RuleSet, names: Sequence[str]) -> str | None:
    """What calling did to the caller's score this round, or None when nothing changed.

    ``names[seat]`` names each round seat (the caller's name begins the sentence).
    """
    caller = result.caller
    call = rules.call
    if caller is None or result.caller_lowest is None:
        return None
    who = names[caller]
    lowest = min(result.totals)
    tied = result.totals[caller] == lowest and result.totals.count(lowest) > 1
    if result.caller_lowest:
        tie = " (a tie for the lowest counts as lowest here)" if tied else ""
        if call.lowest_scores_zero:
            return f"{who} called and had the lowest total{tie}, so scores 0 for the round."
        if call.bonus:
            return (
                f"{who} called and had the lowest total{tie}: {call.bonus:+d} to the round "
                "score, the table's caller bonus."
            )
        return None
    if not call.penalty:
        return None
    if tied:
        return (
            f"{who} called but only tied for the lowest total, which does not count as "
            f"lowest here: {call.penalty:+d}, the table's caller penalty."
        )
    return (
        f"{who} called but did not have the lowest total: {call.penalty:+d}, the table's "
        "caller penalty."
    )
