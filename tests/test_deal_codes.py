"""Deal codes (``climbrl.envs.core.dealcode``): the number a code carries is defined by the
plain reading below (the seed, then the first seat, then each card's owner, the last card
most significant, under a 16-bit checksum, in Crockford base 32); ``encode`` computes it
faster and must agree with that reading on every deal, and ``decode`` must give the deal back."""

from __future__ import annotations

import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from climbrl.envs.core import dealcode
from climbrl.envs.core.dealcode import ALPHABET, CHECK_BITS, SEED_BITS, Deal


def plain_encode(tag: str, deal: Deal, seats: int) -> str:
    """The definition of a code, one owner and one digit at a time."""
    value = deal.seed * seats + deal.first_seat
    for owner in reversed(deal.owners):
        value = value * (seats + 1) + owner
    raw = value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big")
    value = (value << CHECK_BITS) | (zlib.crc32(tag.encode() + raw) & ((1 << CHECK_BITS) - 1))
    digits = ""
    while value:
        value, digit = divmod(value, len(ALPHABET))
        digits = ALPHABET[digit] + digits
    return f"{tag}-{digits or '0'}"


@st.composite
def deals(draw):
    seats = draw(st.integers(1, 8))
    owners = draw(st.lists(st.integers(0, seats), max_size=220))
    first = draw(st.integers(0, seats - 1))
    seed = draw(st.one_of(st.sampled_from([0, 1, 2**SEED_BITS - 1]),
                          st.integers(0, 2**SEED_BITS - 1)))
    return Deal(tuple(owners), first, seed), seats


@given(deal_seats=deals(), tag=st.sampled_from(["DDZ", "DDZ4-", "DFG4", "X"]))
def test_encode_agrees_with_the_plain_reading_and_decodes_back(deal_seats, tag):
    deal, seats = deal_seats
    code = dealcode.encode(tag, deal, seats)
    assert code == plain_encode(tag, deal, seats)
    assert dealcode.decode(tag, code, len(deal.owners), seats) == deal


@pytest.mark.parametrize("owners", [(), (0,), (0, 0, 0), (4,) * 108, (0,) * 54 + (3,)])
def test_encode_of_zeros_and_edges(owners):
    # leading zero digits (an all-zero deal is the code 0 under its checksum) and a last card
    # owned by the kitty, the most significant digit
    deal = Deal(owners, 0, 0)
    code = dealcode.encode("T", deal, 4)
    assert code == plain_encode("T", deal, 4)
    assert dealcode.decode("T", code, len(owners), 4) == deal
