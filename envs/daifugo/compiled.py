"""The optional compiled core of Daifugo, President and UECda: the observation writer in C
(``_fast.c``).

The pure-Python :func:`~climbrl.envs.daifugo.observation.observe` (from scratch) stays the
reference; the C writer writes the same float32 vector from the same state, entry for entry
(``tests/test_compiled_daifugo.py`` plays every preset and a spread of house rules both ways
and compares). ``pip install`` builds it where a C compiler and the Python headers exist
(``setup.py``: an optional extension, so the install goes on without it); a game uses it
when it imports, unless told not to:

* ``DaifugoGame(rules, pure=True)``, or
* the environment variable ``CLIMBRL_PURE=1`` (read when a game is made),

and :attr:`DaifugoGame.compiled` says which one a game uses. Everything else of the engine
(deal, legal moves, apply) is Python either way, so states, moves and rewards are the same.
The C writer writes every observation from scratch: from the state's ints, bitmasks and short
lists (read at their slots' offsets) that costs less than the Python observer's incremental
rewrite. Its seat observers also hand the env its observation copy and a new mask in one
call (``observation_and_mask``, :class:`~climbrl.envs.core.game.SeatBuffers`).
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from ..core.compiled import PURE_ENV, CompiledWriter, load_extension, pure_requested
from .cards import CARDS_PER_DECK, NUM_RANKS, NUM_SUITS

__all__ = ["PURE_ENV", "available", "load", "pure_requested", "writer"]

FIELDS = ("hand", "played", "pile_cards", "gave", "received", "hand_counts", "pile_shape",
          "pile_size", "pile_low", "pile_high", "pile_owner", "passed", "active", "places",
          "titles", "flags", "lock_suits", "to_give", "round", "rounds_left", "scores", "phase",
          "to_move", "played_ranks", "pile_ranks")
"""The fields the C writer writes from the state; it takes each one's ``(start, width)`` and
refuses a layout whose widths are not its own. The other fields are the table's: the C writer
copies them from the template."""
NOT_A_PILE = 0xFF
"""The pile shape, in :func:`action_bytes`, of an action that never makes a pile (a pass, a
give): the C writer refuses a state whose pile is one."""
_ACTION_BYTES = "_compiled_action_bytes"
"""the attribute of a catalog's memo of :func:`action_bytes`"""


def load(pure: bool | None = None) -> ModuleType | None:
    """The compiled module, or ``None`` for pure Python: when ``pure`` is true, when it is
    ``None`` and ``CLIMBRL_PURE=1``, or when the extension was not built."""
    return load_extension(f"{__package__}._fast", pure)


def available() -> bool:
    """Whether the extension is built and importable here (whatever ``CLIMBRL_PURE`` says)."""
    return load(pure=False) is not None


def action_bytes(catalog) -> bytes:
    """Per action id, what the pile's fields read of it, five bytes: its pile shape (the
    ``pile_shape`` slot; :data:`NOT_A_PILE`, then zeros, for a pass or a give), its size, its
    lowest rank (a joker below the 3, UECda's, reads as the 3), its highest rank, whether it
    is unsuited. Made once per catalog, shared by every game of it."""
    from .catalog import RUN, SET, SINGLE

    memo = catalog.__dict__.get(_ACTION_BYTES)
    if memo is None:
        plays = (SINGLE, SET, RUN)
        rows = [(kind, size, max(low, 0), high, int(unsuited)) if kind in plays
                else (NOT_A_PILE, 0, 0, 0, 0)
                for kind, size, low, high, unsuited in zip(catalog.kind, catalog.msize,
                                                           catalog.low, catalog.high,
                                                           catalog.unsuited)]
        memo = bytes(value for row in rows for value in row)
        setattr(catalog, _ACTION_BYTES, memo)
    return memo


def writer_spec(game) -> dict:
    """The facts of ``game``'s observation that the C writer needs, from the Python writer
    (:class:`~climbrl.envs.daifugo.observation._Writer`)."""
    from .observation import _writer

    w = _writer(game)
    layout = w.layout
    template = np.zeros(layout.size, np.float32)
    template[w.card_end :] = w.template
    return {
        "size": layout.size,
        "num_actions": game.num_actions,
        "players": game.num_players,
        "rows": game.seat_rows,
        "decks": w.decks,
        "jokers": w.jokers,
        "has_unsuited": int(w.has_unsuited),
        "last_round": w.last_round,
        "score_scale": float(w.score_scale),
        "cards_per_deck": CARDS_PER_DECK,
        "num_suits": NUM_SUITS,
        "num_ranks": NUM_RANKS,
        "fields": {name: (layout.slices[name].start,
                          layout.slices[name].stop - layout.slices[name].start)
                   for name in FIELDS},
        "template": template.tobytes(),
        "actions": action_bytes(game.catalog),
    }


def writer(module: ModuleType, game) -> CompiledWriter:
    """The C writer of ``game``."""
    return CompiledWriter(module, writer_spec(game), game.layout.size, game.num_actions)
