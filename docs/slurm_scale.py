"""Slurm's scheduler at scale (issue 35): the medium cluster's synthetic week, repeated with its submit times
shifted by a week each time (so every week has the week's own load), replayed under ``slurm``; the CPU time per
job as the number of jobs grows.

With ``--sacct``, each replay goes through a generated ``sacct -P`` dump of those jobs, as an operator's would:
the table is written as a dump (``sacct_dump``), read back with ``read_sacct`` (its CPU time printed apart), and
that is replayed.  The dump is a workload of its own, not the events file's exactly: sacct writes whole seconds
(the events' submits are quarter seconds apart) and has no column for ``--exclusive`` (177 of the week's jobs).

Run: ``python docs/slurm_scale.py [--sacct] [JOBS ...]`` (default 10000 19579 39158 78316; ``--scale small``:
10000 alone) from a release build, with ``../shared`` beside the checkout.  A count of jobs is the week's first jobs
repeated, in order, as far as it goes: 19,579 is the week, 998,529 fifty-one weeks.  docs/slurm-scheduler.md
quotes the output.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from clustersched.batch import simulate
from clustersched.slurm import read_sacct, read_slurm_conf, read_slurm_events
from clustersched.slurm.scheduler import SlurmScheduler

MEDIUM = Path(__file__).resolve().parents[2] / "shared" / "data" / "slurm" / "medium"
WEEK = 7 * 86400.0
EPOCH = 1_609_459_200  # 2021-01-01T00:00:00 UTC: the dump's first day
COLUMNS = (
    "JobID|Partition|Account|User|QOS|Submit|Eligible|Start|End|Elapsed|Timelimit|State|NNodes|NCPUS|ReqCPUS|"
    "NTasks|ReqMem|ReqGRES|Constraints"
)


def repeated(week, times: int):
    """``week`` ``times`` times over, each copy's submit times a week after the previous copy's."""
    n = len(week)
    table = week.select(np.tile(np.arange(n), times))
    shift = np.repeat(np.arange(times) * WEEK, n)
    return table.with_columns(submit=table.submit + shift, job_id=np.arange(1, n * times + 1))


def first_jobs(week, count: int):
    """The first ``count`` jobs of the week repeated (``repeated``), as many weeks as it takes."""
    times = -(-count // len(week))
    return repeated(week, times).select(np.arange(count))


def _date(seconds: np.ndarray) -> list[str]:
    return np.datetime_as_string(seconds.astype("datetime64[s]"), unit="s").tolist()


def _duration(seconds: np.ndarray) -> list[str]:
    s = seconds.astype(np.int64)
    days, rest = np.divmod(s, 86400)
    clock = [f"{r // 3600:02d}:{r % 3600 // 60:02d}:{r % 60:02d}" for r in rest.tolist()]
    return [f"{d}-{c}" if d else c for d, c in zip(days.tolist(), clock, strict=True)]


def sacct_dump(table, path: str) -> None:
    """Write ``table`` (a JobTable with Requests) as a ``sacct -P`` dump: one COMPLETED (or TIMEOUT, when it
    ran to its limit) line per job, dated from ``EPOCH`` in whole seconds.  The generator has no real run: Start
    is written as the submit time (End = Start + the run time); the replay reads only Elapsed of the two."""
    r = table.requests
    submit = EPOCH + np.floor(table.submit).astype(np.int64)
    runtime = np.minimum(np.round(table.runtime), r.time_limit).astype(np.int64)
    limit = r.time_limit.astype(np.int64)
    state = np.where(runtime >= limit, "TIMEOUT", "COMPLETED")
    cpus = r.tasks * r.cpus_per_task
    # per node where given, else per CPU where given, else nothing (-1 in the requests: not asked)
    mem = [
        f"{int(node)}Mn" if node >= 0 else f"{int(cpu)}Mc" if cpu >= 0 else ""
        for node, cpu in zip(r.mem_per_node_mb.tolist(), r.mem_per_cpu_mb.tolist(), strict=True)
    ]
    gres = [
        (f"gpu:{t}:{g}" if t else f"gpu:{g}") if g > 0 else ""
        for g, t in zip(r.gpus_per_node.tolist(), r.gpu_type.tolist(), strict=True)
    ]
    columns = (
        np.arange(1, len(table) + 1).tolist(),
        r.partition.tolist(),
        r.account.tolist(),
        r.user.tolist(),
        r.qos.tolist(),
        _date(submit),
        _date(submit),
        _date(submit),
        _date(submit + runtime),
        _duration(runtime),
        _duration(limit),
        state.tolist(),
        r.nodes.tolist(),
        cpus.tolist(),
        cpus.tolist(),
        r.tasks.tolist(),
        mem,
        gres,
        r.features.tolist(),
    )
    with open(path, "w") as out:
        out.write(COLUMNS + "\n")
        out.writelines("|".join(map(str, row)) + "\n" for row in zip(*columns, strict=True))


def main(counts: list[int], sacct: bool) -> None:
    if not MEDIUM.is_dir():
        print(f"{MEDIUM} not found: nothing to replay")
        return
    conf = read_slurm_conf(str(MEDIUM / "slurm.conf"))
    scheduler = SlurmScheduler.from_conf(conf, str(MEDIUM / "sacctmgr.script"))
    week = read_slurm_events(str(MEDIUM / "workload_week.events.gz"))
    print("    jobs  read_s  replay_s  us_per_job  mean_wait_s  backfill_passes")
    for count in counts:
        table, read = first_jobs(week, count), float("nan")
        if sacct:
            with tempfile.TemporaryDirectory() as folder:
                path = os.path.join(folder, "sacct.txt")
                sacct_dump(table, path)
                began = time.process_time()
                table = read_sacct(path)
                read = time.process_time() - began
        began = time.process_time()
        run = simulate(table, scheduler, platform=conf.platform, validate=False)
        cpu = time.process_time() - began
        wait = float(np.mean(run.schedule.start - run.jobs.submit))
        passes = run.slurm["backfill_passes"]
        print(f"{len(table):8d} {read:7.2f} {cpu:9.2f} {1e6 * cpu / len(table):11.1f} {wait:12.0f} {passes:16d}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "jobs", nargs="*", type=int, help="how many jobs to replay, each a run (default: 10000 19579 39158 78316)"
    )
    parser.add_argument("--sacct", action="store_true", help="replay through a generated sacct dump (default: off)")
    parser.add_argument(
        "--scale",
        choices=("small", "full"),
        default="full",
        help="small: 10,000 jobs whatever JOBS say (default: full)",
    )
    args = parser.parse_args()
    main([10_000] if args.scale == "small" else args.jobs or [10_000, 19_579, 39_158, 78_316], args.sacct)
