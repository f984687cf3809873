"""Train a small numpy agent through the vectorized environment, against the random bot.

    python examples/train_vector.py [--envs 32] [--updates 100] [--episodes 100]

The agent is a linear softmax policy over some blocks of the flat observation (its own
positions, the top discard, the held card, the phase, the power, the turns and the
caller, found by name in the encoder's layout; and a bias), the mask of the observation
ruling illegal actions out, trained by policy gradient (REINFORCE with a
running-mean baseline, steps by Adam): each update follows ``--episodes`` whole rounds played by
``--envs`` rounds at once through :func:`cambio.rl.vector_env`, the reward being the
learner's share of the win. It prints the win rate of each block of updates, then the
first and the last.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import numpy.typing as npt

from cambio.rl import vector_env


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="practice")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--opponent", default="random", help="a bot name (default random)")
    parser.add_argument("--envs", type=int, default=32, help="rounds played at once")
    parser.add_argument("--updates", type=int, default=100, help="policy updates")
    parser.add_argument("--episodes", type=int, default=100, help="rounds per update")
    parser.add_argument("--lr", type=float, default=0.03, help="Adam's step size")
    parser.add_argument("--report", type=int, default=10, help="updates per printed line")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    envs = vector_env(
        args.envs, args.variant, args.players, opponents=args.opponent, seed=args.seed, flat=True
    )
    size = envs.mask_offset  # the flat observation: the vector, then the mask
    enc = envs.encoder
    # the features the policy reads: the blocks of the layout named here (the viewer's
    # own positions are the first seat block of "grids")
    own = enc.feature("grids")
    picked = [np.arange(own.offset, own.offset + own.size // args.players)]
    for name in ("top_discard", "held", "phase", "power", "power_step", "turns", "caller"):
        f = enc.feature(name)
        picked.append(np.arange(f.offset, f.offset + f.size))
    columns = np.concatenate(picked)
    actions = envs.decline + 1
    rng = np.random.default_rng(args.seed)
    weights = np.zeros((len(columns) + 1, actions), dtype=np.float32)
    obs, _ = envs.reset()
    n = args.envs
    steps: list[list[tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], int]]] = [
        [] for _ in range(n)
    ]
    grad = np.zeros_like(weights)
    moment = np.zeros(weights.shape)
    square = np.zeros(weights.shape)
    baseline, episodes, update, first_update = 0.0, 0, 0, 1
    returns: list[float] = []
    blocks: list[float] = []
    began = time.process_time()
    while update < args.updates:
        feats = np.hstack([obs[:, columns], np.ones((n, 1), dtype=np.float32)])
        legal = obs[:, size:] > 0
        logits = np.where(legal, feats @ weights, -np.inf)
        probs = np.exp(logits - logits.max(axis=1, keepdims=True))
        probs /= probs.sum(axis=1, keepdims=True)
        # one draw per row from its probabilities (never an illegal id: their p is 0)
        chosen = (probs.cumsum(axis=1) > rng.random((n, 1))).argmax(axis=1)
        chosen = np.where(legal[np.arange(n), chosen], chosen, legal.argmax(axis=1))
        for i in range(n):
            steps[i].append((feats[i], probs[i], int(chosen[i])))
        obs, rewards, terminated, _, _ = envs.step(chosen)
        for i in np.flatnonzero(terminated).tolist():
            ret = float(rewards[i])
            advantage = ret - baseline
            baseline += 0.02 * (ret - baseline)
            f = np.stack([s[0] for s in steps[i]])
            g = -np.stack([s[1] for s in steps[i]])
            g[np.arange(len(g)), [s[2] for s in steps[i]]] += 1.0  # d log p(a) / d logits
            grad += f.T @ (g * advantage)
            steps[i] = []
            returns.append(ret)
            episodes += 1
        if episodes >= args.episodes:
            # Adam (gradient ascent on the expected reward)
            g_mean = grad / episodes
            moment = 0.9 * moment + 0.1 * g_mean
            square = 0.999 * square + 0.001 * g_mean * g_mean
            t = update + 1
            step = (moment / (1 - 0.9**t)) / (np.sqrt(square / (1 - 0.999**t)) + 1e-8)
            weights += (args.lr * step).astype(np.float32)
            grad[:] = 0.0
            episodes = 0
            update += 1
            if update % args.report == 0 or update == args.updates:
                rate = float(np.mean(returns))
                blocks.append(rate)
                print(
                    f"updates {first_update:>3}-{update:<3} "
                    f"win rate {rate:.2f} over {len(returns)} rounds "
                    f"({time.process_time() - began:.0f} s)",
                    flush=True,
                )
                returns = []
                first_update = update + 1
    print(
        f"{args.variant}, {args.players} players, against {args.opponent}: "
        f"win rate {blocks[0]:.2f} at first, {blocks[-1]:.2f} at last"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
