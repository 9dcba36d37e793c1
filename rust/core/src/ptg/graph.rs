//! Parallel task graphs in CSR form, the Amdahl execution-time model and bottom levels.

use crate::error::{Error, Item, Result, Rule};

/// `T(v, p)`: seconds a task of `work` flop with Amdahl serial fraction
/// `alpha` runs on `p` processors of `speed` flop/s.
///
/// Evaluated in the one canonical order every implementation of the library
/// uses (`clustersched.workload.ptg`): `(work / speed) * (alpha + (1 - alpha) / p)`,
/// so that Rust, numpy and the Python references agree to the bit.
#[inline]
pub fn exec_time(work: f64, alpha: f64, p: u32, speed: f64) -> f64 {
    (work / speed) * (alpha + (1.0 - alpha) / f64::from(p))
}

/// [`exec_time`] of many tasks: `out[i] = exec_time(work[i], alpha[i],
/// procs[i], speed[i])`, the one duration function the schedulers use and the
/// Python validators (`clustersched.ptg.validate`, `clustersched.scrap.validate`)
/// call through the bindings, so that a producer and its checker compute a
/// task's duration by the same float operations.
///
/// # Errors
/// [`Error::InvalidArgument`] when the four slices differ in length or a
/// processor count is 0.
pub fn exec_times(work: &[f64], alpha: &[f64], procs: &[u32], speed: &[f64]) -> Result<Vec<f64>> {
    let n = work.len();
    if alpha.len() != n || procs.len() != n || speed.len() != n {
        return Err(Error::InvalidArgument(format!(
            "work, alpha, procs and speed differ in length: {n}, {}, {}, {}",
            alpha.len(),
            procs.len(),
            speed.len()
        )));
    }
    if let Some(i) = procs.iter().position(|&p| p == 0) {
        return Err(Error::InvalidArgument(format!("procs[{i}] == 0, must be >= 1")));
    }
    Ok((0..n)
        .map(|i| exec_time(work[i], alpha[i], procs[i], speed[i]))
        .collect())
}

/// Checks a processor speed (flop/s): finite and `> 0`.
pub fn check_speed(speed: f64) -> Result<()> {
    if speed.is_finite() && speed > 0.0 {
        Ok(())
    } else {
        Err(Error::InvalidArgument(format!(
            "speed == {speed}, must be finite and > 0 (flop/s)"
        )))
    }
}

/// One PTG: a DAG of moldable tasks numbered in topological order.
///
/// Task `0` is the only entry (no predecessor), task `n - 1` the only exit
/// (no successor), and every edge goes from a lower to a higher index, as in
/// `clustersched.workload.ptg.PTG`. Successor and predecessor lists are
/// sorted increasingly.
#[derive(Debug, Clone, PartialEq)]
pub struct Ptg {
    work: Vec<f64>,
    alpha: Vec<f64>,
    succ_offsets: Vec<usize>,
    succ: Vec<usize>,
    pred_offsets: Vec<usize>,
    pred: Vec<usize>,
}

impl Ptg {
    /// A PTG from its task arrays and successor lists in CSR form: the
    /// successors of task `v` are `succ[succ_offsets[v]..succ_offsets[v + 1]]`.
    ///
    /// # Errors
    /// [`Error::Invalid`] (about PTG 0 or one of its tasks) when the arrays disagree in length,
    /// a `work` is not finite and `>= 0`, an `alpha` is outside `[0, 1]`, a
    /// successor list is not strictly increasing with every successor above
    /// its task, or the graph has other sources than task 0 or other sinks
    /// than task `n - 1`.
    pub fn new(work: Vec<f64>, alpha: Vec<f64>, succ_offsets: &[usize], succ: &[usize]) -> Result<Ptg> {
        Ptg::build(0, work, alpha, succ_offsets, succ, 0)
    }

    /// As [`Ptg::new`], naming PTG `index` in errors; successor ids are
    /// global, i.e. shifted by `base`.
    fn build(
        index: usize,
        work: Vec<f64>,
        alpha: Vec<f64>,
        succ_offsets: &[usize],
        succ: &[usize],
        base: usize,
    ) -> Result<Ptg> {
        let bad = |message: String| Err(Error::invalid_item(Item::Ptg(index), message));
        let task = |task: usize| Item::Task { ptg: Some(index), task };
        let n = work.len();
        if n == 0 {
            return bad("the graph has no tasks".into());
        }
        if alpha.len() != n || succ_offsets.len() != n + 1 {
            return bad(format!(
                "arrays differ in length: work {n}, alpha {}, succ_offsets {} (must be n + 1 = {})",
                alpha.len(),
                succ_offsets.len(),
                n + 1
            ));
        }
        let first = succ_offsets[0];
        if succ_offsets.windows(2).any(|w| w[0] > w[1]) || succ_offsets[n] > succ.len() {
            return bad(format!(
                "succ_offsets must be non-decreasing and end within the {} successors",
                succ.len()
            ));
        }
        for v in 0..n {
            if !(work[v].is_finite() && work[v] >= 0.0) {
                return Err(Error::invalid(task(v), "work", work[v], Rule::AtLeast(0.0.into())).noted("flop"));
            }
            if !(0.0..=1.0).contains(&alpha[v]) {
                return Err(Error::invalid(
                    task(v),
                    "alpha",
                    alpha[v],
                    Rule::Between(0.0.into(), 1.0.into()),
                ));
            }
        }
        let mut local = Vec::with_capacity(succ_offsets[n] - first);
        let mut indeg = vec![0usize; n];
        for v in 0..n {
            let mut last = v;
            for &s in &succ[succ_offsets[v]..succ_offsets[v + 1]] {
                let s = s.wrapping_sub(base);
                if s >= n || s <= last {
                    return Err(Error::invalid(
                        task(v),
                        "successor",
                        s.wrapping_add(base),
                        format!(
                            "must be a task of this PTG above {v}, lists increasing \
                             (tasks are numbered in topological order)"
                        ),
                    ));
                }
                last = s;
                indeg[s] += 1;
                local.push(s);
            }
        }
        let offsets: Vec<usize> = succ_offsets.iter().map(|&o| o - first).collect();
        if let Some(v) = (1..n).find(|&v| indeg[v] == 0) {
            return Err(Error::invalid_item(
                task(v),
                "has no predecessor: task 0 must be the only entry",
            ));
        }
        if let Some(v) = (0..n - 1).find(|&v| offsets[v] == offsets[v + 1]) {
            return Err(Error::invalid_item(
                task(v),
                format!("has no successor: task {} must be the only exit", n - 1),
            ));
        }
        // Predecessor CSR: scanning sources in increasing order keeps each list sorted.
        let mut pred_offsets = vec![0usize; n + 1];
        for v in 0..n {
            pred_offsets[v + 1] = pred_offsets[v] + indeg[v];
        }
        let mut fill = pred_offsets.clone();
        let mut pred = vec![0usize; local.len()];
        for v in 0..n {
            for &s in &local[offsets[v]..offsets[v + 1]] {
                pred[fill[s]] = v;
                fill[s] += 1;
            }
        }
        Ok(Ptg {
            work,
            alpha,
            succ_offsets: offsets,
            succ: local,
            pred_offsets,
            pred,
        })
    }

    /// Number of tasks.
    pub fn len(&self) -> usize {
        self.work.len()
    }

    /// Always false: a PTG has at least its entry task.
    pub fn is_empty(&self) -> bool {
        self.work.is_empty()
    }

    /// Sequential work of each task (flop).
    pub fn work(&self) -> &[f64] {
        &self.work
    }

    /// Amdahl serial fraction of each task.
    pub fn alpha(&self) -> &[f64] {
        &self.alpha
    }

    /// Successors of task `v`, increasing.
    #[inline]
    pub fn succ(&self, v: usize) -> &[usize] {
        &self.succ[self.succ_offsets[v]..self.succ_offsets[v + 1]]
    }

    /// Predecessors of task `v`, increasing.
    #[inline]
    pub fn pred(&self, v: usize) -> &[usize] {
        &self.pred[self.pred_offsets[v]..self.pred_offsets[v + 1]]
    }

    /// Number of edges.
    pub fn num_edges(&self) -> usize {
        self.succ.len()
    }

    /// `T(v, p)` of task `v` (see [`exec_time`]).
    #[inline]
    pub fn time(&self, v: usize, p: u32, speed: f64) -> f64 {
        exec_time(self.work[v], self.alpha[v], p, speed)
    }

    /// Precedence level of every task: the number of edges on a longest
    /// path from the entry (entry 0, each task one below its deepest
    /// predecessor); `PTG.levels()` calls it.
    pub fn levels(&self) -> Vec<usize> {
        let mut level = vec![0usize; self.len()];
        for v in 0..self.len() {
            level[v] = self.pred(v).iter().map(|&u| level[u] + 1).max().unwrap_or(0);
        }
        level
    }

    /// Number of tasks of the largest precedence level (the width of CRA_WIDTH, RR-7224 §4.3).
    pub fn width(&self) -> usize {
        let levels = self.levels();
        let mut count = vec![0usize; self.len()];
        for &l in &levels {
            count[l] += 1;
        }
        count.into_iter().max().unwrap_or(0)
    }

    /// Checks an allocation: one count per task, each in `1..=procs`.
    pub(crate) fn check_alloc(&self, index: usize, alloc: &[u32], procs: u32) -> Result<()> {
        if alloc.len() != self.len() {
            return Err(Error::InvalidArgument(format!(
                "PTG {index}: {} allocations for {} tasks",
                alloc.len(),
                self.len()
            )));
        }
        match alloc.iter().position(|&a| a == 0 || a > procs) {
            Some(v) => Err(Error::InvalidArgument(format!(
                "PTG {index} task {v}: allocation == {}, must be between 1 and {procs}",
                alloc[v]
            ))),
            None => Ok(()),
        }
    }
}

/// Bottom level of every task of `g` whose task `v` runs on `alloc[v]`
/// processors: `bl[v] = T(v, alloc[v]) + max(bl[s] for s in succ(v))`
/// (`+ 0.0` for the exit), computed from `v = n - 1` down to 0, the maximum
/// taken with `>` from `0.0`. `bl[0]` is the critical-path length.
///
/// # Errors
/// [`Error::InvalidArgument`] for a bad speed or allocation (length, or a
/// count outside `1..=u32::MAX`).
pub fn bottom_levels(g: &Ptg, alloc: &[u32], speed: f64) -> Result<Vec<f64>> {
    check_speed(speed)?;
    g.check_alloc(0, alloc, u32::MAX)?;
    let durations: Vec<f64> = (0..g.len()).map(|v| g.time(v, alloc[v], speed)).collect();
    let mut bl = vec![0.0; g.len()];
    fill_bottom_levels(g, &durations, &mut bl);
    Ok(bl)
}

/// Bottom level of every task of `g` whose task `v` takes `durations[v]`
/// seconds: the recurrence of [`bottom_levels`] on given durations;
/// `PTG.bottom_levels()` calls it.
///
/// # Errors
/// [`Error::InvalidArgument`] when there is not one duration per task or a
/// duration is not `>= 0` (NaN included; `+inf` is a duration).
pub fn duration_bottom_levels(g: &Ptg, durations: &[f64]) -> Result<Vec<f64>> {
    if durations.len() != g.len() {
        return Err(Error::InvalidArgument(format!(
            "{} durations for {} tasks",
            durations.len(),
            g.len()
        )));
    }
    // A negative duration would be clamped by the `0.0` the maxima start from, and a NaN
    // skipped by `>`: neither is a longest path, so both are refused.
    if let Some(v) = durations.iter().position(|d| d.is_nan() || *d < 0.0) {
        return Err(Error::InvalidArgument(format!(
            "durations[{v}] == {}, must be >= 0 (seconds)",
            durations[v]
        )));
    }
    let mut bl = vec![0.0; g.len()];
    fill_bottom_levels(g, durations, &mut bl);
    Ok(bl)
}

/// Bottom levels from task durations, into `bl` (same length).
#[inline]
pub(crate) fn fill_bottom_levels(g: &Ptg, durations: &[f64], bl: &mut [f64]) {
    for v in (0..g.len()).rev() {
        let mut longest = 0.0;
        for &s in g.succ(v) {
            if bl[s] > longest {
                longest = bl[s];
            }
        }
        bl[v] = durations[v] + longest;
    }
}

/// Several PTGs scheduled together. A task is named by its *global id*:
/// `base(i) + v` for task `v` of PTG `i`, so the order of global ids is the
/// lexicographic order of `(i, v)` that breaks ties in every kernel.
#[derive(Debug, Clone, PartialEq)]
pub struct PtgSet {
    graphs: Vec<Ptg>,
    base: Vec<usize>,
    owner: Vec<usize>,
}

impl PtgSet {
    /// A set from its graphs, in order.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `graphs` is empty.
    pub fn new(graphs: Vec<Ptg>) -> Result<PtgSet> {
        if graphs.is_empty() {
            return Err(Error::InvalidArgument("no PTG to schedule: need at least one".into()));
        }
        let mut base = Vec::with_capacity(graphs.len() + 1);
        let mut owner = Vec::new();
        base.push(0);
        for (i, g) in graphs.iter().enumerate() {
            base.push(base[i] + g.len());
            owner.resize(owner.len() + g.len(), i);
        }
        Ok(PtgSet { graphs, base, owner })
    }

    /// A set from concatenated arrays: PTG `i` owns global tasks
    /// `ptg_offsets[i]..ptg_offsets[i + 1]`; `work`, `alpha` are per global
    /// task and `succ_offsets` / `succ` one CSR over global ids (an edge may
    /// not leave its PTG).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for inconsistent offsets;
    /// [`Error::Invalid`] naming the PTG (or its task) for a bad graph (see [`Ptg::new`]).
    pub fn from_flat(
        ptg_offsets: &[usize],
        work: &[f64],
        alpha: &[f64],
        succ_offsets: &[usize],
        succ: &[usize],
    ) -> Result<PtgSet> {
        let total = work.len();
        if ptg_offsets.len() < 2
            || ptg_offsets[0] != 0
            || ptg_offsets[ptg_offsets.len() - 1] != total
            || ptg_offsets.windows(2).any(|w| w[0] > w[1])
        {
            return Err(Error::InvalidArgument(format!(
                "ptg_offsets must rise from 0 to the {total} tasks, with at least one PTG"
            )));
        }
        if alpha.len() != total || succ_offsets.len() != total + 1 {
            return Err(Error::InvalidArgument(format!(
                "arrays differ in length: work {total}, alpha {}, succ_offsets {} (must be {})",
                alpha.len(),
                succ_offsets.len(),
                total + 1
            )));
        }
        if succ_offsets.windows(2).any(|w| w[0] > w[1]) || succ_offsets[total] > succ.len() {
            return Err(Error::InvalidArgument(format!(
                "succ_offsets must be non-decreasing and end within the {} successors",
                succ.len()
            )));
        }
        let graphs = ptg_offsets
            .windows(2)
            .enumerate()
            .map(|(i, w)| {
                let (lo, hi) = (w[0], w[1]);
                Ptg::build(
                    i,
                    work[lo..hi].to_vec(),
                    alpha[lo..hi].to_vec(),
                    &succ_offsets[lo..=hi],
                    succ,
                    lo,
                )
            })
            .collect::<Result<Vec<_>>>()?;
        PtgSet::new(graphs)
    }

    /// Number of PTGs.
    pub fn len(&self) -> usize {
        self.graphs.len()
    }

    /// Always false (a set holds at least one PTG).
    pub fn is_empty(&self) -> bool {
        self.graphs.is_empty()
    }

    /// Total number of tasks.
    pub fn num_tasks(&self) -> usize {
        self.owner.len()
    }

    /// PTG `i`.
    pub fn graph(&self, i: usize) -> &Ptg {
        &self.graphs[i]
    }

    /// The graphs, in order.
    pub fn graphs(&self) -> &[Ptg] {
        &self.graphs
    }

    /// Global id of PTG `i`'s first task; `base(len())` is the task count.
    #[inline]
    pub fn base(&self, i: usize) -> usize {
        self.base[i]
    }

    /// PTG index and local task index of global task `g`.
    #[inline]
    pub fn locate(&self, g: usize) -> (usize, usize) {
        let i = self.owner[g];
        (i, g - self.base[i])
    }

    /// `T` of global task `g` on `p` processors.
    #[inline]
    pub(crate) fn time(&self, g: usize, p: u32, speed: f64) -> f64 {
        let (i, v) = self.locate(g);
        self.graphs[i].time(v, p, speed)
    }

    /// Global ids of the predecessors of global task `g`, increasing.
    #[inline]
    pub(crate) fn preds(&self, g: usize) -> impl Iterator<Item = usize> + '_ {
        let (i, v) = self.locate(g);
        let b = self.base[i];
        self.graphs[i].pred(v).iter().map(move |&u| u + b)
    }

    /// Global ids of the successors of global task `g`, increasing.
    #[inline]
    pub(crate) fn succs(&self, g: usize) -> impl Iterator<Item = usize> + '_ {
        let (i, v) = self.locate(g);
        let b = self.base[i];
        self.graphs[i].succ(v).iter().map(move |&s| s + b)
    }

    /// Number of predecessors of global task `g`.
    #[inline]
    pub(crate) fn num_preds(&self, g: usize) -> usize {
        let (i, v) = self.locate(g);
        self.graphs[i].pred(v).len()
    }

    /// Checks one allocation per global task, each in `1..=procs`.
    pub(crate) fn check_alloc(&self, alloc: &[u32], procs: u32) -> Result<()> {
        if alloc.len() != self.num_tasks() {
            return Err(Error::InvalidArgument(format!(
                "{} allocations for {} tasks",
                alloc.len(),
                self.num_tasks()
            )));
        }
        for (i, g) in self.graphs.iter().enumerate() {
            g.check_alloc(i, &alloc[self.base[i]..self.base[i + 1]], procs)?;
        }
        Ok(())
    }

    /// Checks one finite value per global task (`what` names it in errors).
    pub(crate) fn check_values(&self, what: &str, values: &[f64]) -> Result<()> {
        if values.len() != self.num_tasks() {
            return Err(Error::InvalidArgument(format!(
                "{} {what} values for {} tasks",
                values.len(),
                self.num_tasks()
            )));
        }
        match values.iter().position(|x| !x.is_finite()) {
            Some(g) => {
                let (i, v) = self.locate(g);
                Err(Error::InvalidArgument(format!(
                    "PTG {i} task {v}: {what} == {}, must be finite",
                    values[g]
                )))
            }
            None => Ok(()),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A random layered DAG with single entry 0 and exit n - 1.
    pub(crate) fn arb_ptg() -> impl Strategy<Value = Ptg> {
        (2usize..14)
            .prop_flat_map(|n| {
                (
                    Just(n),
                    prop::collection::vec(prop::bool::weighted(0.35), n * n),
                    prop::collection::vec(prop_oneof![Just(0.0), 1.0f64..1e3], n),
                    prop::collection::vec(0.0f64..=1.0, n),
                )
            })
            .prop_map(|(n, coin, mut work, alpha)| {
                let mut succ = vec![Vec::new(); n];
                for u in 0..n {
                    for v in u + 1..n {
                        if coin[u * n + v] {
                            succ[u].push(v);
                        }
                    }
                }
                // single entry and exit: 0 before every source, n - 1 after every sink
                for v in 1..n - 1 {
                    if !(0..v).any(|u| succ[u].contains(&v)) {
                        succ[0].insert(0, v);
                        succ[0].sort_unstable();
                        succ[0].dedup();
                    }
                    if succ[v].is_empty() {
                        succ[v].push(n - 1);
                    }
                }
                if succ[0].is_empty() || !(0..n - 1).any(|u| succ[u].contains(&(n - 1))) {
                    succ[0].push(n - 1);
                    succ[0].sort_unstable();
                    succ[0].dedup();
                }
                work[0] = work[0].max(0.0);
                let mut offsets = vec![0];
                let mut flat = Vec::new();
                for s in &succ {
                    flat.extend_from_slice(s);
                    offsets.push(flat.len());
                }
                Ptg::new(work, alpha, &offsets, &flat).unwrap()
            })
    }

    /// 1..4 random PTGs with random allocations in `1..=procs` and random
    /// priorities (with ties), and `procs`.
    pub(crate) fn arb_set() -> impl Strategy<Value = (PtgSet, Vec<u32>, Vec<f64>, u32)> {
        (prop::collection::vec(arb_ptg(), 1..4), 1u32..9).prop_flat_map(|(graphs, procs)| {
            let total: usize = graphs.iter().map(Ptg::len).sum();
            (
                Just(PtgSet::new(graphs).unwrap()),
                prop::collection::vec(1..=procs, total),
                prop::collection::vec((0u8..6).prop_map(f64::from), total),
                Just(procs),
            )
        })
    }

    /// A chain of tasks of these works (flop), alpha 0.
    pub(crate) fn chain(works: &[f64]) -> Ptg {
        let n = works.len();
        let offsets: Vec<usize> = (0..=n).map(|v| v.min(n - 1)).collect();
        let succ: Vec<usize> = (1..n).collect();
        Ptg::new(works.to_vec(), vec![0.0; n], &offsets, &succ).unwrap()
    }

    /// a -> {b, c} -> d with works 1, 8, 2, 1 flop and alpha 0 (the
    /// reference tests' fork-join).
    pub(crate) fn fork_join() -> Ptg {
        Ptg::new(vec![1.0, 8.0, 2.0, 1.0], vec![0.0; 4], &[0, 2, 3, 4, 4], &[1, 2, 3, 3]).unwrap()
    }

    #[test]
    fn builds_predecessors_and_levels() {
        let g = fork_join();
        assert_eq!((g.len(), g.num_edges()), (4, 4));
        assert_eq!(g.pred(3), &[1, 2]);
        assert_eq!(g.pred(0), &[] as &[usize]);
        assert_eq!(g.levels(), vec![0, 1, 1, 2]);
        assert_eq!(g.width(), 2);
        assert_eq!(g.time(1, 4, 1.0), 2.0);
        assert_eq!(exec_time(8e9, 0.25, 4, 2e9), 1.75);
    }

    #[test]
    fn bottom_levels_by_hand() {
        let g = fork_join();
        assert_eq!(bottom_levels(&g, &[2, 4, 1, 2], 1.0).unwrap(), vec![3.0, 2.5, 2.5, 0.5]);
        assert!(bottom_levels(&g, &[1, 1, 0, 1], 1.0).is_err());
        assert!(bottom_levels(&g, &[1, 1, 1], 1.0).is_err());
        assert!(bottom_levels(&g, &[1, 1, 1, 1], 0.0).is_err());
    }

    #[test]
    fn duration_bottom_levels_by_hand() {
        let g = fork_join();
        assert_eq!(
            duration_bottom_levels(&g, &[1.0, 5.0, 2.0, 0.5]).unwrap(),
            vec![6.5, 5.5, 2.5, 0.5]
        );
        let inf = duration_bottom_levels(&g, &[1.0, f64::INFINITY, 2.0, 0.0]).unwrap();
        assert_eq!(inf, vec![f64::INFINITY, f64::INFINITY, 2.0, 0.0]);
        let err = |d: &[f64]| duration_bottom_levels(&g, d).unwrap_err().to_string();
        assert!(err(&[1.0, 1.0, 1.0]).contains("3 durations for 4 tasks"));
        assert!(err(&[1.0, -1.0, 1.0, 1.0]).contains("durations[1] == -1, must be >= 0"));
        assert!(err(&[1.0, 1.0, 1.0, f64::NAN]).contains("durations[3] == NaN"));
    }

    proptest! {
        #[test]
        fn bottom_levels_are_the_bottom_levels_of_their_durations(
            (g, alloc) in arb_ptg().prop_flat_map(|g| {
                let n = g.len();
                (Just(g), prop::collection::vec(1u32..9, n))
            }),
        ) {
            let durations: Vec<f64> = (0..g.len()).map(|v| g.time(v, alloc[v], 3.0)).collect();
            prop_assert_eq!(bottom_levels(&g, &alloc, 3.0).unwrap(), duration_bottom_levels(&g, &durations).unwrap());
        }
    }

    #[test]
    fn rejects_bad_graphs() {
        let err = |w: Vec<f64>, a: Vec<f64>, o: &[usize], s: &[usize]| Ptg::new(w, a, o, s).unwrap_err().to_string();
        assert!(err(vec![], vec![], &[0], &[]).contains("no tasks"));
        assert!(err(vec![-1.0], vec![0.0], &[0, 0], &[]).contains("task 0: work == -1"));
        assert!(err(vec![1.0], vec![1.5], &[0, 0], &[]).contains("alpha == 1.5"));
        assert!(err(vec![1.0, 1.0], vec![0.0; 2], &[0, 0, 1], &[0]).contains("successor == 0"));
        assert!(err(vec![1.0; 3], vec![0.0; 3], &[0, 1, 1, 1], &[2]).contains("task 1: Other(\"has no predecessor"));
        assert!(err(vec![1.0; 3], vec![0.0; 3], &[0, 2, 2, 2], &[1, 2]).contains("task 1: Other(\"has no successor"));
        assert!(err(vec![1.0; 2], vec![0.0; 2], &[0, 2, 2], &[1, 1]).contains("increasing"));
        assert!(err(vec![f64::NAN], vec![0.0], &[0, 0], &[]).contains("work == NaN"));
    }

    #[test]
    fn flat_sets_name_the_ptg() {
        // PTG 0: one task; PTG 1: 0 -> 1 (global 1 -> 2).
        let set = PtgSet::from_flat(&[0, 1, 3], &[1.0, 2.0, 3.0], &[0.0; 3], &[0, 0, 1, 1], &[2]).unwrap();
        assert_eq!((set.len(), set.num_tasks(), set.base(1)), (2, 3, 1));
        assert_eq!(set.locate(2), (1, 1));
        assert_eq!(set.preds(2).collect::<Vec<_>>(), vec![1]);
        assert_eq!(set.graph(1).succ(0), &[1]);
        // an edge leaving its PTG
        let e = PtgSet::from_flat(&[0, 2, 3], &[1.0; 3], &[0.0; 3], &[0, 1, 1, 1], &[2]).unwrap_err();
        assert!(
            matches!(&e, Error::Invalid(i) if i.item == Item::Task { ptg: Some(0), task: 0 }),
            "{e:?}"
        );
        let e = PtgSet::from_flat(&[0, 1, 2], &[1.0, -2.0], &[0.0; 2], &[0, 0, 0], &[]).unwrap_err();
        assert_eq!(
            e,
            Error::invalid(
                Item::Task { ptg: Some(1), task: 0 },
                "work",
                -2.0,
                Rule::AtLeast(0.0.into())
            )
            .noted("flop")
        );
        assert!(PtgSet::from_flat(&[0, 2], &[1.0], &[0.0], &[0, 0], &[]).is_err());
        assert!(PtgSet::new(vec![]).is_err());
    }
}
