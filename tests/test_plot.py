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
        bare = Schedule(job_id=s.job_id, submit=s.submit, start=s.start, end=s.end, procs=s.procs,
                        total_procs=s.total_procs, policy=s.policy)
        plot.gantt(bare)
