"""The per-RuleSet tables a round derives once, and the shuffle that deals from them."""

from __future__ import annotations

import random

import attrs
from hypothesis import given
from hypothesis import strategies as st

import cambio
from cambio import Round, RuleSet
from cambio.derived import derived, shuffled_range


@given(st.integers(min_value=-(2**70), max_value=2**70), st.integers(min_value=0, max_value=120))
def test_shuffled_range_is_the_standard_shuffle(seed: int, m: int) -> None:
    want = list(range(m))
    random.Random(seed).shuffle(want)
    assert shuffled_range(seed, m) == want


def test_tables_are_per_ruleset_object() -> None:
    practice = RuleSet()
    by_value = attrs.evolve(practice, snap=attrs.evolve(practice.snap, match="value"))
    assert derived(practice) is derived(practice)
    assert derived(by_value) is not derived(practice)
    kings = [i for i, c in enumerate(derived(practice).cards) if c.rank == "K"]
    assert {derived(practice).keys[i] for i in kings} == {"K"}
    assert {derived(by_value).keys[i] for i in kings} == {-1, 13}


def test_a_round_deals_what_the_rules_say_for_every_profile() -> None:
    for name in cambio.available_variants():
        rules = cambio.load_ruleset(name)
        rnd = Round(rules, seed=7)
        deck = rules.deck.cards()
        random.Random(7).shuffle(deck)
        assert list(rnd.deck) == deck
        assert rnd._value == [rules.values.of(c) for c in deck]
        assert rnd._power == [rules.powers.power_of(c) for c in deck]
        prepared = Round(rules, seed=7, deck=deck)
        assert prepared == rnd
