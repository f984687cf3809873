"""The other seats of a single-learner environment: bots or policies, asked as the bot
driver asks them.

An opponent is one of:

* a bot name (:data:`cambio.bots.BOT_NAMES`), or a bot class: a fresh bot per seat;
* a :class:`~cambio.bots.Bot`: that bot at the first other seat, a deep copy of it at
  each further one;
* a *policy*, any other callable ``policy(view, legal) -> id``: ``view`` is the seat's
  :class:`~cambio.views.PlayerView`, ``legal`` the ids it may choose now (the
  :class:`~cambio.rl.Turns` ids: in a reaction turn its snaps and the decline id);
* a list of the above, one per other seat in seat order (the learner's seat skipped).

A bot is asked as :func:`cambio.bots.play_round` asks it: ``react(view, snaps)`` in a
reaction turn (``None`` declines), ``act(view, legal)`` when the round waits for it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

from ..actions import ActionList
from ..bots import Bot, BotError, make_bot
from ..bots.driver import _offered, _reads_view
from ..round import Round
from ..rules import RuleSet
from ..views import PlayerView
from .turns import Turns

__all__ = ["Opponent", "OpponentSpec", "Policy", "opponents_for"]

Policy: TypeAlias = Callable[[PlayerView, list[int]], int]
"""A policy for an opponent seat: its view and legal ids in, the chosen id out."""

OpponentSpec: TypeAlias = str | Bot | type | Policy | Sequence[Any]
"""What ``opponents=`` takes (see the module's documentation)."""


class Opponent:
    """One opponent seat: a bot, or a policy."""

    def __init__(self, player: Bot | Policy) -> None:
        self.bot: Bot | None = None
        self.policy: Policy | None = None
        if isinstance(player, Bot):
            self.bot = player
        else:
            self.policy = player
        self._looks = True if self.bot is None else _reads_view(self.bot)
        self.seat = -1

    def __repr__(self) -> str:
        return f"Opponent({self.bot if self.bot is not None else self.policy!r})"

    def reset(self, seat: int, rules: RuleSet, seed: int) -> None:
        """A new round at ``seat``: a bot is reset with the seed."""
        self.seat = seat
        if self.bot is not None:
            self.bot.reset(seat, rules, seed)

    def choose(self, game: Round, turns: Turns) -> int:
        """The id this seat chooses now (it must be :attr:`Turns.actor`)."""
        seat = self.seat
        legal = turns.legal()
        view: Any = game.view(seat) if self._looks else None
        if self.policy is not None:
            answer = self.policy(view, legal)
            if isinstance(answer, bool) or not isinstance(answer, int) or answer not in legal:
                raise BotError(f"the policy at seat {seat} answered {answer!r}, not one of {legal}")
            return answer
        bot = self.bot
        assert bot is not None
        space = turns.space
        if turns.reacting:
            snaps = legal[:-1]  # the decline id is last
            chosen = bot.react(view, ActionList(snaps, space))
            if chosen is None:
                return turns.decline
            aid = _offered(chosen, space, snaps)
            if aid < 0:
                raise BotError(f"bot at seat {seat} answered {chosen}, which it was not offered")
            return aid
        chosen = bot.act(view, ActionList(legal, space))
        aid = _offered(chosen, space, legal)
        if aid < 0:
            raise BotError(f"bot at seat {seat} answered {chosen}, which is not legal now")
        return aid


def _one(spec: Any, where: str) -> Bot | Policy:
    if isinstance(spec, str) or (isinstance(spec, type) and issubclass(spec, Bot)):
        return make_bot(spec)
    if isinstance(spec, type):
        raise TypeError(f"{where}: {spec!r} is a class but not a bot class")
    if isinstance(spec, Bot):
        return spec
    if callable(spec):
        policy: Policy = spec
        return policy
    raise TypeError(
        f"{where}: expected a bot name, a Bot, a bot class or a policy "
        f"(a callable taking the view and the legal ids), got {spec!r}"
    )


def opponents_for(spec: OpponentSpec, seat: int, players: int) -> list[Opponent | None]:
    """One :class:`Opponent` per seat other than ``seat`` (``None`` there)."""
    others = [s for s in range(players) if s != seat]
    specs: list[Any]
    if isinstance(spec, (list, tuple)):
        if len(spec) != len(others):
            raise ValueError(
                f"opponents: {len(others)} other seats but {len(spec)} opponents were given"
            )
        specs = list(spec)
        made = [_one(s, f"opponents[{k}]") for k, s in enumerate(specs)]
    else:
        first = _one(spec, "opponents")
        made = [first]
        for _ in others[1:]:
            if isinstance(spec, (str, type)):
                made.append(_one(spec, "opponents"))
            elif isinstance(first, Bot):
                made.append(copy.deepcopy(first))
            else:
                made.append(first)  # a policy is shared
    out: list[Opponent | None] = [None] * players
    for s, player in zip(others, made, strict=True):
        out[s] = Opponent(player)
    return out
