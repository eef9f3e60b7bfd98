"""Shared helpers for the Daifugo / President tests."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from climbrl.envs.daifugo import DaifugoGame, Rules


@lru_cache(maxsize=None)
def game_for(preset: str, players: int, overrides: tuple = ()) -> DaifugoGame:
    """One game per rules config (a catalog takes tens of milliseconds to build)."""
    return DaifugoGame(Rules.preset(preset, players, **dict(overrides)))


def position(case: dict):
    """The game and the state of a rule case after its moves."""
    hands = case["hands"]
    game = game_for(
        case.get("preset", "daifugo"), len(hands), tuple(sorted(case.get("rules", {}).items()))
    )
    # seat 0 leads unless the case says; leader=None applies the rules' own choice
    options = {"hands": hands, "leader": case.get("leader", 0 if "titles" not in case else None)}
    if "titles" in case:
        options["titles"] = case["titles"]
    state = game.new_state(np.random.default_rng(0), options)
    for text in case.get("moves", ()):
        state.apply(game.action_from_str(text, state))
    return game, state


def canonical(game: DaifugoGame, text: str, state=None) -> str:
    return game.action_to_str(game.action_from_str(text, state))


def legal_texts(game: DaifugoGame, state) -> set[str]:
    return {game.action_to_str(a) for a in state.legal_actions()}
