/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Netlink interface of the "decbit" qdisc (sch_decbit), shared by the kernel
 * module and the tc plugin q_decbit.so.
 */
#ifndef _UAPI_CONGAVOID_TC_DECBIT_H
#define _UAPI_CONGAVOID_TC_DECBIT_H

#include <linux/types.h>

enum {
	TCA_DECBIT_UNSPEC,
	TCA_DECBIT_LIMIT,	/* u32: packets, 1..DECBIT_LIMIT_MAX */
	TCA_DECBIT_THRESHOLD,	/* u32: C, 1/1000 packet, 1..DECBIT_THRESHOLD_MAX */
	TCA_DECBIT_HYSTERESIS,	/* u32: H, 1/1000 packet, < 2 * threshold */
	TCA_DECBIT_RATE,	/* u64: service rate, bytes/s; 0 = unpaced */
	TCA_DECBIT_NONECT,	/* u8: enum tc_decbit_nonect */
	TCA_DECBIT_PAD,
	TCA_DECBIT_POOL,	/* u32: buffer pool id in this netns; 0 = none */
	TCA_DECBIT_POOL_LIMIT,	/* u32: N_T, the pool's buffers, packets */
	TCA_DECBIT_IBL,		/* u32: input buffer limit, millionths of N_T */
	TCA_DECBIT_INPUT,	/* binary: u32 ifindexes whose arrivals are input */
	TCA_DECBIT_CATCHUP,	/* u32: ns, 0..DECBIT_CATCHUP_MAX; see below */
	__TCA_DECBIT_MAX
};

#define TCA_DECBIT_MAX	(__TCA_DECBIT_MAX - 1)

#define DECBIT_LIMIT_MAX	1000000U
#define DECBIT_THRESHOLD_MAX	1000000000U	/* 10^6 packets */
#define DECBIT_IBL_MAX		1000000U	/* IBL = 1 */
#define DECBIT_INPUT_MAX	16		/* input interfaces per qdisc */
#define DECBIT_RATE_MAX		(1ULL << 40)	/* bytes/s: 8.8 Tbit/s */
/*
 * With a rate: a packet that was waiting when the link freed up keeps up
 * to this much of the time a late dequeue cost it (a token bucket of this
 * depth): its service starts when the link freed up if the dequeue was
 * late by less, else this long before the dequeue, and only the excess is
 * link time lost (lost_ns).  A dequeue late by less than one service time
 * always starts when the link freed up; a packet that arrived to an idle
 * link starts at its dequeue.
 */
#define DECBIT_CATCHUP_MAX	100000000U	/* ns: 100 ms */

/* Defaults of the options left out at creation. */
#define DECBIT_LIMIT_DEFAULT		1000U	/* packets */
#define DECBIT_THRESHOLD_DEFAULT	1000U	/* 1 packet */
#define DECBIT_HYSTERESIS_DEFAULT	0U
#define DECBIT_RATE_DEFAULT		0ULL	/* unpaced */
#define DECBIT_NONECT_DEFAULT		TC_DECBIT_NONECT_PASS
#define DECBIT_IBL_DEFAULT		DECBIT_IBL_MAX
#define DECBIT_CATCHUP_DEFAULT		4000000U	/* ns: a jiffy at HZ=250 */

enum tc_decbit_nonect {
	TC_DECBIT_NONECT_PASS,	/* pass non-ECT packets while congested */
	TC_DECBIT_NONECT_DROP,	/* drop them instead of marking */
};

/* TCA_STATS_APP; newer members are only ever appended. */
struct tc_decbit_xstats {
	__u64 marked;		/* ECN-capable packets passed with CE set */
	__u64 nonect_passed;	/* non-ECT packets passed while congested */
	__u64 nonect_dropped;	/* non-ECT packets dropped while congested */
	__u64 overlimit_dropped; /* tail drops beyond limit */
	__u64 cycles;		/* completed regeneration cycles */
	__u32 avg;		/* average queue length, 1/1000 packet */
	__u32 congested;	/* 1 while arrivals are marked */
	/* input buffer limits (Lam & Lien); zero without a pool */
	__u64 ibl_dropped;	/* input packets refused: N_I input buffers held */
	__u64 pool_dropped;	/* packets refused: all N_T buffers held */
	__u32 pool_used;	/* buffers held in the pool, all its qdiscs */
	__u32 pool_input;	/* of which by input packets */
	__u32 pool_input_limit;	/* N_I = floor(IBL * N_T) */
	__u32 input_qlen;	/* input packets in this qdisc's queue */
	/* with a rate: link time late dequeues lost beyond catchup, ns */
	__u64 lost_ns;
};

#endif /* _UAPI_CONGAVOID_TC_DECBIT_H */
