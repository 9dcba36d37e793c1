"""read_slurm_events: the Slurm simulator's events files (issue 34, item 6 and 7)."""

from __future__ import annotations

import pytest

from clustersched.errors import InvalidWorkloadError
from clustersched.slurm import read_slurm_events

from support import slurm_path

LINE = (
    "-dt {dt} -e submit_batch_job | -sim-walltime {wall} --uid=user1 -J job{k} -N 2 -n 8 -t 1-00:00:00 "
    "-q normal -p general --mem=4G {extra} pseudo.job"
)


def _events(tmp_path, lines):
    path = tmp_path / "w.events"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_options(tmp_path):
    t = read_slurm_events(
        _events(
            tmp_path,
            [
                LINE.format(dt=1.5, wall=60, k=1, extra="--gres=gpu:2 --gres=gpu:v100:2 --constraint=IB --exclusive"),
                LINE.format(dt=3, wall=0, k=2, extra="--exclusive=user --mem-per-cpu=100 -c 2 --account=a1"),
                "-dt 4 -e submit_batch_job | -sim-walltime 5 --uid=user2 -J job3 --nodes=3 --ntasks-per-node 4 "
                "--time=30 --qos=high --partition=debug pseudo.job",
            ],
        )
    )
    assert t.submit.tolist() == [1.5, 3.0, 4.0] and t.runtime.tolist() == [60.0, 0.0, 5.0]
    assert (t.wait == -1).all() and (t.procs == -1).all() and t.procs_requested.tolist() == [8, 16, 12]
    assert t.time_requested.tolist() == [86400.0, 86400.0, 1800.0]
    assert t.user_id.tolist() == [1, 1, 2] and t.queue.tolist() == [1, 1, 2] and t.partition.tolist() == [1, 1, 2]
    r = t.requests
    assert r.nodes.tolist() == [2, 2, 3] and r.tasks.tolist() == [8, 8, 12] and r.cpus_per_task.tolist() == [1, 2, 1]
    assert r.gpus_per_node.tolist() == [2, 0, 0] and r.gpu_type.tolist() == ["v100", "", ""]  # the last --gres
    assert r.mem_per_node_mb.tolist() == [4096.0, 4096.0, -1.0] and r.mem_per_cpu_mb.tolist() == [-1.0, 100.0, -1.0]
    assert r.exclusive.tolist() == [True, False, False] and r.features.tolist() == ["IB", "", ""]
    assert r.label.tolist() == ["job1", "job2", "job3"] and r.account.tolist() == ["", "a1", ""]
    assert t.mem_requested[0] == 4096 * 1024 * 2 / 8  # KB per processor


@pytest.mark.parametrize(
    ("line", "words"),
    [
        (LINE.format(dt=1, wall=1, k=1, extra="--begin=now"), "option '--begin' is not one read"),
        (LINE.format(dt=1, wall=1, k=1, extra="--mem=lots"), "is not a memory size"),
        (LINE.format(dt=-1, wall=1, k=1, extra=""), "is not a number of seconds"),
        (LINE.format(dt=1, wall=1, k=1, extra="-N 0"), "is not a whole number >= 1"),
        (LINE.format(dt=1, wall=1, k=1, extra="").replace("1-00:00:00", "1h"), "is not a Slurm time"),
        (LINE.format(dt=1, wall=1, k=1, extra="").replace("submit_batch_job", "cancel"), "is not submit_batch_job"),
        ("-dt 1 submit", "is not '-dt SECONDS"),
        (LINE.format(dt=1, wall=1, k=1, extra="").replace("-sim-walltime 1 ", ""), "has no -sim-walltime"),
        (LINE.format(dt=1, wall=1, k=1, extra="stray"), "is not an option"),
    ],
)
def test_errors_name_line_and_option(tmp_path, line, words):
    path = _events(tmp_path, [LINE.format(dt=0, wall=1, k=0, extra=""), line])
    with pytest.raises(InvalidWorkloadError, match=words) as info:
        read_slurm_events(path)
    assert info.value.line == 2 and f"{path}:2" in str(info.value)


def test_medium_cluster_week():
    t = read_slurm_events(slurm_path("medium/workload_week.events.gz"))
    r = t.requests
    assert len(t) > 10_000 and t.submit[0] == 10.5 and t.runtime[0] == 84805.0
    assert r.tasks[0] == 32 and r.mem_per_node_mb[0] == 500 * 1024 and r.time_limit[0] == 3 * 86400
    assert r.label[0] == "jobid_00001" and r.user[0] == "user001" and r.partition[0] == "general-compute"
    assert (r.gpus_per_node > 0).any() and r.exclusive.any() and (r.features != "").any()
    assert (t.runtime >= 0).all() and (r.mem_per_node_mb == -1).any()  # some jobs give no --mem
