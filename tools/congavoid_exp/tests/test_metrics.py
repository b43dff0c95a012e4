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

    def test_empty_zero_or_missing_is_undefined(self):
        # (sum x)^2 / (n sum x^2) is 0/0 for an empty or all-zero series:
        # no fairness was measured, so no index (issue 36), never 1.0
        self.assertIsNone(M.jain([]))
        self.assertIsNone(M.jain([0, 0]))
        self.assertIsNone(M.jain([0.0, 0.0, 0.0, 0.0]))
        # a flow without a figure leaves the index undefined too
        self.assertIsNone(M.jain([5, None]))
        self.assertIsNone(M.jain(iter([])))


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


class QueueDelay(unittest.TestCase):
    def test_backlog_over_rate(self):
        # 1500 bytes at 12 Mbit/s: 1 ms; at 6 Mbit/s after t = 2: 2 ms
        rate = (lambda t: 12e6 if t < 2 else 6e6)
        got = M.queue_delays([{"t": 1, "backlog": 1500},
                              {"t": 3, "backlog": 1500},
                              {"t": 4, "backlog": 0},
                              {"t": 5}], rate)
        self.assertEqual(len(got), 3)
        for g, want in zip(got, [1.0, 2.0, 0.0]):
            self.assertAlmostEqual(g, want)

    def test_empty_is_none(self):
        self.assertEqual(M.queue_delays([], lambda t: 1e6), [])
        self.assertIsNone(M.mean([]))

    def test_zero_rate_skipped(self):
        self.assertEqual(M.queue_delays([{"t": 0, "backlog": 10}],
                                        lambda t: 0), [])


class Power(unittest.TestCase):
    def test_power(self):
        self.assertAlmostEqual(M.power(20e6, 0.05), 4e8)
        self.assertIsNone(M.power(1, 0))
        # no throughput figure is no power, never 0
        self.assertIsNone(M.power(None, 0.05))

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

    def test_rate_without_samples_is_none(self):
        # a counter with no sample in the interval says nothing about
        # the rate there: None, never a rate of 0
        self.assertIsNone(M.rate_between([], 0, 2))
        self.assertIsNone(M.rate_between(self.ramp, 3, 5))
        self.assertIsNone(M.rate_between(self.ramp, -5, -1))
        # a series that only touches the interval's end has no span in it
        self.assertIsNone(M.rate_between(self.ramp, 2, 5))
        self.assertIsNone(M.rate_between(self.ramp, -1, 0))
        self.assertIsNone(M.rate_between([(1.0, 100)], 0, 2))

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

    def test_no_traffic_never_converges(self):
        # flows that deliver nothing (or were never sampled) are not
        # "fair": no convergence time
        c = _flows(lambda f, t: 0)
        self.assertIsNone(M.convergence_time(c, [1, 2], 5.0, 20.0))
        self.assertIsNone(M.convergence_time({1: [], 2: []}, [1, 2], 5.0,
                                             20.0))

    def test_immediately_fair(self):
        c = _flows(lambda f, t: 500)
        self.assertAlmostEqual(M.convergence_time(c, [1, 2], 5.0, 20.0), 1.0)


class _Sc:
    """The parts of a Scenario that the metrics read: a 10 Mbit/s link,
    two TCP flows from 0 to 10 s, 2 s of warm-up."""

    def __init__(self, flows, warmup=2.0, rate=10e6, duration=10.0):
        self.flows, self.warmup, self.duration = flows, warmup, duration
        self.rate = rate
        self.topology = {"kind": "dumbbell", "rate": rate}

    def capacity(self, t0, t1):
        return self.rate * max(0.0, t1 - t0)

    def rate_at(self, t):
        return self.rate


def _tcp(fid, start=0.0, stop=10.0):
    return {"id": fid, "kind": "tcp", "src": fid, "cc": None,
            "start": start, "stop": stop}


def _run(rates, qbytes_rate=1.125e6, rtt_us=30000, qlen=5):
    """Samples of one run: flow i delivers rates[i] bytes/s, the
    bottleneck sends qbytes_rate bytes/s (0.9 of 10 Mbit/s) with qlen
    packets queued, 3 drops a second, 2 marks a second."""
    samples = []
    for k in range(101):
        t = k / 10
        for fid, r in rates.items():
            samples.append({"t": t, "flow": fid, "bytes_acked": r * t,
                            "rtt": rtt_us, "min_rtt": 20000,
                            "snd_cwnd": 10 + (k % 2) * 2})
        samples.append({"t": t, "kind": "pfifo", "router": "r1",
                        "link": "up0", "bytes": qbytes_rate * t,
                        "qlen": qlen, "backlog": qlen * 1514 * (k % 2),
                        "drops": 3 * k // 10,
                        "marks": 2 * k // 10})
    return samples


class Dumbbell(unittest.TestCase):
    ARM = {"name": "a", "cc": "reno", "qdisc": "pfifo"}

    def figures(self, rates, **kw):
        sc = _Sc([_tcp(f) for f in rates])
        res = {f: {"bytes": r * 10, "throughput_bps": r * 8,
                   "retransmits": 4} for f, r in rates.items()}
        return M.dumbbell(sc, self.ARM, _run(rates, **kw), res, {})

    def test_utilisation_queue_counters(self):
        r = self.figures({1: 5e5, 2: 5e5})
        # the qdisc sent 0.9 of the link between the warm-up and the end
        self.assertAlmostEqual(r["utilization"], 0.9, places=6)
        self.assertAlmostEqual(r["queue_mean"], 5)
        self.assertEqual(r["queue_max"], 5)
        # the backlog alternates between 0 and 5 full packets: 6.056 ms
        # at 10 Mbit/s; 41 of the 81 samples after the warm-up are empty
        self.assertAlmostEqual(r["qdelay_p50_ms"], 0.0)
        self.assertAlmostEqual(r["qdelay_p99_ms"], 5 * 1514 * 8 / 1e4)
        self.assertEqual(r["drops"], 30)    # counter from 0 to 30
        self.assertEqual(r["marks"], 20)
        self.assertEqual(r["retransmits"], 8)
        self.assertAlmostEqual(r["throughput_bps"], 8e6)

    def test_queue_from_the_packet_trace(self):
        r = self.figures({1: 5e5, 2: 5e5})
        M.with_packet_queue(r, {"queue_mean": 1.25, "qdelay_p50_ms": 0.5,
                                "qdelay_p99_ms": 3.5, "qdelay_max_ms": 4.0,
                                "qdelay_packets": 9, "queue_unseen": 0})
        self.assertEqual(r["queue_from"], "packets")
        self.assertEqual(r["queue_mean"], 1.25)
        self.assertAlmostEqual(r["queue_mean_sampled"], 5)
        self.assertEqual(r["qdelay_p99_ms"], 3.5)
        self.assertAlmostEqual(r["qdelay_p99_ms_sampled"],
                               5 * 1514 * 8 / 1e4)
        # no trace, or nothing in it: the samples stand
        r = self.figures({1: 5e5, 2: 5e5})
        M.with_packet_queue(r, None)
        self.assertEqual(r["queue_from"], "samples")
        self.assertAlmostEqual(r["queue_mean"], 5)

    def test_jain_equal_and_unequal(self):
        self.assertAlmostEqual(self.figures({1: 5e5, 2: 5e5})["jain"], 1.0)
        # rates 1 : 0.5 -> (1.5)^2 / (2 * 1.25) = 0.9
        self.assertAlmostEqual(self.figures({1: 6e5, 2: 3e5})["jain"], 0.9,
                               places=6)

    def test_no_flow_samples_no_jain(self):
        # the sampler saw no tcp_info (or no bytes_acked) of any flow:
        # Jain is undefined, not 1.0; the qdisc's figures stand
        sc = _Sc([_tcp(1), _tcp(2)])
        res = {f: {"bytes": 5e6, "throughput_bps": 4e6, "retransmits": 0}
               for f in (1, 2)}
        qonly = [s for s in _run({1: 5e5, 2: 5e5}) if "kind" in s]
        r = M.dumbbell(sc, self.ARM, qonly, res, {})
        self.assertIsNone(r["jain"])
        self.assertAlmostEqual(r["utilization"], 0.9, places=6)
        nobytes = [dict(s) for s in _run({1: 5e5, 2: 5e5})]
        for s in nobytes:
            s.pop("bytes_acked", None)
        self.assertIsNone(M.dumbbell(sc, self.ARM, nobytes, res, {})["jain"])

    def test_flow_without_cwnd_samples_no_cwnd_cov(self):
        # a TCP flow with no cwnd sample while all are active leaves the
        # mean CoV missing, not the mean of the others
        samples = _run({1: 5e5, 2: 5e5})
        for s in samples:
            if s.get("flow") == 2:
                s.pop("snd_cwnd")
        sc = _Sc([_tcp(1), _tcp(2)])
        res = {f: {"bytes": 5e6, "throughput_bps": 4e6, "retransmits": 0}
               for f in (1, 2)}
        self.assertIsNone(M.dumbbell(sc, self.ARM, samples, res,
                                     {})["cwnd_cov"])

    def test_flows_that_delivered_nothing_have_no_jain(self):
        r = self.figures({1: 0, 2: 0})
        self.assertIsNone(r["jain"])
        self.assertAlmostEqual(r["throughput_bps"], 0)

    def test_no_qdisc_samples_no_utilisation(self):
        # no sample of the bottleneck in the window, or none with a byte
        # counter: utilisation (and the power made from it) is missing,
        # not 0
        sc = _Sc([_tcp(1), _tcp(2)])
        res = {f: {"bytes": 5e6, "throughput_bps": 4e6, "retransmits": 0}
               for f in (1, 2)}
        flows_only = [s for s in _run({1: 5e5, 2: 5e5}) if "flow" in s]
        r = M.dumbbell(sc, self.ARM, flows_only, res, {})
        self.assertIsNone(r["utilization"])
        self.assertIsNone(r["norm_power"])
        self.assertIsNone(r["queue_mean"])
        self.assertIsNone(r["drops"])
        early = [s for s in _run({1: 5e5, 2: 5e5})
                 if "flow" in s or s["t"] < 1.0]
        self.assertIsNone(M.dumbbell(sc, self.ARM, early, res,
                                     {})["utilization"])
        nobytes = [dict(s) for s in _run({1: 5e5, 2: 5e5})]
        for s in nobytes:
            if "kind" in s:
                s.pop("bytes")
        self.assertIsNone(M.dumbbell(sc, self.ARM, nobytes, res,
                                     {})["utilization"])

    def test_flow_without_result_leaves_totals_missing(self):
        # a flow whose traffic tool reported nothing (runner's
        # _flow_result: bytes and throughput None) makes the totals
        # missing, not a sum with a 0 in it; retransmits unknown for one
        # TCP flow make the total unknown
        sc = _Sc([_tcp(1), _tcp(2)])
        res = {1: {"bytes": 5e6, "throughput_bps": 4e6, "retransmits": 2},
               2: {"bytes": None, "throughput_bps": None,
                   "retransmits": None, "error": "iperf3 produced no result"}}
        r = M.dumbbell(sc, self.ARM, _run({1: 5e5, 2: 5e5}), res, {})
        self.assertIsNone(r["throughput_bps"])
        self.assertIsNone(r["useful"])
        self.assertIsNone(r["power"])
        self.assertIsNone(r["retransmits"])
        self.assertEqual(r["flows_without_result"], [2])

    def test_rtt_power_useful(self):
        r = self.figures({1: 5e5, 2: 5e5}, rtt_us=30000)
        self.assertAlmostEqual(r["rtt_mean_ms"], 30.0)
        self.assertAlmostEqual(r["base_rtt_ms"], 20.0)
        # power: utilisation over the delay in base RTTs
        self.assertAlmostEqual(r["norm_power"], 0.9 / 1.5, places=6)
        # useful: 1e7 bytes of new data over the payload the link could
        # carry in 10 s in full-sized TCP packets (1448 of 1514 bytes)
        self.assertAlmostEqual(r["useful"], 8e7 / (1e8 * 1448 / 1514),
                               places=6)
        self.assertAlmostEqual(r["cwnd_cov"], 1 / 11, places=3)


class FlowResult(unittest.TestCase):
    def test_no_report_is_missing_not_zero(self):
        # a flow whose iperf3 or sink wrote nothing (or garbage): its
        # bytes, goodput and retransmits are unknown, not 0
        import tempfile
        from pathlib import Path
        from congavoid_exp import runner
        with tempfile.TemporaryDirectory() as d:
            d = Path(d)
            (d / "iperf-2.json").write_text("")
            for f in (_tcp(1), _tcp(2),
                      {"id": 3, "kind": "cbr", "start": 0, "stop": 5}):
                r = runner._flow_result(f, d)
                self.assertIsNone(r["bytes"])
                self.assertIsNone(r["throughput_bps"])
                self.assertIsNone(r["retransmits"])
                self.assertIn("error", r)
            (d / "iperf-1.json").write_text(
                '{"end": {"sum_received": {"bytes": 10, '
                '"bits_per_second": 8.0}, "sum_sent": {}}}')
            # iperf3 always reports a TCP flow's retransmits on Linux:
            # without them they are unknown, not 0
            r = runner._flow_result(_tcp(1), d)
            self.assertEqual(r["bytes"], 10)
            self.assertIsNone(r["retransmits"])


class GraphRun(unittest.TestCase):
    def test_fractions_and_pool(self):
        sc = _Sc([], warmup=1.0, duration=3.0)
        sc.topology = {"kind": "graph", "mean_path_nodes": 3.3}
        gen = {"totals": {"offered": 100, "rejected": 10, "refused": 20,
                          "admitted": 70, "arrived": 63, "refused_all": 25,
                          "errors_all": 0, "timed_out": 1, "late": 0},
               "offered_pps": 50.0, "admitted_pps": 35.0,
               "delivered_pps": 30.0, "vc_cov": 0.4, "delay_mean_ms": 9.0,
               "delay_p95_ms": 20.0, "series": [], "vc_delivered_pps": []}
        samples = [{"t": t, "router": "r1", "link": "to2",
                    "pool_used": u, "pool_input": 1, "pool_dropped": d}
                   for t, u, d in ((0.5, 9, 0), (1.0, 2, 5), (2.0, 4, 9),
                                   (3.0, 6, 12), (3.5, 20, 30))]
        final = [{"router": "r1", "pool_used": 0, "pool_dropped": 30,
                  "pool_input_limit": 2}]
        r = M.graph(sc, {"name": "g", "sweep": {}, "ibl_alpha": 0.66},
                    gen, samples, final)
        self.assertAlmostEqual(r["delivered_frac"], 0.6)
        self.assertAlmostEqual(r["refused_frac"], 0.2)
        self.assertAlmostEqual(r["net_loss_frac"], 0.1)
        self.assertAlmostEqual(r["ibl"], 0.2)
        # the window [1, 3]: pool used 2, 4, 6; drops 5 -> 12
        self.assertAlmostEqual(r["pool_used_mean"], 4.0)
        self.assertEqual(r["pool_dropped"], 7)
        self.assertEqual(r["pool_dropped_all"], 30)
        self.assertEqual(r["pool_used_max"], 20)
        self.assertEqual(r["pool_left"], 0)
        self.assertEqual(r["pool_input_limit"], 2)
        # a router whose final counters lack the pool, or none at all:
        # what is left in the pools is unknown, never 0
        for fin in ([{"router": "r1", "pool_dropped": 30}], []):
            r = M.graph(sc, {"name": "g", "sweep": {}}, gen, samples, fin)
            self.assertIsNone(r["pool_left"])
            self.assertIsNone(r["pool_input_limit"])


if __name__ == "__main__":
    unittest.main()
