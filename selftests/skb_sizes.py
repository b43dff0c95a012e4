#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""How many segments a TCP sender puts in each skb.

  skb_sizes.py sink PORT                        (in the receiver's namespace)
  skb_sizes.py send CC DADDR PORT DEV SECS SKIP (in the sender's)

The sender connects with congestion control CC (set before connect(), so
that a CC that needs ECN asks for it in the SYN) and writes as fast as the
socket takes data for SECS seconds.  A packet socket on DEV sees its
outgoing data packets as the device gets them: on a device with TSO on, a
GSO skb is one packet of up to 64 KiB.  Packets in the first SKIP seconds
are not counted.  Prints one line:

  "skbs N multi M segs S"

N: data skbs seen; M: those with more than one MSS of payload; S: their
segments (payload over the MSS, rounded up).  Exit status 1 if no data
packet was seen.
"""
import os
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from idle_burst import capture, sink  # noqa: E402  (the same capture)

TCP_CONGESTION = 13
CHUNK = bytes(65536)


def send(cc, daddr, port, dev, secs, skip):
    s = socket.socket()
    s.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, cc.encode())
    s.connect((daddr, port))
    s.settimeout(1)
    mss = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG)
    stop, pkts = threading.Event(), []
    t0 = time.monotonic()
    end = t0 + secs
    while time.monotonic() < min(t0 + skip, end):
        try:
            s.send(CHUNK)
        except socket.timeout:
            pass
    t = threading.Thread(target=capture, args=(dev, s.getsockname()[1], stop, pkts))
    t.start()
    while time.monotonic() < end:
        try:
            s.send(CHUNK)
        except socket.timeout:
            pass
    stop.set()
    t.join()
    s.close()
    sizes = [n for _, n in pkts[1:]]
    multi = sum(1 for n in sizes if n > mss)
    segs = sum((n + mss - 1) // mss for n in sizes)
    print(f"skbs {len(sizes)} multi {multi} segs {segs}")
    return 0 if sizes else 1


def main():
    if sys.argv[1] == "sink":
        sink(int(sys.argv[2]))
        return 0
    cc, daddr, port, dev, secs, skip = sys.argv[2:8]
    return send(cc, daddr, int(port), dev, float(secs), float(skip))


if __name__ == "__main__":
    sys.exit(main())
