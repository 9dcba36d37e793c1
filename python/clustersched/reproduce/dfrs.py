"""Reproduction of the DFRS study (Casanova, Stillwell & Vivien, INRIA RR-7659, 2011, §5-§6).

FCFS, EASY and the DFRS algorithms of Table 2 on the three trace sets of
§5.3 -- the real HPC2N weeks, the unscaled synthetic traces and the synthetic
traces scaled to loads 0.1 ... 0.9 (:mod:`clustersched.dfrs.workloads`) --
with the 5-minute rescheduling penalty and the 10-minute period of §5.1,
written as ``results.csv`` (one row per run) and the analogues of:

* **Table 2** (``table2.csv``): average, standard deviation and maximum of
  the degradation from bound, per trace set and algorithm;
* **Table 3** (``table3.csv``): preemption and migration bandwidth (GB/s),
  occurrences per hour and per job, averages and maxima over the scaled
  traces of load >= 0.7 (Table 2's algorithms plus the five others Table 3
  lists);
* **Table 4** (``table4.csv``): average normalized underutilization of EASY
  and the two best algorithms per trace set;
* **Fig. 1** (``fig1_degradation_vs_load.png`` / ``.csv``): average
  degradation vs load on the scaled traces;
* **Fig. 3** (``fig3_underutilization_vs_period.png`` / ``.csv``) and
  **Fig. 4** (``fig4_degradation_vs_period.png`` / ``.csv``): average
  normalized underutilization and degradation vs period for
  ``GreedyPM */per/opt=min/minvt=600`` (and EASY, which has no period);
* **EASY's readings** (``easy_variants.csv``): Table 2's and Table 4's
  EASY row, and the ratio of EASY's average degradation to FCFS's, for each
  reading of the paper's EASY in :data:`EASY_VARIANTS`, next to the paper's;
* ``report.md``: our Table 2 next to the paper's, the headline checks and
  the EASY readings.

Choices the paper leaves open, made here:

* **Degradation from bound** of a run is its maximum bounded stretch divided
  by the Theorem 1 bound of its trace (:mod:`clustersched.dfrs.bound`);
  averages, population standard deviations (``ddof=0``) and maxima are over
  the traces of a set (all loads together for the scaled set, as in Table 2).
* **Platforms.** HPC2N: 120 nodes of 2 GB; synthetic: 128 nodes, whose
  memory the paper does not give -- we use 2 GB as well, which only scales
  the bandwidths of Table 3 (linearly).
* **Scales.** ``full`` is the paper's: 182 HPC2N weeks, 100 unscaled traces
  and 100 traces at each of 9 loads (1,000 jobs each), and the period sweep
  on all of them; ``medium`` takes every ninth HPC2N week (21), 10 unscaled
  traces and 10 traces per load; ``small`` (CI) the first 300 jobs of the
  bundled HPC2N week, two unscaled and one scaled trace (loads 0.3 and 0.9)
  of 150 jobs, and two periods.
* **HPC2N** comes from ``HPC2N-2002-2.2-cln.swf.gz`` in the trace folder
  (``--traces``, else as ``reproduce dpsa`` finds it).  A folder given with
  ``--traces`` must hold it (an error names the missing file); when no
  folder is given and the default one lacks it, the week bundled with the
  package stands for the real set.
* **EASY's readings.** §5.2 says EASY backfills "as nodes become
  available" with "perfect knowledge" of run times: ``EASY`` with
  ``exact`` estimates, the one Tables 2 and 4 and the figures use.  The
  others are measured beside it (:data:`EASY_VARIANTS`): ``EASY-arrival``
  backfills a job only when it is submitted
  (:mod:`clustersched.dfrs.baselines`); ``requested`` plans with HPC2N's
  requested times (real set only: the synthetic traces have none);
  ``modal`` with the modal model's estimates
  (:func:`clustersched.workload.with_estimates`, seeded by the trace's
  index, so the scaled versions of a trace share their estimates).
* Every schedule is checked by :func:`clustersched.dfrs.validate_dfrs`; a
  failure is stored as that run's error row.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from .._output import save_figure, write_text
from ..campaign.study import run_study, write_csv
from ..dfrs.algorithms import DEFAULT_PENALTY, DEFAULT_PERIOD
from ._common import cell

__all__ = [
    "BEST",
    "EASY_VARIANTS",
    "FIG1_ALGORITHMS",
    "PAPER_TABLE2",
    "SCALES",
    "TABLE3_ALGORITHMS",
    "algorithm_style",
    "easy_variant_rows",
    "headline",
    "plot_fig1",
    "plot_fig3",
    "plot_fig4",
    "reproduce_dfrs",
    "run_scenario",
    "scenarios",
]

SCALES = ("small", "medium", "full")
TRACE_SETS = ("real", "unscaled", "scaled")
HPC2N_FILE = "HPC2N-2002-2.2-cln.swf.gz"
#: The algorithm the paper recommends (§6.4.2).
BEST = "GreedyPM */per/opt=min/minvt=600"
#: Table 3's rows beyond Table 2's (run on the scaled traces of load >= 0.7 only).
TABLE3_EXTRA = (
    "Greedy */per/opt=min/minvt=600",
    "MCB8 */opt=min",
    "MCB8 */per/opt=min",
    "/per/opt=min",
    "/stretch-per/opt=max",
)
#: Table 3's rows, in its order.
TABLE3_ALGORITHMS = (
    "EASY",
    "FCFS",
    "Greedy */opt=min",
    "GreedyP */opt=min",
    "GreedyPM */opt=min",
    "Greedy/per/opt=min",
    "GreedyP/per/opt=min",
    "GreedyPM/per/opt=min",
    "Greedy */per/opt=min",
    "GreedyP */per/opt=min",
    "GreedyPM */per/opt=min",
    "Greedy */per/opt=min/minvt=600",
    "GreedyP */per/opt=min/minvt=600",
    "GreedyPM */per/opt=min/minvt=600",
    "MCB8 */opt=min",
    "MCB8 */per/opt=min",
    "MCB8 */per/opt=min/minvt=600",
    "/per/opt=min",
    "/stretch-per/opt=max",
)
#: The readings of the paper's EASY measured (module docstring): (baseline, estimates), the paper's own first.
#: ``requested`` runs on the real set only.
EASY_VARIANTS = (
    ("EASY", "exact"),
    ("EASY-arrival", "exact"),
    ("EASY", "requested"),
    ("EASY-arrival", "requested"),
    ("EASY", "modal"),
    ("EASY-arrival", "modal"),
)
#: The paper's EASY/FCFS ratio of average degradation per trace set (from its Table 2).
PAPER_EASY_FCFS = (0.850, 0.908, 0.897)
#: Table 4's rows.
TABLE4_ALGORITHMS = ("EASY", "GreedyP */per/opt=min/minvt=600", BEST)
#: Fig. 1's algorithms (the Greedy and GreedyPM versions, §6.1).
FIG1_ALGORITHMS = (
    "FCFS",
    "EASY",
    "Greedy */opt=min",
    "GreedyPM */opt=min",
    "Greedy/per/opt=min",
    "GreedyPM/per/opt=min",
    "Greedy */per/opt=min",
    "GreedyPM */per/opt=min",
    "GreedyPM/per/opt=min/minvt=600",
    BEST,
    "MCB8 */opt=min/minvt=600",
    "MCB8/per/opt=min/minvt=600",
    "MCB8 */per/opt=min/minvt=600",
    "/per/opt=min/minvt=600",
    "/stretch-per/opt=max/minvt=600",
)
#: Table 2 of RR-7659: (avg, std, max) of the degradation from bound on the real, unscaled, scaled sets.
PAPER_TABLE2: dict[str, tuple[tuple[float, float, float], ...]] = {
    "FCFS": ((3578.5, 3727.8, 21718.4), (5457.2, 2958.5, 15102.7), (5869.3, 2789.1, 17403.3)),
    "EASY": ((3041.9, 3438.0, 21317.4), (4955.4, 2730.6, 14036.8), (5262.0, 2588.9, 14534.1)),
    "Greedy */opt=min": ((949.8, 1828.5, 11778.4), (2435.0, 2285.6, 11229.9), (3204.3, 2517.5, 19129.2)),
    "GreedyP */opt=min": ((13.5, 68.0, 819.2), (37.5, 156.0, 1204.9), (115.7, 644.0, 10354.2)),
    "GreedyPM */opt=min": ((13.8, 68.2, 819.2), (33.8, 154.0, 1321.7), (124.0, 673.5, 9598.8)),
    "Greedy/per/opt=min": ((28.3, 24.9, 163.7), (30.1, 10.2, 58.1), (29.3, 14.3, 153.2)),
    "GreedyP/per/opt=min": ((18.5, 18.6, 152.4), (20.1, 7.3, 38.1), (17.8, 9.6, 84.6)),
    "GreedyPM/per/opt=min": ((18.4, 18.8, 158.7), (20.2, 7.3, 38.1), (17.9, 9.8, 93.0)),
    "Greedy */per/opt=min": ((24.3, 15.9, 81.6), (30.4, 9.7, 65.7), (29.1, 12.3, 101.4)),
    "GreedyP */per/opt=min": ((17.9, 19.6, 213.5), (20.3, 6.8, 32.0), (17.9, 8.6, 89.9)),
    "GreedyPM */per/opt=min": ((17.9, 19.3, 198.6), (20.3, 6.9, 32.0), (17.9, 8.6, 89.9)),
    "GreedyP/per/opt=min/minvt=600": ((8.9, 18.9, 152.4), (5.9, 4.5, 38.1), (7.3, 8.5, 96.8)),
    "GreedyPM/per/opt=min/minvt=600": ((8.8, 18.9, 158.7), (5.9, 4.5, 38.1), (7.3, 8.1, 96.8)),
    "GreedyP */per/opt=min/minvt=600": ((6.9, 14.2, 149.3), (4.9, 2.9, 19.2), (6.1, 6.3, 103.5)),
    "GreedyPM */per/opt=min/minvt=600": ((6.9, 14.4, 149.6), (4.8, 2.4, 13.6), (6.1, 5.4, 90.2)),
    "MCB8 */opt=min/minvt=600": ((12.0, 32.8, 370.0), (6.9, 5.4, 44.4), (13.2, 21.6, 270.9)),
    "MCB8/per/opt=min/minvt=600": ((10.8, 25.3, 287.6), (8.1, 6.6, 53.3), (11.0, 12.6, 127.5)),
    "MCB8 */per/opt=min/minvt=600": ((13.6, 30.2, 318.9), (7.8, 3.9, 21.9), (12.2, 15.3, 195.7)),
    "/per/opt=min/minvt=600": ((105.0, 445.6, 5011.9), (43.0, 19.7, 134.7), (40.4, 25.0, 238.3)),
    "/stretch-per/opt=max/minvt=600": ((105.0, 445.6, 5011.9), (43.0, 19.6, 134.7), (40.2, 24.8, 236.9)),
}
#: Table 3 of RR-7659 (scaled traces, load >= 0.7): (avg, max) of pmtn GB/s, mig GB/s, pmtn/h, mig/h,
#: pmtn/job, mig/job.
PAPER_TABLE3: dict[str, tuple[tuple[float, float], ...]] = {
    "EASY": ((0, 0),) * 6,
    "FCFS": ((0, 0),) * 6,
    "Greedy */opt=min": ((0, 0),) * 6,
    "GreedyP */opt=min": ((0.06, 0.17), (0.00, 0.00), (5.67, 18.00), (0.00, 0.00), (0.57, 2.04), (0.00, 0.00)),
    "GreedyPM */opt=min": ((0.03, 0.07), (0.02, 0.05), (2.25, 10.08), (3.69, 13.32), (0.23, 1.19), (0.36, 1.22)),
    "Greedy/per/opt=min": ((0.48, 1.08), (0.21, 0.60), (32.58, 83.52), (38.79, 110.52), (5.41, 21.76), (4.81, 16.17)),
    "GreedyP/per/opt=min": ((0.50, 1.11), (0.20, 0.60), (33.34, 85.32), (37.52, 107.64), (5.54, 22.20), (4.67, 15.76)),
    "GreedyPM/per/opt=min": ((0.49, 1.10), (0.21, 0.60), (32.93, 84.24), (39.21, 112.32), (5.52, 21.65), (4.85, 16.03)),
    "Greedy */per/opt=min": ((0.50, 1.29), (0.27, 0.66), (29.27, 84.96), (58.06, 124.56), (4.49, 22.55), (6.94, 17.65)),
    "GreedyP */per/opt=min": (
        (0.58, 1.37),
        (0.28, 0.65),
        (39.67, 97.92),
        (58.56, 127.08),
        (5.87, 24.87),
        (7.09, 17.91),
    ),
    "GreedyPM */per/opt=min": (
        (0.56, 1.37),
        (0.29, 0.66),
        (35.78, 96.48),
        (62.95, 135.72),
        (5.42, 24.00),
        (7.59, 18.32),
    ),
    "Greedy */per/opt=min/minvt=600": (
        (0.49, 1.27),
        (0.24, 0.62),
        (28.08, 83.52),
        (51.97, 117.36),
        (4.29, 21.80),
        (6.25, 16.53),
    ),
    "GreedyP */per/opt=min/minvt=600": (
        (0.56, 1.36),
        (0.24, 0.63),
        (37.70, 97.20),
        (52.14, 119.16),
        (5.56, 23.88),
        (6.34, 16.48),
    ),
    BEST: ((0.54, 1.34), (0.26, 0.62), (33.80, 94.32), (56.45, 127.08), (5.11, 23.23), (6.84, 16.94)),
    "MCB8 */opt=min": ((0.42, 1.26), (1.17, 2.36), (61.66, 230.40), (490.48, 1005.48), (6.67, 18.83), (57.46, 90.29)),
    "MCB8 */per/opt=min": (
        (0.72, 1.15),
        (1.21, 2.68),
        (77.04, 170.28),
        (479.31, 1109.52),
        (13.01, 28.93),
        (73.61, 117.15),
    ),
    "MCB8 */per/opt=min/minvt=600": (
        (0.54, 1.11),
        (0.56, 1.53),
        (37.94, 85.32),
        (194.57, 836.28),
        (6.57, 26.52),
        (22.55, 50.29),
    ),
    "/per/opt=min": ((0.49, 1.07), (0.21, 0.62), (33.83, 84.24), (38.69, 111.24), (5.65, 23.23), (4.90, 16.58)),
    "/stretch-per/opt=max": (
        (0.28, 0.65),
        (0.39, 0.81),
        (20.41, 45.36),
        (67.26, 159.48),
        (3.79, 16.71),
        (10.41, 26.96),
    ),
}
#: Table 4 of RR-7659: average normalized underutilization on the real, unscaled, scaled sets.
PAPER_TABLE4 = {
    "EASY": (0.064, 0.349, 0.384),
    "GreedyP */per/opt=min/minvt=600": (0.344, 0.497, 0.607),
    BEST: (0.344, 0.497, 0.608),
}
TABLE3_METRICS = (
    ("pmtn_gbs", "preemption_bandwidth_gbs"),
    ("mig_gbs", "migration_bandwidth_gbs"),
    ("pmtn_per_hour", "preemptions_per_hour"),
    ("mig_per_hour", "migrations_per_hour"),
    ("pmtn_per_job", "preemptions_per_job"),
    ("mig_per_job", "migrations_per_job"),
)
#: Campaign name in the store: change it when a scenario's computation changes.
CAMPAIGN = "dfrs-v1"
#: The campaign's progress bar: the paper, and what it counts.
LABEL = "DFRS paper (RR-7659): scenarios (an algorithm on a trace)"
COLUMNS = (
    "trace_set",
    "trace",
    "load",
    "algorithm",
    "estimates",
    "period",
    "jobs",
    "bound",
    "max_stretch",
    "degradation",
    "mean_stretch",
    "preemptions",
    "migrations",
    "preemptions_per_hour",
    "migrations_per_hour",
    "preemptions_per_job",
    "migrations_per_job",
    "preemption_bandwidth_gbs",
    "migration_bandwidth_gbs",
    "underutilization",
    "mcb8_calls",
    "mcb8_mean_seconds",
    "mcb8_max_seconds",
    "simulation_seconds",
    "status",
    "error",
)
FIGURES = ("fig1_degradation_vs_load.png", "fig3_underutilization_vs_period.png", "fig4_degradation_vs_period.png")
TABLES = (
    "table2.csv",
    "table3.csv",
    "table4.csv",
    "easy_variants.csv",
    "fig1_degradation_vs_load.csv",
    "fig3_underutilization_vs_period.csv",
    "fig4_degradation_vs_period.csv",
    "report.md",
)
#: Every file :func:`reproduce_dfrs` writes into its folder.
OUTPUTS = ("results.csv", *FIGURES, *TABLES, "campaign.sqlite")

#: Per scale: HPC2N weeks (every k-th, None: all; "bundled": the package's week), unscaled and scaled
#: traces, loads, jobs per synthetic trace, jobs kept of the real trace, the periods of Figs. 3-4.
_SCALE = {
    "small": {
        "weeks": "bundled",
        "unscaled": 2,
        "scaled": 1,
        "loads": (0.3, 0.9),
        "jobs": 150,
        "real_limit": 300,
        "periods": (600.0, 3000.0),
    },
    "medium": {
        "weeks": 9,
        "unscaled": 10,
        "scaled": 10,
        "loads": tuple(round(0.1 * k, 1) for k in range(1, 10)),
        "jobs": 1000,
        "real_limit": None,
        "periods": (600.0, 1200.0, 3000.0, 6000.0, 12000.0),
    },
    "full": {
        "weeks": 1,
        "unscaled": 100,
        "scaled": 100,
        "loads": tuple(round(0.1 * k, 1) for k in range(1, 10)),
        "jobs": 1000,
        "real_limit": None,
        "periods": (600.0, 1200.0, 1800.0, 3000.0, 6000.0, 9000.0, 12000.0),
    },
}


def hpc2n_path(traces: str | os.PathLike[str] | None = None) -> str:
    """The HPC2N trace the real set comes from.

    With ``traces`` (``--traces``), the folder must hold :data:`HPC2N_FILE`:
    else :class:`~clustersched.errors.InvalidOptionError` names the missing
    file (a folder given on purpose is never silently replaced by the
    bundled week).  Without it, the default folder's trace, or
    ``"bundled"`` when that folder does not hold it.
    """
    from .dpsa import default_traces

    folder = Path(traces) if traces is not None else default_traces()
    path = folder / HPC2N_FILE
    if path.is_file():
        return str(path.resolve())
    if traces is not None:
        from ..errors import InvalidOptionError

        raise InvalidOptionError(
            "--traces",
            os.fspath(traces),
            f"holds no {HPC2N_FILE} (missing {os.fspath(path)}); give the folder that holds "
            "the HPC2N trace, or no --traces to run the bundled week",
        )
    return "bundled"


@lru_cache(maxsize=2)
def _weeks(path: str, limit: int | None) -> tuple[Any, ...]:
    """The real set's workloads (cached per worker process)."""
    from ..dfrs.workloads import hpc2n_weeks
    from ..workload.samples import sample_trace
    from ..workload.swf import read_swf

    table = read_swf(sample_trace() if path == "bundled" else path)
    if limit is not None:
        table = table.select(slice(0, limit))
    return tuple(hpc2n_weeks(table))


@lru_cache(maxsize=4)
def workload(trace_set: str, trace: int, load: float | None, jobs: int, path: str, limit: int | None) -> Any:
    """One trace of a set (cached per worker process)."""
    from ..dfrs.workloads import synthetic_workload

    if trace_set == "real":
        return _weeks(path, limit)[trace]
    return synthetic_workload(seed=trace, load=load, n_jobs=jobs)


@lru_cache(maxsize=4)
def _bound(trace_set: str, trace: int, load: float | None, jobs: int, path: str, limit: int | None) -> float:
    from ..dfrs.bound import max_stretch_lower_bound

    w = workload(trace_set, trace, load, jobs, path, limit)
    return max_stretch_lower_bound(w.jobs, w.platform)


def scenarios(
    scale: str = "full", *, traces: str | os.PathLike[str] | None = None, algorithms: Any = None
) -> list[dict[str, Any]]:
    """The campaign's runs (see the module docstring); with ``algorithms``, only theirs.

    ``algorithms`` (names as :func:`clustersched.dfrs.simulate` reads them,
    e.g. ``["FCFS", "EASY", "EASY-arrival"]``) keeps the runs of those
    algorithms only, every estimate and period of each.

    Examples
    --------
    The ``small`` scale reads the week bundled with the package whatever
    trace folder is found (its first 300 jobs: one week), so its runs are
    the same everywhere:

    >>> s = scenarios("small")
    >>> len(s), s[0]["trace_set"], s[0]["path"], s[0]["algorithm"]
    (127, 'real', 'bundled', 'FCFS')
    >>> sum(x["trace_set"] == "real" for x in s)    # one week: Table 2's 20 rows, one other period, 5 EASY readings
    26
    >>> len(scenarios("small", algorithms=["FCFS", "easy"]))   # 5 traces: FCFS, EASY exact and modal; requested on 1
    16
    """
    from ..dfrs.algorithms import TABLE2_ALGORITHMS

    if scale not in SCALES:
        raise ValueError(f"scale == {scale!r}, must be one of {SCALES}")
    cfg = _SCALE[scale]
    if cfg["weeks"] == "bundled":
        if traces is not None:
            hpc2n_path(traces)  # a folder given on purpose must hold the trace, at every scale
        path = "bundled"
    else:
        path = hpc2n_path(traces)
    real_limit = cfg["real_limit"]
    n_weeks = len(_weeks(path, real_limit))
    step = 1 if cfg["weeks"] == "bundled" else int(cfg["weeks"])
    traces_of: list[tuple[str, int, float | None]] = [("real", k, None) for k in range(0, n_weeks, step)]
    traces_of += [("unscaled", k, None) for k in range(int(cfg["unscaled"]))]
    traces_of += [("scaled", k, x) for k in range(int(cfg["scaled"])) for x in cfg["loads"]]
    out = []
    for trace_set, trace, load in traces_of:
        base = {
            "trace_set": trace_set,
            "trace": trace,
            "load": load,
            "jobs": int(cfg["jobs"]),
            "path": path if trace_set == "real" else "",
            "limit": real_limit if trace_set == "real" else None,
            "penalty": DEFAULT_PENALTY,
        }
        names = list(TABLE2_ALGORITHMS)
        if trace_set == "scaled" and load is not None and load >= 0.7:
            names += list(TABLE3_EXTRA)
        out += [{**base, "algorithm": a, "period": DEFAULT_PERIOD} for a in names]
        # EASY as the paper runs it is in Table 2's rows; its other readings carry their estimates (old
        # stores keep their keys: runs without the field are exact)
        out += [
            {**base, "algorithm": a, "estimates": e, "period": DEFAULT_PERIOD}
            for a, e in EASY_VARIANTS[1:]
            if e != "requested" or trace_set == "real"
        ]
        out += [{**base, "algorithm": BEST, "period": p} for p in cfg["periods"] if p != DEFAULT_PERIOD]
    if algorithms is not None:
        keep = canonical_names(algorithms)
        out = [x for x in out if x["algorithm"] in keep]
    return out


def canonical_names(names: Any) -> set[str]:
    """The canonical spellings of ``names`` (batch baselines and DFRS algorithms); ValueError on a bad one."""
    from ..dfrs.algorithms import baseline_name, parse_algorithm

    if isinstance(names, str):
        raise TypeError(f"algorithms == {names!r}, must be a list of names")
    out = {baseline_name(str(name)) or parse_algorithm(name).name for name in names}
    if not out:
        raise ValueError("algorithms == [], name at least one")
    return out


def run_scenario(s: dict[str, Any]) -> dict[str, Any]:
    """One algorithm on one trace, validated: the campaign's scenario function."""
    import time

    from ..dfrs.metrics import dfrs_metrics
    from ..dfrs.simulator import simulate

    key = (s["trace_set"], s["trace"], s["load"], s["jobs"], s["path"], s["limit"])
    w = workload(*key)
    bound = _bound(*key)
    began = time.perf_counter()
    result = simulate(
        w.jobs,
        w.platform,
        s["algorithm"],
        penalty=s["penalty"],
        period=s["period"],
        validate=True,
        estimates=s.get("estimates", "exact"),
        seed=s["trace"],
    )
    seconds = time.perf_counter() - began
    m = dfrs_metrics(result.schedule, w.jobs, w.platform, bound=bound)
    mcb8 = result.mcb8_seconds
    return {
        "name": w.name,
        "jobs_run": m.jobs,
        **m.report(),
        "mcb8_calls": len(mcb8),
        "mcb8_mean_seconds": float(mcb8.mean()) if len(mcb8) else 0.0,
        "mcb8_max_seconds": float(mcb8.max()) if len(mcb8) else 0.0,
        "mcb8_max_jobs": int(result.mcb8_jobs.max()) if len(mcb8) else 0,
        "simulation_seconds": seconds,
    }


def reproduce_dfrs(
    out: str | os.PathLike[str],
    *,
    scale: str = "full",
    traces: str | os.PathLike[str] | None = None,
    workers: int | None = None,
    dask: Any = None,
    progress: bool = True,
    algorithms: Any = None,
) -> list[dict[str, Any]]:
    """Runs the study and writes the results, tables, figures and report into ``out``.

    Results are kept in ``out/campaign.sqlite``: running again resumes and
    computes only the missing runs.  ``algorithms`` runs only those (see
    :func:`scenarios`).  Returns the rows of ``table2.csv``.
    """
    todo = scenarios(scale, traces=traces, algorithms=algorithms)
    out = Path(out)
    runs = run_study(out, CAMPAIGN, todo, run_scenario, workers=workers, dask=dask, progress=progress, label=LABEL)
    rows = [_row(r) for r in runs]
    write_csv(rows, out / "results.csv", COLUMNS)
    ok = [r for r in rows if r["status"] == "ok"]
    table2 = table2_rows(ok)
    write_csv(
        table2,
        out / "table2.csv",
        ("trace_set", "algorithm", "degradation_avg", "degradation_std", "degradation_max", "runs"),
    )
    table3 = _table3(ok)
    write_csv(table3, out / "table3.csv", tuple(table3[0]) if table3 else ("algorithm",))
    table4 = _table4(ok)
    write_csv(table4, out / "table4.csv", ("algorithm", *TRACE_SETS))
    variants = easy_variant_rows(ok)
    write_csv(variants, out / "easy_variants.csv", tuple(variants[0]) if variants else ("algorithm", "estimates"))
    fig1 = _fig1(ok, out)
    fig3, fig4 = _fig34(ok, out)
    write_text(out / "report.md", _report(rows, table2, table3, table4, variants, fig1, fig3, fig4, scale))
    return table2


def _row(r: dict[str, Any]) -> dict[str, Any]:
    from ..dfrs.algorithms import BASELINES

    row = {k: r.get(k) for k in COLUMNS}
    # a baseline's estimates, "exact" when the scenario gives none; a DFRS algorithm uses none
    row["estimates"] = r.get("estimates") or ("exact" if r["algorithm"] in BASELINES else "")
    row["trace"] = r.get("name") or f"{r['trace_set']}-{r['trace']}"
    row["jobs"] = r.get("jobs_run")
    return row


def _main(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The runs at the default period, the baselines with the paper's exact estimates."""
    return [r for r in rows if r["period"] == DEFAULT_PERIOD and r["estimates"] in ("", "exact")]


def easy_variant_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per reading of EASY (:data:`EASY_VARIANTS`) and trace set: Table 2's and Table 4's EASY row and the
    EASY/FCFS ratio of average degradation (FCFS as the paper runs it), each beside the paper's."""
    out = []
    at_period = [r for r in rows if r["period"] == DEFAULT_PERIOD]
    for k, ts in enumerate(TRACE_SETS):
        fcfs = [
            r["degradation"]
            for r in at_period
            if r["trace_set"] == ts and r["algorithm"] == "FCFS" and r["estimates"] == "exact"
        ]
        for a, e in EASY_VARIANTS:
            mine = [r for r in at_period if r["trace_set"] == ts and r["algorithm"] == a and r["estimates"] == e]
            if not mine:
                continue
            d = np.array([r["degradation"] for r in mine])
            out.append(
                {
                    "trace_set": ts,
                    "algorithm": a,
                    "estimates": e,
                    "runs": len(mine),
                    **_spread(d),
                    "underutilization_avg": float(np.mean([r["underutilization"] for r in mine])),
                    "easy_fcfs_ratio": float(d.mean() / np.mean(fcfs)) if fcfs else None,
                    "paper_degradation_avg": PAPER_TABLE2["EASY"][k][0],
                    "paper_degradation_std": PAPER_TABLE2["EASY"][k][1],
                    "paper_degradation_max": PAPER_TABLE2["EASY"][k][2],
                    "paper_underutilization_avg": PAPER_TABLE4["EASY"][k],
                    "paper_easy_fcfs_ratio": PAPER_EASY_FCFS[k],
                }
            )
    return out


def table2_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Table 2: degradation from bound (avg, std, max) per trace set and algorithm, period 600 s."""
    from ..dfrs.algorithms import TABLE2_ALGORITHMS

    out = []
    main = _main(rows)
    for trace_set in TRACE_SETS:
        for a in TABLE2_ALGORITHMS:
            d = np.array([r["degradation"] for r in main if r["trace_set"] == trace_set and r["algorithm"] == a])
            if d.size:
                out.append({"trace_set": trace_set, "algorithm": a, **_spread(d), "runs": int(d.size)})
    return out


def _spread(degradation: np.ndarray) -> dict[str, float]:
    """Table 2's cells of a set of runs: the average, population standard deviation and maximum degradation."""
    return {
        "degradation_avg": float(degradation.mean()),
        "degradation_std": float(degradation.std()),
        "degradation_max": float(degradation.max()),
    }


def _table3(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Table 3: preemption / migration costs over the scaled traces of load >= 0.7."""
    high = [r for r in _main(rows) if r["trace_set"] == "scaled" and r["load"] is not None and r["load"] >= 0.7]
    out = []
    for a in TABLE3_ALGORITHMS:
        mine = [r for r in high if r["algorithm"] == a]
        if not mine:
            continue
        row: dict[str, Any] = {"algorithm": a, "runs": len(mine)}
        for short, column in TABLE3_METRICS:
            v = np.array([r[column] for r in mine], dtype=float)
            row[f"{short}_avg"] = float(v.mean())
            row[f"{short}_max"] = float(v.max())
        out.append(row)
    return out


def _table4(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Table 4: average normalized underutilization per trace set, period 600 s."""
    out = []
    for a in TABLE4_ALGORITHMS:
        row: dict[str, Any] = {"algorithm": a}
        for trace_set in TRACE_SETS:
            v = [r["underutilization"] for r in _main(rows) if r["trace_set"] == trace_set and r["algorithm"] == a]
            row[trace_set] = float(np.mean(v)) if v else None
        out.append(row)
    return out


def _fig1(rows: list[dict[str, Any]], out: Path) -> list[dict[str, Any]]:
    """Fig. 1: average degradation vs load on the scaled traces."""
    scaled = [r for r in _main(rows) if r["trace_set"] == "scaled"]
    loads = sorted({r["load"] for r in scaled})
    table = []
    for a in FIG1_ALGORITHMS:
        for x in loads:
            d = [r["degradation"] for r in scaled if r["algorithm"] == a and r["load"] == x]
            if d:
                table.append({"algorithm": a, "load": x, "degradation_avg": float(np.mean(d)), "runs": len(d)})
    write_csv(table, out / "fig1_degradation_vs_load.csv", ("algorithm", "load", "degradation_avg", "runs"))
    plot_fig1(table, out / FIGURES[0])
    return table


#: Fig. 1's colour per family of algorithms (the batch baselines, then the name's first word).
_FAMILY_COLORS = {
    "FCFS": "tab:gray",
    "EASY": "black",
    "Greedy": "tab:blue",
    "GreedyP": "tab:cyan",
    "GreedyPM": "tab:orange",
    "MCB8": "tab:green",
    "": "tab:purple",
}
#: Fig. 1's (marker, line style) per variant: the rest of the name after the family.
_VARIANT_STYLES = {
    "FCFS": ("o", "-"),
    "EASY": ("s", "-"),
    " */opt=min": ("o", "-"),
    " */opt=min/minvt=600": ("P", "-"),
    "/per/opt=min": ("s", "--"),
    "/per/opt=min/minvt=600": ("D", "--"),
    " */per/opt=min": ("^", ":"),
    " */per/opt=min/minvt=600": ("v", ":"),
    "/stretch-per/opt=max/minvt=600": ("X", "-."),
}


#: Fig. 1's (marker size, line width) per family: where two families' lines coincide, the one drawn first
#: shows around the other.
_FAMILY_SIZES = {
    "FCFS": (8.0, 2.6),
    "EASY": (5.0, 1.1),
    "Greedy": (8.0, 2.6),
    "GreedyP": (6.5, 1.8),
    "GreedyPM": (5.0, 1.1),
    "MCB8": (6.5, 1.4),
    "": (6.0, 1.2),
}


def _family(name: str) -> tuple[str, str]:
    """(family, variant) of an algorithm's name: ``("GreedyPM", " */per/opt=min")``; FCFS and EASY are their own."""
    import re

    if name in ("FCFS", "EASY"):
        return name, name
    match = re.match(r"(GreedyPM|GreedyP|Greedy|MCB8)?(.*)$", name)
    return (match.group(1) or "", match.group(2)) if match else ("", name)


def algorithm_style(name: str) -> dict[str, str]:
    """The line style of an algorithm in the figures: the colour tells its family, the marker and line its variant.

    The family is the batch baseline (FCFS, EASY) or the first word of the
    RR-7659 name (Greedy, GreedyP, GreedyPM, MCB8; none for ``/per/...``);
    the variant is the rest of the name, with the same marker and line style
    in every family.

    Examples
    --------
    >>> algorithm_style("GreedyPM */per/opt=min/minvt=600")
    {'color': 'tab:orange', 'marker': 'v', 'linestyle': ':'}
    >>> algorithm_style("MCB8 */per/opt=min/minvt=600")["marker"]
    'v'
    """
    family, variant = _family(name)
    marker, linestyle = _VARIANT_STYLES.get(variant, ("*", "-."))
    return {"color": _FAMILY_COLORS.get(family, "tab:red"), "marker": marker, "linestyle": linestyle}


def plot_fig1(table: list[dict[str, Any]], path: str | os.PathLike[str] | None = None) -> Any:
    """Fig. 1 from the rows of ``fig1_degradation_vs_load.csv``: one line per algorithm, named as ``--algorithm``.

    Returns the figure (saved to ``path`` when given).
    """
    from ..plot import figure, plain_log_ticks

    fig, ax = figure(figsize=(10, 5.5))
    names = list(
        dict.fromkeys(
            [a for a in FIG1_ALGORITHMS if any(t["algorithm"] == a for t in table)] + [t["algorithm"] for t in table]
        )
    )
    for a in names:
        pts = sorted((t["load"], t["degradation_avg"]) for t in table if t["algorithm"] == a)
        if pts:
            size, width = _FAMILY_SIZES.get(_family(a)[0], (6.0, 1.2))
            ax.plot(
                *zip(*pts),
                markersize=size,
                linewidth=width,
                markerfacecolor="none",
                markeredgewidth=1.1,
                label=a,
                **algorithm_style(a),
            )
    ax.set_yscale("log")
    plain_log_ticks(ax.yaxis)
    ax.set_xlabel("offered load (fraction of the platform's capacity)")
    ax.set_ylabel("average degradation from bound\n(max. bounded stretch / Theorem 1 bound)")
    ax.set_title("Fig. 1: degradation from bound vs load (scaled synthetic traces, period 600 s)")
    ax.grid(linewidth=0.3)
    if names:
        ax.legend(
            fontsize=7,
            loc="upper left",
            bbox_to_anchor=(1.01, 1.0),
            borderaxespad=0.0,
            title="colour: family; marker, line: variant",
            title_fontsize=7,
        )
    if path is not None:
        save_figure(fig, path, dpi=130)
    return fig


def _fig34(rows: list[dict[str, Any]], out: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Figs. 3 and 4: underutilization and degradation vs period for the recommended algorithm (and EASY)."""
    sweep = [r for r in rows if r["algorithm"] == BEST]
    periods = sorted({r["period"] for r in sweep})
    fig3, fig4 = [], []
    for trace_set in TRACE_SETS:
        easy = [r["underutilization"] for r in _main(rows) if r["trace_set"] == trace_set and r["algorithm"] == "EASY"]
        for p in periods:
            mine = [r for r in sweep if r["trace_set"] == trace_set and r["period"] == p]
            if not mine:
                continue
            fig3.append(
                {
                    "trace_set": trace_set,
                    "period": p,
                    "underutilization_avg": float(np.mean([r["underutilization"] for r in mine])),
                    "easy_underutilization_avg": float(np.mean(easy)) if easy else None,
                    "runs": len(mine),
                }
            )
            fig4.append(
                {
                    "trace_set": trace_set,
                    "period": p,
                    "degradation_avg": float(np.mean([r["degradation"] for r in mine])),
                    "runs": len(mine),
                }
            )
    write_csv(
        fig3,
        out / "fig3_underutilization_vs_period.csv",
        ("trace_set", "period", "underutilization_avg", "easy_underutilization_avg", "runs"),
    )
    write_csv(fig4, out / "fig4_degradation_vs_period.csv", ("trace_set", "period", "degradation_avg", "runs"))
    plot_fig3(fig3, out / FIGURES[1])
    plot_fig4(fig4, out / FIGURES[2])
    return fig3, fig4


def plot_fig3(fig3: list[dict[str, Any]], path: str | os.PathLike[str] | None = None) -> Any:
    """Fig. 3 from the rows of ``fig3_underutilization_vs_period.csv``: a panel per trace set, one y range.

    Returns the figure (saved to ``path`` when given).
    """
    from ..plot import figure

    fig, axes = figure(1, 3, figsize=(12, 4.2), sharey=True, sharex=True)
    style = algorithm_style(BEST)
    for ax, trace_set in zip(axes, TRACE_SETS):
        pts = sorted((t["period"], t["underutilization_avg"]) for t in fig3 if t["trace_set"] == trace_set)
        easy = [t["easy_underutilization_avg"] for t in fig3 if t["trace_set"] == trace_set]
        if pts:
            ax.plot(*zip(*pts), markersize=5, label=BEST, **style)
        if easy and easy[0] is not None:
            ax.axhline(easy[0], color="black", linewidth=1.2, label="EASY (no period)")
            # its value written on it: a line at 0 would otherwise sit on the frame
            ax.annotate(
                f"EASY: {easy[0]:.3f}",
                (1.0, easy[0]),
                xycoords=("axes fraction", "data"),
                xytext=(-3, 3),
                textcoords="offset points",
                ha="right",
                va="bottom",
                fontsize=8,
            )
        if not pts:
            ax.text(0.5, 0.5, "no runs", transform=ax.transAxes, ha="center", va="center", color="0.4")
        ax.set_title(f"{trace_set} traces", fontsize=10)
        ax.set_xlabel("period (s)")
        ax.grid(linewidth=0.3)
    top = max(axes[0].get_ylim()[1], 0.05)
    axes[0].set_ylim(-0.04 * top, top)  # a little below 0, so that a zero value stands clear of the frame
    axes[0].set_ylabel("average normalized underutilization")
    handles, labels = axes[0].get_legend_handles_labels()
    for ax in axes[1:]:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    if handles:
        fig.legend(handles, labels, loc="outside lower center", ncols=len(handles), fontsize=8)
    fig.suptitle("Fig. 3: normalized underutilization vs period")
    if path is not None:
        save_figure(fig, path, dpi=130)
    return fig


def plot_fig4(fig4: list[dict[str, Any]], path: str | os.PathLike[str] | None = None) -> Any:
    """Fig. 4 from the rows of ``fig4_degradation_vs_period.csv``: a line per trace set.

    Returns the figure (saved to ``path`` when given).
    """
    from ..plot import figure, styles

    fig, ax = figure(figsize=(7, 4.5))
    for trace_set, style in zip(TRACE_SETS, styles(len(TRACE_SETS))):
        pts = sorted((t["period"], t["degradation_avg"]) for t in fig4 if t["trace_set"] == trace_set)
        if pts:
            ax.plot(*zip(*pts), markersize=5, label=f"{trace_set} traces", **style)
    ax.set_xlabel("period (s)")
    ax.set_ylabel("average degradation from bound")
    ax.set_title(f"Fig. 4: degradation vs period, {BEST}", fontsize=10)
    ax.grid(linewidth=0.3)
    if ax.lines:
        ax.legend(fontsize=8)
    if path is not None:
        save_figure(fig, path, dpi=130)
    return fig


def headline(table2: list[dict[str, Any]]) -> list[tuple[str, str, bool | None, str]]:
    """The issue's headline checks per trace set: (check, trace set, holds, numbers)."""
    by = {(r["trace_set"], r["algorithm"]): r for r in table2}
    checks: list[tuple[str, str, bool | None, str]] = []
    for ts in TRACE_SETS:
        easy, best = by.get((ts, "EASY")), by.get((ts, BEST))
        if easy and best:
            ratio = easy["degradation_avg"] / best["degradation_avg"]
            checks.append(
                (
                    "EASY's average degradation >= 100x the best's",
                    ts,
                    ratio >= 100,
                    f"{easy['degradation_avg']:.1f} / {best['degradation_avg']:.2f} = {ratio:.0f}x",
                )
            )
            checks.append(
                (
                    f"{BEST} within ~10x of the bound on average",
                    ts,
                    best["degradation_avg"] <= 10.0,
                    f"{best['degradation_avg']:.2f}",
                )
            )
        worst_greedy = [
            by[(ts, a)]["degradation_max"]
            for a in ("Greedy */opt=min", "GreedyP */opt=min", "GreedyPM */opt=min")
            if (ts, a) in by
        ]
        worst_per = [
            by[(ts, a)]["degradation_max"]
            for a in ("Greedy */per/opt=min", "GreedyP */per/opt=min", "GreedyPM */per/opt=min")
            if (ts, a) in by
        ]
        if worst_greedy and worst_per:
            ratios = [g / p for g, p in zip(worst_greedy, worst_per)]
            checks.append(
                (
                    "purely greedy worst cases >= 10x the periodic ones (X * vs X */per)",
                    ts,
                    min(ratios) >= 10.0,
                    ", ".join(f"{x:.1f}x" for x in ratios),
                )
            )
    return checks


def paper_table2_rows() -> list[dict[str, Any]]:
    """The paper's Table 2 in the rows of :func:`table2_rows` (for :func:`headline`)."""
    return [
        {
            "trace_set": ts,
            "algorithm": a,
            "degradation_avg": v[k][0],
            "degradation_std": v[k][1],
            "degradation_max": v[k][2],
        }
        for a, v in PAPER_TABLE2.items()
        for k, ts in enumerate(TRACE_SETS)
    ]


def _table2_lines(table2: list[dict[str, Any]]) -> list[str]:
    """Markdown: Table 2 (ours / paper; algorithms we ran) and the headline checks on ours and the paper's."""
    from ..dfrs.algorithms import TABLE2_ALGORITHMS

    lines = [
        "## Table 2: degradation from bound, ours / paper",
        "",
        "| algorithm | " + " | ".join(f"{ts} avg | {ts} std | {ts} max" for ts in TRACE_SETS) + " |",
        "|---|" + "---:|" * 9,
    ]
    by = {(r["trace_set"], r["algorithm"]): r for r in table2}
    for a in TABLE2_ALGORITHMS:
        if not any((ts, a) in by for ts in TRACE_SETS):
            continue
        cells = []
        for k, ts in enumerate(TRACE_SETS):
            r = by.get((ts, a))
            paper = PAPER_TABLE2[a][k]
            for j, key in enumerate(("degradation_avg", "degradation_std", "degradation_max")):
                ours = cell(r[key], 1, thousands=True, nan_as_none=True) if r else "—"
                cells.append(f"{ours} / {cell(paper[j], 1, thousands=True, nan_as_none=True)}")
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "## Headline checks",
        "",
        "The same checks on the paper's own Table 2 in the last two columns.",
        "",
        "| check | trace set | holds | numbers | holds in the paper | paper's numbers |",
        "|---|---|---|---|---|---|",
    ]
    paper = {(check, ts): (holds, numbers) for check, ts, holds, numbers in headline(paper_table2_rows())}
    for check, ts, holds, numbers in headline(table2):
        p_holds, p_numbers = paper[(check, ts)]
        lines.append(
            f"| {check} | {ts} | {'yes' if holds else 'no'} | {numbers} | {'yes' if p_holds else 'no'} | {p_numbers} |"
        )
    return lines


def table2_report(table2: list[dict[str, Any]], title: str) -> str:
    """A report of Table 2's rows alone (e.g. a subset of the algorithms on many traces)."""
    return "\n".join(["# DFRS study (RR-7659 §6): Table 2", "", title + ".", "", *_table2_lines(table2)]) + "\n"


def _report(
    rows: list[dict[str, Any]],
    table2: list[dict[str, Any]],
    table3: list[dict[str, Any]],
    table4: list[dict[str, Any]],
    variants: list[dict[str, Any]],
    fig1: list[dict[str, Any]],
    fig3: list[dict[str, Any]],
    fig4: list[dict[str, Any]],
    scale: str,
) -> str:
    errors = [r for r in rows if r["status"] != "ok"]
    ok = [r for r in rows if r["status"] == "ok"]
    counts = {ts: len({r["trace"] for r in ok if r["trace_set"] == ts}) for ts in TRACE_SETS}
    lines = [
        "# DFRS study (RR-7659 §6): results",
        "",
        f"Scale `{scale}`: {counts['real']} real, {counts['unscaled']} unscaled and {counts['scaled']} scaled traces; "
        f"{len(rows)} runs, {len(errors)} failed. Every schedule passed `validate_dfrs`.",
        "",
        *_table2_lines(table2),
    ]
    lines += [
        "",
        "## Table 3: preemption and migration costs (scaled traces, load >= 0.7), avg (max), ours / paper",
        "",
        "| algorithm | pmtn GB/s | mig GB/s | pmtn/h | mig/h | pmtn/job | mig/job |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in table3:
        paper = PAPER_TABLE3.get(r["algorithm"])
        cells = []
        for j, (short, _) in enumerate(TABLE3_METRICS):
            ours = f"{r[short + '_avg']:.2f} ({r[short + '_max']:.2f})"
            cells.append(f"{ours} / {paper[j][0]:.2f} ({paper[j][1]:.2f})" if paper else ours)
        lines.append(f"| {r['algorithm']} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "## Table 4: average normalized underutilization, ours / paper",
        "",
        "| algorithm | real | unscaled | scaled |",
        "|---|---:|---:|---:|",
    ]
    for r in table4:
        paper = PAPER_TABLE4[r["algorithm"]]
        lines.append(
            f"| {r['algorithm']} | "
            + " | ".join(
                f"{cell(r[ts], 3, thousands=True, nan_as_none=True)} / {paper[k]:.3f}"
                for k, ts in enumerate(TRACE_SETS)
            )
            + " |"
        )
    lines += [
        "",
        "## EASY's readings: Table 2's and Table 4's EASY row and EASY/FCFS, ours / paper",
        "",
        "The paper's EASY (§5.2) is `EASY` with `exact` estimates, the row of the tables above. "
        "EASY/FCFS divides the average degradation by FCFS's on the same traces.",
        "",
        "| trace set | EASY | estimates | runs | degradation avg | std | max | underutilization | EASY/FCFS |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for v in variants:
        ratio = "—" if v["easy_fcfs_ratio"] is None else f"{v['easy_fcfs_ratio']:.3f}"
        lines.append(
            f"| {v['trace_set']} | {v['algorithm']} | {v['estimates']} | {v['runs']} | "
            f"{cell(v['degradation_avg'], 1, thousands=True)} / "
            f"{cell(v['paper_degradation_avg'], 1, thousands=True)} | "
            f"{cell(v['degradation_std'], 1, thousands=True)} / "
            f"{cell(v['paper_degradation_std'], 1, thousands=True)} | "
            f"{cell(v['degradation_max'], 1, thousands=True)} / "
            f"{cell(v['paper_degradation_max'], 1, thousands=True)} | "
            f"{v['underutilization_avg']:.3f} / {v['paper_underutilization_avg']:.3f} | "
            f"{ratio} / {v['paper_easy_fcfs_ratio']:.3f} |"
        )
    lines += ["", "## Fig. 1: average degradation vs load (scaled traces)", ""]
    loads = sorted({t["load"] for t in fig1})
    lines += ["| algorithm | " + " | ".join(f"{x:g}" for x in loads) + " |", "|---|" + "---:|" * len(loads)]
    for a in FIG1_ALGORITHMS:
        vals = {t["load"]: t["degradation_avg"] for t in fig1 if t["algorithm"] == a}
        if vals:
            lines.append(
                f"| {a} | " + " | ".join(cell(vals.get(x), 2, thousands=True, nan_as_none=True) for x in loads) + " |"
            )
    lines += [
        "",
        f"## Figs. 3 and 4: {BEST} vs period",
        "",
        "| trace set | period (s) | normalized underutilization (EASY) | degradation |",
        "|---|---:|---:|---:|",
    ]
    deg = {(t["trace_set"], t["period"]): t["degradation_avg"] for t in fig4}
    for t in fig3:
        lines.append(
            f"| {t['trace_set']} | {t['period']:g} | {t['underutilization_avg']:.3f} "
            f"({cell(t['easy_underutilization_avg'], 3, thousands=True, nan_as_none=True)}) "
            f"| {deg[(t['trace_set'], t['period'])]:.2f} |"
        )
    mcb8 = [r for r in ok if r["mcb8_calls"]]
    if mcb8:
        lines += [
            "",
            "## MCB8 computation time (§6.2)",
            "",
            f"Over {sum(r['mcb8_calls'] for r in mcb8):,} MCB8 runs: mean "
            f"{np.average([r['mcb8_mean_seconds'] for r in mcb8], weights=[r['mcb8_calls'] for r in mcb8]):.2e} s,"
            f" worst {max(r['mcb8_max_seconds'] for r in mcb8):.2e} s (paper: 0.25 s average, 4.5 s worst).",
        ]
    if errors:
        lines += ["", "## Failed runs", ""]
        lines += [f"* {r['trace']} {r['algorithm']} period {r['period']}: {r['error']}" for r in errors]
    return "\n".join(lines) + "\n"
