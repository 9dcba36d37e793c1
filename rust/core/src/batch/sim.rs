use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::machine::Machine;
use super::nodes::{NodeMachine, Nodes, Placement, Request};
use super::queue::{Priority, WaitQueue};
use crate::error::{Error, Item, Refusal, Result, Rule};
use crate::time::Time;

/// Rigid jobs, one entry per job, sorted by submit time (ties keep input order).
#[derive(Debug, Clone, Default)]
pub struct Jobs {
    /// Submit time (s).
    pub submit: Vec<f64>,
    /// Actual run time (s): how long the job really runs.
    pub runtime: Vec<f64>,
    /// Run time the scheduler believes (s); `>= runtime`, so a job never overruns it.
    pub estimate: Vec<f64>,
    /// Processors the job needs, `1..=total`.
    pub width: Vec<u32>,
}

impl Jobs {
    /// Widths given as signed integers (numpy's default), checked against a
    /// machine of `total` processors.
    ///
    /// # Errors
    /// [`Error::Invalid`] naming the first job whose width is not in `1..=total`.
    pub fn widths(raw: &[i64], total: u32) -> Result<Vec<u32>> {
        raw.iter()
            .enumerate()
            .map(|(j, &w)| match u32::try_from(w) {
                Ok(width) if (1..=total).contains(&width) => Ok(width),
                _ => Err(
                    Error::invalid(Item::Job(j), "width", w, Rule::Between(1i64.into(), total.into()))
                        .noted("the machine size"),
                ),
            })
            .collect()
    }

    /// Number of jobs.
    pub fn len(&self) -> usize {
        self.submit.len()
    }

    /// True when there are no jobs.
    pub fn is_empty(&self) -> bool {
        self.submit.is_empty()
    }

    fn check(&self, total: u32) -> Result<()> {
        let n = self.len();
        if self.runtime.len() != n || self.estimate.len() != n || self.width.len() != n {
            return Err(Error::InvalidArgument(format!(
                "job arrays differ in length: submit {n}, runtime {}, estimate {}, width {}",
                self.runtime.len(),
                self.estimate.len(),
                self.width.len()
            )));
        }
        if n > u32::MAX as usize {
            return Err(Error::InvalidArgument(format!(
                "{n} jobs, at most {} supported",
                u32::MAX
            )));
        }
        for j in 0..n {
            let (s, r, e, w) = (self.submit[j], self.runtime[j], self.estimate[j], self.width[j]);
            let job = Item::Job(j);
            if !s.is_finite() || s < 0.0 {
                return Err(Error::invalid(job, "submit", s, Rule::AtLeast(0.0.into())));
            }
            if !r.is_finite() || r < 0.0 {
                return Err(Error::invalid(job, "runtime", r, Rule::AtLeast(0.0.into())));
            }
            if !e.is_finite() || e < r {
                return Err(Error::invalid(job, "estimate", e, Rule::AtLeastOf("runtime", r.into())));
            }
            if w == 0 || w > total {
                return Err(
                    Error::invalid(job, "width", w, Rule::Between(1i64.into(), total.into())).noted("the machine size"),
                );
            }
            if j > 0 && s < self.submit[j - 1] {
                let previous = self.submit[j - 1];
                return Err(Error::invalid(
                    job,
                    "submit",
                    s,
                    Rule::AtLeastOf("the previous row's value", previous.into()),
                ));
            }
        }
        Ok(())
    }
}

/// What the DPSA searches did over a simulation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SearchStats {
    /// Decisions that ran a subset search (at least one candidate).
    pub decisions: u64,
    /// Decisions stopped by the node budget or the time limit.
    pub cut: u64,
    /// Subsets explored in all.
    pub nodes: u64,
    /// Most subsets explored by one decision.
    pub max_nodes: u64,
    /// Wall-clock time of each decision's search (s), in decision order.
    pub decision_seconds: Vec<f64>,
}

/// Event-driven simulation of rigid jobs on one [`Machine`]: the state that
/// policies read and act on (they live in `policy.rs` and depend on this
/// module, never the other way round).
///
/// Time advances from event to event. At each time stamp, every completion is
/// applied first, then every arrival (arrivals join the back of the waiting
/// queue in input order), and only then does the policy decide. Completions
/// are at the actual runtime; the policy only ever sees estimates.
#[derive(Debug, Clone)]
pub struct BatchSim {
    jobs: Jobs,
    machine: Machine,
    /// On a cluster of nodes, their state; `machine` is then unused.
    nodes: Option<Box<NodeMachine>>,
    now: Time,
    next_arrival: usize,
    completions: BinaryHeap<Reverse<(Time, u32)>>,
    priority: Priority,
    queue: WaitQueue,
    /// Jobs `0..seen_upto` had arrived at the last built-in policy pass.
    seen_upto: usize,
    /// Whether processors were released (or a job started from outside a
    /// pass) since the last built-in policy pass.
    changed_since_pass: bool,
    start: Vec<f64>,
    estimated_end: Vec<Time>,
    /// Where each started job's processor runs begin in `assigned` (`usize::MAX` if not started).
    offset: Vec<usize>,
    /// Number of processor runs of each job.
    runs: Vec<u32>,
    /// Processor runs `(first id, count)` of the started jobs, in start order.
    assigned: Vec<(u32, u32)>,
    /// Jobs in the order they completed.
    completed: Vec<u32>,
    /// First reservation each job was given (NaN if none): a job never starts later.
    first_reservation: Vec<f64>,
    stats: SearchStats,
    events: u64,
    assigned_jobs: usize,
}

impl BatchSim {
    /// A simulation of `jobs` on `total` processors whose waiting queue is
    /// kept in `priority` order, before the first arrival.
    pub fn new(jobs: Jobs, total: u32, priority: Priority) -> Result<Self> {
        if total == 0 {
            return Err(Error::InvalidArgument("procs == 0, must be >= 1".into()));
        }
        jobs.check(total)?;
        let n = jobs.len();
        let mut by_priority: Vec<u32> = (0..n as u32).collect();
        if priority == Priority::ShortestEstimate {
            // stable: equal estimates keep arrival order
            by_priority.sort_by(|&a, &b| jobs.estimate[a as usize].total_cmp(&jobs.estimate[b as usize]));
        }
        let mut rank = vec![0u32; n];
        for (r, &j) in by_priority.iter().enumerate() {
            rank[j as usize] = r as u32;
        }
        Ok(BatchSim {
            machine: Machine::new(total),
            nodes: None,
            now: Time(jobs.submit.first().copied().unwrap_or(0.0)),
            next_arrival: 0,
            completions: BinaryHeap::new(),
            priority,
            queue: WaitQueue::new(rank),
            seen_upto: 0,
            changed_since_pass: true,
            start: vec![f64::NAN; n],
            estimated_end: vec![Time(f64::NAN); n],
            offset: vec![usize::MAX; n],
            runs: vec![0; n],
            assigned: Vec::with_capacity(n),
            completed: Vec::with_capacity(n),
            first_reservation: vec![f64::NAN; n],
            stats: SearchStats::default(),
            events: 0,
            assigned_jobs: 0,
            jobs,
        })
    }

    /// A simulation of `jobs` on `nodes`, job `j` asking `requests[j]`;
    /// `jobs.width` must be each request's cores. The event loop, the queue
    /// and the policies' rules are the processor pool's; only where a job
    /// fits and what it holds are the nodes'.
    ///
    /// # Errors
    /// As [`BatchSim::new`], and [`Nodes::check_requests`]'s for a request
    /// no idle node set of its partition can hold.
    pub fn on_nodes(jobs: Jobs, nodes: Nodes, requests: Vec<Request>, priority: Priority) -> Result<Self> {
        if requests.len() != jobs.len() {
            return Err(Error::InvalidArgument(format!(
                "{} requests for {} jobs",
                requests.len(),
                jobs.len()
            )));
        }
        for (j, r) in requests.iter().enumerate() {
            if u64::from(jobs.width[j]) != r.width() {
                return Err(Error::invalid(
                    Item::Job(j),
                    "width",
                    jobs.width[j],
                    Rule::Other(format!(
                        "must be the cores the request holds, tasks x cpus_per_task = {}",
                        r.width()
                    )),
                ));
            }
        }
        let total = u32::try_from(nodes.total_cores()).map_err(|_| {
            Error::InvalidArgument(format!(
                "{} cores in all, at most {} supported",
                nodes.total_cores(),
                u32::MAX
            ))
        })?;
        let machine = NodeMachine::new(nodes, requests)?;
        let mut sim = BatchSim::new(jobs, total, priority)?;
        sim.nodes = Some(Box::new(machine));
        Ok(sim)
    }

    /// The nodes, when the simulation is on a cluster of nodes.
    pub fn nodes(&self) -> Option<&NodeMachine> {
        self.nodes.as_deref()
    }

    /// Free cores (processors) now.
    pub fn free_cores(&self) -> u64 {
        match &self.nodes {
            Some(nodes) => nodes.free_cores(),
            None => u64::from(self.machine.free()),
        }
    }

    /// The jobs being simulated.
    pub fn jobs(&self) -> &Jobs {
        &self.jobs
    }

    /// The machine (processors and availability profile).
    pub fn machine(&self) -> &Machine {
        &self.machine
    }

    /// Current simulated time.
    pub fn now(&self) -> f64 {
        self.now.0
    }

    /// Waiting jobs in priority (arrival) order.
    pub fn queue(&self) -> &WaitQueue {
        &self.queue
    }

    /// Number of time stamps processed so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// True when every job has arrived and completed.
    pub fn finished(&self) -> bool {
        self.next_arrival == self.jobs.len() && self.completions.is_empty() && self.queue.is_empty()
    }

    /// Moves to the next time stamp with an event and applies all of its
    /// events (completions, then arrivals). Returns the new time, or `None`
    /// when no event is left (all jobs done, or waiting jobs that nobody starts).
    pub fn advance(&mut self) -> Option<f64> {
        let next_completion = self.completions.peek().map(|Reverse((t, _))| *t);
        let next_arrival = self.jobs.submit.get(self.next_arrival).map(|&s| Time(s));
        let t = match (next_completion, next_arrival) {
            (Some(c), Some(a)) => c.min(a),
            (Some(c), None) => c,
            (None, Some(a)) => a,
            (None, None) => return None,
        };
        self.now = t;
        self.events += 1;
        while let Some(&Reverse((end, job))) = self.completions.peek() {
            if end != t {
                break;
            }
            self.completions.pop();
            let j = job as usize;
            match &mut self.nodes {
                Some(nodes) => nodes.release(job, self.estimated_end[j]),
                None => {
                    let runs = &self.assigned[self.offset[j]..self.offset[j] + self.runs[j] as usize];
                    self.machine.release(job, self.estimated_end[j], runs);
                }
            }
            self.completed.push(job);
            self.changed_since_pass = true;
        }
        while self.next_arrival < self.jobs.len() && self.jobs.submit[self.next_arrival] == t.0 {
            let j = self.next_arrival;
            self.queue.insert(j as u32, self.jobs.width[j], self.jobs.estimate[j]);
            self.next_arrival += 1;
        }
        Some(t.0)
    }

    /// Time of the next event (a completion or an arrival), if any is left.
    pub fn next_event(&self) -> Option<f64> {
        let completion = self.completions.peek().map(|Reverse((t, _))| t.0);
        let arrival = self.jobs.submit.get(self.next_arrival).copied();
        match (completion, arrival) {
            (Some(c), Some(a)) => Some(c.min(a)),
            (c, a) => c.or(a),
        }
    }

    /// Moves the clock to `t`, a time with no event before it (a policy's
    /// timer, such as Slurm's periodic passes): nothing completes or arrives.
    pub(crate) fn wait_until(&mut self, t: f64) {
        debug_assert!(t >= self.now.0 && self.next_event().is_none_or(|e| t < e));
        self.now = Time(t);
        self.events += 1;
    }

    /// Starts waiting job `job` now (for user policies). Fails if the job is
    /// not waiting or does not fit on the free processors.
    pub fn start(&mut self, job: usize) -> Result<()> {
        let refuse = |why| {
            Err(Error::CannotStart {
                row: job,
                time: self.now.0,
                why,
            })
        };
        if !self.queue.contains(job) {
            return refuse(if job >= self.jobs.len() {
                Refusal::Missing
            } else if !self.start[job].is_nan() {
                Refusal::Started
            } else {
                Refusal::NotSubmitted
            });
        }
        if let Some(nodes) = &self.nodes {
            let Some(placement) = nodes.place_now(job) else {
                return refuse(Refusal::NoRoom);
            };
            self.queue.remove(job as u32);
            self.launch_on(job as u32, &placement);
            self.changed_since_pass = true;
            return Ok(());
        }
        let (w, free) = (self.jobs.width[job], self.machine.free());
        if w > free {
            return refuse(Refusal::TooWide { needs: w, free });
        }
        self.queue.remove(job as u32);
        self.launch(job as u32);
        self.changed_since_pass = true;
        Ok(())
    }

    /// Starts `job` now; the caller has checked that it is waiting and fits,
    /// and removes it from the queue.
    pub(crate) fn launch(&mut self, job: u32) {
        let j = job as usize;
        let now = self.now.0;
        self.start[j] = now;
        self.estimated_end[j] = Time(now + self.jobs.estimate[j]);
        self.offset[j] = self.assigned.len();
        self.machine
            .allocate(job, self.jobs.width[j], self.estimated_end[j], &mut self.assigned);
        self.runs[j] = (self.assigned.len() - self.offset[j]) as u32;
        self.assigned_jobs += 1;
        self.completions.push(Reverse((Time(now + self.jobs.runtime[j]), job)));
    }

    /// Starts `job` now on the nodes of `placement`, which fit now; the
    /// caller removes it from the queue.
    pub(crate) fn launch_on(&mut self, job: u32, placement: &Placement) {
        let j = job as usize;
        let now = self.now.0;
        self.start[j] = now;
        self.estimated_end[j] = Time(now + self.jobs.estimate[j]);
        self.nodes
            .as_mut()
            .expect("launch_on is for simulations on nodes")
            .allocate(job, placement, self.estimated_end[j]);
        self.assigned_jobs += 1;
        self.completions.push(Reverse((Time(now + self.jobs.runtime[j]), job)));
    }

    pub(crate) fn queue_mut(&mut self) -> &mut WaitQueue {
        &mut self.queue
    }

    /// Makes the queue keep its index by width (see [`WaitQueue::index_by_width`]).
    pub(crate) fn index_queue_by_width(&mut self) {
        self.queue.index_by_width(&self.jobs.width);
    }

    /// Where a backfilling scan of the queue (which never looks at the head)
    /// must begin. When no processor was released since the last pass, every
    /// job that was waiting then was refused then, and would be refused again:
    /// the free processors, the running set (hence the shadow time and extra
    /// processors) are unchanged, and a later `now` only makes "ends by the
    /// shadow time" harder. Only the jobs that arrived since need a look.
    pub(crate) fn backfill_scan_start(&self, head: usize) -> usize {
        if self.changed_since_pass {
            head + 1
        } else {
            self.seen_upto.max(head + 1)
        }
    }

    /// Whether `job`, waiting now, was refused at the last pass with nothing
    /// freed since: it was waiting then (it arrived before that pass), no
    /// resources were released and no job was started from outside a pass.
    pub(crate) fn refused_unchanged(&self, job: u32) -> bool {
        !self.changed_since_pass && (job as usize) < self.seen_upto
    }

    /// Where a scan of the jobs submitted at this time stamp (and not the
    /// head) must begin: they are the last in arrival order. (By time, not by
    /// pass: a zero-length job ending now makes a second pass at this time
    /// stamp, where they still count as arriving.)
    pub(crate) fn arrivals_scan_start(&self, head: usize) -> usize {
        let now = self.now.0;
        self.jobs.submit[..self.next_arrival]
            .partition_point(|&s| s < now)
            .max(head + 1)
    }

    /// Records that `job` is reserved to start at `time`; the first such time
    /// is kept as the job's guarantee.
    pub(crate) fn reserve(&mut self, job: u32, time: f64) {
        let first = &mut self.first_reservation[job as usize];
        if first.is_nan() {
            *first = time;
        }
    }

    /// Jobs in the order they completed (at their actual run time).
    pub fn completed(&self) -> &[u32] {
        &self.completed
    }

    /// Number of jobs that have arrived so far (they are jobs `0..arrived()`).
    pub fn arrived(&self) -> usize {
        self.next_arrival
    }

    /// Number of jobs started so far.
    pub fn started(&self) -> usize {
        self.assigned_jobs
    }

    pub(crate) fn stats_mut(&mut self) -> &mut SearchStats {
        &mut self.stats
    }

    /// The order of the waiting queue.
    pub fn priority(&self) -> Priority {
        self.priority
    }

    /// First reservation of every job (NaN for jobs never given one). EASY and
    /// DPSA reserve for the queue head; conservative backfilling for every job.
    pub fn reservations(&self) -> &[f64] {
        &self.first_reservation
    }

    /// What the DPSA searches did.
    pub fn search_stats(&self) -> &SearchStats {
        &self.stats
    }

    /// Marks the end of a policy pass: the next pass can tell which jobs
    /// arrived and whether processors were released in between.
    pub(crate) fn end_pass(&mut self) {
        self.seen_upto = self.next_arrival;
        self.changed_since_pass = false;
    }

    /// Start time of every job (NaN for jobs not started).
    pub fn starts(&self) -> &[f64] {
        &self.start
    }

    /// Processors of every job as runs of consecutive ids, in compressed
    /// sparse row form: job `j` ran on the runs `offsets[j]..offsets[j + 1]`
    /// (none if it never started), run `k` being ids `first[k]..first[k] + count[k]`.
    /// All three are `i64`, numpy's index type, so that the bindings hand
    /// them over without a conversion pass.
    pub fn assignment(&self) -> (Vec<i64>, Vec<i64>, Vec<i64>) {
        let n = self.jobs.len();
        let mut offsets = Vec::with_capacity(n + 1);
        let (mut first, mut count) = (
            Vec::with_capacity(self.assigned.len()),
            Vec::with_capacity(self.assigned.len()),
        );
        offsets.push(0);
        for j in 0..n {
            if self.offset[j] != usize::MAX {
                for &(f, c) in &self.assigned[self.offset[j]..self.offset[j] + self.runs[j] as usize] {
                    first.push(i64::from(f));
                    count.push(i64::from(c));
                }
            }
            offsets.push(first.len() as i64);
        }
        (offsets, first, count)
    }
}
