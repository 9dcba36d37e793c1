//! Bindings of the Theorem 1 lower bound (`clustersched_core::dfrs::bound`):
//! one `DfrsStretchBound` built once per job set, whose methods run without
//! the GIL. `clustersched.dfrs.bound` is the public interface.

use clustersched_core::dfrs::bound::StretchBound;
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors::to_py;
use crate::{integers, owned};

/// The Theorem 1 network of a job set on `nodes` nodes (jobs without work
/// are left out; see `clustersched.dfrs.bound`).
#[pyclass(module = "clustersched._core", name = "DfrsStretchBound")]
struct DfrsStretchBound {
    inner: StretchBound,
}

#[pymethods]
impl DfrsStretchBound {
    #[new]
    fn new(
        submit: PyReadonlyArray1<'_, f64>,
        processing_time: PyReadonlyArray1<'_, f64>,
        cpu_need: PyReadonlyArray1<'_, f64>,
        tasks: PyReadonlyArray1<'_, i64>,
        nodes: i64,
        threshold: f64,
    ) -> PyResult<Self> {
        let nodes =
            u64::try_from(nodes).map_err(|_| PyValueError::new_err(format!("nodes == {nodes}, must be >= 1")))?;
        let inner = StretchBound::new(
            &owned("submit", &submit)?,
            &owned("processing_time", &processing_time)?,
            &owned("cpu_need", &cpu_need)?,
            &integers::<u64>("tasks", &tasks, ">= 1")?,
            nodes,
            threshold,
        )
        .map_err(to_py)?;
        Ok(DfrsStretchBound { inner })
    }

    /// Jobs with work (those the bound uses).
    #[getter]
    fn jobs(&self) -> usize {
        self.inner.jobs()
    }

    /// Total work in node CPU-seconds.
    #[getter]
    fn total_work(&self) -> f64 {
        self.inner.total_work()
    }

    /// The bound: (stretch, max flows computed, Newton steps, fell back to bisection).
    fn lower_bound(&self, py: Python<'_>) -> PyResult<(f64, usize, usize, bool)> {
        let inner = &self.inner;
        let s = py.detach(|| inner.lower_bound()).map_err(to_py)?;
        Ok((s.stretch, s.max_flows, s.newton_steps, s.bisection))
    }

    /// Maximum flow at `stretch`: (value, total work, source side of a minimum cut per job with work, arcs).
    fn max_flow<'py>(&self, py: Python<'py>, stretch: f64) -> PyResult<(f64, f64, Bound<'py, PyArray1<bool>>, usize)> {
        let inner = &self.inner;
        let f = py.detach(|| inner.max_flow_at(stretch)).map_err(to_py)?;
        Ok((f.value, f.total_work, f.source_side.into_pyarray(py), f.arcs))
    }

    /// Whether every deadline `r_j + stretch * max(threshold, p_j)` can be met.
    fn feasible(&self, py: Python<'_>, stretch: f64) -> PyResult<bool> {
        let inner = &self.inner;
        py.detach(|| inner.feasible(stretch)).map_err(to_py)
    }

    /// Capacity at `stretch` of the cut whose source side holds the jobs `in_cut`.
    fn cut_capacity(&self, in_cut: PyReadonlyArray1<'_, bool>, stretch: f64) -> PyResult<f64> {
        self.inner
            .cut_capacity(&owned("in_cut", &in_cut)?, stretch)
            .map_err(to_py)
    }
}

/// Adds the bound's class to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<DfrsStretchBound>()
}
