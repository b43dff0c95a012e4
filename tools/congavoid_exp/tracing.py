# SPDX-License-Identifier: GPL-2.0
"""A packet-level trace of the bottleneck link over one window of a run
(tools/experiment run --trace START:SECS), and where the link's time went.

The trace is the kernel's net_dev_queue (a packet reaches the device, so
its qdisc) and net_dev_xmit (the qdisc let it go to the driver) events of
the bottleneck device, in a tracefs instance of our own, plus the DECbit
source's decisions when tcp_decbit is loaded and every high-resolution
timer's start and expiry (how late the qdiscs' watchdogs, netem's and
TCP's pacing timers fire: timer_lateness()).  breakdown() replays the
departures through an ideal link of the bottleneck's rate and splits the
window into: the link sending; idle while packets waited in the qdisc (the
qdisc let the link go idle: a late pacing timer); idle with nothing queued
(the sources sent nothing).

Every run also traces the bottleneck's packets over its whole length
(a second instance with the two net events and the kernel's drops only):
packet_queue() gives each packet's wait in the qdisc and the queue's time
average from it.  Samples of the backlog every 100 ms, the other way to
get them, overstated a short queue: in one make demo run the samples'
mean was 1.71 packets, the time average of the trace 1.32."""

import re
from pathlib import Path

from . import metrics as M

TRACEFS = Path("/sys/kernel/tracing")
NET_EVENTS = ("net/net_dev_queue", "net/net_dev_xmit")
OPTIONAL_EVENTS = ("tcp_decbit/decbit_decision", "timer/hrtimer_start",
                   "timer/hrtimer_expire_entry")
DROP_EVENT = "skb/kfree_skb"
_LINE = re.compile(r"\s(\d+\.\d+): (net_dev_queue|net_dev_xmit): dev=(\S+) "
                   r"skbaddr=(\S+) len=(\d+)(?: rc=(-?\d+))?")


class Tracer:
    """An ftrace instance that records DEV's packets between start() and
    stop(), which keeps the trace's text in .text (and writes it to OUT,
    if given) and the number of events the buffer had no room for in
    .lost.  EXTRA: further events, each recorded if this kernel has it."""

    def __init__(self, dev, out=None, name="congavoid",
                 extra=OPTIONAL_EVENTS):
        self.dev = dev
        self.out = Path(out) if out else None
        self.inst = TRACEFS / "instances" / name
        self.extra = extra
        self.text, self.lost = None, None

    def _w(self, rel, text):
        (self.inst / rel).write_text(text)

    def start(self):
        if self.inst.exists():
            self.inst.rmdir()
        self.inst.mkdir()
        self._w("buffer_size_kb", "16384")
        self._w("trace_clock", "mono")
        # a full buffer drops (and counts) new events, not the oldest
        self._w("options/overwrite", "0")
        for ev in NET_EVENTS:
            self._w(f"events/{ev}/filter", f'name == "{self.dev}"')
            self._w(f"events/{ev}/enable", "1")
        for ev in self.extra:
            if (self.inst / "events" / ev).exists():
                self._w(f"events/{ev}/enable", "1")
        self._w("tracing_on", "1")

    def remove(self):
        """Remove the instance, if there is one (after a failed start)."""
        try:
            if self.inst.exists():
                self.inst.rmdir()
        except OSError:
            pass

    def stop(self):
        try:
            self._w("tracing_on", "0")
            self.text = (self.inst / "trace").read_text()
            self.lost = sum(_lost((c / "stats").read_text())
                            for c in (self.inst / "per_cpu").iterdir())
            if self.out:
                self.out.write_text(self.text)
        finally:
            self.inst.rmdir()


def _lost(stats):
    """Events a per-CPU buffer lost, from its stats file."""
    n = 0
    for line in stats.splitlines():
        key, _, val = line.partition(":")
        if key.strip() in ("overrun", "commit overrun", "dropped events"):
            n += int(val.split()[0])
    return n


def parse(text, dev):
    """[(t seconds, "queue" | "xmit", length bytes, skb address)] of DEV's
    packets in a trace's text; transmits the driver refused (rc != 0) are
    left out."""
    out = []
    for m in _LINE.finditer(text):
        t, ev, d, addr, ln, rc = m.groups()
        if d != dev or (rc is not None and int(rc) != 0):
            continue
        out.append((float(t), "queue" if ev == "net_dev_queue" else "xmit",
                    int(ln), addr))
    return out


_PKT = re.compile(r"\s(\d+\.\d+): (?:(net_dev_queue|net_dev_xmit): dev=(\S+) "
                  r"skbaddr=(\S+)(?: len=\d+)?(?: rc=(-?\d+))?|"
                  r"(kfree_skb): skbaddr=(\S+))")
NETDEV_TX_BUSY = 16     # the driver refused it: back into the qdisc
STALE_S = 1.0           # longer in a queue than any test bed's buffer


def packet_queue(text, dev, t_from, t_to):
    """The queue of DEV's qdisc from a trace of its packets (net_dev_queue:
    the packet reaches the qdisc; net_dev_xmit: it leaves it, whatever the
    driver then did with it, unless the driver was busy and the packet
    went back into the qdisc; kfree_skb: the kernel dropped it, in the
    qdisc or elsewhere).  Returns {"queue_mean": packets waiting, time
    average over [T_FROM, T_TO), "qdelay_p50_ms", "qdelay_p99_ms",
    "qdelay_max_ms": the waits of the packets that arrived and left in
    that window, "qdelay_packets": how many, "queue_nonempty_frac": the
    part of the window in which the qdisc held a packet (its link had
    work, whatever rate the guest served it at), "queue_unseen": packets
    still counted at T_TO after more than STALE_S, which must have left
    by a path the trace does not see (then the queue is overstated)};
    None when no packet of DEV was traced.  Times are the trace's
    (CLOCK_MONOTONIC, seconds)."""
    events = []
    for m in _PKT.finditer(text):
        t, ev, d, addr, rc, _, daddr = m.groups()
        if ev and d == dev:
            if rc is not None and int(rc) == NETDEV_TX_BUSY:
                continue
            events.append((float(t), 1 if ev == "net_dev_queue" else 0,
                           addr))
        elif daddr:
            events.append((float(t), 2, daddr))
    if not any(e[1] == 1 for e in events):
        return None
    # stable: at equal times, in the trace's order
    events.sort(key=lambda e: e[0])
    queued, waits = {}, []
    area, busy, last = 0.0, 0.0, t_from
    for t, kind, addr in events:
        if t >= t_to:
            break
        if t > last:
            area += len(queued) * (t - last)
            busy += (t - last) if queued else 0.0
            last = t
        if kind == 1:
            # the address back without a departure seen: the last packet
            # that had it left unseen (freed by a path we do not trace)
            queued[addr] = t
        elif addr in queued:
            t_in = queued.pop(addr)
            if kind == 0 and t_in >= t_from:
                waits.append((t - t_in) * 1000)
    if t_to > last:
        area += len(queued) * (t_to - last)
        busy += (t_to - last) if queued else 0.0
    span = t_to - t_from
    return {"queue_mean": area / span if span > 0 else None,
            "queue_nonempty_frac": busy / span if span > 0 else None,
            "qdelay_p50_ms": M.percentile(waits, 50),
            "qdelay_p99_ms": M.percentile(waits, 99),
            "qdelay_max_ms": max(waits) if waits else None,
            "qdelay_packets": len(waits),
            "queue_unseen": sum(1 for t_in in queued.values()
                                if t_in < t_to - STALE_S)}


_HR_START = re.compile(r"\shrtimer_start: hrtimer=(\S+) function=(\S+) "
                       r"expires=\d+ softexpires=(\d+)")
_HR_EXPIRE = re.compile(r"\shrtimer_expire_entry: hrtimer=(\S+) "
                        r"function=(\S+) now=(\d+)")
_CPU = re.compile(r"\[(\d+)\]")


def timer_lateness(text):
    """{function: {"count", "p50_us", "p99_us", "max_us"}}: how long after
    its (soft) expiry time each high-resolution timer ran, from the
    hrtimer_start and hrtimer_expire_entry events of a trace's text, by
    the timer's function (qdisc_watchdog: netem's and the self-shaping
    qdiscs' watchdogs; tcp_pace_kick: TCP's internal pacing).  "q5_us"
    are the 0th, 5th, ..., 100th percentiles and "qtail_us" the 96th,
    97th, 98th, 99th and 99.9th: q5_us[:20] + qtail_us + q5_us[20:] is
    the table tcp_decbit/decbit_loop_test.c takes to replay a guest's
    lateness (its tail is far from uniform between p95 and the maximum).
    "batched": how many of them ran in the same expiry (one CPU, one
    reading of the clock, "now") as another timer of the same function
    (for tcp_pace_kick: another flow's, each socket has one)."""
    due, late = {}, {}
    runs = {}
    for line in text.splitlines():
        m = _HR_START.search(line)
        if m:
            due[m.group(1)] = int(m.group(3))
            continue
        m = _HR_EXPIRE.search(line)
        if not m:
            continue
        cpu = _CPU.search(line)
        key = (cpu.group(1) if cpu else None, m.group(3), m.group(2))
        runs[key] = runs.get(key, 0) + 1
        if m.group(1) in due:
            d = (int(m.group(3)) - due.pop(m.group(1))) / 1000
            late.setdefault(m.group(2), []).append(max(0.0, d))
    batched = {}
    for (_, _, f), n in runs.items():
        if n > 1:
            batched[f] = batched.get(f, 0) + n
    return {f: {"count": len(v), "p50_us": M.percentile(v, 50),
                "p99_us": M.percentile(v, 99), "max_us": max(v),
                "q5_us": [M.percentile(v, 5 * k) for k in range(21)],
                "qtail_us": [M.percentile(v, q)
                             for q in (96, 97, 98, 99, 99.9)],
                "batched": batched.get(f, 0)}
            for f, v in late.items()}


_DECISION = re.compile(r"\sdecbit_decision: .* reason=(\w+)")


def decisions(text):
    """{reason: count} of the DECbit sources' window decisions in a
    trace's text (tcp_decbit's decbit_decision tracepoint): "hold" is a
    decision epoch without marks in which the sender was never
    window-limited, so its window did not grow."""
    out = {}
    for m in _DECISION.finditer(text):
        out[m.group(1)] = out.get(m.group(1), 0) + 1
    return out


def breakdown(events, rate_bps):
    """Where the link's time went over the traced window.

    EVENTS as parse() returns them; RATE_BPS the bottleneck's rate.  Each
    departure occupies an ideal link of that rate for its length (from
    when it left the qdisc, or when the link frees up).  The idle time is
    split by the qdisc's queue at that moment: "idle_queued" while packets
    waited (a late transmit), "idle_empty" while nothing was queued.
    "late_ms" are the waits of a queued packet from the moment the link
    freed up to its departure.  The qdisc's queue is the set of packets
    (skb addresses) enqueued and not yet sent: a packet sent in the window
    without its enqueue was queued when the window began, and one the
    qdisc freed without sending (a drop, whose address comes back for
    another packet) is not counted twice.  (A running count of enqueues
    less transmits drifts: in one 4 s trace by 11 packets.)"""
    if not events:
        return None
    events = sorted(events, key=lambda e: e[0])
    queued, seen = set(), set()
    for _, ev, _, addr in events:
        if ev == "xmit" and addr not in seen:
            queued.add(addr)
        seen.add(addr)
    t0, t1 = events[0][0], events[-1][0]
    busy_until = t0
    send = idle_q = idle_e = 0.0
    late, late_from = [], None
    seen_q = []
    t = t0
    for te, ev, ln, addr in events:
        gap = te - max(t, busy_until)
        if gap > 0:
            if queued:
                idle_q += gap
                if late_from is None:
                    late_from = max(t, busy_until)
            else:
                idle_e += gap
        t = te
        if ev == "queue":
            seen_q.append(len(queued))
            queued.add(addr)
            continue
        queued.discard(addr)
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
        # arrivals at the qdisc within 10, 50, 100 us of the one before
        "arrival_gaps": _gaps([e[0] for e in events if e[1] == "queue"]),
    }


def _gaps(ts):
    """{"10us", "50us", "100us"}: the fraction of arrivals (times TS,
    sorted) that came within that long of the one before."""
    d = [b - a for a, b in zip(ts, ts[1:])]
    if not d:
        return None
    return {f"{us}us": sum(1 for x in d if x < us / 1e6) / len(d)
            for us in (10, 50, 100)}


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
            f"service time); queue at arrival {ms(b['queue_at_arrival'])}"
            + ("; decisions " + ", ".join(f"{k} {v}" for k, v in
                                          sorted(b["decisions"].items()))
               if b.get("decisions") else "")
            + "".join(f"; {f} late p50 {t['p50_us']:.0f} us, p99 "
                      f"{t['p99_us']:.0f} us ({t['count']})"
                      for f, t in sorted((b.get("timers") or {}).items())
                      if t["count"] >= 100))
