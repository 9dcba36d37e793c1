//! The K-shelf packing of CAFM_K_SHELVES (RR-7224 §4.4, after Dutot,
//! Eyraud, Mounié & Trystram, "Bi-criteria algorithm for scheduling jobs on
//! cluster platforms", SPAA 2004, its [11]).

use super::moldable::Profiles;
use crate::error::{Error, Result};

/// What [`k_shelves`] returns: shelves in time order, and per job its shelf
/// and box.
#[derive(Debug, Clone, PartialEq)]
pub struct KShelves {
    /// Length of each shelf (seconds), non-decreasing.
    pub length: Vec<f64>,
    /// Start of each shelf: the sum of the previous lengths.
    pub start: Vec<f64>,
    /// Shelf of each job (index into `length` / `start`).
    pub shelf: Vec<usize>,
    /// Processors of each job: its smallest allocation fitting its shelf.
    pub alloc: Vec<u32>,
    /// Duration of each job's box: its time on `alloc` processors (`<=` its shelf's length).
    pub duration: Vec<f64>,
}

/// The jobs of `shelf` packed into one shelf of `procs` processors: a
/// knapsack with unit weights (maximise the number of jobs), job `j` of size
/// `size[j]`.
///
/// With unit weights the knapsack is solved exactly by taking the smallest
/// sizes first (exchange argument: any packing of `k` jobs can swap each of
/// its jobs for one of the `k` smallest without growing), so this is the
/// dynamic program of [11] specialised to equal weights. Among the packings
/// of most jobs this one takes the `k` smallest sizes, ties to the lowest
/// job index. Returns the jobs taken, by increasing size then index.
pub fn unit_knapsack(size: &[(usize, u32)], procs: u32) -> Vec<usize> {
    let mut order = size.to_vec();
    order.sort_by_key(|&(j, s)| (s, j));
    let mut left = procs;
    order
        .into_iter()
        .take_while(|&(_, s)| {
            let fits = s <= left;
            if fits {
                left -= s;
            }
            fits
        })
        .map(|(j, _)| j)
        .collect()
}

/// Packs moldable jobs into shelves of non-decreasing length up to `cmax`
/// (RR-7224 §4.4's CAFM_K_SHELVES, after [11]).
///
/// * Lengths. RR-7224: `K` "depends on C*_max and the smallest possible
///   execution time over all jobs", and "shelves increase in duration". We
///   take the geometric shelves of [11]'s bi-criteria scheme, halving from
///   `cmax`: with `t_min` the shortest time of any job on any allocation,
///   `K` is the smallest `k >= 1` with `cmax / 2^k < t_min`, and shelf
///   `k = 0..K` has length `cmax / 2^(K-1-k)` (the first is the shortest in
///   which some job fits; the last is `cmax`). The text of [11] was not
///   available to us; this doubling is our reading of it.
/// * Packing. Shelf by shelf, shortest first, the jobs not yet packed that
///   have an allocation of time `<=` the shelf's length, each on its
///   smallest such allocation, are packed by [`unit_knapsack`] (unit weights:
///   RR-7224 maximises an unweighted fairness, where [11] weighs jobs). A
///   shelf that receives no job is dropped (it would only delay the next).
///   Shelf order is kept (RR-7224: no shuffling).
/// * Leftovers. Jobs still unpacked after the `cmax` shelf go to further
///   shelves of length `cmax`, one after another, until all are packed (a
///   `cmax` shelf takes at least one job, so this ends). With `cmax` from
///   [`super::dutot_allocation`] the sum of the lengths is not bounded by
///   `cmax`; the boxes are only the starting point that CAFM maps tasks
///   into and then compacts by backfilling.
///
/// # Errors
/// [`Error::InvalidArgument`] for `cmax` not finite and `> 0`;
/// [`Error::Infeasible`] naming a job with no allocation of time `<= cmax`.
pub fn k_shelves(prof: &Profiles, cmax: f64) -> Result<KShelves> {
    if !(cmax.is_finite() && cmax > 0.0) {
        return Err(Error::InvalidArgument(format!(
            "cmax == {cmax}, must be finite and > 0"
        )));
    }
    let n = prof.jobs();
    let mut t_min = f64::INFINITY;
    for j in 0..n {
        let fastest = prof.fastest(j);
        if fastest > cmax {
            return Err(Error::Infeasible(format!(
                "job {j}: fastest time {fastest} on any allocation > cmax == {cmax}: it fits no shelf"
            )));
        }
        t_min = t_min.min(fastest);
    }
    // halvings of cmax that still hold a job (exact: halving a float is exact)
    let mut halvings = 0i32;
    while cmax / 2f64.powi(halvings + 1) >= t_min {
        halvings += 1;
    }
    let mut out = KShelves {
        length: Vec::new(),
        start: Vec::new(),
        shelf: vec![usize::MAX; n],
        alloc: vec![0; n],
        duration: vec![0.0; n],
    };
    let mut left = n;
    let mut clock = 0.0;
    let mut k = 0i32;
    while left > 0 {
        let length = cmax / 2f64.powi((halvings - k).max(0));
        k += 1;
        let candidates: Vec<(usize, u32)> = (0..n)
            .filter(|&j| out.shelf[j] == usize::MAX)
            .filter_map(|j| prof.min_alloc(j, length).map(|p| (j, p)))
            .collect();
        let packed = unit_knapsack(&candidates, prof.procs());
        if packed.is_empty() {
            continue;
        }
        let index = out.length.len();
        for &j in &packed {
            let p = candidates
                .iter()
                .find(|&&(c, _)| c == j)
                .map(|&(_, p)| p)
                .expect("packed from candidates");
            out.shelf[j] = index;
            out.alloc[j] = p;
            out.duration[j] = prof.time(j, p);
        }
        left -= packed.len();
        out.length.push(length);
        out.start.push(clock);
        clock += length;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::moldable::tests::table;
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn shelves_by_hand() {
        // P = 2, cmax 8, t_min 1.5: shelves 2, 4, 8 (8/8 = 1 < 1.5).
        // Shelf 2: jobs 0 (2 procs) and 1 (2 procs) fit, room for one: job 0 (lowest index).
        // Shelf 4: job 1 on 1 (3 s), job 2 on 2 (3.5 s): room for one, the smaller: job 1.
        // Shelf 8: jobs 2 (7 s) and 3 (8 s) on one processor each.
        let prof = table(&[&[3.0, 1.5], &[3.0, 2.0], &[7.0, 3.5], &[8.0, 8.0]]);
        let s = k_shelves(&prof, 8.0).unwrap();
        assert_eq!(s.length, vec![2.0, 4.0, 8.0]);
        assert_eq!(s.start, vec![0.0, 2.0, 6.0]);
        assert_eq!(s.shelf, vec![0, 1, 2, 2]);
        assert_eq!(s.alloc, vec![2, 1, 1, 1]);
        assert_eq!(s.duration, vec![1.5, 3.0, 7.0, 8.0]);
        // shelves 1, 2, 4, 8: those of 2 and 4 receive nothing and are dropped
        let s = k_shelves(&table(&[&[1.0, 1.0], &[8.0, 8.0]]), 8.0).unwrap();
        assert_eq!(
            (s.length, s.start, s.shelf),
            (vec![1.0, 8.0], vec![0.0, 1.0], vec![0, 1])
        );
        assert!(k_shelves(&prof, 7.0).is_err()); // job 3 needs 8
        assert!(k_shelves(&prof, f64::INFINITY).is_err());
    }

    #[test]
    fn knapsack_takes_the_smallest() {
        assert_eq!(unit_knapsack(&[(0, 3), (1, 1), (2, 2), (3, 1)], 4), vec![1, 3, 2]);
        assert_eq!(unit_knapsack(&[(0, 5)], 4), Vec::<usize>::new());
    }

    proptest! {
        #[test]
        fn knapsack_matches_brute_force(sizes in prop::collection::vec(1u32..8, 0..9), procs in 1u32..12) {
            let items: Vec<(usize, u32)> = sizes.iter().copied().enumerate().collect();
            let taken = unit_knapsack(&items, procs);
            let best = (0u32..1 << items.len())
                .filter(|m| items.iter().filter(|&&(j, _)| m >> j & 1 == 1).map(|&(_, s)| s).sum::<u32>() <= procs)
                .map(u32::count_ones)
                .max()
                .unwrap();
            prop_assert_eq!(taken.len() as u32, best);
            prop_assert!(taken.iter().map(|&j| sizes[j]).sum::<u32>() <= procs);
        }

        #[test]
        fn every_job_fits_its_shelf(rows in prop::collection::vec(prop::collection::vec(0.01f64..100.0, 5), 1..10), scale in 1.0f64..4.0) {
            let prof = Profiles::new(rows.concat(), 5).unwrap();
            let cmax = (0..prof.jobs()).map(|j| prof.fastest(j)).fold(0.0, f64::max) * scale;
            let s = k_shelves(&prof, cmax).unwrap();
            prop_assert!(s.length.windows(2).all(|w| w[0] <= w[1]));
            for (k, &len) in s.length.iter().enumerate() {
                let jobs: Vec<usize> = (0..prof.jobs()).filter(|&j| s.shelf[j] == k).collect();
                prop_assert!(!jobs.is_empty());
                prop_assert!(jobs.iter().map(|&j| s.alloc[j]).sum::<u32>() <= 5);
                for &j in &jobs {
                    prop_assert!(s.duration[j] <= len && s.alloc[j] == prof.min_alloc(j, len).unwrap());
                }
            }
        }
    }
}
