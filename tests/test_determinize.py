"""Determinization: a sampled round keeps the view, conserves the deck, hides nothing.

* At random points of random rounds on every bundled profile (and the club table of
  the examples, which turns on the rarer snapping rules), a round sampled from a
  player's view shows that player the very same view (history included), passes every
  state invariant, offers that player the same legal actions, keeps every card the
  player knows in place, holds exactly the table's deck, and plays on legally.
* The function reads the view and the rules only: two real rounds that differ only in
  cards a player never saw give that player identical samples under the same seed.
* The unseen cards are uniform over the consistent assignments (a chi-squared test on
  a deck small enough to count them), also on a table whose powers fire on the draw,
  where a card another player drew is tied to the steps it was seen to take.
"""

from __future__ import annotations

import importlib
import inspect
import itertools
import math
import random
from collections import Counter
from pathlib import Path

import attrs
import pytest

import cambio
from cambio import Round
from cambio.determinize import DeterminizeError, InfoSet, determinize
from cambio.invariants import ensure_consistent
from cambio.rules import (
    DeckRules,
    GridRules,
    OpeningRules,
    PlayerRules,
    PowerRules,
    RuleSet,
    ValueRules,
)

PROFILES = cambio.available_variants()
CLUB = Path(__file__).resolve().parents[1] / "examples" / "club_table.toml"
TABLES = PROFILES + ([str(CLUB)] if CLUB.is_file() else [])


def _players(rules: RuleSet, rng: random.Random) -> int:
    n = rng.randint(rules.players.min, min(rules.players.max, 4))
    size = rules.teams.size
    if size > 1:
        n = max(size, n - n % size)
    return n


def _step(real: Round, rng: random.Random) -> None:
    """One random legal action of anyone; calls are rare, so that rounds also reach
    snaps, penalties and recycling."""
    ids = real.legal_action_ids(None)
    calls = [a for a in ids if real.space.decode(a).kind is cambio.ActionKind.CALL]
    if calls and len(ids) > len(calls) and rng.random() < 0.9:
        ids = [a for a in ids if a not in calls]
    real.apply(rng.choice(ids))


def _check_sample(real: Round, player: int, rng: random.Random) -> None:
    view = real.view(player)
    sample = determinize(view, real.rules, random.Random(rng.getrandbits(32)))
    ensure_consistent(sample)
    assert sample.view(player) == view
    assert sample.legal_actions(player) == real.legal_actions(player)
    assert Counter(sample.deck) == Counter(real.rules.deck.cards())
    for owner, row in enumerate(view.grids):
        hand = sample.hand(owner)
        for i, card in enumerate(row):
            if card is not None:
                assert hand[i] == card
    assert sample.discard_pile == real.discard_pile
    assert sample.stock_size == real.stock_size
    # the sample plays on: a few random actions, each leaving a consistent state
    for _ in range(6):
        if sample.is_over:
            break
        sample.apply(rng.choice(sample.legal_action_ids(None)))
        ensure_consistent(sample)


@pytest.mark.parametrize("name", TABLES, ids=lambda t: Path(t).stem)
def test_samples_keep_the_view_on_every_profile(name: str) -> None:
    rules = cambio.load_ruleset(name)
    checked = 0
    for seed in range(2):
        rng = random.Random(f"{name}:{seed}")
        real = Round(rules, _players(rules, rng), seed=seed)
        steps = 0
        while not real.is_over and steps < 300:
            if rng.random() < 0.12:
                _check_sample(real, rng.randrange(real.players), rng)
                checked += 1
            _step(real, rng)
            steps += 1
    assert checked > 0


def test_recycled_stock_is_drawn_from_the_recycled_cards() -> None:
    rules = cambio.load_ruleset("snap")
    rng = random.Random(5)
    real = Round(rules, 2, seed=5)
    recycled = 0
    while not real.is_over and recycled < 25:
        ids = real.legal_action_ids(None)
        kinds = {a: real.space.decode(a).kind for a in ids}
        ids = [a for a in ids if kinds[a] is not cambio.ActionKind.CALL] or ids
        real.apply(rng.choice(ids))
        if real._recycles and not real.is_over:
            recycled += 1
            _check_sample(real, rng.randrange(2), rng)
            view = real.view(0)
            sample = determinize(view, rules, random.Random(recycled))
            # the stock now holds recycled cards only: each was once face up for all
            public = {c for e in view.history if e.seen_by is None for c in e.cards}
            assert {sample.deck[c] for c in sample._stock} <= public
    assert recycled > 0, "the round never recycled: pick another seed"


def test_the_function_reads_the_view_and_the_rules_only() -> None:
    assert list(inspect.signature(determinize).parameters) == ["view", "rules", "rng"]
    rules = cambio.load_ruleset("practice")
    base = Round(rules, 2, seed=9)
    deck = list(base.deck)
    # swap seat 1's first card with the bottom card of the stock: seat 0 sees neither
    deck[4], deck[-1] = deck[-1], deck[4]
    other = Round(rules, 2, deck=deck, seed=9)
    assert base.hand(1) != other.hand(1)
    rng = random.Random(3)
    compared = 0
    while not base.is_over:
        view = base.view(0)
        if view != other.view(0):
            break
        for k in range(2):
            a = determinize(view, rules, random.Random(k))
            b = determinize(other.view(0), rules, random.Random(k))
            assert a == b
            compared += 1
        ids = base.legal_action_ids(None)
        assert ids == other.legal_action_ids(None)
        action = rng.choice(ids)
        base.apply(action)
        other.apply(action)
    assert compared >= 6


_D = importlib.import_module("cambio.determinize")


def _cold_info(view: cambio.PlayerView, rules: RuleSet) -> InfoSet:
    """An InfoSet read from the deal, whatever determinize keeps of earlier views."""
    reads, last = dict(_D._READS), list(_D._LAST)
    _D._READS.clear()
    _D._LAST.clear()
    try:
        return InfoSet(view, rules, evidence=True)
    finally:
        _D._READS.clear()
        _D._READS.update(reads)
        _D._LAST[:] = last


@pytest.mark.parametrize("name", TABLES, ids=lambda t: Path(t).stem)
def test_a_kept_reading_gives_what_a_fresh_one_gives(name: str) -> None:
    # determinize keeps how far it read each player's history and reads on from there
    # at that player's next view: the samples and the evidence must be the same as
    # from a reading that starts at the deal
    rules = cambio.load_ruleset(name)
    rng = random.Random(f"kept:{name}")
    compared = 0
    for seed in range(4):
        real = Round(rules, _players(rules, rng), seed=seed)
        steps = 0
        while not real.is_over and steps < 200:
            if rng.random() < 0.3:
                player = rng.randrange(real.players)
                view = real.view(player)
                draw = rng.getrandbits(32)
                warm = determinize(view, rules, random.Random(draw))
                again = determinize(view, rules, random.Random(draw))  # the same object
                info = _cold_info(view, rules)
                assert info.sample(random.Random(draw)) == warm == again
                assert InfoSet(view, rules, evidence=True).evidence == info.evidence
                compared += 1
            _step(real, rng)
            steps += 1
    assert compared >= 4


def test_info_set_samples_differ_and_repeat_under_a_seed() -> None:
    real = Round("practice", players=3, seed=21)
    info = InfoSet(real.view(1), real.rules)
    first = [info.sample(random.Random(s)).deck for s in range(5)]
    again = [info.sample(random.Random(s)).deck for s in range(5)]
    assert first == again
    assert len(set(first)) == 5


def test_a_forged_view_is_refused() -> None:
    real = Round("practice", players=3, seed=2)
    view = real.view(0)
    with pytest.raises(DeterminizeError):
        determinize(view, cambio.load_ruleset("five-card"), random.Random(1))
    forged = attrs.evolve(view, stock_size=view.stock_size + 1)
    with pytest.raises(DeterminizeError):
        determinize(forged, real.rules, random.Random(1))
    with pytest.raises(TypeError):
        determinize(real, real.rules, random.Random(1))  # type: ignore[arg-type]
    with pytest.raises(DeterminizeError, match="deal"):
        determinize(attrs.evolve(view, history=()), real.rules, random.Random(1))


def _chi2_bound(df: int, z: float = 3.72) -> float:
    """The chi-squared value that a uniform draw exceeds with probability about 1e-4
    (the Wilson-Hilferty approximation)."""
    h = 2.0 / (9.0 * df)
    return df * (1.0 - h + z * math.sqrt(h)) ** 3


def _chi2(counts: Counter[object], cells: int, draws: int) -> float:
    expected = draws / cells
    seen = sum((c - expected) ** 2 / expected for c in counts.values())
    return seen + (cells - len(counts)) * expected


def _small_rules() -> RuleSet:
    return attrs.evolve(
        RuleSet(),
        name="tiny",
        players=PlayerRules(min=2, max=2, default=2),
        deck=DeckRules(ranks=("A", "2")),
        values=ValueRules(rank={"A": 1, "2": 2}, red={}),
        grid=GridRules(rows=(2,), extra=2),
        opening=OpeningRules(positions=(1,), count=1),
        powers=PowerRules(table=()),
    )


def test_unseen_cards_are_uniform_over_the_consistent_assignments() -> None:
    rules = _small_rules()
    cambio.rules.ensure_valid(rules)
    real = Round(rules, 2, seed=4)
    real.apply(cambio.Action.draw(real.to_act or 0))
    view = real.view(0)
    info = InfoSet(view, rules)
    hidden = [(0, 2), (1, 1), (1, 2)]
    seen = {c for row in view.grids for c in row if c is not None} | set(view.discard)
    if view.holding is not None:
        seen.add(view.holding)
    pool = [c for c in rules.deck.cards() if c not in seen]
    cells = len(list(itertools.permutations(pool, len(hidden))))
    rng = random.Random(77)
    draws = 40 * cells
    counts: Counter[object] = Counter()
    for _ in range(draws):
        s = info.sample(rng)
        counts[tuple(s.hand(o)[p - 1] for o, p in hidden)] += 1
    assert set(counts) <= set(itertools.permutations(pool, len(hidden)))
    assert _chi2(counts, cells, draws) < _chi2_bound(cells - 1)


def test_a_power_seen_used_ties_the_drawn_card_uniformly() -> None:
    # draw-power: seat 1 draws and peeks at another's card: its card is a 9 or a 10
    # (the power is over) or a black king (a longer power, maybe under way): the table
    # cannot tell which, so each face is as likely as the unseen copies of it allow
    rules = cambio.load_ruleset("draw-power")
    for seed in range(400):
        real = Round(rules, 2, seed=seed, starter=1)
        real.apply(cambio.Action.draw(1))
        peeks = [a for a in real.legal_actions(1) if a.kind is cambio.ActionKind.PEEK]
        if peeks and peeks[0].positions[0][0] == 0:
            real.apply(peeks[0])
            break
    else:  # pragma: no cover - the seeds hold such a round
        pytest.fail("no round where seat 1 drew a peek-another card")
    view = real.view(0)
    assert view.holding is None
    info = InfoSet(view, rules)
    seen = Counter(c for row in view.grids for c in row if c is not None)
    seen.update(view.discard)

    # whether a swap may follow the peek is the drawer's secret
    assert view.phase == "drawn" and view.power is None and view.peeked == ()

    def fit(pw: cambio.rules.Power | None) -> bool:
        return pw is not None and pw.steps[0].scope == "other"

    fits = Counter(c for c in rules.deck.cards() if fit(rules.powers.power_of(c)))
    fits -= seen
    rng = random.Random(8)
    draws = 60 * len(fits)
    counts: Counter[object] = Counter()
    for _ in range(draws):
        s = info.sample(rng)
        counts[s.deck[s._drawn]] += 1
        assert s.view(0) == view
    assert set(counts) <= set(fits)
    total = sum(fits.values())
    stat = sum((counts[c] - draws * m / total) ** 2 / (draws * m / total) for c, m in fits.items())
    assert stat < _chi2_bound(len(fits) - 1)
