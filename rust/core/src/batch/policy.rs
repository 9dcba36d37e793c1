use std::time::Instant;

use super::conservative::Conservative;
use super::dpsa::{self, Candidate, DpsaConfig, DpsaVariant};
use super::node_policy::{self, NodeConservative};
use super::nodes::Placement;
use super::queue::{Priority, Waiting};
use super::sim::BatchSim;
use crate::error::{Error, Result};
use crate::time::Time;

/// The policies implemented in Rust, invoked once per time stamp after all
/// of that time stamp's completions and arrivals.
#[derive(Debug, Clone, Copy, PartialEq)]
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
    /// EASY that backfills a job only at the time stamp it arrives (DFRS
    /// paper §5.2, a reading of its baseline): FCFS, then EASY's reservation
    /// for the head, then EASY's rule applied only to the jobs submitted at
    /// this time stamp. A job that does not start at its arrival waits until
    /// it is the head: it is never backfilled later, when processors free up.
    EasyAtArrival,
    /// Conservative backfilling: a reservation for every waiting job, and a
    /// job starts early only into a hole that delays no reservation (see
    /// [`Conservative`]).
    Conservative,
    /// Shortest job first (DPSA paper §II): the queue ordered by estimate,
    /// every job that fits started in that order; no reservation, so no
    /// starvation control.
    Sjf,
    /// DPSA (DPSA paper §III): EASY's reservation for the head, then the
    /// subset of waiting jobs that keeps the most processors busy now.
    Dpsa(DpsaConfig),
}

impl Builtin {
    /// The name of every built-in policy, in the order tables list them: the
    /// one list the bindings, the Python package and the CLI read.
    pub const NAMES: [&'static str; 8] = [
        "fcfs",
        "easy",
        "easy-arrival",
        "conservative",
        "sjf",
        "dpsa-p",
        "dpsa-n",
        "dpsa-w",
    ];

    /// The policy called `name` (one of [`Builtin::NAMES`]), with DPSA's
    /// search bounds (see [`DpsaConfig::with_bounds`]).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an unknown name, a bad bound, or a bound
    /// given to a policy other than DPSA.
    pub fn from_name_with(name: &str, node_budget: Option<u64>, time_limit: Option<f64>) -> Result<Self> {
        let policy = Builtin::from_name(name).ok_or_else(|| {
            let names = Builtin::NAMES.map(|n| format!("'{n}'")).join(", ");
            Error::InvalidArgument(format!("policy == '{name}', must be one of {names}"))
        })?;
        match policy {
            Builtin::Dpsa(config) => Ok(Builtin::Dpsa(config.with_bounds(node_budget, time_limit)?)),
            _ if node_budget.is_some() || time_limit.is_some() => Err(Error::InvalidArgument(format!(
                "node_budget and time_limit bound DPSA's search; policy '{name}' has none"
            ))),
            other => Ok(other),
        }
    }

    /// The policy called `name` (one of [`Builtin::NAMES`]; DPSA with the
    /// default budget), or `None`.
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "fcfs" => Builtin::Fcfs,
            "easy" => Builtin::Easy,
            "easy-arrival" => Builtin::EasyAtArrival,
            "conservative" => Builtin::Conservative,
            "sjf" => Builtin::Sjf,
            "dpsa-p" => Builtin::Dpsa(DpsaConfig::new(DpsaVariant::Priority)),
            "dpsa-n" => Builtin::Dpsa(DpsaConfig::new(DpsaVariant::Narrow)),
            "dpsa-w" => Builtin::Dpsa(DpsaConfig::new(DpsaVariant::Wide)),
            _ => return None,
        })
    }

    /// The queue order the policy works on.
    pub fn priority(&self) -> Priority {
        match self {
            Builtin::Sjf => Priority::ShortestEstimate,
            _ => Priority::Arrival,
        }
    }
}

/// A built-in policy with the state it keeps between passes (conservative
/// backfilling's reservations), driving a [`BatchSim`].
#[derive(Debug, Clone)]
pub struct Runner {
    policy: Builtin,
    conservative: Option<Conservative>,
    node_conservative: Option<NodeConservative>,
    /// EASY on nodes: the head's shadow time and the nodes' version it holds for.
    node_shadow: node_policy::EasyCache,
    /// Where the node policies place a job before they start it, reused.
    node_placement: Placement,
}

impl Runner {
    /// A runner of `policy`.
    pub fn new(policy: Builtin) -> Self {
        Runner {
            policy,
            conservative: None,
            node_conservative: None,
            node_shadow: node_policy::EasyCache::default(),
            node_placement: Placement::default(),
        }
    }

    /// The policy it runs.
    pub fn policy(&self) -> Builtin {
        self.policy
    }

    /// Runs the policy at the simulation's current time stamp. Fails when the
    /// policy needs another queue order than the simulation keeps.
    pub fn schedule(&mut self, sim: &mut BatchSim) -> Result<()> {
        if self.policy.priority() != sim.priority() {
            return Err(Error::InvalidArgument(format!(
                "policy {:?} needs a {:?} queue, this simulation keeps a {:?} queue",
                self.policy,
                self.policy.priority(),
                sim.priority()
            )));
        }
        if sim.nodes().is_some() {
            self.schedule_on_nodes(sim)?;
            sim.end_pass();
            return Ok(());
        }
        match self.policy {
            Builtin::Fcfs => start_head_while_it_fits(sim),
            Builtin::Easy => {
                start_head_while_it_fits(sim);
                backfill_easy(sim, Backfill::Waiting);
            }
            Builtin::EasyAtArrival => {
                start_head_while_it_fits(sim);
                backfill_easy(sim, Backfill::Arrivals);
            }
            Builtin::Conservative => self
                .conservative
                .get_or_insert_with(Conservative::default)
                .schedule(sim),
            Builtin::Sjf => start_whatever_fits_in_order(sim),
            Builtin::Dpsa(config) => {
                start_head_while_it_fits(sim);
                dpsa_fill(sim, &config);
            }
        }
        sim.end_pass();
        Ok(())
    }

    fn schedule_on_nodes(&mut self, sim: &mut BatchSim) -> Result<()> {
        match self.policy {
            Builtin::Fcfs => node_policy::start_head_while_it_fits(sim, &mut self.node_placement),
            Builtin::Easy | Builtin::EasyAtArrival => {
                node_policy::start_head_while_it_fits(sim, &mut self.node_placement);
                let arrivals_only = self.policy == Builtin::EasyAtArrival;
                node_policy::backfill_easy(sim, arrivals_only, &mut self.node_shadow, &mut self.node_placement);
            }
            Builtin::Conservative => self
                .node_conservative
                .get_or_insert_with(NodeConservative::default)
                .schedule(sim),
            Builtin::Sjf => node_policy::start_whatever_fits_in_order(sim, &mut self.node_placement),
            Builtin::Dpsa(_) => {
                return Err(Error::InvalidArgument(
                    "DPSA chooses among processor counts (its subset-sum search); it runs on a processor pool, \
                     not on nodes"
                        .into(),
                ))
            }
        }
        Ok(())
    }

    /// Runs the policy to the end, or for at most `max_events` more time
    /// stamps. Returns `true` when the simulation is finished.
    pub fn run(&mut self, sim: &mut BatchSim, max_events: Option<u64>) -> Result<bool> {
        self.run_until(sim, max_events, None)
    }

    /// [`Runner::run`] that also returns once the wall clock reaches `until`
    /// (checked after every time stamp), so that a caller can look at
    /// something else (the bindings: Python's signals) now and then, and go
    /// on with another call. Where it pauses never changes the schedule.
    pub fn run_until(&mut self, sim: &mut BatchSim, max_events: Option<u64>, until: Option<Instant>) -> Result<bool> {
        let stop = max_events.map_or(u64::MAX, |m| sim.events().saturating_add(m));
        while sim.events() < stop {
            if sim.advance().is_none() {
                break;
            }
            self.schedule(sim)?;
            // a clock read costs ~25 ns, a time stamp at least ten times that
            if until.is_some_and(|t| Instant::now() >= t) {
                break;
            }
        }
        Ok(sim.finished())
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

fn start_whatever_fits_in_order(sim: &mut BatchSim) {
    let mut from = 0;
    loop {
        let free = sim.machine().free();
        let Some(job) = sim.queue().first_from(from, |w, _| w <= free) else {
            break;
        };
        sim.queue_mut().remove(job.job);
        sim.launch(job.job);
        from = job.rank as usize + 1;
    }
}

/// The head job's reservation: its shadow time and the extra processors then.
fn reserve_head(sim: &mut BatchSim) -> Option<(Waiting, f64, u32)> {
    let head = sim.queue().head()?;
    let (shadow, extra) = sim.machine().shadow(Time(sim.now()), head.width)?;
    sim.reserve(head.job, shadow.0);
    Some((head, shadow.0, extra))
}

/// The jobs EASY may backfill at a pass.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Backfill {
    /// Every waiting job but the head.
    Waiting,
    /// Only the jobs that arrived at this time stamp.
    Arrivals,
}

fn backfill_easy(sim: &mut BatchSim, which: Backfill) {
    let Some(head) = sim.queue().head() else {
        return;
    };
    let from = match which {
        Backfill::Waiting => sim.backfill_scan_start(head.rank as usize),
        Backfill::Arrivals => sim.arrivals_scan_start(head.rank as usize),
    };
    easy_backfill_around(sim, head, from, |_| {});
}

/// EASY's backfilling around a reservation for `reserved`, a waiting job that
/// does not fit now (the queue head for [`Builtin::Easy`]; the job an agent
/// picked in `crate::rl`): its shadow time and extra processors, then, in
/// queue order from rank `from`, every job that fits now and either ends by
/// its estimate no later than the shadow time or needs no more than the extra
/// processors (which shrink by the width of each such job started).
/// `launched` hears of each job started, in start order. `reserved` itself is
/// never started here: it needs more than the free processors.
pub(crate) fn easy_backfill_around(sim: &mut BatchSim, reserved: Waiting, from: usize, mut launched: impl FnMut(u32)) {
    let Some((shadow, mut extra)) = sim.machine().shadow(Time(sim.now()), reserved.width) else {
        return;
    };
    let shadow = shadow.0;
    sim.reserve(reserved.job, shadow);
    let now = sim.now();
    let mut free = sim.machine().free();
    let mut from = from;
    while free > 0 {
        // The first job in queue order that EASY may start now.
        let may_start = |w: u32, estimate: f64| w <= free && (now + estimate <= shadow || w <= extra);
        let Some(Waiting {
            job,
            rank,
            width: w,
            estimate,
        }) = sim.queue().first_from(from, may_start)
        else {
            break;
        };
        if now + estimate > shadow {
            extra -= w;
        }
        sim.queue_mut().remove(job);
        sim.launch(job);
        launched(job);
        free -= w;
        from = rank as usize + 1;
    }
}

/// Fig. 2 lines 8-12: the head's reservation, the eligible jobs (all waiting
/// jobs but the head that need no more than the free processors), the search,
/// and the start of the chosen subset.
///
/// The reservation holds the processors the head needs at its shadow time,
/// taken first from those that running jobs release by then, so that as many
/// currently free processors as possible stay unreserved: `min(free, extra)`
/// free processors are unreserved, the rest are reserved (the count-based
/// equivalent of EASY's rule).
fn dpsa_fill(sim: &mut BatchSim, config: &DpsaConfig) {
    let Some((head, shadow, extra)) = reserve_head(sim) else {
        return;
    };
    let now = sim.now();
    let free = sim.machine().free();
    if free == 0 {
        return;
    }
    let began = Instant::now();
    let unreserved = free.min(extra);
    // Of the waiting jobs that fit now, only the first `free / width` short
    // and the first `unreserved / width` long ones of each width can matter:
    // jobs of one width and kind are interchangeable, the search's tie rule
    // takes them in queue order, and no more fit together. Gathering just
    // those keeps a decision's cost independent of the queue's length.
    sim.index_queue_by_width();
    let (eligible, complete) = sim.queue().first_of_each_kind(
        free,
        head.job,
        |estimate| now + estimate <= shadow,
        |w| (free / w) as usize,
        |w| (unreserved / w) as usize,
    );
    if eligible.is_empty() {
        return;
    }
    let jobs: Vec<u32> = eligible.iter().map(|w| w.job).collect();
    let candidates: Vec<Candidate> = eligible
        .iter()
        .map(|w| Candidate {
            width: w.width,
            short: now + w.estimate <= shadow,
        })
        .collect();
    let chosen = dpsa::select_among(&candidates, complete, free - unreserved, unreserved, config);
    for &i in &chosen.chosen {
        sim.queue_mut().remove(jobs[i]);
        sim.launch(jobs[i]);
    }
    let stats = sim.stats_mut();
    stats.decisions += 1;
    stats.cut += u64::from(chosen.cut);
    stats.nodes += chosen.nodes;
    stats.max_nodes = stats.max_nodes.max(chosen.nodes);
    stats.decision_seconds.push(began.elapsed().as_secs_f64());
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
        let mut sim = BatchSim::new(jobs, total, policy.priority()).unwrap();
        assert!(Runner::new(policy).run(&mut sim, None).unwrap());
        for (j, (&s, &r)) in sim.starts().iter().zip(sim.reservations()).enumerate() {
            assert!(r.is_nan() || s <= r, "job {j} started at {s} after its reservation {r}");
        }
        sim.starts().to_vec()
    }

    // 4 processors: job 0 holds 3 until t=10; job 1 (4 wide) waits for it;
    // job 2 (1 wide, 5 s) ends before the shadow time and backfills under EASY only;
    // job 3 (1 wide, 100 s) would delay job 1 and must wait.
    const W: [(f64, f64, u32); 4] = [(0.0, 10.0, 3), (1.0, 5.0, 4), (2.0, 5.0, 1), (3.0, 100.0, 1)];

    #[test]
    fn every_name_parses_and_bounds_are_checked_once() {
        for name in Builtin::NAMES {
            assert!(Builtin::from_name(name).is_some(), "{name}");
        }
        assert!(Builtin::from_name("lifo").is_none());
        assert!(Builtin::from_name_with("dpsa-p", Some(0), None).is_err());
        assert!(Builtin::from_name_with("dpsa-p", None, Some(0.0)).is_err());
        assert!(Builtin::from_name_with("easy", Some(5), None).is_err());
        assert!(matches!(Builtin::from_name_with("dpsa-n", Some(5), None), Ok(Builtin::Dpsa(c)) if c.node_budget == 5));
    }

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
    fn easy_at_arrival_backfills_a_job_only_when_it_arrives() {
        // 4 processors: job 0 holds 3 until 10, job 1 (4 wide) waits for it,
        // job 2 (2 wide) arrives at 2 and cannot fit; job 3, 1 wide and 5 s,
        // arrives at 3 and backfills under both. Job 4 (1 wide, 1 s) arrives at
        // 4 when nothing is free; job 3 ends at 8 and frees a processor where
        // job 4 still ends by the shadow time: EASY backfills it at 8, EASY at
        // arrival does not (it waits behind jobs 1 and 2).
        let w = [
            (0.0, 10.0, 3),
            (1.0, 5.0, 4),
            (2.0, 5.0, 2),
            (3.0, 5.0, 1),
            (4.0, 1.0, 1),
        ];
        assert_eq!(run(Builtin::Easy, &w, 4), vec![0.0, 10.0, 15.0, 3.0, 8.0]);
        assert_eq!(run(Builtin::EasyAtArrival, &w, 4), vec![0.0, 10.0, 15.0, 3.0, 15.0]);
    }

    #[test]
    fn conservative_protects_every_reservation() {
        // job 3 (1 wide, 100 s) could start at t=3 under EASY only if it fit the
        // extra processors; conservative gives job 1 and job 2 reservations too.
        assert_eq!(run(Builtin::Conservative, &W, 4), vec![0.0, 10.0, 2.0, 15.0]);
        let w = [(0.0, 10.0, 2), (1.0, 10.0, 4), (2.0, 5.0, 1), (2.0, 30.0, 1)];
        // job 2 backfills (ends by 10); job 3 would delay job 1 at t=10.
        assert_eq!(run(Builtin::Conservative, &w, 4), vec![0.0, 10.0, 2.0, 20.0]);
    }

    #[test]
    fn sjf_orders_by_estimate() {
        let w = [(0.0, 10.0, 4), (1.0, 9.0, 4), (1.0, 1.0, 4), (1.0, 5.0, 4)];
        assert_eq!(run(Builtin::Sjf, &w, 4), vec![0.0, 16.0, 10.0, 11.0]);
    }

    #[test]
    fn dpsa_fills_the_hole_with_the_best_subset() {
        // The situation of Fig. 1 of the DPSA paper, on 5 processors: at t=2 a
        // 4-wide job ends, a 1-wide one runs until 7, and J1 (job 2) needs all 5.
        // EASY starts J2 (job 3, 3 wide) in the 4-processor hole; DPSA starts
        // J3 and J4 (jobs 4, 5, 2 wide each), which fill it.
        let w = [
            (0.0, 2.0, 4),
            (0.0, 7.0, 1),
            (1.0, 3.0, 5),
            (1.0, 5.0, 3),
            (1.0, 5.0, 2),
            (1.0, 5.0, 2),
        ];
        assert_eq!(run(Builtin::Easy, &w, 5), vec![0.0, 0.0, 7.0, 2.0, 10.0, 10.0]);
        for v in ["dpsa-p", "dpsa-n", "dpsa-w"] {
            assert_eq!(
                run(Builtin::from_name(v).unwrap(), &w, 5),
                vec![0.0, 0.0, 7.0, 10.0, 2.0, 2.0],
                "{v}"
            );
        }
    }

    #[test]
    fn pausing_the_run_changes_nothing() {
        let w: Vec<(f64, f64, u32)> = (0..200)
            .map(|j| (f64::from(j / 3), f64::from(j % 17 + 1), j % 4 + 1))
            .collect();
        let jobs = Jobs {
            submit: w.iter().map(|j| j.0).collect(),
            runtime: w.iter().map(|j| j.1).collect(),
            estimate: w.iter().map(|j| 2.0 * j.1).collect(),
            width: w.iter().map(|j| j.2).collect(),
        };
        for name in Builtin::NAMES {
            let policy = Builtin::from_name(name).unwrap();
            let mut whole = BatchSim::new(jobs.clone(), 4, policy.priority()).unwrap();
            assert!(Runner::new(policy).run(&mut whole, None).unwrap());
            let mut paused = BatchSim::new(jobs.clone(), 4, policy.priority()).unwrap();
            let mut runner = Runner::new(policy);
            let mut calls = 0;
            // a deadline already past: one time stamp per call
            while !runner.run_until(&mut paused, None, Some(Instant::now())).unwrap() {
                calls += 1;
                assert!(calls < 10_000);
            }
            assert_eq!(paused.starts(), whole.starts(), "{name}");
            assert_eq!(paused.events(), whole.events(), "{name}");
            assert!(calls + 1 >= whole.events() as usize, "{name}");
        }
    }

    #[test]
    fn zero_runtime_jobs_complete_at_their_start() {
        let w = [(0.0, 0.0, 4), (0.0, 0.0, 4), (0.0, 3.0, 4)];
        for policy in Builtin::NAMES {
            assert_eq!(
                run(Builtin::from_name(policy).unwrap(), &w, 4),
                vec![0.0, 0.0, 0.0],
                "{policy}"
            );
        }
    }
}
