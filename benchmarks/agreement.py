"""How often a CPU picks the move a scripted player picks: the measure of an imitation run
(``imitation`` in the trainer), on the decisions of the scripted player's own games.

    python -m climbrl.benchmarks.agreement --game president --players 4 --cpus cpus/president
        runs/president/checkpoint.pt [--teacher scripted-medium] [--games 30] [--seed 0]
        [--rounds 3] [--json FILE]

The teacher plays every seat of ``--games`` matches (the same for every CPU, fixed by
``--seed``); at each decision with two or more legal moves every CPU is asked for its move
in that seat, and the share that plays like the teacher's (the same move, or one the game's
``move_classes`` says plays alike: ``4h`` for ``4s`` where no rule reads suits) is printed
with its 95% interval.
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from climbrl import envs
from climbrl import policies
from climbrl.envs.core.aec import turns
from climbrl.training.evaluate import make_env
from climbrl.training.stats import z_value

from .common import machine, write_json

def agreement(game: str, players: int, rounds: int | None, teacher: str, cpus: list[str],
              games: int, seed: int) -> dict:
    """``{"decisions": n, "agreement": {cpu: share}}`` over the teacher's games."""
    env = make_env(game, players, rounds, {})
    raw = env.unwrapped
    bots = [policies.load(game, teacher, seed=[seed, seat]) for seat in range(players)]
    students = [policies.load(game, cpu, seed=seed) for cpu in cpus]
    same = np.zeros(len(cpus), np.int64)
    decisions = 0
    for match in range(games):
        env.reset(seed=seed + match)
        for player in (*bots, *students):
            player.bind(raw.game)
        classes = raw.game.move_classes()
        for _agent, obs, seat in turns(env):
            view = raw.view(seat)
            move = int(bots[seat].act(obs, view))
            if obs["action_mask"].sum() > 1:
                decisions += 1
                same += [classes[int(cpu.act(obs, view))] == classes[move] for cpu in students]
            env.step(move)
    return {"decisions": decisions,
            "agreement": {cpu: float(k / max(decisions, 1)) for cpu, k in zip(cpus, same)}}


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", required=True, choices=policies.GAMES)
    p.add_argument("--players", type=int, default=None, help="seats (default: the game's)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--teacher", default="scripted-medium")
    p.add_argument("--cpus", nargs="+", required=True, help="CPUs: exported folders, "
                   "checkpoints or player names")
    p.add_argument("--games", type=int, default=30)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", help="also write the figures to this JSON file")
    args = p.parse_args(argv)
    players = args.players or envs.game_entry(args.game).default_players
    out = agreement(args.game, players, args.rounds, args.teacher, args.cpus, args.games,
                    args.seed)
    n = out["decisions"]
    print(f"machine: {machine()}")
    print(f"{args.game}, {players} players: {n} decisions of {args.teacher} with two or more "
          f"legal moves, {args.games} games, seed {args.seed}")
    for cpu, share in out["agreement"].items():
        half = z_value() * math.sqrt(share * (1 - share) / max(n, 1))
        print(f"  {cpu:<40} {share:.3f} ± {half:.3f}")
    write_json(args.json, {"machine": machine(), **vars(args), **out})
    return out


if __name__ == "__main__":
    main()
