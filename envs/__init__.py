"""climbrl environments: PettingZoo AEC environments for climbing card games.

``from climbrl.envs import daifugo_v1, president_v1, doudizhu_v1`` imports an environment module;
importing :mod:`climbrl.envs` registers them with PettingZoo so that
``pettingzoo.make("aec", "climbrl/daifugo-v1")`` works (the modules load on first use);
:data:`GAMES` registers each game (:class:`climbrl.envs.core.game.GameEntry`: its env module, engine,
bots and table sizes), the one place that lists them; :data:`ENV_MODULES` names each game's
current module.

The rules engines (:mod:`climbrl.envs.daifugo`, :mod:`climbrl.envs.doudizhu`) are pure Python and numpy; only
the ``*_vN`` adapter modules and :mod:`climbrl.envs.core.aec` import PettingZoo. With numpy alone
installed, ``import climbrl.envs`` and the engines still work: the ids are registered only when
PettingZoo is there and has its registry (:data:`PETTINGZOO_FLOOR` on).
"""

from __future__ import annotations

import importlib.util
import warnings

from .core.game import GameEntry
from .daifugo.rules import UECDA_PLAYERS

PETTINGZOO_FLOOR = "1.27"
"""the first PettingZoo with ``pettingzoo.register`` and ``pettingzoo.aec_registry``"""
UECDA_MATCH_ROUNDS = 5
"""rounds per UECda match in tournaments and training (the env's default is the championship's
class block of 100): the first round without the exchange, four with it, one reseating"""
GAMES: dict[str, GameEntry] = {
    "daifugo": GameEntry("daifugo", "Daifugo", "climbrl.envs.daifugo_v1", "climbrl.envs.daifugo",
                         table_sizes=(3, 4), default_players=4, bots="climbrl.policies.daifugo",
                         train_config="daifugo4"),
    "president": GameEntry("president", "President", "climbrl.envs.president_v1", "climbrl.envs.daifugo",
                           table_sizes=tuple(range(3, 9)), default_players=4,
                           bots="climbrl.policies.daifugo", train_config="president"),
    "uecda": GameEntry("uecda", "UECda", "climbrl.envs.uecda_v1", "climbrl.envs.daifugo",
                       table_sizes=(UECDA_PLAYERS,), default_players=UECDA_PLAYERS,
                       bots="climbrl.policies.daifugo", train_config="uecda",
                       match_rounds=UECDA_MATCH_ROUNDS),
    "doudizhu": GameEntry("doudizhu", "Dou Dizhu", "climbrl.envs.doudizhu_v1", "climbrl.envs.doudizhu",
                          table_sizes=(3, 4), default_players=3, bots="climbrl.policies.doudizhu",
                          train_config="doudizhu"),
}
"""every game, by name (Daifugo, President and UECda share one engine and its bots)"""
DEFAULT_GAME = "daifugo"
"""the game a training run plays when its settings name none"""
ENV_MODULES = {name: entry.env_module for name, entry in GAMES.items()}
"""the current environment module of each game"""
ENV_IDS = {
    "climbrl/daifugo-v1": "climbrl.envs.daifugo_v1:env",
    "climbrl/president-v1": "climbrl.envs.president_v1:env",
    "climbrl/uecda-v1": "climbrl.envs.uecda_v1:env",
    "climbrl/doudizhu-v1": "climbrl.envs.doudizhu_v1:env",
}


def _register() -> None:
    if importlib.util.find_spec("pettingzoo") is None:
        return  # the engines need numpy only; the env modules say what they miss
    try:
        import pettingzoo
    except ImportError:
        return  # a PettingZoo without its own dependencies: the env modules raise the error
    if not hasattr(pettingzoo, "register"):
        version = getattr(pettingzoo, "__version__", "?")
        warnings.warn(
            f"pettingzoo {version} has no environment registry (it came in "
            f"{PETTINGZOO_FLOOR}): the climbrl ids are not registered; "
            f"pip install 'pettingzoo>={PETTINGZOO_FLOOR}'",
            stacklevel=3,
        )
        return
    for env_id, entry_point in ENV_IDS.items():
        if env_id not in pettingzoo.aec_registry:
            pettingzoo.register("aec", env_id, entry_point=entry_point)


_register()


def game_entry(name: str) -> GameEntry:
    """The registered game called ``name``; ``ValueError`` naming it and the games."""
    entry = GAMES.get(name) if isinstance(name, str) else None
    if entry is None:
        raise ValueError(f"unknown game {name!r}; games are {', '.join(GAMES)}")
    return entry


def start_options() -> dict[str, list[str]]:
    """Every training start option a registered game offers -> the titles of those games."""
    out: dict[str, list[str]] = {}
    for entry in GAMES.values():
        try:
            options = entry.game_class.start_options
        except ValueError:
            continue  # an engine not importable here offers nothing
        for key in options:
            titles = out.setdefault(key, [])
            if entry.title not in titles:
                titles.append(entry.title)
    return out
