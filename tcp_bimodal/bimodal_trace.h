/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoint tcp_bimodal:bimodal_event: one per congestion event.
 *
 *   echo 1 > /sys/kernel/tracing/events/tcp_bimodal/enable
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tcp_bimodal

#if !defined(_BIMODAL_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _BIMODAL_TRACE_H

#include <linux/tracepoint.h>
#include <net/inet_sock.h>

#include "bimodal_core.h"

/* for trace-cmd and perf: see decbit_trace.h */
TRACE_DEFINE_ENUM(BIMODAL_BEGIN);
TRACE_DEFINE_ENUM(BIMODAL_MEASURED);
TRACE_DEFINE_ENUM(BIMODAL_VOID);
TRACE_DEFINE_ENUM(BIMODAL_JOINED);
TRACE_DEFINE_ENUM(BIMODAL_LEFT);
TRACE_DEFINE_ENUM(BIMODAL_AT_FAIR);
TRACE_DEFINE_ENUM(BIMODAL_TIMEOUT);

TRACE_EVENT(bimodal_event,
	    TP_PROTO(const struct sock *sk, u8 mode_before, u8 mode_after,
		     u32 cwnd_before, u32 cwnd_after, u32 fair, u32 bc,
		     u8 reason),
	    TP_ARGS(sk, mode_before, mode_after, cwnd_before, cwnd_after,
		    fair, bc, reason),
	    TP_STRUCT__entry(__field(const void *, skaddr)
			     __field(u16, sport)
			     __field(u16, dport)
			     __field(u8, mode_before)
			     __field(u8, mode_after)
			     __field(u8, reason)
			     __field(u32, cwnd_before)
			     __field(u32, cwnd_after)
			     __field(u32, fair)
			     __field(u32, bc)),
	    TP_fast_assign(__entry->skaddr = sk;
			   __entry->sport = ntohs(inet_sk(sk)->inet_sport);
			   __entry->dport = ntohs(inet_sk(sk)->inet_dport);
			   __entry->mode_before = mode_before;
			   __entry->mode_after = mode_after;
			   __entry->reason = reason;
			   __entry->cwnd_before = cwnd_before;
			   __entry->cwnd_after = cwnd_after;
			   __entry->fair = fair;
			   __entry->bc = bc;),
	    TP_printk("sport=%u dport=%u mode=%s->%s cwnd=%u->%u fair=%u.%03u bc=%u reason=%s",
		      __entry->sport, __entry->dport,
		      __entry->mode_before ? "known" : "unknown",
		      __entry->mode_after ? "known" : "unknown",
		      __entry->cwnd_before, __entry->cwnd_after,
		      __entry->fair >> BIMODAL_SHIFT,
		      (u32)(((__entry->fair & (BIMODAL_ONE - 1)) * 1000) >> BIMODAL_SHIFT),
		      __entry->bc,
		      __print_symbolic(__entry->reason,
				       { BIMODAL_BEGIN, "begin" },
				       { BIMODAL_MEASURED, "measured" },
				       { BIMODAL_VOID, "void" },
				       { BIMODAL_JOINED, "joined" },
				       { BIMODAL_LEFT, "left" },
				       { BIMODAL_AT_FAIR, "at_fair" },
				       { BIMODAL_TIMEOUT, "timeout" }))
);

#endif /* _BIMODAL_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE bimodal_trace
#include <trace/define_trace.h>
