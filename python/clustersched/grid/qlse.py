"""QLSE (Baraglia, Ferrini, Tonellotto, Ricci & Yahyapour, §4) and its greedy best-fit baseline (§5).

Both run in the Rust core (``rust/core/src/grid/``), which follows the slow
reference ``tests/reference/grid.py`` rule for rule; the differential tests
compare their mappings for identity.

QLSE, as implemented (section numbers of the paper)
---------------------------------------------------
**Task order (§4.1).**  Every task gets the score of eq. (1),
``score_i = MCR_i + Σ_{j ~ i} (α_T MBR_ij + β_T MCR_j)`` with α_T = 1 and
β_T = 0.25.  The highest-score task (ties: lowest index) forms layer 0;
layer ``k + 1`` holds the tasks adjacent to layer ``k`` that are in no
earlier layer (a breadth-first search, so the TIG must be connected).  The
tasks of a layer are grouped into subsets of directly connected tasks, and
the cycle rule forces "all the cycle's tasks but the first" into one subset.
*Choice:* we apply the rule to every simple cycle and take its transitive
closure, which is exactly "every biconnected block of three or more tasks,
minus the block's task nearest the first task, is one subset"; a subset is
ordered in the layer of its shallowest task, its deeper tasks moving up with
it.  Subsets are ordered by decreasing size (§4.1), *then* by decreasing best
score, *then* lowest task index (our tie-breaks); inside a subset tasks go by
decreasing score, then lowest index.  See :func:`task_order`.

**LANs and hosts (§4.2).**  The LANs of a cluster are ordered by eq. (2),
``prio_i = Σ_h r_ih + Σ_{(i, j)} (α_L bw_ij + β_L Σ_h r_jh)`` with α_L = 1 and
β_L = 0.25, decreasing (ties: lowest index).  *Choice:* the links summed are
those of the current tentative mapping (the others cannot be used in it).
Hosts of a LAN are taken in decreasing order of computational power: the host
receiving a task is the one with the most power left (ties: lowest index).

**Clusters (§4.3).**  Five tentative mappings, cut at the quartiles of the
bandwidths of the grid's links (linear interpolation, numpy's default): x1.00
removes every link (one LAN must host the whole TIG); x.75, x.50 and x.25
remove the links with less bandwidth than that quartile; x.00 keeps every
link.  The LAN clusters left (connected components) are tried by decreasing
priority, the sum of their LANs' computational power and bandwidth and of
their kept links' bandwidths (ties: lowest first LAN), each from fresh
resources; the first one that hosts every task gives the mapping.
*Choice:* a cluster with the same LANs and links as one already tried is not
tried again (it would fail again).

**Allocation (§4.4).**  Each task, in order, goes to the first LAN of the
cluster, in priority order, where (1) a host has at least its MCR left,
(2) the MBRs of its edges to tasks already on that LAN fit in the LAN's
remaining bandwidth, and (3) for every other LAN holding a task it
communicates with, the MBRs of those edges fit in the remaining bandwidth of
the kept link between the two LANs (no kept link: the LANs cannot
communicate, §3).  Then the host loses the MCR and the LAN and links lose the
MBRs.  *Choices:* communication between two tasks of the same LAN (even of
the same host) uses the LAN's bandwidth, and communication between LANs uses
only their link (not the two LANs' own bandwidths), as the conditions state;
a task that finds no LAN makes the cluster fail (no backtracking).
*Rounding:* "fit" is the one capacity rule the validator applies too
(:mod:`clustersched.grid.validate`): the requirements on a host, LAN or link,
summed exactly and rounded once, at most ``capacity * (1 + RTOL)`` with
``RTOL = 1e-9``; so both reach the same verdict on every mapping, whatever
the order in which tasks were placed.  The host "with the most power left"
is ordered by its power minus its MCRs, subtracted one at a time.

**Readings (issue 33).**  Two sentences admit another reading, each a named
option (:data:`QUARTILE_SOURCES`, :data:`HOST_RULES`); the defaults are the
readings above, since neither alternative brings QLSE's failures near the
paper's ≈ 0 (``docs/reproduce-qlse.md``, "Readings"):

* ``quartiles`` (§4.3, "we have decided to use the *quartiles* of the links
  bandwidth distribution to set the values of the edges to be removed in each
  step"): ``"links"``, the bandwidths of the grid's LAN-to-LAN links (the
  edges being removed); or ``"mbrs"``, the MBRs of the TIG's edges (the
  application's links), so that a step keeps the grid links able to carry
  the upper three quarters, half, quarter of the communications.
* ``host`` (§4.2, "in a LAN the hosts can be ordered in decreasing order of
  computational power"): ``"most-power-left"``, the order of the power each
  host has left (the paper's hosts report their "instantaneous computational
  bandwidth"), the first host taken; ``"first-fit"``, the static order of
  nominal power, the first host the MCR still fits on; ``"best-fit"``, the
  host the MCR fits most tightly (the baseline's rule, for comparison).

**Bandwidth model.**  ``bandwidth="shared"`` (default) is §4.4 as written:
bandwidths are used up.  ``bandwidth="dedicated"`` checks each communication
on its own (the largest MBR instead of each sum; nothing used up), the
reading under which Tables 1 and 2 make sense; see
:data:`~clustersched.grid.mapping.BANDWIDTH_MODELS`.

The baseline (§5)
-----------------
"A best fit heuristics to map the queued tasks on the LANs' hosts" that
"selects first the LANs with a greater aggregate computational power": tasks
in queue (index) order, LANs by decreasing total nominal power (ties: lowest
index), every link usable.  §5 says no more; two readings
(:data:`GREEDY_READINGS`, ``reading=``), the second the default:

* ``"checked"``: each task goes to the first LAN where the three allocation
  conditions of §4.4 hold (as QLSE's), on the host with the least power left
  that still covers its MCR (ties: lowest index): best fit on the hosts.
* ``"validated-after"``: "best fit" read as fitting the tasks' MCRs alone
  ("to map the queued tasks on the LANs' hosts"): each task goes to the first
  LAN with a host that still has its MCR, on the host with the most power left
  ("most powerful host first"); the communications are not looked at while
  placing, and the complete mapping is checked at the end (by the validator's
  rules), an invalid one being a failure.  This is the reading of §5's
  explanation of Fig. 5: greedy gets a higher task-machine ratio than QLSE
  "because it selects first the LANs with a greater aggregate computational
  power, thereafter it exploits for the valid solutions a smaller number of
  LANs (no more than 2 in our test cases)": the solutions are "valid" or not
  after the fact, and a best fit on the hosts would give greedy the *lower*
  ratio (``docs/reproduce-qlse.md``).  It is the default because it is the
  reading under which §5's findings on greedy hold on the paper's 21,870
  cases: LAN hit ratio near 100% and below QLSE's, at most 2 LANs in 99% of
  its mappings, its task-machine ratio above QLSE's, its failures growing
  almost linearly with the tasks.  ``"checked"`` was the default until issue 33.

One pass either way; a task without a LAN (or an invalid mapping) is a
failure.  See :func:`greedy_best_fit`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .._checks import check_float, frozen
from ..errors import InvalidGraphError
from .mapping import Mapping, MappingResult, NoFeasibleMapping, check_bandwidth
from .model import check_grid, check_pair, check_tig

if TYPE_CHECKING:
    from .model import TIG, LanGrid

__all__ = [
    "ALPHA",
    "BETA",
    "GREEDY_READINGS",
    "HOST_RULES",
    "QUARTILE_SOURCES",
    "TaskOrder",
    "greedy_best_fit",
    "qlse",
    "qlse_step",
    "task_order",
]

#: α_T = α_L = 1 (§4.1, §4.2).
ALPHA = 1.0
#: β_T = β_L = 0.25 (§4.1, §4.2).
BETA = 0.25


#: Whose quartiles cut QLSE's tentative mappings (§4.3): the grid's link bandwidths (default) or the TIG's MBRs.
QUARTILE_SOURCES = ("links", "mbrs")
#: The host of a LAN a QLSE task goes to (§4.2): most power left (default), first fit by nominal power, best fit.
HOST_RULES = ("most-power-left", "first-fit", "best-fit")
#: Readings of the greedy baseline (§5): every placement checked, or MCRs first and the mapping validated after
#: (the default).
GREEDY_READINGS = ("checked", "validated-after")


def _choice(name: str, value: object, allowed: tuple[str, ...]) -> str:
    """``value`` if it is one of ``allowed``, else ValueError naming the option, the value and the choices."""
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} == {value!r}, must be one of {', '.join(map(repr, allowed))}")
    return value


def _weights(alpha: float, beta: float, what: str) -> tuple[float, float]:
    a = check_float(f"alpha_{what}", alpha, minimum=0.0)
    b = check_float(f"beta_{what}", beta, minimum=0.0, maximum=1.0)
    return a, b


def qlse(
    tig: TIG,
    grid: LanGrid,
    *,
    alpha_t: float = ALPHA,
    beta_t: float = BETA,
    alpha_l: float = ALPHA,
    beta_l: float = BETA,
    bandwidth: str = "shared",
    quartiles: str = "links",
    host: str = "most-power-left",
) -> MappingResult:
    """Maps ``tig`` onto ``grid`` with QLSE (§4; every rule and choice in the module docstring).

    Parameters
    ----------
    tig : TIG
        Must be connected (QLSE's layers start from one task).
    grid : LanGrid
    alpha_t, beta_t : float
        Weights of eq. (1) (α_T >= 0, β_T in [0, 1]); the paper's 1 and 0.25 by default.
    alpha_l, beta_l : float
        Weights of eq. (2); the paper's 1 and 0.25 by default.
    bandwidth : {"shared", "dedicated"}
        The bandwidth model (:data:`~clustersched.grid.mapping.BANDWIDTH_MODELS`).
    quartiles : {"links", "mbrs"}
        Whose quartiles cut the tentative mappings (§4.3; :data:`QUARTILE_SOURCES`).
    host : {"most-power-left", "first-fit", "best-fit"}
        The host of a LAN a task goes to (§4.2; :data:`HOST_RULES`).

    Returns
    -------
    Mapping or NoFeasibleMapping
        A mapping meeting every MCR and MBR (``step`` and ``cluster`` say
        where it was found), or the typed failure.

    Raises
    ------
    TypeError
        ``tig`` is not a :class:`~clustersched.grid.TIG` or ``grid`` not a
        :class:`~clustersched.grid.LanGrid` (or a weight is not a real number).
    ValueError
        A weight out of its range, an unknown ``bandwidth``, ``quartiles`` or ``host``.
    InvalidGraphError
        The TIG is not connected (the message names a task out of reach).

    Examples
    --------
    >>> from clustersched.grid import TIG, LanGrid, validate_mapping
    >>> tig = TIG.from_arrays([100.0, 100.0, 100.0], [(0, 1), (1, 2)], [10.0, 10.0])
    >>> grid = LanGrid.from_arrays([[250.0], [250.0]], [10.0, 10.0], [(0, 1)], [20.0])
    >>> m = qlse(tig, grid)
    >>> m.found, m.step_label, m.lan.tolist()
    (True, 'x.75', [0, 0, 1])
    >>> validate_mapping(m, tig, grid)
    """
    check_pair(tig, grid)
    at, bt = _weights(alpha_t, beta_t, "t")
    al, bl = _weights(alpha_l, beta_l, "l")
    check_bandwidth(bandwidth)
    _choice("quartiles", quartiles, QUARTILE_SOURCES)
    _choice("host", host, HOST_RULES)
    _require_tasks(tig)
    tig.require_connected("QLSE orders the tasks in layers from one task")
    from .. import _core

    began = time.perf_counter()
    hosts, step, cluster, attempts = _core.qlse_map(
        tig.core, grid.core, at, bt, al, bl, bandwidth, quartiles=quartiles, host=host
    )
    seconds = time.perf_counter() - began
    if hosts is None:
        return NoFeasibleMapping(
            "QLSE", attempts=attempts, seconds=seconds, reason="no cluster of any tentative mapping hosts every task"
        )
    return Mapping(
        "QLSE",
        host=_hosts(hosts),
        lan=_hosts(grid.host_lan[hosts]),
        bandwidth=bandwidth,
        step=step,
        cluster=tuple(int(c) for c in cluster),
        attempts=attempts,
        seconds=seconds,
    )


def greedy_best_fit(
    tig: TIG, grid: LanGrid, *, bandwidth: str = "shared", reading: str = "validated-after"
) -> MappingResult:
    """Maps ``tig`` onto ``grid`` with the greedy best-fit baseline of §5 (see the module docstring).

    ``bandwidth`` is the bandwidth model, as for :func:`qlse`; ``reading`` one of
    :data:`GREEDY_READINGS` (the module docstring gives both and the sentences they read).

    Returns
    -------
    Mapping or NoFeasibleMapping

    Raises
    ------
    TypeError, ValueError
        As :func:`qlse`: arguments of the wrong type, an unknown ``bandwidth`` or ``reading``.

    Examples
    --------
    >>> from clustersched.grid import TIG, LanGrid
    >>> tig = TIG.from_arrays([100.0, 100.0, 100.0], [(0, 1), (1, 2)], [10.0, 10.0])
    >>> grid = LanGrid.from_arrays([[250.0], [250.0]], [10.0, 10.0], [(0, 1)], [20.0])
    >>> greedy_best_fit(tig, grid, reading="checked").lan.tolist()
    [0, 0, 1]
    >>> greedy_best_fit(tig, grid).lan.tolist()   # MCRs first: 2 tasks per host, then the link is checked
    [0, 0, 1]
    """
    check_pair(tig, grid)
    check_bandwidth(bandwidth)
    _choice("reading", reading, GREEDY_READINGS)
    _require_tasks(tig)
    from .. import _core

    began = time.perf_counter()
    host, _, _, _ = _core.greedy_map(tig.core, grid.core, bandwidth, reading)
    seconds = time.perf_counter() - began
    if host is None:
        return NoFeasibleMapping("greedy", seconds=seconds, reason="a task found no LAN meeting the conditions")
    return Mapping("greedy", host=_hosts(host), lan=_hosts(grid.host_lan[host]), bandwidth=bandwidth, seconds=seconds)


def _hosts(a: np.ndarray) -> np.ndarray:
    """Host or LAN indices as a read-only contiguous int64 array."""
    return frozen(np.ascontiguousarray(a, dtype=np.int64))


def _require_tasks(tig: TIG) -> None:
    """InvalidGraphError (an InvalidWorkloadError) for a TIG without a task, as its constructors raise."""
    if len(tig) == 0:
        raise InvalidGraphError("the TIG has no task")


@dataclass(frozen=True, eq=False)
class TaskOrder:
    """QLSE's task order and how it was built (§4.1; see :func:`task_order`).

    Attributes
    ----------
    scores : numpy.ndarray of float64
        Eq. (1) score of each task.
    order : numpy.ndarray of int64
        Tasks in allocation order.
    layer : numpy.ndarray of int64
        Breadth-first layer of each task.
    subset : numpy.ndarray of int64
        Subset of each task, subsets numbered in allocation order.
    subset_layer : numpy.ndarray of int64
        The layer each subset is ordered in.
    """

    scores: np.ndarray
    order: np.ndarray
    layer: np.ndarray
    subset: np.ndarray
    subset_layer: np.ndarray


def task_order(tig: TIG, *, alpha_t: float = ALPHA, beta_t: float = BETA) -> TaskOrder:
    """QLSE's task order (§4.1): scores, layers, subsets with the cycle rule.

    Examples
    --------
    >>> from clustersched.grid import TIG
    >>> square = TIG.from_arrays([300.0, 100.0, 100.0, 100.0, 100.0], [(0, 1), (1, 2), (2, 3), (3, 0), (0, 4)],
    ...                          [10.0] * 5)
    >>> o = task_order(square)
    >>> o.order.tolist(), o.layer.tolist()   # 2 (layer 2) moves up with its cycle's subset {1, 2, 3}
    ([0, 1, 3, 2, 4], [0, 1, 2, 1, 1])
    """
    check_tig(tig)
    at, bt = _weights(alpha_t, beta_t, "t")
    _require_tasks(tig)
    tig.require_connected("QLSE orders the tasks in layers from one task")
    from .. import _core

    return TaskOrder(*_core.qlse_task_order(tig.core, at, bt))


@dataclass(frozen=True, eq=False)
class Step:
    """One tentative mapping of QLSE (§4.3; see :func:`qlse_step`)."""

    label: str
    kept: np.ndarray
    lan_priority: np.ndarray
    clusters: list[np.ndarray]
    cluster_priority: np.ndarray


def qlse_step(
    grid: LanGrid,
    step: int,
    *,
    alpha_l: float = ALPHA,
    beta_l: float = BETA,
    quartiles: str = "links",
    tig: TIG | None = None,
) -> Step:
    """Tentative mapping ``step`` (0 for x1.00 ... 4 for x.00): kept links, eq. (2) priorities, clusters in order.

    ``quartiles`` as for :func:`qlse`; ``"mbrs"`` needs the ``tig`` whose MBRs cut the steps.

    Examples
    --------
    >>> from clustersched.grid import LanGrid
    >>> g = LanGrid.from_arrays([[100.0], [200.0], [300.0]], [1.0, 2.0, 3.0], [(0, 1), (1, 2)], [10.0, 50.0])
    >>> s = qlse_step(g, 1)
    >>> s.label, s.kept.tolist(), [c.tolist() for c in s.clusters]
    ('x.75', [False, True], [[1, 2], [0]])
    """
    from .. import _core
    from .mapping import STEP_LABELS

    check_grid(grid)
    al, bl = _weights(alpha_l, beta_l, "l")
    _choice("quartiles", quartiles, QUARTILE_SOURCES)
    if quartiles == "mbrs":
        if tig is None:
            raise ValueError("quartiles == 'mbrs' needs the TIG whose MBRs cut the steps: give tig=")
        check_pair(tig, grid)
    if isinstance(step, bool) or not isinstance(step, (int, np.integer)) or not 0 <= step < len(STEP_LABELS):
        raise ValueError(f"step == {step!r}, must be an int in 0..{len(STEP_LABELS) - 1}")
    kept, prio, clusters, cprio = _core.qlse_step(
        grid.core, int(step), al, bl, quartiles, tig.core if quartiles == "mbrs" and tig is not None else None
    )
    return Step(STEP_LABELS[step], kept, prio, list(clusters), cprio)
