//! Conservative backfilling (Mu'alem & Feitelson 2001; the DPSA paper §II),
//! with its plan kept from one event to the next.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};
use std::ops::Bound::{Excluded, Included};

use super::profile::{occupied_until, Profile};
use super::reserved::ReservedJobs;
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
/// touching only the jobs that might move. After a pass every reservation
/// is *settled*: no start before it fits, on the profile of all jobs. (On
/// the profile of the jobs placed before it, as the rule says, nothing fits
/// earlier either: a start that does not fit is blocked at some instant
/// before the reservation, where the jobs placed after it, which start no
/// earlier, take nothing.) Time passing, jobs ending at their estimates,
/// reserved jobs starting and arrivals being placed never add free
/// processors, so settled jobs stay settled. Only a job ending before its
/// estimate (or a user policy starting jobs, which re-plans from scratch)
/// opens a hole, and moving a job earlier opens another where it was.
///
/// When a hole opens, a settled job can now start earlier only if the hole
/// unblocked it (see [`Self::might_move`]): either the instant just before
/// its reservation is in the hole and now has room for it, or the hole lies
/// before its reservation with room for it, for long enough, around it
/// (found with [`ReservedJobs::could_use`]). Those jobs are re-placed in
/// the rule's order, each on a profile where the jobs before it are
/// re-placed and the ones after it are not yet, but start no earlier, so
/// take nothing it could use; every other job keeps its reservation, as the
/// rule would have found.
#[derive(Debug, Clone, Default)]
pub struct Conservative {
    profile: Option<Profile>,
    /// Reservations of the waiting jobs as (start, rank, job), in reservation order.
    order: BTreeSet<Key>,
    /// Current reservation of each job (NaN if none).
    planned: Vec<f64>,
    reserved: ReservedJobs,
    /// Jobs that might move, as their current keys: a min-heap in reservation order.
    might_move: BinaryHeap<Reverse<Key>>,
    /// The pass in which each job was last queued in `might_move` (a job
    /// is queued at most once a pass: only its own re-placement moves it).
    queued_in: Vec<u64>,
    pass: u64,
    /// Scratch of [`Self::find_movers`].
    found: Vec<u32>,
    /// The simulation's arrived / completed / started counts after the last pass.
    arrived: usize,
    completed: usize,
    started: usize,
}

type Key = (Time, u32, u32);

impl Conservative {
    /// One pass at the simulation's current time stamp.
    pub(crate) fn schedule(&mut self, sim: &mut BatchSim) {
        if self.profile.is_none() || sim.started() != self.started {
            self.replan(sim);
        } else {
            let now = sim.now();
            let profile = self.profile.as_mut().expect("checked above");
            profile.trim(now);
            // Due reservations start first: in the rule's order they come
            // before every job that can move (those start later than now).
            while let Some(&(Time(start), rank, job)) = self.order.first() {
                if start > now || sim.jobs().width[job as usize] > sim.machine().free() {
                    break;
                }
                self.order.remove(&(Time(start), rank, job));
                self.launch(sim, job);
            }
            self.pass += 1;
            if let Some((end, gained)) = self.release_early_ends(sim) {
                self.find_movers(sim, now, end, gained);
            }
            self.compress(sim);
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

    /// Gives back the rest of the interval each job that completed since the
    /// last pass held on the profile beyond now. Returns the hole they open
    /// together, as its end and the processors gained in all: at an instant
    /// of it, at most that many more are free than before.
    fn release_early_ends(&mut self, sim: &BatchSim) -> Option<(f64, u32)> {
        let (jobs, now) = (sim.jobs(), sim.now());
        let profile = self.profile.as_mut().expect("made by replan");
        let mut hole: Option<(f64, u32)> = None;
        for &job in &sim.completed()[self.completed..] {
            let j = job as usize;
            let held_until = occupied_until(sim.starts()[j], jobs.estimate[j]);
            if held_until > now {
                profile.release(now, held_until, jobs.width[j]);
                let (end, gained) = hole.unwrap_or((now, 0));
                hole = Some((end.max(held_until), gained + jobs.width[j]));
            }
        }
        hole
    }

    /// Queues the jobs that a hole of `gained` processors opened over
    /// `[start, end)` might let start earlier (a superset; see the type's
    /// documentation). A job the hole lets start earlier is one it
    /// unblocked: some instant of the hole had too few processors for it
    /// before. A hole is looked at as soon as it is on the profile, and
    /// before the next one opens, so the room around it includes the holes
    /// opened before it.
    fn find_movers(&mut self, sim: &BatchSim, start: f64, end: f64, gained: u32) {
        let profile = self.profile.as_ref().expect("made by replan");
        let jobs = sim.jobs();
        let mut found = std::mem::take(&mut self.found);
        found.clear();
        // The instant before the reservation is in the hole and now has room.
        let after = (Time(start), u32::MAX, u32::MAX);
        let until = (Time(end), u32::MAX, u32::MAX);
        for &(Time(at), _, job) in self.order.range((Excluded(after), Included(until))) {
            let (width, free) = (jobs.width[job as usize], profile.free_before(at));
            if free >= width && free < width + gained {
                found.push(job);
            }
        }
        // The hole has room for the job, long enough, before its reservation.
        let room = profile.room_around(start, end, self.reserved.narrowest());
        self.reserved.could_use(&room, gained, &mut found);
        for &job in &found {
            if self.queued_in[job as usize] != self.pass {
                self.queued_in[job as usize] = self.pass;
                // Out of the index while queued: later holes need not find it again.
                self.reserved.clear(job);
                let key = (Time(self.planned[job as usize]), sim.queue().rank_of(job), job);
                self.might_move.push(Reverse(key));
            }
        }
        self.found = found;
    }

    /// Re-places the jobs that might move, in reservation order; each move
    /// opens a hole where the job was, whose own candidates come later in
    /// that order.
    fn compress(&mut self, sim: &mut BatchSim) {
        let now = sim.now();
        while let Some(Reverse(key)) = self.might_move.pop() {
            let (Time(start), rank, job) = key;
            let (width, estimate) = (sim.jobs().width[job as usize], sim.jobs().estimate[job as usize]);
            let profile = self.profile.as_mut().expect("made by replan");
            let end = occupied_until(start, estimate);
            // Nothing earlier fits unless the instant before the reservation
            // has room (then a start just before it does) or a whole start
            // before it fits beside the reservation.
            if profile.free_before(start) < width && profile.earliest_before(width, estimate, start).is_none() {
                self.reserved.set(job, start, width, estimate);
                continue;
            }
            profile.release(start, end, width);
            let earlier = profile.earliest(width, estimate).expect("its own slot is free");
            profile.reserve(earlier, width, estimate);
            self.order.remove(&key);
            let vacated = occupied_until(earlier, estimate).max(start);
            if vacated < end {
                self.find_movers(sim, vacated, end, width);
            }
            self.settle(sim, job, rank, earlier, now);
        }
    }

    /// The rule from scratch: a profile from the running jobs, then every
    /// waiting job placed in order of its previous reservation.
    fn replan(&mut self, sim: &mut BatchSim) {
        let now = sim.now();
        let machine = sim.machine();
        self.profile = Some(Profile::new(
            now,
            machine.free(),
            machine.running().map(|(end, _, w)| (end.0.max(now), w)),
        ));
        self.planned.resize(sim.jobs().len(), f64::NAN);
        if self.reserved.jobs() == sim.jobs().len() {
            self.reserved.clear_all();
        } else {
            self.reserved = ReservedJobs::new(&sim.jobs().width, &sim.jobs().estimate);
        }
        self.queued_in.resize(sim.jobs().len(), 0);
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
        sim.reserve(job, start);
        let rank = sim.queue().rank_of(job);
        self.settle(sim, job, rank, start, sim.now());
    }

    /// Records `job`'s reservation at `start` (already on the profile), or
    /// starts it if that is now.
    fn settle(&mut self, sim: &mut BatchSim, job: u32, rank: u32, start: f64, now: f64) {
        // The profile's first step is what the machine has free, so a job
        // placed now fits; the width check only guards that invariant.
        let width = sim.jobs().width[job as usize];
        if start == now && width <= sim.machine().free() {
            self.launch(sim, job);
        } else {
            self.planned[job as usize] = start;
            self.reserved.set(job, start, width, sim.jobs().estimate[job as usize]);
            self.order.insert((Time(start), rank, job));
        }
    }

    fn launch(&mut self, sim: &mut BatchSim, job: u32) {
        self.planned[job as usize] = f64::NAN;
        self.reserved.clear(job);
        sim.queue_mut().remove(job);
        sim.launch(job);
    }
}
