"""Independent feasibility checks of a task-to-host mapping on a grid of LANs.

The checker looks only at the mapping, the TIG and the grid; it shares no
code with the algorithms (not even their allocation conditions), so a bug in
QLSE's or the baseline's bookkeeping shows up here.

One rounding rule
-----------------
Producer and checker decide "fits" the same way: requirements (the MCRs on a
host, the MBRs inside a LAN or across a link) fit a capacity when their sum,
computed **exactly and rounded once** (:func:`math.fsum`), is at most
``capacity * (1 + RTOL)``, with :data:`RTOL` = 1e-9.  An exact sum does not
depend on the order of its terms, so the Rust allocation conditions (which add
requirements one placement at a time, ``rust/core/src/grid/alloc.rs``,
``fits``) and this validator (which adds them task by task) reach the same
verdict on every mapping, bit for bit; the relative tolerance lets ``0.1 +
0.2`` fit in ``0.3``.  Under the ``"dedicated"`` bandwidth model each MBR is
checked on its own (their maximum, which is exact).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._checks import short_repr
from ..errors import InvalidScheduleError
from .mapping import Mapping, NoFeasibleMapping, check_bandwidth
from .model import TIG, LanGrid, check_pair

__all__ = ["RTOL", "check_mapping", "mapping_violations", "validate_mapping"]

#: Relative tolerance of the capacity rule (see the module docstring); the same
#: value as the Rust core's (``clustersched._core.GRID_RTOL``).
RTOL = 1e-9

# At most this many messages per kind of violation.
_MAX_PER_KIND = 20


def _malformed(mapping: Any, tig: TIG, grid: LanGrid) -> tuple[np.ndarray | None, list[str]]:
    """The mapping's host per task, or None and why it is not a mapping of ``tig`` onto ``grid``.

    TypeError when ``mapping`` is neither a Mapping nor a sequence of host indices.
    """
    if isinstance(mapping, Mapping):
        raw = mapping.host
    elif mapping is None or isinstance(mapping, (str, bytes, dict, set)) or not hasattr(mapping, "__len__"):
        raise TypeError(
            f"mapping == {short_repr(mapping)}, must be a clustersched.grid.Mapping or a sequence of "
            "one host index per task"
        )
    else:
        raw = mapping
    try:
        host = np.asarray(raw)
    except (TypeError, ValueError):  # ragged nested sequences
        return None, [f"the mapping {short_repr(raw)} is not one host index per task"]
    if host.ndim != 1 or len(host) != len(tig):
        return None, [f"the mapping has {host.size} hosts for {len(tig)} tasks"]
    if not np.issubdtype(host.dtype, np.integer):
        return None, [f"host indices must be integers, not {host.dtype}"]
    host = host.astype(np.int64)
    out = []
    for t in np.flatnonzero((host < 0) | (host >= grid.num_hosts))[:_MAX_PER_KIND]:
        out.append(f"task {tig.labels[t]!r} is on host {host[t]}, the grid has hosts 0..{grid.num_hosts - 1}")
    if out:
        return None, out
    if isinstance(mapping, Mapping):
        lan = np.asarray(mapping.lan)
        if lan.shape != host.shape or not np.issubdtype(lan.dtype, np.integer):
            return None, [f"the mapping has {lan.size} LANs ({lan.dtype}) for {len(tig)} tasks"]
        true_lan = grid.host_lan[host]
        for t in np.flatnonzero(lan != true_lan)[:_MAX_PER_KIND]:
            said = grid.labels[lan[t]] if 0 <= lan[t] < grid.num_lans else int(lan[t])
            out.append(
                f"task {tig.labels[t]!r} is on host {grid.host_name(int(host[t]))!r} of LAN "
                f"{grid.labels[true_lan[t]]!r}, but the mapping says LAN {said!r}"
            )
        if out:
            return None, out
    return host, []


def check_mapping(mapping: Any, tig: TIG, grid: LanGrid) -> np.ndarray:
    """The host of each task of a mapping of ``tig`` onto ``grid`` (read-only int64), whatever it violates.

    For the metrics: TypeError for arguments of the wrong type, ValueError
    (naming the problem) for a :class:`NoFeasibleMapping` or a mapping that is
    not one of ``tig`` onto ``grid`` (wrong length, hosts the grid does not
    have, LANs that disagree with the hosts: a mapping of another instance).
    """
    check_pair(tig, grid)
    if isinstance(mapping, NoFeasibleMapping):
        raise ValueError(f"mapping == {mapping!r}: {mapping.algorithm} found no mapping, it has no measures")
    host, problems = _malformed(mapping, tig, grid)
    if host is None:
        raise ValueError(f"mapping is not a mapping of this TIG onto this grid: {problems[0]}")
    host.setflags(write=False)
    return host


def _exact_sums(keys: np.ndarray, values: np.ndarray, size: int, capacity: np.ndarray) -> np.ndarray:
    """Per key in ``0..size-1``, the sum of its values; exact (math.fsum) wherever it is near or above ``capacity``.

    A plain sum of ``k`` non-negative values is within ``k`` ulps (relative) of the exact one, far
    less than the margin of 1e-6 used here, so a plain sum below ``capacity * (1 - 1e-6)`` is a
    fitting sum whatever its last bits; the others are recomputed exactly, so the verdict (and the
    value a message shows) is that of the exact sum.
    """
    out = np.zeros(size)
    if not keys.size:
        return out
    np.add.at(out, keys, values)
    near = np.flatnonzero(out > capacity * (1 + RTOL) * (1 - 1e-6))
    if near.size:
        order = np.argsort(keys, kind="stable")
        k = keys[order]
        v = values[order].tolist()
        starts = np.searchsorted(k, near, side="left").tolist()
        ends = np.searchsorted(k, near, side="right").tolist()
        for key, s, e in zip(near.tolist(), starts, ends):
            out[key] = math.fsum(v[s:e])
    return out


def _use(keys: np.ndarray, values: np.ndarray, size: int, model: str, capacity: np.ndarray) -> np.ndarray:
    """What the requirements ``values`` use of each resource: their exact sum (shared) or their maximum (dedicated)."""
    if model == "shared":
        return _exact_sums(keys, values, size, capacity)
    out = np.zeros(size)
    np.maximum.at(out, keys, values)
    return out


def validate_mapping(mapping: Any, tig: TIG, grid: LanGrid, *, bandwidth: str | None = None) -> None:
    """Raises :class:`InvalidScheduleError` listing every violation, or returns None.

    ``mapping`` is a :class:`~clustersched.grid.Mapping` or an array of one
    host per task.  See :func:`mapping_violations` for the rules and ``bandwidth``.

    Examples
    --------
    >>> tig = TIG.from_arrays([300.0, 300.0], [(0, 1)], [20.0])
    >>> grid = LanGrid.from_arrays([[500.0, 400.0], [800.0]], [50.0, 50.0], [], [])
    >>> validate_mapping([0, 1], tig, grid)
    >>> validate_mapping([0, 2], tig, grid)
    Traceback (most recent call last):
    ...
    clustersched.errors.InvalidScheduleError: 1 violation(s):
      tasks 0 and 1 communicate (MBR 20.0) between LANs 0 and 1, which have no direct link
    """
    violations = mapping_violations(mapping, tig, grid, bandwidth=bandwidth)
    if violations:
        raise InvalidScheduleError(violations)


def mapping_violations(mapping: Any, tig: TIG, grid: LanGrid, *, bandwidth: str | None = None) -> list[str]:
    """Every way ``mapping`` breaks the QoS constraints of mapping ``tig`` onto ``grid``.

    Rules (§3, §4.4):

    * one host per task, an index of a host of the grid;
    * **power**: on every host, the MCRs of its tasks add up to at most its
      computational power;
    * **LAN bandwidth**: on every LAN, the MBRs of the edges whose two tasks
      are both on that LAN (same host or not) add up to at most its bandwidth;
    * **links**: two communicating tasks are on the same LAN or on two LANs
      joined by a direct link (a path through other LANs does not count);
      for every link, the MBRs of the edges between its two LANs add up to at
      most its bandwidth.

    Under the ``"dedicated"`` bandwidth model, "add up to at most" becomes
    "each at most" for LANs and links (see
    :data:`~clustersched.grid.mapping.BANDWIDTH_MODELS`).  ``bandwidth=None``
    takes the model of ``mapping`` when it is a Mapping, else ``"shared"``.

    Requirements fit a capacity when their exact sum is at most
    ``capacity * (1 + RTOL)`` (the one rounding rule of the module docstring).

    Returns
    -------
    list of str
        Empty when the mapping is feasible.  Messages name the tasks, hosts,
        LANs and links by their labels.  A malformed mapping (wrong length,
        unknown hosts, a :class:`Mapping` whose ``lan`` disagrees with its
        ``host``: a mapping of another instance) is reported alone.

    Raises
    ------
    TypeError
        ``tig`` is not a :class:`TIG`, ``grid`` not a :class:`LanGrid`, or
        ``mapping`` neither a Mapping nor a sequence of host indices.
    ValueError
        ``bandwidth`` names no model.
    """
    check_pair(tig, grid)
    if isinstance(mapping, NoFeasibleMapping):
        return [f"{mapping.algorithm} found no mapping: there is nothing to validate"]
    model = check_bandwidth(getattr(mapping, "bandwidth", "shared") if bandwidth is None else bandwidth)
    needs = "need" if model == "shared" else "include one of"
    host, out = _malformed(mapping, tig, grid)
    if host is None:
        return out
    lan = grid.host_lan[host]

    # -- power ------------------------------------------------------------------------
    load = _exact_sums(host, tig.mcr, grid.num_hosts, grid.host_power)
    over = np.flatnonzero(load > grid.host_power * (1 + RTOL))
    for h in over[:_MAX_PER_KIND]:
        tasks = [tig.labels[t] for t in np.flatnonzero(host == h)]
        out.append(
            f"host {grid.host_name(int(h))!r}: tasks {tasks} need {float(load[h])!r} Mflop/s, "
            f"it has {float(grid.host_power[h])!r}"
        )

    # -- LAN bandwidth ------------------------------------------------------------------
    a, b = lan[tig.edge_u], lan[tig.edge_v]
    same = a == b
    lan_use = _use(a[same], tig.mbr[same], grid.num_lans, model, grid.lan_bandwidth)
    for lan in np.flatnonzero(lan_use > grid.lan_bandwidth * (1 + RTOL))[:_MAX_PER_KIND]:
        out.append(
            f"LAN {grid.labels[lan]!r}: communications inside it {needs} {float(lan_use[lan])!r} Mb/s, "
            f"it has {float(grid.lan_bandwidth[lan])!r}"
        )

    # -- links --------------------------------------------------------------------------
    crossing, across = [], []
    links = grid._links  # (a, b) with a < b -> link, as LanGrid.link() reads it, without its argument checks
    unlinked = 0
    for k in np.flatnonzero(~same):
        x, y = int(a[k]), int(b[k])
        link = links.get((x, y) if x < y else (y, x))
        if link is None:
            if unlinked < _MAX_PER_KIND:
                u, v = tig.labels[tig.edge_u[k]], tig.labels[tig.edge_v[k]]
                out.append(
                    f"tasks {u!r} and {v!r} communicate (MBR {float(tig.mbr[k])!r}) between LANs "
                    f"{grid.labels[x]!r} and {grid.labels[y]!r}, which have no direct link"
                )
            unlinked += 1
            continue
        crossing.append(link)
        across.append(tig.mbr[k])
    link_use = _use(
        np.array(crossing, dtype=np.int64),
        np.array(across, dtype=np.float64),
        grid.num_links,
        model,
        grid.link_bandwidth,
    )
    for k in np.flatnonzero(link_use > grid.link_bandwidth * (1 + RTOL))[:_MAX_PER_KIND]:
        x, y = grid.labels[grid.link_a[k]], grid.labels[grid.link_b[k]]
        out.append(
            f"link ({x!r}, {y!r}): communications across it {needs} {float(link_use[k])!r} Mb/s, "
            f"it has {float(grid.link_bandwidth[k])!r}"
        )
    return out
