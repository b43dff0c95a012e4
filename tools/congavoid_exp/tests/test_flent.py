# SPDX-License-Identifier: GPL-2.0
"""A run exported as a Flent data file loads in Flent (the Debian package's
flent, run as a user would) with the series and values the samples give."""

import gzip
import json
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

from congavoid_exp import flent


def _run_dir(d):
    """Two flows, 100 ms samples for 2 s: flow 1 at 8 Mbit/s, flow 2 at
    4 Mbit/s from 0.5 s on."""
    lines = []
    for k in range(21):
        t = k / 10
        lines.append({"t": t, "flow": 1, "bytes_acked": int(t * 1e6),
                      "rtt": 20000, "snd_cwnd": 10, "delivery_rate": 1000000})
        if t >= 0.5:
            lines.append({"t": t, "flow": 2,
                          "bytes_acked": int((t - 0.5) * 5e5),
                          "rtt": 30000, "snd_cwnd": 5,
                          "delivery_rate": 500000})
        lines.append({"t": t, "link": "b0", "backlog": 0, "qlen": 3})
    (d / "samples.jsonl").write_text(
        "".join(json.dumps(s) + "\n" for s in lines))
    (d / "t0").write_text("1000.0\n")


class Flent(unittest.TestCase):
    def test_series_from_samples(self):
        with tempfile.TemporaryDirectory() as t:
            d = Path(t)
            _run_dir(d)
            out = flent.export(d, d / "x.flent.gz", title="two flows")
            doc = json.load(gzip.open(out, "rt"))
            r = doc["results"]
            self.assertEqual(doc["version"], 4)
            self.assertEqual(doc["metadata"]["NAME"], "tcp_nup")
            self.assertEqual(doc["metadata"]["TEST_PARAMETERS"],
                             {"upload_streams": 2})
            self.assertEqual(len(doc["x_values"]), 21)
            self.assertAlmostEqual(r["TCP upload::1"][10], 8.0, places=3)
            self.assertIsNone(r["TCP upload::2"][5])	# its first sample
            self.assertAlmostEqual(r["TCP upload::2"][10], 4.0, places=3)
            self.assertAlmostEqual(r["TCP upload sum"][10], 12.0, places=3)
            self.assertAlmostEqual(r["TCP upload avg"][10], 6.0, places=3)
            self.assertTrue(all(v is None for v in r["Ping (ms) ICMP"]))
            self.assertEqual(doc["raw_values"]["TCP upload::2"][0]["tcp_rtt"],
                             30.0)

    def test_no_tcp_samples_is_an_error(self):
        with tempfile.TemporaryDirectory() as t:
            d = Path(t)
            (d / "samples.jsonl").write_text('{"t": 0, "qlen": 1}\n')
            with self.assertRaises(ValueError):
                flent.export(d)

    def test_flent_loads_it(self):
        exe = shutil.which("flent")
        if not exe:
            self.fail("flent is not installed (tools/setup installs it)")
        with tempfile.TemporaryDirectory() as t:
            d = Path(t)
            _run_dir(d)
            out = flent.export(d, d / "x.flent.gz", title="two flows")
            p = subprocess.run([exe, "-i", str(out), "-f", "summary"],
                               capture_output=True, text=True, timeout=120)
            self.assertEqual(p.returncode, 0, p.stderr[-2000:])
            self.assertIn("TCP upload sum", p.stdout)
            # the sum over 20 samples: 8 Mbit/s in the first five
            # (0.1-0.5 s), 12 from 0.6 s on: mean 11, median 12
            line = [x for x in p.stdout.splitlines()
                    if x.strip().startswith("TCP upload sum")][0]
            self.assertEqual(line.split(":")[1].split()[:2],
                             ["11.00", "12.00"], line)
