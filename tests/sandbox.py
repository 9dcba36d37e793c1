"""Run fuzz cases in a worker process under a hard time limit.

A hang inside a Rust kernel or a solver ignores Python signals, so a fuzz case
cannot time itself out: :class:`Sandbox` keeps one worker process, sends it
each case, and kills and replaces it when a case overruns its limit.  The
case then fails as :class:`Hang` (a test failure, not a stuck CI).

A case is a module-level function and picklable arguments; it returns
nothing useful or raises.  A ``ClusterschedError`` raised by a case is a typed
rejection of its input; any other exception comes back as :class:`Crash` with
the worker's traceback.

Every fuzzer reports how many cases it ran and how long they took
(:data:`REPORTS`, printed at the end of the pytest run by ``conftest.py``).
"""

from __future__ import annotations

import multiprocessing as mp
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable

#: One line per fuzzer: (name, cases, rejected, seconds); printed by conftest.py.
REPORTS: list[tuple[str, int, int, float]] = []


class Hang(AssertionError):
    """A case did not return within its time limit."""


class Crash(AssertionError):
    """A case raised something other than a ClusterschedError."""


def _serve(conn: Any) -> None:
    # The worker: run each (fn, args) it is sent and say how it ended.
    from clustersched.errors import ClusterschedError

    while True:
        try:
            job = conn.recv()
        except EOFError:
            return
        fn, args = job
        try:
            fn(*args)
            conn.send(("ok", None))
        except ClusterschedError as e:
            conn.send(("rejected", f"{type(e).__name__}: {e}"))
        except BaseException:  # noqa: BLE001 -- everything else is the finding
            conn.send(("crash", traceback.format_exc()))


@dataclass
class Sandbox:
    """A worker process that runs cases under ``seconds`` each."""

    name: str
    seconds: float
    cases: int = 0
    rejected: int = 0
    elapsed: float = 0.0
    _process: Any = field(default=None, repr=False)
    _conn: Any = field(default=None, repr=False)

    def _start(self) -> None:
        # spawn, not fork: the parent may hold threads (hypothesis, tqdm, rayon-free Rust is
        # fine, but a forked lock is not), and the worker must start from a clean import.
        ctx = mp.get_context("spawn")
        self._conn, child = ctx.Pipe()
        self._process = ctx.Process(target=_serve, args=(child,), daemon=True)
        self._process.start()
        child.close()

    def _kill(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.join(5)
        self._process = self._conn = None

    def run(self, fn: Callable[..., Any], *args: Any) -> str:
        """Runs ``fn(*args)`` in the worker: ``"ok"`` or ``"rejected"``; raises Hang or Crash."""
        fresh = self._process is None or not self._process.is_alive()
        if fresh:
            self._start()
        began = time.perf_counter()
        self._conn.send((fn, args))
        # The first case of a new worker also pays for its start and imports.
        limit = self.seconds + (30.0 if fresh else 0.0)
        ready = self._conn.poll(limit)
        self.elapsed += time.perf_counter() - began
        self.cases += 1
        if not ready:
            self._kill()
            raise Hang(f"{self.name}: {fn.__name__}{_brief(args)} did not return within {self.seconds} s")
        status, detail = self._conn.recv()
        if status == "crash":
            raise Crash(f"{self.name}: {fn.__name__}{_brief(args)} raised an untyped error:\n{detail}")
        if status == "rejected":
            self.rejected += 1
        return status

    def close(self) -> None:
        REPORTS.append((self.name, self.cases, self.rejected, self.elapsed))
        self._kill()


def fixture(name: str, seconds: float) -> Any:
    """A module-scoped pytest fixture yielding a :class:`Sandbox`, closed (and reported) after the module."""
    import pytest  # here, not at the top: the spawned workers import this module too

    @pytest.fixture(scope="module")
    def sandbox() -> Any:
        box = Sandbox(name, seconds)
        yield box
        box.close()

    return sandbox


def _brief(args: tuple[Any, ...]) -> str:
    text = repr(args)
    return text if len(text) <= 400 else text[:400] + "...)"
