"""The OpenSpiel game: OpenSpiel's random simulation test on every profile, the game
string, the decision bound, information states that hide what they must, and the seed
that chance draws after the deal on tables whose rounds draw at random."""

from __future__ import annotations

import random
from pathlib import Path

import pyspiel
import pytest

import cambio
import cambio.openspiel
from cambio.actions import ActionKind
from cambio.cards import Card
from cambio.events import EventKind
from cambio.openspiel import SEED_BYTES, CambioGame, CambioState

PROFILES = cambio.available_variants()


def _game(text: str) -> CambioGame:
    game = pyspiel.load_game(text)
    assert isinstance(game, CambioGame)
    return game


def _chance(state: CambioState, rng: random.Random) -> None:
    """Apply one chance outcome drawn with its probability."""
    outcomes, probs = zip(*state.chance_outcomes(), strict=True)
    state.apply_action(rng.choices(outcomes, probs)[0])


def _deal(game: CambioGame, rng: random.Random) -> CambioState:
    """A state whose deck is dealt (at random) and whose seed is not drawn yet."""
    state = game.new_initial_state()
    for _ in game.deck:
        _chance(state, rng)
    return state


def _recycles(state: CambioState) -> int:
    rnd = state.round
    return 0 if rnd is None else sum(e.kind is EventKind.RECYCLE for e in rnd.events)


def _stock(state: CambioState) -> list[Card]:
    """The stock's cards in their order (omniscient: no player sees this)."""
    rnd = state.round
    assert rnd is not None
    return [rnd.deck[c] for c in rnd._stock]


def _taken_since_recycling(state: CambioState) -> list[Card]:
    """The cards drawn from the stock since the first recycle, by a turn or as penalty
    cards, in order (omniscient)."""
    rnd = state.round
    assert rnd is not None
    events = rnd.events
    at = next(i for i, e in enumerate(events) if e.kind is EventKind.RECYCLE)
    taken: list[Card] = []
    for e in events[at + 1 :]:
        if e.kind is EventKind.DRAW:
            taken.append(e.cards[0])
        elif e.kind is EventKind.PENALTY and e.positions:
            (owner, pos) = e.positions[0]
            card = rnd.hand(owner)[pos - 1]
            assert card is not None
            taken.append(card)
    return taken


def _random_play(state: CambioState, rng: random.Random) -> int:
    """Play to the end at random; return the number of decisions (chance excluded)."""
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            _chance(state, rng)
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
                _chance(state, rng)
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


# ---------------------------------------------------------------- the round's seed


def _draws_at_random(game: CambioGame) -> bool:
    rules = game.rules
    return rules.stock.on_empty == "recycle" or rules.snap.arbitration == "random"


@pytest.mark.parametrize("name", PROFILES)
def test_chance_deals_the_deck_then_draws_a_seed_where_the_round_draws_at_random(
    name: str,
) -> None:
    game = _game(f"python_cambio(variant={name})")
    seed_nodes = SEED_BYTES if _draws_at_random(game) else 0
    assert game.seed_nodes == seed_nodes
    assert game.max_chance_nodes_in_history() == len(game.deck) + seed_nodes
    assert game.max_chance_outcomes() == max(len(game.cards), 256 if seed_nodes else 0)
    state = game.new_initial_state()
    rng = random.Random(name)
    chance_nodes = 0
    while state.is_chance_node():
        _chance(state, rng)
        chance_nodes += 1
    assert chance_nodes == len(game.deck) + seed_nodes
    assert state.round is not None


@pytest.mark.parametrize("name", ["micro", "practice"])
def test_tables_without_random_draws_keep_one_chance_node_per_card(name: str) -> None:
    """micro and practice end the round when the stock runs out and settle snaps in a
    fixed order: their tree is the deal, then the play (CFR's micro tree is unchanged)."""
    game = _game(f"python_cambio(variant={name})")
    assert game.seed_nodes == 0 and game.max_chance_outcomes() == len(game.cards)
    state = _deal(game, random.Random(2))
    assert not state.is_chance_node() and state.round is not None
    assert len(state.history()) == len(game.deck)


def test_the_seed_is_chance_and_no_player_is_shown_it() -> None:
    """On the competitive table (random snap arbitration): after the deal come
    ``SEED_BYTES`` uniform chance nodes of 256 outcomes; every player's strings are the same
    whatever bytes were drawn; the bytes seed the round; and the order reaction turns are
    asked in depends on them."""
    game = _game("python_cambio(variant=competitive,players=3)")
    assert game.rules.snap.arbitration == "random" and game.seed_nodes == SEED_BYTES
    dealt = _deal(game, random.Random(3))
    assert dealt.is_chance_node()
    assert dealt.chance_outcomes() == [(b, 1 / 256) for b in range(256)]
    assert dealt.action_to_string(pyspiel.PlayerId.CHANCE, 0x5A) == "Seed byte 1: 0x5a"
    orders = set()
    for seed in range(6):
        state = dealt.clone()
        for k, byte in enumerate(seed.to_bytes(SEED_BYTES, "big")):
            assert state.is_chance_node()
            drawn = f", {k} of {SEED_BYTES} seed bytes drawn" if k else ""
            for p in range(3):
                text = f"P{p} dealing ({len(game.deck)} cards dealt{drawn})"
                assert state.information_state_string(p) == text
                assert state.observation_string(p) == text
            state.apply_action(byte)
        assert not state.is_chance_node()
        assert state.round is not None and state.round.seed == seed
        asked = []  # who is asked to snap or decline, in order, while everyone declines
        for _ in range(30):
            legal = state.legal_actions()
            if game.decline in legal:
                asked.append(state.current_player())
                state.apply_action(game.decline)
            else:
                state.apply_action(legal[0])
        orders.add(tuple(asked))
    assert len(orders) > 1


def test_random_arbitration_alone_draws_a_seed(tmp_path: Path) -> None:
    """A table that never reshuffles but settles snaps at random still has the seed nodes:
    the rule is read from the table, not from its name."""
    path = tmp_path / "random-cabo.toml"
    path.write_text('extends = "cabo"\nname = "random-cabo"\n[snap]\narbitration = "random"\n')
    game = _game(f"python_cambio(variant={path},players=2)")
    assert game.rules.stock.on_empty == "end" and game.seed_nodes == SEED_BYTES
    assert _game("python_cambio(variant=cabo,players=2)").seed_nodes == 0


def test_a_reshuffled_stock_is_hidden_from_every_player() -> None:
    """Two rounds of the penalty table with the same deal and the same actions, their
    seeds drawn from two different chance generators: until the draw that first shuffles
    the discard pile into a new stock, every player has seen the same in both rounds, yet
    the two new stocks (the card that draw took included) are in different orders. The
    new order is no function of the public pile."""
    game = _game("python_cambio(variant=penalty,players=2)")
    assert game.rules.stock.on_empty == "recycle"
    dealt = _deal(game, random.Random(5))
    a, b = dealt.clone(), dealt.clone()
    for state, chance in ((a, random.Random(1)), (b, random.Random(2))):
        while state.is_chance_node():
            _chance(state, chance)
    assert a.round is not None and b.round is not None and a.round.seed != b.round.seed
    space = game.encoder.space
    rng = random.Random(0)
    skipped = (ActionKind.CALL, ActionKind.TAKE)
    while not _recycles(a):  # no call, no take of the discard when else is legal: draws
        assert not a.is_terminal(), "the stock should run out before the round ends"
        legal = a.legal_actions()
        assert b.legal_actions() == legal
        for p in range(2):
            assert a.information_state_string(p) == b.information_state_string(p)
            assert a.observation_string(p) == b.observation_string(p)
        drawing = [x for x in legal if x == game.decline or space.decode(x).kind not in skipped]
        action = rng.choice(drawing or legal)
        a.apply_action(action)
        b.apply_action(action)
    assert _recycles(a) == _recycles(b) == 1
    assert a.round is not None
    for p in range(2):  # only a draw from the new stock shows one of its cards, to its drawer
        if p != a.round.current:
            assert a.information_state_string(p) == b.information_state_string(p)
    stock_a = _taken_since_recycling(a) + _stock(a)
    stock_b = _taken_since_recycling(b) + _stock(b)
    assert len(stock_a) > 1 and sorted(stock_a) == sorted(stock_b)
    assert stock_a != stock_b


def test_random_sim_test_through_reshuffles(tmp_path: Path) -> None:
    """OpenSpiel's random simulation test (with serialization) on a recycle table small
    enough that its rounds run through the stock: a 16-card penalty table."""
    path = tmp_path / "small-penalty.toml"
    path.write_text(
        'extends = "penalty"\nname = "small-penalty"\n'
        "[players]\nmin = 2\nmax = 2\ndefault = 2\n"
        '[deck]\nranks = ["A", "2", "3", "4"]\njokers = 0\n'
    )
    game = _game(f"python_cambio(variant={path})")
    assert len(game.deck) == 16 and game.seed_nodes == SEED_BYTES
    recycles: list[int] = []

    def check(state: CambioState) -> None:
        if state.is_terminal():
            recycles.append(_recycles(state))

    pyspiel.random_sim_test(
        game, num_sims=10, serialize=True, verbose=False, state_checker_fn=check
    )
    assert len(recycles) == 10 and any(recycles)
