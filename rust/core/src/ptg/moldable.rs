//! Each PTG as one moldable job (RR-7224 §4.4): its HCPA makespan on
//! `p = 1..P` processors, and the validated table of such profiles that the
//! CAFM kernels ([`super::dutot_allocation`], [`super::k_shelves`]) read.

use super::graph::{Ptg, PtgSet};
use super::hcpa::{schedule_alone, HcpaLimits, HcpaRule};
use crate::error::{Error, Item, Result};

/// The raw moldable profile of `g`: `profile[p - 1]` is the makespan of `g`
/// alone on a dedicated cluster of `p` processors by HCPA, for `p = 1..=procs`.
///
/// "The first step of all algorithms is to compute the execution time of
/// each PTG assuming that p processors are available, with p varying from 1
/// to P. This is done using the improved HCPA algorithm" (RR-7224 §4.4).
/// For each `p`: [`super::hcpa_allocation`] with [`HcpaLimits::cluster`]`(p,
/// rule)` (allocation and stopping rule both for `p` processors), then
/// [`super::list_schedule`] on `p` processors by decreasing bottom level, as
/// [`super::hcpa_schedule`]; the makespan is the latest end (folded from
/// `0.0` in schedule order), so `profile[procs - 1]` is the PTG's `C*_max`
/// on the whole cluster, bit for bit.
///
/// Every `p` is a full HCPA run: allocations for `p` and `p + 1` share no
/// state (the stopping rule's divisor and the per-task cap both move), and
/// the runs are cheap enough (10 random PTGs on 216 processors: well under
/// a second in all, see benches/bench_ptg.py).
///
/// The result need not be non-increasing in `p` (HCPA is a heuristic);
/// [`monotone_profile`] gives the usual monotone version.
///
/// # Errors
/// As [`super::hcpa_allocation`] and [`super::list_schedule`] (a bad speed,
/// `procs == 0`).
pub fn moldable_profile(g: &Ptg, procs: u32, speed: f64, rule: HcpaRule) -> Result<Vec<f64>> {
    if procs == 0 {
        return Err(Error::InvalidArgument("procs == 0, must be >= 1".into()));
    }
    // one set for all the runs: list scheduling needs a PtgSet
    let one = PtgSet::new(vec![g.clone()])?;
    (1..=procs)
        .map(|p| {
            let (_, _, schedule) = schedule_alone(&one, p, speed, &HcpaLimits::cluster(p, rule))?;
            let mut makespan = 0.0;
            for &end in &schedule.end {
                if end > makespan {
                    makespan = end;
                }
            }
            Ok(makespan)
        })
        .collect()
}

/// [`moldable_profile`] of every PTG of `set`, one row of `procs` values
/// per PTG, concatenated (row-major `len(set) x procs`).
///
/// # Errors
/// As [`moldable_profile`]; an error of PTG `i` is reported as
/// [`Error::Invalid`] about PTG `i`.
pub fn moldable_profiles(set: &PtgSet, procs: u32, speed: f64, rule: HcpaRule) -> Result<Vec<f64>> {
    let mut out = Vec::with_capacity(set.len() * procs as usize);
    for (i, g) in set.graphs().iter().enumerate() {
        let row = moldable_profile(g, procs, speed, rule).map_err(|e| e.in_ptg(i))?;
        out.extend_from_slice(&row);
    }
    Ok(out)
}

/// The running minimum of a profile: `out[p - 1] = min(profile[..p])`.
///
/// Dutot, Mounié & Trystram's algorithms assume *monotone* moldable jobs
/// (execution time non-increasing in the processor count). HCPA's makespan
/// is not always so; the usual fix is to let a job given `p` processors run
/// with the best allocation `q <= p` it has, leaving the other `p - q`
/// processors idle, which makes the time non-increasing. (It does not make
/// the work `p * t(p)` non-decreasing, the other half of the monotony the
/// 3/2 guarantee needs; see [`super::dutot_allocation`].)
pub fn monotone_profile(profile: &[f64]) -> Vec<f64> {
    let mut best = f64::INFINITY;
    profile
        .iter()
        .map(|&t| {
            if t < best {
                best = t;
            }
            best
        })
        .collect()
}

/// A table of moldable jobs: `time(j, p)`, the execution time of job `j` on
/// `p = 1..=procs` processors, every value finite and `> 0`.
#[derive(Debug, Clone, PartialEq)]
pub struct Profiles {
    times: Vec<f64>,
    procs: u32,
}

impl Profiles {
    /// A table from `times`, row-major `jobs x procs` (row `j` is job `j`'s
    /// times on `1..=procs` processors).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for `procs == 0`, no job, or a length that
    /// is not a multiple of `procs`; [`Error::Invalid`] (about the PTG) for a time that is
    /// not finite and `> 0`.
    pub fn new(times: Vec<f64>, procs: u32) -> Result<Profiles> {
        if procs == 0 {
            return Err(Error::InvalidArgument("procs == 0, must be >= 1".into()));
        }
        let width = procs as usize;
        if times.is_empty() || !times.len().is_multiple_of(width) {
            return Err(Error::InvalidArgument(format!(
                "{} profile values for {procs} processors: need a positive multiple of {procs} (one row per job)",
                times.len()
            )));
        }
        if let Some(k) = times.iter().position(|t| !(t.is_finite() && *t > 0.0)) {
            return Err(Error::invalid_item(
                Item::Ptg(k / width),
                format!(
                    "time on {} processors == {}, must be finite and > 0",
                    k % width + 1,
                    times[k]
                ),
            ));
        }
        Ok(Profiles { times, procs })
    }

    /// Number of jobs.
    pub fn jobs(&self) -> usize {
        self.times.len() / self.procs as usize
    }

    /// Processors of the cluster (the profiles' width).
    pub fn procs(&self) -> u32 {
        self.procs
    }

    /// Execution time of job `j` on `p` processors (`1 <= p <= procs`).
    #[inline]
    pub fn time(&self, j: usize, p: u32) -> f64 {
        self.times[j * self.procs as usize + (p as usize - 1)]
    }

    /// Work (processor-seconds) of job `j` on `p` processors: `p * time(j, p)`.
    #[inline]
    pub fn work(&self, j: usize, p: u32) -> f64 {
        f64::from(p) * self.time(j, p)
    }

    /// The smallest allocation of job `j` whose time is `<= limit`, if any
    /// (the canonical allocation `γ(j, limit)` of Mounié, Rapine & Trystram).
    pub fn min_alloc(&self, j: usize, limit: f64) -> Option<u32> {
        (1..=self.procs).find(|&p| self.time(j, p) <= limit)
    }

    /// The shortest time of job `j` on any allocation.
    pub fn fastest(&self, j: usize) -> f64 {
        (1..=self.procs).map(|p| self.time(j, p)).fold(f64::INFINITY, f64::min)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::super::graph::tests::{arb_ptg, fork_join};
    use super::super::hcpa::hcpa_schedule;
    use super::*;
    use proptest::prelude::*;

    /// A profile table from its rows (one per job, all of the same length).
    pub(crate) fn table(rows: &[&[f64]]) -> Profiles {
        let procs = rows[0].len() as u32;
        Profiles::new(rows.iter().flat_map(|r| r.iter().copied()).collect(), procs).unwrap()
    }

    #[test]
    fn fork_join_profile_by_hand() {
        // p = 1: everything sequential, 1 + 8 + 2 + 1 = 12 s (c after b on the one processor)
        let raw = moldable_profile(&fork_join(), 4, 1.0, HcpaRule::Cpa).unwrap();
        assert_eq!(raw[0], 12.0);
        assert_eq!(raw[3], 5.0); // C*_max of the hcpa tests
        assert_eq!(monotone_profile(&[3.0, 2.0, 2.5, 1.0]), vec![3.0, 2.0, 2.0, 1.0]);
    }

    #[test]
    fn rejects_bad_tables() {
        assert!(moldable_profile(&fork_join(), 0, 1.0, HcpaRule::Sqrt).is_err());
        assert!(Profiles::new(vec![1.0; 5], 2).is_err());
        assert!(Profiles::new(vec![], 2).is_err());
        assert!(Profiles::new(vec![1.0; 4], 0).is_err());
        let err = Profiles::new(vec![1.0, 2.0, 1.0, f64::NAN], 2).unwrap_err();
        assert_eq!(
            err,
            Error::invalid_item(Item::Ptg(1), "time on 2 processors == NaN, must be finite and > 0")
        );
    }

    proptest! {
        #[test]
        fn each_value_is_hcpa_on_that_many_processors(g in arb_ptg(), procs in 1u32..12, sqrt in any::<bool>()) {
            let rule = if sqrt { HcpaRule::Sqrt } else { HcpaRule::Cpa };
            let raw = moldable_profile(&g, procs, 2.0, rule).unwrap();
            for p in 1..=procs {
                let (_, _, s) = hcpa_schedule(&g, p, 2.0, &HcpaLimits::cluster(p, rule)).unwrap();
                prop_assert_eq!(raw[p as usize - 1], s.end.iter().fold(0.0, |m: f64, &e| if e > m { e } else { m }));
            }
            let mono = monotone_profile(&raw);
            prop_assert!(mono.windows(2).all(|w| w[1] <= w[0]));
            prop_assert!(mono.iter().zip(&raw).all(|(m, r)| m <= r));
        }
    }
}
