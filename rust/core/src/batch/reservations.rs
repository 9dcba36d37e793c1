//! The reservations of conservative backfilling, in reservation order.

use std::cmp::Ordering;

const NIL: u32 = u32::MAX;

/// A waiting job's reservation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reserved {
    /// Job index.
    pub job: u32,
    /// Its priority rank (ties between equal start times go to the lower rank).
    pub rank: u32,
    /// Reserved start time.
    pub start: f64,
    /// Processors it needs.
    pub width: u32,
    /// Run time the scheduler believes.
    pub estimate: f64,
}

impl Reserved {
    fn key(&self) -> (f64, u32) {
        (self.start, self.rank)
    }
}

/// What every reservation of a subtree shares: the least width and estimate
/// and the earliest and latest start.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    /// Least width.
    pub width: u32,
    /// Least estimate.
    pub estimate: f64,
    /// Earliest reserved start.
    pub first: f64,
    /// Latest reserved start.
    pub last: f64,
}

#[derive(Debug, Clone)]
struct Node {
    item: Reserved,
    bounds: Bounds,
    /// Key of the subtree's last reservation.
    last_key: (f64, u32),
    priority: u32,
    left: u32,
    right: u32,
}

fn cmp_key(a: (f64, u32), b: (f64, u32)) -> Ordering {
    a.0.total_cmp(&b.0).then(a.1.cmp(&b.1))
}

/// Reservations ordered by `(start, rank)`: a treap (fixed-seed priorities,
/// hence deterministic) whose nodes carry their subtree's [`Bounds`], so that
/// a search for "the next reservation after this one that might move" skips
/// whole subtrees that cannot. Insert, remove and each step of a search are
/// O(log n).
#[derive(Debug, Clone)]
pub struct Reservations {
    nodes: Vec<Node>,
    spare: Vec<u32>,
    root: u32,
    seed: u64,
}

impl Default for Reservations {
    fn default() -> Self {
        Reservations { nodes: Vec::new(), spare: Vec::new(), root: NIL, seed: 0x5851_f42d_4c95_7f2d }
    }
}

impl Reservations {
    /// Number of reservations.
    pub fn len(&self) -> usize {
        self.nodes.len() - self.spare.len()
    }

    /// True when there is none.
    pub fn is_empty(&self) -> bool {
        self.root == NIL
    }

    /// Removes every reservation.
    pub fn clear(&mut self) {
        *self = Reservations { seed: self.seed, ..Default::default() };
    }

    /// The first reservation in order.
    pub fn first(&self) -> Option<Reserved> {
        let mut k = self.root;
        if k == NIL {
            return None;
        }
        while self.nodes[k as usize].left != NIL {
            k = self.nodes[k as usize].left;
        }
        Some(self.nodes[k as usize].item)
    }

    /// Adds a reservation (its `(start, rank)` must not be present).
    pub fn insert(&mut self, item: Reserved) {
        let k = self.node(item);
        let (low, high) = self.split(self.root, item.key());
        let low = self.merge(low, k);
        self.root = self.merge(low, high);
    }

    /// Removes the reservation with key `(start, rank)`; returns it if present.
    pub fn remove(&mut self, start: f64, rank: u32) -> Option<Reserved> {
        let (low, rest) = self.split(self.root, (start, rank));
        let (at, high) = self.split_after(rest, (start, rank));
        self.root = self.merge(low, high);
        if at == NIL {
            return None;
        }
        debug_assert!(self.nodes[at as usize].left == NIL && self.nodes[at as usize].right == NIL);
        self.spare.push(at);
        Some(self.nodes[at as usize].item)
    }

    /// The first reservation in order after `after` (all if `None`) for which
    /// `is` holds, visiting only subtrees whose [`Bounds`] satisfy `may`,
    /// which must hold on a subtree's bounds whenever `is` holds for one of
    /// its reservations.
    pub fn find(
        &self,
        after: Option<(f64, u32)>,
        may: &mut dyn FnMut(&Bounds) -> bool,
        is: &mut dyn FnMut(&Reserved) -> bool,
    ) -> Option<Reserved> {
        self.find_in(self.root, after, may, is)
    }

    fn find_in(
        &self,
        k: u32,
        after: Option<(f64, u32)>,
        may: &mut dyn FnMut(&Bounds) -> bool,
        is: &mut dyn FnMut(&Reserved) -> bool,
    ) -> Option<Reserved> {
        if k == NIL {
            return None;
        }
        let n = &self.nodes[k as usize];
        let later = |key| after.is_none_or(|a| cmp_key(key, a) == Ordering::Greater);
        if !later(n.last_key) || !may(&n.bounds) {
            return None;
        }
        if later(n.item.key()) {
            if let Some(hit) = self.find_in(n.left, after, may, is) {
                return Some(hit);
            }
            if is(&n.item) {
                return Some(n.item);
            }
        }
        self.find_in(n.right, after, may, is)
    }

    /// Every reservation in order (for tests and rebuilds).
    pub fn to_vec(&self) -> Vec<Reserved> {
        fn walk(r: &Reservations, k: u32, out: &mut Vec<Reserved>) {
            if k != NIL {
                let n = &r.nodes[k as usize];
                walk(r, n.left, out);
                out.push(n.item);
                walk(r, n.right, out);
            }
        }
        let mut out = Vec::with_capacity(self.len());
        walk(self, self.root, &mut out);
        out
    }

    fn node(&mut self, item: Reserved) -> u32 {
        self.seed ^= self.seed >> 12;
        self.seed ^= self.seed << 25;
        self.seed ^= self.seed >> 27;
        let priority = (self.seed.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32) as u32;
        let bounds = Bounds { width: item.width, estimate: item.estimate, first: item.start, last: item.start };
        let node = Node { item, bounds, last_key: item.key(), priority, left: NIL, right: NIL };
        if let Some(k) = self.spare.pop() {
            self.nodes[k as usize] = node;
            k
        } else {
            self.nodes.push(node);
            (self.nodes.len() - 1) as u32
        }
    }

    fn pull(&mut self, k: u32) {
        let n = &self.nodes[k as usize];
        let mut b = Bounds { width: n.item.width, estimate: n.item.estimate, first: n.item.start, last: n.item.start };
        let mut last_key = n.item.key();
        if n.left != NIL {
            let l = &self.nodes[n.left as usize].bounds;
            b.width = b.width.min(l.width);
            b.estimate = b.estimate.min(l.estimate);
            b.first = l.first;
        }
        if n.right != NIL {
            let r = &self.nodes[n.right as usize];
            b.width = b.width.min(r.bounds.width);
            b.estimate = b.estimate.min(r.bounds.estimate);
            b.last = r.bounds.last;
            last_key = r.last_key;
        }
        let n = &mut self.nodes[k as usize];
        n.bounds = b;
        n.last_key = last_key;
    }

    /// Splits into keys before `key` and keys at or after it.
    fn split(&mut self, k: u32, key: (f64, u32)) -> (u32, u32) {
        self.split_by(k, &|x| cmp_key(x, key) == Ordering::Less)
    }

    /// Splits into keys at or before `key` and keys after it.
    fn split_after(&mut self, k: u32, key: (f64, u32)) -> (u32, u32) {
        self.split_by(k, &|x| cmp_key(x, key) != Ordering::Greater)
    }

    fn split_by(&mut self, k: u32, left_of: &dyn Fn((f64, u32)) -> bool) -> (u32, u32) {
        if k == NIL {
            return (NIL, NIL);
        }
        if left_of(self.nodes[k as usize].item.key()) {
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
            let r = self.merge(self.nodes[a as usize].right, b);
            self.nodes[a as usize].right = r;
            self.pull(a);
            a
        } else {
            let l = self.merge(a, self.nodes[b as usize].left);
            self.nodes[b as usize].left = l;
            self.pull(b);
            b
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn r(job: u32, start: f64, width: u32, estimate: f64) -> Reserved {
        Reserved { job, rank: job, start, width, estimate }
    }

    proptest! {
        /// Order, removal and pruned search agree with a sorted vector.
        #[test]
        fn matches_a_sorted_vector(items in proptest::collection::vec((0u32..30, 1u32..9, 0u32..50), 0..60),
                                   removals in proptest::collection::vec(0usize..60, 0..30),
                                   w in 1u32..9, e in 0u32..50) {
            let mut set = Reservations::default();
            let mut plain: Vec<Reserved> = Vec::new();
            for (job, &(start, width, estimate)) in items.iter().enumerate() {
                let item = r(job as u32, f64::from(start), width, f64::from(estimate));
                set.insert(item);
                plain.push(item);
            }
            for i in removals {
                if i < plain.len() {
                    let gone = plain.remove(i);
                    prop_assert_eq!(set.remove(gone.start, gone.rank), Some(gone));
                }
            }
            plain.sort_by(|a, b| cmp_key(a.key(), b.key()));
            prop_assert_eq!(set.to_vec(), plain.clone());
            prop_assert_eq!(set.first(), plain.first().copied());
            // the first reservation after each one that fits (w, e)
            let fits = |x: &Reserved| x.width <= w && x.estimate <= f64::from(e);
            for after in std::iter::once(None).chain(plain.iter().map(|x| Some(x.key()))) {
                let expected = plain.iter().find(|x| after.is_none_or(|a| cmp_key(x.key(), a) == Ordering::Greater) && fits(x)).copied();
                let found = set.find(after, &mut |b| b.width <= w && b.estimate <= f64::from(e), &mut |x| fits(x));
                prop_assert_eq!(found, expected);
            }
        }
    }
}
