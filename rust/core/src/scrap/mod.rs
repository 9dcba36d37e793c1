//! One PTG on a heterogeneous multi-cluster platform (N'takpé & Suter,
//! *Self-Constrained Resource Allocation Procedures for PTG scheduling on
//! shared grids*, PDCS 2007).

mod allocation;
mod placement;

pub use allocation::{beta_estimate, hcpa_reference_allocation, scrap_allocation, Scrap};
pub use placement::{
    check_cluster_schedule, mheft_max, place_reference, ClusterSchedule, Comms, MultiCluster, Network,
};
