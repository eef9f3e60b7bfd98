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


def does(name: str, verb: str) -> str:
    """``does("you", "give")`` -> ``"you give"``; ``does("player_1", "give")`` ->
    ``"player_1 gives"``."""
    return f"{name} {verb if name == 'you' else verb + 's'}"


def grouped_moves(groups: Sequence[tuple[str, Sequence[str]]], sep: str | None = None) -> str:
    """Legal moves under their count, one line per group: ``"  singles: 3 4 5"``. Moves are
    joined by ``sep``; by default by a space, or ``" | "`` in a group where a move's text has
    spaces (``bid 1 | bid 2``)."""
    count = sum(len(moves) for _label, moves in groups)
    lines = [f"legal moves ({count}):"]
    for label, moves in groups:
        if moves:
            join = sep if sep is not None else (" | " if any(" " in m for m in moves) else " ")
            lines.append(f"  {label}: {join.join(moves)}")
    return "\n".join(lines)
