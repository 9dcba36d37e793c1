//! List scheduling of allocated tasks of several PTGs onto concrete processors.

use std::cmp::{Ordering, Reverse};
use std::collections::{BTreeMap, BinaryHeap};
use std::ops::Bound::{Excluded, Unbounded};

use super::graph::{check_speed, PtgSet};
use super::schedule::TaskSchedule;
use crate::error::{Error, Result};
use crate::time::Time;

/// When a task may compete for processors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Readiness {
    /// As soon as all its predecessors are *placed* (classic list
    /// scheduling; with bottom-level priorities this is SELFISH's "sort by
    /// decreasing bottom level, schedule each task as early as possible").
    Placed,
    /// Only once all its predecessors have *completed* at the current time
    /// of the list (N'takpé & Suter's "list scheduling of ready tasks only",
    /// RR-7224 §4.3): the list keeps a clock `now`, starting at 0; the tasks
    /// whose predecessors all end by `now` compete by priority, and when none
    /// is left `now` moves to the earliest predecessor-completion time of a
    /// waiting task. So a task never competes with the successors of tasks
    /// that are still running, and even a short PTG can start at time 0.
    Completed,
}

/// Processors grouped by the time they become available: the state of the
/// best-fit placement rule every list scheduler shares (rule (b) of
/// `tests/reference/ptg.py::list_schedule`). One pool per cluster: the
/// heterogeneous list scheduling of SCRAP keeps one per cluster of the
/// platform, whose ids are global.
#[derive(Debug, Clone)]
pub(crate) struct Pool {
    /// The processors grouped by the time they become available, each
    /// group's ids increasing.
    avail: BTreeMap<Time, Vec<u32>>,
    /// Scratch: the processors chosen by the last [`Pool::select`], by group.
    taken: Vec<(Time, usize)>,
    /// The ids chosen by the last [`Pool::select`], increasing.
    pub(crate) chosen: Vec<u32>,
}

impl Pool {
    /// Processors `first..first + count`, all available at 0.
    pub(crate) fn new(first: u32, count: u32) -> Self {
        Pool {
            avail: BTreeMap::from([(Time(0.0), (first..first + count).collect())]),
            taken: Vec::new(),
            chosen: Vec::new(),
        }
    }

    /// Chooses `a` processors for a task ready at `r` (at most as many as
    /// the pool holds): first those available at or before `r` by
    /// *decreasing* availability (best fit), then the later ones by
    /// increasing availability, ties by increasing id. Returns the latest
    /// availability among them; [`Pool::chosen`] holds their ids, sorted.
    pub(crate) fn select(&mut self, a: usize, r: f64) -> f64 {
        self.taken.clear();
        self.chosen.clear();
        let mut need = a;
        let mut latest = 0.0f64;
        let early = self.avail.range(..=Time(r)).rev();
        let late = self.avail.range((Excluded(Time(r)), Unbounded));
        for (&t, ids) in early.chain(late) {
            if need == 0 {
                break;
            }
            let k = need.min(ids.len());
            self.chosen.extend_from_slice(&ids[..k]);
            self.taken.push((t, k));
            latest = latest.max(t.0);
            need -= k;
        }
        self.chosen.sort_unstable();
        latest
    }

    /// The pool's groups as they are now, for many [`PoolView::latest`]
    /// queries between two changes (MHEFT-MAX probes every allocation of
    /// every cluster for each task).
    pub(crate) fn view(&self) -> PoolView {
        let mut times = Vec::with_capacity(self.avail.len());
        let mut cum = Vec::with_capacity(self.avail.len() + 1);
        cum.push(0);
        for (&t, ids) in &self.avail {
            times.push(t);
            cum.push(cum[cum.len() - 1] + ids.len());
        }
        PoolView { times, cum }
    }

    /// Makes the processors of the last [`Pool::select`] busy until `finish`.
    pub(crate) fn occupy(&mut self, finish: f64) {
        for &(t, k) in &self.taken {
            if let Some(ids) = self.avail.get_mut(&t) {
                ids.drain(..k);
                if ids.is_empty() {
                    self.avail.remove(&t);
                }
            }
        }
        let group = self.avail.entry(Time(finish)).or_default();
        group.extend_from_slice(&self.chosen);
        group.sort_unstable();
    }
}

/// A read-only copy of a [`Pool`]'s groups: availability times, increasing,
/// and the running count of their processors.
#[derive(Debug, Clone)]
pub(crate) struct PoolView {
    times: Vec<Time>,
    /// `cum[i]`: processors in the groups before `times[i]`; `cum[len]` all.
    cum: Vec<usize>,
}

impl PoolView {
    /// What [`Pool::select`]`(a, r)` returns, the latest availability among
    /// the processors it would choose, in `O(log groups)` and without
    /// choosing them: with `e` processors available at or before `r`, the
    /// latest group at or before `r` when `a <= e` (best fit takes it
    /// first), else the group at which the later ones, taken by increasing
    /// availability, reach `a` (all of them if the pool has fewer).
    pub(crate) fn latest(&self, a: usize, r: f64) -> f64 {
        if a == 0 || self.times.is_empty() {
            return 0.0;
        }
        let early = self.times.partition_point(|&t| t <= Time(r));
        let latest = if a <= self.cum[early] {
            self.times[early - 1]
        } else {
            // the first m with cum[m] >= a; its group is times[m - 1]
            let m = self.cum.partition_point(|&c| c < a);
            self.times[m.min(self.times.len()) - 1]
        };
        latest.0.max(0.0)
    }
}

/// The placement rule shared by every list scheduler (rule (b) of
/// `tests/reference/ptg.py::list_schedule`), with the processors' state.
pub(crate) struct Mapper<'a> {
    set: &'a PtgSet,
    alloc: &'a [u32],
    speed: f64,
    pool: Pool,
    /// Start of each placed global task (NaN before).
    pub(crate) start: Vec<f64>,
    /// End of each placed global task (NaN before).
    pub(crate) end: Vec<f64>,
    /// The rows placed so far, in placement order.
    pub(crate) out: TaskSchedule,
}

impl<'a> Mapper<'a> {
    /// Checks the arguments; every processor is available at 0.
    pub(crate) fn new(set: &'a PtgSet, alloc: &'a [u32], procs: u32, speed: f64) -> Result<Self> {
        check_speed(speed)?;
        if procs == 0 {
            return Err(Error::InvalidArgument("procs == 0, must be >= 1".into()));
        }
        set.check_alloc(alloc, procs)?;
        let total = set.num_tasks();
        Ok(Mapper {
            set,
            alloc,
            speed,
            pool: Pool::new(0, procs),
            start: vec![f64::NAN; total],
            end: vec![f64::NAN; total],
            out: TaskSchedule::with_capacity(total),
        })
    }

    /// Latest end of the (placed) predecessors of `g`, `0.0` if none.
    #[inline]
    pub(crate) fn ready_time(&self, g: usize) -> f64 {
        let mut r = 0.0;
        for u in self.set.preds(g) {
            if self.end[u] > r {
                r = self.end[u];
            }
        }
        r
    }

    /// Places global task `g`, whose predecessors are all placed:
    ///
    /// 1. `r` = [`Self::ready_time`], `d = T(g, a)` with `a = alloc[g]`;
    /// 2. the processors of [`Pool::select`]`(a, r)`;
    /// 3. `d > 0`: `start = max(r, their latest availability)`,
    ///    `end = start + d`, and they are available again at `end`;
    ///    `d == 0`: `start = end = r`, availability unchanged;
    /// 4. the row is recorded with the ids sorted increasingly.
    pub(crate) fn place(&mut self, g: usize) {
        let a = self.alloc[g] as usize;
        let r = self.ready_time(g);
        let d = self.set.time(g, self.alloc[g], self.speed);
        let latest = self.pool.select(a, r);
        let (start, finish) = if d > 0.0 {
            let start = if latest > r { latest } else { r };
            let finish = start + d;
            self.pool.occupy(finish);
            (start, finish)
        } else {
            (r, r)
        };
        self.start[g] = start;
        self.end[g] = finish;
        self.out.push(g, start, finish, &self.pool.chosen);
    }
}

/// A ready task in a max-heap: higher priority first, then lower global id.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ready {
    pub(crate) priority: f64,
    pub(crate) g: usize,
}

impl PartialEq for Ready {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Ready {}

impl PartialOrd for Ready {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ready {
    fn cmp(&self, other: &Self) -> Ordering {
        // Priorities are checked finite; partial_cmp keeps -0.0 == 0.0 as
        // the reference's `==` does.
        self.priority
            .partial_cmp(&other.priority)
            .unwrap_or(Ordering::Equal)
            .then_with(|| other.g.cmp(&self.g))
    }
}

/// List-schedules every task of `set`, task `g` on `alloc[g]` processors of
/// a cluster of `procs` processors of `speed` flop/s.
///
/// Repeatedly, among the tasks that may compete (see [`Readiness`]), the one
/// of highest `priority[g]` (ties: lowest global id, i.e. lowest `(PTG,
/// task)`) is placed by the shared rule: the latest end `r` of its
/// predecessors, then the first `alloc[g]` processors in best-fit order
/// (available at or before `r`, latest first; then the later ones, earliest
/// first; ties by id), starting when the last of them is free and not before
/// `r`. Processors' idle gaps are never reused here: backfilling does that.
/// A zero-length task runs `[r, r)` and occupies nothing. This is exactly
/// `tests/reference/ptg.py::list_schedule` for [`Readiness::Placed`].
///
/// Rows come in placement order ("the order in which tasks were scheduled").
///
/// # Errors
/// [`Error::InvalidArgument`] for a bad speed or `procs`, an allocation
/// outside `1..=procs`, or a non-finite priority; messages name the task.
pub fn list_schedule(
    set: &PtgSet,
    alloc: &[u32],
    priority: &[f64],
    procs: u32,
    speed: f64,
    readiness: Readiness,
) -> Result<TaskSchedule> {
    let mut m = Mapper::new(set, alloc, procs, speed)?;
    set.check_values("priority", priority)?;
    let total = set.num_tasks();
    let mut waiting: Vec<usize> = (0..total).map(|g| set.num_preds(g)).collect();
    let mut ready: BinaryHeap<Ready> = (0..total)
        .filter(|&g| waiting[g] == 0)
        .map(|g| Ready {
            priority: priority[g],
            g,
        })
        .collect();
    let mut pending: BinaryHeap<Reverse<(Time, usize)>> = BinaryHeap::new();
    let mut now = 0.0;
    loop {
        let Some(Ready { g, .. }) = ready.pop() else {
            let Some(&Reverse((t, _))) = pending.peek() else { break };
            now = t.0;
            while let Some(&Reverse((t, g))) = pending.peek() {
                if t.0 > now {
                    break;
                }
                pending.pop();
                ready.push(Ready {
                    priority: priority[g],
                    g,
                });
            }
            continue;
        };
        m.place(g);
        for s in set.succs(g) {
            waiting[s] -= 1;
            if waiting[s] == 0 {
                let r = m.ready_time(s);
                if readiness == Readiness::Placed || r <= now {
                    ready.push(Ready {
                        priority: priority[s],
                        g: s,
                    });
                } else {
                    pending.push(Reverse((Time(r), s)));
                }
            }
        }
    }
    Ok(m.out)
}

#[cfg(test)]
mod tests {
    use super::super::graph::tests::{arb_set, fork_join};
    use super::super::graph::{bottom_levels, Ptg};
    use super::*;
    use proptest::prelude::*;

    fn single(g: Ptg) -> PtgSet {
        PtgSet::new(vec![g]).unwrap()
    }

    fn rows(s: &TaskSchedule) -> Vec<(usize, f64, f64, Vec<u32>)> {
        (0..s.len())
            .map(|k| (s.task[k], s.start[k], s.end[k], s.procs(k).to_vec()))
            .collect()
    }

    #[test]
    fn fork_join_by_hand() {
        // tests/test_ptg_reference.py::test_list_schedule_fork_join_by_hand
        let g = fork_join();
        let alloc = [2, 4, 1, 2];
        let prio = bottom_levels(&g, &alloc, 1.0).unwrap();
        let s = list_schedule(&single(g), &alloc, &prio, 4, 1.0, Readiness::Placed).unwrap();
        assert_eq!(
            rows(&s),
            vec![
                (0, 0.0, 0.5, vec![0, 1]),
                (1, 0.5, 2.5, vec![0, 1, 2, 3]),
                (2, 2.5, 4.5, vec![0]),
                (3, 4.5, 5.0, vec![0, 1]),
            ]
        );
    }

    #[test]
    fn ties_across_ptgs_and_priorities_never_break_precedence() {
        let one = || Ptg::new(vec![2.0], vec![0.0], &[0, 0], &[]).unwrap();
        let set = PtgSet::new(vec![one(), one()]).unwrap();
        let s = list_schedule(&set, &[1, 1], &[1.0, 1.0], 1, 1.0, Readiness::Placed).unwrap();
        assert_eq!(rows(&s), vec![(0, 0.0, 2.0, vec![0]), (1, 2.0, 4.0, vec![0])]);
        let s = list_schedule(&set, &[1, 1], &[1.0, 2.0], 1, 1.0, Readiness::Placed).unwrap();
        assert_eq!(rows(&s), vec![(1, 0.0, 2.0, vec![0]), (0, 2.0, 4.0, vec![0])]);
        let chain = Ptg::new(vec![1.0, 1.0], vec![0.0; 2], &[0, 1, 1], &[1]).unwrap();
        let s = list_schedule(&single(chain), &[1, 1], &[0.0, 9.0], 2, 1.0, Readiness::Placed).unwrap();
        assert_eq!(rows(&s), vec![(0, 0.0, 1.0, vec![0]), (1, 1.0, 2.0, vec![0])]);
    }

    #[test]
    fn ready_only_lets_a_short_ptg_start_first() {
        // PTG 0: a long chain x(2) -> y(2) with high priorities; PTG 1: one
        // task z(1) of low priority. P = 1.
        let chain = Ptg::new(vec![2.0, 2.0], vec![0.0; 2], &[0, 1, 1], &[1]).unwrap();
        let short = Ptg::new(vec![1.0], vec![0.0], &[0, 0], &[]).unwrap();
        let set = PtgSet::new(vec![chain, short]).unwrap();
        let prio = [10.0, 9.0, 1.0];
        // placed-ready: y competes as soon as x is placed and wins over z
        let s = list_schedule(&set, &[1, 1, 1], &prio, 1, 1.0, Readiness::Placed).unwrap();
        assert_eq!(
            rows(&s),
            vec![(0, 0.0, 2.0, vec![0]), (1, 2.0, 4.0, vec![0]), (2, 4.0, 5.0, vec![0])]
        );
        // ready-only: at time 0 only x and z compete; y waits for x's end
        let s = list_schedule(&set, &[1, 1, 1], &prio, 1, 1.0, Readiness::Completed).unwrap();
        assert_eq!(
            rows(&s),
            vec![(0, 0.0, 2.0, vec![0]), (2, 2.0, 3.0, vec![0]), (1, 3.0, 5.0, vec![0])]
        );
    }

    #[test]
    fn rejects_bad_arguments() {
        let set = single(fork_join());
        let e = list_schedule(&set, &[1, 5, 1, 1], &[0.0; 4], 4, 1.0, Readiness::Placed).unwrap_err();
        assert_eq!(
            e,
            Error::InvalidArgument("PTG 0 task 1: allocation == 5, must be between 1 and 4".into())
        );
        let e = list_schedule(&set, &[1; 4], &[0.0, f64::NAN, 0.0, 0.0], 4, 1.0, Readiness::Placed).unwrap_err();
        assert!(e.to_string().contains("PTG 0 task 1: priority == NaN"));
        assert!(list_schedule(&set, &[1; 4], &[0.0; 3], 4, 1.0, Readiness::Placed).is_err());
        assert!(list_schedule(&set, &[1; 4], &[0.0; 4], 0, 1.0, Readiness::Placed).is_err());
        assert!(list_schedule(&set, &[1; 4], &[0.0; 4], 4, -1.0, Readiness::Placed).is_err());
    }

    proptest! {
        #[test]
        fn a_view_reads_what_select_returns(
            busy in proptest::collection::vec((1usize..6, 0u8..8), 0..12),
            queries in proptest::collection::vec((1usize..40, 0u8..10), 1..20),
        ) {
            // a pool of 32 processors made busy by a few tasks of small integer ends
            let mut pool = Pool::new(3, 32);
            for (a, t) in busy {
                pool.select(a, 0.0);
                pool.occupy(f64::from(t) * 0.5);
            }
            let view = pool.view();
            for (a, r) in queries {
                let r = f64::from(r) * 0.5 - 0.25;
                let expected = pool.clone().select(a, r);
                prop_assert_eq!(view.latest(a, r).to_bits(), expected.to_bits());
            }
        }

        #[test]
        fn schedules_are_feasible(
            (set, alloc, prio, procs) in arb_set(),
            completed in any::<bool>(),
        ) {
            let readiness = if completed { Readiness::Completed } else { Readiness::Placed };
            let s = list_schedule(&set, &alloc, &prio, procs, 1.0, readiness).unwrap();
            s.check_feasible(&set, procs).unwrap();
            for k in 0..s.len() {
                let g = s.task[k];
                prop_assert_eq!(s.procs(k).len(), alloc[g] as usize);
                prop_assert_eq!(s.end[k] - s.start[k] >= 0.0, true);
                prop_assert_eq!(s.start[k] + set.time(g, alloc[g], 1.0), s.end[k]);
            }
        }
    }
}
