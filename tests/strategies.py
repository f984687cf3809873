"""Hypothesis strategies for valid rule tables, shared by every test module.

``rulesets()`` draws playable :class:`~cambio.rules.RuleSet` values across every axis of
the schema (deck, values, grid, opening peek, turn, powers, snapping, calling, scoring,
stock, match, teams). Each one is built valid by construction, so
``check_rules(rules) == []`` holds without filtering; ``tests/test_loading.py`` checks it.

>>> from hypothesis import find
>>> find(rulesets(), lambda r: r.teams.size == 2).players.min % 2
0
"""

from __future__ import annotations

import math
from typing import Any, get_args, get_type_hints

import attrs
from hypothesis import strategies as st

from cambio.cards import JOKER, STANDARD_RANKS
from cambio.rules import (
    MAX_EARLIEST,
    MAX_EXTRA,
    MAX_FINAL_TURNS,
    MAX_GRID,
    MAX_PLAYERS,
    CallRules,
    CombinationRules,
    DeckRules,
    GridRules,
    MatchRules,
    OpeningRules,
    PeekScope,
    PlayerRules,
    Power,
    PowerRules,
    RuleSet,
    ScoringRules,
    SnapRules,
    Step,
    StockRules,
    SwapScope,
    TeamRules,
    TieBreak,
    TurnRules,
    ValueRules,
    custom_rank_name_ok,
)

__all__ = [
    "PEEK_SCOPES",
    "SWAP_SCOPES",
    "TIE_BREAKS",
    "custom_rank_names",
    "labels",
    "large_rulesets",
    "power_steps",
    "rulesets",
]

PEEK_SCOPES: tuple[str, ...] = get_args(PeekScope)
SWAP_SCOPES: tuple[str, ...] = get_args(SwapScope)
TIE_BREAKS: tuple[str, ...] = get_args(TieBreak)


def _choices(cls: type, field: str) -> tuple[str, ...]:
    """The words a Literal field of an attrs class accepts."""
    return tuple(get_args(get_type_hints(cls)[field]))


labels = st.text(max_size=24)
"""Free text for names and summaries (any Unicode the TOML writer can write)."""

custom_rank_names = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=5
).filter(custom_rank_name_ok)
"""Rank names of a custom (suitless) deck: any printable text without spaces or the
written-position notation's marks, dots and quotes included."""


@st.composite
def power_steps(draw: st.DrawFn) -> tuple[Step, ...]:
    """A valid sequence of peek and swap steps (``peeked-*`` swaps only after peeks)."""
    steps: list[Step] = []
    peeks = 0
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):
            steps.append(Step("peek", draw(st.sampled_from(PEEK_SCOPES)), draw(st.booleans())))
            peeks += 1
            continue
        scopes = ["own-other", "any-two", "other-other"]
        if peeks >= 1:
            scopes += ["peeked-any", "peeked-own", "peeked-other"]
        if peeks >= 2:
            scopes.append("peeked-pair")
        steps.append(
            Step(
                "swap",
                draw(st.sampled_from(scopes)),
                optional=draw(st.booleans()),
                seen=draw(st.booleans()),
            )
        )
    return tuple(steps)


@st.composite
def _deck(draw: st.DrawFn) -> tuple[list[str], set[str], DeckRules, int]:
    """Deck composition (one copy): ranks in deck order, suitless ranks, rules, size.

    A custom deck may name a rank with a count of 0: the deck does not hold it, so it
    needs no value and deals no card.
    """
    if draw(st.integers(0, 3)) == 0:
        custom = draw(st.dictionaries(custom_rank_names, st.integers(0, 6), min_size=1, max_size=6))
        if sum(custom.values()) == 0:
            first = next(iter(custom))
            custom[first] = 1
        return list(custom), set(custom), DeckRules(custom=custom), sum(custom.values())
    ranks = draw(st.lists(st.sampled_from(STANDARD_RANKS), unique=True, min_size=1))
    if draw(st.booleans()):
        ranks = [r for r in STANDARD_RANKS if r in ranks]
    jokers = draw(st.integers(0, 3))
    names = [*ranks, *([JOKER] if jokers else [])]
    size = 4 * len(ranks) + jokers
    return names, {JOKER}, DeckRules(ranks=tuple(ranks), jokers=jokers), size


@st.composite
def _powers(draw: st.DrawFn, names: list[str], suitless: set[str]) -> tuple[Power, ...]:
    chosen = draw(st.lists(st.sampled_from(names), unique=True, max_size=len(names)))
    table: list[Power] = []
    while chosen:
        take = draw(st.integers(1, min(3, len(chosen))))
        group, chosen = chosen[:take], chosen[take:]
        colours: list[Any]
        if any(rank in suitless for rank in group):
            colours = ["any"]
        elif draw(st.integers(0, 4)) == 0:
            colours = ["red", "black"]  # the same ranks, a different power per colour
        else:
            colours = [draw(st.sampled_from(("any", "red", "black")))]
        for colour in colours:
            table.append(
                Power(
                    ranks=tuple(group),
                    steps=draw(power_steps()),
                    colour=colour,
                    name=draw(labels),
                )
            )
    return tuple(table)


MASKED_POSITIONS = 10
"""The most positions (grid and extra) ``rulesets()`` gives a table with
``turn.exchange_equal`` or ``snap.several``, which take an action id per subset of a
player's positions; ``large_rulesets()`` goes up to and past the real ceiling."""


def _lit(cls: type, field: str) -> st.SearchStrategy[Any]:
    return st.sampled_from(_choices(cls, field))


@st.composite
def rulesets(draw: st.DrawFn) -> RuleSet:
    """A valid, playable RuleSet; every axis varies."""
    team = draw(st.sampled_from((1, 1, 1, 2, 3)))
    rows = tuple(draw(st.lists(st.integers(1, 3), min_size=1, max_size=3)))
    grid = GridRules(rows=rows, extra=draw(st.integers(0, 6)))
    size = grid.size

    low = team * draw(st.integers(1, 3))
    high = low + team * draw(st.integers(0, min(3, (MAX_PLAYERS - low) // team)))
    default = low + team * draw(st.integers(0, (high - low) // team))
    players = PlayerRules(min=low, max=high, default=default)

    names, suitless, deck, per_deck = draw(_deck())
    fewest = max(1, math.ceil((high * size + 1) / per_deck))
    deck = DeckRules(
        decks=draw(st.integers(fewest, fewest + 2)),
        jokers=deck.jokers,
        ranks=deck.ranks,
        custom=deck.custom,
    )

    held = list(deck.rank_names())
    values_for = st.integers(-20, 30)
    rank_values = {name: draw(values_for) for name in held}
    if draw(st.booleans()):  # a value for a rank named with a count of 0 is unused
        rank_values.update({name: draw(values_for) for name in names})
    if draw(st.booleans()):  # a value for a rank this deck lacks is harmless
        rank_values.update(draw(st.dictionaries(custom_rank_names, values_for, max_size=2)))
    suited = [n for n in held if n not in suitless]
    colour_table = st.dictionaries(st.sampled_from(suited), values_for) if suited else st.just({})
    values = ValueRules(rank=rank_values, red=draw(colour_table), black=draw(colour_table))

    positions = tuple(draw(st.lists(st.integers(1, size), unique=True, max_size=size)))
    count = draw(st.integers(0, len(positions)))
    opening = OpeningRules(
        positions=positions,
        count=count,
        re_peek=count > 0 and draw(st.booleans()),
        upcard=draw(st.booleans()),
    )

    exchange_equal = draw(st.booleans())
    several = draw(st.booleans())
    if exchange_equal or several:  # an id per subset of positions: keep the grid small
        grid = GridRules(rows=grid.rows, extra=min(grid.extra, MASKED_POSITIONS - size))
    turn = TurnRules(
        take_discard=draw(st.booleans()),
        exchange_equal=exchange_equal,
        exchange_failure=draw(_lit(TurnRules, "exchange_failure")),
        max_turns=draw(st.integers(0, 200)),
        open_draw=draw(st.booleans()),
    )
    swapped_out = draw(st.booleans())
    powers = PowerRules(
        timing=draw(_lit(PowerRules, "timing")),
        optional=draw(st.booleans()),
        swapped_out=swapped_out,
        swapped_out_from=draw(_lit(PowerRules, "swapped_out_from")) if swapped_out else "any",
        table=draw(_powers(held, suitless)),
    )
    per_discard = draw(_lit(SnapRules, "per_discard"))
    empty_grid = draw(_lit(SnapRules, "empty_grid"))
    snap = SnapRules(
        when=draw(_lit(SnapRules, "when")),
        targets=draw(_lit(SnapRules, "targets")),
        match=draw(_lit(SnapRules, "match")),
        several=several,
        penalty_cards=draw(st.integers(0, 3)),
        penalty_peekable=draw(st.booleans()),
        wrong_seen_by=draw(_lit(SnapRules, "wrong_seen_by")),
        wrong_other_seen_by=draw(_lit(SnapRules, "wrong_other_seen_by")),
        wrong_shown=draw(_lit(SnapRules, "wrong_shown")),
        arbitration=draw(_lit(SnapRules, "arbitration")),
        per_discard=per_discard,
        too_late=draw(_lit(SnapRules, "too_late")) if per_discard == "one" else "void",
        last_discard=draw(st.booleans()),
        penalty_position=draw(_lit(SnapRules, "penalty_position")),
        empty_grid=empty_grid,
        empty_grid_calls=(
            draw(_lit(SnapRules, "empty_grid_calls")) if empty_grid == "call" else "at-once"
        ),
    )
    caller_locked = draw(st.booleans())
    call = CallRules(
        allowed=draw(st.booleans()),
        timing=draw(_lit(CallRules, "timing")),
        earliest=draw(st.integers(0, 5)),
        final_turns=draw(st.integers(0, 3)),
        caller_final_turn=draw(st.booleans()),
        caller_locked=caller_locked,
        caller_locked_peeks=caller_locked and draw(st.booleans()),
        penalty=draw(st.integers(-20, 20)),
        bonus=draw(st.integers(-20, 20)),
        tie_is_lowest=draw(st.booleans()),
        lowest_scores_zero=draw(st.booleans()),
    )
    combination = None
    if draw(st.booleans()):
        stock = [c.rank for c in deck.cards()]  # each rank as often as the deck holds it
        picked = draw(st.lists(st.integers(0, len(stock) - 1), min_size=1, max_size=4, unique=True))
        combination = CombinationRules(
            ranks=tuple(stock[i] for i in picked),
            holder=draw(st.integers(-50, 50)),
            others=draw(st.integers(-50, 100)),
        )
    placement: dict[str, tuple[int, ...]] = {}
    for seats in draw(st.lists(st.integers(low, high), unique=True, max_size=3)):
        places = draw(st.lists(st.integers(-10, 10), max_size=seats))
        placement[str(seats)] = tuple(places)
    scoring = ScoringRules(
        winner_scores_zero=draw(st.booleans()),
        tie_break=tuple(draw(st.lists(st.sampled_from(TIE_BREAKS), max_size=5))),
        combination=combination,
        placement=placement,
    )
    end = draw(_lit(MatchRules, "end"))
    starter = draw(_lit(MatchRules, "starter"))
    match = MatchRules(
        end=end,
        limit=draw(st.integers(1, 500)),
        at_limit=draw(st.booleans()),
        rounds=draw(st.integers(1 if end == "rounds" else 0, 20)),
        tie=draw(_lit(MatchRules, "tie")),
        exact_limit=draw(_lit(MatchRules, "exact_limit")),
        first_dealer=draw(_lit(MatchRules, "first_dealer")),
        starter=starter,
        tied_winners=(
            draw(_lit(MatchRules, "tied_winners")) if starter == "last-winner" else "after-dealer"
        ),
    )
    on_empty = draw(_lit(StockRules, "on_empty"))
    recycle_when = draw(_lit(StockRules, "recycle_when")) if on_empty == "recycle" else "draw"
    return RuleSet(
        name=draw(labels),
        summary=draw(labels),
        players=players,
        deck=deck,
        values=values,
        grid=grid,
        opening=opening,
        turn=turn,
        powers=powers,
        snap=snap,
        call=call,
        scoring=scoring,
        stock=StockRules(on_empty=on_empty, recycle_when=recycle_when),
        match=match,
        teams=TeamRules(size=team),
    )


@st.composite
def large_rulesets(draw: st.DrawFn) -> RuleSet:
    """A table at or just past the cost ceilings of :func:`cambio.check_rules`.

    The seats, the grid, the extra positions, the opening-peek choices, the final turns
    and the wait before a call are drawn near their ceilings, sometimes one past; the
    mask switches (``turn.exchange_equal``, ``snap.several``) come with grids around the
    size where the action space and the legal actions per decision reach theirs. The
    rest is a :func:`rulesets` table, capped at a few dozen turns so that a round ends
    quickly. Some of these tables must be refused; the others must play to the end.
    """
    base = draw(rulesets())
    high = draw(st.integers(MAX_PLAYERS - 2, MAX_PLAYERS + 1))
    low = draw(st.integers(1, 4))
    players = PlayerRules(min=low, max=high, default=low)
    masks = draw(st.booleans())
    if masks:  # around 2**positions ids: reaches the action space and legal ceilings
        positions = draw(st.integers(11, 17))
        cards = draw(st.integers(1, min(MAX_GRID, positions)))
    else:
        cards = draw(st.integers(MAX_GRID - 3, MAX_GRID + 1))
        positions = cards + draw(st.integers(0, MAX_EXTRA + 1))
    rows = [4] * (cards // 4) + ([cards % 4] if cards % 4 else [])
    grid = GridRules(rows=tuple(rows), extra=positions - cards)
    per_deck = len(base.deck.cards()) // base.deck.decks
    need = high * cards + 1
    deck = attrs.evolve(base.deck, decks=max(1, math.ceil(need / per_deck)))
    chosen = draw(st.lists(st.integers(1, cards), unique=True, max_size=cards))
    opening = OpeningRules(
        positions=tuple(chosen), count=draw(st.integers(0, len(chosen))), re_peek=False
    )
    call = attrs.evolve(
        base.call,
        earliest=draw(st.integers(0, MAX_EARLIEST + 1)),
        final_turns=draw(st.integers(0, MAX_FINAL_TURNS + 1)),
    )
    exchange, several = masks and draw(st.booleans()), masks and draw(st.booleans())
    return attrs.evolve(
        base,
        players=players,
        deck=deck,
        grid=grid,
        opening=opening,
        turn=attrs.evolve(base.turn, exchange_equal=exchange, max_turns=draw(st.integers(1, 30))),
        snap=attrs.evolve(base.snap, several=several),
        call=call,
        teams=TeamRules(size=1),
    )
