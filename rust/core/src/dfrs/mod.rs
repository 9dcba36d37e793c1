//! Dynamic Fractional Resource Scheduling (Stillwell, Vivien & Casanova,
//! INRIA RR-7659, 2011): VM-based sharing of cluster nodes.
//!
//! Needs are integers in units of `1 / UNIT` of a node ([`UNIT`]), so node
//! loads are exact sums and equal loads tie exactly.
//!
//! Modules depend only downward, in this order:
//! - [`Jobs`]: the static job data (tasks, CPU need, memory need);
//! - [`Cluster`]: node state (memory used, CPU load as the sum of needs) and
//!   the placement of every running job, with the changes since the last
//!   commit (which the simulator turns into penalties);
//! - decisions on a `Cluster`: [`greedy`] (Greedy, GreedyP, GreedyPM, §4.2),
//!   [`mcb8`] (the MCB8 vector packing with its search on the yield or on the
//!   estimated stretch, §4.3 and §4.7), [`alloc`] (CPU shares for a fixed
//!   mapping: iterative max-min yields, §4.6, and max-min estimated stretch,
//!   §4.7);
//! - [`bound`]: the Theorem 1 lower bound on the maximum bounded stretch
//!   (§3.1), a maximum-flow feasibility test with an exact search on the
//!   stretch, on [`maxflow`] (Dinic on real capacities);
//! - [`sim`]: the per-event bookkeeping of a simulation on a `Cluster` (job
//!   progress, priorities, the actions in priority order, the segments of
//!   the schedule), on the decisions above.
//!
//! The event loop lives in Python (`clustersched.dfrs.simulator`); this
//! module holds the state it updates and the packing it asks for.

pub mod alloc;
pub mod bound;
mod cluster;
pub mod greedy;
mod jobs;
pub mod maxflow;
pub mod mcb8;
pub mod sim;

pub use cluster::{Changes, Cluster, MAX_NODES};
pub use jobs::{Jobs, MAX_TASKS, MAX_TOTAL_TASKS, UNIT};
