"""OpenSpiel: the cost of a deal and the decisions per second of ``rl_environment``.

    python benchmarks/bench_openspiel.py [--variant practice] [--players 2] [--deal seed]

A deal is every chance node of a round, each outcome drawn with its probability from
``chance_outcomes`` (as OpenSpiel's own loops do). ``rl_environment.Environment``
plays random legal actions (its observations computed at every step, as a learner
gets them) for ``--seconds`` of CPU time; decisions are counted per CPU second of this
process.
"""

from __future__ import annotations

import argparse
import json
import random
import time

import pyspiel
from open_spiel.python import rl_environment

import cambio.openspiel  # noqa: F401 - registers python_cambio


def deal_ms(game: pyspiel.Game, rounds: int, rng: random.Random) -> float:
    spent = 0.0
    for _ in range(rounds):
        state = game.new_initial_state()
        began = time.process_time()
        while state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probs)[0])
        spent += time.process_time() - began
    return spent * 1000 / rounds


def env_decisions_per_second(game_string: str, seconds: float, rng: random.Random) -> float:
    env = rl_environment.Environment(game_string)
    decisions = 0
    began = time.process_time()
    step = env.reset()
    while time.process_time() - began < seconds:
        if step.last():
            step = env.reset()
            continue
        player = step.observations["current_player"]
        action = rng.choice(step.observations["legal_actions"][player])
        step = env.step([action])
        decisions += 1
    return decisions / (time.process_time() - began)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="practice")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument(
        "--deal",
        choices=["cards", "seed"],
        default="cards",
        help="the game's deal parameter: a chance node per card, or a seed's 8 (default cards)",
    )
    parser.add_argument("--deals", type=int, default=200, help="deals timed (default 200)")
    parser.add_argument("--seconds", type=float, default=5.0, help="CPU seconds of play")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    text = f"python_cambio(variant={args.variant},players={args.players},deal={args.deal})"
    game = pyspiel.load_game(text)
    rng = random.Random(args.seed)
    out = {
        "variant": args.variant,
        "players": args.players,
        "deal": args.deal,
        "deal_ms": deal_ms(game, args.deals, rng),
        "rl_environment_decisions_per_second": env_decisions_per_second(text, args.seconds, rng),
    }
    if args.json:
        print(json.dumps(out))
    else:
        print(
            f"{args.variant}, {args.players} players, deal={args.deal}: "
            f"a deal {out['deal_ms']:.2f} ms; "
            f"rl_environment {out['rl_environment_decisions_per_second']:.0f} decisions "
            "per CPU second"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
