//! Bindings of the DFRS kernels (`clustersched_core::dfrs`): one
//! `DfrsState` class holding the node state of a simulation, whose methods
//! run Greedy, GreedyP/PM, MCB8 and the allocations in place.
//! `clustersched.dfrs` is the public interface.

use clustersched_core::dfrs::{self, alloc, greedy, mcb8, Cluster, Jobs};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors::to_py;
use crate::{int64s, integers, owned};

fn job_index(name: &str, x: i64) -> PyResult<u32> {
    u32::try_from(x).map_err(|_| PyValueError::new_err(format!("{name} == {x}, must be a job index >= 0")))
}

/// Node state of a DFRS simulation (see `clustersched.dfrs.simulator`).
#[pyclass(module = "clustersched._core", name = "DfrsState")]
struct DfrsState {
    inner: Cluster,
}

#[pymethods]
impl DfrsState {
    #[new]
    fn new(
        tasks: PyReadonlyArray1<'_, i64>,
        cpu: PyReadonlyArray1<'_, u64>,
        mem: PyReadonlyArray1<'_, u64>,
        nodes: i64,
    ) -> PyResult<Self> {
        // The core checks the range (1..=MAX_NODES); a count beyond u32 gets its message here.
        let nodes = u32::try_from(nodes)
            .map_err(|_| PyValueError::new_err(format!("nodes == {nodes}, must be in 1..={}", dfrs::MAX_NODES)))?;
        let tasks = Jobs::task_counts(&owned("tasks", &tasks)?).map_err(to_py)?;
        let jobs = Jobs::new(tasks, owned("cpu", &cpu)?, owned("mem", &mem)?).map_err(to_py)?;
        Ok(DfrsState { inner: Cluster::new(jobs, nodes).map_err(to_py)? })
    }

    /// Number of nodes.
    #[getter]
    fn nodes(&self) -> u32 {
        self.inner.nodes()
    }

    /// Places job `job` on `nodes` (one node per task).
    fn place(&mut self, job: i64, nodes: PyReadonlyArray1<'_, i64>) -> PyResult<()> {
        let job = job_index("job", job)?;
        let nodes = owned("nodes", &nodes)?
            .into_iter()
            .map(|x| u32::try_from(x).map_err(|_| PyValueError::new_err(format!("node {x} must be >= 0"))))
            .collect::<PyResult<Vec<u32>>>()?;
        self.inner.place(job, nodes).map_err(to_py)
    }

    /// Removes job `job` from its nodes (a pause); returns its former nodes.
    fn remove<'py>(&mut self, py: Python<'py>, job: i64) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let nodes = self.inner.remove(job_index("job", job)?).map_err(to_py)?;
        Ok(int64s(&nodes).into_pyarray(py))
    }

    /// Job `job` completed: it leaves its nodes, and the next commit ignores it.
    fn complete(&mut self, job: i64) -> PyResult<()> {
        self.inner.complete(job_index("job", job)?).map_err(to_py)
    }

    /// (started, stopped, moved) job indices since the last commit.
    #[allow(clippy::type_complexity)]
    fn commit<'py>(
        &mut self,
        py: Python<'py>,
    ) -> (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>) {
        let c = self.inner.commit();
        (int64s(&c.started).into_pyarray(py), int64s(&c.stopped).into_pyarray(py), int64s(&c.moved).into_pyarray(py))
    }

    /// Sorted nodes of the tasks of `job` (empty when it is not placed).
    fn placement<'py>(&self, py: Python<'py>, job: i64) -> PyResult<Bound<'py, PyArray1<i64>>> {
        Ok(int64s(self.inner.placement(job_index("job", job)?)).into_pyarray(py))
    }

    /// The nodes of `job`'s tasks as runs: (distinct nodes ascending, tasks on each).
    fn placement_runs<'py>(
        &self,
        py: Python<'py>,
        job: i64,
    ) -> PyResult<(Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>)> {
        let nodes = self.inner.placement(job_index("job", job)?);
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
        self.inner.running().map(i64::from).collect::<Vec<_>>().into_pyarray(py)
    }

    /// Memory used on each node, in units.
    fn mem_used<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        self.inner.mem_used().to_vec().into_pyarray(py)
    }

    /// CPU load (sum of needs) of each node, in units.
    fn cpu_load<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        self.inner.cpu_load().to_vec().into_pyarray(py)
    }

    /// Tasks of the running jobs per node as (node, job, count) arrays, by node then job.
    #[allow(clippy::type_complexity)]
    fn node_tasks<'py>(
        &self,
        py: Python<'py>,
    ) -> (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>) {
        let (mut node, mut job, mut count) = (Vec::new(), Vec::new(), Vec::new());
        for (n, j, c) in self.inner.node_tasks() {
            node.push(i64::from(n));
            job.push(i64::from(j));
            count.push(i64::from(c));
        }
        (node.into_pyarray(py), job.into_pyarray(py), count.into_pyarray(py))
    }

    /// Greedy's nodes for `job` without placing it, or None when it does not fit.
    fn greedy_nodes<'py>(&self, py: Python<'py>, job: i64) -> PyResult<Option<Bound<'py, PyArray1<i64>>>> {
        let job = job_index("job", job)?;
        self.inner.check_job(job).map_err(to_py)?;
        Ok(self.inner.greedy_nodes(job).map(|n| int64s(&n).into_pyarray(py)))
    }

    /// Greedy (§4.2): places `job` if it fits; returns whether it did.
    fn greedy(&mut self, job: i64) -> PyResult<bool> {
        greedy::greedy(&mut self.inner, job_index("job", job)?).map_err(to_py)
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
        let victims = integers::<u32>("victims", &victims, "a job index >= 0")?;
        let out = greedy::greedy_preempt(&mut self.inner, job, &victims, migrate).map_err(to_py)?;
        Ok((out.placed, int64s(&out.paused).into_pyarray(py), int64s(&out.moved).into_pyarray(py)))
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
        let order = integers::<u32>("order", &order, "a job index >= 0")?;
        let fixed = owned("fixed", &fixed)?;
        let inner = &mut self.inner;
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
        let order = integers::<u32>("order", &order, "a job index >= 0")?;
        let fixed = owned("fixed", &fixed)?;
        let (flow, virt) = (owned("flow", &flow)?, owned("virt", &virt)?);
        let inner = &mut self.inner;
        let p = py
            .detach(|| {
                let target = mcb8::Target::Stretch { flow: &flow, virt: &virt, period };
                mcb8::apply(inner, &order, &fixed, target, accuracy)
            })
            .map_err(to_py)?;
        Ok((p.level, p.kept, p.attempts))
    }

    /// Iterative max-min yields of the running jobs (opt=min, §4.6): (jobs, yields).
    fn max_min_yields<'py>(&self, py: Python<'py>) -> (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<f64>>) {
        let inner = &self.inner;
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
    ) -> PyResult<(Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<f64>>)> {
        let (flow, virt) = (owned("flow", &flow)?, owned("virt", &virt)?);
        let inner = &self.inner;
        let (jobs, yields) = py.detach(|| alloc::max_min_stretch(inner, &flow, &virt, period)).map_err(to_py)?;
        Ok((int64s(&jobs).into_pyarray(py), yields.into_pyarray(py)))
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<DfrsState>()?;
    m.add("DFRS_UNIT", dfrs::UNIT)?;
    m.add("DFRS_MAX_NODES", dfrs::MAX_NODES)?;
    m.add("DFRS_MAX_TASKS", dfrs::MAX_TASKS)?;
    m.add("DFRS_MAX_TOTAL_TASKS", dfrs::MAX_TOTAL_TASKS)?;
    m.add("MCB8_ACCURACY", mcb8::ACCURACY)
}
