"""Speed of the vector API (:mod:`climbrl.envs.vector`) against its alternatives, per game:

    python -m climbrl.benchmarks.vector [--games daifugo doudizhu] [--tables 1 16 64]
                                        [--seconds 0.5] [--repeats 1] [--seed 0] [--json FILE]

For each table count N, moves/s (every seat's move counts, random legal moves) of

* ``engine``: N engine states stepped alone (no observation, no mask: the ceiling);
* ``VectorTables``: :class:`~climbrl.envs.vector.VectorTables` (observation and mask of the
  seat to move at every table, every step), ``copy=False``;
* ``N env()s``: N PettingZoo envs stepped in a Python loop (``observe`` of the agent to move,
  ``legal_actions``, ``step``);

and agent steps/s of one seat against random opponents (their moves not counted) of

* ``make_vec``: :func:`~climbrl.envs.vector.make_vec`, ``copy=False``;
* ``N single_seat()s``: N :class:`~climbrl.envs.wrappers.SingleSeatEnv` in a loop;

and, when tianshou is installed, agent steps/s of Tianshou's vector envs of that seat (legal
moves drawn from the masks they return, finished tables reset by id as its collectors do):

* ``tianshou_vec_env``: :func:`~climbrl.envs.vector.tianshou_vec_env`;
* ``DummyVectorEnv``: Tianshou's ``DummyVectorEnv`` over N ``single_seat()`` envs (their
  masks read from ``info["action_mask"]``).
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable

import numpy as np

from climbrl.envs import ENV_MODULES
from climbrl.envs.vector import VectorTables, make_vec, tianshou_vec_env
from climbrl.envs.wrappers import single_seat

from .common import Figures, machine, measure, parser, timed_rate, write_json

TABLE_COUNTS = (1, 16, 64)
SECONDS = 0.5
REPEATS = 1
GAME_KWARGS = {"daifugo": {"rounds": 1}, "president": {"rounds": 1}, "uecda": {"rounds": 1},
               "doudizhu": {}}
"""each game's env arguments here: one-round matches, so episodes end and reset often"""
WARMUP_SHARE = 0.25
"""of ``--seconds``, played before each case is timed (its catalog's caches filled)"""
MOVES = "moves/s"
STEPS = "agent steps/s"


def _pick(legal, rng: np.random.Generator) -> int:
    return legal[int(rng.integers(len(legal)))]


def engine_case(game: str, count: int, seed: int) -> Callable[[], int]:
    """``count`` engine states, a random legal move at each per call; moves made."""
    module = importlib.import_module(ENV_MODULES[game])
    engine = module.env(**GAME_KWARGS[game]).unwrapped.game
    rng = np.random.default_rng(seed)
    states = [engine.new_state(rng) for _ in range(count)]

    def run() -> int:
        for i, state in enumerate(states):
            state.apply(_pick(state.legal_actions(), rng))
            if state.terminal:
                states[i] = engine.new_state(rng)
        return count

    return run


def tables_case(game: str, count: int, seed: int) -> Callable[[], int]:
    tables = VectorTables(game, count, rules=GAME_KWARGS[game], seed=seed, copy=False)
    rng = np.random.default_rng(seed)

    def run() -> int:
        tables.observe()
        tables.step(np.array([_pick(ids, rng) for ids in tables.rows.legal]))
        return count

    return run


def envs_case(game: str, count: int, seed: int) -> Callable[[], int]:
    module = importlib.import_module(ENV_MODULES[game])
    envs = [module.env(**GAME_KWARGS[game]) for _ in range(count)]
    for i, env in enumerate(envs):
        env.reset(seed=seed + i)
    rng = np.random.default_rng(seed)

    def run() -> int:
        for env in envs:
            env.observe(env.agent_selection)
            env.step(_pick(env.legal_actions(), rng))
            if env.unwrapped.game_state.terminal:
                env.reset()
        return count

    return run


def vec_case(game: str, count: int, seed: int) -> Callable[[], int]:
    vec = make_vec(game, count, opponents=_randoms(game), seed=seed, copy=False,
                   **GAME_KWARGS[game])
    vec.reset()
    rng = np.random.default_rng(seed)

    def run() -> int:
        vec.step(np.array([_pick(ids, rng) for ids in vec.tables.rows.legal]))
        return count

    return run


def singles_case(game: str, count: int, seed: int) -> Callable[[], int]:
    envs = [single_seat(game, opponents=_randoms(game), **GAME_KWARGS[game])
            for _ in range(count)]
    for i, env in enumerate(envs):
        env.reset(seed=seed + i)
    rng = np.random.default_rng(seed)

    def run() -> int:
        for env in envs:
            _obs, _r, done, _t, _i = env.step(_pick(np.flatnonzero(env.action_masks()), rng))
            if done:
                env.reset()
        return count

    return run


def tianshou_case(game: str, count: int, seed: int) -> Callable[[], int]:
    """:func:`~climbrl.envs.vector.tianshou_vec_env` stepped as a Tianshou collector does
    (without a policy)."""
    venv = tianshou_vec_env(game, count, opponents=_randoms(game), seed=seed,
                            **GAME_KWARGS[game])
    obs, _ = venv.reset()
    return _tianshou_loop(venv, lambda batch, _infos: batch.mask, obs, None, seed)


def dummy_case(game: str, count: int, seed: int) -> Callable[[], int]:
    """Tianshou's ``DummyVectorEnv`` over ``count`` ``single_seat()`` envs, seeded as
    :func:`tianshou_case`'s tables."""
    from tianshou.env import DummyVectorEnv

    venv = DummyVectorEnv([lambda: single_seat(game, opponents=_randoms(game),
                                               **GAME_KWARGS[game])] * count)
    # reset(seed=s) would give every env the same seed s: one table at a time instead
    infos = np.concatenate([venv.reset(i, seed=seed + i)[1] for i in range(count)])
    return _tianshou_loop(venv, lambda _obs, infos: [info["action_mask"] for info in infos],
                          None, infos, seed)


def _tianshou_loop(venv, masks_of: Callable, obs, infos, seed: int) -> Callable[[], int]:
    """One step of every table of a Tianshou vector env per call, a random legal move each
    (``masks_of(obs, infos)``: the mask rows); finished tables reset by id."""
    rng = np.random.default_rng(seed)
    state = {"masks": masks_of(obs, infos)}
    count = len(venv)

    def run() -> int:
        actions = np.array([_pick(np.flatnonzero(row), rng) for row in state["masks"]])
        obs, _rew, terminated, truncated, infos = venv.step(actions)
        masks = masks_of(obs, infos)
        done = np.flatnonzero(terminated | truncated)
        if len(done):
            masks = np.array(masks)
            new_obs, new_infos = venv.reset(done)
            masks[done] = masks_of(new_obs, new_infos)
        state["masks"] = masks
        return count

    return run


def _tianshou() -> bool:
    """Whether tianshou is installed (its cases are measured only then)."""
    try:
        importlib.import_module("tianshou")
    except ImportError:
        return False
    return True


def _randoms(game: str) -> list[str]:
    """Random players at every other seat of the game's default table."""
    module = importlib.import_module(ENV_MODULES[game])
    seats = len(module.env(**GAME_KWARGS[game]).unwrapped.possible_agents)
    return ["random"] * (seats - 1)


def _rate(make: Callable[[str, int, int], Callable[[], int]], game: str, count: int,
          seed: int, seconds: float, unit: str) -> Callable[[], Figures]:
    run = make(game, count, seed)

    def rate() -> Figures:
        timed_rate(run, seconds * WARMUP_SHARE)
        return {unit: timed_rate(run, seconds)}

    return rate


def measure_game(game: str, counts: tuple[int, ...], seconds: float, repeats: int,
                 seed: int) -> dict:
    cases: dict[str, Callable[[], Figures]] = {}
    with_tianshou = _tianshou()
    for n in counts:
        cases[f"{game} engine N={n}"] = _rate(engine_case, game, n, seed, seconds, MOVES)
        cases[f"{game} VectorTables N={n}"] = _rate(tables_case, game, n, seed, seconds, MOVES)
        cases[f"{game} {n} env()s"] = _rate(envs_case, game, n, seed, seconds, MOVES)
        cases[f"{game} make_vec N={n}"] = _rate(vec_case, game, n, seed, seconds, STEPS)
        cases[f"{game} {n} single_seat()s"] = _rate(singles_case, game, n, seed, seconds, STEPS)
        if with_tianshou:
            cases[f"{game} tianshou_vec_env N={n}"] = _rate(tianshou_case, game, n, seed,
                                                            seconds, STEPS)
            cases[f"{game} DummyVectorEnv N={n}"] = _rate(dummy_case, game, n, seed, seconds,
                                                          STEPS)
    return measure(cases, repeats, {MOVES: f"{game}: moves/s, every seat",
                                    STEPS: f"{game}: one seat against random players"})


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = parser(__doc__.splitlines()[0], seconds=SECONDS, repeats=REPEATS)
    p.add_argument("--games", nargs="+", choices=list(ENV_MODULES), default=list(ENV_MODULES))
    p.add_argument("--tables", nargs="+", type=int, default=list(TABLE_COUNTS),
                   help="table counts N (default 1 16 64)")
    args = p.parse_args(argv)
    if any(n < 1 for n in args.tables):
        p.error(f"--tables: every count must be at least 1, got {args.tables}")
    return args


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    print(f"machine: {machine()}", flush=True)
    if not _tianshou():
        print("tianshou is not installed: its vector envs are not measured "
              "(pip install 'climbrl[tianshou]')", flush=True)
    out = {"machine": machine()}
    for game in args.games:
        print(f"\n{game}", flush=True)
        out[game] = measure_game(game, tuple(args.tables), args.seconds, args.repeats, args.seed)
    write_json(args.json, out)
    return out


if __name__ == "__main__":
    main()
