"""PTG generators: daggen semantics on average, FFT / Strassen shapes, §5.1.2 costs, determinism.

Expected values for the random DAGs are *derived* from daggen's definitions
(``clustersched.workload.ptg_generators`` module docstring), not measured:

* one level's width is ``X = max(1, int(perfect * f))``, ``perfect =
  floor(n ** fat)``, ``f ~ U[regularity, 2 - regularity)``, so
  ``P(int(perfect * f) = k) = |[k/perfect, (k+1)/perfect) ∩ [reg, 2-reg)| / (2 - 2 reg)``;
* levels are drawn until ``n`` tasks are placed (the last one cut), so the
  level count and the maximum width are functions of that renewal process,
  computed exactly by dynamic programming over the number of tasks left;
* a task below a level of width ``w`` draws ``k = min(1 + int(u * density *
  w), w)`` parent attempts; with ``jump = 1`` each succeeds, so the expected
  number of edges follows by the same dynamic programming; with ``jump > 1``
  an attempt picks level ``max(0, i - J)``, ``J ~ U{1..jump}``, and the parents
  from level ``l`` number ``min(C_l, width(l))`` with ``C_l ~ Binomial(k,
  q_l)``; given a graph's level widths this conditional expectation is exact,
  and we compare the sum of edges with the sum of these expectations.

Each statistic is averaged over ``SAMPLES`` graphs (fixed seeds, so the test
is deterministic) and must lie within ``Z = 4`` standard errors of the
derived value (standard error = sample standard deviation / sqrt(SAMPLES);
for a statistic with zero variance, equality to 1e-12).
"""

from __future__ import annotations

import math
from functools import lru_cache

import networkx as nx
import numpy as np
import pytest

from clustersched.workload.ptg import PTG
from clustersched.workload.ptg_generators import (
    A_MAX,
    A_MIN,
    COMPLEXITIES,
    D_MAX,
    D_MIN,
    SCENARIOS,
    SIDE_MAX,
    SIDE_MIN,
    CostReading,
    fft_graph,
    fft_ptg,
    population_configs,
    ptg_population,
    random_dag,
    random_ptg,
    strassen_ptg,
    task_costs,
)

SAMPLES = 600
Z = 4.0


# -- exact expectations from daggen's definitions ------------------------------------------
def width_pmf(n: int, fat: float, reg: float) -> dict[int, float]:
    """Distribution of one level's width (before the last-level cut)."""
    m = math.floor(n**fat + 1e-9)
    if reg == 1.0:
        return {m: 1.0}
    lo, hi = reg, 2.0 - reg
    pmf: dict[int, float] = {}
    for k in range(int(m * hi) + 1):
        a, b = max(lo, k / m), min(hi, (k + 1) / m)
        if b > a:
            pmf[max(1, k)] = pmf.get(max(1, k), 0.0) + (b - a) / (hi - lo)
    return pmf


def expected_levels(n: int, fat: float, reg: float) -> float:
    pmf = width_pmf(n, fat, reg)

    @lru_cache(None)
    def levels_left(m: int) -> float:  # expected number of levels to place m more tasks
        return 1.0 + sum(p * levels_left(m - k) for k, p in pmf.items() if k < m)

    return levels_left(n)


def expected_max_width(n: int, fat: float, reg: float) -> float:
    pmf = width_pmf(n, fat, reg)

    @lru_cache(None)
    def final_max(m: int, c: int) -> float:  # m tasks left, current maximum c
        return sum(p * (max(c, m) if k >= m else final_max(m - k, max(c, k))) for k, p in pmf.items())

    return final_max(n, 0)


def attempts_pmf(w: int, density: float) -> dict[int, float]:
    """Distribution of k = min(1 + int(u * density * w), w), u ~ U[0, 1)."""
    x = density * w
    if x == 0:
        return {1: 1.0}
    out: dict[int, float] = {}
    j = 0
    while j < x:
        k = min(1 + j, w)
        out[k] = out.get(k, 0.0) + min((j + 1) / x, 1.0) - j / x
        j += 1
    return out


def expected_edges_per_task_jump1(n: int, fat: float, reg: float, density: float) -> float:
    pmf = width_pmf(n, fat, reg)

    def mean_parents(w: int) -> float:
        return sum(k * p for k, p in attempts_pmf(w, density).items())

    @lru_cache(None)
    def edges_left(m: int, w_prev: int) -> float:  # m tasks left, previous level width w_prev
        total = 0.0
        for k, p in pmf.items():
            t = min(k, m)
            total += p * (t * mean_parents(w_prev) + (edges_left(m - t, t) if m > t else 0.0))
        return total

    first = sum(p * (edges_left(n - k, k) if k < n else 0.0) for k, p in pmf.items())
    return first / n


def conditional_edges(widths: list[int], density: float, jump: int) -> float:
    """E[number of edges | level widths] under daggen's parent-drawing rule."""
    total = 0.0
    for i in range(1, len(widths)):
        q: dict[int, float] = {}
        for j in range(1, jump + 1):
            q[max(0, i - j)] = q.get(max(0, i - j), 0.0) + 1.0 / jump
        per_task = 0.0
        for k, pk in attempts_pmf(widths[i - 1], density).items():
            for lev, ql in q.items():
                cap = widths[lev]
                per_task += pk * sum(math.comb(k, c) * ql**c * (1 - ql) ** (k - c) * min(c, cap) for c in range(k + 1))
        total += widths[i] * per_task
    return total


# (n, fat, regularity, density, jump) -> derived E[levels], E[max width], E[edges per task]
# (the edge value is for jump = 1 only; jump > 1 uses the conditional expectation).
COMBOS = {
    (30, 0.5, 0.2, 0.2, 1): (7.1853, 7.4097, 0.9284),
    (30, 0.8, 0.8, 0.8, 1): (2.5833, 15.3333, 3.2202),
    (20, 0.5, 1.0, 1.0, 1): (5.0, 4.0, 2.0),
    (20, 0.2, 0.2, 0.8, 2): (20.0, 1.0, None),
    (30, 0.5, 0.8, 0.5, 4): (7.0469, 4.9922, None),
    (10, 0.8, 0.2, 0.8, 4): (2.3609, 6.7707, None),
}


def _within(samples: list[float], expected: float) -> tuple[bool, float, float]:
    a = np.asarray(samples, dtype=float)
    mean, se = float(a.mean()), float(a.std(ddof=1) / math.sqrt(len(a)))
    return abs(mean - expected) <= max(Z * se, 1e-12), mean, se


@pytest.mark.parametrize("combo", list(COMBOS), ids=lambda c: "n{}-fat{}-reg{}-dens{}-jump{}".format(*c))
def test_random_dag_statistics_match_daggen_definitions(combo):
    n, fat, reg, dens, jump = combo
    table_levels, table_width, table_edges = COMBOS[combo]
    # The stated table is what the derivation gives.
    assert expected_levels(n, fat, reg) == pytest.approx(table_levels, abs=1e-4)
    assert expected_max_width(n, fat, reg) == pytest.approx(table_width, abs=1e-4)
    if table_edges is not None:
        assert expected_edges_per_task_jump1(n, fat, reg, dens) == pytest.approx(table_edges, abs=1e-4)

    rng = np.random.default_rng(20240601)
    levels, widths, edges, edge_gap = [], [], [], []
    for _ in range(SAMPLES):
        g = random_dag(n, fat=fat, regularity=reg, density=dens, jump=jump, seed=rng)
        lev = np.array([g.nodes[v]["level"] for v in g])
        counts = np.bincount(lev).tolist()
        levels.append(len(counts))
        widths.append(max(counts))
        edges.append(g.number_of_edges() / n)
        edge_gap.append((g.number_of_edges() - conditional_edges(counts, dens, jump)) / n)

    ok, mean, se = _within(levels, table_levels)
    assert ok, f"mean level count {mean} (se {se}) vs derived {table_levels}"
    ok, mean, se = _within(widths, table_width)
    assert ok, f"mean max width {mean} (se {se}) vs derived {table_width}"
    if table_edges is not None:
        ok, mean, se = _within(edges, table_edges)
        assert ok, f"mean edges per task {mean} (se {se}) vs derived {table_edges}"
    # Edges given the realised widths: holds for every jump.
    ok, mean, se = _within(edge_gap, 0.0)
    assert ok, f"edges per task exceed their conditional expectation by {mean} (se {se})"


def test_jump_edges_make_fewer_edges_than_attempts_and_reach_back():
    # With jump = 4 some edges skip levels, and failed attempts make the edge
    # count drop below the jump = 1 expectation (10 tasks, fat 0.8, density 0.8).
    rng = np.random.default_rng(5)
    spans, per_task = [], []
    for _ in range(300):
        g = random_dag(10, fat=0.8, regularity=0.2, density=0.8, jump=4, seed=rng)
        spans += [g.nodes[v]["level"] - g.nodes[u]["level"] for u, v in g.edges]
        per_task.append(g.number_of_edges() / 10)
    assert max(spans) > 1 and min(spans) >= 1 and max(spans) <= 4
    assert np.mean(per_task) < expected_edges_per_task_jump1(10, 0.8, 0.2, 0.8)


@pytest.mark.parametrize("jump", [1, 2, 4])
def test_random_dag_structure(jump):
    rng = np.random.default_rng(jump)
    for _ in range(50):
        g = random_dag(20, fat=0.5, regularity=0.2, density=0.5, jump=jump, seed=rng)
        level = nx.get_node_attributes(g, "level")
        assert sorted(g.nodes) == list(range(20)) and nx.is_directed_acyclic_graph(g)
        assert [level[v] for v in range(20)] == sorted(level.values())  # numbered level by level
        for v in g:
            parents = list(g.predecessors(v))
            assert (len(parents) == 0) == (level[v] == 0)  # only level 0 has no parent
        assert all(1 <= level[v] - level[u] <= jump for u, v in g.edges)


def test_jump1_precedence_levels_are_daggen_levels():
    for seed in range(20):
        p = random_ptg(30, fat=0.5, regularity=0.2, density=0.5, jump=1, seed=seed)
        g = p.to_networkx()
        offset = int(p.synthetic[0])  # a synthetic entry pushes every level down by one
        lev = p.levels()
        for label, attrs in g.nodes(data=True):
            assert lev[p.index(label)] == attrs["level"] + offset


def test_random_ptg_basics_and_determinism():
    kw = dict(fat=0.5, regularity=0.8, density=0.5, jump=2)
    p = random_ptg(20, seed=7, **kw)
    assert p.num_real_tasks == 20 and len(p) in (20, 21, 22)
    assert p == random_ptg(20, seed=7, **kw)
    assert p != random_ptg(20, seed=8, **kw)
    assert p == random_ptg(20, seed=np.random.default_rng(7), **kw)
    assert p.name == "random-n20-fat0.5-reg0.8-dens0.5-jump2-mixed"
    # Labels are 0..n-1, and a PTG's single entry / exit comes first / last.
    assert sorted(x for x in p.labels if isinstance(x, int)) == list(range(20))
    assert p.predecessors(p.entry).size == 0 and p.successors(p.exit).size == 0


@pytest.mark.parametrize(
    "kwargs, exc",
    [
        (dict(n=0), ValueError),
        (dict(n=2.5), TypeError),
        (dict(fat=1.5), ValueError),
        (dict(regularity=-0.1), ValueError),
        (dict(density="x"), TypeError),
        (dict(jump=0), ValueError),
        (dict(seed=-1), ValueError),
        (dict(costs="quadratic"), ValueError),
    ],
)
def test_random_ptg_rejects_bad_arguments(kwargs, exc):
    args = dict(n=10, fat=0.5, regularity=0.5, density=0.5, jump=1, seed=0) | kwargs
    with pytest.raises(exc, match=next(iter(kwargs))):
        random_ptg(**args)


# -- FFT and Strassen -------------------------------------------------------------------------
@pytest.mark.parametrize("m, tasks", [(2, 5), (4, 15), (8, 39)])
def test_fft_tasks_and_parallelism(m, tasks):
    p = fft_ptg(m, seed=0)
    assert p.num_real_tasks == tasks  # §5.1.2: 5, 15, 39
    assert p.width() == m  # maximum parallelism 2, 4, 8
    assert not p.synthetic[p.entry] and p.synthetic[p.exit]  # one root call, m last butterflies
    g = fft_graph(m)
    calls = [v for v in g if v.startswith("call")]
    assert len(calls) == 2 * m - 1
    for v in g:
        if v.startswith("bfly"):
            assert g.in_degree(v) == 2
    assert p.levels()[p.exit] == 2 * int(math.log2(m)) + 1  # tree depth + stages + exit


def test_fft_rejects_non_power_of_two():
    with pytest.raises(ValueError, match="power of two"):
        fft_ptg(6, seed=0)


def test_strassen_tasks_and_parallelism():
    p = strassen_ptg(seed=0)
    assert p.num_real_tasks == 25 and p.width() == 10  # §5.1.2
    assert p.synthetic[p.entry] and p.synthetic[p.exit]  # 10 sources S1..S10, 4 sinks C11..C22
    g = p.to_networkx()
    assert sorted(g.predecessors("P5")) == ["S5", "S6"] and sorted(g.predecessors("P1")) == ["S1"]
    assert {v for v in g if g.out_degree(v) == 0} == {"C11", "C12", "C21", "C22"}
    assert sum(1 for v in g if v.startswith("P")) == 7


# -- costs -----------------------------------------------------------------------------------------
def test_cost_model_ranges_per_scenario():
    n = 4000
    lo_log, hi_log = math.log2(D_MIN), math.log2(D_MAX)
    bounds = {
        "linear": (A_MIN * D_MIN, A_MAX * D_MAX),
        "nlogn": (A_MIN * D_MIN * lo_log, A_MAX * D_MAX * hi_log),
        "matmul": (D_MIN**1.5, D_MAX**1.5),
    }
    for scenario in SCENARIOS:
        work, alpha, kind = task_costs(n, scenario, seed=3)
        assert work.shape == alpha.shape == kind.shape == (n,)
        assert ((alpha >= 0) & (alpha < 0.25)).all() and 0.12 < alpha.mean() < 0.13
        for c in COMPLEXITIES:
            w = work[kind == c]
            assert ((w >= bounds[c][0]) & (w <= bounds[c][1])).all()
        if scenario == "mixed":
            shares = [float(np.mean(kind == c)) for c in COMPLEXITIES]
            assert all(abs(s - 1 / 3) < 0.03 for s in shares), shares
        else:
            assert (kind == scenario).all()
    # One seed, same d in every scenario: recover d and a from the matmul / linear works.
    d = task_costs(n, "matmul", seed=3)[0] ** (2 / 3)
    a = task_costs(n, "linear", seed=3)[0] / d
    assert d.min() >= D_MIN * (1 - 1e-9) and d.max() <= D_MAX * (1 + 1e-9)
    assert abs(d.mean() / ((D_MIN + D_MAX) / 2) - 1) < 0.02  # uniform d
    assert a.min() >= A_MIN * (1 - 1e-9) and a.max() < A_MAX and abs(a.mean() - 288) < 5  # uniform a
    nlogn = task_costs(n, "nlogn", seed=3)[0]
    assert np.allclose(nlogn, a * d * np.log2(d), rtol=1e-6)


def test_cost_model_daggen_codes_and_determinism():
    assert np.array_equal(task_costs(5, 3, seed=1)[0], task_costs(5, "matmul", seed=1)[0])
    assert np.array_equal(task_costs(5, 0, seed=1)[0], task_costs(5, "mixed", seed=1)[0])
    w1, a1, _ = task_costs(10, "mixed", seed=9)
    w2, a2, _ = task_costs(10, "mixed", seed=9)
    assert np.array_equal(w1, w2) and np.array_equal(a1, a2)
    assert not np.array_equal(w1, task_costs(10, "mixed", seed=10)[0])
    with pytest.raises(ValueError, match="alpha_range"):
        task_costs(3, "linear", seed=0, alpha_range=(0.5, 0.2))


def test_cost_readings_change_what_they_name_and_nothing_else():
    """Each CostReading field moves its own draw (§5.1.2's sentence it reads), the others stay."""
    n = 4000
    d_of = lambda reading: task_costs(n, "matmul", seed=3, reading=reading)[0] ** (2 / 3)  # noqa: E731
    a_of = lambda reading: task_costs(n, "linear", seed=3, reading=reading)[0] / d_of(reading)  # noqa: E731
    today = CostReading()
    assert np.array_equal(task_costs(n, "mixed", seed=3)[0], task_costs(n, "mixed", seed=3, reading=today)[0])
    # data="side": daggen's d = m^2, m uniform in [2048, 11264) cut to a multiple of 1024: nine sides, 1/9 each
    side = np.round(np.sqrt(d_of(CostReading(data="side"))))
    sides = np.arange(SIDE_MIN, SIDE_MAX, 1024)
    assert sides.tolist() == [2048 + 1024 * k for k in range(9)] and set(side.tolist()) == set(sides.tolist())
    assert all(abs(np.mean(side == m) - 1 / 9) < 0.02 for m in sides)
    assert abs(d_of(CostReading(data="side")).mean() / np.mean(sides**2.0) - 1) < 0.03
    assert abs(d_of(today).mean() / ((D_MIN + D_MAX) / 2) - 1) < 0.02
    # log="e": the nlogn work is a d ln d, with the same d and a as log="2"
    d, a = d_of(today), a_of(today)
    for base, log in (("e", np.log), ("10", np.log10)):
        work = task_costs(n, "nlogn", seed=3, reading=CostReading(log=base))[0]
        assert np.allclose(work, a * d * log(d), rtol=1e-6)
    # a="powers": a in {64, 128, 256, 512}, each about a quarter
    powers = np.round(a_of(CostReading(a="powers")))
    assert set(powers.tolist()) == {64.0, 128.0, 256.0, 512.0}
    assert all(abs(np.mean(powers == v) - 0.25) < 0.03 for v in (64, 128, 256, 512))
    # per="ptg": one d and one a for all tasks; complexities and alpha still per task
    work, alpha, kind = task_costs(n, "mixed", seed=3, reading=CostReading(per="ptg"))
    for c in COMPLEXITIES:
        assert np.unique(work[kind == c]).size == 1
    assert len(set(kind.tolist())) == 3 and np.unique(alpha).size == n
    assert len({d_of(CostReading(per="ptg"))[0] for _ in range(2)}) == 1


@pytest.mark.parametrize(
    "kwargs, exc",
    [({"data": "normal"}, ValueError), ({"log": 2}, ValueError), ({"a": "loguniform"}, ValueError)],
)
def test_cost_reading_rejects_unknown_readings(kwargs, exc):
    with pytest.raises(exc, match=next(iter(kwargs))):
        CostReading(**kwargs)
    with pytest.raises(TypeError, match="CostReading"):
        task_costs(3, "linear", seed=0, reading="side")


def test_population_under_a_reading_keeps_structures_and_changes_costs():
    today = ptg_population("random", 6, seed=4)
    per_ptg = ptg_population("random", 6, seed=4, reading=CostReading(per="ptg"))
    for p, q in zip(today, per_ptg):
        assert p.name == q.name and np.array_equal(p.succ, q.succ)  # the same members, the same DAGs
        assert not np.array_equal(p.work, q.work)
    assert per_ptg == ptg_population("random", 6, seed=4, reading=CostReading(per="ptg"))
    # per="application": one d and a per FFT / Strassen PTG, per task in random PTGs (as today)
    application = CostReading(per="application")
    assert ptg_population("random", 6, seed=4, reading=application) == today
    for kind in ("fft", "strassen"):
        apps = ptg_population(kind, 8, seed=4, reading=application)
        assert apps == ptg_population(kind, 8, seed=4, reading=CostReading(per="ptg"))
        for p in apps:
            d = {attrs["data"] for _, attrs in p.to_networkx().nodes(data=True) if "data" in attrs}
            assert len(d) == 1


def test_generated_ptgs_carry_costs_and_complexity():
    p = strassen_ptg(seed=4, costs="nlogn")
    g = p.to_networkx()
    assert all(attrs["complexity"] == "nlogn" for _, attrs in g.nodes(data=True))
    assert (p.work[~p.synthetic] > 0).all() and (p.work[p.synthetic] == 0).all()


# -- populations ------------------------------------------------------------------------------------
def test_population_grids_follow_the_paper():
    random_cfg = population_configs("random")
    assert len(random_cfg) == 3 * 4 * 3 * 2 * 2 * 3 * 3 == 1296
    assert {c["n"] for c in random_cfg} == {10, 20, 30}
    assert {c["fat"] for c in random_cfg} == {0.2, 0.5, 0.8}
    assert {c["regularity"] for c in random_cfg} == {0.2, 0.8} == {c["density"] for c in random_cfg}
    assert {c["jump"] for c in random_cfg} == {1, 2, 4}
    assert {c["costs"] for c in random_cfg} == set(SCENARIOS)
    fft = ptg_population("fft", seed=2)
    assert len(fft) == 120
    assert sorted({p.num_real_tasks for p in fft}) == [5, 15, 39]
    assert all(sum(p.num_real_tasks == k for p in fft) == 40 for k in (5, 15, 39))
    strassen = ptg_population("strassen", seed=2)
    assert len(strassen) == 100 and all(p.num_real_tasks == 25 for p in strassen)
    assert sum(p.name.startswith("strassen-matmul") for p in strassen) == 25


def test_population_sampling_is_deterministic_and_consistent():
    sample = ptg_population("random", 12, seed=5)
    assert len(sample) == 12 and len({p.name for p in sample}) == 12
    assert sample == ptg_population("random", 12, seed=5)
    assert sample != ptg_population("random", 12, seed=6)
    full = ptg_population("strassen", seed=3)
    assert all(p in full for p in ptg_population("strassen", 7, seed=3))
    with pytest.raises(ValueError, match="kind"):
        ptg_population("tree", 3, seed=0)
    with pytest.raises(ValueError, match="count"):
        ptg_population("strassen", 101, seed=0)
    # members: those members, in that order, the same PTGs as in the whole population
    assert ptg_population("strassen", seed=3, members=[9, 2, 9]) == [full[9], full[2], full[9]]
    with pytest.raises(ValueError, match="members"):
        ptg_population("strassen", seed=3, members=[100])
    with pytest.raises(ValueError, match="count or members"):
        ptg_population("strassen", 2, seed=3, members=[1])


def test_generated_ptgs_are_valid_ptgs():
    for p in ptg_population("random", 40, seed=1):
        assert isinstance(p, PTG)
        assert PTG.from_networkx(p.to_networkx(), name=p.name) == p
        lev = p.levels()
        for v in range(len(p)):
            assert all(lev[s] > lev[v] for s in p.successors(v))
