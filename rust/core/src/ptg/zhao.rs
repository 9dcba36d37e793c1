//! The fairness-driven list scheduling of Zhao & Sakellariou's F1 and F2,
//! extended to PTGs (RR-7224 §4.2).

use std::collections::BinaryHeap;

use super::graph::PtgSet;
use super::list::Mapper;
use super::schedule::TaskSchedule;
use crate::error::{Error, Result};

/// How the current stretch of the PTGs is estimated after each placement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StretchEstimate {
    /// F1: only the PTG of the task just placed is updated, to the task's
    /// end divided by its end in the PTG's schedule alone.
    Own,
    /// F2: every PTG is updated, from the task of that PTG placed most
    /// recently among those running at the end `ct` of the task just placed.
    All,
}

impl StretchEstimate {
    /// The estimate by the name of the algorithm using it: `"F1"` or `"F2"`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for any other name.
    pub fn from_name(name: &str) -> Result<Self> {
        match name {
            "F1" => Ok(StretchEstimate::Own),
            "F2" => Ok(StretchEstimate::All),
            _ => Err(Error::InvalidArgument(format!(
                "estimate == '{name}', must be 'F1' or 'F2'"
            ))),
        }
    }
}

/// A ready task of one PTG: higher bottom level first, then lower tie key,
/// then lower global id.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    bl: f64,
    tie: u64,
    g: usize,
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == std::cmp::Ordering::Equal
    }
}

impl Eq for Candidate {}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Candidate {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.bl
            .partial_cmp(&other.bl)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| other.tie.cmp(&self.tie))
            .then_with(|| other.g.cmp(&self.g))
    }
}

/// The inputs of [`fairness_schedule`] besides the set and the cluster.
#[derive(Debug, Clone, Copy)]
pub struct Fairness<'a> {
    /// Processors of each global task.
    pub alloc: &'a [u32],
    /// Bottom level of each global task (with `alloc`).
    pub bl: &'a [f64],
    /// Tie key of each global task: among ready tasks of one PTG with equal
    /// bottom levels, the lowest key goes first (then the lowest id).
    pub task_tie: &'a [u64],
    /// Tie key of each PTG: among PTGs with equal keys, the lowest goes
    /// first (then the lowest index).
    pub ptg_tie: &'a [u64],
    /// Start of each global task in its PTG's schedule alone on the cluster.
    pub alone_start: &'a [f64],
    /// End of each global task in its PTG's schedule alone on the cluster.
    pub alone_end: &'a [f64],
    /// F1 or F2.
    pub estimate: StretchEstimate,
}

/// Zhao & Sakellariou's fairness-driven scheduling of several graphs (F1,
/// F2), with PTG tasks placed by the shared list-scheduling rule.
///
/// A PTG none of whose tasks has a stretch estimate yet counts as infinitely
/// stretched. (RR-7224 says these stretches "are zero"; that is Zhao et
/// al.'s slowdown, the inverse of our stretch, whose lowest value is the
/// worst: a graph not started yet is the most behind and goes first.
/// Reading the zero literally in our direction would put every started graph
/// ahead of all others and schedule the graphs one after another.)
/// Repeatedly: among the PTGs
/// with tasks left, take the one of largest current stretch, ties by largest
/// bottom level among its unplaced tasks, then lowest `ptg_tie`, then lowest
/// index; place its ready task (all predecessors placed) of largest bottom
/// level (ties: `task_tie`, then id) by the rule of
/// [`super::list_schedule`]; then, with `ct` the task's end:
///
/// * [`StretchEstimate::Own`] (F1): the PTG's stretch becomes
///   `ct / alone_end[task]` (unchanged when `alone_end` is 0, i.e. for a
///   zero-length task at time 0, whose ratio is undefined);
/// * [`StretchEstimate::All`] (F2): for every PTG `h`, the task `t'` of `h`
///   placed most recently among those of positive length with
///   `start <= ct <= end` (closed, so the task just placed is its own PTG's
///   `t'`), if any: the fraction `f = (ct - start) / (end - start)` of it is
///   done at `ct`, the same fraction is done at
///   `tau = alone_start + f * (alone_end - alone_start)` alone, and `h`'s
///   stretch becomes `ct / tau` (unchanged when `tau` is 0).
///
/// The bottom levels never rise along an edge, so the largest over a PTG's
/// unplaced tasks is the largest over its ready ones, the top of its heap.
///
/// Rows come in placement order.
///
/// # Errors
/// [`Error::InvalidArgument`] for arrays of the wrong length, non-finite
/// values, or the errors of [`super::list_schedule`].
pub fn fairness_schedule(set: &PtgSet, procs: u32, speed: f64, f: &Fairness<'_>) -> Result<TaskSchedule> {
    let mut m = Mapper::new(set, f.alloc, procs, speed)?;
    let total = set.num_tasks();
    set.check_values("bottom level", f.bl)?;
    set.check_values("alone start", f.alone_start)?;
    set.check_values("alone end", f.alone_end)?;
    if f.task_tie.len() != total || f.ptg_tie.len() != set.len() {
        return Err(Error::InvalidArgument(format!(
            "{} task tie keys for {total} tasks, {} PTG tie keys for {} PTGs",
            f.task_tie.len(),
            f.ptg_tie.len(),
            set.len()
        )));
    }
    let n = set.len();
    let mut waiting: Vec<usize> = (0..total).map(|g| set.num_preds(g)).collect();
    let mut ready: Vec<BinaryHeap<Candidate>> = vec![BinaryHeap::new(); n];
    let candidate = |g: usize| Candidate {
        bl: f.bl[g],
        tie: f.task_tie[g],
        g,
    };
    for g in (0..total).filter(|&g| waiting[g] == 0) {
        ready[set.locate(g).0].push(candidate(g));
    }
    let mut stretch = vec![f64::INFINITY; n];
    let mut placed: Vec<Vec<usize>> = vec![Vec::new(); n];
    loop {
        let mut best: Option<(usize, f64)> = None;
        for i in 0..n {
            let Some(top) = ready[i].peek() else { continue };
            let better = match best {
                None => true,
                Some((b, bl)) => {
                    stretch[i] > stretch[b]
                        || (stretch[i] == stretch[b] && (top.bl > bl || (top.bl == bl && f.ptg_tie[i] < f.ptg_tie[b])))
                }
            };
            if better {
                best = Some((i, top.bl));
            }
        }
        let Some((i, _)) = best else { break };
        let Some(Candidate { g, .. }) = ready[i].pop() else {
            break;
        };
        m.place(g);
        placed[i].push(g);
        let ct = m.end[g];
        match f.estimate {
            StretchEstimate::Own => {
                if f.alone_end[g] > 0.0 {
                    stretch[i] = ct / f.alone_end[g];
                }
            }
            StretchEstimate::All => {
                for h in 0..n {
                    let running = placed[h].iter().rev().copied().find(|&u| {
                        let (s, e) = (m.start[u], m.end[u]);
                        e > s && s <= ct && ct <= e
                    });
                    if let Some(u) = running {
                        let (s, e) = (m.start[u], m.end[u]);
                        let done = (ct - s) / (e - s);
                        let tau = f.alone_start[u] + done * (f.alone_end[u] - f.alone_start[u]);
                        if tau > 0.0 {
                            stretch[h] = ct / tau;
                        }
                    }
                }
            }
        }
        for s in set.succs(g) {
            waiting[s] -= 1;
            if waiting[s] == 0 {
                ready[i].push(candidate(s));
            }
        }
    }
    Ok(m.out)
}

#[cfg(test)]
mod tests {
    use super::super::graph::tests::arb_set;
    use super::super::graph::Ptg;
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_most_stretched_ptg_goes_next() {
        // Two single-task PTGs of 2 s and one of 1 s on one processor. Alone,
        // each ends at its duration. Round 1: no PTG started (stretch
        // infinite), the largest bottom level wins (PTG 0, tie with PTG 1
        // broken by index). Then PTG 0 has stretch 1, so the others go first:
        // the 2 s one, then the 1 s one.
        let one = |w: f64| Ptg::new(vec![w], vec![0.0], &[0, 0], &[]).unwrap();
        let set = PtgSet::new(vec![one(2.0), one(2.0), one(1.0)]).unwrap();
        let alone = [2.0, 2.0, 1.0];
        let f = Fairness {
            alloc: &[1, 1, 1],
            bl: &[2.0, 2.0, 1.0],
            task_tie: &[0, 0, 0],
            ptg_tie: &[0, 0, 0],
            alone_start: &[0.0; 3],
            alone_end: &alone,
            estimate: StretchEstimate::Own,
        };
        let s = fairness_schedule(&set, 1, 1.0, &f).unwrap();
        assert_eq!(s.task, vec![0, 1, 2]);
        assert_eq!(s.end, vec![2.0, 4.0, 5.0]);
        // a PTG tie key reorders the first round
        let s = fairness_schedule(
            &set,
            1,
            1.0,
            &Fairness {
                ptg_tie: &[1, 0, 0],
                ..f
            },
        )
        .unwrap();
        assert_eq!(s.task, vec![1, 0, 2]);
    }

    #[test]
    fn f2_updates_every_running_ptg() {
        // PTG 0: x1 (4 s) -> x2 (1 s); PTG 1: y1 -> y2 -> y3 (1 s each); P = 2.
        // The alone times are made up so that F1 and F2 disagree: at round 3
        // F1 still has PTG 0 at 4 / 4 = 1 against PTG 1's 1 / 1.25 = 0.8,
        // while F2 re-estimated PTG 0 from x1 running at y1's end (a quarter
        // done, which alone happens at 1.75): 1 / 1.75 < 0.8.
        let x = Ptg::new(vec![4.0, 1.0], vec![0.0; 2], &[0, 1, 1], &[1]).unwrap();
        let y = Ptg::new(vec![1.0; 3], vec![0.0; 3], &[0, 1, 2, 2], &[1, 2]).unwrap();
        let set = PtgSet::new(vec![x, y]).unwrap();
        let f = Fairness {
            alloc: &[1; 5],
            bl: &[5.0, 1.0, 3.0, 2.0, 1.0],
            task_tie: &[0; 5],
            ptg_tie: &[0; 2],
            alone_start: &[1.0, 4.0, 0.0, 1.25, 2.25],
            alone_end: &[4.0, 5.0, 1.25, 2.25, 3.25],
            estimate: StretchEstimate::Own,
        };
        let f1 = fairness_schedule(&set, 2, 1.0, &f).unwrap();
        assert_eq!(f1.task, vec![0, 2, 1, 3, 4]);
        let f2 = fairness_schedule(
            &set,
            2,
            1.0,
            &Fairness {
                estimate: StretchEstimate::All,
                ..f
            },
        )
        .unwrap();
        assert_eq!(f2.task, vec![0, 2, 3, 4, 1]);
        assert_eq!(f2.start, vec![0.0, 0.0, 1.0, 2.0, 4.0]);
    }

    #[test]
    fn rejects_bad_arrays() {
        let set = PtgSet::new(vec![Ptg::new(vec![1.0], vec![0.0], &[0, 0], &[]).unwrap()]).unwrap();
        let f = Fairness {
            alloc: &[1],
            bl: &[1.0],
            task_tie: &[0],
            ptg_tie: &[],
            alone_start: &[0.0],
            alone_end: &[1.0],
            estimate: StretchEstimate::Own,
        };
        assert!(fairness_schedule(&set, 1, 1.0, &f)
            .unwrap_err()
            .to_string()
            .contains("PTG tie keys"));
        let f = Fairness {
            ptg_tie: &[0],
            alone_end: &[f64::INFINITY],
            ..f
        };
        assert!(fairness_schedule(&set, 1, 1.0, &f)
            .unwrap_err()
            .to_string()
            .contains("alone end == inf"));
    }

    proptest! {
        #[test]
        fn schedules_are_feasible((set, alloc, bl, procs) in arb_set(), f2 in any::<bool>()) {
            let total = set.num_tasks();
            let ties: Vec<u64> = (0..total as u64).rev().collect();
            let alone: Vec<f64> = (0..total).map(|g| 1.0 + g as f64).collect();
            let f = Fairness {
                alloc: &alloc,
                bl: &bl,
                task_tie: &ties,
                ptg_tie: &ties[..set.len()],
                alone_start: &vec![0.0; total],
                alone_end: &alone,
                estimate: if f2 { StretchEstimate::All } else { StretchEstimate::Own },
            };
            let s = fairness_schedule(&set, procs, 1.0, &f).unwrap();
            s.check_feasible(&set, procs).unwrap();
        }
    }
}
