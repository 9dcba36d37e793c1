"""Reproduction of the multi-PTG study (Casanova, Desprez & Suter, INRIA RR-7224, 2010, §5).

Every algorithm of :data:`clustersched.ptg.algorithms.ALGORITHMS` on the
1,500 scenarios of §5.1, written as ``results.csv`` (one row per scenario and
algorithm), the figures of §5.2 and the tables of §5.2.6-5.2.7.

The scenarios (§5.1.2, last paragraph): "For each of our three classes of
PTGs we consider problem instances for N = 2, 4, 6, 8, and 10 concurrent PTGs.
For each value of N we generate 25 random sets of PTGs. Since we consider 4
different platforms, we have 25 x 4 = 100 instances [...] for each class of
PTGs [...] a total of 1,500 simulation scenarios".  So a scenario holds PTGs
of one population only (random, FFT or Strassen; no mixed sets), and the same
25 sets of a population and N are scheduled on each of the four clusters.

Choices the paper leaves open, made here:

* **Populations** are fixed: the 1,296 random, 120 FFT and 100 Strassen PTGs
  of :func:`~clustersched.workload.ptg_generators.ptg_population` drawn once
  from ``seed``; a set is ``N`` distinct members drawn uniformly from one of
  them, with ``SeedSequence(seed, spawn_key=(2, population, N, set))`` (only
  the members drawn are generated: a member is the same PTG alone or in its
  population).  :func:`instance` has two other readings of §5.1.2, for
  ``docs/selfish_readings.py``; the study uses the defaults.
* **Ties** inside an algorithm are broken by a Generator from
  ``SeedSequence(seed, spawn_key=(3, population, N, set))``, the same for
  every algorithm and cluster of a set.
* **HCPA** (inside SELFISH and Zhao, and for every ``C*_max``) uses the
  library's default stopping rule (see ``docs/hcpa.md``).
* **Utilization** is busy processor-time / (P x makespan)
  (:mod:`clustersched.ptg.metrics`); Table 2 is its mean per cluster, in %.
* **Relative values** (Figs. 5-7) are per scenario, algorithm / SELFISH on the
  same scenario, then averaged over the scenarios (§5.2.4).
* **Fig. 8** shows the algorithms the paper shows (:data:`FIG8_ALGORITHMS`).
* **Scheduling times** are the wall time of the algorithm alone (metrics and
  validation excluded), measured where the scenario ran; §5.2.7's setting is
  10 random PTGs on gdx.
* Every schedule is checked by :func:`clustersched.ptg.validate_ptgs`; a
  failure is stored as that run's error row (and retried on the next run).

``scale="small"`` runs one set for N = 2 and 4 on each cluster and
population (24 scenarios), for CI and quick checks; ``"full"`` the 1,500.
"""

from __future__ import annotations

import os
from collections import defaultdict
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from .._checks import check_choice
from .._output import save_figure, write_text
from ..campaign import grid
from ..campaign.study import run_study, write_csv
from ..platform import CLUSTERS, cluster
from ..workload.ptg import PTG
from ..workload.ptg_generators import (
    DEFAULT_READING,
    POPULATIONS,
    SCENARIOS,
    CostReading,
    population_configs,
    ptg_population,
)
from ._common import cell

__all__ = [
    "FIG8_ALGORITHMS",
    "PAPER_ALGORITHMS",
    "PAPER_UTILIZATION",
    "SCALES",
    "algorithm_order",
    "missing_algorithms",
    "plot_figures",
    "reproduce_ptg",
    "run_scenario",
    "scenarios",
    "summary",
]

#: The 19 algorithms of RR-7224 in the order of its figures and Table 2.
PAPER_ALGORITHMS = (
    "SELFISH",
    "SELFISH_ORDER",
    "SELFISH_WEIGHT",
    "C1",
    "C4",
    "F1",
    "F2",
    "CRA_NDAGS",
    "CRA_NDAGS_WEIGHT",
    "CRA_WORK",
    "CRA_WORK_WEIGHT",
    "CRA_WIDTH",
    "CRA_WIDTH_WEIGHT",
    "CAFM_CRA",
    "CAFM_CRA_WEIGHT",
    "CAFM_SAF",
    "CAFM_SPTF",
    "CAFM_LPTF",
    "CAFM_K_SHELVES",
)
#: The fairest algorithm of each family, plus C4 and F2, as in Fig. 8 (§5.2.5).
FIG8_ALGORITHMS = ("SELFISH", "SELFISH_ORDER", "C4", "F2", "CRA_WORK_WEIGHT", "CAFM_K_SHELVES")
#: The baseline of the relative values of Figs. 5-7.
BASELINE = "SELFISH"
SCALES = ("small", "full")
#: Clusters in Table 2's order (smallest to largest).
CLUSTER_ORDER = ("chti", "grillon", "grelon", "gdx")
N_PTGS = {"small": (2, 4), "full": (2, 4, 6, 8, 10)}
SETS = {"small": 1, "full": 25}
#: Box order within each algorithm in Figs. 2-4 (the paper's), then all PTGs.
FIGURE_POPULATIONS = ("random", "strassen", "fft")
#: Table 2 of RR-7224 (utilization in %, per algorithm and cluster), for the report.
PAPER_UTILIZATION = {
    "SELFISH": (100.00, 99.82, 98.78, 96.20),
    "SELFISH_ORDER": (100.00, 99.77, 97.72, 94.30),
    "SELFISH_WEIGHT": (100.00, 99.77, 97.78, 94.40),
    "C1": (99.87, 99.44, 95.85, 89.47),
    "C4": (99.96, 99.47, 96.38, 90.88),
    "F1": (100.00, 99.82, 98.68, 96.18),
    "F2": (100.00, 99.82, 98.68, 96.15),
    "CRA_NDAGS": (99.85, 99.93, 99.88, 99.87),
    "CRA_NDAGS_WEIGHT": (99.33, 98.146, 99.02, 98.80),
    "CRA_WORK": (99.96, 99.92, 99.87, 99.91),
    "CRA_WORK_WEIGHT": (99.96, 99.48, 99.10, 99.10),
    "CRA_WIDTH": (99.83, 99.85, 99.82, 99.81),
    "CRA_WIDTH_WEIGHT": (99.24, 98.14, 98.81, 98.74),
    "CAFM_CRA": (99.79, 98.89, 91.63, 78.30),
    "CAFM_CRA_WEIGHT": (99.72, 98.55, 89.82, 75.62),
    "CAFM_SAF": (99.77, 98.64, 90.34, 76.76),
    "CAFM_SPTF": (99.77, 98.63, 90.26, 76.67),
    "CAFM_LPTF": (99.66, 98.50, 90.05, 76.05),
    "CAFM_K_SHELVES": (99.88, 99.38, 94.98, 88.07),
}
#: The two readings of §5.2.6's garbled utilization we report (results.csv column -> what it is).
UTILIZATION_READINGS = {
    "utilization": "Busy processor-time / (P x makespan)",
    "peak_utilization": "Most processors busy at one instant / P",
}
#: §5.2.7: seconds per schedule of 10 random PTGs on gdx (Intel 2.2 GHz, mean of 5).
PAPER_SECONDS = {
    "SELFISH": 0.29,
    "F1": 0.20,
    "F2": 0.20,
    "C1": 2.22,
    "C4": 2.22,
    **dict.fromkeys(
        ("CRA_NDAGS", "CRA_NDAGS_WEIGHT", "CRA_WORK", "CRA_WORK_WEIGHT", "CRA_WIDTH", "CRA_WIDTH_WEIGHT"), 0.09
    ),
    **dict.fromkeys(("CAFM_CRA", "CAFM_CRA_WEIGHT", "CAFM_SAF", "CAFM_SPTF", "CAFM_LPTF", "CAFM_K_SHELVES"), 50.0),
}
#: Campaign name in the store: change it when a scenario's computation changes.
CAMPAIGN = "ptg-v3"
#: Scenarios per worker task: two sets of PTGs with every algorithm (scenarios are in that order), some
#: 0.4 s of work, where one scenario alone (9 ms on average) would cost less than sending it to a worker and
#: committing its row.
CHUNK = 2 * len(PAPER_ALGORITHMS)
#: The campaign's progress bar: the paper, and what it counts.
LABEL = "RR-7224 multi-PTG paper: scenarios (a set of PTGs on a cluster, every algorithm)"
COLUMNS = (
    "scenario",
    "population",
    "n_ptgs",
    "cluster",
    "procs",
    "set",
    "seed",
    "algorithm",
    "average_stretch",
    "makespan",
    "max_stretch",
    "min_stretch",
    "utilization",
    "peak_utilization",
    "seconds",
    "status",
    "error",
)
FIGURES = (
    "fig2_average_stretch.png",
    "fig3_makespan.png",
    "fig4_max_stretch.png",
    "fig5_pareto_makespan_average_stretch.png",
    "fig6_pareto_makespan_max_stretch.png",
    "fig7_pareto_average_stretch_max_stretch.png",
    "fig8_max_stretch_vs_n.png",
)
TABLES = ("summary.csv", "table2_utilization.csv", "table2_peak_utilization.csv", "scheduling_times.csv", "report.md")
#: Every file :func:`reproduce_ptg` writes into its folder.
OUTPUTS = ("results.csv", *FIGURES, *TABLES, "campaign.sqlite")


def algorithm_order() -> list[str]:
    """The registered algorithms: those of the paper in its order, then any others in registry order."""
    from ..ptg.algorithms import ALGORITHMS

    return [a for a in PAPER_ALGORITHMS if a in ALGORITHMS] + [a for a in ALGORITHMS if a not in PAPER_ALGORITHMS]


def missing_algorithms() -> list[str]:
    """The paper's algorithms not (yet) in the registry, which the reproduction skips."""
    from ..ptg.algorithms import ALGORITHMS

    return [a for a in PAPER_ALGORITHMS if a not in ALGORITHMS]


def scenarios(scale: str = "full", *, seed: int = 0, algorithms: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """The campaign's scenarios: population x N x cluster x set x algorithm (one run each).

    Examples
    --------
    >>> len(scenarios("full", algorithms=["SELFISH"])), len(scenarios("small", algorithms=["SELFISH"]))
    (1500, 24)
    >>> scenarios("small", algorithms=["C1"])[0]
    {'population': 'random', 'n_ptgs': 2, 'cluster': 'chti', 'set': 0, 'seed': 0, 'algorithm': 'C1'}
    """
    if scale not in SCALES:
        raise ValueError(f"scale == {scale!r}, must be one of {SCALES}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed == {seed!r}, must be an int >= 0")
    return grid(
        population=list(POPULATIONS),
        n_ptgs=list(N_PTGS[scale]),
        cluster=list(CLUSTER_ORDER),
        set=range(SETS[scale]),
        seed=[int(seed)],
        algorithm=list(algorithm_order() if algorithms is None else algorithms),
    )


def scenario_name(s: dict[str, Any]) -> str:
    """The scenario column of results.csv: ``random-n04-grelon-s07`` (one name for all algorithms)."""
    return f"{s['population']}-n{s['n_ptgs']:02d}-{s['cluster']}-s{s['set']:02d}"


#: How a set's PTGs are drawn from their population (:func:`instance`'s ``sets``).
SET_DRAWS = ("any", "one-scenario")


@lru_cache(maxsize=None)
def _member(kind: str, seed: int, reading: CostReading, k: int) -> PTG:
    """Member ``k`` of a §5.1.2 population (cached per worker process: the sets of a population share members;
    a member is the same PTG alone or with its whole population, so only those drawn are generated)."""
    return ptg_population(kind, seed=seed, reading=reading, members=[k])[0]


def _spawn(seed: int, stream: int, s: dict[str, Any]) -> np.random.SeedSequence:
    """The seed of one stream of a set: the cluster and the algorithm are not in it (same set everywhere)."""
    return np.random.SeedSequence(seed, spawn_key=(stream, POPULATIONS.index(s["population"]), s["n_ptgs"], s["set"]))


def instance(s: dict[str, Any], *, sets: str = "any", reading: CostReading = DEFAULT_READING) -> list[PTG]:
    """The PTGs of scenario ``s``: ``n_ptgs`` distinct members of its population (see the module docstring).

    Parameters
    ----------
    s : dict
        A scenario of :func:`scenarios` (its population, N, set and seed).
    sets : {"any", "one-scenario"}
        How §5.1.2's "For each value of N we generate 25 random sets of PTGs"
        draws from a population holding the four cost scenarios ("three in
        which all tasks have one of the three computational complexities
        above, and one in which task computational complexities are chosen
        randomly among the three").  ``"any"`` (the study's): N members of the
        whole population, so a set mixes scenarios.  ``"one-scenario"``: the
        scenario's "all tasks" read as all tasks of the problem instance: the
        set first draws one cost scenario uniformly, then N members of it.
    reading : CostReading
        The population's reading of §5.1.2's costs
        (:class:`~clustersched.workload.ptg_generators.CostReading`).

    ``docs/reproduce-ptg.md`` ("SELFISH's maximum stretch under other
    readings of §5.1") measures both; the study uses the defaults.
    """
    sets = check_choice("sets", sets, SET_DRAWS)
    configs = population_configs(s["population"])
    pick = np.random.default_rng(_spawn(s["seed"], 2, s))
    members = np.arange(len(configs))
    if sets == "one-scenario":
        scenario = SCENARIOS[int(pick.integers(0, len(SCENARIOS)))]
        members = members[[c["costs"] == scenario for c in configs]]
    chosen = pick.choice(members, size=s["n_ptgs"], replace=False)
    return [_member(s["population"], s["seed"], reading, int(k)) for k in chosen]


def run_scenario(s: dict[str, Any]) -> dict[str, Any]:
    """One algorithm on one scenario, validated: the campaign's scenario function."""
    from ..ptg.algorithms import run as run_ptg

    ptgs = instance(s)
    rng = np.random.default_rng(_spawn(s["seed"], 3, s))
    run = run_ptg(ptgs, cluster(s["cluster"]), s["algorithm"], seed=rng, validate=True)
    m = run.metrics
    return {
        "average_stretch": m.average_stretch,
        "makespan": m.makespan,
        "max_stretch": m.max_stretch,
        # below 1: a PTG finished earlier than alone on the cluster (§5.2.1's 6% of CRA scenarios)
        "min_stretch": float(m.stretch.min()),
        "utilization": m.utilization,
        "peak_utilization": m.peak_utilization,
        # PTGRun.seconds, stored under its former name so that stores written before the rename still read.
        "scheduling_seconds": run.seconds,
    }


def reproduce_ptg(
    out: str | os.PathLike[str],
    *,
    scale: str = "full",
    seed: int = 0,
    workers: int | None = None,
    dask: Any = None,
    progress: bool = True,
) -> list[dict[str, Any]]:
    """Runs the study and writes ``results.csv``, the figures and the tables into ``out``.

    Results are kept in ``out/campaign.sqlite``: running again resumes and
    computes only the missing runs (e.g. those of algorithms registered
    since).  Returns the rows of results.csv.

    Files (see ``docs/reproduce-ptg.md``): ``results.csv``; ``fig2`` .. ``fig8``
    (:data:`FIGURES`); ``summary.csv`` (per algorithm: quartiles of the three
    metrics over all scenarios, means relative to SELFISH, scheduling time);
    ``table2_utilization.csv`` and ``table2_peak_utilization.csv`` (Table 2
    under two readings of §5.2.6, see :mod:`clustersched.ptg.metrics`);
    ``scheduling_times.csv``; ``report.md`` (the tables, with the paper's
    values where it gives them).
    """
    todo = scenarios(scale, seed=seed)
    out = Path(out)
    runs = run_study(
        out, CAMPAIGN, todo, run_scenario, workers=workers, dask=dask, progress=progress, label=LABEL, chunk=CHUNK
    )
    rows = [_row(r) for r in runs]
    write_csv(rows, out / "results.csv", COLUMNS)
    ok = [r for r in rows if r["status"] == "ok"]
    algorithms = _algorithms(ok)
    per_algorithm = summary(rows)
    write_csv(per_algorithm, out / "summary.csv", tuple(per_algorithm[0]) if per_algorithm else ("algorithm",))
    utilization = {metric: _utilization_table(ok, algorithms, metric) for metric in UTILIZATION_READINGS}
    for metric, table in utilization.items():
        write_csv(table, out / f"table2_{metric}.csv", ("algorithm", *CLUSTER_ORDER))
    times = _times_table(ok, algorithms)
    write_csv(times, out / "scheduling_times.csv", tuple(times[0]) if times else ("algorithm",))
    write_text(out / "report.md", _report(rows, per_algorithm, utilization, times))
    _figures(ok, algorithms, out)
    return rows


def _row(r: dict[str, Any]) -> dict[str, Any]:
    """A campaign row as a results.csv row (the store's ``seconds`` is the whole run's; ours the algorithm's)."""
    return {
        **{k: r.get(k) for k in COLUMNS},
        "scenario": scenario_name(r),
        "procs": CLUSTERS[r["cluster"]].procs,
        "seconds": r.get("scheduling_seconds"),
    }


def _instance_key(r: dict[str, Any]) -> tuple[Any, ...]:
    return (r["population"], r["n_ptgs"], r["cluster"], r["set"], r["seed"])


def relative_means(rows: list[dict[str, Any]], algorithms: list[str]) -> dict[str, dict[str, float]]:
    """Per algorithm, the mean over scenarios of each metric divided by SELFISH's on the same scenario (§5.2.4).

    Scenarios where SELFISH has no result are left out; without SELFISH at all the result is empty.
    """
    base = {_instance_key(r): r for r in rows if r["algorithm"] == BASELINE}
    ratios: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        b = base.get(_instance_key(r))
        if b is None:
            continue
        for metric in ("makespan", "average_stretch", "max_stretch"):
            ratios[r["algorithm"]][metric].append(r[metric] / b[metric])
    return {a: {m: float(np.mean(v)) for m, v in ratios[a].items()} for a in algorithms if a in ratios}


def _algorithms(ok: list[dict[str, Any]]) -> list[str]:
    """The algorithms with results, in :func:`algorithm_order`."""
    done = {r["algorithm"] for r in ok}
    return [a for a in algorithm_order() if a in done]


def summary(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per algorithm (rows of results.csv, failed runs ignored): quartiles over all scenarios of the three
    metrics, means relative to SELFISH, mean utilization, share of runs with a PTG earlier than alone, time.
    """
    rows = [r for r in rows if r["status"] == "ok"]
    algorithms = _algorithms(rows)
    relative = relative_means(rows, algorithms)
    out = []
    for a in algorithms:
        mine = [r for r in rows if r["algorithm"] == a]
        row: dict[str, Any] = {"algorithm": a, "runs": len(mine)}
        for metric in ("average_stretch", "makespan", "max_stretch"):
            q = np.percentile([r[metric] for r in mine], [0, 25, 50, 75, 100])
            for name, value in zip(("min", "q1", "median", "q3", "max"), q):
                row[f"{metric}_{name}"] = float(value)
        for metric in ("makespan", "average_stretch", "max_stretch"):
            row[f"relative_{metric}"] = relative.get(a, {}).get(metric)
        row["mean_utilization"] = float(np.mean([r["utilization"] for r in mine]))
        row["share_earlier_than_alone"] = float(np.mean([r["min_stretch"] < 1 for r in mine]))
        row["mean_seconds"] = float(np.mean([r["seconds"] for r in mine]))
        out.append(row)
    return out


def _utilization_table(rows: list[dict[str, Any]], algorithms: list[str], metric: str) -> list[dict[str, Any]]:
    """Table 2: mean ``metric`` (%) per algorithm and cluster (empty where a cluster has no run)."""
    table = []
    for a in algorithms:
        row: dict[str, Any] = {"algorithm": a}
        for c in CLUSTER_ORDER:
            values = [r[metric] for r in rows if r["algorithm"] == a and r["cluster"] == c]
            row[c] = round(100 * float(np.mean(values)), 2) if values else None
        table.append(row)
    return table


def _times_table(rows: list[dict[str, Any]], algorithms: list[str]) -> list[dict[str, Any]]:
    """§5.2.7: seconds per schedule on 10 random PTGs on gdx (the paper's setting), over all runs, and the paper's."""
    table = []
    for a in algorithms:
        mine = [r["seconds"] for r in rows if r["algorithm"] == a]
        hardest = [
            r["seconds"]
            for r in rows
            if r["algorithm"] == a and r["population"] == "random" and r["n_ptgs"] == 10 and r["cluster"] == "gdx"
        ]
        table.append(
            {
                "algorithm": a,
                "mean_seconds_10_random_gdx": float(np.mean(hardest)) if hardest else None,
                "paper_seconds_10_random_gdx": PAPER_SECONDS.get(a),
                "mean_seconds": float(np.mean(mine)),
                "max_seconds": float(np.max(mine)),
                "total_seconds": float(np.sum(mine)),
            }
        )
    return table


def _report(
    rows: list[dict[str, Any]],
    per_algorithm: list[dict[str, Any]],
    utilization: dict[str, list[dict[str, Any]]],
    times: list[dict[str, Any]],
) -> str:
    """report.md: the headline numbers, Table 2 (ours / paper) and the scheduling times, as markdown."""
    instances = {_instance_key(r) for r in rows}
    errors = [r for r in rows if r["status"] != "ok"]
    lines = [
        "# Multi-PTG study (RR-7224 §5): results",
        "",
        f"{len(instances)} scenarios, {len(rows)} runs, {len(errors)} failed.",
    ]
    missing = missing_algorithms()
    if missing:
        lines.append(f"Not in the registry, so not run: {', '.join(missing)}.")
    lines += [
        "",
        "## Per algorithm, over all scenarios",
        "",
        "Medians; means relative to SELFISH on the same scenario (Figs. 5-7); share of runs in which a PTG "
        "finishes earlier than alone (stretch < 1).",
        "",
        "| algorithm | median average stretch | median makespan (s) | median max stretch | relative makespan "
        "| relative average stretch | relative max stretch | earlier than alone |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for s in per_algorithm:
        lines.append(
            f"| {s['algorithm']} | {cell(s['average_stretch_median'])} | {cell(s['makespan_median'], 1)} "
            f"| {cell(s['max_stretch_median'])} | {cell(s['relative_makespan'], 3)} "
            f"| {cell(s['relative_average_stretch'], 3)} | {cell(s['relative_max_stretch'], 3)} "
            f"| {100 * s['share_earlier_than_alone']:.1f}% |"
        )
    for metric, reading in UTILIZATION_READINGS.items():
        lines += [
            "",
            f"## Table 2 ({metric}, %), ours / paper",
            "",
            f"{reading}, mean over the scenarios of a cluster.",
            "",
            "| algorithm | " + " | ".join(CLUSTER_ORDER) + " |",
            "|---|" + "---:|" * len(CLUSTER_ORDER),
        ]
        for u in utilization[metric]:
            paper = PAPER_UTILIZATION.get(u["algorithm"])
            cells = [f"{cell(u[c])} / {cell(paper[i]) if paper else '—'}" for i, c in enumerate(CLUSTER_ORDER)]
            lines.append(f"| {u['algorithm']} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "## Scheduling times (§5.2.7), seconds per schedule",
        "",
        "| algorithm | 10 random PTGs on gdx | paper (same setting) | mean, all runs | max, all runs |",
        "|---|---:|---:|---:|---:|",
    ]
    for t in times:
        lines.append(
            f"| {t['algorithm']} | {cell(t['mean_seconds_10_random_gdx'], 4)} "
            f"| {cell(t['paper_seconds_10_random_gdx'])} "
            f"| {cell(t['mean_seconds'], 4)} | {cell(t['max_seconds'], 4)} |"
        )
    if errors:
        lines += ["", "## Failed runs", ""]
        lines += [f"* {scenario_name(r)} {r['algorithm']}: {r['error']}" for r in errors]
    return "\n".join(lines) + "\n"


def _figures(rows: list[dict[str, Any]], algorithms: list[str], out: Path) -> None:
    """Figs. 2-8 of §5.2 into ``out`` (see :data:`FIGURES`)."""
    plot_figures(rows, algorithms, out)


def plot_figures(
    rows: list[dict[str, Any]], algorithms: list[str], out: str | os.PathLike[str] | None = None
) -> list[Any]:
    """Figs. 2-8 of §5.2 from the rows of ``results.csv`` (status ``ok``), algorithms named as ``--algorithm``.

    Returns the seven figures, saved into ``out`` (as :data:`FIGURES`) when given.
    """
    from .. import plot

    figs: list[Any] = []
    metrics = (
        ("average_stretch", "average stretch", False),
        ("makespan", "overall makespan (s)", True),
        ("max_stretch", "maximum stretch", True),
    )
    for metric, label, log in metrics:
        groups = {
            a: {
                **{
                    p: [r[metric] for r in rows if r["algorithm"] == a and r["population"] == p]
                    for p in FIGURE_POPULATIONS
                },
                "all": [r[metric] for r in rows if r["algorithm"] == a],
            }
            for a in algorithms
        }
        figs.append(
            plot.grouped_boxplot(
                groups,
                ylabel=label,
                log=log,
                title=f"Fig. {len(figs) + 2}: {label} per algorithm and PTG population "
                f"({', '.join(FIGURE_POPULATIONS)}, all)",
            )
        )

    relative = relative_means(rows, algorithms)
    ms, avg, mx = "makespan", "average_stretch", "max_stretch"
    fig5 = {a: (v[ms], v[avg]) for a, v in relative.items()}
    figs.append(
        plot.pareto(
            fig5,
            xlabel="mean makespan relative to SELFISH",
            ylabel="mean average stretch relative to SELFISH",
            reference=(1.0, 1.0),
            title="Fig. 5: average stretch vs makespan, relative to SELFISH",
        )
    )
    # Figs. 6 and 7 narrow down as the paper's do: each shows the previous figure's non-dominated algorithms
    shown6 = plot.non_dominated(fig5)
    fig6 = {a: (relative[a][ms], relative[a][mx]) for a in shown6}
    figs.append(
        plot.pareto(
            fig6,
            xlabel="mean makespan relative to SELFISH",
            ylabel="mean maximum stretch relative to SELFISH",
            reference=(1.0, 1.0),
            log=True,
            title="Fig. 6: maximum stretch vs makespan, relative to SELFISH\n(the algorithms not dominated in Fig. 5)",
        )
    )
    fig7 = {a: (relative[a][avg], relative[a][mx]) for a in plot.non_dominated(fig6)}
    figs.append(
        plot.pareto(
            fig7,
            xlabel="mean average stretch relative to SELFISH",
            ylabel="mean maximum stretch relative to SELFISH",
            reference=(1.0, 1.0),
            log=True,
            title="Fig. 7: maximum stretch vs average stretch, relative to SELFISH\n"
            "(the algorithms not dominated in Fig. 6)",
        )
    )
    figs.append(_fig8(rows, [a for a in FIG8_ALGORITHMS if a in algorithms]))
    if out is not None:
        for f, name in zip(figs, FIGURES):
            save_figure(f, Path(out) / name, dpi=130)
    return figs


def _fig8(rows: list[dict[str, Any]], algorithms: list[str]) -> Any:
    """Fig. 8: mean maximum stretch over the scenarios of each N, per algorithm."""
    from ..plot import figure, plain_log_ticks, styles

    fig, ax = figure(figsize=(7.5, 4.5))
    ns = sorted({r["n_ptgs"] for r in rows})
    for k, (a, style) in enumerate(zip(algorithms, styles(len(algorithms)))):
        means = [np.mean([r["max_stretch"] for r in rows if r["algorithm"] == a and r["n_ptgs"] == n]) for n in ns]
        # earlier series have larger hollow markers, so that equal values show as nested markers
        ax.plot(
            ns,
            means,
            label=a,
            markersize=9 - 0.8 * k,
            markerfacecolor="none",
            markeredgewidth=1.2,
            linewidth=1.2,
            **style,
        )
    ax.set_xticks(ns)
    ax.set_yscale("log")
    plain_log_ticks(ax.yaxis)
    ax.set_xlabel("number of concurrent PTGs")
    ax.set_ylabel("mean maximum stretch")
    ax.set_title("Fig. 8: mean maximum stretch vs number of PTGs")
    ax.grid(linewidth=0.3)
    if algorithms:
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0), borderaxespad=0.3)
    return fig
