"""Training settings from a YAML file plus ``--key value`` overrides on the command line.

A config is a YAML file, or a shipped config by name (``daifugo4`` or ``daifugo4.yaml``: the
files of ``configs/``, found by :func:`find_config` from any working directory).

Precedence: the :class:`~climbrl.training.dmc.Args` defaults, then the YAML file, then the command line
(``--games-per-actor 64`` and ``--games_per_actor=64`` both work; values are read as YAML, so
``--rules "{lock: false}"`` and ``--state-layers "[256, 256]"`` work too). Every value is
checked against the setting's type (an integer where an integer is asked, ``true``/``false``
for a switch); rule values pass to the game as written, and the game checks them. Resuming
takes the run's recorded settings, except :data:`PER_INVOCATION` ones, and applies the
command-line overrides; a run keeps its game and its folder.

A game's training start options (its ``start_options``, e.g. Dou Dizhu's ``fixed_landlord``)
are the mapping ``start``; each may also be written as a setting of its own, at the top of a
file or on the command line (``--fixed-landlord 0.9``), and goes into ``start``.
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
import inspect
import textwrap
import types
import typing
from pathlib import Path
from typing import Any

import yaml

from climbrl import envs
from climbrl.policies.install import shipped

from .dmc import Args

PER_INVOCATION = ("resume", "minutes", "overwrite", "ray_address")
"""settings of one invocation, not of the run: a resumed run does not take them from its
checkpoint (``--minutes`` is the budget of each invocation; a Ray cluster's address changes)"""
FIXED_ON_RESUME = ("game", "run_name", "runs_dir")
"""what a resumed run cannot change: it keeps its game and continues in its folder"""
CONFIG_SUFFIX = ".yaml"
#: in configs/ but not a training config: the CPU levels of climbrl.policies.registry
NOT_TRAINING = ("cpus",)


def _fields() -> dict[str, dataclasses.Field]:
    return {f.name: f for f in dataclasses.fields(Args)}


def field_docs(cls=Args) -> dict[str, str]:
    """The docstring under each field of a dataclass (``name: type = default`` then a string),
    one line each; empty where the source cannot be read."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    except (OSError, TypeError):
        return {}
    body = tree.body[0].body
    docs = {}
    for node, after in zip(body, body[1:]):
        if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)):
            docs[node.target.id] = " ".join(after.value.value.split())
    return docs


def type_text(name: str) -> str:
    """The type of a setting as the command line shows it, e.g. ``int|null``."""
    hint = typing.get_type_hints(Args)[name]
    options = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
    names = {int: "int", float: "float", str: "text", bool: "true|false", dict: "mapping",
             list: "list", type(None): "null"}
    return "|".join(names.get(typing.get_origin(t) or t, str(t)) for t in options)


def _coerce(name: str, value: Any) -> Any:
    """Check ``value`` against the annotated type of ``Args.name``; ints pass as floats.
    Switches are ``true``/``false`` only (YAML booleans), never read by truthiness."""
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


def check_types(args: Args) -> None:
    """Check (and coerce: ints to floats) every setting of ``args`` against its type."""
    for name in _fields():
        setattr(args, name, _coerce(name, getattr(args, name)))


def typed_value(name: str, text: str) -> Any:
    """A command-line value of setting ``name``, read as YAML and checked against its type
    (a start option's value is checked by its game)."""
    try:
        value = yaml.safe_load(text) if text.strip() else None
    except yaml.YAMLError as err:
        raise ValueError(f"--{name.replace('_', '-')} {text!r} is not YAML: "
                         f"{_yaml_problem(err)}") from None
    return value if name in _start_keys() else _coerce(name, value)


def _start_keys() -> list[str]:
    """The start options of the registered games that are no setting of their own."""
    return [key for key in envs.start_options() if key not in _fields()]


def gather_starts(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with each start option written as a setting of its own moved into ``start``
    (merged with the ``start`` given)."""
    keys = [key for key in data if key in _start_keys()]
    if not keys:
        return data
    out = {k: v for k, v in data.items() if k not in keys}
    start = out.get("start")
    out["start"] = {**(start if isinstance(start, dict) else {}),
                    **{key: data[key] for key in keys}}
    return out


def _own_starts(recorded: dict[str, Any]) -> dict[str, Any]:
    """A recorded run's settings with only the start options its game offers: a run recorded
    before ``start`` held every game's options as settings, at their defaults (a Daifugo run
    had ``fixed_landlord: 0.0``), which its own game would now refuse."""
    start = recorded.get("start")
    if not isinstance(start, dict) or not start:
        return recorded
    try:
        offered = envs.game_entry(recorded.get("game", envs.DEFAULT_GAME)).game_class.start_options
    except ValueError:
        return recorded  # an unknown game: make_args names it
    return {**recorded, "start": {k: v for k, v in start.items() if k in offered}}


def parse_overrides(tokens: list[str]) -> dict[str, Any]:
    """``["--minutes", "3", "--rules={lock: false}"]`` -> ``{"minutes": 3, "rules": {...}}``
    (start options are kept as given; :func:`gather_starts` moves them)."""
    known = [*_fields(), *_start_keys()]
    out: dict[str, Any] = {}
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if not token.startswith("--"):
            raise ValueError(f"expected --key value, got {token!r}")
        key, eq, text = token[2:].partition("=")
        key = key.replace("-", "_")
        if key not in known:
            close = difflib.get_close_matches(key, known, n=1)
            hint = f" (did you mean --{close[0].replace('_', '-')}?)" if close else ""
            raise ValueError(f"unknown option --{key.replace('_', '-')}{hint}; options are "
                             + ", ".join(f"--{k.replace('_', '-')}" for k in known))
        if not eq:
            if i + 1 >= len(tokens):
                raise ValueError(f"--{key} needs a value")
            i += 1
            text = tokens[i]
        out[key] = typed_value(key, text)
        i += 1
    return out


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


def _yaml_problem(err: Exception) -> str:
    """What is wrong in a YAML text, and where, on one line."""
    problem = getattr(err, "problem", None) or str(err).splitlines()[0]
    mark = getattr(err, "problem_mark", None)
    return f"{problem} (line {mark.line + 1}, column {mark.column + 1})" if mark else problem


def load_yaml(path: str | Path) -> dict[str, Any]:
    with open(path) as f:
        try:
            data = yaml.safe_load(f) or {}
        except yaml.YAMLError as err:  # a file that is not YAML is the user's to mend
            raise ValueError(f"{str(path)!r} is not a YAML training config: "
                             f"{_yaml_problem(err)}") from None
        except UnicodeDecodeError as err:
            raise ValueError(f"{str(path)!r} is not a YAML training config: not text "
                             f"({err.reason} at byte {err.start})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: a training config is a mapping of settings")
    data = gather_starts(data)
    known = _fields()
    unknown = set(data) - set(known)
    if unknown:
        raise ValueError(f"{path}: unknown setting(s) {sorted(unknown)}; settings are "
                         f"{sorted(known)}")
    return {k: _coerce(k, v) for k, v in data.items()}


def make_args(config: str | None = None, overrides: list[str] | dict | None = None) -> Args:
    """Args from a config (a YAML file or a shipped name, :func:`find_config`) and overrides,
    checked; with ``resume`` among the overrides, the resumed run's recorded settings replace
    the file's (all but :data:`PER_INVOCATION`), and overriding one of :data:`FIXED_ON_RESUME`
    with another value is refused."""
    extra = parse_overrides(overrides) if isinstance(overrides, list) else dict(overrides or {})
    extra = gather_starts(extra)
    unknown = set(extra) - set(_fields())
    if unknown:
        raise ValueError(f"unknown setting(s) {sorted(unknown)}; settings are "
                         f"{sorted(_fields())}")
    if extra.get("resume"):
        from . import checkpoint

        resume = extra["resume"]
        # runs recorded before ``start`` hold their start options as settings of their own
        base = _own_starts(gather_starts(dict(checkpoint.load(resume, resumable=True)["args"])))
        for key in PER_INVOCATION:
            base.pop(key, None)
        for key in FIXED_ON_RESUME:
            if key in extra and extra[key] != base.get(key):
                what = "trains" if key == "game" else "has"
                raise ValueError(
                    f"the run at {str(resume)!r} {what} {key} {base.get(key)!r}, not "
                    f"{extra[key]!r}: a resumed run keeps its {key} (start a new run instead)")
    else:
        base = load_yaml(find_config(config)) if config else {}
    merged = {**base, **extra}
    if isinstance(base.get("start"), dict) and isinstance(extra.get("start"), dict):
        merged["start"] = {**base["start"], **extra["start"]}
    args = Args(**merged)
    check_types(args)
    return args
