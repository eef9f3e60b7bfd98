"""Small pieces of English shared by the terminal tables of every game."""

from __future__ import annotations

from collections.abc import Sequence

ORDINAL_SUFFIXES = {1: "st", 2: "nd", 3: "rd"}
TEENS = range(11, 14)


def plural(count: int, word: str, many: str | None = None) -> str:
    """``plural(1, "card")`` -> ``"1 card"``; ``plural(3, "card")`` -> ``"3 cards"``."""
    return f"{count} {word if count == 1 else (many or word + 's')}"


def ordinal(n: int) -> str:
    """``1`` -> ``"1st"``, ``2`` -> ``"2nd"``, ``11`` -> ``"11th"``, ``22`` -> ``"22nd"``."""
    suffix = "th" if n % 100 in TEENS else ORDINAL_SUFFIXES.get(n % 10, "th")
    return f"{n}{suffix}"


def is_are(name: str) -> str:
    """``"you are"`` / ``"player_1 is"``: the name with its verb."""
    return f"{name} {'are' if name == 'you' else 'is'}"


def grouped_moves(groups: Sequence[tuple[str, Sequence[str]]], sep: str = " ") -> str:
    """Legal moves under their count, one line per group: ``"  singles: 3 4 5"`` (moves
    joined by ``sep``: ``" | "`` where a move's text has spaces)."""
    count = sum(len(moves) for _label, moves in groups)
    lines = [f"legal moves ({count}):"]
    lines += [f"  {label}: {sep.join(moves)}" for label, moves in groups if moves]
    return "\n".join(lines)
