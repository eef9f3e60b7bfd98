"""A CPU level with fallbacks: the first of its players that can play the table it is bound to.

A trained CPU plays the tables its network reads (a Dou Dizhu network, the classic game: not
the laizi, rob or open-hand variants), a scripted player every table of its game. A level of
``configs/cpus.yaml`` may therefore list its players in order of preference::

    doudizhu:
      easy: [../cpus/doudizhu:temperature=0.1, scripted-easy]

and :meth:`FallbackPlayer.bind` seats the first one whose own ``bind`` accepts the game (its
refusal names what differs; :attr:`FallbackPlayer.refusals` keeps those reasons). When none
accepts, ``ValueError`` gives every player's reason. Only the seated player acts; every one of
them is reseeded with :meth:`seed`, so a seeded match replays exactly whichever one plays.
"""

from __future__ import annotations

from collections.abc import Sequence

from .base import Player


class FallbackPlayer(Player):
    """The players of a level, tried in order at each :meth:`bind` (module docstring)."""

    def __init__(self, players: Sequence[Player], name: str = "level"):
        super().__init__(None)
        if not players:
            raise ValueError(f"level {name!r} lists no player")
        self.players = list(players)
        self.name = name
        self.active: Player | None = None
        self.refusals: list[str] = []

    @property
    def fingerprint(self) -> str | None:
        """Its players' fingerprints, joined (None when none is trained)."""
        digests = [p.fingerprint for p in self.players if p.fingerprint is not None]
        return "+".join(digests) if digests else None

    def seed(self, seed) -> None:
        super().seed(seed)
        for player in self.players:
            player.seed(seed)

    def bind(self, game) -> FallbackPlayer:
        if game is self.game and self.active is not None:
            return self
        refusals = []
        for player in self.players:
            try:
                player.bind(game)
            except (ValueError, TypeError) as err:
                refusals.append(f"{player.name}: {err}")
                continue
            self.active, self.game, self.refusals = player, game, refusals
            return self
        raise ValueError(f"no player of level {self.name!r} can play "
                         f"{getattr(game, 'name', game)!r}: " + "; ".join(refusals))

    def act(self, observation, view) -> int:
        self._require_game()
        return self.active.act(observation, view)

    def __repr__(self) -> str:
        return f"FallbackPlayer({self.name!r}, {[p.name for p in self.players]})"
