#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Sample the root qdisc of one interface in a namespace over netlink.

  qdisc_sample.py NS DEV SECONDS INTERVAL_MS
Prints "# ready" once the socket is open, then one line per sample: "<ms
since start> <bytes sent> <packets queued> <drops>", from one process
(forking tc per sample is slow under TCG).
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from congavoid_exp import netlink  # noqa: E402


def main():
    ns, dev, secs, ivl = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]) / 1000
    sock = netlink.socket_in_netns(ns, 0)  # NETLINK_ROUTE
    ifindex = int(os.popen(f"ip netns exec {ns} cat /sys/class/net/{dev}/ifindex").read())
    print("# ready", flush=True)
    t0 = time.monotonic()
    seq = 1
    while True:
        now = time.monotonic() - t0
        if now > secs:
            break
        for q in netlink.qdiscs(sock, ifindex, seq):
            if q.get("parent") == 0xFFFFFFFF:
                print(f"{now * 1000:.0f} {q.get('bytes', 0)} {q.get('qlen', 0)} {q.get('drops', 0)}",
                      flush=True)
        seq += 1
        time.sleep(max(0.0, ivl - ((time.monotonic() - t0) - now)))


if __name__ == "__main__":
    main()
