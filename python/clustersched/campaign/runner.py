"""Running a campaign: the scenarios not yet stored, on processes or on Dask, stored as they finish."""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import pickle
import signal
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any, NamedTuple

from . import _worker
from .scenarios import key_of
from .store import Store, plain_result

__all__ = ["check_dask_address", "run_campaign"]

#: Seconds the worker processes get to end after SIGTERM, once a campaign is interrupted, before SIGKILL.
STOP_GRACE = 2.0

ScenarioFunc = Callable[[dict[str, Any]], Mapping[str, Any]]


class _Outcome(NamedTuple):
    """What a worker sends back for one scenario."""

    key: str
    result: dict[str, Any] | None
    error: str | None
    traceback: str | None
    seconds: float


def run_campaign(
    name: str,
    scenarios: Iterable[Mapping[str, Any]],
    func: ScenarioFunc,
    *,
    store: Store,
    workers: int | None = None,
    dask: Any = None,
    progress: bool = True,
    retry_errors: bool = True,
    label: str | None = None,
    chunk: int = 1,
) -> list[dict[str, Any]]:
    """Computes ``func(scenario)`` for every scenario not yet in ``store``, and returns all the rows.

    Each result is stored (and committed) as soon as it arrives, so running the
    same campaign again after a crash or a Ctrl-C computes only what is missing.
    With ``chunk > 1`` a worker computes that many scenarios in one task and
    sends their outcomes back together, stored in one transaction (still one
    row per scenario, each with its own status, so resuming and errors stay
    per scenario).
    An exception raised by ``func`` is stored as that scenario's error (status
    ``"error"``, ``"ExceptionType: message"`` and the traceback) and the other
    scenarios go on.

    Parameters
    ----------
    name : str
        The campaign's name in the store.  Give a new name (e.g. add a version)
        when ``func`` changes, or the results stored by the old one are reused.
    scenarios : iterable of dict
        Dicts of JSON-serializable parameters (see :func:`grid`); duplicates are
        computed once.
    func : callable
        ``func(scenario) -> dict`` of JSON-serializable values (numpy scalars
        allowed) whose names differ from the scenario's.  It receives the
        scenario as stored (JSON values: lists for tuples, Python numbers for
        numpy scalars).  For worker processes it must be picklable: a function
        defined at the top level of a module.
    store : Store
        Where results are read from and written to (only by this process).
    workers : int, optional
        Worker processes (default: one per CPU); ``1`` computes in this
        process, without a pool (handy for debugging).
    dask : str or dask.distributed.Client, optional
        Compute on Dask instead: a scheduler address such as
        ``"tcp://host:8786"`` (checked by :func:`check_dask_address`,
        connected to before any scenario is sent, then closed) or a client.
        Needs ``pip install "clustersched[dask]"``.
    progress : bool
        Show a tqdm progress bar over the scenarios to compute (on a terminal or in a notebook; never into a
        redirected stderr).
    retry_errors : bool
        Compute again the scenarios stored with an error (otherwise their error
        rows are returned as they are).
    label : str, optional
        What the progress bar says it counts, such as ``"DPSA paper
        (Grudenic & Bogunovic): scenarios"`` (default: the campaign's name).
    chunk : int, default 1
        Scenarios per task sent to a worker (consecutive ones, in the given
        order).  For scenarios of milliseconds, where sending each one to a
        worker and committing its row would cost as much as computing it;
        an interruption loses the chunks under way, so keep a chunk to
        about a second of work.

    Returns
    -------
    list of dict
        One flat row per given scenario, in the given order, stored ones included
        (see :class:`Store`).  Only ``seconds`` and ``finished_at`` depend on when
        and where a scenario ran; the rest is the same however the campaign was
        run, resumed or distributed.

    Raises
    ------
    KeyboardInterrupt, concurrent.futures.process.BrokenProcessPool
        After a Ctrl-C (or any exception raised in this process while it
        waits, such as the one a SIGTERM handler raises) or a crashed worker,
        once the pending scenarios are cancelled and the worker processes
        stopped (terminated, killed after :data:`STOP_GRACE` seconds; on Dask
        the futures are cancelled); what finished before is stored, and
        nothing else.  The workers ignore SIGINT: a Ctrl-C in a terminal,
        which reaches the whole process group, stops them through this
        process only.  If this process is killed outright (``kill -9``, the
        out-of-memory killer), its workers end too, within a second
        (:mod:`clustersched.campaign._worker`).
    clustersched.errors.StoreError
        If ``store`` cannot keep a result (a full disk): what was stored
        before is kept, and the workers are stopped as above.

    Examples
    --------
    >>> from clustersched.campaign import Store, grid, run_campaign
    >>> def square(s):
    ...     return {"square": s["x"] ** 2}
    >>> with Store(":memory:") as store:
    ...     rows = run_campaign("demo", grid(x=[1, 2, 3]), square, store=store, workers=1, progress=False)
    >>> [(row["x"], row["square"], row["status"]) for row in rows]
    [(1, 1, 'ok'), (2, 4, 'ok'), (3, 9, 'ok')]
    """
    if not isinstance(name, str):
        raise TypeError(f"name == {name!r}, must be a str")
    if not name:
        raise ValueError("name == '', must be a non-empty str")
    if not callable(func):
        raise TypeError(f"func == {func!r}, must be callable")
    if not isinstance(store, Store):
        raise TypeError(f"store == {store!r}, must be a clustersched.campaign.Store")
    if workers is not None:
        if not isinstance(workers, int) or isinstance(workers, bool):
            raise TypeError(f"workers == {workers!r}, must be an int")
        if workers < 1:
            raise ValueError(f"workers == {workers}, must be >= 1")
        if dask is not None:
            raise ValueError(f"workers == {workers} with dask: the Dask cluster sets its own workers")
    if dask is not None and not isinstance(dask, (str, _distributed().Client)):
        raise TypeError(f"dask == {dask!r}, must be a scheduler address like 'tcp://host:8786' or a Client")
    if isinstance(dask, str):
        check_dask_address(dask)
    if label is not None and not isinstance(label, str):
        raise TypeError(f"label == {label!r}, must be a str")
    if not isinstance(chunk, int) or isinstance(chunk, bool):
        raise TypeError(f"chunk == {chunk!r}, must be an int")
    if chunk < 1:
        raise ValueError(f"chunk == {chunk}, must be >= 1")

    scenarios = list(scenarios)
    keys = [key_of(scenario, f"scenarios[{i}]") for i, scenario in enumerate(scenarios)]
    stored = store.done(name, errors=not retry_errors)
    # dict, not set: the scenarios are submitted in the given order
    todo = {key: scenario for key, scenario in zip(keys, scenarios) if key not in stored}
    if todo:
        if progress:
            from tqdm.auto import tqdm
        else:
            # not tqdm.auto: in a notebook without ipywidgets it warns on import, bar or no bar
            from tqdm import tqdm

        # connected before the bar: an unreachable scheduler fails with one message
        with (
            _dask_client(dask) as client,
            tqdm(total=len(todo), desc=label or name, unit="scenario", disable=None if progress else True) as bar,
        ):  # None: a terminal or a notebook only
            errors = 0

            def record(outcomes: list[_Outcome]) -> None:
                nonlocal errors
                # one transaction: the chunk's rows are stored together or not at all
                store.put_many(
                    name,
                    [
                        (
                            todo[o.key],
                            {"result": o.result, "error": o.error, "traceback": o.traceback, "seconds": o.seconds},
                        )
                        for o in outcomes
                    ],
                )
                failed = sum(o.error is not None for o in outcomes)
                if failed:
                    errors += failed
                    bar.set_postfix(errors=errors)
                bar.update(len(outcomes))

            keys = list(todo)
            chunks = [keys[i : i + chunk] for i in range(0, len(keys), chunk)]
            if client is not None:
                _run_dask(client, func, chunks, record)
            elif workers == 1:
                for part in chunks:
                    record(_execute_chunk(func, part))
            else:
                _run_pool(workers, func, chunks, record)
    return store.results(name, scenarios)


def _execute(func: ScenarioFunc, key: str) -> _Outcome:
    """Runs one scenario, in a worker: its exceptions become its outcome."""
    scenario = json.loads(key)
    began = time.perf_counter()
    try:
        # checked here so that a bad result is recorded against its scenario
        result = plain_result(func(scenario), scenario)
    except Exception as exc:
        message = f"{type(exc).__name__}: {exc}"
        return _Outcome(key, None, message, traceback.format_exc(), time.perf_counter() - began)
    return _Outcome(key, result, None, None, time.perf_counter() - began)


def _execute_chunk(func: ScenarioFunc, keys: list[str]) -> list[_Outcome]:
    """Runs consecutive scenarios in one worker task, each with its own outcome."""
    return [_execute(func, key) for key in keys]


def _run_pool(
    workers: int | None, func: ScenarioFunc, chunks: list[list[str]], record: Callable[[list[_Outcome]], None]
) -> None:
    try:
        pickle.dumps(func)
    except Exception as exc:
        raise TypeError(
            f"func == {func!r} cannot be sent to worker processes ({exc}); "
            "define it at the top level of a module, or pass workers=1"
        ) from None
    # spawn, not fork: forking a process that has threads (tqdm's monitor, a Dask
    # client, a notebook) can deadlock, and spawn behaves the same on every OS
    # _worker.start: a worker ignores Ctrl-C, and ends when this process ends, even by kill -9
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_worker.start,
        initargs=(os.getpid(),),
    )
    try:
        futures = [pool.submit(_execute_chunk, func, keys) for keys in chunks]
        for future in as_completed(futures):
            record(future.result())
    except BaseException:
        # Ctrl-C, SIGTERM or a dead worker: drop the queued scenarios, stop the
        # running ones (they would run to their end, and the interpreter's exit
        # would wait for them), keep what is stored
        _stop(pool)
        raise
    pool.shutdown()


def _stop(pool: ProcessPoolExecutor) -> None:
    """Cancels the pool's pending work and ends its worker processes: SIGTERM, then SIGKILL after STOP_GRACE s."""
    # the processes are only reachable through this private mapping before Python 3.14's terminate_workers()
    processes = list((getattr(pool, "_processes", None) or {}).values())
    with _signals_held():
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            with contextlib.suppress(Exception):
                process.terminate()
        deadline = time.monotonic() + STOP_GRACE
        for process in processes:
            with contextlib.suppress(Exception):
                process.join(max(0.0, deadline - time.monotonic()))
                if process.is_alive():
                    process.kill()
                    process.join(STOP_GRACE)


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM wait until the block ends, then raise KeyboardInterrupt (a second Ctrl-C must not
    cut the stopping of the workers short).  Python handles signals in the main thread only; elsewhere the
    block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    held = (signal.SIGINT, signal.SIGTERM)
    previous = {signum: signal.signal(signum, lambda signum, frame: caught.append(signum)) for signum in held}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler if handler is not None else signal.SIG_DFL)
    if caught:
        raise KeyboardInterrupt


@contextlib.contextmanager
def _dask_client(dask: Any) -> Iterator[Any]:
    """The Client to run on: None without Dask, a given Client as it is, an address connected to (and closed)."""
    if not isinstance(dask, str):
        yield dask
        return
    with _distributed().Client(dask, set_as_default=False) as client:
        yield client


def _run_dask(dask: Any, func: ScenarioFunc, chunks: list[list[str]], record: Callable[[list[_Outcome]], None]) -> None:
    distributed = _distributed()
    # pure=False: each call is a fresh task, never a result cached on the cluster
    futures = [dask.submit(_execute_chunk, func, keys, pure=False) for keys in chunks]
    try:
        # the client's loop: the default takes it from a global client, and ours need not be one
        for future in distributed.as_completed(futures, loop=dask.loop):
            record(future.result())
    except BaseException:
        dask.cancel(futures)
        raise


def check_dask_address(address: str) -> str:
    """``address`` if it reads as a Dask scheduler address, else ValueError (before any connection is tried).

    ``"tcp://host:8786"``, ``"host:8786"`` (TCP), ``"tls://host:8786"``, or an
    address of another comm backend Dask knows (``"inproc://..."``); a host
    without a port, an unknown scheme or a bad port is refused.  Needs Dask
    distributed (ImportError saying how to install it).

    Examples
    --------
    >>> from clustersched.campaign.runner import check_dask_address
    >>> check_dask_address("tcp://127.0.0.1:8786")
    'tcp://127.0.0.1:8786'
    >>> check_dask_address("notanaddress")
    Traceback (most recent call last):
    ValueError: dask == 'notanaddress', must be a scheduler address like 'tcp://host:8786':
    missing port number in address 'notanaddress'
    """
    _distributed()
    from distributed.comm import registry
    from distributed.comm.addressing import parse_address

    try:
        scheme, location = parse_address(address)
        backend = registry.get_backend(scheme)
        try:
            backend.get_address_host_port(location)
        except NotImplementedError:
            pass  # a backend without host and port (inproc, ucx): nothing more to check
    except (TypeError, ValueError) as exc:
        raise ValueError(f"dask == {address!r}, must be a scheduler address like 'tcp://host:8786': {exc}") from None
    return address


def _distributed() -> Any:
    try:
        import distributed
    except ImportError as exc:
        raise ImportError('run_campaign(dask=...) needs Dask distributed: pip install "clustersched[dask]"') from exc
    return distributed
