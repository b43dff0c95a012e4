// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_bimodal.c	Bimodal congestion avoidance and control as a TCP
 *			congestion control.
 *
 * A. Attie, A. Lahanas and V. Tsaoussidis, "Beyond AIMD: Explicit Fair-share
 * Calculation" (Bimodal Congestion Avoidance and Control).
 *
 * AIMD that measures its fair share.  In the "fair share unknown" mode a
 * congestion event cuts the window by beta and starts a measuring cycle;
 * at the next event the growth since then, divided by beta, is the flow's
 * share of the capacity (every flow gained the same amount while the
 * total refilled the beta that all of them gave up).  In the "fair share
 * known" mode each event sets the window to fair * (1 - epsilon), a much
 * smaller cut; an event below the share means flows joined (back to the
 * unknown mode), above it that flows left (the share rises; a first event
 * above it by less than a cycle's growth is a cut the flow missed).  The state
 * machine is in bimodal_core.h; this file is the glue.
 *
 * A congestion event is what makes the stack call ssthresh(): one per
 * loss-recovery or ECN (CWR) episode, so ECN marks count as losses do.
 * Between events the window grows as Reno's (slow start, then one packet
 * per RTT).
 *
 * Choices where the paper is silent (see bimodal_core.h for the others):
 * - A timeout resets to the unknown mode and slow starts up to the
 *   window at the event cut by beta, as Reno would.
 * - A measuring cycle is void if the connection went idle, or if more
 *   than 1/8 of its ACKs came while it was not cwnd-limited
 *   (application-limited): its growth would understate the share.
 * - undo_cwnd (a spurious loss) restores the whole state as it was
 *   before the event.
 * - When fair * (1 - epsilon) is above the window the flow had at the
 *   event (a flow below its share), the window is not raised in one step
 *   at the end of recovery: it restarts from the beta cut of that window
 *   and slow starts up to the new value.
 * - Switched in on a live connection (setsockopt(TCP_CONGESTION)) during
 *   a loss or ECN episode that another algorithm began, the module
 *   leaves the end of that episode to the stack (cwnd = ssthresh): it did
 *   not see the event.
 * - The parameters take effect at each congestion event, read once for
 *   the event and for the restart after it.
 */

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/inet_diag.h>
#include <net/tcp.h>

#include "congavoid_ccinfo.h"
#include "congavoid_compat.h"
#include "bimodal_core.h"

#define CREATE_TRACE_POINTS
#include "bimodal_trace.h"

/* Defaults of the module parameters (fractions in 1/1024). */
#define BETA_DEFAULT		512	/* 1/2 */
#define EPSILON_DEFAULT		128	/* 1/8 */
#define TOLERANCE_DEFAULT	2	/* packets */
#define MIN_FAIR_DEFAULT	8	/* packets */
#define FAST_REMEASURE_DEFAULT	false

static struct bimodal_params bimodal_params __read_mostly = {
	.beta		= BETA_DEFAULT,
	.epsilon	= EPSILON_DEFAULT,
	.tol_min	= TOLERANCE_DEFAULT,
	.min_fair	= MIN_FAIR_DEFAULT,
	.fast_remeasure	= FAST_REMEASURE_DEFAULT,
};

CONGAVOID_PARAM_UINT(beta, bimodal_params.beta, 1, 1023, BETA_DEFAULT,
		     "fraction of the window removed in the fair-share-unknown mode, in 1/1024");
CONGAVOID_PARAM_UINT(epsilon, bimodal_params.epsilon, 1, 1023, EPSILON_DEFAULT,
		     "fraction of the fair share removed in the fair-share-known mode, in 1/1024; the paper also uses 512 and 341");
CONGAVOID_PARAM_UINT(tolerance, bimodal_params.tol_min, 1, 65536,
		     TOLERANCE_DEFAULT,
		     "smallest half-width of the \"at fair share\" band, packets; the band is max(this, fair*epsilon/4)");
CONGAVOID_PARAM_UINT(min_fair, bimodal_params.min_fair, 1, 65536,
		     MIN_FAIR_DEFAULT,
		     "smallest measured fair share trusted, packets");
CONGAVOID_PARAM_BOOL(fast_remeasure, bimodal_params.fast_remeasure,
		     FAST_REMEASURE_DEFAULT,
		     "after flows join, measure from that cut instead of one cycle later; false is the paper's rule");

struct bimodal_ca {
	struct bimodal_state st;
	struct bimodal_state undo;	/* state before the last event */
	u32 loss_cwnd;			/* window at the last event */
	u32 restart;			/* its beta cut; 0: no event of ours */
	u32 delivered;			/* tp->delivered at init */
	u32 delivered_ce;		/* tp->delivered_ce at init */
	u16 acks;			/* ACKs in this cycle */
	u16 unlimited;			/* of which not cwnd-limited */
	u8 reason;			/* enum bimodal_reason of the last event */
	u8 undo_reason;			/* and before it */
};

/*
 * Also when the module is switched in on a live connection
 * (setsockopt(TCP_CONGESTION)), maybe in the middle of a loss or ECN
 * episode that another algorithm began: with restart 0, the end of that
 * episode leaves the stack's window alone.
 */
static void bimodal_init(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct bimodal_ca *ca = inet_csk_ca(sk);

	memset(ca, 0, sizeof(*ca));
	bimodal_reset(&ca->st);
	ca->delivered = tp->delivered;
	ca->delivered_ce = tp->delivered_ce;
}

static void bimodal_read_params(struct bimodal_params *p)
{
	p->beta = READ_ONCE(bimodal_params.beta);
	p->epsilon = READ_ONCE(bimodal_params.epsilon);
	p->tol_min = READ_ONCE(bimodal_params.tol_min);
	p->min_fair = READ_ONCE(bimodal_params.min_fair);
	p->fast_remeasure = READ_ONCE(bimodal_params.fast_remeasure);
}

static u32 bimodal_ssthresh(struct sock *sk)
{
	struct bimodal_ca *ca = inet_csk_ca(sk);
	u32 cwnd = tcp_snd_cwnd(tcp_sk(sk));
	enum bimodal_reason reason;
	struct bimodal_params p;
	u8 before = ca->st.mode;
	u32 next;

	/* The parameters take effect here, read once for the whole event. */
	bimodal_read_params(&p);
	ca->undo = ca->st;
	ca->undo_reason = ca->reason;
	ca->loss_cwnd = cwnd;
	ca->restart = max(bimodal_cut(cwnd, p.beta), BIMODAL_MIN_CWND);
	if (ca->unlimited > ca->acks / 8)
		ca->st.dirty = 1;
	ca->acks = 0;
	ca->unlimited = 0;
	next = bimodal_congestion(&ca->st, &p, cwnd, &reason);
	WRITE_ONCE(ca->reason, reason);
	trace_bimodal_event(sk, before, ca->st.mode, cwnd, next, ca->st.fair,
			    ca->st.bc, reason);
	return next;
}

static void bimodal_cong_avoid(struct sock *sk, u32 ack, u32 acked)
{
	struct bimodal_ca *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);

	if (ca->acks < U16_MAX)
		ca->acks++;
	if (!tcp_is_cwnd_limited(sk)) {
		if (ca->unlimited < U16_MAX)
			ca->unlimited++;
		return;
	}
	if (tcp_in_slow_start(tp)) {
		acked = tcp_slow_start(tp, acked);
		if (!acked)
			return;
	}
	tcp_cong_avoid_ai(tp, tcp_snd_cwnd(tp), acked);
}

static void bimodal_cwnd_event(struct sock *sk, enum tcp_ca_event ev)
{
	struct bimodal_ca *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);

	switch (ev) {
	case CA_EVENT_TX_START:
	case CA_EVENT_CWND_RESTART:
		ca->st.dirty = 1;	/* idle: this cycle measures nothing */
		break;
	case CA_EVENT_LOSS:
		/*
		 * A timeout, right after ssthresh(): slow start to what Reno
		 * would (the beta cut of the event's window, with the event's
		 * beta).  (The state is reset in set_state(), which also runs
		 * for a timeout during recovery, when the stack skips both
		 * ssthresh() and this event.)
		 */
		if (ca->restart)
			tp->snd_ssthresh = ca->restart;
		break;
	case CA_EVENT_COMPLETE_CWR:
		/*
		 * The stack has just set cwnd = ssthresh.  Raised above the
		 * window at the event, that would be a burst: slow start
		 * up to it instead.  Not for an episode that another
		 * algorithm began (restart 0): the window is the stack's,
		 * and the event's window is not known.
		 */
		if (ca->restart && tcp_snd_cwnd(tp) > ca->loss_cwnd)
			tcp_snd_cwnd_set(tp, ca->restart);
		ca->restart = 0;
		break;
	default:
		break;
	}
}

static void bimodal_set_state(struct sock *sk, u8 new_state)
{
	struct bimodal_ca *ca = inet_csk_ca(sk);

	if (new_state == TCP_CA_Loss) {
		trace_bimodal_event(sk, ca->st.mode, BIMODAL_UNKNOWN,
				    tcp_snd_cwnd(tcp_sk(sk)), 1, 0, 0,
				    BIMODAL_TIMEOUT);
		bimodal_reset(&ca->st);
		WRITE_ONCE(ca->reason, BIMODAL_TIMEOUT);
	}
}

static u32 bimodal_undo_cwnd(struct sock *sk)
{
	struct bimodal_ca *ca = inet_csk_ca(sk);

	ca->st = ca->undo;
	WRITE_ONCE(ca->reason, ca->undo_reason);
	/* (an episode another algorithm began: as Reno) */
	return max(tcp_snd_cwnd(tcp_sk(sk)),
		   ca->loss_cwnd ? : tcp_sk(sk)->prior_cwnd);
}

/*
 * ss -ti: the tcp_dctcp_info layout, as in tcp_decbit (congavoid_ccinfo.h,
 * docs/ss-info.md): the reason of the last event (enum bimodal_reason),
 * the fair share in packets while it is known (0 while unknown), the
 * packets acknowledged with ECE and all packets acknowledged since init.
 */
static size_t bimodal_get_info(struct sock *sk, u32 ext, int *attr,
			       union tcp_cc_info *info)
{
	const struct bimodal_ca *ca = inet_csk_ca(sk);
	const struct tcp_sock *tp = tcp_sk(sk);
	struct congavoid_cc_info ci = {
		.enabled = 1,
		.reason = READ_ONCE(ca->reason),
		.marked = READ_ONCE(tp->delivered_ce) - READ_ONCE(ca->delivered_ce),
		.acked = READ_ONCE(tp->delivered) - READ_ONCE(ca->delivered),
	};

	if (READ_ONCE(ca->st.mode) == BIMODAL_KNOWN)
		ci.estimate = READ_ONCE(ca->st.fair) >> BIMODAL_SHIFT;
	return congavoid_get_info(ext, attr, info, &ci);
}

static struct tcp_congestion_ops bimodal __read_mostly = {
	.init		= bimodal_init,
	.ssthresh	= bimodal_ssthresh,
	.cong_avoid	= bimodal_cong_avoid,
	.cwnd_event	= bimodal_cwnd_event,
	.set_state	= bimodal_set_state,
	.undo_cwnd	= bimodal_undo_cwnd,
	.get_info	= bimodal_get_info,
	.owner		= THIS_MODULE,
	.name		= "bimodal",
};

static int __init bimodal_register(void)
{
	BUILD_BUG_ON(sizeof(struct bimodal_ca) > ICSK_CA_PRIV_SIZE);
	return tcp_register_congestion_control(&bimodal);
}

static void __exit bimodal_unregister(void)
{
	tcp_unregister_congestion_control(&bimodal);
}

module_init(bimodal_register);
module_exit(bimodal_unregister);

MODULE_AUTHOR("congavoid developers");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Bimodal congestion avoidance and control (Attie, Lahanas & Tsaoussidis) as TCP congestion control");
