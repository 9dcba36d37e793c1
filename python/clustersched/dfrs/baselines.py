"""The batch baselines of RR-7659 §5.2: FCFS and EASY on whole nodes, with exact run times by default.

A batch scheduler gives a job dedicated nodes for its whole run.  Here job
``j`` gets ``ceil(tasks / k)`` whole nodes, ``k = min(floor(1 / cpu_need),
floor(1 / mem_need))`` tasks per node: as many of its tasks as a node holds
without over-committing its CPU or its memory, so that every task runs at
full speed (yield 1) and the job takes exactly its processing time.  (With
the synthetic workloads of §5.3.2 a one-task job takes one node and a
``T``-task job ``T`` nodes; with the HPC2N jobs of §5.3.1 a job of ``2T``
processors runs on ``T`` dual-core nodes, as it did on the real machine.)
The policies themselves are the batch simulator's
(:func:`clustersched.batch.simulate`): ``FCFS`` is ``fcfs``, ``EASY`` is
``easy`` and ``EASY-arrival`` is ``easy-arrival``, EASY that backfills a job
only at its submission (a reading of §5.2 under which our EASY comes close
to the paper's, docs/reproduce-dfrs.md).  §5.2 gives EASY "perfect
knowledge" of run times, the default ``estimates="exact"``; ``"requested"``
plans with each job's requested time where the trace has one
(:attr:`DfrsJobs.time_requested`, HPC2N's SWF field 9; exact elsewhere), and
``"f:F"`` or ``"modal"`` with estimates drawn by
:func:`clustersched.workload.with_estimates` (seeded by ``seed``).  Jobs
always run for their processing time; a plan only changes which job starts
when.  The resulting schedule is expressed as a
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
from .result import DfrsRun
from .schedule import DfrsSchedule

__all__ = ["BASELINE_ESTIMATES", "node_widths", "simulate_batch"]


def node_widths(jobs: DfrsJobs) -> tuple[np.ndarray, np.ndarray]:
    """(whole nodes each job needs, tasks per node) for the batch baselines."""
    per_node = np.minimum(NEED_UNITS // jobs.cpu_units(), NEED_UNITS // jobs.mem_units()).astype(np.int64)
    return -(-jobs.tasks // per_node), per_node


#: The run-time estimates a baseline can plan with (besides the models of
#: :data:`clustersched.workload.estimates.ESTIMATE_MODELS`, ``"f:F"`` and ``"modal"``).
BASELINE_ESTIMATES = ("exact", "requested")


def simulate_batch(
    jobs: DfrsJobs,
    platform: DfrsPlatform,
    policy: str,
    *,
    penalty: float = DEFAULT_PENALTY,
    estimates: str = "exact",
    seed: int | np.random.Generator = 0,
) -> DfrsRun:
    """Runs ``policy`` (one of :data:`~clustersched.dfrs.algorithms.BASELINES`, any case) on whole nodes.

    Parameters
    ----------
    jobs, platform
        The DFRS instance.
    policy : str
        ``"FCFS"``, ``"EASY"`` or ``"EASY-arrival"`` (module docstring).
    penalty : float
        Recorded in the schedule (a batch job is never preempted, so it never pays it).
    estimates : str
        What the policy plans with: ``"exact"`` (§5.2), ``"requested"``, or
        an estimate model ``"f:F"`` / ``"modal"`` (module docstring).
    seed : int or numpy.random.Generator
        Seed of an estimate model (unused otherwise).

    Returns
    -------
    DfrsRun
    """
    from ..batch.simulator import simulate as batch_simulate

    began = time.perf_counter()
    policy = lookup("policy", policy, BASELINES)
    if estimates not in BASELINE_ESTIMATES:
        from ..workload.estimates import parse_estimate_model

        parse_estimate_model(estimates)  # a ValueError naming the accepted forms
    jobs.check_nonempty()
    width, per_node = node_widths(jobs)
    too_wide = width > platform.nodes
    if too_wide.any():
        i = int(np.flatnonzero(too_wide)[0])
        raise InvalidWorkloadError(
            f"needs {width[i]} whole nodes ({jobs.tasks[i]} tasks, {per_node[i]} per node) for batch "
            f"scheduling, the platform has {platform.nodes} ({int(too_wide.sum())} such job(s))",
            path=jobs.source,
            row=i,
            job_id=int(jobs.job_id[i]),
            field="tasks",
            value=int(jobs.tasks[i]),
        )
    table = JobTable(
        {
            "job_id": jobs.job_id,
            "submit": jobs.submit,
            "runtime": jobs.processing_time,
            "procs": width,
            "time_requested": jobs.time_requested,
        },
        metadata={"MaxProcs": str(platform.nodes)},
        source=jobs.source,
    )
    if estimates not in BASELINE_ESTIMATES:
        from ..workload.estimates import with_estimates

        table = with_estimates(table, estimates, seed=seed)
    run = batch_simulate(
        table, policy.lower(), procs=platform.nodes, estimates="exact" if estimates == "exact" else "requested"
    )
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
        options={
            "estimates": estimates,
            **(
                {"seed": "generator" if isinstance(seed, np.random.Generator) else str(seed)}
                if estimates not in BASELINE_ESTIMATES
                else {}
            ),
            "nodes per job": "ceil(tasks / min(1/cpu, 1/mem))",
        },
    )
    return DfrsRun(
        schedule=schedule,
        jobs=jobs,
        platform=platform,
        algorithm=policy,
        events=run.events,
        seconds=time.perf_counter() - began,
    )
