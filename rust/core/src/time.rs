//! A totally ordered time stamp.

use std::cmp::Ordering;

/// Seconds as `f64`, ordered by `f64::total_cmp` so it can key ordered maps
/// and heaps. Inputs are checked to be finite before they become a `Time`,
/// which makes this order the usual numeric one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Time(pub f64);

impl Eq for Time {}

impl PartialOrd for Time {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Time {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}
