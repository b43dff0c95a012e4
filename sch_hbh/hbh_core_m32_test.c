// SPDX-License-Identifier: GPL-2.0
/*
 * The per-packet transmission time of hbh_core.h computed as a 32-bit
 * kernel computes it: tools/unit builds this program for x86-64 and, with
 * gcc -m32, for i386, where long (and so NSEC_PER_SEC) is 32 bits wide.
 * Plain C with TAP output (no cmocka: it is not installed for i386); the
 * kernel's 64-bit division helpers are defined here without __int128.
 */
#include <stdio.h>

#define CONGAVOID_DIV_EXTERN
#include "hbh_core.h"

_Static_assert(sizeof(NSEC_PER_SEC) == sizeof(long),
	       "NSEC_PER_SEC is a long, as in the kernel");

u64 div64_u64(u64 a, u64 b)
{
	return a / b;
}

u64 div_u64(u64 a, u32 b)
{
	return a / b;
}

/* (a * mul) >> shift for shift <= 32, as the kernel's generic version */
u64 mul_u64_u32_shr(u64 a, u32 mul, unsigned int shift)
{
	u64 lo = (a & U32_MAX) * mul, hi = (a >> 32) * mul;

	if (!shift)
		return a * mul;
	return (lo >> shift) + (hi << (32 - shift));
}

static int n, failed;

static void check(int ok, const char *what, u64 got, u64 want)
{
	n++;
	if (ok) {
		printf("ok %d %s\n", n, what);
	} else {
		printf("not ok %d %s # got %llu, want %llu\n", n, what, got, want);
		failed = 1;
	}
}

#define CHECK_EQ(what, got, want) do {				\
	u64 g_ = (got), w_ = (want);				\
	check(g_ == w_, what, g_, w_);				\
} while (0)

int main(void)
{
	static const u64 rates[] = { 1, 3, 1220, 1250000, 1250000000ULL,
				     12345678901ULL, HBH_RATE_MAX };
	static const u32 lens[] = { 1, 60, 1499, 1500, 65535, 1 << 20,
				    U32_MAX };
	unsigned int i, j, bad = 0;

	printf("TAP version 13\n1..6\n# sizeof(long) %u\n",
	       (unsigned int)sizeof(long));
	/* 10^9 << 32 ns per byte at 1 B/s, then exact quotients of it */
	CHECK_EQ("recip_1_Bps", hbh_ns_recip(1), 4294967296000000000ULL);
	CHECK_EQ("recip_10_Mbit", hbh_ns_recip(1250000), 800ULL << 32);
	CHECK_EQ("recip_rate_max", hbh_ns_recip(HBH_RATE_MAX), 3906250);
	CHECK_EQ("len_ns_1500_at_10_Mbit", hbh_len_ns(1500, 1250000), 1200000);
	CHECK_EQ("len_ns_recip_1500_at_10_Mbit",
		 hbh_len_ns_recip(1500, hbh_ns_recip(1250000)), 1200000);
	/* through the reciprocal: never above hbh_len_ns(), at most 1 ns below */
	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
		for (j = 0; j < sizeof(lens) / sizeof(lens[0]); j++) {
			u64 x = hbh_len_ns(lens[j], rates[i]);
			u64 y = hbh_len_ns_recip(lens[j], hbh_ns_recip(rates[i]));

			if (y > x || x - y > 1) {
				printf("# len %u rate %llu: %llu, want %llu\n",
				       lens[j], rates[i], y, x);
				bad++;
			}
		}
	CHECK_EQ("len_ns_recip_within_1_ns", bad, 0);
	return failed;
}
