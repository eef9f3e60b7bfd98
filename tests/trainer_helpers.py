"""Shared settings of the trainer tests: a small network and short runs, so that the whole
suite stays fast on two cores."""

from __future__ import annotations

import time

import numpy as np

SMALL = {
    "lstm_hidden": 16,
    "state_layers": [64],
    "pair_layers": [32],
    "games_per_actor": 4,
    "batch_size": 64,
    "eval_deals": 2,
    "progress": False,
    "log_seconds": 0.5,
}


def small_net(game, features=None):
    """The network of ``game`` at the small settings (``features``: a run's stacked table)."""
    from climbrl.policies.network import NetConfig, build_network

    cfg = NetConfig.from_dict({k: SMALL[k] for k in ("lstm_hidden", "state_layers", "pair_layers")})
    return build_network(game, cfg, features)


def small_args(tmp_path, **overrides):
    from climbrl.training.config import make_args

    base = {**SMALL, "runs_dir": str(tmp_path / "runs"), "run_name": "test", "actors": 0,
            "eval_every_frames": 0}
    return make_args(None, {**base, **overrides})


def cli_overrides(settings: dict) -> list[str]:
    out = []
    for key, value in settings.items():
        out += [f"--{key.replace('_', '-')}", str(value).lower() if isinstance(value, bool)
                else str(value)]
    return out


def positions(game, count: int, seed: int = 0):
    """``count`` (state, seat) positions met in random play (cloned)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        state = game.new_state(rng)
        while not state.terminal and len(out) < count:
            out.append((state.clone(), state.current_player))
            legal = state.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])
    return out


def pettingzoo_observation(game, state, seat):
    mask = np.zeros(game.num_actions, np.int8)
    mask[state.legal_actions()] = 1
    return {"observation": game.observe(state, seat), "action_mask": mask}


def wait_until_trained(proc, run_dir, timeout: float, poll: float = 0.2) -> int:
    """Wait until the trainer subprocess ``proc`` has written a checkpoint with frames in
    ``run_dir`` (run it with a small checkpoint_minutes); returns those frames. Fails if the
    process ends first or ``timeout`` seconds pass."""
    from climbrl.training import checkpoint

    deadline = time.monotonic() + timeout
    path = run_dir / checkpoint.FILENAME
    while True:
        if path.is_file():
            frames = checkpoint.load(run_dir)["counters"]["frames"]
            if frames > 0:
                return frames
        assert proc.poll() is None, f"the trainer exited with {proc.returncode}"
        assert time.monotonic() < deadline, f"no checkpoint with frames in {timeout} s"
        time.sleep(poll)


def one_error_line(capsys) -> str:
    """The one line a command printed on stderr for a user mistake (no traceback)."""
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]
