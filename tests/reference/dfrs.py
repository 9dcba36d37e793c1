"""Slow, obviously correct references of the DFRS kernels (RR-7659 §4.2, §4.3, §4.6).

Needs are integers in units of 1e-9 of a node (``UNIT``), as in the Rust core.
A cluster state is a dict ``{job: [node, ...]}`` (one node per task) plus the
job data; loads are recomputed from scratch whenever they are needed.
"""

from __future__ import annotations

import math

UNIT = 1_000_000_000
ACCURACY = 0.01


class Ref:
    """Job data (tasks, cpu, mem in units) and the nodes of the placed jobs."""

    def __init__(self, tasks, cpu, mem, nodes):
        self.tasks, self.cpu, self.mem, self.nodes = list(tasks), list(cpu), list(mem), nodes
        self.place = {}

    def mem_used(self):
        used = [0] * self.nodes
        for j, nodes in self.place.items():
            for i in nodes:
                used[i] += self.mem[j]
        return used

    def cpu_load(self):
        load = [0] * self.nodes
        for j, nodes in self.place.items():
            for i in nodes:
                load[i] += self.cpu[j]
        return load

    # -- Greedy -----------------------------------------------------------------
    def greedy_nodes(self, j):
        """One task at a time on the node with room and the lowest CPU load, ties by index."""
        used, load = self.mem_used(), self.cpu_load()
        chosen = []
        for _ in range(self.tasks[j]):
            fits = [i for i in range(self.nodes) if used[i] + self.mem[j] <= UNIT]
            if not fits:
                return None
            i = min(fits, key=lambda i: (load[i], i))
            chosen.append(i)
            used[i] += self.mem[j]
            load[i] += self.cpu[j]
        return sorted(chosen)

    def greedy(self, j):
        nodes = self.greedy_nodes(j)
        if nodes is None:
            return False
        self.place[j] = nodes
        return True

    def fits(self, j):
        used = self.mem_used()
        return sum((UNIT - u) // self.mem[j] for u in used) >= self.tasks[j]

    def greedy_preempt(self, j, victims, migrate):
        """GreedyP / GreedyPM as §4.2 describes them (victims lowest priority first)."""
        if self.greedy(j):
            return True, [], []
        saved = {v: self.place[v] for v in victims}
        marked = []
        for v in victims:
            del self.place[v]
            marked.append(v)
            if self.fits(j):
                break
        else:
            self.place.update(saved)
            return False, [], []
        paused = []
        for v in reversed(marked):  # decreasing priority
            self.place[v] = saved[v]
            if not self.fits(j):
                del self.place[v]
                paused.append(v)
        assert self.greedy(j)
        still, moved = [], []
        for v in paused:
            if migrate and self.greedy(v):
                moved.append(v)
            else:
                still.append(v)
        return True, still, moved

    # -- MCB8 -------------------------------------------------------------------
    def pack(self, cands, fixed, req):
        """The two-list packing; cands in priority order, fixed: job -> nodes, req: job -> CPU units."""
        mem = [0] * self.nodes
        cpu = [0] * self.nodes
        out = {}
        for j in cands:
            if j in fixed:
                for i in fixed[j]:
                    mem[i] += self.mem[j]
                    cpu[i] += req[j]
                    if mem[i] > UNIT or cpu[i] > UNIT:
                        return None
                out[j] = sorted(fixed[j])
        free = [j for j in cands if j not in fixed]
        left = {j: self.tasks[j] for j in free}
        cpu_heavy = sorted(
            (j for j in free if req[j] > self.mem[j]), key=lambda j: (req[j], self.mem[j], j), reverse=True
        )
        mem_heavy = sorted(
            (j for j in free if req[j] <= self.mem[j]), key=lambda j: (self.mem[j], req[j], j), reverse=True
        )
        for j in free:
            out[j] = []
        for i in range(self.nodes):
            while True:

                def first(lst):
                    for j in lst:
                        if left[j] and mem[i] + self.mem[j] <= UNIT and cpu[i] + req[j] <= UNIT:
                            return j
                    return None

                lists = (cpu_heavy, mem_heavy) if cpu[i] <= mem[i] else (mem_heavy, cpu_heavy)
                j = first(lists[0])
                if j is None:
                    j = first(lists[1])
                if j is None:
                    break
                mem[i] += self.mem[j]
                cpu[i] += req[j]
                left[j] -= 1
                out[j].append(i)
        if any(left.values()):
            return None
        return {j: sorted(v) for j, v in out.items()}

    def mcb8(self, order, fixed, stretch=None):
        """MCB8 / MCB8-stretch search; returns (level, kept jobs, placements) and applies it.

        ``stretch`` is (flow, virt, period) with flow and virt dicts by job.
        """
        kept = list(order)
        while sum(self.tasks[j] * self.mem[j] for j in kept) > self.nodes * UNIT:
            kept.pop()

        def reqs(level):
            r = {}
            for j in kept:
                if stretch is None:
                    y = level
                else:
                    flow, virt, period = stretch
                    y = ((flow[j] + period) * level - virt[j]) / period
                    if y > 1.0:
                        return None
                    y = max(y, 0.0)
                r[j] = min(math.ceil(y * self.cpu[j]), self.cpu[j])
            return r

        def attempt(level):
            r = reqs(level)
            return None if r is None else self.pack(kept, {j: v for j, v in fixed.items() if j in kept}, r)

        result = None
        while kept:
            best = attempt(1.0)
            if best is not None:
                result = (1.0, best)
                break
            best = attempt(0.0)
            if best is None:
                kept.pop()
                continue
            lo, hi = 0.0, 1.0
            while hi - lo > ACCURACY:
                mid = 0.5 * (lo + hi)
                p = attempt(mid)
                if p is not None:
                    lo, best = mid, p
                else:
                    hi = mid
            result = (lo, best)
            break
        for j in order:
            self.place.pop(j, None)
        if result is None:
            return 0.0, [], {}
        self.place.update(result[1])
        return result[0], kept, result[1]

    # -- allocation -------------------------------------------------------------
    def max_min_yields(self):
        """Progressive filling: returns {job: yield} for the placed jobs."""
        c = {j: self.cpu[j] / UNIT for j in self.place}
        y = {}
        rising = set(self.place)
        while rising:
            levels = []
            for i in range(self.nodes):
                frozen = sum(y[j] * c[j] * self.place[j].count(i) for j in y)
                demand = sum(c[j] * self.place[j].count(i) for j in rising)
                if any(i in self.place[j] for j in rising):
                    levels.append(((1.0 - frozen) / demand, i))
            level = min([lv for lv, _ in levels] + [1.0])
            if level >= 1.0:
                for j in rising:
                    y[j] = 1.0
                break
            tight = {i for lv, i in levels if lv <= level * (1 + 1e-12)}
            for j in sorted(rising):
                if any(i in tight for i in self.place[j]):
                    y[j] = level
            rising -= set(y)
        return y
