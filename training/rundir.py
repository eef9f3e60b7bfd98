"""The folder of a training run, ``<runs_dir>/<run_name>/``: its name, one trainer at a time,
and no silent overwrite.

What a trainer writes there:

* ``checkpoint.pt``: the run (weights, optimizer states, counters, random states, settings,
  evaluation history; :mod:`climbrl.training.checkpoint`), written every
  ``checkpoint_minutes`` and when the run stops; ``climbrl train --resume``, ``climbrl export``
  and ``climbrl eval`` read it (the folder may be named instead of the file).
* ``eval.pt``: the weights the evaluation harness plays (``eval_harness``, on by default),
  written over before each evaluation, so that the harness's worker processes load the
  network as any checkpoint player; weights only (no optimizer or actor state, so some
  times smaller than ``checkpoint.pt``), not resumable, but ``climbrl export`` and
  ``climbrl eval`` take it. It may be deleted once the run is over; ``--overwrite`` removes it.
* ``events.out.tfevents.*``: the TensorBoard logs.
* ``.lock``: only while a trainer runs there (:class:`RunLock`), removed when it exits.
* ``*.tmp``: a checkpoint being written (renamed over the old one when complete; a kill may
  leave one, which the next run's ``--overwrite`` removes).

The helpers:

* :func:`check_run_name`: a run name is one plain folder name, so that a run never writes
  outside ``runs_dir`` (``../x``, ``a/b`` and absolute paths are refused).
* :class:`RunLock`: an exclusive lock on ``<run>/.lock`` (``fcntl.flock``) held while a
  trainer writes there; a second trainer on the same folder is refused. The lock file is
  removed when the trainer lets go of it (a normal end, Ctrl-C, SIGTERM or an error). The
  kernel drops the lock when the process ends, so the file a killed trainer (SIGKILL) leaves
  never blocks the next one.
* :func:`claim_new`: a new run refuses a folder that holds a run already, unless asked to
  overwrite it (then the trainer's own files there are removed first).
"""

from __future__ import annotations

import os
from pathlib import Path

try:
    import fcntl
except ImportError:  # not POSIX: no lock
    fcntl = None

LOCK_FILE = ".lock"
RUN_FILE_PATTERNS = ("checkpoint.pt", "eval.pt", "events.out.tfevents.*", "*.tmp")
"""what a trainer writes in its run folder (what ``overwrite`` removes)"""


class RunFolderError(ValueError):
    """A run folder that cannot be used: a bad name, another trainer in it, a run there."""


def check_run_name(name: str) -> str:
    if not isinstance(name, str) or not name.strip():
        raise RunFolderError(f"run_name must be a folder name, got {name!r}")
    seps = {"/", os.sep} | ({os.altsep} if os.altsep else set())
    if name in (".", "..") or any(s in name for s in seps) or Path(name).is_absolute():
        raise RunFolderError(f"run_name {name!r} must be a plain folder name inside runs_dir "
                             "(no '/', '..' or absolute path)")
    return name


def run_folder(runs_dir: str | os.PathLike, run_name: str) -> Path:
    return Path(runs_dir) / check_run_name(run_name)


def holds_run(folder: Path) -> bool:
    """The folder has anything in it besides the lock file."""
    return folder.is_dir() and any(p.name != LOCK_FILE for p in folder.iterdir())


def claim_new(folder: Path, overwrite: bool) -> None:
    """Make ``folder`` ready for a new run (call with the lock held)."""
    if not holds_run(folder):
        return
    if not overwrite:
        raise RunFolderError(
            f"{str(folder)!r} holds a run already: --resume {folder} continues it, "
            "--overwrite replaces it, --run-name NAME starts another")
    for pattern in RUN_FILE_PATTERNS:
        for path in folder.glob(pattern):
            if path.is_file():
                path.unlink()


class RunLock:
    """``with RunLock(folder):`` holds the folder's exclusive lock (creating the folder)."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.file = None

    @property
    def path(self) -> Path:
        return self.folder / LOCK_FILE

    def acquire(self) -> RunLock:
        self.folder.mkdir(parents=True, exist_ok=True)
        while True:
            f = open(self.path, "a+")
            if fcntl is not None:
                try:
                    fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    f.seek(0)
                    holder = f.read().strip() or "?"
                    f.close()
                    raise RunFolderError(f"{str(self.folder)!r} is in use by another trainer "
                                         f"(process {holder}); one trainer per run folder") \
                        from None
            if self._still_linked(f):
                break
            # the trainer before let go and removed the file between our open and our lock:
            # that file is no one's lock any more, take the folder's new one
            f.close()
        f.seek(0)
        f.truncate()
        f.write(f"{os.getpid()}\n")
        f.flush()
        self.file = f
        return self

    def _still_linked(self, f) -> bool:
        """``f`` is still the folder's lock file (not one removed since it was opened)."""
        try:
            return os.path.samestat(os.fstat(f.fileno()), os.stat(self.path))
        except FileNotFoundError:
            return False

    def release(self) -> None:
        """Remove the lock file, then let go of the lock (in this order: a trainer waiting to
        lock the removed file sees it is gone and opens a new one)."""
        if self.file is not None:
            try:
                self.path.unlink(missing_ok=True)
            finally:
                self.file.close()  # closing drops the flock
                self.file = None

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()
