/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-ins for the few kernel types and helpers the algorithm
 * cores use, so that each core header compiles unchanged into its module
 * and into its unit test.  Never included by kernel code.
 */
#ifndef _CONGAVOID_USER_H
#define _CONGAVOID_USER_H

#ifdef __KERNEL__
#error "congavoid_user.h is for userspace unit tests only"
#endif

#include <stdbool.h>
#include <stdint.h>

/* the kernel's types (asm-generic/int-ll64.h): u64 is long long everywhere */
typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef int s32;
typedef long long s64;

#define BIT(n)		(1UL << (n))
#define BIT_ULL(n)	(1ULL << (n))
#define U32_MAX		((u32)~0U)
#define U64_MAX		((u64)~0ULL)
/* as vdso/time64.h: long, so 32 bits wide on a 32-bit kernel */
#define NSEC_PER_USEC	1000L
#define NSEC_PER_MSEC	1000000L
#define NSEC_PER_SEC	1000000000L

#define min_t(type, a, b)	((type)(a) < (type)(b) ? (type)(a) : (type)(b))
#define max_t(type, a, b)	((type)(a) > (type)(b) ? (type)(a) : (type)(b))
#define clamp_t(type, v, lo, hi)	min_t(type, max_t(type, v, lo), hi)

/*
 * CONGAVOID_DIV_EXTERN (tools/unit's 32-bit check): the kernel's division
 * helpers are only declared, as the kernel's are out of line or in asm
 * there, so that a 32-bit build of a core that references __udivdi3 and
 * friends did a plain 64-bit '/' or '%' of its own.
 */
#ifdef CONGAVOID_DIV_EXTERN
u64 div64_u64(u64 a, u64 b);
u64 div_u64(u64 a, u32 b);
u64 mul_u64_u64_div_u64(u64 a, u64 b, u64 c);
u64 mul_u64_u32_shr(u64 a, u32 mul, unsigned int shift);
#else
static inline u64 div64_u64(u64 a, u64 b)
{
	return a / b;
}

static inline u64 div_u64(u64 a, u32 b)
{
	return a / b;
}

static inline u64 mul_u64_u64_div_u64(u64 a, u64 b, u64 c)
{
	return (u64)((unsigned __int128)a * b / c);
}

static inline u64 mul_u64_u32_shr(u64 a, u32 mul, unsigned int shift)
{
	return (u64)(((unsigned __int128)a * mul) >> shift);
}
#endif

#endif /* _CONGAVOID_USER_H */
