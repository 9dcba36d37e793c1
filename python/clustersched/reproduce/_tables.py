"""CSV and markdown cells shared by the reproductions."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any, Iterable, Sequence


def write_csv(rows: Iterable[dict[str, Any]], path: Path, columns: Sequence[str]) -> None:
    """Writes ``columns`` of ``rows`` to ``path`` (other keys ignored, ``None`` and missing keys as empty cells)."""
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(columns), extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: "" if row.get(k) is None else row[k] for k in columns})


def cell(value: Any, digits: int = 2) -> str:
    """A markdown table cell: floats to ``digits`` decimals, ``None`` as an em dash.

    Examples
    --------
    >>> cell(1.23456), cell(1.23456, 3), cell(None), cell(7)
    ('1.23', '1.235', '—', '7')
    """
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)
