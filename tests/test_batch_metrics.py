"""Metrics on hand-computed schedules."""

from __future__ import annotations

import numpy as np
import pytest

from clustersched import Schedule, batch_metrics


def test_hand_computed_values():
    # 2 processors; job A (R=4) starts at once; job B (R=20) waits 4; job C (R=1, short) waits 23.
    s = Schedule(
        job_id=np.array([1, 2, 3]), submit=np.array([0.0, 0.0, 1.0]), start=np.array([0.0, 4.0, 24.0]),
        end=np.array([4.0, 24.0, 25.0]), procs=np.array([2, 2, 1]), total_procs=2,
    )
    m = batch_metrics(s)
    assert m.wait.tolist() == [0.0, 4.0, 23.0]
    assert m.response.tolist() == [4.0, 24.0, 24.0]
    # bounded slowdown with tau = 10: A: max(4/10, 1) = 1; B: 24/20; C: 24/10
    assert m.bounded_slowdown.tolist() == pytest.approx([1.0, 1.2, 2.4])
    assert m.makespan == 25.0
    assert m.utilization == pytest.approx((8 + 40 + 1) / (2 * 25))
    summary = m.summary()
    assert summary["jobs"] == 3 and summary["avg_bounded_slowdown"] == pytest.approx(4.6 / 3)
    assert summary["max_wait"] == 23.0


def test_tau_is_a_parameter_and_checked():
    s = Schedule(job_id=np.array([1]), submit=np.array([0.0]), start=np.array([5.0]), end=np.array([6.0]),
                 procs=np.array([1]), total_procs=1)
    assert batch_metrics(s, tau=1.0).bounded_slowdown.tolist() == [6.0]
    assert batch_metrics(s).bounded_slowdown.tolist() == [1.0]
    with pytest.raises(ValueError, match="tau == 0"):
        batch_metrics(s, tau=0)
