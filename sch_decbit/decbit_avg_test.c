// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the DECbit regeneration-cycle average (decbit_avg.h), with
 * cases computed by hand.  A small queue model drives the core exactly as
 * sch_decbit does: arrival() before a packet is queued, service() when the
 * head starts service at a fixed service time.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "decbit_avg.h"

#define MS	1000000ULL

struct model {
	struct decbit_avg a;
	struct decbit_params p;
	u32 qlen;
	u64 service;	/* per-packet service time, ns */
	u64 marks;
	u64 arrivals;
};

static void model_init(struct model *m, u64 service, u32 c, u32 h)
{
	decbit_avg_init(&m->a);
	m->p.threshold = c;
	m->p.hysteresis = h;
	m->qlen = 0;
	m->service = service;
	m->marks = 0;
	m->arrivals = 0;
}

/* Start every service that is due up to @now (the watchdog's work). */
static void model_run(struct model *m, u64 now)
{
	while (m->qlen && m->a.busy_until <= now) {
		u64 t = m->a.busy_until > m->a.last ? m->a.busy_until : m->a.last;

		decbit_avg_service(&m->a, t, m->qlen, t + m->service);
		m->qlen--;
	}
}

static bool model_arrive(struct model *m, u64 now)
{
	bool mark;

	model_run(m, now);
	mark = decbit_avg_arrival(&m->a, &m->p, now, m->qlen);
	m->qlen++;
	m->arrivals++;
	m->marks += mark;
	model_run(m, now);
	return mark;
}

static void test_mul_ge(void **state)
{
	(void)state;
	assert_true(decbit_mul_ge(0, 1000, 0, 1000));
	assert_true(decbit_mul_ge(1000, 1000, 1000, 1000));
	assert_false(decbit_mul_ge(999, 1000, 1000, 1000));
	/* 96-bit products: (2^64 - 1) * 1000 vs (2^64 - 1) * 999 */
	assert_true(decbit_mul_ge(U64_MAX, 1000, U64_MAX, 999));
	assert_false(decbit_mul_ge(U64_MAX, 999, U64_MAX, 1000));
	assert_false(decbit_mul_ge(U64_MAX - 1, 1000, U64_MAX, 1000));
	/* equal high parts, low parts decide */
	assert_true(decbit_mul_ge(1ULL << 40, 1000, (1ULL << 40) + 0, 1000));
	assert_false(decbit_mul_ge((1ULL << 40) - 1, 3, 1ULL << 40, 3));
}

/* D/D/1 at 50% load: every cycle is 1 ms busy with n = 1, 1 ms idle. */
static void test_dd1_below_saturation(void **state)
{
	struct model m;
	u64 t;

	(void)state;
	model_init(&m, 1 * MS, 1000, 0);
	for (t = 0; t < 100 * 2 * MS; t += 2 * MS)
		assert_false(model_arrive(&m, t));
	assert_int_equal(m.marks, 0);
	assert_int_equal(m.a.cycles, 99);
	/* At an arrival: the last cycle (area 1 ms, length 2 ms), nothing more. */
	assert_int_equal(decbit_avg_milli(&m.a, 198 * MS, m.qlen), 500);
	/* Mid-service of the current packet: (1 + 0.5) / (2 + 0.5) = 0.6 */
	assert_int_equal(decbit_avg_milli(&m.a, 198 * MS + MS / 2, 0), 600);
}

/* D/D/1 at 100% load: n = 1 all the time, avg = 1 >= C = 1: every packet. */
static void test_dd1_saturated(void **state)
{
	struct model m;
	u64 t;
	int i;

	(void)state;
	model_init(&m, 1 * MS, 1000, 0);
	assert_false(model_arrive(&m, 0));	/* no time has passed yet */
	for (i = 1, t = MS; i < 50; i++, t += MS)
		assert_true(model_arrive(&m, t));
	assert_int_equal(decbit_avg_milli(&m.a, t, m.qlen), 1000);

	/* A threshold of 1.001 packets is not reached. */
	model_init(&m, 1 * MS, 1001, 0);
	for (i = 0, t = 0; i < 50; i++, t += MS)
		assert_false(model_arrive(&m, t));
}

/*
 * A burst of 10 packets at t = 0 served 1 ms each, then silence: the busy
 * period has area 10 + 9 + ... + 1 = 55 packet*ms over 10 ms.
 */
static void test_long_busy_period(void **state)
{
	struct model m;
	int i;

	(void)state;
	model_init(&m, 1 * MS, 1000, 0);
	assert_false(model_arrive(&m, 0));
	for (i = 1; i < 10; i++)
		model_arrive(&m, 0);
	/* 10 packets now: 9 waiting and one in service */
	assert_int_equal(m.qlen, 9);
	model_run(&m, 5 * MS);
	/* 5 ms into the busy period: area 10+9+8+7+6 = 40 over 5 ms = 8 */
	assert_int_equal(decbit_avg_milli(&m.a, 5 * MS, m.qlen), 8000);
	model_run(&m, 110 * MS);
	assert_int_equal(m.qlen, 0);
	assert_int_equal(decbit_avg_milli(&m.a, 10 * MS, m.qlen), 5500);
	/* 110 ms: the cycle is 10 ms busy + 100 ms idle, avg 55/110 = 0.5 */
	assert_false(model_arrive(&m, 110 * MS));
	assert_int_equal(m.a.cycles, 1);
	assert_int_equal(m.a.prev_area, 55 * MS);
	assert_int_equal(m.a.prev_time, 110 * MS);
	assert_int_equal(decbit_avg_milli(&m.a, 110 * MS, 0), 500);
}

/*
 * Cycle boundary: the previous cycle keeps counting until the next one
 * ends.  Previous: 10 packets in a burst, 110 ms (avg 0.5).  Current: a
 * second burst of 20 at 110 ms: after 10 ms of it, area = 20+...+11 = 155,
 * so avg = (55 + 155) / (110 + 10) = 1.75 and arrivals are marked.
 */
static void test_cycle_boundary(void **state)
{
	struct model m;
	int i;

	(void)state;
	model_init(&m, 1 * MS, 1000, 0);
	for (i = 0; i < 10; i++)
		model_arrive(&m, 0);
	model_run(&m, 110 * MS);
	assert_false(model_arrive(&m, 110 * MS));
	for (i = 1; i < 20; i++)
		model_arrive(&m, 110 * MS);
	model_run(&m, 120 * MS);
	assert_int_equal(decbit_avg_milli(&m.a, 120 * MS, m.qlen), 1750);
	assert_true(model_arrive(&m, 120 * MS));
	/* An arrival while busy does not start a cycle. */
	assert_int_equal(m.a.cycles, 1);
}

/* C = 1, H = 1: on at avg >= 1.5, off below 0.5. */
static void test_hysteresis(void **state)
{
	struct decbit_params p = { .threshold = 1000, .hysteresis = 1000 };
	struct decbit_avg a;

	(void)state;
	decbit_avg_init(&a);
	/* One packet in service for 10 ms, starting a cycle at 0. */
	assert_false(decbit_avg_arrival(&a, &p, 0, 0));
	decbit_avg_service(&a, 0, 1, 1000 * MS);
	/* avg 1 (n = 1 since t = 0): above C but below C + H/2 */
	assert_false(decbit_avg_arrival(&a, &p, 10 * MS, 0));
	/* queue 2 more for 10 ms: avg (10 + 30) / 20 = 2 -> on */
	assert_true(decbit_avg_arrival(&a, &p, 20 * MS, 2));
	/* Same history without hysteresis would be on at avg 1 already. */
	p.hysteresis = 0;
	/* drop back to n = 1 until 60 ms: (40 + 40) / 60 = 1.33, still on */
	assert_true(decbit_avg_arrival(&a, &p, 60 * MS, 0));
	p.hysteresis = 1000;
	/* service ends at 1000 ms, idle until 1100: the next arrival starts a
	 * cycle: prev = (80 + 940) / 1100 = 0.927 -> still on (>= 0.5)
	 */
	a.busy_until = 1000 * MS;
	assert_true(decbit_avg_arrival(&a, &p, 1100 * MS, 0));
	assert_int_equal(a.cycles, 1);
	/* idle long enough: prev cycle is now 1020 ms area over 5000 ms */
	decbit_avg_service(&a, 1100 * MS, 1, 1100 * MS + 20 * MS);
	assert_false(decbit_avg_arrival(&a, &p, 6100 * MS, 0));
	assert_int_equal(decbit_avg_milli(&a, 6100 * MS, 0), 4);
	/* off stays off until 1.5: n = 1 area accumulates */
	decbit_avg_service(&a, 6100 * MS, 1, 100000 * MS);
	assert_false(decbit_avg_arrival(&a, &p, 7000 * MS, 0));
}

/* Times near the top of the u64 range and huge gaps do not overflow. */
static void test_large_times(void **state)
{
	u64 base = U64_MAX - 1000000 * MS;	/* 1000 s before the wrap */
	struct model m;
	u64 t;

	(void)state;
	model_init(&m, 1 * MS, 1000, 0);
	for (t = base; t < base + 200 * MS; t += 2 * MS)
		assert_false(model_arrive(&m, t));
	assert_int_equal(decbit_avg_milli(&m.a, t, m.qlen), 500);

	/* A stalled queue of 2^20 packets for a day without events. */
	decbit_avg_init(&m.a);
	decbit_avg_arrival(&m.a, &m.p, 0, 0);
	decbit_avg_advance(&m.a, 86400 * NSEC_PER_SEC, 1 << 20);
	assert_true(m.a.cur_area < DECBIT_HALVE_AT);
	/* The intervals are capped at 2^41 ns of area each, never wrapped. */
	assert_true(decbit_avg_at_least(&m.a, 86400 * NSEC_PER_SEC, 1000));
}

/* Rescaling a huge busy period keeps the average. */
static void test_rescale_keeps_average(void **state)
{
	struct decbit_params p = { .threshold = 3000, .hysteresis = 0 };
	struct decbit_avg a;
	u64 t = 0;
	int i;

	(void)state;
	decbit_avg_init(&a);
	decbit_avg_arrival(&a, &p, 0, 0);
	/* 4 packets waiting for 4000 steps of 2^40 ns: area 2^54 * 1000 > 2^62 */
	for (i = 0; i < 4000; i++) {
		t += 1ULL << 40;
		decbit_avg_advance(&a, t, 4);
	}
	assert_true(a.cur_area < DECBIT_HALVE_AT);
	assert_int_equal(decbit_avg_milli(&a, t, 4), 4000);
	assert_true(decbit_avg_arrival(&a, &p, t, 4));
}

/* The defaults come from the uapi header, through decbit_params_init(). */
static void test_params_init(void **state)
{
	struct decbit_params p = { .threshold = 7, .hysteresis = 9 };

	(void)state;
	decbit_params_init(&p);
	assert_int_equal(p.threshold, DECBIT_SCALE);	/* one packet */
	assert_int_equal(p.hysteresis, 0);
}

/*
 * The rate's service start: one service time of grace for any packet,
 * the catch-up allowance only for one that was waiting.
 */
static void test_service_start(void **state)
{
	const u64 bu = 1000000, len = 600000, cu = 4000000;

	(void)state;
	assert_int_equal(decbit_service_start(bu, bu, len, false, 0), bu);
	assert_int_equal(decbit_service_start(bu + len - 1, bu, len, false, 0), bu);
	assert_int_equal(decbit_service_start(bu + len, bu, len, false, 0), bu + len);
	/* a waiting packet catches up within the allowance */
	assert_int_equal(decbit_service_start(bu + 3000000, bu, len, true, cu), bu);
	assert_int_equal(decbit_service_start(bu + cu - 1, bu, len, true, cu), bu);
	/* later, it keeps the allowance: only the excess is lost */
	assert_int_equal(decbit_service_start(bu + cu, bu, len, true, cu), bu);
	assert_int_equal(decbit_service_start(bu + 10000000, bu, len, true, cu),
			 bu + 10000000 - cu);
	/* with no allowance it starts at its dequeue (the one service time aside) */
	assert_int_equal(decbit_service_start(bu + 3000000, bu, len, true, 0),
			 bu + 3000000);
	/* one that arrived to an idle link does not catch up */
	assert_int_equal(decbit_service_start(bu + 3000000, bu, len, false, cu),
			 bu + 3000000);
	/* a link idle since time 0 (a fresh qdisc) */
	assert_int_equal(decbit_service_start(5 * cu, 0, len, false, cu), 5 * cu);
}

/* lost link time: what a waiting packet's start trails the link's freeing by */
static void test_service_lost(void **state)
{
	const u64 bu = 1000000, len = 600000, cu = 4000000;
	u64 now, start;
	int i;

	(void)state;
	/* within the allowance nothing is lost */
	start = decbit_service_start(bu + 3000000, bu, len, true, cu);
	assert_int_equal(decbit_service_lost(start, bu, true), 0);
	/* 10 ms late with 4 ms of allowance: 6 ms lost */
	start = decbit_service_start(bu + 10000000, bu, len, true, cu);
	assert_int_equal(decbit_service_lost(start, bu, true), 6000000);
	/* no allowance: all of the lateness */
	start = decbit_service_start(bu + 10000000, bu, len, true, 0);
	assert_int_equal(decbit_service_lost(start, bu, true), 10000000);
	/* an idle link loses nothing, however long it idled */
	start = decbit_service_start(bu + 10000000, bu, len, false, cu);
	assert_int_equal(decbit_service_lost(start, bu, false), 0);
	/* a link never paced (busy_until 0: a fresh qdisc, or one whose rate
	 * was 0) lost nothing, whatever the flag says: a rate set again while
	 * packets wait must not count the time since boot
	 */
	start = decbit_service_start(5000000000ULL, 0, len, true, cu);
	assert_int_equal(decbit_service_lost(start, 0, true), 0);
	/* an allowance below one service time: a dequeue later than the
	 * service time keeps only the allowance
	 */
	start = decbit_service_start(bu + len - 1, bu, len, true, 0);
	assert_int_equal(decbit_service_lost(start, bu, true), 0);
	start = decbit_service_start(bu + len + 1000, bu, len, true, 1000);
	assert_int_equal(decbit_service_lost(start, bu, true), len);
	/* a backlogged link served late n times loses n x (late - allowance) */
	now = bu;
	for (i = 0; i < 100; i++) {
		u64 b = now;

		now = b + 7000000;
		start = decbit_service_start(now, b, len, true, cu);
		assert_int_equal(decbit_service_lost(start, b, true), 3000000);
		now = start + len;
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_params_init),
		cmocka_unit_test(test_mul_ge),
		cmocka_unit_test(test_dd1_below_saturation),
		cmocka_unit_test(test_dd1_saturated),
		cmocka_unit_test(test_long_busy_period),
		cmocka_unit_test(test_cycle_boundary),
		cmocka_unit_test(test_hysteresis),
		cmocka_unit_test(test_large_times),
		cmocka_unit_test(test_rescale_keeps_average),
		cmocka_unit_test(test_service_start),
		cmocka_unit_test(test_service_lost),
	};

	return cmocka_run_group_tests_name("decbit_avg", tests, NULL, NULL);
}
