"""SWF reading benchmarks (issue "Whole studies in minutes", part 1).

``read_swf`` of the whole HPC2N-2002 trace (202,871 jobs, gzip-compressed):
target <= 0.2 s from a release build (1.5 s with numpy's text loader before
parsing moved into the Rust core, rust/core/src/workload/swf.rs).  The bench
checks the table it reads, so ``--benchmark-disable`` runs stay meaningful.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from clustersched import read_swf

SWF_DIR = Path(__file__).resolve().parents[2] / "shared" / "data" / "swf"


@pytest.mark.parametrize("name", ["HPC2N-2002-2.2-cln.swf.gz", "CTC-SP2-1996-3.1-cln.swf.gz"])
def test_read_swf_whole_trace(benchmark, name):
    path = SWF_DIR / name
    if not path.exists():
        pytest.skip(f"{path} not found (benches read the shared traces from ../shared)")
    table = benchmark.pedantic(read_swf, args=(path,), rounds=5, iterations=1)
    jobs, procs = {"HPC2N-2002-2.2-cln.swf.gz": (202_871, 240), "CTC-SP2-1996-3.1-cln.swf.gz": (77_222, 338)}[name]
    assert len(table) == jobs and table.max_procs == procs and not table.dropped
    assert len(set(table.job_id.tolist())) == jobs and table.submit.min() >= 0
    if not benchmark.disabled:
        benchmark.extra_info["jobs_per_second"] = jobs / benchmark.stats.stats.median
