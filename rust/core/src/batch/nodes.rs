//! A cluster of nodes, each with cores, memory and generic resources (GPUs),
//! the requests jobs make of it (as Slurm's `sbatch` options), and where a
//! job goes: the placement rule of Slurm's consumable-resource selection
//! (`select/cons_res` with `CR_Core_Memory`), as documented below.
//!
//! Only the placement and the free resources live here; the event loop is
//! [`BatchSim`](super::BatchSim)'s, shared with the processor pool.

use crate::error::{Error, Item, Result, Rule};
use crate::memory::{advise_huge_pages, huge_vec};
use crate::time::Time;

/// Memory asked per node that means "all of the node's memory" (Slurm's `--mem=0`).
pub const WHOLE_NODE_MEMORY: u64 = u64::MAX;

/// The nodes of a cluster, one entry per node (struct of arrays).
#[derive(Debug, Clone, Default)]
pub struct Nodes {
    /// Cores of each node.
    pub cores: Vec<u32>,
    /// Memory of each node (MB).
    pub memory: Vec<u64>,
    /// Generic resources: `gres[node * kinds + k]` units of kind `k`.
    pub gres: Vec<u32>,
    /// Number of generic resource kinds (columns of `gres`).
    pub kinds: usize,
    /// Features of each node, one bit per feature.
    pub features: Vec<u64>,
    /// Slurm's node weight: nodes of lower weight are allocated first.
    pub weight: Vec<u32>,
    /// Partitions each node belongs to, one bit per partition.
    pub partitions: Vec<u64>,
}

impl Nodes {
    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.cores.len()
    }

    /// True when there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.cores.is_empty()
    }

    /// Total cores.
    pub fn total_cores(&self) -> u64 {
        self.cores.iter().map(|&c| u64::from(c)).sum()
    }

    fn check(&self) -> Result<()> {
        let n = self.len();
        if n == 0 {
            return Err(Error::InvalidArgument("a node cluster needs at least one node".into()));
        }
        let lengths = [
            self.memory.len(),
            self.features.len(),
            self.weight.len(),
            self.partitions.len(),
        ];
        if lengths.iter().any(|&l| l != n) || self.gres.len() != n * self.kinds || self.kinds > 64 {
            return Err(Error::InvalidArgument(format!(
                "node arrays differ in length: cores {n}, memory {}, gres {} ({} kinds), features {}, weight {}, \
                 partitions {}",
                self.memory.len(),
                self.gres.len(),
                self.kinds,
                self.features.len(),
                self.weight.len(),
                self.partitions.len()
            )));
        }
        if let Some(i) = self.cores.iter().position(|&c| c == 0) {
            return Err(Error::InvalidArgument(format!("node {i} has 0 cores, must have >= 1")));
        }
        Ok(())
    }
}

/// What a job asks for, as `sbatch` options resolved against its partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Request {
    /// Minimum number of nodes (`-N`), at least 1.
    pub nodes: u32,
    /// Tasks (`-n`), at least `nodes`: every node gets at least one.
    pub tasks: u32,
    /// Cores per task (`-c`), at least 1.
    pub cpus_per_task: u32,
    /// Memory per allocated core (MB, `--mem-per-cpu`); 0 when memory is asked per node.
    pub mem_per_cpu: u64,
    /// Memory per node (MB, `--mem`); 0 when asked per core (or not at all),
    /// [`WHOLE_NODE_MEMORY`] for all of each node's memory.
    pub mem_per_node: u64,
    /// Generic resource units per node (`--gres=gpu:2`).
    pub gres_per_node: u32,
    /// The generic resource kinds (columns) those units may come from, one bit each.
    pub gres_kinds: u64,
    /// Features every node must have (`--constraint=a&b`), one bit each.
    pub features: u64,
    /// The partition (index).
    pub partition: u32,
    /// Whole nodes (`--exclusive`): every core of each node it gets.
    pub exclusive: bool,
}

impl Request {
    /// Cores the job holds in all: what a processor pool would count.
    pub fn width(&self) -> u64 {
        u64::from(self.tasks) * u64::from(self.cpus_per_task)
    }

    /// Whether `self` asks at least what `other` asks, of the same kind: the
    /// same partition, features, generic resources, exclusiveness and cores
    /// per task, and at least as many tasks and nodes and as much memory per
    /// core and per node (all of each node's only where `other` asks that
    /// too). Then, on any free resources, each node can host no more tasks of
    /// `self` than of `other` (its capacity falls as the memory asked rises),
    /// so where the placement rule finds `other` no nodes it finds `self`
    /// none either.
    pub fn asks_at_least(&self, other: &Request) -> bool {
        self.tasks >= other.tasks
            && self.nodes >= other.nodes
            && self.mem_per_cpu >= other.mem_per_cpu
            && (self.mem_per_node == other.mem_per_node
                || (other.mem_per_node < self.mem_per_node && self.mem_per_node != WHOLE_NODE_MEMORY))
            && self.cpus_per_task == other.cpus_per_task
            && self.gres_per_node == other.gres_per_node
            && self.gres_kinds == other.gres_kinds
            && self.features == other.features
            && self.partition == other.partition
            && self.exclusive == other.exclusive
    }
}

/// One node's part of a job's allocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Share {
    /// The node.
    pub node: u32,
    /// Tasks placed on it.
    pub tasks: u32,
    /// Cores held.
    pub cores: u32,
    /// Memory held (MB).
    pub memory: u64,
}

impl Share {
    /// A node chosen for a job, holding (until the tasks are dealt) how many it can host.
    fn host(node: u32, capacity: u32) -> Share {
        Share {
            node,
            tasks: capacity,
            cores: 0,
            memory: 0,
        }
    }
}

/// Free resources of every node: what placement reads and updates.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Free {
    /// Free cores of each node.
    pub cores: Vec<u32>,
    /// Free memory of each node (MB).
    pub memory: Vec<u64>,
    /// Free generic resources, `gres[node * kinds + k]`.
    pub gres: Vec<u32>,
}

impl Free {
    /// Every resource of every node free.
    pub fn idle(nodes: &Nodes) -> Self {
        Free {
            cores: nodes.cores.clone(),
            memory: nodes.memory.clone(),
            gres: nodes.gres.clone(),
        }
    }

    /// Resources free in both `self` and `other`, node by node.
    pub fn meet(&self, other: &Free) -> Free {
        let min_u32 = |a: &[u32], b: &[u32]| a.iter().zip(b).map(|(x, y)| *x.min(y)).collect();
        Free {
            cores: min_u32(&self.cores, &other.cores),
            memory: self.memory.iter().zip(&other.memory).map(|(x, y)| *x.min(y)).collect(),
            gres: min_u32(&self.gres, &other.gres),
        }
    }

    /// Takes `shares` (and the generic resources `gres` they hold, `kinds` per share).
    pub fn take(&mut self, kinds: usize, shares: &[Share], gres: &[u32]) {
        for (i, s) in shares.iter().enumerate() {
            let n = s.node as usize;
            self.cores[n] -= s.cores;
            self.memory[n] -= s.memory;
            for k in 0..kinds {
                self.gres[n * kinds + k] -= gres[i * kinds + k];
            }
        }
    }

    /// Returns `shares` (and their generic resources).
    pub fn give(&mut self, kinds: usize, shares: &[Share], gres: &[u32]) {
        for (i, s) in shares.iter().enumerate() {
            let n = s.node as usize;
            self.cores[n] += s.cores;
            self.memory[n] += s.memory;
            for k in 0..kinds {
                self.gres[n * kinds + k] += gres[i * kinds + k];
            }
        }
    }

    /// [`Free::take`] of shares of the nodes `nodes` keeping `index` (this state's) up to date, in one
    /// pass: the cores taken. A share holds a core at least, so its node is no longer idle, and keeps a
    /// free core if any is left.
    pub(crate) fn take_indexed(&mut self, nodes: &Nodes, index: &mut FreeIndex, shares: &[Share], gres: &[u32]) -> u64 {
        let k = nodes.kinds;
        let mut cores = 0;
        for (i, s) in shares.iter().enumerate() {
            let n = s.node as usize;
            debug_assert!(s.cores > 0, "a share holds a core at least");
            self.cores[n] -= s.cores;
            self.memory[n] -= s.memory;
            for g in 0..k {
                self.gres[n * k + g] -= gres[i * k + g];
            }
            cores += u64::from(s.cores);
            let (w, bit) = (n / 64, 1u64 << (n % 64));
            index.idle[w] &= !bit;
            if self.cores[n] == 0 {
                index.free[w] &= !bit;
            }
        }
        cores
    }

    /// [`Free::give`] keeping `index` up to date, as [`Free::take_indexed`]: the cores given. The node
    /// of a share given back has a free core, and is idle if it has all its resources again.
    pub(crate) fn give_indexed(&mut self, nodes: &Nodes, index: &mut FreeIndex, shares: &[Share], gres: &[u32]) -> u64 {
        let k = nodes.kinds;
        let mut cores = 0;
        for (i, s) in shares.iter().enumerate() {
            let n = s.node as usize;
            self.cores[n] += s.cores;
            self.memory[n] += s.memory;
            for g in 0..k {
                self.gres[n * k + g] += gres[i * k + g];
            }
            cores += u64::from(s.cores);
            let (w, bit) = (n / 64, 1u64 << (n % 64));
            index.free[w] |= bit;
            if self.cores[n] == nodes.cores[n]
                && self.memory[n] == nodes.memory[n]
                && (0..k).all(|g| self.gres[n * k + g] == nodes.gres[n * k + g])
            {
                index.idle[w] |= bit;
            }
        }
        cores
    }
}

/// What placement reads of the nodes' free resources: a [`Free`], or the
/// least of two ([`Least`]) without building it.
pub trait FreeView {
    /// Free cores of node `n`.
    fn cores(&self, n: usize) -> u32;
    /// Free memory of node `n` (MB).
    fn memory(&self, n: usize) -> u64;
    /// Free units of generic resource entry `i` (`node * kinds + kind`).
    fn gres(&self, i: usize) -> u32;
}

impl FreeView for Free {
    fn cores(&self, n: usize) -> u32 {
        self.cores[n]
    }
    fn memory(&self, n: usize) -> u64 {
        self.memory[n]
    }
    fn gres(&self, i: usize) -> u32 {
        self.gres[i]
    }
}

/// What is free in both of two states, node by node (EASY's "free now and
/// beyond the reservation").
#[derive(Debug, Clone, Copy)]
pub struct Least<'a>(pub &'a Free, pub &'a Free);

impl FreeView for Least<'_> {
    fn cores(&self, n: usize) -> u32 {
        self.0.cores[n].min(self.1.cores[n])
    }
    fn memory(&self, n: usize) -> u64 {
        self.0.memory[n].min(self.1.memory[n])
    }
    fn gres(&self, i: usize) -> u32 {
        self.0.gres[i].min(self.1.gres[i])
    }
}

/// A placement: the job's shares, node by node, and the generic resource
/// units each share holds (`kinds` per share).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Placement {
    /// Shares in the order the rule chose the nodes.
    pub shares: Vec<Share>,
    /// `gres[i * kinds + k]`: units of kind `k` held by share `i`.
    pub gres: Vec<u32>,
}

/// Which nodes have a free core, and which are idle (every resource free),
/// in some state, one bit per node. Placement looks at these only, since a
/// node without a free core hosts no task, and idle nodes of one kind
/// ([`Groups`]) are placed alike: a loaded machine has few partly free nodes,
/// and its placements then cost little.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct FreeIndex {
    free: Vec<u64>,
    idle: Vec<u64>,
}

impl FreeIndex {
    /// The index of `free`.
    pub(crate) fn of(nodes: &Nodes, free: &impl FreeView) -> Self {
        let words = nodes.len().div_ceil(64);
        let mut index = FreeIndex {
            free: vec![0; words],
            idle: vec![0; words],
        };
        for n in 0..nodes.len() {
            index.update(nodes, free, n);
        }
        index
    }

    /// Brings node `n`'s bits up to date with `free`.
    pub(crate) fn update(&mut self, nodes: &Nodes, free: &impl FreeView, n: usize) {
        let (w, bit) = (n / 64, 1u64 << (n % 64));
        let k = nodes.kinds;
        let cores = free.cores(n);
        let idle = cores == nodes.cores[n]
            && free.memory(n) == nodes.memory[n]
            && (0..k).all(|g| free.gres(n * k + g) == nodes.gres[n * k + g]);
        self.free[w] = if cores > 0 {
            self.free[w] | bit
        } else {
            self.free[w] & !bit
        };
        self.idle[w] = if idle { self.idle[w] | bit } else { self.idle[w] & !bit };
    }
}

/// What placement reads of an index: a [`FreeIndex`], or the index of the
/// [`Least`] of two states ([`Both`]) without building it.
pub(crate) trait Bits {
    /// Words of bits (64 nodes each).
    fn words(&self) -> usize;
    /// Nodes `64 w ..` with a free core.
    fn free_word(&self, w: usize) -> u64;
    /// Nodes `64 w ..` idle.
    fn idle_word(&self, w: usize) -> u64;

    /// The nodes with a free core, ascending.
    fn nodes(&self) -> impl Iterator<Item = usize> + Clone {
        ones((0..self.words()).map(|w| self.free_word(w)))
    }

    /// The nodes with a free core that are not idle, ascending.
    fn partly_free(&self) -> impl Iterator<Item = usize> + Clone {
        ones((0..self.words()).map(|w| self.free_word(w) & !self.idle_word(w)))
    }
}

impl Bits for FreeIndex {
    fn words(&self) -> usize {
        self.free.len()
    }
    fn free_word(&self, w: usize) -> u64 {
        self.free[w]
    }
    fn idle_word(&self, w: usize) -> u64 {
        self.idle[w]
    }
}

/// The index of the [`Least`] of two states: a node is idle in it when idle
/// in both, and has a free core when it has one in both.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Both<'a>(pub &'a FreeIndex, pub &'a FreeIndex);

impl Bits for Both<'_> {
    fn words(&self) -> usize {
        self.0.free.len()
    }
    fn free_word(&self, w: usize) -> u64 {
        self.0.free[w] & self.1.free[w]
    }
    fn idle_word(&self, w: usize) -> u64 {
        self.0.idle[w] & self.1.idle[w]
    }
}

/// The positions of the set bits of `words`, ascending.
fn ones(words: impl Iterator<Item = u64> + Clone) -> impl Iterator<Item = usize> + Clone {
    words.enumerate().flat_map(|(w, word)| {
        let mut bits = word;
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let b = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            Some(w * 64 + b)
        })
    })
}

/// The nodes of a cluster grouped by kind: the same cores, memory, generic
/// resources, features, partitions and weight. Idle nodes of one kind host
/// the same tasks of any request and come in index order in every choice
/// of the placement rule, so one capacity and one bit mask stand for them.
#[derive(Debug, Clone)]
pub(crate) struct Groups {
    /// The first node of each group.
    first: Vec<usize>,
    /// The members of each group, `words` bits per group.
    members: Vec<u64>,
    words: usize,
    /// Every node idle: where a group's capacity is read.
    idle: Free,
}

impl Groups {
    /// More groups than this and placement looks at every free node instead
    /// (each group costs a pass over its bit mask).
    const MAX: usize = 16;

    /// The groups of `nodes`, or `None` when they are more than [`Groups::MAX`].
    pub(crate) fn of(nodes: &Nodes) -> Option<Groups> {
        let (k, words) = (nodes.kinds, nodes.len().div_ceil(64));
        let mut groups = Groups {
            first: Vec::new(),
            members: Vec::new(),
            words,
            idle: Free::idle(nodes),
        };
        for n in 0..nodes.len() {
            let alike = |m: usize| {
                nodes.cores[m] == nodes.cores[n]
                    && nodes.memory[m] == nodes.memory[n]
                    && nodes.features[m] == nodes.features[n]
                    && nodes.partitions[m] == nodes.partitions[n]
                    && nodes.weight[m] == nodes.weight[n]
                    && nodes.gres[m * k..(m + 1) * k] == nodes.gres[n * k..(n + 1) * k]
            };
            let g = match groups.first.iter().position(|&m| alike(m)) {
                Some(g) => g,
                None if groups.first.len() == Self::MAX => return None,
                None => {
                    groups.first.push(n);
                    groups.members.resize(groups.members.len() + words, 0);
                    groups.first.len() - 1
                }
            };
            groups.members[g * words + n / 64] |= 1 << (n % 64);
        }
        Some(groups)
    }

    fn len(&self) -> usize {
        self.first.len()
    }

    /// Group `g`'s idle nodes in `index`, word by word.
    fn idle<'a>(&'a self, index: &'a impl Bits, g: usize) -> impl Iterator<Item = u64> + Clone + 'a {
        let members = &self.members[g * self.words..(g + 1) * self.words];
        members.iter().enumerate().map(|(w, m)| m & index.idle_word(w))
    }
}

/// What a placement counts before it places (see [`Nodes::place`]): the
/// tasks the candidate nodes can host and how many can host one, and the
/// best one-node fit as `(weight, cores left, node)`. Whether the job fits
/// is read from it alone: a shadow's walk asks only that.
#[derive(Debug, Clone, Copy, Default)]
struct Survey {
    room: u64,
    hosts: u64,
    single: Option<(u32, u32, u32)>,
}

impl Survey {
    fn consider_single(&mut self, weight: u32, left: u32, n: usize) {
        let key = (weight, left, n as u32);
        if self.single.is_none_or(|best| key < best) {
            self.single = Some(key);
        }
    }

    /// Whether the placement rule finds nodes for `r`.
    fn fits(&self, r: &Request) -> bool {
        self.single.is_some() || (self.room >= u64::from(r.tasks) && self.hosts >= u64::from(r.nodes))
    }
}

impl Placement {
    /// Empties it, keeping its buffers: policies place into one placement
    /// over and over (a fresh one per placement was an allocation each).
    fn clear(&mut self) {
        self.shares.clear();
        self.gres.clear();
    }
}

impl Nodes {
    /// Checks the nodes, and each request against them: counts in range,
    /// and a job that can run on its partition's nodes when they are all idle.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for inconsistent node arrays;
    /// [`Error::Invalid`] naming the first job whose request is malformed or
    /// that no idle node set of its partition can hold (the rule names the
    /// resource that runs short).
    pub fn check_requests(&self, requests: &[Request]) -> Result<()> {
        self.check()?;
        let idle = Free::idle(self);
        // Whether a request fits the idle nodes depends on each node's resources only, so one node of
        // each kind (same cores, memory, generic resources, features and partitions) stands for them all.
        let mut kinds: Vec<(usize, u64)> = Vec::new();
        let mut seen = std::collections::HashMap::new();
        let k = self.kinds;
        for n in 0..self.len() {
            let key = (
                self.cores[n],
                self.memory[n],
                self.features[n],
                self.partitions[n],
                &self.gres[n * k..(n + 1) * k],
            );
            let at = *seen.entry(key).or_insert(kinds.len());
            if at == kinds.len() {
                kinds.push((n, 0));
            }
            kinds[at].1 += 1;
        }
        for (j, r) in requests.iter().enumerate() {
            let job = Item::Job(j);
            if r.nodes == 0 {
                return Err(Error::invalid(job, "nodes", r.nodes, Rule::AtLeast(1u32.into())));
            }
            if r.tasks < r.nodes {
                return Err(Error::invalid(
                    job,
                    "tasks",
                    r.tasks,
                    Rule::AtLeastOf("nodes", r.nodes.into()),
                ));
            }
            if r.cpus_per_task == 0 {
                return Err(Error::invalid(
                    job,
                    "cpus_per_task",
                    r.cpus_per_task,
                    Rule::AtLeast(1u32.into()),
                ));
            }
            if r.partition >= 64 {
                return Err(Error::invalid(
                    job,
                    "partition",
                    r.partition,
                    Rule::Between(0i64.into(), 63i64.into()),
                ));
            }
            // the placement rule finds nodes iff they have room for every task on enough nodes
            let (mut room, mut hosts) = (0u64, 0u64);
            for &(n, count) in &kinds {
                let cap = self.capacity(&idle, r, n);
                if cap > 0 {
                    room += u64::from(cap) * count;
                    hosts += count;
                }
            }
            if room < u64::from(r.tasks) || hosts < u64::from(r.nodes) {
                let why = self.shortfall(r);
                return Err(Error::invalid(job, why.0, why.1, Rule::Other(why.2)));
            }
        }
        Ok(())
    }

    /// Why no idle node set can hold `r`: the field, its value and the rule, in words.
    fn shortfall(&self, r: &Request) -> (&'static str, u64, String) {
        let in_partition: Vec<usize> = (0..self.len())
            .filter(|&n| self.partitions[n] >> r.partition & 1 == 1)
            .collect();
        if in_partition.is_empty() {
            return (
                "partition",
                u64::from(r.partition),
                "must name a partition with nodes".into(),
            );
        }
        let featured: Vec<usize> = in_partition
            .iter()
            .copied()
            .filter(|&n| self.features[n] & r.features == r.features)
            .collect();
        if featured.is_empty() {
            return (
                "features",
                r.features,
                "must be features of some node of the partition".into(),
            );
        }
        let idle = Free::idle(self);
        let hosts: Vec<usize> = featured
            .iter()
            .copied()
            .filter(|&n| self.capacity(&idle, r, n) > 0)
            .collect();
        if hosts.is_empty() {
            let most_cores = featured.iter().map(|&n| self.cores[n]).max().unwrap_or(0);
            if r.cpus_per_task > most_cores {
                return (
                    "cpus_per_task",
                    u64::from(r.cpus_per_task),
                    format!("must be at most {most_cores}, the most cores of a node of the partition"),
                );
            }
            if r.gres_per_node > 0 {
                return (
                    "gpus_per_node",
                    u64::from(r.gres_per_node),
                    "must fit the GPUs of some node of the partition with its features".into(),
                );
            }
            let asked = if r.mem_per_node > 0 && r.mem_per_node != WHOLE_NODE_MEMORY {
                r.mem_per_node
            } else {
                r.mem_per_cpu * u64::from(r.cpus_per_task)
            };
            let most = featured.iter().map(|&n| self.memory[n]).max().unwrap_or(0);
            return (
                "memory_mb",
                asked,
                format!("must be at most {most} MB, the most memory of a node of the partition with its features"),
            );
        }
        if (hosts.len() as u64) < u64::from(r.nodes) {
            return (
                "nodes",
                u64::from(r.nodes),
                format!(
                    "must be at most {}, the nodes of the partition that can host it",
                    hosts.len()
                ),
            );
        }
        let tasks: u64 = hosts.iter().map(|&n| u64::from(self.capacity(&idle, r, n))).sum();
        (
            "tasks",
            u64::from(r.tasks),
            format!("must be at most {tasks}, what the partition's nodes can host"),
        )
    }

    /// Tasks of `r` node `n` can host with the resources `free` leaves it.
    pub fn capacity(&self, free: &impl FreeView, r: &Request, n: usize) -> u32 {
        let cores = free.cores(n);
        // a node without a task's cores hosts nothing: on a loaded machine the common answer, found first
        if cores < r.cpus_per_task
            || self.partitions[n] >> r.partition & 1 == 0
            || self.features[n] & r.features != r.features
        {
            return 0;
        }
        let k = self.kinds;
        let memory = free.memory(n);
        if r.exclusive
            && (cores != self.cores[n]
                || memory != self.memory[n]
                || (0..k).any(|g| free.gres(n * k + g) != self.gres[n * k + g]))
        {
            return 0;
        }
        // one core a task (the common request) needs no division
        let mut tasks = if r.cpus_per_task == 1 {
            cores
        } else {
            cores / r.cpus_per_task
        };
        if r.mem_per_node == WHOLE_NODE_MEMORY {
            if memory < self.memory[n] {
                return 0;
            }
        } else if memory < r.mem_per_node {
            return 0;
        }
        if r.mem_per_cpu > 0 {
            let per_task = r.mem_per_cpu.saturating_mul(u64::from(r.cpus_per_task));
            // divide only when memory, not cores, bounds the tasks
            if per_task.saturating_mul(u64::from(tasks)) > memory {
                tasks = u32::try_from(memory / per_task).unwrap_or(u32::MAX);
            }
        }
        if r.gres_per_node > 0 {
            let units: u64 = (0..k)
                .filter(|&g| r.gres_kinds >> g & 1 == 1)
                .map(|g| u64::from(free.gres(n * k + g)))
                .sum();
            if units < u64::from(r.gres_per_node) {
                return 0;
            }
        }
        tasks
    }

    /// Where `r` goes on the resources `free` leaves, or `None` if it does not fit now.
    ///
    /// The rule (Slurm's `select/cons_res` with `CR_Core_Memory` and block
    /// distribution, as its documentation describes it; where it differs, said):
    /// 1. a node can host a task when it is in the job's partition, has every
    ///    feature asked, has the cores, memory (per core or per node) and
    ///    generic resources free, and is idle if the job is exclusive;
    /// 2. a job that one node can hold (`nodes == 1`) goes to the node of
    ///    lowest weight ("nodes with the lowest weight are allocated first",
    ///    slurm.conf `Weight`), then best fit: the fewest cores left free
    ///    after it, then the lowest index. (Slurm's best fit works on blocks
    ///    of consecutive nodes and, with `topology/tree`, on leaf switches;
    ///    this is its one-node case without a topology.)
    /// 3. otherwise nodes are taken by lowest weight, then most tasks they
    ///    can host (the fewest nodes), then lowest index, until the job has
    ///    its minimum node count and room for all its tasks; every node gets
    ///    one task and the rest fill the nodes in that order (block
    ///    distribution). Slurm prefers consecutive nodes here; we do not model
    ///    node adjacency.
    ///
    /// Each share holds `tasks × cpus_per_task` cores (every core of the node
    /// when exclusive), `mem_per_cpu` per core held or `mem_per_node` (all
    /// of the node's memory for [`WHOLE_NODE_MEMORY`]), and `gres_per_node`
    /// units taken from the allowed kinds in column order.
    pub fn place(&self, free: &impl FreeView, r: &Request) -> Option<Placement> {
        let mut placement = Placement::default();
        self.place_among(free, 0..self.len(), r, &mut placement)
            .then_some(placement)
    }

    /// [`Nodes::place`] looking only at `candidates` (ascending node indices),
    /// which must hold every node with a task's cores free: the others host
    /// nothing, so the placement is the same. Written into `out` (whatever
    /// it held), and whether it fits.
    fn place_among(
        &self,
        free: &impl FreeView,
        candidates: impl Iterator<Item = usize> + Clone,
        r: &Request,
        out: &mut Placement,
    ) -> bool {
        let survey = self.survey_among(free, candidates.clone(), r);
        self.place_surveyed(free, r, &survey, out, |hosts| {
            // the hosts again (capacities are cheap; most calls end before this)
            for n in candidates {
                let cap = self.capacity(free, r, n);
                if cap > 0 {
                    hosts.push(Share::host(n as u32, cap));
                }
            }
            // node indices are distinct, so an unstable sort gives the one order
            hosts.sort_unstable_by_key(|s| (self.weight[s.node as usize], std::cmp::Reverse(s.tasks), s.node));
            let (mut count, mut held) = (0usize, 0u64);
            while count < r.nodes as usize || held < u64::from(r.tasks) {
                held += u64::from(hosts[count].tasks);
                count += 1;
            }
            hosts.truncate(count);
        })
    }

    /// The placement of `r` from `survey`, what the candidate nodes offer it:
    /// the one-node best fit if there is one, else, if the job fits, the
    /// nodes `choose` pushes (each a share holding its capacity, in the rule's
    /// order, until the job has its minimum nodes and room for its tasks),
    /// its tasks then dealt ([`Nodes::distribute`]). Written into `out`;
    /// whether it fits.
    fn place_surveyed(
        &self,
        free: &impl FreeView,
        r: &Request,
        survey: &Survey,
        out: &mut Placement,
        choose: impl FnOnce(&mut Vec<Share>),
    ) -> bool {
        out.clear();
        if let Some((_, _, n)) = survey.single {
            out.shares.push(Share::host(n, r.tasks));
        } else if survey.fits(r) {
            choose(&mut out.shares);
        } else {
            return false;
        }
        self.distribute(free, r, out);
        true
    }

    /// What [`Nodes::place_among`] counts before it places: the tasks and
    /// hosts `candidates` offer `r`, and the one-node best fit.
    fn survey_among(&self, free: &impl FreeView, candidates: impl Iterator<Item = usize>, r: &Request) -> Survey {
        let mut survey = Survey::default();
        for n in candidates {
            let cap = self.capacity(free, r, n);
            if cap == 0 {
                continue;
            }
            survey.room += u64::from(cap);
            survey.hosts += 1;
            if r.nodes == 1 && cap >= r.tasks {
                survey.consider_single(self.weight[n], free.cores(n) - r.tasks * r.cpus_per_task, n);
            }
        }
        survey
    }

    /// [`Nodes::place`] on a state whose index is `index`, idle nodes taken
    /// by group: the same placement, from a capacity per group and per
    /// partly free node instead of per node.
    pub(crate) fn place_grouped(
        &self,
        groups: &Groups,
        free: &impl FreeView,
        index: &impl Bits,
        r: &Request,
        out: &mut Placement,
    ) -> bool {
        let mut caps = [(0u32, 0u64); Groups::MAX]; // per group: capacity of an idle node, idle nodes
        let survey = self.survey_grouped(groups, free, index, r, &mut caps);
        self.place_surveyed(free, r, &survey, out, |hosts| {
            // one walk of the rule's order (the count is known only at its end)
            let mut held = 0u64;
            self.visit_grouped(groups, &caps, free, index, r, |n, cap| {
                hosts.push(Share::host(n, cap));
                held += u64::from(cap);
                hosts.len() < r.nodes as usize || held < u64::from(r.tasks)
            });
        })
    }

    /// What [`Nodes::place_grouped`] counts before it places, and in `caps`
    /// per group the capacity of an idle node and its idle nodes (left as
    /// they are for a group none of whose idle nodes can host a task).
    fn survey_grouped(
        &self,
        groups: &Groups,
        free: &impl FreeView,
        index: &impl Bits,
        r: &Request,
        caps: &mut [(u32, u64); Groups::MAX],
    ) -> Survey {
        let mut survey = Survey::default();
        for g in 0..groups.len() {
            let count: u64 = groups.idle(index, g).map(|w| u64::from(w.count_ones())).sum();
            if count == 0 {
                continue;
            }
            let cap = self.capacity(&groups.idle, r, groups.first[g]);
            if cap == 0 {
                continue;
            }
            caps[g] = (cap, count);
            survey.room += u64::from(cap) * count;
            survey.hosts += count;
            if r.nodes == 1 && cap >= r.tasks {
                let n = ones(groups.idle(index, g)).next().expect("counted above");
                survey.consider_single(self.weight[n], self.cores[n] - r.tasks * r.cpus_per_task, n);
            }
        }
        let more = self.survey_among(free, index.partly_free(), r);
        survey.room += more.room;
        survey.hosts += more.hosts;
        if let Some((weight, left, n)) = more.single {
            survey.consider_single(weight, left, n as usize);
        }
        survey
    }

    /// Visits the nodes that can host tasks of `r` (and how many each) in
    /// the rule's order (lowest weight, most tasks, lowest index) until
    /// `visit` returns false: level by level of (weight, tasks), and within
    /// a level its idle nodes of every group and its partly free nodes, by
    /// index. `caps` holds each group's (capacity of an idle node, idle nodes).
    /// Nothing is allocated: it is walked twice per placement.
    fn visit_grouped(
        &self,
        groups: &Groups,
        caps: &[(u32, u64)],
        free: &impl FreeView,
        index: &impl Bits,
        r: &Request,
        mut visit: impl FnMut(u32, u32) -> bool,
    ) {
        use std::cmp::Reverse;
        let mut level: Option<(u32, Reverse<u32>)> = None;
        loop {
            // the next level: the least (weight, Reverse(tasks)) after this one
            let mut next: Option<(u32, Reverse<u32>)> = None;
            let mut consider = |key| {
                if level.is_none_or(|l| key > l) && next.is_none_or(|b| key < b) {
                    next = Some(key);
                }
            };
            for g in (0..groups.len()).filter(|&g| caps[g].0 > 0) {
                consider((self.weight[groups.first[g]], Reverse(caps[g].0)));
            }
            for n in index.partly_free() {
                let cap = self.capacity(free, r, n);
                if cap > 0 {
                    consider((self.weight[n], Reverse(cap)));
                }
            }
            let Some(key @ (weight, Reverse(cap))) = next else {
                return;
            };
            level = Some(key);
            for w in 0..index.words() {
                let mut bits = 0u64;
                for g in (0..groups.len()).filter(|&g| caps[g].0 == cap && self.weight[groups.first[g]] == weight) {
                    bits |= groups.members[g * groups.words + w] & index.idle_word(w);
                }
                for n in ones(std::iter::once(index.free_word(w) & !index.idle_word(w))) {
                    let n = w * 64 + n;
                    if self.weight[n] == weight && self.capacity(free, r, n) == cap {
                        bits |= 1 << (n % 64);
                    }
                }
                for n in ones(std::iter::once(bits)) {
                    if !visit((w * 64 + n) as u32, cap) {
                        return;
                    }
                }
            }
        }
    }

    /// The placement on the shares of `out`, which name the nodes chosen in the
    /// rule's order and hold in `tasks` how many each can host: one task each,
    /// then fill in order (block distribution); each share then holds its tasks
    /// and their resources, and `out.gres` their generic resource units.
    fn distribute(&self, free: &impl FreeView, r: &Request, out: &mut Placement) {
        let k = self.kinds;
        out.gres.clear();
        out.gres.resize(out.shares.len() * k, 0);
        let mut left = r.tasks - out.shares.len() as u32;
        for (i, share) in out.shares.iter_mut().enumerate() {
            let more = left.min(share.tasks - 1);
            left -= more;
            *share = self.share(free, r, share.node, 1 + more, &mut out.gres[i * k..(i + 1) * k]);
        }
    }

    /// The share of `tasks` tasks of `r` on `node`, its generic resource units written into `units`.
    fn share(&self, free: &impl FreeView, r: &Request, node: u32, tasks: u32, units: &mut [u32]) -> Share {
        let (n, k) = (node as usize, self.kinds);
        let cores = if r.exclusive {
            self.cores[n]
        } else {
            tasks * r.cpus_per_task
        };
        let memory = if r.mem_per_node == WHOLE_NODE_MEMORY {
            self.memory[n]
        } else if r.mem_per_node > 0 {
            r.mem_per_node
        } else {
            r.mem_per_cpu * u64::from(tasks * r.cpus_per_task)
        };
        let mut need = r.gres_per_node;
        for g in (0..k).filter(|&g| r.gres_kinds >> g & 1 == 1) {
            let take = need.min(free.gres(n * k + g));
            units[g] = take;
            need -= take;
        }
        Share {
            node,
            tasks,
            cores,
            memory,
        }
    }
}

/// What a state offers on its nodes with a free core (the only ones that can
/// host a task), in all: bounds a request must meet for the placement rule to
/// find it nodes there, tested in a moment where a placement looks at every
/// such node. A scan of a queue whose jobs wait for memory, not cores, passes
/// most of them over on these alone.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Offer {
    /// Free cores.
    pub(crate) cores: u64,
    /// The most free memory of one node (MB).
    most_memory: u64,
    /// Free memory (MB).
    memory: u64,
}

impl Offer {
    fn of(free: &impl FreeView, nodes: impl Iterator<Item = usize>) -> Offer {
        let mut offer = Offer {
            cores: 0,
            most_memory: 0,
            memory: 0,
        };
        for n in nodes {
            offer.cores += u64::from(free.cores(n));
            offer.most_memory = offer.most_memory.max(free.memory(n));
            offer.memory += free.memory(n);
        }
        offer
    }

    /// Whether `r` may be placed: its cores, the memory a node must have free
    /// to host a task of it, and the memory it holds in all (at least its
    /// memory per core on each core it asks, or per node on each of its
    /// nodes) are no more than offered. (A job asking whole nodes' memory is
    /// left to the placement.)
    pub(crate) fn may_hold(&self, r: &Request) -> bool {
        if r.width() > self.cores {
            return false;
        }
        if r.mem_per_node == WHOLE_NODE_MEMORY {
            return true;
        }
        let per_task = r.mem_per_cpu.saturating_mul(u64::from(r.cpus_per_task));
        // what the shares hold (Nodes::share): the memory per node on each node, else per core on each core
        let held = if r.mem_per_node > 0 {
            r.mem_per_node.saturating_mul(u64::from(r.nodes))
        } else {
            r.mem_per_cpu.saturating_mul(r.width())
        };
        r.mem_per_node.max(per_task) <= self.most_memory && held <= self.memory
    }
}

/// The nodes' free resources while jobs run, and the running jobs by
/// estimated end (what EASY's shadow time reads).
#[derive(Debug, Clone)]
pub struct NodeMachine {
    nodes: Nodes,
    requests: Vec<Request>,
    free: Free,
    /// The nodes with a free core, and the idle nodes, now.
    index: FreeIndex,
    /// The nodes by kind, when they are few kinds.
    groups: Option<Groups>,
    free_cores: u64,
    /// Running jobs `(estimated end, job)`, sorted.
    running: Vec<(Time, u32)>,
    /// Where each started job's shares begin in `shares` (`usize::MAX` if not started).
    offset: Vec<usize>,
    count: Vec<u32>,
    shares: Vec<Share>,
    /// Generic resource units of each share, `kinds` per share.
    share_gres: Vec<u32>,
    /// Counts starts and completions: what was computed from the state at one
    /// version (a shadow time) holds while it is unchanged.
    version: u64,
}

/// EASY's reservation on nodes: when the head can start, and what is left
/// for a job that would still run then.
#[derive(Debug, Clone)]
pub struct Shadow {
    /// The shadow time.
    pub time: Time,
    /// Per node, what is free at the shadow time beyond the head's placement then.
    pub extra: Free,
}

impl NodeMachine {
    /// Idle nodes for `requests` (one per job), checked with [`Nodes::check_requests`].
    pub fn new(nodes: Nodes, requests: Vec<Request>) -> Result<Self> {
        nodes.check_requests(&requests)?;
        let n = requests.len();
        // Room for every share up front: growing the vector copies megabytes into fresh pages (4 ms of
        // HPC2N's run). A job holds a share a node, at most one a task; reserved, not written, so that
        // only what is used is ever paged in, and at most four a job (HPC2N's 202,871 jobs hold 700,680)
        // so that a huge trace on a huge cluster asks for no absurd reservation.
        let most_shares = requests
            .iter()
            .map(|r| (r.tasks as usize).min(nodes.len()))
            .sum::<usize>()
            .min(4 * n);
        let free = Free::idle(&nodes);
        Ok(NodeMachine {
            index: FreeIndex::of(&nodes, &free),
            groups: Groups::of(&nodes),
            free,
            free_cores: nodes.total_cores(),
            nodes,
            requests,
            running: Vec::new(),
            offset: vec![usize::MAX; n],
            count: vec![0; n],
            shares: huge_vec(most_shares),
            share_gres: Vec::new(),
            version: 0,
        })
    }

    /// The nodes.
    pub fn nodes(&self) -> &Nodes {
        &self.nodes
    }

    /// Job `j`'s request.
    pub fn request(&self, j: usize) -> &Request {
        &self.requests[j]
    }

    /// Free resources now.
    pub fn free(&self) -> &Free {
        &self.free
    }

    /// Changes with every start and completion (see the field).
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Free cores now, on all nodes together.
    pub fn free_cores(&self) -> u64 {
        self.free_cores
    }

    /// Running jobs as `(estimated end, job)`, earliest first.
    pub fn running(&self) -> &[(Time, u32)] {
        &self.running
    }

    /// Where `job` would go now, if it fits.
    pub fn place_now(&self, job: usize) -> Option<Placement> {
        let mut placement = Placement::default();
        self.place_now_into(job, &mut placement).then_some(placement)
    }

    /// [`NodeMachine::place_now`] written into `out` (whatever it held):
    /// whether `job` fits now.
    pub(crate) fn place_now_into(&self, job: usize, out: &mut Placement) -> bool {
        if self.requests[job].width() > self.free_cores {
            return false; // fewer cores free in all than it holds
        }
        self.place_indexed(&self.free, &self.index, job, out)
    }

    /// Whether `job` fits on `free`, whose index is `index`: the placement's
    /// count without the placement.
    fn fits_indexed(&self, free: &impl FreeView, index: &impl Bits, job: usize) -> bool {
        let r = &self.requests[job];
        match &self.groups {
            Some(groups) => {
                let mut caps = [(0, 0); Groups::MAX];
                self.nodes.survey_grouped(groups, free, index, r, &mut caps).fits(r)
            }
            None => self.nodes.survey_among(free, index.nodes(), r).fits(r),
        }
    }

    /// Where `job` would go on `free`, whose index is `index`, written into `out`; whether it fits.
    fn place_indexed(&self, free: &impl FreeView, index: &impl Bits, job: usize, out: &mut Placement) -> bool {
        let r = &self.requests[job];
        match &self.groups {
            Some(groups) => self.nodes.place_grouped(groups, free, index, r, out),
            None => self.nodes.place_among(free, index.nodes(), r, out),
        }
    }

    /// Where `job` would go now on what is free both now and in `extra`
    /// (whose index is `extra_index`), written into `out`; whether it fits:
    /// [`Nodes::place`] on [`Least`]`(free now, extra)`.
    pub(crate) fn place_within(&self, job: usize, extra: &Free, extra_index: &FreeIndex, out: &mut Placement) -> bool {
        self.place_indexed(&Least(&self.free, extra), &Both(&self.index, extra_index), job, out)
    }

    /// What is free now, in all ([`Offer`]).
    pub(crate) fn offer_now(&self) -> Offer {
        Offer::of(&self.free, self.index.nodes())
    }

    /// What is free both now and in `extra` (whose index is `extra_index`), in all ([`Offer`]).
    pub(crate) fn offer_within(&self, extra: &Free, extra_index: &FreeIndex) -> Offer {
        Offer::of(&Least(&self.free, extra), Both(&self.index, extra_index).nodes())
    }

    /// Gives `job` the resources of `placement` (which must fit now) until `estimated_end`.
    pub(crate) fn allocate(&mut self, job: u32, placement: &Placement, estimated_end: Time) {
        self.version += 1;
        self.free_cores -= self
            .free
            .take_indexed(&self.nodes, &mut self.index, &placement.shares, &placement.gres);
        self.offset[job as usize] = self.shares.len();
        self.count[job as usize] = placement.shares.len() as u32;
        if self.shares.len() + placement.shares.len() > self.shares.capacity() {
            // a trace's shares are megabytes written once: huge pages for the part not yet written
            self.shares.reserve(placement.shares.len());
            advise_huge_pages(self.shares.as_ptr(), self.shares.capacity());
        }
        self.shares.extend_from_slice(&placement.shares);
        self.share_gres.extend_from_slice(&placement.gres);
        let at = self.running.partition_point(|&e| e < (estimated_end, job));
        self.running.insert(at, (estimated_end, job));
    }

    /// Returns `job`'s resources.
    pub(crate) fn release(&mut self, job: u32, estimated_end: Time) {
        self.version += 1;
        if let Ok(at) = self.running.binary_search(&(estimated_end, job)) {
            self.running.remove(at);
        }
        let j = job as usize;
        if self.offset[j] == usize::MAX {
            return;
        }
        let (o, c, k) = (self.offset[j], self.count[j] as usize, self.nodes.kinds);
        let (shares, gres) = (&self.shares[o..o + c], &self.share_gres[o * k..(o + c) * k]);
        self.free_cores += self.free.give_indexed(&self.nodes, &mut self.index, shares, gres);
    }

    /// The shares job `j` holds (or held) and their generic resource units.
    pub fn held(&self, j: usize) -> (&[Share], &[u32]) {
        if self.offset[j] == usize::MAX {
            return (&[], &[]);
        }
        let (o, c, k) = (self.offset[j], self.count[j] as usize, self.nodes.kinds);
        (&self.shares[o..o + c], &self.share_gres[o * k..(o + c) * k])
    }

    /// EASY's shadow time for waiting job `job`: the earliest time at which
    /// it can be placed when running jobs end at their estimates (every job
    /// ending at that instant counted), and what is then left beyond its
    /// placement. `None` if it fits on no state the running jobs leave,
    /// which [`Nodes::check_requests`] rules out.
    pub fn shadow(&self, now: Time, job: usize) -> Option<Shadow> {
        let (mut extra, mut index) = (self.free.clone(), self.index.clone());
        let time = self.shadow_into(now, job, &mut extra, &mut index)?;
        self.take_placement(job, &mut extra, &mut index, &mut Placement::default());
        Some(Shadow { time, extra })
    }

    /// [`NodeMachine::shadow`]'s time, and in `extra` and its index `index`
    /// (whatever they held before: their buffers are reused) what is free
    /// then, before the job's placement ([`NodeMachine::take_placement`]
    /// takes it): the walk asks only whether the job fits, and EASY needs the
    /// placement only for a job that would still run at the shadow time.
    pub(crate) fn shadow_into(&self, now: Time, job: usize, extra: &mut Free, index: &mut FreeIndex) -> Option<Time> {
        let r = &self.requests[job];
        let free = extra;
        free.cores.clone_from(&self.free.cores);
        free.memory.clone_from(&self.free.memory);
        free.gres.clone_from(&self.free.gres);
        index.free.clone_from(&self.index.free);
        index.idle.clone_from(&self.index.idle);
        let (mut at, mut i) = (now, 0);
        let mut cores = self.free_cores;
        // the placement rule is asked only once enough cores are free in all
        while cores < r.width() || !self.fits_indexed(&*free, &*index, job) {
            at = self.running.get(i)?.0;
            // every job ending at this instant frees its resources then
            while i < self.running.len() && self.running[i].0 == at {
                let (s, g) = self.held(self.running[i].1 as usize);
                cores += free.give_indexed(&self.nodes, index, s, g);
                i += 1;
            }
        }
        Some(at)
    }

    /// Takes `job`'s placement on `extra` (whose index is `index`) out of
    /// it; `job` must fit there ([`NodeMachine::shadow_into`]'s state).
    /// `scratch` is overwritten.
    pub(crate) fn take_placement(&self, job: usize, extra: &mut Free, index: &mut FreeIndex, scratch: &mut Placement) {
        let fits = self.place_indexed(&*extra, &*index, job, scratch);
        assert!(fits, "the shadow's walk stops where the job fits");
        extra.take_indexed(&self.nodes, index, &scratch.shares, &scratch.gres);
    }

    /// Every share of every job in start order, as compressed sparse rows:
    /// job `j` held shares `offsets[j]..offsets[j + 1]`; per share its node,
    /// tasks, cores, memory (MB) and, `kinds` per share, generic resource units.
    #[allow(clippy::type_complexity)]
    pub fn assignment(&self) -> (Vec<i64>, Vec<i64>, Vec<i64>, Vec<i64>, Vec<u64>, Vec<i64>) {
        let n = self.requests.len();
        let (m, k) = (self.shares.len(), self.nodes.kinds);
        let mut offsets = huge_vec(n + 1);
        let (mut node, mut tasks, mut cores, mut memory, mut gres) =
            (huge_vec(m), huge_vec(m), huge_vec(m), huge_vec(m), huge_vec(m * k));
        offsets.push(0);
        for j in 0..n {
            let (shares, units) = self.held(j);
            for s in shares {
                node.push(i64::from(s.node));
                tasks.push(i64::from(s.tasks));
                cores.push(i64::from(s.cores));
                memory.push(s.memory);
            }
            gres.extend(units.iter().map(|&u| i64::from(u)));
            offsets.push(node.len() as i64);
        }
        (offsets, node, tasks, cores, memory, gres)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The micro cluster's shape: 4 plain nodes, a GPU node, a big-memory node.
    fn micro() -> Nodes {
        Nodes {
            cores: vec![12; 6],
            memory: vec![48_000, 48_000, 48_000, 48_000, 48_000, 512_000],
            gres: vec![0, 0, 0, 0, 2, 0],
            kinds: 1,
            features: vec![1, 1, 1, 1, 0b11, 1],
            weight: vec![1; 6],
            partitions: vec![0b11, 0b11, 1, 1, 1, 1],
        }
    }

    fn request(tasks: u32) -> Request {
        Request {
            nodes: 1,
            tasks,
            cpus_per_task: 1,
            mem_per_cpu: 2800,
            mem_per_node: 0,
            gres_per_node: 0,
            gres_kinds: 1,
            features: 0,
            partition: 0,
            exclusive: false,
        }
    }

    #[test]
    fn one_node_jobs_go_to_the_best_fit() {
        let nodes = micro();
        let mut free = Free::idle(&nodes);
        free.cores[3] = 5;
        let p = nodes.place(&free, &request(4)).unwrap();
        assert_eq!(
            p.shares,
            vec![Share {
                node: 3,
                tasks: 4,
                cores: 4,
                memory: 11_200
            }]
        );
        // too big for node 3: the first node of the fullest that fit
        let p = nodes.place(&free, &request(6)).unwrap();
        assert_eq!(p.shares[0].node, 0);
    }

    #[test]
    fn memory_gpus_and_features_decide_the_node() {
        let nodes = micro();
        let free = Free::idle(&nodes);
        let big = Request {
            mem_per_cpu: 0,
            mem_per_node: 500_000,
            ..request(1)
        };
        assert_eq!(nodes.place(&free, &big).unwrap().shares[0].node, 5);
        let gpu = Request {
            gres_per_node: 2,
            ..request(1)
        };
        let p = nodes.place(&free, &gpu).unwrap();
        assert_eq!((p.shares[0].node, p.gres.clone()), (4, vec![2]));
        let featured = Request {
            features: 0b10,
            ..request(2)
        };
        assert_eq!(nodes.place(&free, &featured).unwrap().shares[0].node, 4);
        // debug partition: nodes 0 and 1 only
        let debug = Request {
            partition: 1,
            nodes: 2,
            tasks: 24,
            ..request(24)
        };
        let p = nodes.place(&free, &debug).unwrap();
        assert_eq!(
            p.shares.iter().map(|s| (s.node, s.tasks)).collect::<Vec<_>>(),
            vec![(0, 12), (1, 12)]
        );
        assert!(nodes.place(&free, &Request { tasks: 25, ..debug }).is_none());
    }

    #[test]
    fn multi_node_jobs_get_a_task_on_each_node_then_fill_in_order() {
        let nodes = micro();
        let mut free = Free::idle(&nodes);
        free.cores[0] = 2;
        let r = Request {
            nodes: 3,
            tasks: 20,
            ..request(20)
        };
        let p = nodes.place(&free, &r).unwrap();
        let got: Vec<(u32, u32)> = p.shares.iter().map(|s| (s.node, s.tasks)).collect();
        assert_eq!(got, vec![(1, 12), (2, 7), (3, 1)]);
    }

    #[test]
    fn requests_no_idle_cluster_can_hold_are_named() {
        let nodes = micro();
        let err = nodes.check_requests(&[
            request(1),
            Request {
                mem_per_cpu: 0,
                mem_per_node: 600_000,
                ..request(1)
            },
        ]);
        assert!(
            matches!(err, Err(Error::Invalid(ref i)) if i.field == Some("memory_mb") && i.item == Item::Job(1)),
            "{err:?}"
        );
        let err = nodes.check_requests(&[Request {
            gres_per_node: 3,
            ..request(1)
        }]);
        assert!(
            matches!(err, Err(Error::Invalid(ref i)) if i.field == Some("gpus_per_node")),
            "{err:?}"
        );
        let err = nodes.check_requests(&[Request {
            partition: 1,
            tasks: 30,
            nodes: 1,
            ..request(1)
        }]);
        assert!(
            matches!(err, Err(Error::Invalid(ref i)) if i.field == Some("tasks")),
            "{err:?}"
        );
    }

    #[test]
    fn shadow_counts_every_job_ending_then() {
        let nodes = micro();
        let n = 4;
        let reqs = vec![
            request(12),
            request(12),
            request(12),
            Request {
                nodes: 6,
                tasks: 72,
                ..request(72)
            },
        ];
        let mut m = NodeMachine::new(nodes, reqs).unwrap();
        for j in 0..3u32 {
            let p = m.place_now(j as usize).unwrap();
            m.allocate(j, &p, Time(10.0 + f64::from(j / 2) * 10.0));
        }
        assert_eq!(m.free_cores(), 72 - 36);
        let s = m.shadow(Time(0.0), 3).unwrap();
        assert_eq!(s.time, Time(20.0));
        assert_eq!(s.extra.cores, vec![0; 6]);
        m.release(2, Time(20.0));
        m.release(0, Time(10.0));
        let s = m.shadow(Time(0.0), 3).unwrap();
        assert_eq!(s.time, Time(10.0));
        let _ = n;
    }

    use proptest::prelude::*;

    /// Nodes of three kinds (one with GPUs and a feature, one of another
    /// weight), `n` of them, kinds cycling or in runs.
    fn mixed(n: usize, runs: bool) -> Nodes {
        let kind = |i: usize| if runs { i * 3 / n } else { i % 3 };
        Nodes {
            cores: (0..n).map(|i| [4, 4, 8][kind(i)]).collect(),
            memory: (0..n).map(|i| [8_000, 8_000, 16_000][kind(i)]).collect(),
            gres: (0..n).map(|i| [0, 2, 0][kind(i)]).collect(),
            kinds: 1,
            features: (0..n).map(|i| [1, 3, 1][kind(i)]).collect(),
            weight: (0..n).map(|i| [1, 1, 2][kind(i)]).collect(),
            partitions: (0..n).map(|i| [1, 1, 3][kind(i)]).collect(),
        }
    }

    fn any_request() -> impl Strategy<Value = Request> {
        (1u32..4, 0u32..12, 1u32..3, 0u64..3, 0u32..3, 0u32..6)
            .prop_map(|(nodes, more, cpt, mem, gpus, flags)| Request {
                nodes,
                tasks: nodes + more,
                cpus_per_task: cpt,
                mem_per_cpu: [0, 900, 2_500][mem as usize],
                mem_per_node: if flags == 5 { WHOLE_NODE_MEMORY } else { 0 },
                gres_per_node: gpus * u32::from(flags % 2 == 0),
                gres_kinds: 1,
                features: u64::from(flags == 1) * 2,
                partition: u32::from(flags == 3),
                exclusive: flags == 4,
            })
            // only requests an idle cluster can hold
            .prop_filter("fits the idle nodes", |r| {
                mixed(70, false).place(&Free::idle(&mixed(70, false)), r).is_some()
            })
    }

    /// A request asking what one node has, exactly, may be held: the offer's bounds are inclusive.
    #[test]
    fn an_offer_holds_what_it_has_exactly() {
        let nodes = Nodes {
            cores: vec![2, 2],
            memory: vec![2048, 2048],
            gres: Vec::new(),
            kinds: 0,
            features: vec![0, 0],
            weight: vec![0, 0],
            partitions: vec![1, 1],
        };
        let free = Free::idle(&nodes);
        let offer = Offer::of(&free, 0..2);
        for (tasks, mem_per_cpu, mem_per_node) in [(1, 2048, 0), (2, 1024, 0), (4, 1024, 0), (2, 0, 2048)] {
            let r = Request {
                nodes: if mem_per_node > 0 { 2 } else { 1 },
                tasks,
                mem_per_cpu,
                mem_per_node,
                ..request(tasks)
            };
            assert!(nodes.place(&free, &r).is_some() && offer.may_hold(&r), "{r:?}");
        }
        let more = Request {
            mem_per_cpu: 2049,
            ..request(1)
        };
        assert!(nodes.place(&free, &more).is_none() && !offer.may_hold(&more));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]
        /// What a scan passes over without a placement finds no nodes: a
        /// request asking at least what a refused one asks, and one asking
        /// more than a state offers in all; on any free resources (each node
        /// idle or with some of each resource free), with memory per core or
        /// per node. The pairs compared are near: a request and one asking
        /// more or less of each kind, or of another kind in one respect.
        #[test]
        fn screened_requests_find_no_nodes(
            base in any_request(),
            per_node in prop::option::of(prop::sample::select(vec![1_000u64, 4_000, 7_999, 8_000, 16_000])),
            (more_tasks, more_nodes, more_memory) in (-3i64..4, -1i64..2, -3_000i64..3_000),
            other_kind in 0u32..8,
            state in prop::collection::vec((any::<bool>(), 0u32..=8, 0u64..=16_000, 0u32..=2), 12),
        ) {
            let nodes = mixed(12, false);
            let mut free = Free::idle(&nodes);
            for (n, &(idle, cores, memory, gres)) in state.iter().enumerate() {
                if !idle {
                    free.cores[n] = cores.min(nodes.cores[n]);
                    free.memory[n] = memory.min(nodes.memory[n]);
                    free.gres[n] = gres.min(nodes.gres[n]);
                }
            }
            let mut base = base;
            if let (Some(mb), false) = (per_node, base.mem_per_node == WHOLE_NODE_MEMORY) {
                (base.mem_per_node, base.mem_per_cpu) = (mb, 0);
            }
            let shift = |x: u64, by: i64| u64::try_from(i64::try_from(x).unwrap() + by).unwrap_or(0);
            let nodes_asked = shift(u64::from(base.nodes), more_nodes).max(1) as u32;
            let mut other = Request {
                nodes: nodes_asked,
                tasks: (shift(u64::from(base.tasks), more_tasks) as u32).max(nodes_asked),
                mem_per_cpu: if base.mem_per_cpu > 0 { shift(base.mem_per_cpu, more_memory).max(1) } else { 0 },
                mem_per_node: match base.mem_per_node {
                    0 | WHOLE_NODE_MEMORY => base.mem_per_node,
                    m => shift(m, more_memory).max(1),
                },
                ..base
            };
            match other_kind {
                1 => other.exclusive = !other.exclusive,
                2 => other.partition ^= 1,
                3 => other.features ^= 2,
                4 => other.gres_per_node = 1 - other.gres_per_node.min(1),
                5 => other.cpus_per_task = 3 - other.cpus_per_task,
                6 if other.mem_per_node == WHOLE_NODE_MEMORY => other.mem_per_node = 8_000,
                6 => (other.mem_per_node, other.mem_per_cpu) = (WHOLE_NODE_MEMORY, 0),
                7 => other.mem_per_cpu = if other.mem_per_cpu > 0 { 0 } else { 900 },
                _ => {}
            }
            for (a, b) in [(&base, &other), (&other, &base)] {
                if b.asks_at_least(a) && nodes.place(&free, a).is_none() {
                    prop_assert!(nodes.place(&free, b).is_none(), "{:?} fits, asking at least {:?}", b, a);
                }
            }
            let offer = Offer::of(&free, FreeIndex::of(&nodes, &free).nodes());
            for r in [&base, &other] {
                prop_assert!(offer.may_hold(r) || nodes.place(&free, r).is_none(), "{:?} fits", r);
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// The machine's placements (free nodes only, idle nodes by kind), its
        /// placements within an extra and its shadow are the rule's own on
        /// every node, at every step of a run of starts and ends; more than
        /// 64 nodes, so that the bit masks span words.
        #[test]
        fn indexed_placement_is_the_rule(
            requests in prop::collection::vec(any_request(), 1..12),
            steps in prop::collection::vec((0usize..12, any::<bool>()), 1..60),
            runs in any::<bool>(),
            many_kinds in any::<bool>(),
        ) {
            let mut nodes = mixed(70, runs);
            if many_kinds {
                // more kinds than Groups::MAX: every free node is looked at
                nodes.weight = (0..70).map(|i| i % 20).collect();
            }
            let mut m = NodeMachine::new(nodes.clone(), requests.clone()).unwrap();
            let mut running: Vec<u32> = Vec::new();
            for (t, &(pick, finish)) in steps.iter().enumerate() {
                let t = Time(t as f64);
                for j in 0..requests.len() {
                    let want = nodes.place(m.free(), &requests[j]);
                    let fits = want.is_some();
                    prop_assert_eq!(m.fits_indexed(m.free(), &m.index, j), fits);
                    prop_assert_eq!(m.place_now(j), want, "job {} at step {:?}", j, t);
                    if let Some(shadow) = m.shadow(t, j) {
                        // what is free at the shadow beyond the head: what the rule places within
                        let index = FreeIndex::of(&nodes, &shadow.extra);
                        for (k, r) in requests.iter().enumerate() {
                            let want = nodes.place(&Least(m.free(), &shadow.extra), r);
                            let mut got = Placement::default();
                            let fits = m.place_within(k, &shadow.extra, &index, &mut got);
                            // what is offered in all bounds what the rule places
                            prop_assert!(m.offer_within(&shadow.extra, &index).may_hold(r) || want.is_none());
                            prop_assert_eq!(fits.then_some(got), want);
                        }
                        let cores: u64 = (0..nodes.len())
                            .map(|n| u64::from(m.free().cores[n].min(shadow.extra.cores[n])))
                            .sum();
                        prop_assert_eq!(m.offer_within(&shadow.extra, &index).cores, cores);
                    }
                    // a job asking at least what a job the rule refuses asks is refused too; what is offered
                    // in all bounds what the rule places
                    prop_assert!(m.offer_now().may_hold(&requests[j]) || !fits, "job {} fits", j);
                    for other in &requests {
                        if requests[j].asks_at_least(other) && nodes.place(m.free(), other).is_none() {
                            prop_assert!(!fits, "job {} fits, asking at least {:?}", j, other);
                        }
                    }
                }
                prop_assert_eq!(&m.index, &FreeIndex::of(&nodes, m.free()));
                if finish && !running.is_empty() {
                    let job = running.remove(pick % running.len());
                    m.release(job, Time(1e9 + f64::from(job)));
                } else {
                    let job = (pick % requests.len()) as u32;
                    if !running.contains(&job) {
                        if let Some(p) = m.place_now(job as usize) {
                            m.allocate(job, &p, Time(1e9 + f64::from(job)));
                            running.push(job);
                        }
                    }
                }
            }
        }

        /// check_requests accepts exactly the requests the rule places on idle nodes.
        #[test]
        fn requests_are_checked_as_the_rule_places_them(
            r in (1u32..4, 0u32..40, 1u32..10, 0u64..5_000, 0u32..4, 0u32..4).prop_map(
                |(nodes, more, cpt, mem, gpus, part)| Request {
                    nodes,
                    tasks: nodes + more,
                    cpus_per_task: cpt,
                    mem_per_cpu: mem,
                    mem_per_node: 0,
                    gres_per_node: gpus,
                    gres_kinds: 1,
                    features: 0,
                    partition: part,
                    exclusive: false,
                }
            ),
            runs in any::<bool>(),
        ) {
            let nodes = mixed(70, runs);
            let fits = nodes.place(&Free::idle(&nodes), &r).is_some();
            prop_assert_eq!(nodes.check_requests(&[r]).is_ok(), fits);
        }
    }
}
