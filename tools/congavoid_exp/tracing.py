# SPDX-License-Identifier: GPL-2.0
"""A packet-level trace of the bottleneck link over one window of a run
(tools/experiment run --trace START:SECS), and where the link's time went.

The trace is the kernel's net_dev_queue (a packet reaches the device, so
its qdisc) and net_dev_xmit (the qdisc let it go to the driver) events of
the bottleneck device, in a tracefs instance of our own, plus the DECbit
source's decisions when tcp_decbit is loaded.  breakdown() replays the
departures through an ideal link of the bottleneck's rate and splits the
window into: the link sending; idle while packets waited in the qdisc (the
qdisc let the link go idle: a late pacing timer); idle with nothing queued
(the sources sent nothing)."""

import re
from pathlib import Path

from . import metrics as M

TRACEFS = Path("/sys/kernel/tracing")
NET_EVENTS = ("net/net_dev_queue", "net/net_dev_xmit")
OPTIONAL_EVENTS = ("tcp_decbit/decbit_decision",)
_LINE = re.compile(r"\s(\d+\.\d+): (net_dev_queue|net_dev_xmit): dev=(\S+) "
                   r"skbaddr=\S+ len=(\d+)(?: rc=(-?\d+))?")


class Tracer:
    """An ftrace instance that records DEV's packets between start() and
    stop(), which writes the trace to OUT."""

    def __init__(self, dev, out, name="congavoid"):
        self.dev, self.out = dev, Path(out)
        self.inst = TRACEFS / "instances" / name

    def _w(self, rel, text):
        (self.inst / rel).write_text(text)

    def start(self):
        if self.inst.exists():
            self.inst.rmdir()
        self.inst.mkdir()
        self._w("buffer_size_kb", "16384")
        self._w("trace_clock", "mono")
        for ev in NET_EVENTS:
            self._w(f"events/{ev}/filter", f'name == "{self.dev}"')
            self._w(f"events/{ev}/enable", "1")
        for ev in OPTIONAL_EVENTS:
            if (self.inst / "events" / ev).exists():
                self._w(f"events/{ev}/enable", "1")
        self._w("tracing_on", "1")

    def stop(self):
        try:
            self._w("tracing_on", "0")
            self.out.write_text((self.inst / "trace").read_text())
        finally:
            self.inst.rmdir()


def parse(text, dev):
    """[(t seconds, "queue" | "xmit", length bytes)] of DEV's packets in a
    trace's text; transmits the driver refused (rc != 0) are left out."""
    out = []
    for m in _LINE.finditer(text):
        t, ev, d, ln, rc = m.groups()
        if d != dev or (rc is not None and int(rc) != 0):
            continue
        out.append((float(t), "queue" if ev == "net_dev_queue" else "xmit",
                    int(ln)))
    return out


def breakdown(events, rate_bps):
    """Where the link's time went over the traced window.

    EVENTS as parse() returns them; RATE_BPS the bottleneck's rate.  Each
    departure occupies an ideal link of that rate for its length (from
    when it left the qdisc, or when the link frees up).  The idle time is
    split by the qdisc's queue at that moment: "idle_queued" while packets
    waited (a late transmit), "idle_empty" while nothing was queued.
    "late_ms" are the waits of a queued packet from the moment the link
    freed up to its departure.  The queue at the window's start is not in
    the trace: it is taken as the smallest count that keeps it >= 0."""
    if not events:
        return None
    events = sorted(events, key=lambda e: e[0])
    low = run = 0
    for _, ev, _ in events:
        run += 1 if ev == "queue" else -1
        low = min(low, run)
    q = -low
    t0, t1 = events[0][0], events[-1][0]
    busy_until = t0
    send = idle_q = idle_e = 0.0
    late, late_from = [], None
    seen_q = []
    t = t0
    for te, ev, ln in events:
        gap = te - max(t, busy_until)
        if gap > 0:
            if q > 0:
                idle_q += gap
                if late_from is None:
                    late_from = max(t, busy_until)
            else:
                idle_e += gap
        t = te
        if ev == "queue":
            seen_q.append(q)
            q += 1
            continue
        q = max(0, q - 1)
        svc = ln * 8 / rate_bps
        if late_from is not None:
            late.append((te - late_from) * 1000)
            late_from = None
        start = max(te, busy_until)
        send += min(svc, max(0.0, t1 - start))
        busy_until = start + svc
    span = t1 - t0
    if span <= 0:
        return None
    svc_ms = 1514 * 8 / rate_bps * 1000
    return {
        "window_s": span,
        "packets": sum(1 for e in events if e[1] == "xmit"),
        "sending": send / span,
        "idle_queued": idle_q / span,
        "idle_empty": idle_e / span,
        "late_count": len(late),
        "late_p50_ms": M.percentile(late, 50),
        "late_p99_ms": M.percentile(late, 99),
        "late_max_ms": max(late) if late else None,
        "late_over_service": sum(1 for x in late if x > svc_ms),
        "queue_at_arrival": M.mean(seen_q),
    }


def summary(b):
    """One line of a breakdown."""
    if not b:
        return "no packets traced"

    def ms(v):
        return "–" if v is None else f"{v:.2f}"
    return (f"{b['packets']} packets in {b['window_s']:.2f} s: sending "
            f"{b['sending']:.3f}, idle with a queue {b['idle_queued']:.3f}, "
            f"idle empty {b['idle_empty']:.3f}; late transmits "
            f"{b['late_count']} (p50 {ms(b['late_p50_ms'])} ms, p99 "
            f"{ms(b['late_p99_ms'])} ms, {b['late_over_service']} over one "
            f"service time); queue at arrival {ms(b['queue_at_arrival'])}")
