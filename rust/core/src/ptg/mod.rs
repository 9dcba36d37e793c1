//! Offline scheduling of several parallel task graphs (PTGs) on one
//! homogeneous cluster (Casanova, Desprez & Suter, INRIA RR-7224, 2010).
//!
//! The building blocks every multi-PTG algorithm of the library shares, one
//! implementation each, on PTGs in CSR form ([`Ptg`], [`PtgSet`]):
//!
//! * [`hcpa_allocation`]: HCPA's allocation loop (§4.1), optionally under the
//!   processor budgets of the CRA algorithms (§4.3);
//! * [`bottom_levels`] of an allocation or of given durations
//!   ([`duration_bottom_levels`]), and precedence levels ([`Ptg::levels`]);
//! * [`hcpa_standalone`]: each PTG alone by HCPA (its `C*_max`);
//! * [`list_schedule`]: allocated tasks onto concrete processors by priority,
//!   with either classic readiness or "ready tasks only" ([`Readiness`]);
//! * [`fairness_schedule`]: the same placement driven by Zhao et al.'s
//!   current-stretch estimates (F1, F2; §4.2);
//! * [`backfill`]: the conservative-backfilling compaction (§4.1);
//! * [`moldable_profile`]: a PTG as a moldable job (its HCPA makespan on
//!   `1..P` processors), [`dutot_allocation`] (the 3/2 + ε allocations of
//!   Mounié, Rapine & Trystram) and [`k_shelves`]: CAFM's kernels (§4.4);
//!
//! One PTG on a heterogeneous multi-cluster platform (SCRAP, PDCS 2007) is
//! its own module, [`crate::scrap`], built on [`allocation_loop`] and the
//! list-scheduling pieces below; nothing here uses it.
//!
//! Each follows, rule for rule and float operation for float operation, the
//! slow reference in `tests/reference/ptg.py` (differential tests compare
//! results for identity). All PTGs are released at time 0; times are
//! seconds, `T(v, p)` is [`exec_time`].

mod backfill;
mod dutot;
mod graph;
mod hcpa;
mod list;
mod moldable;
mod schedule;
mod shelves;
mod zhao;

pub use backfill::backfill;
pub use dutot::{dutot_allocation, Dutot, Shelf};
pub use graph::{bottom_levels, check_speed, duration_bottom_levels, exec_time, exec_times, Ptg, PtgSet};
pub use hcpa::{
    allocation_loop, hcpa_allocation, hcpa_budgets, hcpa_schedule, hcpa_standalone, HcpaLimits, HcpaRule, LoopBounds,
    Standalone, TaskCaps,
};
pub use list::{list_schedule, Readiness};
pub use moldable::{moldable_profile, moldable_profiles, monotone_profile, Profiles};
pub use schedule::TaskSchedule;
pub use shelves::{k_shelves, unit_knapsack, KShelves};
pub use zhao::{fairness_schedule, Fairness, StretchEstimate};

// Crate-internal pieces the multi-cluster placement of `crate::scrap` shares
// with the kernels here: the processor pool and its best-fit rule, the ready
// queue, the bottom-level recurrence (and, in tests, the PTG fixtures).
pub(crate) use graph::fill_bottom_levels;
#[cfg(test)]
pub(crate) use graph::tests as fixtures;
pub(crate) use list::{Pool, PoolView, Ready};
