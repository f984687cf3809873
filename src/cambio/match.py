"""A match: rounds that add up, with dealers, starters, eliminations, ties and teams.

A :class:`Match` is a sequence of :class:`~cambio.round.Round` objects played under one
:class:`~cambio.rules.RuleSet`. It drives nothing by itself: the caller applies actions
through :meth:`Match.apply`, exactly as with a round, and when a round ends the match
records it and deals the next one (or ends).

>>> import random, cambio
>>> m = cambio.Match("elimination", players=3, seed=0)
>>> m.round_number, m.round_seats, m.dealer, m.to_act
(1, (0, 1, 2), 1, 2)
>>> rng = random.Random(0)
>>> while not m.is_over:  # uniformly random legal actions, snaps and calls included
...     _ = m.apply(rng.choice(m.legal_action_ids()))
>>> m.result.winners, m.result.reason, m.result.totals
((2,), 'last-standing', (153, 101, 96))
>>> [(r.players, r.scores) for r in m.result.rounds[-2:]]
[((0, 1, 2), (21, 21, 0)), ((0, 1, 2), (58, 35, 0))]
>>> cambio.Match.from_json(m.to_json()) == m
True

Seats
-----
The match's seats are fixed, ``0 .. players - 1``. A round may be played by fewer of
them: eliminated players sit out, and a tie-break round is played by the tied players
only. Inside that round the players sit in seats ``0 .. k - 1`` (in match-seat order, so
clockwise order and partnerships are kept); :attr:`Match.round_seats` maps a round seat
to its match seat.

**Everything the Match API takes or returns is in match seats**: :attr:`Match.to_act`,
:attr:`Match.reactors`, the ``player`` of :meth:`Match.legal_actions` and
:meth:`Match.view`, every :class:`~cambio.actions.Action` (its ``player`` and the owner
of each of its positions), the integer ids of :attr:`Match.space` (a fixed action space
for all the match's seats, the same for every round), the events returned by
:meth:`Match.apply`, and the view's grids, history and result. Only :attr:`Match.round`,
the raw current round, speaks round seats; read it, but do not apply actions to it
directly (the match would not record them).

Dealers and starters
--------------------
``first_dealer``: ``last-seat`` (the default): the highest seat deals the first round,
so seat 0 starts it on a left-of-dealer table, exactly as a :class:`~cambio.Round` built
without a dealer does; ``first-seat``: seat 0 deals (so seat 1 starts); ``random``: a
seat drawn from the match seed; ``high-card``: each player draws one card from a deck of
the table shuffled by the match seed, the highest rank deals, and players tied for the
highest draw again (the draws are recorded as ``high-card`` events in
:attr:`Match.events`). The rank order is the order in which the table's deck lists its
ranks: for a standard deck the ace is lowest and the king highest, with a joker above
the king; a custom deck ranks in the order of its listing. After the first round the
deal passes clockwise (to the next higher seat, wrapping round) to the next player who
plays the new round.

``starter``: ``left-of-dealer``: the next player clockwise after the dealer among the
round's players. ``worst-hand``: in the first round, left of the dealer; later, the
round's player with the highest *hand total* (not score) in the previous round; a tie
goes to the first tied player clockwise from the previous round's starter (that starter
included). ``first-seat``: the lowest seat among the round's players, every round.
``last-winner``: in the first round, left of the dealer; later, the previous round's
winner if it plays this round (of several winners, the first clockwise after the
dealer, or the lowest seat where ``tied_winners = "lowest-seat"``), else left of the
dealer.

Changing the table between rounds
---------------------------------
:meth:`Match.change_rules` gives the match a different RuleSet from its next round on
(the house changes a rule); the match's seats, teams and action space stay, so the new
table must seat the match's players, keep its team size and give the same action space
(grid positions, opening choices, exchanges and multi-card snaps). The rounds already
played keep the rules they were played under; the end of the match is judged by the
rules in force. :meth:`Match.redeal` abandons the current round (its scores never
count) and deals it again from a fresh shuffle, with the same dealer, starter and
players; the running totals stay. Both are recorded, so a saved match replays them.

Scores and totals
-----------------
A round's scores (:attr:`~cambio.scoring.RoundResult.scores`) already hold the table's
winner-scores-zero, caller penalty or bonus and combination; the match adds them up.
With teams (``teams.size > 1``) the partnerships are fixed for the match
(:func:`~cambio.scoring.teams_of`); a team's total adds its round score once per round,
every partner shows the team's total in :attr:`Match.totals`, and a team is eliminated,
halved or wins as one.

``exact_limit``: after a round's scores are added and before the end is checked, a
total of exactly ``limit`` drops to ``limit // 2`` (``once``: the first time per player
or team in the match; ``always``: every time). The halving is recorded in the round's
:attr:`RoundRecord.adjustments`, so every total equals the sum of its round scores plus
its adjustments.

How a match ends
----------------
"Crosses the limit" means a total of ``limit`` or more when ``at_limit`` is true,
strictly more otherwise.

- ``single``: one round; its winners win the match (``match.tie`` does not apply: the
  round's own tie-break chain has decided).
- ``elimination``: after each round, every player or team of that round whose total
  crosses the limit is out and sits out later rounds. When one is left, it wins
  (reason ``last-standing``). **Decision**: if every remaining player crosses in the
  same round, the lowest total among them wins, a tie being settled by ``match.tie``
  (reason ``all-out``).
- ``limit``: as soon as any total crosses the limit after a round, the lowest total of
  all wins (ties by ``match.tie``).
- ``rounds``: after ``match.rounds`` rounds (tie-break rounds not counted), the lowest
  total wins (ties by ``match.tie``).

A tie for the match: ``share`` makes every tied player or team a winner. With
``extra-round``, one more round is dealt to the tied players only; **decision**: that
round's winners (as the table scores a round, tie-break chain included) are still in
contention, and its scores are added to the totals like any round's. One winner ends
the match; several play another extra round among themselves, at most
:data:`MAX_EXTRA_ROUNDS` extra rounds in all, after which those still tied share the
win. Because the round decides, not the totals, the winner of a tie-break can end with
a higher total than a loser on tables where a round winner scores 0 and a losing hand
can be negative.

A safety net: a match that is still going after :data:`MAX_ROUNDS` rounds (possible only
on tables whose scores can keep totals from ever crossing the limit) ends with the
lowest total winning among those still in (reason ``round-cap``).

Determinism
-----------
Round ``i`` (from 0) is dealt with a seed drawn from ``random.Random(f"{seed}:round:{i}")``;
the random first dealer and the high-card draw use their own seeded streams, so the match
seed and the list of actions reproduce a match: :meth:`Match.replay`,
:meth:`Match.to_dict` and :meth:`Match.from_dict` rely on it. ``decks`` gives prepared
decks per round (index ``i`` for round ``i``, with the :class:`~cambio.round.Round`
meaning of a prepared deck; ``None`` or a missing entry shuffles that round by its seed).
"""

from __future__ import annotations

import enum
import json
import random
from collections.abc import Iterable, Sequence
from typing import Any

import attrs

from .actions import (
    Action,
    ActionKind,
    ActionSpace,
    action_space,
    kinds_wanted,
    opening_choices,
)
from .cards import Card, card_to_json
from .errors import IllegalActionError
from .events import Event
from .loading import as_ruleset
from .round import Round
from .rules import RuleSet, ensure_valid
from .scoring import HandCard, RoundResult, team_of, teams_of
from .views import PlayerView

__all__ = [
    "MAX_EXTRA_ROUNDS",
    "MAX_HIGH_CARD_DRAWS",
    "MAX_ROUNDS",
    "SAVE_FORMAT",
    "Match",
    "MatchEventKind",
    "MatchResult",
    "MatchView",
    "RoundRecord",
]

SAVE_FORMAT = "cambio-match/3"
OLD_SAVE_FORMAT = "cambio-match/2"
"""The previous format (actions as objects): still read."""

MAX_HIGH_CARD_DRAWS = 20
"""High-card draws for the first dealer before a tie still standing is settled by lot."""

MAX_EXTRA_ROUNDS = 5
"""Tie-break rounds played in a row before the players still tied share the win."""

MAX_ROUNDS = 1000
"""Rounds after which a match that has not ended is stopped (lowest total wins)."""


class MatchEventKind(str, enum.Enum):
    """The kinds of match-level events: an enum whose members are also their strings, as
    :class:`~cambio.events.EventKind` for round events."""

    HIGH_CARD = "high-card"
    """A player drew a card to choose the first dealer (``note``: the draw number)."""
    DEALER = "dealer"
    """The first dealer is chosen (``note``: how)."""
    ROUND_START = "round-start"
    """A round is dealt; ``player`` is its dealer, ``positions`` list ``(starter, 0)``."""
    ROUND_END = "round-end"
    """A round ended (``note``: its number and reason)."""
    HALVED = "halved"
    """A total of exactly the limit dropped to half of it."""
    OUT = "out"
    """A player (each partner of a team) is eliminated."""
    TIE = "tie"
    """The match is tied; an extra round among the tied players follows."""
    MATCH_END = "match-end"
    """The match is over; ``note`` names the winners and the reason."""
    RULES = "rules"
    """The match takes another RuleSet from its next round (``note``: the table's name)."""
    REDEAL = "redeal"
    """The current round is abandoned and dealt again (``note``: its number)."""

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


@attrs.frozen
class RoundRecord:
    """One line of the match's score table: a finished round, in match seats.

    ``players`` are the match seats that played it (round seat ``i`` is
    ``players[i]``); ``scores[s]`` is seat ``s``'s round score (``None`` when ``s`` sat
    out); ``adjustments[s]`` is the change made after the round by the exact-limit rule
    (0 or ``limit // 2 - limit``); ``totals`` are every seat's totals after the round;
    ``out`` the seats eliminated after it. ``result`` is the round's own result, in its
    round seats.
    """

    number: int
    """The round's number in the match, from 1."""
    extra: bool
    """Whether it was a tie-break round among tied players."""
    players: tuple[int, ...]
    """The match seats that played it: round seat ``i`` is ``players[i]``."""
    dealer: int
    """The match seat that dealt it."""
    starter: int
    """The match seat that took its first turn."""
    scores: tuple[int | None, ...]
    """``scores[s]``: match seat ``s``'s round score (``None`` when ``s`` sat out)."""
    adjustments: tuple[int, ...]
    """``adjustments[s]``: the change the exact-limit rule made to seat ``s``'s total
    after the round (0, or ``limit // 2 - limit``)."""
    totals: tuple[int, ...]
    """Every match seat's total after the round."""
    out: tuple[int, ...]
    """The match seats eliminated after the round."""
    result: RoundResult
    """The round's own result, in its round seats."""

    @property
    def reason(self) -> str:
        """Why the round ended (``call``, ``stock``, ``empty-grid``, ``turn-cap``)."""
        return self.result.reason

    @property
    def winners(self) -> tuple[int, ...]:
        """The round's winners, in match seats."""
        return tuple(self.players[w] for w in self.result.winners)


@attrs.frozen
class MatchResult:
    """How a match ended.

    ``winners`` are match seats (every partner of a winning team); ``shared`` says
    whether several players or teams share the win; ``reason`` is ``single``,
    ``last-standing``, ``all-out``, ``limit``, ``rounds`` or ``round-cap``;
    ``extra_rounds`` counts the tie-break rounds played; ``rounds`` is the whole score
    table; ``eliminated`` lists every seat that went out (after an ``all-out`` finish
    that includes the winners, who crossed the limit too).
    """

    winners: tuple[int, ...]
    """The winning match seats (every partner of a winning team)."""
    totals: tuple[int, ...]
    """Every match seat's final total."""
    team_totals: tuple[int, ...]
    """Each team's final total, in the order of the teams (empty when the table has no
    teams)."""
    rounds: tuple[RoundRecord, ...]
    """The whole score table, one record per round played."""
    reason: str
    """How the match ended: ``single``, ``last-standing``, ``all-out``, ``limit``,
    ``rounds`` or ``round-cap``."""
    shared: bool
    """Whether several players or teams share the win."""
    extra_rounds: int
    """How many tie-break rounds were played."""
    eliminated: tuple[int, ...]
    """Every seat that went out (after an ``all-out`` finish, the winners too)."""

    @property
    def round_count(self) -> int:
        """How many rounds were played, tie-break rounds included."""
        return len(self.rounds)


@attrs.frozen
class MatchView:
    """What one player may know of a match: the current round's view plus the match.

    ``round`` is :meth:`cambio.Round.view` translated into match seats (``players`` is
    the match's seat count; a seat that sits out the round has an empty grid, no turns,
    and in a final ``result`` an empty hand, total 0 and score 0), or ``None`` when the
    viewer sits out the round. Everything else is public match information.
    """

    player: int
    """The viewer's match seat."""
    players: int
    """How many seats the match has."""
    round: PlayerView | None
    """The viewer's view of the current round in match seats, or ``None`` when the viewer
    sits out the round."""
    round_number: int
    """The current round's number, from 1."""
    extra_round: bool
    """Whether the current round is a tie-break round."""
    round_seats: tuple[int, ...]
    """The match seats playing the current round, in round-seat order."""
    dealer: int
    """The match seat dealing the current round."""
    starter: int
    """The match seat taking the current round's first turn."""
    totals: tuple[int, ...]
    """Every match seat's total so far."""
    team_totals: tuple[int, ...]
    """Each team's total so far, in the order of ``teams`` (empty without teams)."""
    teams: tuple[tuple[int, ...], ...]
    """The match seats of each team (one seat per team when the table has no teams)."""
    eliminated: tuple[int, ...]
    """The seats out of the match so far."""
    table: tuple[RoundRecord, ...]
    """The score table of the rounds finished so far."""
    result: MatchResult | None
    """How the match ended, once it is over, else ``None``."""

    @property
    def is_over(self) -> bool:
        """Whether the match has ended."""
        return self.result is not None


def _as_card(card: Card | str) -> Card:
    if isinstance(card, Card):
        return card
    if isinstance(card, str):
        return Card.parse(card)
    raise TypeError(f"expected a Card or a card text such as 'KH', got {card!r}")


def _derive(seed: int, what: str) -> random.Random:
    return random.Random(f"{seed}:{what}")


class Match:
    """A match of Cambio: rounds under one RuleSet until the table's match end.

    ``rules`` is a :class:`~cambio.rules.RuleSet` or a profile name; ``players`` defaults
    to the table's default; ``seed`` (a whole number, random when omitted) fixes every
    deal and draw; ``decks`` optionally gives a prepared deck per round (see the module
    documentation for seats, dealers, scoring, the end and ties).
    """

    rules: RuleSet
    """The table's rules."""
    players: int
    """How many seats the match has (seats are numbered from 0)."""
    seed: int
    """The seed every round's deal and every draw of the match derive from."""
    decks: tuple[tuple[Card, ...] | None, ...]
    """The prepared deck of each round, where one was given (``None``: shuffled)."""
    space: ActionSpace
    """The integer ids of every action, in match seats (see :class:`ActionSpace`)."""
    teams: tuple[tuple[int, ...], ...]
    """The match seats of each team (one seat per team when the table has no teams)."""

    def __init__(
        self,
        rules: RuleSet | str,
        players: int | None = None,
        *,
        seed: int | None = None,
        decks: Sequence[Sequence[Card | str] | None] | None = None,
    ) -> None:
        rules = as_ruleset(rules)
        n = rules.players.default if players is None else players
        if isinstance(n, bool) or not isinstance(n, int):
            raise TypeError(f"players must be a whole number, got {n!r}")
        lo, hi = rules.players.min, rules.players.max
        if not lo <= n <= hi:
            raise ValueError(f"the {rules.name} table seats {lo} to {hi} players, not {n}")
        size = rules.teams.size
        if size > 1 and n % size:
            raise ValueError(f"teams of {size} need a multiple of {size} players, not {n}")
        if seed is None:
            seed = random.SystemRandom().randrange(2**63)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise TypeError(f"seed must be a whole number, got {seed!r}")
        self.rules = rules
        self._first_rules = rules
        self.players = n
        self.seed = seed
        self.decks = tuple(
            None if d is None else tuple(_as_card(c) for c in d) for d in (decks or ())
        )
        self.space = action_space(
            n,
            rules.grid.max_positions,
            opening_choices(rules.opening.positions, rules.opening.count),
            rules.turn.exchange_equal,
            rules.snap.several,
        )
        """The action ids of the whole match: one space for all its seats and rounds."""
        self.teams = teams_of(rules, n)
        """The fixed partnerships (each player alone when the table has no teams)."""
        self._unit = [team_of(rules, n, s) for s in range(n)]
        units = len(self.teams)
        self._totals = [0] * units
        self._out: list[int] = []  # units, in the order they went out
        self._halved: set[int] = set()
        self._records: list[RoundRecord] = []
        self._rounds: list[Round] = []
        self._actions: list[Action] = []
        self._events: list[Event] = []
        self._regular = 0
        self._extra = 0
        self._tied: tuple[int, ...] = ()  # units in contention during tie-break rounds
        self._tie_reason = ""
        self._result: MatchResult | None = None
        self._seats: tuple[int, ...] = ()
        self._index: dict[int, int] = {}
        self._identity = True
        self._dealer = -1
        self._starter = -1
        self._next_rules: RuleSet | None = None
        self._redeals = 0
        self._changes: list[tuple[int, str, RuleSet | None]] = []
        """Match operations that are not actions, as ``(actions before, kind, rules)``."""

        self._dealer = self._first_dealer()
        self._start_round(tuple(range(n)), extra=False)

    # ------------------------------------------------------------------ set-up
    def _first_dealer(self) -> int:
        how = self.rules.match.first_dealer
        n = self.players
        if how == "random":
            dealer = _derive(self.seed, "first-dealer").randrange(n)
            self._log(Event(MatchEventKind.DEALER, dealer, note="random"))
            return dealer
        if how == "high-card":
            return self._high_card()
        if how == "last-seat":
            self._log(Event(MatchEventKind.DEALER, n - 1, note="last seat"))
            return n - 1
        self._log(Event(MatchEventKind.DEALER, 0, note="first seat"))
        return 0

    def _high_card(self) -> int:
        rng = _derive(self.seed, "high-card")
        order = {rank: i for i, rank in enumerate(self.rules.deck.rank_names())}
        deck: list[Card] = []
        contenders = list(range(self.players))
        draw = 0
        while len(contenders) > 1:
            if len(order) < 2 or draw >= MAX_HIGH_CARD_DRAWS:
                # every card ties (a one-rank deck) or the ties go on: settle by lot
                chosen = contenders[rng.randrange(len(contenders))]
                self._log(Event(MatchEventKind.DEALER, chosen, note="high card, ties by lot"))
                return chosen
            draw += 1
            drawn: dict[int, Card] = {}
            for p in contenders:
                if not deck:
                    deck = self.rules.deck.cards()
                    rng.shuffle(deck)
                card = deck.pop()
                drawn[p] = card
                self._log(Event(MatchEventKind.HIGH_CARD, p, cards=(card,), note=f"draw {draw}"))
            best = max(order[c.rank] for c in drawn.values())
            contenders = [p for p in contenders if order[drawn[p].rank] == best]
        self._log(Event(MatchEventKind.DEALER, contenders[0], note="high card"))
        return contenders[0]

    def _round_rules(self, k: int) -> RuleSet:
        rules = self.rules
        if k < rules.players.min:
            # A tie-break or late elimination round among fewer players than the table's
            # minimum for a new match: the round is still played.
            return attrs.evolve(rules, players=attrs.evolve(rules.players, min=k))
        return rules

    def _next_in(self, after: int, seats: Sequence[int]) -> int:
        """The first of ``seats`` clockwise after match seat ``after``."""
        n = self.players
        members = set(seats)
        for step in range(1, n + 1):
            s = (after + step) % n
            if s in members:
                return s
        raise AssertionError("no seat to choose from")

    def _choose_starter(self, seats: tuple[int, ...], dealer: int) -> int:
        how = self.rules.match.starter
        if how == "first-seat":
            return min(seats)
        if how == "last-winner" and self._records:
            prev = self._records[-1]
            winners = {prev.players[w] for w in prev.result.winners} & set(seats)
            if winners and self.rules.match.tied_winners == "lowest-seat":
                return min(winners)
            if winners:
                return self._next_in(dealer, sorted(winners))
        if how == "worst-hand" and self._records:
            prev = self._records[-1]
            totals = {prev.players[i]: t for i, t in enumerate(prev.result.totals)}
            candidates = [s for s in seats if s in totals]
            if candidates:
                worst = max(totals[s] for s in candidates)
                tied = {s for s in candidates if totals[s] == worst}
                n = self.players
                for step in range(n):
                    s = (prev.starter + step) % n
                    if s in tied:
                        return s
        return self._next_in(dealer, seats)

    def _start_round(
        self, seats: tuple[int, ...], *, extra: bool, again: bool = False
    ) -> list[Event]:
        index = len(self._records)
        if self._next_rules is not None:
            self.rules = self._next_rules
            self._next_rules = None
        if again:
            self._redeals += 1
            dealer, starter = self._dealer, self._starter
            deck = None
            round_seed = _derive(self.seed, f"round:{index}:redeal:{self._redeals}").randrange(
                2**63
            )
        else:
            if index > 0:
                self._dealer = self._next_in(self._dealer, seats)
            dealer = self._dealer
            starter = self._choose_starter(seats, dealer)
            deck = self.decks[index] if index < len(self.decks) else None
            round_seed = _derive(self.seed, f"round:{index}").randrange(2**63)
        self._starter = starter
        self._seats = seats
        self._index = {s: i for i, s in enumerate(seats)}
        self._identity = len(seats) == self.players
        rnd = Round(
            self._round_rules(len(seats)),
            len(seats),
            seed=round_seed,
            deck=deck,
            dealer=self._index[dealer],
            starter=self._index[starter],
        )
        self._round = rnd
        if again:
            self._rounds[-1] = rnd
        else:
            self._rounds.append(rnd)
        note = f"round {index + 1}" + (" (tie-break)" if extra else "")
        start = Event(MatchEventKind.ROUND_START, dealer, ((starter, 0),), note=note)
        self._log(start)
        out = [start, *self._events_out(rnd.events)]
        if rnd.is_over:  # a deal that leaves no stock ends its round at once
            out.extend(self._finish_round())
        return out

    def _log(self, event: Event) -> None:
        self._events.append(event)

    # ------------------------------------------------------------------ seats
    @property
    def round(self) -> Round:
        """The current round (the last one once the match is over), in round seats."""
        return self._round

    @property
    def round_seats(self) -> tuple[int, ...]:
        """The match seat of each round seat of the current round."""
        return self._seats

    def round_seat(self, seat: int) -> int | None:
        """The round seat of match seat ``seat`` in the current round (``None``: sits out)."""
        return self._index.get(seat)

    @property
    def round_number(self) -> int:
        """The number (from 1) of the current round; of the last one once the match is over."""
        return len(self._rounds)

    @property
    def played_rounds(self) -> tuple[Round, ...]:
        """Every round of the match so far, the current one last (round seats)."""
        return tuple(self._rounds)

    @property
    def extra_round(self) -> bool:
        """Whether the current round is a tie-break round."""
        return bool(self._tied)

    @property
    def dealer(self) -> int:
        """The dealer of the current round (match seat)."""
        return self._dealer

    @property
    def starter(self) -> int:
        """The player who starts the current round (match seat)."""
        return self._starter

    # --- translation between match seats and round seats
    def _round_id(self, action: Action | int) -> int:
        """``action`` (match seats) as an id of the current round's space (round seats).

        Every check a round makes of an action's shape is made here first, in match
        seats (a float or bool seat, positions that are not a tuple of whole-number
        pairs, a position named twice, a seat or position out of range), so a match
        refuses whatever a round refuses, and says so in the seats its caller uses.
        """
        if self._identity:
            return self._round._coerce(action)
        if isinstance(action, bool):
            raise IllegalActionError(action, "an action is an Action or an action id, not a bool")
        if isinstance(action, int):
            if not 0 <= action < self.space.size:
                raise IllegalActionError(action, f"action ids run from 0 to {self.space.size - 1}")
            action = self.space.decode(action)
        if not isinstance(action, Action):
            raise IllegalActionError(action, "an action is an Action or an action id")
        try:
            self.space.encode(action)
        except (ValueError, TypeError) as exc:
            raise IllegalActionError(action, str(exc)) from None
        index = self._index
        who = index.get(action.player)
        if who is None:
            raise IllegalActionError(action, f"P{action.player} sits out this round")
        positions = []
        for owner, position in action.positions:
            o = index.get(owner)
            if o is None:
                raise IllegalActionError(action, f"P{owner} sits out this round")
            positions.append((o, position))
        return self._round._coerce(Action(action.kind, who, tuple(positions)))

    def _check(self, action: Action | int) -> int:
        """The round id of ``action``; ``IllegalActionError`` in match seats unless legal."""
        if self._result is not None:
            raise IllegalActionError(action, "the match is over")
        aid = self._round_id(action)
        rnd = self._round
        if not rnd.can_apply(aid):
            raise IllegalActionError(action, rnd._why(aid, self._seats))
        return aid

    def _action_out(self, action: Action) -> Action:
        if self._identity:
            return action
        seats = self._seats
        return Action(
            action.kind, seats[action.player], tuple((seats[o], p) for o, p in action.positions)
        )

    def _event_out(self, event: Event) -> Event:
        seats = self._seats
        return Event(
            event.kind,
            seats[event.player] if event.player >= 0 else event.player,
            tuple((seats[o], p) for o, p in event.positions),
            event.cards,
            None if event.seen_by is None else frozenset(seats[s] for s in event.seen_by),
            event.note,
        )

    def _events_out(self, events: Iterable[Event]) -> list[Event]:
        if self._identity:
            return list(events)
        return [self._event_out(e) for e in events]

    def _result_out(self, res: RoundResult) -> RoundResult:
        seats, n = self._seats, self.players
        hands: list[tuple[HandCard, ...]] = [()] * n
        totals = [0] * n
        scores = [0] * n
        for i, s in enumerate(seats):
            hands[s] = res.hands[i]
            totals[s] = res.totals[i]
            scores[s] = res.scores[i]
        team_totals: tuple[int, ...] = ()
        if res.team_totals:
            tt = [0] * len(self.teams)
            for u, total in enumerate(res.team_totals):
                tt[self._unit[seats[u]]] = total  # round team u holds round seat u
            team_totals = tuple(tt)
        return attrs.evolve(
            res,
            caller=None if res.caller is None else seats[res.caller],
            hands=tuple(hands),
            totals=tuple(totals),
            scores=tuple(scores),
            winners=tuple(sorted(seats[w] for w in res.winners)),
            team_totals=team_totals,
            combination=None if res.combination is None else seats[res.combination],
        )

    def _view_out(self, view: PlayerView) -> PlayerView:
        if self._identity:
            return view
        seats, n = self._seats, self.players

        def seat(r: int | None) -> int | None:
            return None if r is None else seats[r]

        grids: list[tuple[Card | None, ...]] = [()] * n
        present: list[tuple[bool, ...]] = [()] * n
        turns = [0] * n
        for i, s in enumerate(seats):
            grids[s] = view.grids[i]
            present[s] = view.present[i]
            turns[s] = view.turns[i]
        return attrs.evolve(
            view,
            player=seats[view.player],
            players=n,
            current=seats[view.current],
            to_act=seat(view.to_act),
            caller=seat(view.caller),
            grids=tuple(grids),
            present=tuple(present),
            peeked=tuple((seats[o], p) for o, p in view.peeked),
            turns=tuple(turns),
            history=tuple(self._event_out(e) for e in view.history),
            result=None if view.result is None else self._result_out(view.result),
        )

    # ------------------------------------------------------------------ public state
    @property
    def is_over(self) -> bool:
        """Whether the match has ended."""
        return self._result is not None

    @property
    def result(self) -> MatchResult | None:
        """How the match ended, once it is over."""
        return self._result

    @property
    def to_act(self) -> int | None:
        """The match seat whose decision moves the game on (``None`` when it is over)."""
        if self._result is not None:
            return None
        who = self._round.to_act
        return None if who is None else self._seats[who]

    @property
    def reactors(self) -> tuple[int, ...]:
        """Match seats with snap actions now, in the order a driver should ask them."""
        if self._result is not None:
            return ()
        return tuple(self._seats[p] for p in self._round.reactors)

    @property
    def totals(self) -> tuple[int, ...]:
        """Every seat's match total (each partner shows the team's total)."""
        return tuple(self._totals[u] for u in self._unit)

    @property
    def team_totals(self) -> tuple[int, ...]:
        """Each team's match total, in the order of :attr:`teams` (empty without teams)."""
        return tuple(self._totals) if self.rules.teams.size > 1 else ()

    @property
    def eliminated(self) -> tuple[int, ...]:
        """Match seats that are out, in ascending order."""
        return tuple(sorted(s for u in self._out for s in self.teams[u]))

    @property
    def records(self) -> tuple[RoundRecord, ...]:
        """The score table: one record per finished round."""
        return tuple(self._records)

    @property
    def actions(self) -> tuple[Action, ...]:
        """Every action applied so far, in match seats."""
        return tuple(self._actions)

    @property
    def events(self) -> tuple[Event, ...]:
        """The match-level events (dealer choice, round starts and ends, eliminations)."""
        return tuple(self._events)

    # ------------------------------------------------------------------ legality
    def legal_action_ids(self, player: int | None = None) -> list[int]:
        """Ids in :attr:`space` of every legal action, of one seat or of everyone."""
        if self._result is not None:
            return []
        if self._identity:
            return self._round.legal_action_ids(player)
        if player is None:
            out: list[int] = []
            for s in self._seats:
                out.extend(self.legal_action_ids(s))
            return sorted(out)
        r = self._index.get(player)
        if r is None:
            return []
        encode = self.space.encode
        return sorted(encode(self._action_out(a)) for a in self._round.legal_actions(r))

    def legal_actions(
        self,
        player: int | None = None,
        kind: ActionKind | str | Iterable[ActionKind | str] | None = None,
    ) -> list[Action]:
        """Every legal action (in match seats), in a stable order (by id); ``kind``
        keeps only actions of that kind or kinds, as :meth:`cambio.Round.legal_actions`."""
        decode = self.space.decode
        actions = [decode(a) for a in self.legal_action_ids(player)]
        wanted = kinds_wanted(kind)
        if wanted is None:
            return actions
        return [a for a in actions if a.kind in wanted]

    def legal_action_mask(self, player: int) -> list[bool]:
        """A mask over :attr:`space`: ``True`` where ``player`` may act."""
        mask = [False] * self.space.size
        for a in self.legal_action_ids(player):
            mask[a] = True
        return mask

    def can_apply(self, action: Action | int) -> bool:
        """Whether ``action`` (match seats) is legal now."""
        if self._result is not None:
            return False
        try:
            return self._round.can_apply(self._round_id(action))
        except IllegalActionError:
            return False

    def verify(self, action: Action | int) -> None:
        """Raise :class:`~cambio.errors.IllegalActionError` unless ``action`` is legal now.

        The reason names match seats, like everything else of the Match API.
        """
        self._check(action)

    # ------------------------------------------------------------------ apply
    def apply(self, action: Action | int) -> list[Event]:
        """Apply a legal action (match seats); return the events, in match seats.

        When the action ends the round, the round is recorded and the next one dealt (or
        the match ends); the returned events then include the match events and the new
        round's deal. An illegal action raises
        :class:`~cambio.errors.IllegalActionError` and changes nothing.
        """
        aid = self._check(action)
        before = len(self._round.action_ids)
        return self._after(before, self._round.apply(aid))

    def resolve_snaps(self, actions: Iterable[Action | int]) -> list[Event]:
        """Apply snaps declared at the same moment (match seats), as
        :meth:`cambio.Round.resolve_snaps` does; the snaps actually applied are recorded."""
        given = list(actions)
        if self._result is not None:
            raise IllegalActionError(given, "the match is over")
        inner = []
        for action in given:
            aid = self._round_id(action)
            if self._round.space.decode(aid).kind is not ActionKind.SNAP:
                raise IllegalActionError(action, "only snaps can be resolved together")
            inner.append(self._check(action))
        before = len(self._round.action_ids)
        events = self._round.resolve_snaps(inner)
        return self._after(before, events)

    def _after(self, before: int, events: list[Event]) -> list[Event]:
        rnd = self._round
        decode = rnd.space.decode
        for aid in rnd.action_ids[before:]:
            self._actions.append(self._action_out(decode(aid)))
        out = self._events_out(events)
        if rnd.is_over:
            out.extend(self._finish_round())
        return out

    # ------------------------------------------------------------------ between rounds
    def _crosses(self, total: int) -> bool:
        m = self.rules.match
        return total >= m.limit if m.at_limit else total > m.limit

    def _finish_round(self) -> list[Event]:
        res = self._round.result
        assert res is not None
        seats = self._seats
        n = self.players
        m = self.rules.match
        extra = bool(self._tied)
        if not extra:
            self._regular += 1
        number = len(self._records) + 1
        start = len(self._events)
        self._log(Event(MatchEventKind.ROUND_END, note=f"round {number}: {res.reason}"))

        played: list[int] = []  # units, in round order
        unit_score: dict[int, int] = {}
        for i, s in enumerate(seats):
            u = self._unit[s]
            if u not in unit_score:
                unit_score[u] = res.scores[i]
                played.append(u)
        for u in played:
            self._totals[u] += unit_score[u]

        unit_adjust: dict[int, int] = {}
        if m.exact_limit != "none":
            for u in played:
                if self._totals[u] == m.limit and (
                    m.exact_limit == "always" or u not in self._halved
                ):
                    half = m.limit // 2
                    unit_adjust[u] = half - m.limit
                    self._totals[u] = half
                    self._halved.add(u)
                    for s in self.teams[u]:
                        self._log(Event(MatchEventKind.HALVED, s, note=f"{m.limit} -> {half}"))

        out_now: list[int] = []
        if m.end == "elimination" and not extra:
            out_now = [u for u in played if self._crosses(self._totals[u])]
            for u in out_now:
                self._out.append(u)
                for s in self.teams[u]:
                    self._log(Event(MatchEventKind.OUT, s, note=f"total {self._totals[u]}"))

        scores: list[int | None] = [None] * n
        for s in seats:
            scores[s] = unit_score[self._unit[s]]
        self._records.append(
            RoundRecord(
                number=number,
                extra=extra,
                players=seats,
                dealer=self._dealer,
                starter=self._starter,
                scores=tuple(scores),
                adjustments=tuple(unit_adjust.get(self._unit[s], 0) for s in range(n)),
                totals=self.totals,
                out=tuple(sorted(s for u in out_now for s in self.teams[u])),
                result=res,
            )
        )
        logged = self._events[start:]
        # _next logs its match events and returns them with the next round's deal
        return logged + self._next(res, played, out_now)

    def _next(self, res: RoundResult, played: list[int], out_now: list[int]) -> list[Event]:
        """Decide whether the match goes on; deal the next round or end it."""
        m = self.rules.match
        seats = self._seats
        round_winners = sorted({self._unit[seats[w]] for w in res.winners})
        if self._tied:
            self._extra += 1
            if len(round_winners) == 1 or self._extra >= MAX_EXTRA_ROUNDS:
                return self._finish(round_winners, self._tie_reason)
            return self._tie(round_winners, self._tie_reason)
        if m.end == "single":
            return self._finish(round_winners, "single")
        active = [u for u in range(len(self.teams)) if u not in self._out]
        if m.end == "elimination":
            if len(active) == 1:
                return self._finish(active, "last-standing")
            if not active:
                return self._decide(out_now, "all-out")
        elif m.end == "limit":
            if any(self._crosses(self._totals[u]) for u in played):
                return self._decide(active, "limit")
        elif m.end == "rounds" and self._regular >= m.rounds:
            return self._decide(active, "rounds")
        if len(self._records) >= MAX_ROUNDS:
            return self._decide(active, "round-cap")
        return self._start_round(self._seats_of(active), extra=False)

    def _seats_of(self, units: Iterable[int]) -> tuple[int, ...]:
        return tuple(sorted(s for u in units for s in self.teams[u]))

    def _decide(self, candidates: list[int], reason: str) -> list[Event]:
        low = min(self._totals[u] for u in candidates)
        tied = [u for u in candidates if self._totals[u] == low]
        if len(tied) == 1 or self.rules.match.tie == "share":
            return self._finish(tied, reason)
        return self._tie(tied, reason)

    def _tie(self, tied: list[int], reason: str) -> list[Event]:
        self._tied = tuple(tied)
        self._tie_reason = reason
        seats = self._seats_of(tied)
        event = Event(
            MatchEventKind.TIE, note="extra round for " + ", ".join(f"P{s}" for s in seats)
        )
        self._log(event)
        return [event, *self._start_round(seats, extra=True)]

    def _finish(self, units: list[int], reason: str) -> list[Event]:
        winners = self._seats_of(units)
        self._tied = ()
        self._result = MatchResult(
            winners=winners,
            totals=self.totals,
            team_totals=self.team_totals,
            rounds=tuple(self._records),
            reason=reason,
            shared=len(units) > 1,
            extra_rounds=self._extra,
            eliminated=self.eliminated,
        )
        names = ", ".join(f"P{s}" for s in winners)
        event = Event(MatchEventKind.MATCH_END, note=f"{reason}: {names}")
        self._log(event)
        return [event]

    # ------------------------------------------------------------------ house changes
    @property
    def next_rules(self) -> RuleSet:
        """The RuleSet the next round will be dealt with (:attr:`rules` is the current
        round's, until a change made with :meth:`change_rules` takes effect)."""
        return self._next_rules if self._next_rules is not None else self.rules

    def change_rules(self, rules: RuleSet | str) -> list[Event]:
        """Play the match's next rounds under ``rules`` (a RuleSet or a profile name).

        The current round finishes under the rules it was dealt with. The new table must
        seat this match's players, keep its team size and give the same action space;
        otherwise ``ValueError`` says what differs and nothing changes. Returns the
        match event that records the change.
        """
        rules = as_ruleset(rules)
        ensure_valid(rules)
        if self._result is not None:
            raise ValueError("the match is over: there is no next round to change")
        n = self.players
        if not rules.players.min <= n <= rules.players.max:
            raise ValueError(
                f"the {rules.name} table seats {rules.players.min} to {rules.players.max} "
                f"players, not this match's {n}"
            )
        if rules.teams.size != self.rules.teams.size:
            raise ValueError(
                f"the match's teams are fixed: team size {self.rules.teams.size}, "
                f"not {rules.teams.size}"
            )
        space = action_space(
            n,
            rules.grid.max_positions,
            opening_choices(rules.opening.positions, rules.opening.count),
            rules.turn.exchange_equal,
            rules.snap.several,
        )
        shape = (space.positions, space.opening, space.exchange, space.several)
        if shape != (
            self.space.positions,
            self.space.opening,
            self.space.exchange,
            self.space.several,
        ):
            raise ValueError(
                "the new table's actions differ from the match's (grid.rows, grid.extra, "
                "opening.positions, opening.count, turn.exchange_equal and snap.several "
                "must give the same action space)"
            )
        self._next_rules = rules
        self._changes.append((len(self._actions), MatchEventKind.RULES, rules))
        event = Event(MatchEventKind.RULES, note=rules.name)
        self._log(event)
        return [event]

    def redeal(self) -> list[Event]:
        """Abandon the current round and deal it again; the running totals stay.

        The abandoned round's scores never count; the new deal has the same players,
        dealer and starter and a fresh shuffle (a prepared deck is not reused). A rules
        change made with :meth:`change_rules` applies to the new deal. Returns the match
        events and the new round's deal.
        """
        if self._result is not None:
            raise ValueError("the match is over: there is no round to deal again")
        self._changes.append((len(self._actions), MatchEventKind.REDEAL, None))
        event = Event(MatchEventKind.REDEAL, self._dealer, note=f"round {self.round_number}")
        self._log(event)
        extra = bool(self._tied)
        return [event, *self._start_round(self._seats, extra=extra, again=True)]

    # ------------------------------------------------------------------ views
    def view(self, player: int) -> MatchView:
        """What match seat ``player`` may know now: the round's view and the match."""
        if (
            isinstance(player, bool)
            or not isinstance(player, int)
            or not 0 <= player < self.players
        ):
            raise ValueError(f"there is no player {player!r}")
        r = self._index.get(player)
        inner = None if r is None else self._view_out(self._round.view(r))
        return MatchView(
            player=player,
            players=self.players,
            round=inner,
            round_number=self.round_number,
            extra_round=self.extra_round,
            round_seats=self._seats,
            dealer=self._dealer,
            starter=self._starter,
            totals=self.totals,
            team_totals=self.team_totals,
            teams=self.teams,
            eliminated=self.eliminated,
            table=tuple(self._records),
            result=self._result,
        )

    # ------------------------------------------------------------------ copy, save, load
    def copy(self) -> Match:
        """An independent copy: same state, separate future."""
        new = object.__new__(Match)
        d = self.__dict__.copy()
        d["_totals"] = self._totals[:]
        d["_out"] = self._out[:]
        d["_halved"] = set(self._halved)
        d["_records"] = self._records[:]
        d["_round"] = self._round.copy()
        d["_rounds"] = [*self._rounds[:-1], d["_round"]]
        d["_actions"] = self._actions[:]
        if "_ids" in d:
            d["_ids"] = d["_ids"][:]
        d["_events"] = self._events[:]
        d["_index"] = dict(self._index)
        d["_changes"] = self._changes[:]
        new.__dict__.update(d)
        return new

    def _state(self) -> tuple[Any, ...]:
        return (
            self.rules,
            self.players,
            self.seed,
            self.decks,
            self._actions,
            self._events,
            self._records,
            self._totals,
            self._out,
            self._halved,
            self._seats,
            self._dealer,
            self._starter,
            self._tied,
            self._extra,
            self._result,
            self._round,
            self._next_rules,
            self._changes,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Match):
            return NotImplemented
        return self._state() == other._state()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        state = "over" if self._result is not None else f"round {self.round_number}"
        return (
            f"Match(rules={self.rules.name!r}, players={self.players}, seed={self.seed}, "
            f"{state}, totals={list(self.totals)})"
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready record that :meth:`from_dict` replays into an equal match."""
        from .loading import ruleset_to_dict

        return {
            "format": SAVE_FORMAT,
            "rules": self._first_rules_record(),
            "players": self.players,
            "seed": self.seed,
            "decks": [None if d is None else [card_to_json(c) for c in d] for d in self.decks],
            "actions": self._action_ids()[:],  # ids in the match's space
            "changes": [
                {"at": at, "kind": kind, "rules": None if r is None else ruleset_to_dict(r)}
                for at, kind, r in self._changes
            ],
        }

    def _first_rules_record(self) -> dict[str, Any]:
        """``ruleset_to_dict`` of the first round's rules: a fresh dict each time, made
        from text kept from the first call (a server saves a table after every action)."""
        from .loading import ruleset_to_dict

        text = self.__dict__.get("_first_rules_text")
        if text is None:
            text = self.__dict__["_first_rules_text"] = json.dumps(
                ruleset_to_dict(self._first_rules)
            )
        record: dict[str, Any] = json.loads(text)
        return record

    def _action_ids(self) -> list[int]:
        """The actions' ids, encoded once each: a list extended by the actions applied
        since the last call (actions are only ever appended)."""
        ids: list[int] | None = self.__dict__.get("_ids")
        if ids is None:
            ids = self.__dict__["_ids"] = []
        if len(ids) < len(self._actions):
            encode = self.space.encode
            ids.extend([encode(a) for a in self._actions[len(ids) :]])
        return ids

    def to_json(self) -> str:
        """:meth:`to_dict` as compact JSON text (what ``json.dumps`` makes of it with
        compact separators). A server saves a table after every action: the parts that
        never change (the rules, the decks) are encoded once, the actions once each."""
        from .loading import ruleset_to_dict

        compact = (",", ":")
        head: str | None = self.__dict__.get("_json_head")
        if head is None:
            record = {
                "format": SAVE_FORMAT,
                "rules": self._first_rules_record(),
                "players": self.players,
                "seed": self.seed,
                "decks": [None if d is None else [card_to_json(c) for c in d] for d in self.decks],
            }
            head = self.__dict__["_json_head"] = json.dumps(record, separators=compact)[:-1]
        changes = [
            {"at": at, "kind": kind, "rules": None if r is None else ruleset_to_dict(r)}
            for at, kind, r in self._changes
        ]
        return (
            f'{head},"actions":{json.dumps(self._action_ids(), separators=compact)}'
            f',"changes":{json.dumps(changes, separators=compact)}}}'
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Match:
        """Rebuild a saved match by replaying its actions (each checked as it is applied).

        The document is read strictly (no coercion); any problem raises
        :class:`~cambio.errors.SaveError` naming the JSON path of the first one.
        """
        from .saving import load_match

        return load_match(data)

    @classmethod
    def from_json(cls, text: str) -> Match:
        """A match from the JSON text :meth:`to_json` wrote (see :meth:`from_dict`)."""
        from .saving import load_match, parse_json

        return load_match(parse_json(text, "match"))

    @classmethod
    def replay(
        cls,
        rules: RuleSet | str,
        actions: Iterable[Action | int],
        *,
        players: int | None = None,
        seed: int | None = None,
        decks: Sequence[Sequence[Card | str] | None] | None = None,
    ) -> Match:
        """Play ``actions`` (match seats) from the start; the same inputs give an equal match."""
        match = cls(rules, players, seed=seed, decks=decks)
        for a in actions:
            match.apply(a)
        return match
