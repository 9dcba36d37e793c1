"""Platforms: the machines schedules run on.

A :class:`Cluster` is a homogeneous cluster: ``procs`` identical processors of
``speed`` flop/s each, on a network fast enough that the models of this
library ignore it (Casanova, Desprez & Suter, INRIA RR-7224, 2010, §3.1: data
moves through files whose cost is folded into each task's execution time).

Presets
-------
:data:`CLUSTERS` holds the four Grid'5000 clusters of Table 1 of that paper
(§5.1.1).  The paper gives speeds in GFlop/s, measured with HPL over ACML; we
store flop/s, converting with 1 GFlop/s = 10**9 flop/s (decimal, as HPL
reports it):

=========  ==========  ==============  ======================
name       processors  GFlop/s (paper) ``speed`` (flop/s)
=========  ==========  ==============  ======================
chti       20          4.311           4.311e9
grillon    47          3.379           3.379e9
grelon     120         3.185           3.185e9
gdx        216         3.388           3.388e9
=========  ==========  ==============  ======================

A "processor" is an individually schedulable resource (§3.1), which on these
clusters is a node.  The gigabit interconnect of the table is not modelled.

A :class:`NodeCluster` is a batch platform of today's clusters: :class:`Node`
objects, each with cores, memory (MB), generic resources (GPUs) and features,
grouped in :class:`Partition` objects, as Slurm describes them in
``slurm.conf`` (:func:`clustersched.slurm.read_slurm_conf` reads one).

A :class:`MultiCluster` is a heterogeneous platform of such clusters with an
optional :class:`Network` (N'takpé & Suter, PDCS 2007, §3-§4: SCRAP's
platforms, with HCPA's reference cluster); :func:`scrap_platforms` draws the
paper's 200.
"""

from __future__ import annotations

import math
import numbers
import re
import types
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from ._checks import MAX_PROCS, check_float, check_int
from .errors import InvalidPlatformError

__all__ = [
    "CLUSTERS",
    "Cluster",
    "MultiCluster",
    "Network",
    "Node",
    "NodeArrays",
    "NodeCluster",
    "Partition",
    "cluster",
    "random_multicluster",
    "scrap_platform_configs",
    "scrap_platforms",
]


@dataclass(frozen=True)
class Cluster:
    """A homogeneous cluster of ``procs`` processors running at ``speed`` flop/s each.

    Parameters
    ----------
    name : str
        A label (used in reports and error messages).
    procs : int
        Number of processors, ``1 .. 2**32 - 1`` (the Rust core counts them in 32 bits).
    speed : float
        Speed of one processor in flop/s, finite and ``> 0``.  A task of
        ``w`` flop runs ``w / speed`` seconds on one processor.

    Raises
    ------
    TypeError
        ``procs`` not an integer (``bool`` included) or ``speed`` not a real number.
    ValueError
        ``procs`` outside ``1 .. 2**32 - 1`` or ``speed`` not finite and positive.

    Examples
    --------
    >>> c = Cluster("toy", 4, 2e9)
    >>> c.procs, c.speed, c.peak_flops
    (4, 2000000000.0, 8000000000.0)
    >>> Cluster("bad", 0, 1.0)
    Traceback (most recent call last):
    ...
    ValueError: procs == 0, must be >= 1
    """

    name: str
    procs: int
    speed: float

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise TypeError(f"name == {self.name!r}, must be a str")
        check_int("procs", self.procs, 1, MAX_PROCS)
        check_float("speed", self.speed, positive=True)
        # Normalise numpy scalars so that equality, hashing and repr are plain Python.
        object.__setattr__(self, "procs", int(self.procs))
        object.__setattr__(self, "speed", float(self.speed))

    @property
    def peak_flops(self) -> float:
        """Aggregate speed of all processors, flop/s."""
        return self.procs * self.speed


#: The Grid'5000 clusters of Table 1 (RR-7224 §5.1.1), by name.
CLUSTERS: dict[str, Cluster] = {
    c.name: c
    for c in (
        Cluster("chti", 20, 4.311e9),
        Cluster("grillon", 47, 3.379e9),
        Cluster("grelon", 120, 3.185e9),
        Cluster("gdx", 216, 3.388e9),
    )
}


def cluster(name: str) -> Cluster:
    """The preset cluster called ``name`` (case-insensitive).

    Raises
    ------
    ValueError
        For an unknown name; the message lists the known ones.

    Examples
    --------
    >>> cluster("grelon")
    Cluster(name='grelon', procs=120, speed=3185000000.0)
    >>> cluster("nope")
    Traceback (most recent call last):
    ...
    ValueError: unknown cluster 'nope'; known: chti, gdx, grelon, grillon
    """
    key = name.lower() if isinstance(name, str) else name
    try:
        return CLUSTERS[key]
    except (KeyError, TypeError):
        known = ", ".join(sorted(CLUSTERS))
        raise ValueError(f"unknown cluster {name!r}; known: {known}") from None


# -- heterogeneous multi-cluster platforms (N'takpé & Suter, PDCS 2007, §3-§4) ---------------

#: Bytes per second in one Gb/s (decimal, as network devices are rated).
GBIT = 1e9 / 8


@dataclass(frozen=True)
class Network:
    """The network of a :class:`MultiCluster` (PDCS 2007 §4), bandwidths in bytes/s, latencies in s.

    Each processor of cluster ``k`` reaches its cluster's switch through one
    link of ``link_bw[k]`` / ``link_lat[k]`` (the switch has the same
    characteristics and no contention); each cluster reaches the backbone
    through one uplink; the backbone joins the clusters.

    The communication model (what :meth:`transfer_time` computes, and the
    Rust kernels identically): task ``u`` sends ``bytes`` to its successor
    ``v``; nothing when ``bytes == 0``; on the same cluster ``k`` the data are
    redistributed through the switch in ``min(q_u, q_v)`` parallel flows,
    ``3 link_lat[k] + bytes / (min(q_u, q_v) link_bw[k])`` (link, switch,
    link); between clusters the route is links, switch, uplink, backbone,
    uplink, switch, links, ``2 link_lat[k_u] + 2 link_lat[k_v] + 2 uplink_lat
    + backbone_lat + bytes / min(q_u link_bw[k_u], uplink_bw, backbone_bw,
    q_v link_bw[k_v])``.  **Not modelled**: contention between concurrent
    transfers (the paper simulates it with SimGrid: here every transfer has
    its route to itself), TCP dynamics, the overlap of a transfer with other
    computations on the same processors (irrelevant: a transfer only delays
    its receiver), and the data a task keeps when its successor runs on the
    very same processors (it still pays the redistribution).

    Examples
    --------
    >>> n = Network.paper(["1G", "10G"])
    >>> round(n.transfer_time(125e6, 0, 1, 0, 1), 6), round(n.transfer_time(125e6, 0, 4, 1, 4), 6)
    (1.0003, 1.0506)
    """

    link_bw: tuple[float, ...]
    link_lat: tuple[float, ...]
    uplink_bw: float
    uplink_lat: float
    backbone_bw: float
    backbone_lat: float

    def __post_init__(self) -> None:
        bw = tuple(check_float("link_bw", b, positive=True) for b in self.link_bw)
        lat = tuple(check_float("link_lat", x, minimum=0.0) for x in self.link_lat)
        if len(bw) != len(lat) or not bw:
            raise ValueError(f"link_bw has {len(bw)} entries and link_lat {len(lat)}: must be one per cluster, >= 1")
        object.__setattr__(self, "link_bw", bw)
        object.__setattr__(self, "link_lat", lat)
        for name in ("uplink_bw", "backbone_bw"):
            object.__setattr__(self, name, check_float(name, getattr(self, name), positive=True))
        for name in ("uplink_lat", "backbone_lat"):
            object.__setattr__(self, name, check_float(name, getattr(self, name), minimum=0.0))

    #: The two cluster interconnects of §4: (bandwidth in bytes/s, latency in s).
    TECHNOLOGIES = {"1G": (1.0 * GBIT, 100e-6), "10G": (10.0 * GBIT, 100e-6)}

    @classmethod
    def paper(cls, technologies: "list[str] | tuple[str, ...]") -> "Network":
        """The network of §4 with cluster ``k`` on ``technologies[k]`` ("1G" or "10G").

        Uplinks 1 Gb/s and 100 µs, backbone 25 Gb/s and 50 ms.
        """
        try:
            links = [cls.TECHNOLOGIES[t] for t in technologies]
        except KeyError as e:
            raise ValueError(f"technology == {e.args[0]!r}, must be one of {sorted(cls.TECHNOLOGIES)}") from None
        return cls(
            link_bw=tuple(b for b, _ in links),
            link_lat=tuple(x for _, x in links),
            uplink_bw=1.0 * GBIT,
            uplink_lat=100e-6,
            backbone_bw=25.0 * GBIT,
            backbone_lat=50e-3,
        )

    def transfer_time(self, nbytes: float, k_src: int, q_src: int, k_dst: int, q_dst: int) -> float:
        """Seconds to move ``nbytes`` between two allocated tasks (class docstring)."""
        if nbytes <= 0:
            return 0.0
        if k_src == k_dst:
            return 3.0 * self.link_lat[k_src] + nbytes / (min(q_src, q_dst) * self.link_bw[k_src])
        latency = 2.0 * self.link_lat[k_src] + 2.0 * self.link_lat[k_dst] + 2.0 * self.uplink_lat + self.backbone_lat
        bw = min(q_src * self.link_bw[k_src], self.uplink_bw, self.backbone_bw, q_dst * self.link_bw[k_dst])
        return latency + nbytes / bw


@dataclass(frozen=True)
class MultiCluster:
    """A heterogeneous platform of clusters, each homogeneous (PDCS 2007 §3).

    Parameters
    ----------
    name : str
    clusters : tuple of Cluster
        Cluster ``k`` has ``clusters[k].procs`` processors of ``clusters[k].speed``
        flop/s.  Processor ids are global: cluster ``k`` owns
        ``first(k) .. first(k) + procs - 1``, clusters in order.
    network : Network, optional
        ``None``: communications are free (the model of RR-7224).

    The *reference speed* ``s_ref`` is the slowest processor's; ``r_k =
    speed_k / s_ref``.  :attr:`ref_power` ``P_ref = sum_k procs_k r_k`` is the
    platform's power in reference processors (``β`` is measured against it),
    and the HCPA *reference cluster* is the virtual homogeneous cluster of
    :attr:`ref_procs` ``= floor(P_ref + 1e-9)`` processors of speed ``s_ref``.

    Examples
    --------
    >>> p = MultiCluster("two", (Cluster("a", 10, 1e9), Cluster("b", 4, 2.5e9)))
    >>> p.ref_speed, p.ref_power, p.ref_procs, p.power, p.first(1)
    (1000000000.0, 20.0, 20, 20000000000.0, 10)
    """

    name: str
    clusters: tuple[Cluster, ...]
    network: Network | None = None

    def __post_init__(self) -> None:
        clusters = tuple(self.clusters)
        if not clusters or not all(isinstance(c, Cluster) for c in clusters):
            raise TypeError(f"clusters == {self.clusters!r}, must be a non-empty sequence of Cluster")
        object.__setattr__(self, "clusters", clusters)
        if sum(c.procs for c in clusters) > MAX_PROCS:
            raise ValueError(f"{sum(c.procs for c in clusters)} processors in all, must be <= {MAX_PROCS}")
        if self.network is not None:
            if not isinstance(self.network, Network):
                raise TypeError(f"network == {self.network!r}, must be a Network or None")
            if len(self.network.link_bw) != len(clusters):
                raise ValueError(
                    f"network has links for {len(self.network.link_bw)} clusters, the platform has {len(clusters)}"
                )

    def __len__(self) -> int:
        return len(self.clusters)

    @property
    def procs(self) -> tuple[int, ...]:
        """Processors of each cluster."""
        return tuple(c.procs for c in self.clusters)

    @property
    def speeds(self) -> tuple[float, ...]:
        """Processor speed of each cluster (flop/s)."""
        return tuple(c.speed for c in self.clusters)

    @property
    def total_procs(self) -> int:
        return sum(self.procs)

    @property
    def power(self) -> float:
        """Total processing power, flop/s."""
        return sum(c.peak_flops for c in self.clusters)

    @property
    def ref_speed(self) -> float:
        """``s_ref``: the slowest processor's speed (flop/s)."""
        return min(self.speeds)

    @property
    def ref_power(self) -> float:
        """``P_ref = sum_k procs_k * (speed_k / s_ref)``, summed in cluster order."""
        s_ref = self.ref_speed
        total = 0.0
        for c in self.clusters:
            total += c.procs * (c.speed / s_ref)
        return total

    @property
    def ref_procs(self) -> int:
        """Processors of the HCPA reference cluster, ``floor(P_ref + 1e-9)``."""
        import math

        return int(math.floor(self.ref_power + 1e-9))

    def first(self, k: int) -> int:
        """First global processor id of cluster ``k``."""
        return sum(self.procs[:k])

    def cluster_of(self, proc: int) -> int:
        """The cluster that owns global processor id ``proc``."""
        for k in range(len(self.clusters)):
            if proc < self.first(k) + self.procs[k]:
                return k
        raise ValueError(f"proc == {proc}, must be < {self.total_procs}")

    def without_network(self) -> "MultiCluster":
        """The same clusters with free communications."""
        return MultiCluster(self.name, self.clusters, None)

    def to_dict(self) -> dict:
        """A JSON-ready description."""
        return {
            "name": self.name,
            "clusters": [{"name": c.name, "procs": c.procs, "speed": c.speed} for c in self.clusters],
            "network": None
            if self.network is None
            else {
                "link_bw": list(self.network.link_bw),
                "link_lat": list(self.network.link_lat),
                "uplink_bw": self.network.uplink_bw,
                "uplink_lat": self.network.uplink_lat,
                "backbone_bw": self.network.backbone_bw,
                "backbone_lat": self.network.backbone_lat,
            },
        }


#: PDCS 2007 §4's platform grid: cluster counts, minimum speeds (GFlop/s), heterogeneity factors.
SCRAP_CLUSTER_COUNTS = (1, 2, 4, 8)
SCRAP_MIN_SPEEDS = (0.25, 0.5, 0.75, 1.0)
SCRAP_HETEROGENEITY = (1.0, 2.0, 5.0)
SCRAP_PROCS_RANGE = (16, 128)
SCRAP_SAMPLES = 5


def scrap_platform_configs() -> list[dict]:
    """The 40 platform configurations of PDCS 2007 §4, in grid order.

    One cluster: the four minimum speeds (heterogeneity is moot, factor 1);
    2, 4, 8 clusters: every minimum speed x heterogeneity factor 1, 2, 5.

    Examples
    --------
    >>> cs = scrap_platform_configs()
    >>> len(cs), cs[0], cs[-1]  # doctest: +NORMALIZE_WHITESPACE
    (40, {'clusters': 1, 'min_speed': 0.25, 'heterogeneity': 1.0},
     {'clusters': 8, 'min_speed': 1.0, 'heterogeneity': 5.0})
    """
    out = []
    for c in SCRAP_CLUSTER_COUNTS:
        for s in SCRAP_MIN_SPEEDS:
            for h in SCRAP_HETEROGENEITY if c > 1 else (1.0,):
                out.append({"clusters": c, "min_speed": s, "heterogeneity": h})
    return out


def random_multicluster(
    clusters: int, min_speed: float, heterogeneity: float, *, seed, name: str | None = None, network: bool = True
) -> MultiCluster:
    """A random platform of PDCS 2007 §4.

    Cluster ``k`` gets a uniform integer number of processors in 16..128 and a
    speed uniform in ``[min_speed, min_speed * heterogeneity]`` GFlop/s
    (10**9 flop/s; one draw per cluster, homogeneous within it).  Half the
    clusters (``clusters // 2``, chosen at random) use 10 Gigabit Ethernet,
    the others Gigabit Ethernet; a single cluster is either, at random.  Draws
    in that order: processor counts, speeds, then the interconnects.

    Parameters
    ----------
    clusters : int
    min_speed : float
        GFlop/s, > 0.
    heterogeneity : float
        ``>= 1``.
    seed : int or numpy.random.Generator
    network : bool
        ``False`` gives a platform without a network (free communications).

    Examples
    --------
    >>> p = random_multicluster(4, 0.5, 5.0, seed=1)
    >>> len(p), all(16 <= c.procs <= 128 for c in p.clusters), all(0.5e9 <= c.speed <= 2.5e9 for c in p.clusters)
    (4, True, True)
    >>> sorted(p.network.link_bw) == [GBIT, GBIT, 10 * GBIT, 10 * GBIT]
    True
    """
    from ._checks import make_rng

    c = check_int("clusters", clusters, 1)
    lo = check_float("min_speed", min_speed, positive=True)
    h = check_float("heterogeneity", heterogeneity, minimum=1.0)
    if not lo * h * 1e9 < float("inf"):
        raise ValueError(f"min_speed * heterogeneity == {lo * h!r} GFlop/s, must be finite in flop/s (<= 1.7e299)")
    rng = make_rng(seed)
    procs = rng.integers(SCRAP_PROCS_RANGE[0], SCRAP_PROCS_RANGE[1], size=c, endpoint=True)
    speeds = rng.uniform(lo, lo * h, size=c) * 1e9
    if c == 1:
        fast = [bool(rng.integers(0, 2))]
    else:
        chosen = set(rng.permutation(c)[: c // 2].tolist())
        fast = [k in chosen for k in range(c)]
    name = name or f"c{c}-s{lo}-h{h}"
    cl = tuple(Cluster(f"{name}/{k}", int(procs[k]), float(speeds[k])) for k in range(c))
    net = Network.paper(["10G" if f else "1G" for f in fast]) if network else None
    return MultiCluster(name, cl, net)


def scrap_platforms(*, seed: int, samples: int = SCRAP_SAMPLES) -> list[MultiCluster]:
    """The 200 platforms of PDCS 2007 §4: ``samples`` per configuration of :func:`scrap_platform_configs`.

    Platform ``k`` (configuration ``k // samples``, sample ``k % samples``) is
    drawn from ``SeedSequence(seed, spawn_key=(k,))``, so each platform is the
    same whether drawn alone or with the others.  Names are
    ``"c{clusters}-s{min_speed}-h{heterogeneity}-#{sample}"``.

    Examples
    --------
    >>> ps = scrap_platforms(seed=0)
    >>> len(ps), ps[7].name
    (200, 'c1-s0.5-h1.0-#2')
    """
    import numpy as np

    root = check_int("seed", seed, 0)
    samples = check_int("samples", samples, 1)
    out = []
    for i, cfg in enumerate(scrap_platform_configs()):
        for s in range(samples):
            k = i * samples + s
            rng = np.random.default_rng(np.random.SeedSequence(root, spawn_key=(k,)))
            name = f"c{cfg['clusters']}-s{cfg['min_speed']}-h{cfg['heterogeneity']}-#{s}"
            out.append(
                random_multicluster(cfg["clusters"], cfg["min_speed"], cfg["heterogeneity"], seed=rng, name=name)
            )
    return out


# -- node-based batch platforms: today's Slurm clusters ------------------------------------------

#: Largest memory of one node, MB (2**53: beyond it a float64 no longer holds every integer).
MAX_MEMORY_MB = 2**53
#: Most distinct features a NodeCluster may have (one bit each in :attr:`NodeArrays.features`).
MAX_FEATURES = 64
#: Slurm's partition states (slurm.conf, "PARTITION CONFIGURATION", ``State``).
PARTITION_STATES = ("UP", "DOWN", "DRAIN", "INACTIVE")
# Characters that cannot be in a node, partition, feature or GRES name: host-list syntax, the constraint
# operators of sbatch --constraint, the separators of Key=Value lines.
_NAME_FORBIDDEN = re.compile(r"[\s\[\],=&|]")


def _check_name(kind: str, name: object) -> str:
    if not isinstance(name, str):
        raise TypeError(f"{kind} == {name!r}, must be a str")
    if not name or _NAME_FORBIDDEN.search(name):
        raise InvalidPlatformError(
            f"{kind} {name!r} must be non-empty, without spaces or any of '[],=&|'", field=kind, value=name
        )
    return name


def _gres(node: str, gres: Mapping[str, int]) -> Mapping[str, int]:
    """A node's GRES normalised: every typed count also counted under its untyped name."""
    if not isinstance(gres, Mapping):
        raise TypeError(f"gres == {gres!r}, must be a mapping of GRES name to count")
    counts: dict[str, int] = {}
    typed: dict[str, int] = {}
    for key, count in gres.items():
        if not isinstance(key, str) or not re.fullmatch(r"[A-Za-z0-9_.\-]+(:[A-Za-z0-9_.\-]+)?", key):
            raise InvalidPlatformError(
                f"GRES name {key!r} must be 'name' or 'name:type' (letters, digits, '_', '.', '-')",
                node=node,
                field="gres",
                value=key,
            )
        try:
            counts[key] = check_int(f"gres[{key!r}]", count, 0, MAX_PROCS)
        except (TypeError, ValueError) as e:
            raise InvalidPlatformError(str(e), node=node, field="gres", value=count) from None
        if ":" in key:
            base = key.split(":", 1)[0]
            typed[base] = typed.get(base, 0) + counts[key]
    for base, total in typed.items():
        given = counts.get(base)
        if given is None:
            counts[base] = total
        elif given < total:
            raise InvalidPlatformError(
                f"gres[{base!r}] == {given} is fewer than its typed counts ({total}); "
                f"the untyped count is every {base} of the node, typed or not",
                node=node,
                field="gres",
                value=given,
            )
    return types.MappingProxyType(dict(sorted(counts.items())))


@dataclass(frozen=True)
class Node:
    """A compute node: cores, memory, generic resources (GPUs) and features, as a slurm.conf ``NodeName`` line.

    Parameters
    ----------
    name : str
        The node's name (``n1``, ``g001``): non-empty, without spaces or ``[],=&|``.
    cores : int
        Schedulable CPUs (Slurm's ``CPUs``), ``1 .. 2**32 - 1``.
    memory_mb : int
        Memory jobs may use, MB (Slurm's ``RealMemory``, whose default is 1), ``1 .. 2**53``.
    gres : mapping of str to int
        Generic resources: ``{"gpu": 2}`` for two GPUs of no type, ``{"gpu:tesla_v100": 2}`` for typed ones.
        A typed count is also counted under its untyped name, so that a job asking for GPUs of any type
        sees every GPU of the node: ``{"gpu:tesla_v100": 2}`` is stored as ``{"gpu": 2, "gpu:tesla_v100":
        2}``.  An untyped count given beside typed ones must be at least their sum (it is the node's total).
    features : iterable of str
        Node features (Slurm's ``Feature``) that jobs may require (sbatch ``--constraint``).
    weight : int
        Slurm's ``Weight`` (default 1): jobs go to the nodes of lowest weight first, ``0 .. 2**32 - 1``.

    Raises
    ------
    TypeError
        A value of the wrong type.
    InvalidPlatformError
        A name, count or GRES out of its range (a ``ValueError``), naming the node.

    Examples
    --------
    >>> g = Node("g1", 12, 48000, gres={"gpu:tesla_v100": 2}, features={"IB"})
    >>> dict(g.gres), sorted(g.features)
    ({'gpu': 2, 'gpu:tesla_v100': 2}, ['IB'])
    >>> Node("n1", 0, 1000)
    Traceback (most recent call last):
    ...
    clustersched.errors.InvalidPlatformError: node 'n1': cores == 0, must be >= 1
    """

    name: str
    cores: int
    memory_mb: int
    gres: Mapping[str, int] = field(default_factory=dict)
    features: frozenset[str] = frozenset()
    weight: int = 1

    def __post_init__(self) -> None:
        name = _check_name("node name", self.name)
        for attr, low, high in (("cores", 1, MAX_PROCS), ("memory_mb", 1, MAX_MEMORY_MB), ("weight", 0, MAX_PROCS)):
            value = getattr(self, attr)
            try:
                object.__setattr__(self, attr, check_int(attr, value, low, high))
            except ValueError as e:
                raise InvalidPlatformError(str(e), node=name, field=attr, value=value) from None
        object.__setattr__(self, "gres", _gres(name, self.gres))
        if isinstance(self.features, str) or not isinstance(self.features, Iterable):
            raise TypeError(f"features == {self.features!r}, must be a set of str (not one str)")
        features = frozenset(self.features)
        for f in features:
            _check_name("feature", f)
        object.__setattr__(self, "features", features)

    def __hash__(self) -> int:
        return hash((self.name, self.cores, self.memory_mb, tuple(self.gres.items()), self.features, self.weight))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Node):
            return NotImplemented
        return (self.name, self.cores, self.memory_mb, dict(self.gres), self.features, self.weight) == (
            other.name,
            other.cores,
            other.memory_mb,
            dict(other.gres),
            other.features,
            other.weight,
        )

    def __repr__(self) -> str:
        extra = ""
        if self.gres:
            extra += f", gres={dict(self.gres)!r}"
        if self.features:
            extra += f", features={sorted(self.features)!r}"
        if self.weight != 1:
            extra += f", weight={self.weight}"
        return f"Node({self.name!r}, cores={self.cores}, memory_mb={self.memory_mb}{extra})"


def _optional_int(partition: str, attr: str, value: object, high: int = MAX_MEMORY_MB) -> int | None:
    if value is None:
        return None
    try:
        return check_int(attr, value, 0, high)
    except ValueError as e:
        raise InvalidPlatformError(str(e), partition=partition, field=attr, value=value) from None


@dataclass(frozen=True)
class Partition:
    """A partition: a named set of nodes with its limits and defaults, as a slurm.conf ``PartitionName`` line.

    Parameters
    ----------
    name : str
        The partition's name.
    nodes : tuple of str
        Its nodes' names, each once (expand a Slurm host list with
        :func:`clustersched.slurm.expand_hostlist`).  May be empty, as in Slurm.
    default : bool
        Whether jobs that name no partition go here (``Default=YES``).
    max_time : float
        The longest time limit a job may have, seconds (``MaxTime``; ``math.inf`` for ``INFINITE``, the default).
    default_time : float or None
        The time limit of a job that gives none, seconds (``DefaultTime``); None: ``max_time``, as in Slurm.
    def_mem_per_cpu, def_mem_per_node : int or None
        Memory, MB, of a job that asks for none (``DefMemPerCPU``, ``DefMemPerNode``); None when not set.
    max_mem_per_cpu, max_mem_per_node : int or None
        The most memory, MB, a job may ask (``MaxMemPerCPU``, ``MaxMemPerNode``); None for no limit.
    priority_tier : int
        ``PriorityTier`` (Slurm's default 1): jobs of a higher tier are considered first.
    priority_job_factor : int
        ``PriorityJobFactor`` (default 1): the partition factor of the multifactor priority.
    state : str
        ``UP``, ``DOWN``, ``DRAIN`` or ``INACTIVE`` (Slurm's ``State``, default ``UP``).

    Examples
    --------
    >>> p = Partition("debug", ("n1", "n2"), max_time=3600.0, def_mem_per_cpu=2800)
    >>> p.nodes, p.max_time, p.default
    (('n1', 'n2'), 3600.0, False)
    """

    name: str
    nodes: tuple[str, ...]
    default: bool = False
    max_time: float = math.inf
    default_time: float | None = None
    def_mem_per_cpu: int | None = None
    def_mem_per_node: int | None = None
    max_mem_per_cpu: int | None = None
    max_mem_per_node: int | None = None
    priority_tier: int = 1
    priority_job_factor: int = 1
    state: str = "UP"

    def __post_init__(self) -> None:
        name = _check_name("partition name", self.name)
        if isinstance(self.nodes, str) or not isinstance(self.nodes, Iterable):
            raise TypeError(
                f"nodes == {self.nodes!r}, must be a tuple of node names "
                "(expand a host list with clustersched.slurm.expand_hostlist)"
            )
        nodes = tuple(self.nodes)
        seen: set[str] = set()
        for n in nodes:
            _check_name("node name", n)
            if n in seen:
                raise InvalidPlatformError(f"node {n!r} is listed twice", partition=name, field="nodes", value=n)
            seen.add(n)
        object.__setattr__(self, "nodes", nodes)
        if not isinstance(self.default, (bool, np.bool_)):
            raise TypeError(f"default == {self.default!r}, must be a bool")
        object.__setattr__(self, "default", bool(self.default))
        for attr in ("max_time", "default_time"):
            value = getattr(self, attr)
            if value is None and attr == "default_time":
                continue
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise TypeError(f"{attr} == {value!r}, must be a number of seconds")
            if not (float(value) > 0):
                raise InvalidPlatformError(f"{attr} == {value!r}, must be > 0", partition=name, field=attr, value=value)
            object.__setattr__(self, attr, float(value))
        for attr in ("def_mem_per_cpu", "def_mem_per_node", "max_mem_per_cpu", "max_mem_per_node"):
            object.__setattr__(self, attr, _optional_int(name, attr, getattr(self, attr)))
        for attr in ("priority_tier", "priority_job_factor"):
            # Slurm stores both in 16 bits, 65533 the largest accepted.
            object.__setattr__(self, attr, _optional_int(name, attr, getattr(self, attr), 65533))
        state = self.state.upper() if isinstance(self.state, str) else self.state
        if state not in PARTITION_STATES:
            raise InvalidPlatformError(
                f"state == {self.state!r}, must be one of {', '.join(PARTITION_STATES)}",
                partition=name,
                field="state",
                value=self.state,
            )
        object.__setattr__(self, "state", state)


@dataclass(frozen=True)
class NodeArrays:
    """A :class:`NodeCluster` as contiguous numpy arrays, for the Rust core (see :meth:`NodeCluster.to_arrays`).

    Attributes
    ----------
    cores : numpy.ndarray of uint32, shape (n,)
    memory_mb : numpy.ndarray of uint64, shape (n,)
        Whole MB, as Slurm counts them (exact integers, unlike a float64 beyond 2**53).
    weight : numpy.ndarray of uint32, shape (n,)
    gres : numpy.ndarray of uint32, shape (n, g)
        Column ``j`` counts ``gres_names[j]`` on each node (0 where a node has none).
    features : numpy.ndarray of uint64, shape (n,)
        Bit ``j`` set when the node has ``feature_names[j]``.
    partitions : numpy.ndarray of bool, shape (p, n)
        Row ``k`` is the node mask of ``partition_names[k]``.
    gres_names, feature_names, partition_names : tuple of str
        The names of the columns, bits and rows (GRES and features sorted, partitions in the cluster's order).
    """

    cores: np.ndarray
    memory_mb: np.ndarray
    weight: np.ndarray
    gres: np.ndarray
    features: np.ndarray
    partitions: np.ndarray
    gres_names: tuple[str, ...]
    feature_names: tuple[str, ...]
    partition_names: tuple[str, ...]


@dataclass(frozen=True)
class NodeCluster:
    """A batch platform of nodes grouped in partitions (a Slurm cluster).

    Parameters
    ----------
    nodes : sequence of Node
        At least one; names distinct.  Their order is the node index of :meth:`node_index` and
        :meth:`to_arrays`.
    partitions : sequence of Partition
        Names distinct, each naming only nodes of ``nodes``, at most one ``default``.  When none is
        given, the cluster has one default partition ``"all"`` holding every node.

    Raises
    ------
    InvalidPlatformError
        No node, a node name twice, a partition name twice, a partition naming an unknown node, two
        default partitions, or more than 64 features (:data:`MAX_FEATURES`).

    Examples
    --------
    >>> c = NodeCluster([Node("n1", 12, 48000), Node("g1", 12, 48000, gres={"gpu": 2})])
    >>> c.total_cores, c.node_names, c.gres_names, c.default_partition.name
    (24, ('n1', 'g1'), ('gpu',), 'all')
    >>> a = c.to_arrays()
    >>> a.cores.tolist(), a.gres.tolist(), a.partitions.tolist()
    ([12, 12], [[0], [2]], [[True, True]])
    >>> NodeCluster([Node("n1", 1, 1)], [Partition("p", ("n2",))])
    Traceback (most recent call last):
    ...
    clustersched.errors.InvalidPlatformError: partition 'p', field 'nodes': node 'n2' is not a node of the cluster
    """

    nodes: tuple[Node, ...]
    partitions: tuple[Partition, ...] = ()

    def __post_init__(self) -> None:
        if isinstance(self.nodes, Node) or not isinstance(self.nodes, Iterable):
            raise TypeError(f"nodes == {self.nodes!r}, must be a sequence of Node")
        nodes = tuple(self.nodes)
        if not nodes:
            raise InvalidPlatformError("a NodeCluster needs at least one node", field="nodes")
        index: dict[str, int] = {}
        for i, node in enumerate(nodes):
            if not isinstance(node, Node):
                raise TypeError(f"nodes[{i}] == {node!r}, must be a Node")
            if node.name in index:
                raise InvalidPlatformError("node name given twice", node=node.name, field="nodes", value=node.name)
            index[node.name] = i
        partitions = tuple(self.partitions)
        if not partitions:
            partitions = (Partition("all", tuple(index), default=True),)
        names: set[str] = set()
        defaults = []
        for k, part in enumerate(partitions):
            if not isinstance(part, Partition):
                raise TypeError(f"partitions[{k}] == {part!r}, must be a Partition")
            if part.name in names:
                raise InvalidPlatformError("partition name given twice", partition=part.name, field="partitions")
            names.add(part.name)
            for n in part.nodes:
                if n not in index:
                    raise InvalidPlatformError(
                        f"node {n!r} is not a node of the cluster", partition=part.name, field="nodes", value=n
                    )
            if part.default:
                defaults.append(part.name)
        if len(defaults) > 1:
            raise InvalidPlatformError(
                f"partitions {defaults[0]!r} and {defaults[1]!r} are both the default; at most one may be",
                partition=defaults[1],
                field="default",
            )
        features = sorted({f for node in nodes for f in node.features})
        if len(features) > MAX_FEATURES:
            raise InvalidPlatformError(
                f"the nodes have {len(features)} distinct features, more than {MAX_FEATURES} "
                "(one bit each in to_arrays().features)",
                field="features",
                value=len(features),
            )
        object.__setattr__(self, "nodes", nodes)
        object.__setattr__(self, "partitions", partitions)
        object.__setattr__(self, "_index", types.MappingProxyType(index))

    @classmethod
    def uniform(cls, nodes: int, cores: int, memory_mb: int, name: str = "n") -> "NodeCluster":
        """``nodes`` identical nodes named ``{name}1 .. {name}{nodes}``, in one default partition ``"all"``.

        Examples
        --------
        >>> hpc2n = NodeCluster.uniform(120, 2, 2048)   # HPC2N as paper 001 §5.3 models it
        >>> hpc2n.total_cores, hpc2n.nodes[-1]
        (240, Node('n120', cores=2, memory_mb=2048))
        """
        count = check_int("nodes", nodes, 1, MAX_PROCS)
        return cls(tuple(Node(f"{name}{i}", cores, memory_mb) for i in range(1, count + 1)))

    @property
    def total_cores(self) -> int:
        """Cores of all nodes."""
        return sum(node.cores for node in self.nodes)

    @property
    def node_names(self) -> tuple[str, ...]:
        """The nodes' names, in node order."""
        return tuple(node.name for node in self.nodes)

    @property
    def gres_names(self) -> tuple[str, ...]:
        """Every GRES name any node has (typed and untyped), sorted."""
        return tuple(sorted({key for node in self.nodes for key in node.gres}))

    @property
    def feature_names(self) -> tuple[str, ...]:
        """Every feature any node has, sorted (bit ``j`` of :attr:`NodeArrays.features` is the ``j``-th)."""
        return tuple(sorted({f for node in self.nodes for f in node.features}))

    @property
    def default_partition(self) -> Partition | None:
        """The partition marked default; None when there is none (Slurm then refuses a job that names none)."""
        return next((p for p in self.partitions if p.default), None)

    def partition(self, name: str) -> Partition:
        """The partition called ``name``; InvalidPlatformError listing the names when there is none."""
        for p in self.partitions:
            if p.name == name:
                return p
        known = ", ".join(p.name for p in self.partitions)
        raise InvalidPlatformError(f"no partition {name!r}; the partitions are {known}", partition=name)

    def node_index(self, name: str) -> int:
        """The 0-based index of the node called ``name``; InvalidPlatformError when there is none."""
        try:
            return self._index[name]  # type: ignore[attr-defined]
        except (KeyError, TypeError):
            raise InvalidPlatformError(f"no node {name!r} in the cluster", node=str(name)) from None

    def to_arrays(self) -> NodeArrays:
        """The nodes as contiguous numpy arrays, in node order (see :class:`NodeArrays`).

        Examples
        --------
        >>> c = NodeCluster([Node("n1", 4, 100, features={"IB"}), Node("n2", 8, 200, features={"IB", "GPU"})])
        >>> a = c.to_arrays()
        >>> a.feature_names, a.features.tolist(), a.memory_mb.dtype
        (('GPU', 'IB'), [2, 3], dtype('uint64'))
        """
        gres_names = self.gres_names
        feature_names = self.feature_names
        bit = {f: np.uint64(1) << np.uint64(j) for j, f in enumerate(feature_names)}
        n = len(self.nodes)
        gres = np.zeros((n, len(gres_names)), dtype=np.uint32)
        features = np.zeros(n, dtype=np.uint64)
        for i, node in enumerate(self.nodes):
            for j, key in enumerate(gres_names):
                gres[i, j] = node.gres.get(key, 0)
            for f in node.features:
                features[i] |= bit[f]
        masks = np.zeros((len(self.partitions), n), dtype=bool)
        for k, part in enumerate(self.partitions):
            masks[k, [self.node_index(x) for x in part.nodes]] = True
        return NodeArrays(
            cores=np.ascontiguousarray([node.cores for node in self.nodes], dtype=np.uint32),
            memory_mb=np.ascontiguousarray([node.memory_mb for node in self.nodes], dtype=np.uint64),
            weight=np.ascontiguousarray([node.weight for node in self.nodes], dtype=np.uint32),
            gres=gres,
            features=features,
            partitions=masks,
            gres_names=gres_names,
            feature_names=feature_names,
            partition_names=tuple(p.name for p in self.partitions),
        )
