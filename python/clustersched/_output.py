"""Output files that appear whole or not at all.

A table or a trace written straight to its name is left truncated when the
disk fills up, the file reaches the process's size limit (``RLIMIT_FSIZE``)
or the run is interrupted, and whoever reads it next takes half a table for a
result.  :func:`atomic_open` writes beside the file and renames the finished
file onto its name (``os.replace``: atomic on POSIX and Windows), so the name
holds either the old file or the whole new one; and an error of the disk
names the file it was writing (a failed ``write`` of Python's own says only
"No space left on device").
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from typing import IO, Any

__all__ = ["atomic_open", "save_figure", "write_text"]


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike[str], mode: str = "w", **kwargs: Any) -> Iterator[IO[Any]]:
    """``open(path, mode, **kwargs)`` for writing, with the file renamed onto ``path`` only once it is whole.

    The data go to ``path + ".part"`` in the same folder; when the block ends
    without an exception, that file is closed (its last buffer written) and
    renamed onto ``path``.  On any exception (a full disk, ``KeyboardInterrupt``)
    the partial file is removed, ``path`` is left as it was, and an ``OSError``
    names ``path`` in its ``filename``.  A ``path`` that exists and is not a
    regular file (``/dev/stdout``, ``/dev/null``, a named pipe) cannot be
    replaced and is written directly; a symbolic link is followed, so its
    target is replaced, not the link.

    Parameters
    ----------
    path : str or path-like
    mode : str
        ``"w"``, ``"wb"``, ``"wt"`` (``"x"`` and ``"a"`` are refused: they are about the file already there).
    **kwargs
        Passed to :func:`open` (``newline``, ``encoding``).

    Examples
    --------
    >>> from pathlib import Path
    >>> from clustersched._output import atomic_open
    >>> with atomic_open("table.csv", newline="") as fh:
    ...     _ = fh.write("a,b\\n1,2\\n")
    >>> Path("table.csv").read_text()
    'a,b\\n1,2\\n'
    """
    if mode.replace("t", "").replace("b", "") != "w":
        raise ValueError(f"mode == {mode!r}, must be 'w', 'wt' or 'wb'")
    name = os.fspath(path)
    target = os.path.realpath(name) if os.path.islink(name) else name
    try:
        special = not stat.S_ISREG(os.stat(target).st_mode)
    except OSError:
        special = False  # missing (or unreadable: then opening says why)
    if special:
        with _naming(name, target):
            with open(target, mode, **kwargs) as fh:
                yield fh
        return
    part = target + ".part"
    try:
        with _naming(name, part):
            fh = open(part, mode, **kwargs)
            try:
                yield fh
            except BaseException:
                with contextlib.suppress(OSError):
                    fh.close()
                raise
            fh.close()  # writes the last buffer: where a full disk often shows
            with contextlib.suppress(OSError):
                os.chmod(part, stat.S_IMODE(os.stat(target).st_mode))  # an existing file keeps its permissions
            os.replace(part, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(part)
        raise


def save_figure(figure: Any, path: str | os.PathLike[str], **kwargs: Any) -> None:
    """``figure.savefig(path, **kwargs)`` through :func:`atomic_open`: the image whole or not at all.

    The format is the name's suffix (``.png``, ``.pdf``, ``.svg``), as
    ``savefig`` reads it from a name, unless ``format`` is given.

    Examples
    --------
    >>> from pathlib import Path
    >>> from matplotlib.figure import Figure
    >>> from clustersched._output import save_figure
    >>> save_figure(Figure(figsize=(2, 1)), "empty.png", dpi=50)
    >>> Path("empty.png").read_bytes()[:4]
    b'\\x89PNG'
    """
    kwargs.setdefault("format", os.path.splitext(os.fspath(path))[1].lstrip(".").lower() or None)
    with atomic_open(path, "wb") as fh:
        figure.savefig(fh, **kwargs)


def write_text(path: str | os.PathLike[str], text: str) -> None:
    """``Path(path).write_text(text)`` (UTF-8) through :func:`atomic_open`: the text whole or not at all.

    Examples
    --------
    >>> from pathlib import Path
    >>> from clustersched._output import write_text
    >>> write_text("report.md", "# Report\\n")
    >>> Path("report.md").read_text()
    '# Report\\n'
    """
    with atomic_open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


@contextlib.contextmanager
def _naming(path: str, written: str) -> Iterator[None]:
    """An OSError of the block that names no file, or the file ``written`` in place of ``path``, names ``path``."""
    try:
        yield
    except OSError as exc:
        if exc.filename is None or exc.filename == written:
            exc.filename = path
            exc.filename2 = None
        raise
