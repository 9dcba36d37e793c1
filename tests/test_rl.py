"""clustersched.rl: the Gymnasium environment over the batch simulator's Rust state.

Differential tests against tests/reference/rl.py (the decision semantics written plainly in Python) on
hypothesis traces and action sequences; the equivalences with simulate() (head picks are FCFS and EASY);
gymnasium's checker; 10**5 random legal steps; determinism; the vector environment; typed errors.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

gym = pytest.importorskip("gymnasium")

import clustersched as cs  # noqa: E402
from clustersched import rl  # noqa: E402
from clustersched.batch import batch_metrics, estimates_of  # noqa: E402
from clustersched.errors import InvalidWorkloadError  # noqa: E402

from reference.rl import ReferenceEpisode  # noqa: E402
from support import swf_path  # noqa: E402

RLSCHEDULER_TRACE = "small/rlscheduler__lublin_256.swf"


@st.composite
def traces(draw, max_jobs=24):
    """A small loaded trace: ties in submit times, zero-length jobs, estimates above run times."""
    n = draw(st.integers(1, max_jobs))
    procs = draw(st.integers(1, 8))
    gaps = draw(st.lists(st.integers(0, 6), min_size=n, max_size=n))
    runtime = draw(st.lists(st.integers(0, 30), min_size=n, max_size=n))
    extra = draw(st.lists(st.integers(0, 30), min_size=n, max_size=n))
    width = draw(st.lists(st.integers(1, procs), min_size=n, max_size=n))
    submit = np.cumsum(gaps) + draw(st.integers(0, 3))
    table = cs.JobTable(
        {
            "submit": submit,
            "runtime": runtime,
            "procs": width,
            "time_requested": np.array(runtime) + np.array(extra),
            "user_id": draw(st.lists(st.integers(-1, 9), min_size=n, max_size=n)),
        },
        metadata={"MaxProcs": str(procs)},
    )
    return table, procs


def _reference(table, procs, env, **options):
    est = estimates_of(table)
    static = None
    if env.options["layout"] == "rlscheduler":
        users = np.maximum(table.user_id.astype(float), 0.0)
        scaled = np.minimum(users / users.max(), 1 - 1e-5) if users.max() > 0 else users
        static = [[0.0, np.float32(u), 0.0, 0.0] for u in scaled]
    return ReferenceEpisode(
        table.submit,
        table.runtime,
        est,
        table.width(),
        procs,
        slots=env.options["slots"],
        backfill=env.options["backfill"],
        layout=env.options["layout"],
        static=static,
        **options,
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    trace=traces(),
    slots=st.integers(1, 6),
    backfill=st.sampled_from(rl.BACKFILL),
    layout=st.sampled_from(rl.LAYOUTS),
    cost=st.sampled_from(["bounded_slowdown", "wait", "utilization"]),
    dense=st.booleans(),
    actions=st.lists(st.integers(-1, 7), min_size=1, max_size=40),
)
def test_every_step_matches_the_reference(trace, slots, backfill, layout, cost, dense, actions):
    table, procs = trace
    dense = dense and cost != "utilization"
    env = rl.BatchPickEnv(
        table,
        window=len(table),
        slots=slots,
        backfill=backfill,
        layout=layout,
        reward=cost,
        dense=dense,
        split="all",
        max_wait=40.0,
        max_run=25.0,
        illegal_penalty=0.5,
    )
    ref = _reference(table, procs, env, cost=cost, dense=dense, max_wait=40.0, max_run=25.0, illegal_penalty=0.5)
    obs, _ = env.reset(options={"first": 0})
    done, k = False, 0
    while True:
        want_obs, want_mask = ref.observation()
        np.testing.assert_array_equal(obs, want_obs)
        np.testing.assert_array_equal(env.action_masks(), want_mask)
        if done:
            break
        action = actions[k] if k < len(actions) else 0  # then the head: every episode ends
        k += 1
        obs, reward, done, truncated, info = env.step(action)
        want_reward, want_done, legal = ref.step(action)
        assert (done, truncated, info["legal"]) == (want_done, False, legal)
        assert reward == pytest.approx(want_reward, rel=1e-12, abs=1e-12)
    np.testing.assert_array_equal(info["schedule"].start, ref.start)


@settings(max_examples=60, deadline=None)
@given(trace=traces(), slots=st.integers(1, 6), backfill=st.sampled_from(rl.BACKFILL))
def test_the_baselines_pick_as_the_reference(trace, slots, backfill):
    table, procs = trace
    env = rl.BatchPickEnv(table, window=len(table), slots=slots, backfill=backfill, split="all")
    for score in rl.SCORES:
        env.reset(options={"first": 0})
        ref = _reference(table, procs, env)
        episode = env.unwrapped._episode
        while not ref.done:
            assert episode.pick(score) == ref.pick(score), score
            env.step(episode.pick(score))
            ref.step(ref.pick(score))
        np.testing.assert_array_equal(episode.starts(), ref.start)


@settings(max_examples=80, deadline=None)
@given(trace=traces(max_jobs=40))
def test_picking_the_head_is_fcfs_and_easy(trace):
    table, procs = trace
    for backfill, policy in (("none", "fcfs"), ("easy", "easy")):
        env = rl.BatchPickEnv(table, window=len(table), slots=3, backfill=backfill, split="all")
        env.reset(options={"first": 0})
        _, info = env.play("fcfs")
        run = cs.simulate(table, policy, procs=procs)
        np.testing.assert_array_equal(info["schedule"].start, run.schedule.start)
        np.testing.assert_array_equal(info["schedule"].proc_first, run.schedule.proc_first)
        np.testing.assert_array_equal(env.unwrapped._episode.reservations(), run.reservations)


@pytest.mark.parametrize("backfill, policy", [("none", "fcfs"), ("easy", "easy")])
def test_head_picks_on_rlschedulers_trace_are_simulates_schedules(backfill, policy):
    env = rl.BatchPickEnv(swf_path(RLSCHEDULER_TRACE), backfill=backfill, split="all")
    for first in env.trace.windows[::8]:
        env.reset(options={"first": int(first)})
        done = False
        while not done:
            _, _, done, _, info = env.step(0)  # one step per decision, through the Python API
        expected = cs.simulate(env.trace.window_jobs(int(first)), policy, procs=256).schedule
        np.testing.assert_array_equal(info["schedule"].start, expected.start)


@pytest.mark.parametrize("env_id", list(rl.ENV_IDS))
def test_gymnasium_checker_passes_on_the_registered_ids(env_id):
    from gymnasium.utils.env_checker import check_env

    env = gym.make(env_id)  # no argument: the default trace
    assert env.unwrapped.trace.procs == 256 and len(env.unwrapped.trace.jobs) == 10_000
    check_env(gym.make(env_id, window=64, slots=16).unwrapped)
    assert gym.make(f"clustersched.rl:{env_id}").unwrapped.options["backfill"] == rl.ENV_IDS[env_id]["backfill"]


def test_random_legal_actions_for_a_hundred_thousand_steps():
    env = gym.make("clustersched/BatchPickEasy-v0", window=128, slots=32)
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=0)
    episodes = 0
    for _ in range(100_000):
        mask = env.unwrapped.action_masks()
        assert mask.any() and env.observation_space.contains(obs)
        obs, reward, done, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        assert info["legal"] and not truncated
        if done:
            episodes += 1
            assert len(info["schedule"]) == 128  # validated (tests set CLUSTERSCHED_VALIDATE)
            assert reward == pytest.approx(-info["metrics"]["avg_bounded_slowdown"], rel=1e-12)
            obs, _ = env.reset()
    assert episodes > 100


def test_an_illegal_action_is_a_no_op():
    env = rl.BatchPickEnv(window=64, slots=128, illegal_penalty=2.0)
    obs, _ = env.reset(seed=3)
    episode = env._episode
    now, visible = episode.now, episode.visible
    assert visible < 128
    for bad in (visible, 127, -1, 10**6):
        again, reward, done, truncated, info = env.step(bad)
        assert (reward, done, truncated, info["legal"]) == (-2.0, False, False, False)
        np.testing.assert_array_equal(again, obs)
        assert (episode.now, episode.visible, episode.counts()[0]) == (now, visible, 0)


def test_the_same_seed_gives_the_same_episodes_and_the_vector_env_draws_as_single_ones():
    def firsts(env, seed, n):
        out = [env.reset(seed=seed)[1]["first"]]
        out += [env.reset()[1]["first"] for _ in range(n - 1)]
        return out

    a, b = rl.BatchPickEnv(window=32), rl.BatchPickEnv(window=32)
    assert firsts(a, 7, 5) == firsts(b, 7, 5) != firsts(b, 8, 5)
    envs = rl.BatchPickVectorEnv(3, window=32, slots=8)
    _, infos = envs.reset(seed=7)
    singles = [rl.BatchPickEnv(window=32, slots=8) for _ in range(3)]
    expected = [firsts(s, 7 + i, 3) for i, s in enumerate(singles)]
    assert infos["first"].tolist() == [e[0] for e in expected]
    seen = [[f] for f in infos["first"].tolist()]
    while min(map(len, seen)) < 3:
        _, _, _, _, _ = envs.step(np.zeros(3, dtype=np.int64))
        for i, f in enumerate(envs._episodes.firsts().tolist()):
            if f != seen[i][-1] or envs._reset[i]:
                seen[i].append(f)
    assert [s[:3] for s in seen] == expected


def test_the_vector_env_steps_as_single_envs_with_next_step_autoreset():
    n, window = 4, 48
    envs = rl.BatchPickVectorEnv(n, window=window, slots=16, backfill="easy", dense=True)
    singles = [rl.BatchPickEnv(window=window, slots=16, backfill="easy", dense=True) for _ in range(n)]
    obs, infos = envs.reset(seed=11)
    single_obs = [s.reset(seed=11 + i)[0] for i, s in enumerate(singles)]
    np.testing.assert_array_equal(obs, np.stack(single_obs))
    rng = np.random.default_rng(1)
    pending = [False] * n
    ended = 0
    for _ in range(600):
        masks = envs.action_masks()
        # an ended episode shows no legal slot: its action is ignored at the next step
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        for i, s in enumerate(singles):
            if pending[i]:  # next-step autoreset: reward 0, the new episode's first observation
                o, _ = s.reset()
                assert rewards[i] == 0.0 and not terminated[i]
                pending[i] = False
            else:
                o, r, d, _, info = s.step(actions[i])
                assert (rewards[i], terminated[i]) == (pytest.approx(r, rel=1e-12, abs=1e-15), d)
                if d:
                    pending[i] = True
                    ended += 1
                    assert infos["_avg_bounded_slowdown"][i]
                    for key in ("avg_bounded_slowdown", "avg_wait", "utilization", "makespan"):
                        assert infos[key][i] == pytest.approx(info["metrics"][key], rel=1e-12), key
            np.testing.assert_array_equal(obs[i], o)
    assert ended >= n
    assert not truncated.any()


def test_make_vec_builds_the_vector_env():
    envs = gym.make_vec("clustersched/BatchPickEasy-v0", 2, vectorization_mode="vector_entry_point", window=32)
    assert isinstance(envs, rl.BatchPickVectorEnv) and envs.options["backfill"] == "easy"
    obs, _ = envs.reset(seed=0)
    assert obs.shape == (2, 128, 8) and envs.observation_space.contains(obs)


def test_rewards_dense_sums_to_sparse_and_named_costs_are_the_metrics():
    for cost, key, sign in (("bounded_slowdown", "avg_bounded_slowdown", -1), ("wait", "avg_wait", -1)):
        totals = []
        for dense in (False, True):
            env = rl.BatchPickEnv(window=64, reward=cost, dense=dense, backfill="easy")
            env.reset(seed=5)
            total, info = env.play("sjf")
            totals.append(total)
        assert totals[0] == pytest.approx(totals[1], rel=1e-9)
        assert totals[0] == pytest.approx(sign * info["metrics"][key], rel=1e-12)
    env = rl.BatchPickEnv(window=64, reward="utilization")
    env.reset(seed=5)
    total, info = env.play("f1")
    assert total == pytest.approx(info["metrics"]["utilization"] - 1.0, rel=1e-12)
    env = rl.BatchPickEnv(window=64, reward=lambda m: float(m.wait.max()))
    env.reset(seed=5)
    total, info = env.play("fcfs")
    assert total == -batch_metrics(info["schedule"]).wait.max()


def test_train_and_test_windows_never_share_a_job():
    train, test = rl.BatchPickEnv(split="train"), rl.BatchPickEnv(split="test")
    rng = np.random.default_rng(0)
    last_train = max(train.trace.draw(rng) for _ in range(2000)) + train.trace.window - 1
    assert last_train < test.trace.rows[0] <= min(test.trace.windows)
    assert test.trace.rows == (8000, 10_000) and len(test.trace.windows) == 7
    with pytest.raises(ValueError, match="first == 0, must be >= 8000"):
        test.reset(options={"first": 0})


def test_compare_lists_every_baseline_on_the_same_windows():
    env = rl.BatchPickEnv(window=64, slots=32, split="test")
    firsts = env.trace.windows[:4]
    agent_rows = rl.compare(env, {"head": lambda obs, mask: 0}, firsts=firsts)
    by_name = {r["policy"]: r for r in agent_rows}
    assert list(by_name) == [*rl.BASELINES, "head"]
    assert by_name["head"]["avg_bounded_slowdown"] == by_name["fcfs"]["avg_bounded_slowdown"]
    assert by_name["easy"]["backfill"] == "easy" and by_name["sjf"]["backfill"] == "none"
    assert all(r["windows"] == 4 for r in agent_rows)
    # EASY, scored in the environment, is simulate()'s EASY on the same windows
    easy = [
        cs.simulate(env.trace.window_jobs(int(f)), "easy", procs=256).metrics.bounded_slowdown.mean() for f in firsts
    ]
    assert by_name["easy"]["avg_bounded_slowdown"] == pytest.approx(np.mean(easy), rel=1e-12)


def test_bad_input_gets_a_typed_error_naming_it():
    with pytest.raises(InvalidWorkloadError, match="fewer than a window of 300"):
        rl.BatchPickEnv(
            cs.JobTable({"submit": [0] * 100, "runtime": [1] * 100, "procs": [1] * 100}), procs=4, window=300
        )
    bad = cs.JobTable({"submit": [0, 1], "runtime": [5, 5], "procs": [1, 9]}, metadata={"MaxProcs": "4"})
    with pytest.raises(InvalidWorkloadError, match="needs 9 processors") as info:
        rl.BatchPickEnv(bad, window=1, split="all")
    assert info.value.job_id == 2
    for option, value, words in (
        ("backfill", "conservative", "backfill == 'conservative'"),
        ("layout", "deeprm", "layout == 'deeprm'"),
        ("reward", "makespan", "reward == 'makespan'"),
        ("slots", 0, "slots == 0, must be >= 1"),
        ("max_wait", -1.0, "max_wait == -1.0, must be > 0"),
        ("illegal_penalty", -1.0, "illegal_penalty == -1.0, must be >= 0"),
    ):
        with pytest.raises(ValueError, match=words):
            rl.BatchPickEnv(window=32, **{option: value})
    with pytest.raises(ValueError, match="utilization is no sum over jobs"):
        rl.BatchPickEnv(window=32, reward="utilization", dense=True)
    env = rl.BatchPickEnv(window=32)
    with pytest.raises(gym.error.ResetNeeded):
        env.step(0)
    with pytest.raises(ValueError, match="unknown"):
        env.reset(options={"start": 3})
    env.reset(seed=0)
    env.play("fcfs")
    with pytest.raises(ValueError, match="the episode is over"):
        env.step(0)
    with pytest.raises(ValueError, match="policy == 'lifo'"):
        rl.evaluate("lifo", env)


def test_the_maskable_ppo_example_compiles_and_asks_for_its_extra_when_missing():
    import importlib.util
    import runpy
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "examples" / "train_maskable_ppo.py"
    compile(path.read_text(), str(path), "exec")
    if importlib.util.find_spec("sb3_contrib") is not None:
        pytest.skip("sb3-contrib is installed: the example would train")
    main = runpy.run_path(str(path), run_name="example")["main"]
    assert main(["--steps", "1"]) == 2


def test_info_holds_no_wall_clock_value():
    env = rl.BatchPickEnv(window=32)
    _, info = env.reset(seed=0)
    infos = [info]
    done = False
    while not done:
        _, _, done, _, info = env.step(0)
        infos.append(info)
    keys = {k for i in infos for k in i} | set(infos[-1]["metrics"])
    assert not {k for k in keys if any(w in k for w in ("second", "wall", "time", "clock"))}, keys
    assert "seconds" not in infos[-1]["schedule"].options


def test_the_kernel_refuses_bad_arrays_with_a_value_error():
    from clustersched import _core

    f, i = np.zeros(3), np.ones(3, dtype=np.int64)
    with pytest.raises(ValueError, match="static_features has 2 values, must be 4 per job"):
        _core.RlTrace(f, f, f, i, 4, np.zeros(2, dtype=np.float32))
    trace = _core.RlTrace(f, f, f, i, 4, np.zeros(0, dtype=np.float32))
    config = (3, 2, "none", "clustersched", "wait", False, 1.0, 1.0, 10.0, 0.0)
    with pytest.raises(ValueError, match="first == 1, must be between 0 and 0"):
        _core.RlEpisode(trace, 1, *config)
    with pytest.raises(ValueError, match="backfill == 'fcfs', must be one of 'none', 'easy'"):
        _core.RlEpisode(trace, 0, 3, 2, "fcfs", *config[3:])
    episode = _core.RlEpisode(trace, 0, *config)
    with pytest.raises(ValueError, match="observation buffers of 8 and 2 values, must be 16 and 2"):
        episode.observe(np.zeros((1, 8), dtype=np.float32), np.zeros(2, dtype=bool))
    with pytest.raises(ValueError, match="score == 'lifo'"):
        episode.pick("lifo")
