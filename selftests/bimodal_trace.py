#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise a tcp_bimodal trace (the bimodal_event tracepoint's lines),
or what the bottleneck and the receiver saw in an experiment run.

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
  measured_flows  how many of the N flows measured their share (a
            "measured" event, the first SKIP_S seconds included: a flow
            that measured there and stayed in the known mode counts) and
            had an event that ended in the known mode after SKIP_S
  at_fair_keep  median, over the "at_fair" events, of the window set over
            the fair share: 1 - epsilon (7/8) by the paper's rule
  begin, measured_n, void, joined, left, at_fair, timeout: events per reason

  bimodal_trace.py link DIR N
Reads one arm's run of the experiment runner (DIR/results.json and the
samples.jsonl of its one repetition) and prints, over the run's
measurement window (after the warm-up):

  goodput   new data the N flows had acknowledged (tcp_info bytes_acked),
            bit/s, summed over the flows
  mu        the bottleneck's service rate: packets its qdisc sent between
            consecutive samples that both saw at least half of qmax queued
            (so the link was busy throughout), over the time between them
            (packets/s; below the configured rate when the guest is busy)
  qmax      the largest queue the qdisc's samples saw (packets; on
            drop-tail the buffer is full when it drops)
  rtt0      the path's round trip without a queue: the scenario's delay (ms)
  minrtt    the smallest RTT any flow measured (ms; logged, not used)
  bdp       the configured rate times rtt0, in full-sized packets (1514
            bytes as the qdisc counts them)
  B         the packets the path holds at congestion, the paper's B, from
            the path and the bottleneck alone: bdp + qmax
  B_served  the same with the rate the bottleneck served, mu * rtt0 + qmax
            (a slow guest's bottleneck serves below its configured rate:
            then the path holds this much)
  rtt_path  the flows' mean RTT less the mean queue's wait at mu (ms): the
            round trip the path gave beyond the bottleneck's queue (a busy
            guest's timers fire late: above rtt0 then)
  B_path    mu * rtt_path + qmax: the packets the path held at congestion,
            from the bottleneck's samples and the flows' RTTs, not their
            windows
  served    mu over the configured rate in full-sized packets
  busy      the packets the qdisc sent over the window against mu over
            the same time: how busy the flows kept the link, at the rate
            it could serve
  gserved   goodput against mu full-sized packets' data a second: the
            goodput at the rate the link served

Either mode exits 1, printing why, when its input is missing or empty:
no events of the N flows, a flow without samples or without data
acknowledged, no interval with a standing queue.
"""
import bisect
import glob
import json
import os
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


# a full-sized packet as the bottleneck's qdisc counts it (1500 + Ethernet),
# and the data it carries (TCP with timestamps)
WIRE_BYTES = 1514
MSS = 1448


def fail(why):
    print(f"bimodal_trace.py: {why}", file=sys.stderr)
    sys.exit(1)


def link(d, n):
    try:
        with open(os.path.join(d, "results.json")) as f:
            res = json.load(f)
        run = res["arms"][0]["runs"][0]
        flows = res["flows"]
        w0 = min(f["start"] for f in flows) + res["warmup"]
        w1 = max(f["stop"] for f in flows)
        delay = res["topology"]["delay"]
        rate = res["topology"]["rate"]
        summ = res["arms"][0]["summary"]
        rtt_mean = summ["rtt_mean_ms"] / 1000
        q_mean = summ["queue_mean"]
    except (OSError, ValueError, KeyError, IndexError, TypeError) as e:
        fail(f"{d}/results.json: {e!r}")
    paths = glob.glob(os.path.join(d, "*", "rep1", "samples.jsonl"))
    if len(paths) != 1:
        fail(f"{d}: {len(paths)} samples.jsonl, not one")
    samples = []
    with open(paths[0]) as f:
        for line in f:
            if line.strip():
                samples.append(json.loads(line))
    if not samples:
        fail(f"{paths[0]} is empty")

    # goodput: bytes acknowledged inside the window, per flow
    goodput = 0.0
    ids = sorted({s["flow"] for s in samples if "flow" in s})
    if len(ids) != n:
        fail(f"{len(ids)} flows sampled, not {n}")
    for fid in ids:
        fs = [(s["t"], s["bytes_acked"]) for s in samples
              if s.get("flow") == fid and w0 <= s["t"] <= w1
              and isinstance(s.get("bytes_acked"), int)]
        if len(fs) < 2 or fs[-1][1] <= fs[0][1] or fs[-1][0] <= fs[0][0]:
            fail(f"flow {fid}: no data acknowledged in {w0:g}-{w1:g} s")
        goodput += (fs[-1][1] - fs[0][1]) * 8 / (fs[-1][0] - fs[0][0])

    # the bottleneck's qdisc (the runner samples only the one under test)
    qs = [s for s in samples if "kind" in s and w0 <= s["t"] <= w1
          and isinstance(s.get("packets"), int)
          and isinstance(s.get("qlen"), int)]
    if len({(s["router"], s["link"]) for s in qs}) != 1:
        fail("not one bottleneck qdisc sampled")
    # its service rate: packets sent over the intervals that began and
    # ended with a standing queue (at least half the largest one), when
    # the link cannot have idled: a busy guest serves below the configured
    # rate, and then the path holds that much less
    qmax = max(s["qlen"] for s in qs)
    pk = dt = 0
    for a, b in zip(qs, qs[1:]):
        if min(a["qlen"], b["qlen"]) >= max(1, qmax / 2) and b["t"] > a["t"]:
            pk += b["packets"] - a["packets"]
            dt += b["t"] - a["t"]
    if pk <= 0 or dt <= 0:
        fail("no interval in which the bottleneck held a standing queue")
    mu = pk / dt
    # how busy the flows kept the link, at the rate it served: packets
    # sent over the window against mu over the same time
    if qs[-1]["t"] <= qs[0]["t"]:
        fail("the bottleneck's samples span no time")
    busy = (qs[-1]["packets"] - qs[0]["packets"]) / \
        (mu * (qs[-1]["t"] - qs[0]["t"]))
    minrtt = [f.get("min_rtt_ms") for f in run.get("flows", [])]
    minrtt = min((x for x in minrtt if x), default=0)
    bdp = rate * delay / (8 * WIRE_BYTES)
    # the round trip the path gave a packet beyond the bottleneck's queue:
    # the flows' mean RTT less the mean queue's wait at mu (above the
    # scenario's delay when a busy guest's timers fire late)
    if not isinstance(rtt_mean, (int, float)) or \
            not isinstance(q_mean, (int, float)):
        fail("no mean RTT or queue in the arm's summary")
    rtt_path = rtt_mean - q_mean / mu
    print(f"goodput={goodput:.0f} mu={mu:.1f} qmax={qmax} "
          f"rtt0={delay * 1000:g} minrtt={minrtt:.1f} "
          f"rtt_path={rtt_path * 1000:.1f} bdp={bdp:.1f} "
          f"B={bdp + qmax:.1f} B_served={mu * delay + qmax:.1f} "
          f"B_path={mu * rtt_path + qmax:.1f} "
          f"served={mu * 8 * WIRE_BYTES / rate:.3f} busy={busy:.3f} "
          f"gserved={goodput / (mu * 8 * MSS):.3f}")


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "link":
        link(sys.argv[2], int(sys.argv[3]))
        return
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
                               m.group(9), int(m.group(6))))
    if not events:
        fail(f"{path}: no events of flows {min(ports)}-{max(ports)}")
    t0 = events[0][0]
    measured_ever = {e[1] for e in events if e[5] == "measured"}
    events = [e for e in events if e[0] >= t0 + skip]
    measured_flows = len(measured_ever &
                         {e[1] for e in events if e[2] == "known"})
    if not events:
        fail(f"{path}: no events after the first {skip:g} s")

    latest, sums = {}, []
    for t, port, _, cwnd, *_ in events:
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
    # at the fair share: the window set, over the share
    keep = [e[6] / e[4] for e in events if e[5] == "at_fair" and e[4] > 0]
    count = {r: sum(1 for e in events if e[5] == r) for r in REASONS}
    print(f"events={len(events)} synced={synced / max(1, len(events)):.2f} "
          f"B={median(sums):g} fair={mean(known):.1f} "
          f"measured={median([e[4] for e in events if e[5] == 'measured']):g} "
          f"known={len(known) / max(1, len(events)):.2f} "
          f"measured_flows={measured_flows} "
          f"at_fair_keep={median(keep):.3f} " +
          " ".join(f"{'measured_n' if r == 'measured' else r}={c}"
                   for r, c in count.items()))


if __name__ == "__main__":
    main()
