"""Daifugo / President speed: random play through the raw engine and the wrapped PettingZoo
env (observation and mask every step), and microseconds per legal-move call.

    python -m benchmarks.daifugo [--seconds 2] [--repeats 3]

Targets (issue 2, this project's 2-core machine): engine >= 60,000 steps/s with legal-move
generation, wrapped 4-player env >= 15,000 steps/s.
"""

from __future__ import annotations

import argparse
import json
import random
import time

import numpy as np

from envs import daifugo_v0, president_v0
from envs.daifugo import DaifugoGame, Rules

from .common import interleaved, machine, print_table, timed_rate

CONFIGS = [("daifugo", 3), ("daifugo", 4), ("president", 6)]


def engine_steps(game: DaifugoGame, seed: int):
    """A closure playing one random match per call; returns its step count."""
    rng = np.random.default_rng(seed)
    pick = random.Random(seed)

    def run() -> int:
        state = game.new_state(rng)
        steps = 0
        while not state.terminal:
            legal = state.legal_actions()
            state.apply(legal[pick.randrange(len(legal))])
            steps += 1
        return steps

    return run


def env_steps(module, players: int, seed: int):
    env = module.env(players=players)
    env.reset(seed=seed)
    pick = random.Random(seed)

    def run() -> int:
        env.reset()
        steps = 0
        for agent in env.agent_iter():
            obs, _reward, term, trunc, _info = env.last()
            if term or trunc:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[pick.randrange(len(legal))])
            env.step(action)
            steps += 1
        return steps

    return run


def legal_move_us(game: DaifugoGame, seed: int, calls: int = 2000) -> float:
    """Microseconds per legal-move generation over positions met in random play (the cache
    of the state is cleared so every call generates)."""
    rng = np.random.default_rng(seed)
    pick = random.Random(seed)
    states = []
    while len(states) < calls:
        state = game.new_state(rng)
        while not state.terminal and len(states) < calls:
            states.append(state.clone())
            legal = state.legal_actions()
            state.apply(legal[pick.randrange(len(legal))])
    start = time.perf_counter()
    for s in states:
        s._legal = None
        s.legal_actions()
    return (time.perf_counter() - start) / len(states) * 1e6


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved repetitions")
    parser.add_argument("--json", help="also write the figures to this JSON file")
    args = parser.parse_args(argv)
    modules = {"daifugo": daifugo_v0, "president": president_v0}
    cases = {}
    for preset, players in CONFIGS:
        game = DaifugoGame(Rules.preset(preset, players))
        cases[f"{preset} {players}p engine"] = (
            lambda run=engine_steps(game, 0): timed_rate(run, args.seconds)
        )
        cases[f"{preset} {players}p env()"] = (
            lambda run=env_steps(modules[preset], players, 0): timed_rate(run, args.seconds)
        )
    print(f"machine: {machine()}")
    steps = interleaved(cases, args.repeats)
    print_table("random play, steps/s (engine: legal moves + apply; env: + observation + mask)", steps, "steps/s")
    legal = {}
    for preset, players in CONFIGS:
        game = DaifugoGame(Rules.preset(preset, players))
        legal[f"{preset} {players}p legal moves"] = [legal_move_us(game, r) for r in range(args.repeats)]
    print_table("legal-move generation", legal, "us/call")
    out = {"machine": machine(), "steps_per_s": steps, "legal_us": legal}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    return out


if __name__ == "__main__":
    main()
