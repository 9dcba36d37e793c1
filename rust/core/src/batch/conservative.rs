//! Conservative backfilling (Mu'alem & Feitelson 2001; the DPSA paper §II),
//! with reservations kept from one event to the next.

use super::profile::{occupied_until, Profile};
use super::reservations::{Bounds, Reserved, Reservations};
use super::sim::BatchSim;
use crate::time::Time;

/// Conservative backfilling: every waiting job holds a reservation, the
/// earliest start at which its processors stay free for its estimate given
/// the running jobs and the reservations made before it; a job starts when
/// its reservation is now.
///
/// The rule, as the slow reference (`tests/reference/batch.py`) states it,
/// re-places at every time stamp every waiting job on a fresh profile, in
/// order of its previous reservation (new arrivals last, in queue order;
/// ties in queue order). That never moves a reservation later: a job's old
/// slot is still free, since jobs placed before it only moved earlier and a
/// job that ends sooner takes nothing new from a slot starting later. So no
/// job ever starts after the first reservation it was given.
///
/// This implementation keeps the profile ([`Profile`]) and the reservations
/// ([`Reservations`]) between events and gives the same reservations, job for
/// job, while touching only what can change:
/// - a job reserved at `p` can be placed earlier on the full profile exactly
///   when it could be on the profile of the jobs placed before it (later
///   reservations start at or after `p`, and over its own old slot the job
///   finds what it had); so after each pass no reservation can move, and the
///   re-placement in reservation order is a *compression* that visits the
///   reservations in that order and moves those that can;
/// - a reservation can move only into time where processors were *freed*
///   since the last pass: by a job ending before its estimate, or by a
///   reservation that moved this pass (the part of its old slot it left).
///   It moves exactly when the step just before its start has room for it
///   (then that step is freed time), or a whole window of its estimate fits
///   before its start in a run of steps touching freed time;
/// - subtrees of reservations are skipped when their least width and
///   estimate could not use freed time before their latest start.
///
/// Arrivals are placed once, at the end of the pass; a user policy that
/// starts jobs itself invalidates the kept state, which is then rebuilt by
/// the rule above from scratch.
#[derive(Debug, Clone)]
pub struct Conservative {
    profile: Profile,
    reservations: Reservations,
    /// Current reservation of each job (NaN if none).
    planned: Vec<f64>,
    /// The simulation's arrived / completed / started counts after the last pass.
    arrived: usize,
    completed: usize,
    started: Option<usize>,
    /// Where processors were freed since the last pass: sorted, disjoint intervals.
    freed: Vec<(f64, f64)>,
}

impl Conservative {
    /// State for a simulation of `jobs` jobs.
    pub fn new(jobs: usize) -> Self {
        Conservative {
            profile: Profile::new(0.0, 0),
            reservations: Reservations::default(),
            planned: vec![f64::NAN; jobs],
            arrived: 0,
            completed: 0,
            started: None,
            freed: Vec::new(),
        }
    }

    /// One pass at the simulation's current time stamp.
    pub(crate) fn schedule(&mut self, sim: &mut BatchSim) {
        if self.started != Some(sim.started()) || self.planned.len() != sim.jobs().len() {
            self.rebuild(sim);
        } else {
            self.update(sim);
        }
        self.arrived = sim.arrived();
        self.completed = sim.completed().len();
        self.started = Some(sim.started());
        self.freed.clear();
    }

    /// The rule from scratch: a profile from the running jobs, then every
    /// waiting job placed in order of its previous reservation.
    fn rebuild(&mut self, sim: &mut BatchSim) {
        let now = sim.now();
        let machine = sim.machine();
        self.profile = Profile::new(now, machine.total());
        for (Time(end), _, width) in machine.running() {
            self.profile.add(now, end, -i64::from(width));
        }
        self.reservations.clear();
        self.planned.resize(sim.jobs().len(), f64::NAN);
        let mut waiting: Vec<_> = sim.queue().iter().collect();
        let planned = &self.planned;
        let key = |job: u32| {
            let t = planned[job as usize];
            if t.is_nan() { f64::INFINITY } else { t }
        };
        waiting.sort_by(|a, b| key(a.job).total_cmp(&key(b.job)).then(a.rank.cmp(&b.rank)));
        for w in waiting {
            self.place(sim, w.job, w.rank);
        }
    }

    fn update(&mut self, sim: &mut BatchSim) {
        let now = sim.now();
        self.profile.trim(now);
        let jobs = sim.jobs();
        for &job in &sim.completed()[self.completed..] {
            let j = job as usize;
            let start = sim.starts()[j];
            let from = (start + jobs.runtime[j]).max(now);
            let to = occupied_until(start, jobs.estimate[j]);
            if from < to {
                self.profile.add(from, to, i64::from(jobs.width[j]));
                add_interval(&mut self.freed, from, to);
            }
        }
        // Reservations due now come first in reservation order.
        while let Some(r) = self.reservations.first().filter(|r| r.start <= now) {
            if r.width > sim.machine().free() {
                break; // unreachable: the profile's first step is what is free now
            }
            self.reservations.remove(r.start, r.rank);
            self.launch(sim, r.job);
        }
        if !self.freed.is_empty() {
            self.compress(sim);
        }
        for job in self.arrived..sim.arrived() {
            let rank = sim.queue().rank_of(job as u32);
            if sim.queue().contains(job) {
                self.place(sim, job as u32, rank);
            }
        }
    }

    /// Places waiting job `job` at its earliest start and starts it if that is now.
    fn place(&mut self, sim: &mut BatchSim, job: u32, rank: u32) {
        let (width, estimate) = (sim.jobs().width[job as usize], sim.jobs().estimate[job as usize]);
        let start = self.profile.earliest(width, estimate);
        self.profile.add(start, occupied_until(start, estimate), -i64::from(width));
        self.settle(sim, Reserved { job, rank, start, width, estimate });
    }

    /// Records `r` as `r.job`'s reservation (already taken from the profile),
    /// starting the job if its reservation is now.
    fn settle(&mut self, sim: &mut BatchSim, r: Reserved) {
        self.planned[r.job as usize] = r.start;
        sim.reserve(r.job, r.start);
        if r.start == sim.now() && r.width <= sim.machine().free() {
            self.launch(sim, r.job);
        } else {
            self.reservations.insert(r);
        }
    }

    fn launch(&mut self, sim: &mut BatchSim, job: u32) {
        self.planned[job as usize] = f64::NAN;
        sim.queue_mut().remove(job);
        sim.launch(job);
    }

    /// Moves earlier, in reservation order, every reservation that can.
    fn compress(&mut self, sim: &mut BatchSim) {
        let mut after = None;
        loop {
            let (profile, freed) = (&self.profile, &self.freed);
            let found = self.reservations.find(
                after,
                &mut |b: &Bounds| may_move(profile, freed, b),
                &mut |r: &Reserved| can_move(profile, freed, r),
            );
            let Some(r) = found else { break };
            after = Some((r.start, r.rank));
            let (w, old_end) = (i64::from(r.width), occupied_until(r.start, r.estimate));
            self.reservations.remove(r.start, r.rank);
            self.profile.add(r.start, old_end, w);
            // The earliest start lies in a run of steps touching freed time
            // (anywhere else it would have fitted before this pass).
            let start = self
                .freed
                .iter()
                .take_while(|&&(from, _)| from < r.start)
                .filter_map(|&(from, to)| self.profile.earliest_run(r.width, r.estimate, from, to))
                .fold(r.start, f64::min);
            let new_end = occupied_until(start, r.estimate);
            self.profile.add(start, new_end, -w);
            add_interval(&mut self.freed, new_end.max(r.start), old_end);
            self.settle(sim, Reserved { start, ..r });
        }
    }
}

/// Whether reservation `r` may start earlier: the step just before its
/// start has room for it, or a window of its estimate that reaches into
/// freed time fits before its start (a window elsewhere would have been
/// taken at the last pass). Exact up to ties at interval ends, where it may
/// say yes: the job is then placed again where it was.
fn can_move(profile: &Profile, freed: &[(f64, f64)], r: &Reserved) -> bool {
    let w = i64::from(r.width);
    if profile.free_before(r.start).is_some_and(|free| free >= w) {
        return true;
    }
    freed
        .iter()
        .take_while(|&&(from, _)| from < r.start)
        .any(|&(from, to)| profile.window_meeting(r.width, r.estimate, from, to, r.start))
}

/// Whether some reservation with these bounds might start earlier: a
/// necessary condition for [`can_move`] on each of them (the narrowest and
/// shortest job, the latest start).
fn may_move(profile: &Profile, freed: &[(f64, f64)], b: &Bounds) -> bool {
    let w = i64::from(b.width);
    freed.iter().take_while(|&&(from, _)| from < b.last).any(|&(from, to)| {
        // Either way some time in [from, min(to, last)) has room for the
        // narrowest job: the one cheap test that rules out most intervals.
        profile.max_free(from, to.min(b.last)) >= w
            // the step before some start in (from, to] has room
            && (to >= b.first
                // or a window reaching into freed time fits before the latest start
                || profile.window_meeting(b.width, b.estimate, from, to, b.last))
    })
}

/// Adds `[from, to)` to a sorted list of disjoint intervals, merging those it touches.
fn add_interval(list: &mut Vec<(f64, f64)>, from: f64, to: f64) {
    if from >= to {
        return;
    }
    let first = list.partition_point(|&(_, end)| end < from);
    let last = list.partition_point(|&(start, _)| start <= to);
    if first == last {
        list.insert(first, (from, to));
    } else {
        let merged = (list[first].0.min(from), list[last - 1].1.max(to));
        list.splice(first..last, [merged]);
    }
}
