#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Sample the root qdisc of one interface in a namespace over netlink.

  qdisc_sample.py NS DEV SECONDS INTERVAL_MS [SLOW_MS AFTER_S]
Prints "# ready" once the socket is open, then one line per sample: "<ms
since start> <bytes sent> <packets queued> <drops> <bytes queued>", and for
a decbit qdisc "<link time lost, ns>" (its xstats' lost_ns), from one process
(forking tc per sample is slow under TCG).  pool_sample.py uses its loop.
With SLOW_MS and AFTER_S, every SLOW_MS ms from AFTER_S seconds after the
traffic began (the first sample with 100 kB more sent than the first):
fine samples where something changes fast (a link filling), fewer after
(each sample costs a slow guest CPU time the traffic under test needs).
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from congavoid_exp import netlink  # noqa: E402


def roots(ns, devs, secs, ivl, raw_xstats=False):
    """Yield (ms since start, [root qdisc of each of DEVS]) every IVL
    seconds for SECS seconds; a device without a root qdisc gives {}.
    Prints "# ready" once the socket is open.  IVL may be a function of
    the samples so far (a list of the same pairs) that gives it."""
    sock = netlink.socket_in_netns(ns, 0)  # NETLINK_ROUTE
    idx = [int(os.popen(f"ip netns exec {ns} cat /sys/class/net/{d}/ifindex").read())
           for d in devs]
    print("# ready", flush=True)
    t0 = time.monotonic()
    seq = 1
    while True:
        now = time.monotonic() - t0
        if now > secs:
            break
        qs = []
        for i in idx:
            qs.append(next((q for q in netlink.qdiscs(sock, i, seq, raw_xstats=raw_xstats)
                            if q.get("parent") == netlink.TC_H_ROOT), {}))
            seq += 1
        yield now * 1000, qs
        step = ivl() if callable(ivl) else ivl
        if now + step > secs:
            break
        time.sleep(max(0.0, step - ((time.monotonic() - t0) - now)))


class TwoRates:
    """The interval: FAST until AFTER seconds after the bytes sent first
    exceed the first sample's by 100 kB, then SLOW."""

    def __init__(self, fast, slow, after):
        self.fast, self.slow, self.after = fast, slow, after
        self.b0 = self.began = None
        self.now = 0.0

    def see(self, ms, q):
        self.now = ms / 1000
        b = q.get("bytes", 0) if q else 0
        if self.b0 is None:
            self.b0 = b
        elif self.began is None and b - self.b0 > 100000:
            self.began = self.now

    def __call__(self):
        if self.began is not None and self.now >= self.began + self.after:
            return self.slow
        return self.fast


def main():
    ns, dev, secs, ivl = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]) / 1000
    rates = None
    if len(sys.argv) > 6:
        rates = TwoRates(ivl, float(sys.argv[5]) / 1000, float(sys.argv[6]))
        ivl = rates
    for ms, (q,) in roots(ns, [dev], secs, ivl, raw_xstats=True):
        if rates:
            rates.see(ms, q)
        if q:
            x = netlink.decbit_xstats(q["xstats"]) if q.get("kind") == "decbit" else None
            lost = f" {x['lost_ns']}" if x and "lost_ns" in x else ""
            print(f"{ms:.0f} {q.get('bytes', 0)} {q.get('qlen', 0)} {q.get('drops', 0)} "
                  f"{q.get('backlog', 0)}{lost}",
                  flush=True)


if __name__ == "__main__":
    main()
