"""Daifugo / President / UECda speed: random play through the raw engine and the wrapped PettingZoo
env (observation and mask every step), and microseconds per legal-move call.

    python -m climbrl.benchmarks.daifugo [--seconds 1] [--repeats 3] [--seed 0] [--json FILE]

(``climbrl bench`` runs it with :mod:`climbrl.benchmarks.doudizhu`; the output format is
:func:`climbrl.benchmarks.common.measure`'s.) It first says whether the compiled core writes
the observations (``compiled core: in use``; set ``CLIMBRL_PURE=1`` to measure pure Python).

Targets (this project's 2-core machine): engine >= 60,000 steps/s with legal-move
generation, wrapped 4-player env >= 15,000 steps/s, and every env at least 0.35 of its
engine's steps/s in the same run (printed after the tables, with the bytes an env instance
keeps and the bytes of one observation with its mask). The random agent draws from
``env.legal_actions()``, the legal ids the env offers beside the mask.
"""

from __future__ import annotations

import itertools
import random
import time

import numpy as np
from climbrl.envs import daifugo_v1, president_v1, uecda_v1
from climbrl.envs.daifugo import DaifugoGame, Rules, compiled

from .common import (
    RATIO,
    compiled_core_line,
    machine,
    measure,
    parser,
    print_bytes,
    print_ratios,
    timed_rate,
    write_json,
)

CONFIGS = [("daifugo", 3), ("daifugo", 4), ("president", 6), ("uecda", 5)]
MODULES = {"daifugo": daifugo_v1, "president": president_v1, "uecda": uecda_v1}
ROUNDS = {"uecda": 3}
"""rounds of a match where the preset's own is too long for one timed call (a UECda match is a
class block of 100 rounds); the other presets play their default match"""
STEPS, US = "steps/s", "us/call"


def compiled_core() -> str:
    """Whether a Daifugo, President or UECda game made now writes its observations with the
    compiled core (:mod:`climbrl.envs.daifugo.compiled`), as the line the benchmark prints."""
    return compiled_core_line(compiled, DaifugoGame())


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


def env_steps(module, players: int, seed: int, **rules):
    env = module.env(players=players, **rules)
    env.reset(seed=seed)
    pick = random.Random(seed)

    def run() -> int:
        env.reset()
        steps = 0
        for agent in env.agent_iter():
            _obs, _reward, term, trunc, _info = env.last()  # observation and mask built
            if term or trunc:
                action = None
            else:
                legal = env.legal_actions()
                action = legal[pick.randrange(len(legal))]
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


def measure_all(seconds: float, repeats: int, seed: int = 0) -> dict[str, dict[str, list[float]]]:
    """Every case, interleaved, printed as it goes; unit -> case -> figures."""
    play, legal = {}, {}
    for preset, players in CONFIGS:
        rules = {"rounds": ROUNDS[preset]} if preset in ROUNDS else {}
        game = DaifugoGame(Rules.preset(preset, players, **rules))
        play[f"{preset} {players}p engine"] = (
            lambda run=engine_steps(game, seed): {STEPS: timed_rate(run, seconds)})
        run = env_steps(MODULES[preset], players, seed, **rules)
        play[f"{preset} {players}p env()"] = lambda run=run: {STEPS: timed_rate(run, seconds)}
        legal[f"{preset} {players}p legal moves"] = (
            lambda game=game, seeds=itertools.count(seed): {US: legal_move_us(game, next(seeds))})
    out = measure(play, repeats, {STEPS: "Daifugo, President and UECda random play, steps/s "
                                         "(engine: legal moves + apply; env: + observation + mask)"})
    out[RATIO] = print_ratios(
        "Daifugo, President and UECda: env steps/s over the engine's (this run)",
        out[STEPS], {f"{p} {n}p env()": f"{p} {n}p engine" for p, n in CONFIGS})
    print_bytes("Daifugo, President and UECda: memory",
                {f"{p} {n}p env()": lambda p=p, n=n: MODULES[p].env(players=n) for p, n in CONFIGS})
    out.update(measure(legal, repeats, {US: "Daifugo, President and UECda legal-move generation, "
                                            "positions of random play"}))
    return out


def main(argv=None) -> dict:
    args = parser(__doc__.splitlines()[0]).parse_args(argv)
    print(f"machine: {machine()}", flush=True)
    core = compiled_core()
    print(f"compiled core: {core}", flush=True)
    out = {"machine": machine(), "compiled_core": core,
           **measure_all(args.seconds, args.repeats, args.seed)}
    write_json(args.json, out)
    return out


if __name__ == "__main__":
    main()
