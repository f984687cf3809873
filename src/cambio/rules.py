"""The RuleSet: every choice a Cambio table makes, as frozen, typed data.

A :class:`RuleSet` is grouped by concern (deck, values, grid, opening peek, turn,
powers, snapping, calling, scoring, stock, match, teams). The engine reads only these
fields; no table is special. Profiles in ``variants/`` are TOML files with the same
shape (see :mod:`cambio.loading`).

>>> rules = RuleSet()
>>> rules.grid.size
4
>>> rules.values.of(Card("K", "H"))
-1
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Iterator
from typing import Literal, get_args

import attrs

from .cards import JOKER, STANDARD_RANKS, SUITS, Card, build_deck
from .errors import Problem, RuleSetError

__all__ = [
    "LIMITS",
    "MAX_ACTION_SPACE",
    "MAX_CARDS",
    "MAX_EARLIEST",
    "MAX_EXTENDS",
    "MAX_EXTRA",
    "MAX_FINAL_TURNS",
    "MAX_GRID",
    "MAX_LEGAL_ACTIONS",
    "MAX_OPENING_CHOICES",
    "MAX_PLAYERS",
    "CallRules",
    "Costs",
    "Limit",
    "CombinationRules",
    "DeckRules",
    "GridRules",
    "MatchRules",
    "OpeningRules",
    "PeekScope",
    "PlayerRules",
    "Power",
    "PowerRules",
    "RuleSet",
    "ScoringRules",
    "SnapRules",
    "Step",
    "StockRules",
    "SwapScope",
    "TeamRules",
    "TieBreak",
    "TurnRules",
    "ValueRules",
    "check_rules",
    "ensure_valid",
    "table_costs",
]

PeekScope = Literal["own", "other", "any", "other-not-peeked"]
"""Which card a peek may look at: one of the actor's own, another player's, any card, or
a card of another player whose cards no earlier peek of the same power looked at (a
second peek at a different player than the first). Example: ``steps = [{ action =
"peek", scope = "other" }, { action = "peek", scope = "other-not-peeked" }]``."""

SwapScope = Literal[
    "own-other",
    "any-two",
    "peeked-pair",
    "peeked-any",
    "peeked-own",
    "peeked-other",
    "other-other",
]
"""Which two cards a swap may exchange.

``own-other``: one of the actor's cards with another player's. ``any-two``: any two cards
on the table (two of one player's included). ``peeked-pair``: the two cards peeked by the
two previous peek steps of this power. ``peeked-any`` / ``peeked-own`` /
``peeked-other``: the card just peeked with any other card / one of the actor's own /
one of another player's. ``other-other``: two cards of two different other players,
neither of them the actor's own (a table of two players never offers it).
"""

TieBreak = Literal["caller", "not-caller", "lower-cards", "fewer-cards", "share"]
"""One step of the tie-break chain for the lowest total.

``caller``: if the caller is among the tied, the caller alone wins. ``not-caller``: the
caller drops out of a tie (the others win). ``lower-cards``: compare the tied hands'
card values from the highest down; the hand whose highest card is lower wins, then the
next card, and so on. ``fewer-cards``: fewer cards wins. ``share``: everyone still tied
shares the win (the chain always ends with an implicit share).
"""

_COLOURS = ("any", "red", "black")

MAX_CARDS = 10_000
"""The most cards a table may shuffle (decks times cards per deck); checked by
:func:`check_rules` so that an absurd count is a rule problem, not a memory error."""

MAX_PLAYERS = 12
"""The most seats a table may have (``players.max``)."""
MAX_GRID = 12
"""The most cards a grid may hold (the sum of ``grid.rows``)."""
MAX_EXTRA = 12
"""The most positions beyond the grid (``grid.extra``)."""
MAX_OPENING_CHOICES = 500
"""The most ways to choose the opening peek (``opening.count`` of ``opening.positions``)."""
MAX_FINAL_TURNS = 10
"""The most turns each other player may take after a call (``call.final_turns``)."""
MAX_EARLIEST = 10
"""The most turns each player may be made to wait before anyone may call (``call.earliest``)."""
MAX_EXTENDS = 8
"""The most files that may stand above a loaded one in a chain of ``extends`` (a real
table needs one or two: a house table on a bundled profile that extends another)."""
MAX_ACTION_SPACE = 1_000_000
"""The most action ids a table may have at ``players.max`` seats (see
:class:`~cambio.actions.ActionSpace`): a legal-action mask is a list this long."""
MAX_LEGAL_ACTIONS = 50_000
"""The most legal actions any one decision may offer (the ids a bot must look through)."""


@attrs.frozen
class Limit:
    """One ceiling :func:`check_rules` enforces, for the reference page."""

    key: str
    ceiling: int
    measures: str
    real: str


LIMITS: tuple[Limit, ...] = (
    Limit("players.max", MAX_PLAYERS, "seats at the table", "2 to 6 in every bundled profile"),
    Limit("grid.rows", MAX_GRID, "cards in a grid (the sum of the rows)", "4, or 5 (five-card)"),
    Limit("grid.extra", MAX_EXTRA, "positions beyond the grid", "4"),
    Limit(
        "opening.count",
        MAX_OPENING_CHOICES,
        "ways to choose the opening peek, C(len(opening.positions), opening.count)",
        "0 (no choice) to 2 (one-peek: 1 of 2 positions)",
    ),
    Limit("call.final_turns", MAX_FINAL_TURNS, "turns after a call", "1"),
    Limit("call.earliest", MAX_EARLIEST, "turns before anyone may call", "0"),
    Limit("deck", MAX_CARDS, "cards shuffled (decks times cards per deck)", "52 to 54"),
    Limit(
        "extends",
        MAX_EXTENDS,
        "files above the loaded one in a chain of extends",
        "1 or 2 (a house table on a profile that extends another)",
    ),
    Limit(
        "(action space)",
        MAX_ACTION_SPACE,
        "action ids at players.max seats (the length of a legal-action mask)",
        "2,332 to 9,384",
    ),
    Limit(
        "(legal actions)",
        MAX_LEGAL_ACTIONS,
        "legal actions offered by one decision, at most",
        "321 to 1,424 (a swap of any two cards at 6 players, with snaps)",
    ),
)
"""Every ceiling a table must keep, with what real tables use: each lies well above
what any real table needs and well below what would exhaust memory or time."""


@attrs.frozen
class PlayerRules:
    """How many players the table seats."""

    min: int = 2
    max: int = 6
    default: int = 3


@attrs.frozen
class DeckRules:
    """Which cards are shuffled.

    A standard deck takes ``ranks`` (all thirteen by default) in four suits plus
    ``jokers`` jokers; ``custom`` instead lists suitless ranks with a count each (a
    dedicated numbered deck). ``decks`` repeats the whole thing.
    """

    decks: int = 1
    jokers: int = 0
    ranks: tuple[str, ...] = STANDARD_RANKS
    custom: dict[str, int] = attrs.field(factory=dict)

    def cards(self) -> list[Card]:
        """The unshuffled cards this deck holds."""
        return build_deck(
            decks=self.decks, ranks=self.ranks, jokers=self.jokers, custom=self.custom or None
        )

    def rank_names(self) -> tuple[str, ...]:
        """Every rank this deck holds at least one card of, in deck order.

        A custom rank with a count of 0 is not in the deck.
        """
        if self.custom:
            return tuple(rank for rank, count in self.custom.items() if count > 0)
        return self.ranks + ((JOKER,) if self.jokers > 0 else ())


@attrs.frozen
class ValueRules:
    """Points a card scores in a final grid: by rank, with overrides by colour."""

    rank: dict[str, int] = attrs.field(
        factory=lambda: {
            "A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9,
            "10": 10, "J": 11, "Q": 12, "K": 13, JOKER: 0,
        }
    )  # fmt: skip
    red: dict[str, int] = attrs.field(factory=lambda: {"K": -1})
    black: dict[str, int] = attrs.field(factory=dict)

    def of(self, card: Card) -> int:
        """The points of ``card`` under this table."""
        colour = card.colour
        if colour == "red" and card.rank in self.red:
            return self.red[card.rank]
        if colour == "black" and card.rank in self.black:
            return self.black[card.rank]
        return self.rank[card.rank]


@attrs.frozen
class GridRules:
    """The face-down grid: cards per row, positions numbered row by row from 1."""

    rows: tuple[int, ...] = (2, 2)
    extra: int = 4
    """How many positions beyond the grid a player may hold (penalty and extra cards).
    A player holding that many cannot snap or take another extra card."""

    @property
    def size(self) -> int:
        """Cards dealt to each player: the sum of ``rows``."""
        return sum(self.rows)

    @property
    def max_positions(self) -> int:
        """The most positions a player can have: the grid and its extra positions."""
        return self.size + self.extra


@attrs.frozen
class OpeningRules:
    """The start of a round: the opening peek (``count`` positions chosen from
    ``positions``, no choice when equal) and the card the deal turns face up."""

    positions: tuple[int, ...] = (3, 4)
    count: int = 2
    re_peek: bool = False
    """Once per round, at the start of one's own turn and without using it, look again at
    whatever now lies in the positions of one's opening peek."""
    upcard: bool = True
    """Whether the deal turns the next card face up to start the discard pile. ``false``:
    the pile is empty until the first card is thrown on it, so the first player cannot
    take a discard and nothing can be snapped before then. Example: ``upcard = false``."""


@attrs.frozen
class TurnRules:
    """What a turn may do besides drawing from the stock."""

    take_discard: bool = True
    """May take the top discard instead of drawing; it must then replace a grid card."""
    exchange_equal: bool = False
    """May replace two or more own cards of one rank with a single drawn card."""
    exchange_failure: Literal["keep-drawn", "discard-drawn"] = "keep-drawn"
    """A failed exchange: the named cards stay, turned face up, and the drawn card is kept
    face up as an extra card (``keep-drawn``) or discarded (``discard-drawn``)."""
    max_turns: int = 0
    """End the round after this many turns in all (0: no cap)."""
    open_draw: bool = False
    """The card drawn from the stock is shown to every player as it is drawn (so a power
    it fires is no secret either). Example: ``open_draw = true``."""


@attrs.frozen
class Step:
    """One step of a power: a peek or a swap, with the cards it may reach."""

    action: Literal["peek", "swap"]
    scope: str
    optional: bool = False
    """May be declined even when powers are mandatory."""
    seen: bool = False
    """A swap whose actor looks at both cards as they move (blind when false)."""


@attrs.frozen
class Power:
    """The steps a card grants, by rank and optionally by colour."""

    ranks: tuple[str, ...]
    steps: tuple[Step, ...]
    colour: Literal["any", "red", "black"] = "any"
    name: str = ""

    def matches(self, card: Card) -> bool:
        """Whether ``card`` grants this power (its rank, and its colour where limited)."""
        return card.rank in self.ranks and (self.colour == "any" or card.colour == self.colour)


PRACTICE_POWERS: tuple[Power, ...] = (
    Power(ranks=("7", "8"), steps=(Step("peek", "own"),), name="peek own"),
    Power(ranks=("9", "10"), steps=(Step("peek", "other"),), name="peek another's"),
    Power(ranks=("J", "Q"), steps=(Step("swap", "own-other"),), name="blind swap"),
    Power(
        ranks=("K",),
        colour="black",
        steps=(Step("peek", "any"), Step("swap", "own-other", optional=True)),
        name="peek, then swap",
    ),
)
"""The practice table's powers, the default of :class:`PowerRules`."""


@attrs.frozen
class PowerRules:
    """When powers fire and which card grants which power."""

    timing: Literal["discard", "draw"] = "discard"
    """``discard``: a fresh stock draw that is discarded; ``draw``: as soon as a stock card
    is drawn, before placing or discarding it."""
    optional: bool = True
    swapped_out: bool = False
    """A card replaced out of a grid onto the discard also fires its power."""
    swapped_out_from: Literal["any", "stock"] = "any"
    """With ``swapped_out``, which placed cards let the replaced card fire: ``any`` (a
    stock draw or the card taken from the discard pile), or only a ``stock`` draw.
    Example: ``swapped_out = true`` with ``swapped_out_from = "stock"``."""
    table: tuple[Power, ...] = attrs.field(factory=lambda: PRACTICE_POWERS)

    def power_of(self, card: Card) -> Power | None:
        """The first power of ``table`` that ``card`` grants, or ``None``."""
        for power in self.table:
            if power.matches(card):
                return power
        return None


@attrs.frozen
class SnapRules:
    """Snapping (sticking): throwing a grid card that matches the top discard."""

    when: Literal["never", "own-turn", "any-time", "after-other-discard"] = "never"
    targets: Literal["own", "any"] = "own"
    """``any``: another player's card too; the snapper then gives one own card back."""
    match: Literal["rank", "value"] = "rank"
    several: bool = False
    """Snap every card of the matching rank at once, all or nothing."""
    penalty_cards: int = 1
    penalty_peekable: bool = True
    """May the owner of a penalty card ever look at it (peek powers, re-peek)."""
    penalty_seen_by: Literal["all", "others"] = "all"
    """Who a penalty card may be shown to while it lies in its owner's hand: ``all``
    (whoever the route that shows it reaches), or ``others``: everyone but its owner,
    who learns it only at scoring. With ``others``, a wrong snap of it (by its owner or
    by anyone else) shows it to the other players only (a wrong snap of several cards
    that includes it shows none of them to the owner), and no peek, re-peek or exchange
    of its owner reaches it. Once a swap or a give moves it to another player's hand it
    is an ordinary card of that player; a swap within its owner's hand never moves a
    penalty card from past the grid into the grid (where it would be ordinary). Example:
    ``penalty_seen_by = "others"`` with ``penalty_peekable = false``: a penalty card is
    never looked at by its owner."""
    wrong_seen_by: Literal["all", "snapper", "nobody"] = "all"
    """Who sees the card of a wrong snap of one's own card before it goes back: ``all``,
    the ``snapper`` alone, or ``nobody`` (it goes back unseen). A wrong snap of another
    player's card follows ``wrong_other_seen_by``."""
    wrong_other_seen_by: Literal["as-own", "all", "snapper", "nobody"] = "as-own"
    """Who sees the card of a wrong snap of another player's card: ``as-own`` (the same
    as ``wrong_seen_by``), ``all``, the ``snapper`` alone or ``nobody``. Example: a
    club where a wrong snap of one's own card is shown to all but a wrong guess at
    another's goes back unseen: ``wrong_seen_by = "all"``, ``wrong_other_seen_by =
    "nobody"``."""
    wrong_shown: Literal["all", "unmatched"] = "all"
    """A failed snap of several cards (``several``): every named card is shown, or only
    the ones that do not match (the matching ones go back unseen). Example:
    ``several = true`` with ``wrong_shown = "unmatched"``."""
    arbitration: Literal["first", "seat-order", "random"] = "first"
    dealt_discard: bool = True
    """Whether the card the deal turns face up opens a snapping window like any discard,
    where the table's timing reaches it: on ``any-time`` tables from the deal on (the
    players asked in seat order from the starter), on ``own-turn`` tables by the
    starter during its first turn; ``after-other-discard`` tables cannot snap it (no
    player discarded it). ``false``: the dealt card cannot be snapped. Example:
    ``dealt_discard = false`` for a club where sticking starts with the first turn's
    discard."""
    per_discard: Literal["one", "each"] = "one"
    """How many correct snaps one discard takes: ``one`` (the first correct snap closes
    the window), or ``each``: the window stays open after a correct snap, so every
    player holding a match may snap it in turn, once each, until the top of the pile
    changes (each player still gets one attempt per discard). Example: ``per_discard =
    "each"`` lets two players holding a 7 both snap the discarded 7."""
    too_late: Literal["void", "penalty"] = "void"
    """With ``per_discard = "one"``, a snap of a discard that someone already snapped
    correctly (the race is lost): ``void`` (the window is closed, nothing happens), or
    ``penalty``: the window stays open after the winning snap and any later snap of it,
    those declared at the same moment (``Round.resolve_snaps``) included, counts as a
    wrong snap whatever the card. Example: ``too_late = "penalty"`` with
    ``penalty_cards = 1``: the slower of two correct snappers draws a penalty card."""
    last_discard: bool = False
    """The discard that ends the round (the last turn's, at the end of the final turns,
    the turn cap or an empty stock) may still be snapped before the cards are scored:
    the round waits in phase ``closing`` while the players who may snap it each snap or
    pass. Example: ``last_discard = true``."""
    penalty_position: Literal["after-grid", "first-empty"] = "after-grid"
    """Where a penalty card goes: the first free position ``after-grid`` (numbered from
    the grid size + 1), or the ``first-empty`` position of the hand, a grid position
    emptied by a snap included. Either way it is a penalty card for
    ``penalty_peekable``. Every card past the grid is a penalty card by where it lies; a
    swap within its owner's hand that carries one into the grid keeps it a penalty card
    on ``first-empty`` tables and makes it ordinary on ``after-grid`` tables (where
    ``penalty_seen_by = "others"`` offers no such swap). Example: ``penalty_position =
    "first-empty"``."""
    empty_grid: Literal["call", "win", "end", "nothing"] = "call"
    """A grid emptied by snapping: counts as a call, wins the round at once (scoring
    0), ``end``: ends the round at once with ordinary scoring, or nothing. Example:
    ``empty_grid = "end"``."""
    empty_grid_calls: Literal["at-once", "next-turn"] = "at-once"
    """With ``empty_grid = "call"``, when the emptied hand calls: ``at-once`` (the final
    turns start from the current turn), or at its owner's ``next-turn``, which is then
    spent calling (if the hand is still empty and nobody has called). Example:
    ``empty_grid_calls = "next-turn"``."""


@attrs.frozen
class CallRules:
    """Calling Cambio and what it costs or earns."""

    allowed: bool = True
    timing: Literal["before-draw", "end-of-turn"] = "before-draw"
    earliest: int = 0
    """Each player must have had this many turns before anyone may call."""
    final_turns: int = 1
    """Turns each other player takes after the call. ``0``: the call ends the round at
    once (once the caller's own final turn is over, where ``caller_final_turn`` gives
    it one). Example: ``final_turns = 0``."""
    caller_final_turn: bool = False
    caller_locked: bool = False
    """After the call, the caller's cards cannot be swapped or snapped."""
    caller_locked_peeks: bool = False
    """With ``caller_locked``, no other player's peek may look at the caller's cards
    after the call either. Example: ``caller_locked_peeks = true``."""
    penalty: int = 0
    """Added to the caller's round score when the caller is not lowest."""
    bonus: int = 0
    """Added to the caller's round score when the caller is lowest (negative rewards)."""
    tie_is_lowest: bool = True
    """A caller tied for the lowest total counts as lowest for penalty and bonus."""
    lowest_scores_zero: bool = False
    """A caller who is lowest scores 0 for the round."""


@attrs.frozen
class CombinationRules:
    """A special final grid (for example two 12s and two 13s) that rewrites scores."""

    ranks: tuple[str, ...] = ()
    holder: int = 0
    others: int = 50


@attrs.frozen
class ScoringRules:
    """Turning final grids into round scores."""

    winner_scores_zero: bool = False
    tie_break: tuple[TieBreak, ...] = ("share",)
    combination: CombinationRules | None = None
    placement: dict[str, tuple[int, ...]] = attrs.field(factory=dict)
    """Placement bonuses by the number of players (the key, written as text): the points
    added to the round scores of the best places, lowest total first. A caller tied with
    other players takes the better place; other tied players share the better place.
    Places beyond the list add nothing; a player count without an entry adds nothing.
    With teams, places are the teams'. Added after the winner's zero and the caller's
    penalty or bonus; a ``combination`` still rewrites every score. Example (a
    tournament circuit): ``placement = { 2 = [-3, 0], 4 = [-5, -2, 0, 0] }``."""


@attrs.frozen
class StockRules:
    """What happens when a card must be drawn and the stock is empty."""

    on_empty: Literal["end", "recycle"] = "end"
    recycle_when: Literal["draw", "emptied", "one-left"] = "draw"
    """With ``on_empty = "recycle"``, when the discard pile is shuffled into the stock:
    ``draw`` (the moment a card must be drawn from an empty stock, for a turn or a
    penalty), ``emptied`` (as soon as the stock is empty: at the end of the turn that
    took its last card, or once penalty cards have taken it), or ``one-left`` (at the
    end of any turn that leaves one card or none, the recycled cards going under that
    card; an empty stock is refilled when a draw needs a card, as with ``draw``).
    Example: ``recycle_when = "one-left"``."""


@attrs.frozen
class MatchRules:
    """How rounds add up to a match."""

    end: Literal["single", "elimination", "limit", "rounds"] = "single"
    limit: int = 100
    at_limit: bool = True
    """Reaching the limit exactly counts (``True``: at or over; ``False``: strictly over)."""
    rounds: int = 0
    tie: Literal["share", "extra-round"] = "share"
    exact_limit: Literal["none", "once", "always"] = "none"
    """A total of exactly the limit drops to half of it (once per match, or every time)."""
    first_dealer: Literal["last-seat", "first-seat", "random", "high-card"] = "last-seat"
    """Who deals the first round: ``last-seat`` (the highest seat, so seat 0 starts on a
    left-of-dealer table, as a lone :class:`~cambio.Round` does by default),
    ``first-seat`` (seat 0), a ``random`` seat, or the ``high-card`` of a draw.
    Example: ``first_dealer = "high-card"``."""
    starter: Literal["left-of-dealer", "worst-hand", "first-seat", "last-winner"] = "left-of-dealer"
    """Who starts each round: ``left-of-dealer`` (the turn rotates with the deal),
    ``worst-hand`` (the highest total of the last round), ``first-seat`` (seat 0, or the
    first seat still playing, every round), or ``last-winner`` (the last round's winner,
    the first of several clockwise from the dealer; left of the dealer in the first
    round). Example: ``starter = "last-winner"``."""
    tied_winners: Literal["after-dealer", "lowest-seat"] = "after-dealer"
    """With ``starter = "last-winner"``, which of several tied winners of the last round
    starts the next: the first clockwise ``after-dealer``, or the one in the
    ``lowest-seat`` (with teams, the lowest seat of the winning partners). Example:
    ``tied_winners = "lowest-seat"``."""


@attrs.frozen
class TeamRules:
    """Fixed partnerships: seat ``i`` plays with seats ``i + k * players / size``."""

    size: int = 1


@attrs.frozen
class RuleSet:
    """One Cambio table: every rule the engine reads, grouped by concern.

    Each RuleSet built with defaults gets its own sections (nothing mutable is shared
    between two RuleSets built separately).
    """

    name: str = "custom"
    summary: str = ""
    players: PlayerRules = attrs.field(factory=PlayerRules)
    deck: DeckRules = attrs.field(factory=DeckRules)
    values: ValueRules = attrs.field(factory=ValueRules)
    grid: GridRules = attrs.field(factory=GridRules)
    opening: OpeningRules = attrs.field(factory=OpeningRules)
    turn: TurnRules = attrs.field(factory=TurnRules)
    powers: PowerRules = attrs.field(factory=PowerRules)
    snap: SnapRules = attrs.field(factory=SnapRules)
    call: CallRules = attrs.field(factory=CallRules)
    scoring: ScoringRules = attrs.field(factory=ScoringRules)
    stock: StockRules = attrs.field(factory=StockRules)
    match: MatchRules = attrs.field(factory=MatchRules)
    teams: TeamRules = attrs.field(factory=TeamRules)

    def value(self, card: Card) -> int:
        """What ``card`` counts in a final grid at this table."""
        return self.values.of(card)


RANK_NAME_FORBIDDEN = ", / @ # ! : ; * ="
"""Characters a custom rank's name may not hold: the written-position notation's marks."""


def custom_rank_name_ok(name: str) -> bool:
    """Whether ``name`` can name a custom rank: printable, no spaces, none of the
    notation's marks (:data:`RANK_NAME_FORBIDDEN`), and not ``-``, ``--`` or ``...``."""
    if name in ("-", "--", "...") or not name:
        return False
    forbidden = set(RANK_NAME_FORBIDDEN.replace(" ", ""))
    return all(ch.isprintable() and not ch.isspace() and ch not in forbidden for ch in name)


_PEEK_SCOPES: tuple[str, ...] = get_args(PeekScope)
_SWAP_SCOPES: tuple[str, ...] = get_args(SwapScope)
_TIE_BREAKS: tuple[str, ...] = get_args(TieBreak)


@attrs.frozen
class Costs:
    """What a table costs at ``players.max`` seats, computed without dealing."""

    action_space: int
    """Action ids in all (:attr:`cambio.actions.ActionSpace.size`)."""
    legal_actions: int
    """An upper bound on the legal actions of any one decision."""
    largest: str
    """The key whose decision offers the most legal actions."""


def table_costs(rules: RuleSet) -> Costs:
    """The action space and the most legal actions per decision of ``rules``.

    The table must keep the single-key ceilings on ``players.max``, ``grid.rows`` and
    ``grid.extra`` (:func:`check_rules` checks those first); beyond them this raises
    :class:`ValueError` rather than compute numbers of millions of digits.

    >>> costs = table_costs(RuleSet())
    >>> costs.action_space, costs.legal_actions
    (7482, 321)
    """
    from .actions import space_size

    n = max(1, rules.players.max)
    pos = max(0, rules.grid.size) + max(0, rules.grid.extra)
    if n > MAX_PLAYERS or len(rules.grid.rows) > MAX_GRID or pos > MAX_GRID + MAX_EXTRA:
        raise ValueError("table_costs needs players.max, grid.rows and grid.extra in bounds")
    slots = n * pos
    openings = _opening_choices(rules.opening)
    exchange = rules.turn.exchange_equal
    several = rules.snap.several
    space = space_size(n, pos, openings, exchange, several)
    masks = (1 << pos) - pos - 1 if pos >= 2 else 0
    snap_singles = 0
    if rules.snap.when != "never":
        snap_singles = slots if rules.snap.targets == "any" else pos
    # a turn after drawing: discard, each replacement, each exchange, and the player's
    # own snaps when the snapping window is open during its turn
    turn = {
        "grid.extra": 3 + pos + snap_singles,
        "turn.exchange_equal": masks if exchange else 0,
        "snap.several": masks if several else 0,
    }
    # each kind of decision, by the parts that make up its legal actions
    decisions: list[dict[str, int]] = [{"opening.count": openings}, turn]
    # a power fired by the draw leaves the card in hand: at each of its steps the card
    # may be placed instead (a discard, each replacement, each exchange)
    placing = 0
    if rules.powers.timing == "draw":
        placing = 1 + pos + (masks if exchange else 0)
    for i, power in enumerate(rules.powers.table):
        for k, step in enumerate(power.steps):
            if step.action == "peek":
                count = slots
            elif step.scope == "own-other":
                count = pos * (slots - pos)
            elif step.scope == "any-two":
                count = slots * (slots - 1) // 2
            elif step.scope == "other-other":
                count = (slots - pos) * (slots - pos - 1) // 2
            else:  # a peeked card with one other card
                count = slots
            # a skip, and the actor's own snaps if a window is open during the power
            decisions.append(
                {
                    f"powers.table[{i}].steps[{k}].scope": count + 1,
                    "grid.extra": snap_singles,
                    "snap.several": turn["snap.several"],
                    "powers.timing": placing,
                }
            )
    biggest = max(decisions, key=lambda parts: sum(parts.values()))
    largest = max(biggest, key=lambda key: biggest[key])  # the part that weighs most
    return Costs(space, sum(biggest.values()), largest)


def _opening_choices(o: OpeningRules) -> int:
    n = len(o.positions)
    return math.comb(n, o.count) if 0 < o.count < n else 0


_VALIDATED: dict[int, weakref.ref[RuleSet]] = {}


def ensure_valid(rules: RuleSet) -> None:
    """Raise :class:`~cambio.errors.RuleSetError` if ``rules`` fails :func:`check_rules`.

    The engine calls this for every round; a RuleSet found valid is remembered by
    identity (while it lives), so checking the same object again costs nothing.
    """
    key = id(rules)
    ref = _VALIDATED.get(key)
    if ref is not None and ref() is rules:
        return
    problems = check_rules(rules)
    if problems:
        raise RuleSetError(Problem(rules.name, path, message) for path, message in problems)

    def forget(_ref: weakref.ref[RuleSet]) -> None:
        _VALIDATED.pop(key, None)

    _VALIDATED[key] = weakref.ref(rules, forget)


def check_rules(rules: RuleSet) -> list[tuple[str, str]]:
    """Semantic problems of a structurally valid RuleSet, as ``(dotted.path, message)``.

    An empty list means the table is playable. Every problem is listed, not only the first.
    """
    return list(_problems(rules))


def _negative(path: str, value: int) -> Iterator[tuple[str, str]]:
    if value < 0:
        yield path, f"expected a count of 0 or more, got {value}"


def _ceiling(path: str, value: int, most: int, what: str) -> Iterator[tuple[str, str]]:
    if value > most:
        yield path, f"expected at most {most:,} {what}, got {value:,} (see the limits)"


def _unknown_rank(rank: str) -> str:
    return f"no such rank {rank!r}: not a rank of this deck and not in values.rank"


@attrs.frozen
class _DeckFacts:
    """What several sections' checks need to know about the deck, worked out once."""

    #: the number of cards in all, counted without building them
    n_cards: int
    #: the ranks the deck holds at least one card of
    in_deck: frozenset[str]
    #: the ranks that have no suit (the joker, or every rank of a custom deck)
    suitless: frozenset[str]
    #: every name an entry may use as a rank: the deck kind's ranks and values.rank's keys
    known: frozenset[str]


def _deck_facts(r: RuleSet) -> _DeckFacts:
    """Count the deck's cards and list its ranks, for the checks of every section.

    A rank the deck holds no card of (left out of deck.ranks, a custom count of 0, no
    jokers) is absent. Every entry naming an absent rank -- a value, a colour override,
    a power, a combination -- is judged alike: accepted and unused (a child that drops
    a rank from the deck need not also remove every entry it inherits for it). A name
    that is no rank of the deck's kind (a standard rank or the joker; a key of
    deck.custom) and has no value in values.rank is no rank at all, most likely a
    typo, and is refused.
    """
    d = r.deck
    # Count the cards without building them: an absurd count must not exhaust memory.
    if d.custom:
        per_deck = sum(max(0, n) for n in d.custom.values())
    else:
        per_deck = len(SUITS) * len(d.ranks) + max(0, d.jokers)
    kind = set(d.custom) if d.custom else {*STANDARD_RANKS, JOKER}
    return _DeckFacts(
        n_cards=d.decks * per_deck if d.decks >= 1 else 0,
        in_deck=frozenset(d.rank_names()),
        suitless=frozenset(d.custom) if d.custom else frozenset({JOKER}),
        known=frozenset(kind | set(r.values.rank)),
    )


def _problems(r: RuleSet) -> Iterator[tuple[str, str]]:
    """Every semantic problem of ``r``, section by section in a fixed order.

    The order is part of the behaviour (``cambio validate`` prints the problems as they
    come): players, deck, values, grid and opening peek, the deal, turn, powers,
    snapping, calling, the switches that depend on another section, the table's costs,
    scoring, match and teams.
    """
    facts = _deck_facts(r)
    yield from _problems_players(r)
    yield from _problems_deck(r, facts)
    yield from _problems_values(r, facts)
    yield from _problems_grid(r)
    yield from _problems_opening(r)
    yield from _problems_deal(r, facts)
    yield from _problems_turn(r)
    yield from _problems_powers(r, facts)
    yield from _problems_snap(r)
    yield from _problems_calling(r)
    yield from _problems_dependent(r)
    yield from _problems_costs(r)
    yield from _problems_scoring(r, facts)
    yield from _problems_match(r)
    yield from _problems_teams(r)


def _problems_players(r: RuleSet) -> Iterator[tuple[str, str]]:
    """players: a minimum of 1, a maximum within the ceiling, a default between them."""
    p = r.players
    if p.min < 1:
        yield "players.min", f"expected at least 1 player, got {p.min}"
    if p.max < p.min:
        yield "players.max", f"expected at least players.min ({p.min}), got {p.max}"
    yield from _ceiling("players.max", p.max, MAX_PLAYERS, "players")
    if not p.min <= p.default <= p.max:
        yield "players.default", f"expected a count between {p.min} and {p.max}, got {p.default}"


def _problems_deck(r: RuleSet, facts: _DeckFacts) -> Iterator[tuple[str, str]]:
    """deck: counts, custom rank names or standard ranks listed once, the card ceiling."""
    d = r.deck
    if d.decks < 1:
        yield "deck.decks", f"expected 1 or more decks, got {d.decks}"
    yield from _negative("deck.jokers", d.jokers)
    if d.custom:
        for rank, count in d.custom.items():
            if count < 0:
                yield f"deck.custom.{rank}", f"expected a count of 0 or more, got {count}"
            if not rank:
                yield "deck.custom", "rank names must not be empty"
            elif not custom_rank_name_ok(rank):
                yield (
                    f"deck.custom.{rank}",
                    "a rank name is printed on cards and written in positions: no spaces or "
                    f"control characters, none of {RANK_NAME_FORBIDDEN}, and not - or ...",
                )
    else:
        seen: set[str] = set()
        for i, rank in enumerate(d.ranks):
            if rank not in STANDARD_RANKS:
                yield (
                    f"deck.ranks[{i}]",
                    f"expected one of {', '.join(STANDARD_RANKS)}, got {rank!r}",
                )
            if rank in seen:
                yield f"deck.ranks[{i}]", f"rank {rank!r} is listed twice"
            seen.add(rank)
    if facts.n_cards > MAX_CARDS:
        yield "deck", f"expected at most {MAX_CARDS} cards in all, got {facts.n_cards}"


def _problems_values(r: RuleSet, facts: _DeckFacts) -> Iterator[tuple[str, str]]:
    """values: every rank in the deck has a value; colour overrides name suited ranks."""
    for rank in sorted(facts.in_deck):
        if rank not in r.values.rank:
            yield "values.rank", f"the deck holds {rank!r} but it has no value"
    for table in ("red", "black"):
        for rank in getattr(r.values, table):
            if rank not in facts.known:
                yield f"values.{table}.{rank}", _unknown_rank(rank)
            elif rank in facts.in_deck and rank in facts.suitless:
                yield f"values.{table}.{rank}", f"{rank!r} has no suit, so it is never {table}"


def _problems_grid(r: RuleSet) -> Iterator[tuple[str, str]]:
    """grid: at least one row, rows of 1 or more cards, sizes within the ceilings."""
    g = r.grid
    if not g.rows:
        yield "grid.rows", "expected at least one row"
    if len(g.rows) > MAX_GRID:
        yield "grid.rows", f"expected at most {MAX_GRID} rows, got {len(g.rows):,}"
    else:
        for i, n in enumerate(g.rows):
            if n < 1:
                yield f"grid.rows[{i}]", f"expected 1 or more cards in a row, got {n}"
        yield from _ceiling("grid.rows", g.size, MAX_GRID, "cards in a grid")
    yield from _negative("grid.extra", g.extra)
    yield from _ceiling("grid.extra", g.extra, MAX_EXTRA, "extra positions")


def _problems_opening(r: RuleSet) -> Iterator[tuple[str, str]]:
    """opening: grid positions listed once, a count they can give, a re-peek of a peek."""
    g = r.grid
    o = r.opening
    seen_pos: set[int] = set()
    for i, pos in enumerate(o.positions):
        if not 1 <= pos <= g.size:
            yield (
                f"opening.positions[{i}]",
                f"expected a grid position from 1 to {g.size}, got {pos}",
            )
        if pos in seen_pos:
            yield f"opening.positions[{i}]", f"position {pos} is listed twice"
        seen_pos.add(pos)
    if o.count < 0:
        yield "opening.count", f"expected a count of 0 or more, got {o.count}"
    elif o.count > len(o.positions):
        yield (
            "opening.count",
            f"expected at most {len(o.positions)} (the number of opening.positions), got {o.count}",
        )
    if o.re_peek and o.count == 0:
        yield "opening.re_peek", "a re-peek needs an opening peek (opening.count is 0)"
    if len(o.positions) <= MAX_GRID and 0 <= o.count <= len(o.positions):
        choices = _opening_choices(o)
        yield from _ceiling("opening.count", choices, MAX_OPENING_CHOICES, "opening-peek choices")


def _problems_deal(r: RuleSet, facts: _DeckFacts) -> Iterator[tuple[str, str]]:
    """The deck against the deal: every grid of the most players, a card up, a stock."""
    p, g, o = r.players, r.grid, r.opening
    need = p.max * g.size + 1
    if r.deck.decks >= 1 and facts.n_cards < need:
        start = "start a discard pile" if o.upcard else "leave a stock"
        yield (
            "deck",
            f"{facts.n_cards} cards cannot deal {p.max} players (players.max) {g.size} cards "
            f"each and {start} ({need} needed)",
        )


def _problems_turn(r: RuleSet) -> Iterator[tuple[str, str]]:
    """turn: a turn cap of 0 (none) or more."""
    yield from _negative("turn.max_turns", r.turn.max_turns)


def _problems_powers(r: RuleSet, facts: _DeckFacts) -> Iterator[tuple[str, str]]:
    """powers: known ranks with one power per rank and colour, steps with fitting scopes."""
    owners: dict[tuple[str, str], int] = {}
    for i, power in enumerate(r.powers.table):
        base = f"powers.table[{i}]"
        if not power.ranks:
            yield f"{base}.ranks", "expected at least one rank"
        for j, rank in enumerate(power.ranks):
            if rank not in facts.known:
                yield f"{base}.ranks[{j}]", _unknown_rank(rank)
            elif rank in facts.in_deck and rank in facts.suitless and power.colour != "any":
                yield (
                    f"{base}.ranks[{j}]",
                    f"{rank!r} has no suit, so a {power.colour} power never fires on it",
                )
            for colour in ("red", "black") if power.colour == "any" else (power.colour,):
                key = (rank, colour)
                if key in owners:
                    yield (
                        f"{base}.ranks[{j}]",
                        f"{colour} {rank} already has a power (powers.table[{owners[key]}])",
                    )
                owners[key] = i
        if power.colour not in _COLOURS:
            yield f"{base}.colour", f"expected one of any, red, black, got {power.colour!r}"
        if not power.steps:
            yield f"{base}.steps", "expected at least one step"
        yield from _problems_power_steps(base, power.steps)
    if r.powers.swapped_out_from != "any" and not r.powers.swapped_out:
        yield (
            "powers.swapped_out_from",
            "has no effect unless powers.swapped_out is true",
        )


def _problems_power_steps(base: str, steps: tuple[Step, ...]) -> Iterator[tuple[str, str]]:
    """One power's steps: known peek and swap scopes, a peeked swap after its peeks."""
    peeks = 0
    for k, step in enumerate(steps):
        spath = f"{base}.steps[{k}]"
        if step.action == "peek":
            if step.scope not in _PEEK_SCOPES:
                yield (
                    f"{spath}.scope",
                    f"expected a peek scope ({', '.join(_PEEK_SCOPES)}), got {step.scope!r}",
                )
            if step.seen:
                yield f"{spath}.seen", "only a swap can be seen or blind"
            peeks += 1
        else:
            if step.scope not in _SWAP_SCOPES:
                yield (
                    f"{spath}.scope",
                    f"expected a swap scope ({', '.join(_SWAP_SCOPES)}), got {step.scope!r}",
                )
            elif step.scope == "peeked-pair" and peeks < 2:
                yield f"{spath}.scope", "peeked-pair needs two peek steps before it"
            elif step.scope.startswith("peeked-") and peeks < 1:
                yield f"{spath}.scope", f"{step.scope} needs a peek step before it"


def _problems_snap(r: RuleSet) -> Iterator[tuple[str, str]]:
    """snap: a penalty count of 0 or more, and no switch that cannot take effect."""
    s = r.snap
    yield from _negative("snap.penalty_cards", s.penalty_cards)
    if s.too_late == "penalty" and s.per_discard == "each":
        yield (
            "snap.too_late",
            'a snap is never too late when per_discard is "each" (every match may snap)',
        )
    if s.empty_grid_calls != "at-once" and s.empty_grid != "call":
        yield ("snap.empty_grid_calls", 'has no effect unless snap.empty_grid is "call"')


def _problems_calling(r: RuleSet) -> Iterator[tuple[str, str]]:
    """call: turn counts within 0 and their ceilings, a peek lock only on a locked caller."""
    c = r.call
    yield from _negative("call.earliest", c.earliest)
    yield from _ceiling("call.earliest", c.earliest, MAX_EARLIEST, "turns")
    yield from _negative("call.final_turns", c.final_turns)
    yield from _ceiling("call.final_turns", c.final_turns, MAX_FINAL_TURNS, "final turns")
    if c.caller_locked_peeks and not c.caller_locked:
        yield ("call.caller_locked_peeks", "has no effect unless call.caller_locked is true")


def _problems_dependent(r: RuleSet) -> Iterator[tuple[str, str]]:
    """match.tied_winners and stock.recycle_when, each set only where the other key allows."""
    if r.match.tied_winners != "after-dealer" and r.match.starter != "last-winner":
        yield ("match.tied_winners", 'has no effect unless match.starter is "last-winner"')
    if r.stock.recycle_when != "draw" and r.stock.on_empty != "recycle":
        yield ("stock.recycle_when", 'has no effect unless stock.on_empty is "recycle"')


def _problems_costs(r: RuleSet) -> Iterator[tuple[str, str]]:
    """What the table costs to play, once its size is within the single-key ceilings."""
    p, g = r.players, r.grid
    sized = p.max <= MAX_PLAYERS and len(g.rows) <= MAX_GRID and 0 < g.size <= MAX_GRID
    sized = sized and 0 <= g.extra <= MAX_EXTRA and p.max >= 1
    if not sized:
        return
    costs = table_costs(r)
    flags = [
        k
        for k, on in (
            ("turn.exchange_equal", r.turn.exchange_equal),
            ("snap.several", r.snap.several),
        )
        if on
    ]
    if costs.action_space > MAX_ACTION_SPACE:
        yield (
            flags[0] if flags else "grid.extra",
            f"the table has {costs.action_space:,} action ids at {p.max} players "
            f"(players.max) with {g.max_positions} positions each (grid.rows and "
            f"grid.extra){' and ' + ' and '.join(flags) if flags else ''}; "
            f"at most {MAX_ACTION_SPACE:,} are allowed (see the limits)",
        )
    if costs.legal_actions > MAX_LEGAL_ACTIONS:
        yield (
            costs.largest,
            f"one decision may offer {costs.legal_actions:,} legal actions at {p.max} "
            f"players with {g.max_positions} positions each; at most "
            f"{MAX_LEGAL_ACTIONS:,} are allowed (see the limits)",
        )


def _problems_scoring(r: RuleSet, facts: _DeckFacts) -> Iterator[tuple[str, str]]:
    """scoring: known tie-break steps, placement tables by player count, combination ranks."""
    for i, tie_step in enumerate(r.scoring.tie_break):
        if tie_step not in _TIE_BREAKS:
            yield (
                f"scoring.tie_break[{i}]",
                f"expected a tie-break step ({', '.join(_TIE_BREAKS)}), got {tie_step!r}",
            )
    for places, bonuses in r.scoring.placement.items():
        at = f"scoring.placement.{places}"
        if not places.isdigit() or not places.isascii() or int(places) < 1:
            yield at, f"expected a number of players (1 or more) as the key, got {places!r}"
        elif len(bonuses) > int(places):
            yield at, f"expected at most {places} places for {places} players, got {len(bonuses)}"
    combo = r.scoring.combination
    if combo is not None:
        if not combo.ranks:
            yield "scoring.combination.ranks", "expected at least one rank"
        for i, rank in enumerate(combo.ranks):
            if rank not in facts.known:
                yield f"scoring.combination.ranks[{i}]", _unknown_rank(rank)


def _problems_match(r: RuleSet) -> Iterator[tuple[str, str]]:
    """match: a positive limit where one ends the match, a round count that fits the end."""
    m = r.match
    if m.end in ("elimination", "limit") and m.limit <= 0:
        yield "match.limit", f"expected a positive limit, got {m.limit}"
    if m.end == "rounds" and m.rounds < 1:
        yield "match.rounds", f"expected 1 or more rounds for a fixed-length match, got {m.rounds}"
    else:
        yield from _negative("match.rounds", m.rounds)


def _problems_teams(r: RuleSet) -> Iterator[tuple[str, str]]:
    """teams: a size of 1 (none) or more, dividing every player count the table allows."""
    p, t = r.players, r.teams
    if t.size < 1:
        yield "teams.size", f"expected 1 (no teams) or more, got {t.size}"
    elif t.size > 1:
        if p.min % t.size or p.max % t.size:
            yield (
                "teams.size",
                f"players.min and players.max must be multiples of the team size {t.size}",
            )
        if p.default % t.size:
            yield "players.default", f"expected a multiple of the team size {t.size}"
