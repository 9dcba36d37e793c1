"""SELFISH's maximum stretch under other readings of RR-7224 §5.1 (the table of docs/reproduce-ptg.md).

    python docs/selfish_readings.py [--scale small|full] [--seeds 0 1 2]

For each reading of the instance generation (a
:class:`~clustersched.workload.ptg_generators.CostReading` of the task costs,
and how a set draws from its population: ``sets`` of
:func:`clustersched.reproduce.ptg.instance`), runs SELFISH and SELFISH_ORDER
on the scenarios of ``clustersched reproduce ptg`` (``--scale full``: its
1,500 scenarios, each seed of ``--seeds`` drawing its own populations, sets
and ties as ``--seed`` does there) and prints the median maximum stretch of
each, per seed, next to the paper's 17.49 and 1.79, with the median over
scenarios of the spread of the set's ``C*`` (its longest PTG alone over its
shortest alone).  ``--scale small`` (seconds; tests/test_docs.py runs it so)
takes the study's 24 small scenarios and seed 0 only.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from clustersched.platform import cluster
from clustersched.ptg import ALGORITHMS, hcpa_cmax_star, ptg_metrics
from clustersched.reproduce import ptg
from clustersched.workload.ptg_generators import CostReading

#: RR-7224 §5.2.3's medians.
PAPER = {"SELFISH": 17.49, "SELFISH_ORDER": 1.79}
#: name -> (instance's ``sets``, the cost reading); the first is the study's.
READINGS = {
    "today (d uniform, log2, a uniform, per task; sets mix scenarios)": ("any", CostReading()),
    "d = m^2, side m uniform (daggen)": ("any", CostReading(data="side")),
    "natural log in a d log d": ("any", CostReading(log="e")),
    "a a power of two": ("any", CostReading(a="powers")),
    "d and a per PTG": ("any", CostReading(per="ptg")),
    "one cost scenario per set": ("one-scenario", CostReading()),
    "one cost scenario per set + d and a per PTG": ("one-scenario", CostReading(per="ptg")),
}


def measure(scale: str, seed: int, sets: str, reading: CostReading) -> tuple[float, float, float]:
    """Median max stretch of SELFISH and SELFISH_ORDER, and median C* spread, over the scale's scenarios."""
    worst: dict[str, list[float]] = {name: [] for name in PAPER}
    spread = []
    for s in ptg.scenarios(scale, seed=seed, algorithms=["SELFISH"]):
        ptgs = ptg.instance(s, sets=sets, reading=reading)
        c = cluster(s["cluster"])
        stars = hcpa_cmax_star(ptgs, c)
        spread.append(float(stars.max() / stars.min()))
        for name in worst:
            # the study's tie-breaking stream (reproduce.ptg.run_scenario), the same for both algorithms
            rng = np.random.default_rng(ptg._spawn(seed, 3, s))
            worst[name].append(ptg_metrics(ALGORITHMS[name](ptgs, c, seed=rng), stars).max_stretch)
    return float(np.median(worst["SELFISH"])), float(np.median(worst["SELFISH_ORDER"])), float(np.median(spread))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", choices=ptg.SCALES, default="full", help="full: 1,500 scenarios (default)")
    parser.add_argument("--seeds", type=int, nargs="+", default=None, help="default: 0 1 2 (full), 0 (small)")
    args = parser.parse_args()
    seeds = args.seeds if args.seeds is not None else ([0, 1, 2] if args.scale == "full" else [0])
    began = time.perf_counter()
    count = len(ptg.scenarios(args.scale, algorithms=["SELFISH"]))
    print(
        f"{count} scenarios per seed, seeds {seeds}; paper: SELFISH {PAPER['SELFISH']}, "
        f"SELFISH_ORDER {PAPER['SELFISH_ORDER']}"
    )
    print("| reading | SELFISH (17.49) | SELFISH_ORDER (1.79) | C* spread |")
    print("|---|---:|---:|---:|")
    for name, (sets, reading) in READINGS.items():
        rows = np.array([measure(args.scale, seed, sets, reading) for seed in seeds])
        cells = [" / ".join(f"{v:.2f}" for v in rows[:, k]) for k in range(3)]
        print(f"| {name} | {cells[0]} | {cells[1]} | {cells[2]} |", flush=True)
    print(f"wall {time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
