/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Option parsing shared by the congavoid tc plugins: the forms they print
 * must read back (a dump replays), and no value may wrap on the way in.
 */
#ifndef _CONGAVOID_TC_H
#define _CONGAVOID_TC_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifdef CONGAVOID_TC_IPROUTE2
/* the cross-check build, against iproute2's source (tools/tc/Makefile) */
#include "utils.h"
#include "json_print.h"
#include "ll_map.h"
#include "tc_util.h"
#endif
#include "tc_abi.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* A packet count in 1..@max, "N" or "Np" (as the plugins print it). */
static inline int cav_get_packets(__u32 *val, const char *s, __u32 max)
{
	char buf[16];
	size_t n = strlen(s);

	if (n && n < sizeof(buf) && s[n - 1] == 'p') {
		memcpy(buf, s, n - 1);
		buf[n - 1] = '\0';
		s = buf;
	}
	if (get_u32(val, s, 0) || !*val || *val > max)
		return -1;
	return 0;
}

/*
 * A rate in bytes/s, at most @max.  tc's get_rate64() converts a double to
 * __u64 unchecked (a rate beyond 2^64 bit/s comes back as garbage, 0
 * among others), so first make sure the number is finite and not negative,
 * and price its unit alone (a million of them, so that "bit" does not round
 * to 0): a whole far beyond @max is refused before get_rate64() sees it.
 */
static inline int cav_get_rate(__u64 *rate, const char *s, __u64 max)
{
	__u64 per_million;
	char unit[64];
	char *end;
	double x;

	x = strtod(s, &end);
	if (end == s || !isfinite(x) || x < 0)
		return -1;
	if (strlen(end) >= sizeof(unit) - sizeof("1000000"))
		return -1;
	snprintf(unit, sizeof(unit), "1000000%s", end);
	if (get_rate64(&per_million, unit))
		return -1;
	if (x * (per_million / 1e6) > 2.0 * max)
		return -1;
	if (get_rate64(rate, s) || *rate > max)
		return -1;
	return 0;
}

/*
 * A time in nanoseconds, rounded to the nearest one, within [min, max].
 * Units as in tc(8) plus "ns"; a bare number is in microseconds.
 */
static inline int cav_get_time_ns(__u32 *val, const char *s, __u32 min, __u32 max)
{
	static const struct {
		const char *name;
		double ns;
	} units[] = {
		{ "s", 1e9 }, { "sec", 1e9 }, { "secs", 1e9 },
		{ "ms", 1e6 }, { "msec", 1e6 }, { "msecs", 1e6 },
		{ "us", 1e3 }, { "usec", 1e3 }, { "usecs", 1e3 },
		{ "ns", 1 }, { "nsec", 1 }, { "nsecs", 1 },
		{ "", 1e3 },
	};
	char *end;
	double t;
	size_t i;

	t = strtod(s, &end);
	if (end == s || !isfinite(t) || t < 0)
		return -1;
	for (i = 0; i < ARRAY_SIZE(units); i++)
		if (strcasecmp(end, units[i].name) == 0)
			break;
	if (i == ARRAY_SIZE(units))
		return -1;
	t = floor(t * units[i].ns + 0.5);
	if (t < min || t > max)
		return -1;
	*val = t;
	return 0;
}

/*
 * Text: "hoprtt 4ms", in the largest unit that holds the value exactly
 * ("12345us", not tc's three digits "12.3ms"), so that a dump replays to
 * the same value; JSON: "hoprtt": 4000000 (ns, as q_fq's timer_slack).
 */
static inline void cav_print_time(const char *key, __u32 ns)
{
	static const struct {
		const char *name;
		__u32 ns;
	} units[] = { { "s", 1000000000 }, { "ms", 1000000 }, { "us", 1000 } };
	char b1[32];
	size_t i;

	snprintf(b1, sizeof(b1), "%uns", ns);
	for (i = 0; ns && i < ARRAY_SIZE(units); i++)
		if (ns % units[i].ns == 0) {
			snprintf(b1, sizeof(b1), "%u%s", ns / units[i].ns,
				 units[i].name);
			break;
		}
	print_uint(PRINT_JSON, key, NULL, ns);
	print_string(PRINT_FP, NULL, "%s ", key);
	print_string(PRINT_FP, NULL, "%s ", b1);
}

#endif /* _CONGAVOID_TC_H */
