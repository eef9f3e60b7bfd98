"""The one player protocol of climbrl: scripted bots, neural checkpoints and humans alike.

A player is bound to a game (the engine's fixed facts: catalog, rules) once, then asked for
moves::

    player = climbrl.policies.load("daifugo", "medium", seed=0)
    player.bind(env.unwrapped.game)
    action = player.act(observation, env.unwrapped.view(seat))

``observation`` is the env's dict for the seat to move (``observation`` vector and
``action_mask``); ``view`` is ``env.unwrapped.view(seat)``, what that seat may see as plain
values. Nothing else reaches a player: it never sees another seat's hidden cards. Every
random choice comes from the player's own ``numpy.random.Generator``, reset by
:meth:`Player.seed`, so a seeded match replays exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from typing import Any

import numpy as np

from climbrl.envs.core.checks import as_real, as_seed


class Player:
    """Base class of every player. Subclasses implement :meth:`act`; those that need the
    engine's tables (catalog, deck) read ``self.game`` after :meth:`bind`."""

    #: the registry name (``"medium"``, a checkpoint path...), set by :func:`climbrl.policies.load`
    name: str = "player"
    #: the engine classes this player can play (empty: any game); :meth:`bind` refuses others
    game_types: tuple[type, ...] = ()
    #: what those games are called, for that error ("Daifugo / President")
    family: str = ""
    #: knobs a class of the player takes besides its weights (gathered over the class tree)
    KNOBS: tuple[str, ...] = ()
    #: a digest of the trained weights it plays with (None: none, a scripted player): two
    #: players of one name play alike only if these agree (a CPU retrained in place differs)
    fingerprint: str | None = None

    def __init__(self, seed: int | Sequence[int] | np.random.SeedSequence | None = None):
        self.game = None
        if isinstance(seed, (list, tuple)):  # entropy words, as numpy takes them
            seed = np.random.SeedSequence([as_seed(word) for word in seed])
        elif not isinstance(seed, np.random.SeedSequence):
            seed = as_seed(seed)
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | np.random.SeedSequence | None) -> None:
        """Restart the player's random stream (the harness does it before every match)."""
        self.rng = np.random.default_rng(seed)

    def bind(self, game) -> Player:
        """Attach the player to a game (``env.unwrapped.game``); returns the player. Called
        before the first move of a match on a new game; cheap when the game is the same.
        ``TypeError`` for something that is not a game this player can play."""
        self.check_game(game)
        self.game = game
        return self

    def check_game(self, game) -> None:
        """``TypeError`` unless ``game`` is an engine game (``env.unwrapped.game``) of this
        player's family. Subclasses that read the game in ``bind`` call it first."""
        if not hasattr(game, "num_actions") or not hasattr(game, "new_state"):
            hint = " (env.unwrapped.game, not the env)" if hasattr(game, "unwrapped") else ""
            raise TypeError(f"bind takes a climbrl game{hint}, got {game!r}")
        if self.game_types and not isinstance(game, self.game_types):
            raise TypeError(
                f"{self.name!r} is a {self.family} player; it cannot play "
                f"{getattr(game, 'name', type(game).__name__)!r}"
            )

    @classmethod
    def knob_names(cls) -> set[str]:
        """The knobs of the player's classes (:attr:`KNOBS`), for error messages."""
        return {k for c in cls.__mro__ for k in vars(c).get("KNOBS", ())}

    def unknown_knobs(self, knobs: dict, known: set[str] = frozenset()) -> None:
        """``ValueError`` naming the player and every knob it takes, when ``knobs`` is not
        empty (``known``: weights it also takes)."""
        self.refuse_knobs(self.name, knobs, known)

    @classmethod
    def refuse_knobs(cls, name: str, knobs: dict, known: set[str] = frozenset()) -> None:
        """:meth:`unknown_knobs` before a player exists: the player to be, named ``name``."""
        if knobs:
            raise ValueError(
                f"unknown knob(s) {sorted(knobs)} for {name!r}; knobs are "
                f"{sorted(cls.knob_names() | set(known))}"
            )

    def act(self, observation: dict[str, Any], view: dict[str, Any]) -> int:
        """The action id to play: one whose ``observation["action_mask"]`` entry is 1."""
        raise NotImplementedError

    def _require_game(self):
        if self.game is None:
            raise ValueError(f"player {self.name!r} is not bound: call bind(env.unwrapped.game)")
        return self.game

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


#: how often an easy player plays a uniformly random legal move ("one move in four")
EASY_MISTAKE_RATE = 0.25


class EasyMistakes:
    """The easy players' play, mixed in before a scripted player class that has ``ranked(view,
    legal)``: its first move, except a uniformly random legal move one time in
    ``1 / mistake_rate``."""

    KNOBS = ("mistake_rate",)

    def __init__(self, seed=None, mistake_rate: float = EASY_MISTAKE_RATE, **knobs):
        super().__init__(seed)
        self.unknown_knobs(knobs)
        rate = as_real(mistake_rate, "mistake_rate")
        if not 0.0 <= rate <= 1.0:
            raise ValueError(f"mistake_rate must be in [0, 1], got {mistake_rate!r}")
        self.mistake_rate = rate

    def act(self, observation, view) -> int:
        legal = legal_ids(observation)
        if self.rng.random() < self.mistake_rate:
            return legal[int(self.rng.integers(len(legal)))]
        return self.ranked(view, legal)[0]


class Weights:
    """Base of a scripted player's frozen dataclass of float weights, each one a knob."""

    @classmethod
    def from_knobs(cls, knobs: dict, player: Player):
        """The weights with ``knobs`` (name -> number) replacing the defaults; ``ValueError``
        naming ``player`` and every knob it takes for an unknown one, ``TypeError`` for a
        value that is not a number."""
        names = {f.name for f in fields(cls)}
        player.unknown_knobs({k: v for k, v in knobs.items() if k not in names}, names)
        return cls(**{k: as_real(v, f"knob {k}") for k, v in knobs.items()})


def legal_ids(observation: dict[str, Any]) -> list[int]:
    """The legal action ids of an observation dict, ascending; ``ValueError`` when none is."""
    legal = np.flatnonzero(observation["action_mask"]).tolist()
    if not legal:
        raise ValueError("the observation's action_mask allows no action (not this seat's turn?)")
    return legal


class RandomPlayer(Player):
    """Uniform over the legal moves (any game)."""

    name = "random"

    def act(self, observation, view) -> int:
        legal = legal_ids(observation)
        return legal[int(self.rng.integers(len(legal)))]
