# ruff: noqa: RUF001
"""The words for a rule table: quick reference, every axis, and the diff of two tables."""

from __future__ import annotations

import types
import typing
from collections.abc import Iterator
from typing import Any

import attrs
import pytest

from cambio.loading import available_variants, load_ruleset
from cambio.render import (
    AxisRow,
    DiffRow,
    axis_fields,
    deck_summary,
    describe_axes,
    diff_rows,
    grid_picture,
    power_text,
    quick_reference,
    value_summary,
)
from cambio.rules import (
    CallRules,
    CombinationRules,
    DeckRules,
    GridRules,
    MatchRules,
    OpeningRules,
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

PRACTICE = RuleSet()


def flat(rules: RuleSet) -> str:
    """The quick reference with its line breaks and indents folded, for phrase checks."""
    return " ".join(quick_reference(rules).split())


def with_values(rules: RuleSet, **changes: int) -> RuleSet:
    return attrs.evolve(
        rules, values=attrs.evolve(rules.values, rank={**rules.values.rank, **changes})
    )


def with_powers(rules: RuleSet, *table: Power, **changes: Any) -> RuleSet:
    return attrs.evolve(rules, powers=attrs.evolve(rules.powers, table=table, **changes))


def penalty_like() -> RuleSet:
    """A table shaped like the penalty page (004), built in Python."""
    base = PRACTICE
    black_king = Power(
        ranks=("K",),
        colour="black",
        name="look and switch",
        steps=(
            Step("peek", "own"),
            Step("peek", "other"),
            Step("swap", "peeked-pair", optional=True),
        ),
    )
    return attrs.evolve(
        with_values(base, J=10, Q=10, K=10),
        name="penalty-like",
        deck=DeckRules(jokers=2),
        turn=TurnRules(take_discard=False),
        powers=PowerRules(table=(*base.powers.table[:3], black_king)),
        snap=SnapRules(when="any-time", targets="any", penalty_peekable=False),
        scoring=ScoringRules(tie_break=("not-caller", "lower-cards", "share")),
        stock=StockRules(on_empty="recycle"),
        match=MatchRules(end="limit", at_limit=False),
    )


# --------------------------------------------------------------------------- values, deck, grid


def test_practice_values_group_equal_values_readably() -> None:
    assert value_summary(PRACTICE) == "A 1 · 2–10 face value · J 11 · Q 12 · K 13, red K −1"


def test_values_follow_the_table() -> None:
    snap_like = with_values(attrs.evolve(PRACTICE, deck=DeckRules(jokers=2)), J=10, Q=10, K=10)
    assert value_summary(snap_like) == "A 1 · 2–10 face value · J/Q/K 10, red K −1 · Joker 0"

    kings = attrs.evolve(PRACTICE, values=ValueRules(red={"K": -2}, black={"K": 0}))
    text = value_summary(kings)
    assert "red K −2, black K 0" in text
    assert "K 13" not in text  # no card is worth the base value any more

    minus_two = with_values(attrs.evolve(PRACTICE, deck=DeckRules(jokers=2)), Joker=-2)
    assert value_summary(minus_two).endswith("Joker −2")


def test_face_value_is_claimed_only_when_it_holds() -> None:
    seven_zero = with_values(PRACTICE, **{"7": 0})
    assert value_summary(seven_zero).startswith("A 1 · 2–6 face value · 7 0 · 8–10 face value")
    all_ten = with_values(PRACTICE, **{str(n): 10 for n in range(2, 11)})
    assert value_summary(all_ten) == "A 1 · 2–10 10 · J 11 · Q 12 · K 13, red K −1"
    lone = attrs.evolve(PRACTICE, deck=DeckRules(ranks=("A", "5", "K")))
    assert value_summary(lone) == "A 1 · 5 5 · K 13, red K −1"


def test_custom_numbered_deck() -> None:
    counts = {str(n): 4 for n in range(14)}
    counts["0"] = counts["13"] = 2
    rules = attrs.evolve(
        PRACTICE,
        deck=DeckRules(custom=counts),
        values=ValueRules(rank={str(n): n for n in range(14)}, red={}),
    )
    assert value_summary(rules) == "0–13 face value"
    assert deck_summary(rules.deck) == "one custom deck: 0 ×2, 1–12 ×4, 13 ×2 (52 cards)"


def test_deck_words() -> None:
    assert deck_summary(DeckRules()) == "one deck of 52 cards, no jokers"
    assert deck_summary(DeckRules(jokers=2)) == "one deck of 52 cards + two jokers (54 cards)"
    assert deck_summary(DeckRules(decks=3)) == "three decks, each 52 cards, no jokers (156 cards)"
    short = DeckRules(ranks=("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "K"))
    assert deck_summary(short) == "one deck of 44 cards (ranks A–10, K in four suits), no jokers"


def test_grid_pictures() -> None:
    assert grid_picture(GridRules()) == "[1] [2]\n[3] [4]"
    assert grid_picture(GridRules(rows=(2, 2, 1)), marked=(3, 4)).splitlines() == [
        " [1]  [2]",
        "[3*] [4*]",
        "   [5]",
    ]
    assert grid_picture(GridRules(rows=(3, 3))) == "[1] [2] [3]\n[4] [5] [6]"


# --------------------------------------------------------------------------- the quick reference


def test_practice_flat() -> None:
    raw = quick_reference(attrs.evolve(PRACTICE, name="practice", summary="A gentle table."))
    text = " ".join(raw.split())
    lines = raw.splitlines()
    assert lines[0] == "CAMBIO · PRACTICE"
    assert "A gentle table." in text
    assert all(len(line) <= 78 for line in lines)
    assert len(lines) < 90  # about a page
    for expected in [
        "Players: 2–6 (3 by default).",
        "Deck: one deck of 52 cards, no jokers.",
        "Values: A 1 · 2–10 face value · J 11 · Q 12 · K 13, red K −1.",
        "[3*] [4*]",
        "looks once at positions 3 and 4",
        "call Cambio instead of drawing",
        "Or take the top card of the discard pile",
        "only when you discard a card you have just drawn from the stock",
        "A card swapped out of a grid does not fire its power.",
        "Using a power is optional",
        "7/8 (peek own): Look at one of your own cards.",
        "9/10 (peek another's): Look at one of another player's cards.",
        "black K (peek, then swap): Look at any one card on the table, then you may",
        "No sticking",
        "the caller takes no more",
        "can still be swapped and stuck",
        "No caller penalty or bonus.",
        "the tied players share the win",
        "the discard pile is not recycled",
        "A single round.",
        "No teams",
    ]:
        assert expected in text, expected
    assert "beside the grid" not in text  # no card can ever lie there at this table


def _body(text: str) -> str:
    return "\n".join(text.splitlines()[2:])


def test_the_text_never_depends_on_the_name() -> None:
    for name in ("practice", "penalty", "snap", "elimination", "x"):
        renamed = attrs.evolve(PRACTICE, name=name)
        assert _body(quick_reference(renamed)) == _body(quick_reference(PRACTICE))
        assert diff_rows(renamed, PRACTICE) == []


def test_changing_a_value_changes_the_reference() -> None:
    before = flat(PRACTICE)
    after = flat(with_values(PRACTICE, J=10, Q=10))
    assert "J 11 · Q 12" in before
    assert "J/Q 10 · K 13, red K −1" in after
    assert "J 11" not in after


def test_power_steps_drive_the_text() -> None:
    any_two = Power(ranks=("J", "Q"), steps=(Step("swap", "any-two"),))
    rules = with_powers(PRACTICE, any_two)
    text = flat(rules)
    assert "J/Q: Swap any two cards on the table" in text
    assert "9/10" not in text  # powers not in the table are not mentioned
    assert "Any other card has no power." in text

    seen = Power(ranks=("K",), steps=(Step("peek", "any"), Step("swap", "peeked-any", seen=True)))
    assert power_text(seen) == (
        "Look at any one card on the table, then swap the card you looked at with any other "
        "card on the table, seeing the other card."
    )
    pair = Power(
        ranks=("K",),
        colour="black",
        steps=(
            Step("peek", "own"),
            Step("peek", "other"),
            Step("swap", "peeked-pair", optional=True),
        ),
    )
    assert power_text(pair) == (
        "Look at one of your own cards, then look at one of another player's cards, then you "
        "may swap the two cards you looked at."
    )
    for scope, words in [
        ("peeked-own", "swap the card you looked at with one of your own"),
        ("peeked-other", "swap the card you looked at with one of another player's"),
    ]:
        one = Power(ranks=("Q",), steps=(Step("peek", "any"), Step("swap", scope)))
        assert words in power_text(one)


def test_power_timing_use_and_swapped_out() -> None:
    rules = with_powers(
        PRACTICE, *PRACTICE.powers.table, timing="draw", optional=False, swapped_out=True
    )
    text = flat(rules)
    assert "as soon as you draw its card from the stock, before you place or discard it" in text
    assert "Using a power is mandatory" in text
    assert "swapped out of a grid onto the discard pile fires its power too" in text
    assert "No card has a power." in flat(with_powers(PRACTICE))


def test_opening_peek_variations() -> None:
    five = attrs.evolve(PRACTICE, grid=GridRules(rows=(2, 2, 1)))
    text = quick_reference(five)
    assert "Each player gets five cards face down" in text
    assert "\n         [5]\n" in text  # the third row, centred under the first two
    one = attrs.evolve(PRACTICE, opening=OpeningRules(count=1))
    assert "chooses one of positions 3 and 4, looks at it once" in flat(one)
    none = attrs.evolve(PRACTICE, opening=OpeningRules(positions=(), count=0))
    text = flat(none)
    assert "No opening peek" in text and "[3*]" not in text
    again = attrs.evolve(PRACTICE, opening=OpeningRules(re_peek=True))
    assert "Re-peek: once per round" in flat(again)


def test_turn_variations() -> None:
    rules = attrs.evolve(
        PRACTICE,
        turn=TurnRules(take_discard=False, exchange_equal=True, max_turns=60),
        call=CallRules(timing="end-of-turn"),
    )
    text = flat(rules)
    assert "The discard pile cannot be taken: draw from the stock only." in text
    assert "Exchange: you may replace two or more of your cards that share a rank" in text
    assert "you keep the drawn card face up as an extra card" in text
    assert "Turn cap: the round ends after 60 turns in all." in text
    assert "At the end of your turn you may call Cambio." in text
    assert "instead of drawing" not in text


def test_snapping_variations() -> None:
    snap = attrs.evolve(
        PRACTICE,
        snap=SnapRules(
            when="any-time",
            targets="any",
            penalty_cards=2,
            penalty_peekable=False,
            wrong_seen_by="snapper",
            arbitration="random",
            several=True,
            empty_grid="win",
        ),
    )
    text = flat(snap)
    for expected in [
        "matches the top discard by rank (suits do not matter)",
        "at any moment, even in another player's turn",
        "give them one of your cards",
        "several of your own cards at once, all or nothing",
        "a random one of them is chosen",
        "only the sticker sees it",
        "two penalty cards",
        "may never look at them",
        "scores 0 and wins the round at once",
        "numbered from 5; a player may hold at most 4",
    ]:
        assert expected in text, expected

    own = attrs.evolve(PRACTICE, snap=SnapRules(when="after-other-discard", match="value"))
    text = flat(own)
    assert "by value" in text
    assert "only right after another player discards" in text
    assert "You may stick only your own cards." in text
    assert "its owner may look at it only with a peek" in text
    assert "counts as a Cambio call" in text


def test_calling_variations() -> None:
    rules = attrs.evolve(
        PRACTICE,
        call=CallRules(
            penalty=10,
            bonus=-10,
            tie_is_lowest=False,
            caller_locked=True,
            earliest=2,
            final_turns=2,
            caller_final_turn=True,
        ),
    )
    text = flat(rules)
    for expected in [
        "once every player has had two turns",
        "Every other player then takes two final turns; the caller takes one too.",
        "the caller's cards are locked",
        "caller who is lowest gets −10",
        "a caller who is not lowest gets +10",
        "a caller tied for the lowest does not count as lowest",
    ]:
        assert expected in text, expected
    zero = attrs.evolve(PRACTICE, call=CallRules(penalty=10, lowest_scores_zero=True))
    text = flat(zero)
    assert "A caller who is lowest scores 0" in text
    assert "a caller tied for the lowest counts as lowest" in text
    assert "Nobody may call Cambio." in flat(attrs.evolve(PRACTICE, call=CallRules(allowed=False)))


def test_scoring_and_stock_variations() -> None:
    rules = attrs.evolve(
        PRACTICE,
        scoring=ScoringRules(
            winner_scores_zero=True,
            tie_break=("caller", "fewer-cards", "share"),
            combination=CombinationRules(ranks=("Q", "Q", "K", "K"), holder=0, others=50),
        ),
        stock=StockRules(on_empty="recycle"),
    )
    text = flat(rules)
    assert "The round's winner scores 0" in text
    assert "a caller among the tied wins; then the hand with fewer cards wins" in text
    assert "exactly Q Q K K scores 0 for its holder and 50 for every other player" in text
    assert "shuffle the discard pile except its top card into a new stock" in text
    lower = attrs.evolve(PRACTICE, scoring=ScoringRules(tie_break=("not-caller", "lower-cards")))
    assert "the hand whose highest card is lower wins, then the next card" in flat(lower)


def test_match_and_team_variations() -> None:
    elim = attrs.evolve(
        PRACTICE,
        match=MatchRules(
            end="elimination",
            limit=150,
            tie="extra-round",
            exact_limit="once",
            first_dealer="high-card",
        ),
    )
    text = flat(elim)
    assert "Elimination: a player at or over 150 is out; the last player left wins." in text
    assert "one extra round among the tied players" in text
    assert "A total of exactly 150 drops to 75, once per match." in text
    assert "the high card of a draw; the deal passes to the left each round" in text

    over = attrs.evolve(
        PRACTICE, match=MatchRules(end="limit", at_limit=False, starter="worst-hand")
    )
    text = flat(over)
    assert "Rounds until someone is over 100; then the lowest total wins." in text
    assert "the worst hand of the previous round" in text

    fixed = attrs.evolve(PRACTICE, match=MatchRules(end="rounds", rounds=5))
    assert "Five rounds; the lowest total wins." in flat(fixed)

    teams = attrs.evolve(
        PRACTICE, teams=TeamRules(size=2), players=attrs.evolve(PRACTICE.players, default=4)
    )
    text = flat(teams)
    assert "Teams: fixed partnerships of 2" in text
    assert "Players: 2, 4 or 6 (4 by default)." in text
    assert "the partners' combined total" in text


# --------------------------------------------------------------------------- every axis


def _attrs_in(tp: Any) -> type | None:
    if isinstance(tp, type) and attrs.has(tp):
        return tp
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        for arg in typing.get_args(tp):
            if (found := _attrs_in(arg)) is not None:
                return found
    if typing.get_origin(tp) is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return _attrs_in(args[0])
    return None


def _leaf_fields(cls: type, prefix: str = "") -> Iterator[str]:
    """Every field of every attrs class reachable from ``cls`` (walked independently here)."""
    hints = typing.get_type_hints(cls)
    for field in attrs.fields(cls):
        tp = hints[field.name]
        inner = _attrs_in(tp)
        if inner is None:
            yield prefix + field.name
        else:
            many = typing.get_origin(tp) is tuple
            yield from _leaf_fields(inner, f"{prefix}{field.name}{'[]' if many else ''}.")


def test_every_field_of_every_nested_class_has_a_row() -> None:
    leaves = list(_leaf_fields(RuleSet))
    assert "powers.table[].steps[].scope" in leaves
    assert "scoring.combination.others" in leaves
    assert len(leaves) > 60
    for rules in (PRACTICE, penalty_like()):
        rows = describe_axes(rules)
        covered = {path for row in rows for path in row.fields}
        missing = [leaf for leaf in leaves if leaf not in covered]
        assert missing == []
        assert set(leaves) <= set(axis_fields())


def test_axis_rows_are_unique_and_worded() -> None:
    rows = describe_axes(penalty_like())
    assert all(isinstance(row, AxisRow) for row in rows)
    labels = [row.label for row in rows]
    assert len(labels) == len(set(labels))
    assert all(row.value and row.section for row in rows)
    by_label = {row.label: row for row in rows}
    for label in (
        "values",
        "deck",
        "taking the discard",
        "power timing",
        "sticking",
        "caller penalty",
        "ties",
        "the stock's end",
        "match",
        "teams",
        "power: black K",
    ):
        assert label in by_label, label
    assert by_label["sticking"].value == "at any moment, even in another player's turn"
    assert by_label["owner sees penalty cards"].value == "never"
    assert by_label["power: black K"].fields[0] == "powers.table"


def test_irrelevant_axes_say_why() -> None:
    rows = {row.label: row.value for row in describe_axes(PRACTICE)}
    assert rows["sticking"] == "never"
    assert rows["sticking others' cards"] == "— (no sticking)"
    assert rows["match tie"] == "— (single round)"
    assert rows["caller tied for lowest"] == "— (no caller penalty or bonus)"


# --------------------------------------------------------------------------- diff


def test_diff_of_a_table_with_itself_is_empty() -> None:
    assert diff_rows(PRACTICE, PRACTICE) == []
    other_words = attrs.evolve(PRACTICE, summary="another summary")
    assert diff_rows(PRACTICE, other_words) == []


def test_diff_names_the_axis_and_both_values() -> None:
    recycle = attrs.evolve(PRACTICE, stock=StockRules(on_empty="recycle"))
    assert diff_rows(PRACTICE, recycle) == [
        DiffRow(
            "the stock's end",
            "the current action finishes, then the round ends (no recycling)",
            "recycle the discard pile except its top card (nothing to recycle: the round ends)",
        )
    ]
    penalty = attrs.evolve(PRACTICE, call=CallRules(penalty=10))
    assert diff_rows(PRACTICE, penalty) == [
        DiffRow("caller penalty", "none", "+10 when the caller is not lowest"),
        DiffRow("caller tied for lowest", "— (no caller penalty or bonus)", "counts as lowest"),
    ]


def test_diff_lines_up_powers_card_by_card() -> None:
    every_king = Power(
        ranks=("K",), steps=(Step("peek", "any"), Step("swap", "peeked-any", optional=True))
    )
    snap_like = with_powers(PRACTICE, *PRACTICE.powers.table[:3], every_king)
    rows = {row.label: row for row in diff_rows(PRACTICE, snap_like)}
    assert set(rows) == {"power: red K", "power: black K"}
    assert rows["power: red K"].a == "no power"
    assert rows["power: red K"].b == rows["power: black K"].b
    assert rows["power: black K"].a.startswith("Look at any one card on the table, then you may")


def test_diff_practice_and_a_penalty_like_table() -> None:
    rows = {row.label: row for row in diff_rows(PRACTICE, penalty_like())}
    for label in (
        "values",
        "deck",
        "taking the discard",
        "power: black K",
        "sticking",
        "ties",
        "the stock's end",
        "match",
    ):
        assert label in rows, label
    assert rows["deck"] == DiffRow(
        "deck", "one deck of 52 cards, no jokers", "one deck of 52 cards + two jokers (54 cards)"
    )
    assert rows["taking the discard"].b == "not allowed: draw from the stock only"
    assert "name" not in rows and "summary" not in rows
    # axes on which both agree are not rows
    assert "power timing" not in rows and "caller penalty" not in rows


# --------------------------------------------------------------------------- the bundled profiles


def test_diff_practice_penalty_profiles() -> None:
    rows = {row.label: row for row in diff_rows(load_ruleset("practice"), load_ruleset("penalty"))}
    for label in ("values", "deck", "taking the discard", "sticking", "ties", "the stock's end"):
        assert label in rows, label
    assert any(label.startswith("power: ") and "K" in label for label in rows)
    assert "J/Q/K 10" in rows["values"].b
    assert rows["sticking"].a == "never"


def test_every_bundled_profile_renders() -> None:
    names = available_variants()
    assert "practice" in names and "penalty" in names
    texts = {}
    for name in names:
        rules = load_ruleset(name)
        text = quick_reference(rules)
        assert text.startswith(f"CAMBIO · {name.upper()}")
        assert value_summary(rules) in " ".join(text.split())
        texts[name] = _body(text)
        rows = describe_axes(rules)
        assert {path for row in rows for path in row.fields} >= set(_leaf_fields(RuleSet))
    # every profile is a different table, and its quick reference says so
    assert len(set(texts.values())) == len(texts)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("elimination", "K 0, red K −2"),
        ("snap", "J/Q/K 10, red K −1 · Joker 0"),
        ("penalty", "may never look at it"),
    ],
)
def test_profile_specifics(name: str, expected: str) -> None:
    if name not in available_variants():
        pytest.fail(f"the bundled profile {name!r} is missing")
    assert expected in flat(load_ruleset(name))


def test_a_field_without_words_still_gets_a_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """Forgetting to word a field (here: the turn cap) falls back to a plain row."""
    from cambio import render

    kept = tuple(axis for axis in render._AXES if axis.label != "turn cap")
    monkeypatch.setattr(render, "_AXES", kept)
    capped = attrs.evolve(PRACTICE, turn=TurnRules(max_turns=40))
    rows = {row.fields: row for row in describe_axes(capped)}
    assert rows[("turn.max_turns",)] == AxisRow("max turns", "turn", "40", ("turn.max_turns",))
    assert diff_rows(PRACTICE, capped) == [DiffRow("max turns", "0", "40")]


def test_module_doctests() -> None:
    import doctest

    from cambio import render

    failures, tried = doctest.testmod(render)
    assert tried > 10
    assert failures == 0
