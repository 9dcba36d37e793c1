"""Every docstring example of every public module runs and prints what it shows.

The examples are collected from the *installed* package (whichever way it was
installed), module by module, so a stale example fails the suite like any
other test.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import clustersched


def _modules() -> list[str]:
    names = ["clustersched"]
    for info in pkgutil.walk_packages(clustersched.__path__, "clustersched."):
        names.append(info.name)
    return sorted(n for n in names if n != "clustersched._core")


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples(name, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # an example that writes a file writes it here
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report: list[str] = []
    tests = finder.find(module, name)
    for test in tests:
        runner.run(test, out=report.append)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, "".join(report)
