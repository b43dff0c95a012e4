#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A hand-made TCP sender that checks the ECE echo of a receiver.

  ece_echo.py serve ADDR PORT CC SECONDS
      A listener with congestion control CC that accepts one connection
      and reads it until it ends or SECONDS pass (reading at once keeps
      the window open: no read sends a window update ACK of its own).
  ece_echo.py send IFNAME SRC DST DSTMAC PORT CYCLES
      From a device whose namespace has no address SRC (its kernel never
      answers), over AF_PACKET to DST at DSTMAC: a handshake that asks for ECN, 40
      full-sized ECT(0) segments, then CYCLES times "CE, CE, ECT(0) with
      CWR, ECT(0), ECT(0)", the second CE after the first's ACK so that
      its ACK is delayed, the CWR segment before that delayed ACK is due.
      Every ACK of the receiver is read, and what it newly covers is
      compared with its ECE bit.  Prints "key=value" words: acks, the ACKs
      covering CE segments only that lack ECE (ce_no_ece), covering ECT(0)
      segments only that carry it (ect_ece), covering both (mixed); at_cwr,
      the ACKs of CE segments sent when the CWR segment arrived (the case
      under test: one a cycle if the ACK was delayed), and ce_no_ece_cwr,
      those of them without ECE.

A receiver that echoes every CE state change (decbit, dctcp) must make
every ACK cover packets of one CE state and carry ECE iff that state is CE.
The stack handles a CWR flag before the CE state of the same segment: a
non-CE segment with CWR that arrives while the ACK of earlier CE segments
is delayed must not make that ACK leave without ECE.
"""
import random
import select
import socket
import struct
import sys
import time

ETH_P_IP = 0x0800
MSS = 1000
FIN, SYN, RST, PSH, ACK, URG, ECE, CWR = (1 << i for i in range(8))
ECT0, CE = 2, 3


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


class Sender:
    def __init__(self, ifname, src, dst, dstmac, dport):
        self.s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_IP))
        self.s.bind((ifname, 0))
        self.mac = self.s.getsockname()[4]
        self.src, self.dst = socket.inet_aton(src), socket.inet_aton(dst)
        self.sport, self.dport = random.randint(20000, 60000), dport
        self.peer_mac = bytes.fromhex(dstmac.replace(":", ""))
        self.ipid = 0

    def send(self, flags, seq, ack, payload=b"", tos=0, opts=b""):
        off = (20 + len(opts)) // 4
        tcp = struct.pack("!HHIIBBHHH", self.sport, self.dport, seq, ack,
                          off << 4, flags, 65535, 0, 0) + opts
        pseudo = self.src + self.dst + struct.pack("!BBH", 0, 6, len(tcp) + len(payload))
        c = csum(pseudo + tcp + payload)
        tcp = tcp[:16] + struct.pack("!H", c) + tcp[18:]
        self.ipid += 1
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, tos, 20 + len(tcp) + len(payload),
                         self.ipid, 0x4000, 64, 6, 0, self.src, self.dst)
        ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
        self.s.send(self.peer_mac + self.mac + struct.pack("!H", ETH_P_IP) + ip + tcp + payload)

    def recv(self, timeout):
        """The next TCP segment from the peer: (flags, seq, ack), or None."""
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0 or not select.select([self.s], [], [], left)[0]:
                return None
            frame = self.s.recv(65536)
            ip = frame[14:]
            if len(ip) < 40 or ip[9] != 6 or ip[12:16] != self.dst or ip[16:20] != self.src:
                continue
            tcp = ip[(ip[0] & 15) * 4:]
            sport, dport, seq, ack, _, flags = struct.unpack("!HHIIBB", tcp[:14])
            if sport != self.dport or dport != self.sport:
                continue
            return flags, seq, ack


def send(ifname, src, dst, dstmac, port, cycles):
    s = Sender(ifname, src, dst, dstmac, int(port))
    isn = random.randint(0, 1 << 31)
    mss = struct.pack("!BBH", 2, 4, MSS)
    for _ in range(5):
        s.send(SYN | ECE | CWR, isn, 0, opts=mss)
        r = s.recv(1.0)
        if r and r[0] & SYN:
            break
    else:
        sys.exit("no SYN-ACK")
    flags, rseq, _ = r
    if not flags & ECE:
        sys.exit("the receiver refused ECN")
    rcv = (rseq + 1) & 0xFFFFFFFF
    nxt = (isn + 1) & 0xFFFFFFFF
    s.send(ACK, nxt, rcv)
    marks = []          # (end seq, CE?, CWR?) of every segment, in order
    acks = []           # (ack, flags) of every ACK

    def seg(ce, cwr=False):
        nonlocal nxt
        s.send(ACK | (CWR if cwr else 0), nxt, rcv, bytes(MSS), tos=CE if ce else ECT0)
        nxt = (nxt + MSS) & 0xFFFFFFFF
        marks.append((nxt, ce, cwr))

    def drain(secs):
        end = time.monotonic() + secs
        while True:
            r = s.recv(max(0.0, end - time.monotonic()))
            if not r:
                return
            if r[0] & ACK:
                acks.append((r[2], r[0]))

    # warm up: past the quick ACKs of a new connection, two by two.  No
    # gap may exceed the receiver's RTO (200 ms at least): after one, it
    # ACKs every segment at once again (quick ACKs) and delays none.
    for _ in range(20):
        seg(False)
        seg(False)
        drain(0.01)
    drain(0.1)
    for _ in range(int(cycles)):
        seg(True)           # CE after ECT(0): ACKed at once, with ECE
        drain(0.01)
        seg(True)           # CE again: its ACK is delayed (>= 40 ms)
        drain(0.005)
        seg(False, True)    # ECT(0) with CWR: the delayed ACK goes first
        drain(0.05)
        seg(False)
        seg(False)
        drain(0.1)
    s.send(RST | ACK, nxt, rcv)

    def before(a, b):
        return ((a - b) & 0xFFFFFFFF) > 0x7FFFFFFF
    res = dict(acks=0, ce_no_ece=0, ect_ece=0, mixed=0, at_cwr=0, ce_no_ece_cwr=0)
    last = (isn + 1) & 0xFFFFFFFF
    for ack, flags in acks:
        if not before(last, ack):
            continue        # nothing new
        covered = [m for m in marks if not before(ack, m[0]) and before(last, m[0])]
        nxt_seg = [m for m in marks if before(ack, m[0])][:1]
        last = ack
        if not covered:
            continue
        res["acks"] += 1
        ce = {m[1] for m in covered}
        cwr_next = bool(nxt_seg and nxt_seg[0][2])
        if ce == {True} and cwr_next:
            res["at_cwr"] += 1      # the delayed ACK the CWR segment sent
        if len(ce) > 1:
            res["mixed"] += 1
        elif True in ce and not flags & ECE:
            res["ce_no_ece"] += 1
            if cwr_next:
                res["ce_no_ece_cwr"] += 1
        elif False in ce and flags & ECE:
            res["ect_ece"] += 1
    print(" ".join("%s=%d" % kv for kv in res.items()))


def serve(addr, port, cc, secs):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
    ls.bind((addr, int(port)))
    ls.listen(1)
    ls.settimeout(float(secs))
    end = time.monotonic() + float(secs)
    try:
        c, _ = ls.accept()
        while time.monotonic() < end:
            c.settimeout(max(0.01, end - time.monotonic()))
            if not c.recv(1 << 16):
                break
    except OSError:
        pass


def main():
    if sys.argv[1] == "serve":
        serve(*sys.argv[2:6])
    elif sys.argv[1] == "send":
        send(*sys.argv[2:8])
    else:
        sys.exit("unknown command " + sys.argv[1])


if __name__ == "__main__":
    main()
