"""Your own batch Policy wherever a built-in goes (tracker issue 30): in ``sweep`` (in this process, in worker
processes, a class of a script's ``__main__`` included, resumed from the store), and on the command line as
``--policy MODULE:CLASS`` or ``PATH.py:CLASS`` for ``simulate``, ``compare --policies`` and ``sweep --policies``;
and one policy-name spelling rule (``clustersched._checks.lookup``) for every entry point."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

import clustersched as cs
from clustersched.batch import Policy
from clustersched.batch.sweep import policy_key, sweep

from support import run_cli


class FirstFit(Policy):
    """Starts, in arrival order, every waiting job that fits now (no reservation)."""

    name = "first-fit"

    def __init__(self, limit: int = 0) -> None:
        self.limit = limit  # a parameter, so that two configurations differ

    def schedule(self, state):
        for job in state.queue():
            if state.width[job] <= state.free:
                state.start(job)


@pytest.fixture(scope="module")
def week():
    return cs.read_swf(cs.sample_trace()).select(slice(0, 300))


# -- the store key of an instance -------------------------------------------------------------------------------------
def test_the_key_is_the_name_and_a_digest_of_code_and_attributes():
    key = policy_key(FirstFit())
    assert key.startswith("first-fit#") and len(key) == len("first-fit#") + 8
    assert policy_key(FirstFit()) == key  # the same configuration, the same key
    assert policy_key(FirstFit(limit=3)) != key  # another configuration, another key

    class Renamed(FirstFit):
        name = "first-fit"

        def schedule(self, state):  # other code under the same name
            return None

    assert policy_key(Renamed()) != key
    with pytest.raises(TypeError, match="must be a clustersched.batch.Policy instance"):
        policy_key("easy")


def test_the_key_is_the_same_in_a_new_interpreter():
    # a fresh process (a new notebook kernel, a rerun of a script) gives the class of __main__ the same key
    script = textwrap.dedent("""
        from clustersched.batch import Policy
        from clustersched.batch.sweep import policy_key

        class Mine(Policy):
            name = "mine"

            def __init__(self, depth=2):
                self.depth = depth

            def schedule(self, state):
                for job in state.queue():
                    if state.width[job] <= state.free:
                        state.start(job)

        print(policy_key(Mine()), policy_key(Mine(3)))
    """)
    keys = [
        subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
        for _ in range(2)
    ]
    assert keys[0] == keys[1] and keys[0].split()[0] != keys[0].split()[1]


# -- sweep in this process ---------------------------------------------------------------------------------------------
def test_sweep_takes_a_policy_instance_beside_a_builtin(week, tmp_path):
    mine = FirstFit()
    s = sweep(
        week,
        ["EASY", mine],
        [0.8],
        replications=2,
        workers=1,
        progress=False,
        out=tmp_path,
        figures=["avg_bounded_slowdown"],
        baseline=mine,
        validate=True,
    )
    key = policy_key(mine)
    assert s.errors == 0 and s.policies == ("easy", key)
    assert [r["policy"] for r in s.rows] == ["easy", "easy", key, key]
    # the same as simulating the instance by hand on each replication's table
    for r in s.rows[2:]:
        window = week.select(slice(r["offset"], r["offset"] + r["window"]))
        run = cs.simulate(cs.workload.scale_to_load(window, 240, 0.8), FirstFit(), validate=True)
        assert r["avg_wait"] == cs.batch_metrics(run.schedule).summary()["avg_wait"]
    # the baseline by instance, by key, or by the instance's name
    assert s.relative(mine) == s.relative(key) == s.relative("first-fit")
    assert "first-fit#" in (tmp_path / "relative.csv").read_text()
    with pytest.raises(TypeError, match=r"policies\[1\] == FirstFit, a class: pass an instance, FirstFit\(\)"):
        sweep(week, ["easy", FirstFit], [0.8], workers=1, progress=False)


def test_sweep_refuses_a_policy_it_cannot_pickle(week):
    import threading

    mine = FirstFit()
    mine.lock = threading.Lock()
    with pytest.raises(TypeError, match=r"policies\[0\] == .* cannot be pickled"):
        sweep(week, [mine], [0.8], workers=1, progress=False)


# -- the class of a script's __main__, in two worker processes, resumed ------------------------------------------------
SCRIPT = """
import json, sys

import clustersched as cs
from clustersched.batch import Policy


class Greedy(Policy):
    # defined in __main__, as in a notebook: the spawned workers cannot import it by name
    name = "greedy"

    def schedule(self, state):
        for job in state.queue():
            if state.width[job] <= state.free:
                state.start(job)


if __name__ == "__main__":
    jobs = cs.read_swf(cs.sample_trace())
    s = cs.sweep(jobs, ["easy", Greedy()], [0.7, 0.9], replications=2, workers=2, progress=False, out=sys.argv[1],
                 figures=["avg_wait"])
    print(json.dumps({"policies": s.policies, "errors": s.errors, "title": s.title,
                      "rows": [[r["policy"], r["load"], r["replication"], r["avg_wait"], r["status"], r["error"]]
                               for r in s.rows]}))
"""


def test_a_sweep_of_easy_against_a_policy_of_main_with_two_workers_resumes(tmp_path):
    script = tmp_path / "study.py"
    script.write_text(SCRIPT)
    out = tmp_path / "out"

    def run():
        done = subprocess.run(
            [sys.executable, str(script), str(out)], capture_output=True, text=True, cwd=tmp_path, timeout=300
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.splitlines()[-1]), done.stderr

    first, err = run()
    assert first["errors"] == 0, first["rows"]
    assert first["policies"][0] == "easy" and first["policies"][1].startswith("greedy#")
    assert first["title"] == "hpc2n-2002-week.swf.gz (2,406 jobs, 240 procs)"
    assert len(first["rows"]) == 2 * 2 * 2 and "resuming" not in err
    greedy = [r for r in first["rows"] if r[0] != "easy"]
    easy = [r for r in first["rows"] if r[0] == "easy"]
    assert [r[3] for r in greedy] != [r[3] for r in easy]  # a policy of its own, not EASY again
    # the same script again: every scenario is stored, nothing is computed
    again, err = run()
    assert "note: resuming: 8 of 8 scenarios already done" in err and "nothing left to compute" in err
    assert again["rows"] == first["rows"]
    assert (out / "avg_wait.png").exists()


NOTEBOOK_CELLS = [
    """
import clustersched as cs
from clustersched.batch import Policy


class Greedy(Policy):
    # a class of the notebook: its kernel's __main__, which no worker process can import
    name = "greedy"

    def schedule(self, state):
        for job in state.queue():
            if state.width[job] <= state.free:
                state.start(job)
""",
    """
jobs = cs.read_swf(cs.sample_trace())
s = cs.sweep(jobs, ["easy", Greedy()], [0.8], replications=2, workers=2, progress=False, out="out", figures=[])
print(s.errors, s.policies[1].split("#")[0], len(s.rows))
""",
]


@pytest.mark.slow
def test_a_sweep_of_easy_against_a_notebook_defined_policy_with_two_workers(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    root = tmp_path / "jupyter"
    (root / "kernels" / "here").mkdir(parents=True)
    (root / "kernels" / "here" / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": "this interpreter",
                "language": "python",
            }
        )
    )
    monkeypatch.setenv("JUPYTER_PATH", str(root))
    monkeypatch.setenv("JUPYTER_PLATFORM_DIRS", "1")
    outputs = []
    for _ in range(2):  # the second run resumes: every scenario is stored
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in NOTEBOOK_CELLS])
        nbclient.NotebookClient(
            nb, kernel_name="here", timeout=300, startup_timeout=120, resources={"metadata": {"path": str(tmp_path)}}
        ).execute()
        outputs.append([o for o in nb.cells[1].outputs if o.output_type == "stream"])
    first, second = ("".join(o.text for o in out if o.name == "stdout") for out in outputs)
    assert first == second == "0 greedy 4\n"
    assert "nothing left to compute" in "".join(o.text for o in outputs[1] if o.name == "stderr")


# -- the command line --------------------------------------------------------------------------------------------------
POLICY_FILE = """
from clustersched.batch import Policy


class Greedy(Policy):
    name = "greedy"

    def schedule(self, state):
        for job in state.queue():
            if state.width[job] <= state.free:
                state.start(job)


class NotAPolicy:
    pass


class Fussy(Policy):
    def __init__(self, needed):
        self.needed = needed
"""


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mypolicies.py").write_text(POLICY_FILE)
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "other.py").write_text(POLICY_FILE)
    (tmp_path / "broken.py").write_text("import no_such_module_anywhere\n")
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", os.getcwd(), str(tmp_path))])
    yield tmp_path
    for name in [m for m in sys.modules if m in ("mypolicies", "broken") or m.startswith("_clustersched_policy_")]:
        del sys.modules[name]


def policy_column(out: str) -> list[str]:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[:1] == ["policy"])
    return [line.split()[0] for line in lines[start + 1 :] if line.strip()]


@pytest.mark.parametrize("spelling", ["EASY", "Easy", "dpsa_n", "DPSA-N"])
def test_simulate_reads_policy_names_as_python_does(here, capsys, spelling):
    status, out, err = run_cli(["simulate", str(cs.sample_trace()), "--policy", spelling], capsys)
    assert status == 0, err
    assert policy_column(out) == [cs.batch.policy(spelling)]


def test_compare_and_sweep_read_policy_names_as_python_does(here, capsys):
    status, out, err = run_cli(["compare", "--policies", "EASY,fcfs,Easy,DPSA_N", "--no-progress"], capsys)
    assert status == 0, err
    assert policy_column(out) == ["easy", "fcfs", "dpsa-n"]
    status, out, err = run_cli(
        [
            "sweep",
            "lublin",
            "--jobs",
            "100",
            "--procs",
            "16",
            "--policies",
            "FCFS,Easy",
            "--baseline",
            "EASY",
            "--loads",
            "0.5",
            "--workers",
            "1",
            "--no-progress",
            "--metrics",
            "avg_wait",
            "--out",
            "r",
        ],
        capsys,
    )
    assert status == 0, err
    assert policy_column(out)[:2] == ["fcfs", "easy"]


@pytest.mark.parametrize("spec", ["mypolicies:Greedy", "mypolicies.py:Greedy", "lib/other.py:Greedy"])
def test_simulate_and_compare_run_your_policy(here, capsys, spec):
    trace = str(cs.sample_trace())
    status, out, err = run_cli(["simulate", trace, "--policy", spec], capsys)
    assert status == 0, err
    assert policy_column(out) == ["greedy"]
    status, out, err = run_cli(["compare", trace, "--policies", f"easy,{spec}", "--no-progress"], capsys)
    assert status == 0, err
    assert policy_column(out) == ["easy", "greedy"]


def test_sweep_runs_your_policy_from_a_file_in_worker_processes(here, capsys):
    argv = [
        "sweep",
        "lublin",
        "--jobs",
        "200",
        "--procs",
        "16",
        "--policies",
        "easy,lib/other.py:Greedy",
        "--baseline",
        "greedy",
        "--loads",
        "0.6",
        "--replications",
        "2",
        "--workers",
        "2",
        "--no-progress",
        "--metrics",
        "avg_wait",
        "--out",
        "r",
    ]
    status, out, err = run_cli(argv, capsys)
    assert status == 0, err
    names = policy_column(out)
    assert names[0] == "easy" and names[1].startswith("greedy#")
    rows = (here / "r" / "results.csv").read_text()
    assert rows.count(names[1]) == 2 and rows.count(",ok,") == 4
    status, again, err = run_cli(argv, capsys)  # the same command: resumed, the same key
    assert status == 0 and again == out and "4 of 4 scenarios already done" in err


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (
            ["simulate", "TRACE", "--policy", "mypolicies:NotAPolicy"],
            "NotAPolicy is not a subclass of clustersched.batch.Policy",
        ),
        (["simulate", "TRACE", "--policy", "mypolicies:Nope"], "mypolicies has no Nope"),
        (["simulate", "TRACE", "--policy", "no_such_module:Greedy"], "cannot load no_such_module: ModuleNotFoundError"),
        (["simulate", "TRACE", "--policy", "missing.py:Greedy"], "no such file 'missing.py'"),
        (["simulate", "TRACE", "--policy", "broken.py:Greedy"], "cannot load broken.py: ModuleNotFoundError"),
        (["simulate", "TRACE", "--policy", "mypolicies:Fussy"], "Fussy() failed: TypeError"),
        (["simulate", "TRACE", "--policy", "mypolicies:"], "must be MODULE:CLASS or PATH/TO/FILE.py:CLASS"),
        (["simulate", "TRACE", "--policy", "lifo"], "invalid value 'lifo': must be a built-in policy or MODULE:CLASS"),
        (["compare", "--policies", "easy,mypolicies:Nope"], "mypolicies has no Nope"),
        (["sweep", "lublin", "--policies", "easy,mypolicies:NotAPolicy", "--out", "r"], "NotAPolicy is not a subclass"),
    ],
)
def test_a_policy_that_cannot_be_loaded_exits_2(here, capsys, argv, says):
    argv = [str(cs.sample_trace()) if a == "TRACE" else a for a in argv]
    status, out, err = run_cli(argv, capsys)
    assert status == 2 and out == "" and err.count("\n") == 1 and says in err, err
    assert "--polic" in err
