"""Campaigns: grids of scenarios, run on local processes or on Dask, stored in SQLite, resumable.

A campaign is a named list of scenarios (dicts of JSON parameters) and a
function computing one scenario's results.  :func:`run_campaign` computes the
scenarios not yet in the :class:`Store`, stores each as it finishes, and
returns one flat row per scenario, so an interrupted campaign resumes where it
stopped and returns exactly what an uninterrupted one would::

    from clustersched.campaign import Store, grid, run_campaign

    with Store("hpc2n.sqlite") as store:
        rows = run_campaign("hpc2n-v1", grid(policy=["fcfs", "easy"], seed=range(10)),
                            my_experiment, store=store)
    to_pandas(rows)          # a DataFrame (clustersched.campaign.to_pandas)

:mod:`clustersched.campaign.study` runs a campaign whose store lives in an
output folder beside its tables, as the reproductions and the load sweeps do.
"""

from .frame import to_pandas
from .runner import run_campaign
from .scenarios import RESERVED, grid, scenario_key
from .store import Store

__all__ = ["RESERVED", "Store", "grid", "run_campaign", "scenario_key", "to_pandas"]
