//! The built-in policies on a cluster of nodes: the processor pool's rules
//! (`policy.rs`), with "fits" read as "the placement rule finds nodes for it"
//! ([`Nodes::place`](super::nodes::Nodes::place)) and reservations held node
//! by node, in every resource.

use super::nodes::{Free, FreeIndex, Offer, Placement, Request};
use super::profile::occupied_until;
use super::sim::BatchSim;
use crate::time::Time;

/// FCFS: starts the queue head while the placement rule finds it nodes.
/// `placement` is scratch (as in the other passes).
pub(crate) fn start_head_while_it_fits(sim: &mut BatchSim, placement: &mut Placement) {
    while let Some(head) = sim.queue().head() {
        if sim.refused_unchanged(head.job) {
            break; // it did not fit at the last pass, and nothing was freed since
        }
        if !nodes_of(sim).place_now_into(head.job as usize, placement) {
            break;
        }
        sim.queue_mut().remove(head.job);
        sim.launch_on(head.job, placement);
    }
}

/// SJF's pass: every waiting job that fits, in queue order.
pub(crate) fn start_whatever_fits_in_order(sim: &mut BatchSim, placement: &mut Placement) {
    let (mut from, mut screen) = (0, Screen::default());
    loop {
        let free = sim.free_cores();
        let Some(job) = sim.queue().first_from(from, |w, _| u64::from(w) <= free) else {
            break;
        };
        from = job.rank as usize + 1;
        let machine = nodes_of(sim);
        let request = *machine.request(job.job as usize);
        if !screen.may_fit(&request) {
            continue;
        }
        if machine.place_now_into(job.job as usize, placement) {
            sim.queue_mut().remove(job.job);
            sim.launch_on(job.job, placement);
            screen.shrank();
        } else {
            screen.refuse(request, || machine.offer_now());
        }
    }
}

/// What a pass knows of a state that only shrinks until the pass ends (the
/// pass starts jobs; nothing ends meanwhile), to pass over a job that cannot
/// fit there without a placement: the requests the placement rule refused
/// there, since a job asking at least what one of them asked
/// ([`Request::asks_at_least`]) finds no nodes either, and, once one was
/// refused, what the state offers in all ([`Offer`], counted again after it
/// shrinks). A scan of a queue whose jobs wait for memory, not cores, would
/// otherwise place nearly every job it reaches in vain (a placement looks at
/// every node with a free core).
#[derive(Debug, Clone, Default)]
pub(crate) struct Screen {
    offer: Option<Offer>,
    refused: Vec<Request>,
}

impl Screen {
    /// Refusals kept: the latest, none covering another.
    const KEPT: usize = 8;

    /// Forgets the state: a new pass.
    fn clear(&mut self) {
        self.offer = None;
        self.refused.clear();
    }

    /// What the state offers, `count`ed if it is not known.
    fn offer(&mut self, count: impl FnOnce() -> Offer) -> Offer {
        *self.offer.get_or_insert_with(count)
    }

    /// Whether `r` may fit, by what is known.
    fn may_fit(&self, r: &Request) -> bool {
        self.offer.is_none_or(|offer| offer.may_hold(r)) && !self.refused.iter().any(|refused| r.asks_at_least(refused))
    }

    /// The placement rule refused `r` (`count` as for [`Screen::offer`]):
    /// the offer is known from now on, until the state shrinks. (A pass
    /// that refuses none never counts it.)
    fn refuse(&mut self, r: Request, count: impl FnOnce() -> Offer) {
        self.offer(count);
        self.refused.retain(|refused| !refused.asks_at_least(&r)); // r covers them from now on
        if self.refused.len() == Self::KEPT {
            self.refused.remove(0);
        }
        self.refused.push(r);
    }

    /// A job was placed: the state offers less.
    fn shrank(&mut self) {
        self.offer = None;
    }
}

/// EASY's backfilling on nodes: the head's reservation is its placement at
/// its shadow time ([`NodeMachine::shadow`](super::nodes::NodeMachine::shadow));
/// in queue order, a job starts now if it fits now and either ends by its
/// estimate no later than the shadow time, or fits on what is free both now
/// and at the shadow time beyond the head's placement, node by node and in
/// every resource (the pool's "extra processors", per node). Each such long
/// job's share comes off that extra. With `arrivals_only`, only the jobs
/// that arrived at this time stamp are looked at (EASY at arrival).
///
/// The shadow time is kept in `cache` with the head and the nodes' version it
/// was computed for: it is the same while no job starts or ends (the running
/// jobs, hence the releases it walks, are unchanged).
pub(crate) fn backfill_easy(sim: &mut BatchSim, arrivals_only: bool, cache: &mut EasyCache, placement: &mut Placement) {
    let Some(head) = sim.queue().head() else {
        return;
    };
    let now = sim.now();
    let mut from = if arrivals_only {
        sim.arrivals_scan_start(head.rank as usize)
    } else {
        sim.backfill_scan_start(head.rank as usize)
    };
    // With the head's reservation recorded, the shadow only matters to a job that could start now; when
    // none has the cores (a full machine, the common case under load), it is not computed.
    if !sim.reservations()[head.job as usize].is_nan() {
        let free = sim.free_cores();
        if free == 0 || sim.queue().first_from(from, |w, _| u64::from(w) <= free).is_none() {
            return;
        }
    }
    let version = nodes_of(sim).version();
    let shadow_time = match cache.valid.take() {
        Some((job, v, time)) if job == head.job && v == version => time,
        _ => match nodes_of(sim).shadow_into(Time(now), head.job as usize, &mut cache.extra, &mut cache.index) {
            Some(time) => {
                cache.head_taken = false;
                time.0
            }
            None => return,
        },
    };
    sim.reserve(head.job, shadow_time);
    cache.now.clear();
    cache.within.clear();
    loop {
        let free = sim.free_cores();
        if free == 0 {
            break;
        }
        // Cores free now and beyond the head's placement: a long job needs at least its width of them. Until
        // a long job that may fit comes, the head is not placed at the shadow (most passes start short jobs
        // only, or none): any width passes, and the first long job found is looked at again once it is.
        let beyond = if cache.head_taken {
            let machine = nodes_of(sim);
            cache
                .within
                .offer(|| machine.offer_within(&cache.extra, &cache.index))
                .cores
        } else {
            u64::MAX
        };
        let may_fit = |width: u32, estimate: f64| {
            u64::from(width) <= free && (now + estimate <= shadow_time || u64::from(width) <= beyond)
        };
        let Some(w) = sim.queue().first_from(from, may_fit) else {
            break;
        };
        let short = now + w.estimate <= shadow_time;
        if !short && !cache.head_taken {
            nodes_of(sim).take_placement(head.job as usize, &mut cache.extra, &mut cache.index, placement);
            cache.head_taken = true;
            cache.within.shrank();
            continue;
        }
        from = w.rank as usize + 1;
        let machine = nodes_of(sim);
        let request = *machine.request(w.job as usize);
        // what is free now and beyond the shadow is less than what is free now: refused now, refused there
        if !cache.now.may_fit(&request) || (!short && !cache.within.may_fit(&request)) {
            continue;
        }
        let fits = if short {
            machine.place_now_into(w.job as usize, placement)
        } else {
            machine.place_within(w.job as usize, &cache.extra, &cache.index, placement)
        };
        if !fits {
            if short {
                cache.now.refuse(request, || machine.offer_now());
            } else {
                cache
                    .within
                    .refuse(request, || machine.offer_within(&cache.extra, &cache.index));
            }
            continue;
        }
        if !short {
            cache
                .extra
                .take_indexed(machine.nodes(), &mut cache.index, &placement.shares, &placement.gres);
        }
        sim.queue_mut().remove(w.job);
        sim.launch_on(w.job, placement);
        cache.now.shrank();
        cache.within.shrank();
    }
    // no job started: the shadow and its extra hold until one starts or ends
    if nodes_of(sim).version() == version {
        cache.valid = Some((head.job, version, shadow_time));
    }
}

/// EASY's shadow on nodes, kept between passes while it holds: its time and
/// what is free then ([`NodeMachine::shadow_into`]), that state's index, and
/// the head and nodes' version it was computed for (`valid`); the buffers
/// are reused by the next computation. `head_taken`: the head's placement
/// at the shadow time has been taken out of `extra` (it is, the first time
/// a long job may be backfilled), leaving the pool's "extra processors".
/// What a pass knows of what is free now, and of what is free within the
/// extra (`now`, `within`), is kept in reused buffers too.
#[derive(Debug, Clone, Default)]
pub(crate) struct EasyCache {
    valid: Option<(u32, u64, f64)>,
    extra: Free,
    index: FreeIndex,
    head_taken: bool,
    now: Screen,
    within: Screen,
}

/// Conservative backfilling on nodes: every waiting job holds a reservation,
/// a start time and the shares of its nodes, and never loses it to another
/// job; a job whose reservation is now starts.
///
/// At every pass the waiting jobs are taken in order of their reservation
/// (ties in queue order), each moved to the earliest time, no later than its
/// reservation, at which the placement rule finds it nodes on what every
/// other job of the plan (running jobs until their estimated ends, the other
/// reservations where they are now) leaves free for its whole estimate;
/// arrivals are then placed, in queue order, at the earliest such time.
/// "What is left free for its whole estimate" is, node by node and resource
/// by resource, the least free at any instant of the candidate's interval
/// (free resources change only where a planned job starts or ends).
/// Candidate times are now and the planned ends.
///
/// This is Mu'alem & Feitelson's conservative backfilling with compression
/// (jobs move earlier only where they delay no other reservation). The
/// processor pool's plan re-places each job on the jobs placed before it
/// only, which is the same plan there, since counts have no identity; on
/// nodes it is not: a job moved earlier may land on other nodes than before,
/// over the slot of a job placed after it. Keeping every other reservation
/// in view is what keeps the guarantee on nodes: a job's reservation only
/// ever moves earlier, so no job starts after the first one it was given
/// (its old slot stays free: every job moved before it avoided it).
///
/// Cost per pass grows with (waiting jobs) x (planned jobs)^2: fine for
/// clusters' queues of hundreds; the processor pool has the incremental plan.
#[derive(Debug, Clone, Default)]
pub(crate) struct NodeConservative {
    /// Current reservation of each job: its start and placement (None if none).
    slots: Vec<Option<(f64, Placement)>>,
}

struct Planned {
    job: u32,
    start: f64,
    end: f64,
    placement: Placement,
}

impl NodeConservative {
    pub(crate) fn schedule(&mut self, sim: &mut BatchSim) {
        let n = sim.jobs().len();
        if self.slots.len() != n {
            self.slots = vec![None; n];
        }
        let now = sim.now();
        let machine = nodes_of(sim);
        let kinds = machine.nodes().kinds;
        let idle = Free::idle(machine.nodes());
        let estimate = &sim.jobs().estimate;
        let mut plan: Vec<Planned> = machine
            .running()
            .iter()
            .map(|&(end, job)| {
                let (shares, gres) = machine.held(job as usize);
                Planned {
                    job,
                    start: now,
                    end: end.0,
                    placement: Placement {
                        shares: shares.to_vec(),
                        gres: gres.to_vec(),
                    },
                }
            })
            .collect();
        let mut reserved: Vec<(f64, u32, u32)> = Vec::new();
        let mut arrivals: Vec<u32> = Vec::new();
        for w in sim.queue().iter() {
            match &self.slots[w.job as usize] {
                Some((start, placement)) => {
                    reserved.push((*start, w.rank, w.job));
                    plan.push(Planned {
                        job: w.job,
                        start: *start,
                        end: occupied_until(*start, estimate[w.job as usize]),
                        placement: placement.clone(),
                    });
                }
                None => arrivals.push(w.job),
            }
        }
        reserved.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let order = reserved.iter().map(|&(_, _, job)| job).chain(arrivals.iter().copied());
        for job in order {
            let j = job as usize;
            let duration = estimate[j];
            let at = plan.iter().position(|p| p.job == job);
            let old = at.map(|i| plan.swap_remove(i));
            let latest = old.as_ref().map_or(f64::INFINITY, |o| o.start);
            let mut candidates: Vec<f64> = std::iter::once(now)
                .chain(plan.iter().map(|p| p.end).filter(|&e| e > now && e < latest))
                .collect();
            candidates.sort_by(f64::total_cmp);
            candidates.dedup();
            let found = candidates.into_iter().find_map(|t| {
                let room = room_throughout(&idle, kinds, &plan, t, duration);
                machine
                    .nodes()
                    .place(&room, machine.request(j))
                    .map(|placement| (t, placement))
            });
            let (start, placement) = match (found, old) {
                (Some(better), _) => better,
                (None, Some(old)) => (old.start, old.placement),
                (None, None) => unreachable!("a checked request fits once every planned job has ended"),
            };
            self.slots[j] = Some((start, placement.clone()));
            plan.push(Planned {
                job,
                start,
                end: occupied_until(start, duration),
                placement,
            });
        }
        let waiting: Vec<u32> = sim.queue().iter().map(|w| w.job).collect();
        for job in waiting {
            let start = self.slots[job as usize]
                .as_ref()
                .expect("every waiting job is planned")
                .0;
            sim.reserve(job, start);
            if start == now {
                let (_, placement) = self.slots[job as usize].take().expect("planned above");
                sim.queue_mut().remove(job);
                sim.launch_on(job, &placement);
            }
        }
    }
}

/// What every node has free at every instant a job of `duration` starting
/// at `t` holds its resources ([`occupied_until`]: a zero-length job holds
/// them at `t`), resource by resource: the least free over the instants
/// where planned jobs start (and `t` itself).
fn room_throughout(idle: &Free, kinds: usize, plan: &[Planned], t: f64, duration: f64) -> Free {
    let end = occupied_until(t, duration);
    let free_at = |s: f64| {
        let mut free = idle.clone();
        for p in plan.iter().filter(|p| p.start <= s && s < p.end) {
            free.take(kinds, &p.placement.shares, &p.placement.gres);
        }
        free
    };
    let mut room = free_at(t);
    for p in plan.iter().filter(|p| t < p.start && p.start < end) {
        room = room.meet(&free_at(p.start));
    }
    room
}

fn nodes_of(sim: &BatchSim) -> &super::nodes::NodeMachine {
    sim.nodes().expect("node policies run on simulations on nodes")
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::super::nodes::{Nodes, Request};
    use super::super::policy::{Builtin, Runner};
    use super::super::sim::{BatchSim, Jobs};

    fn one_node(cores: u32) -> Nodes {
        Nodes {
            cores: vec![cores],
            memory: vec![0],
            gres: vec![],
            kinds: 0,
            features: vec![0],
            weight: vec![1],
            partitions: vec![1],
        }
    }

    fn cores_only(width: u32) -> Request {
        Request {
            nodes: 1,
            tasks: width,
            cpus_per_task: 1,
            mem_per_cpu: 0,
            mem_per_node: 0,
            gres_per_node: 0,
            gres_kinds: 0,
            features: 0,
            partition: 0,
            exclusive: false,
        }
    }

    fn starts(jobs: &Jobs, policy: Builtin, nodes: Option<Nodes>, total: u32) -> (Vec<f64>, Vec<f64>) {
        let mut sim = match nodes {
            Some(nodes) => {
                let requests = jobs.width.iter().map(|&w| cores_only(w)).collect();
                BatchSim::on_nodes(jobs.clone(), nodes, requests, policy.priority()).unwrap()
            }
            None => BatchSim::new(jobs.clone(), total, policy.priority()).unwrap(),
        };
        assert!(Runner::new(policy).run(&mut sim, None).unwrap());
        // NaN (never reserved) as -1, so that the results compare with ==
        let r = sim
            .reservations()
            .iter()
            .map(|&x| if x.is_nan() { -1.0 } else { x })
            .collect();
        (sim.starts().to_vec(), r)
    }

    proptest! {
        /// One node with cores only is a processor pool: every policy but
        /// DPSA starts every job when the pool's does, and reserves it when
        /// the pool's does.
        #[test]
        fn one_node_is_the_processor_pool(
            raw in prop::collection::vec((0u32..6, 0u32..12, 1u32..4, 1u32..5), 1..40),
            total in 4u32..9,
        ) {
            let mut submit = 0.0;
            let mut jobs = Jobs::default();
            for &(gap, run, over, width) in &raw {
                submit += f64::from(gap);
                jobs.submit.push(submit);
                jobs.runtime.push(f64::from(run));
                jobs.estimate.push(f64::from(run * over));
                jobs.width.push(width.min(total));
            }
            for name in ["fcfs", "easy", "easy-arrival", "conservative", "sjf"] {
                let policy = Builtin::from_name(name).unwrap();
                let pool = starts(&jobs, policy, None, total);
                let node = starts(&jobs, policy, Some(one_node(total)), total);
                prop_assert_eq!(&pool.0, &node.0, "{} starts", name);
                if name != "conservative" {
                    // conservative's pool keeps only the first reservation it settled on
                    prop_assert_eq!(&pool.1, &node.1, "{} reservations", name);
                }
            }
        }
    }

    #[test]
    fn dpsa_is_refused_on_nodes() {
        let jobs = Jobs {
            submit: vec![0.0],
            runtime: vec![1.0],
            estimate: vec![1.0],
            width: vec![1],
        };
        let mut sim = BatchSim::on_nodes(jobs, one_node(2), vec![cores_only(1)], Builtin::Easy.priority()).unwrap();
        let err = Runner::new(Builtin::from_name("dpsa-p").unwrap()).run(&mut sim, None);
        assert!(err.is_err());
    }
}
