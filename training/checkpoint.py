"""Checkpoint files of the trainer: one ``torch.save`` dict, written atomically and durably
(a temporary file in the same folder, flushed to disk, renamed over the old one, the folder
flushed too), so a kill or a full disk at any moment leaves the previous checkpoint intact.

Keys: ``format``, ``spec`` (game, env version, rules config, observation layout, action
catalog; see :mod:`climbrl.policies.spec`), ``network`` (hyperparameters), ``roles``, ``args`` (the
run's settings), ``models`` and ``optimizers`` (state dicts by role), ``counters`` (frames,
updates, elapsed seconds, ...), ``rng`` (torch and Python states), ``actor`` (the in-process
actor's games and RNG, for an exact resume with ``--actors 0``; ``None`` otherwise),
``evaluations`` (the history of evaluation results).

A file that cannot be read as one (empty, truncated, foreign, keys missing) raises a
:class:`CheckpointError` naming the file and what is wrong with it.
"""

from __future__ import annotations

import os
import pickle
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import torch

from climbrl.policies.spec import CheckpointError

from . import renamed

__all__ = ["CheckpointError", "FILENAME", "FORMAT", "checkpoint_path", "load", "save"]

FORMAT = "climbrl-dmc-1"
FILENAME = "checkpoint.pt"
TMP_SUFFIX = ".tmp"
REQUIRED = ("spec", "network", "roles", "models", "counters")
"""keys every checkpoint has (a training checkpoint adds optimizers, rng, ...)"""
RESUMABLE = ("args", "optimizers", "role_frames", "rng", "evaluations")
"""keys a run needs to be resumed from the file"""
ZIP_MAGIC = b"PK\x03\x04"
"""how every file of torch.save (a zip archive) begins"""
READ_ERRORS = (RuntimeError, EOFError, pickle.UnpicklingError, zipfile.BadZipFile, ValueError,
               AttributeError, ImportError, IndexError, KeyError, TypeError, UnicodeDecodeError,
               MemoryError)
"""what torch.load raises on a damaged or foreign file (MemoryError: a damaged length)"""


def checkpoint_path(path: str | os.PathLike) -> Path:
    """A checkpoint file, or a run directory holding ``checkpoint.pt``."""
    p = Path(path)
    return p / FILENAME if p.is_dir() else p


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # a platform without directory handles
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def save(path: str | os.PathLike, payload: dict[str, Any]) -> Path:
    """Write ``payload`` to ``path`` atomically. An ``OSError`` (full disk, ...) leaves the old
    file as it was, removes the partial one, and names the file in its message."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # a fresh temporary name each time: a stale one from a killed run is never in the way
    fd, tmp_name = tempfile.mkstemp(prefix=path.name + ".", suffix=TMP_SUFFIX, dir=path.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as f:
            torch.save({"format": FORMAT, **payload}, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as err:
        tmp.unlink(missing_ok=True)
        reason = err.strerror or str(err)
        raise OSError(err.errno, f"could not write {str(path)!r}: {reason}; the previous "
                      "checkpoint, if any, is intact") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)
    return path


def load(path: str | os.PathLike, resumable: bool = False) -> dict[str, Any]:
    """The checkpoint at ``path`` (a file or a run directory); ``resumable``: it must hold
    what resuming the run needs (an evaluation snapshot does not)."""
    p = checkpoint_path(path)
    if not p.is_file():
        raise CheckpointError(f"no checkpoint at {str(path)!r} (looked for {str(p)!r})")
    if p.stat().st_size == 0:
        raise CheckpointError(f"{str(p)!r} is empty: not a checkpoint (a write cut short?)")
    with open(p, "rb") as f:
        if f.read(len(ZIP_MAGIC)) != ZIP_MAGIC:
            raise CheckpointError(f"{str(p)!r} is not a checkpoint (not a file of torch.save)")
    # our own files: they hold numpy/pickled actor state, so not weights_only
    try:
        data = torch.load(p, map_location="cpu", weights_only=False,
                          pickle_module=renamed.pickle_module)
    except READ_ERRORS as err:
        detail = str(err).strip().split("\n")[0].split(". ")[0]
        raise CheckpointError(f"{str(p)!r} is damaged or cut short (cannot be read: "
                              f"{type(err).__name__}{': ' + detail if detail else ''})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        found = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise CheckpointError(f"{str(p)!r} is not a climbrl checkpoint (format {found!r}, "
                              f"expected {FORMAT!r})")
    missing = [k for k in REQUIRED + (RESUMABLE if resumable else ()) if k not in data]
    if missing:
        what = "a resumable checkpoint" if resumable else "a complete checkpoint"
        raise CheckpointError(f"{str(p)!r} is not {what}: no {', '.join(missing)}")
    return data
