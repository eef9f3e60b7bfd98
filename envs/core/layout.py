"""Observation layouts: named slices of one flat float32 vector.

The size of every observation is derived from its layout; nothing types a size in by hand.

>>> layout = ObsLayout([("hand", (54,)), ("counts", (4,), 0.0, 18.0)])
>>> layout.size
58
>>> layout.slices["counts"]
slice(54, 58, None)
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod

import numpy as np


class ObsLayout:
    """An ordered list of named fields, each a block of the flat observation vector.

    Each field is ``(name, shape)`` with values in ``[0, 1]``, or ``(name, shape, low, high)``.
    """

    def __init__(self, fields: Sequence[tuple]):
        self.fields: dict[str, tuple[int, ...]] = {}
        self.slices: dict[str, slice] = {}
        self.bounds: dict[str, tuple[float, float]] = {}
        offset = 0
        for name, shape, *bounds in fields:
            if name in self.fields:
                raise ValueError(f"observation field {name!r} defined twice")
            size = prod(shape)
            self.fields[name] = tuple(shape)
            self.slices[name] = slice(offset, offset + size)
            self.bounds[name] = (float(bounds[0]), float(bounds[1])) if bounds else (0.0, 1.0)
            offset += size
        self.size = offset

    def low_high(self) -> tuple[np.ndarray, np.ndarray]:
        """Per-element lower and upper bounds, for a ``gymnasium.spaces.Box``."""
        low = np.empty(self.size, np.float32)
        high = np.empty(self.size, np.float32)
        for name, s in self.slices.items():
            low[s], high[s] = self.bounds[name]
        return low, high

    def zeros(self) -> np.ndarray:
        return np.zeros(self.size, np.float32)

    def view(self, buf: np.ndarray, name: str) -> np.ndarray:
        """The field ``name`` of ``buf`` as a view with the field's shape."""
        return buf[self.slices[name]].reshape(self.fields[name])

    def split(self, buf: np.ndarray) -> dict[str, np.ndarray]:
        """Every field of ``buf`` (last axis) by name, each reshaped."""
        lead = buf.shape[:-1]
        return {n: buf[..., s].reshape(lead + self.fields[n]) for n, s in self.slices.items()}

    def to_dict(self) -> dict[str, list[int]]:
        """A JSON-friendly description, recorded in checkpoints to detect layout changes."""
        return {name: list(shape) for name, shape in self.fields.items()}

    def describe(self) -> str:
        """A table of the fields: name, shape, first index, size."""
        rows = [f"{'field':<20}{'shape':<12}{'start':>6}{'size':>6}  range"]
        for name, shape in self.fields.items():
            s = self.slices[name]
            lo, hi = self.bounds[name]
            rows.append(
                f"{name:<20}{str(shape):<12}{s.start:>6}{s.stop - s.start:>6}  [{lo:g}, {hi:g}]"
            )
        return "\n".join(rows)
