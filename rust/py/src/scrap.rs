//! Bindings of the multi-cluster PTG kernels (SCRAP, SCRAP-MAX, HCPA on the
//! reference cluster, MHEFT-MAX, placement, the schedule check): one
//! `MultiClusterPtg` object per (PTG, platform) pair, converted once.
//! `clustersched.scrap` is the public interface.

use clustersched_core::ptg::{self, HcpaRule};
use clustersched_core::scrap::{
    self, check_bytes, check_problem, ClusterSchedule, Comms, MultiCluster, Network, Scrap, Translation, Violation,
};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors::to_py;
use crate::{counts, indices, int64s, owned};

type Columns<'py> = (
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
);

fn columns(py: Python<'_>, s: ClusterSchedule) -> Columns<'_> {
    let ints = |v: Vec<usize>| v.into_iter().map(|x| x as i64).collect::<Vec<_>>();
    (
        ints(s.task).into_pyarray(py),
        ints(s.cluster).into_pyarray(py),
        s.start.into_pyarray(py),
        s.end.into_pyarray(py),
        ints(s.proc_offsets).into_pyarray(py),
        s.proc_ids
            .into_iter()
            .map(i64::from)
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )
}

/// One PTG on one heterogeneous multi-cluster platform, with its network and
/// the bytes each task sends to its successors (both optional).
#[pyclass(module = "clustersched._core", name = "MultiClusterPtg", frozen)]
struct MultiClusterPtg {
    g: ptg::Ptg,
    platform: MultiCluster,
    network: Option<Network>,
    bytes: Option<Vec<f64>>,
}

impl MultiClusterPtg {
    fn comms(&self, on: bool) -> PyResult<Option<Comms<'_>>> {
        if !on {
            return Ok(None);
        }
        match (&self.network, &self.bytes) {
            (Some(network), Some(bytes)) => Ok(Some(Comms { network, bytes })),
            _ => Err(PyValueError::new_err(
                "communications need a network and the bytes of every task",
            )),
        }
    }

    fn alloc(&self, alloc: &PyReadonlyArray1<'_, i64>) -> PyResult<Vec<u32>> {
        counts("alloc", alloc)
    }
}

#[pymethods]
impl MultiClusterPtg {
    #[new]
    #[pyo3(signature = (work, alpha, succ_offsets, succ, procs, speed, network=None, bytes=None))]
    #[allow(clippy::too_many_arguments, clippy::type_complexity)]
    fn new(
        work: PyReadonlyArray1<'_, f64>,
        alpha: PyReadonlyArray1<'_, f64>,
        succ_offsets: PyReadonlyArray1<'_, i64>,
        succ: PyReadonlyArray1<'_, i64>,
        procs: PyReadonlyArray1<'_, i64>,
        speed: PyReadonlyArray1<'_, f64>,
        network: Option<(PyReadonlyArray1<'_, f64>, PyReadonlyArray1<'_, f64>, f64, f64, f64, f64)>,
        bytes: Option<PyReadonlyArray1<'_, f64>>,
    ) -> PyResult<Self> {
        let g = ptg::Ptg::new(
            owned("work", &work)?,
            owned("alpha", &alpha)?,
            &indices("succ_offsets", &succ_offsets)?,
            &indices("succ", &succ)?,
        )
        .map_err(to_py)?;
        let platform = MultiCluster::new(counts("procs", &procs)?, owned("speed", &speed)?).map_err(to_py)?;
        let network = match network {
            Some((link_bw, link_lat, uplink_bw, uplink_lat, backbone_bw, backbone_lat)) => {
                let n = Network {
                    link_bw: owned("link_bw", &link_bw)?,
                    link_lat: owned("link_lat", &link_lat)?,
                    uplink_bw,
                    uplink_lat,
                    backbone_bw,
                    backbone_lat,
                };
                n.check(platform.len()).map_err(to_py)?;
                Some(n)
            }
            None => None,
        };
        let bytes = bytes.map(|b| owned("bytes", &b)).transpose()?;
        if let Some(b) = &bytes {
            check_bytes(&g, b).map_err(to_py)?;
        }
        check_problem(&g, &platform, None).map_err(to_py)?;
        Ok(MultiClusterPtg {
            g,
            platform,
            network,
            bytes,
        })
    }

    /// (s_ref in flop/s, P_ref as real power, reference cluster's processors).
    #[getter]
    fn reference(&self) -> (f64, f64, u32) {
        (
            self.platform.ref_speed(),
            self.platform.ref_power(),
            self.platform.ref_procs(),
        )
    }

    /// Per-task caps on the reference allocation (saturated critical path) under `translation`.
    fn caps<'py>(&self, py: Python<'py>, translation: &str) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let translation = Translation::from_name(translation).map_err(to_py)?;
        Ok(int64s(&self.platform.caps(&self.g, translation)).into_pyarray(py))
    }

    /// f(alloc[v], v, k) under `translation` for every task and cluster, row-major (tasks x clusters).
    fn translate<'py>(
        &self,
        py: Python<'py>,
        alloc: PyReadonlyArray1<'py, i64>,
        translation: &str,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let translation = Translation::from_name(translation).map_err(to_py)?;
        let alloc = self.alloc(&alloc)?;
        if alloc.len() != self.g.len() || alloc.contains(&0) {
            return Err(PyValueError::new_err(format!(
                "alloc must hold one count >= 1 per task ({} tasks)",
                self.g.len()
            )));
        }
        let c = self.platform.len();
        let out: Vec<i64> = (0..self.g.len())
            .flat_map(|v| (0..c).map(move |k| (v, k)))
            .map(|(v, k)| i64::from(self.platform.translate(&self.g, v, alloc[v], k, translation)))
            .collect();
        Ok(out.into_pyarray(py))
    }

    /// SCRAP ("SCRAP") or SCRAP-MAX ("SCRAP-MAX") reference allocation under `beta`, caps by `translation`.
    fn scrap_allocation<'py>(
        &self,
        py: Python<'py>,
        beta: f64,
        variant: &str,
        translation: &str,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let variant = Scrap::from_name(variant).map_err(to_py)?;
        let translation = Translation::from_name(translation).map_err(to_py)?;
        let a = py
            .detach(|| scrap::scrap_allocation(&self.g, &self.platform, beta, variant, translation))
            .map_err(to_py)?;
        Ok(int64s(&a).into_pyarray(py))
    }

    /// HCPA's reference allocation under `rule` ("sqrt" or "cpa"), caps by `translation`.
    fn hcpa_allocation<'py>(
        &self,
        py: Python<'py>,
        rule: &str,
        translation: &str,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let rule = HcpaRule::from_name(rule).map_err(to_py)?;
        let translation = Translation::from_name(translation).map_err(to_py)?;
        let a = py
            .detach(|| scrap::hcpa_reference_allocation(&self.g, &self.platform, rule, translation))
            .map_err(to_py)?;
        Ok(int64s(&a).into_pyarray(py))
    }

    /// β' of a reference allocation.
    fn beta_estimate(&self, alloc: PyReadonlyArray1<'_, i64>) -> PyResult<f64> {
        scrap::beta_estimate(&self.g, &self.platform, &self.alloc(&alloc)?).map_err(to_py)
    }

    /// List placement of a reference allocation translated by `translation`: (task, cluster, start, end,
    /// proc_offsets, proc_ids).
    fn place<'py>(
        &self,
        py: Python<'py>,
        alloc: PyReadonlyArray1<'py, i64>,
        comms: bool,
        translation: &str,
    ) -> PyResult<Columns<'py>> {
        let alloc = self.alloc(&alloc)?;
        let comms = self.comms(comms)?;
        let translation = Translation::from_name(translation).map_err(to_py)?;
        let s = py
            .detach(|| scrap::place_reference(&self.g, &self.platform, &alloc, comms, translation))
            .map_err(to_py)?;
        Ok(columns(py, s))
    }

    /// MHEFT-MAX with the processor fraction `fraction`.
    fn mheft_max<'py>(&self, py: Python<'py>, fraction: f64, comms: bool) -> PyResult<Columns<'py>> {
        let comms = self.comms(comms)?;
        let s = py
            .detach(|| scrap::mheft_max(&self.g, &self.platform, fraction, comms))
            .map_err(to_py)?;
        Ok(columns(py, s))
    }

    /// Every run of PDCS 2007 §4 on this pair (`scrap::study`): HCPA, then SCRAP, SCRAP-MAX and MHEFT-MAX at
    /// each of `betas` (HCPA, SCRAP and SCRAP-MAX translating by `translation`), each schedule checked.
    /// Returns per run (makespan, energy, power_fraction, peak_power_fraction, beta_estimate (NaN: none),
    /// initial_violation (-1: none, 0, 1)) and, with `schedules`, a list of (columns, alloc or None) per run.
    #[pyo3(signature = (betas, power, comms, rule, translation, schedules=false))]
    #[allow(clippy::type_complexity, clippy::too_many_arguments)]
    fn study<'py>(
        &self,
        py: Python<'py>,
        betas: PyReadonlyArray1<'py, f64>,
        power: f64,
        comms: bool,
        rule: &str,
        translation: &str,
        schedules: bool,
    ) -> PyResult<(
        Bound<'py, PyArray1<f64>>,
        Bound<'py, PyArray1<i8>>,
        Option<Vec<(Columns<'py>, Option<Bound<'py, PyArray1<i64>>>)>>,
    )> {
        let betas = owned("betas", &betas)?;
        let rule = HcpaRule::from_name(rule).map_err(to_py)?;
        let translation = Translation::from_name(translation).map_err(to_py)?;
        let comms = self.comms(comms)?;
        let runs = py
            .detach(|| scrap::study(&self.g, &self.platform, power, comms, &betas, rule, translation))
            .map_err(to_py)?;
        let mut floats = Vec::with_capacity(6 * runs.len());
        let mut initial = Vec::with_capacity(runs.len());
        for r in &runs {
            let m = r.metrics;
            floats.extend([
                m.makespan,
                m.energy,
                m.power_fraction,
                m.peak_power_fraction,
                r.beta_estimate.unwrap_or(f64::NAN),
            ]);
            initial.push(r.initial_violation.map_or(-1, i8::from));
        }
        let out = schedules.then(|| {
            runs.into_iter()
                .map(|r| (columns(py, r.schedule), r.alloc.map(|a| int64s(&a).into_pyarray(py))))
                .collect()
        });
        Ok((floats.into_pyarray(py), initial.into_pyarray(py), out))
    }

    /// Checks a schedule (columns as `place` returns them, `scrap::check_cluster_schedule`, as the study
    /// does), `alloc` translated by the rule `translation` claims; raises InfeasibleError.
    #[pyo3(signature = (task, cluster, start, end, proc_offsets, proc_ids, alloc, translation, comms))]
    #[allow(clippy::too_many_arguments)]
    fn check(
        &self,
        task: PyReadonlyArray1<'_, i64>,
        cluster: PyReadonlyArray1<'_, i64>,
        start: PyReadonlyArray1<'_, f64>,
        end: PyReadonlyArray1<'_, f64>,
        proc_offsets: PyReadonlyArray1<'_, i64>,
        proc_ids: PyReadonlyArray1<'_, i64>,
        alloc: Option<PyReadonlyArray1<'_, i64>>,
        translation: &str,
        comms: bool,
    ) -> PyResult<()> {
        let s = schedule(task, cluster, start, end, proc_offsets, proc_ids)?;
        let alloc = alloc.map(|a| self.alloc(&a)).transpose()?;
        let translation = Translation::from_name(translation).map_err(to_py)?;
        let comms = self.comms(comms)?;
        let claim = alloc.as_deref().map(|a| (a, translation));
        scrap::check_cluster_schedule(&self.g, &self.platform, &s, claim, comms).map_err(to_py)
    }

    /// Every violation of a schedule (`scrap::schedule_violations`, the one checker; `alloc` translated by the rule
    /// `translation` claims), the first `limit` of each
    /// kind: a list of (kind, ints, floats) in the rules' order, and the number of violations in all. A task,
    /// cluster or processor id that fits no index (negative, too large) is one that does not exist. Per kind,
    /// ints / floats: unknown_task (row) / (); task_twice, task_missing, alloc_zero (task) / ();
    /// alloc_length (len) / (); unknown_cluster (row, task) / (); times (row, task) / (start, end);
    /// processors (row, task, cluster) / (); duration (row, task, cluster, procs) / (seconds, expected);
    /// translation (row, task, cluster, procs, reference, expected) / (); overlap (processor, first task,
    /// second task) / (); precedence (task, predecessor) / (start, arrival, predecessor's end).
    #[pyo3(signature = (task, cluster, start, end, proc_offsets, proc_ids, alloc, translation, comms, limit))]
    #[allow(clippy::too_many_arguments, clippy::type_complexity)]
    fn violations(
        &self,
        task: PyReadonlyArray1<'_, i64>,
        cluster: PyReadonlyArray1<'_, i64>,
        start: PyReadonlyArray1<'_, f64>,
        end: PyReadonlyArray1<'_, f64>,
        proc_offsets: PyReadonlyArray1<'_, i64>,
        proc_ids: PyReadonlyArray1<'_, i64>,
        alloc: Option<PyReadonlyArray1<'_, i64>>,
        translation: &str,
        comms: bool,
        limit: usize,
    ) -> PyResult<(Vec<(&'static str, Vec<i64>, Vec<f64>)>, usize)> {
        let s = schedule(task, cluster, start, end, proc_offsets, proc_ids)?;
        let alloc = alloc.map(|a| self.alloc(&a)).transpose()?;
        let translation = Translation::from_name(translation).map_err(to_py)?;
        let comms = self.comms(comms)?;
        let claim = alloc.as_deref().map(|a| (a, translation));
        let found = scrap::schedule_violations(&self.g, &self.platform, &s, claim, comms, limit).map_err(to_py)?;
        let i = |x: usize| i64::try_from(x).unwrap_or(i64::MAX);
        let out = found
            .found
            .iter()
            .map(|v| match *v {
                Violation::UnknownTask { row } => ("unknown_task", vec![i(row)], vec![]),
                Violation::TaskTwice { task } => ("task_twice", vec![i(task)], vec![]),
                Violation::TaskMissing { task } => ("task_missing", vec![i(task)], vec![]),
                Violation::AllocLength { len } => ("alloc_length", vec![i(len)], vec![]),
                Violation::AllocZero { task } => ("alloc_zero", vec![i(task)], vec![]),
                Violation::UnknownCluster { row, task } => ("unknown_cluster", vec![i(row), i(task)], vec![]),
                Violation::Times { row, task, start, end } => ("times", vec![i(row), i(task)], vec![start, end]),
                Violation::Processors { row, task, cluster } => {
                    ("processors", vec![i(row), i(task), i(cluster)], vec![])
                }
                Violation::Duration {
                    row,
                    task,
                    cluster,
                    procs,
                    seconds,
                    expected,
                } => (
                    "duration",
                    vec![i(row), i(task), i(cluster), i64::from(procs)],
                    vec![seconds, expected],
                ),
                Violation::Translation {
                    row,
                    task,
                    cluster,
                    procs,
                    reference,
                    expected,
                } => (
                    "translation",
                    vec![
                        i(row),
                        i(task),
                        i(cluster),
                        i64::from(procs),
                        i64::from(reference),
                        i64::from(expected),
                    ],
                    vec![],
                ),
                Violation::Overlap {
                    processor,
                    first,
                    second,
                } => ("overlap", vec![i64::from(processor), i(first), i(second)], vec![]),
                Violation::Precedence {
                    task,
                    pred,
                    start,
                    arrival,
                    pred_end,
                } => ("precedence", vec![i(task), i(pred)], vec![start, arrival, pred_end]),
            })
            .collect();
        Ok((out, found.total))
    }
}

/// A schedule's columns for the checker: a task, cluster or processor id that fits no index (negative, too
/// large) becomes one past every index (it does not exist); offsets must rise from 0 to the number of ids.
fn schedule(
    task: PyReadonlyArray1<'_, i64>,
    cluster: PyReadonlyArray1<'_, i64>,
    start: PyReadonlyArray1<'_, f64>,
    end: PyReadonlyArray1<'_, f64>,
    proc_offsets: PyReadonlyArray1<'_, i64>,
    proc_ids: PyReadonlyArray1<'_, i64>,
) -> PyResult<ClusterSchedule> {
    fn slice<'a>(name: &str, a: &'a PyReadonlyArray1<'_, i64>) -> PyResult<&'a [i64]> {
        a.as_slice()
            .map_err(|_| PyValueError::new_err(format!("{name} must be a contiguous 1-D array")))
    }
    let index = |x: &i64| usize::try_from(*x).unwrap_or(usize::MAX);
    let s = ClusterSchedule {
        task: slice("task", &task)?.iter().map(index).collect(),
        cluster: slice("cluster", &cluster)?.iter().map(index).collect(),
        start: owned("start", &start)?,
        end: owned("end", &end)?,
        proc_offsets: indices("proc_offsets", &proc_offsets)?,
        proc_ids: slice("proc_ids", &proc_ids)?
            .iter()
            .map(|&x| u32::try_from(x).unwrap_or(u32::MAX))
            .collect(),
    };
    let rows = s.task.len();
    if s.cluster.len() != rows || s.start.len() != rows || s.end.len() != rows || s.proc_offsets.len() != rows + 1 {
        return Err(PyValueError::new_err("schedule columns differ in length"));
    }
    if s.proc_offsets.first() != Some(&0)
        || s.proc_offsets.last() != Some(&s.proc_ids.len())
        || s.proc_offsets.windows(2).any(|w| w[0] > w[1])
    {
        return Err(PyValueError::new_err(
            "proc_offsets must rise from 0 to the number of processor ids",
        ));
    }
    Ok(s)
}

/// The metrics of a multi-cluster schedule (`scrap::schedule_metrics`, the one implementation):
/// (makespan, energy, power_fraction, peak_power_fraction) of the rows `(cluster, start, end,
/// proc_offsets)` with `speeds` per cluster, on a platform of total `power`.
#[pyfunction(name = "scrap_metrics")]
fn scrap_metrics_py(
    cluster: PyReadonlyArray1<'_, i64>,
    start: PyReadonlyArray1<'_, f64>,
    end: PyReadonlyArray1<'_, f64>,
    proc_offsets: PyReadonlyArray1<'_, i64>,
    speeds: PyReadonlyArray1<'_, f64>,
    power: f64,
) -> PyResult<(f64, f64, f64, f64)> {
    let cluster = indices("cluster", &cluster)?;
    let (start, end, speeds) = (owned("start", &start)?, owned("end", &end)?, owned("speeds", &speeds)?);
    let offsets = indices("proc_offsets", &proc_offsets)?;
    let rows = cluster.len();
    if start.len() != rows || end.len() != rows || offsets.len() != rows + 1 {
        return Err(PyValueError::new_err("schedule columns differ in length"));
    }
    if offsets[0] != 0 || offsets.windows(2).any(|w| w[0] > w[1]) {
        return Err(PyValueError::new_err("proc_offsets must rise from 0"));
    }
    if cluster.iter().any(|&k| k >= speeds.len()) {
        return Err(PyValueError::new_err("a row's cluster has no speed"));
    }
    let m = scrap::schedule_metrics(&cluster, &start, &end, &offsets, &speeds, power);
    Ok((m.makespan, m.energy, m.power_fraction, m.peak_power_fraction))
}

/// Adds the multi-cluster kernels to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(scrap_metrics_py, m)?)?;
    m.add("SCRAP_MAX_POWER", scrap::MAX_POWER)?;
    m.add("SCRAP_MAX_PROCS", scrap::MAX_PROCS)?;
    m.add("SCRAP_MAX_REF_PROCS", scrap::MAX_REF_PROCS)?;
    m.add("SCRAP_MAX_SIZE", scrap::MAX_SIZE)?;
    m.add("SCRAP_MAX_SECONDS", scrap::MAX_SECONDS)?;
    m.add_class::<MultiClusterPtg>()
}
