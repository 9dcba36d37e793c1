"""Library plots draw on a Figure of their own (or the Axes given) and return it: they never
change matplotlib's backend, pyplot's figures, or any other global state, so they display
inline in a notebook and compose."""

from __future__ import annotations

import subprocess
import sys

import pytest

import clustersched as cs
from clustersched import plot


def _draw_all(ax=None):
    result = cs.simulate(cs.read_swf(cs.sample_trace()).select(slice(0, 200)), "easy")
    return [
        plot.gantt(result.schedule, ax=ax),
        plot.grouped_boxplot({"a": {"x": [1.0, 2.0, 3.0], "y": [2.0, 3.0]}, "b": {"x": [1.5]}}, ax=ax),
        plot.pareto({"p": (1.0, 2.0), "q": (2.0, 1.0), "r": (3.0, 3.0)}, reference=(1.0, 1.0), ax=ax),
    ]


def test_plots_leave_backend_and_pyplot_alone():
    # In a fresh interpreter whose user chose a backend (as a notebook does with inline): after
    # drawing, the backend is the user's and pyplot holds no figure of ours.
    code = (
        "import sys, matplotlib\n"
        "matplotlib.use('svg')\n"
        "sys.path.insert(0, 'tests')\n"
        "from test_plot import _draw_all\n"
        "figs = _draw_all()\n"
        "import matplotlib.pyplot as plt\n"
        "assert matplotlib.get_backend() == 'svg', matplotlib.get_backend()\n"
        "assert plt.get_fignums() == [], plt.get_fignums()\n"
        "from matplotlib.figure import Figure\n"
        "print(isinstance(figs[0], Figure), len(figs[0].axes))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["True", "1"]


def test_a_figure_renders_itself_as_png():
    # A notebook shows a returned Figure as a picture only if it can render itself: IPython's
    # own Figure formatter exists only once the inline backend is active (pyplot used in the
    # kernel, or %matplotlib inline), which the library never arranges.  tests/test_examples.py
    # checks the same in real notebook kernels.
    code = (
        "import sys\n"
        "sys.path.insert(0, 'tests')\n"
        "from test_plot import _draw_all\n"
        "pngs = [fig._repr_png_() for fig in _draw_all()]\n"
        "print(*[png[:4] == b'\\x89PNG' and len(png) > 1000 for png in pngs])\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["True", "True", "True"]


def test_plots_draw_on_the_axes_given_and_return_its_figure():
    from matplotlib.figure import Figure

    fig = Figure()
    ax = fig.subplots()
    for drawn in _draw_all(ax=ax):
        assert drawn is fig
    assert len(fig.axes) == 1 and len(ax.collections) > 0


def test_a_figure_saves_without_pyplot(tmp_path):
    figs = _draw_all()
    for k, fig in enumerate(figs):
        fig.savefig(tmp_path / f"{k}.png")
        assert (tmp_path / f"{k}.png").stat().st_size > 1000


def test_gantt_needs_processor_ids():
    from clustersched.batch.schedule import Schedule

    with pytest.raises(ValueError, match="processor ids"):
        result = cs.simulate(cs.read_swf(cs.sample_trace()).select(slice(0, 20)), "fcfs")
        s = result.schedule
        bare = Schedule(
            job_id=s.job_id,
            submit=s.submit,
            start=s.start,
            end=s.end,
            procs=s.procs,
            total_procs=s.total_procs,
            algorithm=s.algorithm,
        )
        plot.gantt(bare)


# --- timeseries: a whole trace reads as a curve ----------------------------------------------------------------


def _long_series(n=20_000, seed=0):
    """A BatchTimeSeries of ``n`` jobs over a year, far more breakpoints than a figure has pixels."""
    import numpy as np

    from clustersched.batch import Schedule, batch_timeseries

    rng = np.random.default_rng(seed)
    submit = np.sort(rng.uniform(0, 365 * 86400.0, n))
    start = submit + rng.exponential(3600.0, n)
    end = start + rng.exponential(7200.0, n)
    return batch_timeseries(
        Schedule(job_id=np.arange(n), submit=submit, start=start, end=end, procs=rng.integers(1, 9, n), total_procs=64)
    )


def test_timeseries_resamples_a_long_series_by_default():
    # Before: every one of the ~60,000 breakpoints was a step of the line, a solid block on the figure.
    ts = _long_series()
    fig = plot.timeseries(ts)
    ax = fig.axes[0]
    width_in = ax.get_position().width * fig.get_figwidth()
    line = ax.lines[0]
    assert len(line.get_xdata()) <= plot.RESAMPLE_BINS_PER_INCH * width_in + 2 < len(ts) / 10
    assert fig.axes[-1].get_xlabel() == "time since the trace start (d); mean per 2-d bin, band: min to max"
    assert len(ax.collections) == 1  # the min-max band under the mean
    exact = plot.timeseries(ts, resample=None)
    assert len(exact.axes[0].lines[0].get_xdata()) == len(ts) + 1
    assert exact.axes[-1].get_xlabel() == "time since the trace start (d)"


def test_timeseries_draws_a_short_series_exactly():
    ts = _long_series(n=50)
    fig = plot.timeseries(ts)
    assert len(fig.axes[0].lines[0].get_xdata()) == len(ts) + 1
    assert "bin" not in fig.axes[-1].get_xlabel()


def test_timeseries_resample_seconds_are_time_averages_with_min_max_bands():
    import numpy as np

    from clustersched._timeseries import binned

    ts = _long_series(n=2000)
    fig = plot.timeseries(ts, panels=["utilization"], resample=86400.0)
    line, band = fig.axes[0].lines[0], fig.axes[0].collections[0]
    y = np.asarray(line.get_ydata())[:-1]
    daily = ts.resample(86400.0).utilization[:-1]  # the series' own resampling, from its first breakpoint
    np.testing.assert_allclose(y[:-1], daily[: len(y) - 1], rtol=1e-12, atol=1e-12)
    edges = np.r_[ts.time[0] + 86400.0 * np.arange(len(y)), ts.time[-1]]
    mean, low, high = binned(ts.time, ts.utilization, edges)
    assert np.all(low <= mean + 1e-12) and np.all(mean <= high + 1e-12)
    verts = band.get_paths()[0].vertices
    assert verts[:, 1].max() == high.max() and verts[:, 1].min() == low.min()
    assert fig.axes[0].get_xlabel() == "time since the trace start (d); mean per 1-d bin, band: min to max"


@pytest.mark.parametrize(
    "bad, message",
    [
        ("fast", "resample == 'fast', must be 'auto', None"),
        (0.0, "resample"),
        (-5.0, "resample"),
        (1e-3, "at most 10\\*\\*6 bins"),
    ],
)
def test_timeseries_rejects_a_bad_resample(bad, message):
    with pytest.raises(ValueError, match=message):
        plot.timeseries(_long_series(n=200), resample=bad)


def test_resample_width_is_round():
    assert plot.resample_width(365 * 86400.0, 300) == 2 * 86400.0
    assert plot.resample_width(3600.0, 300) == 15.0
    assert plot.resample_width(50 * 365 * 86400.0, 300) == 28 * 86400.0 * 3


@pytest.mark.parametrize("seed", range(5))
def test_binned_matches_a_dense_sampling(seed):
    # the mean, minimum and maximum of a step function over each bin, against the function sampled finely
    import numpy as np

    from clustersched._timeseries import binned

    rng = np.random.default_rng(seed)
    t = np.unique(rng.integers(0, 1000, 40)).astype(float)
    v = rng.integers(0, 9, len(t)).astype(float)
    edges = np.unique(np.r_[rng.integers(-50, 1100, 12), -50, 1100]).astype(float)
    mean, low, high = binned(t, v, edges)
    for k in range(len(edges) - 1):
        x = np.arange(edges[k], edges[k + 1]) + 0.5  # integer breakpoints: unit steps sample exactly
        i = np.searchsorted(t, x, side="right") - 1
        y = np.where(i >= 0, v[np.maximum(i, 0)], 0.0)
        assert mean[k] == pytest.approx(y.mean())
        assert (low[k], high[k]) == (y.min(), y.max())


def test_gantt_boxes_are_in_the_units_of_its_axis():
    # Notebook 1 once set ticks in the trace's seconds on an axis that counts hours since the trace start, and
    # its charts were blank: the window is given in seconds, the axis and the boxes are in its unit.
    import numpy as np

    run = cs.simulate(cs.read_swf(cs.sample_trace()), "easy")
    t0 = float(run.schedule.submit.min()) + 2 * 86400.0
    fig = plot.gantt(run.schedule, window=(t0, t0 + 86400.0))
    ax = fig.axes[0]
    assert ax.get_xlabel() == "time since the trace start (h)" and ax.get_xlim() == (48.0, 72.0)
    x = np.concatenate([p.vertices[:, 0] for p in ax.collections[0].get_paths()])
    assert x.min() < 72.0 and x.max() > 48.0 and np.mean((x > 48.0) & (x < 72.0)) > 0.5
