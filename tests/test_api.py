"""The public names: every name a package lists in ``__all__`` resolves (lazily) to its definition."""

from __future__ import annotations

import importlib

import pytest

import clustersched


@pytest.mark.parametrize("package", ["clustersched", "clustersched.batch", "clustersched.ptg"])
def test_every_public_name_resolves(package):
    module = importlib.import_module(package)
    for name in module.__all__:
        assert getattr(module, name) is not None, name
        assert name in dir(module)


def test_top_level_names_are_the_problem_folders_objects():
    from clustersched.batch import metrics, schedule, simulator, validate
    from clustersched.ptg import algorithms

    assert clustersched.simulate is simulator.simulate
    assert clustersched.Schedule is schedule.Schedule
    assert clustersched.validate_batch is validate.validate_batch
    assert clustersched.batch_metrics is metrics.batch_metrics and clustersched.BatchMetrics is metrics.BatchMetrics
    assert clustersched.PTG_ALGORITHMS is algorithms.ALGORITHMS
    # the cross-problem validator namespace of old
    assert clustersched.validate.validate_batch is validate.validate_batch
    assert clustersched.validate.validate_ptgs is clustersched.validate_ptgs


def test_a_function_named_like_its_module_stays_the_function():
    from clustersched.ptg import selfish

    assert callable(selfish) and selfish.__module__ == "clustersched.ptg.selfish"


def test_unknown_names_raise_attribute_error():
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        clustersched.nope  # noqa: B018


@pytest.mark.parametrize("package", ["clustersched", "clustersched.batch", "clustersched.workload"])
def test_dir_lists_the_public_api_only(package):
    """Issue 30: dir(clustersched) listed TYPE_CHECKING and lazy_exports, the helpers __init__ imports."""
    module = importlib.import_module(package)
    names = dir(module)
    assert "TYPE_CHECKING" not in names and "lazy_exports" not in names
    assert not [n for n in names if n.startswith("_") and not n.endswith("__")]  # no _core, _lazy, _checks
    assert set(module.__all__) <= set(names)
    assert "__version__" in dir(clustersched) and "__doc__" in names


def test_dir_lists_the_problem_folders_imported_or_not():
    assert {"batch", "workload", "ptg", "dfrs", "grid", "scrap"} <= set(dir(clustersched))
