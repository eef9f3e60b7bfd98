"""What the two games' tables share: the CPUs' inputs from the engine's state, and the answer
to a ``check`` request (:func:`checked`)."""

from __future__ import annotations

from typing import Any

from climbrl.envs.core.game import seat_observation


class EngineTable:
    """A table over one engine state (``self.engine``, ``self.state``): what a CPU player
    reads for a seat, exactly what the PettingZoo env would give it."""

    engine: Any
    state: Any

    def observation(self, seat: int) -> dict[str, Any]:
        return seat_observation(self.engine, self.state, seat)

    def view(self, seat: int) -> dict[str, Any]:
        return self.state.view(seat)


def checked(ids, label, actions, reason, name=None, reason_code=None) -> dict[str, Any]:
    """The answer to ``check``: the lifted cards, their shape's label (and its ``name``, the
    code a page translates), the moves they make now and, when none, why not: ``reason`` in
    English and ``reason_code`` (``not_your_turn``, ``not_in_hand``, ``no_play``, ``not_now``)
    for a page (the status line is the label plus either)."""
    playable = bool(actions)
    if playable:
        status = f"{label} · playable"
    else:
        status = reason if label is None else f"{label} · {reason}"
    if not playable and reason_code is None:
        reason_code = "not_now"
    return {"cards": list(ids), "label": label, "name": name, "playable": playable,
            "actions": actions, "reason": reason, "reason_code": None if playable else reason_code,
            "status": status}
