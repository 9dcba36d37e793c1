//! The allocation conditions and resource updates of §4.4, shared by QLSE and
//! the best-fit baseline: one implementation of what a placement may use.

use super::model::{LanGrid, Tig, NONE};
use crate::error::{Error, Result};

/// Which host of a LAN receives a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostChoice {
    /// QLSE (§4.2): the hosts of a LAN in decreasing order of computational
    /// power, the first taken. The order is that of the *remaining* power
    /// (the paper's hosts report their instantaneous power), so the host is
    /// the one with the most power left (ties: lowest index), and condition 1
    /// holds when that power is at least the task's MCR.
    MostPower,
    /// The baseline's best fit (§5): the host with the least power left that
    /// is still at least the task's MCR (ties: lowest index).
    BestFit,
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
    /// conditions compare the largest MBR instead of the sum, and the
    /// bandwidths are not decreased.
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
            _ => Err(Error::InvalidArgument(format!("bandwidth == '{name}', must be 'shared' or 'dedicated'"))),
        }
    }
}

/// Remaining resources of one tentative mapping and the placements made so far.
pub(crate) struct Allocation<'a> {
    tig: &'a Tig,
    grid: &'a LanGrid,
    /// Links the mapping may use (the others are as absent).
    usable: &'a [bool],
    bandwidth: Bandwidth,
    power: Vec<f64>,
    lan_bw: Vec<f64>,
    link_bw: Vec<f64>,
    lan_of_task: Vec<usize>,
    host_of_task: Vec<usize>,
    /// Traffic of the task being checked towards each other LAN: (LAN, link,
    /// MBR sum, or largest MBR when dedicated).
    remote: Vec<(usize, usize, f64)>,
}

impl<'a> Allocation<'a> {
    /// Fresh resources (the grid's nominal values), nothing placed.
    pub(crate) fn new(tig: &'a Tig, grid: &'a LanGrid, usable: &'a [bool], bandwidth: Bandwidth) -> Allocation<'a> {
        Allocation {
            tig,
            grid,
            usable,
            bandwidth,
            power: grid.host_power().to_vec(),
            lan_bw: grid.lan_bandwidth().to_vec(),
            link_bw: grid.link_bandwidth().to_vec(),
            lan_of_task: vec![NONE; tig.len()],
            host_of_task: vec![NONE; tig.len()],
            remote: Vec::new(),
        }
    }

    /// Places `task` on `lan` if the three allocation conditions of §4.4 hold,
    /// and applies the resource updates; returns whether it did.
    ///
    /// 1. a host of the LAN has at least the task's MCR left (the host is
    ///    picked by `choice`);
    /// 2. the MBRs of the task's edges to tasks already on this LAN, summed,
    ///    fit in the LAN's remaining bandwidth;
    /// 3. for every other LAN holding tasks it communicates with, the MBRs of
    ///    those edges, summed, fit in the remaining bandwidth of the usable
    ///    link between the two LANs; without such a link the LANs cannot
    ///    communicate (§3) and the condition fails, whatever the MBRs.
    ///
    /// Sums run over the task's neighbours by increasing index from 0.0, and
    /// comparisons are exact (`sum <= remaining`). On success the host loses
    /// the MCR, the LAN and each link lose their sums. Under
    /// [`Bandwidth::Dedicated`] the largest MBR takes the place of each sum
    /// and bandwidths are never decreased.
    pub(crate) fn try_place(&mut self, task: usize, lan: usize, choice: HostChoice) -> bool {
        let mcr = self.tig.mcr()[task];
        let Some(host) = self.pick_host(lan, mcr, choice) else {
            return false;
        };
        let add = match self.bandwidth {
            Bandwidth::Shared => |total: f64, mbr: f64| total + mbr,
            Bandwidth::Dedicated => |total: f64, mbr: f64| total.max(mbr),
        };
        let mut local = 0.0;
        self.remote.clear();
        for (j, mbr) in self.tig.neighbors(task) {
            let other = self.lan_of_task[j];
            if other == NONE {
                continue;
            }
            if other == lan {
                local = add(local, mbr);
            } else if let Some(entry) = self.remote.iter_mut().find(|e| e.0 == other) {
                entry.2 = add(entry.2, mbr);
            } else {
                match self.grid.link_between(lan, other) {
                    Some(link) if self.usable[link] => self.remote.push((other, link, mbr)),
                    _ => return false,
                }
            }
        }
        if local > self.lan_bw[lan] || self.remote.iter().any(|&(_, link, sum)| sum > self.link_bw[link]) {
            return false;
        }
        self.power[host] -= mcr;
        if self.bandwidth == Bandwidth::Shared {
            self.lan_bw[lan] -= local;
            for &(_, link, sum) in &self.remote {
                self.link_bw[link] -= sum;
            }
        }
        self.lan_of_task[task] = lan;
        self.host_of_task[task] = host;
        true
    }

    fn pick_host(&self, lan: usize, mcr: f64, choice: HostChoice) -> Option<usize> {
        let mut best: Option<usize> = None;
        for h in self.grid.hosts(lan) {
            let left = self.power[h];
            match choice {
                HostChoice::MostPower => {
                    if best.is_none_or(|b| left > self.power[b]) {
                        best = Some(h);
                    }
                }
                HostChoice::BestFit => {
                    if left >= mcr && best.is_none_or(|b| left < self.power[b]) {
                        best = Some(h);
                    }
                }
            }
        }
        best.filter(|&h| self.power[h] >= mcr)
    }

    /// The host of every task (all placed), consuming the allocation.
    pub(crate) fn into_hosts(self) -> Vec<usize> {
        debug_assert!(self.host_of_task.iter().all(|&h| h != NONE));
        self.host_of_task
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_and_updates() {
        // tasks 0-1 (MBR 5), 1-2 (MBR 7); LAN 0: hosts 10, 6; LAN 1: host 8; LAN 2: host 9; link 0-1 of 6
        let tig = Tig::new(vec![4.0, 4.0, 4.0], &[0, 1], &[1, 2], &[5.0, 7.0]).unwrap();
        let grid = LanGrid::new(vec![0, 2, 3, 4], vec![10.0, 6.0, 8.0, 9.0], vec![5.0, 100.0, 100.0], &[0], &[1], vec![6.0])
            .unwrap();
        let usable = vec![true];
        let mut a = Allocation::new(&tig, &grid, &usable, Bandwidth::Shared);
        assert!(a.try_place(0, 0, HostChoice::BestFit)); // host 1 (6 >= 4, tighter than 10)
        assert_eq!(a.host_of_task[0], 1);
        assert!(!a.try_place(1, 2, HostChoice::MostPower)); // LAN 2 has no link to LAN 0
        assert!(a.try_place(1, 0, HostChoice::MostPower)); // host 0 (10 left); 5 <= 5 of LAN 0
        assert_eq!(a.host_of_task[1], 0);
        assert_eq!(a.lan_bw[0], 0.0);
        assert!(!a.try_place(2, 0, HostChoice::MostPower)); // 7 > 0 left on LAN 0
        assert!(!a.try_place(2, 1, HostChoice::MostPower)); // 7 > 6 on link 0-1
        assert_eq!(a.power, vec![6.0, 2.0, 8.0, 9.0]);

        // dedicated: each MBR on its own, nothing used up
        let mut d = Allocation::new(&tig, &grid, &usable, Bandwidth::Dedicated);
        assert!(d.try_place(0, 0, HostChoice::MostPower));
        assert!(d.try_place(1, 0, HostChoice::MostPower)); // 5 <= 5
        assert_eq!(d.lan_bw[0], 5.0);
        assert!(!d.try_place(2, 0, HostChoice::MostPower)); // 7 > 5
        assert!(!d.try_place(2, 1, HostChoice::MostPower)); // 7 > 6
    }
}
