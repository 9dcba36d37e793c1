"""Slurm's scheduler at scale (issue 35): the medium cluster's synthetic week, repeated with its submit times
shifted by a week each time (so every week has the week's own load), replayed under ``slurm``; the CPU time per
job as the number of weeks grows.

Run: ``python docs/slurm_scale.py [WEEKS ...]`` (default 1 2 4; ``--scale small``: 1) from a release build,
with ``../shared`` beside the checkout.  docs/slurm-scheduler.md quotes its output.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from clustersched.batch import simulate
from clustersched.slurm import read_slurm_conf, read_slurm_events
from clustersched.slurm.scheduler import SlurmScheduler

MEDIUM = Path(__file__).resolve().parents[2] / "shared" / "data" / "slurm" / "medium"
WEEK = 7 * 86400.0


def repeated(week, times: int):
    """``week`` ``times`` times over, each copy's submit times a week after the previous copy's."""
    n = len(week)
    table = week.select(np.tile(np.arange(n), times))
    shift = np.repeat(np.arange(times) * WEEK, n)
    return table.with_columns(submit=table.submit + shift, job_id=np.arange(1, n * times + 1))


def main(weeks: list[int]) -> None:
    if not MEDIUM.is_dir():
        print(f"{MEDIUM} not found: nothing to replay")
        return
    conf = read_slurm_conf(str(MEDIUM / "slurm.conf"))
    scheduler = SlurmScheduler.from_conf(conf, str(MEDIUM / "sacctmgr.script"))
    week = read_slurm_events(str(MEDIUM / "workload_week.events.gz"))
    print("weeks  jobs  cpu_s  us_per_job  mean_wait_s  backfill_passes")
    for k in weeks:
        table = repeated(week, k)
        began = time.process_time()
        run = simulate(table, scheduler, platform=conf.platform, validate=False)
        cpu = time.process_time() - began
        wait = float(np.mean(run.schedule.start - run.jobs.submit))
        passes = run.slurm["backfill_passes"]
        print(f"{k:5d} {len(table):5d} {cpu:6.2f} {1e6 * cpu / len(table):11.1f} {wait:12.0f} {passes:16d}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("weeks", nargs="*", type=int, help="how many weeks to replay, each a run (default: 1 2 4)")
    parser.add_argument("--scale", choices=("small", "full"), default="full", help="small: one week (default: full)")
    args = parser.parse_args()
    main(args.weeks or ([1] if args.scale == "small" else [1, 2, 4]))
