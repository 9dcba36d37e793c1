//! The lower bound on the optimal maximum (bounded) stretch of §3.1,
//! Theorem 1, of Stillwell, Vivien & Casanova, "Dynamic Fractional Resource
//! Scheduling vs. Batch Scheduling" (INRIA RR-7659 / IEEE TPDS 2012).
//!
//! # The feasibility test
//!
//! Theorem 1 assumes infinite memory and free, instantaneous migration of
//! tasks. A target stretch `S` gives every job `j` the deadline
//! `d_j = r_j + S * q_j`; the paper writes `q_j = p_j`, and for the bounded
//! stretch (threshold `tau`, 10 s in the paper) `q_j = max(tau, p_j)`,
//! because the bounded stretch `max(1, (C_j - r_j) / max(tau, p_j))` is at
//! most `S >= 1` exactly when `C_j <= r_j + S * max(tau, p_j)`.
//! The release dates and deadlines cut time into intervals `t` of length
//! `l(t)`. With `k_j = c_j * |T_j|` (CPU need times task count, the rate at
//! which job `j` does work at full speed) and `w_j = p_j * k_j` (its work),
//! Linear System (1) in work units `x_jt = alpha_jt * w_j` reads
//!
//! * (1a) `sum_t x_jt = w_j` for every job;
//! * (1b, 1c) `x_jt = 0` unless `t` lies inside `[r_j, d_j)`;
//! * (1d) `x_jt <= k_j * l(t)` (a task never runs longer than the interval);
//! * (1e) `sum_j x_jt <= |P| * l(t)` (the cluster's CPU in the interval).
//!
//! That is a transportation problem, so it has a solution exactly when the
//! maximum flow of the network source -> job `j` (capacity `w_j`) ->
//! interval `t` (capacity `k_j * l(t)`, for `t` in the job's window) ->
//! sink (capacity `|P| * l(t)`) saturates every source arc. Nothing else
//! of the platform enters the bound: memory (Theorem 1 assumes it
//! infinite), the packing of tasks onto individual nodes and the
//! rescheduling penalty (migration is free) are ignored, as in the paper.
//!
//! # The search on S
//!
//! Feasibility is monotone in `S` (deadlines only move later). Instead of
//! bisecting, [`StretchBound::lower_bound`] runs a Newton-like iteration
//! on minimum cuts, which is exact. At an infeasible `S`, the minimum cut
//! puts a set `A` of jobs on the source side; for every `S'` the capacity
//! `h_A(S') = sum_{j not in A} w_j + integral of min(|P|, K_A(tau; S')) dtau`,
//! where `K_A` is the total rate of the jobs of `A` whose window
//! `[r_j, r_j + S' q_j)` contains `tau`, is the capacity of a cut of the
//! network at `S'`, so `maxflow(S') <= h_A(S')`. `h_A` is nondecreasing,
//! so no `S'` below the root of `h_A(S') = sum_j w_j` is feasible: that
//! root is the next iterate, and the iterates increase towards the optimal
//! `S*` from below. Each iteration has a new cut set `A` (an earlier `A`
//! already reaches the total work at the new iterate), so the iteration
//! ends, at `S*`, after finitely many maximum flows (a handful in
//! practice). Rounding makes "saturated" mean "within a relative
//! [`FEASIBILITY_TOLERANCE`] of the total work"; should the iteration stall
//! on rounding or exceed [`MAX_NEWTON_STEPS`], a bisection between the
//! last infeasible iterate and a feasible stretch finishes the search.
//!
//! # A proven lower bound despite rounding
//!
//! The search computes in floating point, so its last iterate can land a
//! few ulps above the exact `S*` (it did: `46/45` came out as the float one
//! ulp above it). The returned value is therefore *certified*: the search
//! keeps the cut `A` whose root is its answer, and the answer is stepped
//! down to the largest float `S` it finds at which an upper bound of
//! `h_A(S)`, computed with directed rounding (every sum and product
//! rounded outwards using the exact error terms of TwoSum and fused
//! multiply-add; deadlines rounded up, which only widens the windows), is
//! strictly below a lower bound of the total work. Then the exact
//! `maxflow(S) <= h_A(S) < sum_j w_j`, so `S` is infeasible and `S < S*`
//! in exact arithmetic on the input floats. The step costs a few cut
//! evaluations (`O(n log n)` each, no maximum flow) and gives up a few
//! ulps: on 1000-job traces the answer is within about `1e-13` of `S*`.
//! The result is at least 1 (a bounded stretch is never below 1, so 1
//! needs no proof).

use super::maxflow::{FlowBuilder, FlowNetwork};
use crate::error::{Error, Item, Result, Rule};

/// Relative shortfall of the total work below which a flow counts as
/// saturating every job.
pub const FEASIBILITY_TOLERANCE: f64 = 1e-10;

/// Relative size (to the largest capacity) below which a residual capacity
/// counts as zero in the maximum flow.
const RESIDUAL_TOLERANCE: f64 = 1e-13;

/// Newton steps on cuts before falling back to bisection.
pub const MAX_NEWTON_STEPS: usize = 200;

/// Relative width at which the fallback bisection stops.
const BISECTION_WIDTH: f64 = 1e-10;

/// Largest flow network (arcs) built before giving up with an error rather
/// than exhausting memory.
const MAX_ARCS: usize = 400_000_000;

/// Largest task or node count: every integer up to it is an exact `f64`,
/// which the certificate's exact arithmetic relies on.
const MAX_COUNT: u64 = 1 << 53;

/// Products below this magnitude may have an inexact fused-multiply-add
/// error term (underflow); they are rounded outwards by a whole ulp.
const TINY_PRODUCT: f64 = 1e-250;

/// `a + b` rounded towards +inf: TwoSum gives the exact error of the
/// rounded sum, whose sign says on which side the exact sum lies.
fn add_up(a: f64, b: f64) -> f64 {
    let s = a + b;
    if !s.is_finite() {
        return s;
    }
    let bb = s - a;
    let error = (a - (s - bb)) + (b - bb);
    if error > 0.0 {
        s.next_up()
    } else {
        s
    }
}

/// `a + b` rounded towards -inf (see [`add_up`]).
fn add_down(a: f64, b: f64) -> f64 {
    -add_up(-a, -b)
}

/// `a * b` rounded towards +inf: the fused multiply-add `a * b - p` is
/// the exact error of the rounded product `p` (away from underflow).
fn mul_up(a: f64, b: f64) -> f64 {
    let p = a * b;
    if !p.is_finite() || a == 0.0 || b == 0.0 {
        return p;
    }
    if p.abs() < TINY_PRODUCT {
        return p.next_up();
    }
    if a.mul_add(b, -p) > 0.0 {
        p.next_up()
    } else {
        p
    }
}

/// `a * b` rounded towards -inf (see [`mul_up`]).
fn mul_down(a: f64, b: f64) -> f64 {
    -mul_up(-a, b)
}

/// The jobs and platform of a Theorem 1 bound, validated; jobs without work
/// (`p_j = 0`) are left out, since they constrain nothing.
#[derive(Debug, Clone)]
pub struct StretchBound {
    release: Vec<f64>,
    /// `q_j = max(threshold, p_j)`: the deadline is `r_j + S * q_j`.
    stretch_unit: Vec<f64>,
    /// `k_j = c_j * |T_j|`: work per second at full speed.
    rate: Vec<f64>,
    /// `w_j = p_j * k_j`.
    work: Vec<f64>,
    /// Shortest time each job needs: `p_j * max(1, k_j / |P|)`.
    min_span: Vec<f64>,
    /// Floats just below and above the exact `c_j * |T_j|` (equal when exact).
    rate_below: Vec<f64>,
    rate_above: Vec<f64>,
    /// A float at least the exact `p_j * c_j * |T_j|`.
    work_above: Vec<f64>,
    nodes: f64,
    total_work: f64,
    /// A float at most the exact total work.
    total_work_below: f64,
}

/// A maximum flow of the Theorem 1 network at one stretch.
#[derive(Debug, Clone)]
pub struct FlowAtStretch {
    /// The value of the maximum flow (work units).
    pub value: f64,
    /// The total work of the jobs.
    pub total_work: f64,
    /// For each job (of those with work, in input order), whether it is on
    /// the source side of the minimum cut found.
    pub source_side: Vec<bool>,
    /// Arcs in the network.
    pub arcs: usize,
}

impl FlowAtStretch {
    /// True when the flow saturates the jobs' total work (within
    /// [`FEASIBILITY_TOLERANCE`]).
    pub fn feasible(&self) -> bool {
        self.value >= self.total_work * (1.0 - FEASIBILITY_TOLERANCE)
    }
}

/// The outcome of [`StretchBound::lower_bound`].
#[derive(Debug, Clone, PartialEq)]
pub struct BoundSearch {
    /// The lower bound on the optimal maximum bounded stretch (>= 1), never
    /// above the exact optimum (see the module documentation).
    pub stretch: f64,
    /// Maximum flows computed.
    pub max_flows: usize,
    /// Newton steps taken on cuts.
    pub newton_steps: usize,
    /// True when the search ended with the fallback bisection.
    pub bisection: bool,
}

impl StretchBound {
    /// Validates the jobs (parallel slices, one entry per job) and platform.
    ///
    /// * `submit`: release dates `r_j`, finite;
    /// * `processing_time`: `p_j`, finite and `>= 0` (dedicated run time);
    /// * `cpu_need`: `c_j`, in `(0, 1]`;
    /// * `tasks`: `|T_j|`, `>= 1`;
    /// * `nodes`: `|P|`, `>= 1`;
    /// * `threshold`: the bounded-stretch threshold `tau` (s), finite and `>= 0`.
    ///
    /// A job with `p_j > 0` and `max(tau, p_j) = 0` cannot happen; a job
    /// with `p_j = 0` is dropped from the bound (it has no work).
    pub fn new(
        submit: &[f64],
        processing_time: &[f64],
        cpu_need: &[f64],
        tasks: &[u64],
        nodes: u64,
        threshold: f64,
    ) -> Result<Self> {
        let n = submit.len();
        if processing_time.len() != n || cpu_need.len() != n || tasks.len() != n {
            return Err(Error::InvalidArgument(format!(
                "submit, processing_time, cpu_need and tasks differ in length: {}, {}, {}, {}",
                n,
                processing_time.len(),
                cpu_need.len(),
                tasks.len()
            )));
        }
        if nodes == 0 {
            return Err(Error::InvalidArgument("nodes == 0, must be >= 1".into()));
        }
        if nodes > MAX_COUNT {
            return Err(Error::InvalidArgument(format!(
                "nodes == {nodes}, must be at most {MAX_COUNT}"
            )));
        }
        if !(threshold.is_finite() && threshold >= 0.0) {
            return Err(Error::InvalidArgument(format!(
                "threshold == {threshold}, must be finite and >= 0"
            )));
        }
        let mut bound = StretchBound {
            release: Vec::with_capacity(n),
            stretch_unit: Vec::with_capacity(n),
            rate: Vec::with_capacity(n),
            work: Vec::with_capacity(n),
            min_span: Vec::with_capacity(n),
            rate_below: Vec::with_capacity(n),
            rate_above: Vec::with_capacity(n),
            work_above: Vec::with_capacity(n),
            nodes: nodes as f64,
            total_work: 0.0,
            total_work_below: 0.0,
        };
        for j in 0..n {
            let job = Item::Job(j);
            let (r, p, c, k) = (submit[j], processing_time[j], cpu_need[j], tasks[j]);
            if !r.is_finite() {
                return Err(Error::invalid(job, "submit", r, Rule::Finite));
            }
            if !(p.is_finite() && p >= 0.0) {
                return Err(Error::invalid(job, "processing_time", p, Rule::AtLeast(0.0.into())));
            }
            if !(c > 0.0 && c <= 1.0) {
                return Err(Error::invalid(
                    job,
                    "cpu_need",
                    c,
                    Rule::AboveUpTo(0.0.into(), 1.0.into()),
                ));
            }
            if k == 0 {
                return Err(Error::invalid(job, "tasks", k, Rule::AtLeast(1i64.into())));
            }
            if k > MAX_COUNT {
                return Err(Error::invalid(job, "tasks", k, Rule::AtMost(MAX_COUNT.into())));
            }
            if p == 0.0 {
                continue;
            }
            let rate = c * k as f64;
            bound.release.push(r);
            bound.stretch_unit.push(threshold.max(p));
            bound.rate.push(rate);
            bound.work.push(p * rate);
            bound.min_span.push(p * (rate / bound.nodes).max(1.0));
            let (below, above) = (mul_down(c, k as f64), mul_up(c, k as f64));
            bound.rate_below.push(below);
            bound.rate_above.push(above);
            bound.work_above.push(mul_up(p, above));
            bound.total_work_below = add_down(bound.total_work_below, mul_down(p, below));
        }
        bound.total_work = bound.work.iter().sum();
        Ok(bound)
    }

    /// Number of jobs with work (those the bound uses).
    pub fn jobs(&self) -> usize {
        self.release.len()
    }

    /// Total work of the jobs, in CPU-seconds of a node.
    pub fn total_work(&self) -> f64 {
        self.total_work
    }

    /// The smallest stretch each job allows on its own: `max(1, max_j min_span_j / q_j)`.
    pub fn trivial_bound(&self) -> f64 {
        self.min_span
            .iter()
            .zip(&self.stretch_unit)
            .map(|(s, q)| s / q)
            .fold(1.0, f64::max)
    }

    fn check_stretch(stretch: f64) -> Result<()> {
        if stretch.is_finite() && stretch > 0.0 {
            Ok(())
        } else {
            Err(Error::InvalidArgument(format!(
                "stretch == {stretch}, must be finite and > 0"
            )))
        }
    }

    /// The maximum flow of the Theorem 1 network with deadlines
    /// `r_j + stretch * q_j`, and the source side of a minimum cut.
    pub fn max_flow_at(&self, stretch: f64) -> Result<FlowAtStretch> {
        Self::check_stretch(stretch)?;
        let n = self.jobs();
        let deadline: Vec<f64> = (0..n)
            .map(|j| self.release[j] + stretch * self.stretch_unit[j])
            .collect();
        let mut points: Vec<f64> = self.release.iter().chain(&deadline).copied().collect();
        points.sort_unstable_by(f64::total_cmp);
        points.dedup();
        let intervals = points.len().saturating_sub(1);
        let index = |x: f64| points.partition_point(|&p| p < x);
        let window: Vec<(usize, usize)> = (0..n).map(|j| (index(self.release[j]), index(deadline[j]))).collect();
        let length: Vec<f64> = points.windows(2).map(|w| w[1] - w[0]).collect();

        let job_arcs: usize = window.iter().map(|&(lo, hi)| hi.saturating_sub(lo)).sum();
        let arcs = n + job_arcs + intervals;
        if arcs > MAX_ARCS {
            return Err(Error::InvalidArgument(format!(
                "the Theorem 1 network at stretch {stretch} would have {arcs} arcs (limit {MAX_ARCS})"
            )));
        }
        let source = 0;
        let sink = 1 + n + intervals;
        let job_node = |j: usize| 1 + j;
        let interval_node = |i: usize| 1 + n + i;
        let mut builder = FlowBuilder::with_capacity(sink + 1, arcs);
        let mut largest = 0.0f64;
        for j in 0..n {
            builder.add_arc(source, job_node(j), self.work[j])?;
            largest = largest.max(self.work[j]);
        }
        let mut first_arc = Vec::with_capacity(n);
        for j in 0..n {
            first_arc.push(builder.arcs());
            let (lo, hi) = window[j];
            for (i, &len) in length.iter().enumerate().take(hi).skip(lo) {
                builder.add_arc(job_node(j), interval_node(i), self.rate[j] * len)?;
            }
        }
        let sink_arcs = builder.arcs();
        for (i, &len) in length.iter().enumerate() {
            let capacity = self.nodes * len;
            builder.add_arc(interval_node(i), sink, capacity)?;
            largest = largest.max(capacity);
        }
        let mut network = builder.build(RESIDUAL_TOLERANCE * largest);
        let warm = self.warm_start(&mut network, &deadline, &window, &length, &first_arc, sink_arcs)?;
        let value = warm + network.max_flow(source, sink)?;
        let side = network.source_side(source);
        Ok(FlowAtStretch {
            value,
            total_work: self.total_work,
            source_side: (0..n).map(|j| side[job_node(j)]).collect(),
            arcs,
        })
    }

    /// Loads a feasible flow found greedily: jobs by earliest deadline
    /// (ties by index), each filling its window's intervals from the
    /// earliest. Returns its value; Dinic augments from there.
    fn warm_start(
        &self,
        network: &mut FlowNetwork,
        deadline: &[f64],
        window: &[(usize, usize)],
        length: &[f64],
        first_arc: &[usize],
        sink_arcs: usize,
    ) -> Result<f64> {
        let n = self.jobs();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| deadline[a].total_cmp(&deadline[b]).then(a.cmp(&b)));
        let mut used = vec![0.0f64; length.len()];
        let mut total = 0.0;
        for j in order {
            let (lo, hi) = window[j];
            let mut sent = 0.0;
            for i in lo..hi {
                let arc = first_arc[j] + (i - lo);
                let room = network.residual(arc).min(self.nodes * length[i] - used[i]);
                let amount = room.min(self.work[j] - sent);
                if amount > 0.0 {
                    network.push(arc, amount)?;
                    used[i] += amount;
                    sent += amount;
                }
                if sent >= self.work[j] {
                    break;
                }
            }
            // Source arc j is arc j; never push more than it holds.
            let sent = sent.min(network.residual(j));
            network.push(j, sent)?;
            total += sent;
        }
        for (i, &u) in used.iter().enumerate() {
            network.push(sink_arcs + i, u.min(network.residual(sink_arcs + i)))?;
        }
        Ok(total)
    }

    /// True when some schedule meets every deadline `r_j + stretch * q_j`
    /// under Theorem 1's assumptions (see the module documentation).
    pub fn feasible(&self, stretch: f64) -> Result<bool> {
        Ok(self.max_flow_at(stretch)?.feasible())
    }

    /// `h_A(stretch)`: the capacity, at `stretch`, of the cut whose source
    /// side holds the jobs `in_cut` (and the intervals where their total
    /// rate exceeds `|P|`). An upper bound on the maximum flow at `stretch`.
    pub fn cut_capacity(&self, in_cut: &[bool], stretch: f64) -> Result<f64> {
        Self::check_stretch(stretch)?;
        if in_cut.len() != self.jobs() {
            return Err(Error::InvalidArgument(format!(
                "in_cut has {} entries, the bound has {} jobs with work",
                in_cut.len(),
                self.jobs()
            )));
        }
        let mut outside = 0.0;
        let mut events: Vec<(f64, f64)> = Vec::new();
        for j in 0..self.jobs() {
            if in_cut[j] {
                events.push((self.release[j], self.rate[j]));
                events.push((self.release[j] + stretch * self.stretch_unit[j], -self.rate[j]));
            } else {
                outside += self.work[j];
            }
        }
        events.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
        let mut inside = 0.0;
        let mut active = 0.0f64;
        let mut last = f64::NEG_INFINITY;
        for (time, delta) in events {
            if active > 0.0 {
                inside += active.min(self.nodes) * (time - last);
            }
            active += delta;
            last = time;
        }
        Ok(outside + inside)
    }

    /// The smallest stretch at least `from` at which `h_A` reaches the
    /// total work (to within one rounding step); `None` if it never does
    /// or already does at `from`.
    fn cut_root(&self, in_cut: &[bool], from: f64) -> Result<Option<f64>> {
        let target = self.total_work;
        if self.cut_capacity(in_cut, from)? >= target {
            return Ok(None);
        }
        let mut low = from;
        let mut high = from * 2.0;
        while self.cut_capacity(in_cut, high)? < target {
            low = high;
            high *= 2.0;
            if !high.is_finite() {
                return Ok(None);
            }
        }
        // Bisect to adjacent floats; `high` keeps h_A >= target.
        loop {
            let mid = low + (high - low) / 2.0;
            if mid <= low || mid >= high {
                return Ok(Some(high));
            }
            if self.cut_capacity(in_cut, mid)? >= target {
                high = mid;
            } else {
                low = mid;
            }
        }
    }

    /// A float at least the exact `h_A(stretch)` (see [`Self::cut_capacity`]),
    /// computed with directed rounding on the exact input floats: deadlines
    /// rounded up (wider windows only raise the capacity), the running rate
    /// of the active jobs kept above the exact one (reset to 0 when no job is
    /// active), every sum and product rounded up.
    fn cut_capacity_above(&self, in_cut: &[bool], stretch: f64) -> f64 {
        let mut total = 0.0;
        // (time, job, true for a release, false for a deadline)
        let mut events: Vec<(f64, usize, bool)> = Vec::new();
        for j in 0..self.jobs() {
            if in_cut[j] {
                let deadline = add_up(self.release[j], mul_up(stretch, self.stretch_unit[j]));
                events.push((self.release[j], j, true));
                events.push((deadline, j, false));
            } else {
                total = add_up(total, self.work_above[j]);
            }
        }
        events.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
        let mut active_rate = 0.0f64;
        let mut active_jobs = 0usize;
        let mut last = f64::NEG_INFINITY;
        for (time, j, release) in events {
            if active_jobs > 0 {
                total = add_up(total, mul_up(active_rate.min(self.nodes), add_up(time, -last)));
            }
            if release {
                active_jobs += 1;
                active_rate = add_up(active_rate, self.rate_above[j]);
            } else {
                active_jobs -= 1;
                active_rate = if active_jobs == 0 {
                    0.0
                } else {
                    add_up(active_rate, -self.rate_below[j]).max(0.0)
                };
            }
            last = time;
        }
        total
    }

    /// True when the cut `in_cut` proves, in exact arithmetic, that no
    /// schedule meets the deadlines of `stretch`: its capacity is below the
    /// total work even with all rounding against the proof.
    fn proven_infeasible(&self, in_cut: &[bool], stretch: f64) -> bool {
        self.cut_capacity_above(in_cut, stretch) < self.total_work_below
    }

    /// The largest float at most `from` found to be proven infeasible by the
    /// cut `in_cut` (steps of 1, 2, 4, ... ulps down from `from`, then a
    /// bisection between the last unproven and the first proven float), or
    /// 1 if that would be 1 or less: a stretch strictly below the optimum,
    /// or the trivial bound 1.
    fn certified_below(&self, in_cut: &[bool], from: f64) -> f64 {
        if from <= 1.0 {
            return 1.0;
        }
        if self.proven_infeasible(in_cut, from) {
            return from;
        }
        let mut unproven = from;
        let mut gap = from * f64::EPSILON;
        let mut proven = loop {
            let s = from - gap;
            if s <= 1.0 {
                return 1.0;
            }
            if self.proven_infeasible(in_cut, s) {
                break s;
            }
            unproven = s;
            gap *= 2.0;
        };
        loop {
            let mid = proven + (unproven - proven) / 2.0;
            if mid <= proven || mid >= unproven {
                return proven;
            }
            if self.proven_infeasible(in_cut, mid) {
                proven = mid;
            } else {
                unproven = mid;
            }
        }
    }

    /// A stretch at which every job meets its deadline: all jobs one after
    /// the other from the last release date.
    fn feasible_stretch(&self) -> f64 {
        let last = self.release.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let end = last + self.min_span.iter().sum::<f64>();
        (0..self.jobs())
            .map(|j| (end - self.release[j]) / self.stretch_unit[j])
            .fold(1.0, f64::max)
    }

    /// The lower bound of Theorem 1 on the maximum bounded stretch: the
    /// smallest `S >= 1` for which Linear System (1) has a solution, from
    /// below, certified (a float proven strictly below the exact optimum, or
    /// 1; see the module documentation for the search and the certificate).
    /// With no job having work the bound is 1.
    pub fn lower_bound(&self) -> Result<BoundSearch> {
        let mut search = BoundSearch {
            stretch: 1.0,
            max_flows: 0,
            newton_steps: 0,
            bisection: false,
        };
        if self.jobs() == 0 {
            return Ok(search);
        }
        // The first iterate is the trivial bound, the root of the cut that
        // holds only the job it comes from: that cut certifies it.
        let mut stretch = self.trivial_bound();
        let mut certificate = vec![false; self.jobs()];
        let widest = (0..self.jobs())
            .max_by(|&a, &b| {
                (self.min_span[a] / self.stretch_unit[a]).total_cmp(&(self.min_span[b] / self.stretch_unit[b]))
            })
            .expect("at least one job");
        certificate[widest] = true;
        let mut infeasible_cut = loop {
            let flow = self.max_flow_at(stretch)?;
            search.max_flows += 1;
            if flow.feasible() {
                search.stretch = self.certified_below(&certificate, stretch);
                return Ok(search);
            }
            if search.newton_steps == MAX_NEWTON_STEPS {
                break flow.source_side;
            }
            match self.cut_root(&flow.source_side, stretch)? {
                Some(next) if next > stretch => {
                    stretch = next;
                    certificate = flow.source_side;
                    search.newton_steps += 1;
                }
                _ => break flow.source_side,
            }
        };
        // Fallback: bisection between the infeasible `stretch` and a feasible one.
        search.bisection = true;
        let mut low = stretch;
        let mut high = self.feasible_stretch().max(low * 2.0);
        let mut doublings = 0;
        loop {
            let flow = self.max_flow_at(high)?;
            search.max_flows += 1;
            if flow.feasible() {
                break;
            }
            low = high;
            infeasible_cut = flow.source_side;
            high *= 2.0;
            doublings += 1;
            if doublings > 64 || !high.is_finite() {
                return Err(Error::Infeasible(format!(
                    "no stretch up to {high} meets every deadline; the jobs' work cannot be scheduled"
                )));
            }
        }
        while high - low > BISECTION_WIDTH * high {
            let mid = low + (high - low) / 2.0;
            let flow = self.max_flow_at(mid)?;
            search.max_flows += 1;
            if flow.feasible() {
                high = mid;
            } else {
                low = mid;
                infeasible_cut = flow.source_side;
            }
        }
        search.stretch = self.certified_below(&infeasible_cut, low);
        Ok(search)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn bound(jobs: &[(f64, f64, f64, u64)], nodes: u64) -> StretchBound {
        let submit: Vec<f64> = jobs.iter().map(|j| j.0).collect();
        let p: Vec<f64> = jobs.iter().map(|j| j.1).collect();
        let c: Vec<f64> = jobs.iter().map(|j| j.2).collect();
        let t: Vec<u64> = jobs.iter().map(|j| j.3).collect();
        StretchBound::new(&submit, &p, &c, &t, nodes, 10.0).unwrap()
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
    }

    #[test]
    fn lone_job_has_stretch_one() {
        let b = bound(&[(0.0, 100.0, 1.0, 4)], 4);
        assert_eq!(b.lower_bound().unwrap().stretch, 1.0);
    }

    #[test]
    fn job_wider_than_cluster_is_slowed() {
        // 8 full tasks on 4 nodes: twice as long as alone on 8 nodes.
        let b = bound(&[(0.0, 100.0, 1.0, 8)], 4);
        assert!(close(b.lower_bound().unwrap().stretch, 2.0));
    }

    #[test]
    fn two_equal_jobs_on_one_node() {
        // Both released at 0, 100 s each on one node: the best max stretch
        // is 2 (they share the node and end together, or one waits).
        let b = bound(&[(0.0, 100.0, 1.0, 1), (0.0, 100.0, 1.0, 1)], 1);
        let s = b.lower_bound().unwrap();
        assert!(close(s.stretch, 2.0), "{s:?}");
        assert!(!s.bisection);
    }

    #[test]
    fn short_and_long_job_on_one_node() {
        // A long job (1000 s) at 0 and a short one (100 s) at 0 on one node:
        // the short first gives stretches 1 and 1.1; with both at stretch S
        // the deadlines are 100 S and 1000 S, and the node must do 1100 s of
        // work by 1000 S, so S = 1.1.
        let b = bound(&[(0.0, 1000.0, 1.0, 1), (0.0, 100.0, 1.0, 1)], 1);
        assert!(close(b.lower_bound().unwrap().stretch, 1.1));
    }

    #[test]
    fn bounded_stretch_uses_the_threshold() {
        // Two 1 s jobs at 0 on one node: with the threshold 10 s, deadlines
        // 10 S each, 2 s of work: feasible at S = 1.
        let b = bound(&[(0.0, 1.0, 1.0, 1), (0.0, 1.0, 1.0, 1)], 1);
        assert_eq!(b.lower_bound().unwrap().stretch, 1.0);
        // Threshold 0 (the paper's plain stretch): both deadlines are S and
        // 2 s of work must fit on the node by then, so S = 2.
        let b0 = StretchBound::new(&[0.0, 0.0], &[1.0, 1.0], &[1.0, 1.0], &[1, 1], 1, 0.0).unwrap();
        assert!(close(b0.lower_bound().unwrap().stretch, 2.0));
    }

    #[test]
    fn cpu_need_caps_the_rate() {
        // A 25% job cannot go faster on an empty node; two such jobs share
        // one node without slowing down.
        let b = bound(&[(0.0, 100.0, 0.25, 1), (0.0, 100.0, 0.25, 1)], 1);
        assert_eq!(b.lower_bound().unwrap().stretch, 1.0);
        // Five of them need 125% of a node: the deadlines 100 S must hold
        // 125 s of node time, S = 1.25.
        let five = vec![(0.0, 100.0, 0.25, 1); 5];
        assert!(close(bound(&five, 1).lower_bound().unwrap().stretch, 1.25));
    }

    #[test]
    fn the_bound_never_rounds_above_the_exact_optimum() {
        // One node. A: r 0, p 6, c 1 (q 10); B: r 1, p 35, c 0.5 (q 35). At
        // S* = 46/45 the node does A's 6 s and half of B's 35 s by B's
        // deadline. The search's last iterate was the float one ulp above
        // 46/45; 1.0222222222222221 is the float just below it.
        let b = bound(&[(0.0, 6.0, 1.0, 1), (1.0, 35.0, 0.5, 1)], 1);
        let s = b.lower_bound().unwrap().stretch;
        assert!(s <= 1.0222222222222221 && close(s, 46.0 / 45.0), "{s}");
        // S* = 8/7; 1.1428571428571428 is the float just below it.
        let b = bound(&[(3.0, 5.0, 0.5, 1), (0.0, 11.0, 1.0, 1)], 1);
        let s = b.lower_bound().unwrap().stretch;
        assert!(s <= 1.1428571428571428 && close(s, 8.0 / 7.0), "{s}");
        // An optimum that is a float (2) comes out just below it.
        let b = bound(&[(0.0, 100.0, 1.0, 1), (0.0, 100.0, 1.0, 1)], 1);
        let s = b.lower_bound().unwrap().stretch;
        assert!(s < 2.0 && close(s, 2.0), "{s}");
    }

    #[test]
    fn directed_rounding_brackets_the_exact_result() {
        // 0.1 + 0.2 and 0.1 * 3 round up to 0.30000000000000004; the exact
        // results (of the floats 0.1 and 0.2) lie just below it.
        let p: f64 = 0.1 + 0.2;
        assert_eq!((add_down(0.1, 0.2), add_up(0.1, 0.2)), (p.next_down(), p));
        assert_eq!((mul_down(0.1, 3.0), mul_up(0.1, 3.0)), (p.next_down(), p));
        // 1 + 2^-60 rounds down to 1.
        let tiny = 2f64.powi(-60);
        assert_eq!((add_down(1.0, tiny), add_up(1.0, tiny)), (1.0, 1.0f64.next_up()));
        assert_eq!((add_down(1.0, -tiny), add_up(1.0, -tiny)), (1.0f64.next_down(), 1.0));
        // Exact operations stay exact.
        assert_eq!((add_down(1.5, 2.25), add_up(1.5, 2.25)), (3.75, 3.75));
        assert_eq!((mul_down(0.25, 12.0), mul_up(0.25, 12.0)), (3.0, 3.0));
        assert_eq!((mul_down(-0.1, 3.0), mul_up(-0.1, 3.0)), (-p, -p.next_down()));
    }

    #[test]
    fn zero_work_jobs_are_ignored() {
        let b = bound(&[(0.0, 0.0, 1.0, 1), (5.0, 100.0, 1.0, 1)], 1);
        assert_eq!(b.jobs(), 1);
        assert_eq!(b.lower_bound().unwrap().stretch, 1.0);
        assert_eq!(bound(&[], 3).lower_bound().unwrap().stretch, 1.0);
    }

    #[test]
    fn bad_input_is_an_error() {
        let e = StretchBound::new(&[0.0, f64::NAN], &[1.0, 1.0], &[1.0, 1.0], &[1, 1], 1, 10.0).unwrap_err();
        assert_eq!(e.to_string(), "row 1: submit == NaN, Finite");
        assert!(StretchBound::new(&[0.0], &[-1.0], &[1.0], &[1], 1, 10.0).is_err());
        assert!(StretchBound::new(&[0.0], &[1.0], &[0.0], &[1], 1, 10.0).is_err());
        assert!(StretchBound::new(&[0.0], &[1.0], &[1.5], &[1], 1, 10.0).is_err());
        assert!(StretchBound::new(&[0.0], &[1.0], &[1.0], &[0], 1, 10.0).is_err());
        assert!(StretchBound::new(&[0.0], &[1.0], &[1.0], &[1], 0, 10.0).is_err());
        assert!(StretchBound::new(&[0.0], &[1.0], &[1.0], &[1], MAX_COUNT + 1, 10.0).is_err());
        assert!(StretchBound::new(&[0.0], &[1.0], &[1.0], &[MAX_COUNT + 1], 1, 10.0).is_err());
        assert!(StretchBound::new(&[0.0], &[1.0], &[1.0], &[1], 1, -1.0).is_err());
        assert!(StretchBound::new(&[0.0], &[1.0, 2.0], &[1.0], &[1], 1, 10.0).is_err());
        let b = bound(&[(0.0, 1.0, 1.0, 1)], 1);
        assert!(b.feasible(0.0).is_err());
        assert!(b.feasible(f64::INFINITY).is_err());
        assert!(b.cut_capacity(&[true, false], 1.0).is_err());
    }

    /// Instances of up to 7 jobs on up to 3 nodes with small integer data.
    fn instance() -> impl Strategy<Value = (Vec<(f64, f64, f64, u64)>, u64)> {
        (
            proptest::collection::vec((0u32..50, 1u32..60, 1u32..=4, 1u64..4), 1..8),
            1u64..4,
        )
            .prop_map(|(jobs, nodes)| {
                (
                    jobs.into_iter()
                        .map(|(r, p, c, t)| (f64::from(r), f64::from(p), f64::from(c) / 4.0, t))
                        .collect(),
                    nodes,
                )
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        /// The bound is feasible, a hair below it is not (unless it is 1),
        /// and every cut's capacity bounds the flow from above.
        #[test]
        fn bound_is_the_feasibility_threshold((jobs, nodes) in instance()) {
            let b = bound(&jobs, nodes);
            let s = b.lower_bound().unwrap();
            prop_assert!(s.stretch >= 1.0);
            prop_assert!(b.feasible(s.stretch * (1.0 + 1e-9)).unwrap());
            if s.stretch > 1.0 + 1e-9 {
                prop_assert!(!b.feasible(s.stretch * (1.0 - 1e-7)).unwrap());
            }
            let flow = b.max_flow_at(s.stretch * 0.9).unwrap();
            for probe in [0.5, 0.9, 1.3, 3.0] {
                let at = b.max_flow_at(s.stretch * probe).unwrap();
                prop_assert!(at.value <= b.cut_capacity(&flow.source_side, s.stretch * probe).unwrap() * (1.0 + 1e-12) + 1e-9);
            }
        }

        /// Directed rounding: the two results bracket the rounded one, at
        /// most one ulp apart, and coincide when the operation is exact
        /// (small integers).
        #[test]
        fn directed_rounding_is_one_ulp_wide(a in -1e6f64..1e6, b in -1e6f64..1e6, i in -1000i32..1000, k in -1000i32..1000) {
            for (low, high, near) in [(add_down(a, b), add_up(a, b), a + b), (mul_down(a, b), mul_up(a, b), a * b)] {
                prop_assert!(low <= near && near <= high);
                prop_assert!(low == near || high == near);
                prop_assert!(high == low || high == low.next_up());
            }
            let (x, y) = (f64::from(i), f64::from(k));
            prop_assert_eq!((add_down(x, y), add_up(x, y)), (x + y, x + y));
            prop_assert_eq!((mul_down(x, y), mul_up(x, y)), (x * y, x * y));
        }

        /// Feasibility is monotone in the stretch.
        #[test]
        fn feasibility_is_monotone((jobs, nodes) in instance(), a in 1.0f64..20.0, b in 1.0f64..20.0) {
            let bd = bound(&jobs, nodes);
            let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
            prop_assert!(bd.max_flow_at(lo).unwrap().value <= bd.max_flow_at(hi).unwrap().value * (1.0 + 1e-12) + 1e-9);
        }
    }
}
