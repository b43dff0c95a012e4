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
            "norm_power": 0.6, "convergence_s": 2.5, "cwnd_cov": 0.2}
    arms = []
    for name, sweep in (("a x=1", {"x": 1}), ("a x=2", {"x": 2})):
        r2 = dict(runs, utilization=0.8)
        arms.append({"name": name, "sweep": sweep, "runs": [runs, r2],
                     "summary": report.summarize([runs, r2])})
        rep = d / report._slug(name) / "rep1"
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
        s = report.summarize([{"utilization": 0.9}, {"utilization": 0.8},
                              {"utilization": None}])
        self.assertAlmostEqual(s["utilization"], 0.85)
        self.assertAlmostEqual(s["utilization_sd"], 0.0707, places=3)
        self.assertIsNone(s["jain"])

    def test_table_rows(self):
        with tempfile.TemporaryDirectory() as d:
            t = report.table(_results(Path(d)))
        lines = t.splitlines()
        self.assertEqual(len(lines), 5)
        self.assertIn("| a x=1 | 9.00 ±0.00 | 0.85 ±0.07 | 0.990 ±0.000 |", lines[2])
        self.assertIn("| b | skipped: module tcp_b is not available |",
                      lines[4])

    def test_plots_written(self):
        with tempfile.TemporaryDirectory() as d:
            d = Path(d)
            files = report.plots(_results(d), d)
            names = sorted(f.name for f in files)
            self.assertEqual(names, ["arm-a_x=1.png", "arm-a_x=2.png",
                                     "comparison.png", "sweep-x.png"])
            for f in files:
                self.assertGreater(f.stat().st_size, 5000)
                self.assertEqual(f.read_bytes()[:4], b"\x89PNG")


if __name__ == "__main__":
    unittest.main()
