"""Reaction windows as ordinary turns: one player decides at a time.

The engine lets several players snap at the same moment (:attr:`cambio.Round.reactors`
beside :attr:`cambio.Round.to_act`). Frameworks with one actor per step cannot say
that, so :class:`Turns` asks the players one by one, as the bundled bot driver does:

1. each player in ``reactors`` (seat order from the player who discarded the top card,
   which is the order the table's arbitration settles simultaneous snaps in when it is
   ``first`` or ``seat-order``; under ``random`` arbitration the order is shuffled by a
   seeded generator per decision point) gets a *reaction turn*: its snap actions plus
   :data:`DECLINE`, the one action id past the table's space;
2. the first snap taken is applied, and the asking starts again at the new decision
   point;
3. when every reactor declined, ``to_act`` decides with its legal actions (its snaps
   included).

The wrapped game is a :class:`cambio.Round` or a :class:`cambio.Match` (the same API);
once wrapped, it must change only through :meth:`Turns.step` (the actor is kept).

>>> import cambio
>>> t = Turns(cambio.Round("practice", 2, seed=0))
>>> t.actor, t.reacting
(0, False)
"""

from __future__ import annotations

import random
from typing import Protocol

from ..actions import ActionSpace
from ..events import Event

__all__ = ["Game", "Turns", "decline_id"]


class Game(Protocol):
    """What :class:`Turns` needs of a round or a match."""

    space: ActionSpace

    @property
    def to_act(self) -> int | None: ...

    @property
    def reactors(self) -> tuple[int, ...]: ...

    @property
    def is_over(self) -> bool: ...

    def legal_action_ids(self, player: int | None = None) -> list[int]: ...

    def apply(self, action: int) -> list[Event]: ...

    def copy(self) -> Game: ...


def decline_id(space: ActionSpace) -> int:
    """The id of "do not snap" for ``space``: one past the table's own ids."""
    return space.size


class Turns:
    """Who decides now, and with which action ids, over a round or a match."""

    def __init__(self, game: Game, *, shuffle_seed: int | None = None) -> None:
        self.game = game
        self.space = game.space
        self.decline = decline_id(game.space)
        self._arbitration = getattr(getattr(game, "rules", None), "snap", None)
        self._seed = shuffle_seed
        self._points = 0
        self._declined: set[int] = set()
        self._queue: tuple[int, ...] = ()
        self._actor: int | None = None
        self._legal: list[int] | None = None
        self._refresh()

    def copy(self) -> Turns:
        """An independent copy, over a copy of the game (for search)."""
        new = object.__new__(Turns)
        new.__dict__.update(self.__dict__)
        new.game = self.game.copy()
        new._declined = set(self._declined)
        return new

    def _refresh(self) -> None:
        game = self.game
        self._legal = None
        if game.is_over:
            self._queue = ()
            self._actor = None
            return
        reactors = list(game.reactors)
        snap = self._arbitration
        if snap is not None and snap.arbitration == "random" and len(reactors) > 1:
            random.Random(f"{self._seed}:{self._points}").shuffle(reactors)
        snaps = self.space.snap_flags
        self._queue = tuple(p for p in reactors if any(snaps[a] for a in game.legal_action_ids(p)))
        self._actor = self._find_actor()

    @property
    def reacting(self) -> bool:
        """Whether the decision now is a reaction turn (snap or decline)."""
        return any(p not in self._declined for p in self._queue)

    @property
    def actor(self) -> int | None:
        """The player who decides now (``None`` once the game is over)."""
        return self._actor

    def _find_actor(self) -> int | None:
        if self.game.is_over:
            return None
        for p in self._queue:
            if p not in self._declined:
                return p
        return self.game.to_act

    def legal(self) -> list[int]:
        """The ids the actor may choose now, ascending (:attr:`decline` in a reaction turn)."""
        if self._legal is None:
            who = self._actor
            if who is None:
                self._legal = []
            else:
                ids = self.game.legal_action_ids(who)
                if self.reacting:
                    flags = self.space.snap_flags
                    ids = [*(a for a in ids if flags[a]), self.decline]
                self._legal = ids
        return list(self._legal)

    def step(self, action: int) -> list[Event]:
        """Apply the actor's choice; ``ValueError`` if it is not one of :meth:`legal`."""
        if action not in self.legal():
            raise ValueError(f"action {action} is not legal now")
        who = self.actor
        assert who is not None
        if action == self.decline:
            self._declined.add(who)
            self._legal = None
            self._actor = self._find_actor()
            return []
        events = self.game.apply(action)
        self._points += 1
        self._declined = set()
        self._refresh()
        return events
