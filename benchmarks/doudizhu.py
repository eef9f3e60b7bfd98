"""Dou Dizhu speed benchmark.

    python -m climbrl.benchmarks.doudizhu [--seconds 1] [--repeats 3] [--seed 0] [--hands 20000] [--classic-only] [--json FILE]

Prints, in the format of :func:`climbrl.benchmarks.common.measure` (``climbrl bench`` runs it after
:mod:`climbrl.benchmarks.daifugo`):
  * microseconds per legal-move call for fresh 20-card landlord hands leading a trick (the
    structural generator itself, not the per-hand cache; target <= 25 us on average), from a
    new generator so the first fills of its per-mask tables are included, and again once its
    tables are warm;
  * engine random play: steps/s and games/s (bidding included, random legal moves);
  * whether the compiled core writes the observations (``compiled core: in use``; set
    ``CLIMBRL_PURE=1`` to measure pure Python);
  * the wrapped env (``doudizhu_v1.env()``) in random play, and ``raw_env()`` without
    PettingZoo's order-enforcing wrapper: steps/s and games/s with the observation and the
    action mask computed every step (``env.last()``; target >= 15,000 steps/s, and at least
    0.35 of the engine's steps/s of the same run: the ratios follow the tables, with the bytes
    an env instance keeps and the bytes of one observation with its mask). The random agent
    draws from ``env.legal_actions()``, the legal ids the env offers beside the mask;
  * the same engine and ``env()`` pair, and their ratio, for each variant of :data:`VARIANTS`
    (rob, open hand, four players, laizi) unless ``--classic-only``.

Random moves are drawn with ``random.Random.randrange`` (as in :mod:`climbrl.benchmarks.daifugo` and
:mod:`climbrl.benchmarks.compare` for the peers), not numpy's ``Generator.integers``, whose per-call cost
(about a microsecond) would be counted as engine time; the deals still come from numpy.
"""

from __future__ import annotations

import itertools
import random
import time

import numpy as np

from .common import (
    RATIO,
    compiled_core_line,
    machine,
    measure,
    parser,
    print_bytes,
    print_ratios,
    write_json,
)

STEPS, GAMES, US = "steps/s", "games/s", "us/call"
VARIANTS = {"rob": {"bidding": "rob"}, "open hand": {"open_hand": True},
            "4 players": {"players": 4}, "laizi": {"laizi": True}}
"""the variants timed beside the classic game (``--variants``): name -> ``doudizhu_v1.env``
arguments (each a :class:`~climbrl.envs.doudizhu.config.DoudizhuConfig` field)"""


def compiled_core() -> str:
    """Whether a Dou Dizhu game made now uses the compiled core
    (:mod:`climbrl.envs.doudizhu.compiled`), as the line the benchmarks print."""
    from climbrl.envs.doudizhu import compiled
    from climbrl.envs.doudizhu.engine import DoudizhuGame

    return compiled_core_line(compiled, DoudizhuGame())


def landlord_hands(count: int, seed: int) -> list[int]:
    """Fresh 20-card hands: a random seat's 17 cards plus the kitty, from random deals."""
    from climbrl.envs.doudizhu.engine import DoudizhuGame

    game = DoudizhuGame()
    rng = np.random.default_rng(seed)
    hands = []
    for _ in range(count):
        state = game.new_state(rng)
        hands.append(state.hands[int(rng.integers(3))] + state.kitty)
    return hands


def bench_legal_moves(count: int, seed: int) -> dict[str, float]:
    from climbrl.envs.doudizhu.catalog import get_catalog
    from climbrl.envs.doudizhu.moves import MoveGenerator

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
    from climbrl.envs.doudizhu.engine import DoudizhuGame

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
    """``doudizhu_v1.env()`` in random play, or ``raw_env()`` (no PettingZoo order-enforcing
    wrapper) when ``wrapped`` is false; ``env`` reuses an env made earlier."""
    from climbrl.envs import doudizhu_v1

    if env is None:
        env = doudizhu_v1.env() if wrapped else doudizhu_v1.raw_env()
    pick = random.Random(seed)
    env.reset(seed=seed)
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset()
        for _ in env.agent_iter():
            _obs, _, term, trunc, _info = env.last()  # observation and mask built
            if term or trunc:
                action = None
            else:
                legal = env.legal_actions()
                action = legal[pick.randrange(len(legal))]
            env.step(action)
            steps += 1
        games += 1
    elapsed = time.perf_counter() - start
    return {"steps_per_s": steps / elapsed, "games_per_s": games / elapsed}


def legal_move_us(hands: list[int], warm: bool) -> float:
    """Microseconds per ``lead`` call over ``hands`` from a new generator; ``warm``: after an
    unmeasured first pass over the same hands (its tables filled)."""
    from climbrl.envs.doudizhu.catalog import get_catalog
    from climbrl.envs.doudizhu.moves import MoveGenerator

    gen = MoveGenerator(get_catalog())
    if warm:
        for hand in hands:
            gen.lead(hand)
    start = time.perf_counter()
    for hand in hands:
        gen.lead(hand)
    return (time.perf_counter() - start) / len(hands) * 1e6


def variant_cases(seconds: float, deals, variants: dict[str, dict]) -> tuple[dict, dict]:
    """The engine and ``env()`` cases of each variant, and the pairs ``env case -> engine
    case`` whose ratios are printed."""
    from climbrl.envs import doudizhu_v1
    from climbrl.envs.doudizhu.config import DoudizhuConfig
    from climbrl.envs.doudizhu.engine import DoudizhuGame

    cases, pairs = {}, {}
    for name, kwargs in variants.items():
        game, env = DoudizhuGame(DoudizhuConfig(**kwargs)), doudizhu_v1.env(**kwargs)
        engine_case, env_case = f"doudizhu {name} engine", f"doudizhu {name} env()"
        cases[engine_case] = lambda game=game: rates(bench_engine(seconds, next(deals), game=game))
        cases[env_case] = lambda env=env: rates(bench_env(seconds, next(deals), env=env))
        pairs[env_case] = engine_case
    return cases, pairs


def rates(figures: dict[str, float]) -> dict[str, float]:
    return {STEPS: figures["steps_per_s"], GAMES: figures["games_per_s"]}


def measure_all(seconds: float, repeats: int, seed: int = 0, hands: int = 20000,
                variants: dict[str, dict] | None = None) -> dict[str, dict[str, list[float]]]:
    """Every case, interleaved, printed as it goes; unit -> case -> figures. ``variants``
    (default :data:`VARIANTS`; ``{}`` for the classic game only) adds each variant's engine and
    env."""
    from climbrl.envs import doudizhu_v1
    from climbrl.envs.doudizhu.engine import DoudizhuGame

    variants = VARIANTS if variants is None else variants

    fresh = landlord_hands(hands, seed)
    legal = {
        "doudizhu lead, new generator (fills counted)": lambda: {US: legal_move_us(fresh, False)},
        "doudizhu lead, tables warm (second pass)": lambda: {US: legal_move_us(fresh, True)},
    }
    out = measure(legal, repeats, {US: f"Dou Dizhu legal moves of {hands} fresh 20-card landlord "
                                        "hands, leading (target <= 25 us/call)"})
    # made once and kept across repetitions; each repetition deals new games (another seed)
    game, env, raw = DoudizhuGame(), doudizhu_v1.env(), doudizhu_v1.raw_env()
    deals = itertools.count(seed)
    play = {
        "doudizhu engine": lambda: rates(bench_engine(seconds, next(deals), game=game)),
        "doudizhu_v1.env()": lambda: rates(bench_env(seconds, next(deals), env=env)),
        "doudizhu_v1.raw_env() (no order wrapper)": lambda: rates(bench_env(seconds, next(deals), env=raw)),
    }
    pairs = {case: "doudizhu engine" for case in play if case != "doudizhu engine"}
    more, more_pairs = variant_cases(seconds, deals, variants)
    play.update(more)
    pairs.update(more_pairs)
    out.update(measure(play, repeats, {
        STEPS: "Dou Dizhu random play, steps/s (bids count as steps; env target >= 15,000)",
        GAMES: "Dou Dizhu random play, games/s"}))
    out[RATIO] = print_ratios("Dou Dizhu: env steps/s over the engine's (this run)",
                              out[STEPS], pairs)
    print_bytes("Dou Dizhu: memory", {"doudizhu_v1.env()": doudizhu_v1.env})
    return out


def main(argv: list[str] | None = None) -> dict:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--hands", type=int, default=20000, help="hands for the legal-move timing")
    p.add_argument("--classic-only", action="store_true",
                   help="time the classic game only, not the variants (" + ", ".join(VARIANTS) + ")")
    args = p.parse_args(argv)
    print(f"machine: {machine()}", flush=True)
    core = compiled_core()
    print(f"compiled core: {core}", flush=True)
    variants = {} if args.classic_only else None
    out = {"machine": machine(), "compiled_core": core,
           **measure_all(args.seconds, args.repeats, args.seed, args.hands, variants)}
    write_json(args.json, out)
    return out


if __name__ == "__main__":
    main()
