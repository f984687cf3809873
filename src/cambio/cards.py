"""Cards, ranks, suits and deck building.

A :class:`Card` is a rank and a suit. Standard decks use the ranks ``A 2 ... 10 J Q K``
in the four French suits plus optional ``Joker`` cards; a custom deck (such as a
dedicated deck numbered 0 to 13) uses any rank names and no suit.

>>> Card("K", "H").colour
'red'
>>> str(Card("10", "S"))
'10S'
>>> Card.parse("QD")
Card(rank='Q', suit='D')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import SupportsIndex

import attrs

from .arguments import Arg, whole
from .arguments import text as text_argument

__all__ = [
    "JOKER",
    "RED_SUITS",
    "STANDARD_RANKS",
    "SUITS",
    "Card",
    "build_deck",
    "card_from_json",
    "card_to_json",
]

STANDARD_RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
"""The thirteen ranks of a French-suited deck, low to high."""

JOKER = "Joker"
"""The rank name of a joker."""

SUITS: tuple[str, ...] = ("S", "H", "D", "C")
"""Spades, hearts, diamonds, clubs."""

RED_SUITS = frozenset({"H", "D"})

_SUIT_SYMBOLS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}


@attrs.frozen(order=True)
class Card:
    """One physical card: a rank and a suit (``""`` for jokers and suitless decks)."""

    rank: str
    """The rank as the table names it (``"A"``, ``"10"``, ``"K"``, ``"Joker"``, or a custom
    deck's rank name)."""
    suit: str = ""
    """``"S"``, ``"H"``, ``"D"`` or ``"C"``, or ``""`` for a joker or a suitless deck."""

    @property
    def colour(self) -> str:
        """``"red"``, ``"black"``, or ``""`` for a card without a suit."""
        if not self.suit:
            return ""
        return "red" if self.suit in RED_SUITS else "black"

    def __str__(self) -> str:
        return f"{self.rank}{self.suit}"

    def pretty(self) -> str:
        """The card with a suit symbol, as shown in the terminal: ``K\u2665``."""
        return f"{self.rank}{_SUIT_SYMBOLS.get(self.suit, '')}"

    @classmethod
    def parse(cls, text: Arg[str]) -> Card:
        """Read a card written as rank then suit letter (``"10H"``, ``"KS"``, ``"Joker"``).

        A text without a trailing suit letter is a suitless card (``"Joker"``, ``"13"``).
        """
        written = text_argument("text", text).strip()
        if not written:
            raise ValueError("empty card text")
        if len(written) >= 2 and written[-1] in SUITS and written[:-1] != "":
            return cls(written[:-1], written[-1])
        return cls(written, "")


def build_deck(
    *,
    decks: SupportsIndex = 1,
    ranks: Sequence[str] = STANDARD_RANKS,
    jokers: SupportsIndex = 0,
    custom: Mapping[str, int] | None = None,
) -> list[Card]:
    """The cards of a deck in a fixed, documented order (before any shuffle).

    A standard deck lists each rank in suit order ``S H D C``, then the jokers; ``decks``
    repeats it. A ``custom`` deck maps suitless rank names to a count per deck.

    >>> len(build_deck())
    52
    >>> len(build_deck(jokers=2, decks=2))
    108
    >>> build_deck(custom={"0": 2, "1": 1})
    [Card(rank='0', suit=''), Card(rank='0', suit=''), Card(rank='1', suit='')]
    """
    copies, joker_count = whole("decks", decks), whole("jokers", jokers)
    one: list[Card] = []
    if custom:
        for rank, count in custom.items():
            one.extend(Card(rank, "") for _ in range(count))
    else:
        for rank in ranks:
            one.extend(Card(rank, suit) for suit in SUITS)
        one.extend(Card(JOKER, "") for _ in range(joker_count))
    return one * copies


def card_to_json(card: Arg[Card]) -> list[str]:
    """A card as ``[rank, suit]`` for saved files: exact for any rank name.

    >>> card_to_json(Card("1H"))
    ['1H', '']
    """
    if not isinstance(card, Card):
        raise TypeError(f"card must be a Card, got {card!r}")
    return [card.rank, card.suit]


def card_from_json(value: object) -> Card:
    """The card :func:`card_to_json` wrote; ``ValueError`` for anything else."""
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(x, str) for x in value)
        or (value[1] != "" and value[1] not in SUITS)
    ):
        raise ValueError(f"expected a card as [rank, suit], found {value!r}")
    return Card(value[0], value[1])
