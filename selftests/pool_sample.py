#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Sample the root decbit qdiscs of several interfaces of one namespace, and
their shared buffer pool, over netlink.

  pool_sample.py NS SECONDS INTERVAL_MS DEV...
Prints "# ready" once the socket is open, then one line per sample: "<ms
since start> <qlen of each DEV>... <pool_used> <pool_input>", the pool's
counts as the first DEV's qdisc reports them (struct tc_decbit_xstats);
-1 for a figure missing.  Exits 1 if it took no sample or a figure was
missing from one (a sample file to read bounds from must be complete).
"""
import sys

from qdisc_sample import netlink, roots


def main():
    ns, secs, ivl, devs = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]) / 1000, sys.argv[4:]
    n = missing = 0
    for ms, qs in roots(ns, devs, secs, ivl, raw_xstats=True):
        x = netlink.decbit_xstats(qs[0].get("xstats")) or {}
        figs = [q.get("qlen", -1) for q in qs] + [x.get("pool_used", -1), x.get("pool_input", -1)]
        print(f"{ms:.0f} " + " ".join(str(f) for f in figs), flush=True)
        n += 1
        missing += -1 in figs
    if not n or missing:
        print(f"# {n} samples, {missing} with a figure missing", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
