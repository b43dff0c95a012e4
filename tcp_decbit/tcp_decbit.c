// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_decbit.c	DECbit source policy as a TCP congestion control.
 *
 * K. K. Ramakrishnan and R. Jain, "A Binary Feedback Scheme for Congestion
 * Avoidance in Computer Networks", ACM TOCS 8(2), 1990.
 *
 * The window policy (decbit_policy.h): decide once W_p + W_c packets are
 * acknowledged since the last change, looking only at the marks on the
 * last W_c of them; >= cutoff marked: W *= 7/8, else W += 1.
 *
 * DECbit counts the fraction of packets that carried the bit, so the
 * module needs a mark per packet, not RFC 3168's sticky ECE.  It asks for
 * ECN itself (TCP_CONG_NEEDS_ECN) and, on the receiving side, echoes every
 * change of the CE state at once, with the delayed ACK of the packets
 * before the change sent first (the same accurate echo DCTCP uses).  Both
 * ends should therefore run "decbit" (or the receiver a route with
 * "congctl decbit"): a listener whose congestion control does not ask for
 * ECN refuses it when the SYN is ECT, and a plain RFC 3168 receiver repeats
 * ECE until CWR, which reads as a run of marks.  Connections without ECN
 * fall back to Reno and are counted (parameter reno_fallbacks).  ECN is
 * negotiated in the SYN: a socket switched to decbit after connect() (as
 * iperf3 3.12 does with -C) has it only if the sender asked anyway
 * (net.ipv4.tcp_ecn=1, or a route with "features ecn").
 *
 * The module owns cwnd between decisions (.cong_control, as BBR does), so
 * that the stack's CWR reduction on ECE does not disturb the epochs; it
 * also sets the pacing rate, which the stack leaves to such modules.
 *
 * Deviations from the paper, for TCP: slow start until the first mark or
 * loss (parameter slow_start); a loss episode multiplies the window by
 * loss_decrease (1/2); a timeout restarts from one packet and slow starts
 * to half the old window (during the Loss state: the stack does not slow
 * start for a module with .cong_control), then a new epoch begins once
 * the lost data are recovered; undo_cwnd restores the window of a
 * spurious loss.
 */

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/inet_diag.h>
#include <net/tcp.h>

#include "congavoid_ccinfo.h"
#include "congavoid_compat.h"
#include "decbit_policy.h"

#define CREATE_TRACE_POINTS
#include "decbit_trace.h"

/*
 * sk_pacing_shift while the path marks: rate >> 20 is under one MSS up to
 * 10 Gbit/s, one segment per skb; and while it does not: the shift every
 * socket starts with (sock_init_data), about 1 ms of the rate per skb.
 */
#define DECBIT_SINGLE_SHIFT	20
#define DECBIT_BURST_SHIFT	10

/* Defaults of the module parameters; DECBIT_W_ONE (1024) is one packet. */
#define CUTOFF_DEFAULT		50	/* percent: half the window marked */
#define INCREASE_DEFAULT	1024	/* one packet per decision */
#define DECREASE_DEFAULT	896	/* 7/8 */
#define LOSS_DECREASE_DEFAULT	512	/* 1/2 */
#define SLOW_START_DEFAULT	true
#define PACING_CA_DEFAULT	100	/* percent of cwnd/srtt */

static struct decbit_policy_params decbit_params __read_mostly = {
	.cutoff		= CUTOFF_DEFAULT,
	.increase	= INCREASE_DEFAULT,
	.decrease	= DECREASE_DEFAULT,
	.loss_decrease	= LOSS_DECREASE_DEFAULT,
	.slow_start	= SLOW_START_DEFAULT,
};

/*
 * Pacing after slow start, percent of cwnd/srtt.  100 spaces the window
 * over the RTT as the ACK clock of the paper's sources (an ACK per packet)
 * would; the stack's 120 sends each window in 5/6 of it, which builds a
 * queue of W/6 before the knee (docs/design/decbit.md has the utilisation
 * measured with each).
 */
static unsigned int decbit_pacing_ca __read_mostly = PACING_CA_DEFAULT;

CONGAVOID_PARAM_UINT(cutoff, decbit_params.cutoff, 1, 100, CUTOFF_DEFAULT,
		     "percent of marked packets in a window that makes it shrink");
CONGAVOID_PARAM_UINT(increase, decbit_params.increase, 1, 65536,
		     INCREASE_DEFAULT,
		     "additive increase per decision, in 1/1024 packet");
CONGAVOID_PARAM_UINT(decrease, decbit_params.decrease, 1, 1023,
		     DECREASE_DEFAULT,
		     "fraction of the window kept on a decrease, in 1/1024; 896 is 7/8");
CONGAVOID_PARAM_UINT(loss_decrease, decbit_params.loss_decrease, 1, 1023,
		     LOSS_DECREASE_DEFAULT,
		     "fraction of the window kept after a loss, in 1/1024; 512 is 1/2");
CONGAVOID_PARAM_BOOL(slow_start, decbit_params.slow_start, SLOW_START_DEFAULT,
		     "slow start until the first mark or loss; the paper has none");
CONGAVOID_PARAM_UINT(pacing_ca, decbit_pacing_ca, 100, 200, PACING_CA_DEFAULT,
		     "pacing rate after slow start, percent of cwnd/srtt");

/*
 * The parameters can change under a running connection: each event reads
 * them once, whole, and the window policy sees that copy only.
 */
static void decbit_read_params(struct decbit_policy_params *p)
{
	p->cutoff = READ_ONCE(decbit_params.cutoff);
	p->increase = READ_ONCE(decbit_params.increase);
	p->decrease = READ_ONCE(decbit_params.decrease);
	p->loss_decrease = READ_ONCE(decbit_params.loss_decrease);
	p->slow_start = READ_ONCE(decbit_params.slow_start);
}

static atomic_long_t decbit_reno_fallbacks = ATOMIC_LONG_INIT(0);

static int param_get_fallbacks(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&decbit_reno_fallbacks));
}

static const struct kernel_param_ops fallbacks_ops = {
	.get = param_get_fallbacks,
};

module_param_cb(reno_fallbacks, &fallbacks_ops, NULL, 0444);
MODULE_PARM_DESC(reno_fallbacks, "connections that fell back to Reno because ECN was not negotiated (read-only)");

struct decbit_ca {
	struct decbit_win win;
	u32 prior_delivered;
	u32 prior_delivered_ce;
	u32 undo_w;		/* window before the loss episode */
	u32 undo_ssthresh;	/* and its slow start state */
	bool undo_in_ss;
	u32 prr_delivered;	/* packets delivered in this fast recovery */
	u32 prr_out0;		/* tp->prr_out when it began */
	u32 prior_rcv_nxt;	/* receiver: rcv_nxt at the last CE change */
	u32 marked_total;	/* marked packets acknowledged */
	u32 acked_total;	/* packets acknowledged */
	u16 last_reason;	/* enum decbit_reason of the last change */
	u16 ce_state;		/* receiver: CE state of the last packet */
	bool single;		/* one segment per skb (decbit_set_burst) */
};

static struct tcp_congestion_ops decbit_reno;

static void decbit_undo_here(struct decbit_ca *ca)
{
	ca->undo_w = ca->win.w;
	ca->undo_ssthresh = ca->win.ssthresh;
	ca->undo_in_ss = ca->win.in_ss;
}

/* A loss episode's change of the window from @w: traced, shown by ss. */
static void decbit_episode(struct sock *sk, u32 w, enum decbit_reason r)
{
	struct decbit_ca *ca = inet_csk_ca(sk);

	WRITE_ONCE(ca->last_reason, r);
	trace_decbit_decision(sk, w, ca->win.w, 0, 0, r);
}

/*
 * The window an undo goes back to: the one before the episode.  Saved only
 * when an episode begins from outside recovery; one that begins inside
 * another (a timeout during fast recovery) keeps the larger, as BBR keeps
 * prior_cwnd.
 */
static void decbit_save_undo(struct sock *sk)
{
	struct decbit_ca *ca = inet_csk_ca(sk);

	if (inet_csk(sk)->icsk_ca_state < TCP_CA_Recovery)
		decbit_undo_here(ca);
	else
		ca->undo_w = max(ca->undo_w, ca->win.w);
}

static void decbit_init(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct decbit_ca *ca = inet_csk_ca(sk);
	struct decbit_policy_params p;

	if (!(tp->ecn_flags & TCP_ECN_OK) && sk->sk_state != TCP_LISTEN &&
	    sk->sk_state != TCP_CLOSE) {
		/* No ECN on this connection: behave as Reno. */
		atomic_long_inc(&decbit_reno_fallbacks);
		inet_csk(sk)->icsk_ca_ops = &decbit_reno;
		INET_ECN_dontxmit(sk);
		return;
	}
	memset(ca, 0, sizeof(*ca));
	ca->prior_delivered = tp->delivered;
	ca->prior_delivered_ce = tp->delivered_ce;
	ca->prior_rcv_nxt = tp->rcv_nxt;
	decbit_read_params(&p);
	decbit_win_init(&ca->win, &p, tcp_snd_cwnd(tp));
	decbit_undo_here(ca);
	/* pacing and skb sizes: decbit_set_burst(), from the first mark */
}

/* Pacing: 2x cwnd/srtt in slow start as the stack does, else pacing_ca. */
static void decbit_set_pacing_rate(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct decbit_ca *ca = inet_csk_ca(sk);
	u64 rate;

	if (!tp->srtt_us)
		return;
	rate = (u64)tp->mss_cache * ((USEC_PER_SEC / 100) << 3);
	rate *= ca->win.in_ss ? 200 : READ_ONCE(decbit_pacing_ca);
	rate *= max(tcp_snd_cwnd(tp), tp->packets_out);
	do_div(rate, tp->srtt_us);
	WRITE_ONCE(sk->sk_pacing_rate,
		   min_t(u64, rate, READ_ONCE(sk->sk_max_pacing_rate)));
}

/*
 * Pacing and segments per skb.  The router averages packets, and a window
 * sent in bursts looks like a queue to it.  TCP builds GSO skbs of at
 * least tcp_min_tso_segs (2) segments, or of about 1 ms of the pacing
 * rate (the rate >> sk_pacing_shift), whatever the device; only paths
 * under ~3 ms of RTT (tcp_tso_rtt_log) get larger ones.  Segments of one
 * skb leave back to back: even a 10 Mbit/s flow would leave two by two,
 * and a pair arriving at an idle link averages 1.5 packets over its
 * service time, so the router's cycle average would reach 1 at 2/3
 * utilisation.
 *
 * So while the path marks (decbit_win_single()) the flow is paced (TCP's
 * internal pacing, unless fq paces it) one segment per skb: the shift
 * goes up so that the autosizing asks for one up to 10 Gbit/s.  The price
 * is a transmit and a pacing timer per packet, and TCP Small Queues, whose
 * budget is the same rate >> shift (at least two skbs), let only two
 * packets per flow wait for the device's TX completion.  On a path that
 * does not mark, no router averages a queue that matters, and the socket
 * is left as every other TCP sender has it: TCP's usual skbs, no internal
 * pacing (fq, if it is the qdisc, still paces at sk_pacing_rate), at the
 * speed of dctcp and cubic (docs/results/cc_speed-*.md).
 */
static void decbit_set_burst(struct sock *sk,
			     const struct decbit_policy_params *p)
{
	struct decbit_ca *ca = inet_csk_ca(sk);
	bool single = decbit_win_single(&ca->win, p);

	if (single == ca->single)
		return;
	ca->single = single;
	if (single) {
		cmpxchg(&sk->sk_pacing_status, SK_PACING_NONE, SK_PACING_NEEDED);
		WRITE_ONCE(sk->sk_pacing_shift, DECBIT_SINGLE_SHIFT);
	} else {
		cmpxchg(&sk->sk_pacing_status, SK_PACING_NEEDED, SK_PACING_NONE);
		WRITE_ONCE(sk->sk_pacing_shift, DECBIT_BURST_SHIFT);
	}
}

static u32 decbit_min_tso_segs(struct sock *sk)
{
	const struct decbit_ca *ca = inet_csk_ca(sk);

	return ca->single ? 1 :
	       READ_ONCE(sock_net(sk)->ipv4.sysctl_tcp_min_tso_segs);
}

/* Leaving decbit (setsockopt to another algorithm): give the socket back
 * the pacing shift every socket starts with (sock_init_data) and no
 * internal pacing, so that the next algorithm gets TCP's usual skbs and
 * paces only if it asks (its init runs after this).
 */
static void decbit_release(struct sock *sk)
{
	struct decbit_ca *ca = inet_csk_ca(sk);

	if (!ca->single)
		return;
	ca->single = false;
	cmpxchg(&sk->sk_pacing_status, SK_PACING_NEEDED, SK_PACING_NONE);
	WRITE_ONCE(sk->sk_pacing_shift, DECBIT_BURST_SHIFT);
}

static void decbit_apply(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct decbit_ca *ca = inet_csk_ca(sk);

	tcp_snd_cwnd_set(tp, min(decbit_win_pkts(&ca->win), tp->snd_cwnd_clamp));
	decbit_set_pacing_rate(sk);
}

static CONGAVOID_CONG_CONTROL(decbit_cong_control)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct decbit_ca *ca = inet_csk_ca(sk);
	u32 acked = tp->delivered - ca->prior_delivered;
	u32 marked = tp->delivered_ce - ca->prior_delivered_ce;
	struct decbit_policy_params p;
	enum decbit_reason r;
	u32 w;

	/*
	 * Before init: on an active open the SYN-ACK goes through tcp_ack(),
	 * and so here, before tcp_finish_connect() -> tcp_init_transfer()
	 * calls init, with the private area still as
	 * tcp_assign_congestion_control() zeroed it.  Start the window
	 * policy from the current cwnd rather than from 0.
	 */
	if (unlikely(!ca->win.w)) {
		decbit_read_params(&p);
		decbit_win_init(&ca->win, &p, tcp_snd_cwnd(tp));
		decbit_undo_here(ca);
		ca->prior_delivered = tp->delivered;
		ca->prior_delivered_ce = tp->delivered_ce;
		return;
	}
	ca->prior_delivered = tp->delivered;
	ca->prior_delivered_ce = tp->delivered_ce;
	if (!acked)
		return;
	ca->acked_total += acked;
	ca->marked_total += marked;
	/*
	 * In fast recovery the window goes to the loss policy's by PRR, as
	 * the stack does for other CCs but leaves to .cong_control.  After
	 * a timeout (Loss) the window slow starts up to ssthresh, then holds
	 * until the lost data are recovered; the decision epochs start
	 * again when the episode is over (set_state).
	 */
	if (inet_csk(sk)->icsk_ca_state == TCP_CA_Recovery) {
		ca->prr_delivered += acked;
		tcp_snd_cwnd_set(tp, min(decbit_prr_cwnd(decbit_win_pkts(&ca->win),
							 decbit_w_pkts(ca->undo_w),
							 ca->prr_delivered,
							 tp->prr_out - ca->prr_out0,
							 tcp_packets_in_flight(tp),
							 acked),
					 tp->snd_cwnd_clamp));
		decbit_set_pacing_rate(sk);
		return;
	}
	if (inet_csk(sk)->icsk_ca_state == TCP_CA_Loss && !ca->win.in_ss) {
		decbit_apply(sk);
		return;
	}
	w = ca->win.w;
	decbit_read_params(&p);
	r = decbit_win_ack(&ca->win, &p, acked, marked,
			   tcp_is_cwnd_limited(sk));
	if (r != DECBIT_NONE) {
		WRITE_ONCE(ca->last_reason, r);
		trace_decbit_decision(sk, w, ca->win.w, ca->win.last_wc,
				      ca->win.last_marked, r);
	}
	/* the calm count moves only on a mark or a decision */
	if (marked || r != DECBIT_NONE)
		decbit_set_burst(sk, &p);
	decbit_apply(sk);
}

/*
 * Called once per loss or ECN episode.  ECE is the per-packet signal the
 * window policy counts, so only a loss shrinks the window here (from
 * set_state); the stack's ssthresh is left at the current window.
 */
static u32 decbit_ssthresh(struct sock *sk)
{
	return max(tcp_snd_cwnd(tcp_sk(sk)), 2U);
}

static void decbit_set_state(struct sock *sk, u8 new_state)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct decbit_ca *ca = inet_csk_ca(sk);
	u8 old_state = inet_csk(sk)->icsk_ca_state;
	u32 w = ca->win.w;

	if (old_state >= TCP_CA_Recovery && new_state < TCP_CA_Recovery)
		decbit_win_resume(&ca->win);
	if (new_state == TCP_CA_Recovery && old_state != TCP_CA_Recovery) {
		struct decbit_policy_params p;

		decbit_read_params(&p);
		decbit_save_undo(sk);
		decbit_win_loss(&ca->win, &p);
		ca->prr_delivered = 0;
		ca->prr_out0 = tp->prr_out;
		decbit_episode(sk, w, DECBIT_LOSS);
		/* the window goes down by PRR from here (cong_control) */
	} else if (new_state == TCP_CA_Loss) {
		/*
		 * Every timeout, the backed-off ones too: one packet again,
		 * with the ssthresh the episode's first timeout set
		 * (CA_EVENT_LOSS), as Reno does.
		 */
		decbit_win_timeout(&ca->win);
		decbit_apply(sk);
	}
}

/*
 * A timeout begins a loss episode (once per episode: the stack sends no
 * event for a backed-off timeout of the same one): the restart.
 */
static void decbit_loss_event(struct sock *sk)
{
	struct decbit_ca *ca = inet_csk_ca(sk);
	u32 w = ca->win.w;

	decbit_save_undo(sk);
	decbit_win_restart(&ca->win);
	decbit_episode(sk, w, DECBIT_RESTART);
}

static u32 decbit_undo_cwnd(struct sock *sk)
{
	struct decbit_ca *ca = inet_csk_ca(sk);
	u32 w = ca->win.w;

	decbit_win_set(&ca->win, ca->undo_w);
	ca->win.ssthresh = ca->undo_ssthresh;
	ca->win.in_ss = ca->undo_in_ss;
	decbit_win_epoch(&ca->win, decbit_win_pkts(&ca->win));
	decbit_episode(sk, w, DECBIT_UNDO);
	return decbit_win_pkts(&ca->win);
}

/* Receiver: the ACKs sent from now on carry ECE iff @ce. */
static void decbit_ece_demand(struct tcp_sock *tp, u16 ce)
{
	if (ce)
		tp->ecn_flags |= TCP_ECN_DEMAND_CWR;
	else
		tp->ecn_flags &= ~TCP_ECN_DEMAND_CWR;
}

/*
 * Receiver: make every ACK cover packets of one CE state.  When the state
 * changes, a pending delayed ACK for the packets before is sent first,
 * with the old state; the next ACK goes out at once with the new one.
 */
static void decbit_ce_change(struct sock *sk, u16 ce)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct decbit_ca *ca = inet_csk_ca(sk);

	if (ca->ce_state != ce) {
		if (inet_csk(sk)->icsk_ack.pending & ICSK_ACK_TIMER) {
			/*
			 * The packets it covers had the old state: echo it.
			 * The stack may have cleared the demand for the CWR
			 * on the packet that changed the state (it handles
			 * CWR before the CE event) though the packets before
			 * were CE, as dctcp_ece_ack_cwr() restores it.
			 */
			decbit_ece_demand(tp, ca->ce_state);
			congavoid_send_ack(sk, ca->prior_rcv_nxt);
		}
		inet_csk(sk)->icsk_ack.pending |= ICSK_ACK_NOW;
	}
	ca->prior_rcv_nxt = tp->rcv_nxt;
	ca->ce_state = ce;
	decbit_ece_demand(tp, ce);
}

/* The restart window, min(IW, W): the route's initcwnd, else the stack's. */
static u32 decbit_restart_window(struct sock *sk)
{
	const struct dst_entry *dst = __sk_dst_get(sk);
	u32 iw = dst ? dst_metric(dst, RTAX_INITCWND) : 0;

	return min_t(u32, iw ? : TCP_INIT_CWND, tcp_sk(sk)->snd_cwnd_clamp);
}

/*
 * The first data packet after nothing was in flight (CA_EVENT_TX_START,
 * with lsndtime still the last send before it): after an idle spell
 * longer than the RTO, restart (RFC 5681 section 4.1).  The stack does
 * this itself for other CCs (tcp_cwnd_restart()) but not for a
 * .cong_control one; the same sysctl turns it off.  Not in loss recovery,
 * whose own rules hold the window; CWR is no episode of decbit's (its
 * marks are counted per packet) and may outlast the last ACK's echo.
 */
static void decbit_idle_restart(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct decbit_ca *ca = inet_csk_ca(sk);
	s32 idle = tcp_jiffies32 - tp->lsndtime;
	u32 w = ca->win.w;

	if (!READ_ONCE(sock_net(sk)->ipv4.sysctl_tcp_slow_start_after_idle) ||
	    idle < (s32)inet_csk(sk)->icsk_rto || !w ||
	    inet_csk(sk)->icsk_ca_state >= TCP_CA_Recovery)
		return;
	if (!decbit_win_idle(&ca->win, decbit_restart_window(sk)))
		return;
	decbit_episode(sk, w, DECBIT_IDLE);
	decbit_apply(sk);
}

static void decbit_cwnd_event(struct sock *sk, enum tcp_ca_event ev)
{
	switch (ev) {
	case CA_EVENT_TX_START:
		decbit_idle_restart(sk);
		break;
	case CA_EVENT_ECN_IS_CE:
		decbit_ce_change(sk, 1);
		break;
	case CA_EVENT_ECN_NO_CE:
		decbit_ce_change(sk, 0);
		break;
	case CA_EVENT_LOSS:
		decbit_loss_event(sk);
		break;
	default:
		break;
	}
}

/*
 * ss -ti: the tcp_dctcp_info layout, as in tcp_bimodal (congavoid_ccinfo.h,
 * docs/ss-info.md): the reason of the last decision (enum decbit_reason),
 * the marked fraction of its W_c in 1/1024, the marked and all packets
 * acknowledged since init.
 */
static size_t decbit_get_info(struct sock *sk, u32 ext, int *attr,
			      union tcp_cc_info *info)
{
	const struct decbit_ca *ca = inet_csk_ca(sk);
	struct congavoid_cc_info ci = {
		.enabled = 1,
		.reason = READ_ONCE(ca->last_reason),
		.marked = READ_ONCE(ca->marked_total),
		.acked = READ_ONCE(ca->acked_total),
	};
	u32 wc = READ_ONCE(ca->win.last_wc);

	if (wc)
		ci.estimate = min(READ_ONCE(ca->win.last_marked), wc) *
			      DECBIT_W_ONE / wc;
	return congavoid_get_info(ext, attr, info, &ci);
}

/* Fallen back to Reno: "dctcp:fallback_mode", as DCTCP shows it. */
static size_t decbit_reno_get_info(struct sock *sk, u32 ext, int *attr,
				   union tcp_cc_info *info)
{
	const struct congavoid_cc_info ci = { .enabled = 0 };

	return congavoid_get_info(ext, attr, info, &ci);
}

static struct tcp_congestion_ops decbit __read_mostly = {
	.init		= decbit_init,
	.cong_control	= decbit_cong_control,
	.ssthresh	= decbit_ssthresh,
	.undo_cwnd	= decbit_undo_cwnd,
	.set_state	= decbit_set_state,
	.cwnd_event	= decbit_cwnd_event,
	.get_info	= decbit_get_info,
	.min_tso_segs	= decbit_min_tso_segs,
	.release	= decbit_release,
	.flags		= TCP_CONG_NEEDS_ECN,
	.owner		= THIS_MODULE,
	.name		= "decbit",
};

static struct tcp_congestion_ops decbit_reno __read_mostly = {
	.ssthresh	= tcp_reno_ssthresh,
	.cong_avoid	= tcp_reno_cong_avoid,
	.undo_cwnd	= tcp_reno_undo_cwnd,
	.get_info	= decbit_reno_get_info,
	.owner		= THIS_MODULE,
	.name		= "decbit-reno",
};

static int __init decbit_register(void)
{
	BUILD_BUG_ON(sizeof(struct decbit_ca) > ICSK_CA_PRIV_SIZE);
	return tcp_register_congestion_control(&decbit);
}

static void __exit decbit_unregister(void)
{
	tcp_unregister_congestion_control(&decbit);
}

module_init(decbit_register);
module_exit(decbit_unregister);

MODULE_AUTHOR("congavoid developers");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("DECbit binary-feedback window policy (Ramakrishnan & Jain) as TCP congestion control");
