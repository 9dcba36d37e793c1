//! The reservations of conservative backfilling, indexed so that a hole
//! opening in the plan finds the jobs that might use it without looking at
//! the others.

use super::profile::{occupied_until, Room};

/// Start, width and estimate of every reserved job, in a segment tree that
/// keeps per subtree the latest start, the narrowest and widest width and
/// the shortest estimate. Its leaves hold the jobs by width, then estimate
/// (both fixed), so that a subtree holds jobs alike and its bounds are
/// tight: a hole skips the jobs too wide, too narrow or too long for it in
/// whole subtrees.
#[derive(Debug, Clone, Default)]
pub struct ReservedJobs {
    /// Leaves: `leaves` (a power of two, at least the job count).
    leaves: usize,
    /// Each job's leaf, and the job at each leaf.
    leaf_of: Vec<u32>,
    job_at: Vec<u32>,
    latest_start: Vec<f64>,
    narrowest: Vec<u32>,
    widest: Vec<u32>,
    shortest: Vec<f64>,
    /// Scratch of [`Self::could_use`], kept to spare allocations: nodes to
    /// visit, and the runs of each width asked for (width, range in `runs`).
    stack: Vec<usize>,
    widths: Vec<(u32, usize, usize)>,
    runs: Vec<(f64, f64)>,
}

/// An empty leaf: it starts never, is narrower and wider than nothing, and
/// shorter than nothing.
const NONE: (f64, u32, f64) = (f64::NEG_INFINITY, u32::MAX, f64::INFINITY);

impl ReservedJobs {
    /// An empty index for the jobs of these widths and estimates.
    pub fn new(width: &[u32], estimate: &[f64]) -> Self {
        let leaves = width.len().max(1).next_power_of_two();
        let mut job_at: Vec<u32> = (0..width.len() as u32).collect();
        job_at.sort_by(|&a, &b| {
            let (a, b) = (a as usize, b as usize);
            width[a]
                .cmp(&width[b])
                .then(estimate[a].total_cmp(&estimate[b]))
                .then(a.cmp(&b))
        });
        let mut leaf_of = vec![0; width.len()];
        for (leaf, &job) in job_at.iter().enumerate() {
            leaf_of[job as usize] = leaf as u32;
        }
        ReservedJobs {
            leaves,
            leaf_of,
            job_at,
            latest_start: vec![NONE.0; 2 * leaves],
            narrowest: vec![NONE.1; 2 * leaves],
            widest: vec![0; 2 * leaves],
            shortest: vec![NONE.2; 2 * leaves],
            ..Default::default()
        }
    }

    /// Forgets every reservation (the jobs stay the same).
    pub fn clear_all(&mut self) {
        self.latest_start.fill(NONE.0);
        self.narrowest.fill(NONE.1);
        self.widest.fill(0);
        self.shortest.fill(NONE.2);
    }

    /// How many jobs the index is for.
    pub fn jobs(&self) -> usize {
        self.leaf_of.len()
    }

    /// Records that `job` (`width` processors for `estimate` seconds) is
    /// reserved at `start`.
    pub fn set(&mut self, job: u32, start: f64, width: u32, estimate: f64) {
        self.update(job, (start, width, estimate));
    }

    /// Forgets `job`'s reservation (it started).
    pub fn clear(&mut self, job: u32) {
        self.update(job, NONE);
    }

    /// The narrowest reserved job's width (`u32::MAX` when none is reserved).
    pub fn narrowest(&self) -> u32 {
        self.narrowest[1]
    }

    /// Pushes onto `out` every reserved job that a hole `room` opened by
    /// `gained` more free processors might let start earlier, away from its
    /// own reservation: one that starts after the hole, is wider than the
    /// hole's fewest free processors were before it opened (else the hole
    /// changed nothing for it) and at most as wide as its most, and whose
    /// estimate fits in an interval meeting the hole, with room for its
    /// width throughout, before its reservation. A superset of those jobs.
    ///
    /// A subtree is skipped when no job in it can pass: its latest start is
    /// not after the hole, its narrowest job is wider than the hole's most,
    /// its widest is not wider than the hole's fewest before, or its
    /// shortest estimate exceeds the room for its narrowest width up to its
    /// latest start (wider jobs get no more room, and none is shorter).
    pub fn could_use(&mut self, room: &Room, gained: u32, out: &mut Vec<u32>) {
        let start = room.start();
        let fewest_before = room.least.saturating_sub(gained);
        // The runs of each width asked for are computed once per hole.
        self.widths.clear();
        self.runs.clear();
        let mut runs = Vec::new();
        self.stack.clear();
        self.stack.push(1);
        while let Some(node) = self.stack.pop() {
            let (width, latest) = (self.narrowest[node], self.latest_start[node]);
            if latest <= start || width > room.most || self.widest[node] <= fewest_before {
                continue;
            }
            let (from, to) = match self.widths.iter().find(|&&(w, _, _)| w == width) {
                Some(&(_, from, to)) => (from, to),
                None => {
                    room.runs(width, &mut runs);
                    let from = self.runs.len();
                    self.runs.extend_from_slice(&runs);
                    self.widths.push((width, from, self.runs.len()));
                    (from, self.runs.len())
                }
            };
            // The same arithmetic as the placement's (`occupied_until`): a
            // length `b - a` compared with the estimate can round the other
            // way than `a + estimate` compared with `b`, and miss a mover.
            let shortest = self.shortest[node];
            if !self.runs[from..to]
                .iter()
                .any(|&(a, b)| occupied_until(a, shortest) <= b.min(latest))
            {
                continue;
            }
            if node >= self.leaves {
                out.push(self.job_at[node - self.leaves]);
            } else {
                self.stack.push(2 * node + 1);
                self.stack.push(2 * node);
            }
        }
    }

    fn update(&mut self, job: u32, (start, width, estimate): (f64, u32, f64)) {
        let mut node = self.leaves + self.leaf_of[job as usize] as usize;
        self.latest_start[node] = start;
        self.narrowest[node] = width;
        self.widest[node] = if width == u32::MAX { 0 } else { width };
        self.shortest[node] = estimate;
        while node > 1 {
            node /= 2;
            let (l, r) = (2 * node, 2 * node + 1);
            let latest = self.latest_start[l].max(self.latest_start[r]);
            let narrowest = self.narrowest[l].min(self.narrowest[r]);
            let widest = self.widest[l].max(self.widest[r]);
            let shortest = self.shortest[l].min(self.shortest[r]);
            // Bounds that did not change here do not change above.
            if (latest, narrowest, widest, shortest)
                == (
                    self.latest_start[node],
                    self.narrowest[node],
                    self.widest[node],
                    self.shortest[node],
                )
            {
                break;
            }
            self.latest_start[node] = latest;
            self.narrowest[node] = narrowest;
            self.widest[node] = widest;
            self.shortest[node] = shortest;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::Profile;

    #[test]
    fn finds_the_jobs_a_hole_could_take() {
        // 4 processors: 1 free until 100, then 4; a hole of 2 more over [10, 50)
        let mut p = Profile::new(0.0, 1, [(100.0, 3)]);
        p.release(10.0, 50.0, 2);
        let mut jobs = ReservedJobs::new(&[3, 3, 1, 2, 4, 2], &[40.0, 41.0, 5.0, 5.0, 1.0, 25.0]);
        jobs.set(0, 100.0, 3, 40.0); // fits [10, 50): found
        jobs.set(1, 100.0, 3, 41.0); // too long for the 3-wide room
        jobs.set(2, 100.0, 1, 5.0); // fitted before the hole opened
        jobs.set(3, 5.0, 2, 5.0); // starts before the hole
        jobs.set(4, 100.0, 4, 1.0); // wider than the hole
        jobs.set(5, 30.0, 2, 25.0); // room only before its own start at 30: 20 s
        let room = p.room_around(10.0, 50.0, jobs.narrowest());
        let mut found = Vec::new();
        jobs.could_use(&room, 2, &mut found);
        assert_eq!(found, vec![0]);
        jobs.clear(0);
        found.clear();
        jobs.could_use(&room, 2, &mut found);
        assert_eq!(found, Vec::<u32>::new());
    }

    #[test]
    fn a_room_is_measured_as_the_placement_measures_it() {
        // 1 processor, busy until 13 + 1 ulp, free until 17, then busy: the
        // room's length is 4 - 1 ulp, but 13.000000000000002 + 4 rounds to
        // 17.0, so a 4 s job reserved later fits there and must be found.
        // (Zero-length jobs hold an instant, 1 ulp: one at 13, one at 13 + 1
        // ulp that moves away and opens the hole.)
        let after = 13.0f64.next_up();
        assert_eq!(after + 4.0, 17.0);
        let mut p = Profile::new(0.0, 0, [(13.0, 1)]);
        p.reserve(13.0, 1, 0.0);
        p.reserve(after, 1, 0.0);
        p.reserve(17.0, 1, 10.0);
        p.release(after, after.next_up(), 1);
        let mut jobs = ReservedJobs::new(&[1], &[4.0]);
        jobs.set(0, 27.0, 1, 4.0);
        let room = p.room_around(after, after.next_up(), jobs.narrowest());
        let mut found = Vec::new();
        jobs.could_use(&room, 1, &mut found);
        assert_eq!(found, vec![0]);
    }
}
