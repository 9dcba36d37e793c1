"""Hypothesis strategies for small TIGs and grids of LANs (the inputs of the differential and validator tests).

Values come from short lists with repeats, so that equal scores, priorities,
powers and bandwidths (the ties every rule must break the same way) are
common, and zeros (a host with no power left, a LAN or link without
bandwidth, a free communication) occur.
"""

from __future__ import annotations

from hypothesis import strategies as st

from clustersched.grid import TIG, LanGrid

MCRS = (50.0, 100.0, 100.0, 150.0, 200.0, 333.3)
MBRS = (0.0, 10.0, 10.0, 20.0, 25.5)
POWERS = (0.0, 100.0, 150.0, 200.0, 200.0, 400.0, 1000.0)
BANDWIDTHS = (0.0, 10.0, 20.0, 20.0, 40.0, 80.0, 500.0)


@st.composite
def tigs(draw, min_tasks: int = 1, max_tasks: int = 9, connected: bool = True, max_extra: int = 5) -> TIG:
    """A TIG: a random tree (when ``connected``) plus up to ``max_extra`` other edges."""
    n = draw(st.integers(min_tasks, max_tasks))
    edges: set[tuple[int, int]] = set()
    if connected:
        for k in range(1, n):
            edges.add((draw(st.integers(0, k - 1)), k))
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n) if (a, b) not in edges]
    if pairs:
        extra = draw(st.lists(st.sampled_from(pairs), max_size=max_extra, unique=True))
        edges.update(extra)
    order = draw(st.permutations(range(n)))  # relabel, so that task 0 is not always the tree's root
    ordered = sorted((min(order[a], order[b]), max(order[a], order[b])) for a, b in edges)
    mcr = draw(st.lists(st.sampled_from(MCRS), min_size=n, max_size=n))
    mbr = draw(st.lists(st.sampled_from(MBRS), min_size=len(ordered), max_size=len(ordered)))
    return TIG.from_arrays(mcr, ordered, mbr)


@st.composite
def grids(draw, max_lans: int = 5, max_hosts: int = 3) -> LanGrid:
    """A grid: 1..max_lans LANs of 1..max_hosts hosts, any subset of the pairs of LANs linked."""
    lans = draw(st.integers(1, max_lans))
    hosts = [draw(st.lists(st.sampled_from(POWERS), min_size=1, max_size=max_hosts)) for _ in range(lans)]
    lan_bw = draw(st.lists(st.sampled_from(BANDWIDTHS), min_size=lans, max_size=lans))
    pairs = [(a, b) for a in range(lans) for b in range(a + 1, lans)]
    links = draw(st.lists(st.sampled_from(pairs), unique=True)) if pairs else []
    link_bw = draw(st.lists(st.sampled_from(BANDWIDTHS), min_size=len(links), max_size=len(links)))
    return LanGrid.from_arrays(hosts, lan_bw, links, link_bw)
