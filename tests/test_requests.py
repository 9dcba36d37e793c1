"""Requests and JobTable.requests (issue 34, item 2): SWF tables are unchanged, requests follow their rows."""

from __future__ import annotations

import numpy as np
import pytest

from clustersched import read_swf, sample_trace
from clustersched.errors import InvalidWorkloadError
from clustersched.workload import JobTable, Requests


def test_defaults_and_checks():
    r = Requests(n=2)
    assert r.tasks.tolist() == [1, 1] and r.mem_per_cpu_mb.tolist() == [-1.0, -1.0] and r.partition.tolist() == ["", ""]
    for column, value in (
        ("tasks", 0),
        ("cpus_per_task", 0),
        ("nodes", -1),
        ("mem_per_node_mb", -2.0),
        ("time_limit", 0.0),
        ("gpus_per_node", -1),
    ):
        with pytest.raises(InvalidWorkloadError, match=column) as info:
            Requests({column: [1, value] if column != "mem_per_node_mb" else [1.0, value]})
        assert info.value.row == 1
    with pytest.raises(TypeError, match="must be a str"):
        Requests({"partition": ["a", 3]})
    with pytest.raises(ValueError, match="unknown Requests column"):
        Requests({"gpus": [1]})
    with pytest.raises(ValueError, match="differ in length"):
        Requests({"tasks": [1, 2]}, n=3)


def test_from_swf():
    t = JobTable(
        {
            "procs": [4, 2, 8],
            "procs_requested": [-1, 3, 8],
            "mem_requested": [2048, -1, 1024],
            "time_requested": [600, -1, 60],
            "user_id": [7, -1, 7],
            "job_id": [5, 6, 7],
        }
    )
    r = Requests.from_swf(t)
    assert r.tasks.tolist() == [4, 3, 8] and (r.mem_per_cpu_mb == -1).all()
    assert r.time_limit.tolist() == [600.0, -1.0, 60.0] and r.user.tolist() == ["7", "", "7"]
    assert r.label.tolist() == ["5", "6", "7"]
    assert Requests.from_swf(t, memory=True).mem_per_cpu_mb.tolist() == [2.0, -1.0, 1.0]
    with pytest.raises(InvalidWorkloadError, match="no processor count") as info:
        Requests.from_swf(JobTable({"procs": [1, -1]}))
    assert info.value.job_id == 2


def test_swf_tables_are_unchanged():
    t = read_swf(sample_trace())
    assert t.requests is None and t.select(np.arange(10)).requests is None
    assert t.equals(read_swf(sample_trace()))
    with_requests = JobTable(t.columns(), metadata=t.metadata, requests=Requests.from_swf(t))
    assert not t.equals(with_requests) and with_requests.equals(with_requests.with_columns())
    picked = with_requests.select(t.runtime > 1000)
    assert len(picked.requests) == len(picked)
    assert picked.requests.label.tolist() == [str(x) for x in picked.job_id.tolist()]
    with pytest.raises(ValueError, match="one row per job"):
        JobTable({"runtime": [1, 2]}, requests=Requests(n=3))
