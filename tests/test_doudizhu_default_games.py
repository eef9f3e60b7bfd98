"""The default Dou Dizhu game plays exactly as it did before the variants came: seeded games
(uniform random moves, and the scripted bots through the env) give the recorded deal codes,
action ids and returns (``tests/doudizhu_golden.py`` recorded them)."""

from __future__ import annotations

import json

import pytest

from climbrl.envs import doudizhu_v1
from climbrl.envs.doudizhu import DoudizhuGame

from doudizhu_golden import BOT_SEEDS, GOLDEN, RANDOM_SEEDS, bot_game, random_game

RECORDED = json.loads(GOLDEN.read_text())


@pytest.mark.parametrize("seed", RANDOM_SEEDS)
def test_seeded_random_games_replay_the_recorded_moves(seed):
    assert random_game(DoudizhuGame(), seed) == RECORDED["random"][seed]


@pytest.mark.parametrize("seed", BOT_SEEDS)
def test_seeded_bot_games_replay_the_recorded_moves(seed):
    assert bot_game(doudizhu_v1.env(), seed) == RECORDED["bots"][seed]
