# SPDX-License-Identifier: GPL-2.0
"""The virtual channels' window bookkeeping (no sockets)."""

import errno
import unittest

from congavoid_exp.vcgen import Channels


def chans(window=2, timeout=1.0, w0=0.0, w1=10.0):
    return Channels([{"id": 0, "window": window}], timeout, w0, w1)


class Window(unittest.TestCase):
    def test_window_limits_outstanding(self):
        c = chans(window=2)
        self.assertEqual(c.arrival(0, 0.1), 0)
        c.sent(0, 0, 0.1)
        self.assertEqual(c.arrival(0, 0.2), 1)
        c.sent(0, 1, 0.2)
        self.assertIsNone(c.arrival(0, 0.3))        # window full
        c.delivered(0, 0, 0.1, 0.35)
        self.assertEqual(c.arrival(0, 0.4), 2)      # a slot is free
        t = c.c[0]
        self.assertEqual((t["offered"], t["rejected"], t["admitted"],
                          t["delivered"]), (4, 1, 2, 1))

    def test_refused_at_entry_frees_slot_at_once(self):
        c = chans(window=1)
        s = c.arrival(0, 0.1)
        c.sent(0, s, 0.1, errno.ENOBUFS)
        self.assertEqual(c.arrival(0, 0.2), 1)
        self.assertEqual(c.c[0]["refused"], 1)
        self.assertEqual(c.c[0]["admitted"], 0)
        # a delivery of the refused packet cannot happen; if a bogus one
        # came, it is a duplicate, not a delivery
        c.delivered(0, s, 0.1, 0.3)
        self.assertEqual(c.c[0]["duplicates"], 1)
        self.assertEqual(c.c[0]["delivered"], 0)

    def test_timeout_frees_slot_and_late_delivery_counts_once(self):
        c = chans(window=1, timeout=1.0)
        c.sent(0, c.arrival(0, 0.0), 0.0)
        self.assertIsNone(c.arrival(0, 0.5))
        self.assertEqual(c.arrival(0, 1.5), 1)       # slot timed out
        self.assertEqual(c.c[0]["timed_out"], 1)
        c.delivered(0, 0, 0.0, 1.6)                  # late
        c.delivered(0, 0, 0.0, 1.7)                  # duplicate
        t = c.c[0]
        self.assertEqual((t["late"], t["delivered"], t["duplicates"]),
                         (1, 1, 1))
        self.assertEqual(len(c.out[0]), 1)           # seq 1 still out

    def test_rto_follows_delays(self):
        c = chans(window=9, timeout=3.0)
        self.assertEqual(c.rto(0), 3.0)         # nothing measured yet
        c.sent(0, c.arrival(0, 0.0), 0.0)
        c.delivered(0, 0, 0.0, 0.4)
        # first sample: srtt 0.4, rttvar 0.2 -> 1.2 s
        self.assertAlmostEqual(c.rto(0), 1.2)
        for i in range(1, 60):
            c.sent(0, c.arrival(0, float(i)), float(i))
            c.delivered(0, i, float(i), i + 0.1)
        # steady 100 ms delays: srtt -> 0.1, rttvar -> 0; floor 200 ms
        self.assertAlmostEqual(c.rto(0), 0.2, places=3)
        c.sent(0, c.arrival(0, 70.0), 70.0)
        self.assertEqual(c.arrival(0, 70.1), 61)
        c.sent(0, 61, 70.1)
        c.expire(0, 70.19)
        self.assertEqual(c.c[0]["timed_out"], 0)
        c.expire(0, 70.25)
        self.assertEqual(c.c[0]["timed_out"], 1)

    def test_measurement_window(self):
        c = chans(window=5, w0=1.0, w1=2.0)
        for i, t in enumerate((0.5, 1.5, 2.5)):
            c.sent(0, c.arrival(0, t), t)
            c.delivered(0, i, t, t + 0.1)
        s = c.summary()
        self.assertEqual(s["totals"]["offered"], 1)
        self.assertEqual(s["totals"]["delivered"], 1)
        self.assertAlmostEqual(s["delivered_pps"], 1.0)
        self.assertAlmostEqual(s["delay_mean_ms"], 100.0)
        self.assertEqual(s["series"], [(0, 1), (1, 1), (2, 1)])

    def test_delay_percentiles(self):
        # 100 packets in the window, delays 1..100 ms: the headline
        # plot's median and 99th percentile
        c = chans(window=200, w0=0.0, w1=100.0)
        for i in range(100):
            t = float(i)
            c.sent(0, c.arrival(0, t), t)
            c.delivered(0, i, t, t + (i + 1) / 1e3)
        s = c.summary()
        # (linear interpolation between the closest ranks)
        self.assertAlmostEqual(s["delay_p50_ms"], 50.5)
        self.assertAlmostEqual(s["delay_p95_ms"], 95.05)
        self.assertAlmostEqual(s["delay_p99_ms"], 99.01)
        self.assertIsNone(chans(window=5, w0=0.0, w1=1.0).summary()
                          .get("delay_p99_ms", 0))

    def test_loss_counts_the_same_packets(self):
        # admitted in the window, delivered after it: still arrived
        c = chans(window=5, w0=1.0, w1=2.0)
        c.sent(0, c.arrival(0, 1.5), 1.5)
        c.sent(0, c.arrival(0, 1.6), 1.6)
        c.delivered(0, 0, 1.5, 2.5)
        t = c.summary()["totals"]
        self.assertEqual((t["admitted"], t["arrived"], t["delivered"]),
                         (2, 1, 0))

    def test_refusals_counted_over_the_run(self):
        c = chans(window=5, w0=1.0, w1=2.0)
        c.sent(0, c.arrival(0, 0.5), 0.5, errno.ENOBUFS)
        c.sent(0, c.arrival(0, 1.5), 1.5, errno.ENOBUFS)
        c.sent(0, c.arrival(0, 1.6), 1.6, errno.EPERM)
        t = c.summary()["totals"]
        self.assertEqual((t["refused"], t["refused_all"], t["errors"],
                          t["errors_all"]), (1, 2, 1, 1))

    def test_cov_over_channels(self):
        c = Channels([{"id": 0, "window": 9}, {"id": 1, "window": 9}],
                     1.0, 0.0, 1.0)
        for i in range(3):
            c.sent(0, c.arrival(0, 0.1 * i), 0.1 * i)
            c.delivered(0, i, 0.1 * i, 0.1 * i + 0.01)
        c.sent(1, c.arrival(1, 0.5), 0.5)
        c.delivered(1, 0, 0.5, 0.6)
        # rates 3 and 1: mean 2, population sd 1
        self.assertAlmostEqual(c.summary()["vc_cov"], 0.5)

    def test_unknown_or_future_packets_ignored(self):
        c = chans()
        c.delivered(7, 0, 0.0, 0.1)
        c.delivered(0, 5, 0.0, 0.1)
        self.assertEqual(c.summary()["totals"]["delivered"], 0)


if __name__ == "__main__":
    unittest.main()
