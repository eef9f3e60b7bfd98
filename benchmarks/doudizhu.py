"""Dou Dizhu speed benchmark: ``python -m benchmarks.doudizhu [--seconds S] [--hands N]``.

Prints
  * microseconds per legal-move call for fresh 20-card landlord hands leading a trick (the
    structural generator itself, not the per-hand cache; target <= 25 us on average), measured
    from a new generator so the first fills of its per-mask tables are included;
  * engine random play: steps/s and games/s (bidding included, random legal moves);
  * the wrapped env (``doudizhu_v0.env()``) in random play: steps/s with the observation and the
    action mask computed every step (``env.last()``; target >= 15,000 steps/s). The random agent
    samples from the mask with ``np.flatnonzero(mask.view(bool))``, ten times faster than on the
    int8 mask itself.

Random moves are drawn with ``random.Random.randrange`` (as in :mod:`benchmarks.daifugo` and
:mod:`benchmarks.compare` for the peers), not numpy's ``Generator.integers``, whose per-call cost
(about a microsecond) would be counted as engine time; the deals still come from numpy.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np


def landlord_hands(count: int, seed: int) -> list[int]:
    """Fresh 20-card hands: a random seat's 17 cards plus the kitty, from random deals."""
    from envs.doudizhu.engine import DoudizhuGame

    game = DoudizhuGame()
    rng = np.random.default_rng(seed)
    hands = []
    for _ in range(count):
        state = game.new_state(rng)
        hands.append(state.hands[int(rng.integers(3))] + state.kitty)
    return hands


def bench_legal_moves(count: int, seed: int) -> dict[str, float]:
    from envs.doudizhu.catalog import get_catalog
    from envs.doudizhu.moves import MoveGenerator

    hands = landlord_hands(count, seed)
    gen = MoveGenerator(get_catalog())
    moves = 0
    start = time.perf_counter()
    for hand in hands:
        moves += len(gen.lead(hand))
    cold = time.perf_counter() - start
    start = time.perf_counter()
    for hand in hands:
        gen.lead(hand)
    warm = time.perf_counter() - start
    return {
        "hands": count,
        "us_per_call": cold / count * 1e6,
        "us_per_call_second_pass": warm / count * 1e6,
        "moves_per_hand": moves / count,
    }


def bench_engine(seconds: float, seed: int, game=None) -> dict[str, float]:
    """Random play through the engine for ``seconds``; ``game`` reuses a ``DoudizhuGame`` (and
    its move generator's tables) instead of making a new one."""
    from envs.doudizhu.engine import DoudizhuGame

    game = game or DoudizhuGame()
    rng = np.random.default_rng(seed)
    pick = random.Random(seed)
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_state(rng)
        while not state.terminal:
            legal = state.legal_actions()
            state.apply(legal[pick.randrange(len(legal))])
            steps += 1
        games += 1
    elapsed = time.perf_counter() - start
    return {"steps_per_s": steps / elapsed, "games_per_s": games / elapsed}


def bench_env(seconds: float, seed: int, wrapped: bool = True, env=None) -> dict[str, float]:
    """``doudizhu_v0.env()`` in random play, or ``raw_env()`` (no PettingZoo order-enforcing
    wrapper) when ``wrapped`` is false; ``env`` reuses an env made earlier."""
    from envs import doudizhu_v0

    if env is None:
        env = doudizhu_v0.env() if wrapped else doudizhu_v0.raw_env()
    pick = random.Random(seed)
    env.reset(seed=seed)
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset()
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"].view(bool))
                action = int(legal[pick.randrange(len(legal))])
            env.step(action)
            steps += 1
        games += 1
    elapsed = time.perf_counter() - start
    return {"steps_per_s": steps / elapsed, "games_per_s": games / elapsed}


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per play benchmark")
    parser.add_argument("--hands", type=int, default=20000, help="hands for the legal-move timing")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    results = {
        "legal_moves": bench_legal_moves(args.hands, args.seed),
        "engine": bench_engine(args.seconds, args.seed),
        "env": bench_env(args.seconds, args.seed),
    }
    lm, eng, env = results["legal_moves"], results["engine"], results["env"]
    print("Dou Dizhu benchmark")
    print(
        f"  legal moves, fresh 20-card landlord hand leading: {lm['us_per_call']:.1f} us/call "
        f"({lm['us_per_call_second_pass']:.1f} on a second pass; {lm['moves_per_hand']:.0f} "
        f"moves/hand, {lm['hands']} hands; target <= 25)"
    )
    print(
        f"  engine random play: {eng['steps_per_s']:,.0f} steps/s, "
        f"{eng['games_per_s']:,.0f} games/s"
    )
    print(
        f"  doudizhu_v0.env() random play, observation + mask every step: "
        f"{env['steps_per_s']:,.0f} steps/s, {env['games_per_s']:,.0f} games/s (target >= 15,000)"
    )
    return results


if __name__ == "__main__":
    main()
