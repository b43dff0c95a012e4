# SPDX-License-Identifier: GPL-2.0
"""The built-in traffic generator's schedules."""

import unittest

from congavoid_exp.gen import departures


class Departures(unittest.TestCase):
    def test_cbr_exact(self):
        # 1 Mbit/s of 1000-byte packets = 125 packets/s, 8 ms apart
        ts = list(departures("cbr", 1e6, 1000, 2.0))
        self.assertEqual(len(ts), 250)
        self.assertAlmostEqual(ts[1] - ts[0], 0.008)

    def test_poisson_mean_rate(self):
        ts = list(departures("poisson", 1e6, 1000, 200.0, seed=7))
        self.assertAlmostEqual(len(ts) / 200.0, 125, delta=125 * 0.03)
        gaps = [b - a for a, b in zip(ts, ts[1:])]
        # exponential gaps: standard deviation equals the mean
        m = sum(gaps) / len(gaps)
        sd = (sum((g - m) ** 2 for g in gaps) / len(gaps)) ** 0.5
        self.assertAlmostEqual(sd / m, 1.0, delta=0.05)

    def test_onoff_silent_when_off(self):
        ts = list(departures("onoff", 1e6, 1000, 4.0, on=0.5, off=1.5))
        self.assertTrue(all((t % 2.0) < 0.5 for t in ts))
        # two on periods of 0.5 s at 125 packets/s
        self.assertEqual(len(ts), 126)

    def test_bursts_exponential_gaps(self):
        # 10 ms bursts at 1 Mbit/s: packets of 1000 bytes 8 ms apart, two
        # per burst (t, t + 8 ms); the next burst starts an exponential
        # silence of mean 1 s after the burst's end (t + 10 ms)
        ts = list(departures("bursts", 1e6, 1000, 500.0, on=0.01, off=1.0,
                             seed=3))
        self.assertTrue(all(abs(b - a - 0.008) < 1e-9
                            for a, b in zip(ts[0::2], ts[1::2])))
        silences = [b - a - 0.002 for a, b in zip(ts[1::2], ts[2::2])]
        m = sum(silences) / len(silences)
        self.assertAlmostEqual(m, 1.0, delta=0.1)
        sd = (sum((g - m) ** 2 for g in silences) / len(silences)) ** 0.5
        self.assertAlmostEqual(sd / m, 1.0, delta=0.15)

if __name__ == "__main__":
    unittest.main()
