//! One PTG on a heterogeneous multi-cluster platform (N'takpé & Suter,
//! *Self-Constrained Resource Allocation Procedures for PTG scheduling on
//! shared grids*, PDCS 2007); Python's `clustersched.scrap`.
//!
//! Built on the PTG kernels of [`crate::ptg`] (the [`Ptg`](crate::ptg::Ptg)
//! graph, [`exec_time`](crate::ptg::exec_time), the
//! [`allocation_loop`](crate::ptg::allocation_loop), the processor pool of
//! list scheduling), which never use this module. One file per job:
//!
//! * `platform.rs`: [`MultiCluster`] (the HCPA reference cluster, the
//!   translation `f(p_ref, v, k)` of reference allocations and the per-task
//!   caps of a saturated critical path, §3), [`Network`] and [`Comms`] (the
//!   communication model, §4);
//! * `allocation.rs`: [`scrap_allocation`] (SCRAP and SCRAP-MAX, §3,
//!   Algorithms 1 and 2; [`Scrap`]), [`hcpa_reference_allocation`] (the
//!   HCPA baseline, §2) and [`beta_estimate`] (`β'`, §3): stopping
//!   conditions of the one allocation loop;
//! * `placement.rs`: [`place_reference`], list scheduling of translated
//!   allocations over the clusters (the placement step, §3), and the list
//!   machinery MHEFT-MAX shares;
//! * `mheft.rs`: [`mheft_max`], M-HEFT with capped allocations (the other
//!   baseline, §2);
//! * `schedule.rs`: [`ClusterSchedule`] and [`schedule_violations`], the
//!   independent feasibility check of any schedule (the one checker:
//!   `clustersched.scrap.validate` words its findings), and
//!   [`check_cluster_schedule`], its pass/fail form;
//! * `metrics.rs`: [`metrics`] / [`schedule_metrics`], the metrics of a
//!   schedule (the one implementation; `clustersched.scrap.metrics` calls
//!   it), its sums exactly rounded by [`exact_sum`];
//! * `study.rs`: [`study`], every run of §4 on one pair in one call (the
//!   campaign's batched path).
//!
//! Each follows, rule for rule, the slow reference in
//! `tests/reference/scrap.py` (differential tests compare results).

mod allocation;
mod metrics;
mod mheft;
mod placement;
mod platform;
mod schedule;
mod study;

pub use allocation::{beta_estimate, hcpa_reference_allocation, scrap_allocation, Scrap};
pub use metrics::{exact_sum, metrics, schedule_metrics, Metrics};
pub use mheft::mheft_max;
pub use placement::place_reference;
pub use platform::{
    check_bytes, check_problem, Comms, MultiCluster, Network, Translation, MAX_POWER, MAX_PROCS, MAX_REF_PROCS,
    MAX_SECONDS, MAX_SIZE,
};
pub use schedule::{check_cluster_schedule, schedule_violations, ClusterSchedule, Violation, Violations};
pub use study::{study, StudyRun};
