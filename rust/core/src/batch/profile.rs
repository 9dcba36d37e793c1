//! The availability profile that conservative backfilling keeps across events.
//!
//! Free processors over future time are a step function: a step starting at
//! `time` holds `free` processors until the next step (the last one lasts
//! forever). The steps are the nodes of a treap keyed by time (a randomised
//! balanced binary search tree with a fixed seed, so its shape, and every
//! answer, is deterministic), each node carrying the least and the most free
//! processors of its subtree and a pending addition for its subtree. Taking
//! or returning processors over an interval, and the searches backfilling
//! needs ("the first step from `t` on with at least / fewer than `w` free"),
//! are O(log steps); finding a job's earliest start walks the runs of steps
//! with enough free processors, one O(log steps) search per run too short
//! for the job.

const NIL: u32 = u32::MAX;

#[derive(Debug, Clone)]
struct Node {
    time: f64,
    /// Free processors on this step (pending additions of ancestors excluded).
    free: i64,
    /// Least and most `free` in the subtree (same convention).
    min: i64,
    max: i64,
    /// Addition pending for both children's subtrees.
    pending: i64,
    priority: u32,
    left: u32,
    right: u32,
}

/// Free processors over time from a start time on (see the module docs).
#[derive(Debug, Clone)]
pub struct Profile {
    nodes: Vec<Node>,
    spare: Vec<u32>,
    root: u32,
    seed: u64,
}

/// End of the interval a job of `duration` starting at `start` holds its
/// processors. A zero-length job still holds them at the instant it runs
/// (the simulator starts it, then completes it at the same time stamp), so it
/// gets the shortest interval a float can express: `[start, next float)`.
pub fn occupied_until(start: f64, duration: f64) -> f64 {
    if duration > 0.0 {
        start + duration
    } else {
        start.next_up()
    }
}

impl Profile {
    /// `free` processors from `start` on.
    pub fn new(start: f64, free: u32) -> Self {
        let mut p = Profile { nodes: Vec::new(), spare: Vec::new(), root: NIL, seed: 0x9e37_79b9_7f4a_7c15 };
        p.root = p.node(start, i64::from(free));
        p
    }

    /// Time at which the profile starts.
    pub fn start(&self) -> f64 {
        let mut k = self.root;
        while self.nodes[k as usize].left != NIL {
            k = self.nodes[k as usize].left;
        }
        self.nodes[k as usize].time
    }

    /// Number of steps.
    pub fn steps(&self) -> usize {
        self.nodes.len() - self.spare.len()
    }

    /// Processors free at time `t` (`t` at or after the start).
    pub fn free_at(&self, t: f64) -> i64 {
        self.last_where(|time| time <= t, |_, _| true).map_or(0, |(_, free)| free)
    }

    /// Processors free just before `t`, on the last step starting before it
    /// (`None` if `t` is at or before the start).
    pub fn free_before(&self, t: f64) -> Option<i64> {
        self.last_where(|time| time < t, |_, _| true).map(|(_, free)| free)
    }

    /// Adds `delta` free processors over `[from, to)`.
    pub fn add(&mut self, from: f64, to: f64, delta: i64) {
        if from >= to {
            return;
        }
        self.breakpoint(from);
        self.breakpoint(to);
        let (low, rest) = self.split(self.root, from);
        let (middle, high) = self.split(rest, to);
        self.apply(middle, delta);
        let rest = self.merge(middle, high);
        self.root = self.merge(low, rest);
    }

    /// Forgets everything before `now` (which becomes the start).
    pub fn trim(&mut self, now: f64) {
        self.breakpoint(now);
        let (past, rest) = self.split(self.root, now);
        self.release(past);
        self.root = rest;
    }

    /// Earliest time (a step start) at which `width` processors stay free for
    /// `duration` (see [`occupied_until`]), searching runs of steps that begin
    /// at or after `from`, or contain it; `None` if none begins before `before`.
    pub fn earliest_run(&self, width: u32, duration: f64, from: f64, before: f64) -> Option<f64> {
        let w = i64::from(width);
        let (mut start, mut end) = self.run_from(w, from)?;
        loop {
            if start >= before {
                return None;
            }
            if end >= occupied_until(start, duration) {
                return Some(start);
            }
            (start, end) = self.run_from(w, end)?;
        }
    }

    /// Whether `width` processors stay free for `duration` over some window
    /// `[s, s + duration)` that meets `[from, to)` and ends by `by`. Bounds are
    /// taken inclusively, so this may say yes at an exact tie (callers use it
    /// as a necessary condition).
    pub fn window_meeting(&self, width: u32, duration: f64, from: f64, to: f64, by: f64) -> bool {
        let w = i64::from(width);
        let Some((mut start, mut end)) = self.run_from(w, from) else { return false };
        let limit = to.min(by);
        while start <= limit {
            // the earliest window in this run that reaches into [from, to)
            let s = start.max(from - duration);
            if s + duration <= end.min(by) && s <= to {
                return true;
            }
            if end == f64::INFINITY {
                return false;
            }
            match self.run_from(w, end) {
                Some(next) => (start, end) = next,
                None => return false,
            }
        }
        false
    }

    /// Earliest time at which `width` processors stay free for `duration`.
    pub fn earliest(&self, width: u32, duration: f64) -> f64 {
        self.earliest_run(width, duration, self.start(), f64::INFINITY)
            .expect("the last step holds every processor not running forever")
    }

    /// Most free processors at any time in `[from, to)`.
    pub fn max_free(&self, from: f64, to: f64) -> i64 {
        let first = self.free_at(from);
        let mut best = first;
        self.visit_range_max(self.root, 0, from, to, &mut best);
        best
    }

    /// The run (maximal interval of steps with at least `w` free) that
    /// contains `t`, or else the first one after `t`, as `(start, end)`.
    fn run_from(&self, w: i64, t: f64) -> Option<(f64, f64)> {
        let start = if self.free_at(t) >= w {
            // the run began after the last short step at or before t
            match self.last_where(|time| time <= t, |min, _| min < w) {
                Some((time, _)) => self.first_where(|s| s > time, |_, max| max >= w).map(|(s, _)| s)?,
                None => self.start(),
            }
        } else {
            self.first_where(|s| s > t, |_, max| max >= w)?.0
        };
        let end = self.first_where(|s| s > start, |min, _| min < w).map_or(f64::INFINITY, |(s, _)| s);
        Some((start, end))
    }

    /// The first step (by time) whose time satisfies the monotone `after`
    /// (false then true) and whose subtree bounds `(min, max)` may hold a
    /// match according to `may`, which on a single step decides.
    fn first_where(&self, after: impl Fn(f64) -> bool, may: impl Fn(i64, i64) -> bool) -> Option<(f64, i64)> {
        // Descend: at each node, the leftmost qualifying step is in the left
        // subtree if any qualifies there, else the node, else the right subtree.
        // A subtree is skipped when its bounds rule it out; since `after` is a
        // prefix condition, the walk visits O(log n) nodes plus the subtrees it
        // must enter and leave empty-handed.
        fn go(p: &Profile, k: u32, acc: i64, after: &dyn Fn(f64) -> bool, may: &dyn Fn(i64, i64) -> bool) -> Option<(f64, i64)> {
            if k == NIL {
                return None;
            }
            let n = &p.nodes[k as usize];
            if !may(n.min + acc, n.max + acc) {
                return None;
            }
            let below = acc + n.pending;
            if after(n.time) {
                if let Some(hit) = go(p, n.left, below, after, may) {
                    return Some(hit);
                }
                if may(n.free + acc, n.free + acc) {
                    return Some((n.time, n.free + acc));
                }
            }
            go(p, n.right, below, after, may)
        }
        go(self, self.root, 0, &after, &may)
    }

    /// The last step whose time satisfies the monotone `before` (true then
    /// false) and that matches `may` (see [`Self::first_where`]).
    fn last_where(&self, before: impl Fn(f64) -> bool, may: impl Fn(i64, i64) -> bool) -> Option<(f64, i64)> {
        fn go(p: &Profile, k: u32, acc: i64, before: &dyn Fn(f64) -> bool, may: &dyn Fn(i64, i64) -> bool) -> Option<(f64, i64)> {
            if k == NIL {
                return None;
            }
            let n = &p.nodes[k as usize];
            if !may(n.min + acc, n.max + acc) {
                return None;
            }
            let below = acc + n.pending;
            if before(n.time) {
                if let Some(hit) = go(p, n.right, below, before, may) {
                    return Some(hit);
                }
                if may(n.free + acc, n.free + acc) {
                    return Some((n.time, n.free + acc));
                }
            }
            go(p, n.left, below, before, may)
        }
        go(self, self.root, 0, &before, &may)
    }

    fn visit_range_max(&self, k: u32, acc: i64, from: f64, to: f64, best: &mut i64) {
        if k == NIL {
            return;
        }
        let n = &self.nodes[k as usize];
        if n.max + acc <= *best {
            return;
        }
        let below = acc + n.pending;
        if n.time > from {
            self.visit_range_max(n.left, below, from, to, best);
        }
        if n.time > from && n.time < to {
            *best = (*best).max(n.free + acc);
        }
        if n.time < to {
            self.visit_range_max(n.right, below, from, to, best);
        }
    }

    /// Makes `t` a step start (splitting the step that contains it).
    fn breakpoint(&mut self, t: f64) {
        if t.is_infinite() {
            return;
        }
        let (low, rest) = self.split(self.root, t);
        let (at, high) = self.split_after(rest, t);
        let at = if at == NIL {
            let free = self.rightmost_free(low);
            self.node(t, free)
        } else {
            at
        };
        let rest = self.merge(at, high);
        self.root = self.merge(low, rest);
    }

    fn rightmost_free(&mut self, mut k: u32) -> i64 {
        debug_assert!(k != NIL, "time before the profile's start");
        let mut acc = 0;
        loop {
            let n = &self.nodes[k as usize];
            if n.right == NIL {
                return n.free + acc;
            }
            acc += n.pending;
            k = n.right;
        }
    }

    fn node(&mut self, time: f64, free: i64) -> u32 {
        // xorshift64*: a fixed-seed priority stream keeps the tree deterministic
        self.seed ^= self.seed >> 12;
        self.seed ^= self.seed << 25;
        self.seed ^= self.seed >> 27;
        let priority = (self.seed.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32) as u32;
        let node = Node { time, free, min: free, max: free, pending: 0, priority, left: NIL, right: NIL };
        if let Some(k) = self.spare.pop() {
            self.nodes[k as usize] = node;
            k
        } else {
            self.nodes.push(node);
            (self.nodes.len() - 1) as u32
        }
    }

    fn release(&mut self, k: u32) {
        if k == NIL {
            return;
        }
        let (l, r) = (self.nodes[k as usize].left, self.nodes[k as usize].right);
        self.spare.push(k);
        self.release(l);
        self.release(r);
    }

    fn apply(&mut self, k: u32, delta: i64) {
        if k != NIL {
            let n = &mut self.nodes[k as usize];
            n.free += delta;
            n.min += delta;
            n.max += delta;
            n.pending += delta;
        }
    }

    fn push(&mut self, k: u32) {
        let n = &mut self.nodes[k as usize];
        let (delta, l, r) = (n.pending, n.left, n.right);
        if delta != 0 {
            n.pending = 0;
            self.apply(l, delta);
            self.apply(r, delta);
        }
    }

    fn pull(&mut self, k: u32) {
        let n = &self.nodes[k as usize];
        let (mut min, mut max) = (n.free, n.free);
        for c in [n.left, n.right] {
            if c != NIL {
                min = min.min(self.nodes[c as usize].min);
                max = max.max(self.nodes[c as usize].max);
            }
        }
        let n = &mut self.nodes[k as usize];
        n.min = min;
        n.max = max;
    }

    /// Splits into steps before `t` and steps at or after `t`.
    fn split(&mut self, k: u32, t: f64) -> (u32, u32) {
        self.split_by(k, &|time| time < t)
    }

    /// Splits into steps at or before `t` and steps after `t`.
    fn split_after(&mut self, k: u32, t: f64) -> (u32, u32) {
        self.split_by(k, &|time| time <= t)
    }

    fn split_by(&mut self, k: u32, left_of: &dyn Fn(f64) -> bool) -> (u32, u32) {
        if k == NIL {
            return (NIL, NIL);
        }
        self.push(k);
        if left_of(self.nodes[k as usize].time) {
            let (a, b) = self.split_by(self.nodes[k as usize].right, left_of);
            self.nodes[k as usize].right = a;
            self.pull(k);
            (k, b)
        } else {
            let (a, b) = self.split_by(self.nodes[k as usize].left, left_of);
            self.nodes[k as usize].left = b;
            self.pull(k);
            (a, k)
        }
    }

    fn merge(&mut self, a: u32, b: u32) -> u32 {
        if a == NIL {
            return b;
        }
        if b == NIL {
            return a;
        }
        if self.nodes[a as usize].priority > self.nodes[b as usize].priority {
            self.push(a);
            let r = self.merge(self.nodes[a as usize].right, b);
            self.nodes[a as usize].right = r;
            self.pull(a);
            a
        } else {
            self.push(b);
            let l = self.merge(a, self.nodes[b as usize].left);
            self.nodes[b as usize].left = l;
            self.pull(b);
            b
        }
    }

    /// The steps as `(time, free)` in time order (for tests and debugging).
    pub fn to_steps(&self) -> Vec<(f64, i64)> {
        let mut out = Vec::with_capacity(self.steps());
        fn walk(p: &Profile, k: u32, acc: i64, out: &mut Vec<(f64, i64)>) {
            if k == NIL {
                return;
            }
            let n = &p.nodes[k as usize];
            walk(p, n.left, acc + n.pending, out);
            out.push((n.time, n.free + acc));
            walk(p, n.right, acc + n.pending, out);
        }
        walk(self, self.root, 0, &mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The obviously correct profile: a sorted list of steps.
    fn free_at(steps: &[(f64, i64)], t: f64) -> i64 {
        steps.iter().rev().find(|s| s.0 <= t).map_or(0, |s| s.1)
    }

    fn earliest_linear(steps: &[(f64, i64)], w: i64, duration: f64) -> f64 {
        'candidates: for (i, &(start, free)) in steps.iter().enumerate() {
            if free < w {
                continue;
            }
            let end = occupied_until(start, duration);
            for &(t, f) in &steps[i + 1..] {
                if t >= end {
                    break;
                }
                if f < w {
                    continue 'candidates;
                }
            }
            return start;
        }
        unreachable!()
    }

    #[test]
    fn holes_and_reservations() {
        // 1 free now, +3 at t=10, +4 at t=20 (8 in all)
        let mut p = Profile::new(0.0, 8);
        p.add(0.0, 20.0, -4);
        p.add(0.0, 10.0, -3);
        assert_eq!(p.earliest(1, 100.0), 0.0);
        assert_eq!(p.earliest(4, 5.0), 10.0);
        p.add(10.0, 25.0, -4); // [10, 25): 4 taken
        assert_eq!((p.free_at(9.0), p.free_at(10.0), p.free_at(24.0), p.free_at(25.0)), (1, 0, 4, 8));
        assert_eq!(p.earliest(1, 12.0), 20.0);
        assert_eq!(p.earliest(1, 10.0), 0.0);
        assert_eq!(p.earliest(2, 0.0), 20.0);
        assert_eq!(p.max_free(0.0, 20.0), 1);
        assert_eq!(p.max_free(0.0, 20.5), 4);
        // a zero-length job holds its processors for its instant
        p.add(0.0, occupied_until(0.0, 0.0), -1);
        assert_eq!(p.free_at(0.0), 0);
        assert_eq!(p.free_at(0.0f64.next_up()), 1);
        assert_eq!(p.earliest(1, 0.0), 0.0f64.next_up());
        p.trim(15.0);
        assert_eq!(p.start(), 15.0);
        assert_eq!(p.to_steps(), vec![(15.0, 0), (20.0, 4), (25.0, 8)]);
    }

    proptest! {
        /// Random additions (kept non-negative, as reservations are), trims
        /// and queries agree with a plain sorted list of steps.
        #[test]
        fn matches_a_sorted_list(ops in proptest::collection::vec((0u32..60, 0u32..40, 1i64..5, 0u32..6), 1..60)) {
            let total = 12i64;
            let mut p = Profile::new(0.0, total as u32);
            let mut start = 0.0;
            for (a, len, w, kind) in ops {
                let (from, to) = (start + f64::from(a), start + f64::from(a + len));
                let steps = p.to_steps();
                let fits = free_at(&steps, from) >= w && steps.iter().all(|s| s.0 <= from || s.0 >= to || s.1 >= w);
                if kind == 5 {
                    start += f64::from(a % 7);
                    p.trim(start);
                } else if fits && from < to {
                    p.add(from, to, -w);
                } else {
                    p.add(from, to, 0);
                }
                let steps = p.to_steps();
                prop_assert_eq!(steps[0].0, start);
                prop_assert!(steps.windows(2).all(|s| s[0].0 < s[1].0));
                for wq in 1..=total {
                    for d in [0.0, 1.0, 5.0, 13.0] {
                        prop_assert_eq!(p.earliest(wq as u32, d), earliest_linear(&steps, wq, d));
                    }
                }
                for q in 0..12 {
                    let t = start + f64::from(q) * 3.5;
                    prop_assert_eq!(p.free_at(t), free_at(&steps, t));
                    let brute = steps.iter().filter(|s| s.0 > t && s.0 < t + 7.0).map(|s| s.1).chain([free_at(&steps, t)]).max().unwrap();
                    prop_assert_eq!(p.max_free(t, t + 7.0), brute);
                }
            }
        }
    }
}
