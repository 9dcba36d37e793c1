"""Reading a ``slurm.conf`` as Slurm reads it: its nodes and partitions as a :class:`NodeCluster`.

This follows the slurm.conf man page of Slurm 17.11 (the era of the micro
cluster's real run) and its parser (``src/common/parse_config.c``,
``src/common/read_config.c``); where a later version (up to 23.x) documents
something else, the difference is said below.

The file
--------
* One ``Key=Value`` pair or more per line; keys are case-insensitive and are
  stored with Slurm's capitalisation (``schedulertype`` -> ``SchedulerType``).
  Spaces may surround ``=``, and a value may be double-quoted (``Key="a b"``).
* ``#`` starts a comment (``\\#`` is a literal ``#``); a line ending in ``\\``
  continues on the next (line numbers in errors are those of the first line).
* ``Include`` is refused with an error naming the line: the included file
  would be read from the machine running clustersched, not the cluster's.
* A value starting with an extra ``=`` (``SchedulerParameters==bf_window=4320``,
  as in the micro cluster's file) is read without it, as Slurm in effect reads
  it (its option lookups search the value for ``bf_window=``), and noted in
  :attr:`SlurmConf.notes`.
* A key given twice: the last value is used, as slurmctld does, and noted.
* Keys clustersched does not know are kept, with their values, in
  :attr:`SlurmConf.parameters` (top level) or :attr:`SlurmConf.partition_options`,
  and listed in :attr:`SlurmConf.unknown`; they are never errors.

Nodes (man page, section "NODE CONFIGURATION")
----------------------------------------------
* ``NodeName=DEFAULT`` lines set defaults for the node lines after them; a later
  ``DEFAULT`` line changes only the keys it names (slurmctld merges it into the
  previous defaults), as the medium cluster's file relies on.
* ``NodeName`` is a host list (``n[001-087]``, see
  :func:`~clustersched.slurm.hostlist.expand_hostlist`); a name defined twice
  is an error.
* CPUs: ``CPUs`` (``Procs`` is its old name) when given; otherwise the man
  page's default, ``Sockets x CoresPerSocket x ThreadsPerCore`` (Sockets
  defaulting to ``Boards x SocketsPerBoard``, each factor to 1).  When both
  are given and ``CPUs`` equals none of ``Sockets``, ``Sockets x
  CoresPerSocket`` and the whole product, slurmctld logs "CPUs doesn't match
  Sockets*CoresPerSocket*ThreadsPerCore, resetting CPUs" and uses the product
  (``_build_single_nodeline_info`` in ``read_config.c``); so do we, with a note.
* ``RealMemory`` in MB, default 1; ``Weight`` default 1; ``Feature`` (or
  ``Features``) a comma-separated list.
* ``Gres``: comma-separated ``name[:type][:count]`` (``gpu:2``,
  ``gpu:tesla_v100-pcie-32gb:2``; a missing count is 1); counts may end in
  ``K``, ``M``, ``G`` (times 1024, 1024**2, 1024**3, as Slurm's ``gres.c``
  reads them); a socket binding in parentheses (``gpu:2(S:0-1)``, Slurm 19.05+)
  is ignored.  Typed counts are also counted under the untyped name (see
  :class:`~clustersched.platform.Node`).

Partitions (section "PARTITION CONFIGURATION")
----------------------------------------------
* ``PartitionName=DEFAULT`` lines work as node defaults do.
* ``Nodes``: a host list or ``ALL`` (every node of the file, resolved at its end).
* ``MaxTime``, ``DefaultTime``: Slurm time formats (:func:`parse_slurm_time`).
* ``Priority`` (17.11's deprecated name) sets both ``PriorityJobFactor`` and
  ``PriorityTier`` unless they are given.
* ``OverSubscribe`` (``Shared`` before 15.08), ``ExclusiveUser``, ``AllowQOS``
  and every other key are kept as written in :attr:`SlurmConf.partition_options`.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..errors import InvalidPlatformError
from ..platform import Node, NodeCluster, Partition
from .hostlist import expand_hostlist

__all__ = ["SlurmConf", "parse_gres", "parse_slurm_time", "read_slurm_conf"]

_TIME = re.compile(r"(?:([0-9]+)-)?([0-9]+)(?::([0-9]+))?(?::([0-9]+))?")
_INFINITE = ("INFINITE", "UNLIMITED", "-1")


def parse_slurm_time(text: str) -> float:
    """Seconds in a Slurm time value (``MaxTime``, sbatch ``-t``, sacct's ``Timelimit`` and ``Elapsed``).

    The formats of Slurm's ``time_str2secs`` (``src/common/parse_time.c``):
    ``min``, ``min:sec``, ``h:m:s``, ``d-h``, ``d-h:m``, ``d-h:m:s``; ``INFINITE``,
    ``UNLIMITED`` (any case) and ``-1`` are ``math.inf``.  Fields are not bounded
    (``90`` is 90 minutes, as in Slurm).

    Raises
    ------
    ValueError
        Anything else, with the text.

    Examples
    --------
    >>> parse_slurm_time("30"), parse_slurm_time("1:30"), parse_slurm_time("01:00:00")
    (1800.0, 90.0, 3600.0)
    >>> parse_slurm_time("3-00:00:00"), parse_slurm_time("0-4"), parse_slurm_time("UNLIMITED")
    (259200.0, 14400.0, inf)
    >>> parse_slurm_time("1h")
    Traceback (most recent call last):
    ...
    ValueError: '1h' is not a Slurm time (min, min:sec, h:m:s, d-h, d-h:m, d-h:m:s, INFINITE or UNLIMITED)
    """
    if not isinstance(text, str):
        raise TypeError(f"time == {text!r}, must be a str")
    value = text.strip()
    if value.upper() in _INFINITE:
        return math.inf
    match = _TIME.fullmatch(value)
    if match is None:
        raise ValueError(
            f"{text!r} is not a Slurm time (min, min:sec, h:m:s, d-h, d-h:m, d-h:m:s, INFINITE or UNLIMITED)"
        )
    days, a, b, c = match.groups()
    if days is not None:  # d-h, d-h:m, d-h:m:s
        seconds = int(days) * 86400 + int(a) * 3600 + int(b or 0) * 60 + int(c or 0)
    elif c is not None:  # h:m:s
        seconds = int(a) * 3600 + int(b) * 60 + int(c)
    elif b is not None:  # min:sec
        seconds = int(a) * 60 + int(b)
    else:  # min
        seconds = int(a) * 60
    return float(seconds)


# Keys slurm.conf documents (17.11 to 23.x), in Slurm's capitalisation: the top-level ones.
_TOP_KEYS = """
AccountingStorageBackupHost AccountingStorageEnforce AccountingStorageExternalHost AccountingStorageHost
AccountingStorageLoc AccountingStorageParameters AccountingStoragePass AccountingStoragePort AccountingStorageTRES
AccountingStorageType AccountingStorageUser AccountingStoreFlags AccountingStoreJobComment AcctGatherEnergyType
AcctGatherFilesystemType AcctGatherInterconnectType AcctGatherInfinibandType AcctGatherNodeFreq AcctGatherProfileType
AllowSpecResourcesUsage AuthAltTypes AuthAltParameters AuthInfo AuthType BackupAddr BackupController BatchStartTimeout
BcastExclude BcastParameters BurstBufferType CacheGroups CheckpointType CliFilterPlugins ClusterName
CommunicationParameters CompleteWait ControlAddr ControlMachine CoreSpecPlugin CpuFreqDef CpuFreqGovernors CredType
CryptoType DebugFlags DefCpuPerGPU DefMemPerCPU DefMemPerGPU DefMemPerNode DefaultStorageHost DefaultStorageLoc
DefaultStoragePass DefaultStoragePort DefaultStorageType DefaultStorageUser DependencyParameters DisableRootJobs
EioTimeout EnforcePartLimits Epilog EpilogMsgTime EpilogSlurmctld ExtSensorsFreq ExtSensorsType FairShareDampeningFactor
FastSchedule FederationParameters FirstJobId GetEnvTimeout GpuFreqDef GresTypes GroupUpdateForce GroupUpdateTime
HealthCheckInterval HealthCheckNodeState HealthCheckProgram InactiveLimit InteractiveStepOptions JobAcctGatherFrequency
JobAcctGatherParams JobAcctGatherType JobCheckpointDir JobCompHost JobCompLoc JobCompParams JobCompPass JobCompPort
JobCompType JobCompUser JobContainerType JobCredentialPrivateKey JobCredentialPublicCertificate JobFileAppend
JobRequeue JobSubmitPlugins KeepAliveTime KillOnBadExit KillWait LaunchParameters LaunchType Licenses LogTimeFormat
MailDomain MailProg MaxArraySize MaxBatchRequeue MaxDBDMsgs MaxJobCount MaxJobId MaxMemPerCPU MaxMemPerNode
MaxNodeCount MaxStepCount MaxTasksPerNode MCSParameters MCSPlugin MemLimitEnforce MessageTimeout MinJobAge MpiDefault
MpiParams MsgAggregationParams NodeFeaturesPlugins OverTimeLimit PluginDir PlugStackConfig PowerParameters PowerPlugin
PreemptExemptTime PreemptMode PreemptParameters PreemptType PrEpParameters PrEpPlugins PriorityCalcPeriod
PriorityDecayHalfLife PriorityFavorSmall PriorityFlags PriorityMaxAge PriorityParameters PrioritySiteFactorParameters
PrioritySiteFactorPlugin PriorityType PriorityUsageResetPeriod PriorityWeightAge PriorityWeightAssoc
PriorityWeightFairshare PriorityWeightJobSize PriorityWeightPartition PriorityWeightQOS PriorityWeightTRES
PrivateData ProctrackType Prolog PrologEpilogTimeout PrologFlags PrologSlurmctld PropagatePrioProcess
PropagateResourceLimits PropagateResourceLimitsExcept RebootProgram ReconfigFlags RequeueExit RequeueExitHold
ResumeFailProgram ResumeProgram ResumeRate ResumeTimeout ResvEpilog ResvOverRun ResvProlog ReturnToService
RoutePlugin SallocDefaultCommand SbcastSupportedDirs SchedulerParameters SchedulerPort SchedulerRootFilter
SchedulerTimeSlice SchedulerType ScronParameters SelectType SelectTypeParameters SlurmctldAddr SlurmctldDebug
SlurmctldHost SlurmctldLogFile SlurmctldParameters SlurmctldPidFile SlurmctldPlugstack SlurmctldPort
SlurmctldPrimaryOffProg SlurmctldPrimaryOnProg SlurmctldSyslogDebug SlurmctldTimeout SlurmdDebug SlurmdLogFile
SlurmdParameters SlurmdPidFile SlurmdPort SlurmdSpoolDir SlurmdSyslogDebug SlurmdTimeout SlurmdUser SlurmSchedLogFile
SlurmSchedLogLevel SlurmUser SrunEpilog SrunPortRange SrunProlog StateSaveLocation SuspendExcNodes SuspendExcParts
SuspendProgram SuspendRate SuspendTime SuspendTimeout SwitchParameters SwitchType TaskEpilog TaskPlugin
TaskPluginParam TaskProlog TCPTimeout TmpFS TopologyParam TopologyPlugin TrackWCKey TreeWidth UnkillableStepProgram
UnkillableStepTimeout UsePAM VSizeFactor Waittime X11Parameters
"""
# Lines that describe one object each (the first key names it); the ones clustersched does not model are kept.
_OBJECT_KEYS = ("NodeName", "PartitionName", "FrontendName", "DownNodes", "NodeSet", "SwitchName")
_NODE_KEYS = """
NodeName NodeHostname NodeAddr BcastAddr Boards CoreSpecCount CoresPerSocket CPUs CpuBind CPUSpecList Features
Feature Gres MemSpecLimit Port Procs RealMemory Reason Sockets SocketsPerBoard State ThreadsPerCore TmpDisk Weight
"""
_PARTITION_KEYS = """
PartitionName AllocNodes AllowAccounts AllowGroups AllowQos Alternate CpuBind Default DefaultTime DefCpuPerGPU
DefMemPerCPU DefMemPerGPU DefMemPerNode DenyAccounts DenyQos DisableRootJobs ExclusiveUser GraceTime Hidden LLN
MaxCPUsPerNode MaxCPUsPerSocket MaxMemPerCPU MaxMemPerNode MaxNodes MaxTime MinNodes Nodes OverSubscribe
OverTimeLimit PowerDownOnIdle PreemptMode Priority PriorityJobFactor PriorityTier QOS ReqResv ResumeTimeout
RootOnly SelectTypeParameters Shared State SuspendTime SuspendTimeout TRESBillingWeights
"""


def _canon(words: str) -> dict[str, str]:
    return {w.lower(): w for w in words.split()}


_TOP = _canon(_TOP_KEYS)
_NODE = _canon(_NODE_KEYS)
_PARTITION = _canon(_PARTITION_KEYS)
_OBJECT = {k.lower(): k for k in _OBJECT_KEYS}
# One pair as parse_config.c's regex reads it: a key, '=', a quoted or a space-free value.
_PAIR = re.compile(r'\s*([A-Za-z][A-Za-z0-9_]*)\s*=\s*(?:"([^"]*)"|(\S+))(?=\s|$)')
_COUNT = re.compile(r"([0-9]+)([KMG]?)", re.IGNORECASE)
_GRES_SCALE = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}


@dataclass(frozen=True)
class SlurmConf:
    """A ``slurm.conf`` as read by :func:`read_slurm_conf`.

    Attributes
    ----------
    path : str
        The file read.
    platform : NodeCluster
        Its nodes (in file order) and partitions.
    parameters : dict of str to str
        Every top-level key (Slurm's capitalisation; an unknown key as written) and its value as written.
    scheduler_parameters : dict of str to str or bool
        ``SchedulerParameters`` split at commas: ``bf_window=4320`` gives ``"4320"``, a flag such as
        ``bf_continue`` gives ``True``.
    partition_options : dict of str to dict of str to str
        Per partition, every key of its line (and of the ``DEFAULT`` lines before it) as written,
        including those not modelled by :class:`~clustersched.platform.Partition` (``OverSubscribe``,
        ``ExclusiveUser``, ``AllowQOS``, ...).
    unknown : tuple of str
        The keys clustersched does not know, each once: ``"Key"`` at top level, ``"NodeName:Key"`` and
        ``"PartitionName:Key"`` in those lines.
    notes : tuple of str
        What was read leniently, as Slurm would (a doubled ``=``, a repeated key, CPUs reset), with lines.
    """

    path: str
    platform: NodeCluster
    parameters: dict[str, str] = field(default_factory=dict)
    scheduler_parameters: dict[str, str | bool] = field(default_factory=dict)
    partition_options: dict[str, dict[str, str]] = field(default_factory=dict)
    unknown: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


def _logical_lines(text: str) -> list[tuple[int, str]]:
    """(first line number, text) of each logical line: comments removed, continuations joined."""
    out: list[tuple[int, str]] = []
    pending: str | None = None
    start = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        # '#' starts a comment unless escaped as '\#' (parse_config.c's _strip_comments).
        line = re.sub(r"(?<!\\)#.*", "", raw).replace("\\#", "#").rstrip()
        if pending is None:
            start = number
            pending = ""
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        pending += line
        if pending.strip():
            out.append((start, pending))
        pending = None
    if pending is not None and pending.strip():
        out.append((start, pending))
    return out


def _pairs(text: str, path: str, line: int) -> list[tuple[str, str, bool]]:
    """(key as written, value, whether an extra leading '=' was removed) for each pair of a line."""
    pairs = []
    pos = 0
    while pos < len(text):
        if not text[pos:].strip():
            break
        match = _PAIR.match(text, pos)
        if match is None:
            bad = text[pos:].split()[0]
            raise InvalidPlatformError(f"{bad!r} is not a Key=Value pair", path=path, line=line, value=bad)
        key = match.group(1)
        value = match.group(2) if match.group(2) is not None else match.group(3)
        doubled = match.group(2) is None and value.startswith("=")
        pairs.append((key, value.lstrip("=") if doubled else value, doubled))
        pos = match.end()
    return pairs


def _int(value: str, key: str, path: str, line: int, *, node: str | None = None, partition: str | None = None) -> int:
    if not re.fullmatch(r"[0-9]+", value.strip()):
        raise InvalidPlatformError(
            f"{key}={value} is not a whole number",
            path=path,
            line=line,
            node=node,
            partition=partition,
            field=key,
            value=value,
        )
    return int(value)


def _time(value: str, key: str, path: str, line: int, partition: str) -> float:
    try:
        return parse_slurm_time(value)
    except ValueError as e:
        raise InvalidPlatformError(str(e), path=path, line=line, partition=partition, field=key, value=value) from None


def parse_gres(text: str) -> dict[str, int]:
    """A node's ``Gres`` value as counts per name, typed counts also under their name (see :class:`Node`).

    Examples
    --------
    >>> parse_gres("gpu:tesla_v100-pcie-32gb:2")
    {'gpu': 2, 'gpu:tesla_v100-pcie-32gb': 2}
    >>> parse_gres("gpu:2,mps:1K")
    {'gpu': 2, 'mps': 1024}
    """
    counts: dict[str, int] = {}
    for item in text.split(","):
        item = re.sub(r"\(.*\)$", "", item.strip())  # a socket binding "(S:0-1)" (19.05+)
        parts = item.split(":")
        if not item or len(parts) > 3 or not all(parts):
            raise ValueError(f"GRES {item!r} is not name[:type][:count]")
        count = 1
        match = _COUNT.fullmatch(parts[-1]) if len(parts) > 1 else None
        if match is not None:
            count = int(match.group(1)) * _GRES_SCALE[match.group(2).upper()]
            parts = parts[:-1]
        elif len(parts) == 3:
            raise ValueError(f"GRES {item!r}: count {parts[-1]!r} is not a whole number (with K, M or G)")
        name = parts[0]
        counts[name] = counts.get(name, 0) + count
        if len(parts) == 2:
            typed = f"{name}:{parts[1]}"
            counts[typed] = counts.get(typed, 0) + count
    return counts


def _node_line(
    pairs: dict[str, tuple[str, str]], path: str, line: int, notes: list[str]
) -> tuple[list[str], dict[str, object]]:
    """The names of a NodeName line and the attributes of each (defaults already merged into ``pairs``)."""
    names_text = pairs["nodename"][1]
    try:
        names = expand_hostlist(names_text)
    except InvalidPlatformError as e:
        raise InvalidPlatformError(e.detail, path=path, line=line, field="NodeName", value=names_text) from None
    first = names[0] if len(names) == 1 else names_text

    def get(key: str) -> str | None:
        entry = pairs.get(key.lower())
        return None if entry is None else entry[1]

    def whole(key: str, default: int) -> int:
        value = get(key)
        return default if value is None else _int(value, key, path, line, node=first)

    boards = whole("Boards", 1)
    sockets = whole("Sockets", boards * whole("SocketsPerBoard", 1))
    cores_per_socket = whole("CoresPerSocket", 1)
    threads = whole("ThreadsPerCore", 1)
    product = sockets * cores_per_socket * threads
    cpus_key = "CPUs" if get("CPUs") is not None else "Procs" if get("Procs") is not None else None
    topology = any(get(k) is not None for k in ("Sockets", "SocketsPerBoard", "CoresPerSocket", "ThreadsPerCore"))
    if cpus_key is None:
        cpus = product
    else:
        cpus = whole(cpus_key, 1)
        if topology and cpus not in (sockets, sockets * cores_per_socket, product):
            notes.append(
                f"line {line}: NodeName={names_text} {cpus_key}={cpus} doesn't match "
                f"Sockets*CoresPerSocket*ThreadsPerCore ({product}), resetting CPUs (as slurmctld does)"
            )
            cpus = product
    gres_text = get("Gres")
    gres: dict[str, int] = {}
    if gres_text is not None and gres_text.upper() != "(NULL)":
        try:
            gres = parse_gres(gres_text)
        except ValueError as e:
            raise InvalidPlatformError(
                str(e), path=path, line=line, node=first, field="Gres", value=gres_text
            ) from None
    features_text = get("Features") if get("Features") is not None else get("Feature")
    features = frozenset(f for f in (features_text or "").split(",") if f)
    attrs = {
        "cores": cpus,
        "memory_mb": whole("RealMemory", 1),
        "gres": gres,
        "features": features,
        "weight": whole("Weight", 1),
    }
    return names, attrs


def read_slurm_conf(path: str | os.PathLike[str]) -> SlurmConf:
    """Read a ``slurm.conf``: its nodes and partitions as a :class:`~clustersched.platform.NodeCluster`.

    See the module's docstring for what is read and how (Slurm 17.11's rules).

    Parameters
    ----------
    path : str or os.PathLike
        The file.

    Returns
    -------
    SlurmConf
        The platform, the top-level parameters, SchedulerParameters parsed, each partition's options as
        written, the unknown keys and the notes.

    Raises
    ------
    InvalidPlatformError
        A line that is not ``Key=Value`` pairs, ``Include``, a bad number, time, GRES or host list, a node
        defined twice, a partition naming an undefined node, two default partitions, no node at all; the
        message names the file, the line, the node or partition and the key.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> conf = pathlib.Path(tempfile.mkdtemp()) / "slurm.conf"
    >>> _ = conf.write_text('''
    ... SchedulerParameters=bf_window=4320,bf_continue
    ... NodeName=DEFAULT RealMemory=48000 Sockets=2 CoresPerSocket=6
    ... NodeName=n[1-2] Feature=IB
    ... NodeName=g1 Gres=gpu:2
    ... PartitionName=normal Nodes=ALL Default=YES DefMemPerCPU=2800 MaxTime=1-00:00:00
    ... ''')
    >>> c = read_slurm_conf(conf)
    >>> c.platform.node_names, c.platform.total_cores, c.platform.nodes[2].gres["gpu"]
    (('n1', 'n2', 'g1'), 36, 2)
    >>> p = c.platform.default_partition
    >>> p.name, p.max_time, p.def_mem_per_cpu, c.scheduler_parameters
    ('normal', 86400.0, 2800, {'bf_window': '4320', 'bf_continue': True})
    """
    path_str = os.fspath(path)
    try:
        with open(path_str, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except IsADirectoryError:
        raise InvalidPlatformError("is a directory, not a slurm.conf", path=path_str) from None
    parameters: dict[str, str] = {}
    where: dict[str, int] = {}
    unknown: dict[str, None] = {}
    notes: list[str] = []
    node_defaults: dict[str, tuple[str, str]] = {}
    part_defaults: dict[str, tuple[str, str]] = {}
    nodes: dict[str, Node] = {}
    node_line: dict[str, int] = {}
    partitions: list[tuple[int, dict[str, tuple[str, str]]]] = []
    for number, line in _logical_lines(text):
        if re.match(r"\s*include\b", line, re.IGNORECASE) and not re.match(r"\s*include\s*=", line, re.IGNORECASE):
            raise InvalidPlatformError(
                "Include is not supported: paste the included file's lines in its place",
                path=path_str,
                line=number,
                field="Include",
                value=line.strip(),
            )
        pairs = _pairs(line, path_str, number)
        for key, _, doubled in pairs:
            if doubled:
                notes.append(f"line {number}: {key}== read as {key}= (an extra '=', which Slurm ignores too)")
        first = pairs[0][0].lower()
        if first in _OBJECT:
            canon = {"nodename": _NODE, "partitionname": _PARTITION}.get(first)
            entries: dict[str, tuple[str, str]] = {}
            for key, value, _ in pairs:
                low = key.lower()
                if canon is not None and low not in canon:
                    unknown[f"{_OBJECT[first]}:{key}"] = None
                entries[low] = (canon.get(low, key) if canon else key, value)
            name = pairs[0][1]
            if first == "nodename":
                if name.upper() == "DEFAULT":
                    node_defaults = {**node_defaults, **{k: v for k, v in entries.items() if k != "nodename"}}
                    continue
                merged = {**node_defaults, **entries}
                names, attrs = _node_line(merged, path_str, number, notes)
                for n in names:
                    if n in nodes:
                        raise InvalidPlatformError(
                            f"node defined twice (first on line {node_line[n]})", path=path_str, line=number, node=n
                        )
                    try:
                        nodes[n] = Node(n, **attrs)  # type: ignore[arg-type]
                    except InvalidPlatformError as e:
                        raise InvalidPlatformError(
                            e.detail, path=path_str, line=number, node=n, field=e.field, value=e.value
                        ) from None
                    node_line[n] = number
            elif first == "partitionname":
                if name.upper() == "DEFAULT":
                    part_defaults = {**part_defaults, **{k: v for k, v in entries.items() if k != "partitionname"}}
                    continue
                partitions.append((number, {**part_defaults, **entries}))
            else:
                # FrontendName, DownNodes, NodeSet, SwitchName: kept as written, one entry per line.
                key = _OBJECT[first]
                parameters[key] = (parameters[key] + "\n" if key in parameters else "") + line.strip()
            continue
        for key, value, _ in pairs:
            canon_key = _TOP.get(key.lower())
            if canon_key is None:
                unknown[key] = None
                canon_key = next((k for k in parameters if k.lower() == key.lower()), key)
            if canon_key in parameters:
                notes.append(
                    f"line {number}: {canon_key} given again (first on line {where[canon_key]}); the last value is used"
                )
            parameters[canon_key] = value
            where[canon_key] = number
    if not nodes:
        raise InvalidPlatformError("no NodeName line defines a node", path=path_str, field="NodeName")
    parts = [_partition(entries, number, path_str, tuple(nodes)) for number, entries in partitions]
    defaults = [(number, p.name) for (number, _), p in zip(partitions, parts) if p.default]
    if len(defaults) > 1:
        raise InvalidPlatformError(
            f"partitions {defaults[0][1]!r} (line {defaults[0][0]}) and {defaults[1][1]!r} are both Default=YES",
            path=path_str,
            line=defaults[1][0],
            partition=defaults[1][1],
            field="Default",
        )
    seen: dict[str, int] = {}
    for (number, _), p in zip(partitions, parts):
        if p.name in seen:
            raise InvalidPlatformError(
                f"partition defined twice (first on line {seen[p.name]})", path=path_str, line=number, partition=p.name
            )
        seen[p.name] = number
    platform = NodeCluster(tuple(nodes.values()), tuple(parts))
    options = {p.name: {k: v for k, v in entries.values()} for (_, entries), p in zip(partitions, parts)}
    return SlurmConf(
        path=path_str,
        platform=platform,
        parameters=parameters,
        scheduler_parameters=_scheduler_parameters(parameters.get("SchedulerParameters", "")),
        partition_options=options,
        unknown=tuple(unknown),
        notes=tuple(notes),
    )


def _scheduler_parameters(text: str) -> dict[str, str | bool]:
    out: dict[str, str | bool] = {}
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        key, eq, value = item.partition("=")
        out[key] = value if eq else True
    return out


def _partition(entries: Mapping[str, tuple[str, str]], line: int, path: str, all_nodes: tuple[str, ...]) -> Partition:
    name = entries["partitionname"][1]

    def get(key: str) -> str | None:
        entry = entries.get(key.lower())
        return None if entry is None else entry[1]

    nodes_text = get("Nodes")
    if nodes_text is None or nodes_text == "":
        nodes: tuple[str, ...] = ()
    elif nodes_text.upper() == "ALL":
        nodes = all_nodes
    else:
        try:
            nodes = tuple(dict.fromkeys(expand_hostlist(nodes_text)))
        except InvalidPlatformError as e:
            raise InvalidPlatformError(
                e.detail, path=path, line=line, partition=name, field="Nodes", value=nodes_text
            ) from None
        known = set(all_nodes)
        for n in nodes:
            if n not in known:
                raise InvalidPlatformError(
                    f"node {n!r} is not defined by any NodeName line",
                    path=path,
                    line=line,
                    partition=name,
                    field="Nodes",
                    value=n,
                )
    default_text = get("Default") or "NO"
    if default_text.upper() not in ("YES", "NO"):
        raise InvalidPlatformError(
            f"Default={default_text} must be YES or NO",
            path=path,
            line=line,
            partition=name,
            field="Default",
            value=default_text,
        )
    kwargs: dict[str, object] = {"default": default_text.upper() == "YES"}
    for key, attr in (("MaxTime", "max_time"), ("DefaultTime", "default_time")):
        value = get(key)
        if value is not None:
            kwargs[attr] = _time(value, key, path, line, name)
    for key, attr in (
        ("DefMemPerCPU", "def_mem_per_cpu"),
        ("DefMemPerNode", "def_mem_per_node"),
        ("MaxMemPerCPU", "max_mem_per_cpu"),
        ("MaxMemPerNode", "max_mem_per_node"),
    ):
        value = get(key)
        if value is not None and value.upper() not in ("UNLIMITED", "INFINITE"):
            kwargs[attr] = _int(value, key, path, line, partition=name)
    priority = get("Priority")
    for key, attr in (("PriorityTier", "priority_tier"), ("PriorityJobFactor", "priority_job_factor")):
        value = get(key) if get(key) is not None else priority
        if value is not None:
            kwargs[attr] = _int(value, key, path, line, partition=name)
    state = get("State")
    if state is not None:
        kwargs["state"] = state.upper()
    try:
        return Partition(name, nodes, **kwargs)  # type: ignore[arg-type]
    except InvalidPlatformError as e:
        raise InvalidPlatformError(
            e.detail, path=path, line=line, partition=name, field=e.field, value=e.value
        ) from None
