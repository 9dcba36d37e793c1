"""Slurm's own scheduler: multifactor priority with fair-share, the main pass and the backfill pass.

The model is **Slurm 17.11** (the version of the micro cluster's real run,
whose ``slurm.conf`` still has ``FastSchedule``, ``select/cons_res`` and
``max_job_bf``), read from its man pages (``slurm.conf(5)``: SchedulerParameters,
Priority*; the "Multifactor Priority Plugin" and "Scheduling Configuration
Guide" pages) and, where they are silent, from its source
(``priority_multifactor.c``, ``job_scheduler.c``, ``backfill.c``).  The loop
runs in the Rust core (``rust/core/src/batch/slurm.rs``); the terms of the
priority that never change while a job waits are computed here.

Priority (``priority/multifactor``)
-----------------------------------
``priority = Wage*age + Wfs*fairshare + Wjs*jobsize + Wpart*partition + Wqos*qos + sum(Wtres_i*tres_i)``,
each factor in [0, 1], truncated to Slurm's 32-bit integer, at least 1.

* **age** = ``min(now - eligible, PriorityMaxAge) / PriorityMaxAge`` (the
  ``Eligible`` time of a sacct dump, else the submit time).
* **job size**, 17.11's ``set_priority_factors``: favouring large jobs (the
  default, ``PriorityFavorSmall=NO``) ``(nodes / cluster nodes + cpus /
  cluster cpus) / 2``; favouring small ones, ``((N - nodes) / N + (C - cpus)
  / C) / 2``; with ``PriorityFlags=SMALL_RELATIVE_TO_TIME``,
  ``max(nodes * C / N, cpus) / time limit in minutes / C`` (one minus it when
  favouring small).  ``nodes`` is the request's minimum and ``cpus`` its
  CPUs.
* **partition** = the partition's ``PriorityJobFactor`` over the largest one.
* **qos** = the QOS's ``Priority`` over the largest QOS priority (the
  sacctmgr script's; 0 for all when there is none).
* **TRES** (``PriorityWeightTRES=CPU=..,Mem=..,GRES/gpu=..,Node=..``): the
  job's request of each over its partition's total (``PriorityFlags=NO_NORMAL_TRES``:
  the request itself, in CPUs, MB, GPUs and nodes).
* **fair-share**, the classic algorithm (17.11's default; ``FAIR_TREE`` became
  the default in 19.05): usage is CPU-seconds (the billing of a job that sets
  no ``TRESBillingWeights``), added every ``PriorityCalcPeriod`` for each
  running job and at its end, each slice ``d`` weighted by ``decay^d``, and
  all usage multiplied by ``decay^elapsed`` at each period, with 17.11's
  ``decay = 1 - 0.693 / PriorityDecayHalfLife`` per second (later versions
  keep this form); the factor is ``2^(-(effective usage / normalised
  shares) / FairShareDampeningFactor)``, effective usage ``U + (Uparent -
  U) * S / Ssiblings`` below the accounts (``_set_usage_efctv``).

Priorities are set at submission and recomputed for every waiting job every
``PriorityCalcPeriod`` (the decay thread), not at each pass.  The waiting jobs
are ordered by partition ``PriorityTier``, then priority, then submission
(``sort_job_queue2``'s job id order).

Passes
------
* **main** (``schedule()``): at every time stamp with a submission or a
  completion it looks at ``default_queue_depth`` jobs, and every
  ``sched_interval`` at the whole queue; in priority order each job starts
  where it fits now, and the first job of a partition that does not fit takes
  that partition's nodes out of the pass.
* **backfill** (``_attempt_backfill``), every ``bf_interval``: the jobs in
  priority order, at most ``bf_max_job_test`` (17.11 also reads ``max_job_bf``)
  and ``bf_max_job_user`` per user; each gets the earliest start within
  ``bf_window`` at which it fits on the nodes no higher-priority job of this
  pass reserved over its time limit, the running jobs ending at their time
  limits; it starts if that is now, else reserves its nodes, *whole* (17.11's
  node-space map holds node bitmaps), from that start to its limit, both
  rounded down to ``bf_resolution`` in absolute time (slurmctld rounds Unix times: the table's
  ``UnixStartTime`` places its time 0).  A job that cannot start within the
  window gets no reservation.  ``bf_continue`` changes nothing here: a pass
  takes no time, so it never yields its locks.
* **time limits**: a job is killed at its limit (TIMEOUT), the rule of
  :mod:`clustersched.workload.timelimit`.

Choices the documentation leaves open, named
-------------------------------------------
* **timer phase**: every timer ticks at whole multiples of its interval from
  the first submit (the real run's phase is not recorded); a tick fires only
  while it can change something, and a periodic pass over a state that did
  not change since the previous pass is skipped (it would decide the same).
* **order within a time stamp**: completions, then submissions, then the
  priority recalculation, the main pass, the backfill pass.
* **usage at a tick**: decay first, then the running jobs' new usage, then
  the factors of every association (17.11 computes a user's effective usage
  lazily, on its first job in the loop).
* **no scheduling latency**: slurmctld starts a job a fraction of a second
  after deciding, and its nodes take some seconds to come back from a job
  (epilog, ``CompleteWait``); here both are instantaneous.
* **what is not modelled**: preemption, reservations (``scontrol create
  reservation``), QOS and association limits (``GrpTRES``, ``MaxJobs``),
  ``bf_min_age_reserve``, ``bf_max_job_part``, ``bf_max_job_start``,
  ``PriorityUsageResetPeriod``, nice values, job dependencies, heterogeneous
  jobs and node reboots.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import InvalidPlatformError, InvalidWorkloadError

if TYPE_CHECKING:
    from ..platform import NodeCluster
    from .conf import SlurmConf

__all__ = ["Accounts", "SlurmScheduler", "read_sacctmgr"]

#: slurm.conf ``SchedulerParameters`` the model reads, with 17.11's defaults.
_SCHEDULER_DEFAULTS: dict[str, float] = {
    "sched_interval": 60,
    "default_queue_depth": 100,
    "bf_interval": 30,
    "bf_window": 1440,  # minutes
    "bf_resolution": 60,
    "bf_max_job_test": 100,
    "bf_max_job_user": 0,
}


@dataclass(frozen=True)
class Accounts:
    """The association tree of a Slurm cluster: accounts, users, their ``Fairshare`` shares, and QOS priorities.

    Parameters
    ----------
    accounts : mapping of str to (parent, shares)
        Each account's parent account (``"root"`` for a top-level one) and raw shares.
    users : mapping of (user, account) to shares
        Each user association (a user in an account) and its raw shares.
    qos : mapping of str to int
        Each QOS's ``Priority``.
    default_account : mapping of str to str
        Each user's ``DefaultAccount`` (a job that names no account is charged to it).
    """

    accounts: Mapping[str, tuple[str, float]] = field(default_factory=dict)
    users: Mapping[tuple[str, str], float] = field(default_factory=dict)
    qos: Mapping[str, int] = field(default_factory=dict)
    default_account: Mapping[str, str] = field(default_factory=dict)

    def tree(
        self, pairs: list[tuple[str, str]]
    ) -> tuple[np.ndarray, np.ndarray, list[str], dict[tuple[str, str], int]]:
        """The tree as the core's arrays, with every ``(account, user)`` of ``pairs`` in it.

        An account the accounts do not know is added under ``root`` with 1 share, a user association with 1
        share (sacctmgr's defaults); each addition is returned as a note.  A user of ``Fairshare=parent``
        (:data:`PARENT`) is its account's association.  Returns ``(parent, shares, notes, index of each
        (account, user))``; association 0 is the root.
        """
        accounts = dict(self.accounts)
        users = dict(self.users)
        notes: list[str] = []
        for account, user in pairs:
            if account not in accounts:
                accounts[account] = ("root", 1.0)
                notes.append(f"account {account!r} is not in the accounts: added under root with 1 share")
            if (user, account) not in users:
                users[(user, account)] = 1.0
                notes.append(f"user {user!r} of account {account!r} is not in the accounts: added with 1 share")
        names = ["root"]
        parent = [0]
        shares = [1.0]
        index = {"root": 0}
        pending = dict(accounts)
        while pending:
            ready = [a for a, (p, _) in pending.items() if p in index]
            if not ready:
                raise InvalidWorkloadError(
                    f"accounts {sorted(pending)} have parents that are not accounts (or form a cycle)"
                )
            for a in ready:
                p, s = pending.pop(a)
                index[a] = len(names)
                names.append(a)
                parent.append(index[p])
                shares.append(float(s))
        where: dict[tuple[str, str], int] = {}
        for (user, account), s in users.items():
            if s == PARENT:
                where[(account, user)] = index[account]
                continue
            where[(account, user)] = len(names)
            names.append(f"{account}/{user}")
            parent.append(index[account])
            shares.append(float(s))
        return np.asarray(parent, dtype=np.int64), np.asarray(shares, dtype=np.float64), notes, where


#: ``Fairshare=parent``: the association has no shares of its own; its jobs count as its parent's (17.11's
#: ``SLURMDB_FS_USE_PARENT``: the job's fair-share factor is the parent account's, and the association
#: takes no part in its siblings' shares).
PARENT = math.inf

_SACCTMGR_WORD = re.compile(r"""(\w+)\s*=\s*("[^"]*"|'[^']*'|\S+)""")


def read_sacctmgr(path: str) -> Accounts:
    """The accounts, users, shares and QOS priorities a ``sacctmgr`` script sets up.

    Reads the lines ``add account``, ``add user``, ``add qos`` and ``modify qos ... set ...`` (``sacctmgr(1)``:
    keys case-insensitive; ``name=`` may list several names, comma-separated; ``parent=`` the parent account,
    default root; ``Fairshare=`` the raw shares, default 1; ``DefaultAccount=`` and ``Account=`` a user's
    accounts; ``Priority=`` a QOS's).  Other lines (``add cluster``, ``modify user``, ``list``) set nothing the
    model reads and are skipped.  ``-i``/``--immediate`` prefixes are allowed.  A malformed value is an
    :class:`~clustersched.errors.InvalidWorkloadError` naming the file and line.

    The micro cluster's script (``micro/sacctmgr.script``) comes from a later version of its tutorial than the
    real run: equal shares per account, the best record there is of the shares the run used.
    """
    accounts: dict[str, tuple[str, float]] = {}
    users: dict[tuple[str, str], float] = {}
    qos: dict[str, int] = {}
    default_account: dict[str, str] = {}
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    for number, raw in enumerate(lines, start=1):
        line = raw.split("#", 1)[0].strip()
        words = [w for w in line.split() if w not in ("-i", "--immediate")]
        if len(words) < 2:
            continue
        verb, entity = words[0].lower(), words[1].lower()
        options = {k.lower(): v.strip("\"'") for k, v in _SACCTMGR_WORD.findall(" ".join(words[2:]))}

        def number_of(key: str, default: float, options: dict[str, str] = options, number: int = number) -> float:
            text = options.get(key)
            if text is None:
                return default
            if key == "fairshare" and text.lower() == "parent":
                return PARENT
            try:
                value = float(text)
            except ValueError:
                value = math.nan
            if not math.isfinite(value) or value < 0:
                raise InvalidWorkloadError(
                    f"{path}, line {number}: {key} == {text!r}, must be a number >= 0", field=key, value=text
                )
            return value

        names = [n for n in options.get("name", options.get("names", "")).split(",") if n]
        if verb == "add" and entity == "account":
            for name in names:
                shares = number_of("fairshare", 1.0)
                if shares == PARENT:
                    raise InvalidWorkloadError(
                        f"{path}, line {number}: account {name!r} has Fairshare=parent, which only a user may have",
                        field="fairshare",
                        value="parent",
                    )
                accounts[name] = (options.get("parent", "root"), shares)
        elif verb == "add" and entity == "user":
            listed = [a for a in options.get("account", options.get("accounts", "")).split(",") if a]
            default = options.get("defaultaccount")
            for name in names:
                if default:
                    default_account[name] = default
                for account in dict.fromkeys(([default] if default else []) + listed):
                    users[(name, account)] = number_of("fairshare", 1.0)
        elif entity == "qos" and verb in ("add", "modify"):
            if verb == "modify":
                # "modify qos NAME set K=V", "modify qos where name=NAME set K=V", and the micro cluster's
                # "modify QOS set NAME Priority=0": the bare words are the names, the pairs after "set" the values
                rest = [w for w in words[2:] if w.lower() not in ("where", "set")]
                names = [w for w in rest if "=" not in w]
                names += [n for n in options.pop("name", "").split(",") if n]
            for name in names:
                qos[name] = int(number_of("priority", qos.get(name, 0), options))
    return Accounts(accounts=accounts, users=users, qos=qos, default_account=default_account)


@dataclass(frozen=True)
class SlurmScheduler:
    """Slurm's scheduler as a batch policy over a cluster of nodes (module docstring for the model).

    Give it to :func:`~clustersched.batch.simulate` as the policy, with ``platform=``; ``"slurm"`` is this
    with Slurm's defaults.  Times are seconds, except ``bf_window`` in minutes as in ``slurm.conf``.
    :meth:`from_conf` reads every parameter from a ``slurm.conf``.

    Parameters
    ----------
    weight_age, weight_fairshare, weight_job_size, weight_partition, weight_qos : float
        ``PriorityWeight*`` (Slurm's default 0 each: every job has priority 1, and the order is submission).
    weight_tres : mapping of str to float
        ``PriorityWeightTRES``: ``CPU``, ``Mem``, ``Node``, ``GRES/<name>`` (e.g. ``GRES/gpu``).
    max_age, decay_half_life, calc_period : float
        ``PriorityMaxAge`` (default 7 days), ``PriorityDecayHalfLife`` (7 days; 0 for none),
        ``PriorityCalcPeriod`` (5 minutes; at least 1 minute, Slurm's unit).
    favor_small : bool
        ``PriorityFavorSmall`` (default False).
    size_relative : bool
        ``PriorityFlags=SMALL_RELATIVE_TO_TIME``.
    normalized_tres : bool
        Whether each TRES factor is the request over the partition's total (the default); False is
        ``PriorityFlags=NO_NORMAL_TRES``: the request itself (CPUs, MB, GPUs, nodes), times its weight.
    damping : float
        ``FairShareDampeningFactor`` (default 1).
    sched_interval, default_queue_depth, bf_interval, bf_window, bf_resolution, bf_max_job_test, bf_max_job_user
        ``SchedulerParameters`` (17.11 defaults 60 s, 100, 30 s, 1440 minutes, 60 s, 100, 0 = no limit); the
        intervals and ``bf_resolution`` are at least 1 s, Slurm's unit.
    accounts : Accounts, optional
        The association tree and QOS priorities (:func:`read_sacctmgr`); None: every account of the workload
        with one share, every user one share in it, every QOS priority 0.
    log : bool
        Keep every priority calculation of every job (``BatchRun.slurm["log_*"]``, what ``sprio`` would have
        shown at each); default False.
    name : str
        The policy's name in results (default ``"slurm"``).
    """

    weight_age: float = 0.0
    weight_fairshare: float = 0.0
    weight_job_size: float = 0.0
    weight_partition: float = 0.0
    weight_qos: float = 0.0
    weight_tres: Mapping[str, float] = field(default_factory=dict)
    max_age: float = 7 * 86400.0
    decay_half_life: float = 7 * 86400.0
    calc_period: float = 300.0
    favor_small: bool = False
    size_relative: bool = False
    normalized_tres: bool = True
    damping: float = 1.0
    sched_interval: float = 60.0
    default_queue_depth: int = 100
    bf_interval: float = 30.0
    bf_window: float = 1440.0
    bf_resolution: float = 60.0
    bf_max_job_test: int = 100
    bf_max_job_user: int = 0
    accounts: Accounts | None = None
    log: bool = False
    name: str = "slurm"

    @classmethod
    def from_conf(cls, conf: "SlurmConf | str", accounts: "Accounts | str | None" = None) -> SlurmScheduler:
        """The scheduler a ``slurm.conf`` sets up (a :class:`~clustersched.slurm.SlurmConf` or its path).

        Reads ``PriorityWeight{Age,Fairshare,JobSize,Partition,QOS,TRES}``, ``PriorityMaxAge``,
        ``PriorityDecayHalfLife``, ``PriorityCalcPeriod`` (minutes), ``PriorityFavorSmall``,
        ``PriorityFlags``, ``FairShareDampeningFactor`` and the ``SchedulerParameters`` above; a missing key
        keeps Slurm 17.11's default.  ``accounts``: an :class:`Accounts` or a sacctmgr script's path.
        A ``PriorityType`` other than ``priority/multifactor`` (``priority/basic``: submission order) or a
        ``SchedulerType`` other than ``sched/backfill`` (``sched/builtin``: no backfill pass) is modelled as
        such.
        """
        from .conf import parse_slurm_time, read_slurm_conf

        if isinstance(conf, str):
            conf = read_slurm_conf(conf)
        if isinstance(accounts, str):
            accounts = read_sacctmgr(accounts)
        p = {k.lower(): v for k, v in conf.parameters.items()}
        s = {k.lower(): v for k, v in conf.scheduler_parameters.items()}
        if "max_job_bf" in s and "bf_max_job_test" not in s:
            s["bf_max_job_test"] = s["max_job_bf"]  # 17.11's old name

        def number(key: str, default: float) -> float:
            text = p.get(key.lower())
            if text is None:
                return default
            try:
                return float(text)
            except ValueError:
                raise InvalidPlatformError(
                    f"{conf.path}: {key} == {text!r}, must be a number", field=key, value=text
                ) from None

        def duration(key: str, default: float) -> float:
            text = p.get(key.lower())
            return default if text is None else parse_slurm_time(text)

        options: dict[str, Any] = {}
        for key, default in _SCHEDULER_DEFAULTS.items():
            text = s.get(key)
            if text is None or text is True:
                options[key] = default
                continue
            try:
                options[key] = float(str(text))
            except ValueError:
                raise InvalidPlatformError(
                    f"{conf.path}: SchedulerParameters {key} == {text!r}, must be a number", field=key, value=text
                ) from None
        tres: dict[str, float] = {}
        for item in p.get("priorityweighttres", "").split(","):
            if "=" in item:
                k, _, v = item.partition("=")
                tres[k.strip()] = float(v)
        flags = {f.strip().upper() for f in p.get("priorityflags", "").split(",") if f.strip()}
        multifactor = p.get("prioritytype", "priority/basic").lower() == "priority/multifactor"
        weights = {
            "weight_age": number("PriorityWeightAge", 0.0),
            "weight_fairshare": number("PriorityWeightFairshare", 0.0),
            "weight_job_size": number("PriorityWeightJobSize", 0.0),
            "weight_partition": number("PriorityWeightPartition", 0.0),
            "weight_qos": number("PriorityWeightQOS", 0.0),
        }
        if not multifactor:
            weights = dict.fromkeys(weights, 0.0)
            tres = {}
        backfill = p.get("schedulertype", "sched/backfill").lower() == "sched/backfill"
        return cls(
            **weights,
            weight_tres=tres,
            max_age=duration("PriorityMaxAge", 7 * 86400.0),
            decay_half_life=duration("PriorityDecayHalfLife", 7 * 86400.0),
            calc_period=number("PriorityCalcPeriod", 5.0) * 60.0,
            favor_small=p.get("priorityfavorsmall", "no").lower() in ("yes", "1", "true"),
            size_relative="SMALL_RELATIVE_TO_TIME" in flags,
            normalized_tres="NO_NORMAL_TRES" not in flags,
            damping=number("FairShareDampeningFactor", 1.0),
            sched_interval=options["sched_interval"],
            default_queue_depth=int(options["default_queue_depth"]),
            bf_interval=options["bf_interval"] if backfill else math.inf,
            bf_window=options["bf_window"],
            bf_resolution=options["bf_resolution"],
            bf_max_job_test=int(options["bf_max_job_test"]) if backfill else 0,
            bf_max_job_user=int(options["bf_max_job_user"]),
            accounts=accounts,
        )

    def with_options(self, **changes: Any) -> SlurmScheduler:
        """A copy with some parameters changed (``dataclasses.replace``): ``s.with_options(weight_age=0)``."""
        return replace(self, **changes)

    def core_arrays(
        self, table: Any, resolved: Any, platform: "NodeCluster"
    ) -> tuple[dict[str, float], dict[str, np.ndarray], np.ndarray, np.ndarray, list[str]]:
        """The core's parameters, per-job arrays and association tree for ``table`` resolved on ``platform``."""
        n = len(table)
        req = resolved.requests
        nodes = np.asarray(req["nodes"], dtype=np.float64)
        cpus = np.asarray(req["tasks"], dtype=np.float64) * np.asarray(req["cpus_per_task"], dtype=np.float64)
        node_count = float(len(platform.nodes))
        cluster_cpus = float(sum(node.cores for node in platform.nodes))
        limit = np.asarray(table.time_requested, dtype=np.float64)
        if self.size_relative:
            minutes = np.where(limit > 0, np.maximum(limit / 60.0, 1.0), 1.0)
            size = np.maximum(nodes * cluster_cpus / node_count, cpus) / minutes / cluster_cpus
            size = 1.0 - size if self.favor_small else size
        elif self.favor_small:
            size = ((node_count - nodes) / node_count + (cluster_cpus - cpus) / cluster_cpus) / 2.0
        else:
            size = (nodes / node_count + cpus / cluster_cpus) / 2.0
        size = np.clip(size, 0.0, 1.0)
        part = np.asarray(req["partition"], dtype=np.int64)
        partitions = platform.partitions
        top_factor = max((pt.priority_job_factor for pt in partitions), default=1) or 1
        part_factor = np.asarray([pt.priority_job_factor / top_factor for pt in partitions])[part]
        tier = np.asarray([pt.priority_tier for pt in partitions], dtype=np.int64)[part]
        requests = table.requests
        accounts = self.accounts or Accounts()
        qos_names = _texts(requests.qos if requests is not None else None, n)
        top_qos = max(accounts.qos.values(), default=0)
        qos_factor = np.asarray(
            [accounts.qos.get(q, 0) / top_qos if top_qos > 0 else 0.0 for q in qos_names], dtype=np.float64
        )
        fixed = self.weight_job_size * size + self.weight_partition * part_factor + self.weight_qos * qos_factor
        if self.weight_tres:
            fixed = fixed + self._tres(req, resolved, platform, part, cpus, nodes)
        users = _texts(requests.user if requests is not None else None, n)
        _, user_index = np.unique(np.asarray(users, dtype=object).astype(str), return_inverse=True)
        charged = _texts(requests.account if requests is not None else None, n)
        charged = [a or accounts.default_account.get(u, "") or "(none)" for a, u in zip(charged, users, strict=True)]
        pairs = sorted(set(zip(charged, users, strict=True)))
        parent, shares, notes, where = accounts.tree(pairs)
        association = np.asarray([where[(a, u)] for a, u in zip(charged, users, strict=True)], dtype=np.int64)
        eligible = _eligible(table)
        arrays = {
            "fixed": np.ascontiguousarray(fixed, dtype=np.float64),
            "tier": tier,
            "user": np.asarray(user_index, dtype=np.int64).reshape(-1),
            "association": association,
            "billing": np.ascontiguousarray(cpus, dtype=np.float64),
            "eligible": eligible,
        }
        params = {
            "sched_interval": float(self.sched_interval),
            "default_queue_depth": int(self.default_queue_depth),
            "bf_interval": float(self.bf_interval) if math.isfinite(self.bf_interval) else 1e300,
            "bf_window": float(self.bf_window) * 60.0,
            "bf_resolution": float(self.bf_resolution),
            "epoch": _epoch(table),
            "bf_max_job_test": int(self.bf_max_job_test),
            "bf_max_job_user": int(self.bf_max_job_user),
            "calc_period": float(self.calc_period),
            "max_age": float(self.max_age),
            "decay_half_life": float(self.decay_half_life),
            "weight_age": float(self.weight_age),
            "weight_fairshare": float(self.weight_fairshare),
            "damping": float(self.damping),
        }
        return params, arrays, parent, shares, notes

    def _tres(
        self,
        req: Mapping[str, np.ndarray],
        resolved: Any,
        platform: "NodeCluster",
        part: np.ndarray,
        cpus: np.ndarray,
        nodes: np.ndarray,
    ) -> np.ndarray:
        """The weighted TRES terms: each TRES the job asks for over its partition's total of it."""
        index = {node.name: i for i, node in enumerate(platform.nodes)}
        members = [np.asarray([index[name] for name in pt.nodes], dtype=np.int64) for pt in platform.partitions]
        memory = np.asarray([node.memory_mb for node in platform.nodes], dtype=np.float64)
        cores = np.asarray([node.cores for node in platform.nodes], dtype=np.float64)
        per_cpu = np.asarray(req["mem_per_cpu"], dtype=np.float64)
        per_node = np.asarray(req["mem_per_node"], dtype=np.float64)
        asked_memory = np.where(per_node > 0, per_node * nodes, per_cpu * cpus)
        total = np.zeros(len(part))
        for key, weight in self.weight_tres.items():
            name = key.strip().lower()
            if name == "cpu":
                asked, of = cpus, cores
            elif name == "mem":
                asked, of = asked_memory, memory
            elif name == "node":
                asked, of = nodes, np.ones(len(platform.nodes))
            elif name.startswith("gres/"):
                kind = name[5:]
                kinds = [k.lower() for k in resolved.kinds]
                columns = [g for g, k in enumerate(kinds) if k == kind or k.startswith(kind + ":")]
                gres = resolved.nodes["gres"].reshape(len(platform.nodes), -1)
                of = gres[:, columns].sum(axis=1).astype(np.float64) if columns else np.zeros(len(platform.nodes))
                asked = np.asarray(req["gres_per_node"], dtype=np.float64) * nodes
            else:
                continue  # a TRES the model has no count of (license, burst buffer)
            if not self.normalized_tres:
                total += weight * asked
                continue
            part_total = np.asarray([of[m].sum() for m in members])[part]
            total += weight * np.where(part_total > 0, asked / np.where(part_total > 0, part_total, 1), 0.0)
        return total


def _epoch(table: Any) -> float:
    """The absolute time of the table's time 0 (its ``UnixStartTime``; 0 when it has none)."""
    try:
        epoch = float(table.metadata.get("UnixStartTime", 0))
    except (TypeError, ValueError):
        return 0.0
    return epoch if math.isfinite(epoch) else 0.0


def _texts(column: Any, n: int) -> list[str]:
    """A request column of names as strings ("" for missing), or n empty names."""
    if column is None:
        return [""] * n
    return ["" if v is None else str(v) for v in np.asarray(column, dtype=object).tolist()]


def _eligible(table: Any) -> np.ndarray:
    """When each job became eligible: its request's ``eligible`` time (a sacct dump's ``Eligible``) where known
    (>= 0), else its submit time."""
    submit = np.ascontiguousarray(table.submit, dtype=np.float64)
    requests = table.requests
    if requests is None or "eligible" not in requests.columns():
        return submit
    eligible = np.asarray(requests.eligible, dtype=np.float64)
    return np.ascontiguousarray(np.where(np.isfinite(eligible) & (eligible >= submit), eligible, submit))
