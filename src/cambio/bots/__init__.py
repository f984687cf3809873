"""Bots: programs that play Cambio from their own view, and the driver that runs them.

* :class:`Bot` -- the protocol: ``reset(seat, rules, seed)``, ``act(view, legal)`` and
  ``react(view, snaps)``. A bot is handed its own :class:`~cambio.views.PlayerView` and
  the actions it may take, never the round.
* :func:`play_round` -- let one bot per seat play a round to its end.
* :class:`RandomBot` -- uniform over the legal actions (the baseline).
* :class:`MemoryBot` -- the fair opponent of the practice page; its knobs are a
  :class:`MemoryBotConfig`.
* :class:`SearchBot` -- determinized Monte Carlo search over the legal actions, with
  playouts by a fast policy; its knobs are a :class:`SearchBotConfig`.
* :func:`make_bot` -- a bot from a name (:data:`BOT_NAMES`) or a factory.

>>> import cambio
>>> from cambio.bots import make_bot, play_round
>>> bots = [make_bot(name) for name in ("memory", "random", "random-nocall")]
>>> played = play_round(cambio.Round(cambio.RuleSet(), players=3, seed=1), bots, seed=1)
>>> played.turns <= played.decisions
True
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import did_you_mean
from .base import Bot, BotError, PlayedRound, derive_seed, play_round
from .memory_bot import MemoryBot, MemoryBotConfig
from .random_bot import RandomBot
from .search_bot import SearchBot, SearchBotConfig

__all__ = [
    "BOT_NAMES",
    "Bot",
    "BotError",
    "BotSpec",
    "MemoryBot",
    "MemoryBotConfig",
    "PlayedRound",
    "RandomBot",
    "SearchBot",
    "SearchBotConfig",
    "derive_seed",
    "make_bot",
    "play_round",
]

BotSpec = str | Callable[[], Bot]
"""A bot by name (see :data:`BOT_NAMES`) or a function that makes a fresh bot."""

BOT_NAMES: dict[str, str] = {
    "memory": "MemoryBot with its default knobs: remembers, estimates, calls when ahead",
    "memory-forgetful": "MemoryBot that forgets a card 8 turns after last seeing it",
    "random": "RandomBot: uniform over the legal actions, calling included",
    "random-nocall": "RandomBot that never calls unless it must",
    "search": "SearchBot: samples the hidden cards, tries each move, plays on (160 playouts)",
}
"""The bot names :func:`make_bot` understands, each with a one-line description."""


def make_bot(spec: BotSpec) -> Bot:
    """A fresh bot from a name in :data:`BOT_NAMES` or from a factory.

    >>> make_bot("random-nocall").never_call
    True
    >>> make_bot("robot")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: unknown bot 'robot' (expected one of: memory, memory-forgetful, random, ...)
    """
    if callable(spec):
        bot = spec()
        if not isinstance(bot, Bot):
            raise TypeError(f"the bot factory {spec!r} returned {bot!r}, which is not a Bot")
        return bot
    name = spec.strip().lower() if isinstance(spec, str) else spec
    if name == "memory":
        return MemoryBot()
    if name == "memory-forgetful":
        return MemoryBot(MemoryBotConfig(memory_turns=8))
    if name == "random":
        return RandomBot()
    if name == "random-nocall":
        return RandomBot(never_call=True)
    if name == "search":
        return SearchBot()
    message = f"unknown bot {spec!r} (expected one of: {', '.join(BOT_NAMES)})"
    hint = did_you_mean(name, BOT_NAMES) if isinstance(name, str) else ""
    raise ValueError(f"{message}; {hint}" if hint else message)
