"""The engines with numpy alone: ``python .ci/numpy_only.py`` with a Python where climbrl is
installed without its dependencies (``pip install --no-deps``) beside numpy (``--hide`` makes
any other Python behave so, for the test suite). It imports ``climbrl.envs`` and both engines, plays a game
with each, checks that no PettingZoo, gymnasium, PyYAML or torch was imported, and that an
environment module refuses to load with a message naming what is missing. Exits 1 on a
failure."""

from __future__ import annotations

import sys

NOT_NEEDED = ("pettingzoo", "gymnasium", "yaml", "torch")


def main() -> None:
    if "--hide" in sys.argv:
        for name in NOT_NEEDED:
            sys.modules[name] = None  # as if not installed: importing it fails
    import numpy as np

    from climbrl import envs
    from climbrl.envs.daifugo import DaifugoGame, Rules
    from climbrl.envs.doudizhu import DoudizhuGame

    for game in (DaifugoGame(Rules.preset("daifugo", 4)), DoudizhuGame()):
        state = game.new_state(np.random.default_rng(0))
        while not state.terminal:
            state.apply(state.legal_actions()[0])
        print(f"ok: {type(game).__name__} played a game with numpy {np.__version__} alone")
    loaded = sorted({m.split(".")[0] for m, v in sys.modules.items() if v is not None}
                    & set(NOT_NEEDED))
    if loaded or not envs.GAMES:
        sys.exit(f"FAIL: the engines imported {loaded}")
    try:
        from climbrl.envs import daifugo_v1  # noqa: F401
    except ImportError as err:
        print(f"ok: climbrl.envs.daifugo_v1 refuses: {err}")
    else:
        sys.exit("FAIL: climbrl.envs.daifugo_v1 imported without PettingZoo")


if __name__ == "__main__":
    main()
