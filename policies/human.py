"""A human at the terminal, as a player like any other (:class:`climbrl.policies.base.Player`).

It shows the position (hand, pile, state), reads a move typed as card text (``7s 7h``,
``pass``, ``give 3s``; Dou Dizhu ``33344``, ``bid 2``), rejects an illegal one with the reason,
and answers ``moves`` (the legal moves by shape), ``hint`` (the next suggestion,
:mod:`climbrl.policies.hints`), ``help`` (the game's own) and ``quit`` / ``exit`` (or end of input).
Text that reads as a move is always a move, so a Dou Dizhu ``Q`` plays the queen. When
``pass`` is the only legal move it passes with a line saying so (``auto_pass=False``: it asks).
Input and output are functions, so tests drive it with scripted lines.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .base import Player, legal_ids
from .hints import Hints

COMMANDS_MOVES = ("moves", "legal", "m")
COMMANDS_HINT = ("hint", "h")
COMMANDS_HELP = ("help", "?")
#: no one-letter form: ``q`` is the Dou Dizhu queen
COMMANDS_QUIT = ("quit", "exit")
PASS_TEXT = "pass"


class QuitGame(Exception):
    """The human typed ``quit`` (or the input ended)."""


class TerminalPlayer(Player):
    """Reads moves from ``read`` (``input`` by default) and writes to ``write`` (``print``)."""

    name = "human"

    def __init__(
        self,
        game_name: str,
        read: Callable[[str], str] = input,
        write: Callable[[str], None] = print,
        seed=None,
        auto_pass: bool = True,
    ):
        super().__init__(seed)
        self.game_name = game_name
        self.read = read
        self.write = write
        self.auto_pass = auto_pass
        self.talk = None
        self.hints = None

    def bind(self, game) -> TerminalPlayer:
        if game is not self.game:
            from climbrl import policies

            super().bind(game)
            self.talk = talk_for(self.game_name, game)
            self.hints = Hints(policies.load(self.game_name, "scripted-medium").bind(game))
        return self

    def act(self, observation: dict[str, Any], view: dict[str, Any]) -> int:
        self._require_game()
        legal = legal_ids(observation)
        if self.auto_pass and len(legal) == 1 and self.talk.move_text(legal[0]) == PASS_TEXT:
            self.write(f"nothing to play (your hand: {view['hand']}): you pass")
            return legal[0]
        self.write(self.talk.describe(view))
        while True:
            try:
                text = self.read("your move> ").strip()
            except EOFError:
                raise QuitGame from None
            if not text:
                continue
            try:
                action = self.talk.parse(text, view)
            except ValueError as err:
                if not self._command(text.lower(), observation, view, legal):
                    self.write(f"not a move: {err} (type 'help')")
                continue
            if action in legal:
                return action
            self.write(f"illegal: {self.talk.explain(action, view, legal)}")

    def _command(self, word: str, observation, view, legal: list[int]) -> bool:
        """Answer a command word (text that is not a move); False if it is none."""
        if word in COMMANDS_HELP:
            self.write(self.talk.help)
        elif word in COMMANDS_QUIT:
            raise QuitGame
        elif word in COMMANDS_MOVES:
            self.write(self.talk.moves_text(legal))
        elif word in COMMANDS_HINT:
            self.write("hint: " + self.talk.move_text(self.hints.next(observation, view)))
        else:
            return False
        return True


def talk_for(game_name: str, game):
    """The terminal text of ``game_name`` for ``game``: the ``TALK`` of the game's bots package
    (``climbrl.envs.GAMES``; ``DaifugoTalk``, ``DoudizhuTalk``)."""
    import importlib

    from climbrl import envs

    bots = envs.GAMES[game_name].bots if game_name in envs.GAMES else None
    if bots is None:
        raise ValueError(f"no terminal table for game {game_name!r}")
    return importlib.import_module(f"{bots}.talk").TALK(game)
