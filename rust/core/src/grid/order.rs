//! QLSE's task ordering (§4.1): scores, layers from the highest-score task,
//! subsets of communicating tasks, and the cycle rule.

use super::model::{Tig, NONE};
use crate::error::{Error, Result};

/// Weights of eq. (1) (tasks) or eq. (2) (LANs): `alpha` converts a
/// bandwidth into the unit of power, `beta` weighs the neighbours' power.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weights {
    /// Conversion factor of a bandwidth (the paper's α).
    pub alpha: f64,
    /// Relative weight of the neighbours' computational power, in `[0, 1]` (the paper's β).
    pub beta: f64,
}

impl Weights {
    /// α = 1, β = 0.25: the values §4.1 and §4.2 found best, for both equations.
    pub const PAPER: Weights = Weights { alpha: 1.0, beta: 0.25 };

    /// Checks α finite and `>= 0`, β in `[0, 1]`; `what` names the pair in errors.
    pub fn check(&self, what: &str) -> Result<()> {
        if !(self.alpha.is_finite() && self.alpha >= 0.0) {
            return Err(Error::InvalidArgument(format!(
                "alpha_{what} == {}, must be finite and >= 0",
                self.alpha
            )));
        }
        if !(0.0..=1.0).contains(&self.beta) {
            return Err(Error::InvalidArgument(format!(
                "beta_{what} == {}, must be in [0, 1]",
                self.beta
            )));
        }
        Ok(())
    }
}

/// Eq. (1): `score_i = MCR_i + Σ_{j ~ i} (α MBR_ij + β MCR_j)`.
///
/// The sum runs over the neighbours by increasing index, from 0.0, and is
/// then added to `MCR_i` (the canonical order the reference follows too).
pub fn task_scores(tig: &Tig, w: Weights) -> Vec<f64> {
    let mcr = tig.mcr();
    (0..tig.len())
        .map(|i| {
            mcr[i]
                + tig
                    .neighbors(i)
                    .fold(0.0, |s, (j, mbr)| s + (w.alpha * mbr + w.beta * mcr[j]))
        })
        .collect()
}

/// The order in which QLSE allocates the tasks, and how it was built.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskOrder {
    /// Eq. (1) score of every task.
    pub scores: Vec<f64>,
    /// Tasks in allocation order.
    pub order: Vec<usize>,
    /// Breadth-first layer of every task (0 for the highest-score task).
    pub layer: Vec<usize>,
    /// Subset of every task: tasks of one subset are allocated one after the
    /// other. Subsets are numbered in allocation order.
    pub subset: Vec<usize>,
    /// Layer a subset is ordered in: that of its shallowest task.
    pub subset_layer: Vec<usize>,
}

/// QLSE's task order (§4.1).
///
/// 1. Scores by eq. (1); the first task is the highest score (ties: lowest index).
/// 2. Layers: breadth-first from it; layer `k + 1` holds the tasks adjacent
///    to layer `k` not in an earlier layer.
/// 3. Subsets and the cycle rule. §4.1 groups the tasks of a layer that are
///    directly connected, and forces "all the cycle's tasks but the first"
///    into one subset. Every simple cycle lies in one biconnected block of the
///    TIG, and the first task of any cycle through a block's top task (the
///    block's task nearest the first task, which every path from it into the
///    block crosses) is that top task; so the transitive closure of the rule
///    over all cycles is: **every block of three or more tasks, minus its
///    top task, is one subset** (two such subsets never share a task). An
///    edge inside a layer always lies on a cycle, so the grouping of directly
///    connected tasks of a layer adds nothing to this. Any other task is a
///    subset of its own. A subset is ordered in the layer of its shallowest
///    task (its deeper tasks move up with it). `tests/reference/grid.py`
///    builds the subsets literally from every simple cycle and compares.
/// 4. Within a layer, subsets by decreasing size, then decreasing highest
///    score, then lowest task index (the paper fixes only the size); within a
///    subset, tasks by decreasing score, then lowest index.
///
/// # Errors
/// [`Error::InvalidArgument`] when the TIG is not connected (the layers from
/// one task would miss a task), naming a task out of reach.
pub fn task_order(tig: &Tig, w: Weights) -> Result<TaskOrder> {
    w.check("T")?;
    let n = tig.len();
    let scores = task_scores(tig, w);
    let by_score = |a: usize, b: usize| scores[b].total_cmp(&scores[a]).then(a.cmp(&b));
    let root = (0..n).min_by(|&a, &b| by_score(a, b)).expect("a TIG has a task");

    let mut layer = vec![NONE; n];
    layer[root] = 0;
    let mut queue = std::collections::VecDeque::from([root]);
    while let Some(t) = queue.pop_front() {
        for (j, _) in tig.neighbors(t) {
            if layer[j] == NONE {
                layer[j] = layer[t] + 1;
                queue.push_back(j);
            }
        }
    }
    if let Some(t) = layer.iter().position(|&l| l == NONE) {
        return Err(Error::InvalidArgument(format!(
            "the TIG is not connected: task {t} cannot be reached from task {root}, where QLSE's layers start"
        )));
    }

    // group[t]: the block (of >= 3 tasks) in which t is not the top task, or NONE.
    let group = cycle_groups(tig, root);
    // Subsets: one per group, one per task outside every group.
    let mut members: Vec<Vec<usize>> = Vec::new();
    let mut subset_of_group = vec![NONE; n];
    for (t, &g) in group.iter().enumerate() {
        match g {
            NONE => members.push(vec![t]),
            g => {
                if subset_of_group[g] == NONE {
                    subset_of_group[g] = members.len();
                    members.push(Vec::new());
                }
                members[subset_of_group[g]].push(t);
            }
        }
    }
    for m in &mut members {
        m.sort_by(|&a, &b| by_score(a, b));
    }
    let top_layer: Vec<usize> = members
        .iter()
        .map(|m| m.iter().map(|&t| layer[t]).min().expect("non-empty"))
        .collect();
    let best = |m: &Vec<usize>| m[0]; // highest score, lowest index among equals
    let mut ranked: Vec<usize> = (0..members.len()).collect();
    ranked.sort_by(|&a, &b| {
        top_layer[a]
            .cmp(&top_layer[b])
            .then(members[b].len().cmp(&members[a].len()))
            .then_with(|| scores[best(&members[b])].total_cmp(&scores[best(&members[a])]))
            .then_with(|| min_index(&members[a]).cmp(&min_index(&members[b])))
    });
    let mut order = Vec::with_capacity(n);
    let mut subset = vec![0usize; n];
    let mut subset_layer = Vec::with_capacity(members.len());
    for (rank, &s) in ranked.iter().enumerate() {
        for &t in &members[s] {
            subset[t] = rank;
            order.push(t);
        }
        subset_layer.push(top_layer[s]);
    }
    Ok(TaskOrder {
        scores,
        order,
        layer,
        subset,
        subset_layer,
    })
}

fn min_index(tasks: &[usize]) -> usize {
    *tasks.iter().min().expect("non-empty")
}

/// For every task, the biconnected block of three or more tasks in which it
/// is not the top task (numbered from 0 in discovery order), or [`NONE`].
///
/// Tarjan's algorithm, iterative, from `root`: when the search returns from
/// a tree edge `(u, v)` with `low[v] >= disc[u]`, the tasks pushed since `v`
/// (inclusive) and `u` form a block whose top is `u`.
fn cycle_groups(tig: &Tig, root: usize) -> Vec<usize> {
    let n = tig.len();
    let mut disc = vec![NONE; n];
    let mut low = vec![0usize; n];
    let mut group = vec![NONE; n];
    let mut stack: Vec<usize> = Vec::new();
    // DFS frames: (task, parent, next neighbour position)
    let mut frames: Vec<(usize, usize, usize)> = vec![(root, NONE, 0)];
    let mut clock = 0;
    let mut groups = 0;
    disc[root] = clock;
    low[root] = clock;
    stack.push(root);
    while let Some(frame) = frames.last_mut() {
        let (u, parent, pos) = *frame;
        if pos < tig.degree(u) {
            frame.2 += 1;
            let v = tig.neighbor(u, pos);
            if disc[v] == NONE {
                clock += 1;
                disc[v] = clock;
                low[v] = clock;
                stack.push(v);
                frames.push((v, u, 0));
            } else if v != parent {
                low[u] = low[u].min(disc[v]);
            }
            continue;
        }
        frames.pop();
        if parent == NONE {
            continue;
        }
        low[parent] = low[parent].min(low[u]);
        if low[u] >= disc[parent] {
            let at = stack.iter().rposition(|&t| t == u).expect("u is on the stack");
            let block: Vec<usize> = stack.drain(at..).collect();
            if block.len() >= 2 {
                for t in block {
                    group[t] = groups;
                }
                groups += 1;
            }
        }
    }
    group
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tig(n: usize, edges: &[(usize, usize)]) -> Tig {
        let mcr = (0..n).map(|i| 100.0 + i as f64).collect();
        let u: Vec<usize> = edges.iter().map(|e| e.0).collect();
        let v: Vec<usize> = edges.iter().map(|e| e.1).collect();
        Tig::new(mcr, &u, &v, &vec![10.0; edges.len()]).unwrap()
    }

    #[test]
    fn scores_follow_eq_1() {
        let t = Tig::new(vec![100.0, 200.0, 300.0], &[0, 0], &[1, 2], &[10.0, 20.0]).unwrap();
        let s = task_scores(&t, Weights::PAPER);
        assert_eq!(
            s,
            vec![
                100.0 + (10.0 + 50.0) + (20.0 + 75.0),
                200.0 + 10.0 + 25.0,
                300.0 + 20.0 + 25.0
            ]
        );
    }

    #[test]
    fn a_tree_is_ordered_layer_by_layer_by_score() {
        // star around 4 (highest score), then 0..3; task 5 hangs off 3
        let t = tig(6, &[(4, 0), (4, 1), (4, 2), (4, 3), (3, 5)]);
        let o = task_order(&t, Weights::PAPER).unwrap();
        assert_eq!(o.order[0], 4);
        assert_eq!(o.layer, vec![1, 1, 1, 1, 0, 2]);
        // layer 1 by decreasing score: 3 has a neighbour more, then 2, 1, 0
        assert_eq!(o.order, vec![4, 3, 2, 1, 0, 5]);
    }

    #[test]
    fn a_cycle_but_its_first_task_is_one_subset() {
        // square 0-1-2-3-0 plus a pendant 4 on 0, making 0 the first task
        let t = tig(5, &[(0, 1), (1, 2), (2, 3), (3, 0), (0, 4)]);
        let o = task_order(&t, Weights::PAPER).unwrap();
        assert_eq!(o.order[0], 0);
        assert_eq!(o.layer, vec![0, 1, 2, 1, 1]);
        // {1, 2, 3} is one subset (size 3), ordered before {4} in layer 1, though 2 is in layer 2
        assert_eq!(o.subset[1], o.subset[2]);
        assert_eq!(o.subset[1], o.subset[3]);
        assert_ne!(o.subset[4], o.subset[1]);
        assert_eq!(&o.order[4..], &[4]);
    }

    #[test]
    fn a_disconnected_tig_is_refused() {
        let t = tig(3, &[(0, 1)]);
        assert!(matches!(task_order(&t, Weights::PAPER), Err(Error::InvalidArgument(m)) if m.contains("task 2")));
    }
}
