#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Traffic for the sch_hbh selftests that iperf3 cannot make.

  hbh_frames.py fuzz DEV COUNT SADDR DADDR SPORT DPORT
      COUNT bad feedback frames on DEV (Ethertype 0x88B5, broadcast): random
      bytes, bad magic/version/type, counts that disagree with the length,
      truncated and oversized frames, entries with bad families or non-zero
      reserved fields, and well-formed frames naming flows nobody carries.
      SADDR.. name a live flow, used inside the malformed frames.
      HBH_ETHERTYPE=0x88B6 sends the same frames with a type nobody takes
      (the cost of the traffic alone, for comparison).  The frames are
      drawn afresh each run from HBH_FUZZ_SEED (default: a random seed);
      the same seed sends the same frames again.  Prints "<malformed
      frames> <well-formed frames naming unknown flows> <distinct frames
      among those sent> <seed>".
  hbh_frames.py absurd DEV COUNT SADDR DADDR SPORT DPORT
      COUNT well-formed reports for one flow with random counters, times
      and origins: whatever they say, the rate stays within its bounds.
  hbh_frames.py report DEV COUNT SADDR DADDR SPORT DPORT
      COUNT well-formed reports naming one flow (spoofed feedback).
  hbh_frames.py flows DADDR NFLOWS ROUNDS [PAYLOAD]
      UDP datagrams of PAYLOAD bytes (default 64) to DADDR:9 from NFLOWS
      source ports (raw socket, one socket for all), ROUNDS passes over the
      ports.
  hbh_frames.py blast DEV SECONDS PPS LEN
      Frames of Ethertype 0x88B5 and LEN bytes (a well-formed header, then
      zeros) from a raw AF_PACKET socket, PPS per second for SECONDS: a
      local user pushing "feedback" through the qdisc.  Prints frames sent
      and frames the stack refused.
  hbh_frames.py capture DEV SECONDS FILE
      Every frame of the feedback Ethertype DEV receives in SECONDS, to
      FILE (one hex frame a line).  Prints how many.
  hbh_frames.py replay DEV FILE
      Sends FILE's frames again on DEV, as they were.  Prints how many.
  HBH_KEY=HEX (32 or 64 hex digits) makes "report" and "absurd" send keyed
  reports under that key, with a counter from HBH_COUNTER (default
  "now": the time of day's seconds << 32, as the module counts) from the sender
  HBH_NODE (default 0xdead): what a neighbour holding the key sends.
  HBH_SRC=MAC sets the frames' source address (default 02:00:00:00:00:01).
  HBH_SPREAD=SECONDS spreads "report"'s frames evenly over SECONDS.
  hbh_frames.py spoof DADDR NFLOWS SECONDS
      One small UDP datagram every 100 ms from each of NFLOWS source ports
      to DADDR:9 for SECONDS (each a flow of its own downstream: the
      report amplification pattern).  Prints datagrams sent.
"""
import hashlib
import time
import os
import random
import socket
import struct
import sys

ETH_P = int(os.environ.get("HBH_ETHERTYPE", "0x88B5"), 0)
MAGIC = 0x4842
HDR = struct.Struct("!HBBHHIIQ")            # 24 bytes
ENTRY = struct.Struct("!16s16sHHBBHIIIIQQ")  # 72 bytes


def entry(saddr, daddr, sport, dport, proto=17, family=4, reserved=0,
          q=5, qb=7500, sp=30000, origin=1, arr=1000, dep=900):
    def a(x):
        return socket.inet_aton(x) + bytes(12) if family == 4 else bytes(16)
    return ENTRY.pack(a(saddr), a(daddr), sport, dport, proto, family,
                      reserved, q, qb, sp, origin, arr, dep)


NODE = int(os.environ.get("HBH_NODE", "0xdead"), 0)


def frame(entries, count=None, magic=MAGIC, version=1, typ=1, reserved=0,
          seq=0, t=0):
    n = len(entries) if count is None else count
    return HDR.pack(magic, version, typ, n, reserved, NODE, seq, t) + b"".join(entries)


KEY = bytes.fromhex(os.environ["HBH_KEY"]) if os.environ.get("HBH_KEY") else None
_ctr = os.environ.get("HBH_COUNTER", "now")
# the module's counters: seconds of the time of day << 32, plus a frame number
COUNTER = [int(time.time()) << 32 if _ctr == "now" else int(_ctr, 0)]
SRC = bytes.fromhex(os.environ.get("HBH_SRC", "02:00:00:00:00:01").replace(":", ""))


def eth(payload):
    """A broadcast frame; keyed under HBH_KEY if set (the header's type
    becomes 2 and the trailer, counter and tag, is appended)."""
    head = b"\xff" * 6 + SRC + struct.pack("!H", ETH_P)
    if KEY is not None and len(payload) >= HDR.size:
        payload = payload[:3] + b"\x02" + payload[4:] + struct.pack("!Q", COUNTER[0])
        COUNTER[0] += 1
        payload += hashlib.blake2s(head + payload, key=KEY, digest_size=16).digest()
    return head + payload


def fuzz_seed():
    s = os.environ.get("HBH_FUZZ_SEED", "")
    return int(s, 0) if s else int.from_bytes(os.urandom(4), "little")


def fuzz(sock, count, flow, seed):
    """Draws 2000 frames from SEED, 200 of each kind, and sends them in
    turn until COUNT are out (building each anew is too slow under TCG);
    a truncation or a random header can repeat, so a few are equal."""
    rnd = random.Random(seed)
    ok_entry = entry(*flow)
    frames = []
    for i in range(2000):
        k = i % 10
        # the header's sequence number and time: nothing checks them
        # before a frame is rejected, but they make each frame its own
        hd = {"seq": rnd.getrandbits(32), "t": rnd.getrandbits(64)}
        if k == 0:      # random bytes
            p = rnd.randbytes(rnd.randrange(0, 1400))
        elif k == 1:    # bad magic, version, type or reserved
            p = frame([ok_entry], **rnd.choice([{"magic": 0x1234}, {"version": 9},
                                                {"typ": 0}, {"reserved": 1}]), **hd)
        elif k == 2:    # count larger than the frame
            p = frame([ok_entry], count=rnd.randrange(2, 65536), **hd)
        elif k == 3:    # count smaller than the frame, or zero
            p = frame([ok_entry, ok_entry], count=rnd.choice([0, 1]), **hd)
        elif k == 4:    # truncated inside the header or an entry
            p = frame([ok_entry], **hd)[:rnd.randrange(0, HDR.size + ENTRY.size)]
        elif k == 5:    # oversized: more entries than any frame may carry
            p = frame([ok_entry] * 19, count=300, **hd)
        elif k == 6:    # bad entries: family, reserved, IPv4 padding, setpoint 0
            e = rnd.choice([entry(*flow, family=9), entry(*flow, reserved=7),
                            entry(*flow, sp=0),
                            ok_entry[:20] + b"\1" + ok_entry[21:]])
            p = frame([e], **hd)
        else:           # well-formed, flows nobody carries
            p = frame([entry("192.0.2.%d" % rnd.randrange(1, 255), "198.51.100.1",
                             rnd.randrange(1, 65536), 9) for _ in range(rnd.randrange(1, 19))],
                      seq=i, t=rnd.getrandbits(64))
        frames.append((k < 7, eth(p)))
    kinds = os.environ.get("HBH_KINDS")
    if kinds:
        frames = [frames[i] for i in range(2000) if str(i % 10) in kinds]
    bad = unknown = 0
    send = sock.send
    for i in range(count):
        malformed, f = frames[i % len(frames)]
        send(f)
        if malformed:
            bad += 1
        else:
            unknown += 1
    distinct = len(set(f for _, f in frames[:count]))
    print(bad, unknown, distinct, seed)


def absurd(sock, count, flow):
    rnd = random.Random(2)
    for i in range(count):
        sock.send(eth(frame([entry(*flow, q=rnd.getrandbits(32), qb=rnd.getrandbits(32),
                                   sp=rnd.getrandbits(32) | 1, origin=rnd.getrandbits(2),
                                   arr=rnd.getrandbits(64), dep=rnd.getrandbits(64))],
                            seq=i, t=rnd.getrandbits(64))))
    print(count)


def report(sock, count, flow):
    spread = float(os.environ.get("HBH_SPREAD", "0") or 0)
    t0 = time.monotonic()
    for i in range(count):
        sock.send(eth(frame([entry(*flow, q=1000, qb=1500000, origin=7,
                                   arr=10 ** 9 + i, dep=i * 1500)],
                            seq=i, t=(i + 1) * 4000000)))
        if spread > 0:
            ahead = t0 + (i + 1) * spread / count - time.monotonic()
            if ahead > 0:
                time.sleep(ahead)
    print(count)


def flows(daddr, nflows, rounds, size=64):
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP)
    payload = bytes(size)
    sent = 0
    for _ in range(rounds):
        for p in range(nflows):
            sport = 10000 + p
            udp = struct.pack("!HHHH", sport, 9, 8 + len(payload), 0) + payload
            try:
                s.sendto(udp, (daddr, 0))
                sent += 1
            except OSError:
                pass
    print(sent)


def blast(dev, secs, pps, length):
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    sock.bind((dev, 0))
    f = eth(frame([], count=1)) + bytes(max(0, length - 14 - HDR.size))
    sent = refused = 0
    t0 = time.monotonic()
    batch = max(1, pps // 100)
    while True:
        now = time.monotonic() - t0
        if now >= secs:
            break
        for _ in range(batch):
            try:
                sock.send(f)
                sent += 1
            except OSError:
                refused += 1
        ahead = (sent + refused) / pps - (time.monotonic() - t0)
        if ahead > 0:
            time.sleep(ahead)
    print(sent, refused)


def spoof(daddr, nflows, secs):
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP)
    payload = bytes(32)
    sent = 0
    t0 = time.monotonic()
    rnd = 0
    while time.monotonic() - t0 < secs:
        for p in range(nflows):
            udp = struct.pack("!HHHH", 20000 + p, 9, 8 + len(payload), 0) + payload
            try:
                s.sendto(udp, (daddr, 0))
                sent += 1
            except OSError:
                pass
        rnd += 1
        ahead = rnd * 0.1 - (time.monotonic() - t0)
        if ahead > 0:
            time.sleep(ahead)
    print(sent)


def capture(dev, secs, path):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P))
    s.setsockopt(socket.SOL_SOCKET, 33, 16 << 20)	# SO_RCVBUFFORCE
    s.bind((dev, ETH_P))
    s.settimeout(0.1)
    end = time.monotonic() + secs
    n = 0
    with open(path, "w") as f:
        while time.monotonic() < end:
            try:
                fr, addr = s.recvfrom(4096)
            except socket.timeout:
                continue
            if addr[2] == socket.PACKET_OUTGOING:
                continue
            f.write(fr.hex() + "\n")
            n += 1
    print(n)


def replay(dev, path):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((dev, 0))
    n = 0
    with open(path) as f:
        for line in f:
            s.send(bytes.fromhex(line.strip()))
            n += 1
    print(n)


def main():
    cmd = sys.argv[1]
    if cmd == "capture":
        capture(sys.argv[2], float(sys.argv[3]), sys.argv[4])
        return
    if cmd == "replay":
        replay(sys.argv[2], sys.argv[3])
        return
    if cmd == "flows":
        flows(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]),
              int(sys.argv[5]) if len(sys.argv) > 5 else 64)
        return
    if cmd == "blast":
        blast(sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
        return
    if cmd == "spoof":
        spoof(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
        return
    dev, count = sys.argv[2], int(sys.argv[3])
    flow = (sys.argv[4], sys.argv[5], int(sys.argv[6]), int(sys.argv[7]))
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    sock.bind((dev, 0))
    if cmd == "fuzz":
        fuzz(sock, count, flow, fuzz_seed())
    elif cmd == "absurd":
        absurd(sock, count, flow)
    elif cmd == "report":
        report(sock, count, flow)
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
