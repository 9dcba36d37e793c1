"""CPU allocations that need a solver: opt=avg (RR-7659 §4.6, LP (2)) and the
average-stretch improvement of /stretch-per/opt=avg (§4.7).

The max-min allocations (opt=min, opt=max) run in the Rust core
(``DfrsState.max_min_yields`` / ``max_min_stretch``); these two use
scipy.optimize (HiGHS for the LP), imported when first needed.
"""

from __future__ import annotations

import numpy as np

__all__ = ["average_stretch_yields", "average_yields"]


def _node_matrix(
    node: np.ndarray, job: np.ndarray, count: np.ndarray, cpu: np.ndarray, jobs: np.ndarray
) -> tuple[object, np.ndarray]:
    """Sparse (nodes used x jobs) matrix of CPU per unit of yield, and the used nodes."""
    from scipy.sparse import csr_matrix

    col = np.searchsorted(jobs, job)
    used, row = np.unique(node, return_inverse=True)
    a = csr_matrix((count * cpu[job], (row, col)), shape=(len(used), len(jobs)))
    return a, used


def _fit(a: object, y: np.ndarray, floor: np.ndarray) -> np.ndarray:
    """``y`` brought back within every node's CPU without going below ``floor``.

    A solver's feasibility tolerance may leave a node a hair above 1.  The
    floor allocation fits (it is the max-min one), so on each node the part of
    the yields above the floor is scaled down to what the node has left over
    the floor's load, and each job takes the smallest factor of its nodes.
    """
    y = np.clip(y, floor, 1.0)
    base = a @ floor  # type: ignore[operator]
    extra = a @ (y - floor)  # type: ignore[operator]
    # the floor itself may fill a node to 1 plus an ulp: allow 1e-12 over (the validator allows 1e-9)
    capacity = 1.0 + 1e-12
    with np.errstate(divide="ignore", invalid="ignore"):
        room = np.where(base + extra > capacity, np.clip((capacity - base) / extra, 0.0, 1.0), 1.0)
    factor = np.ones_like(y)
    rows, cols = a.nonzero()  # type: ignore[attr-defined]
    np.minimum.at(factor, cols, room[rows])
    return floor + (y - floor) * factor


def average_yields(
    node: np.ndarray, job: np.ndarray, count: np.ndarray, cpu_need: np.ndarray, jobs: np.ndarray
) -> np.ndarray:
    """Yields of ``jobs`` (ascending) maximizing the average yield, none below ``1 / max(1, L)``.

    ``node, job, count`` list the tasks per node of the running jobs
    (``DfrsState.node_tasks()``); ``cpu_need`` is indexed by job; ``L`` is the
    highest CPU load (sum of needs) of a node.  This is LP (2) of §4.6,
    solved by HiGHS; among optimal solutions HiGHS returns one
    deterministically.
    """
    from scipy.optimize import linprog

    if len(jobs) == 0:
        return np.zeros(0)
    a, _ = _node_matrix(node, job, count, cpu_need, jobs)
    load = np.asarray(a.sum(axis=1)).ravel()  # type: ignore[attr-defined]
    floor = 1.0 / max(1.0, float(load.max()))
    # The floor fills the busiest node exactly, so rounding may make HiGHS's presolve call the LP
    # infeasible: then retry without presolve, then with a hair of slack on the floor (which
    # _fit restores).
    ones = np.ones(a.shape[0])  # type: ignore[attr-defined]
    for bounds, options in (
        ((floor, 1.0), {}),
        ((floor, 1.0), {"presolve": False}),
        ((floor * (1 - 1e-9), 1.0), {"presolve": False}),
    ):
        res = linprog(-np.ones(len(jobs)), A_ub=a, b_ub=ones, bounds=bounds, method="highs", options=options)
        if res.status == 0:
            break
    else:  # the max-min floor is always feasible: a solver failure
        raise RuntimeError(f"HiGHS failed on the average-yield LP (2): {res.message}")
    return _fit(a, res.x, np.full(len(jobs), floor))


def average_stretch_yields(
    node: np.ndarray,
    job: np.ndarray,
    count: np.ndarray,
    cpu_need: np.ndarray,
    jobs: np.ndarray,
    floor: np.ndarray,
    flow: np.ndarray,
    virt: np.ndarray,
    period: float,
) -> np.ndarray:
    """Yields of ``jobs`` minimizing the average estimated stretch at the next event (§4.7, opt=avg).

    The estimated stretch of job ``j`` at the next periodic event is
    ``(ft_j + T) / (vt_j + y_j T)`` (``flow``, ``virt`` indexed by job), a
    convex function of ``y_j``; the yields are kept at or above ``floor``
    (the max-min-stretch yields, so that no job's estimated stretch exceeds
    the optimized maximum), at most 1, and within every node's CPU.  Solved
    by scipy's SLSQP from ``floor``; jobs with a zero floor and zero virtual
    time (whose stretch would be infinite at yield 0) cannot occur, since the
    floor of such a job is positive whenever the maximum is finite.
    """
    from scipy.optimize import LinearConstraint, minimize

    if len(jobs) == 0:
        return np.zeros(0)
    a, _ = _node_matrix(node, job, count, cpu_need, jobs)
    num = flow[jobs] + period
    base = virt[jobs]
    lo = np.clip(floor, 0.0, 1.0)

    def objective(y: np.ndarray) -> tuple[float, np.ndarray]:
        den = np.maximum(base + y * period, 1e-12)
        return float(np.sum(num / den)), -num * period / den**2

    res = minimize(
        objective,
        lo,
        jac=True,
        method="SLSQP",
        bounds=list(zip(lo, np.ones_like(lo))),
        constraints=[LinearConstraint(a.toarray(), -np.inf, 1.0)],  # type: ignore[attr-defined]
        options={"ftol": 1e-12, "maxiter": 500},
    )
    return _fit(a, res.x if res.success else lo, lo)
