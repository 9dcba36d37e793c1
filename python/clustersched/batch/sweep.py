"""Load sweeps: policies x offered loads x replications, with 95% confidence intervals.

The classic experiment of batch-scheduling studies: take a workload, scale it
to a range of offered loads, replay every version under several policies,
replicate, and plot a metric (bounded slowdown first) against the load with
its confidence interval.  :func:`sweep` runs it as a resumable campaign
(:mod:`clustersched.campaign`); ``clustersched sweep`` is its command.

The rules (offered load, replications, estimates, intervals, resuming) are
written down in the Notes of :func:`sweep` (``help(clustersched.sweep)``).
"""

from __future__ import annotations

import functools
import hashlib
import math
import os
import pickle
import time
import types
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Sequence

import numpy as np

from .._checks import MAX_PROCS, check_choice, check_float, check_int, lookup, short_repr
from .._output import save_figure
from ..workload.jobs import JobTable
from ..workload.transform import drop_invalid, offered_load, scale_to_load
from .policies import BUILTIN_POLICIES, Policy

if TYPE_CHECKING:
    import pandas

__all__ = [
    "CAMPAIGN",
    "FIGURE_METRICS",
    "REPLICATE",
    "Lublin",
    "SweepResult",
    "aggregate",
    "bootstrap_interval",
    "load_range",
    "parse_loads",
    "plot_sweep",
    "relative",
    "sweep",
]

#: The campaign's name in the store; a new version whenever a scenario's result would change.
CAMPAIGN = "sweep-v1"
#: The replication methods (Notes of :func:`sweep`).
REPLICATE = ("seeds", "windows", "days", "weeks")
#: Block length of the bootstrap methods, seconds.
BLOCKS = {"days": 86400.0, "weeks": 7 * 86400.0}
#: The metrics drawn when none are named (and every ``p90`` key of the summary, when there is one).
FIGURE_METRICS = ("avg_bounded_slowdown", "avg_wait", "utilization")
#: Most loads one sweep takes (a range with a tiny step is a typo, not a study).
MAX_LOADS = 1000
#: Most replications.
MAX_REPLICATIONS = 10_000
#: Resamples of the percentile bootstrap of :func:`aggregate`.
BOOTSTRAP_RESAMPLES = 10_000
#: Seed of the bootstrap's generator: the same rows give the same intervals on every machine.
BOOTSTRAP_SEED = 0
#: The interval's name, as the figures, the command and the docstrings give it.
INTERVAL = "percentile bootstrap of the mean"
#: Columns of a scenario (the campaign's parameters) in the tidy table, in this order.
SCENARIO_COLUMNS = (
    "workload",
    "policy",
    "load",
    "replication",
    "replicate",
    "offset",
    "window",
    "block",
    "procs",
    "estimates",
    "estimate_model",
    "seed",
)
#: What a metric is and how to draw it: (axis label with its unit, log axis).
METRIC_LABELS = {
    "avg_bounded_slowdown": ("average bounded slowdown (τ = 10 s)", True),
    "max_bounded_slowdown": ("maximum bounded slowdown (τ = 10 s)", True),
    "avg_wait": ("average wait (s)", False),
    "max_wait": ("maximum wait (s)", False),
    "avg_response": ("average response time (s)", False),
    "utilization": ("utilization (busy fraction of processor-time)", False),
    "makespan": ("makespan (s)", False),
    "achieved_load": ("achieved offered load", False),
    "sim_seconds": ("simulation wall-clock time (s)", False),
}


@dataclass(frozen=True)
class Lublin:
    """A Lublin-Feitelson synthetic workload for :func:`sweep`: each replication draws its own.

    Replication ``r`` is ``lublin_feitelson(jobs, procs, seed=seed + r, job_type=job_type)``
    (:func:`clustersched.workload.lublin.lublin_feitelson`).

    Examples
    --------
    >>> Lublin(2000, 128).describe()
    'lublin(jobs=2000, procs=128)'
    """

    jobs: int
    procs: int = 128
    job_type: str = "mixed"

    def __post_init__(self) -> None:
        from ..workload.lublin import JOB_TYPES, MAX_JOBS

        check_int("jobs", self.jobs, 2, MAX_JOBS)
        check_int("procs", self.procs, 1, MAX_PROCS)
        check_choice("job_type", self.job_type, JOB_TYPES)

    def describe(self) -> str:
        """The workload's name in the results (its ``workload`` column)."""
        extra = "" if self.job_type == "mixed" else f", job_type={self.job_type}"
        return f"lublin(jobs={self.jobs}, procs={self.procs}{extra})"

    def table(self, seed: int) -> JobTable:
        """The workload drawn with ``seed``."""
        from ..workload.lublin import lublin_feitelson

        return lublin_feitelson(self.jobs, self.procs, seed=seed, job_type=self.job_type)


# -- loads -------------------------------------------------------------------------------------------------------------
def load_range(start: float, stop: float, step: float, *, decimals: int | None = None) -> tuple[float, ...]:
    """``start, start + step, ...`` up to ``stop`` included, each rounded to ``decimals`` decimals.

    The values are ``round(start + k * step, decimals)`` for ``k = 0, 1, ...``
    while ``start + k * step <= stop + step * 1e-9`` (so that ``stop`` is in
    the range when the step divides it, whatever the binary rounding of
    ``step``).  ``decimals`` defaults to the most decimals needed to write
    ``start``, ``stop`` and ``step`` (at most 12), so ``0.5:1.2:0.05`` gives
    0.5, 0.55, ..., 1.2 exactly as typed: the same values on every machine.

    Examples
    --------
    >>> load_range(0.5, 0.7, 0.05)
    (0.5, 0.55, 0.6, 0.65, 0.7)
    >>> load_range(0.1, 0.3, 0.1)
    (0.1, 0.2, 0.3)
    """
    start, stop, step = (check_float(name, value) for name, value in (("start", start), ("stop", stop), ("step", step)))
    if not start > 0:
        raise ValueError(f"start == {start}, must be > 0 (a load)")
    if not step > 0:
        raise ValueError(f"step == {step}, must be > 0")
    if stop < start:
        raise ValueError(f"stop == {stop}, must be >= start ({start})")
    if decimals is None:
        decimals = max(_decimals(start), _decimals(stop), _decimals(step))
    count = math.floor((stop - start) / step + 1e-9) + 1
    if count > MAX_LOADS:
        raise ValueError(f"{start}:{stop}:{step} has {count} loads, must have at most {MAX_LOADS}")
    return tuple(round(start + k * step, decimals) for k in range(count))


def _decimals(x: float) -> int:
    """Decimals of the shortest text that reads back as ``x`` (``0.05`` -> 2, ``1e-3`` -> 3), at most 12."""
    text = repr(float(x))
    mantissa, _, exponent = text.partition("e")
    digits = len(mantissa.partition(".")[2].rstrip("0"))
    return max(0, min(12, digits - int(exponent or 0)))


def parse_loads(text: str) -> tuple[float, ...]:
    """The loads of ``"A:B:STEP"`` (:func:`load_range`) or of a comma list ``"0.5,0.7,0.9"``.

    A list is sorted and its duplicates removed; every load must be a finite
    number > 0.  ValueError says what is wrong.

    Examples
    --------
    >>> parse_loads("0.5:1.2:0.05")[-3:]
    (1.1, 1.15, 1.2)
    >>> parse_loads("0.9, 0.5,0.7")
    (0.5, 0.7, 0.9)
    >>> parse_loads("0.5:1:0")
    Traceback (most recent call last):
    ValueError: loads == '0.5:1:0': step == 0.0, must be > 0
    """
    if not isinstance(text, str):
        raise TypeError(f"loads == {short_repr(text)}, must be a str like '0.5:1.2:0.05' or '0.5,0.7'")
    rule = "must be A:B:STEP or a comma list of loads > 0"
    try:
        if ":" in text:
            parts = text.split(":")
            if len(parts) != 3:
                raise ValueError(f"{rule}")
            start, stop, step = (float(p) for p in parts)
            return load_range(start, stop, step)
        values = sorted({float(p) for p in text.split(",") if p.strip()})
    except ValueError as exc:
        message = str(exc)
        if message.startswith("could not convert"):
            message = rule
        raise ValueError(f"loads == {text!r}: {message}") from None
    if not values:
        raise ValueError(f"loads == {text!r}: {rule}")
    bad = [v for v in values if not (math.isfinite(v) and v > 0)]
    if bad:
        raise ValueError(f"loads == {text!r}: {bad[0]} is not a load, {rule}")
    if len(values) > MAX_LOADS:
        raise ValueError(f"loads == {text!r}: {len(values)} loads, must be at most {MAX_LOADS}")
    return tuple(values)


def _check_loads(loads: Any) -> tuple[float, ...]:
    if isinstance(loads, str):
        return parse_loads(loads)
    if isinstance(loads, (int, float)) and not isinstance(loads, bool):
        loads = [loads]
    try:
        values = [float(x) for x in loads]
    except (TypeError, ValueError):
        raise TypeError(f"loads == {short_repr(loads)}, must be numbers > 0 or a str like '0.5:1.2:0.05'") from None
    if not values:
        raise ValueError("loads == [], must hold at least one load")
    for x in values:
        if not (math.isfinite(x) and x > 0):
            raise ValueError(f"loads == {short_repr(loads)}: {x} is not a load, must be finite and > 0")
    if len(set(values)) != len(values):
        raise ValueError(f"loads == {short_repr(loads)}: a load is given twice")
    if len(values) > MAX_LOADS:
        raise ValueError(f"loads has {len(values)} values, must have at most {MAX_LOADS}")
    return tuple(values)


# -- the scenario ------------------------------------------------------------------------------------------------------
def _fingerprint(table: JobTable, procs: int) -> str:
    """``"name:hash"``: the trace's file name and a hash of the columns a simulation reads."""
    digest = hashlib.sha1()
    for column in (table.job_id, table.submit, table.runtime, table.width(), table.time_requested):
        digest.update(np.ascontiguousarray(column).tobytes())
    digest.update(str(procs).encode())
    name = Path(table.source).name if table.source else "table"
    return f"{name}:{len(table)}:{digest.hexdigest()[:12]}"


def _bootstrap(table: JobTable, block: float, rng: np.random.Generator) -> JobTable:
    """A block bootstrap of ``table``: as many blocks of ``block`` seconds, drawn with replacement, end to end."""
    first = float(table.submit.min())
    index = np.floor((table.submit - first) / block).astype(np.int64)
    blocks = int(index.max()) + 1
    order = np.argsort(index, kind="stable")
    bounds = np.searchsorted(index[order], np.arange(blocks + 1))
    drawn = rng.integers(0, blocks, size=blocks)
    rows, submit = [], []
    for position, b in enumerate(drawn.tolist()):
        part = order[bounds[b] : bounds[b + 1]]
        rows.append(part)
        submit.append(table.submit[part] - first - b * block + position * block)
    picked = np.concatenate(rows)
    if len(picked) < 2 or np.ptp(np.concatenate(submit)) <= 0:
        # every block drawn empty or one instant: draw again from the same generator
        return _bootstrap(table, block, rng)
    out = table.select(picked)
    return out.with_columns(submit=first + np.concatenate(submit), job_id=np.arange(1, len(out) + 1))


def _replica(source: JobTable | Lublin, scenario: dict[str, Any]) -> JobTable:
    """Replication ``scenario["replication"]``'s table, before load scaling, with its estimate model applied."""
    r, seed, method = scenario["replication"], scenario["seed"], scenario["replicate"]
    if isinstance(source, Lublin):
        table = source.table(seed + r)
    elif method == "windows":
        table = source.select(slice(scenario["offset"], scenario["offset"] + scenario["window"]))
    else:
        table = _bootstrap(source, scenario["block"], np.random.default_rng([seed, r, 2]))
    if scenario["estimate_model"] is not None:
        from ..workload.estimates import with_estimates

        # the stream `clustersched lublin --seed S --estimates SPEC` uses: spawn key 1 of the replication's seed
        stream = np.random.default_rng(np.random.SeedSequence(seed + r, spawn_key=(1,)))
        table = with_estimates(table, scenario["estimate_model"], seed=stream)
    return table


def _scaled(table: JobTable, procs: int, load: float, what: str) -> JobTable:
    """``scale_to_load(table, procs, load)``, or ValueError when ``load`` takes the submit times past the
    library's time limit (:data:`clustersched.workload.swf.MAX_TIME`) or beyond what float64 seconds resolve
    (the load achieved would not be ``load``).  ``what`` names the table in the message."""
    from ..workload.swf import MAX_TIME

    scaled = scale_to_load(table, procs, load)
    first, last = float(scaled.submit.min()), float(scaled.submit.max())
    if not last <= MAX_TIME:
        # the scaled span is the work over procs x load, whatever the span before
        lowest = (last - first) * load / (MAX_TIME - first) if first < MAX_TIME else math.inf
        raise ValueError(
            f"load {load:g} spreads the submissions of {what} over {last - first:.3g} s, past the "
            f"library's time limit of {MAX_TIME:.0e} s (clustersched.workload.swf.MAX_TIME); "
            f"this workload's loads must be >= {lowest:.3g}"
        )
    try:
        achieved = offered_load(scaled, procs)
    except ValueError:
        achieved = math.inf
    if not abs(achieved / load - 1) <= 1e-6:
        raise ValueError(
            f"load {load:g} compresses the inter-arrival times of {what} below what float64 submit "
            f"times resolve (every job would arrive at about {first:.6g} s): pass a lower load"
        )
    return scaled


def run_scenario(
    source: JobTable | Lublin,
    scenario: dict[str, Any],
    *,
    validate: bool | None = None,
    policies: dict[str, bytes] | None = None,
) -> dict[str, Any]:
    """One (policy, load, replication) of a sweep: the campaign's scenario function (bound to ``source`` with
    :func:`functools.partial`).  Returns the metrics' ``summary()``, the loads before and after scaling, and
    the simulator's wall-clock time; ``validate`` is :func:`~clustersched.batch.simulator.simulate`'s.
    ``policies`` maps the key of each :class:`~clustersched.batch.Policy` instance swept (:func:`policy_key`)
    to its pickled bytes; every scenario unpickles a fresh copy, so no state a policy keeps passes from one
    scenario to the next, in a worker or in this process."""
    from .metrics import batch_metrics
    from .simulator import simulate

    procs = scenario["procs"]
    table = _replica(source, scenario)
    native = offered_load(table, procs)
    scaled = _scaled(table, procs, scenario["load"], f"replication {scenario['replication']}")
    policy: str | Policy = scenario["policy"]
    if policies is not None and policy in policies:
        policy = pickle.loads(policies[scenario["policy"]])
    began = time.perf_counter()
    run = simulate(scaled, policy, procs=procs, estimates=scenario["estimates"], validate=validate)
    seconds = time.perf_counter() - began
    summary = batch_metrics(run.schedule).summary()
    return {**summary, "native_load": native, "achieved_load": offered_load(scaled, procs), "sim_seconds": seconds}


# -- your own policies -------------------------------------------------------------------------------------------------
def policy_key(policy: Policy) -> str:
    """The name a :class:`~clustersched.batch.Policy` instance has in a sweep's results: ``"NAME#DIGEST"``.

    ``NAME`` is its ``name`` attribute; ``DIGEST`` (8 hex digits) a hash of
    what makes it behave as it does: its class's module and qualified name,
    the byte code, constants and names of the methods of every class of it
    up to :class:`~clustersched.batch.Policy`, its class attributes (but
    Python's own ``__dunder__`` ones), and its instance attributes (pickled, else by ``repr``).  Two configurations of
    one class get two keys, and the same class and parameters the same key in
    every run and in a new notebook kernel (file names and line numbers are
    left out), so a stored sweep resumes; a change to the code makes a new
    key, whose scenarios are computed afresh (so does a new Python version,
    whose byte code differs).

    Examples
    --------
    >>> from clustersched.batch import Policy
    >>> class Greedy(Policy):
    ...     name = "greedy"
    ...     def __init__(self, depth=1):
    ...         self.depth = depth
    >>> policy_key(Greedy()) == policy_key(Greedy()), policy_key(Greedy()) == policy_key(Greedy(2))
    (True, False)
    >>> policy_key(Greedy()).split("#")[0]
    'greedy'
    """
    if not isinstance(policy, Policy):
        raise TypeError(f"policy == {short_repr(policy)}, must be a clustersched.batch.Policy instance")
    name = policy.name
    if not isinstance(name, str) or not name.strip() or "#" in name:
        raise ValueError(
            f"policy.name == {short_repr(name)} (of {type(policy).__name__}), must be a non-empty str without '#'"
        )
    digest = hashlib.sha256()
    cls = type(policy)
    digest.update(f"{cls.__module__}:{cls.__qualname__}".encode())
    for klass in cls.__mro__:
        if klass is Policy or klass is object:
            break
        for attribute, value in sorted(vars(klass).items()):
            if (
                attribute.startswith("__")
                and attribute.endswith("__")
                and not callable(getattr(value, "__func__", value))
            ):
                continue  # Python's bookkeeping (__module__, __firstlineno__, __slotnames__ pickle adds, ...)
            digest.update(attribute.encode())
            digest.update(_behaviour(value))
    state = getattr(policy, "__dict__", {})
    try:
        digest.update(pickle.dumps(sorted(state.items()), protocol=4))
    except Exception:  # unpicklable attributes: their text
        digest.update(repr(sorted(state.items())).encode())
    return f"{name}#{digest.hexdigest()[:8]}"


def _behaviour(value: Any) -> bytes:
    """The bytes of a class attribute that decide what it does: a function's code (not where it was written)."""
    if isinstance(value, (staticmethod, classmethod)):
        value = value.__func__
    if isinstance(value, property):
        return b"".join(_behaviour(f) for f in (value.fget, value.fset, value.fdel) if f is not None)
    code = getattr(value, "__code__", None)
    if isinstance(code, types.CodeType):
        return _code_bytes(code) + repr(getattr(value, "__defaults__", None)).encode()
    return repr(value).encode()


def _code_bytes(code: types.CodeType) -> bytes:
    parts = [code.co_code, repr(code.co_names).encode(), repr(code.co_varnames).encode()]
    for const in code.co_consts:
        parts.append(_code_bytes(const) if isinstance(const, types.CodeType) else repr(const).encode())
    return b"\0".join(parts)


def _pickled_policy(policy: Policy, where: str) -> bytes:
    """``policy`` pickled by value where its class cannot be imported by name (a notebook's, a script's
    ``__main__``), with cloudpickle (as Dask does), so a worker process needs none of the user's code."""
    import cloudpickle

    try:
        data = cloudpickle.dumps(policy)
        pickle.loads(data)
    except Exception as exc:
        raise TypeError(
            f"{where} == {short_repr(policy)} cannot be pickled for the scenarios ({type(exc).__name__}: "
            f"{exc}); keep in it only what pickle can copy (no open file, lock or generator)"
        ) from None
    return data


def _policies(policies: Any) -> tuple[tuple[str, ...], dict[str, bytes]]:
    """The sweep's policies by their names in the results (built-in names canonical, instances by
    :func:`policy_key`), each once, and the pickled instances by key."""
    if isinstance(policies, (str, Policy)):
        policies = (
            [p for p in (x.strip() for x in policies.split(",")) if p] if isinstance(policies, str) else [policies]
        )
    if not isinstance(policies, Sequence) or not policies:
        raise ValueError(
            f"policies == {short_repr(policies)}, must name at least one built-in policy or hold "
            "a clustersched.batch.Policy instance"
        )
    names: list[str] = []
    pickled: dict[str, bytes] = {}
    for i, p in enumerate(policies):
        if isinstance(p, Policy):
            key = policy_key(p)
            if key not in pickled:
                pickled[key] = _pickled_policy(p, f"policies[{i}]")
        elif isinstance(p, type) and issubclass(p, Policy):
            raise TypeError(f"policies[{i}] == {p.__name__}, a class: pass an instance, {p.__name__}()")
        elif isinstance(p, str):
            key = lookup("policy", p, BUILTIN_POLICIES)
        else:
            raise TypeError(
                f"policies[{i}] == {short_repr(p)}, must be a built-in policy name or a "
                "clustersched.batch.Policy instance"
            )
        names.append(key)
    return tuple(dict.fromkeys(names)), pickled


def _which(what: str, policy: Any, names: Sequence[str]) -> str:
    """The name in ``names`` of ``policy``: a Policy instance, a built-in name (:func:`lookup`'s rule), a
    key, or the ``name`` of the one instance swept with it."""
    if isinstance(policy, Policy):
        key = policy_key(policy)
        if key in names:
            return key
        raise ValueError(f"{what} == {key}, must be one of the policies run: {', '.join(names)}")
    try:
        return lookup(what, policy, names)
    except ValueError:
        if isinstance(policy, str):
            mine = [n for n in names if "#" in n and n.split("#")[0] == policy.strip()]
            if len(mine) == 1:
                return mine[0]
        raise


# -- aggregation -------------------------------------------------------------------------------------------------------
def aggregate(
    rows: Iterable[dict[str, Any]],
    metrics: Sequence[str] | None = None,
    *,
    by: Sequence[str] = ("policy", "load"),
    confidence: float = 0.95,
) -> list[dict[str, Any]]:
    """Mean and percentile-bootstrap confidence interval of each metric over the replications, per policy and load.

    Parameters
    ----------
    rows : iterable of dict
        The tidy rows (:attr:`SweepResult.rows`); those whose ``status`` is
        not ``"ok"`` are left out.
    metrics : sequence of str, optional
        The columns to aggregate (default: every numeric one that is not a
        scenario parameter).
    by : sequence of str
        The grouping columns, in the order of first appearance of each group.
    confidence : float
        Level of the interval, in (0, 1).

    Returns
    -------
    list of dict
        One row per group: the ``by`` columns, ``replications`` (n, the rows
        that ran), and for each metric ``m``: ``m_mean``, ``m_std`` (sample
        standard deviation, ddof=1), ``m_ci_low`` and ``m_ci_high``: the
        percentile bootstrap interval of the mean (Notes).  With ``n == 1``
        the last three are None: one replication has no interval.

    Notes
    -----
    **The interval: a percentile bootstrap of the mean.**  The ``n`` values
    are resampled with replacement :data:`BOOTSTRAP_RESAMPLES` times (a
    generator seeded with :data:`BOOTSTRAP_SEED`, drawn once per group, so
    the same rows give the same interval everywhere); the interval runs from
    the ``(1 - confidence) / 2`` to the ``(1 + confidence) / 2`` quantile of
    the resampled means (numpy's linear interpolation).  Every resampled mean
    lies between the least and the greatest value observed, so the interval
    never leaves the observed range, and so never the metric's own: a wait
    stays ``>= 0``, a bounded slowdown ``>= 1``, a utilization in ``[0, 1]``
    (a Student-t interval, symmetric about the mean, reached -5,694 s of
    average wait on a skewed sample of three).  It is asymmetric where the
    values are skewed, and it assumes independent replications.  With few
    replications it is narrow (at most the range of the values; with
    ``n <= 3`` at 95% exactly the range): run more replications for an
    interval that covers the mean as often as it says.

    Examples
    --------
    >>> rows = [{"policy": "easy", "load": 0.5, "wait": w, "status": "ok"} for w in (1.0, 2.0, 3.0)]
    >>> a = aggregate(rows, ["wait"])[0]
    >>> a["replications"], a["wait_mean"], a["wait_std"], a["wait_ci_low"], a["wait_ci_high"]
    (3, 2.0, 1.0, 1.0, 3.0)
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence == {confidence}, must be in (0, 1)")
    rows = [r for r in rows if r.get("status", "ok") == "ok"]
    if metrics is None:
        skip = set(SCENARIO_COLUMNS) | set(by) | {"seconds", "status", "error", "traceback", "finished_at"}
        metrics = [
            k
            for k in dict.fromkeys(k for r in rows for k in r)
            if k not in skip and all(_is_number(r.get(k)) for r in rows if r.get(k) is not None)
        ]
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault(tuple(r[k] for k in by), []).append(r)
    out = []
    for key, members in groups.items():
        row: dict[str, Any] = dict(zip(by, key))
        row["replications"] = len(members)
        for m in metrics:
            x = np.array([r[m] for r in members if r.get(m) is not None], dtype=float)
            n = len(x)
            row[f"{m}_mean"] = float(x.mean()) if n else None
            if n >= 2:
                low, high = bootstrap_interval(x, confidence)
                row.update({f"{m}_std": float(x.std(ddof=1)), f"{m}_ci_low": low, f"{m}_ci_high": high})
            else:
                row.update({f"{m}_std": None, f"{m}_ci_low": None, f"{m}_ci_high": None})
        out.append(row)
    return out


def bootstrap_interval(values: Sequence[float] | np.ndarray, confidence: float = 0.95) -> tuple[float, float]:
    """The percentile bootstrap interval of the mean of ``values`` (Notes of :func:`aggregate`).

    Always within ``[min(values), max(values)]``; deterministic (seeded with :data:`BOOTSTRAP_SEED`).

    Examples
    --------
    >>> bootstrap_interval([1.0, 1.0, 1.0, 1000.0])
    (1.0, 750.25)
    """
    x = np.asarray(values, dtype=float)
    n = len(x)
    if n < 2:
        raise ValueError(f"values has {n} value(s), must have at least 2")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence == {confidence}, must be in (0, 1)")
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    means = np.empty(BOOTSTRAP_RESAMPLES)
    step = max(1, 1_000_000 // n)  # resamples per block: at most a million indices in memory
    for first in range(0, BOOTSTRAP_RESAMPLES, step):
        count = min(step, BOOTSTRAP_RESAMPLES - first)
        means[first : first + count] = x[rng.integers(0, n, size=(count, n))].mean(axis=1)
    low, high = np.quantile(means, [(1 - confidence) / 2, (1 + confidence) / 2])
    # the mean of equal values can differ from them in the last bit: keep the interval inside the values
    return float(np.clip(low, x.min(), x.max())), float(np.clip(high, x.min(), x.max()))


def relative(
    rows: Iterable[dict[str, Any]], baseline: str, metric: str = "avg_bounded_slowdown", *, confidence: float = 0.95
) -> list[dict[str, Any]]:
    """Each policy's metric as a ratio to ``baseline``'s on the same replication, per policy and load.

    A paired comparison: every policy ran on the very same table in a given
    (load, replication), so the ratio ``policy / baseline`` removes the
    variation between replications that the absolute intervals of
    :func:`aggregate` carry, and its interval is much narrower.  Ratios are
    summarised on the log scale: ``m_ratio_mean`` is the geometric mean of the
    ratios, and ``m_ratio_ci_low`` / ``_ci_high`` are ``exp`` of the
    Student-t interval of the mean log ratio (None with one pair).  A pair in
    which either value is not > 0 (a wait of 0 at a low load) has no ratio and
    is left out; ``replications`` counts the pairs used.

    Examples
    --------
    >>> rows = [{"policy": p, "load": 0.5, "replication": r, "wait": w, "status": "ok"}
    ...         for r, (a, b) in enumerate([(10.0, 5.0), (20.0, 10.0)]) for p, w in (("easy", a), ("dpsa-n", b))]
    >>> [(a["policy"], a["replications"], a["wait_ratio_mean"], a["wait_ratio_ci_low"])
    ...  for a in relative(rows, "easy", "wait")]
    [('easy', 2, 1.0, 1.0), ('dpsa-n', 2, 0.5, 0.5)]
    """
    from scipy import stats

    rows = [r for r in rows if r.get("status", "ok") == "ok"]
    base = {(r["load"], r["replication"]): r.get(metric) for r in rows if r["policy"] == baseline}
    if not base:
        raise ValueError(
            f"baseline == {baseline!r}, must be one of the policies run: "
            f"{', '.join(dict.fromkeys(r['policy'] for r in rows))}"
        )
    groups: dict[tuple[str, float], list[float]] = {}
    for r in rows:
        b, x = base.get((r["load"], r["replication"])), r.get(metric)
        group = groups.setdefault((r["policy"], r["load"]), [])
        if _is_number(b) and _is_number(x) and b > 0 and x > 0:  # type: ignore[operator]
            group.append(math.log(x / b))  # type: ignore[operator]
    out = []
    for (policy, load), logs in groups.items():
        n = len(logs)
        row: dict[str, Any] = {
            "policy": policy,
            "load": load,
            "replications": n,
            f"{metric}_ratio_mean": math.exp(sum(logs) / n) if n else None,
            f"{metric}_ratio_ci_low": None,
            f"{metric}_ratio_ci_high": None,
        }
        if n >= 2:
            x = np.array(logs)
            half = float(stats.t.ppf((1 + confidence) / 2, n - 1)) * float(x.std(ddof=1)) / math.sqrt(n)
            row[f"{metric}_ratio_ci_low"] = math.exp(float(x.mean()) - half)
            row[f"{metric}_ratio_ci_high"] = math.exp(float(x.mean()) + half)
        out.append(row)
    return out


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float, np.number)) and not isinstance(x, bool)


# -- figures -----------------------------------------------------------------------------------------------------------
def plot_sweep(
    summary: Sequence[dict[str, Any]],
    metric: str = "avg_bounded_slowdown",
    *,
    ax: Any = None,
    title: str | None = None,
    log: bool | None = None,
    ylabel: str | None = None,
) -> Any:
    """One metric against the offered load: a line per policy (its mean), a band for its confidence interval.

    Parameters
    ----------
    summary : sequence of dict
        Rows of :func:`aggregate` (:attr:`SweepResult.summary`), with
        ``policy``, ``load`` and ``<metric>_mean`` (and ``_ci_low``,
        ``_ci_high``, drawn as a band where present).
    metric : str
        The summary key to draw (see :data:`METRIC_LABELS` for the labels and
        units of the usual ones).
    ax : matplotlib Axes, optional
        Draw there (default: a new figure of its own, :func:`clustersched.plot.figure`).
    title : str, optional
    ylabel : str, optional
        The y axis's label (default: the metric's, from :data:`METRIC_LABELS`).
    log : bool, optional
        A log y axis (default: for slowdowns and ratios).  Bands are drawn as
        computed, never clipped: the intervals of :func:`aggregate` stay within
        the values observed, so a slowdown's band stays ``>= 1``; on a log axis
        the stretch of a band that reaches 0 or below (a wait of 0 s at a low
        load) is left out rather than cut.

    Returns
    -------
    matplotlib.figure.Figure
        Each policy has its own colour, marker and line style
        (:func:`clustersched.plot.styles`), and its name as the command line
        spells it in the legend.  pyplot is never used.

    Examples
    --------
    >>> rows = [{"policy": p, "load": l, "replications": 1, "avg_bounded_slowdown_mean": s}
    ...         for p, s0 in (("easy", 1.0), ("fcfs", 2.0)) for l, s in ((0.5, s0), (0.9, 3 * s0))]
    >>> fig = plot_sweep(rows)
    >>> [line.get_label() for line in fig.axes[0].get_lines()]
    ['easy', 'fcfs']
    """
    from ..plot import figure_and_axes, plain_log_ticks, styles

    fig, ax = figure_and_axes(ax, (7, 4.5))
    label, default_log = METRIC_LABELS.get(metric, (_label(metric), "slowdown" in metric or "ratio" in metric))
    label = ylabel if ylabel is not None else label
    policies = list(dict.fromkeys(r["policy"] for r in summary))
    style = styles(len(policies))
    if not any(f"{metric}_mean" in r for r in summary):
        raise ValueError(
            f"metric == {metric!r}, must be one of the summary's: "
            f"{', '.join(sorted({k[:-5] for r in summary for k in r if k.endswith('_mean')}))}"
        )
    banded = False
    for i, policy in enumerate(policies):
        points = sorted(
            (r["load"], r[f"{metric}_mean"], r.get(f"{metric}_ci_low"), r.get(f"{metric}_ci_high"))
            for r in summary
            if r["policy"] == policy and r.get(f"{metric}_mean") is not None
        )
        if not points:
            continue
        load, mean, low, high = zip(*points)
        color = style[i]["color"]
        ax.plot(load, mean, **style[i], label=policy)
        band = [(x, lo, hi) for x, lo, hi in zip(load, low, high) if lo is not None and hi is not None]
        if band:
            banded = True
            bx, blo, bhi = (np.array(v, dtype=float) for v in zip(*band))
            # a log axis has no place for a bound <= 0: those loads get no band, and nothing is clipped
            where = (blo > 0) & (bhi > 0) if (log if log is not None else default_log) else np.ones(len(bx), bool)
            ax.fill_between(
                bx,
                np.where(where, blo, np.nan),
                np.where(where, bhi, np.nan),
                where=where,
                color=color,
                alpha=0.18,
                linewidth=0,
            )
    if log if log is not None else default_log:
        ax.set_yscale("log")
        plain_log_ticks(ax.yaxis)  # 0.5, 1, 2, 300 rather than 5 x 10^-1
    ax.set_xlabel("offered load (submitted work / machine capacity)")
    ax.set_ylabel(label)
    reps = sorted({r["replications"] for r in summary if "replications" in r})
    if title is None:
        if banded:
            n = reps[0] if len(reps) == 1 else f"{reps[0]}-{reps[-1]}"
            title = f"mean of {n} replications; band: 95% confidence interval ({INTERVAL})"
        else:
            title = "one replication: no confidence interval"
    ax.set_title(title, fontsize=9)
    ax.grid(True, alpha=0.3)
    if ax.get_lines():  # not when no policy has a value (every ratio to a wait of 0 left out)
        ax.legend(title="policy", fontsize=8)
    return fig


def _label(metric: str) -> str:
    unit = " (s)" if any(w in metric for w in ("wait", "response", "makespan")) else ""
    return metric.replace("_", " ") + unit


def known_metrics() -> tuple[str, ...]:
    """The metrics a sweep's rows carry: every key of :meth:`BatchMetrics.summary
    <clustersched.batch.BatchMetrics.summary>` (found on a two-job schedule), ``native_load``,
    ``achieved_load`` and ``sim_seconds``."""
    from .metrics import batch_metrics
    from .schedule import Schedule

    s = Schedule(
        job_id=np.array([1, 2]),
        submit=np.array([0.0, 1.0]),
        start=np.array([0.0, 1.0]),
        end=np.array([5.0, 6.0]),
        procs=np.array([1, 1]),
        total_procs=2,
    )
    keys = [k for k, v in batch_metrics(s).summary().items() if _is_number(v)]
    return tuple(dict.fromkeys([*keys, "native_load", "achieved_load", "sim_seconds"]))


def check_figure_metrics(metrics: Sequence[str], name: str = "figures") -> list[str]:
    """``metrics`` if each is one of :func:`known_metrics`, else ValueError naming them."""
    if isinstance(metrics, str) or not all(isinstance(m, str) for m in metrics):
        raise TypeError(f"{name} == {short_repr(metrics)}, must be a list of metric names")
    known = known_metrics()
    unknown = [m for m in metrics if m not in known]
    if unknown:
        raise ValueError(
            f"{name} == {','.join(metrics)}: unknown {', '.join(map(repr, unknown))}, must be among {', '.join(known)}"
        )
    return list(metrics)


# -- the result --------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SweepResult:
    """What :func:`sweep` computed.

    Attributes
    ----------
    workload : str
        The workload's key in the results (a trace's file name, job count and fingerprint, or the Lublin
        model's parameters): what the stored scenarios are keyed by.
    policies, loads : tuple
        As run (built-in policies by their canonical names, your own by :func:`policy_key`).
    replications : int
    rows : list of dict
        The tidy table: one row per policy x load x replication, in that
        order, with the scenario's parameters, every key of
        :meth:`BatchMetrics.summary <clustersched.batch.BatchMetrics.summary>`,
        ``native_load``, ``achieved_load``, ``sim_seconds``, and the campaign's
        ``status``, ``error``, ``seconds``.
    summary : list of dict
        :func:`aggregate` of ``rows``: one row per policy x load.
    out : Path or None
        The folder written (None: nothing was written).
    files : tuple of Path
        The files written there.
    title : str
        The workload for a reader, as the figures' titles give it: the trace's file name, its jobs and the
        machine's processors (``"KTH-SP2-1996-2.1-cln.swf (28,467 jobs, 100 procs)"``), or
        ``"Lublin (5,000 jobs, 128 procs)"`` (default: ``workload``).
    """

    workload: str
    policies: tuple[str, ...]
    loads: tuple[float, ...]
    replications: int
    rows: list[dict[str, Any]]
    summary: list[dict[str, Any]]
    out: Path | None = None
    files: tuple[Path, ...] = ()
    title: str = ""

    @property
    def errors(self) -> int:
        """How many scenarios ended in an error (their ``error`` column says why)."""
        return sum(r["status"] != "ok" for r in self.rows)

    def metrics(self) -> list[str]:
        """The aggregated metrics (the ``m`` of the summary's ``m_mean`` columns)."""
        return list(dict.fromkeys(k[:-5] for r in self.summary for k in r if k.endswith("_mean")))

    def to_pandas(self) -> "pandas.DataFrame":
        """The tidy table as a DataFrame (:func:`clustersched.campaign.to_pandas`: ``seconds`` is ``wall_s``)."""
        from ..campaign import to_pandas

        return to_pandas([{k: v for k, v in r.items() if k != "traceback"} for r in self.rows])

    def summary_to_pandas(self) -> "pandas.DataFrame":
        """The summary (one row per policy x load) as a DataFrame."""
        from ..campaign import to_pandas

        return to_pandas(self.summary)

    def relative(self, baseline: str, metric: str = "avg_bounded_slowdown") -> list[dict[str, Any]]:
        """:func:`relative`: each policy's ``metric`` as a ratio to ``baseline``'s, paired by replication."""
        return relative(self.rows, _which("baseline", baseline, self.policies), metric)

    def plot(self, metric: str = "avg_bounded_slowdown", *, baseline: str | None = None, **options: Any) -> Any:
        """:func:`plot_sweep` of this sweep's summary, titled with its workload; with ``baseline``, of
        :meth:`relative` (the ratio to that policy, a dotted line at 1)."""
        if baseline is None:
            if "title" not in options:
                options["title"] = f"{self.title or self.workload}\n" + _band_note(self.summary)
            return plot_sweep(self.summary, metric, **options)
        rows = self.relative(baseline, metric)
        label = METRIC_LABELS.get(metric, (_label(metric), False))[0]
        name = _which("baseline", baseline, self.policies)
        options.setdefault("ylabel", f"{label}\nrelative to {name} (same replication)")
        if "title" not in options:
            options["title"] = f"{self.title or self.workload}\ngeometric mean of the ratios" + (
                "; band: 95% confidence interval (Student t, log scale)"
                if any(r[f"{metric}_ratio_ci_low"] is not None for r in rows)
                else ""
            )
        fig = plot_sweep(rows, f"{metric}_ratio", **options)
        fig.axes[0].axhline(1.0, color="black", linewidth=0.8, linestyle=":")
        return fig


def _band_note(summary: Sequence[dict[str, Any]]) -> str:
    reps = sorted({r["replications"] for r in summary})
    if not reps or reps[-1] < 2:
        return "one replication: no confidence interval"
    n = reps[0] if len(reps) == 1 else f"{reps[0]}-{reps[-1]}"
    return f"mean of {n} replications; band: 95% confidence interval ({INTERVAL})"


def default_figure_metrics(summary: Sequence[dict[str, Any]]) -> list[str]:
    """:data:`FIGURE_METRICS` and every ``p90`` metric the summary has."""
    have = list(dict.fromkeys(k[:-5] for r in summary for k in r if k.endswith("_mean")))
    return [m for m in FIGURE_METRICS if m in have] + [m for m in have if "p90" in m]


# -- the sweep ---------------------------------------------------------------------------------------------------------
def sweep(
    workload: JobTable | Lublin,
    policies: Sequence[str | Policy] | str,
    loads: Sequence[float] | str,
    *,
    replications: int = 1,
    replicate: str | None = None,
    window: int | None = None,
    procs: int | None = None,
    estimates: str = "requested",
    estimate_model: str | None = None,
    oversized: str = "error",
    seed: int = 0,
    out: str | os.PathLike[str] | None = None,
    figures: Sequence[str] | None = None,
    baseline: str | None = None,
    workers: int | None = None,
    dask: Any = None,
    progress: bool = True,
    validate: bool | None = None,
) -> SweepResult:
    """Simulates every policy at every offered load, ``replications`` times, and aggregates with 95% CIs.

    The load rule, the replication methods and the interval are written down
    in the Notes below.

    Parameters
    ----------
    workload : JobTable or Lublin
        A real trace (cleaned: see
        :func:`~clustersched.workload.transform.drop_invalid`), or
        ``Lublin(jobs, procs)`` for Lublin-Feitelson workloads drawn per
        replication.
    policies : sequence of str or Policy, or str
        Built-in policy names (``"easy"``, ``"conservative"``, ``"dpsa-n"``,
        ...; a comma-separated str is accepted; looked up ignoring case with
        ``-`` and ``_`` alike), and your own :class:`~clustersched.batch.Policy`
        instances, even of a class defined in a notebook or in a script's
        ``__main__`` (Notes, "Your own policies").
    loads : sequence of float, or str
        Target offered loads, > 0; or ``"A:B:STEP"`` / ``"0.5,0.7"``
        (:func:`parse_loads`).
    replications : int
        ``R >= 1``.
    replicate : {"seeds", "windows", "days", "weeks"}, optional
        How replications differ: ``"seeds"`` for a Lublin workload (the only
        choice and its default), ``"windows"`` (default), ``"days"`` or
        ``"weeks"`` for a trace.
    window : int, optional
        With ``"windows"``: jobs per replication, ``2 .. len(workload)``
        (default ``len(workload) // replications``: disjoint windows).
    procs : int, optional
        Processors of the machine (default: the trace's ``MaxProcs``; the
        Lublin workload's ``procs``).
    estimates : {"requested", "exact"}
        The run times the policies believe (:func:`~clustersched.batch.simulator.simulate`).
    estimate_model : str, optional
        ``"exact"``, ``"f:F"`` or ``"modal"``: requested times drawn for every
        replication's table by :func:`~clustersched.workload.estimates.with_estimates`
        (Notes; use ``estimates="requested"`` for the policies to believe
        them).  Default: the table's own.
    oversized : {"error", "skip", "clip"}
        Jobs of the trace wider than the machine: an error, dropped, or
        clipped to the machine, once, before the replications are made
        (:func:`~clustersched.workload.transform.drop_invalid`), so that the
        achieved load counts exactly the jobs simulated.
    seed : int
        The replications' seeds derive from it (Notes).
    out : path, optional
        A folder (created if missing) for ``campaign.sqlite`` (resumable),
        ``results.csv`` (the tidy table), ``summary.csv`` (the aggregate)
        and one ``<metric>.png`` per figure.  Default: nothing written, the
        campaign held in memory.
    figures : sequence of str, optional
        The metrics drawn to ``out`` (default :data:`FIGURE_METRICS` and the
        summary's ``p90`` metrics; ``[]`` for none).
    baseline : str or Policy, optional
        A policy of ``policies`` (an instance, its key, or the ``name`` of
        the one instance of that name): ``out`` also gets ``relative.csv``
        (:func:`relative` of every figure metric) and one
        ``<metric>_vs_<baseline>.png`` per figure.
    workers, dask, progress
        Where the scenarios run and whether a progress bar shows
        (:func:`clustersched.campaign.run_campaign`).
    validate : bool, optional
        Check every schedule with :func:`~clustersched.batch.validate_batch`
        (default: as :func:`~clustersched.batch.simulator.simulate` decides,
        from ``CLUSTERSCHED_VALIDATE``).

    Returns
    -------
    SweepResult

    Notes
    -----
    **Offered load.**  :func:`~clustersched.workload.transform.offered_load`:
    ``sum(runtime * width) / (procs * (last submit - first submit))``.  A
    replication's table is brought to a target load by
    :func:`~clustersched.workload.transform.scale_to_load`, which multiplies every
    inter-arrival time by one constant; runtimes, widths and requested times are
    unchanged, so the *achieved* load of each scenario (the ``achieved_load``
    column, computed on the very table simulated) equals the target up to
    floating-point rounding.  ``native_load`` is the replication's load before
    scaling.

    **Replications** (``replicate=``):

    * ``"seeds"`` (synthetic workloads, the only choice for them): replication
      ``r`` draws its own workload with seed ``seed + r``, so ``clustersched
      lublin --seed S+r`` writes the very trace replication ``r`` ran.  The
      replications are independent samples of the model.
    * ``"windows"`` (real traces, the default): replication ``r`` simulates
      ``window`` consecutive jobs of the trace starting at job
      ``floor(r * (N - window) / (R - 1))`` (``0`` when ``R == 1``), where ``N``
      is the number of jobs and ``R`` of replications.  The default ``window`` is
      ``N // R``: ``R`` disjoint consecutive windows that cover the trace -- the
      method of batch means.  A longer window is allowed, but the windows then
      overlap, their results are correlated, and the interval is too narrow
      (optimistic).  Assumption: the windows are independent samples of the site's
      workload (no strong trend across the trace); each is scaled to the target
      load on its own.
    * ``"days"`` / ``"weeks"``: a block bootstrap.  The trace is cut into
      ``K`` consecutive blocks of one day (week) of submit time, counted from the
      first submission (idle blocks included), and replication ``r`` draws ``K``
      blocks uniformly with replacement (generator
      ``numpy.random.default_rng([seed, r, 2])``) and lays them end to end, each
      job keeping its offset in its block (job ids renumbered ``1..n``).  This
      keeps the daily (weekly) cycle and the burstiness within a block, breaks
      the dependence across blocks, and uses the whole trace in every
      replication.  Assumption: blocks are exchangeable (no trend over the trace).

    **Runtime estimates.**  ``estimates=`` is the simulator's rule
    (:func:`~clustersched.batch.simulator.simulate`: ``"requested"`` believes
    ``max(requested time, runtime)``, ``"exact"`` the runtime).  A synthetic
    workload has no requested times (so ``"requested"`` is exact);
    ``estimate_model=`` (``"exact"``, ``"f:F"``, ``"modal"``) gives every
    replication's table requested times drawn by
    :func:`~clustersched.workload.estimates.with_estimates`, before the load
    scaling (which leaves them unchanged), from the generator
    ``numpy.random.default_rng(numpy.random.SeedSequence(seed + r, spawn_key=(1,)))``:
    the stream ``clustersched lublin --seed S --estimates SPEC`` uses, so that
    ``clustersched lublin --seed S+r --estimates SPEC`` writes the very table
    replication ``r`` of a Lublin sweep ran (before scaling).

    **Confidence intervals** (:func:`aggregate`): for each policy and load, over
    the ``n`` replications that ran without error, the mean and the 95%
    percentile bootstrap interval of the mean (10,000 resamples of the
    replications, seeded): it never leaves the range of the values observed,
    so never the metric's (a wait ``>= 0``, a bounded slowdown ``>= 1``, a
    utilization in ``[0, 1]``), and it is asymmetric where they are skewed.
    It assumes independent replications, and with few of them it is narrow
    (with ``n <= 3``, the range of the values).  ``std`` is the sample
    standard deviation (``ddof=1``).  With ``n == 1`` there is no interval:
    ``std``, ``ci_low`` and ``ci_high`` are empty (``None``) and the figures
    draw no band.

    **Checked before any scenario runs** (ValueError or
    :class:`~clustersched.errors.InvalidWorkloadError`, as
    :func:`~clustersched.batch.simulator.simulate` raises them; the command
    line exits 2): a trace's jobs, as ``simulate`` checks them (a job wider
    than ``procs`` with ``oversized="error"``, a job with no processor count
    or a negative runtime); every load on replication 0's table (a load whose
    submit times would pass the library's time limit of ``10**10`` s,
    :data:`clustersched.workload.swf.MAX_TIME`, or that compresses the
    inter-arrival times below what float64 seconds resolve); an f-model
    ``estimate_model`` whose estimates could pass that limit (``(F + 1)``
    times the longest runtime of the trace, or of the Lublin model).  Each
    scenario checks its own replication's scaled table the same way.

    **Your own policies.**  A :class:`~clustersched.batch.Policy` instance is
    named in the results by :func:`policy_key` (``"NAME#DIGEST"``, from its
    ``name``, its class's code and its attributes), so a rerun with the same
    ``out`` resumes it and two configurations never share rows.  It is pickled
    once, with cloudpickle, which copies by value a class that cannot be
    imported by name (defined in a notebook, or in the ``__main__`` of a
    script), as Dask does: worker processes and Dask workers run it without
    the user's code.  Every scenario unpickles a fresh copy, so state kept by
    the policy does not pass between scenarios.  ``baseline`` and
    :meth:`SweepResult.relative` take the instance, its key, or its ``name``.

    **Resuming.**  Every scenario is stored in ``out/campaign.sqlite`` under the
    campaign :data:`CAMPAIGN`, keyed by everything its result depends on (the
    workload's fingerprint included), so rerunning with the same ``out``
    computes only what is missing, and a different trace never reuses another's
    results.

    **Paired ratios** (:func:`relative`, ``baseline=``): every policy runs on the
    very same table in a given (load, replication), so each policy's metric
    divided by the baseline's on that replication removes the variation between
    replications; the ratios are summarised by their geometric mean and the
    Student-t interval of the mean log ratio, exponentiated.

    Examples
    --------
    >>> from clustersched.batch import Lublin, sweep
    >>> s = sweep(Lublin(300, 32), ["fcfs", "easy"], [0.6, 0.9], replications=2, workers=1, progress=False)
    >>> len(s.rows), len(s.summary), s.errors
    (8, 4, 0)
    >>> [round(r["achieved_load"], 6) for r in s.rows[:4]]
    [0.6, 0.6, 0.9, 0.9]
    >>> s.summary[0]["replications"], s.summary[0]["avg_bounded_slowdown_ci_low"] is not None
    (2, True)
    """
    from ..campaign import grid
    from .simulator import ESTIMATES, OVERSIZED

    names, pickled = _policies(policies)
    if baseline is not None:
        baseline = _which("baseline", baseline, names)
    loads = _check_loads(loads)
    replications = check_int("replications", replications, 1, MAX_REPLICATIONS)
    check_choice("estimates", estimates, ESTIMATES)
    check_choice("oversized", oversized, OVERSIZED)
    seed = check_int("seed", seed, 0, 2**63 - 1)
    if figures is not None:
        figures = check_figure_metrics(figures)
    if workers is not None and dask is not None:
        raise ValueError(f"workers == {workers} with dask: the Dask cluster sets its own workers")

    # the workload, and what the scenarios of each replication say about it
    per_replication: list[dict[str, Any]]
    source: JobTable | Lublin
    if isinstance(workload, Lublin):
        if replicate not in (None, "seeds"):
            raise ValueError(f"replicate == {replicate!r}, must be 'seeds' for a synthetic workload")
        if window is not None:
            raise ValueError(f"window == {window}: a synthetic workload has jobs={workload.jobs} per replication")
        if procs is not None and procs != workload.procs:
            raise ValueError(f"procs == {procs}: the Lublin workload is drawn for procs={workload.procs}")
        replicate, procs, source = "seeds", workload.procs, workload
        name = workload.describe()
        title = f"Lublin ({workload.jobs:,} jobs, {procs:,} procs)"
        per_replication = [{"offset": None, "window": None, "block": None} for _ in range(replications)]
    elif isinstance(workload, JobTable):
        replicate = "windows" if replicate is None else check_choice("replicate", replicate, REPLICATE[1:])
        if procs is None:
            procs = workload.max_procs
            if procs is None:
                raise ValueError(
                    f"procs == None and {workload!r} gives no machine size (no MaxProcs or MaxNodes "
                    "header line): pass procs"
                )
        procs = check_int("procs", procs, 1, MAX_PROCS)
        table = workload
        if oversized != "error":
            table = drop_invalid(
                workload, procs, wider="drop" if oversized == "skip" else "clip", nonpositive_runtime="keep"
            )
        source, n = table, len(table)
        if n < 2:
            raise ValueError(f"workload == {workload!r}, must hold at least 2 jobs (a load needs a span)")
        from .simulator import prepare_jobs

        # the checks simulate makes of every job (too wide, no width, runtime < 0), once for every scenario
        prepare_jobs(table, procs, "error")
        name = _fingerprint(table, procs)
        title = f"{Path(table.source).name if table.source else 'job table'} ({n:,} jobs, {procs:,} procs)"
        if replicate == "windows":
            size = n // replications if window is None else check_int("window", window, 2, n)
            if size < 2:
                raise ValueError(
                    f"replications == {replications}: {n} jobs make windows of {size} job(s), "
                    "must be >= 2; pass fewer replications or a window"
                )
            per_replication = [
                {
                    "offset": 0 if replications == 1 else (r * (n - size)) // (replications - 1),
                    "window": size,
                    "block": None,
                }
                for r in range(replications)
            ]
        else:
            if window is not None:
                raise ValueError(
                    f"window == {window} with replicate == {replicate!r}: a bootstrap resamples the whole trace"
                )
            per_replication = [
                {"offset": None, "window": None, "block": BLOCKS[replicate]} for _ in range(replications)
            ]
    else:
        raise TypeError(
            f"workload == {short_repr(workload)}, must be a JobTable (a trace) or "
            "clustersched.batch.Lublin(jobs, procs)"
        )
    if estimate_model is not None:
        from ..workload.estimates import parse_estimate_model

        # checked before any scenario runs, and spelled one way in the scenarios ("f:2.0" is "f:2")
        model = parse_estimate_model(estimate_model)
        estimate_model = str(model)
        if model.kind == "f":
            from ..workload.estimates import check_estimate_reach

            check_estimate_reach(
                model,
                _longest_runtime(source),
                what="the longest runtime"
                + (" the Lublin model draws" if isinstance(source, Lublin) else " of the trace"),
            )

    scenarios = []
    for s in grid(policy=list(names), load=list(loads), replication=list(range(replications))):
        scenario = {
            "workload": name,
            **s,
            "replicate": replicate,
            **per_replication[s["replication"]],
            "procs": procs,
            "estimates": estimates,
            "estimate_model": estimate_model,
            "seed": seed,
        }
        scenarios.append(scenario)
    # every load on replication 0's table, before any scenario: a load past the time limits fails them all
    first = _replica(source, {**scenarios[0], "estimate_model": None})
    for load in loads:
        try:
            _scaled(first, procs, load, "replication 0")
        except ValueError as exc:
            raise ValueError(f"loads == {short_repr(loads)}: {exc}") from None
    func = functools.partial(run_scenario, source, validate=validate, **({"policies": pickled} if pickled else {}))
    label = f"sweep of {name}: scenarios"

    if out is None:
        from ..campaign import Store, run_campaign

        with Store(":memory:") as store:
            rows = run_campaign(
                CAMPAIGN, scenarios, func, store=store, workers=workers, dask=dask, progress=progress, label=label
            )
        result_out = None
    else:
        from ..campaign.study import run_study

        result_out = Path(out)
        rows = run_study(
            result_out, CAMPAIGN, scenarios, func, workers=workers, dask=dask, progress=progress, label=label
        )
    summary = aggregate(rows)
    result = SweepResult(name, names, loads, replications, rows, summary, result_out, title=title)
    if result_out is not None:
        files = _write(result, figures, baseline)
        result = SweepResult(name, names, loads, replications, rows, summary, result_out, files, title=title)
    return result


def _longest_runtime(source: JobTable | Lublin) -> float:
    """The longest runtime any replication can hold: the trace's, or the Lublin model's bound."""
    if isinstance(source, Lublin):
        from ..workload.lublin import MAX_LOG_RUNTIME

        return float(math.ceil(math.exp(MAX_LOG_RUNTIME)))
    return float(np.max(source.runtime))


def _write(result: SweepResult, figures: Sequence[str] | None, baseline: str | None) -> tuple[Path, ...]:
    """results.csv, summary.csv, the figures (and relative.csv with the ratio figures), in ``result.out``."""
    from ..campaign.study import write_csv

    assert result.out is not None
    out = result.out
    columns = list(dict.fromkeys([*SCENARIO_COLUMNS, *(k for r in result.rows for k in r)]))
    columns = [c for c in columns if c not in ("traceback", "finished_at")]
    written = [out / "results.csv", out / "summary.csv"]
    write_csv(result.rows, written[0], columns)
    summary_columns = list(dict.fromkeys(k for r in result.summary for k in r)) or ["policy", "load", "replications"]
    write_csv(result.summary, written[1], summary_columns)
    if result.summary:
        metrics = default_figure_metrics(result.summary) if figures is None else list(figures)
        for metric in metrics:
            path = out / f"{metric}.png"
            save_figure(result.plot(metric), path, dpi=130)
            written.append(path)
        if baseline is not None:
            merged: dict[tuple[str, float], dict[str, Any]] = {}
            for metric in metrics:
                for r in result.relative(baseline, metric):
                    merged.setdefault((r["policy"], r["load"]), {}).update(r)
            path = out / "relative.csv"
            rows = list(merged.values())
            write_csv(rows, path, list(dict.fromkeys(k for r in rows for k in r)) or ["policy", "load"])
            written.append(path)
            for metric in metrics:
                path = out / f"{metric}_vs_{baseline}.png"
                save_figure(result.plot(metric, baseline=baseline), path, dpi=130)
                written.append(path)
    return tuple(written)
