"""What a trained model is tied to: what its network reads (the game, its env version, the
observation layout and bounds, the action features' layout, the seat rows of the history),
and the roles that get their own network. Pure Python and numpy (no torch), so an exported
CPU player can check it is being loaded into the right game.

A *spec* is a plain dict recorded in every checkpoint and exported player::

    {"game": "daifugo", "env_version": 1, "num_players": 4, "config": {...},
     "layout": {"hand": [53], ...}, "num_actions": 7989, "action_features": "sha256:...",
     "seat_rows": 4, "obs_bounds": "sha256:...",
     "action_schema": {"name": "daifugo-moves-1", "width": 52}}

:func:`check_spec` compares what the network reads (:func:`reads`) and raises a
``ValueError`` that lists every difference. A game whose observation carries its rules
(``game.observes_rules``: Daifugo / President since v1) is checked on the layout, the seat
rows and the action features' schema only, so a model plays every table of its game (any
rules, player count, round count) and its catalog (the feature rows are read from the
live game). Other games (Dou Dizhu) are also checked on their config, player count and
action table. The reward mode is never compared: it changes what a seat earns, not what
the network reads. A model of another env version is refused in one line saying why.

Roles, sides and starts come from the game (``climbrl.envs.core.game``): :func:`roles`, :func:`role_of`
and the rest read its members, with the defaults of one seat-relative network (role
``"seat"``) for an engine without them; games are made through the registry ``climbrl.envs.GAMES``.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np

from climbrl.envs import GAMES, game_entry
from climbrl.envs.core.game import GameDefaults

SEAT_ROLES = GameDefaults.roles
HIDDEN_MOVE_SUFFIX = "?"
"""A move another seat made face down (``give ?``) shows with this suffix in a view."""
NO_ACTION = -1
STATE_DICT_HEADER = "Error(s) in loading state_dict"
"""The first line of torch's complaint about a state dict; the lines after it say what."""


class CheckpointError(ValueError):
    """A model file (training checkpoint, exported ``cpu.json`` or ``.onnx``) that cannot be
    used: missing, empty, damaged or of another kind. The message names the file and what is
    wrong with it."""


def load_role_weights(net: Any, models: dict[str, Any], role: str, where: str) -> None:
    """Fill ``net`` (a torch module) with the state dict ``models[role]``. A missing role, or
    weights of other names or shapes, raise a :class:`CheckpointError` that names ``where``
    (the file), the role and torch's first complaint (``size mismatch for lstm....``)."""
    if role not in models:
        raise CheckpointError(f"{where}: it holds no weights for role {role!r}")
    try:
        net.load_state_dict(models[role])
    except RuntimeError as err:
        lines = [line.strip() for line in str(err).splitlines() if line.strip()]
        detail = next((line for line in lines if not line.startswith(STATE_DICT_HEADER)),
                      lines[0] if lines else type(err).__name__)
        raise CheckpointError(f"{where}: the weights of role {role!r} do not fit the network "
                              f"it records ({detail})") from None


def make_game(game: str, players: int | None = None, rules: dict | None = None,
              reward: str | None = None):
    """The engine for a game name, player count, rule overrides and reward mode."""
    return game_entry(game).make(players, rules, reward)


def game_from_spec(spec: dict[str, Any]):
    """Rebuild the engine a spec was recorded from."""
    name = spec["game"]
    if name not in GAMES:
        raise ValueError(f"unknown game {name!r} in spec; games are {', '.join(GAMES)}")
    return GAMES[name].from_config(spec["config"])


def action_features(game) -> np.ndarray:
    """The static float32 feature table ``[num_actions, F]`` of the game's actions: the
    engine's ``action_features()``, or its catalog's (Dou Dizhu keeps it there)."""
    for owner in (game, getattr(game, "catalog", None)):
        if hasattr(owner, "action_features"):
            return owner.action_features()
    raise ValueError(f"game {game.name!r} has no action_features(): the neural players need "
                     "a static per-action feature table")


def seat_rows(game) -> int:
    """Seat rows the network reads for the history's movers: the engine's ``seat_rows`` (the
    largest table of its preset, so every table of the game has the same rows), else its
    player count."""
    return getattr(game, "seat_rows", game.num_players)


def lookup_tables(action_features: np.ndarray, rows: int):
    """The action feature table and the mover one-hot table (``rows`` seat rows), each with
    an extra all-zero last row that id -1 (padding, or a move shown face down) reads."""
    num_actions, feat = action_features.shape
    table = np.zeros((num_actions + 1, feat), np.float32)
    table[:num_actions] = action_features
    movers = np.zeros((rows + 1, rows), np.float32)
    movers[:rows] = np.eye(rows, dtype=np.float32)
    return table, movers


def _history_rows(game, state, seat: int, count: int) -> np.ndarray:
    """``recent_actions`` for engines that keep ``state.history`` as ``(seat, action)`` rows
    and show every move face up."""
    out = np.full((count, 2), NO_ACTION, np.int64)
    rows = state.history[-count:] if count else []
    players = game.num_players
    for i, (mover, action) in enumerate(rows, start=count - len(rows)):
        out[i, 0] = (mover - seat) % players
        out[i, 1] = action
    return out


def recent_actions_fn(game):
    """``f(state, seat, count)``: the last moves as rows ``(mover relative to seat, action id)``,
    oldest first, padded with -1: the engine's ``recent_actions``, or the same rows read from
    ``state.history``."""
    if hasattr(game, "recent_actions"):
        return game.recent_actions
    return lambda state, seat, count: _history_rows(game, state, seat, count)


def features_digest(features: np.ndarray) -> str:
    data = np.ascontiguousarray(features, np.float32)
    return "sha256:" + hashlib.sha256(str(data.shape).encode() + data.tobytes()).hexdigest()[:16]


def _plain(value: Any) -> Any:
    """JSON round trip, so a spec compares equal before and after saving."""
    return json.loads(json.dumps(value))


def _bounds_digest(layout) -> str:
    low, high = layout.low_high()
    return features_digest(np.stack([low, high]))


def model_spec(game, features: np.ndarray | None = None) -> dict[str, Any]:
    """The spec of ``game`` (``features``: its action feature table, when already at hand)."""
    features = action_features(game) if features is None else features
    spec = {
        "game": game.name,
        "env_version": game.version,
        "num_players": game.num_players,
        "config": game.config_dict(),
        "layout": game.layout.to_dict(),
        "num_actions": game.num_actions,
        "action_features": features_digest(features),
    }
    if getattr(game, "observes_rules", False):
        spec["seat_rows"] = seat_rows(game)
        spec["obs_bounds"] = _bounds_digest(game.layout)
        spec["action_schema"] = {"name": game.action_feature_schema,
                                 "width": int(features.shape[1])}
    return _plain(spec)


def reads(spec: dict[str, Any]) -> dict[str, Any]:
    """The part of a spec that the network reads, which :func:`check_spec` compares: the
    game, env version and layout; then, where the observation carries the rules (an
    ``action_schema`` in the spec), the seat rows, the bounds and the action features'
    schema; else the player count, the config but its reward mode, and the action table."""
    out = {key: spec.get(key) for key in ("game", "env_version", "layout")}
    if "action_schema" in spec:
        out.update({key: spec.get(key) for key in ("seat_rows", "obs_bounds", "action_schema")})
    else:
        config = {k: v for k, v in (spec.get("config") or {}).items() if k != "reward"}
        out.update(num_players=spec.get("num_players"), config=config,
                   num_actions=spec.get("num_actions"),
                   action_features=spec.get("action_features"))
    return out


def _diff(path: str, saved: Any, live: Any, out: list[str]) -> None:
    if isinstance(saved, dict) and isinstance(live, dict):
        for key in list(saved) + [k for k in live if k not in saved]:
            where = f"{path}.{key}" if path else str(key)
            if key not in live:
                out.append(f"{where}: {saved[key]!r} in the model, absent in the env")
            elif key not in saved:
                out.append(f"{where}: absent in the model, {live[key]!r} in the env")
            else:
                _diff(where, saved[key], live[key], out)
    elif saved != live:
        out.append(f"{path}: {saved!r} in the model, {live!r} in the env")


def spec_differences(saved: dict[str, Any], live: dict[str, Any]) -> list[str]:
    """Every difference in what the network reads (:func:`reads`) between two specs."""
    out: list[str] = []
    _diff("", reads(_plain(saved)), reads(_plain(live)), out)
    return out


def version_error(saved: dict[str, Any], game, what: str = "model") -> str | None:
    """One line saying why a model of another game or env version cannot play ``game``
    (None when both match)."""
    name, version = saved.get("game"), saved.get("env_version")
    if name != game.name:
        return f"this {what} was trained on {name!r}, not {game.name!r}"
    if version == game.version:
        return None
    reason = getattr(game, "obsolete_versions", {}).get(version)
    why = f", and {reason}" if reason else ""
    return (f"this {what} was trained on the observation of {name}_v{version}, which this "
            f"env ({name}_v{game.version}) no longer has{why}: retrain it on "
            f"{name}_v{game.version}")


def check_spec(saved: dict[str, Any], game, what: str = "model",
               features: np.ndarray | None = None) -> None:
    """Raise a ``ValueError``: one line when ``saved`` is of another game or env version,
    else naming every difference in what the network reads (:func:`reads`)."""
    wrong_version = version_error(saved, game, what)
    if wrong_version:
        raise ValueError(wrong_version)
    diffs = spec_differences(saved, model_spec(game, features))
    if diffs:
        env = f"{saved.get('game')}_v{saved.get('env_version')}"
        raise ValueError(
            f"this {what} was trained on {env} with other settings than this env; "
            "differences:\n  " + "\n  ".join(diffs)
        )


# -- roles ---------------------------------------------------------------------------------------


def roles(game) -> tuple[str, ...]:
    """The names of the networks ``game`` trains (``game.roles``)."""
    return tuple(getattr(game, "roles", SEAT_ROLES))


def role_of(game, state, seat: int) -> int:
    """Index into :func:`roles` of the network that decides for ``seat`` in ``state``."""
    return game.role_of(state, seat) if hasattr(game, "role_of") else 0


def role_from_view(game, view: dict[str, Any]) -> int:
    return game.role_from_view(view) if hasattr(game, "role_from_view") else 0


def return_groups(game, state) -> list[tuple[str, int]]:
    """``(name, seat)`` pairs under which an episode's returns are logged (none: the episode
    ended unscored): ``game.return_groups``, else by seat."""
    if hasattr(game, "return_groups"):
        return game.return_groups(state)
    return GameDefaults.return_groups(game, state)


def history_from_view(game, view: dict[str, Any], count: int) -> np.ndarray:
    """The same rows as ``game.recent_actions(state, seat, count)``, rebuilt from a view's
    ``history`` of ``(seat, text)``: ``(mover relative to the viewer, action id)``, oldest first,
    padded with ``(-1, -1)``; a move shown face down (``give ?``) has id -1."""
    out = np.full((count, 2), NO_ACTION, np.int64)
    rows = view["history"][-count:] if count else []
    seat, players = view["seat"], game.num_players
    for i, (mover, text) in enumerate(rows, start=count - len(rows)):
        out[i, 0] = (mover - seat) % players
        out[i, 1] = NO_ACTION if text.endswith(HIDDEN_MOVE_SUFFIX) else game.action_from_str(text)
    return out


def won(game, state, seat: int) -> bool:
    """The seat won the finished episode (``game.won``: by default the match winner where the
    state names one, else a positive return)."""
    if hasattr(game, "won"):
        return game.won(state, seat)
    return GameDefaults.won(game, state, seat)


def episode_starter(game, start: dict[str, Any] | None = None):
    """``f(rng) -> state``: a new training episode with the game's start options ``start``
    (``game.episode_starter``; a game without any refuses every option in one line)."""
    start = dict(start or {})
    if hasattr(game, "episode_starter"):
        return game.episode_starter(**start)
    if start:
        raise ValueError(f"{next(iter(start))} is not a training start option of "
                         f"{game.name!r} (it has none)")
    return game.new_state
