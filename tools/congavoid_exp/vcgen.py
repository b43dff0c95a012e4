# SPDX-License-Identifier: GPL-2.0
"""Window-limited Poisson virtual channels (Lam & Lien's traffic model).

Each virtual channel (VC) has a Poisson source of rate lambda packets/s
and an end-to-end window W: a new packet is sent only while fewer than W
of the VC's packets are outstanding; otherwise it is rejected at once
(the paper's "lost at once").  The sink acknowledges each packet with zero
delay (the paper's model): one process holds both ends, so the
acknowledgement is the sink's receive itself.

The sources send from the source node's router namespace, so the router
qdisc sees them as locally originated, i.e. input, packets.  A packet the
entry router refuses (input buffer limit or a full pool) makes the send
fail with ENOBUFS (IP_RECVERR), so it is lost at once too and holds no
window slot, as in the paper.  A packet dropped further on (Linux routers
drop; the paper's nodes hold) holds its slot until the VC's timeout, an
RTO computed as TCP does (Jacobson: srtt + 4 rttvar from the VC's own
delays, at least 200 ms; `timeout` before the first delay is measured).

  python3 -m congavoid_exp.vcgen CONFIG.json OUT.json

CONFIG: {"t0": monotonic start, "duration", "drain", "window": [w0, w1]
(measurement interval, seconds from t0), "timeout", "size", "port",
"seed", "sources": {ns: [vc ids]}, "sinks": [ns], "vcs": [{"id", "dst",
"window", "lam"}]}."""

import errno
import heapq
import json
import os
import random
import select
import socket
import struct
import sys
import time

from . import netlink
from .metrics import percentile

IP_RECVERR = 11
SO_SNDBUFFORCE, SO_RCVBUFFORCE = 32, 33
HDR = struct.Struct("!HId")     # vc, seq, send time


MIN_RTO = 0.2


class Channels:
    """The VCs' window bookkeeping and counters, without sockets."""

    def __init__(self, vcs, timeout, w0, w1):
        self.win = {v["id"]: v["window"] for v in vcs}
        self.timeout, self.w0, self.w1 = timeout, w0, w1
        self.srtt = dict.fromkeys(self.win)
        self.rttvar = dict.fromkeys(self.win, 0.0)
        self.out = {v: {} for v in self.win}     # seq -> send time
        self.next_seq = dict.fromkeys(self.win, 0)
        self.done = {v: set() for v in self.win}  # delivered or freed seqs
        keys = ("offered", "admitted", "rejected", "refused", "errors",
                "delivered", "arrived", "late", "timed_out", "duplicates",
                "refused_all", "errors_all")
        self.c = {v: dict.fromkeys(keys, 0) for v in self.win}
        # sequence numbers admitted inside the measurement window: "arrived"
        # counts those delivered at any time, so 1 - arrived / admitted is
        # the loss of the same packets
        self.counted = {v: set() for v in self.win}
        self.delays = []
        self.bins = {}          # whole second -> packets delivered

    def _in(self, t):
        return self.w0 <= t < self.w1

    def rto(self, vc):
        """The VC's retransmission timeout (RFC 6298 without backoff)."""
        if self.srtt[vc] is None:
            return self.timeout
        return max(MIN_RTO, self.srtt[vc] + 4 * self.rttvar[vc])

    def _sample(self, vc, d):
        if self.srtt[vc] is None:
            self.srtt[vc], self.rttvar[vc] = d, d / 2
            return
        self.rttvar[vc] += (abs(self.srtt[vc] - d) - self.rttvar[vc]) / 4
        self.srtt[vc] += (d - self.srtt[vc]) / 8

    def expire(self, vc, now):
        """Free the slots of packets outstanding longer than the RTO."""
        out = self.out[vc]
        rto = self.rto(vc)
        while out:
            seq, ts = next(iter(out.items()))
            if now - ts < rto:
                break
            del out[seq]
            self.c[vc]["timed_out"] += 1

    def arrival(self, vc, t):
        """A packet arrives at the source at t: its sequence number if the
        window has room (the caller sends it), else None (rejected)."""
        self.expire(vc, t)
        counted = self._in(t)
        if counted:
            self.c[vc]["offered"] += 1
        if len(self.out[vc]) >= self.win[vc]:
            if counted:
                self.c[vc]["rejected"] += 1
            return None
        seq = self.next_seq[vc]
        self.next_seq[vc] += 1
        self.out[vc][seq] = t
        return seq

    def sent(self, vc, seq, t, err=0):
        """The send of (vc, seq) returned err (0 = accepted)."""
        counted = self._in(t)
        if err == 0:
            if counted:
                self.c[vc]["admitted"] += 1
                self.counted[vc].add(seq)
            return
        del self.out[vc][seq]
        self.done[vc].add(seq)
        kind = "refused" if err == errno.ENOBUFS else "errors"
        self.c[vc][kind + "_all"] += 1
        if counted:
            self.c[vc][kind] += 1

    def delivered(self, vc, seq, t_send, t_recv):
        if vc not in self.win or seq >= self.next_seq[vc]:
            return
        if seq in self.done[vc]:
            self.c[vc]["duplicates"] += 1
            return
        self.done[vc].add(seq)
        if self.out[vc].pop(seq, None) is None:
            self.c[vc]["late"] += 1       # its slot had timed out
        self._sample(vc, t_recv - t_send)
        if seq in self.counted[vc]:
            self.c[vc]["arrived"] += 1
        if self._in(t_recv):
            self.c[vc]["delivered"] += 1
            self.delays.append(t_recv - t_send)
        b = int(t_recv)
        self.bins[b] = self.bins.get(b, 0) + 1

    def summary(self):
        span = self.w1 - self.w0
        tot = {k: sum(c[k] for c in self.c.values())
               for k in next(iter(self.c.values()))}
        per_vc = [self.c[v]["delivered"] / span for v in sorted(self.c)]
        m = sum(per_vc) / len(per_vc)
        sd = (sum((x - m) ** 2 for x in per_vc) / len(per_vc)) ** 0.5
        d = sorted(self.delays)
        return {
            "totals": tot,
            "offered_pps": tot["offered"] / span,
            "admitted_pps": tot["admitted"] / span,
            "delivered_pps": tot["delivered"] / span,
            "vc_delivered_pps": per_vc,
            "vc_cov": sd / m if m > 0 else None,
            "delay_mean_ms": 1e3 * sum(d) / len(d) if d else None,
            "delay_p50_ms": _pct(d, 0.50),
            "delay_p95_ms": _pct(d, 0.95),
            "delay_p99_ms": _pct(d, 0.99),
            "in_flight_end": sum(len(o) for o in self.out.values()),
            "series": sorted(self.bins.items()),
        }


def _pct(d, q):
    """The q-quantile of the delays d (s), in ms (metrics.percentile:
    linear interpolation, as the dumbbell's figures); None for none."""
    return 1e3 * percentile(d, 100 * q) if d else None


def _udp_socket_in(ns):
    own = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    try:
        target = os.open(f"/run/netns/{ns}", os.O_RDONLY)
    except OSError:
        os.close(own)
        raise
    try:
        netlink._setns(target)
        try:
            return socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        finally:
            netlink._setns(own)
    finally:
        os.close(own)
        os.close(target)


def run(cfg):
    t0 = cfg["t0"]
    vcs = {v["id"]: v for v in cfg["vcs"]}
    ch = Channels(cfg["vcs"], cfg["timeout"], *cfg["window"])
    size = max(cfg["size"], HDR.size)
    pad = bytes(size - HDR.size)
    tx = {}
    for ns, ids in cfg["sources"].items():
        s = _udp_socket_in(ns)
        s.setsockopt(socket.SOL_IP, IP_RECVERR, 1)
        s.setsockopt(socket.SOL_SOCKET, SO_SNDBUFFORCE, 1 << 24)
        s.setblocking(False)
        for v in ids:
            tx[v] = s
    rx = []
    for ns in cfg["sinks"]:
        s = _udp_socket_in(ns)
        s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 1 << 24)
        s.bind(("0.0.0.0", cfg["port"]))
        s.setblocking(False)
        rx.append(s)
    rnd = random.Random(cfg.get("seed", 1))
    heap = [(rnd.expovariate(v["lam"]), v["id"]) for v in cfg["vcs"]]
    heapq.heapify(heap)
    end = cfg["duration"]
    stop = end + cfg["drain"]
    # a slow start-up (an emulated VM) shifts the run rather than sending
    # the missed arrivals in a burst
    t0 = max(t0, time.monotonic())
    time.sleep(max(0.0, t0 - time.monotonic()))
    while True:
        now = time.monotonic() - t0
        if now >= stop:
            break
        while heap and heap[0][0] <= min(now, end):
            t, v = heapq.heappop(heap)
            heapq.heappush(heap, (t + rnd.expovariate(vcs[v]["lam"]), v))
            seq = ch.arrival(v, t)
            if seq is None:
                continue
            err = 0
            try:
                tx[v].sendto(HDR.pack(v, seq, time.monotonic() - t0) + pad,
                             (vcs[v]["dst"], cfg["port"]))
            except OSError as e:
                err = e.errno or -1
                if err != errno.ENOBUFS:
                    _clear_error(tx[v])
            ch.sent(v, seq, t, err)
        nxt = heap[0][0] if heap and heap[0][0] < end else stop
        r, _, _ = select.select(rx, [], [], max(0.0, nxt - now))
        for s in r:
            while True:
                try:
                    data = s.recv(65536)
                except BlockingIOError:
                    break
                if len(data) < HDR.size:
                    continue
                v, seq, ts = HDR.unpack_from(data)
                ch.delivered(v, seq, ts, time.monotonic() - t0)
    for s in set(tx.values()) | set(rx):
        s.close()
    res = ch.summary()
    res["t0"] = t0
    return res


def _clear_error(s):
    """Read one queued error (an ICMP message with IP_RECVERR) so that it
    is not reported again."""
    try:
        s.recvmsg(1, 512, socket.MSG_ERRQUEUE)
    except OSError:
        pass


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[0], encoding="utf-8") as f:
        cfg = json.load(f)
    res = run(cfg)
    with open(argv[1], "w", encoding="utf-8") as f:
        json.dump(res, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
