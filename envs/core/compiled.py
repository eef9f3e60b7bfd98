"""What every game's optional compiled core shares: whether pure Python is asked for, loading
the extension, and the writer object a game holds.

A game's compiled core is a C extension (``<engine package>._fast``) that writes the same
float32 observation as the game's pure-Python writer, from the same state. ``pip install``
builds it where a C compiler and the Python headers exist (``setup.py``: optional
extensions); a game uses it when it imports, unless told not to, by its constructor's
``pure=True`` or by the environment variable ``CLIMBRL_PURE=1`` (read when a game is made).
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import numpy as np

PURE_ENV = "CLIMBRL_PURE"
"""The environment variable that, set to ``1``, makes new games use pure Python."""
_PURE_VALUES = ("", "0", "1")


def pure_requested() -> bool:
    """Whether ``CLIMBRL_PURE`` asks for pure Python (``1``; unset, empty or ``0``: no); any
    other value is a ``ValueError`` naming it."""
    value = os.environ.get(PURE_ENV, "").strip()
    if value not in _PURE_VALUES:
        raise ValueError(f"{PURE_ENV} must be 1 (pure Python) or 0, got {value!r}")
    return value == "1"


def load_extension(name: str, pure: bool | None = None) -> ModuleType | None:
    """The compiled module ``name``, or ``None`` for pure Python: when ``pure`` is true, when
    it is ``None`` and ``CLIMBRL_PURE=1``, or when the extension was not built."""
    if pure is None:
        pure = pure_requested()
    elif not isinstance(pure, bool):
        raise TypeError(f"pure must be True, False or None, got {pure!r}")
    if pure:
        return None
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


class CompiledWriter:
    """A game's C writer (``module.Writer(spec)``), with the Python writers' ``write``
    signature and seat observers. ``size``: the observation's entries; ``num_actions``, where
    the C writer's seat observers also write masks (``observation_and_mask``, which
    :class:`~climbrl.envs.core.game.SeatBuffers` uses): the actions of the game."""

    def __init__(self, module: ModuleType, spec: dict, size: int, num_actions: int | None = None):
        self.size = size
        self.num_actions = num_actions
        self._c = module.Writer(spec)

    def write(self, state, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        if out is None:
            out = np.empty(self.size, np.float32)
        return self._c.write(state, seat, out)

    def seat_observer(self, seat: int):
        """A seat's observer (``observe(state)`` returns its buffer, written from scratch in
        C: cheaper than a Python observer's incremental rewrite; with ``num_actions``, also
        ``observation_and_mask(state)``)."""
        buf = np.zeros(self.size, np.float32)
        if self.num_actions is None:
            return self._c.observer(seat, buf)
        return self._c.observer(seat, buf, np.zeros(self.num_actions, np.int8))
