"""PTG generators: daggen-style random DAGs, FFT and Strassen graphs, and the §5.1.2 costs.

Everything here follows Casanova, Desprez & Suter, INRIA RR-7224 (2010),
§5.1.2, which builds its random PTGs with the ``daggen`` program of Suter
(reference [29]; read in the GitHub repository ``frs69wq/daggen``, files
``daggen.c`` / ``daggen_commons.c`` / ``README``).  The code is our own; the
definitions below are daggen's.

Random DAGs (:func:`random_dag`, :func:`random_ptg`)
----------------------------------------------------
Parameters ``n`` (tasks), ``fat``, ``regularity``, ``density`` (all three in
``[0, 1]``) and ``jump`` (``>= 1``):

1. *Levels.*  The "perfect" number of tasks per level is
   ``perfect = floor(n ** fat)`` (daggen: ``exp(fat * log n)`` truncated; we
   add 1e-9 before flooring so that exact powers such as ``16 ** 0.5`` give 4).
   Levels are drawn one after the other: level ``i`` gets
   ``max(1, int(perfect * f))`` tasks with ``f`` uniform in
   ``[regularity, 2 - regularity)`` (daggen: ``perfect * (1 + r / 100)``, ``r``
   uniform in ``±100 (1 - regularity)``), until ``n`` tasks are placed; the
   last level is cut to the ``n - placed`` tasks still missing.
2. *Edges.*  Each task of level ``i >= 1`` draws
   ``k = min(1 + int(u * density * w), w)`` parents, ``u`` uniform in ``[0, 1)``
   and ``w`` the number of tasks of level ``i - 1``.  For each of the ``k``
   attempts: the parent level is ``max(0, i - J)`` with ``J`` uniform in
   ``{1, ..., jump}``; the parent is a uniform task of that level, moved
   cyclically to the next task of the level while it is already a parent; if
   every task of that level already is, the attempt adds no edge (daggen
   "gives up").  Level-0 tasks have no parents; every other task has at least
   one (the first attempt always succeeds).  With ``jump = 1`` all edges join
   consecutive levels and each task gets exactly ``k`` parents.

Each node carries its daggen level as attribute ``level``.  Consequences the
tests check (averages over many graphs): the number of levels is the renewal
count of the level widths above; ``max`` width and edges per task follow from
the same distributions (``tests/test_ptg_generators.py`` derives them).

FFT and Strassen PTGs (Cormen, Leiserson & Rivest, *Introduction to Algorithms*, 1990)
--------------------------------------------------------------------------------------
* :func:`fft_ptg` with ``levels = m`` (a power of two, the paper uses 2, 4, 8):
  the recursive-call tree of the recursive FFT on ``m`` points (``2m - 1``
  tasks: a root, then two calls per call down to ``m`` leaves) followed by
  ``log2 m`` butterfly stages of ``m`` tasks; butterfly ``j`` of stage ``s``
  depends on tasks ``j`` and ``j XOR 2**(s-1)`` of stage ``s - 1`` (stage 0
  being the leaves).  ``2m - 1 + m log2 m`` tasks: 5, 15, 39 for m = 2, 4, 8,
  with maximum parallelism ``m`` (§5.1.2).
* :func:`strassen_ptg`: one level of Strassen's algorithm on 2x2 blocks: the 10
  block additions ``S1..S10``, the 7 block products ``P1..P7`` (``P1 = A11 S1``,
  ``P2 = S2 B22``, ``P3 = S3 B11``, ``P4 = A22 S4``, ``P5 = S5 S6``,
  ``P6 = S7 S8``, ``P7 = S9 S10``) and the 8 additions forming
  ``C11 = (P5 + P4) + (P6 - P2)``, ``C12 = P1 + P2``, ``C21 = P3 + P4``,
  ``C22 = (P5 + P1) - (P3 + P7)`` (we pair the four-term sums as balanced
  trees).  25 tasks, maximum parallelism 10 (§5.1.2).

These graphs have several sources and/or sinks; :class:`~clustersched.workload.ptg.PTG`
adds the zero-work entry / exit tasks, which are not counted as tasks.

Task costs (:func:`task_costs`, §5.1.2)
---------------------------------------
A task handles ``d`` double-precision elements, ``d`` a uniform integer in
``[4M, 121M]`` with ``M = 2**20`` (so ``d`` fills at most 968 MiB of a 1 GiB
node; these bounds are exactly ``2048**2`` and ``11264**2``, daggen's default
``--mindata`` / ``--maxdata`` squared).  Its work in flop is one of:

==========  ===================  =========================================
scenario    work                 example (paper) / daggen ``--ccr``
==========  ===================  =========================================
"linear"    ``a * d``            stencil on a sqrt(d) x sqrt(d) domain / 1
"nlogn"     ``a * d * log2(d)``  sorting d elements / 2
"matmul"    ``d ** 1.5``         product of sqrt(d) x sqrt(d) matrices / 3
"mixed"     one of the three, uniformly at random per task / 0
==========  ===================  =========================================

with ``a`` uniform in ``[2**6, 2**9)`` (the paper: "between 2^6 and 2^9";
daggen draws it continuously), and ``alpha`` uniform in ``[0, 0.25)``.
Generated tasks carry ``d`` as the node attribute ``data`` (elements): the
volume a task sends to each successor on a platform with a network is
``8 * data`` bytes (SCRAP's model, :mod:`clustersched.scrap.model`).  The
logarithm is base 2, as in daggen (``2 a m^2 log2 m`` with ``d = m^2``).  The
four scenarios are :data:`SCENARIOS`; daggen's integer codes are accepted too.

Other readings of the cost model (:class:`CostReading`, argument ``reading``
of every generator; the default is the one above): ``d`` as the square of a
uniform matrix side (daggen's draw), the natural or decimal logarithm in ``a d log d``,
``a`` a power of two, and one ``d`` and one ``a`` per PTG (or per FFT / Strassen PTG)
instead of per task.
``docs/reproduce-ptg.md`` ("SELFISH's maximum stretch under other readings of
§5.1") measures them; none is the default.

Populations (:func:`ptg_population`, §5.1.2)
--------------------------------------------
* ``"random"``: n in {10, 20, 30} x fat in {0.2, 0.5, 0.8} x regularity in
  {0.2, 0.8} x density in {0.2, 0.8} x jump in {1, 2, 4} x 4 scenarios x 3
  samples = 1,296 PTGs;
* ``"fft"``: levels in {2, 4, 8} x 4 scenarios x 10 samples = 120 PTGs;
* ``"strassen"``: 4 scenarios x 25 samples = 100 PTGs.

Determinism: every function takes ``seed`` (an int >= 0 or a
``numpy.random.Generator``, used as is and advanced); the same seed gives an
identical PTG.  A generator draws the structure first, then the costs (data
size, ``a``, complexity and ``alpha`` for all tasks, in that order, in task
creation order).

Example
-------
>>> p = random_ptg(20, fat=0.5, regularity=0.8, density=0.2, jump=1, seed=1)
>>> p.num_real_tasks, p == random_ptg(20, fat=0.5, regularity=0.8, density=0.2, jump=1, seed=1)
(20, True)
>>> fft_ptg(4, seed=0).num_real_tasks, strassen_ptg(seed=0).width()
(15, 10)
"""

from __future__ import annotations

import itertools
import math
import numbers
from dataclasses import dataclass
from typing import Any, Sequence

import networkx as nx
import numpy as np

from .._checks import check_choice, check_float, check_int, make_rng
from .ptg import PTG

__all__ = [
    "COMPLEXITIES",
    "CostReading",
    "POPULATIONS",
    "SCENARIOS",
    "fft_ptg",
    "population_configs",
    "ptg_population",
    "random_dag",
    "random_ptg",
    "strassen_ptg",
    "task_costs",
]

#: 2**20: the "M" of the paper's data sizes (4M .. 121M elements).
MEGA = 2**20
#: Data-size bounds in double-precision elements (inclusive).
D_MIN, D_MAX = 4 * MEGA, 121 * MEGA
#: daggen's default ``--mindata`` / ``--maxdata``: the side of the sqrt(d) x sqrt(d) matrix (``d = side ** 2``).
SIDE_MIN, SIDE_MAX = 2048, 11264
#: Bounds of the constant ``a`` of the a*d and a*d*log(d) complexities.
A_MIN, A_MAX = 2.0**6, 2.0**9
#: Default bounds of the Amdahl fraction alpha (§5.1.2: uniform in 0% .. 25%).
ALPHA_RANGE = (0.0, 0.25)

#: The three task complexities, in daggen's ``--ccr`` order (codes 1, 2, 3).
COMPLEXITIES = ("linear", "nlogn", "matmul")
#: The four complexity scenarios of §5.1.2 (daggen code 0 is "mixed").
SCENARIOS = COMPLEXITIES + ("mixed",)
_DAGGEN_CODES = {1: "linear", 2: "nlogn", 3: "matmul", 0: "mixed"}

#: The population kinds of :func:`ptg_population`.
POPULATIONS = ("random", "fft", "strassen")

# §5.1.2 parameter grids.
_RANDOM_GRID = {
    "n": (10, 20, 30),
    "fat": (0.2, 0.5, 0.8),
    "regularity": (0.2, 0.8),
    "density": (0.2, 0.8),
    "jump": (1, 2, 4),
}
_RANDOM_SAMPLES = 3
_FFT_LEVELS = (2, 4, 8)
_FFT_SAMPLES = 10
_STRASSEN_SAMPLES = 25


# -- costs ----------------------------------------------------------------------
@dataclass(frozen=True)
class CostReading:
    """One reading of §5.1.2's task-cost model; the default is the library's (module docstring).

    Each field reads one sentence of RR-7224 §5.1.2 another defensible way
    (``docs/reproduce-ptg.md`` measures what each does to SELFISH's maximum
    stretch; none moves it to the paper's 17.49 without moving SELFISH_ORDER
    away from its 1.79, so the default stays).

    Attributes
    ----------
    data : {"uniform", "side"}
        "a task operates on a dataset of d double precision elements (for
        instance a sqrt(d) x sqrt(d) square matrix) [...] d <= 121M [...] d is
        above 4M".  ``"uniform"``: ``d`` uniform integer in ``[4M, 121M]``.
        ``"side"``: what daggen ([29]) draws: the matrix side ``m`` uniform in
        ``[2048, 11264)`` (``--mindata`` / ``--maxdata``) rounded down to a
        multiple of 1024 (``(int) m / 1024 * 1024``), so one of the nine sides
        2048, 3072, ..., 10240, and costs in ``m ** 2 = d``: more small
        datasets (mean ``d`` 40M instead of 62.5M).
    log : {"2", "e", "10"}
        "a * d log d (e.g., sorting an array of d elements)": the base of the
        logarithm, which the paper does not name.  ``"2"``: daggen's ``log2``
        (``2 a m^2 log2 m``); ``"e"``: the natural logarithm (work 0.69 x);
        ``"10"``: the decimal one (work 0.30 x).
    a : {"uniform", "powers"}
        "a is picked randomly between 2^6 and 2^9".  ``"uniform"``: uniform
        in ``[64, 512)`` (daggen's ``getRandomNumberBetween(64, 512)``);
        ``"powers"``: one of 64, 128, 256, 512, uniformly.
    per : {"task", "ptg", "application"}
        Who draws ``d`` and ``a``: "We assume that a task operates on a
        dataset of d [...] elements".  ``"task"``: each task (daggen);
        ``"ptg"``: one ``d`` and one ``a`` for all tasks of a PTG (an
        application run on one problem size); ``"application"``: per PTG for
        the FFT and Strassen PTGs ("real PTGs from the Strassen matrix
        multiplication and from the Fast Fourier Transform applications",
        whose tasks all work on blocks of one size) and per task for the
        random ones (daggen), and per task in :func:`task_costs`.  The
        complexity and ``alpha`` stay per task.

    Examples
    --------
    >>> w, _, _ = task_costs(3, "matmul", seed=0, reading=CostReading(per="ptg"))
    >>> bool(w[0] == w[1] == w[2])
    True
    >>> CostReading(log="ln")
    Traceback (most recent call last):
    ...
    ValueError: log == 'ln', must be one of '2', 'e', '10'
    """

    data: str = "uniform"
    log: str = "2"
    a: str = "uniform"
    per: str = "task"

    def __post_init__(self) -> None:
        check_choice("data", self.data, ("uniform", "side"))
        check_choice("log", self.log, ("2", "e", "10"))
        check_choice("a", self.a, ("uniform", "powers"))
        check_choice("per", self.per, ("task", "ptg", "application"))


#: The library's reading of §5.1.2's costs (module docstring).
DEFAULT_READING = CostReading()


def task_costs(
    n: int,
    scenario: str | int,
    seed: int | np.random.Generator,
    *,
    alpha_range: tuple[float, float] = ALPHA_RANGE,
    reading: CostReading = DEFAULT_READING,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Work (flop), Amdahl fraction and complexity name of ``n`` tasks (§5.1.2 model).

    Parameters
    ----------
    n : int
        Number of tasks, ``>= 0``.
    scenario : str or int
        One of :data:`SCENARIOS`, or daggen's ``--ccr`` code (1, 2, 3, 0).
    seed : int or numpy.random.Generator
        Randomness; a Generator is used as is.
    alpha_range : (float, float)
        ``alpha`` is uniform in ``[lo, hi)``; default ``(0, 0.25)``.
    reading : CostReading
        Which reading of §5.1.2's cost sentences (default: the module docstring's).

    Returns
    -------
    work : float64 array
    alpha : float64 array
    complexity : array of str
        The complexity (one of :data:`COMPLEXITIES`) of each task.

    Notes
    -----
    The draws are, in order and vectorised over tasks: ``d`` (uniform
    integer in ``[4M, 121M]``), ``a`` (uniform in ``[64, 512)``), the
    complexity index (uniform in {0, 1, 2}; drawn in every scenario, used
    only by "mixed") and ``alpha``.  So one seed gives the same data sizes and
    ``alpha`` in every scenario.

    Examples
    --------
    >>> w, a, c = task_costs(3, "matmul", seed=0)
    >>> bool(((w >= (4 * 2**20) ** 1.5) & (w <= (121 * 2**20) ** 1.5)).all()), c.tolist()
    (True, ['matmul', 'matmul', 'matmul'])
    >>> bool(((a >= 0) & (a < 0.25)).all())
    True
    """
    n = check_int("n", n, 0)
    scenario = _check_scenario(scenario)
    work, alpha, kind, _ = _draw_costs(n, scenario, make_rng(seed), alpha_range, _check_reading(reading))
    return work, alpha, kind


def _draw_costs(
    n: int,
    scenario: str,
    rng: np.random.Generator,
    alpha_range: tuple[float, float] = ALPHA_RANGE,
    reading: CostReading = DEFAULT_READING,
    application: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`task_costs`' draws, with the data size ``d`` (elements) of each task as well.

    ``application``: the tasks are an FFT or Strassen PTG's (:class:`CostReading`'s ``per="application"``).
    """
    lo, hi = (float(x) for x in alpha_range)
    if not 0.0 <= lo <= hi <= 1.0:
        raise ValueError(f"alpha_range == {alpha_range!r}, must satisfy 0 <= lo <= hi <= 1")
    # one d and one a for every task (per PTG); the draws keep their order (d, a, kind, alpha)
    k = 1 if reading.per == "ptg" or (reading.per == "application" and application) else n
    if reading.data == "side":
        d = (np.floor(rng.uniform(SIDE_MIN, SIDE_MAX, size=k) / 1024) * 1024) ** 2
    else:
        d = rng.integers(D_MIN, D_MAX, size=k, endpoint=True).astype(np.float64)
    if reading.a == "powers":
        a = 2.0 ** rng.integers(6, 10, size=k)
    else:
        a = rng.uniform(A_MIN, A_MAX, size=k)
    d, a = np.broadcast_to(d, n).copy(), np.broadcast_to(a, n).copy()
    kind = rng.integers(0, len(COMPLEXITIES), size=n)
    alpha = rng.uniform(lo, hi, size=n)
    if scenario != "mixed":
        kind = np.full(n, COMPLEXITIES.index(scenario))
    log = {"2": np.log2, "e": np.log, "10": np.log10}[reading.log](d)
    work = np.select([kind == 0, kind == 1], [a * d, a * d * log], d**1.5)
    return work, alpha, np.array(COMPLEXITIES)[kind], d


def _check_reading(reading: object) -> CostReading:
    if not isinstance(reading, CostReading):
        raise TypeError(f"reading == {reading!r}, must be a CostReading")
    return reading


def _with_costs(
    graph: nx.DiGraph,
    order: list[Any],
    scenario: str | int,
    rng: np.random.Generator,
    name: str,
    reading: CostReading = DEFAULT_READING,
    application: bool = False,
) -> PTG:
    work, alpha, kind, data = _draw_costs(
        len(order), _check_scenario(scenario), rng, reading=_check_reading(reading), application=application
    )
    for label, w, a, k, d in zip(order, work.tolist(), alpha.tolist(), kind.tolist(), data.tolist()):
        graph.nodes[label].update(work=w, alpha=a, complexity=k, data=d)
    return PTG.from_networkx(graph, name=name)


# -- random DAGs --------------------------------------------------------------------
def random_dag(
    n: int,
    *,
    fat: float,
    regularity: float,
    density: float,
    jump: int,
    seed: int | np.random.Generator,
) -> nx.DiGraph:
    """The structure of a daggen random DAG (no costs); nodes ``0..n-1`` carry ``level``.

    See the module docstring for the exact rules.  Nodes are numbered level by
    level in creation order.

    Examples
    --------
    >>> g = random_dag(30, fat=0.8, regularity=0.8, density=0.5, jump=1, seed=3)
    >>> g.number_of_nodes(), nx.is_directed_acyclic_graph(g)
    (30, True)
    >>> all(g.nodes[u]["level"] + 1 == g.nodes[v]["level"] for u, v in g.edges)  # jump = 1
    True
    """
    n = check_int("n", n, 1)
    fat = _check_unit("fat", fat)
    regularity = _check_unit("regularity", regularity)
    density = _check_unit("density", density)
    jump = check_int("jump", jump, 1)
    rng = make_rng(seed)

    perfect = math.floor(n**fat + 1e-9)
    widths: list[int] = []
    placed = 0
    while placed < n:
        f = rng.uniform(regularity, 2.0 - regularity)
        w = min(max(1, int(perfect * f)), n - placed)
        widths.append(w)
        placed += w

    levels: list[list[int]] = []
    g = nx.DiGraph()
    label = 0
    for i, w in enumerate(widths):
        levels.append(list(range(label, label + w)))
        for v in levels[-1]:
            g.add_node(v, level=i)
        label += w

    for i in range(1, len(levels)):
        w_prev = len(levels[i - 1])
        for v in levels[i]:
            k = min(1 + int(rng.random() * (density * w_prev)), w_prev)
            parents: set[int] = set()
            for _ in range(k):
                lev = levels[max(0, i - int(rng.integers(1, jump + 1)))]
                j = int(rng.integers(0, len(lev)))
                for _ in range(len(lev)):
                    if lev[j] not in parents:
                        break
                    j = (j + 1) % len(lev)
                else:
                    continue  # every task of that level is already a parent: give up
                parents.add(lev[j])
                g.add_edge(lev[j], v)
    return g


def random_ptg(
    n: int,
    *,
    fat: float,
    regularity: float,
    density: float,
    jump: int,
    seed: int | np.random.Generator,
    costs: str | int = "mixed",
    name: str | None = None,
    reading: CostReading = DEFAULT_READING,
) -> PTG:
    """A random PTG: :func:`random_dag` structure + :func:`task_costs` in scenario ``costs``.

    Parameters
    ----------
    n, fat, regularity, density, jump :
        daggen's parameters (module docstring); ``n >= 1``, ``jump >= 1``, the
        others in ``[0, 1]``.
    seed : int or numpy.random.Generator
        Same seed, same PTG.
    costs : str or int
        Complexity scenario, one of :data:`SCENARIOS` (default "mixed").
    name : str, optional
        Defaults to ``"random-n{n}-fat{fat}-reg{regularity}-dens{density}-jump{jump}-{costs}"``.
    reading : CostReading
        The reading of §5.1.2's costs (:class:`CostReading`; default the module docstring's).

    Examples
    --------
    >>> p = random_ptg(10, fat=0.2, regularity=0.2, density=0.8, jump=2, seed=5, costs="nlogn")
    >>> p.num_real_tasks, p.name
    (10, 'random-n10-fat0.2-reg0.2-dens0.8-jump2-nlogn')
    """
    rng = make_rng(seed)
    scenario = _check_scenario(costs)
    g = random_dag(n, fat=fat, regularity=regularity, density=density, jump=jump, seed=rng)
    if name is None:
        name = f"random-n{n}-fat{fat}-reg{regularity}-dens{density}-jump{jump}-{scenario}"
    return _with_costs(g, list(g.nodes), scenario, rng, name, reading)


# -- FFT and Strassen -----------------------------------------------------------------
def fft_graph(levels: int) -> nx.DiGraph:
    """Structure of the FFT PTG on ``levels`` points (no costs).

    Labels are ``"call-{depth}-{k}"`` for the recursive calls and
    ``"bfly-{stage}-{j}"`` for the butterflies.

    Examples
    --------
    >>> g = fft_graph(2)
    >>> sorted(g.predecessors("bfly-1-0")), g.number_of_nodes()
    (['call-1-0', 'call-1-1'], 5)
    """
    m = check_int("levels", levels, 2)
    if m & (m - 1):
        raise ValueError(f"levels == {m}, must be a power of two (the paper uses 2, 4, 8)")
    depth = m.bit_length() - 1
    g = nx.DiGraph()
    for d in range(depth + 1):
        for k in range(2**d):
            g.add_node(f"call-{d}-{k}")
            if d:
                g.add_edge(f"call-{d - 1}-{k // 2}", f"call-{d}-{k}")
    previous = [f"call-{depth}-{j}" for j in range(m)]
    for s in range(1, depth + 1):
        stage = [f"bfly-{s}-{j}" for j in range(m)]
        for j, v in enumerate(stage):
            g.add_node(v)
            g.add_edge(previous[j], v)
            g.add_edge(previous[j ^ (1 << (s - 1))], v)
        previous = stage
    return g


def fft_ptg(
    levels: int,
    *,
    seed: int | np.random.Generator,
    costs: str | int = "mixed",
    name: str | None = None,
    reading: CostReading = DEFAULT_READING,
) -> PTG:
    """An FFT PTG on ``levels`` points (2, 4, 8 in the paper: 5, 15, 39 tasks) with §5.1.2 costs.

    Examples
    --------
    >>> [fft_ptg(m, seed=0).num_real_tasks for m in (2, 4, 8)]
    [5, 15, 39]
    >>> [fft_ptg(m, seed=0).width() for m in (2, 4, 8)]
    [2, 4, 8]
    """
    rng = make_rng(seed)
    scenario = _check_scenario(costs)
    g = fft_graph(levels)
    return _with_costs(g, list(g.nodes), scenario, rng, name or f"fft-{levels}-{scenario}", reading, True)


#: Strassen's operations: (task, operands that are tasks).  Operands that are
#: input blocks (A11, B22, ...) are not tasks and are left out.
_STRASSEN_TASKS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("S1", ()),  # B12 - B22
    ("S2", ()),  # A11 + A12
    ("S3", ()),  # A21 + A22
    ("S4", ()),  # B21 - B11
    ("S5", ()),  # A11 + A22
    ("S6", ()),  # B11 + B22
    ("S7", ()),  # A12 - A22
    ("S8", ()),  # B21 + B22
    ("S9", ()),  # A11 - A21
    ("S10", ()),  # B11 + B12
    ("P1", ("S1",)),  # A11 * S1
    ("P2", ("S2",)),  # S2 * B22
    ("P3", ("S3",)),  # S3 * B11
    ("P4", ("S4",)),  # A22 * S4
    ("P5", ("S5", "S6")),
    ("P6", ("S7", "S8")),
    ("P7", ("S9", "S10")),
    ("C11a", ("P5", "P4")),  # P5 + P4
    ("C11b", ("P6", "P2")),  # P6 - P2
    ("C11", ("C11a", "C11b")),
    ("C12", ("P1", "P2")),
    ("C21", ("P3", "P4")),
    ("C22a", ("P5", "P1")),  # P5 + P1
    ("C22b", ("P3", "P7")),  # P3 + P7
    ("C22", ("C22a", "C22b")),  # C22a - C22b
)


def strassen_graph() -> nx.DiGraph:
    """Structure of the Strassen PTG (25 tasks; labels ``S1..S10``, ``P1..P7``, ``C..``)."""
    g = nx.DiGraph()
    for task, operands in _STRASSEN_TASKS:
        g.add_node(task)
        g.add_edges_from((op, task) for op in operands)
    return g


def strassen_ptg(
    *,
    seed: int | np.random.Generator,
    costs: str | int = "mixed",
    name: str | None = None,
    reading: CostReading = DEFAULT_READING,
) -> PTG:
    """A Strassen PTG (25 tasks, maximum parallelism 10) with §5.1.2 costs.

    Examples
    --------
    >>> p = strassen_ptg(seed=2, costs="matmul")
    >>> p.num_real_tasks, p.width(), p.name
    (25, 10, 'strassen-matmul')
    """
    rng = make_rng(seed)
    scenario = _check_scenario(costs)
    g = strassen_graph()
    return _with_costs(g, list(g.nodes), scenario, rng, name or f"strassen-{scenario}", reading, True)


# -- populations ------------------------------------------------------------------------
def population_configs(kind: str) -> list[dict[str, Any]]:
    """Every member of a §5.1.2 population as generator arguments, in grid order.

    Each dict has the keyword arguments of the generator (without ``seed``),
    plus ``"sample"`` (0-based sample number) and ``"kind"``.

    Examples
    --------
    >>> [len(population_configs(k)) for k in POPULATIONS]
    [1296, 120, 100]
    >>> population_configs("fft")[0]
    {'kind': 'fft', 'levels': 2, 'costs': 'linear', 'sample': 0}
    """
    if kind == "random":
        keys = list(_RANDOM_GRID)
        return [
            {"kind": kind, **dict(zip(keys, values)), "costs": costs, "sample": s}
            for values in itertools.product(*_RANDOM_GRID.values())
            for costs in SCENARIOS
            for s in range(_RANDOM_SAMPLES)
        ]
    if kind == "fft":
        return [
            {"kind": kind, "levels": m, "costs": costs, "sample": s}
            for m in _FFT_LEVELS
            for costs in SCENARIOS
            for s in range(_FFT_SAMPLES)
        ]
    if kind == "strassen":
        return [{"kind": kind, "costs": costs, "sample": s} for costs in SCENARIOS for s in range(_STRASSEN_SAMPLES)]
    raise ValueError(f"kind == {kind!r}, must be one of {POPULATIONS}")


def ptg_population(
    kind: str,
    count: int | None = None,
    *,
    seed: int | np.random.Generator,
    reading: CostReading = DEFAULT_READING,
    members: Sequence[int] | None = None,
) -> list[PTG]:
    """PTGs from the §5.1.2 population ``kind`` ("random", "fft" or "strassen").

    Parameters
    ----------
    kind : str
        Which population (module docstring gives its parameter grid).
    count : int, optional
        ``None``: the whole population, in :func:`population_configs` order
        (1,296 / 120 / 100 PTGs).  Otherwise ``count`` distinct members drawn
        uniformly without replacement (the paper's "random sets of PTGs",
        §5.1.2), in draw order.
    seed : int or numpy.random.Generator
        Member ``k`` of the population is generated from
        ``SeedSequence(root, spawn_key=(1, k))`` and the selection from
        ``spawn_key=(0,)``, where ``root`` is the int seed (or one 63-bit
        integer drawn from the Generator).  So a member is the same PTG
        whether it is drawn alone or with the whole population.
    reading : CostReading
        The reading of §5.1.2's costs for every member (:class:`CostReading`).
    members : sequence of int, optional
        These members only (indices into :func:`population_configs`), in this
        order, instead of ``count`` drawn ones: a set of a study without
        generating the whole population.  Not with ``count``.

    Examples
    --------
    >>> ptgs = ptg_population("strassen", 3, seed=11)
    >>> [p.num_real_tasks for p in ptgs]
    [25, 25, 25]
    >>> ptgs[0] in ptg_population("strassen", seed=11)
    True
    >>> ptg_population("fft", seed=11, members=[7])[0] == ptg_population("fft", seed=11)[7]
    True
    """
    configs = population_configs(kind)
    if isinstance(seed, np.random.Generator):
        root = int(seed.integers(0, 2**63))
    else:
        root = check_int("seed", seed, 0)
    if members is not None:
        if count is not None:
            raise ValueError("give count or members, not both")
        members = [check_int("members", k, 0, len(configs) - 1) for k in members]
    elif count is None:
        members = list(range(len(configs)))
    else:
        count = check_int("count", count, 0, len(configs))
        pick = np.random.default_rng(np.random.SeedSequence(root, spawn_key=(0,)))
        members = pick.choice(len(configs), size=count, replace=False).tolist()
    reading = _check_reading(reading)
    return [
        _member(configs[k], np.random.default_rng(np.random.SeedSequence(root, spawn_key=(1, k))), reading)
        for k in members
    ]


def _member(config: dict[str, Any], rng: np.random.Generator, reading: CostReading) -> PTG:
    args = {k: v for k, v in config.items() if k not in ("kind", "sample")}
    args["reading"] = reading
    kind, sample = config["kind"], config["sample"]
    if kind == "random":
        p = random_ptg(seed=rng, **args)
    elif kind == "fft":
        p = fft_ptg(seed=rng, **args)
    else:
        p = strassen_ptg(seed=rng, **args)
    p.name = f"{p.name}-#{sample}"
    return p


# -- validation ---------------------------------------------------------------------------
def _check_unit(name: str, value: object) -> float:
    return check_float(name, value, minimum=0.0, maximum=1.0)


def _check_scenario(scenario: str | int) -> str:
    if isinstance(scenario, numbers.Integral) and not isinstance(scenario, bool):
        if int(scenario) in _DAGGEN_CODES:
            return _DAGGEN_CODES[int(scenario)]
    elif scenario in SCENARIOS:
        return str(scenario)
    raise ValueError(f"costs == {scenario!r}, must be one of {SCENARIOS} or a daggen code 0..3")
