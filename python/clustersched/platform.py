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
"""

from __future__ import annotations

from dataclasses import dataclass

from ._checks import MAX_PROCS, check_float, check_int

__all__ = ["CLUSTERS", "Cluster", "cluster"]

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
