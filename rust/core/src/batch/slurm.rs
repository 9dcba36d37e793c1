//! Slurm's own scheduler, as Slurm 17.11 documents and implements it (the
//! version of the micro cluster's real run): the multifactor priority with
//! classic fair-share and usage decay (`priority/multifactor`), the main
//! scheduler (`schedule()` in `job_scheduler.c`) and the backfill scheduler
//! (`sched/backfill`), over the nodes' state of [`NodeMachine`].
//!
//! Timers tick at whole multiples of their interval from the first submit
//! (the phase slurmctld's timers had in the real run is not recorded), as
//! integer tick counts; a tick fires only when it can change something, so
//! idle periods cost nothing: the backfill and main passes only while jobs
//! wait, the priority recalculation only while jobs wait or run (the decay
//! of an idle stretch is applied in one step at the next recalculation:
//! `decay^a * decay^b == decay^(a + b)`). A periodic pass is also skipped,
//! exactly, when nothing it reads changed since the previous one (no start,
//! end, arrival or priority recalculation): it would decide the same.
//!
//! The choices below are named where Slurm's documentation leaves them open;
//! the Python side (`clustersched.slurm.scheduler`) documents each with the
//! man page section it reads.

use std::collections::HashMap;
use std::time::Instant;

use super::nodes::{Free, FreeView, NodeMachine, Placement, Request};
use super::sim::BatchSim;
use crate::error::{Error, Result};

/// The scheduler's parameters (`slurm.conf`), in seconds where a time.
#[derive(Debug, Clone, PartialEq)]
pub struct SlurmParams {
    /// `sched_interval`: the main pass over the whole queue (17.11 default 60 s).
    pub sched_interval: f64,
    /// `default_queue_depth`: jobs a main pass at an event looks at (default 100).
    pub default_queue_depth: usize,
    /// `bf_interval` (default 30 s).
    pub bf_interval: f64,
    /// `bf_window`: how far ahead backfill plans (default 1 day).
    pub bf_window: f64,
    /// `bf_resolution`: reservations are rounded down to it (default 60 s).
    pub bf_resolution: f64,
    /// The absolute time (s since the Unix epoch) of the simulation's time
    /// 0: `bf_resolution` rounds absolute times, as slurmctld does.
    pub epoch: f64,
    /// `bf_max_job_test` (17.11 alias `max_job_bf`; default 100).
    pub bf_max_job_test: usize,
    /// `bf_max_job_user` (0, the default: no limit).
    pub bf_max_job_user: usize,
    /// `PriorityCalcPeriod` (default 5 minutes).
    pub calc_period: f64,
    /// `PriorityMaxAge` (default 7 days).
    pub max_age: f64,
    /// `PriorityDecayHalfLife` (default 7 days; 0: no decay).
    pub decay_half_life: f64,
    /// `PriorityWeightAge`.
    pub weight_age: f64,
    /// `PriorityWeightFairshare`.
    pub weight_fairshare: f64,
    /// `FairShareDampeningFactor` (default 1).
    pub damping: f64,
}

impl Default for SlurmParams {
    fn default() -> Self {
        SlurmParams {
            sched_interval: 60.0,
            default_queue_depth: 100,
            bf_interval: 30.0,
            bf_window: 86_400.0,
            bf_resolution: 60.0,
            epoch: 0.0,
            bf_max_job_test: 100,
            bf_max_job_user: 0,
            calc_period: 300.0,
            max_age: 7.0 * 86_400.0,
            decay_half_life: 7.0 * 86_400.0,
            weight_age: 0.0,
            weight_fairshare: 0.0,
            damping: 1.0,
        }
    }
}

/// What the scheduler knows of each job beyond its request.
#[derive(Debug, Clone, Default)]
pub struct SlurmJobs {
    /// The priority terms that never change while the job waits, weighted
    /// and summed: job size, partition, QOS and TRES (computed in Python).
    pub fixed: Vec<f64>,
    /// Its partition's `PriorityTier`: a higher tier is considered first.
    pub tier: Vec<u32>,
    /// Its user (an index), for `bf_max_job_user`.
    pub user: Vec<u32>,
    /// Its association (user in account), an index of [`Associations`].
    pub association: Vec<u32>,
    /// Usage it adds per second of run: its billable TRES (its CPUs).
    pub billing: Vec<f64>,
    /// When it became eligible (s): its age counts from there.
    pub eligible: Vec<f64>,
}

/// The association tree (root, accounts, users) and its raw shares.
/// Association 0 is the root; every other one's parent comes before it.
#[derive(Debug, Clone, Default)]
pub struct Associations {
    /// Parent of each association (`parent[0] == 0`).
    pub parent: Vec<u32>,
    /// Raw shares (`Fairshare=`) of each association.
    pub shares: Vec<f64>,
}

/// Counts of what the scheduler did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SlurmStats {
    /// Main passes run (at events and on `sched_interval`).
    pub main_passes: u64,
    /// Backfill passes run.
    pub backfill_passes: u64,
    /// Jobs the main passes started.
    pub main_starts: u64,
    /// Jobs the backfill passes started.
    pub backfill_starts: u64,
    /// Priority recalculations (`PriorityCalcPeriod` ticks that ran).
    pub recalculations: u64,
    /// Jobs the backfill passes tested, all passes together (`sdiag`'s
    /// backfill depth; its "Depth Mean" is this over the passes).
    pub backfill_depth: u64,
    /// Of those, the jobs whose earliest start was searched for (`sdiag`'s
    /// "try sched" depth; the others an equal request bounded).
    pub backfill_try_depth: u64,
}

/// One job's priority factors at one calculation, as `sprio` shows them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Factors {
    /// When they were computed (s).
    pub time: f64,
    /// The job (row).
    pub job: u32,
    /// Age factor, in [0, 1].
    pub age: f64,
    /// Fair-share factor, in [0, 1].
    pub fairshare: f64,
    /// The job's priority (Slurm's 32-bit integer).
    pub priority: u32,
}

/// Classic fair-share (priority/multifactor without `FAIR_TREE`) over the
/// association tree: raw usage decayed with the half-life, normalised by the
/// root's, effective usage mixed with the parent's, and the factor
/// `2^(-(effective usage / normalised shares) / damping)`.
#[derive(Debug, Clone)]
struct FairShare {
    parent: Vec<u32>,
    /// Shares over the sum of the siblings' shares.
    level: Vec<f64>,
    /// Normalised shares: the product of `level` up to the root.
    norm: Vec<f64>,
    usage: Vec<f64>,
    factor: Vec<f64>,
    /// Per-second decay factor, `1 - 0.693 / half-life` as 17.11 writes it
    /// (`_decay_thread`: a first-order series of `0.5^(1/half-life)`); 1: no decay.
    decay: f64,
    damping: f64,
    stale: bool,
}

impl FairShare {
    fn new(tree: &Associations, half_life: f64, damping: f64) -> Result<Self> {
        let n = tree.parent.len();
        if n == 0 || tree.shares.len() != n || tree.parent[0] != 0 {
            return Err(Error::InvalidArgument(format!(
                "associations: {n} parents and {} shares; association 0 must be the root (its own parent)",
                tree.shares.len()
            )));
        }
        let mut siblings = vec![0.0; n];
        for a in 1..n {
            let p = tree.parent[a] as usize;
            if p >= a {
                return Err(Error::InvalidArgument(format!(
                    "association {a} has parent {p}: a parent must come before its children"
                )));
            }
            let s = tree.shares[a];
            if !s.is_finite() || s < 0.0 {
                return Err(Error::InvalidArgument(format!(
                    "association {a} has shares {s}, must be finite and >= 0"
                )));
            }
            siblings[p] += s;
        }
        let mut level = vec![1.0; n];
        let mut norm = vec![1.0; n];
        for a in 1..n {
            let p = tree.parent[a] as usize;
            level[a] = if siblings[p] > 0.0 {
                tree.shares[a] / siblings[p]
            } else {
                0.0
            };
            norm[a] = level[a] * norm[p];
        }
        Ok(FairShare {
            parent: tree.parent.clone(),
            level,
            norm,
            usage: vec![0.0; n],
            factor: vec![1.0; n],
            decay: if half_life > 0.0 { 1.0 - 0.693 / half_life } else { 1.0 },
            damping,
            stale: false,
        })
    }

    /// Usage of `run` seconds at `billing` per second: 17.11's
    /// `_apply_new_usage` decays the slice by its own length too.
    fn add(&mut self, association: u32, run: f64, billing: f64) {
        if run <= 0.0 {
            return;
        }
        let amount = run * self.decay.powf(run) * billing;
        let mut a = association as usize;
        loop {
            self.usage[a] += amount;
            if a == 0 {
                break;
            }
            a = self.parent[a] as usize;
        }
        self.stale = true;
    }

    fn decay_for(&mut self, seconds: f64) {
        if seconds > 0.0 && self.decay < 1.0 {
            let f = self.decay.powf(seconds).max(f64::MIN_POSITIVE);
            self.usage.iter_mut().for_each(|u| *u *= f);
            self.stale = true;
        }
    }

    /// The factor of every association from the usage now.
    fn refresh(&mut self) {
        if !self.stale {
            return;
        }
        self.stale = false;
        let root = self.usage[0];
        let n = self.usage.len();
        let mut effective = vec![0.0; n];
        for a in 1..n {
            let usage = if root > 0.0 { self.usage[a] / root } else { 0.0 };
            let p = self.parent[a] as usize;
            effective[a] = if p == 0 {
                usage
            } else {
                usage + (effective[p] - usage) * self.level[a]
            };
            self.factor[a] = if self.norm[a] > 0.0 {
                2f64.powf(-(effective[a] / self.norm[a]) / self.damping)
            } else {
                0.0
            };
        }
    }
}

/// What is free on the nodes not switched off (a node off offers nothing).
struct Without<'a> {
    free: &'a Free,
    off: &'a [bool],
}

impl FreeView for Without<'_> {
    fn cores(&self, n: usize) -> u32 {
        if self.off[n] {
            0
        } else {
            self.free.cores[n]
        }
    }
    fn memory(&self, n: usize) -> u64 {
        if self.off[n] {
            0
        } else {
            self.free.memory[n]
        }
    }
    fn gres(&self, i: usize) -> u32 {
        let kinds = self.free.gres.len() / self.off.len().max(1);
        if kinds > 0 && self.off[i / kinds] {
            0
        } else {
            self.free.gres[i]
        }
    }
}

/// Slurm's scheduler over a [`BatchSim`] on nodes.
#[derive(Debug, Clone)]
pub struct SlurmScheduler {
    params: SlurmParams,
    jobs: SlurmJobs,
    fairshare: FairShare,
    priority: Vec<u32>,
    /// Factors of each job at the calculation in force when it started.
    at_start: Vec<Option<Factors>>,
    current: Vec<(f64, f64)>,
    accounted_to: Vec<f64>,
    completed_seen: usize,
    arrived_seen: usize,
    origin: f64,
    next_main: u64,
    next_backfill: u64,
    next_calc: u64,
    last_calc: f64,
    /// Bumped at each recalculation: passes read the priorities.
    epoch: u64,
    main_seen: Option<(u64, usize, u64)>,
    backfill_seen: Option<(u64, usize, u64)>,
    log: Option<Vec<Factors>>,
    stats: SlurmStats,
    /// The waiting jobs in Slurm's queue order.
    queue: JobQueue,
    /// Per request, the nodes that could host it ([`SlurmScheduler::hosts`]).
    hosts_of: HashMap<Request, u32>,
    host_sets: Vec<(Vec<usize>, Vec<bool>)>,
    /// Per job, its request's entry in `host_sets` (`u32::MAX` until first needed).
    host_set_of: Vec<u32>,
    idle: Option<Free>,
}

impl SlurmScheduler {
    /// A scheduler for the jobs of `jobs` (one entry per job of the
    /// simulation it will run) over the association tree `tree`; with
    /// `log`, every priority calculation of every job is kept.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a parameter out of range, arrays of
    /// different lengths, or a malformed tree.
    pub fn new(params: SlurmParams, jobs: SlurmJobs, tree: &Associations, log: bool) -> Result<Self> {
        let positive = [("bf_window", params.bf_window), ("damping", params.damping)];
        for (name, v) in positive {
            if !v.is_finite() || v <= 0.0 {
                return Err(Error::InvalidArgument(format!("{name} == {v}, must be finite and > 0")));
            }
        }
        // Slurm counts these in whole seconds (PriorityCalcPeriod in whole minutes); a shorter period would
        // make the timers, not the jobs, the size of a replay (a tick a millisecond over a year of trace)
        let periods = [
            ("sched_interval", params.sched_interval, 1.0),
            ("bf_interval", params.bf_interval, 1.0),
            ("bf_resolution", params.bf_resolution, 1.0),
            ("calc_period", params.calc_period, 60.0),
        ];
        for (name, v, least) in periods {
            if !v.is_finite() || v < least {
                return Err(Error::InvalidArgument(format!(
                    "{name} == {v} s, must be finite and >= {least} s (Slurm's unit)"
                )));
            }
        }
        if !params.epoch.is_finite() {
            return Err(Error::InvalidArgument(format!(
                "epoch == {}, must be finite",
                params.epoch
            )));
        }
        for (name, v) in [
            ("max_age", params.max_age),
            ("decay_half_life", params.decay_half_life),
            ("weight_age", params.weight_age),
            ("weight_fairshare", params.weight_fairshare),
        ] {
            if !v.is_finite() || v < 0.0 {
                return Err(Error::InvalidArgument(format!(
                    "{name} == {v}, must be finite and >= 0"
                )));
            }
        }
        let n = jobs.fixed.len();
        let lengths = [
            jobs.tier.len(),
            jobs.user.len(),
            jobs.association.len(),
            jobs.billing.len(),
            jobs.eligible.len(),
        ];
        if lengths.iter().any(|&l| l != n) {
            return Err(Error::InvalidArgument(format!(
                "slurm job arrays differ in length: fixed {n}, tier {}, user {}, association {}, billing {}, eligible {}",
                lengths[0], lengths[1], lengths[2], lengths[3], lengths[4]
            )));
        }
        if let Some(j) = jobs.association.iter().position(|&a| a as usize >= tree.parent.len()) {
            return Err(Error::InvalidArgument(format!(
                "job {j}: association {} of {}",
                jobs.association[j],
                tree.parent.len()
            )));
        }
        if let Some(j) = (0..n).find(|&j| {
            !jobs.fixed[j].is_finite()
                || !jobs.billing[j].is_finite()
                || jobs.billing[j] < 0.0
                || !jobs.eligible[j].is_finite()
        }) {
            return Err(Error::InvalidArgument(format!(
                "job {j}: fixed priority {}, billing {}, eligible {}: must be finite (billing >= 0)",
                jobs.fixed[j], jobs.billing[j], jobs.eligible[j]
            )));
        }
        let fairshare = FairShare::new(tree, params.decay_half_life, params.damping)?;
        Ok(SlurmScheduler {
            fairshare,
            priority: vec![0; n],
            at_start: vec![None; n],
            current: vec![(0.0, 1.0); n],
            accounted_to: vec![f64::NAN; n],
            completed_seen: 0,
            arrived_seen: 0,
            origin: f64::NAN,
            next_main: 1,
            next_backfill: 1,
            next_calc: 1,
            last_calc: f64::NAN,
            epoch: 0,
            main_seen: None,
            backfill_seen: None,
            log: log.then(Vec::new),
            stats: SlurmStats::default(),
            queue: JobQueue::default(),
            hosts_of: HashMap::new(),
            host_sets: Vec::new(),
            host_set_of: vec![u32::MAX; n],
            idle: None,
            params,
            jobs,
        })
    }

    /// What the scheduler did.
    pub fn stats(&self) -> &SlurmStats {
        &self.stats
    }

    /// Each job's factors at the calculation in force when it started (None if it never started).
    pub fn factors_at_start(&self) -> &[Option<Factors>] {
        &self.at_start
    }

    /// Every calculation of every job's priority, when asked for at [`SlurmScheduler::new`].
    pub fn log(&self) -> Option<&[Factors]> {
        self.log.as_deref()
    }

    /// Runs the simulation to its end (or `max_events` more time stamps, or
    /// until the wall clock reaches `until`); true when every job is done.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] on a processor pool, or for job arrays of
    /// another length than the simulation's.
    pub fn run(&mut self, sim: &mut BatchSim, max_events: Option<u64>, until: Option<Instant>) -> Result<bool> {
        if sim.nodes().is_none() {
            return Err(Error::InvalidArgument(
                "policy 'slurm' schedules a cluster of nodes (a platform), not a processor pool".into(),
            ));
        }
        if self.jobs.fixed.len() != sim.jobs().len() {
            return Err(Error::InvalidArgument(format!(
                "slurm job arrays have {} entries for {} jobs",
                self.jobs.fixed.len(),
                sim.jobs().len()
            )));
        }
        if self.origin.is_nan() {
            self.origin = sim.now();
            self.last_calc = sim.now();
        }
        let stop = max_events.map_or(u64::MAX, |m| sim.events().saturating_add(m));
        while sim.events() < stop {
            let waiting = !sim.queue().is_empty();
            let running = !nodes_of(sim).running().is_empty();
            let p = &self.params;
            let timers = [
                waiting.then(|| self.tick(self.next_main, p.sched_interval)),
                waiting.then(|| self.tick(self.next_backfill, p.bf_interval)),
                (waiting || running).then(|| self.tick(self.next_calc, p.calc_period)),
            ];
            let event = sim.next_event();
            let Some(now) = timers.iter().chain([&event]).flatten().copied().reduce(f64::min) else {
                break;
            };
            let at_event = event == Some(now);
            if at_event {
                sim.advance();
                self.on_events(sim, now);
            } else {
                sim.wait_until(now);
            }
            if self.due(Timer::Calc, now) {
                self.recalculate(sim, now);
            }
            let periodic = self.due(Timer::Main, now);
            if at_event || periodic {
                self.main_pass(sim, periodic);
            }
            if self.due(Timer::Backfill, now) {
                self.backfill_pass(sim);
            }
            if until.is_some_and(|t| Instant::now() >= t) {
                break;
            }
        }
        Ok(sim.finished())
    }

    fn tick(&self, k: u64, interval: f64) -> f64 {
        self.origin + k as f64 * interval
    }

    /// Whether `timer` fires at `now`, moving it to its first tick after
    /// `now`. A tick passed while the timer was idle does not fire late.
    fn due(&mut self, timer: Timer, now: f64) -> bool {
        let interval = match timer {
            Timer::Main => self.params.sched_interval,
            Timer::Backfill => self.params.bf_interval,
            Timer::Calc => self.params.calc_period,
        };
        let k = match timer {
            Timer::Main => self.next_main,
            Timer::Backfill => self.next_backfill,
            Timer::Calc => self.next_calc,
        };
        let t = self.tick(k, interval);
        if t > now {
            return false;
        }
        let mut next = ((now - self.origin) / interval).floor().max(0.0) as u64;
        while self.tick(next, interval) <= now {
            next += 1;
        }
        match timer {
            Timer::Main => self.next_main = next,
            Timer::Backfill => self.next_backfill = next,
            Timer::Calc => self.next_calc = next,
        }
        t == now
    }

    /// Completions add their last slice of usage (17.11's
    /// `priority_p_job_end`); arrivals get their priority at submission.
    fn on_events(&mut self, sim: &BatchSim, now: f64) {
        self.catch_up(now);
        for &job in &sim.completed()[self.completed_seen..] {
            let j = job as usize;
            self.fairshare.add(
                self.jobs.association[j],
                now - self.accounted_to[j],
                self.jobs.billing[j],
            );
            self.accounted_to[j] = now;
        }
        self.completed_seen = sim.completed().len();
        if sim.arrived() > self.arrived_seen {
            self.fairshare.refresh();
            for j in self.arrived_seen..sim.arrived() {
                self.set_priority(j, now);
            }
            self.arrived_seen = sim.arrived();
        }
    }

    /// The decay of the `PriorityCalcPeriod` ticks before `now` that did not
    /// fire (nothing ran or waited then): each would only have decayed the
    /// usage, which the usage added after it must not share.
    fn catch_up(&mut self, now: f64) {
        let period = self.params.calc_period;
        let mut k = ((now - self.origin) / period).floor().max(0.0) as u64;
        while k > 0 && self.tick(k, period) >= now {
            k -= 1;
        }
        let last = self.tick(k, period);
        if last > self.last_calc {
            self.fairshare.decay_for(last - self.last_calc);
            self.last_calc = last;
        }
    }

    /// 17.11's decay thread: decay all usage by the time since the last
    /// run, add the running jobs' usage since then, and recompute the
    /// priority of every waiting job.
    fn recalculate(&mut self, sim: &BatchSim, now: f64) {
        self.stats.recalculations += 1;
        self.fairshare.decay_for(now - self.last_calc);
        self.last_calc = now;
        for &(_, job) in nodes_of(sim).running() {
            let j = job as usize;
            self.fairshare.add(
                self.jobs.association[j],
                now - self.accounted_to[j],
                self.jobs.billing[j],
            );
            self.accounted_to[j] = now;
        }
        self.fairshare.refresh();
        let waiting: Vec<u32> = sim.queue().iter().map(|w| w.job).collect();
        for job in waiting {
            self.set_priority(job as usize, now);
        }
        self.epoch += 1;
    }

    fn set_priority(&mut self, j: usize, now: f64) {
        let p = &self.params;
        let age = if p.max_age > 0.0 {
            ((now - self.jobs.eligible[j]).max(0.0).floor() / p.max_age).min(1.0)
        } else {
            0.0
        };
        let fairshare = self.fairshare.factor[self.jobs.association[j] as usize];
        let sum = self.jobs.fixed[j] + p.weight_age * age + p.weight_fairshare * fairshare;
        // "Priority 0 is reserved for held jobs"; a 32-bit integer, truncated
        let priority = sum.clamp(1.0, f64::from(u32::MAX)) as u32;
        self.priority[j] = priority;
        self.current[j] = (age, fairshare);
        if let Some(log) = &mut self.log {
            log.push(Factors {
                time: now,
                job: j as u32,
                age,
                fairshare,
                priority,
            });
        }
    }

    /// Brings [`JobQueue`] up to the priorities in force and the arrivals so far.
    fn refresh_queue(&mut self, sim: &BatchSim) {
        let starts = sim.starts();
        let (tier, priority) = (&self.jobs.tier, &self.priority);
        self.queue.refresh(
            self.epoch,
            sim.arrived(),
            |j| queue_key(tier, priority, j),
            |j| starts[j as usize].is_nan(),
        );
        debug_assert_eq!(self.queue.len(|j| starts[j as usize].is_nan()), sim.queue().len());
    }

    /// The waiting job after the read positions `at`, moving them past it.
    fn next_waiting(&self, sim: &BatchSim, at: &mut (usize, usize)) -> Option<u32> {
        let starts = sim.starts();
        self.queue.next(at, |j| self.key(j), |j| starts[j as usize].is_nan())
    }

    fn key(&self, j: u32) -> QueueKey {
        queue_key(&self.jobs.tier, &self.priority, j)
    }

    /// The nodes that could ever host a task of `request` (and, per node, whether it is not one): what
    /// happens on the others (their jobs ending, their reservations) never changes where it fits.
    /// Computed once per distinct request, and found by job after its first search (no hashing then).
    fn hosts(&mut self, machine: &NodeMachine, j: usize) -> &(Vec<usize>, Vec<bool>) {
        if self.host_set_of[j] == u32::MAX {
            let nodes = machine.nodes();
            let request = *machine.request(j);
            let idle = self.idle.get_or_insert_with(|| Free::idle(nodes));
            let sets = &mut self.host_sets;
            let at = *self.hosts_of.entry(request).or_insert_with(|| {
                let off: Vec<bool> = (0..nodes.len())
                    .map(|n| nodes.capacity(idle, &request, n) == 0)
                    .collect();
                let hosts = (0..nodes.len()).filter(|&n| !off[n]).collect();
                sets.push((hosts, off));
                (sets.len() - 1) as u32
            });
            self.host_set_of[j] = at;
        }
        &self.host_sets[self.host_set_of[j] as usize]
    }

    fn state(&self, sim: &BatchSim) -> (u64, usize, u64) {
        (nodes_of(sim).version(), sim.arrived(), self.epoch)
    }

    fn launch(&mut self, sim: &mut BatchSim, job: u32, placement: &Placement) {
        let j = job as usize;
        let now = sim.now();
        sim.queue_mut().remove(job);
        sim.launch_on(job, placement);
        self.queue.started += 1;
        self.accounted_to[j] = now;
        let (age, fairshare) = self.current[j];
        self.at_start[j] = Some(Factors {
            time: now,
            job,
            age,
            fairshare,
            priority: self.priority[j],
        });
    }

    /// The main scheduler (`schedule()`): jobs in priority order, each
    /// started where it fits now; the first job of a partition that does
    /// not fit takes that partition's nodes out of the pass, so no job of
    /// lower priority starts on them. At an event it looks at
    /// `default_queue_depth` jobs, on `sched_interval` at all of them.
    fn main_pass(&mut self, sim: &mut BatchSim, full: bool) {
        let state = self.state(sim);
        if self.main_seen == Some(state) {
            return; // nothing it reads changed: it would start nothing
        }
        self.stats.main_passes += 1;
        let depth = if full {
            usize::MAX
        } else {
            self.params.default_queue_depth
        };
        self.refresh_queue(sim);
        let nodes = nodes_of(sim).nodes();
        let parts = nodes.partitions.iter().fold(0u64, |a, &p| a | p);
        let parts = 64 - parts.leading_zeros() as usize;
        // nodes of each partition still in the pass: a job whose partition has none is skipped at once
        let mut open = vec![0usize; parts];
        for &p in &nodes.partitions {
            for (k, count) in open.iter_mut().enumerate() {
                *count += (p >> k & 1) as usize;
            }
        }
        let mut open_parts = open.iter().filter(|&&c| c > 0).count();
        let mut off = vec![false; nodes.len()];
        let mut at = (0, 0);
        for _ in 0..depth {
            if open_parts == 0 {
                break;
            }
            let Some(job) = self.next_waiting(sim, &mut at) else {
                break;
            };
            let machine = nodes_of(sim);
            let r = *machine.request(job as usize);
            if open[r.partition as usize] == 0 {
                continue;
            }
            let view = Without {
                free: machine.free(),
                off: &off,
            };
            match machine.nodes().place(&view, &r) {
                Some(placement) => {
                    self.launch(sim, job, &placement);
                    self.stats.main_starts += 1;
                }
                None => {
                    let nodes = machine.nodes();
                    for (n, o) in off.iter_mut().enumerate() {
                        if !*o && nodes.partitions[n] >> r.partition & 1 == 1 {
                            *o = true;
                            for (k, count) in open.iter_mut().enumerate() {
                                if nodes.partitions[n] >> k & 1 == 1 {
                                    *count -= 1;
                                    open_parts -= usize::from(*count == 0);
                                }
                            }
                        }
                    }
                }
            }
        }
        self.main_seen = Some(self.state(sim));
    }

    /// The backfill scheduler (`_attempt_backfill`): jobs in priority
    /// order, at most `bf_max_job_test` of them and `bf_max_job_user` of
    /// each user; each gets the earliest start within `bf_window` where it
    /// fits on the nodes that no earlier job of this pass reserved over its
    /// run, with the running jobs ending at their time limits: it starts if
    /// that is now, and otherwise reserves its nodes, whole, from that start
    /// to its time limit (both rounded down to `bf_resolution`).
    ///
    /// Within a pass, a job asking what an earlier one asked (the same
    /// request) for at least as long cannot start before that one could:
    /// the pass only ever adds reservations and starts jobs, and a longer
    /// run only meets more reservations. Its search begins there (and is
    /// skipped when the earlier one found no start in the window).
    fn backfill_pass(&mut self, sim: &mut BatchSim) {
        let state = self.state(sim);
        if self.backfill_seen == Some(state) {
            return;
        }
        self.stats.backfill_passes += 1;
        let now = sim.now();
        let window_end = now + self.params.bf_window;
        let (resolution, epoch) = (self.params.bf_resolution, self.params.epoch);
        let round = |t: f64| ((t + epoch) / resolution).floor() * resolution - epoch;
        self.refresh_queue(sim);
        let mut plan = Plan::new(nodes_of(sim).nodes().len());
        let mut per_user: Vec<usize> = Vec::new();
        // per request seen in this pass: (time limit, earliest start found, None: none in the window)
        let mut bounds: Vec<(Request, Vec<Found>)> = Vec::new();
        let mut tested = 0;
        let mut at = (0, 0);
        while let Some(job) = self.next_waiting(sim, &mut at) {
            let j = job as usize;
            if tested >= self.params.bf_max_job_test {
                break;
            }
            if self.params.bf_max_job_user > 0 {
                let u = self.jobs.user[j] as usize;
                if per_user.len() <= u {
                    per_user.resize(u + 1, 0);
                }
                if per_user[u] >= self.params.bf_max_job_user {
                    continue;
                }
                per_user[u] += 1;
            }
            tested += 1;
            self.stats.backfill_depth += 1;
            let limit = sim.jobs().estimate[j];
            let request = *nodes_of(sim).request(j);
            let at = match bounds.iter().position(|(r, _)| *r == request) {
                Some(at) => at,
                None => {
                    bounds.push((request, Vec::new()));
                    bounds.len() - 1
                }
            };
            let shorter = bounds[at].1.iter().filter(|&&(l, _)| l <= limit);
            let Some(from) = shorter.into_iter().try_fold(now, |a, &(_, b)| b.map(|b| a.max(b))) else {
                continue; // as long a run of this request found no start in the window
            };
            self.stats.backfill_try_depth += 1;
            let hosts = self.hosts(nodes_of(sim), j);
            let found = plan.earliest(nodes_of(sim), hosts, j, now, from, limit, window_end);
            bounds[at].1.push((limit, found.as_ref().map(|f| f.0)));
            let Some((start, placement)) = found else {
                continue; // it cannot start within the window: no reservation
            };
            if start <= now {
                self.launch(sim, job, &placement);
                self.stats.backfill_starts += 1;
            } else {
                sim.reserve(job, start);
                plan.reserve(round(start), round(start + limit), &placement);
            }
        }
        self.backfill_seen = Some(self.state(sim));
    }
}

type QueueKey = (std::cmp::Reverse<u32>, std::cmp::Reverse<u32>, u32);

/// Job `j`'s place in Slurm's queue order: see [`JobQueue`].
fn queue_key(tier: &[u32], priority: &[u32], j: u32) -> QueueKey {
    let j = j as usize;
    (std::cmp::Reverse(tier[j]), std::cmp::Reverse(priority[j]), j as u32)
}

/// The waiting jobs in the order Slurm sorts its job queue
/// (`sort_job_queue2`): partition tier, then priority, highest first; then
/// submission order. Sorted again after each recalculation, from the previous
/// order; the arrivals in between kept apart in a short sorted list, the two
/// merged as they are read. Started jobs are skipped when read, and dropped
/// from the lists once they are half of them: no pass copies or rebuilds the
/// whole queue.
#[derive(Debug, Clone, Default)]
struct JobQueue {
    sorted: Vec<u32>,
    /// Arrivals since the last sort, in order.
    fresh: Vec<u32>,
    /// The recalculation `sorted` is in the order of.
    epoch: Option<u64>,
    /// The jobs before it have arrived into one of the lists.
    upto: usize,
    /// Started jobs still in the lists.
    started: usize,
}

impl JobQueue {
    /// Takes in the jobs arrived before `arrived` and, when `epoch` (the
    /// recalculation in force) changed, sorts again by `key`; `waiting` says
    /// which jobs have not started.
    fn refresh(&mut self, epoch: u64, arrived: usize, key: impl Fn(u32) -> QueueKey, waiting: impl Fn(u32) -> bool) {
        if self.epoch != Some(epoch) {
            // the previous order, nearly right still: the sort merges its runs
            let mut order = std::mem::take(&mut self.sorted);
            order.append(&mut self.fresh);
            order.retain(|&j| waiting(j));
            order.extend(self.upto as u32..arrived as u32);
            order.sort_by_key(|&j| key(j));
            self.sorted = order;
            self.epoch = Some(epoch);
            self.started = 0;
        } else {
            for j in self.upto as u32..arrived as u32 {
                let k = key(j);
                let at = self.fresh.partition_point(|&o| key(o) < k);
                self.fresh.insert(at, j);
            }
            if self.started * 2 > self.sorted.len() + self.fresh.len() {
                self.sorted.retain(|&j| waiting(j));
                self.fresh.retain(|&j| waiting(j));
                self.started = 0;
            }
        }
        self.upto = arrived;
    }

    /// The waiting job after the read positions `at` (in the sorted list and
    /// among the arrivals since), moving them past it.
    fn next(
        &self,
        at: &mut (usize, usize),
        key: impl Fn(u32) -> QueueKey,
        waiting: impl Fn(u32) -> bool,
    ) -> Option<u32> {
        loop {
            let job = match (self.sorted.get(at.0), self.fresh.get(at.1)) {
                (Some(&x), Some(&y)) if key(y) < key(x) => {
                    at.1 += 1;
                    y
                }
                (Some(&x), _) => {
                    at.0 += 1;
                    x
                }
                (None, Some(&y)) => {
                    at.1 += 1;
                    y
                }
                (None, None) => return None,
            };
            if waiting(job) {
                return Some(job);
            }
        }
    }

    /// The waiting jobs in the lists.
    fn len(&self, waiting: impl Fn(u32) -> bool) -> usize {
        self.sorted.iter().chain(&self.fresh).filter(|&&j| waiting(j)).count()
    }
}

/// A backfill pass's reservations: whole nodes over time (17.11's node-space
/// map holds node bitmaps, not cores), kept per node.
struct Plan {
    /// Reserved `[start, end)` intervals of each node, by start.
    busy: Vec<Vec<(f64, f64)>>,
    /// Per node, the latest end among its first `i + 1` intervals: a node is
    /// reserved somewhere in `[t, u)` when one of the intervals starting
    /// before `u` ends after `t`.
    latest_end: Vec<Vec<f64>>,
    /// Per node, how many of its intervals start before the end of the
    /// window tried last (windows only move later within one search).
    before: Vec<usize>,
    /// Every reservation's end on each of its nodes, `(end, node)`, sorted.
    ends: Vec<(f64, u32)>,
    /// Per node, not a host of the job searched for, or reserved at the instant tried: what placement
    /// may not use.
    mask: Vec<bool>,
    /// What is free at the instant tried.
    free: Free,
}

impl Plan {
    fn new(nodes: usize) -> Self {
        Plan {
            busy: vec![Vec::new(); nodes],
            latest_end: vec![Vec::new(); nodes],
            before: vec![0; nodes],
            ends: Vec::new(),
            mask: vec![false; nodes],
            free: Free::default(),
        }
    }

    fn reserve(&mut self, start: f64, end: f64, placement: &Placement) {
        if end <= start {
            return; // rounded to nothing
        }
        for share in &placement.shares {
            let n = share.node as usize;
            let (busy, latest) = (&mut self.busy[n], &mut self.latest_end[n]);
            let at = busy.partition_point(|&(s, _)| s <= start);
            busy.insert(at, (start, end));
            let e = self.ends.partition_point(|&(x, _)| x <= end);
            self.ends.insert(e, (end, share.node));
            latest.truncate(at);
            let mut max = if at > 0 { latest[at - 1] } else { f64::NEG_INFINITY };
            for &(_, e) in &busy[at..] {
                max = max.max(e);
                latest.push(max);
            }
        }
    }

    /// Whether node `n` is reserved at some instant of `[t, end)` (of `t` alone for a job of no length).
    fn reserved(&self, n: usize, t: f64, end: f64) -> bool {
        let until = end.max(t + f64::MIN_POSITIVE);
        let before = self.busy[n].partition_point(|&(s, _)| s < until);
        before > 0 && self.latest_end[n][before - 1] > t
    }

    /// Earliest start of job `j` in `[from, window_end)`, and its placement
    /// then: what is free once the running jobs that end by then (at their
    /// estimates) have released, on the nodes no reservation holds over
    /// `[t, t + limit)`. Whether a job fits changes for the better only when
    /// a running job ends or a reservation does, so only those instants
    /// (and `from`) are tried.
    #[allow(clippy::too_many_arguments)]
    fn earliest(
        &mut self,
        machine: &NodeMachine,
        hosts: &(Vec<usize>, Vec<bool>),
        j: usize,
        now: f64,
        from: f64,
        limit: f64,
        window_end: f64,
    ) -> Option<(f64, Placement)> {
        let nodes = machine.nodes();
        let kinds = nodes.kinds;
        let request = machine.request(j);
        let (eligible, off) = hosts;
        let running = machine.running();
        let relevant = |job: u32| machine.held(job as usize).0.iter().any(|s| !off[s.node as usize]);
        let ends = &self.ends;
        // the free resources as of now, in the pass's buffer (a search per job: no allocation each)
        let mut free = std::mem::take(&mut self.free);
        free.clone_from(machine.free());
        let mut cores: u64 = eligible.iter().map(|&n| u64::from(free.cores[n])).sum();
        let (mut released, mut e) = (0, ends.partition_point(|&(x, _)| x <= from));
        let mut t = from.max(now);
        self.before.iter_mut().for_each(|k| *k = 0);
        self.mask.copy_from_slice(off);
        while t < window_end {
            while released < running.len() && running[released].0 .0 <= t {
                let job = running[released].1;
                if relevant(job) {
                    let (shares, gres) = machine.held(job as usize);
                    cores += shares
                        .iter()
                        .filter(|s| !off[s.node as usize])
                        .map(|s| u64::from(s.cores))
                        .sum::<u64>();
                    free.give(kinds, shares, gres);
                }
                released += 1;
            }
            if cores >= request.width() {
                let end = t + limit;
                // a job of no length holds its nodes at t alone
                let until = end.max(t + f64::MIN_POSITIVE);
                let mut room = 0u64;
                for &n in eligible {
                    let (busy, k) = (&self.busy[n], &mut self.before[n]);
                    while *k < busy.len() && busy[*k].0 < until {
                        *k += 1;
                    }
                    let reserved = *k > 0 && self.latest_end[n][*k - 1] > t;
                    self.mask[n] = reserved;
                    room += if reserved { 0 } else { u64::from(free.cores[n]) };
                }
                if room >= request.width() {
                    let view = Without {
                        free: &free,
                        off: &self.mask,
                    };
                    if let Some(placement) = nodes.place(&view, request) {
                        self.free = free;
                        return Some((t, placement));
                    }
                }
            }
            // the next instant something comes free on its nodes: a running job's end, or a reservation's
            // end that leaves its node unreserved for as long as the job runs
            while e < ends.len() && {
                let (x, n) = (ends[e].0, ends[e].1 as usize);
                x <= t || off[n] || self.reserved(n, x, x + limit)
            } {
                e += 1;
            }
            // (a job that frees only nodes reserved over [its end, its end + limit) changes nothing then)
            let mut r = released;
            while r < running.len() && {
                let (x, job) = (running[r].0 .0, running[r].1);
                x <= t
                    || !machine.held(job as usize).0.iter().any(|s| {
                        let n = s.node as usize;
                        !off[n] && !self.reserved(n, x, x + limit)
                    })
            } {
                r += 1;
            }
            let next_run = running.get(r).map_or(f64::INFINITY, |x| x.0 .0);
            let next_end = ends.get(e).map_or(f64::INFINITY, |x| x.0);
            t = next_run.min(next_end);
        }
        self.free = free;
        None
    }
}

/// A search of a backfill pass: the time limit searched for, and the earliest start found (None: none
/// within the window).
type Found = (f64, Option<f64>);

#[derive(Clone, Copy)]
enum Timer {
    Main,
    Backfill,
    Calc,
}

fn nodes_of(sim: &BatchSim) -> &NodeMachine {
    sim.nodes().expect("the Slurm scheduler runs on nodes (checked in run)")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The queue read in order is every waiting job sorted by its key,
        /// after any mix of arrivals, starts and recalculations.
        #[test]
        fn job_queue_reads_the_waiting_jobs_in_key_order(
            steps in prop::collection::vec((0usize..4, 0u32..6, any::<bool>(), 0usize..3), 1..60)
        ) {
            let (mut tier, mut priority, mut started) = (Vec::new(), Vec::new(), Vec::new());
            let (mut queue, mut epoch) = (JobQueue::default(), 0u64);
            for (arrivals, p, recalculate, starts) in steps {
                for _ in 0..arrivals {
                    tier.push(p % 2);
                    priority.push(p);
                    started.push(false);
                }
                if recalculate {
                    epoch += 1;
                    for (j, q) in priority.iter_mut().enumerate() {
                        *q = (*q * 7 + j as u32) % 5;
                    }
                }
                let key = |j: u32| queue_key(&tier, &priority, j);
                queue.refresh(epoch, tier.len(), key, |j| !started[j as usize]);
                let mut expected: Vec<u32> = (0..tier.len() as u32).filter(|&j| !started[j as usize]).collect();
                expected.sort_by_key(|&j| key(j));
                let (mut at, mut read) = ((0, 0), Vec::new());
                while let Some(j) = queue.next(&mut at, key, |j| !started[j as usize]) {
                    read.push(j);
                }
                prop_assert_eq!(&read, &expected);
                for &j in expected.iter().take(starts) {
                    started[j as usize] = true;
                    queue.started += 1;
                }
            }
        }
    }
}
