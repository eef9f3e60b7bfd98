"""What the compiled cores' tests share (tests/test_compiled_cores.py, and each game's own:
tests/test_compiled_core.py for Dou Dizhu, tests/test_compiled_daifugo.py for Daifugo,
President and UECda): whether this Python could build the extensions, and random playouts of
an env with and without its compiled core, side by side."""

from __future__ import annotations

import random
import shutil
import sysconfig
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np
import pytest


def can_compile() -> bool:
    """Whether this Python could build the extensions (a C compiler and the Python headers)."""
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    return shutil.which(cc) is not None and headers.is_file()


needs_compiler = pytest.mark.skipif(not can_compile(), reason="no C compiler or Python "
                                    "headers: the optional extensions cannot have been built")


def play_side_by_side(fast, pure, seeds: Iterable[int], pick: random.Random, label: str,
                      check: Callable[[str], None], reset_options: dict | None = None) -> int:
    """Random playouts of two envs of one game, ``fast`` with the compiled core and ``pure``
    without, a game per seed, moves drawn by ``pick`` from the legal list: at every step the
    same agent, observation (float32), mask, reward, termination, truncation and info, the
    same legal list (order included), and ``check(where)``, the game's own checks of the
    step; at the end the same rewards. Returns the steps compared."""
    steps = 0
    for game, seed in enumerate(seeds):
        for env in (fast, pure):
            env.reset(seed=seed, options=reset_options)
        for agent in pure.agent_iter():
            assert fast.agent_selection == agent
            (obs_f, *rest_f), (obs_p, *rest_p) = fast.last(), pure.last()
            where = f"{label} game {game} step {steps}"
            assert obs_f["observation"].dtype == np.float32
            assert np.array_equal(obs_f["observation"], obs_p["observation"]), where
            assert np.array_equal(obs_f["action_mask"], obs_p["action_mask"]), where
            assert rest_f == rest_p, where
            check(where)
            if rest_p[1] or rest_p[2]:  # terminated or truncated
                action = None
            else:
                legal = pure.legal_actions()
                assert fast.legal_actions() == legal, where
                action = legal[pick.randrange(len(legal))]
            fast.step(action)
            pure.step(action)
            steps += 1
        assert fast.rewards == pure.rewards
        assert fast.unwrapped._cumulative_rewards == pure.unwrapped._cumulative_rewards
    return steps
