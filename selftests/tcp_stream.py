#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Bulk TCP flows whose receivers time the recovery after a path outage.
One process (a thread per flow) for any number of flows: under TCG each
python start costs seconds.

  tcp_stream.py source CC:SADDR:SPORT:DADDR:DPORT:W ...
      One flow per argument, with congestion control CC set before
      connect() (so that a CC that needs ECN asks for it in the SYN),
      writing until it is killed or the receiver goes away.  W > 0: at
      most W full segments written and not yet acknowledged (SIOCOUTQ),
      which holds every CC to the same W packets in flight (cwnd stops
      at about 2 W: slow start grows it only up to twice what is in
      flight); 0: as fast as the socket takes it.
  tcp_stream.py sink BYTES DEADLINE PORT:MARK ...
      Accept one connection on each PORT and read it.  MARK.1,
      MARK.2, ... are written by blackhole.py when the flow's path comes
      back (a time.monotonic() value each); for each one, print "PORT K
      SECONDS": the time from that moment until BYTES more bytes had been
      read on that connection ("inf" if they were not within DEADLINE
      seconds, or before the connection closed).  A flow ends when its
      connection closes.
"""
import fcntl
import socket
import struct
import sys
import threading
import time

TCP_CONGESTION = 13
SIOCOUTQ = 0x5411
MSS = 1448
out_lock = threading.Lock()


def connect(cc, saddr, sport, daddr, dport):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, cc.encode())
    s.bind((saddr, sport))
    for _ in range(300):        # the receiver may still be starting
        try:
            s.connect((daddr, dport))
            return s
        except ConnectionRefusedError:
            time.sleep(0.1)
    raise ConnectionRefusedError(f"{daddr}:{dport}")


def source(spec):
    cc, saddr, sport, daddr, dport, w = spec.split(":")
    s = connect(cc, saddr, int(sport), daddr, int(dport))
    limit = int(w) * MSS
    buf = bytes(1 << 16)
    outq = bytearray(4)
    try:
        while not limit:
            s.send(buf)
        while True:
            fcntl.ioctl(s, SIOCOUTQ, outq)
            room = limit - struct.unpack("i", outq)[0]
            if room >= MSS:
                s.send(buf[:room - room % MSS])
            else:
                time.sleep(0.01)   # (a poll every 2 ms costs a TCG guest)
    except OSError:
        pass
    s.close()


def say(*a):
    with out_lock:
        print(*a, flush=True)


def sink(ls, port, mark, nbytes, deadline):
    c, _ = ls.accept()
    # wake up for 8 KB at a time, not for every segment
    c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVLOWAT, 8192)
    c.settimeout(0.2)
    total = 0
    hist = []           # (time, bytes read so far), one per read
    k, t_mark, goal = 1, None, None
    next_check = 0.0
    while True:
        try:
            n = len(c.recv(1 << 16))
        except socket.timeout:
            n = -1
        except OSError:
            n = 0
        now = time.monotonic()
        if not n:
            break
        if n > 0:
            total += n
            hist.append((now, total))
        if t_mark is None and now >= next_check:
            next_check = now + 0.01
            try:
                with open(f"{mark}.{k}") as f:
                    t_mark = float(f.read())
            except (OSError, ValueError):
                t_mark = None
            if t_mark is not None:
                # what had been read when the path came back
                base = 0
                for t, b in hist:
                    if t > t_mark:
                        break
                    base = b
                goal = base + nbytes
                hist = [(now, total)]
        if t_mark is not None and (total >= goal or now - t_mark > deadline):
            say(port, k, f"{now - t_mark:.3f}" if total >= goal else "inf")
            k, t_mark = k + 1, None
    if t_mark is not None:
        say(port, k, "inf")


def main():
    mode, a = sys.argv[1], sys.argv[2:]
    threads = []
    if mode == "source":
        threads = [threading.Thread(target=source, args=(spec,)) for spec in a]
    elif mode == "sink":
        nbytes, deadline = int(a[0]), float(a[1])
        for spec in a[2:]:
            port, mark = spec.split(":", 1)
            ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            ls.bind(("0.0.0.0", int(port)))
            ls.listen(1)
            threads.append(threading.Thread(target=sink,
                                            args=(ls, port, mark, nbytes, deadline)))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return 0


if __name__ == "__main__":
    sys.exit(main())
