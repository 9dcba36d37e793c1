"""Bench fixtures: the whole real traces from ../shared/data/swf."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from clustersched import read_swf

SWF_DIR = Path(__file__).resolve().parents[2] / "shared" / "data" / "swf"
# the slow reference lives with the tests
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))


def trace(name: str):
    path = SWF_DIR / name
    if not path.exists():
        pytest.skip(f"{path} not found (benches read the shared traces from ../shared)")
    return read_swf(path)


@pytest.fixture(scope="session")
def hpc2n():
    return trace("HPC2N-2002-2.2-cln.swf.gz")


@pytest.fixture(scope="session")
def ctc():
    return trace("CTC-SP2-1996-3.1-cln.swf.gz")
