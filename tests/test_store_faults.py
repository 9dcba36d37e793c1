"""A results store that is damaged or foreign, a full disk, and output files written whole or not at all (issue 31).

Before: a damaged ``campaign.sqlite`` (junk, truncated, a zeroed page, another
schema) ended ``clustersched sweep`` and ``clustersched reproduce`` with a
traceback of ``sqlite3.DatabaseError``/``OperationalError`` and status 1; a full
disk with ``sqlite3.OperationalError``; a full disk under ``simulate --out`` with
"No space left on device", naming no file, and half a file left behind; and
``campaign.to_pandas([1])`` with a TypeError of the loop inside.  Now: one line
naming the file and what is wrong, status 2, the damaged file byte for byte as
it was, and no partial output.

The full disk is simulated without mounting anything: ``/dev/full``, the file
size limit of a subprocess (``RLIMIT_FSIZE``, SIGXFSZ ignored: writes fail with
EFBIG), and an SQLite database capped by ``PRAGMA max_page_count`` (a genuine
``SQLITE_FULL``).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from clustersched._output import atomic_open
from clustersched.campaign import Store, run_campaign, to_pandas
from clustersched.campaign import store as store_module
from clustersched.errors import ClusterschedError, StoreError

from support import run_cli

BUNDLED = Path(__file__).resolve().parents[1] / "python" / "clustersched" / "data" / "hpc2n-2002-week.swf.gz"

#: A small sweep: a few seconds at most, its store opened before any scenario is computed.
SWEEP = [
    "sweep",
    "lublin",
    "--jobs",
    "200",
    "--loads",
    "0.5,0.9",
    "--policies",
    "easy",
    "--workers",
    "1",
    "--no-progress",
    "--out",
]


def _good_store(path: Path, rows: int = 300) -> bytes:
    """A store of several pages (a zeroed page in its middle hits data, not just the schema); its bytes."""
    with Store(path) as store:
        store.put_many("c", [({"x": i}, {"result": {"y": "v" * 40, "i": i}}) for i in range(rows)])
    data = path.read_bytes()
    assert len(data) >= 8 * 4096
    return data


def _sqlite_file(path: Path, *statements: str) -> None:
    db = sqlite3.connect(path)
    for statement in statements:
        db.execute(statement)
    db.commit()
    db.close()


def _damage(kind: str, path: Path, good: bytes) -> str:
    """Writes the damaged store ``kind`` at ``path``; returns the words its error must contain."""
    half = len(good) // 2
    if kind == "junk":
        path.write_bytes(b"this is not an SQLite database\n" * 200)
        return "is not an SQLite database"
    if kind == "zeroed-header":
        path.write_bytes(bytes(100) + good[100:])
        return "is not an SQLite database"
    if kind == "truncated":
        path.write_bytes(good[: half + 1000])
        return "is a damaged SQLite database"
    if kind == "zeroed-page":
        page = 4096 * (len(good) // 4096 // 2)
        path.write_bytes(good[:page] + bytes(4096) + good[page + 4096 :])
        return "is a damaged SQLite database"
    if kind == "foreign-schema":
        _sqlite_file(path, "CREATE TABLE results (a INTEGER, b TEXT)", "INSERT INTO results VALUES (1, 'x')")
        return "not a results store (table results has columns (a, b)"
    if kind == "foreign-database":
        _sqlite_file(path, "CREATE TABLE jobs (id INTEGER PRIMARY KEY, name TEXT)", "INSERT INTO jobs VALUES (1, 'a')")
        return "not a results store (tables: jobs"
    if kind == "foreign-application":
        path.write_bytes(good)
        _sqlite_file(path, "PRAGMA application_id = 42")
        return "the SQLite database of another program (application id 0x2a)"
    raise AssertionError(kind)


KINDS = [
    "junk",
    "zeroed-header",
    "truncated",
    "zeroed-page",
    "foreign-schema",
    "foreign-database",
    "foreign-application",
]


@pytest.mark.parametrize("kind", KINDS)
def test_a_damaged_or_foreign_store_is_refused_and_left_as_it_is(tmp_path: Path, kind: str) -> None:
    good = _good_store(tmp_path / "good.sqlite")
    path = tmp_path / "store.sqlite"
    words = _damage(kind, path, good)
    before = path.read_bytes()
    with pytest.raises(StoreError) as info:
        Store(path)
    assert isinstance(info.value, ClusterschedError)
    assert info.value.path == str(path) and str(info.value).startswith(f"{path}: ")
    assert words in str(info.value) and "\n" not in str(info.value)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["good.sqlite", "store.sqlite"]  # no journal left


@pytest.mark.parametrize("kind", KINDS)
def test_sweep_on_a_damaged_store_says_so_on_one_line_and_exits_2(
    tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    good = _good_store(tmp_path / "good.sqlite")
    out = tmp_path / "out"
    out.mkdir()
    store = out / "campaign.sqlite"
    words = _damage(kind, store, good)
    before = store.read_bytes()
    status, _, err = run_cli([*SWEEP, str(out)], capsys)
    assert status == 2, err
    assert err.count("\n") == 1 and err.startswith(f"clustersched: error: {store}: "), err
    assert words in err
    assert store.read_bytes() == before
    assert sorted(p.name for p in out.iterdir()) == ["campaign.sqlite"]  # no table, no figure


@pytest.mark.parametrize("kind", ["junk", "zeroed-page", "foreign-schema"])
def test_reproduce_on_a_damaged_store_says_so_on_one_line_and_exits_2(
    tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    good = _good_store(tmp_path / "good.sqlite")
    traces = tmp_path / "traces"
    traces.mkdir()
    shutil.copy(BUNDLED, traces)
    out = tmp_path / "out"
    out.mkdir()
    store = out / "campaign.sqlite"
    words = _damage(kind, store, good)
    before = store.read_bytes()
    status, _, err = run_cli(
        [
            "reproduce",
            "dpsa",
            "--traces",
            str(traces),
            "--scale",
            "small",
            "--workers",
            "1",
            "--no-progress",
            "--out",
            str(out),
        ],
        capsys,
    )
    assert status == 2, err
    assert err.count("\n") == 1 and err.startswith(f"clustersched: error: {store}: ") and words in err, err
    assert store.read_bytes() == before
    assert sorted(p.name for p in out.iterdir()) == ["campaign.sqlite"]


def test_a_row_that_is_not_a_store_s_is_a_store_error(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    with Store(path) as store:
        store.put("c", {"x": 1}, result={"y": 2})
        store._db.execute("UPDATE results SET scenario = '[1, 2]'")
        with pytest.raises(
            StoreError,
            match=r"campaign 'c', scenario \{\"x\":1\}: column scenario holds \[1, 2\], "
            r"not a JSON object",
        ):
            store.results("c")


def test_an_empty_file_becomes_a_store(tmp_path: Path) -> None:
    """An empty file (touch campaign.sqlite) is an empty SQLite database: nothing to refuse."""
    path = tmp_path / "store.sqlite"
    path.touch()
    with Store(path) as store:
        store.put("c", {"x": 1}, result={"y": 2})
    with Store(path) as store:
        assert [row["y"] for row in store.results("c")] == [2]
        assert store._db.execute("PRAGMA application_id").fetchone() == (store_module.APPLICATION_ID,)


def test_an_older_store_without_an_application_id_is_still_a_store(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    _sqlite_file(
        path,
        store_module._SCHEMA,
        "INSERT INTO results VALUES ('c', '{\"x\":1}', '{\"x\":1}', 'ok', "
        "'{\"y\":2}', NULL, NULL, 0.5, '2026-01-01T00:00:00.000+00:00')",
    )
    with Store(path) as store:
        assert [row["y"] for row in store.results("c")] == [2]


# -- a full disk: SQLITE_FULL --------------------------------------------------------------------------------------


def _capped_connect(pages: int):
    connect = sqlite3.connect

    def capped(*args, **kwargs):  # type: ignore[no-untyped-def]
        db = connect(*args, **kwargs)
        db.execute(f"PRAGMA max_page_count = {pages}")
        return db

    return capped


def test_a_full_store_is_a_store_error_and_keeps_what_was_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_module.sqlite3, "connect", _capped_connect(4))
    path = tmp_path / "store.sqlite"
    with Store(path) as store:
        with pytest.raises(
            StoreError,
            match=r"cannot store a result of campaign 'c': no space left on the device, "
            r"or the file reached its size limit \(database or disk is full\)",
        ):
            for i in range(1000):
                store.put("c", {"x": i}, result={"y": "v" * 200})
        kept = len(store.done("c"))
    monkeypatch.undo()
    with Store(path) as store:
        assert len(store.done("c")) == kept > 0
        assert store._db.execute("PRAGMA quick_check").fetchone() == ("ok",)


def test_sweep_on_a_full_disk_says_so_on_one_line_and_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(store_module.sqlite3, "connect", _capped_connect(4))
    out = tmp_path / "out"
    status, _, err = run_cli([*SWEEP[:-1], "--loads", "0.5:1.2:0.05", "--replications", "3", "--out", str(out)], capsys)
    store = out / "campaign.sqlite"
    assert status == 2, err
    assert err.count("\n") == 1, err
    assert err.startswith(
        f"clustersched: error: {store}: cannot store 1 result(s) of campaign 'sweep-v1': no space left on the device"
    ), err
    assert sorted(p.name for p in out.iterdir()) == ["campaign.sqlite"]  # no results.csv of half the runs


def _limited(size: int):
    def limit() -> None:
        import resource

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write beyond the limit fails with EFBIG, not a kill
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    return limit


def _cli(argv: list[str], size: int, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The command in a subprocess whose files cannot grow beyond ``size`` bytes."""
    code = "import sys; from clustersched.cli import main; sys.exit(main())"
    return subprocess.run(
        [sys.executable, "-c", code, *argv],
        preexec_fn=_limited(size),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


posix_only = pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE and /dev/full are POSIX")


@posix_only
def test_sweep_at_the_file_size_limit_says_so_on_one_line_and_exits_2(tmp_path: Path) -> None:
    result = _cli([*SWEEP[:-1], "--loads", "0.5:1.2:0.05", "--replications", "3", "--out", "out"], 16384, tmp_path)
    store = Path("out", "campaign.sqlite")
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith(
        f"clustersched: error: {store}: cannot store 1 result(s) of campaign 'sweep-v1': a write to the disk failed"
    ), result.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["campaign.sqlite"]
    with Store(tmp_path / store) as kept:
        assert kept._db.execute("PRAGMA quick_check").fetchone() == ("ok",)


# -- a full disk: output files ---------------------------------------------------------------------------------------


@posix_only
@pytest.mark.parametrize("fmt", ["csv", "swf", "batsim"])
def test_simulate_out_at_the_file_size_limit_leaves_no_partial_file(tmp_path: Path, fmt: str) -> None:
    """Before: "clustersched: error: File too large", and the first 20000 bytes of the schedule as the file."""
    result = _cli(
        ["simulate", str(BUNDLED), "--no-progress", "--format", fmt, "--out", "schedule.out"], 20000, tmp_path
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines()[-1] == "clustersched: error: schedule.out: File too large", result.stderr
    assert not (tmp_path / "schedule.out").exists()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_simulate_out_to_a_full_device_names_it(capsys: pytest.CaptureFixture[str]) -> None:
    """Before: "clustersched: error: No space left on device", naming no file."""
    status, _, err = run_cli(["simulate", str(BUNDLED), "--no-progress", "--out", "/dev/full"], capsys)
    assert status == 2
    assert err.splitlines()[-1] == "clustersched: error: /dev/full: No space left on device", err


@posix_only
def test_lublin_out_at_the_file_size_limit_keeps_the_old_file(tmp_path: Path) -> None:
    (tmp_path / "w.swf").write_text("; an older workload\n")
    result = _cli(["lublin", "--jobs", "2000", "--out", "w.swf"], 8192, tmp_path)
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines()[-1] == "clustersched: error: w.swf: File too large", result.stderr
    assert (tmp_path / "w.swf").read_text() == "; an older workload\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.swf"]


def test_atomic_open_replaces_the_file_only_once_it_is_whole(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text("old\n")
    os.chmod(path, 0o640)
    with pytest.raises(KeyboardInterrupt):
        with atomic_open(path) as fh:
            fh.write("new, but only half of it")
            raise KeyboardInterrupt
    assert path.read_text() == "old\n" and sorted(os.listdir(tmp_path)) == ["t.csv"]
    with atomic_open(path, "w", newline="") as fh:
        fh.write("new\n")
    assert path.read_text() == "new\n" and sorted(os.listdir(tmp_path)) == ["t.csv"]
    assert (path.stat().st_mode & 0o777) == 0o640
    link = tmp_path / "link.csv"
    link.symlink_to(path)
    with atomic_open(link, "wb") as fh:
        fh.write(b"through the link\n")
    assert link.is_symlink() and path.read_text() == "through the link\n"
    with pytest.raises(ValueError, match=r"mode == 'a', must be 'w', 'wt' or 'wb'"):
        with atomic_open(path, "a"):
            pass


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_atomic_open_writes_a_device_in_place_and_names_it() -> None:
    with pytest.raises(OSError) as info:
        with atomic_open("/dev/full") as fh:
            fh.write("x" * 100_000)
    assert info.value.filename == "/dev/full" and info.value.strerror == "No space left on device"
    assert os.path.exists("/dev/full")


WRITERS = """
import json, os, resource, signal, sys
import clustersched as cs
from clustersched.batch.formats import write_schedule
from clustersched.batch.timeseries import batch_timeseries
from clustersched.campaign.study import write_csv
from clustersched.dfrs import DfrsJobs, DfrsPlatform, simulate as dfrs_simulate
from clustersched.workload.batsim import write_batsim
from clustersched.workload.ptg import write_ptgs
from clustersched.workload.ptg_generators import fft_ptg
from clustersched._output import save_figure, write_text
from matplotlib.figure import Figure

figure = Figure(figsize=(6, 4))
figure.add_subplot().plot(range(1000), [i * 7919 % 1000 for i in range(1000)])
run = cs.simulate(cs.read_swf(cs.sample_trace()), "easy")
n = 400
dfrs = dfrs_simulate(DfrsJobs(submit=list(range(n)), processing_time=[600] * n, tasks=[1] * n, cpu_need=[0.5] * n,
                              mem_need=[0.1] * n), DfrsPlatform(4), "GreedyPM */per/opt=min/minvt=600")
writers = {
    "schedule.csv": lambda p: write_schedule(run.schedule, run.jobs, p, format="csv"),
    "Schedule.to_csv.csv": lambda p: run.schedule.to_csv(p),
    "trace.swf": lambda p: cs.write_swf(run.jobs, p),
    "trace.swf.gz": lambda p: cs.write_swf(run.jobs, p),
    "workload.json": lambda p: write_batsim(run.jobs, p),
    "ptgs.json": lambda p: write_ptgs([fft_ptg(8, seed=s) for s in range(5)], p),
    "ptgs.json.gz": lambda p: write_ptgs([fft_ptg(8, seed=s) for s in range(5)], p),
    "dfrs.csv": lambda p: dfrs.schedule.to_csv(p),
    "timeseries.csv": lambda p: batch_timeseries(run.schedule).to_csv(p),
    "figure.png": lambda p: save_figure(figure, p, dpi=100),
    "report.md": lambda p: write_text(p, "| a | b |\\n" * 2000),
    "rows.csv": lambda p: write_csv([{"a": i, "b": "x" * 50} for i in range(2000)], p, ["a", "b"]),
}
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
found = {}
for name, write in writers.items():
    try:
        write(name)
        found[name] = "written"
    except OSError as exc:
        found[name] = [exc.filename, exc.strerror]
print(json.dumps(found))
"""


@posix_only
def test_every_writer_at_the_file_size_limit_names_its_file_and_leaves_none(tmp_path: Path) -> None:
    """Each writer of a file of the library, with files limited to 4 KiB: an OSError naming the file, no file."""
    result = subprocess.run([sys.executable, "-c", WRITERS], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    assert found == {name: [name, "File too large"] for name in found}
    assert list(tmp_path.iterdir()) == []


# -- to_pandas ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "rows, message",
    [
        ([1], r"rows\[0\] == 1, must be a dict of a campaign's row"),
        ([{"x": 1}, None], r"rows\[1\] == None, must be a dict"),
        (1, r"rows == 1 \(int\), must be a campaign's rows"),
        ("abc", r"rows == 'abc' \(str\), must be a campaign's rows"),
        ({"x": 1}, r"rows == \{'x': 1\} \(a single row\), must be a campaign's rows"),
        ([{1: 2}], r"rows\[0\] has the field name 1, must be a str"),
    ],
)
def test_to_pandas_refuses_what_is_not_rows(rows: object, message: str) -> None:
    pytest.importorskip("pandas")
    with pytest.raises(TypeError, match=message):
        to_pandas(rows)  # type: ignore[arg-type]


def test_to_pandas_of_a_data_frame_says_it_is_one_already() -> None:
    pd = pytest.importorskip("pandas")
    with pytest.raises(TypeError, match=r"rows == a pandas DataFrame, .* \(a DataFrame already is one\)"):
        to_pandas(pd.DataFrame({"x": [1]}))  # type: ignore[arg-type]


def test_to_pandas_still_takes_rows_of_a_campaign(tmp_path: Path) -> None:
    pytest.importorskip("pandas")
    with Store(tmp_path / "s.sqlite") as store:
        rows = run_campaign("c", [{"x": 1}, {"x": 2}], _square, store=store, workers=1, progress=False)
    df = to_pandas(iter(rows))
    assert df["y"].tolist() == [1, 4] and "wall_s" in df.columns


def _square(scenario: dict[str, int]) -> dict[str, int]:
    return {"y": scenario["x"] ** 2}
