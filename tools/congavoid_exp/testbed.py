# SPDX-License-Identifier: GPL-2.0
"""The test beds: network namespaces joined by veth pairs, with the arm's
qdiscs.  Testbed is the dumbbell/chain of the ordinary scenarios,
GraphTestbed Lam & Lien's store-and-forward network."""

import json
import os
import shlex
import subprocess
import time
from pathlib import Path

from . import graph
from .host import sh, tc, tc_env
from .scenario import SELF_SHAPING, tc_rate

# The handle of the qdisc under test: a self-shaping qdisc (decbit, hbh)
# is the root, "1:"; any other sits under htb's class 1:1 as "10:".
ROOT_HANDLE = 0x10000
LEAF_HANDLE = 0x100000


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
            body = shell_body(self.script[ns])
            r = subprocess.run(["ip", "netns", "exec", ns, "sh", "-c", body],
                               stderr=subprocess.PIPE, stdout=subprocess.PIPE,
                               text=True, env=tc_env())
            if r.returncode:
                raise RuntimeError(f"setting up {ns}: {r.stderr.strip()}")

    def _bottleneck(self, ns, dev):
        a, t = self.arm, self.topo
        kind, opts = a["qdisc"], shlex.split(a["qdisc_opts"] or "")
        rate = tc_rate(t["rate"])
        if kind in SELF_SHAPING:
            if "limit" not in opts:
                opts = ["limit", str(t["buffer"])] + opts
            lines = [f"tc qdisc add dev {dev} root handle 1: {kind} "
                     f"rate {rate} {shlex.join(opts)}"]
            handle = ROOT_HANDLE
        else:
            if kind in ("pfifo", "bfifo") and not opts:
                opts = ["limit", str(t["buffer"] if kind == "pfifo"
                                     else t["buffer"] * 1514)]
            lines = [f"tc qdisc add dev {dev} root handle 1: htb default 1",
                     f"tc class add dev {dev} parent 1: classid 1:1 htb "
                     f"rate {rate} ceil {rate}",
                     f"tc qdisc add dev {dev} parent 1:1 handle 10: {kind} "
                     f"{shlex.join(opts)}"]
            handle = LEAF_HANDLE
        self.script[ns] += lines
        self._shaped.append((ns, dev))
        self._handles[ns, dev] = handle

    def set_rate(self, rate_bps):
        """Change the rate of every bottleneck link (an event)."""
        rate = tc_rate(rate_bps)
        for ns, dev, _, handle in self.bottlenecks:
            if handle == ROOT_HANDLE:
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


def shell_body(lines):
    """A namespace's shell lines as one "sh -c" script: the other lines
    (sysctl, ethtool) first, then every "ip" line in one "ip -batch" and
    every "tc" line in one "tc -batch", each group in its own order (a
    process start costs ~0.1 s in an emulated VM, and a test bed's
    namespace has a dozen such lines).  Stops at the first failure."""
    groups = {"ip": [], "tc": [], "": []}
    for line in lines:
        word = line.split(" ", 1)[0]
        key = word if word in ("ip", "tc") else ""
        groups[key].append(line[len(key):].strip() if key else line)
    body = ["set -e"] + groups[""]
    for cmd in ("ip", "tc"):
        if groups[cmd]:
            body += [f"{cmd} -batch - <<'END_OF_BATCH'"] + groups[cmd] + \
                ["END_OF_BATCH"]
    return "\n".join(body) + "\n"


def qdisc_options(topo, arm):
    """The decbit options of every router egress of this arm: the link
    rate, the arm's options (sweep already filled in), limit = the pool's
    N_T unless given, ibl from ibl_alpha, and the host link as input."""
    opts = shlex.split(arm["qdisc_opts"] or "")
    extra = ["rate", tc_rate(topo["rate"])]
    if "limit" not in opts:
        n = opts[opts.index("pool_limit") + 1] if "pool_limit" in opts \
            else str(topo["buffer"])
        extra += ["limit", n]
    if arm.get("ibl_alpha"):
        f = graph.ibl_fraction(arm["ibl_alpha"], topo["mean_path_nodes"])
        extra += ["ibl", f"{f:.6f}"]
    if "pool" in opts or "pool_limit" in opts:
        extra += ["input", "h0"]
    return extra + opts


class GraphTestbed(Testbed):
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
                self._handles[ns, dev] = ROOT_HANDLE
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
