#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Sample the root decbit qdiscs of several interfaces of one namespace, and
their shared buffer pool, over netlink.

  pool_sample.py NS SECONDS INTERVAL_MS DEV...
Prints "# ready" once the socket is open, then one line per sample: "<ms
since start> <qlen of each DEV>... <pool_used> <pool_input>", the pool's
counts as the first DEV's qdisc reports them (struct tc_decbit_xstats).
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from congavoid_exp import netlink  # noqa: E402


def root(sock, ifindex, seq):
    for q in netlink.qdiscs(sock, ifindex, seq, raw_xstats=True):
        if q.get("parent") == 0xFFFFFFFF:
            return q
    return {}


def main():
    ns, secs, ivl, devs = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]) / 1000, sys.argv[4:]
    sock = netlink.socket_in_netns(ns, 0)  # NETLINK_ROUTE
    idx = [int(os.popen(f"ip netns exec {ns} cat /sys/class/net/{d}/ifindex").read()) for d in devs]
    print("# ready", flush=True)
    t0 = time.monotonic()
    seq = 1
    while True:
        now = time.monotonic() - t0
        if now > secs:
            break
        qs = []
        for i in idx:
            qs.append(root(sock, i, seq))
            seq += 1
        x = netlink.decbit_xstats(qs[0].get("xstats")) or {}
        used, inp = x.get("pool_used", -1), x.get("pool_input", -1)
        print(f"{now * 1000:.0f} " + " ".join(str(q.get("qlen", -1)) for q in qs) + f" {used} {inp}",
              flush=True)
        time.sleep(max(0.0, ivl - ((time.monotonic() - t0) - now)))


if __name__ == "__main__":
    main()
