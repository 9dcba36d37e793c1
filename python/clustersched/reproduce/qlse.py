"""Reproduction of the QLSE study (Baraglia, Ferrini, Tonellotto, Ricci & Yahyapour, §5).

QLSE and the greedy best-fit baseline on TIGs and grids drawn from Tables 1
and 2: every one of the 2,187 combinations of the seven parameters' sizes
(3^3 for TIGs x 3^4 for grids), with 10 TIG-grid pairs each, so 21,870 test
cases (§5: "for all the 2187 combinations [...] 10 TIGs and 10 Grids were
randomly generated to run a test. In total, 21870 test cases").  Writes
``results.csv`` (one row per case, bandwidth model and algorithm), the
analogues of Figs. 3-5 and a report.

Choices the paper leaves open, made here:

* **Instances** are generated feasible (§5: "generating TIGs and Grids in
  such a way that a valid solution exists"), by
  :func:`clustersched.grid.feasible_instance`, which plants a hidden valid
  mapping; case ``r`` of combination ``c`` draws from
  ``SeedSequence(seed, spawn_key=(c, r))``.  A case is one TIG and one grid
  (10 per combination: 21,870 in all, as §5 counts them).
* **Bandwidth models.**  The study runs under both models of
  :data:`clustersched.grid.BANDWIDTH_MODELS` by default: ``shared`` (§4.4 as
  written) and ``dedicated`` (each communication on its own).  The same seed
  gives the same TIG, hosts and hidden mapping under both; only the
  bandwidths raised for the hidden mapping differ.  ``docs/reproduce-qlse.md``
  explains why both are needed.
* **Metrics** (:mod:`clustersched.grid.metrics`): a failure is a
  :class:`~clustersched.grid.NoFeasibleMapping`; the LAN hit ratio and the
  task-machine ratio are averaged, as in §5, only over the cases where both
  algorithms found a mapping.  Every mapping is checked by
  :func:`clustersched.grid.validate_mapping` (a violation is a bug and fails
  the scenario).
* **Figures** plot each measure against the exact number of tasks of the TIG
  (8..64), one panel per bandwidth model.
* ``seconds`` is the wall time of the algorithm alone.

**Readings** (issue 33; ``readings.csv`` and the report's "Readings"
section): the paper's figures under each named set of readings of
:data:`READINGS` (QLSE's quartile source and host rule, the instance
generator), each with both readings of the greedy baseline
(:data:`~clustersched.grid.qlse.GREEDY_READINGS`), on the same combinations
and seeds, under the ``dedicated`` model only (:data:`READINGS_BANDWIDTH`:
under ``shared``, 20-60 Mb/s LANs cannot carry the ≈ 100% LAN hit ratios §5
reports, whatever the reading, so the comparison with the paper means
something only under ``dedicated``).  ``results.csv`` keeps the default
reading's rows only.

``scale="small"`` runs 9 combinations (the three TIG sizes x the three grid
sizes, each with all its parameters of that size) with 2 cases each, for CI;
``"full"`` the 21,870 cases.
"""

from __future__ import annotations

import itertools
import os
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from .._output import save_figure, write_text
from ..campaign import grid
from ..campaign.study import run_study, write_csv
from ._common import cell

__all__ = [
    "COLUMNS",
    "FIGURES",
    "OUTPUTS",
    "DEFAULT_READING",
    "READINGS",
    "READINGS_BANDWIDTH",
    "SCALES",
    "combinations",
    "plot_figures",
    "reading_rows",
    "reading_scenarios",
    "reproduce_qlse",
    "run_scenario",
    "scenarios",
    "summary",
]

SCALES = ("small", "full")
SIZES = ("small", "medium", "large")
#: The seven parameters of Tables 1 and 2, in the order of a combination.
PARAMETERS = ("tasks", "mcr", "mbr", "lans", "hosts_per_lan", "power", "bandwidth")
CASES = {"small": 2, "full": 10}
ALGORITHMS = ("QLSE", "greedy")
#: Campaign name in the store: change it when a scenario's computation changes.
CAMPAIGN = "qlse-v3"
#: The campaign's progress bar: the paper, and what it counts.
LABEL = "QLSE paper (Baraglia et al.): scenarios (a combination of Tables 1-2, all its cases)"
COLUMNS = (
    "case",
    "combination",
    "replicate",
    "bandwidth",
    "algorithm",
    "tasks_size",
    "mcr_size",
    "mbr_size",
    "lans_size",
    "hosts_per_lan_size",
    "power_size",
    "bandwidth_size",
    "tasks",
    "edges",
    "lans",
    "hosts",
    "hosts_per_lan",
    "links",
    "failed",
    "lan_hit_ratio",
    "task_machine_ratio",
    "shared_task_machine_ratio",
    "lans_used",
    "step",
    "attempts",
    "seconds",
    "status",
    "error",
)
FIGURES = ("fig3_failures.png", "fig4_lan_hit_ratio.png", "fig5_task_machine_ratio.png")
TABLES = ("summary.csv", "readings.csv", "report.md")
#: Every file :func:`reproduce_qlse` writes into its folder.
OUTPUTS = ("results.csv", *FIGURES, *TABLES, "campaign.sqlite")
#: Bins of tasks per TIG for the report's tables.
TASK_BINS = ((8, 15), (16, 23), (24, 31), (32, 39), (40, 47), (48, 55), (56, 64))
#: The named sets of readings (issue 33), each run with both greedy readings: QLSE's options
#: (:func:`clustersched.grid.qlse`) and the instance generator's (:func:`clustersched.grid.feasible_instance`).
#: "today" is the library's defaults until issue 33; each other one changes QLSE's reading (the MBRs' quartiles
#: with the first host in decreasing power, §4.2-4.3) or the generator's (§5's "a valid solution exists"), and
#: :data:`DEFAULT_READING` is the library's defaults since.
_QLSE_TODAY = {"quartiles": "links", "host": "most-power-left"}
READINGS: dict[str, dict[str, dict[str, Any]]] = {
    "today": {"qlse": _QLSE_TODAY, "instance": {"planting": "just-enough", "link_probability": 0.2}},
    "mbr-quartiles+first-fit": {
        "qlse": {"quartiles": "mbrs", "host": "first-fit"},
        "instance": {"planting": "just-enough", "link_probability": 0.2},
    },
    "largest-mbr": {"qlse": _QLSE_TODAY, "instance": {"planting": "largest-mbr", "link_probability": 0.2}},
    "fit-graph": {"qlse": _QLSE_TODAY, "instance": {"planting": "fit-graph", "link_probability": 0.2}},
    "fit-graph+links-0.5": {"qlse": _QLSE_TODAY, "instance": {"planting": "fit-graph", "link_probability": 0.5}},
}
#: The reading whose options are the library's defaults (with greedy ``"validated-after"``): results.csv's.
DEFAULT_READING = "fit-graph+links-0.5"
#: The bandwidth model the readings run under (the module docstring says why).
READINGS_BANDWIDTH = "dedicated"
#: What §5 says of each measure (it gives plots, not numbers): the readings table's paper columns.
PAPER = {
    "qlse_failure_pct": "≈ 0",
    "greedy_failure_pct": "grows almost linearly with the tasks",
    "lan_hit_ratio_pct": "≈ 100 both, QLSE higher",
    "task_machine_ratio": "QLSE 2-3, greedy > QLSE",
    "greedy_lans_used": "≤ 2",
}


def combinations(scale: str = "full") -> list[tuple[str, ...]]:
    """The size of each of the seven parameters, per combination (2,187 at full scale, 9 at small).

    Examples
    --------
    >>> len(combinations("full")), combinations("full")[0]
    (2187, ('small', 'small', 'small', 'small', 'small', 'small', 'small'))
    >>> combinations("small")[1]
    ('small', 'small', 'small', 'medium', 'medium', 'medium', 'medium')
    """
    if scale == "full":
        return list(itertools.product(SIZES, repeat=len(PARAMETERS)))
    if scale == "small":
        return [(t,) * 3 + (g,) * 4 for t in SIZES for g in SIZES]
    raise ValueError(f"scale == {scale!r}, must be one of {SCALES}")


def scenarios(
    scale: str = "full", *, seed: int = 0, bandwidths: Iterable[str] = ("shared", "dedicated")
) -> list[dict[str, Any]]:
    """The campaign's scenarios: one per combination and bandwidth model, each running its cases.

    Examples
    --------
    >>> len(scenarios("full")), scenarios("small", bandwidths=["dedicated"])[0]
    (4374, {'combination': 0, 'bandwidth': 'dedicated', 'scale': 'small', 'seed': 0})
    """
    from ..grid.mapping import check_bandwidth

    if isinstance(bandwidths, (str, bytes)):
        raise TypeError(f"bandwidths == {bandwidths!r}, must be a sequence of model names, e.g. ({bandwidths!r},)")
    if not isinstance(scale, str) or scale not in SCALES:
        raise ValueError(f"scale == {scale!r}, must be one of {SCALES}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed == {seed!r}, must be an int >= 0")
    models = [check_bandwidth(b) for b in bandwidths]
    if not models:
        raise ValueError("bandwidths is empty, give at least one model")
    return grid(combination=range(len(combinations(scale))), bandwidth=models, scale=[scale], seed=[int(seed)])


def reading_scenarios(scale: str = "full", *, seed: int = 0) -> list[dict[str, Any]]:
    """The readings' scenarios: one per combination and reading of :data:`READINGS`, under :data:`READINGS_BANDWIDTH`.

    Examples
    --------
    >>> len(reading_scenarios("full")), reading_scenarios("small")[0]
    (10935, {'combination': 0, 'reading': 'today', 'bandwidth': 'dedicated', 'scale': 'small', 'seed': 0})
    """
    scenarios(scale, seed=seed, bandwidths=[READINGS_BANDWIDTH])  # the same checks
    return grid(
        combination=range(len(combinations(scale))),
        reading=list(READINGS),
        bandwidth=[READINGS_BANDWIDTH],
        scale=[scale],
        seed=[int(seed)],
    )


def run_scenario(s: dict[str, Any]) -> dict[str, Any]:
    """The cases of one combination under one bandwidth model, both algorithms: the campaign's scenario function.

    With a ``reading`` (:func:`reading_scenarios`), the instances and QLSE follow that reading of
    :data:`READINGS`, and greedy runs under each of its readings (the ``greedy`` field).
    Returns one list per field, one entry per (case, algorithm[, greedy reading]).
    """
    from ..grid import feasible_instance, grid_ranges, tig_ranges
    from ..grid import run as run_grid
    from ..grid.qlse import GREEDY_READINGS

    sizes = combinations(s["scale"])[s["combination"]]
    reading = READINGS[s["reading"]] if "reading" in s else {"qlse": {}, "instance": {}}
    runs: list[tuple[str, str, dict[str, Any]]] = [("QLSE", "", reading["qlse"])]
    if "reading" in s:
        runs += [("greedy", g, {"reading": g}) for g in GREEDY_READINGS]
    else:
        runs += [("greedy", "", {})]
    rows: dict[str, list[Any]] = defaultdict(list)
    for replicate in range(CASES[s["scale"]]):
        rng = np.random.default_rng(np.random.SeedSequence(s["seed"], spawn_key=(s["combination"], replicate)))
        inst = feasible_instance(
            tig_ranges(*sizes[:3]),
            grid_ranges(*sizes[3:]),
            seed=rng,
            bandwidth=s["bandwidth"],
            **reading["instance"],
        )
        tig, lan_grid = inst.tig, inst.grid
        for name, greedy, options in runs:
            run = run_grid(tig, lan_grid, name, bandwidth=s["bandwidth"], validate=True, **options)
            r, m = run.mapping, run.metrics
            rows["replicate"].append(replicate)
            rows["algorithm"].append(name)
            rows["greedy"].append(greedy)
            rows["tasks"].append(len(tig))
            rows["edges"].append(tig.num_edges)
            rows["lans"].append(lan_grid.num_lans)
            rows["hosts"].append(lan_grid.num_hosts)
            rows["links"].append(lan_grid.num_links)
            rows["failed"].append(not r.found)
            rows["lan_hit_ratio"].append(m.lan_hit_ratio if m else None)
            rows["task_machine_ratio"].append(m.task_machine_ratio if m else None)
            rows["shared_task_machine_ratio"].append(m.shared_task_machine_ratio if m else None)
            rows["lans_used"].append(m.lans_used if m else None)
            rows["step"].append(getattr(r, "step_label", None))
            rows["attempts"].append(r.attempts)
            rows["algorithm_seconds"].append(run.seconds)
    return dict(rows)


def reproduce_qlse(
    out: str | os.PathLike[str],
    *,
    scale: str = "full",
    seed: int = 0,
    bandwidths: Iterable[str] = ("shared", "dedicated"),
    workers: int | None = None,
    dask: Any = None,
    progress: bool = True,
    readings: bool = True,
) -> list[dict[str, Any]]:
    """Runs the study and writes ``results.csv``, Figs. 3-5, ``summary.csv``, ``readings.csv`` and ``report.md``
    into ``out``.

    ``readings`` (default True) also runs every reading of :data:`READINGS` (under
    :data:`READINGS_BANDWIDTH`) into ``readings.csv`` and the report's "Readings" section; False leaves
    ``readings.csv`` with its header only.

    Results are kept in ``out/campaign.sqlite``: running again resumes and
    computes only what is missing.  Returns the rows of results.csv.

    Raises
    ------
    TypeError
        ``out`` is not a path, ``bandwidths`` is a single string rather than
        a sequence of model names, ``progress`` or ``readings`` is not a bool.
    ValueError
        ``out`` is empty (an empty path is not a folder: give ``"."`` for the
        working directory), or ``scale``, ``seed`` or a model is out of range.
    """
    if not isinstance(out, (str, os.PathLike)):
        raise TypeError(f"out == {out!r}, must be a path (str or os.PathLike)")
    if os.fspath(out) in ("", b""):
        raise ValueError("out == '', must name a folder (an empty path is not one; give '.' for the working directory)")
    if isinstance(bandwidths, (str, bytes)):
        raise TypeError(f"bandwidths == {bandwidths!r}, must be a sequence of model names, e.g. ({bandwidths!r},)")
    if not isinstance(progress, (bool, np.bool_)):
        raise TypeError(f"progress == {progress!r}, must be a bool")
    if not isinstance(readings, (bool, np.bool_)):
        raise TypeError(f"readings == {readings!r}, must be a bool")
    todo = scenarios(scale, seed=seed, bandwidths=bandwidths)
    if readings:
        todo += reading_scenarios(scale, seed=seed)
    out = Path(out)
    runs = run_study(out, CAMPAIGN, todo, run_scenario, workers=workers, dask=dask, progress=progress, label=LABEL)
    rows = _rows([r for r in runs if "reading" not in r])
    write_csv(rows, out / "results.csv", COLUMNS)
    table = summary(rows)
    write_csv(table, out / "summary.csv", tuple(table[0]) if table else ("bandwidth",))
    by_reading = reading_rows(_rows([r for r in runs if "reading" in r])) if readings else []
    write_csv(by_reading, out / "readings.csv", READING_COLUMNS)
    write_text(out / "report.md", _report(rows, table) + _readings_report(by_reading))
    _figures(rows, out)
    return rows


def _rows(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Campaign rows (one per scenario, lists inside) as results.csv rows (one per case and algorithm)."""
    out = []
    for r in runs:
        sizes = combinations(r["scale"])[r["combination"]]
        base = {
            "combination": r["combination"],
            "bandwidth": r["bandwidth"],
            **({"reading": r["reading"]} if "reading" in r else {}),
            **{f"{p}_size": size for p, size in zip(PARAMETERS, sizes)},
        }
        if r["status"] != "ok":
            out.append(
                {**base, "case": r["combination"] * CASES[r["scale"]], "status": r["status"], "error": r["error"]}
            )
            continue
        for k in range(len(r["algorithm"])):
            row = {
                **base,
                **{
                    name: r[name][k]
                    for name in (
                        "replicate",
                        "algorithm",
                        *(("greedy",) if "greedy" in r else ()),
                        "tasks",
                        "edges",
                        "lans",
                        "hosts",
                        "links",
                        "failed",
                        "lan_hit_ratio",
                        "task_machine_ratio",
                        "shared_task_machine_ratio",
                        "lans_used",
                        "step",
                        "attempts",
                    )
                },
            }
            row["case"] = r["combination"] * CASES[r["scale"]] + row["replicate"]
            row["hosts_per_lan"] = round(row["hosts"] / row["lans"], 2)
            row["seconds"] = r["algorithm_seconds"][k]
            row["status"], row["error"] = "ok", None
            out.append(row)
    return out


def _both_found(rows: list[dict[str, Any]]) -> set[tuple[str, int]]:
    """(bandwidth, case) where every algorithm found a mapping (§5 averages the ratios over these only)."""
    failed = {(r["bandwidth"], r["case"]) for r in rows if r["failed"]}
    return {(r["bandwidth"], r["case"]) for r in rows} - failed


def _bin(tasks: int) -> str:
    for lo, hi in TASK_BINS:
        if lo <= tasks <= hi:
            return f"{lo}-{hi}"
    return "other"


def summary(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per bandwidth model, algorithm and bin of tasks per TIG (and "all"): cases, failure %, and the two
    ratios averaged over the cases both algorithms mapped.
    """
    rows = [r for r in rows if r["status"] == "ok"]
    both = _both_found(rows)
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        for b in (_bin(r["tasks"]), "all"):
            groups[(r["bandwidth"], r["algorithm"], b)].append(r)
    bins = [f"{lo}-{hi}" for lo, hi in TASK_BINS] + ["all"]
    out = []
    for model in sorted({r["bandwidth"] for r in rows}, key=["shared", "dedicated"].index):
        for name in ALGORITHMS:
            for b in bins:
                mine = groups.get((model, name, b), [])
                if not mine:
                    continue
                mapped = [r for r in mine if (model, r["case"]) in both]
                out.append(
                    {
                        "bandwidth": model,
                        "algorithm": name,
                        "tasks": b,
                        "cases": len(mine),
                        "failure_pct": 100.0 * float(np.mean([r["failed"] for r in mine])),
                        "both_mapped": len(mapped),
                        "lan_hit_ratio_pct": 100.0 * float(np.mean([r["lan_hit_ratio"] for r in mapped]))
                        if mapped
                        else None,
                        "task_machine_ratio": float(np.mean([r["task_machine_ratio"] for r in mapped]))
                        if mapped
                        else None,
                        "shared_task_machine_ratio": (
                            float(np.mean([r["shared_task_machine_ratio"] for r in mapped])) if mapped else None
                        ),
                        "mean_lans_used": float(np.mean([r["lans_used"] for r in mapped])) if mapped else None,
                        "mean_seconds": float(np.mean([r["seconds"] for r in mine])),
                    }
                )
    return out


#: The columns of readings.csv: one row per reading, greedy reading and bin of tasks per TIG (and "all").
READING_COLUMNS = (
    "reading",
    "greedy_reading",
    "bandwidth",
    "tasks",
    "cases",
    "qlse_failure_pct",
    "greedy_failure_pct",
    "both_mapped",
    "qlse_lan_hit_ratio_pct",
    "greedy_lan_hit_ratio_pct",
    "qlse_task_machine_ratio",
    "greedy_task_machine_ratio",
    "qlse_mean_lans_used",
    "greedy_mean_lans_used",
    "greedy_at_most_2_lans_pct",
    *(f"paper_{k}" for k in PAPER),
)


def reading_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """readings.csv from the readings' per-case rows: per reading, greedy reading and bin of tasks (and "all"),
    the failures of both algorithms over every case, and the ratios and LANs used over the cases both mapped
    (as §5 averages them), next to what §5 says (:data:`PAPER`)."""
    rows = [r for r in rows if r["status"] == "ok"]
    qlse_of = {(r["reading"], r["case"]): r for r in rows if r["algorithm"] == "QLSE"}
    bins = [f"{lo}-{hi}" for lo, hi in TASK_BINS] + ["all"]
    out = []
    for reading in READINGS:
        for greedy in sorted({r["greedy"] for r in rows if r["algorithm"] == "greedy"}, key=_greedy_rank):
            pairs = [
                (qlse_of[(reading, g["case"])], g)
                for g in rows
                if g["algorithm"] == "greedy" and g["reading"] == reading and g["greedy"] == greedy
            ]
            for b in bins:
                mine = [(q, g) for q, g in pairs if b == "all" or _bin(q["tasks"]) == b]
                if not mine:
                    continue
                both = [(q, g) for q, g in mine if not q["failed"] and not g["failed"]]

                def mean(values: list[float], scale: float = 1.0) -> float | None:
                    return scale * float(np.mean(values)) if values else None

                out.append(
                    {
                        "reading": reading,
                        "greedy_reading": greedy,
                        "bandwidth": mine[0][0]["bandwidth"],
                        "tasks": b,
                        "cases": len(mine),
                        "qlse_failure_pct": mean([q["failed"] for q, _ in mine], 100.0),
                        "greedy_failure_pct": mean([g["failed"] for _, g in mine], 100.0),
                        "both_mapped": len(both),
                        "qlse_lan_hit_ratio_pct": mean([q["lan_hit_ratio"] for q, _ in both], 100.0),
                        "greedy_lan_hit_ratio_pct": mean([g["lan_hit_ratio"] for _, g in both], 100.0),
                        "qlse_task_machine_ratio": mean([q["task_machine_ratio"] for q, _ in both]),
                        "greedy_task_machine_ratio": mean([g["task_machine_ratio"] for _, g in both]),
                        "qlse_mean_lans_used": mean([q["lans_used"] for q, _ in both]),
                        "greedy_mean_lans_used": mean([g["lans_used"] for _, g in both]),
                        "greedy_at_most_2_lans_pct": mean([g["lans_used"] <= 2 for _, g in both], 100.0),
                        **{f"paper_{k}": v for k, v in PAPER.items()},
                    }
                )
    return out


def _greedy_rank(name: str) -> int:
    from ..grid.qlse import GREEDY_READINGS

    return GREEDY_READINGS.index(name) if name in GREEDY_READINGS else len(GREEDY_READINGS)


def _readings_report(table: list[dict[str, Any]]) -> str:
    """The report's "Readings" section: the paper's figures under each reading, next to the paper's."""
    if not table:
        return ""
    lines = [
        f"## Readings (issue 33), bandwidth model: {table[0]['bandwidth']}",
        "",
        "Each reading of `READINGS` (QLSE's options and the instance generator's) with both greedy readings "
        "(`checked`: best fit, every placement checked; `validated-after`: MCRs first on the most powerful host, "
        "the mapping validated after). Failures over every case; ratios and LANs over the cases both mapped.",
        "",
        "| reading | greedy | QLSE failures % | greedy failures % | both mapped | QLSE LAN hit % | greedy LAN hit % "
        "| QLSE task-machine | greedy task-machine | greedy ≤ 2 LANs % | Fig. 5 bins with greedy > QLSE |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    keys = list(dict.fromkeys((t["reading"], t["greedy_reading"]) for t in table))
    for reading, greedy in keys:
        mine = {t["tasks"]: t for t in table if (t["reading"], t["greedy_reading"]) == (reading, greedy)}
        a = mine["all"]
        binned = [t for b, t in mine.items() if b != "all" and t["greedy_task_machine_ratio"] is not None]
        above = sum(t["greedy_task_machine_ratio"] > t["qlse_task_machine_ratio"] for t in binned)
        lines.append(
            f"| {reading} | {greedy} | {cell(a['qlse_failure_pct'], 1)} | {cell(a['greedy_failure_pct'], 1)} "
            f"| {a['both_mapped']} | {cell(a['qlse_lan_hit_ratio_pct'])} | {cell(a['greedy_lan_hit_ratio_pct'])} "
            f"| {cell(a['qlse_task_machine_ratio'])} | {cell(a['greedy_task_machine_ratio'])} "
            f"| {cell(a['greedy_at_most_2_lans_pct'], 1)} | {above} of {len(binned)} |"
        )
    lines.append(
        f"| paper | | {PAPER['qlse_failure_pct']} | {PAPER['greedy_failure_pct']} | | "
        f"{PAPER['lan_hit_ratio_pct']} | | {PAPER['task_machine_ratio']} | | {PAPER['greedy_lans_used']} | all |"
    )
    bins = [f"{lo}-{hi}" for lo, hi in TASK_BINS]
    lines += [
        "",
        "Failures % by tasks per TIG (QLSE / greedy), so that greedy's growth shows:",
        "",
        "| reading | greedy | " + " | ".join(bins) + " |",
        "|---|---|" + "---:|" * len(bins),
    ]
    for reading, greedy in keys:
        mine = {t["tasks"]: t for t in table if (t["reading"], t["greedy_reading"]) == (reading, greedy)}
        cells = [
            f"{cell(mine[b]['qlse_failure_pct'], 1)} / {cell(mine[b]['greedy_failure_pct'], 1)}" if b in mine else "—"
            for b in bins
        ]
        lines.append(f"| {reading} | {greedy} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "Task-machine ratio by tasks per TIG (QLSE / greedy, over the cases both mapped; Fig. 5's order is "
        "greedy above QLSE):",
        "",
        "| reading | greedy | " + " | ".join(bins) + " |",
        "|---|---|" + "---:|" * len(bins),
    ]
    for reading, greedy in keys:
        mine = {t["tasks"]: t for t in table if (t["reading"], t["greedy_reading"]) == (reading, greedy)}
        cells = [
            f"{cell(mine[b]['qlse_task_machine_ratio'])} / {cell(mine[b]['greedy_task_machine_ratio'])}"
            if b in mine
            else "—"
            for b in bins
        ]
        lines.append(f"| {reading} | {greedy} | " + " | ".join(cells) + " |")
    return "\n".join(["", *lines]) + "\n"


def _report(rows: list[dict[str, Any]], table: list[dict[str, Any]]) -> str:
    """report.md: per bandwidth model, failures, LAN hit ratio and task-machine ratio by tasks per TIG."""
    ok = [r for r in rows if r["status"] == "ok"]
    errors = [r for r in rows if r["status"] != "ok"]
    cases = {(r["bandwidth"], r["case"]) for r in ok}
    lines = [
        "# QLSE study (Baraglia et al., §5): results",
        "",
        f"{len({c for _, c in cases})} cases, {len(ok)} runs, {len(errors)} scenarios failed with an error.",
        "Failure %: over all cases.  LAN hit ratio and task-machine ratio: over the cases both algorithms "
        "mapped (as §5 does).",
        "",
    ]
    for model in ("shared", "dedicated"):
        mine = [t for t in table if t["bandwidth"] == model]
        if not mine:
            continue
        lines += [
            f"## Bandwidth model: {model}",
            "",
            "| tasks | cases | QLSE failures % | greedy failures % | both mapped | QLSE LAN hit % | greedy LAN hit % "
            "| QLSE task-machine | greedy task-machine | QLSE LANs used | greedy LANs used |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        by = {(t["algorithm"], t["tasks"]): t for t in mine}
        for b in [f"{lo}-{hi}" for lo, hi in TASK_BINS] + ["all"]:
            q, g = by.get(("QLSE", b)), by.get(("greedy", b))
            if q is None or g is None:
                continue
            lines.append(
                f"| {b} | {q['cases']} | {cell(q['failure_pct'], 1)} | {cell(g['failure_pct'], 1)} "
                f"| {q['both_mapped']} "
                f"| {cell(q['lan_hit_ratio_pct'])} | {cell(g['lan_hit_ratio_pct'])} | {cell(q['task_machine_ratio'])} "
                f"| {cell(g['task_machine_ratio'])} | {cell(q['mean_lans_used'])} | {cell(g['mean_lans_used'])} |"
            )
        lines.append("")
    if errors:
        lines += ["## Scenarios that failed with an error", ""]
        lines += [f"* combination {r['combination']} ({r['bandwidth']}): {r['error']}" for r in errors]
    return "\n".join(lines) + "\n"


def _figures(rows: list[dict[str, Any]], out: Path) -> None:
    """Figs. 3-5 into ``out`` (see :func:`plot_figures`)."""
    plot_figures(rows, out)


#: The algorithms' styles in Figs. 3-5: different markers, fills and lines, so that equal values stay apparent.
_STYLES = {
    "QLSE": {"color": "tab:blue", "marker": "o", "linestyle": "-", "markersize": 4, "linewidth": 1.2},
    "greedy": {
        "color": "tab:orange",
        "marker": "s",
        "linestyle": "--",
        "markersize": 7,
        "linewidth": 1.2,
        "markerfacecolor": "none",
        "markeredgewidth": 1.2,
    },
}


def plot_figures(rows: list[dict[str, Any]], out: str | os.PathLike[str] | None = None) -> list[Any]:
    """Figs. 3-5 from the rows of ``results.csv``: a measure vs tasks per TIG, QLSE vs greedy, a panel per model.

    The panels of a figure share both axes; a panel with no case to average
    says so.  Returns the three figures, saved into ``out`` (as
    :data:`FIGURES`) when given.
    """
    from ..plot import figure

    ok = [r for r in rows if r["status"] == "ok"]
    both = _both_found(ok)
    models = [m for m in ("shared", "dedicated") if any(r["bandwidth"] == m for r in ok)] or ["shared"]
    measures = (
        (
            "failed",
            "scheduling failures (% of cases)",
            False,
            100.0,
            "Fig. 3: average percentage of scheduling failures",
        ),
        (
            "lan_hit_ratio",
            "LAN hit ratio (%)",
            True,
            100.0,
            "Fig. 4: average LAN hit ratio (cases both algorithms mapped)",
        ),
        (
            "task_machine_ratio",
            "task-machine computational ratio",
            True,
            1.0,
            "Fig. 5: average task-machine computational ratio (cases both algorithms mapped)",
        ),
    )
    figures = []
    for (field, label, only_both, scale, title), name in zip(measures, FIGURES):
        fig, axes = figure(
            1, len(models), figsize=(5.5 * len(models) + 1.5, 4.2), squeeze=False, sharex=True, sharey=True
        )
        for ax, model in zip(axes[0], models):
            for algorithm_name in ALGORITHMS:
                per_n: dict[int, list[float]] = defaultdict(list)
                for r in ok:
                    if r["bandwidth"] != model or r["algorithm"] != algorithm_name:
                        continue
                    if only_both and (model, r["case"]) not in both:
                        continue
                    per_n[r["tasks"]].append(float(r[field]))
                ns = sorted(per_n)
                if ns:
                    ax.plot(
                        ns,
                        [scale * np.mean(per_n[n]) for n in ns],
                        label=algorithm_name,
                        **_STYLES.get(algorithm_name, {}),
                    )
            if not ax.lines:
                ax.text(
                    0.5,
                    0.5,
                    "no case both algorithms mapped" if only_both else "no case",
                    transform=ax.transAxes,
                    ha="center",
                    va="center",
                    color="0.35",
                )
            ax.set_xlabel("tasks per TIG")
            ax.set_title(f"bandwidth model: {model}", fontsize=10)
            ax.grid(linewidth=0.3)
        axes[0][0].set_ylabel(label)
        if scale == 100.0:
            axes[0][0].set_ylim(-4, 104)
        handles: dict[str, Any] = {}
        for ax in axes[0]:
            for h, lab in zip(*ax.get_legend_handles_labels()):
                handles.setdefault(lab, h)
        if handles:
            fig.legend(list(handles.values()), list(handles), loc="outside right upper", fontsize=8)
        fig.suptitle(title)
        if out is not None:
            save_figure(fig, Path(out) / name, dpi=130)
        figures.append(fig)
    return figures
