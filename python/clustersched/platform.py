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

A :class:`MultiCluster` is a heterogeneous platform of such clusters with an
optional :class:`Network` (N'takpé & Suter, PDCS 2007, §3-§4: SCRAP's
platforms, with HCPA's reference cluster); :func:`scrap_platforms` draws the
paper's 200.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._checks import MAX_PROCS, check_float, check_int

__all__ = [
    "CLUSTERS",
    "Cluster",
    "MultiCluster",
    "Network",
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
