"""Scenarios: plain dicts of JSON parameters, their canonical keys, and grids of them.

A scenario is one point of a campaign, e.g. ``{"trace": "HPC2N", "policy": "easy",
"slice": 5000}``.  Its key is its canonical JSON text (sorted keys, no whitespace),
so the same parameters give the same key in every run, on every machine, whatever
the order the dict was built in.  numpy scalars and arrays are accepted and stored
as the equivalent Python numbers and lists.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Mapping, Set
from typing import Any

import numpy as np

__all__ = ["RESERVED", "grid", "scenario_key"]

#: Fields every result row carries besides the scenario's parameters and the
#: result's values; neither may use these names.
RESERVED = ("status", "error", "traceback", "seconds", "finished_at")


def grid(**axes: Iterable[Any]) -> list[dict[str, Any]]:
    """The cartesian product of ``axes``, one scenario per combination.

    Parameters
    ----------
    **axes : iterable
        The values of each parameter, in order.  A string or a set is refused:
        a string would be split into characters and a set has no stable order.

    Returns
    -------
    list of dict
        In the order of the keyword arguments, the last axis varying fastest.

    Examples
    --------
    >>> from clustersched.campaign import grid
    >>> for scenario in grid(policy=["fcfs", "easy"], seed=range(2)):
    ...     print(scenario)
    {'policy': 'fcfs', 'seed': 0}
    {'policy': 'fcfs', 'seed': 1}
    {'policy': 'easy', 'seed': 0}
    {'policy': 'easy', 'seed': 1}
    """
    values = []
    for name, axis in axes.items():
        if isinstance(axis, (str, bytes, Mapping, Set)) or not isinstance(axis, Iterable):
            raise TypeError(
                f"grid axis {name} == {axis!r}, must be an ordered collection of values "
                "(a list, tuple, range or array; wrap a single value in a list)"
            )
        values.append(list(axis))
        if not values[-1]:
            raise ValueError(f"grid axis {name} == {axis!r}, must have at least one value")
    return [dict(zip(axes, combination)) for combination in itertools.product(*values)]


def scenario_key(scenario: Mapping[str, Any]) -> str:
    """The canonical JSON text of ``scenario``: sorted keys, no whitespace.

    Raises
    ------
    TypeError
        If ``scenario`` is not a dict with str keys and JSON-serializable values.
    ValueError
        If a parameter uses a name of :data:`RESERVED`.

    Examples
    --------
    >>> from clustersched.campaign import scenario_key
    >>> scenario_key({"slice": 5000, "policy": "easy"})
    '{"policy":"easy","slice":5000}'
    """
    return key_of(scenario, "scenario")


def key_of(scenario: Any, what: str) -> str:
    """:func:`scenario_key`, naming the scenario ``what`` in errors."""
    if not isinstance(scenario, Mapping):
        raise TypeError(f"{what} == {scenario!r}, must be a dict of parameters")
    for name in scenario:
        if not isinstance(name, str):
            raise TypeError(f"{what} == {scenario!r}: parameter names must be str, not {type(name).__name__}")
        if name in RESERVED:
            raise ValueError(f"{what} == {scenario!r}: parameter {name!r} is reserved for result rows {RESERVED}")
    try:
        return dumps(scenario, sort_keys=True)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{what} == {scenario!r} is not JSON-serializable: {exc}") from None


def dumps(value: Any, *, sort_keys: bool = False) -> str:
    """Compact JSON of ``value``, numpy scalars and arrays as plain numbers and lists."""
    return json.dumps(value, sort_keys=sort_keys, separators=(",", ":"), default=_plain)


def _plain(value: Any) -> Any:
    if isinstance(value, (np.generic, np.ndarray)):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} {value!r} is not JSON-serializable")
