"""Determinization: a full round drawn at random from what one player knows.

A search bot cannot look at the cards it has not seen, but it can *imagine* them.
:func:`determinize` takes one player's :class:`~cambio.views.PlayerView` and the table's
:class:`~cambio.rules.RuleSet`, and returns a :class:`~cambio.round.Round` that the
viewer cannot tell from the real one:

* its ``view(view.player)`` equals the given view, history included;
* every card the viewer saw stays where the viewer saw it (and follows it through the
  public moves since: swaps, gives, snaps, discards);
* every other card is drawn uniformly from the cards still unaccounted for (the deck
  minus the discard pile, minus every card the viewer knows), with two refinements:
  after a recycle the stock is drawn from the recycled cards only, and a card another
  player drew on a table where powers fire on the draw is drawn among the cards whose
  power matches the steps the viewer saw that player take;
* the other players' knowledge follows the public record: who looked at which place
  (opening peeks, peeks, draws, seen swaps, re-peeks, wrong snaps).

The function receives a view and the rules only: it cannot read the real round's
hidden cards. The sampled round plays on like any round (its future recycles and
random snap arbitration are seeded from ``rng``), so a bot can try an action on it and
play the round out. It has no record of actions (:attr:`Round.actions` is empty): it is
a position to search from, not a game to replay.

>>> import random
>>> import cambio
>>> from cambio.determinize import determinize
>>> real = cambio.Round("practice", players=3, seed=4)
>>> _ = real.apply(cambio.Action.draw(0))
>>> view = real.view(0)
>>> sample = determinize(view, real.rules, random.Random(1))
>>> sample.view(0) == view
True
>>> sample.legal_actions(0) == real.legal_actions(0)
True

A bot that samples many rounds from one view builds an :class:`InfoSet` once (it
reads the history) and calls :meth:`InfoSet.sample` for each round (cheap).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import chain, compress, repeat
from operator import is_, itemgetter

from .arguments import Arg, flag
from .cards import Card
from .derived import _draws, derived
from .events import Event, EventKind
from .round import Phase, Round
from .rules import Power, RuleSet, SnapRules, Step
from .views import PlayerView

__all__ = ["DeterminizeError", "InfoSet", "determinize"]


Grids = tuple[tuple[tuple[int, bool], ...], ...]
"""Each player's cards as ``(slot, whether a given player knew it)`` pairs."""
Evidence = tuple[str, int, int, int, bool, bool, Grids]
"""One choice of another player, as :attr:`InfoSet.evidence` records it."""


class DeterminizeError(ValueError):
    """The view cannot come from a round of these rules (wrong table, a forged view)."""


# event kinds and phases as module constants: an enum attribute lookup per comparison
# is slow; the reading compares kinds by identity (see _PlainKind for plain strings)
_E_CALL = EventKind.CALL
_E_DEAL = EventKind.DEAL
_E_DISCARD = EventKind.DISCARD
_E_DRAW = EventKind.DRAW
_E_END = EventKind.END
_E_EXCHANGE = EventKind.EXCHANGE
_E_FAILED_EXCHANGE = EventKind.FAILED_EXCHANGE
_E_GIVE = EventKind.GIVE
_E_OPENING_PEEK = EventKind.OPENING_PEEK
_E_PASS = EventKind.PASS
_E_PEEK = EventKind.PEEK
_E_PENALTY = EventKind.PENALTY
_E_POWER = EventKind.POWER
_E_RECYCLE = EventKind.RECYCLE
_E_REPLACE = EventKind.REPLACE
_E_RE_PEEK = EventKind.RE_PEEK
_E_SKIP = EventKind.SKIP
_E_SNAP = EventKind.SNAP
_E_SWAP = EventKind.SWAP
_E_TAKE = EventKind.TAKE
_E_TURN = EventKind.TURN
_E_WRONG_SNAP = EventKind.WRONG_SNAP
_KINDS = {str(k.value): k for k in EventKind}
_P_TURN = Phase.TURN
_P_DRAWN = Phase.DRAWN
_P_TAKEN = Phase.TAKEN
_P_POWER = Phase.POWER
_P_GIVE = Phase.GIVE
_P_END_OF_TURN = Phase.END_OF_TURN
_PHASES = {p.name.lower(): p for p in Phase}
_NO_FACE = object()  # what a slot of unknown face reads as (index -1 of _Table.shown)


_Layout = tuple[list[list[int]], list[int], list[int], list[int], int, int]
"""Grids, discard pile, stock, knowledge, held card and power card of a sample."""


def _too_often(card: Card) -> DeterminizeError:
    return DeterminizeError(f"{card} is seen more often than the table's deck holds it")


_Draw = tuple[list[int], list[int], list[int], list[int], int]
"""One draw of a sample: the slots a hidden power ties, the bag of faces they come
from, the faces the others take (shuffled), the slots taking them one by one, and
the first slot of the run that takes the rest in one slice (-1: none)."""


class _PlainKind(Exception):
    """A history event whose kind is a plain string, not an :class:`EventKind`."""


class _Table:
    """What reading and drawing need of one table and size, worked out once.

    The distinct cards (*faces*) in a fixed order (by rank, then suit), each card
    object's face by identity (the rounds of one RuleSet deal the same card objects,
    those of :func:`cambio.derived.derived`; a card hashes slowly, an ``id`` fast), and
    per face its value, snap key and power (from the RuleSet's derived tables).
    """

    __slots__ = (
        "bag",
        "cards",
        "faces",
        "fixed0",
        "ids",
        "known0",
        "mean",
        "once",
        "pool0",
        "present0",
        "proto",
        "rules",
        "shown",
        "slots0",
        "stock0",
        "tid",
        "tkey",
        "tpow",
        "tval",
    )

    def __init__(self, rules: RuleSet, players: int) -> None:
        self.rules = rules
        # a dealt round of this table and size, whose fixed parts every sample shares
        self.proto = proto = Round(rules, players, seed=0)
        table = derived(rules)
        self.cards = cards = table.cards  # held: ``ids`` names these objects
        first: dict[Card, int] = {}
        for k, c in enumerate(cards):
            first.setdefault(c, k)
        order = sorted(first, key=lambda c: (c.rank, c.suit))
        self.faces = faces = [cards[first[c]] for c in order]
        self.shown = [*faces, _NO_FACE]
        self.tid = tid = {c: t for t, c in enumerate(faces)}
        self.ids = {id(c): tid[c] for c in cards}
        self.tval = [table.values[first[c]] for c in faces]
        self.tkey = [table.keys[first[c]] for c in faces]
        self.tpow = [table.powers[first[c]] for c in faces]
        bag = [0] * len(faces)
        for c in proto.deck:
            bag[tid[c]] += 1
        self.bag = bag
        self.once = max(bag, default=0) <= 1  # no two cards of the deck are equal
        deck = proto.deck
        self.mean = sum(table.values[first[c]] for c in deck) / max(1, len(deck))
        # the reading's lists at the deal (each reading from the deal copies them)
        N, G, P = len(deck), proto._G, proto._P
        self.slots0 = [list(range(p * G, (p + 1) * G)) + [-1] * (P - G) for p in range(players)]
        up = rules.opening.upcard  # the deal turns card players * G face up
        self.stock0 = list(range(N - 1, players * G - (not up), -1))
        self.known0 = [0] * N
        if up:
            self.known0[players * G] = (1 << players) - 1
        self.fixed0 = [-1] * N
        self.pool0 = [0] * N
        self.present0 = tuple([tuple([v >= 0 for v in row]) for row in self.slots0])


_TABLES: dict[tuple[int, int], _Table] = {}


def _table(rules: RuleSet, players: int) -> _Table:
    """The :class:`_Table` of this RuleSet object and size (kept per RuleSet)."""
    key = (id(rules), players)
    hit = _TABLES.get(key)
    if hit is not None and hit.rules is rules:
        return hit
    if len(_TABLES) > 64:
        _TABLES.clear()
    hit = _TABLES[key] = _Table(rules, players)
    return hit


def _shuffle(x: list[int], rng: random.Random) -> None:
    """``rng.shuffle(x)``: for a plain ``random.Random``, the same draws without the
    standard library's method call per item (as :func:`cambio.derived.shuffled_range`)."""
    if type(rng) is not random.Random:
        rng.shuffle(x)
        return
    getrandbits = rng.getrandbits
    for i, n, k in _draws(len(x)):
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        x[i], x[j] = x[j], x[i]


_SEEDS = 2**63


def _seed(rng: random.Random) -> int:
    """``rng.randrange(2**63)``, the same draw (inline for a plain ``random.Random``)."""
    if type(rng) is not random.Random:
        return rng.randrange(_SEEDS)
    s = rng.getrandbits(64)
    while s >= _SEEDS:
        s = rng.getrandbits(64)
    return s


def _step_fits(step: Step, kind: str, actor: int, places: Sequence[tuple[int, int]]) -> bool:
    """Whether a power step could have produced a peek or swap the viewer saw."""
    if step.action != kind:
        return False
    if kind == "peek":
        owner = places[0][0]
        if step.scope == "own":
            return owner == actor
        if step.scope == "other" or step.scope == "other-not-peeked":
            return owner != actor
        return True
    owners = [o for o, _ in places]
    if step.scope == "own-other":
        return owners.count(actor) == 1
    if step.scope == "peeked-own":
        return actor in owners
    if step.scope == "peeked-other":
        return owners.count(actor) <= 1
    return True


class _HiddenPower:
    """Steps the viewer saw another player take with a card it drew but never showed."""

    def __init__(self, actor: int) -> None:
        self.actor = actor
        self.steps: list[tuple[str, tuple[tuple[int, int], ...], bool]] = []
        self.skipped = False
        self.ended = False
        self.name: str | None = None  # known while the power is under way

    def copy(self) -> _HiddenPower:
        other = _HiddenPower(self.actor)
        other.steps = self.steps[:]
        other.skipped, other.ended, other.name = self.skipped, self.ended, self.name
        return other

    def allows(self, power: Power | None) -> bool:
        """Whether a card granting ``power`` could have made the steps seen: a power of
        at least as many steps (more after a logged skip), which fit them. Steps left
        out of a private power leave no trace, so a longer power fits too."""
        if not self.steps and not self.skipped:
            return True  # nothing seen: any card (a silent skip leaves no trace)
        if power is None:
            return False
        k = len(self.steps)
        if len(power.steps) < k + (1 if self.skipped else 0):
            return False
        if self.name is not None and power.name != self.name:
            return False
        for step, (kind, places, seen) in zip(power.steps, self.steps, strict=False):
            if not _step_fits(step, kind, self.actor, places):
                return False
            if kind == "swap" and step.seen != seen:
                return False
        return True


_Fill = tuple[
    int, str, int, tuple[tuple[int, int], ...], "frozenset[int] | None", str, tuple[int, ...]
]
"""An event with a card the viewer did not see: its index in the history, its fields
but the cards, and the slots of its cards (a sample fills the cards in)."""

_ReadState = tuple[
    list[list[int]],  # slots
    list[int],  # discard
    list[int],  # stock
    list[int],  # known
    list[int],  # fixed_t
    list[int],  # bag
    list[int],  # pool_of
    list[list[int]],  # pools
    list[_Fill],  # refs
    dict[int, _HiddenPower],  # hidden
    int,  # drawn
    bool,  # from_stock
    Phase,  # phase
    int,  # current
    "Power | None",  # power
    "_HiddenPower | None",  # hp
    int,  # power_card
    int,  # step
    int,  # peeked
    bool,  # after_drawn
    int,  # caller
    list[int],  # final
    int,  # w_discarder
    int,  # w_tried
    int,  # snapper
    int,  # give_target
    Phase,  # give_return
    int,  # repeek
    list[tuple[int, ...]],  # opening_seen
    int,  # starter
    int,  # recycles
    bool,  # won
    dict[int, int],  # penalty_of
    int,  # owed
    list[Evidence],  # evidence
    "tuple[tuple[bool, ...], ...] | None",  # present (None: to work out again)
]
"""Where the reading of a history stands after some of its events (see
:meth:`InfoSet._read`): the reading's variables in one tuple, in the order it unpacks
them. Kept per player and round (:func:`_keep`), so that the next view of the same
player is read from there: only the events added since are read again."""


def _own_hp(
    hidden: dict[int, _HiddenPower], hp: _HiddenPower | None
) -> tuple[dict[int, _HiddenPower], _HiddenPower | None]:
    """A copy of ``hidden`` whose power under way (``hp``) is a copy too: the others
    are over, and nothing changes a power that is over, so they are shared."""
    out = dict(hidden)
    if hp is None:
        return out, None
    mine = hp.copy()
    for v, h in hidden.items():
        if h is hp:
            out[v] = mine
    return out, mine


_ReadKey = tuple[int, int, int, bool, int]
_READS: dict[_ReadKey, tuple[RuleSet, tuple[Event, ...], _ReadState]] = {}


def _resume(
    key: _ReadKey, rules: RuleSet, history: tuple[Event, ...]
) -> tuple[_ReadState, int] | None:
    """The reading kept for this player's round, and how many events it read, when
    ``history`` begins with exactly those events (the same objects); else ``None``.

    The reading is taken out of the keeping (not copied): the caller reads on in it and
    keeps it again (:func:`_keep`) once the reading is complete, so a history that fails
    to read leaves nothing half-read behind.
    """
    hit = _READS.pop(key, None)
    if hit is None:
        return None
    kept_rules, kept, state = hit
    k = len(kept)
    if kept_rules is not rules or k > len(history) or not all(map(is_, kept, history)):
        return None
    return state, k


def _keep(key: _ReadKey, rules: RuleSet, history: tuple[Event, ...], state: _ReadState) -> None:
    """Keep the reading of ``history`` for the next view of the same player and round.

    The key names the player's first event by its identity; the entry holds that event
    (through ``history``), so the identity cannot pass to another object meanwhile.
    """
    if len(_READS) >= 256 and key not in _READS:
        _READS.clear()
    _READS[key] = (rules, history, state)


def _grids(q: int, slots: list[list[int]], known: list[int]) -> Grids:
    """Each player's cards as ``(slot, whether q knew it)`` pairs."""
    bit = 1 << q
    return tuple(tuple((v, bool(known[v] & bit)) for v in row if v >= 0) for row in slots)


def _ended(
    hp: _HiddenPower | None,
    hidden: dict[int, _HiddenPower],
    drawn: int,
    after_drawn: bool,
    call_last: bool,
) -> Phase:
    """The phase after a power ends (``hp``: another's power fired by its draw)."""
    if hp is not None:
        hp.ended = True
        if not hp.steps and not hp.skipped and hidden.get(drawn) is hp:
            del hidden[drawn]  # nothing seen: it constrains nothing
        return _P_DRAWN
    if after_drawn:
        return _P_DRAWN
    # END_OF_TURN until an event says the turn ended (TURN, END, RECYCLE)
    return _P_END_OF_TURN if call_last else _P_TURN


def _emptied(
    p: int, slots: list[list[int]], owed: int, caller: int, phase: Phase, snap_rules: SnapRules
) -> int:
    """Who is owed a call at their next turn once ``p``'s grid may have emptied."""
    if any(c >= 0 for c in slots[p]):
        return owed
    if (
        snap_rules.empty_grid == "call"
        and caller < 0
        and snap_rules.empty_grid_calls == "next-turn"
        and phase is not Phase.CLOSING
    ):
        owed |= 1 << p
    return owed


class InfoSet:
    """Everything one view says about the round, read once; :meth:`sample` draws rounds.

    Reading the view walks its history and follows every card the viewer can place
    (a *slot* per physical card, plus one per card of each recycled stock, whose order
    nobody saw). Raises :class:`DeterminizeError` when the view cannot belong to a
    round of ``rules`` and :class:`ValueError` for a round that is over (nothing is
    hidden any more).
    """

    def __init__(
        self, view: Arg[PlayerView], rules: Arg[RuleSet], *, evidence: Arg[bool] = False
    ) -> None:
        if not isinstance(view, PlayerView):
            raise TypeError(f"expected a PlayerView, got {view!r}")
        if not isinstance(rules, RuleSet):
            raise TypeError(f"expected a RuleSet, got {rules!r}")
        record = flag("evidence", evidence)
        if view.phase == "over":
            raise ValueError("the round is over: every card is known, nothing to sample")
        if not view.history or view.history[0].kind != _E_DEAL:
            raise DeterminizeError(
                "the view's history does not start at the deal (a round set up from a "
                "written position?): determinize follows the cards from the deal"
            )
        self.view = view
        self.rules = rules
        self.players = n = view.players
        self._table = table = _table(rules, n)
        self.proto = proto = table.proto
        if view.grid_size != proto._G:
            raise DeterminizeError(f"the view's grids hold {view.grid_size} cards, not {proto._G}")
        self._record = record
        # the viewer's own history is the view's: no need to rebuild it in a sample
        self._history = view.history
        try:
            self._read(view, rules, table, view.history)
        except _PlainKind:
            # a history written by hand, with kinds as plain strings: read it again with
            # its kinds as EventKind members (the reading compares kinds by identity)
            history = tuple(
                Event(_KINDS.get(e.kind, e.kind), *e[1:]) if type(e.kind) is str else e
                for e in view.history
            )
            self._read(view, rules, table, history)

    # ------------------------------------------------------------------ reading
    def _fail(self, k: int, why: str) -> DeterminizeError:
        return DeterminizeError(f"history[{k}]: {why}")

    def _read(
        self, view: PlayerView, rules: RuleSet, table: _Table, history: tuple[Event, ...]
    ) -> None:
        n, me = self.players, view.player
        proto = table.proto
        G, P = proto._G, proto._P
        N = len(proto.deck)
        ALL = (1 << n) - 1
        ME = 1 << me
        cfg = proto._cfg
        draw_timing = cfg.draw_timing
        open_draw = cfg.open_draw
        snapping = cfg.snapping
        choices = bool(proto._opening_choices)
        faces, tid, tpow = table.faces, table.tid, table.tpow
        ids_get = table.ids.get

        key = (id(rules), n, me, self._record, id(history[0]))
        saved = _resume(key, rules, history)
        if saved is None:
            # a reading from the deal (its variables as the state tuple lists them)
            slots = [row[:] for row in table.slots0]
            discard = [n * G] if rules.opening.upcard else []
            stock = table.stock0[:]
            known = table.known0[:]
            fixed_t = table.fixed0[:]  # each slot's face (an index into the faces), or -1
            bag = table.bag[:]  # how many of each face the slots of unknown face hold
            pool_of = table.pool0  # shared: a recycle makes a longer list
            pools: list[list[int]] = [[]]  # pools[k]: the slots recycled into stock k
            refs: list[_Fill] = []  # events with a card the viewer did not see
            hidden: dict[int, _HiddenPower] = {}
            drawn, from_stock = -1, False
            phase: Phase = Phase.OPENING if choices else _P_TURN
            current = -1
            power: Power | None = None
            hp: _HiddenPower | None = None
            power_card, step, peeked, after_drawn = -1, 0, 0, False
            caller = -1
            final: list[int] = []
            w_discarder, w_tried = -1, 0
            snapper, give_target = -1, -1
            give_return: Phase = _P_TURN
            repeek = 0
            opening_seen: list[tuple[int, ...]] = [()] * n
            starter, recycles = -1, 0
            won = False  # the open window's discard was snapped already (snap.too_late)
            penalty_of: dict[int, int] = {}  # penalty cards lying in grid positions
            owed = 0  # players owed a call at their next turn (snap.empty_grid_calls)
            evidence: list[Evidence] = []
            # which grid positions hold a card (None: changed, to work out again)
            present: tuple[tuple[bool, ...], ...] | None = table.present0
            start = 0
        else:
            state, start = saved
            (
                slots,
                discard,
                stock,
                known,
                fixed_t,  # each slot's face (an index into the table's faces), or -1
                bag,  # how many of each face the deck holds in slots of unknown face (stock 0)
                pool_of,
                pools,  # pools[k]: the slots recycled into stock k (k >= 1)
                refs,  # events with a card the viewer did not see
                hidden,
                drawn,
                from_stock,
                phase,
                current,
                power,
                hp,
                power_card,
                step,
                peeked,
                after_drawn,
                caller,
                final,
                w_discarder,
                w_tried,
                snapper,
                give_target,
                give_return,
                repeek,
                opening_seen,
                starter,
                recycles,
                won,  # the open window's discard was snapped already (snap.too_late)
                penalty_of,  # penalty cards lying in grid positions
                owed,  # players owed a call at their next turn (snap.empty_grid_calls)
                evidence,
                present,  # which grid positions hold a card (None: changed, not worked out)
            ) = state
            # the lists a sample lays out are shared with the InfoSets read so far
            # (see the end of the reading): reading on changes copies of them
            slots = [row[:] for row in slots]
            discard = discard[:]
            stock = stock[:]
            known = known[:]
            refs = refs[:]
        snap_rules = rules.snap
        call_last = cfg.call_last
        record = self._record
        call_first = record and cfg.call_first

        # (no nested helper functions: a variable a closure reads is slower to reach
        # in the loop; the helpers are methods and functions given what they need)
        face = self._face
        # the kinds and phases the loop compares and sets most, as locals (a local is
        # quicker to read than a global); the phase after a turn's main action
        E_TURN, E_DRAW, E_DISCARD, E_REPLACE = _E_TURN, _E_DRAW, _E_DISCARD, _E_REPLACE
        E_POWER, E_PEEK = _E_POWER, _E_PEEK
        P_TURN, P_DRAWN, P_POWER = _P_TURN, _P_DRAWN, _P_POWER
        # END_OF_TURN until an event says the turn ended (TURN, END, RECYCLE)
        main_done = _P_END_OF_TURN if call_last else _P_TURN
        # the kinds in order of how often they come (a turn, a draw, a discard, ...);
        # the common ones are read inline: a call per event costs as much as its work
        for k in range(start, len(history)):
            kind, p, positions, cards, seen_by, note = history[k]
            if kind is E_TURN:
                if cards:
                    raise self._fail(k, f"a {kind} event with {len(cards)} cards")
                if starter < 0:
                    starter = p
                if caller >= 0 and final:
                    final.pop(0)
                current, phase = p, P_TURN
                if owed:
                    owed &= ~(1 << p)
            elif kind is E_DRAW:
                if call_first and p != me and caller < 0:
                    evidence.append(("nocall", p, -1, -1, False, False, _grids(p, slots, known)))
                if not stock:
                    raise self._fail(k, "a draw from an empty stock")
                drawn = stock.pop()
                from_stock = True
                known[drawn] = ALL if open_draw else 1 << p  # turn.open_draw
                phase = P_DRAWN
                t = -1
                if cards:
                    if len(cards) != 1:
                        raise self._fail(k, f"a {kind} event with {len(cards)} cards")
                    card = cards[0]
                    if card is None:
                        refs.append((k, kind, p, positions, seen_by, note, (drawn,)))
                    else:
                        t = ids_get(id(card), -1)
                        if t < 0:
                            t = face(card, k)
                        if fixed_t[drawn] != t:
                            if fixed_t[drawn] < 0 and drawn < N and bag[t]:
                                fixed_t[drawn] = t
                                bag[t] -= 1
                            else:  # a recycled card's slot, or a contradiction
                                self._fix(fixed_t, bag, drawn, t, k)
                if draw_timing:
                    if t >= 0:
                        pw = tpow[t]
                        if pw is not None:
                            power, power_card, step, peeked, after_drawn = pw, drawn, 0, 0, True
                            phase = P_POWER
                    else:
                        hp = hidden[drawn] = _HiddenPower(p)
            elif kind is E_DISCARD or kind is E_REPLACE:
                if after_drawn or hp is not None:
                    # a power fired by the draw, declined without a word
                    phase = _ended(hp, hidden, drawn, after_drawn, call_last)
                    power, hp, power_card, step, peeked, after_drawn = None, None, -1, 0, 0, False
                if drawn < 0:
                    raise self._fail(k, f"a {kind} without a card in hand")
                if kind is E_REPLACE:
                    o, pos = positions[0]
                    if not (0 <= o < n and 1 <= pos <= P) or slots[o][pos - 1] < 0:
                        raise self._fail(k, f"no card at P{o}:{pos}")
                    old = slots[o][pos - 1]
                    if record and p != me and o == p:
                        evidence.append(
                            ("keep", p, drawn, old, from_stock, False, _grids(p, slots, known))
                        )
                    slots[o][pos - 1] = drawn
                    v = old
                    if penalty_of:
                        penalty_of.pop(old, None)
                else:
                    if record and p != me and from_stock:
                        evidence.append(
                            ("drop", p, drawn, -1, False, False, _grids(p, slots, known))
                        )
                    v = drawn
                discard.append(v)
                known[v] = ALL
                if snapping:
                    w_discarder, w_tried, won = p, 0, False
                if cards:
                    if len(cards) != 1:
                        raise self._fail(k, f"a {kind} event with {len(cards)} cards")
                    card = cards[0]
                    if card is None:
                        refs.append((k, kind, p, positions, seen_by, note, (v,)))
                    else:
                        t = ids_get(id(card), -1)
                        if t < 0:
                            t = face(card, k)
                        if fixed_t[v] != t:
                            if fixed_t[v] < 0 and v < N and bag[t]:
                                fixed_t[v] = t
                                bag[t] -= 1
                            else:  # a recycled card's slot, or a contradiction
                                self._fix(fixed_t, bag, v, t, k)
                drawn = -1
                phase = main_done
            elif kind is E_POWER and after_drawn and step == 0 and power_card == drawn >= 0:
                pass  # a power an open draw fired (turn.open_draw): the draw started it
            elif kind is E_POWER:
                card = cards[0] if cards else None
                if card is None or not discard:
                    raise self._fail(k, "a power without its card on the discard pile")
                if len(cards) != 1:
                    raise self._fail(k, f"a {kind} event with {len(cards)} cards")
                t = ids_get(id(card), -1)
                if t < 0:
                    t = face(card, k)
                power = tpow[t]
                if power is None:
                    raise self._fail(k, f"{card} grants no power on this table")
                power_card, step, peeked, after_drawn = discard[-1], 0, 0, False
                phase = P_POWER
                if fixed_t[power_card] != t:
                    if fixed_t[power_card] < 0 and power_card < N and bag[t]:
                        fixed_t[power_card] = t
                        bag[t] -= 1
                    else:  # a recycled card's slot, or a contradiction
                        self._fix(fixed_t, bag, power_card, t, k)
            elif kind is E_PEEK:
                o, pos = positions[0]
                if not (0 <= o < n and 1 <= pos <= P) or slots[o][pos - 1] < 0:
                    raise self._fail(k, f"no card at P{o}:{pos}")
                v = slots[o][pos - 1]
                known[v] |= 1 << p
                if hp is not None:
                    hp.steps.append(("peek", positions, False))
                    phase = P_DRAWN  # as the table sees it: whether a step is left is hidden
                else:
                    peeked += 1
                    step += 1
                    if power is not None and step >= len(power.steps):
                        # the power is over (end_power, inline: no power fired by a
                        # draw is under way here)
                        power, power_card, step, peeked = None, -1, 0, 0
                        if after_drawn:
                            phase, after_drawn = P_DRAWN, False
                        else:
                            phase = main_done
                if cards:
                    card = cards[0]
                    if len(cards) != 1:
                        raise self._fail(k, f"a {kind} event with {len(cards)} cards")
                    if card is None:
                        refs.append((k, kind, p, positions, seen_by, note, (v,)))
                    else:
                        t = ids_get(id(card), -1)
                        if t < 0:
                            t = face(card, k)
                        if fixed_t[v] != t:
                            self._fix(fixed_t, bag, v, t, k)
            elif kind is _E_OPENING_PEEK:
                bit = 1 << p
                vs = []
                ps = []
                for o, pos in positions:
                    if not (0 <= o < n and 1 <= pos <= P) or slots[o][pos - 1] < 0:
                        raise self._fail(k, f"no card at P{o}:{pos}")
                    v = slots[o][pos - 1]
                    known[v] |= bit
                    vs.append(v)
                    ps.append(pos)
                opening_seen[p] = tuple(ps)
                if choices and starter < 0:
                    starter = p
                if cards:
                    if len(cards) != len(vs):
                        raise self._fail(k, f"a {kind} event with {len(cards)} cards")
                    unseen = False
                    for v, card in zip(vs, cards, strict=True):
                        if card is None:
                            unseen = True
                            continue
                        t = ids_get(id(card), -1)
                        if t < 0:
                            t = face(card, k)
                        if fixed_t[v] != t:
                            if fixed_t[v] < 0 and v < N and bag[t]:
                                fixed_t[v] = t
                                bag[t] -= 1
                            else:
                                self._fix(fixed_t, bag, v, t, k)
                    if unseen:
                        refs.append((k, kind, p, positions, seen_by, note, tuple(vs)))
            elif kind is _E_SWAP:
                (oa, ia), (ob, ib) = positions
                va, vb = self._at(slots, positions[0], k), self._at(slots, positions[1], k)
                seen = note == "seen"
                if record and p != me and hp is None and not seen and (oa == p) != (ob == p):
                    mine_, theirs = (va, vb) if oa == p else (vb, va)
                    bit = 1 << p
                    evidence.append(
                        (
                            "swap",
                            p,
                            mine_,
                            theirs,
                            bool(known[mine_] & bit),
                            bool(known[theirs] & bit),
                            (),
                        )
                    )
                slots[oa][ia - 1], slots[ob][ib - 1] = vb, va
                if oa != ob and penalty_of:
                    penalty_of.pop(va, None)
                    penalty_of.pop(vb, None)
                if seen:
                    known[va] |= 1 << p
                    known[vb] |= 1 << p
                if hp is not None:
                    hp.steps.append(("swap", positions, seen))
                    phase = P_DRAWN  # as the table sees it: whether a step is left is hidden
                else:
                    step += 1
                    if power is not None and step >= len(power.steps):
                        # the power is over (end_power, inline: no power fired by a
                        # draw is under way here)
                        power, power_card, step, peeked = None, -1, 0, 0
                        if after_drawn:
                            phase, after_drawn = P_DRAWN, False
                        else:
                            phase = main_done
                if cards:
                    self._take_cards(
                        fixed_t, bag, refs, history, k, kind, (va, vb) if seen else (), cards
                    )
            elif kind is _E_TAKE:
                if call_first and p != me and caller < 0:
                    evidence.append(("nocall", p, -1, -1, False, False, _grids(p, slots, known)))
                if not discard:
                    raise self._fail(k, "a take from an empty discard pile")
                drawn = discard.pop()
                from_stock = False
                known[drawn] = ALL
                phase = _P_TAKEN
                if cards:
                    if len(cards) != 1 or cards[0] is None:
                        self._take_cards(
                            fixed_t, bag, refs, history, k, kind, (drawn,), cards
                        )  # (a take is seen by all)
                    else:
                        t = ids_get(id(cards[0]), -1)
                        if t < 0:
                            t = face(cards[0], k)
                        if fixed_t[drawn] != t:
                            self._fix(fixed_t, bag, drawn, t, k)
            elif kind is _E_SKIP:
                if cards:
                    raise self._fail(k, f"a {kind} event with {len(cards)} cards")
                if hp is not None:
                    hp.skipped = True
                phase = _ended(hp, hidden, drawn, after_drawn, call_last)
                power, hp, power_card, step, peeked, after_drawn = None, None, -1, 0, 0, False
            elif kind is _E_DEAL:
                if cards:
                    if len(cards) != 1:
                        raise self._fail(k, f"a {kind} event with {len(cards)} cards")
                    card = cards[0]
                    if card is not None:
                        t = ids_get(id(card), -1)
                        if t < 0:
                            t = face(card, k)
                        v = n * G
                        if fixed_t[v] < 0 and bag[t]:
                            fixed_t[v] = t
                            bag[t] -= 1
                        else:
                            self._fix(fixed_t, bag, v, t, k)
            elif kind is _E_EXCHANGE or kind is _E_FAILED_EXCHANGE:
                present = None  # a card may leave or enter a grid
                if after_drawn or hp is not None:
                    # a power fired by the draw, declined without a word
                    phase = _ended(hp, hidden, drawn, after_drawn, call_last)
                    power, hp, power_card, step, peeked, after_drawn = None, None, -1, 0, 0, False
                if drawn < 0:
                    raise self._fail(k, f"a {kind} without a card in hand")
                if kind is _E_EXCHANGE:
                    vars_ = tuple([self._at(slots, pl, k) for pl in positions])
                    for (o, pos), v in zip(positions, vars_, strict=True):
                        slots[o][pos - 1] = -1
                        discard.append(v)
                        known[v] = ALL
                        penalty_of.pop(v, None)
                    o, pos = positions[0]
                    slots[o][pos - 1] = drawn
                    if snapping:
                        w_discarder, w_tried, won = p, 0, False
                else:
                    keep = len(positions) == len(cards)
                    shown = positions[:-1] if keep else positions
                    vars_ = (*(self._at(slots, pl, k) for pl in shown), drawn)
                    for v in vars_:
                        known[v] = ALL
                    if keep:
                        o, pos = positions[-1]
                        slots[o][pos - 1] = drawn
                    else:
                        discard.append(drawn)
                        if snapping:
                            w_discarder, w_tried, won = p, 0, False
                if cards:
                    self._take_cards(fixed_t, bag, refs, history, k, kind, vars_, cards)
                drawn = -1
                phase = main_done
            elif kind is _E_SNAP or kind is _E_WRONG_SNAP:
                present = None  # a card may leave or enter a grid
                vars_ = tuple([self._at(slots, pl, k) for pl in positions])
                w_tried |= 1 << p
                if kind is _E_SNAP:
                    for (o, pos), v in zip(positions, vars_, strict=True):
                        slots[o][pos - 1] = -1
                        discard.append(v)
                        known[v] = ALL
                        penalty_of.pop(v, None)
                    if snap_rules.per_discard == "one" and snap_rules.too_late == "penalty":
                        won = True
                    owner = positions[0][0]
                    if owner != p and any(c >= 0 for c in slots[p]):
                        snapper = p
                        give_target = owner * P + positions[0][1] - 1
                        give_return = phase
                        phase = _P_GIVE
                    else:
                        owed = _emptied(owner, slots, owed, caller, phase, snap_rules)
                else:
                    bits = ALL
                    if seen_by is not None:
                        bits = 0
                        for q in seen_by:
                            bits |= 1 << q
                    for v in vars_:
                        known[v] |= bits
                if cards:
                    self._take_cards(fixed_t, bag, refs, history, k, kind, vars_, cards)
            elif kind is _E_PENALTY:
                present = None  # a card may leave or enter a grid
                if cards:
                    raise self._fail(k, f"a {kind} event with {len(cards)} cards")
                if positions:
                    if not stock:
                        raise self._fail(k, "a penalty card from an empty stock")
                    v = stock.pop()
                    o, pos = positions[0]
                    slots[o][pos - 1] = v
                    known[v] = 0
                    if snap_rules.penalty_position == "first-empty" and pos <= G:
                        penalty_of[v] = o
            elif kind is _E_GIVE:
                present = None  # a card may leave or enter a grid
                if cards:
                    raise self._fail(k, f"a {kind} event with {len(cards)} cards")
                (o1, i1), (o2, i2) = positions
                v = self._at(slots, positions[0], k)
                slots[o1][i1 - 1] = -1
                slots[o2][i2 - 1] = v
                phase = give_return
                snapper, give_target = -1, -1
                owed = _emptied(o1, slots, owed, caller, phase, snap_rules)
            elif kind is _E_CALL:
                if cards:
                    raise self._fail(k, f"a {kind} event with {len(cards)} cards")
                caller = p
                final = self._final_queue(rules, p, current)
            elif kind is _E_PASS:
                if cards:
                    raise self._fail(k, f"a {kind} event with {len(cards)} cards")
                if record and p != me and call_last and caller < 0:
                    evidence.append(("nocall", p, -1, -1, False, False, _grids(p, slots, known)))
            elif kind is _E_RE_PEEK:
                repeek |= 1 << p
                vars_ = tuple([self._at(slots, pl, k) for pl in positions])
                for v in vars_:
                    known[v] |= 1 << p
                if cards:
                    self._take_cards(fixed_t, bag, refs, history, k, kind, vars_, cards)
            elif kind is _E_RECYCLE:
                if cards:
                    raise self._fail(k, f"a {kind} event with {len(cards)} cards")
                recycles += 1
                top = discard.pop()
                source, discard = discard, [top]
                pools.append(source)
                base = len(known)
                # the recycled cards go under whatever the stock still holds
                stock = list(range(base, base + len(source))) + stock
                known.extend([0] * len(source))
                fixed_t.extend([-1] * len(source))
                pool_of = pool_of + [len(pools) - 1] * len(source)
            elif kind is _E_END:
                raise self._fail(k, "the round is over")
            elif type(kind) is str and kind in _KINDS:
                raise _PlainKind
            else:
                raise self._fail(k, f"unknown event kind {kind!r}")

        if present is None:
            present = tuple([tuple([v >= 0 for v in row]) for row in slots])
        state = (
            slots,
            discard,
            stock,
            known,
            fixed_t,
            bag,
            pool_of,
            pools,
            refs,
            hidden,
            drawn,
            from_stock,
            phase,
            current,
            power,
            hp,
            power_card,
            step,
            peeked,
            after_drawn,
            caller,
            final,
            w_discarder,
            w_tried,
            snapper,
            give_target,
            give_return,
            repeek,
            opening_seen,
            starter,
            recycles,
            won,
            penalty_of,
            owed,
            evidence,
            present,
        )
        _keep(key, rules, history, state)
        # the kept reading reads on at the next view: what the sample keeps is copied
        # (fixed_t and the hidden powers also change below, by the view's present)
        fixed_t = fixed_t[:]
        bag = bag[:]
        if hidden:
            hidden, hp = _own_hp(hidden, hp)

        # the view's own record of the present settles what the history leaves open
        vphase = _PHASES.get(view.phase)
        if vphase is None:
            raise DeterminizeError(f"unknown phase {view.phase!r}")
        if view.current != current and current >= 0:
            raise DeterminizeError("the view's current player disagrees with its history")
        vpresent, vgrids = view.present, view.grids
        if (
            len(vpresent) != n
            or len(vgrids) != n
            or {*map(len, vpresent), *map(len, vgrids)} != {P}
        ):
            raise DeterminizeError("the view's grids do not have the table's shape")
        faces_or_not = table.shown
        for o in range(n):
            row = slots[o]
            # the quick test: the grid as the reading has it is the view's grid
            if vpresent[o] == present[o] and vgrids[o] == tuple(
                [faces_or_not[fixed_t[v]] if v >= 0 and known[v] & ME else None for v in row]
            ):
                continue
            for i, (v, here, card) in enumerate(zip(row, vpresent[o], vgrids[o], strict=True)):
                if (v >= 0) != here:
                    raise DeterminizeError(f"the history and the view disagree about P{o}:{i + 1}")
                if card is not None:
                    tv = ids_get(id(card))
                    if tv is None:
                        tv = tid.get(card)
                    had = fixed_t[v] if v >= 0 else -1
                    if v < 0 or not known[v] & ME or tv is None or (had >= 0 and had != tv):
                        raise DeterminizeError(f"the view shows {card} at P{o}:{i + 1} unseen")
                    if had < 0:
                        fixed_t[v] = tv
                        if v < N:
                            if not bag[tv]:
                                raise _too_often(faces[tv])
                            bag[tv] -= 1
                elif v >= 0 and known[v] & ME:
                    raise DeterminizeError(f"the view forgot a card at P{o}:{i + 1}")
        pile = view.discard
        if len(pile) != len(discard) or tuple([faces_or_not[fixed_t[v]] for v in discard]) != pile:
            raise DeterminizeError("the history and the view disagree about the discard pile")
        if len(stock) != view.stock_size:
            raise DeterminizeError("the history and the view disagree about the stock")
        if (drawn >= 0) != (view.holding is not None or view.holding_from_stock is not None):
            raise DeterminizeError("the history and the view disagree about the held card")
        holding = view.holding
        if holding is not None:
            th = ids_get(id(holding))
            if th is None:
                th = tid.get(holding)
                if th is None:
                    raise DeterminizeError(f"the view holds {holding}, not a card of this table")
            had = fixed_t[drawn]
            if had != th:
                if had >= 0:
                    raise DeterminizeError(f"the view holds {holding} where {faces[had]} was seen")
                fixed_t[drawn] = th
                if drawn < N:
                    if not bag[th]:
                        raise _too_often(faces[th])
                    bag[th] -= 1

        self.evidence = evidence[:]
        """What other players' choices suggest about cards the viewer has not seen, as
        read from the history (for a search that weighs its samples; see
        :mod:`cambio.bots.search_bot`), each ``(kind, p, a, b, flag, flag2, grids)``:
        ``"keep"``: ``p`` replaced card ``b`` by the card ``a`` it held (``flag``: drawn
        from the stock); ``"drop"``: ``p`` discarded the card ``a`` it drew;
        ``"swap"``: ``p`` swapped its card ``a`` blind with another's card ``b``
        (``flag``, ``flag2``: whether ``p`` knew them); ``"nocall"``: ``p`` could call
        and did not. Cards are slot numbers of :meth:`assignment`; ``grids`` holds each
        player's cards then as ``(slot, p knew it)`` pairs (empty for a swap)."""
        # what a sample shares with every other sample of this view: copied from the
        # reading (which reads on at the next view) or worked out here, once
        self._N = N
        self._fixed_t = fixed_t
        self._drawn = drawn
        self._pools = pools[:]  # a recycled pool never changes once made
        self._pool_of = pool_of[:] if len(pools) > 1 else pool_of
        self._fill = refs  # (the kept reading reads on in a copy: see the resumption)
        starter = starter if starter >= 0 else (view.to_act or 0)
        self._power: Power | None = None
        self._power_card = -1
        self._step = 0
        self._after_drawn = False
        self._maybe_power = -1  # the held card of another, whose power may be under way
        self._maybe_steps = 0  # the steps of it already seen
        self._maybe_peeked: list[int] = []  # the places those steps peeked at
        if hp is not None and vphase is _P_DRAWN:
            hp.ended = True  # the power fired by the draw is over (or never started)
        # a snap may come in the middle of a power: the give that follows goes back to it
        in_power = vphase is _P_POWER or (vphase is _P_GIVE and give_return is _P_POWER)
        self._in_power = in_power
        if in_power:
            if hp is not None:
                hp.name = view.power
                self._power_card, self._step, self._after_drawn = drawn, len(hp.steps), True
            else:
                if power is None or view.power != power.name:
                    raise DeterminizeError("the view's power disagrees with its history")
                self._power, self._power_card, self._step = power, power_card, step
                self._after_drawn = after_drawn
        elif (
            vphase is _P_DRAWN or (vphase is _P_GIVE and give_return is _P_DRAWN)
        ) and hp is not None:
            # a power fired by another's private draw may be under way (with more steps
            # than those seen), over, or none at all: the sampled card says which
            self._maybe_power = drawn
            self._maybe_steps = len(hp.steps)
            self._maybe_peeked = [
                o * P + pos - 1
                for kind, places, _ in hp.steps
                if kind == "peek"
                for o, pos in places
            ]
        self._peeked = [o * P + pos - 1 for o, pos in view.peeked] if view.peeked else []
        self._constraints: dict[int, _HiddenPower] = {}
        for v, hpw in hidden.items():
            if fixed_t[v] < 0 and (hpw.steps or hpw.skipped):
                self._constraints[v] = hpw
        self._prepare(bag, stock)
        self._layout_fixed: _Layout | None = None
        if len(pools) == 1:
            # one pool: every slot is a physical card, on the table, held or in the
            # stock (nobody knows a card of the stock: the reading marks none)
            # (the kept reading reads on in copies of these: see the resumption)
            layout_slots = slots
            self._layout_fixed = (slots, discard, stock, known, drawn, self._power_card)
        else:
            # laid out per sample (recycled slots take physical cards)
            layout_slots = self._slots = slots
            self._discard = discard
            self._stock = stock
            self._known = known

        # a round with every part of a sample that the sample's cards do not change: a
        # sample is a clone of it (Round._clone shares every attribute) given its cards
        # and its own copies of the lists a round changes as it plays
        tpl = proto._clone()
        tpl.starter = starter
        tpl.dealer = (starter - 1) % n
        tpl._phase = vphase
        tpl._current = view.current
        tpl._from_stock = from_stock if drawn >= 0 else False
        tpl._power_now = self._power
        tpl._caller = -1 if view.caller is None else view.caller
        window_open = view.window_open
        tpl._window_open = window_open
        tpl._window_discarder = w_discarder
        tpl._window_tried = w_tried
        if vphase is _P_GIVE:
            tpl._snapper, tpl._give_target, tpl._give_return = snapper, give_target, give_return
        else:
            tpl._snapper, tpl._give_target, tpl._give_return = -1, -1, _P_TURN
        turns = view.turns
        tpl._turns = list(turns)
        tpl._total_turns = sum(turns)
        tpl._repeek_used = repeek
        tpl._opening_seen = opening_seen[:]
        if vphase is Phase.OPENING:
            tpl._pending = [(starter + j) % n for j in range(n)][
                sum(1 for s in opening_seen if s) :
            ]
        else:
            tpl._pending = []
        tpl._recycles = recycles
        tpl._window_won = won and window_open
        closing = ""
        if vphase is Phase.CLOSING:
            cap = rules.turn.max_turns
            if cap and sum(turns) >= cap:
                closing = "turn-cap"
            elif view.caller is not None and not final:
                closing = "call"
            else:
                closing = "stock"
        tpl._closing_reason = closing
        tpl._calls_owed = owed
        tpl._result = None
        tpl._final = final[:]
        tpl._penalty_of = dict(penalty_of)
        tpl._discard_seen = []
        tpl._discard_cards = ()
        tpl._present_of = []
        tpl._present = ()
        tpl._slots = layout_slots  # the layout (which positions hold a card) of every sample
        # who acts and the snap ids depend on the layout only: worked out once, the
        # snap ids shared by the samples until their own layout changes
        tpl._legal_of = -1
        tpl._layout_cache = {}
        tpl.to_act = tpl._who_acts()
        self._tpl = tpl

    def _face(self, card: Card, k: int) -> int:
        """The face of ``card`` (a card of another RuleSet object, an equal table, is
        found by equality)."""
        table = self._table
        t = table.ids.get(id(card))
        if t is None:
            t = table.tid.get(card)
            if t is None:
                raise self._fail(k, f"{card} is not in this table's deck")
        return t

    def _at(self, slots: list[list[int]], place: tuple[int, int], k: int) -> int:
        """The slot at ``place`` (``(owner, position)``) of the grids ``slots``."""
        o, pos = place
        if not (0 <= o < len(slots) and 1 <= pos <= len(slots[o])) or slots[o][pos - 1] < 0:
            raise self._fail(k, f"no card at P{o}:{pos}")
        return slots[o][pos - 1]

    def _fix(self, fixed_t: list[int], bag: list[int], v: int, t: int, k: int) -> None:
        """Slot ``v`` holds face ``t`` (a contradiction raises)."""
        had = fixed_t[v]
        if had != t:
            faces = self._table.faces
            if had >= 0:
                raise self._fail(k, f"{faces[t]} where {faces[had]} was seen")
            fixed_t[v] = t
            if v < len(self._table.known0):  # a slot of the deal, not of a recycled stock
                if not bag[t]:
                    raise _too_often(faces[t])
                bag[t] -= 1

    def _take_cards(
        self,
        fixed_t: list[int],
        bag: list[int],
        refs: list[_Fill],
        history: tuple[Event, ...],
        k: int,
        kind: str,
        vars_: tuple[int, ...],
        cards: tuple[Card | None, ...],
    ) -> None:
        """The cards of event ``k`` on the slots ``vars_``: seen ones fix their slots'
        faces, unseen ones make the event one that a sample fills in."""
        if len(vars_) != len(cards):
            raise self._fail(k, f"a {kind} event with {len(cards)} cards")
        filled = False
        ids_get = self._table.ids.get
        for v, card in zip(vars_, cards, strict=False):
            if card is None:
                if not filled:
                    e = history[k]
                    refs.append((k, e[0], e[1], e[2], e[4], e[5], vars_))
                    filled = True
                continue
            t = ids_get(id(card), -1)
            self._fix(fixed_t, bag, v, self._face(card, k) if t < 0 else t, k)

    def _final_queue(self, rules: RuleSet, caller: int, current: int) -> list[int]:
        """The final turns after a call, as :class:`~cambio.round.Round` plans them."""
        n = self.players
        order = [(current + k) % n for k in range(1, n + 1)]
        others = [p for p in order if p != caller]
        queue = [p for p in others if p != current] + others * (rules.call.final_turns - 1)
        if rules.call.final_turns == 0:
            queue = []
        if rules.call.caller_final_turn:
            queue.append(caller)
        return queue

    # ------------------------------------------------------------------ sampling
    def _prepare(self, bag0: list[int], stock: list[int]) -> None:
        """Work out once what every sample shares: the bags to draw from (``bag0``: the
        deck less every card of known face, as the reading kept it) and the layout."""
        table = self._table
        faces = self._faces = table.faces
        self._tval, self._tkey, self._tpow = table.tval, table.tkey, table.tpow
        self._deck_mean = table.mean
        fixed = self._fixed_t
        groups: list[tuple[list[int], list[int]]] = []  # (the free slots, the bag)
        N = self._N
        S = len(stock)
        if len(self._pools) == 1 and (not S or (stock[0] == N - 1 and stock[-1] == N - S)):
            # the reading kept the bag: the deck less every card of known face; the
            # stock's slots, never seen, are the deal's last ones in one run: they take
            # the end of the shuffled cards in one slice (see _assign)
            head = [v for v in range(N - S) if fixed[v] < 0]
            if self._constraints:
                tied = [v for v in head if v in self._constraints]
                head = [v for v in head if v not in self._constraints]
            else:
                tied = []
            if table.once:
                rest = list(compress(range(len(bag0)), bag0))
            else:
                rest = list(chain.from_iterable(map(repeat, range(len(bag0)), bag0)))
            self._draws: list[_Draw] = [(tied, bag0, rest, head, N - S)]
            return
        if len(self._pools) == 1:
            groups.append(([v for v, t in enumerate(fixed) if t < 0], bag0))
        else:
            members: list[list[int]] = [[] for _ in self._pools]
            for v, k in enumerate(self._pool_of):
                members[k].append(v)
            for k, group in enumerate(members):
                if k == 0:
                    bag = table.bag[:]
                else:
                    bag = [0] * len(faces)
                    for v in self._pools[k]:
                        if fixed[v] < 0:
                            raise DeterminizeError("a recycled card that nobody saw")
                        bag[fixed[v]] += 1
                for v in group:
                    if fixed[v] >= 0:
                        bag[fixed[v]] -= 1
                groups.append(([v for v in group if fixed[v] < 0], bag))
        self._draws = []
        for free, bag in groups:
            # (the reading's bag holds no more than the deck: it adds up by itself)
            if len(groups) > 1 and min(bag, default=0) < 0:
                raise _too_often(faces[min(range(len(bag)), key=bag.__getitem__)])
            if len(groups) > 1 and sum(bag) != len(free):
                raise DeterminizeError("the view's cards do not add up to the table's deck")
            if self._constraints:
                tied = [v for v in free if v in self._constraints]
                loose = [v for v in free if v not in self._constraints]
            else:
                tied, loose = [], free
            if table.once or max(bag, default=0) <= 1:
                rest = list(compress(range(len(bag)), bag))
            else:
                rest = list(chain.from_iterable(map(repeat, range(len(bag)), bag)))
            self._draws.append((tied, bag, rest, loose, -1))

    def _assign(self, rng: random.Random) -> list[int]:
        """A face (an index into the table's distinct cards) for every slot."""
        assign = self._fixed_t[:]
        for tied, bag, whole, head, lo in self._draws:
            rest = whole[:]
            if tied:
                chosen = self._draw_tied(tied, bag, rng)
                for v, t in zip(tied, chosen, strict=True):
                    assign[v] = t
                    rest.remove(t)
                _shuffle(rest, rng)
            elif type(rng) is random.Random:
                # rng.shuffle(rest), inline: the same draws (see _shuffle)
                getrandbits = rng.getrandbits
                for i, m, b in _draws(len(rest)):
                    j = getrandbits(b)
                    while j >= m:
                        j = getrandbits(b)
                    rest[i], rest[j] = rest[j], rest[i]
            else:
                rng.shuffle(rest)
            for v, t in zip(head, rest, strict=False):
                assign[v] = t
            if lo >= 0:
                assign[lo:] = rest[len(head) :]  # the stock's slots
        return assign

    def _draw_tied(self, tied: list[int], bag: list[int], rng: random.Random) -> list[int]:
        """Faces for the slots a hidden power constrains, uniform over the completions.

        Each way to give the tied slots faces counts as many times as the bag holds
        those faces (the rest of the bag fills the other slots in the same number of
        ways whatever the tied slots took), so the ways are weighed by those counts.
        """
        tpow = self._tpow
        fits = [
            [t for t, m in enumerate(bag) if m > 0 and self._constraints[v].allows(tpow[t])]
            for v in tied
        ]
        ways: list[tuple[int, tuple[int, ...]]] = []
        left = list(bag)

        def walk(i: int, weight: int, picked: tuple[int, ...]) -> None:
            if len(ways) > 50_000:
                return
            if i == len(tied):
                ways.append((weight, picked))
                return
            for t in fits[i]:
                m = left[t]
                if m > 0:
                    left[t] = m - 1
                    walk(i + 1, weight * m, (*picked, t))
                    left[t] = m

        walk(0, 1, ())
        if not ways:
            raise DeterminizeError("no card fits the powers the view saw used")
        x = rng.randrange(sum(w for w, _ in ways))
        for w, picked in ways:
            if x < w:
                return list(picked)
            x -= w
        return list(ways[-1][1])  # pragma: no cover - unreachable

    def _layout(self, phys: list[int]) -> _Layout:
        """Grids, piles, knowledge, held card and power card as physical card numbers
        (after a recycle: ``phys`` gives each slot's physical card)."""
        kv = self._known
        known = [0] * self._N
        slots = []
        for row in self._slots:
            out = []
            for v in row:
                if v >= 0:
                    out.append(phys[v])
                    known[phys[v]] = kv[v]
                else:
                    out.append(-1)
            slots.append(out)
        for v in self._discard:
            known[phys[v]] = kv[v]
        drawn = self._drawn
        if drawn >= 0:
            known[phys[drawn]] = kv[drawn]
        pc = self._power_card
        return (
            slots,
            [phys[v] for v in self._discard],
            [phys[v] for v in self._stock],
            known,
            phys[drawn] if drawn >= 0 else -1,
            phys[pc] if pc >= 0 else -1,
        )

    def assignment(self, rng: Arg[random.Random]) -> list[int]:
        """A face for every slot, drawn uniformly like :meth:`sample` draws them: an
        index into :attr:`face_values` (a search may weigh it before building the round
        with :meth:`build`)."""
        if not isinstance(rng, random.Random):
            raise _not_random(rng)
        return self._assign(rng)

    @property
    def face_values(self) -> list[int]:
        """The value of each face an :meth:`assignment` names."""
        return self._tval

    @property
    def face_powers(self) -> list[Power | None]:
        """The power of each face an :meth:`assignment` names (``None``: no power)."""
        return self._tpow

    @property
    def deck_mean(self) -> float:
        """The mean value of the table's deck."""
        return self._deck_mean

    def sample(self, rng: Arg[random.Random]) -> Round:
        """One round drawn uniformly from those the view cannot tell apart."""
        if not isinstance(rng, random.Random):
            raise _not_random(rng)
        return self._build(self._assign(rng), rng)

    def build(self, assign: Arg[list[int]], rng: Arg[random.Random]) -> Round:
        """The round of an :meth:`assignment` (its stock's future drawn from ``rng``)."""
        if type(assign) is not list or len(assign) != len(self._fixed_t):
            raise TypeError(
                f"assign must be a list of {len(self._fixed_t)} faces, as assignment() "
                f"gives, got {assign!r}"
            )
        if not isinstance(rng, random.Random):
            raise _not_random(rng)
        return self._build(assign, rng)

    def _build(self, assign: list[int], rng: random.Random) -> Round:
        N = self._N
        phys: list[int] | None = None
        if self._layout_fixed is not None:
            slots, discard, stock, known, drawn, power_card = self._layout_fixed
            slots = [row[:] for row in slots]
            discard, stock, known = discard[:], stock[:], known[:]
        else:
            # a slot of a recycled stock takes the place of a recycled card with the
            # same face (cards with equal faces are interchangeable)
            phys = list(range(len(assign)))
            for k in range(1, len(self._pools)):
                spare: dict[int, list[int]] = {}
                for v in self._pools[k]:
                    spare.setdefault(assign[v], []).append(phys[v])
                for v, kk in enumerate(self._pool_of):
                    if kk == k:
                        phys[v] = spare[assign[v]].pop()
            slots, discard, stock, known, drawn, power_card = self._layout(phys)
        faces = self._faces
        # the deck's faces picked at C speed from each per-face table (N > 1 always)
        pick = itemgetter(*assign[:N]) if len(assign) > N else itemgetter(*assign)
        tpl = self._tpl
        rnd = tpl._clone()
        rnd.seed = _seed(rng)
        rnd.deck = pick(faces)
        rnd._value = list(pick(self._tval))
        rnd._key = list(pick(self._tkey))
        rnd._power = list(pick(self._tpow))
        rnd._slots = slots
        rnd._discard = discard
        rnd._stock = stock
        rnd._known = known
        rnd._drawn = drawn
        power = self._power
        if self._in_power and power is None:
            # another player's power fired by a draw, under way: its card says which
            power = self._tpow[assign[self._drawn]]
            rnd._power_now = power
        elif self._maybe_power >= 0:
            maybe = self._tpow[assign[self._drawn]]
            k = self._maybe_steps
            if maybe is not None and len(maybe.steps) > k:  # fired by the draw, steps left
                if rnd._phase is _P_GIVE:
                    rnd._give_return = _P_POWER
                else:
                    rnd._phase = _P_POWER
                rnd._power_now = power = maybe
                power_card, rnd._step, rnd._after_power_drawn = drawn, k, True
        if power is not None:
            rnd._power_card = power_card
            if self._maybe_power >= 0:
                rnd._peeked = list(self._maybe_peeked)
            else:
                rnd._peeked = list(self._peeked)
                rnd._step = self._step
                rnd._after_power_drawn = self._after_drawn
        else:
            rnd._power_card = -1
            rnd._step = 0
            rnd._peeked = []
            rnd._after_power_drawn = False
        rnd._final = tpl._final[:]
        rnd._turns = tpl._turns[:]
        rnd._opening_seen = tpl._opening_seen[:]
        rnd._pending = tpl._pending[:]
        if phys is None:
            rnd._penalty_of = tpl._penalty_of.copy()
        else:
            rnd._penalty_of = {phys[v]: o for v, o in tpl._penalty_of.items()}
        events = list(self._history)
        make = tuple.__new__
        shown: tuple[Card, ...]
        for k, kind, player, positions, seen_by, note, vars_ in self._fill:
            if len(vars_) == 1:
                shown = (faces[assign[vars_[0]]],)
            else:
                shown = tuple([faces[assign[v]] for v in vars_])
            events[k] = make(Event, (kind, player, positions, shown, seen_by, note))
        rnd._events = events
        histories: list[tuple[Event, ...]] = [()] * self.players
        histories[self.view.player] = self._history
        rnd._histories = histories
        rnd._actions = []
        return rnd


_LAST: list[tuple[PlayerView, RuleSet, InfoSet]] = []


def determinize(view: Arg[PlayerView], rules: Arg[RuleSet], rng: Arg[random.Random]) -> Round:
    """A round drawn at random among those ``view.player`` cannot tell from the real one.

    See the module documentation for what is kept and what is drawn. Reading a view
    costs more than drawing a round from it, so the reading is kept: the last few views
    read (by identity: called again with the same view object, only the drawing is
    done), and, per player and round, how far that player's history was read (a later
    view of the same player reads only the events added since). For many samples of
    one view, an :class:`InfoSet` built once and its :meth:`InfoSet.sample` do the same
    without the look-up.
    """
    for kept_view, kept_rules, info in _LAST:
        if kept_view is view and kept_rules is rules:
            return info.sample(rng)
    info = InfoSet(view, rules)
    _LAST.insert(0, (info.view, info.rules, info))
    del _LAST[4:]
    return info.sample(rng)


def _not_random(rng: object) -> TypeError:
    return TypeError(f"rng must be a random.Random, got {rng!r}")
