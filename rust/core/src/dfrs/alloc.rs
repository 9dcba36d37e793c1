//! CPU shares for a fixed mapping of tasks to nodes (RR-7659 §4.6, §4.7).
//!
//! Every task of a job gets the same CPU fraction `yield * cpu_need`; a
//! node's tasks may not take more than its whole CPU.

use super::cluster::Cluster;
use crate::error::{Error, Item, Result};

/// Relative slack under which a node counts as saturated.
const TIGHT: f64 = 1e-12;

/// Per-job (node, count) entries of the running jobs, and their CPU needs.
///
/// Nodes are numbered among the nodes that hold a task (`0..nodes`, in the
/// order of their index on the cluster), so that an allocation costs what the
/// running jobs hold, never the size of the cluster; every per-node sum is
/// made in the same order as with the cluster's own numbering.
struct Mapping {
    jobs: Vec<u32>,
    cpu: Vec<f64>,
    /// Entries of job `k`: `entries[start[k]..start[k + 1]]`, each (node, count).
    start: Vec<usize>,
    entries: Vec<(usize, f64)>,
    /// Nodes holding a task.
    nodes: usize,
}

fn mapping(cluster: &Cluster) -> Mapping {
    let mut m = Mapping {
        jobs: Vec::new(),
        cpu: Vec::new(),
        start: vec![0],
        entries: Vec::new(),
        nodes: 0,
    };
    for job in cluster.running() {
        m.jobs.push(job);
        m.cpu.push(cluster.jobs().cpu_fraction(job as usize));
        let nodes = cluster.placement(job);
        let mut k = 0;
        while k < nodes.len() {
            let first = k;
            while k < nodes.len() && nodes[k] == nodes[first] {
                k += 1;
            }
            m.entries.push((nodes[first] as usize, (k - first) as f64));
        }
        m.start.push(m.entries.len());
    }
    let mut used: Vec<usize> = m.entries.iter().map(|&(node, _)| node).collect();
    used.sort_unstable();
    used.dedup();
    for entry in &mut m.entries {
        entry.0 = used
            .binary_search(&entry.0)
            .expect("the node of an entry is among the used nodes");
    }
    m.nodes = used.len();
    m
}

/// Iterative max-min yields of the running jobs (opt=min, §4.6), by
/// progressive filling: all yields rise together from 0; when a node's CPU
/// is full, the jobs with a task on it keep their yield; the others go on
/// rising; a yield stops at 1. The first level reached is `1 / max(1, L)`,
/// `L` the highest CPU load (sum of needs) of a node, which is the
/// allocation every algorithm starts from. Returns (jobs ascending, yields).
pub fn max_min_yields(cluster: &Cluster) -> (Vec<u32>, Vec<f64>) {
    let m = mapping(cluster);
    let nodes = m.nodes;
    let r = m.jobs.len();
    let mut used = vec![0.0f64; nodes]; // CPU taken by frozen jobs
    let mut demand = vec![0.0f64; nodes]; // CPU per unit of yield of the rising jobs
    let mut rising_tasks = vec![0u64; nodes];
    for k in 0..r {
        for &(node, count) in &m.entries[m.start[k]..m.start[k + 1]] {
            demand[node] += count * m.cpu[k];
            rising_tasks[node] += count as u64;
        }
    }
    let mut yields = vec![0.0f64; r];
    let mut frozen = vec![false; r];
    let mut rising = r;
    let mut on_node: Vec<Vec<usize>> = vec![Vec::new(); nodes];
    for k in 0..r {
        for &(node, _) in &m.entries[m.start[k]..m.start[k + 1]] {
            on_node[node].push(k);
        }
    }
    while rising > 0 {
        let mut level = 1.0f64;
        for i in 0..nodes {
            if rising_tasks[i] > 0 {
                level = level.min((1.0 - used[i]) / demand[i]);
            }
        }
        let level = level.max(0.0);
        if level >= 1.0 {
            for k in 0..r {
                if !frozen[k] {
                    yields[k] = 1.0;
                }
            }
            break;
        }
        let tight: Vec<usize> = (0..nodes)
            .filter(|&i| rising_tasks[i] > 0 && (1.0 - used[i]) / demand[i] <= level * (1.0 + TIGHT))
            .collect();
        for i in tight {
            for &k in &on_node[i] {
                if frozen[k] {
                    continue;
                }
                frozen[k] = true;
                rising -= 1;
                yields[k] = level;
                for &(node, count) in &m.entries[m.start[k]..m.start[k + 1]] {
                    used[node] += count * m.cpu[k] * level;
                    demand[node] -= count * m.cpu[k];
                    rising_tasks[node] -= count as u64;
                }
            }
        }
    }
    (m.jobs, yields)
}

/// Iterative minimization of the maximum estimated stretch (MCB8-stretch's
/// opt=max, §4.7) for the running jobs: with flow time `ft`, virtual time
/// `vt` and `period` T to the next periodic event, a job reaching inverse
/// stretch `x` at that event needs yield `y(x) = clamp(((ft + T) x - vt) / T,
/// 0, 1)`. The common `x` rises (bisection to machine precision) until a
/// node saturates; the jobs on it keep their yield and the others go on, as
/// in [`max_min_yields`]. `flow` and `virt` are indexed by job.
pub fn max_min_stretch(cluster: &Cluster, flow: &[f64], virt: &[f64], period: f64) -> Result<(Vec<u32>, Vec<f64>)> {
    let n = cluster.jobs().len();
    if flow.len() != n || virt.len() != n {
        return Err(Error::InvalidArgument(format!(
            "flow and virtual times must have one entry per job ({n}): {} and {}",
            flow.len(),
            virt.len()
        )));
    }
    if !(period.is_finite() && period > 0.0) {
        return Err(Error::InvalidArgument(format!(
            "period == {period}, must be finite and > 0"
        )));
    }
    let m = mapping(cluster);
    for &job in &m.jobs {
        let (f, v) = (flow[job as usize], virt[job as usize]);
        if !(f.is_finite() && v.is_finite() && f >= 0.0 && v >= 0.0) {
            return Err(Error::invalid_item(
                Item::Job(job as usize),
                format!("flow time {f} and virtual time {v} must be finite and >= 0"),
            ));
        }
    }
    let nodes = m.nodes;
    let r = m.jobs.len();
    let slope: Vec<f64> = m.jobs.iter().map(|&j| (flow[j as usize] + period) / period).collect();
    let offset: Vec<f64> = m.jobs.iter().map(|&j| virt[j as usize] / period).collect();
    let y_at = |k: usize, x: f64| (slope[k] * x - offset[k]).clamp(0.0, 1.0);
    let mut used = vec![0.0f64; nodes];
    let mut frozen = vec![false; r];
    let mut yields = vec![0.0f64; r];
    let mut rising = r;
    // The rising jobs of each node, ascending, with the CPU of their tasks there (count * need):
    // a node's load at x is used[node] + the sum of coef * y(x) in that order, the order of a
    // job-by-job accumulation, so every load has the same bits whichever way it is computed.
    let mut on_node: Vec<Vec<(usize, f64)>> = vec![Vec::new(); nodes];
    for k in 0..r {
        for &(node, count) in &m.entries[m.start[k]..m.start[k + 1]] {
            on_node[node].push((k, count * m.cpu[k]));
        }
    }
    let load_on = |i: usize, x: f64, on_node: &[Vec<(usize, f64)>], used: &[f64]| -> f64 {
        let mut l = used[i];
        for &(k, coef) in &on_node[i] {
            l += coef * y_at(k, x);
        }
        l
    };
    // Whether no node is above 1 at x. A node's load is non-decreasing in x (each term is, and
    // float64 rounding keeps it so), so a node seen within 1 at some x is within 1 at every x
    // below it (`ok_up_to`), and one within 1 with every yield at 1 (`check` false) always is.
    // Every node still in doubt is evaluated, also once one is found above 1: a failed probe
    // at x bounds every later probe of the round (they lie below x), so the nodes it finds
    // within 1 are settled for the rest of the round and only the binding ones are evaluated
    // again.
    let mut ok_up_to = vec![f64::NEG_INFINITY; nodes];
    let mut check = vec![true; nodes];
    let fits = |x: f64, on_node: &[Vec<(usize, f64)>], used: &[f64], check: &[bool], ok_up_to: &mut [f64]| -> bool {
        let mut all = true;
        for i in 0..nodes {
            if !check[i] || x <= ok_up_to[i] {
                continue;
            }
            if load_on(i, x, on_node, used) > 1.0 {
                all = false;
            } else {
                ok_up_to[i] = x;
            }
        }
        all
    };
    let mut lo = 0.0f64;
    while rising > 0 {
        for i in 0..nodes {
            let mut l = used[i];
            for &(_, coef) in &on_node[i] {
                l += coef * 1.0;
            }
            check[i] = l > 1.0;
            ok_up_to[i] = f64::NEG_INFINITY;
        }
        let hi_cap = (0..r)
            .filter(|&k| !frozen[k])
            .map(|k| (1.0 + offset[k]) / slope[k])
            .fold(lo, f64::max);
        if fits(hi_cap, &on_node, &used, &check, &mut ok_up_to) {
            for k in 0..r {
                if !frozen[k] {
                    yields[k] = 1.0;
                }
            }
            break;
        }
        let mut hi = hi_cap;
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if mid <= lo || mid >= hi {
                break;
            }
            if fits(mid, &on_node, &used, &check, &mut ok_up_to) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let over: Vec<bool> = (0..nodes).map(|i| load_on(i, hi, &on_node, &used) > 1.0).collect();
        let mut changed = false;
        for k in 0..r {
            if frozen[k] {
                continue;
            }
            let saturated = m.entries[m.start[k]..m.start[k + 1]]
                .iter()
                .any(|&(node, _)| over[node]);
            if saturated || y_at(k, lo) >= 1.0 {
                frozen[k] = true;
                changed = true;
                rising -= 1;
                yields[k] = y_at(k, lo);
                for &(node, count) in &m.entries[m.start[k]..m.start[k + 1]] {
                    used[node] += count * m.cpu[k] * yields[k];
                }
            }
        }
        if !changed {
            // numerically flat: nothing can rise further
            for k in 0..r {
                if !frozen[k] {
                    yields[k] = y_at(k, lo);
                }
            }
            break;
        }
        for list in &mut on_node {
            list.retain(|&(k, _)| !frozen[k]);
        }
    }
    Ok((m.jobs, yields))
}

#[cfg(test)]
mod tests {
    use super::super::jobs::{Jobs, UNIT};
    use super::*;

    #[test]
    fn max_min_progressive_filling() {
        // node 0: jobs 0 and 1 (CPU 1 each) -> 1/2 each; node 1: job 1 and job 2 (CPU 1/4):
        // job 1 frozen at 1/2, job 2 rises to 1
        let jobs = Jobs::new(vec![1, 2, 1], vec![UNIT, UNIT, UNIT / 4], vec![UNIT / 10; 3]).unwrap();
        let mut c = Cluster::new(jobs, 2).unwrap();
        c.place(0, vec![0]).unwrap();
        c.place(1, vec![0, 1]).unwrap();
        c.place(2, vec![1]).unwrap();
        let (jobs, y) = max_min_yields(&c);
        assert_eq!(jobs, vec![0, 1, 2]);
        assert_eq!(y, vec![0.5, 0.5, 1.0]);
    }

    #[test]
    fn max_min_two_levels() {
        // node 0: three CPU-1 jobs -> 1/3; node 1: job 2 and job 3 (CPU 1): job 3 gets 2/3
        let jobs = Jobs::new(vec![1, 1, 2, 1], vec![UNIT; 4], vec![UNIT / 10; 4]).unwrap();
        let mut c = Cluster::new(jobs, 2).unwrap();
        c.place(0, vec![0]).unwrap();
        c.place(1, vec![0]).unwrap();
        c.place(2, vec![0, 1]).unwrap();
        c.place(3, vec![1]).unwrap();
        let (_, y) = max_min_yields(&c);
        let third = 1.0 / 3.0;
        assert!((y[0] - third).abs() < 1e-15 && (y[2] - third).abs() < 1e-15);
        assert!((y[3] - 2.0 * third).abs() < 1e-12);
    }

    #[test]
    fn max_min_stretch_favours_the_behind() {
        // one node, two CPU-1 jobs, T = 100: job 0 flow 100 virt 100, job 1 new (flow 0, virt 0)
        // y0 = 2x - 1, y1 = x, saturation at x = 2/3: y0 = 1/3, y1 = 2/3
        let jobs = Jobs::new(vec![1, 1], vec![UNIT; 2], vec![UNIT / 10; 2]).unwrap();
        let mut c = Cluster::new(jobs, 1).unwrap();
        c.place(0, vec![0]).unwrap();
        c.place(1, vec![0]).unwrap();
        let (_, y) = max_min_stretch(&c, &[100.0, 0.0], &[100.0, 0.0], 100.0).unwrap();
        assert!(
            (y[0] - 1.0 / 3.0).abs() < 1e-9 && (y[1] - 2.0 / 3.0).abs() < 1e-9,
            "{y:?}"
        );
        assert!(max_min_stretch(&c, &[1.0], &[1.0], 100.0).is_err());
        assert!(max_min_stretch(&c, &[1.0, 1.0], &[1.0, 1.0], 0.0).is_err());
    }
}
