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

/// The fewest ranks the queue's tree covers (see [`WaitQueue`]).
const MIN_LEAVES: usize = 1024;

/// The width of an empty slot: above every `u32` width, so that a job as wide
/// as the largest machine (`u32::MAX` processors) is not taken for no job.
const EMPTY_WIDTH: u64 = u64::MAX;

/// The waiting queue, in priority order, searchable by width and estimate.
///
/// The priority order is fixed when the queue is made (a rank per job, e.g.
/// arrival order or shortest estimate first), so the queue is a subset of
/// ranks `0..n`. It is kept as a min-segment tree over ranks: every node holds
/// the smallest width and the smallest estimate of the waiting jobs below it.
/// A backfilling scan then asks "the first waiting job after position `i`
/// that could fit" and skips whole runs of jobs that cannot, instead of
/// visiting thousands of them one by one on every event of a loaded trace.
/// Insert, remove and each step of a search are O(log n).
///
/// The tree covers a window of ranks, `base..base + leaves`, holding every
/// waiting job, not all `n`: under arrival order the waiting jobs are a
/// stretch of a few thousand ranks that moves forward, and a tree over a
/// whole trace of 200,000 jobs would be 8 MB of fresh memory to fill. When
/// an insert falls outside, the tree is rebuilt over the ranks from the head
/// to the new job with room for as many again, so rebuilds cost O(1) per
/// insert over time.
#[derive(Debug, Clone)]
pub struct WaitQueue {
    rank: Vec<u32>,
    job_at: Vec<u32>,
    /// The first rank the tree covers.
    base: usize,
    /// The ranks it covers (a power of two).
    leaves: usize,
    /// Per node `(least width, least estimate)` below it, side by side so that
    /// a search step reads one cache line.
    min: Vec<(u64, f64)>,
    len: usize,
    /// The head's rank (`upper` when no job waits): an insert may lower it,
    /// and removing the head searches for the next one, so reading the head
    /// costs nothing however many events look at it.
    lowest: usize,
    /// No job of this rank or a higher one waits (under arrival order: the
    /// jobs not yet arrived), so a search stops there instead of climbing to
    /// the root through the empty ranks beyond.
    upper: usize,
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
        let leaves = n.clamp(1, MIN_LEAVES).next_power_of_two();
        WaitQueue {
            rank,
            job_at,
            base: 0,
            leaves,
            min: vec![(EMPTY_WIDTH, f64::INFINITY); 2 * leaves],
            len: 0,
            lowest: 0,
            upper: 0,
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
        job < self.rank.len()
            && self
                .leaf(self.rank[job] as usize)
                .is_some_and(|leaf| self.min[leaf].0 != EMPTY_WIDTH)
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
        (self.len > 0).then(|| self.waiting(self.lowest))
    }

    /// Appends the first `k` waiting jobs, in priority order, to `out`: a
    /// walk over the tree's leaves from the head instead of `k` searches.
    /// It costs the span of ranks they cover, which under arrival order is
    /// the queue itself plus the jobs started out of order among it (the
    /// reinforcement-learning environment's window of a few hundred jobs).
    pub fn first_jobs(&self, k: usize, out: &mut Vec<u32>) {
        if self.len == 0 {
            return;
        }
        let end = self.upper.min(self.base + self.leaves);
        let mut left = k.min(self.len);
        for rank in self.lowest..end {
            if left == 0 {
                break;
            }
            if self.min[self.leaves + rank - self.base].0 != EMPTY_WIDTH {
                out.push(self.job_at[rank]);
                left -= 1;
            }
        }
    }

    pub(crate) fn insert(&mut self, job: u32, width: u32, estimate: f64) {
        debug_assert!(!self.contains(job as usize));
        let rank = self.rank[job as usize] as usize;
        if self.leaf(rank).is_none() {
            self.cover(rank);
        }
        self.lowest = if self.len == 0 { rank } else { self.lowest.min(rank) };
        self.len += 1;
        self.upper = self.upper.max(rank + 1);
        self.set(rank, u64::from(width), estimate);
        if let Some(index) = &mut self.by_width {
            index.set(job, estimate);
        }
    }

    pub(crate) fn remove(&mut self, job: u32) {
        debug_assert!(self.contains(job as usize));
        self.len -= 1;
        let rank = self.rank[job as usize] as usize;
        self.set(rank, EMPTY_WIDTH, f64::INFINITY);
        if rank == self.lowest {
            self.lowest = self.search(rank + 1, &|_, _| true).unwrap_or(self.upper);
        }
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
                    out.push(self.waiting(self.rank[job as usize] as usize));
                    taken += 1;
                }
            }
            from = group_end;
        }
        out.sort_unstable_by_key(|w| w.rank);
        (out, complete)
    }

    /// The tree's leaf of `rank`, when it covers it.
    fn leaf(&self, rank: usize) -> Option<usize> {
        rank.checked_sub(self.base)
            .filter(|&i| i < self.leaves)
            .map(|i| self.leaves + i)
    }

    /// Moves the tree's window to hold `rank` and every waiting job: an
    /// empty tree just moves; otherwise it is rebuilt from the head (or
    /// `rank`) to the last rank that may wait (or `rank`), with room for as
    /// many again after it.
    fn cover(&mut self, rank: usize) {
        if self.len == 0 {
            // An empty tree holds nothing anywhere: it only moves.
            self.base = rank;
            return;
        }
        let end = self.upper.max(rank + 1);
        let leaves = (2 * (end - self.lowest.min(rank)))
            .max(MIN_LEAVES)
            .min(self.rank.len())
            .next_power_of_two();
        // A window as long as the queue's ranks covers them all from 0, for good.
        let first = if leaves >= self.rank.len() {
            0
        } else {
            self.lowest.min(rank)
        };
        let mut min = vec![(EMPTY_WIDTH, f64::INFINITY); 2 * leaves];
        // Every waiting job lies in the old window (`upper` may lie beyond it).
        for r in self.lowest..self.upper.min(self.base + self.leaves) {
            min[leaves + r - first] = self.min[self.leaves + r - self.base];
        }
        for k in (1..leaves).rev() {
            let ((w0, e0), (w1, e1)) = (min[2 * k], min[2 * k + 1]);
            min[k] = (w0.min(w1), e0.min(e1));
        }
        (self.base, self.leaves, self.min) = (first, leaves, min);
    }

    fn set(&mut self, rank: usize, width: u64, estimate: f64) {
        let mut k = self.leaves + rank - self.base;
        self.min[k] = (width, estimate);
        while k > 1 {
            k /= 2;
            let ((w0, e0), (w1, e1)) = (self.min[2 * k], self.min[2 * k + 1]);
            let (w, e) = (w0.min(w1), e0.min(e1));
            // A node that keeps its minima leaves every node above it as it was.
            if w == self.min[k].0 && e.to_bits() == self.min[k].1.to_bits() {
                break;
            }
            self.min[k] = (w, e);
        }
    }

    /// The first waiting job at rank `>= from` whose (width, estimate)
    /// satisfies `fits`. `fits` must be monotone: if it holds for some
    /// (width, estimate) it holds for any smaller width and smaller estimate,
    /// since subtrees are pruned by testing it on their minima.
    pub fn first_from(&self, from: usize, fits: impl Fn(u32, f64) -> bool) -> Option<Waiting> {
        self.search(from, &fits).map(|rank| self.waiting(rank))
    }

    /// Rank of the leftmost match at rank `>= from`, found bottom-up: from the
    /// leaf at `from`, a subtree that fails hands over to the next subtree to
    /// its right (the right sibling of its lowest ancestor that is a left
    /// child), and a subtree that passes is entered at its left child. A
    /// match near `from` costs O(log distance), not a walk from the root. A
    /// subtree can pass and hold no match (its least width and least
    /// estimate may come from different jobs); its right neighbour is then
    /// tried as for any subtree that fails.
    fn search(&self, from: usize, fits: &impl Fn(u32, f64) -> bool) -> Option<usize> {
        // Every waiting job lies in the window, and below `upper`.
        let (from, end) = (from.max(self.base), self.upper.min(self.base + self.leaves));
        // No job at all passes when the minima over the whole queue fail (fits is
        // monotone): the common answer on a loaded machine, found in one step.
        if from >= end || !self.passes(1, fits) {
            return None;
        }
        let mut k = self.leaves + from - self.base;
        let height = self.leaves.trailing_zeros();
        loop {
            if self.passes(k, fits) {
                if k >= self.leaves {
                    return Some(k - self.leaves + self.base);
                }
                k *= 2;
                continue;
            }
            // k's subtree holds no match: go to the subtree right after it.
            k >>= k.trailing_ones();
            if k == 0 {
                return None;
            }
            k += 1;
            // The first rank under node k, at depth ilog2(k).
            let first = (k << (height - k.ilog2())) - self.leaves + self.base;
            if first >= end {
                return None;
            }
        }
    }

    /// The waiting job of rank `rank`.
    fn waiting(&self, rank: usize) -> Waiting {
        let leaf = self.leaves + rank - self.base;
        Waiting {
            job: self.job_at[rank],
            rank: rank as u32,
            width: self.width_at(leaf).expect("a job waits at this leaf"),
            estimate: self.min[leaf].1,
        }
    }

    /// The smallest width below node `k`, `None` when no job waits there.
    fn width_at(&self, k: usize) -> Option<u32> {
        u32::try_from(self.min[k].0).ok()
    }

    /// Whether some job waits below node `k` and its minima satisfy `fits`.
    #[inline]
    fn passes(&self, k: usize, fits: &impl Fn(u32, f64) -> bool) -> bool {
        matches!(self.width_at(k), Some(width) if fits(width, self.min[k].1))
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
        fn go(
            b: &ByWidth,
            k: usize,
            lo: usize,
            hi: usize,
            from: usize,
            to: usize,
            fits: &dyn Fn(f64, f64) -> bool,
        ) -> Option<usize> {
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
        Waiting {
            job: j,
            rank: j,
            width,
            estimate,
        }
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

        /// Under any priority order and any mix of inserts and removals, the
        /// head and every search agree with a scan of the waiting jobs.
        #[test]
        fn head_and_search_follow_inserts_and_removals(
            order in Just((0..60u32).collect::<Vec<_>>()).prop_shuffle(),
            ops in proptest::collection::vec((0u32..60, 1u32..20, 0u32..50), 0..200),
            probes in proptest::collection::vec((0usize..70, 0u32..20, 0u32..50), 1..5),
        ) {
            let mut rank = vec![0u32; order.len()];
            for (r, &j) in order.iter().enumerate() {
                rank[j as usize] = r as u32;
            }
            let mut q = WaitQueue::new(rank.clone());
            let mut waiting: std::collections::BTreeMap<u32, Waiting> = Default::default();
            for (job, w, e) in ops {
                let r = rank[job as usize];
                if waiting.remove(&r).is_some() {
                    q.remove(job);
                } else {
                    q.insert(job, w, e as f64);
                    waiting.insert(r, Waiting { job, rank: r, width: w, estimate: e as f64 });
                }
                prop_assert_eq!(q.head(), waiting.values().next().copied());
                prop_assert_eq!(q.len(), waiting.len());
                for &(from, free, limit) in &probes {
                    let fits = |w: u32, e: f64| w <= free && e <= limit as f64;
                    let expected = waiting.range(from as u32..).map(|(_, &w)| w).find(|w| fits(w.width, w.estimate));
                    prop_assert_eq!(q.first_from(from, fits), expected);
                }
            }
        }

        /// A queue of thousands of jobs whose waiting ranks move forward (arrival
        /// order) or spread over every rank (another order) keeps agreeing with a
        /// scan while its tree is rebuilt over new windows.
        #[test]
        fn windows_follow_the_waiting_jobs(seed in 0u64..u64::MAX, n in 1500usize..4000, shuffled in any::<bool>(), keep in 1u64..8) {
            let mut state = seed | 1;
            let mut next = move |m: u64| {
                state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                (state >> 33) % m
            };
            let mut order: Vec<u32> = (0..n as u32).collect();
            if shuffled {
                for i in (1..n).rev() {
                    order.swap(i, next(i as u64 + 1) as usize);
                }
            }
            let mut rank = vec![0u32; n];
            for (r, &j) in order.iter().enumerate() {
                rank[j as usize] = r as u32;
            }
            let mut q = WaitQueue::new(rank.clone());
            let mut waiting: std::collections::BTreeMap<u32, Waiting> = Default::default();
            for job in 0..n as u32 {
                let (w, e) = (1 + next(16) as u32, next(100) as f64);
                q.insert(job, w, e);
                waiting.insert(rank[job as usize], Waiting { job, rank: rank[job as usize], width: w, estimate: e });
                // Start some jobs: the head, or any, so the waiting ranks drift and spread.
                while waiting.len() as u64 > keep * 40 || next(3) == 0 {
                    let Some(&r) = (if next(2) == 0 { waiting.keys().next() } else { waiting.keys().nth(next(waiting.len() as u64 + 1) as usize) }) else { break };
                    let gone = waiting.remove(&r).expect("waits");
                    q.remove(gone.job);
                }
                prop_assert_eq!(q.head(), waiting.values().next().copied());
                let (from, free, limit) = (next(n as u64 + 10) as usize, next(17) as u32, next(100) as f64);
                let fits = |w: u32, e: f64| w <= free && e <= limit;
                let expected = waiting.range(from as u32..).map(|(_, &w)| w).find(|w| fits(w.width, w.estimate));
                prop_assert_eq!(q.first_from(from, fits), expected);
                prop_assert!(waiting.keys().all(|&r| q.contains(order[r as usize] as usize)));
            }
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
