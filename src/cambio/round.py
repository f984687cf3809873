"""One round of Cambio under any RuleSet: a state machine driven by actions.

>>> import cambio
>>> r = cambio.Round(cambio.RuleSet(), players=3, seed=7)
>>> r.to_act
0
>>> [str(a) for a in r.legal_actions()]
['P0 draw', 'P0 take', 'P0 call']
>>> events = r.apply(cambio.Action.draw(0))
>>> r.phase
<Phase.DRAWN: 2>

The round moves through phases: ``OPENING`` (players choose their opening peek when the
table gives a choice), then turns. A turn starts in ``TURN`` (draw, take the discard,
call, re-peek), goes to ``DRAWN`` or ``TAKEN`` (place or discard the card), ``POWER``
(the steps of a power, one action each), ``END_OF_TURN`` (only where calling is done at
the end of a turn) and, after a correct snap of another player's card, ``GIVE``.

Snapping is a *reaction window* on the top discard. A window opens when a card is
discarded during a turn (a replaced card, a discarded draw), and on the card the deal
turns face up where ``snap.dealt_discard`` and the table's timing reach it (the
starter counts as its discarder). It stays open until the top of the pile changes,
the card is taken, or somebody snaps correctly. While it is open, every eligible
player (see :class:`~cambio.rules.SnapRules`) has snap actions beside whoever holds
the turn, and may use them at any decision point; each player gets one attempt per
window. :attr:`Round.reactors` lists the players with snap actions
in the order a driver should ask them: seat order starting with the player who
discarded the card. :meth:`Round.resolve_snaps` applies snaps declared at the same
moment in the table's arbitration order.

Some tables keep more state around the window (see :class:`~cambio.rules.SnapRules`):

* ``snap.per_discard = "each"``: a correct snap does not close the window; the snapper
  has used its attempt and the others may still snap the same discard (the window's
  discarder, its tried players and the open flag are all the state there is).
* ``snap.too_late = "penalty"``: after the first correct snap the window stays open in a
  *won* state (:attr:`Round.window_won`); any snap of it then counts as wrong.
* ``snap.last_discard``: when the round would end after a turn while the window is open
  and somebody may still snap, the round waits in phase ``CLOSING``; the ending reason it
  will be scored with is held (:attr:`Round.closing_reason`). The player to act is the
  first reactor; it snaps or passes, and the round ends when nobody may snap any more.
* ``snap.penalty_position = "first-empty"``: a penalty card may lie in a grid position;
  such cards are remembered with their owner (:attr:`Round.penalty_cards`) so that they
  stay penalty cards for ``snap.penalty_peekable``.
* ``snap.empty_grid_calls = "next-turn"``: a hand emptied by snapping owes a call at its
  owner's next turn (:attr:`Round.calls_owed`, a set of seats).

What is public
--------------
A server may show these to every player: none of them depends on a card that some
player has not seen (two rounds that differ only in such cards agree on all of them).

- the table and the deal's shape: :attr:`Round.rules`, :attr:`Round.players`,
  :attr:`Round.dealer`, :attr:`Round.starter`, :attr:`Round.space`;
- where the round stands: :attr:`Round.phase` (public: a power being used on a card
  only its holder has seen shows as ``DRAWN``), :attr:`Round.to_act`,
  :attr:`Round.current`, :attr:`Round.caller`, :attr:`Round.is_over`,
  :attr:`Round.turns_taken`, :attr:`Round.stock_size`, :attr:`Round.discard_pile`
  (face up), :attr:`Round.window_open`, :attr:`Round.window_won`,
  :attr:`Round.reactors`, :attr:`Round.closing_reason`, :attr:`Round.penalty_cards`,
  :attr:`Round.calls_owed`, and :attr:`Round.result` once the round is over (every
  card is then shown).

:meth:`Round.public_view` gathers them as a view of no seat (``player`` -1), for
spectators.

Per player, to that player only: :meth:`Round.view`, :meth:`Round.phase_seen_by`,
:meth:`Round.legal_actions` / :meth:`Round.legal_action_ids` /
:meth:`Round.legal_action_mask` of that player, and the answers of
:meth:`Round.can_apply`, :meth:`Round.verify` and :meth:`Round.apply` to that player's
actions (the reason of an :class:`~cambio.errors.IllegalActionError` is computed from
what the actor may know).

Omniscient, for the driver and never for a player: :attr:`Round.deck` and
:attr:`Round.seed` (the deal), :meth:`Round.hand`, :attr:`Round.events` (every card),
:attr:`Round.actions` and :attr:`Round.action_ids` (every decision, including ones
nobody else saw, such as skipping the power of a privately drawn card), the legal
actions of everyone at once (``legal_action_ids()`` with no player), saves
(:meth:`Round.to_dict`) and copies.
"""

from __future__ import annotations

import enum
import functools
import itertools
import operator
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from operator import itemgetter
from typing import Any, Final, SupportsIndex, cast

from .actions import (
    Action,
    ActionKind,
    ActionSpace,
    action_space,
    kinds_wanted,
)
from .arguments import Arg, flag, items, optional_whole, whole
from .cards import Card
from .derived import derived, shuffled_range
from .errors import IllegalActionError
from .events import Event, EventKind
from .loading import as_ruleset
from .rules import Power, RuleSet, Step, ensure_valid
from .scoring import RoundResult, score_round
from .views import GridCache, PlayerView, _ViewFields

__all__ = ["Phase", "Round"]

# Local ids of the simple actions (see ActionSpace).
# (Final: the compiled build inlines them rather than reading the module's dict)
_DRAW: Final = 0
_TAKE: Final = 1
_CALL: Final = 2
_PASS: Final = 3
_REPEEK: Final = 4
_DISCARD: Final = 5
_SKIP: Final = 6


class Phase(enum.IntEnum):
    """Where a round stands."""

    OPENING = 0
    """Players choose which of their cards to look at before the first turn."""
    TURN = 1
    """The current player starts a turn: draw, take the discard, or call."""
    DRAWN = 2
    """The current player holds a card drawn from the stock: replace, exchange or discard."""
    TAKEN = 3
    """The current player holds the taken discard: it must replace (or exchange)."""
    POWER = 4
    """The current player uses the power of a discarded card: peek, swap or skip."""
    END_OF_TURN = 5
    """Where calling comes at the end of a turn: call or pass."""
    GIVE = 6
    """A player who snapped another's card gives one of its own in its place."""
    OVER = 7
    """The round has ended; :attr:`Round.result` holds how."""
    CLOSING = 8
    """The round has ended but its last discard may still be snapped (``snap.last_discard``)."""


# The phases and event kinds as module constants, for the engine's comparisons and
# events: on CPython 3.11 reading a member through its enum class calls
# EnumType.__getattr__ (some 60 ns, a dozen times a decision); a constant is a global
# read (and a C static in the compiled build).
_OPENING: Final = Phase.OPENING
_TURN: Final = Phase.TURN
_DRAWN: Final = Phase.DRAWN
_TAKEN: Final = Phase.TAKEN
_POWER: Final = Phase.POWER
_END_OF_TURN: Final = Phase.END_OF_TURN
_GIVE: Final = Phase.GIVE
_OVER: Final = Phase.OVER
_CLOSING: Final = Phase.CLOSING
_EV_CALL: Final = EventKind.CALL
_EV_DEAL: Final = EventKind.DEAL
_EV_DISCARD: Final = EventKind.DISCARD
_EV_DRAW: Final = EventKind.DRAW
_EV_END: Final = EventKind.END
_EV_EXCHANGE: Final = EventKind.EXCHANGE
_EV_FAILED_EXCHANGE: Final = EventKind.FAILED_EXCHANGE
_EV_GIVE: Final = EventKind.GIVE
_EV_OPENING_PEEK: Final = EventKind.OPENING_PEEK
_EV_PASS: Final = EventKind.PASS
_EV_PEEK: Final = EventKind.PEEK
_EV_PENALTY: Final = EventKind.PENALTY
_EV_POWER: Final = EventKind.POWER
_EV_RECYCLE: Final = EventKind.RECYCLE
_EV_REPLACE: Final = EventKind.REPLACE
_EV_RE_PEEK: Final = EventKind.RE_PEEK
_EV_SKIP: Final = EventKind.SKIP
_EV_SNAP: Final = EventKind.SNAP
_EV_SWAP: Final = EventKind.SWAP
_EV_TAKE: Final = EventKind.TAKE
_EV_TURN: Final = EventKind.TURN
_EV_WRONG_SNAP: Final = EventKind.WRONG_SNAP

_TURN_PHASES: Final = frozenset(
    {Phase.TURN, Phase.DRAWN, Phase.TAKEN, Phase.POWER, Phase.END_OF_TURN, Phase.CLOSING}
)
# the same, indexed by phase number (an enum member's hash is computed in Python; its
# index is not)
_IN_TURN: Final[tuple[bool, ...]] = tuple(ph in _TURN_PHASES for ph in Phase)

_new_event: Final = tuple.__new__  # builds an Event without its keyword-default wrapper
# the class as a constant: compiled, a Final name is a static, where an imported name
# is looked up in the module's dict at every use
_EVENT: Final = Event

# layout cache keys: p (local snap ids), ~p (replace ids), _GLOBAL_KEY + p (global snap
# ids), _DRAWN_KEY + p (the discard and replace ids of a drawn card), _POWER_KEY +
# 8 * p + the scope's number below (a power step's targets, skip left out)
_GLOBAL_KEY: Final = 1 << 20
_DRAWN_KEY: Final = 2 << 20
_POWER_KEY: Final = 3 << 20
# the power scopes whose targets depend only on which positions hold a card and on the
# caller where a table locks its grid (both replace the layout cache when they change);
# the peeked-* scopes depend on the power's own peeks, so they are worked out each time
_LAYOUT_SCOPES: Final = {
    "own": 0,
    "other": 1,
    "any": 2,
    "own-other": 3,
    "any-two": 4,
    "other-other": 5,
}

# the start of a turn: a bit for each action the turn holder may take (see _legal)
_DRAW_OK: Final = 1
_TAKE_OK: Final = 2
_CALL_OK: Final = 4
_REPEEK_OK: Final = 8

_PHASE_NAMES: Final[tuple[str, ...]] = tuple(ph.name.lower() for ph in Phase)
"""Each phase's name as views show it, by phase number."""


@functools.lru_cache(maxsize=64)
def _singletons(n: int) -> tuple[frozenset[int], ...]:
    """``frozenset({p})`` for each seat: the ``seen_by`` of a private event, shared."""
    return tuple(frozenset({p}) for p in range(n))


_START_BITS: Final = (
    (_DRAW, _DRAW_OK),
    (_TAKE, _TAKE_OK),
    (_CALL, _CALL_OK),
    (_REPEEK, _REPEEK_OK),
)


@functools.lru_cache(maxsize=64)
def _start_id_table(n: int, per: int) -> tuple[tuple[int, ...], ...]:
    """The start-of-turn ids of seat ``p`` for each combination ``can`` of the bits
    _DRAW_OK, _TAKE_OK, _CALL_OK, _REPEEK_OK, at index ``p << 4 | can``, ascending."""
    table = []
    for p in range(n):
        for can in range(16):
            ids = [p * per + a for a, bit in _START_BITS if can & bit]
            table.append(tuple(ids))
    return tuple(table)


@functools.lru_cache(maxsize=64)
def _place_tuples(n: int, positions: int) -> tuple[tuple[tuple[tuple[int, int]], ...], ...]:
    """``((owner, i + 1),)`` for each owner and index: the ``positions`` of an event
    that names one place, shared (commonest in a replace)."""
    return tuple(tuple(((o, i + 1),) for i in range(positions)) for o in range(n))


@functools.lru_cache(maxsize=64)
def _turn_events(n: int) -> tuple[Event, ...]:
    """The ``turn`` event of each seat: immutable and always the same, so shared."""
    return tuple(_new_event(_EVENT, (_EV_TURN, p, (), (), None, "")) for p in range(n))


# the "rules" of a blank Round, made only by Round._from_fields: Round has no __dict__
# (its attributes are slots, or native under mypyc) and no code creates one without
# calling __init__, which returns at once for this marker
_BLANK: Final = "\x00blank round"


def _many(name: str, actions: object) -> list[Action | int]:
    """``actions`` as a list, or a ``TypeError`` naming ``name`` when it is no
    iterable of actions (a text, a single id); each item is checked when applied."""
    return cast("list[Action | int]", items(name, actions, "actions or action ids"))


def _as_card(card: object) -> Card:  # object: a compiled build checks it here, not on entry
    if isinstance(card, Card):
        return card
    if isinstance(card, str):
        return Card.parse(card)
    raise TypeError(f"expected a Card or a card text such as 'KH', got {card!r}")


class Round:
    """One round of Cambio: deal, turns, reaction windows, the end and its result.

    ``rules`` is a :class:`~cambio.rules.RuleSet` (or a profile name). ``players``
    defaults to the table's default. Give ``seed`` for a shuffled deal, or ``deck`` for
    a prepared one: ``deck[0:G]`` goes to seat 0's positions 1..G, the next G cards to
    seat 1, and so on, then one card starts the discard pile (unless ``opening.upcard``
    is false) and the rest is the stock from the top down. A partial ``deck`` is
    completed with the remaining cards of the table's deck, shuffled by ``seed``.
    ``dealer`` defaults to the last seat; ``starter`` to the player on the dealer's left.
    """

    # Every attribute, in slots: on CPython 3.11 an object of more than 30 attributes
    # in a __dict__ gets neither inline values nor specialized method loads, and every
    # self.method() looks itself up in that dict; with slots the loads, stores and
    # method calls of the hot path take their fast paths (a tenth of a decision's
    # cost). The compiled build ignores __slots__ (its attributes are native already).
    # A new attribute must be added here; copies and saves enumerate these names.
    __slots__ = (  # noqa: RUF023 - grouped by meaning, not sorted
        # the table and the deal (public)
        "rules",
        "players",
        "seed",
        "dealer",
        "starter",
        "space",
        "deck",
        "to_act",
        # what the round derives from its table and deal
        "_cfg",
        "_G",
        "_P",
        "_ALL",
        "_opening_choices",
        "_value",
        "_key",
        "_power",
        "_only",
        "_turn_event",
        "_places",
        "_start_ids",
        "_no_cards",
        "_per",
        "_o_replace",
        "_size",
        # rule settings read on the hot paths (see derived.Settings)
        "_take_ok",
        "_call_first",
        "_call_last",
        "_earliest",
        "_call_allowed",
        "_re_peek_ok",
        "_exchange_ok",
        "_snapping",
        "_draw_timing",
        "_swapped_out",
        "_penalty_blind",
        "_swapped_out_stock_only",
        "_recycling",
        "_max_turns",
        "_caller_locked",
        "_snap_when",
        "_penalty_need",
        "_penalty_first_empty",
        "_snap_any",
        # the cards and who knows them
        "_slots",
        "_discard",
        "_stock",
        "_known",
        "_drawn",
        "_from_stock",
        "_penalty_of",
        # where the round stands
        "_phase",
        "_current",
        "_power_now",
        "_power_card",
        "_step",
        "_peeked",
        "_after_power_drawn",
        "_caller",
        "_final",
        "_window_open",
        "_window_discarder",
        "_window_tried",
        "_window_won",
        "_closing_reason",
        "_calls_owed",
        "_snapper",
        "_give_target",
        "_give_return",
        "_turns",
        "_total_turns",
        "_repeek_used",
        "_opening_seen",
        "_pending",
        "_recycles",
        "_plies_before",
        "_origin",
        "_result",
        # the record
        "_events",
        "_histories",
        "_actions",
        # caches (views' shared tuples and per-player grids, legal ids, snap and replace
        # ids by layout)
        "_discard_seen",
        "_discard_cards",
        "_present_of",
        "_present",
        "_grid_cache",
        "_legal_of",
        "_legal_ids",
        "_layout_cache",
    )

    rules: RuleSet
    """The table's rules."""
    players: int
    """How many seats play the round (seats are numbered from 0)."""
    seed: int
    """The seed of the shuffle and of every random choice of the round."""
    dealer: int
    """The seat that dealt."""
    starter: int
    """The seat that takes the first turn."""
    space: ActionSpace
    """The integer ids of every action at this table (see :class:`ActionSpace`)."""
    deck: tuple[Card, ...]
    """Every card of the round in deal order: the grids seat by seat, the first discard
    (where the deal turns one up: ``opening.upcard``), then the stock from the top down."""
    to_act: int | None
    """The player whose decision moves the round on (``None`` when it is over).

    Kept up to date by every change of the round's state (it is read once a decision,
    so it is a plain attribute rather than a property); never set it yourself."""

    def __init__(
        self,
        rules: RuleSet | str,
        players: SupportsIndex | None = None,
        *,
        seed: SupportsIndex | None = None,
        deck: Sequence[Card | str] | None = None,
        dealer: SupportsIndex | None = None,
        starter: SupportsIndex | None = None,
    ) -> None:
        if rules is _BLANK:  # Round._from_fields sets every attribute itself
            return
        rules = as_ruleset(rules)
        ensure_valid(rules)
        n = rules.players.default if players is None else whole("players", players)
        lo, hi = rules.players.min, rules.players.max
        if not lo <= n <= hi:
            raise ValueError(f"the {rules.name} table seats {lo} to {hi} players, not {n}")
        if rules.teams.size > 1 and n % rules.teams.size:
            raise ValueError(
                f"teams of {rules.teams.size} need a multiple of that many players, not {n}"
            )
        given_seed = optional_whole("seed", seed)
        seed = random.SystemRandom().randrange(2**63) if given_seed is None else given_seed
        dealer = n - 1 if dealer is None else whole("dealer", dealer)
        if not 0 <= dealer < n:
            raise ValueError(f"dealer must be a seat from 0 to {n - 1}, got {dealer!r}")
        starter = (dealer + 1) % n if starter is None else whole("starter", starter)
        if not 0 <= starter < n:
            raise ValueError(f"starter must be a seat from 0 to {n - 1}, got {starter!r}")

        self.rules = rules
        self.players = n
        self.seed = seed
        self.dealer = dealer
        self.starter = starter
        table = derived(rules)
        cfg = table.settings
        self._cfg = cfg
        self._G = cfg.grid_size
        self._P = cfg.positions
        self._ALL = (1 << n) - 1
        self._opening_choices = cfg.opening_choices
        self.space = action_space(n, self._P, self._opening_choices, cfg.exchange_ok, cfg.several)

        if deck is None and len(table.cards) < 2:  # too few to deal; said below
            deck = ()
        if deck is None:
            # shuffle the deck's indices: the same permutation a shuffle of the cards
            # makes, applied to each per-card table at C speed
            perm = shuffled_range(seed, len(table.cards))
            pick = itemgetter(*perm)
            order = list(pick(table.cards))
            self._value: list[int] = list(pick(table.values))
            self._key: list[object] = list(pick(table.keys))
            self._power: list[Power | None] = list(pick(table.powers))
        else:
            order = self._deal_order(items("deck", deck, "cards or card texts"))
            info = [table.by_card[c] for c in order]
            self._value = [v for v, _, _ in info]
            self._key = [k for _, k, _ in info]
            self._power = [pw for _, _, pw in info]
        # the grids, then the card turned up (opening.upcard) or at least one for the stock
        need = n * self._G + 1
        if len(order) < need:
            start = "a discard" if cfg.upcard else "a stock"
            raise ValueError(
                f"a deck of {len(order)} cards cannot deal {n} grids of {self._G} and {start}"
            )
        self.deck = tuple(order)
        # Settings read on every decision: looked up once per RuleSet (see Settings),
        # kept on the round for the hot paths
        self._take_ok = cfg.take_ok
        self._call_first = cfg.call_first
        self._call_last = cfg.call_last
        self._earliest = cfg.earliest
        self._call_allowed = cfg.call_allowed
        self._re_peek_ok = cfg.re_peek_ok
        self._exchange_ok = cfg.exchange_ok
        self._snapping = cfg.snapping
        self._draw_timing = cfg.draw_timing
        self._swapped_out = cfg.swapped_out
        self._penalty_blind = cfg.penalty_blind
        self._swapped_out_stock_only = cfg.swapped_out_stock_only
        self._recycling = cfg.recycling
        self._max_turns = cfg.max_turns
        self._caller_locked = cfg.caller_locked
        self._snap_when = cfg.snap_when
        # a snap must leave room for its penalty cards, if it is wrong
        self._penalty_need = cfg.penalty_need
        self._penalty_first_empty = cfg.penalty_first_empty
        self._snap_any = cfg.snap_any

        # --- mutable state -------------------------------------------------------
        G, P = self._G, self._P
        self._slots: list[list[int]] = []
        for p in range(n):
            row = list(range(p * G, (p + 1) * G)) + [-1] * (P - G)
            self._slots.append(row)
        up = n * G if cfg.upcard else -1  # the card the deal turns face up (-1: none)
        self._discard: list[int] = [up] if up >= 0 else []
        # the discard pile as cards, for views: rebuilt only when the pile changes
        self._discard_seen: list[int] = []
        self._discard_cards: tuple[Card, ...] = ()
        # the grids' presence flags for views, and the layout cache they were read
        # under (a new cache object whenever a grid gains or loses a card: see view)
        self._present_of: object = None
        self._present: tuple[tuple[bool, ...], ...] = ()
        self._stock: list[int] = list(range(len(order) - 1, n * G - (up < 0), -1))
        self._known: list[int] = [0] * len(order)
        if up >= 0:
            self._known[up] = self._ALL
        self._phase = _TURN
        self._current = starter
        self._drawn = -1
        self._from_stock = False
        self._power_now: Power | None = None
        self._power_card = -1
        self._step = 0
        self._peeked: list[int] = []
        self._after_power_drawn = False
        self._caller = -1
        self._final: list[int] = []
        self._window_open = False
        self._window_discarder = -1
        self._window_tried = 0
        self._window_won = False
        self._closing_reason = ""
        self._penalty_of: dict[int, int] = {}
        self._calls_owed = 0
        self._snapper = -1
        self._give_target = -1
        self._give_return = _TURN
        self._turns = [0] * n
        self._total_turns = 0
        self._repeek_used = 0
        self._opening_seen: list[tuple[int, ...]] = [()] * n
        self._pending: list[int] = []
        self._recycles = 0
        self._plies_before = 0  # actions taken before a written position (see position.py)
        self._origin = ""  # the written position the round was built from ("" for a deal)
        self._result: RoundResult | None = None
        self._events: list[Event] = []
        # each player's history as that player saw it: an immutable tuple, rebuilt only
        # when the round's log has grown since (views share it, so it must not change)
        self._histories: list[tuple[Event, ...]] = [() for _ in range(n)]
        # each player's grids as its last view showed them, brought up to date from the
        # events since (see GridCache); a copy or a loaded round builds its own
        self._grid_cache = GridCache(self._events, self._slots, self._known, self.deck, n)
        # the ids applied (typed Any: compiled, the list keeps the very int objects
        # apply was given rather than boxing each id again)
        self._actions: list[Any] = []
        # the legal ids of one player (the last asked; -1: none), until the next action
        self._legal_of = -1
        self._legal_ids: Sequence[int] = ()
        # snap and replace ids by grid layout; at the deal every round of this action
        # space, grid size and snap reach has the same layout, so they share one cache
        # until their own layout changes (_layout_changed gives each its own then)
        self._layout_cache = self.space.deal_cache(self._G, self._snap_any)
        self._only = _singletons(n)
        self._turn_event = _turn_events(n)
        self._places = _place_tuples(n, self._P)
        self._start_ids = _start_id_table(n, self.space.per_player)
        self._no_cards = [-1] * self._P  # a grid row without a card (compared, never changed)
        self._per = self.space.per_player
        self._o_replace = self.space.o_replace
        self._size = self.space.size

        self._events.append(
            _new_event(
                _EVENT,
                (_EV_DEAL, -1, (), (order[up],) if up >= 0 else (), None, f"{n} players"),
            )
        )
        self._start()
        self.to_act = self._who_acts()

    # ------------------------------------------------------------------ set-up
    def _deal_order(self, deck: Sequence[object]) -> list[Card]:
        full = list(derived(self.rules).cards)
        rng = random.Random(self.seed)
        given = [_as_card(c) for c in deck]
        if len(given) == len(full) and Counter(given) == Counter(full):
            return given  # the whole deck, in order: nothing left to shuffle
        remaining = list(full)
        for card in given:
            try:
                remaining.remove(card)
            except ValueError:
                raise ValueError(
                    f"the prepared deck holds {card} more often than the table's deck does"
                ) from None
        rng.shuffle(remaining)
        return given + remaining

    def _start(self) -> None:
        n = self.players
        cfg = self._cfg
        if cfg.dealt_window:
            # the dealt card is a discard: snapped in seat order from the starter (or by
            # the starter alone in its first turn); nobody discarded it, so a table
            # where sticking needs another player's discard cannot snap it
            self._open_window(self.starter)
        if cfg.opening_auto:
            for p in range(n):
                self._opening_peek(p, cfg.opening_positions)
        if self._opening_choices:
            self._phase = _OPENING
            self._pending = [(self.starter + k) % n for k in range(n)]
            return
        self._begin_turn(self.starter)

    def _opening_peek(self, p: int, positions: tuple[int, ...]) -> None:
        row = self._slots[p]
        bit = 1 << p
        known, deck = self._known, self.deck
        cards = []
        for pos in positions:
            c = row[pos - 1]
            known[c] |= bit
            cards.append(deck[c])
        self._opening_seen[p] = positions
        places = tuple([(p, pos) for pos in positions])
        self._events.append(
            _new_event(_EVENT, (_EV_OPENING_PEEK, p, places, tuple(cards), self._only[p], ""))
        )

    def _begin_turn(self, p: int) -> None:
        self._current = p
        self._phase = _TURN
        self._events.append(self._turn_event[p])
        if self._calls_owed and self._calls_owed >> p & 1:
            self._calls_owed &= ~(1 << p)
            if self._caller < 0 and not any(c >= 0 for c in self._slots[p]):
                # the emptied hand calls now, spending this turn on it
                self._caller = p
                if self._caller_locked:  # only a locked grid changes what may be snapped
                    self._layout_changed()
                self._final = self._final_queue(p)
                self._events.append(_new_event(_EVENT, (_EV_CALL, p, (), (), None, "empty grid")))
                self._end_turn()
                return
        if not self._stock:
            # a deal that leaves no stock gets here, or a stock left empty for the next
            # draw to refill (stock.recycle_when "draw" or "one-left")
            if self._cfg.recycle_emptied:
                self._recycle()
            if not self._refillable():
                self._end("stock")

    def _refillable(self) -> bool:
        """Whether a card can be drawn now: the stock holds one, or the discard pile
        holds more than its top card to recycle (``stock.on_empty = "recycle"``)."""
        return bool(self._stock) or (self._recycling and len(self._discard) > 1)

    # ------------------------------------------------------------------ events
    def _emit(self, event: Event) -> None:
        self._events.append(event)

    # ------------------------------------------------------------------ public state
    @property
    def phase(self) -> Phase:
        """The phase as every player sees it (public: it never depends on a hidden card).

        While the player to act uses the power of a card only it has seen (a private
        draw on a table whose powers act when drawn), the others cannot tell that from
        holding a plain drawn card, before its first step or between two steps (each
        step is seen when taken, a step left out is not): the public phase is then
        ``DRAWN``. :meth:`phase_seen_by` gives the phase as one player knows it.
        """
        if self._phase is _POWER and self._power_private():
            return _DRAWN
        return self._phase

    def phase_seen_by(self, player: SupportsIndex) -> Phase:
        """The phase as ``player`` knows it: the true phase for the player whose turn
        it is (who has seen its own drawn card), :attr:`phase` for everyone else."""
        player = whole("player", player)
        if not 0 <= player < self.players:
            raise ValueError(f"there is no player {player}")
        return self._phase if player == self._current else self.phase

    def _who_acts(self) -> int | None:
        """Who :attr:`to_act` names, worked out from the phase (see :meth:`apply`)."""
        phase = self._phase
        if phase is _OVER:
            return None
        if phase is _OPENING:
            return self._pending[0]
        if phase is _GIVE:
            return self._snapper
        if phase is _CLOSING:
            return self.reactors[0]
        return self._current

    @property
    def current(self) -> int:
        """The player whose turn it is."""
        return self._current

    @property
    def caller(self) -> int | None:
        """The seat that called Cambio, or ``None`` before anybody has."""
        return None if self._caller < 0 else self._caller

    @property
    def is_over(self) -> bool:
        """Whether the round has ended."""
        return self._phase is _OVER

    @property
    def result(self) -> RoundResult | None:
        """How the round ended, once it is over."""
        return self._result

    @property
    def events(self) -> tuple[Event, ...]:
        """The full event log, with every card (the omniscient record)."""
        return tuple(self._events)

    @property
    def actions(self) -> tuple[Action, ...]:
        """Every action applied so far, in order."""
        decode = self.space.decode
        return tuple(decode(a) for a in self._actions)

    @property
    def action_ids(self) -> tuple[int, ...]:
        """The ids of every action applied so far, in order (see :attr:`space`)."""
        return tuple(self._actions)

    @property
    def stock_size(self) -> int:
        """How many cards are left in the stock."""
        return len(self._stock)

    @property
    def discard_pile(self) -> tuple[Card, ...]:
        """The discard pile, bottom first (the last card is the top)."""
        return tuple(self.deck[c] for c in self._discard)

    @property
    def turns_taken(self) -> int:
        """How many turns have been completed so far, all seats together."""
        return self._total_turns

    @property
    def window_open(self) -> bool:
        """Whether the top discard can be snapped now."""
        return self._window_open

    @property
    def window_won(self) -> bool:
        """Whether the open window's discard was already snapped correctly and any further
        snap of it counts as wrong (``snap.too_late = "penalty"``)."""
        return self._window_won

    @property
    def closing_reason(self) -> str | None:
        """In phase ``CLOSING``: the reason the round will be scored with; else ``None``."""
        return self._closing_reason if self._phase is _CLOSING else None

    @property
    def penalty_cards(self) -> tuple[tuple[int, int], ...]:
        """Penalty cards lying in grid positions, as ``(owner, position)``.

        Only ``snap.penalty_position = "first-empty"`` puts them there; a penalty card in
        an extra position (beyond the grid) is a penalty card by where it lies.
        """
        out = []
        for owner, row in enumerate(self._slots):
            for i, c in enumerate(row):
                if c >= 0 and self._penalty_of.get(c) == owner:
                    out.append((owner, i + 1))
        return tuple(out)

    @property
    def calls_owed(self) -> frozenset[int]:
        """Players whose hand was emptied by snapping and who call at their next turn."""
        return frozenset(p for p in range(self.players) if self._calls_owed >> p & 1)

    def hand(self, player: SupportsIndex) -> tuple[Card | None, ...]:
        """The true cards of ``player``'s positions (``None`` for empty): omniscient."""
        player = whole("player", player)
        if not 0 <= player < self.players:
            raise ValueError(f"there is no player {player}")
        return tuple(None if c < 0 else self.deck[c] for c in self._slots[player])

    @property
    def reactors(self) -> tuple[int, ...]:
        """Players who have snap actions now, in the order a driver asks them.

        The order is seat order starting with the player who discarded the top card
        (the starter, for the card the deal turned face up).
        """
        phase = self._phase
        if not self._window_open or phase is _OPENING or phase is _OVER:
            return ()
        if phase is _GIVE and not self._window_won:
            return ()
        n = self.players
        start = self._window_discarder if self._window_discarder >= 0 else self._current
        out: list[int] = []
        for k in range(n):
            p = (start + k) % n
            if self._snap_eligible(p) and self._snap_ids(p):
                out.append(p)
        return tuple(out)

    def reactor_snaps(self) -> list[tuple[int, tuple[int, ...]]]:
        """Each player of :attr:`reactors` that has legal snaps, in that order, with the
        ids of those snaps (:meth:`legal_snap_ids`): what a driver offers, in one call."""
        out: list[tuple[int, tuple[int, ...]]] = []
        phase = self._phase
        if not self._window_open or phase is _OPENING or phase is _OVER:
            return out
        if phase is _GIVE and not self._window_won:
            return out
        n = self.players
        start = self._window_discarder if self._window_discarder >= 0 else self._current
        cache = self._layout_cache
        for k in range(n):
            p = (start + k) % n
            if not self._snap_eligible(p) or (phase is _GIVE and p == self._snapper):
                continue
            snaps = cache.get(_GLOBAL_KEY + p)  # what _snap_global gives, once cached
            if snaps is None:
                snaps = self._snap_global(p)
            if snaps:
                out.append((p, snaps))
        return out

    def _snap_global(self, p: int) -> tuple[int, ...]:
        """:meth:`_snap_ids` as global ids (an immutable tuple, cached the same way)."""
        key = _GLOBAL_KEY + p
        cached = self._layout_cache.get(key)
        if cached is None:
            base = p * self._per
            cached = self._layout_cache[key] = tuple([base + s for s in self._snap_ids(p)])
        return cached

    # ------------------------------------------------------------------ legality
    def legal_action_ids(self, player: SupportsIndex | None = None) -> list[int]:
        """Ids of every legal action, ascending; of one player, or of everyone (a
        number that is no seat has none)."""
        if type(player) is int:
            seat: int = player  # a typed local: compiled, a C integer
        elif player is None:
            out: list[int] = []
            for p in range(self.players):
                out.extend(self.legal_action_ids(p))
            return out
        else:
            seat = whole("player", player)
        if seat != self._legal_of:
            self._legal_ids = self._legal(seat)
            self._legal_of = seat
        return list(self._legal_ids)

    def legal_snap_ids(self, player: SupportsIndex) -> list[int]:
        """Ids of ``player``'s legal snap actions, ascending: its
        :meth:`legal_action_ids` that are snaps, found without listing the others."""
        if type(player) is not int:
            player = whole("player", player)
        if not (0 <= player < self.players and self._window_open):
            return []
        if self._phase is _GIVE and player == self._snapper:
            return []  # the snapper owes a card first (its legal actions are the gives)
        if not self._snap_eligible(player):
            return []
        base = player * self._per
        return [base + s for s in self._snap_ids(player)]

    def legal_actions(
        self,
        player: SupportsIndex | None = None,
        kind: ActionKind | str | Iterable[ActionKind | str] | None = None,
    ) -> list[Action]:
        """Every legal action, fully specified, in a stable order (by id).

        ``kind`` keeps only actions of that kind (an :class:`~cambio.actions.ActionKind`,
        its text, or several of them), so a driver can offer the snaps apart from the
        turn's actions:

        >>> r = Round("snap", 3, seed=1)
        >>> [str(a) for a in r.legal_actions(0, kind="call")]
        ['P0 call']
        """
        decode = self.space.decode
        actions = [decode(a) for a in self.legal_action_ids(player)]
        wanted = kinds_wanted(kind)
        if wanted is None:
            return actions
        return [a for a in actions if a.kind in wanted]

    def legal_action_mask(self, player: SupportsIndex) -> list[bool]:
        """A mask over the whole action space: ``True`` where ``player`` may act."""
        mask = [False] * self.space.size
        for a in self.legal_action_ids(whole("player", player)):
            mask[a] = True
        return mask

    def _legal(self, p: int) -> Sequence[int]:
        """``p``'s legal ids, ascending: a list, or a tuple shared with a cache (never
        changed: :meth:`legal_action_ids` hands out a copy)."""
        phase = self._phase
        if p == self._current and (phase is _TURN or phase is _DRAWN or phase is _TAKEN):
            # the commonest decisions, worked out here rather than in helpers (on the
            # hot path a call costs more than most of these lines)
            base = p * self._per
            ids: Sequence[int]
            if phase is _TURN:
                # the start of a turn: draw while the stock lasts; take the discard
                # (turn.take_discard) into a grid that has a card to give for it; call
                # (call.timing "before-draw", from call.earliest turns on); look at the
                # opening positions again, once a round (opening.re_peek). Which of the
                # four make a bit each; the ids of each combination are made once
                # (_start_id_table), so no id is computed here
                # (an empty stock is recycled by the draw: stock.recycle_when)
                can = _DRAW_OK if self._stock or self._refillable() else 0
                # (a row unequal to one without cards has one: told at its first card)
                if self._take_ok and self._discard and self._slots[p] != self._no_cards:
                    can |= _TAKE_OK
                if (
                    self._call_first
                    and self._caller < 0
                    and (not self._earliest or min(self._turns) >= self._earliest)
                ):
                    can |= _CALL_OK
                if self._re_peek_ok and not self._repeek_used >> p & 1 and self._opening_seen[p]:
                    can |= _REPEEK_OK
                ids = self._start_ids[p << 4 | can]
            else:
                # a card drawn or taken to place: discard it (a drawn card only), put it
                # in a filled position, or exchange equal cards for it (turn.exchange_equal)
                replace = self._layout_cache.get(~p)
                if replace is None:
                    replace = self._replace_ids(p)
                if phase is _DRAWN:
                    placed = self._layout_cache.get(_DRAWN_KEY + p)
                    if placed is None:  # the discard, then the replaces (cached like them)
                        placed = self._layout_cache[_DRAWN_KEY + p] = (base + _DISCARD, *replace)
                    ids = placed
                else:
                    ids = replace
                if self._exchange_ok:
                    o = base + self.space.o_exchange
                    ids = [*ids, *[o + m for m in self._exchange_masks(p)]]
            if self._window_open and self._snap_eligible(p):
                snaps = self._snap_ids(p)
                if snaps:
                    ids = sorted([*ids, *[base + s for s in snaps]])
            return ids
        if phase is _OVER or not 0 <= p < self.players:
            return []
        base = p * self.space.per_player
        if phase is _OPENING:
            if p != self._pending[0]:
                return []
            o = base + self.space.o_opening
            return [o + i for i in range(len(self._opening_choices))]
        ids = []
        if phase is _GIVE:
            if p == self._snapper:
                o = base + self.space.o_give
                return [o + i for i, c in enumerate(self._slots[p]) if c >= 0]
        elif phase is _CLOSING:
            if p == self.reactors[0]:
                ids = [base + _PASS]
        elif p == self._current:
            ids = self._turn_ids(p, base)
        if self._window_open and self._snap_eligible(p):
            snaps = self._snap_ids(p)
            if snaps:
                ids.extend(base + s for s in snaps)
                ids.sort()
        return ids

    def _can_call(self, p: int) -> bool:
        return (
            self._call_allowed  # call.allowed
            and self._caller < 0
            and (not self._earliest or min(self._turns) >= self._earliest)
        )

    def _turn_ids(self, p: int, base: int) -> list[int]:
        """The turn holder's ids after its card is placed: a power's step, or the call
        at the end of the turn (the earlier decisions are :meth:`_legal`'s fast path)."""
        phase = self._phase
        if phase is _POWER:
            return self._power_ids(p, base)
        if phase is _END_OF_TURN:
            ids = [base + _PASS]
            if self._can_call(p):
                ids.insert(0, base + _CALL)
            return ids
        return []

    def _replace_ids(self, p: int) -> tuple[int, ...]:
        """``replace`` of each filled position of ``p``'s (ids, not to be changed): they
        depend on which positions hold a card only, so they are cached like the snaps."""
        cached = self._layout_cache.get(~p)
        if cached is None:
            o = p * self._per + self._o_replace
            cached = tuple([o + i for i, c in enumerate(self._slots[p]) if c >= 0])
            self._layout_cache[~p] = cached
        return cached

    def _exchange_masks(self, p: int) -> list[int]:
        row = self._slots[p]
        filled = [i for i, c in enumerate(row) if c >= 0 and not self._blind_to_owner(p, i, c)]
        if len(filled) < 2:
            return []
        if self.rules.turn.exchange_failure == "keep-drawn" and -1 not in row[self._G :]:
            return []
        masks = []
        for k in range(2, len(filled) + 1):
            for combo in itertools.combinations(filled, k):
                m = 0
                for i in combo:
                    m |= 1 << i
                masks.append(m)
        masks.sort()
        return masks

    def _peek_targets(self, p: int, scope: str) -> list[int]:
        P = self._P
        out: list[int] = []
        own_ok = scope in ("own", "any")
        other_ok = scope in ("other", "any", "other-not-peeked")
        # other-not-peeked: not a player an earlier peek of this power looked at
        passed = {g // P for g in self._peeked} if scope == "other-not-peeked" else set()
        if self._caller >= 0 and self._cfg.caller_locked_peeks:
            passed.add(self._caller)  # a locked grid is closed to the others' peeks
        penalty_ok = self.rules.snap.penalty_peekable and not self._penalty_blind
        for owner, row in enumerate(self._slots):
            if owner == p:
                if not own_ok:
                    continue
                out.extend(
                    owner * P + i
                    for i, c in enumerate(row)
                    if c >= 0 and (penalty_ok or not self._is_penalty(owner, i, c))
                )
            elif other_ok and owner not in passed:
                out.extend(owner * P + i for i, c in enumerate(row) if c >= 0)
        return out

    def _is_penalty(self, owner: int, i: int, c: int) -> bool:
        """Whether card ``c`` at ``owner``'s index ``i`` is a penalty card of its owner."""
        return i >= self._G or self._penalty_of.get(c) == owner

    def _blind_to_owner(self, owner: int, i: int, c: int) -> bool:
        """Whether card ``c`` at ``owner``'s index ``i`` may not be shown to ``owner``
        (a penalty card on a table whose ``snap.penalty_seen_by`` is ``others``)."""
        return self._penalty_blind and self._is_penalty(owner, i, c)

    def _swap_pairs(self, p: int, step: Step) -> list[tuple[int, int]]:
        P = self._P
        # a locked grid (call.caller_locked: the caller's) neither gives nor takes a card
        locked = self._caller if self._caller_locked else -1
        filled = [
            owner * P + i
            for owner, row in enumerate(self._slots)
            if owner != locked
            for i, c in enumerate(row)
            if c >= 0
        ]
        pairs = self._swap_pairs_of_scope(p, step.scope, filled)
        if self._penalty_blind and self.rules.snap.penalty_position == "after-grid":
            # a penalty card past the grid stays a penalty card while its owner holds it:
            # no swap within one hand moves it into the grid (where it would be ordinary)
            G = self._G
            pairs = [(a, b) for a, b in pairs if a // P != b // P or (a % P >= G) == (b % P >= G)]
        return pairs

    def _swap_pairs_of_scope(self, p: int, scope: str, filled: list[int]) -> list[tuple[int, int]]:
        P = self._P
        own = [g for g in filled if g // P == p]
        other = [g for g in filled if g // P != p]
        if scope == "own-other":
            return [(a, b) for a in own for b in other]
        if scope == "any-two":
            return list(itertools.combinations(filled, 2))
        if scope == "other-other":
            return [(a, b) for a, b in itertools.combinations(other, 2) if a // P != b // P]
        if not self._peeked:
            return []
        last = self._peeked[-1]
        fset = set(filled)
        if scope == "peeked-pair":
            if len(self._peeked) < 2:
                return []
            a, b = self._peeked[-2], self._peeked[-1]
            return [(a, b)] if a != b and a in fset and b in fset else []
        if last not in fset:
            return []
        if scope == "peeked-any":
            return [(last, g) for g in filled if g != last]
        if scope == "peeked-own":
            return [(last, g) for g in own if g != last]
        if scope == "peeked-other":
            return [(last, g) for g in other if g != last]
        return []

    def _power_ids(self, p: int, base: int) -> list[int]:
        power = self._power_now
        assert power is not None
        step = power.steps[self._step]
        peek = step.action == "peek"
        scope = _LAYOUT_SCOPES.get(step.scope, -1)
        if scope >= 0 and (
            # where a penalty card may not be peeked at (or a swap may not move it into
            # the grid), the targets depend on where penalty cards lie: not cached
            (self.rules.snap.penalty_peekable and not self._penalty_blind)
            if peek
            else not (self._penalty_blind and self.rules.snap.penalty_position == "after-grid")
        ):
            key = _POWER_KEY + 8 * p + scope
            cached = self._layout_cache.get(key)
            if cached is None:
                cached = self._layout_cache[key] = tuple(self._power_targets(p, base, step))
            ids = list(cached)
        else:
            ids = self._power_targets(p, base, step)
        if not ids or self.rules.powers.optional or step.optional:
            if self._power_private():
                # a step of a power nobody else knows of is left out by placing the card
                # at once: a skip would be a move the others see (an action, a message)
                # that a card without the step never makes
                ids.extend(self._placing_ids(p, base))
                ids.sort()
            else:
                ids.insert(0, base + _SKIP)
        return ids

    def _placing_ids(self, p: int, base: int) -> list[int]:
        """The ids that place a drawn card (phase ``DRAWN``): discard, replace, exchange."""
        ids = [base + _DISCARD, *self._replace_ids(p)]
        if self._exchange_ok:
            o = base + self.space.o_exchange
            ids.extend(o + m for m in self._exchange_masks(p))
        return ids

    def _power_targets(self, p: int, base: int, step: Step) -> list[int]:
        """The ids of ``step``'s peeks or swaps for ``p`` (a skip is not among them)."""
        sp = self.space
        if step.action == "peek":
            return [base + sp.o_peek + g for g in self._peek_targets(p, step.scope)]
        return sorted(sp.pairs(self._swap_pairs(p, step), base))

    def _snap_eligible(self, p: int) -> bool:
        if not self._snapping or self._window_tried >> p & 1:
            return False
        if p == self._caller and self._caller_locked:
            return False  # a locked grid neither loses, gives nor gains a card
        if not _IN_TURN[self._phase] and not (self._window_won and self._phase is _GIVE):
            return False
        when = self._snap_when
        if when == "own-turn":
            if p != self._current:
                return False
        elif when == "after-other-discard" and p == self._window_discarder:
            return False
        need = self._penalty_need
        if need:
            row = self._slots[p]
            if self._penalty_first_empty:
                free = row.count(-1)
                if self._give_target // self._P == p:
                    free -= 1  # that position waits for the card a snapper gives back
            else:
                free = row[self._G :].count(-1)
                if self._give_target // self._P == p and self._give_target % self._P >= self._G:
                    free -= 1  # that extra position waits for a given card
            if free < need:
                return False
        return True

    def _snap_ids(self, p: int) -> tuple[int, ...]:
        """``p``'s snap actions (local ids) on the open window: cached until a card
        leaves or enters a grid or somebody calls (see :meth:`_layout_changed`)."""
        cached = self._layout_cache.get(p)
        if cached is not None:
            return cached
        sp = self.space
        P = self._P
        snap = self.rules.snap
        # a locked grid (``call.caller_locked``: the caller's) cannot be snapped from
        locked = self._caller if self._caller_locked else -1
        ids = []
        o = sp.o_snap
        for owner, row in enumerate(self._slots):
            if owner == locked or (owner != p and not self._snap_any):
                continue
            base = o + owner * P
            ids.extend([base + i for i, c in enumerate(row) if c >= 0])
        if snap.several and p != locked:
            own = [i for i, c in enumerate(self._slots[p]) if c >= 0]
            for k in range(2, len(own) + 1):
                for combo in itertools.combinations(own, k):
                    m = 0
                    for i in combo:
                        m |= 1 << i
                    ids.append(sp.o_snap_many + m)
            ids.sort()
        out = self._layout_cache[p] = tuple(ids)
        return out

    def _layout_changed(self) -> None:
        """Forget the cached snap and replace actions: a grid gained or lost a card, or
        the caller (whose grid a table may lock) changed. The round gets a cache of its
        own (the one it had may be shared by rounds still at the deal's layout)."""
        self._layout_cache = {}

    def _drop_caches(self) -> None:
        """Forget every cached answer: for code that sets a round's state directly
        (loading a save or a position), which the caches cannot follow."""
        self._legal_of = -1
        self._layout_cache = {}

    def _state_set(self) -> None:
        """Drop the caches and work out :attr:`to_act`: for code that has set the
        round's state directly, once that state is known to be consistent."""
        self._drop_caches()
        self.to_act = self._who_acts()

    # ------------------------------------------------------------------ apply
    def _coerce(self, action: Action | int) -> int:
        if isinstance(action, bool):
            raise IllegalActionError(action, "an action is an Action or an action id, not a bool")
        if isinstance(action, int):
            if not 0 <= action < self.space.size:
                raise IllegalActionError(action, f"action ids run from 0 to {self.space.size - 1}")
            return action
        if isinstance(action, Action):
            try:
                return self.space.encode(action)
            except (ValueError, TypeError) as exc:
                raise IllegalActionError(action, str(exc)) from None
        raise IllegalActionError(action, "an action is an Action or an action id")

    def can_apply(self, action: Action | int) -> bool:
        """Whether ``action`` is legal now."""
        try:
            aid = self._coerce(action)
        except IllegalActionError:
            return False
        player = aid // self.space.per_player
        return aid in self.legal_action_ids(player)

    def verify(self, action: Action | int) -> None:
        """Raise :class:`~cambio.errors.IllegalActionError` if ``action`` is not legal now."""
        aid = self._coerce(action)
        player = aid // self.space.per_player
        if aid not in self.legal_action_ids(player):
            raise IllegalActionError(self.space.decode(aid), self._why(aid))

    def _why(self, aid: int, names: Sequence[int] | None = None) -> str:
        """Why the action with id ``aid`` is illegal now, naming seat ``s`` as
        ``P{names[s]}`` (a :class:`~cambio.match.Match` passes its match seats).

        The reason is computed only from what the acting player may know (the public
        state and its own view, :meth:`phase_seen_by`), never from a hidden card: two
        rounds that differ only in cards that player has not seen give it the same
        reason for the same action.
        """
        player = aid // self.space.per_player

        def seat(s: int | None) -> str:
            return f"P{s if names is None or s is None else names[s]}"

        action = self.space.decode(aid)
        phase = self.phase_seen_by(player)
        if phase is _OVER:
            return "the round is over"
        if action.kind is ActionKind.SNAP:
            if self.rules.snap.when == "never":
                return "this table has no snapping"
            if not self._window_open:
                return "no discard is open to snapping now"
            if self._window_tried >> player & 1:
                return f"{seat(player)} already tried to snap this discard"
            if not self._snap_eligible(player):
                return f"{seat(player)} may not snap now under this table's snapping rule"
            return "that card cannot be snapped (empty, or not allowed to this player)"
        who = self.to_act
        name = phase.name.lower()
        if player != who:
            return f"it is {seat(who)}'s decision, not {seat(player)}'s (phase {name})"
        legal = sorted({self.space.decode(a).kind.value for a in self.legal_action_ids(player)})
        kinds = ", ".join(legal) or "nothing"
        if action.kind.value in legal:
            return f"not with those positions now (phase {name})"
        return f"{action.kind.value} is not allowed in phase {name}; allowed: {kinds}"

    def apply(self, action: Action | int) -> list[Event]:
        """Apply a legal action and return the events it produced.

        An illegal action raises :class:`~cambio.errors.IllegalActionError` and leaves
        the round exactly as it was.
        """
        # the id as an object to look up and keep: the caller's own int where it gave
        # one (compiled, aid is a C integer, and an id over 256 boxed again would be a
        # new object, compared by value in the lookup rather than found by identity)
        kept: Any = action  # (before the type test: compiled, not unboxed and boxed again)
        if type(action) is int:
            aid: int = action  # a typed local: compiled, a C integer
            if not 0 <= aid < self._size:
                aid = self._coerce(action)
        else:
            aid = self._coerce(action)
            kept = aid
        per = self._per
        p = aid // per
        local = aid - p * per
        legal = self._legal_ids if p == self._legal_of else self._legal(p)
        if kept not in legal:
            raise IllegalActionError(self.space.decode(aid), self._why(aid))
        events = self._events
        start = len(events)
        self._legal_of = -1  # the legal actions change with the state
        self._actions.append(kept)
        # the transition of each kind of action (see ActionSpace for how a player's
        # local ids are laid out), the commonest first
        o = self._o_replace
        if o <= local < o + self._P:
            self._replace(p, local - o)
        elif local <= _SKIP:  # the simple actions: local ids _DRAW to _SKIP
            if local == _DRAW:
                self._draw(p)
            elif local == _TAKE:
                self._take(p)
            elif local == _DISCARD:
                self._discard_drawn(p)
            elif local == _CALL:
                self._call(p)
            elif local == _PASS:
                self._pass(p)
            elif local == _REPEEK:
                self._re_peek(p)
            else:
                self._skip(p)
        else:
            sp = self.space
            if local < sp.o_replace:
                self._choose_opening(p, self._opening_choices[local - sp.o_opening])
            elif local < sp.o_snap:
                self._peek(p, local - sp.o_peek)
            elif local < sp.o_give:
                self._snap(p, [local - sp.o_snap])
            elif local < sp.o_swap:
                self._give(p, local - sp.o_give)
            elif local < sp.o_exchange:
                a, b = sp.decode(aid).positions
                self._swap(p, a[0] * self._P + a[1] - 1, b[0] * self._P + b[1] - 1)
            elif local < sp.o_snap_many:
                mask = local - sp.o_exchange
                self._exchange(p, [i for i in range(self._P) if mask >> i & 1])
            else:
                mask = local - sp.o_snap_many
                self._snap(p, [p * self._P + i for i in range(self._P) if mask >> i & 1])
        phase = self._phase
        if phase is _TURN or phase is _DRAWN or phase is _TAKEN:  # the commonest
            self.to_act = self._current  # the turn holder
        else:
            if phase is _CLOSING:
                self._after_closing_action()
                self._legal_of = -1
            self.to_act = self._who_acts()
        return events[start:]

    def resolve_snaps(self, actions: Iterable[Action | int]) -> list[Event]:
        """Apply snaps declared at the same moment, in the table's arbitration order.

        ``first``: in the order given; ``seat-order``: seat order from the player who
        discarded the card; ``random``: a seeded random order. Each snap still legal when
        its turn comes is applied (a wrong one costs its penalty); once one is correct
        the window closes and the rest are void. Illegal or non-snap actions raise.
        """
        ids = [self._coerce(a) for a in _many("actions", actions)]
        sp = self.space
        for aid in ids:
            if sp.decode(aid).kind is not ActionKind.SNAP:
                raise IllegalActionError(sp.decode(aid), "only snaps can be resolved together")
            self.verify(aid)
        mode = self.rules.snap.arbitration
        if mode == "seat-order":
            d = self._window_discarder
            ids.sort(key=lambda a: (a // sp.per_player - d) % self.players)
        elif mode == "random":
            # seeded by the state (actions so far), so a replay draws the same order
            ply = self._plies_before + len(self._actions)
            rng = random.Random(f"{self.seed}:snap:{ply}")
            rng.shuffle(ids)
        events: list[Event] = []
        for aid in ids:
            if self.can_apply(aid):
                events.extend(self.apply(aid))
        return events

    # ------------------------------------------------------------------ transitions
    def _pass(self, p: int) -> None:
        self._events.append(_new_event(_EVENT, (_EV_PASS, p, (), (), None, "")))
        if self._phase is _CLOSING:
            self._window_tried |= 1 << p
        else:
            self._end_turn()

    def _skip(self, p: int) -> None:
        if not self._power_private():
            self._events.append(_new_event(_EVENT, (_EV_SKIP, p, (), (), None, "")))
        self._end_power()

    def _choose_opening(self, p: int, positions: tuple[int, ...]) -> None:
        self._opening_peek(p, positions)
        self._pending.pop(0)
        if not self._pending:
            self._begin_turn(self.starter)

    def _re_peek(self, p: int) -> None:
        self._repeek_used |= 1 << p
        row = self._slots[p]
        bit = 1 << p
        positions = []
        cards: list[Card | None] = []
        hide_penalty = not self.rules.snap.penalty_peekable or self._penalty_blind
        for pos in self._opening_seen[p]:
            c = row[pos - 1]
            if c >= 0 and not (hide_penalty and self._is_penalty(p, pos - 1, c)):
                self._known[c] |= bit
                positions.append((p, pos))
                cards.append(self.deck[c])
        self._events.append(
            _new_event(_EVENT, (_EV_RE_PEEK, p, tuple(positions), tuple(cards), self._only[p], ""))
        )

    def _draw(self, p: int) -> None:
        if not self._stock:
            self._recycle()  # the draw needs a card (stock.recycle_when "draw", "one-left")
        c = self._stock.pop()
        self._drawn = c
        self._from_stock = True
        if self._cfg.open_draw:  # turn.open_draw: shown to everyone
            self._known[c] = self._ALL
            self._events.append(_new_event(_EVENT, (_EV_DRAW, p, (), (self.deck[c],), None, "")))
        else:
            self._known[c] = 1 << p
            self._events.append(
                _new_event(_EVENT, (_EV_DRAW, p, (), (self.deck[c],), self._only[p], ""))
            )
        power = self._power[c]
        if power is not None and self._draw_timing:
            self._start_power(p, power, c, after_drawn=True)
        else:
            self._phase = _DRAWN

    def _take(self, p: int) -> None:
        c = self._discard.pop()
        self._drawn = c
        self._from_stock = False
        self._known[c] = self._ALL
        self._window_open = False
        self._window_won = False
        self._events.append(_new_event(_EVENT, (_EV_TAKE, p, (), (self.deck[c],), None, "")))
        self._phase = _TAKEN

    def _open_window(self, p: int) -> None:
        if self._snapping:
            self._window_open = True
            self._window_discarder = p
            self._window_tried = 0
            self._window_won = False

    def _replace(self, p: int, i: int) -> None:
        if self._power_now is not None:
            # the card is placed with steps of its private power left: they lapse
            # unseen (no event), as when the power ends, and the card is placed
            self._end_power()
        row = self._slots[p]
        old = row[i]
        row[i] = self._drawn
        self._drawn = -1
        if self._penalty_of:
            self._penalty_of.pop(old, None)
        self._discard.append(old)
        self._known[old] = self._ALL
        self._events.append(
            _new_event(_EVENT, (_EV_REPLACE, p, self._places[p][i], (self.deck[old],), None, ""))
        )
        if self._snapping:
            self._open_window(p)
        power = self._power[old]
        if (
            power is not None
            and self._swapped_out
            and (self._from_stock or not self._swapped_out_stock_only)
        ):
            self._start_power(p, power, old, after_drawn=False)
        elif self._call_last:
            self._main_action_done(p)
        else:  # no call at the end of a turn at this table: the turn is over
            self._end_turn()

    def _discard_drawn(self, p: int) -> None:
        if self._power_now is not None:
            # the card is placed with steps of its private power left: they lapse
            # unseen (no event), as when the power ends, and the card is placed
            self._end_power()
        c = self._drawn
        self._drawn = -1
        self._discard.append(c)
        self._known[c] = self._ALL
        self._events.append(_new_event(_EVENT, (_EV_DISCARD, p, (), (self.deck[c],), None, "")))
        self._open_window(p)
        power = self._power[c]
        if power is not None and not self._draw_timing and self._from_stock:
            self._start_power(p, power, c, after_drawn=False)
        elif self._call_last:
            self._main_action_done(p)
        else:  # no call at the end of a turn at this table: the turn is over
            self._end_turn()

    def _exchange(self, p: int, indices: list[int]) -> None:
        if self._power_now is not None:
            # the card is placed with steps of its private power left: they lapse
            # unseen (no event), as when the power ends, and the card is placed
            self._end_power()
        row = self._slots[p]
        drawn = self._drawn
        self._drawn = -1
        keys = {self._key[row[i]] for i in indices}
        positions = tuple((p, i + 1) for i in indices)
        cards = tuple(self.deck[row[i]] for i in indices)
        if len(keys) == 1:
            for i in indices:
                c = row[i]
                row[i] = -1
                self._layout_changed()
                self._penalty_of.pop(c, None)
                self._discard.append(c)
                self._known[c] = self._ALL
            row[indices[0]] = drawn
            self._events.append(_new_event(_EVENT, (_EV_EXCHANGE, p, positions, cards, None, "")))
            self._open_window(p)
        else:
            for i in indices:
                self._known[row[i]] = self._ALL
            self._known[drawn] = self._ALL
            if self.rules.turn.exchange_failure == "keep-drawn":
                j = row.index(-1, self._G)
                row[j] = drawn
                self._layout_changed()
                self._emit(
                    Event(
                        _EV_FAILED_EXCHANGE,
                        p,
                        (*positions, (p, j + 1)),
                        (*cards, self.deck[drawn]),
                    )
                )
            else:
                self._discard.append(drawn)
                self._emit(
                    _new_event(
                        _EVENT,
                        (
                            _EV_FAILED_EXCHANGE,
                            p,
                            positions,
                            (*cards, self.deck[drawn]),
                            None,
                            "",
                        ),
                    )
                )
                self._open_window(p)
        self._main_action_done(p)

    # --- powers
    def _start_power(self, p: int, power: Power, card: int, *, after_drawn: bool) -> None:
        self._power_now = power
        self._power_card = card
        self._step = 0
        self._peeked = []
        self._after_power_drawn = after_drawn
        if not self._power_unannounced():
            self._events.append(
                _new_event(_EVENT, (_EV_POWER, p, (), (self.deck[card],), None, power.name))
            )
        self._phase = _POWER

    def _power_private(self) -> bool:
        """A power under way from a card only its holder has seen (a private draw).

        Only a power fired by a draw can be: its card is in its holder's hand. (The card
        of a power fired by a discard is public, even once a recycle has shuffled it
        back into the stock during the power.)"""
        return (
            self._power_now is not None
            and self._after_power_drawn
            and self._known[self._power_card] != self._ALL
        )

    def _power_unannounced(self) -> bool:
        """A power from a card only its holder has seen (a private draw), before any step.

        Nobody else may learn that it exists: no event is public until a step is taken,
        and other players' views show the holder still deciding about the drawn card.
        """
        return self._step == 0 and self._power_private()

    def _advance_power(self) -> None:
        power = self._power_now
        assert power is not None
        self._step += 1
        if self._step >= len(power.steps):
            self._end_power()

    def _end_power(self) -> None:
        self._power_now = None
        self._power_card = -1
        self._peeked = []
        if self._after_power_drawn:
            self._after_power_drawn = False
            self._phase = _DRAWN
        else:
            self._main_action_done(self._current)

    def _peek(self, p: int, g: int) -> None:
        owner, i = divmod(g, self._P)
        c = self._slots[owner][i]
        self._known[c] |= 1 << p
        self._peeked.append(g)
        self._events.append(
            _new_event(
                _EVENT, (_EV_PEEK, p, self._places[owner][i], (self.deck[c],), self._only[p], "")
            )
        )
        self._advance_power()

    def _swap(self, p: int, a: int, b: int) -> None:
        P = self._P
        oa, ia = divmod(a, P)
        ob, ib = divmod(b, P)
        ra, rb = self._slots[oa], self._slots[ob]
        ca, cb = ra[ia], rb[ib]
        # a seen swap that touches the swapper's own hidden penalty card is done blind
        blind = (oa == p and self._blind_to_owner(p, ia, ca)) or (
            ob == p and self._blind_to_owner(p, ib, cb)
        )
        ra[ia], rb[ib] = cb, ca
        if oa != ob:
            self._penalty_of.pop(ca, None)
            self._penalty_of.pop(cb, None)
        else:
            # within one hand a penalty card stays one: past the grid it is one by where
            # it lies; carried into the grid it is recorded (where the table allows that)
            G = self._G
            into_grid_ok = self.rules.snap.penalty_position == "first-empty"
            for c, was, now in ((ca, ia, ib), (cb, ib, ia)):
                if now >= G:
                    self._penalty_of.pop(c, None)
                elif was >= G and into_grid_ok:
                    self._penalty_of[c] = oa
        power = self._power_now
        assert power is not None
        seen_swap = power.steps[self._step].seen
        if seen_swap and not blind:
            self._known[ca] |= 1 << p
            self._known[cb] |= 1 << p
            self._emit(
                Event(
                    _EV_SWAP,
                    p,
                    ((oa, ia + 1), (ob, ib + 1)),
                    (self.deck[ca], self.deck[cb]),
                    frozenset({p}),
                    "seen",
                )
            )
        else:
            self._events.append(
                _new_event(_EVENT, (_EV_SWAP, p, ((oa, ia + 1), (ob, ib + 1)), (), None, ""))
            )
        self._advance_power()

    # --- snapping
    def _snap(self, p: int, slots: list[int]) -> None:
        P = self._P
        top = self._discard[-1]
        key = self._key[top]
        cards = [self._slots[g // P][g % P] for g in slots]
        positions = tuple((g // P, g % P + 1) for g in slots)
        shown = tuple(self.deck[c] for c in cards)
        snap = self.rules.snap
        if not self._window_won and all(self._key[c] == key for c in cards):
            for g, c in zip(slots, cards, strict=True):
                self._slots[g // P][g % P] = -1
                self._layout_changed()
                self._discard.append(c)
                self._known[c] = self._ALL
                self._penalty_of.pop(c, None)
            self._window_tried |= 1 << p
            if snap.per_discard == "one":
                if snap.too_late == "penalty":
                    self._window_won = True
                else:
                    self._window_open = False
            self._events.append(_new_event(_EVENT, (_EV_SNAP, p, positions, shown, None, "")))
            owner = slots[0] // P
            if owner != p and any(c >= 0 for c in self._slots[p]):
                self._snapper = p
                self._give_target = slots[0]
                self._give_return = self._phase
                self._phase = _GIVE
                return
            self._after_cards_left(owner)
            return
        # a wrong snap (or one too late): the cards go back, seen as the table says
        self._window_tried |= 1 << p
        owner = slots[0] // P
        seen_by = snap.wrong_seen_by
        if owner != p and snap.wrong_other_seen_by != "as-own":
            seen_by = snap.wrong_other_seen_by
        if len(slots) > 1 and snap.wrong_shown == "unmatched" and not self._window_won:
            kept = [k for k, c in enumerate(cards) if self._key[c] != key]
            cards = [cards[k] for k in kept]
            positions = tuple(positions[k] for k in kept)
            shown = tuple(shown[k] for k in kept)
        if seen_by == "all":
            bits, who = self._ALL, None
        elif seen_by == "snapper":
            bits, who = 1 << p, frozenset({p})
        else:
            bits, who = 0, frozenset[int]()
        if any(
            self._blind_to_owner(o, i - 1, c) for (o, i), c in zip(positions, cards, strict=True)
        ):
            # a penalty card its owner may not see: shown to the others only
            bits &= ~(1 << owner)
            who = frozenset(q for q in range(self.players) if bits >> q & 1)
        for c in cards:
            self._known[c] |= bits
        note = "too late" if self._window_won else ""
        self._events.append(_new_event(_EVENT, (_EV_WRONG_SNAP, p, positions, shown, who, note)))
        self._penalise(p, snap.penalty_cards)

    def _penalise(self, p: int, count: int) -> None:
        row = self._slots[p]
        for _ in range(count):
            if not self._stock and self.rules.stock.on_empty == "recycle":
                self._recycle()
            if not self._stock:
                self._events.append(
                    _new_event(_EVENT, (_EV_PENALTY, p, (), (), None, "the stock is empty"))
                )
                break
            c = self._stock.pop()
            waiting = self._give_target - p * self._P  # a position owed a given card
            if self.rules.snap.penalty_position == "first-empty":
                j = next(k for k, x in enumerate(row) if x < 0 and k != waiting)
                if j < self._G:
                    self._penalty_of[c] = p
            else:
                j = next(k for k in range(self._G, len(row)) if row[k] < 0 and k != waiting)
            row[j] = c
            self._layout_changed()
            self._known[c] = 0
            self._events.append(
                _new_event(_EVENT, (_EV_PENALTY, p, self._places[p][j], (), None, ""))
            )
        self._check_stock()

    def _check_stock(self) -> None:
        """Penalties may have drawn the stock empty: recycle the discards where the table
        does so at once (``stock.recycle_when = "emptied"``); if the turn holder has yet
        to draw (now or once a give returns to its turn) and cannot, the round ends."""
        if not self._stock and self._cfg.recycle_emptied:
            self._recycle()
        if self._phase is _TURN and not self._refillable():
            # The turn holder has not drawn yet and now cannot: the stock has run out.
            self._end("stock")

    def _give(self, p: int, i: int) -> None:
        P = self._P
        target = self._give_target
        owner, ti = divmod(target, P)
        c = self._slots[p][i]
        self._slots[p][i] = -1
        self._slots[owner][ti] = c
        self._layout_changed()
        self._penalty_of.pop(c, None)
        self._events.append(
            _new_event(_EVENT, (_EV_GIVE, p, ((p, i + 1), (owner, ti + 1)), (), None, ""))
        )
        self._phase = self._give_return
        self._snapper = -1
        self._give_target = -1
        self._after_cards_left(p)
        self._check_stock()  # penalties during the give may have emptied the stock

    def _after_cards_left(self, p: int) -> None:
        """React to ``p`` losing cards: a grid emptied by snapping calls or wins."""
        if any(c >= 0 for c in self._slots[p]):
            return
        snap = self.rules.snap
        mode = snap.empty_grid
        if mode == "win":
            self._end("empty-grid", empty_winner=p)
        elif mode == "end":
            self._end("empty-grid")
        elif mode == "call" and self._caller < 0:
            if self._phase is _CLOSING:
                return  # the round is already ending: no final turns to give
            if snap.empty_grid_calls == "next-turn":
                self._calls_owed |= 1 << p
                return
            self._caller = p
            if self._caller_locked:  # only a locked grid changes what may be snapped
                self._layout_changed()
            self._final = self._final_queue(p)
            self._events.append(_new_event(_EVENT, (_EV_CALL, p, (), (), None, "empty grid")))
            if p == self._current and self._phase is _TURN:
                # emptied before its turn's draw: the call is that turn, as a call made
                # instead of drawing is, and the caller takes no more turns
                self._end_turn()

    def _final_queue(self, caller: int) -> list[int]:
        """The final turns after a call by ``caller`` during the current player's turn.

        Each other player gets ``call.final_turns`` turns in seat order after the current
        player. When the call happens inside another player's turn (a grid emptied by
        snapping), that turn, already under way, counts as that player's first final turn.
        """
        n = self.players
        c = self._current
        order = [(c + k) % n for k in range(1, n + 1)]
        others = [p for p in order if p != caller]
        first = [p for p in others if p != c]
        queue = first + others * (self.rules.call.final_turns - 1)
        if self.rules.call.final_turns == 0:
            queue = []
        if self.rules.call.caller_final_turn:
            queue.append(caller)
        return queue

    # --- calling and turn ends
    def _call(self, p: int) -> None:
        self._caller = p
        if self._caller_locked:  # only a locked grid changes what may be snapped
            self._layout_changed()
        self._final = self._final_queue(p)
        self._events.append(_new_event(_EVENT, (_EV_CALL, p, (), (), None, "")))
        self._end_turn()

    def _main_action_done(self, p: int) -> None:
        """The turn's card is placed (and its power used): where calling comes at the end
        of a turn (``call.timing = "end-of-turn"``) the player may still call, while the
        stock lasts; otherwise the turn ends."""
        if self._phase is _OVER:
            return
        if self._call_last:
            stock_left = self._stock or (self._recycling and len(self._discard) > 1)
            if stock_left and self._can_call(p):
                self._phase = _END_OF_TURN
                return
        self._end_turn()

    def _end_turn(self) -> None:
        if self._phase is _OVER:
            return
        c = self._current
        self._turns[c] += 1
        self._total_turns += 1
        if len(self._stock) <= 1 and self._recycling:
            # stock.recycle_when: "emptied" recycles an empty stock now, "one-left" a
            # stock of one card or none; "draw" leaves it for the next draw
            cfg = self._cfg
            if cfg.recycle_low or (cfg.recycle_emptied and not self._stock):
                self._recycle()
        if not self._stock and not self._refillable():
            self._end_after_turn("stock")
            return
        cap = self._max_turns
        if cap and self._total_turns >= cap:
            self._end_after_turn("turn-cap")
            return
        if self._caller >= 0:
            if not self._final:
                self._end_after_turn("call")
                return
            self._begin_turn(self._final.pop(0))
            return
        nxt = (c + 1) % self.players
        if self._calls_owed:
            self._begin_turn(nxt)
        else:  # all _begin_turn does when nobody owes a call (and, as here, stock is left)
            self._current = nxt
            self._phase = _TURN
            self._events.append(self._turn_event[nxt])

    def _end_after_turn(self, reason: str) -> None:
        """End the round after a turn, first letting its last discard be snapped where
        the table says so (``snap.last_discard``)."""
        if self.rules.snap.last_discard and self._window_open:
            self._closing_reason = reason
            self._phase = _CLOSING
            if self.reactors:
                return
        self._end(reason)

    def _after_closing_action(self) -> None:
        """In phase ``CLOSING``: end the round once nobody may snap its last discard."""
        if self._phase is _CLOSING and not (self._window_open and self.reactors):
            self._end(self._closing_reason)

    def _recycle(self) -> None:
        if len(self._discard) <= 1:
            return
        top = self._discard.pop()
        cards = self._discard
        self._discard = [top]
        rng = random.Random(f"{self.seed}:recycle:{self._recycles}")
        self._recycles += 1
        rng.shuffle(cards)
        for c in cards:
            self._known[c] = 0
        self._events.append(
            _new_event(_EVENT, (_EV_RECYCLE, -1, (), (), None, f"{len(cards)} cards"))
        )
        cards.extend(self._stock)  # under what is left of the stock (stock.recycle_when)
        self._stock = cards

    def _end(self, reason: str, *, empty_winner: int | None = None) -> None:
        self._phase = _OVER
        self._window_open = False
        self._window_won = False
        # a snap can end the round inside a power (it emptied the grid): once the round
        # is over no power is in progress, whatever step it had reached
        self._power_now = None
        self._power_card = -1
        self._peeked = []
        self._after_power_drawn = False
        hands = []
        values = []
        known, deck, points, everyone = self._known, self.deck, self._value, self._ALL
        for row in self._slots:
            hand = []
            for i, c in enumerate(row):
                if c >= 0:
                    known[c] = everyone
                    hand.append((i + 1, deck[c]))
            hands.append(hand)
            values.append([points[c] for c in row if c >= 0])
        self._result = score_round(
            self.rules,
            hands,
            reason=reason,
            caller=self.caller,
            empty_winner=empty_winner,
            values=values,
        )
        self._events.append(_new_event(_EVENT, (_EV_END, -1, (), (), None, reason)))

    # ------------------------------------------------------------------ views
    def view(self, player: SupportsIndex) -> PlayerView:
        """What ``player`` may know now, and nothing else."""
        # a typed local: compiled, the seat is a C integer from here on
        seat: int = player if type(player) is int else whole("player", player)
        if not 0 <= seat < self.players:
            raise ValueError(f"there is no player {seat}")
        bit = 1 << seat
        known = self._known
        deck = self.deck
        slots = self._slots
        events = self._events
        cache = self._grid_cache
        if not (
            cache.events is events
            and cache.slots is slots
            and cache.known is known
            and cache.deck is deck
        ):  # what cache.serves(...) tells
            cache = self._grid_cache = GridCache(events, slots, known, deck, self.players)
        # the player's grids, and its history: every event as it saw it, an immutable
        # tuple kept per player and extended only by the events logged since its last
        # view (the cache makes each hidden twin once)
        history = self._histories[seat]
        grids, new_history = cache.refresh(seat, self._result is not None, history)
        if new_history is not history:
            history = self._histories[seat] = new_history
        if self._layout_cache is not self._present_of:
            # which positions hold a card, rebuilt only when a grid may have gained or
            # lost a card (every such change replaces the layout cache object, see
            # _layout_changed): views of an unchanged layout share the same tuple
            self._present_of = self._layout_cache
            self._present = tuple([tuple([c >= 0 for c in row]) for row in slots])
        discard = self._discard
        seen = self._discard_seen
        if discard != seen:  # (lists of different lengths compare unequal at once)
            # the pile's cards, rebuilt only when the pile changed: an unchanged pile is
            # the same tuple in every view, and a pile that only grew extends the last
            k = len(seen)
            if len(discard) > k and discard[:k] == seen:
                self._discard_cards += tuple([deck[c] for c in discard[k:]])
            else:
                self._discard_cards = tuple([deck[c] for c in discard])
            self._discard_seen = discard[:]
        holding: Card | None = None
        if self._drawn >= 0 and known[self._drawn] & bit:
            holding = deck[self._drawn]
        power = self._power_now
        step = None
        private = False
        phase = _PHASE_NAMES[self._phase]
        if power is not None:
            if self._phase is _POWER:
                step = power.steps[self._step]
            if seat != self._current and self._power_private():
                # another player who has not seen the card cannot tell which power it is,
                # nor whether a step is left: the phase, the power, its next step and
                # the positions it peeked at are those of a plain drawn card
                power, step = None, None
                private = True
                phase = _PHASE_NAMES[self.phase]
        # positional arguments in field order (player, players, grid_size, phase,
        # current, to_act, caller, grids, present, discard, stock_size, holding,
        # holding_from_stock, power, power_step, peeked, window_open, opening_positions,
        # re_peek_used, turns, history, result): keywords cost a third of the call.
        # Built as its plain storage, then made a (frozen) PlayerView: see _ViewFields
        view = _ViewFields(
            seat,
            self.players,
            self._G,
            phase,
            self._current,
            self.to_act,
            None if self._caller < 0 else self._caller,  # self.caller
            grids,
            self._present,
            self._discard_cards,
            len(self._stock),
            holding,
            self._from_stock if self._drawn >= 0 else None,
            power.name if power is not None else None,
            step,
            tuple([(g // self._P, g % self._P + 1) for g in self._peeked])
            if self._peeked and not private
            else (),
            self._window_open,
            self._opening_seen[seat],
            (self._repeek_used & bit) != 0,
            tuple(self._turns),
            history,
            self._result,
        )
        view.__class__ = PlayerView
        return view  # type: ignore[return-value]  # a PlayerView now (cast() is a call)

    # ------------------------------------------------------------------ copy, save, load
    def public_view(self) -> PlayerView:
        """What someone who holds no seat may know now (a spectator): public only.

        Built from the public record alone, never from a seat's view: ``player`` is
        ``-1``, no grid shows a card until the round is over (then every card does), the
        history is every event without the cards only some players saw, a card in hand
        is shown only when it was taken from the discard pile, and a power is named only
        when its card is face up (see :attr:`phase`).
        """
        over = self._result is not None
        deck = self.deck
        grids = tuple(
            [tuple([deck[c] if over and c >= 0 else None for c in row]) for row in self._slots]
        )
        present = tuple([tuple([c >= 0 for c in row]) for row in self._slots])
        history = tuple([e.as_seen_by(-1) for e in self._events])
        holding: Card | None = None
        if self._drawn >= 0 and self._known[self._drawn] == self._ALL:
            holding = deck[self._drawn]
        power = self._power_now
        step = None
        peeked: tuple[tuple[int, int], ...] = ()
        if power is not None and not self._power_private():
            if self._phase is _POWER:
                step = power.steps[self._step]
            peeked = tuple([(g // self._P, g % self._P + 1) for g in self._peeked])
        else:
            power = None
        view = _ViewFields(
            -1,
            self.players,
            self._G,
            _PHASE_NAMES[self.phase],
            self._current,
            self.to_act,
            None if self._caller < 0 else self._caller,
            grids,
            present,
            tuple([deck[c] for c in self._discard]),
            len(self._stock),
            holding,
            self._from_stock if self._drawn >= 0 else None,
            power.name if power is not None else None,
            step,
            peeked,
            self._window_open,
            (),
            False,
            tuple(self._turns),
            history,
            self._result,
        )
        view.__class__ = PlayerView
        return view  # type: ignore[return-value]  # a PlayerView now

    def copy(self) -> Round:
        """An independent copy (for search): same state, separate future."""
        new = self._clone()
        new._slots = [row[:] for row in self._slots]
        new._discard = self._discard[:]
        new._stock = self._stock[:]
        new._known = self._known[:]
        new._peeked = self._peeked[:]
        new._final = self._final[:]
        new._turns = self._turns[:]
        new._pending = self._pending[:]
        new._penalty_of = dict(self._penalty_of)
        new._opening_seen = self._opening_seen[:]
        new._events = self._events[:]
        new._histories = list(self._histories)  # immutable tuples, safely shared
        new._actions = self._actions[:]
        new._legal_of = -1
        new._layout_cache = {}
        return new

    def _clone(self) -> Round:
        """A round whose every attribute is this one's (shared, not copied): the base of
        :meth:`copy` and of rounds built from a known state. Written out attribute by
        attribute, in the order of ``__slots__``, because that is the fastest copy of a
        slotted (or native) object; ``tests/test_caches.py`` checks that it names every
        slot."""
        new = Round(_BLANK)
        new.rules = self.rules
        new.players = self.players
        new.seed = self.seed
        new.dealer = self.dealer
        new.starter = self.starter
        new.space = self.space
        new.deck = self.deck
        new.to_act = self.to_act
        new._cfg = self._cfg
        new._G = self._G
        new._P = self._P
        new._ALL = self._ALL
        new._opening_choices = self._opening_choices
        new._value = self._value
        new._key = self._key
        new._power = self._power
        new._only = self._only
        new._turn_event = self._turn_event
        new._places = self._places
        new._start_ids = self._start_ids
        new._no_cards = self._no_cards
        new._per = self._per
        new._o_replace = self._o_replace
        new._size = self._size
        new._take_ok = self._take_ok
        new._call_first = self._call_first
        new._call_last = self._call_last
        new._earliest = self._earliest
        new._call_allowed = self._call_allowed
        new._re_peek_ok = self._re_peek_ok
        new._exchange_ok = self._exchange_ok
        new._snapping = self._snapping
        new._draw_timing = self._draw_timing
        new._swapped_out = self._swapped_out
        new._penalty_blind = self._penalty_blind
        new._swapped_out_stock_only = self._swapped_out_stock_only
        new._recycling = self._recycling
        new._max_turns = self._max_turns
        new._caller_locked = self._caller_locked
        new._snap_when = self._snap_when
        new._penalty_need = self._penalty_need
        new._penalty_first_empty = self._penalty_first_empty
        new._snap_any = self._snap_any
        new._slots = self._slots
        new._discard = self._discard
        new._stock = self._stock
        new._known = self._known
        new._drawn = self._drawn
        new._from_stock = self._from_stock
        new._penalty_of = self._penalty_of
        new._phase = self._phase
        new._current = self._current
        new._power_now = self._power_now
        new._power_card = self._power_card
        new._step = self._step
        new._peeked = self._peeked
        new._after_power_drawn = self._after_power_drawn
        new._caller = self._caller
        new._final = self._final
        new._window_open = self._window_open
        new._window_discarder = self._window_discarder
        new._window_tried = self._window_tried
        new._window_won = self._window_won
        new._closing_reason = self._closing_reason
        new._calls_owed = self._calls_owed
        new._snapper = self._snapper
        new._give_target = self._give_target
        new._give_return = self._give_return
        new._turns = self._turns
        new._total_turns = self._total_turns
        new._repeek_used = self._repeek_used
        new._opening_seen = self._opening_seen
        new._pending = self._pending
        new._recycles = self._recycles
        new._plies_before = self._plies_before
        new._origin = self._origin
        new._result = self._result
        new._events = self._events
        new._histories = self._histories
        new._actions = self._actions
        new._discard_seen = self._discard_seen
        new._discard_cards = self._discard_cards
        new._present_of = self._present_of
        new._present = self._present
        # a copy's log and grids are other lists, so the cache does not serve it: its
        # first view builds its own (GridCache.serves)
        new._grid_cache = self._grid_cache
        new._legal_of = self._legal_of
        new._legal_ids = self._legal_ids
        new._layout_cache = self._layout_cache
        return new

    def __reduce__(self) -> tuple[Any, ...]:
        # pickle and copy.deepcopy: a compiled Round cannot be made without __init__,
        # so both builds rebuild a round from its attributes
        return (_round_from_fields, (self._fields(),))

    def _fields(self) -> dict[str, Any]:
        """Every attribute of the round by name: a new dict whose values are shared."""
        return dict(zip(_ATTRIBUTES, _get_attributes(self), strict=True))

    @staticmethod
    def _from_fields(fields: dict[str, Any]) -> Round:
        """A round whose attributes are ``fields`` (all of them, as :meth:`_fields` gives).

        No checks and no deal: for copies and for rounds built from a known state.
        """
        new = Round(_BLANK)
        for name, value in fields.items():
            setattr(new, name, value)
        return new

    def _state(self) -> tuple[Any, ...]:
        return (
            self.rules,
            self.players,
            self.seed,
            self.dealer,
            self.starter,
            self.deck,
            self._phase,
            self._current,
            self._slots,
            self._discard,
            self._stock,
            self._known,
            self._drawn,
            self._from_stock,
            self._power_now,
            self._power_card,
            self._step,
            self._peeked,
            self._caller,
            self._final,
            self._window_open,
            self._window_discarder,
            self._window_tried,
            self._window_won,
            self._closing_reason,
            self._penalty_of,
            self._calls_owed,
            self._snapper,
            self._give_target,
            self._give_return,
            self._after_power_drawn,
            self._turns,
            self._total_turns,
            self._repeek_used,
            self._opening_seen,
            self._pending,
            self._recycles,
            self._plies_before,
            self._origin,
            self._events,
            self._actions,
            self._result,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Round):
            return NotImplemented
        return self._state() == other._state()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"Round(rules={self.rules.name!r}, players={self.players}, seed={self.seed}, "
            f"phase={self.phase.name}, turns={self._total_turns})"
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready record: the rules, the deal, the actions and a state snapshot.

        :meth:`from_dict` turns it back into an equal, playable round.
        """
        from .saving import save_round

        return save_round(self)

    def to_json(self) -> str:
        """:meth:`to_dict` as compact JSON text."""
        from .saving import dumps

        return dumps(self)

    @classmethod
    def from_dict(cls, data: object, *, verify: Arg[bool] = False) -> Round:
        """Load a saved round; with ``verify``, also replay its actions and compare.

        Every load checks the document strictly and the state's invariants; any problem
        raises :class:`~cambio.errors.SaveError` naming the JSON path of the first one.
        """
        from .saving import load_round

        return load_round(data, verify=flag("verify", verify))

    @classmethod
    def from_json(cls, text: object, *, verify: Arg[bool] = False) -> Round:
        """Load a round from the JSON text :meth:`to_json` wrote (see :meth:`from_dict`)."""
        from .saving import loads_round

        return loads_round(text, verify=flag("verify", verify))

    def position(self) -> str:
        """The round's state as one line of text (see :mod:`cambio.position`)."""
        from .position import write_position

        return write_position(self)

    @classmethod
    def from_position(cls, rules: RuleSet | str, text: Arg[str]) -> Round:
        """A round in the state a written position describes (see :mod:`cambio.position`).

        Its history starts at the position: no events or actions before it.
        """
        from .position import read_position

        return read_position(rules, text)  # it checks both itself

    @classmethod
    def replay(
        cls,
        rules: RuleSet | str,
        actions: Iterable[Action | int],
        *,
        players: SupportsIndex | None = None,
        seed: SupportsIndex | None = None,
        deck: Sequence[Card | str] | None = None,
        dealer: SupportsIndex | None = None,
        starter: SupportsIndex | None = None,
    ) -> Round:
        """Play ``actions`` from a fresh deal; the same inputs give the identical round."""
        moves = _many("actions", actions)
        rnd = cls(rules, players, seed=seed, deck=deck, dealer=dealer, starter=starter)
        for a in moves:
            rnd.apply(a)
        return rnd


# Every attribute of a round (a compiled Round lists its native attributes itself)
_ATTRIBUTES: Final[tuple[str, ...]] = tuple(
    getattr(Round, "__mypyc_attrs__", None) or vars(Round)["__slots__"]
)
_get_attributes: Final = operator.attrgetter(*_ATTRIBUTES)


def _round_from_fields(fields: dict[str, Any]) -> Round:
    """Unpickle a :class:`Round` (see ``Round.__reduce__``)."""
    return Round._from_fields(fields)
