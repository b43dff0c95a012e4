// SPDX-License-Identifier: GPL-2.0
/*
 * Fixed-window TCP: the "no congestion avoidance" baseline of Jacobson's
 * "Congestion Avoidance and Control" (SIGCOMM 1988), section 3 and
 * figures 3 and 7: a sender that keeps its window at the receiver's
 * advertised size whatever the network does.
 *
 * The congestion window is set to `window` packets when the connection
 * starts and put back there on every ACK (.cong_control, so that the
 * stack's own reductions in recovery do not apply): no slow start, no
 * decrease on loss, ECN or a timeout.  Loss recovery (retransmission, RTO
 * backoff) stays the stack's.  After a timeout the stack restarts from one
 * packet; the next ACK opens the whole window again, which is what 4.3BSD
 * did before slow start.  No pacing.  Not a congestion control for real networks: it is
 * here so that experiments can show what congestion avoidance is for.
 */

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <net/tcp.h>

#include "congavoid_compat.h"

#define WINDOW_DEFAULT	32	/* packets */

static unsigned int fixed_window __read_mostly = WINDOW_DEFAULT;

CONGAVOID_PARAM_UINT(window, fixed_window, 1, 65535, WINDOW_DEFAULT,
		     "the congestion window, packets; new connections take it, running ones at their next ACK");

static u32 fixedwin_window(const struct tcp_sock *tp)
{
	return min(READ_ONCE(fixed_window), tp->snd_cwnd_clamp);
}

static void fixedwin_init(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);

	tcp_snd_cwnd_set(tp, fixedwin_window(tp));
	tp->snd_ssthresh = TCP_INFINITE_SSTHRESH;
}

static CONGAVOID_CONG_CONTROL(fixedwin_cong_control)
{
	struct tcp_sock *tp = tcp_sk(sk);

	tcp_snd_cwnd_set(tp, fixedwin_window(tp));
}

/* A loss does not shrink the window. */
static u32 fixedwin_ssthresh(struct sock *sk)
{
	return fixedwin_window(tcp_sk(sk));
}

static u32 fixedwin_undo_cwnd(struct sock *sk)
{
	return fixedwin_window(tcp_sk(sk));
}

static struct tcp_congestion_ops fixedwin __read_mostly = {
	.init		= fixedwin_init,
	.ssthresh	= fixedwin_ssthresh,
	.cong_control	= fixedwin_cong_control,
	.undo_cwnd	= fixedwin_undo_cwnd,
	.owner		= THIS_MODULE,
	.name		= "fixedwin",
};

static int __init fixedwin_register(void)
{
	return tcp_register_congestion_control(&fixedwin);
}

static void __exit fixedwin_unregister(void)
{
	tcp_unregister_congestion_control(&fixedwin);
}

module_init(fixedwin_register);
module_exit(fixedwin_unregister);

MODULE_AUTHOR("congavoid developers");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Fixed-window TCP without congestion avoidance (Jacobson's 1988 baseline)");
