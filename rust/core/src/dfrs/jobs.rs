use crate::error::{Error, Result};

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
            let bad = |message: String| Err(Error::InvalidJob { job: j, message });
            if tasks[j] == 0 {
                return bad("has 0 tasks, must have >= 1".into());
            }
            if cpu[j] == 0 || cpu[j] > UNIT {
                return bad(format!("CPU need {} units, must be in 1..={UNIT}", cpu[j]));
            }
            if mem[j] == 0 || mem[j] > UNIT {
                return bad(format!("memory need {} units, must be in 1..={UNIT}", mem[j]));
            }
        }
        Ok(Jobs { tasks, cpu, mem })
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
