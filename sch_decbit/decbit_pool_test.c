// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the input buffer limit admission rule (decbit_pool.h): the
 * paper's worked values, the rule case by case, and a model of several
 * queues sharing one pool driven by random arrivals and departures, checked
 * against the rule restated independently at every step.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <cmocka.h>

#include "decbit_pool.h"

/* IBL = alpha / H in millionths, H = 3.3 nodes (Lam & Lien's 7-node net) */
static u32 ibl_of(u32 alpha_permille)
{
	return (u32)((u64)alpha_permille * 1000 * 10 / 33);
}

static void test_input_limit(void **state)
{
	(void)state;
	/* the worked values: N_T = 50, alpha = 1, 0.7, 0.6, 0.4 */
	assert_int_equal(decbit_pool_input_limit(50, ibl_of(1000)), 15);
	assert_int_equal(decbit_pool_input_limit(50, ibl_of(700)), 10);
	assert_int_equal(decbit_pool_input_limit(50, ibl_of(600)), 9);
	assert_int_equal(decbit_pool_input_limit(50, ibl_of(400)), 6);
	/* floor, and the extremes */
	assert_int_equal(decbit_pool_input_limit(7, 999999), 6);
	assert_int_equal(decbit_pool_input_limit(7, DECBIT_IBL_SCALE), 7);
	assert_int_equal(decbit_pool_input_limit(1, 1), 0);
	assert_int_equal(decbit_pool_input_limit(1000000, DECBIT_IBL_SCALE),
			 1000000);
	assert_int_equal(decbit_pool_input_limit(U32_MAX, DECBIT_IBL_SCALE),
			 U32_MAX);
}

/* Several segments at once: all or none, no overflow near U32_MAX. */
static void test_rule_segments(void **state)
{
	(void)state;
	assert_int_equal(decbit_pool_admit_n(0, 0, 10, 10, false, 10), DECBIT_POOL_ADMIT);
	assert_int_equal(decbit_pool_admit_n(1, 0, 10, 10, false, 10), DECBIT_POOL_FULL);
	assert_int_equal(decbit_pool_admit_n(6, 0, 10, 10, false, 4), DECBIT_POOL_ADMIT);
	assert_int_equal(decbit_pool_admit_n(6, 0, 10, 10, false, 5), DECBIT_POOL_FULL);
	/* input: N_I = 4 */
	assert_int_equal(decbit_pool_admit_n(0, 0, 10, 4, true, 4), DECBIT_POOL_ADMIT);
	assert_int_equal(decbit_pool_admit_n(0, 1, 10, 4, true, 4), DECBIT_POOL_IBL);
	assert_int_equal(decbit_pool_admit_n(8, 0, 10, 4, true, 3), DECBIT_POOL_FULL);
	/* a transit super-packet is not held to N_I */
	assert_int_equal(decbit_pool_admit_n(0, 4, 10, 4, false, 6), DECBIT_POOL_ADMIT);
	/* no wrap: counts near 2^32 */
	assert_int_equal(decbit_pool_admit_n(U32_MAX - 1, 0, U32_MAX, U32_MAX, false, 64),
			 DECBIT_POOL_FULL);
	assert_int_equal(decbit_pool_admit_n(0, U32_MAX - 1, U32_MAX, 100, true, 64),
			 DECBIT_POOL_IBL);
	/* n = 1 is the one-packet rule */
	assert_int_equal(decbit_pool_admit_n(5, 2, 10, 2, true, 1),
			 decbit_pool_admit(5, 2, 10, 2, true));
}

static void test_rule(void **state)
{
	(void)state;
	/* transit: any free buffer, whatever input holds */
	assert_int_equal(decbit_pool_admit(0, 0, 10, 2, false), DECBIT_POOL_ADMIT);
	assert_int_equal(decbit_pool_admit(9, 2, 10, 2, false), DECBIT_POOL_ADMIT);
	assert_int_equal(decbit_pool_admit(9, 9, 10, 2, false), DECBIT_POOL_ADMIT);
	assert_int_equal(decbit_pool_admit(10, 0, 10, 2, false), DECBIT_POOL_FULL);
	/* input: below N_I and a free buffer */
	assert_int_equal(decbit_pool_admit(0, 0, 10, 2, true), DECBIT_POOL_ADMIT);
	assert_int_equal(decbit_pool_admit(5, 1, 10, 2, true), DECBIT_POOL_ADMIT);
	assert_int_equal(decbit_pool_admit(5, 2, 10, 2, true), DECBIT_POOL_IBL);
	assert_int_equal(decbit_pool_admit(10, 1, 10, 2, true), DECBIT_POOL_FULL);
	/* both limits reached: the input limit explains it */
	assert_int_equal(decbit_pool_admit(10, 2, 10, 2, true), DECBIT_POOL_IBL);
	/* N_I = 0: no input at all; N_I = N_T: no input limit */
	assert_int_equal(decbit_pool_admit(0, 0, 10, 0, true), DECBIT_POOL_IBL);
	assert_int_equal(decbit_pool_admit(9, 9, 10, 10, true), DECBIT_POOL_ADMIT);
	/* N_I = N_T and the pool full of input: the pool's refusal */
	assert_int_equal(decbit_pool_admit(10, 10, 10, 10, true), DECBIT_POOL_FULL);
	/* a pool overfilled by a qdisc that moved into it admits nothing */
	assert_int_equal(decbit_pool_admit(12, 0, 10, 10, false), DECBIT_POOL_FULL);
	assert_int_equal(decbit_pool_admit(12, 0, 10, 10, true), DECBIT_POOL_FULL);
}

#define NQ	4
#define DEPTH	64

/* Several FIFO queues (a router's interfaces) charging one pool. */
struct router {
	u32 limit, input_limit, used, input;
	u32 len[NQ];
	bool pkt[NQ][DEPTH];	/* input flag of each queued packet */
	u32 head[NQ];
	u64 admitted, refused_full, refused_ibl;
};

static void arrive(struct router *r, int qi, bool is_input)
{
	bool want_ok = r->used < r->limit &&
		       (!is_input || r->input < r->input_limit);
	enum decbit_pool_verdict v;

	if (r->len[qi] == DEPTH)	/* the qdisc's own limit */
		return;
	v = decbit_pool_admit(r->used, r->input, r->limit, r->input_limit,
			      is_input);
	assert_int_equal(v == DECBIT_POOL_ADMIT, want_ok);
	if (v == DECBIT_POOL_IBL) {
		assert_true(is_input && r->input >= r->input_limit &&
			    r->input_limit < r->limit);
		r->refused_ibl++;
		return;
	}
	if (v == DECBIT_POOL_FULL) {
		assert_true(r->used >= r->limit);
		r->refused_full++;
		return;
	}
	r->pkt[qi][(r->head[qi] + r->len[qi]) % DEPTH] = is_input;
	r->len[qi]++;
	r->used++;
	r->input += is_input;
	r->admitted++;
}

static void depart(struct router *r, int qi)
{
	bool in;

	if (!r->len[qi])
		return;
	in = r->pkt[qi][r->head[qi]];
	r->head[qi] = (r->head[qi] + 1) % DEPTH;
	r->len[qi]--;
	r->used--;
	r->input -= in;
}

static void check_counts(const struct router *r)
{
	u32 used = 0, input = 0;
	int qi, k;

	for (qi = 0; qi < NQ; qi++) {
		used += r->len[qi];
		for (k = 0; k < (int)r->len[qi]; k++)
			input += r->pkt[qi][(r->head[qi] + k) % DEPTH];
	}
	assert_int_equal(used, r->used);
	assert_int_equal(input, r->input);
	assert_true(r->used <= r->limit);
	assert_true(r->input <= r->input_limit);
}

static void test_shared_pool_model(void **state)
{
	static const u32 ibls[] = { 1, 121212, 212121, 500000, 1000000 };
	unsigned int seed = 7, i, step;

	(void)state;
	for (i = 0; i < sizeof(ibls) / sizeof(ibls[0]); i++) {
		struct router r = { .limit = 50 };
		int qi;

		r.input_limit = decbit_pool_input_limit(r.limit, ibls[i]);
		for (step = 0; step < 200000; step++) {
			int op = rand_r(&seed) % 100;

			qi = rand_r(&seed) % NQ;
			if (op < 55)
				arrive(&r, qi, rand_r(&seed) % 3 == 0);
			else
				depart(&r, qi);
			check_counts(&r);
		}
		/* heavy load reached both limits (N_I > 0) */
		assert_true(r.refused_full > 0);
		if (r.input_limit < r.limit)
			assert_true(r.refused_ibl > 0);
		/* drain: nothing is left charged */
		for (qi = 0; qi < NQ; qi++)
			while (r.len[qi])
				depart(&r, qi);
		assert_int_equal(r.used, 0);
		assert_int_equal(r.input, 0);
	}
}

/* Transit traffic alone can fill every buffer; input alone only N_I. */
static void test_occupancy_bounds(void **state)
{
	struct router r = { .limit = 50 };
	int k;

	(void)state;
	r.input_limit = decbit_pool_input_limit(50, ibl_of(700));
	for (k = 0; k < 1000; k++)
		arrive(&r, k % NQ, true);
	assert_int_equal(r.used, 10);
	assert_int_equal(r.refused_ibl, 990);
	for (k = 0; k < 1000; k++)
		arrive(&r, k % NQ, false);
	assert_int_equal(r.used, 50);
	assert_int_equal(r.input, 10);
	assert_int_equal(r.refused_full, 960);
}

/* atomic64_add() on the pool's word: wraps, as the kernel's does */
static s64 held_add(s64 held, s64 d)
{
	return (s64)((u64)held + (u64)d);
}

static void assert_held(s64 held, u32 used, u32 input)
{
	assert_int_equal((u32)held, used);
	assert_int_equal((u32)((u64)held >> 32), input);
}

/*
 * The pool's word, used in the low 32 bits and input in the high 32:
 * packets taken and returned (negative counts), up to U32_MAX of each,
 * without undefined behaviour (UBSan: a left shift of a negative value).
 */
static void test_held_word(void **state)
{
	static const struct {
		s64 pkts, input;	/* added */
		u32 used, in;		/* then held */
	} steps[] = {
		{ 5, 2, 5, 2 },
		{ -3, -2, 2, 0 },
		{ -2, 0, 0, 0 },
		{ U32_MAX, U32_MAX, U32_MAX, U32_MAX },
		{ -(s64)U32_MAX, -(s64)U32_MAX, 0, 0 },
	};
	s64 held = 0;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		held = held_add(held, decbit_pool_held(steps[i].pkts,
						       steps[i].input));
		assert_held(held, steps[i].used, steps[i].in);
	}
	assert_int_equal(held, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_input_limit),
		cmocka_unit_test(test_rule),
		cmocka_unit_test(test_rule_segments),
		cmocka_unit_test(test_shared_pool_model),
		cmocka_unit_test(test_occupancy_bounds),
		cmocka_unit_test(test_held_word),
	};

	return cmocka_run_group_tests_name("decbit_pool", tests, NULL, NULL);
}
