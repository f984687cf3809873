"""OpenSpiel's information-set MCTS bot plays Cambio against the random bot.

    python examples/ismcts_openspiel.py [--variant practice] [--games 40] [--simulations 20]

``ISMCTSBot`` searches from worlds it samples with ``state.resample_from_infostate``,
which draws the cards the bot has not seen with :mod:`cambio.determinize` from the
bot's own view (never from the real deal). Each game is one round; the bot takes seat
0 and seat 1 in turn, its opponent plays uniformly random legal actions, and the
script prints the bot's share of the wins (0.5 is the random bot's level).
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import cambio.openspiel  # noqa: F401 - registers python_cambio


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="ISMCTS against the random bot.")
    parser.add_argument("--variant", default="practice", help="the table (default practice)")
    parser.add_argument("--games", type=int, default=40, help="rounds to play (default 40)")
    parser.add_argument(
        "--simulations", type=int, default=20, help="searches per decision (default 20)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the deals and both bots")
    args = parser.parse_args(argv)
    if args.games < 1 or args.simulations < 1:
        parser.error("--games and --simulations must be at least 1")

    game = pyspiel.load_game(f"python_cambio(variant={args.variant},players=2)")
    rs = np.random.RandomState(args.seed)
    bot = ismcts.ISMCTSBot(
        game, mcts.RandomRolloutEvaluator(1, rs), 2.0, args.simulations, random_state=rs
    )
    # the worlds it searches are drawn from the same generator: a seed repeats a run
    bot.set_resampler(lambda state, player: state.resample_from_infostate(player, rs.uniform))
    rng = random.Random(args.seed)
    share = 0.0
    start = time.perf_counter()
    for number in range(args.games):
        state = game.new_initial_state()
        seat = number % 2
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probs)[0])
            elif state.current_player() == seat:
                state.apply_action(bot.step(state))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        share += state.returns()[seat] + 0.5  # a win 1, a shared win 0.5, a loss 0
    seconds = time.perf_counter() - start
    print(
        f"{args.variant}: ISMCTS ({args.simulations} simulations a decision) won "
        f"{share:g} of {args.games} rounds against the random bot "
        f"(share {share / args.games:.2f}) in {seconds:.1f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
