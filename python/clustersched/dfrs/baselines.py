"""The batch baselines of RR-7659 §5.2: FCFS and EASY on whole nodes, with exact run times.

A batch scheduler gives a job dedicated nodes for its whole run.  Here job
``j`` gets ``ceil(tasks / k)`` whole nodes, ``k = min(floor(1 / cpu_need),
floor(1 / mem_need))`` tasks per node: as many of its tasks as a node holds
without over-committing its CPU or its memory, so that every task runs at
full speed (yield 1) and the job takes exactly its processing time.  (With
the synthetic workloads of §5.3.2 a one-task job takes one node and a
``T``-task job ``T`` nodes; with the HPC2N jobs of §5.3.1 a job of ``2T``
processors runs on ``T`` dual-core nodes, as it did on the real machine.)
The policies themselves are the batch simulator's
(:func:`clustersched.batch.simulate` with ``estimates="exact"``: EASY knows
every run time, §5.2); the resulting schedule is expressed as a
:class:`~clustersched.dfrs.schedule.DfrsSchedule` (one segment per job, on
the processors the batch simulator assigned, read as node ids; tasks fill
the job's nodes in order, ``k`` per node) so that the DFRS validator and
metrics apply to it unchanged.
"""

from __future__ import annotations

import time

import numpy as np

from .._checks import lookup
from ..errors import InvalidWorkloadError
from ..workload.jobs import JobTable
from .algorithms import BASELINES, DEFAULT_PENALTY
from .model import NEED_UNITS, DfrsJobs, DfrsPlatform
from .run import DfrsRun
from .schedule import DfrsSchedule

__all__ = ["node_widths", "simulate_batch"]


def node_widths(jobs: DfrsJobs) -> tuple[np.ndarray, np.ndarray]:
    """(whole nodes each job needs, tasks per node) for the batch baselines."""
    per_node = np.minimum(NEED_UNITS // jobs.cpu_units(), NEED_UNITS // jobs.mem_units()).astype(np.int64)
    return -(-jobs.tasks // per_node), per_node


def simulate_batch(jobs: DfrsJobs, platform: DfrsPlatform, policy: str, *,
                   penalty: float = DEFAULT_PENALTY) -> DfrsRun:
    """Runs ``policy`` (``"FCFS"`` or ``"EASY"``, any case) on whole nodes; returns a :class:`~clustersched.dfrs.run.DfrsRun`."""
    from ..batch.simulator import simulate as batch_simulate

    began = time.perf_counter()
    policy = lookup("policy", policy, BASELINES)
    jobs.check_nonempty()
    width, per_node = node_widths(jobs)
    too_wide = width > platform.nodes
    if too_wide.any():
        i = int(np.flatnonzero(too_wide)[0])
        raise InvalidWorkloadError(
            f"needs {width[i]} whole nodes ({jobs.tasks[i]} tasks, {per_node[i]} per node) for batch "
            f"scheduling, the platform has {platform.nodes} ({int(too_wide.sum())} such job(s))",
            path=jobs.source, job=int(jobs.job_id[i]), field="tasks", value=int(jobs.tasks[i]),
        )
    table = JobTable(
        {"job_id": jobs.job_id, "submit": jobs.submit, "runtime": jobs.processing_time, "procs": width},
        metadata={"MaxProcs": str(platform.nodes)}, source=jobs.source,
    )
    run = batch_simulate(table, policy.lower(), procs=platform.nodes, estimates="exact")
    batch = run.schedule
    n = len(jobs)
    nodes = [np.sort(batch.processors(i)) for i in range(n)]
    per = np.array([len(x) for x in nodes], dtype=np.int64)
    counts = []
    for i in range(n):
        c = np.full(per[i], per_node[i], dtype=np.int64)
        c[-1] = jobs.tasks[i] - per_node[i] * (per[i] - 1)
        counts.append(c)
    schedule = DfrsSchedule(
        job_id=jobs.job_id,
        submit=jobs.submit,
        completion=np.asarray(batch.end, dtype=float),
        seg_job=np.arange(n),
        seg_start=np.asarray(batch.start, dtype=float),
        seg_end=np.asarray(batch.end, dtype=float),
        seg_offsets=np.concatenate([[0], np.cumsum(per)]).astype(np.int64),
        entry_node=np.concatenate(nodes).astype(np.int64),
        entry_count=np.concatenate(counts),
        entry_share=np.repeat(jobs.cpu_need, per),
        nodes=platform.nodes,
        penalty=penalty,
        algorithm=policy,
        options={"estimates": "exact", "nodes per job": "ceil(tasks / min(1/cpu, 1/mem))"},
    )
    return DfrsRun(schedule=schedule, jobs=jobs, platform=platform, algorithm=policy, events=run.events,
                   seconds=time.perf_counter() - began)
