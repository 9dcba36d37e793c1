"""Bad input, as a new user would give it (issue 8, "Bad input found").

Every case ends in a typed error whose message names the file / line / field /
argument and the value, or is accepted correctly (with a report where
something is left out).  Never an untyped traceback, a Rust panic, corrupt
output or a silent drop.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from clustersched._checks import MAX_PROCS
from clustersched.errors import ClusterschedError, InvalidWorkloadError
from clustersched.workload.jobs import JobTable
from clustersched.workload.swf import read_swf, write_swf

GOOD = "1 0 5 100 4 -1 -1 4 200 -1 1 3 1 -1 -1 -1 -1 -1"
SECOND = "2 10 5 50 2 -1 -1 2 100 -1 1 3 1 -1 -1 -1 -1 -1"
BUNDLED = Path(__file__).resolve().parents[1] / "python" / "clustersched" / "data" / "hpc2n-2002-week.swf.gz"


def swf_file(tmp_path: Path, text: str | bytes, name: str = "t.swf") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


# -- SWF header ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "line", "field", "message"),
    [
        ("; MaxProcs:", 1, "MaxProcs", "has no value"),
        (
            "; MaxProcs: 100000000000000000000000",
            1,
            "MaxProcs",
            "value 100000000000000000000000 is out of range (must be between 1 and 4294967295)",
        ),
        ("; MaxProcs: abc\n; MaxNodes: 10", 1, "MaxProcs", "value 'abc' is not a whole number of processors"),
        ("; MaxProcs: 240.0\n; MaxNodes: 10", 1, "MaxProcs", "value '240.0' is not a whole number"),
        ("; MaxProcs: 0", 1, "MaxProcs", "value 0 is out of range"),
        ("; MaxProcs: 64\n; MaxNodes: -1", 2, "MaxNodes", "value '-1' is not a whole number"),
        (
            "; MaxProcs: 240\n; Note: x\n; MaxProcs: 100",
            3,
            "MaxProcs",
            "value 100 contradicts the MaxProcs of 240 at line 1",
        ),
    ],
)
def test_bad_machine_size_header(tmp_path: Path, header: str, line: int, field: str, message: str) -> None:
    path = swf_file(tmp_path, f"{header}\n{GOOD}\n")
    for mode in ("raise", "skip"):  # the machine size would be a guess either way
        with pytest.raises(InvalidWorkloadError, match=message.replace("(", r"\(").replace(")", r"\)")) as err:
            read_swf(path, on_invalid=mode)
        assert (err.value.path, err.value.line, err.value.field) == (str(path), line, field)
        # the field is named once: in the prefix, or in the message itself
        assert str(err.value).startswith(f"{path}:{line}, field {field!r}: ") or (
            str(err.value).startswith(f"{path}:{line}: ") and field in err.value.detail
        )


def test_machine_size_header_accepted_forms(tmp_path: Path) -> None:
    # A comment after the count, and the same count twice, are fine.
    path = swf_file(tmp_path, f"; MaxProcs: 338 (batch partition)\n; MaxProcs: 338\n{GOOD}\n")
    assert read_swf(path).max_procs == 338


def test_bad_machine_size_in_a_built_table_is_not_replaced() -> None:
    t = JobTable({"runtime": [1.0]}, metadata={"MaxProcs": "abc", "MaxNodes": "4"}, source="mine")
    with pytest.raises(InvalidWorkloadError, match="mine, field 'MaxProcs': value 'abc' is not a whole number"):
        _ = t.max_procs
    assert "MaxProcs='abc'" in repr(t)  # a repr never raises


@pytest.mark.parametrize(
    "text",
    [
        b"\xef\xbb\xbf; MaxProcs: 8\n" + GOOD.encode() + b"\n" + SECOND.encode() + b"\n",  # UTF-8 BOM
        b"\xef\xbb\xbf" + GOOD.encode() + b"\n" + SECOND.encode() + b"\n",  # BOM before data
        ("; MaxProcs: 8\r" + GOOD + "\r" + SECOND + "\r").encode(),  # CR-only line ends
        ("; MaxProcs: 8\r\n" + GOOD + "\r\n" + SECOND + "\r\n").encode(),  # CR LF
    ],
)
def test_bom_and_line_ends_are_accepted(tmp_path: Path, text: bytes) -> None:
    for name, data in (("t.swf", text), ("t.swf.gz", gzip.compress(text))):
        t = read_swf(swf_file(tmp_path, data, name))
        assert t.job_id.tolist() == [1, 2] and t.runtime.tolist() == [100, 50]
        assert t.max_procs in (8, None) and not t.dropped


def test_cr_line_numbers_count_like_an_editor(tmp_path: Path) -> None:
    path = swf_file(tmp_path, f"; MaxProcs: 8\r{GOOD}\r{SECOND.replace(' 50 ', ' -7 ')}\r")
    with pytest.raises(InvalidWorkloadError, match="value -7 is negative") as err:
        read_swf(path)
    assert (err.value.line, err.value.field) == (3, "runtime")


# -- SWF data -------------------------------------------------------------------------------------


def test_duplicate_job_numbers_are_reported(tmp_path: Path) -> None:
    path = swf_file(tmp_path, f"{GOOD}\n{SECOND}\n{GOOD.replace(' 100 ', ' 7 ')}\n")
    with pytest.raises(InvalidWorkloadError) as err:
        read_swf(path)
    assert str(err.value) == f"{path}:3, field 'job_id': job number 1 is already used at line 1"
    assert (err.value.line, err.value.field, err.value.value) == (3, "job_id", 1)
    t = read_swf(path, on_invalid="skip")  # the first line with the number is kept
    assert t.job_id.tolist() == [1, 2] and t.runtime.tolist() == [100, 50]
    assert [(d.reason, d.job_id, d.line) for d in t.dropped] == [("duplicate job number", 1, 3)]


def test_unknown_job_numbers_may_repeat(tmp_path: Path) -> None:
    t = read_swf(swf_file(tmp_path, f"{GOOD.replace('1', '-1', 1)}\n{GOOD.replace('1', '-1', 1)}\n"))
    assert t.job_id.tolist() == [-1, -1]


@pytest.mark.parametrize(
    ("field", "token", "message"),
    [
        ("runtime", "1e300", "value 1e300 is too large (times must be within +-10**10 s"),
        ("submit", "10000000001", "value 10000000001 is too large"),
        ("think_time", "-2e10", "value -2e10 is too large"),
        ("mem_used", "1e30", "value 1e30 is too large (must be within +-2**53)"),
    ],
)
def test_absurd_values_are_rejected(tmp_path: Path, field: str, token: str, message: str) -> None:
    from clustersched.workload.jobs import FIELD_NAMES

    values = GOOD.split()
    values[FIELD_NAMES.index(field)] = token
    path = swf_file(tmp_path, f"; MaxProcs: 8\n{' '.join(values)}\n{SECOND}\n")
    with pytest.raises(InvalidWorkloadError) as err:
        read_swf(path)
    assert str(err.value).startswith(f"{path}:2, field {field!r}: {message}")
    assert read_swf(path, on_invalid="skip").job_id.tolist() == [2]


def test_largest_real_request_is_accepted(tmp_path: Path) -> None:
    # CEA-Curie asks for 2**31 - 1 s ("unlimited"): within the bound.
    t = read_swf(swf_file(tmp_path, GOOD.replace(" 200 ", " 2147483647 ") + "\n"))
    assert t.time_requested.tolist() == [2147483647]


def test_writer_refuses_what_the_reader_rejects(tmp_path: Path) -> None:
    cases = [
        (JobTable({"runtime": [1.0, 1e300]}), "runtime", 2, "is too large"),
        (JobTable({"job_id": [4, 5, 4], "runtime": [1.0, 1.0, 1.0]}), "job_id", 4, "same job number"),
        (JobTable({"procs": [3, -4]}), "procs", 2, "is negative"),
    ]
    for table, field, job, message in cases:
        out = tmp_path / "out.swf"
        with pytest.raises(InvalidWorkloadError, match=message) as err:
            write_swf(table, out)
        assert (err.value.field, err.value.job_id) == (field, job)
        assert not out.exists()


@pytest.mark.parametrize("path", [123, 4.5, None, b"t.swf", ["t.swf"]])
def test_read_swf_wants_a_file_name(path: object) -> None:
    with pytest.raises(TypeError, match=r"path == .*, must be a file name \(str or os.PathLike\)"):
        read_swf(path)  # type: ignore[arg-type]


# -- JobTable columns -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("columns", "error", "message"),
    [
        ({"submit": None}, TypeError, r"column 'submit' == None, must be a 1-D array of numbers"),
        ({"submit": ["a", "b"]}, TypeError, r"column 'submit' has dtype <U1, must hold numbers"),
        ({"submit": [0, None]}, TypeError, r"column 'submit': row 1 == None, must be a number"),
        ({"procs": [True, False]}, TypeError, r"column 'procs' has dtype bool, must hold numbers"),
        ({"submit": 5}, ValueError, r"column 'submit' has shape \(\), must be 1-D"),
        ({"submit": [[0, 1], [2, 3]]}, ValueError, r"column 'submit' has shape \(2, 2\), must be 1-D"),
        ({"submit": [0, [1, 2]]}, ValueError, r"column 'submit' is not a 1-D array of numbers"),
        ({"procs": [1.5]}, InvalidWorkloadError, r"field 'procs': row 0: value 1.5 is not an integer"),
        ({"procs": [np.nan]}, InvalidWorkloadError, r"field 'procs': row 0: value nan is not an integer"),
        ({"procs": [4, 2**70]}, InvalidWorkloadError, r"field 'procs': row 1: value .* is out of int64's range"),
        ({"procs": [1e300]}, InvalidWorkloadError, r"field 'procs': row 0: value 1e\+300 is out of int64's range"),
        ({"job_id": np.array([2**64 - 1], dtype=np.uint64)}, InvalidWorkloadError, "out of int64's range"),
    ],
)
def test_job_table_columns(columns: dict, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        JobTable(columns)


def test_job_table_wants_a_mapping() -> None:
    with pytest.raises(TypeError, match="columns == list, must be a mapping"):
        JobTable([1, 2])  # type: ignore[arg-type]


# -- Lublin-Feitelson -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n_jobs", "procs", "message"),
    [
        (10, 99999999999999999999, r"procs == 99999999999999999999, must be <= 4294967295"),
        (99999999999999, 128, r"n_jobs == 99999999999999, must be <= 10000000"),
        (0, 128, r"n_jobs == 0, must be >= 1"),  # SWF readers reject a trace of no job
    ],
)
def test_lublin_arguments_are_bounded(n_jobs: int, procs: int, message: str) -> None:
    from clustersched.workload.lublin import lublin_feitelson

    with pytest.raises(ValueError, match=message):
        lublin_feitelson(n_jobs, procs)


def test_lublin_on_the_largest_machine(tmp_path: Path) -> None:
    from clustersched.workload.lublin import lublin_feitelson

    t = lublin_feitelson(200, 2**32 - 1, seed=1)
    assert t.procs.min() >= 1 and t.procs.max() <= 2**32 - 1 and t.max_procs == 2**32 - 1
    assert read_swf(write_swf(t, tmp_path / "big.swf")).equals(t)


# -- batch simulation: DPSA options and the Python API --------------------------------------------


def small_table() -> JobTable:
    return JobTable({"submit": [0, 1, 1], "runtime": [5, 5, 2], "procs": [1, 2, 1]}, metadata={"MaxProcs": "2"})


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"time_limit": float("inf")}, ValueError, r"time_limit == inf, must be finite"),
        ({"time_limit": float("nan")}, ValueError, r"time_limit == nan, must be finite"),
        ({"time_limit": 1e300}, ValueError, r"time_limit == 1e\+300, must be <= 86400"),
        ({"time_limit": 0}, ValueError, r"time_limit == 0, must be > 0"),
        ({"time_limit": "1"}, TypeError, r"time_limit == '1', must be a real number"),
        ({"node_budget": 2**70}, ValueError, r"node_budget == 1180591620717411303424, must be <= 18446744073709551615"),
        ({"node_budget": 0}, ValueError, r"node_budget == 0, must be >= 1"),
        ({"node_budget": 1e6}, TypeError, r"node_budget == 1000000.0, must be an integer"),
        ({"node_budget": True}, TypeError, r"node_budget == True, must be an integer"),
    ],
)
def test_dpsa_search_bounds(kwargs: dict, error: type, message: str) -> None:
    from clustersched import simulate

    with pytest.raises(error, match=message):
        simulate(small_table(), "dpsa-p", **kwargs)


def test_largest_dpsa_search_bounds_run() -> None:
    from clustersched import simulate

    r = simulate(small_table(), "dpsa-w", node_budget=2**64 - 1, time_limit=86400)
    assert r.schedule.start.tolist() == [0.0, 5.0, 1.0]


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative", "sjf", "custom"])
@pytest.mark.parametrize("option", [{"node_budget": 10}, {"time_limit": 1.0}])
def test_dpsa_options_are_refused_by_other_policies(policy: str, option: dict) -> None:
    from clustersched import simulate
    from clustersched.batch import Policy

    class Custom(Policy):
        name = "mine"

    given = Custom() if policy == "custom" else policy
    name = "mine" if policy == "custom" else policy
    ((key, value),) = option.items()
    with pytest.raises(
        ValueError, match=rf"{key} == {value} bounds DPSA's subset search, but policy '{name}' has none"
    ):
        simulate(small_table(), given, **option)


def test_default_node_budget_is_documented_as_the_cores() -> None:
    from clustersched.batch import simulator

    assert "default one million" in simulator.__doc__
    assert "50 million" not in simulator.__doc__ and "50 million" not in simulator.simulate.__doc__


@pytest.mark.parametrize(
    ("jobs", "message"),
    [
        (None, r"jobs == None, must be a clustersched JobTable"),
        ("trace.swf", r"jobs == 'trace.swf', must be a clustersched JobTable \(e.g. read_swf\(path\)\)"),
        ({"submit": [0]}, r"jobs == \{'submit': \[0\]\}, must be a clustersched JobTable"),
    ],
)
def test_simulate_wants_a_job_table(jobs: object, message: str) -> None:
    from clustersched import simulate

    with pytest.raises(TypeError, match=message):
        simulate(jobs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("procs", "error", "message"),
    [
        (True, TypeError, r"procs == True, must be an integer"),
        (2.0, TypeError, r"procs == 2.0, must be an integer"),
        (0, ValueError, r"procs == 0, must be >= 1"),
        (-1, ValueError, r"procs == -1, must be >= 1"),
        (2**32, ValueError, r"procs == 4294967296, must be <= 4294967295"),
        (2**63 - 1, ValueError, r"procs == 9223372036854775807, must be <= 4294967295"),
        (2**63, ValueError, r"procs == 9223372036854775808, must be <= 4294967295"),
        (2**64, ValueError, r"procs == 18446744073709551616, must be <= 4294967295"),
        (np.uint64(2**64 - 1), ValueError, r"procs == 18446744073709551615, must be <= 4294967295"),
    ],
)
def test_simulate_procs(procs: object, error: type, message: str) -> None:
    from clustersched import simulate

    with pytest.raises(error, match=message):
        simulate(small_table(), procs=procs)  # type: ignore[arg-type]


def _first_fit():
    """A Python policy that starts every waiting job that fits, in queue order."""
    from clustersched.batch import Policy

    class FirstFit(Policy):
        name = "first-fit"

        def schedule(self, state):
            for job in state.queue():
                if state.width[job] <= state.free:
                    state.start(job)

    return FirstFit()


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative", "sjf", "dpsa-p", "dpsa-n", "dpsa-w", "python"])
@pytest.mark.parametrize("procs", [MAX_PROCS, np.int64(MAX_PROCS), np.uint32(MAX_PROCS)])
def test_largest_machine_runs_a_job_as_wide_as_it(policy: str, procs: int) -> None:
    # The core's waiting queue took a width of 2**32 - 1 for an empty slot and lost
    # that job: simulate then failed with a raw IndexError.
    from clustersched import simulate

    table = JobTable({"submit": [0, 1, 1], "runtime": [5, 5, 2], "procs": [MAX_PROCS, 1, MAX_PROCS - 1]})
    result = simulate(table, _first_fit() if policy == "python" else policy, procs=procs, validate=True)
    assert result.schedule.start.tolist() == [0.0, 5.0, 5.0]
    assert result.schedule.total_procs == MAX_PROCS


@pytest.mark.parametrize("width", [MAX_PROCS, 2**32, 2**40, 2**63 - 1])
def test_largest_machine_clips_and_skips_wider_jobs(width: int) -> None:
    from clustersched import simulate

    table = JobTable({"submit": [0, 1, 1], "runtime": [5, 5, 2], "procs": [width, 1, 1]})
    clipped = simulate(table, "easy", procs=MAX_PROCS, oversized="clip", validate=True)
    assert clipped.schedule.start.tolist() == [0.0, 5.0, 5.0]
    assert clipped.jobs.width().tolist() == [MAX_PROCS, 1, 1]
    skipped = simulate(table, "easy", procs=MAX_PROCS, oversized="skip", validate=True)
    wider = width > MAX_PROCS
    assert skipped.schedule.start.tolist() == ([1.0, 1.0] if wider else [0.0, 5.0, 5.0])
    assert [d.reason for d in clipped.dropped + skipped.dropped] == (
        ["clipped to machine size", "wider than machine"] if wider else []
    )


class _Probe:
    """A Python policy that makes one call on the state at the first decision and records the outcome."""

    def __init__(self, call):
        from clustersched.batch import Policy

        probe = self

        class P(Policy):
            name = "probe"

            def schedule(self, state):
                if probe.outcome is None:
                    try:
                        probe.outcome = call(state)
                    except BaseException as e:  # noqa: BLE001 - the test inspects it
                        probe.outcome = e
                for job in state.queue():
                    if state.width[job] <= state.free:
                        state.start(job)

        self.policy = P()
        self.outcome = None


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda s: s.start(-1), "InfeasibleError", r"^row -1: cannot start at time 0: it does not exist$"),
        (lambda s: s.start(3), "InfeasibleError", r"^row 3: cannot start at time 0: it does not exist$"),
        (lambda s: s.start(2**70), "InfeasibleError", r"it does not exist"),
        (
            lambda s: s.start(1),
            "InfeasibleError",
            r"^job \d+ \(row 1\): cannot start at time 0: it has not been submitted",
        ),
        (lambda s: s.start(0.0), "TypeError", r"job == 0.0, must be a row index"),
        (lambda s: s.start(True), "TypeError", r"job == True, must be a row index"),
        (lambda s: s.shadow(0), "ValueError", r"need == 0, must be >= 1"),
        (lambda s: s.shadow(-3), "ValueError", r"need == -3, must be >= 1"),
        (lambda s: s.shadow(3), "ValueError", r"need == 3, must be <= 2"),
        (lambda s: s.shadow(1.5), "TypeError", r"need == 1.5, must be an integer"),
    ],
)
def test_batch_state_arguments(call, error: str, message: str) -> None:
    import re

    from clustersched import simulate

    probe = _Probe(call)
    simulate(small_table(), probe.policy)
    assert type(probe.outcome).__name__ == error and re.search(message, str(probe.outcome)), probe.outcome


def test_batch_state_shadow_in_range() -> None:
    from clustersched import simulate

    probe = _Probe(lambda s: s.shadow(2))
    simulate(small_table(), probe.policy)
    assert probe.outcome == (0.0, 0)  # nothing runs yet: 2 free now, none extra


# -- PTG files ------------------------------------------------------------------------------------


def _ptg_payload() -> dict:
    import json

    from clustersched.workload.ptg_generators import fft_ptg

    ptgs = [fft_ptg(2, seed=0), fft_ptg(2, seed=1)]
    ptgs[1].name = "second"
    return json.loads(json.dumps({"format": "clustersched.ptgs", "version": 1, "ptgs": [p.to_dict() for p in ptgs]}))


def _set(path: list, value: object, *, delete: bool = False):
    def change(payload: dict) -> None:
        target = payload
        for key in path[:-1]:
            target = target[key]
        if delete:
            del target[path[-1]]
        else:
            target[path[-1]] = value

    return change


def _dup_first_node(payload: dict) -> None:
    nodes = payload["ptgs"][1]["nodes"]
    nodes.append(dict(nodes[0], work=1.0))


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        (_set(["ptgs"], None), "ptgs", r": 'ptgs' is null, must be a list of PTGs"),
        (_set(["ptgs"], None, delete=True), "ptgs", r": no 'ptgs' key, must be a list of PTGs"),
        (
            _set(["ptgs", 1, "nodes", 0, "id"], None),
            "id",
            r": PTG #1: PTG 'second': nodes\[0\]: id == None, must be a string, an integer or a finite number",
        ),
        (_set(["ptgs", 1, "nodes", 0, "id"], True), "id", r"PTG #1: PTG 'second': nodes\[0\]: id == True"),
        (
            _set(["ptgs", 1, "nodes", 2, "work"], 10**400),
            None,
            r": PTG #1: PTG 'second': task '.*': work == 1000000.*\(401 characters\), must be finite",
        ),
        (_dup_first_node, "id", r": PTG #1: PTG 'second': nodes\[\d+\]: id '.*' repeats nodes\[0\]"),
        (
            _set(["ptgs", 1, "edges"], None, delete=True),
            "edges",
            r": PTG #1: PTG 'second': no 'edges' list \(write \[\] for a PTG of independent tasks\)",
        ),
        (_set(["ptgs", 0, "multigraph"], True), "multigraph", r": PTG #0: .*multigraph == True, must be false"),
        (_set(["ptgs", 0, "directed"], False), "directed", r": PTG #0: .*directed == False, must be true"),
        (
            _set(["ptgs", 0, "edges", 0, "target"], "nowhere"),
            "target",
            r": PTG #0: .*edges\[0\].target == 'nowhere' is not the id of a node",
        ),
        (
            _set(["ptgs", 0, "nodes"], {"a": 1}),
            "nodes",
            r": PTG #0: PTG 'fft-2-mixed': 'nodes' is an object, must be a list",
        ),
    ],
)
def test_bad_ptg_files(tmp_path: Path, change, field: str | None, message: str) -> None:
    import json

    from clustersched.workload.ptg import read_ptgs

    payload = _ptg_payload()
    change(payload)
    path = tmp_path / "ptgs.json"
    path.write_text(json.dumps(payload))
    with pytest.raises(InvalidWorkloadError, match=message) as err:
        read_ptgs(path)
    assert str(err.value).startswith(str(path)) and err.value.path == str(path)
    assert err.value.field == field


def test_binary_and_broken_ptg_files(tmp_path: Path) -> None:
    from clustersched.workload.ptg import read_ptgs

    path = tmp_path / "junk.json"
    path.write_bytes(bytes(range(256)))
    with pytest.raises(InvalidWorkloadError, match=r"junk.json:2: not UTF-8 text \(byte 0x80 at offset 128\)"):
        read_ptgs(path)
    path.write_bytes(b"\x1f\x8b" + b"not deflate" * 5)
    with pytest.raises(InvalidWorkloadError, match="junk.json: gzip data is truncated or corrupt"):
        read_ptgs(path)
    path.write_text("[" * 100_000)
    with pytest.raises(InvalidWorkloadError, match="junk.json: not JSON"):
        read_ptgs(path)
    with pytest.raises(TypeError, match=r"path == 3, must be a file name"):
        read_ptgs(3)  # type: ignore[arg-type]


def test_ptg_file_with_bom_and_empty_edges_is_accepted(tmp_path: Path) -> None:
    import json

    from clustersched.workload.ptg import read_ptgs

    payload = _ptg_payload()
    payload["ptgs"][0]["edges"] = []  # stated explicitly: independent tasks
    path = tmp_path / "ok.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(payload).encode())
    first, second = read_ptgs(path)
    assert first.num_real_tasks == len(payload["ptgs"][0]["nodes"]) and second.name == "second"


@pytest.mark.parametrize("strategy", ["NDAGS", "WORK", "WIDTH"])
def test_tiny_speed_cluster_is_a_typed_error(strategy: str) -> None:
    from clustersched.platform import Cluster
    from clustersched.ptg import cra_budgets, cra_work, selfish
    from clustersched.workload.ptg_generators import fft_ptg

    ptgs = [fft_ptg(2, seed=0), fft_ptg(4, seed=1)]
    slow = Cluster("slow", 8, 1e-300)
    for run in (lambda: cra_budgets(ptgs, slow, strategy), lambda: cra_work(ptgs, slow), lambda: selfish(ptgs, slow)):
        with pytest.raises(
            InvalidWorkloadError,
            match=r"PTG 0: named 'fft-2-.*', task '.*': work .* flop on one "
            r"processor of cluster 'slow' \(1e-300 flop/s\) takes longer than float64 can count",
        ):
            run()


def test_cra_budgets_survive_huge_sums() -> None:
    import networkx as nx

    from clustersched.platform import Cluster
    from clustersched.ptg import cra_budgets
    from clustersched.workload.ptg import PTG

    g = nx.DiGraph()
    g.add_nodes_from(["a", "b"], work=1e308)  # each time finite, their sum is not
    h = nx.DiGraph()
    h.add_node("x", work=1e308)
    budgets = cra_budgets([PTG.from_networkx(g), PTG.from_networkx(h)], Cluster("c", 12, 1.0), "WORK")
    assert budgets.tolist() == [6, 5]  # shares 1/4 + 2/6 and 1/4 + 1/6 of 12, rounded down


@pytest.mark.parametrize(
    ("durations", "message"),
    [
        ([1.0, 2.0], r"durations has shape \(2,\), must be \(4,\)"),
        ([[1.0, 2.0, 3.0, 4.0]], r"durations has shape \(1, 4\), must be \(4,\)"),
        (5.0, r"durations has shape \(\), must be \(4,\)"),
        ([1.0, -1.0, 2.0, 0.0], r"durations\[1\] == -1, must be >= 0 \(seconds\)"),
        ([1.0, 2.0, 3.0, np.nan], r"durations\[3\] == NaN, must be >= 0 \(seconds\)"),
        ([-np.inf, 2.0, 3.0, 4.0], r"durations\[0\] == -inf, must be >= 0 \(seconds\)"),
    ],
)
def test_ptg_bottom_levels_durations(durations: object, message: str) -> None:
    import networkx as nx

    from clustersched.workload.ptg import PTG

    g = nx.DiGraph([("a", "b"), ("a", "c")])
    nx.set_node_attributes(g, 1.0, "work")
    with pytest.raises(ValueError, match=message):
        PTG.from_networkx(g).bottom_levels(durations)


# -- SWF mutation fuzzing -------------------------------------------------------------------------

_WEIRD_TOKENS = [
    "1e400",
    "99999999999999999999999",
    "1e300",
    "-5",
    "-1",
    "nan",
    "inf",
    "-inf",
    "1e10",
    "-2e10",
    "0x10",
    "1.5",
    "2.",
    ".5",
    "+3",
    "1e",
    "--1",
    "٣",
    "\x00",
    "½",
    "9" * 30,
    "-0",
    "1_000",
    "",
    "240 (comment)",
]


def _slice_of_real_trace(lines: int = 50) -> bytes:
    """The first ``lines`` lines of the bundled HPC2N week (its header and first jobs)."""
    text = gzip.decompress(BUNDLED.read_bytes())
    return b"".join(text.splitlines(keepends=True)[:lines])


def _mutate(data: bytes, rng: np.random.Generator) -> tuple[bytes, bool]:
    """One random corruption of an SWF file's bytes; the flag asks for gzip compression of the result."""
    lines = data.split(b"\n")
    kind = int(rng.integers(12))
    if kind == 0 and data:  # flip a byte
        i = int(rng.integers(len(data)))
        data = data[:i] + bytes([int(rng.integers(256))]) + data[i + 1 :]
    elif kind == 1:  # insert random bytes
        i = int(rng.integers(len(data) + 1))
        data = data[:i] + rng.bytes(int(rng.integers(1, 8))) + data[i:]
    elif kind == 2:  # truncate
        data = data[: int(rng.integers(len(data) + 1))]
    elif kind in (3, 4):  # delete a field, or replace it by an odd token
        k = int(rng.integers(len(lines)))
        fields = lines[k].split()
        if fields:
            j = int(rng.integers(len(fields)))
            if kind == 3:
                del fields[j]
            else:
                fields[j] = _WEIRD_TOKENS[int(rng.integers(len(_WEIRD_TOKENS)))].encode()
            lines[k] = b" ".join(fields)
        data = b"\n".join(lines)
    elif kind == 5:  # byte order mark
        data = b"\xef\xbb\xbf" + data
    elif kind == 6:  # CR or CR LF line ends
        data = data.replace(b"\n", b"\r" if rng.random() < 0.5 else b"\r\n")
    elif kind == 7:  # a duplicated line (a repeated job number, or a repeated header)
        k = int(rng.integers(len(lines)))
        lines.insert(int(rng.integers(len(lines) + 1)), lines[k])
        data = b"\n".join(lines)
    elif kind == 8:  # a machine-size header with an odd value
        value = _WEIRD_TOKENS[int(rng.integers(len(_WEIRD_TOKENS)))].encode()
        key = b"MaxProcs" if rng.random() < 0.7 else b"MaxNodes"
        data = b"; " + key + b": " + value + b"\n" + data
    elif kind == 9:  # swap two lines
        a, b = (int(x) for x in rng.integers(len(lines), size=2))
        lines[a], lines[b] = lines[b], lines[a]
        data = b"\n".join(lines)
    elif kind == 10:  # a blank or comment-only line in the middle
        lines.insert(int(rng.integers(len(lines) + 1)), b"   " if rng.random() < 0.5 else b";")
        data = b"\n".join(lines)
    else:  # compressed, then maybe damaged
        return data, True
    return data, False


def _damage_gzip(data: bytes, rng: np.random.Generator) -> bytes:
    packed = gzip.compress(data, mtime=0)
    roll = rng.random()
    if roll < 0.3:
        return packed[: int(rng.integers(len(packed) + 1))]
    if roll < 0.6:
        i = int(rng.integers(len(packed)))
        return packed[:i] + bytes([packed[i] ^ (1 + int(rng.integers(255)))]) + packed[i + 1 :]
    return packed


def mutated_slices(seed: int, count: int) -> Iterator[bytes]:
    """``count`` corrupted variants of a real trace slice: one to three mutations each, the gzip damaged when
    one of them compressed it (the SWF mutation corpus, also read by tests/test_swf_rust.py)."""
    rng = np.random.default_rng(seed)
    original = _slice_of_real_trace()
    for _ in range(count):
        data, packed = original, False
        for _ in range(int(rng.integers(1, 4))):
            data, want_gzip = _mutate(data, rng)
            packed = packed or want_gzip
        yield _damage_gzip(data, rng) if packed else data


def test_swf_mutation_fuzz(tmp_path: Path) -> None:
    """Corrupted variants of a real trace slice: a valid table or an InvalidWorkloadError, nothing else."""
    outcomes = {"table": 0, "error": 0}
    for n, data in enumerate(mutated_slices(20240518, 400)):
        path = tmp_path / f"m{n}.swf"
        path.write_bytes(data)
        for mode in ("raise", "skip"):
            try:
                table = read_swf(path, on_invalid=mode)
            except InvalidWorkloadError as e:  # also a ClusterschedError and a ValueError
                assert isinstance(e, ClusterschedError) and e.path == str(path) and str(e).startswith(str(path)), e
                outcomes["error"] += 1
                continue
            except Exception as e:  # pragma: no cover - the failure this test looks for
                pytest.fail(f"variant {n} ({mode}): {type(e).__name__}: {e}\n{data[:300]!r}")
            assert len(table) >= 1 and all(len(getattr(table, c)) == len(table) for c in table)
            assert table.max_procs is None or 1 <= table.max_procs <= 2**32 - 1
            assert len(set(table.job_id[table.job_id != -1].tolist())) == int((table.job_id != -1).sum())
            back = read_swf(write_swf(table, tmp_path / "back.swf"))  # what was read can be written back
            assert back.equals(table)
            outcomes["table"] += 1
    # The corpus exercises both outcomes (it would prove little otherwise).
    assert outcomes["table"] > 100 and outcomes["error"] > 100, outcomes
