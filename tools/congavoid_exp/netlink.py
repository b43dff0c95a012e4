# SPDX-License-Identifier: GPL-2.0
"""Minimal netlink readers for the sampler: TCP sockets (sock_diag with
struct tcp_info) and qdisc statistics (rtnetlink), with sockets opened
inside a network namespace so that one thread can sample every namespace
without forking ss or tc."""

import ctypes
import os
import socket
import struct

NETLINK_SOCK_DIAG = 4
SOCK_DIAG_BY_FAMILY = 20
RTM_GETQDISC = 38
RTM_GETTFILTER = 46
NLM_F_REQUEST = 0x1
NLM_F_DUMP = 0x300
TC_H_ROOT = 0xFFFFFFFF  # a qdisc's parent when it is the root
NLMSG_ERROR = 2
NLMSG_DONE = 3
CLONE_NEWNET = 0x40000000

INET_DIAG_INFO = 2
INET_DIAG_VEGASINFO = 3
INET_DIAG_CONG = 4
INET_DIAG_DCTCPINFO = 9
TCP_ESTABLISHED = 1

TCA_KIND = 1
TCA_OPTIONS = 2
TCA_XSTATS = 4
TCA_FLOWER_ACT = 3
TCA_ACT_STATS = 4
TC_H_INGRESS_PARENT = 0xFFFFFFF2  # clsact's ingress hook
TCA_STATS2 = 7
TCA_STATS_BASIC = 1
TCA_STATS_QUEUE = 3

_libc = ctypes.CDLL(None, use_errno=True)


def _setns(fd):
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def socket_in_netns(ns, proto):
    """A netlink socket that lives in network namespace ns (a name under
    /run/netns); the calling thread returns to its own namespace."""
    own = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    target = os.open(f"/run/netns/{ns}", os.O_RDONLY)
    try:
        _setns(target)
        try:
            sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, proto)
        finally:
            _setns(own)
    finally:
        os.close(own)
        os.close(target)
    sock.bind((0, 0))
    return sock


def _attrs(buf, off, end):
    """Yield (type, payload) of the netlink attributes in buf[off:end]."""
    while off + 4 <= end:
        alen, atype = struct.unpack_from("HH", buf, off)
        if alen < 4:
            break
        yield atype & 0x3FFF, buf[off + 4:off + alen]
        off += (alen + 3) & ~3


def _dump(sock, msg_type, payload, seq):
    hdr = struct.pack("IHHII", 16 + len(payload), msg_type,
                      NLM_F_REQUEST | NLM_F_DUMP, seq, 0)
    sock.send(hdr + payload)
    while True:
        data = sock.recv(1 << 20)
        off = 0
        while off + 16 <= len(data):
            mlen, mtype, _, mseq, _ = struct.unpack_from("IHHII", data, off)
            if mlen < 16:
                return
            if mseq == seq:
                if mtype == NLMSG_DONE:
                    return
                if mtype == NLMSG_ERROR:
                    errno = -struct.unpack_from("i", data, off + 16)[0]
                    if errno:
                        raise OSError(errno, os.strerror(errno))
                    return
                yield data[off + 16:off + mlen]
            off += (mlen + 3) & ~3


# struct tcp_info offsets (include/uapi/linux/tcp.h, stable ABI)
_TCPI = {
    "ca_state": ("B", 1), "retransmits": ("B", 2), "rto": ("I", 8),
    "snd_mss": ("I", 16), "unacked": ("I", 24), "lost": ("I", 32),
    "retrans": ("I", 36), "rtt": ("I", 68), "rttvar": ("I", 72),
    "snd_ssthresh": ("I", 76), "snd_cwnd": ("I", 80),
    "total_retrans": ("I", 100), "pacing_rate": ("Q", 104),
    "bytes_acked": ("Q", 120), "bytes_received": ("Q", 128),
    "segs_out": ("I", 136), "min_rtt": ("I", 148),
    "delivery_rate": ("Q", 160), "delivered": ("I", 192),
    "delivered_ce": ("I", 196),
}


def tcp_sockets(sock, seq=1):
    """Established IPv4 TCP sockets of the socket's namespace: a list of
    dicts with sport, dport, cc and the tcp_info fields above (RTTs in us)."""
    ext = (1 << (INET_DIAG_INFO - 1)) | (1 << (INET_DIAG_VEGASINFO - 1)) | \
        (1 << (INET_DIAG_CONG - 1))
    req = struct.pack("BBBxI", socket.AF_INET, socket.IPPROTO_TCP, ext,
                      1 << TCP_ESTABLISHED) + bytes(48)
    out = []
    for msg in _dump(sock, SOCK_DIAG_BY_FAMILY, req, seq):
        # struct inet_diag_msg: family, state, timer, retrans, id (48), ...
        sport, dport = struct.unpack_from("!HH", msg, 4)
        s = {"sport": sport, "dport": dport}
        for atype, val in _attrs(msg, 72, len(msg)):
            if atype == INET_DIAG_INFO:
                for k, (fmt, o) in _TCPI.items():
                    if o + struct.calcsize(fmt) <= len(val):
                        s[k] = struct.unpack_from(fmt, val, o)[0]
            elif atype == INET_DIAG_CONG:
                s["cc"] = val.split(b"\0", 1)[0].decode()
            elif atype == INET_DIAG_DCTCPINFO and len(val) >= 16:
                # struct tcp_dctcp_info: enabled u16, ce_state u16,
                # alpha, ab_ecn, ab_tot (u32)
                _, _, alpha, ab_ecn, ab_tot = struct.unpack_from("HHIII", val)
                s["ca_alpha"], s["ca_ab_ecn"], s["ca_ab_tot"] = \
                    alpha, ab_ecn, ab_tot
        out.append(s)
    return out


# struct tc_decbit_xstats (include/uapi/congavoid/tc_decbit.h), the one
# place its layout is written out in Python
DECBIT_XSTATS = struct.Struct("=QQQQQIIQQIIII")
DECBIT_XSTATS_FIELDS = (
    "marked", "nonect_passed", "nonect_dropped", "overlimit_dropped",
    "cycles", "avg", "congested", "ibl_dropped", "pool_dropped",
    "pool_used", "pool_input", "pool_input_limit", "input_qlen")


# lost_ns, after those (a module older than it sends none)
DECBIT_XSTATS_LOST = struct.Struct("=Q")


def decbit_xstats(raw):
    """A decbit qdisc's xstats bytes as a dict (None if they are too short:
    a module older than the pool counters; no lost_ns from a module older
    than that counter)."""
    if raw is None or len(raw) < DECBIT_XSTATS.size:
        return None
    d = dict(zip(DECBIT_XSTATS_FIELDS, DECBIT_XSTATS.unpack_from(raw)))
    if len(raw) >= DECBIT_XSTATS.size + DECBIT_XSTATS_LOST.size:
        d["lost_ns"] = DECBIT_XSTATS_LOST.unpack_from(raw, DECBIT_XSTATS.size)[0]
    return d


# Offsets of the mark counter in each kind's xstats.
_MARKS = {
    "decbit": ("Q", 0),     # DECBIT_XSTATS's "marked"
    "red": ("I", 12),       # struct tc_red_xstats.marked
    "fq_codel": ("I", 12),  # tc_fq_codel_xstats: type, qd.ecn_mark
    "pie": ("I", 36),       # struct tc_pie_xstats.ecn_mark
}


def qdiscs(sock, ifindex, seq=1, raw_xstats=False):
    """Statistics of the qdiscs on one interface (every interface of the
    namespace if ifindex is None): a list of dicts with ifindex,
    kind, handle, parent, bytes, packets, qlen, backlog, drops, marks
    (None where the kind has no mark counter); with raw_xstats, also xstats
    (the kind's TCA_XSTATS bytes, or None)."""
    req = struct.pack("BxxxiIII", socket.AF_UNSPEC, ifindex or 0, 0, 0, 0)
    out = []
    for msg in _dump(sock, RTM_GETQDISC, req, seq):
        _, idx, handle, parent, _ = struct.unpack_from("BxxxiIII", msg)
        if ifindex is not None and idx != ifindex:
            continue
        q = {"ifindex": idx, "handle": handle, "parent": parent,
             "marks": None}
        xstats = None
        for atype, val in _attrs(msg, 20, len(msg)):
            if atype == TCA_KIND:
                q["kind"] = val.split(b"\0", 1)[0].decode()
            elif atype == TCA_XSTATS:
                xstats = val
            elif atype == TCA_STATS2:
                for st, sv in _attrs(val, 0, len(val)):
                    if st == TCA_STATS_BASIC and len(sv) >= 12:
                        q["bytes"], q["packets"] = struct.unpack_from("QI", sv)
                    elif st == TCA_STATS_QUEUE and len(sv) >= 20:
                        (q["qlen"], q["backlog"], q["drops"], _,
                         _) = struct.unpack_from("IIIII", sv)
        if raw_xstats:
            q["xstats"] = xstats
        m = _MARKS.get(q.get("kind"))
        if m and xstats is not None and len(xstats) >= m[1] + \
                struct.calcsize(m[0]):
            q["marks"] = struct.unpack_from(m[0], xstats, m[1])[0]
        out.append(q)
    return out


def filter_bytes(sock, ifindex, seq=1):
    """Bytes counted by the first action of each flower filter at the
    clsact ingress of one interface: {pref: bytes}.  A filter shows up
    as a head without options, then an entry per handle; the entries of
    one pref are summed."""
    req = struct.pack("BxxxiIII", socket.AF_UNSPEC, ifindex, 0,
                      TC_H_INGRESS_PARENT, 0)
    out = {}
    for msg in _dump(sock, RTM_GETTFILTER, req, seq):
        info = struct.unpack_from("BxxxiIII", msg)[4]
        pref = info >> 16
        for atype, val in _attrs(msg, 20, len(msg)):
            if atype != TCA_OPTIONS:
                continue
            for ftype, fval in _attrs(val, 0, len(val)):
                if ftype != TCA_FLOWER_ACT:
                    continue
                for _, act in _attrs(fval, 0, len(fval)):
                    for t, st in _attrs(act, 0, len(act)):
                        if t != TCA_ACT_STATS:
                            continue
                        for bt, bv in _attrs(st, 0, len(st)):
                            if bt == TCA_STATS_BASIC and len(bv) >= 12:
                                out[pref] = out.get(pref, 0) + \
                                    struct.unpack_from("Q", bv)[0]
                    break  # the first action only
    return out
