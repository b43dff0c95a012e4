// SPDX-License-Identifier: GPL-2.0
/*
 * q_decbit.c	tc plugin for the "decbit" qdisc (sch_decbit).
 *
 * Loaded by tc from $TC_LIB_DIR or its library directory (Debian:
 * /usr/lib/x86_64-linux-gnu/tc) as q_decbit.so; it uses tc's
 * own helpers, so it is built against the iproute2 headers of that tc.
 */
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include <congavoid/tc_decbit.h>
#include "congavoid_tc.h"

static void explain(void)
{
	fprintf(stderr,
		"Usage: ... decbit [ limit PACKETS ] [ threshold PACKETS ] [ hysteresis PACKETS ]\n"
		"                  [ rate RATE [ catchup TIME ] ] [ nonect pass|drop ]\n"
		"                  [ pool ID [ pool_limit PACKETS ] [ ibl FRACTION ] ]\n"
		"                  [ input DEV ]... | [ noinput ]\n"
		"  limit       1..%u packets (default %u)\n"
		"  threshold   average queue length that turns marking on, packets,\n"
		"              0.001..%u, up to 3 decimals (default %g)\n"
		"  hysteresis  marking on above threshold+H/2, off below threshold-H/2;\n"
		"              0 <= H < 2*threshold (default %g)\n"
		"  rate        serve the queue at RATE (e.g. 10mbit, at most 8.8tbit);\n"
		"              0 = unpaced (default %llu)\n"
		"  catchup     with a rate: a queued packet whose pacing timer fired\n"
		"              less than TIME late still starts when the link freed up,\n"
		"              0..%ums (default %gms)\n"
		"  nonect      non-ECT packets while congested: pass or drop (default %s)\n"
		"  pool        share a buffer pool with the decbit qdiscs of this\n"
		"              namespace that name the same ID (1..4294967295; 0: none)\n"
		"  pool_limit  N_T, the pool's buffers, 1..%u packets (required to\n"
		"              create a pool; changes it for all its qdiscs)\n"
		"  ibl         input packets hold at most floor(ibl * N_T) buffers,\n"
		"              0 < ibl <= 1, up to 6 decimals (default %g)\n"
		"  input       arrivals on DEV enter the network here (repeatable, up\n"
		"              to %d; packets sent by this host always do); noinput\n"
		"              clears the list\n",
		DECBIT_LIMIT_MAX, DECBIT_LIMIT_DEFAULT,
		DECBIT_THRESHOLD_MAX / 1000, DECBIT_THRESHOLD_DEFAULT / 1000.0,
		DECBIT_HYSTERESIS_DEFAULT / 1000.0, DECBIT_RATE_DEFAULT,
		DECBIT_CATCHUP_MAX / 1000000, DECBIT_CATCHUP_DEFAULT / 1e6,
		DECBIT_NONECT_DEFAULT == TC_DECBIT_NONECT_DROP ? "drop" : "pass",
		DECBIT_LIMIT_MAX, DECBIT_IBL_DEFAULT / 1000000.0, DECBIT_INPUT_MAX);
}

static int bad(const char *what, const char *arg)
{
	fprintf(stderr, "decbit: illegal %s \"%s\"\n", what, arg);
	explain();
	return -1;
}

/*
 * "1", "0.5", "12.125": a non-negative decimal number with at most @digits
 * decimals, in units of 10^-@digits.
 */
static int get_fixed(__u32 *val, const char *s, int digits)
{
	unsigned long long v = 0;
	int frac = -1;
	const char *p;

	if (!*s)
		return -1;
	for (p = s; *p; p++) {
		if (*p == '.' && frac < 0 && p != s && p[1]) {
			frac = 0;
			continue;
		}
		if (*p < '0' || *p > '9' || frac >= digits)
			return -1;
		v = v * 10 + (*p - '0');
		if (frac >= 0)
			frac++;
		if (v > 0xffffffffULL)
			return -1;
	}
	for (frac = frac < 0 ? 0 : frac; frac < digits; frac++)
		v *= 10;
	if (v > 0xffffffffULL)
		return -1;
	*val = v;
	return 0;
}

static int get_milli(__u32 *val, const char *s)
{
	return get_fixed(val, s, 3);
}

static int decbit_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			    struct nlmsghdr *n, const char *dev)
{
	bool have_threshold = false, have_hyst = false;
	__u32 limit = 0, threshold = 0, hyst = 0;
	bool have_rate = false, have_pool = false, have_inputs = false;
	__u32 pool = 0, pool_limit = 0, ibl = 0;
	__u32 inputs[DECBIT_INPUT_MAX];
	int nonect = -1, n_inputs = 0;
	__u64 rate = 0;
	__u32 catchup = 0;
	bool have_catchup = false;
	struct rtattr *tail;

	while (argc > 0) {
		if (strcmp(*argv, "limit") == 0) {
			NEXT_ARG();
			if (cav_get_packets(&limit, *argv, DECBIT_LIMIT_MAX))
				return bad("limit", *argv);
		} else if (strcmp(*argv, "threshold") == 0) {
			NEXT_ARG();
			if (get_milli(&threshold, *argv) || !threshold ||
			    threshold > DECBIT_THRESHOLD_MAX)
				return bad("threshold", *argv);
			have_threshold = true;
		} else if (strcmp(*argv, "hysteresis") == 0) {
			NEXT_ARG();
			if (get_milli(&hyst, *argv))
				return bad("hysteresis", *argv);
			have_hyst = true;
		} else if (strcmp(*argv, "rate") == 0) {
			NEXT_ARG();
			if (strcmp(*argv, "0") &&
			    cav_get_rate(&rate, *argv, DECBIT_RATE_MAX))
				return bad("rate", *argv);
			have_rate = true;
		} else if (strcmp(*argv, "catchup") == 0) {
			NEXT_ARG();
			if (cav_get_time_ns(&catchup, *argv, 0,
					    DECBIT_CATCHUP_MAX))
				return bad("catchup", *argv);
			have_catchup = true;
		} else if (strcmp(*argv, "nonect") == 0) {
			NEXT_ARG();
			if (strcmp(*argv, "pass") == 0)
				nonect = TC_DECBIT_NONECT_PASS;
			else if (strcmp(*argv, "drop") == 0)
				nonect = TC_DECBIT_NONECT_DROP;
			else
				return bad("nonect", *argv);
		} else if (strcmp(*argv, "pool") == 0) {
			NEXT_ARG();
			if (get_u32(&pool, *argv, 0))
				return bad("pool", *argv);
			have_pool = true;
		} else if (strcmp(*argv, "pool_limit") == 0) {
			NEXT_ARG();
			if (cav_get_packets(&pool_limit, *argv,
					    DECBIT_LIMIT_MAX))
				return bad("pool_limit", *argv);
		} else if (strcmp(*argv, "ibl") == 0) {
			NEXT_ARG();
			if (get_fixed(&ibl, *argv, 6) || !ibl ||
			    ibl > DECBIT_IBL_MAX)
				return bad("ibl", *argv);
		} else if (strcmp(*argv, "input") == 0) {
			int idx;

			NEXT_ARG();
			idx = ll_name_to_index(*argv);
			if (!idx) {
				fprintf(stderr, "decbit: no such input device \"%s\"\n",
					*argv);
				return -1;
			}
			if (n_inputs == DECBIT_INPUT_MAX) {
				fprintf(stderr, "decbit: at most %d input devices\n",
					DECBIT_INPUT_MAX);
				return -1;
			}
			inputs[n_inputs++] = idx;
			have_inputs = true;
		} else if (strcmp(*argv, "noinput") == 0) {
			n_inputs = 0;
			have_inputs = true;
		} else if (strcmp(*argv, "help") == 0) {
			explain();
			return -1;
		} else {
			fprintf(stderr, "decbit: unknown parameter \"%s\"\n", *argv);
			explain();
			return -1;
		}
		argc--;
		argv++;
	}
	/*
	 * Without a threshold in the same command the kernel checks the
	 * hysteresis against the qdisc's own (a change need not repeat it).
	 */
	if (have_hyst && have_threshold && hyst >= 2ULL * threshold) {
		fprintf(stderr, "decbit: hysteresis must be less than twice the threshold\n");
		explain();
		return -1;
	}

	tail = addattr_nest(n, 1024, TCA_OPTIONS | NLA_F_NESTED);
	if (limit)
		addattr_l(n, 1024, TCA_DECBIT_LIMIT, &limit, sizeof(limit));
	if (have_threshold)
		addattr_l(n, 1024, TCA_DECBIT_THRESHOLD, &threshold,
			  sizeof(threshold));
	if (have_hyst)
		addattr_l(n, 1024, TCA_DECBIT_HYSTERESIS, &hyst, sizeof(hyst));
	if (have_rate)
		addattr_l(n, 1024, TCA_DECBIT_RATE, &rate, sizeof(rate));
	if (have_catchup)
		addattr_l(n, 1024, TCA_DECBIT_CATCHUP, &catchup,
			  sizeof(catchup));
	if (nonect >= 0)
		addattr8(n, 1024, TCA_DECBIT_NONECT, nonect);
	if (have_pool)
		addattr32(n, 1024, TCA_DECBIT_POOL, pool);
	if (pool_limit)
		addattr32(n, 1024, TCA_DECBIT_POOL_LIMIT, pool_limit);
	if (ibl)
		addattr32(n, 1024, TCA_DECBIT_IBL, ibl);
	if (have_inputs)
		addattr_l(n, 1024, TCA_DECBIT_INPUT, inputs,
			  n_inputs * sizeof(inputs[0]));
	addattr_nest_end(n, tail);
	return 0;
}

/*
 * A fixed-point option of @digits decimals, the inverse of get_fixed():
 * JSON a number, the text the exact decimal tc parses back ("%g" printed
 * 1e-06 and 1e+06, which tc refused, and 1234.57 for 1234.567).
 */
static void print_fixed(const char *key, __u32 v, int digits)
{
	unsigned int scale = 1;
	char buf[32];
	int i, n;

	for (i = 0; i < digits; i++)
		scale *= 10;
	print_float(PRINT_JSON, key, NULL, (double)v / scale);
	n = snprintf(buf, sizeof(buf), "%u.%0*u", v / scale, digits, v % scale);
	while (buf[n - 1] == '0')
		buf[--n] = '\0';
	if (buf[n - 1] == '.')
		buf[--n] = '\0';
	print_string(PRINT_FP, NULL, "%s ", key);
	print_string(PRINT_FP, NULL, "%s ", buf);
}

static int decbit_print_opt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_DECBIT_MAX + 1];
	__u64 rate = 0;

	if (!opt)
		return 0;
	parse_rtattr_nested(tb, TCA_DECBIT_MAX, opt);

	if (tb[TCA_DECBIT_LIMIT] && RTA_PAYLOAD(tb[TCA_DECBIT_LIMIT]) >= 4)
		print_uint(PRINT_ANY, "limit", "limit %up ",
			   rta_getattr_u32(tb[TCA_DECBIT_LIMIT]));
	if (tb[TCA_DECBIT_THRESHOLD] &&
	    RTA_PAYLOAD(tb[TCA_DECBIT_THRESHOLD]) >= 4)
		print_fixed("threshold",
			    rta_getattr_u32(tb[TCA_DECBIT_THRESHOLD]), 3);
	if (tb[TCA_DECBIT_HYSTERESIS] &&
	    RTA_PAYLOAD(tb[TCA_DECBIT_HYSTERESIS]) >= 4)
		print_fixed("hysteresis",
			    rta_getattr_u32(tb[TCA_DECBIT_HYSTERESIS]), 3);
	if (tb[TCA_DECBIT_RATE] && RTA_PAYLOAD(tb[TCA_DECBIT_RATE]) >= 8)
		rate = rta_getattr_u64(tb[TCA_DECBIT_RATE]);
	if (rate)
		tc_print_rate(PRINT_ANY, "rate", "rate %s ", rate);
	else
		print_uint(PRINT_ANY, "rate", "rate %u ", 0);
	if (tb[TCA_DECBIT_CATCHUP] && RTA_PAYLOAD(tb[TCA_DECBIT_CATCHUP]) >= 4)
		cav_print_time("catchup",
			       rta_getattr_u32(tb[TCA_DECBIT_CATCHUP]));
	if (tb[TCA_DECBIT_NONECT] && RTA_PAYLOAD(tb[TCA_DECBIT_NONECT]) >= 1)
		print_string(PRINT_ANY, "nonect", "nonect %s ",
			     rta_getattr_u8(tb[TCA_DECBIT_NONECT]) ==
			     TC_DECBIT_NONECT_DROP ? "drop" : "pass");
	if (tb[TCA_DECBIT_POOL] && RTA_PAYLOAD(tb[TCA_DECBIT_POOL]) >= 4)
		print_uint(PRINT_ANY, "pool", "pool %u ",
			   rta_getattr_u32(tb[TCA_DECBIT_POOL]));
	if (tb[TCA_DECBIT_POOL_LIMIT] &&
	    RTA_PAYLOAD(tb[TCA_DECBIT_POOL_LIMIT]) >= 4)
		print_uint(PRINT_ANY, "pool_limit", "pool_limit %up ",
			   rta_getattr_u32(tb[TCA_DECBIT_POOL_LIMIT]));
	if (tb[TCA_DECBIT_IBL] && RTA_PAYLOAD(tb[TCA_DECBIT_IBL]) >= 4)
		print_fixed("ibl", rta_getattr_u32(tb[TCA_DECBIT_IBL]), 6);
	if (tb[TCA_DECBIT_INPUT]) {
		const __u32 *idx = RTA_DATA(tb[TCA_DECBIT_INPUT]);
		int i, n = RTA_PAYLOAD(tb[TCA_DECBIT_INPUT]) / sizeof(__u32);

		open_json_array(PRINT_JSON, "input");
		for (i = 0; i < n; i++) {
			const char *name = ll_index_to_name(idx[i]);

			print_string(PRINT_JSON, NULL, NULL, name);
			print_string(PRINT_FP, NULL, "input %s ", name);
		}
		close_json_array(PRINT_JSON, NULL);
	}
	return 0;
}

/* the xstats' length up to and including MEMBER */
#define XSTATS_END(member) (offsetof(struct tc_decbit_xstats, member) + \
			    sizeof(((struct tc_decbit_xstats *)0)->member))

static int decbit_print_xstats(struct qdisc_util *qu, FILE *f,
			       struct rtattr *xstats)
{
	struct tc_decbit_xstats st = { 0 };
	/* a module without input buffer limits sends the first 48 bytes */
	const unsigned int base = offsetof(struct tc_decbit_xstats, ibl_dropped);
	unsigned int len;

	if (!xstats)
		return 0;
	len = RTA_PAYLOAD(xstats);
	if (len < base)
		return -1;
	memcpy(&st, RTA_DATA(xstats), len < sizeof(st) ? len : sizeof(st));

	print_float(PRINT_ANY, "avg", " avg %.3f", st.avg / 1000.0);
	print_uint(PRINT_ANY, "congested", " congested %u", st.congested);
	print_u64(PRINT_ANY, "marked", " marked %llu", st.marked);
	print_u64(PRINT_ANY, "nonect_passed", " nonect_passed %llu",
		  st.nonect_passed);
	print_u64(PRINT_ANY, "nonect_dropped", " nonect_dropped %llu",
		  st.nonect_dropped);
	print_u64(PRINT_ANY, "overlimit_dropped", " overlimit_dropped %llu",
		  st.overlimit_dropped);
	print_u64(PRINT_ANY, "cycles", " cycles %llu", st.cycles);
	if (len < XSTATS_END(input_qlen))
		return 0;
	print_u64(PRINT_ANY, "ibl_dropped", " ibl_dropped %llu", st.ibl_dropped);
	print_u64(PRINT_ANY, "pool_dropped", " pool_dropped %llu",
		  st.pool_dropped);
	print_uint(PRINT_ANY, "pool_used", " pool_used %u", st.pool_used);
	print_uint(PRINT_ANY, "pool_input", " pool_input %u", st.pool_input);
	print_uint(PRINT_ANY, "pool_input_limit", " pool_input_limit %u",
		   st.pool_input_limit);
	print_uint(PRINT_ANY, "input_qlen", " input_qlen %u", st.input_qlen);
	/* a module before the lost time counter stops here */
	if (len < XSTATS_END(lost_ns))
		return 0;
	print_u64(PRINT_ANY, "lost_ns", " lost_ns %llu", st.lost_ns);
	return 0;
}

struct qdisc_util decbit_qdisc_util = {
	.id		= "decbit",
	.parse_qopt	= decbit_parse_opt,
	.print_qopt	= decbit_print_opt,
	.print_xstats	= decbit_print_xstats,
};
