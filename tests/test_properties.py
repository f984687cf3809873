"""Generic random-simulation checks, in the spirit of OpenSpiel's basic tests.

A hypothesis rule-based state machine deals rounds under every bundled profile and under
generated valid tables (``strategies.rulesets()``), with any seat count the table
allows, and plays them with actions chosen by hypothesis. After every action it checks:

* every card is in exactly one place (a grid, the stock, the discard pile, the held card);
* ``legal_action_ids``, ``legal_actions``, ``legal_action_mask``, ``can_apply`` and
  ``verify`` agree, for the player to act and for every other player (reactors' snaps
  included), ids round-trip through the action space, and ``reactors`` lists exactly the
  players who may snap, in seat order from the discarder;
* a round that is not over always has a decision to make, and a finished one none;
* every view is truthful (a card shown is the card there) and its history is the event
  log as that player saw it;
* an illegal id or a malformed action raises ``IllegalActionError`` and changes nothing;
* a saved and loaded copy, and a ``copy()``, given the same action reach the same state
  (every step in the dev profile, every few steps under CI);
* driven by a chooser that calls when it may and draws rather than takes, a round ends
  within a bound derived from the table (turn cap, calling, the stock).

A second machine plays whole matches (:class:`cambio.Match`) the same way.

The end of this file pins the engine bugs these machines found, as regression tests.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
from collections.abc import Iterator, Sequence
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, event, note, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

import cambio
from cambio import Action, ActionKind, Card, IllegalActionError, Match, Round, RuleSet
from cambio.events import Event, EventKind
from cambio.invariants import ensure_consistent
from cambio.match import MAX_EXTRA_ROUNDS, MAX_ROUNDS
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
    ScoringRules,
    SnapRules,
    Step,
    StockRules,
    TeamRules,
    TurnRules,
    ValueRules,
)
from decks import seat_counts
from strategies import rulesets

PROFILES = cambio.available_variants()
PROFILE_RULES = {name: cambio.load_ruleset(name) for name in PROFILES}

CI = os.environ.get("CI") == "true" or os.environ.get("HYPOTHESIS_PROFILE") == "ci"
ROUNDTRIP_EVERY = 4 if CI else 1
"""Save, load and copy checks run at every step in the dev profile, every few under CI."""


def default_examples() -> int:
    """``max_examples`` of the hypothesis profile in force (see tests/conftest.py)."""
    current = settings.default
    return current.max_examples if current is not None else 100


# --------------------------------------------------------------------------- tables


def profile(name: str) -> RuleSet:
    """A bundled profile by name (loaded once)."""
    return PROFILE_RULES[name]


profiles = st.sampled_from(PROFILES).map(profile)
tables = st.one_of(profiles, rulesets())


def can_end(rules: RuleSet) -> bool:
    """Whether a chooser that calls when it may and always draws ends every round."""
    return rules.call.allowed or rules.turn.max_turns > 0 or rules.stock.on_empty == "end"


# --------------------------------------------------------------------------- tables of fixed bugs


def _empty_stock_deal_table() -> RuleSet:
    """A valid table whose deal leaves the stock empty (was bug 1: no legal action)."""
    return RuleSet(
        players=PlayerRules(min=2, max=2, default=2),
        deck=DeckRules(custom={"1": 3}),
        values=ValueRules(rank={"1": 1}, red={}),
        grid=GridRules(rows=(1,)),
        opening=OpeningRules(positions=(), count=0),
        turn=TurnRules(take_discard=False),
        powers=PowerRules(table=()),
        call=CallRules(earliest=1),
    )


def _penalty_runs_out_table() -> RuleSet:
    """A valid table where a two-card forfeit can find a one-card stock (was bug 2)."""
    return RuleSet(
        players=PlayerRules(min=2, max=2, default=2),
        deck=DeckRules(custom={"1": 2, "2": 3}),
        values=ValueRules(rank={"1": 1, "2": 2}, red={}),
        grid=GridRules(rows=(1,)),
        opening=OpeningRules(positions=(), count=0),
        turn=TurnRules(take_discard=False),
        powers=PowerRules(table=()),
        snap=SnapRules(when="own-turn", penalty_cards=2),
        call=CallRules(allowed=False),
    )


class TookTooLong(Exception):
    """Raised by :func:`time_limit` when its block runs past the limit."""


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`TookTooLong` inside the block after ``seconds`` (main thread, Unix)."""

    def expired(signum: int, frame: object) -> None:
        raise TookTooLong(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _one_rank_high_card_table() -> RuleSet:
    """A valid table whose deck holds a single rank and whose first dealer is chosen by
    high card: every draw ties (was bug 7: Match() never returned)."""
    return RuleSet(
        deck=DeckRules(custom={"0": 30}),
        values=ValueRules(rank={"0": 0}, red={}),
        powers=PowerRules(table=()),
        match=MatchRules(first_dealer="high-card"),
    )


# --------------------------------------------------------------------------- invariants


def card_places(r: Round) -> list[int]:
    ids = [c for row in r._slots for c in row if c >= 0]
    ids.extend(r._stock)
    ids.extend(r._discard)
    if r._drawn >= 0:
        ids.append(r._drawn)
    return sorted(ids)


def pile_from_events(events: Sequence[Event]) -> list[Card]:
    """The discard pile as the public event log tells it: the deal's first card, every
    card replaced, discarded, snapped or exchanged onto it, minus taken cards; a recycle
    keeps only the top card."""
    pile: list[Card] = []
    for e in events:
        cards = [c for c in e.cards if c is not None]
        if e.kind == EventKind.DEAL:
            pile = list(cards)
        elif e.kind == EventKind.TAKE:
            pile.pop()
        elif e.kind in (EventKind.REPLACE, EventKind.DISCARD, EventKind.SNAP, EventKind.EXCHANGE):
            pile.extend(cards)
        elif e.kind == EventKind.FAILED_EXCHANGE and len(e.cards) > len(e.positions):
            pile.append(cards[-1])  # the drawn card is discarded
        elif e.kind == EventKind.RECYCLE:
            pile = pile[-1:]
    return pile


def check_cards(r: Round) -> None:
    ensure_consistent(r)  # the invariants every load checks, shared with the engine
    assert card_places(r) == list(range(len(r.deck))), "a card is missing or in two places"
    assert r.stock_size == len(r._stock)
    assert [r.deck[c] for c in r._discard] == list(r.discard_pile)
    assert list(r.discard_pile) == pile_from_events(r.events), "the pile is not what happened"


MASK_CELLS = 300_000
"""Above this many mask entries per step (players times space size), whole masks are
compared for the player to act, the reactors and one other player in turn."""


def check_legality(r: Round, sample: int = 0) -> None:
    """Every way of asking what is legal gives the same answer, for every player."""
    sp = r.space
    n = r.players
    everyone: list[int] = []
    snappers: list[int] = []
    masked = set(range(n))
    if n * sp.size > MASK_CELLS:
        masked = {sample % n, *r.reactors}
        if r.to_act is not None:
            masked.add(r.to_act)
    for q in range(n):
        ids = r.legal_action_ids(q)
        assert ids == sorted(set(ids)), f"P{q}'s legal ids are not sorted and unique"
        assert all(a // sp.per_player == q for a in ids), f"P{q} has another player's ids"
        if q in masked:
            mask = r.legal_action_mask(q)
            assert len(mask) == sp.size
            assert mask.count(True) == len(ids), f"P{q}'s mask disagrees"
            assert all(mask[a] for a in ids), f"P{q}'s mask disagrees"
        actions = r.legal_actions(q)
        assert actions == [sp.decode(a) for a in ids]
        for a, action in zip(ids, actions, strict=True):
            assert action.player == q
            assert sp.encode(action) == a
            assert r.can_apply(a) and r.can_apply(action), f"{action} listed but refused"
            r.verify(a)
        if any(action.kind is ActionKind.SNAP for action in actions):
            snappers.append(q)
        everyone.extend(ids)
    assert r.legal_action_ids(None) == everyone
    assert r.legal_action_ids() == everyone
    legal = set(everyone)
    # ids nobody may use now: a stride through the whole space (all of a small one)
    stride = max(1, sp.size // 150)
    for a in range(sample % stride, sp.size, stride):
        if a not in legal:
            assert not r.can_apply(a), f"{sp.decode(a)} is not listed but accepted"
    # reactors: exactly the players with snap actions, seat order from the discarder
    reactors = list(r.reactors)
    assert sorted(reactors) == snappers
    if reactors:
        start = r._window_discarder if r._window_discarder >= 0 else r.current
        assert reactors == sorted(reactors, key=lambda q: (q - start) % n)
    if r.is_over:
        assert everyone == [] and r.to_act is None and r.reactors == ()
        assert r.result is not None
    else:
        assert r.result is None
        who = r.to_act
        assert who is not None and 0 <= who < n
        assert r.legal_action_ids(who), f"P{who} must decide but has no action"


def shown_to(events: Sequence[Event], player: int) -> set[Card]:
    """Every card the events showed ``player`` (as that player saw them)."""
    return {c for e in events for c in e.as_seen_by(player).cards if c is not None}


def check_views(r: Round, full: bool = True) -> None:
    """Views show only true cards, and only cards their player was shown at some point
    (checked when ``full``); each history is the log as its player saw it (the whole
    history when ``full``, else its length and latest events)."""
    n = r.players
    hands = [r.hand(o) for o in range(n)]
    events = r.events
    tail = len(events) if full else min(len(events), 4)
    for q in range(n):
        v = r.view(q)
        if full and not r.is_over:
            shown = shown_to(events, q)
            for o in range(n):
                for i, card in enumerate(v.grids[o]):
                    assert card is None or card in shown, (
                        f"P{q}'s view shows {card} at P{o}:{i + 1}, a card P{q} was never shown"
                    )
            assert v.holding is None or v.holding in shown
        assert v.player == q and v.players == n
        assert v.to_act == r.to_act and v.current == r.current and v.caller == r.caller
        assert v.discard == r.discard_pile and v.stock_size == r.stock_size
        for o in range(n):
            assert v.present[o] == tuple(c is not None for c in hands[o])
            for card, true in zip(v.grids[o], hands[o], strict=True):
                assert card is None or card == true, f"P{q}'s view shows a false card"
        if v.holding is not None:
            assert r._drawn >= 0 and v.holding == r.deck[r._drawn]
        assert len(v.history) == len(events)
        if tail:
            seen = tuple(e.as_seen_by(q) for e in events[-tail:])
            assert v.history[-tail:] == seen, f"P{q}'s history is not the log as P{q} saw it"
        assert v.result == r.result


def check_round(r: Round, sample: int = 0) -> None:
    check_cards(r)
    check_legality(r, sample)
    check_views(r, full=r.is_over or sample % 16 == 0)


def roundtrip_now(r: Round, step: int) -> bool:
    """Whether to check save/load and copy at this step: every ``ROUNDTRIP_EVERY`` steps,
    thinned out on long rounds (loading replays every action, so the cost of a round
    stays about linear in its length)."""
    return step % max(ROUNDTRIP_EVERY, len(r.action_ids) // 40) == 0


def apply_checked(r: Round, action: int, roundtrip: bool) -> Round:
    """Apply ``action`` to ``r``; on a round-trip step also to a saved-and-loaded copy
    and to a ``copy()``, which must reach the same state. Returns ``r``."""
    if not roundtrip:
        r.apply(action)
        return r
    before = r.copy()
    assert before == r
    loaded = Round.from_json(r.to_json())
    assert loaded == r, "a saved round loads as a different round"
    events = r.apply(action)
    assert before == loaded, "applying to a round changed its copy"
    assert loaded.apply(action) == events
    assert loaded == r, "a saved-and-loaded round diverged"
    assert before.apply(action) == events
    assert before == r, "a copy diverged"
    return r


def check_illegal(r: Round, action: Any) -> None:
    """``action`` is not legal: it raises ``IllegalActionError`` and changes nothing."""
    before = r.copy()
    assert not r.can_apply(action)
    with pytest.raises(IllegalActionError):
        r.verify(action)
    with pytest.raises(IllegalActionError):
        r.apply(action)
    assert r == before, f"a refused {action!r} changed the round"


# --------------------------------------------------------------------------- choosers


def _kind(r: Round, a: int) -> ActionKind:
    return r.space.decode(a).kind


def random_choice(r: Round, pick: int, snap: bool) -> int:
    """A legal id: a reactor's snap when ``snap`` and someone may snap, else a decision
    of the player to act (a snap too, when that is all it has)."""
    reactors = r.reactors
    if snap and reactors:
        q = reactors[pick % len(reactors)]
        snaps = [a for a in r.legal_action_ids(q) if _kind(r, a) is ActionKind.SNAP]
        return snaps[(pick // len(reactors)) % len(snaps)]
    who = r.to_act
    assert who is not None
    ids = r.legal_action_ids(who)
    quiet = [a for a in ids if _kind(r, a) is not ActionKind.SNAP] or ids
    return quiet[pick % len(quiet)]


def ending_choice(r: Round, rng: random.Random, patience: int) -> int:
    """A chooser that ends rounds: after ``patience`` turns it calls whenever it may,
    and it always draws from the stock rather than take the discard. Reactors snap now
    and then (each may try once per discard, so this stays bounded)."""
    reactors = r.reactors
    if reactors and rng.random() < 0.08:
        return random_choice(r, rng.randrange(1 << 16), True)
    who = r.to_act
    assert who is not None
    ids = [a for a in r.legal_action_ids(who) if _kind(r, a) is not ActionKind.SNAP]
    by_kind: dict[ActionKind, list[int]] = {}
    for a in ids:
        by_kind.setdefault(_kind(r, a), []).append(a)
    if ActionKind.CALL in by_kind and r.turns_taken >= patience:
        return by_kind[ActionKind.CALL][0]
    if ActionKind.DRAW in by_kind:
        return by_kind[ActionKind.DRAW][0]
    ids = [a for a in ids if _kind(r, a) not in (ActionKind.CALL, ActionKind.TAKE)] or ids
    return ids[rng.randrange(len(ids))]


def turn_bound(r: Round, patience: int) -> int | None:
    """The most turns (in all) a round can last from now under :func:`ending_choice`.

    A call becomes possible once every player has had ``call.earliest`` turns (each
    player gets a turn in every ``n`` turns), then come the final turns; a turn cap
    ends it anyway; without recycling each turn but the calling one draws a card, so
    the stock ends it.
    Tables with none of these (no call, no cap, recycling) have no bound: ``None``.
    """
    rules = r.rules
    n = r.players
    now = r.turns_taken
    bounds: list[int] = []
    if rules.turn.max_turns:
        bounds.append(rules.turn.max_turns)
    if rules.call.allowed:
        ready = max(patience, now) + n * (rules.call.earliest + 1)
        bounds.append(ready + n * (rules.call.final_turns + 1) + 1)
    if rules.stock.on_empty == "end":
        # every turn draws, except the one that calls; a turn that finds no stock ends it
        bounds.append(now + r.stock_size + 2)
    return min(bounds) if bounds else None


def decisions_per_turn(r: Round) -> int:
    """A generous bound on the decisions in one turn: start, re-peek, place, pass, each
    step of the longest power, and per discard one snap attempt per player plus a give."""
    steps = max((len(p.steps) for p in r.rules.powers.table), default=0)
    return 6 + steps + 3 * (r.players + 1)


# --------------------------------------------------------------------------- malformed input

_bad_kinds = st.one_of(
    st.sampled_from(list(ActionKind)),
    st.text(max_size=8),
    st.none(),
    st.integers(-2, 20),
)
_bad_numbers = st.one_of(
    st.integers(-3, 12),
    st.integers(),
    st.booleans(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=3),
    st.none(),
)
_bad_slots = st.one_of(
    st.tuples(st.integers(-2, 8), st.integers(-2, 14)),
    st.tuples(_bad_numbers, _bad_numbers),
    st.tuples(st.integers(0, 5)),
    st.tuples(st.integers(0, 5), st.integers(1, 8), st.integers(1, 8)),
    st.lists(st.integers(0, 8), max_size=3),
    st.text(max_size=3),
    st.none(),
)
_bad_positions = st.one_of(
    st.lists(_bad_slots, max_size=4).map(tuple),
    st.lists(_bad_slots, max_size=3),
    st.none(),
    st.integers(),
    st.text(max_size=4),
)
malformed_actions = st.builds(
    Action,
    kind=_bad_kinds,
    player=_bad_numbers,
    positions=_bad_positions,
)
"""Actions of any shape: bogus kinds, players and positions of every type and range."""

not_actions = st.one_of(
    st.text(max_size=6),
    st.floats(),
    st.none(),
    st.booleans(),
    st.tuples(st.integers(), st.integers()),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.integers(max_value=-1),
    st.integers(min_value=2**40),
    st.builds(object),
)
"""Things that are neither an Action nor a valid action id."""


def well_formed(action: Any) -> bool:
    """An Action whose kind, player and positions have the right types (any values)."""

    def whole(x: Any) -> bool:
        return isinstance(x, int) and not isinstance(x, bool)

    return (
        isinstance(action, Action)
        and isinstance(action.kind, ActionKind)
        and whole(action.player)
        and isinstance(action.positions, tuple)
        and all(
            isinstance(s, tuple) and len(s) == 2 and whole(s[0]) and whole(s[1])
            for s in action.positions
        )
    )


def check_malformed(r: Round, action: Any) -> None:
    """A malformed action is refused with ``IllegalActionError`` and changes nothing
    (unless, by chance, it is a well-formed legal action)."""
    if well_formed(action) and r.can_apply(action):
        return
    check_illegal(r, action)


# --------------------------------------------------------------------------- the round machine


class RoundMachine(RuleBasedStateMachine):
    """Deal rounds under any table and check every invariant after every action."""

    def __init__(self) -> None:
        super().__init__()
        self.r: Round = Round(RuleSet(), 2, seed=0)
        self.steps = 0
        self.rounds = 0

    # -- dealing
    def _deal(self, rules: RuleSet, data: st.DataObject) -> None:
        players = data.draw(st.sampled_from(seat_counts(rules)), label="players")
        seed = data.draw(st.integers(0, 2**64), label="seed")
        dealer = data.draw(st.none() | st.integers(0, players - 1), label="dealer")
        starter = data.draw(st.none() | st.integers(0, players - 1), label="starter")
        self.r = Round(rules, players, seed=seed, dealer=dealer, starter=starter)
        self.steps = 0
        self.rounds += 1
        check_round(self.r)

    @initialize(rules=tables, data=st.data())
    def deal(self, rules: RuleSet, data: st.DataObject) -> None:
        self._deal(rules, data)

    @precondition(lambda self: self.r.is_over)
    @rule(data=st.data(), same=st.booleans(), rules=tables)
    def deal_again(self, data: st.DataObject, same: bool, rules: RuleSet) -> None:
        self._deal(self.r.rules if same else rules, data)

    # -- playing
    def _live(self) -> bool:
        return not self.r.is_over

    @precondition(_live)
    @rule(pick=st.integers(0, 2**16), snap=st.integers(0, 7))
    def act(self, pick: int, snap: int) -> None:
        action = random_choice(self.r, pick, snap == 0)
        self.steps += 1
        apply_checked(self.r, action, roundtrip_now(self.r, self.steps))

    @precondition(_live)
    @rule(patience=st.integers(0, 25), seed=st.integers(0, 2**32))
    def play_to_the_end(self, patience: int, seed: int) -> None:
        """Play on with the ending chooser, checking everything at every action, until
        the round ends, which must happen within the table's bound."""
        r = self.r
        rng = random.Random(seed)
        turns = turn_bound(r, patience)
        note(f"turn bound {turns} from turn {r.turns_taken}")
        if turns is None:
            budget = 300  # no call, no turn cap, recycling: nothing ends such a round
        else:
            budget = (turns - r.turns_taken + 2) * decisions_per_turn(r) + 2 * r.players
        for _ in range(budget):
            if not self._live():
                break
            self.steps += 1
            apply_checked(r, ending_choice(r, rng, patience), roundtrip_now(r, self.steps))
            check_round(r, self.steps)
            if turns is not None:
                assert r.turns_taken <= turns, f"turn {r.turns_taken} is past the bound {turns}"
        if turns is not None:
            assert r.is_over, f"the round did not end within {budget} decisions"
        event(f"round end: {r.result.reason if r.result else 'not over'}")
        for kind in sorted({e.kind for e in r.events}):
            event(f"event seen: {kind}")
        if r.is_over:
            replayed = Round.replay(
                r.rules,
                r.action_ids,
                players=r.players,
                seed=r.seed,
                deck=r.deck,
                dealer=r.dealer,
                starter=r.starter,
            )
            assert replayed == r

    @precondition(lambda self: self._live() and bool(self.r.reactors))
    @rule(data=st.data())
    def simultaneous_snaps(self, data: st.DataObject) -> None:
        """Snaps declared together resolve as the table's arbitration says."""
        r = self.r
        reactors = list(r.reactors)
        chosen = data.draw(st.lists(st.sampled_from(reactors), min_size=1, unique=True))
        snaps = []
        for q in chosen:
            ids = [a for a in r.legal_action_ids(q) if _kind(r, a) is ActionKind.SNAP]
            snaps.append(data.draw(st.sampled_from(ids)))
        expected = r.copy()
        order = list(snaps)
        mode = r.rules.snap.arbitration
        if mode == "seat-order":
            start = r._window_discarder
            order.sort(key=lambda a: (a // r.space.per_player - start) % r.players)
        for a in order:
            if expected.can_apply(a):
                expected.apply(a)
        before = len(r.action_ids)
        events = r.resolve_snaps(snaps)
        self.steps += 1
        if mode != "random":
            assert r == expected
        applied = r.action_ids[before:]
        assert set(applied) <= set(snaps) and len(set(applied)) == len(applied)
        if r.rules.snap.per_discard == "one":
            assert sum(e.kind == EventKind.SNAP for e in events) <= 1, "two snaps both correct"

    # -- refusing
    @rule(number=st.integers(0, 2**20))
    def illegal_id(self, number: int) -> None:
        r = self.r
        legal = set(r.legal_action_ids())
        if len(legal) == r.space.size:
            return
        a = number % r.space.size
        while a in legal:
            a = (a + 1) % r.space.size
        check_illegal(r, a)
        action = r.space.decode(a)
        try:
            canonical = r.space.encode(action)
        except ValueError:
            canonical = a  # an action with no id at all (an empty mask): refused as well
        if canonical == a:
            check_illegal(r, action)
        else:
            # a one-position mask of a several-card snap decodes to the single snap, whose
            # own id is the one that is legal or not (hypothesis seed 3)
            assert r.can_apply(action) == (canonical in legal)

    @rule(action=malformed_actions)
    def malformed_action(self, action: Action) -> None:
        check_malformed(self.r, action)

    @rule(thing=not_actions)
    def not_an_action(self, thing: Any) -> None:
        check_illegal(self.r, thing)

    @precondition(lambda self: len(self.r.action_ids) > 0)
    @rule(back=st.integers(1, 5))
    def stale_action(self, back: int) -> None:
        """An action that was legal earlier and is not now is refused."""
        r = self.r
        old = r.actions[-min(back, len(r.action_ids))]
        if not r.can_apply(old):
            check_illegal(r, old)

    # -- after every rule
    @invariant()
    def consistent(self) -> None:
        check_round(self.r, self.steps)


TestRounds = RoundMachine.TestCase
TestRounds.settings = settings(
    max_examples=max(default_examples(), 60),
    stateful_step_count=20 if CI else 30,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    deadline=None,
)


# --------------------------------------------------------------------------- the match machine


def match_tables() -> st.SearchStrategy[RuleSet]:
    """Profiles as they are; generated tables with a short match (single, or 1-3 rounds),
    since their scores may never reach a limit."""

    def short(rules: RuleSet, rounds: int) -> RuleSet:
        match = attrs.evolve(rules.match, end="single", rounds=0)
        if rounds:
            match = attrs.evolve(rules.match, end="rounds", rounds=rounds)
        return attrs.evolve(rules, match=match)

    generated = st.builds(short, rulesets(), st.integers(0, 3)).filter(can_end)
    return st.one_of(profiles, generated)


def match_choice(m: Match, rng: random.Random, patience: int) -> int:
    r = m.round
    inner = ending_choice(r, rng, patience)
    seats = m.round_seats
    action = r.space.decode(inner)
    out = Action(
        action.kind,
        seats[action.player],
        tuple((seats[o], p) for o, p in action.positions),
    )
    return m.space.encode(out)


def check_match(m: Match, sample: int = 0) -> None:
    sp = m.space
    everyone: list[int] = []
    for s in range(m.players):
        ids = m.legal_action_ids(s)
        assert ids == sorted(set(ids))
        assert all(a // sp.per_player == s for a in ids)
        assert [a for a, x in enumerate(m.legal_action_mask(s)) if x] == ids
        assert m.legal_actions(s) == [sp.decode(a) for a in ids]
        for a in ids:
            assert m.can_apply(a)
        everyone.extend(ids)
    assert sorted(m.legal_action_ids()) == sorted(everyone)
    legal = set(everyone)
    stride = max(1, sp.size // 200)
    for a in range(sample % stride, sp.size, stride):
        if a not in legal:
            assert not m.can_apply(a)
    if m.is_over:
        res = m.result
        assert res is not None and everyone == [] and m.to_act is None
        assert res.winners and all(0 <= w < m.players for w in res.winners)
        for s in range(m.players):
            unit_rounds = [rec for rec in res.rounds if rec.scores[s] is not None]
            summed = sum(rec.scores[s] or 0 for rec in unit_rounds)
            summed += sum(rec.adjustments[s] for rec in res.rounds)
            if m.rules.teams.size == 1:
                assert res.totals[s] == summed, f"seat {s}'s total is not its rounds' sum"
        assert len(res.rounds) <= MAX_ROUNDS + MAX_EXTRA_ROUNDS
    else:
        r = m.round
        check_cards(r)
        assert sorted(m.round_seats) == list(m.round_seats)
        who = m.to_act
        assert who is not None and m.legal_action_ids(who)


class MatchMachine(RuleBasedStateMachine):
    """Play whole matches, checking the match's legality, its rounds' cards and the end."""

    def __init__(self) -> None:
        super().__init__()
        self.m: Match = Match(RuleSet(), 2, seed=0)
        self.steps = 0

    def _start(self, rules: RuleSet, data: st.DataObject) -> None:
        players = data.draw(st.sampled_from(seat_counts(rules)), label="players")
        seed = data.draw(st.integers(0, 2**64), label="seed")
        self.m = Match(rules, players, seed=seed)
        check_match(self.m)

    @initialize(rules=match_tables(), data=st.data())
    def start(self, rules: RuleSet, data: st.DataObject) -> None:
        self._start(rules, data)

    @precondition(lambda self: self.m.is_over)
    @rule(rules=match_tables(), data=st.data())
    def start_again(self, rules: RuleSet, data: st.DataObject) -> None:
        self._start(rules, data)

    def _live(self) -> bool:
        return not self.m.is_over

    @precondition(_live)
    @rule(pick=st.integers(0, 2**16))
    def act(self, pick: int) -> None:
        m = self.m
        who = m.to_act
        assert who is not None
        ids = m.legal_action_ids(who)
        quiet = [a for a in ids if m.space.decode(a).kind is not ActionKind.SNAP] or ids
        self.steps += 1
        m.apply(quiet[pick % len(quiet)])

    @precondition(_live)
    @rule(patience=st.integers(0, 15), seed=st.integers(0, 2**32), rounds=st.integers(1, 3))
    def play_rounds(self, patience: int, seed: int, rounds: int) -> None:
        """Play on with the ending chooser for a few rounds (or to the end of the match)."""
        m = self.m
        rng = random.Random(seed)
        target = len(m.records) + rounds
        while self._live() and len(m.records) < target:
            r = m.round
            turns = turn_bound(r, patience)
            assert turns is not None, "match tables are chosen so that rounds end"
            budget = (turns - r.turns_taken + 2) * decisions_per_turn(r) + 2 * r.players
            number = m.round_number
            for _ in range(budget):
                if not self._live() or m.round_number != number:
                    break
                self.steps += 1
                m.apply(match_choice(m, rng, patience))
                check_match(m, self.steps)
            assert m.round_number != number or m.is_over, "a round did not end"
        if len(m.records) % 2 == 0 or m.is_over:
            assert Match.from_json(m.to_json()) == m

    @precondition(_live)
    @rule(save=st.booleans())
    def redeal(self, save: bool) -> None:
        """The house abandons the round and deals again: the totals and seats stay."""
        m = self.m
        totals, number, seats = m.totals, m.round_number, m.round_seats
        records = len(m.records)
        m.redeal()
        assert (m.totals, m.round_number, m.round_seats) == (totals, number, seats)
        assert len(m.records) >= records  # a deal with no stock may end its round at once
        if save:
            assert Match.from_json(m.to_json()) == m

    @precondition(_live)
    @rule(data=st.data())
    def change_rules(self, data: st.DataObject) -> None:
        """The house changes rules that keep the match's seats and actions."""
        m = self.m
        rules = m.rules
        snap = rules.snap
        per_discard = data.draw(st.sampled_from(("one", "each")))
        new = attrs.evolve(
            rules,
            name=data.draw(st.sampled_from(("house", rules.name))),
            call=attrs.evolve(rules.call, penalty=data.draw(st.integers(-10, 10))),
            snap=attrs.evolve(
                snap,
                per_discard=per_discard,
                too_late="void" if per_discard == "each" else snap.too_late,
                last_discard=data.draw(st.booleans()),
            ),
            match=attrs.evolve(
                rules.match, starter=data.draw(st.sampled_from(("first-seat", "last-winner")))
            ),
        )
        round_rules = m.round.rules
        m.change_rules(new)
        assert m.round.rules is round_rules
        if data.draw(st.booleans()):
            assert Match.from_json(m.to_json()) == m

    @rule(number=st.integers(0, 2**20))
    def illegal_id(self, number: int) -> None:
        m = self.m
        legal = set(m.legal_action_ids())
        a = number % m.space.size
        if a in legal:
            return
        before = m.copy()
        assert not m.can_apply(a)
        with pytest.raises(IllegalActionError):
            m.apply(a)
        assert m == before

    @invariant()
    def consistent(self) -> None:
        check_match(self.m, self.steps)


TestMatches = MatchMachine.TestCase
TestMatches.settings = settings(
    max_examples=max(12, default_examples() // 4),
    stateful_step_count=8 if CI else 12,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    deadline=None,
)


# --------------------------------------------------------------------------- every profile, once

_EVERY_PROFILE_SEEDS = range(2) if CI else range(4)


@pytest.mark.parametrize("name", PROFILES)
def test_every_profile_plays_to_the_end_under_the_checks(name: str) -> None:
    """Each profile at its lowest and highest seat count, to the end, checked throughout
    (the state machine samples profiles; this makes sure none is ever left out)."""
    rules = PROFILE_RULES[name]
    counts = seat_counts(rules)
    for seed in _EVERY_PROFILE_SEEDS:
        players = counts[0] if seed % 2 == 0 else counts[-1]
        r = Round(rules, players, seed=seed)
        rng = random.Random(seed)
        patience = 4 + 6 * seed
        turns = turn_bound(r, patience)
        assert turns is not None
        budget = (turns + 2) * decisions_per_turn(r) + 2 * players
        for step in range(budget):
            if r.is_over:
                break
            apply_checked(r, ending_choice(r, rng, patience), roundtrip_now(r, step))
            check_round(r, step)
        assert r.is_over


# --------------------------------------------------------------------------- engine bugs found


def test_a_deal_with_an_empty_stock_ends_or_leaves_a_move() -> None:
    """Bug 1 (fixed): the deal left the stock empty and the first player no move."""
    rules = _empty_stock_deal_table()
    assert cambio.check_rules(rules) == []
    r = Round(rules, seed=1)
    assert r.stock_size == 0
    assert r.is_over or r.legal_action_ids(r.to_act)


def test_a_forfeit_that_empties_the_stock_ends_the_round() -> None:
    """Bug 2 (fixed): a two-card forfeit emptied the stock and left the turn stuck."""
    rules = _penalty_runs_out_table()
    assert cambio.check_rules(rules) == []
    r = Round(rules, deck=["1", "2", "2", "1", "2"])
    r.apply(Action.draw(0))
    r.apply(Action.discard(0))  # the window on the discarded 1 stays open into P1's turn
    r.apply(Action.snap(1, (1, 1)))  # a wrong snap: two forfeit cards, one in the stock
    assert r.stock_size == 0
    assert r.is_over, "the stock ran out before P1 could draw: the round ends"
    assert r.result is not None and r.result.reason == "stock"


@pytest.mark.parametrize("rank", ["1H", ".1", 'x"S', "Ä"])
def test_a_round_with_any_custom_rank_name_saves_and_loads(rank: str) -> None:
    """Bug 5 (fixed): cards were saved as text, and such rank names did not read back.
    (Names with spaces, which it also tried, are refused since positions write them.)"""
    rules = RuleSet(
        deck=DeckRules(custom={rank: 15, "2": 15}),
        values=ValueRules(rank={rank: 1, "2": 2}, red={}),
        powers=PowerRules(table=()),
    )
    assert cambio.check_rules(rules) == []
    r = Round(rules, 2, seed=3)
    r.apply(r.legal_action_ids()[0])
    assert Round.from_json(r.to_json()) == r


def test_a_high_card_first_dealer_is_found_when_every_card_ties() -> None:
    """Bug 7 (fixed): on a one-rank deck the high-card draws tied forever."""
    rules = _one_rank_high_card_table()
    assert cambio.check_rules(rules) == []
    with time_limit(2):
        m = Match(rules, 3, seed=0)
    assert 0 <= m.dealer < 3


def _give_empties_stock_table() -> RuleSet:
    """Found by the save fuzz (seed 0): too-late snaps during a give drew the stock empty."""
    return RuleSet(
        name="",
        summary="",
        players=PlayerRules(min=9, max=12, default=12),
        deck=DeckRules(decks=7, jokers=3, ranks=("3", "9", "J"), custom={}),
        values=ValueRules(rank={"3": 15, "9": 21, "J": 25, "Joker": 28}, red={}, black={}),
        grid=GridRules(rows=(1, 3, 3), extra=5),
        opening=OpeningRules(positions=(5, 7, 1, 3, 2, 6), count=4, re_peek=True),
        turn=TurnRules(
            take_discard=False, exchange_equal=False, exchange_failure="keep-drawn", max_turns=193
        ),
        powers=PowerRules(
            timing="discard",
            optional=False,
            swapped_out=True,
            swapped_out_from="any",
            table=(
                Power(
                    ranks=("9", "J", "3"),
                    steps=(Step(action="swap", scope="any-two", optional=True, seen=False),),
                    colour="black",
                    name="",
                ),
                Power(
                    ranks=("Joker",),
                    steps=(
                        Step(action="swap", scope="other-other", optional=True, seen=True),
                        Step(action="swap", scope="own-other", optional=False, seen=True),
                    ),
                    colour="any",
                    name="",
                ),
            ),
        ),
        snap=SnapRules(
            when="after-other-discard",
            targets="any",
            match="rank",
            several=False,
            penalty_cards=3,
            penalty_peekable=True,
            wrong_seen_by="all",
            wrong_other_seen_by="snapper",
            wrong_shown="unmatched",
            arbitration="first",
            per_discard="one",
            too_late="penalty",
            last_discard=False,
            penalty_position="first-empty",
            empty_grid="nothing",
            empty_grid_calls="at-once",
        ),
        call=CallRules(
            allowed=True,
            timing="before-draw",
            earliest=1,
            final_turns=3,
            caller_final_turn=False,
            caller_locked=True,
            penalty=6,
            bonus=15,
            tie_is_lowest=True,
            lowest_scores_zero=True,
        ),
        scoring=ScoringRules(
            winner_scores_zero=True,
            tie_break=("share",),
            combination=CombinationRules(ranks=("Joker",), holder=41, others=100),
            placement={
                "11": (3, 10, 1, -5, 0, -4, 9, 10, 4, 5),
                "9": (),
                "12": (10, -9, -10, -1, 4, 10, -1, 8, -1, -2, 9, -6),
            },
        ),
        stock=StockRules(on_empty="end"),
        match=MatchRules(
            end="elimination",
            limit=137,
            at_limit=True,
            rounds=14,
            tie="extra-round",
            exact_limit="once",
            first_dealer="high-card",
            starter="left-of-dealer",
        ),
        teams=TeamRules(size=3),
    )


def test_a_give_that_returns_to_a_turn_with_no_stock_ends_the_round() -> None:
    """Bug 8 (fixed): penalties drawn while a snapper chose its give emptied the stock;
    the give then returned to a turn whose holder could neither draw nor do anything."""
    ids = (21, 10647, 21270, 31906, 42529, 53164, 63790, 74429, 85052, 95680, 106313, 116939, 0)
    ids += (26, 32086, 8396, 21537, 53341, 10853, 106547, 117168, 74613, 95936, 85283, 64059)
    ids += (42806,)
    r = Round(_give_empties_stock_table(), 12, seed=536870911)
    for a in ids:
        r.apply(a)
    assert r.phase.name == "GIVE" and r.stock_size == 0
    r.apply(10955)  # the give: back to P1's turn, which cannot draw
    assert r.is_over and r.result is not None and r.result.reason == "stock"
    ensure_consistent(r)


def test_an_emptied_grid_that_ends_the_round_is_scored_as_usual() -> None:
    """Bug 9 (fixed): under snap.empty_grid = "end" the invariant checker scored the
    emptied grid as an outright winner and refused the engine's (correct) result."""
    rules = RuleSet(
        name="",
        summary="",
        players=PlayerRules(min=3, max=6, default=6),
        deck=DeckRules(decks=2, jokers=0, ranks=("5", "10", "J"), custom={}),
        values=ValueRules(
            rank={"5": 11, "10": -4, "J": -14}, red={"5": -3, "10": 5}, black={"5": 13}
        ),
        grid=GridRules(rows=(1,), extra=6),
        opening=OpeningRules(positions=(), count=0, re_peek=False),
        turn=TurnRules(
            take_discard=True, exchange_equal=False, exchange_failure="keep-drawn", max_turns=55
        ),
        powers=PowerRules(
            timing="draw",
            optional=False,
            swapped_out=True,
            swapped_out_from="stock",
            table=(
                Power(
                    ranks=("J",),
                    steps=(
                        Step(action="swap", scope="any-two", optional=False, seen=True),
                        Step(action="peek", scope="own", optional=True, seen=False),
                        Step(action="peek", scope="other", optional=False, seen=False),
                        Step(action="peek", scope="own", optional=True, seen=False),
                    ),
                    colour="red",
                    name="",
                ),
            ),
        ),
        snap=SnapRules(
            when="any-time",
            targets="own",
            match="rank",
            several=True,
            penalty_cards=1,
            penalty_peekable=True,
            wrong_seen_by="snapper",
            wrong_other_seen_by="nobody",
            wrong_shown="all",
            arbitration="first",
            per_discard="one",
            too_late="void",
            last_discard=True,
            penalty_position="first-empty",
            empty_grid="end",
            empty_grid_calls="at-once",
        ),
        call=CallRules(
            allowed=False,
            timing="before-draw",
            earliest=3,
            final_turns=1,
            caller_final_turn=True,
            caller_locked=True,
            penalty=-16,
            bonus=15,
            tie_is_lowest=False,
            lowest_scores_zero=False,
        ),
        scoring=ScoringRules(
            winner_scores_zero=False,
            tie_break=("caller", "fewer-cards", "caller"),
            combination=CombinationRules(ranks=("5",), holder=45, others=44),
            placement={},
        ),
        stock=StockRules(on_empty="recycle"),
        match=MatchRules(
            end="rounds",
            limit=475,
            at_limit=True,
            rounds=10,
            tie="extra-round",
            exact_limit="once",
            first_dealer="high-card",
            starter="worst-hand",
        ),
        teams=TeamRules(size=1),
    )
    ids = (0, 5, 583, 590, 1166, 632, 1173, 1749, 1756, 1994, 1755, 0, 5, 583, 588, 1166, 1173)
    ids += (1749, 1756, 0, 5, 583, 590, 1166, 1171, 1749, 1756, 1812, 0, 7, 583, 588, 1166)
    ids += (1173, 1749, 1757, 1833, 1785, 1777, 1785, 0, 1222, 382, 7, 583, 590, 1166, 1171)
    ids += (1749, 1757, 0, 5, 583, 590, 1166, 1174, 1041, 1749, 1754, 0, 5, 583, 590, 1166)
    ids += (1174, 1749, 1757, 1812, 0, 252, 14, 1041, 21, 14, 7, 370, 42)
    r = Round.replay(rules, ids, players=4, seed=1799705)
    assert r.result is not None and r.result.reason == "empty-grid"
    assert r.result.winners == (2,)  # the lowest total wins, not the emptied grid
    ensure_consistent(r)
    assert Round.from_json(r.to_json()) == r
