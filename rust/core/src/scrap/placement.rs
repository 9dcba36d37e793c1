//! Heterogeneous multi-cluster platforms (N'takpé & Suter, PDCS 2007, §3-§4):
//! the HCPA reference cluster, the translation of reference allocations, the
//! communication model, and list scheduling of allocated tasks over the
//! clusters.

use std::collections::BinaryHeap;

use crate::error::{Error, Result};
use crate::ptg::{exec_time, Pool, Ptg, Ready};

/// `c` clusters; cluster `k` has `procs[k]` identical processors of
/// `speed[k]` flop/s. Processor ids are global: cluster `k` owns
/// `first(k)..first(k) + procs[k]`, clusters in order.
///
/// The *reference speed* `s_ref` is the slowest processor's speed; cluster
/// `k`'s relative speed is `r_k = speed[k] / s_ref >= 1`. The platform's
/// power in reference processors is `P_ref = Σ_k procs[k] · r_k` (real,
/// [`MultiCluster::ref_power`]); the HCPA *reference cluster* is the
/// virtual homogeneous cluster of `⌊P_ref + 1e-9⌋` processors of speed
/// `s_ref` ([`MultiCluster::ref_procs`]), equivalent in power to the
/// platform up to the rounding (HCPA, N'takpé & Suter 2006).
#[derive(Debug, Clone, PartialEq)]
pub struct MultiCluster {
    procs: Vec<u32>,
    speed: Vec<f64>,
    first: Vec<u32>,
    s_ref: f64,
    ref_power: f64,
    ref_procs: u32,
}

impl MultiCluster {
    /// A platform from its clusters' processor counts and speeds (flop/s).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for no cluster, lengths that differ, a
    /// cluster of 0 processors, a speed not finite and `> 0`, or more than
    /// `u32::MAX` processors in all.
    pub fn new(procs: Vec<u32>, speed: Vec<f64>) -> Result<Self> {
        if procs.is_empty() {
            return Err(Error::InvalidArgument("a platform needs at least one cluster".into()));
        }
        if procs.len() != speed.len() {
            return Err(Error::InvalidArgument(format!(
                "{} processor counts for {} speeds",
                procs.len(),
                speed.len()
            )));
        }
        if let Some(k) = procs.iter().position(|&p| p == 0) {
            return Err(Error::InvalidArgument(format!("cluster {k}: procs == 0, must be >= 1")));
        }
        if let Some(k) = speed.iter().position(|s| !(s.is_finite() && *s > 0.0)) {
            return Err(Error::InvalidArgument(format!(
                "cluster {k}: speed == {}, must be finite and > 0 (flop/s)",
                speed[k]
            )));
        }
        let mut first = Vec::with_capacity(procs.len());
        let mut total: u32 = 0;
        for &p in &procs {
            first.push(total);
            total = total
                .checked_add(p)
                .ok_or_else(|| Error::InvalidArgument(format!("more than {} processors in all", u32::MAX)))?;
        }
        let s_ref = speed.iter().copied().fold(f64::INFINITY, f64::min);
        let ref_power = procs.iter().zip(&speed).fold(0.0, |acc, (&p, &s)| acc + f64::from(p) * (s / s_ref));
        let ref_procs = (ref_power + 1e-9).floor().min(f64::from(u32::MAX)) as u32;
        Ok(MultiCluster { procs, speed, first, s_ref, ref_power, ref_procs })
    }

    /// Number of clusters.
    pub fn len(&self) -> usize {
        self.procs.len()
    }

    /// Always false: a platform has a cluster.
    pub fn is_empty(&self) -> bool {
        self.procs.is_empty()
    }

    /// Processors of cluster `k`.
    pub fn procs(&self, k: usize) -> u32 {
        self.procs[k]
    }

    /// Speed of cluster `k`'s processors (flop/s).
    pub fn speed(&self, k: usize) -> f64 {
        self.speed[k]
    }

    /// First global processor id of cluster `k`.
    pub fn first(&self, k: usize) -> u32 {
        self.first[k]
    }

    /// All processors.
    pub fn total_procs(&self) -> u32 {
        self.procs.iter().sum()
    }

    /// The reference speed `s_ref` (the slowest processor's, flop/s).
    pub fn ref_speed(&self) -> f64 {
        self.s_ref
    }

    /// The platform's power in reference processors, `Σ procs[k] · speed[k] / s_ref`.
    pub fn ref_power(&self) -> f64 {
        self.ref_power
    }

    /// Processors of the reference cluster, `⌊ref_power + 1e-9⌋`.
    pub fn ref_procs(&self) -> u32 {
        self.ref_procs
    }

    /// `T_ref(v, p)`: task `v` of `g` on `p` reference processors.
    #[inline]
    pub fn ref_time(&self, g: &Ptg, v: usize, p: u32) -> f64 {
        exec_time(g.work()[v], g.alpha()[v], p, self.s_ref)
    }

    /// `T_k(v, q)`: task `v` of `g` on `q` processors of cluster `k`.
    #[inline]
    pub fn time(&self, g: &Ptg, v: usize, q: u32, k: usize) -> f64 {
        exec_time(g.work()[v], g.alpha()[v], q, self.speed[k])
    }

    /// `f(p_ref, v, k)`: the smallest allocation `q >= 1` of task `v` on
    /// cluster `k` that is at least as fast as `p_ref` reference processors,
    /// `T_k(v, q) <= T_ref(v, p_ref)` (SCRAP §3, HCPA's translation). As
    /// `speed[k] >= s_ref`, `q = p_ref` qualifies, so `q <= p_ref`; it may
    /// exceed the cluster's size (then the cluster cannot host it). Binary
    /// search: `T_k(v, q)` does not increase with `q`.
    pub fn translate(&self, g: &Ptg, v: usize, p_ref: u32, k: usize) -> u32 {
        let target = self.ref_time(g, v, p_ref.max(1));
        let (mut lo, mut hi) = (1u32, p_ref.max(1));
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.time(g, v, mid, k) <= target {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        lo
    }

    /// True when some cluster `k` has `f(p_ref, v, k) < procs[k]`: the
    /// reference allocation may grow (SCRAP Algorithm 1, line 5).
    fn can_grow(&self, g: &Ptg, v: usize, p_ref: u32) -> bool {
        (0..self.len()).any(|k| self.translate(g, v, p_ref, k) < self.procs[k])
    }

    /// Each task's cap on the reference cluster: task `v` may take one more
    /// reference processor while `p < caps[v]`, i.e. while some cluster can
    /// still accommodate the translation with room to spare (SCRAP's
    /// "saturated critical path", line 5 of Algorithms 1 and 2:
    /// `∃ C_k | f(p_ref(v), v, k) < P_k`) and `p < ` [`Self::ref_procs`]
    /// (no allocation exceeds the reference cluster). `can_grow` is true
    /// for a prefix `1..caps[v]` of allocations (translations do not
    /// decrease as `p` grows), found by binary search. As `f` grows by at
    /// most one per reference processor (`r_k >= 1`), a grown allocation
    /// always fits some cluster.
    pub fn caps(&self, g: &Ptg) -> Vec<u32> {
        let top = self.ref_procs.max(1);
        (0..g.len())
            .map(|v| {
                // smallest p in 1..=top with !can_grow(p), else top
                let (mut lo, mut hi) = (1u32, top);
                while lo < hi {
                    let mid = lo + (hi - lo) / 2;
                    if self.can_grow(g, v, mid) {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                lo
            })
            .collect()
    }

    /// Checks a task's cluster index.
    fn check_cluster(&self, k: usize) -> Result<()> {
        if k < self.len() {
            Ok(())
        } else {
            Err(Error::InvalidArgument(format!("cluster {k}: the platform has {} clusters", self.len())))
        }
    }
}

/// The network of a multi-cluster platform (SCRAP §4), bandwidths in
/// bytes/s and latencies in seconds. Each processor reaches its cluster's
/// switch through one link (`link_bw[k]`, `link_lat[k]`); the switch has the
/// link's characteristics; each cluster reaches the backbone through one
/// uplink; the backbone joins the clusters.
#[derive(Debug, Clone, PartialEq)]
pub struct Network {
    /// Bandwidth of a processor's link (and of the switch) in cluster `k`.
    pub link_bw: Vec<f64>,
    /// Latency of a processor's link (and of the switch) in cluster `k`.
    pub link_lat: Vec<f64>,
    /// Bandwidth of a cluster's uplink to the backbone.
    pub uplink_bw: f64,
    /// Latency of a cluster's uplink.
    pub uplink_lat: f64,
    /// Bandwidth of the backbone.
    pub backbone_bw: f64,
    /// Latency of the backbone.
    pub backbone_lat: f64,
}

impl Network {
    /// Checks the network against a platform of `clusters` clusters.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a length other than `clusters`, a
    /// bandwidth not finite and `> 0`, a latency not finite and `>= 0`.
    pub fn check(&self, clusters: usize) -> Result<()> {
        if self.link_bw.len() != clusters || self.link_lat.len() != clusters {
            return Err(Error::InvalidArgument(format!(
                "network: {} link bandwidths and {} latencies for {clusters} clusters",
                self.link_bw.len(),
                self.link_lat.len()
            )));
        }
        let bws = self.link_bw.iter().chain([&self.uplink_bw, &self.backbone_bw]);
        if let Some(b) = bws.into_iter().find(|b| !(b.is_finite() && **b > 0.0)) {
            return Err(Error::InvalidArgument(format!("network: bandwidth == {b}, must be finite and > 0")));
        }
        let lats = self.link_lat.iter().chain([&self.uplink_lat, &self.backbone_lat]);
        if let Some(l) = lats.into_iter().find(|l| !(l.is_finite() && **l >= 0.0)) {
            return Err(Error::InvalidArgument(format!("network: latency == {l}, must be finite and >= 0")));
        }
        Ok(())
    }

    /// Seconds to move `bytes` from a task on `q_src` processors of cluster
    /// `k_src` to a task on `q_dst` processors of cluster `k_dst`, without
    /// contention (Python's `clustersched.platform.Network` documents the model):
    ///
    /// * nothing to move (`bytes == 0`): 0;
    /// * same cluster: the data are redistributed through the switch, one
    ///   flow per processor on the smaller side: `3 · link_lat[k] +
    ///   bytes / (min(q_src, q_dst) · link_bw[k])` (source link, switch,
    ///   destination link);
    /// * different clusters: links, switch, uplink, backbone, uplink,
    ///   switch, links, bottlenecked by the narrowest of the aggregated
    ///   links of each side, the two uplinks and the backbone:
    ///   `2 · link_lat[k_src] + 2 · link_lat[k_dst] + 2 · uplink_lat +
    ///   backbone_lat + bytes / min(q_src · link_bw[k_src], uplink_bw,
    ///   backbone_bw, q_dst · link_bw[k_dst])`.
    pub fn transfer_time(&self, bytes: f64, k_src: usize, q_src: u32, k_dst: usize, q_dst: u32) -> f64 {
        if bytes <= 0.0 {
            return 0.0;
        }
        if k_src == k_dst {
            let flows = f64::from(q_src.min(q_dst));
            3.0 * self.link_lat[k_src] + bytes / (flows * self.link_bw[k_src])
        } else {
            let latency = 2.0 * self.link_lat[k_src] + 2.0 * self.link_lat[k_dst] + 2.0 * self.uplink_lat + self.backbone_lat;
            let bw = (f64::from(q_src) * self.link_bw[k_src])
                .min(self.uplink_bw)
                .min(self.backbone_bw)
                .min(f64::from(q_dst) * self.link_bw[k_dst]);
            latency + bytes / bw
        }
    }
}

/// What moves along the edges of a PTG: task `v` sends `bytes[v]` to each
/// successor, on `network`. `None` as a whole: communications are free.
#[derive(Debug, Clone, Copy)]
pub struct Comms<'a> {
    /// The platform's network.
    pub network: &'a Network,
    /// Bytes each task sends to each of its successors (`>= 0`, finite).
    pub bytes: &'a [f64],
}

impl Comms<'_> {
    fn check(&self, g: &Ptg, clusters: usize) -> Result<()> {
        self.network.check(clusters)?;
        if self.bytes.len() != g.len() {
            return Err(Error::InvalidArgument(format!("{} byte counts for {} tasks", self.bytes.len(), g.len())));
        }
        if let Some(v) = self.bytes.iter().position(|b| !(b.is_finite() && *b >= 0.0)) {
            return Err(Error::InvalidArgument(format!(
                "task {v}: bytes == {}, must be finite and >= 0",
                self.bytes[v]
            )));
        }
        Ok(())
    }
}

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
    fn with_capacity(rows: usize) -> Self {
        ClusterSchedule {
            task: Vec::with_capacity(rows),
            cluster: Vec::with_capacity(rows),
            start: Vec::with_capacity(rows),
            end: Vec::with_capacity(rows),
            proc_offsets: vec![0],
            proc_ids: Vec::new(),
        }
    }

    fn push(&mut self, task: usize, cluster: usize, start: f64, end: f64, procs: &[u32]) {
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

/// The list-scheduling state over all clusters.
struct Placer<'a> {
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
struct Option_ {
    k: usize,
    q: u32,
    start: f64,
    finish: f64,
}

impl<'a> Placer<'a> {
    fn new(g: &'a Ptg, platform: &'a MultiCluster, comms: Option<Comms<'a>>) -> Result<Self> {
        if let Some(c) = &comms {
            c.check(g, platform.len())?;
        }
        let pools = (0..platform.len()).map(|k| Pool::new(platform.first(k), platform.procs(k))).collect();
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
    fn ready_time(&self, v: usize, k: usize, q: u32) -> f64 {
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
    fn probe(&mut self, v: usize, k: usize, q: u32) -> Option_ {
        let r = self.ready_time(v, k, q);
        let d = self.platform.time(self.g, v, q, k);
        let latest = self.pools[k].select(q as usize, r);
        let start = if d > 0.0 && latest > r { latest } else { r };
        Option_ { k, q, start, finish: start + d }
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
fn list_run<'a>(
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
    ready.push(Ready { priority: priority[0], g: 0 });
    while let Some(Ready { g: v, .. }) = ready.pop() {
        let choice = choose(&mut placer, v)?;
        placer.commit(v, choice);
        for &s in g.succ(v) {
            waiting[s] -= 1;
            if waiting[s] == 0 {
                ready.push(Ready { priority: priority[s], g: s });
            }
        }
    }
    Ok(placer.out)
}

/// Bottom levels of `g` with durations `d` (the shared recurrence).
fn levels_of(g: &Ptg, d: &[f64]) -> Vec<f64> {
    let mut bl = vec![0.0; g.len()];
    crate::ptg::fill_bottom_levels(g, d, &mut bl);
    bl
}

/// Places the tasks of `g`, allocated `alloc[v]` reference processors each,
/// on `platform` by list scheduling (the placement step of HCPA, SCRAP and
/// SCRAP-MAX, PDCS 2007 §3): tasks by decreasing bottom level of their
/// reference times `T_ref(v, alloc[v])` (ties: lowest index), a task
/// competing once all its predecessors are placed; each goes to the cluster
/// where its translated allocation `f(alloc[v], v, k)` (only clusters it
/// fits) finishes earliest, ties to the lowest cluster index; within the
/// cluster, processors by the shared best-fit rule, start not before its
/// predecessors' data have arrived (`comms`, or their ends without).
///
/// # Errors
/// [`Error::InvalidArgument`] for an allocation of the wrong length or
/// outside `1..=ref_procs`, one that no cluster can host, or bad `comms`.
pub fn place_reference(
    g: &Ptg,
    platform: &MultiCluster,
    alloc: &[u32],
    comms: Option<Comms<'_>>,
) -> Result<ClusterSchedule> {
    g.check_alloc(0, alloc, platform.ref_procs().max(1))?;
    let translated: Vec<Vec<u32>> =
        (0..g.len()).map(|v| (0..platform.len()).map(|k| platform.translate(g, v, alloc[v], k)).collect()).collect();
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

/// MHEFT-MAX (Casanova, Desprez & Suter 2004's M-HEFT with the cap of
/// N'takpé, Suter & Casanova 2007, PDCS 2007 §2): tasks by decreasing bottom
/// level of their *average one-processor time over the clusters* (ties:
/// lowest index), each placed on the cluster `k` and allocation
/// `q in 1..=max(1, ⌊fraction · procs[k]⌋)` of earliest finish (the same
/// ready-time and best-fit rules as [`place_reference`]); ties to the
/// smaller `q`, then the lower cluster index.
///
/// # Errors
/// [`Error::InvalidArgument`] for `fraction` outside `(0, 1]` or bad `comms`.
pub fn mheft_max(g: &Ptg, platform: &MultiCluster, fraction: f64, comms: Option<Comms<'_>>) -> Result<ClusterSchedule> {
    if !(fraction > 0.0 && fraction <= 1.0) {
        return Err(Error::InvalidArgument(format!("fraction == {fraction}, must be in (0, 1]")));
    }
    let c = platform.len() as f64;
    let mean: Vec<f64> = (0..g.len())
        .map(|v| (0..platform.len()).fold(0.0, |acc, k| acc + platform.time(g, v, 1, k)) / c)
        .collect();
    let priority = levels_of(g, &mean);
    let limit: Vec<u32> =
        (0..platform.len()).map(|k| ((fraction * f64::from(platform.procs(k))).floor() as u32).max(1)).collect();
    list_run(g, platform, comms, &priority, |placer, v| {
        let mut best: Option<Option_> = None;
        for q in 1..=limit.iter().copied().max().unwrap_or(1) {
            for k in 0..platform.len() {
                if q > limit[k] {
                    continue;
                }
                let o = placer.probe(v, k, q);
                if best.is_none_or(|b| o.finish < b.finish) {
                    best = Some(o);
                }
            }
        }
        // q = 1 fits every cluster, so there is always a choice
        best.ok_or_else(|| Error::InvalidArgument(format!("task {v}: no cluster to run it on")))
    })
}

/// Checks a schedule of `g` on `platform` whose task `v` was allocated
/// `alloc[v]` reference processors (`None`: any allocation): every task in
/// one row, on one cluster, with ids of that cluster, finite `0 <= start <=
/// end`, duration `T_k(v, q)` for its `q` processors (to a relative 1e-9),
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
    if s.proc_offsets[0] != 0 || s.proc_offsets[rows] != s.proc_ids.len() || s.proc_offsets.windows(2).any(|w| w[0] > w[1]) {
        return Err(Error::InvalidArgument("proc_offsets must rise from 0 to the number of processor ids".into()));
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
        platform.check_cluster(k).map_err(|_| Error::Infeasible(format!("task {v}: cluster {k} does not exist")))?;
        if !(st.is_finite() && en.is_finite() && st >= 0.0 && en >= st) {
            return bad(format!("task {v} runs [{st}, {en}): must be finite, 0 <= start <= end"));
        }
        let ids = &s.proc_ids[s.proc_offsets[r]..s.proc_offsets[r + 1]];
        let (lo, hi) = (platform.first(k), platform.first(k) + platform.procs(k));
        if ids.is_empty() || ids.iter().any(|&q| q < lo || q >= hi) || ids.windows(2).any(|w| w[0] >= w[1]) {
            return bad(format!("task {v}: processors must be distinct, increasing ids of cluster {k} ({lo}..{hi})"));
        }
        let q = ids.len() as u32;
        let d = platform.time(g, v, q, k);
        if !close(en - st, d) {
            return bad(format!("task {v} runs {} s on {q} processors of cluster {k}, its time there is {d} s", en - st));
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
                let bytes = if g.work()[u] > 0.0 && g.work()[v] > 0.0 { c.bytes[u] } else { 0.0 };
                let qu = (s.proc_offsets[ru + 1] - s.proc_offsets[ru]) as u32;
                arrival += c.network.transfer_time(bytes, s.cluster[ru], qu, k, q);
            }
            if st < arrival && !close(st, arrival) {
                return bad(format!("task {v} starts at {st} before its predecessor {u}'s data arrive at {arrival}"));
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
                return bad(format!("processor {q} runs tasks {} and {} at once", s.task[j], s.task[r]));
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
    use crate::ptg::fixtures::{arb_ptg, fork_join};
    use super::*;
    use proptest::prelude::*;

    fn gige(c: usize) -> Network {
        Network {
            link_bw: vec![125e6; c],
            link_lat: vec![1e-4; c],
            uplink_bw: 125e6,
            uplink_lat: 1e-4,
            backbone_bw: 25e9 / 8.0,
            backbone_lat: 0.05,
        }
    }

    #[test]
    fn reference_cluster_and_translation_by_hand() {
        let p = MultiCluster::new(vec![10, 4], vec![1e9, 2.5e9]).unwrap();
        assert_eq!(p.ref_speed(), 1e9);
        assert_eq!(p.ref_power(), 20.0);
        assert_eq!(p.ref_procs(), 20);
        // one perfectly parallel task of 10 Gflop: T_ref(p) = 10 / p
        let g = Ptg::new(vec![1e10], vec![0.0], &[0, 0], &[]).unwrap();
        // on cluster 1: T = 4 / q <= 10 / p  <=>  q >= 0.4 p
        assert_eq!(p.translate(&g, 0, 1, 1), 1);
        assert_eq!(p.translate(&g, 0, 5, 1), 2);
        assert_eq!(p.translate(&g, 0, 6, 1), 3);
        assert_eq!(p.translate(&g, 0, 10, 0), 10);
        // caps: cluster 0 takes p < 10, cluster 1 while ceil(0.4 p) < 4, p <= 7
        assert_eq!(p.caps(&g), vec![10]);
        let small = MultiCluster::new(vec![3, 4], vec![1e9, 2.5e9]).unwrap();
        assert_eq!(small.ref_procs(), 13);
        assert_eq!(small.caps(&g), vec![8]);
    }

    #[test]
    fn transfer_times_by_hand() {
        let net = gige(2);
        assert_eq!(net.transfer_time(0.0, 0, 1, 1, 1), 0.0);
        assert!((net.transfer_time(125e6, 0, 2, 0, 4) - (3e-4 + 0.5)).abs() < 1e-12);
        assert!((net.transfer_time(125e6, 0, 2, 1, 4) - (6e-4 + 0.05 + 1.0)).abs() < 1e-12);
    }

    #[test]
    fn placement_prefers_the_earliest_finish() {
        let p = MultiCluster::new(vec![4, 2], vec![1.0, 4.0]).unwrap();
        let g = fork_join();
        let s = place_reference(&g, &p, &[1, 2, 1, 1], None).unwrap();
        check_cluster_schedule(&g, &p, &s, Some(&[1, 2, 1, 1]), None).unwrap();
        // every task is faster on the speed-4 cluster
        assert!(s.cluster.iter().take(2).all(|&k| k == 1));
        let m = mheft_max(&g, &p, 0.5, None).unwrap();
        check_cluster_schedule(&g, &p, &m, None, None).unwrap();
    }

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
        let comms = Comms { network: &net, bytes: &bytes };
        let with = place_reference(&g, &p, &alloc, Some(comms)).unwrap();
        check_cluster_schedule(&g, &p, &with, Some(&alloc), Some(comms)).unwrap();
        assert!(check_cluster_schedule(&g, &p, &s, Some(&alloc), Some(comms)).is_err());
    }

    proptest! {
        #[test]
        fn translation_is_the_smallest_fast_enough(g in arb_ptg(), p_ref in 1u32..60, r in 1.0f64..6.0) {
            let p = MultiCluster::new(vec![8, 8], vec![1.0, r]).unwrap();
            for v in 0..g.len() {
                let q = p.translate(&g, v, p_ref, 1);
                prop_assert!(q >= 1 && q <= p_ref);
                prop_assert!(p.time(&g, v, q, 1) <= p.ref_time(&g, v, p_ref));
                if q > 1 {
                    prop_assert!(p.time(&g, v, q - 1, 1) > p.ref_time(&g, v, p_ref));
                }
                // a grown allocation's translation grows by at most one
                prop_assert!(p.translate(&g, v, p_ref + 1, 1) <= q + 1);
            }
        }

        #[test]
        fn placements_are_feasible(g in arb_ptg(), a in 1u32..8, comm in any::<bool>()) {
            let p = MultiCluster::new(vec![3, 5, 2], vec![2.0, 1.0, 3.0]).unwrap();
            let alloc: Vec<u32> = p.caps(&g).iter().map(|&c| c.min(a)).collect();
            let net = gige(3);
            let bytes = vec![3e8; g.len()];
            let comms = comm.then_some(Comms { network: &net, bytes: &bytes });
            let s = place_reference(&g, &p, &alloc, comms).unwrap();
            check_cluster_schedule(&g, &p, &s, Some(&alloc), comms).unwrap();
            let m = mheft_max(&g, &p, 0.5, comms).unwrap();
            check_cluster_schedule(&g, &p, &m, None, comms).unwrap();
        }
    }
}
