"""Reproduction of the SCRAP study (N'takpé & Suter, PDCS 2007, §4).

SCRAP, SCRAP-MAX, MHEFT-MAX for ``β`` = 0.1, 0.2, ..., 1 and HCPA, on every
(platform, PTG) pair: the 200 platforms of §4
(:func:`clustersched.platform.scrap_platforms`) and the 1,296 random PTGs
(10, 20 or 50 tasks x width 0.2/0.5/0.8 x regularity 0.2/0.8 x density
0.2/0.8 x jumps 1/2/4 x the four complexity scenarios x 3 samples, the
generators of :mod:`clustersched.workload.ptg_generators`), on the campaign
runner.  Writes ``results.csv`` (one row per run), Figs. 1-4 and a report.

Choices the paper leaves open, made here:

* **Power consumed** is the average over the makespan
  (:mod:`clustersched.scrap.metrics`); a run *violates* ``β``
  when its power fraction exceeds ``β`` (by more than a relative 1e-9).
  Fig. 1's "w/o init" leaves out the SCRAP / SCRAP-MAX runs whose initial
  allocation (one processor per task) already has ``β' >= β``.
* **HCPA** does not depend on ``β``: its one schedule per pair is reported
  on ten rows, judged against each ``β`` (Fig. 2); it uses the library's
  default stopping rule (``docs/hcpa.md``).
* **MHEFT-MAX** at ``β`` caps each allocation at ``β`` of its cluster
  (§4: "MHEFT-MAX-0.2 ... more than 20% of the available processing power").
* **Slowdown** (Eq. 1) is ``M_ref / M_β`` per pair, ``M_ref`` the same
  algorithm's makespan at ``β = 1`` (Fig. 3) or HCPA's (Fig. 4), averaged
  over pairs; the report also gives the mean lengthening ``M_β / M_ref - 1``.
* **Communications** follow the documented model (contention-free; see
  :class:`clustersched.platform.Network`); the paper simulates contention.
* **Checks**: every schedule goes through the one checker of the problem
  (Rust ``scrap::schedule_violations``: capacity, precedence with transfer
  times, each task on one cluster with its translated allocation, independent
  of the algorithms), in the study itself; at ``--scale small`` also through
  :func:`clustersched.scrap.validate.validate_multicluster`, which words its
  findings.
* **Translation** ``f(p_ref, t, k)`` (§3 gives no formula): the study runs
  every scenario under each reading of :data:`clustersched.scrap.model.TRANSLATIONS`;
  ``results.csv``, ``summary.csv``, the figures and the report's main tables
  hold the default reading's runs (``"closest"``), ``readings.csv`` and the
  report's "Readings" section both, next to the paper's numbers.
* **Seeds**: platform ``k`` from ``SeedSequence(seed, spawn_key=(k,))``, PTG
  ``j`` from ``SeedSequence(seed, spawn_key=(1, j))``.

One campaign scenario is (platform, DAG shape, translation): the 12 PTGs of
the shape (four complexity scenarios x 3 samples) x 31 runs, so ``full`` has
200 x 108 x 2 = 43,200 scenarios and 16,070,400 runs (8,035,200 per
reading).  ``small`` runs 8 platforms (one per cluster count, homogeneous
and 5x heterogeneous) x 2 shapes of 10 and 20 tasks x 2 readings (32
scenarios, 11,904 runs).  The 31 runs of each PTG are one call to the Rust core
(:func:`clustersched.scrap.study.study_pair`, the numbers of 31
:func:`~clustersched.scrap.algorithms.run` calls bit for bit), each PTG
is generated once per worker process, and a worker takes :data:`CHUNK`
scenarios at a time (stored one row per scenario, so a rerun resumes
scenario by scenario): the full study is some 16 CPU-minutes.
"""

from __future__ import annotations

import base64
import csv
import itertools
import os
from collections import defaultdict
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from .._output import save_figure, write_text
from ..campaign.study import run_study, write_csv
from ..platform import MultiCluster, scrap_platform_configs, scrap_platforms
from ..scrap.model import DEFAULT_TRANSLATION, TRANSLATIONS
from ..workload.ptg import PTG
from ..workload.ptg_generators import SCENARIOS, random_ptg
from ._common import cell

__all__ = [
    "BETAS",
    "PAPER",
    "SCALES",
    "readings",
    "plot_figures",
    "ptg_configs",
    "reproduce_scrap",
    "run_scenario",
    "scenarios",
    "summary",
]

SCALES = ("small", "full")
#: β = 0.1, 0.2, ..., 1 (Figs. 1-4).
BETAS = tuple(round(0.1 * i, 1) for i in range(1, 11))
CONSTRAINED = ("SCRAP", "SCRAP-MAX", "MHEFT-MAX")
ALGORITHMS = ("SCRAP", "SCRAP-MAX", "HCPA", "MHEFT-MAX")
#: §4's DAG grid.
TASKS = (10, 20, 50)
FAT = (0.2, 0.5, 0.8)
REGULARITY = (0.2, 0.8)
DENSITY = (0.2, 0.8)
JUMP = (1, 2, 4)
SAMPLES = 3
#: The paper's numbers (§4 text; the figures themselves are not in our copy).
PAPER = {
    "respect_beta_ge_0.2": 0.99,
    "respect_beta_0.1_all": 0.96,
    "max_deviation_scrap": 0.054,
    "max_deviation_scrap_max": 0.074,
    "mean_deviation": 0.03,
    "lengthening_0.1_scrap": 0.18,
    "lengthening_0.1_scrap_max": 0.23,
    "hcpa_under_30pct": 0.75,
    "scrap_max_energy_vs_hcpa_0.8": 0.16,
}
CAMPAIGN = "scrap-v1"
#: Scenarios per worker task: about a second of work (a scenario takes some 50 ms), so that sending the
#: scenarios to the workers and committing their rows costs little beside them.
CHUNK = 16
#: The campaign's progress bar: the paper, and what it counts.
LABEL = "SCRAP paper (PDCS 2007): scenarios (a platform and a DAG shape)"
COLUMNS = (
    "platform",
    "clusters",
    "min_speed",
    "heterogeneity",
    "ptg",
    "tasks",
    "scenario",
    "beta",
    "algorithm",
    "makespan",
    "power_fraction",
    "peak_power_fraction",
    "energy",
    "beta_estimate",
    "initial_violation",
    "violation",
    "deviation",
    "slowdown",
    "slowdown_vs_hcpa",
    "status",
    "error",
)
FIGURES = ("fig1_respect_scrap.png", "fig2_respect_mheft_hcpa.png", "fig3_slowdown.png", "fig4_slowdown_vs_hcpa.png")
TABLES = ("summary.csv", "readings.csv", "report.md")
OUTPUTS = ("results.csv", *FIGURES, *TABLES, "campaign.sqlite")
#: A power fraction above β by more than this (relative) is a violation.
RTOL = 1e-9


def shapes() -> list[dict[str, Any]]:
    """The 108 DAG shapes (tasks, fat, regularity, density, jump), grid order."""
    keys = ("tasks", "fat", "regularity", "density", "jump")
    return [dict(zip(keys, v)) for v in itertools.product(TASKS, FAT, REGULARITY, DENSITY, JUMP)]


def ptg_configs() -> list[dict[str, Any]]:
    """The 1,296 PTGs: each shape x complexity scenario x sample; ``index`` numbers them.

    >>> cs = ptg_configs()
    >>> len(cs), len({(c["tasks"], c["fat"], c["regularity"], c["density"], c["jump"], c["costs"]) for c in cs})
    (1296, 432)
    """
    out = []
    for shape_index, shape in enumerate(shapes()):
        for costs in SCENARIOS:
            for sample in range(SAMPLES):
                out.append({**shape, "shape": shape_index, "costs": costs, "sample": sample, "index": len(out)})
    return out


@lru_cache(maxsize=1)
def _platforms(seed: int) -> tuple[MultiCluster, ...]:
    return tuple(scrap_platforms(seed=seed))


def make_ptg(config: dict[str, Any], seed: int) -> PTG:
    """PTG ``config["index"]`` from ``SeedSequence(seed, spawn_key=(1, index))``."""
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1, config["index"])))
    name = (
        f"n{config['tasks']}-fat{config['fat']}-reg{config['regularity']}-dens{config['density']}"
        f"-jump{config['jump']}-{config['costs']}-#{config['sample']}"
    )
    return random_ptg(
        config["tasks"],
        fat=config["fat"],
        regularity=config["regularity"],
        density=config["density"],
        jump=config["jump"],
        seed=rng,
        costs=config["costs"],
        name=name,
    )


def _small_platforms() -> list[int]:
    """One sample each of (1 cluster, 0.5 GFlop/s) and (2, 4, 8 clusters, 0.5 GFlop/s, heterogeneity 1 and 5)."""
    cfgs = scrap_platform_configs()
    wanted = [(1, 0.5, 1.0), (1, 1.0, 1.0)] + [(c, 0.5, h) for c in (2, 4, 8) for h in (1.0, 5.0)]
    return [
        5 * next(i for i, c in enumerate(cfgs) if (c["clusters"], c["min_speed"], c["heterogeneity"]) == w)
        for w in wanted
    ]


def _small_shapes() -> list[int]:
    s = shapes()
    return [
        next(i for i, x in enumerate(s) if (x["tasks"], x["fat"], x["regularity"], x["density"], x["jump"]) == w)
        for w in ((10, 0.5, 0.8, 0.8, 2), (20, 0.5, 0.2, 0.2, 1))
    ]


def scenarios(scale: str = "full", *, seed: int = 0) -> list[dict[str, Any]]:
    """The campaign's scenarios: (platform index, shape index, translation), the default translation's first.

    >>> len(scenarios("full")), len(scenarios("small"))
    (43200, 32)
    """
    if scale not in SCALES:
        raise ValueError(f"scale == {scale!r}, must be one of {SCALES}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed == {seed!r}, must be an int >= 0")
    if scale == "full":
        ps, ss = range(200), range(len(shapes()))
    else:
        ps, ss = _small_platforms(), _small_shapes()
    return [
        {"platform": int(p), "shape": int(s), "seed": int(seed), "scale": scale, "translation": t}
        for t in TRANSLATIONS
        for p in ps
        for s in ss
    ]


#: Per-run columns a scenario returns, with their numpy dtypes (packed, see :func:`run_scenario`).
RUN_COLUMNS = {
    "ptg": "<i4",
    "beta": "<f8",
    "algorithm": "<i1",
    "makespan": "<f8",
    "power_fraction": "<f8",
    "peak_power_fraction": "<f8",
    "energy": "<f8",
    "beta_estimate": "<f8",
    "initial_violation": "<i1",
    "slowdown": "<f8",
    "slowdown_vs_hcpa": "<f8",
}


def _unpack(text: str, dtype: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype=dtype)


def run_scenario(s: dict[str, Any]) -> dict[str, Any]:
    """Every run of one (platform, shape) scenario, each schedule checked.

    Returns the :data:`RUN_COLUMNS` of its 12 x 40 result rows (ten per
    algorithm: one per β, HCPA's schedule repeated), each packed as the
    base64 of its little-endian array (so that the store of the full study
    stays small and loads fast); ``algorithm`` is an index into
    :data:`ALGORITHMS`, ``initial_violation`` -1 for "not applicable", and
    ``beta_estimate`` NaN for MHEFT-MAX.

    The 31 runs of each PTG are made in one call to the Rust core
    (:func:`clustersched.scrap.study.study_pair`), which gives the numbers
    of 31 :func:`~clustersched.scrap.algorithms.run` calls bit for
    bit.  A PTG on which that call raises is run again one run at a time
    (:func:`runs_one_by_one`), so that the scenario's error is the one a
    single run raises.
    """
    platform = _platforms(s["seed"])[s["platform"]]
    validate = s["scale"] == "small"
    tr = s.get("translation", DEFAULT_TRANSLATION)
    parts: list[dict[str, Any]] = []
    for config in _shape_configs(s["shape"]):
        ptg = _ptg(config["index"], s["seed"])
        try:
            parts.append(_runs_batched(config, ptg, platform, validate, tr))
        except Exception:
            parts.append(runs_one_by_one(config, ptg, platform, validate=validate, translation=tr))
    return {
        name: base64.b64encode(np.concatenate([np.asarray(p[name], dtype=dtype) for p in parts]).tobytes()).decode(
            "ascii"
        )
        for name, dtype in RUN_COLUMNS.items()
    }


@lru_cache(maxsize=1)
def _configs() -> tuple[dict[str, Any], ...]:
    return tuple(ptg_configs())


@lru_cache(maxsize=None)
def _shape_configs(shape: int) -> tuple[dict[str, Any], ...]:
    return tuple(c for c in _configs() if c["shape"] == shape)


@lru_cache(maxsize=len(TASKS) * len(FAT) * len(REGULARITY) * len(DENSITY) * len(JUMP) * len(SCENARIOS) * SAMPLES)
def _ptg(index: int, seed: int) -> PTG:
    """PTG ``index`` of ``seed``, generated once per process: each is scheduled on every platform."""
    return make_ptg(_configs()[index], seed)


#: Run of :func:`clustersched.scrap.study.study_pair` (HCPA, SCRAP x β, SCRAP-MAX x β, MHEFT-MAX x β) behind
#: each of a PTG's 40 rows (:data:`ALGORITHMS` x :data:`BETAS`), and behind its slowdown's reference (β = 1).
_NB = len(BETAS)
_FIRST = {"HCPA": 0, "SCRAP": 1, "SCRAP-MAX": 1 + _NB, "MHEFT-MAX": 1 + 2 * _NB}
_ROW_RUN = np.array([_FIRST[a] + (i if a != "HCPA" else 0) for a in ALGORITHMS for i in range(_NB)])
_ROW_FULL = np.array([_FIRST[a] + (BETAS.index(1.0) if a != "HCPA" else 0) for a in ALGORITHMS for _ in BETAS])


def _runs_batched(
    config: dict[str, Any], ptg: PTG, platform: MultiCluster, validate: bool, translation: str = DEFAULT_TRANSLATION
) -> dict[str, np.ndarray]:
    """The 40 rows of one PTG from :func:`~clustersched.scrap.study.study_pair` (numbers of :func:`runs_one_by_one`)."""
    from ..scrap.metrics import slowdown
    from ..scrap.model import problem
    from ..scrap.study import study_pair
    from ..scrap.validate import validate_multicluster

    core = problem(ptg, platform)
    st = study_pair(ptg, platform, BETAS, translation=translation, core=core, schedules=validate)
    if st.schedules is not None:
        for sch in st.schedules:
            validate_multicluster(sch, ptg, core=core)
    n = len(_ROW_RUN)
    makespan = st.makespan[_ROW_RUN]
    return {
        "ptg": np.full(n, config["index"]),
        "beta": np.tile(np.array(BETAS), len(ALGORITHMS)),
        "algorithm": np.repeat(np.arange(len(ALGORITHMS)), _NB),
        "makespan": makespan,
        "power_fraction": st.power_fraction[_ROW_RUN],
        "peak_power_fraction": st.peak_power_fraction[_ROW_RUN],
        "energy": st.energy[_ROW_RUN],
        "beta_estimate": st.beta_estimate[_ROW_RUN],
        "initial_violation": st.initial_violation[_ROW_RUN],
        "slowdown": slowdown(st.makespan[_ROW_FULL], makespan),
        "slowdown_vs_hcpa": slowdown(np.full(n, st.makespan[_FIRST["HCPA"]]), makespan),
    }


def runs_one_by_one(
    config: dict[str, Any],
    ptg: PTG,
    platform: MultiCluster,
    *,
    validate: bool,
    translation: str = DEFAULT_TRANSLATION,
) -> dict[str, list[Any]]:
    """The 40 rows of one PTG from 31 :func:`~clustersched.scrap.algorithms.run` calls, each schedule
    checked by the one checker (and worded by the validator with ``validate``): the reference of the
    batched path."""
    from ..scrap.algorithms import run as run_scrap
    from ..scrap.metrics import slowdown
    from ..scrap.model import problem
    from ..scrap.validate import validate_multicluster

    cols: dict[str, list[Any]] = defaultdict(list)
    core = problem(ptg, platform)
    tr = translation
    runs: dict[tuple[str, float | None], Any] = {
        ("HCPA", None): run_scrap(ptg, platform, "HCPA", beta=1.0, translation=tr, core=core)
    }
    for algorithm in CONSTRAINED:
        for beta in BETAS:
            runs[(algorithm, beta)] = run_scrap(ptg, platform, algorithm, beta=beta, translation=tr, core=core)
    for run in runs.values():
        sch = run.schedule
        core.check(*sch.columns(), sch.alloc, sch.translation or tr, sch.comms)
        if validate:
            validate_multicluster(sch, ptg, core=core)
    hcpa = runs[("HCPA", None)]
    for algorithm in ALGORITHMS:
        for beta in BETAS:
            run = hcpa if algorithm == "HCPA" else runs[(algorithm, beta)]
            full = hcpa if algorithm == "HCPA" else runs[(algorithm, 1.0)]
            m = run.metrics
            cols["ptg"].append(config["index"])
            cols["beta"].append(beta)
            cols["algorithm"].append(ALGORITHMS.index(algorithm))
            cols["makespan"].append(m.makespan)
            cols["power_fraction"].append(m.power_fraction)
            cols["peak_power_fraction"].append(m.peak_power_fraction)
            cols["energy"].append(m.energy)
            cols["beta_estimate"].append(np.nan if run.beta_estimate is None else run.beta_estimate)
            cols["initial_violation"].append(-1 if run.initial_violation is None else int(run.initial_violation))
            cols["slowdown"].append(slowdown(full.metrics.makespan, m.makespan))
            cols["slowdown_vs_hcpa"].append(slowdown(hcpa.metrics.makespan, m.makespan))
    return cols


def load_columns(stored: list[dict[str, Any]], seed: int) -> tuple[dict[str, np.ndarray], list[dict[str, Any]]]:
    """The campaign's rows unpacked into one array per results.csv column (one entry per run), and the
    failed scenarios' rows."""
    from ..scrap.metrics import deviation_above

    cfgs = scrap_platform_configs()
    configs = ptg_configs()
    parts: dict[str, list[np.ndarray]] = defaultdict(list)
    failed = []
    for r in stored:
        if r["status"] != "ok":
            failed.append(r)
            continue
        cols = {name: _unpack(r[name], dtype) for name, dtype in RUN_COLUMNS.items()}
        n = len(cols["ptg"])
        for name, values in cols.items():
            parts[name].append(values)
        parts["platform_index"].append(np.full(n, r["platform"], dtype=np.int32))
        tr = TRANSLATIONS.index(r.get("translation", DEFAULT_TRANSLATION))
        parts["translation_index"].append(np.full(n, tr, dtype=np.int8))
    if not parts:
        return {}, failed
    out = {name: np.concatenate(chunks) for name, chunks in parts.items()}
    k = out["platform_index"]
    out["clusters"] = np.array([c["clusters"] for c in cfgs], dtype=np.int32)[k // 5]
    out["min_speed"] = np.array([c["min_speed"] for c in cfgs])[k // 5]
    out["heterogeneity"] = np.array([c["heterogeneity"] for c in cfgs])[k // 5]
    out["tasks"] = np.array([c["tasks"] for c in configs], dtype=np.int32)[out["ptg"]]
    out["scenario_index"] = np.array([SCENARIOS.index(c["costs"]) for c in configs], dtype=np.int8)[out["ptg"]]
    beta = out["beta"]
    out["violation"] = out["power_fraction"] > beta * (1 + RTOL)
    out["deviation"] = deviation_above(out["power_fraction"], beta)
    return out, failed


def reproduce_scrap(
    out: str | os.PathLike[str],
    *,
    scale: str = "full",
    seed: int = 0,
    workers: int | None = None,
    dask: Any = None,
    progress: bool = True,
) -> dict[str, np.ndarray]:
    """Runs the study and writes ``results.csv``, Figs. 1-4, ``summary.csv`` and ``report.md`` into ``out``.

    Results are kept in ``out/campaign.sqlite``: running again resumes and
    computes only the missing scenarios.  Returns the results as columns
    (numpy arrays, one entry per run; ``algorithm`` as indices into
    :data:`ALGORITHMS`), with the failed scenarios' rows under ``"failed"``.
    """
    todo = scenarios(scale, seed=seed)
    out = Path(out)
    stored = run_study(
        out, CAMPAIGN, todo, run_scenario, workers=workers, dask=dask, progress=progress, label=LABEL, chunk=CHUNK
    )
    every, failed = load_columns(stored, seed)
    del stored
    # results.csv, summary.csv, the figures and the main report: the default reading's runs only
    cols = _reading(every, DEFAULT_TRANSLATION)
    _write_results(cols, failed, out / "results.csv", seed)
    table = summary(cols)
    write_csv(table, out / "summary.csv", tuple(table[0]) if table else ("algorithm",))
    rows = readings(every)
    write_csv(rows, out / "readings.csv", tuple(rows[0]) if rows else ("translation",))
    write_text(out / "report.md", report(cols, table, failed, scale=scale) + readings_report(rows))
    if cols:
        _figures(cols, out)
    return {**cols, "failed": failed, "readings": rows}  # type: ignore[dict-item]


def _reading(cols: dict[str, np.ndarray], translation: str) -> dict[str, np.ndarray]:
    """The columns of the runs under ``translation`` (all of them when every run is)."""
    if not cols:
        return cols
    mine = cols["translation_index"] == TRANSLATIONS.index(translation)
    if mine.all():
        return cols
    return {k: v[mine] for k, v in cols.items()}


#: The paper's Fig. 1 numbers the readings table sets ours next to (§4's text).
_READING_PAPER = {
    "respected_0.1": "> 96%",
    "respected_0.2": "≥ 99%",
    "respected_0.3": "≥ 99%",
    "respected_ge_0.3": "≥ 99%",
    "max_excess": {"SCRAP": "5.4%", "SCRAP-MAX": "7.4%"},
    "mean_excess": "< 3%",
}


def readings(cols: dict[str, np.ndarray]) -> list[dict[str, Any]]:
    """Per translation (:data:`~clustersched.scrap.model.TRANSLATIONS`) and SCRAP / SCRAP-MAX: the share of runs
    respecting β at 0.1, 0.2, 0.3 and the worst over β ≥ 0.3 (all runs, and without initial violations), and
    the excess above β of the violating runs (power / β - 1): the largest, and the mean over the β of each β's
    mean (the paper's "average over all β values"); ``default`` marks the reading of ``results.csv``."""
    out = []
    for translation in TRANSLATIONS:
        mine = _reading(cols, translation)
        if not mine or not (cols["translation_index"] == TRANSLATIONS.index(translation)).any():
            continue
        for name in ("SCRAP", "SCRAP-MAX"):
            a = ALGORITHMS.index(name)
            row: dict[str, Any] = {"translation": translation, "default": translation == DEFAULT_TRANSLATION}
            row["algorithm"] = name
            runs = mine["algorithm"] == a
            row["runs"] = int(runs.sum())
            means, worst, worst_wo = [], 0.0, 0.0
            rest, rest_wo = [], []
            for beta in BETAS:
                at = runs & (mine["beta"] == beta)
                wo = at & (mine["initial_violation"] != 1)
                bad = at & mine["violation"]
                respected = 1.0 - bad.sum() / at.sum() if at.any() else None
                respected_wo = 1.0 - (wo & mine["violation"]).sum() / wo.sum() if wo.any() else None
                if beta in (0.1, 0.2, 0.3):
                    row[f"respected_{beta}"] = respected
                    row[f"respected_wo_init_{beta}"] = respected_wo
                if beta >= 0.3:
                    rest.append(respected)
                    rest_wo.append(respected_wo)
                dev = mine["deviation"][bad]
                if len(dev):
                    means.append(float(dev.mean()))
                    worst = max(worst, float(dev.max()))
                dev_wo = mine["deviation"][wo & mine["violation"]]
                if len(dev_wo):
                    worst_wo = max(worst_wo, float(dev_wo.max()))
            row["respected_ge_0.3"] = min((x for x in rest if x is not None), default=None)
            row["respected_wo_init_ge_0.3"] = min((x for x in rest_wo if x is not None), default=None)
            row["max_excess"] = worst
            row["max_excess_wo_init"] = worst_wo
            row["mean_excess"] = float(np.mean(means)) if means else 0.0
            out.append(row)
    return out


def readings_report(rows: list[dict[str, Any]]) -> str:
    """report.md's section on the readings of §3's translation: :func:`readings` next to the paper's."""

    def pct(x: float | None, digits: int = 2) -> str:
        return "—" if x is None else f"{100 * x:.{digits}f}%"

    p = _READING_PAPER
    lines = [
        "",
        "## Readings of the translation f(p_ref, t, k) (§3), next to the paper's",
        "",
        "β respected: share of runs whose power fraction is ≤ β (in brackets: without initial violations); "
        "≥ 0.3: the worst β from 0.3 to 1; excess: power fraction / β - 1 of the violating runs, the largest "
        "(in brackets: without initial violations) and the mean over the β of each β's mean. "
        "results.csv and the tables above hold the default reading's runs (marked *).",
        "",
        "| translation | algorithm | β = 0.1 | β = 0.2 | β = 0.3 | β ≥ 0.3 | worst excess | mean excess |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
        f"| paper | SCRAP / SCRAP-MAX | {p['respected_0.1']} | {p['respected_0.2']} | {p['respected_0.3']} "
        f"| {p['respected_ge_0.3']} | {p['max_excess']['SCRAP']} / {p['max_excess']['SCRAP-MAX']} "
        f"| {p['mean_excess']} |",
    ]
    for r in rows:
        star = " *" if r["default"] else ""
        cells = [
            f"{pct(r[f'respected_{b}'])} ({pct(r[f'respected_wo_init_{b}'])})" for b in ("0.1", "0.2", "0.3", "ge_0.3")
        ]
        lines.append(
            f"| {r['translation']}{star} | {r['algorithm']} | {' | '.join(cells)} "
            f"| {pct(r['max_excess'], 1)} ({pct(r['max_excess_wo_init'], 1)}) | {pct(r['mean_excess'])} |"
        )
    return "\n".join(lines) + "\n"


def _write_results(cols: dict[str, np.ndarray], failed: list[dict[str, Any]], path: Path, seed: int) -> None:
    """results.csv, one row per run (:data:`COLUMNS`), written in chunks; failed scenarios as error rows.

    The text is what :func:`csv.writer` writes (its default dialect: fields quoted only when they hold a
    comma, a quote or a line break, lines ended by CRLF; floats as ``repr``), built a column at a time:
    the full study has eight million rows.
    """
    platforms = [p.name for p in _platforms(seed)]
    names = [_csv_field(name) for name in platforms]
    scenarios = [_csv_field(x) for x in SCENARIOS]
    algorithms = [_csv_field(x) for x in ALGORITHMS]
    from .._output import atomic_open  # whole or not at all: a full disk leaves no half table

    with atomic_open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(COLUMNS)
        n = len(cols.get("ptg", ()))
        step = 100_000
        for lo in range(0, n, step):
            c = {k: v[lo : lo + step].tolist() for k, v in cols.items()}
            fields = (
                [names[k] for k in c["platform_index"]],
                map(str, c["clusters"]),
                map(repr, c["min_speed"]),
                map(repr, c["heterogeneity"]),
                map(str, c["ptg"]),
                map(str, c["tasks"]),
                [scenarios[k] for k in c["scenario_index"]],
                map(repr, c["beta"]),
                [algorithms[a] for a in c["algorithm"]],
                map(repr, c["makespan"]),
                map(repr, c["power_fraction"]),
                map(repr, c["peak_power_fraction"]),
                map(repr, c["energy"]),
                ["" if e != e else repr(e) for e in c["beta_estimate"]],
                ["" if i < 0 else str(bool(i)) for i in c["initial_violation"]],
                map(str, c["violation"]),
                map(repr, c["deviation"]),
                map(repr, c["slowdown"]),
                map(repr, c["slowdown_vs_hcpa"]),
            )
            fh.write("".join([",".join(row) + ",ok,\r\n" for row in zip(*fields)]))
        for r in failed:
            writer.writerow([platforms[r["platform"]]] + [""] * (len(COLUMNS) - 3) + [r["status"], r["error"]])


def _csv_field(text: str) -> str:
    """``text`` as :func:`csv.writer` writes a field of several (quoted when it holds a comma, a quote or a
    line break)."""
    return f'"{text.replace(chr(34), chr(34) * 2)}"' if any(ch in text for ch in ',"\r\n') else text


def _hcpa_energy(cols: dict[str, np.ndarray]) -> np.ndarray:
    """HCPA's energy on each row's (platform, PTG) pair (NaN where HCPA has no row)."""
    key = cols["platform_index"].astype(np.int64) * 10_000 + cols["ptg"]
    hcpa = (cols["algorithm"] == ALGORITHMS.index("HCPA")) & (cols["beta"] == 1.0)
    keys, energy = key[hcpa], cols["energy"][hcpa]
    order = np.argsort(keys)
    keys, energy = keys[order], energy[order]
    at = np.clip(np.searchsorted(keys, key), 0, max(len(keys) - 1, 0))
    found = (len(keys) > 0) & (keys[at] == key) if len(keys) else np.zeros(len(key), dtype=bool)
    out = np.full(len(key), np.nan)
    out[found] = energy[at[found]]
    return out


def summary(cols: dict[str, np.ndarray]) -> list[dict[str, Any]]:
    """Per algorithm and β: runs, violations (all; w/o initial violations), deviations, power, slowdowns, energy."""
    if not cols:
        return []
    hcpa_energy = _hcpa_energy(cols)
    table = []
    for a, algorithm in enumerate(ALGORITHMS):
        for beta in BETAS:
            mine = (cols["algorithm"] == a) & (cols["beta"] == beta)
            n = int(mine.sum())
            if not n:
                continue
            violating = mine & cols["violation"]
            no_init = mine & (cols["initial_violation"] != 1)
            dev = cols["deviation"][violating]
            dev_wo = cols["deviation"][violating & no_init]
            ratio = cols["energy"][mine] / hcpa_energy[mine]
            ratio = ratio[np.isfinite(ratio)]
            table.append(
                {
                    "algorithm": algorithm,
                    "beta": beta,
                    "runs": n,
                    "violations": int(violating.sum()),
                    "violation_rate": float(violating.sum() / n),
                    "initial_violations": int((mine & (cols["initial_violation"] == 1)).sum()),
                    "violation_rate_wo_init": float((no_init & cols["violation"]).sum() / no_init.sum())
                    if no_init.any()
                    else None,
                    "mean_deviation": float(dev.mean()) if len(dev) else None,
                    "max_deviation": float(dev.max()) if len(dev) else None,
                    "mean_deviation_wo_init": float(dev_wo.mean()) if len(dev_wo) else None,
                    "max_deviation_wo_init": float(dev_wo.max()) if len(dev_wo) else None,
                    "mean_power_fraction": float(cols["power_fraction"][mine].mean()),
                    "mean_slowdown": float(cols["slowdown"][mine].mean()),
                    "mean_lengthening": float((1.0 / cols["slowdown"][mine] - 1.0).mean()),
                    "mean_slowdown_vs_hcpa": float(cols["slowdown_vs_hcpa"][mine].mean()),
                    "mean_energy_vs_hcpa": float(ratio.mean()) if len(ratio) else None,
                }
            )
    return table


def report(
    cols: dict[str, np.ndarray], table: list[dict[str, Any]], failed: list[dict[str, Any]], *, scale: str
) -> str:
    """report.md: the per-β table and the paper's headline findings next to ours."""
    runs = len(cols.get("ptg", ()))
    pairs = len(set(zip(cols["platform_index"].tolist(), cols["ptg"].tolist()))) if runs else 0
    platforms = len(set(cols["platform_index"].tolist())) if runs else 0
    by = {(t["algorithm"], t["beta"]): t for t in table}
    lines = [
        "# SCRAP study (PDCS 2007 §4): results",
        "",
        f"Scale {scale}: {platforms} platforms, {pairs} (platform, PTG) pairs, {runs} result rows, "
        f"{len(failed)} failed scenarios.",
        "",
        "## Per algorithm and β",
        "",
        "violations: power fraction > β; w/o init: leaving out SCRAP/SCRAP-MAX runs whose initial allocation "
        "already violates; deviation: power fraction / β - 1 over the violating runs; slowdown: "
        "M_β=1 / M_β (Fig. 3), M_HCPA / M_β (Fig. 4); lengthening: mean of M_β / M_β=1 - 1.",
        "",
        "| algorithm | β | runs | violations | w/o init | mean dev. | max dev. | mean power | slowdown "
        "| lengthening | slowdown vs HCPA | energy vs HCPA |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for t in table:
        wo = t["violation_rate_wo_init"]
        lines.append(
            f"| {t['algorithm']} | {t['beta']} | {t['runs']} | {100 * t['violation_rate']:.2f}% "
            f"| {'—' if wo is None else f'{100 * wo:.2f}%'} | {cell(t['mean_deviation'], 3)} "
            f"| {cell(t['max_deviation'], 3)} "
            f"| {cell(t['mean_power_fraction'], 3)} | {cell(t['mean_slowdown'], 3)} | {cell(t['mean_lengthening'], 3)} "
            f"| {cell(t['mean_slowdown_vs_hcpa'], 3)} | {cell(t['mean_energy_vs_hcpa'], 3)} |"
        )

    def rate(a: str, b: float) -> float | None:
        t = by.get((a, b))
        return None if t is None else 1 - t["violation_rate"]

    def violating(a: str, b: float) -> float | None:
        t = by.get((a, b))
        return None if t is None else t["violation_rate"]

    def worst(a: str, betas: tuple[float, ...]) -> float | None:
        vals = [rate(a, b) for b in betas if rate(a, b) is not None]
        return min(vals) if vals else None

    def pct(x: float | None) -> str:
        return "—" if x is None else f"{100 * x:.1f}%"

    hcpa = (
        cols["power_fraction"][(cols["algorithm"] == ALGORITHMS.index("HCPA")) & (cols["beta"] == 1.0)]
        if runs
        else np.array([])
    )

    def devs(a: str, key: str) -> float | None:
        vals = [t[key] for t in table if t["algorithm"] == a and t[key] is not None]
        return max(vals) if vals else None

    def mean_dev(key: str) -> float | None:
        vals = [t[key] for t in table if t["algorithm"] in ("SCRAP", "SCRAP-MAX") and t[key] is not None]
        return float(np.mean(vals)) if vals else None

    def slow(a: str, b: float) -> float | None:
        x = by.get((a, b), {}).get("mean_slowdown")
        return None if x is None else 1.0 - x

    lines += [
        "",
        "## The paper's findings, ours next to them",
        "",
        "| finding | paper | ours |",
        "|---|---:|---:|",
        f"| SCRAP respects β, worst β ≥ 0.2 | ≥ 99% | {pct(worst('SCRAP', BETAS[1:]))} |",
        f"| SCRAP-MAX respects β, worst β ≥ 0.2 | ≥ 99% | {pct(worst('SCRAP-MAX', BETAS[1:]))} |",
        f"| SCRAP respects β = 0.1 (all runs) | > 96% | {pct(rate('SCRAP', 0.1))} |",
        f"| SCRAP-MAX respects β = 0.1 (all runs) | > 96% | {pct(rate('SCRAP-MAX', 0.1))} |",
        f"| SCRAP largest deviation above β: all / w/o init | 5.4% | {pct(devs('SCRAP', 'max_deviation'))} / "
        f"{pct(devs('SCRAP', 'max_deviation_wo_init'))} |",
        f"| SCRAP-MAX largest deviation above β: all / w/o init | 7.4% | {pct(devs('SCRAP-MAX', 'max_deviation'))} / "
        f"{pct(devs('SCRAP-MAX', 'max_deviation_wo_init'))} |",
        f"| mean deviation (both, over the β): all / w/o init | < 3% | {pct(mean_dev('mean_deviation'))} / "
        f"{pct(mean_dev('mean_deviation_wo_init'))} |",
        f"| violating at β = 0.1 / 0.2: SCRAP | | {pct(violating('SCRAP', 0.1))} / {pct(violating('SCRAP', 0.2))} |",
        f"| violating at β = 0.1 / 0.2: MHEFT-MAX | ~10x SCRAP's | {pct(violating('MHEFT-MAX', 0.1))} / "
        f"{pct(violating('MHEFT-MAX', 0.2))} |",
        f"| violating at β = 0.1 / 0.2: HCPA | ~10x SCRAP's | {pct(violating('HCPA', 0.1))} / "
        f"{pct(violating('HCPA', 0.2))} |",
        f"| HCPA schedules using < 30% of the power | > 75% | "
        f"{pct(float(np.mean(hcpa < 0.3)) if len(hcpa) else None)} |",
        f"| SCRAP at β = 0.1 vs β = 1: 1 - mean slowdown / mean lengthening | 18% | {pct(slow('SCRAP', 0.1))} / "
        f"{_signed(by.get(('SCRAP', 0.1), {}).get('mean_lengthening'))} |",
        f"| SCRAP-MAX at β = 0.1 vs β = 1: 1 - mean slowdown / mean lengthening | 23% | "
        f"{pct(slow('SCRAP-MAX', 0.1))} / {_signed(by.get(('SCRAP-MAX', 0.1), {}).get('mean_lengthening'))} |",
        f'| SCRAP, SCRAP-MAX mean slowdown vs HCPA at β = 0.1 | ≤ 0.8 ("at least 20%") | '
        f"{cell(by.get(('SCRAP', 0.1), {}).get('mean_slowdown_vs_hcpa'), 3)}, "
        f"{cell(by.get(('SCRAP-MAX', 0.1), {}).get('mean_slowdown_vs_hcpa'), 3)} |",
        f"| smallest β where SCRAP beats HCPA (slowdown vs HCPA > 1) | 0.4 | "
        f"{next((b for b in BETAS if (by.get(('SCRAP', b), {}).get('mean_slowdown_vs_hcpa') or 0) > 1), '—')} |",
        f"| SCRAP-MAX energy vs HCPA at β = 0.8 | +16% | "
        f"{_signed(_minus1(by.get(('SCRAP-MAX', 0.8), {}).get('mean_energy_vs_hcpa')))} |",
    ]
    if failed:
        lines += ["", "## Failed scenarios", ""] + [
            f"* platform {r['platform']}, shape {r['shape']}: {r['error']}" for r in failed
        ]
    return "\n".join(lines) + "\n"


def _minus1(x: float | None) -> float | None:
    return None if x is None else x - 1.0


def _signed(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:+.1f}%"


def _figures(cols: dict[str, np.ndarray], out: Path) -> None:
    """Figs. 1-4 of §4 into ``out`` (see :func:`plot_figures`)."""
    plot_figures(cols, out)


#: Figs. 1-2's series: (label, algorithm as --algorithm names it, without the runs whose initial allocation
#: already violates β, style).  A series drawn earlier has a larger marker, so that equal points stay visible.
_RESPECT = (
    (
        ("SCRAP (all runs)", "SCRAP", False, {"color": "tab:blue", "marker": "o", "linestyle": "-", "markersize": 9}),
        (
            "SCRAP (w/o initial violations)",
            "SCRAP",
            True,
            {"color": "tab:blue", "marker": "s", "linestyle": "--", "markersize": 7, "markerfacecolor": "none"},
        ),
        (
            "SCRAP-MAX (all runs)",
            "SCRAP-MAX",
            False,
            {"color": "tab:orange", "marker": "^", "linestyle": "-", "markersize": 6},
        ),
        (
            "SCRAP-MAX (w/o initial violations)",
            "SCRAP-MAX",
            True,
            {"color": "tab:orange", "marker": "v", "linestyle": "--", "markersize": 4.5, "markerfacecolor": "none"},
        ),
    ),
    (
        ("MHEFT-MAX", "MHEFT-MAX", False, {"color": "tab:green", "marker": "D", "linestyle": "-", "markersize": 7}),
        ("HCPA", "HCPA", False, {"color": "tab:red", "marker": "o", "linestyle": "--", "markersize": 5}),
    ),
)


def plot_figures(cols: dict[str, np.ndarray], out: str | os.PathLike[str] | None = None) -> list[Any]:
    """Figs. 1-4 of §4 from the result columns of :func:`reproduce_scrap`; algorithms named as ``--algorithm``.

    Returns the four figures, saved into ``out`` (as :data:`FIGURES`) when given.
    """
    from ..plot import figure, styles

    betas = list(BETAS)

    def select(algorithm: str, beta: float) -> np.ndarray:
        return (cols["algorithm"] == ALGORITHMS.index(algorithm)) & (cols["beta"] == beta)

    def respect(lines: tuple[tuple[str, str, bool, dict[str, Any]], ...], title: str) -> Any:
        fig, ax = figure(figsize=(7.5, 4.5))
        runs = set()
        for label, algorithm, wo_init, style in lines:
            pct = []
            for b in betas:
                mine = select(algorithm, b)
                runs.add(int(mine.sum()))
                if wo_init:
                    mine &= cols["initial_violation"] != 1
                pct.append(100.0 * (mine & cols["violation"]).sum() / mine.sum() if mine.any() else np.nan)
            ax.plot(betas, pct, label=label, linewidth=1.2, **style)
        runs.discard(0)
        per = f"{min(runs):,}" if len(runs) == 1 else f"{min(runs):,}-{max(runs):,}" if runs else "no"
        ax.set_xlabel("β (share of the platform's processing power allowed)")
        ax.set_ylabel("runs violating β (%)")
        ax.set_xticks(betas)
        ax.set_ylim(bottom=min(-2.0, ax.get_ylim()[0]))
        ax.set_title(f"{title}\n({per} runs per algorithm and β)", fontsize=11)
        ax.grid(linewidth=0.3)
        ax.legend(fontsize=8)
        return fig

    figs = [
        respect(_RESPECT[0], "Fig. 1: respect of β by SCRAP and SCRAP-MAX"),
        respect(_RESPECT[1], "Fig. 2: respect of β by MHEFT-MAX and HCPA"),
    ]

    def slowdown_figure(key: str, title: str, ylabel: str) -> Any:
        fig, ax = figure(figsize=(7.5, 4.5))
        for algorithm, style in zip(("SCRAP", "SCRAP-MAX"), styles(2)):
            means = [
                float(cols[key][select(algorithm, b)].mean()) if select(algorithm, b).any() else np.nan for b in betas
            ]
            ax.plot(betas, means, label=algorithm, markersize=6, **style)
        ax.axhline(1.0, color="grey", linewidth=0.5)
        ax.set_xlabel("β (share of the platform's processing power allowed)")
        ax.set_ylabel(ylabel)
        ax.set_xticks(betas)
        ax.set_title(title)
        ax.grid(linewidth=0.3)
        ax.legend(fontsize=8)
        return fig

    figs.append(slowdown_figure("slowdown", "Fig. 3: average slowdown M(β=1) / M(β)", "average slowdown M(β=1) / M(β)"))
    figs.append(
        slowdown_figure(
            "slowdown_vs_hcpa", "Fig. 4: average slowdown M(HCPA) / M(β)", "average slowdown M(HCPA) / M(β)"
        )
    )
    # Figs. 3 and 4 compare the same algorithms on the same scale: one y range for both
    lo = min(f.axes[0].get_ylim()[0] for f in figs[2:])
    hi = max(f.axes[0].get_ylim()[1] for f in figs[2:])
    for f in figs[2:]:
        f.axes[0].set_ylim(lo, hi)
    if out is not None:
        for f, name in zip(figs, FIGURES):
            save_figure(f, Path(out) / name, dpi=130)
    return figs
