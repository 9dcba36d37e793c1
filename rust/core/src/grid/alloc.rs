//! The allocation conditions and resource updates of §4.4, shared by QLSE and
//! the best-fit baseline: one implementation of what a placement may use, and
//! the one rounding rule that decides whether requirements fit a capacity.

use super::model::{LanGrid, Tig, NONE};
use crate::error::{Error, Result};

/// Relative tolerance of every capacity check ([`fits`]): requirements whose
/// exact sum is at most `capacity * (1 + RTOL)` fit. The validator
/// (`clustersched.grid.validate.RTOL`) uses the same value and the same rule.
pub const RTOL: f64 = 1e-9;

/// The one rounding rule of the grid problem: requirements (MCRs on a host,
/// MBRs on a LAN or a link) whose sum, computed exactly and rounded once to
/// the nearest float (what Python's `math.fsum` returns), is `used`, fit a
/// capacity when `used <= capacity * (1 + RTOL)`.
///
/// An exact sum does not depend on the order the requirements were placed
/// in, so the algorithms (which add them one placement at a time) and the
/// validator (which adds them task by task) reach the same verdict on every
/// mapping, bit for bit. The tolerance lets `0.1 + 0.2` fit in `0.3`.
pub fn fits(used: f64, capacity: f64) -> bool {
    used <= capacity * (1.0 + RTOL)
}

/// An exact running sum of floats (Shewchuk's non-overlapping partials, the
/// algorithm of Python's `math.fsum`), read rounded once to the nearest float
/// (ties to even).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ExactSum {
    partials: Vec<f64>,
    /// The values added one at a time, rounding each time: within `k` ulps of
    /// the exact sum of `k` values of one sign, it settles most [`fits`] questions alone.
    approx: f64,
}

/// Relative margin within which a capacity question is settled by the exact sum
/// rather than the running one (whose error is below `MAX_EDGES` ulps, ~2e-11).
const MARGIN: f64 = 1e-6;

impl ExactSum {
    /// The empty sum (0.0).
    pub fn new() -> ExactSum {
        ExactSum::default()
    }

    /// Adds `x` (finite, and no partial sum may overflow: the model bounds every value).
    pub fn add(&mut self, x: f64) {
        add_partial(&mut self.partials, x);
        self.approx += x;
    }

    /// The sum, correctly rounded (equal to `math.fsum` of the same values).
    pub fn value(&self) -> f64 {
        round_partials(&self.partials)
    }

    /// Back to the empty sum (keeps the allocation).
    pub fn clear(&mut self) {
        self.partials.clear();
        self.approx = 0.0;
    }

    /// Whether the values added and `extra` (non-negative, like every value added)
    /// fit `capacity` ([`fits`] of their exact sum), without changing `self`
    /// (`scratch` is working space). The running sum answers when it is clearly
    /// below or above the limit; the exact sum decides near it, so the answer is
    /// always that of the exact sum.
    pub fn fits_with<I: Iterator<Item = f64> + Clone>(&self, extra: I, capacity: f64, scratch: &mut Vec<f64>) -> bool {
        let limit = capacity * (1.0 + RTOL);
        let approx = extra.clone().fold(self.approx, |s, x| s + x);
        if approx <= limit * (1.0 - MARGIN) {
            return true;
        }
        if approx > limit * (1.0 + MARGIN) {
            return false;
        }
        scratch.clear();
        scratch.extend_from_slice(&self.partials);
        for x in extra {
            add_partial(scratch, x);
        }
        round_partials(scratch) <= limit
    }
}

/// One step of `msum` (CPython's `math_fsum`): `x` added to the partials.
fn add_partial(partials: &mut Vec<f64>, mut x: f64) {
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
    if x != 0.0 {
        partials.push(x);
    }
}

/// The partials' sum rounded once, half to even across partials (CPython's `math_fsum`).
fn round_partials(p: &[f64]) -> f64 {
    let mut n = p.len();
    if n == 0 {
        return 0.0;
    }
    n -= 1;
    let mut hi = p[n];
    let mut lo = 0.0;
    while n > 0 {
        let x = hi;
        n -= 1;
        let y = p[n];
        hi = x + y;
        let yr = hi - x;
        lo = y - yr;
        if lo != 0.0 {
            break;
        }
    }
    if n > 0 && ((lo < 0.0 && p[n - 1] < 0.0) || (lo > 0.0 && p[n - 1] > 0.0)) {
        let y = lo * 2.0;
        let x = hi + y;
        let yr = x - hi;
        if y == yr {
            hi = x;
        }
    }
    hi
}

/// Which host of a LAN receives a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HostChoice {
    /// QLSE (§4.2): the hosts of a LAN in decreasing order of computational
    /// power, the first taken. The order is that of the *remaining* power
    /// (the paper's hosts report their instantaneous power), so the host is
    /// the one with the most power left (ties: lowest index), and condition 1
    /// holds when the task's MCR fits on that host ([`fits`]). The default.
    #[default]
    MostPower,
    /// §4.2 "in a LAN the hosts can be ordered in decreasing order of
    /// computational power" read as a static order: the hosts by decreasing
    /// *nominal* power (ties: lowest index), and the task on the first of them
    /// its MCR still fits on ([`fits`] of the exact sum). First fit decreasing.
    FirstFit,
    /// The baseline's best fit (§5): among the hosts the task's MCR fits on,
    /// the one with the least power left (ties: lowest index).
    BestFit,
}

impl HostChoice {
    /// The rule by its name: `"most-power-left"`, `"first-fit"` or `"best-fit"`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for any other name.
    pub fn from_name(name: &str) -> Result<Self> {
        match name {
            "most-power-left" => Ok(HostChoice::MostPower),
            "first-fit" => Ok(HostChoice::FirstFit),
            "best-fit" => Ok(HostChoice::BestFit),
            _ => Err(Error::InvalidArgument(format!(
                "host == '{name}', must be 'most-power-left', 'first-fit' or 'best-fit'"
            ))),
        }
    }
}

/// How communications use the bandwidth of the LANs and links they cross.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Bandwidth {
    /// §4.4 as written: a LAN or a link is a shared medium whose bandwidth is
    /// used up by every communication placed on it; the MBRs it carries add
    /// up to at most its bandwidth.
    #[default]
    Shared,
    /// Each communication on its own: its MBR is at most the bandwidth of the
    /// LAN or link it crosses, and nothing is used up. The allocation
    /// conditions check each MBR instead of the sum.
    Dedicated,
}

impl Bandwidth {
    /// The model by its name: `"shared"` or `"dedicated"`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for any other name.
    pub fn from_name(name: &str) -> Result<Self> {
        match name {
            "shared" => Ok(Bandwidth::Shared),
            "dedicated" => Ok(Bandwidth::Dedicated),
            _ => Err(Error::InvalidArgument(format!(
                "bandwidth == '{name}', must be 'shared' or 'dedicated'"
            ))),
        }
    }
}

/// Remaining resources of one tentative mapping and the placements made so far.
///
/// One allocation serves every tentative mapping of a run: [`Allocation::restart`]
/// gives back fresh resources by undoing only what the previous attempt touched,
/// so an attempt costs what it places, not the size of the grid.
pub(crate) struct Allocation<'a> {
    tig: &'a Tig,
    grid: &'a LanGrid,
    /// Links the mapping may use (the others are as absent).
    usable: Vec<bool>,
    bandwidth: Bandwidth,
    /// Power left on every host: its power minus the MCRs placed on it,
    /// subtracted one at a time. It orders the hosts (most power left, best
    /// fit); whether an MCR fits is decided on the exact sums (`host_load`).
    left: Vec<f64>,
    host_load: Vec<ExactSum>,
    /// MBRs inside each LAN, across each link (shared model only).
    lan_load: Vec<ExactSum>,
    link_load: Vec<ExactSum>,
    /// The host of each LAN with the most power left (ties: lowest index):
    /// QLSE's host, and the bound that skips a LAN without looking at its
    /// hosts when even that host's `left`, plus `lan_margin`, is below a
    /// task's MCR.
    lan_best: Vec<usize>,
    fresh_best: Vec<usize>,
    /// `2 RTOL` times the largest power of each LAN's hosts: it covers the
    /// tolerance and the rounding of `left` (at most `MAX_TASKS` subtractions
    /// of at most half an ulp of the host's power each, far below `RTOL`), so
    /// the bound never skips a host that fits.
    lan_margin: Vec<f64>,
    lan_of_task: Vec<usize>,
    host_of_task: Vec<usize>,
    placed: Vec<usize>,
    touched_hosts: Vec<usize>,
    touched_lans: Vec<usize>,
    touched_links: Vec<usize>,
    /// The placed neighbours of the task being checked on the LAN: (MBR) and
    /// on other LANs: (link, MBR), sorted by link.
    local: Vec<f64>,
    remote: Vec<(usize, f64)>,
    scratch: Vec<f64>,
    /// Every host, LAN by LAN, by decreasing nominal power (ties: lowest index):
    /// [`HostChoice::FirstFit`]'s order, sorted on its first use.
    by_power: Vec<usize>,
}

/// The host of `hosts` with the most power `left` (ties: lowest index).
fn most_left(hosts: std::ops::Range<usize>, left: &[f64]) -> usize {
    let mut best = hosts.start;
    for h in hosts {
        if left[h] > left[best] {
            best = h;
        }
    }
    best
}

impl<'a> Allocation<'a> {
    /// Fresh resources (the grid's nominal values), nothing placed, no link usable yet.
    pub(crate) fn new(tig: &'a Tig, grid: &'a LanGrid, bandwidth: Bandwidth) -> Allocation<'a> {
        let power = grid.host_power();
        let fresh_best: Vec<usize> = (0..grid.num_lans()).map(|l| most_left(grid.hosts(l), power)).collect();
        let lan_margin = fresh_best.iter().map(|&h| 2.0 * RTOL * power[h]).collect();
        Allocation {
            tig,
            grid,
            usable: vec![false; grid.num_links()],
            bandwidth,
            left: power.to_vec(),
            host_load: vec![ExactSum::new(); grid.num_hosts()],
            lan_load: vec![ExactSum::new(); grid.num_lans()],
            link_load: vec![ExactSum::new(); grid.num_links()],
            lan_best: fresh_best.clone(),
            fresh_best,
            lan_margin,
            lan_of_task: vec![NONE; tig.len()],
            host_of_task: vec![NONE; tig.len()],
            placed: Vec::new(),
            touched_hosts: Vec::new(),
            touched_lans: Vec::new(),
            touched_links: Vec::new(),
            local: Vec::new(),
            remote: Vec::new(),
            scratch: Vec::new(),
            by_power: Vec::new(),
        }
    }

    /// Fresh resources again, nothing placed, and `usable` the links the next attempt may use.
    pub(crate) fn restart(&mut self, usable: &[bool]) {
        let power = self.grid.host_power();
        for h in self.touched_hosts.drain(..) {
            self.left[h] = power[h];
            self.host_load[h].clear();
        }
        for l in self.touched_lans.drain(..) {
            self.lan_load[l].clear();
            self.lan_best[l] = self.fresh_best[l];
        }
        for k in self.touched_links.drain(..) {
            self.link_load[k].clear();
        }
        for t in self.placed.drain(..) {
            self.lan_of_task[t] = NONE;
            self.host_of_task[t] = NONE;
        }
        self.usable.copy_from_slice(usable);
    }

    /// Places `task` on `lan` if the three allocation conditions of §4.4 hold,
    /// and applies the resource updates; returns whether it did.
    ///
    /// 1. the task's MCR fits on a host of the LAN (the host is picked by
    ///    `choice`);
    /// 2. the MBRs of the task's edges to tasks already on this LAN fit in
    ///    the LAN's bandwidth, with those of the communications already inside it;
    /// 3. for every other LAN holding tasks it communicates with, the MBRs of
    ///    those edges fit in the usable link between the two LANs, with those
    ///    already across it; without such a link the LANs cannot communicate
    ///    (§3) and the condition fails, whatever the MBRs.
    ///
    /// "Fit" is [`fits`] on the exact sum. On success the host, the LAN and
    /// each link carry the new requirements. Under [`Bandwidth::Dedicated`]
    /// each MBR must fit on its own and nothing is used up.
    pub(crate) fn try_place(&mut self, task: usize, lan: usize, choice: HostChoice) -> bool {
        self.place(task, lan, choice, true)
    }

    /// Places `task` on `lan` if condition 1 of §4.4 alone holds (a host of
    /// the LAN, picked by `choice`, has its MCR left); the communications are
    /// neither checked nor accounted (the greedy baseline read as "best fit on
    /// the MCRs, the mapping validated after", [`crate::grid::GreedyReading`]).
    pub(crate) fn try_place_power_only(&mut self, task: usize, lan: usize, choice: HostChoice) -> bool {
        self.place(task, lan, choice, false)
    }

    fn place(&mut self, task: usize, lan: usize, choice: HostChoice, communications: bool) -> bool {
        let mcr = self.tig.mcr()[task];
        if self.left[self.lan_best[lan]] + self.lan_margin[lan] < mcr {
            return false; // no host of the LAN can take it (see `lan_best`)
        }
        if communications && !self.bandwidth_fits(task, lan) {
            return false;
        }
        let Some(host) = self.pick_host(lan, mcr, choice) else {
            return false;
        };
        self.left[host] -= mcr;
        self.host_load[host].add(mcr);
        self.touched_hosts.push(host);
        self.lan_best[lan] = most_left(self.grid.hosts(lan), &self.left);
        self.touched_lans.push(lan);
        if communications && self.bandwidth == Bandwidth::Shared {
            for &mbr in &self.local {
                self.lan_load[lan].add(mbr);
            }
            for &(link, mbr) in &self.remote {
                self.link_load[link].add(mbr);
                self.touched_links.push(link);
            }
        }
        self.lan_of_task[task] = lan;
        self.host_of_task[task] = host;
        self.placed.push(task);
        true
    }

    /// Conditions 2 and 3 for `task` on `lan`; leaves the task's communications in `local` and `remote`.
    fn bandwidth_fits(&mut self, task: usize, lan: usize) -> bool {
        self.local.clear();
        self.remote.clear();
        for (j, mbr) in self.tig.neighbors(task) {
            let other = self.lan_of_task[j];
            if other == NONE {
                continue;
            }
            if other == lan {
                self.local.push(mbr);
            } else {
                match self.grid.link_between(lan, other) {
                    Some(link) if self.usable[link] => self.remote.push((link, mbr)),
                    _ => return false,
                }
            }
        }
        let lan_bw = self.grid.lan_bandwidth()[lan];
        let link_bw = self.grid.link_bandwidth();
        match self.bandwidth {
            Bandwidth::Dedicated => {
                self.local.iter().all(|&mbr| fits(mbr, lan_bw))
                    && self.remote.iter().all(|&(k, mbr)| fits(mbr, link_bw[k]))
            }
            Bandwidth::Shared => {
                if !self.local.is_empty()
                    && !self.lan_load[lan].fits_with(self.local.iter().copied(), lan_bw, &mut self.scratch)
                {
                    return false;
                }
                self.remote.sort_by_key(|&(k, _)| k); // stable: equal links keep neighbour order
                let mut at = 0;
                while at < self.remote.len() {
                    let k = self.remote[at].0;
                    let end = at + self.remote[at..].iter().take_while(|e| e.0 == k).count();
                    let mbrs = self.remote[at..end].iter().map(|e| e.1);
                    if !self.link_load[k].fits_with(mbrs, link_bw[k], &mut self.scratch) {
                        return false;
                    }
                    at = end;
                }
                true
            }
        }
    }

    /// Whether `mcr` fits on `host` with the MCRs already there (quick bound first).
    fn host_fits(&mut self, host: usize, mcr: f64) -> bool {
        let power = self.grid.host_power()[host];
        if self.left[host] + 2.0 * RTOL * power < mcr {
            return false;
        }
        self.host_load[host].fits_with(std::iter::once(mcr), power, &mut self.scratch)
    }

    fn pick_host(&mut self, lan: usize, mcr: f64, choice: HostChoice) -> Option<usize> {
        match choice {
            HostChoice::MostPower => {
                let best = self.lan_best[lan];
                self.host_fits(best, mcr).then_some(best)
            }
            HostChoice::FirstFit => {
                if self.by_power.is_empty() {
                    let power = self.grid.host_power();
                    self.by_power = (0..self.grid.num_hosts()).collect();
                    for l in 0..self.grid.num_lans() {
                        self.by_power[self.grid.hosts(l)]
                            .sort_by(|&a, &b| power[b].total_cmp(&power[a]).then(a.cmp(&b)));
                    }
                }
                for k in self.grid.hosts(lan) {
                    let h = self.by_power[k];
                    if self.host_fits(h, mcr) {
                        return Some(h);
                    }
                }
                None
            }
            HostChoice::BestFit => {
                let mut best: Option<usize> = None;
                for h in self.grid.hosts(lan) {
                    if best.is_none_or(|b| self.left[h] < self.left[b]) && self.host_fits(h, mcr) {
                        best = Some(h);
                    }
                }
                best
            }
        }
    }

    /// The host of every task (all placed).
    pub(crate) fn hosts(&self) -> Vec<usize> {
        debug_assert!(self.host_of_task.iter().all(|&h| h != NONE));
        self.host_of_task.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_sums_round_like_fsum() {
        let sum = |xs: &[f64]| {
            let mut s = ExactSum::new();
            xs.iter().for_each(|&x| s.add(x));
            s.value()
        };
        // the values of Python's math.fsum
        assert_eq!(sum(&[]), 0.0);
        assert_eq!(sum(&[0.1, 0.2]), 0.30000000000000004);
        assert_eq!(sum(&[0.1; 10]), 1.0);
        assert_eq!(sum(&[1e-16, 1.0, 1e16]), 10000000000000002.0);
        assert_eq!(sum(&[1e100, 1.0, -1e100, 1e-100, 1e50, -1.0, -1e50]), 1e-100);
        assert_eq!(sum(&[0.1, 0.2, 0.3]), 0.6); // while 0.1 + 0.2 + 0.3 == 0.6000000000000001
                                                // order does not matter
        assert_eq!(sum(&[0.3, 0.1, 0.2]), sum(&[0.1, 0.2, 0.3]));
        assert!(fits(0.6000000000000001, 0.6) && !fits(0.6 * (1.0 + 10.0 * RTOL), 0.6));
    }

    proptest::proptest! {
        #[test]
        fn exact_sums_are_the_correctly_rounded_sum(parts in proptest::collection::vec((0u64..1 << 40, 0i32..80), 0..40)) {
            // x = m * 2^(e - 60): their exact sum is an integer count of 2^-60, held in an i128
            let xs: Vec<f64> = parts.iter().map(|&(m, e)| m as f64 * 2f64.powi(e - 60)).collect();
            let exact: i128 = parts.iter().map(|&(m, e)| i128::from(m) << e).sum();
            let mut s = ExactSum::new();
            xs.iter().for_each(|&x| s.add(x));
            // i128 -> f64 rounds to nearest, ties to even; scaling by a power of two is exact
            proptest::prop_assert_eq!(s.value(), exact as f64 * 2f64.powi(-60));
        }
    }

    proptest::proptest! {
        #[test]
        fn the_quick_answer_is_the_exact_sums(
            placed in proptest::collection::vec(0.0f64..1e3, 0..30),
            extra in proptest::collection::vec(0.0f64..1e3, 1..5),
            shift in -8i32..8,
            scale in proptest::sample::select(vec![1e-200, 1e-6, 1.0, 1e150]),
        ) {
            let mut sum = ExactSum::new();
            placed.iter().for_each(|&x| sum.add(x * scale));
            let mut all = sum.clone();
            extra.iter().for_each(|&x| all.add(x * scale));
            // a capacity a few RTOL / 4 around the exact sum, where the running sum cannot decide
            let capacity = all.value() / (1.0 + RTOL) * (1.0 + f64::from(shift) * RTOL / 4.0);
            let mut scratch = Vec::new();
            proptest::prop_assert_eq!(
                sum.fits_with(extra.iter().map(|&x| x * scale), capacity, &mut scratch),
                fits(all.value(), capacity)
            );
        }
    }

    #[test]
    fn conditions_and_updates() {
        // tasks 0-1 (MBR 5), 1-2 (MBR 7); LAN 0: hosts 10, 6; LAN 1: host 8; LAN 2: host 9; link 0-1 of 6
        let tig = Tig::new(vec![4.0, 4.0, 4.0], &[0, 1], &[1, 2], &[5.0, 7.0]).unwrap();
        let grid = LanGrid::new(
            vec![0, 2, 3, 4],
            vec![10.0, 6.0, 8.0, 9.0],
            vec![5.0, 100.0, 100.0],
            &[0],
            &[1],
            vec![6.0],
        )
        .unwrap();
        let mut a = Allocation::new(&tig, &grid, Bandwidth::Shared);
        a.restart(&[true]);
        assert!(a.try_place(0, 0, HostChoice::BestFit)); // host 1 (6 >= 4, tighter than 10)
        assert_eq!(a.host_of_task[0], 1);
        assert!(!a.try_place(1, 2, HostChoice::MostPower)); // LAN 2 has no link to LAN 0
        assert!(a.try_place(1, 0, HostChoice::MostPower)); // host 0 (10 left); 5 <= 5 of LAN 0
        assert_eq!(a.host_of_task[1], 0);
        assert_eq!(a.lan_load[0].value(), 5.0);
        assert!(!a.try_place(2, 0, HostChoice::MostPower)); // 5 + 7 > 5 on LAN 0
        assert!(!a.try_place(2, 1, HostChoice::MostPower)); // 7 > 6 on link 0-1
        assert_eq!(a.left, vec![6.0, 2.0, 8.0, 9.0]);
        // a restart undoes everything
        a.restart(&[false]);
        assert_eq!(a.left, grid.host_power());
        assert!(a.lan_load.iter().all(|s| s.value() == 0.0) && a.lan_of_task.iter().all(|&l| l == NONE));
        assert_eq!(a.lan_best, a.fresh_best);

        // dedicated: each MBR on its own, nothing used up
        let mut d = Allocation::new(&tig, &grid, Bandwidth::Dedicated);
        d.restart(&[true]);
        assert!(d.try_place(0, 0, HostChoice::MostPower));
        assert!(d.try_place(1, 0, HostChoice::MostPower)); // 5 <= 5
        assert_eq!(d.lan_load[0].value(), 0.0);
        assert!(!d.try_place(2, 0, HostChoice::MostPower)); // 7 > 5
        assert!(!d.try_place(2, 1, HostChoice::MostPower)); // 7 > 6
    }

    #[test]
    fn sums_within_the_tolerance_fit_whatever_the_order() {
        // MBRs 0.1 + 0.2 round above a LAN of 0.3: within RTOL, they fit, as the validator says
        let tig = Tig::new(vec![0.1, 0.2, 0.3], &[0, 1], &[1, 2], &[0.1, 0.2]).unwrap();
        let grid = LanGrid::new(vec![0, 1], vec![0.6], vec![0.3], &[], &[], vec![]).unwrap();
        let mut a = Allocation::new(&tig, &grid, Bandwidth::Shared);
        a.restart(&[]);
        for t in [2, 0, 1] {
            assert!(a.try_place(t, 0, HostChoice::MostPower), "task {t}");
        }
        let just_over = LanGrid::new(vec![0, 1], vec![0.6 * (1.0 - 10.0 * RTOL)], vec![0.3], &[], &[], vec![]).unwrap();
        let mut b = Allocation::new(&tig, &just_over, Bandwidth::Shared);
        b.restart(&[]);
        assert!(b.try_place(0, 0, HostChoice::BestFit) && b.try_place(1, 0, HostChoice::BestFit));
        assert!(!b.try_place(2, 0, HostChoice::BestFit));
        // power: 0.1 + 0.2 is 0.30000000000000004 exactly rounded, within RTOL of a host of 0.3
        let pair = Tig::new(vec![0.1, 0.2], &[], &[], &[]).unwrap();
        let small = LanGrid::new(vec![0, 1], vec![0.3], vec![0.0], &[], &[], vec![]).unwrap();
        let mut c = Allocation::new(&pair, &small, Bandwidth::Shared);
        c.restart(&[]);
        assert!(c.try_place(1, 0, HostChoice::MostPower) && c.try_place(0, 0, HostChoice::MostPower));
    }
}
