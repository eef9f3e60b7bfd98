"""Errors at the command line's boundary: a user's mistake is one line, never a traceback.

:class:`UsageError` is a mistake in what the user asked for (a bad option value, a missing
file, an unknown player); ``climbrl`` prints it on one line and exits with status 2. Anything
else that fails while the work runs is printed on one line with status 1. Set the environment
variable ``CLIMBRL_DEBUG=1`` to get the full traceback instead.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading

DEBUG_ENV = "CLIMBRL_DEBUG"
#: what a user's mistake raises while its input is read: turned into :class:`UsageError`
INPUT_ERRORS = (ValueError, TypeError, KeyError, OSError)


class UsageError(ValueError):
    """A mistake in the user's input, said in one line (a ``ValueError``)."""


class RunError(RuntimeError):
    """A failure while the work runs, said in one line that names what failed (a player, a
    file); ``climbrl`` prints it as it is."""


class Terminated(KeyboardInterrupt):
    """The process got SIGTERM: raised by :func:`raise_on_sigterm`'s handler so that the work
    stops as on Ctrl-C (cleanup runs, what is finished stays written)."""


@contextlib.contextmanager
def raise_on_sigterm():
    """Inside, SIGTERM raises :class:`Terminated` in the main thread (nothing changes in
    another thread, where Python cannot set signal handlers)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise Terminated(f"signal {signal.Signals(signum).name}")

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def debugging() -> bool:
    """``CLIMBRL_DEBUG`` is set to something other than empty or ``0``."""
    return os.environ.get(DEBUG_ENV, "") not in ("", "0")


def one_line(err: BaseException) -> str:
    """The message of ``err`` on one line: its lines joined (``a:`` + ``b`` -> ``a: b``, other
    lines with ``; ``); a ``KeyError``'s quotes dropped; the exception's name when it says
    nothing."""
    text = err.args[0] if isinstance(err, KeyError) and len(err.args) == 1 else err
    if isinstance(err, OSError) and err.filename is not None and err.strerror:
        text = f"{err.filename}: {err.strerror}"
    parts = [line.strip() for line in str(text).splitlines() if line.strip()]
    out = ""
    for part in parts:
        out += part if not out else (" " if out.endswith(":") else "; ") + part
    return out or type(err).__name__


@contextlib.contextmanager
def user_input(what: str = ""):
    """Inside, the errors of reading the user's input (:data:`INPUT_ERRORS`) become a
    :class:`UsageError` with the same message on one line, prefixed by ``what``."""
    try:
        yield
    except UsageError:
        raise
    except INPUT_ERRORS as err:
        prefix = f"{what}: " if what else ""
        raise UsageError(prefix + one_line(err)) from err
