#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Congestion controls switched on live connections (tcp_cc_live.sh).

  cc_live.py serve PORT:CC:MS...     receiver: a listener per PORT with CC
                                     (which decides whether it accepts
                                     ECN); reads each connection to EOF,
                                     switching its own end's CC every MS
                                     ms (0: never), then answers the byte
                                     count (8 bytes)
  cc_live.py run ADDR OUT            sender, three parts, results as
                                     "key=value" lines in OUT/switch,
                                     OUT/cwr and OUT/ss:
    switch  a bulk transfer to port 6001 that switches TCP_CONGESTION
            decbit -> bimodal -> cubic ... SWITCHES (env, 1000) times,
            every 2 ms of sending, while a thread writes every module
            parameter in PARAMS (env: "module/name low high ...") and BOOLS
            its extreme values; before each switch it reads TCP_CC_INFO
            (the tcp_dctcp_info layout of docs/ss-info.md) and TCP_INFO
            and counts what is out of range
    cwr     to port 6003, 8 times bimodal and 4 times decbit: wait for the
            stack's CWR state (an ECN episode begun by cubic) and switch
            in it; the window at the end of the episode
    ss      a decbit and a bimodal connection to 6003 (2 s of data), and
            one to 6002 opened by cubic and switched to decbit, all idle
            with nothing in flight: "ss -tin" of them
"""
import errno
import os
import select
import socket
import struct
import subprocess
import sys
import threading
import time

TCP_CC_INFO = 26
CA_OPEN, CA_DISORDER, CA_CWR, CA_RECOVERY, CA_LOSS = range(5)
REASONS = {"decbit": 6, "bimodal": 7}	# highest reason number (docs/ss-info.md)
CHUNK = bytes(65536)


def cc_get(s):
    return s.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).split(b"\0")[0].decode()


def cc_set(s, name):
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, name.encode())


def tcp_info(s):
    b = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 232)
    b = b.ljust(232, b"\0")
    return {
        "state": b[0], "ca_state": b[1],
        "unacked": struct.unpack_from("I", b, 24)[0],
        "ssthresh": struct.unpack_from("I", b, 76)[0],
        "cwnd": struct.unpack_from("I", b, 80)[0],
        "total_retrans": struct.unpack_from("I", b, 100)[0],
        "bytes_acked": struct.unpack_from("Q", b, 120)[0],
        "delivered": struct.unpack_from("I", b, 192)[0],
        "delivered_ce": struct.unpack_from("I", b, 196)[0],
    }


def cc_info(s):
    """(enabled, ce_state, alpha, ab_ecn, ab_tot), or None (no such info)"""
    b = s.getsockopt(socket.IPPROTO_TCP, TCP_CC_INFO, 20)
    if len(b) < 16:
        return None
    b = b.ljust(20, b"\0")
    return struct.unpack_from("HHIII", b)


def serve(specs):
    def one(c, every):
        n, k, nxt = 0, 0, time.monotonic() + every
        ccs = ("bimodal", "cubic", "decbit")
        try:
            while True:
                d = c.recv(1 << 20)
                if not d:
                    break
                n += len(d)
                if every and time.monotonic() >= nxt:
                    cc_set(c, ccs[k % 3])
                    k += 1
                    nxt = time.monotonic() + every
            c.sendall(struct.pack("Q", n))
        except OSError:
            pass
        c.close()

    def listen(port, cc, every):
        ls = socket.socket()
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        cc_set(ls, cc)
        ls.bind(("0.0.0.0", port))
        ls.listen(8)
        while True:
            c, _ = ls.accept()
            threading.Thread(target=one, args=(c, every), daemon=True).start()

    for spec in specs:
        port, cc, ms = spec.split(":")
        threading.Thread(target=listen, args=(int(port), cc, float(ms) / 1000),
                         daemon=True).start()
    threading.Event().wait()


def connect(addr, port, cc):
    s = socket.socket()
    cc_set(s, cc)
    s.connect((addr, port))
    s.setblocking(False)
    return s


def pump(s, until):
    """Send bulk data until time @until; returns the bytes sent."""
    socks = s if isinstance(s, list) else [s]
    sent = 0
    while True:
        left = until - time.monotonic()
        if left <= 0:
            return sent
        _, w, _ = select.select([], socks, [], left)
        for x in w:
            try:
                sent += x.send(CHUNK)
            except BlockingIOError:
                pass


def finish(s, sent):
    """Close the sending side; the receiver's count of the bytes."""
    s.setblocking(True)
    s.settimeout(30)
    s.shutdown(socket.SHUT_WR)
    got = b""
    while len(got) < 8:
        d = s.recv(8 - len(got))
        if not d:
            break
        got += d
    return struct.unpack("Q", got)[0] if len(got) == 8 else -1


class Range:
    """Counts of samples out of range, by what."""

    def __init__(self):
        self.bad = {}
        self.first = {}
        self.samples = 0

    def note(self, what, ok, detail):
        if not ok:
            self.bad[what] = self.bad.get(what, 0) + 1
            self.first.setdefault(what, "%s %s %s" % detail)

    def sample(self, cc, ti, ci):
        self.samples += 1
        d = (cc, ti, ci)
        self.note("state", ti["state"] == 1, d)	# TCP_ESTABLISHED
        self.note("cwnd", 1 <= ti["cwnd"] <= 1 << 20, d)
        if cc not in REASONS:
            return
        self.note("cc_info", ci is not None, d)
        if ci is None:
            return
        enabled, ce_state, alpha, ab_ecn, ab_tot = ci
        self.note("enabled", enabled == 1, d)
        self.note("reason", ce_state <= REASONS[cc], d)
        self.note("ecn_le_tot", ab_ecn <= ab_tot, d)
        self.note("tot_le_delivered", ab_tot <= ti["delivered"], d)
        if cc == "decbit":
            self.note("alpha", alpha <= 1024, d)
        else:
            # the fair share: at most what a window can be
            self.note("alpha", alpha <= 1 << 20, d)

    def report(self, out):
        print("samples=%d out_of_range=%d" % (self.samples, sum(self.bad.values())),
              file=out)
        for k, v in sorted(self.bad.items()):
            print("bad_%s=%d first: %s" % (k, v, self.first[k]), file=out)


def extremes(stop, res):
    """Every parameter to its lowest value, then its highest, in rounds."""
    f = os.environ.get("PARAMS", "").split()
    params = [(f[i], int(f[i + 1]), int(f[i + 2])) for i in range(0, len(f), 3)]
    params += [(b, 0, 1) for b in os.environ.get("BOOLS", "").split()]
    path = {n: "/sys/module/%s/parameters/%s" % tuple(n.split("/")) for n, _, _ in params}
    saved = {}
    for n in path:
        with open(path[n]) as fp:
            saved[n] = fp.read()
    r = 0
    while not stop.is_set():
        r += 1
        for name, lo, hi in params:
            try:
                with open(path[name], "w") as fp:
                    fp.write("%d\n" % (lo if r % 2 else hi))
                res["written"] += 1
            except OSError:
                res["refused"] += 1
        stop.wait(0.05)
    res["rounds"] = r
    for n in path:	# the defaults again for the other parts
        v = saved[n].strip()
        with open(path[n], "w") as fp:
            fp.write("1\n" if v == "Y" else "0\n" if v == "N" else v + "\n")


def switch(addr, port, n, ms, out):
    stop, res = threading.Event(), {"written": 0, "refused": 0}
    wr = threading.Thread(target=extremes, args=(stop, res))
    wr.start()
    try:
        switch_run(addr, port, n, ms, out)
    finally:
        stop.set()
        wr.join()
    print("param_rounds=%d param_written=%d param_refused=%d" % (
        res["rounds"], res["written"], res["refused"]), file=out)


def switch_run(addr, port, n, ms, out):
    s = connect(addr, port, "decbit")
    ccs = ("bimodal", "cubic", "decbit")
    rng = Range()
    sent, wrong, fallbacks = 0, 0, 0
    acked_at, stall = [], 0.0
    t0 = last_progress = time.monotonic()
    last_acked = 0
    cur = "decbit"
    for k in range(n):
        sent += pump(s, time.monotonic() + ms / 1000)
        ci = cc_info(s)		# first: tcp_info's counters are then as new
        ti = tcp_info(s)
        rng.sample(cur, ti, ci)
        now = time.monotonic()
        if ti["bytes_acked"] > last_acked:
            last_acked = ti["bytes_acked"]
            last_progress = now
        stall = max(stall, now - last_progress)
        acked_at.append((now - t0, ti["bytes_acked"]))
        want = ccs[k % 3]
        try:
            cc_set(s, want)
        except OSError as e:
            print("setsockopt_error=%s" % e, file=out)
            wrong += 1
            continue
        cur = cc_get(s)
        if cur == "decbit-reno":
            fallbacks += 1
        elif cur != want:
            wrong += 1
    secs = time.monotonic() - t0
    got = finish(s, sent)
    print("switches=%d seconds=%.1f wrong_cc=%d reno_fallbacks=%d" % (
        n, secs, wrong, fallbacks), file=out)
    print("sent=%d received=%d mbit=%.2f longest_stall_ms=%d" % (
        sent, got, last_acked * 8 / secs / 1e6, stall * 1000), file=out)
    rng.report(out)


def cwr(addr, port, n, out):
    """Switch in during an ECN episode begun by cubic; window at its end."""
    s = connect(addr, port, "cubic")
    sent = pump(s, time.monotonic() + 1)
    res = {"bimodal": [], "decbit": []}
    tries = 0
    # bimodal twice as often: its episodes count only without an event
    # of its own, and the marking router often gives it one first; go on
    # until both have n episodes (bounded in tries and in time)
    stop = time.monotonic() + 30
    for k in range(15 * n):
        if min(len(r) for r in res.values()) >= n or time.monotonic() > stop:
            break
        to = ("bimodal", "decbit", "bimodal")[k % 3]
        if len(res[to]) >= n:
            continue
        cc_set(s, "cubic")
        deadline = time.monotonic() + 3
        # wait for cubic's CWR state (sending all along)
        while time.monotonic() < deadline:
            sent += pump(s, time.monotonic() + 0.002)
            ti = tcp_info(s)
            if ti["ca_state"] == CA_CWR:
                break
        else:
            continue
        tries += 1
        cc_set(s, to)
        before = ti
        # until the episode ends
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            sent += pump(s, time.monotonic() + 0.001)
            ti = tcp_info(s)
            if ti["ca_state"] != CA_CWR:
                break
        ci = cc_info(s)
        # bimodal: only if it had no congestion event of its own since the
        # switch (ce_state 0), which would have cut the window itself
        own = to == "bimodal" and (ci is None or ci[1] != 0)
        if ti["ca_state"] == CA_OPEN and ti["total_retrans"] == before["total_retrans"] \
                and not own:
            res[to].append((before["cwnd"], before["ssthresh"], ti["cwnd"], ti["ssthresh"]))
    got = finish(s, sent)
    print("cwr_sent=%d cwr_received=%d" % (sent, got), file=out)
    for cc, rows in res.items():
        # the episode ends at the stack's target, ssthresh (set by cubic):
        # bimodal, with no event of its own, must leave the window there
        # (it collapsed to 2, then grew by the ACKs before the sample);
        # decbit keeps its own window, taken from cwnd at the switch: at
        # most 4 packets and under half of ssthresh would be a collapse
        if cc == "bimodal":
            col = [r for r in rows if r[2] < r[1]]
        else:
            col = [r for r in rows if r[2] <= 4 and 2 * r[2] < r[1]]
        print("%s_episodes=%d %s_collapsed=%d %s_cwnd_after=%s %s_ssthresh=%s" % (
            cc, len(rows), cc, len(col),
            cc, ",".join(str(r[2]) for r in rows[:12]),
            cc, ",".join(str(r[1]) for r in rows[:12])), file=out)


def ss_idle(addr, out):
    """ss -tin of idle connections: decbit, bimodal, and the Reno fallback."""
    socks = [connect(addr, 6003, "decbit"), connect(addr, 6003, "bimodal")]
    pump(socks, time.monotonic() + 2)
    fb = connect(addr, 6002, "cubic")
    cc_set(fb, "decbit")
    deadline = time.monotonic() + 20
    while any(tcp_info(x)["unacked"] for x in socks) and time.monotonic() < deadline:
        time.sleep(0.05)
    out.write(subprocess.run(["ss", "-tin", "state", "established"],
                             capture_output=True, text=True, check=False).stdout)
    for x in socks + [fb]:
        x.close()


def run(addr, outdir):
    for name, fn in (("switch", lambda o: switch(
                        addr, 6001, int(os.environ.get("SWITCHES", "1000")), 2, o)),
                     ("cwr", lambda o: cwr(addr, 6003, 4, o)),
                     ("ss", lambda o: ss_idle(addr, o))):
        t0 = time.monotonic()
        with open(os.path.join(outdir, name), "w") as o:
            fn(o)
        print("%s_seconds=%.1f" % (name, time.monotonic() - t0), flush=True)


def main():
    if sys.argv[1] == "serve":
        serve(sys.argv[2:])
    elif sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3])
    else:
        sys.exit("unknown command " + sys.argv[1])


if __name__ == "__main__":
    try:
        main()
    except OSError as e:
        if e.errno != errno.EPIPE:
            raise
