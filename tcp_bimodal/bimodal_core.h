/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bimodal_core.h	The Bimodal congestion avoidance state machine.
 *
 * A. Attie, A. Lahanas and V. Tsaoussidis, "Beyond AIMD: Explicit Fair-share
 * Calculation" (Bimodal Congestion Avoidance and Control), Fig. 1.
 *
 * Plain C with no kernel-only calls: compiled into tcp_bimodal.ko and into
 * the userspace unit test.  Windows are in packets; the fair share is kept
 * in fixed point (BIMODAL_SHIFT fractional bits).  beta and epsilon are the
 * fractions *removed* on a decrease, in 1/1024 (512 = 1/2).
 *
 * Between congestion events a flow grows by one packet per RTT in both
 * modes (the caller does that).  At each congestion event:
 *
 *   mode unknown, no cycle begun:   a <- a(1 - beta); bc <- a; cycle begun
 *   mode unknown, cycle begun:      fair <- (a - bc) / beta;
 *                                   a <- fair(1 - eps); bc <- a; known
 *   mode known, a < fair - tol:     (flows joined) a <- a(1 - beta);
 *                                   unknown, no cycle begun
 *   mode known, a > fair + tol, and the last event was at fair with the
 *   window above the band too, or a > fair(1 + eps) + tol:
 *                                   (flows left) fair <- a; a <- a(1 - eps)
 *   mode known, otherwise:          (at fair) fair <- min(fair, a) unless
 *                                   a < min_fair or dirty;
 *                                   a <- fair(1 - eps)
 *
 * Resolutions of the paper's open points (also in docs/design/bimodal.md):
 * - "At fair" is a band of +-tol, tol = max(tol_min packets, fair*eps/4):
 *   with one-packet steps and one RTT of feedback delay an exact test
 *   never holds and flows would keep falling back to the unknown mode.
 * - Drop-tail does not give every flow each congestion event.  A flow
 *   that missed one cut meets the next event up to one cycle's regrowth
 *   (fair * eps) above its share: that alone is not "flows left" unless
 *   the flow's previous event was such an event too (a share that did
 *   grow shows at every event).  And at fair, a window below the share
 *   lowers the share to it: the link filled when this flow had a (not
 *   below min_fair, nor after an idle or application-limited cycle).
 *   Taken literally, the "left" rule raises the share to the windows of
 *   flows that missed a cut and nothing lowers it again; the share then
 *   read 9-16 % above B/n in the unit test's drop-tail model.
 * - A measuring cycle is void when the flow was idle or application
 *   limited (the caller sets 'dirty'), when its window did not grow
 *   (a <= bc), or when the measured share is below min_fair packets or
 *   above BIMODAL_FAIR_MAX (2^20, the largest window tcp_decbit keeps;
 *   only a tiny beta gets there): the flow then cuts by beta and
 *   measures again from there.  Nor does "flows left" take a share above
 *   it.
 * - fast_remeasure = 1 starts the new measurement at the "flows joined"
 *   cut itself (bc <- a, cycle begun) instead of one cycle later; the
 *   paper's rule (0) is the default.
 * - A timeout is not in the paper: the caller resets the state with
 *   bimodal_reset() and slow starts as Reno does.
 */
#ifndef _BIMODAL_CORE_H
#define _BIMODAL_CORE_H

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/types.h>
#else
#include "congavoid_user.h"
#endif

#define BIMODAL_SHIFT		10
#define BIMODAL_ONE		BIT(BIMODAL_SHIFT)
#define BIMODAL_MIN_CWND	2U
#define BIMODAL_FAIR_MAX	BIT(20)	/* packets: a larger share reads as void */

enum bimodal_mode {
	BIMODAL_UNKNOWN = 0,	/* fair share unknown */
	BIMODAL_KNOWN = 1,	/* fair share known */
};

/*
 * Which branch of Fig. 1 an event took (for the tracepoint, and ss -ti's
 * ce_state: docs/ss-info.md).
 */
enum bimodal_reason {
	BIMODAL_NONE = 0,	/* no event yet */
	BIMODAL_BEGIN,		/* unknown: beta cut, measuring cycle begins */
	BIMODAL_MEASURED,	/* unknown: fair share computed */
	BIMODAL_VOID,		/* unknown: cycle void, beta cut, measure again */
	BIMODAL_JOINED,		/* known, below fair: beta cut, back to unknown */
	BIMODAL_LEFT,		/* known, above fair: fair <- a, eps cut */
	BIMODAL_AT_FAIR,	/* known, at fair (or a missed cut): a <- fair (1 - eps) */
	BIMODAL_TIMEOUT,	/* retransmission timeout: reset (caller) */
};

struct bimodal_params {
	u32 beta;		/* fraction removed in the unknown mode, /1024 */
	u32 epsilon;		/* fraction removed in the known mode, /1024 */
	u32 tol_min;		/* smallest half-width of the "at fair" band, packets */
	u32 min_fair;		/* smallest share trusted, packets */
	bool fast_remeasure;
};

struct bimodal_state {
	u32 fair;		/* fair share, packets << BIMODAL_SHIFT */
	u32 bc;			/* window at the start of the cycle, packets */
	u8 mode;		/* enum bimodal_mode */
	u8 cc;			/* a measuring cycle has begun */
	u8 dirty;		/* idle or application limited since the last event */
	u8 over;		/* the last event was at fair with the window above the band */
};

static inline void bimodal_reset(struct bimodal_state *s)
{
	s->fair = 0;
	s->bc = 0;
	s->mode = BIMODAL_UNKNOWN;
	s->cc = 0;
	s->dirty = 0;
	s->over = 0;
}

/* a * (1024 - frac) / 1024, rounded to nearest, in packets */
static inline u32 bimodal_cut(u32 a, u32 frac)
{
	return (u32)(((u64)a * (1024 - frac) + 512) >> 10);
}

/* fair * (1 - eps), fair in fixed point, result in packets (rounded) */
static inline u32 bimodal_below_fair(u32 fair, u32 eps)
{
	return (u32)(((u64)fair * (1024 - eps) + (1U << (BIMODAL_SHIFT + 9)))
		     >> (BIMODAL_SHIFT + 10));
}

/* Half-width of the "at fair" band, fixed point. */
static inline u32 bimodal_tolerance(const struct bimodal_state *s,
				    const struct bimodal_params *p)
{
	u32 t = (u32)(((u64)s->fair * p->epsilon) >> 12);	/* fair*eps/4 */

	return t > (p->tol_min << BIMODAL_SHIFT) ? t : p->tol_min << BIMODAL_SHIFT;
}

/*
 * One congestion event with window a (packets).  Updates the state and
 * returns the new window, at least BIMODAL_MIN_CWND.
 */
static inline u32 bimodal_congestion(struct bimodal_state *s,
				     const struct bimodal_params *p, u32 a,
				     enum bimodal_reason *reason)
{
	u64 a_fp = (u64)a << BIMODAL_SHIFT;
	u8 over = 0;
	u32 next, tol;

	if (s->mode == BIMODAL_UNKNOWN) {
		if (!s->cc) {
			*reason = BIMODAL_BEGIN;
			next = bimodal_cut(a, p->beta);
		} else {
			u64 fair = 0;

			if (!s->dirty && a > s->bc)
				fair = div64_u64((u64)(a - s->bc) << (BIMODAL_SHIFT + 10),
						 p->beta);
			if (fair < ((u64)p->min_fair << BIMODAL_SHIFT) ||
			    fair > ((u64)BIMODAL_FAIR_MAX << BIMODAL_SHIFT)) {
				*reason = BIMODAL_VOID;
				next = bimodal_cut(a, p->beta);
			} else {
				*reason = BIMODAL_MEASURED;
				s->fair = (u32)fair;
				s->mode = BIMODAL_KNOWN;
				next = bimodal_below_fair(s->fair, p->epsilon);
			}
		}
		s->cc = 1;
	} else {
		tol = bimodal_tolerance(s, p);
		if (a_fp + tol < s->fair) {
			*reason = BIMODAL_JOINED;
			next = bimodal_cut(a, p->beta);
			s->mode = BIMODAL_UNKNOWN;
			s->cc = p->fast_remeasure;
		} else if (a_fp > (u64)s->fair + tol && a <= BIMODAL_FAIR_MAX &&
			   (s->over || a_fp > (u64)s->fair + tol +
			    (((u64)s->fair * p->epsilon) >> 10))) {
			*reason = BIMODAL_LEFT;
			s->fair = (u32)a_fp;
			next = bimodal_cut(a, p->epsilon);
		} else {
			*reason = BIMODAL_AT_FAIR;
			over = a_fp > (u64)s->fair + tol;
			if (a_fp < s->fair && a >= p->min_fair && !s->dirty)
				s->fair = (u32)a_fp;
			next = bimodal_below_fair(s->fair, p->epsilon);
		}
	}
	s->over = over;
	if (next < BIMODAL_MIN_CWND)
		next = BIMODAL_MIN_CWND;
	s->bc = next;
	s->dirty = 0;
	return next;
}

#endif /* _BIMODAL_CORE_H */
