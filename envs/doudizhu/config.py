"""The Dou Dizhu rules config: one frozen, validated value, recorded in checkpoints.

The variants are its options, each off by default (the default plays the classic game of
docs/rules.md):

* ``bidding="rob"``: call and rob for the landlord instead of bidding 1, 2 or 3
  (:mod:`climbrl.envs.doudizhu.bidding`).
* ``open_hand=True``: the landlord may play with its hand shown to every seat, which doubles
  the round.
* ``players=4``: two packs, one landlord against three peasants, bombs of 4 to 8 cards.
* ``laizi=True`` (three players): the four cards of a rank drawn with each deal are wild
  (:mod:`climbrl.envs.doudizhu.laizi`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from ..core.checks import as_bool, as_int_in
from .bidding import BID_STYLES, CLASSIC, ROB
from .cards import NUMBER_RANKS, SETUPS, SUITS, THREE, Setup, setup_for

REWARD_MODES = ("score", "win")


class Phase(IntEnum):
    """The phases of a deal."""

    BIDDING = 0
    PLAY = 1
    OVER = 2
    SHOW = 3
    """open hand: the landlord chooses to show its hand or not, before its first lead"""

    @property
    def label(self) -> str:
        return self.name.lower()


VARIANT_FLAGS = ("rob", "open_hand", "four_players", "laizi")
"""The variant switches, in the order of the observation's ``variant`` field."""


def max_plays(setup: Setup) -> int:
    """Most plays in one deal: each removes a card and the game ends while every other seat
    still holds at least one card."""
    return setup.deck_size - (setup.players - 1)


def max_play_steps(setup: Setup) -> int:
    """Most steps of the play phase: at most ``players - 1`` passes follow a play before
    someone plays."""
    plays = max_plays(setup)
    return plays + (setup.players - 1) * (plays - 1)


def max_bombs(setup: Setup) -> int:
    """Most bombs and rockets in one deal: every four number cards one bomb, and the rocket."""
    return setup.number_cards // SUITS + 1


assert max_bombs(THREE) == NUMBER_RANKS + 1


@dataclass(frozen=True)
class DoudizhuConfig:
    """The rules config (recorded in checkpoints through ``DoudizhuGame.config_dict``)."""

    reward: str = "score"
    """``"score"``: the game's points / ``base_points`` at the end; ``"win"``: +1 / -1 by side."""
    base_points: int = 10
    """The base of the score: a round is worth ``base_points x bid x multiplier`` points."""
    max_redeals: int = 16
    """Redeals allowed after all-pass bidding; one more all-pass ends the episode unscored."""
    history_length: int = 15
    """Recent plays and passes kept in the observation's ``history`` fields."""
    players: int = THREE.players
    """3 (one pack of 54), or 4 (two packs, one landlord against three peasants)."""
    bidding: str = CLASSIC
    """``"bid"``: bid 1, 2 or 3 once each; ``"rob"``: call, then rob (each rob doubles)."""
    open_hand: bool = False
    """The landlord may play with its hand shown to every seat, doubling the stake."""
    laizi: bool = False
    """A rank drawn with each deal is wild; bombs with wild cards are soft."""

    #: (name, least) of the integer fields without an upper bound
    _BOUNDS = (("base_points", 1), ("max_redeals", 0))

    def __post_init__(self) -> None:
        if not isinstance(self.reward, str) or self.reward not in REWARD_MODES:
            raise ValueError(f"reward {self.reward!r} is not one of {REWARD_MODES}")
        for name, least in self._BOUNDS:
            object.__setattr__(self, name, as_int_in(getattr(self, name), name, least))
        players = as_int_in(self.players, "players", min(SETUPS), max(SETUPS))
        object.__setattr__(self, "players", players)
        if not isinstance(self.bidding, str) or self.bidding not in BID_STYLES:
            raise ValueError(f"bidding {self.bidding!r} is not one of {BID_STYLES}")
        for name in ("open_hand", "laizi"):
            object.__setattr__(self, name, as_bool(getattr(self, name), name))
        if self.laizi and players != THREE.players:
            raise ValueError("laizi is played by three players with one pack, not players="
                             f"{players}")
        # a history longer than the longest deal's play would never fill
        longest = max_play_steps(self.setup)
        object.__setattr__(self, "history_length",
                           as_int_in(self.history_length, "history_length", 1, longest))

    @property
    def setup(self) -> Setup:
        """The cards and seats of the table."""
        return setup_for(self.players)

    @property
    def flags(self) -> tuple[bool, ...]:
        """Each of :data:`VARIANT_FLAGS`, on or off."""
        return (self.bidding == ROB, self.open_hand, self.players != THREE.players, self.laizi)

    @property
    def variants(self) -> tuple[str, ...]:
        """The names of the variants switched on (empty for the classic game)."""
        return tuple(name for name, on in zip(VARIANT_FLAGS, self.flags) if on)
