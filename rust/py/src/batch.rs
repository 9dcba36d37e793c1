//! Bindings of the batch simulator (`clustersched_core::batch`): the
//! `BatchSim` class, driven step by step by Python policies or run whole by a
//! built-in one, and DPSA's subset search alone. `clustersched.batch` is the
//! public interface.

use std::time::{Duration, Instant};

use clustersched_core::batch::{self, BatchSim as CoreSim, Builtin, DpsaConfig, DpsaVariant, Jobs, Priority, Runner};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{no_such_row, to_py};
use crate::owned;

/// How long [`BatchSim::run`] runs without the GIL before it looks at
/// Python's signals.
const SIGNAL_INTERVAL: Duration = Duration::from_millis(50);

const ARRIVAL: &str = "arrival";
const SHORTEST_ESTIMATE: &str = "shortest-estimate";

/// The Python name of a queue order.
fn priority_name(priority: Priority) -> &'static str {
    match priority {
        Priority::Arrival => ARRIVAL,
        Priority::ShortestEstimate => SHORTEST_ESTIMATE,
    }
}

/// Event-driven simulation of rigid jobs on a homogeneous cluster (see
/// `clustersched.batch`, which is the public interface).
#[pyclass(module = "clustersched._core", name = "BatchSim")]
struct BatchSim {
    inner: CoreSim,
    /// The built-in policy last run, with the state it keeps between passes.
    runner: Option<Runner>,
}

impl BatchSim {
    /// The runner of `policy`, kept while the same policy is asked for.
    fn runner(&mut self, policy: Builtin) -> &mut Runner {
        if self.runner.as_ref().is_none_or(|r| r.policy() != policy) {
            self.runner = Some(Runner::new(policy));
        }
        self.runner.as_mut().expect("set above")
    }
}

#[pymethods]
impl BatchSim {
    #[new]
    fn new(
        submit: PyReadonlyArray1<'_, f64>,
        runtime: PyReadonlyArray1<'_, f64>,
        estimate: PyReadonlyArray1<'_, f64>,
        width: PyReadonlyArray1<'_, i64>,
        procs: i64,
        order: &str,
    ) -> PyResult<Self> {
        let priority = match order {
            ARRIVAL => Priority::Arrival,
            SHORTEST_ESTIMATE => Priority::ShortestEstimate,
            _ => {
                return Err(PyValueError::new_err(format!(
                    "order == '{order}', must be 'arrival' or 'shortest-estimate'"
                )))
            }
        };
        let procs = u32::try_from(procs)
            .map_err(|_| PyValueError::new_err(format!("procs == {procs}, must be between 1 and {}", u32::MAX)))?;
        let width = Jobs::widths(&owned("width", &width)?, procs).map_err(to_py)?;
        let jobs = Jobs {
            submit: owned("submit", &submit)?,
            runtime: owned("runtime", &runtime)?,
            estimate: owned("estimate", &estimate)?,
            width,
        };
        Ok(BatchSim {
            inner: CoreSim::new(jobs, procs, priority).map_err(to_py)?,
            runner: None,
        })
    }

    /// Applies the next time stamp's events; returns its time, or None when none is left.
    fn advance(&mut self) -> Option<f64> {
        self.inner.advance()
    }

    /// Current simulated time.
    #[getter]
    fn now(&self) -> f64 {
        self.inner.now()
    }

    /// Processors free now.
    #[getter]
    fn free(&self) -> u32 {
        self.inner.machine().free()
    }

    /// Number of processors.
    #[getter]
    fn total(&self) -> u32 {
        self.inner.machine().total()
    }

    /// Time stamps processed so far.
    #[getter]
    fn events(&self) -> u64 {
        self.inner.events()
    }

    /// True once every job has arrived and completed.
    #[getter]
    fn finished(&self) -> bool {
        self.inner.finished()
    }

    /// Waiting job indices in arrival order.
    fn queue<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        self.inner
            .queue()
            .iter()
            .map(|w| w.job as i64)
            .collect::<Vec<_>>()
            .into_pyarray(py)
    }

    /// Running jobs as (job indices, estimated ends, widths), earliest estimated end first.
    #[allow(clippy::type_complexity)]
    fn running<'py>(
        &self,
        py: Python<'py>,
    ) -> (
        Bound<'py, PyArray1<i64>>,
        Bound<'py, PyArray1<f64>>,
        Bound<'py, PyArray1<i64>>,
    ) {
        let (mut jobs, mut ends, mut widths) = (Vec::new(), Vec::new(), Vec::new());
        for (end, job, w) in self.inner.machine().running() {
            jobs.push(job as i64);
            ends.push(end.0);
            widths.push(w as i64);
        }
        (jobs.into_pyarray(py), ends.into_pyarray(py), widths.into_pyarray(py))
    }

    /// Starts waiting job `job` now; raises InfeasibleError if it is not waiting or does not fit.
    fn start(&mut self, job: i64) -> PyResult<()> {
        let index = usize::try_from(job).map_err(|_| no_such_row(job, self.inner.now()))?;
        self.inner.start(index).map_err(to_py)
    }

    /// EASY shadow time and extra processors for a job of `need` processors.
    fn shadow(&self, need: i64) -> PyResult<(f64, u32)> {
        let total = self.inner.machine().total();
        let need = u32::try_from(need)
            .ok()
            .filter(|&n| n >= 1)
            .ok_or_else(|| PyValueError::new_err(format!("need == {need}, must be between 1 and {total}")))?;
        self.inner
            .machine()
            .shadow(clustersched_core::Time(self.inner.now()), need)
            .map(|(t, extra)| (t.0, extra))
            .ok_or_else(|| PyValueError::new_err(format!("need == {need}, must be between 1 and {total}")))
    }

    /// Runs built-in `policy` at the current time stamp.
    #[pyo3(signature = (policy, node_budget=None, time_limit=None))]
    fn schedule(&mut self, policy: &str, node_budget: Option<u64>, time_limit: Option<f64>) -> PyResult<()> {
        let policy = Builtin::from_name_with(policy, node_budget, time_limit).map_err(to_py)?;
        self.runner(policy);
        let (inner, runner) = (&mut self.inner, self.runner.as_mut().expect("set above"));
        runner.schedule(inner).map_err(to_py)
    }

    /// Runs built-in `policy` for at most `max_events` time stamps (all if None),
    /// without the GIL. Returns True when the simulation is finished.
    ///
    /// Every [`SIGNAL_INTERVAL`] of wall clock it takes the GIL back for a
    /// moment to run Python's signal handlers: a Ctrl-C or a SIGTERM handler
    /// that raises (the `clustersched` command's) stops a long run within
    /// about that time plus one time stamp, with the handler's exception.
    /// The simulation keeps the time stamps done so far.
    #[pyo3(signature = (policy, max_events=None, node_budget=None, time_limit=None))]
    fn run(
        &mut self,
        py: Python<'_>,
        policy: &str,
        max_events: Option<u64>,
        node_budget: Option<u64>,
        time_limit: Option<f64>,
    ) -> PyResult<bool> {
        let policy = Builtin::from_name_with(policy, node_budget, time_limit).map_err(to_py)?;
        self.runner(policy);
        let (inner, runner) = (&mut self.inner, self.runner.as_mut().expect("set above"));
        let stop = max_events.map(|m| inner.events().saturating_add(m));
        loop {
            let before = inner.events();
            let left = stop.map(|s| s.saturating_sub(before));
            let until = Instant::now().checked_add(SIGNAL_INTERVAL);
            let done = py.detach(|| runner.run_until(inner, left, until)).map_err(to_py)?;
            py.check_signals()?;
            let after = inner.events();
            if done || after == before || stop.is_some_and(|s| after >= s) {
                return Ok(done);
            }
        }
    }

    /// First reservation of every job (NaN where none was given).
    fn reservations<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        self.inner.reservations().to_vec().into_pyarray(py)
    }

    /// DPSA search statistics: decisions, cut, nodes, max_nodes, decision_seconds.
    fn search_stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.inner.search_stats();
        let d = PyDict::new(py);
        d.set_item("decisions", s.decisions)?;
        d.set_item("cut", s.cut)?;
        d.set_item("nodes", s.nodes)?;
        d.set_item("max_nodes", s.max_nodes)?;
        d.set_item("decision_seconds", s.decision_seconds.clone().into_pyarray(py))?;
        Ok(d)
    }

    /// Start time of every job (NaN where not started).
    fn starts<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        self.inner.starts().to_vec().into_pyarray(py)
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
        let (offsets, first, count) = self.inner.assignment();
        (offsets.into_pyarray(py), first.into_pyarray(py), count.into_pyarray(py))
    }
}

/// DPSA's subset search on one decision (for tests and experiments): the
/// candidates in queue order as widths and "short" flags, the reserved and
/// unreserved free processors, the variant ('p', 'n', 'w'). Returns
/// (chosen indices, utilization, nodes explored, cut).
#[pyfunction]
#[pyo3(signature = (widths, short, reserved, unreserved, variant, node_budget=None))]
#[allow(clippy::type_complexity)]
fn dpsa_select<'py>(
    py: Python<'py>,
    widths: PyReadonlyArray1<'py, i64>,
    short: PyReadonlyArray1<'py, bool>,
    reserved: u32,
    unreserved: u32,
    variant: &str,
    node_budget: Option<u64>,
) -> PyResult<(Bound<'py, PyArray1<i64>>, u32, u64, bool)> {
    let widths = owned("widths", &widths)?;
    let short = owned("short", &short)?;
    if widths.len() != short.len() {
        return Err(PyValueError::new_err(format!(
            "widths and short differ in length: {} and {}",
            widths.len(),
            short.len()
        )));
    }
    let candidates = widths
        .iter()
        .zip(&short)
        .enumerate()
        .map(|(i, (&w, &s))| match u32::try_from(w) {
            Ok(width) if width >= 1 => Ok(batch::Candidate { width, short: s }),
            _ => Err(PyValueError::new_err(format!("widths[{i}] == {w}, must be >= 1"))),
        })
        .collect::<PyResult<Vec<_>>>()?;
    let config = DpsaConfig::new(DpsaVariant::from_name(variant).map_err(to_py)?)
        .with_bounds(node_budget, None)
        .map_err(to_py)?;
    let found = py.detach(|| batch::dpsa::select(&candidates, reserved, unreserved, &config));
    let chosen = found
        .chosen
        .iter()
        .map(|&i| i as i64)
        .collect::<Vec<_>>()
        .into_pyarray(py);
    Ok((chosen, found.utilization, found.nodes, found.cut))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<BatchSim>()?;
    m.add_function(wrap_pyfunction!(dpsa_select, m)?)?;
    // The one list of built-in policy names (the core's), for Python and the
    // CLI, with the queue order each works on.
    m.add("BUILTIN_POLICIES", Builtin::NAMES.to_vec())?;
    let order = PyDict::new(m.py());
    for name in Builtin::NAMES {
        let policy = Builtin::from_name(name).expect("every listed name parses");
        order.set_item(name, priority_name(policy.priority()))?;
    }
    m.add("BUILTIN_QUEUE_ORDER", order)?;
    Ok(())
}
