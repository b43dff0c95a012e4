#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Live TCP connections whose congestion control changes under them.

  stress_tcp.py sink PORT SECONDS
      Accept connections on PORT and read everything for SECONDS.
  stress_tcp.py switch DST PORT CONNS SECONDS ALG[,ALG...]
      CONNS connections to DST:PORT, each written by a thread of its own;
      the main thread sets TCP_CONGESTION on a random connection to a
      random ALG every 5 ms, for SECONDS.  Prints "switches=N refused=N
      bytes=N min_conn_bytes=N" (refused: setsockopt errors, e.g. a module
      that is being unloaded).
"""
import random
import socket
import sys
import threading
import time


def sink(port, secs):
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("0.0.0.0", port))
    srv.listen(64)
    srv.settimeout(0.5)
    end = time.monotonic() + secs

    def reader(c):
        c.settimeout(1)
        while time.monotonic() < end:
            try:
                if not c.recv(65536):
                    break
            except socket.timeout:
                continue
            except OSError:
                break
        c.close()

    while time.monotonic() < end:
        try:
            c, _ = srv.accept()
        except socket.timeout:
            continue
        threading.Thread(target=reader, args=(c,), daemon=True).start()
    return 0


def switch(dst, port, conns, secs, algs):
    end = time.monotonic() + secs
    socks, sent = [], []
    for _ in range(conns):
        s = socket.create_connection((dst, port), timeout=5)
        s.settimeout(1)
        socks.append(s)
        sent.append(0)
    buf = b"x" * 8192

    def writer(i):
        # about 3 Mbit/s each: busy connections, not a CPU-bound guest
        while time.monotonic() < end:
            time.sleep(0.02)
            try:
                sent[i] += socks[i].send(buf)
            except socket.timeout:
                continue
            except OSError:
                break

    threads = [threading.Thread(target=writer, args=(i,), daemon=True) for i in range(conns)]
    for t in threads:
        t.start()
    switches = refused = 0
    while time.monotonic() < end:
        s = random.choice(socks)
        try:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION,
                         random.choice(algs).encode())
            switches += 1
        except OSError:
            refused += 1
        time.sleep(0.005)
    for t in threads:
        t.join(5)
    for s in socks:
        s.close()
    print(f"switches={switches} refused={refused} bytes={sum(sent)} "
          f"min_conn_bytes={min(sent)}")
    return 0


def main():
    if sys.argv[1] == "sink":
        return sink(int(sys.argv[2]), float(sys.argv[3]))
    if sys.argv[1] == "switch":
        return switch(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]),
                      float(sys.argv[5]), sys.argv[6].split(","))
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
