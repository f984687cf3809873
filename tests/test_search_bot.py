"""The search bot and the evidence its samples are weighed by.

* ``InfoSet(view, rules, evidence=True)`` records the other players' choices that say
  something about cards the viewer has not seen (kept draws, discarded draws, blind
  swaps, calls not made); a plain ``InfoSet`` records none.
* ``InfoSet.build(InfoSet.assignment(rng))`` is a sample like ``InfoSet.sample``.
* Weighing samples by :func:`evidence_log_weight` brings the estimate of an opponent's
  hidden total much closer to the truth than uniform samples do (rounds of memory bots).
* The bot is reproducible under a seed and reads only its view: cards it never saw do
  not change its decisions.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Sequence

import attrs
import pytest

import cambio
from cambio import Action, PlayerView, Round
from cambio.bots import MemoryBot, RandomBot, SearchBot, SearchBotConfig, play_round
from cambio.bots.search_bot import call_log_weight, evidence_log_weight, playout
from cambio.determinize import InfoSet

SMALL = SearchBotConfig(playouts=12, min_samples=4)


def _memory_round(rules: cambio.RuleSet, players: int, seed: int) -> list[tuple[Round, PlayerView]]:
    """(a copy of the round, the view of the player to act) at every decision of a
    round played by memory bots."""
    rnd = Round(rules, players, seed=seed)
    bots = [MemoryBot() for _ in range(players)]
    for seat, bot in enumerate(bots):
        bot.reset(seat, rules, None)
    out = []
    while not rnd.is_over:
        who = rnd.to_act
        assert who is not None
        view = rnd.view(who)
        out.append((rnd.copy(), view))
        rnd.apply(bots[who].act(view, rnd.legal_actions(who)))
    return out


def test_evidence_is_recorded_only_when_asked_and_names_the_other_players() -> None:
    rules = cambio.load_ruleset("practice")
    kinds: set[str] = set()
    for seed in range(6):
        for _, view in _memory_round(rules, 2, seed):
            if view.phase == "over":
                continue
            assert InfoSet(view, rules).evidence == []
            for kind, p, a, b, _flag, _flag2, grids in InfoSet(view, rules, evidence=True).evidence:
                kinds.add(kind)
                assert p != view.player  # the viewer's own choices tell it nothing
                if kind in ("keep", "drop", "nocall"):
                    assert len(grids) == 2 and a >= -1
                if kind == "keep":
                    assert a >= 0 and b >= 0 and any(u == b for u, _ in grids[p])
    assert {"keep", "drop", "nocall"} <= kinds


def test_a_built_assignment_is_a_sample_of_the_view() -> None:
    rules = cambio.load_ruleset("practice")
    rng = random.Random(3)
    for _, view in _memory_round(rules, 3, 4)[::4]:
        info = InfoSet(view, rules, evidence=True)
        for _ in range(3):
            world = info.build(info.assignment(rng), rng)
            assert world.view(view.player) == view


def test_weighed_samples_estimate_an_opponents_total_better_than_uniform_ones() -> None:
    rules = cambio.load_ruleset("practice")
    cfg = SearchBotConfig()
    rng = random.Random(5)
    uniform_err, weighed_err = [], []
    for seed in range(12):
        for real, view in _memory_round(rules, 2, 100 + seed):
            if view.player != 0 or view.phase != "turn" or sum(view.turns) < 4:
                continue
            info = InfoSet(view, rules, evidence=True)
            truth = _total(real, 1)
            drawn = [info.assignment(rng) for _ in range(60)]
            logs = [evidence_log_weight(info, a, cfg) for a in drawn]
            top = max(logs)
            weights = [math.exp(x - top) for x in logs]
            totals = [_total(info.build(a, rng), 1) for a in drawn]
            uniform = statistics.fmean(totals)
            weighed = sum(t * w for t, w in zip(totals, weights, strict=True)) / sum(weights)
            uniform_err.append(uniform - truth)
            weighed_err.append(weighed - truth)
    assert len(uniform_err) >= 30
    # uniform samples think the opponent holds far worse cards than it does
    assert statistics.fmean(uniform_err) > 3.0
    assert abs(statistics.fmean(weighed_err)) < statistics.fmean(uniform_err) / 2
    rmse = [math.sqrt(statistics.fmean(e * e for e in errs)) for errs in (uniform_err, weighed_err)]
    assert rmse[1] < 0.75 * rmse[0]


def _total(rnd: Round, seat: int) -> int:
    return sum(rnd.rules.values.of(c) for c in rnd.hand(seat) if c is not None)


def test_search_bot_is_reproducible_under_a_seed() -> None:
    rules = cambio.load_ruleset("practice")
    results = []
    for _ in range(2):
        bot = SearchBot(SMALL)
        played = play_round(Round(rules, 2, seed=9), [bot, MemoryBot()], seed=4)
        results.append((played.result, played.decisions, bot.searched))
    assert results[0] == results[1]
    assert results[0][2] > 0  # it searched


class Recorder:
    def __init__(self, bot: SearchBot) -> None:
        self.bot = bot
        self.seen: list[tuple[PlayerView, Action]] = []

    def reset(self, seat: int, rules: cambio.RuleSet, seed: int | None) -> None:
        self.bot.reset(seat, rules, seed)

    def act(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        answer = self.bot.act(view, legal)
        self.seen.append((view, answer))
        return answer

    def react(self, view: PlayerView, snaps: Sequence[Action]) -> Action | None:
        return self.bot.react(view, snaps)


def _answers_compared(
    rules: cambio.RuleSet,
    players: int,
    seed: int,
    unseen: tuple[int, int],
    config: SearchBotConfig,
    others: Sequence[RandomBot],
) -> int:
    """Play the deal of ``seed`` twice with a search bot at seat 0, the second time with
    the deck's cards at ``unseen`` (two places the bot does not see at the deal)
    swapped; assert that the bot answers the same as long as its views are equal, and
    return how many answers were compared (0 when the swap changes nothing)."""
    base = Round(rules, players, seed=seed)
    twin = list(base.deck)
    i, j = unseen
    twin[i], twin[j] = twin[j], twin[i]
    if twin == list(base.deck):
        return 0
    runs = []
    for deck in (list(base.deck), twin):
        recorder = Recorder(SearchBot(config))
        seated = [recorder, *others]
        play_round(Round(rules, players, deck=deck, seed=seed), seated, seed=seed)
        runs.append(recorder.seen)
    compared = 0
    for (view_a, answer_a), (view_b, answer_b) in zip(*runs, strict=False):
        if view_a != view_b:
            break  # it has now seen a card that differs
        assert answer_a == answer_b
        compared += 1
    return compared


@pytest.mark.parametrize("table", ["practice", "snap"])
def test_cards_the_search_bot_has_not_seen_do_not_change_its_decisions(table: str) -> None:
    rules = cambio.load_ruleset(table)
    # seat 1's positions 1 and 2: unseen at the deal
    compared = sum(
        _answers_compared(rules, 2, seed, (4, 5), SMALL, [RandomBot(snap_rate=0.0)])
        for seed in range(4)
    )
    assert compared >= 8


def test_a_judged_call_is_made_when_the_call_wins_often_enough() -> None:
    # a judge that asks for no share at all calls at the first turn the call is allowed
    # and its style would not call (three players); one that asks for more than a
    # whole win never calls for it
    rules = cambio.load_ruleset("practice")
    judged = 0
    for judge, calls in ((0.0, True), (1.01, False)):
        config = attrs.evolve(SMALL, call_judge=judge, call_samples=4)
        bot = SearchBot(config)
        bot.reset(0, rules, 3)
        style = MemoryBot(config.style)
        style.reset(0, rules, None)
        memory = [MemoryBot() for _ in range(3)]
        for seat, m in enumerate(memory):
            m.reset(seat, rules, None)
        rnd = Round(rules, 3, seed=5)
        while not rnd.is_over:
            who = rnd.to_act
            assert who is not None
            view, legal = rnd.view(who), rnd.legal_actions(who)
            may_call = any(a.kind is cambio.ActionKind.CALL for a in legal)
            if who == 0 and may_call and style.act(view, legal).kind is not cambio.ActionKind.CALL:
                assert 0.0 <= bot.call_share(view, rules, Action.call(0)) <= 1.0
                answer = bot.act(view, legal)
                assert (answer.kind is cambio.ActionKind.CALL) is calls
                judged += 1
                break
            rnd.apply(memory[who].act(view, legal))
    assert judged == 2


def test_score_weight_adds_the_lead_in_points_to_a_playout() -> None:
    rules = cambio.load_ruleset("practice")
    rnd = Round(rules, 2, seed=11)
    plain = playout(rnd.copy(), 0, random.Random(1))
    weighed = playout(rnd.copy(), 0, random.Random(1), score_weight=0.5)
    end = rnd.copy()
    playout(end, 0, random.Random(1))
    totals = [sum(end._value[c] for c in row if c >= 0) for row in end._slots]
    lead = max(-1.0, min(1.0, (totals[1] - totals[0]) / 10))
    assert math.isclose(weighed, plain + 0.5 * lead)


WIDE = attrs.evolve(SMALL, final_playouts=24, belief_samples=6, wide_oversample=4, wide_playouts=24)


class _SearchLog(SearchBot):
    """A search bot that notes the phase and the caller of every search it makes."""

    def __init__(self, config: SearchBotConfig) -> None:
        super().__init__(config)
        self.log: list[tuple[str, int | None]] = []

    def search(  # type: ignore[override]
        self, view: PlayerView, rules: cambio.RuleSet, choices: Sequence[Action], *args, **kw
    ) -> Action:
        self.log.append((view.phase, view.caller))
        return super().search(view, rules, choices, *args, **kw)


def test_three_player_play_is_reproducible_and_searches_where_configured() -> None:
    # with three players the bot searches the start of its turns before anyone calls
    # (wide_phases), reads blind swaps from weighed samples, and searches its final
    # turn after another player's call; all of it is reproducible under a seed
    rules = cambio.load_ruleset("practice")
    phases: set[tuple[str, bool]] = set()
    for seed in range(3):
        results = []
        for _ in range(2):
            bot = _SearchLog(WIDE)
            played = play_round(Round(rules, 3, seed=seed), [MemoryBot(), bot, MemoryBot()], seed=7)
            results.append((played.result, played.decisions, bot.searched, bot.log))
            assert bot.searched == len(bot.log)
            for phase, caller in bot.log:
                assert phase == "turn" or caller not in (None, 1)  # final turns: any phase
                phases.add((phase, caller is None))
        assert results[0] == results[1]
    assert ("turn", True) in phases  # a start of turn before any call
    assert any(not before for _, before in phases)  # a final turn after a call


def test_the_phases_searched_at_a_larger_table_are_configurable() -> None:
    rules = cambio.load_ruleset("practice")
    seen: dict[tuple[str, ...], set[str]] = {}
    for wide_phases in ((), ("turn",), ("turn", "drawn")):
        config = attrs.evolve(WIDE, wide_phases=wide_phases, final_playouts=0)
        found: set[str] = set()
        for seed in range(3):
            bot = _SearchLog(config)
            play_round(Round(rules, 3, seed=seed), [bot, MemoryBot(), MemoryBot()], seed=seed)
            found.update(phase for phase, _ in bot.log)
        seen[wide_phases] = found
    assert seen[()] == set()
    assert seen[("turn",)] == {"turn"}
    assert seen[("turn", "drawn")] == {"turn", "drawn"}


@pytest.mark.parametrize("field", ["phases", "wide_phases"])
@pytest.mark.parametrize("bad", [("turn", "lunch"), ["turn"], ("over",), "turn"])
def test_phase_names_are_checked(field: str, bad: object) -> None:
    with pytest.raises(ValueError, match=f"{field} must be a tuple of phase names"):
        SearchBotConfig(**{field: bad})


def test_cards_the_search_bot_has_not_seen_do_not_change_its_three_player_decisions() -> None:
    rules = cambio.load_ruleset("practice")
    # seat 2's positions 1 and 2: unseen at the deal
    compared = sum(
        _answers_compared(
            rules,
            3,
            seed,
            (8, 9),
            WIDE,
            [RandomBot(seed, snap_rate=0.0), RandomBot(seed + 1, snap_rate=0.0)],
        )
        for seed in range(3)
    )
    assert compared >= 8


def test_beliefs_keep_the_cards_the_bot_knows_and_weigh_a_call() -> None:
    rules = cambio.load_ruleset("practice")
    bot = SearchBot(WIDE)
    bot.reset(0, rules, 1)
    checked = 0
    for _real, view in _memory_round(rules, 3, 21):
        if view.player != 0 or view.phase not in ("turn", "power") or sum(view.turns) < 3:
            continue
        samples = bot.beliefs(view, rules, 5)
        assert len(samples) == 5
        for sample in samples:
            for q, row in enumerate(view.grids):
                for i, card in enumerate(row):
                    if not view.present[q][i]:
                        assert sample[q][i] == -1
                    elif card is not None:
                        assert sample[q][i] == rules.values.of(card)
        checked += 1
    assert checked >= 3
    # a caller who knows a low total explains its call better than one with a high one
    low = Round(rules, 3, seed=2)
    cfg = SearchBotConfig()
    for c in low._slots[1]:
        low._known[c] |= 1 << 1
    high = low.copy()
    low._value = list(low._value)
    high._value = list(high._value)
    for c in low._slots[1]:
        low._value[c], high._value[c] = 1, 12
    assert call_log_weight(low, 1, cfg) > call_log_weight(high, 1, cfg)


@pytest.mark.parametrize(
    "field", ["final_playouts", "belief_samples", "wide_oversample", "wide_playouts"]
)
def test_the_larger_tables_budgets_are_checked(field: str) -> None:
    with pytest.raises(ValueError, match=field):
        SearchBotConfig(**{field: -1})
    with pytest.raises(ValueError, match=field):
        SearchBotConfig(**{field: True})
