// SPDX-License-Identifier: GPL-2.0
/*
 * Cases for tools/lint-div64 (run by tools/unit): every line marked BAD
 * must be reported and no other.  Never compiled.
 */
#define CASE_RATE_MAX	(8800000000000ULL / 8)
#define CASE_SCALE	1000U
#define CASE_ONE	BIT(10)
#define CASE_NS		4000

struct case_state {
	u64 bytes;
	u32 pkts;
	s64 delta, offset;
	ktime_t stamp;
	unsigned long long ull;
	u32 small[4];
	u64 big[4];
};

static u64 case_clock(void);

static u32 case_fn(struct case_state *s, u64 a, u32 b, u32 c)
{
	u64 x = a, y;
	u32 r = b, q;

	r = a / b;				/* BAD */
	r = b / a;				/* BAD */
	r = a % b;				/* BAD */
	x /= b;					/* BAD */
	x %= c;					/* BAD */
	r = s->bytes / s->pkts;			/* BAD */
	r = s->pkts / s->delta;			/* BAD */
	r = (u32)((u64)b * c / r);		/* BAD */
	r = (u32)(((u64)b * c + r / 2) / r);	/* BAD */
	r = b * (u64)c / r;			/* BAD */
	r = case_clock() / 1000;		/* BAD */
	r = READ_ONCE(s->bytes) / b;		/* BAD */
	r = min_t(u64, a, b) / c;		/* BAD */
	r = s->stamp / NSEC_PER_USEC;		/* BAD */
	r = s->ull / 3;				/* BAD */
	r = s->big[1] / b;			/* BAD */
	r = CASE_RATE_MAX / b;			/* BAD */
	r = 10000000000 / b;			/* BAD */
	r = b / 3ULL;				/* BAD */
	r = DIV_ROUND_UP(a, b);			/* BAD */
	r = (b + x) / c;			/* BAD */
	r = b / (c - x);			/* BAD */
	r = -s->offset / b;			/* BAD */

	/* fine: 32-bit operands, helpers, powers of two, narrowing casts */
	r = b / c;
	r = b % c;
	r = s->pkts / 3;
	r = s->small[1] / b;
	r = (u32)div_u64((u64)b * c, r);
	r = (u32)div64_u64(a, x);
	r = a / 2;
	r = a % 1024;
	r = a / CASE_ONE;
	r = (a + x) >> 10;
	r = (u32)a / b;
	r = (u32)(a >> 10) / b;
	r = b / (u32)a;
	r = clamp_t(u32, s->pkts / CASE_NS, 1, 64);
	r = sizeof(a) / sizeof(u32);
	r = (a > x) / b;
	r = b * CASE_SCALE / c;
	q = DIV_ROUND_UP(b, c);
	y = div_u64(a * b, c) >> 1;
	do_div(x, b);
	return r + q + (u32)y + (u32)x;
}
