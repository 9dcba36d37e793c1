//! Conservative backfilling (Mu'alem & Feitelson 2001; the DPSA paper §II),
//! with its plan kept from one event to the next.

use std::collections::BTreeSet;

use super::profile::{occupied_until, Profile};
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
/// Kept between events, the plan gives the same reservations, job for job,
/// with less work: after a pass no reservation can move earlier (a job that
/// fits earlier on the profile of the jobs placed before it was put there,
/// and later reservations start no earlier than it and leave it the room of
/// its own slot). Until some job ends before its estimate, nothing frees
/// processors in the future: time passing, jobs ending exactly at their
/// estimates and reserved jobs starting leave the profile as it was. So at
/// such time stamps the reserved jobs due now start and the arrivals are
/// placed on the kept profile; only a job ending early (or a user policy
/// starting jobs itself) makes the pass re-place every reservation by the
/// rule above.
#[derive(Debug, Clone, Default)]
pub struct Conservative {
    profile: Option<Profile>,
    /// Reservations of the waiting jobs as (start, rank, job), in reservation order.
    order: BTreeSet<(Time, u32, u32)>,
    /// Current reservation of each job (NaN if none).
    planned: Vec<f64>,
    /// The simulation's arrived / completed / started counts after the last pass.
    arrived: usize,
    completed: usize,
    started: usize,
}

impl Conservative {
    /// One pass at the simulation's current time stamp.
    pub(crate) fn schedule(&mut self, sim: &mut BatchSim) {
        let now = sim.now();
        if self.profile.is_none() || sim.started() != self.started || self.freed_since_last_pass(sim) {
            self.replan(sim);
        } else {
            self.profile.as_mut().expect("checked above").trim(now);
            while let Some(&(Time(start), rank, job)) = self.order.first() {
                if start > now || sim.jobs().width[job as usize] > sim.machine().free() {
                    break;
                }
                self.order.remove(&(Time(start), rank, job));
                self.launch(sim, job);
            }
            for job in self.arrived..sim.arrived() {
                if sim.queue().contains(job) {
                    self.place(sim, job as u32);
                }
            }
        }
        self.arrived = sim.arrived();
        self.completed = sim.completed().len();
        self.started = sim.started();
    }

    /// Whether a job completed since the last pass before the end of the
    /// interval it held on the profile.
    fn freed_since_last_pass(&self, sim: &BatchSim) -> bool {
        let jobs = sim.jobs();
        sim.completed()[self.completed..].iter().any(|&job| {
            let j = job as usize;
            let start = sim.starts()[j];
            start + jobs.runtime[j] < occupied_until(start, jobs.estimate[j])
        })
    }

    /// The rule from scratch: a profile from the running jobs, then every
    /// waiting job placed in order of its previous reservation.
    fn replan(&mut self, sim: &mut BatchSim) {
        let now = sim.now();
        let machine = sim.machine();
        self.profile =
            Some(Profile::new(now, machine.free(), machine.running().map(|(end, _, w)| (end.0.max(now), w))));
        self.planned.resize(sim.jobs().len(), f64::NAN);
        self.order.clear();
        let mut waiting: Vec<_> = sim.queue().iter().collect();
        let planned = &self.planned;
        let key = |job: u32| {
            let t = planned[job as usize];
            if t.is_nan() {
                f64::INFINITY
            } else {
                t
            }
        };
        waiting.sort_by(|a, b| key(a.job).total_cmp(&key(b.job)).then(a.rank.cmp(&b.rank)));
        for w in waiting {
            self.place(sim, w.job);
        }
    }

    /// Places waiting job `job` at its earliest start and starts it if that is now.
    fn place(&mut self, sim: &mut BatchSim, job: u32) {
        let (width, estimate) = (sim.jobs().width[job as usize], sim.jobs().estimate[job as usize]);
        let profile = self.profile.as_mut().expect("made by replan");
        let Some(start) = profile.earliest(width, estimate) else {
            return; // unreachable: widths are checked to fit the machine
        };
        profile.reserve(start, width, estimate);
        self.planned[job as usize] = start;
        sim.reserve(job, start);
        // The profile's first step is what the machine has free, so a job
        // placed now fits; the width check only guards that invariant.
        if start == sim.now() && width <= sim.machine().free() {
            self.launch(sim, job);
        } else {
            self.order.insert((Time(start), sim.queue().rank_of(job), job));
        }
    }

    fn launch(&mut self, sim: &mut BatchSim, job: u32) {
        self.planned[job as usize] = f64::NAN;
        sim.queue_mut().remove(job);
        sim.launch(job);
    }
}
