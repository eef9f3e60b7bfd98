"""Bidding for the landlord: the classic auction and the call-and-rob auction.

Both are played in turns: the first ``players`` turns go round the table in seat order from
the first bidder, each seat speaking once; the call-and-rob auction may add one last turn.

* ``bidding="bid"`` (classic): each seat passes or bids 1, 2 or 3 above the highest bid. A 3
  ends the auction at once; otherwise the highest bidder becomes landlord at its bid, and if
  every seat passed the cards are dealt again.
* ``bidding="rob"`` (rulings of the project, after the usual "call and rob" tables): a seat
  passes or ``call`` s; once a seat has called, each seat after it that has not spoken yet may
  ``rob`` or pass (a seat that passed the call never speaks again); then, if anyone robbed, the
  caller has one turn to rob back. The landlord is the last seat to rob, or the caller when
  nobody robbed; the round is worth a bid of 1, doubled by every rob. If every seat passes the
  call, the cards are dealt again.

An auction reads and writes a few fields of the state: ``bids`` (each seat's latest bidding
move: -1 not yet, else its code, 0 for pass), ``num_bids`` (turns taken), ``high_bid`` and
``high_bidder`` (the bid and seat the landlord would be now), ``caller``, ``robs`` and
``rob_seats`` (a bit per seat that robbed) for the rob auction.
"""

from __future__ import annotations

from enum import IntEnum

CLASSIC = "bid"
ROB = "rob"
BID_STYLES = (CLASSIC, ROB)
NUM_BIDS = 3
"""Classic bids are 1..NUM_BIDS."""
PASS_CODE = 0
CALL_CODE = 1
ROB_CODE = 2
BIDDING_TEXTS = {CLASSIC: ("bid pass",) + tuple(f"bid {b}" for b in range(1, NUM_BIDS + 1)),
                 ROB: ("bid pass", "call", "rob")}
"""The moves of each bidding style, in id order (code 0 is the pass)."""
BIDDING_WORDS = BIDDING_TEXTS[ROB][CALL_CODE:]
SHOW_TEXTS = ("show", "hide")
"""The landlord's open-hand choice: play with the hand shown (the stake doubles) or hidden."""
NOT_YET = -1
ROB_BID = 1
"""The bid a call-and-rob round is worth before its doublings."""
ROB_FROM_BID = 2
"""The call-and-rob bots rob (and rob back) a hand the classic advice would bid this on."""


class Outcome(IntEnum):
    """What a bidding turn led to."""

    GOING = 0
    LANDLORD = 1
    REDEAL = 2


class ClassicAuction:
    """Bid 1, 2 or 3 once each (module docstring)."""

    style = CLASSIC

    def __init__(self, players: int, bid_pass: int):
        self.players = players
        self.max_turns = players
        self._legal = [(bid_pass,) + tuple(bid_pass + b for b in range(high + 1, NUM_BIDS + 1))
                       for high in range(NUM_BIDS + 1)]
        self._pass = bid_pass

    def legal(self, state) -> tuple[int, ...]:
        return self._legal[state.high_bid]

    def is_legal(self, state, code: int) -> bool:
        return code == PASS_CODE or state.high_bid < code <= NUM_BIDS

    def apply(self, state, code: int) -> Outcome:
        seat = state.current_player
        state.bids[seat] = code
        state.num_bids += 1
        if code > state.high_bid:
            state.high_bid = code
            state.high_bidder = seat
        if code == NUM_BIDS or (state.num_bids == self.players and state.high_bid):
            return Outcome.LANDLORD
        if state.num_bids == self.players:
            return Outcome.REDEAL
        state.current_player = (seat + 1) % self.players
        return Outcome.GOING

    def stake_doublings(self, state) -> int:
        """Doublings the auction adds to the round (none in the classic auction)."""
        return 0

    def advised(self, bid: int, view: dict) -> int:
        """The code of the move for a hand the classic advice would ``bid`` (0 = pass) on."""
        high = max((b for b in view["bids"] if b and b > 0), default=0)
        return bid if bid > high else PASS_CODE


class RobAuction:
    """Call, then rob (module docstring)."""

    style = ROB

    def __init__(self, players: int, bid_pass: int):
        self.players = players
        self.max_turns = players + 1
        """every seat once, then the caller's rob back"""
        self._calling = (bid_pass, bid_pass + CALL_CODE)
        self._robbing = (bid_pass, bid_pass + ROB_CODE)

    def legal(self, state) -> tuple[int, ...]:
        return self._calling if state.caller < 0 else self._robbing

    def is_legal(self, state, code: int) -> bool:
        return code == PASS_CODE or code == (CALL_CODE if state.caller < 0 else ROB_CODE)

    def apply(self, state, code: int) -> Outcome:
        seat = state.current_player
        state.bids[seat] = code
        state.num_bids += 1
        if code == CALL_CODE:
            state.caller = state.high_bidder = seat
            state.high_bid = ROB_BID
        elif code == ROB_CODE:
            state.robs += 1
            state.rob_seats |= 1 << seat
            state.high_bidder = seat
        if state.num_bids < self.players:
            state.current_player = (seat + 1) % self.players
            return Outcome.GOING
        if state.caller < 0:
            return Outcome.REDEAL
        if state.num_bids == self.players and state.robs:
            state.current_player = state.caller  # the rob back
            return Outcome.GOING
        return Outcome.LANDLORD

    def stake_doublings(self, state) -> int:
        """Every rob doubles the round."""
        return state.robs

    def advised(self, bid: int, view: dict) -> int:
        """Call a hand the classic advice would bid on at all; rob (or rob back) one it would
        bid :data:`ROB_FROM_BID` or more on."""
        if view["caller"] is None:
            return CALL_CODE if bid else PASS_CODE
        return ROB_CODE if bid >= ROB_FROM_BID else PASS_CODE


AUCTIONS = {CLASSIC: ClassicAuction, ROB: RobAuction}


def auction_for(style: str, players: int, bid_pass: int):
    """The auction of a bidding style for ``players`` seats, whose pass has id ``bid_pass``."""
    return AUCTIONS[style](players, bid_pass)
