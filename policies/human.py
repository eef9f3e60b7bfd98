"""A human at the terminal, as a player like any other (:class:`policies.base.Player`).

It shows the position (hand, pile, state), reads a move typed as card text (``7s 7h``,
``pass``, ``give 3s``), rejects an illegal one with the reason, and answers ``moves`` (the
legal moves), ``hint`` (the next suggestion, :mod:`policies.hints`), ``help`` and ``quit``.
Input and output are functions, so tests drive it with scripted lines.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .base import Player, legal_ids
from .hints import Hints

HELP = """type a move as cards ('7s 7h', '3s JK=4s 5s', 'JK'), 'pass', or in the exchange
'give 3s'; 'moves' lists your legal moves, 'hint' suggests one (again: the next), 'quit' ends."""
COMMANDS_MOVES = ("moves", "legal", "m")
COMMANDS_HINT = ("hint", "h")
COMMANDS_HELP = ("help", "?")
COMMANDS_QUIT = ("quit", "exit", "q")


class QuitGame(Exception):
    """The human typed ``quit``."""


class TerminalPlayer(Player):
    """Reads moves from ``read`` (``input`` by default) and writes to ``write`` (``print``)."""

    name = "human"

    def __init__(
        self,
        game_name: str,
        read: Callable[[str], str] = input,
        write: Callable[[str], None] = print,
        seed=None,
    ):
        super().__init__(seed)
        self.game_name = game_name
        self.read = read
        self.write = write
        self.talk = None
        self.hints = None

    def bind(self, game) -> TerminalPlayer:
        if game is not self.game:
            import policies

            super().bind(game)
            self.talk = _talk_for(self.game_name, game)
            self.hints = Hints(policies.load(self.game_name, "scripted-medium").bind(game))
        return self

    def act(self, observation: dict[str, Any], view: dict[str, Any]) -> int:
        self._require_game()
        legal = legal_ids(observation)
        self.write(self.talk.describe(view))
        while True:
            text = self.read("your move> ").strip()
            word = text.lower()
            if not word:
                continue
            if word in COMMANDS_HELP:
                self.write(HELP)
            elif word in COMMANDS_QUIT:
                raise QuitGame
            elif word in COMMANDS_MOVES:
                self.write("legal moves: " + " | ".join(self.talk.move_text(a) for a in legal))
            elif word in COMMANDS_HINT:
                self.write("hint: " + self.talk.move_text(self.hints.next(observation, view)))
            else:
                try:
                    action = self.talk.parse(text, view)
                except ValueError as err:
                    self.write(f"not a move: {err} (type 'help')")
                    continue
                if action in legal:
                    return action
                self.write(f"illegal: {self.talk.explain(action, view, legal)}")


def _talk_for(game_name: str, game):
    if game_name in ("daifugo", "president"):
        from .daifugo.talk import DaifugoTalk

        return DaifugoTalk(game)
    if game_name == "doudizhu":
        from .doudizhu.talk import DoudizhuTalk

        return DoudizhuTalk(game)
    raise ValueError(f"no terminal table for game {game_name!r}")
