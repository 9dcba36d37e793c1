//! Bindings of the reinforcement-learning kernel (`clustersched_core::rl`):
//! a trace, one episode stepped per call, and many episodes stepped in one
//! call without the GIL. `clustersched.rl` is the public interface.

use std::sync::Arc;

use clustersched_core::batch::Jobs;
use clustersched_core::rl::{self, Backfill, Config, Cost, Layout, Score, StepBuffers};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1, PyReadwriteArray1, PyReadwriteArray2, PyReadwriteArray3};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors::to_py;
use crate::owned;

/// The writable contiguous data of a numpy array, or ValueError naming it.
macro_rules! slice_mut {
    ($name:expr, $a:expr) => {
        $a.as_slice_mut()
            .map_err(|_| PyValueError::new_err(format!("{} must be a contiguous writable array", $name)))?
    };
}

fn choice<T: Copy>(name: &str, value: &str, options: &[(&str, T)]) -> PyResult<T> {
    options
        .iter()
        .find(|(n, _)| *n == value)
        .map(|&(_, t)| t)
        .ok_or_else(|| {
            let names: Vec<String> = options.iter().map(|(n, _)| format!("'{n}'")).collect();
            PyValueError::new_err(format!("{name} == '{value}', must be one of {}", names.join(", ")))
        })
}

fn score_of(name: &str) -> PyResult<Score> {
    choice(
        "score",
        name,
        &[
            ("fcfs", Score::Fcfs),
            ("sjf", Score::Sjf),
            ("wfp3", Score::Wfp3),
            ("unicep", Score::Unicep),
            ("f1", Score::F1),
        ],
    )
}

fn index(name: &str, x: i64) -> PyResult<usize> {
    usize::try_from(x).map_err(|_| PyValueError::new_err(format!("{name} == {x}, must be >= 0")))
}

/// A trace on a processor pool, shared by the episodes cut from it.
#[pyclass(module = "clustersched._core", name = "RlTrace", frozen)]
struct RlTrace {
    inner: Arc<rl::Trace>,
}

#[pymethods]
impl RlTrace {
    #[new]
    fn new(
        submit: PyReadonlyArray1<'_, f64>,
        runtime: PyReadonlyArray1<'_, f64>,
        estimate: PyReadonlyArray1<'_, f64>,
        width: PyReadonlyArray1<'_, i64>,
        procs: i64,
        static_features: PyReadonlyArray1<'_, f32>,
    ) -> PyResult<Self> {
        let procs = u32::try_from(procs)
            .ok()
            .filter(|&p| p >= 1)
            .ok_or_else(|| PyValueError::new_err(format!("procs == {procs}, must be between 1 and {}", u32::MAX)))?;
        let jobs = Jobs {
            submit: owned("submit", &submit)?,
            runtime: owned("runtime", &runtime)?,
            estimate: owned("estimate", &estimate)?,
            width: Jobs::widths(&owned("width", &width)?, procs).map_err(to_py)?,
        };
        let trace = rl::Trace::new(jobs, procs, owned("static_features", &static_features)?).map_err(to_py)?;
        Ok(RlTrace { inner: Arc::new(trace) })
    }

    /// Number of jobs.
    fn __len__(&self) -> usize {
        self.inner.len()
    }
}

/// The settings of an environment, checked by the core.
#[allow(clippy::too_many_arguments)]
fn config(
    window: i64,
    slots: i64,
    backfill: &str,
    layout: &str,
    cost: &str,
    dense: bool,
    max_wait: f64,
    max_run: f64,
    tau: f64,
    illegal_penalty: f64,
) -> PyResult<Config> {
    Ok(Config {
        window: index("window", window)?,
        slots: index("slots", slots)?,
        backfill: choice(
            "backfill",
            backfill,
            &[("none", Backfill::None), ("easy", Backfill::Easy)],
        )?,
        layout: choice(
            "layout",
            layout,
            &[
                ("clustersched", Layout::Clustersched),
                ("rlscheduler", Layout::RlScheduler),
            ],
        )?,
        cost: choice(
            "cost",
            cost,
            &[
                ("bounded_slowdown", Cost::BoundedSlowdown),
                ("wait", Cost::Wait),
                ("utilization", Cost::Utilization),
            ],
        )?,
        dense,
        max_wait,
        max_run,
        tau,
        illegal_penalty,
    })
}

/// One episode (a window of a trace), stepped one decision per call.
#[pyclass(module = "clustersched._core", name = "RlEpisode")]
struct RlEpisode {
    inner: rl::Episode,
}

#[pymethods]
impl RlEpisode {
    #[new]
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (trace, first, window, slots, backfill, layout, cost, dense, max_wait, max_run, tau, illegal_penalty))]
    fn new(
        trace: &RlTrace,
        first: i64,
        window: i64,
        slots: i64,
        backfill: &str,
        layout: &str,
        cost: &str,
        dense: bool,
        max_wait: f64,
        max_run: f64,
        tau: f64,
        illegal_penalty: f64,
    ) -> PyResult<Self> {
        let c = config(
            window,
            slots,
            backfill,
            layout,
            cost,
            dense,
            max_wait,
            max_run,
            tau,
            illegal_penalty,
        )?;
        let inner = rl::Episode::new(Arc::clone(&trace.inner), c, index("first", first)?).map_err(to_py)?;
        Ok(RlEpisode { inner })
    }

    /// Starts over on the window beginning at trace row `first`.
    fn reset(&mut self, first: i64) -> PyResult<()> {
        self.inner.reset(index("first", first)?).map_err(to_py)
    }

    /// Plays slot `action`; writes the next observation and mask; returns (reward, terminated, legal).
    fn step(
        &mut self,
        action: i64,
        mut obs: PyReadwriteArray2<'_, f32>,
        mut mask: PyReadwriteArray1<'_, bool>,
    ) -> PyResult<(f64, bool, bool)> {
        let o = self.inner.step(action).map_err(to_py)?;
        self.inner
            .observe(slice_mut!("obs", obs), slice_mut!("mask", mask))
            .map_err(to_py)?;
        Ok((o.reward, o.terminated, o.legal))
    }

    /// Writes the current observation and mask.
    fn observe(&self, mut obs: PyReadwriteArray2<'_, f32>, mut mask: PyReadwriteArray1<'_, bool>) -> PyResult<()> {
        self.inner
            .observe(slice_mut!("obs", obs), slice_mut!("mask", mask))
            .map_err(to_py)
    }

    /// The slot baseline `score` picks now.
    fn pick(&self, score: &str) -> PyResult<i64> {
        Ok(self.inner.pick(score_of(score)?))
    }

    /// Plays baseline `score` to the end; returns the sum of the rewards.
    fn play(&mut self, py: Python<'_>, score: &str) -> PyResult<f64> {
        let score = score_of(score)?;
        let inner = &mut self.inner;
        py.detach(|| inner.play(score)).map_err(to_py)
    }

    /// (mean bounded slowdown, mean wait, utilization, makespan) of the jobs started so far.
    fn metrics(&self) -> (f64, f64, f64, f64) {
        let m = self.inner.metrics();
        (m.bounded_slowdown, m.wait, m.utilization, m.makespan)
    }

    /// The cost the reward negates, so far.
    fn cost(&self) -> f64 {
        self.inner.cost()
    }

    /// Start time of each job of the window (NaN where not started).
    fn starts<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        self.inner.sim().starts().to_vec().into_pyarray(py)
    }

    /// First reservation of each job of the window (NaN where none).
    fn reservations<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        self.inner.sim().reservations().to_vec().into_pyarray(py)
    }

    /// Processor runs as CSR: (offsets of length n+1, first ids, counts).
    #[allow(clippy::type_complexity)]
    fn assignment<'py>(
        &self,
        py: Python<'py>,
    ) -> (
        Bound<'py, PyArray1<i64>>,
        Bound<'py, PyArray1<i64>>,
        Bound<'py, PyArray1<i64>>,
    ) {
        let (offsets, first, count) = self.inner.sim().assignment();
        (offsets.into_pyarray(py), first.into_pyarray(py), count.into_pyarray(py))
    }

    /// Current simulated time.
    #[getter]
    fn now(&self) -> f64 {
        self.inner.sim().now()
    }

    /// Processors free now.
    #[getter]
    fn free(&self) -> u64 {
        self.inner.sim().free_cores()
    }

    /// The window's first row in the trace.
    #[getter]
    fn first(&self) -> usize {
        self.inner.first()
    }

    /// Waiting jobs visible now (legal slots are 0..visible).
    #[getter]
    fn visible(&self) -> usize {
        self.inner.visible()
    }

    /// Window rows of the visible jobs, slot by slot.
    fn visible_jobs<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        self.inner
            .sim()
            .queue()
            .iter()
            .take(self.inner.visible())
            .map(|w| i64::from(w.job))
            .collect::<Vec<_>>()
            .into_pyarray(py)
    }

    /// True once every job of the window has started.
    #[getter]
    fn done(&self) -> bool {
        self.inner.done()
    }

    /// (legal decisions, illegal actions) since the reset.
    fn counts(&self) -> (u64, u64) {
        self.inner.counts()
    }
}

/// Many episodes of one trace and one configuration, stepped together.
#[pyclass(module = "clustersched._core", name = "RlEpisodes")]
struct RlEpisodes {
    inner: rl::Episodes,
}

#[pymethods]
impl RlEpisodes {
    #[new]
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (trace, firsts, window, slots, backfill, layout, cost, dense, max_wait, max_run, tau, illegal_penalty))]
    fn new(
        trace: &RlTrace,
        firsts: PyReadonlyArray1<'_, i64>,
        window: i64,
        slots: i64,
        backfill: &str,
        layout: &str,
        cost: &str,
        dense: bool,
        max_wait: f64,
        max_run: f64,
        tau: f64,
        illegal_penalty: f64,
    ) -> PyResult<Self> {
        let c = config(
            window,
            slots,
            backfill,
            layout,
            cost,
            dense,
            max_wait,
            max_run,
            tau,
            illegal_penalty,
        )?;
        let firsts = owned("firsts", &firsts)?
            .into_iter()
            .map(|f| index("firsts[i]", f))
            .collect::<PyResult<Vec<_>>>()?;
        let inner = rl::Episodes::new(Arc::clone(&trace.inner), c, &firsts).map_err(to_py)?;
        Ok(RlEpisodes { inner })
    }

    /// Resets episode `i` on the window beginning at trace row `first`.
    fn reset_one(&mut self, i: i64, first: i64) -> PyResult<()> {
        let n = self.inner.episodes().len();
        let e = self
            .inner
            .episode_mut(index("i", i)?)
            .ok_or_else(|| PyValueError::new_err(format!("i == {i}, must be below {n}")))?;
        e.reset(index("first", first)?).map_err(to_py)
    }

    /// Writes every episode's observation and mask.
    fn observe(&self, mut obs: PyReadwriteArray3<'_, f32>, mut mask: PyReadwriteArray2<'_, bool>) -> PyResult<()> {
        self.inner
            .observe(slice_mut!("obs", obs), slice_mut!("mask", mask))
            .map_err(to_py)
    }

    /// Steps every episode (an episode over is reset on `next_first[i]`), without the GIL.
    #[allow(clippy::too_many_arguments)]
    fn step(
        &mut self,
        py: Python<'_>,
        actions: PyReadonlyArray1<'_, i64>,
        next_first: PyReadonlyArray1<'_, i64>,
        mut obs: PyReadwriteArray3<'_, f32>,
        mut mask: PyReadwriteArray2<'_, bool>,
        mut reward: PyReadwriteArray1<'_, f64>,
        mut terminated: PyReadwriteArray1<'_, bool>,
        mut reset: PyReadwriteArray1<'_, bool>,
        mut metrics: PyReadwriteArray2<'_, f64>,
    ) -> PyResult<()> {
        let actions = actions
            .as_slice()
            .map_err(|_| PyValueError::new_err("actions must be a contiguous 1-D array"))?;
        let next_first = next_first
            .as_slice()
            .map_err(|_| PyValueError::new_err("next_first must be a contiguous 1-D array"))?
            .iter()
            .map(|&f| index("next_first[i]", f))
            .collect::<PyResult<Vec<_>>>()?;
        let out = StepBuffers {
            obs: slice_mut!("obs", obs),
            mask: slice_mut!("mask", mask),
            reward: slice_mut!("reward", reward),
            terminated: slice_mut!("terminated", terminated),
            reset: slice_mut!("reset", reset),
            metrics: slice_mut!("metrics", metrics),
        };
        let inner = &mut self.inner;
        py.detach(|| inner.step(actions, &next_first, out)).map_err(to_py)
    }

    /// Start times of episode `i`'s window (NaN where not started).
    fn starts<'py>(&self, py: Python<'py>, i: i64) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let e = self
            .inner
            .episodes()
            .get(index("i", i)?)
            .ok_or_else(|| PyValueError::new_err(format!("i == {i}, must be below the number of episodes")))?;
        Ok(e.sim().starts().to_vec().into_pyarray(py))
    }

    /// The window's first row of every episode.
    fn firsts<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        self.inner
            .episodes()
            .iter()
            .map(|e| e.first() as i64)
            .collect::<Vec<_>>()
            .into_pyarray(py)
    }

    /// Number of episodes.
    fn __len__(&self) -> usize {
        self.inner.episodes().len()
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<RlTrace>()?;
    m.add_class::<RlEpisode>()?;
    m.add_class::<RlEpisodes>()?;
    m.add("RL_FEATURES", rl::FEATURES)?;
    m.add("RL_STATIC_FEATURES", rl::STATIC_FEATURES)?;
    Ok(())
}
