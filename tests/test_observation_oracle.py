"""The fast observation and mask path against the oracle (``observation_oracle``: the
writers as they were, from scratch): random games of every preset, player count and
variant, every agent compared at every step, through the env, ``game.observe`` into a used
buffer (the trainer's way) and ``seat_observation``; plus what the env hands out is never
changed later, and the legal ids it offers (``legal_actions()``) are the mask's."""

from __future__ import annotations

import random

import numpy as np
import pytest
from doudizhu_variants import VARIANTS
from observation_oracle import oracle_mask, oracle_observe

from climbrl.envs import daifugo_v1, doudizhu_v1, president_v1
from climbrl.envs.core.game import seat_observation
from climbrl.envs.daifugo.rules import PRESET_PLAYERS

DAIFUGO_TABLES = [
    ("daifugo", {}), ("daifugo", {"rounds": 1}), ("daifugo", {"jokers": 1, "lock": False}),
    ("daifugo", {"strict_pass": False, "skip_on_equal": True, "bombs": True, "jokers": 0}),
    ("daifugo", {"illegal_finish": True, "jack_back": False, "runs": False}),
    ("president", {}), ("president", {"runs": True}), ("president", {"jokers": 2}),
    ("president", {"strict_pass": True, "skip_on_equal": True, "bombs": True}),
]
"""(preset, switches): played at every player count of the preset"""
GAMES_PER_TABLE = 3
TABLE_BUDGET = GAMES_PER_TABLE * 5 ** 2
"""games x players squared per table (a step checks every seat, and a game has steps in
proportion to its seats): 3 games up to 5 players, 2 of 6, 1 of 7 or 8"""
GAMES_PER_VARIANT = 12


def daifugo_envs():
    modules = {"daifugo": daifugo_v1, "president": president_v1}
    for preset, switches in DAIFUGO_TABLES:
        for players in PRESET_PLAYERS[preset]:
            try:
                env = modules[preset].env(players=players, **switches)
            except ValueError:
                continue  # a switch this table cannot have (one that needs one deck)
            games = min(GAMES_PER_TABLE, max(1, TABLE_BUDGET // players ** 2))
            yield f"{preset} {players}p {switches}", env, games


def doudizhu_envs():
    for name, options in VARIANTS.items():
        yield name, doudizhu_v1.env(**options), GAMES_PER_VARIANT


def assert_same(got: np.ndarray, want: np.ndarray, err_msg: str = "") -> None:
    """``np.testing.assert_array_equal`` with a fast path: its own comparison (and message)
    runs only when the arrays differ, as it is most of the harness's time otherwise."""
    if not np.array_equal(got, want):
        np.testing.assert_array_equal(got, want, err_msg=err_msg)


def check_step(env, kept: list) -> None:
    """Every agent's observation and mask against the oracle, the legal ids against the
    mask, and every observation handed out before still as it was."""
    raw = env.unwrapped
    game, state = raw.game, raw.game_state
    used = np.full(game.layout.size, 7.0, np.float32)
    for seat, agent in enumerate(raw.possible_agents):
        want_obs, want_mask = oracle_observe(game, state, seat), oracle_mask(game, state, seat)
        got = env.observe(agent)
        assert_same(got["observation"], want_obs)
        assert_same(got["action_mask"], want_mask)
        assert got["observation"].dtype == np.float32 and got["action_mask"].dtype == np.int8
        assert_same(game.observe(state, seat, used), want_obs)
        direct = seat_observation(game, state, seat)
        assert_same(direct["observation"], want_obs)
        assert_same(direct["action_mask"], want_mask)
        kept.append((got, {k: v.copy() for k, v in got.items()}))
    legal = sorted(np.flatnonzero(oracle_mask(game, state, state.current_player)).tolist()
                   if not state.terminal else [])
    assert sorted(env.legal_actions()) == legal
    offered = env.legal_actions()
    offered.append(-1)  # the caller's own list: the env's next answer is unchanged
    assert sorted(env.legal_actions()) == legal


def play(env, games: int, seed: int) -> int:
    """Random games, every step checked; the steps played."""
    pick = random.Random(seed)
    steps = 0
    for game in range(games):
        env.reset(seed=seed * 1000 + game)
        kept: list = []
        for _agent in env.agent_iter():
            obs, _reward, term, trunc, _info = env.last()
            check_step(env, kept)
            if term or trunc:
                env.step(None)
                continue
            legal = env.legal_actions()
            assert_same(np.flatnonzero(obs["action_mask"]), sorted(legal))
            env.step(legal[pick.randrange(len(legal))])
            steps += 1
        for handed, copy in kept:
            for key in copy:
                assert_same(handed[key], copy[key], err_msg=f"{key} changed")
    return steps


@pytest.mark.parametrize("name, env, games", list(daifugo_envs()), ids=lambda v: v
                         if isinstance(v, str) else "")
def test_daifugo_matches_the_oracle(name, env, games):
    assert play(env, games, seed=len(name)) > 0


@pytest.mark.parametrize("name, env, games", list(doudizhu_envs()), ids=lambda v: v
                         if isinstance(v, str) else "")
def test_doudizhu_matches_the_oracle(name, env, games):
    assert play(env, games, seed=len(name)) > 0
