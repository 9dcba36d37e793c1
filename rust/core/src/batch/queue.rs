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
        let leaves = n.max(1).next_power_of_two();
        WaitQueue {
            rank,
            job_at,
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
        job < self.rank.len() && self.min[self.leaves + self.rank[job] as usize].0 != EMPTY_WIDTH
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
        (self.len > 0).then(|| self.waiting(self.leaves + self.lowest))
    }

    pub(crate) fn insert(&mut self, job: u32, width: u32, estimate: f64) {
        debug_assert!(!self.contains(job as usize));
        let rank = self.rank[job as usize] as usize;
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
            self.lowest = self.search(rank + 1, &|_, _| true).map_or(self.upper, |leaf| leaf - self.leaves);
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
        self.search(from, &fits).map(|leaf| self.waiting(leaf))
    }

    /// Leftmost matching leaf at rank `>= from`, found bottom-up: from the
    /// leaf at `from`, a subtree that fails hands over to the next subtree to
    /// its right (the right sibling of its lowest ancestor that is a left
    /// child), and a subtree that passes is entered at its left child. A
    /// match near `from` costs O(log distance), not a walk from the root. A
    /// subtree can pass and hold no match (its least width and least
    /// estimate may come from different jobs); its right neighbour is then
    /// tried as for any subtree that fails.
    fn search(&self, from: usize, fits: &impl Fn(u32, f64) -> bool) -> Option<usize> {
        // No job at all passes when the minima over the whole queue fail (fits is
        // monotone): the common answer on a loaded machine, found in one step.
        if from >= self.upper || !self.passes(1, fits) {
            return None;
        }
        let mut k = self.leaves + from;
        let height = self.leaves.trailing_zeros();
        loop {
            if self.passes(k, fits) {
                if k >= self.leaves {
                    return Some(k);
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
            let first = (k << (height - k.ilog2())) - self.leaves;
            if first >= self.upper {
                return None;
            }
        }
    }

    fn waiting(&self, leaf: usize) -> Waiting {
        let rank = leaf - self.leaves;
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