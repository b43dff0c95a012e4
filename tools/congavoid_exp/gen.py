# SPDX-License-Identifier: GPL-2.0
"""Built-in UDP traffic: a sender (CBR, Poisson or on/off bursts) and a
sink that records cumulative received bytes.

  python3 -m congavoid_exp.gen send DST PORT KIND RATE_BPS SIZE SECONDS \
          [ON OFF]

KIND: cbr, poisson, onoff or bursts (ON seconds at RATE_BPS, then an
exponential silence of mean OFF seconds).
  python3 -m congavoid_exp.gen sink PORT DEADLINE OUT.json

DEADLINE is an absolute CLOCK_MONOTONIC time (shared by all network
namespaces); the sink's series are cumulative bytes at absolute times.

The sender schedules packets on absolute times so that it does not drift;
when it falls behind (a slow VM) it sends the backlog at once rather than
silently lowering the rate, and reports how many packets it sent."""

import json
import random
import socket
import sys
import time


def departures(kind, rate_bps, size, seconds, on=1.0, off=1.0, seed=1):
    """Packet send times (seconds from start) of one flow: CBR at the
    rate, Poisson with that mean rate, on/off (CBR at the rate during
    `on` seconds, silent for `off` seconds), or bursts (CBR at the rate
    during `on` seconds, then silent for an exponential time of mean
    `off`: Mishra & Kanakia's uncontrolled cross traffic)."""
    gap = size * 8 / rate_bps
    rnd = random.Random(seed)
    t = 0.0
    if kind == "bursts":
        while t < seconds:
            end = min(t + on, seconds)
            while t < end:
                yield t
                t += gap
            t = end + rnd.expovariate(1 / off)
        return
    while t < seconds:
        if kind == "onoff" and (t % (on + off)) >= on:
            t = (t // (on + off) + 1) * (on + off)
            continue
        yield t
        t += rnd.expovariate(1 / gap) if kind == "poisson" else gap


def send(dst, port, kind, rate_bps, size, seconds, on=1.0, off=1.0, seed=1):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    payload = bytes(size)
    start = time.monotonic()
    n = 0
    for t in departures(kind, rate_bps, size, seconds, on, off, seed):
        delay = start + t - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        try:
            s.sendto(payload, (dst, port))
            n += 1
        except OSError:
            pass    # ENOBUFS from a full local queue counts as a loss
    print(json.dumps({"sent_packets": n, "sent_bytes": n * size}))


def sink(port, deadline, out, step=0.1):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    s.bind(("0.0.0.0", port))
    s.settimeout(step)
    total = pkts = 0
    now = time.monotonic()
    series = [(now, 0)]
    next_t = now + step
    while now < deadline:
        try:
            data = s.recv(65536)
            total += len(data)
            pkts += 1
        except socket.timeout:
            pass
        now = time.monotonic()
        if now >= next_t:
            series.append((now, total))
            next_t = now + step
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"bytes": total, "packets": pkts, "series": series}, f)


def main(argv):
    if len(argv) >= 7 and argv[0] == "send":
        extra = [float(x) for x in argv[7:9]]
        send(argv[1], int(argv[2]), argv[3], float(argv[4]), int(argv[5]),
             float(argv[6]), *extra)
        return 0
    if len(argv) == 4 and argv[0] == "sink":
        sink(int(argv[1]), float(argv[2]), argv[3])
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
