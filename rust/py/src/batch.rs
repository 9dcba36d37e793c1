//! Bindings of the batch simulator (`clustersched_core::batch`): the
//! `BatchSim` class, driven step by step by Python policies or run whole by a
//! built-in one, and DPSA's subset search alone. `clustersched.batch` is the
//! public interface.

use std::time::{Duration, Instant};

use clustersched_core::batch::{
    self, BatchSim as CoreSim, Builtin, DpsaConfig, DpsaVariant, Jobs, Nodes, Priority, Request, Runner,
};
use clustersched_core::memory::huge_vec;
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{no_such_row, to_py};
use crate::{integers, owned};

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

/// The queue order called `order`.
fn priority_of(order: &str) -> PyResult<Priority> {
    match order {
        ARRIVAL => Ok(Priority::Arrival),
        SHORTEST_ESTIMATE => Ok(Priority::ShortestEstimate),
        _ => Err(PyValueError::new_err(format!(
            "order == '{order}', must be 'arrival' or 'shortest-estimate'"
        ))),
    }
}

/// `params[key]` as a `T`, or `default` when the dict has no such key.
fn item_or<'py, T: pyo3::conversion::FromPyObjectOwned<'py>>(
    params: &Bound<'py, PyDict>,
    key: &str,
    default: T,
) -> PyResult<T> {
    match params.get_item(key)? {
        Some(v) => v.extract().map_err(Into::into),
        None => Ok(default),
    }
}

/// Runs `step` on `sim` without the GIL for at most `max_events` time stamps
/// (all if None), taking the GIL back every [`SIGNAL_INTERVAL`] of wall clock
/// to run Python's signal handlers (a raising handler ends the run with its
/// exception). `step(sim, events left, deadline)` returns whether the
/// simulation is finished. Returns that, once it is, or once the budget is
/// spent or a step moved nothing.
fn run_with_signals<F>(py: Python<'_>, sim: &mut CoreSim, max_events: Option<u64>, mut step: F) -> PyResult<bool>
where
    F: FnMut(&mut CoreSim, Option<u64>, Option<Instant>) -> clustersched_core::Result<bool> + Send,
{
    let stop = max_events.map(|m| sim.events().saturating_add(m));
    loop {
        let before = sim.events();
        let left = stop.map(|s| s.saturating_sub(before));
        let until = Instant::now().checked_add(SIGNAL_INTERVAL);
        let done = py.detach(|| step(sim, left, until)).map_err(to_py)?;
        py.check_signals()?;
        let after = sim.events();
        if done || after == before || stop.is_some_and(|s| after >= s) {
            return Ok(done);
        }
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
    /// The nodes' state, or ValueError on a processor pool.
    fn on_nodes_only(&self) -> PyResult<&clustersched_core::batch::NodeMachine> {
        self.inner
            .nodes()
            .ok_or_else(|| PyValueError::new_err("this simulation is on a processor pool, not on nodes"))
    }

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
        let priority = priority_of(order)?;
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

    /// A simulation on a cluster of nodes: the jobs' times as for `new`, the
    /// nodes as arrays (`gres` row-major, `kinds` columns; `features` and
    /// `partitions` bit masks), one request per job (the core's `Request`
    /// fields as arrays; memory in MB, `2**64 - 1` per node for a whole node).
    #[staticmethod]
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (submit, runtime, estimate, nodes, requests, order))]
    fn on_nodes(
        submit: PyReadonlyArray1<'_, f64>,
        runtime: PyReadonlyArray1<'_, f64>,
        estimate: PyReadonlyArray1<'_, f64>,
        nodes: &Bound<'_, PyDict>,
        requests: &Bound<'_, PyDict>,
        order: &str,
    ) -> PyResult<Self> {
        let priority = priority_of(order)?;
        let ints = |d: &Bound<'_, PyDict>, key: &str| -> PyResult<Vec<u32>> {
            let item = d
                .get_item(key)?
                .ok_or_else(|| PyValueError::new_err(format!("missing array '{key}'")))?;
            let a: PyReadonlyArray1<'_, i64> = item.extract()?;
            integers(key, &a, &format!("between 0 and {}", u32::MAX))
        };
        let wide = |d: &Bound<'_, PyDict>, key: &str| -> PyResult<Vec<u64>> {
            let item = d
                .get_item(key)?
                .ok_or_else(|| PyValueError::new_err(format!("missing array '{key}'")))?;
            let a: PyReadonlyArray1<'_, u64> = item.extract()?;
            owned(key, &a)
        };
        let cores = ints(nodes, "cores")?;
        let gres = ints(nodes, "gres")?;
        let kinds = if cores.is_empty() { 0 } else { gres.len() / cores.len() };
        let platform = Nodes {
            memory: wide(nodes, "memory")?,
            gres,
            kinds,
            features: wide(nodes, "features")?,
            weight: ints(nodes, "weight")?,
            partitions: wide(nodes, "partitions")?,
            cores,
        };
        // The requests are read straight from numpy's buffers into the core's
        // `Request`s: ten intermediate columns of a million-job table would
        // cost more in fresh pages than the copying itself.
        let array = |key: &str| -> PyResult<Bound<'_, PyAny>> {
            requests
                .get_item(key)?
                .ok_or_else(|| PyValueError::new_err(format!("missing array '{key}'")))
        };
        let i64s = |key: &str| -> PyResult<PyReadonlyArray1<'_, i64>> { array(key)?.extract() };
        let u64s = |key: &str| -> PyResult<PyReadonlyArray1<'_, u64>> { array(key)?.extract() };
        let (n, tasks, cpt, gres_n, partition) = (
            i64s("nodes")?,
            i64s("tasks")?,
            i64s("cpus_per_task")?,
            i64s("gres_per_node")?,
            i64s("partition")?,
        );
        let (mem_cpu, mem_node, gres_k, features) = (
            u64s("mem_per_cpu")?,
            u64s("mem_per_node")?,
            u64s("gres_kinds")?,
            u64s("features")?,
        );
        let exclusive: PyReadonlyArray1<'_, bool> = array("exclusive")?.extract()?;
        let contiguous = |name: &str| PyValueError::new_err(format!("{name} must be a contiguous 1-D array"));
        let (n, tasks, cpt, gres_n, partition) = (
            n.as_slice().map_err(|_| contiguous("nodes"))?,
            tasks.as_slice().map_err(|_| contiguous("tasks"))?,
            cpt.as_slice().map_err(|_| contiguous("cpus_per_task"))?,
            gres_n.as_slice().map_err(|_| contiguous("gres_per_node"))?,
            partition.as_slice().map_err(|_| contiguous("partition"))?,
        );
        let (mem_cpu, mem_node, gres_k, features, exclusive) = (
            mem_cpu.as_slice().map_err(|_| contiguous("mem_per_cpu"))?,
            mem_node.as_slice().map_err(|_| contiguous("mem_per_node"))?,
            gres_k.as_slice().map_err(|_| contiguous("gres_kinds"))?,
            features.as_slice().map_err(|_| contiguous("features"))?,
            exclusive.as_slice().map_err(|_| contiguous("exclusive"))?,
        );
        let count = n.len();
        let lengths = [
            tasks.len(),
            cpt.len(),
            mem_cpu.len(),
            mem_node.len(),
            gres_n.len(),
            gres_k.len(),
            features.len(),
            partition.len(),
            exclusive.len(),
        ];
        if lengths.iter().any(|&l| l != count) {
            return Err(PyValueError::new_err("request arrays differ in length"));
        }
        // each count column is checked in one pass, so that the rows are then converted without a check each
        for (name, column) in [
            ("nodes", n),
            ("tasks", tasks),
            ("cpus_per_task", cpt),
            ("gres_per_node", gres_n),
            ("partition", partition),
        ] {
            if let Some(k) = column.iter().position(|&x| u32::try_from(x).is_err()) {
                return Err(PyValueError::new_err(format!(
                    "{name}[{k}] == {}, must be between 0 and {}",
                    column[k],
                    u32::MAX
                )));
            }
        }
        // 56 bytes a job, megabytes of a trace: huge pages (and no regrowth) for them
        let mut reqs = huge_vec(count);
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // every count checked above
        reqs.extend((0..count).map(|j| Request {
            nodes: n[j] as u32,
            tasks: tasks[j] as u32,
            cpus_per_task: cpt[j] as u32,
            mem_per_cpu: mem_cpu[j],
            mem_per_node: mem_node[j],
            gres_per_node: gres_n[j] as u32,
            gres_kinds: gres_k[j],
            features: features[j],
            partition: partition[j] as u32,
            exclusive: exclusive[j],
        }));
        let width = reqs
            .iter()
            .map(|r| u32::try_from(r.width()).unwrap_or(u32::MAX))
            .collect();
        let jobs = Jobs {
            submit: owned("submit", &submit)?,
            runtime: owned("runtime", &runtime)?,
            estimate: owned("estimate", &estimate)?,
            width,
        };
        Ok(BatchSim {
            inner: CoreSim::on_nodes(jobs, platform, reqs, priority).map_err(to_py)?,
            runner: None,
        })
    }

    /// Free resources of every node now: (cores, memory MB, generic resources row-major).
    #[allow(clippy::type_complexity)]
    fn node_free<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(
        Bound<'py, PyArray1<i64>>,
        Bound<'py, PyArray1<u64>>,
        Bound<'py, PyArray1<i64>>,
    )> {
        let nodes = self.on_nodes_only()?;
        let free = nodes.free();
        Ok((
            free.cores
                .iter()
                .map(|&c| i64::from(c))
                .collect::<Vec<_>>()
                .into_pyarray(py),
            free.memory.clone().into_pyarray(py),
            free.gres
                .iter()
                .map(|&g| i64::from(g))
                .collect::<Vec<_>>()
                .into_pyarray(py),
        ))
    }

    /// EASY's shadow time of waiting job `job` on nodes: when the placement
    /// rule first finds it nodes as running jobs end at their estimates.
    fn node_shadow(&self, job: i64) -> PyResult<f64> {
        let nodes = self.on_nodes_only()?;
        let j = usize::try_from(job)
            .ok()
            .filter(|&j| j < self.inner.jobs().len())
            .ok_or_else(|| no_such_row(job, self.inner.now()))?;
        nodes
            .shadow(clustersched_core::Time(self.inner.now()), j)
            .map(|s| s.time.0)
            .ok_or_else(|| PyValueError::new_err(format!("job {job} fits on no state the running jobs leave")))
    }

    /// Shares of every job as CSR: (offsets of length n+1, node, tasks, cores,
    /// memory MB, generic resource units `kinds` per share).
    #[allow(clippy::type_complexity)]
    fn node_assignment<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(
        Bound<'py, PyArray1<i64>>,
        Bound<'py, PyArray1<i64>>,
        Bound<'py, PyArray1<i64>>,
        Bound<'py, PyArray1<i64>>,
        Bound<'py, PyArray1<u64>>,
        Bound<'py, PyArray1<i64>>,
    )> {
        let nodes = self.on_nodes_only()?;
        let (offsets, node, tasks, cores, memory, gres) = nodes.assignment();
        Ok((
            offsets.into_pyarray(py),
            node.into_pyarray(py),
            tasks.into_pyarray(py),
            cores.into_pyarray(py),
            memory.into_pyarray(py),
            gres.into_pyarray(py),
        ))
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

    /// Processors (cores, on nodes) free now.
    #[getter]
    fn free(&self) -> u64 {
        self.inner.free_cores()
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
        let width = &self.inner.jobs().width;
        let running: Vec<(f64, u32)> = match self.inner.nodes() {
            Some(nodes) => nodes.running().iter().map(|&(end, job)| (end.0, job)).collect(),
            None => self
                .inner
                .machine()
                .running()
                .map(|(end, job, _)| (end.0, job))
                .collect(),
        };
        for (end, job) in running {
            jobs.push(i64::from(job));
            ends.push(end);
            widths.push(i64::from(width[job as usize]));
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
        if self.inner.nodes().is_some() {
            return Err(PyValueError::new_err(
                "on nodes a shadow time belongs to a job's request, not to a processor count: use node_shadow(job)",
            ));
        }
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
        run_with_signals(py, inner, max_events, |sim, left, until| {
            runner.run_until(sim, left, until)
        })
    }

    /// Runs Slurm's scheduler (`clustersched_core::batch::SlurmScheduler`) to
    /// the end, on nodes only. `params` holds the scheduler's numbers (keys as
    /// the core's `SlurmParams` fields), `jobs` its per-job arrays (`fixed`,
    /// `tier`, `user`, `association`, `billing`, `eligible`), `parent` and
    /// `shares` the association tree. Returns a dict: `age`, `fairshare`,
    /// `priority` and `decided` (the time of the calculation in force) of
    /// each job when it started, the pass counts, and with `log` every
    /// calculation as arrays `log_time`, `log_job`, `log_age`,
    /// `log_fairshare`, `log_priority`. Signals are checked as for `run`.
    #[pyo3(signature = (params, jobs, parent, shares, log=false))]
    fn run_slurm<'py>(
        &mut self,
        py: Python<'py>,
        params: &Bound<'py, PyDict>,
        jobs: &Bound<'py, PyDict>,
        parent: PyReadonlyArray1<'py, i64>,
        shares: PyReadonlyArray1<'py, f64>,
        log: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        self.on_nodes_only()?;
        let d = batch::SlurmParams::default();
        let config = batch::SlurmParams {
            sched_interval: item_or(params, "sched_interval", d.sched_interval)?,
            default_queue_depth: item_or(params, "default_queue_depth", d.default_queue_depth)?,
            bf_interval: item_or(params, "bf_interval", d.bf_interval)?,
            bf_window: item_or(params, "bf_window", d.bf_window)?,
            bf_resolution: item_or(params, "bf_resolution", d.bf_resolution)?,
            epoch: item_or(params, "epoch", d.epoch)?,
            bf_max_job_test: item_or(params, "bf_max_job_test", d.bf_max_job_test)?,
            bf_max_job_user: item_or(params, "bf_max_job_user", d.bf_max_job_user)?,
            calc_period: item_or(params, "calc_period", d.calc_period)?,
            max_age: item_or(params, "max_age", d.max_age)?,
            decay_half_life: item_or(params, "decay_half_life", d.decay_half_life)?,
            weight_age: item_or(params, "weight_age", d.weight_age)?,
            weight_fairshare: item_or(params, "weight_fairshare", d.weight_fairshare)?,
            damping: item_or(params, "damping", d.damping)?,
        };
        let array = |key: &str| -> PyResult<Bound<'py, PyAny>> {
            jobs.get_item(key)?
                .ok_or_else(|| PyValueError::new_err(format!("missing array '{key}'")))
        };
        let floats = |key: &str| -> PyResult<Vec<f64>> {
            let a: PyReadonlyArray1<'_, f64> = array(key)?.extract()?;
            owned(key, &a)
        };
        let ints = |key: &str| -> PyResult<Vec<u32>> {
            let a: PyReadonlyArray1<'_, i64> = array(key)?.extract()?;
            integers(key, &a, &format!("between 0 and {}", u32::MAX))
        };
        let slurm_jobs = batch::SlurmJobs {
            fixed: floats("fixed")?,
            tier: ints("tier")?,
            user: ints("user")?,
            association: ints("association")?,
            billing: floats("billing")?,
            eligible: floats("eligible")?,
        };
        let tree = batch::Associations {
            parent: integers("parent", &parent, &format!("between 0 and {}", u32::MAX))?,
            shares: owned("shares", &shares)?,
        };
        let mut scheduler = batch::SlurmScheduler::new(config, slurm_jobs, &tree, log).map_err(to_py)?;
        run_with_signals(py, &mut self.inner, None, |sim, left, until| {
            scheduler.run(sim, left, until)
        })?;
        let out = PyDict::new(py);
        let at_start = scheduler.factors_at_start();
        let field = |f: &dyn Fn(&batch::Factors) -> f64| -> Vec<f64> {
            at_start.iter().map(|x| x.as_ref().map_or(f64::NAN, f)).collect()
        };
        out.set_item("age", field(&|x| x.age).into_pyarray(py))?;
        out.set_item("fairshare", field(&|x| x.fairshare).into_pyarray(py))?;
        out.set_item("priority", field(&|x| f64::from(x.priority)).into_pyarray(py))?;
        out.set_item("decided", field(&|x| x.time).into_pyarray(py))?;
        let stats = scheduler.stats();
        out.set_item("main_passes", stats.main_passes)?;
        out.set_item("backfill_passes", stats.backfill_passes)?;
        out.set_item("main_starts", stats.main_starts)?;
        out.set_item("backfill_starts", stats.backfill_starts)?;
        out.set_item("recalculations", stats.recalculations)?;
        out.set_item("backfill_depth", stats.backfill_depth)?;
        out.set_item("backfill_try_depth", stats.backfill_try_depth)?;
        if let Some(rows) = scheduler.log() {
            let floats = |f: fn(&batch::Factors) -> f64| rows.iter().map(f).collect::<Vec<_>>().into_pyarray(py);
            let ints = |f: fn(&batch::Factors) -> i64| rows.iter().map(f).collect::<Vec<_>>().into_pyarray(py);
            out.set_item("log_time", floats(|r| r.time))?;
            out.set_item("log_job", ints(|r| i64::from(r.job)))?;
            out.set_item("log_age", floats(|r| r.age))?;
            out.set_item("log_fairshare", floats(|r| r.fairshare))?;
            out.set_item("log_priority", ints(|r| i64::from(r.priority)))?;
        }
        Ok(out)
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
