# SPDX-License-Identifier: GPL-2.0
"""Sampling during a run: one thread polls a list of probes every
interval, through netlink sockets opened once in each namespace (no fork
per sample).  A probe's poll(seq, t) returns a list of sample dicts."""

import json
import threading
import time

from . import netlink
from .host import sh


class TcpProbe:
    """tcp_info of each flow's data socket, found by its client port."""

    def __init__(self, namespaces, flow_of_port):
        self.socks = {ns: netlink.socket_in_netns(
            ns, netlink.NETLINK_SOCK_DIAG) for ns in set(namespaces)}
        self.flow_of_port = flow_of_port

    def poll(self, seq, t):
        out = []
        for sock in self.socks.values():
            try:
                found = netlink.tcp_sockets(sock, seq)
            except OSError:
                continue
            for s in found:
                fid = self.flow_of_port.get(s["sport"])
                if fid is not None:
                    s.update(t=t, flow=fid)
                    out.append(s)
        return out

    def close(self):
        for s in self.socks.values():
            s.close()


class QdiscProbe:
    """The qdiscs under test: (namespace, device, ifindex, handle) each."""

    def __init__(self, bottlenecks):
        self.qs = [(netlink.socket_in_netns(ns, 0), ns, dev, idx, h)
                   for ns, dev, idx, h in bottlenecks]

    def poll(self, seq, t):
        out = []
        for sock, ns, dev, idx, h in self.qs:
            try:
                found = netlink.qdiscs(sock, idx, seq)
            except OSError:
                continue
            for q in found:
                if q["handle"] == h:
                    q.update(t=t, link=dev, router=ns)
                    out.append(q)
        return out

    def close(self):
        for q in self.qs:
            q[0].close()


class PoolProbe:
    """Every decbit qdisc of each router namespace, with its queue and
    pool counters (the graph scenarios)."""

    def __init__(self, routers):
        self.socks = [(netlink.socket_in_netns(ns, 0), ns) for ns in routers]
        self.names = {}
        for ns in routers:
            for link in json.loads(sh("ip", "-n", ns, "-j", "link", "show",
                                      capture=True)):
                self.names[ns, link["ifindex"]] = link["ifname"]

    def poll(self, seq, t):
        out = []
        for sock, ns in self.socks:
            for q in netlink.qdiscs(sock, None, seq, raw_xstats=True):
                if q.get("kind") != "decbit":
                    continue
                x = netlink.decbit_xstats(q.pop("xstats"))
                if x:
                    q.update(x)
                q.update(t=t, router=ns,
                         link=self.names.get((ns, q["ifindex"])))
                out.append(q)
        return out

    def close(self):
        for s, _ in self.socks:
            s.close()


class Sampler(threading.Thread):
    """Polls the probes every interval from t0 (time.monotonic()) on;
    samples carry t, seconds since t0.  A probe that fails once (a
    namespace going away) is skipped for that round."""

    def __init__(self, probes, interval, t0):
        super().__init__(daemon=True)
        self.probes, self.interval, self.t0 = probes, interval, t0
        self.stop_ev = threading.Event()
        self.samples = []
        self.seq = 1

    def _poll(self, probe):
        self.seq += 1
        t = round(time.monotonic() - self.t0, 4)
        try:
            return probe.poll(self.seq, t)
        except OSError:
            return []

    def run(self):
        nxt = time.monotonic()
        while not self.stop_ev.is_set():
            for p in self.probes:
                self.samples += self._poll(p)
            nxt += self.interval
            self.stop_ev.wait(max(0.0, nxt - time.monotonic()))

    def stop(self, final=()):
        """Stop sampling and close the probes; returns one last poll of
        the probes in FINAL, which, unlike the samples, must not fail (it
        gives the counters the run ends with)."""
        self.stop_ev.set()
        if self.is_alive():
            self.join()
        try:
            t = round(time.monotonic() - self.t0, 4)
            return [s for p in final for s in p.poll(self.seq + 1, t)]
        finally:
            for p in self.probes:
                p.close()
