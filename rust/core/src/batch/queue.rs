/// The order of the waiting queue (the jobs' priority).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Priority {
    /// First come, first served (ties: input order).
    Arrival,
    /// Shortest estimated run time first (ties: arrival order).
    ShortestEstimate,
}

/// A waiting job as a policy sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Waiting {
    /// Job index.
    pub job: u32,
    /// Position in the queue's priority order (0 = highest priority).
    pub rank: u32,
    /// Processors it needs.
    pub width: u32,
    /// Run time the scheduler believes.
    pub estimate: f64,
}

/// The width of an empty slot: above every `u32` width, so that a job as wide
/// as the largest machine (`u32::MAX` processors) is not taken for no job.
const EMPTY_WIDTH: u64 = u64::MAX;

/// The waiting queue, in priority order, searchable by width and estimate.
///
/// The priority order is fixed when the queue is made (a rank per job, e.g.
/// arrival order or shortest estimate first), so the queue is a subset of
/// ranks `0..n`. It is kept as a min-segment tree over ranks: every node holds
/// the smallest width and the smallest estimate of the waiting jobs below it. A backfilling scan then asks "the first waiting job
/// after position `i` that could fit" and skips whole runs of jobs that
/// cannot, instead of visiting thousands of them one by one on every event of
/// a loaded trace. Insert, remove and each step of a search are O(log n).
#[derive(Debug, Clone)]
pub struct WaitQueue {
    rank: Vec<u32>,
    job_at: Vec<u32>,
    leaves: usize,
    min_width: Vec<u64>,
    min_estimate: Vec<f64>,
    len: usize,
    by_width: Option<ByWidth>,
}

impl WaitQueue {
    /// An empty queue for jobs `0..n` where job `j` has priority rank `rank[j]`
    /// (`rank` must be a permutation of `0..n`).
    pub fn new(rank: Vec<u32>) -> Self {
        let n = rank.len();
        let mut job_at = vec![0; n];
        for (j, &r) in rank.iter().enumerate() {
            job_at[r as usize] = j as u32;
        }
        let leaves = n.max(1).next_power_of_two();
        WaitQueue {
            rank,
            job_at,
            leaves,
            min_width: vec![EMPTY_WIDTH; 2 * leaves],
            min_estimate: vec![f64::INFINITY; 2 * leaves],
            len: 0,
            by_width: None,
        }
    }

    /// Number of waiting jobs.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when no job waits.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// True when job `job` waits.
    pub fn contains(&self, job: usize) -> bool {
        job < self.rank.len() && self.min_width[self.leaves + self.rank[job] as usize] != EMPTY_WIDTH
    }

    /// Priority rank of job `job`.
    pub fn rank_of(&self, job: u32) -> u32 {
        self.rank[job as usize]
    }

    /// Waiting jobs in priority order.
    pub fn iter(&self) -> impl Iterator<Item = Waiting> + '_ {
        let mut from = 0;
        std::iter::from_fn(move || {
            let w = self.first_from(from, |_, _| true)?;
            from = w.rank as usize + 1;
            Some(w)
        })
    }

    /// The first waiting job.
    pub fn head(&self) -> Option<Waiting> {
        self.first_from(0, |_, _| true)
    }

    pub(crate) fn insert(&mut self, job: u32, width: u32, estimate: f64) {
        debug_assert!(!self.contains(job as usize));
        self.len += 1;
        self.set(self.rank[job as usize] as usize, u64::from(width), estimate);
        if let Some(index) = &mut self.by_width {
            index.set(job, estimate);
        }
    }

    pub(crate) fn remove(&mut self, job: u32) {
        debug_assert!(self.contains(job as usize));
        self.len -= 1;
        self.set(self.rank[job as usize] as usize, EMPTY_WIDTH, f64::INFINITY);
        if let Some(index) = &mut self.by_width {
            index.clear(job);
        }
    }

    /// Keeps, from now on, a second index of the waiting jobs grouped by
    /// width (see [`Self::first_of_each_kind`]); `widths[j]` is job `j`'s.
    pub fn index_by_width(&mut self, widths: &[u32]) {
        if self.by_width.is_none() {
            let mut index = ByWidth::new(widths, &self.rank);
            for w in self.iter() {
                index.set(w.job, w.estimate);
            }
            self.by_width = Some(index);
        }
    }

    /// The waiting jobs other than `skip` of width at most `max_width`, but
    /// of each kind only the first (in priority order) `short_cap(width)`
    /// short ones and the first `long_cap(width)` long ones, where a job is
    /// short when `is_short(estimate)` (monotone: true then false as the
    /// estimate grows); in priority order, with `true` when no such job was
    /// left out. Needs [`Self::index_by_width`]. Costs O(log n) per width
    /// present and per job returned, whatever the number of jobs left out.
    pub fn first_of_each_kind(
        &self,
        max_width: u32,
        skip: u32,
        is_short: impl Fn(f64) -> bool,
        short_cap: impl Fn(u32) -> usize,
        long_cap: impl Fn(u32) -> usize,
    ) -> (Vec<Waiting>, bool) {
        let index = self.by_width.as_ref().expect("index_by_width was not called");
        let (mut out, mut complete) = (Vec::new(), true);
        let end = index.width.partition_point(|&w| w <= max_width);
        let mut from = 0;
        while let Some(p) = index.first(from, end, &|min, _| min < f64::INFINITY) {
            let width = index.width[p];
            let group_end = index.width.partition_point(|&w| w <= width);
            for (short, cap) in [(true, short_cap(width)), (false, long_cap(width))] {
                let (mut at, mut taken) = (p, 0);
                loop {
                    let found = if short {
                        index.first(at, group_end, &|min, _| is_short(min))
                    } else {
                        index.first(at, group_end, &|_, max| max > f64::NEG_INFINITY && !is_short(max))
                    };
                    let Some(q) = found else { break };
                    at = q + 1;
                    let job = index.job_at[q];
                    if job == skip {
                        continue;
                    }
                    if taken == cap {
                        complete = false;
                        break;
                    }
                    out.push(self.waiting(self.leaves + self.rank[job as usize] as usize));
                    taken += 1;
                }
            }
            from = group_end;
        }
        out.sort_unstable_by_key(|w| w.rank);
        (out, complete)
    }

    fn set(&mut self, rank: usize, width: u64, estimate: f64) {
        let mut k = self.leaves + rank;
        self.min_width[k] = width;
        self.min_estimate[k] = estimate;
        while k > 1 {
            k /= 2;
            let w = self.min_width[2 * k].min(self.min_width[2 * k + 1]);
            let e = self.min_estimate[2 * k].min(self.min_estimate[2 * k + 1]);
            // A node that keeps its minima leaves every node above it as it was.
            if w == self.min_width[k] && e.to_bits() == self.min_estimate[k].to_bits() {
                break;
            }
            self.min_width[k] = w;
            self.min_estimate[k] = e;
        }
    }

    /// The first waiting job at rank `>= from` whose (width, estimate)
    /// satisfies `fits`. `fits` must be monotone: if it holds for some
    /// (width, estimate) it holds for any smaller width and smaller estimate,
    /// since subtrees are pruned by testing it on their minima.
    pub fn first_from(&self, from: usize, fits: impl Fn(u32, f64) -> bool) -> Option<Waiting> {
        self.search(1, 0, self.leaves, from, &fits).map(|leaf| self.waiting(leaf))
    }

    /// Leftmost matching leaf of node `k`, which covers ranks `lo..hi`.
    fn search(&self, k: usize, lo: usize, hi: usize, from: usize, fits: &impl Fn(u32, f64) -> bool) -> Option<usize> {
        match self.width_at(k) {
            Some(width) if hi > from && fits(width, self.min_estimate[k]) => {}
            _ => return None,
        }
        if k >= self.leaves {
            return Some(k);
        }
        let mid = (lo + hi) / 2;
        self.search(2 * k, lo, mid, from, fits).or_else(|| self.search(2 * k + 1, mid, hi, from, fits))
    }

    fn waiting(&self, leaf: usize) -> Waiting {
        let rank = leaf - self.leaves;
        Waiting {
            job: self.job_at[rank],
            rank: rank as u32,
            width: self.width_at(leaf).expect("a job waits at this leaf"),
            estimate: self.min_estimate[leaf],
        }
    }

    /// The smallest width below node `k`, `None` when no job waits there.
    fn width_at(&self, k: usize) -> Option<u32> {
        u32::try_from(self.min_width[k]).ok()
    }
}

/// The waiting jobs grouped by width: positions `0..n` hold the jobs sorted
/// by (width, priority rank), so the jobs of one width are a contiguous range
/// and those no wider than `w` a prefix; a segment tree over positions keeps
/// the least and the greatest estimate of the waiting jobs below each node
/// (`+inf` / `-inf` where none waits).
#[derive(Debug, Clone)]
struct ByWidth {
    width: Vec<u32>,
    job_at: Vec<u32>,
    position: Vec<u32>,
    leaves: usize,
    min_estimate: Vec<f64>,
    max_estimate: Vec<f64>,
}

impl ByWidth {
    fn new(widths: &[u32], rank: &[u32]) -> Self {
        let n = widths.len();
        let mut job_at: Vec<u32> = (0..n as u32).collect();
        job_at.sort_unstable_by_key(|&j| (widths[j as usize], rank[j as usize]));
        let mut position = vec![0; n];
        for (p, &j) in job_at.iter().enumerate() {
            position[j as usize] = p as u32;
        }
        let leaves = n.max(1).next_power_of_two();
        ByWidth {
            width: job_at.iter().map(|&j| widths[j as usize]).collect(),
            job_at,
            position,
            leaves,
            min_estimate: vec![f64::INFINITY; 2 * leaves],
            max_estimate: vec![f64::NEG_INFINITY; 2 * leaves],
        }
    }

    fn set(&mut self, job: u32, estimate: f64) {
        self.update(job, estimate, estimate);
    }

    fn clear(&mut self, job: u32) {
        self.update(job, f64::INFINITY, f64::NEG_INFINITY);
    }

    fn update(&mut self, job: u32, min: f64, max: f64) {
        let mut k = self.leaves + self.position[job as usize] as usize;
        self.min_estimate[k] = min;
        self.max_estimate[k] = max;
        while k > 1 {
            k /= 2;
            self.min_estimate[k] = self.min_estimate[2 * k].min(self.min_estimate[2 * k + 1]);
            self.max_estimate[k] = self.max_estimate[2 * k].max(self.max_estimate[2 * k + 1]);
        }
    }

    /// First position in `from..to` whose subtree bounds (least, greatest
    /// estimate) satisfy `fits` (which decides on a single job).
    fn first(&self, from: usize, to: usize, fits: &dyn Fn(f64, f64) -> bool) -> Option<usize> {
        fn go(b: &ByWidth, k: usize, lo: usize, hi: usize, from: usize, to: usize, fits: &dyn Fn(f64, f64) -> bool) -> Option<usize> {
            if hi <= from || lo >= to || !fits(b.min_estimate[k], b.max_estimate[k]) {
                return None;
            }
            if k >= b.leaves {
                return Some(lo);
            }
            let mid = (lo + hi) / 2;
            go(b, 2 * k, lo, mid, from, to, fits).or_else(|| go(b, 2 * k + 1, mid, hi, from, to, fits))
        }
        go(self, 1, 0, self.leaves, from, to, fits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn job(j: u32, width: u32, estimate: f64) -> Waiting {
        Waiting { job: j, rank: j, width, estimate }
    }

    fn arrival_order(n: usize) -> WaitQueue {
        WaitQueue::new((0..n as u32).collect())
    }

    #[test]
    fn order_head_and_removal() {
        let mut q = arrival_order(5);
        for j in [1, 3, 4] {
            q.insert(j, j + 1, 10.0 * j as f64);
        }
        assert_eq!(q.iter().map(|w| w.job).collect::<Vec<_>>(), vec![1, 3, 4]);
        assert_eq!(q.head(), Some(job(1, 2, 10.0)));
        q.remove(1);
        assert_eq!(q.head(), Some(job(3, 4, 30.0)));
        assert_eq!(q.len(), 2);
        assert!(!q.contains(1) && q.contains(4) && !q.contains(99));
    }

    #[test]
    fn a_job_as_wide_as_the_largest_machine_waits() {
        let mut q = arrival_order(2);
        q.insert(1, u32::MAX, 5.0);
        assert!(q.contains(1) && q.len() == 1);
        assert_eq!(q.head(), Some(job(1, u32::MAX, 5.0)));
        assert_eq!(q.first_from(0, |_, e| e <= 5.0), Some(job(1, u32::MAX, 5.0)));
        assert_eq!(q.first_from(0, |w, _| w < u32::MAX), None);
        q.remove(1);
        assert_eq!(q.head(), None);
    }

    #[test]
    fn priority_order_is_the_rank_order() {
        // jobs 0, 1, 2 ranked 2, 0, 1
        let mut q = WaitQueue::new(vec![2, 0, 1]);
        (0..3).for_each(|j| q.insert(j, 1, 1.0));
        assert_eq!(q.iter().map(|w| w.job).collect::<Vec<_>>(), vec![1, 2, 0]);
        assert_eq!(q.rank_of(0), 2);
    }

    proptest! {
        /// The search agrees with a linear scan for the EASY predicate.
        #[test]
        fn search_matches_linear_scan(
            jobs in proptest::collection::vec((any::<bool>(), 1u32..20, 0u32..50), 0..70),
            from in 0usize..80, free in 0u32..20, extra in 0u32..20, limit in 0u32..50,
        ) {
            let mut q = arrival_order(jobs.len());
            for (j, &(waiting, w, e)) in jobs.iter().enumerate() {
                if waiting {
                    q.insert(j as u32, w, e as f64);
                }
            }
            let fits = |w: u32, e: f64| w <= free && (e <= limit as f64 || w <= extra);
            let expected = jobs.iter().enumerate().skip(from)
                .find(|(_, &(waiting, w, e))| waiting && fits(w, e as f64))
                .map(|(j, &(_, w, e))| job(j as u32, w, e as f64));
            prop_assert_eq!(q.first_from(from, fits), expected);
        }

        /// The by-width gathering agrees with a scan of the queue in priority order.
        #[test]
        fn first_of_each_kind_matches_a_scan(
            jobs in proptest::collection::vec((any::<bool>(), 1u32..9, 0u32..50), 0..70),
            max_width in 0u32..10, limit in 0u32..50, short_cap in 0usize..4, long_cap in 0usize..4, skip in 0u32..70,
        ) {
            let widths: Vec<u32> = jobs.iter().map(|j| j.1).collect();
            let mut q = arrival_order(jobs.len());
            q.index_by_width(&widths);
            for (j, &(waiting, w, e)) in jobs.iter().enumerate() {
                if waiting {
                    q.insert(j as u32, w, e as f64);
                }
            }
            let is_short = |e: f64| e <= limit as f64;
            let (found, complete) = q.first_of_each_kind(max_width, skip, is_short, |w| short_cap * w as usize % 5, |w| long_cap + w as usize % 2);
            let (mut expected, mut taken, mut left_out) = (Vec::new(), std::collections::HashMap::new(), false);
            for w in q.iter().filter(|w| w.width <= max_width && w.job != skip) {
                let short = is_short(w.estimate);
                let cap = if short { short_cap * w.width as usize % 5 } else { long_cap + w.width as usize % 2 };
                let n = taken.entry((w.width, short)).or_insert(0usize);
                if *n < cap {
                    *n += 1;
                    expected.push(w);
                } else {
                    left_out = true;
                }
            }
            prop_assert_eq!(found, expected);
            prop_assert_eq!(complete, !left_out);
        }
    }
}