"""Workloads: job tables and their requests, SWF traces, Batsim workloads, synthetic models.

Names are imported on first use (see :mod:`clustersched._lazy`), so that
reading a trace does not import the Batsim reader or the synthetic models.
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

__all__ = [
    "CLIPPED_TO_MACHINE",
    "ESTIMATE_MODELS",
    "EstimateModel",
    "LUBLIN_PARAMS",
    "NONPOSITIVE_RUNTIME",
    "NO_PROCESSOR_COUNT",
    "REQUEST_FIELDS",
    "WIDER_THAN_MACHINE",
    "SWF_FIELDS",
    "Dropped",
    "JobTable",
    "LublinParams",
    "Requests",
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
    "sample_trace",
    "scale_submit",
    "scale_to_load",
    "time_window",
    "time_windows",
    "write_batsim",
    "with_estimates",
    "write_swf",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "CLIPPED_TO_MACHINE": ".transform",
        "ESTIMATE_MODELS": ".estimates",
        "EstimateModel": ".estimates",
        "LUBLIN_PARAMS": ".lublin",
        "NONPOSITIVE_RUNTIME": ".transform",
        "NO_PROCESSOR_COUNT": ".transform",
        "REQUEST_FIELDS": ".requests",
        "WIDER_THAN_MACHINE": ".transform",
        "SWF_FIELDS": ".jobs",
        "Dropped": ".jobs",
        "JobTable": ".jobs",
        "LublinParams": ".lublin",
        "Requests": ".requests",
        "drop_invalid": ".transform",
        "f_model": ".estimates",
        "invalid_jobs": ".transform",
        "lublin_daily_cycle": ".lublin",
        "lublin_feitelson": ".lublin",
        "modal_model": ".estimates",
        "offered_load": ".transform",
        "parse_estimate_model": ".estimates",
        "read_batsim": ".batsim",
        "read_swf": ".swf",
        "read_trace": ".formats",
        "sample_trace": ".samples",
        "scale_submit": ".transform",
        "scale_to_load": ".transform",
        "time_window": ".transform",
        "time_windows": ".transform",
        "write_batsim": ".batsim",
        "with_estimates": ".estimates",
        "write_swf": ".swf",
    },
    public=__all__,
)

if TYPE_CHECKING:
    from .batsim import read_batsim, write_batsim
    from .estimates import ESTIMATE_MODELS, EstimateModel, f_model, modal_model, parse_estimate_model, with_estimates
    from .formats import read_trace
    from .jobs import SWF_FIELDS, Dropped, JobTable
    from .lublin import LUBLIN_PARAMS, LublinParams, lublin_daily_cycle, lublin_feitelson
    from .requests import REQUEST_FIELDS, Requests
    from .samples import sample_trace
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
        time_window,
        time_windows,
    )
