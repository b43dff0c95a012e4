#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What a TCP sender sends in the first round trip after an idle spell.

  idle_burst.py sink PORT                      (in the receiver's namespace)
  idle_burst.py send CC DADDR PORT DEV BULK IDLE RTT_MS   (in the sender's)

The sender connects with congestion control CC, writes as fast as the
socket takes data for BULK seconds, waits until everything is
acknowledged, stays idle for IDLE seconds and writes again.  A packet
socket on DEV (kernel timestamps) sees its outgoing data packets; t0 is
the first one after the pause.  Prints one line:

  "cwnd_before W segs_first_rtt N segs_after M idle_s I"

W: the window before the pause (TCP_INFO); N: data segments (payload
over the MSS, rounded up: a GSO packet counts its segments) sent in
[t0, t0 + 0.9 RTT_MS), before any ACK of the restart can have come back
and clocked more out; M: in the 2 s after t0 (the flow is still sending);
I: the idle spell measured (last data packet before the pause to t0).
Exit status 1 if no packet was seen after the pause.
"""
import fcntl
import select
import socket
import struct
import sys
import threading
import time

ETH_P_ALL, ETH_P_IP = 0x0003, 0x0800
SO_TIMESTAMPNS = 35
PACKET_OUTGOING = 4
TCP_CONGESTION = 13
TCP_INFO = 11
SIOCOUTQ = 0x5411
CHUNK = bytes(65536)


def sink(port):
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("", port))
    ls.listen(1)
    c, _ = ls.accept()
    while c.recv(1 << 20):
        pass


def outq(s):
    return struct.unpack("i", fcntl.ioctl(s.fileno(), SIOCOUTQ, b"\0" * 4))[0]


def capture(dev, sport, stop, out):
    """(timestamp, payload bytes) of each outgoing data packet of sport
    (a socket of one protocol sees only what arrives: ETH_P_ALL)"""
    p = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(ETH_P_ALL))
    p.bind((dev, ETH_P_ALL))
    p.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    p.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 24)
    out.append(None)        # the capture is open
    while not stop.is_set():
        r, _, _ = select.select([p], [], [], 0.1)
        if not r:
            continue
        data, anc, _, addr = p.recvmsg(256, socket.CMSG_SPACE(16))
        if addr[1] != ETH_P_IP or addr[2] != PACKET_OUTGOING or len(data) < 40 or \
                data[9] != 6:
            continue
        ihl = (data[0] & 15) * 4
        tot = struct.unpack("!H", data[2:4])[0]
        if struct.unpack("!H", data[ihl:ihl + 2])[0] != sport:
            continue
        payload = tot - ihl - (data[ihl + 12] >> 4) * 4
        if payload <= 0:
            continue
        ts = None
        for lvl, typ, val in anc:
            if lvl == socket.SOL_SOCKET and typ == SO_TIMESTAMPNS:
                sec, nsec = struct.unpack("qq", val[:16])
                ts = sec + nsec / 1e9
        out.append((ts, payload))


def send(cc, daddr, port, dev, bulk, idle, rtt_ms):
    s = socket.socket()
    s.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, cc.encode())
    s.connect((daddr, port))
    mss = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG)
    stop, pkts = threading.Event(), []
    t = threading.Thread(target=capture, args=(dev, s.getsockname()[1], stop, pkts))
    t.start()
    while not pkts:
        time.sleep(0.01)
    end = time.monotonic() + bulk
    while time.monotonic() < end:
        s.send(CHUNK)
    deadline = time.monotonic() + 10
    while outq(s) and time.monotonic() < deadline:
        time.sleep(0.01)
    info = s.getsockopt(socket.IPPROTO_TCP, TCP_INFO, 104)
    cwnd = struct.unpack("I", info[80:84])[0]     # tcpi_snd_cwnd
    time.sleep(idle)
    # the packets are split at the restart by their own timestamps
    # (CLOCK_REALTIME, as time.time()): the capture thread may still hold
    # packets of the bulk phase when the pause ends (a slow guest's
    # Python), and a split by count put them after the pause (idle_s
    # 0.002 in a 6.12 guest, 2026-12-07)
    resume = time.time()
    writer = threading.Thread(target=lambda: [s.send(CHUNK) for _ in range(64)])
    writer.start()
    time.sleep(2 + rtt_ms / 1000)
    stop.set()
    t.join()
    writer.join(timeout=30)
    seen = [p for p in pkts[1:] if p[0] is not None]
    last = [p for p in seen if p[0] < resume]
    after = [p for p in seen if p[0] >= resume]
    if not after or not last:
        print(f"cwnd_before {cwnd} segs_first_rtt null segs_after null idle_s null")
        return 1
    t0 = after[0][0]
    segs = lambda ps: sum((n + mss - 1) // mss for _, n in ps)
    first = segs(p for p in after if p[0] < t0 + 0.9 * rtt_ms / 1000)
    later = segs(p for p in after if p[0] < t0 + 2)
    print(f"cwnd_before {cwnd} segs_first_rtt {first} segs_after {later} "
          f"idle_s {t0 - last[-1][0]:.3f}")
    return 0


def main():
    if sys.argv[1] == "sink":
        sink(int(sys.argv[2]))
        return 0
    cc, daddr, port, dev, bulk, idle, rtt = sys.argv[2:9]
    return send(cc, daddr, int(port), dev, float(bulk), float(idle), float(rtt))


if __name__ == "__main__":
    sys.exit(main())
