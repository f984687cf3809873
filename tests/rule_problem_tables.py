"""Bad tables whose problem lists pin check_rules' messages and their order.

Each entry is a name and a RuleSet built directly (no loading), so the semantic checks
alone are measured; ``tests/fixtures/rule_problems.json`` holds what each one yields.
"""

from __future__ import annotations

import attrs

from cambio.rules import (
    CallRules,
    CombinationRules,
    DeckRules,
    GridRules,
    MatchRules,
    OpeningRules,
    PlayerRules,
    Power,
    PowerRules,
    RuleSet,
    ScoringRules,
    SnapRules,
    Step,
    StockRules,
    TeamRules,
    TurnRules,
    ValueRules,
)

__all__ = ["BAD_TABLES"]

_BASE = RuleSet()

BAD_TABLES: dict[str, RuleSet] = {
    "players": attrs.evolve(_BASE, players=PlayerRules(min=0, max=-1, default=7)),
    "players-ceiling": attrs.evolve(_BASE, players=PlayerRules(min=2, max=10_000, default=3)),
    "deck-custom": attrs.evolve(
        _BASE,
        deck=DeckRules(custom={"": 2, "a b": -1, "Z": 4}),
        values=ValueRules(rank={"Z": 1}, red={"Z": 1, "Q": 2}, black={"Nope": 3}),
    ),
    "deck-ranks": attrs.evolve(
        _BASE, deck=DeckRules(decks=0, jokers=-2, ranks=("A", "A", "X", "2"))
    ),
    "deck-too-many": attrs.evolve(_BASE, deck=DeckRules(decks=10_000)),
    "values": attrs.evolve(
        _BASE,
        deck=DeckRules(jokers=2),
        values=ValueRules(rank={"A": 1}, red={"Joker": 1, "Jocker": 2}, black={"K": 0}),
    ),
    "grid-empty": attrs.evolve(_BASE, grid=GridRules(rows=(), extra=-1)),
    "grid-rows": attrs.evolve(_BASE, grid=GridRules(rows=(0, 3, -1), extra=10_000)),
    "grid-huge": attrs.evolve(_BASE, grid=GridRules(rows=tuple([1] * 500))),
    "opening": attrs.evolve(
        _BASE, opening=OpeningRules(positions=(0, 3, 3, 9), count=5, re_peek=True)
    ),
    "opening-none": attrs.evolve(
        _BASE, opening=OpeningRules(positions=(3,), count=-1, re_peek=True)
    ),
    "re-peek": attrs.evolve(_BASE, opening=OpeningRules(count=0, re_peek=True)),
    "deal-short": attrs.evolve(
        _BASE, players=PlayerRules(min=2, max=6, default=3), grid=GridRules(rows=(4, 4, 4))
    ),
    "deal-short-no-upcard": attrs.evolve(
        _BASE,
        grid=GridRules(rows=(5, 5)),
        opening=OpeningRules(upcard=False),
    ),
    "turn": attrs.evolve(_BASE, turn=TurnRules(max_turns=-3)),
    "powers": attrs.evolve(
        _BASE,
        deck=DeckRules(jokers=2),
        values=ValueRules(rank={**ValueRules().rank, "Joker": 0}),
        powers=PowerRules(
            table=(
                Power(ranks=(), steps=()),
                Power(
                    ranks=("7", "Jocker", "Joker"),
                    colour="red",
                    steps=(
                        Step(action="peek", scope="bogus", seen=True),
                        Step(action="swap", scope="peeked-pair"),
                    ),
                ),
                Power(
                    ranks=("7",),
                    colour="purple",  # type: ignore[arg-type]
                    steps=(
                        Step(action="swap", scope="nowhere"),
                        Step(action="swap", scope="peeked-own"),
                    ),
                ),
            ),
            swapped_out_from="stock",
        ),
    ),
    "snap": attrs.evolve(
        _BASE,
        snap=SnapRules(
            when="any-time",
            penalty_cards=-1,
            too_late="penalty",
            per_discard="each",
            empty_grid="win",
            empty_grid_calls="next-turn",
        ),
    ),
    "calling": attrs.evolve(
        _BASE,
        call=CallRules(earliest=-1, final_turns=10_000, caller_locked_peeks=True),
        match=MatchRules(tied_winners="lowest-seat"),
        stock=StockRules(recycle_when="one-left"),
    ),
    "calling-ceiling": attrs.evolve(_BASE, call=CallRules(earliest=10_000, final_turns=-2)),
    "costs": attrs.evolve(
        _BASE,
        players=PlayerRules(min=2, max=12, default=3),
        deck=DeckRules(decks=4),
        grid=GridRules(rows=(4, 4, 4), extra=12),
        turn=TurnRules(exchange_equal=True),
        snap=SnapRules(when="any-time", several=True),
    ),
    "scoring": attrs.evolve(
        _BASE,
        scoring=ScoringRules(
            tie_break=("share", "coin"),  # type: ignore[arg-type]
            placement={"x": (1,), "0": (), "2": (1, 2, 3)},
            combination=CombinationRules(ranks=()),
        ),
    ),
    "scoring-combination": attrs.evolve(
        _BASE, scoring=ScoringRules(combination=CombinationRules(ranks=("Q", "Qeen")))
    ),
    "match-limit": attrs.evolve(_BASE, match=MatchRules(end="limit", limit=0, rounds=-1)),
    "match-rounds": attrs.evolve(_BASE, match=MatchRules(end="rounds", rounds=0)),
    "teams": attrs.evolve(
        _BASE, players=PlayerRules(min=3, max=6, default=5), teams=TeamRules(size=2)
    ),
    "teams-zero": attrs.evolve(_BASE, teams=TeamRules(size=0)),
    "everything": attrs.evolve(
        _BASE,
        players=PlayerRules(min=3, max=2, default=9),
        deck=DeckRules(jokers=-1),
        grid=GridRules(extra=-1),
        turn=TurnRules(max_turns=-1),
        snap=SnapRules(penalty_cards=-1),
        call=CallRules(final_turns=-1),
        scoring=ScoringRules(tie_break=("nope",)),  # type: ignore[arg-type]
        match=MatchRules(end="elimination", limit=-5),
        teams=TeamRules(size=0),
    ),
}
