//! QLSE (Baraglia, Ferrini, Tonellotto, Ricci & Yahyapour, "QoS-constrained
//! List Scheduling Heuristics for Parallel Applications on Grids", §4) and the
//! greedy best-fit baseline of §5.

use std::collections::BTreeMap;

use super::alloc::{fits, Allocation, Bandwidth, ExactSum, HostChoice};
use super::cluster::{clusters, kept_links, lan_priorities, Quartiles, STEP_QUANTILES};
use super::model::{LanGrid, Tig};
use super::order::{task_order, Weights};
use crate::error::Result;

/// What a mapping algorithm found.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The host of every task, or `None` when no feasible mapping was found
    /// (never a partial mapping).
    pub hosts: Option<Vec<usize>>,
    /// QLSE: the tentative mapping that succeeded (an index of
    /// [`STEP_QUANTILES`]); `None` for the baseline or a failure.
    pub step: Option<usize>,
    /// QLSE: the LANs of the cluster the TIG was mapped on (empty otherwise).
    pub cluster: Vec<usize>,
    /// Tentative mappings tried (one per cluster attempted; 1 for the baseline).
    pub attempts: usize,
}

/// QLSE's parameters: the weights of eq. (1) and eq. (2), the bandwidth model,
/// and two readings of the paper (issue 33): the quartiles' source and the host rule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QlseParams {
    /// α_T and β_T of eq. (1).
    pub tasks: Weights,
    /// α_L and β_L of eq. (2).
    pub lans: Weights,
    /// How communications use bandwidth.
    pub bandwidth: Bandwidth,
    /// Whose quartiles cut the tentative mappings (§4.3).
    pub quartiles: Quartiles,
    /// The host of a LAN a task goes to (§4.2).
    pub host: HostChoice,
}

impl Default for QlseParams {
    /// The paper's values: α_T = α_L = 1, β_T = β_L = 0.25; shared bandwidth (§4.4);
    /// the links' quartiles; the host with the most power left.
    fn default() -> Self {
        QlseParams {
            tasks: Weights::PAPER,
            lans: Weights::PAPER,
            bandwidth: Bandwidth::Shared,
            quartiles: Quartiles::Links,
            host: HostChoice::MostPower,
        }
    }
}

/// How the greedy baseline of §5 is read (issue 33).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GreedyReading {
    /// Best fit on the hosts, every placement under the three allocation
    /// conditions of §4.4 (as QLSE's): [`HostChoice::BestFit`], one pass.
    /// The default until issue 33.
    Checked,
    /// "Best fit" read as a fit of the MCRs alone: each task, in queue order,
    /// on the first LAN (by decreasing aggregate power) with a host that still
    /// has its MCR, on the host with the most power left
    /// ([`HostChoice::MostPower`], "most powerful host first"); the
    /// communications are not looked at while placing, and the complete
    /// mapping is then checked ([`mapping_is_valid`]); an invalid one is a
    /// failure. §5: it "selects first the LANs with a greater aggregate
    /// computational power, thereafter it exploits for the valid solutions a
    /// smaller number of LANs". The default: the reading under which §5's
    /// findings on greedy hold (`clustersched.grid.qlse`'s docstring).
    #[default]
    ValidatedAfter,
}

impl GreedyReading {
    /// The reading by its name: `"checked"` or `"validated-after"`.
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] for any other name.
    pub fn from_name(name: &str) -> Result<Self> {
        match name {
            "checked" => Ok(GreedyReading::Checked),
            "validated-after" => Ok(GreedyReading::ValidatedAfter),
            _ => Err(crate::Error::InvalidArgument(format!(
                "reading == '{name}', must be 'checked' or 'validated-after'"
            ))),
        }
    }
}

/// Maps `tig` onto `grid` with QLSE (§4).
///
/// The tasks are ordered once ([`task_order`]). Then five tentative mappings
/// are tried in turn (§4.3, [`kept_links`]); in each, the LAN clusters left
/// by the kept links are tried by decreasing priority ([`clusters`]), each
/// with fresh resources. Inside a cluster the LANs are ordered by decreasing
/// eq. (2) priority over the kept links (ties: lowest index), and every task,
/// in order, goes to the first LAN where the three allocation conditions of
/// §4.4 hold, on the host `params.host` picks (by default the one with the
/// most power left, [`HostChoice::MostPower`]); the
/// only links a cluster may use are its kept links. The first cluster where
/// every task finds a LAN gives the mapping; if a task finds none, the
/// cluster fails and the next one is tried.
///
/// Choices the paper leaves open, made here: a task takes the first LAN of
/// the priority order that accepts it (list scheduling; the paper names the
/// orders and the conditions, not a look-ahead); a cluster whose LANs and
/// kept links were already tried in an earlier step is not tried again (the
/// attempt is deterministic, so it would fail again).
///
/// # Errors
/// [`crate::Error::InvalidArgument`] for weights out of range or a TIG
/// that is not connected (see [`task_order`]).
pub fn qlse(tig: &Tig, grid: &LanGrid, params: QlseParams) -> Result<Outcome> {
    params.lans.check("L")?;
    let order = task_order(tig, params.tasks)?;
    let mut tried: BTreeMap<Vec<usize>, usize> = BTreeMap::new();
    let mut attempts = 0;
    let mut alloc = Allocation::new(tig, grid, params.bandwidth);
    let distribution = params.quartiles.distribution(tig, grid);
    for step in 0..STEP_QUANTILES.len() {
        let kept = kept_links(grid, step, &distribution);
        let priority = lan_priorities(grid, &kept, params.lans);
        for cluster in clusters(grid, &kept) {
            if tried.get(&cluster.lans) == Some(&cluster.links) {
                continue;
            }
            tried.insert(cluster.lans.clone(), cluster.links);
            attempts += 1;
            let mut lans = cluster.lans.clone();
            lans.sort_by(|&a, &b| priority[b].total_cmp(&priority[a]).then(a.cmp(&b)));
            alloc.restart(&kept);
            let placed_all = order
                .order
                .iter()
                .all(|&t| lans.iter().any(|&l| alloc.try_place(t, l, params.host)));
            if placed_all {
                return Ok(Outcome {
                    hosts: Some(alloc.hosts()),
                    step: Some(step),
                    cluster: cluster.lans,
                    attempts,
                });
            }
        }
    }
    Ok(Outcome {
        hosts: None,
        step: None,
        cluster: Vec::new(),
        attempts,
    })
}

/// The greedy best-fit baseline of §5, under the reading `reading`.
///
/// The paper describes it in two sentences: it "performs a best fit
/// heuristics to map the queued tasks on the LANs' hosts" and "selects first
/// the LANs with a greater aggregate computational power". So: the tasks in
/// queue order (their index in the TIG), the LANs in decreasing order of the
/// nominal power of their hosts (ties: lowest index), every link of the grid
/// usable. [`GreedyReading::Checked`]: each task goes to the first LAN where
/// the allocation conditions of §4.4 hold (the same conditions as QLSE), on
/// the host that fits it most tightly ([`HostChoice::BestFit`]).
/// [`GreedyReading::ValidatedAfter`]: each task goes to the first LAN with a
/// host that has its MCR left, on the host with the most power left, and the
/// whole mapping is checked at the end ([`mapping_is_valid`]). Either way one
/// pass, no retry, and a mapping it returns is feasible.
/// `bandwidth` is the bandwidth model, as for QLSE.
pub fn greedy_best_fit(tig: &Tig, grid: &LanGrid, bandwidth: Bandwidth, reading: GreedyReading) -> Outcome {
    let power = grid.lan_power();
    let mut lans: Vec<usize> = (0..grid.num_lans()).collect();
    lans.sort_by(|&a, &b| power[b].total_cmp(&power[a]).then(a.cmp(&b)));
    let mut alloc = Allocation::new(tig, grid, bandwidth);
    alloc.restart(&vec![true; grid.num_links()]);
    let placed_all = match reading {
        GreedyReading::Checked => {
            (0..tig.len()).all(|t| lans.iter().any(|&l| alloc.try_place(t, l, HostChoice::BestFit)))
        }
        GreedyReading::ValidatedAfter => {
            (0..tig.len()).all(|t| {
                lans.iter()
                    .any(|&l| alloc.try_place_power_only(t, l, HostChoice::MostPower))
            }) && mapping_is_valid(tig, grid, &alloc.hosts(), bandwidth)
        }
    };
    Outcome {
        hosts: placed_all.then(|| alloc.hosts()),
        step: None,
        cluster: Vec::new(),
        attempts: 1,
    }
}

/// Whether `hosts` (task -> host) meets every MCR and MBR under `model`, communicating tasks
/// only on one LAN or on linked LANs: the validator's rules (`clustersched.grid.validate`),
/// restated independently of the allocation code (but with the same rule, [`fits`] on exact
/// sums), for tests and benches to check results.
/// A mapping of the wrong length or naming a host that does not exist is not valid.
pub fn mapping_is_valid(tig: &Tig, grid: &LanGrid, hosts: &[usize], model: Bandwidth) -> bool {
    if hosts.len() != tig.len() || hosts.iter().any(|&h| h >= grid.num_hosts()) {
        return false;
    }
    let lan_of = grid.host_lans();
    let mut load = vec![ExactSum::new(); grid.num_hosts()];
    for (t, &h) in hosts.iter().enumerate() {
        load[h].add(tig.mcr()[t]);
    }
    let mut lan_use = vec![ExactSum::new(); grid.num_lans()];
    let mut link_use = vec![ExactSum::new(); grid.num_links()];
    let mut lan_max = vec![0.0f64; grid.num_lans()];
    let mut link_max = vec![0.0f64; grid.num_links()];
    for t in 0..tig.len() {
        for (j, mbr) in tig.neighbors(t).filter(|&(j, _)| j > t) {
            let (a, b) = (lan_of[hosts[t]], lan_of[hosts[j]]);
            if a == b {
                lan_use[a].add(mbr);
                lan_max[a] = lan_max[a].max(mbr);
            } else {
                match grid.link_between(a, b) {
                    Some(k) => {
                        link_use[k].add(mbr);
                        link_max[k] = link_max[k].max(mbr);
                    }
                    None => return false,
                }
            }
        }
    }
    let sums = |used: &[ExactSum]| used.iter().map(ExactSum::value).collect::<Vec<_>>();
    let (lan_used, link_used) = match model {
        Bandwidth::Shared => (sums(&lan_use), sums(&link_use)),
        Bandwidth::Dedicated => (lan_max, link_max),
    };
    let within = |used: &[f64], cap: &[f64]| used.iter().zip(cap).all(|(&u, &c)| fits(u, c));
    within(&sums(&load), grid.host_power())
        && within(&lan_used, grid.lan_bandwidth())
        && within(&link_used, grid.link_bandwidth())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A path of `n` tasks of MCR 100 and MBR 10.
    fn path(n: usize) -> Tig {
        let u: Vec<usize> = (0..n - 1).collect();
        let v: Vec<usize> = (1..n).collect();
        Tig::new(vec![100.0; n], &u, &v, &vec![10.0; n - 1]).unwrap()
    }

    #[test]
    fn one_lan_first_when_it_can_host_everything() {
        // LAN 0: 2 hosts of 200 (room for 4 tasks); LAN 1: 1 host of 1000 but 5 Mb/s
        let grid = LanGrid::new(
            vec![0, 2, 3],
            vec![200.0, 200.0, 1000.0],
            vec![30.0, 5.0],
            &[0],
            &[1],
            vec![100.0],
        )
        .unwrap();
        let out = qlse(&path(4), &grid, QlseParams::default()).unwrap();
        assert_eq!(out.step, Some(0));
        assert_eq!(out.cluster, vec![0]);
        let hosts = out.hosts.unwrap();
        assert!(hosts.iter().all(|&h| h < 2));
        // LAN 1 is tried first (priority 1005 > 430) and fails on bandwidth
        assert_eq!(out.attempts, 2);
    }

    #[test]
    fn spreads_over_linked_lans_when_needed() {
        // two LANs of one host of 250 each (two tasks each), link of 20
        let grid = LanGrid::new(
            vec![0, 1, 2],
            vec![250.0, 250.0],
            vec![10.0, 10.0],
            &[0],
            &[1],
            vec![20.0],
        )
        .unwrap();
        let out = qlse(&path(4), &grid, QlseParams::default()).unwrap();
        assert_eq!(out.step, Some(1)); // one link: it is its own upper quartile
                                       // order 1, 2, 0, 3: 1 and 2 on LAN 0, 0 and 3 on LAN 1, each using 10 of the link
        assert_eq!(out.hosts, Some(vec![1, 0, 0, 1]));
        assert_eq!(out.attempts, 3);
        let g = greedy_best_fit(&path(4), &grid, Bandwidth::Shared, GreedyReading::Checked);
        assert!(g.hosts.is_some());
    }

    #[test]
    fn no_feasible_mapping_is_reported_as_such() {
        let grid = LanGrid::new(vec![0, 1], vec![150.0], vec![100.0], &[], &[], vec![]).unwrap();
        let out = qlse(&path(2), &grid, QlseParams::default()).unwrap();
        assert_eq!(out.hosts, None);
        assert_eq!(out.attempts, 1);
        assert_eq!(
            greedy_best_fit(&path(2), &grid, Bandwidth::Shared, GreedyReading::Checked).hosts,
            None
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]
        #[test]
        fn mappings_are_valid_or_absent(
            n in 1usize..10,
            parents in proptest::collection::vec(0usize..1000, 9),
            extra in proptest::collection::vec((0usize..10, 0usize..10), 0..5),
            mcr in proptest::collection::vec(1u32..6, 10),
            mbr in proptest::collection::vec(0u32..4, 14),
            hosts in proptest::collection::vec(proptest::collection::vec(0u32..8, 1..4), 1..6),
            lan_bw in proptest::collection::vec(0u32..6, 6),
            links in proptest::collection::vec((0usize..6, 0usize..6, 0u32..6), 0..10),
            dedicated in proptest::bool::ANY,
            readings in (0usize..2, 0usize..3, proptest::bool::ANY),
        ) {
            let mut edges: Vec<(usize, usize)> = (1..n).map(|k| (parents[k - 1] % k, k)).collect();
            for (a, b) in extra {
                let (a, b) = (a % n, b % n);
                if a != b && !edges.iter().any(|&(x, y)| (x.min(y), x.max(y)) == (a.min(b), a.max(b))) {
                    edges.push((a, b));
                }
            }
            let u: Vec<usize> = edges.iter().map(|e| e.0).collect();
            let v: Vec<usize> = edges.iter().map(|e| e.1).collect();
            let w: Vec<f64> = (0..edges.len()).map(|k| 10.0 * f64::from(mbr[k])).collect();
            let tig = Tig::new((0..n).map(|t| 50.0 * f64::from(mcr[t])).collect(), &u, &v, &w).unwrap();
            let lans = hosts.len();
            let mut offsets = vec![0];
            let mut power = Vec::new();
            for h in &hosts {
                power.extend(h.iter().map(|&p| 100.0 * f64::from(p)));
                offsets.push(power.len());
            }
            let mut pairs: Vec<(usize, usize, f64)> = Vec::new();
            for (a, b, bw) in links {
                let (a, b) = (a % lans, b % lans);
                if a != b && !pairs.iter().any(|&(x, y, _)| (x, y) == (a.min(b), a.max(b))) {
                    pairs.push((a.min(b), a.max(b), 10.0 * f64::from(bw)));
                }
            }
            let grid = LanGrid::new(
                offsets,
                power,
                lan_bw[..lans].iter().map(|&b| 10.0 * f64::from(b)).collect(),
                &pairs.iter().map(|p| p.0).collect::<Vec<_>>(),
                &pairs.iter().map(|p| p.1).collect::<Vec<_>>(),
                pairs.iter().map(|p| p.2).collect(),
            )
            .unwrap();
            let model = if dedicated { Bandwidth::Dedicated } else { Bandwidth::Shared };
            let params = QlseParams {
                bandwidth: model,
                quartiles: [Quartiles::Links, Quartiles::Mbrs][readings.0],
                host: [HostChoice::MostPower, HostChoice::FirstFit, HostChoice::BestFit][readings.1],
                ..QlseParams::default()
            };
            let out = qlse(&tig, &grid, params).unwrap();
            if let Some(hosts) = &out.hosts {
                proptest::prop_assert!(mapping_is_valid(&tig, &grid, hosts, model));
                let lan_of = grid.host_lans();
                proptest::prop_assert!(hosts.iter().all(|&h| out.cluster.contains(&lan_of[h])));
            }
            proptest::prop_assert_eq!(&out, &qlse(&tig, &grid, params).unwrap());
            let reading = if readings.2 { GreedyReading::ValidatedAfter } else { GreedyReading::Checked };
            let g = greedy_best_fit(&tig, &grid, model, reading);
            if let Some(hosts) = &g.hosts {
                proptest::prop_assert!(mapping_is_valid(&tig, &grid, hosts, model));
            }
        }
    }
}
