"""Written positions: the whole state of a round in one line of text, like chess's FEN.

:func:`write_position` (``Round.position()``) writes a round's state; :func:`read_position`
(``Round.from_position(rules, text)``) builds a playable round from such a line. The
line is a handful of fields separated by single spaces, seven that are always there and
then ``key=value`` options, written only when they differ from their default::

    SEATS HELD DISCARD STOCK PHASE CURRENT TURNS [call=..] [owed=..] [window=..]
        [peeked=..] [opening=..] [repeek=..] [recycles=..] [closed=..] [dealer=..]
        [starter=..] [seed=..] [ply=..]

A card is its name with marks: ``@SEATS`` who knows it, ``#`` a penalty card in a grid
position, ``!`` the card whose power is in use. A read line is checked by the same
invariants as a loaded save (:func:`cambio.invariants.state_problem`, the event log
apart); every problem is a :class:`~cambio.errors.PositionError` (a
:class:`~cambio.errors.SaveError`) naming the column.

``docs/positions.md`` describes every field with examples. A short one, a two-player
round of the practice table where seat 0 is about to take its first turn; each seat has
seen its own two near cards (``@0``), the discard pile holds 9S, and the stock starts
with 10S and then, as ``...`` says when reading, every other card in the deck's order:

>>> import cambio
>>> text = "AS,2S,3S@0,4S@0/5S,6S,7S@1,8S@1 - 9S 10S,... turn 0 0,0"
>>> r = cambio.Round.from_position("practice", text)
>>> [str(c) for c in r.hand(0) if c is not None]
['AS', '2S', '3S', '4S']
>>> r.view(1).known(0, 3) is None, r.view(0).known(0, 3)
(True, Card(rank='3', suit='S'))
>>> written = r.position()  # always in full: the whole stock, top card first
>>> written.split(" ")[3][:15]
'10S,AH,AD,AC,2H'
>>> cambio.Round.from_position("practice", written) == cambio.Round.from_position("practice", text)
True
>>> cambio.Round.from_position("practice", text.replace("9S", "AS"))
Traceback (most recent call last):
...
cambio.errors.PositionError: column 35: AS is written a second time; the deck holds 1

What a position cannot carry is the round's past: the events, the actions taken and so
each player's history. A round built from a position starts its history there: its
:attr:`~cambio.Round.events`, :attr:`~cambio.Round.actions` and every view's ``history``
are empty until the next action, while everything else a view shows (the grids each
player knows, the discard pile, whose turn, the held card, the power step, the window)
is the same as in the round the position was written from. The count of actions taken
(``ply``) is kept, because the random order of simultaneous snaps is drawn from it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING

from .cards import Card
from .errors import PositionError
from .loading import as_ruleset
from .rules import RuleSet

if TYPE_CHECKING:
    from .round import Phase, Round

__all__ = ["SEAT_CHARS", "check_position", "describe", "read_position", "write_position"]

SEAT_CHARS = "0123456789abcdefghijklmnopqrstuvwxyz"
"""The one-character seat names of a knowledge mark (``@02``: seats 0 and 2 know it)."""

_RESERVED = frozenset(" @!#,/+:=")
"""Characters a card's name may not hold in a position (they separate its parts)."""

_PHASE_NAMES = {
    "opening": "OPENING",
    "turn": "TURN",
    "drawn": "DRAWN",
    "taken": "TAKEN",
    "power": "POWER",
    "end": "END_OF_TURN",
    "give": "GIVE",
    "over": "OVER",
    "closing": "CLOSING",
}

_OPTION_KEYS = (
    "call",
    "owed",
    "window",
    "peeked",
    "opening",
    "repeek",
    "recycles",
    "closed",
    "dealer",
    "starter",
    "seed",
    "ply",
)

_REASON = re.compile(r"[a-z][a-z-]*\Z")
_REST = "..."
"""Written last in the stock field when reading: every card not written elsewhere, face
down, in the order of the table's deck (a position is always written out in full)."""

_MOST_DIGITS = 4000
"""The longest number a line may hold: below the 4,300 digits Python converts at all, and
far above any seed or count a round writes."""

_CLOSING_REASONS = ("stock", "turn-cap", "call")
"""The reasons a round can wait in the closing phase for (the end of a turn's reasons)."""


# --------------------------------------------------------------------------- writing
def _seat_set(bits: int, players: int) -> str:
    if bits == (1 << players) - 1:
        return "*"
    if bits == 0:
        return "-"
    return "".join(SEAT_CHARS[p] for p in range(players) if bits >> p & 1)


def _card_names(rules: RuleSet) -> dict[str, Card]:
    """Each card name of the table's deck, with its card; refuses names a line cannot hold."""
    names: dict[str, Card] = {}
    for card in rules.deck.cards():
        name = str(card)
        other = names.get(name)
        if other is not None and other != card:
            raise ValueError(f"two different cards of this table are both written {name}")
        if name in ("-", _REST) or _RESERVED & set(name):
            raise ValueError(f"the card {name!r} cannot be written in a position")
        names[name] = card
    return names


def _phase_text(rnd: Round, phase: Phase) -> str:
    from .round import Phase

    if phase is Phase.POWER:
        return f"power:{rnd._step + 1}"
    if phase is Phase.GIVE:
        owner, i = divmod(rnd._give_target, rnd._P)
        back = _phase_text(rnd, rnd._give_return)
        return f"give:{rnd._snapper}:{owner}.{i + 1}:{back}"
    if phase is Phase.CLOSING:
        return f"closing:{rnd._closing_reason}"
    if phase is Phase.OVER:
        result = rnd._result
        reason = result.reason if result is not None else "call"
        text = f"over:{reason}"
        winner = _empty_winner(rnd)
        if winner is not None:
            text += f":{winner}"
        return text
    return {v: k for k, v in _PHASE_NAMES.items()}[phase.name]


def _empty_winner(rnd: Round) -> int | None:
    """The seat whose emptied grid won the finished round outright, if one did.

    The result does not name it, so it is the empty seat whose outright win scores the
    hands exactly as the result says (``None`` when ordinary scoring does).
    """
    from .scoring import score_round

    result = rnd._result
    if result is None or result.reason != "empty-grid":
        return None
    hands = [[(i + 1, rnd.deck[c]) for i, c in enumerate(row) if c >= 0] for row in rnd._slots]
    for seat in [None, *(p for p, row in enumerate(rnd._slots) if all(c < 0 for c in row))]:
        again = score_round(
            rnd.rules, hands, reason=result.reason, caller=rnd.caller, empty_winner=seat
        )
        if again == result:
            return seat
    return None


def _default_opening(rnd: Round) -> tuple[int, ...]:
    opening = rnd.rules.opening
    if opening.count > 0 and not rnd._opening_choices:
        return tuple(sorted(opening.positions))
    return ()


def write_position(rnd: Round) -> str:
    """The one-line position of ``rnd`` (see the module docstring and docs/positions.md)."""
    if rnd.players > len(SEAT_CHARS):
        raise ValueError(f"a position names at most {len(SEAT_CHARS)} seats")
    from .round import Phase

    _card_names(rnd.rules)
    n = rnd.players
    everyone = rnd._ALL
    marked = rnd._power_card if rnd._power_now is not None else -1
    deck, known, penalty = rnd.deck, rnd._known, rnd._penalty_of

    def card(c: int, default: int) -> str:
        text = str(deck[c])
        if known[c] != default:
            text += "@" + _seat_set(known[c], n)
        if c in penalty:
            text += "#"
        if c == marked:
            text += "!"
        return text

    def slots(cs: list[int]) -> str:
        return ",".join("-" if c < 0 else card(c, 0) for c in cs)

    seats = []
    G = rnd._G
    for row in rnd._slots:
        extra = row[G:]
        while extra and extra[-1] < 0:
            extra.pop()
        seats.append(slots(row[:G]) + ("+" + slots(extra) if extra else ""))
    held = "-"
    if rnd._drawn >= 0:
        held = ("s:" if rnd._from_stock else "d:") + card(rnd._drawn, 0)
    discard = ",".join(card(c, everyone) for c in reversed(rnd._discard)) or "-"
    stock = ",".join(card(c, 0) for c in reversed(rnd._stock)) or "-"
    fields = [
        "/".join(seats),
        held,
        discard,
        stock,
        _phase_text(rnd, rnd._phase),
        str(rnd._current),
        ",".join(str(t) for t in rnd._turns),
    ]
    if rnd._caller >= 0:
        final = ",".join(str(p) for p in rnd._final) or "-"
        fields.append(f"call={rnd._caller}:{final}")
    if rnd._calls_owed:
        fields.append("owed=" + ",".join(str(p) for p in range(n) if rnd._calls_owed >> p & 1))
    if rnd._window_open:
        who = "-" if rnd._window_discarder < 0 else str(rnd._window_discarder)
        tried = ",".join(str(p) for p in range(n) if rnd._window_tried >> p & 1)
        if rnd._window_won:
            fields.append(f"window={who}:{tried or '-'}:won")
        else:
            fields.append(f"window={who}" + (":" + tried if tried else ""))
    if rnd._power_now is not None and rnd._peeked:
        P = rnd._P
        fields.append("peeked=" + ",".join(f"{g // P}.{g % P + 1}" for g in rnd._peeked))
    default = _default_opening(rnd)
    if any(seen != default for seen in rnd._opening_seen):
        per_seat = [",".join(str(x) for x in seen) or "-" for seen in rnd._opening_seen]
        fields.append("opening=" + "/".join(per_seat))
    if rnd._repeek_used:
        fields.append("repeek=" + ",".join(str(p) for p in range(n) if rnd._repeek_used >> p & 1))
    if rnd._recycles:
        fields.append(f"recycles={rnd._recycles}")
    closing = rnd._phase is Phase.CLOSING or (
        rnd._phase is Phase.GIVE and rnd._give_return is Phase.CLOSING
    )
    if rnd._closing_reason and not closing:
        fields.append(f"closed={rnd._closing_reason}")
    if rnd.dealer != n - 1:
        fields.append(f"dealer={rnd.dealer}")
    if rnd.starter != (rnd.dealer + 1) % n:
        fields.append(f"starter={rnd.starter}")
    if rnd.seed:
        fields.append(f"seed={rnd.seed}")
    ply = rnd._plies_before + len(rnd._actions)
    if ply:
        fields.append(f"ply={ply}")
    return " ".join(fields)


# --------------------------------------------------------------------------- reading
class _Cursor:
    """A piece of the line and the column (1-based) where it starts."""

    __slots__ = ("col", "text")

    def __init__(self, text: str, col: int) -> None:
        self.text = text
        self.col = col

    def fail(self, message: str, offset: int = 0) -> PositionError:
        return PositionError(self.col + offset, message)

    def split(self, sep: str) -> list[_Cursor]:
        out = []
        start = 0
        for part in self.text.split(sep):
            out.append(_Cursor(part, self.col + start))
            start += len(part) + len(sep)
        return out

    def number(self, what: str, *, low: int = 0, high: int | None = None) -> int:
        text = self.text
        if not text.isdigit() or not text.isascii():
            raise self.fail(f"expected {what} (a whole number), found {text!r}")
        if len(text.lstrip("0")) > _MOST_DIGITS:
            raise self.fail(f"expected {what} of at most {_MOST_DIGITS} digits")
        value = int(text)
        if value < low or (high is not None and value > high):
            bound = f"from {low} to {high}" if high is not None else f"of at least {low}"
            raise self.fail(f"expected {what} {bound}, found {value}")
        return value


class _Placed:
    """A card read from the line: the card, where it was written, who knows it, its marks."""

    __slots__ = ("card", "col", "known", "marked", "penalty")

    def __init__(self, card: Card, col: int, known: int, marked: bool, penalty: bool) -> None:
        self.card = card
        self.col = col
        self.known = known
        self.marked = marked
        self.penalty = penalty


class _Reader:
    def __init__(self, rules: RuleSet, text: str) -> None:
        self.rules = rules
        self.text = text
        try:
            self.names = _card_names(rules)
        except ValueError as exc:
            raise PositionError(1, str(exc)) from None
        self.players = 0

    def seat(self, cur: _Cursor, what: str = "a seat") -> int:
        return cur.number(what, high=self.players - 1)

    def seats(self, cur: _Cursor, what: str) -> list[int]:
        if cur.text == "-":
            return []
        return [self.seat(part, what) for part in cur.split(",")]

    def card(self, cur: _Cursor, default: int) -> _Placed:
        text = cur.text
        marked = text.endswith("!")
        if marked:
            text = text[:-1]
        penalty = text.endswith("#")
        if penalty:
            text = text[:-1]
        name, at, mark = text.partition("@")
        card = self.names.get(name)
        if card is None:
            what = f"found {name!r}" if name else "found nothing"
            raise cur.fail(f"expected a card of this table's deck (such as KH), {what}")
        known = default
        if at:
            known = self._seat_set(_Cursor(mark, cur.col + len(name) + 1))
        return _Placed(card, cur.col, known, marked, penalty)

    def _seat_set(self, cur: _Cursor) -> int:
        everyone = (1 << self.players) - 1
        if cur.text == "*":
            return everyone
        if cur.text == "-":
            return 0
        if not cur.text:
            raise cur.fail("expected the seats that know the card after @ (such as 02, * or -)")
        bits = 0
        for k, ch in enumerate(cur.text):
            p = SEAT_CHARS.find(ch)
            if not 0 <= p < self.players:
                raise cur.fail(
                    f"expected a seat from 0 to {SEAT_CHARS[self.players - 1]} "
                    f"(or * for everyone), found {ch!r}",
                    k,
                )
            if bits >> p & 1:
                raise cur.fail(f"seat {ch} is named twice", k)
            bits |= 1 << p
        return bits

    def pile(self, cur: _Cursor, default: int) -> list[_Placed]:
        if cur.text == "-":
            return []
        return [self.card(part, default) for part in cur.split(",")]


def _fields(text: str) -> list[_Cursor]:
    if "\n" in text.strip() or "\t" in text:
        raise PositionError(1, "a position is one line of fields separated by single spaces")
    out = []
    col = 1
    for part in text.split(" "):
        if not part:
            raise PositionError(col, "expected a field here (fields are separated by one space)")
        out.append(_Cursor(part, col))
        col += len(part) + 1
    return out


def read_position(rules: RuleSet | str, text: object) -> Round:
    """A playable round from a written position (``Round.from_position``).

    Raises :class:`~cambio.errors.PositionError` (a :class:`~cambio.errors.SaveError`)
    naming the column and what was expected there, for a line that cannot be read or a
    position that breaks the rules of the table (a card in two places, a seat out of
    range, a phase that does not fit the rest).
    """
    from .round import Phase, Round

    rules = as_ruleset(rules)
    if not isinstance(text, str):
        raise PositionError(1, f"expected a position as text, found {type(text).__name__}")
    fields = _fields(text.strip())
    names = "seats, held card, discard pile, stock, phase, current seat, turn counts"
    if len(fields) < 7:
        end = len(text.rstrip()) + 1
        missing = names.split(", ")[len(fields)]
        raise PositionError(end, f"expected the {missing} field (a position starts with {names})")
    rd = _Reader(rules, text)
    G, P = rules.grid.size, rules.grid.max_positions
    # --- seats
    seat_fields = fields[0].split("/")
    n = len(seat_fields)
    lo, hi = rules.players.min, min(rules.players.max, len(SEAT_CHARS))
    if not lo <= n <= hi:
        raise fields[0].fail(
            f"expected {lo} to {hi} seats separated by /, found {n} (the {rules.name} table)"
        )
    if rules.teams.size > 1 and n % rules.teams.size:
        raise fields[0].fail(f"expected a multiple of the team size {rules.teams.size} seats")
    rd.players = n
    everyone = (1 << n) - 1
    placed: list[_Placed] = []
    rows: list[list[_Placed | None]] = []
    cell_cols: list[list[int]] = []
    for seat in seat_fields:
        grid, plus, extra = seat.text.partition("+")
        cells = _Cursor(grid, seat.col).split(",")
        if len(cells) != G:
            raise seat.fail(
                f"expected {G} grid positions separated by commas (- for an empty one), "
                f"found {len(cells)}"
            )
        if plus:
            more = _Cursor(extra, seat.col + len(grid) + 1).split(",")
            if len(more) > P - G:
                raise more[0].fail(
                    f"expected at most {P - G} extra positions after + on this table, "
                    f"found {len(more)}"
                )
            if more[-1].text == "-":
                raise more[-1].fail("expected a card (trailing empty extra positions are left out)")
            cells += more
        row: list[_Placed | None] = []
        for cell in cells:
            if cell.text == "-":
                row.append(None)
            else:
                card = rd.card(cell, 0)
                row.append(card)
                placed.append(card)
        rows.append(row + [None] * (P - len(row)))
        cell_cols.append([c.col for c in cells] + [seat.col] * (P - len(cells)))
    grid_cards = len(placed)
    # --- held card
    held: _Placed | None = None
    from_stock = False
    f = fields[1]
    if f.text != "-":
        source, colon, rest = f.text.partition(":")
        if not colon or source not in ("s", "d"):
            raise f.fail(
                "expected the held card as s:CARD (drawn from the stock) or d:CARD "
                f"(taken from the discard pile), or - for none; found {f.text!r}"
            )
        from_stock = source == "s"
        held = rd.card(_Cursor(rest, f.col + 2), 0)
        placed.append(held)
    discard = rd.pile(fields[2], everyone)
    stock_parts = fields[3].split(",")
    rest_at = stock_parts[-1] if stock_parts[-1].text == _REST else None
    if rest_at is not None:
        top = ",".join(p.text for p in stock_parts[:-1]) or "-"
        stock = rd.pile(_Cursor(top, fields[3].col), 0)
    else:
        stock = rd.pile(fields[3], 0)
    placed += discard + stock
    for pl in placed[grid_cards:]:
        if pl.penalty:
            raise PositionError(pl.col, "only a card in a seat's positions can be marked #")
    # --- phase
    state = _PhaseState()
    _read_phase(rd, fields[4], state, P)
    current = rd.seat(fields[5], "the seat whose turn it is")
    turn_fields = fields[6].split(",")
    if len(turn_fields) != n:
        raise fields[6].fail(f"expected {n} turn counts (one per seat), found {len(turn_fields)}")
    turns = [t.number("a turn count") for t in turn_fields]
    # --- options
    opts = _read_options(rd, fields[7:], G)

    # --- the cards: exactly the table's deck
    deck_count = Counter(rules.deck.cards())
    seen: Counter[Card] = Counter()
    for pl in placed:
        seen[pl.card] += 1
        if seen[pl.card] > deck_count[pl.card]:
            raise PositionError(
                pl.col,
                f"{pl.card} is written a {_ordinal(seen[pl.card])} time; "
                f"the deck holds {deck_count[pl.card]}",
            )
    if rest_at is not None:
        left = deck_count - seen
        for deck_card in rules.deck.cards():
            if left[deck_card] > 0:
                left[deck_card] -= 1
                face_down = _Placed(deck_card, rest_at.col, 0, False, False)
                stock.append(face_down)
                placed.append(face_down)
    if len(placed) != sum(deck_count.values()):
        absent = sorted(str(c) for c in (deck_count - seen).elements())
        raise PositionError(
            1,
            f"the position holds {len(placed)} cards; the {rules.name} table's deck has "
            f"{sum(deck_count.values())} (missing: {', '.join(absent[:8])}"
            f"{', ...' if len(absent) > 8 else ''})",
        )

    # --- build the round: cards in the order written, then the state
    order = [pl.card for pl in placed]
    dealer = opts.dealer if opts.dealer is not None else n - 1
    starter = opts.starter if opts.starter is not None else (dealer + 1) % n
    rnd = Round(rules, n, seed=opts.seed, deck=order, dealer=dealer, starter=starter)
    index = {id(pl): k for k, pl in enumerate(placed)}
    rnd._slots = [[-1 if pl is None else index[id(pl)] for pl in row] for row in rows]
    rnd._drawn = -1 if held is None else index[id(held)]
    rnd._from_stock = from_stock if held is not None else False
    rnd._discard = [index[id(pl)] for pl in reversed(discard)]
    rnd._stock = [index[id(pl)] for pl in reversed(stock)]
    rnd._known = [pl.known for pl in placed]
    rnd._phase = Phase[state.phase]
    rnd._current = current
    rnd._turns = turns
    rnd._total_turns = sum(turns)
    rnd._caller = opts.caller
    rnd._final = opts.final
    rnd._window_open = opts.window
    rnd._window_discarder = opts.discarder
    rnd._window_tried = opts.tried
    rnd._window_won = opts.won
    rnd._calls_owed = opts.owed
    rnd._closing_reason = state.closing if state.closing else opts.closed
    rnd._penalty_of = {
        index[id(pl)]: p
        for p, row in enumerate(rows)
        for pl in row
        if pl is not None and pl.penalty
    }
    rnd._snapper = state.snapper
    rnd._give_target = state.give_target
    rnd._give_return = Phase[state.give_return]
    marks = [pl for pl in placed if pl.marked]
    power_phase = state.phase == "POWER" or state.give_return == "POWER"
    if len(marks) > 1:
        raise PositionError(marks[1].col, "expected one card marked ! (the power in use)")
    if power_phase and not marks:
        raise fields[4].fail("in a power step, expected the card whose power is used marked !")
    # a round that ended during a power step (a snap emptied the grid) keeps its mark
    if marks and not power_phase and state.phase != "OVER":
        raise PositionError(marks[0].col, "a card is marked ! (power in use) outside a power step")
    rnd._power_now = None
    rnd._power_card = -1
    rnd._step = 0
    rnd._after_power_drawn = False
    if marks:
        c = index[id(marks[0])]
        power = rnd._power[c]
        if power is None:
            raise PositionError(marks[0].col, f"{rnd.deck[c]} has no power on this table")
        if state.step >= len(power.steps):
            raise fields[4].fail(
                f"expected a step from 1 to {len(power.steps)} of {rnd.deck[c]}'s power, "
                f"found {state.step + 1}"
            )
        rnd._power_now = power
        rnd._power_card = c
        rnd._step = state.step
        rnd._after_power_drawn = c == rnd._drawn
    rnd._peeked = [o * P + i - 1 for o, i in opts.peeked]
    if opts.peeked and not marks:
        raise fields[4].fail("peeked= is only written during a power step")
    default_opening = _default_opening(rnd)
    rnd._opening_seen = opts.opening if opts.opening is not None else [default_opening] * n
    if len(rnd._opening_seen) != n:
        raise PositionError(opts.opening_col, f"expected opening positions for {n} seats")
    rnd._pending = []
    if rnd._phase is Phase.OPENING:
        rnd._pending = [
            (starter + k) % n for k in range(n) if not rnd._opening_seen[(starter + k) % n]
        ]
    rnd._repeek_used = opts.repeek
    rnd._recycles = opts.recycles
    rnd._plies_before = opts.ply
    rnd._events = []
    rnd._histories = [() for _ in range(n)]
    rnd._actions = []
    rnd._drop_caches()
    rnd._result = None
    _check_phase(rnd, fields, opts)
    if rnd._phase is Phase.OVER:
        _score(rnd, state)
    check_position(rnd, _Columns(fields, opts, [pl.col for pl in placed], cell_cols))
    rnd._state_set()
    rnd._origin = write_position(rnd)
    return rnd


def _ordinal(k: int) -> str:
    return {2: "second", 3: "third"}.get(k, f"{k}th")


class _PhaseState:
    __slots__ = (
        "closing",
        "give_return",
        "give_target",
        "phase",
        "reason",
        "snapper",
        "step",
        "winner",
    )

    def __init__(self) -> None:
        self.closing = ""
        self.phase = "TURN"
        self.step = 0
        self.snapper = -1
        self.give_target = -1
        self.give_return = "TURN"
        self.reason = ""
        self.winner: int | None = None


def _read_phase(rd: _Reader, cur: _Cursor, state: _PhaseState, P: int) -> None:
    parts = cur.split(":")
    name = parts[0].text
    known = ", ".join(_PHASE_NAMES)
    if name not in _PHASE_NAMES:
        raise cur.fail(f"expected a phase ({known}), found {name!r}")
    state.phase = _PHASE_NAMES[name]
    if name == "power":
        if len(parts) != 2:
            raise cur.fail("expected the power step as power:STEP (1 for the first step)")
        state.step = parts[1].number("a power step", low=1) - 1
    elif name == "give":
        if len(parts) < 4:
            raise cur.fail(
                "expected give:SNAPPER:OWNER.POSITION:PHASE (who gives, the emptied position, "
                "the phase to return to)"
            )
        state.snapper = rd.seat(parts[1], "the seat that gives a card")
        owner, dot, pos = parts[2].text.partition(".")
        if not dot:
            raise parts[2].fail("expected the emptied position as OWNER.POSITION (such as 1.3)")
        o = rd.seat(_Cursor(owner, parts[2].col), "the owner of the emptied position")
        i = _Cursor(pos, parts[2].col + len(owner) + 1).number("a position", low=1, high=P)
        state.give_target = o * P + i - 1
        back = _Cursor(":".join(p.text for p in parts[3:]), parts[3].col)
        inner = _PhaseState()
        _read_phase(rd, back, inner, P)
        if inner.phase in ("GIVE", "OVER", "OPENING"):
            raise back.fail("expected the phase of a turn to return to after the give")
        state.give_return = inner.phase
        state.step = inner.step
        state.closing = inner.closing
    elif name == "closing":
        if len(parts) != 2 or parts[1].text not in _CLOSING_REASONS:
            raise cur.fail(
                "expected closing:REASON, the reason the round ends with once its last "
                f"discard can no longer be snapped ({', '.join(_CLOSING_REASONS)})"
            )
        state.closing = parts[1].text
    elif name == "over":
        if len(parts) not in (2, 3) or not _REASON.match(parts[1].text):
            raise cur.fail("expected over:REASON (such as over:call) or over:empty-grid:SEAT")
        state.reason = parts[1].text
        if len(parts) == 3:
            state.winner = rd.seat(parts[2], "the seat whose empty grid won")
    elif len(parts) != 1:
        raise parts[1].fail(f"the phase {name} takes nothing after it")


class _Options:
    def __init__(self) -> None:
        self.caller = -1
        self.final: list[int] = []
        self.window = False
        self.discarder = -1
        self.tried = 0
        self.won = False
        self.owed = 0
        self.closed = ""
        self.peeked: list[tuple[int, int]] = []
        self.opening: list[tuple[int, ...]] | None = None
        self.opening_col = 1
        self.repeek = 0
        self.recycles = 0
        self.dealer: int | None = None
        self.starter: int | None = None
        self.seed = 0
        self.ply = 0
        self.cols: dict[str, int] = {}


def _read_options(rd: _Reader, fields: list[_Cursor], G: int) -> _Options:
    opts = _Options()
    last = -1
    n = rd.players
    for f in fields:
        key, eq, value = f.text.partition("=")
        if not eq or key not in _OPTION_KEYS:
            raise f.fail(f"expected an option KEY=VALUE with a key among {', '.join(_OPTION_KEYS)}")
        k = _OPTION_KEYS.index(key)
        if k <= last:
            raise f.fail(f"expected the options in the order {', '.join(_OPTION_KEYS)}, once each")
        last = k
        opts.cols[key] = f.col
        v = _Cursor(value, f.col + len(key) + 1)
        if key == "call":
            who, colon, final = value.partition(":")
            if not colon:
                raise v.fail("expected call=CALLER:FINAL (the final turns left in order, or -)")
            opts.caller = rd.seat(_Cursor(who, v.col), "the caller's seat")
            opts.final = rd.seats(_Cursor(final, v.col + len(who) + 1), "a seat with a final turn")
        elif key == "owed":
            for p in rd.seats(v, "a seat that owes a call"):
                opts.owed |= 1 << p
        elif key == "window":
            parts = v.split(":")
            if len(parts) > 3 or (len(parts) == 3 and parts[2].text != "won"):
                raise v.fail("expected window=DISCARDER[:TRIED[:won]] (such as window=1:0,2)")
            who = parts[0].text
            opts.window = True
            opts.discarder = -1 if who == "-" else rd.seat(parts[0], "a seat or -")
            if len(parts) > 1:
                for p in rd.seats(parts[1], "a seat that tried"):
                    opts.tried |= 1 << p
            opts.won = len(parts) == 3
        elif key == "closed":
            if value not in _CLOSING_REASONS:
                raise v.fail(
                    "expected the reason the round waited in its closing phase for "
                    f"({', '.join(_CLOSING_REASONS)}), found {value!r}"
                )
            opts.closed = value
        elif key == "peeked":
            for part in v.split(","):
                owner, dot, pos = part.text.partition(".")
                if not dot:
                    raise part.fail("expected a peeked position as OWNER.POSITION")
                o = rd.seat(_Cursor(owner, part.col), "the owner of a peeked position")
                i = _Cursor(pos, part.col + len(owner) + 1).number(
                    "a position", low=1, high=rd.rules.grid.max_positions
                )
                opts.peeked.append((o, i))
        elif key == "opening":
            opts.opening_col = v.col
            per_seat = v.split("/")
            if len(per_seat) != n:
                raise v.fail(f"expected the opening positions of {n} seats separated by /")
            opts.opening = []
            for seat in per_seat:
                if seat.text == "-":
                    opts.opening.append(())
                    continue
                ps = tuple(p.number("a grid position", low=1, high=G) for p in seat.split(","))
                opts.opening.append(ps)
        elif key == "repeek":
            for p in rd.seats(v, "a seat that used its re-peek"):
                opts.repeek |= 1 << p
        elif key == "recycles":
            opts.recycles = v.number("a count of recycles")
        elif key == "dealer":
            opts.dealer = rd.seat(v, "the dealer's seat")
        elif key == "starter":
            opts.starter = rd.seat(v, "the starting seat")
        elif key == "seed":
            opts.seed = v.number("a seed")
        else:
            opts.ply = v.number("a count of actions")
    return opts


def _check_phase(rnd: Round, fields: list[_Cursor], opts: _Options) -> None:
    """Refuse a phase that does not fit the rest of the position."""
    from .round import Phase

    rules = rnd.rules
    phase = rnd._phase
    at = fields[4]
    turn_phase = rnd._give_return if phase is Phase.GIVE else phase
    held = rnd._drawn >= 0
    if turn_phase in (Phase.DRAWN, Phase.TAKEN) and not held:
        raise fields[1].fail(f"expected the held card in phase {at.text.split(':')[0]}")
    if turn_phase in (Phase.TURN, Phase.END_OF_TURN, Phase.OPENING) and held:
        raise fields[1].fail("expected no held card (-) in this phase")
    if turn_phase is Phase.POWER and held and not rnd._after_power_drawn:
        raise fields[1].fail("a held card in a power step must be the card whose power is used")
    if held and turn_phase is not Phase.OVER:
        want_stock = turn_phase is not Phase.TAKEN
        if rnd._from_stock != want_stock:
            raise fields[1].fail(f"expected {'s:' if want_stock else 'd:'} in this phase")
    if phase is Phase.OPENING:
        if not rnd._opening_choices:
            raise at.fail("this table has no opening choice, so no opening phase")
        if not rnd._pending:
            raise at.fail("in the opening phase, some seat must still choose its peek")
        if rnd._current != rnd.starter:
            raise fields[5].fail(
                f"in the opening phase the current seat is the starter, {rnd.starter}"
            )
    if phase is Phase.GIVE:
        owner, i = divmod(rnd._give_target, rnd._P)
        if rnd._slots[owner][i] >= 0:
            raise at.fail(f"the position {owner}.{i + 1} waiting for a card is not empty")
        if owner == rnd._snapper:
            raise at.fail("a player gives a card for another player's snapped card, not their own")
        if all(c < 0 for c in rnd._slots[rnd._snapper]):
            raise at.fail(f"seat {rnd._snapper} has no card to give")
    if rnd._caller < 0 and rnd._final:
        raise PositionError(opts.cols.get("call", 1), "final turns without a caller")
    if rnd._window_open:
        col = opts.cols["window"]
        if rules.snap.when == "never":
            raise PositionError(col, "this table has no snapping, so no window")
        if not rnd._discard:
            raise PositionError(col, "a window needs a discard to snap")
    if rnd._repeek_used and not rules.opening.re_peek:
        raise PositionError(opts.cols["repeek"], "this table has no re-peek")
    if phase is Phase.OVER and held:
        pass  # a round can end inside a turn (an emptied grid wins), holding a card


def _score(rnd: Round, state: _PhaseState) -> None:
    from .scoring import score_round

    hands = [[(i + 1, rnd.deck[c]) for i, c in enumerate(row) if c >= 0] for row in rnd._slots]
    rnd._result = score_round(
        rnd.rules, hands, reason=state.reason, caller=rnd.caller, empty_winner=state.winner
    )


class _Columns:
    """Where each piece of a read position was written, to name a broken invariant's column."""

    __slots__ = ("cards", "cells", "fields", "options")

    def __init__(
        self,
        fields: list[_Cursor],
        opts: _Options,
        cards: list[int],
        cells: list[list[int]],
    ) -> None:
        self.fields = [f.col for f in fields]
        self.options = opts.cols
        self.cards = cards
        self.cells = cells

    def of(self, rnd: Round, path: str, message: str = "") -> int:
        """The column of a state field named as :func:`~cambio.invariants.state_problem`
        names it (``slots[1][2]``, ``known[7]``, ``discard[0]``, ``caller``, ...)."""
        name, _, rest = path.partition("[")
        numbers = [int(x) for x in re.findall(r"\d+", rest)] if rest else []
        fields = self.fields
        if name == "slots" and len(numbers) == 2:
            return self.cells[numbers[0]][numbers[1]]
        if name == "slots" and numbers:
            return self.cells[numbers[0]][0]
        if name in ("known", "power_card") and numbers:
            return self.cards[numbers[0]]
        piles = {"discard": rnd._discard, "stock": rnd._stock}
        if name in piles and numbers and numbers[0] < len(piles[name]):
            return self.cards[piles[name][numbers[0]]]
        option = {
            "caller": "call",
            "final": "call",
            "window_open": "window",
            "window_discarder": "window",
            "window_tried": "window",
            "window_won": "window",
            "calls_owed": "owed",
            "peeked": "peeked",
            "opening_seen": "opening",
            "repeek_used": "repeek",
            "recycles": "recycles",
        }.get(name)
        if option in self.options:
            return self.options[option]
        mentioned = re.search(r"\bcard (\d+)\b", message)
        if mentioned and int(mentioned.group(1)) < len(self.cards):
            return self.cards[int(mentioned.group(1))]
        if name in ("slots", "penalty_of", ""):
            return fields[0]
        if name in ("drawn", "from_stock"):
            return fields[1]
        if name in ("discard", "window_open"):
            return fields[2]
        if name == "stock":
            return fields[3]
        if name == "current":
            return fields[5]
        if name in ("turns", "total_turns"):
            return fields[6]
        return fields[4]  # the phase and its pieces, the result


def check_position(rnd: Round, columns: _Columns | None = None) -> None:
    """Refuse a read position that breaks an invariant of a round's state.

    The checks are those every load of a saved round makes
    (:func:`cambio.invariants.state_problem`), apart from the event log, which a
    position does not carry; the error is a :class:`~cambio.errors.PositionError` (a
    :class:`~cambio.errors.SaveError`) at the column of the piece of the line that breaks
    it, and its message names the state field as a save would (``known[7]``).
    """
    from .invariants import state_problem

    problem = state_problem(rnd, events=False)
    if problem is None:
        return
    path, message = problem
    col = columns.of(rnd, path, message) if columns is not None else 1
    # the checker numbers cards by their place in the deal; the line writes their names
    message = re.sub(
        r"\bcard (\d+)\b",
        lambda m: f"card {rnd.deck[int(m.group(1))]}" if int(m.group(1)) < len(rnd.deck) else m[0],
        message,
    )
    where = f" (state field {path})" if path else ""
    raise PositionError(col, message + where)


def describe(rnd: Round, card: Callable[[Card | None], str] = str) -> str:
    """A drawing of the whole position for the terminal: every card, who knows it, the piles."""
    from .round import Phase

    n = rnd.players
    lines = []
    G = rnd._G
    rows = rnd.rules.grid.rows
    for p, row in enumerate(rnd._slots):
        marker = " *" if p == rnd.to_act else ""
        label = f"P{p}{marker}".ljust(5)
        out_rows = []
        i = 0
        for count in rows:
            out_rows.append(" ".join(_cell(rnd, row, j, card) for j in range(i, i + count)))
            i += count
        extra = [j for j in range(G, len(row)) if row[j] >= 0]
        if extra:
            out_rows.append("extra: " + " ".join(_cell(rnd, row, j, card) for j in extra))
        for k, text in enumerate(out_rows):
            lines.append((label if k == 0 else " " * 5) + text.rstrip())
    top = rnd._discard[-1] if rnd._discard else -1
    count = len(rnd._discard)
    pile = (
        f"{card(rnd.deck[top])} ({count} card{'s' if count != 1 else ''})" if top >= 0 else "empty"
    )
    nxt = f", next {card(rnd.deck[rnd._stock[-1]])}" if rnd._stock else ""
    lines.append(f"Discard: {pile}   Stock: {len(rnd._stock)} cards{nxt}")
    if rnd._drawn >= 0:
        source = "from the stock" if rnd._from_stock else "from the discard pile"
        lines.append(f"Held: {_known_text(rnd, rnd._drawn, card)} ({source})")
    phase = rnd._phase
    status = f"Phase: {phase.name.lower().replace('_', ' ')}"
    if rnd._power_now is not None:
        status += f" ({rnd._power_now.name or 'power'}, step {rnd._step + 1})"
    if phase is Phase.CLOSING:
        status += f" (then over: {rnd._closing_reason})"
    if phase is not Phase.OVER:
        status += f"   Turn: P{rnd._current}   To act: P{rnd.to_act}"
    lines.append(status)
    extras = [f"Turns taken: {', '.join(str(t) for t in rnd._turns)}"]
    if rnd._caller >= 0:
        final = ", ".join(f"P{p}" for p in rnd._final) or "none"
        extras.append(f"P{rnd._caller} called (final turns: {final})")
    if rnd._calls_owed:
        owed = ", ".join(f"P{p}" for p in range(n) if rnd._calls_owed >> p & 1)
        extras.append(f"owed calls: {owed}")
    if rnd._window_open:
        extras.append(
            "snap window open" + (" (won: a further snap is wrong)" if rnd._window_won else "")
        )
    lines.append("   ".join(extras))
    if phase is not Phase.OVER:
        legal = [str(a) for a in rnd.legal_actions()]
        lines.append(
            "Legal: "
            + (
                " | ".join(legal)
                if len(legal) <= 12
                else " | ".join(legal[:12]) + f" | ... ({len(legal)} in all)"
            )
        )
    elif rnd._result is not None:
        res = rnd._result
        scores = ", ".join(f"P{p} {s}" for p, s in enumerate(res.scores))
        won = ", ".join(f"P{p}" for p in res.winners)
        lines.append(f"Over ({res.reason}): scores {scores}; won: {won}")
    if rnd._penalty_of:
        lines.append("# marks a penalty card lying in a grid position")
    return "\n".join(lines)


def _known_text(rnd: Round, c: int, card: Callable[[Card | None], str]) -> str:
    bits = rnd._known[c]
    who = _seat_set(bits, rnd.players)
    label = {"*": "all", "-": "none"}.get(who, who)
    return f"{card(rnd.deck[c])}@{label}"


def _cell(rnd: Round, row: list[int], j: int, card: Callable[[Card | None], str]) -> str:
    c = row[j]
    text = "--" if c < 0 else _known_text(rnd, c, card) + ("#" if c in rnd._penalty_of else "")
    return f"[{j + 1}] {text:<8}"
