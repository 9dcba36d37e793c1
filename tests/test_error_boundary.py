"""The Rust -> Python error boundary: an error the core raises about one item
of its input arrives as a ``clustersched.errors`` class with the item's
address (row / PTG / task position, field, value) as attributes, for every
problem, through the public API where it reaches the core and through the
compiled module itself where the Python layer checks first."""

from __future__ import annotations

import math

import numpy as np
import pytest

import clustersched as cs
from clustersched import _core
from clustersched.errors import InvalidGraphError, InvalidWorkloadError

I64 = np.int64


def test_batch_job_error_carries_row_field_and_value():
    with pytest.raises(InvalidWorkloadError) as info:
        _core.BatchSim(np.zeros(2), np.ones(2), np.ones(2), np.array([1, 9], dtype=I64), 4, "arrival")
    e = info.value
    assert (e.row, e.job_id, e.field, e.value, e.ptg, e.task) == (1, None, "width", 9, None, None)
    assert str(e) == "row 1: width == 9, must be between 1 and 4 (the machine size)"


def test_batch_job_error_for_a_bad_runtime():
    with pytest.raises(InvalidWorkloadError) as info:
        _core.BatchSim(np.zeros(3), np.array([1.0, 1.0, -5.0]), np.full(3, 10.0), np.ones(3, dtype=I64), 4, "arrival")
    assert (info.value.row, info.value.field, info.value.value) == (2, "runtime", -5.0)


def test_ptg_task_error_carries_ptg_task_field_and_value():
    # PTG 0: one task; PTG 1: 0 -> 1, whose task 1 has alpha 1.5.
    with pytest.raises(InvalidWorkloadError) as info:
        _core.PtgSet(
            np.array([0, 1, 3], dtype=I64),
            np.ones(3),
            np.array([0.0, 0.0, 1.5]),
            np.array([0, 0, 1, 1], dtype=I64),
            np.array([2], dtype=I64),
        )
    e = info.value
    assert (e.ptg, e.task, e.field, e.value, e.row, e.job_id) == (1, 1, "alpha", 1.5, None, None)
    assert str(e) == "PTG 1, task 1: alpha == 1.5, must be between 0 and 1"


def test_ptg_error_without_a_task_names_the_ptg():
    with pytest.raises(InvalidWorkloadError) as info:
        _core.PtgSet(
            np.array([0, 1, 3], dtype=I64),
            np.ones(3),
            np.zeros(3),
            np.array([0, 0, 0, 0], dtype=I64),
            np.array([], dtype=I64),
        )
    assert (info.value.ptg, info.value.task) == (1, 1)  # task 1 of PTG 1 has no predecessor
    assert "has no predecessor" in str(info.value)


def test_scrap_task_error_carries_task_field_and_value():
    with pytest.raises(InvalidWorkloadError) as info:
        _core.MultiClusterPtg(
            np.array([1.0, -2.0]),
            np.zeros(2),
            np.array([0, 1, 1], dtype=I64),
            np.array([1], dtype=I64),
            np.array([4], dtype=I64),
            np.array([1e9]),
        )
    e = info.value
    assert (e.ptg, e.task, e.field, e.value) == (0, 1, "work", -2.0)


def test_dfrs_job_error_carries_row_field_and_value():
    ones = np.full(3, 10**8, dtype=np.uint64)
    with pytest.raises(InvalidWorkloadError) as info:
        _core.DfrsState(np.array([1, 1, 0], dtype=I64), ones, ones, 4)
    assert (info.value.row, info.value.field, info.value.value) == (2, "tasks", 0)
    with pytest.raises(InvalidWorkloadError) as info:
        _core.DfrsState(np.array([1, -3], dtype=I64), ones[:2], ones[:2], 4)
    assert (info.value.row, info.value.field, info.value.value) == (1, "tasks", -3)


def test_dfrs_bound_job_error_carries_row_field_and_value():
    with pytest.raises(InvalidWorkloadError) as info:
        _core.DfrsStretchBound(np.array([0.0, math.nan]), np.ones(2), np.ones(2), np.ones(2, dtype=I64), 1, 10.0)
    e = info.value
    assert (e.row, e.field) == (1, "submit") and math.isnan(e.value)


def test_grid_task_and_lan_errors_carry_the_node():
    with pytest.raises(InvalidGraphError) as info:
        _core.Tig(np.array([1.0, -1.0]), np.array([0], dtype=I64), np.array([1], dtype=I64), np.array([1.0]))
    assert (info.value.row, info.value.node, info.value.field, info.value.value) == (1, None, "mcr", -1.0)
    assert str(info.value) == "task at row 1: mcr == -1.0, must be finite, > 0 and <= 1e+300 (Mflop/s)"
    with pytest.raises(InvalidGraphError) as info:
        _core.LanGrid(
            np.array([0, 1, 1], dtype=I64),
            np.ones(1),
            np.ones(2),
            np.array([], dtype=I64),
            np.array([], dtype=I64),
            np.array([]),
        )
    assert (info.value.row, info.value.node) == (1, None) and str(info.value) == "LAN at row 1: has no host"


def test_bindings_hold_no_rules_of_their_own():
    # DPSA's node budget: one rule in the core, for the simulator and the search alike.
    with pytest.raises(ValueError, match="node_budget == 0, must be >= 1"):
        _core.dpsa_select(np.array([1], dtype=I64), np.array([True]), 1, 1, "p", node_budget=0)
    jobs = cs.read_swf(cs.sample_trace())
    with pytest.raises(ValueError, match="node_budget == 0, must be >= 1"):
        cs.simulate(jobs, "dpsa-p", node_budget=0)
    # one list of built-in policy names: the core's
    assert cs.batch.BUILTIN_POLICIES == tuple(_core.BUILTIN_POLICIES)
    assert set(cs.batch.policies.QUEUE_ORDER) == set(cs.batch.BUILTIN_POLICIES)
