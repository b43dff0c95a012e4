/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Input buffer limit (S. S. Lam and Y. C. L. Lien, "Congestion Control of
 * Packet Communication Networks by Input Buffer Limits -- A Simulation
 * Study", IEEE Trans. Computers C-30(10), 1981).
 *
 * A router's N_T buffers form one pool shared by all its output queues.
 * Packets entering the network at this router (input: from its own hosts,
 * or originated locally) may hold at most N_I = floor(IBL * N_T) of them;
 * packets already in the network (transit) may take any free buffer.  An
 * input packet is checked against the input limit first, so a refusal that
 * the input limit alone explains is counted as such even when the pool is
 * also full.  With N_I >= N_T (IBL 1, the default) there is no input limit,
 * and every refusal is the full pool's.
 *
 * This file has no kernel-only calls: it is compiled into sch_decbit and
 * into its userspace unit test.
 */
#ifndef _DECBIT_POOL_H
#define _DECBIT_POOL_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/math64.h>
#else
#include "congavoid_user.h"
#endif

#define DECBIT_IBL_SCALE	1000000U	/* IBL in millionths */

enum decbit_pool_verdict {
	DECBIT_POOL_ADMIT,
	DECBIT_POOL_FULL,	/* no free buffer in the pool */
	DECBIT_POOL_IBL,	/* an input packet beyond N_I */
};

/* N_I = floor(IBL * N_T), @ibl in millionths (0..DECBIT_IBL_SCALE). */
static inline u32 decbit_pool_input_limit(u32 limit, u32 ibl)
{
	return (u32)div_u64((u64)limit * ibl, DECBIT_IBL_SCALE);
}

/*
 * May @n packets arriving together (the segments of one GSO packet) join a
 * pool that holds @used packets, @input of them input packets, with @limit
 * buffers of which input packets may hold @input_limit?  All or none: a
 * super-packet needs one buffer per segment.
 */
static inline enum decbit_pool_verdict
decbit_pool_admit_n(u32 used, u32 input, u32 limit, u32 input_limit,
		    bool is_input, u32 n)
{
	if (is_input && input_limit < limit &&
	    (u64)input + n > input_limit)
		return DECBIT_POOL_IBL;
	if ((u64)used + n > limit)
		return DECBIT_POOL_FULL;
	return DECBIT_POOL_ADMIT;
}

/* One packet. */
static inline enum decbit_pool_verdict
decbit_pool_admit(u32 used, u32 input, u32 limit, u32 input_limit,
		  bool is_input)
{
	return decbit_pool_admit_n(used, input, limit, input_limit, is_input, 1);
}

/*
 * sch_decbit keeps a pool's counts in one 64-bit word, the packets held in
 * the low 32 bits and the input packets among them in the high 32.  What
 * to add to it for @pkts packets, @input of them input (both negative to
 * remove them): the sum and the shift in u64, where wrapping is defined (a
 * left shift of a negative s64 is not).
 */
static inline s64 decbit_pool_held(s64 pkts, s64 input)
{
	return (s64)((u64)pkts + ((u64)input << 32));
}

#endif /* _DECBIT_POOL_H */
