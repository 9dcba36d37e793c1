//! The stepping kernel of `clustersched.rl`: an agent picks which waiting job
//! starts next, over the batch simulator's own state ([`BatchSim`]: its queue,
//! its machine, EASY's shadow time and backfilling), one window of a trace per
//! episode.
//!
//! Decision semantics (the Python environment's docstring words them for users):
//!
//! - A *decision point* is a time stamp, after all of its completions and
//!   arrivals, at which at least one job waits. The agent sees the first
//!   `slots` waiting jobs in arrival order; slot `k` is the `k`-th of them.
//! - Picking slot `k` starts that job as soon as it fits: now if it does,
//!   otherwise the simulation moves from event to event until enough
//!   processors are free (RLScheduler's rule), and with [`Backfill::Easy`] it
//!   first backfills, at every time stamp of that wait, the other waiting jobs
//!   around a reservation for the picked one (EASY's rule, with the picked job
//!   in the head's place). Then the next decision point follows: the same time
//!   stamp if jobs still wait, else the next arrival.
//! - A slot that holds no job is an illegal action: nothing starts, time does
//!   not move, the reward is `-illegal_penalty`.
//! - The episode ends when every job of the window has started (the ends
//!   follow from the run times; nothing is left to decide).
//!
//! So picking slot 0 at every decision is FCFS (and FCFS + EASY), schedule
//! for schedule: the same starts as [`crate::batch::Builtin::Fcfs`] and
//! [`crate::batch::Builtin::Easy`] on the window.

use std::sync::Arc;

use crate::batch::{easy_backfill_around, BatchSim, Jobs, Priority, Waiting};
use crate::error::{Error, Result};

/// Features per job of every observation layout.
pub const FEATURES: usize = 8;
/// Per-job columns the caller computes once for [`Layout::RlScheduler`]
/// (requested memory, user, group, executable, each scaled to `[0, 1)`).
pub const STATIC_FEATURES: usize = 4;
/// RLScheduler keeps its features below 1 and above 0 by this margin.
const RLSCHEDULER_EPS: f32 = 1e-5;

/// Whether other jobs start while the picked one waits for processors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backfill {
    /// Nothing else starts: the picked job waits, the machine idles.
    None,
    /// EASY: a reservation for the picked job at its shadow time, and every
    /// waiting job that does not delay it starts (RLScheduler's `backfil=True`).
    Easy,
}

/// The features of one job in an observation row (see `clustersched.rl` for the table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// wait, estimate, width, free processors, can start now, estimated area,
    /// queue length, slot used; padding rows are zeros.
    Clustersched,
    /// RLScheduler's 8 features in its order: wait, requested time, requested
    /// processors, requested memory, user, group, executable, can start now,
    /// kept within `[1e-5, 1 - 1e-5]`; padding rows `[0, 1, 1, 1, 1, 1, 1, 0]`.
    RlScheduler,
}

/// What an episode costs (the reward is its negation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cost {
    /// The mean bounded slowdown of the window's jobs.
    BoundedSlowdown,
    /// The mean wait (s).
    Wait,
    /// One minus the utilization (sparse only: it is not a sum over jobs).
    Utilization,
}

/// The priority rules the baselines pick by: the visible job of least score,
/// ties to the lowest slot (arrival order). `r` is the estimate, at least 1 s;
/// `n` the width; `w` the wait now; `s` the submit time, at least 1 s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Score {
    /// First come, first served: slot 0.
    Fcfs,
    /// Shortest estimate first: `r`.
    Sjf,
    /// WFP3 (Tang et al. 2009): `-(w / r)^3 * n`.
    Wfp3,
    /// UNICEP (Tang et al. 2009): `-w / (max(log2 n, 1) * r)`.
    Unicep,
    /// F1 (Carastan-Santos and de Camargo, SC'17): `log10(r) * n + 870 * log10(s)`.
    F1,
}

/// The environment's settings, one per environment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
    /// Jobs per episode (the window's length).
    pub window: usize,
    /// Waiting jobs the agent sees and picks among (the observation's rows).
    pub slots: usize,
    /// Whether others start while the picked job waits.
    pub backfill: Backfill,
    /// The features of an observation row.
    pub layout: Layout,
    /// What the reward negates.
    pub cost: Cost,
    /// Reward at every decision (the cost of the jobs it started) instead of at the end.
    pub dense: bool,
    /// Wait that scales to 1 (s).
    pub max_wait: f64,
    /// Estimate that scales to 1 (s).
    pub max_run: f64,
    /// Bounded slowdown's runtime floor (s).
    pub tau: f64,
    /// Subtracted from the reward of an illegal action (`>= 0`).
    pub illegal_penalty: f64,
}

impl Config {
    fn check(&self) -> Result<()> {
        let positive = [
            ("max_wait", self.max_wait),
            ("max_run", self.max_run),
            ("tau", self.tau),
        ];
        for (name, x) in positive {
            if !(x.is_finite() && x > 0.0) {
                return Err(Error::InvalidArgument(format!("{name} == {x}, must be finite and > 0")));
            }
        }
        if !(self.illegal_penalty.is_finite() && self.illegal_penalty >= 0.0) {
            return Err(Error::InvalidArgument(format!(
                "illegal_penalty == {}, must be finite and >= 0",
                self.illegal_penalty
            )));
        }
        if self.window == 0 || self.slots == 0 {
            return Err(Error::InvalidArgument(format!(
                "window == {}, slots == {}: both must be >= 1",
                self.window, self.slots
            )));
        }
        if self.dense && self.cost == Cost::Utilization {
            return Err(Error::InvalidArgument(
                "a dense reward is the cost of the jobs each decision starts; utilization is no sum over jobs \
                 (use a sparse reward)"
                    .into(),
            ));
        }
        Ok(())
    }
}

/// A whole trace, read-only and shared by every episode cut from it.
#[derive(Debug, Clone)]
pub struct Trace {
    jobs: Jobs,
    total: u32,
    /// `STATIC_FEATURES` per job, row-major (zeros when not given).
    static_features: Vec<f32>,
}

impl Trace {
    /// A trace of `jobs` (checked as the batch simulator checks them: errors
    /// name the trace's row) on `total` processors, with [`STATIC_FEATURES`]
    /// columns per job for [`Layout::RlScheduler`] (empty: zeros).
    ///
    /// # Errors
    /// As [`BatchSim::new`]; [`Error::InvalidArgument`] when
    /// `static_features` is neither empty nor `STATIC_FEATURES` per job.
    pub fn new(jobs: Jobs, total: u32, static_features: Vec<f32>) -> Result<Self> {
        let n = jobs.len();
        // The batch simulator's checks, once for the whole trace.
        BatchSim::new(jobs.clone(), total, Priority::Arrival)?;
        let static_features = if static_features.is_empty() {
            vec![0.0; n * STATIC_FEATURES]
        } else if static_features.len() == n * STATIC_FEATURES {
            static_features
        } else {
            return Err(Error::InvalidArgument(format!(
                "static_features has {} values, must be {STATIC_FEATURES} per job ({})",
                static_features.len(),
                n * STATIC_FEATURES
            )));
        };
        Ok(Trace {
            jobs,
            total,
            static_features,
        })
    }

    /// Number of jobs.
    pub fn len(&self) -> usize {
        self.jobs.len()
    }

    /// True when there is no job.
    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    /// Processors of the machine.
    pub fn total(&self) -> u32 {
        self.total
    }

    /// The jobs of rows `first..first + n`.
    fn window(&self, first: usize, n: usize) -> Jobs {
        let rows = first..first + n;
        Jobs {
            submit: self.jobs.submit[rows.clone()].to_vec(),
            runtime: self.jobs.runtime[rows.clone()].to_vec(),
            estimate: self.jobs.estimate[rows.clone()].to_vec(),
            width: self.jobs.width[rows].to_vec(),
        }
    }
}

/// What one step did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outcome {
    /// The step's reward.
    pub reward: f64,
    /// Whether every job of the window has started.
    pub terminated: bool,
    /// Whether the action named a waiting job.
    pub legal: bool,
}

/// The figures of an episode so far (of all of its jobs once it is over),
/// computed as `clustersched.batch.metrics` computes them.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct EpisodeMetrics {
    /// Mean bounded slowdown of the started jobs.
    pub bounded_slowdown: f64,
    /// Mean wait of the started jobs (s).
    pub wait: f64,
    /// Busy processor-seconds over processors times the makespan.
    pub utilization: f64,
    /// Last end minus first submit (s).
    pub makespan: f64,
}

/// One episode: a window of a trace on its own [`BatchSim`].
#[derive(Debug, Clone)]
pub struct Episode {
    trace: Arc<Trace>,
    config: Config,
    /// The window's first row in the trace.
    first: usize,
    sim: BatchSim,
    /// The waiting jobs the agent sees (window rows), slot by slot.
    visible: Vec<u32>,
    /// Jobs a backfilling pass started (reused buffer).
    launched: Vec<u32>,
    started: usize,
    bounded_slowdown_sum: f64,
    wait_sum: f64,
    work: f64,
    last_end: f64,
    done: bool,
    decisions: u64,
    illegal: u64,
}

impl Episode {
    /// The episode of rows `first..first + config.window` of `trace`, at its first decision point.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a bad `config` or a window past the trace's end.
    pub fn new(trace: Arc<Trace>, config: Config, first: usize) -> Result<Self> {
        config.check()?;
        let sim = BatchSim::new(Jobs::default(), trace.total, Priority::Arrival)?;
        let mut episode = Episode {
            trace,
            config,
            first,
            sim,
            visible: Vec::with_capacity(config.slots),
            launched: Vec::new(),
            started: 0,
            bounded_slowdown_sum: 0.0,
            wait_sum: 0.0,
            work: 0.0,
            last_end: f64::NEG_INFINITY,
            done: false,
            decisions: 0,
            illegal: 0,
        };
        episode.reset(first)?;
        Ok(episode)
    }

    /// Starts over on the window of rows `first..first + window`, at its first decision point.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the window passes the trace's end.
    pub fn reset(&mut self, first: usize) -> Result<()> {
        let (n, len) = (self.config.window, self.trace.len());
        if first.checked_add(n).is_none_or(|end| end > len) {
            return Err(Error::InvalidArgument(format!(
                "first == {first}, must be between 0 and {} (a window of {n} jobs in a trace of {len})",
                len.saturating_sub(n)
            )));
        }
        self.sim = BatchSim::new(self.trace.window(first, n), self.trace.total, Priority::Arrival)?;
        self.first = first;
        self.started = 0;
        self.bounded_slowdown_sum = 0.0;
        self.wait_sum = 0.0;
        self.work = 0.0;
        self.last_end = f64::NEG_INFINITY;
        self.done = false;
        self.decisions = 0;
        self.illegal = 0;
        self.advance_to_decision();
        Ok(())
    }

    /// Plays `action` (a slot) at the current decision point.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the episode is over.
    pub fn step(&mut self, action: i64) -> Result<Outcome> {
        if self.done {
            return Err(Error::InvalidArgument(
                "the episode is over (every job has started): reset it before stepping".into(),
            ));
        }
        let Some(slot) = usize::try_from(action).ok().filter(|&s| s < self.visible.len()) else {
            self.illegal += 1;
            return Ok(Outcome {
                reward: -self.config.illegal_penalty,
                terminated: false,
                legal: false,
            });
        };
        self.decisions += 1;
        let before = self.cost_sum();
        self.start_when_it_fits(self.visible[slot]);
        self.advance_to_decision();
        let n = self.config.window as f64;
        let reward = if self.config.dense {
            -(self.cost_sum() - before) / n
        } else if self.done {
            -self.cost()
        } else {
            0.0
        };
        Ok(Outcome {
            reward,
            terminated: self.done,
            legal: true,
        })
    }

    /// The episode's cost so far (its whole cost once it is over).
    pub fn cost(&self) -> f64 {
        let m = self.metrics();
        match self.config.cost {
            Cost::BoundedSlowdown => m.bounded_slowdown,
            Cost::Wait => m.wait,
            Cost::Utilization => 1.0 - m.utilization,
        }
    }

    /// The sum over the started jobs whose mean is the cost (0 for utilization).
    fn cost_sum(&self) -> f64 {
        match self.config.cost {
            Cost::BoundedSlowdown => self.bounded_slowdown_sum,
            Cost::Wait => self.wait_sum,
            Cost::Utilization => 0.0,
        }
    }

    /// The figures of the jobs started so far, over the whole window once it is over.
    pub fn metrics(&self) -> EpisodeMetrics {
        if self.started == 0 {
            return EpisodeMetrics::default();
        }
        let n = self.started as f64;
        let makespan = self.last_end - self.sim.jobs().submit[0];
        EpisodeMetrics {
            bounded_slowdown: self.bounded_slowdown_sum / n,
            wait: self.wait_sum / n,
            utilization: if makespan > 0.0 {
                self.work / (f64::from(self.trace.total) * makespan)
            } else {
                0.0
            },
            makespan,
        }
    }

    /// The picked job starts once it fits; while it waits, time moves from
    /// event to event, and under EASY the others backfill around it.
    fn start_when_it_fits(&mut self, job: u32) {
        let width = self.sim.jobs().width[job as usize];
        loop {
            if width <= self.sim.machine().free() {
                self.sim.queue_mut().remove(job);
                self.sim.launch(job);
                self.record(job);
                return;
            }
            if self.config.backfill == Backfill::Easy {
                let reserved = Waiting {
                    job,
                    rank: self.sim.queue().rank_of(job),
                    width,
                    estimate: self.sim.jobs().estimate[job as usize],
                };
                let from = self.sim.queue().head().map_or(0, |h| h.rank as usize);
                let mut launched = std::mem::take(&mut self.launched);
                launched.clear();
                easy_backfill_around(&mut self.sim, reserved, from, |j| launched.push(j));
                for &j in &launched {
                    self.record(j);
                }
                self.launched = launched;
            }
            // The picked job does not fit, so a job runs and its end is an event.
            if self.sim.advance().is_none() {
                return;
            }
        }
    }

    /// Adds started job `job`'s figures, as `batch_metrics` computes them from
    /// the schedule (`end = start + runtime`, then `runtime = end - start`).
    fn record(&mut self, job: u32) {
        let j = job as usize;
        let jobs = self.sim.jobs();
        let (submit, width) = (jobs.submit[j], f64::from(jobs.width[j]));
        let start = self.sim.starts()[j];
        let end = start + jobs.runtime[j];
        let (wait, runtime) = (start - submit, end - start);
        let response = wait + runtime;
        self.bounded_slowdown_sum += (response / runtime.max(self.config.tau)).max(1.0);
        self.wait_sum += wait;
        self.work += runtime * width;
        self.last_end = self.last_end.max(end);
        self.started += 1;
    }

    /// Moves to the next time stamp where a job waits (or to the end).
    fn advance_to_decision(&mut self) {
        while self.sim.queue().is_empty() {
            if self.started == self.config.window || self.sim.advance().is_none() {
                self.done = true;
                break;
            }
        }
        self.visible.clear();
        self.sim.queue().first_jobs(self.config.slots, &mut self.visible);
    }

    /// Writes the observation (`slots x FEATURES`, row-major) and the mask of
    /// legal slots (`slots`).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when a buffer has the wrong length.
    pub fn observe(&self, obs: &mut [f32], mask: &mut [bool]) -> Result<()> {
        let k = self.config.slots;
        if obs.len() != k * FEATURES || mask.len() != k {
            return Err(Error::InvalidArgument(format!(
                "observation buffers of {} and {} values, must be {} and {k}",
                obs.len(),
                mask.len(),
                k * FEATURES
            )));
        }
        let jobs = self.sim.jobs();
        let now = self.sim.now();
        let total = f64::from(self.trace.total);
        let free = self.sim.machine().free();
        let c = &self.config;
        let queued = (self.sim.queue().len() as f64 / k as f64).min(1.0) as f32;
        for (slot, row) in obs.chunks_exact_mut(FEATURES).enumerate() {
            let Some(&job) = self.visible.get(slot) else {
                mask[slot] = false;
                row.copy_from_slice(match c.layout {
                    Layout::Clustersched => &[0.0; FEATURES],
                    Layout::RlScheduler => &[0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0],
                });
                continue;
            };
            mask[slot] = true;
            let j = job as usize;
            let (width, estimate) = (jobs.width[j], jobs.estimate[j]);
            let wait = (now - jobs.submit[j]) / c.max_wait;
            let run = estimate / c.max_run;
            let fits = width <= free;
            match c.layout {
                Layout::Clustersched => {
                    row[0] = wait.min(1.0) as f32;
                    row[1] = run.min(1.0) as f32;
                    row[2] = (f64::from(width) / total) as f32;
                    row[3] = (f64::from(free) / total) as f32;
                    row[4] = f32::from(u8::from(fits));
                    row[5] = (f64::from(width) / total * run).min(1.0) as f32;
                    row[6] = queued;
                    row[7] = 1.0;
                }
                Layout::RlScheduler => {
                    let keep = |x: f64| (x as f32).clamp(0.0, 1.0 - RLSCHEDULER_EPS);
                    row[0] = keep(wait);
                    row[1] = keep(run);
                    row[2] = keep(f64::from(width) / total);
                    let g = (self.first + j) * STATIC_FEATURES;
                    row[3..7].copy_from_slice(&self.trace.static_features[g..g + STATIC_FEATURES]);
                    row[7] = if fits { 1.0 - RLSCHEDULER_EPS } else { RLSCHEDULER_EPS };
                }
            }
        }
        Ok(())
    }

    /// The slot `score` picks: the visible job of least score, ties to the lowest slot.
    pub fn pick(&self, score: Score) -> i64 {
        let jobs = self.sim.jobs();
        let now = self.sim.now();
        let value = |job: u32| -> f64 {
            let j = job as usize;
            let r = jobs.estimate[j].max(1.0);
            let n = f64::from(jobs.width[j]);
            let w = now - jobs.submit[j];
            match score {
                Score::Fcfs => 0.0,
                Score::Sjf => r,
                Score::Wfp3 => -(w / r).powi(3) * n,
                Score::Unicep => -w / (n.log2().max(1.0) * r),
                Score::F1 => r.log10() * n + 870.0 * jobs.submit[j].max(1.0).log10(),
            }
        };
        let mut best = (0, f64::INFINITY);
        for (slot, &job) in self.visible.iter().enumerate() {
            let v = value(job);
            if v < best.1 {
                best = (slot, v);
            }
        }
        best.0 as i64
    }

    /// Plays `score`'s pick at every decision to the end; returns the sum of the rewards.
    pub fn play(&mut self, score: Score) -> Result<f64> {
        let mut total = 0.0;
        while !self.done {
            total += self.step(self.pick(score))?.reward;
        }
        Ok(total)
    }

    /// Whether every job of the window has started.
    pub fn done(&self) -> bool {
        self.done
    }

    /// The window's first row in the trace.
    pub fn first(&self) -> usize {
        self.first
    }

    /// Waiting jobs the agent sees now (the legal slots are `0..visible()`).
    pub fn visible(&self) -> usize {
        self.visible.len()
    }

    /// Legal decisions made and illegal actions received.
    pub fn counts(&self) -> (u64, u64) {
        (self.decisions, self.illegal)
    }

    /// The simulation of the window (its rows are the window's, from 0).
    pub fn sim(&self) -> &BatchSim {
        &self.sim
    }

    /// The settings.
    pub fn config(&self) -> &Config {
        &self.config
    }
}

/// Many episodes stepped together (the vector environment), each reset in
/// place at the step after the one that ended it (gymnasium's "next step"
/// autoreset: that step's action is ignored, its reward is 0).
#[derive(Debug, Clone)]
pub struct Episodes {
    episodes: Vec<Episode>,
}

/// The output buffers of [`Episodes::step`], one entry (or row) per episode.
pub struct StepBuffers<'a> {
    /// Observations, `slots x FEATURES` per episode.
    pub obs: &'a mut [f32],
    /// Legal slots, `slots` per episode.
    pub mask: &'a mut [bool],
    /// Rewards.
    pub reward: &'a mut [f64],
    /// Whether the step ended the episode.
    pub terminated: &'a mut [bool],
    /// Whether the step reset the episode (its `next_first` was used).
    pub reset: &'a mut [bool],
    /// The ended episodes' [`EpisodeMetrics`] (bounded slowdown, wait,
    /// utilization, makespan), 4 per episode, left as they are elsewhere.
    pub metrics: &'a mut [f64],
}

impl Episodes {
    /// One episode per entry of `firsts`, all of `config`.
    ///
    /// # Errors
    /// As [`Episode::new`].
    pub fn new(trace: Arc<Trace>, config: Config, firsts: &[usize]) -> Result<Self> {
        let episodes = firsts
            .iter()
            .map(|&f| Episode::new(Arc::clone(&trace), config, f))
            .collect::<Result<Vec<_>>>()?;
        Ok(Episodes { episodes })
    }

    /// The episodes.
    pub fn episodes(&self) -> &[Episode] {
        &self.episodes
    }

    /// Episode `i`, mutable (to reset it).
    pub fn episode_mut(&mut self, i: usize) -> Option<&mut Episode> {
        self.episodes.get_mut(i)
    }

    /// Writes every episode's observation and mask.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for buffers of the wrong length.
    pub fn observe(&self, obs: &mut [f32], mask: &mut [bool]) -> Result<()> {
        let k = self.episodes.first().map_or(0, |e| e.config.slots);
        if obs.len() != self.episodes.len() * k * FEATURES || mask.len() != self.episodes.len() * k {
            return Err(Error::InvalidArgument(format!(
                "observation buffers of {} and {} values for {} episodes of {k} slots",
                obs.len(),
                mask.len(),
                self.episodes.len()
            )));
        }
        for ((e, o), m) in self
            .episodes
            .iter()
            .zip(obs.chunks_exact_mut(k * FEATURES))
            .zip(mask.chunks_exact_mut(k))
        {
            e.observe(o, m)?;
        }
        Ok(())
    }

    /// Steps every episode with its action; an episode over is reset on the
    /// window at `next_first[i]` instead (its action ignored, reward 0).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for arrays of the wrong length or a bad `next_first`.
    pub fn step(&mut self, actions: &[i64], next_first: &[usize], out: StepBuffers<'_>) -> Result<()> {
        let n = self.episodes.len();
        if actions.len() != n
            || next_first.len() != n
            || out.reward.len() != n
            || out.terminated.len() != n
            || out.reset.len() != n
            || out.metrics.len() != 4 * n
        {
            return Err(Error::InvalidArgument(format!(
                "{} actions, {} next windows for {n} episodes (and output arrays of n, n, n, 4n)",
                actions.len(),
                next_first.len()
            )));
        }
        let k = self.episodes.first().map_or(0, |e| e.config.slots);
        if out.obs.len() != n * k * FEATURES || out.mask.len() != n * k {
            return Err(Error::InvalidArgument(format!(
                "observation buffers of {} and {} values for {n} episodes of {k} slots",
                out.obs.len(),
                out.mask.len()
            )));
        }
        for (i, e) in self.episodes.iter_mut().enumerate() {
            if e.done {
                e.reset(next_first[i])?;
                out.reward[i] = 0.0;
                out.terminated[i] = false;
                out.reset[i] = true;
            } else {
                let o = e.step(actions[i])?;
                out.reward[i] = o.reward;
                out.terminated[i] = o.terminated;
                out.reset[i] = false;
                if o.terminated {
                    let m = e.metrics();
                    out.metrics[4 * i..4 * i + 4].copy_from_slice(&[
                        m.bounded_slowdown,
                        m.wait,
                        m.utilization,
                        m.makespan,
                    ]);
                }
            }
        }
        self.observe(out.obs, out.mask)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::{Builtin, Runner};

    fn trace(n: usize, total: u32) -> Arc<Trace> {
        // a loaded little machine: widths 1..=total, runs of 1..40 s, an arrival every 2 s
        let jobs = Jobs {
            submit: (0..n).map(|j| (2 * (j / 2)) as f64).collect(),
            runtime: (0..n).map(|j| ((j * 7) % 40 + 1) as f64).collect(),
            estimate: (0..n)
                .map(|j| ((j * 7) % 40 + 1) as f64 * (1.0 + (j % 3) as f64))
                .collect(),
            width: (0..n).map(|j| (j * 5 % total as usize) as u32 + 1).collect(),
        };
        Arc::new(Trace::new(jobs, total, Vec::new()).unwrap())
    }

    fn config(backfill: Backfill) -> Config {
        Config {
            window: 64,
            slots: 8,
            backfill,
            layout: Layout::Clustersched,
            cost: Cost::BoundedSlowdown,
            dense: false,
            max_wait: 43200.0,
            max_run: 43200.0,
            tau: 10.0,
            illegal_penalty: 0.0,
        }
    }

    #[test]
    fn picking_the_head_is_fcfs_and_easy() {
        let t = trace(200, 8);
        for (backfill, policy) in [(Backfill::None, Builtin::Fcfs), (Backfill::Easy, Builtin::Easy)] {
            for first in [0, 17, 136] {
                let mut e = Episode::new(Arc::clone(&t), config(backfill), first).unwrap();
                e.play(Score::Fcfs).unwrap();
                let mut sim = BatchSim::new(t.window(first, 64), 8, Priority::Arrival).unwrap();
                assert!(Runner::new(policy).run(&mut sim, None).unwrap());
                assert_eq!(e.sim().starts(), sim.starts(), "{policy:?} from {first}");
            }
        }
    }

    #[test]
    fn the_visible_slots_are_the_first_waiting_jobs() {
        // first_jobs walks the queue's leaves; it must agree with the queue's own order
        let mut e = Episode::new(trace(200, 8), config(Backfill::Easy), 40).unwrap();
        while !e.done() {
            let expected: Vec<u32> = e.sim().queue().iter().take(8).map(|w| w.job).collect();
            assert_eq!(e.visible, expected);
            let last = e.visible() as i64 - 1;
            e.step(last).unwrap();
        }
    }

    #[test]
    fn an_illegal_action_changes_nothing() {
        let mut e = Episode::new(trace(100, 8), config(Backfill::Easy), 0).unwrap();
        let (now, visible) = (e.sim().now(), e.visible());
        let o = e.step(8).unwrap();
        assert!(!o.legal && !o.terminated && o.reward == 0.0);
        assert_eq!((e.sim().now(), e.visible(), e.counts()), (now, visible, (0, 1)));
        assert!(e.step(-1).is_ok_and(|o| !o.legal));
    }

    #[test]
    fn dense_rewards_sum_to_the_sparse_one() {
        let t = trace(150, 8);
        let mut sparse = Episode::new(Arc::clone(&t), config(Backfill::Easy), 30).unwrap();
        let dense_config = Config {
            dense: true,
            ..config(Backfill::Easy)
        };
        let mut dense = Episode::new(t, dense_config, 30).unwrap();
        let (a, b) = (sparse.play(Score::Wfp3).unwrap(), dense.play(Score::Wfp3).unwrap());
        assert!((a - b).abs() <= 1e-9 * a.abs(), "{a} {b}");
        assert!(sparse.step(0).is_err());
    }

    #[test]
    fn every_job_starts_once_whatever_the_picks() {
        let t = trace(300, 8);
        for score in [Score::Sjf, Score::Wfp3, Score::Unicep, Score::F1] {
            let mut e = Episode::new(Arc::clone(&t), config(Backfill::None), 100).unwrap();
            e.play(score).unwrap();
            assert!(e.sim().starts().iter().all(|s| s.is_finite()));
            assert_eq!(e.counts().0, 64, "one decision per job without backfilling");
        }
    }

    #[test]
    fn bad_windows_and_settings_are_refused() {
        let t = trace(100, 8);
        assert!(Episode::new(Arc::clone(&t), config(Backfill::None), 37).is_err());
        let bad = Config {
            dense: true,
            cost: Cost::Utilization,
            ..config(Backfill::None)
        };
        assert!(Episode::new(Arc::clone(&t), bad, 0).is_err());
        let mut v = Episodes::new(t, config(Backfill::None), &[0, 5]).unwrap();
        let (mut obs, mut mask) = (vec![0.0; 2 * 8 * FEATURES], vec![false; 16]);
        let (mut r, mut d, mut s, mut m) = (vec![0.0; 2], vec![false; 2], vec![false; 2], vec![0.0; 8]);
        let out = StepBuffers {
            obs: &mut obs,
            mask: &mut mask,
            reward: &mut r,
            terminated: &mut d,
            reset: &mut s,
            metrics: &mut m,
        };
        assert!(v.step(&[0], &[0, 0], out).is_err());
    }
}
