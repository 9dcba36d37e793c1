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
shortest alone) and the share of "mixing" sets (a linear-cost PTG next to an
nlogn or matmul one).  Then today's reading again, its results weighted as if
mixing sets made up another share of the scenarios.  ``--scale small`` (seconds; tests/test_docs.py runs it so)
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
    "d = m^2, side m uniform, cut to 1024s (daggen)": ("any", CostReading(data="side")),
    "natural log in a d log d": ("any", CostReading(log="e")),
    "decimal log in a d log d": ("any", CostReading(log="10")),
    "a a power of two": ("any", CostReading(a="powers")),
    "d and a per PTG": ("any", CostReading(per="ptg")),
    "one cost scenario per set": ("one-scenario", CostReading()),
    "d and a per FFT / Strassen PTG": ("any", CostReading(per="application")),
    "one cost scenario per set + d and a per PTG": ("one-scenario", CostReading(per="ptg")),
    "one cost scenario per set + d and a per FFT / Strassen PTG": ("one-scenario", CostReading(per="application")),
}


#: Shares of mixing sets at which :func:`reweighted` reads the study's medians.
SHARES = (0.7, 0.65, 0.6, 0.5)


def _scenario(p) -> str:
    """The cost scenario of a population member, from its name (``random-...-jump1-linear-#2``)."""
    return p.name.split("-")[-2]


def measure(scale: str, seed: int, sets: str, reading: CostReading) -> dict[str, np.ndarray]:
    """Per scenario of the scale: max stretch of SELFISH and SELFISH_ORDER, C* spread, and whether the set mixes."""
    out: dict[str, list] = {name: [] for name in (*PAPER, "spread", "mixes", "n")}
    for s in ptg.scenarios(scale, seed=seed, algorithms=["SELFISH"]):
        ptgs = ptg.instance(s, sets=sets, reading=reading)
        c = cluster(s["cluster"])
        stars = hcpa_cmax_star(ptgs, c)
        out["spread"].append(float(stars.max() / stars.min()))
        out["n"].append(s["n_ptgs"])
        # a linear-cost PTG next to an nlogn or matmul one: C* about 30 x apart, SELFISH's bimodality (docs)
        kinds = {_scenario(p) for p in ptgs}
        out["mixes"].append("linear" in kinds and bool(kinds & {"nlogn", "matmul"}))
        for name in PAPER:
            # the study's tie-breaking stream (reproduce.ptg.run_scenario), the same for both algorithms
            rng = np.random.default_rng(ptg._spawn(seed, 3, s))
            out[name].append(ptg_metrics(ALGORITHMS[name](ptgs, c, seed=rng), stars).max_stretch)
    return {k: np.array(v) for k, v in out.items()}


def weighted_median(x: np.ndarray, w: np.ndarray) -> float:
    """The smallest x whose cumulated weight reaches half the total."""
    order = np.argsort(x, kind="stable")
    cum = np.cumsum(w[order])
    return float(x[order][np.searchsorted(cum, cum[-1] / 2)])


def reweighted(runs: dict[str, np.ndarray]) -> list[tuple[float, float, float]]:
    """SELFISH's and SELFISH_ORDER's medians if mixing sets made up ``share`` of the scenarios (:data:`SHARES`).

    Each scenario keeps its result; mixing and other sets are weighted to the share.
    """
    mixes = runs["mixes"]
    rows = []
    for share in SHARES:
        w = np.where(mixes, share / mixes.mean(), (1 - share) / (1 - mixes.mean()))
        rows.append((share, *(weighted_median(runs[name], w) for name in PAPER)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", choices=ptg.SCALES, default="full", help="full: 1,500 scenarios (default)")
    parser.add_argument("--seeds", type=int, nargs="+", default=None, help="default: 0 1 2 (full), 0 (small)")
    args = parser.parse_args()
    seeds = args.seeds if args.seeds is not None else ([0, 1, 2] if args.scale == "full" else [0])
    began = time.perf_counter()
    count = len(ptg.scenarios(args.scale, algorithms=["SELFISH"]))
    print(
        f"{count} scenarios per seed, seeds {seeds} (one value per seed); paper: SELFISH {PAPER['SELFISH']}, "
        f"SELFISH_ORDER {PAPER['SELFISH_ORDER']}"
    )
    print("| reading | SELFISH (17.49) | SELFISH_ORDER (1.79) | median C* spread | mixing sets |")
    print("|---|---:|---:|---:|---:|")
    first = None
    for name, (sets, reading) in READINGS.items():
        runs = [measure(args.scale, seed, sets, reading) for seed in seeds]
        first = first or runs
        cells = [" / ".join(f"{np.median(r[key]):.2f}" for r in runs) for key in ("SELFISH", "SELFISH_ORDER", "spread")]
        mixing = " / ".join(f"{r['mixes'].mean():.0%}" for r in runs)
        print(f"| {name} | {cells[0]} | {cells[1]} | {cells[2]} | {mixing} |", flush=True)
    pooled = {key: np.concatenate([r[key] for r in first]) for key in first[0]}
    print()
    print(f"today's reading, the seeds pooled ({pooled['mixes'].mean():.0%} mixing sets), reweighted:")
    print("| mixing sets | SELFISH | SELFISH_ORDER |")
    print("|---:|---:|---:|")
    mixing = pooled["mixes"].mean()
    print(
        f"| {mixing:.0%} (as drawn) | {np.median(pooled['SELFISH']):.2f} | {np.median(pooled['SELFISH_ORDER']):.2f} |"
    )
    for share, selfish, order in reweighted(pooled):
        print(f"| {share:.0%} | {selfish:.2f} | {order:.2f} |")
    for flag in (True, False):
        sel = pooled["mixes"] == flag
        medians = {key: np.median(pooled[key][sel]) for key in ("SELFISH", "SELFISH_ORDER", "spread")}
        print(
            f"{'mixing' if flag else 'other'} sets ({sel.sum()}): median SELFISH {medians['SELFISH']:.2f}, "
            f"SELFISH_ORDER {medians['SELFISH_ORDER']:.2f}, C* spread {medians['spread']:.1f}"
        )
    for n in np.unique(pooled["n"]):
        sel = pooled["n"] == n
        print(
            f"N = {n}: {pooled['mixes'][sel].mean():.0%} mixing sets, median SELFISH "
            f"{np.median(pooled['SELFISH'][sel]):.2f}, SELFISH_ORDER {np.median(pooled['SELFISH_ORDER'][sel]):.2f}"
        )
    print(f"wall {time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
