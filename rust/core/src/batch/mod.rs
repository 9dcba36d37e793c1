//! Online scheduling of rigid jobs on a homogeneous cluster.
//!
//! Modules depend only downward, in this order (no two use each other):
//! - state: [`Machine`] (processors, running jobs by estimated end),
//!   [`WaitQueue`] (waiting jobs in priority order), [`Profile`] (free
//!   processors over future time), [`ReservedJobs`] (conservative
//!   backfilling's reservations, indexed for the holes that open in its
//!   plan), and [`BatchSim`], the event loop over machine and queue;
//! - decisions: [`dpsa`]'s subset search, [`Conservative`] backfilling,
//!   `policy.rs`, where the [`Builtin`] policies and their [`Runner`] live,
//!   and [`SlurmScheduler`], Slurm's own priority, main and backfill passes
//!   on a cluster of nodes (timers of its own, so a runner of its own).
//!
//! The same `BatchSim` is driven either entirely from Rust ([`Runner::run`],
//! the fast path for built-in policies) or step by step from Python
//! ([`BatchSim::advance`] + [`BatchSim::start`]) for user-written policies.
//! A new built-in policy is a variant of [`Builtin`] plus a function in
//! `policy.rs` (or its own module, like `conservative.rs`, when it keeps
//! state between passes).

mod conservative;
pub mod dpsa;
mod machine;
mod node_policy;
pub mod nodes;
mod policy;
mod profile;
mod queue;
mod reserved;
mod sim;
mod slurm;

pub use conservative::Conservative;
pub use dpsa::{Candidate, DpsaConfig, DpsaVariant, Selection};
pub use machine::Machine;
pub use nodes::{Free, NodeMachine, Nodes, Placement, Request, Shadow, Share, WHOLE_NODE_MEMORY};
/// EASY's backfilling around any waiting job's reservation, for `crate::rl`'s agent-picked jobs.
pub(crate) use policy::easy_backfill_around;
pub use policy::{Builtin, Runner};
pub use profile::{occupied_until, Profile, Room};
pub use queue::{Priority, WaitQueue, Waiting};
pub use reserved::ReservedJobs;
pub use sim::{BatchSim, Jobs, SearchStats};
pub use slurm::{Associations, Factors, SlurmJobs, SlurmParams, SlurmScheduler, SlurmStats};
