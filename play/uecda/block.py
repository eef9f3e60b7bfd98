"""A UECda class block as the client keeps it, shown to the player as a later round of a match.

The official server plays blocks of 100 games; the classes carry from each game to the next
(across a reseating too), and the first game of a block has no classes and no exchange (its
start table shows every class as 0). Our UECda network trains on matches of a few rounds
(``configs/uecda.yaml``: 5): round 1 without titles, scores or exchange, rounds 2 on with the
last round's places as titles, the points so far as scores, and the exchange's cards.

:class:`Block` keeps the points of every game of the block so far and maps game ``k`` (0 the
block's first) to round ``min(k, rounds - 1)`` of a ``rounds``-round match whose scores are the
points of the games that round has behind it (the last ``min(k, rounds - 1)`` games): the
block's first game is a match's first round, its second game the second round with the first
game's points, and every game from the ``rounds``-th on the match's last round with the points
of the ``rounds - 1`` games before it. A position of the block is so always a position the
player met in training: titles that are the last game's places, scores that sum the points of
the rounds before.
"""

from __future__ import annotations

from .rules import PLAYERS, POINTS

#: the rounds of an episode of ``configs/uecda.yaml`` (the match a UECda network trains on):
#: the match a player that records no training configuration is shown
DEFAULT_ROUNDS = 5
#: how deep :func:`trained_rounds` looks through players that wrap another
WRAPPED = ("network", "active")


def titles_of(classes) -> list[int] | None:
    """The classes of a start table as titles (place by player), or None when they are no
    classes (the block's first game: all 0)."""
    classes = [int(c) for c in classes]
    return classes if sorted(classes) == list(range(PLAYERS)) else None


def trained_rounds(player) -> int:
    """The rounds of the matches ``player`` was trained on (its recorded configuration; a
    search player's network's, a level's chosen player's), else :data:`DEFAULT_ROUNDS`."""
    seen = set()
    todo = [player]
    while todo:
        p = todo.pop()
        if p is None or id(p) in seen:
            continue
        seen.add(id(p))
        meta = getattr(p, "meta", None)
        if isinstance(meta, dict):
            rounds = (meta.get("spec", {}).get("config", {}).get("rules") or {}).get("rounds")
            if isinstance(rounds, int) and rounds > 0:
                return rounds
        todo += [getattr(p, name, None) for name in WRAPPED]
    return DEFAULT_ROUNDS


class Block:
    """The games of the class block so far (module docstring)."""

    def __init__(self, rounds: int = DEFAULT_ROUNDS):
        if rounds < 1:
            raise ValueError(f"a match has at least 1 round, got {rounds}")
        self.rounds = rounds
        #: points by player of each game of the block so far, oldest first
        self.games: list[list[int]] = []
        self.titles: list[int] | None = None
        self.round = 0
        self.scores = [0] * PLAYERS

    def start_game(self, classes) -> None:
        """A game starts with these classes (row 6 of its start table): set ``titles``,
        ``round`` and ``scores`` for it."""
        titles = titles_of(classes)
        if titles is None:
            self.games = []  # a block opens
        elif self.games:
            # the server's classes are the last game's places: its points follow them, even
            # where the stall guard's draw hid them from us
            self.games[-1] = [POINTS[place] for place in titles]
        self.titles = titles
        played = len(self.games)
        if titles is not None:
            played = max(played, 1)  # classes come from a game before, whether we saw it or not
        self.round = min(played, self.rounds - 1)
        behind = self.games[len(self.games) - self.round:] if self.round else []
        self.scores = [sum(points[p] for points in behind) for p in range(PLAYERS)]

    def end_game(self, places: list[int]) -> None:
        """The game is over with these places (by player), as the client counted them."""
        self.games.append([POINTS[place] for place in places])
