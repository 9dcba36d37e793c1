"""Launch-time mapping of parallel applications onto grids of LANs under QoS constraints (QLSE).

Baraglia, Ferrini, Tonellotto, Ricci & Yahyapour, *QoS-constrained List
Scheduling Heuristics for Parallel Applications on Grids*: an application is a
task interaction graph (:class:`TIG`: each task needs a minimum computational
power, each communication a minimum bandwidth), the platform a grid of LANs
(:class:`LanGrid`: hosts on shared LANs, some LANs joined by links), and a
mapping puts every task on a host so that every requirement is met at once.

* :func:`qlse` (§4) and :func:`greedy_best_fit` (§5) return a
  :class:`Mapping` or a :class:`NoFeasibleMapping`, never a partial mapping;
  :data:`ALGORITHMS` holds them by name, :func:`run` runs, validates
  and measures one; :func:`task_order` and :func:`qlse_step` expose QLSE's
  task order and tentative mappings.
* :func:`validate_mapping` checks any mapping independently.
* :func:`lan_hit_ratio`, :func:`task_machine_ratio`, :func:`failure_rate`
  are the measures of §5.
* :func:`random_tig`, :func:`random_grid`, :func:`feasible_instance` draw
  instances with the parameters of Tables 1 and 2.
* :data:`MAX_TASKS`, :data:`MAX_EDGES`, :data:`MAX_LANS`, :data:`MAX_HOSTS`,
  :data:`MAX_LINKS`, :data:`MAX_VALUE`: the largest models accepted (see
  :mod:`clustersched.grid.model`, "Limits").

Example
-------
>>> from clustersched.grid import feasible_instance, qlse, greedy_best_fit, validate_mapping, lan_hit_ratio
>>> inst = feasible_instance("small", "medium", seed=1)
>>> m = qlse(inst.tig, inst.grid)
>>> validate_mapping(m, inst.tig, inst.grid)
>>> m.found, 0.0 <= lan_hit_ratio(m, inst.tig, inst.grid) <= 1.0
(True, True)
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

__all__ = [
    "ALGORITHMS",
    "BANDWIDTH_MODELS",
    "GRID_SIZES",
    "GridRanges",
    "GridRun",
    "Instance",
    "LanGrid",
    "MAX_EDGES",
    "MAX_HOSTS",
    "MAX_LANS",
    "MAX_LINKS",
    "MAX_TASKS",
    "MAX_VALUE",
    "Mapping",
    "MappingMetrics",
    "MappingResult",
    "NoFeasibleMapping",
    "STEP_LABELS",
    "TIG",
    "TIG_SIZES",
    "TaskOrder",
    "TigRanges",
    "algorithm",
    "failure_rate",
    "feasible_instance",
    "greedy_best_fit",
    "grid_ranges",
    "lan_hit_ratio",
    "mapping_metrics",
    "mapping_violations",
    "qlse",
    "qlse_step",
    "random_grid",
    "random_instance",
    "random_tig",
    "run",
    "shared_task_machine_ratio",
    "task_machine_ratio",
    "task_order",
    "tig_ranges",
    "validate_mapping",
]

# Imported on first use (see clustersched._lazy).
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "ALGORITHMS": ".algorithms",
        "GridRun": ".algorithms",
        "algorithm": ".algorithms",
        "run": ".algorithms",
        "GRID_SIZES": ".generators",
        "GridRanges": ".generators",
        "Instance": ".generators",
        "TIG_SIZES": ".generators",
        "TigRanges": ".generators",
        "feasible_instance": ".generators",
        "grid_ranges": ".generators",
        "random_grid": ".generators",
        "random_instance": ".generators",
        "random_tig": ".generators",
        "tig_ranges": ".generators",
        "BANDWIDTH_MODELS": ".mapping",
        "Mapping": ".mapping",
        "MappingResult": ".mapping",
        "NoFeasibleMapping": ".mapping",
        "STEP_LABELS": ".mapping",
        "MappingMetrics": ".metrics",
        "failure_rate": ".metrics",
        "lan_hit_ratio": ".metrics",
        "mapping_metrics": ".metrics",
        "shared_task_machine_ratio": ".metrics",
        "task_machine_ratio": ".metrics",
        "LanGrid": ".model",
        "MAX_EDGES": ".model",
        "MAX_HOSTS": ".model",
        "MAX_LANS": ".model",
        "MAX_LINKS": ".model",
        "MAX_TASKS": ".model",
        "MAX_VALUE": ".model",
        "TIG": ".model",
        "TaskOrder": ".qlse",
        "greedy_best_fit": ".qlse",
        "qlse": ".qlse",
        "qlse_step": ".qlse",
        "task_order": ".qlse",
        "mapping_violations": ".validate",
        "validate_mapping": ".validate",
    },
    public=__all__,
)

if TYPE_CHECKING:
    from .algorithms import ALGORITHMS, GridRun, algorithm, run
    from .generators import (
        GRID_SIZES,
        TIG_SIZES,
        GridRanges,
        Instance,
        TigRanges,
        feasible_instance,
        grid_ranges,
        random_grid,
        random_instance,
        random_tig,
        tig_ranges,
    )
    from .mapping import BANDWIDTH_MODELS, STEP_LABELS, Mapping, MappingResult, NoFeasibleMapping
    from .metrics import (
        MappingMetrics,
        failure_rate,
        lan_hit_ratio,
        mapping_metrics,
        shared_task_machine_ratio,
        task_machine_ratio,
    )
    from .model import MAX_EDGES, MAX_HOSTS, MAX_LANS, MAX_LINKS, MAX_TASKS, MAX_VALUE, TIG, LanGrid
    from .qlse import TaskOrder, greedy_best_fit, qlse, qlse_step, task_order
    from .validate import mapping_violations, validate_mapping
