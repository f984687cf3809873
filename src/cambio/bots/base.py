"""The bot protocol; the driver that lets bots play a round (in :mod:`cambio.bots.driver`).

A bot decides from two things only: its own :class:`~cambio.views.PlayerView` and the
list of actions it may take. It is never handed the :class:`~cambio.round.Round`, so it
cannot read hidden cards, the stock or another player's view.

>>> import cambio
>>> from cambio.bots import MemoryBot, RandomBot, play_round
>>> rnd = cambio.Round(cambio.RuleSet(), players=3, seed=11)
>>> played = play_round(rnd, [MemoryBot(), RandomBot(1), RandomBot(2)], seed=5)
>>> played.result.reason in ("call", "stock")
True
>>> played.decisions == len(rnd.actions)
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from ..actions import Action
from ..errors import BotError
from ..rules import RuleSet
from ..views import PlayerView
from .driver import Observer, PlayedRound, _reads_view, derive_seed, play_round

__all__ = ["Bot", "BotError", "Observer", "PlayedRound", "_reads_view", "derive_seed", "play_round"]


@runtime_checkable
class Bot(Protocol):
    """A player program: it sees one :class:`PlayerView` at a time and picks an action.

    The driver (:func:`play_round`) calls :meth:`reset` once before a round, then, at each
    decision point, :meth:`react` when the bot may snap the top discard and :meth:`act`
    when the round waits for the bot's decision.
    """

    # A bot may also declare ``needs_view = False`` (a class attribute): it promises to
    # read neither argument ``view`` of act/react, and the driver then passes ``None``
    # instead of building a view for every decision (the random bot does this). A
    # subclass that overrides act or react gets views again unless it declares it too.

    def reset(self, seat: int, rules: RuleSet, seed: int | None) -> None:
        """Forget the previous round: the bot now sits at ``seat`` at a ``rules`` table.

        ``seed`` (when not ``None``) re-seeds any randomness the bot uses, so the same
        seed gives the same decisions.
        """

    def act(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        """Choose one of ``legal`` (never empty): the bot's decision moves the round on.

        ``legal`` holds every action the bot may take now, its own snap actions
        included when a discard is open to snapping (bots may snap here as well as in
        :meth:`react`).
        """

    def react(self, view: PlayerView, snaps: Sequence[Action]) -> Action | None:
        """A reaction window is open: return one of ``snaps`` to snap, or ``None``."""
