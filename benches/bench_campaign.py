"""Campaign benches (issue "Whole studies in minutes", part 3): the batched SCRAP scenario and chunked campaigns.

* one scenario of ``clustersched reproduce scrap --scale full`` (a platform and a DAG shape: 12 PTGs x 31
  runs), batched (one Rust call per PTG, ``scrap.study.study_pair``) and, for comparison, one run at a time
  (``runs_one_by_one``, the code before batching); both give the same bytes, which the benches check
  against one digest per translation reading (``at-least-as-fast``'s taken with the code before batching, and
  again when SCRAP's metrics moved to one implementation with exactly rounded sums: energies and power
  fractions then moved by at most 4.8e-16 relative, over 23,040 metrics of fixed seeds; it is unchanged by
  issue 33, which added ``closest``, the new default, whose digest was taken then);
* the campaign runner's own cost per scenario (a scenario of nothing, 2 worker processes), one scenario
  per task against chunks of 32.

Run for real from a release build: ``pip install . && python -m pytest benches/bench_campaign.py``.
"""

from __future__ import annotations

import base64
import hashlib

import numpy as np
import pytest

from clustersched.campaign import Store, grid, run_campaign
from clustersched.reproduce import scrap

#: Platform 199 (8 clusters, 1 GFlop/s, heterogeneity 5) and the last DAG shape (50 tasks): the largest
#: scenario of the full study.  The sha256 of its packed result (module docstring: retaken with exact sums).
SCENARIO = {"platform": 199, "shape": 107, "seed": 0, "scale": "full"}
DIGESTS = {
    "at-least-as-fast": "4d2c8e6f061477f904fd7ceea31fbc4d0ca10c4632ad3dadba0d93350c523f4c",
    "closest": "787f5734bc06e3dc7f6f446213fee69b8d1b9724f19d6507b47733a1c74db73d",
}


def digest(packed: dict[str, str]) -> str:
    return hashlib.sha256("".join(packed[name] for name in scrap.RUN_COLUMNS).encode()).hexdigest()


def one_by_one(s: dict) -> dict[str, str]:
    platform = scrap._platforms(s["seed"])[s["platform"]]
    parts = [
        scrap.runs_one_by_one(
            c, scrap._ptg(c["index"], s["seed"]), platform, validate=False, translation=s["translation"]
        )
        for c in scrap._shape_configs(s["shape"])
    ]
    return {
        name: base64.b64encode(np.concatenate([np.asarray(p[name], dtype=dtype) for p in parts]).tobytes()).decode(
            "ascii"
        )
        for name, dtype in scrap.RUN_COLUMNS.items()
    }


@pytest.fixture(scope="module", autouse=True)
def ptgs():
    for c in scrap._shape_configs(SCENARIO["shape"]):  # generated once per process in a campaign too
        scrap._ptg(c["index"], 0)


@pytest.mark.parametrize("translation", sorted(DIGESTS))
def test_scrap_scenario_batched(benchmark, translation):
    packed = benchmark(scrap.run_scenario, {**SCENARIO, "translation": translation})
    assert len(base64.b64decode(packed["ptg"])) == 4 * 12 * 40
    assert digest(packed) == DIGESTS[translation]


@pytest.mark.parametrize("translation", sorted(DIGESTS))
def test_scrap_scenario_one_run_at_a_time(benchmark, translation):
    packed = benchmark.pedantic(one_by_one, ({**SCENARIO, "translation": translation},), rounds=3, iterations=1)
    assert digest(packed) == DIGESTS[translation]


def nothing(s: dict) -> dict:
    return {"y": s["x"]}


@pytest.mark.parametrize("chunk", [1, 32])
def test_campaign_overhead_per_scenario(benchmark, tmp_path, chunk):
    """2,000 scenarios of nothing on 2 workers, stored in an SQLite file as a study's are."""
    scenarios = grid(x=range(2000))
    runs = iter(range(100))

    def run():
        with Store(tmp_path / f"store{next(runs)}.sqlite") as store:
            return run_campaign("bench", scenarios, nothing, store=store, workers=2, progress=False, chunk=chunk)

    rows = benchmark.pedantic(run, rounds=1, iterations=1)
    assert [r["y"] for r in rows] == list(range(2000)) and {r["status"] for r in rows} == {"ok"}
    benchmark.extra_info["scenarios"] = len(rows)
