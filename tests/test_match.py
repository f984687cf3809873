"""Matches: rounds that add up, under every table that plays them.

Scripted matches use prepared decks (one per round, round seats) and scripted actions;
the random matches check that every table's matches finish and that the totals add up.
The number of random matches per table is ``CAMBIO_MATCHES`` (default 200, or 100 when
``CI=true``); ``CAMBIO_MATCHES=1000`` runs the full check.
"""

from __future__ import annotations

import doctest
import json
import os
import random

import attrs
import pytest

import cambio
import cambio.match
from cambio import Action, ActionKind, IllegalActionError, Match, Round, RuleSet
from cambio.match import MatchEventKind
from cambio.rules import MatchRules, ScoringRules
from decks import deal, seat_counts


def table(name: str, **match: object) -> RuleSet:
    """A bundled profile with some match rules changed."""
    rules = cambio.load_ruleset(name)
    return attrs.evolve(rules, match=attrs.evolve(rules.match, **match))


def play_round(m: Match, caller: int) -> None:
    """Finish the current round: ``caller`` calls at its first turn, everyone else draws
    and discards (the prepared stock holds no power cards, so no power starts)."""
    number = m.round_number
    while not m.is_over and m.round_number == number:
        p = m.to_act
        assert p is not None
        if p == caller and m.can_apply(Action.call(p)):
            m.apply(Action.call(p))
            continue
        m.apply(Action.draw(p))
        m.apply(Action.discard(p))
        if not m.is_over and m.round_number == number:
            assert m.round.phase is not cambio.Phase.POWER, "the script drew a power card"


def quick_round(m: Match) -> None:
    """Finish the current round whatever the deal: call when allowed, else draw and
    discard, skipping any power."""
    number = m.round_number
    while not m.is_over and m.round_number == number:
        p = m.to_act
        assert p is not None
        kinds = {a.kind: a for a in m.legal_actions(p)}
        for kind in (ActionKind.CALL, ActionKind.DRAW, ActionKind.DISCARD, ActionKind.SKIP):
            if kind in kinds:
                m.apply(kinds[kind])
                break
        else:
            m.apply(m.legal_actions(p)[0])


# --------------------------------------------------------------------------- elimination
# The elimination table, dealt from seat 0 (its own first dealer is drawn by high card).
# Values: A 1 .. 10, J 11, Q 12, black K 0, red K -2; caller +10 unless lowest (a tied
# caller counts as lowest and wins the tie); the round winner scores 0.
ELIMINATION_DECKS = [
    # round 1: dealer 0, P1 starts and calls with 44 (+10); P2 wins with 10
    deal(
        ["QS", "QH", "QD", "QC"],
        ["JS", "JH", "JD", "JC"],
        ["AS", "2S", "3S", "4S"],
        discard="5S",
        stock=["5H", "5D"],
    ),
    # round 2: dealer 1, P2 starts, calls and wins with 10
    deal(
        ["JS", "JH", "JD", "JC"],
        ["QS", "QH", "QD", "9S"],
        ["AS", "2S", "3S", "4S"],
        discard="5S",
        stock=["5H", "5D"],
    ),
    # round 3: dealer 2, P0 starts; P2 calls on 0 and wins the tie with P1 on 0
    deal(
        ["2S", "2H", "2D", "2C"],
        ["AS", "AH", "KH", "KS"],
        ["KD", "KC", "AD", "AC"],
        discard="5S",
        stock=["5H", "5D", "6S", "6H"],
    ),
]


def elimination_match(fourth: list[str] | None = None, **match: object) -> Match:
    rules = table("elimination", first_dealer="first-seat", **match)
    m = Match(rules, players=3, seed=11, decks=[*ELIMINATION_DECKS, fourth])
    assert (m.dealer, m.starter) == (0, 1)
    play_round(m, caller=1)
    assert m.records[0].scores == (48, 54, 0)
    play_round(m, caller=2)
    assert m.records[1].scores == (44, 45, 0)
    assert m.totals == (92, 99, 0)
    assert (m.dealer, m.starter) == (2, 0)
    play_round(m, caller=2)
    assert m.records[2].scores == (8, 0, 0)
    return m


# A fourth round for the elimination script when P0 is out: P1 (round seat 0) loses
# with 36, P2 (round seat 1) calls and wins.
FOURTH_OF_TWO = deal(["9S", "9H", "9D", "9C"], ["AS", "2S", "3S", "4S"], discard="5S", stock=["5H"])
# A fourth round when everyone is still in (dealer 0): P0 calls with 40 and pays 10,
# P1 wins with 10, P2 scores 20.
FOURTH_OF_THREE = deal(
    ["10S", "10H", "10D", "10C"],
    ["AS", "2S", "3S", "4S"],
    ["5S", "5H", "5D", "5C"],
    discard="6S",
    stock=["6H", "6D", "6C", "AH"],
)


def test_elimination_exactly_the_limit_is_out_and_99_stays() -> None:
    m = elimination_match(FOURTH_OF_TWO)
    rec = m.records[2]
    assert rec.totals == (100, 99, 0)
    assert rec.out == (0,)
    assert m.eliminated == (0,)
    assert not m.is_over
    # Round 4 is played by P1 and P2 only: the deal passes from P2 to P1, skipping P0.
    assert m.round_number == 4
    assert m.round_seats == (1, 2)
    assert m.round.players == 2
    assert (m.dealer, m.starter) == (1, 2)
    assert (m.round.dealer, m.round.starter) == (0, 1)  # in round seats
    assert m.round_seat(0) is None and m.round_seat(2) == 1
    assert m.to_act == 2
    # P0 sits out: no actions, no round view, actions for P0 are refused.
    assert m.legal_actions(0) == []
    assert m.view(0).round is None
    assert m.view(0).totals == (100, 99, 0)
    with pytest.raises(IllegalActionError, match="sits out"):
        m.apply(Action.draw(0))
    # The deck's first grid went to round seat 0, which is match seat 1.
    assert m.round.hand(0)[0] == cambio.Card("9", "S")
    play_round(m, caller=2)
    assert m.is_over
    res = m.result
    assert res is not None
    assert res.winners == (2,)
    assert res.reason == "last-standing"
    assert res.eliminated == (0, 1)
    assert res.totals == (100, 135, 0)
    assert res.round_count == 4
    assert [r.players for r in res.rounds] == [(0, 1, 2)] * 3 + [(1, 2)]
    assert res.rounds[3].scores == (None, 36, 0)
    assert res.rounds[3].winners == (2,)
    assert [r.reason for r in res.rounds] == ["call"] * 4
    assert m.to_act is None
    with pytest.raises(IllegalActionError, match="match is over"):
        m.apply(Action.draw(2))


def test_elimination_strictly_over_keeps_a_player_on_exactly_the_limit() -> None:
    m = elimination_match(at_limit=False)
    assert m.totals == (100, 99, 0)
    assert m.eliminated == ()
    assert m.round_seats == (0, 1, 2)
    assert (m.dealer, m.starter) == (0, 1)


def test_elimination_all_remaining_cross_in_one_round_lowest_wins() -> None:
    rules = table("elimination", first_dealer="first-seat", limit=60)
    rules = attrs.evolve(rules, scoring=attrs.evolve(rules.scoring, winner_scores_zero=False))
    decks = [
        deal(["QS", "QH", "QD", "QC"], ["JS", "JH", "JD", "JC"], discard="5S", stock=["5H"]),
        deal(["5S", "5H", "5D", "5C"], ["10S", "10H", "6D", "4C"], discard="2S", stock=["2H"]),
    ]
    m = Match(rules, players=2, seed=3, decks=decks)
    play_round(m, caller=1)
    assert m.totals == (48, 44)
    play_round(m, caller=0)
    assert m.is_over
    res = m.result
    assert res is not None
    assert res.totals == (68, 74)
    assert res.winners == (0,)
    assert res.reason == "all-out"
    assert res.rounds[-1].out == (0, 1)


# --------------------------------------------------------------------------- exact limit
def test_exact_limit_once_halves_the_first_time_only() -> None:
    m = elimination_match(FOURTH_OF_THREE, exact_limit="once")
    rec = m.records[2]
    assert rec.adjustments == (-50, 0, 0)
    assert m.totals == (50, 99, 0)
    assert m.eliminated == ()
    assert any(e.kind == MatchEventKind.HALVED and e.player == 0 for e in m.events)
    # Round 4: P0 calls with 40 and pays 10: exactly 100 again, no second halving.
    assert (m.dealer, m.starter) == (0, 1)
    play_round(m, caller=0)
    assert m.records[3].scores == (50, 0, 20)
    assert m.records[3].adjustments == (0, 0, 0)
    assert m.eliminated == (0,)
    assert m.totals == (100, 99, 20)
    assert m.round_seats == (1, 2)


def test_exact_limit_always_halves_every_time() -> None:
    m = elimination_match(FOURTH_OF_THREE, exact_limit="always")
    assert m.totals == (50, 99, 0)
    play_round(m, caller=0)
    assert m.records[3].adjustments == (-50, 0, 0)
    assert m.totals == (50, 99, 20)
    assert m.eliminated == ()
    assert m.round_seats == (0, 1, 2)
    for s in range(3):
        assert m.totals[s] == sum((r.scores[s] or 0) + r.adjustments[s] for r in m.records)


# --------------------------------------------------------------------------- limit
# The penalty table: J, Q and black K 10, raw totals, no caller penalty, "passes 100".
PENALTY_DECKS = [
    deal(
        ["JS", "JH", "JD", "JC"],
        ["AS", "2S", "3S", "4S"],
        ["AH", "2H", "3H", "4H"],
        discard="5S",
        stock=["5H", "5D"],
    ),
    deal(
        ["QS", "QH", "QD", "QC"],
        ["AS", "2S", "3S", "4S"],
        ["AH", "2H", "3H", "4H"],
        discard="6S",
        stock=["6H", "6D"],
    ),
    deal(
        ["5S", "5H", "5D", "5C"],
        ["AS", "2S", "3S", "4S"],
        ["AH", "2H", "3H", "4H"],
        discard="6S",
        stock=["6H", "6D"],
    ),
    deal(
        ["AH", "2H", "3H", "4H"],
        ["AS", "2S", "3S", "4S"],
        ["5S", "5H", "5D", "5C"],
        discard="6S",
        stock=["6H", "6D"],
    ),
]


def penalty_match(rules: RuleSet) -> Match:
    # the scripted decks were written for seat 0 dealing the first round
    rules = attrs.evolve(rules, match=attrs.evolve(rules.match, first_dealer="first-seat"))
    m = Match(rules, players=3, seed=5, decks=PENALTY_DECKS)
    assert (m.dealer, m.starter) == (0, 1)
    play_round(m, caller=1)
    play_round(m, caller=2)
    assert m.totals == (80, 20, 20)
    play_round(m, caller=0)
    return m


def test_limit_passing_100_is_not_reaching_it() -> None:
    rules = cambio.load_ruleset("penalty")
    assert (rules.match.end, rules.match.limit, rules.match.at_limit) == ("limit", 100, False)
    m = penalty_match(rules)
    assert m.totals == (100, 30, 30)
    assert not m.is_over  # exactly 100 does not pass 100
    assert m.round_number == 4 and m.round_seats == (0, 1, 2)
    play_round(m, caller=1)
    res = m.result
    assert res is not None
    assert res.totals == (110, 40, 50)
    assert res.winners == (1,)
    assert res.reason == "limit"
    assert not res.shared


def test_limit_reaching_100_ends_when_at_limit_and_ties_share() -> None:
    m = penalty_match(table("penalty", at_limit=True))
    res = m.result
    assert res is not None
    assert res.totals == (100, 30, 30)
    assert res.winners == (1, 2)
    assert res.shared
    assert res.round_count == 3


# --------------------------------------------------------------------------- ties
TIE_DECK = deal(
    ["AS", "2S", "3S", "4S"],  # P0: 10
    ["5S", "5H", "5D", "5C"],  # P1: calls on 20, pays 10
    ["AH", "2H", "3H", "4H"],  # P2: 10, shares the round with P0
    discard="6S",
    stock=["6H", "6D"],
)


def test_tie_is_settled_by_an_extra_round_among_the_tied_only() -> None:
    rules = table("elimination", end="rounds", rounds=1, first_dealer="first-seat")
    assert rules.match.tie == "extra-round"
    extra = deal(
        ["9S", "9H", "9D", "9C"],  # round seat 0 = P0: 36
        ["KH", "KD", "AS", "AH"],  # round seat 1 = P2: -2
        discard="2C",
        stock=["JS", "3C"],
    )
    m = Match(rules, players=3, seed=8, decks=[TIE_DECK, extra])
    play_round(m, caller=1)
    assert m.records[0].scores == (0, 30, 0)
    assert m.records[0].winners == (0, 2)
    assert not m.is_over
    assert m.extra_round
    assert any(e.kind == MatchEventKind.TIE for e in m.events)
    assert m.round_seats == (0, 2)
    assert m.round.players == 2
    assert (m.dealer, m.starter) == (2, 0)
    assert m.to_act == 0
    # P1 sits out; the starter alone may stick on the dealt discard in its first turn
    assert m.legal_actions(1) == [] and m.reactors == (0,)

    # P0 draws the jack and blind-swaps its position 1 with P2's position 4: the
    # action is written in match seats and reaches the round in round seats.
    m.apply(Action.draw(0))
    m.apply(Action.discard(0))
    swap = Action.swap(0, (0, 1), (2, 4))
    assert swap in m.legal_actions(0)
    assert Action.swap(0, (0, 1), (1, 4)) not in m.legal_actions(0)
    assert not m.can_apply(Action.swap(0, (0, 1), (1, 4)))  # P1 holds no cards now
    ids = m.legal_action_ids(0)
    assert ids == sorted(m.space.encode(a) for a in m.legal_actions(0))
    assert all(m.can_apply(i) for i in ids)
    assert sum(m.legal_action_mask(0)) == len(ids)
    events = m.apply(swap)
    assert [e.positions for e in events if e.kind == "swap"] == [((0, 1), (2, 4))]
    assert m.round.actions[-1] == Action.swap(0, (0, 1), (1, 4))  # round seats inside
    assert m.actions[-1] == swap

    view = m.view(2).round
    assert view is not None
    assert view.player == 2 and view.players == 3
    assert view.grids[1] == () and view.present[1] == ()
    assert len(view.grids[0]) == len(view.grids[2]) > 0
    assert [e.positions for e in view.history if e.kind == "swap"] == [((0, 1), (2, 4))]
    assert view.to_act == 2
    outside = m.view(1)
    assert outside.round is None and outside.round_seats == (0, 2) and outside.extra_round

    play_round(m, caller=2)
    res = m.result
    assert res is not None
    assert res.winners == (2,)
    assert res.reason == "rounds"
    assert res.extra_rounds == 1
    assert res.totals == (28, 30, 0)
    assert res.rounds[1].extra and res.rounds[1].players == (0, 2)
    assert res.rounds[1].scores == (28, None, 0)
    final = m.view(2).round
    assert final is not None and final.result is not None
    assert final.result.winners == (2,)
    assert final.result.totals == (28, 0, 6)
    assert final.result.hands[1] == ()


def sharing_tie_rules() -> RuleSet:
    rules = table("elimination", end="rounds", rounds=1, first_dealer="first-seat")
    return attrs.evolve(rules, scoring=ScoringRules(winner_scores_zero=True, tie_break=("share",)))


TIED_AGAIN = deal(["AS", "2S", "3S", "4S"], ["AH", "2H", "3H", "4H"], discard="6S", stock=["6H"])


def test_an_extra_round_is_repeated_while_still_tied() -> None:
    p2_wins = deal(["9S", "9H", "9D", "9C"], ["AS", "2S", "3S", "4S"], discard="6S", stock=["6H"])
    m = Match(sharing_tie_rules(), players=3, seed=2, decks=[TIE_DECK, TIED_AGAIN, p2_wins])
    play_round(m, caller=1)
    assert m.round_seats == (0, 2) and m.starter == 0
    play_round(m, caller=0)  # P0 calls on 10, P2 ties on 10: the round is shared
    assert m.records[1].winners == (0, 2)
    assert not m.is_over
    assert m.extra_round and m.round_seats == (0, 2)
    assert (m.dealer, m.starter) == (0, 2)
    play_round(m, caller=2)
    res = m.result
    assert res is not None
    assert res.winners == (2,)
    assert res.extra_rounds == 2
    assert res.round_count == 3


def test_extra_rounds_stop_at_the_cap_and_the_tied_share(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cambio.match, "MAX_EXTRA_ROUNDS", 1)
    m = Match(sharing_tie_rules(), players=3, seed=2, decks=[TIE_DECK, TIED_AGAIN])
    play_round(m, caller=1)
    play_round(m, caller=0)
    res = m.result
    assert res is not None
    assert res.winners == (0, 2)
    assert res.shared
    assert res.extra_rounds == 1


def test_share_ends_a_tied_match_at_once() -> None:
    rules = attrs.evolve(
        sharing_tie_rules(), match=MatchRules(end="rounds", rounds=1, first_dealer="first-seat")
    )
    m = Match(rules, players=3, seed=2, decks=[TIE_DECK])
    play_round(m, caller=1)
    res = m.result
    assert res is not None
    assert res.winners == (0, 2) and res.shared and res.round_count == 1


# --------------------------------------------------------------------------- dealers
def test_the_deal_rotates_clockwise_every_round() -> None:
    rules = table("penalty", end="rounds", rounds=6)
    m = Match(rules, players=4, seed=21)
    for _ in range(6):
        assert m.round.dealer == m.round_seats.index(m.dealer)
        assert m.round.starter == (m.round.dealer + 1) % 4
        quick_round(m)
    res = m.result
    assert res is not None
    assert [r.dealer for r in res.rounds] == [3, 0, 1, 2, 3, 0]
    assert [r.starter for r in res.rounds] == [0, 1, 2, 3, 0, 1]
    assert [e.note for e in m.events if e.kind == MatchEventKind.DEALER] == ["last seat"]


def test_a_random_first_dealer_comes_from_the_seed() -> None:
    rules = cambio.load_ruleset("snap")
    assert rules.match.first_dealer == "random"
    dealers = {Match(rules, players=4, seed=s).dealer for s in range(40)}
    assert dealers == {0, 1, 2, 3}
    for s in range(10):
        a, b = Match(rules, players=4, seed=s), Match(rules, players=4, seed=s)
        assert a.dealer == b.dealer
        assert a.starter == (a.dealer + 1) % 4  # worst hand: left of the dealer at first


def test_high_card_chooses_the_first_dealer_and_redraws_ties() -> None:
    rules = cambio.load_ruleset("elimination")
    order = {rank: i for i, rank in enumerate(rules.deck.rank_names())}
    assert order["A"] < order["2"] < order["10"] < order["J"] < order["K"]
    redraws = 0
    for seed in range(60):
        m = Match(rules, players=5, seed=seed)
        draws = [e for e in m.events if e.kind == MatchEventKind.HIGH_CARD]
        contenders = list(range(5))
        number = 1
        while True:
            batch = [e for e in draws if e.note == f"draw {number}"]
            assert [e.player for e in batch] == contenders
            best = max(order[e.cards[0].rank] for e in batch)  # type: ignore[union-attr]
            top = [e.player for e in batch if order[e.cards[0].rank] == best]  # type: ignore[union-attr]
            if len(top) == 1:
                break
            contenders = top
            number += 1
            redraws += 1
        assert len(draws) == sum(1 for e in draws if int(e.note.split()[1]) <= number)
        assert m.dealer == top[0]
        assert m.starter == (m.dealer + 1) % 5
        dealer_events = [e for e in m.events if e.kind == MatchEventKind.DEALER]
        assert [(e.player, e.note) for e in dealer_events] == [(m.dealer, "high card")]
    assert redraws > 0  # some seeds tie for the highest card and draw again


# --------------------------------------------------------------------------- starters
def test_worst_hand_starts_the_next_round() -> None:
    rules = table("snap", first_dealer="first-seat")
    assert rules.match.starter == "worst-hand"
    decks = [
        # P1 starts and calls on 25 (+10: 35); P0 holds the worst hand, 30
        deal(
            ["10S", "10H", "5S", "5H"],
            ["JS", "JH", "2S", "3S"],
            ["AS", "AH", "AD", "AC"],
            discard="6S",
            stock=["6H", "6D"],
        ),
        # P0 starts (worst hand, not left of the dealer); P1's 40 is the worst
        deal(
            ["AS", "2S", "3S", "4S"],
            ["10S", "10H", "10D", "10C"],
            ["AH", "2H", "3H", "4H"],
            discard="6S",
            stock=["5C", "5D", "6C", "6D"],
        ),
        # P1 starts; P0 and P2 tie on 40: the first clockwise from P1 is P2
        deal(
            ["JS", "JH", "JD", "JC"],
            ["AS", "2S", "3S", "4S"],
            ["QS", "QH", "QD", "QC"],
            discard="6S",
            stock=["6H", "6D"],
        ),
    ]
    m = Match(rules, players=3, seed=4, decks=decks)
    assert (m.dealer, m.starter) == (0, 1)
    play_round(m, caller=1)
    assert m.records[0].scores == (30, 35, 4)
    assert (m.dealer, m.starter) == (1, 0)
    assert m.round.starter == 0 and m.to_act == 0
    play_round(m, caller=2)
    assert m.records[1].result.totals == (10, 40, 10)
    assert (m.dealer, m.starter) == (2, 1)
    play_round(m, caller=1)
    assert m.records[2].result.totals == (40, 10, 40)
    assert (m.dealer, m.starter) == (0, 2)
    assert [r.starter for r in m.records] == [1, 0, 1]
    assert m.to_act == 2


# --------------------------------------------------------------------------- teams
def test_teams_add_partners_once_and_either_partner_calls() -> None:
    rules = table("teams", first_dealer="first-seat")
    decks = [
        deal(
            ["AS", "2S", "3S", "4S"],  # P0, team A: 10
            ["5S", "5H", "5D", "5C"],  # P1, team B: 20
            ["AH", "2H", "3H", "4H"],  # P2, team A: 10
            ["6S", "6H", "6D", "6C"],  # P3, team B: 24, calls for team B
            discard="AD",
            stock=["2D", "3D", "2C", "3C", "4C"],
        ),
        deal(
            ["AS", "2S", "3S", "4S"],
            ["QS", "QH", "QD", "QC"],
            ["AH", "2H", "3H", "4H"],  # P2 calls for team A
            ["JS", "JH", "JD", "JC"],
            discard="AD",
            stock=["2D", "3D", "2C"],
        ),
    ]
    m = Match(rules, players=4, seed=6, decks=decks)
    assert m.teams == ((0, 2), (1, 3))
    play_round(m, caller=3)
    rec = m.records[0]
    assert rec.result.caller == 3
    assert rec.result.team_totals == (20, 44)
    assert rec.scores == (0, 54, 0, 54)  # every partner shows the team's round score
    assert m.team_totals == (0, 54)  # counted once per team, not once per partner
    assert m.totals == (0, 54, 0, 54)
    view = m.view(1)
    assert view.teams == ((0, 2), (1, 3)) and view.team_totals == (0, 54)
    play_round(m, caller=2)
    rec = m.records[1]
    assert rec.result.caller == 2 and rec.result.caller_lowest
    assert m.team_totals == (0, 146)
    res = m.result
    assert res is not None
    assert res.winners == (0, 2)
    assert res.eliminated == (1, 3)
    assert res.reason == "last-standing"
    assert res.team_totals == (0, 146)
    assert res.totals == (0, 146, 0, 146)


def test_a_team_out_leaves_partnerships_intact() -> None:
    rules = cambio.load_ruleset("teams")
    for seed in range(40):
        m = Match(rules, players=6, seed=seed)
        rng = random.Random(seed)
        while not m.is_over and not m.eliminated:
            m.apply(rng.choice(m.legal_action_ids()))
        if m.is_over or len(m.round_seats) != 4:
            continue
        # One team of three sat down; the round's partnerships are the match's.
        seats = m.round_seats
        inner = cambio.scoring.teams_of(rules, 4)
        assert {tuple(seats[i] for i in t) for t in inner} <= set(m.teams)
        return
    pytest.fail("no 6-player teams match lost exactly one team")


# --------------------------------------------------------------------------- single
def test_a_single_round_match_is_its_round() -> None:
    m = Match("practice", players=3, seed=9)
    # a match's first round starts where a lone round does
    lone = Round(cambio.load_ruleset("practice"), 3, seed=9)
    assert (m.dealer, m.starter) == (lone.dealer, lone.starter) == (2, 0)
    quick_round(m)
    res = m.result
    assert res is not None
    assert res.reason == "single"
    assert res.round_count == 1
    assert res.winners == res.rounds[0].winners
    assert res.totals == res.rounds[0].result.scores


# --------------------------------------------------------------------------- save and load
def random_match(rules: RuleSet | str, players: int, seed: int, steps: int | None) -> Match:
    m = Match(rules, players=players, seed=seed)
    rng = random.Random(seed)
    while not m.is_over and (steps is None or len(m.actions) < steps):
        m.apply(rng.choice(m.legal_action_ids()))
    return m


def test_save_load_and_replay_give_an_equal_match() -> None:
    m = random_match("elimination", 4, 13, None)
    assert m.is_over
    back = Match.from_json(m.to_json())
    assert back == m
    assert back.result == m.result
    assert Match.replay(m.rules, m.actions, players=4, seed=13) == m
    # mid-match, in a round among fewer players than the match seats
    rules = cambio.load_ruleset("elimination")
    for seed in range(50):
        m = random_match(rules, 3, seed, None)
        partial = [r.players for r in m.records if len(r.players) < 3]
        if not partial:
            continue
        half = Match.replay(rules, m.actions[:-3], players=3, seed=seed)
        assert not half.is_over and len(half.round_seats) == 2
        data = json.loads(half.to_json())
        assert data["format"] == "cambio-match/3"
        assert Match.from_dict(data) == half
        assert half != m
        break
    else:
        pytest.fail("no match reached a round among fewer players")


def test_saved_decks_come_back() -> None:
    m = Match(table("elimination", first_dealer="first-seat"), 3, seed=11, decks=ELIMINATION_DECKS)
    play_round(m, caller=1)
    back = Match.from_json(m.to_json())
    assert back == m
    assert back.decks == m.decks
    assert back.records[0].scores == (48, 54, 0)


def test_copy_is_independent() -> None:
    m = random_match("snap", 3, 1, 30)
    c = m.copy()
    assert c == m
    rng = random.Random(5)
    while not c.is_over:
        c.apply(rng.choice(c.legal_action_ids()))
    assert c != m
    assert len(m.actions) == 30


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="seats"):
        Match("practice", players=9)
    with pytest.raises(ValueError, match="multiple"):
        Match("teams", players=5)
    with pytest.raises(TypeError):
        Match("practice", players=3, seed="x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not a saved match"):
        Match.from_dict({"format": "cambio-round/1"})
    m = Match("practice", players=3, seed=1)
    with pytest.raises(IllegalActionError):
        m.apply(Action.draw(2))  # not P2's turn
    with pytest.raises(IllegalActionError):
        m.apply(10**9)
    with pytest.raises(ValueError):
        m.view(3)
    assert m.actions == ()


def test_module_doctests() -> None:
    failures, tried = doctest.testmod(cambio.match)
    assert tried > 0 and failures == 0


def test_simultaneous_snaps_are_translated_and_recorded() -> None:
    rules = table("snap", end="elimination", limit=60)
    assert rules.snap.when == "any-time" and rules.snap.targets == "any"
    for seed in range(200):
        m = Match(rules, players=5, seed=seed)
        rng = random.Random(seed)
        while not m.is_over and not (len(m.round_seats) < 5 and len(m.reactors) >= 2):
            m.apply(rng.choice(m.legal_action_ids()))
        if m.is_over:
            continue
        assert set(m.reactors) <= set(m.round_seats)
        snaps = []
        for p in m.reactors:
            mine = [a for a in m.legal_actions(p) if a.kind is ActionKind.SNAP]
            assert mine and all(a.player == p for a in mine)
            snaps.append(rng.choice(mine))
        before = len(m.actions)
        m.resolve_snaps(snaps)
        applied = m.actions[before:]
        assert applied and all(a in snaps for a in applied)
        assert Match.replay(rules, m.actions, players=5, seed=seed) == m
        return
    pytest.fail("no snap window with two reactors in a round among fewer players")


def test_the_action_that_ends_a_round_returns_the_next_deal() -> None:
    m = Match(table("elimination", first_dealer="first-seat"), 3, seed=11, decks=ELIMINATION_DECKS)
    m.apply(Action.call(1))
    m.apply(Action.draw(2))
    m.apply(Action.discard(2))
    m.apply(Action.draw(0))
    events = m.apply(Action.discard(0))
    kinds = [e.kind for e in events]
    assert kinds.index("end") < kinds.index(MatchEventKind.ROUND_END)
    assert kinds.index(MatchEventKind.ROUND_END) < kinds.index(MatchEventKind.ROUND_START)
    assert kinds.index(MatchEventKind.ROUND_START) < kinds.index("deal")
    start = events[kinds.index(MatchEventKind.ROUND_START)]
    assert start.player == 1 and start.positions == ((2, 0),)  # dealer P1, starter P2
    assert m.round_number == 2 and m.to_act == 2


def test_a_translated_view_hides_what_the_viewer_did_not_see() -> None:
    m = elimination_match(FOURTH_OF_TWO)
    m.apply(Action.draw(2))  # P2 (round seat 1) sees the card it draws; P1 does not
    for viewer in (1, 2):
        view = m.view(viewer)
        inner = view.round
        assert inner is not None
        assert view.table == m.records and view.round_number == 4
        assert view.eliminated == (0,) and view.totals == (100, 99, 0)
        assert inner.player == viewer and inner.current == 2 and inner.to_act == 2
        assert inner.turns[0] == 0 and inner.grids[0] == ()
        draws = [e for e in inner.history if e.kind == "draw"]
        assert draws and draws[-1].player == 2 and draws[-1].seen_by == frozenset({2})
        for e in inner.history:
            if e.seen_by is not None and viewer not in e.seen_by:
                assert all(c is None for c in e.cards)
        peeks = [e for e in inner.history if e.kind == "opening-peek"]
        assert {e.player for e in peeks} == {1, 2}
        assert all(o == e.player for e in peeks for o, _ in e.positions)
        assert (inner.holding is not None) == (viewer == 2)


def test_a_round_below_the_table_minimum_is_still_played() -> None:
    base = sharing_tie_rules()
    rules = attrs.evolve(base, players=attrs.evolve(base.players, min=3))
    m = Match(rules, players=3, seed=2, decks=[TIE_DECK, TIED_AGAIN])
    play_round(m, caller=1)
    assert m.round.players == 2 and m.round.rules.players.min == 2
    assert m.rules.players.min == 3
    play_round(m, caller=0)
    assert m.records[1].players == (0, 2)


def test_a_match_that_never_reaches_its_limit_stops_at_the_round_cap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(cambio.match, "MAX_ROUNDS", 3)
    m = Match(table("penalty", limit=10**6), players=3, seed=4)
    for _ in range(3):
        quick_round(m)
    res = m.result
    assert res is not None
    assert res.reason == "round-cap" and res.round_count == 3
    assert all(res.totals[w] == min(res.totals) for w in res.winners)


def test_a_saved_match_with_missing_fields_is_refused() -> None:
    data = Match("practice", players=3, seed=1).to_dict()
    del data["seed"]
    with pytest.raises(ValueError, match="seed"):
        Match.from_dict(data)


# --------------------------------------------------------------------------- random matches
def match_tables() -> dict[str, RuleSet]:
    """Every bundled table that plays matches, and a few match rules no profile uses."""
    out = {}
    for name in cambio.available_variants():
        rules = cambio.load_ruleset(name)
        if rules.match.end != "single":
            out[name] = rules
    out["elimination+exact-once+strict"] = table(
        "elimination", exact_limit="once", at_limit=False, limit=60
    )
    out["penalty+exact-always+extra-round"] = table(
        "penalty", exact_limit="always", tie="extra-round", limit=50
    )
    out["snap+rounds-5+extra-round"] = table("snap", end="rounds", rounds=5, tie="extra-round")
    out["teams+limit+worst-hand"] = table("teams", end="limit", starter="worst-hand", limit=80)
    no_zero = table("elimination", limit=40)
    out["elimination+raw-scores+limit-40"] = attrs.evolve(
        no_zero, scoring=attrs.evolve(no_zero.scoring, winner_scores_zero=False)
    )
    out["practice+rounds-3+high-card"] = table(
        "practice", end="rounds", rounds=3, first_dealer="high-card", tie="extra-round"
    )
    return out


TABLES = match_tables()


def match_count() -> int:
    if os.environ.get("CAMBIO_MATCHES"):
        return int(os.environ["CAMBIO_MATCHES"])
    return 100 if os.environ.get("CI") == "true" else 200


def crosses(rules: RuleSet, total: int) -> bool:
    m = rules.match
    return total >= m.limit if m.at_limit else total > m.limit


def check_match(m: Match) -> None:
    """Everything a finished match must satisfy."""
    rules, n = m.rules, m.players
    mr = rules.match
    res = m.result
    assert res is not None and m.is_over
    assert res.winners and set(res.winners) <= set(range(n))
    assert res.totals == m.totals
    records = res.rounds
    assert [r.number for r in records] == list(range(1, len(records) + 1))
    # totals are the sums of the round scores, apart from the exact-limit halving
    running = [0] * n
    for rec in records:
        for s in range(n):
            score = rec.scores[s]
            assert (score is None) == (s not in rec.players)
            running[s] += (score or 0) + rec.adjustments[s]
            adj = rec.adjustments[s]
            if adj:
                assert mr.exact_limit != "none"
                assert adj == mr.limit // 2 - mr.limit and running[s] == mr.limit // 2
        assert tuple(running) == rec.totals
        assert rec.dealer in rec.players and rec.starter in rec.players
        assert len(rec.result.scores) == len(rec.players)
        assert [rec.scores[s] for s in rec.players] == list(rec.result.scores)
    assert tuple(running) == res.totals
    # partners share one total, added once per round
    for team in m.teams:
        assert len({res.totals[s] for s in team}) == 1
    if m.team_totals:
        assert res.team_totals == tuple(res.totals[t[0]] for t in m.teams)
    # every round is played with the right players; the deal goes round
    played = list(m.played_rounds)
    assert len(played) == len(records)
    for rnd, rec in zip(played, records, strict=True):
        assert rnd.players == len(rec.players)
        assert rec.players[rnd.dealer] == rec.dealer
        assert rec.players[rnd.starter] == rec.starter
        if mr.starter == "left-of-dealer":
            assert rnd.starter == (rnd.dealer + 1) % rnd.players
    out_so_far: set[int] = set()
    for i, rec in enumerate(records):
        if rec.extra:
            prev = records[i - 1]
            if prev.extra:  # still tied: the previous extra round's winners play again
                assert rec.players == prev.winners
            else:  # the tied lowest totals among those in contention
                pool = prev.out if prev.out and not set(prev.players) - set(prev.out) else None
                pool = pool or tuple(s for s in range(n) if s not in out_so_far | set(prev.out))
                low = min(prev.totals[s] for s in pool)
                assert rec.players == tuple(s for s in pool if prev.totals[s] == low)
        else:
            assert rec.players == tuple(s for s in range(n) if s not in out_so_far)
        out_so_far |= set(rec.out)
    regular = [r for r in records if not r.extra]
    extra = [r for r in records if r.extra]
    assert res.extra_rounds == len(extra)
    assert len(extra) <= cambio.match.MAX_EXTRA_ROUNDS
    if mr.tie == "share" or mr.end == "single":
        assert not extra
    low = min(res.totals)
    if mr.end == "single":
        assert len(records) == 1 and res.reason == "single"
        assert res.winners == records[0].winners
    elif mr.end == "rounds":
        assert len(regular) == mr.rounds and res.reason == "rounds"
    elif mr.end == "limit":
        assert res.reason in ("limit", "round-cap")
        if res.reason == "limit":
            assert any(crosses(rules, t) for t in regular[-1].totals)
            assert not any(crosses(rules, t) for r in regular[:-1] for t in r.totals)
    else:
        assert res.reason in ("last-standing", "all-out", "round-cap")
        outs = [s for r in records for s in r.out]
        assert len(outs) == len(set(outs)) and set(outs) == set(res.eliminated)
        assert all(crosses(rules, res.totals[s]) for s in res.eliminated)
        if res.reason == "last-standing":
            assert not set(res.winners) & set(res.eliminated)
            assert set(res.winners) | set(res.eliminated) == set(range(n))
            assert not any(crosses(rules, res.totals[s]) for s in res.winners)
    if not extra and res.reason in ("limit", "rounds"):
        assert all(res.totals[s] == low for s in res.winners)
        winning_teams = {cambio.scoring.team_of(rules, n, s) for s in res.winners}
        assert res.shared == (len(winning_teams) > 1)


@pytest.mark.parametrize("name", sorted(TABLES))
def test_random_matches_finish_and_add_up(name: str) -> None:
    rules = TABLES[name]
    sizes = seat_counts(rules)
    count = match_count()
    rounds = 0
    for i in range(count):
        rng = random.Random(f"{name}:{i}")
        m = Match(rules, players=rng.choice(sizes), seed=i)
        steps = 0
        while not m.is_over:
            assert m.to_act is not None
            m.apply(rng.choice(m.legal_action_ids()))
            steps += 1
            assert steps < 20_000
        check_match(m)
        rounds += len(m.records)
        if i % 25 == 0:
            assert Match.replay(rules, m.actions, players=m.players, seed=i) == m
    assert rounds >= count


@pytest.mark.parametrize("variant", ["elimination", "practice", "cabo"])
def test_apply_returns_each_match_event_once(variant: str) -> None:
    """Every match event is returned by exactly one apply, once (a new round's start was
    returned twice when a round ended)."""
    m = Match(variant, seed=3)
    rng = random.Random(5)
    returned: list[cambio.Event] = []
    for _ in range(200_000):
        if m.is_over:
            break
        ids = m.legal_action_ids()
        returned.extend(m.apply(ids[rng.randrange(len(ids))]))
    assert m.is_over
    mine = [e for e in returned if isinstance(e.kind, MatchEventKind)]
    assert len({id(e) for e in mine}) == len(mine)
    logged = [e for e in m.events if isinstance(e.kind, MatchEventKind)]
    assert mine == logged[len(logged) - len(mine) :]
    starts = [e for e in mine if e.kind is MatchEventKind.ROUND_START]
    assert len(starts) == len(m.records) - 1  # the first round's start comes with the deal
