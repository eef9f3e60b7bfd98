"""What the trainer and the evaluation harness read of Dou Dizhu (``climbrl.envs.core.game``): the
networks it trains, whose seat each decides, its two sides and the training starts.

Roles: ``"bidding"`` decides every bid (before the landlord is known), ``"landlord"`` the
landlord's plays, ``"peasant_after"`` the peasant who plays right after the landlord and
``"peasant_before"`` the one right before it; at the four-player table ``"peasant_middle"``
is the one across the table, between them.
"""

from __future__ import annotations

BIDDING, LANDLORD = "bidding", "landlord"
ROLES = (BIDDING, LANDLORD, "peasant_after", "peasant_before")
ROLES_FOUR = (BIDDING, LANDLORD, "peasant_after", "peasant_middle", "peasant_before")
"""the roles at four seats: the peasants after the landlord, across from it and before it"""
PLAYERS = 3
"""the table of :data:`ROLES`"""
SIDES = (LANDLORD, "peasants")
"""the lone seat's side, then the others'"""
FIXED_LANDLORD = "fixed_landlord"
"""the training start option: the share of deals that skip the bidding"""
FIXED_LANDLORD_BID = 1
"""the bid of deals dealt with a fixed landlord"""
START_OPTIONS = {
    FIXED_LANDLORD: "share of deals dealt with a random landlord at bid 1, skipping the "
    "bidding (DouZero's set-up); the others start with the bidding (the bidding network "
    "learns there)",
}
SCORE_UNIT = "units of bid x multiplier"
NO_BID = "no_bid_share"
"""the share of deals where every bid passed (no game, no return)"""


def roles_at(players: int) -> tuple[str, ...]:
    return ROLES if players == PLAYERS else ROLES_FOUR


def role_index(landlord: int | None, seat: int, players: int = PLAYERS) -> int:
    """The index into :func:`roles_at` of ``seat``'s network, ``landlord`` the landlord's seat
    (``None`` or -1: the bidding is on)."""
    names = roles_at(players)
    if landlord is None or landlord < 0:
        return names.index(BIDDING)
    # the peasants follow the landlord in the order of play (the landlord's own is 0)
    return names.index(LANDLORD) + (seat - landlord) % players


def check_share(value) -> float:
    """The ``fixed_landlord`` share, or a ``ValueError`` naming it."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not 0.0 <= value <= 1.0:
        raise ValueError(f"{FIXED_LANDLORD} must be a share in [0, 1], got {value!r}")
    return float(value)
