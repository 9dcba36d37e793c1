"""Reading the Slurm simulator's job events (``*.events``): one submitted job a line.

The format of the Slurm simulator of the University at Buffalo
(ubccr-slurm-simulator, Simakov et al., PMBS 2017), which replays a workload
through a real slurmctld: each line is an event, then ``|``, then the job's
``sbatch`` options::

    -dt 10.50 -e submit_batch_job | -sim-walltime 84805.00 --uid=user001 -J jobid_00001 -N 1 -n 32 \\
        -t 3-00:00:00 -q general-compute -p general-compute --mem=500G pseudo.job

``-dt`` is the submit time, seconds from the start of the simulation;
``-sim-walltime`` the job's run time, seconds.  The sbatch options are read as
sbatch (Slurm 17.11 to 23.x) reads them, in either form (``-N 2``, ``--nodes=2``,
``--nodes 2``); when one is given twice, the last one counts, as in sbatch:

==============================  =================================================
option                          request
==============================  =================================================
``-N``, ``--nodes``             ``nodes`` (of ``min-max``, the minimum)
``-n``, ``--ntasks``            ``tasks``
``-c``, ``--cpus-per-task``     ``cpus_per_task``
``--ntasks-per-node``           ``tasks`` = nodes x this, when ``-n`` is not given
``--mem``                       ``mem_per_node_mb`` (K, M (default), G, T; ``0``: all)
``--mem-per-cpu``               ``mem_per_cpu_mb``
``--gres``                      ``gpus_per_node``, ``gpu_type`` (``gpu[:type]:N``)
``-C``, ``--constraint``        ``features``, as written
``-p``, ``--partition``         ``partition``
``-q``, ``--qos``               ``qos``
``-A``, ``--account``           ``account``
``--uid``                       ``user``
``-t``, ``--time``              ``time_limit`` (Slurm time formats)
``--exclusive``                 ``exclusive`` (``--exclusive=user`` or ``=mcs``,
                                sharing with the same user's jobs, is not
                                modelled: such a job is not exclusive)
``-J``, ``--job-name``          ``label``
==============================  =================================================

An option not in this table, or an event other than ``submit_batch_job``, is
an :class:`~clustersched.errors.InvalidWorkloadError` naming the line and the
option.  The last word (``pseudo.job``) is the batch script, ignored.

The table: ``job_id`` 1..n in file order, ``submit`` = ``-dt``, ``runtime`` =
``-sim-walltime``, ``wait`` -1 (unknown: the file says what was submitted,
not what ran), ``procs`` -1, ``procs_requested`` = tasks x CPUs per task,
``time_requested`` the time limit, ``mem_requested`` KB per processor,
``status`` -1, ``user_id``, ``queue`` and ``partition`` dense codes (1, 2, ...
in order of first appearance) of the user, QOS and partition, named in
``metadata`` (``Users``, ``Queues``, ``Partitions``).
"""

from __future__ import annotations

import gzip
import os
import re
from typing import Any

import numpy as np

from ..errors import InvalidWorkloadError
from ..workload.jobs import JobTable
from ..workload.requests import Requests
from .conf import parse_slurm_time

__all__ = ["read_slurm_events"]

# Option -> (request, whether it takes a value).
_OPTIONS = {
    "-N": "nodes",
    "--nodes": "nodes",
    "-n": "tasks",
    "--ntasks": "tasks",
    "-c": "cpus_per_task",
    "--cpus-per-task": "cpus_per_task",
    "--ntasks-per-node": "ntasks_per_node",
    "--mem": "mem",
    "--mem-per-cpu": "mem_per_cpu",
    "--gres": "gres",
    "-C": "features",
    "--constraint": "features",
    "-p": "partition",
    "--partition": "partition",
    "-q": "qos",
    "--qos": "qos",
    "-A": "account",
    "--account": "account",
    "--uid": "user",
    "-t": "time",
    "--time": "time",
    "-J": "label",
    "--job-name": "label",
    "-sim-walltime": "walltime",
}
_FLAGS = {"--exclusive": "exclusive"}
_SIZE = re.compile(r"([0-9]+(?:\.[0-9]+)?)([KMGT]?)B?", re.IGNORECASE)
_SCALE = {"K": 1 / 1024, "M": 1.0, "": 1.0, "G": 1024.0, "T": 1024.0**2}


def _size_mb(text: str) -> float:
    match = _SIZE.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"{text!r} is not a memory size (a number with K, M, G or T)")
    return float(match.group(1)) * _SCALE[match.group(2).upper()]


def _whole(text: str, *, minimum: int) -> int:
    first = text.split("-", 1)[0]  # "2-4" nodes: the minimum
    if not first.isdigit() or int(first) < minimum:
        raise ValueError(f"{text!r} is not a whole number >= {minimum}")
    return int(first)


def _number(text: str) -> float:
    value = float(text)
    if not np.isfinite(value) or value < 0:
        raise ValueError(f"{text!r} is not a number of seconds >= 0")
    return value


def read_slurm_events(path: str | os.PathLike[str]) -> JobTable:
    """Read a Slurm simulator events file (plain or gzip): its jobs as a JobTable with their Requests.

    See the module's docstring for the options read and the table's columns.

    Parameters
    ----------
    path : str or os.PathLike
        The file (``workload_week.events.gz``).

    Returns
    -------
    JobTable
        One row per ``submit_batch_job`` line, in file order, with ``requests``.

    Raises
    ------
    InvalidWorkloadError
        A line that is not ``-dt T -e submit_batch_job | options``, an unknown option, a bad value, or
        a file without jobs; the message names the file, line, job and option.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "w.events"
    >>> _ = f.write_text("-dt 10.5 -e submit_batch_job | -sim-walltime 600 --uid=user1 -J job1 -N 1 -n 4 "
    ...                  "-t 01:00:00 -q normal -p general --mem=8G --gres=gpu:2 pseudo.job\\n")
    >>> t = read_slurm_events(f)
    >>> t.submit.tolist(), t.runtime.tolist(), t.time_requested.tolist(), t.wait.tolist()
    ([10.5], [600.0], [3600.0], [-1.0])
    >>> r = t.requests
    >>> r.tasks.tolist(), r.mem_per_node_mb.tolist(), r.gpus_per_node.tolist(), r.label.tolist()
    ([4], [8192.0], [2], ['job1'])
    """
    path_str = os.fspath(path)
    with open(path_str, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as e:
            raise InvalidWorkloadError(f"is not a valid gzip file ({e})", path=path_str) from None
    rows: list[dict[str, Any]] = []
    for number, line in enumerate(raw.decode("utf-8", "replace").splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        rows.append(_line(line, number, path_str))
    if not rows:
        raise InvalidWorkloadError("has no job (no '-dt T -e submit_batch_job | ...' line)", path=path_str)
    n = len(rows)

    def col(key: str, default: Any) -> list[Any]:
        return [r.get(key, default) for r in rows]

    nodes = np.array(col("nodes", 0), dtype=np.int64)
    cpus_per_task = np.array(col("cpus_per_task", 1), dtype=np.int64)
    per_node_tasks = np.array(col("ntasks_per_node", 0), dtype=np.int64)
    tasks = np.array(col("tasks", 0), dtype=np.int64)
    tasks = np.where(tasks > 0, tasks, np.where(per_node_tasks > 0, np.maximum(nodes, 1) * per_node_tasks, 1))
    procs = tasks * cpus_per_task
    mem_node = np.array(col("mem", -1.0))
    mem_cpu = np.array(col("mem_per_cpu", -1.0))
    limit = np.array(col("time", -1.0))
    mem_kb = np.where(
        mem_cpu >= 0, mem_cpu * 1024.0, np.where(mem_node > 0, mem_node * 1024.0 * np.maximum(nodes, 1) / procs, -1.0)
    )
    # Slurm ends a job at its time limit (-t) when -sim-walltime exceeds it: a replay does too (workload/timelimit.py)
    metadata: dict[str, str] = {"Note": "read from a Slurm simulator events file by clustersched", "TimeLimit": "kill"}
    columns: dict[str, Any] = {
        "submit": np.array(col("dt", 0.0)),
        "runtime": np.array(col("walltime", -1.0)),
        "procs_requested": procs,
        "time_requested": np.where(np.isfinite(limit), limit, -1.0),
        "mem_requested": mem_kb,
    }
    codes = (("user", "user_id", "Users"), ("qos", "queue", "Queues"), ("partition", "partition", "Partitions"))
    for key, swf, name in codes:
        values = col(key, "")
        names = list(dict.fromkeys(v for v in values if v))
        code = {v: i for i, v in enumerate(names, start=1)}
        columns[swf] = np.array([code.get(v, -1) for v in values], dtype=np.int64)
        metadata[name] = ", ".join(f"{i}: {v}" for i, v in enumerate(names, start=1))
    requests = Requests(
        {
            "nodes": nodes,
            "tasks": tasks,
            "cpus_per_task": cpus_per_task,
            "mem_per_cpu_mb": mem_cpu,
            "mem_per_node_mb": mem_node,
            "gpus_per_node": np.array(col("gpus", 0), dtype=np.int64),
            "gpu_type": np.array(col("gpu_type", ""), dtype=object),
            "features": np.array(col("features", ""), dtype=object),
            "partition": np.array(col("partition", ""), dtype=object),
            "account": np.array(col("account", ""), dtype=object),
            "user": np.array(col("user", ""), dtype=object),
            "qos": np.array(col("qos", ""), dtype=object),
            "time_limit": limit,
            "exclusive": np.array(col("exclusive", False), dtype=bool),
            "label": np.array(col("label", ""), dtype=object),
        },
        n=n,
    )
    return JobTable(columns, metadata=metadata, source=path_str, requests=requests)


def _line(line: str, number: int, path: str) -> dict[str, Any]:
    """One job's values from its line."""
    event, bar, options = line.partition("|")
    words = event.split()
    if not bar or len(words) != 4 or words[0] != "-dt" or words[2] != "-e":
        raise InvalidWorkloadError(
            f"is not '-dt SECONDS -e submit_batch_job | OPTIONS': {line.strip()[:80]!r}", path=path, line=number
        )
    if words[3] != "submit_batch_job":
        raise InvalidWorkloadError(
            f"event {words[3]!r} is not submit_batch_job", path=path, line=number, field="-e", value=words[3]
        )
    values: dict[str, Any] = {}
    tokens = options.split()
    label = None
    if "-J" in tokens[:-1]:
        label = tokens[tokens.index("-J") + 1]
    try:
        values["dt"] = _number(words[1])
    except ValueError as e:
        raise InvalidWorkloadError(str(e), path=path, line=number, job_id=label, field="-dt", value=words[1]) from None
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if not token.startswith("-"):
            if i != len(tokens) - 1:
                raise InvalidWorkloadError(
                    f"{token!r} is not an option (only the batch script, last, may be a bare word)",
                    path=path,
                    line=number,
                    job_id=label,
                    value=token,
                )
            break
        option, eq, value = token.partition("=")
        if option in _FLAGS:
            values["exclusive"] = not eq or value == ""
            i += 1
            continue
        if option not in _OPTIONS:
            raise InvalidWorkloadError(
                f"option {option!r} is not one read from events files (known: "
                f"{', '.join(sorted(set(_OPTIONS) | set(_FLAGS)))})",
                path=path,
                line=number,
                job_id=label,
                field=option,
                value=token,
            )
        if not eq:
            if i + 1 >= len(tokens):
                raise InvalidWorkloadError(
                    f"option {option} has no value", path=path, line=number, job_id=label, field=option
                )
            value = tokens[i + 1]
            i += 2
        else:
            i += 1
        try:
            _set(values, _OPTIONS[option], value)
        except ValueError as e:
            raise InvalidWorkloadError(
                str(e), path=path, line=number, job_id=label, field=option, value=value
            ) from None
    if "walltime" not in values:
        raise InvalidWorkloadError("has no -sim-walltime (the job's run time)", path=path, line=number, job_id=label)
    return values


def _set(values: dict[str, Any], key: str, text: str) -> None:
    if key == "nodes":
        values[key] = _whole(text, minimum=1)
    elif key in ("tasks", "cpus_per_task", "ntasks_per_node"):
        values[key] = _whole(text, minimum=1)
    elif key == "mem":
        values[key] = _size_mb(text)
    elif key == "mem_per_cpu":
        values[key] = _size_mb(text)
    elif key == "gres":
        gpus, gpu_type = 0, ""
        for item in text.split(","):
            parts = item.split(":")
            if parts[0] != "gpu":
                continue
            count = parts[-1] if len(parts) > 1 and parts[-1].isdigit() else "1"
            gpus += int(count)
            if len(parts) == 3 or (len(parts) == 2 and not parts[1].isdigit()):
                gpu_type = parts[1]
        values["gpus"], values["gpu_type"] = gpus, gpu_type
    elif key == "time":
        limit = parse_slurm_time(text)
        if limit <= 0:
            raise ValueError(f"time limit {text!r} must be > 0")
        values[key] = limit
    elif key == "walltime":
        values[key] = _number(text)
    else:
        values[key] = text
