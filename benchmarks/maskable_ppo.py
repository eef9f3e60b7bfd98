"""sb3-contrib's MaskablePPO on one Daifugo seat (:func:`climbrl.envs.wrappers.single_seat`):
points per round against ``random`` and ``scripted-easy`` tables as training goes on.

    python -m climbrl.benchmarks.maskable_ppo [--minutes 12] [--eval-minutes 3] [--opponent scripted-easy]
        [--deals 50] [--json out.json]

The agent trains at seat 0 of a 4-player, 1-round Daifugo table against three ``--opponent``
players (centered rewards), one torch thread. Every ``--eval-minutes`` of training (and at
the start) the greedy policy plays ``--deals`` deals in each of the four seats (the same
cards and opponent streams in every seat, as the evaluation harness's duplicate deals do)
against three ``random`` and three ``scripted-easy`` players; it prints the mean points per round
(3/2/1/0 by place: random play scores 1.5) with a 95% interval over deals. Evaluation time
is not counted in the training minutes. Needs ``pip install -e '.[sb3]'``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import torch

from climbrl.envs.wrappers import single_seat
from climbrl.training.stats import mean_ci

from .common import machine

PLAYERS = 4
EVAL_SEED = 10_000
"""deal seeds of the evaluation start here (training deals come from --seed)"""
EVAL_OPPONENTS = ("random", "scripted-easy")


def points_per_round(model, opponent: str, deals: int) -> tuple[float, float, float]:
    """Mean points of the greedy policy per round over ``deals`` deals, each played from
    every seat (raw points: 3/2/1/0), with its 95% interval over deals."""
    per_deal = []
    envs = [single_seat("daifugo", seat=s, opponents=[opponent] * (PLAYERS - 1), rounds=1,
                        reward="raw") for s in range(PLAYERS)]
    for deal in range(deals):
        total = 0.0
        for env in envs:
            obs, _ = env.reset(seed=EVAL_SEED + deal)
            done = False
            while not done:
                action, _ = model.predict(obs, action_masks=env.action_masks(),
                                          deterministic=True)
                obs, reward, done, _, _ = env.step(int(action))
                total += reward
        per_deal.append(total / PLAYERS)
    return mean_ci(per_deal)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=12.0, help="training minutes")
    parser.add_argument("--eval-minutes", type=float, default=3.0,
                        help="training minutes between evaluations")
    parser.add_argument("--opponent", default="scripted-easy", help="who the agent trains against")
    parser.add_argument("--deals", type=int, default=50, help="deals per evaluation")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write the figures to this JSON file")
    args = parser.parse_args(argv)
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    env = single_seat("daifugo", seat=0, opponents=[args.opponent] * (PLAYERS - 1), rounds=1)
    env.reset(seed=args.seed)
    model = MaskablePPO("MlpPolicy", env, n_steps=1024, batch_size=128, n_epochs=4,
                        gamma=1.0, learning_rate=3e-4, ent_coef=0.01,
                        policy_kwargs={"net_arch": [256, 256]}, seed=args.seed, device="cpu")
    rows = []

    def evaluate(trained: float) -> None:
        row = {"minutes": round(trained, 2), "steps": model.num_timesteps}
        for opponent in EVAL_OPPONENTS:
            row[opponent] = points_per_round(model, opponent, args.deals)
        rows.append(row)
        figures = "  ".join(f"vs {o} {m:.2f} ({lo:.2f}-{hi:.2f})"
                            for o in EVAL_OPPONENTS for m, lo, hi in [row[o]])
        print(f"{trained:5.1f} min {model.num_timesteps:>8,} steps  {figures}", flush=True)

    evaluate(0.0)
    trained = 0.0
    while trained < args.minutes - 1e-9:
        budget = min(args.eval_minutes, args.minutes - trained) * 60
        start = time.perf_counter()
        while time.perf_counter() - start < budget:
            model.learn(model.n_steps, reset_num_timesteps=False)
        trained += (time.perf_counter() - start) / 60
        evaluate(trained)
    out = {"machine": machine(), "trained_against": args.opponent, "deals": args.deals,
           "rows": rows}
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    return out


if __name__ == "__main__":
    main()
