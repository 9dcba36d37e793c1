"""Issue 20, the grid part: every size is bounded or refused up front, every input of the public API is
type- and range-checked in the house style, mismatched pairs are caught, and the algorithms and the validator
decide "fits" by one rounding rule."""

from __future__ import annotations

import dataclasses
import math
import time
import warnings

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clustersched import _core
from clustersched.errors import InvalidGraphError
from clustersched.grid import (
    TIG,
    GridRanges,
    LanGrid,
    TigRanges,
    failure_rate,
    feasible_instance,
    greedy_best_fit,
    lan_hit_ratio,
    mapping_metrics,
    mapping_violations,
    model,
    qlse,
    qlse_step,
    random_grid,
    random_instance,
    random_tig,
    shared_task_machine_ratio,
    task_machine_ratio,
    task_order,
    validate_mapping,
)
from clustersched.grid import (
    run as run_grid,
)
from clustersched.grid.validate import RTOL, check_mapping


@pytest.fixture(scope="module")
def inst():
    return feasible_instance("small", "small", seed=3)


class Huge:
    """A sequence that claims more items than any limit and must never be read."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __iter__(self):
        raise AssertionError("read the items of a sequence that is too long")


# -- sizes ---------------------------------------------------------------------------------------
def test_the_limits_are_the_cores():
    assert (model.MAX_TASKS, model.MAX_EDGES, model.MAX_LANS, model.MAX_HOSTS, model.MAX_VALUE) == (
        _core.GRID_MAX_TASKS,
        _core.GRID_MAX_EDGES,
        _core.GRID_MAX_LANS,
        _core.GRID_MAX_HOSTS,
        _core.GRID_MAX_VALUE,
    )
    assert model.MAX_LINKS == model.MAX_LANS * (model.MAX_LANS - 1) // 2 == _core.GRID_MAX_LINKS
    assert RTOL == _core.GRID_RTOL


@pytest.mark.parametrize(
    ("build", "match"),
    [
        (
            lambda: TIG.from_arrays(Huge(10**12), [], []),
            r"the TIG has 1000000000000 tasks, more than MAX_TASKS == 10000",
        ),
        (lambda: TIG.from_arrays([1.0] * 10_001, [], []), "the TIG has 10001 tasks, more than MAX_TASKS == 10000"),
        (lambda: TIG.from_arrays(iter([1.0] * 10_001), [], []), "the TIG has more than 10000 tasks"),
        (lambda: TIG.from_arrays([1.0, 1.0], Huge(100_001), []), "100001 edges, more than MAX_EDGES == 100000"),
        (lambda: TIG.from_networkx(nx.empty_graph(10_001)), "10001 tasks, more than MAX_TASKS"),
        (lambda: LanGrid.from_arrays(Huge(1001), [], [], []), "the grid has 1001 LANs, more than MAX_LANS == 1000"),
        (lambda: LanGrid.from_arrays([Huge(100_001)], [1.0], [], []), "more than 100000 hosts .*MAX_HOSTS == 100000"),
        (
            lambda: LanGrid.from_arrays([[1.0] * 60_000, iter([1.0] * 60_000)], [1.0, 1.0], [], []),
            "the grid has more than 100000 hosts, more than MAX_HOSTS",
        ),
        (lambda: LanGrid.from_arrays([[1.0]], [1.0], Huge(499_501), []), "499501 links, more than MAX_LINKS == 499500"),
        (lambda: LanGrid.from_networkx(nx.empty_graph(1001)), "1001 LANs, more than MAX_LANS"),
    ],
)
def test_models_beyond_the_limits_are_refused_before_being_read(build, match):
    with pytest.raises(InvalidGraphError, match=match):
        build()


@pytest.mark.parametrize(
    ("build", "match"),
    [
        (lambda: TIG.from_arrays([1e301], [], []), r"task 0: MCR == 1e\+301, must be <= 1e\+300 \(Mflop/s\)"),
        (
            lambda: TIG.from_arrays([1.0, 1.0], [(0, 1)], [10**400]),
            r"edge \(0, 1\): MBR == 1000.*must be a finite real",
        ),
        (lambda: TIG.from_arrays([1.0, 1.0], [(0, 1)], [2e300]), r"MBR == 2e\+300, must be <= 1e\+300"),
        (lambda: LanGrid.from_arrays([[1e308]], [1.0], [], []), r"LAN 0 host 0: power == 1e\+308, must be <= 1e\+300"),
        (lambda: LanGrid.from_arrays([[1.0]], [1e301], [], []), r"LAN 0: bandwidth == 1e\+301, must be <= 1e\+300"),
        (
            lambda: LanGrid.from_arrays([[1.0], [1.0]], [1.0, 1.0], [(0, 1)], [1e301]),
            r"link \(0, 1\): bandwidth == 1e\+301",
        ),
    ],
)
def test_values_beyond_max_value_are_refused(build, match):
    with pytest.raises(InvalidGraphError, match=match):
        build()


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: random_tig("small", tasks=10_001), ValueError, "tasks == 10001, must be <= 10000"),
        (lambda: random_tig("small", tasks=2**64), ValueError, "tasks == 18446744073709551616, must be <= 10000"),
        (lambda: random_tig("small", tasks=0), ValueError, "tasks == 0, must be >= 1"),
        (lambda: random_tig("small", tasks=3.0), TypeError, "tasks == 3.0, must be an integer"),
        (lambda: random_grid("small", lans=100_000), ValueError, "lans == 100000, must be <= 1000"),
        (lambda: random_grid("small", hosts_per_lan=100_001), ValueError, "hosts_per_lan == 100001, must be <= 100000"),
        (
            lambda: random_grid("small", lans=1000, hosts_per_lan=101),
            InvalidGraphError,
            "a grid of up to 1000 LANs of up to 101 hosts has up to 101000 hosts, more than MAX_HOSTS == 100000",
        ),
        (
            lambda: random_grid(GridRanges((1, 1000), (1, 1000), (1.0, 2.0), (1.0, 2.0))),
            InvalidGraphError,
            "up to 1000000 hosts",
        ),
        (lambda: feasible_instance("small", "small", tasks=10**6), ValueError, "tasks == 1000000, must be <= 10000"),
        (lambda: random_instance("small", "small", lans=10**5), ValueError, "lans == 100000, must be <= 1000"),
        (
            lambda: TigRanges((0, 5), (1.0, 2.0), (1.0, 2.0)),
            ValueError,
            r"tasks == \(0, 5\), must be a pair of integers "
            r"with 1 <= low <= high <= 10000",
        ),
        (lambda: TigRanges((5, 2), (1.0, 2.0), (1.0, 2.0)), ValueError, r"tasks == \(5, 2\)"),
        (lambda: TigRanges((1, 10**5), (1.0, 2.0), (1.0, 2.0)), ValueError, "MAX_TASKS"),
        (lambda: TigRanges((1, 2), (0.0, 2.0), (1.0, 2.0)), ValueError, r"mcr == \(0.0, 2.0\), .* 0 < low <= high"),
        (lambda: TigRanges((1, 2), (1.0, float("nan")), (1.0, 2.0)), ValueError, "mcr == "),
        (lambda: TigRanges((1, 2), (1.0, 2.0), (-1.0, 2.0)), ValueError, r"mbr == \(-1.0, 2.0\)"),
        (lambda: TigRanges((1, 2), (1.0, 2.0), (1.0, 1e301)), ValueError, r"high <= 1e\+300"),
        (lambda: TigRanges(3, (1.0, 2.0), (1.0, 2.0)), TypeError, "tasks == 3, must be a pair"),
        (lambda: TigRanges((1.0, 2), (1.0, 2.0), (1.0, 2.0)), TypeError, "must be a pair of integers"),
        (lambda: GridRanges((1, 2), (1, 2), (1.0, "x"), (1.0, 2.0)), TypeError, "power == .* real numbers"),
        (lambda: GridRanges((1, 2000), (1, 2), (1.0, 2.0), (1.0, 2.0)), ValueError, "MAX_LANS"),
        (lambda: GridRanges((1, 2), (1, 2), (1.0, 2.0), (float("inf"), float("inf"))), ValueError, "bandwidth == "),
        (lambda: random_tig(None), TypeError, "ranges == None, must be a TigRanges or a size name"),
        (lambda: random_tig("tiny"), ValueError, "tasks == 'tiny', must be one of"),
        (lambda: random_tig("small", seed=-1), ValueError, "seed == -1, must be >= 0"),
        (lambda: feasible_instance("small", "small", bandwidth="wide"), ValueError, "bandwidth == 'wide'"),
    ],
)
def test_generator_arguments_are_checked_before_drawing(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.slow
def test_the_largest_accepted_instance_maps_in_seconds():
    """The limits are below any blow-up: the largest instance the CLI draws, both algorithms, both models."""
    began = time.perf_counter()
    inst = feasible_instance(
        "medium",
        "medium",
        seed=0,
        tasks=model.MAX_TASKS,
        lans=model.MAX_LANS,
        hosts_per_lan=model.MAX_HOSTS // model.MAX_LANS,
    )
    assert len(inst.tig) == 10_000 and inst.grid.num_hosts == 100_000
    validate_mapping(inst.planted, inst.tig, inst.grid)
    for bandwidth in ("shared", "dedicated"):
        for fn in (qlse, greedy_best_fit):
            result = fn(inst.tig, inst.grid, bandwidth=bandwidth)
            if result.found:
                validate_mapping(result, inst.tig, inst.grid)
    one_lan = feasible_instance("small", "small", seed=0, tasks=model.MAX_TASKS, lans=1, hosts_per_lan=model.MAX_HOSTS)
    validate_mapping(qlse(one_lan.tig, one_lan.grid), one_lan.tig, one_lan.grid)
    assert time.perf_counter() - began < 60  # about 6 s on a loaded 2-core machine


# -- types of the public API --------------------------------------------------------------------
@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda i: qlse(None, i.grid), "tig == None, must be a clustersched.grid.TIG"),
        (lambda i: qlse(i.tig, i.tig), r"grid == TIG\(.*\), must be a clustersched.grid.LanGrid"),
        (lambda i: greedy_best_fit(i.grid, i.tig), "tig == LanGrid"),
        (lambda i: task_order(nx.path_graph(3)), "tig == <networkx"),
        (lambda i: qlse_step("grid", 0), "grid == 'grid'"),
        (lambda i: validate_mapping(i.planted, None, i.grid), "tig == None"),
        (lambda i: mapping_violations(i.planted, i.tig, None), "grid == None"),
        (
            lambda i: mapping_violations(None, i.tig, i.grid),
            "mapping == None, must be a clustersched.grid.Mapping or a sequence of one host index per task",
        ),
        (lambda i: mapping_violations("0123", i.tig, i.grid), "mapping == '0123'"),
        (lambda i: lan_hit_ratio(None, i.tig, i.grid), "mapping == None"),
        (lambda i: task_machine_ratio(i.planted, i.grid, i.tig), "tig == LanGrid"),
        (lambda i: mapping_metrics(i.planted, i.tig, "grid"), "grid == 'grid'"),
        (lambda i: failure_rate(None), "results == None, must be an iterable"),
        (lambda i: failure_rate([True, 1]), r"results\[1\] == 1, must be a mapping result or a bool"),
        (lambda i: run_grid(i.tig, i.grid, "qlse", validate="yes"), "validate == 'yes', must be a bool"),
        (lambda i: TIG.from_arrays(None, [], []), "mcr == None, must be a sequence"),
        (
            lambda i: TIG.from_arrays([1.0], [], [], labels=[[1]]),
            r"labels contains \[1\], task labels must be hashable",
        ),
        (lambda i: LanGrid.from_arrays([[1.0]], 5, [], []), "lan_bandwidth == 5, must be a sequence"),
        (lambda i: LanGrid.from_arrays([[1.0]], [1.0], None, []), "links == None, must be a sequence"),
    ],
)
def test_wrong_types_raise_typeerror_naming_the_argument(inst, call, match):
    with pytest.raises(TypeError, match=match):
        call(inst)


def test_model_accessors_check_their_index(inst):
    with pytest.raises(ValueError, match=r"host == 127, must be <= 126"):
        inst.grid.host_name(127)
    with pytest.raises(ValueError, match="lan == -1, must be >= 0"):
        inst.grid.hosts(-1)
    with pytest.raises(TypeError, match="a == 0.5, must be an integer"):
        inst.grid.link(0.5, 1)
    with pytest.raises(ValueError, match=r"i == 28, must be <= 27"):
        inst.tig.neighbors(28)
    assert inst.grid.host_name(np.int64(0)) == (0, 0)


def test_the_limits_are_exported_with_the_models():
    import clustersched.grid as grid

    assert (grid.MAX_TASKS, grid.MAX_LANS, grid.MAX_HOSTS) == (10_000, 1_000, 100_000)
    assert grid.MAX_EDGES == 100_000 and grid.MAX_LINKS == 499_500 and grid.MAX_VALUE == 1e300


def test_qlse_none_grid_is_a_typeerror_before_any_work(inst):
    with pytest.raises(TypeError, match="tig == None"):
        qlse(None, inst.grid, bandwidth="nonsense")  # the types first


# -- mismatched pairs ---------------------------------------------------------------------------
def test_a_mapping_whose_lan_disagrees_with_its_host_is_a_violation(inst):
    m = qlse(inst.tig, inst.grid)
    assert m.found and mapping_violations(m, inst.tig, inst.grid) == []
    lan = m.lan.copy()
    lan[0] = (lan[0] + 1) % inst.grid.num_lans
    forged = dataclasses.replace(m, lan=lan)
    violations = mapping_violations(forged, inst.tig, inst.grid)
    host = inst.grid.host_name(int(m.host[0]))
    assert violations == [f"task 0 is on host {host!r} of LAN {host[0]!r}, but the mapping says LAN {int(lan[0])!r}"]
    with pytest.raises(Exception, match="but the mapping says LAN"):
        validate_mapping(forged, inst.tig, inst.grid)
    short = dataclasses.replace(m, lan=m.lan[:-1])
    assert mapping_violations(short, inst.tig, inst.grid)[0].startswith("the mapping has")


def test_a_mapping_of_another_instance_is_caught_by_the_validator_and_the_metrics(inst):
    other = feasible_instance("large", "large", seed=4)
    m = qlse(other.tig, other.grid)
    assert m.found and len(other.tig) != len(inst.tig)
    assert mapping_violations(m, inst.tig, inst.grid) == [
        f"the mapping has {len(other.tig)} hosts for {len(inst.tig)} tasks"
    ]
    for metric in (lan_hit_ratio, task_machine_ratio, shared_task_machine_ratio, mapping_metrics):
        with pytest.raises(ValueError, match="is not a mapping of this TIG onto this grid: the mapping has"):
            metric(m, inst.tig, inst.grid)
    # same TIG, another grid: the hosts do not exist there, or sit on other LANs than the mapping says
    mine = qlse(inst.tig, inst.grid)
    small = LanGrid.from_arrays([[1e6]], [1e6], [], [])
    assert mapping_violations(mine, inst.tig, small)[0].startswith("task 0 is on host")
    with pytest.raises(ValueError, match="is not a mapping of this TIG onto this grid"):
        lan_hit_ratio(mine, inst.tig, small)
    with pytest.raises(ValueError, match="is not a mapping of"):
        mine.by_label(inst.tig, small)
    failed = qlse(TIG.from_arrays([1e9], [], []), inst.grid)
    with pytest.raises(ValueError, match="found no mapping, it has no measures"):
        mapping_metrics(failed, inst.tig, inst.grid)


def test_check_mapping_gives_a_read_only_host_array(inst):
    host = check_mapping(inst.planted.tolist(), inst.tig, inst.grid)
    assert host.tolist() == inst.planted.tolist() and not host.flags.writeable


def test_ratios_that_overflow_are_inf_without_a_warning():
    tig = TIG.from_arrays([1e-300], [], [])
    grid = LanGrid.from_arrays([[1e300]], [0.0], [], [])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert task_machine_ratio([0], tig, grid) == math.inf
        assert shared_task_machine_ratio([0], tig, grid) == math.inf
        assert math.isnan(lan_hit_ratio([0], tig, grid))


# -- one rounding rule ----------------------------------------------------------------------------
def test_sums_within_the_tolerance_are_accepted_by_the_algorithms_and_the_validator_alike():
    # 0.1 + 0.2 is 0.30000000000000004 exactly rounded: it fits a host of 0.3 (and a LAN of 0.3) within RTOL
    tig = TIG.from_arrays([0.1, 0.2], [(0, 1)], [0.1])
    grid = LanGrid.from_arrays([[0.3]], [0.1], [], [])
    for fn in (qlse, greedy_best_fit):
        m = fn(tig, grid)
        assert m.found and m.host.tolist() == [0, 0]
        assert mapping_violations(m, tig, grid) == []
    just_over = LanGrid.from_arrays([[0.3 * (1 - 10 * RTOL)]], [0.1], [], [])
    for fn in (qlse, greedy_best_fit):
        assert not fn(tig, just_over).found
    assert mapping_violations([0, 0], tig, just_over)[0].startswith(
        "host (0, 0): tasks [0, 1] need 0.30000000000000004"
    )


VALUES = st.floats(1e-3, 1e3, allow_nan=False, allow_infinity=False)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(VALUES, min_size=1, max_size=12), st.integers(-3, 3), st.sampled_from(["power", "lan", "link"]))
def test_the_algorithms_and_the_validator_reach_the_same_verdict_at_the_capacity(values, shift, where):
    """A capacity at the exact sum of the requirements, moved by a few RTOL either way: an algorithm that must
    put everything on that one resource succeeds exactly when the validator accepts the only mapping."""
    exact = math.fsum(values)
    capacity = exact / (1 + RTOL) * (1 + shift * RTOL / 2)
    n = len(values)
    if where == "power":  # a path of free communications on one host
        tig = TIG.from_arrays(values, [(k, k + 1) for k in range(n - 1)], [0.0] * (n - 1))
        grid = LanGrid.from_arrays([[capacity]], [0.0], [], [])
        only = [0] * n
    elif where == "lan":  # a star of n + 1 tasks: its n edges all inside the one LAN
        tig = TIG.from_arrays([1.0] * (n + 1), [(0, k) for k in range(1, n + 1)], values)
        grid = LanGrid.from_arrays([[1e9]], [capacity], [], [])
        only = [0] * (n + 1)
    else:  # the star's centre fills LAN 0, its leaves go one per host of LAN 1: every edge on the link
        tig = TIG.from_arrays([1e6] + [1.0] * n, [(0, k) for k in range(1, n + 1)], values)
        grid = LanGrid.from_arrays([[1e6], [1.0] * n], [0.0, 0.0], [(0, 1)], [capacity])
        only = [0, *range(1, n + 1)]
    accepted = mapping_violations(only, tig, grid) == []
    assert accepted == (exact <= capacity * (1 + RTOL))
    for fn in (qlse, greedy_best_fit):
        for bandwidth in ("shared",) if where != "power" else ("shared", "dedicated"):
            m = fn(tig, grid, bandwidth=bandwidth)
            assert m.found == accepted, (fn.__name__, bandwidth)
            if m.found:
                assert mapping_violations(m, tig, grid) == []
