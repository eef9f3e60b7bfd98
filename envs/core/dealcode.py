"""Deal codes: short text that reproduces a deal exactly.

A deal says who holds each physical card (a seat, or the kitty / nobody), which seat starts
(first to be dealt, first bidder...), and a 64-bit seed for everything random that comes after
(later rounds, redeals). The code is ``TAG-PAYLOAD`` where ``TAG`` names the game and table
size and ``PAYLOAD`` is Crockford base 32 of the packed numbers with a 16-bit checksum, so a
mistyped or foreign code fails with a clear ``ValueError`` instead of starting a wrong game.
"""

from __future__ import annotations

import string
import zlib
from dataclasses import dataclass

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_DIGIT = {c: i for i, c in enumerate(ALPHABET)}
_INT_DIGITS = string.digits + string.ascii_lowercase
"""the digits ``int(text, base)`` reads, in order"""
_OWNER_DIGIT = bytes.maketrans(bytes(range(len(_INT_DIGITS))), _INT_DIGITS.encode())
"""owner ``i`` (a byte) -> its digit for ``int(text, base)``"""
_PAIR_BITS = 10
_PAIR_MASK = (1 << _PAIR_BITS) - 1
_PAIRS = [high + low for high in ALPHABET for low in ALPHABET]
"""the two base 32 digits of each 10-bit number, in its order"""
_PAIRS_PER_CHUNK = 6
_CHUNK_BITS = _PAIR_BITS * _PAIRS_PER_CHUNK
_CHUNK_MASK = (1 << _CHUNK_BITS) - 1
SEED_BITS = 64
CHECK_BITS = 16


@dataclass(frozen=True)
class Deal:
    """The content of a deal code.

    ``owners[i]`` is the owner of physical card ``i``: a seat ``0..seats-1`` or ``seats`` for a
    card in no hand (the kitty, or out of play in a set-up position).
    """

    owners: tuple[int, ...]
    first_seat: int
    seed: int


def encode(tag: str, deal: Deal, seats: int) -> str:
    radix = seats + 1
    if radix > len(_INT_DIGITS):
        raise ValueError(f"deal codes take at most {len(_INT_DIGITS) - 1} seats, not {seats}")
    # the owners as the digits of one number in base radix, the last card's most significant
    # (int() reads them at C speed), under the seed and the first seat
    owners = bytes(reversed(deal.owners)).translate(_OWNER_DIGIT)
    value = (deal.seed * seats + deal.first_seat) * radix ** len(deal.owners)
    if owners:
        value += int(owners, radix)
    raw = value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big")
    check = zlib.crc32(tag.encode() + raw) & ((1 << CHECK_BITS) - 1)
    value = (value << CHECK_BITS) | check
    return f"{tag}-{_base32(value)}"


def _base32(value: int) -> str:
    """``value`` in Crockford base 32, most significant digit first (``"0"`` for 0): two
    digits (10 bits) at a time from a table, a machine-sized chunk of bits at a time."""
    pairs = []
    while value:
        chunk, value = value & _CHUNK_MASK, value >> _CHUNK_BITS
        for _ in range(_PAIRS_PER_CHUNK):
            pairs.append(_PAIRS[chunk & _PAIR_MASK])
            chunk >>= _PAIR_BITS
    return "".join(reversed(pairs)).lstrip("0") or "0"


def decode(tag: str, code: str, cards: int, seats: int) -> Deal:
    if not isinstance(code, str):
        raise TypeError(f"a deal code is text such as {tag}-XXXX, got {code!r}")
    if "-" not in code:
        raise ValueError(f"deal code {code!r} is not of the form {tag}-XXXX")
    code_tag, payload = code.strip().rsplit("-", 1)
    if code_tag != tag:
        raise ValueError(f"deal code {code!r} is for {code_tag!r}, this game needs {tag!r}")
    value = 0
    for ch in payload.upper():
        if ch not in _DIGIT:
            raise ValueError(f"deal code {code!r} has the character {ch!r}, not base 32")
        value = value * len(ALPHABET) + _DIGIT[ch]
    check = value & ((1 << CHECK_BITS) - 1)
    value >>= CHECK_BITS
    raw = value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big")
    if zlib.crc32(tag.encode() + raw) & ((1 << CHECK_BITS) - 1) != check:
        raise ValueError(f"deal code {code!r} fails its checksum (mistyped?)")
    radix = seats + 1
    owners = []
    for _ in range(cards):
        value, owner = divmod(value, radix)
        owners.append(owner)
    value, first = divmod(value, seats)
    if value >> SEED_BITS:
        raise ValueError(f"deal code {code!r} is too long for {tag!r}")
    return Deal(tuple(owners), first, value)
