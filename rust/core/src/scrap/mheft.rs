//! MHEFT-MAX, the other baseline of PDCS 2007 (§2): M-HEFT with allocations
//! capped at a fraction of each cluster, on the list machinery of
//! [`super::place_reference`].

use super::placement::{levels_of, list_run, Option_};
use super::platform::{check_problem, Comms, MultiCluster};
use super::schedule::ClusterSchedule;
use crate::error::{Error, Result};
use crate::ptg::Ptg;

/// MHEFT-MAX (Casanova, Desprez & Suter 2004's M-HEFT with the cap of
/// N'takpé, Suter & Casanova 2007, PDCS 2007 §2): tasks by decreasing bottom
/// level of their *average one-processor time over the clusters* (ties:
/// lowest index), each placed on the cluster `k` and allocation
/// `q in 1..=max(1, ⌊fraction · procs[k]⌋)` of earliest finish (the same
/// ready-time and best-fit rules as [`super::place_reference`]); ties to the
/// smaller `q`, then the lower cluster index.
///
/// # Errors
/// [`Error::InvalidArgument`] for `fraction` outside `(0, 1]` or bad `comms`;
/// a problem beyond the limits of [`super::check_problem`].
pub fn mheft_max(g: &Ptg, platform: &MultiCluster, fraction: f64, comms: Option<Comms<'_>>) -> Result<ClusterSchedule> {
    if !(fraction > 0.0 && fraction <= 1.0) {
        return Err(Error::InvalidArgument(format!(
            "fraction == {fraction}, must be in (0, 1]"
        )));
    }
    check_problem(g, platform, comms)?;
    let c = platform.len() as f64;
    let mean: Vec<f64> = (0..g.len())
        .map(|v| (0..platform.len()).fold(0.0, |acc, k| acc + platform.time(g, v, 1, k)) / c)
        .collect();
    let priority = levels_of(g, &mean);
    let limit: Vec<u32> = (0..platform.len())
        .map(|k| ((fraction * f64::from(platform.procs(k))).floor() as u32).max(1))
        .collect();
    list_run(g, platform, comms, &priority, |placer, v| {
        let mut best: Option<Option_> = None;
        // Pools do not change while one task probes: one view of each, and
        // without communications one ready time for every (k, q).
        let views = placer.views();
        let r = (!placer.has_comms()).then(|| placer.ready_time(v, 0, 1));
        // the clusters that take q processors, increasing: Σ_k limit[k] probes in all
        let mut active: Vec<usize> = (0..platform.len()).collect();
        for q in 1..=limit.iter().copied().max().unwrap_or(1) {
            active.retain(|&k| q <= limit[k]);
            for &k in &active {
                let o = placer.probe_view(v, k, q, r, &views[k]);
                if best.is_none_or(|b| o.finish < b.finish) {
                    best = Some(o);
                }
            }
        }
        // q = 1 fits every cluster, so there is always a choice
        best.ok_or_else(|| Error::InvalidArgument(format!("task {v}: no cluster to run it on")))
    })
}

#[cfg(test)]
mod tests {
    use super::super::platform::tests::gige;
    use super::super::schedule::check_cluster_schedule;
    use super::*;
    use crate::ptg::fixtures::{arb_ptg, fork_join};
    use proptest::prelude::*;

    #[test]
    fn mheft_max_schedules_are_feasible() {
        let p = MultiCluster::new(vec![4, 2], vec![1.0, 4.0]).unwrap();
        let g = fork_join();
        let m = mheft_max(&g, &p, 0.5, None).unwrap();
        check_cluster_schedule(&g, &p, &m, None, None).unwrap();
    }

    proptest! {
        #[test]
        fn mheft_max_placements_are_feasible(g in arb_ptg(), comm in any::<bool>()) {
            let p = MultiCluster::new(vec![3, 5, 2], vec![2.0, 1.0, 3.0]).unwrap();
            let net = gige(3);
            let bytes = vec![3e8; g.len()];
            let comms = comm.then_some(Comms { network: &net, bytes: &bytes });
            let m = mheft_max(&g, &p, 0.5, comms).unwrap();
            check_cluster_schedule(&g, &p, &m, None, comms).unwrap();
        }
    }
}
