/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoint tcp_decbit:decbit_decision: one per window decision (and per
 * loss or timeout).  Windows are fixed point (1/1024 packet); acked and
 * marked are the W_c packets the decision looked at and the marks on them.
 *
 *   echo 1 > /sys/kernel/tracing/events/tcp_decbit/enable
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tcp_decbit

#if !defined(_DECBIT_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _DECBIT_TRACE_H

#include <linux/tracepoint.h>
#include <net/inet_sock.h>

#include "decbit_policy.h"

/*
 * The names in the __print_symbolic() table below become numbers in the
 * event's format file only for the enum constants exported here; without
 * them trace-cmd and perf, which read the format file, print numbers.
 */
TRACE_DEFINE_ENUM(DECBIT_INCREASE);
TRACE_DEFINE_ENUM(DECBIT_DECREASE);
TRACE_DEFINE_ENUM(DECBIT_HOLD);
TRACE_DEFINE_ENUM(DECBIT_SS_EXIT);
TRACE_DEFINE_ENUM(DECBIT_LOSS);
TRACE_DEFINE_ENUM(DECBIT_RESTART);
TRACE_DEFINE_ENUM(DECBIT_UNDO);
TRACE_DEFINE_ENUM(DECBIT_IDLE);

TRACE_EVENT(decbit_decision,
	    TP_PROTO(const struct sock *sk, u32 w_before, u32 w_after,
		     u32 acked, u32 marked, u8 reason),
	    TP_ARGS(sk, w_before, w_after, acked, marked, reason),
	    TP_STRUCT__entry(__field(const void *, skaddr)
			     __field(u16, sport)
			     __field(u16, dport)
			     __field(u8, reason)
			     __field(u32, w_before)
			     __field(u32, w_after)
			     __field(u32, acked)
			     __field(u32, marked)),
	    TP_fast_assign(__entry->skaddr = sk;
			   __entry->sport = ntohs(inet_sk(sk)->inet_sport);
			   __entry->dport = ntohs(inet_sk(sk)->inet_dport);
			   __entry->reason = reason;
			   __entry->w_before = w_before;
			   __entry->w_after = w_after;
			   __entry->acked = acked;
			   __entry->marked = marked;),
	    TP_printk("sport=%u dport=%u cwnd=%u.%03u->%u.%03u acked=%u marked=%u reason=%s",
		      __entry->sport, __entry->dport,
		      __entry->w_before >> DECBIT_W_SHIFT,
		      (u32)(((__entry->w_before & (DECBIT_W_ONE - 1)) * 1000) >> DECBIT_W_SHIFT),
		      __entry->w_after >> DECBIT_W_SHIFT,
		      (u32)(((__entry->w_after & (DECBIT_W_ONE - 1)) * 1000) >> DECBIT_W_SHIFT),
		      __entry->acked, __entry->marked,
		      __print_symbolic(__entry->reason,
				       { DECBIT_INCREASE, "increase" },
				       { DECBIT_DECREASE, "decrease" },
				       { DECBIT_HOLD, "hold" },
				       { DECBIT_SS_EXIT, "ss_exit" },
				       { DECBIT_LOSS, "loss" },
				       { DECBIT_RESTART, "restart" },
				       { DECBIT_UNDO, "undo" },
				       { DECBIT_IDLE, "idle" }))
);

#endif /* _DECBIT_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE decbit_trace
#include <trace/define_trace.h>
