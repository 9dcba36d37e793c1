"""The type stubs of the compiled module match it (docs/layout.md, "Errors" and "Stubs": stubtest checks them)."""

from __future__ import annotations

import subprocess
import sys


def test_core_stubs_match_the_compiled_module():
    run = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "clustersched._core"], capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Success" in run.stdout
