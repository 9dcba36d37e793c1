//! Backfilling compaction of a multi-PTG schedule (RR-7224 §4.1).

use std::collections::BTreeMap;
use std::ops::Bound::Excluded;

use super::graph::{check_speed, PtgSet};
use super::schedule::TaskSchedule;
use crate::error::{Error, Result};
use crate::time::Time;

/// The state of the compaction: where every row currently runs.
///
/// Only positive-length rows occupy processors. They are kept as a processor
/// bitset per row (to count busy processors over an interval with a few word
/// operations), and twice sorted: by start (to find the rows overlapping an
/// interval) and by end (for the latest end before a time on a processor).
struct Rows {
    procs: usize,
    words: usize,
    bits: Vec<u64>,
    start: Vec<f64>,
    end: Vec<f64>,
    by_start: Vec<(f64, usize)>,
    by_end: Vec<(f64, usize)>,
    /// The current ends of the positive-length rows, as a multiset.
    ends: BTreeMap<Time, u32>,
    /// The longest row ever placed (an upper bound on every row's length).
    longest: f64,
}

impl Rows {
    fn new(schedule: &TaskSchedule, procs: usize) -> Rows {
        let n = schedule.len();
        let words = procs.div_ceil(64);
        let mut rows = Rows {
            procs,
            words,
            bits: vec![0; n * words],
            start: schedule.start.clone(),
            end: schedule.end.clone(),
            by_start: Vec::with_capacity(n),
            by_end: Vec::with_capacity(n),
            ends: BTreeMap::new(),
            longest: 0.0,
        };
        for k in 0..n {
            rows.occupy(k, schedule.procs(k));
        }
        rows
    }

    fn positive(&self, k: usize) -> bool {
        self.end[k] > self.start[k]
    }

    /// Puts row `k` (at its current times) on processors `ids`, if it has a positive length.
    fn occupy(&mut self, k: usize, ids: &[u32]) {
        let row = &mut self.bits[k * self.words..(k + 1) * self.words];
        row.fill(0);
        for &q in ids {
            row[q as usize / 64] |= 1 << (q % 64);
        }
        if !self.positive(k) {
            return;
        }
        let (s, e) = (self.start[k], self.end[k]);
        self.longest = self.longest.max(e - s);
        insert(&mut self.by_start, (s, k));
        insert(&mut self.by_end, (e, k));
        *self.ends.entry(Time(e)).or_insert(0) += 1;
    }

    /// Takes row `k` off its processors.
    fn release(&mut self, k: usize) {
        if !self.positive(k) {
            return;
        }
        let (s, e) = (self.start[k], self.end[k]);
        remove(&mut self.by_start, (s, k));
        remove(&mut self.by_end, (e, k));
        if let Some(c) = self.ends.get_mut(&Time(e)) {
            *c -= 1;
            if *c == 0 {
                self.ends.remove(&Time(e));
            }
        }
    }

    /// For each processor `q` not in `busy`: the latest end `<= t` of a row
    /// on it (`0.0` if none), as `(end, q)` pairs into `out` (in no
    /// particular order). Rows are scanned by decreasing end from `t`; the
    /// first one holding `q` gives it.
    fn prev_ends(&self, t: f64, busy: &[u64], todo: &mut Vec<u64>, out: &mut Vec<(f64, u32)>) {
        todo.clear();
        todo.extend(busy.iter().map(|w| !w));
        let tail = self.procs % 64;
        if tail > 0 {
            if let Some(last) = todo.last_mut() {
                *last &= (1u64 << tail) - 1;
            }
        }
        out.clear();
        let mut left: u32 = todo.iter().map(|w| w.count_ones()).sum();
        let below = self.by_end.partition_point(|&(e, _)| e <= t);
        for &(e, y) in self.by_end[..below].iter().rev() {
            if left == 0 {
                break;
            }
            for (w, (todo_w, &row_w)) in todo
                .iter_mut()
                .zip(&self.bits[y * self.words..(y + 1) * self.words])
                .enumerate()
            {
                let mut hit = *todo_w & row_w;
                *todo_w &= !row_w;
                while hit != 0 {
                    out.push((if e > 0.0 { e } else { 0.0 }, (w * 64) as u32 + hit.trailing_zeros()));
                    left -= 1;
                    hit &= hit - 1;
                }
            }
        }
        for (w, &todo_w) in todo.iter().enumerate() {
            let mut rest = todo_w;
            while rest != 0 {
                out.push((0.0, (w * 64) as u32 + rest.trailing_zeros()));
                rest &= rest - 1;
            }
        }
    }

    /// The first of the increasing `candidates` at which at least `a`
    /// processors are idle over `[t, t + d)`, with the busy processors there
    /// in `union` (one bit per processor).
    ///
    /// A processor is busy over `[t, te)` when some row on it has
    /// `t < end && start < te`; the busy set is the union of the bitsets of
    /// those rows. As `t` (and `te = t + d`) increase, rows enter by start
    /// and leave by end, so one sweep over the rows sorted by start finds the
    /// overlapping rows of every candidate.
    fn first_fit(
        &self,
        candidates: &[f64],
        d: f64,
        a: usize,
        active: &mut Vec<usize>,
        union: &mut [u64],
    ) -> Option<f64> {
        active.clear();
        // A row ending after the first candidate starts less than its length
        // before it: the rows starting earlier than twice the longest length
        // (a safe margin for rounding) can be skipped.
        let first = candidates[0];
        let mut entered = self.by_start.partition_point(|&(s, _)| s < first - 2.0 * self.longest);
        for &t in candidates {
            let te = t + d;
            active.retain(|&y| self.end[y] > t);
            while entered < self.by_start.len() && self.by_start[entered].0 < te {
                let y = self.by_start[entered].1;
                if self.end[y] > t {
                    active.push(y);
                }
                entered += 1;
            }
            union.fill(0);
            for &y in active.iter() {
                for (u, b) in union.iter_mut().zip(&self.bits[y * self.words..(y + 1) * self.words]) {
                    *u |= b;
                }
            }
            let busy: u32 = union.iter().map(|w| w.count_ones()).sum();
            if self.procs - busy as usize >= a {
                return Some(t);
            }
        }
        None
    }
}

/// Inserts into a vector sorted by (time, row).
fn insert(sorted: &mut Vec<(f64, usize)>, item: (f64, usize)) {
    let at = sorted.partition_point(|&(t, j)| t.total_cmp(&item.0).then(j.cmp(&item.1)).is_lt());
    sorted.insert(at, item);
}

/// Removes from a vector sorted by (time, row).
fn remove(sorted: &mut Vec<(f64, usize)>, item: (f64, usize)) {
    let at = sorted.partition_point(|&(t, j)| t.total_cmp(&item.0).then(j.cmp(&item.1)).is_lt());
    if sorted.get(at) == Some(&item) {
        sorted.remove(at);
    }
}

fn bit(union: &[u64], q: u32) -> bool {
    union[q as usize / 64] >> (q % 64) & 1 == 1
}

/// Conservative-backfilling compaction of a feasible `schedule` of `set` on
/// `procs` processors of `speed` flop/s: every task moves as early as it can
/// without delaying any other task, exactly by the rules of
/// `tests/reference/ptg.py::backfill`:
///
/// Tasks are taken by their start in `schedule`, ties by lowest global id.
/// Every other task stays where it currently is (processed ones at their new
/// place), so nobody is delayed. For task `x` on `a` processors, original
/// start `s0`: `d = T(x, a)`; `r` = latest current end of its predecessors
/// (`0.0` if none); candidate starts, increasing: `r`, every current end of
/// another positive-length task strictly between `r` and `s0`, then `s0`;
/// `x` starts at the first candidate `t` where at least `a` processors are
/// idle over `[t, t + d)` (no other positive-length task `y` on them with
/// `t < end_y && start_y < t + d`). It keeps its processors if they are all
/// idle then; otherwise it takes the `a` idle ones with the latest end of a
/// previous task at or before `t` (`0.0` if none), ties by increasing id.
/// (Should no candidate qualify, which a feasible schedule rules out, the
/// task keeps its row.) The task then runs `[t, min(t + d, old end))`: the
/// same as `t + d` when the input's ends are its starts plus `d` (list
/// scheduling's are), and no later than the old end when the input's times
/// were shifted and rounded (CAFM's boxes). Moving a task earlier never
/// breaks precedence: its successors start after its old, later end.
///
/// Returns the same rows, in the same order, with new start, end and ids.
///
/// # Errors
/// [`Error::InvalidArgument`] for a bad speed, `procs` or malformed
/// columns; [`Error::Infeasible`] when `schedule` is not a feasible schedule
/// of every task of `set` (see [`TaskSchedule::check_feasible`]).
pub fn backfill(set: &PtgSet, schedule: &TaskSchedule, procs: u32, speed: f64) -> Result<TaskSchedule> {
    check_speed(speed)?;
    if procs == 0 {
        return Err(Error::InvalidArgument("procs == 0, must be >= 1".into()));
    }
    let row_of = schedule.check_feasible(set, procs)?;
    let n = schedule.len();
    let task = &schedule.task;
    let mut rows = Rows::new(schedule, procs as usize);
    let offsets = &schedule.proc_offsets;
    let mut ids = schedule.proc_ids.clone();
    let mut order: Vec<usize> = (0..n).collect();
    // Starts are finite (checked); partial_cmp keeps -0.0 == 0.0 like the reference.
    order.sort_by(|&x, &y| {
        let (s, t) = (schedule.start[x], schedule.start[y]);
        s.partial_cmp(&t)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(task[x].cmp(&task[y]))
    });

    let mut candidates: Vec<f64> = Vec::new();
    let mut active: Vec<usize> = Vec::new();
    let mut union = vec![0u64; rows.words];
    let (mut todo, mut keyed) = (Vec::new(), Vec::new());
    for k in order {
        let g = task[k];
        let s0 = rows.start[k];
        let own = offsets[k]..offsets[k + 1];
        let a = own.len();
        let d = set.time(g, a as u32, speed);
        let mut r = 0.0;
        for u in set.preds(g) {
            if rows.end[row_of[u]] > r {
                r = rows.end[row_of[u]];
            }
        }
        rows.release(k);
        candidates.clear();
        candidates.push(r);
        if r < s0 {
            candidates.extend(
                rows.ends
                    .range((Excluded(Time(r)), Excluded(Time(s0))))
                    .map(|(t, _)| t.0),
            );
            candidates.push(s0);
        } else if s0 < r {
            // unreachable for a feasible schedule (r <= s0); kept sorted like the reference's set
            candidates.insert(0, s0);
        }
        let Some(t) = rows.first_fit(&candidates, d, a, &mut active, &mut union) else {
            // keep the row as it is (see the doc comment)
            rows.occupy(k, &ids[own]);
            continue;
        };
        if ids[own.clone()].iter().any(|&q| bit(&union, q)) {
            rows.prev_ends(t, &union, &mut todo, &mut keyed);
            keyed.sort_unstable_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
            let chosen = &mut ids[own.clone()];
            for (slot, &(_, q)) in chosen.iter_mut().zip(&keyed[..a]) {
                *slot = q;
            }
            chosen.sort_unstable();
        } else {
            // kept processors are recorded sorted too, as the reference does
            ids[own.clone()].sort_unstable();
        }
        rows.start[k] = t;
        // Never past its old end: on a schedule whose times were shifted
        // (CAFM's boxes), `s0 + d` can round one ulp above the end the
        // successors start at.
        rows.end[k] = (t + d).min(rows.end[k]);
        rows.occupy(k, &ids[own]);
    }
    Ok(TaskSchedule {
        task: task.clone(),
        start: rows.start,
        end: rows.end,
        proc_offsets: offsets.clone(),
        proc_ids: ids,
    })
}

#[cfg(test)]
mod tests {
    use super::super::graph::tests::arb_set;
    use super::super::graph::Ptg;
    use super::super::list::{list_schedule, Readiness};
    use super::*;
    use proptest::prelude::*;

    fn rows(s: &TaskSchedule) -> Vec<(usize, f64, f64, Vec<u32>)> {
        (0..s.len())
            .map(|k| (s.task[k], s.start[k], s.end[k], s.procs(k).to_vec()))
            .collect()
    }

    #[test]
    fn fills_a_hole_by_hand() {
        // tests/test_ptg_reference.py::test_backfill_fills_a_hole_by_hand
        let a = Ptg::new(vec![1.0, 2.0], vec![0.0; 2], &[0, 1, 1], &[1]).unwrap();
        let b = Ptg::new(vec![1.0], vec![0.0], &[0, 0], &[]).unwrap();
        let set = PtgSet::new(vec![a, b]).unwrap();
        let listed = list_schedule(&set, &[1, 2, 1], &[2.0, 1.0, 0.5], 2, 1.0, Readiness::Placed).unwrap();
        assert_eq!(
            rows(&listed),
            vec![
                (0, 0.0, 1.0, vec![0]),
                (1, 1.0, 2.0, vec![0, 1]),
                (2, 2.0, 3.0, vec![0])
            ]
        );
        let packed = backfill(&set, &listed, 2, 1.0).unwrap();
        assert_eq!(
            rows(&packed),
            vec![
                (0, 0.0, 1.0, vec![0]),
                (1, 1.0, 2.0, vec![0, 1]),
                (2, 0.0, 1.0, vec![1])
            ]
        );
    }

    #[test]
    fn closes_gaps_in_order_and_keeps_processors() {
        let a = Ptg::new(vec![1.0], vec![0.0], &[0, 0], &[]).unwrap();
        let b = Ptg::new(vec![1.0, 1.0], vec![0.0; 2], &[0, 1, 1], &[1]).unwrap();
        let set = PtgSet::new(vec![a, b]).unwrap();
        let mut s = TaskSchedule::default();
        s.push(1, 0.0, 1.0, &[0]);
        s.push(2, 2.0, 3.0, &[0]);
        s.push(0, 5.0, 6.0, &[0]);
        let packed = backfill(&set, &s, 1, 1.0).unwrap();
        assert_eq!(
            rows(&packed),
            vec![(1, 0.0, 1.0, vec![0]), (2, 1.0, 2.0, vec![0]), (0, 2.0, 3.0, vec![0])]
        );
    }

    #[test]
    fn rejects_infeasible_input() {
        let b = Ptg::new(vec![1.0, 1.0], vec![0.0; 2], &[0, 1, 1], &[1]).unwrap();
        let set = PtgSet::new(vec![b]).unwrap();
        let mut s = TaskSchedule::default();
        s.push(0, 0.0, 1.0, &[0]);
        s.push(1, 0.5, 1.5, &[1]);
        let e = backfill(&set, &s, 2, 1.0).unwrap_err();
        assert_eq!(
            e,
            Error::Infeasible("PTG 0 task 1 starts at 0.5 before its predecessor PTG 0 task 0 ends at 1".into())
        );
        let mut s = TaskSchedule::default();
        s.push(0, 0.0, 1.0, &[0]);
        s.push(1, 1.0, 2.0, &[0, 0]);
        assert!(backfill(&set, &s, 2, 1.0)
            .unwrap_err()
            .to_string()
            .contains("processor id 0 repeated"));
        let mut s = TaskSchedule::default();
        s.push(0, 0.0, 1.0, &[0]);
        assert!(backfill(&set, &s, 2, 1.0)
            .unwrap_err()
            .to_string()
            .contains("task 1 is never scheduled"));
    }

    proptest! {
        #[test]
        fn never_delays_anything((set, alloc, prio, procs) in arb_set(), completed in any::<bool>()) {
            let readiness = if completed { Readiness::Completed } else { Readiness::Placed };
            let listed = list_schedule(&set, &alloc, &prio, procs, 1.0, readiness).unwrap();
            let packed = backfill(&set, &listed, procs, 1.0).unwrap();
            packed.check_feasible(&set, procs).unwrap();
            prop_assert_eq!(&packed.task, &listed.task);
            for k in 0..listed.len() {
                prop_assert!(packed.start[k] <= listed.start[k]);
                prop_assert!(packed.end[k] <= listed.end[k]);
                prop_assert_eq!(packed.procs(k).len(), listed.procs(k).len());
            }
            // compacting twice moves nothing further
            let again = backfill(&set, &packed, procs, 1.0).unwrap();
            for k in 0..packed.len() {
                prop_assert!(again.start[k] <= packed.start[k]);
            }
        }
    }
}
