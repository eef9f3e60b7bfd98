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


def checked(ids, label, actions, reason) -> dict[str, Any]:
    """The answer to ``check``: the lifted cards, their shape's label, the moves they make now
    and, when none, why not (the status line is the label plus either)."""
    playable = bool(actions)
    if playable:
        status = f"{label} · playable"
    else:
        status = reason if label is None else f"{label} · {reason}"
    return {"cards": list(ids), "label": label, "playable": playable, "actions": actions,
            "reason": reason, "status": status}
