"""The worst-case numbers of docs/reproduce-dfrs.md: the headline algorithms on the full study's traces.

``clustersched reproduce dfrs --scale medium`` takes every ninth HPC2N week and 10
synthetic traces per set and load: enough for averages, not for maxima, which come
from a few traces (the degradations have a heavy tail). This runs the algorithms
the issue's headline checks compare -- FCFS, EASY, ``GreedyPM */per/opt=min/minvt=600``,
the three purely greedy ``X */opt=min`` and their periodic ``X */per/opt=min`` -- on
every HPC2N week (182) and on the synthetic traces of ``--scale full`` whose
index is a multiple of ``--every`` (default 1: all 100 unscaled and 900 scaled),
at the default period. The runs are exactly the full scale's scenarios, stored
in the same campaign format, so ``clustersched reproduce dfrs --scale full --out
OUT`` later computes only the rest. Writes ``OUT/table2.csv`` (the subset's rows
of Table 2) and ``OUT/report.md`` (those rows next to the paper's, and the
headline checks on ours and on the paper's numbers). ``--scale small`` runs the
same algorithms on the traces of ``clustersched reproduce dfrs --scale small``
instead (the bundled HPC2N week and small synthetic traces: seconds;
tests/test_docs.py runs it so). Usage::

    python docs/dfrs_tails.py [OUT] [--workers N] [--every K] [--traces DIR] [--scale small|full]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from clustersched.campaign import Store, run_campaign
from clustersched.campaign.study import write_csv
from clustersched.reproduce import dfrs

ALGORITHMS = (
    "FCFS",
    "EASY",
    dfrs.BEST,
    "Greedy */opt=min",
    "GreedyP */opt=min",
    "GreedyPM */opt=min",
    "Greedy */per/opt=min",
    "GreedyP */per/opt=min",
    "GreedyPM */per/opt=min",
)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", nargs="?", default="dfrs-tails")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--every", type=int, default=1, help="synthetic traces whose index is a multiple of this")
    parser.add_argument("--traces", default=None, help="folder holding HPC2N-2002-2.2-cln.swf.gz")
    parser.add_argument(
        "--scale",
        choices=("small", "full"),
        default="full",
        help="the traces of reproduce dfrs --scale small (seconds) or full (default: full)",
    )
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    todo = [
        s
        for s in dfrs.scenarios(args.scale, traces=args.traces)
        if s["algorithm"] in ALGORITHMS
        and s["period"] == dfrs.DEFAULT_PERIOD
        and (s["trace_set"] == "real" or s["trace"] % args.every == 0)
    ]
    began = time.perf_counter()
    with Store(out / "campaign.sqlite") as store:
        runs = run_campaign(dfrs.CAMPAIGN, todo, dfrs.run_scenario, store=store, workers=args.workers, progress=False)
    wall = time.perf_counter() - began
    rows = [dfrs._row(r) for r in runs]
    ok = [r for r in rows if r["status"] == "ok"]
    table2 = dfrs.table2_rows(ok)
    write_csv(
        table2,
        out / "table2.csv",
        ("trace_set", "algorithm", "degradation_avg", "degradation_std", "degradation_max", "runs"),
    )
    counts = {ts: len({r["trace"] for r in ok if r["trace_set"] == ts}) for ts in dfrs.TRACE_SETS}
    title = (
        f"{counts['real']} real, {counts['unscaled']} unscaled and {counts['scaled']} scaled traces "
        f"(synthetic: every {args.every}); {len(rows)} runs, {len(rows) - len(ok)} failed"
    )
    (out / "report.md").write_text(dfrs.table2_report(table2, title))
    cpu = sum(r["simulation_seconds"] or 0.0 for r in ok)
    print(f"{title}; wall {wall:.0f} s with {args.workers} worker(s), {cpu:.0f} s of simulation")


if __name__ == "__main__":
    main()
