"""Seeded default Dou Dizhu games, replayed against action sequences recorded from the engine
before the variants were added (``tests/data/doudizhu_default_games.json``): the default rules
must keep playing exactly as they did.

``python tests/doudizhu_golden.py`` writes the file again (only ever from an engine known to
play the default game right)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

GOLDEN = Path(__file__).parent / "data" / "doudizhu_default_games.json"
RANDOM_SEEDS = range(12)
BOT_SEEDS = range(3)
BOTS = ("scripted-medium", "scripted-easy", "scripted-hard:rollouts=8:candidates=3")


def random_game(game, seed: int) -> dict:
    """A game of uniform random legal moves, deal and moves drawn from ``seed``."""
    rng = np.random.default_rng(seed)
    state = game.new_state(rng)
    code = state.deal_code
    actions = []
    while not state.terminal:
        legal = state.legal_actions()
        action = legal[int(rng.integers(len(legal)))]
        actions.append(action)
        state.apply(action)
    return {"deal": code, "actions": actions, "returns": state.returns()}


def bot_game(env, seed: int) -> dict:
    """A game of the scripted bots through the env, dealt with ``env.reset(seed=seed)``."""
    from climbrl import policies
    from climbrl.envs.core.aec import turns

    raw = env.unwrapped
    players = [policies.load("doudizhu", spec, seed=seed + i).bind(raw.game)
               for i, spec in enumerate(BOTS)]
    env.reset(seed=seed)
    code = raw.deal_code
    actions = []
    for _agent, obs, seat in turns(env):
        action = players[seat].act(obs, raw.view(seat))
        actions.append(int(action))
        env.step(action)
    return {"deal": code, "actions": actions, "returns": raw.game_state.returns()}


def record(game, env) -> dict:
    return {"random": [random_game(game, s) for s in RANDOM_SEEDS],
            "bots": [bot_game(env, s) for s in BOT_SEEDS]}


if __name__ == "__main__":
    from climbrl.envs import doudizhu_v1
    from climbrl.envs.doudizhu import DoudizhuGame

    GOLDEN.write_text(json.dumps(record(DoudizhuGame(), doudizhu_v1.env())) + "\n")
