# SPDX-License-Identifier: GPL-2.0
"""Runs of a graph scenario (Lam & Lien's store-and-forward network): a
router namespace per node with a host namespace attached, the routes of
every virtual channel installed hop by hop, a decbit qdisc in the node's
buffer pool on every router-to-router egress, and the window-limited
Poisson virtual channels of congavoid_exp.vcgen."""

import json
import shlex
import struct
import subprocess
import sys
import threading
import time

from . import graph
from . import meta
from . import netlink
from . import runner

PORT = 7000
# how long the sinks keep receiving after the sources stop, so that the
# packets admitted before the end are counted (queues of up to N_T = 160
# packets at 60 packets/s take ~2.7 s per hop)
DRAIN = 6.0

# struct tc_decbit_xstats (include/uapi/congavoid/tc_decbit.h)
_XSTATS = (("marked", "Q", 0), ("overlimit_dropped", "Q", 24),
           ("ibl_dropped", "Q", 48), ("pool_dropped", "Q", 56),
           ("pool_used", "I", 64), ("pool_input", "I", 68),
           ("pool_input_limit", "I", 72), ("input_qlen", "I", 76))


def decbit_xstats(raw):
    """The counters above from a decbit qdisc's xstats bytes (None when
    the module predates the pool counters)."""
    if raw is None or len(raw) < 80:
        return None
    return {k: struct.unpack_from(f, raw, o)[0] for k, f, o in _XSTATS}


def ibl_fraction(alpha, mean_path_nodes):
    """Lam & Lien's uniform input buffer limit IBL = alpha / H."""
    return min(1.0, alpha / mean_path_nodes)


def qdisc_options(topo, arm):
    """The decbit options of every router egress of this arm: the link
    rate, the arm's options (sweep already filled in), limit = the pool's
    N_T unless given, ibl from ibl_alpha, and the host link as input."""
    opts = shlex.split(arm["qdisc_opts"] or "")
    extra = ["rate", f"{int(topo['rate'])}bit"]
    if "limit" not in opts:
        n = opts[opts.index("pool_limit") + 1] if "pool_limit" in opts \
            else str(topo["buffer"])
        extra += ["limit", n]
    if arm.get("ibl_alpha"):
        f = ibl_fraction(arm["ibl_alpha"], topo["mean_path_nodes"])
        extra += ["ibl", f"{f:.6f}"]
    if "pool" in opts or "pool_limit" in opts:
        extra += ["input", "h0"]
    return extra + opts


class GraphTestbed(runner.Testbed):
    """Routers r1..rN joined as the topology's links, host hN on router
    rN.  Interface names: in router n, "to<m>" faces router m, "h0" its
    host; in host n, "eth0".

    Every interface has a fixed MAC address and every neighbour a permanent
    entry: ARP requests a router sends are locally originated, i.e. input
    to the pool, and an input limit under overload would refuse them and
    cut the link off."""

    def build(self):
        # The routes are hundreds of "ip" commands: one "ip -batch" per
        # namespace (a fork costs ~0.1 s in an emulated VM).
        self.ipb = {}
        self.nveth = 0
        t = self.topo
        n = t["nodes"]
        self.arm = dict(self.arm, sysctl={
            "net.ipv4.conf.all.rp_filter": 0,
            "net.ipv4.conf.default.rp_filter": 0, **self.arm["sysctl"]})
        self.routers = [self._add_ns(f"r{i}") for i in range(1, n + 1)]
        self.hostns = [self._add_ns(f"h{i}") for i in range(1, n + 1)]
        for i in range(1, n + 1):
            ra, ha = graph.host_addrs(i)
            self._veth(self.routers[i - 1], "h0", self.hostns[i - 1],
                       "eth0", ra, ha)
        for k, (a, b) in enumerate(t["links"]):
            aa, ab = graph.link_addrs(k)
            self._veth(self.routers[a - 1], graph.dev_to(b),
                       self.routers[b - 1], graph.dev_to(a), aa, ab)
        peer = {}
        for k, (a, b) in enumerate(t["links"]):
            aa, ab = graph.link_addrs(k)
            peer[a, b], peer[b, a] = ab, aa
        for r in t["routes"]:
            addr = graph.route_addr(r["id"])
            p = r["path"]
            for u, v in zip(p, p[1:]):
                self._ip(self.routers[u - 1],
                         f"route add {addr}/32 via {peer[u, v]}")
            d = r["dst"]
            self._ip(self.routers[d - 1], f"route add {addr}/32 via "
                     f"{graph.host_addrs(d)[1]}")
            self._ip(self.hostns[d - 1], f"addr add {addr}/32 dev lo")
        opts = shlex.join(qdisc_options(t, self.arm))
        for a, b in t["links"]:
            for u, v in ((a, b), (b, a)):
                ns, dev = self.routers[u - 1], graph.dev_to(v)
                self.script[ns].append(
                    f"tc qdisc add dev {dev} root handle 1: decbit {opts}")
                self._shaped.append((ns, dev))
                self._handles[ns, dev] = 0x10000
        self._apply()
        for ns, lines in self.ipb.items():
            r = subprocess.run(["ip", "-n", ns, "-batch", "-"],
                               input="\n".join(lines) + "\n", text=True,
                               stderr=subprocess.PIPE,
                               stdout=subprocess.DEVNULL)
            if r.returncode:
                raise RuntimeError(f"routes of {ns}: {r.stderr.strip()}")

    def _veth(self, a, da, b, db, aa, ab):
        self.nveth += 1
        k = self.nveth
        ma = f"02:cc:00:00:{k >> 8:02x}:{(2 * k) & 0xff:02x}"
        mb = f"02:cc:00:01:{k >> 8:02x}:{(2 * k + 1) & 0xff:02x}"
        self.links.append(f"link add name {da} address {ma} netns {a} type "
                          f"veth peer name {db} address {mb} netns {b}")
        for ns, dev, addr, paddr, pmac in ((a, da, aa, ab, mb),
                                           (b, db, ab, aa, ma)):
            self._run(ns, f"ethtool -K {dev} tso off gso off gro off "
                      ">/dev/null 2>&1 || true")
            self._ip(ns, f"addr add {addr}/24 dev {dev}")
            self._ip(ns, f"link set dev {dev} up")
            self._ip(ns, f"neigh replace {paddr} lladdr {pmac} dev {dev} "
                     "nud permanent")

    def _ip(self, ns, line):
        self.ipb.setdefault(ns, []).append(line)


class PoolSampler(threading.Thread):
    """Every interval: each router's decbit qdiscs (queue, pool counts)."""

    def __init__(self, bed, interval, t0):
        super().__init__(daemon=True)
        self.interval, self.t0 = interval, t0
        self.stop_ev = threading.Event()
        self.samples = []
        self.socks = [(netlink.socket_in_netns(ns, 0), ns)
                      for ns in bed.routers]
        self.names = {}
        for ns in bed.routers:
            for link in json.loads(runner.sh("ip", "-n", ns, "-j", "link",
                                             "show", capture=True)):
                self.names[ns, link["ifindex"]] = link["ifname"]

    def poll(self, seq):
        out = []
        t = round(time.monotonic() - self.t0, 4)
        for sock, ns in self.socks:
            for q in netlink.qdiscs(sock, None, seq, raw_xstats=True):
                if q.get("kind") != "decbit":
                    continue
                x = decbit_xstats(q.pop("xstats"))
                if x:
                    q.update(x)
                q.update(t=t, router=ns,
                         link=self.names.get((ns, q["ifindex"])))
                out.append(q)
        return out

    def run(self):
        seq = 1
        nxt = time.monotonic()
        while not self.stop_ev.is_set():
            seq += 1
            try:
                self.samples += self.poll(seq)
            except OSError:
                pass
            nxt += self.interval
            self.stop_ev.wait(max(0.0, nxt - time.monotonic()))

    def stop(self):
        """Stop sampling; returns a last poll of every qdisc."""
        self.stop_ev.set()
        if self.is_alive():
            self.join()
        try:
            return self.poll(1 << 30)
        finally:
            for s, _ in self.socks:
                s.close()


def run_once(sc, arm, rep, outdir, log):
    runner.ensure_qdisc("decbit")
    outdir.mkdir(parents=True, exist_ok=True)
    topo, vcs = sc.topology, sc.vcs
    bed = GraphTestbed(topo, arm, log)
    t_build = time.monotonic()
    gen = None
    sampler = None
    record = {"module_params": meta.module_params()}
    try:
        bed.build()
        record["before"] = meta.testbed(bed.ns, bed.prefix, runner.tc_env())
        log(f"testbed built in {time.monotonic() - t_build:.1f} s "
            f"({len(bed.ns)} namespaces, {len(topo['routes'])} routes, "
            f"{len(vcs['list'])} VCs)")
        t0 = time.monotonic() + 1.0
        (outdir / "t0").write_text(f"{t0:.6f}\n")
        sources = {}
        for v in vcs["list"]:
            sources.setdefault(bed.routers[v["src"] - 1], []).append(v["id"])
        cfg = {"t0": t0, "duration": sc.duration,
               "drain": max(DRAIN, vcs["timeout"]),
               "window": [sc.warmup, sc.duration],
               "timeout": vcs["timeout"], "size": vcs["size"], "port": PORT,
               "seed": vcs["seed"] + rep, "sources": sources,
               "sinks": bed.hostns,
               "vcs": [{"id": v["id"], "window": v["window"],
                        "lam": v["lam"],
                        "dst": graph.route_addr(v["route"])}
                       for v in vcs["list"]]}
        (outdir / "vcgen.json").write_text(json.dumps(cfg))
        sampler = PoolSampler(bed, sc.sample_interval, t0)
        sampler.start()
        gen = subprocess.Popen(
            [sys.executable, "-m", "congavoid_exp.vcgen",
             str(outdir / "vcgen.json"), str(outdir / "vcs.json")],
            env=runner._pyenv())
        try:
            gen.wait(timeout=sc.duration + cfg["drain"] + 60)
        finally:
            final = sampler.stop()
        if gen.returncode:
            raise RuntimeError(f"vcgen exited with {gen.returncode}")
        with open(outdir / "samples.jsonl", "w", encoding="utf-8") as fh:
            for s in sampler.samples:
                fh.write(json.dumps(s) + "\n")
        with open(outdir / "final.json", "w", encoding="utf-8") as fh:
            json.dump(final, fh)
        record["after"] = meta.testbed(bed.ns, bed.prefix, runner.tc_env())
    finally:
        if gen is not None and gen.poll() is None:
            gen.kill()
            gen.wait()
        if sampler is not None and sampler.is_alive():
            sampler.stop()
        bed.destroy()
    gen_res = json.loads((outdir / "vcs.json").read_text())
    res = compute(sc, arm, gen_res, sampler.samples, final,
                  gen_res.get("t0", t0) - t0)
    with open(outdir / "metrics.json", "w", encoding="utf-8") as fh:
        json.dump(res, fh, indent=1)
    res["testbed"] = record
    return res


def window_delta(samples, key, w0, w1):
    """Sum over qdiscs of key's increase from the first sample at or after
    w0 to the last at or before w1 (None if no qdisc has two)."""
    series = {}
    for s in samples:
        if s.get(key) is not None and w0 <= s["t"] <= w1:
            series.setdefault((s["router"], s["link"]), []).append(
                (s["t"], s[key]))
    deltas = [max(v)[1] - min(v)[1] for v in series.values() if len(v) > 1]
    return sum(deltas) if deltas else None


def compute(sc, arm, gen, samples, final, shift=0.0):
    """Metrics of one run from the generator's summary and the routers'
    qdisc counters.  Counters are taken over the measurement window
    (warm-up to the end of the sources, shifted by the generator's late
    start, if any); the *_all figures cover the whole run."""
    tot = gen["totals"]
    w0, w1 = sc.warmup + shift, sc.duration + shift

    def total(key):
        vals = [q[key] for q in final if q.get(key) is not None]
        return sum(vals) if vals else None

    pool = {}
    for s in samples:
        if s.get("pool_used") is not None and w0 <= s["t"] <= w1:
            pool.setdefault(s["router"], []).append(s["pool_used"])
    inputs = [s["pool_input"] for s in samples
              if s.get("pool_input") is not None]
    used = [s["pool_used"] for s in samples
            if s.get("pool_used") is not None]
    mean_used = [sum(v) / len(v) for v in pool.values()]
    offered = gen["offered_pps"]
    return {
        "arm": arm["name"], "qdisc": "decbit",
        "sweep": arm["sweep"],
        "ibl": ibl_fraction(arm["ibl_alpha"],
                            sc.topology["mean_path_nodes"])
        if arm.get("ibl_alpha") else None,
        "start_shift_s": shift,
        "offered_pps": offered,
        "admitted_pps": gen["admitted_pps"],
        "delivered_pps": gen["delivered_pps"],
        "delivered_frac": gen["delivered_pps"] / offered if offered else None,
        "rejected_frac": tot["rejected"] / tot["offered"]
        if tot["offered"] else None,
        "refused_frac": tot["refused"] / tot["offered"]
        if tot["offered"] else None,
        "net_loss_frac": 1 - tot["arrived"] / tot["admitted"]
        if tot["admitted"] else None,
        "refused_all": tot["refused_all"],
        "send_errors": tot["errors_all"],
        "timed_out": tot["timed_out"],
        "late": tot["late"],
        "vc_cov": gen["vc_cov"],
        "delay_mean_ms": gen["delay_mean_ms"],
        "delay_p95_ms": gen["delay_p95_ms"],
        "ibl_dropped": window_delta(samples, "ibl_dropped", w0, w1),
        "pool_dropped": window_delta(samples, "pool_dropped", w0, w1),
        "overlimit_dropped": window_delta(samples, "overlimit_dropped", w0,
                                          w1),
        "ibl_dropped_all": total("ibl_dropped"),
        "pool_dropped_all": total("pool_dropped"),
        "overlimit_dropped_all": total("overlimit_dropped"),
        "pool_used_mean": sum(mean_used) / len(mean_used)
        if mean_used else None,
        "pool_used_max": max(used) if used else None,
        "pool_input_max": max(inputs) if inputs else None,
        "pool_input_limit": max((q.get("pool_input_limit") or 0
                                 for q in final), default=None),
        "pool_left": sum({q["router"]: q.get("pool_used") or 0
                          for q in final}.values()),
        "series": gen["series"],
        "vc_delivered_pps": gen["vc_delivered_pps"],
    }
