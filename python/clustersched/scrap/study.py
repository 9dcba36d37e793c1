"""Every run of PDCS 2007 §4 on one (PTG, platform) pair, in one call to the Rust core.

A study of the paper (``clustersched reproduce scrap``) runs HCPA once and
SCRAP, SCRAP-MAX and MHEFT-MAX at every ``β`` on each pair: runs of well
under a millisecond, for which converting, checking and measuring each one
in Python would cost more than the run.  :func:`study_pair` makes them all in
one call (Rust ``scrap::study``): each is the very computation
:func:`~clustersched.scrap.algorithms.run` makes, its schedule checked
by the one checker (Rust ``scrap::schedule_violations``, whose findings
:func:`~clustersched.scrap.validate.validate_multicluster` words), and its metrics come from the one implementation
:func:`~clustersched.scrap.metrics.multicluster_metrics` calls too (Rust
``scrap::metrics``), so they are the same floats (``tests/test_scrap_study.py``
and ``tests/test_scrap_metrics.py`` compare them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from ..platform import MultiCluster
from ..ptg.hcpa import check_rule
from ..workload.ptg import PTG
from .allocation import check_beta
from .model import DEFAULT_TRANSLATION, check_core, check_translation
from .placement import check_comms
from .schedule import ClusterSchedule, make_schedule

__all__ = ["PairStudy", "study_pair"]


@dataclass(frozen=True)
class PairStudy:
    """The runs of :func:`study_pair`, in its order (HCPA, SCRAP at each ``β``, SCRAP-MAX at each, MHEFT-MAX at each).

    One entry per run in each array: ``makespan``, ``energy``,
    ``power_fraction``, ``peak_power_fraction`` (the metrics of
    :mod:`clustersched.scrap.metrics`), ``beta_estimate`` (NaN for
    MHEFT-MAX), ``initial_violation`` (-1 for HCPA and MHEFT-MAX, else 0 or
    1); ``schedules`` the checked schedules when asked for, else None.
    """

    algorithms: tuple[str, ...]
    betas: np.ndarray
    makespan: np.ndarray
    energy: np.ndarray
    power_fraction: np.ndarray
    peak_power_fraction: np.ndarray
    beta_estimate: np.ndarray
    initial_violation: np.ndarray
    schedules: list[ClusterSchedule] | None


def study_pair(
    ptg: PTG,
    platform: MultiCluster,
    betas: Sequence[float],
    *,
    comms: bool = True,
    rule: str = "sqrt",
    translation: str = DEFAULT_TRANSLATION,
    core: Any = None,
    schedules: bool = False,
) -> PairStudy:
    """HCPA (``rule``), then SCRAP, SCRAP-MAX and MHEFT-MAX at each of ``betas``, on ``ptg`` and ``platform``.

    Run ``i`` is what ``run(ptg, platform, algorithms[i],
    beta=betas[i], comms=comms, rule=rule, translation=translation)``
    computes (HCPA at ``β = 1``), every schedule checked against its
    allocation and translation.

    Examples
    --------
    >>> from clustersched.platform import random_multicluster
    >>> from clustersched.workload.ptg_generators import random_ptg
    >>> from clustersched.scrap import run
    >>> ptg = random_ptg(20, fat=0.5, regularity=0.8, density=0.5, jump=2, seed=4)
    >>> platform = random_multicluster(4, 0.5, 2.0, seed=4)
    >>> s = study_pair(ptg, platform, [0.3, 1.0])
    >>> s.algorithms
    ('HCPA', 'SCRAP', 'SCRAP', 'SCRAP-MAX', 'SCRAP-MAX', 'MHEFT-MAX', 'MHEFT-MAX')
    >>> r = run(ptg, platform, "SCRAP-MAX", beta=0.3)
    >>> float(s.makespan[3]) == r.metrics.makespan, float(s.energy[3]) == r.metrics.energy
    (True, True)
    """
    bs = [check_beta(b) for b in betas]
    on = check_comms(platform, comms)
    core = check_core(core, ptg, platform)
    b = np.array(bs, dtype=np.float64)
    tr = check_translation(translation)
    floats, initial, runs = core.study(b, float(platform.power), on, check_rule(rule), tr, schedules)
    names = ("HCPA",) + ("SCRAP",) * len(bs) + ("SCRAP-MAX",) * len(bs) + ("MHEFT-MAX",) * len(bs)
    cols = floats.reshape(-1, 5)
    out = None
    if runs is not None:
        out = [
            make_schedule(
                c,
                platform,
                name,
                alloc,
                on,
                {"fraction": beta} if alloc is None else None,
                translation=None if alloc is None else tr,
            )
            for (c, alloc), name, beta in zip(runs, names, [1.0, *bs, *bs, *bs])
        ]
    return PairStudy(
        names,
        np.array([1.0, *bs, *bs, *bs]),
        cols[:, 0].copy(),
        cols[:, 1].copy(),
        cols[:, 2].copy(),
        cols[:, 3].copy(),
        cols[:, 4].copy(),
        initial,
        out,
    )
