"""Walking through PettingZoo games in tests."""

from __future__ import annotations


def live_turns(env, seeds):
    """Every decision of the games dealt with ``seeds`` (``env.reset(seed=...)``): yields
    ``(agent, observation, seat)`` and the caller steps the env; finished agents are stepped
    with ``None`` here."""
    seat_of = {agent: seat for seat, agent in enumerate(env.unwrapped.possible_agents)}
    for seed in seeds:
        env.reset(seed=seed)
        for agent in env.agent_iter():
            observation, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            yield agent, observation, seat_of[agent]
