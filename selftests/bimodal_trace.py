#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise a tcp_bimodal trace (the bimodal_event tracepoint's lines).

  bimodal_trace.py TRACE N SKIP_S
Reads the events of the N flows from source ports 40001..40000+N (the
experiment runner's iperf3 client ports), leaves out
the first SKIP_S seconds after the first event (slow start and the first
cycles), and prints one line of key=value pairs:

  events    events of the N flows after SKIP_S
  synced    fraction of them with another flow's event within 100 ms
  B         packets at congestion: the median, over events at which every
            flow had an event in the last 300 ms, of the sum of the flows'
            windows at their latest event (the paper's B, BDP + queue)
  fair      mean fair share (packets) carried by the events that end in
            the known mode: the share the flows work with
  measured  median of the shares computed by "measured" events, the
            paper's (a - bc) / beta, before the known mode corrects them
  known     fraction of the events that end in the known mode
  measured_flows  how many of the N flows had a "measured" event
  begin, measured_n, void, joined, left, at_fair, timeout: events per reason
"""
import bisect
import re
import statistics
import sys

EVENT = re.compile(r"\s([0-9]+\.[0-9]+): bimodal_event: sport=(\d+) dport=\d+ "
                   r"mode=(\w+)->(\w+) cwnd=(\d+)->(\d+) fair=(\d+)\.(\d+) "
                   r"bc=\d+ reason=(\w+)")
REASONS = ("begin", "measured", "void", "joined", "left", "at_fair", "timeout")


def median(xs):
    return statistics.median(xs) if xs else 0


def mean(xs):
    return statistics.mean(xs) if xs else 0


def main():
    path, n, skip = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    ports = set(range(40001, 40001 + n))
    events = []
    with open(path) as f:
        for line in f:
            m = EVENT.search(line)
            if m and int(m.group(2)) in ports:
                events.append((float(m.group(1)), int(m.group(2)), m.group(4),
                               int(m.group(5)),
                               int(m.group(7)) + int(m.group(8)) / 1000,
                               m.group(9)))
    t0 = events[0][0] if events else 0
    events = [e for e in events if e[0] >= t0 + skip]

    latest, sums = {}, []
    for t, port, _, cwnd, _, _ in events:
        latest[port] = (t, cwnd)
        if len(latest) == n and t - min(v[0] for v in latest.values()) < 0.3:
            sums.append(sum(v[1] for v in latest.values()))
    # events are in time order: look only at those within 100 ms
    times = [e[0] for e in events]
    synced = sum(1 for t, port, *_ in events
                 if any(o[1] != port for o in
                        events[bisect.bisect_right(times, t - 0.1):
                               bisect.bisect_left(times, t + 0.1)]))
    known = [e[4] for e in events if e[2] == "known"]
    count = {r: sum(1 for e in events if e[5] == r) for r in REASONS}
    print(f"events={len(events)} synced={synced / max(1, len(events)):.2f} "
          f"B={median(sums):g} fair={mean(known):.1f} "
          f"measured={median([e[4] for e in events if e[5] == 'measured']):g} "
          f"known={len(known) / max(1, len(events)):.2f} "
          f"measured_flows={len({e[1] for e in events if e[5] == 'measured'})} " +
          " ".join(f"{'measured_n' if r == 'measured' else r}={c}"
                   for r, c in count.items()))


if __name__ == "__main__":
    main()
