"""Walking through PettingZoo games in tests."""

from __future__ import annotations

from climbrl.envs.core.aec import turns


def live_turns(env, seeds):
    """Every decision of the games dealt with ``seeds`` (``env.reset(seed=...)``): yields
    ``(agent, observation, seat)`` (:func:`climbrl.envs.core.aec.turns`) and the caller steps the env."""
    for seed in seeds:
        env.reset(seed=seed)
        yield from turns(env)
