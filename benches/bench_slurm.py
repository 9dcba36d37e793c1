"""Slurm's scheduler (issue 35): replays of the micro cluster's real run and of the medium cluster's week.

Targets (in-process CPU time): the 500-job micro replay in <= 50 ms; the medium week; 1,000,000 jobs (the
week repeated at its own load, docs/slurm_scale.py) in <= 10 s.  Measured numbers are in benches/README.md and
docs/slurm-scheduler.md.  Each bench checks what it replayed.

Run for real from a release build: ``pip install . && python -m pytest benches/bench_slurm.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from clustersched.batch import simulate
from clustersched.batch.validate import validate_batch
from clustersched.slurm import read_sacct, read_slurm_conf, read_slurm_events
from clustersched.slurm.replay import compare_starts
from clustersched.slurm.scheduler import SlurmScheduler

SLURM = Path(__file__).resolve().parents[2] / "shared" / "data" / "slurm"
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs"))


def _needs(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"{path} not found (benches read Slurm's files from ../shared)")
    return path


@pytest.fixture(scope="module")
def micro():
    folder = _needs(SLURM / "micro")
    conf = read_slurm_conf(str(folder / "slurm.conf"))
    return (
        conf,
        read_sacct(str(folder / "slurm_acct.out")),
        SlurmScheduler.from_conf(conf, str(folder / "sacctmgr.script")),
    )


@pytest.fixture(scope="module")
def medium():
    folder = _needs(SLURM / "medium")
    conf = read_slurm_conf(str(folder / "slurm.conf"))
    week = read_slurm_events(str(folder / "workload_week.events.gz"))
    return conf, week, SlurmScheduler.from_conf(conf, str(folder / "sacctmgr.script"))


def test_micro_replay(benchmark, micro):
    conf, jobs, scheduler = micro
    run = benchmark.pedantic(
        simulate, args=(jobs, scheduler), kwargs={"platform": conf.platform, "validate": False}, rounds=10
    )
    validate_batch(run.schedule, run.jobs)
    summary = compare_starts(run.schedule, run.jobs).summary()
    assert abs(summary["mean_wait"] / summary["real_mean_wait"] - 1) < 0.05
    assert summary["kendall_tau"] > 0.7


@pytest.mark.parametrize("weeks", [1, 2])
def test_medium_weeks(benchmark, medium, weeks):
    from slurm_scale import repeated

    conf, week, scheduler = medium
    jobs = repeated(week, weeks)
    run = benchmark.pedantic(
        simulate, args=(jobs, scheduler), kwargs={"platform": conf.platform, "validate": False}, rounds=1
    )
    assert len(run.jobs) == weeks * 19_579 and np.isfinite(run.schedule.start).all()
    if weeks == 1:
        validate_batch(run.schedule, run.jobs)
