use std::collections::{BTreeMap, BTreeSet};

use crate::time::Time;

/// Processors of a homogeneous cluster and the availability profile of the
/// jobs running on it.
///
/// Processors are numbered `0..total`; a starting job takes the lowest-numbered
/// free ones (a documented, deterministic rule that makes Gantt charts tidy).
/// The profile is the set of running jobs keyed by `(estimated end, job)`:
/// walking it in order gives the number of processors that will be free at any
/// future time if every job runs to its estimate, which is what backfilling
/// reads. Both are updated incrementally on each start and completion.
#[derive(Debug, Clone)]
pub struct Machine {
    total: u32,
    free_ids: BTreeSet<u32>,
    running: BTreeMap<(Time, u32), u32>,
}

impl Machine {
    /// An idle machine of `total` processors.
    pub fn new(total: u32) -> Self {
        Machine { total, free_ids: (0..total).collect(), running: BTreeMap::new() }
    }

    /// Number of processors.
    pub fn total(&self) -> u32 {
        self.total
    }

    /// Processors free now.
    pub fn free(&self) -> u32 {
        self.free_ids.len() as u32
    }

    /// Running jobs as `(estimated end, job, width)`, earliest estimated end first.
    pub fn running(&self) -> impl Iterator<Item = (Time, u32, u32)> + '_ {
        self.running.iter().map(|(&(end, job), &w)| (end, job, w))
    }

    /// Gives `width` free processors to `job` (appending their ids to `ids`).
    /// The caller guarantees `width <= self.free()`.
    pub(crate) fn allocate(&mut self, job: u32, width: u32, estimated_end: Time, ids: &mut Vec<u32>) {
        debug_assert!(width <= self.free());
        for _ in 0..width {
            if let Some(p) = self.free_ids.pop_first() {
                ids.push(p);
            }
        }
        self.running.insert((estimated_end, job), width);
    }

    /// Returns `job`'s processors `ids` to the free pool.
    pub(crate) fn release(&mut self, job: u32, estimated_end: Time, ids: &[u32]) {
        self.running.remove(&(estimated_end, job));
        self.free_ids.extend(ids.iter().copied());
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
        for (&(end, _), &w) in &self.running {
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
        let mut ids = Vec::new();
        m.allocate(0, 4, Time(5.0), &mut ids);
        m.allocate(1, 3, Time(5.0), &mut ids);
        m.allocate(2, 2, Time(9.0), &mut ids);
        assert_eq!(m.free(), 1);
        // needs 4: 1 free + 4 (job 0) suffices at t=5, job 1 also frees 3 then.
        assert_eq!(m.shadow(Time(0.0), 4), Some((Time(5.0), 4)));
        assert_eq!(m.shadow(Time(0.0), 10), Some((Time(9.0), 0)));
        assert_eq!(m.shadow(Time(0.0), 1), Some((Time(0.0), 0)));
        assert_eq!(m.shadow(Time(0.0), 11), None);
        assert_eq!(ids, (0..9).collect::<Vec<u32>>());
    }

    #[test]
    fn release_returns_the_processors() {
        let mut m = Machine::new(4);
        let mut ids = Vec::new();
        m.allocate(7, 3, Time(2.0), &mut ids);
        m.release(7, Time(2.0), &ids);
        assert_eq!(m.free(), 4);
        assert_eq!(m.running().count(), 0);
    }
}
