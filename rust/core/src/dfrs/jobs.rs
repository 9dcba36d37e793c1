use crate::error::{Error, Item, Result};

/// A whole node in need units: needs are integers in `1..=UNIT`.
pub const UNIT: u64 = 1_000_000_000;

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
    /// Checked jobs: equal lengths, at least one task, needs in `1..=UNIT`.
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
            return Err(Error::InvalidArgument(format!("{n} jobs, at most {} supported", u32::MAX)));
        }
        for j in 0..n {
            let job = Item::Job(j);
            if tasks[j] == 0 {
                return Err(Error::invalid(job, "tasks", 0u32, "must be >= 1"));
            }
            // Needs are reported as the fraction of a node the user gave.
            if cpu[j] == 0 || cpu[j] > UNIT {
                let need = cpu[j] as f64 / UNIT as f64;
                return Err(Error::invalid(job, "cpu_need", need, format!("must be in [1/{UNIT}, 1] of a node")));
            }
            if mem[j] == 0 || mem[j] > UNIT {
                let need = mem[j] as f64 / UNIT as f64;
                return Err(Error::invalid(job, "mem_need", need, format!("must be in [1/{UNIT}, 1] of a node")));
            }
        }
        Ok(Jobs { tasks, cpu, mem })
    }

    /// Task counts given as signed integers (numpy's default).
    ///
    /// # Errors
    /// [`Error::Invalid`] naming the first job whose count is not in `1..=u32::MAX`.
    pub fn task_counts(raw: &[i64]) -> Result<Vec<u32>> {
        raw.iter()
            .enumerate()
            .map(|(j, &t)| match u32::try_from(t) {
                Ok(count) if count >= 1 => Ok(count),
                _ => Err(Error::invalid(Item::Job(j), "tasks", t, format!("must be in 1..={}", u32::MAX))),
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
