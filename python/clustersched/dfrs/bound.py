"""The lower bound on the optimal maximum (bounded) stretch of §3.1, Theorem 1.

Casanova, Stillwell & Vivien (INRIA RR-7659, 2011) measure every algorithm
by its *degradation from bound*: its maximum stretch divided by this bound
(§6.1).  The bound is the smallest maximum stretch that any schedule could
reach if memory were infinite and tasks could move between nodes at no
cost and at any instant -- the assumptions of Theorem 1, under which the
problem becomes a linear system.

What the bound uses, exactly
----------------------------
For each job ``j``: the release date ``r_j`` (``submit``), the processing
time ``p_j`` (``processing_time``, which the algorithms never see: the
bound is clairvoyant), the CPU need ``c_j`` and the task count ``|T_j|``;
for the platform: the number of nodes ``|P|``.  Memory needs, the packing
of tasks onto individual nodes, per-node CPU limits beyond the cluster's
total and the rescheduling penalty are all ignored, as in the paper (§3.1:
"a system with infinite memory ... any task can be moved instantaneously
and without penalty"; §6.1: "the bound ignores memory constraints").

A target stretch ``S`` gives job ``j`` the deadline
``d_j = r_j + S * max(threshold, p_j)``.  The paper's Theorem 1 writes
``r_j + S * p_j`` for the plain stretch; the experiments report the
*bounded* stretch ``max(1, (C_j - r_j) / max(threshold, p_j))`` with a
10-second threshold (§2.2), whose value is at most ``S >= 1`` exactly when
``C_j <= r_j + S * max(threshold, p_j)``.  ``threshold=0`` gives the
paper's formula for jobs with ``p_j > 0``.  Release dates and deadlines cut
time into intervals ``t`` of length ``l(t)``; Linear System (1) asks for
fractions ``alpha_jt`` with

* (1a) ``sum_t alpha_jt = 1`` (every job done),
* (1b, 1c) ``alpha_jt = 0`` outside ``[r_j, d_j)``,
* (1d) ``alpha_jt * p_j <= l(t)`` (a task runs at most the whole interval,
  at its CPU need),
* (1e) ``sum_j alpha_jt * p_j * c_j * |T_j| <= |P| * l(t)`` (the
  cluster's CPU in the interval).

In work units (job ``j`` holds ``p_j * c_j * |T_j|``, and may place at most
``l(t) * c_j * |T_j|`` in interval ``t``) this is a transportation
problem, solved here as a maximum flow (Dinic's algorithm, in the Rust
core), which is exact and much faster than a general LP.

The search on ``S``
-------------------
Feasibility is monotone in ``S``.  The paper suggests a bisection (or the
exact parametric method of its reference [30]); we use an exact Newton
iteration on minimum cuts: at an infeasible ``S``, the jobs on the source
side of the minimum cut give a cut whose capacity, as a function of the
stretch, bounds the maximum flow from above everywhere and grows with the
stretch, so no stretch below the point where it reaches the total work is
feasible; that point is the next iterate.  The iterates increase to the
optimum in finitely many steps (3 to 6 maximum flows on 1000-job Lublin
traces).  Rounding is handled by calling a flow feasible when it is within
a relative 1e-10 of the total work; should the iteration stall, a
bisection finishes.

A proven bound
--------------
Floating point alone could leave the answer a few ulps *above* the exact
optimum (it did: the float one ulp above 46/45).  So the result is
certified: the search keeps the cut whose root it returns, and steps the
answer down to the largest float it finds at which that cut's capacity,
bounded from above with directed rounding (exact error terms of every sum
and product, deadlines rounded up), is strictly below the total work
bounded from below.  That float is then infeasible in exact arithmetic on
the input floats, hence strictly below the optimum.  The step costs a few
cut evaluations and no maximum flow, and gives up about 1e-13 relative or
less.  The result is at least 1, since a bounded stretch is.

Jobs with ``p_j = 0`` have no work and constrain nothing.  With no work at
all the bound is 1.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from .._checks import check_float
from ..errors import naming_jobs
from .model import DfrsJobs, DfrsPlatform

__all__ = [
    "BOUNDED_STRETCH_THRESHOLD",
    "StretchBound",
    "max_stretch_lower_bound",
    "stretch_bound",
    "stretch_feasible",
]

#: Threshold (s) of the bounded stretch, §2.2: turn-around times below it count as it.
BOUNDED_STRETCH_THRESHOLD = 10.0


@dataclass(frozen=True)
class StretchBound:
    """The Theorem 1 bound and how it was found.

    Attributes
    ----------
    stretch : float
        The lower bound on the optimal maximum bounded stretch (>= 1),
        proven never above the exact optimum.
    jobs : int
        Jobs with work (``processing_time > 0``), the ones the bound uses.
    max_flows : int
        Maximum flows computed by the search.
    newton_steps : int
        Newton steps on minimum cuts.
    bisection : bool
        True when the search finished with the fallback bisection.
    """

    stretch: float
    jobs: int
    max_flows: int
    newton_steps: int
    bisection: bool

    def summary(self) -> dict[str, float | int | bool]:
        """The fields as a flat dict (JSON- and DataFrame-ready), as every metrics type has."""
        return asdict(self)


def _network(jobs: DfrsJobs, platform: DfrsPlatform | int, threshold: float):  # type: ignore[no-untyped-def]
    from .. import _core

    if not isinstance(jobs, DfrsJobs):
        raise TypeError(f"jobs == {type(jobs).__name__}, must be a clustersched.dfrs.DfrsJobs")
    if isinstance(platform, DfrsPlatform):
        nodes = platform.nodes
    else:
        nodes = DfrsPlatform(platform).nodes  # type: ignore[arg-type]  # checks the int
    threshold = check_float("threshold", threshold, minimum=0.0)
    with naming_jobs(jobs.job_id):
        return _core.DfrsStretchBound(
            np.ascontiguousarray(jobs.submit, dtype=np.float64),
            np.ascontiguousarray(jobs.processing_time, dtype=np.float64),
            np.ascontiguousarray(jobs.cpu_need, dtype=np.float64),
            np.ascontiguousarray(jobs.tasks, dtype=np.int64),
            nodes,
            threshold,
        )


def stretch_bound(
    jobs: DfrsJobs, platform: DfrsPlatform | int, *, threshold: float = BOUNDED_STRETCH_THRESHOLD
) -> StretchBound:
    """The Theorem 1 lower bound with the search's statistics.

    Parameters
    ----------
    jobs : DfrsJobs
        The jobs (their processing times are used: the bound is clairvoyant).
    platform : DfrsPlatform or int
        The platform, or its number of nodes.
    threshold : float, default 10
        Bounded-stretch threshold in seconds, finite and >= 0 (see the
        module docstring; 0 gives the paper's plain stretch).

    Returns
    -------
    StretchBound

    Raises
    ------
    TypeError
        ``jobs`` is not a DfrsJobs, or ``platform``/``threshold`` of a wrong type.
    ValueError
        ``platform`` or ``threshold`` out of range.

    Examples
    --------
    >>> from clustersched.dfrs import DfrsJobs
    >>> jobs = DfrsJobs(submit=[0, 0], processing_time=[100, 100], tasks=[1, 1],
    ...                 cpu_need=[1.0, 1.0], mem_need=[0.1, 0.1])
    >>> b = stretch_bound(jobs, 1)           # two 100 s jobs on one node
    >>> round(b.stretch, 9), b.jobs
    (2.0, 2)
    >>> sorted(b.summary())
    ['bisection', 'jobs', 'max_flows', 'newton_steps', 'stretch']
    """
    network = _network(jobs, platform, threshold)
    stretch, max_flows, newton_steps, bisection = network.lower_bound()
    return StretchBound(float(stretch), int(network.jobs), int(max_flows), int(newton_steps), bool(bisection))


def max_stretch_lower_bound(
    jobs: DfrsJobs, platform: DfrsPlatform | int, *, threshold: float = BOUNDED_STRETCH_THRESHOLD
) -> float:
    """The lower bound of Theorem 1 (§3.1) on the optimal maximum bounded stretch.

    The denominator of the paper's *degradation from bound* (§6.1).  See
    the module docstring for exactly which constraints it uses and how it
    is searched; parameters and errors as :func:`stretch_bound`.

    Examples
    --------
    >>> from clustersched.dfrs import DfrsJobs
    >>> jobs = DfrsJobs(submit=[0, 0], processing_time=[1000, 100], tasks=[1, 1],
    ...                 cpu_need=[1.0, 1.0], mem_need=[0.5, 0.5])
    >>> round(max_stretch_lower_bound(jobs, 1), 9)   # short job first: stretches 1 and 1.1
    1.1
    """
    return stretch_bound(jobs, platform, threshold=threshold).stretch


def stretch_feasible(
    jobs: DfrsJobs,
    platform: DfrsPlatform | int,
    stretch: float,
    *,
    threshold: float = BOUNDED_STRETCH_THRESHOLD,
) -> bool:
    """Whether Linear System (1) has a solution for the target ``stretch``.

    True when, under Theorem 1's assumptions, every job ``j`` can finish by
    ``submit + stretch * max(threshold, processing_time)``.

    Raises
    ------
    ValueError
        ``stretch`` not finite and > 0 (and as :func:`stretch_bound`).
    """
    stretch = check_float("stretch", stretch, positive=True)
    return bool(_network(jobs, platform, threshold).feasible(stretch))
