"""Child processes that end with their parent, however the parent ends (SIGKILL included).

A worker process calls :func:`exit_with_parent` first thing. On Linux the kernel then sends
the worker a signal the moment its parent dies (``prctl(PR_SET_PDEATHSIG)``); everywhere, a
daemon thread also checks every :data:`POLL_SECONDS` that the parent is still the one it
started under (an orphan is adopted by another process, so ``os.getppid()`` changes) and ends
the worker if not.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time

#: from <linux/prctl.h>
PR_SET_PDEATHSIG = 1
POLL_SECONDS = 1.0
#: the exit status of a worker that ends because its parent is gone
ORPHAN_EXIT = 1


def exit_with_parent(parent_pid: int, sig: int = signal.SIGKILL) -> None:
    """End this process (with ``sig`` on Linux, else ``os._exit``) once ``parent_pid`` is no
    longer its parent; at once if it is not its parent already."""
    if sys.platform.startswith("linux"):
        _set_death_signal(sig)
    if os.getppid() != parent_pid:
        os._exit(ORPHAN_EXIT)  # the parent died before the death signal was set
    thread = threading.Thread(target=_watch, args=(parent_pid,), name="parent-watch", daemon=True)
    thread.start()


def _set_death_signal(sig: int) -> bool:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False  # the polling thread still covers it


def _watch(parent_pid: int) -> None:
    while os.getppid() == parent_pid:
        time.sleep(POLL_SECONDS)
    os._exit(ORPHAN_EXIT)
