"""The Figure class of the library's plots: a matplotlib Figure that shows itself in IPython and Jupyter.

Its own module so that :mod:`clustersched.plot` imports matplotlib only when a
picture is drawn, and so that the class is importable by name (figures pickle).
"""

from __future__ import annotations

from io import BytesIO

from matplotlib.figure import Figure

__all__ = ["PlotFigure"]


class PlotFigure(Figure):
    """A :class:`matplotlib.figure.Figure` that renders itself as PNG in IPython, whatever the backend.

    A Figure made without pyplot is shown by IPython as an image only once the
    inline backend has been activated (by importing pyplot or by
    ``%matplotlib inline``); otherwise a notebook cell ending in it prints
    ``<Figure size ...>``.  ``_repr_png_`` makes the cell show the picture in
    every case.  Where the inline backend is active, IPython's own formatter
    for Figures takes precedence, so the picture is shown once either way.
    """

    def _repr_png_(self) -> bytes:
        buffer = BytesIO()
        self.savefig(buffer, format="png", bbox_inches="tight")
        return buffer.getvalue()
