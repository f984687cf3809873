"""A fixed-length ``float32`` observation of one player's view, for learning code.

An :class:`Encoder` is made for one :class:`~cambio.rules.RuleSet` and one number of
players; its layout (:attr:`Encoder.features`) depends on nothing else, so every
observation of every round at that table has the same length and meaning. The vector
is computed from a :class:`~cambio.views.PlayerView` alone (plus the viewer's legal
action ids, which are themselves a function of the view), so it cannot leak a card the
viewer never saw.

Seat-indexed features are *relative*: block 0 is the viewer, block 1 the next seat
clockwise, and so on. The legal-action mask is over the table's own action ids
(:class:`~cambio.actions.ActionSpace`), which name seats absolutely; the ``seat`` feature
says which seat the viewer holds.

>>> import cambio
>>> from cambio.rl import Encoder
>>> r = cambio.Round("practice", 3, seed=1)
>>> enc = Encoder(r.rules, 3)
>>> x = enc.encode(r.view(0), r.legal_action_ids(0))
>>> x.shape == (enc.size,), str(x.dtype)
(True, 'float32')
>>> print(enc.describe(x).splitlines()[0])
seat: 0
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence

import attrs
import numpy as np
import numpy.typing as npt

from ..actions import ActionSpace, action_space, opening_choices
from ..cards import Card
from ..events import Event
from ..round import Phase
from ..rules import RuleSet
from ..views import PlayerView
from .knowledge import SeenBy

__all__ = ["Encoder", "Feature", "PHASES", "layout_markdown"]

PHASES: tuple[str, ...] = tuple(phase.name.lower() for phase in Phase)
"""The phase names a view can show (every :class:`cambio.Phase`), in the order of the
``phase`` one-hot."""


@attrs.frozen
class Feature:
    """One named block of the observation vector."""

    name: str
    offset: int
    size: int
    meaning: str


class _Layout:
    def __init__(self) -> None:
        self.features: list[Feature] = []
        self.size = 0

    def add(self, name: str, size: int, meaning: str) -> int:
        offset = self.size
        self.features.append(Feature(name, offset, size, meaning))
        self.size += size
        return offset


class Encoder:
    """The observation layout of one table and player count, and the encoding itself."""

    def __init__(self, rules: RuleSet, players: int) -> None:
        if not isinstance(rules, RuleSet):
            raise TypeError(f"expected a RuleSet, got {rules!r}")
        if isinstance(players, bool) or not isinstance(players, int):
            raise TypeError(f"players must be a whole number, got {players!r}")
        if not rules.players.min <= players <= rules.players.max:
            raise ValueError(
                f"the {rules.name} table seats {rules.players.min} to {rules.players.max} "
                f"players, not {players}"
            )
        self.rules = rules
        self.players = players
        n = players
        self.grid_size = rules.grid.size
        self.positions = P = rules.grid.max_positions
        self.ranks: tuple[str, ...] = rules.deck.rank_names()
        self._rank_index = {r: i for i, r in enumerate(self.ranks)}
        deck = rules.deck.cards()
        self.deck_size = len(deck)
        self._memos: dict[int, _Memo] = {}  # per viewer seat: see encode
        self._codes: dict[Card, tuple[float, int]] = {}  # see _card_code
        self._phase_index = {name: i for i, name in enumerate(PHASES)}
        # the cell table: each position's block is one of its rows; a row pair (not on
        # the grid, past it) for: no card, a card unknown, then each card of the deck
        self._cells = np.zeros((4, 4 + len(self.ranks)), dtype=np.float32)
        self._cells[1, 2] = self._cells[3, 2] = 1.0
        self._cells[2:4, 0] = 1.0
        self._cell_index: dict[Card, int] = {}
        self._penalty_cells = [1 if i >= rules.grid.size else 0 for i in range(P)]
        self._copies = [0] * len(self.ranks)
        for c in deck:
            self._copies[self._rank_index[c.rank]] += 1
        self._value_scale = float(max([1, *(abs(rules.values.of(c)) for c in deck)]))
        self.powers: tuple[str, ...] = tuple(
            p.name or f"power {i}" for i, p in enumerate(rules.powers.table)
        )
        self._power_index: dict[str, int] = {}
        for i, p in enumerate(rules.powers.table):
            self._power_index.setdefault(p.name, i)
        self.max_steps = max([1, *(len(p.steps) for p in rules.powers.table)])
        self.space: ActionSpace = action_space(
            n,
            P,
            opening_choices(rules.opening.positions, rules.opening.count),
            rules.turn.exchange_equal,
            rules.snap.several,
        )
        self._turn_scale = float(rules.turn.max_turns or self.deck_size)
        R = len(self.ranks)
        self._card_width = 4 + R  # present, known, penalty position, value, rank one-hot

        lay = _Layout()
        self._o_seat = lay.add("seat", n, "the viewer's seat (one-hot, absolute)")
        self._o_grids = lay.add(
            "grids",
            n * P * self._card_width,
            f"for each seat from the viewer on ({n}), each position ({P}): [card there, "
            "card known, penalty position (past the grid), value scaled by the largest absolute "
            "card value, "
            f"rank one-hot ({R})]",
        )
        self._o_seen = lay.add(
            "seen_by",
            n * P * n,
            f"for each seat from the viewer on ({n}), each position ({P}): which seats from "
            "the viewer on have seen the card there now (from public events)",
        )
        self._o_top = lay.add(
            "top_discard",
            2 + R,
            f"[a card there, value scaled by the largest absolute card value, rank one-hot ({R})]",
        )
        self._o_pile = lay.add(
            "discard_counts",
            R + 1,
            "cards of each rank in the discard pile / copies in the deck; "
            "last: pile size / deck size",
        )
        self._o_stock = lay.add("stock", 1, "stock size / deck size")
        self._o_held = lay.add(
            "held",
            5 + R,
            "the card the current player holds: [held, known, from the stock, from the "
            f"discard, value scaled by the largest absolute card value, rank one-hot ({R})]",
        )
        self._o_phase = lay.add("phase", len(PHASES), "phase one-hot: " + ", ".join(PHASES))
        self._o_power = lay.add(
            "power",
            len(self.powers) + 1,
            "the power in use (one-hot over the table's powers, last: none or not shown)",
        )
        self._o_step = lay.add(
            "power_step",
            self.max_steps + 2,
            f"the step's index (one-hot, {self.max_steps}), then [peek, swap]",
        )
        self._o_peeked = lay.add(
            "peeked", n * P, "positions peeked by the power in use (seats from the viewer on)"
        )
        self._o_window = lay.add("window_open", 1, "the top discard can be snapped now")
        self._o_current = lay.add("current", n, "whose turn it is (seats from the viewer on)")
        self._o_to_act = lay.add(
            "to_act",
            n + 1,
            "whose decision moves the round on (seats from the viewer on; last: nobody)",
        )
        self._o_caller = lay.add(
            "caller", n + 1, "who called (seats from the viewer on; last: nobody yet)"
        )
        self._o_turns = lay.add(
            "turns",
            n + 1,
            "turns taken by each seat from the viewer on, then in all, "
            "/ the turn cap (or the deck size when there is none), at most 1",
        )
        self._o_opening = lay.add(
            "opening",
            P + 1,
            "the viewer's opening-peek positions, then whether the re-peek is used",
        )
        self._o_mask = lay.add(
            "legal", self.space.size, "the viewer's legal actions over the table's action ids"
        )
        self.features: tuple[Feature, ...] = tuple(lay.features)
        self.size: int = lay.size
        for card in dict.fromkeys(deck):
            self._add_cell(card)

    # ------------------------------------------------------------------ encoding
    def _card(self, out: npt.NDArray[np.float32], at: int, card: Card) -> None:
        """Value then rank one-hot, from ``at``."""
        out[at] = self.rules.values.of(card) / self._value_scale
        out[at + 1 + self._rank_index[card.rank]] = 1.0

    def _card_code(self, card: Card) -> tuple[float, int]:
        """What :meth:`_card` writes: the scaled value and the rank's index."""
        code = self._codes.get(card)
        if code is None:
            code = self._codes[card] = (
                self.rules.values.of(card) / self._value_scale,
                self._rank_index[card.rank],
            )
        return code

    def _checked(self, view: PlayerView, legal: Iterable[int]) -> list[int]:
        if not isinstance(view, PlayerView):
            raise TypeError(f"expected a PlayerView, got {view!r}")
        n, P = self.players, self.positions
        widths = {len(row) for row in view.present} - {0}  # a match seat sitting out: ()
        if view.players != n or widths - {P}:
            raise ValueError(
                f"this encoder is for {n} players and {P} positions, not the view's "
                f"{view.players} and {sorted(widths)}"
            )
        ids = list(legal)
        size = self.space.size
        if ids and (min(ids) < 0 or max(ids) >= size):
            a = next(a for a in ids if not 0 <= a < size)
            raise ValueError(f"action id {a} is outside 0..{size - 1}")
        return ids

    def encode(self, view: PlayerView, legal: Iterable[int] = ()) -> npt.NDArray[np.float32]:
        """The observation of ``view``; ``legal`` are the viewer's legal action ids.

        The vector is a function of the view alone (it equals :meth:`encode_full`, bit for
        bit). It is updated from the viewer's previous encoding: a seat's block of
        positions is written again only where its row of the view is a new object (a
        round's views share the rows no event touched), the ``seen_by`` fold reads only
        the events that followed the history last read, the discard counts only the
        cards added on top, and the legal block only clears the ids set last time.
        """
        out = np.empty(self.size, dtype=np.float32)
        self.encode_into(view, legal, out)
        return out

    def encode_into(
        self, view: PlayerView, legal: Iterable[int], out: npt.NDArray[np.float32]
    ) -> None:
        """:meth:`encode` written into ``out`` (a ``float32`` array of :attr:`size`)."""
        ids = self._checked(view, legal)
        n, P = self.players, self.positions
        me = view.player
        memo = self._memos.get(me)
        if memo is None:
            memo = self._memos[me] = _Memo(self, me)
        vec = memo.vec
        # the positions, one seat's block at a time, each cell a row of the cell table
        grids, present = view.grids, view.present
        old_grids, old_present = memo.grids, memo.present
        cell = self._cell_index
        pen = self._penalty_cells
        for owner in range(n):
            row, here = grids[owner], present[owner]
            if row is old_grids[owner] and here == old_present[owner]:
                continue
            try:
                codes = [
                    ((2 if c is None else cell[c]) if h else 0) + p
                    for c, h, p in zip(row, here, pen, strict=False)
                ]
            except KeyError:  # a card the deck did not hold: give it its rows first
                for c in row:
                    if c is not None and c not in cell:
                        self._add_cell(c)
                codes = [
                    ((2 if c is None else cell[c]) if h else 0) + p
                    for c, h, p in zip(row, here, pen, strict=False)
                ]
            if len(codes) < P:
                codes.extend(pen[len(codes) :])  # no card there
            rel = (owner - me) % n
            np.take(self._cells, codes, axis=0, out=memo.grid_rows[rel * P : rel * P + P])
        # who has seen what: each position's row of the viewer's seen table
        masks = memo.seen_by(view.history)
        old_masks = memo.masks
        absent = memo.absent
        for owner in range(n):
            m_row, here = masks[owner], present[owner]
            if m_row == old_masks[owner] and here == old_present[owner]:
                continue
            codes = [m if h else absent for m, h in zip(m_row, here, strict=False)]
            if len(codes) < P:
                codes.extend([absent] * (P - len(codes)))
            rel = (owner - me) % n
            np.take(memo.seen_table, codes, axis=0, out=memo.seen_rows[rel * P : rel * P + P])
        memo.grids, memo.present, memo.masks = grids, present, masks
        # the table
        top = view.top_discard
        if top is not memo.top:
            o = self._o_top
            vec[o : o + 2 + len(self.ranks)] = 0.0
            if top is not None:
                value, rank = self._card_code(top)
                vec[o] = 1.0
                vec[o + 1] = value
                vec[o + 2 + rank] = 1.0
            memo.top = top
        discard = view.discard
        if discard is not memo.discard:
            o = self._o_pile
            old = memo.discard
            k = len(old)
            if k <= len(discard) and discard[:k] == old:
                new = discard[k:]
            else:
                vec[o : o + len(self.ranks)] = 0.0
                new = discard
            copies, index = self._copies, self._rank_index
            for pile_card in new:
                r = index[pile_card.rank]
                vec[o + r] += 1.0 / copies[r]
            vec[o + len(self.ranks)] = len(discard) / self.deck_size
            memo.discard = discard
        # the moment: every block from the stock to the opening, written again
        vec[self._o_stock : self._o_mask] = 0.0
        vec[self._o_stock] = view.stock_size / self.deck_size
        ones = [self._o_phase + self._phase_index[view.phase]]
        if view.holding_from_stock is not None:
            at = self._o_held
            ones.append(at)
            ones.append(at + 2 if view.holding_from_stock else at + 3)
            if view.holding is not None:
                value, rank = self._card_code(view.holding)
                ones.append(at + 1)
                ones.append(at + 5 + rank)
                vec[at + 4] = value
        power = view.power
        if power is not None and power in self._power_index:
            k = self._power_index[power]
            ones.append(self._o_power + k)
            step = view.power_step
            if step is not None:
                steps = self.rules.powers.table[k].steps
                if step in steps:
                    ones.append(self._o_step + steps.index(step))
                ones.append(self._o_step + self.max_steps + (step.action == "swap"))
        else:
            ones.append(self._o_power + len(self.powers))
        for owner, position in view.peeked:
            ones.append(self._o_peeked + ((owner - me) % n) * P + position - 1)
        if view.window_open:
            ones.append(self._o_window)
        ones.append(self._o_current + (view.current - me) % n)
        to_act, caller = view.to_act, view.caller
        ones.append(self._o_to_act + (n if to_act is None else (to_act - me) % n))
        ones.append(self._o_caller + (n if caller is None else (caller - me) % n))
        for position in view.opening_positions:
            ones.append(self._o_opening + position - 1)
        if view.re_peek_used:
            ones.append(self._o_opening + P)
        for i in ones:  # (a loop of item writes beats an index array for so few)
            vec[i] = 1.0
        turns = view.turns
        scale = self._turn_scale
        o = self._o_turns
        for seat, t in enumerate(turns):
            if t:
                vec[o + (seat - me) % n] = min(1.0, t / scale)
        total = sum(turns)
        if total:
            vec[o + n] = min(1.0, total / scale)
        # the legal actions: clear the last ones, set these
        if ids != memo.legal:
            legal_block = memo.legal_block
            for a in memo.legal:
                legal_block[a] = 0.0
            for a in ids:
                legal_block[a] = 1.0
            memo.legal = ids
        out[:] = vec

    def _add_cell(self, card: Card) -> int:
        """A row pair of the cell table for ``card`` (normally made for every card of the
        deck at the start); its index."""
        c = len(self._cells)
        rows = np.zeros((2, self._card_width), dtype=np.float32)
        value, rank = self._card_code(card)
        rows[:, 0] = 1.0
        rows[:, 1] = 1.0
        rows[1, 2] = 1.0
        rows[:, 3] = value
        rows[:, 4 + rank] = 1.0
        self._cells = np.concatenate([self._cells, rows])
        self._cell_index[card] = c
        return c

    def encode_full(self, view: PlayerView, legal: Iterable[int] = ()) -> npt.NDArray[np.float32]:
        """:meth:`encode` computed from the view alone, every block from scratch and the
        ``seen_by`` fold over the whole history (the reference :meth:`encode` equals)."""
        if not isinstance(view, PlayerView):
            raise TypeError(f"expected a PlayerView, got {view!r}")
        n, P = self.players, self.positions
        widths = {len(row) for row in view.present} - {0}  # a match seat sitting out: ()
        if view.players != n or widths - {P}:
            raise ValueError(
                f"this encoder is for {n} players and {P} positions, not the view's "
                f"{view.players} and {sorted(widths)}"
            )
        me = view.player
        out = np.zeros(self.size, dtype=np.float32)
        out[self._o_seat + me] = 1.0

        def rel(seat: int) -> int:
            return (seat - me) % n

        W = self._card_width
        for owner in range(n):
            base = self._o_grids + rel(owner) * P * W
            present = view.present[owner]
            for i in range(P):
                at = base + i * W
                if i < len(present) and present[i]:
                    out[at] = 1.0
                    card = view.grids[owner][i]
                    if card is not None:
                        out[at + 1] = 1.0
                        self._card(out, at + 3, card)
                if i >= self.grid_size:
                    out[at + 2] = 1.0
        fold = SeenBy(self.players, self.positions)
        fold.feed(view.history)
        masks = fold.masks()
        for owner in range(n):
            base = self._o_seen + rel(owner) * P * n
            for i in range(len(view.present[owner])):
                if not view.present[owner][i]:
                    continue
                m = masks[owner][i]
                for q in range(n):
                    if m >> q & 1:
                        out[base + i * n + rel(q)] = 1.0
        top = view.top_discard
        if top is not None:
            out[self._o_top] = 1.0
            self._card(out, self._o_top + 1, top)
        for c in view.discard:
            r = self._rank_index[c.rank]
            out[self._o_pile + r] += 1.0 / self._copies[r]
        out[self._o_pile + len(self.ranks)] = len(view.discard) / self.deck_size
        out[self._o_stock] = view.stock_size / self.deck_size
        if view.holding_from_stock is not None:
            at = self._o_held
            out[at] = 1.0
            out[at + 2 if view.holding_from_stock else at + 3] = 1.0
            if view.holding is not None:
                out[at + 1] = 1.0
                self._card(out, at + 4, view.holding)
        out[self._o_phase + PHASES.index(view.phase)] = 1.0
        if view.power is not None and view.power in self._power_index:
            k = self._power_index[view.power]
            out[self._o_power + k] = 1.0
            step = view.power_step
            if step is not None:
                steps = self.rules.powers.table[k].steps
                if step in steps:
                    out[self._o_step + steps.index(step)] = 1.0
                out[self._o_step + self.max_steps + (step.action == "swap")] = 1.0
        else:
            out[self._o_power + len(self.powers)] = 1.0
        for owner, position in view.peeked:
            out[self._o_peeked + rel(owner) * P + position - 1] = 1.0
        out[self._o_window] = float(view.window_open)
        out[self._o_current + rel(view.current)] = 1.0
        out[self._o_to_act + (n if view.to_act is None else rel(view.to_act))] = 1.0
        out[self._o_caller + (n if view.caller is None else rel(view.caller))] = 1.0
        for seat, t in enumerate(view.turns):
            out[self._o_turns + rel(seat)] = min(1.0, t / self._turn_scale)
        out[self._o_turns + n] = min(1.0, sum(view.turns) / self._turn_scale)
        for position in view.opening_positions:
            out[self._o_opening + position - 1] = 1.0
        out[self._o_opening + P] = float(view.re_peek_used)
        size = self.space.size
        for a in legal:
            if not 0 <= a < size:
                raise ValueError(f"action id {a} is outside 0..{size - 1}")
            out[self._o_mask + a] = 1.0
        return out

    # ------------------------------------------------------------------ reading it back
    def feature(self, name: str) -> Feature:
        """The block called ``name``."""
        for f in self.features:
            if f.name == name:
                return f
        raise KeyError(f"no feature called {name!r}")

    def describe(self, vector: Sequence[float] | npt.NDArray[np.float32]) -> str:
        """A readable form of an observation, one feature a line (for debugging)."""
        x = np.asarray(vector, dtype=np.float32)
        if x.shape != (self.size,):
            raise ValueError(f"expected a vector of {self.size} numbers, got shape {x.shape}")
        n, P, W = self.players, self.positions, self._card_width
        lines = [f"seat: {int(np.argmax(x[:n]))}"]
        for k in range(n):
            cells = []
            for i in range(P):
                at = self._o_grids + (k * P + i) * W
                if not x[at]:
                    cells.append("--")
                elif not x[at + 1]:
                    cells.append("??")
                else:
                    rank = self.ranks[int(np.argmax(x[at + 4 : at + W]))]
                    cells.append(f"{rank}={x[at + 3] * self._value_scale:g}")
            lines.append(f"grid +{k}: " + " ".join(cells))
        for f in self.features:
            if f.name in ("seat", "grids"):
                continue
            block = x[f.offset : f.offset + f.size]
            if f.name == "legal":
                ids = [int(a) for a in np.flatnonzero(block)]
                shown = ", ".join(str(self.space.decode(a)) for a in ids)
                lines.append(f"legal: {shown or '-'}")
                continue
            if f.name == "phase":
                lines.append(f"phase: {PHASES[int(np.argmax(block))]}")
                continue
            nz = np.flatnonzero(block)
            vals = " ".join(f"{int(i)}:{block[i]:.3g}" for i in nz)
            lines.append(f"{f.name}: {vals or '-'}")
        return "\n".join(lines)


def layout_markdown(encoder: Encoder) -> str:
    """The layout as a Markdown table: feature, offset, size, meaning."""
    rows = [
        f"Observation of `{encoder.rules.name}` for {encoder.players} players: "
        f"{encoder.size} numbers.",
        "",
        "| feature | offset | size | meaning |",
        "|---|---:|---:|---|",
    ]
    for f in encoder.features:
        rows.append(f"| `{f.name}` | {f.offset} | {f.size} | {f.meaning} |")
    return "\n".join(rows) + "\n"


class _Memo:
    """One viewer's last encoding and what it was computed from (see :meth:`Encoder.encode`)."""

    def __init__(self, encoder: Encoder, me: int) -> None:
        n = encoder.players
        self.encoder = encoder
        P = encoder.positions
        self.vec = vec = np.zeros(encoder.size, dtype=np.float32)
        vec[encoder._o_seat + me] = 1.0
        self.grid_rows = vec[encoder._o_grids : encoder._o_grids + n * P * encoder._card_width]
        self.grid_rows = self.grid_rows.reshape(n * P, encoder._card_width)
        self.seen_rows = vec[encoder._o_seen : encoder._o_seen + n * P * n].reshape(n * P, n)
        self.legal_block = vec[encoder._o_mask : encoder._o_mask + encoder.space.size]
        # the seen table: row m holds the seats of bit mask m, from this viewer on; the
        # last row (no card there) is zero
        self.absent = 1 << n
        self.seen_table = np.zeros((self.absent + 1, n), dtype=np.float32)
        for m in range(self.absent):
            for q in range(n):
                if m >> q & 1:
                    self.seen_table[m, (q - me) % n] = 1.0
        self.top: Card | None = None
        none: tuple[None, ...] = (None,) * n
        self.grids: tuple[object, ...] = none
        self.present: tuple[object, ...] = none
        self.masks: tuple[object, ...] = none
        self.discard: tuple[Card, ...] = ()  # the zeros of the vector encode it
        self.legal: list[int] = []
        self.history: tuple[Event, ...] = ()
        self.fold = SeenBy(n, encoder.positions)

    def seen_by(self, history: tuple[Event, ...]) -> tuple[tuple[int, ...], ...]:
        """The ``seen_by`` masks of ``history``, the fold fed only the events that follow
        the history it last read when that one is a prefix of this one (else refolded)."""
        before = self.history
        k = len(before)
        if k > len(history) or not all(map(operator.is_, before, history[:k])):
            self.fold = SeenBy(self.encoder.players, self.encoder.positions)
            k = 0
        if k < len(history):
            self.fold.feed(history[k:])
        self.history = history
        return self.fold.masks()
