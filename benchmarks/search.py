"""Thinking time of the searching CPU (``search:<cpu>``) next to ``scripted-hard``: milliseconds
per decision (median and 99th percentile) and decisions per second.

    python -m climbrl.benchmarks.search [--players search:cpus/daifugo scripted-hard] [--positions 200]
        [--repeats 3] [--seed 0] [--json FILE]

The positions are the decisions with at least two legal moves of games that ``scripted-medium``
plays in every seat (the same positions for every player, fixed by ``--seed``): Daifugo with
4 players and 3 rounds under the standard rules, President with 4 players, Dou Dizhu, and
UECda (its 5-seat table, 3 rounds: the exchange of the top two classes in the last two).
Every player is re-seeded before each position, so a repetition replays the same searches;
repetitions are interleaved (:func:`climbrl.benchmarks.common.measure`). A player spec whose CPU does
not fit a game's table (``cpus/daifugo`` in Dou Dizhu) is skipped there with a line saying so.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from climbrl import policies
from climbrl.envs import daifugo_v1, doudizhu_v1, president_v1, uecda_v1
from climbrl.envs.core.aec import turns

from .common import machine, measure, parser, write_json

#: game -> (env, the searching CPU of its shipped network)
TABLES = {
    "daifugo": (lambda: daifugo_v1.env(players=4, rounds=3), "search:cpus/daifugo"),
    "president": (lambda: president_v1.env(players=4), "search:cpus/president"),
    "doudizhu": (lambda: doudizhu_v1.env(), "search:cpus/doudizhu"),
    "uecda": (lambda: uecda_v1.env(rounds=3), "search:cpus/uecda"),
}
MEDIAN, P99, RATE = "ms median", "ms p99", "decisions/s"
PERCENTILE = 99
MS = 1000.0


def positions(game: str, env, count: int, seed: int) -> list[tuple[dict, dict]]:
    """``count`` (observation, view) pairs of decisions with two or more legal moves, from
    games of ``scripted-medium`` in every seat."""
    raw = env.unwrapped
    bot = policies.load(game, "scripted-medium", seed=seed).bind(raw.game)
    out: list[tuple[dict, dict]] = []
    deal = 0
    while len(out) < count:
        env.reset(seed=seed + deal)
        deal += 1
        for _agent, obs, seat in turns(env):
            view = raw.view(seat)
            if obs["action_mask"].sum() > 1 and len(out) < count:
                out.append(({k: np.array(v) for k, v in obs.items()}, view))
            env.step(bot.act(obs, view))
    return out


def thinking(player, cases: list[tuple[dict, dict]]):
    """A closure timing ``player.act`` on every position once; the figures of that pass."""

    def run() -> dict[str, float]:
        times = []
        for i, (obs, view) in enumerate(cases):
            player.seed(i)
            start = time.perf_counter()
            player.act(obs, view)
            times.append(time.perf_counter() - start)
        ms = np.array(times) * MS
        return {MEDIAN: float(np.median(ms)), P99: float(np.percentile(ms, PERCENTILE)),
                RATE: len(times) / sum(times)}

    return run


def main(argv=None) -> dict:
    p = parser(__doc__.split("\n\n")[0], repeats=3)
    p.add_argument("--games", nargs="+", default=list(TABLES), choices=list(TABLES))
    p.add_argument("--players", nargs="+", default=None,
                   help="player specs to time (default: the game's search:<cpu> and "
                        "scripted-hard)")
    p.add_argument("--positions", type=int, default=200, help="decisions per game")
    args = p.parse_args(argv)
    print(f"machine: {machine()}")
    cases = {}
    for game in args.games:
        make_env, cpu = TABLES[game]
        env = make_env()
        found = positions(game, env, args.positions, args.seed)
        for spec in args.players or [cpu, "scripted-hard"]:
            try:
                player = policies.load(game, spec, seed=0).bind(env.unwrapped.game)
            except ValueError as err:
                print(f"skipped {spec} in {game}: {err}")
                continue
            cases[f"{game}: {spec}"] = thinking(player, found)
    results = measure(cases, args.repeats, {
        MEDIAN: "milliseconds per decision, median over the positions",
        P99: f"milliseconds per decision, {PERCENTILE}th percentile over the positions",
        RATE: "decisions per second",
    })
    out = {"machine": machine(), "positions": args.positions, "results": results,
           "medians": {unit: {name: statistics.median(v) for name, v in by_case.items()}
                       for unit, by_case in results.items()}}
    write_json(args.json, out)
    return out


if __name__ == "__main__":
    main()
