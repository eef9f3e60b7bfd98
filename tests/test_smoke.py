"""CI smoke test: for every game, train a few seconds through the command line, check the
TensorBoard events and the checkpoint, resume, export, and play the exported CPU in a full
game. Daifugo 4p runs with an actor process and is stopped with Ctrl-C (SIGINT)."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from climbrl import policies
from climbrl.policies import neural
from climbrl.policies.spec import make_game
from climbrl.training import checkpoint
from climbrl.cli import main

from trainer_helpers import SMALL, cli_overrides, wait_until_trained

ROOT = Path(__file__).resolve().parent.parent
FRAMES = SMALL["batch_size"] * 2
TRAIN_START_SECONDS = 180.0
"""how long the trainer subprocess (spawning its actor) may take to train"""
EXIT_SECONDS = 60


GAMES = ["daifugo3", "president", "doudizhu"]


#: a small evaluation panel for the configs that draw tables (the whole one takes minutes)
PANELS = {"president": [{"players": 4}, {"players": 6, "rounds": 1}]}


def _settings(tmp_path, name, **extra):
    panel = {"eval_tables": PANELS[name]} if name in PANELS else {}
    return cli_overrides({**SMALL, "runs_dir": tmp_path / "runs", "run_name": name,
                          "eval_every_frames": FRAMES, "eval_deals": 1,
                          "eval_opponent": "random", **panel, **extra})


def _scalars(run_dir):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(run_dir))
    acc.Reload()
    return set(acc.Tags()["scalars"])


def _play_full_game(cpu_dir, game_name, players, seed=0):
    """The exported CPU in seat 0 against random players, through the PettingZoo env."""
    import pettingzoo

    import envs  # noqa: F401  (registers the ids)

    env = pettingzoo.make("aec", f"climbrl/{game_name}-v1", players=players) \
        if game_name != "doudizhu" else pettingzoo.make("aec", "climbrl/doudizhu-v1")
    cpu = neural.load(cpu_dir, env)
    others = policies.load(game_name, "random", seed=seed).bind(env.unwrapped.game)
    env.reset(seed=seed)
    rewards = np.zeros(len(env.possible_agents))
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        seat = env.unwrapped.possible_agents.index(agent)
        rewards[seat] += reward
        if term or trunc:
            env.step(None)
            continue
        player = cpu if seat == 0 else others
        env.step(player.act(obs, env.unwrapped.view(seat)))
    assert env.unwrapped.game_state.terminal
    return rewards


def _check_run(run_dir, frames_at_least):
    data = checkpoint.load(run_dir)
    assert data["counters"]["frames"] >= frames_at_least
    tags = _scalars(run_dir)
    assert "charts/fps" in tags
    assert any(t.startswith("eval/random/") for t in tags)
    assert any(t.startswith("losses/") for t in tags)
    return data


@pytest.mark.parametrize("name", GAMES)
def test_train_resume_export_play(tmp_path, name):
    config = ROOT / "configs" / f"{name}.yaml"
    assert main(["train", "--config", str(config), *_settings(tmp_path, name),
                 "--actors", "0", "--total-frames", str(FRAMES)]) == 0
    run_dir = tmp_path / "runs" / name
    _check_run(run_dir, FRAMES)
    assert main(["train", "--resume", str(run_dir), "--total-frames", str(2 * FRAMES)]) == 0
    data = _check_run(run_dir, 2 * FRAMES)
    assert data["counters"]["session"] == 1
    assert main(["export", str(run_dir), "--out", str(tmp_path / "cpus" / name)]) == 0
    game = make_game(data["args"]["game"], data["args"]["players"])
    _play_full_game(tmp_path / "cpus" / name, data["args"]["game"], game.num_players)


def test_actor_processes_ctrl_c_resume_export_play(tmp_path):
    """Daifugo 4p with an actor process: Ctrl-C writes the checkpoint, resume adds frames."""
    cmd = [sys.executable, "-m", "climbrl.cli", "train", "--config",
           str(ROOT / "configs" / "daifugo4.yaml"),
           *_settings(tmp_path, "d4", actors=1, minutes=5, checkpoint_minutes=0.01)]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    run_dir = tmp_path / "runs" / "d4"
    try:
        wait_until_trained(proc, run_dir, TRAIN_START_SECONDS)
    except AssertionError:
        proc.kill()
        raise AssertionError(proc.communicate()[1]) from None
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=EXIT_SECONDS)
    assert proc.returncode == 130, err  # saved, then the status of Ctrl-C
    assert "stopped by a signal (Ctrl-C, SIGINT)" in out
    frames = checkpoint.load(run_dir)["counters"]["frames"]
    assert main(["train", "--resume", str(run_dir), "--total-frames",
                 str(frames + FRAMES)]) == 0
    data = _check_run(run_dir, frames + FRAMES)
    assert data["args"]["actors"] == 1 and data["counters"]["session"] == 1
    assert main(["export", str(run_dir), "--out", str(tmp_path / "cpus" / "d4")]) == 0
    _play_full_game(tmp_path / "cpus" / "d4", "daifugo", 4)
