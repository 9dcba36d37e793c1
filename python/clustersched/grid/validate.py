"""Independent feasibility checks of a task-to-host mapping on a grid of LANs.

The checker looks only at the mapping, the TIG and the grid; it shares no
code with the algorithms (not even their allocation conditions), so a bug in
QLSE's or the baseline's bookkeeping shows up here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InvalidScheduleError
from .mapping import check_bandwidth
from .model import LanGrid, TIG

__all__ = ["RTOL", "mapping_violations", "validate_mapping"]

#: Relative tolerance of the capacity checks: the algorithms subtract
#: requirements one at a time from what is left, the checker adds them up,
#: and the two roundings may differ by a few ulps.
RTOL = 1e-9

# At most this many messages per kind of violation.
_MAX_PER_KIND = 20


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

    Capacities are compared with a relative tolerance of :data:`RTOL`
    (``used <= capacity * (1 + RTOL)``).

    Returns
    -------
    list of str
        Empty when the mapping is feasible.  Messages name the tasks, hosts,
        LANs and links by their labels.  A malformed mapping (wrong length,
        unknown hosts) is reported alone.
    """
    if getattr(mapping, "found", True) is False:
        return [f"{mapping.algorithm} found no mapping: there is nothing to validate"]
    model = check_bandwidth(getattr(mapping, "bandwidth", "shared") if bandwidth is None else bandwidth)
    combine = np.add if model == "shared" else np.maximum
    needs = "need" if model == "shared" else "include one of"
    host = np.asarray(getattr(mapping, "host", mapping))
    out: list[str] = []
    if host.ndim != 1 or len(host) != len(tig):
        return [f"the mapping has {host.size} hosts for {len(tig)} tasks"]
    if host.size and not np.issubdtype(host.dtype, np.integer):
        return [f"host indices must be integers, not {host.dtype}"]
    host = host.astype(np.int64)
    bad = np.flatnonzero((host < 0) | (host >= grid.num_hosts))
    for t in bad[:_MAX_PER_KIND]:
        out.append(f"task {tig.labels[t]!r} is on host {host[t]}, the grid has hosts 0..{grid.num_hosts - 1}")
    if out:
        return out
    lan = grid.host_lan[host]

    # -- power ------------------------------------------------------------------------
    load = np.zeros(grid.num_hosts)
    np.add.at(load, host, tig.mcr)
    over = np.flatnonzero(load > grid.host_power * (1 + RTOL))
    for h in over[:_MAX_PER_KIND]:
        tasks = [tig.labels[t] for t in np.flatnonzero(host == h)]
        out.append(f"host {grid.host_name(int(h))!r}: tasks {tasks} need {float(load[h])!r} Mflop/s, "
                   f"it has {float(grid.host_power[h])!r}")

    # -- LAN bandwidth ------------------------------------------------------------------
    a, b = lan[tig.edge_u], lan[tig.edge_v]
    same = a == b
    lan_use = np.zeros(grid.num_lans)
    combine.at(lan_use, a[same], tig.mbr[same])
    for l in np.flatnonzero(lan_use > grid.lan_bandwidth * (1 + RTOL))[:_MAX_PER_KIND]:
        out.append(f"LAN {grid.labels[l]!r}: communications inside it {needs} {float(lan_use[l])!r} Mb/s, "
                   f"it has {float(grid.lan_bandwidth[l])!r}")

    # -- links --------------------------------------------------------------------------
    link_use = np.zeros(grid.num_links)
    unlinked = 0
    for k in np.flatnonzero(~same):
        x, y = int(a[k]), int(b[k])
        link = grid.link(x, y)
        if link is None:
            if unlinked < _MAX_PER_KIND:
                u, v = tig.labels[tig.edge_u[k]], tig.labels[tig.edge_v[k]]
                out.append(f"tasks {u!r} and {v!r} communicate (MBR {float(tig.mbr[k])!r}) between LANs "
                           f"{grid.labels[x]!r} and {grid.labels[y]!r}, which have no direct link")
            unlinked += 1
            continue
        link_use[link] = combine(link_use[link], tig.mbr[k])
    for k in np.flatnonzero(link_use > grid.link_bandwidth * (1 + RTOL))[:_MAX_PER_KIND]:
        x, y = grid.labels[grid.link_a[k]], grid.labels[grid.link_b[k]]
        out.append(f"link ({x!r}, {y!r}): communications across it {needs} {float(link_use[k])!r} Mb/s, "
                   f"it has {float(grid.link_bandwidth[k])!r}")
    return out
