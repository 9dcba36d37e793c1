"""What every reproduction's report shares: formatting markdown cells.

Running a study (its campaign in a folder) and writing its CSV tables are
:mod:`clustersched.campaign.study`'s, which the load sweeps use too.
"""

from __future__ import annotations

import math
from typing import Any


def cell(value: Any, digits: int = 2, *, none: str = "—", thousands: bool = False, nan_as_none: bool = False) -> str:
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
