"""Offline scheduling of several parallel task graphs (PTGs) on one cluster (RR-7224).

So far: the schedule container, its independent validator and the metrics;
the algorithms (HCPA, SELFISH, Zhao, CRA, CAFM) come on top of them.
"""

from .metrics import PTGMetrics, cmax_star, ptg_metrics
from .schedule import TaskSchedule
from .validate import ptg_violations, validate_ptgs

__all__ = ["PTGMetrics", "TaskSchedule", "cmax_star", "ptg_metrics", "ptg_violations", "validate_ptgs"]
