// SPDX-License-Identifier: GPL-2.0
/*
 * q_decbit.c	tc plugin for the "decbit" qdisc (sch_decbit).
 *
 * Loaded by tc from $TC_LIB_DIR or /usr/lib/tc as q_decbit.so; it uses tc's
 * own helpers, so it is built against the iproute2 headers of that tc.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utils.h"
#include "tc_util.h"

#include <congavoid/tc_decbit.h>

static void explain(void)
{
	fprintf(stderr,
		"Usage: ... decbit [ limit PACKETS ] [ threshold PACKETS ] [ hysteresis PACKETS ]\n"
		"                  [ rate RATE ] [ nonect pass|drop ]\n"
		"  limit       1..%u packets (default 1000)\n"
		"  threshold   average queue length that turns marking on, packets,\n"
		"              0.001..1000000, up to 3 decimals (default 1)\n"
		"  hysteresis  marking on above threshold+H/2, off below threshold-H/2;\n"
		"              0 <= H < 2*threshold (default 0)\n"
		"  rate        serve the queue at RATE (e.g. 10mbit); 0 = unpaced (default)\n"
		"  nonect      non-ECT packets while congested: pass (default) or drop\n",
		DECBIT_LIMIT_MAX);
}

static int bad(const char *what, const char *arg)
{
	fprintf(stderr, "decbit: illegal %s \"%s\"\n", what, arg);
	explain();
	return -1;
}

/* "1", "0.5", "12.125": a non-negative number of packets in 1/1000 units. */
static int get_milli(__u32 *val, const char *s)
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
		if (*p < '0' || *p > '9' || frac >= 3)
			return -1;
		v = v * 10 + (*p - '0');
		if (frac >= 0)
			frac++;
		if (v > 0xffffffffULL)
			return -1;
	}
	for (frac = frac < 0 ? 0 : frac; frac < 3; frac++)
		v *= 10;
	if (v > 0xffffffffULL)
		return -1;
	*val = v;
	return 0;
}

static int decbit_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			    struct nlmsghdr *n, const char *dev)
{
	bool have_threshold = false, have_hyst = false;
	__u32 limit = 0, threshold = 0, hyst = 0;
	bool have_rate = false;
	int nonect = -1;
	__u64 rate = 0;
	struct rtattr *tail;

	while (argc > 0) {
		if (strcmp(*argv, "limit") == 0) {
			NEXT_ARG();
			if (get_u32(&limit, *argv, 0) || !limit ||
			    limit > DECBIT_LIMIT_MAX)
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
			if (**argv == '-' ||
			    (strcmp(*argv, "0") && get_rate64(&rate, *argv)))
				return bad("rate", *argv);
			have_rate = true;
		} else if (strcmp(*argv, "nonect") == 0) {
			NEXT_ARG();
			if (strcmp(*argv, "pass") == 0)
				nonect = TC_DECBIT_NONECT_PASS;
			else if (strcmp(*argv, "drop") == 0)
				nonect = TC_DECBIT_NONECT_DROP;
			else
				return bad("nonect", *argv);
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
	if (have_hyst &&
	    hyst >= 2ULL * (have_threshold ? threshold : 1000)) {
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
	if (nonect >= 0)
		addattr8(n, 1024, TCA_DECBIT_NONECT, nonect);
	addattr_nest_end(n, tail);
	return 0;
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
		print_float(PRINT_ANY, "threshold", "threshold %g ",
			    rta_getattr_u32(tb[TCA_DECBIT_THRESHOLD]) / 1000.0);
	if (tb[TCA_DECBIT_HYSTERESIS] &&
	    RTA_PAYLOAD(tb[TCA_DECBIT_HYSTERESIS]) >= 4)
		print_float(PRINT_ANY, "hysteresis", "hysteresis %g ",
			    rta_getattr_u32(tb[TCA_DECBIT_HYSTERESIS]) / 1000.0);
	if (tb[TCA_DECBIT_RATE] && RTA_PAYLOAD(tb[TCA_DECBIT_RATE]) >= 8)
		rate = rta_getattr_u64(tb[TCA_DECBIT_RATE]);
	if (rate)
		tc_print_rate(PRINT_ANY, "rate", "rate %s ", rate);
	else
		print_uint(PRINT_ANY, "rate", "rate %u ", 0);
	if (tb[TCA_DECBIT_NONECT] && RTA_PAYLOAD(tb[TCA_DECBIT_NONECT]) >= 1)
		print_string(PRINT_ANY, "nonect", "nonect %s ",
			     rta_getattr_u8(tb[TCA_DECBIT_NONECT]) ==
			     TC_DECBIT_NONECT_DROP ? "drop" : "pass");
	return 0;
}

static int decbit_print_xstats(struct qdisc_util *qu, FILE *f,
			       struct rtattr *xstats)
{
	struct tc_decbit_xstats st = { 0 };

	if (!xstats)
		return 0;
	if (RTA_PAYLOAD(xstats) < sizeof(st))
		return -1;
	memcpy(&st, RTA_DATA(xstats), sizeof(st));

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
	return 0;
}

struct qdisc_util decbit_qdisc_util = {
	.id		= "decbit",
	.parse_qopt	= decbit_parse_opt,
	.print_qopt	= decbit_print_opt,
	.print_xstats	= decbit_print_xstats,
};
