"""Training settings from a YAML file plus ``--key value`` overrides on the command line.

A config is a YAML file, or a shipped config by name (``daifugo4`` or ``daifugo4.yaml``: the
files of ``configs/``, found by :func:`find_config` from any working directory).

Precedence: the :class:`~training.dmc.Args` defaults, then the YAML file, then the command line
(``--games-per-actor 64`` and ``--games_per_actor=64`` both work; values are read as YAML, so
``--rules "{lock: false}"`` and ``--state-layers "[256, 256]"`` work too). Resuming takes the
run's recorded settings and applies only the command-line overrides.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from pathlib import Path
from typing import Any

import yaml

from policies.install import shipped

from .dmc import Args

CONFIG_SUFFIX = ".yaml"
#: in configs/ but not a training config: the CPU levels of policies.registry
NOT_TRAINING = ("cpus",)


def _fields() -> dict[str, dataclasses.Field]:
    return {f.name: f for f in dataclasses.fields(Args)}


def _coerce(name: str, value: Any) -> Any:
    """Check ``value`` against the annotated type of ``Args.name``; ints pass as floats."""
    hint = typing.get_type_hints(Args)[name]
    options = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
    if value is None:
        if type(None) in options:
            return None
        raise ValueError(f"{name} may not be null")
    for t in options:
        t = typing.get_origin(t) or t
        if t is float and isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        if t is int and isinstance(value, int) and not isinstance(value, bool):
            return value
        if t in (bool, str, dict, list) and isinstance(value, t):
            return value
    wanted = " or ".join(getattr(t, "__name__", str(t)) for t in options)
    raise ValueError(f"{name} must be {wanted}, got {value!r}")


def parse_overrides(tokens: list[str]) -> dict[str, Any]:
    """``["--minutes", "3", "--rules={lock: false}"]`` -> ``{"minutes": 3, "rules": {...}}``."""
    known = _fields()
    out: dict[str, Any] = {}
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if not token.startswith("--"):
            raise ValueError(f"expected --key value, got {token!r}")
        key, eq, text = token[2:].partition("=")
        key = key.replace("-", "_")
        if key not in known:
            raise ValueError(f"unknown option --{key}; options are "
                             + ", ".join(f"--{k.replace('_', '-')}" for k in known))
        if not eq:
            if i + 1 >= len(tokens):
                raise ValueError(f"--{key} needs a value")
            i += 1
            text = tokens[i]
        out[key] = yaml.safe_load(text) if text.strip() else None
        i += 1
    return {k: _coerce(k, v) for k, v in out.items()}


def shipped_configs() -> dict[str, Path]:
    """The shipped training configs, name -> file (``{"daifugo4": .../daifugo4.yaml, ...}``)."""
    files = sorted(shipped("configs").glob("*" + CONFIG_SUFFIX))
    return {f.stem: f for f in files if f.stem not in NOT_TRAINING}


def find_config(config: str | Path) -> Path:
    """The file of a training config: an existing path, else the shipped config of that name
    (``daifugo4``, ``daifugo4.yaml``, or ``configs/daifugo4.yaml`` where no such file is
    here). Anything else raises ``ValueError`` naming it and the shipped names."""
    path = Path(config)
    if path.is_file():
        return path
    shipped_files = shipped_configs()
    name = path.name.removesuffix(CONFIG_SUFFIX)
    if path.parent in (Path("."), Path(shipped("configs").name)) and name in shipped_files:
        return shipped_files[name]
    raise ValueError(f"no training config {str(config)!r}: not a file, nor a shipped config "
                     f"({', '.join(shipped_files)})")


def load_yaml(path: str | Path) -> dict[str, Any]:
    with open(path) as f:
        data = yaml.safe_load(f) or {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: a training config is a mapping of settings")
    known = _fields()
    unknown = set(data) - set(known)
    if unknown:
        raise ValueError(f"{path}: unknown setting(s) {sorted(unknown)}; settings are "
                         f"{sorted(known)}")
    return {k: _coerce(k, v) for k, v in data.items()}


def make_args(config: str | None = None, overrides: list[str] | dict | None = None) -> Args:
    """Args from a config (a YAML file or a shipped name, :func:`find_config`) and overrides;
    with ``resume`` among the overrides, the resumed run's recorded settings replace the
    file's."""
    extra = parse_overrides(overrides) if isinstance(overrides, list) else dict(overrides or {})
    if extra.get("resume"):
        from . import checkpoint

        base = dict(checkpoint.load(extra["resume"])["args"])
        base.pop("resume", None)
    else:
        base = load_yaml(find_config(config)) if config else {}
    return Args(**{**base, **extra})
