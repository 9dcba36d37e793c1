"""Workloads: job tables, SWF traces, Batsim workloads, synthetic models."""

from .batsim import read_batsim, write_batsim
from .estimates import ESTIMATE_MODELS, EstimateModel, f_model, modal_model, parse_estimate_model, with_estimates
from .formats import read_trace
from .jobs import SWF_FIELDS, Dropped, JobTable
from .lublin import LUBLIN_PARAMS, LublinParams, lublin_daily_cycle, lublin_feitelson
from .swf import read_swf, write_swf
from .transform import (
    CLIPPED_TO_MACHINE,
    NO_PROCESSOR_COUNT,
    NONPOSITIVE_RUNTIME,
    WIDER_THAN_MACHINE,
    drop_invalid,
    invalid_jobs,
    offered_load,
    scale_submit,
    scale_to_load,
    time_windows,
)

__all__ = [
    "CLIPPED_TO_MACHINE",
    "ESTIMATE_MODELS",
    "EstimateModel",
    "LUBLIN_PARAMS",
    "NONPOSITIVE_RUNTIME",
    "NO_PROCESSOR_COUNT",
    "WIDER_THAN_MACHINE",
    "SWF_FIELDS",
    "Dropped",
    "JobTable",
    "LublinParams",
    "drop_invalid",
    "f_model",
    "invalid_jobs",
    "lublin_daily_cycle",
    "lublin_feitelson",
    "modal_model",
    "offered_load",
    "parse_estimate_model",
    "read_batsim",
    "read_swf",
    "read_trace",
    "scale_submit",
    "scale_to_load",
    "time_windows",
    "write_batsim",
    "with_estimates",
    "write_swf",
]
