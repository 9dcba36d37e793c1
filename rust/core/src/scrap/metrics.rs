//! The metrics of one multi-cluster schedule (PDCS 2007 §4): the one
//! implementation, which `clustersched.scrap.metrics.multicluster_metrics`
//! calls (binding `_core.scrap_metrics`) and [`super::study`] calls in the
//! campaign's loop.
//!
//! Sums are exactly rounded ([`exact_sum`]): the result is the float nearest
//! the exact sum of the terms, whatever their order, so no metric depends on
//! a summation order (numpy's pairwise blocks, a SIMD width, a row order).

use super::platform::MultiCluster;
use super::schedule::ClusterSchedule;

/// The metrics of one schedule (`clustersched.scrap.metrics.MultiClusterMetrics`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Metrics {
    /// Latest end (0 without rows), s.
    pub makespan: f64,
    /// `Σ (end - start) · q · speed_k`, flop.
    pub energy: f64,
    /// `energy / (makespan · power)`.
    pub power_fraction: f64,
    /// Most power held at one instant, over the platform's.
    pub peak_power_fraction: f64,
}

/// The sum of `terms` rounded once: the float nearest their exact sum (ties
/// to even), as Python's `math.fsum` gives it (the same algorithm: Shewchuk's
/// non-overlapping partials, then a half-way correction of the last
/// rounding). Independent of the order of `terms`. An infinite term makes the
/// sum infinite (NaN with both signs, or with a NaN term); when a partial
/// overflows (where `math.fsum` raises OverflowError), that infinity.
pub fn exact_sum(terms: &[f64]) -> f64 {
    let mut partials: Vec<f64> = Vec::new();
    let mut special = 0.0;
    let mut inf_sum = 0.0;
    for &x0 in terms {
        let mut x = x0;
        if !x.is_finite() {
            // inf + -inf and NaN give NaN, as math.fsum raises or returns
            inf_sum += x;
            special += x;
            continue;
        }
        let mut i = 0;
        for j in 0..partials.len() {
            let mut y = partials[j];
            if x.abs() < y.abs() {
                std::mem::swap(&mut x, &mut y);
            }
            let hi = x + y;
            let lo = y - (hi - x);
            if lo != 0.0 {
                partials[i] = lo;
                i += 1;
            }
            x = hi;
        }
        partials.truncate(i);
        partials.push(x);
        if !x.is_finite() {
            // the partials overflowed: the exact sum is beyond float64
            return x;
        }
    }
    if special != 0.0 || special.is_nan() {
        return inf_sum;
    }
    let Some(mut hi) = partials.pop() else {
        return 0.0;
    };
    let mut lo = 0.0;
    while let Some(y) = partials.pop() {
        let x = hi;
        hi = x + y;
        let yr = hi - x;
        lo = y - yr;
        if lo != 0.0 {
            break;
        }
    }
    // half-way case: round by the sign of the next partial (Python's msum)
    if let Some(&next) = partials.last() {
        if (lo < 0.0 && next < 0.0) || (lo > 0.0 && next > 0.0) {
            let y = lo * 2.0;
            let x = hi + y;
            if y == x - hi {
                hi = x;
            }
        }
    }
    hi
}

/// The metrics of the schedule given by its columns (row `r` on cluster
/// `cluster[r]` over `[start[r], end[r])` with `proc_offsets[r + 1] -
/// proc_offsets[r]` processors of speed `speeds[cluster[r]]`) on a platform
/// of total power `power` (flop/s):
///
/// * makespan: the latest end, 0 without rows (NaN if an end is NaN);
/// * energy: `Σ (end - start) · (q · speed)`, each product rounded, the sum
///   exactly rounded ([`exact_sum`]);
/// * power fraction: `energy / (makespan · power)`, 0 for a zero makespan;
///   when that is not finite (the energy or the product overflowed), the
///   exactly rounded sum of `((end - start) / makespan) · (q · speed /
///   power)` instead, the same ratio without the overflow;
/// * peak: a sweep of starts (`+q · speed`) and ends (`-q · speed`) of the
///   rows of positive length, sorted by time then delta (ends first at equal
///   times; a stable sort), summed in that order, its largest value (at
///   least 0) over `power`.
///
/// # Panics
/// If the columns differ in length or a cluster has no speed (the binding
/// checks both).
pub fn schedule_metrics(
    cluster: &[usize],
    start: &[f64],
    end: &[f64],
    proc_offsets: &[usize],
    speeds: &[f64],
    power: f64,
) -> Metrics {
    let rows = cluster.len();
    let held: Vec<f64> = (0..rows)
        .map(|k| (proc_offsets[k + 1] - proc_offsets[k]) as f64 * speeds[cluster[k]])
        .collect();
    let duration: Vec<f64> = (0..rows).map(|k| end[k] - start[k]).collect();
    // the first NaN, else the largest
    let makespan = if rows == 0 {
        0.0
    } else {
        end.iter().copied().fold(f64::NEG_INFINITY, |m, x| {
            if m.is_nan() || x.is_nan() {
                f64::NAN
            } else {
                m.max(x)
            }
        })
    };
    let products: Vec<f64> = duration.iter().zip(&held).map(|(d, h)| d * h).collect();
    let energy = exact_sum(&products);
    let mut fraction = if makespan > 0.0 {
        energy / (makespan * power)
    } else {
        0.0
    };
    if makespan > 0.0 && !fraction.is_finite() {
        let scaled: Vec<f64> = duration
            .iter()
            .zip(&held)
            .map(|(d, h)| (d / makespan) * (h / power))
            .collect();
        fraction = exact_sum(&scaled);
    }
    let live = |k: &usize| duration[*k] > 0.0;
    let mut events: Vec<(f64, f64)> = Vec::with_capacity(2 * rows);
    events.extend((0..rows).filter(live).map(|k| (start[k], held[k])));
    events.extend((0..rows).filter(live).map(|k| (end[k], -held[k])));
    // stable, by time then delta (no NaN among rows of positive length; -0.0 == 0.0)
    let cmp = |x: f64, y: f64| x.partial_cmp(&y).unwrap_or(std::cmp::Ordering::Equal);
    events.sort_by(|a, b| cmp(a.0, b.0).then(cmp(a.1, b.1)));
    let (mut sum, mut peak) = (0.0, 0.0);
    for &(_, delta) in &events {
        sum += delta;
        if sum > peak || sum.is_nan() {
            peak = sum;
        }
    }
    Metrics {
        makespan,
        energy,
        power_fraction: fraction,
        peak_power_fraction: peak / power,
    }
}

/// [`schedule_metrics`] of `s` on `platform` of total power `power` (flop/s,
/// the Python platform's `power`).
pub fn metrics(platform: &MultiCluster, power: f64, s: &ClusterSchedule) -> Metrics {
    let speeds: Vec<f64> = (0..platform.len()).map(|k| platform.speed(k)).collect();
    schedule_metrics(&s.cluster, &s.start, &s.end, &s.proc_offsets, &speeds, power)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn exact_sum_rounds_once() {
        assert_eq!(exact_sum(&[]), 0.0);
        assert_eq!(exact_sum(&[1.0, 2.0, 3.0]), 6.0);
        // the 1s are lost one at a time in any float order, kept by the exact sum
        assert_eq!(exact_sum(&[1e16, 1.0, 1.0, 1.0, 1.0]), 1e16 + 4.0);
        assert_eq!(exact_sum(&[1e100, 1.0, -1e100, 1.0]), 2.0);
        assert_eq!(exact_sum(&[0.1; 10]), 1.0);
        // half-way: 1 + 2^-53 + 2^-106 rounds up, 1 + 2^-53 alone to even
        let (h, t) = (2f64.powi(-53), 2f64.powi(-106));
        assert_eq!(exact_sum(&[1.0, h, t]), 1.0 + 2.0 * h);
        assert_eq!(exact_sum(&[1.0, h]), 1.0);
        assert_eq!(exact_sum(&[f64::MAX, f64::MAX]), f64::INFINITY);
        assert_eq!(exact_sum(&[f64::MAX, f64::MAX, -f64::MAX]), f64::INFINITY);
        assert_eq!(exact_sum(&[f64::INFINITY, 1.0]), f64::INFINITY);
        assert!(exact_sum(&[f64::INFINITY, f64::NEG_INFINITY]).is_nan());
        assert!(exact_sum(&[f64::NAN, 1.0]).is_nan());
    }

    proptest! {
        #[test]
        fn exact_sum_ignores_the_order(mut xs in prop::collection::vec(-1e12f64..1e12, 0..300), seed in any::<u64>()) {
            let once = exact_sum(&xs);
            // a rotation and a reversal: every order gives the same float
            let k = (seed as usize) % (xs.len() + 1);
            xs.rotate_left(k);
            prop_assert_eq!(exact_sum(&xs).to_bits(), once.to_bits());
            xs.reverse();
            prop_assert_eq!(exact_sum(&xs).to_bits(), once.to_bits());
            // and it is within half an ulp of the plain sum's error bound
            let plain: f64 = xs.iter().sum();
            let bound = xs.iter().map(|x| x.abs()).sum::<f64>() * xs.len() as f64 * f64::EPSILON;
            prop_assert!((plain - once).abs() <= bound + f64::MIN_POSITIVE);
        }
    }

    #[test]
    fn metrics_of_one_task() {
        let p = MultiCluster::new(vec![4, 4], vec![1e9, 1e9]).unwrap();
        let s = ClusterSchedule {
            task: vec![0],
            cluster: vec![0],
            start: vec![0.0],
            end: vec![2.0],
            proc_offsets: vec![0, 2],
            proc_ids: vec![0, 1],
        };
        let m = metrics(&p, 8e9, &s);
        assert_eq!(
            (m.makespan, m.energy, m.power_fraction, m.peak_power_fraction),
            (2.0, 4e9, 0.25, 0.25)
        );
    }
}
