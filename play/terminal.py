"""Sit at the table with the CPUs: ``climbrl play --game daifugo --cpus hard,medium,medium``.

The human takes seat ``seat`` (0 by default) and the CPUs the others, in order. The position
is shown before each of the human's turns (:class:`climbrl.policies.human.TerminalPlayer`); every
other seat's move is printed as it is made, with what it did, as the human's seat sees it
(revolutions, cuts, locks, players going out, the exchange, each round's places and points,
the match's winner; Dou Dizhu: the landlord, bombs, which side won and the points).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from climbrl import envs
from climbrl.envs.core.aec import turns
from climbrl.training.evaluate import PLACES, make_env, scoring

STREAM_CPUS = 3


def check_table(game: str, cpus: Sequence[str]) -> int:
    """The table size of you and ``cpus``; a ``ValueError`` that says how many CPUs to list
    when the game does not seat that many."""
    entry = envs.game_entry(game)
    table = len(cpus) + 1
    if table not in entry.table_sizes:
        raise ValueError(f"{entry.title} seats {entry.seats_text()} players: --cpus lists the "
                         f"{entry.seats_text(less=1)} CPUs besides you (got {len(cpus)})")
    return table


class Match:
    """One match at the terminal, checked and set up (a ``ValueError`` for a bad seat, rule
    or CPU name) before :meth:`play` starts it."""

    def __init__(
        self,
        game: str,
        cpus: Sequence[str],
        rounds: int | None = None,
        seed: int | None = None,
        rules: dict[str, Any] | None = None,
        seat: int = 0,
        read: Callable[[str], str] = input,
        write: Callable[[str], None] = print,
        auto_pass: bool = True,
    ):
        from climbrl import policies
        from climbrl.policies.human import TerminalPlayer, talk_for

        table = check_table(game, cpus)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < table:
            raise ValueError(f"seat must be 0..{table - 1}, got {seat!r}")
        self.game, self.seat, self.write = game, seat, write
        self.env = env = make_env(game, table, rounds, dict(rules or {}))
        env.reset(seed=seed)
        raw = env.unwrapped
        self.human = TerminalPlayer(game, read=read, write=write, auto_pass=auto_pass)
        self.human.bind(raw.game)
        self.players: list = []
        cpu_iter = iter(cpus)
        for s in range(table):
            if s == seat:
                self.players.append(self.human)
                continue
            stream = np.random.SeedSequence([seed or 0, STREAM_CPUS, s])
            self.players.append(policies.load(game, next(cpu_iter), seed=stream).bind(raw.game))
        self.names = [("you" if s == seat else f"player_{s} ({self.players[s].name})")
                      for s in range(table)]
        self.talk = talk_for(game, raw.game)

    def play(self) -> list[float] | None:
        """Play the match to its end; the final scores (``None`` when the human quits)."""
        from climbrl.policies.human import QuitGame

        env, raw, seat, write = self.env, self.env.unwrapped, self.seat, self.write
        others = ", ".join(self.names[s] for s in range(len(self.names)) if s != seat)
        write(f"{self.game}: you are player_{seat}; {others}")
        for line in self.talk.opening(raw.view(seat), self.names):
            write(line)
        for _agent, obs, s in turns(env):
            before = raw.view(seat)
            try:
                action = self.players[s].act(obs, raw.view(s))
            except QuitGame:
                write("bye")
                return None
            env.step(action)
            for line in self.talk.narrate(before, raw.view(seat), s, action, self.names):
                write(line)
        state = raw.game_state
        return list(state.scores) if scoring(self.game) == PLACES else list(state.returns())


def play_match(
    game: str,
    cpus: Sequence[str],
    rounds: int | None = None,
    seed: int | None = None,
    rules: dict[str, Any] | None = None,
    seat: int = 0,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
    auto_pass: bool = True,
) -> list[float] | None:
    """Play one match (:class:`Match`); returns the final scores (``None`` when the human
    quits)."""
    return Match(game, cpus, rounds, seed, rules, seat, read, write, auto_pass).play()
