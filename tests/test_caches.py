"""The engine's caches never go stale.

A round caches its legal actions until the next action, and its snap and replace
actions until a grid gains or loses a card (or, where the caller's grid is locked,
until somebody calls); rounds still at the deal's layout share the latter cache; it
keeps ``to_act`` as a plain attribute, set after every action. At every decision of
random rounds, on every bundled table and on generated ones, the cached answers must
equal the ones computed afresh with every cache dropped.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cambio
from cambio import Round
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
    size = rules.teams.size
    seats = [n for n in range(rules.players.min, rules.players.max + 1) if n % size == 0]
    r = Round(rules, random.Random(seed).choice(seats), seed=seed)
    _check_round(r, seed, 150)
    copy = Round(rules, r.players, seed=seed)  # a new round of the same table, same space
    _check_round(copy, seed + 1, 60)


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
