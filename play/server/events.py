"""Events: what happened at a table, as each seat may hear it.

An :class:`Event` is the public form (what every seat is told) plus, for a few seats, extra
fields only they may see (the cards of an exchange go to the giver and the receiver only).
"""

from __future__ import annotations

from typing import Any


class Event:
    __slots__ = ("public", "extra")

    def __init__(self, public: dict[str, Any], extra: dict[int, dict[str, Any]] | None = None):
        self.public = public
        self.extra = extra or {}

    @classmethod
    def private(cls, public: dict[str, Any], extra: dict[int, dict[str, Any]]) -> Event:
        return cls(public, extra)

    def for_seats(self, seats) -> dict[str, Any]:
        """The event as told to a connection holding ``seats`` (extra fields of one of them);
        a connection holding several seats (one device) hears only the public form."""
        seats = list(seats)
        if len(seats) == 1 and seats[0] in self.extra:
            return {**self.public, **self.extra[seats[0]]}
        return self.public

    def __repr__(self) -> str:
        return f"Event({self.public!r})"
