"""Every game's environment speed in one run: what ``climbrl bench`` prints.

    python -m climbrl.benchmarks.envs [--seconds 1] [--repeats 3] [--seed 0] [--hands 20000] [--loops] [--json FILE]

Daifugo, President and UECda (:mod:`climbrl.benchmarks.daifugo`), then Dou Dizhu
(:mod:`climbrl.benchmarks.doudizhu`), in one format (:func:`climbrl.benchmarks.common.measure`): a line
per measurement as it finishes, then the tables of medians. ``--loops`` adds what the envs
serve: the trainer's actor loop in one process (:func:`climbrl.training.benchmark.frames_per_second`,
frames/s, torch on one thread) and the single-seat Gymnasium env
(:class:`climbrl.envs.wrappers.SingleSeatEnv`, the agent's steps/s against random opponents,
the agent choosing at random from ``action_masks()``). The JSON file holds ``machine`` and
each script's figures by game.
"""

from __future__ import annotations

import argparse

import random

import numpy as np

from . import daifugo, doudizhu
from .common import machine, measure, parser, timed_rate, write_json

LOOPS = {"daifugo 4p": ("daifugo", {"players": 4}), "doudizhu": ("doudizhu", {})}
"""the games of ``--loops``: name -> (game, env arguments)"""
FRAMES = "frames/s"


def parse_args(argv: list[str] | None, prog: str | None = None,
               parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser
               ) -> argparse.Namespace:
    p = parser(__doc__.splitlines()[0], prog=prog, parser_class=parser_class)
    p.add_argument("--hands", type=int, default=20000,
                   help="Dou Dizhu hands for the legal-move timing")
    p.add_argument("--loops", action="store_true",
                   help="also time the trainer's actor loop and the single-seat Gymnasium env")
    return p.parse_args(argv)


def single_seat_steps(game: str, seed: int, **kwargs):
    """A closure playing one episode of seat 0 against random opponents per call, the agent
    drawing from its legal moves; returns the agent's step count."""
    from climbrl.envs.wrappers import single_seat

    players = kwargs.get("players", 3)
    env = single_seat(game, 0, ["random"] * (players - 1), **kwargs)
    env.reset(seed=seed)
    pick = random.Random(seed)

    def run() -> int:
        _obs, info = env.reset()
        steps, done = 0, False
        while not done:
            legal = np.flatnonzero(info["action_mask"])
            _obs, _reward, done, _cut, info = env.step(int(legal[pick.randrange(len(legal))]))
            steps += 1
        return steps

    return run


def measure_loops(seconds: float, repeats: int, seed: int = 0) -> dict[str, dict[str, list[float]]]:
    """The actor loop's frames/s and the single-seat env's steps/s of :data:`LOOPS`."""
    from climbrl.training.benchmark import frames_per_second

    cases = {}
    for name, (game, kwargs) in LOOPS.items():
        cases[f"{name} trainer actor loop"] = (
            lambda game=game: {FRAMES: frames_per_second(game, seconds, seed)["frames_per_second"]})
        run = single_seat_steps(game, seed, **kwargs)
        cases[f"{name} single_seat() env"] = lambda run=run: {FRAMES: timed_rate(run, seconds)}
    return measure(cases, repeats, {FRAMES: "The actor loop (frames/s; half of --seconds, the "
                                            "learner the other half) and the single-seat env "
                                            "(the agent's steps/s)"})


def main(argv: list[str] | None = None) -> dict:
    return run(parse_args(argv))


def run(args: argparse.Namespace) -> dict:
    print(f"machine: {machine()}", flush=True)
    print("\nDaifugo and President", flush=True)
    out = {"machine": machine(),
           "daifugo": daifugo.measure_all(args.seconds, args.repeats, args.seed)}
    print("\nDou Dizhu", flush=True)
    out["doudizhu"] = doudizhu.measure_all(args.seconds, args.repeats, args.seed, args.hands)
    if args.loops:
        print("\nWhat the envs serve", flush=True)
        out["loops"] = measure_loops(args.seconds, args.repeats, args.seed)
    write_json(args.json, out)
    return out


if __name__ == "__main__":
    main()
