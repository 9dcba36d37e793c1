"""Type stubs of the compiled module ``clustersched._core`` (use the public API in ``clustersched``)."""

from typing import Any, final

import numpy as np
import numpy.typing as npt

__all__ = [
    "BUILTIN_POLICIES",
    "BUILTIN_QUEUE_ORDER",
    "BatchSim",
    "MultiClusterPtg",
    "LanGrid",
    "PtgSet",
    "RL_FEATURES",
    "RL_STATIC_FEATURES",
    "RlEpisode",
    "RlEpisodes",
    "RlTrace",
    "SCRAP_MAX_POWER",
    "SCRAP_MAX_PROCS",
    "SCRAP_MAX_REF_PROCS",
    "SCRAP_MAX_SECONDS",
    "SCRAP_MAX_SIZE",
    "Tig",
    "__version__",
    "dpsa_select",
    "dutot_allocation",
    "exec_times",
    "greedy_map",
    "k_shelves",
    "qlse_map",
    "qlse_step",
    "qlse_task_order",
    "scan_sacct",
    "scan_swf",
    "scan_swf_gz",
    "scrap_metrics",
]

__version__: str

BUILTIN_POLICIES: list[str]
BUILTIN_QUEUE_ORDER: dict[str, str]

@final
class BatchSim:
    def __new__(
        cls,
        submit: npt.NDArray[np.float64],
        runtime: npt.NDArray[np.float64],
        estimate: npt.NDArray[np.float64],
        width: npt.NDArray[np.int64],
        procs: int,
        order: str,
    ) -> BatchSim: ...
    @staticmethod
    def on_nodes(
        submit: npt.NDArray[np.float64],
        runtime: npt.NDArray[np.float64],
        estimate: npt.NDArray[np.float64],
        nodes: dict[str, npt.NDArray[np.int64] | npt.NDArray[np.uint64]],
        requests: dict[str, npt.NDArray[np.int64] | npt.NDArray[np.uint64] | npt.NDArray[np.bool_]],
        order: str,
    ) -> BatchSim: ...
    def node_free(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.uint64], npt.NDArray[np.int64]]: ...
    def node_shadow(self, job: int) -> float: ...
    def node_assignment(
        self,
    ) -> tuple[
        npt.NDArray[np.int64],
        npt.NDArray[np.int64],
        npt.NDArray[np.int64],
        npt.NDArray[np.int64],
        npt.NDArray[np.uint64],
        npt.NDArray[np.int64],
    ]: ...
    def advance(self) -> float | None: ...
    @property
    def now(self) -> float: ...
    @property
    def free(self) -> int: ...
    @property
    def total(self) -> int: ...
    @property
    def events(self) -> int: ...
    @property
    def finished(self) -> bool: ...
    def queue(self) -> npt.NDArray[np.int64]: ...
    def running(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.int64]]: ...
    def start(self, job: int) -> None: ...
    def shadow(self, need: int) -> tuple[float, int]: ...
    def schedule(self, policy: str, node_budget: int | None = None, time_limit: float | None = None) -> None: ...
    def run(
        self,
        policy: str,
        max_events: int | None = None,
        node_budget: int | None = None,
        time_limit: float | None = None,
    ) -> bool: ...
    def starts(self) -> npt.NDArray[np.float64]: ...
    def assignment(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]: ...
    def run_slurm(
        self,
        params: dict[str, float | int],
        jobs: dict[str, npt.NDArray[np.float64] | npt.NDArray[np.int64]],
        parent: npt.NDArray[np.int64],
        shares: npt.NDArray[np.float64],
        log: bool = False,
    ) -> dict[str, object]: ...
    def reservations(self) -> npt.NDArray[np.float64]: ...
    def search_stats(self) -> dict[str, object]: ...

def dpsa_select(
    widths: npt.NDArray[np.int64],
    short: npt.NDArray[np.bool_],
    reserved: int,
    unreserved: int,
    variant: str,
    node_budget: int | None = None,
) -> tuple[npt.NDArray[np.int64], int, int, bool]: ...

_Columns = tuple[
    npt.NDArray[np.int64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
]

@final
class PtgSet:
    def __new__(
        cls,
        ptg_offsets: npt.NDArray[np.int64],
        work: npt.NDArray[np.float64],
        alpha: npt.NDArray[np.float64],
        succ_offsets: npt.NDArray[np.int64],
        succ: npt.NDArray[np.int64],
    ) -> PtgSet: ...
    def __len__(self) -> int: ...
    @property
    def num_tasks(self) -> int: ...
    def hcpa_allocation(
        self,
        i: int,
        procs: int,
        speed: float,
        max_task_procs: int | None = None,
        max_level_procs: int | None = None,
        rule: str = "sqrt",
    ) -> npt.NDArray[np.int64]: ...
    def hcpa_budgets(
        self, budgets: npt.NDArray[np.int64], speed: float, per_level: bool
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]: ...
    def moldable_profiles(self, procs: int, speed: float, rule: str = "sqrt") -> npt.NDArray[np.float64]: ...
    def widths(self) -> npt.NDArray[np.int64]: ...
    def levels(self, i: int) -> npt.NDArray[np.int64]: ...
    def duration_bottom_levels(self, i: int, durations: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]: ...
    def bottom_levels(self, i: int, alloc: npt.NDArray[np.int64], speed: float) -> npt.NDArray[np.float64]: ...
    def hcpa_standalone(
        self, procs: int, speed: float, rule: str = "sqrt"
    ) -> tuple[
        npt.NDArray[np.int64],
        npt.NDArray[np.float64],
        npt.NDArray[np.float64],
        npt.NDArray[np.float64],
        npt.NDArray[np.float64],
    ]: ...
    def list_schedule(
        self,
        alloc: npt.NDArray[np.int64],
        priority: npt.NDArray[np.float64],
        procs: int,
        speed: float,
        readiness: str = "placed",
    ) -> _Columns: ...
    def fairness_schedule(
        self,
        alloc: npt.NDArray[np.int64],
        bl: npt.NDArray[np.float64],
        task_tie: npt.NDArray[np.uint64],
        ptg_tie: npt.NDArray[np.uint64],
        alone_start: npt.NDArray[np.float64],
        alone_end: npt.NDArray[np.float64],
        procs: int,
        speed: float,
        estimate: str,
    ) -> _Columns: ...
    def backfill(
        self,
        task: npt.NDArray[np.int64],
        start: npt.NDArray[np.float64],
        end: npt.NDArray[np.float64],
        proc_offsets: npt.NDArray[np.int64],
        proc_ids: npt.NDArray[np.int64],
        procs: int,
        speed: float,
    ) -> _Columns: ...

def exec_times(
    work: npt.NDArray[np.float64],
    alpha: npt.NDArray[np.float64],
    procs: npt.NDArray[np.int64],
    speed: npt.NDArray[np.float64],
) -> npt.NDArray[np.float64]: ...
def dutot_allocation(
    times: npt.NDArray[np.float64], procs: int, epsilon: float
) -> tuple[float, float, npt.NDArray[np.int64], npt.NDArray[np.int64], float, int]: ...
def k_shelves(
    times: npt.NDArray[np.float64], procs: int, cmax: float
) -> tuple[
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.float64],
]: ...

_ClusterColumns = tuple[
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
]

SCRAP_MAX_POWER: float
SCRAP_MAX_PROCS: int
SCRAP_MAX_REF_PROCS: int
SCRAP_MAX_SIZE: int
SCRAP_MAX_SECONDS: float

def scrap_metrics(
    cluster: npt.NDArray[np.int64],
    start: npt.NDArray[np.float64],
    end: npt.NDArray[np.float64],
    proc_offsets: npt.NDArray[np.int64],
    speeds: npt.NDArray[np.float64],
    power: float,
) -> tuple[float, float, float, float]: ...

@final
class MultiClusterPtg:
    def __new__(
        cls,
        work: npt.NDArray[np.float64],
        alpha: npt.NDArray[np.float64],
        succ_offsets: npt.NDArray[np.int64],
        succ: npt.NDArray[np.int64],
        procs: npt.NDArray[np.int64],
        speed: npt.NDArray[np.float64],
        network: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], float, float, float, float] | None = None,
        bytes: npt.NDArray[np.float64] | None = None,
    ) -> MultiClusterPtg: ...
    @property
    def reference(self) -> tuple[float, float, int]: ...
    def caps(self, translation: str) -> npt.NDArray[np.int64]: ...
    def translate(self, alloc: npt.NDArray[np.int64], translation: str) -> npt.NDArray[np.int64]: ...
    def scrap_allocation(self, beta: float, variant: str, translation: str) -> npt.NDArray[np.int64]: ...
    def hcpa_allocation(self, rule: str, translation: str) -> npt.NDArray[np.int64]: ...
    def beta_estimate(self, alloc: npt.NDArray[np.int64]) -> float: ...
    def place(self, alloc: npt.NDArray[np.int64], comms: bool, translation: str) -> _ClusterColumns: ...
    def mheft_max(self, fraction: float, comms: bool) -> _ClusterColumns: ...
    def study(
        self,
        betas: npt.NDArray[np.float64],
        power: float,
        comms: bool,
        rule: str,
        translation: str,
        schedules: bool = False,
    ) -> tuple[
        npt.NDArray[np.float64],
        npt.NDArray[np.int8],
        list[tuple[_ClusterColumns, npt.NDArray[np.int64] | None]] | None,
    ]: ...
    def check(
        self,
        task: npt.NDArray[np.int64],
        cluster: npt.NDArray[np.int64],
        start: npt.NDArray[np.float64],
        end: npt.NDArray[np.float64],
        proc_offsets: npt.NDArray[np.int64],
        proc_ids: npt.NDArray[np.int64],
        alloc: npt.NDArray[np.int64] | None,
        translation: str,
        comms: bool,
    ) -> None: ...
    def violations(
        self,
        task: npt.NDArray[np.int64],
        cluster: npt.NDArray[np.int64],
        start: npt.NDArray[np.float64],
        end: npt.NDArray[np.float64],
        proc_offsets: npt.NDArray[np.int64],
        proc_ids: npt.NDArray[np.int64],
        alloc: npt.NDArray[np.int64] | None,
        translation: str,
        comms: bool,
        limit: int,
    ) -> tuple[list[tuple[str, list[int], list[float]]], int]: ...

# DFRS: the Theorem 1 lower bound (clustersched.dfrs.bound).
__all__ += ["DfrsStretchBound"]

@final
class DfrsStretchBound:
    def __new__(
        cls,
        submit: npt.NDArray[np.float64],
        processing_time: npt.NDArray[np.float64],
        cpu_need: npt.NDArray[np.float64],
        tasks: npt.NDArray[np.int64],
        nodes: int,
        threshold: float,
    ) -> DfrsStretchBound: ...
    @property
    def jobs(self) -> int: ...
    @property
    def total_work(self) -> float: ...
    def lower_bound(self) -> tuple[float, int, int, bool]: ...
    def max_flow(self, stretch: float) -> tuple[float, float, npt.NDArray[np.bool_], int]: ...
    def feasible(self, stretch: float) -> bool: ...
    def cut_capacity(self, in_cut: npt.NDArray[np.bool_], stretch: float) -> float: ...

# -- grid (QLSE) ------------------------------------------------------------------------
__all__ += [
    "GRID_MAX_EDGES",
    "GRID_MAX_HOSTS",
    "GRID_MAX_LANS",
    "GRID_MAX_LINKS",
    "GRID_MAX_TASKS",
    "GRID_MAX_VALUE",
    "GRID_RTOL",
]
GRID_MAX_TASKS: int
GRID_MAX_EDGES: int
GRID_MAX_LANS: int
GRID_MAX_HOSTS: int
GRID_MAX_LINKS: int
GRID_MAX_VALUE: float
GRID_RTOL: float

@final
class Tig:
    def __new__(
        cls,
        mcr: npt.NDArray[np.float64],
        u: npt.NDArray[np.int64],
        v: npt.NDArray[np.int64],
        mbr: npt.NDArray[np.float64],
    ) -> Tig: ...
    def __len__(self) -> int: ...
    @property
    def num_edges(self) -> int: ...

@final
class LanGrid:
    def __new__(
        cls,
        host_offsets: npt.NDArray[np.int64],
        host_power: npt.NDArray[np.float64],
        lan_bandwidth: npt.NDArray[np.float64],
        a: npt.NDArray[np.int64],
        b: npt.NDArray[np.int64],
        link_bandwidth: npt.NDArray[np.float64],
    ) -> LanGrid: ...
    @property
    def num_lans(self) -> int: ...
    @property
    def num_hosts(self) -> int: ...
    @property
    def num_links(self) -> int: ...

_Mapped = tuple[npt.NDArray[np.int64] | None, int | None, npt.NDArray[np.int64], int]

def qlse_map(
    tig: Tig,
    grid: LanGrid,
    alpha_t: float = 1.0,
    beta_t: float = 0.25,
    alpha_l: float = 1.0,
    beta_l: float = 0.25,
    bandwidth: str = "shared",
    quartiles: str = "links",
    host: str = "most-power-left",
) -> _Mapped: ...
def greedy_map(tig: Tig, grid: LanGrid, bandwidth: str = "shared", reading: str = "validated-after") -> _Mapped: ...
def qlse_task_order(
    tig: Tig, alpha_t: float = 1.0, beta_t: float = 0.25
) -> tuple[
    npt.NDArray[np.float64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
]: ...
def qlse_step(
    grid: LanGrid,
    step: int,
    alpha_l: float = 1.0,
    beta_l: float = 0.25,
    quartiles: str = "links",
    tig: Tig | None = None,
) -> tuple[
    npt.NDArray[np.bool_],
    npt.NDArray[np.float64],
    list[npt.NDArray[np.int64]],
    npt.NDArray[np.float64],
]: ...

# DFRS node state and packing (rust/py/src/dfrs.rs; public interface: clustersched.dfrs)
__all__ += [
    "DFRS_MAX_NODES",
    "DFRS_MAX_TASKS",
    "DFRS_MAX_TOTAL_TASKS",
    "DFRS_UNIT",
    "DfrsState",
    "MCB8_ACCURACY",
    "dfrs_completion_time",
    "dfrs_progress",
]

DFRS_UNIT: int
DFRS_MAX_NODES: int
DFRS_MAX_TASKS: int
DFRS_MAX_TOTAL_TASKS: int
MCB8_ACCURACY: float

def dfrs_progress(y: float, start: float, end: float, pen_end: float) -> float: ...
def dfrs_completion_time(t: float, pen_end: float, remaining: float, y: float) -> float: ...

_I64 = npt.NDArray[np.int64]

@final
class DfrsState:
    def __new__(
        cls,
        tasks: _I64,
        cpu: npt.NDArray[np.uint64],
        mem: npt.NDArray[np.uint64],
        nodes: int,
        *,
        submit: npt.NDArray[np.float64] | None = None,
        processing_time: npt.NDArray[np.float64] | None = None,
        penalty: float = 0.0,
    ) -> DfrsState: ...
    def next_completion(self) -> float: ...
    def advance(self, t: float, t_next: float) -> None: ...
    def complete_due(self, t: float) -> _I64: ...
    def arrive(self, first: int, last: int) -> None: ...
    def submit(self, t: float, first: int, last: int, policy: str) -> None: ...
    def greedy_waiting(self, t: float) -> None: ...
    def mcb8_active(
        self,
        t: float,
        *,
        minvt: float | None = None,
        minft: float | None = None,
        period: float | None = None,
        accuracy: float = ...,
    ) -> int: ...
    def record_commit(self, t: float) -> None: ...
    def share_max_min(self, t: float) -> None: ...
    def share_stretch(self, t: float, horizon: float) -> None: ...
    def stretch_yields(self, t: float, horizon: float) -> tuple[_I64, npt.NDArray[np.float64]]: ...
    def share(self, t: float, jobs: _I64, ys: npt.NDArray[np.float64]) -> None: ...
    def virtual_times(self) -> npt.NDArray[np.float64]: ...
    def active(self) -> _I64: ...
    def completions(self) -> npt.NDArray[np.float64]: ...
    def segments(
        self,
    ) -> tuple[
        _I64,
        npt.NDArray[np.float64],
        npt.NDArray[np.float64],
        npt.NDArray[np.float64],
        _I64,
        _I64,
        _I64,
    ]: ...
    @property
    def nodes(self) -> int: ...
    def place(self, job: int, nodes: _I64) -> None: ...
    def remove(self, job: int) -> _I64: ...
    def complete(self, job: int) -> None: ...
    def commit(self) -> tuple[_I64, _I64, _I64]: ...
    def placement(self, job: int) -> _I64: ...
    def placement_runs(self, job: int) -> tuple[_I64, _I64]: ...
    def running(self) -> _I64: ...
    def mem_used(self) -> npt.NDArray[np.uint64]: ...
    def cpu_load(self) -> npt.NDArray[np.uint64]: ...
    def node_tasks(self) -> tuple[_I64, _I64, _I64]: ...
    def greedy_nodes(self, job: int) -> _I64 | None: ...
    def greedy(self, job: int) -> bool: ...
    def greedy_preempt(self, job: int, victims: _I64, migrate: bool) -> tuple[bool, _I64, _I64]: ...
    def mcb8(self, order: _I64, fixed: npt.NDArray[np.bool_], accuracy: float = ...) -> tuple[float, int, int]: ...
    def mcb8_stretch(
        self,
        order: _I64,
        fixed: npt.NDArray[np.bool_],
        flow: npt.NDArray[np.float64],
        virt: npt.NDArray[np.float64],
        period: float,
        accuracy: float = ...,
    ) -> tuple[float, int, int]: ...
    def max_min_yields(self) -> tuple[_I64, npt.NDArray[np.float64]]: ...
    def max_min_stretch(
        self, flow: npt.NDArray[np.float64], virt: npt.NDArray[np.float64], period: float
    ) -> tuple[_I64, npt.NDArray[np.float64]]: ...

# -- workload: the SWF scanner behind clustersched.read_swf -------------------

# (row, line, job number or None, kind, field or None, token start, token end, value or None, extra)
_SwfProblem = tuple[int, int, int | None, str, int | None, int, int, float | None, int]
# (header lines as (line, start, end), rows, time and memory columns, id and count columns, problems)
_SwfScan = tuple[list[tuple[int, int, int]], int, npt.NDArray[np.float64], npt.NDArray[np.int64], list[_SwfProblem]]

def scan_sacct(
    raw: bytes, start: int, first_line: int, ncols: int, columns: list[tuple[int, int]]
) -> tuple[npt.NDArray[np.uint64], list[tuple[int, int, int, int]], list[tuple[Any, ...]]]: ...
def scan_swf(raw: bytes) -> _SwfScan: ...
def scan_swf_gz(raw: bytes) -> tuple[npt.NDArray[np.uint8], _SwfScan] | None: ...

# -- rl: the stepping kernel behind clustersched.rl ---------------------------

RL_FEATURES: int
RL_STATIC_FEATURES: int

@final
class RlTrace:
    def __new__(
        cls,
        submit: npt.NDArray[np.float64],
        runtime: npt.NDArray[np.float64],
        estimate: npt.NDArray[np.float64],
        width: npt.NDArray[np.int64],
        procs: int,
        static_features: npt.NDArray[np.float32],
    ) -> RlTrace: ...
    def __len__(self) -> int: ...

@final
class RlEpisode:
    def __new__(
        cls,
        trace: RlTrace,
        first: int,
        window: int,
        slots: int,
        backfill: str,
        layout: str,
        cost: str,
        dense: bool,
        max_wait: float,
        max_run: float,
        tau: float,
        illegal_penalty: float,
    ) -> RlEpisode: ...
    def reset(self, first: int) -> None: ...
    def step(
        self, action: int, obs: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_]
    ) -> tuple[float, bool, bool]: ...
    def observe(self, obs: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_]) -> None: ...
    def pick(self, score: str) -> int: ...
    def play(self, score: str) -> float: ...
    def metrics(self) -> tuple[float, float, float, float]: ...
    def cost(self) -> float: ...
    def starts(self) -> npt.NDArray[np.float64]: ...
    def reservations(self) -> npt.NDArray[np.float64]: ...
    def assignment(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]: ...
    @property
    def now(self) -> float: ...
    @property
    def free(self) -> int: ...
    @property
    def first(self) -> int: ...
    @property
    def visible(self) -> int: ...
    def visible_jobs(self) -> npt.NDArray[np.int64]: ...
    @property
    def done(self) -> bool: ...
    def counts(self) -> tuple[int, int]: ...

@final
class RlEpisodes:
    def __new__(
        cls,
        trace: RlTrace,
        firsts: npt.NDArray[np.int64],
        window: int,
        slots: int,
        backfill: str,
        layout: str,
        cost: str,
        dense: bool,
        max_wait: float,
        max_run: float,
        tau: float,
        illegal_penalty: float,
    ) -> RlEpisodes: ...
    def reset_one(self, i: int, first: int) -> None: ...
    def observe(self, obs: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_]) -> None: ...
    def step(
        self,
        actions: npt.NDArray[np.int64],
        next_first: npt.NDArray[np.int64],
        obs: npt.NDArray[np.float32],
        mask: npt.NDArray[np.bool_],
        reward: npt.NDArray[np.float64],
        terminated: npt.NDArray[np.bool_],
        reset: npt.NDArray[np.bool_],
        metrics: npt.NDArray[np.float64],
    ) -> None: ...
    def starts(self, i: int) -> npt.NDArray[np.float64]: ...
    def firsts(self) -> npt.NDArray[np.int64]: ...
    def __len__(self) -> int: ...
