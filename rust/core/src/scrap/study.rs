//! Every run of PDCS 2007 §4 on one (PTG, platform) pair in one call: HCPA,
//! then SCRAP, SCRAP-MAX and MHEFT-MAX at each `β`, each schedule checked
//! and measured. The campaign of `clustersched reproduce scrap` makes 31 runs
//! of well under a millisecond per pair; one call instead of 31 (and of the
//! checks and metrics around them) keeps the per-run overhead out of the
//! study. Every run is the very call a single run makes
//! ([`hcpa_reference_allocation`], [`scrap_allocation`], [`place_reference`],
//! [`mheft_max`], [`beta_estimate`], [`check_cluster_schedule`] (the one checker, [`schedule_violations`](super::schedule_violations), which `clustersched.scrap.validate` words),
//! [`metrics`], the one implementation `clustersched.scrap.metrics` calls too).

use super::allocation::{beta_estimate, hcpa_reference_allocation, scrap_allocation, Scrap};
use super::metrics::{metrics, Metrics};
use super::mheft::mheft_max;
use super::placement::place_reference;
use super::platform::{Comms, MultiCluster, Translation};
use super::schedule::{check_cluster_schedule, ClusterSchedule};
use crate::error::Result;
use crate::ptg::{HcpaRule, Ptg};

/// One run of a [`study`].
#[derive(Debug, Clone, PartialEq)]
pub struct StudyRun {
    /// The reference allocation (`None` for MHEFT-MAX).
    pub alloc: Option<Vec<u32>>,
    /// `β'` of `alloc` (`None` for MHEFT-MAX).
    pub beta_estimate: Option<f64>,
    /// SCRAP / SCRAP-MAX: `β'` of one processor per task `>= β` (`None` for HCPA and MHEFT-MAX).
    pub initial_violation: Option<bool>,
    /// The schedule, checked by [`check_cluster_schedule`].
    pub schedule: ClusterSchedule,
    /// Its [`metrics`].
    pub metrics: Metrics,
}

/// The `1 + 3 · betas.len()` runs of PDCS 2007 §4 on `g` and `platform`, in
/// this order: HCPA (`rule`, `β` plays no part), SCRAP at each `β` of
/// `betas`, SCRAP-MAX at each, MHEFT-MAX at each (`fraction = β`); HCPA,
/// SCRAP and SCRAP-MAX translating by `translation` (MHEFT-MAX does not
/// translate: its runs are the same under either rule); every
/// schedule placed with `comms`, checked against its allocation and rule, and
/// measured with the platform's total `power` ([`metrics`]).
///
/// # Errors
/// The first error of a run, in the order above (a bad `β`, a problem
/// beyond the limits, an infeasible schedule).
pub fn study(
    g: &Ptg,
    platform: &MultiCluster,
    power: f64,
    comms: Option<Comms<'_>>,
    betas: &[f64],
    rule: HcpaRule,
    translation: Translation,
) -> Result<Vec<StudyRun>> {
    let mut runs = Vec::with_capacity(1 + 3 * betas.len());
    let referenced = |alloc: Vec<u32>, initial: Option<bool>| -> Result<StudyRun> {
        let schedule = place_reference(g, platform, &alloc, comms, translation)?;
        check_cluster_schedule(g, platform, &schedule, Some((&alloc, translation)), comms)?;
        let estimate = beta_estimate(g, platform, &alloc)?;
        let metrics = metrics(platform, power, &schedule);
        Ok(StudyRun {
            alloc: Some(alloc),
            beta_estimate: Some(estimate),
            initial_violation: initial,
            schedule,
            metrics,
        })
    };
    runs.push(referenced(
        hcpa_reference_allocation(g, platform, rule, translation)?,
        None,
    )?);
    let initial = beta_estimate(g, platform, &vec![1; g.len()])?;
    for variant in [Scrap::Scrap, Scrap::ScrapMax] {
        for &beta in betas {
            let alloc = scrap_allocation(g, platform, beta, variant, translation)?;
            runs.push(referenced(alloc, Some(initial >= beta))?);
        }
    }
    for &beta in betas {
        let schedule = mheft_max(g, platform, beta, comms)?;
        check_cluster_schedule(g, platform, &schedule, None, comms)?;
        let metrics = metrics(platform, power, &schedule);
        runs.push(StudyRun {
            alloc: None,
            beta_estimate: None,
            initial_violation: None,
            schedule,
            metrics,
        });
    }
    Ok(runs)
}
