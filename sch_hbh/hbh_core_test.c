// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the hop-by-hop rate law (hbh_core.h): the estimator (Eq 3),
 * the counter form of the predictor (Eq 2), the control law (Eq 1) and the
 * gradual start (Eq 4), the handling of stale, restarted and implausible
 * reports, the setpoint helpers, overflow safety at the documented extremes
 * (with a seeded random walk checked against a 128-bit reference).  The
 * closed-loop packet simulation of one hop is hbh_loop_test.c.
 *
 * Most cases use the paper's 10 Mbit/s link: C = 1 250 000 B/s, H = 20 ms,
 * alpha = 410/1024 (0.4), beta = 461/1024 (0.45), rise = C/64, rate_min =
 * C/1024.  The correction for an error of E bytes is then
 * beta * E / H = E * 461e9 / (1024 * 20e6) = E * 22.509765625 B/s, floored.
 * Reports are built by hand: D has departed "dep" bytes and holds q bytes,
 * so it has received dep + q, and U has sent that plus what is in flight
 * (plus "shift" if one end's counters restarted).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "hbh_core.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define US	1000ULL
#define MS	1000000ULL
#define SEC	NSEC_PER_SEC
#define C10	1250000ULL	/* 10 Mbit/s in bytes/s */
#define PKT	500U
#define SP	(50 * PKT)	/* setpoint: 50 packets of 500 B */

/* the defaults on a 10 Mbit/s link with a 20 ms loop (set in main()) */
static struct hbh_params p10;

/* A flow driven by hand-made reports. */
struct feed {
	struct hbh_ctl c;
	struct hbh_params p;
	u64 t;			/* D's clock at the last report, ns */
	u64 dep;		/* D's departed counter */
	u64 shift;		/* U's counters ahead of D's (restarts), mod 2^64 */
	u32 setpoint;
	u32 origin;
	struct hbh_report r;	/* the last report */
	u64 sent;		/* and U's counter with it */
};

static void feed_init(struct feed *f, const struct hbh_params *p)
{
	*f = (struct feed){ .p = *p, .setpoint = SP, .origin = 7 };
	hbh_ctl_init(&f->c, &f->p);
}

/*
 * The next report, @dt after the last: D sent @ddep bytes meanwhile, holds
 * @q bytes (q / PKT packets, at least one unless q == 0), and U has @infl
 * bytes more out than D has received.
 */
static enum hbh_update feed(struct feed *f, u64 dt, u64 ddep, u32 q, s64 infl)
{
	f->t += dt;
	f->dep += ddep;
	f->r = (struct hbh_report){
		.t_meas = f->t,
		.departed = f->dep,
		.arrived = f->dep + q,
		.q_pkts = q ? (q / PKT ? q / PKT : 1) : 0,
		.q_bytes = q,
		.setpoint = f->setpoint,
		.origin = f->origin,
	};
	f->sent = f->dep + q + (u64)infl + f->shift;
	return hbh_ctl_report(&f->c, &f->p, &f->r, f->sent);
}

/* beta * err / H of p10, by the formula in the header comment */
static u64 corr10(u64 err)
{
	return err * 461 * 1000000000ULL / (1024 * 20 * MS);
}

static void assert_ctl_equal(const struct hbh_ctl *a, const struct hbh_ctl *b)
{
	assert_int_equal(a->rate, b->rate);
	assert_int_equal(a->mhat, b->mhat);
	assert_int_equal(a->xhat, b->xhat);
	assert_int_equal(a->offset, b->offset);
	assert_int_equal(a->last_t, b->last_t);
	assert_int_equal(a->last_dep, b->last_dep);
	assert_int_equal(a->last_origin, b->last_origin);
	assert_int_equal(a->state, b->state);
}

/*
 * 1. Steady state.  D departs m = 1 000 000 B/s (4000 B per 4 ms), holds
 * the setpoint (25 000 B) and m * H = 20 000 B are in flight: x^ = 25 000 +
 * 20 000 - 20 000 = x*, so lambda = m^ = m exactly, report after report.
 * The EWMA of a constant is exact: (410 m + 614 m) / 1024 = m.
 */
static void test_steady_state(void **state)
{
	static const struct hbh_params p10g = {
		.rate = 1250000000ULL, .rate_min = 1250000000ULL / 1024,
		.rise = 1250000000ULL / 64, .horizon = 20 * MS,
		.alpha = 410, .beta = 461,
	};
	struct feed f;
	int i;

	(void)state;
	feed_init(&f, &p10);
	assert_int_equal(feed(&f, 0, 0, SP, 20000), HBH_UPD_BASELINE);
	/* sent - arrived = 20 000 <= C * H = 25 000: plausible, no offset */
	assert_int_equal(f.c.offset, 0);
	for (i = 0; i < 100; i++) {
		assert_int_equal(feed(&f, 4 * MS, 4000, SP, 20000), HBH_UPD_LAW);
		assert_int_equal(f.c.mhat, 1000000);
		assert_int_equal(f.c.xhat, SP);
		assert_int_equal(f.c.rate, 1000000);
	}

	/* m = C: the law gives C, not more (mhat * H = 25 000 in flight) */
	feed_init(&f, &p10);
	feed(&f, 0, 0, SP, 25000);
	for (i = 0; i < 20; i++) {
		assert_int_equal(feed(&f, 4 * MS, 5000, SP, 25000), HBH_UPD_LAW);
		assert_int_equal(f.c.rate, C10);
		assert_int_equal(f.c.mhat, C10);
	}

	/* 10 Gbit/s link, m = 1e9 B/s: 4e6 B per 4 ms, 2e7 B in flight */
	feed_init(&f, &p10g);
	feed(&f, 0, 0, SP, 20000000);
	assert_int_equal(f.c.offset, 0);
	for (i = 0; i < 20; i++) {
		assert_int_equal(feed(&f, 4 * MS, 4000000, SP, 20000000),
				 HBH_UPD_LAW);
		assert_int_equal(f.c.rate, 1000000000ULL);
		assert_int_equal(f.c.mhat, 1000000000ULL);
		assert_int_equal(f.c.xhat, SP);
	}

	/*
	 * Converging from below: m^ starts at 500 000 and m is 1 000 000.
	 * The floored EWMA stops where floor((1024 m - 614 k) / 1024) = m - k,
	 * i.e. k < 1024 / 410 = 2.5: m^ ends at m - 2, m - 1 or m.
	 */
	feed_init(&f, &p10);
	feed(&f, 0, 0, SP, 20000);
	feed(&f, 4 * MS, 2000, SP, 20000);
	assert_int_equal(f.c.mhat, 500000);
	for (i = 0; i < 200; i++)
		feed(&f, 4 * MS, 4000, SP, 20000);
	assert_in_range(f.c.mhat, 1000000 - 2, 1000000);
	/* m^ H = 19 999.96 -> 19 999: x^ is 1 byte over at most: -22 B/s */
	assert_int_equal(f.c.xhat, SP + 20000 - f.c.mhat * 20 / 1000);
	assert_in_range(f.c.rate, 1000000 - 2 - 22, 1000000);
}

/*
 * 2. The first report only fixes the counters, the second initialises m^
 * with m (no EWMA on a first measurement), the third runs the EWMA:
 *   m^ = (410 * 500 000 + 614 * 1 000 000) / 1024 = 799 804 (.6875)
 *   x^ = 25 000 + 20 000 - floor(799 804 * 0.02 = 15 996.08) = 29 004
 *   lambda = 799 804 - floor(4004 * 22.509765625 = 90 129.1) = 709 675
 * and the fourth: (410 * 1 500 000 + 614 * 799 804) / 1024 = 1 080 155.
 */
static void test_first_reports(void **state)
{
	struct feed f;

	(void)state;
	feed_init(&f, &p10);
	assert_int_equal(f.c.state, HBH_UNCONTROLLED);
	assert_int_equal(f.c.rate, C10);

	assert_int_equal(feed(&f, 1 * SEC, 123456, SP, 20000), HBH_UPD_BASELINE);
	assert_int_equal(f.c.state, HBH_BASELINE);
	assert_int_equal(f.c.rate, C10);
	assert_int_equal(f.c.mhat, 0);
	assert_int_equal(f.c.last_t, 1 * SEC);
	assert_int_equal(f.c.last_dep, 123456);
	assert_int_equal(f.c.last_origin, 7);

	assert_int_equal(feed(&f, 4 * MS, 4000, SP, 20000), HBH_UPD_LAW);
	assert_int_equal(f.c.state, HBH_CONTROLLED);
	assert_int_equal(f.c.mhat, 1000000);
	assert_int_equal(f.c.rate, 1000000);

	assert_int_equal(feed(&f, 4 * MS, 2000, SP, 20000), HBH_UPD_LAW);
	assert_int_equal(f.c.mhat, (410 * 500000ULL + 614 * 1000000ULL) / 1024);
	assert_int_equal(f.c.mhat, 799804);
	assert_int_equal(f.c.xhat, 29004);
	assert_int_equal(f.c.rate, 799804 - corr10(4004));
	assert_int_equal(f.c.rate, 709675);

	assert_int_equal(feed(&f, 4 * MS, 6000, SP, 20000), HBH_UPD_LAW);
	assert_int_equal(f.c.mhat, 1080155);

	/* alpha = 1: m^ is the last measurement */
	f.p.alpha = HBH_SCALE;
	feed(&f, 4 * MS, 1000, SP, 20000);
	assert_int_equal(f.c.mhat, 250000);
	/* and a measurement over an uneven period: 3333 B in 3 ms */
	feed(&f, 3 * MS, 3333, SP, 20000);
	assert_int_equal(f.c.mhat, 1111000);
}

/*
 * 3. Step responses from the steady state of test 1 (m^ = 1e6):
 *   5000 B over:  1e6 - floor(5000 * 22.509765625 = 112 548.8) = 887 452
 *   5000 B under: 1e6 + 112 548 = 1 112 548
 * The in-flight term counts as much as the queue: 5000 B more sent.
 * Clamps: 100 000 B over asks for 1e6 - 2 250 976 < 0 -> rate_min = 1220;
 * one packet queued (500 B), 24 500 B under: 1e6 + 551 489 -> C.
 */
static void test_step_response(void **state)
{
	struct feed f;

	(void)state;
	feed_init(&f, &p10);
	feed(&f, 0, 0, SP, 20000);
	feed(&f, 4 * MS, 4000, SP, 20000);
	assert_int_equal(f.c.rate, 1000000);

	assert_int_equal(feed(&f, 4 * MS, 4000, SP + 5000, 20000), HBH_UPD_LAW);
	assert_int_equal(f.c.xhat, SP + 5000);
	assert_int_equal(f.c.rate, 887452);
	assert_int_equal(f.c.rate, 1000000 - corr10(5000));

	assert_int_equal(feed(&f, 4 * MS, 4000, SP - 5000, 20000), HBH_UPD_LAW);
	assert_int_equal(f.c.xhat, SP - 5000);
	assert_int_equal(f.c.rate, 1112548);

	assert_int_equal(feed(&f, 4 * MS, 4000, SP, 25000), HBH_UPD_LAW);
	assert_int_equal(f.c.rate, 887452);
	assert_int_equal(feed(&f, 4 * MS, 4000, SP, 15000), HBH_UPD_LAW);
	assert_int_equal(f.c.rate, 1112548);

	/* one byte: 22 B/s either way */
	feed(&f, 4 * MS, 4000, SP + 1, 20000);
	assert_int_equal(f.c.rate, 1000000 - 22);
	feed(&f, 4 * MS, 4000, SP - 1, 20000);
	assert_int_equal(f.c.rate, 1000000 + 22);

	feed(&f, 4 * MS, 4000, SP + 100000, 20000);
	assert_int_equal(f.c.rate, C10 / 1024);
	assert_int_equal(f.c.rate, 1220);
	feed(&f, 4 * MS, 4000, PKT, 20000);
	assert_int_equal(f.c.xhat, PKT);
	assert_int_equal(f.c.rate, C10);

	/*
	 * The correction equal to m^ exactly: E * 22.509765625 = 1e6 has no
	 * integer solution, so take beta = 1024, H = 1 s: E B/s for E bytes.
	 * E = 1e6 -> 0 -> rate_min; E = 1e6 - 5000 -> 5000.
	 */
	f.p.beta = HBH_SCALE;
	f.p.horizon = 1 * SEC;
	/* m^ H = 1e6 in flight at 1e6 B/s over 1 s */
	feed(&f, 4 * MS, 4000, SP + 1000000, 1000000);
	assert_int_equal(f.c.mhat, 1000000);
	assert_int_equal(f.c.rate, 1220);
	feed(&f, 4 * MS, 4000, SP + 995000, 1000000);
	assert_int_equal(f.c.rate, 5000);
}

/*
 * 4. Gradual start (Eq 4).  Drive the rate to rate_min with a huge queue,
 * then report an empty queue: +19 531 B/s per report, whatever m^ says.
 * 1220 + 63 * 19 531 = 1 231 673 < C, the 64th reaches C (clamped).
 */
static void test_gradual_start(void **state)
{
	struct feed f;
	int k;

	(void)state;
	feed_init(&f, &p10);
	feed(&f, 0, 0, 1000000, 20000);
	/* an empty queue on the first measurement: +rise, already at C */
	assert_int_equal(feed(&f, 4 * MS, 4000, 0, 20000), HBH_UPD_RISE);
	assert_int_equal(f.c.state, HBH_CONTROLLED);
	assert_int_equal(f.c.mhat, 1000000);
	assert_int_equal(f.c.rate, C10);

	assert_int_equal(feed(&f, 4 * MS, 4000, 1000000, 20000), HBH_UPD_LAW);
	assert_int_equal(f.c.rate, 1220);

	for (k = 1; k < 64; k++) {
		assert_int_equal(feed(&f, 4 * MS, 4000, 0, 20000), HBH_UPD_RISE);
		assert_int_equal(f.c.rate, 1220 + k * 19531ULL);
		/* m^ and x^ are still kept up to date */
		assert_int_equal(f.c.mhat, 1000000);
		assert_int_equal(f.c.xhat, 0);
	}
	assert_int_equal(f.c.rate, 1231673);
	assert_int_equal(feed(&f, 4 * MS, 4000, 0, 20000), HBH_UPD_RISE);
	assert_int_equal(f.c.rate, C10);
	assert_int_equal(feed(&f, 4 * MS, 4000, 0, 20000), HBH_UPD_RISE);
	assert_int_equal(f.c.rate, C10);

	/* q_pkts decides, not q_bytes (D reports both from the same queue) */
	feed(&f, 4 * MS, 4000, 1000000, 20000);
	assert_int_equal(f.c.rate, 1220);
	f.t += 4 * MS;
	f.dep += 4000;
	f.r.t_meas = f.t;
	f.r.departed = f.dep;
	f.r.q_pkts = 0;
	assert_int_equal(hbh_ctl_report(&f.c, &f.p, &f.r, f.sent), HBH_UPD_RISE);
	assert_int_equal(f.c.rate, 1220 + 19531);
}

/*
 * 5. Reports that must not move the rate: stale or replayed ones (same
 * origin, t_meas <= last) are ignored entirely; a new origin, departures
 * going backwards or a gap over 10 s start the counters again and keep
 * lambda and m^.
 */
static void test_stale_and_rebase(void **state)
{
	struct hbh_report r;
	struct hbh_ctl before;
	struct feed f;

	(void)state;
	feed_init(&f, &p10);
	feed(&f, 0, 0, SP, 20000);
	feed(&f, 4 * MS, 4000, SP, 20000);
	feed(&f, 4 * MS, 4000, SP + 5000, 20000);
	assert_int_equal(f.c.rate, 887452);

	/* replay of the last report, and of an older one, whatever it says */
	before = f.c;
	r = f.r;
	assert_int_equal(hbh_ctl_report(&f.c, &f.p, &r, f.sent), HBH_UPD_STALE);
	assert_ctl_equal(&f.c, &before);
	r.t_meas -= 4 * MS;
	r.departed += 99999;
	r.q_pkts = 0;
	assert_int_equal(hbh_ctl_report(&f.c, &f.p, &r, f.sent + 1), HBH_UPD_STALE);
	assert_ctl_equal(&f.c, &before);
	r.t_meas = 0;
	assert_int_equal(hbh_ctl_report(&f.c, &f.p, &r, 0), HBH_UPD_STALE);
	assert_ctl_equal(&f.c, &before);

	/* a new origin: counters again, lambda and m^ kept */
	f.origin = 8;
	assert_int_equal(feed(&f, 4 * MS, 4000, SP + 100000, 20000),
			 HBH_UPD_BASELINE);
	assert_int_equal(f.c.rate, 887452);
	assert_int_equal(f.c.mhat, 1000000);
	assert_int_equal(f.c.last_origin, 8);
	assert_int_equal(f.c.last_t, f.t);
	assert_int_equal(f.c.state, HBH_CONTROLLED);
	/* the old origin's counters are now a new origin too */
	r = f.r;
	r.origin = 7;
	r.t_meas = f.t;		/* same time: not stale, another origin */
	assert_int_equal(hbh_ctl_report(&f.c, &f.p, &r, f.sent), HBH_UPD_BASELINE);
	assert_int_equal(f.c.rate, 887452);
	assert_int_equal(f.c.last_origin, 7);
	f.origin = 7;
	/* measured from the counters of the rebase: 2000 B in 4 ms; the EWMA
	 * continues: (410 * 500 000 + 614 * 1e6) / 1024 = 799 804 */
	assert_int_equal(feed(&f, 4 * MS, 2000, SP, 20000), HBH_UPD_LAW);
	assert_int_equal(f.c.mhat, 799804);

	/*
	 * Departures going backwards (D's flow entry made again, 4000 B
	 * behind U's count: sent - arrived = 24 000 still looks plausible)
	 */
	feed(&f, 4 * MS, 4000, SP, 20000);
	before = f.c;
	f.dep -= 4000;
	f.shift += 4000;
	assert_int_equal(feed(&f, 4 * MS, 0, SP, 20000), HBH_UPD_BASELINE);
	assert_int_equal(f.c.rate, before.rate);
	assert_int_equal(f.c.mhat, before.mhat);
	assert_int_equal(f.c.last_dep, f.dep);
	assert_int_equal(f.c.offset, 0);

	/* a gap of exactly 10 s is still measured: 10 000 000 B in 10 s */
	assert_int_equal(feed(&f, 10 * SEC, 10000000, SP, 20000), HBH_UPD_LAW);
	assert_int_equal(f.c.mhat, (410 * 1000000ULL + 614 * before.mhat) / 1024);
	assert_int_equal(f.c.xhat, SP + 24000 - f.c.mhat / 50);
	/* one nanosecond more is not */
	before = f.c;
	assert_int_equal(feed(&f, 10 * SEC + 1, 999999999, SP + 99999, 0),
			 HBH_UPD_BASELINE);
	assert_int_equal(f.c.rate, before.rate);
	assert_int_equal(f.c.mhat, before.mhat);
	assert_int_equal(f.c.last_t, f.t);
	/*
	 * A report from far in the future is a gap too; after it the true
	 * ones are stale until D's origin changes or the flow expires
	 * (sch_hbh expires a controlled flow that had no report accepted for
	 * max(50 T, 4 H)).
	 */
	assert_int_equal(feed(&f, 1ULL << 62, 4000, SP, 20000), HBH_UPD_BASELINE);
	f.t -= (1ULL << 62) - 4 * MS;
	before = f.c;
	assert_int_equal(feed(&f, 0, 4000, SP, 20000), HBH_UPD_STALE);
	assert_ctl_equal(&f.c, &before);

	/* expiry: uncontrolled at C again, the next report a baseline */
	hbh_ctl_expire(&f.c, &f.p);
	assert_int_equal(f.c.state, HBH_UNCONTROLLED);
	assert_int_equal(f.c.rate, C10);
	assert_int_equal(feed(&f, 0, 0, SP, 20000), HBH_UPD_BASELINE);
	assert_int_equal(f.c.state, HBH_BASELINE);
}

/*
 * 6. Counters restarted at one end.  The true in-flight is F = 20 000 B at
 * m = 1e6 B/s throughout.
 *
 * D restarts (arrived and departed from 0, U's counters now K = 10 MB
 * ahead of D's): departed goes backwards, sent - arrived = F + K is far
 * above C * H = 25 000, so the offset takes sent - arrived less half a loop
 * at the current rate: F + K - 1e6 * 0.02 / 2 = F + K - 10 000.  Afterwards
 * the in-flight is read as F - F + 10 000 = 10 000, x^ = q + 10 000 -
 * 20 000.  Without the offset x^ would be ~10 MB and the flow would sit at
 * rate_min for good.
 */
static void test_counter_offset(void **state)
{
	const u64 K = 10000000;
	struct feed f;
	int i;

	(void)state;
	feed_init(&f, &p10);
	feed(&f, 0, 0, SP, 20000);
	for (i = 0; i < 3; i++)
		feed(&f, 4 * MS, 4000, SP, 20000);
	assert_int_equal(f.c.rate, 1000000);
	assert_true(f.dep < K);

	/* D from scratch: its counters are K behind U's */
	f.shift = K;
	f.dep = 0;
	assert_int_equal(feed(&f, 4 * MS, 4000, SP, 20000), HBH_UPD_BASELINE);
	assert_int_equal(f.sent - f.r.arrived, 20000 + K);
	assert_int_equal(f.c.offset, 20000 + K - 10000);
	assert_int_equal(f.c.rate, 1000000);

	/* at the true setpoint: x^ = 25 000 + 10 000 - 20 000 = 15 000,
	 * lambda = 1e6 + floor(10 000 * 22.509765625) = 1 225 097 */
	for (i = 0; i < 10; i++) {
		assert_int_equal(feed(&f, 4 * MS, 4000, SP, 20000), HBH_UPD_LAW);
		assert_int_equal(f.c.xhat, 15000);
		assert_int_equal(f.c.rate, 1225097);
	}
	/* the loop settles where x^ = x*: q = 35 000, and lambda = m */
	for (i = 0; i < 10; i++) {
		assert_int_equal(feed(&f, 4 * MS, 4000, SP + 10000, 20000),
				 HBH_UPD_LAW);
		assert_int_equal(f.c.xhat, SP);
		assert_int_equal(f.c.rate, 1000000);
	}
	/* and a change of the in-flight is still seen, byte for byte */
	feed(&f, 4 * MS, 4000, SP + 10000, 25000);
	assert_int_equal(f.c.xhat, SP + 5000);
	assert_int_equal(f.c.rate, 887452);

	/*
	 * U restarts (its flow entry was collected): uncontrolled at C, sent
	 * from 0 while D has counted 5 MB.  sent - arrived = F - 5e6, so the
	 * offset is F - 5e6 - C * H / 2 = 20 000 - 5e6 - 12 500; later the
	 * in-flight reads 12 500, x^ = 25 000 + 12 500 - 20 000 = 17 500 and
	 * lambda = 1e6 + floor(7500 * 22.509765625) = 1 168 823.  Without the
	 * offset x^ would be -5 MB: lambda pinned at C.
	 */
	feed_init(&f, &p10);
	f.dep = 5000000 - SP;
	f.shift = -5000000ULL;
	f.t = 100 * SEC;
	assert_int_equal(feed(&f, 0, 0, SP, 20000), HBH_UPD_BASELINE);
	assert_int_equal(f.sent, 20000);
	assert_int_equal(f.c.offset, 20000 - 5000000 - 12500);
	assert_int_equal(feed(&f, 4 * MS, 4000, SP, 20000), HBH_UPD_LAW);
	assert_int_equal(f.c.mhat, 1000000);
	assert_int_equal(f.c.xhat, 17500);
	assert_int_equal(f.c.rate, 1168823);
	feed(&f, 4 * MS, 4000, SP + 7500, 20000);
	assert_int_equal(f.c.rate, 1000000);

	/* counters so far apart that sent - arrived saturates at 2^40: the
	 * in-flight reads a constant C * H / 2, the rate is still the law's */
	feed_init(&f, &p10);
	f.shift = 1ULL << 62;
	feed(&f, 0, 0, SP, 20000);
	assert_int_equal(f.c.offset, HBH_INFLIGHT_MAX - 12500);
	feed(&f, 4 * MS, 4000, SP, 20000);
	assert_int_equal(f.c.xhat, SP + 12500 - 20000);
	assert_int_equal(f.c.rate, 1000000 + corr10(7500));

	/* the bounds of the plausible range: 0 and C * H */
	feed_init(&f, &p10);
	feed(&f, 0, 0, SP, 0);
	assert_int_equal(f.c.offset, 0);
	feed_init(&f, &p10);
	feed(&f, 0, 0, SP, 25000);
	assert_int_equal(f.c.offset, 0);
	feed_init(&f, &p10);
	feed(&f, 0, 0, SP, -1);
	assert_int_equal(f.c.offset, -1 - 12500);
}

/* ---- 7. overflow and robustness ---- */

static u64 rnd_state;

static u64 rnd(void)
{
	u64 x = rnd_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rnd_state = x;
}

/* spread over all magnitudes */
static u64 rnd_log(void)
{
	return rnd() >> (rnd() % 64);
}

#define PICK(a)	((a)[rnd() % (sizeof(a) / sizeof((a)[0]))])

static u64 clamp_ref(__int128 v, const struct hbh_params *p)
{
	if (v < (__int128)p->rate_min)
		return p->rate_min;
	if (v > (__int128)p->rate)
		return p->rate;
	return (u64)v;
}

static s64 clamp40(__int128 v)
{
	if (v > HBH_INFLIGHT_MAX)
		return HBH_INFLIGHT_MAX;
	if (v < -HBH_INFLIGHT_MAX)
		return -HBH_INFLIGHT_MAX;
	return (s64)v;
}

/*
 * a * 1e9 / b in 128 bits, saturating at HBH_M_MAX: [*lo, *hi].  The core
 * compares with a floored threshold, so near saturation it may say M_MAX a
 * little early: by at most 1e9 / b + 1.
 */
static void ratio_ref(u64 a, u64 b, u64 *lo, u64 *hi)
{
	unsigned __int128 e = (unsigned __int128)a * NSEC_PER_SEC / b;

	if (e >= HBH_M_MAX) {
		*lo = *hi = HBH_M_MAX;
		return;
	}
	*lo = (u64)e;
	*hi = e + NSEC_PER_SEC / b + 1 >= HBH_M_MAX ? HBH_M_MAX : (u64)e;
}

/*
 * The largest sent - arrived hbh_rebase() takes for a true in-flight count
 * (no offset): one loop at the link rate.  Keep in step with the header.
 */
static __int128 plausible_max(const struct hbh_params *p)
{
	return 2 * ((unsigned __int128)p->rate * p->horizon / NSEC_PER_SEC) +
	       HBH_PIPE_SLOP;
}

struct fuzz_stats {
	u64 n[4];
};

/*
 * One report against a 128-bit reading of the header's formulas, and the
 * invariants: lambda in [rate_min, C], m^ <= HBH_M_MAX.
 */
static void check_report(struct hbh_ctl *c, const struct hbh_params *p,
			 const struct hbh_report *r, u64 sent,
			 struct fuzz_stats *st)
{
	struct hbh_ctl o = *c;
	enum hbh_update u;
	bool stale, rebase;

	stale = o.state != HBH_UNCONTROLLED && r->origin == o.last_origin &&
		r->t_meas <= o.last_t;
	rebase = !stale && (o.state == HBH_UNCONTROLLED ||
			    r->origin != o.last_origin ||
			    r->departed < o.last_dep ||
			    r->t_meas - o.last_t > HBH_GAP_MAX);
	u = hbh_ctl_report(c, p, r, sent);
	st->n[u]++;
	assert_in_range(c->rate, p->rate_min, p->rate);
	assert_true(c->mhat <= HBH_M_MAX);

	if (stale) {
		assert_int_equal(u, HBH_UPD_STALE);
		assert_ctl_equal(c, &o);
		return;
	}
	if (rebase) {
		s64 raw = clamp40((s64)(sent - r->arrived));

		assert_int_equal(u, HBH_UPD_BASELINE);
		assert_int_equal(c->rate, o.rate);
		assert_int_equal(c->mhat, o.mhat);
		assert_int_equal(c->last_t, r->t_meas);
		assert_int_equal(c->last_dep, r->departed);
		assert_int_equal(c->last_origin, r->origin);
		assert_int_equal(c->state, o.state == HBH_UNCONTROLLED ?
					   HBH_BASELINE : o.state);
		if (raw >= 0 && raw <= plausible_max(p))
			assert_int_equal(c->offset, 0);
		else
			assert_int_equal(c->offset,
				(s64)((__int128)raw -
				      (__int128)((unsigned __int128)o.rate *
						 p->horizon / (2 * NSEC_PER_SEC))));
		return;
	}

	{
		u64 ddep = r->departed - o.last_dep, dt = r->t_meas - o.last_t;
		u64 m_lo, m_hi, mh_lo, mh_hi, c_lo, c_hi, err;
		__int128 xhat, num;

		assert_int_equal(c->state, HBH_CONTROLLED);
		assert_int_equal(c->last_t, r->t_meas);
		assert_int_equal(c->last_dep, r->departed);
		assert_int_equal(c->offset, o.offset);
		ratio_ref(ddep < HBH_DEP_STEP_MAX ? ddep : HBH_DEP_STEP_MAX, dt,
			  &m_lo, &m_hi);
		if (o.state == HBH_BASELINE) {
			mh_lo = m_lo;
			mh_hi = m_hi;
		} else {
			mh_lo = (p->alpha * (unsigned __int128)m_lo +
				 (HBH_SCALE - p->alpha) * (unsigned __int128)o.mhat) /
				HBH_SCALE;
			mh_hi = (p->alpha * (unsigned __int128)m_hi +
				 (HBH_SCALE - p->alpha) * (unsigned __int128)o.mhat) /
				HBH_SCALE;
		}
		assert_in_range(c->mhat, mh_lo, mh_hi);

		xhat = (__int128)r->q_bytes +
		       clamp40((__int128)clamp40((s64)(sent - r->arrived)) -
			       o.offset) -
		       (__int128)((unsigned __int128)c->mhat * p->horizon /
				  NSEC_PER_SEC);
		assert_true(xhat == c->xhat);

		if (!r->q_pkts) {
			assert_int_equal(u, HBH_UPD_RISE);
			assert_int_equal(c->rate,
				clamp_ref((__int128)o.rate + p->rise, p));
			return;
		}
		assert_int_equal(u, HBH_UPD_LAW);
		err = (u64)(xhat <= r->setpoint ? r->setpoint - xhat :
						  xhat - r->setpoint);
		num = (__int128)(err < (u64)HBH_INFLIGHT_MAX ?
				 err : (u64)HBH_INFLIGHT_MAX) * p->beta;
		ratio_ref((u64)num, (u64)HBH_SCALE * p->horizon, &c_lo, &c_hi);
		if (xhat <= r->setpoint)
			assert_in_range(c->rate,
					clamp_ref((__int128)c->mhat + c_lo, p),
					clamp_ref((__int128)c->mhat + c_hi, p));
		else
			assert_in_range(c->rate,
					clamp_ref((__int128)c->mhat - c_hi, p),
					clamp_ref((__int128)c->mhat - c_lo, p));
	}
}

static const u64 rates[] = { 1, 2, C10, 1250000000ULL, HBH_RATE_MAX };
static const u64 horizons[] = { 1, US, 20 * MS, HBH_HOPRTT_MAX };
static const u64 periods[] = { 1, US, 4 * MS, 10 * SEC };
static const u64 dep_steps[] = {
	0, 1, PKT, 1ULL << 40, (1ULL << 40) + 1, 1ULL << 63, U64_MAX,
};
static const u64 counters[] = { 0, 1, 1ULL << 63, U64_MAX - 1, U64_MAX };
static const u32 qbytes[] = { 0, 1, PKT, U32_MAX };

/*
 * Saturation and exact values at the extremes, then every combination of
 * rate, horizon, period, departure step, queue and counters.
 */
static void test_extremes(void **state)
{
	struct hbh_params p = p10;
	struct fuzz_stats st = { { 0 } };
	unsigned int a, b, d, e, g, h, i;

	(void)state;
	/* counter differences wrap mod 2^64 and saturate at 2^40 */
	assert_int_equal(hbh_counter_diff(0, U64_MAX), 1);
	assert_int_equal(hbh_counter_diff(U64_MAX, 0), -1);
	assert_int_equal(hbh_counter_diff(1ULL << 63, 0), -HBH_INFLIGHT_MAX);
	assert_int_equal(hbh_counter_diff(1ULL << 62, 0), HBH_INFLIGHT_MAX);
	assert_int_equal(hbh_counter_diff(0, 1ULL << 62), -HBH_INFLIGHT_MAX);
	assert_int_equal(hbh_counter_diff(1ULL << 40, 0), HBH_INFLIGHT_MAX);

	/* m: 2^41 B/s at most; 1 ns: 2198 B is 2.198e12 B/s, 2199 B saturate */
	assert_int_equal(hbh_rate_of(4000, 4 * MS), 1000000);
	assert_int_equal(hbh_rate_of(0, 1), 0);
	assert_int_equal(hbh_rate_of(2198, 1), 2198000000000ULL);
	assert_int_equal(hbh_rate_of(2199, 1), HBH_M_MAX);
	assert_int_equal(hbh_rate_of(U64_MAX, 1), HBH_M_MAX);
	assert_int_equal(hbh_rate_of(HBH_DEP_STEP_MAX, 10 * SEC),
			 HBH_DEP_STEP_MAX / 10);
	assert_int_equal(hbh_rate_of(1, 10 * SEC), 0);
	assert_int_equal(hbh_rate_of(U64_MAX, U64_MAX), HBH_M_MAX);

	/* correction: 2^40 B * 1 / (1024 * 4 s) = 2^28 B/s; 1 ns saturates */
	p.beta = 1;
	p.horizon = HBH_HOPRTT_MAX;
	assert_int_equal(hbh_correction(1ULL << 40, &p), 1ULL << 28);
	assert_int_equal(hbh_correction(U64_MAX, &p), 1ULL << 28);
	p.beta = HBH_SCALE;
	p.horizon = 1;
	assert_int_equal(hbh_correction(U64_MAX, &p), HBH_M_MAX);
	assert_int_equal(hbh_correction(2, &p), 2000000000ULL);
	assert_int_equal(hbh_correction(0, &p), 0);

	/* 10 Gbit/s, 1 ns apart, a departure jump of 2^63: m^ = 2^41, rate C */
	{
		struct feed f;

		feed_init(&f, &p10);
		f.p.rate = 1250000000ULL;
		f.p.rate_min = 1;
		hbh_ctl_init(&f.c, &f.p);
		feed(&f, 0, 0, SP, 0);
		assert_int_equal(feed(&f, 1, 1ULL << 63, 0, 0), HBH_UPD_RISE);
		assert_int_equal(f.c.mhat, HBH_M_MAX);
		assert_int_equal(f.c.rate, 1250000000ULL);
		/* U32_MAX queued over x* = 25 000 at m^ = 2^41: x^ < 0 */
		assert_int_equal(feed(&f, 1, 0, U32_MAX, 0), HBH_UPD_LAW);
		assert_int_equal(f.c.mhat, HBH_M_MAX - (410 * HBH_M_MAX) / 1024);
		assert_int_equal(f.c.rate, 1250000000ULL);
	}

	for (a = 0; a < sizeof(rates) / sizeof(rates[0]); a++)
	for (b = 0; b < sizeof(horizons) / sizeof(horizons[0]); b++)
	for (d = 0; d < sizeof(periods) / sizeof(periods[0]); d++)
	for (e = 0; e < sizeof(dep_steps) / sizeof(dep_steps[0]); e++)
	for (g = 0; g < sizeof(qbytes) / sizeof(qbytes[0]); g++) {
		struct hbh_ctl c;
		struct hbh_report r = { .setpoint = SP, .origin = 1 };

		p.rate = rates[a];
		p.rate_min = (p.rate + 1023) / 1024;
		p.rise = p.rate / 64;
		p.horizon = horizons[b];
		p.alpha = g & 1 ? HBH_SCALE : 1;
		p.beta = g & 2 ? HBH_SCALE : 1;
		hbh_ctl_init(&c, &p);
		for (h = 0; h < sizeof(counters) / sizeof(counters[0]); h++)
		for (i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
			r.t_meas += periods[d];
			r.departed += dep_steps[e];
			r.arrived = counters[h];
			r.q_bytes = qbytes[g];
			r.q_pkts = (h + i) % 3 ? qbytes[g] / PKT + 1 : 0;
			r.setpoint = (h + i) % 2 ? SP : U32_MAX;
			check_report(&c, &p, &r, counters[i], &st);
		}
	}
	/* every kind of result was exercised */
	assert_true(st.n[HBH_UPD_BASELINE] > 0);
	assert_true(st.n[HBH_UPD_RISE] > 0);
	assert_true(st.n[HBH_UPD_LAW] > 0);
}

static void fuzz_params(struct hbh_params *p)
{
	p->rate = rnd() % 4 ? 1 + rnd_log() % HBH_RATE_MAX : PICK(rates);
	p->rate_min = rnd() % 4 ? 1 + rnd_log() % p->rate :
				  (rnd() % 2 ? 1 : p->rate);
	p->rise = rnd() % 4 ? rnd_log() % (p->rate + 1) :
			      (rnd() % 2 ? 0 : p->rate);
	p->horizon = rnd() % 4 ? 1 + rnd_log() % HBH_HOPRTT_MAX :
				 PICK(horizons);
	p->alpha = rnd() % 4 ? 1 + rnd() % HBH_SCALE :
			       (rnd() % 2 ? 1 : HBH_SCALE);
	p->beta = rnd() % 4 ? 1 + rnd() % HBH_SCALE :
			      (rnd() % 2 ? 1 : HBH_SCALE);
}

/*
 * 200 000 reports of a random walk with random parameters in their
 * documented ranges (new parameters restart the flow, as a change of the
 * qdisc's rate does), each checked by check_report().
 */
static void test_fuzz(void **state)
{
	static const u64 steps[] = { 0, 1, US, 4 * MS, 10 * SEC, 10 * SEC + 1 };
	struct fuzz_stats st = { { 0 } };
	struct hbh_report r = { 0 };
	struct hbh_params p;
	struct hbh_ctl c;
	u64 sent = 0;
	int n;

	(void)state;
	rnd_state = 0x2545f4914f6cdd1dULL;
	fuzz_params(&p);
	hbh_ctl_init(&c, &p);
	for (n = 0; n < 200000; n++) {
		switch (rnd() % 2048) {
		case 0:
			fuzz_params(&p);
			/* fall through */
		case 1:
			hbh_ctl_init(&c, &p);
			break;
		}
		/* from the last accepted report: replays, gaps, wraps */
		switch (rnd() % 16) {
		case 0:
			r.t_meas = c.last_t - rnd_log();
			break;
		case 1:
			r.t_meas = rnd() % 2 ? rnd() : c.last_t;
			break;
		case 2:
		case 3:
			r.t_meas = c.last_t + rnd_log() % (1ULL << 35);
			break;
		default:
			r.t_meas = c.last_t + PICK(steps);
		}
		switch (rnd() % 8) {
		case 0:
			r.departed = rnd() % 2 ? rnd() : PICK(counters);
			break;
		case 1:
			r.departed += PICK(dep_steps);
			break;
		default:
			r.departed += rnd_log() % (1ULL << 42);
		}
		r.q_bytes = rnd() % 4 ? (u32)rnd_log() : (u32)PICK(qbytes);
		r.q_pkts = rnd() % 4 ? (u32)(r.q_bytes / PKT) : (u32)rnd_log();
		r.setpoint = rnd() % 4 ? (u32)rnd_log() :
					 (rnd() % 2 ? 0 : U32_MAX);
		switch (rnd() % 8) {
		case 0:
			r.arrived = PICK(counters);
			break;
		case 1:
			r.arrived = rnd();
			break;
		default:
			r.arrived = r.departed + r.q_bytes;
		}
		switch (rnd() % 8) {
		case 0:
			sent = PICK(counters);
			break;
		case 1:
			sent = rnd();
			break;
		default:
			sent = r.arrived + (rnd() % 2 ? rnd_log() % (1ULL << 42) :
					    -(rnd_log() % 100000));
		}
		if (!(rnd() % 64))
			r.origin = (u32)rnd() % 3;
		check_report(&c, &p, &r, sent, &st);
	}
	print_message("# fuzz: %llu stale, %llu baseline, %llu rise, %llu law\n",
		      (unsigned long long)st.n[HBH_UPD_STALE],
		      (unsigned long long)st.n[HBH_UPD_BASELINE],
		      (unsigned long long)st.n[HBH_UPD_RISE],
		      (unsigned long long)st.n[HBH_UPD_LAW]);
	assert_true(st.n[HBH_UPD_STALE] > 1000);
	assert_true(st.n[HBH_UPD_BASELINE] > 1000);
	assert_true(st.n[HBH_UPD_RISE] > 1000);
	assert_true(st.n[HBH_UPD_LAW] > 10000);
}

/* ---- 8. setpoint and helpers ---- */

static void test_setpoint(void **state)
{
	u64 a;
	int i;

	(void)state;
	/* static: packets times the mean size, at least one mean packet */
	assert_int_equal(hbh_setpoint(50, 500, 0, 100, C10), 25000);
	assert_int_equal(hbh_setpoint(50, 500, 12345678, 100, C10), 25000);
	assert_int_equal(hbh_setpoint(1, 1, 0, 100, C10), 1);
	assert_int_equal(hbh_setpoint(HBH_LIMIT_MAX, 65535, 0, 100, C10),
			 U32_MAX);
	assert_int_equal(hbh_setpoint(U32_MAX, U32_MAX, 0, 0, 1), U32_MAX);

	/* dynamic: (dep_rate / rate) * limit * avg_len */
	assert_int_equal(hbh_setpoint(0, 500, C10 / 2, 100, C10), 25000);
	assert_int_equal(hbh_setpoint(0, 1000, 400000, 10, 1000000), 4000);
	/* 0.3 * 100 * 1442 = 43 260; 333 333 / 1e6 * 3000 = 999.999 -> 999 */
	assert_int_equal(hbh_setpoint(0, 1442, 300000, 100, 1000000), 43260);
	assert_int_equal(hbh_setpoint(0, 1, 333333, 3000, 1000000), 999);
	/* at least one mean packet: idle flow, tiny share */
	assert_int_equal(hbh_setpoint(0, 500, 0, 100, C10), 500);
	assert_int_equal(hbh_setpoint(0, 1500, 1, 1000, C10), 1500);
	assert_int_equal(hbh_setpoint(0, 1000, 333333, 3, 1000000), 1000);
	/* a departure rate above the link's counts as the link's */
	assert_int_equal(hbh_setpoint(0, 500, 2 * C10, 100, C10), 50000);
	assert_int_equal(hbh_setpoint(0, 500, U64_MAX, 100, C10), 50000);
	/* extremes: limit * avg_len above 2^32 */
	assert_int_equal(hbh_setpoint(0, U32_MAX, HBH_RATE_MAX, HBH_LIMIT_MAX,
				      HBH_RATE_MAX), U32_MAX);
	assert_int_equal(hbh_setpoint(0, 65535, 1, HBH_LIMIT_MAX,
				      HBH_RATE_MAX), 65535);

	/* transmission times */
	assert_int_equal(hbh_len_ns(1500, C10), 1200000);
	assert_int_equal(hbh_len_ns(500, C10), 400 * US);
	assert_int_equal(hbh_len_ns(500, 5 * C10), 80 * US);
	assert_int_equal(hbh_len_ns(1, HBH_RATE_MAX), 0);
	assert_int_equal(hbh_len_ns(U32_MAX, 1), U32_MAX * SEC);
	assert_int_equal(hbh_len_ns(1500, 1220), 1229508196);
	/* ... and through the reciprocal: never above, at most 1 ns below */
	{
		static const u64 rates[] = { 1, 3, 1220, C10, 1250000000ULL,
					     12345678901ULL, HBH_RATE_MAX };
		static const u32 lens[] = { 1, 60, 1499, 1500, 65535, 1 << 20,
					    U32_MAX };
		unsigned int i, j;

		for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
			for (j = 0; j < sizeof(lens) / sizeof(lens[0]); j++) {
				u64 x = hbh_len_ns(lens[j], rates[i]);
				u64 y = hbh_len_ns_recip(lens[j],
						hbh_ns_recip(rates[i]));

				assert_true(y <= x && x - y <= 1);
			}
	}

	/* EWMA 1/8 */
	assert_int_equal(hbh_ewma8(800, 1600), 900);
	assert_int_equal(hbh_ewma8(1600, 800), 1500);
	assert_int_equal(hbh_ewma8(0, 8), 1);
	assert_int_equal(hbh_ewma8(0, 7), 0);
	assert_int_equal(hbh_ewma8(7, 0), 7);
	assert_int_equal(hbh_ewma8(U64_MAX, U64_MAX), U64_MAX);
	assert_int_equal(hbh_ewma8(U64_MAX, 0), U64_MAX - (U64_MAX >> 3));
	/* from 0 towards 1000: 125, 235, 331, ..., 999 (40th), 1000 (41st) */
	for (a = 0, i = 0; i < 40; i++)
		a = hbh_ewma8(a, 1000);
	assert_int_equal(a, 999);
	a = hbh_ewma8(a, 1000);
	assert_int_equal(a, 1000);
	assert_int_equal(hbh_ewma8(a, 1000), 1000);
}

/*
 * The offset cliff (fixed): hbh_rebase() takes sent - arrived as a true
 * in-flight count up to p->rate * H.  A flow still uncontrolled sends at
 * exactly p->rate, so at its first report sent - arrived is about
 * rate * (the real loop delay), a little more than rate * H as soon as
 * the loop is a little longer than hoprtt.  One byte over C * H must not
 * move the operating point (it once set an offset of C * H / 2 = 12 500 B
 * here); hbh_loop_test.c has the same in a closed loop.
 */
static void test_offset_cliff(void **state)
{
	struct feed f;

	(void)state;
	feed_init(&f, &p10);
	feed(&f, 0, 0, SP, 25001);
	print_message("# offset cliff: sent - arrived = C H + 1 -> offset %lld\n",
		      (long long)f.c.offset);
	assert_true(f.c.offset >= -(s64)PKT && f.c.offset <= (s64)PKT);
}

/*
 * A received entry sits where the frame put it: 2-byte aligned after an
 * Ethernet header.  hbh_entry_ok() must read it with unaligned accesses
 * (UBSan's alignment check fails the test otherwise).
 */
static void test_entry_ok_unaligned(void **state)
{
	union {
		u64 align;
		unsigned char b[2 + sizeof(struct hbh_fb_entry) + 8];
	} buf;
	struct hbh_fb_entry ok = { .key.family = HBH_FB_FAMILY_IPV4 };
	const struct hbh_fb_entry *e = (const void *)(buf.b + 2);
	unsigned int off;

	(void)state;
	ok.key.saddr[0] = htonl(0x0a000001);
	ok.key.daddr[0] = htonl(0x0a030002);
	ok.setpoint = htonl(30000);
	for (off = 1; off <= 2; off++) {
		e = (const void *)(buf.b + off);
		memcpy(buf.b + off, &ok, sizeof(ok));
		assert_true(hbh_entry_ok(e));
		buf.b[off + offsetof(struct hbh_fb_entry, key.saddr) + 7] = 1;
		assert_false(hbh_entry_ok(e));	/* IPv4 padding not zero */
		memcpy(buf.b + off, &ok, sizeof(ok));
		buf.b[off + offsetof(struct hbh_fb_entry, key.zero)] = 1;
		assert_false(hbh_entry_ok(e));
		memcpy(buf.b + off, &ok, sizeof(ok));
		memset(buf.b + off + offsetof(struct hbh_fb_entry, setpoint), 0, 4);
		assert_false(hbh_entry_ok(e));
		memcpy(buf.b + off, &ok, sizeof(ok));
		buf.b[off + offsetof(struct hbh_fb_entry, key.family)] = 9;
		assert_false(hbh_entry_ok(e));
	}
}

/*
 * The report budget: over any run, the entries a flow is reported in cost
 * at most what it carried (1/16 of it on the wire) plus the floor of one
 * entry per period shared by all flows.  The amplification pattern
 * (1000 flows, one 106-byte packet each per 100 ms, 25 periods of 4 ms)
 * gets 25 floor entries and nothing from credit; a 10 Mbit/s flow (5000
 * bytes per period) is reported every period.
 */
static void test_report_budget(void **state)
{
	static u32 credit[1000];
	unsigned int per, i, sent = 0, fast = 0;
	u32 fcredit = 0;

	(void)state;
	assert_int_equal(HBH_FB_WIRE_MAX, 110);
	for (per = 0; per < 25; per++) {
		u32 floor = 1;

		if (per == 0)
			for (i = 0; i < 1000; i++)
				credit[i] = hbh_credit_add(credit[i], 106);
		for (i = 0; i < 1000; i++)
			sent += hbh_credit_take(&credit[i], &floor);
	}
	assert_int_equal(sent, 25);
	assert_true(sent * HBH_FB_WIRE_MAX <=
		    1000 * 106 / 16 + 25 * HBH_FB_WIRE_MAX);

	for (per = 0; per < 1000; per++) {
		u32 floor = 0;

		fcredit = hbh_credit_add(fcredit, 5000);
		fast += hbh_credit_take(&fcredit, &floor);
	}
	assert_int_equal(fast, 1000);
	assert_true(fcredit <= HBH_FB_CREDIT_MAX);
	/* a flow that carried nothing is never reported from credit */
	fcredit = 0;
	{
		u32 floor = 0;

		assert_false(hbh_credit_take(&fcredit, &floor));
	}
}

/*
 * The departure rate divides by the real interval since the flow's last
 * measurement: a flow at 1 MB/s measured after three periods of 4 ms
 * (timer late, or skipped) reads 1 MB/s, not the 3 MB/s of dividing the
 * 12 000 bytes by one period.
 */
static void test_dep_rate_interval(void **state)
{
	u64 r = 1000000, i;

	(void)state;
	for (i = 0; i < 100; i++)
		r = hbh_dep_rate(r, 12000, 12 * MS);
	assert_true(r >= 999000 && r <= 1001000);
	assert_int_equal(hbh_dep_rate(r, 5000, 0), r);
	/* the old figure: 12 000 bytes over one 4 ms period */
	assert_int_equal(hbh_rate_of(12000, 4 * MS), 3000000);
}

/* ---- the shaper's send clock ---- */

#define LEN10	1211200ULL	/* ns of a 1514-byte frame at 10 Mbit/s */
#define SLACK10	(10 * MS)	/* the link's slack: two 5 ms periods */

/*
 * A backlogged link: it sends while its clock is not ahead of now, then
 * sleeps until the clock and wakes late[i] after it (the next lateness of
 * the cycle).  Returns the frames sent in @dur; the most sent at one
 * wake-up into @burst, and what a clock with @slack of credit must lose at
 * most, sum(max(0, late - slack)), into @excess.
 */
static u64 link_run(u64 dur, u64 slack, const u64 *late, unsigned int n,
		    unsigned int *burst, u64 *excess)
{
	u64 clock = 0, now = 0, sent = 0;
	unsigned int i = 0, b;

	*burst = 0;
	*excess = 0;
	while (now < dur) {
		for (b = 0; clock <= now; b++)
			clock = hbh_advance(clock, now, LEN10, slack);
		sent += b;
		if (b > *burst)
			*burst = b;
		now = clock + late[i % n];
		if (late[i % n] > slack)
			*excess += late[i % n] - slack;
		i++;
	}
	return sent;
}

/*
 * Timer latency costs the link no more than the latency beyond its slack:
 * a wake-up L late sends min(L, slack) of credit back to back, whatever L
 * (a token bucket of depth slack), so a backlogged link keeps its rate
 * through late timers and the burst seen by the next hop stays bounded.
 * Before, a wake-up more than slack late lost all of its credit: on TCG
 * (timers 10-30 ms late now and then) a backlogged 10 Mbit/s hbh link
 * carried 0.90 of its rate with 45 packets queued.
 */
static void test_link_clock(void **state)
{
	static const u64 small[] = { 0, 1 * MS, 3 * MS, 9 * MS, 2 * MS };
	static const u64 spikes[] = { 1 * MS, 1 * MS, 1 * MS, 25 * MS };
	static const u64 always[] = { 12 * MS };
	const u64 dur = 10 * SEC, cap = dur / LEN10;
	unsigned int burst, prev = 0;
	u64 sent, excess, late;

	(void)state;
	/* within the slack: every frame of the link's rate */
	sent = link_run(dur, SLACK10, small, ARRAY_SIZE(small), &burst,
			&excess);
	assert_int_equal(excess, 0);
	assert_true(sent >= cap && sent <= cap + 1);

	/* beyond it: only the excess is lost */
	sent = link_run(dur, SLACK10, spikes, ARRAY_SIZE(spikes), &burst,
			&excess);
	print_message("# link clock, 25 ms spikes: %llu of %llu frames, excess %llu ms\n",
		      (unsigned long long)sent, (unsigned long long)cap,
		      (unsigned long long)(excess / MS));
	assert_true(sent * LEN10 + excess + LEN10 >= dur);
	sent = link_run(dur, SLACK10, always, ARRAY_SIZE(always), &burst,
			&excess);
	print_message("# link clock, always 12 ms late: %llu of %llu frames\n",
		      (unsigned long long)sent, (unsigned long long)cap);
	assert_true(sent * LEN10 + excess + LEN10 >= dur);

	/*
	 * One wake-up L late: the credit grows with L up to the slack and
	 * stays there; never more than slack / len + 1 frames back to back.
	 */
	for (late = 0; late <= 1000 * MS; late += late < 30 * MS ? 100 * US :
							    7 * MS) {
		u64 clock = SEC, now = SEC + late;
		unsigned int b;

		for (b = 0; clock <= now; b++)
			clock = hbh_advance(clock, now, LEN10, SLACK10);
		assert_true(b >= prev);
		assert_true(b <= SLACK10 / LEN10 + 1);
		prev = b;
	}
	assert_int_equal(prev, SLACK10 / LEN10 + 1);

	/* a clock ahead of now only moves on; a frame longer than the slack */
	assert_int_equal(hbh_advance(2 * SEC, SEC, LEN10, SLACK10),
			 2 * SEC + LEN10);
	assert_int_equal(hbh_advance(SEC, SEC + 50 * MS, 100 * MS, SLACK10),
			 SEC + 100 * MS);
}

/* ---- report frames: which entries go in which frame ---- */

static struct hbh_fb_entry fb_e[HBH_FB_MAX];
static struct hbh_fb_dest fb_d[HBH_FB_MAX];
static u16 fb_o[HBH_FB_MAX];

/* the MTUs of the cases, one entry's frame at 96 */
static void test_fb_per_frame(void **state)
{
	(void)state;
	assert_int_equal(HBH_FB_LEN(1), 96);
	assert_int_equal(hbh_fb_per_frame(0), 0);
	assert_int_equal(hbh_fb_per_frame(68), 0);
	assert_int_equal(hbh_fb_per_frame(95), 0);
	assert_int_equal(hbh_fb_per_frame(96), 1);
	assert_int_equal(hbh_fb_per_frame(167), 1);
	assert_int_equal(hbh_fb_per_frame(168), 2);
	assert_int_equal(hbh_fb_per_frame(1500), 20);
	assert_int_equal(hbh_fb_per_frame(9000), 124);
	assert_int_equal(hbh_fb_per_frame(65535), HBH_FB_FRAME_MAX);
	assert_int_equal(hbh_fb_per_frame(U32_MAX), HBH_FB_FRAME_MAX);
	/* keyed: a 24-byte trailer more */
	assert_int_equal(sizeof(struct hbh_fb_auth), 24);
	assert_int_equal(hbh_fb_per_frame_keyed(0), 0);
	assert_int_equal(hbh_fb_per_frame_keyed(23), 0);
	assert_int_equal(hbh_fb_per_frame_keyed(119), 0);
	assert_int_equal(hbh_fb_per_frame_keyed(120), 1);
	assert_int_equal(hbh_fb_per_frame_keyed(1500), 20);
	assert_int_equal(hbh_fb_per_frame_keyed(U32_MAX), HBH_FB_FRAME_MAX);
}

/*
 * time of day of the replay tests, seconds; B: a counter of that second;
 * BOOT: the boot-time clock then (the table is created at BOOT)
 */
#define RT_SEC	1800000000ULL
#define B	hbh_replay_ctr(RT_SEC)
#define BOOT	1000ULL
/* accept @c from @node at time of day RT_SEC + @dt, created @dt s ago */
#define ACC(t, node, c, dt) \
	hbh_replay_accept(t, node, c, 1000 + (dt), RT_SEC + (dt), BOOT + (dt))

/* one sender: each counter acts once, and only within the window */
static void test_replay_window(void **state)
{
	struct hbh_replay_table t;
	u64 c;

	(void)state;
	hbh_replay_init(&t, BOOT);
	assert_true(ACC(&t, 7, B + 1000, 0));
	assert_false(ACC(&t, 7, B + 1000, 0));	/* again */
	assert_true(ACC(&t, 7, B + 1001, 0));
	assert_true(ACC(&t, 7, B + 1010, 0));	/* a gap: lost frames */
	assert_true(ACC(&t, 7, B + 1005, 0));	/* late, in the window */
	assert_false(ACC(&t, 7, B + 1005, 0));
	assert_false(ACC(&t, 7, B + 1001, 0));
	/* the window's edge: top - 63 is in, top - 64 out */
	assert_true(ACC(&t, 7, B + 1010 - 63, 0));
	assert_false(ACC(&t, 7, B + 1010 - 64, 0));
	assert_false(ACC(&t, 7, 0, 0));
	/* a jump beyond the window forgets what was below it */
	assert_true(ACC(&t, 7, B + 5000, 0));
	assert_false(ACC(&t, 7, B + 1010, 0));
	assert_true(ACC(&t, 7, B + 4999, 0));
	/* a frame recorded a second (250 periods) earlier never acts */
	for (c = B + 5001; c < B + 5251; c++)
		assert_true(ACC(&t, 7, c, 1));
	for (c = B + 5000; c < B + 5251; c++)
		assert_false(ACC(&t, 7, c, 2));
	assert_true(ACC(&t, 7, U64_MAX, 3));
	assert_false(ACC(&t, 7, U64_MAX, 3));
}

/*
 * senders: a restarted sender (new node) starts afresh; the oldest goes,
 * and its counters so far stay replays
 */
static void test_replay_peers(void **state)
{
	struct hbh_replay_table t;
	u32 n;

	(void)state;
	hbh_replay_init(&t, BOOT);
	for (n = 1; n <= HBH_REPLAY_PEERS; n++)
		assert_true(hbh_replay_accept(&t, n, B + 100, n, RT_SEC, BOOT));
	for (n = 1; n <= HBH_REPLAY_PEERS; n++)
		assert_false(hbh_replay_accept(&t, n, B + 100, 20, RT_SEC,
					       BOOT));
	/* node 1 heard from again, then a ninth sender: node 2 goes */
	assert_true(hbh_replay_accept(&t, 1, B + 101, 30, RT_SEC, BOOT));
	assert_true(hbh_replay_accept(&t, 99, B + 1, 31, RT_SEC + 5,
				      BOOT + 5));
	assert_false(hbh_replay_accept(&t, 1, B + 101, 32, RT_SEC + 5,
				       BOOT + 5));
	for (n = 3; n <= HBH_REPLAY_PEERS; n++)
		assert_false(hbh_replay_accept(&t, n, B + 100, 33, RT_SEC + 5,
					       BOOT + 5));
	/* forgotten 5 s on: node 2's old frames stay replays, new ones act */
	assert_int_equal(t.floor, B + 100);
	assert_false(hbh_replay_accept(&t, 2, B + 100, 34, RT_SEC + 5,
				       BOOT + 5));
	assert_false(hbh_replay_accept(&t, 2, B + 37, 34, RT_SEC + 5,
				       BOOT + 5));
	assert_true(hbh_replay_accept(&t, 2, B + 102, 35, RT_SEC + 5,
				      BOOT + 5));
}

/*
 * The floor for senders a receiver does not know: its creation's time of
 * day (as the clock reads now) less the slack; a forgotten sender's top,
 * at most now less the slack; a key change's time less the slack
 */
static void test_replay_floor(void **state)
{
	const u64 slack = HBH_REPLAY_SLACK_S;
	struct hbh_replay_table t;
	u32 n;

	(void)state;
	hbh_replay_init(&t, BOOT);
	assert_int_equal(hbh_replay_floor(&t, RT_SEC, BOOT),
			 hbh_replay_ctr(RT_SEC - slack));
	/* recorded before the receiver was created, beyond the slack */
	assert_false(ACC(&t, 1, hbh_replay_ctr(RT_SEC - slack), 0));
	assert_false(ACC(&t, 1, hbh_replay_ctr(RT_SEC - 60), 60));
	assert_false(ACC(&t, 1, 1, 0));
	/* a sender whose clock is behind by less than the slack */
	assert_true(ACC(&t, 1, hbh_replay_ctr(RT_SEC - slack) + 1, 0));
	/* behind by more: refused until its clock passes the floor */
	assert_false(ACC(&t, 2, hbh_replay_ctr(RT_SEC - 10), 0));
	assert_true(ACC(&t, 2, hbh_replay_ctr(RT_SEC - slack + 1), 9));
	/*
	 * The time of day set after creation (created "in 1970": the boot
	 * clock says 100 s ago): the floor follows, 100 s before now
	 */
	hbh_replay_init(&t, BOOT);
	assert_int_equal(hbh_replay_floor(&t, 50, BOOT),
			 hbh_replay_ctr(50 - slack));
	assert_int_equal(hbh_replay_floor(&t, RT_SEC, BOOT + 100),
			 hbh_replay_ctr(RT_SEC - 100 - slack));
	assert_false(hbh_replay_accept(&t, 1, hbh_replay_ctr(RT_SEC - 200), 1,
				       RT_SEC, BOOT + 100));
	/* stepped back an hour: new senders are not refused for an hour */
	assert_true(hbh_replay_accept(&t, 2, hbh_replay_ctr(RT_SEC - 3600), 1,
				      RT_SEC - 3600, BOOT + 110));
	/* a sender far ahead, forgotten: the floor stays below now */
	hbh_replay_init(&t, BOOT);
	assert_true(ACC(&t, 3, hbh_replay_ctr(RT_SEC + 3600), 0));
	for (n = 10; n < 10 + HBH_REPLAY_PEERS; n++)
		assert_true(ACC(&t, n, hbh_replay_ctr(RT_SEC) + n, 0));
	assert_int_equal(t.floor, hbh_replay_ctr(RT_SEC - slack));
	assert_true(ACC(&t, 30, hbh_replay_ctr(RT_SEC - 1), 0));
	/* a key change: every sender forgotten, older frames refused */
	hbh_replay_init(&t, BOOT);
	assert_true(ACC(&t, 4, U64_MAX - 1, 0));	/* a poisoned entry */
	assert_false(ACC(&t, 4, B + 5, 0));
	hbh_replay_rekey(&t, RT_SEC + 10);
	assert_true(ACC(&t, 4, hbh_replay_ctr(RT_SEC + 10), 10));
	assert_false(ACC(&t, 5, hbh_replay_ctr(RT_SEC + 10 - slack), 10));
	/* created at an early time of day: a floor of 0, not a wrap */
	hbh_replay_init(&t, 0);
	assert_int_equal(hbh_replay_floor(&t, 1, 0), 0);
	assert_true(hbh_replay_accept(&t, 1, 1, 1, 1, 0));
}

/* a sender's counters: from the time of day, and always growing */
static void test_replay_next(void **state)
{
	u64 c;

	(void)state;
	c = hbh_replay_next(0, RT_SEC);
	assert_int_equal(c, B);
	c = hbh_replay_next(c, RT_SEC);
	assert_int_equal(c, B + 1);
	assert_int_equal(hbh_replay_next(c, RT_SEC + 1), B + (1ULL << 32));
	/* the clock stepped back: still one more */
	assert_int_equal(hbh_replay_next(c, RT_SEC - 100), B + 2);
	/* more than 2^32 frames in a second: into the next second's */
	assert_int_equal(hbh_replay_next(B + 0xffffffffULL, RT_SEC),
			 B + (1ULL << 32));
}

/*
 * @cnt entries on @nifs interfaces (2, 3, ...), for @nbrs neighbours in
 * turn, from @nsrc sources (10.0.x.y) in turn
 */
static void fb_fill(unsigned int cnt, unsigned int nifs, unsigned int nbrs,
		    unsigned int nsrc)
{
	unsigned int i;

	memset(fb_e, 0, sizeof(fb_e));
	memset(fb_d, 0, sizeof(fb_d));
	for (i = 0; i < cnt; i++) {
		u32 src = htonl(0x0a000000 + i % nsrc);

		fb_d[i].ifindex = 2 + (int)(i % nifs);
		fb_d[i].mac[0] = 0x02;
		fb_d[i].mac[4] = (i / nifs % nbrs) >> 8;
		fb_d[i].mac[5] = (i / nifs % nbrs) & 0xff;
		fb_e[i].key.family = HBH_FB_FAMILY_IPV4;
		memcpy(&fb_e[i].key.saddr[0], &src, 4);
		fb_e[i].key.sport = htons(i);
		fb_o[i] = i;
	}
}

static bool fb_same_dest(u16 a, u16 b)
{
	return fb_d[a].ifindex == fb_d[b].ifindex &&
	       !memcmp(fb_d[a].mac, fb_d[b].mac, HBH_FB_ALEN);
}

/*
 * The frames of @cnt entries at @mtu, as hbh_send_reports() cuts them:
 * every entry is in exactly one frame (or, where not even one entry fits,
 * in none), a frame holds entries of one neighbour only, fits the MTU and
 * holds at most HBH_FB_FRAME_MAX, and a neighbour's entries take
 * ceil(entries / per) frames, all full but the last.  Returns the frames.
 */
static unsigned int fb_check_frames(unsigned int cnt, unsigned int mtu,
				    unsigned int nbrs_total)
{
	static unsigned char seen[HBH_FB_MAX];
	unsigned int per = hbh_fb_per_frame(mtu), pos = 0, k, i, frames = 0;
	unsigned int skipped = 0, runs = 0, steps = 0;

	memset(seen, 0, sizeof(seen));
	hbh_fb_sort(fb_o, cnt, fb_e, fb_d, false);
	while ((k = hbh_fb_frame(fb_o, cnt, pos, per, fb_d))) {
		assert_true(++steps <= cnt);
		assert_true(pos + k <= cnt);
		if (!per) {
			skipped += k;
		} else {
			assert_true(k <= per);
			assert_true(k <= HBH_FB_FRAME_MAX);
			assert_true(HBH_FB_LEN(k) <= mtu);
			frames++;
		}
		if (!pos || !fb_same_dest(fb_o[pos - 1], fb_o[pos]))
			runs++;		/* a neighbour's first frame */
		for (i = 0; i < k; i++) {
			u16 x = fb_o[pos + i];

			assert_true(x < cnt);
			assert_false(seen[x]);
			seen[x] = 1;
			assert_true(fb_same_dest(fb_o[pos], x));
			/* in the order they were taken, within a neighbour */
			if (i)
				assert_true(fb_o[pos + i - 1] < x);
		}
		/* the next frame is another neighbour's unless this one was full */
		if (pos + k < cnt && fb_same_dest(fb_o[pos], fb_o[pos + k]))
			assert_int_equal(k, per);
		pos += k;
	}
	assert_int_equal(pos, cnt);
	assert_int_equal(runs, nbrs_total);
	if (!per)
		assert_int_equal(skipped, cnt);
	return frames;
}

/*
 * MTU 68 and 95 (no entry fits: nothing is sent, however many entries one
 * neighbour has), 96 (one per frame), 1500 and 9000, with 1..1024 entries
 * for one neighbour, for many, and over several interfaces.  Before the fix
 * the grouping of sch_hbh.c, with the MTU read as 1500 by the check and 68
 * or 95 by the split, wrote past its int idx[256] for the 257th entry of
 * one neighbour (/work/verify/i37-hbh/unit-old-grouping*.txt).
 */
static void test_fb_group(void **state)
{
	static const unsigned int mtus[] = { 68, 95, 96, 1500, 9000 };
	static const unsigned int cnts[] = { 1, 2, 255, 256, 257, 1000, 1024 };
	static const unsigned int nbrs[] = { 1, 2, 64, 1024 };
	unsigned int m, c, b, f;

	(void)state;
	for (m = 0; m < ARRAY_SIZE(mtus); m++)
		for (c = 0; c < ARRAY_SIZE(cnts); c++)
			for (b = 0; b < ARRAY_SIZE(nbrs); b++) {
				unsigned int cnt = cnts[c], nb = nbrs[b];
				unsigned int per = hbh_fb_per_frame(mtus[m]);
				unsigned int nbt = nb < cnt ? nb : cnt;

				/* one interface */
				fb_fill(cnt, 1, nb, 1);
				f = fb_check_frames(cnt, mtus[m], nbt);
				if (nb == 1)
					assert_int_equal(f, per ? (cnt + per - 1) / per : 0);
				/* three interfaces, the same MACs on each */
				fb_fill(cnt, 3, nb, 1);
				fb_check_frames(cnt, mtus[m], cnt < 3 * nb ? cnt : 3 * nb);
			}
	/* 1024 entries for one neighbour at 1500: 51 full frames and 4 */
	fb_fill(1024, 1, 1, 1);
	assert_int_equal(fb_check_frames(1024, 1500, 1), 52);
}

/*
 * Sorted by source: one run per interface and source address, each source
 * looked up once a period, whatever order the entries came in.
 */
static void test_fb_sources(void **state)
{
	static const unsigned int nsrcs[] = { 1, 7, 300, 1024 };
	unsigned int s, pos, k, runs;

	(void)state;
	for (s = 0; s < ARRAY_SIZE(nsrcs); s++) {
		fb_fill(1024, 2, 1, nsrcs[s]);
		hbh_fb_sort(fb_o, 1024, fb_e, fb_d, true);
		for (pos = 0, runs = 0; (k = hbh_fb_run(fb_o, 1024, pos, 1024,
							 fb_e, fb_d, true)); pos += k) {
			unsigned int i;

			runs++;
			for (i = 1; i < k; i++) {
				assert_int_equal(fb_d[fb_o[pos]].ifindex,
						 fb_d[fb_o[pos + i]].ifindex);
				assert_memory_equal(fb_e[fb_o[pos]].key.saddr,
						    fb_e[fb_o[pos + i]].key.saddr, 16);
			}
			if (pos)
				assert_true(hbh_fb_cmp(fb_e, fb_d, fb_o[pos - 1],
						       fb_o[pos], true) < 0);
		}
		assert_int_equal(pos, 1024);
		/*
		 * entry i: interface i % 2, source i % nsrc; an odd count of
		 * sources meets both interfaces, an even one only one
		 */
		assert_int_equal(runs, nsrcs[s] % 2 ? 2 * nsrcs[s] : nsrcs[s]);
	}
	/* a run is capped at @max */
	fb_fill(10, 1, 1, 1);
	hbh_fb_sort(fb_o, 10, fb_e, fb_d, true);
	assert_int_equal(hbh_fb_run(fb_o, 10, 0, 4, fb_e, fb_d, true), 4);
	assert_int_equal(hbh_fb_run(fb_o, 10, 8, 4, fb_e, fb_d, true), 2);
	assert_int_equal(hbh_fb_run(fb_o, 10, 10, 4, fb_e, fb_d, true), 0);
}

/* The defaults come from the uapi header, through hbh_params_init(). */
static void test_params_init(void **state)
{
	struct hbh_params p;

	(void)state;
	hbh_params_init(&p, C10, 20 * MS);
	assert_int_equal(p.rate, C10);
	assert_int_equal(p.horizon, 20 * MS);
	assert_int_equal(p.alpha, 410);		/* 0.4 */
	assert_int_equal(p.beta, 461);		/* 0.45 */
	assert_int_equal(p.rise, C10 / 64);
	assert_int_equal(p.rate_min, C10 / 1024);
	hbh_params_derive(&p, 7, 9);
	assert_int_equal(p.rise, 7);
	assert_int_equal(p.rate_min, 9);
	hbh_params_init(&p, 10, MS);		/* derived values stay >= 1 */
	assert_int_equal(p.rise, 1);
	assert_int_equal(p.rate_min, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_params_init),
		cmocka_unit_test(test_steady_state),
		cmocka_unit_test(test_first_reports),
		cmocka_unit_test(test_step_response),
		cmocka_unit_test(test_gradual_start),
		cmocka_unit_test(test_stale_and_rebase),
		cmocka_unit_test(test_counter_offset),
		cmocka_unit_test(test_extremes),
		cmocka_unit_test(test_fuzz),
		cmocka_unit_test(test_setpoint),
		cmocka_unit_test(test_offset_cliff),
		cmocka_unit_test(test_entry_ok_unaligned),
		cmocka_unit_test(test_report_budget),
		cmocka_unit_test(test_dep_rate_interval),
		cmocka_unit_test(test_link_clock),
		cmocka_unit_test(test_fb_per_frame),
		cmocka_unit_test(test_replay_window),
		cmocka_unit_test(test_replay_peers),
		cmocka_unit_test(test_replay_floor),
		cmocka_unit_test(test_replay_next),
		cmocka_unit_test(test_fb_group),
		cmocka_unit_test(test_fb_sources),
	};

	hbh_params_init(&p10, C10, 20 * MS);
	return cmocka_run_group_tests_name("hbh_core", tests, NULL, NULL);
}
