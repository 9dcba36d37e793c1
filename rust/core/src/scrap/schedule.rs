//! The schedule of one PTG on a multi-cluster platform, and its check.

use super::platform::{Comms, MultiCluster, Translation};
use crate::error::{Error, Result};
use crate::ptg::{exec_time, Ptg};

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

/// One way a schedule breaks the rules of [`schedule_violations`], as data:
/// rows, tasks, clusters and the values compared (Python words them,
/// `clustersched.scrap.validate`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Violation {
    /// Row `row` names a task the PTG does not have.
    UnknownTask { row: usize },
    /// Task `task` is in more than one row.
    TaskTwice { task: usize },
    /// Task `task` is in no row.
    TaskMissing { task: usize },
    /// The reference allocation has `len` counts, not one per task.
    AllocLength { len: usize },
    /// The reference allocation gives task `task` no processor.
    AllocZero { task: usize },
    /// Row `row` (task `task`) is on a cluster the platform does not have.
    UnknownCluster { row: usize, task: usize },
    /// Row `row` (task `task`) runs `[start, end)`, not finite with `0 <= start <= end`.
    Times {
        row: usize,
        task: usize,
        start: f64,
        end: f64,
    },
    /// Row `row`'s processors (task `task`, cluster `cluster`) are none, repeated or not all of the cluster.
    Processors { row: usize, task: usize, cluster: usize },
    /// Row `row` runs `seconds` on `procs` processors of `cluster`; `T_k(v, q)` is `expected`.
    Duration {
        row: usize,
        task: usize,
        cluster: usize,
        procs: u32,
        seconds: f64,
        expected: f64,
    },
    /// Row `row` has `procs` processors on `cluster`, not the translation `expected` of `reference`.
    Translation {
        row: usize,
        task: usize,
        cluster: usize,
        procs: u32,
        reference: u32,
        expected: u32,
    },
    /// Processor `processor` runs task `first` and task `second` at once.
    Overlap {
        processor: u32,
        first: usize,
        second: usize,
    },
    /// Task `task` starts at `start` before `arrival`, the end (`pred_end`) of its predecessor `pred` plus its transfer.
    Precedence {
        task: usize,
        pred: usize,
        start: f64,
        arrival: f64,
        pred_end: f64,
    },
}

impl std::fmt::Display for Violation {
    /// Short words for a Rust caller; Python words each kind in full (`clustersched.scrap.validate`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Violation::UnknownTask { row } => write!(f, "row {row}: the task does not exist"),
            Violation::TaskTwice { task } => write!(f, "task {task} is scheduled twice"),
            Violation::TaskMissing { task } => write!(f, "task {task} is never scheduled"),
            Violation::AllocLength { len } => write!(f, "the reference allocation has {len} counts"),
            Violation::AllocZero { task } => write!(f, "the reference allocation gives task {task} 0 processors"),
            Violation::UnknownCluster { task, .. } => write!(f, "task {task}: its cluster does not exist"),
            Violation::Times { task, start, end, .. } => {
                write!(f, "task {task} runs [{start}, {end}): must be finite, 0 <= start <= end")
            }
            Violation::Processors { task, cluster, .. } => {
                write!(f, "task {task}: processors must be distinct ids of cluster {cluster}")
            }
            Violation::Duration { task, cluster, procs, seconds, expected, .. } => write!(
                f,
                "task {task} runs {seconds} s on {procs} processors of cluster {cluster}, its time there is {expected} s"
            ),
            Violation::Translation { task, cluster, procs, reference, expected, .. } => write!(
                f,
                "task {task} has {procs} processors on cluster {cluster}; the translation of its {reference} \
                 reference processors there is {expected}"
            ),
            Violation::Overlap { processor, first, second } => {
                write!(f, "processor {processor} runs task {first} and task {second} at once")
            }
            Violation::Precedence { task, pred, start, arrival, .. } => {
                write!(f, "task {task} starts at {start} before the data of task {pred} arrive at {arrival}")
            }
        }
    }
}

/// The violations of a schedule: the first `limit` of each kind, in the order of
/// [`schedule_violations`], and how many there are in all.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Violations {
    /// The first violations of each kind, kinds in the order of the rules.
    pub found: Vec<Violation>,
    /// Every violation found, beyond `limit` too.
    pub total: usize,
}

impl Violations {
    /// True when the schedule breaks no rule.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }
}

/// Violations of one kind: the first `limit`, and a count.
struct Kind {
    found: Vec<Violation>,
    count: usize,
}

impl Kind {
    fn new() -> Self {
        Kind {
            found: Vec::new(),
            count: 0,
        }
    }
}

struct Collect {
    limit: usize,
    kinds: Vec<Kind>,
}

impl Collect {
    fn new(limit: usize, kinds: usize) -> Self {
        Collect {
            limit,
            kinds: (0..kinds).map(|_| Kind::new()).collect(),
        }
    }

    fn push(&mut self, kind: usize, v: Violation) {
        let k = &mut self.kinds[kind];
        k.count += 1;
        if k.found.len() < self.limit {
            k.found.push(v);
        }
    }

    fn any(&self) -> bool {
        self.kinds.iter().any(|k| k.count > 0)
    }

    fn done(self) -> Violations {
        let total = self.kinds.iter().map(|k| k.count).sum();
        Violations {
            found: self.kinds.into_iter().flat_map(|k| k.found).collect(),
            total,
        }
    }
}

/// Every way a schedule of `g` on `platform`, whose task `v` was allocated
/// `alloc[v]` reference processors translated by the named rule (`alloc =
/// Some((alloc, rule))`: the rule is part of what the schedule claims;
/// `None`: any allocation, as MHEFT-MAX's), breaks the
/// rules, from the schedule alone: the one checker of this problem
/// (`clustersched.scrap.validate` words its findings; [`study`](super::study)
/// calls it on every run). It shares with the kernels that made the schedule
/// only the model (`exec_time` and [`Network::transfer_time`](super::Network::transfer_time)),
/// none of their steps: the translation rule is checked as its property.
/// The rules, in the order reported (at most `limit` violations of each kind):
///
/// 1. every task in exactly one row (when not, only these are reported);
/// 2. `alloc`, when given: one count `>= 1` per task (when not, only this);
/// 3. each row on an existing cluster `k`; finite `0 <= start <= end`; its
///    processors at least one, distinct, all ids of cluster `k` (a row that
///    breaks one of these is left out of the rules below);
/// 4. its duration `T_k(v, q)` for its `q` processors: `|(end - start) - T|
///    <= 1e-9 · max(T, |start|, |end|)` (relative to the time stamps: `end =
///    start + T` rounds to an ulp of `end`);
/// 5. with `alloc`, `q = f(alloc[v], v, k)` under its rule, checked as the
///    rule's property (`T_k` does not increase with `q`): `AtLeastAsFast`,
///    the smallest `q >= 1` with `T_k(v, q) <= T_ref(v, alloc[v])`, as
///    `T_k(v, q) <= T_ref` and (`q == 1` or `T_k(v, q - 1) > T_ref`);
///    `Closest`, the `q` in `1..=min(alloc[v], P_k)` of least `|T_k(v, q) -
///    T_ref|`, ties to the fewer processors, as `q <= min(alloc[v], P_k)`,
///    `q` the first count of its time, the next faster count (by bisection)
///    no closer and `q - 1` farther;
/// 6. no processor running two rows of positive length at once (half-open
///    intervals; per processor by start, against the latest end so far);
/// 7. each task starting no earlier than each predecessor's end plus, under
///    `comms`, the transfer of the predecessor's bytes (none on an edge to
///    or from a zero-work task), to a slack of `1e-9 ·` the arrival.
///
/// # Errors
/// [`Error::InvalidArgument`] for columns of different lengths or offsets
/// that do not rise from 0 to the number of ids; the errors of `comms`' own check.
pub fn schedule_violations(
    g: &Ptg,
    platform: &MultiCluster,
    s: &ClusterSchedule,
    alloc: Option<(&[u32], Translation)>,
    comms: Option<Comms<'_>>,
    limit: usize,
) -> Result<Violations> {
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
    // 1. one row per task
    let mut out = Collect::new(limit, 3);
    let mut count = vec![0usize; n];
    let mut row_of = vec![usize::MAX; n];
    for (r, &v) in s.task.iter().enumerate() {
        if v >= n {
            out.push(0, Violation::UnknownTask { row: r });
        } else {
            count[v] += 1;
            row_of[v] = r;
        }
    }
    for (v, &c) in count.iter().enumerate() {
        if c > 1 {
            out.push(1, Violation::TaskTwice { task: v });
        }
    }
    for (v, &c) in count.iter().enumerate() {
        if c == 0 {
            out.push(2, Violation::TaskMissing { task: v });
        }
    }
    if out.any() {
        return Ok(out.done());
    }
    // 2. the allocation
    if let Some((a, _)) = alloc {
        let mut out = Collect::new(limit, 1);
        if a.len() != n {
            out.push(0, Violation::AllocLength { len: a.len() });
        } else if let Some(v) = a.iter().position(|&p| p == 0) {
            out.push(0, Violation::AllocZero { task: v });
        }
        if out.any() {
            return Ok(out.done());
        }
    }
    // 3. rows: cluster, times, processors
    const CLUSTER: usize = 0;
    const TIMES: usize = 1;
    const PROCS: usize = 2;
    const DURATION: usize = 3;
    const TRANSLATION: usize = 4;
    const OVERLAP: usize = 5;
    const PRECEDENCE: usize = 6;
    let mut out = Collect::new(limit, 7);
    let c = platform.len();
    let mut ok = vec![true; rows];
    for r in 0..rows {
        if s.cluster[r] >= c {
            out.push(
                CLUSTER,
                Violation::UnknownCluster {
                    row: r,
                    task: s.task[r],
                },
            );
            ok[r] = false;
        }
    }
    for r in 0..rows {
        if !ok[r] {
            continue;
        }
        let (st, en) = (s.start[r], s.end[r]);
        if !(st.is_finite() && en.is_finite() && st >= 0.0 && st <= en) {
            out.push(
                TIMES,
                Violation::Times {
                    row: r,
                    task: s.task[r],
                    start: st,
                    end: en,
                },
            );
            ok[r] = false;
        }
    }
    let mut sorted = Vec::new();
    for r in 0..rows {
        if !ok[r] {
            continue;
        }
        let k = s.cluster[r];
        let ids = &s.proc_ids[s.proc_offsets[r]..s.proc_offsets[r + 1]];
        let (lo, hi) = (
            u64::from(platform.first(k)),
            u64::from(platform.first(k)) + u64::from(platform.procs(k)),
        );
        sorted.clear();
        sorted.extend_from_slice(ids);
        sorted.sort_unstable();
        let outside = sorted.iter().any(|&q| u64::from(q) < lo || u64::from(q) >= hi);
        if ids.is_empty() || outside || sorted.windows(2).any(|w| w[0] == w[1]) {
            out.push(
                PROCS,
                Violation::Processors {
                    row: r,
                    task: s.task[r],
                    cluster: k,
                },
            );
            ok[r] = false;
        }
    }
    let procs = |r: usize| (s.proc_offsets[r + 1] - s.proc_offsets[r]) as u32;
    // 4 and 5. durations and translations
    let (work, alpha) = (g.work(), g.alpha());
    for r in (0..rows).filter(|&r| ok[r]) {
        let (v, k, st, en) = (s.task[r], s.cluster[r], s.start[r], s.end[r]);
        let q = procs(r);
        let d = exec_time(work[v], alpha[v], q, platform.speed(k));
        if ((en - st) - d).abs() > 1e-9 * d.max(st.abs()).max(en.abs()) {
            out.push(
                DURATION,
                Violation::Duration {
                    row: r,
                    task: v,
                    cluster: k,
                    procs: q,
                    seconds: en - st,
                    expected: d,
                },
            );
        }
    }
    if let Some((a, rule)) = alloc {
        for r in (0..rows).filter(|&r| ok[r]) {
            let (v, k) = (s.task[r], s.cluster[r]);
            let q = procs(r);
            let target = exec_time(work[v], alpha[v], a[v], platform.ref_speed());
            let time = |p: u32| exec_time(work[v], alpha[v], p, platform.speed(k));
            let translated = match rule {
                // the first count at least as fast
                Translation::AtLeastAsFast => time(q) <= target && (q == 1 || time(q - 1) > target),
                Translation::Closest => {
                    let top = a[v].min(platform.procs(k));
                    // the distance to the target falls while the count is slower, then grows
                    // (T_k does not increase): `q` is the first count of its time, and the first
                    // count faster than `q` (found by bisection) is no closer, nor the one before
                    // `q` as close
                    let first = q == 1 || time(q - 1) > time(q);
                    let (mut lo, mut hi) = (q + 1, top + 1);
                    while lo < hi {
                        let mid = lo + (hi - lo) / 2;
                        if time(mid) < time(q) {
                            hi = mid;
                        } else {
                            lo = mid + 1;
                        }
                    }
                    let dist = |t: f64| (t - target).abs();
                    let next_no_closer = lo > top || dist(time(lo)) >= dist(time(q));
                    let before_farther = q == 1 || dist(time(q - 1)) > dist(time(q));
                    q <= top && first && next_no_closer && before_farther
                }
            };
            if !translated {
                out.push(
                    TRANSLATION,
                    Violation::Translation {
                        row: r,
                        task: v,
                        cluster: k,
                        procs: q,
                        reference: a[v],
                        // the verdict above is the rule's property; the kernel's count only words the report
                        expected: platform.translate(g, v, a[v], k, rule),
                    },
                );
            }
        }
    }
    // 6. capacity: per processor, running rows by start against the latest end so far
    let mut uses: Vec<(u32, f64, usize)> = Vec::new();
    for r in (0..rows).filter(|&r| ok[r] && s.end[r] > s.start[r]) {
        for &p in &s.proc_ids[s.proc_offsets[r]..s.proc_offsets[r + 1]] {
            uses.push((p, s.start[r], r));
        }
    }
    uses.sort_by(|x, y| x.0.cmp(&y.0).then(x.1.total_cmp(&y.1)).then(x.2.cmp(&y.2)));
    let mut latest: Option<(u32, f64, usize)> = None;
    for &(p, st, r) in &uses {
        match latest {
            Some((lp, e, j)) if lp == p => {
                if st < e {
                    out.push(
                        OVERLAP,
                        Violation::Overlap {
                            processor: p,
                            first: s.task[j],
                            second: s.task[r],
                        },
                    );
                }
                if s.end[r] > e {
                    latest = Some((p, s.end[r], r));
                }
            }
            _ => latest = Some((p, s.end[r], r)),
        }
    }
    // 7. precedence, with the transfers under `comms`
    for v in 0..n {
        let r = row_of[v];
        if !ok[r] {
            continue;
        }
        for &u in g.pred(v) {
            let ru = row_of[u];
            if !ok[ru] {
                continue;
            }
            let mut arrival = s.end[ru];
            if let Some(c) = &comms {
                if work[u] > 0.0 && work[v] > 0.0 {
                    arrival += c
                        .network
                        .transfer_time(c.bytes[u], s.cluster[ru], procs(ru), s.cluster[r], procs(r));
                }
            }
            let st = s.start[r];
            if st < arrival && arrival - st > 1e-9 * arrival.abs().max(1e-300) {
                out.push(
                    PRECEDENCE,
                    Violation::Precedence {
                        task: v,
                        pred: u,
                        start: st,
                        arrival,
                        pred_end: s.end[ru],
                    },
                );
            }
        }
    }
    Ok(out.done())
}

/// Checks a schedule by [`schedule_violations`]: `Ok` when it breaks no rule.
///
/// # Errors
/// [`Error::Infeasible`] naming the first violation (and how many there are);
/// the errors of [`schedule_violations`].
pub fn check_cluster_schedule(
    g: &Ptg,
    platform: &MultiCluster,
    s: &ClusterSchedule,
    alloc: Option<(&[u32], Translation)>,
    comms: Option<Comms<'_>>,
) -> Result<()> {
    let found = schedule_violations(g, platform, s, alloc, comms, 1)?;
    match found.found.first() {
        None => Ok(()),
        Some(v) => Err(Error::Infeasible(format!(
            "the schedule breaks {} rule(s), first: {v}",
            found.total
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::super::placement::place_reference;
    use super::super::platform::tests::gige;
    use super::*;
    use crate::scrap::Translation;
    const AT_LEAST: Translation = Translation::AtLeastAsFast;
    use crate::ptg::fixtures::fork_join;

    #[test]
    fn validator_rejects_broken_schedules() {
        let p = MultiCluster::new(vec![4, 2], vec![1.0, 4.0]).unwrap();
        let g = fork_join();
        let alloc = [1, 2, 1, 1];
        let s = place_reference(&g, &p, &alloc, None, AT_LEAST).unwrap();
        let mut early = s.clone();
        let r = early.task.iter().position(|&v| v == 3).unwrap();
        early.start[r] -= 0.1;
        early.end[r] -= 0.1;
        assert!(check_cluster_schedule(&g, &p, &early, Some((&alloc, AT_LEAST)), None).is_err());
        let mut wrong = s.clone();
        wrong.cluster[0] = 1 - wrong.cluster[0];
        assert!(check_cluster_schedule(&g, &p, &wrong, Some((&alloc, AT_LEAST)), None).is_err());
        let net = gige(2);
        let bytes = [1e9; 4];
        let comms = Comms {
            network: &net,
            bytes: &bytes,
        };
        let with = place_reference(&g, &p, &alloc, Some(comms), AT_LEAST).unwrap();
        check_cluster_schedule(&g, &p, &with, Some((&alloc, AT_LEAST)), Some(comms)).unwrap();
        assert!(check_cluster_schedule(&g, &p, &s, Some((&alloc, AT_LEAST)), Some(comms)).is_err());
    }

    #[test]
    fn every_violation_is_reported_as_data_the_first_limit_of_each_kind() {
        let p = MultiCluster::new(vec![4, 2], vec![1.0, 4.0]).unwrap();
        let g = fork_join();
        let alloc = [1, 2, 1, 1];
        let s = place_reference(&g, &p, &alloc, None, AT_LEAST).unwrap();
        assert!(schedule_violations(&g, &p, &s, Some((&alloc, AT_LEAST)), None, 20)
            .unwrap()
            .is_empty());
        let mut early = s.clone();
        let r = early.task.iter().position(|&v| v == 3).unwrap();
        early.start[r] = 0.0;
        early.end[r] = s.end[r] - s.start[r];
        let all = schedule_violations(&g, &p, &early, Some((&alloc, AT_LEAST)), None, 20).unwrap();
        for u in g.pred(3) {
            assert!(all
                .found
                .iter()
                .any(|v| matches!(*v, Violation::Precedence { task: 3, pred, .. } if pred == *u)));
        }
        assert_eq!(all.total, all.found.len());
        let one = schedule_violations(&g, &p, &early, Some((&alloc, AT_LEAST)), None, 1).unwrap();
        assert_eq!(one.total, all.total);
        assert!(one.found.len() < all.found.len());
        // the study's pass/fail form rejects it, naming the count
        let e = check_cluster_schedule(&g, &p, &early, Some((&alloc, AT_LEAST)), None).unwrap_err();
        assert!(e.to_string().contains(&format!("breaks {} rule(s)", all.total)), "{e}");
        // a task twice and one missing: only those
        let mut twice = s.clone();
        let r3 = twice.task.iter().position(|&v| v == 3).unwrap();
        twice.task[r3] = 2;
        let found = schedule_violations(&g, &p, &twice, Some((&alloc, AT_LEAST)), None, 20).unwrap();
        assert_eq!(
            found.found,
            vec![Violation::TaskTwice { task: 2 }, Violation::TaskMissing { task: 3 }]
        );
    }

    #[test]
    fn the_translation_is_checked_as_its_property() {
        // the checker does not call `translate`: it agrees with it on every reference count
        let p = MultiCluster::new(vec![4, 3], vec![1.0, 2.5]).unwrap();
        let g = fork_join();
        let alloc = [1, 2, 1, 1];
        let s = place_reference(&g, &p, &alloc, None, AT_LEAST).unwrap();
        for p_ref in 1..=p.ref_procs() {
            let other = [p_ref; 4];
            let found = schedule_violations(&g, &p, &s, Some((&other, AT_LEAST)), None, 20).unwrap();
            for r in 0..s.len() {
                let (v, k) = (s.task[r], s.cluster[r]);
                let q = (s.proc_offsets[r + 1] - s.proc_offsets[r]) as u32;
                let want = p.translate(&g, v, p_ref, k, AT_LEAST);
                let reported = found.found.iter().find_map(|x| match *x {
                    Violation::Translation { row, expected, .. } if row == r => Some(expected),
                    _ => None,
                });
                assert_eq!(reported, (want != q).then_some(want), "task {v}, p_ref {p_ref}");
            }
        }
    }

    #[test]
    fn the_schedule_claims_its_translation_rule() {
        // one perfectly parallel task of 10 Gflop on 9 slow and 8 processors 2.5 times faster:
        // 11 reference processors translate to 5 fast ones at least as fast, 4 closest (1 s, against
        // 1.11 s on the 9 slow ones)
        let p = MultiCluster::new(vec![9, 8], vec![1e9, 2.5e9]).unwrap();
        let g = Ptg::new(vec![1e10], vec![0.0], &[0, 0], &[]).unwrap();
        for (rule, other, q) in [(Translation::Closest, AT_LEAST, 4), (AT_LEAST, Translation::Closest, 5)] {
            let s = place_reference(&g, &p, &[11], None, rule).unwrap();
            assert_eq!((s.cluster[0], s.proc_offsets[1]), (1, q));
            assert!(schedule_violations(&g, &p, &s, Some((&[11], rule)), None, 20)
                .unwrap()
                .is_empty());
            // the other rule's claim: the translation is wrong, and only it
            let found = schedule_violations(&g, &p, &s, Some((&[11], other)), None, 20).unwrap();
            assert_eq!(
                found.found,
                vec![Violation::Translation {
                    row: 0,
                    task: 0,
                    cluster: 1,
                    procs: q as u32,
                    reference: 11,
                    expected: 9 - q as u32,
                }]
            );
        }
    }

    #[test]
    fn the_closest_translation_is_checked_as_its_property() {
        // every count on every cluster for every reference count: the checker accepts exactly the kernel's
        let p = MultiCluster::new(vec![6, 3], vec![1.0, 2.7]).unwrap();
        let g = fork_join();
        for p_ref in 1..=p.ref_procs() {
            for k in 0..2 {
                for q in 1..=p.procs(k) {
                    let ids: Vec<u32> = (0..q).map(|i| p.first(k) + i).collect();
                    let v = 1;
                    let d = exec_time(g.work()[v], g.alpha()[v], q, p.speed(k));
                    let s = ClusterSchedule {
                        task: vec![0, 1, 2, 3],
                        cluster: vec![k; 4],
                        start: vec![0.0, 0.0, 0.0, 0.0],
                        end: vec![0.0, d, 0.0, 0.0],
                        proc_offsets: vec![0, 0, q as usize, q as usize, q as usize],
                        proc_ids: ids,
                    };
                    let alloc = [1, p_ref, 1, 1];
                    let found =
                        schedule_violations(&g, &p, &s, Some((&alloc, Translation::Closest)), None, 20).unwrap();
                    let flagged = found
                        .found
                        .iter()
                        .any(|x| matches!(*x, Violation::Translation { task: 1, .. }));
                    let want = p.translate(&g, v, p_ref, k, Translation::Closest);
                    assert_eq!(flagged, want != q, "p_ref {p_ref}, cluster {k}, q {q}");
                }
            }
        }
    }

    #[test]
    fn a_row_covering_two_others_clashes_with_both() {
        // an entry (0) and an exit (4) of no work around three tasks on processor 0
        let g = Ptg::new(
            vec![0.0, 10.0, 1.0, 1.0, 0.0],
            vec![0.0; 5],
            &[0, 3, 4, 5, 6, 6],
            &[1, 2, 3, 4, 4, 4],
        )
        .unwrap();
        let p = MultiCluster::new(vec![2], vec![1.0]).unwrap();
        let s = ClusterSchedule {
            task: vec![0, 1, 2, 3, 4],
            cluster: vec![0; 5],
            start: vec![0.0, 0.0, 1.0, 3.0, 10.0],
            end: vec![0.0, 10.0, 2.0, 4.0, 10.0],
            proc_offsets: vec![0, 1, 2, 3, 4, 5],
            proc_ids: vec![1, 0, 0, 0, 1],
        };
        let found = schedule_violations(&g, &p, &s, None, None, 20).unwrap();
        let overlap = |first, second| Violation::Overlap {
            processor: 0,
            first,
            second,
        };
        assert_eq!(found.found, vec![overlap(1, 2), overlap(1, 3)]);
        // ids out of the cluster, none, repeated
        let mut bad = s.clone();
        bad.proc_offsets = vec![0, 1, 2, 2, 4, 5];
        bad.proc_ids = vec![1, 2, 1, 1, 1];
        let found = schedule_violations(&g, &p, &bad, None, None, 20).unwrap();
        let procs = |row| Violation::Processors {
            row,
            task: row,
            cluster: 0,
        };
        assert_eq!(found.found, vec![procs(1), procs(2), procs(3)]);
        // a cluster that does not exist, times not finite
        let mut bad = s.clone();
        bad.cluster[1] = 5;
        bad.start[2] = f64::NAN;
        let found = schedule_violations(&g, &p, &bad, None, None, 20).unwrap();
        assert!(matches!(found.found[0], Violation::UnknownCluster { row: 1, task: 1 }));
        assert!(matches!(found.found[1], Violation::Times { row: 2, task: 2, .. }));
        assert_eq!(found.total, 2);
    }
}
