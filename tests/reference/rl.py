"""Slow, obviously-correct episode of clustersched.rl, for differential tests of the Rust kernel.

Written from the decision semantics of :mod:`clustersched.rl` with plain lists, independently of the Rust
core (no shared code): a completion list, a queue in arrival order, EASY's shadow time recomputed from the
running jobs at every use, the observation rows from their formulas, the baselines' scores.
"""

from __future__ import annotations

import math

import numpy as np

TAU = 10.0
EPS = np.float32(1e-5)
TOP = np.float32(1.0) - EPS


class ReferenceEpisode:
    """One episode over jobs ``0..n-1`` (sorted by submit), on ``procs`` processors."""

    def __init__(
        self,
        submit,
        runtime,
        estimate,
        width,
        procs,
        *,
        slots,
        backfill,
        layout="clustersched",
        static=None,
        max_wait=43200.0,
        max_run=43200.0,
        cost="bounded_slowdown",
        dense=False,
        illegal_penalty=0.0,
    ):
        self.submit, self.runtime, self.estimate, self.width = (
            list(map(float, submit)),
            list(map(float, runtime)),
            list(map(float, estimate)),
            list(map(int, width)),
        )
        self.n, self.procs, self.slots, self.backfill, self.layout = len(submit), procs, slots, backfill, layout
        self.static = static if static is not None else [[0.0] * 4 for _ in range(self.n)]
        self.max_wait, self.max_run, self.cost, self.dense = max_wait, max_run, cost, dense
        self.penalty = illegal_penalty
        self.start = [None] * self.n
        self.running = []  # started jobs not yet completed
        self.queue = []  # arrival order
        self.arrived = 0
        self.t = self.submit[0]
        self.done = False
        self._next_decision()

    # -- the simulation -------------------------------------------------------
    def _advance(self):
        times = [self.start[j] + self.runtime[j] for j in self.running]
        if self.arrived < self.n:
            times.append(self.submit[self.arrived])
        assert times, "no event left"
        self.t = min(times)
        self.running = [j for j in self.running if self.start[j] + self.runtime[j] != self.t]
        while self.arrived < self.n and self.submit[self.arrived] == self.t:
            self.queue.append(self.arrived)
            self.arrived += 1

    def free(self):
        return self.procs - sum(self.width[j] for j in self.running)

    def _launch(self, job):
        self.start[job] = self.t
        self.running.append(job)
        self.queue.remove(job)
        self.started_now.append(job)

    def _shadow(self, need):
        """EASY's shadow time and extra processors: running jobs end at their estimates."""
        avail = self.free()
        if avail >= need:
            return self.t, avail - need
        for end in sorted({self.start[j] + self.estimate[j] for j in self.running}):
            avail += sum(self.width[j] for j in self.running if self.start[j] + self.estimate[j] == end)
            if avail >= need:
                return end, avail - need
        raise AssertionError("wider than the machine")

    def _backfill_around(self, job):
        shadow, extra = self._shadow(self.width[job])
        free = self.free()
        for j in list(self.queue):
            if j == job:
                continue
            w, ends = self.width[j], self.t + self.estimate[j]
            if w <= free and (ends <= shadow or w <= extra):
                if ends > shadow:
                    extra -= w
                self._launch(j)
                free -= w

    def _next_decision(self):
        while not self.queue:
            if all(s is not None for s in self.start):
                self.done = True
                break
            self._advance()
        self.visible = self.queue[: self.slots]

    # -- the environment --------------------------------------------------------
    def job_cost(self, j):
        end = self.start[j] + self.runtime[j]
        wait, run = self.start[j] - self.submit[j], end - self.start[j]
        if self.cost == "wait":
            return wait
        return max((wait + run) / max(run, TAU), 1.0)

    def metrics(self):
        starts = np.array(self.start, dtype=float)
        end = starts + np.array(self.runtime)
        run = end - starts
        wait = starts - np.array(self.submit)
        bsld = np.maximum((wait + run) / np.maximum(run, TAU), 1.0)
        makespan = end.max() - min(self.submit)
        util = float(np.dot(run, self.width)) / (self.procs * makespan) if makespan > 0 else 0.0
        return {"avg_bounded_slowdown": bsld.mean(), "avg_wait": wait.mean(), "utilization": util}

    def step(self, action):
        """(reward, terminated, legal)."""
        assert not self.done
        if not 0 <= action < len(self.visible):
            return -self.penalty, False, False
        job = self.visible[action]
        self.started_now = []
        while True:
            if self.width[job] <= self.free():
                self._launch(job)
                break
            if self.backfill == "easy":
                self._backfill_around(job)
            self._advance()
        self._next_decision()
        if self.dense:
            reward = -sum(self.job_cost(j) for j in self.started_now) / self.n
        elif self.done:
            m = self.metrics()
            reward = {
                "bounded_slowdown": -m["avg_bounded_slowdown"],
                "wait": -m["avg_wait"],
                "utilization": m["utilization"] - 1.0,
            }[self.cost]
        else:
            reward = 0.0
        return reward, self.done, True

    def observation(self):
        obs = np.zeros((self.slots, 8), dtype=np.float32)
        mask = np.zeros(self.slots, dtype=bool)
        free = self.free()
        for k in range(self.slots):
            if k >= len(self.visible):
                if self.layout == "rlscheduler":
                    obs[k] = [0, 1, 1, 1, 1, 1, 1, 0]
                continue
            mask[k] = True
            j = self.visible[k]
            wait = (self.t - self.submit[j]) / self.max_wait
            run = self.estimate[j] / self.max_run
            share = self.width[j] / self.procs
            fits = self.width[j] <= free
            if self.layout == "clustersched":
                obs[k] = [
                    min(wait, 1.0),
                    min(run, 1.0),
                    share,
                    free / self.procs,
                    1.0 if fits else 0.0,
                    min(share * run, 1.0),
                    min(len(self.queue) / self.slots, 1.0),
                    1.0,
                ]
            else:

                def keep(x):
                    return min(max(np.float32(x), np.float32(0.0)), TOP)

                obs[k] = [keep(wait), keep(run), keep(share), *self.static[j], TOP if fits else EPS]
        return obs, mask

    def pick(self, score):
        """The slot a baseline picks: least score, ties to the lowest slot."""

        def value(j):
            r = max(self.estimate[j], 1.0)
            n = float(self.width[j])
            w = self.t - self.submit[j]
            if score == "fcfs":
                return 0.0
            if score == "sjf":
                return r
            if score == "wfp3":
                q = w / r
                return -(q * q * q) * n
            if score == "unicep":
                return -w / (max(math.log2(n), 1.0) * r)
            if score == "f1":
                return math.log10(r) * n + 870.0 * math.log10(max(self.submit[j], 1.0))
            raise ValueError(score)

        values = [value(j) for j in self.visible]
        return values.index(min(values))
