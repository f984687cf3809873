"""The engine's caches never go stale.

A round caches its legal actions until the next action, and its snap and replace
actions until a grid gains or loses a card (or, where the caller's grid is locked,
until somebody calls); rounds still at the deal's layout share the latter cache; it
keeps ``to_act`` as a plain attribute, set after every action. At every decision of
random rounds, on every bundled table and on generated ones, the cached answers must
equal the ones computed afresh with every cache dropped.

Views are built incrementally per player (see :class:`cambio.views.GridCache`): after
every action of random rounds, each seat's view must equal one built with every cache
dropped, for seats viewed at every step and for seats viewed now and then, in copies,
loaded saves and unpickled rounds too.
"""

from __future__ import annotations

import pickle
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cambio
from cambio import Round
from cambio.views import GridCache
from decks import random_step, seat_counts
from strategies import rulesets


def _fresh(r: Round, p: int) -> tuple[list[int], list[int]]:
    """``p``'s legal ids and legal snap ids with every cache of ``r`` dropped."""
    saved = r._layout_cache, r._legal_of, r._legal_ids
    r._drop_caches()
    try:
        return r.legal_action_ids(p), r.legal_snap_ids(p)
    finally:
        r._layout_cache, r._legal_of, r._legal_ids = saved


def _check_round(r: Round, seed: int, steps: int) -> int:
    rng = random.Random(seed)
    checked = 0
    for _ in range(steps):
        if r.is_over:
            break
        for p in range(r.players):
            assert (r.legal_action_ids(p), r.legal_snap_ids(p)) == _fresh(r, p)
            checked += 1
        assert r.reactor_snaps() == [
            (q, tuple(ids)) for q in r.reactors if (ids := _fresh(r, q)[1])
        ]
        who = r.to_act
        assert who is not None and who == r._who_acts()  # kept up to date, not computed
        options = list(r.legal_action_ids(who))
        for q in r.reactors:
            options.extend(r.legal_snap_ids(q))
        r.apply(rng.choice(options))
    return checked


def test_cached_legal_actions_match_fresh_ones_on_every_table() -> None:
    checked = 0
    for name in cambio.available_variants():
        rules = cambio.load_ruleset(name)
        for seed in range(3):
            # two rounds side by side: they share the deal's cache until one moves on
            a, b = Round(rules, seed=seed), Round(rules, seed=seed + 100)
            checked += _check_round(a, seed, 120)
            checked += _check_round(b, seed + 1, 120)
    assert checked > 1000


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(rulesets(), st.integers(0, 2**32))
def test_cached_legal_actions_match_fresh_ones_on_generated_tables(
    rules: cambio.RuleSet, seed: int
) -> None:
    r = Round(rules, random.Random(seed).choice(seat_counts(rules)), seed=seed)
    _check_round(r, seed, 150)
    copy = Round(rules, r.players, seed=seed)  # a new round of the same table, same space
    _check_round(copy, seed + 1, 60)


# --- views: built incrementally per player, equal to views built from scratch ---------


def _fresh_view(r: Round, p: int) -> cambio.PlayerView:
    """``p``'s view with every cache a view reads dropped: the grids, the history, the
    discard pile's cards and the grids' presence flags all built from scratch."""
    saved = (
        r._grid_cache,
        r._histories,
        r._discard_seen,
        r._discard_cards,
        r._present_of,
        r._present,
    )
    r._grid_cache = GridCache(r._events, r._slots, r._known, r.deck, r.players)
    r._histories = [() for _ in range(r.players)]
    r._discard_seen, r._discard_cards = [], ()
    r._present_of, r._present = [], ()
    try:
        return r.view(p)
    finally:
        (
            r._grid_cache,
            r._histories,
            r._discard_seen,
            r._discard_cards,
            r._present_of,
            r._present,
        ) = saved


def _check_views(r: Round, seed: int, steps: int) -> int:
    """Play ``r`` at random; after every action compare incremental views with fresh ones:
    every seat's at every step, and also a sparse viewer's (a seat viewed only now and
    then, so its cache catches up over many events at once), and a copy's."""
    rng = random.Random(seed)
    n = r.players
    sparse = rng.randrange(n)
    checked = 0
    for step in range(steps):
        for p in range(n):
            if p == sparse and rng.random() < 0.7:
                continue  # this seat's cache falls behind
            view = r.view(p)
            assert view == _fresh_view(r, p), (p, step)
            checked += 1
        if step % 17 == 5:
            # a copy builds its own cache: its views, and the original's after the copy
            # moves on, are both right
            twin = r.copy()
            for p in range(n):
                assert twin.view(p) == _fresh_view(twin, p)
            if not twin.is_over:
                random_step(twin, random.Random(seed + step))
                for p in range(n):
                    assert twin.view(p) == _fresh_view(twin, p)
        if r.is_over:
            break
        random_step(r, rng)
    return checked


def test_incremental_views_match_fresh_ones_on_every_table() -> None:
    checked = 0
    for name in cambio.available_variants():
        rules = cambio.load_ruleset(name)
        for seed in range(6):
            fits = seat_counts(rules)
            n = fits[seed % len(fits)]
            checked += _check_views(Round(rules, n, seed=seed), seed, 200)
    assert checked > 3000


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(rulesets(), st.integers(0, 2**32))
def test_incremental_views_match_fresh_ones_on_generated_tables(
    rules: cambio.RuleSet, seed: int
) -> None:
    r = Round(rules, random.Random(seed).choice(seat_counts(rules)), seed=seed)
    _check_views(r, seed, 200)


def test_a_saved_round_and_a_pickled_one_view_like_the_original() -> None:
    rng = random.Random(4)
    for name in cambio.available_variants():
        r = Round(name, seed=4)
        for _ in range(25):
            if r.is_over:
                break
            random_step(r, rng)
            for p in range(r.players):
                r.view(p)  # warm every cache
        loaded = Round.from_json(r.to_json())
        unpickled = pickle.loads(pickle.dumps(r))
        for p in range(r.players):
            assert loaded.view(p) == r.view(p) == unpickled.view(p) == _fresh_view(r, p)
        if not r.is_over:
            step = random.Random(5)
            random_step(unpickled, step)
            random_step(r, random.Random(5))
            for p in range(r.players):
                assert unpickled.view(p) == r.view(p) == _fresh_view(r, p)


def test_the_memory_bots_memory_follows_changed_rows_like_a_full_reading() -> None:
    """The memory bot rereads only the grid rows a view changed; at every decision of
    memory-bot rounds on every bundled table its memory equals a full reading."""
    from cambio.bots import MemoryBot, play_round

    class Checked(MemoryBot):
        checked = 0

        def _observe(self, view: cambio.PlayerView) -> None:
            super()._observe(view)
            fresh = MemoryBot()
            fresh.reset(self.seat, self._rules_or_fail(), None)
            fresh._observe(view)
            assert self._remembered == fresh._remembered
            assert self._points == fresh._points
            assert self._remembered_sum == fresh._remembered_sum
            assert self._mean == fresh._mean
            Checked.checked += 1

    for name in cambio.available_variants():
        rules = cambio.load_ruleset(name)
        bots = [Checked() for _ in range(rules.players.default)]
        for seed in range(3):
            play_round(Round(rules, seed=seed), bots, seed=seed)
    assert Checked.checked > 1000


def test_rounds_built_from_a_state_name_who_acts() -> None:
    # a load, a written position and a determinization set the state directly: each
    # must work out to_act afresh, as play does after every action
    from cambio.determinize import determinize

    checked = 0
    for name in cambio.available_variants():
        rules = cambio.load_ruleset(name)
        for seed in range(2):
            r = Round(rules, seed=seed)
            rng = random.Random(seed)
            for _ in range(rng.randrange(5, 60)):
                if r.is_over:
                    break
                who = r.to_act
                assert who is not None
                r.apply(rng.choice(r.legal_action_ids(who)))
            loaded = Round.from_json(r.to_json())
            assert loaded.to_act == r.to_act == r._who_acts()
            assert Round.from_position(rules, r.position()).to_act == r.to_act
            if not r.is_over:
                for p in range(r.players):
                    sample = determinize(r.view(p), rules, random.Random(seed))
                    assert sample.to_act == r.to_act
            checked += 1
    assert checked > 10


def test_a_clone_shares_every_attribute_and_a_copy_equals_its_round() -> None:
    # Round._clone names every slot by hand (the fastest copy): one it forgot would be
    # missing from copies and determinized rounds
    from cambio.round import _ATTRIBUTES

    for name in ("practice", "snap", "penalty"):
        r = Round(cambio.load_ruleset(name), seed=3)
        rng = random.Random(3)
        for _ in range(25):
            who = r.to_act
            if who is None:
                break
            r.apply(rng.choice(r.legal_action_ids(who)))
        clone = r._clone()
        assert len(_ATTRIBUTES) == len(set(_ATTRIBUTES)) > 80
        for attr in _ATTRIBUTES:  # an attribute the clone missed is unset: getattr raises
            mine, its = getattr(clone, attr), getattr(r, attr)
            assert mine is its or (type(its) is int and mine == its), attr  # (boxed ints)
        copy = r.copy()
        assert copy == r and copy.to_act == r.to_act
        assert copy._fields().keys() == r._fields().keys()


def test_the_engines_local_ids_are_the_action_spaces() -> None:
    # round.py names the simple actions' local ids as constants and dispatches on them
    from cambio.actions import ActionKind
    from cambio.round import _CALL, _DISCARD, _DRAW, _PASS, _REPEEK, _SKIP, _TAKE

    for name in cambio.available_variants():
        r = Round(cambio.load_ruleset(name), seed=0)
        sp = r.space
        assert sp.o_opening == _SKIP + 1
        named = {
            _DRAW: ActionKind.DRAW,
            _TAKE: ActionKind.TAKE,
            _CALL: ActionKind.CALL,
            _PASS: ActionKind.PASS,
            _REPEEK: ActionKind.RE_PEEK,
            _DISCARD: ActionKind.DISCARD,
            _SKIP: ActionKind.SKIP,
        }
        for local, kind in named.items():
            assert sp.decode(sp.per_player + local).kind is kind
