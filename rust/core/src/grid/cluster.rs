//! QLSE's view of the grid (§4.2-4.3): LAN priorities (eq. 2), the five
//! tentative link sets cut at the quartiles of the link bandwidths, the LAN
//! clusters they leave and the clusters' priorities.

use super::model::{LanGrid, Tig};
use super::order::Weights;

/// The quantiles of §4.3, one per tentative mapping, in the order tried.
pub const STEP_QUANTILES: [f64; 5] = [1.0, 0.75, 0.5, 0.25, 0.0];

/// Quantile `q` of `sorted` (non-decreasing, non-empty) by linear
/// interpolation between order statistics (numpy's default, Hyndman & Fan
/// type 7): with `h = (n - 1) q`, `k = floor(h)`,
/// `x[k] + (x[k + 1] - x[k]) * (h - k)` (or `x[k]` when `k = n - 1`).
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    let h = (sorted.len() - 1) as f64 * q;
    let k = h.floor() as usize;
    if k + 1 >= sorted.len() {
        return sorted[sorted.len() - 1];
    }
    sorted[k] + (sorted[k + 1] - sorted[k]) * (h - k as f64)
}

/// Whose distribution the quartiles of §4.3 are taken from.
///
/// §4.3: "we have decided to use the *quartiles* of the links bandwidth
/// distribution to set the values of the edges to be removed in each step".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Quartiles {
    /// The bandwidths of the grid's links (LAN to LAN): "the links bandwidth
    /// distribution" read as the distribution of the bandwidths the removed
    /// edges carry. The reading of clustersched until issue 33, and the default.
    #[default]
    Links,
    /// The MBRs of the TIG's edges: "the links bandwidth distribution" read as
    /// the bandwidth the application's links require, so that a step keeps
    /// the grid links able to carry the upper 25%, 50%, 75% of the MBRs.
    Mbrs,
}

impl Quartiles {
    /// The source by its name: `"links"` or `"mbrs"`.
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] for any other name.
    pub fn from_name(name: &str) -> crate::error::Result<Self> {
        match name {
            "links" => Ok(Quartiles::Links),
            "mbrs" => Ok(Quartiles::Mbrs),
            _ => Err(crate::error::Error::InvalidArgument(format!(
                "quartiles == '{name}', must be 'links' or 'mbrs'"
            ))),
        }
    }

    /// The values whose quartiles cut the tentative mappings (unsorted).
    pub fn distribution(self, tig: &Tig, grid: &LanGrid) -> Vec<f64> {
        match self {
            Quartiles::Links => grid.link_bandwidth().to_vec(),
            Quartiles::Mbrs => tig.mbrs(),
        }
    }
}

/// Which links tentative mapping `step` (an index of [`STEP_QUANTILES`]) keeps,
/// cut at the quartiles of `distribution` ([`Quartiles::distribution`]).
///
/// §4.3 states each step: the first removes every LAN-to-LAN link (one LAN
/// must host the whole TIG); the second, third and fourth remove the links
/// whose bandwidth is smaller than the upper, middle and lower quartile of
/// `distribution` (they keep `bw >= x_q`); the last keeps every link
/// ("x.00 = 0"). An empty distribution keeps every link from the second step on.
pub fn kept_links(grid: &LanGrid, step: usize, distribution: &[f64]) -> Vec<bool> {
    let bw = grid.link_bandwidth();
    match step {
        0 => vec![false; bw.len()],
        4 => vec![true; bw.len()],
        _ => {
            let mut sorted = distribution.to_vec();
            sorted.sort_by(f64::total_cmp);
            if sorted.is_empty() {
                return vec![true; bw.len()];
            }
            let threshold = quantile(&sorted, STEP_QUANTILES[step]);
            bw.iter().map(|&b| b >= threshold).collect()
        }
    }
}

/// Eq. (2) for every LAN over the links `kept`:
/// `prio_i = Σ_h r_ih + Σ_{kept (i, j)} (α bw_ij + β Σ_h r_jh)`.
///
/// Powers are the hosts' nominal ones ([`LanGrid::lan_power`]); the sum over
/// links runs by increasing neighbour LAN, from 0.0, and is then added to the
/// LAN's own power. Only the links of the tentative mapping count (the
/// others cannot be used in it), so a LAN's priority changes from step to step.
pub fn lan_priorities(grid: &LanGrid, kept: &[bool], w: Weights) -> Vec<f64> {
    let power = grid.lan_power();
    let bw = grid.link_bandwidth();
    (0..grid.num_lans())
        .map(|i| {
            power[i]
                + grid
                    .links(i)
                    .iter()
                    .filter(|&&(_, k)| kept[k])
                    .fold(0.0, |s, &(j, k)| s + (w.alpha * bw[k] + w.beta * power[j]))
        })
        .collect()
}

/// A connected group of LANs under the kept links, with its priority.
#[derive(Debug, Clone, PartialEq)]
pub struct Cluster {
    /// Its LANs, by increasing index.
    pub lans: Vec<usize>,
    /// Kept links between its LANs.
    pub links: usize,
    /// §4.3: the sum of its LANs' computational power and bandwidth and of the
    /// bandwidths of its kept links (summed from 0.0: each LAN's power plus
    /// its bandwidth, LANs by index, then the links by id).
    pub priority: f64,
}

/// The clusters left by the links `kept`, by decreasing priority (ties: lowest first LAN).
pub fn clusters(grid: &LanGrid, kept: &[bool]) -> Vec<Cluster> {
    let lans = grid.num_lans();
    let mut component = vec![usize::MAX; lans];
    let mut found: Vec<Vec<usize>> = Vec::new();
    for start in 0..lans {
        if component[start] != usize::MAX {
            continue;
        }
        let id = found.len();
        component[start] = id;
        let mut members = vec![start];
        let mut stack = vec![start];
        while let Some(l) = stack.pop() {
            for &(m, k) in grid.links(l) {
                if kept[k] && component[m] == usize::MAX {
                    component[m] = id;
                    members.push(m);
                    stack.push(m);
                }
            }
        }
        members.sort_unstable();
        found.push(members);
    }
    let power = grid.lan_power();
    let lan_bw = grid.lan_bandwidth();
    let link_bw = grid.link_bandwidth();
    let mut link_sum = vec![0.0; found.len()];
    let mut link_count = vec![0usize; found.len()];
    for (k, &(a, _)) in grid.link_ends().iter().enumerate() {
        if kept[k] {
            link_sum[component[a]] += link_bw[k];
            link_count[component[a]] += 1;
        }
    }
    let mut out: Vec<Cluster> = found
        .into_iter()
        .enumerate()
        .map(|(c, lans)| {
            let own = lans.iter().fold(0.0, |s, &l| s + (power[l] + lan_bw[l]));
            Cluster {
                lans,
                links: link_count[c],
                priority: own + link_sum[c],
            }
        })
        .collect();
    out.sort_by(|a, b| b.priority.total_cmp(&a.priority).then(a.lans[0].cmp(&b.lans[0])));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid() -> LanGrid {
        // 4 LANs of one host each; links 0-1 (10), 1-2 (20), 2-3 (30), 0-3 (40)
        LanGrid::new(
            vec![0, 1, 2, 3, 4],
            vec![100.0, 200.0, 300.0, 400.0],
            vec![1.0, 2.0, 3.0, 4.0],
            &[0, 1, 2, 0],
            &[1, 2, 3, 3],
            vec![10.0, 20.0, 30.0, 40.0],
        )
        .unwrap()
    }

    #[test]
    fn quartiles_interpolate_like_numpy() {
        let x = [10.0, 20.0, 30.0, 40.0];
        assert_eq!(quantile(&x, 0.75), 32.5);
        assert_eq!(quantile(&x, 0.5), 25.0);
        assert_eq!(quantile(&x, 0.25), 17.5);
        assert_eq!(quantile(&x, 1.0), 40.0);
        assert_eq!(quantile(&[7.0], 0.5), 7.0);
    }

    #[test]
    fn steps_keep_more_and_more_links() {
        let g = grid();
        let bw = g.link_bandwidth();
        assert_eq!(kept_links(&g, 0, bw), vec![false; 4]);
        assert_eq!(kept_links(&g, 1, bw), vec![false, false, false, true]);
        assert_eq!(kept_links(&g, 2, bw), vec![false, false, true, true]);
        assert_eq!(kept_links(&g, 3, bw), vec![false, true, true, true]);
        assert_eq!(kept_links(&g, 4, bw), vec![true; 4]);
        // the quartiles of MBRs 5, 15, 25, 35: x.75 = 27.5 keeps 30 and 40, x.25 = 12.5 keeps 20 and up
        let tig = Tig::new(vec![1.0; 5], &[0, 1, 2, 3], &[1, 2, 3, 4], &[35.0, 5.0, 25.0, 15.0]).unwrap();
        let mbrs = Quartiles::Mbrs.distribution(&tig, &g);
        assert_eq!(kept_links(&g, 1, &mbrs), vec![false, false, true, true]);
        assert_eq!(kept_links(&g, 3, &mbrs), vec![false, true, true, true]);
        assert_eq!(kept_links(&g, 2, &[]), vec![true; 4]);
    }

    #[test]
    fn priorities_follow_eq_2_and_section_4_3() {
        let g = grid();
        let kept = kept_links(&g, 1, g.link_bandwidth()); // only 0-3
        assert_eq!(
            lan_priorities(&g, &kept, Weights::PAPER),
            vec![100.0 + 40.0 + 100.0, 200.0, 300.0, 400.0 + 40.0 + 25.0]
        );
        let c = clusters(&g, &kept);
        assert_eq!(
            c.iter().map(|c| c.lans.clone()).collect::<Vec<_>>(),
            vec![vec![0, 3], vec![2], vec![1]]
        );
        assert_eq!(c[0].priority, (100.0 + 1.0) + (400.0 + 4.0) + 40.0);
        assert_eq!(c[0].links, 1);
    }
}
