//! The subset search of DPSA (Grudenic & Bogunovic, §III-B, Fig. 2).

use std::time::{Duration, Instant};

use crate::error::{Error, Result};

/// Tie-breaking variant of DPSA (§III-C). All three maximise the processors
/// busy now; among subsets of equal utilization the search keeps the first
/// one found by the include-first depth-first search of Fig. 2 over the
/// candidates in the variant's order, i.e. the subset whose sorted list of
/// positions in that order is lexicographically smallest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DpsaVariant {
    /// DPSAp: candidates in priority (queue) order, so the subset whose
    /// highest-priority job is higher wins, recursively.
    Priority,
    /// DPSAn: candidates presorted by ascending size (ties: queue order).
    Narrow,
    /// DPSAw: candidates presorted by descending size (ties: queue order).
    Wide,
}

/// Configuration of a DPSA policy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DpsaConfig {
    /// Tie-breaking variant.
    pub variant: DpsaVariant,
    /// Most subsets explored per decision (the deterministic time bound);
    /// when reached, the best subset found so far is used and the decision
    /// counts as cut.
    pub node_budget: u64,
    /// Optional wall-clock bound per decision, in seconds (not deterministic).
    pub time_limit: Option<f64>,
}

/// Default node budget: the search visits at most one node per candidate
/// (see [`select`]), so this cuts only queues of over a million eligible jobs.
pub const DEFAULT_NODE_BUDGET: u64 = 1_000_000;

/// Longest wall-clock limit of one decision (one day).
pub const MAX_TIME_LIMIT: f64 = 86_400.0;

impl DpsaConfig {
    /// The variant with the default budget and no wall-clock limit.
    pub fn new(variant: DpsaVariant) -> Self {
        DpsaConfig {
            variant,
            node_budget: DEFAULT_NODE_BUDGET,
            time_limit: None,
        }
    }

    /// The same search with other bounds: `node_budget` (`None`: the default)
    /// and a wall-clock `time_limit` in seconds (`None`: none).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a budget of 0 or a limit outside
    /// `(0, MAX_TIME_LIMIT]`.
    pub fn with_bounds(self, node_budget: Option<u64>, time_limit: Option<f64>) -> Result<Self> {
        if node_budget == Some(0) {
            return Err(Error::InvalidArgument("node_budget == 0, must be >= 1".into()));
        }
        if let Some(limit) = time_limit {
            if !(limit > 0.0 && limit <= MAX_TIME_LIMIT) {
                return Err(Error::InvalidArgument(format!(
                    "time_limit == {limit}, must be > 0 and <= {MAX_TIME_LIMIT} seconds"
                )));
            }
        }
        Ok(DpsaConfig {
            node_budget: node_budget.unwrap_or(self.node_budget),
            time_limit,
            ..self
        })
    }
}

impl DpsaVariant {
    /// The variant from its one-letter name: `p` (priority), `n` (narrow), `w` (wide).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for any other name.
    pub fn from_name(name: &str) -> Result<Self> {
        match name {
            "p" => Ok(DpsaVariant::Priority),
            "n" => Ok(DpsaVariant::Narrow),
            "w" => Ok(DpsaVariant::Wide),
            _ => Err(Error::InvalidArgument(format!(
                "variant == '{name}', must be one of 'p', 'n', 'w'"
            ))),
        }
    }
}

/// A waiting job the search may start now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Candidate {
    /// Processors it needs.
    pub width: u32,
    /// True when, by its estimate, it ends no later than the head job's
    /// reservation, so it may also use the processors reserved for the head.
    pub short: bool,
}

/// Outcome of one search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// Chosen candidates, as increasing indices into the input slice.
    pub chosen: Vec<usize>,
    /// Processors they use together.
    pub utilization: u32,
    /// Subsets explored (the empty one included).
    pub nodes: u64,
    /// True when the budget or the time limit stopped the search early.
    pub cut: bool,
}

/// Chooses the subset of `candidates` (given in queue order) that keeps the
/// most processors busy now.
///
/// Free processors come in two pools: `reserved` ones, which the head job's
/// reservation needs at its start time (availability = time to that start),
/// and `unreserved` ones (availability unbounded). A short candidate may use
/// both, a long one only unreserved processors; each chosen job takes the
/// processors of least availability first (Fig. 2 line 23), i.e. reserved
/// ones first when it is short. Hence a subset is feasible exactly when its
/// long jobs fit in `unreserved` and all of it fits in `reserved + unreserved`.
///
/// The search is Fig. 2's include-first depth-first recursion over the
/// candidates in the variant's order, keeping the first subset of the best
/// utilization. Its pruning bound is exact: a dynamic program over subset sums
/// of the remaining candidates (short and long apart) gives the most any
/// branch can still add, and a branch is entered only if it can still reach
/// the optimum. The recursion then walks straight down to the subset Fig. 2
/// would find, visiting one node per candidate, where the plain recursion can
/// explore exponentially many (e.g. when no subset fills the free processors
/// exactly). The node budget and the time limit still bound it; a cut
/// decision starts the part of the subset chosen so far.
///
/// The work follows the candidates, never the machine's size: the table of
/// sums covers `min(free, total width of the candidates)`, or holds the
/// reachable sums as lists when those are fewer (a few very wide jobs). When
/// neither fits its limit ([`MAX_DENSE_WORDS`], [`MAX_SPARSE_SUMS`]: many
/// wide jobs of distinct widths on a machine of billions of processors), the
/// search is Fig. 2's depth-first recursion itself, pruned by the widths left,
/// which finds the same subset unless the node budget (or the time limit)
/// cuts it first; a cut decision then starts the best subset found so far.
pub fn select(candidates: &[Candidate], reserved: u32, unreserved: u32, config: &DpsaConfig) -> Selection {
    select_among(candidates, true, reserved, unreserved, config)
}

/// [`select`] on `candidates` that are either all the eligible jobs
/// (`complete`) or the part of them that can matter (the first jobs of each
/// width and kind, see `policy.rs`). In the second case the search never
/// takes the "everything fits" shortcut, which would skip the node budget
/// where the whole search, over all eligible jobs, would count against it:
/// so the chosen subset, the nodes and the cut flag are those of the search
/// over every eligible job.
pub fn select_among(
    candidates: &[Candidate],
    complete: bool,
    reserved: u32,
    unreserved: u32,
    config: &DpsaConfig,
) -> Selection {
    let mut order: Vec<usize> = (0..candidates.len()).collect();
    match config.variant {
        DpsaVariant::Priority => {}
        DpsaVariant::Narrow => order.sort_by_key(|&i| candidates[i].width),
        DpsaVariant::Wide => order.sort_by_key(|&i| std::cmp::Reverse(candidates[i].width)),
    }
    let items: Vec<Candidate> = order.iter().map(|&i| candidates[i]).collect();
    // A limit too large for a Duration (or for the clock) is no limit at all.
    let deadline = config
        .time_limit
        .and_then(|s| Duration::try_from_secs_f64(s.max(0.0)).ok())
        .and_then(|d| Instant::now().checked_add(d));
    let mut found = search(&items, complete, reserved, unreserved, config.node_budget, deadline);
    found.chosen = found.chosen.iter().map(|&k| order[k]).collect();
    found.chosen.sort_unstable();
    found
}

fn search(
    items: &[Candidate],
    complete: bool,
    reserved: u32,
    unreserved: u32,
    budget: u64,
    deadline: Option<Instant>,
) -> Selection {
    let capacity = reserved + unreserved;
    let long_total: u64 = items.iter().filter(|c| !c.short).map(|c| u64::from(c.width)).sum();
    let total: u64 = items.iter().map(|c| u64::from(c.width)).sum();
    if complete && long_total <= u64::from(unreserved) && total <= u64::from(capacity) {
        // Everything fits: the whole set is the best and comes first in Fig. 2's order.
        let chosen = (0..items.len()).collect();
        return Selection {
            chosen,
            utilization: total as u32,
            nodes: items.len() as u64 + 1,
            cut: false,
        };
    }
    match SuffixSums::new(items, capacity) {
        Some(sums) => walk(items, &sums, reserved, unreserved, budget, deadline),
        None => depth_first(items, reserved, unreserved, budget, deadline),
    }
}

/// The walk down Fig. 2's tree to its first subset of the best utilization,
/// guided by the exact sums: one node per chosen candidate.
fn walk(
    items: &[Candidate],
    sums: &SuffixSums,
    reserved: u32,
    unreserved: u32,
    budget: u64,
    deadline: Option<Instant>,
) -> Selection {
    let optimum = sums.reach(0, reserved, unreserved);
    let mut best = Selection {
        chosen: Vec::new(),
        utilization: 0,
        nodes: 1,
        cut: false,
    };
    let (mut r, mut u) = (reserved, unreserved);
    for (k, item) in items.iter().enumerate() {
        if best.utilization == optimum {
            break;
        }
        if best.nodes >= budget || deadline.is_some_and(|d| Instant::now() >= d) {
            best.cut = true;
            break;
        }
        let fits = if item.short {
            item.width <= r + u
        } else {
            item.width <= u
        };
        if !fits {
            continue;
        }
        let from_reserved = if item.short { item.width.min(r) } else { 0 };
        let (r2, u2) = (r - from_reserved, u - (item.width - from_reserved));
        let rest = optimum - best.utilization;
        if item.width <= rest && sums.makes(k + 1, rest - item.width, u2) {
            best.nodes += 1;
            best.utilization += item.width;
            best.chosen.push(k);
            (r, u) = (r2, u2);
        }
    }
    best
}

/// Most 64-bit words the bitsets of the subset sums may take together (128
/// MiB): beyond that, the sums are kept as sorted lists when those are small,
/// else the search is Fig. 2's depth-first one (see [`select`]).
pub const MAX_DENSE_WORDS: usize = 1 << 24;

/// Most sums the sorted lists may hold in all (16 MiB): building lists that
/// overflow it, before giving up on them, costs a few milliseconds.
pub const MAX_SPARSE_SUMS: usize = 1 << 22;

/// Below this many words the bitsets are used at once (no list is tried).
const SMALL_DENSE_WORDS: usize = 1 << 16;

/// For every suffix `k..` of the candidates, the subset sums its short jobs
/// and its long jobs can make, up to the capacity.
///
/// Its size follows the candidates, not the machine: sums never exceed the
/// candidates' total width, so the table covers `0..=min(capacity, total)`
/// (a search on 2^32 - 1 free processors for a few narrow jobs costs what it
/// costs on a small machine); and when even that is large (a few very wide
/// jobs), the sums are kept as sorted lists, whose length is bounded by the
/// number of subsets. Both give the same sets, so the same answers.
enum SuffixSums {
    Dense(DenseSums),
    Sparse(SparseSums),
}

impl SuffixSums {
    /// The sums of `items` up to `capacity`, or `None` when neither form
    /// fits its limit ([`MAX_DENSE_WORDS`], [`MAX_SPARSE_SUMS`]).
    fn new(items: &[Candidate], capacity: u32) -> Option<Self> {
        let total: u64 = items.iter().map(|c| u64::from(c.width)).sum();
        let size = u64::from(capacity).min(total) as u32;
        let dense_words = (items.len() + 1)
            .saturating_mul(3)
            .saturating_mul(size as usize / 64 + 1);
        if dense_words <= SMALL_DENSE_WORDS {
            return Some(SuffixSums::Dense(DenseSums::new(items, size)));
        }
        let sparse_limit = MAX_SPARSE_SUMS.min(dense_words.saturating_mul(2));
        if let Some(sparse) = SparseSums::new(items, size, sparse_limit) {
            return Some(SuffixSums::Sparse(sparse));
        }
        (dense_words <= MAX_DENSE_WORDS).then(|| SuffixSums::Dense(DenseSums::new(items, size)))
    }

    /// Whether candidates `k..` can use exactly `t` processors with long
    /// jobs on at most `u` of them.
    fn makes(&self, k: usize, t: u32, u: u32) -> bool {
        match self {
            SuffixSums::Dense(d) => d.makes(k, t, u),
            SuffixSums::Sparse(s) => s.makes(k, t, u),
        }
    }

    /// Most processors candidates `k..` can still use with `r` reserved and
    /// `u` unreserved ones left.
    fn reach(&self, k: usize, r: u32, u: u32) -> u32 {
        match self {
            SuffixSums::Dense(d) => d.reach(k, r, u),
            SuffixSums::Sparse(s) => s.reach(k, r, u),
        }
    }
}

/// [`SuffixSums`] as sorted lists of the sums each suffix's short jobs and
/// long jobs can make (up to the capacity).
struct SparseSums {
    capacity: u32,
    /// `short[k]`, `long[k]`: the sums of suffix `k..`, ascending.
    short: Vec<Vec<u32>>,
    long: Vec<Vec<u32>>,
}

impl SparseSums {
    /// The lists, or `None` as soon as they would hold more than `limit` sums.
    fn new(items: &[Candidate], capacity: u32, limit: usize) -> Option<Self> {
        let n = items.len();
        let (mut short, mut long) = (vec![Vec::new(); n + 1], vec![Vec::new(); n + 1]);
        short[n].push(0);
        long[n].push(0);
        let mut held = 2usize;
        for k in (0..n).rev() {
            let (w, is_short) = (items[k].width, items[k].short);
            let (grown, kept) = if is_short {
                (&mut short, &mut long)
            } else {
                (&mut long, &mut short)
            };
            kept[k] = kept[k + 1].clone();
            grown[k] = with_item(&grown[k + 1], w, capacity);
            held += kept[k].len() + grown[k].len();
            if held > limit {
                return None;
            }
        }
        Some(SparseSums { capacity, short, long })
    }

    fn makes(&self, k: usize, t: u32, u: u32) -> bool {
        if t > self.capacity {
            return false;
        }
        let short = &self.short[k];
        let limit = u.min(t);
        self.long[k]
            .iter()
            .take_while(|&&l| l <= limit)
            .any(|&l| short.binary_search(&(t - l)).is_ok())
    }

    fn reach(&self, k: usize, r: u32, u: u32) -> u32 {
        let total = u64::from(r) + u64::from(u);
        let short = &self.short[k];
        let mut best = 0u64;
        for &l in self.long[k].iter().take_while(|&&l| l <= u) {
            let room = total - u64::from(l);
            let fits = short.partition_point(|&s| u64::from(s) <= room);
            // the empty subset (sum 0) is always in the list, so `fits >= 1`
            best = best.max(u64::from(l) + u64::from(short[fits - 1]));
            if best == total {
                break;
            }
        }
        best as u32
    }
}

/// The sums of `sums` (ascending) and of `sums + w`, merged, without
/// duplicates, up to `capacity`.
fn with_item(sums: &[u32], w: u32, capacity: u32) -> Vec<u32> {
    let mut out = Vec::with_capacity(sums.len() * 2);
    let shifted = sums.iter().filter_map(|&s| s.checked_add(w).filter(|&v| v <= capacity));
    let mut shifted = shifted.peekable();
    let mut plain = sums.iter().copied().peekable();
    loop {
        let next = match (plain.peek(), shifted.peek()) {
            (Some(&a), Some(&b)) if a <= b => plain.next(),
            (Some(_), Some(_)) | (None, Some(_)) => shifted.next(),
            (Some(_), None) => plain.next(),
            (None, None) => break,
        };
        let v = next.expect("peeked");
        if out.last() != Some(&v) {
            out.push(v);
        }
    }
    out
}

/// Fig. 2's include-first depth-first search itself, for the decisions whose
/// table of sums would be too large: it visits the subsets in the same
/// order, pruning a branch when even all of its remaining candidates (as
/// many as fit) could not beat the best subset found so far, and keeps the
/// first subset of the best utilization. Uncut, it finds the subset the
/// exact walk of [`search`] finds (that walk goes straight down this
/// search's tree to it); it can visit many more nodes, and the node budget
/// (or the time limit) bounds it, as in the paper, keeping the best subset
/// found so far. Here the budget counts the candidates looked at, which
/// bounds the work (the subsets entered, reported as `nodes`, are fewer).
fn depth_first(
    items: &[Candidate],
    reserved: u32,
    unreserved: u32,
    budget: u64,
    deadline: Option<Instant>,
) -> Selection {
    let n = items.len();
    // Remaining widths from position k on: short ones, long ones.
    let (mut short_rest, mut long_rest) = (vec![0u64; n + 1], vec![0u64; n + 1]);
    for k in (0..n).rev() {
        let w = u64::from(items[k].width);
        short_rest[k] = short_rest[k + 1] + if items[k].short { w } else { 0 };
        long_rest[k] = long_rest[k + 1] + if items[k].short { 0 } else { w };
    }
    // Most that candidates `k..` can add with `r` reserved and `u` unreserved left.
    let bound = |k: usize, r: u32, u: u32| -> u64 {
        (u64::from(r) + u64::from(u)).min(short_rest[k] + long_rest[k].min(u64::from(u)))
    };
    let ceiling = bound(0, reserved, unreserved);
    let mut best = Selection {
        chosen: Vec::new(),
        utilization: 0,
        nodes: 1,
        cut: false,
    };
    // One frame per subset on the current path: the next candidate to try
    // adding, the processors left, the utilization; `path` lists the
    // candidates of the deepest frame's subset.
    struct Frame {
        next: usize,
        r: u32,
        u: u32,
        used: u64,
    }
    let mut frames = vec![Frame {
        next: 0,
        r: reserved,
        u: unreserved,
        used: 0,
    }];
    let mut path: Vec<usize> = Vec::new();
    // The best subset is `path[..best_len]` while `best_in_path`; it is
    // copied out only when the search backs out of it, so that a deep descent
    // that improves at every step costs its depth, not its depth squared.
    let (mut best_len, mut best_in_path) = (0, false);
    // Candidates looked at (the root counts as one): the budget bounds them,
    // not only the subsets entered, so that a decision's work is bounded by
    // the budget whatever the candidates that do not fit or cannot help.
    let mut looked: u64 = 1;
    while let Some(top) = frames.last_mut() {
        if u64::from(best.utilization) == ceiling {
            break;
        }
        let (k, r, u, used) = (top.next, top.r, top.u, top.used);
        if k >= n || used + bound(k, r, u) <= u64::from(best.utilization) {
            frames.pop();
            if !frames.is_empty() {
                if best_in_path && path.len() == best_len {
                    best.chosen.clone_from(&path);
                    best_in_path = false;
                }
                path.pop();
            }
            continue;
        }
        if looked >= budget || (looked & 1023 == 0 && deadline.is_some_and(|d| Instant::now() >= d)) {
            best.cut = true;
            break;
        }
        looked += 1;
        top.next = k + 1;
        let item = items[k];
        let fits = if item.short {
            item.width <= r + u
        } else {
            item.width <= u
        };
        if !fits {
            continue;
        }
        let from_reserved = if item.short { item.width.min(r) } else { 0 };
        let (r2, u2) = (r - from_reserved, u - (item.width - from_reserved));
        let used2 = used + u64::from(item.width);
        if used2 + bound(k + 1, r2, u2) <= u64::from(best.utilization) {
            continue;
        }
        best.nodes += 1;
        path.push(k);
        frames.push(Frame {
            next: k + 1,
            r: r2,
            u: u2,
            used: used2,
        });
        if used2 > u64::from(best.utilization) {
            best.utilization = used2 as u32;
            (best_len, best_in_path) = (path.len(), true);
        }
    }
    if best_in_path {
        path.truncate(best_len);
        best.chosen = path;
    }
    best
}

/// [`SuffixSums`] as bitsets, one bit per sum `0..=capacity`: the short
/// ones also mirrored (bit `capacity - s` for sum `s`), so that "can the
/// suffix make exactly `t`" is one pass of word operations. `capacity` here
/// is the table's size (see [`SuffixSums::new`]), which may be below the
/// free processors: no subset sums to more than it.
struct DenseSums {
    words: usize,
    capacity: usize,
    short: Vec<u64>,
    long: Vec<u64>,
    mirrored_short: Vec<u64>,
}

impl DenseSums {
    fn new(items: &[Candidate], capacity: u32) -> Self {
        let words = capacity as usize / 64 + 1;
        let n = items.len();
        let mut short = vec![0u64; (n + 1) * words];
        let mut long = vec![0u64; (n + 1) * words];
        let mut mirrored_short = vec![0u64; (n + 1) * words];
        short[n * words] = 1; // the empty subset: sum 0
        long[n * words] = 1;
        mirrored_short[n * words + capacity as usize / 64] = 1 << (capacity % 64);
        for k in (0..n).rev() {
            let (w, is_short) = (items[k].width as usize, items[k].short);
            for (sets, grows, up) in [
                (&mut short, is_short, true),
                (&mut long, !is_short, true),
                (&mut mirrored_short, is_short, false),
            ] {
                let (head, tail) = sets.split_at_mut((k + 1) * words);
                let (next, this) = (&tail[..words], &mut head[k * words..]);
                this.copy_from_slice(next);
                if grows && up {
                    or_shifted(this, next, w);
                } else if grows {
                    or_shifted_down(this, next, w);
                }
            }
        }
        // Drop sums above the capacity so that searches may stop at it.
        let last_bits = capacity as usize % 64 + 1;
        let mask = if last_bits == 64 {
            u64::MAX
        } else {
            (1u64 << last_bits) - 1
        };
        for k in 0..=n {
            short[k * words + words - 1] &= mask;
            long[k * words + words - 1] &= mask;
        }
        DenseSums {
            words,
            capacity: capacity as usize,
            short,
            long,
            mirrored_short,
        }
    }

    /// Whether candidates `k..` can use exactly `t` processors with long
    /// jobs on at most `u` of them: some long sum `L <= min(u, t)` whose
    /// complement `t - L` is a short sum, i.e. bit `L` of the long sums and
    /// bit `capacity - t + L` of the mirrored short sums are both set.
    fn makes(&self, k: usize, t: u32, u: u32) -> bool {
        let (t, u) = (t as usize, u as usize);
        if t > self.capacity {
            return false;
        }
        let long = &self.long[k * self.words..(k + 1) * self.words];
        let mirrored = &self.mirrored_short[k * self.words..(k + 1) * self.words];
        let limit = u.min(t);
        let shift = self.capacity - t;
        (0..=limit / 64).any(|i| {
            let mut both = long[i] & bits_from(mirrored, i * 64 + shift);
            if i == limit / 64 && limit % 64 < 63 {
                both &= (1u64 << (limit % 64 + 1)) - 1;
            }
            both != 0
        })
    }

    /// Most processors candidates `k..` can still use with `r` reserved and
    /// `u` unreserved ones left: the best long sum `L <= u` plus the best short
    /// sum that fits in the rest, `r + u - L`.
    fn reach(&self, k: usize, r: u32, u: u32) -> u32 {
        let long = &self.long[k * self.words..(k + 1) * self.words];
        let short = &self.short[k * self.words..(k + 1) * self.words];
        let total = (r + u) as usize;
        let mut best = 0;
        for l in set_bits_up_to(long, u as usize) {
            let value = l + highest_set_bit_up_to(short, total - l).unwrap_or(0);
            best = best.max(value);
            if best == total {
                break;
            }
        }
        best as u32
    }
}

/// `this |= next << shift` on little-endian bitsets of equal length.
fn or_shifted(this: &mut [u64], next: &[u64], shift: usize) {
    let (word_shift, bit_shift) = (shift / 64, shift % 64);
    for i in (word_shift..this.len()).rev() {
        let src = i - word_shift;
        let mut v = next[src] << bit_shift;
        if bit_shift > 0 && src > 0 {
            v |= next[src - 1] >> (64 - bit_shift);
        }
        this[i] |= v;
    }
}

/// `this |= next >> shift` on little-endian bitsets of equal length.
fn or_shifted_down(this: &mut [u64], next: &[u64], shift: usize) {
    for (i, word) in this.iter_mut().enumerate() {
        *word |= bits_from(next, i * 64 + shift);
    }
}

/// The 64 bits of `bits` starting at bit `from` (zeros past the end).
fn bits_from(bits: &[u64], from: usize) -> u64 {
    let (i, b) = (from / 64, from % 64);
    let low = bits.get(i).map_or(0, |w| w >> b);
    let high = if b == 0 {
        0
    } else {
        bits.get(i + 1).map_or(0, |w| w << (64 - b))
    };
    low | high
}

fn set_bits_up_to(bits: &[u64], limit: usize) -> impl Iterator<Item = usize> + '_ {
    bits.iter()
        .enumerate()
        .take(limit / 64 + 1)
        .flat_map(move |(i, &word)| {
            let mut w = word;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let b = w.trailing_zeros() as usize;
                w &= w - 1;
                Some(i * 64 + b)
            })
            .filter(move |&v| v <= limit)
        })
}

fn highest_set_bit_up_to(bits: &[u64], limit: usize) -> Option<usize> {
    let top = (limit / 64).min(bits.len() - 1);
    for i in (0..=top).rev() {
        let mut w = bits[i];
        if i == limit / 64 {
            let keep = limit % 64 + 1;
            if keep < 64 {
                w &= (1u64 << keep) - 1;
            }
        }
        if w != 0 {
            return Some(i * 64 + 63 - w.leading_zeros() as usize);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(width: u32, short: bool) -> Candidate {
        Candidate { width, short }
    }

    #[test]
    fn paper_fig1_prefers_the_pair_that_fills_the_hole() {
        // J2 (3 wide) vs J3 + J4 (2 + 2) in a 4-processor hole: DPSA takes J3, J4.
        let s = select(
            &[c(3, true), c(2, true), c(2, true)],
            4,
            0,
            &DpsaConfig::new(DpsaVariant::Priority),
        );
        assert_eq!((s.chosen, s.utilization, s.cut), (vec![1, 2], 4, false));
    }

    #[test]
    fn long_jobs_only_use_unreserved_processors() {
        // 4 free, 3 of them reserved: a long 2-wide job cannot run, a short one can.
        let s = select(
            &[c(2, false), c(2, true)],
            3,
            1,
            &DpsaConfig::new(DpsaVariant::Priority),
        );
        assert_eq!(s.chosen, vec![1]);
        let s = select(
            &[c(1, false), c(3, true)],
            3,
            1,
            &DpsaConfig::new(DpsaVariant::Priority),
        );
        assert_eq!((s.chosen, s.utilization), (vec![0, 1], 4));
    }

    #[test]
    fn variants_break_ties_differently() {
        // 4 free: {4} or {1, 3} or {2, 2}: all use 4.
        let cands = [c(4, true), c(1, true), c(3, true), c(2, true), c(2, true)];
        let pick = |v| select(&cands, 0, 4, &DpsaConfig::new(v)).chosen;
        assert_eq!(pick(DpsaVariant::Priority), vec![0]);
        assert_eq!(pick(DpsaVariant::Narrow), vec![1, 2]);
        assert_eq!(pick(DpsaVariant::Wide), vec![0]);
    }

    #[test]
    fn budget_cuts_and_keeps_the_part_chosen_so_far() {
        let cands: Vec<Candidate> = (0..30).map(|_| c(3, true)).collect();
        let full = select(&cands, 0, 10, &DpsaConfig::new(DpsaVariant::Priority));
        assert_eq!(
            (full.chosen, full.utilization, full.nodes, full.cut),
            (vec![0, 1, 2], 9, 4, false)
        );
        let s = select(
            &cands,
            0,
            10,
            &DpsaConfig {
                node_budget: 3,
                ..DpsaConfig::new(DpsaVariant::Priority)
            },
        );
        assert_eq!((s.chosen, s.utilization, s.cut), (vec![0, 1], 6, true));
    }

    #[test]
    fn huge_or_infinite_time_limits_mean_no_limit() {
        let cands = [c(3, true), c(2, true), c(2, true)];
        for limit in [f64::INFINITY, 1e300, f64::MAX] {
            let config = DpsaConfig {
                time_limit: Some(limit),
                ..DpsaConfig::new(DpsaVariant::Priority)
            };
            let s = select(&cands, 4, 0, &config);
            assert_eq!((s.chosen, s.cut), (vec![1, 2], false));
        }
    }

    /// Candidates drawn from a small linear congruential generator.
    fn draw(seed: &mut u64, n: usize, max_width: u32) -> Vec<Candidate> {
        (0..n)
            .map(|_| {
                *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let x = *seed >> 33;
                c((x % u64::from(max_width)) as u32 + 1, x & (1 << 20) != 0)
            })
            .collect()
    }

    #[test]
    fn dense_sparse_and_depth_first_agree() {
        let mut seed = 7u64;
        for case in 0..3000 {
            let n = case % 14;
            let free = (case as u32 * 7919) % 40 + 1;
            let items = draw(&mut seed, n, free);
            let unreserved = (case as u32 * 31) % (free + 1);
            let reserved = free - unreserved;
            let total: u64 = items.iter().map(|c| u64::from(c.width)).sum();
            // the table at the machine's size (as before) and at the candidates' total
            let full = SuffixSums::Dense(DenseSums::new(&items, free));
            let size = u64::from(free).min(total) as u32;
            let dense = SuffixSums::Dense(DenseSums::new(&items, size));
            let sparse = SuffixSums::Sparse(SparseSums::new(&items, size, usize::MAX).unwrap());
            let expected = walk(&items, &full, reserved, unreserved, u64::MAX, None);
            for sums in [&dense, &sparse] {
                assert_eq!(
                    walk(&items, sums, reserved, unreserved, u64::MAX, None),
                    expected,
                    "{items:?}"
                );
            }
            let dfs = depth_first(&items, reserved, unreserved, u64::MAX, None);
            assert_eq!(
                (&dfs.chosen, dfs.utilization, dfs.cut),
                (&expected.chosen, expected.utilization, false)
            );
        }
    }

    #[test]
    fn a_few_jobs_on_a_huge_machine_cost_what_they_cost_on_a_small_one() {
        let config = DpsaConfig::new(DpsaVariant::Priority);
        // 2^32 - 1 free processors, most of them reserved: the table follows the 4 jobs' widths.
        let began = Instant::now();
        let s = select(
            &[c(2, true), c(3, false), c(5, true), c(7, false)],
            u32::MAX - 4,
            4,
            &config,
        );
        assert_eq!((s.chosen, s.utilization, s.cut), (vec![0, 1, 2], 10, false));
        // Very wide jobs: the sums as lists (16 subsets at most).
        let wide = [
            c(1 << 30, true),
            c((1 << 30) + 1, false),
            c(3 << 29, true),
            c(1 << 31, false),
        ];
        let s = select(&wide, u32::MAX - (1 << 31), 1 << 31, &config);
        assert_eq!(
            (s.chosen, s.utilization, s.cut),
            (vec![0, 1, 2], (1 << 30) + (1 << 30) + 1 + (3 << 29), false)
        );
        assert!(began.elapsed() < Duration::from_secs(1), "{:?}", began.elapsed());
    }

    #[test]
    fn too_large_for_any_table_the_budget_bounds_the_search() {
        // 60 wide jobs of distinct widths on 2^32 - 1 processors: neither the
        // bitsets nor the lists fit their limits; the depth-first search does
        // the work the node budget allows.
        let mut seed = 3u64;
        let items: Vec<Candidate> = draw(&mut seed, 60, 1 << 26)
            .into_iter()
            .map(|x| Candidate {
                width: x.width + (1 << 26),
                ..x
            })
            .collect();
        assert!(SuffixSums::new(&items, u32::MAX).is_none());
        let config = DpsaConfig {
            node_budget: 10_000,
            ..DpsaConfig::new(DpsaVariant::Priority)
        };
        let s = select(&items, u32::MAX / 2, u32::MAX / 2, &config);
        assert!(s.nodes <= 10_000 && s.utilization > 0);
        let again = select(&items, u32::MAX / 2, u32::MAX / 2, &config);
        assert_eq!(s, again);
        assert_eq!(s.utilization, s.chosen.iter().map(|&i| items[i].width).sum::<u32>());
        // 100,000 candidates, thousands deep: the budget bounds the candidates looked at.
        let items: Vec<Candidate> = draw(&mut seed, 100_000, 1 << 16)
            .into_iter()
            .map(|x| Candidate {
                width: x.width + (1 << 16),
                ..x
            })
            .collect();
        let config = DpsaConfig {
            node_budget: 50_000,
            ..DpsaConfig::new(DpsaVariant::Narrow)
        };
        let s = select(&items, u32::MAX / 2, u32::MAX / 2, &config);
        assert!(s.cut && s.nodes <= 50_000 && s.chosen.len() > 1000);
        assert!(s.chosen.windows(2).all(|p| p[0] < p[1]));
        assert_eq!(
            u64::from(s.utilization),
            s.chosen.iter().map(|&i| u64::from(items[i].width)).sum::<u64>()
        );
    }

    #[test]
    fn merged_sums() {
        assert_eq!(with_item(&[0, 2, 5], 3, 7), vec![0, 2, 3, 5]);
        assert_eq!(with_item(&[0, 2, 5], 3, 8), vec![0, 2, 3, 5, 8]);
        assert_eq!(with_item(&[0, u32::MAX - 1], 2, u32::MAX), vec![0, 2, u32::MAX - 1]);
    }

    #[test]
    fn bitset_helpers() {
        let mut this = vec![0u64; 3];
        let next = vec![1u64 | (1 << 63), 1, 0];
        this.copy_from_slice(&next);
        or_shifted(&mut this, &next, 65);
        assert_eq!(
            set_bits_up_to(&this, 200).collect::<Vec<_>>(),
            vec![0, 63, 64, 65, 128, 129]
        );
        assert_eq!(highest_set_bit_up_to(&this, 127), Some(65));
        assert_eq!(highest_set_bit_up_to(&this, 62), Some(0));
        assert_eq!(set_bits_up_to(&this, 64).collect::<Vec<_>>(), vec![0, 63, 64]);
        assert_eq!(bits_from(&this, 63), 0b111);
        let mut down = vec![0u64; 3];
        or_shifted_down(&mut down, &this, 63);
        assert_eq!(set_bits_up_to(&down, 200).collect::<Vec<_>>(), vec![0, 1, 2, 65, 66]);
    }
}
