"""Cambio as an OpenSpiel game: importing this module registers ``python_cambio``.

Needs the ``openspiel`` extra (``pip install 'cambio-rules[openspiel]'``).

>>> import pyspiel
>>> import cambio.openspiel
>>> game = pyspiel.load_game("python_cambio(variant=micro,players=2)")
>>> state = game.new_initial_state()
>>> state.is_chance_node()
True
>>> game.num_players(), game.max_game_length() > 0
(2, True)

Parameters: ``variant`` (a bundled profile's name or a profile file's path, default
``practice``), ``players`` (0: the table's default), ``max_turns`` (the turn cap,
default 40; the lower of it and the table's own cap is used) and ``deal`` (``cards``,
the default: one chance node per card, an exact tree; ``seed``: the :data:`SEED_BYTES`
seed nodes alone shuffle the deck, for learners and samplers, whose every deal then
costs 8 chance nodes instead of one per card). The game is one round:

* **The deal is chance.** Before the first decision, one chance node per card of the
  table's deck fixes the shuffled order (grids, the first discard, then the stock from
  the top down). A chance outcome is a distinct card of the deck (its index in
  :attr:`CambioGame.cards`), with probability the share of the undealt cards that are
  that card; identical cards (a second deck's copies, a custom deck's suitless cards)
  are one outcome, so small decks make small trees.
* **So is the round's own randomness.** A table whose round draws at random after the
  deal (``stock.on_empty = "recycle"``: the discard pile is shuffled into a new stock;
  ``snap.arbitration = "random"``: the order simultaneous snaps are settled in) has
  :data:`SEED_BYTES` more chance nodes after the deal, each a byte of 256 equally likely
  outcomes. Together they make a 64-bit seed, which seeds those draws (the round's
  ``seed`` and the :class:`~cambio.rl.turns.Turns` reaction order), so a new stock's order
  is hidden from every player, as a shuffle at the table is. No player is shown the seed.
  Tables without such draws have no seed nodes: their tree is the deal, then the play.
* **Actions** are the table's action ids (:class:`cambio.ActionSpace`) plus one more,
  ``DECLINE`` (``space.size``): "I do not snap". OpenSpiel has one player at a
  time, so a reaction window becomes turns of the players who may snap, one by one in
  the table's arbitration order (see :mod:`cambio.rl.turns`); declining is an ordinary
  action, and it is public, as a turn must be.
* **Information**: ``IMPERFECT_INFORMATION``. The information-state string is the
  player's whole history as that player saw it (every event with the cards the player
  was shown, and who declined to snap), so it has perfect recall; the observation
  string is the :class:`~cambio.rl.Encoder` read-out of the player's current view.
  Both tensors are the encoding of the view (the information-state tensor is therefore
  not of perfect recall: use the string for that).
* **Utility**: zero-sum. The round's winners share 1, and every player's utility is its
  share minus ``1 / players``.
* ``max_game_length`` bounds the decisions (declines included) of a round of at most
  ``max_turns`` turns; the tests check that played rounds stay within it.
"""

from __future__ import annotations

import random
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import attrs
import numpy as np
import pyspiel

from .cards import Card
from .determinize import InfoSet
from .events import Event
from .loading import load_ruleset
from .rl.encoding import Encoder
from .rl.turns import Turns
from .round import Round
from .rules import RuleSet

__all__ = ["DEFAULT_MAX_TURNS", "SEED_BYTES", "CambioGame", "CambioObserver", "CambioState"]

DEFAULT_MAX_TURNS = 40
"""The turn cap when the game string gives none."""

SEED_BYTES = 8
"""The chance nodes (one byte each) that draw a 64-bit seed for the round's own random
draws, on tables that make any (a stock that runs out is refilled from the shuffled
discard pile, or simultaneous snaps are settled in a random order)."""

_MAX_PLAYERS = 8

_GAME_TYPE = pyspiel.GameType(
    short_name="python_cambio",
    long_name="Python Cambio",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=_MAX_PLAYERS,
    min_num_players=1,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={
        "variant": "practice",
        "players": 0,
        "max_turns": DEFAULT_MAX_TURNS,
        "deal": "cards",
    },
)


_GAMES: weakref.WeakValueDictionary[tuple[str, int, int, str], CambioGame] = (
    weakref.WeakValueDictionary()
)
"""Every live game by its parameters: an unpickled state finds its game here."""


def _game_of(variant: str, players: int, max_turns: int, deal: str) -> CambioGame:
    """The game of these parameters (a live one, else a new one): what unpickling a
    :class:`CambioGame` calls, so the game comes back whole (pybind11's own pickling
    would bring back the C++ part alone)."""
    game = _GAMES.get((variant, players, max_turns, deal))
    if game is None:
        params = {"variant": variant, "players": players, "max_turns": max_turns, "deal": deal}
        game = CambioGame(params)
    return game


def _draws_at_random(rules: RuleSet) -> bool:
    """Whether a round of ``rules`` draws at random after the deal: it shuffles the
    discard pile into a new stock, or settles simultaneous snaps in a random order."""
    return rules.stock.on_empty == "recycle" or rules.snap.arbitration == "random"


def _decision_bound(rules: RuleSet, players: int, turns: int) -> int:
    """The most decisions a round of at most ``turns`` turns can take, declines included.

    Per turn: the main action, placing the card, two powers' steps (one on the draw, one
    on the card swapped out), the end-of-turn call or pass, one snap attempt per player
    (a discard opens at most one window a turn; each player tries a window once) and a
    give. Per round: every opening choice and re-peek. Before each of those actions every
    reactor may decline once.
    """
    steps = max([0, *(len(p.steps) for p in rules.powers.table)])
    per_turn = 1 + 1 + 2 * steps + 1 + players + 1
    actions = 2 * players + turns * per_turn
    return actions * (players + 1)


class CambioGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel is untyped
    """One round of a Cambio table, as an OpenSpiel game."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        variant = str(params.get("variant", "practice"))
        rules = load_ruleset(variant)
        players = int(params.get("players", 0)) or rules.players.default
        if not rules.players.min <= players <= min(rules.players.max, _MAX_PLAYERS):
            raise ValueError(
                f"the {rules.name} table seats {rules.players.min} to {rules.players.max} "
                f"players, not {players}"
            )
        cap = int(params.get("max_turns", DEFAULT_MAX_TURNS))
        if cap < 1:
            raise ValueError(f"max_turns must be 1 or more, got {cap}")
        own = rules.turn.max_turns
        cap = min(cap, own) if own else cap
        rules = attrs.evolve(rules, turn=attrs.evolve(rules.turn, max_turns=cap))
        encoder = Encoder(rules, players)
        n = players
        deal = str(params.get("deal", "cards"))
        if deal not in ("cards", "seed"):
            raise ValueError(f"deal must be 'cards' or 'seed', got {deal!r}")
        deck = tuple(rules.deck.cards())
        card_nodes = len(deck) if deal == "cards" else 0
        seed_nodes = SEED_BYTES if _draws_at_random(rules) or not card_nodes else 0
        info = pyspiel.GameInfo(
            num_distinct_actions=encoder.space.size + 1,
            max_chance_outcomes=max(len(set(deck)) if card_nodes else 0, 256 if seed_nodes else 0),
            num_players=n,
            min_utility=-1.0 / n,
            max_utility=1.0 - 1.0 / n,
            utility_sum=0.0,
            max_game_length=_decision_bound(rules, n, cap),
        )
        given = {"variant": variant, "players": players, "max_turns": cap, "deal": deal}
        super().__init__(_GAME_TYPE, info, given)
        self.rules: RuleSet = rules
        self.players = players
        self.max_turns = cap
        self.encoder = encoder
        self.deck: tuple[Card, ...] = deck
        self.cards: tuple[Card, ...] = tuple(sorted(set(deck)))
        """The distinct cards of the deck: chance outcome ``k`` deals ``cards[k]``."""
        self.deal = deal
        """``cards``: one chance node per card; ``seed``: the seed's nodes shuffle the deck."""
        self.card_nodes = card_nodes
        """The chance nodes that deal a card each (the deck's size, or 0 under ``seed``)."""
        self.seed_nodes = seed_nodes
        """The chance nodes after the deal that draw the round's seed, a byte each
        (:data:`SEED_BYTES` under ``deal=seed`` or on a table whose round draws at random;
        else 0)."""
        self.decline = encoder.space.size
        self._counts = [deck.count(card) for card in self.cards]
        _GAMES[variant, players, cap, deal] = self

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its parameters (see :func:`_game_of`)."""
        variant = str(self.get_parameters()["variant"])
        return (_game_of, (variant, self.players, self.max_turns, self.deal))

    def max_chance_nodes_in_history(self) -> int:
        """The chance nodes of every history: one per card, then the seed's bytes."""
        return self.card_nodes + self.seed_nodes

    def new_initial_state(self) -> CambioState:
        """The state before the deal."""
        return CambioState(self)

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: Any = None
    ) -> CambioObserver:
        """An observer of states (the observation, or with perfect recall the info state)."""
        return CambioObserver(
            self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params
        )


class _Play:
    """The mutable part of a state, copied cheaply (``Round.copy``) when OpenSpiel clones."""

    def __init__(self, game: CambioGame) -> None:
        self.game = game  # shared, never copied
        self.dealt: list[Card] = []
        self.left = game._counts[:]  # how many of each distinct card are still undealt
        self.seed: list[int] = []  # the seed's bytes drawn so far
        self.turns: Turns | None = None
        self.events = 0  # how many events the round has logged
        self.declines: list[tuple[int, int]] = []
        """Each decline: how many round events there were then, and who declined."""
        self.texts: dict[int, tuple[tuple[int, int], str]] = {}
        """Each player's information-state string, made when first asked for at a point
        (learners that read only tensors never pay for it)."""

    def info(self, player: int) -> str:
        """``player``'s information-state string: its history as it saw it, with every
        decline to snap where it happened."""
        key = (self.events, len(self.declines))
        known = self.texts.get(player)
        if known is not None and known[0] == key:
            return known[1]
        assert self.turns is not None
        rnd: Round = self.turns.game  # type: ignore[assignment]
        text = _info_text(rnd.view(player).history, player, self.declines)
        self.texts[player] = (key, text)
        return text

    def __deepcopy__(self, memo: dict[int, Any]) -> _Play:
        new = _Play.__new__(_Play)
        new.game = self.game
        new.dealt = self.dealt[:]
        new.left = self.left[:]
        new.seed = self.seed[:]
        new.turns = None if self.turns is None else self.turns.copy()
        new.events = self.events
        new.declines = self.declines[:]
        new.texts = dict(self.texts)
        return new


def _info_text(history: Sequence[Event], player: int, declines: Sequence[tuple[int, int]]) -> str:
    """Player ``player``'s information-state string: its history (``history``, as it saw
    it) with every decline to snap where it happened."""
    parts = [f"P{player}"]
    d = 0
    for i, event in enumerate(history):
        while d < len(declines) and declines[d][0] <= i:
            parts.append(f"P{declines[d][1]} no snap")
            d += 1
        parts.append(str(event))
    parts += [f"P{who} no snap" for _, who in declines[d:]]
    return "\n".join(parts)


class CambioState(pyspiel.State):  # type: ignore[misc]  # pyspiel is untyped
    """A Cambio round being dealt or played."""

    def __init__(self, game: CambioGame) -> None:
        super().__init__(game)
        self.play = _Play(game)

    @property
    def cambio(self) -> CambioGame:
        """The game (its rules, encoder and cards)."""
        return self.play.game

    # ------------------------------------------------------------------ who acts
    @property
    def round(self) -> Round | None:
        """The round once dealt (omniscient)."""
        turns = self.play.turns
        return None if turns is None else turns.game  # type: ignore[return-value]

    def current_player(self) -> int:
        turns = self.play.turns
        if turns is None:
            return int(pyspiel.PlayerId.CHANCE)
        who = turns.actor
        return int(pyspiel.PlayerId.TERMINAL) if who is None else who

    def _legal_actions(self, player: int) -> list[int]:
        turns = self.play.turns
        if turns is None or turns.actor != player:
            return []
        return turns.legal()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        play = self.play
        if len(play.dealt) == play.game.card_nodes:  # the seed's next byte
            return [(b, 1 / 256) for b in range(256)]
        total = play.game.card_nodes - len(play.dealt)
        return [(k, n / total) for k, n in enumerate(play.left) if n]

    def _apply_action(self, action: int) -> None:
        play = self.play
        game = self.cambio
        if play.turns is None:
            if len(play.dealt) < game.card_nodes:
                if not 0 <= action < len(play.left) or not play.left[action]:
                    raise ValueError(f"card {action} is not left to deal")
                play.left[action] -= 1
                play.dealt.append(game.cards[action])
            else:
                play.seed.append(action)
            if len(play.dealt) == game.card_nodes and len(play.seed) == game.seed_nodes:
                seed = int.from_bytes(bytes(play.seed), "big")
                if game.card_nodes:
                    rnd = Round(game.rules, game.players, deck=play.dealt, seed=seed)
                else:  # the seed shuffles the deck too
                    rnd = Round(game.rules, game.players, seed=seed)
                play.turns = Turns(rnd, shuffle_seed=seed)
                play.events = len(rnd.events)
            return
        who = play.turns.actor
        assert who is not None
        events = play.turns.step(action)
        if action == self.cambio.decline:
            play.declines.append((play.events, who))
        else:
            play.events += len(events)

    def resample_from_infostate(
        self, player_id: int, probability_sampler: Callable[[], float] | None = None
    ) -> CambioState:
        """A state that ``player_id`` cannot tell from this one: the same information
        state, the unseen cards drawn at random by :mod:`cambio.determinize` from
        ``player_id``'s view alone (what OpenSpiel's ``ISMCTSBot`` samples its worlds
        with). ``probability_sampler`` (a callable giving floats in [0, 1)) seeds the
        draw. The sample has no action history of its own; before the deal is over,
        the sample is a fresh deal of the cards not yet dealt.
        """
        game = self.cambio
        play = self.play
        draw = probability_sampler or random.random
        rng = random.Random(int(draw() * 2**53))
        new = game.new_initial_state()
        turns = play.turns
        if turns is None:  # dealing: nobody has seen a card yet
            new.play.dealt = play.dealt[:]
            new.play.left = play.left[:]
            new.play.seed = [rng.randrange(256) for _ in play.seed]
            return new
        rnd: Round = turns.game  # type: ignore[assignment]
        view = rnd.view(player_id)
        sample = InfoSet(view, game.rules).sample(rng)
        moved = Turns.__new__(Turns)
        moved.__dict__.update(turns.__dict__)
        moved.game = sample
        moved._declined = set(turns._declined)
        moved._seed = rng.getrandbits(64)  # the real order of future reactions is hidden
        moved._legal = None
        new.play.dealt = []
        new.play.left = [0] * len(play.left)
        new.play.seed = []
        new.play.turns = moved
        new.play.declines = play.declines[:]
        new.play.events = len(sample.events)
        return new

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if len(self.play.dealt) == self.cambio.card_nodes:
                return f"Seed byte {len(self.play.seed) + 1}: 0x{action:02x}"
            return f"Deal:{self.cambio.cards[action]}"
        if action == self.cambio.decline:
            return f"P{player} no snap"
        return str(self.cambio.encoder.space.decode(action))

    def is_terminal(self) -> bool:
        turns = self.play.turns
        return turns is not None and turns.game.is_over

    def returns(self) -> list[float]:
        n = self.cambio.players
        rnd = self.round
        if rnd is None or rnd.result is None or not rnd.result.winners:
            return [0.0] * n
        winners = rnd.result.winners
        return [(1.0 / len(winners) if p in winners else 0.0) - 1.0 / n for p in range(n)]

    def __str__(self) -> str:
        rnd = self.round
        if rnd is None:
            text = "dealing: " + " ".join(str(c) for c in self.play.dealt)
            if self.play.seed:
                text += " | seed " + " ".join(f"{b:02x}" for b in self.play.seed)
            return text
        hands = " | ".join(
            " ".join("--" if c is None else str(c) for c in rnd.hand(p)) for p in range(rnd.players)
        )
        top = rnd.discard_pile[-1] if rnd.discard_pile else None
        phase = rnd.phase.name.lower()
        return f"{phase} P{rnd.current} | {hands} | top {top} | stock {rnd.stock_size}"


class CambioObserver:
    """OpenSpiel's observer for Cambio: the encoding, and strings of the view or history."""

    def __init__(
        self, game: CambioGame, iig_obs_type: pyspiel.IIGObservationType, params: Any
    ) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        self.game = game
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.tensor = np.zeros(game.encoder.size + 1, np.float32)
        self.dict = {
            "observation": self.tensor[:-1],
            "reacting": self.tensor[-1:],
        }

    def set_from(self, state: CambioState, player: int) -> None:
        """Fill :attr:`tensor` with ``player``'s encoding of ``state``."""
        self.tensor.fill(0)
        rnd = state.round
        if rnd is None:
            return
        self.tensor[:-1] = self.game.encoder.encode(rnd.view(player), rnd.legal_action_ids(player))
        turns = state.play.turns
        assert turns is not None
        self.tensor[-1] = float(turns.actor == player and turns.reacting)

    def string_from(self, state: CambioState, player: int) -> str:
        """``player``'s history (perfect recall) or current view, as text."""
        rnd = state.round
        if rnd is None:
            play = state.play
            if not play.seed:
                return f"P{player} dealing ({len(play.dealt)} cards dealt)"
            return (
                f"P{player} dealing ({len(play.dealt)} cards dealt, "
                f"{len(play.seed)} of {self.game.seed_nodes} seed bytes drawn)"
            )
        turns = state.play.turns
        assert turns is not None
        reacting = turns.actor == player and turns.reacting
        if not self.perfect_recall:
            x = self.game.encoder.encode(rnd.view(player), rnd.legal_action_ids(player))
            return self.game.encoder.describe(x) + ("\nreacting" if reacting else "")
        return state.play.info(player) + ("\nreacting" if reacting else "")


pyspiel.register_game(_GAME_TYPE, CambioGame)
