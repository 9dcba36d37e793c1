//! The HCPA allocation loop (RR-7224 §4.1), with the processor budgets of CRA (§4.3).

use super::graph::{check_speed, fill_bottom_levels, Ptg, PtgSet};
use super::list::{list_schedule, Readiness};
use super::schedule::TaskSchedule;
use crate::error::{Error, Result};

/// Over how many processors HCPA's stopping criterion averages the area.
///
/// RR-7224 uses "the improved HCPA algorithm" of N'takpé, Suter & Casanova
/// (ISPDC 2007, its [23]) and says of it (§5.2.1) that it "bounds the number
/// of processors that can be used in a schedule as a way to increase
/// parallel efficiency", a bound that "can be more stringent than the bound
/// used by the CRA algorithms" with few concurrent PTGs. The text of [23] is
/// not available to us, so [`HcpaRule::Sqrt`] is a reading, named as such:
/// of the readings we weighed it is the one that reproduces RR-7224's
/// results (docs/hcpa.md has the evidence and the measurements);
/// [`HcpaRule::Cpa`] keeps CPA's own criterion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HcpaRule {
    /// CPA's criterion (Radulescu & van Gemund 2001): `T_A = area / P`.
    Cpa,
    /// `T_A = area / P'` with `P' = min(P, ceil(sqrt(P * R)))`, `R` the
    /// number of tasks of positive work (`P' = P` when there is none): the
    /// area is averaged over the geometric mean of the cluster size and the
    /// PTG's task count, which stops the loop far earlier than CPA when the
    /// cluster is much larger than the PTG.
    #[default]
    Sqrt,
}

impl HcpaRule {
    /// The rule by its name: `"sqrt"` or `"cpa"`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for any other name.
    pub fn from_name(name: &str) -> Result<Self> {
        match name {
            "sqrt" => Ok(HcpaRule::Sqrt),
            "cpa" => Ok(HcpaRule::Cpa),
            _ => Err(Error::InvalidArgument(format!(
                "rule == '{name}', must be 'sqrt' or 'cpa'"
            ))),
        }
    }

    /// The processor count `T_A` divides the area by for `g` on `procs` processors.
    pub(crate) fn divisor(self, g: &Ptg, procs: u32) -> u32 {
        match self {
            HcpaRule::Cpa => procs,
            HcpaRule::Sqrt => {
                let real = g.work().iter().filter(|&&w| w > 0.0).count() as u64;
                if real == 0 {
                    return procs;
                }
                let product = u64::from(procs).saturating_mul(real);
                // ceil(sqrt(product)) in integers, so that no float rounding
                // can move the divisor (the reference uses math.isqrt)
                let mut root = (product as f64).sqrt() as u64;
                while root.saturating_mul(root) < product {
                    root += 1;
                }
                while root > 0 && (root - 1).saturating_mul(root - 1) >= product {
                    root -= 1;
                }
                u32::try_from(root).map_or(procs, |r| r.min(procs))
            }
        }
    }
}

/// What HCPA may give a PTG.
///
/// With only `procs` set ([`HcpaLimits::cluster`]) this is HCPA on a
/// dedicated cluster of `procs` processors (SELFISH, Zhao, `C*_max`). The
/// CRA algorithms run the same loop on their budget `P_i` with
/// [`HcpaRule::Cpa`], which is SCRAP-MAX's criterion (`β' < β` reads
/// `area / T_CP < P_i`), and add its per-level bound (`max_level_procs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HcpaLimits {
    /// Processors the PTG is allocated on: no task gets more than `procs`,
    /// and the stopping rule averages the area over them (or fewer, by `rule`).
    pub procs: u32,
    /// A tighter upper bound on processors per task (`None`: `procs`).
    pub max_task_procs: Option<u32>,
    /// Most processors the tasks of one precedence level may hold together
    /// (`None`: no such bound). A task is a candidate for one more processor
    /// only while the allocations of its level sum to less than this bound.
    pub max_level_procs: Option<u32>,
    /// The stopping criterion's average area.
    pub rule: HcpaRule,
}

impl HcpaLimits {
    /// HCPA on a dedicated cluster of `procs` processors under `rule`.
    pub fn cluster(procs: u32, rule: HcpaRule) -> Self {
        HcpaLimits {
            procs,
            max_task_procs: None,
            max_level_procs: None,
            rule,
        }
    }
}

/// Processors per task of `g` by HCPA's allocation loop.
///
/// The CPA loop (Radulescu & van Gemund 2001) as HCPA runs it on one
/// homogeneous cluster (RR-7224 §4.1 citing the improved HCPA of N'takpé,
/// Suter & Casanova 2007), rule for rule the reference
/// `tests/reference/ptg.py::hcpa_allocation` with the same `rule`:
///
/// 1. `p[v] = 1` for every task.
/// 2. Repeat: `T[v] = T(v, p[v])`; bottom levels ([`super::bottom_levels`]'s
///    rule); `T_CP = bl[0]`; `area = Σ T[v] * p[v]` summed for `v = 0..n`
///    from `0.0`; `T_A = area / D` with `D` given by `limits.rule`
///    ([`HcpaRule`]: `P` or `min(P, ceil(sqrt(P R)))`). Stop unless `T_CP > T_A` (CPA's
///    criterion). Walk the critical path from task 0, each step to the
///    successor of largest `bl` (ties: lowest index). On it, the candidates
///    are the tasks below the per-task cap `P` (and, with a level bound,
///    whose level holds fewer than that bound); the selected one has the
///    largest CPA gain `T[v] / p[v] - T(v, p[v] + 1) / (p[v] + 1)`, ties to
///    the lowest index, among gains `> 0`. None: stop (the saturated
///    critical path of HCPA). Else `p[selected] += 1`.
///
/// The gain is CPA's (the paper's "smallest `T(v, p+1)/(p+1)`" read as the
/// decrease of the task's contribution to the average area, as in SCRAP's
/// Algorithm 1).
///
/// Fast, and still bit-identical to the reference: `T` and the gains are
/// computed ahead per task by the reference's expressions; an *exact*
/// iteration brings the bottom levels and the area up to date from the tasks
/// that changed (each value recomputed by the same rule, which gives the very
/// floats a full recomputation gives); between exact iterations, *certified*
/// iterations update only the selected task, as long as bounds with a
/// relative margin ([`certified_margin`]: 1e-9, growing with the task count
/// beyond some 1.1 million) prove that the path walk and the stopping criterion would
/// decide the same -- also many steps at once on an unchanged path, since
/// the greedy selection reaches the same state for a gain threshold in any
/// order. Any doubt means an exact iteration. (Tested for identity against
/// the reference on random PTGs, under both rules.)
///
/// # Errors
/// [`Error::InvalidArgument`] for a bad speed, `procs == 0`, a task cap
/// outside `1..=procs` or a level bound of 0.
pub fn hcpa_allocation(g: &Ptg, speed: f64, limits: &HcpaLimits) -> Result<Vec<u32>> {
    check_speed(speed)?;
    let procs = limits.procs;
    if procs == 0 {
        return Err(Error::InvalidArgument("procs == 0, must be >= 1".into()));
    }
    let cap = limits.max_task_procs.unwrap_or(procs);
    if cap == 0 || cap > procs {
        return Err(Error::InvalidArgument(format!(
            "max_task_procs == {cap}, must be between 1 and {procs}"
        )));
    }
    if limits.max_level_procs == Some(0) {
        return Err(Error::InvalidArgument("max_level_procs == 0, must be >= 1".into()));
    }
    let bounds = LoopBounds {
        divisor: f64::from(limits.rule.divisor(g, procs)),
        caps: TaskCaps::Uniform(cap),
        level_bound: limits.max_level_procs.map(f64::from),
        undo_overshoot: false,
    };
    allocation_loop(g, speed, &bounds)
}

/// Which tasks may take one more processor: task `v` only while `p[v] < cap(v)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TaskCaps<'a> {
    /// The same cap for every task (HCPA on one cluster, CRA).
    Uniform(u32),
    /// One cap per task (a heterogeneous platform: the largest reference
    /// allocation some cluster can still accommodate, see SCRAP).
    PerTask(&'a [u32]),
}

impl TaskCaps<'_> {
    #[inline]
    fn of(&self, v: usize) -> u32 {
        match self {
            TaskCaps::Uniform(c) => *c,
            TaskCaps::PerTask(caps) => caps[v],
        }
    }
}

/// The stopping condition and candidate guards of the one allocation loop
/// HCPA, CRA, SCRAP and SCRAP-MAX share ([`allocation_loop`]).
///
/// * HCPA / CRA: `divisor` = `D` of [`HcpaRule`] (or the budget `P_i`), a
///   uniform cap, an optional integer level bound, no undo.
/// * SCRAP (N'takpé & Suter 2007, Algorithm 1): `divisor = β · P_ref`, so
///   that "go on while `T_CP > area / divisor`" is "go on while
///   `β' = area / (T_CP · P_ref) < β`"; per-task caps from the clusters
///   (saturated critical path); `undo_overshoot` (the addition that makes
///   `β'` exceed `β` is cancelled).
/// * SCRAP-MAX (Algorithm 2): SCRAP plus `level_bound = β · P_ref`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoopBounds<'a> {
    /// The average area is `T_A = area / divisor`; the loop goes on while
    /// `T_CP > T_A`. Finite and `> 0`.
    pub divisor: f64,
    /// Per-task caps on the allocation.
    pub caps: TaskCaps<'a>,
    /// A task is a candidate only while the allocations of its precedence
    /// level sum to less than this (`None`: no bound). `> 0`.
    pub level_bound: Option<f64>,
    /// When the loop stops because `T_CP < T_A` after an addition, cancel
    /// that addition (SCRAP's "the last processor addition canceled"); at
    /// `T_CP == T_A` exactly (`β' == β`, not exceeding) it is kept.
    pub undo_overshoot: bool,
}

/// Processors per task of `g` by the allocation loop under `bounds`: the
/// loop of [`hcpa_allocation`] (whose documentation gives every rule), with
/// the stopping divisor, caps, level bound and overshoot undo taken from
/// `bounds`. [`hcpa_allocation`] is this function with the bounds of
/// [`HcpaLimits`]; SCRAP and SCRAP-MAX call it with theirs.
///
/// # Errors
/// [`Error::InvalidArgument`] for a bad speed, a divisor that is not finite
/// and `> 0`, a cap of 0 or a cap list of the wrong length, or a level bound
/// that is not `> 0`.
pub fn allocation_loop(g: &Ptg, speed: f64, bounds: &LoopBounds<'_>) -> Result<Vec<u32>> {
    check_speed(speed)?;
    let n = g.len();
    if !(bounds.divisor.is_finite() && bounds.divisor > 0.0) {
        return Err(Error::InvalidArgument(format!(
            "divisor == {}, must be finite and > 0",
            bounds.divisor
        )));
    }
    match bounds.caps {
        TaskCaps::Uniform(0) => return Err(Error::InvalidArgument("cap == 0, must be >= 1".into())),
        TaskCaps::PerTask(caps) if caps.len() != n => {
            return Err(Error::InvalidArgument(format!("{} caps for {n} tasks", caps.len())))
        }
        TaskCaps::PerTask(caps) => {
            if let Some(v) = caps.iter().position(|&c| c == 0) {
                return Err(Error::InvalidArgument(format!("task {v}: cap == 0, must be >= 1")));
            }
        }
        TaskCaps::Uniform(_) => {}
    }
    if let Some(bound) = bounds.level_bound {
        if bound.is_nan() || bound <= 0.0 {
            return Err(Error::InvalidArgument(format!("level bound == {bound}, must be > 0")));
        }
    }
    let mut state = LoopState::new(g, speed, *bounds);
    loop {
        state.bring_up_to_date();
        let (t_cp, area) = (state.bl[0], state.prefix[n]);
        // CPA's criterion: go on only while T_CP > T_A (never NaN: T is finite or +inf).
        if t_cp <= area / bounds.divisor {
            return Ok(state.stopped(t_cp, area));
        }
        state.walk_critical_path();
        let Some(at) = state.scan() else {
            return Ok(state.p);
        };
        if !state.certified_steps(at, t_cp, area) {
            return Ok(state.p);
        }
    }
}

/// The relative margin of the certified iterations of [`allocation_loop`]
/// when the sums they bound hold `terms` terms (the tasks plus the
/// additions made since the last exact iteration, at least one):
/// `max(1e-9, 8 · terms · u)`, `u = 2^-53` the unit roundoff.
///
/// Why: a certified iteration decides on float values that the next exact
/// iteration recomputes. `T_CP` is a sum of at most `n` nonnegative times
/// along the path and the area one of `n` nonnegative products, each
/// computed left to right, so each is within `γ_n · (its exact value)` of
/// it, `γ_m = m·u / (1 - m·u)` (Higham, *Accuracy and Stability of
/// Numerical Algorithms*, §4.2); the drops of one task are exact (two times
/// of one task within a factor 2 subtract exactly, Sterbenz), and the fall
/// and the area growth accumulate `k` terms, within `γ_k`. The criterion
/// `(T_CP - fall - 2·margin) · D > area + grown` compares quantities whose
/// errors add up to at most about `(4n + 2k + 2) · u · T_CP` (old and new
/// `T_CP`, old and new area, which is below `T_CP · D` while the loop goes
/// on, fall, growth, the product by `D`); a lead (a difference of two bottom
/// levels, minus the drops below) is off by at most about `(2n + k + 1) · u
/// · T_CP`. With `margin = 8 (n + k) u · T_CP` both are covered at least
/// twice. The floor 1e-9 is the margin the loop always had; it is the larger
/// one up to `n + k = 1e-9 / (8u)`, about 1.1 million, so below that nothing
/// changes (same iterations, same results), and above it the margin grows
/// with the sums (at the limit of 2^27 tasks, `8 · 2^27 · 2^-53 = 2^-23`,
/// about 1.2e-7). A larger margin only sends more iterations to the exact
/// path: it never changes an allocation.
pub fn certified_margin(terms: usize) -> f64 {
    const FLOOR: f64 = 1e-9;
    // 8 · terms · 2^-53, exact for terms < 2^50
    FLOOR.max(terms as f64 * (8.0 * 0.5 * f64::EPSILON))
}

/// The state of one run of [`allocation_loop`], and its named steps.
struct LoopState<'a> {
    g: &'a Ptg,
    speed: f64,
    bounds: LoopBounds<'a>,
    /// The precedence level of each task, with a level bound.
    levels: Option<Vec<usize>>,
    /// Processors held per level (with a level bound).
    held: Vec<u32>,
    /// The task that grew last, for SCRAP's undo.
    last: Option<usize>,
    /// Each task's T and gain for its next few allocations, computed ahead in
    /// one batch (independent divisions pipeline well).
    lanes: Vec<Lane>,
    p: Vec<u32>,
    t: Vec<f64>,
    gains: Vec<f64>,
    bl: Vec<f64>,
    /// prefix[v] = the reference's left-to-right area sum over tasks 0..v
    prefix: Vec<f64>,
    /// Tasks whose allocation grew since the last exact iteration.
    dirty: Vec<bool>,
    changed: Vec<usize>,
    /// The critical path, and at each of its tasks the lead of the path
    /// successor over its siblings (infinite without siblings).
    path: Vec<usize>,
    lead: Vec<f64>,
    target: Vec<(u32, f64)>,
    tour: Tournament,
}

impl<'a> LoopState<'a> {
    /// One processor per task, its times, gains, bottom levels and area.
    fn new(g: &'a Ptg, speed: f64, bounds: LoopBounds<'a>) -> Self {
        let n = g.len();
        let (work, alpha) = (g.work(), g.alpha());
        let levels = bounds.level_bound.map(|_| g.levels());
        let mut held = vec![0u32; levels.as_ref().map_or(0, |l| l.iter().max().map_or(0, |&m| m + 1))];
        if let Some(levels) = &levels {
            for &l in levels {
                held[l] += 1;
            }
        }
        let lanes: Vec<Lane> = (0..n).map(|v| Lane::new(1, work[v] / speed, alpha[v])).collect();
        let p = vec![1u32; n];
        let t: Vec<f64> = lanes.iter().map(|l| l.t[0]).collect();
        let gains: Vec<f64> = lanes.iter().map(|l| l.gain[0]).collect();
        let mut bl = vec![0.0; n];
        fill_bottom_levels(g, &t, &mut bl);
        let mut prefix = vec![0.0; n + 1];
        for v in 0..n {
            prefix[v + 1] = prefix[v] + t[v] * f64::from(p[v]);
        }
        LoopState {
            g,
            speed,
            bounds,
            levels,
            held,
            last: None,
            lanes,
            p,
            t,
            gains,
            bl,
            prefix,
            dirty: vec![false; n],
            changed: Vec::new(),
            path: Vec::with_capacity(n),
            lead: Vec::with_capacity(n),
            target: Vec::with_capacity(n),
            tour: Tournament::default(),
        }
    }

    /// An exact iteration's update: the bottom levels and the area brought up
    /// to date from the tasks that changed (the others' values are those the
    /// reference would recompute, bit for bit).
    fn bring_up_to_date(&mut self) {
        let n = self.g.len();
        let (Some(&low), Some(&high)) = (self.changed.iter().min(), self.changed.iter().max()) else {
            return;
        };
        for v in low..n {
            self.prefix[v + 1] = self.prefix[v] + self.t[v] * f64::from(self.p[v]);
        }
        for &v in &self.changed {
            self.dirty[v] = true;
        }
        self.changed.clear();
        // Decreasing index order is a reverse topological order: a bottom
        // level is recomputed after all its successors.
        for u in (0..=high).rev() {
            if !self.dirty[u] {
                continue;
            }
            self.dirty[u] = false;
            let mut longest = 0.0;
            for &s in self.g.succ(u) {
                if self.bl[s] > longest {
                    longest = self.bl[s];
                }
            }
            let value = self.t[u] + longest;
            if value != self.bl[u] {
                self.bl[u] = value;
                for &w in self.g.pred(u) {
                    self.dirty[w] = true;
                }
            }
        }
    }

    /// The allocation when CPA's criterion stops the loop: SCRAP's undo of an
    /// addition that overshot (`T_CP < T_A`), if asked for.
    fn stopped(mut self, t_cp: f64, area: f64) -> Vec<u32> {
        if let Some(v) = self.last {
            if self.bounds.undo_overshoot && t_cp < area / self.bounds.divisor {
                self.p[v] -= 1;
            }
        }
        self.p
    }

    /// The critical path from task 0, each step to the successor of largest
    /// bottom level (ties: lowest index), and the leads along it.
    fn walk_critical_path(&mut self) {
        self.path.clear();
        self.lead.clear();
        let bl = &self.bl;
        let mut v = 0;
        loop {
            self.path.push(v);
            let succ = self.g.succ(v);
            let Some(&first) = succ.first() else {
                self.lead.push(f64::INFINITY);
                break;
            };
            let mut next = first;
            for &s in succ {
                if bl[s] > bl[next] {
                    next = s;
                }
            }
            let mut least = f64::INFINITY;
            for &s in succ {
                if s != next {
                    least = least.min(bl[next] - bl[s]);
                }
            }
            self.lead.push(least);
            v = next;
        }
    }

    /// `v` may take one more processor: below its cap and, with a level
    /// bound, its level below the bound.
    fn room(&self, v: usize) -> bool {
        let level_room = match (self.bounds.level_bound, &self.levels) {
            (Some(bound), Some(levels)) => f64::from(self.held[levels[v]]) < bound,
            _ => true,
        };
        self.p[v] < self.bounds.caps.of(v) && level_room
    }

    /// The selection key of `v`: its gain if it is a candidate, else -inf.
    fn key(&self, v: usize) -> f64 {
        if self.room(v) {
            self.gains[v]
        } else {
            f64::NEG_INFINITY
        }
    }

    /// The selection: the position of the first path task of largest gain
    /// among the candidates with a gain > 0.
    fn scan(&self) -> Option<usize> {
        let mut best = (0.0, usize::MAX);
        for (i, &u) in self.path.iter().enumerate() {
            let k = self.key(u);
            if k > best.0 {
                best = (k, i);
            }
        }
        (best.1 != usize::MAX).then_some(best.1)
    }

    /// Gives `v` `q` processors (more than it has).
    fn grow_to(&mut self, v: usize, q: u32) {
        if let Some(levels) = &self.levels {
            self.held[levels[v]] += q - self.p[v];
        }
        self.p[v] = q;
        let (work, alpha) = (self.g.work()[v], self.g.alpha()[v]);
        (self.t[v], self.gains[v]) = self.lanes[v].at(q, work / self.speed, alpha);
        self.changed.push(v);
    }

    /// Certified fast iterations from the selected position `at`, on the
    /// path, bottom levels and area of the last exact iteration (`t_cp`,
    /// `area`). While only critical-path tasks grow, no bottom level rises,
    /// and the bottom level of the path task at position i + 1 falls by at
    /// most the decreases of the path tasks below it: while that stays under
    /// the lead at position i, the path walk keeps choosing the same
    /// successor there, and T_CP is the path's sum. If moreover T_CP - (its
    /// fall) clearly exceeds the average area, an exact iteration would
    /// decide as the selection on the known path does, which needs only the
    /// (exact) gains. "Clearly" is the margin of [`certified_margin`]; within
    /// it, or for infinite values, the next iteration is an exact one.
    ///
    /// Returns true when an exact iteration is due, false when the selection
    /// found no candidate (the loop stops).
    fn certified_steps(&mut self, mut at: usize, t_cp: f64, area: f64) -> bool {
        let n = self.g.len();
        let divisor = self.bounds.divisor;
        let fast = t_cp.is_finite() && area.is_finite();
        // additions since the exact iteration: terms of the fall and growth sums
        let mut added = 0usize;
        let (mut fall, mut grown) = (0.0, 0.0);
        // room[i]: the lead at position i minus the fall below it so far
        let mut room_min = self.lead.iter().copied().fold(f64::INFINITY, f64::min);
        let mut built = false;
        let mut bulk = self.path.len() > 1;
        let mut steps = 0;
        loop {
            let v = self.path[at];
            let (old_t, old_area) = (self.t[v], self.t[v] * f64::from(self.p[v]));
            self.grow_to(v, self.p[v] + 1);
            self.last = Some(v);
            added += 1;
            let drop = old_t - self.t[v];
            fall += drop;
            grown += self.t[v] * f64::from(self.p[v]) - old_area;
            for r in &mut self.lead[..at] {
                *r -= drop;
                room_min = room_min.min(*r);
            }
            let margin = certified_margin(n + added) * t_cp;
            if !fast || room_min <= margin || !certified(t_cp, area, divisor, margin, fall, grown) {
                return true;
            }
            steps += 1;
            if bulk && steps >= BULK_AFTER {
                match self.bulk_target(t_cp, area, fall, grown, n + added) {
                    Some((fall_to, grown_to, more)) => {
                        room_min = self.apply_bulk(room_min);
                        (fall, grown) = (fall_to, grown_to);
                        added += more;
                        built = false;
                    }
                    None => bulk = false,
                }
            }
            let next = if self.path.len() <= SCAN {
                self.scan()
            } else {
                let mut tour = std::mem::take(&mut self.tour);
                if built {
                    tour.set(at, self.key(v));
                } else {
                    tour.build(self.path.iter().map(|&u| self.key(u)));
                    built = true;
                }
                let best = tour.best();
                self.tour = tour;
                best
            };
            match next {
                Some(next) => at = next,
                None => return false,
            }
        }
    }

    /// Many steps at once: from here the greedy selection reaches, whatever
    /// its order, the state where each path task has grown until its gain is
    /// <= gamma (or it is capped). Along the way every fall and the area only
    /// grow, so if that end state is certified, so was every step to it.
    /// Positions are taken from the bottom, so that the fall below each one
    /// is known when it is checked. Fills `target` (per position: its new
    /// allocation and the fall below it) and returns the fall, growth and
    /// number of additions of the end state, or None if it is not certified.
    fn bulk_target(&mut self, t_cp: f64, area: f64, fall: f64, grown: f64, terms: usize) -> Option<(f64, f64, usize)> {
        let divisor = self.bounds.divisor;
        let most = self.path.iter().map(|&u| self.key(u)).fold(0.0, f64::max);
        let gamma = 0.5 * most;
        let (mut fall_to, mut grown_to) = (fall, grown);
        let mut below = 0.0;
        let mut more = 0usize;
        let mut least_room = f64::INFINITY;
        if most <= 0.0 {
            return None;
        }
        let mut target = std::mem::take(&mut self.target);
        target.clear();
        target.resize(self.path.len(), (0, 0.0));
        let mut ok = true;
        'positions: for i in (0..self.path.len()).rev() {
            let margin = certified_margin(terms + more) * t_cp;
            least_room = least_room.min(self.lead[i] - below);
            if self.lead[i] - below <= margin {
                ok = false;
                break;
            }
            let u = self.path[i];
            let mut q = self.p[u];
            let mut dropped = 0.0;
            if self.key(u) > gamma {
                let caps = self.bounds.caps;
                let limit = match (self.bounds.level_bound, &self.levels) {
                    (Some(bound), Some(levels)) => {
                        // additions before the level holds `bound`:
                        // ceil(bound - held) (exact for integer bounds)
                        let room = (bound - f64::from(self.held[levels[u]])).ceil();
                        let room = if room >= f64::from(u32::MAX) {
                            u32::MAX
                        } else {
                            room as u32
                        };
                        caps.of(u).min(q.saturating_add(room))
                    }
                    _ => caps.of(u),
                };
                let (scaled, a) = (self.g.work()[u] / self.speed, self.g.alpha()[u]);
                let time = |q: u32| scaled * (a + (1.0 - a) / f64::from(q));
                let mut tq = self.t[u];
                loop {
                    let next = time(q + 1);
                    dropped += tq - next;
                    grown_to += next * f64::from(q + 1) - tq * f64::from(q);
                    q += 1;
                    tq = next;
                    more += 1;
                    let margin = certified_margin(terms + more) * t_cp;
                    if !certified(t_cp, area, divisor, margin, fall_to + dropped, grown_to) {
                        ok = false;
                        break 'positions;
                    }
                    if q >= limit || tq / f64::from(q) - time(q + 1) / f64::from(q + 1) <= gamma {
                        break;
                    }
                }
            }
            target[i] = (q, below);
            below += dropped;
            fall_to += dropped;
        }
        // the end state under the margin of all its additions (the same margin
        // as above, and so no new condition, below some 1.1 million terms)
        let margin = certified_margin(terms + more) * t_cp;
        ok = ok && least_room > margin && certified(t_cp, area, divisor, margin, fall_to, grown_to);
        self.target = target;
        ok.then_some((fall_to, grown_to, more))
    }

    /// Moves every path task to its [`Self::bulk_target`] allocation, updates
    /// the leads by the fall below them; returns the new least room.
    fn apply_bulk(&mut self, mut room_min: f64) -> f64 {
        for i in 0..self.path.len() {
            let u = self.path[i];
            let (q, fell_below) = self.target[i];
            self.lead[i] -= fell_below;
            room_min = room_min.min(self.lead[i]);
            if q > self.p[u] {
                self.grow_to(u, q);
            }
        }
        room_min
    }
}

/// The certified stopping test: `T_CP - fall`, less twice the margin, still
/// above the average area `(area + grown) / divisor` (computed as a product,
/// without the division).
#[inline]
fn certified(t_cp: f64, area: f64, divisor: f64, margin: f64, fall: f64, grown: f64) -> bool {
    ((t_cp - fall) - 2.0 * margin) * divisor > area + grown
}

/// How many allocations ahead a [`Lane`] computes.
const AHEAD: usize = 8;

/// `T(v, q)` and the CPA gain `T(v, q)/q - T(v, q+1)/(q+1)` of one task for
/// `q = first .. first + AHEAD`, by the reference's expressions.
#[derive(Debug, Clone, Copy)]
struct Lane {
    first: u32,
    t: [f64; AHEAD + 1],
    gain: [f64; AHEAD],
}

impl Lane {
    /// `scaled` is `work / speed`, the first operation of `T`: caching it changes no bit.
    fn new(first: u32, scaled: f64, alpha: f64) -> Lane {
        let mut lane = Lane {
            first,
            t: [0.0; AHEAD + 1],
            gain: [0.0; AHEAD],
        };
        let q0 = f64::from(first);
        for j in 0..=AHEAD {
            lane.t[j] = scaled * (alpha + (1.0 - alpha) / (q0 + j as f64));
        }
        for j in 0..AHEAD {
            lane.gain[j] = lane.t[j] / (q0 + j as f64) - lane.t[j + 1] / (q0 + j as f64 + 1.0);
        }
        lane
    }

    /// `(T(q), gain(q))`, computing the next batch when `q` is past this one.
    #[inline]
    fn at(&mut self, q: u32, scaled: f64, alpha: f64) -> (f64, f64) {
        let mut j = (q - self.first) as usize;
        if j >= AHEAD {
            *self = Lane::new(q, scaled, alpha);
            j = 0;
        }
        (self.t[j], self.gain[j])
    }
}

/// Fast iterations in a row after which many are tried at once.
const BULK_AFTER: u32 = 8;

/// Paths up to this length are searched by a plain scan in fast iterations.
const SCAN: usize = 16;

/// A tournament tree over positions `0..len`: the position of the largest
/// key, ties to the lowest position (the reference's "first task with the
/// largest gain" on the critical path).
#[derive(Default)]
struct Tournament {
    leaves: usize,
    tree: Vec<(f64, usize)>,
}

impl Tournament {
    fn build(&mut self, keys: impl ExactSizeIterator<Item = f64>) {
        self.leaves = keys.len().next_power_of_two();
        self.tree.clear();
        self.tree.resize(2 * self.leaves, (f64::NEG_INFINITY, usize::MAX));
        for (pos, key) in keys.enumerate() {
            self.tree[self.leaves + pos] = (key, pos);
        }
        for i in (1..self.leaves).rev() {
            self.tree[i] = Self::winner(self.tree[2 * i], self.tree[2 * i + 1]);
        }
    }

    /// Strict: equal keys keep the left (lower) position.
    #[inline]
    fn winner(l: (f64, usize), r: (f64, usize)) -> (f64, usize) {
        if r.0 > l.0 {
            r
        } else {
            l
        }
    }

    fn set(&mut self, pos: usize, key: f64) {
        let mut i = self.leaves + pos;
        self.tree[i] = (key, pos);
        while i > 1 {
            i /= 2;
            self.tree[i] = Self::winner(self.tree[2 * i], self.tree[2 * i + 1]);
        }
    }

    /// Position of the largest key if that key is `> 0`.
    fn best(&self) -> Option<usize> {
        let (key, pos) = self.tree[1];
        (key > 0.0).then_some(pos)
    }
}

/// Every PTG of a set scheduled alone by HCPA (see [`hcpa_standalone`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Standalone {
    /// HCPA allocation of each global task on the whole cluster.
    pub alloc: Vec<u32>,
    /// Bottom level of each global task with that allocation.
    pub bl: Vec<f64>,
    /// Start of each global task in its PTG's schedule alone.
    pub start: Vec<f64>,
    /// End of each global task in its PTG's schedule alone.
    pub end: Vec<f64>,
    /// Makespan of each PTG alone: its `C*_max` (RR-7224 §3.2).
    pub makespan: Vec<f64>,
}

/// HCPA for each PTG of `set` alone on a dedicated cluster of `procs`
/// processors: [`hcpa_allocation`] on the whole cluster under `rule`, then
/// [`list_schedule`] of that PTG alone by decreasing bottom level (no
/// backfilling: HCPA's mapping is plain list scheduling), as
/// `tests/reference/ptg.py::hcpa_schedule`. The latest end is the PTG's
/// `C*_max`.
///
/// # Errors
/// As [`hcpa_allocation`] and [`list_schedule`].
pub fn hcpa_standalone(set: &PtgSet, procs: u32, speed: f64, rule: HcpaRule) -> Result<Standalone> {
    let total = set.num_tasks();
    let mut out = Standalone {
        alloc: Vec::with_capacity(total),
        bl: Vec::with_capacity(total),
        start: vec![0.0; total],
        end: vec![0.0; total],
        makespan: Vec::with_capacity(set.len()),
    };
    let limits = HcpaLimits::cluster(procs, rule);
    for (i, g) in set.graphs().iter().enumerate() {
        let (alloc, bl, alone) = hcpa_schedule(g, procs, speed, &limits)?;
        let base = set.base(i);
        let mut makespan = 0.0;
        for k in 0..alone.len() {
            let v = alone.task[k];
            out.start[base + v] = alone.start[k];
            out.end[base + v] = alone.end[k];
            if alone.end[k] > makespan {
                makespan = alone.end[k];
            }
        }
        out.alloc.extend_from_slice(&alloc);
        out.bl.extend_from_slice(&bl);
        out.makespan.push(makespan);
    }
    Ok(out)
}

/// Each PTG `i` of `set` allocated by [`hcpa_allocation`] on its own budget
/// of `budgets[i]` processors, with that budget also bounding each of its
/// precedence levels when `per_level` (the CRA algorithms, RR-7224 §4.3),
/// with the area averaged over the budget ([`HcpaRule::Cpa`]: SCRAP-MAX's
/// resource constraint, which is what CRA imposes instead of HCPA's own bound).
/// Returns the allocation and bottom level of every global task.
///
/// # Errors
/// [`Error::InvalidArgument`] for a budget count differing from the PTG
/// count, and as [`hcpa_allocation`].
pub fn hcpa_budgets(set: &PtgSet, budgets: &[u32], speed: f64, per_level: bool) -> Result<(Vec<u32>, Vec<f64>)> {
    if budgets.len() != set.len() {
        return Err(Error::InvalidArgument(format!(
            "{} budgets for {} PTGs",
            budgets.len(),
            set.len()
        )));
    }
    let mut alloc = Vec::with_capacity(set.num_tasks());
    let mut bl = Vec::with_capacity(set.num_tasks());
    for (g, &budget) in set.graphs().iter().enumerate().map(|(i, g)| (g, &budgets[i])) {
        let limits = HcpaLimits {
            procs: budget,
            max_task_procs: None,
            max_level_procs: per_level.then_some(budget),
            rule: HcpaRule::Cpa,
        };
        let a = hcpa_allocation(g, speed, &limits)?;
        let durations: Vec<f64> = (0..g.len()).map(|v| g.time(v, a[v], speed)).collect();
        let mut levels = vec![0.0; g.len()];
        fill_bottom_levels(g, &durations, &mut levels);
        alloc.extend_from_slice(&a);
        bl.extend_from_slice(&levels);
    }
    Ok((alloc, bl))
}

/// One PTG alone: its allocation under `limits`, bottom levels, and its
/// list schedule on `procs` processors by decreasing bottom level (task ids
/// in the schedule are the PTG's own).
///
/// # Errors
/// As [`hcpa_allocation`] and [`list_schedule`].
pub fn hcpa_schedule(
    g: &Ptg,
    procs: u32,
    speed: f64,
    limits: &HcpaLimits,
) -> Result<(Vec<u32>, Vec<f64>, TaskSchedule)> {
    schedule_alone(&PtgSet::new(vec![g.clone()])?, procs, speed, limits)
}

/// [`hcpa_schedule`] of the only PTG of `one`, so that a caller scheduling
/// the same PTG many times (the moldable profile) builds the set once.
pub(crate) fn schedule_alone(
    one: &PtgSet,
    procs: u32,
    speed: f64,
    limits: &HcpaLimits,
) -> Result<(Vec<u32>, Vec<f64>, TaskSchedule)> {
    let g = one.graph(0);
    let alloc = hcpa_allocation(g, speed, limits)?;
    let durations: Vec<f64> = (0..g.len()).map(|v| g.time(v, alloc[v], speed)).collect();
    let mut bl = vec![0.0; g.len()];
    fill_bottom_levels(g, &durations, &mut bl);
    let schedule = list_schedule(one, &alloc, &bl, procs, speed, Readiness::Placed)?;
    Ok((alloc, bl, schedule))
}

#[cfg(test)]
mod tests {
    use super::super::graph::bottom_levels;
    use super::super::graph::tests::{arb_ptg, chain, fork_join};
    use super::*;
    use proptest::prelude::*;

    const CPA: HcpaRule = HcpaRule::Cpa;
    const SQRT: HcpaRule = HcpaRule::Sqrt;

    #[test]
    fn fork_join_by_hand() {
        // The reference test's hand computation: T_A = 12 / 4 = 3 throughout;
        // four tasks of positive work on four processors: sqrt(4 * 4) = 4, so
        // both rules agree.
        for rule in [CPA, SQRT] {
            assert_eq!(
                hcpa_allocation(&fork_join(), 1.0, &HcpaLimits::cluster(4, rule)).unwrap(),
                vec![2, 4, 1, 2]
            );
        }
    }

    #[test]
    fn chain_saturates_then_stops() {
        assert_eq!(
            hcpa_allocation(&chain(&[4.0, 1.0]), 1.0, &HcpaLimits::cluster(4, CPA)).unwrap(),
            vec![4, 4]
        );
        // a single task grows to the whole cluster (T_CP = T > T p / P until p = P)
        let one = Ptg::new(vec![6e9], vec![0.5], &[0, 0], &[]).unwrap();
        assert_eq!(
            hcpa_allocation(&one, 3e9, &HcpaLimits::cluster(16, CPA)).unwrap(),
            vec![16]
        );
        assert_eq!(
            hcpa_allocation(&one, 3e9, &HcpaLimits::cluster(1, CPA)).unwrap(),
            vec![1]
        );
    }

    #[test]
    fn sqrt_averages_over_fewer_processors() {
        // Two tasks on 4: P' = ceil(sqrt(8)) = 3, T_A = 5 / 3 throughout (no
        // serial fraction). Gains: a 3 -> [2, 1], T_CP 3; b .75 -> [2, 2],
        // T_CP 2.5; a .56 -> [3, 2], T_CP 1.83; a .19 -> [4, 2], T_CP 1.5 <= 5/3.
        assert_eq!(
            hcpa_allocation(&chain(&[4.0, 1.0]), 1.0, &HcpaLimits::cluster(4, SQRT)).unwrap(),
            vec![4, 2]
        );
        // one task on 16: P' = 4, and T_CP = T > T p / 4 until p = 4
        let one = Ptg::new(vec![6e9], vec![0.5], &[0, 0], &[]).unwrap();
        assert_eq!(
            hcpa_allocation(&one, 3e9, &HcpaLimits::cluster(16, SQRT)).unwrap(),
            vec![4]
        );
        assert_eq!(
            hcpa_allocation(&one, 3e9, &HcpaLimits::cluster(15, SQRT)).unwrap(),
            vec![4]
        );
        assert_eq!(
            hcpa_allocation(&one, 3e9, &HcpaLimits::cluster(17, SQRT)).unwrap(),
            vec![5]
        );
        // zero-work tasks do not count; without any task of positive work P' = P
        let padded = chain(&[0.0, 4.0, 1.0, 0.0]);
        assert_eq!(
            hcpa_allocation(&padded, 1.0, &HcpaLimits::cluster(4, SQRT)).unwrap(),
            vec![1, 4, 2, 1]
        );
        let empty = chain(&[0.0, 0.0]);
        assert_eq!(
            hcpa_allocation(&empty, 1.0, &HcpaLimits::cluster(4, SQRT)).unwrap(),
            vec![1, 1]
        );
    }

    #[test]
    fn caps_per_task_and_per_level() {
        let g = fork_join();
        let capped = HcpaLimits {
            max_task_procs: Some(2),
            ..HcpaLimits::cluster(4, CPA)
        };
        assert_eq!(hcpa_allocation(&g, 1.0, &capped).unwrap(), vec![2, 2, 1, 2]);
        // every level may hold 3 processors: b gets its second one (level
        // {b, c} is then full), a and d grow to 3 each and the path saturates
        let level = HcpaLimits {
            max_level_procs: Some(3),
            ..HcpaLimits::cluster(4, CPA)
        };
        assert_eq!(hcpa_allocation(&g, 1.0, &level).unwrap(), vec![3, 2, 1, 3]);
    }

    #[test]
    fn standalone_schedules_give_cmax_star() {
        let set = PtgSet::new(vec![
            fork_join(),
            Ptg::new(vec![8e9], vec![0.25], &[0, 0], &[]).unwrap(),
        ])
        .unwrap();
        let alone = hcpa_standalone(&set, 4, 1.0, CPA).unwrap();
        assert_eq!(alone.alloc, vec![2, 4, 1, 2, 4]);
        assert_eq!(alone.makespan[0], 5.0); // the reference test's list schedule ends at 5
        assert_eq!(alone.end[..4], [0.5, 2.5, 4.5, 5.0]);
        let one = PtgSet::new(vec![set.graph(1).clone()]).unwrap();
        assert_eq!(hcpa_standalone(&one, 4, 2e9, CPA).unwrap().makespan, vec![1.75]);
        // sqrt: the single task gets ceil(sqrt(4)) = 2 processors, 4 * (0.25 + 0.75 / 2) = 2.5 s
        let sqrt = hcpa_standalone(&set, 4, 1.0, SQRT).unwrap();
        assert_eq!(sqrt.alloc, vec![2, 4, 1, 2, 2]);
        assert_eq!(hcpa_standalone(&one, 4, 2e9, SQRT).unwrap().makespan, vec![2.5]);
    }

    #[test]
    fn rejects_bad_limits() {
        let g = fork_join();
        assert!(hcpa_allocation(&g, 1.0, &HcpaLimits::cluster(0, SQRT)).is_err());
        assert!(hcpa_allocation(&g, f64::NAN, &HcpaLimits::cluster(2, SQRT)).is_err());
        let bad = HcpaLimits {
            max_task_procs: Some(5),
            ..HcpaLimits::cluster(4, SQRT)
        };
        assert!(hcpa_allocation(&g, 1.0, &bad)
            .unwrap_err()
            .to_string()
            .contains("max_task_procs == 5"));
        let bad = HcpaLimits {
            max_level_procs: Some(0),
            ..HcpaLimits::cluster(4, SQRT)
        };
        assert!(hcpa_allocation(&g, 1.0, &bad).is_err());
    }

    #[test]
    fn certified_margin_covers_the_rounding_up_to_the_limits() {
        let u = 0.5 * f64::EPSILON;
        // the margin the loop always had, up to 1e-9 / (8u) terms (some 1.1 million)
        let threshold = (1e-9 / (8.0 * u)) as usize;
        assert_eq!(threshold, 1_125_899);
        for terms in [0, 1, 1000, 1 << 20, threshold] {
            assert_eq!(certified_margin(terms), 1e-9);
        }
        assert!(certified_margin(threshold + 1) > 1e-9);
        // at the limits: 2^27 tasks, plus at most 2^28 additions between exact iterations
        // (MAX_SIZE bounds tasks · processors); the margin must cover twice the errors of
        // the criterion, about (4n + 2k + 2) u, and of a lead, about (2n + k + 1) u (γ_m = mu / (1 - mu));
        // k >= 1: every check follows an addition
        assert_eq!(certified_margin(1 << 27), 2f64.powi(-23));
        for (n, k) in [
            (1usize << 27, 1usize),
            (1 << 27, 1 << 28),
            (threshold, threshold),
            (1 << 10, 1 << 28),
        ] {
            let gamma = |m: usize| m as f64 * u / (1.0 - m as f64 * u);
            let m = certified_margin(n + k);
            assert!(2.0 * m >= 2.0 * (4.0 * gamma(n) + 2.0 * gamma(k) + 2.0 * u), "{n} {k}");
            assert!(m >= 2.0 * (gamma(2 * n) + gamma(k) + u), "{n} {k}");
        }
        // monotone: more terms never make the margin smaller
        let mut last = 0.0;
        for e in 0..40 {
            let m = certified_margin(1usize << e);
            assert!(m >= last);
            last = m;
        }
    }

    #[test]
    fn a_long_chain_stops_where_the_sums_say() {
        // a chain of 2^12 perfectly parallel unit tasks on 4 processors under CPA's rule:
        // T_CP = Σ 1/p, area = n, so the loop stops exactly when every task holds 4 (all
        // sums exact there), after 3n additions on a path of n tasks, most of them certified
        // (the longest path a debug-build test runs in about a second: a chain costs
        // quadratic time, a tournament rebuilt per exact iteration)
        let n = 1usize << 12;
        let offsets: Vec<usize> = (0..n).chain([n - 1]).collect();
        let succ: Vec<usize> = (1..n).collect();
        let g = Ptg::new(vec![1.0; n], vec![0.0; n], &offsets, &succ).unwrap();
        let p = hcpa_allocation(&g, 1.0, &HcpaLimits::cluster(4, CPA)).unwrap();
        assert!(p.iter().all(|&a| a == 4));
        // SCRAP's bounds on the same chain: β' = Σ p t / (T_CP · P_ref) reaches 1/2 at p = 2
        let bounds = LoopBounds {
            divisor: 0.5 * 4.0,
            caps: TaskCaps::Uniform(4),
            level_bound: None,
            undo_overshoot: true,
        };
        let p = allocation_loop(&g, 1.0, &bounds).unwrap();
        assert!(p.iter().all(|&a| a == 2));
    }

    proptest! {
        #[test]
        fn stops_by_the_documented_rule(g in arb_ptg(), procs in 1u32..40, sqrt in any::<bool>()) {
            let speed = 1.0;
            let rule = if sqrt { SQRT } else { CPA };
            let p = hcpa_allocation(&g, speed, &HcpaLimits::cluster(procs, rule)).unwrap();
            prop_assert!(p.iter().all(|&a| (1..=procs).contains(&a)));
            let bl = bottom_levels(&g, &p, speed).unwrap();
            let area: f64 = (0..g.len()).fold(0.0, |s, v| s + g.time(v, p[v], speed) * f64::from(p[v]));
            let real = g.work().iter().filter(|&&w| w > 0.0).count() as u32;
            let root = (1..=procs * real).find(|r| r * r >= procs * real).unwrap_or(procs);
            let divisor = if sqrt && real > 0 { root.min(procs) } else { procs };
            if bl[0] > area / f64::from(divisor) {
                // stopped on a saturated critical path: no path task can gain
                let mut v = 0;
                loop {
                    let gain = g.time(v, p[v], speed) / f64::from(p[v])
                        - g.time(v, p[v] + 1, speed) / f64::from(p[v] + 1);
                    prop_assert!(p[v] == procs || gain <= 0.0);
                    let succ = g.succ(v);
                    if succ.is_empty() { break; }
                    v = succ.iter().copied().fold(succ[0], |b, s| if bl[s] > bl[b] { s } else { b });
                }
            }
        }

        #[test]
        fn budgets_are_respected(g in arb_ptg(), procs in 1u32..40, cap in 1u32..40, level in 1u32..40) {
            let limits = HcpaLimits {
                procs,
                max_task_procs: Some(cap.min(procs)),
                max_level_procs: Some(level),
                rule: SQRT,
            };
            let p = hcpa_allocation(&g, 2.0, &limits).unwrap();
            prop_assert!(p.iter().all(|&a| a >= 1 && a <= cap.min(procs)));
            let levels = g.levels();
            for l in 0..=levels.iter().copied().max().unwrap() {
                let tasks: Vec<usize> = (0..g.len()).filter(|&v| levels[v] == l).collect();
                let sum: u32 = tasks.iter().map(|&v| p[v]).sum();
                // a level may start above the bound (one processor per task); it never grows past it
                prop_assert!(sum <= level.max(tasks.len() as u32));
            }
        }
    }
}
