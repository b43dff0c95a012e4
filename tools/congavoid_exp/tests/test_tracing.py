# SPDX-License-Identifier: GPL-2.0
"""Unit tests of the bottleneck trace's parser and breakdown."""

import unittest

from congavoid_exp import tracing as T

TEXT = """\
# tracer: nop
          <idle>-0       [001] ..s2.  100.000000: net_dev_queue: dev=up0 skbaddr=00000000aa len=1500
          <idle>-0       [001] ..s2.  100.000000: net_dev_xmit: dev=up0 skbaddr=00000000aa len=1500 rc=0
          <idle>-0       [001] ..s2.  100.000500: net_dev_queue: dev=up0 skbaddr=00000000bb len=1500
          <idle>-0       [001] ..s2.  100.000600: net_dev_queue: dev=dn0 skbaddr=00000000cc len=66
          <idle>-0       [000] ..s1.  100.003000: net_dev_xmit: dev=up0 skbaddr=00000000bb len=1500 rc=0
          <idle>-0       [000] ..s1.  100.004000: net_dev_xmit: dev=up0 skbaddr=00000000bb len=1500 rc=16
          <idle>-0       [001] ..s2.  100.006000: net_dev_queue: dev=up0 skbaddr=00000000dd len=1500
          <idle>-0       [001] ..s2.  100.006000: net_dev_xmit: dev=up0 skbaddr=00000000dd len=1500 rc=0
          <idle>-0       [001] ..s2.  100.010000: net_dev_queue: dev=up0 skbaddr=00000000ee len=1500
          iperf3-99      [000] ..s1.  100.011000: decbit_decision: sport=40001 dport=5201 cwnd=16.000->17.000 acked=32 marked=3 reason=increase
          iperf3-99      [000] ..s1.  100.012000: decbit_decision: sport=40002 dport=5201 cwnd=17.000->17.000 acked=30 marked=0 reason=hold
          iperf3-99      [000] ..s1.  100.013000: decbit_decision: sport=40001 dport=5201 cwnd=17.000->17.000 acked=34 marked=0 reason=hold
"""


QTEXT = """\
# tracer: nop
          <idle>-0       [001] ..s2.  10.000000: net_dev_queue: dev=up0 skbaddr=00000000aa len=1514
          <idle>-0       [001] ..s2.  11.000000: net_dev_queue: dev=up0 skbaddr=00000000bb len=1514
          <idle>-0       [001] ..s2.  11.000000: net_dev_queue: dev=dn0 skbaddr=00000000cc len=1514
          <idle>-0       [000] ..s1.  11.500000: net_dev_xmit: dev=up0 skbaddr=00000000aa len=1514 rc=0
          <idle>-0       [000] ..s1.  12.000000: net_dev_queue: dev=up0 skbaddr=00000000dd len=1514
          <idle>-0       [000] ..s1.  12.000000: kfree_skb: skbaddr=00000000dd protocol=2048 location=__dev_queue_xmit+0x1/0x2 reason: QDISC_DROP
          <idle>-0       [000] ..s1.  12.500000: kfree_skb: skbaddr=00000000cc protocol=2048 location=x reason: NOT_SPECIFIED
          <idle>-0       [000] ..s1.  13.000000: net_dev_xmit: dev=up0 skbaddr=00000000bb len=1514 rc=0
          <idle>-0       [000] ..s1.  13.000000: net_dev_queue: dev=up0 skbaddr=00000000ee len=1514
          <idle>-0       [000] ..s1.  13.000000: net_dev_xmit: dev=up0 skbaddr=00000000ee len=1514 rc=16
          <idle>-0       [000] ..s1.  13.500000: net_dev_xmit: dev=up0 skbaddr=00000000ee len=1514 rc=1
          <idle>-0       [000] ..s1.  14.000000: net_dev_queue: dev=up0 skbaddr=00000000ff len=1514
"""


class PacketQueue(unittest.TestCase):
    def test_waits_and_time_average(self):
        # over [11, 15): aa waits 11-11.5 (arrived before: no wait
        # sample), bb 11-13 (2 s), dd dropped at once; ee is refused by
        # a busy driver at 13 (rc 16: back into the qdisc) and leaves at
        # 13.5 (the driver dropped it, rc 1: it left the qdisc all the
        # same); ff from 14 on; dn0's packet and its drop are another
        # device's
        q = T.packet_queue(QTEXT, "up0", 11.0, 15.0)
        self.assertEqual(q["qdelay_packets"], 2)
        self.assertAlmostEqual(q["qdelay_p50_ms"], 1250.0)
        self.assertAlmostEqual(q["qdelay_p99_ms"], 500 + 1500 * 0.99)
        self.assertAlmostEqual(q["qdelay_max_ms"], 2000.0)
        # 2 packets 11-11.5, 1 until 13.5, 0 until 14, 1 until 15
        self.assertAlmostEqual(q["queue_mean"], (1.0 + 2.0 + 1.0) / 4)
        # a packet held all but 13.5-14
        self.assertAlmostEqual(q["queue_nonempty_frac"], 3.5 / 4)
        self.assertEqual(q["queue_unseen"], 0)

    def test_a_packet_never_seen_leaving_is_flagged(self):
        # ff, queued at 14, still counted at 20
        self.assertEqual(T.packet_queue(QTEXT, "up0", 10.0, 20.0)
                         ["queue_unseen"], 1)

    def test_window_cuts_the_area(self):
        q = T.packet_queue(QTEXT, "up0", 10.0, 11.0)
        self.assertAlmostEqual(q["queue_mean"], 1.0)
        self.assertAlmostEqual(q["queue_nonempty_frac"], 1.0)
        self.assertEqual(q["qdelay_packets"], 0)

    def test_nothing_of_the_device(self):
        self.assertIsNone(T.packet_queue(QTEXT, "eth0", 0.0, 20.0))

    def test_lost_events_from_the_buffer_stats(self):
        stats = ("entries: 10\noverrun: 3\ncommit overrun: 7\nbytes: 99\n"
                 "oldest event ts:  5.000001\nnow ts:  6.0\n"
                 "dropped events: 2\nread events: 0\n")
        # overrun, commit overrun and dropped events all lost one
        self.assertEqual(T._lost(stats), 12)


class Breakdown(unittest.TestCase):
    def test_parse_keeps_the_device_and_sent_packets(self):
        ev = T.parse(TEXT, "up0")
        self.assertEqual([e[1] for e in ev],
                         ["queue", "xmit", "queue", "xmit", "queue", "xmit",
                          "queue"])
        self.assertAlmostEqual(ev[3][0], 100.003)
        self.assertEqual(ev[0][2], 1500)

    def test_split_of_the_link_time(self):
        # 1500 bytes at 12 Mbit/s: 1 ms each.  Sending 3 of the 10 ms; the
        # second packet waited 2 ms after the link freed up (idle with a
        # queue); 2 + 3 ms with nothing queued
        b = T.breakdown(T.parse(TEXT, "up0"), 12e6)
        self.assertAlmostEqual(b["window_s"], 0.010)
        self.assertEqual(b["packets"], 3)
        self.assertAlmostEqual(b["sending"], 0.3)
        self.assertAlmostEqual(b["idle_queued"], 0.2)
        self.assertAlmostEqual(b["idle_empty"], 0.5)
        self.assertEqual(b["late_count"], 1)
        self.assertAlmostEqual(b["late_max_ms"], 2.0)
        self.assertEqual(b["late_over_service"], 1)
        self.assertAlmostEqual(b["queue_at_arrival"], 0.0)

    def test_back_to_back_is_all_sending(self):
        # a packet leaves as the previous one ends, with three more queued
        # (the window starts with them already in the qdisc)
        ev = [(k * 0.001, "xmit", 1500, f"a{k}") for k in range(4)]
        b = T.breakdown(ev, 12e6)
        self.assertAlmostEqual(b["sending"], 1.0)
        self.assertAlmostEqual(b["idle_queued"] + b["idle_empty"], 0.0)
        self.assertEqual(b["late_count"], 0)

    def test_a_packet_freed_unsent_is_not_queued_twice(self):
        # aa is enqueued and dropped; its address comes back for the next
        # packet, which is sent: after that the queue is empty, and the
        # 2 ms before the last enqueue are idle with nothing queued
        ev = [(0.000, "queue", 1500, "aa"), (0.001, "queue", 1500, "aa"),
              (0.001, "xmit", 1500, "aa"), (0.004, "queue", 1500, "bb"),
              (0.004, "xmit", 1500, "bb")]
        b = T.breakdown(ev, 12e6)
        self.assertAlmostEqual(b["idle_empty"], 0.002 / 0.004)
        self.assertAlmostEqual(b["idle_queued"], 0.001 / 0.004)
        self.assertAlmostEqual(b["queue_at_arrival"], 1 / 3)

    def test_decisions_counted_by_reason(self):
        self.assertEqual(T.decisions(TEXT), {"increase": 1, "hold": 2})
        b = T.breakdown(T.parse(TEXT, "up0"), 12e6)
        b["decisions"] = T.decisions(TEXT)
        self.assertIn("decisions hold 2, increase 1", T.summary(b))

    def test_timer_lateness_by_function(self):
        text = "\n".join([
            " <idle>-0 [000] d.h2. 1.0: hrtimer_start: hrtimer=aa function=qdisc_watchdog expires=1000000 softexpires=1000000 mode=ABS",
            " <idle>-0 [000] d.h2. 1.0: hrtimer_start: hrtimer=bb function=tcp_pace_kick expires=1000000 softexpires=1000000 mode=ABS",
            " <idle>-0 [000] d.h2. 1.1: hrtimer_expire_entry: hrtimer=aa function=qdisc_watchdog now=1250000",
            " <idle>-0 [000] d.h2. 1.1: hrtimer_start: hrtimer=aa function=qdisc_watchdog expires=2000000 softexpires=2000000 mode=ABS",
            " <idle>-0 [000] d.h2. 1.2: hrtimer_expire_entry: hrtimer=aa function=qdisc_watchdog now=2050000",
            # an expiry whose start is not in the window is left out
            " <idle>-0 [000] d.h2. 1.2: hrtimer_expire_entry: hrtimer=cc function=tick_sched_timer now=2050000",
        ])
        t = T.timer_lateness(text)
        self.assertEqual(set(t), {"qdisc_watchdog"})
        self.assertEqual(t["qdisc_watchdog"]["count"], 2)
        self.assertAlmostEqual(t["qdisc_watchdog"]["max_us"], 250.0)
        q = t["qdisc_watchdog"]["q5_us"]
        self.assertEqual(len(q), 21)
        self.assertAlmostEqual(q[0], 50.0)
        self.assertAlmostEqual(q[20], 250.0)
        tail = t["qdisc_watchdog"]["qtail_us"]
        self.assertEqual(len(tail), 5)
        self.assertTrue(q[19] <= tail[0] <= tail[4] <= q[20])

    def test_timers_run_in_one_expiry_are_batched(self):
        text = "\n".join([
            " <idle>-0 [000] d.h2. 1.0: hrtimer_start: hrtimer=aa function=tcp_pace_kick expires=1000000 softexpires=1000000 mode=ABS",
            " <idle>-0 [000] d.h2. 1.0: hrtimer_start: hrtimer=bb function=tcp_pace_kick expires=1050000 softexpires=1050000 mode=ABS",
            " <idle>-0 [001] d.h2. 1.0: hrtimer_start: hrtimer=cc function=tcp_pace_kick expires=1000000 softexpires=1000000 mode=ABS",
            " <idle>-0 [000] d.h2. 1.0: hrtimer_start: hrtimer=dd function=qdisc_watchdog expires=1000000 softexpires=1000000 mode=ABS",
            # aa and bb in one expiry of CPU 0; cc at the same time on
            # CPU 1 and dd, of another function, are not batched with them
            " <idle>-0 [000] ..s2. 1.1: hrtimer_expire_entry: hrtimer=aa function=tcp_pace_kick now=1100000",
            " <idle>-0 [000] ..s2. 1.1: hrtimer_expire_entry: hrtimer=bb function=tcp_pace_kick now=1100000",
            " <idle>-0 [001] ..s2. 1.1: hrtimer_expire_entry: hrtimer=cc function=tcp_pace_kick now=1100000",
            " <idle>-0 [000] d.h2. 1.1: hrtimer_expire_entry: hrtimer=dd function=qdisc_watchdog now=1100000",
        ])
        t = T.timer_lateness(text)
        self.assertEqual(t["tcp_pace_kick"]["count"], 3)
        self.assertEqual(t["tcp_pace_kick"]["batched"], 2)
        self.assertEqual(t["qdisc_watchdog"]["batched"], 0)

    def test_arrival_gaps(self):
        b = T.breakdown(T.parse(TEXT, "up0"), 12e6)
        # arrivals at 0, 0.5, 6, 10 ms: none within 100 us of the last
        self.assertEqual(b["arrival_gaps"],
                         {"10us": 0.0, "50us": 0.0, "100us": 0.0})
        self.assertEqual(T._gaps([0.0, 0.000005, 0.00004, 0.001]),
                         {"10us": 1 / 3, "50us": 2 / 3, "100us": 2 / 3})

    def test_nothing_traced(self):
        self.assertIsNone(T.breakdown([], 1e6))
        self.assertEqual(T.summary(None), "no packets traced")
