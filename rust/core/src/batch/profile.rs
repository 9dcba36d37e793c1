//! The availability profile used by conservative backfilling.
//!
//! A plain sorted vector of steps: conservative backfilling's cost is in the
//! reservations it must look at when a job ends early, not in the profile's
//! operations, and a contiguous vector scans fastest (a balanced tree with
//! logarithmic searches was measured 4-5x slower on CTC-SP2, see
//! `benches/README.md`). Adjacent steps with equal counts are merged, so a
//! profile kept for a whole simulation stays as short as the plan.

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
        let mut p = Profile {
            time: vec![now],
            free: vec![free_now],
        };
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
        self.earliest_before(width, duration, f64::INFINITY)
    }

    /// [`Self::earliest`] among starts before `limit` (`None` if none fits).
    pub fn earliest_before(&self, width: u32, duration: f64, limit: f64) -> Option<f64> {
        let mut i = 0;
        'candidates: while i < self.time.len() && self.time[i] < limit {
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
        self.change(start, occupied_until(start, duration), |f| f - width);
    }

    /// Gives back `width` processors over `[start, end)`, which starts no
    /// earlier than the profile: a reservation moved or a job ended before
    /// its estimate.
    pub fn release(&mut self, start: f64, end: f64, width: u32) {
        self.change(start, end, |f| f + width);
    }

    /// Processors free just before `t` (none before the profile's start).
    pub fn free_before(&self, t: f64) -> u32 {
        match self.time.partition_point(|&s| s < t) {
            0 => 0,
            i => self.free[i - 1],
        }
    }

    /// The room around `[start, end)` for jobs at least `narrowest` wide:
    /// see [`Room`].
    pub fn room_around(&self, start: f64, end: f64, narrowest: u32) -> Room {
        let first = self.time.partition_point(|&s| s <= start).saturating_sub(1);
        let last = self.time.partition_point(|&s| s < end).saturating_sub(1).max(first);
        let inside: Vec<(f64, u32)> = (first..=last)
            .map(|i| (self.time[i].max(start), self.free[i]))
            .collect();
        let least = inside.iter().map(|&(_, f)| f).min().unwrap_or(0);
        let most = inside.iter().map(|&(_, f)| f).max().unwrap_or(0);
        // Walk outwards while the running minimum is still of use to someone.
        let mut left = Vec::new();
        let mut min = u32::MAX;
        for i in (0..first).rev() {
            min = min.min(self.free[i]);
            if min < narrowest {
                break;
            }
            match left.last_mut() {
                Some((m, t)) if *m == min => *t = self.time[i],
                _ => left.push((min, self.time[i])),
            }
        }
        let mut right = Vec::new();
        min = u32::MAX;
        for i in last + 1..self.time.len() {
            min = min.min(self.free[i]);
            if min < narrowest {
                break;
            }
            let until = self.time.get(i + 1).copied().unwrap_or(f64::INFINITY);
            match right.last_mut() {
                Some((m, t)) if *m == min => *t = until,
                _ => right.push((min, until)),
            }
        }
        // The region's first and last steps may reach beyond it: the walks
        // start from their ends.
        let before = self.time[first];
        let after = self.time.get(last + 1).copied().unwrap_or(f64::INFINITY);
        Room {
            start,
            before,
            after,
            least,
            most,
            inside,
            left,
            right,
        }
    }

    /// Applies `f` to the free count over `[start, end)`, then merges the
    /// steps at both ends with equal neighbours.
    fn change(&mut self, start: f64, end: f64, f: impl Fn(u32) -> u32) {
        let first = self.split(start);
        let last = self.split(end);
        for v in &mut self.free[first..last] {
            *v = f(*v);
        }
        self.merge_into_previous(last);
        self.merge_into_previous(first);
    }

    fn merge_into_previous(&mut self, i: usize) {
        if i > 0 && i < self.time.len() && self.free[i] == self.free[i - 1] {
            self.time.remove(i);
            self.free.remove(i);
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

/// The free processors in and around a region of the profile, to find
/// where a job of a given width could run in an interval meeting the region.
#[derive(Debug, Clone, PartialEq)]
pub struct Room {
    start: f64,
    /// Where the region's first step begins and its last ends.
    before: f64,
    after: f64,
    /// Fewest and most processors free at some instant of the region.
    pub least: u32,
    pub most: u32,
    /// The region's steps as (from, free), the first clipped to it.
    inside: Vec<(f64, u32)>,
    /// `(m, t)`: left of the region's first step, the free count stays at
    /// least `m` from `t` on (minima falling, times moving left).
    left: Vec<(u32, f64)>,
    /// `(m, t)`: right of the region's last step, it stays at least `m` until `t`.
    right: Vec<(u32, f64)>,
}

impl Room {
    /// Where the region starts.
    pub fn start(&self) -> f64 {
        self.start
    }

    /// The maximal intervals meeting the region throughout which `width`
    /// processors are free, in time order (none when `width > most`).
    pub fn runs(&self, width: u32, out: &mut Vec<(f64, f64)>) {
        out.clear();
        let reach = |side: &[(u32, f64)], edge: f64| {
            side.iter()
                .take_while(|&&(m, _)| m >= width)
                .last()
                .map_or(edge, |&(_, t)| t)
        };
        let mut from = None;
        for (k, &(at, free)) in self.inside.iter().enumerate() {
            match (free >= width, from) {
                (true, None) => from = Some(if k == 0 { reach(&self.left, self.before) } else { at }),
                (false, Some(f)) => {
                    out.push((f, at));
                    from = None;
                }
                _ => {}
            }
        }
        if let Some(f) = from {
            out.push((f, reach(&self.right, self.after)));
        }
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
        assert_eq!(
            (p.free_at(9.0), p.free_at(10.0), p.free_at(24.0), p.free_at(25.0)),
            (1, 0, 4, 8)
        );
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
        assert_eq!(
            (p.time.clone(), p.free.clone()),
            (vec![15.0, 20.0, 25.0], vec![0, 4, 8])
        );
    }

    #[test]
    fn releases_merge_steps_and_rooms_find_runs() {
        // 2 free until 10, 6 until 20, 1 until 30, then 8
        let mut p = Profile::new(0.0, 2, [(10.0, 4), (30.0, 2)]);
        p.reserve(20.0, 5, 10.0);
        assert_eq!(
            (p.time.clone(), p.free.clone()),
            (vec![0.0, 10.0, 20.0, 30.0], vec![2, 6, 1, 8])
        );
        p.release(20.0, 30.0, 5); // back to 6: the step merges into the one before
        assert_eq!((p.time.clone(), p.free.clone()), (vec![0.0, 10.0, 30.0], vec![2, 6, 8]));
        p.reserve(12.0, 3, 4.0); // 3 free over [12, 16)
        let room = p.room_around(12.0, 16.0, 1);
        assert_eq!((room.least, room.most), (3, 3));
        let mut runs = Vec::new();
        room.runs(2, &mut runs);
        assert_eq!(runs, vec![(0.0, f64::INFINITY)]);
        room.runs(3, &mut runs);
        assert_eq!(runs, vec![(10.0, f64::INFINITY)]);
        room.runs(4, &mut runs);
        assert_eq!(runs, vec![]);
        // a region over several steps: runs break where it dips
        let room = p.room_around(5.0, 40.0, 1);
        assert_eq!((room.least, room.most), (2, 8));
        room.runs(6, &mut runs);
        assert_eq!(runs, vec![(10.0, 12.0), (16.0, f64::INFINITY)]);
    }
}
