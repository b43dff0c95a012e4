# SPDX-License-Identifier: GPL-2.0
"""Scenario-file validation: good files load, broken ones are refused
with the file, line and field named."""

import unittest
from pathlib import Path

from congavoid_exp.scenario import Scenario, ScenarioError, parse_rate, \
    parse_time

GOOD = """\
name = "t"
duration = "10s"

[topology]
kind = "dumbbell"
hosts = 2
rate = "10mbit"
delay = "20ms"
buffer = "2bdp"

[[flows]]
count = 2
every = "1s"

[[arms]]
name = "reno"
cc = "reno"

[[arms]]
name = "red"
cc = "dctcp"
qdisc = "red"
qdisc_opts = "limit 100000 bandwidth {rate} min {x}"

[sweep]
param = "x"
values = [3000, 6000]
"""


def bad(old, new):
    assert old in GOOD, old
    return GOOD.replace(old, new, 1)


class Scenarios(unittest.TestCase):
    def refused(self, text, line, field, words):
        with self.assertRaises(ScenarioError) as cm:
            Scenario("x.toml", text)
        e = cm.exception
        self.assertEqual(e.path, "x.toml")
        self.assertEqual(e.line, line, str(e))
        self.assertEqual(e.field, field, str(e))
        self.assertIn(words, e.msg)
        where = f"x.toml:{line}: " if line else "x.toml: "
        self.assertTrue(str(e).startswith(where), str(e))

    def test_good_file(self):
        sc = Scenario("x.toml", GOOD)
        self.assertEqual(sc.duration, 10.0)
        self.assertEqual(sc.topology["rate"], 10e6)
        # 2 BDP of 10 Mbit/s x 20 ms in 1500-byte packets = 33.3 -> 33
        self.assertEqual(sc.topology["buffer"], 33)
        self.assertEqual([(f["src"], f["start"]) for f in sc.flows],
                         [(1, 0.0), (2, 1.0)])
        # arms that do not use the swept parameter run once
        self.assertEqual([a["name"] for a in sc.arms],
                         ["reno", "red x=3000", "red x=6000"])
        self.assertEqual(sc.arms[2]["qdisc_opts"],
                         "limit 100000 bandwidth 10000000bit min 6000")

    def test_every_shipped_scenario_is_valid(self):
        d = Path(__file__).resolve().parents[2] / "scenarios"
        files = sorted(d.glob("*.toml"))
        self.assertTrue(files)
        for f in files:
            Scenario(f)

    def test_published_scenarios_have_three_repetitions(self):
        # the scenarios whose pages are in docs/results (make demo, make
        # reproduce, decbit-threshold): mean ± sd needs repetitions
        d = Path(__file__).resolve().parents[2] / "scenarios"
        files = [d / "demo.toml", d / "decbit-threshold.toml"] + \
            sorted(d.glob("paper-*.toml"))
        self.assertGreater(len(files), 10)
        for f in files:
            self.assertGreaterEqual(Scenario(f).repetitions, 3, f.name)

    def test_rate_follows_events(self):
        sc = Scenario("x.toml", GOOD + '\n[[events]]\nat = "4s"\nrate = "5mbit"\n')
        self.assertEqual([sc.rate_at(t) for t in (0, 3.9, 4, 9)],
                         [10e6, 10e6, 5e6, 5e6])
        self.assertEqual(sc.capacity(3, 5), 10e6 + 5e6)

    def test_syntax_error_has_line(self):
        self.refused(bad('hosts = 2', 'hosts = = 2'), 6, None, "TOML syntax")

    def test_unknown_top_level_field(self):
        self.refused(bad('duration = "10s"', 'duratoin = "10s"'), 2,
                     "duratoin", "unknown field")

    def test_missing_required(self):
        self.refused(bad('duration = "10s"\n', ''), None, "duration",
                     "missing")

    def test_bad_rate_in_table(self):
        self.refused(bad('rate = "10mbit"', 'rate = "10 furlongs"'), 7,
                     "topology.rate", "bad rate")

    def test_bad_topology_kind(self):
        self.refused(bad('kind = "dumbbell"', 'kind = "torus"'), 5,
                     "topology.kind", "not one of")

    def test_flow_host_out_of_range(self):
        self.refused(bad('count = 2', 'count = 3'), 12, "flows[0].src",
                     "host 3 does not exist")

    def test_flow_past_duration(self):
        self.refused(bad('every = "1s"', 'every = "1s"\nstop = "11s"'), 14,
                     "flows[0].stop", "would run")

    def test_second_arm_field(self):
        self.refused(bad('cc = "dctcp"', 'cc = "dc tcp"'), 21, "arms[1].cc",
                     "not a name")

    def test_unknown_arm_field(self):
        self.refused(bad('qdisc = "red"', 'qdsic = "red"'), 22,
                     "arms[1].qdsic", "unknown field")

    def test_host_qdisc(self):
        sc = Scenario("x.toml", bad('cc = "reno"\n',
                                    'cc = "reno"\nhost_qdisc = "hbh rate {rate}"\n'))
        self.assertEqual(sc.arms[0]["host_qdisc"], "hbh rate 10000000bit")
        self.assertIsNone(sc.arms[1]["host_qdisc"])
        self.refused(bad('cc = "reno"\n', 'cc = "reno"\nhost_qdisc = "; rm"\n'),
                     18, "arms[0].host_qdisc", "qdisc kind")

    def test_unknown_placeholder(self):
        self.refused(bad('min {x}', 'min {y}'), 23, "arms[1].qdisc_opts",
                     "placeholder")

    def test_udp_flow_needs_rate(self):
        self.refused(bad('count = 2', 'kind = "cbr"'), 11, "flows[0].rate",
                     "needs a rate")

    def test_flow_cc_needing_ecn(self):
        text = bad('count = 2', 'count = 2\ncc = "decbit"')
        self.refused(text, 13, "flows[0].cc", "after connect()")
        Scenario("x.toml", text.replace('cc = "reno"', 'cc = "reno"\necn = 1'))

    def test_units(self):
        self.assertEqual(parse_rate("2.5Mbit"), 2.5e6)
        self.assertEqual(parse_rate("1mbps"), 8e6)
        self.assertEqual(parse_time("40ms"), 0.04)
        self.assertEqual(parse_time(3), 3.0)
        for v in ("fast", "-1mbit", True, "0bit"):
            with self.assertRaises(ValueError):
                parse_rate(v)


GRAPH = """\
name = "g"
duration = "10s"

[topology]
kind = "graph"
nodes = 3
links = ["1-2", "2-3"]
rate = "500kbit"

[vcs]
lambda = 2
window = 2

[[arms]]
name = "no ibl"
qdisc_opts = "pool 1 pool_limit {nt}"

[[arms]]
name = "ibl"
qdisc_opts = "pool 1 pool_limit {nt}"
ibl_alpha = 0.5

[sweep]
param = "nt"
values = [10, 20]
"""


def gbad(old, new):
    assert old in GRAPH, old
    return GRAPH.replace(old, new, 1)


class GraphScenarios(unittest.TestCase):
    refused = Scenarios.refused

    def test_good_graph(self):
        sc = Scenario("x.toml", GRAPH)
        t = sc.topology
        # 6 ordered pairs, one route each on a line: 1-2, 1-2-3, ...
        self.assertEqual(len(t["routes"]), 6)
        self.assertAlmostEqual(t["mean_path_nodes"], (4 * 2 + 2 * 3) / 6)
        # window = 2 x path links
        self.assertEqual(sorted(v["window"] for v in sc.vcs["list"]),
                         [2, 2, 2, 2, 4, 4])
        self.assertEqual([a["name"] for a in sc.arms],
                         ["no ibl nt=10", "no ibl nt=20", "ibl nt=10",
                          "ibl nt=20"])
        self.assertEqual(sc.arms[3]["ibl_alpha"], 0.5)
        self.assertEqual(sc.arms[3]["qdisc_opts"], "pool 1 pool_limit 20")
        self.assertEqual(sc.flows, [])

    def test_graph_bad_link(self):
        self.refused(gbad('"2-3"]', '"2-4"]'), 7, "topology.links",
                     "node 4 is not in 1..3")

    def test_graph_not_connected(self):
        self.refused(gbad('nodes = 3', 'nodes = 4'), 7, "topology.links",
                     "not connected")

    def test_graph_needs_vcs(self):
        self.refused(gbad('[vcs]\nlambda = 2\nwindow = 2\n', ''), None,
                     "vcs", "missing table [vcs]")

    def test_graph_refuses_flows(self):
        self.refused(gbad('[vcs]', '[[flows]]\ncount = 1\n\n[vcs]'), 10,
                     "flows", "not used")

    def test_graph_bad_alpha(self):
        self.refused(gbad('ibl_alpha = 0.5', 'ibl_alpha = 1.5'), 21,
                     "arms[1].ibl_alpha", "(0, 1]")

    def test_graph_only_decbit(self):
        self.refused(gbad('name = "ibl"', 'name = "ibl"\nqdisc = "pfifo"'),
                     20, "arms[1].qdisc", "decbit")

    def test_graph_bad_lambda(self):
        self.refused(gbad('lambda = 2', 'lambda = "fast"'), 11,
                     "vcs.lambda", "not a number")

    def test_vcs_only_with_graph(self):
        self.refused(bad('[[flows]]', '[vcs]\nlambda = 1\n\n[[flows]]'),
                     11, "vcs", "only with")


if __name__ == "__main__":
    unittest.main()
