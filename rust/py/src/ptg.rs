//! Bindings of the PTG kernels (`clustersched_core::ptg`): one `PtgSet`
//! class built once per list of PTGs, whose methods run the kernels without
//! the GIL. `clustersched.ptg` is the public interface.

use clustersched_core::ptg::{self, HcpaLimits, HcpaRule, Profiles, Readiness, Shelf, StretchEstimate};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors::to_py;
use crate::{counts, indices, int64s, owned};

/// HCPA's stopping rule by its Python name.
fn hcpa_rule(rule: &str) -> PyResult<HcpaRule> {
    HcpaRule::from_name(rule).map_err(to_py)
}

fn procs_u32(procs: i64) -> PyResult<u32> {
    match u32::try_from(procs) {
        Ok(p) if p >= 1 => Ok(p),
        _ => Err(PyValueError::new_err(format!(
            "procs == {procs}, must be between 1 and {}",
            u32::MAX
        ))),
    }
}

type Columns<'py> = (
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
);

/// A core schedule as numpy columns (task, start, end, proc_offsets, proc_ids).
fn columns(py: Python<'_>, s: ptg::TaskSchedule) -> Columns<'_> {
    (
        s.task
            .into_iter()
            .map(|g| g as i64)
            .collect::<Vec<_>>()
            .into_pyarray(py),
        s.start.into_pyarray(py),
        s.end.into_pyarray(py),
        s.proc_offsets
            .into_iter()
            .map(|o| o as i64)
            .collect::<Vec<_>>()
            .into_pyarray(py),
        s.proc_ids
            .into_iter()
            .map(i64::from)
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )
}

/// Several PTGs in CSR form, concatenated: PTG `i` owns the global tasks
/// `ptg_offsets[i]..ptg_offsets[i + 1]`; `succ_offsets` / `succ` is one CSR
/// over global task ids.
#[pyclass(module = "clustersched._core", name = "PtgSet", frozen)]
struct PtgSet {
    inner: ptg::PtgSet,
}

#[pymethods]
impl PtgSet {
    #[new]
    fn new(
        ptg_offsets: PyReadonlyArray1<'_, i64>,
        work: PyReadonlyArray1<'_, f64>,
        alpha: PyReadonlyArray1<'_, f64>,
        succ_offsets: PyReadonlyArray1<'_, i64>,
        succ: PyReadonlyArray1<'_, i64>,
    ) -> PyResult<Self> {
        let inner = ptg::PtgSet::from_flat(
            &indices("ptg_offsets", &ptg_offsets)?,
            &owned("work", &work)?,
            &owned("alpha", &alpha)?,
            &indices("succ_offsets", &succ_offsets)?,
            &indices("succ", &succ)?,
        )
        .map_err(to_py)?;
        Ok(PtgSet { inner })
    }

    /// Number of PTGs.
    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// Total number of tasks.
    #[getter]
    fn num_tasks(&self) -> usize {
        self.inner.num_tasks()
    }

    /// HCPA allocation of PTG `i` on `procs` processors under `rule`
    /// ("sqrt" or "cpa"), optionally capped per task and per precedence level.
    #[pyo3(signature = (i, procs, speed, max_task_procs=None, max_level_procs=None, rule="sqrt"))]
    #[allow(clippy::too_many_arguments)]
    fn hcpa_allocation<'py>(
        &self,
        py: Python<'py>,
        i: usize,
        procs: i64,
        speed: f64,
        max_task_procs: Option<u32>,
        max_level_procs: Option<u32>,
        rule: &str,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let g = self.graph(i)?;
        let limits = HcpaLimits {
            procs: procs_u32(procs)?,
            max_task_procs,
            max_level_procs,
            rule: hcpa_rule(rule)?,
        };
        let alloc = py.detach(|| ptg::hcpa_allocation(g, speed, &limits)).map_err(to_py)?;
        Ok(int64s(&alloc).into_pyarray(py))
    }

    /// Each PTG allocated by HCPA on its own budget (bounding its levels too
    /// when `per_level`): (alloc, bl) per global task.
    #[allow(clippy::type_complexity)]
    fn hcpa_budgets<'py>(
        &self,
        py: Python<'py>,
        budgets: PyReadonlyArray1<'py, i64>,
        speed: f64,
        per_level: bool,
    ) -> PyResult<(Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<f64>>)> {
        let budgets = counts("budgets", &budgets)?;
        let set = &self.inner;
        let (alloc, bl) = py
            .detach(|| ptg::hcpa_budgets(set, &budgets, speed, per_level))
            .map_err(to_py)?;
        Ok((int64s(&alloc).into_pyarray(py), bl.into_pyarray(py)))
    }

    /// Moldable profile of every PTG (its HCPA makespan on 1..=procs
    /// processors under `rule`), row-major len x procs, flat.
    #[pyo3(signature = (procs, speed, rule="sqrt"))]
    fn moldable_profiles<'py>(
        &self,
        py: Python<'py>,
        procs: i64,
        speed: f64,
        rule: &str,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let procs = procs_u32(procs)?;
        let rule = hcpa_rule(rule)?;
        let set = &self.inner;
        let flat = py
            .detach(|| ptg::moldable_profiles(set, procs, speed, rule))
            .map_err(to_py)?;
        Ok(flat.into_pyarray(py))
    }

    /// Width (tasks of the largest precedence level) of every PTG.
    fn widths<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        self.inner
            .graphs()
            .iter()
            .map(|g| g.width() as i64)
            .collect::<Vec<_>>()
            .into_pyarray(py)
    }

    /// Precedence level of every task of PTG `i`.
    fn levels<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let g = self.graph(i)?;
        let levels = py.detach(|| g.levels());
        Ok(levels
            .into_iter()
            .map(|l| l as i64)
            .collect::<Vec<_>>()
            .into_pyarray(py))
    }

    /// Bottom levels of PTG `i` whose tasks take `durations` seconds.
    fn duration_bottom_levels<'py>(
        &self,
        py: Python<'py>,
        i: usize,
        durations: PyReadonlyArray1<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let g = self.graph(i)?;
        let durations = owned("durations", &durations)?;
        let bl = py
            .detach(|| ptg::duration_bottom_levels(g, &durations))
            .map_err(to_py)?;
        Ok(bl.into_pyarray(py))
    }

    /// Bottom levels of PTG `i` with allocation `alloc`.
    fn bottom_levels<'py>(
        &self,
        py: Python<'py>,
        i: usize,
        alloc: PyReadonlyArray1<'py, i64>,
        speed: f64,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let g = self.graph(i)?;
        let alloc = counts("alloc", &alloc)?;
        Ok(ptg::bottom_levels(g, &alloc, speed).map_err(to_py)?.into_pyarray(py))
    }

    /// Every PTG alone by HCPA under `rule`: (alloc, bl, start, end) per
    /// global task, makespan per PTG.
    #[pyo3(signature = (procs, speed, rule="sqrt"))]
    #[allow(clippy::type_complexity)]
    fn hcpa_standalone<'py>(
        &self,
        py: Python<'py>,
        procs: i64,
        speed: f64,
        rule: &str,
    ) -> PyResult<(
        Bound<'py, PyArray1<i64>>,
        Bound<'py, PyArray1<f64>>,
        Bound<'py, PyArray1<f64>>,
        Bound<'py, PyArray1<f64>>,
        Bound<'py, PyArray1<f64>>,
    )> {
        let procs = procs_u32(procs)?;
        let rule = hcpa_rule(rule)?;
        let set = &self.inner;
        let s = py
            .detach(|| ptg::hcpa_standalone(set, procs, speed, rule))
            .map_err(to_py)?;
        Ok((
            int64s(&s.alloc).into_pyarray(py),
            s.bl.into_pyarray(py),
            s.start.into_pyarray(py),
            s.end.into_pyarray(py),
            s.makespan.into_pyarray(py),
        ))
    }

    /// List scheduling of every task by `priority` ("placed" or "completed" readiness).
    #[pyo3(signature = (alloc, priority, procs, speed, readiness="placed"))]
    fn list_schedule<'py>(
        &self,
        py: Python<'py>,
        alloc: PyReadonlyArray1<'py, i64>,
        priority: PyReadonlyArray1<'py, f64>,
        procs: i64,
        speed: f64,
        readiness: &str,
    ) -> PyResult<Columns<'py>> {
        let readiness = match readiness {
            "placed" => Readiness::Placed,
            "completed" => Readiness::Completed,
            _ => {
                return Err(PyValueError::new_err(format!(
                    "readiness == '{readiness}', must be 'placed' or 'completed'"
                )))
            }
        };
        let alloc = counts("alloc", &alloc)?;
        let priority = owned("priority", &priority)?;
        let procs = procs_u32(procs)?;
        let set = &self.inner;
        let s = py
            .detach(|| ptg::list_schedule(set, &alloc, &priority, procs, speed, readiness))
            .map_err(to_py)?;
        Ok(columns(py, s))
    }

    /// Zhao et al.'s F1 ("F1") or F2 ("F2") fairness-driven list scheduling.
    #[pyo3(signature = (alloc, bl, task_tie, ptg_tie, alone_start, alone_end, procs, speed, estimate))]
    #[allow(clippy::too_many_arguments)]
    fn fairness_schedule<'py>(
        &self,
        py: Python<'py>,
        alloc: PyReadonlyArray1<'py, i64>,
        bl: PyReadonlyArray1<'py, f64>,
        task_tie: PyReadonlyArray1<'py, u64>,
        ptg_tie: PyReadonlyArray1<'py, u64>,
        alone_start: PyReadonlyArray1<'py, f64>,
        alone_end: PyReadonlyArray1<'py, f64>,
        procs: i64,
        speed: f64,
        estimate: &str,
    ) -> PyResult<Columns<'py>> {
        let estimate = StretchEstimate::from_name(estimate).map_err(to_py)?;
        let alloc = counts("alloc", &alloc)?;
        let (bl, task_tie, ptg_tie) = (
            owned("bl", &bl)?,
            owned("task_tie", &task_tie)?,
            owned("ptg_tie", &ptg_tie)?,
        );
        let (alone_start, alone_end) = (owned("alone_start", &alone_start)?, owned("alone_end", &alone_end)?);
        let procs = procs_u32(procs)?;
        let set = &self.inner;
        let f = ptg::Fairness {
            alloc: &alloc,
            bl: &bl,
            task_tie: &task_tie,
            ptg_tie: &ptg_tie,
            alone_start: &alone_start,
            alone_end: &alone_end,
            estimate,
        };
        let s = py
            .detach(|| ptg::fairness_schedule(set, procs, speed, &f))
            .map_err(to_py)?;
        Ok(columns(py, s))
    }

    /// Backfilling compaction of a feasible schedule of every task.
    #[pyo3(signature = (task, start, end, proc_offsets, proc_ids, procs, speed))]
    #[allow(clippy::too_many_arguments)]
    fn backfill<'py>(
        &self,
        py: Python<'py>,
        task: PyReadonlyArray1<'py, i64>,
        start: PyReadonlyArray1<'py, f64>,
        end: PyReadonlyArray1<'py, f64>,
        proc_offsets: PyReadonlyArray1<'py, i64>,
        proc_ids: PyReadonlyArray1<'py, i64>,
        procs: i64,
        speed: f64,
    ) -> PyResult<Columns<'py>> {
        let schedule = ptg::TaskSchedule {
            task: indices("task", &task)?,
            start: owned("start", &start)?,
            end: owned("end", &end)?,
            proc_offsets: indices("proc_offsets", &proc_offsets)?,
            proc_ids: counts("proc_ids", &proc_ids)?,
        };
        let procs = procs_u32(procs)?;
        let set = &self.inner;
        let s = py
            .detach(|| ptg::backfill(set, &schedule, procs, speed))
            .map_err(to_py)?;
        Ok(columns(py, s))
    }
}

impl PtgSet {
    fn graph(&self, i: usize) -> PyResult<&ptg::Ptg> {
        if i < self.inner.len() {
            Ok(self.inner.graph(i))
        } else {
            Err(PyValueError::new_err(format!(
                "i == {i}, must be >= 0 and < {} (the number of PTGs)",
                self.inner.len()
            )))
        }
    }
}

/// A profile table (row-major jobs x procs) for the moldable kernels;
/// a bad time is named by its job (row).
fn profiles(times: &PyReadonlyArray1<'_, f64>, procs: i64) -> PyResult<Profiles> {
    Profiles::new(owned("times", times)?, procs_u32(procs)?).map_err(to_py)
}

/// `T(v, p)` of many tasks by the core's one duration function
/// (`ptg::exec_time`): the validators call it, so that they compute a
/// task's duration exactly as the schedulers do.
#[pyfunction(name = "exec_times")]
fn exec_times_py<'py>(
    py: Python<'py>,
    work: PyReadonlyArray1<'py, f64>,
    alpha: PyReadonlyArray1<'py, f64>,
    procs: PyReadonlyArray1<'py, i64>,
    speed: PyReadonlyArray1<'py, f64>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let (work, alpha, speed) = (owned("work", &work)?, owned("alpha", &alpha)?, owned("speed", &speed)?);
    let procs = counts("procs", &procs)?;
    let out = py
        .detach(|| ptg::exec_times(&work, &alpha, &procs, &speed))
        .map_err(to_py)?;
    Ok(out.into_pyarray(py))
}

/// The 3/2 + eps dual approximation on a profile table:
/// (cmax, lower, alloc, shelf: 0 small / 1 first / 2 second, work, guesses).
#[pyfunction(name = "dutot_allocation")]
#[allow(clippy::type_complexity)]
fn dutot_allocation_py<'py>(
    py: Python<'py>,
    times: PyReadonlyArray1<'py, f64>,
    procs: i64,
    epsilon: f64,
) -> PyResult<(f64, f64, Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>, f64, u32)> {
    let table = profiles(&times, procs)?;
    let d = py.detach(|| ptg::dutot_allocation(&table, epsilon)).map_err(to_py)?;
    let shelf: Vec<i64> = d
        .shelf
        .iter()
        .map(|s| match s {
            Shelf::Small => 0,
            Shelf::First => 1,
            Shelf::Second => 2,
        })
        .collect();
    Ok((
        d.cmax,
        d.lower,
        int64s(&d.alloc).into_pyarray(py),
        shelf.into_pyarray(py),
        d.work,
        d.guesses,
    ))
}

/// K-shelves packing up to `cmax`: (length, start) per shelf, (shelf, alloc, duration) per job.
#[pyfunction(name = "k_shelves")]
#[allow(clippy::type_complexity)]
fn k_shelves_py<'py>(
    py: Python<'py>,
    times: PyReadonlyArray1<'py, f64>,
    procs: i64,
    cmax: f64,
) -> PyResult<(
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<f64>>,
)> {
    let table = profiles(&times, procs)?;
    let k = py.detach(|| ptg::k_shelves(&table, cmax)).map_err(to_py)?;
    Ok((
        k.length.into_pyarray(py),
        k.start.into_pyarray(py),
        k.shelf
            .into_iter()
            .map(|s| s as i64)
            .collect::<Vec<_>>()
            .into_pyarray(py),
        int64s(&k.alloc).into_pyarray(py),
        k.duration.into_pyarray(py),
    ))
}

/// Adds the PTG kernels to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PtgSet>()?;
    m.add_function(wrap_pyfunction!(exec_times_py, m)?)?;
    m.add_function(wrap_pyfunction!(dutot_allocation_py, m)?)?;
    m.add_function(wrap_pyfunction!(k_shelves_py, m)?)
}
