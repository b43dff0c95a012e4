# SPDX-License-Identifier: GPL-2.0
"""Graph topologies for store-and-forward experiments (Lam & Lien):
links, fixed routes (the k shortest simple paths of every ordered node
pair), the mean path length H (in nodes) and the addressing plan.

Pure Python, no root needed: the unit tests check it against the paper's
7-node network."""

import re


def parse_links(links, nodes):
    """["1-2", "2-3", ...] -> sorted list of (a, b) with a < b.  Raises
    ValueError naming the bad entry."""
    out = []
    for x in links:
        m = re.fullmatch(r"\s*(\d+)\s*-\s*(\d+)\s*", str(x))
        if not m:
            raise ValueError(f"bad link {x!r} (e.g. \"1-2\")")
        a, b = int(m.group(1)), int(m.group(2))
        if a == b:
            raise ValueError(f"link {x!r} joins a node to itself")
        for n in (a, b):
            if not 1 <= n <= nodes:
                raise ValueError(f"link {x!r}: node {n} is not in "
                                 f"1..{nodes}")
        e = (min(a, b), max(a, b))
        if e in out:
            raise ValueError(f"link {x!r} is given twice")
        out.append(e)
    out.sort()
    seen = {1}
    stack = [1]             # depth-first walk from node 1
    while stack:
        n = stack.pop()
        for a, b in out:
            for u, v in ((a, b), (b, a)):
                if u == n and v not in seen:
                    seen.add(v)
                    stack.append(v)
    if len(seen) != nodes:
        missing = sorted(set(range(1, nodes + 1)) - seen)
        raise ValueError(f"the graph is not connected (nodes {missing} "
                         "cannot be reached from node 1)")
    return out


def neighbours(links):
    nb = {}
    for a, b in links:
        nb.setdefault(a, []).append(b)
        nb.setdefault(b, []).append(a)
    return {n: sorted(v) for n, v in nb.items()}


def simple_paths(links, src, dst, hops):
    """Every loop-free path src -> dst of exactly `hops` links, as tuples
    of nodes in lexicographic order."""
    nb = neighbours(links)
    out = []
    path = [src]

    def walk(n):
        if len(path) == hops + 1:
            if n == dst:
                out.append(tuple(path))
            return
        for m in nb.get(n, []):
            if m not in path and (m != dst or len(path) == hops):
                path.append(m)
                walk(m)
                path.pop()
    walk(src)
    return out


def shortest_paths(links, nodes, src, dst, k):
    """The k shortest loop-free paths src -> dst: fewest links first, then
    the lexicographically smallest node sequence.  Searched length by
    length, so a dense graph does not make it list every path."""
    out = []
    for hops in range(1, nodes):
        out += simple_paths(links, src, dst, hops)
        if len(out) >= k:
            break
    return out[:k]


def routes(links, nodes, per_pair):
    """The per_pair shortest simple paths of every ordered pair (fewest
    links first, then the lexicographically smallest node sequence), as a
    list of dicts: id (0-based), src, dst, path (nodes), links."""
    out = []
    for s in range(1, nodes + 1):
        for d in range(1, nodes + 1):
            if s == d:
                continue
            paths = shortest_paths(links, nodes, s, d, per_pair)
            for p in paths:
                out.append({"id": len(out), "src": s, "dst": d,
                            "path": list(p), "links": len(p) - 1})
    return out


def mean_path_nodes(rts):
    """H: the mean path length in nodes (Lam & Lien's H-bar), over routes
    (each route carries the same number of virtual channels)."""
    return sum(len(r["path"]) for r in rts) / len(rts)


def channel_load(rts):
    """Routes crossing each directed link (u, v): {(u, v): count}."""
    load = {}
    for r in rts:
        p = r["path"]
        for u, v in zip(p, p[1:]):
            load[u, v] = load.get((u, v), 0) + 1
    return load


# -- addressing ----------------------------------------------------------
# Link i (0-based, in sorted order) between a < b: 10.1.i.1 at a, 10.1.i.2
# at b.  Node n's host link: router 10.2.n.254, host 10.2.n.1.  Route r's
# destination: route_addr(r), an address of the destination host (so that
# each route can take its own path with plain destination routing).

def link_addrs(i):
    return f"10.1.{i}.1", f"10.1.{i}.2"


def host_addrs(n):
    return f"10.2.{n}.254", f"10.2.{n}.1"


def route_addr(r):
    return f"10.{100 + r // 250}.{r % 250}.1"


def dev_to(n):
    """The name, in a router, of the interface towards router n."""
    return f"to{n}"


def ibl_fraction(alpha, mean_path_nodes):
    """Lam & Lien's uniform input buffer limit IBL = alpha / H."""
    return min(1.0, alpha / mean_path_nodes)
