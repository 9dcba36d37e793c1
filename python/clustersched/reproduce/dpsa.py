"""Reproduction of the DPSA study (Grudenic & Bogunovic, §IV, Fig. 3 and Fig. 4).

EASY, DPSA-p, DPSA-n and DPSA-w on every SWF trace of a folder, compared by
average bounded slowdown (τ = 10 s) and average wait.  The paper ran eight
Parallel Workloads Archive traces; this runs whatever the folder holds (by
default the traces of ``shared/data/swf``, see :func:`default_traces`).

Choices the paper leaves open, made here:

* **Machine size**: the trace header's ``MaxProcs`` (else ``MaxNodes``), or
  the size given for the trace (``procs={"NAME": N}``, on the command line
  ``--procs NAME=N``; NAME is the trace's name in the summary, such as
  ``METACENTRUM-2009-2``, or its file name).  A trace with neither is not
  guessed: its rows are ``skipped`` (the ``status`` column), the ``note``
  column and the command say why, and the run still succeeds.
* **Cleaning**: jobs wider than the machine, without a processor count or
  with a non-positive runtime are dropped (:func:`drop_invalid`), and the
  number dropped is reported per trace and per reason (the ``dropped`` and
  ``dropped_by_reason`` columns; ``clustersched reproduce dpsa`` prints one
  line per trace that lost jobs).
* **Estimates**: the users' requested times (``max(requested, runtime)``), as
  the paper's discussion of estimate accuracy implies; ``--estimates exact``
  is available.
* **Utilization** in Fig. 4 is the utilization EASY achieves on the trace.
* **Scale**: ``full`` simulates whole traces; ``small`` the first
  ``SMALL_JOBS`` jobs of each, for CI and quick checks.
"""

from __future__ import annotations

import os
import time
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from .._checks import MAX_PROCS, check_int
from .._output import save_figure
from ..batch import simulate
from ..batch.metrics import batch_metrics
from ..campaign import grid
from ..campaign.study import run_study, write_csv
from ..plot import figure
from ..workload.swf import read_swf
from ..workload.transform import drop_invalid, offered_load

__all__ = [
    "POLICIES",
    "SCALES",
    "SMALL_JOBS",
    "default_traces",
    "dropped_by_reason",
    "plot_fig3",
    "plot_fig4",
    "reproduce_dpsa",
    "run_scenario",
    "trace_files",
]

POLICIES = ("easy", "dpsa-p", "dpsa-n", "dpsa-w")
SCALES = ("small", "full")
SMALL_JOBS = 3000
CAMPAIGN = "dpsa-v2"  # v2: each scenario also reports what was dropped, by reason
#: The campaign's progress bar: the paper, and what it counts.
LABEL = "DPSA paper (Grudenic & Bogunovic): scenarios"
COLUMNS = (
    "trace",
    "policy",
    "jobs",
    "avg_bounded_slowdown",
    "avg_wait",
    "utilization",
    "change_vs_easy",
    "offered_load",
    "procs",
    "dropped",
    "dropped_by_reason",
    "decisions",
    "cut_decisions",
    "max_decision_seconds",
    "simulation_seconds",
    "status",
    "error",
    "note",
)
#: Where :func:`default_traces` looks, in order, after ``$CLUSTERSCHED_TRACES``
#: (relative to the working directory: a clone of the repository, or the folder above it).
TRACE_FOLDERS = ("shared/data/swf", "../shared/data/swf")


def default_traces() -> Path:
    """The trace folder used when none is given.

    ``$CLUSTERSCHED_TRACES`` when set (it must then be a folder); else the first
    of :data:`TRACE_FOLDERS` that exists; else the folder of the trace bundled
    with the package (one week of HPC2N-2002, so that the command runs after a
    plain install; :func:`is_bundled` tells).
    """
    env = os.environ.get("CLUSTERSCHED_TRACES")
    if env:
        if not Path(env).is_dir():
            raise FileNotFoundError(f"CLUSTERSCHED_TRACES == {env!r} is not a folder")
        return Path(env).resolve()
    for folder in TRACE_FOLDERS:
        if Path(folder).is_dir():
            return Path(folder).resolve()
    return bundled_traces()


def bundled_traces() -> Path:
    """The package's data folder, which holds one bundled trace (``clustersched/data``)."""
    from ..workload.samples import sample_trace

    return sample_trace().parent


def is_bundled(folder: str | os.PathLike[str]) -> bool:
    """Whether ``folder`` is the package's data folder (see :func:`default_traces`)."""
    return Path(folder).resolve() == bundled_traces().resolve()


def trace_files(folder: str | os.PathLike[str]) -> list[Path]:
    """The SWF traces directly in ``folder`` (``*.swf``, ``*.swf.gz``), sorted by name."""
    files = sorted(p for p in Path(folder).iterdir() if p.name.endswith((".swf", ".swf.gz")))
    if not files:
        raise FileNotFoundError(f"{folder} holds no .swf or .swf.gz trace")
    return files


@lru_cache(maxsize=2)
def _cleaned(path: str, limit: int | None, size: int | None = None) -> tuple[Any, int, int, float] | None:
    """The cleaned job table of a trace (cached per worker process), with its size, how many jobs were dropped
    (the table's ``drop_summary()`` says why) and its offered load; None when the machine size is unknown
    (no ``size`` given and none in the header)."""
    table = read_swf(path)
    if limit is not None:
        table = table.select(slice(0, limit))
    procs = size if size is not None else table.max_procs
    if procs is None:
        return None
    cleaned = drop_invalid(table, procs)
    return cleaned, procs, len(table) - len(cleaned), offered_load(cleaned, procs)


def run_scenario(scenario: dict[str, Any]) -> dict[str, Any]:
    """One (trace, policy) simulation: the campaign's scenario function.

    A trace whose machine size is unknown gives ``{"skipped": why}`` (the summary's ``skipped`` status).
    """
    cleaned = _cleaned(scenario["path"], scenario["limit"], scenario.get("given_procs"))
    if cleaned is None:
        name = _trace_name(scenario["path"])
        return {
            "skipped": f"the header gives no MaxProcs or MaxNodes, so no machine size: skipped (give it with "
            f"--procs {name}=N, or procs={{{name!r}: N}})"
        }
    table, procs, dropped, load = cleaned
    began = time.perf_counter()
    result = simulate(table, scenario["policy"], procs=procs, estimates=scenario["estimates"])
    seconds = time.perf_counter() - began
    summary = batch_metrics(result.schedule).summary()
    search = result.search
    return {
        "jobs": summary["jobs"],
        "avg_bounded_slowdown": summary["avg_bounded_slowdown"],
        "avg_wait": summary["avg_wait"],
        "utilization": summary["utilization"],
        "offered_load": load,
        "procs": procs,
        "dropped": dropped,
        "dropped_by_reason": dropped_by_reason(table.drop_summary()),
        "decisions": search["decisions"],
        "cut_decisions": search["cut"],
        "max_decision_seconds": float(search["decision_seconds"].max()) if search["decisions"] else 0.0,
        "simulation_seconds": seconds,
    }


def dropped_by_reason(summary: dict[str, int]) -> str:
    """A drop summary as one cell, ``"non-positive runtime: 17; no processor count: 3"`` (``""`` for none).

    >>> dropped_by_reason({"non-positive runtime": 17, "no processor count": 3})
    'non-positive runtime: 17; no processor count: 3'
    """
    return "; ".join(f"{reason}: {count}" for reason, count in summary.items())


def reproduce_dpsa(
    out: str | os.PathLike[str],
    *,
    traces: str | os.PathLike[str] | None = None,
    scale: str = "full",
    estimates: str = "requested",
    workers: int | None = None,
    dask: Any = None,
    progress: bool = True,
    procs: Mapping[str, int] | None = None,
) -> list[dict[str, Any]]:
    """Runs the study and writes ``out/summary.csv``, ``out/fig3.png`` and ``out/fig4.png``.

    Results are kept in ``out/campaign.sqlite``: running again resumes and
    computes only the missing scenarios.  Returns the summary rows.
    ``procs`` gives the machine size of traces by name (the summary's
    ``trace``, or the file name), over their header's; a trace without a
    size in either is skipped, not an error (module docstring).
    """
    if scale not in SCALES:
        raise ValueError(f"scale == {scale!r}, must be 'small' or 'full'")
    out = Path(out)
    files = trace_files(traces if traces is not None else default_traces())
    sizes = _sizes(procs, files)
    scenarios = grid(
        path=[str(p.resolve()) for p in files],
        policy=list(POLICIES),
        limit=[SMALL_JOBS if scale == "small" else None],
        estimates=[estimates],
    )
    for scenario in scenarios:  # only where given, so that the scenarios of earlier runs keep their keys
        size = sizes.get(_trace_name(scenario["path"]))
        if size is not None:
            scenario["given_procs"] = size
    rows = run_study(out, CAMPAIGN, scenarios, run_scenario, workers=workers, dask=dask, progress=progress, label=LABEL)
    summary = _summary(rows)
    write_csv(summary, out / "summary.csv", COLUMNS)
    plot_fig3(summary, out / "fig3.png")
    plot_fig4(summary, out / "fig4.png")
    return summary


def _sizes(procs: Mapping[str, int] | None, files: list[Path]) -> dict[str, int]:
    """``procs`` by trace name, checked: each name one of ``files``'s (as the summary names them, or the file
    name), each size a processor count (ValueError naming what is wrong)."""
    if procs is None:
        return {}
    if not isinstance(procs, Mapping):
        raise TypeError(f"procs == {procs!r}, must be a mapping of trace name to processor count")
    names = {_trace_name(str(p)): _trace_name(str(p)) for p in files}
    names.update({p.name: _trace_name(str(p)) for p in files})
    out: dict[str, int] = {}
    for name, size in procs.items():
        if name not in names:
            raise ValueError(
                f"procs names trace {name!r}, which is not in the folder (its traces: "
                f"{', '.join(sorted(set(names.values())))})"
            )
        out[names[name]] = check_int(f"procs[{name!r}]", size, 1, MAX_PROCS)
    return out


def _trace_name(path: str) -> str:
    name = Path(path).name
    for suffix in (".gz", ".swf"):
        name = name.removesuffix(suffix)
    return name.removesuffix("-cln")


def _summary(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per (trace, policy) with the relative change of average bounded slowdown vs EASY."""
    easy = {
        r["path"]: r.get("avg_bounded_slowdown")
        for r in rows
        if r["policy"] == "easy" and r["status"] == "ok" and not r.get("skipped")
    }
    out = []
    for r in rows:
        row = {k: r.get(k) for k in COLUMNS}
        row["trace"] = _trace_name(r["path"])
        if r["status"] == "ok" and r.get("skipped"):
            row["status"], row["note"] = "skipped", r["skipped"]
        base = easy.get(r["path"])
        ok = r["status"] == "ok" and base
        row["change_vs_easy"] = (r["avg_bounded_slowdown"] - base) / base if ok else None
        out.append(row)
    return out


def plot_fig3(rows: list[dict[str, Any]], path: Path | None = None) -> Any:
    """Fig. 3: change of average bounded slowdown of each DPSA variant vs EASY, per trace (%).

    Series are named as ``--policy`` names them; a variant equal to EASY (0 %)
    is drawn as a marker on the zero line, and a trace without results as "no
    data".  Returns the figure (saved to ``path`` when given).
    """
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    from ..plot import styles

    traces = sorted({r["trace"] for r in rows})
    variants = [p for p in POLICIES if p != "easy"]
    fig, ax = figure(figsize=(max(6, 0.9 * len(traces) + 2), 4.8))
    x = np.arange(len(traces))
    width = 0.8 / len(variants)
    handles: list[Any] = []
    labels: list[str] = []
    any_zero = False
    for k, (policy, style, hatch) in enumerate(zip(variants, styles(len(variants)), ("", "//", ".."))):
        change = {r["trace"]: r["change_vs_easy"] for r in rows if r["policy"] == policy}
        values = np.array([100 * change[t] if change.get(t) is not None else np.nan for t in traces])
        where = x + (k - (len(variants) - 1) / 2) * width
        ax.bar(
            where,
            np.nan_to_num(values),
            width=width,
            color=style["color"],
            hatch=hatch,
            edgecolor="black",
            linewidth=0.4,
        )
        zero = np.isfinite(values) & (np.abs(values) < 0.05)  # shows as 0.0 %: no bar to see
        if zero.any():
            any_zero = True
            ax.plot(
                where[zero],
                np.zeros(zero.sum()),
                linestyle="none",
                marker=style["marker"],
                markersize=5,
                color=style["color"],
                markeredgecolor="black",
                markeredgewidth=0.5,
                zorder=3,
            )
        handles.append(
            (
                Patch(facecolor=style["color"], hatch=hatch, edgecolor="black", linewidth=0.4),
                Line2D(
                    [],
                    [],
                    linestyle="none",
                    marker=style["marker"],
                    markersize=5,
                    color=style["color"],
                    markeredgecolor="black",
                    markeredgewidth=0.5,
                ),
            )
        )
        labels.append(policy)
    for t, name in enumerate(traces):
        if not any(r["trace"] == name and r["policy"] in variants and r["change_vs_easy"] is not None for r in rows):
            ax.annotate(
                "no data",
                (t, 0),
                xytext=(0, 4),
                textcoords="offset points",
                ha="center",
                va="bottom",
                rotation=90,
                fontsize=7,
                color="0.35",
            )
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(x, traces, rotation=40, ha="right", fontsize=8)
    ax.set_xlim(-0.6, len(traces) - 0.4)
    ax.set_ylabel("change of average bounded\nslowdown vs easy (%)")
    ax.set_title("dpsa-p, dpsa-n, dpsa-w vs easy, per trace (negative is better)")
    ax.grid(axis="y", linewidth=0.3)
    ax.legend(
        handles,
        labels,
        fontsize=8,
        loc="upper left",
        bbox_to_anchor=(1.0, 1.0),
        borderaxespad=0.3,
        title="a marker on the 0 line:\nthe same as easy" if any_zero else None,
        title_fontsize=7,
    )
    if path is not None:
        save_figure(fig, path, dpi=130)
    return fig


def plot_fig4(rows: list[dict[str, Any]], path: Path | None = None) -> Any:
    """Fig. 4: DPSA-n's gain over EASY (reduction of average bounded slowdown, %) vs utilization.

    Each trace is named beside its point, the names placed so that they do
    not overlap.  Returns the figure (saved to ``path`` when given).
    """
    from ..plot import label_points

    easy_util = {r["trace"]: r["utilization"] for r in rows if r["policy"] == "easy" and r["status"] == "ok"}
    points = [
        (easy_util[r["trace"]], -100 * r["change_vs_easy"], r["trace"])
        for r in rows
        if r["policy"] == "dpsa-n" and r["change_vs_easy"] is not None and r["trace"] in easy_util
    ]
    fig, ax = figure(figsize=(8, 5.5))
    ax.axhline(0, color="black", linewidth=0.8)
    if points:
        u, gain, names = zip(*points)
        ax.scatter(u, gain, s=18, zorder=3, color="tab:blue", label="a trace")
        if len(points) > 2:
            slope, intercept = np.polyfit(u, gain, 1)
            xs = np.linspace(min(u), max(u), 10)
            ax.plot(
                xs,
                slope * xs + intercept,
                linestyle="--",
                color="gray",
                label=f"least squares: {slope:.1f} % per unit of utilization",
            )
        ax.legend(fontsize=8, loc="upper left")
        ax.margins(x=0.08, y=0.12)
        label_points(ax, u, gain, names)
    ax.set_xlabel("utilization under easy (fraction of processor time)")
    ax.set_ylabel("dpsa-n gain over easy (%)")
    ax.set_title("dpsa-n gain over easy vs utilization")
    ax.grid(linewidth=0.3)
    if path is not None:
        save_figure(fig, path, dpi=130)
    return fig
