//! Heterogeneous multi-cluster platforms (N'takpé & Suter, PDCS 2007, §3-§4):
//! the HCPA reference cluster, the translation of reference allocations, and
//! the communication model.

use crate::error::{Error, Item, Result};
use crate::ptg::{exec_time, Ptg};

/// Most processors a platform may have in all (`2^16`): the list placement
/// keeps every processor id, and MHEFT-MAX probes every allocation of every
/// cluster for each task. PDCS 2007 §4 uses at most 8 x 128.
pub const MAX_PROCS: u32 = 1 << 16;

/// Most processors the HCPA reference cluster may have (`2^20`): `P_ref =
/// Σ procs[k] · speed[k] / s_ref` bounds every reference allocation, so it
/// grows with the platform's size *and* the spread of its speeds. PDCS 2007
/// §4 reaches at most 8 x 128 x 5 = 5,120.
pub const MAX_REF_PROCS: u32 = 1 << 20;

/// Largest `(tasks + edges) · ⌊P_ref⌋` of one problem (`2^26`): the
/// allocation loop makes at most `tasks · P_ref` additions, a schedule holds
/// at most that many processor ids, and MHEFT-MAX's probes read each edge
/// once per allocation tried. PDCS 2007 §4: at most about 200 · 5,120.
pub const MAX_SIZE: u64 = 1 << 26;

/// Longest time bound of one problem, in seconds (`1e300`): every task on
/// one processor of the slowest speed, one after the other, each after its
/// slowest incoming transfer. Every time a schedule holds is below it, so
/// no sum of times overflows.
pub const MAX_SECONDS: f64 = 1e300;

/// Most processing power a platform may have, `Σ procs[k] · speed[k]` in
/// flop/s (`1e300`): every sum of powers a metric takes stays finite.
pub const MAX_POWER: f64 = 1e300;

/// The translation `f(p_ref, t, k)` of a reference allocation to cluster
/// `k` (PDCS 2007 §3: "the function f(pref(t), t, k) is used to determine the
/// actual allocation of task t on cluster Ck from its reference allocation";
/// the paper gives no formula, nor does it say what f does when cluster `k`
/// cannot match the reference time). Python's `clustersched.scrap.TRANSLATIONS`
/// documents both readings and why each is defensible.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Translation {
    /// The smallest `q >= 1` with `T_k(t, q) <= T_ref(t, p_ref)`: never
    /// slower than the reference; may exceed `P_k` (the cluster cannot host it).
    AtLeastAsFast,
    /// The `q` in `1..=min(p_ref, P_k)` whose `|T_k(t, q) - T_ref(t, p_ref)|`
    /// is smallest, ties to the fewer processors; never exceeds `P_k`.
    Closest,
}

impl Translation {
    /// The rule by its name: `"at-least-as-fast"` or `"closest"`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for any other name.
    pub fn from_name(name: &str) -> Result<Self> {
        match name {
            "at-least-as-fast" => Ok(Translation::AtLeastAsFast),
            "closest" => Ok(Translation::Closest),
            _ => Err(Error::InvalidArgument(format!(
                "translation == '{name}', must be 'at-least-as-fast' or 'closest'"
            ))),
        }
    }

    /// Its name (what [`Translation::from_name`] reads).
    pub fn name(self) -> &'static str {
        match self {
            Translation::AtLeastAsFast => "at-least-as-fast",
            Translation::Closest => "closest",
        }
    }
}

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
    /// cluster of 0 processors, a speed not finite and `> 0`, more than
    /// [`MAX_PROCS`] processors in all, a power above [`MAX_POWER`], or a
    /// reference cluster of more than [`MAX_REF_PROCS`] processors.
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
        if total > MAX_PROCS {
            return Err(Error::InvalidArgument(format!(
                "platform: {total} processors in all, must be <= {MAX_PROCS} (clustersched.scrap.MAX_PROCS)"
            )));
        }
        let power = procs
            .iter()
            .zip(&speed)
            .fold(0.0, |acc, (&p, &s)| acc + f64::from(p) * s);
        if power.is_nan() || power > MAX_POWER {
            return Err(Error::InvalidArgument(format!(
                "platform: its power, the sum of procs x speed, is {power:e} flop/s, must be <= {MAX_POWER:e} \
                 (clustersched.scrap.MAX_POWER)"
            )));
        }
        let s_ref = speed.iter().copied().fold(f64::INFINITY, f64::min);
        let ref_power = procs
            .iter()
            .zip(&speed)
            .fold(0.0, |acc, (&p, &s)| acc + f64::from(p) * (s / s_ref));
        // +inf for speeds of very different magnitudes
        if ref_power.is_nan() || ref_power > f64::from(MAX_REF_PROCS) {
            return Err(Error::InvalidArgument(format!(
                "platform: its reference cluster has {ref_power:e} processors (the sum of procs x speed / slowest \
                 speed), must be <= {MAX_REF_PROCS} (clustersched.scrap.MAX_REF_PROCS): too many processors or \
                 speeds too far apart"
            )));
        }
        let ref_procs = (ref_power + 1e-9).floor() as u32;
        Ok(MultiCluster {
            procs,
            speed,
            first,
            s_ref,
            ref_power,
            ref_procs,
        })
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

    /// `f(p_ref, v, k)` under `rule` ([`Translation`]): the allocation of task
    /// `v` on cluster `k` for `p_ref` reference processors (SCRAP §3, HCPA's
    /// translation). Both rules give `1 <= q <= p_ref` (`speed[k] >= s_ref`, so
    /// `q = p_ref` is at least as fast); `AtLeastAsFast` may exceed the
    /// cluster's size (then the cluster cannot host it), `Closest` never does.
    /// Binary searches: `T_k(v, q)` does not increase with `q`.
    pub fn translate(&self, g: &Ptg, v: usize, p_ref: u32, k: usize, rule: Translation) -> u32 {
        let p_ref = p_ref.max(1);
        let target = self.ref_time(g, v, p_ref);
        match rule {
            Translation::AtLeastAsFast => self.first_at_most(g, v, k, target, p_ref),
            Translation::Closest => {
                let top = p_ref.min(self.procs[k]);
                // `fast`: the first count at least as fast (top + 1: none up to top); every
                // count below it is slower, and the one just below is the closest of them
                let fast = self.first_at_most(g, v, k, target, top);
                if fast == 1 {
                    return 1;
                }
                let slower = self.time(g, v, fast - 1, k);
                // the first count of that time (equal times in float64: ties to fewer processors)
                let below = self.first_at_most(g, v, k, slower, fast - 1);
                if fast > top || slower - target <= target - self.time(g, v, fast, k) {
                    below
                } else {
                    fast
                }
            }
        }
    }

    /// The smallest `q` in `1..=top` with `T_k(v, q) <= x`, `top + 1` when none (binary search).
    fn first_at_most(&self, g: &Ptg, v: usize, k: usize, x: f64, top: u32) -> u32 {
        let (mut lo, mut hi) = (1u32, top + 1);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.time(g, v, mid, k) <= x {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        lo
    }

    /// True when some cluster `k` has `f(p_ref, v, k) < procs[k]`: the
    /// reference allocation may grow (SCRAP Algorithm 1, line 5).
    fn can_grow(&self, g: &Ptg, v: usize, p_ref: u32, rule: Translation) -> bool {
        (0..self.len()).any(|k| self.translate(g, v, p_ref, k, rule) < self.procs[k])
    }

    /// Each task's cap on the reference cluster: task `v` may take one more
    /// reference processor while `p < caps[v]`, i.e. while some cluster can
    /// still accommodate the translation with room to spare (SCRAP's
    /// "saturated critical path", line 5 of Algorithms 1 and 2:
    /// `∃ C_k | f(p_ref(v), v, k) < P_k`) and `p < ` [`Self::ref_procs`]
    /// (no allocation exceeds the reference cluster). `can_grow` is true
    /// for a prefix `1..caps[v]` of allocations (translations do not
    /// decrease as `p` grows, under either rule), found by binary search.
    /// Under `AtLeastAsFast`, `f` grows by at most one per reference
    /// processor (`r_k >= 1`), so a grown allocation always fits some
    /// cluster; `Closest` never exceeds a cluster. The caps depend on the
    /// rule: under `Closest` a task may grow further, when a slower count
    /// below `P_k` is closer than the first one at least as fast.
    pub fn caps(&self, g: &Ptg, rule: Translation) -> Vec<u32> {
        let top = self.ref_procs.max(1);
        (0..g.len())
            .map(|v| {
                // smallest p in 1..=top with !can_grow(p), else top
                let (mut lo, mut hi) = (1u32, top);
                while lo < hi {
                    let mid = lo + (hi - lo) / 2;
                    if self.can_grow(g, v, mid, rule) {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                lo
            })
            .collect()
    }
}

/// Checks that one problem, `g` on `platform` with `comms`, is within the
/// limits every kernel of this module works in: [`MAX_SIZE`] and
/// [`MAX_SECONDS`] (the platform itself was checked by [`MultiCluster::new`]).
///
/// # Errors
/// [`Error::Invalid`] about PTG 0 naming the limit; the errors of
/// `comms`' own check.
pub fn check_problem(g: &Ptg, platform: &MultiCluster, comms: Option<Comms<'_>>) -> Result<()> {
    let (n, e) = (g.len() as u64, g.num_edges() as u64);
    let size = (n + e).saturating_mul(u64::from(platform.ref_procs().max(1)));
    if size > MAX_SIZE {
        return Err(Error::invalid_item(
            Item::Ptg(0),
            format!(
                "{n} tasks and {e} edges on a reference cluster of {} processors: (tasks + edges) x processors \
                 == {size}, must be <= {MAX_SIZE} (clustersched.scrap.MAX_SIZE)",
                platform.ref_procs()
            ),
        ));
    }
    // The slowest transfer of `b` bytes anywhere: the longest route's
    // latency over the narrowest single link (q = 1), at least any transfer.
    let slowest = comms.map(|c| {
        c.check(g, platform.len())?;
        let net = c.network;
        let link_lat = net.link_lat.iter().copied().fold(0.0, f64::max);
        let latency = 4.0 * link_lat + 2.0 * net.uplink_lat + net.backbone_lat;
        let bw = net
            .link_bw
            .iter()
            .copied()
            .fold(net.uplink_bw.min(net.backbone_bw), f64::min);
        Ok::<_, Error>((c.bytes, latency, bw))
    });
    let slowest = slowest.transpose()?;
    let mut bound = 0.0;
    let mut worst = (0, f64::NEG_INFINITY);
    for v in 0..g.len() {
        let mut term = platform.ref_time(g, v, 1);
        if let Some((bytes, latency, bw)) = slowest {
            let most = g.pred(v).iter().map(|&u| bytes[u]).fold(0.0, f64::max);
            if most > 0.0 {
                term += latency + most / bw;
            }
        }
        if term > worst.1 {
            worst = (v, term);
        }
        bound += term;
    }
    if bound.is_nan() || bound > MAX_SECONDS {
        let v = worst.0;
        return Err(Error::invalid_item(
            Item::Ptg(0),
            format!(
                "every task on one processor of the slowest speed ({:e} flop/s), one after the other{}, takes {bound:e} \
                 s, must be <= {MAX_SECONDS:e} s (clustersched.scrap.MAX_SECONDS); the longest is task {v}, work {:e} \
                 flop",
                platform.ref_speed(),
                if slowest.is_some() { " after its slowest transfer" } else { "" },
                g.work()[v]
            ),
        ));
    }
    Ok(())
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
            return Err(Error::InvalidArgument(format!(
                "network: bandwidth == {b}, must be finite and > 0"
            )));
        }
        let lats = self.link_lat.iter().chain([&self.uplink_lat, &self.backbone_lat]);
        if let Some(l) = lats.into_iter().find(|l| !(l.is_finite() && **l >= 0.0)) {
            return Err(Error::InvalidArgument(format!(
                "network: latency == {l}, must be finite and >= 0"
            )));
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
            let latency =
                2.0 * self.link_lat[k_src] + 2.0 * self.link_lat[k_dst] + 2.0 * self.uplink_lat + self.backbone_lat;
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
    /// Checks the network against `clusters` and one finite byte count `>= 0` per task of `g`.
    pub(super) fn check(&self, g: &Ptg, clusters: usize) -> Result<()> {
        self.network.check(clusters)?;
        check_bytes(g, self.bytes)
    }
}

/// Checks one finite byte count `>= 0` per task of `g`.
///
/// # Errors
/// [`Error::InvalidArgument`] for a count of counts other than the tasks';
/// [`Error::Invalid`] naming the task whose count is bad.
pub fn check_bytes(g: &Ptg, bytes: &[f64]) -> Result<()> {
    if bytes.len() != g.len() {
        return Err(Error::InvalidArgument(format!(
            "{} byte counts for {} tasks",
            bytes.len(),
            g.len()
        )));
    }
    if let Some(v) = bytes.iter().position(|b| !(b.is_finite() && *b >= 0.0)) {
        // A single graph is PTG 0, as in `Ptg::new`.
        return Err(Error::invalid(
            Item::Task { ptg: Some(0), task: v },
            "bytes",
            bytes[v],
            "must be finite and >= 0",
        ));
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    const AT_LEAST: Translation = Translation::AtLeastAsFast;
    use crate::ptg::fixtures::arb_ptg;
    use proptest::prelude::*;

    /// Gigabit Ethernet links and uplinks, a 25 Gb/s backbone, on `c` clusters.
    pub(crate) fn gige(c: usize) -> Network {
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
        assert_eq!(p.translate(&g, 0, 1, 1, AT_LEAST), 1);
        assert_eq!(p.translate(&g, 0, 5, 1, AT_LEAST), 2);
        assert_eq!(p.translate(&g, 0, 6, 1, AT_LEAST), 3);
        assert_eq!(p.translate(&g, 0, 10, 0, AT_LEAST), 10);
        // caps: cluster 0 takes p < 10, cluster 1 while ceil(0.4 p) < 4, p <= 7
        assert_eq!(p.caps(&g, AT_LEAST), vec![10]);
        let small = MultiCluster::new(vec![3, 4], vec![1e9, 2.5e9]).unwrap();
        assert_eq!(small.ref_procs(), 13);
        assert_eq!(small.caps(&g, AT_LEAST), vec![8]);
    }

    #[test]
    fn sizes_beyond_the_limits_are_refused_before_any_work() {
        // the reproducer: one cluster of 2^32 - 1 processors
        let e = MultiCluster::new(vec![u32::MAX], vec![1e9]).unwrap_err();
        assert!(
            e.to_string().contains("4294967295 processors in all, must be <= 65536"),
            "{e}"
        );
        assert!(MultiCluster::new(vec![MAX_PROCS], vec![1e9]).is_ok());
        let e = MultiCluster::new(vec![2], vec![1e300]).unwrap_err();
        assert!(e.to_string().contains("is 2e300 flop/s, must be <= 1e300"), "{e}");
        // speeds so far apart that the reference cluster is huge, or infinite
        let e = MultiCluster::new(vec![16, 16], vec![1.0, 1e290]).unwrap_err();
        assert!(e.to_string().contains("must be <= 1048576"), "{e}");
        let e = MultiCluster::new(vec![16, 16], vec![1e-300, 1e280]).unwrap_err();
        assert!(e.to_string().contains("reference cluster has inf processors"), "{e}");
        let e = MultiCluster::new(vec![16, 16], vec![1.0, 1e9 * 2f64.powi(20)]).unwrap_err();
        assert!(
            e.to_string()
                .contains("reference cluster has 1.6777216000000016e16 processors"),
            "{e}"
        );
        // (tasks + edges) x P_ref
        let p = MultiCluster::new(vec![1 << 14], vec![1.0]).unwrap();
        let chain = |n: usize, w: f64| {
            let offsets: Vec<usize> = (0..=n).map(|v| v.min(n - 1)).collect();
            let succ: Vec<usize> = (1..n).collect();
            Ptg::new(vec![w; n], vec![0.0; n], &offsets, &succ).unwrap()
        };
        assert!(check_problem(&chain(2048, 1.0), &p, None).is_ok()); // 4095 x 2^14 < 2^26
        let e = check_problem(&chain(2049, 1.0), &p, None).unwrap_err();
        assert!(
            e.to_string()
                .contains("(tasks + edges) x processors == 67125248, must be <= 67108864"),
            "{e}"
        );
        // times beyond 1e300 s, by the work or by the transfers
        let one = MultiCluster::new(vec![4], vec![1e-10]).unwrap();
        let e = check_problem(&chain(3, 1e300), &one, None).unwrap_err();
        assert!(e.to_string().contains("must be <= 1e300 s"), "{e}");
        let fast = MultiCluster::new(vec![4, 4], vec![1.0, 2.0]).unwrap();
        let net = Network {
            link_bw: vec![1e-300; 2],
            ..gige(2)
        };
        let bytes = [1e10; 3];
        let e = check_problem(
            &chain(3, 1.0),
            &fast,
            Some(Comms {
                network: &net,
                bytes: &bytes,
            }),
        )
        .unwrap_err();
        assert!(e.to_string().contains("after its slowest transfer"), "{e}");
        assert!(check_problem(
            &chain(3, 1.0),
            &fast,
            Some(Comms {
                network: &gige(2),
                bytes: &bytes
            })
        )
        .is_ok());
    }

    #[test]
    fn transfer_times_by_hand() {
        let net = gige(2);
        assert_eq!(net.transfer_time(0.0, 0, 1, 1, 1), 0.0);
        assert!((net.transfer_time(125e6, 0, 2, 0, 4) - (3e-4 + 0.5)).abs() < 1e-12);
        assert!((net.transfer_time(125e6, 0, 2, 1, 4) - (6e-4 + 0.05 + 1.0)).abs() < 1e-12);
    }

    #[test]
    fn closest_translation_by_hand() {
        let p = MultiCluster::new(vec![10, 8], vec![1e9, 2.5e9]).unwrap();
        let g = Ptg::new(vec![1e10], vec![0.0], &[0, 0], &[]).unwrap();
        let closest = |p_ref, k| p.translate(&g, 0, p_ref, k, Translation::Closest);
        // T_ref(11) = 0.909 s; on cluster 1, 4 processors take 1 s (0.091 away), 5 take 0.8 s (0.109 away)
        assert_eq!(closest(11, 1), 4);
        assert_eq!(p.translate(&g, 0, 11, 1, AT_LEAST), 5);
        // T_ref(5) = 2 s: exactly 2 processors under both rules
        assert_eq!(closest(5, 1), 2);
        // T_ref(30) = 0.333 s: 12 processors would match, the cluster has 8 (0.5 s): capped at 8,
        // where the at-least-as-fast translation (12) cannot be hosted
        assert_eq!(closest(30, 1), 8);
        assert_eq!(p.translate(&g, 0, 30, 1, AT_LEAST), 12);
        // on the reference speed itself both are the identity
        assert_eq!(closest(7, 0), 7);
        // caps: cluster 0 grows the task while p < 10, cluster 1 while its translation < 8: under
        // at-least-as-fast up to p = 17 (ceil(0.4 p) < 8), closest up to p = 18 (T_ref = 0.556 s:
        // 7 processors 0.571 s against 8, 0.5 s)
        assert_eq!(p.caps(&g, AT_LEAST), vec![18]);
        assert_eq!(p.caps(&g, Translation::Closest), vec![19]);
        // an exact tie (T_ref(2) = 3 s; 1 processor 4 s, 2 processors 2 s): the fewer processors
        let tie = MultiCluster::new(vec![4, 4], vec![1e9, 1.5e9]).unwrap();
        let six = Ptg::new(vec![6e9], vec![0.0], &[0, 0], &[]).unwrap();
        assert_eq!(tie.translate(&six, 0, 2, 1, Translation::Closest), 1);
        assert_eq!(tie.translate(&six, 0, 2, 1, AT_LEAST), 2);
        assert_eq!(Translation::from_name("closest").unwrap(), Translation::Closest);
        assert_eq!(Translation::AtLeastAsFast.name(), "at-least-as-fast");
        assert!(Translation::from_name("nearest").is_err());
    }

    proptest! {
        #[test]
        fn translation_is_the_smallest_fast_enough(g in arb_ptg(), p_ref in 1u32..60, r in 1.0f64..6.0) {
            let p = MultiCluster::new(vec![8, 8], vec![1.0, r]).unwrap();
            for v in 0..g.len() {
                let q = p.translate(&g, v, p_ref, 1, AT_LEAST);
                prop_assert!(q >= 1 && q <= p_ref);
                prop_assert!(p.time(&g, v, q, 1) <= p.ref_time(&g, v, p_ref));
                if q > 1 {
                    prop_assert!(p.time(&g, v, q - 1, 1) > p.ref_time(&g, v, p_ref));
                }
                // a grown allocation's translation grows by at most one
                prop_assert!(p.translate(&g, v, p_ref + 1, 1, AT_LEAST) <= q + 1);
            }
        }

        #[test]
        fn closest_translation_is_the_least_distance(
            g in arb_ptg(), p_ref in 1u32..60, r in 1.0f64..6.0, size in 1u32..40
        ) {
            let p = MultiCluster::new(vec![8, size], vec![1.0, r]).unwrap();
            for v in 0..g.len() {
                let q = p.translate(&g, v, p_ref, 1, Translation::Closest);
                let target = p.ref_time(&g, v, p_ref);
                let dist = |q: u32| (p.time(&g, v, q, 1) - target).abs();
                // a scan of 1..=min(p_ref, size): the first of least distance
                let top = p_ref.min(size);
                let best = (1..=top).fold(1, |b, x| if dist(x) < dist(b) { x } else { b });
                prop_assert_eq!(q, best);
                // never more than the cluster, and the translations rise with p_ref
                prop_assert!(q <= size);
                prop_assert!(p.translate(&g, v, p_ref + 1, 1, Translation::Closest) >= q);
            }
        }
    }
}
