"""cambio.analyse: every legal action estimated from one player's view.

* it reads the view only: paired rounds that differ only in cards the player has not
  seen give identical analyses (dealt rounds and written positions);
* the same seed gives the same numbers, and the budget of samples is kept (the
  playouts are counted);
* every kind of decision is covered: opening peeks, turns, drawn cards, powers, gives,
  calls and snaps, with "no snap" for a player who may snap out of turn;
* the figures mean what they say (a clearly better move comes first, the intervals
  hold their estimates), and bad input gets one error naming what is wrong.
"""

from __future__ import annotations

import random

import pytest

import cambio
from cambio import Analysis, AnalysisError, Round, analyse, analyse_round
from cambio.analysis import wilson_interval
from cambio.bots import MemoryBot, SearchBotConfig, play_round
from decks import position


def _paired(seed: int) -> tuple[Round, Round]:
    """Two practice rounds that differ only in seat 1's first card and the stock's last
    card (swapped): seat 0 sees neither until the end of the stock."""
    rules = cambio.load_ruleset("practice")
    base = Round(rules, 2, seed=seed)
    deck = list(base.deck)
    deck[4], deck[-1] = deck[-1], deck[4]
    other = Round(rules, 2, deck=deck, seed=seed)
    assert base.hand(1) != other.hand(1)
    return base, other


def test_paired_rounds_differing_in_unseen_cards_give_the_same_analysis() -> None:
    base, other = _paired(9)
    rng = random.Random(3)
    compared = 0
    while not base.is_over and compared < 6:
        view = base.view(0)
        assert view == other.view(0)
        if base.legal_action_ids(0):
            a = analyse(view, base.rules, samples=6, seed=compared)
            b = analyse(other.view(0), other.rules, samples=6, seed=compared)
            assert a == b
            compared += 1
        moves = base.legal_actions(base.to_act)
        action = rng.choice([a for a in moves if a.kind != "call"] or moves)
        base.apply(action)
        other.apply(action)
    assert compared == 6


def test_paired_positions_differing_in_unseen_cards_give_the_same_analysis() -> None:
    # seat 0 knows 3S and 4S; seat 1's cards and the stock's top differ between the two
    one = position(
        "practice", "AS,2S,3S@0,4S@0/5S,6S,7S@1,8S@1", "-", "9S", "10S,...", "turn 0 0,0"
    )
    two = position("practice", "AS,KD,3S@0,4S@0/QH,6S,7S@1,8S@1", "-", "9S", "2S,...", "turn 0 0,0")
    assert one.view(0) == two.view(0)
    a = analyse_round(one, 0, samples=8, seed=5)
    b = analyse_round(two, 0, samples=8, seed=5)
    assert a == b
    # a card only seat 1 knows (its 7S here a 9H) is as hidden from seat 0 as the rest
    three = position(
        "practice", "AS,2S,3S@0,4S@0/5S,6S,9H@1,8S@1", "-", "9S", "10S,...", "turn 0 0,0"
    )
    assert three.view(0) == one.view(0)
    assert analyse_round(three, 0, samples=8, seed=5) == a
    c = analyse_round(one, 0, samples=8, seed=6)
    assert c != a  # another seed draws other rounds


def test_the_same_seed_gives_the_same_numbers() -> None:
    rnd = Round("practice", players=2, seed=3)
    view = rnd.view(0)
    first = analyse(view, rnd.rules, samples=12, seed=7)
    assert first == analyse(view, rnd.rules, samples=12, seed=7)
    assert first.seed == 7
    others = [analyse(view, rnd.rules, samples=12, seed=s) for s in (8, 9)]
    assert any(o.estimates != first.estimates for o in others)


def test_the_budget_of_samples_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    import cambio.analysis as module

    played: list[int] = []
    real = module.playout

    def counted(*args: object, **kwargs: object) -> float:
        played.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(module, "playout", counted)
    rnd = Round("practice", players=2, seed=3)
    result = analyse(rnd.view(0), rnd.rules, samples=10, seed=1)
    candidates = len(result.estimates)
    assert candidates == len(rnd.legal_action_ids(0)) == 3
    assert result.samples == 10
    assert all(e.samples == 10 for e in result.estimates)
    assert len(played) == 10 * candidates


def test_a_time_budget_stops_the_sampling_after_two_rounds_at_the_least() -> None:
    rnd = Round("practice", players=2, seed=3)
    result = analyse(rnd.view(0), rnd.rules, samples=None, seconds=1e-9, seed=1)
    assert result.samples == 2
    both = analyse(rnd.view(0), rnd.rules, samples=3, seconds=60.0, seed=1)
    assert both.samples == 3  # the count comes first when it is reached first


def _decisions(name: str, seeds: range) -> dict[tuple[str, bool], tuple[Round, int]]:
    """One round and seat for each kind of decision (phase, whether out of turn) met in
    random rounds of ``name``."""
    found: dict[tuple[str, bool], tuple[Round, int]] = {}
    for seed in seeds:
        rnd = Round(name, seed=seed)
        rng = random.Random(seed)
        while not rnd.is_over:
            who = rnd.to_act
            assert who is not None
            found.setdefault((rnd.phase_seen_by(who).name.lower(), False), (rnd.copy(), who))
            for q in range(rnd.players):
                if q != who and rnd.legal_action_ids(q):
                    found.setdefault(("snap", True), (rnd.copy(), q))
            rnd.apply(rng.choice(rnd.legal_action_ids(who)))
    return found


@pytest.mark.parametrize(
    ("name", "phases"),
    [
        ("one-peek", {"opening", "turn", "drawn"}),
        ("snap", {"turn", "taken", "drawn", "power", "give"}),
    ],
)
def test_every_kind_of_decision_is_analysed(name: str, phases: set[str]) -> None:
    found = _decisions(name, range(4))
    assert phases <= {phase for phase, _ in found}
    if name == "snap":
        assert ("snap", True) in found
    for (phase, out_of_turn), (rnd, seat) in found.items():
        result = analyse(rnd.view(seat), rnd.rules, samples=2, seed=1)
        offered = {a for a in rnd.legal_actions(seat)}
        analysed = {e.action for e in result.estimates}
        if out_of_turn:
            assert analysed == offered | {None}, phase
            assert result.estimate(None).label == f"P{seat} no snap"
        else:
            assert analysed == offered, phase
        assert result.phase == rnd.phase_seen_by(seat).name.lower()


def test_a_clearly_better_move_comes_first() -> None:
    # seat 0 drew the ace and knows its 10 and 3: keeping the ace beats discarding it
    rnd = position(
        "practice", "KS,QS,10S@0,3S@0/5S,6S,7S@1,8S@1", "s:AD@0", "4C", "2C,...", "drawn 0 0,0"
    )
    result = analyse_round(rnd, 0, samples=48, seed=2)
    assert result.best.label.startswith("P0 replace")
    discard = result.estimate(cambio.Action.discard(0))
    assert discard.behind > discard.behind_error > 0
    assert discard.score > result.best.score
    for e in result.estimates:
        assert e.win_low <= e.win <= e.win_high
        assert e.score_low <= e.score <= e.score_high
    wins = [e.win for e in result.estimates]
    assert wins == sorted(wins, reverse=True)


def test_the_policy_sets_the_playouts() -> None:
    rnd = Round("practice", players=2, seed=3)
    uniform = SearchBotConfig(oversample=1)
    a = analyse(rnd.view(0), rnd.rules, samples=6, seed=1, policy=uniform)
    assert isinstance(a, Analysis)
    with pytest.raises(TypeError, match="policy must be a SearchBotConfig"):
        analyse(rnd.view(0), rnd.rules, samples=6, policy="search")  # type: ignore[arg-type]


def test_wilson_interval() -> None:
    low, high = wilson_interval(0, 20)
    assert low == 0.0 and 0.15 < high < 0.17
    low, high = wilson_interval(10.5, 21)
    assert low < 0.5 < high and abs((0.5 - low) - (high - 0.5)) < 1e-9


def test_bad_input_is_refused_with_one_error() -> None:
    rnd = Round("practice", players=2, seed=3)
    view = rnd.view(0)
    with pytest.raises(ValueError, match="samples must be 2 or more"):
        analyse(view, rnd.rules, samples=1)
    with pytest.raises(ValueError, match="give a budget"):
        analyse(view, rnd.rules, samples=None)
    with pytest.raises(ValueError, match="seconds must be"):
        analyse(view, rnd.rules, seconds=-1.0)
    with pytest.raises(TypeError, match="view must be a PlayerView"):
        analyse(rnd, rnd.rules)  # type: ignore[arg-type]
    with pytest.raises(AnalysisError, match="seat 1 has no decision"):
        analyse(rnd.view(1), rnd.rules, samples=2)
    with pytest.raises(AnalysisError, match="there is no seat 5"):
        analyse_round(rnd, 5, samples=2)
    with pytest.raises(AnalysisError, match="does not fit the rules"):
        analyse(view, cambio.load_ruleset("five-card"), samples=2)
    over = Round("practice", players=2, seed=4)
    play_round(over, [MemoryBot(), MemoryBot()], seed=4)
    with pytest.raises(AnalysisError, match="the round is over"):
        analyse_round(over, 0, samples=2)
    with pytest.raises(AnalysisError, match="the round is over"):
        analyse(over.view(1), over.rules, samples=2)
    result = analyse(view, rnd.rules, samples=2, seed=1)
    with pytest.raises(AnalysisError, match="not one of the actions analysed"):
        result.estimate(cambio.Action.discard(0))


def test_snap_decisions_read_only_the_view_too() -> None:
    # on the snap table, with snaps out of turn ("no snap" among the candidates)
    rules = cambio.load_ruleset("snap")
    base = Round(rules, 3, seed=21)
    deck = list(base.deck)
    deck[4], deck[-1] = deck[-1], deck[4]  # seat 1's first card and the stock's last
    other = Round(rules, 3, deck=deck, seed=21)
    rng = random.Random(5)
    compared = out_of_turn = 0
    while not base.is_over and base.view(0) == other.view(0) and compared < 8:
        if base.legal_action_ids(0):
            a = analyse(base.view(0), rules, samples=3, seed=compared)
            assert a == analyse(other.view(0), rules, samples=3, seed=compared)
            compared += 1
            out_of_turn += base.to_act != 0
        moves = base.legal_actions(base.to_act)
        action = rng.choice([m for m in moves if m.kind != "call"] or moves)
        base.apply(action)
        other.apply(action)
    assert compared >= 5 and out_of_turn > 0


def test_after_another_players_call_the_rounds_are_weighed_by_the_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import cambio.analysis as module

    weighed: list[int] = []
    real = module.call_log_weight

    def counted(world: Round, caller: int, cfg: SearchBotConfig) -> float:
        weighed.append(caller)
        return real(world, caller, cfg)

    monkeypatch.setattr(module, "call_log_weight", counted)
    rnd = Round("practice", players=2, seed=3)
    for action in ("P0 draw", "P0 discard", "P1 call"):
        rnd.apply(next(a for a in rnd.legal_actions(rnd.to_act) if str(a) == action))
    assert rnd.caller == 1 and rnd.to_act == 0
    result = analyse(rnd.view(0), rnd.rules, samples=4, seed=1)
    assert "P0 call" not in {e.label for e in result.estimates}
    assert weighed and set(weighed) == {1}
    weighed.clear()
    analyse(rnd.view(0), rnd.rules, samples=4, seed=1, policy=SearchBotConfig(oversample=1))
    assert not weighed  # uniform draws: nothing weighed
