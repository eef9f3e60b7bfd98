"""Opponents of the trainer's evaluations: any player of the registry (:func:`policies.load`:
``random``, ``scripted-medium``, ``hard``...), behind the players' protocol
``player.bind(game)``, ``player.act(observation, view) -> int``."""

from __future__ import annotations

import policies


def make_opponent(name: str, game, seed):
    """The player ``name`` of ``game``'s family, seeded and bound to ``game``."""
    return policies.load(game.name, name, seed=seed).bind(game)


def check_opponent(name: str, game: str, setting: str = "eval_opponent") -> None:
    """Refuse an opponent name the registry does not know, listing those it knows."""
    if not isinstance(name, str):
        raise ValueError(f"{setting}: a player's name is text, got {name!r}")
    base, _knobs = policies.parse_spec(name)
    if base not in policies.known_names(game):
        raise ValueError(f"unknown {setting} {name!r} for {game!r}; players are "
                         f"{', '.join(policies.known_names(game))}")
