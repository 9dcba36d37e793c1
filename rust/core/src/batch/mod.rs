//! Online scheduling of rigid jobs on a homogeneous cluster.
//!
//! [`Machine`] holds the processors and the availability profile (running
//! jobs ordered by their estimated end); [`BatchSim`] adds the event queue and
//! the waiting queue; [`Builtin`] policies (FCFS, EASY) decide at each event.
//! The same `BatchSim` is driven either entirely from Rust ([`BatchSim::run`],
//! the fast path for built-in policies) or step by step from Python
//! ([`BatchSim::advance`] + [`BatchSim::start`]) for user-written policies.

mod conservative;
pub mod dpsa;
mod machine;
mod policy;
mod profile;
mod queue;
mod sim;

pub use dpsa::{Candidate, DpsaConfig, DpsaVariant, Selection};
pub use machine::Machine;
pub use policy::{Builtin, Priority};
pub use profile::Profile;
pub use queue::{WaitQueue, Waiting};
pub use sim::{BatchSim, Jobs, SearchStats};
