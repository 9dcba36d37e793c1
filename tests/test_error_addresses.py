"""One error address, in every problem: an error about one item of the input
says where the item is by *position* (``.row``: its 0-based row in the arrays or
table given; ``.ptg`` / ``.task`` in a PTG set) and, where the input has them,
by *identifier* (``.job_id``: the job's number; ``.node``: a graph node's
label), each attribute with one meaning, whether the Rust core or Python
raised the error.  The message is worded in Python (``clustersched.errors``):
no Rust syntax, the field named once.

The inputs use identifiers that differ from the rows (job 10 is row 0), so an
address that put one in the place of the other would fail here."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import networkx as nx
import numpy as np
import pytest

import clustersched as cs
from clustersched import _core
from clustersched.errors import (
    ClusterschedError,
    InfeasibleError,
    InvalidGraphError,
    InvalidWorkloadError,
    naming_jobs,
    naming_nodes,
    rule_words,
)

I64 = np.int64
U64 = np.uint64
PROBLEMS = ("batch", "ptg", "scrap", "dfrs", "grid")
#: Rust's syntax and type names, which no message may show.
RUST = ("..=", "::", "Some(", "None)", "Ok(", "Err(", "u32", "u64", "usize", "i64", "f64", "Other(", "Int(", "Float(")
ADDRESS = ("row", "job_id", "ptg", "task", "node", "field", "value")


@dataclass(frozen=True)
class Case:
    """An error site: a call that raises ``error`` with the ``address`` attributes."""

    problem: str
    name: str
    raised_by: str  # "rust" or "python"
    call: Callable[[], object]
    error: type[ClusterschedError]
    address: dict[str, object] = field(default_factory=dict)
    message: str | None = None  # the whole message, when the case pins it

    def __str__(self) -> str:
        return f"{self.problem}-{self.raised_by}-{self.name}"


def _batch_table(**cols: object) -> cs.JobTable:
    base: dict[str, object] = {
        "job_id": [10, 20, 30],
        "submit": [0, 5, 9],
        "runtime": [5.0, 5.0, 5.0],
        "procs": [1, 2, 2],
    }
    base.update(cols)
    return cs.JobTable(base, metadata={"MaxProcs": "4"})


class _StartsTooEarly(cs.Policy):
    """Starts row 1 at time 0, before it is submitted."""

    name = "starts-too-early"

    def schedule(self, state):  # type: ignore[no-untyped-def]
        state.start(1)


class _StartsTwice(cs.Policy):
    name = "starts-twice"

    def schedule(self, state):  # type: ignore[no-untyped-def]
        if state.now == 0:
            state.start(0)
            state.start(0)


class _StartsTooWide(cs.Policy):
    name = "starts-too-wide"

    def schedule(self, state):  # type: ignore[no-untyped-def]
        if state.now == 5:
            state.start(1)
            state.start(2)


def _dfrs_jobs(**cols: object) -> cs.dfrs.DfrsJobs:
    base: dict[str, object] = {
        "submit": [0.0, 1.0, 2.0],
        "processing_time": [1.0, 1.0, 1.0],
        "tasks": [1, 1, 1],
        "cpu_need": [1.0, 1.0, 1.0],
        "mem_need": [0.5, 0.5, 0.5],
        "job_id": [10, 20, 30],
    }
    base.update(cols)
    return cs.dfrs.DfrsJobs(**base)  # type: ignore[arg-type]


def _ptg(works: list[float], alpha: float = 0.0, labels: str = "abcdef") -> cs.PTG:
    g = nx.DiGraph()
    for v, w in enumerate(works):
        g.add_node(labels[v], work=w, alpha=alpha)
    g.add_edges_from((labels[v], labels[v + 1]) for v in range(len(works) - 1))
    return cs.PTG.from_networkx(g)


def _ptg_set_with_bad_alpha() -> object:
    # PTG 0: one task; PTG 1: 0 -> 1, whose task 1 has alpha 1.5.
    return _core.PtgSet(
        np.array([0, 1, 3], dtype=I64), np.ones(3), np.array([0.0, 0.0, 1.5]), np.array([0, 0, 1, 1], dtype=I64),
        np.array([2], dtype=I64),
    )  # fmt: skip


def _tig(mcr: list[float]) -> object:
    return _core.Tig(np.array(mcr), np.array([0], dtype=I64), np.array([1], dtype=I64), np.array([1.0]))


def _named_tig() -> None:
    with naming_nodes(["a", "b"]):
        _tig([1.0, -1.0])


def _lan_grid_without_host() -> object:
    return _core.LanGrid(
        np.array([0, 1, 1], dtype=I64), np.ones(1), np.ones(2), np.array([], dtype=I64), np.array([], dtype=I64),
        np.array([]),
    )  # fmt: skip


def _dfrs_state(tasks: np.ndarray) -> object:
    ones = np.full(len(tasks), 10**8, dtype=U64)
    return _core.DfrsState(tasks, ones, ones, 4)


def _dfrs_state_named() -> None:
    with naming_jobs(np.array([10, 20, 30])):
        _dfrs_state(np.array([1, 1, 0], dtype=I64))


def _too_wide_start() -> object:
    return cs.simulate(_batch_table(procs=[1, 2, 3], submit=[0, 5, 5]), _StartsTooWide())


def _too_long_ptgs() -> object:
    return cs.ptg.run([_ptg([1.0]), _ptg([1e300]), _ptg([1e300])], cs.Cluster("c", 4, 1.0), "SELFISH_WEIGHT")


def _bad_tig_from_arrays() -> object:
    return cs.grid.TIG.from_arrays([100.0, -5.0], [(0, 1)], [1.0], labels=["x", "y"])


CASES = [
    # -- batch ---------------------------------------------------------------
    Case(
        "batch", "width", "rust",
        lambda: _core.BatchSim(np.zeros(2), np.ones(2), np.ones(2), np.array([1, 9], dtype=I64), 4, "arrival"),
        InvalidWorkloadError, {"row": 1, "job_id": None, "field": "width", "value": 9},
        "row 1: width == 9, must be between 1 and 4 (the machine size)",
    ),
    Case(
        "batch", "estimate", "rust",
        lambda: _core.BatchSim(np.zeros(2), np.array([1.0, 5.0]), np.array([1.0, 3.0]), np.ones(2, dtype=I64), 4,
                               "arrival"),
        InvalidWorkloadError, {"row": 1, "field": "estimate", "value": 3.0},
        "row 1: estimate == 3.0, must be finite and >= runtime (5)",
    ),
    Case(
        "batch", "not-submitted", "rust", lambda: cs.simulate(_batch_table(), _StartsTooEarly()),
        InfeasibleError, {"row": 1, "job_id": 20},
        "job 20 (row 1): cannot start at time 0: it has not been submitted yet",
    ),
    Case(
        "batch", "started", "rust", lambda: cs.simulate(_batch_table(), _StartsTwice()),
        InfeasibleError, {"row": 0, "job_id": 10}, "job 10 (row 0): cannot start at time 0: it has already started",
    ),
    Case(
        "batch", "too-wide", "rust", _too_wide_start,
        InfeasibleError, {"row": 2, "job_id": 30},
        "job 30 (row 2): cannot start at time 5: it needs 3 processors, 2 are free",
    ),
    Case(
        "batch", "negative-runtime", "python", lambda: cs.simulate(_batch_table(runtime=[5.0, -1.0, 5.0]), "fcfs"),
        InvalidWorkloadError, {"row": 1, "job_id": 20, "field": "runtime", "value": -1.0},
    ),
    Case(
        # the simulator sorts by submit; the row is still the one given
        "batch", "unsorted", "python",
        lambda: cs.simulate(_batch_table(submit=[9, 0, 5], runtime=[5.0, 5.0, -1.0]), "fcfs"),
        InvalidWorkloadError, {"row": 2, "job_id": 30, "field": "runtime"},
    ),
    Case(
        "batch", "too-wide-for-the-machine", "python",
        lambda: cs.simulate(_batch_table(procs=[1, 8, 2]), "fcfs", oversized="error"),
        InvalidWorkloadError, {"row": 1, "job_id": 20, "field": "procs", "value": 8},
    ),
    # -- ptg -----------------------------------------------------------------
    Case(
        "ptg", "alpha", "rust", _ptg_set_with_bad_alpha, InvalidWorkloadError,
        {"row": None, "job_id": None, "ptg": 1, "task": 1, "field": "alpha", "value": 1.5},
        "PTG 1, task 1: alpha == 1.5, must be between 0 and 1",
    ),
    Case(
        "ptg", "work", "rust",
        lambda: _core.PtgSet(np.array([0, 1, 2], dtype=I64), np.array([1.0, -1.0]), np.zeros(2),
                             np.array([0, 0, 0], dtype=I64), np.array([], dtype=I64)),
        InvalidWorkloadError, {"ptg": 1, "task": 0, "field": "work", "value": -1.0},
        "PTG 1, task 0: work == -1.0, must be finite and >= 0 (flop)",
    ),
    Case(
        "ptg", "alpha", "python", lambda: _ptg([1.0, 1.0], alpha=1.5), InvalidWorkloadError,
        {"row": None, "job_id": None, "ptg": None, "task": None, "field": "alpha", "value": 1.5},
        "task 'a': alpha == 1.5, must be between 0 and 1",
    ),
    Case(
        "ptg", "too-long", "python",
        _too_long_ptgs,
        InvalidWorkloadError, {"ptg": 2, "field": "work", "value": 1e300},
    ),
    # -- scrap ---------------------------------------------------------------
    Case(
        "scrap", "work", "rust",
        lambda: _core.MultiClusterPtg(np.array([1.0, -2.0]), np.zeros(2), np.array([0, 1, 1], dtype=I64),
                                      np.array([1], dtype=I64), np.array([4], dtype=I64), np.array([1e9])),
        InvalidWorkloadError, {"row": None, "ptg": 0, "task": 1, "field": "work", "value": -2.0},
        "PTG 0, task 1: work == -2.0, must be finite and >= 0 (flop)",
    ),
    Case(
        "scrap", "work", "python", lambda: _ptg([1.0, float("nan")]), InvalidWorkloadError,
        {"row": None, "task": None, "field": "work"},
    ),
    # -- dfrs ----------------------------------------------------------------
    Case(
        "dfrs", "tasks", "rust",
        lambda: _dfrs_state(np.array([1, 1, 0], dtype=I64)),
        InvalidWorkloadError, {"row": 2, "job_id": None, "field": "tasks", "value": 0},
        "row 2: tasks == 0, must be between 1 and 1048576",
    ),
    Case(
        "dfrs", "tasks-named", "rust", _dfrs_state_named, InvalidWorkloadError,
        {"row": 2, "job_id": 30, "field": "tasks", "value": 0},
        "job 30 (row 2): tasks == 0, must be between 1 and 1048576",
    ),
    Case(
        "dfrs", "cpu_need", "rust",
        lambda: _core.DfrsStretchBound(np.zeros(2), np.ones(2), np.array([1.0, 1.5]), np.ones(2, dtype=I64), 1, 10.0),
        InvalidWorkloadError, {"row": 1, "field": "cpu_need", "value": 1.5},
        "row 1: cpu_need == 1.5, must be finite, > 0 and <= 1",
    ),
    Case(
        "dfrs", "tasks", "python", lambda: _dfrs_jobs(tasks=[1, 2**20 + 1, 1]), InvalidWorkloadError,
        {"row": 1, "job_id": 20, "field": "tasks", "value": 2**20 + 1},
    ),
    Case(
        "dfrs", "duplicate-id", "python", lambda: _dfrs_jobs(job_id=[10, 20, 10]), InvalidWorkloadError,
        {"row": 2, "job_id": 10, "field": "job_id", "value": 10},
    ),
    # -- grid ----------------------------------------------------------------
    Case(
        "grid", "mcr", "rust", lambda: _tig([1.0, -1.0]), InvalidGraphError,
        {"row": 1, "node": None, "field": "mcr", "value": -1.0},
        "task at row 1: mcr == -1.0, must be finite, > 0 and <= 1e+300 (Mflop/s)",
    ),
    Case(
        "grid", "mcr-named", "rust", _named_tig, InvalidGraphError, {"row": 1, "node": "b", "field": "mcr"},
        "task 'b' (row 1): mcr == -1.0, must be finite, > 0 and <= 1e+300 (Mflop/s)",
    ),
    Case(
        "grid", "no-host", "rust", _lan_grid_without_host, InvalidGraphError, {"row": 1, "node": None},
        "LAN at row 1: has no host",
    ),
    Case(
        "grid", "mcr", "python", _bad_tig_from_arrays, InvalidGraphError,
        {"row": 1, "node": "y", "field": "mcr", "value": -5.0},
    ),
]  # fmt: skip


def _raised(case: Case) -> ClusterschedError:
    with pytest.raises(case.error) as info:
        case.call()
    return info.value


@pytest.mark.parametrize("case", CASES, ids=str)
def test_an_error_carries_its_address_and_a_python_message(case: Case) -> None:
    e = _raised(case)
    for name, expected in case.address.items():
        assert getattr(e, name) == expected, (name, getattr(e, name), expected)
    message = str(e)
    if case.message is not None:
        assert message == case.message
    assert not [token for token in RUST if token in message], message
    name = getattr(e, "field", None)
    if name is not None:  # the field is named once, in the prefix or in the message itself
        assert len(re.findall(rf"(?<![\w]){re.escape(name)}(?![\w])", message, re.IGNORECASE)) == 1, message


@pytest.mark.parametrize("problem", PROBLEMS)
def test_one_error_address_per_problem(problem: str) -> None:
    """Each problem has errors raised in Rust and in Python, and both speak one address."""
    cases = [c for c in CASES if c.problem == problem]
    assert {c.raised_by for c in cases} == {"rust", "python"}
    for case in cases:
        e = _raised(case)
        assert not hasattr(e, "job"), "one address: .row (a position) and .job_id (an identifier)"
        for name in ("row", "ptg", "task"):  # positions: 0-based ints
            position = getattr(e, name, None)
            assert position is None or (isinstance(position, int) and position >= 0), (case, name, position)
        # an identifier never holds a position (the inputs' ids differ from their rows)
        if isinstance(e, (InvalidWorkloadError, InfeasibleError)) and e.job_id is not None:
            assert e.job_id != e.row and isinstance(e.job_id, int)
        if isinstance(e, InvalidGraphError) and e.node is not None:
            assert isinstance(e.node, str)
        assert not [token for token in RUST if token in str(e)], str(e)


def test_the_id_is_filled_once_and_the_message_follows() -> None:
    e = InvalidWorkloadError("runtime == -1.0, must be >= 0", row=2, field="runtime", value=-1.0)
    assert str(e) == "row 2: runtime == -1.0, must be >= 0"
    e._name_job(np.array([7, 8, 9]))
    assert (e.row, e.job_id, str(e)) == (2, 9, "job 9 (row 2): runtime == -1.0, must be >= 0")
    e._name_job(np.array([1, 2, 3]))  # filled once: a second table does not rename it
    assert e.job_id == 9
    # a Python-raised error names the field in its prefix when the message does not
    e = InvalidWorkloadError("not a number", path="t.swf", line=3, row=0, job_id=5, field="runtime", value="x")
    assert str(e) == "t.swf:3, job 5 (row 0), field 'runtime': not a number"


def test_errors_survive_pickling_with_their_address() -> None:
    import pickle

    e = pickle.loads(pickle.dumps(_raised(CASES[2])))
    assert (type(e), e.row, e.job_id, str(e)) == (
        InfeasibleError,
        1,
        20,
        "job 20 (row 1): cannot start at time 0: it has not been submitted yet",
    )


@pytest.mark.parametrize(
    ("rule", "note", "words"),
    [
        (("between", 1, 4), "the machine size", "must be between 1 and 4 (the machine size)"),
        (("between", 0.0, 1.0), None, "must be between 0 and 1"),
        (("at_least", 1), None, "must be >= 1"),
        (("at_least", 0.0), "flop", "must be finite and >= 0 (flop)"),
        (("above", 0.0), None, "must be finite and > 0"),
        (("at_most", 2**53), None, "must be <= 9007199254740992"),
        (("above_up_to", 0.0, 1e300), None, "must be finite, > 0 and <= 1e+300"),
        (("at_least_up_to", 0.0, 1.0), None, "must be finite, >= 0 and <= 1"),
        (("finite",), None, "must be finite"),
        (("at_least_of", "runtime", 5.0), None, "must be finite and >= runtime (5)"),
        (("other", "has no host"), None, "has no host"),
    ],
)
def test_the_core_rules_are_worded_in_one_place(rule: tuple[object, ...], note: str | None, words: str) -> None:
    assert rule_words(rule, note) == words
