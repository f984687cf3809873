"""The driver that lets bots play a round: :func:`play_round`.

It is compiled with the engine core in the compiled build (see ``setup.py``), so it
knows the :class:`~cambio.bots.base.Bot` protocol by type only.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, SupportsIndex

import attrs

from ..actions import Action, ActionList, ActionSpace, _check_shape
from ..arguments import Arg, flag, optional_whole, whole
from ..errors import BotError
from ..events import Event
from ..round import Round
from ..scoring import RoundResult

if TYPE_CHECKING:
    from .base import Bot

__all__ = ["Observer", "PlayedRound", "derive_seed", "play_round"]


@attrs.frozen
class PlayedRound:
    """What :func:`play_round` reports: the result and how long the round took.

    ``decisions`` counts every action applied (snaps, gives and power steps included);
    ``turns`` counts completed turns (:attr:`Round.turns_taken`).
    """

    result: RoundResult
    """How the round ended."""
    decisions: int
    """Every action applied, snaps, gives and power steps included."""
    turns: int
    """Completed turns, all seats together."""


Observer = Callable[[Action, Sequence[Event]], None]
"""Called after each applied action with the events it produced (the omniscient record;
use :meth:`Event.as_seen_by` before showing them to a player)."""


def derive_seed(*parts: object) -> int:
    """A stable 63-bit seed from any parts (``derive_seed(seed, game, seat)``).

    The same parts give the same number on every machine and Python version.

    >>> derive_seed(1, 2) == derive_seed(1, 2) != derive_seed(2, 1)
    True
    """
    text = ":".join(repr(p) for p in parts).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") >> 1


def play_round(
    rnd: Arg[Round],
    bots: Sequence[Bot],
    *,
    seed: SupportsIndex | None = None,
    reset: Arg[bool] = True,
    observer: Observer | None = None,
    max_decisions: SupportsIndex = 100_000,
) -> PlayedRound:
    """Let ``bots`` (one per seat, ``bots[i]`` at seat ``i``) play ``rnd`` to its end.

    Before the first decision every bot gets ``reset(seat, rnd.rules, seed_i)`` (unless
    ``reset`` is false), with ``seed_i = derive_seed(seed, seat)``, or ``None`` when
    ``seed`` is ``None``.

    At each decision point the driver:

    1. asks each player in :attr:`Round.reactors`, in that order (seat order starting
       with the player who discarded the top card), ``react(view, its snap actions)``;
       the first snap returned is applied and the driver starts again at 1 (a new
       decision point: after a wrong snap the others may still snap; after a correct
       one the window is closed);
    2. when nobody snapped, asks the bot of :attr:`Round.to_act`
       ``act(view, its legal actions)`` and applies the answer.

    Each applied action counts as one decision; ``observer`` (if given) sees each one
    with its events. A bot that answers with an action it was not offered raises
    :class:`BotError`; so does a round that needs more than ``max_decisions``.
    """
    if not isinstance(rnd, Round):
        raise TypeError(f"rnd must be a Round, got {rnd!r}")
    if isinstance(bots, (str, bytes)) or not isinstance(bots, Sequence):
        raise TypeError(f"bots must be a list of bots, one per seat, got {bots!r}")
    return _play(
        rnd,
        bots,
        optional_whole("seed", seed),
        flag("reset", reset),
        observer,
        whole("max_decisions", max_decisions),
    )


def _play(
    rnd: Round,
    bots: Sequence[Bot],
    seed: int | None,
    reset: bool,
    observer: Observer | None,
    max_decisions: int,
) -> PlayedRound:
    """:func:`play_round` once its arguments are checked."""
    n = rnd.players
    if len(bots) != n:
        raise ValueError(f"the round seats {n} players but {len(bots)} bots were given")
    if reset:
        for seat, bot in enumerate(bots):
            bot.reset(seat, rnd.rules, None if seed is None else derive_seed(seed, seat))
    space = rnd.space
    looks = [_reads_view(bot) for bot in bots]
    # the decode cache and its reverse: a bot's answer is normally the very object it
    # was handed, found here by identity (what _offered does first), without a call
    decoded, decoded_ids = space._decode_cache, space._decoded_ids
    decisions = 0
    while rnd.to_act is not None:  # None once the round is over (an attribute read)
        if decisions >= max_decisions:
            raise BotError(f"the round did not end within {max_decisions} decisions")
        chosen_id = -1
        for p, snap_ids in rnd.reactor_snaps():
            # the actions are decoded only as the bot reads them
            answer = bots[p].react(_view(rnd, p, looks[p]), ActionList(snap_ids, space))
            if answer is None:
                continue
            chosen_id = _offered(answer, space, snap_ids)
            if chosen_id < 0:
                raise BotError(f"bot at seat {p} answered {answer}, which it was not offered")
            break
        if chosen_id < 0:
            who = rnd.to_act
            if who is None:  # pragma: no cover - the round is over
                break
            ids = rnd.legal_action_ids(who)
            if not ids:  # pragma: no cover - an engine invariant
                raise BotError(f"seat {who} must decide but has no legal action")
            view: Any = rnd.view(who) if looks[who] else None  # None: see _view
            chosen = bots[who].act(view, ActionList(ids, space))
            chosen_id = decoded_ids.get(id(chosen), -1)
            if chosen_id < 0 or decoded.get(chosen_id) is not chosen or chosen_id not in ids:
                chosen_id = _offered(chosen, space, ids)
            if chosen_id < 0:
                raise BotError(f"bot at seat {who} answered {chosen}, which is not legal now")
        events = rnd.apply(chosen_id)
        decisions += 1
        if observer is not None:
            known = space._decode_cache.get(chosen_id)
            observer(known if known is not None else space.decode(chosen_id), events)
    result = rnd.result
    assert result is not None
    return PlayedRound(result=result, decisions=decisions, turns=rnd.turns_taken)


_READS_VIEW: dict[type, bool] = {}


def _reads_view(bot: object) -> bool:
    """False only for a bot whose class declares ``needs_view = False`` and whose
    ``act`` and ``react`` come from that class (a subclass that overrides them may read
    the view, so it gets one unless it declares ``needs_view = False`` itself)."""
    klass = type(bot)
    hit = _READS_VIEW.get(klass)
    if hit is None:
        hit = _READS_VIEW[klass] = _class_reads_view(klass)
    return hit


def _class_reads_view(cls: type) -> bool:
    mro = cls.__mro__
    for k, klass in enumerate(mro):
        if "needs_view" in klass.__dict__:
            if klass.__dict__["needs_view"] is not False:
                return True
            return any("act" in c.__dict__ or "react" in c.__dict__ for c in mro[:k])
    return True


def _view(rnd: Round, seat: int, looks: bool) -> Any:
    """``seat``'s view, or ``None`` for a bot that declared ``needs_view = False``
    (typed ``Any``: the protocol types ``view`` as a view, and such a bot reads none)."""
    if looks:
        return rnd.view(seat)
    return None


def _offered(answer: object, space: ActionSpace, ids: Sequence[int]) -> int:
    """The id of ``answer`` if it is one of the actions ``ids`` offered, else -1.

    A bot normally returns one of the objects it was offered; anything else must be a
    well-formed :class:`Action` equal to one of them (``Action(DRAW, 0.0)`` is not).
    """
    if not isinstance(answer, Action):
        return -1
    aid = space.decoded_id(answer)  # the very object the bot was handed
    if aid >= 0 and aid in ids:
        return aid
    try:
        _check_shape(answer)
        aid = space.encode(answer)
    except (ValueError, TypeError):
        return -1
    return aid if aid in ids else -1
