#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Sample the root decbit qdiscs of several interfaces of one namespace, and
their shared buffer pool, over netlink.

  pool_sample.py NS SECONDS INTERVAL_MS DEV...
Prints "# ready" once the socket is open, then one line per sample: "<ms
since start> <qlen of each DEV>... <pool_used> <pool_input>", the pool's
counts as the first DEV's qdisc reports them (struct tc_decbit_xstats).
"""
import sys

from qdisc_sample import netlink, roots


def main():
    ns, secs, ivl, devs = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]) / 1000, sys.argv[4:]
    for ms, qs in roots(ns, devs, secs, ivl, raw_xstats=True):
        x = netlink.decbit_xstats(qs[0].get("xstats")) or {}
        used, inp = x.get("pool_used", -1), x.get("pool_input", -1)
        print(f"{ms:.0f} " + " ".join(str(q.get("qlen", -1)) for q in qs) + f" {used} {inp}",
              flush=True)


if __name__ == "__main__":
    main()
