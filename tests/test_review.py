"""cambio.review: the decisions of one player in a round, the costliest first.

* a deliberate blunder in a prepared round is the first decision listed, its cost
  clear of its interval, and the best action named is the sensible one;
* each decision is analysed from the player's view at that moment: two rounds that
  differ only in cards the player has not seen give the same review;
* every decision listed is an action the player took, with more than one choice.
"""

from __future__ import annotations

import random

import pytest

import cambio
from cambio import AnalysisError, Round, review
from cambio.bots import MemoryBot, play_round
from cambio.round_review import replay_from_start
from decks import position


def _blunder() -> Round:
    """Seat 0 drew the ace while knowing its 10 and 3, and discarded it; the memory
    bots play the round out."""
    rnd = position(
        "practice", "KS,QS,10S@0,3S@0/5S,6S,7S@1,8S@1", "s:AD@0", "4C", "2C,...", "drawn 0 0,0"
    )
    rnd.apply(cambio.Action.discard(0))
    play_round(rnd, [MemoryBot(), MemoryBot()], seed=3)
    return rnd


def test_a_blunder_comes_first_with_the_sensible_move_named() -> None:
    rnd = _blunder()
    report = review(rnd, 0, samples=48, seed=2)
    first = report.decisions[0]
    assert first.index == 0
    assert first.phase == "drawn"
    assert first.taken.label == "P0 discard"
    assert first.best.label.startswith("P0 replace")  # keeping the ace
    assert first.win_cost > first.win_cost_error > 0
    assert first.score_cost > 0
    costs = [d.win_cost for d in report.decisions]
    assert costs == sorted(costs, reverse=True)
    assert report.win_cost == pytest.approx(sum(costs))


def test_every_decision_listed_is_one_the_player_took() -> None:
    rnd = _blunder()
    report = review(rnd, 1, samples=4, seed=1)
    assert report.player == 1
    assert report.decisions
    for d in report.decisions:
        assert rnd.actions[d.index].player == 1
        assert d.taken.action == rnd.actions[d.index]
        assert len(d.analysis.estimates) > 1
        assert d.win_cost == d.taken.behind >= 0
    order = [d.index for d in report.in_order]
    assert order == sorted(order)
    assert review(rnd, 1, samples=4, seed=1) == report


def test_paired_rounds_differing_in_unseen_cards_give_the_same_review() -> None:
    rules = cambio.load_ruleset("practice")
    base = Round(rules, 2, seed=9)
    deck = list(base.deck)
    deck[4], deck[-1] = deck[-1], deck[4]  # seat 1's first card and the stock's last
    other = Round(rules, 2, deck=deck, seed=9)
    assert base.hand(1) != other.hand(1)
    rng = random.Random(3)
    for _ in range(14):
        moves = base.legal_actions(base.to_act)
        action = rng.choice([a for a in moves if a.kind != "call"] or moves)
        base.apply(action)
        other.apply(action)
    assert base.view(0) == other.view(0)
    one = review(base, 0, samples=4, seed=5)
    assert len(one.decisions) >= 4
    assert one == review(other, 0, samples=4, seed=5)


def test_the_replay_starts_where_the_round_did() -> None:
    dealt = Round("practice", players=2, seed=4)
    play_round(dealt, [MemoryBot(), MemoryBot()], seed=4)
    fresh = replay_from_start(dealt)
    assert fresh.deck == dealt.deck and not fresh.actions
    assert replay_from_start(_blunder()).phase.name == "DRAWN"


def test_bad_input_is_refused() -> None:
    rnd = _blunder()
    with pytest.raises(AnalysisError, match="there is no seat 2"):
        review(rnd, 2)
    with pytest.raises(TypeError, match="rnd must be a Round"):
        review("round", 0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="samples must be 2 or more"):
        review(rnd, 0, samples=1)
