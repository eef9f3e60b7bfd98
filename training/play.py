"""Sit at the table with the CPUs: ``climbrl play --game daifugo --cpus hard,medium,medium``.

The human takes seat ``seat`` (0 by default) and the CPUs the others, in order. Every CPU move
is printed as it is made, the position before each of the human's turns (through
:class:`policies.human.TerminalPlayer`), and the places and scores after each round.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from envs.core.aec import turns

from .evaluate import CLIMBING, make_env

STREAM_CPUS = 3


def play_match(
    game: str,
    cpus: Sequence[str],
    rounds: int | None = None,
    seed: int | None = None,
    rules: dict[str, Any] | None = None,
    seat: int = 0,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
) -> list[float] | None:
    """Play one match; returns the final scores (``None`` when the human quits)."""
    import policies
    from policies.human import QuitGame, TerminalPlayer

    table = len(cpus) + 1
    if not 0 <= seat < table:
        raise ValueError(f"seat must be 0..{table - 1}, got {seat}")
    env = make_env(game, table, rounds, dict(rules or {}))
    env.reset(seed=seed)
    raw = env.unwrapped
    human = TerminalPlayer(game, read=read, write=write).bind(raw.game)
    players: list = []
    cpu_iter = iter(cpus)
    for s in range(table):
        if s == seat:
            players.append(human)
            continue
        cpu = policies.load(game, next(cpu_iter), seed=np.random.SeedSequence([seed or 0, STREAM_CPUS, s]))
        players.append(cpu.bind(raw.game))
    names = [("you" if s == seat else f"player_{s} ({players[s].name})") for s in range(table)]
    write(f"{game}: you are player_{seat}; " + ", ".join(names[s] for s in range(table) if s != seat))
    climbing = game in CLIMBING
    for _agent, obs, s in turns(env):
        try:
            action = players[s].act(obs, raw.view(s))
        except QuitGame:
            write("bye")
            return None
        round_before = raw.game_state.round if climbing else None
        if s != seat:
            move = raw.action_to_str(action)
            shown = "give ?" if move.startswith("give") else move
            write(f"{names[s]}: {shown}")
        env.step(action)
        if climbing and raw.game_state.round != round_before:
            write(_round_summary(raw))
    scores = list(raw.game_state.scores) if climbing else list(raw.game_state.returns())
    write(f"match over: scores {scores}")
    return scores


def _round_summary(raw) -> str:
    state = raw.game_state
    rules = raw.game.rules
    order = sorted(range(raw.game.num_players), key=lambda s: state.titles[s])
    parts = [f"player_{s} {rules.titles[state.titles[s]]}" for s in order]
    return "round over: " + ", ".join(parts) + f" | scores {state.scores}"
