"""The trainer's progress on the console: a tqdm bar on a terminal; anywhere else (a log file,
CI) one plain line every ``seconds`` and one after each evaluation, so a log grows by a few
lines a minute instead of a bar redrawn many times a second."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from tqdm import tqdm


class Progress:
    def __init__(self, name: str, total: int | None, initial: int, enabled: bool,
                 seconds: float, stream: TextIO | None = None):
        self.stream = stream or sys.stderr
        self.name = name
        self.frames = initial
        self.seconds = seconds
        self.note_text = ""
        self.bar = None
        self.plain = enabled and not _is_terminal(self.stream)
        if enabled and not self.plain:
            self.bar = tqdm(total=total, initial=initial, unit="frame", unit_scale=True,
                            dynamic_ncols=True, desc=name, file=self.stream)
        self.last_line = time.perf_counter()
        self.line_frames, self.line_active = initial, -1.0
        """frames and active seconds at the last line with a rate (-1: none yet)"""

    def update(self, frames: int, active_seconds: float) -> None:
        """``frames`` in all now, after ``active_seconds`` of training (pauses left out)."""
        if self.bar is not None:
            self.bar.update(frames - self.frames)
        self.frames = frames
        now = time.perf_counter()
        if self.plain and now - self.last_line >= self.seconds:
            span = active_seconds - self.line_active
            if self.line_active >= 0 and span > 0:
                self._line(f"{(frames - self.line_frames) / span:,.0f} frames/s")
            else:
                self._line()
            self.last_line, self.line_frames, self.line_active = now, frames, active_seconds

    def note(self, text: str) -> None:
        """The latest evaluation: shown next to the bar, or printed as its own line."""
        self.note_text = text
        if self.bar is not None:
            self.bar.set_postfix_str(text)
        elif self.plain:
            self._line()

    def write(self, text: str) -> None:
        """A message that does not break the bar."""
        if self.bar is not None:
            self.bar.write(text, file=self.stream)
        else:
            print(text, file=self.stream, flush=True)

    def _line(self, extra: str = "") -> None:
        parts = [f"{self.frames:,} frames"] + ([extra] if extra else [])
        if self.note_text:
            parts.append(self.note_text)
        print(f"{self.name}: " + ", ".join(parts), file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def minutes_text(minutes: float) -> str:
    """A number of minutes as said: ``1 minute``, ``0.5 minutes``, ``3 minutes``."""
    return f"{minutes:g} minute{'' if minutes == 1 else 's'}"


def budget_reached(minutes: float) -> str:
    """Why a run with a time budget of ``minutes`` stopped."""
    return f"time budget reached: {minutes_text(minutes)} of this invocation"
