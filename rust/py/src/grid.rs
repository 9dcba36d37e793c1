//! Bindings of the grid-mapping kernels (`clustersched_core::grid`): a `Tig`
//! and a `LanGrid` built once per model object, and functions running QLSE,
//! its parts and the best-fit baseline on them without the GIL.
//! `clustersched.grid` is the public interface.

use clustersched_core::grid::{self, Bandwidth, GreedyReading, HostChoice, QlseParams, Quartiles, Weights};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors::to_py;
use crate::{indices, int64s, owned};

/// A task interaction graph: MCR per task, edges (u, v) with their MBR.
#[pyclass(module = "clustersched._core", name = "Tig", frozen)]
struct Tig {
    inner: grid::Tig,
}

#[pymethods]
impl Tig {
    #[new]
    fn new(
        mcr: PyReadonlyArray1<'_, f64>,
        u: PyReadonlyArray1<'_, i64>,
        v: PyReadonlyArray1<'_, i64>,
        mbr: PyReadonlyArray1<'_, f64>,
    ) -> PyResult<Self> {
        let inner = grid::Tig::new(
            owned("mcr", &mcr)?,
            &indices("u", &u)?,
            &indices("v", &v)?,
            &owned("mbr", &mbr)?,
        )
        .map_err(to_py)?;
        Ok(Tig { inner })
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// Number of edges.
    #[getter]
    fn num_edges(&self) -> usize {
        self.inner.num_edges()
    }
}

/// A grid of LANs: hosts in CSR form by LAN, LAN bandwidths, links (a, b) with their bandwidth.
#[pyclass(module = "clustersched._core", name = "LanGrid", frozen)]
struct LanGrid {
    inner: grid::LanGrid,
}

#[pymethods]
impl LanGrid {
    #[new]
    fn new(
        host_offsets: PyReadonlyArray1<'_, i64>,
        host_power: PyReadonlyArray1<'_, f64>,
        lan_bandwidth: PyReadonlyArray1<'_, f64>,
        a: PyReadonlyArray1<'_, i64>,
        b: PyReadonlyArray1<'_, i64>,
        link_bandwidth: PyReadonlyArray1<'_, f64>,
    ) -> PyResult<Self> {
        let inner = grid::LanGrid::new(
            indices("host_offsets", &host_offsets)?,
            owned("host_power", &host_power)?,
            owned("lan_bandwidth", &lan_bandwidth)?,
            &indices("a", &a)?,
            &indices("b", &b)?,
            owned("link_bandwidth", &link_bandwidth)?,
        )
        .map_err(to_py)?;
        Ok(LanGrid { inner })
    }

    /// Number of LANs.
    #[getter]
    fn num_lans(&self) -> usize {
        self.inner.num_lans()
    }

    /// Number of hosts.
    #[getter]
    fn num_hosts(&self) -> usize {
        self.inner.num_hosts()
    }

    /// Number of links.
    #[getter]
    fn num_links(&self) -> usize {
        self.inner.num_links()
    }
}

fn bandwidth_model(name: &str) -> PyResult<Bandwidth> {
    Bandwidth::from_name(name).map_err(to_py)
}

fn weights(alpha: f64, beta: f64) -> Weights {
    Weights { alpha, beta }
}

type Mapped<'py> = (
    Option<Bound<'py, PyArray1<i64>>>,
    Option<usize>,
    Bound<'py, PyArray1<i64>>,
    usize,
);

fn outcome(py: Python<'_>, out: grid::Outcome) -> Mapped<'_> {
    (
        out.hosts.map(|h| int64s(&h).into_pyarray(py)),
        out.step,
        int64s(&out.cluster).into_pyarray(py),
        out.attempts,
    )
}

/// QLSE: (hosts or None, step, cluster LANs, attempts).
#[pyfunction]
#[pyo3(signature = (
    tig, grid, alpha_t=1.0, beta_t=0.25, alpha_l=1.0, beta_l=0.25, bandwidth="shared",
    quartiles="links", host="most-power-left"
))]
#[allow(clippy::too_many_arguments)]
fn qlse_map<'py>(
    py: Python<'py>,
    tig: &Tig,
    grid: &LanGrid,
    alpha_t: f64,
    beta_t: f64,
    alpha_l: f64,
    beta_l: f64,
    bandwidth: &str,
    quartiles: &str,
    host: &str,
) -> PyResult<Mapped<'py>> {
    let params = QlseParams {
        tasks: weights(alpha_t, beta_t),
        lans: weights(alpha_l, beta_l),
        bandwidth: bandwidth_model(bandwidth)?,
        quartiles: Quartiles::from_name(quartiles).map_err(to_py)?,
        host: HostChoice::from_name(host).map_err(to_py)?,
    };
    let (t, g) = (&tig.inner, &grid.inner);
    let out = py.detach(|| grid::qlse(t, g, params)).map_err(to_py)?;
    Ok(outcome(py, out))
}

/// The greedy best-fit baseline: (hosts or None, None, empty, 1).
#[pyfunction]
#[pyo3(signature = (tig, grid, bandwidth="shared", reading="validated-after"))]
fn greedy_map<'py>(
    py: Python<'py>,
    tig: &Tig,
    grid: &LanGrid,
    bandwidth: &str,
    reading: &str,
) -> PyResult<Mapped<'py>> {
    let model = bandwidth_model(bandwidth)?;
    let reading = GreedyReading::from_name(reading).map_err(to_py)?;
    let (t, g) = (&tig.inner, &grid.inner);
    let out = py.detach(|| grid::greedy_best_fit(t, g, model, reading));
    Ok(outcome(py, out))
}

/// QLSE's task order: (scores, order, layer, subset, subset_layer).
#[pyfunction]
#[pyo3(signature = (tig, alpha_t=1.0, beta_t=0.25))]
#[allow(clippy::type_complexity)]
fn qlse_task_order<'py>(
    py: Python<'py>,
    tig: &Tig,
    alpha_t: f64,
    beta_t: f64,
) -> PyResult<(
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
)> {
    let t = &tig.inner;
    let o = py
        .detach(|| grid::task_order(t, weights(alpha_t, beta_t)))
        .map_err(to_py)?;
    Ok((
        o.scores.into_pyarray(py),
        int64s(&o.order).into_pyarray(py),
        int64s(&o.layer).into_pyarray(py),
        int64s(&o.subset).into_pyarray(py),
        int64s(&o.subset_layer).into_pyarray(py),
    ))
}

/// Tentative mapping `step` (0..=4): (kept link mask, eq. 2 LAN priorities,
/// clusters as a list of LAN index arrays by decreasing priority, their priorities).
/// `tig` is needed (and only used) for `quartiles="mbrs"`.
#[pyfunction]
#[pyo3(signature = (grid, step, alpha_l=1.0, beta_l=0.25, quartiles="links", tig=None))]
#[allow(clippy::type_complexity)]
fn qlse_step<'py>(
    py: Python<'py>,
    grid: &LanGrid,
    step: usize,
    alpha_l: f64,
    beta_l: f64,
    quartiles: &str,
    tig: Option<&Tig>,
) -> PyResult<(
    Bound<'py, PyArray1<bool>>,
    Bound<'py, PyArray1<f64>>,
    Vec<Bound<'py, PyArray1<i64>>>,
    Bound<'py, PyArray1<f64>>,
)> {
    if step >= grid::STEP_QUANTILES.len() {
        return Err(PyValueError::new_err(format!(
            "step == {step}, must be between 0 and 4"
        )));
    }
    let w = weights(alpha_l, beta_l);
    w.check("L").map_err(to_py)?;
    let g = &grid.inner;
    let distribution = match (Quartiles::from_name(quartiles).map_err(to_py)?, tig) {
        (Quartiles::Links, _) => g.link_bandwidth().to_vec(),
        (Quartiles::Mbrs, Some(t)) => Quartiles::Mbrs.distribution(&t.inner, g),
        (Quartiles::Mbrs, None) => {
            return Err(PyValueError::new_err("quartiles == 'mbrs' needs the TIG (tig=...)"));
        }
    };
    let kept = grid::kept_links(g, step, &distribution);
    let prio = grid::lan_priorities(g, &kept, w);
    let found = grid::clusters(g, &kept);
    let lans = found.iter().map(|c| int64s(&c.lans).into_pyarray(py)).collect();
    let priorities = found.iter().map(|c| c.priority).collect::<Vec<_>>().into_pyarray(py);
    Ok((kept.into_pyarray(py), prio.into_pyarray(py), lans, priorities))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Tig>()?;
    m.add_class::<LanGrid>()?;
    m.add_function(wrap_pyfunction!(qlse_map, m)?)?;
    m.add_function(wrap_pyfunction!(greedy_map, m)?)?;
    m.add_function(wrap_pyfunction!(qlse_task_order, m)?)?;
    m.add_function(wrap_pyfunction!(qlse_step, m)?)?;
    // the limits and the rounding rule's tolerance, stated once in the core
    m.add("GRID_MAX_TASKS", grid::MAX_TASKS)?;
    m.add("GRID_MAX_EDGES", grid::MAX_EDGES)?;
    m.add("GRID_MAX_LANS", grid::MAX_LANS)?;
    m.add("GRID_MAX_HOSTS", grid::MAX_HOSTS)?;
    m.add("GRID_MAX_LINKS", grid::MAX_LINKS)?;
    m.add("GRID_MAX_VALUE", grid::MAX_VALUE)?;
    m.add("GRID_RTOL", grid::RTOL)?;
    Ok(())
}
