"""The figures of the five reproductions follow the house style, checked on the returned Figure objects:
every series tells itself apart (colour, marker, line style), is named as the command line names it,
labels do not overlap, panels that compare share their ranges, and a zero value is visible."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.text import Text

from clustersched import plot
from clustersched.reproduce import dfrs, dpsa, ptg, qlse, scrap


def _line_styles(ax):
    """(colour, marker, line style) of the labelled lines of ``ax``."""
    from matplotlib.colors import to_hex

    return [
        (to_hex(line.get_color()), line.get_marker(), line.get_linestyle())
        for line in ax.lines
        if not line.get_label().startswith("_")
    ]


def _text_boxes(texts):
    """Window extents of texts (an Annotation's own text, not its leader line)."""
    return [Text.get_window_extent(t) for t in texts]


def _overlapping(boxes):
    return [(i, j) for i in range(len(boxes)) for j in range(i) if boxes[i].overlaps(boxes[j])]


# --- plot.py helpers -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 4, 10, 17, 40])
def test_styles_are_distinct(n):
    s = plot.styles(n)
    assert len({(d["color"], d["marker"], d["linestyle"]) for d in s}) == n
    assert all(a["color"] != b["color"] and a["marker"] != b["marker"] for a, b in zip(s, s[1:]))


@pytest.mark.parametrize("log", [False, True])
def test_pareto_labels_do_not_overlap_on_a_crowded_input(log):
    rng = np.random.default_rng(3)
    points = {f"ALGORITHM_{k}_NAME": (float(rng.uniform(0.9, 1.0)), float(rng.uniform(0.8, 0.85))) for k in range(24)}
    points["A"], points["B"] = (0.95, 0.82), (0.9501, 0.8201)  # two nearly equal points
    fig = plot.pareto(points, reference=(1.0, 1.0), log=log, title="crowded")
    fig.draw_without_rendering()
    ax = fig.axes[0]
    assert sorted(t.get_text() for t in ax.texts) == sorted(points)
    boxes = _text_boxes(ax.texts)
    assert _overlapping(boxes) == []
    frame = ax.bbox
    assert all(frame.x0 <= b.x0 and b.x1 <= frame.x1 and frame.y0 <= b.y0 and b.y1 <= frame.y1 for b in boxes)
    # no label covers a point, nor the legend
    px = ax.transData.transform(np.array(list(points.values())))
    assert not any(b.contains(x, y) for b in boxes for x, y in px)
    legend = ax.get_legend().get_window_extent()
    assert not any(b.overlaps(legend) for b in boxes)


def test_pareto_tells_the_front_in_its_legend():
    fig = plot.pareto({"p": (1.0, 2.0), "q": (2.0, 1.0), "r": (3.0, 3.0)})
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert labels == ["dominated", "non-dominated (Pareto front)"]


def test_grouped_boxplot_legend_names_every_series_once():
    groups = {f"g{g}": {f"s{k}": [1.0, 2.0, 3.0 + k] for k in range(12)} for g in range(3)}
    fig = plot.grouped_boxplot(groups)
    legend = fig.axes[0].get_legend()
    assert [t.get_text() for t in legend.get_texts()] == [f"s{k}" for k in range(12)]
    swatches = [(tuple(p.get_facecolor()), p.get_hatch()) for p in legend.get_patches()]
    assert len(set(swatches)) == 12  # beyond ten colours, a hatch


def test_plain_log_ticks():
    fig, ax = plot.figure(figsize=(4, 3))
    ax.plot([1, 2], [0.6, 1.7])
    ax.set_yscale("log")
    plot.plain_log_ticks(ax.yaxis)
    fig.draw_without_rendering()
    labels = [t.get_text() for t in ax.get_yticklabels(minor=True) + ax.get_yticklabels() if t.get_text()]
    assert labels and all("10^" not in s and "times" not in s for s in labels)


# --- DFRS ----------------------------------------------------------------------------------------------------


def _dfrs_fig1_table(names):
    return [
        {"algorithm": a, "load": x, "degradation_avg": 1.0 + k + x, "runs": 1}
        for k, a in enumerate(names)
        for x in (0.3, 0.9)
    ]


def test_dfrs_fig1_names_and_styles():
    from clustersched.dfrs.algorithms import TABLE2_ALGORITHMS, parse_algorithm

    names = list(dict.fromkeys([*dfrs.FIG1_ALGORITHMS, *TABLE2_ALGORITHMS]))
    assert len(names) >= 17
    fig = dfrs.plot_fig1(_dfrs_fig1_table(names))
    ax = fig.axes[0]
    labels = [line.get_label() for line in ax.lines]
    assert labels[: len(dfrs.FIG1_ALGORITHMS)] == list(dfrs.FIG1_ALGORITHMS) and sorted(labels) == sorted(names)
    for name in labels:  # named as --algorithm takes them
        assert name in ("FCFS", "EASY") or parse_algorithm(name).name == name
    styles = _line_styles(ax)
    assert len(set(styles)) == len(styles)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == labels


def test_dfrs_algorithm_style_is_family_colour_and_variant_marker():
    a, b = dfrs.algorithm_style("Greedy */per/opt=min"), dfrs.algorithm_style("GreedyPM */per/opt=min")
    assert a["color"] != b["color"] and (a["marker"], a["linestyle"]) == (b["marker"], b["linestyle"])
    assert dfrs.algorithm_style("FCFS") != dfrs.algorithm_style("EASY")


def test_dfrs_fig3_panels_share_y_and_show_a_zero_easy_line():
    rows = [
        {
            "trace_set": ts,
            "period": p,
            "underutilization_avg": u * (k + 1),
            "easy_underutilization_avg": 0.0 if ts == "real" else 0.1,
            "runs": 1,
        }
        for k, ts in enumerate(dfrs.TRACE_SETS)
        for p, u in ((600.0, 0.2), (3000.0, 0.1))
    ]
    fig = dfrs.plot_fig3(rows)
    axes = [ax for ax in fig.axes]
    assert len({ax.get_ylim() for ax in axes}) == 1
    assert axes[0].get_ylim()[0] < 0  # a line at 0 stands clear of the frame
    assert any(t.get_text() == "EASY: 0.000" for t in axes[0].texts)
    assert [t.get_text() for t in fig.legends[0].get_texts()] == [dfrs.BEST, "EASY (no period)"]


def test_dfrs_fig4_styles():
    rows = [
        {"trace_set": ts, "period": p, "degradation_avg": 2.0, "runs": 1}
        for ts in dfrs.TRACE_SETS
        for p in (600.0, 3000.0)
    ]
    styles = _line_styles(dfrs.plot_fig4(rows).axes[0])
    assert len(styles) == 3 and len(set(styles)) == 3


# --- DPSA ----------------------------------------------------------------------------------------------------


def _dpsa_rows():
    rows = []
    for t, (name, util) in enumerate([("A", 0.0), ("B", 0.01), ("C", 0.02), ("D", 0.5), ("E", 0.51), ("F", 0.7)]):
        for policy in dpsa.POLICIES:
            change = 0.0 if policy == "easy" or name in "ABC" else (-0.1 * t if policy == "dpsa-n" else 0.05)
            rows.append(
                {
                    "trace": f"TRACE-{name}-2001-1.1",
                    "policy": policy,
                    "change_vs_easy": change,
                    "utilization": util,
                    "status": "ok",
                }
            )
    rows += [
        {"trace": "FAILED", "policy": p, "change_vs_easy": None, "utilization": None, "status": "error"}
        for p in dpsa.POLICIES
    ]
    return rows


def test_dpsa_fig3_names_zero_markers_and_missing_data():
    fig = dpsa.plot_fig3(_dpsa_rows())
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["dpsa-p", "dpsa-n", "dpsa-w"]
    # every zero bar (3 traces x 3 variants, and dpsa-p/dpsa-w are never 0 elsewhere) has a marker on the 0 line
    zero_points = [
        xy for line in ax.lines if line.get_marker() not in ("None", None, "") for xy in np.asarray(line.get_xydata())
    ]
    assert len(zero_points) == 9 and all(y == 0 for _, y in zero_points)
    assert len({line.get_marker() for line in ax.lines if line.get_linestyle() == "None"}) == 3
    assert any(t.get_text() == "no data" for t in ax.texts)


def test_dpsa_fig4_labels_do_not_overlap():
    fig = dpsa.plot_fig4(_dpsa_rows())
    fig.draw_without_rendering()
    ax = fig.axes[0]
    assert len(ax.texts) == 6
    assert _overlapping(_text_boxes(ax.texts)) == []
    assert ax.get_ylabel() == "dpsa-n gain over easy (%)"


# --- QLSE ----------------------------------------------------------------------------------------------------


def _qlse_rows():
    rows = []
    for model in ("shared", "dedicated"):
        for case, tasks in enumerate((8, 20, 40, 60)):
            for algorithm in qlse.ALGORITHMS:
                failed = model == "shared" and algorithm == "greedy"  # shared: no case both mapped
                rows.append(
                    {
                        "status": "ok",
                        "bandwidth": model,
                        "case": case,
                        "algorithm": algorithm,
                        "tasks": tasks,
                        "failed": failed,
                        "lan_hit_ratio": 0.5 + 0.1 * case,
                        "task_machine_ratio": 2.0 + case,
                    }
                )
    return rows


def test_qlse_panels_share_axes_and_say_when_empty():
    figs = qlse.plot_figures(_qlse_rows())
    assert len(figs) == 3
    for fig in figs:
        axes = fig.axes
        assert len(axes) == 2
        assert axes[0].get_ylim() == axes[1].get_ylim() and axes[0].get_xlim() == axes[1].get_xlim()
        for ax in axes:
            styles = _line_styles(ax)
            assert len(set(styles)) == len(styles)
        assert [t.get_text() for t in fig.legends[0].get_texts()] == list(qlse.ALGORITHMS)
    assert figs[0].axes[0].get_ylim() == (-4, 104)
    assert [t.get_text() for t in figs[1].axes[0].texts] == ["no case both algorithms mapped"]


# --- SCRAP ---------------------------------------------------------------------------------------------------


def _scrap_cols():
    rng = np.random.default_rng(0)
    algorithm, beta = np.meshgrid(np.arange(len(scrap.ALGORITHMS)), np.repeat(scrap.BETAS, 5), indexing="ij")
    algorithm, beta = algorithm.ravel(), beta.ravel()
    n = algorithm.size
    return {
        "algorithm": algorithm,
        "beta": beta,
        "violation": rng.random(n) < 0.2,
        "initial_violation": (rng.random(n) < 0.1).astype(int),
        "slowdown": rng.uniform(0.7, 1.1, n),
        "slowdown_vs_hcpa": rng.uniform(0.8, 1.3, n),
    }


def test_scrap_figures():
    figs = scrap.plot_figures(_scrap_cols())
    assert len(figs) == 4
    for fig in figs:
        assert len(fig.axes) == 1  # no right axis without a series
        ax = fig.axes[0]
        styles = _line_styles(ax)
        assert len(set(styles)) == len(styles)
        for name in (line.get_label() for line in ax.lines if not line.get_label().startswith("_")):
            assert name.split(" (")[0] in scrap.ALGORITHMS
    assert figs[2].axes[0].get_ylim() == figs[3].axes[0].get_ylim()


# --- PTG -----------------------------------------------------------------------------------------------------


def test_ptg_figures():
    rng = np.random.default_rng(1)
    algorithms = list(ptg.PAPER_ALGORITHMS)
    rows = [
        {
            "population": pop,
            "n_ptgs": n,
            "cluster": "c",
            "set": s,
            "seed": 0,
            "algorithm": a,
            "average_stretch": float(rng.uniform(1, 3)),
            "makespan": float(rng.uniform(100, 1000)),
            "max_stretch": float(rng.uniform(1, 10)),
        }
        for pop in ptg.FIGURE_POPULATIONS
        for n in (2, 4)
        for s in range(2)
        for a in algorithms
    ]
    figs = ptg.plot_figures(rows, algorithms)
    assert len(figs) == len(ptg.FIGURES)
    for fig in figs[3:6]:  # Pareto plots
        fig.draw_without_rendering()
        ax = fig.axes[0]
        assert set(t.get_text() for t in ax.texts) <= set(algorithms)
        assert _overlapping(_text_boxes(ax.texts)) == []
    fig8 = figs[6].axes[0]
    styles = _line_styles(fig8)
    assert len(styles) == len([a for a in ptg.FIG8_ALGORITHMS if a in algorithms]) == len(set(styles))
    for fig in figs:  # titles fit the figure
        fig.draw_without_rendering()
        for ax in fig.axes:
            title = ax.title.get_window_extent()
            assert title.x0 >= 0 and title.x1 <= fig.bbox.x1
