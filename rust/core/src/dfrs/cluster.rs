use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

use super::jobs::{Jobs, UNIT};
use crate::error::{Error, Result};

/// Most nodes a cluster may have (2^20 = 1,048,576, more than the largest
/// machine built). Node state is a few words per node and every event
/// reads it (Greedy's heap, the max-min allocation, MCB8's packing), so the
/// limit bounds both the memory of a [`Cluster`] and the time of an event;
/// larger counts are refused before anything is allocated.
pub const MAX_NODES: u32 = 1 << 20;

/// What changed between two commits of a [`Cluster`] (job indices, ascending).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    /// Jobs placed now that were not placed at the last commit (started or resumed).
    pub started: Vec<u32>,
    /// Jobs placed at the last commit and not now (paused), completions excluded.
    pub stopped: Vec<u32>,
    /// Jobs placed at both commits on different nodes (as multisets of task nodes).
    pub moved: Vec<u32>,
}

/// Node state of a DFRS cluster: `nodes` nodes of CPU and memory capacity
/// [`UNIT`] each, and where the tasks of every running job are.
///
/// A node's memory use is the sum of the memory needs of its tasks, never
/// above `UNIT`; its CPU load is the sum of their CPU needs (the load Greedy
/// reads, §4.2), which may exceed `UNIT` (CPU is over-committed and shared
/// through yields). Several tasks of one job may share a node. A job's
/// placement is the sorted list of the nodes of its tasks.
#[derive(Debug, Clone)]
pub struct Cluster {
    jobs: Jobs,
    nodes: u32,
    mem_used: Vec<u64>,
    cpu_load: Vec<u64>,
    placement: Vec<Vec<u32>>,
    running: BTreeSet<u32>,
    committed: Vec<Vec<u32>>,
    touched: Vec<u32>,
    is_touched: Vec<bool>,
    version: u64,
}

/// `nodes` if it is in `1..=MAX_NODES`, else the error every DFRS kernel gives.
pub(crate) fn check_nodes(nodes: u32) -> Result<()> {
    if nodes == 0 || nodes > MAX_NODES {
        return Err(Error::InvalidArgument(format!(
            "nodes == {nodes}, must be between 1 and {MAX_NODES}"
        )));
    }
    Ok(())
}

impl Cluster {
    /// An empty cluster of `nodes` nodes for `jobs`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `nodes` is not in `1..=MAX_NODES`.
    pub fn new(jobs: Jobs, nodes: u32) -> Result<Self> {
        check_nodes(nodes)?;
        let n = jobs.len();
        Ok(Cluster {
            jobs,
            nodes,
            mem_used: vec![0; nodes as usize],
            cpu_load: vec![0; nodes as usize],
            placement: vec![Vec::new(); n],
            running: BTreeSet::new(),
            committed: vec![Vec::new(); n],
            touched: Vec::new(),
            is_touched: vec![false; n],
            version: 0,
        })
    }

    /// The jobs' static data.
    pub fn jobs(&self) -> &Jobs {
        &self.jobs
    }

    /// Number of nodes.
    pub fn nodes(&self) -> u32 {
        self.nodes
    }

    /// Memory used on each node (units).
    pub fn mem_used(&self) -> &[u64] {
        &self.mem_used
    }

    /// CPU load (sum of the CPU needs of its tasks) of each node (units).
    pub fn cpu_load(&self) -> &[u64] {
        &self.cpu_load
    }

    /// Running (placed) jobs, ascending.
    pub fn running(&self) -> impl Iterator<Item = u32> + '_ {
        self.running.iter().copied()
    }

    /// A counter that changes whenever a job is placed or removed: two equal
    /// versions of one cluster hold the same mapping (what an allocation reads).
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Number of running jobs.
    pub fn running_count(&self) -> usize {
        self.running.len()
    }

    /// Whether `job` is placed.
    pub fn is_running(&self, job: u32) -> bool {
        self.running.contains(&job)
    }

    /// Sorted nodes of the tasks of `job` (empty when not placed).
    pub fn placement(&self, job: u32) -> &[u32] {
        self.placement.get(job as usize).map_or(&[], Vec::as_slice)
    }

    /// Sorted nodes of the tasks of `job` at the last commit (empty when it was not placed).
    pub fn committed(&self, job: u32) -> &[u32] {
        self.committed.get(job as usize).map_or(&[], Vec::as_slice)
    }

    /// The index of `job` as usize, or an error when there is no such job.
    pub fn check_job(&self, job: u32) -> Result<usize> {
        let j = job as usize;
        if j >= self.jobs.len() {
            return Err(Error::InvalidArgument(format!(
                "the job of row {job} does not exist (there are {} jobs)",
                self.jobs.len()
            )));
        }
        Ok(j)
    }

    fn touch(&mut self, job: u32) {
        if !self.is_touched[job as usize] {
            self.is_touched[job as usize] = true;
            self.touched.push(job);
        }
    }

    /// Places the tasks of `job` on `nodes` (one entry per task, in any order).
    ///
    /// Errors when the job is unknown or already placed, when `nodes` does not
    /// hold one node per task, names a node that does not exist, or would
    /// over-commit a node's memory.
    pub fn place(&mut self, job: u32, mut nodes: Vec<u32>) -> Result<()> {
        let j = self.check_job(job)?;
        if self.running.contains(&job) {
            return Err(Error::Infeasible(format!("the job of row {job} is already placed")));
        }
        if nodes.len() != self.jobs.tasks[j] as usize {
            return Err(Error::InvalidArgument(format!(
                "the job of row {job} has {} tasks, {} nodes given",
                self.jobs.tasks[j],
                nodes.len()
            )));
        }
        nodes.sort_unstable();
        let mem = self.jobs.mem[j];
        let mut k = 0;
        while k < nodes.len() {
            let node = nodes[k];
            let mut count = 0u64;
            while k < nodes.len() && nodes[k] == node {
                count += 1;
                k += 1;
            }
            if node >= self.nodes {
                return Err(Error::InvalidArgument(format!(
                    "the job of row {job}: node {node} does not exist (nodes are 0 to {})",
                    self.nodes - 1
                )));
            }
            if self.mem_used[node as usize] as u128 + count as u128 * mem as u128 > UNIT as u128 {
                return Err(Error::Infeasible(format!(
                    "the job of row {job}: {count} task(s) of memory {mem} do not fit on node {node} ({} of {UNIT} used)",
                    self.mem_used[node as usize]
                )));
            }
        }
        let cpu = self.jobs.cpu[j];
        for &node in &nodes {
            self.mem_used[node as usize] += mem;
            self.cpu_load[node as usize] += cpu;
        }
        self.placement[j] = nodes;
        self.running.insert(job);
        self.touch(job);
        self.version += 1;
        Ok(())
    }

    /// Removes `job`'s tasks from their nodes (no-op when it is not placed);
    /// returns its former placement.
    pub fn remove(&mut self, job: u32) -> Result<Vec<u32>> {
        let j = self.check_job(job)?;
        if !self.running.remove(&job) {
            return Ok(Vec::new());
        }
        let nodes = std::mem::take(&mut self.placement[j]);
        let (mem, cpu) = (self.jobs.mem[j], self.jobs.cpu[j]);
        for &node in &nodes {
            self.mem_used[node as usize] -= mem;
            self.cpu_load[node as usize] -= cpu;
        }
        self.touch(job);
        self.version += 1;
        Ok(nodes)
    }

    /// `job` has completed: it leaves its nodes and is forgotten by the next
    /// commit (a completion is neither a pause nor a move).
    pub fn complete(&mut self, job: u32) -> Result<()> {
        self.remove(job)?;
        self.committed[job as usize].clear();
        Ok(())
    }

    /// The changes since the last commit, which becomes this state.
    pub fn commit(&mut self) -> Changes {
        let mut touched = std::mem::take(&mut self.touched);
        touched.sort_unstable();
        let mut changes = Changes::default();
        for job in touched {
            let j = job as usize;
            self.is_touched[j] = false;
            let (before, now) = (&self.committed[j], &self.placement[j]);
            match (before.is_empty(), now.is_empty()) {
                (true, false) => changes.started.push(job),
                (false, true) => changes.stopped.push(job),
                (false, false) if before != now => changes.moved.push(job),
                _ => {}
            }
            self.committed[j].clone_from(&self.placement[j]);
        }
        changes
    }

    /// How many tasks of `job` the free memory could hold (capped at its task count).
    pub fn room_for(&self, job: u32) -> u64 {
        let j = job as usize;
        let (mem, want) = (self.jobs.mem[j], self.jobs.tasks[j] as u64);
        let mut room = 0u64;
        for &used in &self.mem_used {
            room += (UNIT - used) / mem;
            if room >= want {
                return want;
            }
        }
        room
    }

    /// Greedy's nodes for `job` (§4.2), without placing it: one task at a time
    /// on the node with enough free memory and the lowest CPU load (sum of
    /// needs, the tasks already chosen included), ties by lowest node index.
    /// None when the tasks do not all fit.
    pub fn greedy_nodes(&self, job: u32) -> Option<Vec<u32>> {
        let j = job as usize;
        let (mem, cpu, tasks) = (self.jobs.mem[j], self.jobs.cpu[j], self.jobs.tasks[j]);
        if self.room_for(job) < tasks as u64 {
            return None;
        }
        // Every task goes to one of the `tasks` nodes of lowest (load, index) that have room for
        // one: an unchosen node keeps its load and room, so a node outside those would lose to
        // one of them that is still unchosen. Keeping only them bounds the work by the job, not
        // by the cluster (one pass over the nodes, no allocation per node).
        let want = tasks as usize;
        let mut best: BinaryHeap<(u64, u32, u64)> = BinaryHeap::with_capacity(want + 1);
        for (node, (&used, &load)) in self.mem_used.iter().zip(&self.cpu_load).enumerate() {
            if UNIT - used < mem {
                continue;
            }
            let key = (load, node as u32, UNIT - used);
            if best.len() < want {
                best.push(key);
            } else if best.peek().is_some_and(|top| (key.0, key.1) < (top.0, top.1)) {
                best.pop();
                best.push(key);
            }
        }
        let mut heap: BinaryHeap<Reverse<(u64, u32, u64)>> = best.into_iter().map(Reverse).collect();
        let mut nodes = Vec::with_capacity(want);
        while nodes.len() < want {
            let Reverse((load, node, free)) = heap.pop()?;
            nodes.push(node);
            let free = free - mem;
            if free >= mem {
                heap.push(Reverse((load + cpu, node, free)));
            }
        }
        nodes.sort_unstable();
        Some(nodes)
    }

    /// Tasks per node of the running jobs: `(node, job, count)` for every
    /// node holding tasks, by node then job.
    pub fn node_tasks(&self) -> Vec<(u32, u32, u32)> {
        let mut out = Vec::new();
        for &job in &self.running {
            let nodes = &self.placement[job as usize];
            let mut k = 0;
            while k < nodes.len() {
                let node = nodes[k];
                let start = k;
                while k < nodes.len() && nodes[k] == node {
                    k += 1;
                }
                out.push((node, job, (k - start) as u32));
            }
        }
        out.sort_unstable();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jobs() -> Jobs {
        // tasks, cpu, mem (units of 1e-9 node)
        Jobs::new(
            vec![2, 1, 3],
            vec![UNIT, UNIT / 4, UNIT / 2],
            vec![UNIT / 2, UNIT / 10, UNIT / 3],
        )
        .unwrap()
    }

    #[test]
    fn place_remove_commit() {
        let mut c = Cluster::new(jobs(), 2).unwrap();
        c.place(0, vec![1, 0]).unwrap();
        assert_eq!(c.placement(0), &[0, 1]);
        assert_eq!(c.mem_used(), &[UNIT / 2, UNIT / 2]);
        assert_eq!(
            c.commit(),
            Changes {
                started: vec![0],
                ..Changes::default()
            }
        );
        c.remove(0).unwrap();
        c.place(0, vec![0, 0]).unwrap();
        assert_eq!(
            c.commit(),
            Changes {
                moved: vec![0],
                ..Changes::default()
            }
        );
        c.remove(0).unwrap();
        c.place(0, vec![0, 0]).unwrap();
        assert_eq!(c.commit(), Changes::default());
        c.remove(0).unwrap();
        assert_eq!(
            c.commit(),
            Changes {
                stopped: vec![0],
                ..Changes::default()
            }
        );
        c.place(0, vec![0, 1]).unwrap();
        c.commit();
        c.complete(0).unwrap();
        assert_eq!(c.commit(), Changes::default());
        assert_eq!(c.mem_used(), &[0, 0]);
    }

    #[test]
    fn node_counts_are_bounded_before_allocating() {
        for nodes in [0, MAX_NODES + 1, u32::MAX] {
            let e = Cluster::new(jobs(), nodes).unwrap_err();
            assert_eq!(
                e,
                Error::InvalidArgument(format!("nodes == {nodes}, must be between 1 and {MAX_NODES}"))
            );
        }
        assert_eq!(Cluster::new(jobs(), MAX_NODES).unwrap().nodes(), MAX_NODES);
    }

    #[test]
    fn place_rejects_bad_requests() {
        let mut c = Cluster::new(jobs(), 2).unwrap();
        assert!(matches!(c.place(0, vec![0]), Err(Error::InvalidArgument(_))));
        assert!(matches!(c.place(0, vec![0, 5]), Err(Error::InvalidArgument(_))));
        assert!(matches!(c.place(7, vec![0]), Err(Error::InvalidArgument(_))));
        c.place(0, vec![0, 1]).unwrap();
        assert!(matches!(c.place(0, vec![0, 1]), Err(Error::Infeasible(_))));
        // three tasks of 1/3 memory cannot join a half-full node
        assert!(matches!(c.place(2, vec![0, 0, 1]), Err(Error::Infeasible(_))));
        assert_eq!(c.mem_used(), &[UNIT / 2, UNIT / 2]);
    }

    #[test]
    fn greedy_lowest_load_ties_by_index() {
        let mut c = Cluster::new(jobs(), 3).unwrap();
        c.place(1, vec![0]).unwrap();
        // job 2: 3 tasks, 1/3 memory, CPU 1/2: nodes 1, 2 (load 0), then 0 (load 1/4) before 1 (1/2)
        assert_eq!(c.greedy_nodes(2), Some(vec![0, 1, 2]));
        let mut c = Cluster::new(jobs(), 2).unwrap();
        c.place(1, vec![0]).unwrap();
        c.place(0, vec![1, 1]).unwrap();
        // node 1 is full; node 0 (9/10 free) holds two tasks of 1/3, the third does not fit
        assert_eq!(c.room_for(2), 2);
        assert_eq!(c.greedy_nodes(2), None);
    }
}
