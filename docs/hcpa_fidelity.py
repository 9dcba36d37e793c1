"""Measures HCPA's two stopping rules against RR-7224 and SCRAP (the numbers in docs/hcpa.md).

    python docs/hcpa_fidelity.py [--ptgs 40] [--sets 2] [--scale small|full]

Part 1: random PTGs of the §5.1.2 population, each alone on gdx (216
processors) by HCPA: largest task allocation, parallel efficiency
(sequential time over the allocated area) and fraction of the cluster used
(allocated area over P x C*_max).  Part 2: SELFISH, SELFISH_ORDER and the six
CRA algorithms on N = 2..10 PTGs drawn from the three populations in turn, on
the four clusters, ``--sets`` sets per (N, cluster).  ``--scale small``
(seconds; tests/test_docs.py runs it so) takes 4 PTGs alone, one set, and
N = 2 and 4 only; the numbers of docs/hcpa.md are ``--scale full``'s.
"""

from __future__ import annotations

import argparse

import numpy as np

from clustersched.platform import CLUSTERS, cluster
from clustersched.ptg import ALGORITHMS, hcpa_allocation, hcpa_cmax_star, ptg_metrics
from clustersched.workload.ptg_generators import ptg_population

RULES = ("cpa", "sqrt")
CRA = [name for name in ALGORITHMS if name.startswith("CRA")]


def alone(n_ptgs: int) -> None:
    c = cluster("gdx")
    ptgs = ptg_population("random", n_ptgs, seed=2010)
    print(f"part 1: {n_ptgs} random PTGs alone on gdx ({c.procs} processors)")
    for rule in RULES:
        stars = hcpa_cmax_star(ptgs, c, rule=rule)
        most, eff, used = [], [], []
        for p, star in zip(ptgs, stars):
            a = hcpa_allocation(p, c, rule=rule)
            area = float((p.exec_time(a, c.speed) * a).sum())
            most.append(int(a.max()))
            eff.append(p.sequential_time(c.speed) / area)
            used.append(area / (c.procs * star))
        q = lambda x: " / ".join(f"{v:.3g}" for v in np.quantile(x, [0.0, 0.25, 0.5, 0.75, 1.0]))
        print(f"  rule={rule}")
        print(
            f"    largest task allocation   min/q1/median/q3/max: {q(most)}; "
            f"all {c.procs}: {np.mean(np.array(most) == c.procs):.0%}"
        )
        print(
            f"    parallel efficiency       min/q1/median/q3/max: {q(eff)}; "
            f"under 5%: {np.mean(np.array(eff) < 0.05):.0%}"
        )
        print(
            f"    fraction of cluster used  min/q1/median/q3/max: {q(used)}; "
            f"under 30%: {np.mean(np.array(used) < 0.3):.0%}"
        )


def mixed(n: int, seed: int) -> list:
    kinds = ("random", "fft", "strassen")
    return [ptg_population(kinds[k % 3], 1, seed=seed * 100 + k)[0] for k in range(n)]


def together(sets: int, sizes: tuple[int, ...] = (2, 4, 6, 8, 10)) -> None:
    print(f"part 2: N = {', '.join(map(str, sizes))} mixed PTGs x {len(CLUSTERS)} clusters x {sets} sets")
    for rule in RULES:
        worst = {"SELFISH": [], "SELFISH_ORDER": []}
        early, cra_runs = 0, 0
        util = {"SELFISH": [], "CRA": []}
        for name, c in CLUSTERS.items():
            for n in sizes:
                for s in range(sets):
                    ptgs = mixed(n, 1000 * n + s + len(name))
                    stars = hcpa_cmax_star(ptgs, c, rule=rule)
                    for algo in ["SELFISH", "SELFISH_ORDER", *CRA]:
                        m = ptg_metrics(ALGORITHMS[algo](ptgs, c, seed=s, rule=rule), stars)
                        if algo in worst:
                            worst[algo].append(m.max_stretch)
                        if algo in CRA:
                            cra_runs += 1
                            early += bool((m.stretch < 1.0).any())
                        if name == "gdx" and algo in ("SELFISH", *CRA):
                            util["SELFISH" if algo == "SELFISH" else "CRA"].append(m.utilization)
        print(f"  rule={rule}")
        print(f"    CRA runs with a PTG earlier than alone: {early}/{cra_runs} = {early / cra_runs:.0%}")
        print(
            f"    median max stretch SELFISH {np.median(worst['SELFISH']):.2f}, "
            f"SELFISH_ORDER {np.median(worst['SELFISH_ORDER']):.2f}"
        )
        print(
            f"    gdx utilization (busy / P x makespan): SELFISH {np.mean(util['SELFISH']):.1%}, "
            f"CRA family {np.mean(util['CRA']):.1%}"
        )


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ptgs", type=int, default=40)
    ap.add_argument("--sets", type=int, default=2)
    ap.add_argument(
        "--scale",
        choices=("small", "full"),
        default="full",
        help="small: 4 PTGs alone, 1 set, N = 2 and 4 (seconds); full: --ptgs and --sets (default)",
    )
    args = ap.parse_args()
    if args.scale == "small":
        alone(4)
        together(1, (2, 4))
    else:
        alone(args.ptgs)
        together(args.sets)
