"""Helpers the test modules import (``conftest`` cannot be imported by name: benches/ has one too)."""

from __future__ import annotations

from pathlib import Path

import pytest

#: The real SWF traces (Parallel Workloads Archive), read from ../shared beside the checkout.
SWF_DIR = Path(__file__).resolve().parents[2] / "shared" / "data" / "swf"


def swf_path(name: str) -> Path:
    """Path of a trace in shared/data/swf; skips the test when ../shared is absent."""
    path = SWF_DIR / name
    if not path.exists():
        pytest.skip(f"{path} not found (the tests read the shared traces from ../shared)")
    return path


#: The Slurm files (a real cluster's slurm.conf and sacct dump, simulator workloads), read from ../shared.
SLURM_DIR = Path(__file__).resolve().parents[2] / "shared" / "data" / "slurm"


def slurm_path(name: str) -> Path:
    """Path of a file in shared/data/slurm (``micro/slurm.conf``); skips the test when ../shared is absent."""
    path = SLURM_DIR / name
    if not path.exists():
        pytest.skip(f"{path} not found (the tests read the shared Slurm files from ../shared)")
    return path


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``clustersched.cli.main(argv)``: its status (argparse's SystemExit included), stdout and stderr."""
    from clustersched.cli import main

    try:
        status = main(argv)
    except SystemExit as exc:
        status = exc.code  # type: ignore[assignment]
    captured = capsys.readouterr()
    return status, captured.out, captured.err
