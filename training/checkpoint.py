"""Checkpoint files of the trainer: one ``torch.save`` dict, written atomically.

Keys: ``format``, ``spec`` (game, env version, rules config, observation layout, action
catalog; see :mod:`policies.spec`), ``network`` (hyperparameters), ``roles``, ``args`` (the
run's settings), ``models`` and ``optimizers`` (state dicts by role), ``counters`` (frames,
updates, elapsed seconds, ...), ``rng`` (torch and Python states), ``actor`` (the in-process
actor's games and RNG, for an exact resume with ``--actors 0``; ``None`` otherwise),
``evaluations`` (the history of evaluation results).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import torch

FORMAT = "climbrl-dmc-1"
FILENAME = "checkpoint.pt"


def checkpoint_path(path: str | os.PathLike) -> Path:
    """A checkpoint file, or a run directory holding ``checkpoint.pt``."""
    p = Path(path)
    return p / FILENAME if p.is_dir() else p


def save(path: str | os.PathLike, payload: dict[str, Any]) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    torch.save({"format": FORMAT, **payload}, tmp)
    os.replace(tmp, path)
    return path


def load(path: str | os.PathLike) -> dict[str, Any]:
    p = checkpoint_path(path)
    if not p.is_file():
        raise ValueError(f"no checkpoint at {str(path)!r} (looked for {str(p)!r})")
    # our own files: they hold numpy/pickled actor state, so not weights_only
    data = torch.load(p, map_location="cpu", weights_only=False)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        found = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise ValueError(f"{str(p)!r} is not a climbrl checkpoint (format {found!r}, "
                         f"expected {FORMAT!r})")
    return data
