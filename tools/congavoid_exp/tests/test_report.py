# SPDX-License-Identifier: GPL-2.0
"""Tables and plots from a small synthetic results folder."""

import json
import tempfile
import unittest
from pathlib import Path

from congavoid_exp import report


def _results(d):
    runs = {"throughput_bps": 9e6, "utilization": 0.9, "jain": 0.99,
            "rtt_mean_ms": 30.0, "rtt_p95_ms": 40.0, "queue_mean": 5.0,
            "queue_max": 12, "drops": 3, "marks": None, "retransmits": 3,
            "norm_power": 0.6, "convergence_s": 2.5, "cwnd_cov": 0.2,
            "qdelay_p50_ms": 2.0, "qdelay_p99_ms": 9.0}
    arms = []
    for name, sweep in (("a x=1", {"x": 1}), ("a x=2", {"x": 2})):
        r2 = dict(runs, utilization=0.8)
        arms.append({"name": name, "sweep": sweep, "runs": [runs, r2],
                     "summary": report.summarize([runs, r2])})
        rep = d / report.slug(name) / "rep1"
        rep.mkdir(parents=True)
        with open(rep / "samples.jsonl", "w", encoding="utf-8") as f:
            for i in range(50):
                t = i * 0.1
                for fl in (1, 2):
                    f.write(json.dumps({"t": t, "flow": fl, "snd_cwnd": 10 + i % 5,
                                        "bytes_acked": int(t * 1e5 * fl)}) + "\n")
                f.write(json.dumps({"t": t, "kind": "pfifo", "qlen": i % 7,
                                    "router": "r1", "link": "up0"}) + "\n")
    arms.append({"name": "b", "skipped": "module tcp_b is not available"})
    return {"scenario": "t", "topology": {"kind": "dumbbell", "hosts": 2,
                                          "rate": 1e7, "delay": 0.02,
                                          "buffer": 17},
            "duration": 5, "repetitions": 2, "arms": arms}


class Report(unittest.TestCase):
    def test_summary_mean_and_sd(self):
        s = report.summarize([{"utilization": 0.9}, {"utilization": 0.8}])
        self.assertAlmostEqual(s["utilization"], 0.85)
        self.assertAlmostEqual(s["utilization_sd"], 0.0707, places=3)
        self.assertIsNone(s["jain"])
        self.assertNotIn("utilization_missing", s)
        # (a third repetition without it: test_summary_missing_in_some_...)
        s = report.summarize([{"utilization": 0.9}, {"utilization": 0.8},
                              {"utilization": None}])
        self.assertIsNone(s["utilization"])
        self.assertEqual(s["utilization_missing"], 1)

    def test_summary_missing_in_some_repetitions(self):
        # a figure some repetitions lack (no Jain, never converged) is
        # missing from the summary, not the mean of the others; the
        # count of repetitions without it is kept
        s = report.summarize([{"jain": 0.99, "convergence_s": 2.0},
                              {"jain": None, "convergence_s": None},
                              {"jain": 0.97, "convergence_s": 3.0}])
        self.assertIsNone(s["jain"])
        self.assertIsNone(s["jain_sd"])
        self.assertEqual(s["jain_missing"], 1)
        self.assertIsNone(s["convergence_s"])
        self.assertEqual(s["convergence_s_missing"], 1)
        # no repetition has it: missing, as before
        self.assertIsNone(report.summarize([{}, {}])["jain"])

    def test_missing_shown_as_missing(self):
        # an undefined Jain (metrics.jain of an all-zero series) is "–"
        # in the progress line, the table and the comparison bars, never
        # 1.0 or 0
        res = {"throughput_bps": None, "utilization": None, "jain": None}
        self.assertEqual(report.progress(res),
                         "– Mbit/s, util –, Jain –")
        row = {"name": "x", "summary": report.summarize([res])}
        # an arm without a throughput or a delay has no point in the
        # headline plot (never one at 0) and is named under it
        y = dict(throughput_bps=1e7, qdelay_p50_ms=1.0, qdelay_p99_ms=4.0)
        pts, missing = report.tput_delay_points(
            {"topology": {"kind": "dumbbell"}},
            [row, {"name": "y", "summary": report.summarize([y, y]),
                   "runs": [y, y]}])
        self.assertEqual(missing, ["x"])
        self.assertEqual(pts, [("y", 1.0, 4.0, 10.0, 0.0,
                                [(1.0, 10.0), (1.0, 10.0)])])
        self.assertIn("| x | – | – | – |", report.table(
            {"topology": {"kind": "dumbbell"}, "arms": [row]}))

    def test_run_error_for_flows_without_result(self):
        self.assertIsNone(report.run_error({"flows_without_result": []}))
        self.assertIsNone(report.run_error({}))
        self.assertIn("flow 2", report.run_error(
            {"flows_without_result": [2]}))

    def test_table_rows(self):
        with tempfile.TemporaryDirectory() as d:
            t = report.table(_results(Path(d)))
        lines = t.splitlines()
        self.assertEqual(len(lines), 5)
        self.assertIn("| a x=1 | 9.00 ±0.00 | 0.85 ±0.07 | 0.990 ±0.000 |", lines[2])
        self.assertIn("| b | skipped: module tcp_b is not available |",
                      lines[4])

    def test_queue_columns_marked_when_from_samples(self):
        a = dict(queue_mean=1.3, qdelay_p99_ms=3.5, queue_from="packets")
        b = dict(queue_mean=1.7, qdelay_p99_ms=3.6, queue_from="samples")
        self.assertEqual(report.summarize([a, a])["queue_from"], "packets")
        self.assertEqual(report.summarize([a, b])["queue_from"], "mixed")
        self.assertNotIn("queue_from", report.summarize([{}]))
        with tempfile.TemporaryDirectory() as d:
            res = _results(Path(d))
            res["arms"][0]["summary"] = report.summarize([a])
            res["arms"][1]["summary"] = report.summarize([b])
            lines = report.table(res).splitlines()
        self.assertNotIn("†", lines[2])
        self.assertIn("1.7†", lines[3])
        self.assertIn("3.60†", lines[3])

    def test_plots_with_a_missing_delay(self):
        with tempfile.TemporaryDirectory() as d:
            d = Path(d)
            res = _results(d)
            res["arms"][0]["summary"]["qdelay_p99_ms"] = None
            names = sorted(f.name for f in report.plots(res, d))
            self.assertIn("tput-delay.png", names)
            pts, missing = report.tput_delay_points(res, res["arms"][:2])
            self.assertEqual(([p[0] for p in pts], missing),
                             (["a x=2"], ["a x=1"]))

    def test_plots_written(self):
        with tempfile.TemporaryDirectory() as d:
            d = Path(d)
            files = report.plots(_results(d), d)
            names = sorted(f.name for f in files)
            self.assertEqual(names, ["sweep-x.png", "timeseries.png",
                                     "tput-delay.png"])
            for f in files:
                self.assertGreater(f.stat().st_size, 5000)
                self.assertEqual(f.read_bytes()[:4], b"\x89PNG")


def _graph_results():
    arms = []
    for base, k in (("no IBL", 1.0), ("alpha=0.7", 1.2)):
        for nt in (10, 20):
            r = {"delivered_pps": 100 * k + nt, "offered_pps": 500.0,
                 "delivered_frac": 0.3, "rejected_frac": 0.1,
                 "refused_frac": 0.2, "net_loss_frac": 0.3, "vc_cov": 0.5,
                 "delay_mean_ms": 100.0, "delay_p50_ms": 90.0,
                 "delay_p95_ms": 300.0, "delay_p99_ms": 400.0,
                 "ibl_dropped": 0, "pool_dropped": 10,
                 "pool_used_mean": 5.0, "pool_used_max": nt,
                 "series": [[0, 10], [1, 20]]}
            arms.append({"name": f"{base} nt={nt}", "sweep": {"nt": nt},
                         "runs": [r], "summary": report.summarize([r])})
    return {"scenario": "g", "duration": 10, "repetitions": 1,
            "warmup": 2, "arms": arms,
            "topology": {"kind": "graph", "nodes": 3, "links": [[1, 2]],
                         "rate": 5e5, "routes_per_pair": 1,
                         "routes": [{}] * 6, "mean_path_nodes": 2.33},
            "vcs": {"count": 6, "lambda": 2.0, "size": 1000,
                    "window": 2}}


class GraphReport(unittest.TestCase):
    def test_graph_table(self):
        res = _graph_results()
        lines = report.table(res).splitlines()
        self.assertIn("delivered pkt/s", lines[0])
        self.assertNotIn("Jain", lines[0])
        self.assertTrue(lines[2].startswith("| no IBL nt=10 | 110.0 |"))
        self.assertIn("H = 2.33 nodes", report.legend(res))
        self.assertIn("of 500.0 pkt/s delivered",
                      report.progress(res["arms"][0]["runs"][0]))

    def test_graph_plots(self):
        with tempfile.TemporaryDirectory() as d:
            d = Path(d)
            files = report.plots(_graph_results(), d)
            self.assertEqual(sorted(f.name for f in files),
                             ["delivered.png", "sweep-nt.png",
                              "tput-delay.png"])
            for f in files:
                self.assertEqual(f.read_bytes()[:4], b"\x89PNG")


if __name__ == "__main__":
    unittest.main()
