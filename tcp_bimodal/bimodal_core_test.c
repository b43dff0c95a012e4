// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the Bimodal state machine (bimodal_core.h) in the paper's
 * synchronous model: every RTT each flow adds one packet; when the sum of
 * the windows exceeds the capacity B (BDP + buffer, in packets) every flow
 * sees one congestion event.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "bimodal_core.h"

#define MAXF	16

struct model {
	struct bimodal_params p;
	struct bimodal_state s[MAXF];
	u32 a[MAXF];
	bool on[MAXF];
	u32 n;			/* flows ever created */
	u32 cap;		/* B */
	u64 sum_steps, steps;	/* for efficiency */
	u32 events;
};

static const struct bimodal_params eps8 = {
	.beta = 512, .epsilon = 128, .tol_min = 2, .min_fair = 8,
};

/* xorshift64: a fixed pseudo-random sequence */
static u64 next_rand(u64 *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * One event with window a under eps8 sets the window to @next, takes
 * branch @reason and leaves the share at @fair packets.
 */
static void step(struct bimodal_state *s, u32 a, u32 next,
		 enum bimodal_reason reason, u32 fair)
{
	enum bimodal_reason r = BIMODAL_NONE;

	assert_int_equal(bimodal_congestion(s, &eps8, a, &r), next);
	assert_int_equal(r, reason);
	assert_int_equal(s->fair, fair * BIMODAL_ONE);
}

static void model_init(struct model *m, const struct bimodal_params *p,
		       u32 cap)
{
	memset(m, 0, sizeof(*m));
	m->p = *p;
	m->cap = cap;
}

static void add_flow(struct model *m, u32 a)
{
	bimodal_reset(&m->s[m->n]);
	m->a[m->n] = a;
	m->on[m->n] = true;
	m->n++;
}

static u32 total(const struct model *m)
{
	u32 i, t = 0;

	for (i = 0; i < m->n; i++)
		if (m->on[i])
			t += m->a[i];
	return t;
}

/* Run RTT steps until @events more congestion events happened. */
static void run_events(struct model *m, u32 events)
{
	enum bimodal_reason r;
	u32 i, end = m->events + events;

	while (m->events < end) {
		if (total(m) > m->cap) {
			for (i = 0; i < m->n; i++)
				if (m->on[i])
					m->a[i] = bimodal_congestion(&m->s[i], &m->p,
								     m->a[i], &r);
			m->events++;
			continue;
		}
		m->sum_steps += total(m);
		m->steps++;
		for (i = 0; i < m->n; i++)
			if (m->on[i])
				m->a[i]++;
	}
}

/*
 * Every active flow is in the known mode with fair within tol_milli/1000
 * packets of want_num/want_den packets (exact integer comparison).
 */
static void assert_fair_near(const struct model *m, s64 want_num, s64 want_den,
			     s64 tol_milli)
{
	u32 i;

	for (i = 0; i < m->n; i++) {
		s64 d;

		if (!m->on[i])
			continue;
		assert_int_equal(m->s[i].mode, BIMODAL_KNOWN);
		/* (fair / ONE - want) * 1000 * ONE * den */
		d = ((s64)m->s[i].fair * want_den - want_num * (s64)BIMODAL_ONE) * 1000;
		if (d < 0)
			d = -d;
		if (d > tol_milli * (s64)BIMODAL_ONE * want_den)
			fail_msg("flow %u: fair %u/%u packets, want %lld/%lld +- %lld/1000",
				 i, m->s[i].fair, BIMODAL_ONE, (long long)want_num,
				 (long long)want_den, (long long)tol_milli);
	}
}

/* n flows from unequal windows know fair = B/n after two events, and keep it. */
static void converge(u32 n)
{
	static const u32 start[] = { 5, 10, 20, 60, 3, 8, 13, 1, 40, 7 };
	struct model m;
	u32 i, k;

	model_init(&m, &eps8, 400);
	for (i = 0; i < n; i++)
		add_flow(&m, start[i]);
	run_events(&m, 2);
	/* within the tolerance band of B/n: one packet per flow of overshoot */
	assert_fair_near(&m, m.cap, n, 2000);
	for (k = 0; k < 20; k++) {
		run_events(&m, 1);
		assert_fair_near(&m, m.cap, n, 2000);
		/* every window is the same after the first cycle in the known mode */
		for (i = 1; i < n; i++)
			assert_int_equal(m.a[i], m.a[0]);
	}
}

static void test_converge_2(void **state) { (void)state; converge(2); }
static void test_converge_4(void **state) { (void)state; converge(4); }
static void test_converge_10(void **state) { (void)state; converge(10); }

/*
 * Efficiency over the known mode's cycles: 1 - eps/2 of B, i.e.
 * (2048 - eps) / 2048 with eps in 1/1024, to within 0.01.
 */
static void efficiency(u32 eps)
{
	struct bimodal_params p = eps8;
	struct model m;
	s64 got, want;

	p.epsilon = eps;
	model_init(&m, &p, 2000);
	add_flow(&m, 10);
	add_flow(&m, 30);
	run_events(&m, 4);
	m.sum_steps = 0;
	m.steps = 0;
	run_events(&m, 40);
	/* sum_steps / (steps * cap) against (2048 - eps) / 2048, times 100 */
	got = (s64)m.sum_steps * 2048 * 100;
	want = (s64)(2048 - eps) * (s64)m.steps * m.cap * 100;
	if (got - want > 2048 * (s64)m.steps * m.cap ||
	    want - got > 2048 * (s64)m.steps * m.cap)
		fail_msg("eps %u/1024: efficiency %llu/%llu, want %u/2048", eps,
			 (unsigned long long)m.sum_steps,
			 (unsigned long long)m.steps * m.cap, 2048 - eps);
}

static void test_efficiency(void **state)
{
	(void)state;
	efficiency(512);	/* 75% */
	efficiency(341);	/* 1/3: 83.3% */
	efficiency(128);	/* 93.75% */
}

/* Jain's index of three windows is above 0.99 */
static bool jain3_above_099(const u32 *a)
{
	u64 s = (u64)a[0] + a[1] + a[2];
	u64 q = (u64)a[0] * a[0] + (u64)a[1] * a[1] + (u64)a[2] * a[2];

	return s * s * 100 > 3 * q * 99;
}

/* A join sends everyone back to the unknown mode; they re-converge to B/3. */
static void test_join(void **state)
{
	struct bimodal_params p = eps8;
	struct model m;

	(void)state;
	p.epsilon = 512;	/* eps = beta, as the paper's dynamic runs */
	model_init(&m, &p, 300);
	add_flow(&m, 10);
	add_flow(&m, 50);
	run_events(&m, 4);
	assert_fair_near(&m, 150, 1, 2000);
	add_flow(&m, 2);
	run_events(&m, 1);
	assert_int_equal(m.s[0].mode, BIMODAL_UNKNOWN);
	assert_int_equal(m.s[1].mode, BIMODAL_UNKNOWN);
	/*
	 * One cycle to begin measuring (cc <- 0), one to measure.  The
	 * flows measure in different cycles, so the shares are equal only
	 * within the "at fair" band (fair * eps / 4 = 12.5% here), where
	 * they then stay: 92/92/100 in this run, windows 46/46/50.
	 */
	run_events(&m, 8);
	assert_fair_near(&m, 100, 1, 12500);
	assert_true(jain3_above_099(m.a));
}


/* fast_remeasure measures from the "joined" cut itself: one event sooner. */
static void test_join_fast_remeasure(void **state)
{
	struct bimodal_params p = eps8;
	struct model m;

	(void)state;
	p.epsilon = 512;
	p.fast_remeasure = true;
	model_init(&m, &p, 300);
	add_flow(&m, 10);
	add_flow(&m, 50);
	run_events(&m, 4);
	add_flow(&m, 2);
	run_events(&m, 1);
	assert_int_equal(m.s[0].cc, 1);
	assert_int_equal(m.s[0].bc, m.a[0]);
	/* every flow measures in the same cycle: exactly B/3 */
	run_events(&m, 1);
	assert_fair_near(&m, 100, 1, 2000);
	run_events(&m, 5);
	assert_fair_near(&m, 100, 1, 2000);
	assert_int_equal(m.a[0], m.a[2]);
}

/* A leave is seen as "above fair": fair rises to the window at the event. */
static void test_leave(void **state)
{
	struct model m;
	u32 before;

	(void)state;
	model_init(&m, &eps8, 400);
	add_flow(&m, 10);
	add_flow(&m, 20);
	add_flow(&m, 30);
	add_flow(&m, 40);
	run_events(&m, 6);
	assert_fair_near(&m, 100, 1, 2000);
	before = m.s[0].fair;
	m.on[2] = false;
	m.on[3] = false;
	run_events(&m, 1);
	assert_int_equal(m.s[0].mode, BIMODAL_KNOWN);
	assert_true(m.s[0].fair > before);
	/* the survivors hold fair = their window at the event, above 100 */
	assert_true(m.s[0].fair > 150 * BIMODAL_ONE);
}

/*
 * One flow of ten leaves: the share grows by 1/9, less than a cycle's
 * regrowth above the band, so the first event above it reads as a
 * missed cut; the second one raises the share to B/9.
 */
static void test_leave_one_of_ten(void **state)
{
	struct model m;
	u32 i;

	(void)state;
	model_init(&m, &eps8, 200);
	for (i = 0; i < 10; i++)
		add_flow(&m, 2 * i + 1);
	run_events(&m, 6);
	assert_fair_near(&m, 200, 10, 2000);
	m.on[9] = false;
	run_events(&m, 1);
	assert_int_equal(m.s[0].over, 1);
	assert_fair_near(&m, 200, 10, 2000);
	run_events(&m, 1);
	assert_int_equal(m.s[0].over, 0);
	assert_fair_near(&m, 200, 9, 1000);
	run_events(&m, 10);
	assert_fair_near(&m, 200, 9, 1000);
}

/*
 * Drop-tail does not give every flow the congestion event: the packets
 * lost when the windows' sum overflows B belong to flows in proportion to
 * their windows.  Here @drops such packets are drawn per overflow (a
 * fixed xorshift sequence) and only the flows they hit see the event.
 * The share the flows work with (the mean fair share carried by the
 * events that end in the known mode, after 200 events) is B/n within 8 %
 * (the "at fair" band of two packets is 10 % of a 20-packet share).
 * Fig. 1's rules taken literally read 9-16 % high here: a flow that
 * missed one cut is above the share at its next event and "flows left"
 * raises the share to that window, which the band then never lowers.
 */
static void unsync_fair(u32 n, u32 cap, u32 drops)
{
	u64 x = 88172645463325252ULL, fsum = 0, fn = 0;
	enum bimodal_reason r;
	struct model m;
	u32 i, k, t;

	model_init(&m, &eps8, cap);
	for (i = 0; i < n; i++)
		add_flow(&m, 2 + i);
	while (m.events < 20000) {
		bool hit[MAXF] = { false };

		t = total(&m);
		if (t <= m.cap) {
			for (i = 0; i < n; i++)
				m.a[i]++;
			continue;
		}
		for (k = 0; k < drops; k++) {
			u32 c = 0, pkt;

			pkt = (u32)(next_rand(&x) % t);
			for (i = 0; i < n; i++) {
				c += m.a[i];
				if (pkt < c) {
					hit[i] = true;
					break;
				}
			}
		}
		for (i = 0; i < n; i++) {
			if (!hit[i])
				continue;
			m.a[i] = bimodal_congestion(&m.s[i], &m.p, m.a[i], &r);
			if (++m.events > 200 && m.s[i].mode == BIMODAL_KNOWN) {
				fsum += m.s[i].fair;
				fn++;
			}
		}
	}
	/* fsum / fn / ONE against cap / n, within 8 % */
	assert_true(fn > 10000);
	if (fsum * n * 100 > fn * cap * BIMODAL_ONE * 108 ||
	    fsum * n * 100 < fn * cap * BIMODAL_ONE * 92)
		fail_msg("%u flows, B %u, %u drops an overflow: share %llu/1000 of B/n",
			 n, cap, drops,
			 (unsigned long long)(fsum * n * 1000 / (fn * cap * BIMODAL_ONE)));
}

static void test_unsync_fair(void **state)
{
	(void)state;
	unsync_fair(4, 83, 2);	/* the selftest's dumbbell: B = 66 + 17 */
	unsync_fair(4, 83, 4);
	unsync_fair(10, 200, 3);
	unsync_fair(10, 200, 10);
}

/* Branch by branch, with exact numbers. */
static void test_branches(void **state)
{
	struct bimodal_state s;
	enum bimodal_reason r;

	(void)state;
	bimodal_reset(&s);
	assert_int_equal(bimodal_congestion(&s, &eps8, 40, &r), 20);
	assert_int_equal(r, BIMODAL_BEGIN);
	assert_int_equal(s.bc, 20);
	/* a - bc = 16 over beta 1/2: fair 32; a <- 32 * 7/8 = 28 */
	assert_int_equal(bimodal_congestion(&s, &eps8, 36, &r), 28);
	assert_int_equal(r, BIMODAL_MEASURED);
	assert_int_equal(s.fair, 32 * BIMODAL_ONE);
	/* tolerance max(2, 32/32) = 2 packets: 30..34 is "at fair" */
	step(&s, 34, 28, BIMODAL_AT_FAIR, 32);
	assert_int_equal(s.over, 0);
	/* at fair below the share: the share is the window, 31; 31*7/8 */
	step(&s, 31, 27, BIMODAL_AT_FAIR, 31);
	/*
	 * Above the band (33) by less than a cycle's regrowth (31/8): a
	 * missed cut, at fair; the share stays 31.
	 */
	step(&s, 34, 27, BIMODAL_AT_FAIR, 31);
	assert_int_equal(s.over, 1);
	/* above it at the next event too: flows left, fair 34; 34*7/8 */
	step(&s, 34, 30, BIMODAL_LEFT, 34);
	assert_int_equal(s.over, 0);
	/*
	 * A cycle's regrowth above the band ends at 34 + 2 + 34/8 = 40.25:
	 * 40 is a missed cut, 41 after an event in the band flows left.
	 */
	step(&s, 40, 30, BIMODAL_AT_FAIR, 34);
	step(&s, 35, 30, BIMODAL_AT_FAIR, 34);
	assert_int_equal(s.over, 0);
	step(&s, 41, 36, BIMODAL_LEFT, 41);	/* 41*7/8 */
	assert_int_equal(bimodal_congestion(&s, &eps8, 32, &r), 16);
	assert_int_equal(r, BIMODAL_JOINED);
	assert_int_equal(s.mode, BIMODAL_UNKNOWN);
	assert_int_equal(s.cc, 0);
	/* idle/app-limited cycle, or no growth: void, beta cut, measure again */
	assert_int_equal(bimodal_congestion(&s, &eps8, 30, &r), 15);
	assert_int_equal(r, BIMODAL_BEGIN);
	s.dirty = 1;
	assert_int_equal(bimodal_congestion(&s, &eps8, 40, &r), 20);
	assert_int_equal(r, BIMODAL_VOID);
	assert_int_equal(s.cc, 1);
	assert_int_equal(s.dirty, 0);
	assert_int_equal(bimodal_congestion(&s, &eps8, 20, &r), 10);
	assert_int_equal(r, BIMODAL_VOID);
	/* a share under min_fair (8) is not trusted */
	assert_int_equal(bimodal_congestion(&s, &eps8, 13, &r), 7);
	assert_int_equal(r, BIMODAL_VOID);
	/* never below two packets */
	bimodal_reset(&s);
	assert_int_equal(bimodal_congestion(&s, &eps8, 2, &r), 2);
}

/*
 * At fair, a window below the share lowers it, but not below min_fair
 * (8) and not after an idle or application-limited cycle.
 */
static void test_lower_floor(void **state)
{
	struct bimodal_state s;

	(void)state;
	bimodal_reset(&s);
	step(&s, 40, 20, BIMODAL_BEGIN, 0);
	/* (25 - 20) / (1/2): fair 10; 10 * 7/8 */
	step(&s, 25, 9, BIMODAL_MEASURED, 10);
	step(&s, 9, 8, BIMODAL_AT_FAIR, 9);	/* 9*7/8 */
	/* 7 is in the band (9 - 2) but below min_fair: the share stays */
	step(&s, 7, 8, BIMODAL_AT_FAIR, 9);
	/* an application-limited cycle does not lower it either */
	s.dirty = 1;
	step(&s, 8, 8, BIMODAL_AT_FAIR, 9);
	step(&s, 8, 7, BIMODAL_AT_FAIR, 8);
}

/*
 * Module parameters written at any time (tcp_bimodal reads them once per
 * event): every event under random extreme parameters, with windows from
 * 1 packet to twice the largest share, leaves the state in range: a known
 * reason and mode, a share of at most BIMODAL_FAIR_MAX packets, a window
 * of at least two packets and never above the larger of the window at the
 * event and the share.
 */
static void test_extreme_params(void **state)
{
	static const u32 fracs[] = { 1, 2, 341, 512, 1022, 1023 };
	static const u32 pkts[] = { 1, 2, 8, 1000, 65535, 65536 };
	struct bimodal_state s;
	struct bimodal_params p;
	enum bimodal_reason r;
	u64 x = 88172645463325252ULL;	/* xorshift64 */
	u32 i, a, next, top;

	(void)state;
	bimodal_reset(&s);
	for (i = 0; i < 200000; i++) {
		next_rand(&x);
		p.beta = fracs[x % 6];
		p.epsilon = fracs[(x >> 8) % 6];
		p.tol_min = pkts[(x >> 16) % 6];
		p.min_fair = pkts[(x >> 24) % 6];
		p.fast_remeasure = (x >> 32) & 1;
		s.dirty = ((x >> 33) & 7) == 0;
		/* mostly windows near the last one, sometimes anywhere */
		if ((x >> 36) & 3)
			a = s.bc + ((x >> 40) % 4096);
		else
			a = 1 + (u32)((x >> 40) % (2 * BIMODAL_FAIR_MAX));
		r = BIMODAL_NONE;
		next = bimodal_congestion(&s, &p, a, &r);
		top = a > s.fair >> BIMODAL_SHIFT ? a : s.fair >> BIMODAL_SHIFT;
		if (top < BIMODAL_MIN_CWND)
			top = BIMODAL_MIN_CWND;
		if (r < BIMODAL_BEGIN || r > BIMODAL_AT_FAIR || s.mode > 1 ||
		    s.cc > 1 || next < BIMODAL_MIN_CWND || next > top ||
		    s.fair > BIMODAL_FAIR_MAX << BIMODAL_SHIFT)
			fail_msg("event %u: a %u beta %u eps %u tol %u min_fair %u: reason %d mode %u next %u fair %u.%03u packets",
				 i, a, p.beta, p.epsilon, p.tol_min, p.min_fair,
				 r, s.mode, next, s.fair >> BIMODAL_SHIFT,
				 (s.fair & (BIMODAL_ONE - 1)) * 1000 >> BIMODAL_SHIFT);
		if (s.bc > 2 * BIMODAL_FAIR_MAX)
			bimodal_reset(&s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_branches),
		cmocka_unit_test(test_lower_floor),
		cmocka_unit_test(test_converge_2),
		cmocka_unit_test(test_converge_4),
		cmocka_unit_test(test_converge_10),
		cmocka_unit_test(test_efficiency),
		cmocka_unit_test(test_join),
		cmocka_unit_test(test_join_fast_remeasure),
		cmocka_unit_test(test_leave),
		cmocka_unit_test(test_leave_one_of_ten),
		cmocka_unit_test(test_unsync_fair),
		cmocka_unit_test(test_extreme_params),
	};

	return cmocka_run_group_tests_name("bimodal_core", tests, NULL, NULL);
}
