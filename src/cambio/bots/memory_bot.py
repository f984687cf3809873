"""A fair opponent: it remembers what it legally saw, estimates the rest, and plays to win.

:class:`MemoryBot` plays like the practice page's computer opponents. Everything it
knows comes from its own :class:`~cambio.views.PlayerView` (its opening peek, its
draws, its peeks, public discards and takes, and cards followed through public swaps)
and from the rules of the table. It never sees the round, the stock or another
player's view.

Unknown cards are estimated at the mean value of the cards the bot has not seen: the
table's deck minus the discard pile, the card being held (when the bot sees it) and
every card it remembers on the table. With those estimates it:

* improves its grid: it replaces its highest known or estimated card when the card in
  hand is lower, and takes the top discard when that card is low;
* uses powers to learn (peek its unknown cards first, then an opponent's) or to dump
  a known high card on an opponent through a swap;
* snaps only when it knows the matching card (its own, and another player's where
  the table allows it), never on a guess;
* calls when its estimated total is low enough and lower than its estimates of every
  other player's total by a margin; after many turns it grows impatient (a higher
  threshold, a smaller margin), so a round in which nobody pulls ahead still ends.

With ``memory_turns`` set, the bot forgets a card that many turns after it last saw it
(it keeps following remembered cards through public swaps until then), so it plays
like a person rather than a perfect record.

>>> import cambio
>>> from cambio.bots import MemoryBot, MemoryBotConfig, RandomBot, play_round
>>> bot = MemoryBot(MemoryBotConfig(memory_turns=6))
>>> rnd = cambio.Round(cambio.RuleSet(), players=3, seed=2)
>>> play_round(rnd, [bot, RandomBot(1), RandomBot(2)]).result.reason in ("call", "stock")
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import repeat
from operator import is_not
from typing import Final

import attrs

from ..actions import Action, ActionKind, ActionList
from ..cards import Card
from ..derived import derived
from ..events import EventKind
from ..rules import Power, RuleSet
from ..scoring import team_of
from ..views import PlayerView

__all__ = ["MemoryBot", "MemoryBotConfig"]

Slot = tuple[int, int]
"""``(owner seat, position from 1)``."""

# the action kinds read on every decision, as module constants: on CPython 3.11 reading
# a member through its enum class calls EnumType.__getattr__
_CALL: Final = ActionKind.CALL
_DISCARD: Final = ActionKind.DISCARD
_DRAW: Final = ActionKind.DRAW
_EXCHANGE: Final = ActionKind.EXCHANGE
_GIVE: Final = ActionKind.GIVE
_PEEK: Final = ActionKind.PEEK
_REPLACE: Final = ActionKind.REPLACE
_RE_PEEK: Final = ActionKind.RE_PEEK
_SKIP: Final = ActionKind.SKIP
_PLACING: Final = frozenset({ActionKind.DISCARD, ActionKind.REPLACE, ActionKind.EXCHANGE})
_SNAP: Final = ActionKind.SNAP
_SWAP: Final = ActionKind.SWAP
_TAKE: Final = ActionKind.TAKE


def _check_memory_turns(instance: object, attribute: object, value: int | None) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise ValueError(f"memory_turns must be None or a whole number of 0 or more, got {value!r}")


@attrs.frozen
class MemoryBotConfig:
    """The knobs of a :class:`MemoryBot`. The defaults are tuned against random play.

    >>> MemoryBotConfig().memory_turns is None
    True
    """

    memory_turns: int | None = attrs.field(default=None, validator=_check_memory_turns)
    """Forget a card this many turns (anyone's) after last seeing it; ``None``: never.
    A forgotten card is estimated like any unknown card until the bot sees it again."""
    call_threshold: float = 11.0
    """Call only when the bot's estimated total (its team's, with teams) is at most this."""
    call_margin: float = 5.0
    """... and at least this much lower than its estimate of every other total."""
    penalty_caution: float = 0.5
    """Extra call margin per point of the table's caller penalty."""
    call_patience: int = 10
    """After this many of its own turns the bot grows impatient: ..."""
    call_urgency: float = 1.0
    """... each further turn raises its call threshold by this and lowers its call margin
    by half of it (below zero in the end), so a round in which nobody gets ahead (a
    recycled stock, everyone's cards known) still ends."""
    replace_margin: float = 0.5
    """Replace a card only when that lowers the estimated total by more than this."""
    power_value: float = 1.5
    """What a useful power is worth when choosing between placing a drawn card and
    discarding it to use its power."""
    take_max: int = 4
    """Take the top discard only when it is worth at most this many points ..."""
    take_gain: float = 2.0
    """... and it lowers the estimated total by at least this much."""
    swap_margin: float = 2.0
    """Use a swap only when it lowers the bot's estimated total by at least this."""
    peek_opponents: bool = True
    """Peek at opponents' unknown cards when none of its own are unknown."""
    snap_own: bool = True
    """Snap its own known cards that match the top discard (when they score above 0)."""
    snap_others: bool = True
    """Snap other players' known matching cards where the table allows it."""

    def call_bounds(self, penalty: int, turns: int) -> tuple[float, float]:
        """The call threshold and the call margin after ``turns`` of the bot's own turns
        at a table whose caller's penalty is ``penalty`` (0 or more): the bot calls when
        its estimated total is at most the threshold and at least the margin below every
        other total (see :attr:`call_patience`).

        >>> MemoryBotConfig().call_bounds(0, 12)
        (13.0, 4.0)
        """
        margin = self.call_margin + self.penalty_caution * penalty
        threshold = self.call_threshold
        late = turns - self.call_patience
        if late > 0:
            threshold += self.call_urgency * late
            margin -= self.call_urgency * late / 2
        return threshold, margin


class MemoryBot:
    """The practice page's fair opponent (see the module docstring).

    ``config`` sets its knobs (:class:`MemoryBotConfig`). The bot keeps only what its
    views showed it; :meth:`reset` starts a new round. It makes no random choice, so
    the same views always give the same decisions.
    """

    def __init__(self, config: MemoryBotConfig | None = None) -> None:
        self.config = config if config is not None else MemoryBotConfig()
        """The bot's knobs."""
        self.seat = -1
        """The seat the bot plays this round (-1 before :meth:`reset`)."""
        self._rules: RuleSet | None = None
        self._value: dict[tuple[str, str], int] = {}
        # the value of each card object met, by identity (no hashing of cards); the
        # cards are kept in _valued, so an id is never reused while it is in here
        self._value_of: dict[int, int] = {}
        self._valued: list[Card] = []
        self._team_of: tuple[int, int, frozenset[int]] | None = None
        self._pile: tuple[tuple[Card, ...], int] = ((), 0)
        self._remembered: dict[Slot, Card] = {}
        self._points: dict[Slot, float] = {}
        self._slot_lists: dict[int, list[Slot]] = {}
        # per group of seats (a team), their filled slots in seat order (as _slot_lists)
        self._group_slots: dict[tuple[int, ...], list[Slot]] = {}
        # the grids and presence the memory above was last read from (a view's)
        self._grids_seen: tuple[tuple[Card | None, ...], ...] | None = None
        self._present_seen: tuple[tuple[bool, ...], ...] | None = None
        self._remembered_sum = 0
        self._totals: dict[tuple[int, ...], float] = {}
        self._team_index: tuple[int, list[int]] | None = None
        self._deck_size = 0
        self._deck_sum = 0
        # read from the rules once per table (see reset)
        self._call_penalty = 0
        self._powers_on_discard = False
        self._by_value = False
        self._power_by_card: dict[tuple[str, str], Power | None] = {}
        # forgetful memory: slot -> (card, table turn when last seen)
        self._learned: dict[Slot, tuple[Card, int]] = {}
        self._seen_events = 0
        self._now = 0
        # the non-snap actions of each list of legal ids met, in one action space (act;
        # not to be changed)
        self._choices: dict[tuple[int, ...], list[Action]] = {}
        self._choices_space: object = None
        # per-decision state, rebuilt by _observe
        self._view: PlayerView | None = None
        self._mean = 0.0
        self._team: frozenset[int] = frozenset()
        # the opposing teams' seats, and each opponent's team (with _team_of)
        self._opponents: list[tuple[int, ...]] = []
        self._opponent_team: dict[int, tuple[int, ...]] = {}
        self._team_seats: tuple[int, ...] = ()

    def __repr__(self) -> str:
        return f"MemoryBot({self.config!r})"

    # ------------------------------------------------------------------ protocol
    def reset(self, seat: int, rules: RuleSet, seed: int | None) -> None:
        """Start a round at ``seat`` under ``rules``, forgetting everything learned."""
        del seed  # the bot makes no random choice
        self.seat = seat
        if rules is not self._rules:
            self._rules = rules
            # the deck, each card's points and power, as the engine derives them once
            # per RuleSet (a new bot reads them without working them out again)
            table = derived(rules)
            cards = table.cards
            self._value = {(c.rank, c.suit): x for c, x in zip(cards, table.values, strict=True)}
            self._deck_size = len(cards)
            self._deck_sum = sum(table.values)
            self._call_penalty = max(0, rules.call.penalty)
            self._powers_on_discard = rules.powers.timing == "discard"
            self._by_value = rules.snap.match == "value"
            self._power_by_card = {
                (c.rank, c.suit): power for c, power in zip(cards, table.powers, strict=True)
            }
            # the deck's card objects are the ones every round of this RuleSet deals
            # (kept alive here, so their ids stay theirs): valued before any is met
            self._value_of = {id(c): x for c, x in zip(cards, table.values, strict=True)}
            self._valued = list(cards)
            self._team_of = None
            self._team_index = None
        self._learned = {}
        self._pile = ((), 0)
        self._seen_events = 0
        self._now = 0
        self._view = None
        self._grids_seen = None
        self._present_seen = None

    def act(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        """The bot's move from what it remembers (see the module docstring)."""
        self._observe(view)
        if isinstance(legal, ActionList):
            # the driver's list tells snaps apart by id, without decoding them; the same
            # ids come back often (a turn's start, a power's targets on one layout), so
            # their actions are kept per list of ids (the space decodes each id to one
            # object for good, so the kept lists hold the very objects it hands out)
            space = legal._space
            if space is not self._choices_space:
                self._choices_space = space
                self._choices = {}
            key = tuple(legal.ids)
            choices = self._choices.get(key)
            if choices is None:
                choices = legal.non_snap_actions() or list(legal)
                if len(self._choices) < 4096:
                    self._choices[key] = choices
        else:
            choices = [a for a in legal if a.kind is not _SNAP] or list(legal)
        phase = view.phase
        choice: Action | None = None
        if phase == "opening":
            choice = choices[0]
        elif phase == "turn":
            choice = self._start_of_turn(view, choices)
        elif phase in ("drawn", "taken"):
            choice = self._place(view, choices)
        elif phase == "power":
            choice = self._power(view, choices)
        elif phase == "end_of_turn":
            call = _first(choices, _CALL)
            if call is not None and self._should_call(view):
                choice = call
        elif phase == "give":
            choice = self._give(choices)
        if choice is not None:
            for offered in choices:
                if offered is choice:  # the usual answer: one of the very objects offered
                    return choice
            if choice in choices:
                return choice
        return _fallback(choices)

    def react(self, view: PlayerView, snaps: Sequence[Action]) -> Action | None:
        """Snap a card it remembers that matches the top discard, else ``None``."""
        self._observe(view)
        top = view.top_discard
        if top is None:
            return None
        key = self._key(top)
        best: Action | None = None
        best_gain = 0.0
        for snap in snaps:
            gain = self._snap_gain(snap, key)
            if gain is not None and gain > best_gain:
                best, best_gain = snap, gain
        return best

    # ------------------------------------------------------------------ memory
    def _rules_or_fail(self) -> RuleSet:
        if self._rules is None:
            raise RuntimeError("MemoryBot.reset(seat, rules, seed) must be called before a round")
        return self._rules

    def _observe(self, view: PlayerView) -> None:
        """Bring the memory up to date with a new view (the only input the bot has)."""
        if self._rules is None:
            self._rules_or_fail()
        seen_events = self._seen_events  # 0 unless the memory is forgetful
        if view.player != self.seat or (seen_events and len(view.history) < seen_events):
            # a view from another seat or a new round without reset: start afresh
            rules = self._rules
            assert rules is not None
            self.reset(view.player, rules, None)
        self._view = view
        forgetful = self.config.memory_turns is not None
        if forgetful:
            self._now = sum(view.turns)
            self._follow(view)
        cached = self._team_of
        if cached is None or cached[0] != view.players or cached[1] != self.seat:
            rules = self._rules_or_fail()
            mine = team_of(rules, view.players, self.seat)
            team = frozenset(
                p for p in range(view.players) if team_of(rules, view.players, p) == mine
            )
            cached = self._team_of = (view.players, self.seat, team)
            # each opposing team's seats (ascending, teams by their lowest seat)
            index = self._team_indices()
            groups: dict[int, list[int]] = {}
            for p, t in enumerate(index):
                if p not in team:
                    groups.setdefault(t, []).append(p)
            self._opponents = [tuple(members) for members in groups.values()]
            self._opponent_team = {p: members for members in self._opponents for p in members}
            self._team_seats = tuple(team)
        self._team = cached[2]
        self._totals = {}
        present = view.present
        if present is not self._present_seen and present != self._present_seen:
            # the filled slots change only when a card leaves or joins a grid
            self._present_seen = present
            self._slot_lists = {}
            self._group_slots = {}
        grids = view.grids
        seen = self._grids_seen
        if not forgetful:
            if grids is not seen:
                if seen is not None and len(seen) == len(grids):
                    # a view shares the rows that did not change since the last one
                    # (round.view does): only the others are read again
                    self._update_rows(seen, grids)
                else:
                    self._read_grids(grids, forgetful=False)
                self._grids_seen = grids
        else:
            # a forgetful memory changes with time, not only with the view: read it all
            self._grids_seen = grids
            self._read_grids(grids, forgetful=True)
        self._mean = self._unseen_mean(view)

    def _read_grids(self, grids: tuple[tuple[Card | None, ...], ...], *, forgetful: bool) -> None:
        """Read what the bot remembers on the table from ``grids``: the card and its
        points per remembered slot (every estimate reads these); a forgetful bot keeps
        only the cards it still recalls."""
        remembered: dict[Slot, Card] = {}
        points: dict[Slot, float] = {}
        remembered_sum = 0
        v = self._v
        for owner, row in enumerate(grids):
            if row.count(None) == len(row):
                continue  # nothing known in this grid
            for i, card in enumerate(row):
                if card is not None:
                    slot = (owner, i + 1)
                    if forgetful:
                        card = self._recall(slot)
                    if card is not None:
                        remembered[slot] = card
                        x = v(card)
                        points[slot] = float(x)
                        remembered_sum += x
        self._remembered = remembered
        self._points = points
        self._remembered_sum = remembered_sum

    def _update_rows(
        self,
        old: tuple[tuple[Card | None, ...], ...],
        new: tuple[tuple[Card | None, ...], ...],
    ) -> None:
        """Bring the memory read from grids ``old`` up to date with grids ``new`` (as
        the full reading in :meth:`_observe` would leave it), row by changed row."""
        remembered, points = self._remembered, self._points
        total = self._remembered_sum
        values, v = self._value_of, self._v
        for owner, row in enumerate(new):
            before = old[owner]
            if row is before:
                continue
            if len(row) != len(before):
                # rows of another length (a view of another table without reset):
                # compared position by position, an absent position as unknown
                width = max(len(row), len(before))
                before = before + (None,) * (width - len(before))
                row = row + (None,) * (width - len(row))
            # the positions whose card changed (the same card, or unknown in both, is
            # skipped): found by scans in C, as a changed row usually differs in one
            changed = list(map(is_not, before, row))
            i = -1
            for _ in range(changed.count(True)):
                i = changed.index(True, i + 1)
                was, card = before[i], row[i]
                slot = (owner, i + 1)
                if was is not None:
                    del remembered[slot]
                    del points[slot]
                    x = values.get(id(was))
                    total -= v(was) if x is None else x
                if card is not None:
                    remembered[slot] = card
                    x = values.get(id(card))
                    if x is None:
                        x = v(card)
                    points[slot] = float(x)
                    total += x
        self._remembered_sum = total

    def _follow(self, view: PlayerView) -> None:
        """Forgetful memory: move remembered cards with public moves, learn new ones."""
        learned = self._learned
        me = self.seat
        for event in view.history[self._seen_events :]:
            kind = event.kind
            pos = event.positions
            if kind == EventKind.SWAP and len(pos) == 2:
                a, b = pos
                ca, cb = learned.pop(a, None), learned.pop(b, None)
                if ca is not None:
                    learned[b] = ca
                if cb is not None:
                    learned[a] = cb
                if event.player == me and event.note == "seen":
                    learned.pop(a, None)
                    learned.pop(b, None)
            elif kind == EventKind.GIVE and len(pos) == 2:
                moved = learned.pop(pos[0], None)
                learned.pop(pos[1], None)
                if moved is not None:
                    learned[pos[1]] = moved
            elif kind in (EventKind.PEEK, EventKind.OPENING_PEEK, EventKind.RE_PEEK):
                if event.player == me:
                    for slot in pos:
                        learned.pop(slot, None)  # seen again: learned afresh below
            elif kind in (
                EventKind.REPLACE,
                EventKind.EXCHANGE,
                EventKind.FAILED_EXCHANGE,
                EventKind.SNAP,
                EventKind.WRONG_SNAP,
                EventKind.PENALTY,
            ):
                for slot in pos:
                    learned.pop(slot, None)
        self._seen_events = len(view.history)
        for owner, row in enumerate(view.grids):
            for i, card in enumerate(row):
                slot = (owner, i + 1)
                if card is None:
                    learned.pop(slot, None)
                else:
                    old = learned.get(slot)
                    if old is None or old[0] != card:
                        learned[slot] = (card, self._now)

    def _known(self, slot: Slot) -> Card | None:
        """The card the bot remembers at ``slot`` now."""
        return self._remembered.get(slot)

    def _recall(self, slot: Slot) -> Card | None:
        """The card the bot remembers at ``slot``, worked out from the view and memory."""
        view = self._view
        assert view is not None
        owner, position = slot
        card = view.grids[owner][position - 1]
        limit = self.config.memory_turns
        if card is None or limit is None:
            return card
        entry = self._learned.get(slot)
        if entry is None or self._now - entry[1] >= limit:
            return None
        return entry[0]

    def _unseen_mean(self, view: PlayerView) -> float:
        """The mean value of the cards the bot has not seen where they now lie.

        Every card of the deck is in one place (the discard pile, a hand, the stock, or
        held), so the unseen cards are the deck minus the discard pile, the held card
        when the bot sees it, and the cards it remembers on the table.
        """
        pile = view.discard
        last, pile_total = self._pile
        if pile is not last:
            k = len(last)
            if len(pile) > k and pile[:k] == last:
                # the usual change: a card or two discarded since the last view
                values = self._value_of
                for card in pile[k:]:
                    x = values.get(id(card))
                    pile_total += self._v(card) if x is None else x
                self._pile = (pile, pile_total)
            else:
                pile_total = self._discard_total(pile)
        count = self._deck_size - len(pile)
        total = self._deck_sum - pile_total
        held = view.holding
        if held is not None:
            count -= 1
            x = self._value_of.get(id(held))
            total -= self._v(held) if x is None else x
        count -= len(self._remembered)
        total -= self._remembered_sum
        if count <= 0:
            return self._deck_sum / max(1, self._deck_size)
        return total / count

    def _discard_total(self, pile: tuple[Card, ...]) -> int:
        """The points of the discard pile: summed afresh only past the part of the pile
        the last view showed (views share an unchanged pile; a grown one extends it)."""
        last, total = self._pile
        if pile is last:
            return total
        k = len(last)
        v = self._v
        if len(pile) >= k and pile[:k] == last:
            total += sum([v(c) for c in pile[k:]])
        else:
            total = sum([v(c) for c in pile])
        self._pile = (pile, total)
        return total

    # ------------------------------------------------------------------ estimates
    def _v(self, card: Card) -> int:
        value = self._value_of.get(id(card))
        if value is not None:
            return value
        value = self._value_by_card(card)
        if len(self._value_of) < 4096:
            # by identity (no hashing of cards); the card is kept, so while its id is a
            # key here no other object can have it
            self._value_of[id(card)] = value
            self._valued.append(card)
        return value

    def _value_by_card(self, card: Card) -> int:
        key = (card.rank, card.suit)
        value = self._value.get(key)
        if value is None:
            value = self._value[key] = self._rules_or_fail().values.of(card)
        return value

    def _est(self, slot: Slot) -> float:
        points = self._points.get(slot)
        return self._mean if points is None else points

    def _slots(self, owner: int) -> list[Slot]:
        """``owner``'s filled slots (built once per decision; not to be changed)."""
        hit = self._slot_lists.get(owner)
        if hit is None:
            view = self._view
            assert view is not None
            hit = [(owner, i + 1) for i, here in enumerate(view.present[owner]) if here]
            self._slot_lists[owner] = hit
        return hit

    def _total(self, key: tuple[int, ...]) -> float:
        """The estimated points of seats ``key``'s hands (each sum made once per decision)."""
        hit = self._totals.get(key)
        if hit is None:
            group = self._group_slots.get(key)
            if group is None:
                slots = self._slots
                group = self._group_slots[key] = [s for p in key for s in slots(p)]
            # each slot's estimate (self._est), summed in slot order
            hit = self._totals[key] = sum(map(self._points.get, group, repeat(self._mean)))
        return hit

    def _team_indices(self) -> list[int]:
        """Each seat's team index (``scoring.team_of``), worked out once per seat count."""
        view = self._view
        assert view is not None
        n = view.players
        cached = self._team_index
        if cached is None or cached[0] != n:
            rules = self._rules_or_fail()
            cached = self._team_index = (n, [team_of(rules, n, p) for p in range(n)])
        return cached[1]

    def _opponent_totals(self) -> dict[int, float]:
        """Estimated total per opposing team, keyed by its lowest seat."""
        total = self._total
        return {members[0]: total(members) for members in self._opponents}

    def _leader_order(self) -> dict[int, float]:
        """Estimated total of each opponent's team, per opponent seat."""
        total = self._total
        return {p: total(members) for p, members in self._opponent_team.items()}

    def _key(self, card: Card) -> object:
        if self._rules is None:
            self._rules_or_fail()
        return self._v(card) if self._by_value else card.rank

    # ------------------------------------------------------------------ decisions
    def _should_call(self, view: PlayerView) -> bool:
        cfg = self.config
        mine = self._total(self._team_seats)
        if not self._opponents:
            return mine <= cfg.call_threshold
        threshold, margin = cfg.call_bounds(self._call_penalty, view.turns[self.seat])
        if mine > threshold:
            return False  # too high to call, whatever the others hold
        return mine + margin <= min(self._opponent_totals().values())

    def _start_of_turn(self, view: PlayerView, choices: Sequence[Action]) -> Action | None:
        # the first offered action of each kind read below (as _first finds them)
        repeek = call = take = draw = None
        for action in choices:
            kind = action.kind
            if kind is _DRAW:
                if draw is None:
                    draw = action
            elif kind is _TAKE:
                if take is None:
                    take = action
            elif kind is _CALL:
                if call is None:
                    call = action
            elif kind is _RE_PEEK and repeek is None:
                repeek = action
        if repeek is not None and any(
            view.present[self.seat][pos - 1] and self._known((self.seat, pos)) is None
            for pos in view.opening_positions
        ):
            return repeek
        if call is not None and self._should_call(view):
            return call
        pile = view.discard
        top = pile[-1] if pile else None  # view.top_discard
        if take is not None and top is not None:
            x = self._value_of.get(id(top))  # what self._v(top) reads first
            value = self._v(top) if x is None else x
            own = self._slots(self.seat)
            worst = max(map(self._points.get, own, repeat(self._mean)), default=0.0)  # _est
            if value <= self.config.take_max and worst - value >= self.config.take_gain:
                return take
        if draw is not None:
            return draw
        if take is not None:
            return take
        return None

    def _place(self, view: PlayerView, choices: Sequence[Action]) -> Action | None:
        held = view.holding
        if held is None:
            held_value = self._mean
        else:
            x = self._value_of.get(id(held))  # what self._v(held) reads first
            held_value = float(self._v(held) if x is None else x)
        best: Action | None = None
        best_gain = float("-inf")
        discard: Action | None = None
        get, mean = self._points.get, self._mean  # self._est
        for action in choices:
            kind = action.kind
            if kind is _REPLACE:
                gain = get(action.positions[0], mean) - held_value
            elif kind is _EXCHANGE:
                cards = [self._known(s) for s in action.positions]
                known = [c for c in cards if c is not None]
                if len(known) != len(cards) or len({self._key(c) for c in known}) != 1:
                    continue  # never gamble on an exchange
                gain = sum(self._v(c) for c in known) - held_value
            else:
                if kind is _DISCARD and discard is None:
                    discard = action
                continue
            if gain > best_gain:
                best, best_gain = action, gain
        if discard is None:
            return best
        bonus = self.config.power_value if self._power_useful(view, held) else 0.0
        if best is not None and best_gain > self.config.replace_margin + bonus:
            return best
        return discard

    def _power_of(self, card: Card) -> Power | None:
        key = (card.rank, card.suit)
        cache = self._power_by_card
        if key in cache:
            return cache[key]
        power = cache[key] = self._rules_or_fail().powers.power_of(card)
        return power

    def _power_useful(self, view: PlayerView, held: Card | None) -> bool:
        """Would discarding the held card give a power worth using?"""
        if self._rules is None:
            self._rules_or_fail()
        if held is None or not view.holding_from_stock or not self._powers_on_discard:
            return False
        power = self._power_of(held)
        if power is None:
            return False
        me = self.seat
        for step in power.steps:
            if step.action == "peek":
                if step.scope in ("own", "any") and any(
                    self._known(s) is None for s in self._slots(me)
                ):
                    return True
                if (
                    step.scope in ("other", "any", "other-not-peeked")
                    and self.config.peek_opponents
                ):
                    return True
            else:
                own = self._slots(me)
                worst = max(map(self._points.get, own, repeat(self._mean)), default=0.0)
                if worst - self._mean >= self.config.swap_margin or step.scope.startswith("peeked"):
                    return True
        return False

    def _current_power(self, view: PlayerView) -> tuple[Power | None, int]:
        """The power being used and the index of its current step (best effort)."""
        step = view.power_step
        name = view.power
        for power in self._rules_or_fail().powers.table:
            if power.name == name and step in power.steps:
                index = len(view.peeked)
                if index < len(power.steps) and (
                    power.steps[index] is step or power.steps[index] == step
                ):
                    return power, index
                return power, power.steps.index(step)
        return None, 0

    def _power(self, view: PlayerView, choices: Sequence[Action]) -> Action | None:
        choice = self._power_step(view, choices)
        if choice is None and _first(choices, _SKIP) is None:
            # the power of a card only this bot has seen: its steps are left out by
            # placing the card (there is no skip to give that away)
            placing = [a for a in choices if a.kind in _PLACING]
            if placing:
                return self._place(view, placing)
        return choice

    def _power_step(self, view: PlayerView, choices: Sequence[Action]) -> Action | None:
        step = view.power_step
        skip = _first(choices, _SKIP)
        if step is None:
            return skip
        if step.action == "peek":
            return self._choose_peek(view, choices, skip)
        return self._choose_swap(choices, skip)

    def _choose_peek(
        self, view: PlayerView, choices: Sequence[Action], skip: Action | None
    ) -> Action | None:
        peeks = [a for a in choices if a.kind is _PEEK]
        if not peeks:
            return skip
        me = self.seat
        power, index = self._current_power(view)
        later = power.steps[index + 1 :] if power is not None else ()
        swap_scope = next((s.scope for s in later if s.action == "swap"), None)
        remembered = self._remembered  # what self._known reads
        # each candidate list below is worked out only where it decides (the first of
        # equal keys wins, as the first of a stable sort would)
        if swap_scope in ("peeked-any", "peeked-own"):
            target = self._opponent_unknown(peeks)
            if target is not None:
                return target  # find a low card, then swap it for our worst
        elif swap_scope in ("peeked-other", "peeked-pair"):
            est, mean = self._points.get, self._mean  # self._est
            margin = self.config.swap_margin
            own_high = [
                a
                for a in peeks
                if (slot := a.positions[0])[0] == me
                and slot in remembered
                and est(slot, mean) - mean >= margin
            ]
            if own_high:
                # look at our high card so it can be sent away
                return min(own_high, key=lambda a: -est(a.positions[0], mean))
        own_unknown = [
            a for a in peeks if (slot := a.positions[0])[0] == me and slot not in remembered
        ]
        if own_unknown:
            grid = view.grid_size
            return min(own_unknown, key=lambda a: (a.positions[0][1] > grid, a.positions[0][1]))
        if self.config.peek_opponents or swap_scope is not None:
            target = self._opponent_unknown(peeks)
            if target is not None:
                return target
        if skip is not None:
            return skip
        return peeks[0]

    def _opponent_unknown(self, peeks: list[Action]) -> Action | None:
        """The peek at an opponent's card the bot does not know, the leading team's
        first (then by slot), or ``None`` when there is none."""
        team, remembered = self._team, self._remembered
        unknown = [
            a for a in peeks if (slot := a.positions[0])[0] not in team and slot not in remembered
        ]
        if not unknown:
            return None
        leaders = self._leader_order()
        return min(unknown, key=lambda a: (leaders.get(a.positions[0][0], 0.0), a.positions[0]))

    def _choose_swap(self, choices: Sequence[Action], skip: Action | None) -> Action | None:
        swaps = [a for a in choices if a.kind is _SWAP]
        if not swaps:
            return skip
        team = self._team
        est, mean = self._points.get, self._mean  # self._est, read in the loop
        margin = self.config.swap_margin
        if skip is not None and margin > 0:
            # every estimate is a remembered card's points or the mean, so no swap gains
            # more than our highest estimate less the others' lowest; when even that is
            # short of the margin the answer is to skip, and no swap need be weighed
            # (float subtraction is monotonic, so the bound holds as computed)
            high = low = mean
            for slot, points in self._points.items():
                if slot[0] in team:
                    if points > high:
                        high = points
                elif points < low:
                    low = points
            if high - low < margin:
                return skip
        leaders = self._leader_order()
        best: Action | None = None
        # the best (gain, -victim's lead) so far, compared as that pair
        best_gain, best_lead = float("-inf"), 0.0
        for action in swaps:
            a, b = action.positions
            ours_a, ours_b = a[0] in team, b[0] in team
            if ours_a and not ours_b:
                gain, victim = est(a, mean) - est(b, mean), b[0]
            elif ours_b and not ours_a:
                gain, victim = est(b, mean) - est(a, mean), a[0]
            else:
                gain, victim = 0.0, -1
            lead = -leaders.get(victim, 0.0)
            if gain > best_gain or (gain == best_gain and lead > best_lead):
                best, best_gain, best_lead = action, gain, lead
        if best is not None and best_gain >= margin:
            return best
        return skip if skip is not None else best

    def _give(self, choices: Sequence[Action]) -> Action | None:
        gives = [a for a in choices if a.kind is _GIVE]
        if not gives:
            return None
        return max(gives, key=lambda a: (self._est(a.positions[0]), -a.positions[0][1]))

    def _snap_gain(self, snap: Action, key: object) -> float | None:
        """How much a snap lowers the bot's side's total, or None if not certain to match."""
        cfg = self.config
        total = 0.0
        for slot in snap.positions:
            card = self._known(slot)
            if card is None or self._key(card) != key:
                return None
            owner = slot[0]
            if owner == self.seat:
                if not cfg.snap_own or self._v(card) <= 0:
                    return None
                total += self._v(card)
            else:
                if not cfg.snap_others:
                    return None
                if owner in self._team:
                    if self._v(card) <= 0:
                        return None
                    total += self._v(card)
                else:
                    # our worst card goes to that player in its place
                    own = self._slots(self.seat)
                    total += max((self._est(s) for s in own), default=0.0)
        return total


def _first(actions: Iterable[Action], kind: ActionKind) -> Action | None:
    for action in actions:
        if action.kind is kind:
            return action
    return None


def _fallback(choices: Sequence[Action]) -> Action:
    """A sensible legal action when no rule above chose one: never a call by accident."""
    for kind in (
        ActionKind.DRAW,
        ActionKind.PASS,
        ActionKind.SKIP,
        ActionKind.DISCARD,
        ActionKind.TAKE,
    ):
        found = _first(choices, kind)
        if found is not None:
            return found
    others = [a for a in choices if a.kind is not ActionKind.CALL]
    return (others or list(choices))[0]
