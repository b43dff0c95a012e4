#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Netlink fuzzer for the decbit and hbh qdiscs' TCA_OPTIONS.

  nl_fuzz.py KIND --cases N [--seed S] [--time T] TARGET...
     KIND     decbit | hbh
     TARGET   DEV (the root qdisc) or DEV:MAJ:MIN (the child of a class)
  nl_fuzz.py churn KIND[,KIND] [--time T] [--ops N] [--only OP] DEV...
     (for the stress test) random add, change, replace and delete with
     likely options on the DEVs' roots, until T seconds or N requests

Sends N RTM_NEWQDISC requests of KIND, each an add (create, exclusive), a
change or a replace (create or change) on a random target, with random or
mutated options: every attribute type (known, unknown, 0, the pad, the
dump-only ones), right and wrong sizes, truncated attributes and nests,
NLA_F_NESTED garbage, boundary values, duplicated attributes; mutations
(bit flips, byte changes, splices, length fields) of earlier accepted sets.

Every request is checked against a model of the qdisc's netlink contract
(the kernel's strict attribute parse, then the qdisc's own checks, pools
shared in the namespace included): a request must be accepted or refused as
the model says; a refused one must leave every target's dump as it was; an
accepted one must dump exactly the values it set.  Every 10th case the
current dump of the target is sent back as a change (a dump replays) and
must leave the dump unchanged.  Before a target is emptied for an "add",
and at the end, it must dump what the model says.

Prints one line of counts and, per mismatch, the request in hex.  Exit
status 0 when there was no mismatch (and every request had an answer).
"""
import argparse
import os
import random
import socket
import struct
import sys
import time

RTM_NEWQDISC, RTM_DELQDISC, RTM_GETQDISC = 36, 37, 38
NLM_F_REQUEST, NLM_F_ACK = 1, 4
NLM_F_ROOT, NLM_F_MATCH = 0x100, 0x200
NLM_F_REPLACE, NLM_F_EXCL, NLM_F_CREATE = 0x100, 0x200, 0x400
NLMSG_ERROR, NLMSG_DONE = 2, 3
NETLINK_EXT_ACK = 11
TCA_KIND, TCA_OPTIONS = 1, 2
NLA_F_NESTED, NLA_F_NET_BYTEORDER = 0x8000, 0x4000
TC_H_ROOT = 0xFFFFFFFF

U8, U16, U32, U64, BIN, NONE = "u8", "u16", "u32", "u64", "bin", "none"
SIZE = {U8: 1, U16: 2, U32: 4, U64: 8}
FMT = {U8: "B", U16: "H", U32: "I", U64: "Q"}

# The attributes as the kernel's policies declare them (NONE: no policy
# entry, which the strict parse refuses).
DECBIT = {1: ("limit", U32), 2: ("threshold", U32), 3: ("hysteresis", U32),
          4: ("rate", U64), 5: ("nonect", U8), 6: ("pad", NONE),
          7: ("pool", U32), 8: ("pool_limit", U32), 9: ("ibl", U32),
          10: ("input", BIN), 11: ("catchup", U32)}
DECBIT_MAX = 11
HBH = {1: ("rate", U64), 2: ("limit", U32), 3: ("flow_limit", U32),
       4: ("setpoint", U32), 5: ("period", U32), 6: ("alpha", U32),
       7: ("beta", U32), 8: ("rise", U64), 9: ("rate_min", U64),
       10: ("hoprtt", U32), 11: ("mode", U8), 12: ("pad", NONE),
       13: ("derived", NONE), 14: ("key", BIN), 15: ("keyed", NONE),
       16: ("ethertype", U16)}
HBH_MAX = 16
HBH_KEY_LENS = (0, 16, 32)	# 0: no key
HBH_ETH_P = 0x88B5
# the Ethertypes hbh refuses: every ETH_P_* value of 6.1's <linux/if_ether.h>
# from 0x0600 up (IPv4, ARP, IPv6, VLAN, MPLS, PPPoE, MACsec, LLDP, ...)
# but 0x88B5, the local experimental one hbh defaults to
HBH_RESERVED = {
    0x0800, 0x0805, 0x0806, 0x08FF, 0x0A00, 0x0A01, 0x22EB, 0x22F0, 0x4305, 0x6000, 0x6001,
    0x6002, 0x6003, 0x6004, 0x6005, 0x6006, 0x6007, 0x6558, 0x8035, 0x809B, 0x80F3, 0x8100,
    0x8137, 0x86DD, 0x8808, 0x8809, 0x883E, 0x8847, 0x8848, 0x884C, 0x8863, 0x8864, 0x886C,
    0x8884, 0x888E, 0x8892, 0x8899, 0x88A2, 0x88A4, 0x88A8, 0x88BE, 0x88C7, 0x88CA, 0x88CC,
    0x88E3, 0x88E5, 0x88E7, 0x88F5, 0x88F7, 0x88F8, 0x88FB, 0x8902, 0x8906, 0x890D, 0x8914,
    0x8915, 0x8917, 0x892F, 0x894F, 0x9000, 0x9100, 0x9200, 0x9300, 0xDADA, 0xDADB, 0xE001,
    0xED3E, 0xFBFB}
# NLA_BINARY's maximum length in each policy
BIN_MAX = {"decbit": 16 * 4, "hbh": 32}

LIMIT_MAX = 1000000
THRESHOLD_MAX = 1000000000
IBL_MAX = 1000000
INPUT_MAX = 16
RATE_MAX = 1 << 40
CATCHUP_MAX, CATCHUP_DEFAULT = 100000000, 4000000
PERIOD_MIN, PERIOD_MAX = 100000, 1000000000
HOPRTT_MIN, HOPRTT_MAX = 10000, 4000000000
HBH_SCALE = 1024


class Reject(Exception):
    pass


# Each attribute's own range, in the policy (NLA_POLICY_FULL_RANGE & co.):
# nla_parse checks every instance of the attribute, a duplicate overridden
# later included (ERANGE).  Checks across attributes are the models' own.
RANGES = {
    "decbit": {1: (1, LIMIT_MAX), 2: (1, THRESHOLD_MAX), 4: (0, RATE_MAX),
               5: (0, 1), 8: (1, LIMIT_MAX), 9: (1, IBL_MAX),
               11: (0, CATCHUP_MAX)},
    "hbh": {1: (1, RATE_MAX), 2: (1, LIMIT_MAX), 3: (1, LIMIT_MAX),
            5: (PERIOD_MIN, PERIOD_MAX), 6: (1, HBH_SCALE), 7: (1, HBH_SCALE),
            10: (HOPRTT_MIN, HOPRTT_MAX), 11: (0, 2), 16: (0x0600, 0xFFFF)},
}


def attr(t, payload, length=None):
    ln = 4 + len(payload) if length is None else length
    a = struct.pack("HH", ln & 0xFFFF, t & 0xFFFF) + payload
    return a + b"\0" * ((4 - len(a) % 4) % 4)


def parse_attrs(data):
    """Liberal parse: [(type, payload)], stops where nla_ok would."""
    out, off = [], 0
    while off + 4 <= len(data):
        ln, t = struct.unpack_from("HH", data, off)
        if ln < 4 or off + ln > len(data):
            break
        out.append((t, data[off + 4:off + ln]))
        off += (ln + 3) & ~3
    return out


def strict_parse(blob, spec, maxtype, ranges=None, binmax=INPUT_MAX * 4):
    """What nla_parse_nested() with the qdisc's policy makes of a nest:
    {type: payload} (last duplicate wins), or Reject; every instance of an
    attribute with a range in RANGES must be within it."""
    tb, off = {}, 0
    while len(blob) - off >= 4:
        ln, t = struct.unpack_from("HH", blob, off)
        if ln < 4 or ln > len(blob) - off:
            break
        payload = blob[off + 4:off + ln]
        typ = t & ~(NLA_F_NESTED | NLA_F_NET_BYTEORDER)
        if typ == 0 or typ > maxtype:
            raise Reject("unknown type")
        kind = spec[typ][1]
        if kind == NONE:
            raise Reject("unsupported")
        if kind in SIZE and len(payload) != SIZE[kind]:
            raise Reject("length")
        if t & NLA_F_NESTED:
            raise Reject("nested not expected")
        if kind == BIN and len(payload) > binmax:
            raise Reject("binary too long")
        if ranges and typ in ranges:
            lo, hi = ranges[typ]
            if not lo <= struct.unpack(FMT[kind], payload)[0] <= hi:
                raise Reject("out of the policy's range")
        tb[typ] = payload
        off += (ln + 3) & ~3
    if len(blob) - off > 0:
        raise Reject("trailing")
    return tb


def val(spec, tb, t):
    kind = spec[t][1]
    return struct.unpack(FMT[kind], tb[t])[0]


# ---- the models: a target's qdisc as the kernel should dump it ----

class Pools:
    """decbit's pools of the namespace: id -> [limit, ibl, users]."""

    def __init__(self):
        self.p = {}

    def get(self, pid):
        return self.p.get(pid)

    def put(self, pid):
        if pid:
            self.p[pid][2] -= 1
            if not self.p[pid][2]:
                del self.p[pid]


class DecbitModel:
    kind = "decbit"
    spec, maxtype = DECBIT, DECBIT_MAX

    def __init__(self):
        self.limit, self.threshold, self.hyst = 1000, 1000, 0
        self.rate, self.nonect, self.pool, self.inputs = 0, 0, 0, []
        self.catchup = CATCHUP_DEFAULT

    def copy(self):
        m = DecbitModel()
        m.__dict__.update(self.__dict__)
        m.inputs = list(self.inputs)
        return m

    def change(self, tb, ctx, create):
        """Apply a parsed nest (or raise Reject), as decbit_change()."""
        g = lambda t: val(DECBIT, tb, t)
        threshold, hyst = self.threshold, self.hyst
        if 1 in tb and not 1 <= g(1) <= LIMIT_MAX:
            raise Reject("limit")
        if 2 in tb:
            threshold = g(2)
            if not 1 <= threshold <= THRESHOLD_MAX:
                raise Reject("threshold")
        if 3 in tb:
            hyst = g(3)
        if hyst >= 2 * threshold:
            raise Reject("hysteresis")
        if 4 in tb and g(4) > RATE_MAX:
            raise Reject("rate")
        if 11 in tb and g(11) > CATCHUP_MAX:
            raise Reject("catchup")
        if 5 in tb and g(5) > 1:
            raise Reject("nonect")
        if 8 in tb and not 1 <= g(8) <= LIMIT_MAX:
            raise Reject("pool_limit")
        if 9 in tb and not 1 <= g(9) <= IBL_MAX:
            raise Reject("ibl")
        inputs = None
        if 10 in tb:
            raw = tb[10]
            if len(raw) % 4:
                raise Reject("input length")
            inputs = list(struct.unpack("%dI" % (len(raw) // 4), raw))
            for i, x in enumerate(inputs):
                if x == 0 or x >= 1 << 31 or x not in ctx.ifindexes:
                    raise Reject("input ifindex")
                if x in inputs[:i]:
                    raise Reject("input twice")
        # the pool the qdisc goes to
        pools = ctx.pools
        target, join, create_pool = self.pool, False, False
        if 7 not in tb:
            if not self.pool and (8 in tb or 9 in tb):
                raise Reject("pool settings without pool")
        else:
            pid = g(7)
            if not pid:
                if 8 in tb or 9 in tb:
                    raise Reject("pool settings without pool")
                target = 0
            elif pid != self.pool:
                if pools.get(pid):
                    join = True
                elif 8 in tb:
                    create_pool = True
                else:
                    raise Reject("no such pool")
                target = pid
        # accepted: apply
        if 1 in tb:
            self.limit = g(1)
        self.threshold, self.hyst = threshold, hyst
        if 5 in tb:
            self.nonect = g(5)
        if 4 in tb:
            self.rate = g(4)
        if 11 in tb:
            self.catchup = g(11)
        if inputs is not None:
            self.inputs = inputs
        if create_pool:
            pools.p[target] = [g(8), IBL_MAX, 1]
        elif join:
            pools.p[target][2] += 1
        old = self.pool
        self.pool = target
        if target and (8 in tb or 9 in tb):
            if 8 in tb:
                pools.p[target][0] = g(8)
            if 9 in tb:
                pools.p[target][1] = g(9)
        return old if old != target else 0	# the pool to put

    def release(self, ctx):
        ctx.pools.put(self.pool)

    def dump(self, ctx):
        d = {1: struct.pack("I", self.limit), 2: struct.pack("I", self.threshold),
             3: struct.pack("I", self.hyst), 4: struct.pack("Q", self.rate),
             5: struct.pack("B", self.nonect), 11: struct.pack("I", self.catchup)}
        if self.pool:
            limit, ibl, _ = ctx.pools.get(self.pool)
            d[7] = struct.pack("I", self.pool)
            d[8] = struct.pack("I", limit)
            d[9] = struct.pack("I", ibl)
        if self.inputs:
            d[10] = struct.pack("%dI" % len(self.inputs), *self.inputs)
        return d

    @staticmethod
    def replay(dump):
        return dict(dump)


class HbhModel:
    kind = "hbh"
    spec, maxtype = HBH, HBH_MAX

    def __init__(self):
        self.rate, self.limit, self.flow_limit, self.setpoint = 0, 10000, 100, 20
        self.period, self.hoprtt = 4000000, 20000000
        self.alpha, self.beta, self.mode = 410, 461, 0
        self.rise_cfg = self.rate_min_cfg = 0
        self.keyed, self.ethertype = 0, HBH_ETH_P

    def copy(self):
        m = HbhModel()
        m.__dict__.update(self.__dict__)
        return m

    def change(self, tb, ctx, create):
        if tb is None:
            raise Reject("rate is required")
        g = lambda t: val(HBH, tb, t)
        get = lambda t, cur: g(t) if t in tb else cur
        rate = get(1, self.rate)
        rate_min, rise = get(9, self.rate_min_cfg), get(8, self.rise_cfg)
        limit, flow_limit = get(2, self.limit), get(3, self.flow_limit)
        setpoint = get(4, self.setpoint)
        if create and 1 not in tb:
            raise Reject("rate required")
        if not 1 <= rate <= RATE_MAX:
            raise Reject("rate")
        if not 1 <= limit <= LIMIT_MAX:
            raise Reject("limit")
        if not 1 <= flow_limit <= LIMIT_MAX:
            raise Reject("flow_limit")
        if setpoint > flow_limit or setpoint > limit:
            raise Reject("setpoint")
        if not PERIOD_MIN <= get(5, self.period) <= PERIOD_MAX:
            raise Reject("period")
        if not HOPRTT_MIN <= get(10, self.hoprtt) <= HOPRTT_MAX:
            raise Reject("hoprtt")
        if not 1 <= get(6, self.alpha) <= HBH_SCALE:
            raise Reject("alpha")
        if not 1 <= get(7, self.beta) <= HBH_SCALE:
            raise Reject("beta")
        if rate_min > rate:
            raise Reject("rate_min")
        if rise > rate:
            raise Reject("rise")
        if 11 in tb and g(11) > 2:
            raise Reject("mode")
        if 14 in tb and len(tb[14]) not in HBH_KEY_LENS:
            raise Reject("key length")
        if 16 in tb and g(16) in HBH_RESERVED:
            raise Reject("ethertype reserved")
        if 16 in tb and not create and g(16) != self.ethertype:
            raise Reject("ethertype changed")
        if 14 in tb:
            self.keyed = 1 if len(tb[14]) else 0
        if 16 in tb:
            self.ethertype = g(16)
        self.rate, self.rate_min_cfg, self.rise_cfg = rate, rate_min, rise
        self.limit, self.flow_limit, self.setpoint = limit, flow_limit, setpoint
        self.period, self.hoprtt = get(5, self.period), get(10, self.hoprtt)
        self.alpha, self.beta = get(6, self.alpha), get(7, self.beta)
        self.mode = get(11, self.mode)
        return 0

    def release(self, ctx):
        pass

    def dump(self, ctx):
        rise = self.rise_cfg or max(self.rate // 64, 1)
        rate_min = self.rate_min_cfg or max(self.rate // 1024, 1)
        derived = (0 if self.rise_cfg else 1) | (0 if self.rate_min_cfg else 2)
        return {1: struct.pack("Q", self.rate), 2: struct.pack("I", self.limit),
                3: struct.pack("I", self.flow_limit), 4: struct.pack("I", self.setpoint),
                5: struct.pack("I", self.period), 6: struct.pack("I", self.alpha),
                7: struct.pack("I", self.beta), 8: struct.pack("Q", rise),
                9: struct.pack("Q", rate_min), 10: struct.pack("I", self.hoprtt),
                11: struct.pack("B", self.mode), 13: struct.pack("B", derived),
                15: struct.pack("B", self.keyed), 16: struct.pack("H", self.ethertype)}

    @staticmethod
    def replay(dump):
        """What "tc" sends back from a dump: derived values as 0."""
        d = dict(dump)
        d.pop(15, None)		# "keyed": tc sends nothing, the key stays
        derived = d.pop(13, b"\0")[0]
        if derived & 1:
            d[8] = struct.pack("Q", 0)
        if derived & 2:
            d[9] = struct.pack("Q", 0)
        return d


class Target:
    def __init__(self, spec):
        parts = spec.split(":")
        self.dev = parts[0]
        self.ifindex = socket.if_nametoindex(self.dev)
        if len(parts) == 3:
            self.parent = (int(parts[1], 16) << 16) | int(parts[2], 16)
        else:
            self.parent = TC_H_ROOT
        self.state = None	# a model, "pfifo", or None (the default)
        self.name = spec


class Ctx:
    def __init__(self):
        self.pools = Pools()
        self.ifindexes = {i for i, _ in socket.if_nameindex()}


# ---- netlink ----

class Nl:
    def __init__(self):
        self.s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
        self.s.setsockopt(270, NETLINK_EXT_ACK, 1)
        self.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        self.s.settimeout(30)
        self.seq = 0

    def request(self, typ, flags, tcm, body):
        self.seq += 1
        msg = struct.pack("IHHII", 16 + len(tcm) + len(body), typ, flags, self.seq, 0)
        self.s.send(msg + tcm + body)
        while True:
            data = self.s.recv(65536)
            off = 0
            while off + 16 <= len(data):
                ln, t, _, seq, _ = struct.unpack_from("IHHII", data, off)
                if seq == self.seq and t == NLMSG_ERROR:
                    err = -struct.unpack_from("i", data, off + 16)[0]
                    return err, self.extack(data[off:off + ln], err)
                off += (ln + 3) & ~3

    @staticmethod
    def extack(msg, err):
        if len(msg) < 20:
            return ""
        off = 20 + (16 if not err else (struct.unpack_from("I", msg, 20)[0] + 3) & ~3)
        for t, p in parse_attrs(msg[off:]):
            if t == 1:
                return p.rstrip(b"\0").decode(errors="replace")
        return ""

    def dump(self):
        """[(ifindex, parent, kind, options bytes or None)] of every qdisc."""
        self.seq += 1
        tcm = struct.pack("BxxxiIII", socket.AF_UNSPEC, 0, 0, 0, 0)
        msg = struct.pack("IHHII", 16 + len(tcm), RTM_GETQDISC,
                          NLM_F_REQUEST | NLM_F_ROOT | NLM_F_MATCH, self.seq, 0)
        self.s.send(msg + tcm)
        out = []
        while True:
            data = self.s.recv(1 << 20)
            off = 0
            while off + 16 <= len(data):
                ln, t, _, seq, _ = struct.unpack_from("IHHII", data, off)
                if seq != self.seq:
                    off += (ln + 3) & ~3
                    continue
                if t == NLMSG_DONE:
                    return out
                if t == NLMSG_ERROR:
                    raise OSError(-struct.unpack_from("i", data, off + 16)[0], "dump")
                _, ifindex, handle, parent, _ = struct.unpack_from("BxxxiIII", data, off + 16)
                kind, opts = None, None
                for at, p in parse_attrs(data[off + 36:off + ln]):
                    if at == TCA_KIND:
                        kind = p.rstrip(b"\0").decode()
                    elif at & 0x3FFF == TCA_OPTIONS:
                        opts = p
                out.append((ifindex, parent, handle, kind, opts))
                off += (ln + 3) & ~3


def tcm_of(tgt):
    return struct.pack("BxxxiIII", socket.AF_UNSPEC, tgt.ifindex, 0, tgt.parent, 0)


# ---- generation ----

def boundary_values(kind):
    if kind == U8:
        return [0, 1, 2, 3, 0x7F, 0x80, 0xFF]
    if kind == U16:
        return [0, 1, 0x5FF, 0x600, 0x800, 0x86DD, HBH_ETH_P, 0x8100, 0xFFFF]
    vals = [0, 1, 2, 999, 1000, 1001, 10000, 99999, 100000, 100001,
            LIMIT_MAX - 1, LIMIT_MAX, LIMIT_MAX + 1, THRESHOLD_MAX, THRESHOLD_MAX + 1,
            HOPRTT_MAX, HOPRTT_MAX + 1, HBH_SCALE, HBH_SCALE + 1,
            CATCHUP_MAX, CATCHUP_MAX + 1,
            0x7FFFFFFF, 0x80000000, 0xFFFFFFFE, 0xFFFFFFFF]
    if kind == U64:
        vals += [RATE_MAX - 1, RATE_MAX, RATE_MAX + 1, 1 << 32, (1 << 63) - 1,
                 1 << 63, (1 << 64) - 1, 125000, 1250000, 125000000]
    return vals


def sane_value(name, rng, ctx):
    """A value the qdisc is likely to take."""
    r = {"limit": lambda: rng.choice([1, 2, 10, 100, 1000, rng.randint(1, 20000)]),
         "flow_limit": lambda: rng.choice([1, 10, 100, rng.randint(1, 2000)]),
         "threshold": lambda: rng.choice([1, 500, 1000, 2500, rng.randint(1, 100000)]),
         "hysteresis": lambda: rng.choice([0, 0, 500, 999, rng.randint(0, 3000)]),
         "rate": lambda: rng.choice([0, 1, 125000, 1250000, 12500000, rng.randint(1, RATE_MAX)]),
         "nonect": lambda: rng.randint(0, 1),
         "catchup": lambda: rng.choice([0, 600000, CATCHUP_DEFAULT, CATCHUP_MAX,
                                        rng.randint(0, CATCHUP_MAX)]),
         "pool": lambda: rng.choice([0, 1, 2, 3, rng.randint(1, 5)]),
         "pool_limit": lambda: rng.choice([1, 10, 100, rng.randint(1, 5000)]),
         "ibl": lambda: rng.choice([1, 250000, 500000, IBL_MAX, rng.randint(1, IBL_MAX)]),
         "setpoint": lambda: rng.choice([0, 1, 5, 20, rng.randint(0, 200)]),
         "period": lambda: rng.choice([PERIOD_MIN, 1000000, 4000000, rng.randint(PERIOD_MIN, 50000000)]),
         "hoprtt": lambda: rng.choice([HOPRTT_MIN, 1000000, 20000000, rng.randint(HOPRTT_MIN, 200000000)]),
         "alpha": lambda: rng.randint(1, HBH_SCALE),
         "beta": lambda: rng.randint(1, HBH_SCALE),
         "rise": lambda: rng.choice([0, 0, 1000, rng.randint(0, 1000000)]),
         "rate_min": lambda: rng.choice([0, 0, 100, rng.randint(0, 100000)]),
         "mode": lambda: rng.randint(0, 2),
         "ethertype": lambda: rng.choice([HBH_ETH_P, HBH_ETH_P, 0x88B6, 0x0600, 0x05FF,
                                          0x0800, 0x86DD, 0xFFFF, rng.choice(sorted(HBH_RESERVED)),
                                          rng.randint(0x600, 0xFFFF)])}
    return r[name]()


def input_payload(rng, ctx):
    idx = sorted(ctx.ifindexes)
    c = rng.random()
    if c < 0.5:
        n = rng.randint(0, min(len(idx), INPUT_MAX))
        lst = rng.sample(idx, n)
    elif c < 0.7:
        lst = [rng.choice(idx) for _ in range(rng.randint(2, 4))]	# duplicates
    elif c < 0.85:
        lst = [rng.choice(idx + [0, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 999])
               for _ in range(rng.randint(1, INPUT_MAX + 2))]
    else:
        return bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 70)))
    return struct.pack("%dI" % len(lst), *lst)


def key_payload(rng):
    """hbh's key: the lengths it takes (0, 16, 32) and others."""
    n = rng.choice([0, 1, 15, 16, 16, 17, 31, 32, 32, 33, 64])
    return bytes(rng.getrandbits(8) for _ in range(n))


def gen_attr(rng, model_cls, ctx, t=None):
    spec, maxtype = model_cls.spec, model_cls.maxtype
    c = rng.random()
    if t is None:
        if c < 0.9:
            t = rng.randint(1, maxtype)
        else:
            t = rng.choice([0, maxtype + 1, maxtype + 2, 0x3FFF, rng.randint(0, 0x3FFF)])
    flags = 0
    if rng.random() < 0.03:
        flags = rng.choice([NLA_F_NESTED, NLA_F_NET_BYTEORDER])
    name, kind = spec.get(t, ("unknown", U32))
    if kind == NONE:
        kind = rng.choice([U8, U32, U64])
    c = rng.random()
    if kind == BIN:
        payload = key_payload(rng) if model_cls is HbhModel else input_payload(rng, ctx)
    elif c < 0.08:
        # wrong size
        payload = bytes(rng.getrandbits(8) for _ in range(rng.choice([0, 1, 2, 3, 5, 6, 7, 9, 12, 16])))
    elif c < 0.12:
        # nested garbage
        inner = b"".join(gen_attr(rng, model_cls, ctx) for _ in range(rng.randint(0, 3)))
        payload = inner + bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 5)))
        flags |= NLA_F_NESTED if rng.random() < 0.7 else 0
    else:
        if c < 0.45:
            v = rng.choice(boundary_values(kind))
        elif c < 0.55:
            v = rng.getrandbits(8 * SIZE[kind])
        else:
            try:
                v = sane_value(name, rng, ctx)
            except KeyError:
                v = rng.getrandbits(8 * SIZE[kind])
        v &= (1 << (8 * SIZE[kind])) - 1
        payload = struct.pack(FMT[kind], v)
    return attr(t | flags, payload)


def gen_sane(rng, model_cls, ctx):
    """A set of well-formed attributes with likely values."""
    out = b""
    for t, (name, kind) in model_cls.spec.items():
        if kind == NONE or rng.random() < 0.6:
            continue
        if kind == BIN and model_cls is HbhModel:
            out += attr(t, bytes(rng.getrandbits(8) for _ in range(rng.choice([0, 16, 32]))))
            continue
        if kind == BIN:
            out += attr(t, input_payload(rng, ctx) if rng.random() < 0.3 else b"")
            continue
        out += attr(t, struct.pack(FMT[kind], sane_value(name, rng, ctx)))
    if model_cls is HbhModel and rng.random() < 0.8:
        out = attr(1, struct.pack("Q", sane_value("rate", rng, ctx) or 1)) + out
    if model_cls is DecbitModel and rng.random() < 0.2:
        pid = rng.randint(1, 4)
        out += attr(7, struct.pack("I", pid)) + attr(8, struct.pack("I", rng.randint(1, 3000)))
    return out


def mutate(rng, blob, model_cls, ctx):
    b = bytearray(blob)
    for _ in range(rng.randint(1, 3)):
        c = rng.random()
        if c < 0.2 and b:
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
        elif c < 0.35 and b:
            i = rng.randrange(len(b))
            b[i] = rng.choice([0, 1, 0x7F, 0x80, 0xFF, rng.getrandbits(8)])
        elif c < 0.5 and len(b) >= 4:
            # an nla_len field somewhere: shorter, longer, zero
            attrs_at = []
            off = 0
            while off + 4 <= len(b):
                ln = struct.unpack_from("H", b, off)[0]
                attrs_at.append(off)
                if ln < 4:
                    break
                off += (ln + 3) & ~3
            off = rng.choice(attrs_at)
            ln = struct.unpack_from("H", b, off)[0]
            struct.pack_into("H", b, off, rng.choice([0, 3, 4, max(ln - 1, 0), ln + 1, ln + 4, 0xFFFF])
                             & 0xFFFF)
        elif c < 0.6 and b:
            del b[rng.randrange(len(b)):]				# truncated
        elif c < 0.7:
            b += gen_attr(rng, model_cls, ctx)			# one more
        elif c < 0.8 and len(b) >= 8:
            # duplicate an attribute (the first well-formed one)
            a = parse_attrs(bytes(b))
            if a:
                t, p = rng.choice(a)
                b += attr(t, p)
        elif c < 0.9:
            b = bytearray(gen_sane(rng, model_cls, ctx)) + b	# splice
        else:
            i = rng.randrange(len(b) + 1)
            b[i:i] = bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 8)))
    return bytes(b)


def gen_options(rng, model_cls, ctx, corpus):
    """(TCA_OPTIONS attribute bytes or b"" for none, the nest's content
    or None, whether NLA_F_NESTED is set)."""
    c = rng.random()
    if c < 0.03:
        return b"", None, False				# no TCA_OPTIONS
    if c < 0.3:
        inner = gen_sane(rng, model_cls, ctx)
    elif c < 0.6 and corpus:
        inner = mutate(rng, rng.choice(corpus), model_cls, ctx)
    elif c < 0.9:
        inner = b"".join(gen_attr(rng, model_cls, ctx) for _ in range(rng.randint(0, 8)))
    else:
        inner = bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 40)))
    flags = NLA_F_NESTED if rng.random() < 0.97 else 0
    if len(inner) > 0xFFF0:
        inner = inner[:0xFFF0]
    return attr(TCA_OPTIONS | flags, inner), inner, bool(flags)


# ---- the run ----

class Fuzz:
    def __init__(self, kind, targets, seed):
        self.cls = DecbitModel if kind == "decbit" else HbhModel
        self.kind = kind
        self.nl = Nl()
        self.ctx = Ctx()
        self.rng = random.Random(seed)
        self.targets = targets
        self.corpus = []
        self.stats = {"cases": 0, "accepted": 0, "refused": 0, "add": 0, "change": 0,
                      "replace": 0, "replays": 0, "mismatches": 0, "created": 0}
        self.errnos = {}
        self.fails = []

    def fail(self, what):
        self.stats["mismatches"] += 1
        if len(self.fails) < 20:
            self.fails.append(what)
            print("# MISMATCH " + what, flush=True)

    # the state of every target as the kernel dumps it
    def actual(self):
        got = {}
        for ifindex, parent, handle, kind, opts in self.nl.dump():
            for tg in self.targets:
                if tg.ifindex == ifindex and tg.parent == parent:
                    got[tg.name] = (kind, opts)
        return got

    def expected(self, tg):
        if tg.state is None:
            return None
        if tg.state == "pfifo":
            return ("pfifo", None)
        return (self.kind, tg.state.dump(self.ctx))

    def verify(self, where):
        got = self.actual()
        ok = True
        for tg in self.targets:
            exp = self.expected(tg)
            kind, opts = got.get(tg.name, (None, None))
            if exp is None:
                if kind in (self.kind, "pfifo") and self.is_ours(tg, kind):
                    ok = False
                    self.fail(f"{where}: {tg.name}: expected the default qdisc, dumps {kind}")
                continue
            if kind != exp[0]:
                ok = False
                self.fail(f"{where}: {tg.name}: expected {exp[0]}, dumps {kind}")
                continue
            if kind == "pfifo":
                continue
            d = {t: p for t, p in parse_attrs(opts or b"")}
            if d != exp[1]:
                ok = False
                self.fail(f"{where}: {tg.name}: dump {self.fmt(d)} != model {self.fmt(exp[1])}")
        return ok, got

    def is_ours(self, tg, kind):
        # an htb class's default child is a pfifo too; only a handle we gave
        # (none: every qdisc here is created without one) tells; accept
        return kind == self.kind

    def fmt(self, d):
        out = []
        for t in sorted(d):
            p = d[t]
            name = self.cls.spec.get(t, (str(t),))[0]
            out.append(f"{name}={p.hex()}")
        return " ".join(out)

    def send(self, tg, flags, opts_attr, kind=None):
        body = attr(TCA_KIND, (kind or self.kind).encode() + b"\0") + opts_attr
        return self.nl.request(RTM_NEWQDISC, NLM_F_REQUEST | NLM_F_ACK | flags,
                               tcm_of(tg), body)

    def delete(self, tg):
        self.nl.request(RTM_DELQDISC, NLM_F_REQUEST | NLM_F_ACK, tcm_of(tg), b"")
        if isinstance(tg.state, self.cls):
            tg.state.release(self.ctx)
        tg.state = None

    def predict(self, tg, op, inner, has_opts, nested):
        """(accepted?, new model or None, pool to put) for a request.

        The core's choice (tc_modify_qdisc): no qdisc of ours there (the
        default): add and replace create, change finds nothing; one of
        another kind: every request creates a new one in its place; one
        of this kind: add is refused, change and replace change it."""
        cur = tg.state
        ours = isinstance(cur, self.cls)
        if cur is None:
            if op == "change":
                return False, None, 0
            create = True
        elif not ours:
            create = True
        else:
            if op == "add":
                return False, None, 0
            create = False
        try:
            if not has_opts:
                tb = None
            else:
                if not nested:
                    raise Reject("NLA_F_NESTED missing")
                tb = strict_parse(inner, self.cls.spec, self.cls.maxtype,
                                  RANGES.get(self.kind), BIN_MAX[self.kind])
        except Reject:
            return False, None, 0
        if not create and tb is None:
            return True, cur, 0		# change without options: nothing
        m = self.cls() if create else cur.copy()
        pools_before = {k: list(v) for k, v in self.ctx.pools.p.items()}
        try:
            if tb is None:
                if self.cls is HbhModel:
                    raise Reject("rate is required")
                put = 0
            else:
                put = m.change(tb, self.ctx, create)
        except Reject:
            self.ctx.pools.p = pools_before
            return False, None, 0
        return True, m, put

    def one(self):
        rng = self.rng
        tg = rng.choice(self.targets)
        op = rng.choice(["add", "change", "replace"])
        self.stats[op] += 1
        # set the scene now and then: the default, another kind, ours
        r = rng.random()
        if op == "add" and tg.state is not None and r < 0.9:
            self.delete(tg)
        elif r < 0.03:
            self.delete(tg)
        elif r < 0.06:
            err, _ = self.send(tg, NLM_F_CREATE | NLM_F_REPLACE,
                               attr(TCA_OPTIONS, struct.pack("I", 100)), "pfifo")
            if err:
                self.fail(f"pfifo on {tg.name}: errno {err}")
            if isinstance(tg.state, self.cls):
                tg.state.release(self.ctx)
            tg.state = "pfifo"
        opts_attr, inner, nested = gen_options(rng, self.cls, self.ctx, self.corpus)
        has_opts = bool(opts_attr)
        pools_before = {k: list(v) for k, v in self.ctx.pools.p.items()}
        ok, model, put = self.predict(tg, op, inner, has_opts, nested)
        flags = {"add": NLM_F_CREATE | NLM_F_EXCL, "change": 0,
                 "replace": NLM_F_CREATE | NLM_F_REPLACE}[op]
        err, msg = self.send(tg, flags, opts_attr)
        self.stats["cases"] += 1
        self.errnos[err] = self.errnos.get(err, 0) + 1
        desc = f"{op} {tg.name} opts={opts_attr.hex()} -> errno {err} {msg!r}"
        if (err == 0) != ok:
            self.fail(f"{desc}: the model says {'accept' if ok else 'refuse'}")
            self.resync()
            return
        if err:
            self.stats["refused"] += 1
            self.ctx.pools.p = pools_before
        else:
            self.stats["accepted"] += 1
            if model is not tg.state:
                self.stats["created"] += tg.state is None or not isinstance(tg.state, self.cls)
            if put:
                self.ctx.pools.put(put)
            tg.state = model
            if inner is not None and len(self.corpus) < 2000:
                self.corpus.append(inner)
            elif inner is not None:
                self.corpus[rng.randrange(len(self.corpus))] = inner
        if self.stats["cases"] % 10 == 0 or err == 0 and rng.random() < 0.05:
            ok, got = self.verify(desc)
            if not ok:
                self.resync()
                return
            self.replay(tg, got)

    def replay(self, tg, got):
        """The target's dump, sent back as a change, changes nothing."""
        if not isinstance(tg.state, self.cls):
            return
        d = self.cls.replay({t: p for t, p in parse_attrs(got[tg.name][1] or b"")})
        inner = b"".join(attr(t, p) for t, p in sorted(d.items()))
        err, msg = self.send(tg, 0, attr(TCA_OPTIONS | NLA_F_NESTED, inner))
        self.stats["replays"] += 1
        if err:
            self.fail(f"replay on {tg.name} of {inner.hex()}: errno {err} {msg!r}")
            return
        self.verify(f"after the replay on {tg.name}")

    def resync(self):
        """After a mismatch: back to a known state (no qdisc of ours)."""
        for tg in self.targets:
            self.delete(tg)
        self.ctx.pools = Pools()

    def finish(self):
        ok, _ = self.verify("final")
        return ok


# ---- churn: concurrent valid operations for the stress test ----

def churn(kinds, devs, secs, maxops, seed, only=None):
    """Random add, change, replace and delete of KINDS on DEVS (roots) with
    likely values (decbit: pools 1 and 2, input interfaces), until SECS or
    MAXOPS requests.  Prints "ops=N accepted=N"."""
    rng = random.Random(seed)
    nl, ctx = Nl(), Ctx()
    targets = [Target(d) for d in devs]
    ops = accepted = 0
    end = time.monotonic() + secs
    while ops < maxops and time.monotonic() < end:
        tg = rng.choice(targets)
        kind = rng.choice(kinds)
        cls = DecbitModel if kind == "decbit" else HbhModel
        op = only or rng.choice(["add", "change", "replace", "replace", "del"])
        if op == "del":
            err, _ = nl.request(RTM_DELQDISC, NLM_F_REQUEST | NLM_F_ACK, tcm_of(tg), b"")
        else:
            inner = gen_sane(rng, cls, ctx)
            if cls is HbhModel:
                # a period of at least 1 ms: 100 us timers starve a TCG guest
                inner += attr(5, struct.pack("I", rng.choice([1000000, 2000000, 4000000])))
            flags = {"add": NLM_F_CREATE | NLM_F_EXCL, "change": 0,
                     "replace": NLM_F_CREATE | NLM_F_REPLACE}[op]
            body = attr(TCA_KIND, kind.encode() + b"\0") + attr(TCA_OPTIONS | NLA_F_NESTED, inner)
            err, _ = nl.request(RTM_NEWQDISC, NLM_F_REQUEST | NLM_F_ACK | flags, tcm_of(tg), body)
        ops += 1
        accepted += err == 0
    print(f"ops={ops} accepted={accepted}")
    return 0


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "churn":
        ap = argparse.ArgumentParser()
        ap.add_argument("cmd")
        ap.add_argument("kinds")
        ap.add_argument("devs", nargs="+")
        ap.add_argument("--time", type=float, default=30)
        ap.add_argument("--ops", type=int, default=100000)
        ap.add_argument("--seed", type=int, default=None)
        ap.add_argument("--only", choices=["add", "change", "replace", "del"])
        a = ap.parse_args()
        return churn(a.kinds.split(","), a.devs, a.time, a.ops, a.seed, a.only)
    ap = argparse.ArgumentParser()
    ap.add_argument("kind", choices=["decbit", "hbh"])
    ap.add_argument("targets", nargs="+")
    ap.add_argument("--cases", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--time", type=float, default=0, help="stop after this many seconds")
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else int.from_bytes(os.urandom(4), "little")
    f = Fuzz(a.kind, [Target(t) for t in a.targets], seed)
    t0 = time.monotonic()
    while f.stats["cases"] < a.cases:
        f.one()
        if a.time and time.monotonic() - t0 > a.time:
            break
    f.finish()
    secs = time.monotonic() - t0
    s = f.stats
    top = sorted(f.errnos.items(), key=lambda x: -x[1])[:8]
    print(f"# {a.kind} seed={seed} cases={s['cases']} accepted={s['accepted']} "
          f"refused={s['refused']} add={s['add']} change={s['change']} "
          f"replace={s['replace']} replays={s['replays']} corpus={len(f.corpus)} "
          f"mismatches={s['mismatches']} secs={secs:.0f} errnos={dict(top)}")
    print(f"cases={s['cases']} mismatches={s['mismatches']} replays={s['replays']}")
    return 0 if s["mismatches"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
