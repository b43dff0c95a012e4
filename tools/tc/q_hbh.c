// SPDX-License-Identifier: GPL-2.0
/*
 * q_hbh.c	tc plugin for the "hbh" qdisc (sch_hbh): hop-by-hop rate
 *		control after Mishra & Kanakia.
 *
 * Loaded by tc from $TC_LIB_DIR or its library directory (Debian:
 * /usr/lib/x86_64-linux-gnu/tc) as q_hbh.so; it uses tc's
 * own helpers, so it is built against the iproute2 headers of that tc.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <stdint.h>
#include <arpa/inet.h>

#include <congavoid/tc_hbh.h>
#include "congavoid_tc.h"

static const char * const hbh_modes[] = {
	[TC_HBH_MODE_HBH]	= "hbh",
	[TC_HBH_MODE_E2E]	= "e2e",
	[TC_HBH_MODE_FIFO]	= "fifo",
};

static void explain(void)
{
	fprintf(stderr,
		"Usage: ... hbh rate RATE [ limit PACKETS ] [ flow_limit PACKETS ]\n"
		"               [ setpoint PACKETS | setpoint dynamic ] [ period TIME ]\n"
		"               [ alpha A ] [ beta B ] [ rise RATE ] [ rate_min RATE ]\n"
		"               [ hoprtt TIME ] [ mode hbh|e2e|fifo ]\n"
		"               [ key HEX | nokey ] [ ethertype 0xNNNN ]\n"
		"  rate        link rate C (e.g. 10mbit); required when the qdisc is created\n"
		"  limit       packets queued in total, 1..%u (default %u)\n"
		"  flow_limit  packets queued per flow, 1..%u (default %u)\n"
		"  setpoint    target queue x* per flow, packets, at most limit and\n"
		"              flow_limit (default %u); \"dynamic\": the flow's share\n"
		"              of limit in proportion to its share of the rate\n"
		"  period      feedback period T, %uus..%us (default %gms)\n"
		"  alpha       estimator gain, 0 < A <= 1, in 1/%u (default %.3g)\n"
		"  beta        controller gain, 0 < B <= 1, in 1/%u (default %.3g)\n"
		"  rise        gradual-start step per period, at most rate;\n"
		"              \"default\" (or 0): rate/%u, following rate\n"
		"  rate_min    lowest controlled rate, at most rate;\n"
		"              \"default\": rate/%u, following rate\n"
		"  hoprtt      feedback loop delay, %uus..%us (default %gms)\n"
		"  mode        hbh: every hop controls; e2e: only the source;\n"
		"              fifo: one shaped drop-tail queue, no feedback\n"
		"              (default %s)\n"
		"  key         the link's key, 32 or 64 hex digits (128 or 256 bits),\n"
		"              the same on both neighbours: reports are tagged and\n"
		"              checked (keyed BLAKE2s), replays refused; never shown\n"
		"  nokey       reports unauthenticated (the default); a dump's\n"
		"              \"unauthenticated\" means the same, its \"keyed\"\n"
		"              keeps the key in use\n"
		"  ethertype   of the reports, at creation only (default 0x%04x)\n"
		"  TIME takes s, ms, us or ns; a bare number is in microseconds.\n",
		HBH_LIMIT_MAX, HBH_LIMIT_DEFAULT,
		HBH_LIMIT_MAX, HBH_FLOW_LIMIT_DEFAULT, HBH_SETPOINT_DEFAULT,
		HBH_PERIOD_MIN / 1000, HBH_PERIOD_MAX / 1000000000,
		HBH_PERIOD_DEFAULT / 1e6,
		HBH_SCALE, (double)HBH_ALPHA_DEFAULT / HBH_SCALE,
		HBH_SCALE, (double)HBH_BETA_DEFAULT / HBH_SCALE,
		HBH_RISE_DIVISOR, HBH_RATE_MIN_DIVISOR,
		HBH_HOPRTT_MIN / 1000, HBH_HOPRTT_MAX / 1000000000,
		HBH_HOPRTT_DEFAULT / 1e6, hbh_modes[HBH_MODE_DEFAULT],
		HBH_ETH_P);
}

/* "key HEX": 32 or 64 hex digits, nothing else */
static int get_key(__u8 *key, unsigned int *len, const char *s)
{
	size_t n = strlen(s);
	unsigned int i;

	if (n != 2 * HBH_KEY_MIN && n != 2 * HBH_KEY_MAX)
		return -1;
	for (i = 0; i < n / 2; i++) {
		char b[3] = { s[2 * i], s[2 * i + 1], 0 };
		char *end;

		if (!isxdigit((unsigned char)b[0]) ||
		    !isxdigit((unsigned char)b[1]))
			return -1;
		key[i] = (__u8)strtoul(b, &end, 16);
	}
	*len = n / 2;
	return 0;
}

static int bad(const char *what, const char *arg)
{
	fprintf(stderr, "hbh: illegal %s \"%s\"\n", what, arg);
	explain();
	return -1;
}

static int conflict(const char *msg)
{
	fprintf(stderr, "hbh: %s\n", msg);
	explain();
	return -1;
}

/* A gain in (0, 1] as a multiple of 1/HBH_SCALE, rounded to the nearest. */
static int get_gain(__u32 *val, const char *s)
{
	char *end;
	double g;

	g = strtod(s, &end);
	if (end == s || *end || !isfinite(g) || g <= 0 || g > 1)
		return -1;
	*val = floor(g * HBH_SCALE + 0.5);
	return *val ? 0 : -1;
}

static int get_packets(__u32 *val, const char *s)
{
	return cav_get_packets(val, s, HBH_LIMIT_MAX);
}

static int hbh_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			 struct nlmsghdr *n, const char *dev)
{
	bool have_rate = false, have_rise = false, have_setpoint = false;
	bool have_rate_min = false, have_key = false;
	__u8 key[HBH_KEY_MAX];
	unsigned int key_len = 0, ethertype = 0;
	__u32 limit = 0, flow_limit = 0, setpoint = 0;
	__u32 period = 0, hoprtt = 0, alpha = 0, beta = 0;
	__u64 rate = 0, rise = 0, rate_min = 0;
	struct rtattr *tail;
	int mode = -1;
	size_t i;

	while (argc > 0) {
		if (strcmp(*argv, "rate") == 0) {
			NEXT_ARG();
			if (cav_get_rate(&rate, *argv, HBH_RATE_MAX) || !rate)
				return bad("rate", *argv);
			have_rate = true;
		} else if (strcmp(*argv, "limit") == 0) {
			NEXT_ARG();
			if (get_packets(&limit, *argv))
				return bad("limit", *argv);
		} else if (strcmp(*argv, "flow_limit") == 0) {
			NEXT_ARG();
			if (get_packets(&flow_limit, *argv))
				return bad("flow_limit", *argv);
		} else if (strcmp(*argv, "setpoint") == 0) {
			NEXT_ARG();
			if (strcmp(*argv, "dynamic") == 0)
				setpoint = 0;
			else if (get_packets(&setpoint, *argv))
				return bad("setpoint", *argv);
			have_setpoint = true;
		} else if (strcmp(*argv, "period") == 0) {
			NEXT_ARG();
			if (cav_get_time_ns(&period, *argv, HBH_PERIOD_MIN,
					HBH_PERIOD_MAX))
				return bad("period", *argv);
		} else if (strcmp(*argv, "hoprtt") == 0) {
			NEXT_ARG();
			if (cav_get_time_ns(&hoprtt, *argv, HBH_HOPRTT_MIN,
					HBH_HOPRTT_MAX))
				return bad("hoprtt", *argv);
		} else if (strcmp(*argv, "alpha") == 0) {
			NEXT_ARG();
			if (get_gain(&alpha, *argv))
				return bad("alpha", *argv);
		} else if (strcmp(*argv, "beta") == 0) {
			NEXT_ARG();
			if (get_gain(&beta, *argv))
				return bad("beta", *argv);
		} else if (strcmp(*argv, "rise") == 0) {
			NEXT_ARG();
			if (strcmp(*argv, "default") == 0)
				rise = 0;	/* rate/64, following rate */
			else if (cav_get_rate(&rise, *argv, HBH_RATE_MAX))
				return bad("rise", *argv);
			have_rise = true;
		} else if (strcmp(*argv, "rate_min") == 0) {
			NEXT_ARG();
			if (strcmp(*argv, "default") == 0)
				rate_min = 0;	/* rate/1024, following rate */
			else if (cav_get_rate(&rate_min, *argv, HBH_RATE_MAX) ||
				 !rate_min)
				return bad("rate_min", *argv);
			have_rate_min = true;
		} else if (strcmp(*argv, "mode") == 0) {
			NEXT_ARG();
			for (i = 0; i < ARRAY_SIZE(hbh_modes); i++)
				if (strcmp(*argv, hbh_modes[i]) == 0)
					break;
			if (i == ARRAY_SIZE(hbh_modes))
				return bad("mode", *argv);
			mode = i;
		} else if (strcmp(*argv, "key") == 0) {
			NEXT_ARG();
			if (get_key(key, &key_len, *argv)) {
				fprintf(stderr,
					"hbh: key must be 32 or 64 hex digits\n");
				return -1;
			}
			have_key = true;
		} else if (strcmp(*argv, "nokey") == 0 ||
			   strcmp(*argv, "unauthenticated") == 0) {
			/* "unauthenticated": as a dump prints it */
			key_len = 0;
			have_key = true;
		} else if (strcmp(*argv, "keyed") == 0) {
			/* as a dump prints it: the key in use stays */
		} else if (strcmp(*argv, "ethertype") == 0) {
			char *end;

			NEXT_ARG();
			ethertype = strtoul(*argv, &end, 16);
			if (*end || end == *argv || ethertype < HBH_ETHERTYPE_MIN ||
			    ethertype > 0xffff)
				return bad("ethertype", *argv);
		} else if (strcmp(*argv, "help") == 0) {
			explain();
			return -1;
		} else {
			fprintf(stderr, "hbh: unknown parameter \"%s\"\n", *argv);
			explain();
			return -1;
		}
		argc--;
		argv++;
	}

	/* What the kernel would refuse anyway, when both sides are given. */
	if (have_rate && rate_min > rate)
		return conflict("rate_min must not exceed rate");
	if (have_rate && rise > rate)
		return conflict("rise must not exceed rate");
	if (setpoint && limit && setpoint > limit)
		return conflict("setpoint must not exceed limit");
	if (setpoint && flow_limit && setpoint > flow_limit)
		return conflict("setpoint must not exceed flow_limit");

	tail = addattr_nest(n, 1024, TCA_OPTIONS | NLA_F_NESTED);
	if (have_rate)
		addattr_l(n, 1024, TCA_HBH_RATE, &rate, sizeof(rate));
	if (limit)
		addattr_l(n, 1024, TCA_HBH_LIMIT, &limit, sizeof(limit));
	if (flow_limit)
		addattr_l(n, 1024, TCA_HBH_FLOW_LIMIT, &flow_limit,
			  sizeof(flow_limit));
	if (have_setpoint)
		addattr_l(n, 1024, TCA_HBH_SETPOINT, &setpoint,
			  sizeof(setpoint));
	if (period)
		addattr_l(n, 1024, TCA_HBH_PERIOD, &period, sizeof(period));
	if (alpha)
		addattr_l(n, 1024, TCA_HBH_ALPHA, &alpha, sizeof(alpha));
	if (beta)
		addattr_l(n, 1024, TCA_HBH_BETA, &beta, sizeof(beta));
	if (have_rise)
		addattr_l(n, 1024, TCA_HBH_RISE, &rise, sizeof(rise));
	if (have_rate_min)
		addattr_l(n, 1024, TCA_HBH_RATE_MIN, &rate_min,
			  sizeof(rate_min));
	if (hoprtt)
		addattr_l(n, 1024, TCA_HBH_HOPRTT, &hoprtt, sizeof(hoprtt));
	if (mode >= 0)
		addattr8(n, 1024, TCA_HBH_MODE, mode);
	if (have_key)
		addattr_l(n, 1024, TCA_HBH_KEY, key, key_len);
	if (ethertype)
		addattr16(n, 1024, TCA_HBH_ETHERTYPE, ethertype);
	addattr_nest_end(n, tail);
	memset(key, 0, sizeof(key));
	return 0;
}

/*
 * rise and rate_min: a value that follows rate (configured 0) prints as
 * "default" so that the dump replays to the same state; JSON has the value
 * in use and "<name>_derived": true.
 */
static void hbh_print_derivable(const char *name, struct rtattr *a,
				bool derived)
{
	char key[32];

	if (!a || RTA_PAYLOAD(a) < 8)
		return;
	print_string(PRINT_FP, NULL, "%s ", name);
	if (derived) {
		print_string(PRINT_FP, NULL, "%s ", "default");
		tc_print_rate(PRINT_JSON, name, NULL, rta_getattr_u64(a));
		snprintf(key, sizeof(key), "%s_derived", name);
		print_bool(PRINT_JSON, key, NULL, true);
	} else {
		tc_print_rate(PRINT_ANY, name, "%s ", rta_getattr_u64(a));
	}
}

static int hbh_print_opt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_HBH_MAX + 1];
	__u8 mode, derived = 0;
	__u32 v;

	if (!opt)
		return 0;
	parse_rtattr_nested(tb, TCA_HBH_MAX, opt);

	if (tb[TCA_HBH_RATE] && RTA_PAYLOAD(tb[TCA_HBH_RATE]) >= 8)
		tc_print_rate(PRINT_ANY, "rate", "rate %s ",
			      rta_getattr_u64(tb[TCA_HBH_RATE]));
	if (tb[TCA_HBH_LIMIT] && RTA_PAYLOAD(tb[TCA_HBH_LIMIT]) >= 4)
		print_uint(PRINT_ANY, "limit", "limit %up ",
			   rta_getattr_u32(tb[TCA_HBH_LIMIT]));
	if (tb[TCA_HBH_FLOW_LIMIT] && RTA_PAYLOAD(tb[TCA_HBH_FLOW_LIMIT]) >= 4)
		print_uint(PRINT_ANY, "flow_limit", "flow_limit %up ",
			   rta_getattr_u32(tb[TCA_HBH_FLOW_LIMIT]));
	if (tb[TCA_HBH_SETPOINT] && RTA_PAYLOAD(tb[TCA_HBH_SETPOINT]) >= 4) {
		v = rta_getattr_u32(tb[TCA_HBH_SETPOINT]);
		if (v)
			print_uint(PRINT_ANY, "setpoint", "setpoint %up ", v);
		else
			print_string(PRINT_ANY, "setpoint", "setpoint %s ",
				     "dynamic");
	}
	if (tb[TCA_HBH_PERIOD] && RTA_PAYLOAD(tb[TCA_HBH_PERIOD]) >= 4)
		cav_print_time("period", rta_getattr_u32(tb[TCA_HBH_PERIOD]));
	if (tb[TCA_HBH_ALPHA] && RTA_PAYLOAD(tb[TCA_HBH_ALPHA]) >= 4)
		print_float(PRINT_ANY, "alpha", "alpha %g ",
			    rta_getattr_u32(tb[TCA_HBH_ALPHA]) /
			    (double)HBH_SCALE);
	if (tb[TCA_HBH_BETA] && RTA_PAYLOAD(tb[TCA_HBH_BETA]) >= 4)
		print_float(PRINT_ANY, "beta", "beta %g ",
			    rta_getattr_u32(tb[TCA_HBH_BETA]) /
			    (double)HBH_SCALE);
	if (tb[TCA_HBH_DERIVED] && RTA_PAYLOAD(tb[TCA_HBH_DERIVED]) >= 1)
		derived = rta_getattr_u8(tb[TCA_HBH_DERIVED]);
	hbh_print_derivable("rise", tb[TCA_HBH_RISE],
			    derived & TC_HBH_DERIVED_RISE);
	hbh_print_derivable("rate_min", tb[TCA_HBH_RATE_MIN],
			    derived & TC_HBH_DERIVED_RATE_MIN);
	if (tb[TCA_HBH_HOPRTT] && RTA_PAYLOAD(tb[TCA_HBH_HOPRTT]) >= 4)
		cav_print_time("hoprtt", rta_getattr_u32(tb[TCA_HBH_HOPRTT]));
	if (tb[TCA_HBH_MODE] && RTA_PAYLOAD(tb[TCA_HBH_MODE]) >= 1) {
		mode = rta_getattr_u8(tb[TCA_HBH_MODE]);
		if (mode < ARRAY_SIZE(hbh_modes))
			print_string(PRINT_ANY, "mode", "mode %s ",
				     hbh_modes[mode]);
		else
			print_uint(PRINT_ANY, "mode", "mode %u ", mode);
	}
	/* the key is never dumped: only whether there is one */
	if (tb[TCA_HBH_KEYED] && RTA_PAYLOAD(tb[TCA_HBH_KEYED]) >= 1) {
		bool keyed = rta_getattr_u8(tb[TCA_HBH_KEYED]);

		print_bool(PRINT_JSON, "keyed", NULL, keyed);
		print_string(PRINT_FP, NULL, "%s ",
			     keyed ? "keyed" : "unauthenticated");
	}
	if (tb[TCA_HBH_ETHERTYPE] && RTA_PAYLOAD(tb[TCA_HBH_ETHERTYPE]) >= 2)
		print_0xhex(PRINT_ANY, "ethertype", "ethertype %#06llx ",
			    rta_getattr_u16(tb[TCA_HBH_ETHERTYPE]));
	return 0;
}

/* one flow of "tc -s class show" */
static void hbh_print_flow(const struct tc_hbh_flow_xstats *st)
{
	static const char * const states[] = {
		[TC_HBH_FLOW_FREE]		= "free",
		[TC_HBH_FLOW_BASELINE]		= "baseline",
		[TC_HBH_FLOW_CONTROLLED]	= "controlled",
		[TC_HBH_FLOW_RELAY]		= "relay",
	};
	int af = st->key.family == HBH_FB_FAMILY_IPV6 ? AF_INET6 : AF_INET;
	char sa[INET6_ADDRSTRLEN], da[INET6_ADDRSTRLEN];
	SPRINT_BUF(b1);

	inet_ntop(af, st->key.saddr, sa, sizeof(sa));
	inet_ntop(af, st->key.daddr, da, sizeof(da));
	print_string(PRINT_ANY, "saddr", " flow %s", sa);
	print_uint(PRINT_ANY, "sport", ":%u", ntohs(st->key.sport));
	print_string(PRINT_ANY, "daddr", " > %s", da);
	print_uint(PRINT_ANY, "dport", ":%u", ntohs(st->key.dport));
	print_uint(PRINT_ANY, "proto", " proto %u", st->key.proto);
	if (st->state < ARRAY_SIZE(states))
		print_string(PRINT_ANY, "state", " %s", states[st->state]);
	else
		print_uint(PRINT_ANY, "state", " state %u", st->state);
	print_nl();
	tc_print_rate(PRINT_ANY, "rate", " rate %s", st->rate);
	tc_print_rate(PRINT_ANY, "mhat", " mhat %s", st->mhat);
	tc_print_rate(PRINT_ANY, "dep_rate", " dep_rate %s", st->dep_rate);
	print_int(PRINT_ANY, "xhat", " xhat %db",
		  (int)(st->xhat > INT32_MAX ? INT32_MAX :
			st->xhat < INT32_MIN ? INT32_MIN : st->xhat));
	print_uint(PRINT_ANY, "qlen", " qlen %up", st->qlen);
	print_uint(PRINT_ANY, "up_ifindex", " up_ifindex %u", st->up_ifindex);
	print_nl();
	print_u64(PRINT_ANY, "arrived", " arrived %llub", st->arrived);
	print_u64(PRINT_ANY, "departed", " departed %llub", st->departed);
	if (st->fb_age == UINT64_MAX) {
		print_null(PRINT_JSON, "fb_age", NULL, NULL);
		print_string(PRINT_FP, NULL, " fb_age %s", "never");
	} else {
		print_u64(PRINT_JSON, "fb_age", NULL, st->fb_age);
		print_string(PRINT_FP, NULL, " fb_age %s",
			     sprint_time64(st->fb_age, b1));
	}
}

static int hbh_print_xstats(struct qdisc_util *qu, FILE *f,
			    struct rtattr *xstats)
{
	struct tc_hbh_xstats st = { 0 };
	__u32 type;

	if (!xstats)
		return 0;
	if (RTA_PAYLOAD(xstats) < sizeof(type))
		return -1;
	type = rta_getattr_u32(xstats);
	/* a flow's (class) statistics */
	if (type == TC_HBH_XSTATS_FLOW) {
		struct tc_hbh_flow_xstats fst;

		if (RTA_PAYLOAD(xstats) < sizeof(fst))
			return -1;
		memcpy(&fst, RTA_DATA(xstats), sizeof(fst));
		hbh_print_flow(&fst);
		return 0;
	}
	/* the qdisc's; an older module's shorter ones: what it has */
	if (type != TC_HBH_XSTATS_QDISC ||
	    RTA_PAYLOAD(xstats) < offsetof(struct tc_hbh_xstats, fb_expired))
		return -1;
	memcpy(&st, RTA_DATA(xstats),
	       RTA_PAYLOAD(xstats) < sizeof(st) ? RTA_PAYLOAD(xstats) :
						  sizeof(st));

	print_uint(PRINT_ANY, "flows", " flows %u", st.flows);
	print_uint(PRINT_ANY, "throttled", " throttled %u", st.throttled);
	print_uint(PRINT_ANY, "controlled", " controlled %u", st.controlled);
	if (st.buckets)
		print_uint(PRINT_ANY, "buckets", " buckets %u", st.buckets);
	print_u64(PRINT_ANY, "fb_sent", " fb_sent %llu", st.fb_sent);
	print_u64(PRINT_ANY, "fb_received", " fb_received %llu",
		  st.fb_received);
	print_u64(PRINT_ANY, "fb_rejected", " fb_rejected %llu",
		  st.fb_rejected);
	print_u64(PRINT_ANY, "fb_entries_ignored", " fb_entries_ignored %llu",
		  st.fb_entries_ignored);
	print_nl();
	print_u64(PRINT_ANY, "overlimit_dropped", " overlimit_dropped %llu",
		  st.overlimit_dropped);
	print_u64(PRINT_ANY, "flow_dropped", " flow_dropped %llu",
		  st.flow_dropped);
	print_u64(PRINT_ANY, "flows_gc", " flows_gc %llu", st.flows_gc);
	print_u64(PRINT_ANY, "flow_overflow", " flow_overflow %llu",
		  st.flow_overflow);
	print_u64(PRINT_ANY, "fb_expired", " fb_expired %llu", st.fb_expired);
	if (RTA_PAYLOAD(xstats) >= offsetof(struct tc_hbh_xstats, fb_unsendable) +
				   sizeof(st.fb_unsendable)) {
		print_u64(PRINT_ANY, "fb_bytes", " fb_bytes %llu", st.fb_bytes);
		print_u64(PRINT_ANY, "fb_unsendable", " fb_unsendable %llu",
			  st.fb_unsendable);
	}
	if (RTA_PAYLOAD(xstats) >= offsetof(struct tc_hbh_xstats, fb_replay) +
				   sizeof(st.fb_replay)) {
		print_nl();
		print_u64(PRINT_ANY, "fb_badauth", " fb_badauth %llu",
			  st.fb_badauth);
		print_u64(PRINT_ANY, "fb_replay", " fb_replay %llu",
			  st.fb_replay);
	}
	return 0;
}

struct qdisc_util hbh_qdisc_util = {
	.id		= "hbh",
	.parse_qopt	= hbh_parse_opt,
	.print_qopt	= hbh_print_opt,
	.print_xstats	= hbh_print_xstats,
};
