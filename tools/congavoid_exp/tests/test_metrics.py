# SPDX-License-Identifier: GPL-2.0
"""Unit tests of the experiment runner's metrics on fixed data."""

import unittest

from congavoid_exp import metrics as M


class Jain(unittest.TestCase):
    def test_equal_shares_are_fair(self):
        self.assertAlmostEqual(M.jain([5, 5, 5, 5]), 1.0)

    def test_one_takes_all(self):
        self.assertAlmostEqual(M.jain([10, 0, 0, 0]), 0.25)

    def test_known_value(self):
        # (1+2+3)^2 / (3 * (1+4+9)) = 36/42
        self.assertAlmostEqual(M.jain([1, 2, 3]), 36 / 42)

    def test_scale_invariant(self):
        self.assertAlmostEqual(M.jain([1, 3]), M.jain([1e6, 3e6]))

    def test_empty_and_zero(self):
        self.assertIsNone(M.jain([]))
        self.assertEqual(M.jain([0, 0]), 1.0)


class Stats(unittest.TestCase):
    def test_percentile_interpolates(self):
        xs = list(range(1, 101))          # 1..100
        self.assertAlmostEqual(M.percentile(xs, 95), 95.05)
        self.assertAlmostEqual(M.percentile(xs, 50), 50.5)
        self.assertEqual(M.percentile([7], 95), 7)
        self.assertIsNone(M.percentile([], 95))

    def test_cov(self):
        self.assertAlmostEqual(M.cov([2, 4, 4, 4, 5, 5, 7, 9]), 2 / 5)
        self.assertEqual(M.cov([3, 3, 3]), 0.0)
        self.assertIsNone(M.cov([]))


class Power(unittest.TestCase):
    def test_power(self):
        self.assertAlmostEqual(M.power(20e6, 0.05), 4e8)
        self.assertIsNone(M.power(1, 0))

    def test_normalized_power(self):
        # full link at the base RTT is 1; doubling the delay halves it
        self.assertAlmostEqual(M.normalized_power(1.0, 40, 40), 1.0)
        self.assertAlmostEqual(M.normalized_power(0.9, 80, 40), 0.45)
        self.assertIsNone(M.normalized_power(0.9, None, 40))


class Series(unittest.TestCase):
    ramp = [(0.0, 0), (1.0, 100), (2.0, 300)]

    def test_value_at(self):
        self.assertEqual(M.value_at(self.ramp, -1), 0)
        self.assertEqual(M.value_at(self.ramp, 0.5), 50)
        self.assertEqual(M.value_at(self.ramp, 1.5), 200)
        self.assertEqual(M.value_at(self.ramp, 9), 300)

    def test_rate_between(self):
        self.assertAlmostEqual(M.rate_between(self.ramp, 0, 2), 150)
        self.assertAlmostEqual(M.rate_between(self.ramp, 1, 2), 200)
        self.assertEqual(M.rate_between(self.ramp, 2, 1), 0.0)

    def test_rate_series(self):
        rs = M.rate_series(self.ramp, 1.0)
        self.assertEqual([t for t, _ in rs], [1.0, 2.0])
        self.assertEqual([r for _, r in rs], [100, 200])


def _flows(rate_fn, until=20.0, step=0.1):
    """Cumulative byte series of two flows whose rates are given by
    rate_fn(flow, t)."""
    out = {1: [(0.0, 0.0)], 2: [(0.0, 0.0)]}
    t = 0.0
    while t < until:
        t2 = round(t + step, 6)
        for f in (1, 2):
            out[f].append((t2, out[f][-1][1] + rate_fn(f, t) * step))
        t = t2
    return out


class Convergence(unittest.TestCase):
    def test_converges_after_known_time(self):
        # flow 2 joins at 5 s; shares are 9:1 until 8 s, equal after
        def rate(f, t):
            if f == 2 and t < 5:
                return 0
            if t < 8:
                return 900 if f == 1 else 100
            return 500
        c = _flows(rate)
        got = M.convergence_time(c, [1, 2], 5.0, 20.0)
        # with a 1 s window Jain passes 0.95 somewhat after 8 s
        self.assertIsNotNone(got)
        self.assertGreater(got, 3.0)
        self.assertLess(got, 4.0)

    def test_never_converges(self):
        c = _flows(lambda f, t: 900 if f == 1 else 100)
        self.assertIsNone(M.convergence_time(c, [1, 2], 5.0, 20.0))

    def test_immediately_fair(self):
        c = _flows(lambda f, t: 500)
        self.assertAlmostEqual(M.convergence_time(c, [1, 2], 5.0, 20.0), 1.0)


if __name__ == "__main__":
    unittest.main()
