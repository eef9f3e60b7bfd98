"""Action catalogs: fixed integer ids grouped into named segments.

A catalog is built once per rules config. Each shape of move owns one contiguous segment
(``pass``, ``single``, ``set``, ``run``, ``give``...) so an id can be told apart by its offset,
as OpenSpiel does with its named base offsets.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass


@dataclass(frozen=True)
class Segment:
    """A named, contiguous range of action ids ``[start, start + size)``."""

    name: str
    start: int
    size: int

    @property
    def stop(self) -> int:
        return self.start + self.size

    def __contains__(self, action: int) -> bool:
        return self.start <= action < self.stop

    def __iter__(self):
        return iter(range(self.start, self.stop))


class SegmentTable:
    """Ordered segments laid end to end; ``add`` returns the new segment."""

    def __init__(self) -> None:
        self.segments: dict[str, Segment] = {}
        self.size = 0
        self._starts: list[int] = []
        self._order: list[Segment] = []

    def add(self, name: str, size: int) -> Segment:
        if name in self.segments:
            raise ValueError(f"segment {name!r} defined twice")
        if size < 0:
            raise ValueError(f"segment {name!r} has negative size {size}")
        seg = Segment(name, self.size, size)
        self.segments[name] = seg
        self.size += size
        if size:
            self._starts.append(seg.start)
            self._order.append(seg)
        return seg

    def __getitem__(self, name: str) -> Segment:
        return self.segments[name]

    def segment_of(self, action: int) -> Segment:
        """The segment holding ``action``; ``ValueError`` when the id is out of range."""
        if not 0 <= action < self.size:
            raise ValueError(f"action id {action} is outside the catalog [0, {self.size})")
        return self._order[bisect_right(self._starts, action) - 1]

    def describe(self) -> str:
        """A table of the segments, one per line: name, first id, count."""
        return "\n".join(f"{s.name:<12}{s.start:>7}{s.size:>7}" for s in self.segments.values())
