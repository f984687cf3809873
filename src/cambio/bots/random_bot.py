"""A bot that picks uniformly among its legal actions: the baseline every bot must beat.

>>> import cambio
>>> from cambio.bots import RandomBot, play_round
>>> rnd = cambio.Round(cambio.RuleSet(), players=2, seed=3)
>>> play_round(rnd, [RandomBot(1), RandomBot(2, never_call=True)]).decisions > 0
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar, SupportsIndex

if TYPE_CHECKING:
    from _typeshed import IdentityFunction

from ..actions import Action, ActionKind, ActionList
from ..arguments import Arg, flag, number, optional_whole, whole
from ..rules import RuleSet
from ..views import PlayerView

try:  # mypyc reads the decorator at compile time; without mypy it does nothing
    from mypy_extensions import mypyc_attr
except ImportError:  # pragma: no cover - the pure build without mypy installed

    def mypyc_attr(*attrs: str, **kwattrs: object) -> IdentityFunction:
        return lambda cls: cls


__all__ = ["RandomBot"]


@mypyc_attr(allow_interpreted_subclasses=True)
class RandomBot:
    """Uniform over the legal actions, with two knobs.

    ``act`` picks uniformly among the legal actions other than snaps (snapping is
    decided in ``react``). With ``never_call`` it never picks a call unless calling is
    the only thing it can do.

    ``react``: each time the bot is offered snaps it snaps with probability
    ``snap_rate`` (a guess, so usually wrong), choosing uniformly among the offered
    snaps; otherwise it lets the discard go.

    ``seed`` seeds its random choices; :meth:`reset` with a seed re-seeds them.

    It reads no view (``needs_view = False``), so :func:`~cambio.bots.play_round` does
    not build one for it.
    """

    needs_view: ClassVar[bool] = False

    def __init__(
        self,
        seed: Arg[int | float | str | bytes | bytearray | None] = None,
        *,
        never_call: Arg[bool] = False,
        snap_rate: Arg[float] = 0.02,
    ) -> None:
        if not isinstance(seed, (int, float, str, bytes, bytearray)) and seed is not None:
            raise TypeError(f"seed must be a number, a text or None, got {seed!r}")
        never_call = flag("never_call", never_call)
        snap_rate = number("snap_rate", snap_rate)
        if not 0.0 <= snap_rate <= 1.0:
            raise ValueError(f"snap_rate must be between 0 and 1, got {snap_rate!r}")
        self.never_call = never_call
        """Never call Cambio unless calling is the only legal action."""
        self.snap_rate = snap_rate
        """The chance of snapping each time snaps are offered (from 0 to 1)."""
        self.seat = -1
        """The seat the bot plays this round (-1 before :meth:`reset`)."""
        self._rng = random.Random(seed)

    def __repr__(self) -> str:
        return f"RandomBot(never_call={self.never_call}, snap_rate={self.snap_rate})"

    def reset(self, seat: SupportsIndex, rules: RuleSet, seed: SupportsIndex | None) -> None:
        """Start a round at ``seat``; a ``seed`` re-seeds the random choices."""
        del rules  # a random player needs no rules
        self.seat = whole("seat", seat)
        seed = optional_whole("seed", seed)
        if seed is not None:
            self._rng.seed(seed)  # as a fresh random.Random(seed), without making one

    def act(self, view: Arg[PlayerView] | None, legal: Sequence[Action]) -> Action:
        """A uniformly random legal action other than a snap (a call only if allowed).

        The view is not read (whatever is passed, in both builds); ``legal`` must offer
        at least one action (``ValueError`` otherwise)."""
        del view
        choices: Sequence[Action]
        if isinstance(legal, ActionList) and not self.never_call:
            choices = legal.without_snaps() or legal  # no need to decode every snap
        elif isinstance(legal, ActionList):
            # snaps and calls told apart by id: only the chosen action is decoded (the
            # same choices, in the same order, as the kinds of the decoded actions give)
            space = legal._space
            snaps, calls = space.snap_flags, space.call_flags
            ids = [a for a in legal.ids if not snaps[a]] or list(legal.ids)
            ids = [a for a in ids if not calls[a]] or ids
            aid = ids[self._below(len(ids))]
            known = space._decode_cache.get(aid)
            return known if known is not None else space.decode(aid)
        else:
            choices = [a for a in legal if a.kind is not ActionKind.SNAP] or list(legal)
        if self.never_call:
            choices = [a for a in choices if a.kind is not ActionKind.CALL] or choices
        return choices[self._below(len(choices))]

    def _below(self, n: int) -> int:
        """``self._rng.randrange(n)`` for ``n > 0``: the very draws the standard library
        makes (``getrandbits`` of ``n``'s bit length, again while too large), without its
        argument checks and two Python calls (the compiled build runs this as C)."""
        if n <= 0:  # (getrandbits(0) is 0, so the loop below would never end)
            raise ValueError("no legal action to choose from")
        getrandbits = self._rng.getrandbits
        k = n.bit_length()
        r = getrandbits(k)
        while r >= n:
            r = getrandbits(k)
        return r

    def react(self, view: Arg[PlayerView] | None, snaps: Sequence[Action]) -> Action | None:
        """With probability ``snap_rate``, one of ``snaps`` at random; else ``None``."""
        del view
        if not snaps or self._rng.random() >= self.snap_rate:
            return None
        return snaps[self._below(len(snaps))]
