"""Finding players by name: ``climbrl.policies.load(game, name_or_path, **knobs)``.

Names, per game (``daifugo``, ``president``, ``doudizhu``):

- ``random``: uniform over the legal moves;
- ``scripted-easy``, ``scripted-medium``, ``scripted-hard``: the scripted levels;
- ``easy``, ``medium``, ``hard``: the game's CPU levels, looked up in ``configs/cpus.yaml``
  (game -> level -> spec; the shipped copy, :mod:`climbrl.policies.install`, unless ``config=``
  names another file), so a level can be pointed at a trained CPU (a relative path there is
  read from the config's folder: ``hard: ../cpus/daifugo``);
- ``search:<path>``: that trained CPU searching at play time with the scripted hard player's
  Monte Carlo (:mod:`climbrl.policies.search`), knobs after colons: ``search:cpus/daifugo:top_k=4``;
- a path (anything with a ``/``, a checkpoint suffix, or an existing file): handed to
  ``climbrl.policies.neural.load(path, game)``, the trainer's module; ``cpus/NAME``, when the working
  directory has no such folder, is the shipped CPU of that name (``cpus/daifugo``);
- ``uecda:<command>`` (UECda): an external UECda client program, started on its first move
  and seated through a server side of ours (:mod:`climbrl.play.uecda.program`);
- ``douzero:<folder>`` (Dou Dizhu): a checkpoint of DouZero's own trainer, played through
  :mod:`climbrl.benchmarks.douzero_player` (needs ``pip install douzero``; landlord fixed only).

A spec may carry knobs after colons: ``scripted-hard:rollouts=400:candidates=8``, a path too
(``cpus/daifugo:temperature=0.5``: the trailing ``key=value`` parts, unless the whole text is
an existing file); keyword knobs given to :func:`load` win over those in the spec.
"""

from __future__ import annotations

import importlib
import os
import re
from pathlib import Path
from typing import Any

from climbrl import envs

from . import search
from .base import Player, RandomPlayer
from .fallback import FallbackPlayer
from .install import shipped

GAMES = tuple(envs.GAMES)
"""the games registered when this module was imported (``climbrl.envs.GAMES`` is read on each call)"""
LEVELS = ("easy", "medium", "hard")
SCRIPTED_PREFIX = "scripted-"
RANDOM = "random"
CHECKPOINT_SUFFIXES = (".pt", ".pth", ".ckpt", ".onnx")
CONFIG_PATH = shipped("configs") / "cpus.yaml"
SPEC_SEPARATOR = ":"
DOUZERO_PREFIX = "douzero:"
UECDA_PREFIX = "uecda:"
#: a knob after a path's colon: ``temperature=0.5`` (an identifier, then ``=``)
KNOB_PART = re.compile(r"^\s*[A-Za-z_]\w*\s*=")


def known_names(game: str) -> list[str]:
    """Every name :func:`load` accepts for ``game`` (besides checkpoint paths)."""
    _check_game(game)
    return [RANDOM, *LEVELS, *(SCRIPTED_PREFIX + level for level in LEVELS)]


def cpu_levels(game: str, config: str | os.PathLike | None = None) -> dict[str, str | list[str]]:
    """The level -> spec table of ``game`` from the CPU config (``configs/cpus.yaml``): a spec,
    or a list of them, the first that can play a table seated there
    (:class:`climbrl.policies.fallback.FallbackPlayer`)."""
    import yaml

    _check_game(game)
    path = Path(config) if config is not None else CONFIG_PATH
    with open(path, encoding="utf-8") as f:
        table = yaml.safe_load(f) or {}
    levels = table.get(game)
    if not isinstance(levels, dict):
        raise ValueError(f"CPU config {str(path)!r} has no table for game {game!r}")
    missing = [level for level in LEVELS if level not in levels]
    if missing:
        raise ValueError(f"CPU config {str(path)!r}: game {game!r} lacks level(s) {missing}")
    table = {}
    for level in LEVELS:
        specs = levels[level]
        if isinstance(specs, list):
            if not specs or not all(isinstance(spec, str) and spec.strip() for spec in specs):
                raise ValueError(f"CPU config {str(path)!r}: {game} level {level!r} must list "
                                 f"player specs (non-empty strings), got {specs!r}")
            table[level] = [spec.strip() for spec in specs]
        else:
            table[level] = str(specs)
    return table


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"scripted-hard:rollouts=400"`` -> ``("scripted-hard", {"rollouts": 400})``."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"a player spec must be a non-empty string, got {spec!r}")
    name, *parts = spec.strip().split(SPEC_SEPARATOR)
    knobs = {}
    for part in parts:
        key, eq, value = part.partition("=")
        if not eq or not key:
            raise ValueError(f"player spec {spec!r}: knob {part!r} is not key=value")
        knobs[key.strip()] = knob_value(value.strip())
    return name, knobs


def load(
    game: str,
    name_or_path: str,
    seed: int | None = None,
    config: str | os.PathLike | None = None,
    shared: dict | None = None,
    **knobs: Any,
) -> Player:
    """The player called ``name_or_path`` for ``game`` (module docstring), seeded with
    ``seed``. Unknown names raise ``ValueError`` listing the known ones. ``shared``: a dict
    the caller keeps, in which trained CPUs' networks are loaded once and shared by every
    player loaded with it (``climbrl.policies.neural.load``)."""
    _check_game(game)
    if isinstance(name_or_path, os.PathLike):
        name_or_path = os.fspath(name_or_path)
    if not isinstance(name_or_path, str):
        raise TypeError(
            f"a player is a name ({', '.join(known_names(game))}) or a checkpoint path, "
            f"got {name_or_path!r}"
        )
    if name_or_path.startswith(UECDA_PREFIX):
        from climbrl.play.uecda import program  # a UECda program, started on its first move

        return program.load(name_or_path, seed)
    if name_or_path.startswith(DOUZERO_PREFIX):
        player = _load_douzero(name_or_path[len(DOUZERO_PREFIX):], game, seed, knobs)
        player.name = name_or_path
        return player
    if search.is_spec(name_or_path):
        return _load_search(game, name_or_path, seed, None, knobs, shared)
    if _is_path(name_or_path):
        name, spec_knobs = split_path_spec(name_or_path)
    else:
        name, spec_knobs = parse_spec(name_or_path)
    knobs = {**spec_knobs, **knobs}
    if name in LEVELS:
        targets = cpu_levels(game, config)[name]
        # relative to the CPU config's folder, whatever the working directory
        folder = (Path(config) if config is not None else CONFIG_PATH).parent
        if isinstance(targets, str):
            return _load_level(game, name, targets, seed, config, folder, knobs, shared)
        players = [_load_level(game, name, target, seed, config, folder, knobs, shared)
                   for target in targets]
        for player, target in zip(players, targets):
            player.name = f"{name} ({target})"  # which one plays, or why it cannot
        return FallbackPlayer(players, name=name)
    if name == RANDOM:
        if knobs:
            raise ValueError(f"the random player takes no knobs, got {sorted(knobs)}")
        player = RandomPlayer(seed)
    elif name.startswith(SCRIPTED_PREFIX) and name[len(SCRIPTED_PREFIX) :] in LEVELS:
        family = _family(game)
        player = family.make(name[len(SCRIPTED_PREFIX) :], seed, **knobs)
    elif _is_path(name):
        player = _load_checkpoint(_shipped_cpu(name), game, seed, knobs, shared)
        name = name_or_path.strip()  # its knobs too: two seats of one CPU stay apart
    else:
        raise ValueError(
            f"unknown player {name!r} for {game!r}; known names are "
            f"{', '.join(known_names(game))}, or a checkpoint path"
        )
    player.name = name
    return player


def _load_level(game: str, level: str, target: str, seed, config, folder: Path,
                knobs: dict, shared: dict | None = None) -> Player:
    """One player of a CPU level: ``target``, its spec in the CPU config (a path read from
    ``folder``), named after the level."""
    if search.is_spec(target):
        player = _load_search(game, target, seed, folder, knobs, shared)
        player.name = level
        return player
    if _is_path(target):
        target_path, target_knobs = split_path_spec(target)
        target = target_name = str(folder / target_path)
    else:
        target_name, target_knobs = parse_spec(target)
    if target_name in LEVELS:
        raise ValueError(f"CPU config: level {level!r} of {game!r} points at level {target!r}")
    player = load(game, target, seed, config, shared, **{**target_knobs, **knobs})
    player.name = level
    return player


def _check_game(game: str) -> None:
    envs.game_entry(game)


def _family(game: str):
    """The scripted players of ``game`` (its registry entry's ``bots``)."""
    module = envs.GAMES[game].bots
    if module is None:
        raise ValueError(f"game {game!r} has no scripted players")
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as err:
        if err.name is not None and module.startswith(err.name):
            raise ValueError(
                f"the scripted {game!r} players ({module}) are not in this tree yet"
            ) from err
        raise


def split_path_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"cpus/daifugo:temperature=0.5"`` -> ``("cpus/daifugo", {"temperature": 0.5})``: the
    trailing ``key=value`` parts are knobs (a Windows drive's ``C:`` or any other colon stays
    in the path), unless the whole text names an existing file or folder."""
    text = spec.strip()
    if os.path.exists(text):
        return text, {}
    parts = text.split(SPEC_SEPARATOR)
    cut = len(parts)
    while cut > 1 and KNOB_PART.match(parts[cut - 1]):
        cut -= 1
    path = SPEC_SEPARATOR.join(parts[:cut])
    if cut == len(parts):
        return path, {}
    return path, parse_spec(SPEC_SEPARATOR.join(["path", *parts[cut:]]))[1]


def _is_path(name: str) -> bool:
    return (
        "/" in name
        or os.sep in name
        or name.endswith(CHECKPOINT_SUFFIXES)
        or os.path.exists(name)
    )


def _shipped_cpu(path: str) -> str:
    """``cpus/NAME`` with no such folder here: the shipped CPU of that name, if there is one."""
    wanted = Path(path)
    packaged = shipped("cpus") / wanted.name
    if not wanted.exists() and wanted.parent == Path("cpus") and packaged.is_dir():
        return str(packaged)
    return path


def _load_douzero(folder: str, game: str, seed: int | None, knobs: dict) -> Player:
    """A DouZero checkpoint folder; the adapter module is imported only here."""
    from climbrl.benchmarks import douzero_player

    return douzero_player.load(folder, game, seed, **knobs)


def _load_checkpoint(path: str, game: str, seed: int | None, knobs: dict,
                     shared: dict | None = None) -> Player:
    try:
        neural = importlib.import_module("climbrl.policies.neural")
    except ModuleNotFoundError as err:
        if err.name in ("climbrl.policies.neural", "policies"):
            raise ValueError(
                f"loading the checkpoint {path!r} needs climbrl.policies.neural (the trainer's module), "
                "which this tree does not have yet"
            ) from err
        raise
    if shared is not None:
        knobs = {**knobs, "shared": shared}
    player = neural.load(path, game, **knobs) if knobs else neural.load(path, game)
    if not isinstance(player, Player):
        raise ValueError(
            f"climbrl.policies.neural.load({path!r}, {game!r}) returned {type(player).__name__}, "
            "not a climbrl.policies.base.Player"
        )
    if seed is not None:
        player.seed(seed)
    return player


def _load_search(game: str, spec: str, seed: int | None, folder: Path | None,
                 knobs: dict, shared: dict | None = None) -> Player:
    """The searching CPU ``search:<path>:knob=value...`` (:mod:`climbrl.policies.search`); a relative
    path is read from ``folder`` when given (the CPU config's)."""
    path, texts = search.split_spec(spec)
    if folder is not None:
        path = str(folder / path)
    spec_knobs = parse_spec(SPEC_SEPARATOR.join([search.PREFIX, *texts]))[1]
    network = _load_checkpoint(_shipped_cpu(path), game, None, {}, shared)
    family = _family(game)
    return search.NetworkSearch(network, lambda **kw: family.make("hard", None, **kw), seed,
                                name=spec.strip(), **{**spec_knobs, **knobs})


def knob_value(text: str) -> Any:
    """A knob or switch value from text: ``true``/``false``, an int, a float, else the text."""
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text
