//! MCB8: task mapping as two-dimensional vector packing (RR-7659 §4.3), and
//! its stretch-targeting variant MCB8-stretch (§4.7).
//!
//! For a target level (a yield for MCB8, an inverse stretch for
//! MCB8-stretch) every job's CPU need becomes a CPU *requirement* and the
//! jobs are packed by the two-list heuristic of Leinberger et al. as RR-7659
//! uses it (sorting by the largest requirement). A binary search finds the
//! highest level that packs; when even the lowest does not, the
//! lowest-priority job is removed and the search starts again.
//!
//! Choices the paper leaves open (as the authors' simulator resolves them):
//! - **Lists.** A job is CPU-heavy when its CPU requirement at the level
//!   exceeds its memory need, memory-heavy otherwise. The CPU-heavy list is
//!   sorted by (CPU requirement, memory, job index) descending, the
//!   memory-heavy list by (memory, CPU requirement, job index) descending.
//! - **Filling.** Nodes are filled one at a time, in index order. While the
//!   node's CPU load is at most its memory load (in node fractions) the next
//!   task comes from the CPU-heavy list, otherwise from the memory-heavy one:
//!   the first job in the list with a task left that fits on the node (CPU
//!   and memory both within capacity). When no job of the preferred list
//!   fits, the other list is tried; when neither has one, the next node is
//!   filled. Several tasks of a job may go to one node.
//! - **Fixed jobs** (minvt / minft, §4.3) keep their current nodes: their
//!   tasks are on their nodes, with their requirement at the level, before
//!   the filling starts; a level at which they overload a node fails.
//! - **Search.** Jobs come in decreasing priority order. First, the
//!   lowest-priority jobs are dropped until the total memory of the rest fits
//!   in the cluster. Then level 1 is tried (and kept if it packs); else level
//!   0 (if it does not pack, the lowest-priority job is dropped and the
//!   search restarts); else bisection on `[0, 1]` while the interval is wider
//!   than the accuracy (0.01), keeping the packing of the highest level that
//!   packed.
//! - **Requirements** are rounded up to the unit: `ceil(level * cpu)` for
//!   MCB8; for MCB8-stretch, with the flow time `ft`, virtual time `vt` and
//!   period `T`, the yield reaching estimated stretch `1 / x` at the next
//!   event is `y = ((ft + T) x - vt) / T` (§4.7), clamped at 0 from below; a
//!   level where some `y > 1` does not pack.

use super::cluster::{check_nodes, Cluster};
use super::jobs::{Jobs, UNIT};
use crate::error::{Error, Item, Result};

/// The accuracy of the binary searches of §4.3 and §4.7.
pub const ACCURACY: f64 = 0.01;

/// One job given to MCB8.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// Job index.
    pub job: u32,
    /// Nodes its tasks must keep (minvt / minft), or None when it may go anywhere.
    pub fixed: Option<Vec<u32>>,
}

/// What the level means.
#[derive(Debug, Clone, Copy)]
pub enum Target<'a> {
    /// MCB8: the level is the yield of every job.
    Yield,
    /// MCB8-stretch: the level is the inverse of the estimated maximum stretch
    /// at the next periodic event; `flow` and `virt` hold each candidate's
    /// flow time and virtual time (in candidate order), `period` the time to
    /// the next event.
    Stretch {
        flow: &'a [f64],
        virt: &'a [f64],
        period: f64,
    },
}

/// The outcome of [`mcb8`].
#[derive(Debug, Clone, PartialEq)]
pub struct Packing {
    /// The level reached (0 when nothing is kept).
    pub level: f64,
    /// Candidates kept: the first `kept` of the given order.
    pub kept: usize,
    /// Nodes of the tasks of each kept candidate (sorted), in candidate order.
    pub placements: Vec<Vec<u32>>,
    /// Packings tried.
    pub attempts: u32,
}

/// The CPU requirement of a task of candidate `k` (CPU need `cpu`) at
/// `level`, or None when the level is out of reach (MCB8-stretch: a yield
/// above 1).
fn requirement(target: Target<'_>, k: usize, cpu: u64, level: f64) -> Option<u64> {
    let y = match target {
        Target::Yield => level,
        Target::Stretch { flow, virt, period } => {
            let y = ((flow[k] + period) * level - virt[k]) / period;
            if y > 1.0 {
                return None;
            }
            y.max(0.0)
        }
    };
    Some(((y * cpu as f64).ceil() as u64).min(cpu))
}

/// The first live position at or after `i` in a list whose exhausted
/// positions point past themselves (`next[i] == i` when live; `next[len] ==
/// len`), halving the paths it walks.
fn live(next: &mut [u32], mut i: usize) -> usize {
    while next[i] as usize != i {
        let skip = next[next[i] as usize];
        next[i] = skip;
        i = skip as usize;
    }
    i
}

/// For each position of `list`, the end of the run of equal `key` around it.
fn runs(list: &[u32], key: impl Fn(usize) -> u64, out: &mut Vec<u32>) {
    out.clear();
    out.resize(list.len(), 0);
    let mut end = list.len();
    for i in (0..list.len()).rev() {
        if i + 1 < list.len() && key(list[i] as usize) != key(list[i + 1] as usize) {
            end = i + 1;
        }
        out[i] = end as u32;
    }
}

/// The two-list packing (see the module notes) of one MCB8 call, with its
/// buffers reused by every level and candidate count the search tries.
///
/// Each list is sorted by its first key (descending), so the jobs whose
/// first requirement fits the free room of a node form a suffix found by
/// binary search, and exhausted jobs are skipped through `next` pointers:
/// the first job that fits is the one the plain scan of the module notes
/// finds, at a cost of a search per task placed instead of a scan of the
/// list per node.
struct Packer<'a> {
    nodes: usize,
    cands: &'a [Candidate],
    target: Target<'a>,
    /// Per candidate: job index, memory need, CPU need, tasks.
    job: Vec<u32>,
    mem_of: Vec<u64>,
    cpu_of: Vec<u64>,
    tasks_of: Vec<u32>,
    /// Per candidate, at the level of the packing under way.
    req: Vec<u64>,
    left: Vec<u32>,
    pos: Vec<u32>,
    /// Node loads (units).
    mem: Vec<u64>,
    cpu: Vec<u64>,
    cpu_heavy: Vec<u32>,
    mem_heavy: Vec<u32>,
    next_c: Vec<u32>,
    next_m: Vec<u32>,
    /// End of the run of equal first keys holding each position of each list.
    run_c: Vec<u32>,
    run_m: Vec<u32>,
    /// Free memory and CPU of the nodes from each node on, after the fixed tasks.
    room_m: Vec<u128>,
    room_c: Vec<u128>,
    /// (candidate, node) of every task placed by the packing under way, and by the best one kept.
    assign: Vec<(u32, u32)>,
    best: Vec<(u32, u32)>,
}

impl<'a> Packer<'a> {
    fn new(jobs: &Jobs, nodes: u32, cands: &'a [Candidate], target: Target<'a>) -> Self {
        let n = cands.len();
        let job: Vec<u32> = cands.iter().map(|c| c.job).collect();
        Packer {
            nodes: nodes as usize,
            cands,
            target,
            mem_of: job.iter().map(|&j| jobs.mem[j as usize]).collect(),
            cpu_of: job.iter().map(|&j| jobs.cpu[j as usize]).collect(),
            tasks_of: job.iter().map(|&j| jobs.tasks[j as usize]).collect(),
            job,
            req: vec![0; n],
            left: vec![0; n],
            pos: vec![0; n],
            mem: vec![0; nodes as usize],
            cpu: vec![0; nodes as usize],
            cpu_heavy: Vec::with_capacity(n),
            mem_heavy: Vec::with_capacity(n),
            next_c: Vec::with_capacity(n + 1),
            next_m: Vec::with_capacity(n + 1),
            run_c: Vec::with_capacity(n),
            run_m: Vec::with_capacity(n),
            room_m: vec![0; nodes as usize + 1],
            room_c: vec![0; nodes as usize + 1],
            assign: Vec::new(),
            best: Vec::new(),
        }
    }

    /// Packs the first `kept` candidates at `level`; true when every task
    /// found a node (its tasks are then in `assign`).
    fn pack(&mut self, kept: usize, level: f64) -> bool {
        for k in 0..kept {
            match requirement(self.target, k, self.cpu_of[k], level) {
                Some(r) => self.req[k] = r,
                None => return false,
            }
        }
        self.mem.iter_mut().for_each(|x| *x = 0);
        self.cpu.iter_mut().for_each(|x| *x = 0);
        self.assign.clear();
        self.cpu_heavy.clear();
        self.mem_heavy.clear();
        let mut tasks_left: u64 = 0;
        for k in 0..kept {
            let m = self.mem_of[k];
            match &self.cands[k].fixed {
                Some(fixed) => {
                    for &node in fixed {
                        let i = node as usize;
                        self.mem[i] += m;
                        self.cpu[i] += self.req[k];
                        if self.mem[i] > UNIT || self.cpu[i] > UNIT {
                            return false;
                        }
                    }
                }
                None => {
                    self.left[k] = self.tasks_of[k];
                    tasks_left += u64::from(self.tasks_of[k]);
                    if self.req[k] > m {
                        self.cpu_heavy.push(k as u32);
                    } else {
                        self.mem_heavy.push(k as u32);
                    }
                }
            }
        }
        let (req, mem_of, job) = (&self.req, &self.mem_of, &self.job);
        self.cpu_heavy.sort_unstable_by_key(|&k| {
            let k = k as usize;
            std::cmp::Reverse((req[k], mem_of[k], job[k]))
        });
        self.mem_heavy.sort_unstable_by_key(|&k| {
            let k = k as usize;
            std::cmp::Reverse((mem_of[k], req[k], job[k]))
        });
        for (i, &k) in self.cpu_heavy.iter().enumerate() {
            self.pos[k as usize] = i as u32;
        }
        for (i, &k) in self.mem_heavy.iter().enumerate() {
            self.pos[k as usize] = i as u32;
        }
        self.next_c.clear();
        self.next_c.extend(0..=self.cpu_heavy.len() as u32);
        self.next_m.clear();
        self.next_m.extend(0..=self.mem_heavy.len() as u32);
        runs(&self.cpu_heavy, |k| req[k], &mut self.run_c);
        runs(&self.mem_heavy, |k| mem_of[k], &mut self.run_m);
        // What the tasks left need, against the room of the nodes not filled yet: when it exceeds
        // it, no node order can place them all, and the packing fails now rather than at the end.
        let (mut need_m, mut need_c) = (0u128, 0u128);
        for &k in self.cpu_heavy.iter().chain(&self.mem_heavy) {
            let k = k as usize;
            need_m += u128::from(self.tasks_of[k]) * u128::from(self.mem_of[k]);
            need_c += u128::from(self.tasks_of[k]) * u128::from(self.req[k]);
        }
        for i in (0..self.nodes).rev() {
            self.room_m[i] = self.room_m[i + 1] + u128::from(UNIT - self.mem[i]);
            self.room_c[i] = self.room_c[i + 1] + u128::from(UNIT - self.cpu[i]);
        }
        for node in 0..self.nodes {
            if tasks_left == 0 {
                break;
            }
            if need_m > self.room_m[node] || need_c > self.room_c[node] {
                return false;
            }
            let (mut pc, mut pm) = (0usize, 0usize);
            loop {
                let found = if self.cpu[node] <= self.mem[node] {
                    self.first_fit(node, true, &mut pc)
                        .or_else(|| self.first_fit(node, false, &mut pm))
                } else {
                    self.first_fit(node, false, &mut pm)
                        .or_else(|| self.first_fit(node, true, &mut pc))
                };
                let Some(k) = found else { break };
                self.mem[node] += self.mem_of[k];
                self.cpu[node] += self.req[k];
                self.left[k] -= 1;
                need_m -= u128::from(self.mem_of[k]);
                need_c -= u128::from(self.req[k]);
                self.assign.push((k as u32, node as u32));
                if self.left[k] == 0 {
                    let i = self.pos[k] as usize;
                    let next = if self.req[k] > self.mem_of[k] {
                        &mut self.next_c
                    } else {
                        &mut self.next_m
                    };
                    next[i] = i as u32 + 1;
                }
                tasks_left -= 1;
                if tasks_left == 0 {
                    break;
                }
            }
        }
        tasks_left == 0
    }

    /// The first job of the CPU-heavy (`cpu_list`) or memory-heavy list,
    /// from position `*at`, with a task left that fits on `node`; `*at`
    /// moves to it (the jobs before it do not fit now, so never will on
    /// this node: its loads only grow).
    fn first_fit(&mut self, node: usize, cpu_list: bool, at: &mut usize) -> Option<usize> {
        let (free_m, free_c) = (UNIT - self.mem[node], UNIT - self.cpu[node]);
        let (list, next, run) = if cpu_list {
            (&self.cpu_heavy, &mut self.next_c, &self.run_c)
        } else {
            (&self.mem_heavy, &mut self.next_m, &self.run_m)
        };
        let (req, mem_of) = (&self.req, &self.mem_of);
        // The jobs whose first key fits are a suffix of the list (sorted on it, descending): from
        // `*at`, often already in it (the job just placed fits again), else found by bisection.
        let first_misses = |k: u32| {
            if cpu_list {
                req[k as usize] > free_c
            } else {
                mem_of[k as usize] > free_m
            }
        };
        let mut i = *at;
        if i < list.len() && first_misses(list[i]) {
            i += list[i..].partition_point(|&k| first_misses(k));
        }
        loop {
            i = live(next, i);
            if i >= list.len() {
                *at = list.len();
                return None;
            }
            let k = list[i] as usize;
            if mem_of[k] <= free_m && req[k] <= free_c {
                *at = i;
                return Some(k);
            }
            // Its first key fits (i >= start), its second does not: within its run of equal first
            // keys the second is sorted too (descending), so the jobs of the run up to the first
            // whose second key fits do not fit either.
            let end = run[i] as usize;
            i += if cpu_list {
                list[i..end].partition_point(|&k| mem_of[k as usize] > free_m)
            } else {
                list[i..end].partition_point(|&k| req[k as usize] > free_c)
            };
        }
    }

    /// The packing under way becomes the best one.
    fn keep(&mut self) {
        std::mem::swap(&mut self.assign, &mut self.best);
    }

    /// Nodes of the tasks of each of the first `kept` candidates (sorted), from the best packing.
    fn placements(&self, kept: usize) -> Vec<Vec<u32>> {
        let mut out: Vec<Vec<u32>> = self.cands[..kept]
            .iter()
            .map(|c| c.fixed.clone().unwrap_or_default())
            .collect();
        for &(k, node) in &self.best {
            out[k as usize].push(node);
        }
        for p in &mut out {
            p.sort_unstable();
        }
        out
    }
}

fn check(jobs: &Jobs, nodes: u32, cands: &[Candidate], target: Target<'_>, accuracy: f64) -> Result<()> {
    check_nodes(nodes)?;
    if !(accuracy > 0.0 && accuracy < 1.0) {
        return Err(Error::InvalidArgument(format!(
            "accuracy == {accuracy}, must be in (0, 1)"
        )));
    }
    let mut seen = vec![false; jobs.len()];
    for c in cands {
        let j = c.job as usize;
        if j >= jobs.len() || std::mem::replace(&mut seen[j], true) {
            return Err(Error::InvalidArgument(format!(
                "candidate row {} does not exist or is listed twice",
                c.job
            )));
        }
        if let Some(fixed) = &c.fixed {
            if fixed.len() != jobs.tasks[j] as usize || fixed.iter().any(|&i| i >= nodes) {
                return Err(Error::InvalidArgument(format!(
                    "the job of row {}: fixed nodes {fixed:?} must name one node from 0 to {} per task ({})",
                    c.job,
                    nodes - 1,
                    jobs.tasks[j]
                )));
            }
        }
    }
    if let Target::Stretch { flow, virt, period } = target {
        if flow.len() != cands.len() || virt.len() != cands.len() {
            return Err(Error::InvalidArgument(format!(
                "flow and virtual times must have one entry per candidate ({}): {} and {}",
                cands.len(),
                flow.len(),
                virt.len()
            )));
        }
        if !(period.is_finite() && period > 0.0) {
            return Err(Error::InvalidArgument(format!(
                "period == {period}, must be finite and > 0"
            )));
        }
        for (k, (&f, &v)) in flow.iter().zip(virt).enumerate() {
            if !(f.is_finite() && v.is_finite() && f >= 0.0 && v >= 0.0) {
                return Err(Error::invalid_item(
                    Item::Job(cands[k].job as usize),
                    format!("flow time {f} and virtual time {v} must be finite and >= 0"),
                ));
            }
        }
    }
    Ok(())
}

/// MCB8 (or MCB8-stretch) on `cands`, given in decreasing priority order.
pub fn mcb8(jobs: &Jobs, nodes: u32, cands: &[Candidate], target: Target<'_>, accuracy: f64) -> Result<Packing> {
    check(jobs, nodes, cands, target, accuracy)?;
    let capacity = nodes as u128 * UNIT as u128;
    let mut kept = cands.len();
    let mut total: u128 = cands.iter().map(|c| jobs.total_mem(c.job as usize)).sum();
    while kept > 0 && total > capacity {
        kept -= 1;
        total -= jobs.total_mem(cands[kept].job as usize);
    }
    let mut attempts = 0u32;
    let mut packer = Packer::new(jobs, nodes, cands, target);
    let mut try_level = |packer: &mut Packer<'_>, kept: usize, level: f64| -> bool {
        attempts += 1;
        packer.pack(kept, level)
    };
    while kept > 0 {
        if try_level(&mut packer, kept, 1.0) {
            packer.keep();
            return Ok(Packing {
                level: 1.0,
                kept,
                placements: packer.placements(kept),
                attempts,
            });
        }
        if !try_level(&mut packer, kept, 0.0) {
            kept -= 1;
            continue;
        }
        packer.keep();
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        while hi - lo > accuracy {
            let mid = 0.5 * (lo + hi);
            if try_level(&mut packer, kept, mid) {
                lo = mid;
                packer.keep();
            } else {
                hi = mid;
            }
        }
        return Ok(Packing {
            level: lo,
            kept,
            placements: packer.placements(kept),
            attempts,
        });
    }
    Ok(Packing {
        level: 0.0,
        kept: 0,
        placements: Vec::new(),
        attempts,
    })
}

/// Runs [`mcb8`] on the active jobs `order` (decreasing priority; every
/// running job must be among them) and applies the result to `cluster`:
/// dropped jobs leave their nodes, kept ones take their new nodes. `fixed[k]`
/// keeps `order[k]` on the nodes it had at the last commit (the start of the
/// current event; it must have been placed then) if it is kept, even when an
/// earlier action of the same event paused it.
/// `flow`/`virt` are per job of `order` and used only by MCB8-stretch.
pub fn apply(
    cluster: &mut Cluster,
    order: &[u32],
    fixed: &[bool],
    target: Target<'_>,
    accuracy: f64,
) -> Result<Packing> {
    if fixed.len() != order.len() {
        return Err(Error::InvalidArgument(format!(
            "fixed has {} entries for {} jobs",
            fixed.len(),
            order.len()
        )));
    }
    let mut cands = Vec::with_capacity(order.len());
    for (&job, &keep) in order.iter().zip(fixed) {
        cluster.check_job(job)?;
        if keep && cluster.committed(job).is_empty() {
            return Err(Error::InvalidArgument(format!(
                "the job of row {job} is fixed but was not placed at the last commit"
            )));
        }
        cands.push(Candidate {
            job,
            fixed: keep.then(|| cluster.committed(job).to_vec()),
        });
    }
    let listed: std::collections::HashSet<u32> = order.iter().copied().collect();
    if let Some(missing) = cluster.running().find(|j| !listed.contains(j)) {
        return Err(Error::InvalidArgument(format!(
            "the running job of row {missing} must be among the jobs MCB8 packs"
        )));
    }
    let packing = mcb8(cluster.jobs(), cluster.nodes(), &cands, target, accuracy)?;
    for &job in order {
        cluster.remove(job)?;
    }
    for (c, nodes) in cands.iter().zip(&packing.placements) {
        cluster.place(c.job, nodes.clone())?;
    }
    Ok(packing)
}

#[cfg(test)]
mod reference {
    //! The plain packing (a scan of both lists per node, fresh buffers per level): the
    //! oracle of the packer's tests.
    use super::*;

    /// The CPU requirement of each of the first `kept` candidates at `level`,
    /// or None when the level is out of reach (MCB8-stretch: a yield above 1).
    pub(super) fn requirements(
        jobs: &Jobs,
        cands: &[Candidate],
        kept: usize,
        target: Target<'_>,
        level: f64,
    ) -> Option<Vec<u64>> {
        cands[..kept]
            .iter()
            .enumerate()
            .map(|(k, c)| {
                let cpu = jobs.cpu[c.job as usize];
                let y = match target {
                    Target::Yield => level,
                    Target::Stretch { flow, virt, period } => {
                        let y = ((flow[k] + period) * level - virt[k]) / period;
                        if y > 1.0 {
                            return None;
                        }
                        y.max(0.0)
                    }
                };
                Some(((y * cpu as f64).ceil() as u64).min(cpu))
            })
            .collect()
    }

    /// The two-list packing at fixed requirements (see the module notes);
    /// None when some task finds no node. Called by [`mcb8`] once its
    /// arguments are checked (`nodes` within [`super::MAX_NODES`]).
    pub(super) fn pack(jobs: &Jobs, nodes: u32, cands: &[Candidate], req: &[u64]) -> Option<Vec<Vec<u32>>> {
        let n = req.len();
        let mut mem = vec![0u64; nodes as usize];
        let mut cpu = vec![0u64; nodes as usize];
        let mut placements: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut left = vec![0u32; n];
        let (mut cpu_heavy, mut mem_heavy) = (Vec::new(), Vec::new());
        let mut tasks_left: u64 = 0;
        for k in 0..n {
            let j = cands[k].job as usize;
            let m = jobs.mem[j];
            match &cands[k].fixed {
                Some(fixed) => {
                    for &node in fixed {
                        let i = node as usize;
                        mem[i] += m;
                        cpu[i] += req[k];
                        if mem[i] > UNIT || cpu[i] > UNIT {
                            return None;
                        }
                    }
                    placements[k] = fixed.clone();
                }
                None => {
                    left[k] = jobs.tasks[j];
                    tasks_left += jobs.tasks[j] as u64;
                    if req[k] > m {
                        cpu_heavy.push(k);
                    } else {
                        mem_heavy.push(k);
                    }
                }
            }
        }
        let id = |k: usize| cands[k].job;
        cpu_heavy.sort_unstable_by(|&a, &b| {
            (req[b], jobs.mem[id(b) as usize], id(b)).cmp(&(req[a], jobs.mem[id(a) as usize], id(a)))
        });
        mem_heavy.sort_unstable_by(|&a, &b| {
            (jobs.mem[id(b) as usize], req[b], id(b)).cmp(&(jobs.mem[id(a) as usize], req[a], id(a)))
        });
        for node in 0..nodes as usize {
            if tasks_left == 0 {
                break;
            }
            cpu_heavy.retain(|&k| left[k] > 0);
            mem_heavy.retain(|&k| left[k] > 0);
            let (mut pc, mut pm) = (0usize, 0usize);
            loop {
                // The first job of `list` (from `*at`) with a task that fits: a job that does not
                // fit now never will on this node (its loads only grow), so the scan resumes at `*at`.
                let first_fit = |list: &[usize], at: &mut usize| -> Option<usize> {
                    while *at < list.len() {
                        let k = list[*at];
                        let m = jobs.mem[cands[k].job as usize];
                        if left[k] > 0 && mem[node] + m <= UNIT && cpu[node] + req[k] <= UNIT {
                            return Some(k);
                        }
                        *at += 1;
                    }
                    None
                };
                let found = if cpu[node] <= mem[node] {
                    first_fit(&cpu_heavy, &mut pc).or_else(|| first_fit(&mem_heavy, &mut pm))
                } else {
                    first_fit(&mem_heavy, &mut pm).or_else(|| first_fit(&cpu_heavy, &mut pc))
                };
                let Some(k) = found else { break };
                mem[node] += jobs.mem[cands[k].job as usize];
                cpu[node] += req[k];
                left[k] -= 1;
                placements[k].push(node as u32);
                tasks_left -= 1;
                if tasks_left == 0 {
                    break;
                }
            }
        }
        if tasks_left > 0 {
            return None;
        }
        for p in &mut placements {
            p.sort_unstable();
        }
        Some(placements)
    }

    /// MCB8 with the plain packing.
    pub(super) fn mcb8(
        jobs: &Jobs,
        nodes: u32,
        cands: &[Candidate],
        target: Target<'_>,
        accuracy: f64,
    ) -> Result<Packing> {
        check(jobs, nodes, cands, target, accuracy)?;
        let capacity = nodes as u128 * UNIT as u128;
        let mut kept = cands.len();
        let mut total: u128 = cands.iter().map(|c| jobs.total_mem(c.job as usize)).sum();
        while kept > 0 && total > capacity {
            kept -= 1;
            total -= jobs.total_mem(cands[kept].job as usize);
        }
        let mut attempts = 0u32;
        let mut try_level = |kept: usize, level: f64| -> Option<Vec<Vec<u32>>> {
            attempts += 1;
            let req = requirements(jobs, cands, kept, target, level)?;
            pack(jobs, nodes, &cands[..kept], &req)
        };
        while kept > 0 {
            if let Some(p) = try_level(kept, 1.0) {
                return Ok(Packing {
                    level: 1.0,
                    kept,
                    placements: p,
                    attempts,
                });
            }
            let Some(mut best) = try_level(kept, 0.0) else {
                kept -= 1;
                continue;
            };
            let (mut lo, mut hi) = (0.0f64, 1.0f64);
            while hi - lo > accuracy {
                let mid = 0.5 * (lo + hi);
                match try_level(kept, mid) {
                    Some(p) => {
                        lo = mid;
                        best = p;
                    }
                    None => hi = mid,
                }
            }
            return Ok(Packing {
                level: lo,
                kept,
                placements: best,
                attempts,
            });
        }
        Ok(Packing {
            level: 0.0,
            kept: 0,
            placements: Vec::new(),
            attempts,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn free(jobs: &[u32]) -> Vec<Candidate> {
        jobs.iter().map(|&job| Candidate { job, fixed: None }).collect()
    }

    #[test]
    fn everything_fits_at_yield_one() {
        let jobs = Jobs::new(vec![2, 1], vec![UNIT / 2, UNIT / 2], vec![UNIT / 4, UNIT / 4]).unwrap();
        let p = mcb8(&jobs, 2, &free(&[0, 1]), Target::Yield, ACCURACY).unwrap();
        assert_eq!(p.level, 1.0);
        assert_eq!(p.kept, 2);
        // both CPU-heavy; job 0 (id 0) and job 1 tie on (cpu, mem): higher id first, so job 1
        // goes first on node 0, then job 0's two tasks on node 0 (CPU 1/2 + 1/2 full) and 1
        assert_eq!(p.placements, vec![vec![0, 1], vec![0]]);
        assert_eq!(p.attempts, 1);
    }

    #[test]
    fn bisection_reaches_the_best_yield() {
        // 3 single-task CPU-bound jobs on 2 nodes: best yield 1/2 (two on one node)
        let jobs = Jobs::new(vec![1, 1, 1], vec![UNIT; 3], vec![UNIT / 10; 3]).unwrap();
        let p = mcb8(&jobs, 2, &free(&[0, 1, 2]), Target::Yield, ACCURACY).unwrap();
        assert!(p.level <= 0.5 && p.level > 0.5 - ACCURACY, "{}", p.level);
        assert_eq!(p.kept, 3);
    }

    #[test]
    fn memory_drops_lowest_priority_first() {
        // 3 jobs of 60% memory on 2 nodes: the total fits (1.8 <= 2) but no packing does;
        // the last (lowest priority) is dropped
        let jobs = Jobs::new(vec![1, 1, 1], vec![UNIT; 3], vec![6 * UNIT / 10; 3]).unwrap();
        let p = mcb8(&jobs, 2, &free(&[2, 0, 1]), Target::Yield, ACCURACY).unwrap();
        assert_eq!(p.kept, 2);
        assert_eq!(p.level, 1.0);
    }

    #[test]
    fn fixed_jobs_stay() {
        let jobs = Jobs::new(vec![1, 1], vec![UNIT; 2], vec![UNIT / 10; 2]).unwrap();
        let cands = vec![
            Candidate {
                job: 0,
                fixed: Some(vec![1]),
            },
            Candidate { job: 1, fixed: None },
        ];
        let p = mcb8(&jobs, 2, &cands, Target::Yield, ACCURACY).unwrap();
        assert_eq!(p.placements, vec![vec![1], vec![0]]);
        assert_eq!(p.level, 1.0);
    }

    #[test]
    fn stretch_target() {
        // one node, two CPU-bound jobs: flow 100, virtual 100 (stretch so far 1) and a new one.
        // at x the yields are ((100+T)x - 100)/T and (T x)/T = x, T = 100
        let jobs = Jobs::new(vec![1, 1], vec![UNIT; 2], vec![UNIT / 10; 2]).unwrap();
        let target = Target::Stretch {
            flow: &[100.0, 0.0],
            virt: &[100.0, 0.0],
            period: 100.0,
        };
        let p = mcb8(&jobs, 1, &free(&[0, 1]), target, ACCURACY).unwrap();
        // best x: (2x - 1) + x <= 1, x = 2/3
        assert!(p.level <= 2.0 / 3.0 && p.level > 2.0 / 3.0 - ACCURACY, "{}", p.level);
    }

    #[test]
    fn bad_input_is_an_error() {
        let jobs = Jobs::new(vec![1], vec![UNIT], vec![UNIT]).unwrap();
        assert!(mcb8(&jobs, 0, &free(&[0]), Target::Yield, ACCURACY).is_err());
        assert!(mcb8(&jobs, 1, &free(&[1]), Target::Yield, ACCURACY).is_err());
        assert!(mcb8(&jobs, 1, &free(&[0, 0]), Target::Yield, ACCURACY).is_err());
        let bad = vec![Candidate {
            job: 0,
            fixed: Some(vec![3]),
        }];
        assert!(mcb8(&jobs, 1, &bad, Target::Yield, ACCURACY).is_err());
        assert!(mcb8(&jobs, 1, &free(&[0]), Target::Yield, 0.0).is_err());
    }

    mod differential {
        use super::super::reference;
        use super::*;
        use proptest::prelude::*;

        /// Needs from a few values (ties on every key) or anywhere in 1..=UNIT.
        fn need() -> impl Strategy<Value = u64> {
            prop_oneof![
                prop::sample::select(vec![UNIT / 10, UNIT / 4, UNIT / 3, UNIT / 2, UNIT, 3 * UNIT / 10 + 1]),
                1..=UNIT,
            ]
        }

        fn case() -> impl Strategy<Value = (Jobs, u32, Vec<Candidate>, Vec<f64>, Vec<f64>, f64, bool)> {
            (
                1u32..7,
                prop::collection::vec((1u32..6, need(), need(), any::<bool>(), any::<u64>()), 1..24),
            )
                .prop_flat_map(|(nodes, rows)| {
                    let n = rows.len();
                    let tasks: Vec<u32> = rows.iter().map(|r| r.0).collect();
                    let jobs = Jobs::new(
                        tasks.clone(),
                        rows.iter().map(|r| r.1).collect(),
                        rows.iter().map(|r| r.2).collect(),
                    )
                    .unwrap();
                    // fixed candidates on pseudo-random nodes (they may overload a node: that level fails)
                    let cands: Vec<Candidate> = rows
                        .iter()
                        .enumerate()
                        .map(|(j, r)| Candidate {
                            job: j as u32,
                            fixed: r
                                .3
                                .then(|| (0..r.0).map(|t| ((r.4 >> (3 * t)) % u64::from(nodes)) as u32).collect()),
                        })
                        .collect();
                    (
                        Just(jobs),
                        Just(nodes),
                        Just(cands).prop_shuffle(),
                        prop::collection::vec(0.0f64..5000.0, n),
                        prop::collection::vec(0.0f64..5000.0, n),
                        1.0f64..2000.0,
                        any::<bool>(),
                    )
                })
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2000))]
            /// The packer gives the plain packing's result, probe for probe.
            #[test]
            fn packer_is_the_plain_packing((jobs, nodes, cands, flow, virt, period, stretch) in case()) {
                let target = if stretch {
                    Target::Stretch { flow: &flow, virt: &virt, period }
                } else {
                    Target::Yield
                };
                prop_assert_eq!(mcb8(&jobs, nodes, &cands, target, ACCURACY), reference::mcb8(&jobs, nodes, &cands, target, ACCURACY));
            }
        }
    }
}
