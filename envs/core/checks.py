"""Checks of values that come from users: one clear ``TypeError`` or ``ValueError`` naming the
argument and the value, never a silent conversion (``int(12.7)``, ``bool("false")``).

Each checker returns the value as a plain Python ``int``/``bool``/``str`` (numpy integers and
numpy bools are welcome and converted), so configs stay JSON-friendly.

>>> as_int(np.int64(3), "players")
3
>>> as_bool("false", "lock")
Traceback (most recent call last):
...
TypeError: lock must be True or False, got 'false' (type str; write lock=False)
"""

from __future__ import annotations

import warnings
from collections.abc import Collection, Mapping
from typing import Any

import numpy as np

#: words that read as a switch value; a string one of these gets a hint
_TRUE_WORDS = frozenset({"true", "yes", "on", "1", "y", "t"})
_FALSE_WORDS = frozenset({"false", "no", "off", "0", "n", "f", "none", ""})


def _kind(value: Any) -> str:
    return type(value).__name__


def as_int(value: Any, name: str) -> int:
    """``value`` when it is an integer (``int`` or a numpy integer; never a bool or a float)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {value!r} (type {_kind(value)})")
    return int(value)


def as_int_in(value: Any, name: str, low: int, high: int | None = None) -> int:
    """An integer in ``low..high`` (``high=None``: no upper bound); ``ValueError`` outside."""
    value = as_int(value, name)
    if value < low or (high is not None and value > high):
        span = f"at least {low}" if high is None else f"{low}..{high}"
        raise ValueError(f"{name} must be {span}, got {value}")
    return value


def as_bool(value: Any, name: str) -> bool:
    """``value`` when it is ``True`` or ``False`` (or a numpy bool); a string such as
    ``"false"`` is refused with a hint, as is ``None`` or ``0``."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    hint = ""
    if isinstance(value, str) and value.strip().lower() in _TRUE_WORDS | _FALSE_WORDS:
        word = "True" if value.strip().lower() in _TRUE_WORDS else "False"
        hint = f"; write {name}={word}"
    raise TypeError(f"{name} must be True or False, got {value!r} (type {_kind(value)}{hint})")


def as_str(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, got {value!r} (type {_kind(value)})")
    return value


def as_real(value: Any, name: str) -> float:
    """A finite real number (``int``, ``float`` or numpy scalar; never a bool)."""
    numeric = (int, float, np.integer, np.floating)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numeric):
        raise TypeError(f"{name} must be a number, got {value!r} (type {_kind(value)})")
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return value


def as_action(value: Any, name: str = "action") -> int:
    """An action id: an integer, or an integer numpy array of one element (shape ``()`` or
    ``(1,)``, as a batch of one). Floats, bools, strings and ``None`` are refused."""
    if type(value) is int:
        return value
    if isinstance(value, np.ndarray) and value.shape in ((), (1,)):
        if value.dtype.kind in "iu":
            return int(value.reshape(()))
        raise TypeError(f"{name} must be an integer id, got an array of {value.dtype}: {value!r}")
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer id, got {value!r} (type {_kind(value)})")
    return int(value)


def as_options(value: Any, name: str = "options") -> dict:
    """A copy of a reset-options mapping (``None``: no options)."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a dict, got {value!r} (type {_kind(value)})")
    return dict(value)


API_TEST_PROBE = "options"
"""the key of PettingZoo's ``api_test`` probe: it checks that ``reset`` takes an ``options``
argument by calling ``reset(seed=0, options={"options": 1})``"""


def reset_options(value: Any, known: Collection[str], game: str) -> dict:
    """A copy of ``reset(options=...)`` holding the ``known`` keys of ``game``'s reset. Any
    other key is dropped with a warning naming it (so a typo such as ``hand`` is seen, not a
    silent random deal), except PettingZoo's probe (:data:`API_TEST_PROBE` with a value that
    is not a mapping), dropped without a word so that ``api_test`` runs clean."""
    options = as_options(value)
    if API_TEST_PROBE not in known and not isinstance(options.get(API_TEST_PROBE), Mapping):
        options.pop(API_TEST_PROBE, None)
    unknown = sorted(set(options) - set(known))
    if unknown:
        # a warning, not an error, as PettingZoo's own envs ignore what they do not know
        warnings.warn(f"ignored unknown reset option(s) {unknown}; {game} knows "
                      f"{', '.join(known)}", stacklevel=4)
        for key in unknown:
            del options[key]
    return options


def as_seed(value: Any, name: str = "seed") -> int | None:
    """``None`` or a non-negative integer (what ``numpy.random.default_rng`` accepts)."""
    if value is None:
        return None
    return as_int_in(value, name, 0)


def as_sequence(value: Any, name: str, length: int | None = None) -> list:
    """A list or tuple (never a string), of ``length`` items when given."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise TypeError(f"{name} must be a list, got {value!r} (type {_kind(value)})")
    if length is not None and len(value) != length:
        raise ValueError(f"{name} needs {length} items, got {len(value)}: {value!r}")
    return list(value)
