"""What every reproduction shares: running its campaign, writing CSV, formatting markdown cells."""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence


def write_csv(rows: Iterable[dict[str, Any]], path: Path, columns: Sequence[str]) -> None:
    """Writes ``columns`` of ``rows`` to ``path`` (other keys ignored, ``None`` and missing keys as empty cells)."""
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(columns), extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: "" if row.get(k) is None else row[k] for k in columns})


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


def run_study(out: Path, campaign: str, todo: list[dict[str, Any]], scenario: Callable[[dict[str, Any]], Any], *,
              workers: Any, dask: Any, progress: bool) -> list[dict[str, Any]]:
    """Runs ``todo`` through :func:`clustersched.campaign.run_campaign`, stored in ``out/campaign.sqlite``
    (``out`` is created if missing; a rerun resumes), and returns the stored rows.  Never more local workers than scenarios: more would
    only start idle processes (spawned all at once)."""
    from ..campaign import Store, run_campaign

    out.mkdir(parents=True, exist_ok=True)
    if type(workers) is int and workers > len(todo):
        workers = len(todo)
    with Store(out / "campaign.sqlite") as store:
        return run_campaign(campaign, todo, scenario, store=store, workers=workers, dask=dask, progress=progress)
