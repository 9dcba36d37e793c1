use crate::time::Time;

/// Processors of a homogeneous cluster and the availability profile of the
/// jobs running on it.
///
/// Processors are numbered `0..total`; a starting job takes the lowest-numbered
/// free ones (a documented, deterministic rule that makes Gantt charts tidy).
/// Free processors are kept as maximal runs of consecutive ids, and a job's
/// processors as the runs it took, so a job of thousands of processors costs
/// a few runs, not thousands of ids.
/// The profile is the list of running jobs sorted by `(estimated end, job)`:
/// walking it in order gives the number of processors that will be free at any
/// future time if every job runs to its estimate, which is what backfilling
/// reads. Both are updated incrementally on each start and completion. They
/// are sorted vectors, not trees: a machine runs and frees at most a few
/// hundred of them at once, and shifting a short contiguous array costs less
/// than a tree's allocations and pointer chasing.
#[derive(Debug, Clone)]
pub struct Machine {
    total: u32,
    /// Free runs `(first id, length)` by first id, disjoint and never adjacent.
    free_runs: Vec<(u32, u32)>,
    free: u32,
    /// Running jobs `(estimated end, job, width)`, sorted.
    running: Vec<(Time, u32, u32)>,
}

impl Machine {
    /// An idle machine of `total` processors.
    pub fn new(total: u32) -> Self {
        let free_runs = if total > 0 { vec![(0, total)] } else { Vec::new() };
        Machine {
            total,
            free_runs,
            free: total,
            running: Vec::new(),
        }
    }

    /// Number of processors.
    pub fn total(&self) -> u32 {
        self.total
    }

    /// Processors free now.
    pub fn free(&self) -> u32 {
        self.free
    }

    /// Running jobs as `(estimated end, job, width)`, earliest estimated end first.
    pub fn running(&self) -> impl Iterator<Item = (Time, u32, u32)> + '_ {
        self.running.iter().copied()
    }

    /// Gives the `width` lowest-numbered free processors to `job`, appending
    /// them to `runs` as `(first id, count)`. The caller guarantees
    /// `width <= self.free()`.
    pub(crate) fn allocate(&mut self, job: u32, width: u32, estimated_end: Time, runs: &mut Vec<(u32, u32)>) {
        debug_assert!(width <= self.free);
        let (mut need, mut used_up) = (width, 0);
        for run in self.free_runs.iter_mut() {
            if need == 0 {
                break;
            }
            let (first, len) = *run;
            let take = len.min(need);
            runs.push((first, take));
            need -= take;
            if take < len {
                *run = (first + take, len - take);
            } else {
                used_up += 1;
            }
        }
        self.free_runs.drain(..used_up);
        self.free -= width;
        let at = self
            .running
            .partition_point(|&(end, j, _)| (end, j) < (estimated_end, job));
        self.running.insert(at, (estimated_end, job, width));
    }

    /// Returns `job`'s processor `runs` to the free pool, merging adjacent runs.
    pub(crate) fn release(&mut self, job: u32, estimated_end: Time, runs: &[(u32, u32)]) {
        if let Ok(at) = self
            .running
            .binary_search_by(|&(end, j, _)| (end, j).cmp(&(estimated_end, job)))
        {
            self.running.remove(at);
        }
        for &(first, len) in runs {
            let at = self.free_runs.partition_point(|&(f, _)| f < first);
            let joins_before = at > 0 && {
                let (f, l) = self.free_runs[at - 1];
                f + l == first
            };
            let joins_after = self.free_runs.get(at).is_some_and(|&(f, _)| first + len == f);
            match (joins_before, joins_after) {
                (true, true) => {
                    let (_, after) = self.free_runs.remove(at);
                    self.free_runs[at - 1].1 += len + after;
                }
                (true, false) => self.free_runs[at - 1].1 += len,
                (false, true) => self.free_runs[at] = (first, len + self.free_runs[at].1),
                (false, false) => self.free_runs.insert(at, (first, len)),
            }
            self.free += len;
        }
    }

    /// EASY's shadow time for a job of `need` processors: the earliest time at
    /// which `need` processors are free when running jobs end at their
    /// estimates, and the processors left over at that time ("extra").
    ///
    /// All jobs whose estimated end equals the shadow time count towards the
    /// extra processors, since they are all free at that instant. Returns
    /// `None` only when `need > total`, which no job can satisfy.
    pub fn shadow(&self, now: Time, need: u32) -> Option<(Time, u32)> {
        let mut avail = self.free();
        if avail >= need {
            return Some((now, avail - need));
        }
        let mut shadow: Option<Time> = None;
        for &(end, _, w) in &self.running {
            match shadow {
                Some(t) if end != t => break,
                _ => {}
            }
            avail += w;
            if shadow.is_none() && avail >= need {
                shadow = Some(end);
            }
        }
        shadow.map(|t| (t, avail - need))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shadow_counts_every_job_ending_at_the_shadow_time() {
        let mut m = Machine::new(10);
        let mut runs = Vec::new();
        m.allocate(0, 4, Time(5.0), &mut runs);
        m.allocate(1, 3, Time(5.0), &mut runs);
        m.allocate(2, 2, Time(9.0), &mut runs);
        assert_eq!(m.free(), 1);
        // needs 4: 1 free + 4 (job 0) suffices at t=5, job 1 also frees 3 then.
        assert_eq!(m.shadow(Time(0.0), 4), Some((Time(5.0), 4)));
        assert_eq!(m.shadow(Time(0.0), 10), Some((Time(9.0), 0)));
        assert_eq!(m.shadow(Time(0.0), 1), Some((Time(0.0), 0)));
        assert_eq!(m.shadow(Time(0.0), 11), None);
        assert_eq!(runs, vec![(0, 4), (4, 3), (7, 2)]);
    }

    #[test]
    fn release_returns_the_processors() {
        let mut m = Machine::new(4);
        let mut runs = Vec::new();
        m.allocate(7, 3, Time(2.0), &mut runs);
        m.release(7, Time(2.0), &runs);
        assert_eq!(m.free(), 4);
        assert_eq!(m.running().count(), 0);
        assert_eq!(m.free_runs, vec![(0, 4)]);
    }

    #[test]
    fn fragmented_allocations_take_the_lowest_ids_and_merge_back() {
        let mut m = Machine::new(10);
        let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
        m.allocate(0, 3, Time(1.0), &mut a); // 0..3
        m.allocate(1, 2, Time(9.0), &mut b); // 3..5
        m.allocate(2, 3, Time(1.0), &mut c); // 5..8
        m.release(0, Time(1.0), &a);
        m.release(2, Time(1.0), &c);
        let mut d = Vec::new();
        m.allocate(3, 6, Time(4.0), &mut d); // 0..3, then 5..8
        assert_eq!(d, vec![(0, 3), (5, 3)]);
        assert_eq!(m.free(), 2);
        m.release(1, Time(9.0), &b);
        m.release(3, Time(4.0), &d);
        assert_eq!(m.free_runs, vec![(0, 10)]);
    }
}
