//! Launch-time mapping of a task interaction graph (TIG) onto a grid of LANs
//! under QoS constraints: QLSE (Baraglia, Ferrini, Tonellotto, Ricci &
//! Yahyapour, "QoS-constrained List Scheduling Heuristics for Parallel
//! Applications on Grids", §4) and its greedy best-fit baseline (§5).
//!
//! * [`Tig`], [`LanGrid`]: the two inputs (§3), validated, in CSR form;
//! * [`task_scores`], [`task_order`]: eq. (1), the layers, the subsets and
//!   the cycle rule (§4.1);
//! * [`lan_priorities`] (eq. 2, §4.2), [`kept_links`], [`clusters`] (§4.3);
//! * [`qlse`], [`greedy_best_fit`]: the two algorithms, over one shared
//!   implementation of the allocation conditions and updates (§4.4).
//!
//! Each follows, rule for rule and float operation for float operation, the
//! slow reference in `tests/reference/grid.py` (differential tests compare
//! results for identity). Powers are in Mflop/s, bandwidths in Mb/s.

mod alloc;
mod cluster;
mod model;
mod order;
mod qlse;

pub use alloc::{fits, Bandwidth, ExactSum, HostChoice, RTOL};
pub use cluster::{clusters, kept_links, lan_priorities, quantile, Cluster, Quartiles, STEP_QUANTILES};
pub use model::{LanGrid, Tig, MAX_EDGES, MAX_HOSTS, MAX_LANS, MAX_LINKS, MAX_TASKS, MAX_VALUE};
pub use order::{task_order, task_scores, TaskOrder, Weights};
pub use qlse::{greedy_best_fit, mapping_is_valid, qlse, GreedyReading, Outcome, QlseParams};
