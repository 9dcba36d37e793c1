//! Conservative backfilling (Mu'alem & Feitelson 2001; the DPSA paper §II).

use super::profile::Profile;
use super::sim::BatchSim;

/// One pass of conservative backfilling: every waiting job holds a
/// reservation, and a job starts now only when its reservation is now.
///
/// At each time stamp the profile is rebuilt from the running jobs, and the
/// waiting jobs are placed again, each at the earliest time its processors
/// stay free for its estimate, in order of their previous reservation (jobs
/// without one, i.e. new arrivals, last; ties in queue order). Placing jobs
/// in that order never moves a reservation later: each job's old slot is
/// still free, since jobs placed before it could only move earlier and a job
/// that ends sooner takes nothing new from a slot starting later. So no job
/// ever starts after the first reservation it was given. (Zero-length jobs
/// hold their processors for an instant: see [`super::profile::occupied_until`].)
pub(crate) fn conservative(sim: &mut BatchSim) {
    let now = sim.now();
    let machine = sim.machine();
    let mut profile =
        Profile::new(now, machine.free(), machine.running().map(|(end, _, w)| (end.0.max(now), w)));
    let mut waiting: Vec<_> = sim.queue().iter().collect();
    waiting.sort_by(|a, b| {
        let (x, y) = (sim.planned(a.job), sim.planned(b.job));
        x.unwrap_or(f64::INFINITY).total_cmp(&y.unwrap_or(f64::INFINITY)).then(a.rank.cmp(&b.rank))
    });
    for job in waiting {
        let Some(start) = profile.earliest(job.width, job.estimate) else {
            continue; // unreachable: widths are checked to fit the machine
        };
        profile.reserve(start, job.width, job.estimate);
        sim.plan(job.job, start);
        // The profile's first step is what the machine has free, so a job
        // placed now fits; the width check only guards that invariant.
        if start == now && job.width <= sim.machine().free() {
            sim.queue_mut().remove(job.job);
            sim.launch(job.job);
        }
    }
}
