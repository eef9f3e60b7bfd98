"""Exported CPU players: same moves as the checkpoint, no torch needed, spec checked."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from climbrl.envs import daifugo_v1, president_v1
from climbrl.policies import neural
from climbrl.training.dmc import train
from climbrl.training.export import export

from trainer_helpers import pettingzoo_observation, positions, small_args

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("export")
    run = train(small_args(tmp, total_frames=64 * 3))
    out = export(run["run_dir"], tmp / "cpus" / "test")
    return run["run_dir"], out


def test_exported_player_chooses_the_checkpoints_moves(exported):
    run_dir, out = exported
    env = daifugo_v1.env(players=4)
    game = env.unwrapped.game
    from_checkpoint = neural.load(run_dir, env)
    from_onnx = neural.load(out, env)
    assert from_onnx.meta["trained"]["frames"] == 64 * 3
    decided = 0
    for state, seat in positions(game, 300, seed=7):
        observation, view = pettingzoo_observation(game, state, seat), state.view(seat)
        legal, q_torch = from_checkpoint.scores(observation, view)
        _, q_onnx = from_onnx.scores(observation, view)
        assert np.allclose(q_torch, q_onnx, atol=1e-4)
        assert from_checkpoint.act(observation, view) == from_onnx.act(observation, view)
        decided += len(legal) > 1
    assert decided > 100  # most of the positions were real choices


def test_weaker_levels(exported):
    _, out = exported
    game = daifugo_v1.env(players=4).unwrapped.game
    greedy = neural.load(out, game)
    top1 = neural.load(out, game, temperature=5.0, top_k=1)
    warm = neural.load(out, game, temperature=100.0, seed=0)
    state, seat = next((s, p) for s, p in positions(game, 50, seed=3)
                       if len(s.legal_actions()) > 3)
    obs, view = pettingzoo_observation(game, state, seat), state.view(seat)
    assert top1.act(obs, view) == greedy.act(obs, view)
    assert len({warm.act(obs, view) for _ in range(40)}) > 1
    with pytest.raises(ValueError, match="temperature"):
        neural.load(out, game, temperature=-1)
    with pytest.raises(ValueError, match="top_k"):
        neural.load(out, game, top_k=0)


def test_exported_cpu_plays_every_table_of_its_game(exported):
    """v0 refused any other rules; a v1 CPU plays every table: other rules, players, rounds,
    reward and catalog (its ONNX model takes the action features of the game it plays)."""
    _, out = exported
    for env in (daifugo_v1.env(players=4, revolution=False), daifugo_v1.env(players=3),
                daifugo_v1.env(players=3, rounds=7, jokers=1, reward="raw"),
                daifugo_v1.env(players=4, runs=False, jokers=0, spade_three_return=False)):
        player = neural.load(out, env)
        env.reset(seed=3)
        for _ in range(30):
            agent = env.agent_selection
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                break
            seat = int(agent.split("_")[1])
            action = player.act(obs, env.unwrapped.view(seat))
            assert obs["action_mask"][action] == 1
            env.step(action)


def test_loading_into_another_game_says_what_differs(exported):
    _, out = exported
    with pytest.raises(ValueError, match="trained on 'daifugo', not 'president'"):
        neural.load(out, "president")
    with pytest.raises(ValueError, match="neither an exported CPU"):
        neural.load(out / "missing", "daifugo")
    player = neural.load(out, "daifugo")  # a game name: rebuilt from the recorded rules
    other = daifugo_v1.env(players=4)
    assert player.bind(other.unwrapped.game) is player and player.game is other.unwrapped.game
    three = daifugo_v1.env(players=3, jokers=1).unwrapped.game  # another catalog: rebuilt
    assert player.bind(three).game is three and player._table is three.action_features()
    with pytest.raises(ValueError, match=r"trained on 'daifugo', not 'president'"):
        player.bind(president_v1.env(players=4))


def test_exported_player_plays_without_torch(exported):
    _, out = exported
    script = textwrap.dedent(f"""
        import sys
        sys.modules["torch"] = None  # any import of torch now fails
        from climbrl.envs import daifugo_v1
        from climbrl.policies import neural
        env = daifugo_v1.env(players=4)
        player = neural.load({str(out)!r}, env)
        env.reset(seed=5)
        steps = 0
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = env.unwrapped.possible_agents.index(agent)
            env.step(player.act(obs, env.unwrapped.view(seat)))
            steps += 1
        print("steps", steps, "winner", env.unwrapped.game_state.winner)
    """)
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "winner" in done.stdout
