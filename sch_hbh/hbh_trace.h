/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoint sch_hbh:hbh_rate: one per feedback entry applied to a flow,
 * with what the next hop reported (q, setpoint), the prediction x^, the
 * service-rate estimate m^ and the new rate lambda (bytes/s).
 *
 *   echo 1 > /sys/kernel/tracing/events/sch_hbh/enable
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sch_hbh

#if !defined(_HBH_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _HBH_TRACE_H

#include <linux/tracepoint.h>

#include "hbh_core.h"

/*
 * The names in the __print_symbolic() table below become numbers in the
 * event's format file only for the enum constants exported here; without
 * them trace-cmd and perf, which read the format file, print numbers.
 */
TRACE_DEFINE_ENUM(HBH_UPD_STALE);
TRACE_DEFINE_ENUM(HBH_UPD_BASELINE);
TRACE_DEFINE_ENUM(HBH_UPD_RISE);
TRACE_DEFINE_ENUM(HBH_UPD_LAW);

TRACE_EVENT(hbh_rate,
	    TP_PROTO(int ifindex, const __be32 *saddr, const __be32 *daddr,
		     u16 sport, u16 dport, u8 proto, u8 family,
		     const struct hbh_report *r, const struct hbh_ctl *c,
		     u8 update),
	    TP_ARGS(ifindex, saddr, daddr, sport, dport, proto, family, r, c,
		    update),
	    TP_STRUCT__entry(__field(int, ifindex)
			     __array(u8, saddr, 16)
			     __array(u8, daddr, 16)
			     __field(u16, sport)
			     __field(u16, dport)
			     __field(u8, proto)
			     __field(u8, update)
			     __field(u32, q_pkts)
			     __field(u32, q_bytes)
			     __field(u32, setpoint)
			     __field(s64, xhat)
			     __field(u64, mhat)
			     __field(u64, rate)),
	    TP_fast_assign(__entry->ifindex = ifindex;
			   /* IPv4 as ::ffff:a.b.c.d, so that one format fits */
				if (family == HBH_FB_FAMILY_IPV4) {
					memset(__entry->saddr, 0, 10);
					memset(__entry->saddr + 10, 0xff, 2);
					memcpy(__entry->saddr + 12, saddr, 4);
					memset(__entry->daddr, 0, 10);
					memset(__entry->daddr + 10, 0xff, 2);
					memcpy(__entry->daddr + 12, daddr, 4);
				} else {
					memcpy(__entry->saddr, saddr, 16);
					memcpy(__entry->daddr, daddr, 16);
				}
			   __entry->sport = sport;
			   __entry->dport = dport;
			   __entry->proto = proto;
			   __entry->update = update;
			   __entry->q_pkts = r->q_pkts;
			   __entry->q_bytes = r->q_bytes;
			   __entry->setpoint = r->setpoint;
			   __entry->xhat = c->xhat;
			   __entry->mhat = c->mhat;
			   __entry->rate = c->rate;),
	    TP_printk("dev=%d src=%pI6c dst=%pI6c sport=%u dport=%u proto=%u q=%u qbytes=%u setpoint=%u xhat=%lld mhat=%llu rate=%llu update=%s",
		      __entry->ifindex, __entry->saddr, __entry->daddr,
		      __entry->sport, __entry->dport, __entry->proto,
		      __entry->q_pkts, __entry->q_bytes, __entry->setpoint,
		      __entry->xhat, __entry->mhat, __entry->rate,
		      __print_symbolic(__entry->update,
				       { HBH_UPD_STALE, "stale" },
				       { HBH_UPD_BASELINE, "baseline" },
				       { HBH_UPD_RISE, "rise" },
				       { HBH_UPD_LAW, "law" }))
);

#endif /* _HBH_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE hbh_trace
#include <trace/define_trace.h>
