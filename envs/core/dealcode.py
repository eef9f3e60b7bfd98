"""Deal codes: short text that reproduces a deal exactly.

A deal says who holds each physical card (a seat, or the kitty / nobody), which seat starts
(first to be dealt, first bidder...), and a 64-bit seed for everything random that comes after
(later rounds, redeals). The code is ``TAG-PAYLOAD`` where ``TAG`` names the game and table
size and ``PAYLOAD`` is Crockford base 32 of the packed numbers with a 16-bit checksum, so a
mistyped or foreign code fails with a clear ``ValueError`` instead of starting a wrong game.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_DIGIT = {c: i for i, c in enumerate(ALPHABET)}
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
    value = deal.seed
    value = value * seats + deal.first_seat
    for owner in reversed(deal.owners):
        value = value * radix + owner
    raw = value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big")
    check = zlib.crc32(tag.encode() + raw) & ((1 << CHECK_BITS) - 1)
    value = (value << CHECK_BITS) | check
    digits = []
    while value:
        value, d = divmod(value, len(ALPHABET))
        digits.append(ALPHABET[d])
    return f"{tag}-{''.join(reversed(digits)) or '0'}"


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
