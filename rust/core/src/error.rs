//! The core's error type; the Python bindings map each variant to one
//! `clustersched.errors` class.

use std::fmt;

/// Everything that can go wrong in a core kernel.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// A job (by 0-based index in the input arrays) has an impossible value.
    InvalidJob { job: usize, message: String },
    /// An argument (not tied to one job) breaks its rule.
    InvalidArgument(String),
    /// A request cannot be satisfied in the current state (e.g. starting a job
    /// that does not fit on the free processors).
    Infeasible(String),
}

/// Result alias used across the core.
pub type Result<T> = std::result::Result<T, Error>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidJob { job, message } => write!(f, "job index {job}: {message}"),
            Error::InvalidArgument(m) | Error::Infeasible(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {}
