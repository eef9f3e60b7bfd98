"""climbrl environments: PettingZoo AEC environments for climbing card games.

``from envs import daifugo_v0, president_v0, doudizhu_v0`` imports an environment module;
importing :mod:`envs` registers them with PettingZoo so that
``pettingzoo.make("aec", "climbrl/daifugo-v0")`` works (the modules load on first use).

The rules engines (:mod:`envs.daifugo`, :mod:`envs.doudizhu`) are pure Python and numpy; only
the ``*_v0`` adapter modules and :mod:`envs.core.aec` import PettingZoo.
"""

from __future__ import annotations

ENV_IDS = {
    "climbrl/daifugo-v0": "envs.daifugo_v0:env",
    "climbrl/president-v0": "envs.president_v0:env",
    "climbrl/doudizhu-v0": "envs.doudizhu_v0:env",
}


def _register() -> None:
    import pettingzoo

    for env_id, entry_point in ENV_IDS.items():
        if env_id not in pettingzoo.aec_registry:
            pettingzoo.register("aec", env_id, entry_point=entry_point)


_register()
