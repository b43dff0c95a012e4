/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DECbit source window policy (Ramakrishnan & Jain, ACM TOCS 8(2), 1990,
 * section 5), as used by tcp_decbit.
 *
 * W_p is the window before the last change and W_c the window after it.
 * A decision is taken once W_p + W_c packets have been acknowledged since
 * the last change: the first W_p of them were sent with the old window and
 * are ignored, only the marks on the last W_c count.  If at least `cutoff`
 * percent of those carried the bit the window is multiplied by `decrease`
 * (7/8), otherwise it grows by `increase` (1 packet) - but only if the
 * sender could use the window during the epoch (the paper's source-bound
 * rule, section 6.3.2).  The window is a fixed-point real number (the
 * paper's integer-window trap: see the unit test) and never below one
 * packet.
 *
 * Deviations, as Jacobson's rules still apply to TCP: the connection slow
 * starts until the first mark or loss (optional); a loss multiplies the
 * window by `loss_decrease` (1/2) and starts a new epoch; a timeout
 * restarts from one packet and slow starts to half the window; after an
 * idle spell longer than the RTO the connection restarts from the restart
 * window and slow starts back to 3/4 of its window.
 *
 * Plain C with no kernel-only calls: compiled into tcp_decbit and into its
 * userspace unit test.
 */
#ifndef _DECBIT_POLICY_H
#define _DECBIT_POLICY_H

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/types.h>
#else
#include "congavoid_user.h"
#endif

#define DECBIT_W_SHIFT		10
#define DECBIT_W_ONE		BIT(DECBIT_W_SHIFT)	/* one packet */
#define DECBIT_W_MAX		BIT(30)			/* 2^20 packets */
#define DECBIT_CALM_NEVER	U32_MAX		/* no packet marked yet */
#define DECBIT_CALM_SLACK	8		/* decisions */

enum decbit_reason {
	DECBIT_NONE,		/* no decision on this ACK */
	DECBIT_INCREASE,	/* fewer marks than the cutoff: +increase */
	DECBIT_DECREASE,	/* marks >= cutoff: x decrease */
	DECBIT_HOLD,		/* no marks to speak of, but not window-limited */
	DECBIT_SS_EXIT,		/* first mark ends slow start: x decrease */
	DECBIT_LOSS,		/* loss: x loss_decrease */
	DECBIT_RESTART,		/* timeout: one packet, slow start again */
	DECBIT_UNDO,		/* the loss was spurious: window of before */
	DECBIT_IDLE,		/* restart after idle: restart window, slow start */
};

struct decbit_policy_params {
	u32 cutoff;		/* percent of marked packets, 1..100 */
	u32 increase;		/* packets << DECBIT_W_SHIFT */
	u32 decrease;		/* fraction kept << DECBIT_W_SHIFT (896 = 7/8) */
	u32 loss_decrease;	/* fraction kept on loss (512 = 1/2) */
	bool slow_start;
};

struct decbit_win {
	u32 w;			/* window, packets << DECBIT_W_SHIFT */
	u32 w_prev;		/* W_p, packets */
	u32 w_cur;		/* W_c, packets */
	u32 acked;		/* packets acknowledged in this epoch */
	u32 marked;		/* marked packets among the last W_c */
	u32 ssthresh;		/* slow start ends here (packets) */
	u32 last_marked;	/* marks counted at the last decision */
	u32 last_wc;		/* and its W_c */
	u32 calm;		/* decisions since a marked packet */
	bool limited;		/* window-limited at some point this epoch */
	bool in_ss;		/* slow start */
};

/* round(w) in packets, at least 1, for a window w in fixed point */
static inline u32 decbit_w_pkts(u32 w)
{
	u32 p = (w + DECBIT_W_ONE / 2) >> DECBIT_W_SHIFT;

	return p ? p : 1;
}

static inline u32 decbit_win_pkts(const struct decbit_win *s)
{
	return decbit_w_pkts(s->w);
}

static inline void decbit_win_set(struct decbit_win *s, u64 w)
{
	if (w < DECBIT_W_ONE)
		w = DECBIT_W_ONE;
	if (w > DECBIT_W_MAX)
		w = DECBIT_W_MAX;
	s->w = (u32)w;
}

/* Start a new epoch after a change of the window from @old packets. */
static inline void decbit_win_epoch(struct decbit_win *s, u32 old)
{
	s->w_prev = old;
	s->w_cur = decbit_win_pkts(s);
	s->acked = 0;
	s->marked = 0;
	s->limited = false;
}

static inline void decbit_win_init(struct decbit_win *s,
				   const struct decbit_policy_params *p,
				   u32 cwnd)
{
	decbit_win_set(s, (u64)cwnd << DECBIT_W_SHIFT);
	s->in_ss = p->slow_start;
	s->ssthresh = DECBIT_W_MAX >> DECBIT_W_SHIFT;
	s->calm = DECBIT_CALM_NEVER;
	decbit_win_epoch(s, 0);
}

/*
 * Bursts.  A DECbit router averages its queue in packets: k segments sent
 * back to back (one GSO skb) add (k - 1) / 2 to it at full utilisation,
 * so that the paper's threshold of 1 is reached at 2 / (k + 1) of the
 * link.  What the router allows, it says with its marks.  A connection
 * that has never seen a mark (no DECbit router is congested on its path)
 * sends the skbs every other TCP sender does (about 1 ms of its rate);
 * from its first mark on it sends one packet at a time, and goes back to
 * bursts only after a calm spell longer than the policy's own cycle.  At
 * the knee, a decrease takes W (1 - decrease) packets off the window and
 * the increases put them back in W (1 - decrease) / increase decisions
 * (W / 8 with the paper's figures), when the marks return; twice that,
 * plus DECBIT_CALM_SLACK, of decisions without a mark means the path no
 * longer marks.
 */
static inline bool decbit_win_single(const struct decbit_win *s,
				     const struct decbit_policy_params *p)
{
	u32 inc = p->increase ? p->increase : 1;
	u64 cycle;

	if (s->calm == DECBIT_CALM_NEVER)
		return false;
	/* increase <= 2^16 packets (the module's bound): fits the divisor */
	cycle = div_u64((u64)s->w * (DECBIT_W_ONE - p->decrease),
			inc << DECBIT_W_SHIFT);
	return s->calm < 2 * cycle + DECBIT_CALM_SLACK;
}

/*
 * @acked packets were newly acknowledged, @marked of them carried the bit;
 * @limited: the sender was window-limited.  Updates the window and says
 * what was decided.
 */
static inline enum decbit_reason
decbit_win_ack(struct decbit_win *s, const struct decbit_policy_params *p,
	       u32 acked, u32 marked, bool limited)
{
	u32 old = decbit_win_pkts(s), skip, take, end;

	if (marked > acked)
		marked = acked;
	if (marked)
		s->calm = 0;
	if (s->in_ss) {
		if (!marked) {
			u64 cap = (u64)s->ssthresh << DECBIT_W_SHIFT;

			/* grows up to ssthresh, not past it (a window already
			 * above, as restored by an undo, stays)
			 */
			if (limited && s->w < cap)
				decbit_win_set(s, min_t(u64, cap, s->w +
						  ((u64)acked << DECBIT_W_SHIFT)));
			if (decbit_win_pkts(s) < s->ssthresh)
				return DECBIT_NONE;
			/* reached ssthresh after a timeout: avoidance again */
			s->in_ss = false;
			decbit_win_epoch(s, old);
			return DECBIT_NONE;
		}
		s->in_ss = false;
		decbit_win_set(s, ((u64)s->w * p->decrease) >> DECBIT_W_SHIFT);
		decbit_win_epoch(s, old);
		return DECBIT_SS_EXIT;
	}

	s->limited |= limited;
	/* Of these packets, the ones past the first W_p are counted. */
	skip = s->acked < s->w_prev ? s->w_prev - s->acked : 0;
	end = s->w_prev + s->w_cur - s->acked;	/* left in this epoch */
	take = acked > end ? end : acked;
	if (take > skip) {
		u32 counted = take - skip;

		/* an ACK straddling a boundary counts its marks pro rata */
		s->marked += counted == acked ? marked :
			     (u32)div_u64((u64)marked * counted + acked / 2, acked);
	}
	s->acked += take;
	if (s->acked < s->w_prev + s->w_cur)
		return DECBIT_NONE;

	s->last_marked = s->marked;
	s->last_wc = s->w_cur;
	if (s->calm < DECBIT_CALM_NEVER - 1)
		s->calm++;
	if ((u64)s->marked * 100 >= (u64)p->cutoff * s->w_cur) {
		decbit_win_set(s, ((u64)s->w * p->decrease) >> DECBIT_W_SHIFT);
		decbit_win_epoch(s, old);
		return DECBIT_DECREASE;
	}
	if (!s->limited) {
		decbit_win_epoch(s, old);
		return DECBIT_HOLD;
	}
	decbit_win_set(s, (u64)s->w + p->increase);
	decbit_win_epoch(s, old);
	return DECBIT_INCREASE;
}

/* A loss episode begins (once per episode, from ssthresh). */
static inline void decbit_win_loss(struct decbit_win *s,
				   const struct decbit_policy_params *p)
{
	u32 old = decbit_win_pkts(s);

	s->in_ss = false;
	decbit_win_set(s, ((u64)s->w * p->loss_decrease) >> DECBIT_W_SHIFT);
	decbit_win_epoch(s, old);
}

/*
 * Retransmission timeout: restart from one packet and slow start to half
 * the window, as TCP does after a timeout whatever slow_start says (that
 * parameter is about the connection's start): the lost window is sent
 * again during the slow start.
 */
static inline void decbit_win_restart(struct decbit_win *s)
{
	s->ssthresh = decbit_win_pkts(s) / 2 > 2 ? decbit_win_pkts(s) / 2 : 2;
	decbit_win_set(s, DECBIT_W_ONE);
	s->in_ss = true;
	decbit_win_epoch(s, 0);
}

/*
 * Every retransmission timeout of an episode, the first included (after
 * decbit_win_restart): one packet again, slow start to the same ssthresh.
 * A timeout that ends a fast recovery (no restart for it: the stack begins
 * no new episode) slow starts to the window that recovery set, as Reno
 * slow starts to the ssthresh of that recovery.
 */
static inline void decbit_win_timeout(struct decbit_win *s)
{
	u32 w = decbit_win_pkts(s);

	if (!s->in_ss)
		s->ssthresh = w > 2 ? w : 2;
	decbit_win_set(s, DECBIT_W_ONE);
	s->in_ss = true;
	decbit_win_epoch(s, 0);
}

/*
 * Restart after idle (RFC 5681, section 4.1): a connection that sent
 * nothing for longer than the RTO has lost its ACK clock, and its window
 * says nothing about the path any more.  It sends at most the restart
 * window @rw = min(IW, W) packets in the first round trip and slow starts
 * back to 3/4 of the window it had (or to a higher ssthresh it was still
 * slow starting to), as Linux's tcp_cwnd_restart() does for the CCs the
 * stack restarts itself (the stack leaves .cong_control modules alone).
 * A mark ends that slow start as at the connection's start.  Returns
 * false, changing nothing, if the window is already within @rw.
 */
static inline bool decbit_win_idle(struct decbit_win *s, u32 rw)
{
	u32 w = decbit_win_pkts(s), target = max_t(u32, w - w / 4, 2);

	if (!rw)
		rw = 1;
	if (w <= rw)
		return false;
	s->ssthresh = s->in_ss ? max_t(u32, s->ssthresh, target) : target;
	decbit_win_set(s, (u64)rw << DECBIT_W_SHIFT);
	s->in_ss = true;
	decbit_win_epoch(s, 0);
	return true;
}

/*
 * Proportional Rate Reduction (RFC 6937) for fast recovery: the window
 * after an ACK, in packets, for a flow going from @prior packets (when
 * recovery began) to @target (the loss policy's window).  @delivered:
 * packets delivered (acked or sacked) since recovery began, this ACK's
 * @acked included; @out: packets sent since; @in_flight: the stack's
 * estimate of packets in the network now.  Above @target, sends @target
 * per @prior delivered; at or below it, grows back towards @target no
 * faster than packets are delivered (the conservative bound: no extra
 * packet per ACK).  The first ACK of recovery always lets one packet go:
 * the fast retransmit.
 */
static inline u32 decbit_prr_cwnd(u32 target, u32 prior, u32 delivered,
				  u32 out, u32 in_flight, u32 acked)
{
	u64 want;
	u32 send = 0;

	if (!prior)
		prior = 1;
	if (in_flight > target) {
		want = div_u64((u64)target * delivered + prior - 1, prior);
		if (want > out)
			send = (u32)min_t(u64, want - out, target);
	} else {
		send = delivered > out ? delivered - out : 0;
		if (send < acked)
			send = acked;
		if (send > target - in_flight)
			send = target - in_flight;
	}
	if (!send && !out)
		send = 1;
	return in_flight + send;
}

/*
 * The lost data are recovered: the window policy takes over again with a
 * new epoch from the window reached (unless a slow start is still under
 * way, which goes on to ssthresh).
 */
static inline void decbit_win_resume(struct decbit_win *s)
{
	if (!s->in_ss)
		decbit_win_epoch(s, decbit_win_pkts(s));
}

#endif /* _DECBIT_POLICY_H */
