# SPDX-License-Identifier: GPL-2.0
"""Graph topologies and routes, checked against Lam & Lien's 7-node
network, and the runner's options for its routers."""

import unittest

from congavoid_exp import graph, metrics, netlink, testbed

LL7 = ["1-2", "1-3", "2-3", "2-5", "3-4", "4-6", "5-6", "5-7", "6-7"]


class Links(unittest.TestCase):
    def test_parse_sorts_and_normalises(self):
        self.assertEqual(graph.parse_links(["2-1", " 3 - 2 "], 3),
                         [(1, 2), (2, 3)])

    def test_bad_links_refused(self):
        for links, nodes, msg in ((["1-1"], 2, "itself"),
                                  (["1-3"], 2, "not in 1..2"),
                                  (["1-2", "2-1"], 2, "twice"),
                                  (["1_2"], 2, "bad link"),
                                  (["1-2"], 3, "not connected")):
            with self.assertRaisesRegex(ValueError, msg):
                graph.parse_links(links, nodes)


class Routes(unittest.TestCase):
    def setUp(self):
        self.links = graph.parse_links(LL7, 7)

    def test_paper_network(self):
        # 42 ordered pairs x 2 routes = 84 routes (the paper's 84); mean
        # path length 3.3 nodes (the paper's H-bar)
        rts = graph.routes(self.links, 7, 2)
        self.assertEqual(len(rts), 84)
        self.assertAlmostEqual(graph.mean_path_nodes(rts), 3.31, places=2)
        # 7 to 16 routes per directed channel (the paper's Table 1: 7-15)
        load = graph.channel_load(rts)
        self.assertEqual(len(load), 18)
        self.assertGreaterEqual(min(load.values()), 6)
        self.assertLessEqual(max(load.values()), 16)

    def test_shortest_first_and_loop_free(self):
        rts = graph.routes(self.links, 7, 2)
        by_pair = {}
        for r in rts:
            by_pair.setdefault((r["src"], r["dst"]), []).append(r)
            p = r["path"]
            self.assertEqual(len(set(p)), len(p))
            self.assertEqual((p[0], p[-1]), (r["src"], r["dst"]))
            for u, v in zip(p, p[1:]):
                self.assertIn((min(u, v), max(u, v)), self.links)
        for rs in by_pair.values():
            self.assertEqual(len(rs), 2)
            self.assertLessEqual(rs[0]["links"], rs[1]["links"])
        self.assertEqual(by_pair[1, 2][0]["path"], [1, 2])
        self.assertEqual(by_pair[1, 2][1]["path"], [1, 3, 2])
        # 1 -> 7: 1-2-5-7 (3 links) is the only shortest route
        self.assertEqual(by_pair[1, 7][0]["path"], [1, 2, 5, 7])

    def test_dense_graph_is_quick(self):
        # a complete graph on 16 nodes has ~10^12 simple paths per pair;
        # the search stops at the lengths it needs
        import time
        links = [(a, b) for a in range(1, 17) for b in range(a + 1, 17)]
        t = time.monotonic()
        rts = graph.routes(links, 16, 4)
        self.assertLess(time.monotonic() - t, 10)
        self.assertEqual(len(rts), 16 * 15 * 4)
        # the direct link first, then three two-link paths
        self.assertEqual([r["links"] for r in rts[:4]], [1, 2, 2, 2])

    def test_one_route_per_pair(self):
        rts = graph.routes(self.links, 7, 1)
        self.assertEqual(len(rts), 42)
        self.assertAlmostEqual(graph.mean_path_nodes(rts), 114 / 42)

    def test_addresses_unique(self):
        addrs = {graph.route_addr(r) for r in range(1000)}
        self.assertEqual(len(addrs), 1000)


class Options(unittest.TestCase):
    TOPO = {"rate": 500e3, "buffer": 100, "mean_path_nodes": 3.3}

    def test_ibl_from_alpha(self):
        arm = {"qdisc_opts": "pool 1 pool_limit 50", "ibl_alpha": 0.7}
        o = testbed.qdisc_options(self.TOPO, arm)
        self.assertEqual(o[:4], ["rate", "500000bit", "limit", "50"])
        ibl = float(o[o.index("ibl") + 1])
        # the paper's worked value: alpha 0.7, H 3.3 -> N_I = 10 at N_T 50
        self.assertEqual(int(ibl * 50), 10)
        self.assertIn("input", o)

    def test_no_pool_no_input(self):
        o = testbed.qdisc_options(self.TOPO, {"qdisc_opts": None,
                                               "ibl_alpha": None})
        self.assertEqual(o, ["rate", "500000bit", "limit", "100"])

    def test_window_delta(self):
        s = [{"t": t, "router": "r1", "link": l, "pool_dropped": v}
             for t, l, v in ((0.5, "a", 0), (1.0, "a", 10), (2.0, "a", 25),
                             (3.0, "a", 40), (1.5, "b", 7), (2.5, "b", 9))]
        # a: 10 -> 25 inside [1, 2]; b: one sample only
        self.assertEqual(metrics.window_delta(s, "pool_dropped", 1.0, 2.0),
                         15)
        self.assertEqual(metrics.window_delta(s, "pool_dropped", 1.0, 3.0),
                         32)
        self.assertIsNone(metrics.window_delta(s, "pool_dropped", 5, 6))

    def test_xstats_decoding(self):
        import struct
        raw = struct.pack("QQQQQIIQQIIII", 1, 2, 3, 4, 5, 6, 0, 7, 8, 9,
                          10, 11, 12)
        x = netlink.decbit_xstats(raw)
        self.assertEqual((x["marked"], x["overlimit_dropped"],
                          x["ibl_dropped"], x["pool_dropped"],
                          x["pool_used"], x["pool_input"],
                          x["pool_input_limit"], x["input_qlen"]),
                         (1, 4, 7, 8, 9, 10, 11, 12))
        self.assertIsNone(netlink.decbit_xstats(raw[:48]))
        # a module before lost_ns sends 80 bytes: no such key; one with it
        # 88, the counter last
        self.assertNotIn("lost_ns", x)
        x = netlink.decbit_xstats(raw + struct.pack("Q", 13))
        self.assertEqual((x["input_qlen"], x["lost_ns"]), (12, 13))


if __name__ == "__main__":
    unittest.main()


class ShellBody(unittest.TestCase):
    """A namespace's set-up lines: ip and tc each in one batch process,
    after the other lines, each group in its own order; stops at the first
    failure."""

    def test_groups_in_order(self):
        body = testbed.shell_body([
            "ip link set dev lo up", "sysctl -qw a=1",
            "ethtool -K x tso off >/dev/null 2>&1 || true",
            "tc qdisc add dev x root netem delay 1000us",
            "ip addr add 10.0.0.1/24 dev x", "ip route add default via 10.0.0.2",
            "tc qdisc add dev y root pfifo"])
        self.assertEqual(body.splitlines(), [
            "set -e", "sysctl -qw a=1",
            "ethtool -K x tso off >/dev/null 2>&1 || true",
            "ip -batch - <<'END_OF_BATCH'", "link set dev lo up",
            "addr add 10.0.0.1/24 dev x", "route add default via 10.0.0.2",
            "END_OF_BATCH",
            "tc -batch - <<'END_OF_BATCH'",
            "qdisc add dev x root netem delay 1000us",
            "qdisc add dev y root pfifo", "END_OF_BATCH"])

    def test_no_empty_batch(self):
        self.assertEqual(testbed.shell_body(["sysctl -qw a=1"]),
                         "set -e\nsysctl -qw a=1\n")

    def test_ipv6_and_tcpdump_are_not_ip_or_tc(self):
        body = testbed.shell_body(["ip6tables -L", "tcpdump -c 1"])
        self.assertNotIn("batch", body)
