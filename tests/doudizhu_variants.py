"""The Dou Dizhu variants every harness runs over: name -> config options (also the env's
arguments), and how many random games the invariant harness plays of each."""

from __future__ import annotations

from climbrl.envs.doudizhu import DoudizhuConfig, DoudizhuGame

VARIANTS = {
    "classic": {},
    "rob": {"bidding": "rob"},
    "open_hand": {"open_hand": True},
    "rob_open": {"bidding": "rob", "open_hand": True},
    "four": {"players": 4},
    "four_rob_open": {"players": 4, "bidding": "rob", "open_hand": True},
    "laizi": {"laizi": True},
    "laizi_rob_open": {"laizi": True, "bidding": "rob", "open_hand": True},
}
"""name -> DoudizhuConfig options"""
PLAYOUTS = {"classic": 3000, "rob": 1000, "open_hand": 1000, "rob_open": 300, "four": 300,
            "four_rob_open": 100, "laizi": 400, "laizi_rob_open": 100}
"""random games of the invariant harness per variant (the classic game gets the most)"""


def game_of(name: str, **extra) -> DoudizhuGame:
    return DoudizhuGame(DoudizhuConfig(**VARIANTS[name], **extra))
