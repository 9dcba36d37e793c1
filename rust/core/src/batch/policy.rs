use super::queue::Waiting;
use super::sim::BatchSim;
use crate::time::Time;

/// The policies implemented in Rust. Both keep the waiting queue in arrival
/// order (ties by input order) and are invoked once per time stamp, after all
/// of that time stamp's completions and arrivals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builtin {
    /// First come, first served: start the queue head while it fits.
    Fcfs,
    /// EASY backfilling (Lifka 1995; DFRS paper §5.2, DPSA paper §II):
    /// FCFS, then a reservation for the head job at its shadow time, counted in
    /// processors (not tied to particular processors), then, in queue order,
    /// start every job that fits now and either ends by its estimate no later
    /// than the shadow time or needs no more than the extra processors (which
    /// shrink by the width of each such job started).
    Easy,
}

impl Builtin {
    /// Parses `"fcfs"` or `"easy"`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "fcfs" => Some(Builtin::Fcfs),
            "easy" => Some(Builtin::Easy),
            _ => None,
        }
    }

    pub(crate) fn schedule(self, sim: &mut BatchSim) {
        start_head_while_it_fits(sim);
        if self == Builtin::Easy {
            backfill_easy(sim);
        }
    }
}

fn start_head_while_it_fits(sim: &mut BatchSim) {
    while let Some(head) = sim.queue().head() {
        if head.width > sim.machine().free() {
            break;
        }
        sim.queue_mut().remove(head.job);
        sim.launch(head.job);
    }
}

fn backfill_easy(sim: &mut BatchSim) {
    let Some(head) = sim.queue().head() else { return };
    let now = sim.now();
    let Some((shadow, mut extra)) = sim.machine().shadow(Time(now), head.width) else {
        return; // unreachable: widths are checked to fit the machine
    };
    let mut free = sim.machine().free();
    let mut from = sim.backfill_scan_start(head.job as usize);
    while free > 0 {
        // The first job in queue order that EASY may start now.
        let may_start = |w: u32, estimate: f64| w <= free && (now + estimate <= shadow.0 || w <= extra);
        let Some(Waiting { job, width: w, estimate }) = sim.queue().first_from(from, may_start) else { break };
        if now + estimate > shadow.0 {
            extra -= w;
        }
        sim.queue_mut().remove(job);
        sim.launch(job);
        free -= w;
        from = job as usize + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::Jobs;

    fn run(policy: Builtin, jobs: &[(f64, f64, u32)], total: u32) -> Vec<f64> {
        let jobs = Jobs {
            submit: jobs.iter().map(|j| j.0).collect(),
            runtime: jobs.iter().map(|j| j.1).collect(),
            estimate: jobs.iter().map(|j| j.1).collect(),
            width: jobs.iter().map(|j| j.2).collect(),
        };
        let mut sim = BatchSim::new(jobs, total).unwrap();
        assert!(sim.run(policy, None));
        sim.starts().to_vec()
    }

    // 4 processors: job 0 holds 3 until t=10; job 1 (4 wide) waits for it;
    // job 2 (1 wide, 5 s) ends before the shadow time and backfills under EASY only;
    // job 3 (1 wide, 100 s) would delay job 1 and must wait.
    const W: [(f64, f64, u32); 4] = [(0.0, 10.0, 3), (1.0, 5.0, 4), (2.0, 5.0, 1), (3.0, 100.0, 1)];

    #[test]
    fn fcfs_keeps_order() {
        assert_eq!(run(Builtin::Fcfs, &W, 4), vec![0.0, 10.0, 15.0, 15.0]);
    }

    #[test]
    fn easy_backfills_only_what_keeps_the_reservation() {
        assert_eq!(run(Builtin::Easy, &W, 4), vec![0.0, 10.0, 2.0, 15.0]);
    }

    #[test]
    fn easy_uses_extra_processors_for_long_jobs() {
        // 5 processors; the head needs 4 at t=10 when 5 are free: 1 extra.
        // The first long 1-wide job takes it; the second finds none left.
        let w = [(0.0, 10.0, 3), (1.0, 5.0, 4), (2.0, 50.0, 1), (2.0, 50.0, 1)];
        assert_eq!(run(Builtin::Easy, &w, 5), vec![0.0, 10.0, 2.0, 15.0]);
    }

    #[test]
    fn zero_runtime_jobs_complete_at_their_start() {
        let w = [(0.0, 0.0, 4), (0.0, 0.0, 4), (0.0, 3.0, 4)];
        assert_eq!(run(Builtin::Easy, &w, 4), vec![0.0, 0.0, 0.0]);
    }
}
