#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Gaps between arriving full-size TCP packets on one interface.

  arrival_gaps.py DEV SECONDS SHORT_US      (run inside the namespace)
Prints "<gaps> <short>": how many gaps between consecutive incoming TCP
packets of at least 1000 bytes were seen in SECONDS, and how many of them
were shorter than SHORT_US microseconds.  Kernel receive timestamps
(SO_TIMESTAMPNS), so a slow guest does not blur them.
"""
import select
import socket
import struct
import sys
import time

ETH_P_IP = 0x0800
SO_TIMESTAMPNS = 35
PACKET_OUTGOING = 4


def main():
    dev, secs, short_us = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
    s = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(ETH_P_IP))
    s.bind((dev, ETH_P_IP))
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    end = time.monotonic() + secs
    last = None
    gaps = short = 0
    while True:
        left = end - time.monotonic()
        if left <= 0:
            break
        if not select.select([s], [], [], left)[0]:
            continue
        data, anc, _, addr = s.recvmsg(128, socket.CMSG_SPACE(16))
        if addr[2] == PACKET_OUTGOING or len(data) < 20 or data[9] != socket.IPPROTO_TCP:
            continue
        if struct.unpack("!H", data[2:4])[0] < 1000:
            continue
        ts = None
        for level, kind, val in anc:
            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                sec, nsec = struct.unpack("qq", val[:16])
                ts = sec * 1e9 + nsec
        if ts is None:
            continue
        if last is not None:
            gaps += 1
            if ts - last < short_us * 1000:
                short += 1
        last = ts
    print(gaps, short)


if __name__ == "__main__":
    main()
