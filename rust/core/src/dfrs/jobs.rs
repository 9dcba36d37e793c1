use crate::error::{Error, Item, Result, Rule};

/// A whole node in need units: needs are integers in `1..=UNIT`.
pub const UNIT: u64 = 1_000_000_000;

/// Most tasks one job may have (2^20 = 1,048,576). A placement keeps one
/// entry per task and Greedy and MCB8 place tasks one at a time, so the
/// limit bounds their memory and time; RR-7659's jobs have at most 128
/// tasks, and no real cluster runs a job of a million VMs.
pub const MAX_TASKS: u32 = 1 << 20;

/// Most tasks a whole job set may have (2^28, about 268 million): the tasks
/// of the jobs running at one time, one `u32` each, then fit in 1 GiB.
pub const MAX_TOTAL_TASKS: u64 = 1 << 28;

/// The static data of DFRS jobs, one entry per job (row order = submission order).
#[derive(Debug, Clone, Default)]
pub struct Jobs {
    /// Tasks of each job, `>= 1`.
    pub tasks: Vec<u32>,
    /// CPU need of each task, in units of `1 / UNIT` of a node, `1..=UNIT`.
    pub cpu: Vec<u64>,
    /// Memory need of each task, in units of `1 / UNIT` of a node, `1..=UNIT`.
    pub mem: Vec<u64>,
}

impl Jobs {
    /// Checked jobs: equal lengths, `1..=MAX_TASKS` tasks each and at most
    /// [`MAX_TOTAL_TASKS`] in all, needs in `1..=UNIT`.
    pub fn new(tasks: Vec<u32>, cpu: Vec<u64>, mem: Vec<u64>) -> Result<Self> {
        let n = tasks.len();
        if cpu.len() != n || mem.len() != n {
            return Err(Error::InvalidArgument(format!(
                "job arrays differ in length: tasks {n}, cpu {}, mem {}",
                cpu.len(),
                mem.len()
            )));
        }
        if n > u32::MAX as usize {
            return Err(Error::InvalidArgument(format!(
                "{n} jobs, at most {} supported",
                u32::MAX
            )));
        }
        let mut total: u64 = 0;
        for j in 0..n {
            let job = Item::Job(j);
            if tasks[j] == 0 || tasks[j] > MAX_TASKS {
                return Err(Error::invalid(
                    job,
                    "tasks",
                    tasks[j],
                    Rule::Between(1i64.into(), MAX_TASKS.into()),
                ));
            }
            total += u64::from(tasks[j]);
            if total > MAX_TOTAL_TASKS {
                return Err(Error::invalid(
                    job,
                    "tasks",
                    tasks[j],
                    format!("brings the job set to {total} tasks, at most {MAX_TOTAL_TASKS} are supported"),
                ));
            }
            // Needs are reported as the fraction of a node the user gave.
            if cpu[j] == 0 || cpu[j] > UNIT {
                let need = cpu[j] as f64 / UNIT as f64;
                return Err(Error::invalid(job, "cpu_need", need, unit_fraction()).noted("fraction of a node"));
            }
            if mem[j] == 0 || mem[j] > UNIT {
                let need = mem[j] as f64 / UNIT as f64;
                return Err(Error::invalid(job, "mem_need", need, unit_fraction()).noted("fraction of a node"));
            }
        }
        Ok(Jobs { tasks, cpu, mem })
    }

    /// Task counts given as signed integers (numpy's default).
    ///
    /// # Errors
    /// [`Error::Invalid`] naming the first job whose count is not in `1..=MAX_TASKS`.
    /// (The rule is data: Python words it.)
    pub fn task_counts(raw: &[i64]) -> Result<Vec<u32>> {
        raw.iter()
            .enumerate()
            .map(|(j, &t)| match u32::try_from(t) {
                Ok(count) if (1..=MAX_TASKS).contains(&count) => Ok(count),
                _ => Err(Error::invalid(
                    Item::Job(j),
                    "tasks",
                    t,
                    Rule::Between(1i64.into(), MAX_TASKS.into()),
                )),
            })
            .collect()
    }

    /// Number of jobs.
    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    /// True when there are no jobs.
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// CPU need of a task of `job` as a fraction of a node.
    pub fn cpu_fraction(&self, job: usize) -> f64 {
        self.cpu[job] as f64 / UNIT as f64
    }

    /// Total memory of `job` (all tasks), in units.
    pub fn total_mem(&self, job: usize) -> u128 {
        self.tasks[job] as u128 * self.mem[job] as u128
    }
}

/// A need's rule: between one unit and a whole node.
fn unit_fraction() -> Rule {
    Rule::Between((1.0 / UNIT as f64).into(), 1.0.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_counts_are_bounded() {
        assert_eq!(
            Jobs::task_counts(&[1, i64::from(MAX_TASKS)]).unwrap(),
            vec![1, MAX_TASKS]
        );
        for bad in [0, -1, i64::from(MAX_TASKS) + 1, i64::from(u32::MAX)] {
            let e = Jobs::task_counts(&[1, bad]).unwrap_err();
            assert_eq!(
                e,
                Error::invalid(Item::Job(1), "tasks", bad, Rule::Between(1i64.into(), MAX_TASKS.into()))
            );
        }
        let e = Jobs::new(vec![MAX_TASKS + 1], vec![UNIT], vec![1]).unwrap_err();
        assert!(matches!(e, Error::Invalid(_)), "{e}");
    }

    #[test]
    fn the_job_set_is_bounded_in_tasks() {
        let n = (MAX_TOTAL_TASKS / u64::from(MAX_TASKS)) as usize;
        assert!(Jobs::new(vec![MAX_TASKS; n], vec![UNIT; n], vec![1; n]).is_ok());
        let e = Jobs::new(vec![MAX_TASKS; n + 1], vec![UNIT; n + 1], vec![1; n + 1]).unwrap_err();
        let words = format!(
            "brings the job set to {} tasks, at most {MAX_TOTAL_TASKS} are supported",
            MAX_TOTAL_TASKS + u64::from(MAX_TASKS)
        );
        assert_eq!(e, Error::invalid(Item::Job(n), "tasks", MAX_TASKS, words));
    }
}
