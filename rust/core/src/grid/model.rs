//! The two inputs of a launch-time mapping (Baraglia et al., QLSE, §3): a task
//! interaction graph and a grid of LANs, both in CSR form.

use crate::error::{Error, Item, Result, Rule};

/// Marks "no task / no LAN / no link" in index vectors.
pub(crate) const NONE: usize = usize::MAX;

// Size limits of the grid model. QLSE tries each task on the LANs of a
// cluster in turn, up to five tentative mappings of up to one attempt per
// cluster, so its work grows with tasks x LANs (and the TIG's edges x LANs);
// these bounds keep the largest instance within seconds, and are two orders
// of magnitude beyond the paper's (Tables 1-2: 64 tasks, 32 LANs of 48 hosts).

/// Most tasks a TIG may have.
pub const MAX_TASKS: usize = 10_000;
/// Most edges (communications) a TIG may have.
pub const MAX_EDGES: usize = 100_000;
/// Most LANs a grid may have.
pub const MAX_LANS: usize = 1_000;
/// Most hosts a grid may have, all LANs together.
pub const MAX_HOSTS: usize = 100_000;
/// Most links a grid may have: every pair of [`MAX_LANS`] LANs.
pub const MAX_LINKS: usize = MAX_LANS * (MAX_LANS - 1) / 2;
/// Largest MCR, MBR, power or bandwidth (Mflop/s, Mb/s): sums of up to
/// [`MAX_EDGES`] of them stay finite, and the exact sums of the capacity rule never overflow.
pub const MAX_VALUE: f64 = 1e300;

/// A value of the model: finite, in `[0, MAX_VALUE]` (and `> 0` when `positive`).
fn in_range(x: f64, positive: bool) -> bool {
    x.is_finite() && x <= MAX_VALUE && (x > 0.0 || (!positive && x == 0.0))
}

/// A task interaction graph (TIG, §3): undirected, node weight MCR (minimum
/// computational requirement, Mflop/s), edge weight MBR (minimum bandwidth
/// requirement, Mb/s).
///
/// Neighbour lists are sorted by task index; every edge appears in the list
/// of both its ends with the same MBR.
#[derive(Debug, Clone, PartialEq)]
pub struct Tig {
    mcr: Vec<f64>,
    adj_offsets: Vec<usize>,
    adj: Vec<usize>,
    adj_mbr: Vec<f64>,
    edges: usize,
}

impl Tig {
    /// A TIG from its MCRs and its edges `(u[k], v[k])` of MBR `mbr[k]`.
    ///
    /// # Errors
    /// [`Error::Invalid`] naming the task for a bad MCR, [`Error::InvalidArgument`]
    /// naming the edge when the graph has
    /// no task or more than [`MAX_TASKS`], more than [`MAX_EDGES`] edges, an
    /// MCR is not finite and in `(0, MAX_VALUE]`, the edge arrays differ in
    /// length, an edge names a task that does not exist, joins a task to
    /// itself or repeats another edge, or an MBR is not finite and in `[0, MAX_VALUE]`.
    pub fn new(mcr: Vec<f64>, u: &[usize], v: &[usize], mbr: &[f64]) -> Result<Tig> {
        let n = mcr.len();
        if n == 0 {
            return Err(Error::InvalidArgument("the TIG has no task".into()));
        }
        if n > MAX_TASKS {
            return Err(Error::InvalidArgument(format!(
                "the TIG has {n} tasks, more than MAX_TASKS == {MAX_TASKS}"
            )));
        }
        if u.len() > MAX_EDGES {
            return Err(Error::InvalidArgument(format!(
                "the TIG has {} edges, more than MAX_EDGES == {MAX_EDGES}",
                u.len()
            )));
        }
        if let Some(t) = mcr.iter().position(|&m| !in_range(m, true)) {
            let task = Item::Task { ptg: None, task: t };
            return Err(
                Error::invalid(task, "mcr", mcr[t], Rule::AboveUpTo(0.0.into(), MAX_VALUE.into())).noted("Mflop/s"),
            );
        }
        if u.len() != v.len() || u.len() != mbr.len() {
            return Err(Error::InvalidArgument(format!(
                "edge arrays differ in length: u {}, v {}, mbr {}",
                u.len(),
                v.len(),
                mbr.len()
            )));
        }
        let mut half: Vec<(usize, usize, f64)> = Vec::with_capacity(2 * u.len());
        for k in 0..u.len() {
            let (a, b, w) = (u[k], v[k], mbr[k]);
            if a >= n || b >= n {
                return Err(Error::InvalidArgument(format!(
                    "edge {k} ({a}, {b}): the TIG has tasks 0 to {}",
                    n - 1
                )));
            }
            if a == b {
                return Err(Error::InvalidArgument(format!(
                    "edge {k} ({a}, {b}): a task cannot communicate with itself"
                )));
            }
            if !in_range(w, false) {
                return Err(Error::InvalidArgument(format!(
                    "edge {k} ({a}, {b}): MBR == {w}, must be finite, >= 0 and <= 1e300 (Mb/s)"
                )));
            }
            half.push((a, b, w));
            half.push((b, a, w));
        }
        half.sort_by_key(|h| (h.0, h.1));
        if let Some(w) = half.windows(2).find(|w| w[0].0 == w[1].0 && w[0].1 == w[1].1) {
            let (a, b) = (w[0].0.min(w[0].1), w[0].0.max(w[0].1));
            return Err(Error::InvalidArgument(format!("edge ({a}, {b}) is given twice")));
        }
        let mut adj_offsets = vec![0usize; n + 1];
        for h in &half {
            adj_offsets[h.0 + 1] += 1;
        }
        for t in 0..n {
            adj_offsets[t + 1] += adj_offsets[t];
        }
        Ok(Tig {
            mcr,
            adj_offsets,
            adj: half.iter().map(|h| h.1).collect(),
            adj_mbr: half.iter().map(|h| h.2).collect(),
            edges: u.len(),
        })
    }

    /// Number of tasks.
    pub fn len(&self) -> usize {
        self.mcr.len()
    }

    /// Always false: a TIG has at least one task.
    pub fn is_empty(&self) -> bool {
        self.mcr.is_empty()
    }

    /// Number of (undirected) edges.
    pub fn num_edges(&self) -> usize {
        self.edges
    }

    /// MCR of every task (Mflop/s).
    pub fn mcr(&self) -> &[f64] {
        &self.mcr
    }

    /// MBR of every edge (Mb/s), edges listed by their lower task, then their higher one.
    pub fn mbrs(&self) -> Vec<f64> {
        (0..self.len())
            .flat_map(|t| self.neighbors(t).filter(move |&(j, _)| j > t).map(|(_, w)| w))
            .collect()
    }

    /// Neighbours of `task` with the MBR of the edge, by increasing index.
    pub fn neighbors(&self, task: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let range = self.adj_offsets[task]..self.adj_offsets[task + 1];
        self.adj[range.clone()]
            .iter()
            .copied()
            .zip(self.adj_mbr[range].iter().copied())
    }

    /// The `k`-th neighbour of `task` (by increasing index), `k < degree(task)`.
    pub fn neighbor(&self, task: usize, k: usize) -> usize {
        self.adj[self.adj_offsets[task] + k]
    }

    /// Number of neighbours of `task`.
    pub fn degree(&self, task: usize) -> usize {
        self.adj_offsets[task + 1] - self.adj_offsets[task]
    }

    /// The first task (by index) not reachable from task 0, if any.
    pub fn unreachable_task(&self) -> Option<usize> {
        let mut seen = vec![false; self.len()];
        let mut stack = vec![0usize];
        seen[0] = true;
        while let Some(t) = stack.pop() {
            for (j, _) in self.neighbors(t) {
                if !seen[j] {
                    seen[j] = true;
                    stack.push(j);
                }
            }
        }
        seen.iter().position(|&s| !s)
    }
}

/// A grid of LANs (§3): every host belongs to one LAN, which is a shared bus
/// of a nominal bandwidth (Mb/s); some pairs of LANs are joined by a link of
/// a known bandwidth (Mb/s), the others cannot communicate at all.
///
/// Hosts are numbered LAN by LAN: the hosts of LAN `l` are
/// `host_offsets[l]..host_offsets[l + 1]`. Links are numbered in the order
/// given; each LAN lists its links by increasing neighbour LAN.
#[derive(Debug, Clone, PartialEq)]
pub struct LanGrid {
    host_offsets: Vec<usize>,
    host_power: Vec<f64>,
    lan_bandwidth: Vec<f64>,
    link_ends: Vec<(usize, usize)>,
    link_bandwidth: Vec<f64>,
    lan_link_offsets: Vec<usize>,
    /// (neighbour LAN, link id), sorted by neighbour within each LAN.
    lan_links: Vec<(usize, usize)>,
    lan_power: Vec<f64>,
}

impl LanGrid {
    /// A grid from its hosts (CSR by LAN), LAN bandwidths and links
    /// `(a[k], b[k])` of bandwidth `link_bandwidth[k]`.
    ///
    /// # Errors
    /// [`Error::Invalid`] naming the LAN for a LAN without host or a bad LAN
    /// bandwidth; [`Error::InvalidArgument`] naming the host or link when there is
    /// no LAN, more than [`MAX_LANS`] LANs, [`MAX_HOSTS`] hosts or [`MAX_LINKS`]
    /// links, `host_offsets` is malformed, a power or a
    /// bandwidth is not finite and in `[0, MAX_VALUE]`, a link names a LAN that does not
    /// exist, joins a LAN to itself or repeats another link.
    pub fn new(
        host_offsets: Vec<usize>,
        host_power: Vec<f64>,
        lan_bandwidth: Vec<f64>,
        a: &[usize],
        b: &[usize],
        link_bandwidth: Vec<f64>,
    ) -> Result<LanGrid> {
        let lans = lan_bandwidth.len();
        if lans == 0 {
            return Err(Error::InvalidArgument("the grid has no LAN".into()));
        }
        for (what, count, max) in [
            ("LANs", lans, MAX_LANS),
            ("hosts", host_power.len(), MAX_HOSTS),
            ("links", a.len(), MAX_LINKS),
        ] {
            if count > max {
                let name = format!("MAX_{}", what.to_uppercase());
                return Err(Error::InvalidArgument(format!(
                    "the grid has {count} {what}, more than {name} == {max}"
                )));
            }
        }
        if host_offsets.len() != lans + 1 || host_offsets[0] != 0 || host_offsets[lans] != host_power.len() {
            return Err(Error::InvalidArgument(format!(
                "host_offsets must have {} entries from 0 to the {} hosts",
                lans + 1,
                host_power.len()
            )));
        }
        if let Some(l) = (0..lans).find(|&l| host_offsets[l + 1] <= host_offsets[l]) {
            return Err(Error::invalid_item(Item::Lan(l), "has no host"));
        }
        if let Some(h) = host_power.iter().position(|&p| !in_range(p, false)) {
            return Err(Error::InvalidArgument(format!(
                "host {h}: power == {}, must be finite, >= 0 and <= 1e300 (Mflop/s)",
                host_power[h]
            )));
        }
        if let Some(l) = lan_bandwidth.iter().position(|&w| !in_range(w, false)) {
            return Err(Error::invalid(
                Item::Lan(l),
                "bandwidth",
                lan_bandwidth[l],
                Rule::AtLeastUpTo(0.0.into(), MAX_VALUE.into()),
            )
            .noted("Mb/s"));
        }
        if a.len() != b.len() || a.len() != link_bandwidth.len() {
            return Err(Error::InvalidArgument(format!(
                "link arrays differ in length: a {}, b {}, bandwidth {}",
                a.len(),
                b.len(),
                link_bandwidth.len()
            )));
        }
        let mut half: Vec<(usize, usize, usize)> = Vec::with_capacity(2 * a.len());
        for k in 0..a.len() {
            let (x, y, w) = (a[k], b[k], link_bandwidth[k]);
            if x >= lans || y >= lans {
                return Err(Error::InvalidArgument(format!(
                    "link {k} ({x}, {y}): the grid has LANs 0 to {}",
                    lans - 1
                )));
            }
            if x == y {
                return Err(Error::InvalidArgument(format!(
                    "link {k} ({x}, {y}): a LAN cannot be linked to itself"
                )));
            }
            if !in_range(w, false) {
                return Err(Error::InvalidArgument(format!(
                    "link {k} ({x}, {y}): bandwidth == {w}, must be finite, >= 0 and <= 1e300 (Mb/s)"
                )));
            }
            half.push((x, y, k));
            half.push((y, x, k));
        }
        half.sort_unstable();
        if let Some(w) = half.windows(2).find(|w| w[0].0 == w[1].0 && w[0].1 == w[1].1) {
            let (x, y) = (w[0].0.min(w[0].1), w[0].0.max(w[0].1));
            return Err(Error::InvalidArgument(format!("link ({x}, {y}) is given twice")));
        }
        let mut lan_link_offsets = vec![0usize; lans + 1];
        for h in &half {
            lan_link_offsets[h.0 + 1] += 1;
        }
        for l in 0..lans {
            lan_link_offsets[l + 1] += lan_link_offsets[l];
        }
        // Total power of a LAN: summed from 0.0 in host order (every implementation does the same).
        let lan_power = (0..lans)
            .map(|l| {
                host_power[host_offsets[l]..host_offsets[l + 1]]
                    .iter()
                    .fold(0.0, |s, &p| s + p)
            })
            .collect();
        Ok(LanGrid {
            host_offsets,
            host_power,
            lan_bandwidth,
            link_ends: a.iter().copied().zip(b.iter().copied()).collect(),
            link_bandwidth,
            lan_link_offsets,
            lan_links: half.iter().map(|h| (h.1, h.2)).collect(),
            lan_power,
        })
    }

    /// Number of LANs.
    pub fn num_lans(&self) -> usize {
        self.lan_bandwidth.len()
    }

    /// Number of hosts.
    pub fn num_hosts(&self) -> usize {
        self.host_power.len()
    }

    /// Number of LAN-to-LAN links.
    pub fn num_links(&self) -> usize {
        self.link_bandwidth.len()
    }

    /// The hosts of `lan` (global indices).
    pub fn hosts(&self, lan: usize) -> std::ops::Range<usize> {
        self.host_offsets[lan]..self.host_offsets[lan + 1]
    }

    /// Power of every host (Mflop/s).
    pub fn host_power(&self) -> &[f64] {
        &self.host_power
    }

    /// Bandwidth of every LAN (Mb/s).
    pub fn lan_bandwidth(&self) -> &[f64] {
        &self.lan_bandwidth
    }

    /// Bandwidth of every link (Mb/s).
    pub fn link_bandwidth(&self) -> &[f64] {
        &self.link_bandwidth
    }

    /// The two LANs of every link, as given.
    pub fn link_ends(&self) -> &[(usize, usize)] {
        &self.link_ends
    }

    /// Total power of every LAN: its hosts' powers summed from 0.0 in host order.
    pub fn lan_power(&self) -> &[f64] {
        &self.lan_power
    }

    /// `(neighbour LAN, link id)` of every link of `lan`, by increasing neighbour.
    pub fn links(&self, lan: usize) -> &[(usize, usize)] {
        &self.lan_links[self.lan_link_offsets[lan]..self.lan_link_offsets[lan + 1]]
    }

    /// The link joining LANs `a` and `b`, if any.
    pub fn link_between(&self, a: usize, b: usize) -> Option<usize> {
        let links = self.links(a);
        links.binary_search_by_key(&b, |&(n, _)| n).ok().map(|i| links[i].1)
    }

    /// The LAN of every host.
    pub fn host_lans(&self) -> Vec<usize> {
        let mut lan = vec![0usize; self.num_hosts()];
        for l in 0..self.num_lans() {
            for h in self.hosts(l) {
                lan[h] = l;
            }
        }
        lan
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tig_lists_each_edge_at_both_ends_sorted() {
        let tig = Tig::new(vec![1.0, 2.0, 3.0], &[2, 0], &[0, 1], &[5.0, 7.0]).unwrap();
        assert_eq!(tig.neighbors(0).collect::<Vec<_>>(), vec![(1, 7.0), (2, 5.0)]);
        assert_eq!(tig.neighbors(2).collect::<Vec<_>>(), vec![(0, 5.0)]);
        assert_eq!(tig.num_edges(), 2);
        assert_eq!(tig.unreachable_task(), None);
        let split = Tig::new(vec![1.0, 2.0, 3.0], &[0], &[1], &[5.0]).unwrap();
        assert_eq!(split.unreachable_task(), Some(2));
    }

    #[test]
    fn bad_tigs_name_the_task_or_edge() {
        let err = |r: Result<Tig>| match r {
            Err(Error::InvalidArgument(m)) => m,
            other => panic!("{other:?}"),
        };
        assert!(err(Tig::new(vec![], &[], &[], &[])).contains("no task"));
        let e = Tig::new(vec![1.0, -1.0], &[], &[], &[]).unwrap_err();
        assert_eq!(
            e,
            Error::invalid(
                Item::Task { ptg: None, task: 1 },
                "mcr",
                -1.0,
                Rule::AboveUpTo(0.0.into(), MAX_VALUE.into())
            )
            .noted("Mflop/s")
        );
        assert!(err(Tig::new(vec![1.0, 1.0], &[0], &[0], &[1.0])).contains("edge 0 (0, 0)"));
        assert!(err(Tig::new(vec![1.0, 1.0], &[0], &[1], &[-2.0])).contains("MBR == -2"));
        assert!(err(Tig::new(vec![1.0, 1.0], &[0, 1], &[1, 0], &[1.0, 1.0])).contains("(0, 1) is given twice"));
        assert!(err(Tig::new(vec![1.0, 1.0], &[0], &[5], &[1.0])).contains("edge 0 (0, 5)"));
    }

    #[test]
    fn grid_finds_links_both_ways() {
        let g = LanGrid::new(
            vec![0, 2, 3, 4],
            vec![1.0, 2.0, 3.0, 4.0],
            vec![10.0; 3],
            &[2],
            &[0],
            vec![5.0],
        )
        .unwrap();
        assert_eq!(g.link_between(0, 2), Some(0));
        assert_eq!(g.link_between(2, 0), Some(0));
        assert_eq!(g.link_between(0, 1), None);
        assert_eq!(g.lan_power(), &[3.0, 3.0, 4.0]);
        assert_eq!(g.host_lans(), vec![0, 0, 1, 2]);
    }

    #[test]
    fn bad_grids_are_refused() {
        assert!(LanGrid::new(vec![0], vec![], vec![], &[], &[], vec![]).is_err());
        assert!(LanGrid::new(vec![0, 0], vec![], vec![1.0], &[], &[], vec![]).is_err());
        assert!(LanGrid::new(vec![0, 1], vec![f64::NAN], vec![1.0], &[], &[], vec![]).is_err());
        assert!(LanGrid::new(vec![0, 1, 2], vec![1.0, 1.0], vec![1.0, 1.0], &[0], &[0], vec![1.0]).is_err());
        assert!(LanGrid::new(
            vec![0, 1, 2],
            vec![1.0, 1.0],
            vec![1.0, 1.0],
            &[0, 1],
            &[1, 0],
            vec![1.0, 1.0]
        )
        .is_err());
        assert!(LanGrid::new(vec![0, 1], vec![1e301], vec![1.0], &[], &[], vec![]).is_err());
        assert!(LanGrid::new(vec![0, 1], vec![1.0], vec![f64::INFINITY], &[], &[], vec![]).is_err());
    }

    #[test]
    fn sizes_beyond_the_limits_are_refused_before_any_work() {
        let msg = |e: Error| match e {
            Error::InvalidArgument(m) => m,
            other => panic!("{other:?}"),
        };
        let e = Tig::new(vec![1.0; MAX_TASKS + 1], &[], &[], &[]).unwrap_err();
        assert_eq!(msg(e), "the TIG has 10001 tasks, more than MAX_TASKS == 10000");
        assert!(Tig::new(vec![1.0; MAX_TASKS], &[], &[], &[]).is_ok());
        let many = vec![0usize; MAX_EDGES + 1];
        let e = Tig::new(vec![1.0; 2], &many, &many, &vec![1.0; MAX_EDGES + 1]).unwrap_err();
        assert!(msg(e).contains("more than MAX_EDGES == 100000"));
        let e = Tig::new(vec![1e300, 2e300], &[], &[], &[]).unwrap_err();
        assert!(matches!(e, Error::Invalid(ref i) if i.field == Some("mcr")));
        let lans = MAX_LANS + 1;
        let e = LanGrid::new((0..=lans).collect(), vec![1.0; lans], vec![1.0; lans], &[], &[], vec![]).unwrap_err();
        assert_eq!(msg(e), "the grid has 1001 LANs, more than MAX_LANS == 1000");
        let e = LanGrid::new(
            vec![0, MAX_HOSTS + 1],
            vec![1.0; MAX_HOSTS + 1],
            vec![1.0],
            &[],
            &[],
            vec![],
        )
        .unwrap_err();
        assert_eq!(msg(e), "the grid has 100001 hosts, more than MAX_HOSTS == 100000");
    }
}
