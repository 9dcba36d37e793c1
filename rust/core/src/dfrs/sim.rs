//! The per-event bookkeeping of a DFRS simulation (RR-7659 §4, §5.1): the
//! dynamic state of every job (virtual time, yield, penalty, completion
//! estimate), priorities, the actions on a [`Cluster`] in priority order, and
//! the segments of the schedule as they happen.
//!
//! The event loop itself stays in Python (`clustersched.dfrs.simulator`,
//! whose docstring states the semantics); it calls one method of
//! [`Simulation`] per step of an event, and each method costs what the jobs in
//! the system hold, never one call per job.
//!
//! Time follows the one rounding rule of `clustersched.dfrs.model`:
//! [`progress`] and [`completion_time`] are its two formulas, evaluated in
//! the same float64 operations as the numpy versions the validator uses.

use std::cmp::Ordering;

use super::cluster::Cluster;
use super::jobs::Jobs;
use super::{alloc, greedy, mcb8};
use crate::error::{Error, Item, Result, Rule};

const NONE: u32 = u32::MAX;

/// Work done at yield `y` over `[start, end)` by a job whose penalty ends at
/// `pen_end`: `y * max(end - max(start, pen_end), 0)` (`clustersched.dfrs.model.progress`).
pub fn progress(y: f64, start: f64, end: f64, pen_end: f64) -> f64 {
    y * (end - start.max(pen_end)).max(0.0)
}

/// When a job with `remaining` work, running from `t` at yield `y > 0`,
/// completes: `max(t, pen_end) + remaining / y` (`clustersched.dfrs.model.completion_time`).
pub fn completion_time(t: f64, pen_end: f64, remaining: f64, y: f64) -> f64 {
    t.max(pen_end) + remaining / y
}

/// The submission action of a Greedy family (§4.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnSubmit {
    /// Greedy: place the new job if it fits.
    Greedy,
    /// GreedyP: may pause running jobs of lower priority.
    GreedyP,
    /// GreedyPM: GreedyP, and re-places the jobs it paused when they fit.
    GreedyPM,
}

impl OnSubmit {
    /// The policy named `name` (`"Greedy"`, `"GreedyP"` or `"GreedyPM"`, as in an algorithm's name).
    pub fn from_name(name: &str) -> Result<Self> {
        match name {
            "Greedy" => Ok(OnSubmit::Greedy),
            "GreedyP" => Ok(OnSubmit::GreedyP),
            "GreedyPM" => Ok(OnSubmit::GreedyPM),
            _ => Err(Error::InvalidArgument(format!(
                "policy == '{name}', must be 'Greedy', 'GreedyP' or 'GreedyPM'"
            ))),
        }
    }
}

/// Which running jobs MCB8 keeps on their nodes (§4.3).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Keep {
    /// None: every job may move.
    Nothing,
    /// Jobs placed at the start of the time stamp with virtual time below the bound.
    MinVt(f64),
    /// Jobs placed at the start of the time stamp with flow time below the bound.
    MinFt(f64),
}

impl Keep {
    /// The rule of an algorithm's `minvt=` / `minft=` option (at most one of them).
    pub fn from_bounds(minvt: Option<f64>, minft: Option<f64>) -> Result<Self> {
        match (minvt, minft) {
            (Some(b), None) => Ok(Keep::MinVt(b)),
            (None, Some(b)) => Ok(Keep::MinFt(b)),
            (None, None) => Ok(Keep::Nothing),
            (Some(_), Some(_)) => Err(Error::InvalidArgument("minft and minvt cannot both be set".into())),
        }
    }
}

/// The segments of a run, sorted by job then start (see [`Simulation::segments`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Segments {
    /// Job of each segment.
    pub job: Vec<u32>,
    /// Start of each segment.
    pub start: Vec<f64>,
    /// End of each segment.
    pub end: Vec<f64>,
    /// Yield of each segment.
    pub yields: Vec<f64>,
    /// Entries of segment `s`: `offsets[s]..offsets[s + 1]`.
    pub offsets: Vec<usize>,
    /// Node of each entry (distinct and ascending within a segment).
    pub node: Vec<u32>,
    /// Tasks of the segment's job on that node.
    pub count: Vec<u32>,
}

/// The segments written down as they happen: one open segment per placed
/// job, and every placement seen, stored once as runs (node, tasks).
#[derive(Debug, Clone)]
struct Recorder {
    open_start: Vec<f64>,
    open_pid: Vec<u32>,
    open_y: Vec<f64>,
    /// Current placement of placed jobs (NONE: not placed).
    pid: Vec<u32>,
    last_end: Vec<f64>,
    last_pid: Vec<u32>,
    /// Runs of placement `p`: `pl_start[p]..pl_start[p + 1]`.
    pl_start: Vec<usize>,
    pl_node: Vec<u32>,
    pl_count: Vec<u32>,
    seg_job: Vec<u32>,
    seg_start: Vec<f64>,
    seg_end: Vec<f64>,
    seg_y: Vec<f64>,
    seg_pid: Vec<u32>,
}

impl Recorder {
    fn new(n: usize) -> Self {
        Recorder {
            open_start: vec![f64::NAN; n],
            open_pid: vec![NONE; n],
            open_y: vec![0.0; n],
            pid: vec![NONE; n],
            last_end: vec![f64::NAN; n],
            last_pid: vec![NONE; n],
            pl_start: vec![0],
            pl_node: Vec::new(),
            pl_count: Vec::new(),
            seg_job: Vec::new(),
            seg_start: Vec::new(),
            seg_end: Vec::new(),
            seg_y: Vec::new(),
            seg_pid: Vec::new(),
        }
    }

    fn runs(&self, p: u32) -> (&[u32], &[u32]) {
        let (a, b) = (self.pl_start[p as usize], self.pl_start[p as usize + 1]);
        (&self.pl_node[a..b], &self.pl_count[a..b])
    }

    /// Job `j` is now on `nodes` (sorted, one per task) from `t`. Returns
    /// whether it ran before and did not run until `t` on the same nodes.
    fn place(&mut self, j: usize, nodes: &[u32], t: f64) -> bool {
        let mut k = 0;
        while k < nodes.len() {
            let first = k;
            while k < nodes.len() && nodes[k] == nodes[first] {
                k += 1;
            }
            self.pl_node.push(nodes[first]);
            self.pl_count.push((k - first) as u32);
        }
        self.pl_start.push(self.pl_node.len());
        let pid = (self.pl_start.len() - 2) as u32;
        self.pid[j] = pid;
        let last = self.last_pid[j];
        last != NONE && !(self.last_end[j] == t && self.runs(last) == self.runs(pid))
    }

    fn open(&mut self, j: usize, t: f64, y: f64) {
        self.open_start[j] = t;
        self.open_pid[j] = self.pid[j];
        self.open_y[j] = y;
    }

    fn close(&mut self, j: usize, t: f64) {
        let pid = self.open_pid[j];
        if pid == NONE {
            return;
        }
        self.seg_job.push(j as u32);
        self.seg_start.push(self.open_start[j]);
        self.seg_end.push(t);
        self.seg_y.push(self.open_y[j]);
        self.seg_pid.push(pid);
        self.open_pid[j] = NONE;
        self.last_end[j] = t;
        self.last_pid[j] = pid;
    }

    fn stop(&mut self, j: usize, t: f64) {
        self.close(j, t);
        self.pid[j] = NONE;
    }

    fn placed(&self, j: usize) -> bool {
        self.pid[j] != NONE
    }
}

/// What one MCB8 call of [`Simulation::mcb8`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct Mcb8Call {
    /// Jobs given to MCB8 (every job in the system).
    pub jobs: usize,
    /// The packing's level, kept jobs and packings tried.
    pub level: f64,
    pub kept: usize,
    pub attempts: u32,
}

/// The state of one DFRS simulation: the cluster, the dynamic state of every
/// job, and the schedule's segments so far.
///
/// Jobs are rows in submission order. A job is *active* from its arrival
/// ([`Simulation::arrive`]) to its completion. The methods are the steps of
/// an event, called by the loop in this order: [`advance`](Self::advance)
/// to the event's time, [`complete`](Self::complete), [`arrive`](Self::arrive),
/// the actions ([`submit`](Self::submit), [`greedy_waiting`](Self::greedy_waiting),
/// [`mcb8`](Self::mcb8)), then [`commit`](Self::commit) and one allocation
/// ([`share_max_min`](Self::share_max_min), [`share_stretch`](Self::share_stretch)
/// or [`share`](Self::share) with yields computed elsewhere).
#[derive(Debug, Clone)]
pub struct Simulation {
    cluster: Cluster,
    submit: Vec<f64>,
    processing: Vec<f64>,
    penalty: f64,
    done: Vec<f64>,
    y: Vec<f64>,
    pen_end: Vec<f64>,
    est: Vec<f64>,
    completion: Vec<f64>,
    /// Active jobs, ascending.
    active: Vec<u32>,
    arrived: usize,
    /// Jobs of the last allocation, ascending (the running jobs then).
    run_idx: Vec<u32>,
    /// Jobs started or moved by the last commit (to open a new segment).
    placed_now: Vec<u32>,
    is_placed_now: Vec<bool>,
    rec: Recorder,
    /// The last max-min allocation and the cluster version it was computed on.
    max_min_cache: Option<(u64, Vec<u32>, Vec<f64>)>,
    flow: Vec<f64>,
}

fn check_times(name: &'static str, x: &[f64], n: usize) -> Result<()> {
    if x.len() != n {
        return Err(Error::InvalidArgument(format!(
            "{name} has {} entries for {n} jobs",
            x.len()
        )));
    }
    if let Some((j, &v)) = x.iter().enumerate().find(|(_, v)| !(v.is_finite() && **v >= 0.0)) {
        return Err(Error::invalid(Item::Job(j), name, v, Rule::AtLeast(0.0.into())));
    }
    Ok(())
}

impl Simulation {
    /// A simulation of `jobs` on `nodes` nodes, with their submission and
    /// processing times (s) and the penalty (s) of a resume or a migration.
    pub fn new(jobs: Jobs, nodes: u32, submit: Vec<f64>, processing: Vec<f64>, penalty: f64) -> Result<Self> {
        let n = jobs.len();
        check_times("submit", &submit, n)?;
        check_times("processing_time", &processing, n)?;
        if !(penalty.is_finite() && penalty >= 0.0) {
            return Err(Error::InvalidArgument(format!(
                "penalty == {penalty}, must be finite and >= 0"
            )));
        }
        Ok(Simulation {
            cluster: Cluster::new(jobs, nodes)?,
            submit,
            processing,
            penalty,
            done: vec![0.0; n],
            y: vec![0.0; n],
            pen_end: vec![f64::NEG_INFINITY; n],
            est: vec![f64::INFINITY; n],
            completion: vec![f64::NAN; n],
            active: Vec::new(),
            arrived: 0,
            run_idx: Vec::new(),
            placed_now: Vec::new(),
            is_placed_now: vec![false; n],
            rec: Recorder::new(n),
            max_min_cache: None,
            flow: Vec::new(),
        })
    }

    /// The node state.
    pub fn cluster(&self) -> &Cluster {
        &self.cluster
    }

    /// The node state, to act on it directly (a caller's own decisions).
    pub fn cluster_mut(&mut self) -> &mut Cluster {
        &mut self.cluster
    }

    /// Number of jobs.
    pub fn len(&self) -> usize {
        self.submit.len()
    }

    /// Whether there is no job.
    pub fn is_empty(&self) -> bool {
        self.submit.is_empty()
    }

    /// Virtual time (progress, s) of every job.
    pub fn virtual_times(&self) -> &[f64] {
        &self.done
    }

    /// Completion time of every job (NaN while it has not completed).
    pub fn completions(&self) -> &[f64] {
        &self.completion
    }

    /// Active jobs (arrived, not completed), ascending.
    pub fn active(&self) -> &[u32] {
        &self.active
    }

    /// Priority of job `j` at `t` (§4.1): flow time over the square of its
    /// virtual time, infinite without virtual time.
    pub fn priority(&self, t: f64, j: usize) -> f64 {
        let vt = self.done[j];
        if vt > 0.0 {
            (t - self.submit[j]) / (vt * vt)
        } else {
            f64::INFINITY
        }
    }

    /// `rows` in decreasing priority at `t`, ties by row (a NaN priority last).
    pub fn by_priority(&self, t: f64, rows: &[u32]) -> Vec<u32> {
        let mut keyed: Vec<(f64, u32)> = rows.iter().map(|&j| (self.priority(t, j as usize), j)).collect();
        keyed.sort_unstable_by(|a, b| descending(a.0, b.0).then(a.1.cmp(&b.1)));
        keyed.into_iter().map(|(_, j)| j).collect()
    }

    /// The earliest completion estimate of the running jobs (infinite when none).
    pub fn next_completion(&self) -> f64 {
        self.run_idx
            .iter()
            .map(|&j| self.est[j as usize])
            .fold(f64::INFINITY, f64::min)
    }

    /// Time goes from `t` to `t_next`: the running jobs progress at their yields.
    pub fn advance(&mut self, t: f64, t_next: f64) {
        if t_next > t {
            for &j in &self.run_idx {
                let j = j as usize;
                self.done[j] += progress(self.y[j], t, t_next, self.pen_end[j]);
            }
        }
    }

    /// Completes the running jobs whose completion time is at or before `t`;
    /// returns them, ascending.
    pub fn complete(&mut self, t: f64) -> Result<Vec<u32>> {
        let completed: Vec<u32> = self
            .run_idx
            .iter()
            .copied()
            .filter(|&j| self.est[j as usize] <= t)
            .collect();
        for &job in &completed {
            let j = job as usize;
            self.done[j] = self.processing[j];
            self.rec.stop(j, t);
            self.cluster.complete(job)?;
            self.completion[j] = t;
            self.y[j] = 0.0;
            self.est[j] = f64::INFINITY;
        }
        if !completed.is_empty() {
            let mut k = 0;
            self.active.retain(|&j| {
                let gone = k < completed.len() && completed[k] == j;
                if gone {
                    k += 1;
                }
                !gone
            });
        }
        Ok(completed)
    }

    /// The jobs of rows `first..last` arrive (they must be the next ones).
    pub fn arrive(&mut self, first: usize, last: usize) -> Result<()> {
        if first != self.arrived || last < first || last > self.len() {
            return Err(Error::InvalidArgument(format!(
                "arrivals {first}..{last}: the next arrival is row {} of {}",
                self.arrived,
                self.len()
            )));
        }
        self.active.extend(first as u32..last as u32);
        self.arrived = last;
        Ok(())
    }

    /// The submission action of a Greedy family for the jobs of rows
    /// `first..last` (arrived at `t`), in row order; GreedyP and GreedyPM
    /// may pause the running jobs of lower priority (ties: a later
    /// submission is lower), the lowest first.
    pub fn submit(&mut self, t: f64, first: usize, last: usize, policy: OnSubmit) -> Result<()> {
        if last > self.arrived || first > last {
            return Err(Error::InvalidArgument(format!(
                "submissions {first}..{last}: only {} jobs have arrived",
                self.arrived
            )));
        }
        for j in first as u32..last as u32 {
            if policy == OnSubmit::Greedy {
                greedy::greedy(&mut self.cluster, j)?;
                continue;
            }
            let pj = self.priority(t, j as usize);
            let mut victims: Vec<(f64, u32)> = self
                .cluster
                .running()
                .map(|r| (self.priority(t, r as usize), r))
                .filter(|&(p, r)| p < pj || (p == pj && r > j))
                .collect();
            // lowest priority first, ties by the later submission first
            victims.sort_unstable_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(Ordering::Equal).then(b.1.cmp(&a.1)));
            let victims: Vec<u32> = victims.into_iter().map(|(_, r)| r).collect();
            greedy::greedy_preempt(&mut self.cluster, j, &victims, policy == OnSubmit::GreedyPM)?;
        }
        Ok(())
    }

    /// Greedy's completion action (§4.2): the waiting jobs (active, not
    /// placed) in decreasing priority, each placed if it fits.
    pub fn greedy_waiting(&mut self, t: f64) -> Result<()> {
        let waiting: Vec<u32> = self
            .active
            .iter()
            .copied()
            .filter(|&j| !self.cluster.is_running(j))
            .collect();
        for j in self.by_priority(t, &waiting) {
            greedy::greedy(&mut self.cluster, j)?;
        }
        Ok(())
    }

    /// MCB8 (§4.3) on every active job in decreasing priority at `t`, the
    /// jobs placed at the start of the time stamp that `keep` names staying
    /// on their nodes; with `period`, MCB8-stretch (§4.7) aiming at the
    /// next event `period` seconds away. None when no job is active.
    pub fn mcb8(&mut self, t: f64, keep: Keep, period: Option<f64>, accuracy: f64) -> Result<Option<Mcb8Call>> {
        if self.active.is_empty() {
            return Ok(None);
        }
        let order = self.by_priority(t, &self.active);
        let fixed: Vec<bool> = order
            .iter()
            .map(|&j| {
                let j = j as usize;
                self.rec.placed(j)
                    && match keep {
                        Keep::Nothing => false,
                        Keep::MinVt(b) => self.done[j] < b,
                        Keep::MinFt(b) => t - self.submit[j] < b,
                    }
            })
            .collect();
        let packing = match period {
            None => mcb8::apply(&mut self.cluster, &order, &fixed, mcb8::Target::Yield, accuracy)?,
            Some(period) => {
                let flow: Vec<f64> = order.iter().map(|&j| t - self.submit[j as usize]).collect();
                let virt: Vec<f64> = order.iter().map(|&j| self.done[j as usize]).collect();
                let target = mcb8::Target::Stretch {
                    flow: &flow,
                    virt: &virt,
                    period,
                };
                mcb8::apply(&mut self.cluster, &order, &fixed, target, accuracy)?
            }
        };
        Ok(Some(Mcb8Call {
            jobs: order.len(),
            level: packing.level,
            kept: packing.kept,
            attempts: packing.attempts,
        }))
    }

    /// The actions of the event at `t` are done: paused jobs stop (their
    /// segment ends), started and moved jobs take their new nodes, and a
    /// resume or a migration starts a penalty. The segments of the placed
    /// jobs are opened by the allocation that follows.
    pub fn commit(&mut self, t: f64) {
        let changes = self.cluster.commit();
        for &job in &changes.stopped {
            let j = job as usize;
            self.rec.stop(j, t);
            self.y[j] = 0.0;
            self.est[j] = f64::INFINITY;
        }
        for &job in &changes.started {
            let j = job as usize;
            if self.rec.place(j, self.cluster.placement(job), t) {
                // paused before, and not placed again at this instant on the same nodes
                self.pen_end[j] = t + self.penalty;
            }
        }
        for &job in &changes.moved {
            let j = job as usize;
            self.rec.place(j, self.cluster.placement(job), t);
            self.pen_end[j] = t + self.penalty;
        }
        for &job in changes.started.iter().chain(&changes.moved) {
            self.is_placed_now[job as usize] = true;
            self.placed_now.push(job);
        }
    }

    /// Iterative max-min yields (opt=min, §4.6) for the running jobs, applied at `t`.
    pub fn share_max_min(&mut self, t: f64) -> Result<()> {
        let version = self.cluster.version();
        let (jobs, ys) = match self.max_min_cache.take() {
            Some((v, jobs, ys)) if v == version => (jobs, ys),
            _ => alloc::max_min_yields(&self.cluster),
        };
        let out = self.share(t, &jobs, &ys);
        self.max_min_cache = Some((version, jobs, ys));
        out
    }

    /// Max-min estimated stretch (opt=max, §4.7) for the running jobs, at
    /// `t` with the next periodic event `horizon` seconds away, applied at `t`.
    pub fn share_stretch(&mut self, t: f64, horizon: f64) -> Result<()> {
        let (jobs, ys) = self.stretch_yields(t, horizon)?;
        self.share(t, &jobs, &ys)
    }

    /// The max-min estimated stretch yields at `t` (see [`share_stretch`](Self::share_stretch)), not applied.
    pub fn stretch_yields(&mut self, t: f64, horizon: f64) -> Result<(Vec<u32>, Vec<f64>)> {
        let n = self.len();
        self.flow.resize(n, 0.0);
        for job in self.cluster.running() {
            let j = job as usize;
            self.flow[j] = t - self.submit[j];
        }
        alloc::max_min_stretch(&self.cluster, &self.flow, &self.done, horizon)
    }

    /// The running jobs `jobs` (ascending, all of them) get yields `ys` from
    /// `t`: a job whose yield changed, or that was placed by the last commit,
    /// starts a new segment; completion estimates are updated.
    pub fn share(&mut self, t: f64, jobs: &[u32], ys: &[f64]) -> Result<()> {
        if jobs.len() != ys.len() || jobs.len() != self.cluster.running_count() {
            return Err(Error::InvalidArgument(format!(
                "{} yields for {} jobs, {} running",
                ys.len(),
                jobs.len(),
                self.cluster.running_count()
            )));
        }
        if let Some(&job) = jobs.iter().find(|&&j| !self.cluster.is_running(j)) {
            return Err(Error::InvalidArgument(format!(
                "the job of row {job} is given a yield but is not running"
            )));
        }
        for (&job, &yj) in jobs.iter().zip(ys) {
            let j = job as usize;
            if yj != self.y[j] || self.is_placed_now[j] {
                self.y[j] = yj;
                self.rec.close(j, t);
                self.rec.open(j, t, yj);
            }
            self.est[j] = if yj > 0.0 {
                completion_time(t, self.pen_end[j], self.processing[j] - self.done[j], yj)
            } else {
                f64::INFINITY
            };
        }
        for job in self.placed_now.drain(..) {
            self.is_placed_now[job as usize] = false;
        }
        self.run_idx.clear();
        self.run_idx.extend_from_slice(jobs);
        Ok(())
    }

    /// The segments recorded so far (closed ones), sorted by job, then start
    /// (equal starts in the order they were recorded).
    pub fn segments(&self) -> Segments {
        let r = &self.rec;
        let mut order: Vec<usize> = (0..r.seg_job.len()).collect();
        order.sort_by(|&a, &b| {
            r.seg_job[a]
                .cmp(&r.seg_job[b])
                .then(r.seg_start[a].partial_cmp(&r.seg_start[b]).unwrap_or(Ordering::Equal))
        });
        let mut out = Segments {
            offsets: vec![0],
            ..Segments::default()
        };
        for s in order {
            out.job.push(r.seg_job[s]);
            out.start.push(r.seg_start[s]);
            out.end.push(r.seg_end[s]);
            out.yields.push(r.seg_y[s]);
            let (nodes, counts) = r.runs(r.seg_pid[s]);
            out.node.extend_from_slice(nodes);
            out.count.extend_from_slice(counts);
            out.offsets.push(out.node.len());
        }
        out
    }
}

/// Decreasing order of priorities as numpy's sort of their negation reads
/// them: larger first, equal ones tie, NaN after every number.
fn descending(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (false, false) => b.partial_cmp(&a).unwrap_or(Ordering::Equal),
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
    }
}

#[cfg(test)]
mod tests {
    use super::super::jobs::UNIT;
    use super::*;

    fn two_jobs() -> Simulation {
        let jobs = Jobs::new(vec![1, 1], vec![UNIT, UNIT], vec![UNIT / 2, UNIT / 2]).unwrap();
        Simulation::new(jobs, 1, vec![0.0, 0.0], vec![100.0, 100.0], 300.0).unwrap()
    }

    #[test]
    fn two_jobs_share_one_node() {
        let mut s = two_jobs();
        s.advance(f64::NEG_INFINITY, 0.0);
        assert!(s.complete(0.0).unwrap().is_empty());
        s.arrive(0, 2).unwrap();
        s.submit(0.0, 0, 2, OnSubmit::Greedy).unwrap();
        s.commit(0.0);
        s.share_max_min(0.0).unwrap();
        assert_eq!(s.next_completion(), 200.0);
        s.advance(0.0, 200.0);
        assert_eq!(s.complete(200.0).unwrap(), vec![0, 1]);
        s.commit(200.0);
        s.share_max_min(200.0).unwrap();
        assert_eq!(s.completions(), &[200.0, 200.0]);
        let seg = s.segments();
        assert_eq!(seg.job, vec![0, 1]);
        assert_eq!(seg.yields, vec![0.5, 0.5]);
        assert_eq!(
            (seg.node, seg.count, seg.offsets),
            (vec![0, 0], vec![1, 1], vec![0, 1, 2])
        );
        assert!(s.active().is_empty());
    }

    #[test]
    fn priorities_sort_as_numpy() {
        assert_eq!(descending(f64::INFINITY, 1.0), Ordering::Less);
        assert_eq!(descending(f64::NAN, f64::INFINITY), Ordering::Greater);
        assert_eq!(descending(0.0, -0.0), Ordering::Equal);
        let mut s = two_jobs();
        s.done = vec![10.0, 0.0];
        assert_eq!(s.by_priority(50.0, &[0, 1]), vec![1, 0]);
    }

    #[test]
    fn bad_calls_are_errors() {
        let mut s = two_jobs();
        assert!(s.arrive(1, 2).is_err());
        assert!(s.arrive(0, 3).is_err());
        assert!(s.submit(0.0, 0, 1, OnSubmit::Greedy).is_err());
        assert!(s.share(0.0, &[0], &[1.0]).is_err());
        assert!(OnSubmit::from_name("greedy").is_err());
        assert!(Keep::from_bounds(Some(1.0), Some(1.0)).is_err());
        let jobs = Jobs::new(vec![1], vec![UNIT], vec![UNIT]).unwrap();
        assert!(Simulation::new(jobs.clone(), 1, vec![f64::NAN], vec![1.0], 0.0).is_err());
        assert!(Simulation::new(jobs, 1, vec![0.0], vec![1.0, 2.0], 0.0).is_err());
    }
}
