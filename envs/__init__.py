"""climbrl environments: PettingZoo AEC environments for climbing card games.

``from envs import daifugo_v1, president_v1, doudizhu_v1`` imports an environment module;
importing :mod:`envs` registers them with PettingZoo so that
``pettingzoo.make("aec", "climbrl/daifugo-v1")`` works (the modules load on first use);
:data:`ENV_MODULES` names each game's current module.

The rules engines (:mod:`envs.daifugo`, :mod:`envs.doudizhu`) are pure Python and numpy; only
the ``*_vN`` adapter modules and :mod:`envs.core.aec` import PettingZoo. With numpy alone
installed, ``import envs`` and the engines still work: the ids are registered only when
PettingZoo is there and has its registry (:data:`PETTINGZOO_FLOOR` on).

``envs`` is a generic name (another package on PyPI has it): :data:`PROJECT` marks this one,
and :func:`policies.install.check_envs` refuses any other (install climbrl in its own virtualenv).
"""

from __future__ import annotations

import importlib.util
import warnings

PROJECT = "climbrl"
"""marks this ``envs`` as climbrl's"""
PETTINGZOO_FLOOR = "1.27"
"""the first PettingZoo with ``pettingzoo.register`` and ``pettingzoo.aec_registry``"""
ENV_MODULES = {
    "daifugo": "envs.daifugo_v1",
    "president": "envs.president_v1",
    "doudizhu": "envs.doudizhu_v1",
}
"""the current environment module of each game"""
ENV_IDS = {
    "climbrl/daifugo-v1": "envs.daifugo_v1:env",
    "climbrl/president-v1": "envs.president_v1:env",
    "climbrl/doudizhu-v1": "envs.doudizhu_v1:env",
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
