//! The availability profile used by conservative backfilling.
//!
//! A plain sorted vector of steps: conservative backfilling's cost is in the
//! reservations that move when a job ends early, not in the profile's
//! operations, and a contiguous vector scans fastest (a balanced tree with
//! logarithmic searches was measured 4-5x slower on CTC-SP2, see
//! `benches/README.md`).

/// Free processors over future time, as a step function: `free[i]`
/// processors are free from `time[i]` until `time[i + 1]` (the last step
/// lasts forever). Built from the running jobs' estimated ends, then
/// reduced by each reservation placed on it.
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    time: Vec<f64>,
    free: Vec<u32>,
}

impl Profile {
    /// The profile at time `now` with `free_now` processors free, which grow
    /// by `width` at each `(estimated end, width)` of `releases` (in time order).
    pub fn new(now: f64, free_now: u32, releases: impl IntoIterator<Item = (f64, u32)>) -> Self {
        let mut p = Profile { time: vec![now], free: vec![free_now] };
        for (t, w) in releases {
            let last = p.free.len() - 1;
            if t <= p.time[last] {
                p.free[last] += w;
            } else {
                p.time.push(t);
                p.free.push(p.free[last] + w);
            }
        }
        p
    }

    /// Processors free at time `t` (from the profile's start on).
    pub fn free_at(&self, t: f64) -> u32 {
        let i = self.time.partition_point(|&s| s <= t).saturating_sub(1);
        self.free[i]
    }

    /// Earliest start (a step boundary) at which `width` processors stay free
    /// for `duration` seconds (see [`occupied_until`] for zero durations).
    /// `None` only when `width` exceeds what is ever free.
    pub fn earliest(&self, width: u32, duration: f64) -> Option<f64> {
        let mut i = 0;
        'candidates: while i < self.time.len() {
            if self.free[i] < width {
                i += 1;
                continue;
            }
            let start = self.time[i];
            let end = occupied_until(start, duration);
            let mut j = i + 1;
            while j < self.time.len() && self.time[j] < end {
                if self.free[j] < width {
                    i = j + 1;
                    continue 'candidates;
                }
                j += 1;
            }
            return Some(start);
        }
        None
    }

    /// Takes `width` processors over `[start, start + duration)`; the caller
    /// found `start` with [`Self::earliest`].
    pub fn reserve(&mut self, start: f64, width: u32, duration: f64) {
        let end = occupied_until(start, duration);
        let first = self.split(start);
        let last = self.split(end);
        for f in &mut self.free[first..last] {
            *f -= width;
        }
    }

    /// Forgets the steps before `now`, which becomes the profile's start.
    pub fn trim(&mut self, now: f64) {
        let i = self.time.partition_point(|&s| s <= now).saturating_sub(1);
        self.time.drain(..i);
        self.free.drain(..i);
        self.time[0] = self.time[0].max(now);
    }

    /// Index of the step beginning at `t`, splitting the step containing it.
    fn split(&mut self, t: f64) -> usize {
        let i = self.time.partition_point(|&s| s < t);
        if i < self.time.len() && self.time[i] == t {
            return i;
        }
        let free = self.free[i - 1];
        self.time.insert(i, t);
        self.free.insert(i, free);
        i
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holes_and_reservations() {
        // 1 free now, +3 at t=10, +4 at t=20 (8 in all)
        let mut p = Profile::new(0.0, 1, [(10.0, 3), (20.0, 4)]);
        assert_eq!(p.earliest(1, 100.0), Some(0.0));
        assert_eq!(p.earliest(4, 5.0), Some(10.0));
        assert_eq!(p.earliest(9, 1.0), None);
        p.reserve(10.0, 4, 15.0); // [10, 25): 4 taken
        assert_eq!((p.free_at(9.0), p.free_at(10.0), p.free_at(24.0), p.free_at(25.0)), (1, 0, 4, 8));
        // a 1-wide 12 s job fits now? [0, 12) crosses the full step at 10: no; next is 20 (4 free)
        assert_eq!(p.earliest(1, 12.0), Some(20.0));
        assert_eq!(p.earliest(1, 10.0), Some(0.0));
        assert_eq!(p.earliest(2, 0.0), Some(20.0));
        // a zero-length job holds its processors for its instant
        p.reserve(0.0, 1, 0.0);
        assert_eq!(p.free_at(0.0), 0);
        assert_eq!(p.free_at(0.0f64.next_up()), 1);
        assert_eq!(p.earliest(1, 0.0), Some(0.0f64.next_up()));
        p.trim(15.0);
        assert_eq!((p.time.clone(), p.free.clone()), (vec![15.0, 20.0, 25.0], vec![0, 4, 8]));
    }
}
