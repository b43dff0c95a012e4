/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Netlink interface of the "hbh" qdisc (sch_hbh), shared by the kernel
 * module and the tc plugin q_hbh.so, and the layout of the feedback frames
 * neighbouring hbh nodes exchange.
 */
#ifndef _UAPI_CONGAVOID_TC_HBH_H
#define _UAPI_CONGAVOID_TC_HBH_H

#include <linux/types.h>

enum {
	TCA_HBH_UNSPEC,
	TCA_HBH_RATE,		/* u64: link rate C, bytes/s (required at creation) */
	TCA_HBH_LIMIT,		/* u32: packets queued in total */
	TCA_HBH_FLOW_LIMIT,	/* u32: packets queued per flow */
	TCA_HBH_SETPOINT,	/* u32: x*, packets, <= limit and flow_limit; 0 = dynamic */
	TCA_HBH_PERIOD,		/* u32: feedback period T, ns */
	TCA_HBH_ALPHA,		/* u32: estimator gain, 1/1024 */
	TCA_HBH_BETA,		/* u32: controller gain, 1/1024 */
	TCA_HBH_RISE,		/* u64: gradual-start step per report, bytes/s; 0: rate/64 */
	TCA_HBH_RATE_MIN,	/* u64: lowest controlled rate, bytes/s; 0: rate/1024 */
	TCA_HBH_HOPRTT,		/* u32: feedback loop delay (hop round trip), ns */
	TCA_HBH_MODE,		/* u8: enum tc_hbh_mode */
	TCA_HBH_PAD,
	TCA_HBH_DERIVED,	/* u8, dump only: TC_HBH_DERIVED_* of the values in use */
	TCA_HBH_KEY,		/* binary, set only: the link's key, HBH_KEY_MIN or
				 * HBH_KEY_MAX bytes; empty: no key.  Never dumped.
				 */
	TCA_HBH_KEYED,		/* u8, dump only: 1 if reports are authenticated */
	TCA_HBH_ETHERTYPE,	/* u16: the reports' Ethertype, host order; set at
				 * creation only (default HBH_ETH_P)
				 */
	__TCA_HBH_MAX
};

/* Which dumped values follow rate (configured 0) rather than being set. */
#define TC_HBH_DERIVED_RISE	0x1
#define TC_HBH_DERIVED_RATE_MIN	0x2

#define TCA_HBH_MAX	(__TCA_HBH_MAX - 1)

/* Dumps carry the values in use: RISE and RATE_MIN after their defaults. */

enum tc_hbh_mode {
	TC_HBH_MODE_HBH,	/* control every flow from the next hop's feedback */
	TC_HBH_MODE_E2E,	/* control only at the source, from the bottleneck */
	TC_HBH_MODE_FIFO,	/* one shaped drop-tail queue, no feedback */
};

#define HBH_SCALE		1024U		/* alpha, beta */
#define HBH_LIMIT_MAX		1000000U
#define HBH_RATE_MAX		(1ULL << 40)	/* bytes/s (8.8 Tbit/s) */
#define HBH_PERIOD_MIN		100000U		/* 100 us */
#define HBH_PERIOD_MAX		1000000000U	/* 1 s */
#define HBH_HOPRTT_MIN		10000U		/* 10 us */
#define HBH_HOPRTT_MAX		4000000000U	/* 4 s */
#define HBH_KEY_MIN		16U		/* bytes: 128-bit key */
#define HBH_KEY_MAX		32U		/* bytes: 256-bit key */
#define HBH_ETHERTYPE_MIN	0x0600U		/* below: an 802.3 length */

/* Defaults of the options left out at creation (rate has none). */
#define HBH_LIMIT_DEFAULT	10000U		/* packets */
#define HBH_FLOW_LIMIT_DEFAULT	100U		/* packets */
#define HBH_SETPOINT_DEFAULT	20U		/* packets */
#define HBH_PERIOD_DEFAULT	4000000U	/* 4 ms */
#define HBH_HOPRTT_DEFAULT	20000000U	/* 20 ms */
#define HBH_ALPHA_DEFAULT	410U		/* 0.4 */
#define HBH_BETA_DEFAULT	461U		/* 0.45 */
#define HBH_RISE_DIVISOR	64U		/* rise 0: rate / 64 */
#define HBH_RATE_MIN_DIVISOR	1024U		/* rate_min 0: rate / 1024 */
#define HBH_MODE_DEFAULT	TC_HBH_MODE_HBH

/*
 * The first member of both TCA_STATS_APP structs: tc hands the qdisc's and
 * each flow's (class) statistics to the same print_xstats, which reads
 * this to tell them apart (0 is neither).
 */
enum {
	TC_HBH_XSTATS_QDISC = 1,	/* struct tc_hbh_xstats */
	TC_HBH_XSTATS_FLOW = 2,		/* struct tc_hbh_flow_xstats */
};

/* TCA_STATS_APP of the qdisc; newer members are only ever appended. */
struct tc_hbh_xstats {
	__u32 type;		/* TC_HBH_XSTATS_QDISC */
	__u32 pad0;
	__u32 flows;		/* flows in the table */
	__u32 throttled;	/* flows waiting for their next send time */
	__u64 fb_sent;		/* feedback frames sent upstream */
	__u64 fb_received;	/* feedback frames accepted */
	__u64 fb_rejected;	/* frames refused: malformed, truncated, stale */
	__u64 fb_entries_ignored; /* entries naming no flow of this qdisc */
	__u64 overlimit_dropped; /* drops because "limit" was reached */
	__u64 flow_dropped;	/* drops because "flow_limit" was reached */
	__u64 flows_gc;		/* idle flows collected */
	__u64 flow_overflow;	/* packets queued unclassified: table full */
	__u32 controlled;	/* flows whose rate the next hop controls */
	__u32 buckets;		/* hash buckets (0: older module); the table
				 * holds at most 4 flows a bucket
				 */
	__u64 fb_expired;	/* controlled flows set free, no report */
	__u64 fb_bytes;		/* bytes of the feedback frames sent, link header included */
	__u64 fb_unsendable;	/* report entries not sent: upstream not Ethernet
				 * or its MTU below one entry, or beyond the
				 * period's route lookups (sent on a later visit)
				 */
	__u64 fb_badauth;	/* reports refused: no tag, a wrong tag, or a
				 * keyed report at a qdisc without a key
				 */
	__u64 fb_replay;	/* authentic reports refused: counter already
				 * seen or older than the window
				 */
};

/* A flow's state in "tc -s class show" (TCA_STATS_APP of each class). */
enum tc_hbh_flow_state {
	TC_HBH_FLOW_FREE,	/* no report: at the link rate */
	TC_HBH_FLOW_BASELINE,	/* one report: counters known, no rate yet */
	TC_HBH_FLOW_CONTROLLED,	/* rate set by the next hop's reports */
	TC_HBH_FLOW_RELAY,	/* e2e mode, not the source: relays reports */
};

/*
 * A flow's identity, the same in the qdisc's table, its per-flow statistics
 * and the feedback entries on the wire: 40 bytes, no implicit padding.
 */
struct hbh_flow_key {
	__be32 saddr[4];	/* IPv4: saddr[0] only, rest zero */
	__be32 daddr[4];
	__be16 sport;
	__be16 dport;
	__u8 proto;
	__u8 family;		/* HBH_FB_FAMILY_* */
	__u16 zero;		/* zero */
};

/* TCA_STATS_APP of a flow (class) */
struct tc_hbh_flow_xstats {
	__u32 type;		/* TC_HBH_XSTATS_FLOW */
	__u32 pad0;
	struct hbh_flow_key key;
	__u32 qlen;		/* packets queued */
	__u32 backlog;		/* bytes queued */
	__s32 up_ifindex;	/* interface the flow arrives on, 0: local */
	__u8 state;		/* enum tc_hbh_flow_state */
	__u8 pad[3];
	__u64 rate;		/* lambda, bytes/s */
	__u64 mhat;		/* m^: next hop's service rate, bytes/s */
	__s64 xhat;		/* predicted occupancy at the next hop, bytes */
	__u64 dep_rate;		/* measured departures, bytes/s */
	__u64 arrived;		/* cumulative bytes, drops included */
	__u64 departed;
	__u64 fb_age;		/* ns since the last report, ~0: none yet */
};

/*
 * Feedback frames: Ethertype HBH_ETH_P, link-local, all fields in network
 * byte order.  A header is followed by "count" entries; one entry per flow
 * the sender (the downstream node) receives from the node it sends to.
 * Counters are cumulative, so lost frames cost nothing but freshness.
 */
#define HBH_ETH_P		0x88B5		/* IEEE 802 local experimental 1 */
#define HBH_FB_MAGIC		0x4842		/* "HB" */
#define HBH_FB_VERSION		1
#define HBH_FB_TYPE_REPORT	1	/* unauthenticated */
#define HBH_FB_TYPE_REPORT_KEYED 2	/* entries, then struct hbh_fb_auth */

struct hbh_fb_hdr {
	__be16 magic;
	__u8 version;
	__u8 type;
	__be16 count;		/* entries that follow */
	__be16 reserved;	/* zero */
	__be32 node;		/* sender's id, random per qdisc */
	__be32 seq;		/* per sender, +1 per frame */
	__be64 t_meas;		/* sender's clock at the measurement, ns */
};

#define HBH_FB_FAMILY_IPV4	4
#define HBH_FB_FAMILY_IPV6	6

struct hbh_fb_entry {
	struct hbh_flow_key key;	/* key.zero must be zero */
	__be32 q_pkts;		/* packets of the flow queued at the sender */
	__be32 q_bytes;
	__be32 setpoint;	/* x* for this flow at the sender, bytes */
	__be32 origin;		/* node whose queue this is (e2e relays) */
	__be64 arrived;		/* cumulative bytes of the flow arrived (incl. drops) */
	__be64 departed;	/* cumulative bytes of the flow sent on */
};

/*
 * The trailer of a keyed report (HBH_FB_TYPE_REPORT_KEYED), after the
 * entries.  "counter" is the sender's (header "node"), +1 per keyed frame,
 * never reused by one qdisc.  "tag" is keyed BLAKE2s with a 16-byte output
 * (RFC 7693) under the link's key, over the Ethernet destination, source
 * and Ethertype (14 bytes, as sent) followed by the frame's payload up to
 * and including "counter".
 */
#define HBH_FB_TAG_LEN		16

struct hbh_fb_auth {
	__be64 counter;
	__u8 tag[HBH_FB_TAG_LEN];
};

#endif /* _UAPI_CONGAVOID_TC_HBH_H */
