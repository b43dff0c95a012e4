#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Gaps between arriving full-size TCP packets on one interface.

  arrival_gaps.py DEV SECONDS SHORT_US [AFTER]     (run inside the namespace)
Prints "# ready" once its socket is bound, then "<gaps> <short>": how many
gaps between consecutive incoming TCP packets of at least 1000 bytes were
seen in SECONDS, and how many of them were shorter than SHORT_US
microseconds.  With AFTER, the SECONDS begin AFTER seconds after the
first such packet (so a caller starts it before the flow, and a slow
start of this process cannot move its window past the flow's end);
without, at once.  Between the first packet and the window it does not
capture.  Times are the kernel's receive timestamps
(SO_TIMESTAMPNS), so a slow guest does not blur them.  It waits at most
60 s for the first packet, then prints "0 0".
"""
import select
import socket
import struct
import sys
import time

ETH_P_IP = 0x0800
SO_TIMESTAMPNS = 35
SO_RCVBUFFORCE = 33
PACKET_OUTGOING = 4
FIRST_WAIT = 60.0


def full_size_tcp(s):
    """The receive timestamp (ns) of the next incoming full-size TCP
    packet, None for any other packet."""
    data, anc, _, addr = s.recvmsg(128, socket.CMSG_SPACE(16))
    if addr[2] == PACKET_OUTGOING or len(data) < 20 or data[9] != socket.IPPROTO_TCP:
        return None
    if struct.unpack("!H", data[2:4])[0] < 1000:
        return None
    for level, kind, val in anc:
        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
            sec, nsec = struct.unpack("qq", val[:16])
            return sec * 10**9 + nsec
    return None


def capture(dev):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(ETH_P_IP))
    s.bind((dev, ETH_P_IP))
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    # room for seconds of packets while this process waits for the CPU
    # (root: past rmem_max)
    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 8 << 20)
    return s


def first_packet(s):
    """The timestamp of the first full-size TCP packet, None if none
    came within FIRST_WAIT seconds."""
    deadline = time.monotonic() + FIRST_WAIT
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        if select.select([s], [], [], left)[0]:
            ts = full_size_tcp(s)
            if ts is not None:
                return ts


def main():
    dev, secs, short_us = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
    after = float(sys.argv[4]) if len(sys.argv) > 4 else None
    s = capture(dev)
    print("# ready", flush=True)
    # the window in the kernel's time
    if after is None:
        start = time.time_ns()
    else:
        ts0 = first_packet(s)
        if ts0 is None:
            print(0, 0)
            return
        # (no capture until just before the window: a packet socket
        # costs the guest a copy of every packet)
        s.close()
        start = ts0 + int(after * 1e9)
        time.sleep(max(0.0, (start - time.time_ns()) / 1e9 - 0.5))
        s = capture(dev)
    end = start + int(secs * 1e9)
    deadline = time.monotonic() + (end - time.time_ns()) / 1e9 + 5.0
    last = None
    gaps = short = 0
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        if not select.select([s], [], [], left)[0]:
            continue
        ts = full_size_tcp(s)
        if ts is None or ts < start:
            continue
        if ts > end:
            break
        if last is not None:
            gaps += 1
            if ts - last < short_us * 1000:
                short += 1
        last = ts
    print(gaps, short)


if __name__ == "__main__":
    main()
