"""Where an installed climbrl finds its shipped files (:func:`shipped`).

The shipped files are the configs (training settings and the CPU levels, ``configs/``) and
the trained CPUs (``cpus/``). In a source checkout, and in an editable install of it, they
are the repository's top-level ``configs/`` and ``cpus/`` folders. A wheel carries both
inside the package, as ``climbrl/_data/configs`` and ``climbrl/_data/cpus`` (the mapping is
in ``pyproject.toml``), so an installed climbrl finds them from any working directory. The
two folders stay side by side either way, so a relative path in ``cpus.yaml`` (``hard:
../cpus/daifugo``) resolves in both.
"""

from __future__ import annotations

from pathlib import Path

FOLDERS = ("configs", "cpus")
PACKAGE_ROOT = Path(__file__).resolve().parent.parent
"""``climbrl/`` in a wheel; the repository's top level in a checkout"""
PACKAGED = PACKAGE_ROOT / "_data"


def shipped(folder: str) -> Path:
    """The folder ``configs`` or ``cpus``: the wheel's copy when installed, else the
    checkout's own."""
    if folder not in FOLDERS:
        raise ValueError(f"unknown shipped folder {folder!r}; folders are {', '.join(FOLDERS)}")
    packaged = PACKAGED / folder
    return packaged if packaged.is_dir() else PACKAGE_ROOT / folder
