//! List scheduling of allocated tasks over the clusters of a multi-cluster
//! platform (PDCS 2007 §3): the placement step of HCPA, SCRAP and SCRAP-MAX,
//! and the list machinery MHEFT-MAX shares ([`super::mheft_max`]).

use std::collections::BinaryHeap;

use super::platform::{check_problem, Comms, MultiCluster, Translation};
use super::schedule::ClusterSchedule;
use crate::error::{Error, Result};
use crate::ptg::{Pool, PoolView, Ptg, Ready};

/// The list-scheduling state over all clusters.
pub(super) struct Placer<'a> {
    g: &'a Ptg,
    platform: &'a MultiCluster,
    comms: Option<Comms<'a>>,
    pools: Vec<Pool>,
    cluster: Vec<usize>,
    size: Vec<u32>,
    end: Vec<f64>,
    out: ClusterSchedule,
}

/// One way to run a task: where, on how many, and when.
#[derive(Debug, Clone, Copy)]
pub(super) struct Option_ {
    pub(super) k: usize,
    pub(super) q: u32,
    pub(super) start: f64,
    pub(super) finish: f64,
}

impl<'a> Placer<'a> {
    fn new(g: &'a Ptg, platform: &'a MultiCluster, comms: Option<Comms<'a>>) -> Result<Self> {
        if let Some(c) = &comms {
            c.check(g, platform.len())?;
        }
        let pools = (0..platform.len())
            .map(|k| Pool::new(platform.first(k), platform.procs(k)))
            .collect();
        let n = g.len();
        Ok(Placer {
            g,
            platform,
            comms,
            pools,
            cluster: vec![usize::MAX; n],
            size: vec![0; n],
            end: vec![f64::NAN; n],
            out: ClusterSchedule::with_capacity(n),
        })
    }

    /// Bytes on the edge `u -> v`: what `u` sends, unless either end is a
    /// zero-work (structural) task, which handles no data.
    fn edge_bytes(&self, u: usize, v: usize) -> f64 {
        match &self.comms {
            Some(c) if self.g.work()[u] > 0.0 && self.g.work()[v] > 0.0 => c.bytes[u],
            _ => 0.0,
        }
    }

    /// When task `v` could start on `q` processors of cluster `k`: the
    /// latest arrival of its predecessors' data (end + transfer).
    pub(super) fn ready_time(&self, v: usize, k: usize, q: u32) -> f64 {
        let mut r = 0.0;
        for &u in self.g.pred(v) {
            let mut arrival = self.end[u];
            if let Some(c) = &self.comms {
                let bytes = self.edge_bytes(u, v);
                arrival += c.network.transfer_time(bytes, self.cluster[u], self.size[u], k, q);
            }
            if arrival > r {
                r = arrival;
            }
        }
        r
    }

    /// Earliest finish of `v` on `q` processors of cluster `k` (`q <= procs(k)`),
    /// by the shared best-fit rule ([`Pool::select`]), nothing committed.
    pub(super) fn probe(&mut self, v: usize, k: usize, q: u32) -> Option_ {
        let r = self.ready_time(v, k, q);
        let d = self.platform.time(self.g, v, q, k);
        let latest = self.pools[k].select(q as usize, r);
        let start = if d > 0.0 && latest > r { latest } else { r };
        Option_ {
            k,
            q,
            start,
            finish: start + d,
        }
    }

    /// As [`Self::probe`], with the latest availability read from `view`
    /// (a [`PoolView`] of cluster `k`'s pool as it is now) and the ready
    /// time `r` given when it is known (`None`: computed): the same option,
    /// bit for bit, in `O(log groups)` instead of `O(q log q)`.
    pub(super) fn probe_view(&self, v: usize, k: usize, q: u32, r: Option<f64>, view: &PoolView) -> Option_ {
        let r = r.unwrap_or_else(|| self.ready_time(v, k, q));
        let d = self.platform.time(self.g, v, q, k);
        let latest = view.latest(q as usize, r);
        let start = if d > 0.0 && latest > r { latest } else { r };
        Option_ {
            k,
            q,
            start,
            finish: start + d,
        }
    }

    /// A view of each cluster's pool, for [`Self::probe_view`].
    pub(super) fn views(&self) -> Vec<PoolView> {
        self.pools.iter().map(Pool::view).collect()
    }

    /// Whether ready times depend on the cluster and allocation (only with
    /// communications modelled).
    pub(super) fn has_comms(&self) -> bool {
        self.comms.is_some()
    }

    /// Commits `choice` (re-selecting its processors).
    fn commit(&mut self, v: usize, choice: Option_) {
        let Option_ { k, q, start, finish } = choice;
        let r = self.ready_time(v, k, q);
        self.pools[k].select(q as usize, r);
        if finish > start {
            self.pools[k].occupy(finish);
        }
        self.cluster[v] = k;
        self.size[v] = q;
        self.end[v] = finish;
        let procs = std::mem::take(&mut self.pools[k].chosen);
        self.out.push(v, k, start, finish, &procs);
        self.pools[k].chosen = procs;
    }
}

/// Runs the list: tasks whose predecessors are all placed compete, highest
/// `priority` first (ties: lowest index); `choose` picks where each goes.
pub(super) fn list_run<'a>(
    g: &'a Ptg,
    platform: &'a MultiCluster,
    comms: Option<Comms<'a>>,
    priority: &[f64],
    mut choose: impl FnMut(&mut Placer<'a>, usize) -> Result<Option_>,
) -> Result<ClusterSchedule> {
    let mut placer = Placer::new(g, platform, comms)?;
    let n = g.len();
    let mut waiting: Vec<usize> = (0..n).map(|v| g.pred(v).len()).collect();
    let mut ready: BinaryHeap<Ready> = BinaryHeap::new();
    ready.push(Ready {
        priority: priority[0],
        g: 0,
    });
    while let Some(Ready { g: v, .. }) = ready.pop() {
        let choice = choose(&mut placer, v)?;
        placer.commit(v, choice);
        for &s in g.succ(v) {
            waiting[s] -= 1;
            if waiting[s] == 0 {
                ready.push(Ready {
                    priority: priority[s],
                    g: s,
                });
            }
        }
    }
    Ok(placer.out)
}

/// Bottom levels of `g` with durations `d` (the shared recurrence).
pub(super) fn levels_of(g: &Ptg, d: &[f64]) -> Vec<f64> {
    let mut bl = vec![0.0; g.len()];
    crate::ptg::fill_bottom_levels(g, d, &mut bl);
    bl
}

/// Places the tasks of `g`, allocated `alloc[v]` reference processors each,
/// on `platform` by list scheduling (the placement step of HCPA, SCRAP and
/// SCRAP-MAX, PDCS 2007 §3): tasks by decreasing bottom level of their
/// reference times `T_ref(v, alloc[v])` (ties: lowest index), a task
/// competing once all its predecessors are placed; each goes to the cluster
/// where its translated allocation `f(alloc[v], v, k)` under `translation` (only clusters it
/// fits) finishes earliest, ties to the lowest cluster index; within the
/// cluster, processors by the shared best-fit rule, start not before its
/// predecessors' data have arrived (`comms`, or their ends without).
///
/// # Errors
/// [`Error::InvalidArgument`] for an allocation of the wrong length or
/// outside `1..=ref_procs`, one that no cluster can host, or bad `comms`;
/// a problem beyond the limits of [`check_problem`].
pub fn place_reference(
    g: &Ptg,
    platform: &MultiCluster,
    alloc: &[u32],
    comms: Option<Comms<'_>>,
    translation: Translation,
) -> Result<ClusterSchedule> {
    g.check_alloc(0, alloc, platform.ref_procs().max(1))?;
    check_problem(g, platform, comms)?;
    let translated: Vec<Vec<u32>> = (0..g.len())
        .map(|v| {
            (0..platform.len())
                .map(|k| platform.translate(g, v, alloc[v], k, translation))
                .collect()
        })
        .collect();
    if let Some(v) = (0..g.len()).find(|&v| (0..platform.len()).all(|k| translated[v][k] > platform.procs(k))) {
        return Err(Error::InvalidArgument(format!(
            "task {v}: no cluster can host the translation of {} reference processors",
            alloc[v]
        )));
    }
    let ref_times: Vec<f64> = (0..g.len()).map(|v| platform.ref_time(g, v, alloc[v])).collect();
    let priority = levels_of(g, &ref_times);
    list_run(g, platform, comms, &priority, |placer, v| {
        let mut best: Option<Option_> = None;
        for k in 0..platform.len() {
            let q = translated[v][k];
            if q > platform.procs(k) {
                continue;
            }
            let o = placer.probe(v, k, q);
            if best.is_none_or(|b| o.finish < b.finish) {
                best = Some(o);
            }
        }
        best.ok_or_else(|| Error::InvalidArgument(format!("task {v}: no cluster can host it")))
    })
}

#[cfg(test)]
mod tests {
    use super::super::platform::tests::gige;
    use super::super::schedule::check_cluster_schedule;
    use super::*;
    use crate::scrap::Translation;
    const AT_LEAST: Translation = Translation::AtLeastAsFast;
    use crate::ptg::fixtures::{arb_ptg, fork_join};
    use proptest::prelude::*;

    #[test]
    fn placement_prefers_the_earliest_finish() {
        let p = MultiCluster::new(vec![4, 2], vec![1.0, 4.0]).unwrap();
        let g = fork_join();
        let s = place_reference(&g, &p, &[1, 2, 1, 1], None, AT_LEAST).unwrap();
        check_cluster_schedule(&g, &p, &s, Some((&[1, 2, 1, 1], AT_LEAST)), None).unwrap();
        // every task is faster on the speed-4 cluster
        assert!(s.cluster.iter().take(2).all(|&k| k == 1));
    }

    #[test]
    fn tiny_tasks_late_in_a_schedule_check() {
        // issue 20: a task of 1e-12 s starting at 1/3 s measures (1/3 + 1e-12) - 1/3 s;
        // the checker's tolerance is relative to the time stamps, not to the duration
        let p = MultiCluster::new(vec![4, 2], vec![1e9, 3e9]).unwrap();
        let g = Ptg::new(
            vec![1e9, 1e-3, 1e-3, 1e-3],
            vec![0.0; 4],
            &[0, 2, 3, 4, 4],
            &[1, 2, 3, 3],
        )
        .unwrap();
        let net = gige(2);
        let bytes = [1e3; 4];
        let comms = Comms {
            network: &net,
            bytes: &bytes,
        };
        let s = place_reference(&g, &p, &[1, 2, 1, 1], Some(comms), AT_LEAST).unwrap();
        assert!(s.start.iter().any(|&t| t > 0.3));
        check_cluster_schedule(&g, &p, &s, Some((&[1, 2, 1, 1], AT_LEAST)), Some(comms)).unwrap();
    }

    proptest! {
        #[test]
        fn placements_are_feasible(g in arb_ptg(), a in 1u32..8, comm in any::<bool>()) {
            let p = MultiCluster::new(vec![3, 5, 2], vec![2.0, 1.0, 3.0]).unwrap();
            let alloc: Vec<u32> = p.caps(&g, AT_LEAST).iter().map(|&c| c.min(a)).collect();
            let net = gige(3);
            let bytes = vec![3e8; g.len()];
            let comms = comm.then_some(Comms { network: &net, bytes: &bytes });
            let s = place_reference(&g, &p, &alloc, comms, AT_LEAST).unwrap();
            check_cluster_schedule(&g, &p, &s, Some((&alloc, AT_LEAST)), comms).unwrap();
        }
    }
}
