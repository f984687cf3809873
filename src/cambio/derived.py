"""What a round derives from its RuleSet, computed once per RuleSet.

Dealing a round needs the table's unshuffled deck and, for each card, its points, the
key snapping compares (its rank or its value) and the power it grants; playing it reads
the rule settings its decisions depend on (:class:`Settings`). These depend only on the
:class:`~cambio.rules.RuleSet`, so :func:`derived` computes them on the first round of a
RuleSet and hands the same :class:`Derived` to every later round of that object.

The cache is keyed by identity and forgets an entry when its RuleSet is garbage
collected, so two tables in one process never share an entry, and an equal but separate
RuleSet simply gets its own.
"""

from __future__ import annotations

import weakref
from _random import Random as _MersenneTwister  # the generator random.Random extends
from functools import lru_cache
from typing import Any, SupportsIndex

import attrs

from .actions import opening_choices
from .arguments import whole
from .cards import Card
from .rules import Power, RuleSet

__all__ = ["Derived", "Settings", "derived", "shuffled_range"]


class Settings:
    """The rule settings a round reads while it plays, looked up once per RuleSet.

    Each is named after what the engine asks; the RuleSet section it comes from is
    given beside it.
    """

    def __init__(self, rules: RuleSet) -> None:
        # the table these settings were read from (weakly: the cache of derived tables
        # must not keep a RuleSet alive)
        self._rules: weakref.ref[RuleSet] = weakref.ref(rules)
        grid, turn, call, snap, powers = (
            rules.grid,
            rules.turn,
            rules.call,
            rules.snap,
            rules.powers,
        )
        self.grid_size: int = grid.size  # grid.rows
        self.positions: int = grid.max_positions  # grid.rows + grid.extra
        self.opening_choices: tuple[tuple[int, ...], ...] = opening_choices(
            rules.opening.positions, rules.opening.count
        )
        # opening: whether every player sees its opening positions at the deal (there is
        # no choice to make), and those positions
        self.opening_auto: bool = rules.opening.count > 0 and not self.opening_choices
        self.opening_positions: tuple[int, ...] = tuple(sorted(rules.opening.positions))
        self.re_peek_ok: bool = rules.opening.re_peek  # opening.re_peek
        self.take_ok: bool = turn.take_discard  # turn.take_discard
        self.exchange_ok: bool = turn.exchange_equal  # turn.exchange_equal
        self.max_turns: int = turn.max_turns  # turn.max_turns
        self.open_draw: bool = turn.open_draw  # turn.open_draw
        self.call_allowed: bool = call.allowed  # call.allowed
        self.call_first: bool = call.allowed and call.timing == "before-draw"  # call.*
        self.call_last: bool = call.allowed and call.timing == "end-of-turn"
        self.earliest: int = call.earliest  # call.earliest
        self.caller_locked: bool = call.caller_locked  # call.caller_locked
        # call.caller_locked_peeks: the locked grid is closed to the others' peeks too
        self.caller_locked_peeks: bool = call.caller_locked and call.caller_locked_peeks
        self.snapping: bool = snap.when != "never"  # snap.when
        self.snap_when: str = snap.when
        self.snap_any: bool = snap.targets == "any"  # snap.targets
        self.several: bool = snap.several  # snap.several
        # snap.dealt_discard: the card the deal turns up opens a window where snaps reach it
        # (opening.upcard: without a card turned up there is none to snap)
        self.dealt_window: bool = (
            rules.opening.upcard and snap.dealt_discard and snap.when in ("any-time", "own-turn")
        )
        self.upcard: bool = rules.opening.upcard  # opening.upcard
        self.penalty_need: int = snap.penalty_cards  # snap.penalty_cards
        self.penalty_first_empty: bool = snap.penalty_position == "first-empty"
        self.penalty_blind: bool = snap.penalty_seen_by == "others"  # snap.penalty_seen_by
        self.draw_timing: bool = powers.timing == "draw"  # powers.timing
        self.swapped_out: bool = powers.swapped_out  # powers.swapped_out
        self.swapped_out_stock_only: bool = powers.swapped_out_from == "stock"
        self.recycling: bool = rules.stock.on_empty == "recycle"  # stock.on_empty
        # stock.recycle_when: recycled as soon as the stock is empty, or with one card left
        self.recycle_emptied: bool = self.recycling and rules.stock.recycle_when == "emptied"
        self.recycle_low: bool = self.recycling and rules.stock.recycle_when == "one-left"

    def __reduce__(self) -> tuple[Any, ...]:
        # pickle and copy.deepcopy read the settings again from their table: compiled by
        # mypyc, Settings has no __dict__ for the default protocol to copy
        rules = self._rules()
        assert rules is not None, "the RuleSet of these settings is gone"
        return (Settings, (rules,))


@attrs.frozen
class Derived:
    """Per-card tables of one RuleSet, index-aligned with :attr:`cards`."""

    cards: tuple[Card, ...]
    """The unshuffled deck (``RuleSet.deck.cards()``)."""
    values: tuple[int, ...]
    """Each card's points (``RuleSet.values.of``)."""
    keys: tuple[object, ...]
    """What a snap compares: each card's value where ``snap.match = "value"``, else its rank."""
    powers: tuple[Power | None, ...]
    """The power each card grants, or ``None``."""
    by_card: dict[Card, tuple[int, object, Power | None]]
    """``(value, key, power)`` of each distinct card, for prepared decks."""
    settings: Settings
    """The rule settings a round reads as it plays."""


_CACHE: dict[int, tuple[weakref.ref[RuleSet], Derived]] = {}


def derived(rules: RuleSet) -> Derived:
    """The :class:`Derived` tables of ``rules`` (computed once per RuleSet object)."""
    key = id(rules)
    hit = _CACHE.get(key)
    if hit is not None and hit[0]() is rules:
        return hit[1]
    cards = tuple(rules.deck.cards())
    by_card: dict[Card, tuple[int, object, Power | None]] = {}
    by_value = rules.snap.match == "value"
    for card in cards:
        if card not in by_card:
            value = rules.values.of(card)
            by_card[card] = (value, value if by_value else card.rank, rules.powers.power_of(card))
    table = Derived(
        cards=cards,
        values=tuple(by_card[c][0] for c in cards),
        keys=tuple(by_card[c][1] for c in cards),
        powers=tuple(by_card[c][2] for c in cards),
        by_card=by_card,
        settings=Settings(rules),
    )

    cache = _CACHE  # held here: the callback may run while the module is torn down

    def forget(_ref: weakref.ref[RuleSet]) -> None:
        cache.pop(key, None)

    _CACHE[key] = (weakref.ref(rules, forget), table)
    return table


@lru_cache(maxsize=32)
def _draws(m: int) -> tuple[tuple[int, int, int], ...]:
    # for each swap of a Fisher-Yates shuffle of m items: (i, i + 1, bits for i + 1)
    return tuple((i, i + 1, (i + 1).bit_length()) for i in reversed(range(1, m)))


def shuffled_range(seed: SupportsIndex, m: SupportsIndex) -> list[int]:
    """``list(range(m))`` shuffled exactly as ``random.Random(seed).shuffle`` would.

    The same draws as the standard library's shuffle (``getrandbits`` with rejection),
    without its per-item method calls; a test holds it equal to ``random.shuffle``.
    """
    if type(seed) is not int:
        seed = whole("seed", seed)
    m = whole("m", m)
    x = list(range(m))
    # the generator itself (random.Random without its Python-level __init__ and seed,
    # which an integer seed passes straight through to it): the same words, sooner
    getrandbits = _MersenneTwister(seed).getrandbits
    for i, n, k in _draws(m):
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        x[i], x[j] = x[j], x[i]
    return x
