"""The OpenSpiel game: OpenSpiel's random simulation test on every profile, the game
string, the decision bound, and information states that hide what they must."""

from __future__ import annotations

import random
from pathlib import Path

import pyspiel
import pytest

import cambio
import cambio.openspiel
from cambio.openspiel import CambioGame, CambioState

PROFILES = cambio.available_variants()


def _game(text: str) -> CambioGame:
    game = pyspiel.load_game(text)
    assert isinstance(game, CambioGame)
    return game


def _random_play(state: CambioState, rng: random.Random) -> int:
    """Play to the end at random; return the number of decisions (chance excluded)."""
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
            decisions += 1
    return decisions


@pytest.mark.parametrize("name", PROFILES)
def test_random_sim_test(name: str) -> None:
    game = pyspiel.load_game(f"python_cambio(variant={name},max_turns=8)")
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_random_sim_test_on_a_table_from_a_file() -> None:
    """``variant`` may also be the path of a user's own profile."""
    path = Path(__file__).resolve().parents[1] / "examples" / "club_table.toml"
    game = _game(f"python_cambio(variant={path},players=3,max_turns=20)")
    assert game.rules.name == "the-tuesday-club"
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_the_game_string_names_the_table_and_seats() -> None:
    game = _game("python_cambio(variant=snap,players=4)")
    assert game.num_players() == 4
    assert game.rules.name == "snap" and game.max_turns == cambio.openspiel.DEFAULT_MAX_TURNS
    assert game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert game.num_distinct_actions() == game.encoder.space.size + 1
    assert _game("python_cambio(variant=micro)").max_turns == 3  # the table's own cap is lower
    assert _game("python_cambio()").num_players() == 3  # practice's default seats
    with pytest.raises(ValueError, match="seats"):
        pyspiel.load_game("python_cambio(variant=micro,players=3)")


@pytest.mark.parametrize("name", ["competitive", "snap", "re-peek", "cabo"])
def test_rounds_stay_within_max_game_length(name: str) -> None:
    game = _game(f"python_cambio(variant={name},players=4,max_turns=10)")
    bound = game.max_game_length()
    rng = random.Random(name)
    longest = 0
    for _ in range(15):
        state = game.new_initial_state()
        longest = max(longest, _random_play(state, rng))
        assert sum(state.returns()) == pytest.approx(0.0)
    assert 0 < longest <= bound


def test_information_states_hide_unseen_cards() -> None:
    """Two deals that differ only in the order of the last two stock cards: until one of
    them is drawn, each player's information state is the same in both."""
    game = _game("python_cambio(variant=practice,players=2,max_turns=6)")
    deck = list(game.deck)
    random.Random(4).shuffle(deck)
    swapped = [*deck[:-2], deck[-1], deck[-2]]
    states = []
    for order in (deck, swapped):
        state = game.new_initial_state()
        for card in order:
            state.apply_action(game.cards.index(card))
        states.append(state)
    a, b = states
    for p in range(2):
        assert a.information_state_string(p) == b.information_state_string(p)
        assert a.observation_string(p) == b.observation_string(p)
        assert a.information_state_tensor(p) == b.information_state_tensor(p)
    for _ in range(3):  # a few turns that draw only the top of the stock
        action = a.legal_actions()[0]
        a.apply_action(action)
        b.apply_action(action)
        for p in range(2):
            assert a.information_state_string(p) == b.information_state_string(p)
    assert a.information_state_string(0) != a.information_state_string(1)
    assert a.round is not None and b.round is not None and a.round.deck != b.round.deck


def test_declining_to_snap_is_an_action_and_is_public() -> None:
    game = _game("python_cambio(variant=snap,players=3,max_turns=10)")
    rng = random.Random(1)
    for _ in range(20):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probs)[0])
                continue
            legal = state.legal_actions()
            if game.decline in legal:
                who = state.current_player()
                state.apply_action(game.decline)
                for p in range(3):
                    assert state.information_state_string(p).endswith(f"P{who} no snap") or (
                        state.information_state_string(p).endswith("reacting")
                    )
                return
            state.apply_action(rng.choice(legal))
    pytest.fail("no reaction turn came up in 20 rounds of the snap table")
