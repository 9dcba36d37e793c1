"""Campaigns: grids, the SQLite store, resuming after errors and crashes, and local vs Dask executors."""

from __future__ import annotations

import json
import math
import re
import sys
from concurrent.futures.process import BrokenProcessPool
from functools import partial

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from clustersched.campaign import RESERVED, Store, grid, run_campaign, scenario_key

from campaign_funcs import clashing, compute, computed, not_a_dict, record

SCENARIOS = grid(policy=["fcfs", "easy"], x=range(6))
ALL = sorted(f"{s['policy']}-{s['x']}" for s in SCENARIOS)
TIMING = ("seconds", "finished_at")


def stable(rows):
    """Rows without the fields that depend on when and where a scenario ran."""
    return [{k: v for k, v in row.items() if k not in TIMING} for row in rows]


def fresh(scenarios=SCENARIOS):
    """What an uninterrupted campaign returns, from an empty store."""
    with Store(":memory:") as store:
        return stable(run_campaign("c", scenarios, compute, store=store, workers=1, progress=False))


# ---------------------------------------------------------------- scenarios


def test_grid_order_is_keyword_order_last_axis_fastest():
    assert grid(b=[1, 2], a=("x", "y", "z")) == [
        {"b": 1, "a": "x"},
        {"b": 1, "a": "y"},
        {"b": 1, "a": "z"},
        {"b": 2, "a": "x"},
        {"b": 2, "a": "y"},
        {"b": 2, "a": "z"},
    ]
    assert [list(s) for s in grid(b=[1], a=[2])] == [["b", "a"]]
    assert grid() == [{}]


@given(st.lists(st.integers(1, 4), min_size=1, max_size=4))
def test_grid_index_is_mixed_radix(sizes):
    axes = {f"a{i}": list(range(n)) for i, n in enumerate(sizes)}
    scenarios = grid(**axes)
    assert len(scenarios) == math.prod(sizes)
    for index, scenario in enumerate(scenarios):
        # the scenario's values, read as digits with the last axis least significant, give its index
        assert index == sum(v * math.prod(sizes[i + 1 :]) for i, v in enumerate(scenario.values()))


@pytest.mark.parametrize(
    "axis, error, match",
    [
        ("easy", TypeError, r"grid axis policy == 'easy', must be an ordered collection"),
        ({"easy", "fcfs"}, TypeError, r"grid axis policy == .*wrap a single value in a list"),
        (3, TypeError, r"grid axis policy == 3"),
        ([], ValueError, r"grid axis policy == \[\], must have at least one value"),
    ],
)
def test_grid_refuses_bad_axes(axis, error, match):
    with pytest.raises(error, match=match):
        grid(x=[1], policy=axis)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=8,
)
params = st.dictionaries(st.text(max_size=6).filter(lambda k: k not in RESERVED), json_values, max_size=5)


@given(params, st.randoms())
def test_scenario_key_is_canonical(scenario, random):
    key = scenario_key(scenario)
    shuffled = list(scenario.items())
    random.shuffle(shuffled)
    assert scenario_key(dict(shuffled)) == key
    assert json.loads(key) == scenario


def test_scenario_key_converts_numpy_scalars():
    assert (
        scenario_key({"x": np.int64(3), "p": np.float64(0.5), "ok": np.bool_(True)})
        == scenario_key({"x": 3, "p": 0.5, "ok": True})
        == '{"ok":true,"p":0.5,"x":3}'
    )


@pytest.mark.parametrize(
    "scenario, error, match",
    [
        ([("x", 1)], TypeError, r"scenario == \[\('x', 1\)\], must be a dict"),
        ({1: "a"}, TypeError, r"parameter names must be str, not int"),
        ({"status": "ok"}, ValueError, r"parameter 'status' is reserved"),
        ({"x": {1, 2}}, TypeError, r"scenario == \{'x': \{1, 2\}\} is not JSON-serializable: set"),
    ],
)
def test_scenario_key_refuses_bad_scenarios(scenario, error, match):
    with pytest.raises(error, match=match):
        scenario_key(scenario)


# ---------------------------------------------------------------- store


@given(params, st.dictionaries(st.sampled_from("ABCDEF"), json_values, max_size=4))
def test_store_round_trip(scenario, result):
    assume(not set(result) & set(scenario))
    with Store(":memory:") as store:
        store.put("c", scenario, result=result, seconds=1.5)
        (row,) = store.results("c")
    assert {k: row[k] for k in scenario} == scenario
    assert {k: row[k] for k in result} == result
    assert (row["status"], row["error"], row["traceback"], row["seconds"]) == ("ok", None, None, 1.5)
    assert list(row) == [*scenario, *result, *RESERVED]


def test_store_persists_and_tables_are_dataframe_ready(tmp_path):
    path = tmp_path / "results.sqlite"
    with Store(path) as store:
        store.put("c", {"policy": "fcfs", "x": 1}, result={"wait": np.float64(2.5), "n": np.int32(7)})
        store.put("c", {"policy": "easy", "x": 1}, error="ValueError: boom", traceback="Traceback ...")
        store.put("other", {"policy": "easy", "x": 1}, result={"wait": 0.0})
    with Store(path) as store:
        assert store.done("c") == {'{"policy":"fcfs","x":1}'}
        assert store.done("c", errors=True) == {'{"policy":"fcfs","x":1}', '{"policy":"easy","x":1}'}
        columns = store.columns("c")
        # sorted by key: easy before fcfs
        assert columns["policy"] == ["easy", "fcfs"]
        assert columns["wait"] == [None, 2.5] and type(columns["n"][1]) is int
        assert columns["status"] == ["error", "ok"]
        assert columns["error"] == ["ValueError: boom", None]
        assert all(len(values) == 2 for values in columns.values())
        assert store.results("c", [{"x": 1, "policy": "fcfs"}])[0]["wait"] == 2.5
        with pytest.raises(KeyError, match=r"scenarios\[0\] == \{'x': 2\} is not stored in campaign 'c'"):
            store.results("c", [{"x": 2}])
        assert store.results("nothing") == []


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({}, ValueError, r"result == None and error == None: give exactly one of them"),
        ({"result": {}, "error": "e"}, ValueError, r"give exactly one of them"),
        ({"result": {"x": 2}}, ValueError, r"result field 'x' clashes with a scenario parameter"),
        ({"result": {"seconds": 2}}, ValueError, r"result field 'seconds' clashes"),
        ({"result": {"y": object}}, TypeError, r"result == .* is not JSON-serializable"),
        ({"result": [1]}, TypeError, r"result == \[1\], must be a dict"),
    ],
)
def test_store_put_refuses_bad_outcomes(kwargs, error, match):
    with Store(":memory:") as store:
        with pytest.raises(error, match=match):
            store.put("c", {"x": 1}, **kwargs)
        assert store.results("c") == []


# ---------------------------------------------------------------- running


def test_errors_are_recorded_and_do_not_stop_the_others(tmp_path):
    func = partial(record, calls=str(tmp_path), error_at={2})
    with Store(":memory:") as store:
        rows = run_campaign("c", SCENARIOS, func, store=store, workers=1, progress=False)
    assert computed(tmp_path) == ALL
    failed = [row for row in rows if row["status"] == "error"]
    assert [(row["policy"], row["x"]) for row in failed] == [("fcfs", 2), ("easy", 2)]
    for row in failed:
        assert row["error"] == "ValueError: x == 2 is unlucky"
        assert "in record" in row["traceback"] and row["traceback"].endswith("ValueError: x == 2 is unlucky\n")
        assert "square" not in row
    ok = [row for row in rows if row["status"] == "ok"]
    assert len(ok) == 10 and all(row["square"] == row["x"] ** 2 and row["error"] is None for row in ok)
    # numpy scalars came back as plain Python values
    assert {type(ok[0][k]) for k in ("square", "draw", "even")} == {int, float, bool}


@pytest.mark.parametrize(
    "func, message",
    [
        (not_a_dict, r"TypeError: result == \[1\], must be a dict"),
        (clashing, r"ValueError: result field 'x' clashes"),
    ],
)
def test_bad_results_are_recorded_as_errors(func, message):
    with Store(":memory:") as store:
        (row,) = run_campaign("c", [{"x": 1}], func, store=store, workers=1, progress=False)
    assert row["status"] == "error"
    assert re.match(message, row["error"])


def test_resume_after_errors_and_an_interrupt_computes_only_what_is_missing(tmp_path):
    with Store(tmp_path / "store.sqlite") as store:
        # fcfs-2 fails, then a Ctrl-C arrives while computing fcfs-5
        flaky = partial(record, calls=str(tmp_path / "calls"), error_at={2}, interrupt_at={5})
        (tmp_path / "calls").mkdir()
        with pytest.raises(KeyboardInterrupt):
            run_campaign("c", SCENARIOS, flaky, store=store, workers=1, progress=False)
        assert computed(tmp_path / "calls") == ["fcfs-0", "fcfs-1", "fcfs-2", "fcfs-3", "fcfs-4", "fcfs-5"]
        assert len(store.done("c")) == 4 and len(store.done("c", errors=True)) == 5

        healthy = partial(record, calls=str(tmp_path / "calls"))
        rows = run_campaign("c", SCENARIOS, healthy, store=store, workers=1, progress=False)
        # the failed scenario and the ones never stored, each once
        assert computed(tmp_path / "calls") == sorted(["fcfs-2", "fcfs-5", *(f"easy-{x}" for x in range(6))])
        assert stable(rows) == fresh()

        # everything stored: nothing to compute, the same rows
        assert stable(run_campaign("c", SCENARIOS, healthy, store=store, workers=1, progress=False)) == fresh()
        assert computed(tmp_path / "calls") == []


def test_resume_after_a_worker_crash(tmp_path):
    calls = tmp_path / "calls"
    calls.mkdir()
    with Store(tmp_path / "store.sqlite") as store:
        with pytest.raises(BrokenProcessPool):
            run_campaign(
                "c", SCENARIOS, partial(record, calls=str(calls), exit_at={4}), store=store, workers=2, progress=False
            )
        stored = {f"{s['policy']}-{s['x']}" for s in map(json.loads, store.done("c"))}
        assert "fcfs-4" not in stored and "easy-4" not in stored
        computed(calls)

        rows = run_campaign("c", SCENARIOS, partial(record, calls=str(calls)), store=store, workers=2, progress=False)
        assert computed(calls) == sorted(set(ALL) - stored)
        assert stable(rows) == fresh()


def test_retry_errors_false_keeps_stored_errors(tmp_path):
    calls = tmp_path / "calls"
    calls.mkdir()
    with Store(":memory:") as store:
        run_campaign(
            "c", SCENARIOS, partial(record, calls=str(calls), error_at={0}), store=store, workers=1, progress=False
        )
        computed(calls)
        rows = run_campaign(
            "c",
            SCENARIOS,
            partial(record, calls=str(calls)),
            store=store,
            workers=1,
            progress=False,
            retry_errors=False,
        )
        assert computed(calls) == []
        assert [row["status"] for row in rows] == ["error", *["ok"] * 5] * 2


def test_duplicate_scenarios_are_computed_once(tmp_path):
    twice = [{"policy": "easy", "x": 1}, {"x": 1, "policy": "easy"}]
    with Store(":memory:") as store:
        rows = run_campaign("c", twice, partial(record, calls=str(tmp_path)), store=store, workers=1, progress=False)
    assert computed(tmp_path) == ["easy-1"]
    assert stable(rows) == fresh(twice) and len(rows) == 2 and rows[0] == rows[1]


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("chunk", [2, 5, 100])
def test_chunks_give_the_same_rows_and_errors_per_scenario(tmp_path, workers, chunk):
    calls = tmp_path / "calls"
    calls.mkdir()
    with Store(tmp_path / "store.sqlite") as store:
        rows = run_campaign(
            "c",
            SCENARIOS,
            partial(record, calls=str(calls), error_at={2}),
            store=store,
            workers=workers,
            progress=False,
            chunk=chunk,
        )
        assert computed(calls) == ALL
        # one row per scenario, each with its own status, in the given order
        assert [(r["policy"], r["x"]) for r in rows] == [(s["policy"], s["x"]) for s in SCENARIOS]
        assert [r["status"] for r in rows] == (["ok"] * 2 + ["error"] + ["ok"] * 3) * 2
        assert all(r["error"] == "ValueError: x == 2 is unlucky" for r in rows if r["status"] == "error")
        ok = [r for r in stable(rows) if r["status"] == "ok"]
        assert ok == [r for r in fresh() if r["x"] != 2]
        # resuming retries the two errors only, whatever the chunk
        rows = run_campaign(
            "c", SCENARIOS, partial(record, calls=str(calls)), store=store, workers=workers, progress=False, chunk=chunk
        )
        assert computed(calls) == ["easy-2", "fcfs-2"]
        assert stable(rows) == fresh()


def test_a_crashed_chunk_is_not_stored_and_the_others_resume(tmp_path):
    calls = tmp_path / "calls"
    calls.mkdir()
    with Store(tmp_path / "store.sqlite") as store:
        with pytest.raises(BrokenProcessPool):
            run_campaign(
                "c",
                SCENARIOS,
                partial(record, calls=str(calls), exit_at={4}),
                store=store,
                workers=2,
                progress=False,
                chunk=3,
            )
        stored = {f"{s['policy']}-{s['x']}" for s in map(json.loads, store.done("c"))}
        # fcfs-4 crashed its chunk (fcfs-3, fcfs-4, fcfs-5): none of the three was stored
        assert not stored & {"fcfs-3", "fcfs-4", "fcfs-5"}
        computed(calls)
        rows = run_campaign(
            "c", SCENARIOS, partial(record, calls=str(calls)), store=store, workers=2, progress=False, chunk=3
        )
        assert computed(calls) == sorted(set(ALL) - stored)
        assert stable(rows) == fresh()


def test_an_interrupt_inside_a_chunk_keeps_the_chunks_before(tmp_path):
    calls = tmp_path / "calls"
    calls.mkdir()
    with Store(tmp_path / "store.sqlite") as store:
        with pytest.raises(KeyboardInterrupt):
            run_campaign(
                "c",
                SCENARIOS,
                partial(record, calls=str(calls), interrupt_at={4}),
                store=store,
                workers=1,
                progress=False,
                chunk=3,
            )
        # chunk fcfs-0..2 stored; chunk fcfs-3..5 interrupted at fcfs-4: nothing of it stored
        assert {f"{s['policy']}-{s['x']}" for s in map(json.loads, store.done("c"))} == {"fcfs-0", "fcfs-1", "fcfs-2"}


def test_put_many_stores_all_or_nothing():
    with Store(":memory:") as store:
        store.put_many("c", [({"x": 1}, {"result": {"y": 1}, "seconds": 0.5}), ({"x": 2}, {"error": "E: e"})])
        assert [(r["x"], r["status"], r.get("y"), r["seconds"]) for r in store.results("c")] == [
            (1, "ok", 1, 0.5),
            (2, "error", None, 0.0),
        ]
        with pytest.raises(ValueError, match="exactly one"):
            store.put_many("c", [({"x": 3}, {"result": {"y": 3}}), ({"x": 4}, {})])
        with pytest.raises(TypeError, match="not JSON-serializable"):
            store.put_many("c", [({"x": 3}, {"result": {"y": 3}}), ({"x": 5}, {"result": {"y": object()}})])
        assert len(store.results("c")) == 2
        store.put_many("c", [])
        assert len(store.results("c")) == 2


def test_local_pool_and_dask_give_the_same_rows(tmp_path):
    distributed = pytest.importorskip("distributed")
    func = partial(record, calls=str(tmp_path), error_at={3})
    expected = None
    # in-process and without a dashboard: no port to bind, nothing to warn about
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None)
    with cluster:
        with distributed.Client(cluster, set_as_default=False) as client:
            for how in [{"workers": 1}, {"workers": 2}, {"dask": client}, {"dask": cluster.scheduler_address}]:
                with Store(":memory:") as store:
                    rows = stable(run_campaign("c", SCENARIOS, func, store=store, progress=False, **how))
                assert computed(tmp_path) == ALL, how
                expected = expected or rows
                assert rows == expected, how
    assert [row["status"] for row in expected].count("error") == 2
    assert expected == [row if row["status"] == "error" else fresh_row for row, fresh_row in zip(expected, fresh())]


def test_progress_bar_counts_the_scenarios_to_compute(capsys, monkeypatch):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)  # a bar shows on a terminal only
    with Store(":memory:") as store:
        run_campaign("demo", SCENARIOS[:3], compute, store=store, workers=1)
        run_campaign("demo", SCENARIOS[:5], compute, store=store, workers=1)
    err = capsys.readouterr().err
    assert "demo: 100%" in err and "3/3" in err and "2/2" in err and "5/5" not in err


def test_no_progress_bar_into_a_redirected_stream(capsys):
    """Issue 30: capsys's stderr is not a terminal, as a file or a pipe is not."""
    with Store(":memory:") as store:
        run_campaign("demo", SCENARIOS[:3], compute, store=store, workers=1)
    assert "demo" not in capsys.readouterr().err


def test_bad_arguments():
    with Store(":memory:") as store:
        run = partial(run_campaign, "c", SCENARIOS, compute, store=store, progress=False)
        with pytest.raises(ValueError, match=r"workers == 0, must be >= 1"):
            run(workers=0)
        with pytest.raises(TypeError, match=r"workers == 2.0, must be an int"):
            run(workers=2.0)
        with pytest.raises(ValueError, match=r"workers == 2 with dask"):
            run(workers=2, dask="tcp://localhost:8786")
        with pytest.raises(TypeError, match=r"dask == 8786, must be a scheduler address"):
            run(dask=8786)
        with pytest.raises(ValueError, match=r"name == '', must be a non-empty str"):
            run_campaign("", SCENARIOS, compute, store=store)
        with pytest.raises(TypeError, match=r"name == None, must be a str"):
            run_campaign(None, SCENARIOS, compute, store=store)
        with pytest.raises(TypeError, match=r"func == 'compute', must be callable"):
            run_campaign("c", SCENARIOS, "compute", store=store)
        with pytest.raises(TypeError, match=r"store == 'x.sqlite', must be a clustersched.campaign.Store"):
            run_campaign("c", SCENARIOS, compute, store="x.sqlite")
        with pytest.raises(TypeError, match=r"scenarios\[1\] == \{'x': \(1\+2j\)\} is not JSON-serializable"):
            run_campaign("c", [{"x": 1}, {"x": 1 + 2j}], compute, store=store)
        with pytest.raises(TypeError, match=r"cannot be sent to worker processes .* or pass workers=1"):
            run_campaign("c", SCENARIOS, lambda s: {}, store=store, workers=2)
        with pytest.raises(ValueError, match=r"chunk == 0, must be >= 1"):
            run_campaign("c", SCENARIOS, compute, store=store, chunk=0)
        with pytest.raises(TypeError, match=r"chunk == 2.0, must be an int"):
            run_campaign("c", SCENARIOS, compute, store=store, chunk=2.0)
        # nothing was computed by the refused calls
        assert store.results("c") == []


def test_missing_dask_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    with Store(":memory:") as store, pytest.raises(ImportError, match=r'pip install "clustersched\[dask\]"'):
        run_campaign("c", SCENARIOS, compute, store=store, dask="tcp://localhost:8786")
