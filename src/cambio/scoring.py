"""Scoring a finished round: totals, the tie-break chain, the caller's penalty or bonus.

Scoring is a pipeline, each step a function of the RuleSet::

    card values -> totals -> (team totals) -> lowest -> tie-break chain -> winners
    -> round scores (winner scores zero, caller penalty or bonus, placement bonuses,
       combination)

:func:`score_hands` is the public entry: hands as cards (or card texts), in position
order, ``None`` for an empty position. :func:`score_round` is the engine's form, with
``(position, card)`` pairs.

>>> from cambio.rules import RuleSet
>>> res = score_hands(RuleSet(), [["AH", "2C", None, "KH"], ["5S", "5D", "5C", "5H"]])
>>> res.totals, res.winners
((2, 20), (0,))
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import SupportsIndex

import attrs

from .arguments import Arg, optional_whole, text, whole
from .cards import Card
from .rules import RuleSet

__all__ = [
    "HandCard",
    "RoundResult",
    "placements",
    "score_hands",
    "score_round",
    "team_of",
    "teams_of",
]


@attrs.frozen
class HandCard:
    """One card of a final hand: where it lay, what it was, what it scored."""

    position: int
    """Where the card lay in its owner's grid, from 1."""
    card: Card
    """The card."""
    value: int
    """What it counted at this table."""


@attrs.frozen
class RoundResult:
    """Everything about how a round ended.

    ``reason`` is ``"call"``, ``"stock"`` (the stock ran out), ``"empty-grid"`` (a grid
    emptied by snapping won outright) or ``"turn-cap"``. ``scores`` are the round scores
    per player after the winner's zero, the caller's penalty or bonus and any
    combination; with teams every partner shows the team's score. ``winners`` are the
    players who won the round (all partners of a winning team).
    """

    reason: str
    """Why the round ended: ``call``, ``stock``, ``empty-grid`` or ``turn-cap``."""
    caller: int | None
    """The seat that called Cambio (``None`` when nobody did)."""
    hands: tuple[tuple[HandCard, ...], ...]
    """Every seat's final hand, card by card, face up."""
    totals: tuple[int, ...]
    """Every seat's card total (the sum of its hand's values)."""
    scores: tuple[int, ...]
    """Every seat's round score: the total after the winner's zero, the caller's penalty
    or bonus and any combination (with teams, each partner shows the team's score)."""
    winners: tuple[int, ...]
    """The seats that won the round (every partner of a winning team)."""
    caller_lowest: bool | None = None
    """Whether the caller had the lowest total, as the table counts ties (``None``
    without a caller)."""
    team_totals: tuple[int, ...] = ()
    """Each team's card total (empty when the table has no teams)."""
    combination: int | None = None
    """The seat holding the table's scoring combination, if any did."""

    @property
    def players(self) -> int:
        """How many seats played the round."""
        return len(self.totals)


def teams_of(rules: RuleSet, players: SupportsIndex) -> tuple[tuple[int, ...], ...]:
    """The partnerships for ``players`` seats: seat ``i`` with ``i + k * players/size``.

    Without teams every player is a team of one.

    >>> from cambio.rules import TeamRules
    >>> teams_of(RuleSet(teams=TeamRules(size=2)), 4)
    ((0, 2), (1, 3))
    """
    players = whole("players", players)
    size = rules.teams.size
    if size <= 1 or players % size:
        return tuple((p,) for p in range(players))
    count = players // size
    return tuple(tuple(t + k * count for k in range(size)) for t in range(count))


def team_of(rules: RuleSet, players: SupportsIndex, player: SupportsIndex) -> int:
    """The index of ``player``'s team."""
    players, player = whole("players", players), whole("player", player)
    size = rules.teams.size
    if size <= 1 or players % size:
        return player
    return player % (players // size)


def _tie_break(
    rules: RuleSet,
    tied: list[int],
    caller_unit: int | None,
    unit_values: Sequence[Sequence[int]],
) -> list[int]:
    for step in rules.scoring.tie_break:
        if len(tied) <= 1:
            break
        if step == "share":
            break
        if step == "caller":
            if caller_unit in tied:
                tied = [caller_unit]
        elif step == "not-caller":
            if caller_unit in tied:
                tied = [u for u in tied if u != caller_unit]
        elif step == "lower-cards":
            keys = {u: sorted(unit_values[u], reverse=True) for u in tied}
            best = min(keys.values())
            tied = [u for u in tied if keys[u] == best]
        elif step == "fewer-cards":
            counts = {u: len(unit_values[u]) for u in tied}
            fewest = min(counts.values())
            tied = [u for u in tied if counts[u] == fewest]
    return tied


def placements(totals: Sequence[int], caller: SupportsIndex | None = None) -> tuple[int, ...]:
    """Each entry's place (0 for the best) by ascending total.

    Tied entries share the better place, except that a caller (an index into
    ``totals``) tied with others takes the better place alone.

    >>> placements([10, 4, 10, 7])
    (2, 0, 2, 1)
    >>> placements([5, 5, 9], caller=1)
    (1, 0, 2)
    """
    caller = optional_whole("caller", caller)
    out = []
    for u, total in enumerate(totals):
        better = sum(
            1
            for v, other in enumerate(totals)
            if other < total or (other == total and v == caller and u != caller)
        )
        out.append(better)
    return tuple(out)


def score_hands(
    rules: RuleSet,
    hands: Sequence[Sequence[Card | str | None]],
    *,
    caller: SupportsIndex | None = None,
    reason: Arg[str] = "call",
) -> RoundResult:
    """Score final ``hands`` under ``rules``: the public form of the scoring pipeline.

    Each hand lists its positions in order (position 1 first); a card is a
    :class:`~cambio.cards.Card` or its text (``"KH"``, ``"10S"``, ``"JK"``) and ``None``
    is an empty position. ``caller`` is the seat that called, if any; ``reason`` is
    recorded in the result as the round's ending (``"call"``, ``"stock"``, ...).

    >>> from cambio.rules import CallRules, RuleSet
    >>> rules = RuleSet(call=CallRules(penalty=10))
    >>> score_hands(rules, [["9H", "9S"], ["AH", "2H"]], caller=0).scores
    (28, 3)
    """
    if isinstance(hands, (str, bytes)):
        raise TypeError("expected a sequence of hands, each a sequence of cards")
    pairs: list[list[tuple[int, Card]]] = []
    for p, hand in enumerate(hands):
        if isinstance(hand, (str, bytes)):
            raise TypeError(f"hand {p}: expected a sequence of cards, got {hand!r}")
        row = []
        for i, card in enumerate(hand):
            if card is None:
                continue
            if isinstance(card, str):
                card = Card.parse(card)
            elif not isinstance(card, Card):
                raise TypeError(f"hand {p}, position {i + 1}: expected a card, got {card!r}")
            row.append((i + 1, card))
        pairs.append(row)
    if not pairs:
        raise ValueError("expected at least one hand")
    seat = optional_whole("caller", caller)
    if seat is not None and not 0 <= seat < len(pairs):
        raise ValueError(f"caller must be a seat from 0 to {len(pairs) - 1}, got {seat!r}")
    return score_round(rules, pairs, reason=text("reason", reason), caller=seat)


def score_round(
    rules: RuleSet,
    hands: Sequence[Sequence[tuple[int, Card]]],
    *,
    reason: Arg[str],
    caller: SupportsIndex | None = None,
    empty_winner: SupportsIndex | None = None,
    values: Sequence[Sequence[int]] | None = None,
) -> RoundResult:
    """Score final ``hands`` (per player, ``(position, card)`` pairs) under ``rules``.

    ``empty_winner`` is a player whose grid was emptied by snapping on a table where
    that wins the round outright. ``values``, when given, holds each card's points in
    the order of ``hands`` (``rules.values.of`` of each card: a round knows them).
    """
    reason = text("reason", reason)
    caller = optional_whole("caller", caller)
    empty_winner = optional_whole("empty_winner", empty_winner)
    players = len(hands)
    if values is None:
        value = rules.values.of
        values = [[value(card) for _, card in hand] for hand in hands]
    full = tuple(
        tuple([HandCard(pos, card, v) for (pos, card), v in zip(hand, vals, strict=True)])
        for hand, vals in zip(hands, values, strict=True)
    )
    totals = tuple(sum(h.value for h in hand) for hand in full)
    units = teams_of(rules, players)
    unit_index = {p: u for u, members in enumerate(units) for p in members}
    unit_totals = [sum(totals[p] for p in members) for members in units]
    unit_values = [[h.value for p in members for h in full[p]] for members in units]
    caller_unit = unit_index[caller] if caller is not None else None

    lowest = min(unit_totals)
    at_lowest = [u for u, t in enumerate(unit_totals) if t == lowest]
    if empty_winner is not None:
        winner_units = [unit_index[empty_winner]]
    else:
        winner_units = _tie_break(rules, list(at_lowest), caller_unit, unit_values)

    caller_lowest: bool | None = None
    if caller_unit is not None:
        caller_lowest = unit_totals[caller_unit] == lowest and (
            rules.call.tie_is_lowest or len(at_lowest) == 1
        )

    unit_scores = list(unit_totals)
    for u in range(len(units)):
        if u in winner_units and (rules.scoring.winner_scores_zero or empty_winner is not None):
            unit_scores[u] = 0
    if caller_unit is not None:
        if caller_lowest:
            if rules.call.lowest_scores_zero:
                unit_scores[caller_unit] = 0
            unit_scores[caller_unit] += rules.call.bonus
        else:
            unit_scores[caller_unit] += rules.call.penalty

    bonuses = rules.scoring.placement.get(str(players), ())
    if bonuses:
        for u, place in enumerate(placements(unit_totals, caller_unit)):
            if place < len(bonuses):
                unit_scores[u] += bonuses[place]

    combination: int | None = None
    combo = rules.scoring.combination
    if combo is not None and combo.ranks:
        wanted = Counter(combo.ranks)
        for p, hand in enumerate(full):
            if Counter(h.card.rank for h in hand) == wanted:
                combination = p
                break
        if combination is not None:
            holder_unit = unit_index[combination]
            unit_scores = [
                combo.holder if u == holder_unit else combo.others for u in range(len(units))
            ]
            winner_units = [holder_unit]

    scores = tuple(unit_scores[unit_index[p]] for p in range(players))
    winners = tuple(sorted(p for u in winner_units for p in units[u]))
    return RoundResult(
        reason=reason,
        caller=caller,
        hands=full,
        totals=totals,
        scores=scores,
        winners=winners,
        caller_lowest=caller_lowest,
        team_totals=tuple(unit_totals) if len(units) < players else (),
        combination=combination,
    )
