//! clustersched-core: the hot paths of clustersched, in plain Rust.
//!
//! No Python here: the `clustersched-py` crate wraps these types for Python.
//! Every public function validates its input and returns [`Error`] instead of
//! panicking, so the bindings can turn any failure into a typed Python exception.

// Jobs, tasks and arcs are columns of parallel arrays indexed by one number: `for j in 0..n`
// over several of them reads as the papers' formulas do, where an iterator chain would not.
#![allow(clippy::needless_range_loop)]

pub mod batch;
pub mod dfrs;
pub mod error;
pub mod grid;
pub mod memory;
pub mod ptg;
pub mod rl;
pub mod scrap;
pub mod time;
pub mod workload;

pub use error::{Error, Result};
pub use time::Time;
