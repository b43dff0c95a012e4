# SPDX-License-Identifier: GPL-2.0
"""Runs a scenario: per arm and repetition, build the namespaces, load
what is needed, start the traffic, sample, tear down, compute metrics."""

import json
import os
import re
import shlex
import subprocess
import sys
import threading
import time
from pathlib import Path

from . import meta
from . import metrics as M
from . import netlink
from .scenario import SELF_SHAPING

TOP = Path(__file__).resolve().parents[2]
IPERF_BASE, CPORT_BASE, UDP_BASE = 5200, 40000, 6000


class Skip(Exception):
    """An arm that cannot run here (a module that is not built)."""


def sh(*args, ns=None, check=True, capture=False):
    cmd = (["ip", "netns", "exec", ns] if ns else []) + [str(a) for a in args]
    r = subprocess.run(cmd, stdout=subprocess.PIPE if capture else
                       subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if check and r.returncode:
        raise RuntimeError(f"{shlex.join(cmd)}: {r.stderr.strip()}")
    return r.stdout if capture else r.returncode


def tc_env():
    env = dict(os.environ)
    if (TOP / "build/tc").is_dir() and "TC_LIB_DIR" not in env:
        env["TC_LIB_DIR"] = str(TOP / "build/tc")
    return env


def tc(ns, *args):
    cmd = ["ip", "netns", "exec", ns, "tc"] + [str(a) for a in args]
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True, env=tc_env())
    if r.returncode:
        raise RuntimeError(f"{shlex.join(cmd)}: {r.stderr.strip()}")


# -- modules -----------------------------------------------------------------

def _built_module(name):
    for ko in (TOP / "build" / os.uname().release).glob(f"*/{name}.ko"):
        return ko
    return None


def _loaded(name):
    return Path(f"/sys/module/{name}").exists()


def ensure_module(name):
    """Load a kernel module: from the system (modprobe) or from this
    project's build folder for the running kernel.  Raises Skip."""
    if _loaded(name):
        return
    if subprocess.run(["modprobe", "-q", name]).returncode == 0:
        return
    ko = _built_module(name)
    if ko is None:
        raise Skip(f"module {name} is not available (not built for "
                   f"{os.uname().release})")
    r = subprocess.run(["insmod", str(ko)], stderr=subprocess.PIPE,
                       text=True)
    if r.returncode and not _loaded(name):
        raise Skip(f"insmod {ko}: {r.stderr.strip()}")


def ensure_cc(cc):
    avail = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")
    if cc not in avail.read_text().split():
        ensure_module(f"tcp_{cc}")
    allowed = Path("/proc/sys/net/ipv4/tcp_allowed_congestion_control")
    cur = allowed.read_text().split()
    if cc not in cur:
        allowed.write_text(" ".join(cur + [cc]))


def ensure_qdisc(kind):
    if kind in ("pfifo", "bfifo", "pfifo_fast"):
        return
    ensure_module(f"sch_{kind}")
    installed = [Path(d) / f"q_{kind}.so" for d in
                 ("/usr/lib/tc", "/usr/lib/x86_64-linux-gnu/tc")]
    if kind in SELF_SHAPING and not (TOP / f"build/tc/q_{kind}.so").exists() \
            and not any(p.exists() for p in installed):
        raise Skip(f"tc plugin q_{kind}.so is not built")


def set_module_params(cc, params):
    """Write module parameters; returns the old values for restore."""
    old = {}
    for k, v in params.items():
        p = Path(f"/sys/module/tcp_{cc}/parameters/{k}")
        if not p.exists():
            raise RuntimeError(f"module tcp_{cc} has no parameter {k}")
        old[k] = p.read_text().strip()
        p.write_text(str(v))
    return old


# -- topology ----------------------------------------------------------------

class Testbed:
    """Hosts s1..sN on router r1, routers r1..rK in a chain, receiver d on
    rK.  The links r_j -> r_j+1 carry the arm's qdisc at the link rate;
    the delay is a netem hop between rK and d (half each way), so netem is
    never the qdisc under test.

    Forks are slow in an emulated VM, so the set-up is batched: one
    "ip -batch" in the initial namespace creates namespaces and veth pairs,
    then one shell per namespace sets its sysctls, offloads, addresses,
    routes and qdiscs."""

    def __init__(self, topo, arm, log):
        self.topo, self.arm, self.log = topo, arm, log
        self.prefix = f"cx{os.getpid()}-"
        self.ns = []
        self.bottlenecks = []     # (router ns, dev, ifindex, handle)
        self.script = {}          # ns -> shell lines
        self.links = []           # "ip -batch" lines for the veth pairs
        self._shaped, self._handles = [], {}

    def name(self, n):
        return self.prefix + n

    def _add_ns(self, n):
        full = self.name(n)
        self.ns.append(full)
        sysctls = {
            "net.ipv4.ip_forward": 1, "net.ipv4.tcp_no_metrics_save": 1,
            "net.ipv6.conf.all.disable_ipv6": 1,
            "net.ipv4.tcp_rmem": "4096 131072 33554432",
            "net.ipv4.tcp_wmem": "4096 131072 33554432"}
        if n.startswith("s"):
            sysctls["net.ipv4.tcp_congestion_control"] = self.arm["cc"]
        elif n == "d":
            sysctls["net.ipv4.tcp_congestion_control"] = \
                self.arm["receiver_cc"]
        if self.arm["ecn"] is not None:
            sysctls["net.ipv4.tcp_ecn"] = self.arm["ecn"]
        sysctls.update(self.arm["sysctl"])
        self.script[full] = [
            "ip link set dev lo up",
            "sysctl -qw " + " ".join(shlex.quote(f"{k}={v}")
                                     for k, v in sysctls.items())]
        return full

    def _run(self, ns, line):
        self.script[ns].append(line)

    def _veth(self, a, da, b, db, aa, ab):
        self.links.append(f"link add name {da} netns {a} type veth peer "
                          f"name {db} netns {b}")
        for ns, dev, addr in ((a, da, aa), (b, db, ab)):
            self._run(ns, f"ethtool -K {dev} tso off gso off gro off "
                      ">/dev/null 2>&1 || true")
            self._run(ns, f"ip addr add {addr}/24 dev {dev}")
            self._run(ns, f"ip link set dev {dev} up")

    def build(self):
        t, k = self.topo, self.topo["routers"]
        routers = [self._add_ns(f"r{j}") for j in range(1, k + 1)]
        self.hosts = [self._add_ns(f"s{i}") for i in range(1, t["hosts"] + 1)]
        self.dst = self._add_ns("d")
        self.routers = routers
        for i, s in enumerate(self.hosts, 1):
            self._veth(s, "eth0", routers[0], f"h{i}", f"10.0.{i}.1",
                       f"10.0.{i}.254")
            self._run(s, f"ip route add default via 10.0.{i}.254")
            if self.arm["host_qdisc"]:
                self._run(s, "tc qdisc add dev eth0 root "
                          + self.arm["host_qdisc"])
        for j in range(k - 1):
            self._veth(routers[j], "up0", routers[j + 1], "down0",
                       f"10.8.{j}.1", f"10.8.{j}.2")
            self._run(routers[j], f"ip route add 10.9.0.0/24 via 10.8.{j}.2")
            self._run(routers[j + 1],
                      f"ip route add 10.0.0.0/16 via 10.8.{j}.1")
        self._veth(routers[-1], "dn0", self.dst, "eth0", "10.9.0.1",
                   "10.9.0.2")
        self._run(self.dst, "ip route add default via 10.9.0.1")
        half = t["delay"] / 2
        if half > 0:
            for ns, dev in ((routers[-1], "dn0"), (self.dst, "eth0")):
                self._run(ns, f"tc qdisc add dev {dev} root netem delay "
                          f"{half * 1e6:.0f}us limit 100000")
        for r in routers[:-1]:
            self._bottleneck(r, "up0")
        self._apply()
        for ns, dev in self._shaped:
            idx = json.loads(sh("ip", "-n", ns, "-j", "link", "show", "dev",
                                dev, capture=True))[0]["ifindex"]
            self.bottlenecks.append((ns, dev, idx, self._handles[ns, dev]))

    def _apply(self):
        """Create the namespaces and veth pairs (one ip -batch), then run
        each namespace's shell lines."""
        batch = "\n".join([f"netns add {n}" for n in self.ns] + self.links)
        r = subprocess.run(["ip", "-batch", "-"], input=batch + "\n",
                           text=True, stderr=subprocess.PIPE,
                           stdout=subprocess.DEVNULL)
        if r.returncode:
            raise RuntimeError(f"ip -batch: {r.stderr.strip()}")
        for ns in self.ns:
            body = "set -e\n" + "\n".join(self.script[ns]) + "\n"
            r = subprocess.run(["ip", "netns", "exec", ns, "sh", "-c", body],
                               stderr=subprocess.PIPE, stdout=subprocess.PIPE,
                               text=True, env=tc_env())
            if r.returncode:
                raise RuntimeError(f"setting up {ns}: {r.stderr.strip()}")

    def _bottleneck(self, ns, dev):
        a, t = self.arm, self.topo
        kind, opts = a["qdisc"], shlex.split(a["qdisc_opts"] or "")
        rate = f"{int(t['rate'])}bit"
        if kind in SELF_SHAPING:
            if "limit" not in opts:
                opts = ["limit", str(t["buffer"])] + opts
            lines = [f"tc qdisc add dev {dev} root handle 1: {kind} "
                     f"rate {rate} {shlex.join(opts)}"]
            handle = 0x10000
        else:
            if kind in ("pfifo", "bfifo") and not opts:
                opts = ["limit", str(t["buffer"] if kind == "pfifo"
                                     else t["buffer"] * 1514)]
            lines = [f"tc qdisc add dev {dev} root handle 1: htb default 1",
                     f"tc class add dev {dev} parent 1: classid 1:1 htb "
                     f"rate {rate} ceil {rate}",
                     f"tc qdisc add dev {dev} parent 1:1 handle 10: {kind} "
                     f"{shlex.join(opts)}"]
            handle = 0x100000
        self.script[ns] += lines
        self._shaped.append((ns, dev))
        self._handles[ns, dev] = handle

    def set_rate(self, rate_bps):
        """Change the rate of every bottleneck link (an event)."""
        rate = f"{int(rate_bps)}bit"
        for ns, dev, _, handle in self.bottlenecks:
            if handle == 0x10000:
                tc(ns, "qdisc", "change", "dev", dev, "root", "handle", "1:",
                   self.arm["qdisc"], "rate", rate)
            else:
                tc(ns, "class", "change", "dev", dev, "parent", "1:",
                   "classid", "1:1", "htb", "rate", rate, "ceil", rate)

    def destroy(self):
        for ns in self.ns:
            if not Path(f"/run/netns/{ns}").exists():
                continue
            pids = sh("ip", "netns", "pids", ns, check=False, capture=True)
            for p in (pids or "").split():
                try:
                    os.kill(int(p), 9)
                except OSError:
                    pass
        if self.ns:
            subprocess.run(["ip", "-force", "-batch", "-"],
                           input="".join(f"netns del {n}\n" for n in self.ns),
                           text=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        self.ns = []
        # Namespaces die asynchronously (cleanup_net): wait for the names,
        # then give the kernel a second to release their devices.
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            left = sh("ip", "netns", "list", capture=True, check=False)
            if self.prefix not in (left or ""):
                break
            time.sleep(0.2)
        time.sleep(1.0)


# -- sampling ------------------------------------------------------------

class Sampler(threading.Thread):
    """Samples tcp_info of each flow's data socket and the bottleneck
    qdiscs every interval, through netlink sockets opened in each
    namespace (no fork per sample)."""

    def __init__(self, bed, flows, interval, t0):
        super().__init__(daemon=True)
        self.interval, self.t0 = interval, t0
        self.stop_ev = threading.Event()
        self.samples = []
        self.tcp_socks = {}
        for f in flows:
            if f["kind"] == "tcp":
                ns = bed.hosts[f["src"] - 1]
                if ns not in self.tcp_socks:
                    self.tcp_socks[ns] = netlink.socket_in_netns(
                        ns, netlink.NETLINK_SOCK_DIAG)
        self.cport = {CPORT_BASE + f["id"]: f["id"] for f in flows}
        self.q_socks = [(netlink.socket_in_netns(ns, 0), ns, dev, idx, h)
                        for ns, dev, idx, h in bed.bottlenecks]

    def run(self):
        seq = 1
        nxt = time.monotonic()
        while not self.stop_ev.is_set():
            t = time.monotonic() - self.t0
            for ns, sock in self.tcp_socks.items():
                seq += 1
                try:
                    for s in netlink.tcp_sockets(sock, seq):
                        fid = self.cport.get(s["sport"])
                        if fid is not None:
                            s.update(t=round(t, 4), flow=fid)
                            self.samples.append(s)
                except OSError:
                    pass
            for sock, ns, dev, idx, h in self.q_socks:
                seq += 1
                try:
                    for q in netlink.qdiscs(sock, idx, seq):
                        if q["handle"] == h:
                            q.update(t=round(t, 4), link=dev, router=ns)
                            self.samples.append(q)
                except OSError:
                    pass
            nxt += self.interval
            self.stop_ev.wait(max(0.0, nxt - time.monotonic()))

    def stop(self):
        self.stop_ev.set()
        self.join()
        for s in list(self.tcp_socks.values()) + [q[0] for q in self.q_socks]:
            s.close()


# -- one run ---------------------------------------------------------------

def _wait_listen(ns, port, proto="t", timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        out = sh("ss", f"-Hln{proto}", f"sport = :{port}", ns=ns,
                 capture=True, check=False)
        if out and out.strip():
            return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port} in {ns}")


def run_once(sc, arm, rep, outdir, log):
    """One repetition of one arm; returns its metrics dict (raises Skip)."""
    if sc.topology["kind"] == "graph":
        from . import graphrun
        return graphrun.run_once(sc, arm, rep, outdir, log)
    ccs = {f["cc"] or arm["cc"] for f in sc.flows if f["kind"] == "tcp"}
    for cc in ccs | {arm["receiver_cc"]}:
        ensure_cc(cc)
    ensure_qdisc(arm["qdisc"])
    if arm["host_qdisc"]:
        ensure_qdisc(arm["host_qdisc"].split()[0])
    if sc.topology["delay"] > 0:
        ensure_qdisc("netem")
    if arm["qdisc"] not in SELF_SHAPING:
        ensure_qdisc("htb")
    old_params = set_module_params(arm["cc"], arm["module_params"])
    outdir.mkdir(parents=True, exist_ok=True)
    bed = Testbed(sc.topology, arm, log)
    procs = []
    t_build = time.monotonic()
    record = {"module_params": meta.module_params()}
    try:
        bed.build()
        d = bed.dst
        log(f"testbed built in {time.monotonic() - t_build:.1f} s")
        record["before"] = meta.testbed(bed.ns, bed.prefix, tc_env())
        for f in sc.flows:
            if f["kind"] == "tcp":
                port = IPERF_BASE + f["id"]
                procs.append(subprocess.Popen(
                    ["ip", "netns", "exec", d, "iperf3", "-s", "-1", "-p",
                     str(port)], stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL))
        for f in sc.flows:
            if f["kind"] == "tcp":
                _wait_listen(d, IPERF_BASE + f["id"])
        t0 = time.monotonic() + 0.5
        (outdir / "t0").write_text(f"{t0:.6f}\n")
        for f in sc.flows:
            if f["kind"] != "tcp":
                port = UDP_BASE + f["id"]
                procs.append(subprocess.Popen(
                    ["ip", "netns", "exec", d, sys.executable, "-m",
                     "congavoid_exp.gen", "sink", str(port),
                     f"{t0 + f['stop'] + 1.0:.3f}",
                     str(outdir / f"sink-{f['id']}.json")],
                    env=_pyenv()))
        for f in sc.flows:
            if f["kind"] != "tcp":
                _wait_listen(d, UDP_BASE + f["id"], "u")
        sampler = Sampler(bed, sc.flows, sc.sample_interval, t0)
        starts = sorted(sc.flows, key=lambda f: f["start"])
        clients = {}
        time.sleep(max(0.0, t0 - time.monotonic()))
        sampler.start()
        try:
            timeline = [(f["start"], 0, f) for f in starts] + \
                [(e["at"], 1, e) for e in sc.events]
            for at, is_event, x in sorted(timeline, key=lambda y: y[:2]):
                time.sleep(max(0.0, t0 + at - time.monotonic()))
                if is_event:
                    bed.set_rate(x["rate"])
                    log(f"{at:g}s: bottleneck rate {x['rate'] / 1e6:g} Mbit/s")
                else:
                    clients[x["id"]] = _start_flow(bed, arm, x, outdir)
            time.sleep(max(0.0, t0 + sc.duration - time.monotonic()))
            for fid, p in clients.items():
                try:
                    p.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    p.kill()
                    log(f"flow {fid} did not end; killed")
        finally:
            sampler.stop()
        for p in procs:
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
        with open(outdir / "samples.jsonl", "w", encoding="utf-8") as fh:
            for s in sampler.samples:
                fh.write(json.dumps(s) + "\n")
        record["after"] = meta.testbed(bed.ns, bed.prefix, tc_env())
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
        bed.destroy()
        if old_params:
            set_module_params(arm["cc"], old_params)
    res = compute(sc, arm, outdir, sampler.samples)
    res["testbed"] = record
    return res


def _pyenv():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(TOP / "tools")
    return env


def _start_flow(bed, arm, f, outdir):
    ns = bed.hosts[f["src"] - 1]
    secs = f["stop"] - f["start"]
    if f["kind"] == "tcp":
        cmd = ["iperf3", "-c", "10.9.0.2", "-p", str(IPERF_BASE + f["id"]),
               "--cport", str(CPORT_BASE + f["id"]), "-C",
               f["cc"] or arm["cc"], "-t", f"{secs:g}", "-J"]
        out = open(outdir / f"iperf-{f['id']}.json", "w", encoding="utf-8")
        env = None
    else:
        cmd = [sys.executable, "-m", "congavoid_exp.gen", "send", "10.9.0.2",
               str(UDP_BASE + f["id"]), f["kind"], str(f["rate"]),
               str(f["size"]), f"{secs:g}", str(f["on"]), str(f["off"])]
        out = open(outdir / f"udp-{f['id']}.json", "w", encoding="utf-8")
        env = _pyenv()
    p = subprocess.Popen(["ip", "netns", "exec", ns] + cmd, stdout=out,
                         stderr=subprocess.DEVNULL, env=env)
    out.close()
    return p


# -- metrics of one run ------------------------------------------------------

def _flow_result(f, outdir):
    """Delivered bytes, goodput and retransmissions of one flow from the
    traffic tool's own report (receiver side)."""
    if f["kind"] == "tcp":
        try:
            j = json.loads((outdir / f"iperf-{f['id']}.json").read_text())
            e = j["end"]
            return {"bytes": e["sum_received"]["bytes"],
                    "throughput_bps": e["sum_received"]["bits_per_second"],
                    "retransmits": e["sum_sent"].get("retransmits", 0)}
        except (OSError, ValueError, KeyError):
            return {"bytes": 0, "throughput_bps": 0.0, "retransmits": None,
                    "error": "iperf3 produced no result"}
    try:
        j = json.loads((outdir / f"sink-{f['id']}.json").read_text())
        return {"bytes": j["bytes"],
                "throughput_bps": j["bytes"] * 8 / (f["stop"] - f["start"]),
                "retransmits": None}
    except (OSError, ValueError, KeyError):
        return {"bytes": 0, "throughput_bps": 0.0, "retransmits": None,
                "error": "sink produced no result"}


def compute(sc, arm, outdir, samples):
    topo = sc.topology
    flows = sc.flows
    tcp = [s for s in samples if "flow" in s]
    qs = [s for s in samples if "kind" in s]
    first_link = qs[0]["link"] if qs else None
    first_router = qs[0]["router"] if qs else None
    q1 = [s for s in qs if s["link"] == first_link and
          s["router"] == first_router]
    t_first = min(f["start"] for f in flows)
    t_end = max(f["stop"] for f in flows)
    t_all0 = max(f["start"] for f in flows)
    t_all1 = min(f["stop"] for f in flows)
    w0, w1 = t_first + sc.warmup, t_end

    # cumulative delivered-bytes series per flow
    counters = {}
    for f in flows:
        if f["kind"] == "tcp":
            counters[f["id"]] = [(s["t"], s.get("bytes_acked", 0))
                                 for s in tcp if s["flow"] == f["id"]]
        else:
            try:
                j = json.loads((outdir / f"sink-{f['id']}.json").read_text())
                t0 = float((outdir / "t0").read_text())
                counters[f["id"]] = [(t - t0, b) for t, b in j["series"]]
            except (OSError, ValueError, KeyError):
                counters[f["id"]] = []

    per_flow = []
    rtts_all = []
    covs = []
    for f in flows:
        r = {"id": f["id"], "kind": f["kind"], "src": f["src"],
             "cc": (f["cc"] or arm["cc"]) if f["kind"] == "tcp" else None,
             "start": f["start"], "stop": f["stop"]}
        r.update(_flow_result(f, outdir))
        fs = [s for s in tcp if s["flow"] == f["id"]]
        lo = f["start"] + sc.warmup
        rtts = [s["rtt"] / 1000 for s in fs if s["t"] >= lo and s.get("rtt")]
        cw = [s["snd_cwnd"] for s in fs
              if max(lo, t_all0) <= s["t"] <= t_all1 and "snd_cwnd" in s]
        r["rtt_mean_ms"] = M.mean(rtts)
        r["rtt_p95_ms"] = M.percentile(rtts, 95)
        r["cwnd_mean"] = M.mean(cw)
        r["cwnd_cov"] = M.cov(cw)
        mins = [s["min_rtt"] / 1000 for s in fs if s.get("min_rtt")]
        r["min_rtt_ms"] = min(mins) if mins else None
        rtts_all += rtts
        if r["cwnd_cov"] is not None:
            covs.append(r["cwnd_cov"])
        per_flow.append(r)

    agg = sum(r["throughput_bps"] for r in per_flow)
    # new data delivered over the whole run / the data the link could
    # carry (payload of full-sized packets: 1448 of 1514 bytes for TCP
    # with timestamps, size of size + 42 for UDP)
    cap_all = sc.capacity(t_first, t_end)
    frac = [1448 / 1514 if f["kind"] == "tcp" else
            f["size"] / (f["size"] + 42) for f in flows]
    cap_data = cap_all * sum(frac) / len(frac)
    useful = sum(r["bytes"] for r in per_flow) * 8 / cap_data \
        if cap_data else None
    sent = [(s["t"], s.get("bytes", 0)) for s in q1]
    cap = sc.capacity(w0, w1)
    util = M.rate_between(sent, w0, w1) * (w1 - w0) * 8 / cap \
        if sent and cap else None
    # Jain over the interval in which every flow is active (after warm-up)
    ja0 = t_all0 + sc.warmup
    jain = None
    if t_all1 > ja0:
        jain = M.jain(M.rate_between(counters[f["id"]], ja0, t_all1)
                      for f in flows)
    qlen = [s["qlen"] for s in q1 if s["t"] >= w0 and "qlen" in s]

    def delta(key):
        tot, seen = 0, False
        for link in {(s["router"], s["link"]) for s in qs}:
            v = [s[key] for s in qs if (s["router"], s["link"]) == link
                 and s.get(key) is not None]
            if v:
                tot += v[-1] - v[0]
                seen = True
        return tot if seen else None

    rtx = [r["retransmits"] for r in per_flow if r["retransmits"] is not None]
    rtt_mean = M.mean(rtts_all)
    base = [r["min_rtt_ms"] for r in per_flow if r["min_rtt_ms"]]
    base_rtt = min(base) if base else None
    conv = None
    changes = sorted({f["start"] for f in flows} - {t_first})
    if changes:
        c = changes[-1]
        active = [f["id"] for f in flows if f["start"] <= c < f["stop"]]
        end = min(f["stop"] for f in flows if f["id"] in active)
        conv = M.convergence_time(counters, active, c, end) \
            if len(active) > 1 else None
    res = {
        "arm": arm["name"], "cc": arm["cc"], "qdisc": arm["qdisc"],
        "flows": per_flow,
        "throughput_bps": agg,
        "utilization": util,
        "useful": useful,
        "jain": jain,
        "jain_window_s": [ja0, t_all1],
        "rtt_mean_ms": rtt_mean,
        "rtt_p95_ms": M.percentile(rtts_all, 95),
        "base_rtt_ms": base_rtt,
        "queue_mean": M.mean(qlen),
        "queue_max": max(qlen) if qlen else None,
        "drops": delta("drops"),
        "marks": delta("marks"),
        "retransmits": sum(rtx) if rtx else None,
        "power": M.power(agg, rtt_mean / 1000) if rtt_mean else None,
        "norm_power": M.normalized_power(util, rtt_mean, base_rtt)
        if rtt_mean else None,
        "convergence_s": conv,
        "convergence_after_s": changes[-1] if changes else None,
        "cwnd_cov": M.mean(covs),
        "samples": len(samples),
    }
    with open(outdir / "metrics.json", "w", encoding="utf-8") as fh:
        json.dump(res, fh, indent=1)
    return res


def slug(name):
    return re.sub(r"[^A-Za-z0-9_.=-]+", "_", name).strip("_")
