"""A campaign in a folder: its store beside its tables, resumed by rerunning, its outcome counted.

What the paper reproductions (:mod:`clustersched.reproduce`) and the load sweeps
(:mod:`clustersched.batch.sweep`) share on top of :func:`run_campaign`:
:func:`run_study` keeps the store in ``out/campaign.sqlite`` and says what a
rerun resumes, :func:`studies` lets a command count the scenarios that ended in
an error, and :func:`write_csv` writes a result table whole or not at all.
"""

from __future__ import annotations

import contextlib
import csv
import sys
from concurrent.futures import BrokenExecutor
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

__all__ = ["Study", "run_study", "studies", "write_csv"]


def write_csv(rows: Iterable[dict[str, Any]], path: Path, columns: Sequence[str]) -> None:
    """Writes ``columns`` of ``rows`` to ``path`` (other keys ignored, ``None`` and missing keys as empty cells).

    The file appears whole or not at all: it is written beside ``path`` and
    renamed (:func:`clustersched._output.atomic_open`), so an interrupted run
    or a full disk never leaves half a table, and the ``OSError`` of a full
    disk names ``path``.
    """
    from .._output import atomic_open

    with atomic_open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(columns), extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: "" if row.get(k) is None else row[k] for k in columns})


@dataclass(frozen=True)
class Study:
    """What one :func:`run_study` call left: its scenarios, how many ended in an error, and its store."""

    campaign: str
    scenarios: int
    errors: int
    store: Path


_STUDIES: ContextVar[list[Study] | None] = ContextVar("clustersched_studies", default=None)


@contextlib.contextmanager
def studies() -> Iterator[list[Study]]:
    """Collects a :class:`Study` for every :func:`run_study` call made inside the ``with`` block.

    The command line counts the errored scenarios of any reproduction this
    way (its exit status is 1 when there is one), whatever the reproduction
    returns.
    """
    found: list[Study] = []
    token = _STUDIES.set(found)
    try:
        yield found
    finally:
        _STUDIES.reset(token)


def run_study(
    out: Path,
    campaign: str,
    todo: list[dict[str, Any]],
    scenario: Callable[[dict[str, Any]], Any],
    *,
    workers: Any,
    dask: Any,
    progress: bool,
    label: str | None = None,
    chunk: int = 1,
) -> list[dict[str, Any]]:
    """Runs ``todo`` through :func:`clustersched.campaign.run_campaign`, stored in ``out/campaign.sqlite``
    (``out`` is created if missing; a rerun resumes), and returns the stored rows.  Never more local workers
    than scenarios: more would only start idle processes (spawned all at once).  ``label`` names the paper
    and what the progress bar counts (``"DPSA paper (Grudenic & Bogunovic): scenarios"``).  ``chunk``
    scenarios go to a worker in one task, their rows stored in one transaction
    (:func:`~clustersched.campaign.run_campaign`): for studies of many scenarios of milliseconds.

    A run that finds scenarios already stored says so on one stderr line
    (``note: resuming: 40 of 96 scenarios already done in out/campaign.sqlite; computing the other 56``).
    Interrupted (Ctrl-C, SIGTERM), it raises KeyboardInterrupt saying how many
    of the scenarios are stored and that the same command resumes."""
    from . import Store, run_campaign, scenario_key

    out.mkdir(parents=True, exist_ok=True)
    tasks = max(1, -(-len(todo) // chunk))
    if type(workers) is int and workers > tasks:
        workers = tasks
    path = out / "campaign.sqlite"
    with Store(path) as store:
        keys = {scenario_key(s) for s in todo}
        found = len(keys & store.done(campaign))
        if found:
            # the scenarios stored with an error are computed again (run_campaign's retry_errors)
            left = len(keys) - found
            print(
                f"note: resuming: {found} of {len(keys)} scenarios already done in {path}"
                + (f"; computing the other {left}" if left else "; nothing left to compute"),
                file=sys.stderr,
            )
        try:
            rows = run_campaign(
                campaign,
                todo,
                scenario,
                store=store,
                workers=workers,
                dask=dask,
                progress=progress,
                label=label,
                chunk=chunk,
            )
        except (KeyboardInterrupt, BrokenExecutor) as exc:
            # a Ctrl-C, a SIGTERM, a worker that died: the same exception, saying what is kept
            kept = len(keys & store.done(campaign, errors=True))
            raise type(exc)(
                f"{kept} of {len(keys)} scenarios are stored in {path}; the same command resumes from there"
            ) from exc
    found = _STUDIES.get()
    if found is not None:
        found.append(Study(campaign, len(rows), sum(r["status"] != "ok" for r in rows), path))
    return rows
