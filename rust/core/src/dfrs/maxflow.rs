//! Maximum flow with real capacities (Dinic's algorithm), the kernel of the
//! Theorem 1 lower bound ([`super::bound`]).
//!
//! Arcs live in compressed sparse rows; every arc has a paired reverse arc
//! and the network stores residual capacities only. A residual at or below
//! the network's tolerance `eps` counts as zero, which makes the algorithm
//! terminate on floating-point capacities and keeps rounding noise from
//! creating augmenting paths. Augmenting-path search is iterative, so the
//! depth of a path is bounded by memory, not by the thread's stack.

use crate::error::{Error, Result};

/// A flow network under construction: nodes `0..nodes`, arcs added in order.
#[derive(Debug, Clone, Default)]
pub struct FlowBuilder {
    nodes: usize,
    tails: Vec<u32>,
    heads: Vec<u32>,
    capacities: Vec<f64>,
}

/// The index of an arc as returned by [`FlowBuilder::add_arc`].
pub type ArcId = usize;

impl FlowBuilder {
    /// An empty network with `nodes` nodes.
    pub fn new(nodes: usize) -> Self {
        FlowBuilder {
            nodes,
            ..Default::default()
        }
    }

    /// Pre-allocates room for `arcs` arcs.
    pub fn with_capacity(nodes: usize, arcs: usize) -> Self {
        FlowBuilder {
            nodes,
            tails: Vec::with_capacity(arcs),
            heads: Vec::with_capacity(arcs),
            capacities: Vec::with_capacity(arcs),
        }
    }

    /// Adds an arc `tail -> head` of capacity `capacity` and returns its id.
    ///
    /// Errors when a node is out of range or the capacity is negative or not
    /// finite.
    pub fn add_arc(&mut self, tail: usize, head: usize, capacity: f64) -> Result<ArcId> {
        if tail >= self.nodes || head >= self.nodes {
            return Err(Error::InvalidArgument(format!(
                "arc {tail} -> {head} names a node outside 0 to {}",
                self.nodes.saturating_sub(1)
            )));
        }
        if !(capacity.is_finite() && capacity >= 0.0) {
            return Err(Error::InvalidArgument(format!(
                "arc {tail} -> {head} has capacity {capacity}, must be finite and >= 0"
            )));
        }
        // Node counts beyond u32 would not fit in memory as arcs anyway.
        self.tails.push(tail as u32);
        self.heads.push(head as u32);
        self.capacities.push(capacity);
        Ok(self.tails.len() - 1)
    }

    /// Number of arcs added so far.
    pub fn arcs(&self) -> usize {
        self.tails.len()
    }

    /// The network in CSR form, ready for [`FlowNetwork::max_flow`].
    ///
    /// `eps` is the residual capacity below which an arc counts as saturated
    /// (0 for exact arithmetic; see [`FlowNetwork`]).
    pub fn build(self, eps: f64) -> FlowNetwork {
        let n = self.nodes;
        let m = self.tails.len();
        // Each arc contributes a forward slot at its tail and a reverse slot at its head.
        let mut start = vec![0usize; n + 1];
        for k in 0..m {
            start[self.tails[k] as usize + 1] += 1;
            start[self.heads[k] as usize + 1] += 1;
        }
        for v in 0..n {
            start[v + 1] += start[v];
        }
        let mut fill = start.clone();
        let mut head = vec![0u32; 2 * m];
        let mut pair = vec![0usize; 2 * m];
        let mut residual = vec![0.0f64; 2 * m];
        let mut slot = vec![0usize; m];
        for k in 0..m {
            let (u, v) = (self.tails[k] as usize, self.heads[k] as usize);
            let forward = fill[u];
            fill[u] += 1;
            let backward = fill[v];
            fill[v] += 1;
            head[forward] = v as u32;
            head[backward] = u as u32;
            pair[forward] = backward;
            pair[backward] = forward;
            residual[forward] = self.capacities[k];
            slot[k] = forward;
        }
        FlowNetwork {
            start,
            head,
            pair,
            residual,
            capacity: self.capacities,
            slot,
            eps: eps.max(0.0),
            level: vec![u32::MAX; n],
            next_arc: vec![0; n],
        }
    }
}

/// A flow network with residual capacities (see [`FlowBuilder`]).
#[derive(Debug, Clone)]
pub struct FlowNetwork {
    /// CSR offsets of each node's slots (forward and reverse arcs).
    start: Vec<usize>,
    head: Vec<u32>,
    /// The slot of the paired arc.
    pair: Vec<usize>,
    residual: Vec<f64>,
    /// Capacity of each added arc, by [`ArcId`].
    capacity: Vec<f64>,
    /// The forward slot of each added arc, by [`ArcId`].
    slot: Vec<usize>,
    eps: f64,
    level: Vec<u32>,
    next_arc: Vec<usize>,
}

impl FlowNetwork {
    /// Number of nodes.
    pub fn nodes(&self) -> usize {
        self.start.len() - 1
    }

    /// Flow currently on arc `arc`.
    pub fn flow(&self, arc: ArcId) -> f64 {
        self.capacity[arc] - self.residual[self.slot[arc]]
    }

    /// Residual capacity of arc `arc`.
    pub fn residual(&self, arc: ArcId) -> f64 {
        self.residual[self.slot[arc]]
    }

    /// Adds `amount` units of flow on arc `arc` (a warm start). The caller
    /// keeps flow conservation (e.g. by loading whole source-sink paths);
    /// errors if `amount` is negative or exceeds the residual capacity.
    pub fn push(&mut self, arc: ArcId, amount: f64) -> Result<()> {
        let s = self.slot[arc];
        if !(amount >= 0.0 && amount <= self.residual[s]) {
            return Err(Error::InvalidArgument(format!(
                "cannot push {amount} on arc {arc}: residual capacity {}",
                self.residual[s]
            )));
        }
        self.residual[s] -= amount;
        self.residual[self.pair[s]] += amount;
        Ok(())
    }

    /// Augments the current flow to a maximum `source -> sink` flow and
    /// returns the flow added (Dinic: BFS level graph, then blocking flows
    /// along admissible arcs with current-arc pointers).
    pub fn max_flow(&mut self, source: usize, sink: usize) -> Result<f64> {
        let n = self.nodes();
        if source >= n || sink >= n || source == sink {
            return Err(Error::InvalidArgument(format!(
                "source {source} and sink {sink} must be distinct nodes from 0 to {}",
                n.saturating_sub(1)
            )));
        }
        let mut added = 0.0;
        let mut queue = Vec::with_capacity(n);
        let mut path: Vec<usize> = Vec::new();
        while self.levels(source, sink, &mut queue) {
            self.next_arc.copy_from_slice(&self.start[..n]);
            loop {
                let pushed = self.augment(source, sink, &mut path);
                if pushed <= 0.0 {
                    break;
                }
                added += pushed;
            }
        }
        Ok(added)
    }

    /// BFS levels from `source` over arcs with residual above `eps`; true
    /// when `sink` is reached.
    fn levels(&mut self, source: usize, sink: usize, queue: &mut Vec<usize>) -> bool {
        self.level.fill(u32::MAX);
        queue.clear();
        self.level[source] = 0;
        queue.push(source);
        let mut read = 0;
        while read < queue.len() {
            let u = queue[read];
            read += 1;
            for s in self.start[u]..self.start[u + 1] {
                let v = self.head[s] as usize;
                if self.residual[s] > self.eps && self.level[v] == u32::MAX {
                    self.level[v] = self.level[u] + 1;
                    if v == sink {
                        // Nodes further from the source than the sink are never on a shortest path.
                        return true;
                    }
                    queue.push(v);
                }
            }
        }
        false
    }

    /// One augmenting path in the level graph (iterative DFS with current
    /// arcs); returns the flow pushed, 0 when the blocking flow is complete.
    fn augment(&mut self, source: usize, sink: usize, path: &mut Vec<usize>) -> f64 {
        path.clear();
        let mut u = source;
        loop {
            if u == sink {
                let bottleneck = path.iter().map(|&s| self.residual[s]).fold(f64::INFINITY, f64::min);
                for &s in path.iter() {
                    self.residual[s] -= bottleneck;
                    self.residual[self.pair[s]] += bottleneck;
                }
                return bottleneck;
            }
            let end = self.start[u + 1];
            let mut advanced = false;
            while self.next_arc[u] < end {
                let s = self.next_arc[u];
                let v = self.head[s] as usize;
                if self.residual[s] > self.eps && self.level[v] == self.level[u] + 1 {
                    path.push(s);
                    u = v;
                    advanced = true;
                    break;
                }
                self.next_arc[u] += 1;
            }
            if !advanced {
                // Dead end: no admissible arc left at u; retreat.
                self.level[u] = u32::MAX;
                match path.pop() {
                    None => return 0.0,
                    Some(s) => {
                        u = self.head[self.pair[s]] as usize;
                        self.next_arc[u] += 1;
                    }
                }
            }
        }
    }

    /// Nodes reachable from `source` through arcs with residual above `eps`:
    /// after [`FlowNetwork::max_flow`], the source side of a minimum cut.
    pub fn source_side(&self, source: usize) -> Vec<bool> {
        let n = self.nodes();
        let mut seen = vec![false; n];
        let mut stack = vec![source];
        seen[source] = true;
        while let Some(u) = stack.pop() {
            for s in self.start[u]..self.start[u + 1] {
                let v = self.head[s] as usize;
                if !seen[v] && self.residual[s] > self.eps {
                    seen[v] = true;
                    stack.push(v);
                }
            }
        }
        seen
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn network(nodes: usize, arcs: &[(usize, usize, f64)]) -> (FlowNetwork, Vec<ArcId>) {
        let mut b = FlowBuilder::new(nodes);
        let ids = arcs.iter().map(|&(u, v, c)| b.add_arc(u, v, c).unwrap()).collect();
        (b.build(0.0), ids)
    }

    #[test]
    fn classic_example() {
        // CLRS Figure 26.1: maximum flow 23.
        let arcs = [
            (0, 1, 16.0),
            (0, 2, 13.0),
            (2, 1, 4.0),
            (1, 3, 12.0),
            (3, 2, 9.0),
            (2, 4, 14.0),
            (4, 3, 7.0),
            (3, 5, 20.0),
            (4, 5, 4.0),
        ];
        let (mut net, _) = network(6, &arcs);
        assert_eq!(net.max_flow(0, 5).unwrap(), 23.0);
        let side = net.source_side(0);
        let cut: f64 = arcs.iter().filter(|a| side[a.0] && !side[a.1]).map(|a| a.2).sum();
        assert_eq!(cut, 23.0);
    }

    #[test]
    fn warm_start_is_kept() {
        let (mut net, ids) = network(3, &[(0, 1, 5.0), (1, 2, 3.0)]);
        net.push(ids[0], 2.0).unwrap();
        net.push(ids[1], 2.0).unwrap();
        assert_eq!(net.max_flow(0, 2).unwrap(), 1.0);
        assert_eq!(net.flow(ids[1]), 3.0);
        assert!(net.push(ids[1], 0.5).is_err());
    }

    #[test]
    fn bad_arguments_are_errors() {
        let mut b = FlowBuilder::new(2);
        assert!(b.add_arc(0, 2, 1.0).is_err());
        assert!(b.add_arc(0, 1, -1.0).is_err());
        assert!(b.add_arc(0, 1, f64::NAN).is_err());
        let mut net = b.build(0.0);
        assert!(net.max_flow(0, 0).is_err());
        assert!(net.max_flow(0, 7).is_err());
    }

    #[test]
    fn long_path_needs_no_deep_stack() {
        let n = 200_000;
        let mut b = FlowBuilder::new(n);
        for v in 0..n - 1 {
            b.add_arc(v, v + 1, 1.0 + (v % 3) as f64).unwrap();
        }
        let mut net = b.build(0.0);
        assert_eq!(net.max_flow(0, n - 1).unwrap(), 1.0);
    }

    /// Maximum flow by brute force: the smallest cut over all source sides.
    fn min_cut_brute(nodes: usize, arcs: &[(usize, usize, f64)]) -> f64 {
        let mut best = f64::INFINITY;
        for mask in 0u32..(1 << nodes) {
            if mask & 1 == 0 || mask & (1 << (nodes - 1)) != 0 {
                continue;
            }
            let inside = |v: usize| mask & (1 << v) != 0;
            let cut: f64 = arcs.iter().filter(|a| inside(a.0) && !inside(a.1)).map(|a| a.2).sum();
            best = best.min(cut);
        }
        best
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn equals_minimum_cut(
            nodes in 2usize..7,
            raw in proptest::collection::vec((0usize..7, 0usize..7, 0u32..20), 0..20),
        ) {
            let arcs: Vec<(usize, usize, f64)> = raw
                .into_iter()
                .filter(|&(u, v, _)| u < nodes && v < nodes && u != v)
                .map(|(u, v, c)| (u, v, f64::from(c)))
                .collect();
            let (mut net, ids) = network(nodes, &arcs);
            let flow = net.max_flow(0, nodes - 1).unwrap();
            prop_assert_eq!(flow, min_cut_brute(nodes, &arcs));
            // Capacities and conservation hold for the flow found.
            let mut balance = vec![0.0; nodes];
            for (k, &(u, v, c)) in arcs.iter().enumerate() {
                let f = net.flow(ids[k]);
                prop_assert!(f >= 0.0 && f <= c);
                balance[u] -= f;
                balance[v] += f;
            }
            for v in 1..nodes - 1 {
                prop_assert_eq!(balance[v], 0.0);
            }
            prop_assert_eq!(balance[nodes - 1], flow);
        }
    }
}
