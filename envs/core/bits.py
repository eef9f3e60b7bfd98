"""Helpers for cards held as bitmasks: a Python ``int`` with one bit per physical card."""

from __future__ import annotations

from collections.abc import Iterator


def iter_bits(mask: int) -> Iterator[int]:
    """Yield the indices of the set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def bit_list(mask: int) -> list[int]:
    """The indices of the set bits of ``mask`` as a list, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def lowest_bits(mask: int, count: int) -> int:
    """The ``count`` lowest set bits of ``mask`` (all of them when it has fewer)."""
    out = 0
    while count and mask:
        low = mask & -mask
        out |= low
        mask ^= low
        count -= 1
    return out


def mask_of(indices) -> int:
    """A bitmask with the given bit indices set."""
    out = 0
    for i in indices:
        out |= 1 << i
    return out
