"""Session-wide test set-up."""

from __future__ import annotations

import os

import pytest

SB3_LOGDIR = "SB3_LOGDIR"
"""where Stable-Baselines3 writes a model's logger folder when ``learn`` is given no
``tensorboard_log`` (by default a new ``SB3-<time>`` folder in the system's temporary directory
at every ``learn``, which the tests would leave behind)"""


@pytest.fixture(autouse=True, scope="session")
def _sb3_logs_in_the_session_tmp(tmp_path_factory):
    """Stable-Baselines3's log folders go under this session's temporary folder (removed by
    pytest's own retention), not the system's temporary directory."""
    previous = os.environ.get(SB3_LOGDIR)
    os.environ[SB3_LOGDIR] = str(tmp_path_factory.mktemp("sb3"))
    yield
    if previous is None:
        os.environ.pop(SB3_LOGDIR, None)
    else:
        os.environ[SB3_LOGDIR] = previous
