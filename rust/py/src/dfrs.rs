//! Bindings of the DFRS kernels (`clustersched_core::dfrs`): one
//! `DfrsState` class holding the state of a simulation (the nodes, and the
//! per-event bookkeeping of `clustersched_core::dfrs::sim`), whose methods
//! run Greedy, GreedyP/PM, MCB8 and the allocations in place.
//! `clustersched.dfrs` is the public interface.

use clustersched_core::dfrs::sim::{self, Keep, OnSubmit, Simulation};
use clustersched_core::dfrs::{self, alloc, greedy, mcb8, Jobs};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors::to_py;
use crate::{int64s, integers, owned};

/// Two columns handed to Python: job (or node) indices, and a value for each.
type JobsAndValues<'py> = (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<f64>>);
/// Two integer columns handed to Python: indices, and a count for each.
type IndexPairs<'py> = (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>);

fn job_index(name: &str, x: i64) -> PyResult<u32> {
    u32::try_from(x).map_err(|_| PyValueError::new_err(format!("{name} == {x}, must be a row >= 0")))
}

fn job_range(first: i64, last: i64) -> PyResult<(usize, usize)> {
    match (usize::try_from(first), usize::try_from(last)) {
        (Ok(a), Ok(b)) => Ok((a, b)),
        _ => Err(PyValueError::new_err(format!(
            "rows {first}..{last} must be job indices >= 0"
        ))),
    }
}

/// State of a DFRS simulation (see `clustersched.dfrs.simulator`).
#[pyclass(module = "clustersched._core", name = "DfrsState")]
struct DfrsState {
    inner: Simulation,
}

#[pymethods]
impl DfrsState {
    #[new]
    #[pyo3(signature = (tasks, cpu, mem, nodes, *, submit=None, processing_time=None, penalty=0.0))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        tasks: PyReadonlyArray1<'_, i64>,
        cpu: PyReadonlyArray1<'_, u64>,
        mem: PyReadonlyArray1<'_, u64>,
        nodes: i64,
        submit: Option<PyReadonlyArray1<'_, f64>>,
        processing_time: Option<PyReadonlyArray1<'_, f64>>,
        penalty: f64,
    ) -> PyResult<Self> {
        // The core checks the range (1..=MAX_NODES); a count beyond u32 gets its message here.
        let nodes = u32::try_from(nodes).map_err(|_| {
            PyValueError::new_err(format!("nodes == {nodes}, must be between 1 and {}", dfrs::MAX_NODES))
        })?;
        let tasks = Jobs::task_counts(&owned("tasks", &tasks)?).map_err(to_py)?;
        let jobs = Jobs::new(tasks, owned("cpu", &cpu)?, owned("mem", &mem)?).map_err(to_py)?;
        let n = jobs.len();
        let submit = submit.map_or(Ok(vec![0.0; n]), |a| owned("submit", &a))?;
        let processing = processing_time.map_or(Ok(vec![0.0; n]), |a| owned("processing_time", &a))?;
        Ok(DfrsState {
            inner: Simulation::new(jobs, nodes, submit, processing, penalty).map_err(to_py)?,
        })
    }

    // -- the steps of an event (clustersched_core::dfrs::sim) ----------------------------------

    /// The earliest completion estimate of the running jobs (inf when none).
    fn next_completion(&self) -> f64 {
        self.inner.next_completion()
    }

    /// Time goes from `t` to `t_next`: the running jobs progress.
    fn advance(&mut self, t: f64, t_next: f64) {
        self.inner.advance(t, t_next);
    }

    /// Completes the running jobs due at or before `t`; returns them, ascending.
    fn complete_due<'py>(&mut self, py: Python<'py>, t: f64) -> PyResult<Bound<'py, PyArray1<i64>>> {
        Ok(int64s(&self.inner.complete(t).map_err(to_py)?).into_pyarray(py))
    }

    /// The jobs of rows `first..last` arrive.
    fn arrive(&mut self, first: i64, last: i64) -> PyResult<()> {
        let (first, last) = job_range(first, last)?;
        self.inner.arrive(first, last).map_err(to_py)
    }

    /// The submission action `policy` ("Greedy", "GreedyP" or "GreedyPM") at
    /// `t` for the jobs of rows `first..last`, in row order.
    fn submit(&mut self, t: f64, first: i64, last: i64, policy: &str) -> PyResult<()> {
        let policy = OnSubmit::from_name(policy).map_err(to_py)?;
        let (first, last) = job_range(first, last)?;
        self.inner.submit(t, first, last, policy).map_err(to_py)
    }

    /// Greedy's completion action at `t`: the waiting jobs in decreasing priority.
    fn greedy_waiting(&mut self, t: f64) -> PyResult<()> {
        self.inner.greedy_waiting(t).map_err(to_py)
    }

    /// MCB8 at `t` on every active job in decreasing priority, keeping the
    /// jobs placed at the start of the time stamp with virtual time below
    /// `minvt` (or flow time below `minft`); MCB8-stretch with `period`.
    /// Returns the number of jobs packed (0: none active).
    #[pyo3(signature = (t, *, minvt=None, minft=None, period=None, accuracy=mcb8::ACCURACY))]
    fn mcb8_active(
        &mut self,
        py: Python<'_>,
        t: f64,
        minvt: Option<f64>,
        minft: Option<f64>,
        period: Option<f64>,
        accuracy: f64,
    ) -> PyResult<usize> {
        let keep = Keep::from_bounds(minvt, minft).map_err(to_py)?;
        let inner = &mut self.inner;
        let call = py.detach(|| inner.mcb8(t, keep, period, accuracy)).map_err(to_py)?;
        Ok(call.map_or(0, |c| c.jobs))
    }

    /// The actions at `t` are done: pauses, starts, resumes and migrations
    /// are written down and penalties charged.
    fn record_commit(&mut self, t: f64) {
        self.inner.commit(t);
    }

    /// Max-min yields (opt=min) of the running jobs, applied at `t`.
    fn share_max_min(&mut self, py: Python<'_>, t: f64) -> PyResult<()> {
        let inner = &mut self.inner;
        py.detach(|| inner.share_max_min(t)).map_err(to_py)
    }

    /// Max-min estimated stretch (opt=max) with the next event `horizon` s away, applied at `t`.
    fn share_stretch(&mut self, py: Python<'_>, t: f64, horizon: f64) -> PyResult<()> {
        let inner = &mut self.inner;
        py.detach(|| inner.share_stretch(t, horizon)).map_err(to_py)
    }

    /// The max-min estimated stretch yields at `t`, not applied: (jobs, yields).
    fn stretch_yields<'py>(&mut self, py: Python<'py>, t: f64, horizon: f64) -> PyResult<JobsAndValues<'py>> {
        let (jobs, ys) = self.inner.stretch_yields(t, horizon).map_err(to_py)?;
        Ok((int64s(&jobs).into_pyarray(py), ys.into_pyarray(py)))
    }

    /// The running jobs `jobs` (ascending, all of them) get yields `ys` from `t`.
    fn share(&mut self, t: f64, jobs: PyReadonlyArray1<'_, i64>, ys: PyReadonlyArray1<'_, f64>) -> PyResult<()> {
        let jobs = integers::<u32>("jobs", &jobs, "a row >= 0")?;
        let ys = owned("ys", &ys)?;
        self.inner.share(t, &jobs, &ys).map_err(to_py)
    }

    /// Virtual time (s) of every job.
    fn virtual_times<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        self.inner.virtual_times().to_vec().into_pyarray(py)
    }

    /// Active jobs (arrived, not completed), ascending.
    fn active<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        int64s(self.inner.active()).into_pyarray(py)
    }

    /// Completion time of every job (NaN while not completed).
    fn completions<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        self.inner.completions().to_vec().into_pyarray(py)
    }

    /// The closed segments, by job then start: (job, start, end, yield,
    /// offsets, node, count), entries `offsets[s]..offsets[s + 1]` of segment `s`.
    #[allow(clippy::type_complexity)]
    fn segments<'py>(
        &self,
        py: Python<'py>,
    ) -> (
        Bound<'py, PyArray1<i64>>,
        Bound<'py, PyArray1<f64>>,
        Bound<'py, PyArray1<f64>>,
        Bound<'py, PyArray1<f64>>,
        Bound<'py, PyArray1<i64>>,
        Bound<'py, PyArray1<i64>>,
        Bound<'py, PyArray1<i64>>,
    ) {
        let s = self.inner.segments();
        (
            int64s(&s.job).into_pyarray(py),
            s.start.into_pyarray(py),
            s.end.into_pyarray(py),
            s.yields.into_pyarray(py),
            int64s(&s.offsets).into_pyarray(py),
            int64s(&s.node).into_pyarray(py),
            int64s(&s.count).into_pyarray(py),
        )
    }

    // -- the node state and the kernels, one call each ------------------------------------------

    /// Number of nodes.
    #[getter]
    fn nodes(&self) -> u32 {
        self.inner.cluster().nodes()
    }

    /// Places job `job` on `nodes` (one node per task).
    fn place(&mut self, job: i64, nodes: PyReadonlyArray1<'_, i64>) -> PyResult<()> {
        let job = job_index("job", job)?;
        let nodes = owned("nodes", &nodes)?
            .into_iter()
            .map(|x| u32::try_from(x).map_err(|_| PyValueError::new_err(format!("node {x} must be >= 0"))))
            .collect::<PyResult<Vec<u32>>>()?;
        self.inner.cluster_mut().place(job, nodes).map_err(to_py)
    }

    /// Removes job `job` from its nodes (a pause); returns its former nodes.
    fn remove<'py>(&mut self, py: Python<'py>, job: i64) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let nodes = self.inner.cluster_mut().remove(job_index("job", job)?).map_err(to_py)?;
        Ok(int64s(&nodes).into_pyarray(py))
    }

    /// Job `job` completed: it leaves its nodes, and the next commit ignores it.
    fn complete(&mut self, job: i64) -> PyResult<()> {
        self.inner.cluster_mut().complete(job_index("job", job)?).map_err(to_py)
    }

    /// (started, stopped, moved) job indices since the last commit.
    #[allow(clippy::type_complexity)]
    fn commit<'py>(
        &mut self,
        py: Python<'py>,
    ) -> (
        Bound<'py, PyArray1<i64>>,
        Bound<'py, PyArray1<i64>>,
        Bound<'py, PyArray1<i64>>,
    ) {
        let c = self.inner.cluster_mut().commit();
        (
            int64s(&c.started).into_pyarray(py),
            int64s(&c.stopped).into_pyarray(py),
            int64s(&c.moved).into_pyarray(py),
        )
    }

    /// Sorted nodes of the tasks of `job` (empty when it is not placed).
    fn placement<'py>(&self, py: Python<'py>, job: i64) -> PyResult<Bound<'py, PyArray1<i64>>> {
        Ok(int64s(self.inner.cluster().placement(job_index("job", job)?)).into_pyarray(py))
    }

    /// The nodes of `job`'s tasks as runs: (distinct nodes ascending, tasks on each).
    fn placement_runs<'py>(&self, py: Python<'py>, job: i64) -> PyResult<IndexPairs<'py>> {
        let nodes = self.inner.cluster().placement(job_index("job", job)?);
        let (mut distinct, mut counts): (Vec<i64>, Vec<i64>) = (Vec::new(), Vec::new());
        for &node in nodes {
            if distinct.last() == Some(&i64::from(node)) {
                *counts.last_mut().expect("pushed with the node") += 1;
            } else {
                distinct.push(i64::from(node));
                counts.push(1);
            }
        }
        Ok((distinct.into_pyarray(py), counts.into_pyarray(py)))
    }

    /// Running job indices, ascending.
    fn running<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        self.inner
            .cluster()
            .running()
            .map(i64::from)
            .collect::<Vec<_>>()
            .into_pyarray(py)
    }

    /// Memory used on each node, in units.
    fn mem_used<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        self.inner.cluster().mem_used().to_vec().into_pyarray(py)
    }

    /// CPU load (sum of needs) of each node, in units.
    fn cpu_load<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        self.inner.cluster().cpu_load().to_vec().into_pyarray(py)
    }

    /// Tasks of the running jobs per node as (node, job, count) arrays, by node then job.
    #[allow(clippy::type_complexity)]
    fn node_tasks<'py>(
        &self,
        py: Python<'py>,
    ) -> (
        Bound<'py, PyArray1<i64>>,
        Bound<'py, PyArray1<i64>>,
        Bound<'py, PyArray1<i64>>,
    ) {
        let (mut node, mut job, mut count) = (Vec::new(), Vec::new(), Vec::new());
        for (n, j, c) in self.inner.cluster().node_tasks() {
            node.push(i64::from(n));
            job.push(i64::from(j));
            count.push(i64::from(c));
        }
        (node.into_pyarray(py), job.into_pyarray(py), count.into_pyarray(py))
    }

    /// Greedy's nodes for `job` without placing it, or None when it does not fit.
    fn greedy_nodes<'py>(&self, py: Python<'py>, job: i64) -> PyResult<Option<Bound<'py, PyArray1<i64>>>> {
        let job = job_index("job", job)?;
        self.inner.cluster().check_job(job).map_err(to_py)?;
        Ok(self
            .inner
            .cluster()
            .greedy_nodes(job)
            .map(|n| int64s(&n).into_pyarray(py)))
    }

    /// Greedy (§4.2): places `job` if it fits; returns whether it did.
    fn greedy(&mut self, job: i64) -> PyResult<bool> {
        greedy::greedy(self.inner.cluster_mut(), job_index("job", job)?).map_err(to_py)
    }

    /// GreedyP, or GreedyPM when `migrate` (§4.2): `victims` are the running
    /// jobs that may be paused, lowest priority first. Returns (placed,
    /// paused, moved).
    #[allow(clippy::type_complexity)]
    fn greedy_preempt<'py>(
        &mut self,
        py: Python<'py>,
        job: i64,
        victims: PyReadonlyArray1<'py, i64>,
        migrate: bool,
    ) -> PyResult<(bool, Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>)> {
        let job = job_index("job", job)?;
        let victims = integers::<u32>("victims", &victims, "a row >= 0")?;
        let out = greedy::greedy_preempt(self.inner.cluster_mut(), job, &victims, migrate).map_err(to_py)?;
        Ok((
            out.placed,
            int64s(&out.paused).into_pyarray(py),
            int64s(&out.moved).into_pyarray(py),
        ))
    }

    /// MCB8 (§4.3) on the active jobs `order` (decreasing priority), `fixed[k]`
    /// keeping `order[k]` on its nodes; applies the packing. Returns
    /// (yield reached, jobs kept, packings tried).
    #[pyo3(signature = (order, fixed, accuracy=mcb8::ACCURACY))]
    fn mcb8(
        &mut self,
        py: Python<'_>,
        order: PyReadonlyArray1<'_, i64>,
        fixed: PyReadonlyArray1<'_, bool>,
        accuracy: f64,
    ) -> PyResult<(f64, usize, u32)> {
        let order = integers::<u32>("order", &order, "a row >= 0")?;
        let fixed = owned("fixed", &fixed)?;
        let inner = self.inner.cluster_mut();
        let p = py
            .detach(|| mcb8::apply(inner, &order, &fixed, mcb8::Target::Yield, accuracy))
            .map_err(to_py)?;
        Ok((p.level, p.kept, p.attempts))
    }

    /// MCB8-stretch (§4.7): as `mcb8`, targeting the estimated maximum stretch
    /// at the next periodic event; `flow` and `virt` are per job of `order`.
    /// Returns (inverse stretch reached, jobs kept, packings tried).
    #[pyo3(signature = (order, fixed, flow, virt, period, accuracy=mcb8::ACCURACY))]
    #[allow(clippy::too_many_arguments)]
    fn mcb8_stretch(
        &mut self,
        py: Python<'_>,
        order: PyReadonlyArray1<'_, i64>,
        fixed: PyReadonlyArray1<'_, bool>,
        flow: PyReadonlyArray1<'_, f64>,
        virt: PyReadonlyArray1<'_, f64>,
        period: f64,
        accuracy: f64,
    ) -> PyResult<(f64, usize, u32)> {
        let order = integers::<u32>("order", &order, "a row >= 0")?;
        let fixed = owned("fixed", &fixed)?;
        let (flow, virt) = (owned("flow", &flow)?, owned("virt", &virt)?);
        let inner = self.inner.cluster_mut();
        let p = py
            .detach(|| {
                let target = mcb8::Target::Stretch {
                    flow: &flow,
                    virt: &virt,
                    period,
                };
                mcb8::apply(inner, &order, &fixed, target, accuracy)
            })
            .map_err(to_py)?;
        Ok((p.level, p.kept, p.attempts))
    }

    /// Iterative max-min yields of the running jobs (opt=min, §4.6): (jobs, yields).
    fn max_min_yields<'py>(&self, py: Python<'py>) -> (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<f64>>) {
        let inner = self.inner.cluster();
        let (jobs, yields) = py.detach(|| alloc::max_min_yields(inner));
        (int64s(&jobs).into_pyarray(py), yields.into_pyarray(py))
    }

    /// Iterative minimization of the maximum estimated stretch (opt=max,
    /// §4.7); `flow` and `virt` are indexed by job. Returns (jobs, yields).
    fn max_min_stretch<'py>(
        &self,
        py: Python<'py>,
        flow: PyReadonlyArray1<'py, f64>,
        virt: PyReadonlyArray1<'py, f64>,
        period: f64,
    ) -> PyResult<JobsAndValues<'py>> {
        let (flow, virt) = (owned("flow", &flow)?, owned("virt", &virt)?);
        let inner = self.inner.cluster();
        let (jobs, yields) = py
            .detach(|| alloc::max_min_stretch(inner, &flow, &virt, period))
            .map_err(to_py)?;
        Ok((int64s(&jobs).into_pyarray(py), yields.into_pyarray(py)))
    }
}

/// The core's `progress` (`clustersched.dfrs.model.progress`'s rule, one job).
#[pyfunction]
fn dfrs_progress(y: f64, start: f64, end: f64, pen_end: f64) -> f64 {
    sim::progress(y, start, end, pen_end)
}

/// The core's `completion_time` (`clustersched.dfrs.model.completion_time`'s rule, one job).
#[pyfunction]
fn dfrs_completion_time(t: f64, pen_end: f64, remaining: f64, y: f64) -> f64 {
    sim::completion_time(t, pen_end, remaining, y)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<DfrsState>()?;
    m.add_function(wrap_pyfunction!(dfrs_progress, m)?)?;
    m.add_function(wrap_pyfunction!(dfrs_completion_time, m)?)?;
    m.add("DFRS_UNIT", dfrs::UNIT)?;
    m.add("DFRS_MAX_NODES", dfrs::MAX_NODES)?;
    m.add("DFRS_MAX_TASKS", dfrs::MAX_TASKS)?;
    m.add("DFRS_MAX_TOTAL_TASKS", dfrs::MAX_TOTAL_TASKS)?;
    m.add("MCB8_ACCURACY", mcb8::ACCURACY)
}
