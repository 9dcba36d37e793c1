//! The schedule of one PTG on a multi-cluster platform, and its check.

use super::platform::{Comms, MultiCluster};
use crate::error::{Error, Result};
use crate::ptg::Ptg;

/// A schedule of one PTG on a multi-cluster platform: row `k` runs task
/// `task[k]` on cluster `cluster[k]` over `[start[k], end[k])` on the global
/// processor ids `proc_ids[proc_offsets[k]..proc_offsets[k + 1]]`
/// (increasing). Rows in placement order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClusterSchedule {
    /// Task of each row.
    pub task: Vec<usize>,
    /// Cluster of each row.
    pub cluster: Vec<usize>,
    /// Start of each row (s).
    pub start: Vec<f64>,
    /// End of each row (s).
    pub end: Vec<f64>,
    /// CSR offsets into `proc_ids`.
    pub proc_offsets: Vec<usize>,
    /// Global processor ids.
    pub proc_ids: Vec<u32>,
}

impl ClusterSchedule {
    pub(super) fn with_capacity(rows: usize) -> Self {
        ClusterSchedule {
            task: Vec::with_capacity(rows),
            cluster: Vec::with_capacity(rows),
            start: Vec::with_capacity(rows),
            end: Vec::with_capacity(rows),
            proc_offsets: vec![0],
            proc_ids: Vec::new(),
        }
    }

    pub(super) fn push(&mut self, task: usize, cluster: usize, start: f64, end: f64, procs: &[u32]) {
        self.task.push(task);
        self.cluster.push(cluster);
        self.start.push(start);
        self.end.push(end);
        self.proc_ids.extend_from_slice(procs);
        self.proc_offsets.push(self.proc_ids.len());
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.task.len()
    }

    /// True without rows.
    pub fn is_empty(&self) -> bool {
        self.task.is_empty()
    }

    /// Latest end (0 without rows).
    pub fn makespan(&self) -> f64 {
        self.end.iter().copied().fold(0.0, f64::max)
    }
}

/// Checks a schedule of `g` on `platform` whose task `v` was allocated
/// `alloc[v]` reference processors (`None`: any allocation): every task in
/// one row, on one cluster, with ids of that cluster, finite `0 <= start <=
/// end`, duration `T_k(v, q)` for its `q` processors (`|(end - start) - T| <=
/// 1e-9 · max(T, |start|, |end|)`, the rule of the Python validator),
/// `q = f(alloc[v], v, k)` when `alloc` is given, no processor running two
/// rows of positive length at once, and each task starting no earlier than
/// each predecessor's end plus the transfer time under `comms` (a relative
/// 1e-9 slack). Returns the row of each task.
///
/// # Errors
/// [`Error::Infeasible`] naming the task and rule broken.
pub fn check_cluster_schedule(
    g: &Ptg,
    platform: &MultiCluster,
    s: &ClusterSchedule,
    alloc: Option<&[u32]>,
    comms: Option<Comms<'_>>,
) -> Result<Vec<usize>> {
    if let Some(c) = &comms {
        c.check(g, platform.len())?;
    }
    let n = g.len();
    let rows = s.len();
    if s.cluster.len() != rows || s.start.len() != rows || s.end.len() != rows || s.proc_offsets.len() != rows + 1 {
        return Err(Error::InvalidArgument("schedule columns differ in length".into()));
    }
    if s.proc_offsets[0] != 0
        || s.proc_offsets[rows] != s.proc_ids.len()
        || s.proc_offsets.windows(2).any(|w| w[0] > w[1])
    {
        return Err(Error::InvalidArgument(
            "proc_offsets must rise from 0 to the number of processor ids".into(),
        ));
    }
    if let Some(a) = alloc {
        g.check_alloc(0, a, u32::MAX)?;
    }
    let bad = |m: String| Err(Error::Infeasible(m));
    let mut row_of = vec![usize::MAX; n];
    for (r, &v) in s.task.iter().enumerate() {
        if v >= n {
            return bad(format!("row {r}: task {v}, the PTG has {n} tasks"));
        }
        if row_of[v] != usize::MAX {
            return bad(format!("task {v} is scheduled twice"));
        }
        row_of[v] = r;
    }
    if let Some(v) = row_of.iter().position(|&r| r == usize::MAX) {
        return bad(format!("task {v} is never scheduled"));
    }
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1e-300);
    for r in 0..rows {
        let (v, k, st, en) = (s.task[r], s.cluster[r], s.start[r], s.end[r]);
        platform
            .check_cluster(k)
            .map_err(|_| Error::Infeasible(format!("task {v}: cluster {k} does not exist")))?;
        if !(st.is_finite() && en.is_finite() && st >= 0.0 && en >= st) {
            return bad(format!("task {v} runs [{st}, {en}): must be finite, 0 <= start <= end"));
        }
        let ids = &s.proc_ids[s.proc_offsets[r]..s.proc_offsets[r + 1]];
        let (lo, hi) = (platform.first(k), platform.first(k) + platform.procs(k));
        if ids.is_empty() || ids.iter().any(|&q| q < lo || q >= hi) || ids.windows(2).any(|w| w[0] >= w[1]) {
            return bad(format!(
                "task {v}: processors must be distinct, increasing ids of cluster {k} ({lo}..{hi})"
            ));
        }
        let q = ids.len() as u32;
        let d = platform.time(g, v, q, k);
        // relative to the time stamps: `end = start + d` rounds to an ulp of `end`, which
        // for a short task late in the schedule is far more than an ulp of `d`
        if ((en - st) - d).abs() > 1e-9 * d.max(st.abs()).max(en.abs()) {
            return bad(format!(
                "task {v} runs {} s on {q} processors of cluster {k}, its time there is {d} s",
                en - st
            ));
        }
        if let Some(alloc) = alloc {
            let want = platform.translate(g, v, alloc[v], k);
            if want != q {
                return bad(format!(
                    "task {v} has {q} processors on cluster {k}, the translation of its {} reference processors is {want}",
                    alloc[v]
                ));
            }
        }
        for &u in g.pred(v) {
            let ru = row_of[u];
            let mut arrival = s.end[ru];
            if let Some(c) = &comms {
                let bytes = if g.work()[u] > 0.0 && g.work()[v] > 0.0 {
                    c.bytes[u]
                } else {
                    0.0
                };
                let qu = (s.proc_offsets[ru + 1] - s.proc_offsets[ru]) as u32;
                arrival += c.network.transfer_time(bytes, s.cluster[ru], qu, k, q);
            }
            if st < arrival && !close(st, arrival) {
                return bad(format!(
                    "task {v} starts at {st} before its predecessor {u}'s data arrive at {arrival}"
                ));
            }
        }
    }
    let mut by_start: Vec<usize> = (0..rows).filter(|&r| s.end[r] > s.start[r]).collect();
    by_start.sort_by(|&x, &y| s.start[x].total_cmp(&s.start[y]));
    let mut last = vec![(f64::NEG_INFINITY, usize::MAX); platform.total_procs() as usize];
    for r in by_start {
        for &q in &s.proc_ids[s.proc_offsets[r]..s.proc_offsets[r + 1]] {
            let (e, j) = last[q as usize];
            if e > s.start[r] {
                return bad(format!(
                    "processor {q} runs tasks {} and {} at once",
                    s.task[j], s.task[r]
                ));
            }
            if s.end[r] > e {
                last[q as usize] = (s.end[r], r);
            }
        }
    }
    Ok(row_of)
}

#[cfg(test)]
mod tests {
    use super::super::placement::place_reference;
    use super::super::platform::tests::gige;
    use super::*;
    use crate::ptg::fixtures::fork_join;

    #[test]
    fn validator_rejects_broken_schedules() {
        let p = MultiCluster::new(vec![4, 2], vec![1.0, 4.0]).unwrap();
        let g = fork_join();
        let alloc = [1, 2, 1, 1];
        let s = place_reference(&g, &p, &alloc, None).unwrap();
        let mut early = s.clone();
        let r = early.task.iter().position(|&v| v == 3).unwrap();
        early.start[r] -= 0.1;
        early.end[r] -= 0.1;
        assert!(check_cluster_schedule(&g, &p, &early, Some(&alloc), None).is_err());
        let mut wrong = s.clone();
        wrong.cluster[0] = 1 - wrong.cluster[0];
        assert!(check_cluster_schedule(&g, &p, &wrong, Some(&alloc), None).is_err());
        let net = gige(2);
        let bytes = [1e9; 4];
        let comms = Comms {
            network: &net,
            bytes: &bytes,
        };
        let with = place_reference(&g, &p, &alloc, Some(comms)).unwrap();
        check_cluster_schedule(&g, &p, &with, Some(&alloc), Some(comms)).unwrap();
        assert!(check_cluster_schedule(&g, &p, &s, Some(&alloc), Some(comms)).is_err());
    }
}
