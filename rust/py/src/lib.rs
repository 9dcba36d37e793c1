//! Python bindings of clustersched-core, compiled as `clustersched._core`.
//!
//! Only conversion lives here: numpy arrays in, numpy arrays out, the GIL
//! released around long calls, and every core [`Error`] mapped onto the
//! exception classes declared once in `clustersched.errors`.

use clustersched_core::batch::{BatchSim as CoreSim, Builtin, Jobs};
use clustersched_core::Error;
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

pyo3::import_exception!(clustersched.errors, InvalidWorkloadError);
pyo3::import_exception!(clustersched.errors, InfeasibleError);

fn to_py(err: Error) -> PyErr {
    match err {
        Error::InvalidJob { .. } => InvalidWorkloadError::new_err(err.to_string()),
        Error::InvalidArgument(m) => PyValueError::new_err(m),
        Error::Infeasible(m) => InfeasibleError::new_err(m),
    }
}

fn owned<T: numpy::Element + Copy>(name: &str, a: &PyReadonlyArray1<'_, T>) -> PyResult<Vec<T>> {
    a.as_slice()
        .map(<[T]>::to_vec)
        .map_err(|_| PyValueError::new_err(format!("{name} must be a contiguous 1-D array")))
}

fn parse_policy(name: &str) -> PyResult<Builtin> {
    Builtin::from_name(name)
        .ok_or_else(|| PyValueError::new_err(format!("policy == {name:?}, must be one of 'fcfs', 'easy'")))
}

/// Event-driven simulation of rigid jobs on a homogeneous cluster (see
/// `clustersched.batch`, which is the public interface).
#[pyclass(module = "clustersched._core", name = "BatchSim")]
struct BatchSim {
    inner: CoreSim,
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
    ) -> PyResult<Self> {
        let procs = u32::try_from(procs)
            .map_err(|_| PyValueError::new_err(format!("procs == {procs}, must be in 1..={}", u32::MAX)))?;
        let width = owned("width", &width)?
            .into_iter()
            .enumerate()
            .map(|(job, w)| {
                u32::try_from(w).map_err(|_| {
                    to_py(Error::InvalidJob { job, message: format!("width {w} must be in 1..={procs}") })
                })
            })
            .collect::<PyResult<Vec<u32>>>()?;
        let jobs = Jobs {
            submit: owned("submit", &submit)?,
            runtime: owned("runtime", &runtime)?,
            estimate: owned("estimate", &estimate)?,
            width,
        };
        Ok(BatchSim { inner: CoreSim::new(jobs, procs).map_err(to_py)? })
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
        self.inner.queue().iter().map(|w| w.job as i64).collect::<Vec<_>>().into_pyarray(py)
    }

    /// Running jobs as (job indices, estimated ends, widths), earliest estimated end first.
    #[allow(clippy::type_complexity)]
    fn running<'py>(
        &self,
        py: Python<'py>,
    ) -> (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<f64>>, Bound<'py, PyArray1<i64>>) {
        let (mut jobs, mut ends, mut widths) = (Vec::new(), Vec::new(), Vec::new());
        for (end, job, w) in self.inner.machine().running() {
            jobs.push(job as i64);
            ends.push(end.0);
            widths.push(w as i64);
        }
        (jobs.into_pyarray(py), ends.into_pyarray(py), widths.into_pyarray(py))
    }

    /// Starts waiting job `job` now; raises InfeasibleError if it is not waiting or does not fit.
    fn start(&mut self, job: usize) -> PyResult<()> {
        self.inner.start(job).map_err(to_py)
    }

    /// EASY shadow time and extra processors for a job of `need` processors.
    fn shadow(&self, need: u32) -> PyResult<(f64, u32)> {
        let total = self.inner.machine().total();
        self.inner
            .machine()
            .shadow(clustersched_core::Time(self.inner.now()), need)
            .map(|(t, extra)| (t.0, extra))
            .ok_or_else(|| PyValueError::new_err(format!("need == {need}, must be in 1..={total}")))
    }

    /// Runs built-in `policy` ('fcfs' or 'easy') at the current time stamp.
    fn schedule(&mut self, policy: &str) -> PyResult<()> {
        let policy = parse_policy(policy)?;
        self.inner.schedule(policy);
        Ok(())
    }

    /// Runs built-in `policy` for at most `max_events` time stamps (all if None),
    /// without the GIL. Returns True when the simulation is finished.
    #[pyo3(signature = (policy, max_events=None))]
    fn run(&mut self, py: Python<'_>, policy: &str, max_events: Option<u64>) -> PyResult<bool> {
        let policy = parse_policy(policy)?;
        let inner = &mut self.inner;
        Ok(py.detach(move || inner.run(policy, max_events)))
    }

    /// Start time of every job (NaN where not started).
    fn starts<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        self.inner.starts().to_vec().into_pyarray(py)
    }

    /// Processor ids as CSR (offsets of length n+1, ids).
    fn assignment<'py>(&self, py: Python<'py>) -> (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>) {
        let (offsets, ids) = self.inner.assignment();
        (
            offsets.into_iter().map(|o| o as i64).collect::<Vec<_>>().into_pyarray(py),
            ids.into_iter().map(i64::from).collect::<Vec<_>>().into_pyarray(py),
        )
    }
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<BatchSim>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
