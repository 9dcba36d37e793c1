"""Shared test fixtures: where the real traces are, and small helpers."""

from __future__ import annotations

import pytest

from support import swf_path


@pytest.fixture(autouse=True)
def validate_every_schedule(monkeypatch):
    """Every batch schedule a test makes goes through clustersched.validate (see simulate())."""
    monkeypatch.setenv("CLUSTERSCHED_VALIDATE", "1")


@pytest.fixture(scope="session")
def hpc2n():
    """The whole cleaned HPC2N-2002 trace (202,871 jobs, 240 processors)."""
    from clustersched.workload.swf import read_swf

    return read_swf(swf_path("HPC2N-2002-2.2-cln.swf.gz"))


@pytest.fixture(scope="session")
def hpc2n_head(hpc2n):
    """A 3,000-job slice of HPC2N from a busy period (rows 30,000-32,999)."""
    return hpc2n.select(slice(30_000, 33_000))


def pytest_terminal_summary(terminalreporter):
    """Each fuzzer's cases and time (tests/sandbox.py), so CI logs show what the fuzz covered, and
    each example notebook's time (tests/test_examples.py)."""
    import sys

    sandbox = sys.modules.get("sandbox")
    if sandbox is not None and sandbox.REPORTS:
        terminalreporter.section("fuzzers")
        for name, cases, rejected, seconds in sandbox.REPORTS:
            terminalreporter.write_line(
                f"{name}: {cases} cases ({rejected} rejected with a typed error) in {seconds:.1f} s"
            )
    examples = sys.modules.get("test_examples")
    if examples is not None and examples.TIMES:
        terminalreporter.section("notebooks")
        for name, seconds in examples.TIMES:
            terminalreporter.write_line(f"{name}: {seconds:.1f} s in a fresh kernel")
