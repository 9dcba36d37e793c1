"""Scenario functions for tests/test_campaign.py, in a module so worker processes can import them."""

from __future__ import annotations

import os
import uuid
from collections.abc import Collection
from pathlib import Path
from typing import Any

import numpy as np


def compute(scenario: dict[str, Any]) -> dict[str, Any]:
    """Cheap and deterministic, with numpy scalars to be converted."""
    x = scenario["x"]
    rng = np.random.default_rng([x, len(scenario["policy"])])
    return {"square": np.int64(x * x), "draw": rng.random(), "even": np.bool_(x % 2 == 0)}


def record(
    scenario: dict[str, Any],
    *,
    calls: str,
    error_at: Collection[int] = (),
    interrupt_at: Collection[int] = (),
    exit_at: Collection[int] = (),
) -> dict[str, Any]:
    """:func:`compute`, leaving one file per call in ``calls``; fails on the given ``x``.

    Bind the keywords with ``functools.partial`` (which pickles): ``error_at``
    raises ValueError, ``interrupt_at`` raises KeyboardInterrupt (a Ctrl-C),
    ``exit_at`` kills the process (a crash).
    """
    x = scenario["x"]
    Path(calls, f"{scenario['policy']}-{x}-{uuid.uuid4().hex}").touch()
    if x in error_at:
        raise ValueError(f"x == {x} is unlucky")
    if x in interrupt_at:
        raise KeyboardInterrupt
    if x in exit_at:
        os._exit(1)
    return compute(scenario)


def computed(directory: str) -> list[str]:
    """The scenarios :func:`record` computed (``"policy-x"``, sorted), forgetting them."""
    names = []
    for path in Path(directory).iterdir():
        names.append(path.name.rsplit("-", 1)[0])
        path.unlink()
    return sorted(names)


def not_a_dict(scenario: dict[str, Any]) -> list[int]:
    return [scenario["x"]]


def clashing(scenario: dict[str, Any]) -> dict[str, Any]:
    return {"x": 0}


def slow_dfrs_scenario(scenario: dict[str, Any]) -> dict[str, Any]:
    """:func:`clustersched.reproduce.dfrs.run_scenario`, but a minute late except for FCFS on the real weeks.

    The real campaign of ``clustersched reproduce dfrs --scale small``, with the
    first result in seconds and the others long enough that a worker left
    running after an interrupt would still be there (tests/test_cli_contract.py).
    """
    import time

    from clustersched.reproduce import dfrs

    if dfrs.run_scenario is slow_dfrs_scenario:
        raise RuntimeError("slow_dfrs_scenario runs in worker processes, where dfrs.run_scenario is the real one")
    if not (scenario["algorithm"] == "FCFS" and scenario["trace_set"] == "real"):
        time.sleep(60)
    return dfrs.run_scenario(scenario)
