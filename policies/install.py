"""What an installed climbrl relies on: where its shipped files lie (:func:`shipped`), and
that the ``envs`` Python imports is its own (:func:`check_envs`).

The shipped files are the configs (training settings and the CPU levels, ``configs/``) and
the trained CPUs (``cpus/``). In a source checkout, and in an editable install of it, they
are the repository's top-level ``configs/`` and ``cpus/`` folders. A wheel carries both
inside the policies package, as ``policies/_data/configs`` and ``policies/_data/cpus`` (the
mapping is in ``pyproject.toml``), so an installed climbrl finds them from any working
directory. The two folders stay side by side either way, so a relative path in
``cpus.yaml`` (``hard: ../cpus/daifugo``) resolves in both.

``envs`` is a generic name, and PyPI has another package called so: installed next to
climbrl it would shadow or overwrite climbrl's environments. Importing :mod:`policies` or
:mod:`training` runs :func:`check_envs`, which then fails with one clear message (before any
game fails deep inside with a missing module).
"""

from __future__ import annotations

from pathlib import Path

PROJECT = "climbrl"
"""the marker of climbrl's ``envs`` (``envs.PROJECT``)"""
FOLDERS = ("configs", "cpus")
PACKAGED = Path(__file__).resolve().parent / "_data"
CHECKOUT = Path(__file__).resolve().parent.parent


def shipped(folder: str) -> Path:
    """The folder ``configs`` or ``cpus``: the wheel's copy when installed, else the
    checkout's own."""
    if folder not in FOLDERS:
        raise ValueError(f"unknown shipped folder {folder!r}; folders are {', '.join(FOLDERS)}")
    packaged = PACKAGED / folder
    return packaged if packaged.is_dir() else CHECKOUT / folder


def check_envs() -> None:
    """Raise ``ImportError`` unless ``import envs`` gives climbrl's environments (its
    ``envs.PROJECT`` marker)."""
    import envs

    if getattr(envs, "PROJECT", None) != PROJECT:
        where = getattr(envs, "__file__", None) or ", ".join(getattr(envs, "__path__", []))
        raise ImportError(f"the 'envs' package at {where} is not climbrl's (another package "
                          "named envs is installed): install climbrl in its own virtualenv")
