#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Sample the root decbit qdiscs of several interfaces of one namespace, and
their shared buffer pool, over netlink.

  pool_sample.py [--count NS:DEV:PREF,...] NS SECONDS INTERVAL_MS DEV...
Prints "# ready" once the socket is open and "# t0 <ns>" (CLOCK_REALTIME,
as date +%s%N, at ms 0), then one line per sample: "<ms since start>
<qlen of each DEV>... <pool_used> <pool_input> <ibl_dropped>
<pool_dropped of each DEV>...", the pool's counts and ibl_dropped as the
first DEV's qdisc reports them (struct tc_decbit_xstats); with --count
also "<ms> <bytes of each count>...": when the counts were read, and the
bytes of the flower filter at pref PREF on DEV's clsact ingress in
namespace NS (its first action's counter).  -1 for a figure missing.
Exits 1 if it took no sample or a figure was missing from one (a sample
file to read bounds from must be complete).
"""
import os
import sys
import time

from qdisc_sample import netlink, roots


def main():
    args = sys.argv[1:]
    counts = []
    if args[:1] == ["--count"]:
        for c in args[1].split(","):
            cns, dev, pref = c.split(":")
            sock = netlink.socket_in_netns(cns, 0)
            idx = int(os.popen(f"ip netns exec {cns} cat /sys/class/net/{dev}/ifindex").read())
            counts.append((sock, idx, int(pref)))
        args = args[2:]
    ns, secs, ivl, devs = args[0], float(args[1]), float(args[2]) / 1000, args[3:]
    n = missing = seq = 0
    for ms, qs in roots(ns, devs, secs, ivl, raw_xstats=True):
        if not n:
            t0 = time.time_ns() - int(ms * 1e6)
            print(f"# t0 {t0}", flush=True)
        xs = [netlink.decbit_xstats(q.get("xstats")) or {} for q in qs]
        figs = [q.get("qlen", -1) for q in qs] + \
            [xs[0].get(k, -1) for k in ("pool_used", "pool_input", "ibl_dropped")] + \
            [x.get("pool_dropped", -1) for x in xs]
        if counts:
            got, before = [], time.time_ns()
            for sock, idx, pref in counts:
                seq += 1
                got.append(netlink.filter_bytes(sock, idx, seq).get(pref, -1))
            figs += [round(((before + time.time_ns()) / 2 - t0) / 1e6)] + got
        print(f"{ms:.0f} " + " ".join(str(f) for f in figs), flush=True)
        n += 1
        missing += -1 in figs
    if not n or missing:
        print(f"# {n} samples, {missing} with a figure missing", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
