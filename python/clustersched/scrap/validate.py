"""Independent feasibility check of one PTG's schedule on a heterogeneous multi-cluster platform.

The rules live in one place, the Rust core's checker
(``scrap::schedule_violations`` in ``rust/core/src/scrap/schedule.rs``), which
the study of :mod:`clustersched.scrap.study` runs on every schedule it makes;
this module hands it the schedule and words what it finds (as data: kind,
row, task, cluster, values).  The checker looks only at the schedule, the PTG
and the platform (and its network).  It shares with the kernels that made the
schedule only the model: a task's duration ``T_k(v, q)`` comes from the
core's one duration function (``clustersched._core.exec_times``, the
``exec_time`` every scheduler calls, so producer and checker compute it by the
same float operations), and a transfer's time from the network's documented
formula (:meth:`clustersched.platform.Network.transfer_time`, the core's
``Network::transfer_time``).  The translation of reference allocations is
checked under the rule the schedule names (``schedule.translation``), as
that rule's property, not by the kernels' search: ``"at-least-as-fast"``,
the smallest ``q >= 1`` with ``T_k(v, q) <= T_ref(v, p_ref)`` (``T_k(v, q)``
meets it and ``T_k(v, q - 1)`` does not); ``"closest"``, the ``q <=
min(p_ref, P_k)`` of least ``|T_k(v, q) - T_ref(v, p_ref)|``, ties to the
fewer processors (``q`` is the first count of its time, ``q - 1`` is
farther, and the next faster count is no closer).

Rounding
    A scheduler computes ``end = start + T`` in float64: one rounding, at
    most half an ulp of ``end``.  ``end - start`` then differs from ``T`` by
    about ``2**-53 * max(|start|, |end|)``, which for a short task late in a
    schedule is far more than ``T`` itself (a task of 1e-8 s starting at
    1 s measures 1.0000000827e-8 s).  So durations are compared with a
    tolerance relative to the *time stamps*, not to the duration:
    ``|(end - start) - T| <= DURATION_RTOL * max(T, |start|, |end|)``
    (:data:`DURATION_RTOL` = 1e-9), the rule of
    :func:`clustersched.ptg.validate.ptg_violations` too; start times against
    data arrivals likewise, relative to the arrival.  Everything else
    (overlaps, counts, ids) is exact.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._checks import short_repr
from ..errors import InvalidScheduleError
from ..workload.ptg import PTG
from .model import DEFAULT_TRANSLATION, check_core
from .schedule import ClusterSchedule

__all__ = ["DURATION_RTOL", "multicluster_violations", "validate_multicluster"]

#: Relative tolerance on durations and on start times against data arrivals (module docstring).
DURATION_RTOL = 1e-9

#: Violations reported of each kind, and in all (the rest are counted).
_MAX = 20

_U32 = 2**32 - 1


def validate_multicluster(schedule: ClusterSchedule, ptg: PTG, *, core: Any = None) -> None:
    """Raises :class:`~clustersched.errors.InvalidScheduleError` listing every violation, or returns None.

    See :func:`multicluster_violations` for the rules and ``core``.

    Examples
    --------
    >>> import networkx as nx
    >>> from clustersched.platform import Cluster, MultiCluster
    >>> from clustersched.scrap.placement import place_reference
    >>> g = nx.DiGraph([("a", "b")]); nx.set_node_attributes(g, 2e9, "work")
    >>> ptg = PTG.from_networkx(g)
    >>> p = MultiCluster("p", (Cluster("a", 2, 1e9), Cluster("b", 2, 2e9)))
    >>> s = place_reference(ptg, p, [1, 1])
    >>> validate_multicluster(s, ptg)
    >>> s.start[1] -= 0.5; s.end[1] -= 0.5; validate_multicluster(s, ptg)
    Traceback (most recent call last):
    ...
    clustersched.errors.InvalidScheduleError: 2 violation(s):
      processor 2 runs task 0 ('a') and task 1 ('b') at once
      task 1 ('b') starts at 0.5 before its predecessor task 0 ('a') ends at 1.0
    """
    found = multicluster_violations(schedule, ptg, core=core)
    if found:
        raise InvalidScheduleError(found)


def _check_arguments(schedule: Any, ptg: Any) -> None:
    if not isinstance(schedule, ClusterSchedule):
        raise TypeError(f"schedule == {short_repr(schedule)}, must be a clustersched.scrap.ClusterSchedule")
    if not isinstance(ptg, PTG):
        raise TypeError(f"ptg == {short_repr(ptg)}, must be a clustersched PTG")


def multicluster_violations(schedule: ClusterSchedule, ptg: PTG, *, core: Any = None) -> list[str]:
    """Every way ``schedule`` breaks the rules of running ``ptg`` on ``schedule.platform``.

    Rules (the Rust checker's, module docstring):

    * every task in exactly one row, on one existing cluster ``k``;
    * its processors: at least one, distinct, all ids of cluster ``k``;
    * ``0 <= start <= end``, finite; ``end - start == T_k(v, q)`` for its
      ``q`` processors at cluster ``k``'s speed, to a tolerance relative to
      the time stamps (module docstring, :data:`DURATION_RTOL`);
    * if the schedule carries a reference allocation (``schedule.alloc``),
      one count ``>= 1`` per task, a named translation rule
      (``schedule.translation``, :data:`clustersched.scrap.model.TRANSLATIONS`:
      part of what the schedule claims) and ``q == f(alloc[v], v, k)`` under
      that rule (the smallest allocation on ``k`` at least as fast as
      ``alloc[v]`` processors of the reference speed, or the one of closest
      time, at most the cluster);
    * per-cluster capacity: no processor runs two rows of positive length at
      once (half-open intervals);
    * precedence: each task starts no earlier than each predecessor ends plus,
      if ``schedule.comms``, the transfer time of the predecessor's bytes
      under the platform's network model (zero on edges to or from a
      zero-work task).

    At most 20 violations of each kind are worded, and 20 in all (then
    ``... and N more``, N counting every other violation).  A schedule of
    another PTG (other task count) shows as tasks missing or unknown.
    ``core``: :func:`clustersched.scrap.model.problem` of ``ptg`` and
    ``schedule.platform``, to convert the pair once for several schedules
    (None: converted here).  TypeError when ``schedule`` is not a
    ClusterSchedule or ``ptg`` not a PTG.
    """
    _check_arguments(schedule, ptg)
    platform = schedule.platform
    core = check_core(core, ptg, platform)
    n = len(ptg)
    name = lambda v: f"task {v} ({ptg.labels[v]!r})"  # noqa: E731
    alloc = schedule.alloc
    unfit = None  # an allocation the checker cannot be handed: its message
    a = None
    if alloc is not None:
        a = np.asarray(alloc)
        if a.shape != (n,):
            unfit = f"the reference allocation has shape {a.shape} for {n} tasks"
        elif a.dtype.kind not in "iu" or (a < 0).any() or (a > _U32).any():
            v = int(np.flatnonzero((a < 1) | (a > _U32))[0]) if a.dtype.kind in "iu" else 0
            unfit = f"the reference allocation must hold integers in 1..{_U32}: {name(v)} has {a[v]!r}"
    rule = schedule.translation
    if a is not None and unfit is None and rule is None:
        unfit = "the schedule has a reference allocation but names no translation rule (translation=None)"
    on = bool(schedule.comms) and platform.network is not None
    found, total = core.violations(
        *schedule.columns(),
        None if unfit is not None else (None if a is None else np.ascontiguousarray(a, dtype=np.int64)),
        rule or DEFAULT_TRANSLATION,  # read by the checker only with an allocation, which then names it
        on,
        _MAX,
    )
    if unfit is not None and not any(kind in _TASKS for kind, _, _ in found):
        return [unfit]
    words = [(kind, _word(kind, ints, floats, schedule, ptg, name)) for kind, ints, floats in found]
    out = [m for kind, m in words if kind != "precedence"]
    early = any(kind in _EARLY for kind, _ in words)  # the rows were not checked
    if schedule.comms and not on and not early:  # before the precedence it leaves without transfers
        out.append("the schedule claims modelled communications on a platform without a network")
        total += 1
    out += [m for kind, m in words if kind == "precedence"]
    if total > _MAX:
        return out[:_MAX] + [f"... and {total - _MAX} more"]
    return out


_TASKS = ("unknown_task", "task_twice", "task_missing")
_EARLY = (*_TASKS, "alloc_length", "alloc_zero")


def _word(kind: str, ints: list[int], floats: list[float], s: ClusterSchedule, ptg: PTG, name: Any) -> str:
    """One violation of the checker in words (the values of the schedule's own columns where the checker's
    index stands for one that does not exist)."""
    n = len(ptg)
    if kind == "unknown_task":
        (r,) = ints
        return f"row {r}: task {s.task[r]} does not exist (the PTG has {n})"
    if kind == "task_twice":
        return f"{name(ints[0])} is scheduled twice"
    if kind == "task_missing":
        return f"{name(ints[0])} is never scheduled"
    if kind == "alloc_length":
        return f"the reference allocation has shape ({ints[0]},) for {n} tasks"
    if kind == "alloc_zero":
        v = ints[0]
        return f"the reference allocation must hold integers in 1..{_U32}: {name(v)} has {np.asarray(s.alloc)[v]!r}"
    if kind == "unknown_cluster":
        r, v = ints
        return f"{name(v)}: cluster {s.cluster[r]} does not exist"
    if kind == "times":
        r, v = ints
        return f"{name(v)} runs [{floats[0]}, {floats[1]}): must be finite, 0 <= start <= end"
    if kind == "processors":
        r, v, c = ints
        first = s.platform.first(c)
        return (
            f"{name(v)}: processors {s.processors(r).tolist()} must be distinct ids of "
            f"cluster {c} ({first}..{first + s.platform.procs[c] - 1})"
        )
    if kind == "duration":
        r, v, c, q = ints
        return f"{name(v)} runs {floats[0]} s on {q} processors of cluster {c}, its time there is {floats[1]} s"
    if kind == "translation":
        r, v, c, q, ref, want = ints
        return (
            f"{name(v)} has {q} processors on cluster {c}; the {s.translation!r} translation of its "
            f"{ref} reference processors there is {want}"
        )
    if kind == "overlap":
        p, u, v = ints
        return f"processor {p} runs {name(u)} and {name(v)} at once"
    if kind == "precedence":
        v, u = ints
        start, arrival, end = floats
        if arrival > end:
            return f"{name(v)} starts at {start} before the data of {name(u)} arrive at {arrival}"
        return f"{name(v)} starts at {start} before its predecessor {name(u)} ends at {arrival}"
    raise AssertionError(f"the checker reported an unknown kind {kind!r}")  # pragma: no cover
