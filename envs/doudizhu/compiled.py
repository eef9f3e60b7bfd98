"""The optional compiled core of Dou Dizhu: the observation writer (``_fast.c``) and the
engine core (``_engine.c``: legal plays, the apply of a play or pass, and a seat's observation
with its action mask in one call) in C.

The pure Python stays the reference: the
:class:`~climbrl.envs.doudizhu.observation.ObservationWriter`, the move generators
(:class:`~climbrl.envs.doudizhu.moves.MoveGenerator`, :class:`~climbrl.envs.doudizhu.laizi.WildMoves`)
and ``DoudizhuState._apply_play``. The C core writes the same float32 vector, makes the same
legal list in the same order and changes the same state attributes in the same way
(``tests/test_compiled_core.py`` plays every variant both ways and compares). ``pip install``
builds it where a C compiler and the Python headers exist (``setup.py``: an optional
extension, so the install goes on without it); a game uses it when it imports, unless told
not to:

* ``DoudizhuGame(config, pure=True)``, or
* the environment variable ``CLIMBRL_PURE=1`` (read when a game is made),

and :attr:`DoudizhuGame.compiled` says which one a game uses. The deal, the bidding, the
open-hand choice and the end of a game are Python either way.
"""

from __future__ import annotations

from array import array
from functools import lru_cache, partial
from types import ModuleType
from typing import TYPE_CHECKING

import numpy as np

from ..core.compiled import PURE_ENV, CompiledWriter, load_extension, pure_requested
from .bidding import NOT_YET, PASS_CODE
from .cards import SUITS
from .catalog import SPECS, Catalog, Kind
from .config import Phase
from .observation import ROB_CALLED, ROB_PASSED, ROB_ROBBED, _card_bytes

if TYPE_CHECKING:
    from .observation import ObservationWriter

__all__ = ["PURE_ENV", "FastWriter", "available", "engine_spec", "load", "pure_requested",
           "writer_spec"]

_ABSENT = -1
"""A field start of a field the layout does not have."""
FIELDS = ("hand", "kitty", "unseen", "shown_hand", "played", "pile", "trick", "history",
          "phase", "role", "landlord", "first_bidder", "bids", "cards_left", "pile_owner",
          "leading", "trick_pass", "bombs", "history_seat", "history_pass", "robs", "shown",
          "wild", "pile_wilds")
"""The fields whose starts the C writer takes (``-1`` where a layout lacks one)."""


def load(pure: bool | None = None) -> ModuleType | None:
    """The compiled module, or ``None`` for pure Python: when ``pure`` is true, when it is
    ``None`` and ``CLIMBRL_PURE=1``, or when the extension was not built."""
    return load_extension(f"{__package__}._fast", pure)


def available() -> bool:
    """Whether the extension is built and importable here (whatever ``CLIMBRL_PURE`` says)."""
    return load(pure=False) is not None


@lru_cache(maxsize=8)
def _joined_card_bytes(catalog) -> bytes:
    """The rank counts of every action's cards, 15 bytes each, then 15 zero bytes (no play):
    one copy per catalog, shared by every game and env of it."""
    return b"".join(_card_bytes(catalog))


def writer_spec(writer: ObservationWriter) -> dict:
    """The facts of ``writer``'s layout that the C writer needs, from the Python writer."""
    at = writer._at
    catalog = writer.catalog
    spec = {name: at.get(name, _ABSENT) for name in FIELDS}
    spec.update(
        size=writer.layout.size,
        num_actions=catalog.num_actions,
        players=writer.players,
        depth=writer._depth,
        history_length=writer.history_length,
        pass_id=catalog.PASS,
        play_phase=int(Phase.PLAY),
        classic=int(writer._classic),
        open_hand=int(writer._open_hand),
        not_yet=NOT_YET,
        pass_code=PASS_CODE,
        rob_passed=ROB_PASSED,
        rob_called=ROB_CALLED,
        rob_robbed=ROB_ROBBED,
        largest=writer._largest_hand,
        max_bombs=writer._max_bombs,
        max_robs=writer._max_robs,
        suits=SUITS,
        bids_width=writer.layout.fields["bids"][1],
        full_deck=writer._full_deck,
        card_bytes=_joined_card_bytes(catalog),
        variant=tuple(writer._variant),
    )
    return spec


_CHAIN_KINDS = (Kind.CHAIN, Kind.PAIR_CHAIN, Kind.AIRPLANE, Kind.AIRPLANE_SINGLE,
                Kind.AIRPLANE_PAIR)


def _ints(values) -> bytes:
    """``values`` as the bytes of C ints (the engine copies them)."""
    return array("i", values).tobytes()


def engine_spec(catalog: Catalog) -> dict:
    """The facts of ``catalog`` that the C engine needs."""
    setup = catalog.setup
    starts, flat = [0], []
    for readings in catalog.readings:
        for reading in readings:
            flat.extend(reading)
        starts.append(len(flat) // 3)
    return {
        "kinds": tuple(k.label for k in Kind),
        "num_actions": catalog.num_actions,
        "first_play": catalog.pass_segment.stop,
        "pass_id": catalog.PASS,
        "rocket": catalog.ROCKET,
        "rocket_power": catalog.rocket_power,
        "play_phase": int(Phase.PLAY),
        "players": setup.players,
        "widest": setup.max_copies,
        "rocket_width": setup.joker_copies,
        "copies": sum(c << (8 * r) for r, c in enumerate(setup.copies)),
        "card_bytes": _joined_card_bytes(catalog),
        "bomb_power": _ints(catalog.bomb_power),
        "bomb_main": _ints(catalog.bomb_main),
        "reading_start": _ints(starts),
        "readings": _ints(flat),
        "chain_lengths": {k.label: (SPECS[k].lengths(setup).start, SPECS[k].lengths(setup).stop - 1)
                          for k in _CHAIN_KINDS},
        "empty": np.empty,
        "zeros": np.zeros,
        "float32": np.dtype(np.float32),
        "int8": np.dtype(np.int8),
    }


@lru_cache(maxsize=8)
def _engine(module: ModuleType, catalog: Catalog):
    """The C engine of ``catalog`` (its tables take about 3 MB): one per catalog, shared by
    every game and env of it."""
    return module.Engine(engine_spec(catalog))


class FastWriter(CompiledWriter):
    """The C writer of one game (:class:`~climbrl.envs.core.compiled.CompiledWriter`: the
    Python writer's ``write`` signature, seat observers writing from scratch in C), with the
    C engine core of its catalog."""

    def __init__(self, module: ModuleType, writer: ObservationWriter):
        super().__init__(module, writer_spec(writer), writer.layout.size)
        self.engine = _engine(module, writer.catalog)
        """the C engine core of the game's catalog: ``legal(state)``, ``play(state, action)``,
        ``apply(state, action)`` (``_engine.c``)"""
        self.observation = partial(self.engine.observation, self._c)
        """``observation(state, seat)``: the env's dict, observation and action mask, in arrays
        nobody else holds (new ones, or ones every caller has let go of)"""
