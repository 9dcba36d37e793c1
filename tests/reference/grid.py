"""Slow, obviously-correct references for QLSE and the greedy best-fit baseline (Baraglia et al., §4-5).

Written with plain lists, dicts and loops from the rules in
``clustersched.grid.qlse``'s docstring, for differential tests of the Rust
kernels (``rust/core/src/grid/``), which must give *identical* results: the
same task order, the same clusters and priorities, the same mapping, the same
number of tentative mappings.

Float conventions (shared with the Rust core):

* eq. (1) and eq. (2): the neighbour sum is accumulated from 0.0 by increasing
  neighbour index, then added to the node's own term;
* a LAN's power is its hosts' powers summed from 0.0 in host order;
* a cluster's priority: ``Σ (power + bandwidth)`` over its LANs by index,
  from 0.0, plus the sum (from 0.0, by link index) of its kept links' bandwidths;
* quartiles: ``x[k] + (x[k + 1] - x[k]) * (h - k)`` with ``h = (n - 1) q``;
* capacities (one rule, that of the validator): requirements fit when their
  exact sum (``math.fsum``) is at most ``capacity * (1 + RTOL)``; a host's
  power left, which orders the hosts, is its power minus its MCRs subtracted
  one at a time;
* ``bandwidth="dedicated"``: each MBR is checked on its own against the LAN's or
  link's nominal bandwidth, and nothing is used up.

The readings of issue 33 are here too, from their docstrings: the quartiles of
the TIG's MBRs (``quartiles="mbrs"``), the first host by decreasing nominal
power that fits (``host="first-fit"``), and the greedy baseline placing MCRs
alone on the host with the most power left, its mapping checked after
(``reading="validated-after"``, by :func:`valid`, written here from the
validator's rules).

The one rule written differently on purpose is the cycle rule (§4.1): the
Rust core uses biconnected blocks; this reference applies the paper's words
to every simple cycle (networkx's ``simple_cycles``), so it is only for small
TIGs.
"""

from __future__ import annotations

import math

import networkx as nx

STEP_QUANTILES = (1.0, 0.75, 0.5, 0.25, 0.0)


# -- inputs as plain lists --------------------------------------------------------------
def _tig(tig):
    n = len(tig)
    mcr = [float(m) for m in tig.mcr]
    adj = [[] for _ in range(n)]  # (neighbour, mbr)
    for u, v, w in zip(tig.edge_u.tolist(), tig.edge_v.tolist(), tig.mbr.tolist()):
        adj[u].append((v, w))
        adj[v].append((u, w))
    for a in adj:
        a.sort()
    return n, mcr, adj


def _grid(grid):
    offsets = grid.host_offsets.tolist()
    power = [float(p) for p in grid.host_power]
    lans = len(offsets) - 1
    hosts = [list(range(offsets[l], offsets[l + 1])) for l in range(lans)]
    lan_power = []
    for l in range(lans):
        total = 0.0
        for h in hosts[l]:
            total += power[h]
        lan_power.append(total)
    links = {}  # (a, b) with a < b -> link index
    for k, (a, b) in enumerate(zip(grid.link_a.tolist(), grid.link_b.tolist())):
        links[(min(a, b), max(a, b))] = k
    return {
        "lans": lans,
        "hosts": hosts,
        "power": power,
        "lan_power": lan_power,
        "lan_bw": [float(b) for b in grid.lan_bandwidth],
        "links": links,
        "link_ends": list(zip(grid.link_a.tolist(), grid.link_b.tolist())),
        "link_bw": [float(b) for b in grid.link_bandwidth],
    }


def _link(g, a, b):
    return g["links"].get((min(a, b), max(a, b)))


# -- §4.1 ---------------------------------------------------------------------------------
def scores(tig, alpha=1.0, beta=0.25):
    """Eq. (1) for every task."""
    n, mcr, adj = _tig(tig)
    out = []
    for i in range(n):
        extra = 0.0
        for j, w in adj[i]:
            extra += alpha * w + beta * mcr[j]
        out.append(mcr[i] + extra)
    return out


def task_order(tig, alpha=1.0, beta=0.25):
    """{"scores", "order", "layer", "subset", "subset_layer"} as the Rust core returns them."""
    n, mcr, adj = _tig(tig)
    score = scores(tig, alpha, beta)
    root = 0
    for i in range(1, n):
        if score[i] > score[root]:
            root = i
    layer = [None] * n
    layer[root] = 0
    current = [root]
    while current:
        following = []
        for t in current:
            for j, _ in adj[t]:
                if layer[j] is None:
                    layer[j] = layer[t] + 1
                    following.append(j)
        current = following
    if any(l is None for l in layer):
        raise ValueError("the TIG is not connected")

    # union-find: tasks directly connected within a layer; every cycle's tasks but its first
    parent = list(range(n))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(a, b):
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    for i in range(n):
        for j, _ in adj[i]:
            if layer[i] == layer[j]:
                union(i, j)
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from((i, j) for i in range(n) for j, _ in adj[i] if i < j)
    for cycle in nx.simple_cycles(g):
        # "the first" task of a cycle: the one allocated first, i.e. in the earliest layer
        first = min(cycle, key=lambda t: (layer[t], t))
        rest = [t for t in cycle if t != first]
        for t in rest[1:]:
            union(rest[0], t)

    members = {}
    for t in range(n):
        members.setdefault(find(t), []).append(t)
    groups = list(members.values())
    for m in groups:
        m.sort(key=lambda t: (-score[t], t))
    top = [min(layer[t] for t in m) for m in groups]
    ranked = sorted(range(len(groups)), key=lambda s: (top[s], -len(groups[s]), -score[groups[s][0]], min(groups[s])))
    order, subset, subset_layer = [], [0] * n, []
    for rank, s in enumerate(ranked):
        for t in groups[s]:
            order.append(t)
            subset[t] = rank
        subset_layer.append(top[s])
    return {"scores": score, "order": order, "layer": layer, "subset": subset, "subset_layer": subset_layer}


# -- §4.2, §4.3 -------------------------------------------------------------------------------
def quantile(sorted_values, q):
    h = (len(sorted_values) - 1) * q
    k = math.floor(h)
    if k + 1 >= len(sorted_values):
        return sorted_values[-1]
    return sorted_values[k] + (sorted_values[k + 1] - sorted_values[k]) * (h - k)


def distribution(tig, grid, quartiles="links"):
    """The values whose quartiles cut the steps: the links' bandwidths, or the TIG's MBRs."""
    if quartiles == "links":
        return [float(b) for b in grid.link_bandwidth]
    assert quartiles == "mbrs", quartiles
    return [float(w) for w in tig.mbr]


def kept_links(grid, step, values=None):
    """Which links tentative mapping ``step`` keeps (list of bool), cut at the quartiles of ``values``
    (default: the links' bandwidths)."""
    bw = [float(b) for b in grid.link_bandwidth]
    values = bw if values is None else values
    if step == 0:
        return [False] * len(bw)
    if step == 4 or not values:
        return [True] * len(bw)
    threshold = quantile(sorted(values), STEP_QUANTILES[step])
    return [b >= threshold for b in bw]


def lan_priorities(grid, kept, alpha=1.0, beta=0.25):
    """Eq. (2) for every LAN over the kept links."""
    g = _grid(grid)
    out = []
    for i in range(g["lans"]):
        extra = 0.0
        for j in range(g["lans"]):  # by increasing neighbour
            k = _link(g, i, j) if j != i else None
            if k is not None and kept[k]:
                extra += alpha * g["link_bw"][k] + beta * g["lan_power"][j]
        out.append(g["lan_power"][i] + extra)
    return out


def clusters(grid, kept):
    """[(lans, kept links inside, priority)] by decreasing priority, ties by lowest first LAN."""
    g = _grid(grid)
    graph = nx.Graph()
    graph.add_nodes_from(range(g["lans"]))
    graph.add_edges_from(e for e, k in zip(g["link_ends"], kept) if k)
    out = []
    for component in nx.connected_components(graph):
        lans = sorted(component)
        own = 0.0
        for l in lans:
            own += g["lan_power"][l] + g["lan_bw"][l]
        inside = 0.0
        count = 0
        for k, (a, b) in enumerate(g["link_ends"]):
            if kept[k] and a in component:
                inside += g["link_bw"][k]
                count += 1
        out.append((lans, count, own + inside))
    out.sort(key=lambda c: (-c[2], c[0][0]))
    return out


# -- §4.4 -------------------------------------------------------------------------------------
#: The relative tolerance of the one capacity rule (clustersched.grid.validate.RTOL).
RTOL = 1e-9


def _fits(requirements, capacity):
    """The capacity rule: the exact sum of the requirements, rounded once, is at most ``capacity * (1 + RTOL)``."""
    return math.fsum(requirements) <= capacity * (1 + RTOL)


def _pick_host(lan, need, state, g, choice):
    """The host of ``lan`` that takes a task of MCR ``need`` (most power left, or best fit), or None."""
    left, load = state["power"], state["load"]
    if choice == "most":
        host = None
        for h in g["hosts"][lan]:
            if host is None or left[h] > left[host]:
                host = h
        return host if _fits(load[host] + [need], g["power"][host]) else None
    if choice == "first":
        for h in sorted(g["hosts"][lan], key=lambda h: (-g["power"][h], h)):
            if _fits(load[h] + [need], g["power"][h]):
                return h
        return None
    fitting = [h for h in g["hosts"][lan] if _fits(load[h] + [need], g["power"][h])]
    return min(fitting, key=lambda h: (left[h], h)) if fitting else None


def _try_place(task, lan, state, tig_parts, g, usable, choice, bandwidth, communications=True):
    """Places ``task`` on ``lan`` if the three allocation conditions hold (only the first without
    ``communications``); returns whether it did."""
    _, mcr, adj = tig_parts
    host = _pick_host(lan, mcr[task], state, g, choice)
    if host is None:
        return False
    if not communications:
        state["power"][host] -= mcr[task]
        state["load"][host].append(mcr[task])
        state["lan_of"][task] = lan
        state["host_of"][task] = host
        return True
    local = []
    remote = {}  # link -> MBRs of the task's edges across it
    for j, w in adj[task]:
        other = state["lan_of"][j]
        if other is None:
            continue
        if other == lan:
            local.append(w)
        else:
            k = _link(g, lan, other)
            if k is None or not usable[k]:
                return False
            remote.setdefault(k, []).append(w)
    if bandwidth == "dedicated":  # each communication on its own, nothing used up
        if not all(_fits([w], g["lan_bw"][lan]) for w in local):
            return False
        if not all(_fits([w], g["link_bw"][k]) for k, ws in remote.items() for w in ws):
            return False
    else:
        if not _fits(state["lan_use"][lan] + local, g["lan_bw"][lan]):
            return False
        if not all(_fits(state["link_use"][k] + ws, g["link_bw"][k]) for k, ws in remote.items()):
            return False
        state["lan_use"][lan] += local
        for k, ws in remote.items():
            state["link_use"][k] += ws
    state["power"][host] -= mcr[task]
    state["load"][host].append(mcr[task])
    state["lan_of"][task] = lan
    state["host_of"][task] = host
    return True


def _fresh(n, g):
    return {
        "power": list(g["power"]),
        "load": [[] for _ in g["power"]],
        "lan_use": [[] for _ in g["lan_bw"]],
        "link_use": [[] for _ in g["link_bw"]],
        "lan_of": [None] * n,
        "host_of": [None] * n,
    }


HOSTS = {"most-power-left": "most", "first-fit": "first", "best-fit": "best"}


def qlse(
    tig,
    grid,
    alpha_t=1.0,
    beta_t=0.25,
    alpha_l=1.0,
    beta_l=0.25,
    bandwidth="shared",
    trace=None,
    quartiles="links",
    host="most-power-left",
):
    """(hosts or None, step or None, cluster LANs, attempts); ``trace`` (a list) gets one dict per attempt."""
    parts = _tig(tig)
    g = _grid(grid)
    order = task_order(tig, alpha_t, beta_t)["order"]
    values = distribution(tig, grid, quartiles)
    choice = HOSTS[host]
    tried = {}
    attempts = 0
    for step in range(5):
        kept = kept_links(grid, step, values)
        prio = lan_priorities(grid, kept, alpha_l, beta_l)
        for lans, count, _ in clusters(grid, kept):
            if tried.get(tuple(lans)) == count:
                continue
            tried[tuple(lans)] = count
            attempts += 1
            ranked = sorted(lans, key=lambda l: (-prio[l], l))
            state = _fresh(parts[0], g)
            failed_at = None
            for t in order:
                if not any(_try_place(t, l, state, parts, g, kept, choice, bandwidth) for l in ranked):
                    failed_at = t
                    break
            if trace is not None:
                trace.append({"step": step, "lans": ranked, "failed_at": failed_at, "lan_of": state["lan_of"]})
            if failed_at is None:
                return state["host_of"], step, lans, attempts
    return None, None, [], attempts


def greedy(tig, grid, bandwidth="shared", reading="checked"):
    """The baseline's hosts, or None."""
    parts = _tig(tig)
    g = _grid(grid)
    ranked = sorted(range(g["lans"]), key=lambda l: (-g["lan_power"][l], l))
    usable = [True] * len(g["link_bw"])
    state = _fresh(parts[0], g)
    checked = reading == "checked"
    choice = "best" if checked else "most"
    for t in range(parts[0]):
        if not any(_try_place(t, l, state, parts, g, usable, choice, bandwidth, checked) for l in ranked):
            return None
    if not checked and not valid(tig, grid, state["host_of"], bandwidth):
        return None
    return state["host_of"]


def valid(tig, grid, hosts, bandwidth="shared"):
    """Whether ``hosts`` (task -> host) meets every MCR and MBR: the validator's rules, from scratch."""
    n, mcr, adj = _tig(tig)
    g = _grid(grid)
    lan_of_host = {h: l for l in range(g["lans"]) for h in g["hosts"][l]}
    load = {}
    for t in range(n):
        load.setdefault(hosts[t], []).append(mcr[t])
    if not all(_fits(ws, g["power"][h]) for h, ws in load.items()):
        return False
    carried = {}  # ("lan", l) or ("link", k) -> MBRs
    for u in range(n):
        for v, w in adj[u]:
            if v < u:
                continue
            a, b = lan_of_host[hosts[u]], lan_of_host[hosts[v]]
            if a == b:
                key, cap = ("lan", a), g["lan_bw"][a]
            else:
                k = _link(g, a, b)
                if k is None:
                    return False
                key, cap = ("link", k), g["link_bw"][k]
            carried.setdefault(key, (cap, []))[1].append(w)
    if bandwidth == "dedicated":
        return all(_fits([w], cap) for cap, ws in carried.values() for w in ws)
    return all(_fits(ws, cap) for cap, ws in carried.values())
