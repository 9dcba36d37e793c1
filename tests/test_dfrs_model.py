"""The DFRS job and node model: construction, order, rounding, typed errors."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

from clustersched.dfrs import model
from clustersched.dfrs.model import NEED_UNITS, DfrsJobs, DfrsPlatform
from clustersched.errors import InvalidWorkloadError


def jobs(**changes):
    cols = dict(
        submit=[5, 0, 5],
        processing_time=[10, 20, 30],
        tasks=[1, 2, 3],
        cpu_need=[0.25, 1.0, 0.5],
        mem_need=[0.1, 0.3, 0.5],
    )
    cols.update(changes)
    return DfrsJobs(**cols)


def test_rows_in_submission_order_stable():
    j = jobs()
    assert j.job_id.tolist() == [2, 1, 3]
    assert j.submit.tolist() == [0, 5, 5]
    assert j.processing_time.tolist() == [20, 10, 30]
    assert len(j) == 3 and set(j.columns()) == {
        "job_id",
        "submit",
        "processing_time",
        "tasks",
        "cpu_need",
        "mem_need",
        "time_requested",
    }


def test_needs_rounded_to_resolution_and_units_exact():
    j = jobs(mem_need=[0.1 + 1e-12, 0.3, 1 / 3])
    assert j.mem_units().tolist() == [300_000_000, 100_000_000, 333_333_333]
    # ten tasks of 10% fill a node exactly in units
    assert int(j.mem_units()[1]) * 10 == NEED_UNITS
    assert j.tasks_per_node().tolist() == [3, 10, 3]


def test_fits_and_check_fits():
    j = jobs(tasks=[1, 21, 3], mem_need=[0.1, 0.1, 0.6])  # rows: job 2 (21 tasks), job 1, job 3
    p = DfrsPlatform(2)
    assert j.fits(p).tolist() == [False, True, False]
    with pytest.raises(InvalidWorkloadError, match="21 tasks") as info:
        j.check_fits(p)
    assert info.value.job_id == 2
    j.select(j.fits(p)).check_fits(p)


def test_immutable():
    j = jobs()
    with pytest.raises(AttributeError):
        j.submit = np.zeros(3)
    with pytest.raises(ValueError):
        j.submit[0] = 3.0


@pytest.mark.parametrize(
    "field,value,match",
    [
        ("cpu_need", [0.25, 0.0, 0.5], "cpu_need == 0.0"),
        ("cpu_need", [0.25, 1.5, 0.5], "cpu_need == 1.5"),
        ("mem_need", [0.1, float("nan"), 0.5], "mem_need == nan"),
        ("mem_need", [0.1, 1e-12, 0.5], "resolution"),
        ("tasks", [1, 0, 3], "tasks == 0"),
        ("tasks", [1, 2.5, 3], "not an integer"),
        ("submit", [5, -1, 5], "submit == -1"),
        ("processing_time", [10, float("inf"), 30], "processing_time == inf"),
    ],
)
def test_bad_values_name_job_and_field(field, value, match):
    with pytest.raises(InvalidWorkloadError, match=match) as info:
        jobs(**{field: value})
    assert info.value.field == field


def test_bad_shapes_and_types():
    with pytest.raises(ValueError, match="differ in length"):
        jobs(tasks=[1, 2])
    with pytest.raises(TypeError, match="'tasks' == None"):
        jobs(tasks=None)
    with pytest.raises(TypeError, match="dtype"):
        jobs(tasks=["a", "b", "c"])
    with pytest.raises(ValueError, match="1-D"):
        jobs(tasks=[[1, 2, 3]])


def test_platform_checks():
    assert DfrsPlatform(4, 8).node_memory_gb == 8.0
    with pytest.raises(ValueError, match="nodes == 0"):
        DfrsPlatform(0)
    with pytest.raises(TypeError, match="nodes"):
        DfrsPlatform(2.5)
    with pytest.raises(ValueError, match="node_memory_gb"):
        DfrsPlatform(2, 0)


def test_docstring_examples():
    assert doctest.testmod(model, raise_on_error=True).failed == 0
