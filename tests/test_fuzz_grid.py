"""Fuzzing of the grid algorithms (issue 20): ``grid.qlse`` and ``grid.greedy_best_fit``, under both bandwidth
models, on seeded random TIGs and grids of LANs, degenerate ones included (one task, one LAN, one host, no link,
zero powers and bandwidths, free communications, isolated tasks, values from 1e-200 to 1e290, capacities set a
few RTOL around the exact sum of requirements), and on planted feasible instances.

Each case runs in a sandboxed worker (``tests/sandbox.py``) under a hard time limit: a hang is a failure.  In
the worker, every mapping goes through ``mapping_violations`` (a violation is a failure, not a typed
rejection), its metrics are computed, and a disconnected TIG must be refused by QLSE with InvalidGraphError.
A few cases carry a deliberately bad value (NaN, negative, infinite, above MAX_VALUE): their model must be
refused with a ClusterschedError, which the sandbox counts as a typed rejection; any other exception fails.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from sandbox import fixture

#: Cases run (seeds 0..CASES-1) and the hard limit of one case, seconds.
CASES = 4000
SECONDS = 20.0
#: Value scales: every MCR, MBR, power and bandwidth of a case is drawn around one of them.
SCALES = (1e-200, 1e-6, 1.0, 1e3, 1e150, 1e290)
RTOL = 1e-9


def _values(rng: np.random.Generator, size: int, scale: float, zeros: float) -> list[float]:
    """``size`` values around ``scale``: continuous, or a few repeated levels (ties); some zeros."""
    if rng.random() < 0.5:
        x = scale * rng.uniform(0.1, 10.0, size)
    else:
        x = scale * rng.choice([0.5, 1.0, 1.0, 2.0, 3.0], size)
    x[rng.random(size) < zeros] = 0.0
    return x.tolist()


def _tight(rng: np.random.Generator, needs: list[float], capacity: float) -> float:
    """A capacity a few RTOL around the exact sum of a random subset of ``needs`` (else ``capacity``)."""
    if not needs or rng.random() < 0.6:
        return capacity
    k = int(rng.integers(1, len(needs) + 1))
    subset = rng.choice(np.asarray(needs), size=k, replace=False).tolist()
    return math.fsum(subset) * (1 + int(rng.integers(-2, 3)) * RTOL)


def _model(rng: np.random.Generator):
    """A random TIG and grid (as arrays), maybe degenerate, maybe with tight capacities."""
    from clustersched.grid import TIG, LanGrid

    n = int(rng.choice([1, 2, 3, int(rng.integers(1, 40))]))
    shape = rng.choice(["tree", "tree", "dense", "forest", "none"])
    edges: set[tuple[int, int]] = set()
    if shape in ("tree", "dense"):
        edges |= {(int(rng.integers(k)), k) for k in range(1, n)}
    if shape in ("dense", "forest") and n > 1:
        for _ in range(int(rng.integers(0, 2 * n))):
            a, b = sorted(int(x) for x in rng.integers(n, size=2))
            if a != b:
                edges.add((a, b))
    pairs = sorted(edges)
    scale = float(rng.choice(SCALES))
    mcr = [max(m, scale * 0.1) for m in _values(rng, n, scale, 0.0)]  # MCRs are > 0
    mbr = _values(rng, len(pairs), scale, 0.2)

    lans = int(rng.choice([1, 1, 2, int(rng.integers(1, 12))]))
    hosts = [
        _values(rng, int(rng.integers(1, 7)), scale * float(rng.choice([1.0, 3.0, 20.0])), 0.1) for _ in range(lans)
    ]
    lan_bw = _values(rng, lans, scale * float(rng.choice([1.0, 5.0, 50.0])), 0.15)
    p = float(rng.choice([0.0, 0.3, 1.0]))
    links = [(a, b) for a in range(lans) for b in range(a + 1, lans) if rng.random() < p]
    link_bw = _values(rng, len(links), scale * float(rng.choice([1.0, 5.0, 50.0])), 0.15)
    if rng.random() < 0.4:  # capacities at the exact sums of requirements, a few RTOL either way
        hosts = [[_tight(rng, mcr, h) for h in lan] for lan in hosts]
        lan_bw = [_tight(rng, mbr, b) for b in lan_bw]
        link_bw = [_tight(rng, mbr, b) for b in link_bw]
    if rng.random() < 0.03:  # a bad value: the model must be refused with a typed error
        bad = float(rng.choice([math.nan, -1.0, math.inf, 2e300]))
        where = rng.choice(["mcr", "power", "lan"])
        if where == "mcr":
            mcr[int(rng.integers(n))] = bad
        elif where == "power":
            hosts[int(rng.integers(lans))][0] = bad
        else:
            lan_bw[int(rng.integers(lans))] = bad
    return TIG.from_arrays(mcr, pairs, mbr), LanGrid.from_arrays(hosts, lan_bw, links, link_bw)


def _check(result, tig, grid, what: str) -> None:
    """A found mapping must be complete, consistent and valid under its own model; its metrics computable."""
    from clustersched.grid import mapping_metrics, mapping_violations

    if not result.found:
        return
    assert len(result.host) == len(tig), what
    assert result.lan.tolist() == grid.host_lan[result.host].tolist(), what
    violations = mapping_violations(result, tig, grid)
    if violations:
        raise AssertionError(f"{what} returned an invalid mapping: {violations}")
    mapping_metrics(result, tig, grid)


def grid_case(seed: int) -> None:
    """One seeded case: a random model, or a planted feasible instance; both algorithms, both models."""
    from clustersched.errors import InvalidGraphError
    from clustersched.grid import (
        GridRanges,
        TigRanges,
        feasible_instance,
        greedy_best_fit,
        mapping_violations,
        qlse,
    )

    rng = np.random.default_rng([20, seed])
    if rng.random() < 0.2:
        scale = float(rng.choice(SCALES[1:5]))
        tasks = int(rng.integers(1, 40))
        bandwidth = str(rng.choice(["shared", "dedicated"]))
        inst = feasible_instance(
            TigRanges((1, tasks), (scale, 2 * scale), (0.0, scale)),
            GridRanges((1, int(rng.integers(1, 12))), (1, int(rng.integers(1, 8))), (scale, 4 * scale), (0.0, scale)),
            seed=rng,
            bandwidth=bandwidth,
        )
        tig, grid = inst.tig, inst.grid
        violations = mapping_violations(inst.planted, tig, grid, bandwidth=bandwidth)
        assert violations == [], f"the planted mapping is invalid: {violations}"
    else:
        tig, grid = _model(rng)
    for bandwidth in ("shared", "dedicated"):
        _check(greedy_best_fit(tig, grid, bandwidth=bandwidth), tig, grid, f"greedy ({bandwidth})")
        try:
            result = qlse(tig, grid, bandwidth=bandwidth)
        except InvalidGraphError as e:
            assert not tig.is_connected() and "not connected" in str(e), e
            continue
        assert tig.is_connected(), "QLSE mapped a disconnected TIG"
        _check(result, tig, grid, f"QLSE ({bandwidth})")
        again = qlse(tig, grid, bandwidth=bandwidth)  # deterministic
        assert again.found == result.found and (not again.found or again.host.tolist() == result.host.tolist())


sandbox = fixture("grid (qlse, greedy_best_fit)", SECONDS)


@pytest.mark.slow
def test_grid_algorithms_never_hang_crash_or_return_an_invalid_mapping(sandbox):
    for seed in range(CASES):
        sandbox.run(grid_case, seed)
    assert sandbox.cases == CASES
    assert sandbox.rejected < CASES // 10  # the deliberately bad values, and the few impossible planted instances
