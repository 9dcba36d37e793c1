"""Tests of job-table transforms (clustersched.workload.transform)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from clustersched.workload.jobs import FIELD_NAMES, Dropped, JobTable
from clustersched.workload.swf import read_swf
from clustersched.workload.transform import (
    CLIPPED_TO_MACHINE,
    NO_PROCESSOR_COUNT,
    NONPOSITIVE_RUNTIME,
    WIDER_THAN_MACHINE,
    drop_invalid,
    invalid_jobs,
    offered_load,
    scale_submit,
    scale_to_load,
    time_windows,
)

SWF_DIR = Path(__file__).resolve().parents[2] / "shared" / "data" / "swf"
WEEK = 7 * 86400

needs_traces = pytest.mark.skipif(not SWF_DIR.is_dir(), reason=f"{SWF_DIR} not found")


# -- selecting rows --------------------------------------------------------------


@given(
    rows=st.integers(0, 40).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(st.booleans(), min_size=n, max_size=n).map(lambda m: np.array(m, dtype=bool))
            | st.lists(st.integers(0, max(n - 1, 0)), max_size=2 * n if n else 0).map(
                lambda i: np.array(i, dtype=np.int64)
            )
            | st.tuples(st.integers(0, n), st.integers(0, n)).map(lambda ab: slice(*ab)),
        )
    ),
    seed=st.integers(0, 2**32 - 1),
)
def test_select_picks_rows_into_columns_of_their_own(rows: tuple[int, object], seed: int) -> None:
    """select gives each column's picked rows (by mask, index or slice), in its
    dtype, each in memory of its own (a column kept alone keeps nothing else
    alive): writing to the result changes neither the source nor another column."""
    n, pick = rows
    rng = np.random.default_rng(seed)
    source = JobTable({name: rng.integers(-1, 10**6, n) for name in FIELD_NAMES}, metadata={"MaxProcs": "8"})
    before = {name: getattr(source, name).copy() for name in FIELD_NAMES}
    picked = source.select(pick)
    assert all(getattr(picked, name).base is None for name in FIELD_NAMES)
    for name in FIELD_NAMES:
        column = getattr(picked, name)
        assert column.dtype == getattr(source, name).dtype and column.flags.c_contiguous
        np.testing.assert_array_equal(column, before[name][pick])
    picked.submit[:] = -7.0
    picked.job_id[:] = -7
    np.testing.assert_array_equal(picked.runtime, before["runtime"][pick])
    for name in FIELD_NAMES:
        np.testing.assert_array_equal(getattr(source, name), before[name])


# -- time windows ----------------------------------------------------------------


@given(
    submits=st.lists(st.integers(0, 10**6), min_size=1, max_size=60),
    length=st.integers(1, 10**5),
    origin=st.none() | st.integers(-(10**5), 10**6),
    rebase=st.booleans(),
)
def test_windows_partition_jobs(submits: list[int], length: int, origin: int | None, rebase: bool) -> None:
    t = JobTable({"submit": submits})  # job ids 1..n
    windows = time_windows(t, length, origin=origin, rebase=rebase)
    start = min(submits) if origin is None else origin
    ids = np.concatenate([w.job_id for w in windows])
    assert sorted(ids.tolist()) == list(range(1, len(submits) + 1))  # each job exactly once
    ks = []
    for w in windows:
        assert len(w) > 0
        assert np.all(np.diff(w.job_id) > 0)  # row order kept
        original = np.asarray(submits)[w.job_id - 1]
        k = set(((original - start) // length).tolist())
        assert len(k) == 1  # one window holds one interval
        ks.append(k.pop())
        if rebase:
            assert np.array_equal(w.submit, original - (start + ks[-1] * length))
            assert np.all((0 <= w.submit) & (w.submit < length))
        else:
            assert np.array_equal(w.submit, original)
    assert ks == sorted(set(ks))  # in time order


def test_windows_by_hand() -> None:
    t = JobTable({"submit": [5.5, 0.25, 10.0, 3.0], "runtime": [1, 2, 3, 4]}, metadata={"a": "b"})
    windows = time_windows(t, 5)  # origin 0.25: [0.25, 5.25), [5.25, 10.25)
    assert [w.job_id.tolist() for w in windows] == [[2, 4], [1, 3]]
    assert [w.submit.tolist() for w in windows] == [[0.25, 3.0], [5.5, 10.0]]
    assert [w.runtime.tolist() for w in windows] == [[2, 4], [1, 3]]
    assert all(w.metadata == {"a": "b"} for w in windows)
    rebased = time_windows(t, 5, rebase=True)
    assert [w.submit.tolist() for w in rebased] == [[0.0, 2.75], [0.25, 4.75]]
    # With origin 0 and length 2, windows 0, 1, 2 and 5 hold jobs; the empty 3 and 4 are left out.
    assert [w.job_id.tolist() for w in time_windows(t, 2, origin=0)] == [[2], [4], [1], [3]]
    assert t.submit.tolist() == [5.5, 0.25, 10.0, 3.0]  # input untouched


@needs_traces
def test_hpc2n_weeks(hpc2n: JobTable) -> None:
    weeks = time_windows(hpc2n, rebase=True)
    assert len(weeks) == 181  # the trace spans 180.6 weeks, none of them empty
    assert sum(len(w) for w in weeks) == len(hpc2n)
    assert all(w.submit.min() >= 0 and w.submit.max() < WEEK for w in weeks)
    assert weeks[0].submit[0] == 0 and weeks[0].job_id[0] == hpc2n.job_id[0]
    assert all(w.max_procs == 240 for w in weeks)


def test_windows_arguments() -> None:
    t = JobTable({"submit": [0, 10]})
    assert time_windows(JobTable(), 10) == []
    for bad in (0, -5, math.nan, math.inf):
        with pytest.raises(ValueError, match=f"length == {bad}, must be"):
            time_windows(t, bad)
    with pytest.raises(TypeError, match="length == '7', must be a real number"):
        time_windows(t, "7")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="origin == nan, must be finite"):
        time_windows(t, 10, origin=math.nan)


# -- invalid jobs --------------------------------------------------------------------

# job_id: procs, procs_requested, runtime, why it is invalid on 256 processors
JOBS = {
    1: (4, 4, 100, None),
    2: (-1, 8, 50, None),  # width from the request
    3: (-1, -1, 10, NO_PROCESSOR_COUNT),
    4: (0, -1, 10, NO_PROCESSOR_COUNT),
    5: (300, 300, 10, WIDER_THAN_MACHINE),
    6: (16, 16, 0, NONPOSITIVE_RUNTIME),
    7: (16, 16, -1, NONPOSITIVE_RUNTIME),  # unknown runtime
    8: (512, 512, -1, WIDER_THAN_MACHINE),  # both; the first reason counts
    9: (-1, 300, 20, WIDER_THAN_MACHINE),
    10: (256, 256, 1, None),  # exactly as wide as the machine
}


@pytest.fixture
def jobs() -> JobTable:
    procs, requested, runtime, _ = zip(*JOBS.values())
    return JobTable(
        {"job_id": list(JOBS), "procs": procs, "procs_requested": requested, "runtime": runtime},
        dropped=[Dropped("earlier", 99, 7)],
    )


def test_invalid_jobs(jobs: JobTable) -> None:
    expected = [Dropped(why, job) for job, (*_, why) in JOBS.items() if why]
    assert invalid_jobs(jobs, 256) == expected


def test_drop_invalid(jobs: JobTable) -> None:
    kept = drop_invalid(jobs, 256)
    assert kept.job_id.tolist() == [1, 2, 10]
    assert kept.dropped == (Dropped("earlier", 99, 7), *invalid_jobs(jobs, 256))
    assert kept.drop_summary() == {"earlier": 1, NO_PROCESSOR_COUNT: 2, WIDER_THAN_MACHINE: 3, NONPOSITIVE_RUNTIME: 2}
    assert len(jobs) == 10 and len(jobs.dropped) == 1  # input untouched


def test_drop_invalid_policies(jobs: JobTable) -> None:
    kept = drop_invalid(jobs, 256, wider="keep")
    assert kept.job_id.tolist() == [1, 2, 5, 9, 10]
    assert [(d.job_id, d.reason) for d in kept.dropped[1:]] == [
        (3, NO_PROCESSOR_COUNT),
        (4, NO_PROCESSOR_COUNT),
        (6, NONPOSITIVE_RUNTIME),
        (7, NONPOSITIVE_RUNTIME),
        (8, NONPOSITIVE_RUNTIME),
    ]
    clipped = drop_invalid(jobs, 256, wider="clip")
    assert clipped.job_id.tolist() == [1, 2, 5, 9, 10]
    assert clipped.width().tolist() == [4, 8, 256, 256, 256]
    assert clipped.procs.tolist() == [4, -1, 256, -1, 256]  # -1 stays unknown
    clip_reports = [d.job_id for d in clipped.dropped if d.reason == CLIPPED_TO_MACHINE]
    assert clip_reports == [5, 9]  # kept, but reported as changed
    lenient = drop_invalid(jobs, 256, nonpositive_runtime="keep")
    assert lenient.job_id.tolist() == [1, 2, 6, 7, 10]
    assert NONPOSITIVE_RUNTIME not in lenient.drop_summary()


@needs_traces
def test_drop_invalid_real_trace() -> None:
    t = read_swf(SWF_DIR / "small" / "alea__hpc2n.swf")  # an uncleaned HPC2N excerpt
    kept = drop_invalid(t, 240)
    assert kept.drop_summary() == {NONPOSITIVE_RUNTIME: 25}
    assert len(kept) == len(t) - 25
    assert np.all(kept.runtime > 0) and np.all((kept.width() > 0) & (kept.width() <= 240))
    assert [d.job_id for d in kept.dropped] == t.job_id[t.runtime <= 0].tolist()


@pytest.mark.parametrize(
    ("procs", "error", "message"),
    [
        (0, ValueError, "procs == 0, must be >= 1"),
        (-8, ValueError, "procs == -8, must be >= 1"),
        (2.5, TypeError, "procs == 2.5, must be an integer"),
        ("8", TypeError, "procs == '8', must be an integer"),
        (True, TypeError, "procs == True, must be an integer"),
    ],
)
def test_procs_argument(jobs: JobTable, procs: object, error: type, message: str) -> None:
    for call in (invalid_jobs, drop_invalid, offered_load):
        with pytest.raises(error, match=message):
            call(jobs, procs)  # type: ignore[arg-type]


def test_policy_arguments(jobs: JobTable) -> None:
    with pytest.raises(ValueError, match="wider == 'shrink', must be one of 'drop', 'clip'"):
        drop_invalid(jobs, 256, wider="shrink")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="nonpositive_runtime == 'clip'"):
        drop_invalid(jobs, 256, nonpositive_runtime="clip")  # type: ignore[arg-type]


# -- load ------------------------------------------------------------------------------


def test_offered_load_by_hand() -> None:
    t = JobTable(
        {
            "submit": [0, 50, 100, 60],
            "runtime": [10, 20, -1, 1000],
            "procs": [2, 4, 8, -1],  # job 4 has no processor count
        }
    )
    # (10 * 2 + 20 * 4) / (4 * (100 - 0)); jobs 3 and 4 add nothing.
    assert offered_load(t, 4) == 0.25
    assert offered_load(t, 1) == 1.0


@needs_traces
def test_offered_load_hpc2n(hpc2n: JobTable) -> None:
    assert offered_load(hpc2n, 240) == pytest.approx(0.6016, abs=1e-4)


def test_offered_load_undefined() -> None:
    for t in (JobTable(), JobTable({"submit": [5], "runtime": [1]}), JobTable({"submit": [5, 5]})):
        with pytest.raises(ValueError, match="undefined: its jobs span no time"):
            offered_load(t, 4)


def test_scale_submit() -> None:
    t = JobTable({"submit": [100, 110, 130], "wait": [1, 2, 3], "runtime": [5, 6, 7]})
    assert scale_submit(t, 2).submit.tolist() == [100, 120, 160]
    assert scale_submit(t, 0.5).submit.tolist() == [100, 105, 115]
    slow = scale_submit(t, 3)
    assert slow.wait.tolist() == [1, 2, 3] and slow.runtime.tolist() == [5, 6, 7]
    assert t.submit.tolist() == [100, 110, 130]
    assert len(scale_submit(JobTable(), 2)) == 0
    for bad in (0, -1, math.nan, math.inf):
        with pytest.raises(ValueError, match=f"factor == {bad}, must be"):
            scale_submit(t, bad)
    with pytest.raises(TypeError, match="factor == '2', must be a real number"):
        scale_submit(t, "2")  # type: ignore[arg-type]


@given(
    submits=st.lists(st.floats(0, 1e7), min_size=2, max_size=40).filter(lambda s: max(s) - min(s) >= 1),
    runtime=st.floats(1, 1e5),
    target=st.floats(0.01, 10),
)
def test_scale_to_load_reaches_target(submits: list[float], runtime: float, target: float) -> None:
    n = len(submits)
    t = JobTable({"submit": submits, "runtime": [runtime] * n, "procs": [2] * n})
    scaled = scale_to_load(t, 64, target)
    # Within float error: scaled times are rounded to the precision of the latest one.
    rel = 4 * np.spacing(scaled.submit.max()) / np.ptp(scaled.submit)
    assert offered_load(scaled, 64) == pytest.approx(target, rel=max(rel, 1e-13))
    assert scaled.submit.min() == t.submit.min()
    order = np.argsort(t.submit, kind="stable")
    assert np.all(np.diff(scaled.submit[order]) >= 0)  # arrival order kept


@needs_traces
def test_scale_hpc2n_to_load(hpc2n: JobTable) -> None:
    heavy = scale_to_load(hpc2n, 240, 0.9)
    assert offered_load(heavy, 240) == pytest.approx(0.9, rel=1e-12)
    assert heavy.submit[0] == hpc2n.submit[0] and heavy.submit[-1] < hpc2n.submit[-1]


def test_scale_to_load_arguments() -> None:
    t = JobTable({"submit": [0, 10], "runtime": [-1, 0], "procs": [1, 1]})
    with pytest.raises(ValueError, match="holds no work"):
        scale_to_load(t, 4, 0.5)
    with pytest.raises(ValueError, match="target == 0, must be > 0"):
        scale_to_load(t, 4, 0)


# -- issue 30: a rebased window keeps its header true ------------------------------------------------------------------

HEADER = [
    " Version: 2.2",
    " MaxJobs: 4",
    " MaxRecords: 4",
    " UnixStartTime: 1027839845",
    " TimeZone: 3600",
    " TimeZoneString: Europe/Stockholm",
    " StartTime: Sun Jul 28 09:04:05 CEST 2002",
    " EndTime:   Mon Jan 16 20:31:24 CET 2006",
    " MaxProcs: 240",
]


def _dated(submits: list[float]) -> JobTable:
    metadata = {}
    for line in HEADER:
        key, value = line.split(":", 1)
        metadata[key.strip()] = value.strip()
    return JobTable(
        {"submit": submits, "runtime": [10.0] * len(submits), "procs": [1] * len(submits)},
        metadata=metadata,
        header=list(HEADER),
    )


def test_a_rebased_window_moves_unix_start_time_and_start_time(tmp_path: Path) -> None:
    """Issue 30: write_swf of a time_windows window kept the old UnixStartTime, so its jobs moved in time."""
    from clustersched.workload.swf import write_swf
    from clustersched.workload.transform import time_window

    t = _dated([100.0, 86400.0 + 100, 86400.0 + 7300, 3 * 86400.0])
    day = time_window(t, 86400, 2 * 86400, origin=0, rebase=True)
    assert day.submit.tolist() == [100.0, 7300.0]
    assert day.metadata["UnixStartTime"] == str(1027839845 + 86400)
    assert day.metadata["StartTime"] == "Mon Jul 29 09:04:05 CEST 2002"
    assert day.metadata["EndTime"] == "Tue Jul 30 09:04:05 CEST 2002"  # the window ends before the trace
    assert day.metadata["MaxJobs"] == day.metadata["MaxRecords"] == "2"
    assert day.metadata["MaxProcs"] == "240" and day.metadata["TimeZone"] == "3600"
    # every job keeps its absolute time: UnixStartTime + submit
    absolute = 1027839845 + t.submit[1:3]
    assert np.array_equal(int(day.metadata["UnixStartTime"]) + day.submit, absolute)
    # the header lines say the same, in their own spacing, and a written file reads back the same
    assert " EndTime:   Tue Jul 30 09:04:05 CEST 2002" in day.header
    back = read_swf(write_swf(day, tmp_path / "day.swf"))
    assert back.metadata == day.metadata and back.submit.tolist() == [100.0, 7300.0]
    # not rebased: the header as it was
    assert time_window(t, 86400, 2 * 86400, origin=0).metadata == t.metadata


def test_time_windows_rebase_moves_the_header_of_each_window() -> None:
    t = _dated([0.0, 10.0, 7 * 86400.0 + 5, 20 * 86400.0])
    weeks = time_windows(t, 7 * 86400, rebase=True)
    assert [w.metadata["UnixStartTime"] for w in weeks] == [str(1027839845 + k * 7 * 86400) for k in (0, 1, 2)]
    assert [w.metadata["MaxJobs"] for w in weeks] == ["2", "1", "1"]
    assert weeks[2].metadata["StartTime"] == "Sun Aug 11 09:04:05 CEST 2002"
    assert weeks[0].metadata["EndTime"] == "Sun Aug 04 09:04:05 CEST 2002"
    # in winter the zone's time is CET, an hour behind
    assert time_windows(t, 100 * 86400, rebase=True)[0].metadata["EndTime"] == "Tue Nov 05 08:04:05 CET 2002"
    assert time_windows(t, 7 * 86400)[1].metadata == t.metadata  # not rebased: unchanged


def test_a_window_beyond_what_the_header_can_date_drops_start_time() -> None:
    """A StartTime without a zone to write it in is removed, never left wrong; UnixStartTime still moves."""
    from clustersched.workload.transform import time_window

    t = JobTable(
        {"submit": [0.0, 500.0]},
        metadata={"UnixStartTime": "1000", "StartTime": "whenever"},
        header=[" UnixStartTime: 1000", " StartTime: whenever", " Note: kept"],
    )
    w = time_window(t, 100, rebase=True)
    assert w.metadata == {"UnixStartTime": "1100"} and w.header == [" UnixStartTime: 1100", " Note: kept"]
    assert w.submit.tolist() == [400.0]


def test_time_window_arguments() -> None:
    from clustersched.workload.transform import time_window

    t = JobTable({"submit": [5.0, 10.0, 20.0]})
    assert time_window(t, 5).job_id.tolist() == [2, 3]  # from the first submit, 5
    assert time_window(t, 0, 15).job_id.tolist() == [1, 2]  # [5, 20): 20 is out
    assert len(time_window(t, 100)) == 0 and len(time_window(JobTable(), 0, 1)) == 0
    with pytest.raises(ValueError, match="end == 5.0, must be > start == 5.0"):
        time_window(t, 5, 5)
    with pytest.raises(ValueError, match="start == nan, must be finite"):
        time_window(t, math.nan)
