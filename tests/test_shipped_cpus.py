"""The pretrained CPUs shipped in ``cpus/``: they still load under the current envs (their
recorded spec matches what the network reads: game, env version, observation layout, action
features), play whole games with legal moves only (the Daifugo CPU at several tables: one
network plays every table of its game), and stay small."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from climbrl import policies
from climbrl.envs import daifugo_v1, doudizhu_v1, president_v1
from climbrl.training.evaluate import play_game

ROOT = Path(__file__).resolve().parent.parent
MAX_BYTES = 8 * 2**20  # "a few MB" each (Dou Dizhu: four role networks)
SHIPPED = [
    # directory, game, env maker (the rules the CPU was trained under)
    ("daifugo", "daifugo", lambda: daifugo_v1.env(players=4, rounds=3)),
    ("daifugo", "daifugo", lambda: daifugo_v1.env(players=3, rounds=5, lock=False)),
    ("daifugo", "daifugo", lambda: daifugo_v1.env(players=4, rounds=7, jokers=1,
                                                  illegal_finish=True)),
    ("doudizhu", "doudizhu", lambda: doudizhu_v1.env()),
    ("president", "president", lambda: president_v1.env(players=4)),
    ("president", "president", lambda: president_v1.env(players=7, rounds=3, bombs=True)),
]


def _refuse(name):
    raise ValueError(f"cpu.json holds {name}, which is not JSON")


@pytest.mark.parametrize("name, game, make_env", SHIPPED,
                         ids=[f"{s[0]}-{i}" for i, s in enumerate(SHIPPED)])
def test_shipped_cpu_plays_whole_games(name, game, make_env):
    path = ROOT / "cpus" / name
    size = sum(f.stat().st_size for f in path.iterdir())
    assert 0 < size <= MAX_BYTES, f"{path}: {size} bytes"
    # strict JSON: a game in another language reads it (regression: the first export wrote
    # NaN for the interval of a side with one evaluation game)
    json.loads((path / "cpu.json").read_text(), parse_constant=_refuse)
    env = make_env()
    cpu = policies.load(game, str(path), seed=0)
    lineup = [cpu if seat % 2 == 0 else policies.load(game, "random", seed=seat)
              for seat in range(env.unwrapped.game.num_players)]
    for deal in range(2):
        env.reset(seed=deal)
        # the harness's game loop raises ValueError on an illegal move
        outcome = play_game(env, lineup, env.unwrapped.deal_code)
        assert all(env.terminations.values())
        assert outcome.get("places") or outcome.get("returns")
