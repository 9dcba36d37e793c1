//! Dynamic Fractional Resource Scheduling (Stillwell, Vivien & Casanova,
//! INRIA RR-7659, 2011).
//!
//! * [`bound`]: the Theorem 1 lower bound on the maximum bounded stretch
//!   (§3.1), a maximum-flow feasibility test with an exact search on the
//!   stretch;
//! * [`maxflow`]: the maximum-flow kernel it uses (Dinic on real capacities).

pub mod bound;
pub mod maxflow;
