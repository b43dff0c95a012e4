#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""How long the guest did not run: a 1 ms sleeper at SCHED_FIFO.

  stall_meter.py SLACK_MS          (in the background; stop it with SIGTERM)
Prints "ready" once it samples, then, on SIGTERM, one line
"<excess_ms> <max_gap_ms> <stalls> <seconds>": the sum over the gaps
between two wake-ups of what each gap exceeds SLACK_MS by, the longest
gap, how many gaps exceeded SLACK_MS, and how long it sampled.

Under TCG the guest's vCPU is a host thread: when the host runs something
else the guest's clock goes on but nothing in it runs, and every timer
fires late.  A software shaper with SLACK_MS of credit (hbh's link keeps
two periods) loses exactly the excess of each such gap: this meter
measures it from outside the qdisc, so a rate check can tell the link
time the guest offered from what the qdisc made of it.
"""
import os
import signal
import sys
import time


def main():
    slack = float(sys.argv[1]) / 1000
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(50))
    except OSError:
        pass			# a plain sleeper over-reports: looser, not tighter
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    start = last = time.monotonic()
    excess = longest = 0.0
    stalls = 0
    print("ready", flush=True)
    while not stop:
        time.sleep(0.001)
        now = time.monotonic()
        gap = now - last
        last = now
        longest = max(longest, gap)
        if gap > slack:
            excess += gap - slack
            stalls += 1
    print(f"{excess * 1000:.1f} {longest * 1000:.1f} {stalls} {last - start:.3f}",
          flush=True)


if __name__ == "__main__":
    main()
