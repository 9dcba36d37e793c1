//! SCRAP and SCRAP-MAX (N'takpé & Suter, *Self-Constrained Resource
//! Allocation Procedures for PTG scheduling on shared grids*, PDCS 2007,
//! §3), and HCPA on the reference cluster of a multi-cluster platform: three
//! stopping conditions of the one allocation loop ([`allocation_loop`]).

use super::platform::{check_problem, MultiCluster, Translation};
use crate::error::{Error, Result};
use crate::ptg::{allocation_loop, HcpaRule, LoopBounds, Ptg, TaskCaps};

/// Which self-constrained procedure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scrap {
    /// Algorithm 1: grow while `β' < β` and the critical path is not saturated.
    Scrap,
    /// Algorithm 2: as SCRAP, a task being a candidate only while its
    /// precedence level holds less than `β · P_ref` reference processors.
    ScrapMax,
}

impl Scrap {
    /// The variant by its paper name: `"SCRAP"` or `"SCRAP-MAX"`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for any other name.
    pub fn from_name(name: &str) -> Result<Self> {
        match name {
            "SCRAP" => Ok(Scrap::Scrap),
            "SCRAP-MAX" => Ok(Scrap::ScrapMax),
            _ => Err(Error::InvalidArgument(format!(
                "variant == '{name}', must be 'SCRAP' or 'SCRAP-MAX'"
            ))),
        }
    }
}

/// Reference allocation of every task of `g` by SCRAP or SCRAP-MAX under
/// the resource constraint `beta` on `platform` (PDCS 2007 §3):
///
/// 1. `p_ref(t) = 1` for every task;
/// 2. while `β' < β` and the critical path is not saturated: among the
///    critical-path tasks that some cluster can still grow
///    (`∃ C_k | f(p_ref(t), t, k) < P_k`, and `p_ref(t) <` the reference
///    cluster's size; [`MultiCluster::caps`]) -- and for SCRAP-MAX whose
///    precedence level holds `< β · P_ref` processors -- the one of largest
///    benefit `T_ref(t, p)/p - T_ref(t, p+1)/(p+1)` gets one more processor;
/// 3. the addition that makes `β'` exceed `β` is cancelled; if `β' ≥ β`
///    already for the initial allocation, nothing grows.
///
/// `β' = (ω* / T_CP) / (platform power)` with `ω* = Σ T_ref(t, p) · p ·
/// s_ref` and `T_CP` the critical-path length on the reference cluster, so
/// `β' < β` reads `T_CP > area / (β · P_ref)` with `area = Σ T_ref · p` and
/// `P_ref` = [`MultiCluster::ref_power`] (exactly the platform's power over
/// `s_ref`): the allocation loop's criterion with the divisor `β · P_ref`.
/// The critical path, the benefit, its ties (lowest index) and gains `> 0`
/// are the loop's ([`crate::ptg::hcpa_allocation`]). SCRAP-MAX's level bound uses
/// the same `P_ref` (`plev_Alloc(t) · s_ref < β · P_ref · s_ref`).
///
/// # Errors
/// [`Error::InvalidArgument`] for `beta` outside `(0, 1]`; a problem beyond
/// the limits of [`check_problem`].
pub fn scrap_allocation(
    g: &Ptg,
    platform: &MultiCluster,
    beta: f64,
    variant: Scrap,
    translation: Translation,
) -> Result<Vec<u32>> {
    if !(beta > 0.0 && beta <= 1.0) {
        return Err(Error::InvalidArgument(format!("beta == {beta}, must be in (0, 1]")));
    }
    check_problem(g, platform, None)?;
    let caps = platform.caps(g, translation);
    let budget = beta * platform.ref_power();
    let bounds = LoopBounds {
        divisor: budget,
        caps: TaskCaps::PerTask(&caps),
        level_bound: (variant == Scrap::ScrapMax).then_some(budget),
        undo_overshoot: true,
    };
    allocation_loop(g, platform.ref_speed(), &bounds)
}

/// HCPA's reference allocation of `g` on `platform` (N'takpé & Suter 2006;
/// the baseline of PDCS 2007): the allocation loop on the reference cluster
/// of `P = ` [`MultiCluster::ref_procs`] processors of speed `s_ref`,
/// stopping by HCPA's criterion `T_CP > area / D` with `D` from `rule`
/// ([`HcpaRule`] on `P`) or on a saturated critical path (the same per-task
/// caps as SCRAP); no overshoot undo.
///
/// # Errors
/// A problem beyond the limits of [`check_problem`].
pub fn hcpa_reference_allocation(
    g: &Ptg,
    platform: &MultiCluster,
    rule: HcpaRule,
    translation: Translation,
) -> Result<Vec<u32>> {
    check_problem(g, platform, None)?;
    let caps = platform.caps(g, translation);
    let procs = platform.ref_procs().max(1);
    let bounds = LoopBounds {
        divisor: f64::from(rule.divisor(g, procs)),
        caps: TaskCaps::PerTask(&caps),
        level_bound: None,
        undo_overshoot: false,
    };
    allocation_loop(g, platform.ref_speed(), &bounds)
}

/// `β'` of a reference allocation: `area / (T_CP · P_ref)` (see
/// [`scrap_allocation`]); `0` when `T_CP == 0`.
///
/// # Errors
/// [`Error::InvalidArgument`] for a bad allocation.
pub fn beta_estimate(g: &Ptg, platform: &MultiCluster, alloc: &[u32]) -> Result<f64> {
    check_problem(g, platform, None)?;
    let bl = crate::ptg::bottom_levels(g, alloc, platform.ref_speed())?;
    let area = (0..g.len()).fold(0.0, |acc, v| {
        acc + platform.ref_time(g, v, alloc[v]) * f64::from(alloc[v])
    });
    Ok(if bl[0] > 0.0 {
        area / (bl[0] * platform.ref_power())
    } else {
        0.0
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptg::fixtures::{arb_ptg, chain};
    use crate::ptg::{hcpa_allocation, HcpaLimits};
    use proptest::prelude::*;

    #[test]
    fn one_homogeneous_cluster_is_hcpa() {
        let p = MultiCluster::new(vec![16], vec![2.0]).unwrap();
        let g = chain(&[4.0, 1.0, 3.0]);
        for rule in [HcpaRule::Cpa, HcpaRule::Sqrt] {
            assert_eq!(
                hcpa_reference_allocation(&g, &p, rule, Translation::AtLeastAsFast).unwrap(),
                hcpa_allocation(&g, 2.0, &HcpaLimits::cluster(16, rule)).unwrap()
            );
        }
    }

    #[test]
    fn overshoot_is_cancelled() {
        // one perfectly parallel task: area = T(1) whatever p, T_CP = T(1) / p,
        // so β' = p / P_ref; with P_ref = 10 and β = 0.35 it grows to 3 (β' = 0.3),
        // the fourth processor (0.4 > 0.35) is cancelled
        let p = MultiCluster::new(vec![10], vec![1.0]).unwrap();
        let g = Ptg::new(vec![10.0], vec![0.0], &[0, 0], &[]).unwrap();
        assert_eq!(
            scrap_allocation(&g, &p, 0.35, Scrap::Scrap, Translation::AtLeastAsFast).unwrap(),
            vec![3]
        );
        assert_eq!(
            scrap_allocation(&g, &p, 1.0, Scrap::Scrap, Translation::AtLeastAsFast).unwrap(),
            vec![10]
        ); // β' == β is kept
           // an initial violation: nothing grows
        assert_eq!(
            scrap_allocation(&g, &p, 0.05, Scrap::Scrap, Translation::AtLeastAsFast).unwrap(),
            vec![1]
        );
        assert!(scrap_allocation(&g, &p, 0.0, Scrap::Scrap, Translation::AtLeastAsFast).is_err());
        assert!(scrap_allocation(&g, &p, 1.5, Scrap::Scrap, Translation::AtLeastAsFast).is_err());
    }

    proptest! {
        #[test]
        fn scrap_respects_beta_estimate(g in arb_ptg(), beta in 0.05f64..1.0, max in any::<bool>(), closest in any::<bool>()) {
            let p = MultiCluster::new(vec![12, 20, 7], vec![1.5, 1.0, 4.0]).unwrap();
            let variant = if max { Scrap::ScrapMax } else { Scrap::Scrap };
            let rule = if closest { Translation::Closest } else { Translation::AtLeastAsFast };
            let a = scrap_allocation(&g, &p, beta, variant, rule).unwrap();
            let caps = p.caps(&g, rule);
            prop_assert!(a.iter().zip(&caps).all(|(&x, &c)| x >= 1 && x <= c));
            let initial = beta_estimate(&g, &p, &vec![1; g.len()]).unwrap();
            if a.iter().any(|&x| x > 1) {
                prop_assert!(beta_estimate(&g, &p, &a).unwrap() <= beta * (1.0 + 1e-9));
            } else {
                let _ = initial;
            }
        }
    }
}
