#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Send one RTM_NEWQDISC with raw TCA_OPTIONS attributes, as a netlink client
other than tc would, and print the kernel's answer: errno, the extack text,
and where the kernel gives them the type of the attribute it points at
(attr=T, from the offset into the request) and the range of the policy
that refused it (policy=MIN..MAX).

  nl_qdisc.py DEV KIND [replace] TYPE:FMT:VALUE ...
     FMT is a struct format letter (B, H, I, Q) or 'raw' (hex bytes)
NL_TCA_RATE=INTERVAL:EWMA_LOG adds a TCA_RATE (struct tc_estimator), which
the kernel applies after the qdisc's init: an interval out of -2..3 makes
the create fail after init succeeded.
NL_REPEAT=N sends the request N times, one answer a line, NL_GAP_MS
milliseconds apart (default 0): one process for many requests (a process
costs a TCG guest about 0.3 s).
Exit status 0 if the kernel accepted every request, 1 otherwise.
"""
import os
import socket
import struct
import sys
import time

RTM_NEWQDISC = 36
NLM_F_REQUEST, NLM_F_ACK, NLM_F_REPLACE, NLM_F_CREATE = 1, 4, 0x100, 0x400
NLMSG_ERROR = 2
NETLINK_EXT_ACK = 11
NLMSGERR_ATTR_MSG, NLMSGERR_ATTR_OFFS, NLMSGERR_ATTR_POLICY = 1, 2, 4
# in NLMSGERR_ATTR_POLICY: signed and unsigned bounds, 64-bit each
NL_POLICY_TYPE_ATTR_MIN_VALUE_S, NL_POLICY_TYPE_ATTR_MAX_VALUE_S = 2, 3
NL_POLICY_TYPE_ATTR_MIN_VALUE_U, NL_POLICY_TYPE_ATTR_MAX_VALUE_U = 4, 5
TCA_KIND, TCA_OPTIONS, TCA_RATE = 1, 2, 5
NLA_F_NESTED = 0x8000
TC_H_ROOT = 0xFFFFFFFF


def attr(t, payload):
    a = struct.pack("HH", 4 + len(payload), t) + payload
    return a + b"\0" * ((4 - len(a) % 4) % 4)


def attrs(data):
    """(type, payload) of each attribute in data"""
    off = 0
    while off + 4 <= len(data):
        alen, atyp = struct.unpack("HH", data[off:off + 4])
        if alen < 4:
            break
        yield atyp & 0x3FFF, data[off + 4:off + alen]
        off += (alen + 3) & ~3


def policy_range(nest):
    """'MIN..MAX' of a policy's bounds, '' if it has none"""
    lo = hi = None
    for t, v in attrs(nest):
        if t in (NL_POLICY_TYPE_ATTR_MIN_VALUE_U, NL_POLICY_TYPE_ATTR_MIN_VALUE_S):
            lo = struct.unpack("q" if t == NL_POLICY_TYPE_ATTR_MIN_VALUE_S else "Q", v[:8])[0]
        if t in (NL_POLICY_TYPE_ATTR_MAX_VALUE_U, NL_POLICY_TYPE_ATTR_MAX_VALUE_S):
            hi = struct.unpack("q" if t == NL_POLICY_TYPE_ATTR_MAX_VALUE_S else "Q", v[:8])[0]
    return f"{lo}..{hi}" if lo is not None and hi is not None else ""


def main():
    dev, kind, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE
    if args and args[0] == "replace":
        flags |= NLM_F_REPLACE
        args = args[1:]
    opts = b""
    for a in args:
        t, fmt, val = a.split(":", 2)
        data = bytes.fromhex(val) if fmt == "raw" else struct.pack(fmt, int(val, 0))
        opts += attr(int(t), data)
    ifindex = socket.if_nametoindex(dev)
    tcm = struct.pack("BxxxiIII", socket.AF_UNSPEC, ifindex, 0, TC_H_ROOT, 0)
    body = tcm + attr(TCA_KIND, kind.encode() + b"\0") + attr(TCA_OPTIONS | NLA_F_NESTED, opts)
    if os.environ.get("NL_TCA_RATE"):
        interval, ewma = (int(x, 0) for x in os.environ["NL_TCA_RATE"].split(":"))
        body += attr(TCA_RATE, struct.pack("bB", interval, ewma))
    msg = struct.pack("IHHII", 16 + len(body), RTM_NEWQDISC, flags, 1, 0) + body
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    s.setsockopt(270, NETLINK_EXT_ACK, 1)  # SOL_NETLINK
    rc = 0
    gap = int(os.environ.get("NL_GAP_MS", "0")) / 1000
    for i in range(int(os.environ.get("NL_REPEAT", "1"))):
        if i and gap:
            time.sleep(gap)
        rc |= request(s, msg)
    return rc


def request(s, msg):
    """Send MSG on S, print the kernel's answer; 0 if it accepted it"""
    s.sendto(msg, (0, 0))
    data = s.recv(65536)
    ln, typ = struct.unpack("IH", data[:6])
    if typ != NLMSG_ERROR:
        print("unexpected reply type", typ)
        return 1
    err = struct.unpack("i", data[16:20])[0]
    text, where, rng = "", "", ""
    # the echoed request header (the whole request on an error) is
    # followed by the extack TLVs
    off = 20 + 16
    if err != 0:
        off = 20 + ((struct.unpack("I", data[20:24])[0] + 3) & ~3)
    for t, v in attrs(data[off:ln]):
        if t == NLMSGERR_ATTR_MSG:
            text = v.rstrip(b"\0").decode()
        elif t == NLMSGERR_ATTR_OFFS:
            o = struct.unpack("I", v[:4])[0]
            if o + 4 <= len(msg):
                where = " attr=%d" % (struct.unpack("HH", msg[o:o + 4])[1] & 0x3FFF)
        elif t == NLMSGERR_ATTR_POLICY:
            rng = policy_range(v)
            rng = " policy=" + rng if rng else ""
    print(f"errno={-err} ({os.strerror(-err) if err else 'ok'}) extack={text!r}{where}{rng}")
    return 0 if err == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
