// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the DECbit source window policy (decbit_policy.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "decbit_policy.h"

#define ONE	DECBIT_W_ONE

static const struct decbit_policy_params paper = {
	.cutoff = 50, .increase = ONE, .decrease = 896,
	.loss_decrease = 512, .slow_start = false,
};

/* Acknowledge @n packets one by one, the first @m of them marked. */
static enum decbit_reason ack_n(struct decbit_win *s,
				const struct decbit_policy_params *p,
				u32 n, u32 m, bool limited)
{
	enum decbit_reason r = DECBIT_NONE, x;
	u32 i;

	for (i = 0; i < n; i++) {
		x = decbit_win_ack(s, p, 1, i < m, limited);
		if (x != DECBIT_NONE) {
			assert_int_equal(i, n - 1);	/* only at the end */
			r = x;
		}
	}
	return r;
}

static void test_increase_decrease(void **state)
{
	struct decbit_win s;

	(void)state;
	decbit_win_init(&s, &paper, 8);
	/* first epoch: W_p = 0, W_c = 8: decide after 8 packets */
	assert_int_equal(ack_n(&s, &paper, 8, 0, true), DECBIT_INCREASE);
	assert_int_equal(s.w, 9 * ONE);
	assert_int_equal(s.w_prev, 8);
	assert_int_equal(s.w_cur, 9);
	/* 17 packets later; 5 of the last 9 marked (>= 50%): x 7/8 */
	assert_int_equal(ack_n(&s, &paper, 8, 0, true), DECBIT_NONE);
	assert_int_equal(decbit_win_ack(&s, &paper, 4, 0, true), DECBIT_NONE);
	assert_int_equal(decbit_win_ack(&s, &paper, 5, 5, true), DECBIT_DECREASE);
	assert_int_equal(s.w, 9 * 896);		/* 7.875 packets */
	assert_int_equal(decbit_win_pkts(&s), 8);
	/* never below one packet */
	decbit_win_init(&s, &paper, 1);
	assert_int_equal(ack_n(&s, &paper, 1, 1, true), DECBIT_DECREASE);
	assert_int_equal(s.w, ONE);
}

/* Only the last W_c packets of the W_p + W_c epoch count. */
static void test_last_wc_only(void **state)
{
	struct decbit_win s;

	(void)state;
	decbit_win_init(&s, &paper, 10);
	assert_int_equal(ack_n(&s, &paper, 10, 0, true), DECBIT_INCREASE);
	/* W_p = 10, W_c = 11: 10 marked in the first 10 packets: ignored */
	assert_int_equal(ack_n(&s, &paper, 10, 10, true), DECBIT_NONE);
	assert_int_equal(ack_n(&s, &paper, 11, 5, true), DECBIT_INCREASE);
	assert_int_equal(s.w, 12 * ONE);
	/* W_p = 11, W_c = 12: 6 of the last 12 marked = 50%: decrease */
	assert_int_equal(ack_n(&s, &paper, 11, 0, true), DECBIT_NONE);
	assert_int_equal(ack_n(&s, &paper, 12, 6, true), DECBIT_DECREASE);
	/* A stretch ACK straddling the boundary: 4 of its 8 packets are in
	 * the counted part, its 6 marks count pro rata (3).
	 */
	decbit_win_init(&s, &paper, 10);
	ack_n(&s, &paper, 10, 0, true);		/* W_p 10, W_c 11 */
	assert_int_equal(decbit_win_ack(&s, &paper, 6, 0, true), DECBIT_NONE);
	assert_int_equal(decbit_win_ack(&s, &paper, 8, 6, true), DECBIT_NONE);
	assert_int_equal(s.marked, 3);
	/* 7 more to the decision, 2 marked: 5 of 11 < 50%: increase */
	assert_int_equal(decbit_win_ack(&s, &paper, 7, 2, true), DECBIT_INCREASE);
}

/* Source-bound rule: no increase if the window was never the limit. */
static void test_no_increase_when_not_limited(void **state)
{
	struct decbit_win s;

	(void)state;
	decbit_win_init(&s, &paper, 10);
	assert_int_equal(ack_n(&s, &paper, 10, 0, false), DECBIT_HOLD);
	assert_int_equal(s.w, 10 * ONE);
	/* limited at any point of the epoch is enough */
	assert_int_equal(decbit_win_ack(&s, &paper, 19, 0, false), DECBIT_NONE);
	assert_int_equal(decbit_win_ack(&s, &paper, 1, 0, true), DECBIT_INCREASE);
	/* and marks still decrease */
	ack_n(&s, &paper, 10, 0, false);
	assert_int_equal(ack_n(&s, &paper, 11, 11, false), DECBIT_DECREASE);
}

static void test_slow_start_loss_restart(void **state)
{
	struct decbit_policy_params p = paper;
	struct decbit_win s;

	(void)state;
	p.slow_start = true;
	decbit_win_init(&s, &p, 10);
	assert_int_equal(decbit_win_ack(&s, &p, 10, 0, true), DECBIT_NONE);
	assert_int_equal(s.w, 20 * ONE);
	assert_int_equal(decbit_win_ack(&s, &p, 2, 1, true), DECBIT_SS_EXIT);
	assert_int_equal(s.w, 20 * 896);
	assert_false(s.in_ss);
	/* loss: halve, new epoch */
	decbit_win_loss(&s, &p);
	assert_int_equal(s.w, 20 * 896 / 2);
	assert_int_equal(s.acked, 0);
	/* timeout: one packet, slow start up to half the old window */
	decbit_win_restart(&s);
	assert_int_equal(s.w, ONE);
	assert_true(s.in_ss);
	assert_int_equal(s.ssthresh, 4);
	decbit_win_ack(&s, &p, 1, 0, true);
	decbit_win_ack(&s, &p, 2, 0, true);
	assert_false(s.in_ss);
	assert_int_equal(decbit_win_pkts(&s), 4);
}

/*
 * A timeout slow starts back to half the window even without the initial
 * slow start (the paper's policy): the lost window is sent again during
 * it (issue #19: one lost packet a round trip).  The slow start stops at
 * ssthresh exactly, a new epoch follows, and the end of the loss episode
 * starts another from the window reached.
 */
/*
 * After an idle spell longer than the RTO: the restart window, then slow
 * start back to 3/4 of the window (RFC 5681 section 4.1); a mark ends
 * that slow start; a window already within the restart window is kept.
 */
static void test_idle_restart(void **state)
{
	struct decbit_win s;

	(void)state;
	decbit_win_init(&s, &paper, 80);
	assert_true(decbit_win_idle(&s, 10));
	assert_int_equal(s.w, 10 * ONE);
	assert_true(s.in_ss);
	assert_int_equal(s.ssthresh, 60);
	/* 10, 20, 40, then 60 and not 80: avoidance again */
	assert_int_equal(decbit_win_ack(&s, &paper, 10, 0, true), DECBIT_NONE);
	assert_int_equal(decbit_win_ack(&s, &paper, 20, 0, true), DECBIT_NONE);
	assert_int_equal(decbit_win_pkts(&s), 40);
	assert_true(s.in_ss);
	assert_int_equal(decbit_win_ack(&s, &paper, 40, 0, true), DECBIT_NONE);
	assert_false(s.in_ss);
	assert_int_equal(s.w, 60 * ONE);

	/* a mark on the way ends the slow start (x 7/8) */
	assert_true(decbit_win_idle(&s, 10));
	assert_int_equal(decbit_win_ack(&s, &paper, 10, 1, true), DECBIT_SS_EXIT);
	assert_false(s.in_ss);
	assert_int_equal(s.w, 10 * 896);

	/* within the restart window: nothing changes */
	decbit_win_init(&s, &paper, 8);
	assert_false(decbit_win_idle(&s, 10));
	assert_int_equal(s.w, 8 * ONE);
	assert_false(s.in_ss);

	/* still in the connection's slow start: its ssthresh stays */
	decbit_win_init(&s, &(struct decbit_policy_params){ .cutoff = 50,
		.increase = ONE, .decrease = 896, .loss_decrease = 512,
		.slow_start = true }, 40);
	assert_true(decbit_win_idle(&s, 10));
	assert_int_equal(s.ssthresh, DECBIT_W_MAX >> DECBIT_W_SHIFT);
	/* a restart window of 0 is one packet */
	decbit_win_init(&s, &paper, 5);
	assert_true(decbit_win_idle(&s, 0));
	assert_int_equal(s.w, ONE);
}

static void test_restart_slow_starts(void **state)
{
	struct decbit_win s;

	(void)state;
	decbit_win_init(&s, &paper, 100);
	assert_false(s.in_ss);
	decbit_win_restart(&s);
	assert_int_equal(s.w, ONE);
	assert_true(s.in_ss);
	assert_int_equal(s.ssthresh, 50);
	/* 1, 2, 4, ... 32, then 50 and not 64 */
	assert_int_equal(decbit_win_ack(&s, &paper, 1, 0, true), DECBIT_NONE);
	assert_int_equal(decbit_win_ack(&s, &paper, 2, 0, true), DECBIT_NONE);
	assert_int_equal(decbit_win_ack(&s, &paper, 4, 0, true), DECBIT_NONE);
	assert_int_equal(decbit_win_ack(&s, &paper, 8, 0, true), DECBIT_NONE);
	assert_int_equal(decbit_win_ack(&s, &paper, 16, 0, true), DECBIT_NONE);
	assert_true(s.in_ss);
	assert_int_equal(decbit_win_pkts(&s), 32);
	assert_int_equal(decbit_win_ack(&s, &paper, 32, 0, true), DECBIT_NONE);
	assert_false(s.in_ss);
	assert_int_equal(s.w, 50 * ONE);
	/* the epoch: W_p 32 (sent before), W_c 50 */
	assert_int_equal(s.w_prev, 32);
	assert_int_equal(s.w_cur, 50);
	ack_n(&s, &paper, 20, 0, true);
	decbit_win_resume(&s);
	assert_int_equal(s.w_prev, 50);
	assert_int_equal(s.acked, 0);
	/* a decision after W_p + W_c, on the last W_c only */
	ack_n(&s, &paper, 50, 50, true);
	assert_int_equal(ack_n(&s, &paper, 50, 0, true), DECBIT_INCREASE);
	assert_int_equal(s.w, 51 * ONE);

	/* a mark during the slow start ends it (x 7/8) */
	decbit_win_restart(&s);
	decbit_win_ack(&s, &paper, 1, 0, true);
	assert_int_equal(decbit_win_ack(&s, &paper, 2, 1, true), DECBIT_SS_EXIT);
	assert_false(s.in_ss);
	assert_int_equal(s.w, 2 * 896);
	/* a window above ssthresh (an undo) ends the slow start as it is */
	decbit_win_restart(&s);
	decbit_win_set(&s, 80 * ONE);
	decbit_win_ack(&s, &paper, 3, 0, true);
	assert_false(s.in_ss);
	assert_int_equal(s.w, 80 * ONE);
	/* a slow start that has not reached ssthresh goes on after resume */
	decbit_win_restart(&s);
	decbit_win_resume(&s);
	assert_true(s.in_ss);
	assert_int_equal(s.w, ONE);
}

/*
 * Backed-off timeouts of one episode (issue #19 item 2): the restart runs
 * once (the first timeout's CA_EVENT_LOSS), every timeout goes back to one
 * packet with the same ssthresh, half the window of before the episode;
 * before, each timeout restarted from the collapsed window (ssthresh 2).
 * A timeout that ends a fast recovery slow starts to recovery's window.
 */
static void test_timeouts_of_one_episode(void **state)
{
	struct decbit_win s;

	(void)state;
	decbit_win_init(&s, &paper, 100);
	decbit_win_restart(&s);
	decbit_win_timeout(&s);			/* the first timeout */
	assert_int_equal(s.w, ONE);
	assert_int_equal(s.ssthresh, 50);
	decbit_win_ack(&s, &paper, 1, 0, true);	/* 2 packets */
	decbit_win_ack(&s, &paper, 2, 0, true);	/* 4 */
	decbit_win_timeout(&s);			/* backed off, same episode */
	assert_int_equal(s.w, ONE);
	assert_true(s.in_ss);
	assert_int_equal(s.ssthresh, 50);
	/* slow start all the way to 50 and hold there, then another */
	ack_n(&s, &paper, 49, 0, true);
	assert_false(s.in_ss);
	assert_int_equal(decbit_win_pkts(&s), 50);
	decbit_win_timeout(&s);
	assert_int_equal(s.ssthresh, 50);
	assert_int_equal(s.w, ONE);

	/* fast recovery (x 1/2) then a timeout in it: slow start to 40 */
	decbit_win_init(&s, &paper, 80);
	decbit_win_loss(&s, &paper);
	decbit_win_timeout(&s);
	assert_int_equal(s.ssthresh, 40);
	assert_int_equal(s.w, ONE);
}

/*
 * PRR (RFC 6937), going from 20 packets to 10 (issue #19 item 4): above
 * the target one packet goes per two delivered, the fast retransmit goes
 * on the first ACK, and below the target the window grows back no faster
 * than packets are delivered; never above in_flight + target.
 */
static void test_prr(void **state)
{
	u32 delivered = 0, out = 0, in_flight = 19, k, cwnd;

	(void)state;
	/* first ACK: one SACKed packet, three lost counted out of flight */
	cwnd = decbit_prr_cwnd(10, 20, 1, 0, 16, 1);
	assert_int_equal(cwnd, 17);		/* the retransmission: 16 + 1 */
	out = 1;
	in_flight = 17;
	/* each ACK delivers one: send ceil(10 * delivered / 20) - out */
	for (k = 2, delivered = 1; k <= 12; k++) {
		delivered++;
		in_flight--;
		cwnd = decbit_prr_cwnd(10, 20, delivered, out, in_flight, 1);
		assert_int_equal(cwnd - in_flight, (10 * delivered + 19) / 20 - out);
		out += cwnd - in_flight;
		in_flight = cwnd;
	}
	assert_int_equal(out, 6);		/* 12 delivered, 6 sent */
	/* at the target: as many as delivered, never past the target */
	assert_int_equal(decbit_prr_cwnd(10, 20, 14, 6, 8, 2), 10);
	assert_int_equal(decbit_prr_cwnd(10, 20, 30, 6, 2, 1), 10);
	assert_int_equal(decbit_prr_cwnd(10, 20, 14, 13, 8, 1), 9);
	/* absurd counts stay bounded by the target */
	assert_true(decbit_prr_cwnd(10, 1, 0xffffffffu, 0, 50, 5) <= 60);
	assert_int_equal(decbit_prr_cwnd(10, 0, 0, 0, 0, 0), 1);
}


/* Decisions without a mark in the window: epochs of W_p + W_c packets. */
static void calm_decisions(struct decbit_win *s, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		assert_int_equal(ack_n(s, &paper, s->w_prev + s->w_cur - s->acked,
				       0, false), DECBIT_HOLD);
}

/*
 * Bursts until the first mark; one packet per skb from then on, until a
 * calm spell twice the policy's cycle (W (1 - decrease) / increase
 * decisions) plus DECBIT_CALM_SLACK long.
 */
static void test_single_after_mark(void **state)
{
	struct decbit_policy_params slow = paper, tiny = paper;
	struct decbit_win s;
	u32 i;

	(void)state;
	decbit_win_init(&s, &paper, 16);
	assert_false(decbit_win_single(&s, &paper));
	calm_decisions(&s, 100);
	assert_false(decbit_win_single(&s, &paper));
	/* one mark, mid-epoch: single from that ACK on */
	assert_int_equal(decbit_win_ack(&s, &paper, 1, 1, false), DECBIT_NONE);
	assert_true(decbit_win_single(&s, &paper));
	/* W = 16: the cycle is 2 decisions; single for 2 * 2 + 8 of them,
	 * the one the mark fell in included
	 */
	for (i = 0; i < 12; i++) {
		assert_true(decbit_win_single(&s, &paper));
		calm_decisions(&s, 1);
	}
	assert_false(decbit_win_single(&s, &paper));
	/* a mark in the W_p part, which the policy ignores, counts here */
	assert_int_equal(decbit_win_ack(&s, &paper, 1, 1, false), DECBIT_NONE);
	assert_true(decbit_win_single(&s, &paper));

	/* W = 160: cycle 20 decisions, so single for 48 */
	decbit_win_init(&s, &paper, 160);
	assert_int_equal(decbit_win_ack(&s, &paper, 1, 1, false), DECBIT_NONE);
	for (i = 0; i < 48; i++) {
		assert_true(decbit_win_single(&s, &paper));
		calm_decisions(&s, 1);
	}
	assert_false(decbit_win_single(&s, &paper));

	/* the first mark of a slow start ends it, and the bursts */
	slow.slow_start = true;
	decbit_win_init(&s, &slow, 10);
	assert_int_equal(decbit_win_ack(&s, &slow, 10, 0, true), DECBIT_NONE);
	assert_false(decbit_win_single(&s, &slow));
	assert_int_equal(decbit_win_ack(&s, &slow, 1, 1, true), DECBIT_SS_EXIT);
	assert_true(decbit_win_single(&s, &slow));

	/* an increase of 1/1024 packet: a cycle of W * 128 decisions */
	tiny.increase = 1;
	decbit_win_init(&s, &tiny, 16);
	assert_int_equal(decbit_win_ack(&s, &tiny, 1, 1, false), DECBIT_NONE);
	s.calm = 2 * 16 * 128 + DECBIT_CALM_SLACK - 1;
	assert_true(decbit_win_single(&s, &tiny));
	s.calm++;
	assert_false(decbit_win_single(&s, &tiny));
	/* the count saturates below "never" */
	s.calm = DECBIT_CALM_NEVER - 1;
	calm_decisions(&s, 1);
	assert_int_equal(s.calm, DECBIT_CALM_NEVER - 1);
}

/*
 * The paper's integer-window trap (section 5): two flows on one path,
 * increase 1, decrease 0.8, knee 15.5: each decision both flows see the
 * bit iff W1 + W2 > 15.5.  Truncated integer windows cycle
 * (10, 6) -> (8, 4) -> (9, 5) -> (10, 6) for ever; the fixed-point window
 * converges to equal windows.
 */
static void test_integer_window_trap(void **state)
{
	struct decbit_policy_params p = paper;
	struct decbit_win a, b;
	u32 i1 = 10, i2 = 6, k;

	(void)state;
	p.decrease = 819;	/* 0.8 */
	for (k = 0; k < 30; k++) {
		if (k % 3 == 0) {
			assert_int_equal(i1, 10);
			assert_int_equal(i2, 6);
		}
		if (i1 + i2 > 15) {	/* 16 > 15.5 */
			i1 = i1 * 8 / 10;
			i2 = i2 * 8 / 10;
		} else {
			i1++;
			i2++;
		}
	}

	decbit_win_init(&a, &p, 10);
	decbit_win_init(&b, &p, 6);
	for (k = 0; k < 200; k++) {
		/* the knee is at 15.5 packets in total */
		bool bit = (u64)a.w + b.w > 31 * ONE / 2;
		u32 na = a.w_prev + a.w_cur - a.acked;
		u32 nb = b.w_prev + b.w_cur - b.acked;

		assert_int_not_equal(decbit_win_ack(&a, &p, na, bit ? na : 0, true),
				     DECBIT_NONE);
		assert_int_not_equal(decbit_win_ack(&b, &p, nb, bit ? nb : 0, true),
				     DECBIT_NONE);
	}
	/* equal to within a small fraction of a packet */
	assert_true((a.w > b.w ? a.w - b.w : b.w - a.w) < ONE / 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_increase_decrease),
		cmocka_unit_test(test_last_wc_only),
		cmocka_unit_test(test_no_increase_when_not_limited),
		cmocka_unit_test(test_slow_start_loss_restart),
		cmocka_unit_test(test_restart_slow_starts),
		cmocka_unit_test(test_idle_restart),
		cmocka_unit_test(test_timeouts_of_one_episode),
		cmocka_unit_test(test_prr),
		cmocka_unit_test(test_integer_window_trap),
		cmocka_unit_test(test_single_after_mark),
	};

	return cmocka_run_group_tests_name("decbit_policy", tests, NULL, NULL);
}
