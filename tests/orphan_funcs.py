"""Worker initializers and tasks for tests/test_orphans.py, in a module so spawned workers can import them.

Each initializer leaves out some of the ways :func:`clustersched.campaign._worker.start`
has to notice that its parent died, so that each of the others is tested alone.
"""

from __future__ import annotations

import multiprocessing
import os
import time

from clustersched.campaign import _worker


def watch_only(parent: int) -> None:
    """No PR_SET_PDEATHSIG: the watchdog thread alone (the parent's sentinel, then its pid)."""
    _worker._die_with_parent = lambda: None
    _worker.start(parent)


def pid_only(parent: int) -> None:
    """Neither PR_SET_PDEATHSIG nor the sentinel: the watchdog's os.getppid() check alone."""
    _worker._die_with_parent = lambda: None
    multiprocessing.parent_process = lambda: None
    _worker.start(parent)


def busy(seconds: float) -> int:
    """Keeps a worker computing (in Python, holding the GIL between switches) for ``seconds``; returns its pid."""
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        n += sum(range(1000))
    return os.getpid()


def sigint_only(parent: int) -> None:
    """The initializer before issue 31 (SIGINT ignored, nothing else): its workers outlive their parent."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
