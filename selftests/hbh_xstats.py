#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Every counter of an hbh root qdisc's struct tc_hbh_xstats, read over
netlink, including members newer than the tc plugin prints.

  hbh_xstats.py NS DEV
Prints one "name value" line per member present in the kernel's struct
(append-only: an older module just has fewer), and "bytes"/"packets" of
the qdisc when the dump has them.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from congavoid_exp import netlink  # noqa: E402

# struct tc_hbh_xstats, in order: (name, format)
FIELDS = [("type", "I"), ("pad0", "I"), ("flows", "I"), ("throttled", "I"),
          ("fb_sent", "Q"), ("fb_received", "Q"), ("fb_rejected", "Q"), ("fb_entries_ignored", "Q"), ("overlimit_dropped", "Q"),
          ("flow_dropped", "Q"), ("flows_gc", "Q"), ("flow_overflow", "Q"),
          ("controlled", "I"), ("buckets", "I"), ("fb_expired", "Q"),
          ("fb_bytes", "Q"), ("fb_unsendable", "Q"), ("fb_badauth", "Q"), ("fb_replay", "Q")]


def main():
    ns, dev = sys.argv[1], sys.argv[2]
    sock = netlink.socket_in_netns(ns, 0)
    ifindex = int(os.popen(f"ip netns exec {ns} cat /sys/class/net/{dev}/ifindex").read())
    for q in netlink.qdiscs(sock, ifindex, 1, raw_xstats=True):
        if q.get("parent") != netlink.TC_H_ROOT or q.get("kind") != "hbh":
            continue
        # (a figure the dump lacks is not printed: its reader sees none,
        # never a 0)
        for k in ("bytes", "packets"):
            if k in q:
                print(k, q[k])
        x = q["xstats"] or b""
        off = 0
        for name, fmt in FIELDS:
            n = struct.calcsize(fmt)
            if off + n > len(x):
                break
            print(name, struct.unpack_from(fmt, x, off)[0])
            off += n
        return
    sys.exit("no hbh root qdisc on " + dev)


if __name__ == "__main__":
    main()
