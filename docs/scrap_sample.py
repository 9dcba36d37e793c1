"""The numbers of docs/reproduce-scrap.md: a 1-in-20 systematic sample of the full SCRAP study.

Runs the scenarios (platform k, DAG shape s) of ``clustersched reproduce scrap
--scale full`` with ``(k + s) % 20 == 0`` -- every platform with 5 or 6 shapes,
every shape on 9 or 10 platforms, under each translation: 2,160 of the 43,200
scenarios -- and writes the same outputs as the command (``readings.csv`` too)
into the folder given (default
``scrap-sample``), timing the run.  ``--scale small`` computes only the
sample's first ``SMALL`` scenarios (seconds; tests/test_docs.py runs it so).
Usage::

    python docs/scrap_sample.py [OUT] [--workers N] [--scale small|full]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from clustersched.campaign import Store, run_campaign
from clustersched.campaign.study import write_csv
from clustersched.reproduce import scrap

#: Scenarios of the sample that ``--scale small`` computes.
SMALL = 3


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", nargs="?", default="scrap-sample")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument(
        "--scale",
        choices=("small", "full"),
        default="full",
        help=f"small: the sample's first {SMALL} scenarios (default: full, the whole sample)",
    )
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    todo = [s for s in scrap.scenarios("full") if (s["platform"] + s["shape"]) % 20 == 0]
    if args.scale == "small":
        todo = todo[:SMALL]
    began = time.perf_counter()
    with Store(out / "campaign.sqlite") as store:
        stored = run_campaign(
            scrap.CAMPAIGN, todo, scrap.run_scenario, store=store, workers=args.workers, progress=False
        )
    computed = time.perf_counter() - began
    every, failed = scrap.load_columns(stored, 0)
    cols = scrap._reading(every, scrap.DEFAULT_TRANSLATION)  # results.csv: the default reading's runs
    scrap._write_results(cols, failed, out / "results.csv", 0)
    rows = scrap.readings(every)
    write_csv(rows, out / "readings.csv", tuple(rows[0]) if rows else ("translation",))
    table = scrap.summary(cols)
    write_csv(table, out / "summary.csv", tuple(table[0]) if table else ("algorithm",))
    what = (
        "full, 1-in-20 sample" if args.scale == "full" else f"full, the first {SMALL} scenarios of the 1-in-20 sample"
    )
    (out / "report.md").write_text(scrap.report(cols, table, failed, scale=what) + scrap.readings_report(rows))
    scrap._figures(cols, out)
    seconds = sum(r["seconds"] for r in stored)
    print(
        f"{len(todo)} scenarios, {len(cols['ptg'])} rows, {len(failed)} failed; wall {computed:.0f} s with "
        f"{args.workers} worker(s), {seconds:.0f} s of scenario time "
        f"(full study: about {20 * seconds / 3600:.2f} core-hours)"
    )


if __name__ == "__main__":
    main()
