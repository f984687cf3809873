"""Bots: the protocol and its driver, RandomBot, MemoryBot, and what a bot can reach."""

from __future__ import annotations

import gc
import random
import types
from collections.abc import Sequence

import attrs
import pytest

import cambio
from cambio import Action, ActionKind, Card, PlayerView, Round, RuleSet
from cambio.bots import (
    Bot,
    BotError,
    MemoryBot,
    MemoryBotConfig,
    RandomBot,
    make_bot,
    play_round,
)
from cambio.rules import DeckRules, OpeningRules, TurnRules
from decks import deal


def odd_tables() -> list[tuple[str, RuleSet]]:
    """Every bundled profile plus house rules no profile uses."""
    out = [(name, cambio.load_ruleset(name)) for name in cambio.available_variants()]
    snap = cambio.load_ruleset("snap")
    out += [
        ("exchange", attrs.evolve(snap, turn=TurnRules(exchange_equal=True))),
        (
            "exchange-discard",
            attrs.evolve(
                snap,
                turn=TurnRules(
                    exchange_equal=True, exchange_failure="discard-drawn", take_discard=False
                ),
            ),
        ),
        ("mandatory", attrs.evolve(snap, powers=attrs.evolve(snap.powers, optional=False))),
        (
            "several-by-value",
            attrs.evolve(
                snap,
                snap=attrs.evolve(snap.snap, several=True, match="value", arbitration="random"),
            ),
        ),
        (
            "locked-end-of-turn",
            attrs.evolve(
                snap,
                call=attrs.evolve(
                    snap.call,
                    caller_locked=True,
                    timing="end-of-turn",
                    earliest=2,
                    final_turns=2,
                    caller_final_turn=True,
                ),
            ),
        ),
        (
            "swapped-out-draw",
            attrs.evolve(snap, powers=attrs.evolve(snap.powers, swapped_out=True, timing="draw")),
        ),
        ("two-decks", attrs.evolve(snap, deck=DeckRules(decks=2, jokers=2))),
        (
            "no-call-cap",
            attrs.evolve(
                snap, call=attrs.evolve(snap.call, allowed=False), turn=TurnRules(max_turns=40)
            ),
        ),
    ]
    return out


def seats_for(rules: RuleSet) -> int:
    n = max(rules.players.min, min(rules.players.max, 3))
    size = rules.teams.size
    return n if size <= 1 else max(size * 2, rules.players.min)


# ------------------------------------------------------------------ robustness, every table
@pytest.mark.parametrize(
    ("name", "rules"), odd_tables(), ids=lambda x: x if isinstance(x, str) else ""
)
def test_bots_finish_rounds_under_every_table(name: str, rules: RuleSet) -> None:
    n = seats_for(rules)
    lineups = [
        ["memory"] * n,
        ["memory", *["random"] * (n - 1)],
        [lambda: MemoryBot(MemoryBotConfig(memory_turns=0)), lambda: RandomBot(snap_rate=0.5)] * n,
        ["memory-forgetful", "random-nocall"] * n,
    ]
    for k, lineup in enumerate(lineups):
        for seed in range(3):
            rnd = Round(rules, n, seed=100 * k + seed)
            bots = [make_bot(spec) for spec in lineup[:n]]
            played = play_round(rnd, bots, seed=seed)
            assert rnd.is_over
            assert played.result is rnd.result
            assert played.decisions == len(rnd.actions)
            assert played.turns == rnd.turns_taken


def test_bot_protocol_is_satisfied() -> None:
    assert isinstance(RandomBot(), Bot)
    assert isinstance(MemoryBot(), Bot)


def test_make_bot_names_and_errors() -> None:
    assert isinstance(make_bot("memory"), MemoryBot)
    assert make_bot("random-nocall").never_call  # type: ignore[attr-defined]
    assert make_bot(" Random ").never_call is False  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="unknown bot 'robot'"):
        make_bot("robot")
    with pytest.raises(TypeError, match="not a Bot"):
        make_bot(lambda: object())  # type: ignore[arg-type,return-value]


# ------------------------------------------------------------------ the driver
class Spy:
    """Wraps a bot and logs each call as (method, seat)."""

    def __init__(self, bot: Bot, log: list[tuple[str, int]]) -> None:
        self.bot = bot
        self.log = log
        self.seat = -1

    def reset(self, seat: int, rules: RuleSet, seed: int | None) -> None:
        self.seat = seat
        self.bot.reset(seat, rules, seed)

    def act(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        self.log.append(("act", self.seat))
        return self.bot.act(view, legal)

    def react(self, view: PlayerView, snaps: Sequence[Action]) -> Action | None:
        self.log.append(("react", self.seat))
        assert snaps and all(a.kind is ActionKind.SNAP and a.player == self.seat for a in snaps)
        return self.bot.react(view, snaps)


def test_reactors_are_asked_in_order_before_the_decision() -> None:
    rules = cambio.load_ruleset("snap")
    rnd = Round(rules, 3, seed=4)
    who = rnd.to_act
    assert who is not None
    rnd.apply(Action.draw(who))
    rnd.apply(Action.replace(who, 1))  # a discard: the window opens
    reactors = list(rnd.reactors)
    assert len(reactors) == 3
    assert reactors[0] == who  # seat order from the discarder
    log: list[tuple[str, int]] = []
    bots = [Spy(RandomBot(seed=s, snap_rate=0.0), log) for s in range(3)]
    for seat, bot in enumerate(bots):
        bot.reset(seat, rules, seat)
    first_decider = rnd.to_act
    play_round(rnd, bots, reset=False, max_decisions=1000)
    assert log[: len(reactors) + 1] == [("react", p) for p in reactors] + [("act", first_decider)]


def test_a_snap_returned_by_a_reactor_is_applied_first() -> None:
    rules = cambio.load_ruleset("snap")
    rnd = Round(rules, 3, seed=4)
    who = rnd.to_act
    assert who is not None
    rnd.apply(Action.draw(who))
    rnd.apply(Action.replace(who, 1))
    first = rnd.reactors[0]
    applied: list[Action] = []
    bots: list[Bot] = [RandomBot(seed=s, snap_rate=1.0 if s == first else 0.0) for s in range(3)]
    for seat, bot in enumerate(bots):
        bot.reset(seat, rules, None)
    with pytest.raises(BotError):
        play_round(rnd, bots, reset=False, observer=lambda a, e: applied.append(a), max_decisions=1)
    assert applied[0].kind is ActionKind.SNAP
    assert applied[0].player == first


def test_an_answer_that_was_not_offered_raises() -> None:
    class Cheat(RandomBot):
        def act(self, view: PlayerView, legal: Sequence[Action]) -> Action:
            return Action.call((self.seat + 1) % view.players)

    rnd = Round(RuleSet(), 3, seed=1)
    with pytest.raises(BotError, match="not legal"):
        play_round(rnd, [Cheat(), Cheat(), Cheat()])
    with pytest.raises(ValueError, match="3 players but 2 bots"):
        play_round(Round(RuleSet(), 3, seed=1), [RandomBot(), RandomBot()])


def test_same_seed_same_round() -> None:
    def run() -> tuple[int, ...]:
        rnd = Round(RuleSet(), 3, seed=9)
        play_round(rnd, [MemoryBot(), RandomBot(), RandomBot()], seed=3)
        return rnd.action_ids

    assert run() == run()


# ------------------------------------------------------------------ RandomBot
def test_random_bot_never_call_does_not_call() -> None:
    for seed in range(30):
        rnd = Round(RuleSet(), 3, seed=seed)
        play_round(rnd, [RandomBot(never_call=True), RandomBot(never_call=True), MemoryBot()])
        assert not any(a.kind is ActionKind.CALL and a.player in (0, 1) for a in rnd.actions)


def test_random_bot_snap_rate_zero_never_snaps() -> None:
    rules = cambio.load_ruleset("snap")
    for seed in range(10):
        rnd = Round(rules, 3, seed=seed)
        play_round(rnd, [RandomBot(snap_rate=0.0) for _ in range(3)], seed=seed)
        assert not any(a.kind is ActionKind.SNAP for a in rnd.actions)
    with pytest.raises(ValueError, match="snap_rate"):
        RandomBot(snap_rate=2.0)


# ------------------------------------------------------------------ MemoryBot decisions
def test_memory_bot_takes_a_low_discard_and_replaces_its_worst_known_card() -> None:
    deck = deal(
        ["5S", "6S", "KS", "4H"],  # seat 0 sees 3 (black K, 13) and 4
        ["2C", "3C", "4C", "5C"],
        ["2D", "3D", "4D", "5D"],
        discard="AH",
    )
    rnd = Round(RuleSet(), 3, deck=deck, dealer=2, seed=1)
    bot = MemoryBot()
    bot.reset(0, rnd.rules, None)
    take = bot.act(rnd.view(0), rnd.legal_actions(0))
    assert take == Action.take(0)
    rnd.apply(take)
    assert bot.act(rnd.view(0), rnd.legal_actions(0)) == Action.replace(0, 3)


def test_memory_bot_discards_a_high_draw_and_peeks_its_unknown_card() -> None:
    deck = deal(
        ["5S", "6S", "2S", "3H"],
        ["2C", "3C", "4C", "5C"],
        ["2D", "3D", "4D", "5D"],
        discard="QH",
        stock=["8C"],
    )
    rnd = Round(RuleSet(), 3, deck=deck, dealer=2, seed=1)
    bot = MemoryBot()
    bot.reset(0, rnd.rules, None)
    assert bot.act(rnd.view(0), rnd.legal_actions(0)) == Action.draw(0)
    rnd.apply(Action.draw(0))
    assert bot.act(rnd.view(0), rnd.legal_actions(0)) == Action.discard(0)
    rnd.apply(Action.discard(0))
    peek = bot.act(rnd.view(0), rnd.legal_actions(0))
    assert peek.kind is ActionKind.PEEK and peek.positions[0] in ((0, 1), (0, 2))


def test_memory_bot_dumps_a_known_high_card_with_a_swap() -> None:
    deck = deal(
        ["5S", "6S", "KS", "2H"],  # seat 0 knows a black K (13) at 3
        ["2C", "3C", "4C", "5C"],
        ["2D", "3D", "4D", "5D"],
        discard="9H",
        stock=["JC"],
    )
    rnd = Round(RuleSet(), 3, deck=deck, dealer=2, seed=1)
    bot = MemoryBot()
    bot.reset(0, rnd.rules, None)
    rnd.apply(Action.draw(0))
    assert bot.act(rnd.view(0), rnd.legal_actions(0)) == Action.discard(0)
    rnd.apply(Action.discard(0))
    swap = bot.act(rnd.view(0), rnd.legal_actions(0))
    assert swap.kind is ActionKind.SWAP
    assert (0, 3) in swap.positions


def test_memory_bot_calls_when_it_knows_a_low_hand() -> None:
    rules = attrs.evolve(RuleSet(), opening=OpeningRules(positions=(1, 2, 3, 4), count=4))
    deck = deal(
        ["AS", "2S", "AH", "KH"],  # 1 + 2 + 1 - 1 = 3, all seen
        ["2C", "3C", "4C", "5C"],
        ["2D", "3D", "4D", "5D"],
        discard="9H",
    )
    rnd = Round(rules, 3, deck=deck, dealer=2, seed=1)
    bot = MemoryBot()
    bot.reset(0, rules, None)
    assert bot.act(rnd.view(0), rnd.legal_actions(0)) == Action.call(0)
    # a high known hand does not call
    deck2 = deal(
        ["KS", "QS", "JS", "10S"], ["2C", "3C", "4C", "5C"], ["2D", "3D", "4D", "5D"], discard="9H"
    )
    rnd2 = Round(rules, 3, deck=deck2, dealer=2, seed=1)
    bot.reset(0, rules, None)
    assert bot.act(rnd2.view(0), rnd2.legal_actions(0)) != Action.call(0)


def test_memory_bot_snaps_only_known_matches_and_gives_its_worst_card() -> None:
    rules = cambio.load_ruleset("snap")
    deck = deal(
        ["5S", "6S", "7H", "QS"],  # seat 0 knows 7H at 3 and QS (10) at 4
        ["2C", "3C", "4C", "5C"],
        ["2D", "3D", "4D", "5D"],
        discard="AH",
        stock=["7C", "9C", "5H"],
    )
    rnd = Round(rules, 3, deck=deck, dealer=2, seed=1)
    bot = MemoryBot()
    bot.reset(0, rules, None)
    rnd.apply(Action.draw(0))
    rnd.apply(Action.discard(0))  # 7C on the pile: seat 0 knows its own 7H
    snaps = [a for a in rnd.legal_actions(0) if a.kind is ActionKind.SNAP]
    assert bot.react(rnd.view(0), snaps) == Action.snap(0, (0, 3))
    # the others, who know nothing, are not offered a sure snap by MemoryBot
    other = MemoryBot()
    other.reset(1, rules, None)
    snaps1 = [a for a in rnd.legal_actions(1) if a.kind is ActionKind.SNAP]
    assert other.react(rnd.view(1), snaps1) is None

    # snapping another player's known card, then giving the worst own card
    deck = deal(
        ["5S", "6S", "4H", "QS"],
        ["8C", "3C", "4C", "5C"],
        ["2D", "3D", "4D", "6D"],
        discard="AH",
        stock=["9C", "2H", "8H"],
    )
    rnd = Round(rules, 3, deck=deck, dealer=2, seed=1)
    bot.reset(0, rules, None)
    rnd.apply(Action.draw(0))
    rnd.apply(Action.discard(0))
    rnd.apply(Action.peek(0, (1, 1)))  # seat 0 learns seat 1's 8C
    rnd.apply(Action.draw(1))
    rnd.apply(Action.replace(1, 2))  # 3C out: no match for seat 0
    snaps = [a for a in rnd.legal_actions(0) if a.kind is ActionKind.SNAP]
    assert bot.react(rnd.view(0), snaps) is None
    rnd.apply(Action.draw(2))
    rnd.apply(Action.discard(2))  # 8H on the pile
    snaps = [a for a in rnd.legal_actions(0) if a.kind is ActionKind.SNAP]
    snap = bot.react(rnd.view(0), snaps)
    assert snap == Action.snap(0, (1, 1))
    rnd.apply(snap)
    give = bot.act(rnd.view(0), rnd.legal_actions(0))
    assert give == Action.give(0, 4)  # the known Q (10), its worst card


def test_forgetful_memory_forgets_after_some_turns() -> None:
    deck = deal(
        ["5S", "6S", "KS", "2H"],
        ["2C", "3C", "4C", "5C"],
        ["2D", "3D", "4D", "5D"],
        discard="9H",
    )
    rnd = Round(RuleSet(), 3, deck=deck, dealer=2, seed=1)
    bot = MemoryBot(MemoryBotConfig(memory_turns=2))
    bot.reset(0, rnd.rules, None)
    bot.act(rnd.view(0), rnd.legal_actions(0))
    assert bot._known((0, 3)) == Card("K", "S")
    play = [Action.draw(0), Action.discard(0), Action.draw(1), Action.discard(1)]
    for action in play:
        rnd.apply(action)
        if rnd.phase is cambio.Phase.POWER:
            rnd.apply(Action.skip(rnd.current))
    bot.react(rnd.view(0), [])
    assert bot._known((0, 3)) is None  # two turns later: forgotten
    with pytest.raises(ValueError, match="memory_turns"):
        MemoryBotConfig(memory_turns=-1)


def test_memory_bot_needs_reset() -> None:
    rnd = Round(RuleSet(), 3, seed=1)
    with pytest.raises(RuntimeError, match="reset"):
        MemoryBot().act(rnd.view(0), rnd.legal_actions(0))


# ------------------------------------------------------------------ nothing hidden reaches a bot
class Recorder:
    """Records every view a bot was shown with its answer."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.seen: list[tuple[str, PlayerView, Action | None]] = []

    def reset(self, seat: int, rules: RuleSet, seed: int | None) -> None:
        self.bot.reset(seat, rules, seed)

    def act(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        answer = self.bot.act(view, legal)
        self.seen.append(("act", view, answer))
        return answer

    def react(self, view: PlayerView, snaps: Sequence[Action]) -> Action | None:
        answer = self.bot.react(view, snaps)
        self.seen.append(("react", view, answer))
        return answer


def _swap_cards(deck: Sequence[Card], i: int, j: int) -> list[Card]:
    out = list(deck)
    out[i], out[j] = out[j], out[i]
    return out


@pytest.mark.parametrize("table", ["practice", "snap", "penalty"])
@pytest.mark.parametrize("where", ["opponent-grid", "deep-stock"])
def test_cards_the_bot_has_not_seen_do_not_change_its_decisions(table: str, where: str) -> None:
    rules = cambio.load_ruleset(table)
    compared_total = 0
    for seed in range(10):
        base = Round(rules, 3, seed=seed)
        if where == "opponent-grid":
            i, j = 4, 5  # seat 1's positions 1 and 2: nobody saw them at the deal
        else:
            i, j = len(base.deck) - 2, len(base.deck) - 1  # the bottom of the stock
        twin_deck = _swap_cards(base.deck, i, j)
        if twin_deck == list(base.deck):
            continue
        runs = []
        for deck in (list(base.deck), twin_deck):
            rnd = Round(rules, 3, deck=deck, seed=seed)
            recorder = Recorder(MemoryBot())
            others = [RandomBot(snap_rate=0.0), RandomBot(snap_rate=0.0)]
            play_round(rnd, [recorder, *others], seed=seed)
            runs.append(recorder.seen)
        compared = 0
        for (kind_a, view_a, answer_a), (kind_b, view_b, answer_b) in zip(*runs, strict=False):
            if view_a != view_b:
                break  # the bot has now seen a card that differs: the runs may part
            assert (kind_a, answer_a) == (kind_b, answer_b)
            compared += 1
        compared_total += compared
    assert compared_total >= 30


def _reachable(root: object, limit: int = 20000) -> list[object]:
    seen: set[int] = set()
    out: list[object] = []
    todo = [root]
    skip = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType)
    while todo and len(out) < limit:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, skip):
            continue
        seen.add(id(obj))
        out.append(obj)
        todo.extend(gc.get_referents(obj))
    return out


@pytest.mark.parametrize(
    "factory", [MemoryBot, RandomBot, lambda: MemoryBot(MemoryBotConfig(memory_turns=3))]
)
def test_a_bot_holds_no_reference_to_the_round(factory: type[Bot]) -> None:
    rnd = Round(cambio.load_ruleset("snap"), 3, seed=5)
    bots = [factory(), RandomBot(), RandomBot()]

    def check() -> None:
        for seat, bot in enumerate(bots):
            for obj in _reachable(bot):
                assert not isinstance(obj, Round)
                if isinstance(obj, PlayerView):
                    assert obj.player == seat  # only its own views

    class Checking(Recorder):
        def act(self, view: PlayerView, legal: Sequence[Action]) -> Action:
            answer = super().act(view, legal)
            check()
            return answer

    checking = Checking(bots[0])
    play_round(rnd, [checking, bots[1], bots[2]], seed=2)  # type: ignore[list-item]
    check()
    assert not [o for o in _reachable(bots[0]) if isinstance(o, Round)]


def test_only_a_bot_that_reads_no_view_goes_without() -> None:
    from cambio.bots.base import _reads_view

    class Tuned(RandomBot):  # same act and react: still reads nothing
        pass

    class Peeker(RandomBot):  # overrides act: may read the view
        def act(self, view: PlayerView | None, legal: Sequence[Action]) -> Action:
            assert view is not None and view.player == self.seat
            return super().act(view, legal)

    assert not _reads_view(RandomBot()) and not _reads_view(Tuned())
    assert _reads_view(Peeker()) and _reads_view(MemoryBot())
    played = play_round(Round(RuleSet(), 3, seed=2), [Peeker(1), Tuned(2), RandomBot(3)], seed=4)
    assert played.decisions > 0


def test_the_driver_plays_the_same_round_as_applying_actions() -> None:
    rnd = Round("snap", 3, seed=12)
    seen: list[Action] = []
    play_round(
        rnd,
        [MemoryBot(), RandomBot(snap_rate=0.3), RandomBot()],
        seed=8,
        observer=lambda a, e: seen.append(a),
    )
    again = Round("snap", 3, seed=12)
    for action in seen:
        again.apply(action)
    assert again == rnd and again.action_ids == rnd.action_ids


def test_legal_snap_ids_are_the_legal_snaps() -> None:
    """``Round.legal_snap_ids`` (which the bot driver uses) lists exactly the snaps
    among ``legal_action_ids``, for every seat at every decision of random rounds."""
    import random

    from cambio import ActionKind, Round, load_ruleset

    checked = 0
    for name in ("snap", "penalty", "competitive", "no-stick-others", "elimination"):
        rules = load_ruleset(name)
        for seed in range(6):
            r = Round(rules, seed=seed)
            rng = random.Random(seed)
            for _ in range(300):
                if r.is_over:
                    break
                for p in range(-1, r.players + 1):
                    legal = r.legal_action_ids(p) if 0 <= p < r.players else []
                    snaps = [a for a in legal if r.space.decode(a).kind is ActionKind.SNAP]
                    assert r.legal_snap_ids(p) == snaps
                    assert all(r.space.is_snap(a) for a in snaps)
                    checked += len(snaps)
                offered = [(q, r.legal_snap_ids(q)) for q in r.reactors]
                assert r.reactor_snaps() == [(q, tuple(ids)) for q, ids in offered if ids]
                who = r.to_act
                assert who is not None
                options = list(r.legal_action_ids(who))
                for q in r.reactors:
                    options.extend(r.legal_snap_ids(q))
                r.apply(rng.choice(options))
    assert checked > 100


def test_the_random_bot_draws_what_randrange_would() -> None:
    """Its own draw of an index gives random.Random.randrange's numbers (so reports and
    seeds stay what they were), for small and very large ranges alike."""
    bot = RandomBot(5)
    same = random.Random(5)
    for n in [*range(1, 70)] * 30 + [2**40, 3**30, 1]:
        assert bot._below(n) == same.randrange(n)
