# SPDX-License-Identifier: GPL-2.0
"""netlink.filter_bytes on crafted rtnetlink replies."""
import struct
import unittest

from congavoid_exp import netlink


def attr(atype, payload):
    a = struct.pack("HH", 4 + len(payload), atype) + payload
    return a + b"\0" * (-len(a) % 4)


def nlmsg(mtype, seq, payload):
    return struct.pack("IHHII", 16 + len(payload), mtype, 0, seq, 0) + payload


class FakeSock:
    """Answers one dump request with canned messages."""

    def __init__(self, msgs):
        self.msgs, self.sent = msgs, []

    def send(self, data):
        self.sent.append(data)

    def recv(self, _):
        data, self.msgs = b"".join(self.msgs), []
        return data


def flower(pref, handle, bytes_, with_options=True):
    tcm = struct.pack("BxxxiIII", 2, 7, handle, netlink.TC_H_INGRESS_PARENT,
                      (pref << 16) | 0x0008)
    body = attr(netlink.TCA_KIND, b"flower\0")
    if with_options:
        basic = struct.pack("QI", bytes_, bytes_ // 1000) + b"\0" * 4
        stats = attr(netlink.TCA_STATS_BASIC, basic)
        act = attr(1, b"gact\0") + attr(netlink.TCA_ACT_STATS, stats)
        acts = attr(1, act) + attr(2, attr(netlink.TCA_ACT_STATS,
                                           attr(netlink.TCA_STATS_BASIC, struct.pack("QI", 99, 1))))
        body += attr(netlink.TCA_OPTIONS, attr(netlink.TCA_FLOWER_ACT, acts))
    return nlmsg(netlink.RTM_GETTFILTER + 2, 5, tcm + body)


class FilterBytes(unittest.TestCase):
    def test_counts_by_pref(self):
        # (two handles of one pref are summed; a head has no options)
        sock = FakeSock([flower(5202, 0, 0, with_options=False), flower(5202, 1, 123456),
                         flower(5202, 2, 1000), flower(5204, 1, 777),
                         nlmsg(netlink.NLMSG_DONE, 5, b"\0" * 4)])
        self.assertEqual(netlink.filter_bytes(sock, 7, seq=5), {5202: 124456, 5204: 777})
        # the request asks for the clsact ingress of interface 7
        _, mtype, flags, seq, _ = struct.unpack_from("IHHII", sock.sent[0])
        self.assertEqual((mtype, seq), (netlink.RTM_GETTFILTER, 5))
        self.assertEqual(struct.unpack_from("BxxxiIII", sock.sent[0], 16)[1:4],
                         (7, 0, netlink.TC_H_INGRESS_PARENT))

    def test_no_filter_no_count(self):
        sock = FakeSock([nlmsg(netlink.NLMSG_DONE, 1, b"\0" * 4)])
        self.assertEqual(netlink.filter_bytes(sock, 3), {})

    def test_error_raises(self):
        sock = FakeSock([nlmsg(netlink.NLMSG_ERROR, 1, struct.pack("i", -19))])
        with self.assertRaises(OSError):
            netlink.filter_bytes(sock, 3)


if __name__ == "__main__":
    unittest.main()
