/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DECbit router averaging over regeneration cycles (Ramakrishnan & Jain,
 * "A Binary Feedback Scheme for Congestion Avoidance in Computer Networks",
 * ACM TOCS 8(2), 1990, section 4).
 *
 * n(t) is the number of packets at the router: queued plus the one in
 * service.  A regeneration cycle is a busy period followed by an idle
 * period; a packet arriving at an empty, idle router starts a new one.  At
 * every arrival the average queue length is
 *
 *	avg = (A_prev + A_cur) / (T_prev + T_cur)
 *
 * where A_prev, T_prev are the area under n(t) and the length of the last
 * complete cycle, and A_cur, T_cur those of the current cycle so far.  The
 * router is congested while avg >= C; comparing A >= C * T needs no
 * division.  With a hysteresis H the state turns on at avg >= C + H/2 and
 * off at avg < C - H/2 (the paper's Fig. 2 comparison; H = 0 is its choice).
 *
 * Times are nanoseconds of a monotonic clock, areas packet-nanoseconds,
 * thresholds thousandths of a packet.  Nothing overflows for any input:
 * products are compared in 96 bits; the queue is below 2^21 packets (the
 * qdisc's limit bounds it), a single interval without any event adds at most
 * 2^41 ns (37 minutes) of area, and a cycle whose area reaches 2^62 (a busy
 * period of days) is halved with its length, which keeps the average.
 *
 * This file has no kernel-only calls: it is compiled into sch_decbit and
 * into its userspace unit test.
 */
#ifndef _DECBIT_AVG_H
#define _DECBIT_AVG_H

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/types.h>
#include <linux/math64.h>
#else
#include "congavoid_user.h"
#endif

#include <congavoid/tc_decbit.h>

#define DECBIT_SCALE		1000U		/* thresholds: 1/1000 packet */
#define DECBIT_HALVE_AT		BIT_ULL(62)
#define DECBIT_MAX_STEP		BIT_ULL(41)

struct decbit_avg {
	u64 prev_area;		/* A_prev, packet * ns */
	u64 prev_time;		/* T_prev, ns */
	u64 cur_area;		/* A_cur, packet * ns */
	u64 cycle_start;	/* r: start of the current cycle, ns */
	u64 last;		/* time up to which cur_area is accumulated */
	u64 busy_until;		/* end of service of the packet in service */
	u64 cycles;		/* completed cycles */
	bool congested;
	bool started;		/* an arrival has been seen */
};

struct decbit_params {
	u32 threshold;		/* C, 1/1000 packet, > 0 */
	u32 hysteresis;		/* H, 1/1000 packet, <= 2 * C */
};

/* The paper's choices, as the uapi header names them: C = 1, H = 0. */
static inline void decbit_params_init(struct decbit_params *p)
{
	p->threshold = DECBIT_THRESHOLD_DEFAULT;
	p->hysteresis = DECBIT_HYSTERESIS_DEFAULT;
}

static inline void decbit_avg_init(struct decbit_avg *a)
{
	*a = (struct decbit_avg){ 0 };
}

/* Is x * m >= y * k, in exact 96-bit arithmetic? */
static inline bool decbit_mul_ge(u64 x, u32 m, u64 y, u32 k)
{
	u64 xl = (x & 0xffffffffULL) * m, xh = (x >> 32) * m + (xl >> 32);
	u64 yl = (y & 0xffffffffULL) * k, yh = (y >> 32) * k + (yl >> 32);

	if (xh != yh)
		return xh > yh;
	return (u32)xl >= (u32)yl;
}

/* Halve a cycle that has grown to months; the average is kept. */
static inline void decbit_avg_rescale(struct decbit_avg *a, u64 now)
{
	u64 t_cur = now - a->cycle_start;

	a->prev_area >>= 1;
	a->prev_time >>= 1;
	a->cur_area >>= 1;
	a->cycle_start = now - (t_cur >> 1);
}

/*
 * Bring the area up to @now.  @qlen is the number of packets waiting (not
 * counting the one in service) since the last event.  The packet in service
 * leaves at busy_until without an event of its own, so an interval that
 * spans busy_until is split there.
 */
static inline void decbit_avg_add(struct decbit_avg *a, u32 n, u64 dt)
{
	a->cur_area += (u64)n * min_t(u64, dt, DECBIT_MAX_STEP);
}

static inline void decbit_avg_advance(struct decbit_avg *a, u64 now, u32 qlen)
{
	u64 t = a->last;

	if (!a->started || now <= t)
		return;
	if (a->busy_until > t) {
		u64 end = a->busy_until < now ? a->busy_until : now;

		decbit_avg_add(a, qlen + 1, end - t);
		t = end;
	}
	decbit_avg_add(a, qlen, now - t);
	a->last = now;
	if (a->cur_area >= DECBIT_HALVE_AT ||
	    a->prev_time + (now - a->cycle_start) >= DECBIT_HALVE_AT)
		decbit_avg_rescale(a, now);
}

/* Is avg >= level (1/1000 packet)?  False while no time has passed. */
static inline bool decbit_avg_at_least(const struct decbit_avg *a, u64 now,
				       u32 level)
{
	u64 area = a->prev_area + a->cur_area;
	u64 time = a->prev_time + (now - a->cycle_start);

	if (!time)
		return false;
	return decbit_mul_ge(area, DECBIT_SCALE, time, level);
}

/*
 * A packet arrives at @now with @qlen packets waiting.  Closes the cycle if
 * the router is empty and idle, then updates and returns the congestion
 * state that applies to this packet.
 */
static inline bool decbit_avg_arrival(struct decbit_avg *a,
				      const struct decbit_params *p,
				      u64 now, u32 qlen)
{
	u32 half = p->hysteresis / 2;

	if (!a->started) {
		a->started = true;
		a->cycle_start = now;
		a->last = now;
	}
	decbit_avg_advance(a, now, qlen);
	if (qlen == 0 && now >= a->busy_until && now > a->cycle_start) {
		a->prev_area = a->cur_area;
		a->prev_time = now - a->cycle_start;
		a->cur_area = 0;
		a->cycle_start = now;
		a->cycles++;
	}
	if (a->congested)
		a->congested = decbit_avg_at_least(a, now, p->threshold - half);
	else
		a->congested = decbit_avg_at_least(a, now, p->threshold + half);
	return a->congested;
}

/*
 * When the head packet, dequeued at @now (not before @busy_until, when the
 * link freed up), starts a service of @len_ns.  A dequeue late by less
 * than one service time starts at @busy_until.  A packet that was already
 * waiting at @busy_until (@waited) keeps up to @catchup_ns of the time its
 * late dequeue cost: it starts at @busy_until if the dequeue is late by
 * less than that, else @catchup_ns before @now (a token bucket of depth
 * @catchup_ns: the link sends at most @catchup_ns worth of packets back to
 * back, and loses only the lateness beyond it).  With @catchup_ns below
 * one service time, a dequeue later than the service time loses all but
 * @catchup_ns of it (catchup 0: one service time of grace, then nothing).
 * A packet that arrived to an idle link, or to one never paced
 * (@busy_until 0), starts at @now.
 */
static inline u64 decbit_service_start(u64 now, u64 busy_until, u64 len_ns,
				       bool waited, u64 catchup_ns)
{
	u64 late = now - busy_until;

	if (late < len_ns)
		return busy_until;
	if (!waited || !busy_until)
		return now;
	if (late < catchup_ns)
		return busy_until;
	return now - catchup_ns;
}

/*
 * The link time a service starting at @start lost, ns: the time since
 * @busy_until if the packet was waiting then; an idle link, or one never
 * paced (@busy_until 0), lost nothing.  The packet may have arrived after
 * @busy_until if that was earlier than the previous dequeue (a catch-up):
 * then up to the bucket's depth of idle time counts as lost.
 */
static inline u64 decbit_service_lost(u64 start, u64 busy_until, bool waited)
{
	return waited && busy_until && start > busy_until ?
	       start - busy_until : 0;
}

/* The head packet starts service at @now and leaves at @until. */
static inline void decbit_avg_service(struct decbit_avg *a, u64 now, u32 qlen,
				      u64 until)
{
	decbit_avg_advance(a, now, qlen);
	a->busy_until = until;
}

/* The average at @now in 1/1000 packet, for statistics (divides). */
static inline u32 decbit_avg_milli(const struct decbit_avg *a, u64 now,
				   u32 qlen)
{
	struct decbit_avg t = *a;
	u64 time, v;

	decbit_avg_advance(&t, now, qlen);
	time = t.prev_time + (now - t.cycle_start);
	if (!t.started || !time)
		return 0;
	v = mul_u64_u64_div_u64(t.prev_area + t.cur_area, DECBIT_SCALE, time);
	return v > U32_MAX ? U32_MAX : (u32)v;
}

#endif /* _DECBIT_AVG_H */
