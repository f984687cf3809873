"""Written positions: every reachable state round-trips; bad lines are refused with a column.

The property tests play random legal rounds on every profile (and on random tables), and
at a random moment rebuild the round from its position. From then on the original and
the rebuilt round are driven with the same actions (snaps declared together are resolved
together, so random arbitration is covered) and after every action they must agree: the
same position text, the same legal actions for every seat, the same views apart from the
history (a round from a position starts its history there: the rebuilt round's history
is the original's since the cut), the same events and, at the end, the same result.
"""

from __future__ import annotations

import random

import attrs
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import cambio
from cambio import ActionKind, PositionError, Round, SaveError
from cambio.position import describe
from cambio.rules import GridRules, OpeningRules, PlayerRules, Power, Step
from decks import seat_counts
from strategies import rulesets

PROFILES = cambio.available_variants()


def same_state(a: Round, b: Round, cut: list[int], *, full: bool) -> None:
    """``b`` (rebuilt at a cut) plays exactly like ``a`` from there on.

    ``full`` also compares every view and reads the position once more.
    """
    text = a.position()
    assert b.position() == text
    assert b.legal_action_ids() == a.legal_action_ids()
    assert b.to_act == a.to_act
    assert b.result == a.result
    assert len(b.events) == len(a.events) - cut[-1]
    if not full:
        return
    assert Round.from_position(a.rules, text).position() == text
    assert b.reactors == a.reactors
    assert list(b.events) == list(a.events)[cut[-1] :]
    for p in range(a.players):
        va, vb = a.view(p), b.view(p)
        assert list(vb.history) == list(va.history)[cut[p] :]
        assert attrs.evolve(vb, history=()) == attrs.evolve(va, history=())


def pick(r: Round, rng: random.Random) -> list[int]:
    """The next move: usually one legal action; sometimes several snaps declared together."""
    ids = r.legal_action_ids()
    decode = r.space.decode
    calls = [a for a in ids if decode(a).kind is ActionKind.CALL]
    if calls and (len(calls) == len(ids) or rng.random() < 0.03):
        return [rng.choice(calls)]
    quiet = [a for a in ids if a not in calls]
    snappers = r.reactors
    if len(snappers) > 1 and rng.random() < 0.2:
        declared = []
        for p in snappers:
            snaps = [a for a in r.legal_action_ids(p) if decode(a).kind is ActionKind.SNAP]
            declared.append(rng.choice(snaps))
        return declared
    return [rng.choice(quiet)]


def play_and_rebuild(
    rules: cambio.RuleSet, players: int, seed: int, cut_at: float, *, must_end: bool = True
) -> None:
    """Play a random round, rebuild it from its position at a random moment, compare."""
    rng = random.Random(seed)
    r = Round(rules, players, seed=seed)
    bound = 40 * len(r.deck) + 200 if must_end else 300
    rebuilt: Round | None = None
    cut: list[int] = []
    steps = 0
    while True:
        if rebuilt is None and (r.is_over or rng.random() < cut_at):
            rebuilt = Round.from_position(rules, r.position())
            assert rebuilt.events == () and rebuilt.actions == ()
            cut = [len(r.view(p).history) for p in range(players)] + [len(r.events)]
            same_state(r, rebuilt, cut, full=True)
        elif rebuilt is not None:
            same_state(r, rebuilt, cut, full=r.is_over or steps % 5 == 0)
        if r.is_over:
            break
        move = pick(r, rng)
        if len(move) > 1:
            r.resolve_snaps(move)
            if rebuilt is not None:
                rebuilt.resolve_snaps(move)
        else:
            r.apply(move[0])
            if rebuilt is not None:
                rebuilt.apply(move[0])
        steps += 1
        if steps >= bound:
            assert not must_end, "the round did not end"
            if rebuilt is None:
                rebuilt = Round.from_position(rules, r.position())
                cut = [len(r.view(p).history) for p in range(players)] + [len(r.events)]
            same_state(r, rebuilt, cut, full=True)
            break
    assert rebuilt is not None and rebuilt.result == r.result
    # a round built from a position saves and loads (its replay starts at the position)
    assert Round.from_json(rebuilt.to_json(), verify=True) == rebuilt


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(PROFILES),
    seed=st.integers(0, 2**32),
    extra=st.integers(0, 8),
    cut_at=st.sampled_from([0.0, 0.02, 0.1, 0.3]),
)
def test_every_profile_round_trips_through_positions(
    name: str, seed: int, extra: int, cut_at: float
) -> None:
    rules = cambio.load_ruleset(name)
    counts = seat_counts(rules)
    play_and_rebuild(rules, counts[extra % len(counts)], seed, cut_at)


@pytest.mark.parametrize("name", PROFILES)
def test_each_profile_round_trips_from_its_opening_and_midway(name: str) -> None:
    rules = cambio.load_ruleset(name)
    for seed in range(2):
        play_and_rebuild(rules, rules.players.default, seed, 0.05 * seed)


def writable(rules: cambio.RuleSet) -> bool:
    try:
        Round(rules, seed=0).position()
    except ValueError:
        return False
    return True


@settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rulesets(), seed=st.integers(0, 2**16), cut_at=st.sampled_from([0.0, 0.05, 0.3]))
def test_random_tables_round_trip_through_positions(
    rules: cambio.RuleSet, seed: int, cut_at: float
) -> None:
    assume(writable(rules))
    play_and_rebuild(rules, rules.players.default, seed, cut_at, must_end=False)


# --------------------------------------------------------------------------- examples
STANDARD = cambio.RuleSet()
OPENING = (
    "AS,2S,3S@0,4S@0/5S,6S,7S@1,8S@1 - 9S 10S,JS,QS,KS,AH,2H,3H,4H,5H,6H,7H,8H,9H,10H,JH,"
    "QH,KH,AD,2D,3D,4D,5D,6D,7D,8D,9D,10D,JD,QD,KD,AC,2C,3C,4C,5C,6C,7C,8C,9C,10C,JC,QC,KC"
    " turn 0 0,0"
)


def test_a_prepared_deal_is_written_as_it_was_dealt() -> None:
    deck = [c.split("@")[0] for c in OPENING.replace("/", ",").split(" ")[0].split(",")]
    deck += ["9S", *OPENING.split(" ")[3].split(",")]
    r = Round(STANDARD, 2, deck=deck, seed=0)
    assert r.position() == OPENING
    rebuilt = Round.from_position(STANDARD, OPENING)
    assert rebuilt.hand(1) == r.hand(1)
    assert rebuilt.discard_pile == r.discard_pile
    assert rebuilt.view(0).grids == r.view(0).grids
    assert rebuilt.legal_actions() == r.legal_actions()


def test_a_drawn_card_is_known_to_its_drawer_only() -> None:
    r = Round.from_position(STANDARD, OPENING)
    r.apply(cambio.Action.draw(0))
    text = r.position()
    assert " s:10S@0 " in text and " drawn 0 " in text
    again = Round.from_position(STANDARD, text)
    assert again.view(0).holding == cambio.Card("10", "S")
    assert again.view(1).holding is None


def test_hidden_cards_vary_without_changing_a_view() -> None:
    """Two positions that differ only in cards seat 1 never saw give seat 1 the same view."""
    a = Round.from_position(STANDARD, OPENING)
    b = Round.from_position(STANDARD, OPENING.replace("AS,2S", "2S,AS"))
    assert a.hand(0) != b.hand(0)
    assert a.view(1) == b.view(1)
    assert a.view(0) != b.view(0) or a.view(0).grids[0][:2] == (None, None)


# --------------------------------------------------------------------------- refusals
@pytest.mark.parametrize(
    ("text", "column", "words"),
    [
        (OPENING.replace("9S", "AS"), 35, "AS is written a second time"),
        (OPENING.replace("9S", "9S,Joker"), 38, "expected a card of this table's deck"),
        (OPENING.replace("turn 0", "turn 2"), None, "whose turn it is from 0 to 1, found 2"),
        (OPENING.replace("turn 0", "flop 0"), None, "expected a phase"),
        (OPENING.replace(" 0,0", " 0"), None, "expected 2 turn counts"),
        (OPENING.replace("3S@0", "3S@7"), 10, "expected a seat from 0 to 1"),
        (OPENING.replace("AS,2S,", "AS,"), 1, "expected 4 grid positions"),
        (OPENING.replace("turn 0 0,0", "turn 0"), None, "expected the turn counts field"),
        (OPENING + " seed=x", None, "expected a seed (a whole number)"),
        (OPENING + " ply=3 seed=1", None, "expected the options in the order"),
        (OPENING + " colour=red", None, "expected an option KEY=VALUE"),
        (OPENING.replace(" - 9S", " s:9S 9S"), None, "9S is written a second time"),
        (OPENING.replace(" - 9S", " s:9S -"), None, "expected no held card"),
        (OPENING.replace("turn 0", "drawn 0"), None, "expected the held card"),
        (OPENING.replace("turn 0", "power:1 0"), None, "marked !"),
        (OPENING.replace("turn 0", "opening 0"), None, "no opening choice"),
        (OPENING.replace("  ", " ").replace(" turn", "  turn"), None, "expected a field here"),
        # the newer pieces of state
        (OPENING.replace("turn 0", "closing 0"), None, "expected closing:REASON"),
        (OPENING.replace("turn 0", "closing:bored 0"), None, "expected closing:REASON"),
        (OPENING + " window=1:0:lost", None, "expected window=DISCARDER[:TRIED[:won]]"),
        (OPENING + " owed=4", None, "expected a seat that owes a call from 0 to 1, found 4"),
        (OPENING + " closed=bored", None, "expected the reason the round waited"),
        (OPENING.replace(" 9S ", " 9S# "), 35, "only a card in a seat's positions"),
        # invariants of a round's state, as every load of a save checks them
        (OPENING.replace("10S,JS", "10S@1,JS"), 38, "card 10S lies face down in the stock"),
        (OPENING.replace("3S@0", "3S@0#"), 7, "card 3S is marked a penalty card"),
        (OPENING.replace("turn 0", "closing:call 0"), 171, "no closing phase"),
        (OPENING + " closed=call", None, "expected '' before the round closes"),
    ],
)
def test_bad_positions_are_refused_with_a_column(text: str, column: int | None, words: str) -> None:
    with pytest.raises(PositionError) as info:
        Round.from_position(STANDARD, text)
    error = info.value
    assert isinstance(error, SaveError)
    assert words in error.message
    assert str(error) == f"column {error.column}: {error.message}"
    assert 1 <= error.column <= len(text) + 1
    if column is not None:
        assert error.column == column


def test_fifty_three_cards_in_a_fifty_two_card_game() -> None:
    extra = OPENING.replace(",KC turn", ",KC,QC turn")
    with pytest.raises(PositionError, match="QC is written a second time; the deck holds 1"):
        Round.from_position(STANDARD, extra)
    short = OPENING.replace(",KC turn", " turn")
    with pytest.raises(PositionError, match=r"holds 51 cards; .* deck has 52 .*missing: KC"):
        Round.from_position(STANDARD, short)
    # a two-deck table holds each card twice: a third copy is one too many
    double = attrs.evolve(STANDARD, deck=attrs.evolve(STANDARD.deck, decks=2))
    text = Round(double, 2, seed=5).position()
    first = text.split(" ")[0].split("/")[0].split(",")[0].split("@")[0]
    with pytest.raises(PositionError, match=f"{first} is written a third time; the deck holds 2"):
        Round.from_position(double, text.replace(" turn", f",{first} turn"))


def test_a_position_where_nobody_can_move_is_refused() -> None:
    # seat 0's turn on a table that neither draws (empty stock) nor takes nor calls
    rules = attrs.evolve(
        STANDARD,
        turn=attrs.evolve(STANDARD.turn, take_discard=False),
        call=attrs.evolve(STANDARD.call, allowed=False),
    )
    stock = OPENING.split(" ")[3]
    text = OPENING.replace(" 9S " + stock, " 9S," + stock + " -")
    with pytest.raises(PositionError, match="P0 is to decide but has no legal action"):
        Round.from_position(rules, text)


def test_show_draws_every_card_and_who_knows_it() -> None:
    picture = describe(Round.from_position(STANDARD, OPENING))
    assert "[3] 3S@0" in picture and "[1] AS@none" in picture
    assert "Discard: 9S" in picture and "next 10S" in picture
    assert "Legal: P0 draw | P0 take | P0 call" in picture


# --------------------------------------------------------------------------- new axes
def test_the_state_of_every_new_snapping_axis_round_trips() -> None:
    """Tables that toggle every newer setting: each state they pass through round-trips,
    and the positions met write the closing phase, a won window, penalty cards in the
    grid (#) and the closing reason kept after the end (owed calls: see below)."""
    from test_club_rules import EVERY_NEW

    marks = {"closing:": 0, ":won": 0, "#": 0, " closed=": 0}
    for rules in EVERY_NEW.values():
        for seed in range(6):
            players = 2 + seed % 3
            rng = random.Random(seed)
            r = Round(rules, players, seed=seed)
            for _ in range(3000):
                text = r.position()
                for mark in marks:
                    marks[mark] += mark in text
                again = Round.from_position(rules, text)
                assert again.position() == text
                assert again.legal_action_ids() == r.legal_action_ids()
                assert again.reactors == r.reactors
                assert again.result == r.result
                for p in range(players):
                    assert attrs.evolve(again.view(p), history=()) == attrs.evolve(
                        r.view(p), history=()
                    )
                if r.is_over:
                    break
                move = pick(r, rng)
                if len(move) > 1:
                    r.resolve_snaps(move)
                else:
                    r.apply(move[0])
        for seed in range(3):
            play_and_rebuild(rules, 3, seed, 0.02)
    assert all(marks.values()), marks


def test_a_round_from_a_position_saves_and_loads() -> None:
    r = Round.from_position(STANDARD, OPENING)
    r.apply(cambio.Action.draw(0))
    r.apply(cambio.Action.discard(0))
    saved = r.to_dict()
    assert saved["position"] == OPENING and len(saved["actions"]) == 2
    again = Round.from_dict(saved, verify=True)
    assert again == r and again.position() == r.position()
    assert "position" not in Round(STANDARD, 2, seed=1).to_dict()  # a dealt round as before
    broken = {**saved, "position": OPENING.replace("turn 0", "turn 9")}
    with pytest.raises(SaveError, match=r"^\$\.position: column \d+: expected the seat"):
        Round.from_dict(broken)
    other = {**saved, "position": OPENING.replace("AS,2S", "2S,AS")}
    with pytest.raises(SaveError, match="does not hold the saved players, seed or deck"):
        Round.from_dict(other)


# --------------------------------------------------------------------------- fuzzing
_SAMPLES = [
    OPENING,
    "5S,6S,7S@0,8S@0/9H,9D,-,2D@1/4C,4S,4H@2,4D@2+QH - 2H,2S,3C AH,... give:2:1.3:turn 1 1,0,0",
    "5S@0,6S,7S@0,8S@0/9H,9D,2H@1,2D@1 s:KS@0! 3C 4D,... power:2 0 0,0 peeked=0.1",
    "AS,2S,3S@0,4S@0/6C,2C,3C@1,4C@1 - 6D,5D,9D ... closing:call 1 1,1 call=0:- "
    "owed=1 window=1:0:won closed=call",
]


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(
    sample=st.sampled_from(_SAMPLES),
    edits=st.lists(
        st.tuples(
            st.integers(0, 400), st.integers(0, 3), st.sampled_from(" ,/@!#+:=-.*0129SAKJoker")
        ),
        min_size=1,
        max_size=4,
    ),
    profile=st.sampled_from(["penalty", "practice", "snap", "competitive"]),
)
def test_any_edited_line_reads_or_is_refused_with_a_column(
    sample: str, edits: list[tuple[int, int, str]], profile: str
) -> None:
    text = sample
    for at, width, ch in edits:
        at %= len(text) + 1
        text = text[:at] + ch + text[at + width :]
    try:
        r = Round.from_position(profile, text)
    except PositionError as error:
        assert 1 <= error.column <= len(text) + 1
        assert error.message and "\n" not in error.message
        return
    assert Round.from_position(profile, r.position()).position() == r.position()


def test_a_give_owed_by_a_snap_of_the_last_discard() -> None:
    """A correct snap of another's card while the round closes: the snapper gives a card
    back, then the round ends. The state in between is a valid one: it is written,
    read back, saved and loaded, and plays on to the same end."""
    base = cambio.load_ruleset("practice")
    snap = attrs.evolve(base.snap, when="any-time", targets="any", last_discard=True)
    rules = attrs.evolve(base, snap=snap)
    r = Round.from_position(
        rules,
        "AS,2S,3S@0,4S@0/6C,2C,3C@1,4C@1/5S,AH,2H@2,3H@2 - 6D,5D,9D 4D,... "
        "closing:call 2 1,1,1 call=0:- window=2",
    )
    r.apply(cambio.Action.snap(0, (1, 1)))  # P0 snaps P1's 6C on the last discard
    text = r.position()
    assert " give:0:1.1:closing:call 2 " in text and "closed=" not in text
    again = Round.from_position(rules, text)
    assert again.position() == text
    loaded = Round.from_json(r.to_json(), verify=True)
    assert loaded == r
    for rnd in (r, again, loaded):
        rnd.apply(cambio.Action.give(0, 2))
        assert rnd.is_over and rnd.result is not None and rnd.result.reason == "call"
        assert " closed=call" in rnd.position()
    assert again.result == r.result == loaded.result


@pytest.mark.parametrize("name", ["a b", "x,y", "p/q", "K@", "7#", "-", "...", "\n", "a:b"])
def test_a_custom_rank_name_that_positions_cannot_write_is_refused(name: str) -> None:
    from cambio.errors import RuleSetError
    from cambio.loading import ruleset_from_dict

    with pytest.raises(RuleSetError, match="a rank name is printed on cards"):
        ruleset_from_dict(
            {"deck": {"custom": {name: 4, "ok": 8}}, "values": {"rank": {name: 1, "ok": 2}}}
        )


@pytest.mark.parametrize(
    "steps",
    [
        (Step(action="swap", scope="own-other"),),
        # a peek before the round ended left a place peeked (a later hypothesis run)
        (
            Step(action="peek", scope="own"),
            Step(action="swap", scope="own-other"),
            Step(action="swap", scope="own-other"),
        ),
    ],
    ids=["swap", "peek-swap-swap"],
)
def test_a_round_that_ends_during_a_power_step_is_written_and_read(steps: tuple[Step, ...]) -> None:
    """A snap that empties the grid in a power step ends the round inside the power.

    Hypothesis found these on a one-seat table: the over position kept the power's
    ``!`` mark (and a peeked place) and the reader refused it. Once the round is over
    no power is in progress, so the position has neither. Every card is worth 0, so
    every own snap matches.
    """
    d = cambio.RuleSet()
    rules = attrs.evolve(
        d,
        players=PlayerRules(min=1, max=1, default=1),
        values=attrs.evolve(d.values, rank=dict.fromkeys(d.values.rank, 0), red={}),
        grid=GridRules(rows=(1,), extra=0),
        opening=OpeningRules(positions=(), count=0, re_peek=False),
        turn=attrs.evolve(d.turn, take_discard=False),
        powers=attrs.evolve(
            d.powers,
            timing="draw",
            optional=False,
            table=(Power(ranks=d.deck.ranks, steps=steps),),
        ),
        snap=attrs.evolve(
            d.snap,
            when="own-turn",
            targets="own",
            match="value",
            empty_grid="win",
            penalty_cards=0,
            penalty_peekable=False,
        ),
        call=attrs.evolve(d.call, allowed=False),
    )
    assert cambio.check_rules(rules) == []
    ended_in_power = 0
    for seed in range(30):
        rng = random.Random(seed)
        r = Round(rules, 1, seed=seed)
        in_power = False
        while not r.is_over:
            in_power = r.phase is cambio.Phase.POWER
            r.apply(rng.choice(r.legal_action_ids()))
        text = r.position()
        if in_power:
            ended_in_power += 1
            assert "!" not in text and "peeked=" not in text
            rebuilt = Round.from_position(rules, text)
            assert rebuilt.position() == text
            assert rebuilt.is_over and rebuilt.view(0).grids == r.view(0).grids
        play_and_rebuild(rules, 1, seed, 0.0, must_end=True)
    assert ended_in_power > 0


def test_penalty_cards_moved_within_a_hand_round_trip() -> None:
    """Seed 2 of the hypothesis runs: on a first-empty table a swap within one hand
    carried a recorded penalty card past the grid, a state no position could write.

    P0 holds a penalty card in grid position 3 (``#``) and one past the grid (4); its
    seen swap of any two cards exchanges them. Both stay penalty cards: the one carried
    into the grid is recorded, the one past the grid is one by where it lies.
    """
    base = cambio.load_ruleset("penalty")
    rules = attrs.evolve(
        base,
        grid=GridRules(rows=(3,), extra=2),
        opening=OpeningRules(positions=(1, 2), count=2, re_peek=False),
        powers=attrs.evolve(
            base.powers,
            table=(Power(ranks=("7",), steps=(Step(action="swap", scope="any-two", seen=True),)),),
        ),
        snap=attrs.evolve(base.snap, penalty_position="first-empty", penalty_seen_by="all"),
    )
    assert cambio.check_rules(rules) == []
    r = Round.from_position(
        rules,
        "4H@0,8H@0,3D@0#+9S/10C@1,KD@1,7D@1 - 7S!,2D,Joker,5C,3C,2C,8C,5H,6D,9H,AC,8S "
        "AH,5D,2H,AD,6H,JD,KH,QH,QD,7C,QS,6S,JC,3H,7H,10S,KC,JH,4S,4D,9C,5S,QC,AS,KS,2S,"
        "Joker,JS,8D,10D,6C,3S,9D,10H,4C power:1 0 5,5 window=0 seed=3 ply=22",
    )
    assert r.penalty_cards == ((0, 3),)
    r.apply(cambio.Action(ActionKind.SWAP, 0, ((0, 3), (0, 4))))
    assert r.hand(0)[2:4] == (cambio.Card("9", "S"), cambio.Card("3", "D"))
    assert r.penalty_cards == ((0, 3),)  # the 9 of spades, carried into the grid
    text = r.position()
    assert text.startswith("4H@0,8H@0,9S@0#+3D@0/")
    assert Round.from_position(rules, text).position() == text
