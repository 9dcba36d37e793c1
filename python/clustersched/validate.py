"""Independent feasibility checks of every kind of schedule, in one namespace.

Each scheduling problem owns its validator (:mod:`clustersched.batch.validate`,
:mod:`clustersched.ptg.validate`, :mod:`clustersched.dfrs.validate`); this
module only gathers them, so that
``from clustersched.validate import validate_batch, validate_ptgs, validate_dfrs``
works for all.  ``validate_*`` raise :class:`~clustersched.errors.InvalidScheduleError`
listing every violation; ``*_violations`` return the list.
"""

from __future__ import annotations

from .batch.validate import batch_violations, validate_batch
from .dfrs.validate import dfrs_violations, validate_dfrs
from .ptg.validate import ptg_violations, validate_ptgs

__all__ = ["batch_violations", "dfrs_violations", "ptg_violations", "validate_batch", "validate_dfrs",
           "validate_ptgs"]
