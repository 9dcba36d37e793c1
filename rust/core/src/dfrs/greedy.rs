//! Greedy task mapping and its preempting variants (RR-7659 §4.2).
//!
//! All three act on a [`Cluster`] in place; the caller (the simulator)
//! commits the changes and charges the penalties.

use super::cluster::Cluster;
use crate::error::{Error, Result};

/// Greedy: places `job` on the nodes [`Cluster::greedy_nodes`] picks, if all
/// its tasks fit; otherwise changes nothing. Returns whether it was placed.
pub fn greedy(cluster: &mut Cluster, job: u32) -> Result<bool> {
    cluster.check_job(job)?;
    if cluster.is_running(job) {
        return Err(Error::Infeasible(format!("the job of row {job} is already placed")));
    }
    match cluster.greedy_nodes(job) {
        Some(nodes) => cluster.place(job, nodes).map(|()| true),
        None => Ok(false),
    }
}

/// What [`greedy_preempt`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Preemption {
    /// Whether the job was placed.
    pub placed: bool,
    /// Jobs paused for it, highest priority first.
    pub paused: Vec<u32>,
    /// Jobs re-placed by Greedy instead of paused (GreedyPM), highest priority first.
    pub moved: Vec<u32>,
}

/// GreedyP (and GreedyPM when `migrate`): places `job`, pausing running jobs
/// if Greedy alone cannot.
///
/// `victims` are the running jobs that may be paused for `job`, lowest
/// priority first (the simulator passes those of lower priority than `job`:
/// a job is never paused for one of lower priority). As §4.2 says:
///
/// 1. if Greedy places `job`, nothing else happens;
/// 2. victims are marked in order (lowest priority first) until `job` would
///    fit were all marked jobs paused; if it would not fit even then, nothing
///    changes and `job` is not placed;
/// 3. the marked jobs are reconsidered in decreasing priority order, and each
///    is unmarked (left running where it is) if `job` still fits with it;
/// 4. the jobs still marked are paused and `job` is placed by Greedy;
/// 5. with `migrate` (GreedyPM), each paused job, in decreasing priority
///    order, is re-placed by Greedy if it fits (a migration when its nodes
///    differ; re-placed on its former nodes it simply keeps running).
pub fn greedy_preempt(cluster: &mut Cluster, job: u32, victims: &[u32], migrate: bool) -> Result<Preemption> {
    if greedy(cluster, job)? {
        return Ok(Preemption {
            placed: true,
            ..Preemption::default()
        });
    }
    let mut seen = vec![false; cluster.jobs().len()];
    for &v in victims {
        cluster.check_job(v)?;
        if v == job || !cluster.is_running(v) || std::mem::replace(&mut seen[v as usize], true) {
            return Err(Error::InvalidArgument(format!(
                "victim row {v} must be a running job other than {job}, listed once"
            )));
        }
    }
    let want = cluster.jobs().tasks[job as usize] as u64;
    let mut marked: Vec<(u32, Vec<u32>)> = Vec::new();
    let mut fits = false;
    for &v in victims {
        let nodes = cluster.remove(v)?;
        marked.push((v, nodes));
        if cluster.room_for(job) >= want {
            fits = true;
            break;
        }
    }
    if !fits {
        for (v, nodes) in marked.into_iter().rev() {
            cluster.place(v, nodes)?;
        }
        return Ok(Preemption::default());
    }
    // marked is lowest priority first: reconsider from the highest
    let mut paused: Vec<(u32, Vec<u32>)> = Vec::new();
    for (v, nodes) in marked.into_iter().rev() {
        cluster.place(v, nodes)?;
        if cluster.room_for(job) < want {
            let nodes = cluster.remove(v)?;
            paused.push((v, nodes));
        }
    }
    let placed = greedy(cluster, job)?;
    if !placed {
        return Err(Error::Infeasible(format!(
            "the job of row {job} should fit after the pauses but does not"
        )));
    }
    let mut out = Preemption {
        placed: true,
        ..Preemption::default()
    };
    for (v, _) in paused {
        if migrate && greedy(cluster, v)? {
            out.moved.push(v);
        } else {
            out.paused.push(v);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::jobs::{Jobs, UNIT};
    use super::*;

    /// Two nodes; jobs 0-2 hold 60% memory of one node each, job 3 wants 2 x 50%.
    fn busy() -> Cluster {
        let jobs = Jobs::new(
            vec![1, 1, 1, 2, 1],
            vec![UNIT; 5],
            vec![6 * UNIT / 10, 6 * UNIT / 10, 3 * UNIT / 10, UNIT / 2, UNIT / 10],
        )
        .unwrap();
        let mut c = Cluster::new(jobs, 2).unwrap();
        c.place(0, vec![0]).unwrap();
        c.place(1, vec![1]).unwrap();
        c.place(2, vec![0]).unwrap();
        c.commit();
        c
    }

    #[test]
    fn greedy_fails_without_change() {
        let mut c = busy();
        assert!(!greedy(&mut c, 3).unwrap());
        assert_eq!(c.commit(), Default::default());
    }

    #[test]
    fn greedy_p_marks_then_unmarks() {
        let mut c = busy();
        // Lowest priority first: 2, then 0, then 1. Marking 2 leaves node 0 at 60% (no room for
        // 50%); marking 0 empties node 0, which holds both tasks: marking stops. Reconsidered from
        // the highest priority, 0 must stay paused, and so must 2 (with it node 0 holds one task).
        let out = greedy_preempt(&mut c, 3, &[2, 0, 1], false).unwrap();
        assert_eq!(
            out,
            Preemption {
                placed: true,
                paused: vec![0, 2],
                moved: vec![]
            }
        );
        assert_eq!(c.placement(3), &[0, 0]);
        assert!(c.is_running(1));
        assert_eq!(c.commit().stopped, vec![0, 2]);
    }

    #[test]
    fn greedy_pm_moves_what_fits() {
        let mut c = busy();
        c.place(4, vec![1]).unwrap();
        c.commit();
        // Marks 4, 2, 0; reconsidering keeps 4 (node 0 is then empty); 0 and 2 are paused and job
        // 3 takes node 0. GreedyPM re-places 2 (30%) on node 1 (70% used); 0 (60%) fits nowhere.
        let out = greedy_preempt(&mut c, 3, &[4, 2, 0, 1], true).unwrap();
        assert_eq!(
            out,
            Preemption {
                placed: true,
                paused: vec![0],
                moved: vec![2]
            }
        );
        assert_eq!(c.placement(2), &[1]);
        let changes = c.commit();
        assert_eq!(
            (changes.started, changes.stopped, changes.moved),
            (vec![3], vec![0], vec![2])
        );
    }

    #[test]
    fn nothing_changes_when_even_pausing_all_fails() {
        let mut c = busy();
        let out = greedy_preempt(&mut c, 3, &[2], true).unwrap();
        assert!(!out.placed);
        assert_eq!(c.commit(), Default::default());
    }

    #[test]
    fn bad_victims_are_errors() {
        let mut c = busy();
        assert!(greedy_preempt(&mut c, 3, &[3], false).is_err());
        assert!(greedy_preempt(&mut c, 3, &[4], false).is_err());
        assert!(greedy_preempt(&mut c, 3, &[0, 0], false).is_err());
    }
}
