//! The schedule the PTG kernels produce and consume.

use super::graph::PtgSet;
use crate::error::{Error, Result};

/// Where and when tasks run: row `k` runs global task `task[k]` (see
/// [`PtgSet`]) over `[start[k], end[k])` on processors
/// `proc_ids[proc_offsets[k]..proc_offsets[k + 1]]` (sorted increasingly by
/// every kernel). Rows are in the order the kernel documents.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskSchedule {
    /// Global task id of each row.
    pub task: Vec<usize>,
    /// Start time of each row (s).
    pub start: Vec<f64>,
    /// End time of each row (s).
    pub end: Vec<f64>,
    /// CSR offsets into `proc_ids` (rows + 1 entries).
    pub proc_offsets: Vec<usize>,
    /// Processor ids, `0..procs`.
    pub proc_ids: Vec<u32>,
}

impl Default for TaskSchedule {
    fn default() -> Self {
        TaskSchedule::with_capacity(0)
    }
}

impl TaskSchedule {
    /// An empty schedule with room for `rows` rows.
    pub fn with_capacity(rows: usize) -> Self {
        let mut proc_offsets = Vec::with_capacity(rows + 1);
        proc_offsets.push(0);
        TaskSchedule {
            task: Vec::with_capacity(rows),
            start: Vec::with_capacity(rows),
            end: Vec::with_capacity(rows),
            proc_offsets,
            proc_ids: Vec::new(),
        }
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.task.len()
    }

    /// True when there is no row.
    pub fn is_empty(&self) -> bool {
        self.task.is_empty()
    }

    /// Appends a row.
    pub fn push(&mut self, task: usize, start: f64, end: f64, procs: &[u32]) {
        self.task.push(task);
        self.start.push(start);
        self.end.push(end);
        self.proc_ids.extend_from_slice(procs);
        self.proc_offsets.push(self.proc_ids.len());
    }

    /// Processors of row `k`.
    #[inline]
    pub fn procs(&self, k: usize) -> &[u32] {
        &self.proc_ids[self.proc_offsets[k]..self.proc_offsets[k + 1]]
    }

    /// Checks that this is a feasible schedule of every task of `set` on
    /// `procs` processors: each task in exactly one row, times finite with
    /// `0 <= start <= end`, `1..=procs` distinct ids below `procs`, every
    /// task starting no earlier than its predecessors end, and no processor
    /// running two rows of positive length at once (half-open intervals).
    /// Returns the row of each global task.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for malformed columns, [`Error::Infeasible`]
    /// for a broken rule; messages name the PTG and task.
    pub fn check_feasible(&self, set: &PtgSet, procs: u32) -> Result<Vec<usize>> {
        let rows = self.len();
        let name = |g: usize| {
            let (i, v) = set.locate(g);
            format!("PTG {i} task {v}")
        };
        if self.start.len() != rows
            || self.end.len() != rows
            || self.proc_offsets.len() != rows + 1
            || self.proc_offsets[0] != 0
            || self.proc_offsets[rows] != self.proc_ids.len()
            || self.proc_offsets.windows(2).any(|w| w[0] > w[1])
        {
            return Err(Error::InvalidArgument(format!(
                "schedule columns are inconsistent: {rows} tasks, {} starts, {} ends, {} offsets, {} ids",
                self.start.len(),
                self.end.len(),
                self.proc_offsets.len(),
                self.proc_ids.len()
            )));
        }
        let total = set.num_tasks();
        let mut row_of = vec![usize::MAX; total];
        for (k, &g) in self.task.iter().enumerate() {
            if g >= total {
                return Err(Error::InvalidArgument(format!(
                    "row {k}: task id {g}, the PTGs have {total} tasks"
                )));
            }
            if row_of[g] != usize::MAX {
                return Err(Error::Infeasible(format!("{} is scheduled twice", name(g))));
            }
            row_of[g] = k;
        }
        if let Some(g) = row_of.iter().position(|&k| k == usize::MAX) {
            return Err(Error::Infeasible(format!("{} is never scheduled", name(g))));
        }
        let mut seen = vec![usize::MAX; procs as usize];
        for k in 0..rows {
            let (s, e, g) = (self.start[k], self.end[k], self.task[k]);
            if !(s.is_finite() && e.is_finite() && s >= 0.0 && e >= s) {
                return Err(Error::Infeasible(format!(
                    "{} runs [{s}, {e}): must be finite, 0 <= start <= end",
                    name(g)
                )));
            }
            let ids = self.procs(k);
            if ids.is_empty() || ids.len() > procs as usize {
                return Err(Error::Infeasible(format!(
                    "{} has {} processors, must be between 1 and {procs}",
                    name(g),
                    ids.len()
                )));
            }
            for &q in ids {
                if q >= procs || seen[q as usize] == k {
                    return Err(Error::Infeasible(format!(
                        "{}: processor id {q} repeated or outside 0 to {}",
                        name(g),
                        procs - 1
                    )));
                }
                seen[q as usize] = k;
            }
            for u in set.preds(g) {
                if s < self.end[row_of[u]] {
                    return Err(Error::Infeasible(format!(
                        "{} starts at {s} before its predecessor {} ends at {}",
                        name(g),
                        name(u),
                        self.end[row_of[u]]
                    )));
                }
            }
        }
        // Rows of positive length by start: a processor runs two at once
        // exactly when a row starts before the latest end of the earlier
        // rows on it.
        let mut by_start: Vec<usize> = (0..rows).filter(|&k| self.end[k] > self.start[k]).collect();
        by_start.sort_by(|&x, &y| self.start[x].total_cmp(&self.start[y]));
        let mut last: Vec<(f64, usize)> = vec![(f64::NEG_INFINITY, usize::MAX); procs as usize];
        for k in by_start {
            for &q in self.procs(k) {
                let (e, j) = last[q as usize];
                if e > self.start[k] {
                    return Err(Error::Infeasible(format!(
                        "processor {q} runs {} and {} at once",
                        name(self.task[j]),
                        name(self.task[k])
                    )));
                }
                if self.end[k] > e {
                    last[q as usize] = (self.end[k], k);
                }
            }
        }
        Ok(row_of)
    }
}
