"""What every reproduction shares: running its campaign, counting its errors, writing CSV, formatting markdown cells."""

from __future__ import annotations

import contextlib
import csv
import math
import os
import sys
from concurrent.futures import BrokenExecutor
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence


def write_csv(rows: Iterable[dict[str, Any]], path: Path, columns: Sequence[str]) -> None:
    """Writes ``columns`` of ``rows`` to ``path`` (other keys ignored, ``None`` and missing keys as empty cells).

    The file appears whole or not at all: it is written beside ``path`` and
    renamed, so an interrupted run never leaves half a table.
    """
    part = Path(path).with_name(Path(path).name + ".part")
    try:
        with open(part, "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(columns), extrasaction="ignore")
            writer.writeheader()
            for row in rows:
                writer.writerow({k: "" if row.get(k) is None else row[k] for k in columns})
        os.replace(part, path)
    except BaseException:
        with contextlib.suppress(OSError):
            part.unlink()
        raise


def cell(value: Any, digits: int = 2, *, none: str = "—", thousands: bool = False,
         nan_as_none: bool = False) -> str:
    """A markdown table cell: floats to ``digits`` decimals, ``None`` as ``none`` (an em dash).

    ``thousands`` groups a float's integer digits by commas; ``nan_as_none``
    shows a NaN float as ``none`` too (otherwise ``nan``).

    Examples
    --------
    >>> cell(1.23456), cell(1.23456, 3), cell(None), cell(7), cell(None, none="")
    ('1.23', '1.235', '—', '7', '')
    >>> cell(5262.0, 1, thousands=True), cell(float("nan")), cell(float("nan"), nan_as_none=True)
    ('5,262.0', 'nan', '—')
    """
    if value is None or (nan_as_none and isinstance(value, float) and math.isnan(value)):
        return none
    if isinstance(value, float):
        return f"{value:{',' if thousands else ''}.{digits}f}"
    return str(value)


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


def run_study(out: Path, campaign: str, todo: list[dict[str, Any]], scenario: Callable[[dict[str, Any]], Any], *,
              workers: Any, dask: Any, progress: bool, label: str | None = None,
              chunk: int = 1) -> list[dict[str, Any]]:
    """Runs ``todo`` through :func:`clustersched.campaign.run_campaign`, stored in ``out/campaign.sqlite``
    (``out`` is created if missing; a rerun resumes), and returns the stored rows.  Never more local workers than scenarios: more would
    only start idle processes (spawned all at once).  ``label`` names the paper and what the progress bar
    counts (``"DPSA paper (Grudenic & Bogunovic): scenarios"``).  ``chunk`` scenarios go to a worker in
    one task, their rows stored in one transaction (:func:`~clustersched.campaign.run_campaign`): for studies
    of many scenarios of milliseconds.

    A run that finds scenarios already stored says so on one stderr line
    (``note: resuming: 40 of 96 scenarios already done in out/campaign.sqlite; computing the other 56``).
    Interrupted (Ctrl-C, SIGTERM), it raises KeyboardInterrupt saying how many
    of the scenarios are stored and that the same command resumes."""
    from ..campaign import Store, run_campaign, scenario_key

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
            print(f"note: resuming: {found} of {len(keys)} scenarios already done in {path}"
                  + (f"; computing the other {left}" if left else "; nothing left to compute"), file=sys.stderr)
        try:
            rows = run_campaign(campaign, todo, scenario, store=store, workers=workers, dask=dask, progress=progress,
                                label=label, chunk=chunk)
        except (KeyboardInterrupt, BrokenExecutor) as exc:
            # a Ctrl-C, a SIGTERM, a worker that died: the same exception, saying what is kept
            kept = len(keys & store.done(campaign, errors=True))
            raise type(exc)(f"{kept} of {len(keys)} scenarios are stored in {path}; "
                            "the same command resumes from there") from exc
    found = _STUDIES.get()
    if found is not None:
        found.append(Study(campaign, len(rows), sum(r["status"] != "ok" for r in rows), path))
    return rows
