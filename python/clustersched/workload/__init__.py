"""Workloads: job tables, SWF traces, synthetic models."""

from .jobs import SWF_FIELDS, JobTable

__all__ = ["JobTable", "SWF_FIELDS"]
