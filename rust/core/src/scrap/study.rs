//! Every run of PDCS 2007 §4 on one (PTG, platform) pair in one call: HCPA,
//! then SCRAP, SCRAP-MAX and MHEFT-MAX at each `β`, each schedule checked
//! and measured. The campaign of `clustersched reproduce scrap` makes 31 runs
//! of well under a millisecond per pair; one call instead of 31 (and of the
//! checks and metrics around them) keeps the per-run overhead out of the
//! study. Every run is the very call a single run makes
//! ([`hcpa_reference_allocation`], [`scrap_allocation`], [`place_reference`],
//! [`mheft_max`], [`beta_estimate`], [`check_cluster_schedule`]), and
//! [`metrics`] gives the floats `clustersched.scrap.metrics` computes with
//! numpy, bit for bit.

use super::allocation::{beta_estimate, hcpa_reference_allocation, scrap_allocation, Scrap};
use super::mheft::mheft_max;
use super::placement::place_reference;
use super::platform::{Comms, MultiCluster};
use super::schedule::{check_cluster_schedule, ClusterSchedule};
use crate::error::Result;
use crate::ptg::{HcpaRule, Ptg};

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

/// numpy's sum of a contiguous float64 array (`np.sum`, `np.add.reduce`):
/// its pairwise summation, rule for rule, so that the sums are the same
/// floats: sequential below 8 terms, eight interleaved accumulators up to
/// 128, halves (cut at a multiple of 8) above.
pub fn numpy_sum(a: &[f64]) -> f64 {
    let n = a.len();
    if n < 8 {
        return a.iter().fold(0.0, |acc, &x| acc + x);
    }
    if n <= 128 {
        let mut r = [0.0; 8];
        r.copy_from_slice(&a[..8]);
        let whole = n - n % 8;
        let mut i = 8;
        while i < whole {
            for j in 0..8 {
                r[j] += a[i + j];
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for &x in &a[whole..] {
            res += x;
        }
        return res;
    }
    let mut half = n / 2;
    half -= half % 8;
    numpy_sum(&a[..half]) + numpy_sum(&a[half..])
}

/// numpy's sort order of floats: `-0.0 == 0.0`, NaN last.
fn numpy_cmp(a: f64, b: f64) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    match (a.is_nan(), b.is_nan()) {
        (false, false) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
    }
}

/// The metrics of `s` on `platform` of total power `power` (flop/s, the
/// Python platform's `power`), computed as `multicluster_metrics` does: the
/// energy by numpy's summation in row order; the power fraction from the
/// scaled terms when `energy / (makespan · power)` overflows; the peak by a
/// sweep of starts (`+q · speed`) and ends (`-q · speed`) of the rows of
/// positive length, sorted by time then delta (ends first at equal times),
/// summed in that order.
pub fn metrics(platform: &MultiCluster, power: f64, s: &ClusterSchedule) -> Metrics {
    let rows = s.len();
    let held: Vec<f64> = (0..rows)
        .map(|k| (s.proc_offsets[k + 1] - s.proc_offsets[k]) as f64 * platform.speed(s.cluster[k]))
        .collect();
    let duration: Vec<f64> = (0..rows).map(|k| s.end[k] - s.start[k]).collect();
    // numpy's max: the first NaN, else the largest
    let makespan = if rows == 0 {
        0.0
    } else {
        s.end.iter().copied().fold(f64::NEG_INFINITY, |m, x| {
            if m.is_nan() || x.is_nan() {
                f64::NAN
            } else {
                m.max(x)
            }
        })
    };
    let products: Vec<f64> = duration.iter().zip(&held).map(|(d, h)| d * h).collect();
    let energy = numpy_sum(&products);
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
        fraction = numpy_sum(&scaled);
    }
    let mut events: Vec<(f64, f64)> = Vec::with_capacity(2 * rows);
    events.extend((0..rows).filter(|&k| duration[k] > 0.0).map(|k| (s.start[k], held[k])));
    events.extend((0..rows).filter(|&k| duration[k] > 0.0).map(|k| (s.end[k], -held[k])));
    // np.lexsort((deltas, times)): stable, by time then delta (no NaN here: checked schedules)
    events.sort_by(|a, b| numpy_cmp(a.0, b.0).then(numpy_cmp(a.1, b.1)));
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

/// One run of a [`study`].
#[derive(Debug, Clone, PartialEq)]
pub struct StudyRun {
    /// The reference allocation (`None` for MHEFT-MAX).
    pub alloc: Option<Vec<u32>>,
    /// `β'` of `alloc` (`None` for MHEFT-MAX).
    pub beta_estimate: Option<f64>,
    /// SCRAP / SCRAP-MAX: `β'` of one processor per task `>= β` (`None` for HCPA and MHEFT-MAX).
    pub initial_violation: Option<bool>,
    /// The schedule, checked by [`check_cluster_schedule`].
    pub schedule: ClusterSchedule,
    /// Its [`metrics`].
    pub metrics: Metrics,
}

/// The `1 + 3 · betas.len()` runs of PDCS 2007 §4 on `g` and `platform`, in
/// this order: HCPA (`rule`, `β` plays no part), SCRAP at each `β` of
/// `betas`, SCRAP-MAX at each, MHEFT-MAX at each (`fraction = β`); every
/// schedule placed with `comms`, checked against its allocation, and
/// measured with the platform's total `power` ([`metrics`]).
///
/// # Errors
/// The first error of a run, in the order above (a bad `β`, a problem
/// beyond the limits, an infeasible schedule).
pub fn study(
    g: &Ptg,
    platform: &MultiCluster,
    power: f64,
    comms: Option<Comms<'_>>,
    betas: &[f64],
    rule: HcpaRule,
) -> Result<Vec<StudyRun>> {
    let mut runs = Vec::with_capacity(1 + 3 * betas.len());
    let referenced = |alloc: Vec<u32>, initial: Option<bool>| -> Result<StudyRun> {
        let schedule = place_reference(g, platform, &alloc, comms)?;
        check_cluster_schedule(g, platform, &schedule, Some(&alloc), comms)?;
        let estimate = beta_estimate(g, platform, &alloc)?;
        let metrics = metrics(platform, power, &schedule);
        Ok(StudyRun {
            alloc: Some(alloc),
            beta_estimate: Some(estimate),
            initial_violation: initial,
            schedule,
            metrics,
        })
    };
    runs.push(referenced(hcpa_reference_allocation(g, platform, rule)?, None)?);
    let initial = beta_estimate(g, platform, &vec![1; g.len()])?;
    for variant in [Scrap::Scrap, Scrap::ScrapMax] {
        for &beta in betas {
            let alloc = scrap_allocation(g, platform, beta, variant)?;
            runs.push(referenced(alloc, Some(initial >= beta))?);
        }
    }
    for &beta in betas {
        let schedule = mheft_max(g, platform, beta, comms)?;
        check_cluster_schedule(g, platform, &schedule, None, comms)?;
        let metrics = metrics(platform, power, &schedule);
        runs.push(StudyRun {
            alloc: None,
            beta_estimate: None,
            initial_violation: None,
            schedule,
            metrics,
        });
    }
    Ok(runs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numpy_sum_rules() {
        assert_eq!(numpy_sum(&[]), 0.0);
        assert_eq!(numpy_sum(&[1.0, 2.0, 3.0]), 6.0);
        // 1e16 + 1 + 1 + 1 is 1e16 sequentially; with eight accumulators two 1s meet first
        let mut a = vec![0.0; 16];
        a[0] = 1e16;
        a[8] = 1.0;
        a[1] = 1.0;
        a[9] = 1.0;
        assert_eq!(numpy_sum(&a), 1e16 + 2.0);
        assert_eq!(a.iter().sum::<f64>(), 1e16);
        assert_eq!(numpy_sum(&vec![0.5; 300]), 150.0);
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
