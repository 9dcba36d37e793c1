"""The start of a campaign's worker process: Ctrl-C is its parent's, and it never outlives its parent.

A worker of :func:`~clustersched.campaign.run_campaign` is a process of a
``ProcessPoolExecutor``.  When its parent ends normally, or by an exception,
the pool is shut down and the workers with it; but a parent killed outright
(``kill -9``, the out-of-memory killer, a batch system's time limit) runs no
code at all, and its workers, busy with a scenario, went on computing for
nobody: minutes of CPU each, and the resource tracker of ``multiprocessing``
(which waits for every holder of its pipe, the workers included) with them.

So each worker, as it starts (:func:`start`, the pool's initializer):

- on Linux, asks the kernel for SIGKILL when its parent dies
  (``prctl(PR_SET_PDEATHSIG)``): it ends at once, whatever it is doing;
- everywhere, runs a daemon thread (:func:`_watch`) that ends the process
  (``os._exit``) once the parent is gone: it waits on the parent's sentinel of
  ``multiprocessing`` (a pipe that reads end-of-file when the parent exits, on
  every OS), and every :data:`WATCH_PERIOD` seconds compares ``os.getppid()``
  with the parent's pid (a POSIX orphan is adopted by another process).  The
  thread needs the GIL, which a long kernel of the Rust core releases.

With its workers gone, the resource tracker reads end-of-file on its pipe and
exits too: ``kill -9`` of a ``sweep`` or a ``reproduce`` leaves no process
behind (tests/test_orphans.py).
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import sys
import threading
from multiprocessing.connection import wait

__all__ = ["WATCH_PERIOD", "start"]

#: Seconds between two checks of the parent's pid by a worker's watchdog thread.
WATCH_PERIOD = 1.0

#: Exit status of a worker that found its parent gone (128 + SIGKILL: as if the kernel had ended it).
ORPHAN_EXIT = 128 + 9

_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def start(parent: int) -> None:
    """A campaign worker's initializer: ignores SIGINT, and ends the process when process ``parent`` ends.

    ``parent`` is the pid of the process that made the pool (``os.getpid()``
    there): if this process's parent is another one already, the parent died
    while this one started, and it ends at once.
    """
    # Ctrl-C reaches the whole process group; stopping the workers is the parent's job
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent()
    if os.getppid() != parent:
        os._exit(ORPHAN_EXIT)  # the parent died before the kernel was asked to tell us
    process = multiprocessing.parent_process()
    sentinel = process.sentinel if process is not None else None
    threading.Thread(target=_watch, args=(parent, sentinel), name="clustersched-orphan-watch", daemon=True).start()


def _die_with_parent() -> None:
    """Linux only: SIGKILL for this process when the thread that made it ends (with its process)."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)  # failing, the watchdog still works


def _watch(parent: int, sentinel: int | None) -> None:
    """Ends this process once ``parent`` is gone: its sentinel reads end-of-file, or another process adopted us."""
    while True:
        if sentinel is not None:
            try:
                if wait([sentinel], timeout=WATCH_PERIOD):
                    os._exit(ORPHAN_EXIT)
            except OSError:
                sentinel = None  # not a waitable handle after all: the pid check alone
        else:
            threading.Event().wait(WATCH_PERIOD)
        if os.getppid() != parent:
            os._exit(ORPHAN_EXIT)
