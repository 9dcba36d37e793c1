"""Every archive trace from the command line: ``clustersched simulate TRACE --drop-invalid --policy easy``.

Runs the command (in this process, through ``clustersched.cli.main``) on every trace of a folder
(default ``../shared/data/swf`` beside the checkout) and prints the markdown table of
benches/README.md ("Every archive trace from the command line"): the jobs read, kept, dropped
per reason (the command's ``note: --drop-invalid: ...`` lines), the simulation's own time
(the ``sim_s`` column) and the whole command's (reading, cleaning, simulating, metrics).
``tests/test_cli_formats.py`` checks the same command on the same traces.  Usage::

    python benches/archive_traces.py [FOLDER]
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
import time
from pathlib import Path

from clustersched.cli import main
from clustersched.workload.transform import NO_PROCESSOR_COUNT, NONPOSITIVE_RUNTIME, WIDER_THAN_MACHINE

FOLDER = Path(__file__).resolve().parents[2] / "shared" / "data" / "swf"
#: Options a trace needs: METACENTRUM-2009-2 has no header; the Parallel Workloads Archive's page of the
#: log gives 806 processors (https://www.cs.huji.ac.il/labs/parallel/workload/l_metacentrum/index.html).
OPTIONS = {"METACENTRUM-2009-2.swf.gz": ["--procs", "806"]}
REASONS = (NO_PROCESSOR_COUNT, NONPOSITIVE_RUNTIME, WIDER_THAN_MACHINE)
NOTE = re.compile(r"note: --drop-invalid: (\d+) of (\d+) jobs dropped: (.+)")


def simulate(path: Path) -> dict[str, object]:
    """One command's numbers: jobs read and kept, dropped per reason, sim_s, the command's wall time."""
    out, err = io.StringIO(), io.StringIO()
    began = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(
            ["simulate", str(path), "--drop-invalid", "--policy", "easy", "--no-progress", *OPTIONS.get(path.name, [])]
        )
    wall = time.perf_counter() - began
    if status != 0:
        raise SystemExit(f"{path.name}: status {status}: {err.getvalue().strip()}")
    lines = out.getvalue().splitlines()
    header = next(i for i, line in enumerate(lines) if line.split()[:2] == ["policy", "jobs"])
    row = dict(zip(lines[header].split(), lines[header + 1].split()))
    dropped = {reason: 0 for reason in REASONS}
    total = None
    for line in err.getvalue().splitlines():
        match = NOTE.fullmatch(line)
        if match is None:
            raise SystemExit(f"{path.name}: unexpected stderr line {line!r}")
        dropped[match.group(3)] = int(match.group(1))
        total = int(match.group(2))
    kept = int(row["jobs"])
    return {
        "trace": path.name.removesuffix(".gz").removesuffix(".swf"),
        "jobs": total or kept,
        "kept": kept,
        **dropped,
        "sim_s": float(row["sim_s"]),
        "wall_s": wall,
    }


def main_(folder: Path) -> None:
    traces = sorted(folder.glob("*.swf.gz")) + sorted(folder.glob("*.swf"))
    if not traces:
        raise SystemExit(f"{folder}: no .swf or .swf.gz trace")
    print("| trace | jobs | kept | dropped: " + " | dropped: ".join(REASONS) + " | EASY sim_s | command s |")
    print("|---|---:|---:|" + "---:|" * len(REASONS) + "---:|---:|")
    for path in traces:
        r = simulate(path)
        cells = [
            r["trace"],
            f"{r['jobs']:,}",
            f"{r['kept']:,}",
            *(f"{r[k]:,}" for k in REASONS),
            f"{r['sim_s']:.3f}",
            f"{r['wall_s']:.2f}",
        ]
        print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main_(Path(sys.argv[1]) if len(sys.argv) > 1 else FOLDER)
