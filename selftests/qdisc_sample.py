#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Sample the root qdisc of one interface in a namespace over netlink.

  qdisc_sample.py NS DEV SECONDS INTERVAL_MS
Prints "# ready" once the socket is open, then one line per sample: "<ms
since start> <bytes sent> <packets queued> <drops> <bytes queued>", from one process
(forking tc per sample is slow under TCG).  pool_sample.py uses its loop.
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from congavoid_exp import netlink  # noqa: E402


def roots(ns, devs, secs, ivl, raw_xstats=False):
    """Yield (ms since start, [root qdisc of each of DEVS]) every IVL
    seconds for SECS seconds; a device without a root qdisc gives {}.
    Prints "# ready" once the socket is open."""
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
        time.sleep(max(0.0, ivl - ((time.monotonic() - t0) - now)))


def main():
    ns, dev, secs, ivl = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]) / 1000
    for ms, (q,) in roots(ns, [dev], secs, ivl):
        if q:
            print(f"{ms:.0f} {q.get('bytes', 0)} {q.get('qlen', 0)} {q.get('drops', 0)} "
                  f"{q.get('backlog', 0)}",
                  flush=True)


if __name__ == "__main__":
    main()
