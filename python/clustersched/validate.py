"""Independent feasibility checks of every kind of schedule, in one namespace.

Each scheduling problem owns its validator (:mod:`clustersched.batch.validate`,
:mod:`clustersched.ptg.validate`, :mod:`clustersched.scrap.validate`,
:mod:`clustersched.dfrs.validate`, :mod:`clustersched.grid.validate` for
task-to-host mappings); this module only gathers them, so that
``from clustersched.validate import validate_batch, validate_ptgs, validate_dfrs``
works for all.  ``validate_*`` raise :class:`~clustersched.errors.InvalidScheduleError`
listing every violation; ``*_violations`` return the list.
"""

from __future__ import annotations

from .batch.validate import batch_violations, validate_batch
from .dfrs.validate import dfrs_violations, validate_dfrs
from .grid.validate import mapping_violations, validate_mapping
from .ptg.validate import ptg_violations, validate_ptgs
from .scrap.validate import multicluster_violations, validate_multicluster

__all__ = [
    "batch_violations",
    "dfrs_violations",
    "mapping_violations",
    "multicluster_violations",
    "ptg_violations",
    "validate_batch",
    "validate_dfrs",
    "validate_mapping",
    "validate_multicluster",
    "validate_ptgs",
]
