#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Path outages that each end at a chosen retransmission timeout of a flow.

  blackhole.py ROUTER SENDER N TIMEOUT MARK PREFIX:SPORT ...
      Add a blackhole route to each PREFIX (a.b.c.d/len, silent drops) in
      the network namespace ROUTER (a name from ip netns), all at once;
      delete each one as soon as the TCP socket of local port SPORT in
      the namespace SENDER has had N retransmission timeouts in the
      outage (its tcp_info backoff, polled every millisecond through
      sock_diag).  Writes time.monotonic() of each deletion to MARK with
      "{}" replaced by SPORT, and prints a line "SPORT <t added> <t
      deleted> <timeouts seen>" for each (time.monotonic() is
      CLOCK_MONOTONIC, as trace_clock "mono").  After TIMEOUT seconds the
      routes left go anyway (exit status 1).

  blackhole.py --plug IFINDEX ROUTER SENDER N TIMEOUT MARK :SPORT ...
      The same, but what the path loses is time, not packets: a plug
      qdisc (sch_plug) as root of device IFINDEX in ROUTER holds every
      packet from then on, and releases them all, in order, as soon as
      each SPORT has had N timeouts (then stays, passing everything, for
      the caller to delete).  On the ACK path this makes N spurious
      timeouts: the ACKs were late, nothing was lost.

Each flow gets its own route so that each gets its path back right after
its own timeout: the retransmission of that timeout then goes through (a
path gives 100 ms of netem before the router), whatever the spread of the
flows' timers under TCG.  One process does it all, with no fork in
between: under TCG starting a process costs a good part of those 100 ms
(and creating a trace instance, seconds).  Its netlink sockets are taken
from the namespaces (setns), so it runs from the initial ones.
"""
import ctypes
import os
import socket
import struct
import sys
import time

RTM_NEWROUTE, RTM_DELROUTE = 24, 25
NLM_F_REQUEST, NLM_F_ACK, NLM_F_EXCL, NLM_F_CREATE = 1, 4, 0x200, 0x400
NLMSG_ERROR = 2
RT_TABLE_MAIN, RTPROT_STATIC, RT_SCOPE_UNIVERSE, RTN_BLACKHOLE = 254, 4, 0, 6
RTA_DST = 1
RTM_NEWQDISC, TC_H_ROOT = 36, 0xFFFFFFFF
TCA_KIND, TCA_OPTIONS = 1, 2
TCQ_PLUG_BUFFER, TCQ_PLUG_RELEASE_INDEFINITE = 0, 2
CLONE_NEWNET = 0x40000000
NETLINK_SOCK_DIAG, SOCK_DIAG_BY_FAMILY, NLM_F_DUMP, NLMSG_DONE = 4, 20, 0x300, 3
INET_DIAG_INFO = 2
TCP_ESTABLISHED = 1


def request(nl, typ, flags, body, what):
    """One netlink request with its ACK; OSError if refused."""
    nl.send(struct.pack("IHHII", 16 + len(body), typ, flags, 1, 0) + body)
    data = nl.recv(65536)
    err = struct.unpack("i", data[16:20])[0] \
        if struct.unpack("H", data[4:6])[0] == NLMSG_ERROR else -1
    if err:
        raise OSError(-err, f"{what}: {os.strerror(-err)}")


def route(nl, cmd, prefix):
    addr, plen = prefix.split("/")
    flags = NLM_F_REQUEST | NLM_F_ACK
    if cmd == RTM_NEWROUTE:
        flags |= NLM_F_CREATE | NLM_F_EXCL
    rtm = struct.pack("BBBBBBBBI", socket.AF_INET, int(plen), 0, 0,
                      RT_TABLE_MAIN, RTPROT_STATIC, RT_SCOPE_UNIVERSE,
                      RTN_BLACKHOLE, 0)
    dst = struct.pack("HH", 8, RTA_DST) + socket.inet_aton(addr)
    request(nl, cmd, flags, rtm + dst, f"route {cmd} {prefix}")


def plug(nl, ifindex, action):
    """Create (action None) or change the root plug qdisc 1: of IFINDEX."""
    flags = NLM_F_REQUEST | NLM_F_ACK
    if action is None:
        flags |= NLM_F_CREATE | NLM_F_EXCL
        action = TCQ_PLUG_BUFFER
    tcm = struct.pack("BxxxiIII", socket.AF_UNSPEC, ifindex, 1 << 16,
                      TC_H_ROOT, 0)
    kind = b"plug\0"
    body = tcm + struct.pack("HH", 4 + len(kind), TCA_KIND) + kind + bytes(-len(kind) % 4)
    body += struct.pack("HHiI", 12, TCA_OPTIONS, action, 16 << 20)
    request(nl, RTM_NEWQDISC, flags, body, f"plug {ifindex} {action}")


def netlink_in(netns, proto):
    """A netlink socket of protocol PROTO in the network namespace NETNS."""
    libc = ctypes.CDLL(None, use_errno=True)
    own = os.open("/proc/self/ns/net", os.O_RDONLY)
    fd = os.open(f"/run/netns/{netns}", os.O_RDONLY)
    try:
        if libc.setns(fd, CLONE_NEWNET):
            raise OSError(ctypes.get_errno(), f"setns {netns}")
        nl = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, proto)
        if libc.setns(own, CLONE_NEWNET):
            raise OSError(ctypes.get_errno(), "setns back")
    finally:
        os.close(fd)
        os.close(own)
    return nl


def wr(path, text):
    with open(path, "w") as f:
        f.write(text)


def backoffs(diag):
    """{local port: tcp_info backoff} of the established TCP sockets."""
    req = struct.pack("BBBxI", socket.AF_INET, socket.IPPROTO_TCP,
                      1 << (INET_DIAG_INFO - 1), 1 << TCP_ESTABLISHED) + bytes(48)
    diag.send(struct.pack("IHHII", 16 + len(req), SOCK_DIAG_BY_FAMILY,
                          NLM_F_REQUEST | NLM_F_DUMP, 1, 0) + req)
    res = {}
    while True:
        data = diag.recv(1 << 16)
        off = 0
        while off + 16 <= len(data):
            ln, typ = struct.unpack_from("IH", data, off)
            if typ == NLMSG_DONE or typ == NLMSG_ERROR:
                return res
            msg = off + 16
            sport = struct.unpack_from("!H", data, msg + 4)[0]
            a = msg + 72
            while a + 4 <= off + ln:
                alen, atyp = struct.unpack_from("HH", data, a)
                if alen < 4:
                    break
                if atyp == INET_DIAG_INFO:
                    res[sport] = data[a + 4 + 4]    # tcpi_backoff
                a += (alen + 3) & ~3
            off += (ln + 3) & ~3


def main():
    args = sys.argv[1:]
    ifindex = None
    if args[0] == "--plug":
        ifindex = int(args[1])
        args = args[2:]
    router, sender, n, tmo, mark = args[:5]
    n, tmo = int(n), float(tmo)
    flows = {}      # sport: [prefix, timeouts seen, t deleted]
    for spec in args[5:]:
        prefix, sport = spec.split(":")
        flows[int(sport)] = [prefix, 0, None]
    nl = netlink_in(router, socket.NETLINK_ROUTE)
    diag = netlink_in(sender, NETLINK_SOCK_DIAG)
    if ifindex is not None:
        plug(nl, ifindex, None)
    else:
        for f in flows.values():
            route(nl, RTM_NEWROUTE, f[0])

    def restore(prefix):
        # one plug for all: it goes once every flow is done (below)
        if ifindex is None:
            route(nl, RTM_DELROUTE, prefix)

    t0 = time.monotonic()
    left = len(flows)
    while left and time.monotonic() < t0 + tmo:
        for sport, b in backoffs(diag).items():
            f = flows.get(sport)
            if not f or f[2] is not None:
                continue
            f[1] = max(f[1], b)
            if f[1] >= n:
                restore(f[0])
                f[2] = time.monotonic()
                left -= 1
        time.sleep(0.001)
    for f in flows.values():
        if f[2] is None:
            restore(f[0])
            f[2] = time.monotonic()
    if ifindex is not None:
        plug(nl, ifindex, TCQ_PLUG_RELEASE_INDEFINITE)
        t1 = time.monotonic()
        for f in flows.values():
            f[2] = t1
    for sport, (prefix, seen, t1) in flows.items():
        path = mark.replace("{}", str(sport))
        wr(path + ".tmp", f"{t1:.6f}\n")
        os.rename(path + ".tmp", path)
        print(sport, f"{t0:.6f}", f"{t1:.6f}", seen)
    return 0 if not left else 1


if __name__ == "__main__":
    sys.exit(main())
