"""Cambio as a PettingZoo ``AECEnv``: one agent acts at a time, snaps included.

>>> from cambio.rl import env
>>> e = env(variant="practice", players=3)
>>> e.reset(seed=1)
>>> e.agent_selection
'player_0'
>>> obs, reward, terminated, truncated, info = e.last()
>>> sorted(obs), obs["action_mask"].sum()
(['action_mask', 'observation'], np.int64(3))

Agents are ``player_0`` .. ``player_{n-1}`` (seats). Actions are the table's action ids
(:class:`cambio.ActionSpace`) plus one more, ``DECLINE`` (``space.size``), the answer "I do
not snap" in a reaction turn (see :mod:`cambio.rl.turns` for how reaction windows become
turns). The observation is a dict: ``observation``, the :class:`~cambio.rl.Encoder` vector
of the agent's view, and ``action_mask`` (``int8``), the ids the agent may choose now
(all zero when it is not the agent's decision). With ``flat=True`` the observation is
one ``float32`` ``Box`` instead: the vector followed by the mask as 0.0/1.0 (from
``mask_offset``), which observation wrappers that want a ``Box`` (SuperSuit's) accept;
every agent's info then holds its mask as ``action_mask`` too.

Rewards (``reward=``): ``"win"`` (default) gives each winner of the round an equal share
of 1 when it ends (of the match, in match mode); ``"score"`` gives every player minus its
round score at the end of each round. ``match=True`` plays the table's whole match
(:class:`cambio.Match`) instead of one round. ``max_turns`` caps every round's turns
(the lower of it and the table's own cap); a round that reaches the cap is scored as it
stands, so the episode ends by termination, never truncation.
"""

from __future__ import annotations

import random
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..loading import load_ruleset
from ..match import Match
from ..play import board_text
from ..round import Round
from ..rules import RuleSet
from ..views import PlayerView
from .encoding import Encoder
from .spaces import rules_with_cap, table_spaces
from .turns import Turns

__all__ = ["REWARDS", "env", "raw_env"]

REWARDS = ("win", "score")
"""The reward options."""

RENDER_MODES = ("human", "ansi")
"""The render modes (``None`` renders nothing)."""


def env(**kwargs: Any) -> AECEnv:
    """The environment wrapped as PettingZoo's classic games are (illegal moves end it)."""
    inner = raw_env(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(inner, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


class raw_env(AECEnv):  # type: ignore[misc]  # PettingZoo names it so; AECEnv is untyped
    """One round (or match) of Cambio at any table, as an AEC environment."""

    metadata = {  # noqa: RUF012 - PettingZoo reads it from the class
        "render_modes": list(RENDER_MODES),
        "name": "cambio_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        variant: str | RuleSet = "practice",
        players: int | None = None,
        *,
        reward: str = "win",
        match: bool = False,
        max_turns: int | None = None,
        render_mode: str | None = None,
        flat: bool = False,
    ) -> None:
        super().__init__()
        if not isinstance(flat, bool):
            raise TypeError(f"flat must be True or False, got {flat!r}")
        self.flat = flat
        rules = variant if isinstance(variant, RuleSet) else load_ruleset(variant)
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, got {reward!r}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be 'human', 'ansi' or None, got {render_mode!r}")
        self.rules = rules_with_cap(rules, max_turns)
        n = rules.players.default if players is None else players
        self.encoder = Encoder(self.rules, n)  # checks the seat count
        self.players = n
        self.reward_mode = reward
        self.match_mode = match
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents = self.possible_agents[:]
        self.decline = self.encoder.space.size
        self.mask_offset = self.encoder.size
        """Where the mask starts in a flat observation."""
        obs_space, act_space = table_spaces(self.encoder, flat)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self._rng = random.Random()
        self._game: Round | Match | None = None
        self._turns: Turns | None = None
        self._records = 0

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ the game
    @property
    def game(self) -> Round | Match:
        """The round or match being played (omniscient: for drivers and tests, not agents)."""
        if self._game is None:
            raise RuntimeError("call reset() before using the environment")
        return self._game

    def _seat(self, agent: str) -> int:
        return self.possible_agents.index(agent)

    def _view(self, seat: int) -> PlayerView | None:
        game = self.game
        if isinstance(game, Match):
            return game.view(seat).round
        return game.view(seat)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new round (or match). ``options`` may hold ``"deck"``: a prepared deck
        for the (first) round, card names or cards in deal order, as ``Round(deck=...)``
        takes it (the rest of the table's deck is shuffled in under the seed)."""
        # other keys are left alone, as Gymnasium's environments do (PettingZoo's own
        # api_test passes some)
        deck = options.get("deck") if options else None
        if seed is not None:
            self._rng = random.Random(seed)
        deal_seed = self._rng.randrange(2**63)
        if self.match_mode:
            decks = None if deck is None else [list(deck)]
            self._game = Match(self.rules, self.players, seed=deal_seed, decks=decks)
        else:
            self._game = Round(self.rules, self.players, seed=deal_seed, deck=deck)
        self._turns = Turns(self._game, shuffle_seed=deal_seed)
        self._records = 0
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._select()

    def _select(self) -> None:
        assert self._turns is not None
        who = self._turns.actor
        if who is not None:
            agent = self.agent_selection = self.possible_agents[who]
            if self.flat:  # the masks are in the infos too (a flat observation hides them)
                self._mask_infos()
                info_mask = self.infos[agent]["action_mask"]
                for a in self._turns.legal():
                    info_mask[a] = 1

    def _mask_infos(self) -> None:
        """Every agent's info: an all-zero ``action_mask`` (the deciding agent's is then
        filled in)."""
        self.infos = {a: {"action_mask": np.zeros(self.decline + 1, np.int8)} for a in self.agents}

    def observe(self, agent: str) -> Any:
        seat = self._seat(agent)
        game = self.game
        view = self._view(seat)
        if view is None:  # sitting out this round of the match
            obs = np.zeros(self.encoder.size, dtype=np.float32)
            obs[seat] = 1.0
        else:
            obs = self.encoder.encode(view, game.legal_action_ids(seat))
        mask = np.zeros(self.decline + 1, dtype=np.int8)
        assert self._turns is not None
        if self._turns.actor == seat and not self.terminations.get(agent, True):
            for a in self._turns.legal():  # (item writes beat an index array for so few)
                mask[a] = 1
        if self.flat:
            return np.concatenate([obs, mask.astype(np.float32)])
        return {"observation": obs, "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert self._turns is not None and action is not None
        self._turns.step(int(action))
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        self._score()
        if self.game.is_over:
            self.terminations = {a: True for a in self.agents}
            if self.flat:
                self._mask_infos()
        else:
            self._select()
        self._accumulate_rewards()
        self._deads_step_first()
        if self.render_mode == "human":
            self.render()

    def _score(self) -> None:
        game = self.game
        if isinstance(game, Match):
            records = game.records
            if self.reward_mode == "score":
                for record in records[self._records :]:
                    for seat, s in enumerate(record.scores):
                        if s is not None:
                            self.rewards[self.possible_agents[seat]] -= float(s)
            self._records = len(records)
            result = game.result
            if result is not None and self.reward_mode == "win":
                for seat in result.winners:
                    self.rewards[self.possible_agents[seat]] += 1.0 / len(result.winners)
            return
        res = game.result
        if res is None:
            return
        if self.reward_mode == "score":
            for seat, s in enumerate(res.scores):
                self.rewards[self.possible_agents[seat]] = -float(s)
        else:
            for seat in res.winners:
                self.rewards[self.possible_agents[seat]] = 1.0 / len(res.winners)

    # ------------------------------------------------------------------ showing it
    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        text = self._text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _text(self) -> str:
        game = self.game
        names = [f"player_{i}" for i in range(self.players)]
        seat = 0 if self._turns is None or self._turns.actor is None else self._turns.actor
        view = self._view(seat)
        lines = [] if view is None else [board_text(view, names, self.rules, str)]
        if game.is_over:
            lines.append("over")
        elif self._turns is not None:
            what = "may snap" if self._turns.reacting else "to act"
            lines.append(f"{names[seat]} {what}")
        return "\n".join(lines)

    def close(self) -> None:
        """Nothing to release (no window is ever opened)."""
