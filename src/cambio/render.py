# ruff: noqa: RUF002
# (this module writes typographic text: true minus signs, en dashes, multiplication signs)
"""Words for a rule table: a printable quick reference, every axis, and a diff of two tables.

Everything here is computed from the fields of a :class:`~cambio.rules.RuleSet`; no text
is written per table and nothing looks at a table's name. A new table (or a new value on
an existing axis) gets a correct description for free.

>>> from cambio.rules import RuleSet
>>> print(value_summary(RuleSet()))
A 1 · 2–10 face value · J 11 · Q 12 · K 13, red K −1
>>> print(grid_picture(RuleSet().grid))
[1] [2]
[3] [4]
>>> import attrs
>>> from cambio.rules import StockRules
>>> rows = diff_rows(RuleSet(), attrs.evolve(RuleSet(), stock=StockRules(on_empty="recycle")))
>>> [row.label for row in rows]
["the stock's end"]
"""

from __future__ import annotations

import itertools
import textwrap
import types
import typing
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, NamedTuple

import attrs

from .cards import JOKER, STANDARD_RANKS
from .rules import (
    CombinationRules,
    DeckRules,
    GridRules,
    OpeningRules,
    Power,
    RuleSet,
    Step,
)

__all__ = [
    "AxisRow",
    "DiffRow",
    "axis_fields",
    "describe_axes",
    "diff_rows",
    "grid_picture",
    "player_counts",
    "power_text",
    "quick_reference",
    "value_summary",
]

WIDTH = 78
"""Line width of the quick reference."""


class AxisRow(NamedTuple):
    """One axis of a table, in words.

    ``fields`` names the RuleSet fields the row describes, as dotted paths
    (``"call.penalty"``; ``[]`` marks the elements of a tuple: ``"powers.table[].steps"``).
    """

    label: str
    section: str
    value: str
    fields: tuple[str, ...]


class DiffRow(NamedTuple):
    """An axis on which two tables differ, with each table's value in words."""

    label: str
    a: str
    b: str


# ---------------------------------------------------------------------------------------
# Small word helpers

_NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def _num(value: int) -> str:
    """An integer with a true minus sign: ``−2``."""
    return f"\u2212{-value}" if value < 0 else str(value)


def _signed(value: int) -> str:
    """A score adjustment: ``+10``, ``−5``."""
    return f"+{value}" if value > 0 else _num(value)


def _word(n: int) -> str:
    """``one``, ``two``, ... ``nine``, then digits."""
    return _NUMBER_WORDS[n] if 0 <= n < len(_NUMBER_WORDS) else _num(n)


def _count(n: int, noun: str, plural: str | None = None) -> str:
    """``one card``, ``two cards``, ``12 cards``, ``no cards``."""
    return f"{_word(n)} {noun if n == 1 else (plural or noun + 's')}"


def _and(items: Sequence[str], conj: str = "and") -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    items = list(items)
    if not items:
        return ""
    if len(items) == 1:
        return items[0]
    return f"{', '.join(items[:-1])} {conj} {items[-1]}"


def _positions(positions: Sequence[int]) -> str:
    noun = "position" if len(positions) == 1 else "positions"
    return f"{noun} {_and([str(p) for p in positions])}"


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _numeric(rank: str) -> int | None:
    try:
        return int(rank)
    except ValueError:
        return None


def _rank_run(ranks: Sequence[str], order: Sequence[str]) -> str:
    """Ranks as a label: a long run of consecutive ranks as ``2–10``, else ``J/Q/K``.

    A run is written with a dash from three numeric ranks or four ranks of any kind.
    """
    idx = [order.index(r) if r in order else -1 for r in ranks]
    consecutive = all(b == a + 1 for a, b in itertools.pairwise(idx)) and -1 not in idx
    numeric = all(_numeric(r) is not None for r in ranks)
    if consecutive and (len(ranks) >= 4 or (numeric and len(ranks) >= 3)):
        return f"{ranks[0]}\u2013{ranks[-1]}"
    return "/".join(ranks)


# ---------------------------------------------------------------------------------------
# Deck, values, grid


def _has_colours(deck: DeckRules, rank: str) -> bool:
    """Whether cards of ``rank`` have a suit (so colour overrides can apply)."""
    return not deck.custom and rank != JOKER


def value_summary(rules: RuleSet, *, unused: bool = False) -> str:
    """The card values of the ranks in the deck, equal neighbours grouped.

    A numeric rank worth its own number is "face value"; a colour override follows the
    rank it changes. With ``unused``, values given to ranks the deck does not hold are
    appended (they matter when comparing tables).

    >>> import attrs
    >>> r = RuleSet()
    >>> v = attrs.evolve(r.values, rank={**r.values.rank, "J": 10, "Q": 10, "K": 10})
    >>> print(value_summary(attrs.evolve(r, values=v)))
    A 1 · 2–10 face value · J/Q/K 10, red K −1
    """
    deck, values = rules.deck, rules.values
    ranks = list(deck.rank_names())
    order = ranks

    # Each rank: the base value (None when every card of it is overridden), its overrides.
    entries: list[tuple[str, object, list[str]]] = []
    for rank in ranks:
        overrides: list[str] = []
        covered = 0
        if _has_colours(deck, rank):
            for colour, table in (("red", values.red), ("black", values.black)):
                if rank in table:
                    overrides.append(f"{colour} {rank} {_num(table[rank])}")
                    covered += 1
        base = values.rank.get(rank)
        key: object
        if covered == 2:
            key = ("alone", rank)
        elif base is None:
            key = ("missing", rank)
        elif _numeric(rank) is not None and base == _numeric(rank):
            key = "face"
        else:
            key = base
        entries.append((rank, key, overrides))

    # "Face value" needs a run of two or more; a lone face-valued rank joins its equals.
    for i, (rank, key, overrides) in enumerate(entries):
        if key != "face":
            continue
        before = i > 0 and entries[i - 1][1] == "face"
        after = i + 1 < len(entries) and entries[i + 1][1] == "face"
        if not (before or after):
            entries[i] = (rank, values.rank[rank], overrides)

    parts: list[str] = []
    i = 0
    while i < len(entries):
        j = i
        while j + 1 < len(entries) and entries[j + 1][1] == entries[i][1]:
            j += 1
        group = entries[i : j + 1]
        key = group[0][1]
        label = _rank_run([g[0] for g in group], order)
        texts: list[str] = []
        if key == "face":
            texts.append(f"{label} face value")
        elif isinstance(key, tuple) and key[0] == "missing":
            texts.append(f"{label} (no value)")
        elif isinstance(key, int):
            texts.append(f"{label} {_num(key)}")
        for g in group:
            texts.extend(g[2])
        parts.append(", ".join(texts))
        i = j + 1
    text = " · ".join(parts)

    if unused:
        extra = [
            f"{rank} {_num(v)}" for rank, v in values.rank.items() if rank not in deck.rank_names()
        ]
        for colour, table in (("red", values.red), ("black", values.black)):
            extra += [
                f"{colour} {rank} {_num(v)}"
                for rank, v in table.items()
                if rank not in deck.rank_names()
            ]
        if extra:
            text += f" (not in the deck: {', '.join(extra)})"
    return text


def deck_summary(deck: DeckRules) -> str:
    """The deck in words: ``one deck of 52 cards + two jokers (54 cards)``.

    >>> deck_summary(DeckRules())
    'one deck of 52 cards, no jokers'
    >>> deck_summary(DeckRules(decks=2, jokers=2))
    'two decks, each 52 cards + two jokers (108 cards)'
    >>> deck_summary(DeckRules(custom={"0": 2, "1": 4, "2": 4, "3": 2}))
    'one custom deck: 0 ×2, 1/2 ×4, 3 ×2 (12 cards)'
    """
    # Counted, not built: an absurd count must not exhaust memory.
    per = sum(max(0, n) for n in deck.custom.values()) if deck.custom else None
    if per is None:
        per = 4 * len(deck.ranks) + max(0, deck.jokers)
    total = max(deck.decks, 0) * per
    if deck.custom:
        ranks = list(deck.custom)
        parts: list[str] = []
        i = 0
        while i < len(ranks):
            j = i
            while j + 1 < len(ranks) and deck.custom[ranks[j + 1]] == deck.custom[ranks[i]]:
                j += 1
            parts.append(f"{_rank_run(ranks[i : j + 1], ranks)} \u00d7{deck.custom[ranks[i]]}")
            i = j + 1
        one = f"custom deck: {', '.join(parts)}"
        if deck.decks == 1:
            return f"one {one} ({total} cards)"
        return f"{_count(deck.decks, 'copy', 'copies')} of a {one} ({total} cards)"

    per_deck = 4 * len(deck.ranks)
    if tuple(deck.ranks) == STANDARD_RANKS:
        body = f"{per_deck} cards"
    else:
        body = f"{per_deck} cards (ranks {_rank_groups(deck.ranks)} in four suits)"
    if deck.jokers:
        body += f" + {_count(deck.jokers, 'joker')}"
        if deck.decks == 1:
            return f"one deck of {body} ({total} cards)"
    elif deck.decks == 1:
        return f"one deck of {body}, no jokers"
    else:
        body += ", no jokers"
    return f"{_count(deck.decks, 'deck')}, each {body} ({total} cards)"


def _rank_groups(ranks: Sequence[str]) -> str:
    """Standard ranks as runs in deck order: ``A–10, K``."""
    groups: list[list[str]] = []
    for rank in ranks:
        if (
            groups
            and rank in STANDARD_RANKS
            and groups[-1][-1] in STANDARD_RANKS
            and STANDARD_RANKS.index(rank) == STANDARD_RANKS.index(groups[-1][-1]) + 1
        ):
            groups[-1].append(rank)
        else:
            groups.append([rank])
    return ", ".join(f"{g[0]}\u2013{g[-1]}" if len(g) >= 3 else ", ".join(g) for g in groups)


def _grid_rows(grid: GridRules) -> list[list[int]]:
    rows: list[list[int]] = []
    n = 1
    for width in grid.rows:
        rows.append(list(range(n, n + max(width, 0))))
        n += max(width, 0)
    return rows


def grid_picture(grid: GridRules, *, marked: Iterable[int] = ()) -> str:
    """The grid drawn with its position numbers, one line per row, rows centred.

    Positions in ``marked`` are drawn with a star (the opening peek).

    >>> print(grid_picture(GridRules(rows=(2, 2, 1)), marked=(3, 4)))
     [1]  [2]
    [3*] [4*]
       [5]
    """
    mark = set(marked)
    cells = [[f"[{p}*]" if p in mark else f"[{p}]" for p in row] for row in _grid_rows(grid)]
    cell_width = max((len(c) for row in cells for c in row), default=3)
    lines = [" ".join(_centre(c, cell_width) for c in row).strip() for row in cells]
    width = max((len(line) for line in lines), default=0)
    return "\n".join(_centre(line, width).rstrip() for line in lines)


def _centre(text: str, width: int) -> str:
    """Centre ``text``, an odd space going to the left."""
    left = max(width - len(text) + 1, 0) // 2
    return (" " * left + text).ljust(width)


def grid_summary(grid: GridRules) -> str:
    """``four cards, 2×2 (1 2 / 3 4)``."""
    rows = grid.rows
    if rows and all(r == rows[0] for r in rows):
        shape = f"{len(rows)}\u00d7{rows[0]}" if len(rows) > 1 else f"one row of {rows[0]}"
    else:
        shape = "rows of " + _and([str(r) for r in rows])
    layout = " / ".join(" ".join(str(p) for p in row) for row in _grid_rows(grid))
    return f"{_count(grid.size, 'card')}, {shape} ({layout})"


def opening_summary(opening: OpeningRules) -> str:
    """``positions 3 and 4``, ``one of positions 3 and 4 (the player's choice)``, ``none``."""
    if opening.count <= 0 or not opening.positions:
        return "none: every card starts unknown"
    where = _positions(opening.positions)
    if opening.count >= len(opening.positions):
        return f"{where}, once"
    return f"{_word(opening.count)} of {where} (the player's choice), once"


# ---------------------------------------------------------------------------------------
# Powers

_PEEK_WORDS = {
    "own": "look at one of your own cards",
    "other": "look at one of another player's cards",
    "any": "look at any one card on the table",
    "other-not-peeked": "look at a card of another player this power has not looked at yet",
}
_SWAP_WORDS = {
    "own-other": "swap one of your cards with one of another player's",
    "any-two": "swap any two cards on the table (two of one player's included)",
    "peeked-pair": "swap the two cards you looked at",
    "peeked-any": "swap the card you looked at with any other card on the table",
    "peeked-own": "swap the card you looked at with one of your own",
    "peeked-other": "swap the card you looked at with one of another player's",
    "other-other": "swap two cards of two other players (neither of them yours)",
}


def step_text(step: Step) -> str:
    """One step of a power in words (lower case, no full stop).

    >>> step_text(Step("swap", "own-other"))
    "swap one of your cards with one of another player's, without looking at either"
    >>> step_text(Step("swap", "peeked-any", optional=True, seen=True))
    'you may swap the card you looked at with any other card on the table, seeing the other card'
    """
    if step.action == "peek":
        text = _PEEK_WORDS.get(step.scope, f"look at a card ({step.scope})")
    else:
        text = _SWAP_WORDS.get(step.scope, f"swap two cards ({step.scope})")
        if step.scope == "peeked-pair":
            pass
        elif step.scope.startswith("peeked-"):
            text += ", seeing the other card" if step.seen else ", without seeing the other card"
        else:
            text += ", seeing both cards" if step.seen else ", without looking at either"
    if step.optional:
        text = "you may " + text
    return text


def power_text(power: Power) -> str:
    """What a power lets its player do, built from its steps.

    >>> from cambio.rules import PRACTICE_POWERS
    >>> print(power_text(PRACTICE_POWERS[3]))  # doctest: +NORMALIZE_WHITESPACE
    Look at any one card on the table, then you may swap one of your cards with one of
    another player's, without looking at either.
    """
    steps = [step_text(s) for s in power.steps]
    if not steps:
        return "Nothing."
    return _cap(", then ".join(steps)) + "."


def power_label(power: Power) -> str:
    """``7/8``, ``J/Q``, ``black K``."""
    label = _rank_run(list(power.ranks), STANDARD_RANKS)
    return label if power.colour == "any" else f"{power.colour} {label}"


def _card_keys(rules: Sequence[RuleSet]) -> list[tuple[str, str]]:
    """Every (rank, colour) a power could match in any of the tables, in deck order."""
    order: list[str] = []
    for r in rules:
        for rank in r.deck.rank_names():
            if rank not in order:
                order.append(rank)
        for power in r.powers.table:
            for rank in power.ranks:
                if rank not in order:
                    order.append(rank)

    def position(rank: str) -> tuple[int, int]:
        if rank in STANDARD_RANKS:
            return (0, STANDARD_RANKS.index(rank))
        if rank == JOKER:
            return (1, 0)
        n = _numeric(rank)
        return (0, n) if n is not None else (2, order.index(rank))

    keys: list[tuple[str, str]] = []
    for rank in sorted(order, key=position):
        suited = any(_has_colours(r.deck, rank) for r in rules)
        for colour in ("red", "black") if suited else ("",):
            keys.append((rank, colour))
    return keys


def _power_for(rules: RuleSet, rank: str, colour: str) -> Power | None:
    for power in rules.powers.table:
        if rank in power.ranks and (power.colour == "any" or power.colour == colour):
            return power
    return None


def _power_words(rules: RuleSet, rank: str, colour: str) -> str:
    if rank not in rules.deck.rank_names():
        return "not in the deck"
    power = _power_for(rules, rank, colour)
    if power is None:
        return "no power"
    return power_text(power)  # the power's name is a label, not a rule


def _keys_label(keys: Sequence[tuple[str, str]]) -> str:
    """Cards named by their (rank, colour) keys: ``7/8``, ``black K``, ``J/Q, red K``."""
    ranks: list[str] = []
    colours: dict[str, list[str]] = {}
    for rank, colour in keys:
        if rank not in colours:
            ranks.append(rank)
            colours[rank] = []
        colours[rank].append(colour)
    whole = [r for r in ranks if len(colours[r]) != 1 or colours[r] == [""]]
    parts: list[str] = []
    if whole:
        parts.append(_rank_run(whole, STANDARD_RANKS))
    for colour in ("red", "black"):
        part = [r for r in ranks if colours[r] == [colour]]
        if part:
            parts.append(f"{colour} {_rank_run(part, STANDARD_RANKS)}")
    return ", ".join(parts)


def _power_rows(tables: Sequence[RuleSet]) -> list[tuple[str, list[str]]]:
    """Cards grouped by what their power is in every one of ``tables``.

    Each item is a label (``J/Q``, ``black K``) and the power in words per table. For a
    single table, cards without a power are left out; with several, a card is listed when
    any of the tables gives it a power.
    """
    groups: dict[tuple[str, ...], list[tuple[str, str]]] = {}
    for rank, colour in _card_keys(tables):
        words = tuple(_power_words(r, rank, colour) for r in tables)
        if all(w in ("no power", "not in the deck") for w in words):
            continue
        groups.setdefault(words, []).append((rank, colour))
    return [(_keys_label(keys), list(words)) for words, keys in groups.items()]


# ---------------------------------------------------------------------------------------
# The axes: one spec per row, each naming the fields it covers

_NA_SNAP = "\u2014 (no sticking)"
_NA_CALL = "\u2014 (no calling)"


def player_counts(rules: RuleSet) -> str:
    """The player counts a table seats: ``2–6``, ``3``, or ``4 or 6`` for teams of two.

    >>> player_counts(RuleSet())
    '2–6'
    """
    p, size = rules.players, max(rules.teams.size, 1)
    if p.min == p.max:
        return str(p.min)
    if size > 1:
        counts = [n for n in range(p.min, p.max + 1) if n % size == 0]
        if 0 < len(counts) <= 4:
            return _and([str(n) for n in counts], "or")
    return f"{p.min}\u2013{p.max}"


def _players(r: RuleSet) -> str:
    return f"{player_counts(r)} players, {r.players.default} by default"


def _extra(r: RuleSet) -> str:
    n = r.grid.extra
    if n == 0:
        return "none: no card may be held beside the grid"
    return f"up to {n} beside the grid (numbered from {r.grid.size + 1})"


def _re_peek(r: RuleSet) -> str:
    if not r.opening.re_peek:
        return "no"
    return "once per round, at the start of one's own turn, without using the turn"


def _upcard(r: RuleSet) -> str:
    if r.opening.upcard:
        return "one, the first card of the discard pile"
    return "none: the discard pile is empty until the first card is thrown on it"


def _open_draw(r: RuleSet) -> str:
    if r.turn.open_draw:
        return "shown to every player"
    return "seen by its drawer only"


def _take_discard(r: RuleSet) -> str:
    if r.turn.take_discard:
        return "allowed; the card must replace a grid card"
    return "not allowed: draw from the stock only"


def _exchange(r: RuleSet) -> str:
    t = r.turn
    if not t.exchange_equal:
        return "no"
    fail = (
        "the drawn card is kept face up as an extra card"
        if t.exchange_failure == "keep-drawn"
        else "the drawn card is discarded"
    )
    return f"yes; a wrong exchange leaves the named cards face up and {fail}"


def _turn_cap(r: RuleSet) -> str:
    n = r.turn.max_turns
    return "none" if n <= 0 else f"the round ends after {n} turns in all"


def _timing(r: RuleSet) -> str:
    if r.powers.timing == "draw":
        return "when drawn from the stock, before placing or discarding it"
    return "when a fresh stock draw is discarded"


def _power_use(r: RuleSet) -> str:
    return "optional" if r.powers.optional else "mandatory (except steps marked optional)"


def _swapped_out(r: RuleSet) -> str:
    if not r.powers.swapped_out:
        return "do not fire"
    if r.powers.swapped_out_from == "stock":
        return "fire their power, only when replaced by a card from the stock"
    return "fire their power"


_SNAP_WHEN = {
    "never": "never",
    "own-turn": "during one's own turn",
    "any-time": "at any moment, even in another player's turn",
    "after-other-discard": "only right after another player's discard",
}


_SNAP_WHEN_YOU = {
    "own-turn": "during your own turn",
    "any-time": "at any moment, even in another player's turn",
    "after-other-discard": "only right after another player discards",
}


def _snapping(r: RuleSet) -> bool:
    return r.snap.when != "never"


def _snap_when(r: RuleSet) -> str:
    return _SNAP_WHEN.get(r.snap.when, r.snap.when)


def _snap_targets(r: RuleSet) -> str:
    if not _snapping(r):
        return _NA_SNAP
    if r.snap.targets == "any":
        return "own or another player's (the sticker then gives one own card back)"
    return "own cards only"


def _snap_match(r: RuleSet) -> str:
    if not _snapping(r):
        return _NA_SNAP
    return "same value" if r.snap.match == "value" else "same rank"


def _snap_several(r: RuleSet) -> str:
    if not _snapping(r):
        return _NA_SNAP
    if r.snap.several:
        return "one card, or several own cards at once, all or nothing"
    return "one card per stick"


def _snap_penalty(r: RuleSet) -> str:
    if not _snapping(r):
        return _NA_SNAP
    n = r.snap.penalty_cards
    if n == 0:
        return "none; the card goes back"
    return f"the card goes back; {_count(n, 'penalty card')} from the stock"


def _snap_peekable(r: RuleSet) -> str:
    if not _snapping(r) or r.snap.penalty_cards == 0:
        return _NA_SNAP if not _snapping(r) else "\u2014 (no penalty cards)"
    if r.snap.penalty_seen_by == "others":
        return "never, until scoring (a wrong stick shows them to the others only)"
    return "may look at them (with a peek)" if r.snap.penalty_peekable else "never"


def _snap_dealt(r: RuleSet) -> str:
    if not _snapping(r):
        return _NA_SNAP
    s = r.snap
    if not r.opening.upcard:
        return "\u2014 (no card is turned face up)"
    if not s.dealt_discard or s.when == "after-other-discard":
        return "cannot be stuck"
    if s.when == "own-turn":
        return "the starter may stick on it in its first turn"
    return "may be stuck from the deal on, in seat order from the starter"


_SEEN = {"all": "everyone", "snapper": "the sticker only", "nobody": "nobody"}


def _snap_seen(r: RuleSet) -> str:
    if not _snapping(r):
        return _NA_SNAP
    s = r.snap
    own = _SEEN.get(s.wrong_seen_by, s.wrong_seen_by)
    text = own
    if s.wrong_other_seen_by not in ("as-own", s.wrong_seen_by):
        other = _SEEN.get(s.wrong_other_seen_by, s.wrong_other_seen_by)
        text = f"own card: {own}; another's: {other}"
    if s.several and s.wrong_shown == "unmatched":
        text += " (of several cards, only those that do not match)"
    return text


def _snap_per_discard(r: RuleSet) -> str:
    if not _snapping(r):
        return _NA_SNAP
    s = r.snap
    if s.per_discard == "each":
        return "every player holding a match may stick it, once each"
    if s.too_late == "penalty":
        return "the first right stick only; a later stick counts as wrong"
    return "the first right stick only"


def _snap_last(r: RuleSet) -> str:
    if not _snapping(r):
        return _NA_SNAP
    return "may still be stuck before scoring" if r.snap.last_discard else "ends the round"


def _penalty_position(r: RuleSet) -> str:
    if not _snapping(r):
        return _NA_SNAP
    if r.snap.penalty_position == "first-empty":
        return "the first empty position (an emptied grid position included)"
    return "a new position after the grid"


def _empty_grid_calls(r: RuleSet) -> str:
    if not _snapping(r) or r.snap.empty_grid != "call":
        return _NA_SNAP if not _snapping(r) else "— (an emptied grid does not call)"
    return "at once" if r.snap.empty_grid_calls == "at-once" else "at its owner's next turn"


def _placement(r: RuleSet) -> str:
    table = r.scoring.placement
    if not table:
        return "none"
    return (
        "; ".join(
            f"{n} players: " + ", ".join(f"{b:+d}" if b else "0" for b in bonuses)
            for n, bonuses in sorted(
                table.items(), key=lambda kv: int(kv[0]) if kv[0].isdigit() else 0
            )
        )
        + " (by place, lowest total first; a tied caller takes the better place)"
    )


_ARBITRATION = {
    "first": "the first to act",
    "seat-order": "seat order from the discarder",
    "random": "a random one of them",
}


def _snap_arbitration(r: RuleSet) -> str:
    if not _snapping(r):
        return _NA_SNAP
    return _ARBITRATION.get(r.snap.arbitration, r.snap.arbitration)


_EMPTY_GRID = {
    "call": "counts as a Cambio call",
    "win": "scores 0 and wins the round at once",
    "nothing": "nothing happens; play goes on",
    "end": "ends the round at once, scored as usual",
}


def _snap_empty(r: RuleSet) -> str:
    if not _snapping(r):
        return _NA_SNAP
    return _EMPTY_GRID.get(r.snap.empty_grid, r.snap.empty_grid)


def _calling(r: RuleSet) -> str:
    return "allowed, once per round" if r.call.allowed else "not allowed"


def _call_timing(r: RuleSet) -> str:
    if not r.call.allowed:
        return _NA_CALL
    if r.call.timing == "end-of-turn":
        return "at the end of one's turn"
    return "at the start of one's turn, instead of drawing"


def _call_earliest(r: RuleSet) -> str:
    if not r.call.allowed:
        return _NA_CALL
    n = r.call.earliest
    return "from the first turn" if n <= 0 else f"once every player has had {_count(n, 'turn')}"


def _final_turns(r: RuleSet) -> str:
    if not r.call.allowed:
        return _NA_CALL
    c = r.call
    if c.final_turns == 0:
        if c.caller_final_turn:
            return "one final turn for the caller only"
        return "none: the call ends the round at once"
    text = f"{_count(c.final_turns, 'final turn')} for every other player"
    return text + ("; the caller too" if c.caller_final_turn else "; none for the caller")


def _caller_locked(r: RuleSet) -> str:
    if not r.call.allowed:
        return _NA_CALL
    if r.call.caller_locked and r.call.caller_locked_peeks:
        return "locked: no swap, stick or other player's peek may touch them"
    if r.call.caller_locked:
        return "locked: no swap or stick may touch them"
    return "still open to swaps and sticks"


def _caller_penalty(r: RuleSet) -> str:
    if not r.call.allowed:
        return _NA_CALL
    n = r.call.penalty
    return "none" if n == 0 else f"{_signed(n)} when the caller is not lowest"


def _caller_bonus(r: RuleSet) -> str:
    if not r.call.allowed:
        return _NA_CALL
    n = r.call.bonus
    return "none" if n == 0 else f"{_signed(n)} when the caller is lowest"


def _caller_tie(r: RuleSet) -> str:
    c = r.call
    if not c.allowed:
        return _NA_CALL
    if not (c.penalty or c.bonus or c.lowest_scores_zero):
        return "\u2014 (no caller penalty or bonus)"
    return "counts as lowest" if c.tie_is_lowest else "does not count as lowest"


def _caller_zero(r: RuleSet) -> str:
    if not r.call.allowed:
        return _NA_CALL
    return "yes" if r.call.lowest_scores_zero else "no"


def _winner_zero(r: RuleSet) -> str:
    if r.scoring.winner_scores_zero:
        return "yes: the round's winner scores 0, the others their totals"
    return "no: everyone scores their total"


_TIE_WORDS = {
    "caller": "a caller among the tied wins",
    "not-caller": "a caller among the tied loses to the others",
    "lower-cards": "the hand whose highest card is lower wins, then the next card, and so on",
    "fewer-cards": "the hand with fewer cards wins",
    "share": "the tied players share the win",
}


def tie_break_text(chain: Sequence[str]) -> str:
    """The tie-break chain for the lowest total, in words.

    >>> tie_break_text(("share",))
    'the tied players share the win'
    >>> print(tie_break_text(("not-caller", "lower-cards")))  # doctest: +NORMALIZE_WHITESPACE
    a caller among the tied loses to the others; then the hand whose highest card is
    lower wins, then the next card, and so on; anyone still tied shares the win
    """
    steps = [s for s in chain if s != "share"]
    if not steps:
        return _TIE_WORDS["share"]
    words = [_TIE_WORDS.get(s, s) for s in steps]
    return "; then ".join(words) + "; anyone still tied shares the win"


def _ties(r: RuleSet) -> str:
    return tie_break_text(r.scoring.tie_break)


def combination_text(combo: CombinationRules | None) -> str:
    """``none``, or the special grid and what it scores."""
    if combo is None:
        return "none"
    return (
        f"a final hand of exactly {' '.join(combo.ranks)} scores {_num(combo.holder)} for its "
        f"holder and {_num(combo.others)} for every other player"
    )


def _combination(r: RuleSet) -> str:
    return combination_text(r.scoring.combination)


def _stock_end(r: RuleSet) -> str:
    if r.stock.on_empty == "recycle":
        when = r.stock.recycle_when
        if when == "one-left":
            return (
                "at the end of a turn that leaves one card or none, the discard pile except "
                "its top card goes under the stock (no stock, nothing to recycle: the round ends)"
            )
        if when == "emptied":
            return (
                "recycle the discard pile except its top card as soon as the stock is empty "
                "(nothing to recycle: the round ends)"
            )
        return "recycle the discard pile except its top card (nothing to recycle: the round ends)"
    return "the current action finishes, then the round ends (no recycling)"


def _limit_words(r: RuleSet) -> str:
    m = r.match
    return f"{'at or over' if m.at_limit else 'over'} {m.limit}"


def _match(r: RuleSet) -> str:
    m = r.match
    if m.end == "single":
        return "a single round"
    if m.end == "elimination":
        return f"elimination: a player {_limit_words(r)} is out; the last player left wins"
    if m.end == "limit":
        return f"rounds until someone is {_limit_words(r)}; then the lowest total wins"
    if m.end == "rounds":
        return f"{_count(m.rounds, 'round')}; the lowest total wins"
    return m.end


def _match_tie(r: RuleSet) -> str:
    if r.match.end == "single":
        return "\u2014 (single round)"
    if r.match.tie == "extra-round":
        return "one extra round among the tied players"
    return "the tied players share the win"


def _exact_limit(r: RuleSet) -> str:
    m = r.match
    if m.end not in ("elimination", "limit"):
        return "\u2014 (no score limit)"
    if m.exact_limit == "none":
        return "no special rule"
    when = "once per match" if m.exact_limit == "once" else "every time"
    return f"a total of exactly {m.limit} drops to {_num(m.limit // 2)}, {when}"


_DEALER = {
    "last-seat": "the last seat",
    "first-seat": "the first seat",
    "random": "a random player",
    "high-card": "the high card of a draw",
}


def _first_dealer(r: RuleSet) -> str:
    text = _DEALER.get(r.match.first_dealer, r.match.first_dealer)
    if r.match.end != "single":
        text += "; the deal passes to the left each round"
    return text


def _starter(r: RuleSet) -> str:
    if r.match.starter == "worst-hand":
        return "the worst hand of the previous round (the first round: left of the dealer)"
    if r.match.starter == "first-seat":
        return "the first seat, every round"
    if r.match.starter == "last-winner":
        tie = (
            "the lowest seat of tied winners"
            if r.match.tied_winners == "lowest-seat"
            else "the first tied winner after the dealer"
        )
        return f"the winner of the previous round, {tie} (the first round: left of the dealer)"
    return "the player to the dealer's left"


def _teams(r: RuleSet) -> str:
    n = r.teams.size
    if n <= 1:
        return "none: everyone plays alone"
    return f"fixed partnerships of {n}, partners spread evenly round the table"


def _powers_table_fields() -> tuple[str, ...]:
    power = tuple(f"powers.table[].{f.name}" for f in attrs.fields(Power) if f.name != "steps")
    step = tuple(f"powers.table[].steps[].{f.name}" for f in attrs.fields(Step))
    return ("powers.table", *power, *step)


@attrs.frozen
class _Axis:
    label: str
    section: str
    fields: tuple[str, ...]
    words: Callable[[RuleSet], str]


_AXES: tuple[_Axis, ...] = (
    _Axis("name", "table", ("name",), lambda r: r.name),
    _Axis("summary", "table", ("summary",), lambda r: r.summary or "\u2014"),
    _Axis("players", "players", ("players.min", "players.max", "players.default"), _players),
    _Axis(
        "deck",
        "deck",
        ("deck.decks", "deck.jokers", "deck.ranks", "deck.custom"),
        lambda r: deck_summary(r.deck),
    ),
    _Axis(
        "values",
        "values",
        ("values.rank", "values.red", "values.black"),
        lambda r: value_summary(r, unused=True),
    ),
    _Axis("grid", "grid", ("grid.rows",), lambda r: grid_summary(r.grid)),
    _Axis("extra cards", "grid", ("grid.extra",), _extra),
    _Axis(
        "opening peek",
        "opening peek",
        ("opening.positions", "opening.count"),
        lambda r: opening_summary(r.opening),
    ),
    _Axis("re-peek", "opening peek", ("opening.re_peek",), _re_peek),
    _Axis("a face-up card to begin the pile", "opening peek", ("opening.upcard",), _upcard),
    _Axis("taking the discard", "turn", ("turn.take_discard",), _take_discard),
    _Axis(
        "exchanging equal cards",
        "turn",
        ("turn.exchange_equal", "turn.exchange_failure"),
        _exchange,
    ),
    _Axis("turn cap", "turn", ("turn.max_turns",), _turn_cap),
    _Axis("the drawn card", "turn", ("turn.open_draw",), _open_draw),
    _Axis("power timing", "powers", ("powers.timing",), _timing),
    _Axis("power use", "powers", ("powers.optional",), _power_use),
    _Axis(
        "swapped-out cards",
        "powers",
        ("powers.swapped_out", "powers.swapped_out_from"),
        _swapped_out,
    ),
    # powers.table is described card by card by _power_rows (see _table_rows)
    _Axis("sticking", "sticking", ("snap.when",), _snap_when),
    _Axis("sticking others' cards", "sticking", ("snap.targets",), _snap_targets),
    _Axis("sticking match", "sticking", ("snap.match",), _snap_match),
    _Axis("several at once", "sticking", ("snap.several",), _snap_several),
    _Axis("wrong stick", "sticking", ("snap.penalty_cards",), _snap_penalty),
    _Axis(
        "owner sees penalty cards",
        "sticking",
        ("snap.penalty_peekable", "snap.penalty_seen_by"),
        _snap_peekable,
    ),
    _Axis("the dealt face-up card", "sticking", ("snap.dealt_discard",), _snap_dealt),
    _Axis(
        "wrong stick shown to",
        "sticking",
        ("snap.wrong_seen_by", "snap.wrong_other_seen_by", "snap.wrong_shown"),
        _snap_seen,
    ),
    _Axis("simultaneous sticks", "sticking", ("snap.arbitration",), _snap_arbitration),
    _Axis(
        "right sticks per discard",
        "sticking",
        ("snap.per_discard", "snap.too_late"),
        _snap_per_discard,
    ),
    _Axis("the round's last discard", "sticking", ("snap.last_discard",), _snap_last),
    _Axis("penalty card goes to", "sticking", ("snap.penalty_position",), _penalty_position),
    _Axis("grid emptied by sticking", "sticking", ("snap.empty_grid",), _snap_empty),
    _Axis("an emptied grid calls", "sticking", ("snap.empty_grid_calls",), _empty_grid_calls),
    _Axis("calling", "calling", ("call.allowed",), _calling),
    _Axis("call timing", "calling", ("call.timing",), _call_timing),
    _Axis("earliest call", "calling", ("call.earliest",), _call_earliest),
    _Axis("final turns", "calling", ("call.final_turns", "call.caller_final_turn"), _final_turns),
    _Axis(
        "caller's cards after the call",
        "calling",
        ("call.caller_locked", "call.caller_locked_peeks"),
        _caller_locked,
    ),
    _Axis("caller penalty", "calling", ("call.penalty",), _caller_penalty),
    _Axis("caller bonus", "calling", ("call.bonus",), _caller_bonus),
    _Axis("caller tied for lowest", "calling", ("call.tie_is_lowest",), _caller_tie),
    _Axis("lowest caller scores 0", "calling", ("call.lowest_scores_zero",), _caller_zero),
    _Axis("winner scores 0", "scoring", ("scoring.winner_scores_zero",), _winner_zero),
    _Axis("ties", "scoring", ("scoring.tie_break",), _ties),
    _Axis("placement bonuses", "scoring", ("scoring.placement",), _placement),
    _Axis(
        "combination",
        "scoring",
        (
            "scoring.combination",
            "scoring.combination.ranks",
            "scoring.combination.holder",
            "scoring.combination.others",
        ),
        _combination,
    ),
    _Axis("the stock's end", "stock", ("stock.on_empty", "stock.recycle_when"), _stock_end),
    _Axis(
        "match",
        "match",
        ("match.end", "match.limit", "match.at_limit", "match.rounds"),
        _match,
    ),
    _Axis("match tie", "match", ("match.tie",), _match_tie),
    _Axis("exactly on the limit", "match", ("match.exact_limit",), _exact_limit),
    _Axis("first dealer", "match", ("match.first_dealer",), _first_dealer),
    _Axis("who starts", "match", ("match.starter", "match.tied_winners"), _starter),
    _Axis("teams", "teams", ("teams.size",), _teams),
)

_POWERS_AFTER = "swapped-out cards"
"""The per-card power rows follow this axis."""

_METADATA = ("name", "summary")
"""Rows that name a table rather than rule on play; left out of a diff."""


# ---------------------------------------------------------------------------------------
# Walking the schema, so that a field nobody described still gets a row


def _attrs_class(tp: Any) -> type | None:
    """The attrs class in a type (``X``, ``X | None``), or None."""
    if isinstance(tp, type) and attrs.has(tp):
        return tp
    origin = typing.get_origin(tp)
    if origin is typing.Union or origin is types.UnionType:
        for arg in typing.get_args(tp):
            found = _attrs_class(arg)
            if found is not None:
                return found
    return None


def _walk(cls: type, prefix: str) -> Iterator[str]:
    hints = typing.get_type_hints(cls)
    for field in attrs.fields(cls):
        path = f"{prefix}{field.name}"
        tp = hints.get(field.name, Any)
        inner = _attrs_class(tp)
        if inner is not None:
            yield path
            yield from _walk(inner, path + ".")
            continue
        if typing.get_origin(tp) is tuple:
            args = typing.get_args(tp)
            element = _attrs_class(args[0]) if len(args) == 2 and args[1] is Ellipsis else None
            if element is not None:
                yield path
                yield from _walk(element, path + "[].")
                continue
        yield path


def axis_fields() -> list[str]:
    """Every field of a RuleSet and of the attrs classes nested in it, as dotted paths.

    Groups (``powers``) are listed as well as their fields (``powers.timing``); ``[]``
    marks the elements of a tuple (``powers.table[].steps[].scope``).

    >>> "call.penalty" in axis_fields(), "powers.table[].steps[].scope" in axis_fields()
    (True, True)
    """
    return list(_walk(RuleSet, ""))


def _get(obj: object, path: str) -> list[object]:
    """The values at a dotted path (several when the path crosses a tuple with ``[]``)."""
    values: list[object] = [obj]
    for part in path.split("."):
        many = part.endswith("[]")
        name = part[:-2] if many else part
        nxt: list[object] = []
        for v in values:
            if v is None:
                continue
            got = getattr(v, name)
            if many:
                nxt.extend(got)
            else:
                nxt.append(got)
        values = nxt
    return values


def _plain(value: object) -> str:
    """A generic rendering for a field nobody has worded yet."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return _num(value)
    if value is None:
        return "none"
    if isinstance(value, str):
        return value or "\u2014"
    if isinstance(value, dict):
        return ", ".join(f"{k} {_plain(v)}" for k, v in value.items()) or "none"
    if isinstance(value, (tuple, list)):
        return ", ".join(_plain(v) for v in value) or "none"
    if attrs.has(type(value)):
        return "; ".join(
            f"{f.name.replace('_', ' ')} {_plain(getattr(value, f.name))}"
            for f in attrs.fields(typing.cast(Any, type(value)))
        )
    return str(value)


def _described() -> set[str]:
    done: set[str] = set()
    for axis in _AXES:
        done.update(axis.fields)
    done.update(_powers_table_fields())
    return done


def _group_paths(paths: Iterable[str]) -> set[str]:
    """Paths that are containers of other paths (``powers``, ``scoring.combination``)."""
    paths = list(paths)
    return {p for p in paths if any(q.startswith(p + ".") or q.startswith(p + "[]") for q in paths)}


def _undescribed() -> list[str]:
    """Leaf fields no axis spec covers (a field added to the schema after this module)."""
    paths = axis_fields()
    groups = _group_paths(paths)
    done = _described()
    return [p for p in paths if p not in groups and p not in done]


def _fallback_label(path: str) -> tuple[str, str]:
    parts = path.replace("[]", "").split(".")
    section = parts[0]
    return " ".join(parts[1:] or parts).replace("_", " "), section


def _table_rows(tables: Sequence[RuleSet]) -> list[tuple[str, str, tuple[str, ...], list[str]]]:
    """(label, section, fields, words per table) for every axis, in schema order."""
    rows: list[tuple[str, str, tuple[str, ...], list[str]]] = []
    table_fields = _powers_table_fields()
    for axis in _AXES:
        rows.append((axis.label, axis.section, axis.fields, [axis.words(r) for r in tables]))
        if axis.label == _POWERS_AFTER:
            power_rows = _power_rows(tables)
            if not power_rows:
                rows.append(("powers", "powers", table_fields, ["none"] * len(tables)))
            for label, words in power_rows:
                rows.append((f"power: {label}", "powers", table_fields, words))
    for path in _undescribed():
        label, section = _fallback_label(path)
        words = [", ".join(_plain(v) for v in _get(r, path)) or "none" for r in tables]
        rows.append((label, section, (path,), words))
    return rows


def describe_axes(rules: RuleSet) -> list[AxisRow]:
    """Every axis of ``rules`` in words, one row per axis, covering every RuleSet field.

    Related fields share a row (``deck`` covers ``deck.decks``, ``deck.jokers``,
    ``deck.ranks`` and ``deck.custom``). The power table gives one row per group of cards
    with the same power (``power: J/Q``). A field that no row describes yet (one added to
    the schema later) still gets a plain row of its own, so none can be forgotten. A value
    that does not matter under the table's other choices reads ``— (why)``.

    >>> rows = {row.label: row.value for row in describe_axes(RuleSet())}
    >>> rows["taking the discard"]
    'allowed; the card must replace a grid card'
    >>> rows["power: J/Q"]
    "Swap one of your cards with one of another player's, without looking at either."
    """
    return [
        AxisRow(label, section, words[0], fields)
        for label, section, fields, words in _table_rows([rules])
    ]


def diff_rows(a: RuleSet, b: RuleSet) -> list[DiffRow]:
    """The axes on which two tables play differently, with each table's value in words.

    The table's name and summary are not rules and are left out; an empty list means the
    two tables play by the same rules. Powers are compared card by card, so ``black K``
    in one table and ``K`` in another line up.
    """
    return [
        DiffRow(label, words[0], words[1])
        for label, _section, _fields, words in _table_rows([a, b])
        if label not in _METADATA and words[0] != words[1]
    ]


# ---------------------------------------------------------------------------------------
# The quick reference


class _Page:
    """Plain text with headings and wrapped, bulleted paragraphs."""

    def __init__(self, width: int = WIDTH) -> None:
        self.width = width
        self.lines: list[str] = []

    def heading(self, text: str) -> None:
        if self.lines:
            self.lines.append("")
        self.lines.append(text.upper())

    def item(self, text: str) -> None:
        self.lines.extend(
            textwrap.wrap(
                text,
                self.width,
                initial_indent="  - ",
                subsequent_indent="    ",
                break_on_hyphens=False,
            )
        )

    def block(self, text: str, indent: int = 6) -> None:
        self.lines.extend(" " * indent + line for line in text.splitlines())

    def para(self, text: str) -> None:
        self.lines.extend(textwrap.wrap(text, self.width, break_on_hyphens=False))

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def quick_reference(rules: RuleSet, *, width: int = WIDTH) -> str:
    """A printable one-page summary of a table's rules, in plain text.

    Every sentence is computed from the RuleSet's fields.

    >>> text = quick_reference(RuleSet(name="practice"))
    >>> text.splitlines()[0]
    'CAMBIO · PRACTICE'
    >>> "K 13, red K −1" in text
    True
    """
    page = _Page(width)
    title = f"CAMBIO \u00b7 {rules.name.upper()}"
    page.lines += [title, "=" * len(title)]
    if rules.summary:
        page.para(rules.summary)
    page.para("Aim: finish the round with the lowest total of card values.")

    _ref_setup(page, rules)
    _ref_turn(page, rules)
    _ref_powers(page, rules)
    _ref_snap(page, rules)
    _ref_call(page, rules)
    _ref_scoring(page, rules)
    _ref_match(page, rules)
    return page.text()


def _ref_setup(page: _Page, r: RuleSet) -> None:
    page.heading("Players and cards")
    page.item(f"Players: {player_counts(r)} ({r.players.default} by default).")
    page.item(f"Deck: {deck_summary(r.deck)}.")
    page.item(f"Values: {value_summary(r)}.")
    if r.teams.size > 1:
        page.item(
            f"Teams: fixed partnerships of {r.teams.size}, partners spread evenly round the "
            "table; a team's round score is the partners' combined total, and either "
            "partner may call for the team."
        )

    page.heading("The grid and the opening peek")
    o = r.opening
    peeking = o.count > 0 and bool(o.positions)
    choice = peeking and o.count < len(o.positions)
    page.item(
        f"Each player gets {grid_summary(r.grid).split(',')[0]} face down, positions numbered "
        "row by row from the top" + (" (* marks the opening peek):" if peeking else ":")
    )
    page.block(grid_picture(r.grid, marked=o.positions if peeking else ()))
    if not peeking:
        page.item("No opening peek: every card starts unknown to its owner.")
    elif choice:
        page.item(
            f"Before play, each player chooses {_word(o.count)} of {_positions(o.positions)}, "
            f"looks at {'it' if o.count == 1 else 'them'} once and turns "
            f"{'it' if o.count == 1 else 'them'} back."
        )
    else:
        page.item(
            f"Before play, each player looks once at {_positions(o.positions)}, then turns "
            "them back face down. Remember what is where."
        )
    if not o.upcard:
        page.item(
            "No card is turned face up to begin the discard pile: it stays empty until the "
            "first card is thrown on it."
        )
    if o.re_peek:
        page.item(
            "Re-peek: once per round, at the start of your own turn and without using it, you "
            "may look again at the positions of your opening peek, whatever lies there now."
        )
    snap_penalty = r.snap.when != "never" and r.snap.penalty_cards > 0
    failed_exchange = r.turn.exchange_equal and r.turn.exchange_failure == "keep-drawn"
    if not (snap_penalty or failed_exchange):
        pass  # no card can ever lie beside the grid
    elif r.grid.extra > 0:
        page.item(
            f"Extra cards (penalties) lie beside the grid, numbered from {r.grid.size + 1}; "
            f"a player may hold at most {r.grid.extra}."
        )
    else:
        page.item("No card may be held beside the grid.")


def _ref_turn(page: _Page, r: RuleSet) -> None:
    page.heading("A turn")
    t, c = r.turn, r.call
    if c.allowed and c.timing == "before-draw":
        page.item("At the start of your turn you may call Cambio instead of drawing.")
    seen = "everyone sees it" if t.open_draw else "only you see it"
    page.item(
        f"Draw the top card of the stock ({seen}). Put it into your grid in place "
        "of one card, which goes face up on the discard pile, or discard it."
    )
    if t.take_discard:
        page.item(
            "Or take the top card of the discard pile (everyone sees it): it must replace "
            "one of your grid cards."
        )
    else:
        page.item("The discard pile cannot be taken: draw from the stock only.")
    if t.exchange_equal:
        fail = (
            "you keep the drawn card face up as an extra card"
            if t.exchange_failure == "keep-drawn"
            else "the drawn card is discarded"
        )
        page.item(
            "Exchange: you may replace two or more of your cards that share a rank with the "
            f"one drawn card. If they do not all match, they stay, turned face up, and {fail}."
        )
    if c.allowed and c.timing == "end-of-turn":
        page.item("At the end of your turn you may call Cambio.")
    if t.max_turns > 0:
        page.item(f"Turn cap: the round ends after {t.max_turns} turns in all.")


def _ref_powers(page: _Page, r: RuleSet) -> None:
    page.heading("Powers")
    pw = r.powers
    if not pw.table:
        page.item("No card has a power.")
        return
    if pw.timing == "draw":
        page.item(
            "A power fires as soon as you draw its card from the stock, before you place or "
            "discard it."
        )
    else:
        page.item(
            "A power fires only when you discard a card you have just drawn from the stock; "
            "a card taken from the discard pile never fires."
        )
    if pw.swapped_out:
        page.item("A card swapped out of a grid onto the discard pile fires its power too.")
    else:
        page.item("A card swapped out of a grid does not fire its power.")
    if pw.optional:
        page.item("Using a power is optional: you may skip it.")
    else:
        page.item("Using a power is mandatory, except the steps that say 'you may'.")
    for power in pw.table:
        label = power_label(power)
        if power.name:
            label += f" ({power.name})"
        page.item(f"{label}: {power_text(power)}")
    page.item("Any other card has no power.")
    if any(step.action == "swap" for power in pw.table for step in power.steps):
        page.item(
            "Swapped cards stay face down; whoever knew a card still knows it in its new place."
        )


def _ref_snap(page: _Page, r: RuleSet) -> None:
    page.heading("Sticking (snapping)")
    s = r.snap
    if s.when == "never":
        page.item("No sticking: nobody may throw a matching card out of turn.")
        return
    match = "value" if s.match == "value" else "rank (suits do not matter)"
    when = _SNAP_WHEN_YOU.get(s.when, s.when)
    page.item(
        f"Stick a grid card you think matches the top discard by {match}: throw it onto "
        f"the pile, {when}."
    )
    if s.targets == "any":
        page.item(
            "You may stick your own card or another player's. After a right stick of another "
            "player's card you give them one of your cards (your choice, face down) in the "
            "emptied place."
        )
    else:
        page.item("You may stick only your own cards.")
    if s.several:
        page.item(
            "You may also stick several of your own cards at once, all or nothing: if one "
            "of them does not match, none goes and the stick is wrong."
        )
    else:
        page.item("One card per stick.")
    arb = {
        "first": "Only the first right stick on a discard counts.",
        "seat-order": "When several players stick at once, seat order from the discarder decides.",
        "random": "When several players stick at once, a random one of them is chosen.",
    }
    page.item(arb.get(s.arbitration, s.arbitration))
    plain = s.wrong_other_seen_by in ("as-own", s.wrong_seen_by) and not (
        s.several and s.wrong_shown == "unmatched"
    )
    if plain and s.wrong_seen_by == "all":
        seen = "everyone sees the card"
    elif plain and s.wrong_seen_by == "snapper":
        seen = "only the sticker sees it"
    elif plain:
        seen = "nobody sees it"
    else:
        seen = f"shown to: {_snap_seen(r)}"
    if s.penalty_cards > 0:
        them = "it" if s.penalty_cards == 1 else "them"
        peek = (
            f"its owner may look at {them} only with a peek"
            if s.penalty_peekable and s.penalty_seen_by == "all"
            else f"its owner may never look at {them}"
        )
        if s.penalty_seen_by == "others":
            peek += f" (a wrong stick of {them} shows {them} to the others only)"
        page.item(
            f"Wrong stick: the card goes back face down where it was ({seen}), and the "
            f"sticker takes {_count(s.penalty_cards, 'penalty card')} from the stock, face "
            f"down beside the grid; {peek}."
        )
    else:
        page.item(f"Wrong stick: the card goes back face down where it was ({seen}); no penalty.")
    page.item(
        "An emptied position keeps its number and scores nothing. A grid emptied by "
        f"sticking {_EMPTY_GRID.get(s.empty_grid, s.empty_grid)}."
    )


def _ref_call(page: _Page, r: RuleSet) -> None:
    page.heading("Calling Cambio")
    c = r.call
    if not c.allowed:
        page.item("Nobody may call Cambio.")
        return
    when = (
        "at the end of your turn"
        if c.timing == "end-of-turn"
        else "at the start of your turn, instead of drawing"
    )
    earliest = (
        "" if c.earliest <= 0 else f", once every player has had {_count(c.earliest, 'turn')}"
    )
    page.item(f"Call {when}{earliest}. Only one call per round.")
    if c.final_turns == 0 and c.caller_final_turn:
        final = "The caller then takes one final turn; nobody else does."
    elif c.final_turns == 0:
        final = "The call ends the round at once: nobody takes a final turn."
    else:
        final = f"Every other player then takes {_count(c.final_turns, 'final turn')}"
        final += (
            "; the caller takes one too." if c.caller_final_turn else "; the caller takes no more."
        )
    page.item(final + " Then every hand is revealed and scored.")
    if c.caller_locked and c.caller_locked_peeks:
        page.item(
            "After the call, the caller's cards are locked: no swap or stick may touch them, "
            "and no other player may peek at them."
        )
    elif c.caller_locked:
        page.item("After the call, the caller's cards are locked: no swap or stick may touch them.")
    else:
        page.item("The caller's cards can still be swapped and stuck after the call.")
    tie = (
        "a caller tied for the lowest counts as lowest"
        if c.tie_is_lowest
        else "a caller tied for the lowest does not count as lowest"
    )
    if c.penalty or c.bonus or c.lowest_scores_zero:
        parts: list[str] = []
        if c.lowest_scores_zero:
            parts.append("a caller who is lowest scores 0 for the round")
        if c.bonus:
            parts.append(f"a caller who is lowest gets {_signed(c.bonus)}")
        if c.penalty:
            parts.append(f"a caller who is not lowest gets {_signed(c.penalty)}")
        page.item(_cap("; ".join(parts)) + f" ({tie}).")
    else:
        page.item("No caller penalty or bonus.")


def _ref_scoring(page: _Page, r: RuleSet) -> None:
    page.heading("Scoring")
    page.item("Reveal every card; add up the values of each player's cards (extra cards too).")
    if r.scoring.winner_scores_zero:
        page.item("The round's winner scores 0; every other player scores their total.")
    else:
        page.item("Every player scores their total.")
    page.item(f"Ties for the lowest: {tie_break_text(r.scoring.tie_break)}.")
    if r.scoring.combination is not None:
        page.item(f"Combination: {combination_text(r.scoring.combination)}.")
    if r.stock.on_empty == "recycle" and r.stock.recycle_when == "one-left":
        page.item(
            "At the end of a turn that leaves one card or none in the stock, shuffle the "
            "discard pile except its top card and put it under the stock; with no stock "
            "and nothing to recycle, the round ends."
        )
    elif r.stock.on_empty == "recycle" and r.stock.recycle_when == "emptied":
        page.item(
            "As soon as the stock is empty (the turn that took its last card is over, or "
            "penalty cards took it), shuffle the discard pile except its top card into a new "
            "stock; with nothing to recycle, the round ends."
        )
    elif r.stock.on_empty == "recycle":
        page.item(
            "If a card must be drawn and the stock is empty, shuffle the discard pile except "
            "its top card into a new stock; with nothing to recycle, the round ends."
        )
    else:
        page.item(
            "If the stock runs out, finish the current action, then reveal and score; the "
            "discard pile is not recycled."
        )


def _ref_match(page: _Page, r: RuleSet) -> None:
    page.heading("The match")
    m = r.match
    page.item(_cap(_match(r)) + ".")
    if m.end != "single":
        if m.tie == "extra-round":
            page.item("A tie for the match is settled by one extra round among the tied players.")
        else:
            page.item("A tie for the match is shared.")
    if m.end in ("elimination", "limit") and m.exact_limit != "none":
        page.item(_cap(_exact_limit(r)) + ".")
    page.item(f"First dealer: {_first_dealer(r)}. First to play: {_starter(r)}.")
    if r.teams.size <= 1:
        page.item("No teams: everyone plays alone.")
