//! The 3/2 + ε dual approximation for independent moldable jobs of Mounié,
//! Rapine & Trystram, as presented by Dutot, Mounié & Trystram
//! ("Scheduling parallel tasks: approximation algorithms", Handbook of
//! Scheduling, 2004, ch. 26), which RR-7224 §4.4 calls [12].

use super::moldable::Profiles;
use crate::error::{Error, Result};

/// Where the two-shelf choice put a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shelf {
    /// A *small* job (`t(1) <= λ/2`): one processor, outside the knapsack;
    /// MRT fill the gaps of the two shelves with these sequential jobs.
    Small,
    /// The first shelf, of length `λ`: allocation `γ(j, λ)`.
    First,
    /// The second shelf, of length `λ/2`: allocation `γ(j, λ/2)`.
    Second,
}

/// What [`dutot_allocation`] returns.
#[derive(Debug, Clone, PartialEq)]
pub struct Dutot {
    /// The approximation of `C*_max`: the smallest guess `λ` the search
    /// accepted. For monotone jobs `lower <= OPT`, `cmax <= (1 + ε) · OPT`
    /// and `OPT <= 3/2 · cmax` (see [`dutot_allocation`]).
    pub cmax: f64,
    /// The largest guess known to be below the optimum: a rejected `λ`, or
    /// the initial lower bound if every guess was accepted.
    pub lower: f64,
    /// Processors of each job in the two-shelf choice at `cmax`.
    pub alloc: Vec<u32>,
    /// The shelf of each job at `cmax`.
    pub shelf: Vec<Shelf>,
    /// Total work (processor-seconds) of that choice, small jobs included
    /// (`<= procs · cmax`).
    pub work: f64,
    /// Guesses tested (the bounds' checks included).
    pub guesses: u32,
}

/// The two-shelf choice at one guess `λ`, or `None` when `λ` is rejected.
///
/// 1. A job with no allocation of time `<= λ` rejects `λ` (no schedule of
///    length `λ` exists).
/// 2. *Small* jobs, `t(1) <= λ/2`, take one processor and stay out of the
///    knapsack (their work `t(1)` is counted).
/// 3. Every other job goes to the first shelf on `γ(j, λ)` processors or to
///    the second on `γ(j, λ/2)`, `γ(j, x)` = the smallest allocation of time
///    `<= x` ([`Profiles::min_alloc`]); a job without `γ(j, λ/2)` must take
///    the first. The choice minimises the total work subject to
///    `Σ_{first} γ(j, λ) <= P`: a 0/1 knapsack of capacity `P` minus the
///    forced jobs' processors, item `j` of weight `γ(j, λ)` and profit the
///    work it saves, `w(j, γ(j, λ/2)) - w(j, γ(j, λ))`, solved exactly by
///    dynamic programming over capacities (items in index order; an item is
///    taken only when strictly better, so among optimal choices the DP's
///    reconstruction is the one kept).
/// 4. `λ` is rejected when the forced jobs alone exceed `P` processors or
///    the total work (summed in job order) exceeds `P · λ`.
pub(crate) fn two_shelves(prof: &Profiles, lambda: f64) -> Option<(Vec<u32>, Vec<Shelf>, f64)> {
    let procs = prof.procs();
    let n = prof.jobs();
    let half = lambda / 2.0;
    let mut alloc = vec![1u32; n];
    let mut shelf = vec![Shelf::Small; n];
    // The knapsack's items: (job, weight γ(j, λ), profit), and the capacity left.
    let mut items: Vec<(usize, u32, f64)> = Vec::new();
    let mut capacity = i64::from(procs);
    for j in 0..n {
        let first = prof.min_alloc(j, lambda)?;
        if prof.time(j, 1) <= half {
            continue;
        }
        match prof.min_alloc(j, half) {
            None => {
                alloc[j] = first;
                shelf[j] = Shelf::First;
                capacity -= i64::from(first);
            }
            Some(second) => {
                alloc[j] = second;
                shelf[j] = Shelf::Second;
                items.push((j, first, prof.work(j, second) - prof.work(j, first)));
            }
        }
    }
    if capacity < 0 {
        return None;
    }
    // Capacities beyond what all items need change nothing: bound the table.
    let total: u64 = items.iter().map(|&(_, w, _)| u64::from(w)).sum();
    let cap = (capacity as u64).min(total) as usize;
    let mut best = vec![0.0f64; cap + 1];
    let mut take = vec![false; items.len() * (cap + 1)];
    for (i, &(_, weight, profit)) in items.iter().enumerate() {
        let w = weight as usize;
        for c in (w..=cap).rev() {
            let with = best[c - w] + profit;
            if with > best[c] {
                best[c] = with;
                take[i * (cap + 1) + c] = true;
            }
        }
    }
    let mut c = cap;
    for (i, &(j, weight, _)) in items.iter().enumerate().rev() {
        if take[i * (cap + 1) + c] {
            alloc[j] = weight;
            shelf[j] = Shelf::First;
            c -= weight as usize;
        }
    }
    let mut work = 0.0;
    for (j, &p) in alloc.iter().enumerate() {
        work += prof.work(j, p);
    }
    (work <= f64::from(procs) * lambda).then_some((alloc, shelf, work))
}

/// Allocations of independent moldable jobs by the 3/2 + ε dual
/// approximation of Mounié, Rapine & Trystram (SIAM J. Comput. 37(2), 2007;
/// Dutot, Mounié & Trystram, Handbook of Scheduling, 2004, §"3/2"), the
/// algorithm RR-7224 §4.4 runs on the PTGs' moldable profiles ([12] there).
///
/// A guess `λ` is tested by the two-shelf knapsack (first shelf of length
/// `λ`, second of `λ/2`, small jobs aside; [`two_shelves`]'s rules). For
/// *monotone* jobs (time non-increasing and work `p · t(p)` non-decreasing
/// in `p`) every `λ >= OPT` is accepted: in an optimal schedule the jobs
/// longer than `λ/2` never share a processor, so they use at most `P`
/// processors on at least their `γ(j, λ)` each, the others run on at least
/// `γ(j, λ/2)`, and monotony makes the canonical allocations the cheapest.
/// So a rejected `λ` is a lower bound on `OPT`. MRT show that from an
/// accepted `λ` a schedule of length `3/2 · λ` can be built (their
/// transformations of the two shelves, which RR-7224 does not use and we do
/// not implement), so `OPT <= 3/2 · λ`.
///
/// The search: `lower` starts at `max(max_j min_p t(j, p), Σ_j min_p w(j, p) / P)`
/// (a lower bound on `OPT` for any profile), the upper guess at
/// `max(2 max_j t(j, 1), Σ_j t(j, 1) / P)` (all jobs small: always
/// accepted). If `lower` itself is accepted it is returned; otherwise the
/// search bisects geometrically (`λ = lower · sqrt(upper / lower)`) until
/// `upper <= (1 + ε) · lower`, and returns `upper`. Hence, for monotone jobs,
/// `lower <= OPT`, `cmax <= (1 + ε) · OPT` and `OPT <= 3/2 · cmax`.
///
/// Profiles that are not monotone (a PTG's raw HCPA profile) are accepted
/// as they are; `γ` is then still the smallest allocation meeting the
/// guess, and the guarantees above may fail.
///
/// # Errors
/// [`Error::InvalidArgument`] for `epsilon` not in `(0, 1]`.
pub fn dutot_allocation(prof: &Profiles, epsilon: f64) -> Result<Dutot> {
    if !(epsilon > 0.0 && epsilon <= 1.0) {
        return Err(Error::InvalidArgument(format!(
            "epsilon == {epsilon}, must be in (0, 1]"
        )));
    }
    let procs = f64::from(prof.procs());
    let n = prof.jobs();
    let (mut fastest, mut least_work, mut longest_seq, mut seq_work) = (0.0f64, 0.0, 0.0f64, 0.0);
    for j in 0..n {
        fastest = fastest.max(prof.fastest(j));
        least_work += (1..=prof.procs())
            .map(|p| prof.work(j, p))
            .fold(f64::INFINITY, f64::min);
        longest_seq = longest_seq.max(prof.time(j, 1));
        seq_work += prof.time(j, 1);
    }
    let mut lower = fastest.max(least_work / procs);
    let mut upper = (2.0 * longest_seq).max(seq_work / procs);
    let mut guesses = 1;
    if let Some((alloc, shelf, work)) = two_shelves(prof, lower) {
        return Ok(Dutot {
            cmax: lower,
            lower,
            alloc,
            shelf,
            work,
            guesses,
        });
    }
    guesses += 1;
    let mut kept = two_shelves(prof, upper).expect("a guess with every job small is always accepted");
    while upper > (1.0 + epsilon) * lower {
        let lambda = lower * (upper / lower).sqrt();
        // float exhaustion: no guess left strictly between the bounds
        if !(lambda > lower && lambda < upper) {
            break;
        }
        guesses += 1;
        match two_shelves(prof, lambda) {
            Some(choice) => {
                upper = lambda;
                kept = choice;
            }
            None => lower = lambda,
        }
    }
    let (alloc, shelf, work) = kept;
    Ok(Dutot {
        cmax: upper,
        lower,
        alloc,
        shelf,
        work,
        guesses,
    })
}

#[cfg(test)]
mod tests {
    use super::super::moldable::tests::table;
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn two_shelves_by_hand() {
        // P = 4, λ = 4. Job 0 (8, 3.5, 3, 2): γ(λ) = 2 (work 7), γ(λ/2) = 4 (work 8), saves 1.
        // Job 1 (6, 3, 2, 2): γ(λ) = 2, γ(λ/2) = 3, both of work 6: saves nothing.
        // Job 2 (1, ...): small. Knapsack, capacity 4: job 0 only.
        let prof = table(&[&[8.0, 3.5, 3.0, 2.0], &[6.0, 3.0, 2.0, 2.0], &[1.0, 1.0, 1.0, 1.0]]);
        let (alloc, shelf, work) = two_shelves(&prof, 4.0).unwrap();
        assert_eq!(alloc, vec![2, 3, 1]);
        assert_eq!(shelf, vec![Shelf::First, Shelf::Second, Shelf::Small]);
        assert_eq!(work, 7.0 + 6.0 + 1.0);
        // λ = 1.9: job 0 cannot meet it
        assert!(two_shelves(&prof, 1.9).is_none());
        // λ = 3: job 0 γ(3) = 3, no γ(1.5): forced; job 1 γ(3) = 2 > 1 left, so second
        // shelf on γ(1.5) -- none: forced too, 5 > 4 processors
        assert!(two_shelves(&prof, 3.0).is_none());
    }

    #[test]
    fn one_perfectly_parallel_job() {
        // t(p) = 12 / p on 4: OPT = 3 = the lower bound, accepted at once
        let prof = table(&[&[12.0, 6.0, 4.0, 3.0]]);
        let d = dutot_allocation(&prof, 0.01).unwrap();
        assert_eq!((d.cmax, d.alloc.as_slice(), d.guesses), (3.0, &[4][..], 1));
        assert!(dutot_allocation(&prof, 0.0).is_err());
        assert!(dutot_allocation(&prof, f64::NAN).is_err());
    }

    #[test]
    fn two_sequential_jobs_search() {
        // two jobs, t = 2 on any allocation, P = 2: OPT = 2 (side by side)
        let prof = table(&[&[2.0, 2.0], &[2.0, 2.0]]);
        let d = dutot_allocation(&prof, 0.01).unwrap();
        assert_eq!(d.cmax, 2.0);
        // three on 2 processors: OPT = 4; the lower bound 3 is rejected
        let prof = table(&[&[2.0, 2.0], &[2.0, 2.0], &[2.0, 2.0]]);
        let d = dutot_allocation(&prof, 0.01).unwrap();
        assert!(d.lower < d.cmax && d.cmax <= 1.01 * d.lower && d.lower <= 4.0 && 4.0 <= 1.5 * d.cmax);
        assert!(d.work <= 2.0 * d.cmax);
    }

    proptest! {
        #[test]
        fn accepted_choices_are_consistent(
            rows in prop::collection::vec(prop::collection::vec(0.01f64..100.0, 6), 1..8),
            eps in 0.001f64..1.0,
        ) {
            let procs = 6u32;
            let prof = Profiles::new(rows.concat(), procs).unwrap();
            let d = dutot_allocation(&prof, eps).unwrap();
            prop_assert!(d.lower <= d.cmax && d.cmax <= (1.0 + eps) * d.lower);
            prop_assert!(d.work <= f64::from(procs) * d.cmax);
            let mut first = 0;
            for j in 0..prof.jobs() {
                let t = prof.time(j, d.alloc[j]);
                match d.shelf[j] {
                    Shelf::Small => prop_assert!(d.alloc[j] == 1 && t <= d.cmax / 2.0),
                    Shelf::First => { prop_assert!(t <= d.cmax); first += d.alloc[j]; }
                    Shelf::Second => prop_assert!(t <= d.cmax / 2.0),
                }
            }
            prop_assert!(first <= procs);
        }
    }
}
