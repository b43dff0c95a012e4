// SPDX-License-Identifier: GPL-2.0
/*
 * sch_hbh.c	Hop-by-hop rate-based congestion control.
 *
 * P. P. Mishra and H. Kanakia, "A Hop by Hop Rate-based Congestion Control
 * Scheme", ACM SIGCOMM '92.
 *
 * A classless qdisc for a node's egress: per-flow queues (flows keyed by
 * the dissected 5-tuple), each flow sent at its own rate lambda (a per-flow
 * time_next_packet, as in sch_fq), the link as a whole shaped at "rate",
 * round robin between the flows that may send.
 *
 * Every period T the qdisc reports, to each upstream neighbour that feeds
 * flows into it (the interface the flows arrived on, skb->skb_iif), each
 * flow's occupancy and cumulative arrivals and departures, in link-local
 * frames of Ethertype HBH_ETH_P.  The frames are received by the same
 * module on the upstream node (dev_add_pack), on the device they arrive on,
 * whose root qdisc is the hbh instance sending those flows; the rate law of
 * hbh_core.h sets each flow's lambda from them.  Feedback frames go out
 * ahead of data and are never shaped.  A flow without feedback (next hop
 * without hbh, or a host) runs uncontrolled at the link rate.
 *
 * mode e2e: only flows that start here (skb_iif == 0) are controlled; a
 * router relays upstream the most occupied report it has for each flow,
 * its own or the one from downstream, so the source is driven by the
 * bottleneck (set "hoprtt" at the source to the end-to-end loop delay).
 * mode fifo: one shaped drop-tail queue, no feedback.
 *
 * Without a key, feedback is not authenticated: a node on the link can
 * send reports for any flow, bounded only by the rate law's clamps
 * [rate_min, rate].  With "key", every report carries a keyed BLAKE2s tag
 * and a counter, and a report without a valid tag or with a counter seen
 * before does nothing (docs/design/hbh-trust.md).  Only a device's root
 * qdisc receives reports, through a packet handler of its own on that
 * device: other devices and namespaces see no handler at all.
 */

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/skbuff.h>
#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <linux/hrtimer.h>
#include <linux/jhash.h>
#include <linux/log2.h>
#include <linux/random.h>
#include <linux/rbtree.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/ktime.h>
#include <linux/if_arp.h>
#include <crypto/algapi.h>
#include <crypto/blake2s.h>
#include <net/arp.h>
#include <net/flow_dissector.h>
#include <net/ip6_route.h>
#include <net/ndisc.h>
#include <net/route.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>

#include <congavoid/tc_hbh.h>
#include "congavoid_compat.h"
#include "congavoid_gso.h"
#include "hbh_core.h"

#define CREATE_TRACE_POINTS
#include "hbh_trace.h"

#define MAX_FLOWS_DEFAULT	16384
#define GC_AGE_MS_DEFAULT	2000

static unsigned int max_flows __read_mostly = MAX_FLOWS_DEFAULT;
CONGAVOID_PARAM_UINT(max_flows, max_flows, 16, 1048576, MAX_FLOWS_DEFAULT,
		     "flows per qdisc; beyond, packets share one uncontrolled queue");

static unsigned int gc_age_ms __read_mostly = GC_AGE_MS_DEFAULT;
CONGAVOID_PARAM_UINT(gc_age_ms, gc_age_ms, 100, 600000, GC_AGE_MS_DEFAULT,
		     "idle time after which an empty flow is collected, ms");

/* hash buckets: max_flows / 4 at creation, a power of two in this range */
#define HBH_BUCKETS_MIN		256
#define HBH_BUCKETS_MAX		BIT(18)
#define HBH_GC_SCAN		64	/* flows looked at per period */
#define HBH_VISIT_NS		4000	/* timer work: one flow per 4 us of period */
#define HBH_VISIT_MIN		16	/* ... but at least this many */
#define HBH_CTL_LIMIT		256	/* feedback frames queued for sending */
#define HBH_FIB_NS		16000	/* route lookups: one per 16 us of period */
#define HBH_FIB_MIN		8	/* ... but at least this many */
#define HBH_FIB_MAX		64	/* ... and at most */

enum hbh_where { HBH_IDLE, HBH_ACTIVE, HBH_THROTTLED };

/* Which of the timer's lists a recently active flow is on (hbh_snapshot). */
enum hbh_rpt { HBH_RPT_NONE, HBH_RPT_WAIT, HBH_RPT_READY };

struct hbh_flow {
	struct hlist_node hnode;	/* q->hash */
	struct list_head lru;		/* q->lru, in the order of gc's visits */
	struct list_head active;	/* q->active while it may send */
	struct list_head rpt;		/* q->ready or q->rpt: recently active */
	struct rb_node rb;		/* q->throttled, by time_next_packet */
	struct hbh_flow_key key;
	struct sk_buff *head;
	struct sk_buff *tail;
	u32 qlen;
	u32 backlog;
	int deficit;
	u8 where;			/* enum hbh_where */
	u8 rpt_on;			/* enum hbh_rpt */
	int up_ifindex;			/* where the flow comes from, 0: local */
	u32 avg_len;			/* mean packet size, bytes */
	u64 arrived;			/* cumulative bytes, drops included */
	u64 departed;
	u64 dep_rate;			/* departures, bytes/s, EWMA per report */
	u64 dep_mark;			/* departed at the last measurement */
	u64 dep_at;			/* time of the last measurement, 0: none */
	u32 fb_credit;			/* report budget, bytes (hbh_core.h) */
	u64 time_next_packet;
	u64 last_active;
	u64 last_fb;			/* last report applied */
	struct hbh_ctl ctl;
	struct hbh_report down;		/* e2e: last report from downstream */
	u64 down_at;
};

/* The link's key; replaced whole, freed after a grace period, wiped. */
struct hbh_key {
	struct rcu_head rcu;
	u8 len;
	u8 bytes[HBH_KEY_MAX];
};

struct hbh_sched_data {
	struct hbh_params params;
	u64 rise_cfg;			/* as configured, 0: rate / 64 */
	u64 rate_min_cfg;		/* as configured, 0: rate / 1024 */
	u32 flow_limit;
	u32 setpoint;			/* packets, 0: dynamic */
	u32 period;			/* ns */
	u32 hoprtt;			/* ns */
	u8 mode;			/* enum tc_hbh_mode */
	bool dead;			/* destroyed: feedback finds nothing */

	u32 quantum;
	u32 node;			/* our id in feedback frames */
	u32 seq;
	u64 fb_ctr;			/* keyed frames sent: their counter */
	struct hbh_key __rcu *key;
	u16 ethertype;			/* of the reports, sent and received */
	bool pt_added;
	struct packet_type pt;		/* reports on our device, if root */
	struct hbh_replay_table replay;	/* under the qdisc lock */
	u32 hash_seed;
	u32 hash_mask;			/* buckets - 1 */
	u64 link_next;
	u64 link_recip;			/* hbh_ns_recip(params.rate) */
	u64 nbr_at;			/* last report accepted from the next hop */
	struct hlist_head *hash;
	struct list_head lru;
	struct list_head active;
	struct list_head ready;		/* ... that earned a report entry */
	struct list_head rpt;		/* recently active flows, round robin */
	bool timer_on;			/* armed or running; under the root lock */
	struct rb_root throttled;
	struct hbh_flow other;		/* fifo mode, non-IP, table full */
	struct sk_buff_head ctlq;	/* feedback frames to send */

	struct qdisc_watchdog watchdog;
	struct hrtimer timer;
	struct Qdisc *sch;
	/* the timer's alone: one period's report and where each entry goes */
	struct hbh_fb_entry *fb_buf;
	struct hbh_fb_dest *fb_dest;
	u16 *fb_order;			/* indices, sorted (hbh_core.h) */
	u32 fib_next;			/* the source to look up first */

	u32 flows;
	u32 nthrottled;
	u32 ncontrolled;
	u64 fb_sent;
	u64 fb_received;
	atomic64_t fb_rejected;		/* counted without the lock */
	atomic64_t fb_badauth;		/* counted without the lock */
	u64 fb_replay;
	u64 fb_entries_ignored;
	u64 overlimit_dropped;
	u64 flow_dropped;
	u64 flows_gc;
	u64 flow_overflow;
	u64 fb_expired;
	u64 fb_bytes;
	u64 fb_unsendable;
};

/*
 * Reports this module sends carry this secret in the qdisc private area of
 * their skb's control block from hbh_send_frame() to the enqueue of the
 * device they go out on; only they take the control queue.  Nothing outside
 * the kernel can set the control block, and a random 64-bit value cannot be
 * guessed: anything else of a report's Ethertype (a raw socket's frames, a
 * forwarded frame) is ordinary traffic, classified and shaped.  The mark is
 * cleared at enqueue, so it does not outlive one qdisc.
 */
static u64 hbh_secret __read_mostly;

struct hbh_skb_cb {
	u64 secret;
};

static struct hbh_skb_cb *hbh_skb_cb(struct sk_buff *skb)
{
	qdisc_cb_private_validate(skb, sizeof(struct hbh_skb_cb));
	return (struct hbh_skb_cb *)qdisc_skb_cb(skb)->data;
}

/* An own report: the mark is checked and cleared. */
static bool hbh_own_report(struct sk_buff *skb)
{
	struct hbh_skb_cb *cb;

	cb = hbh_skb_cb(skb);
	if (cb->secret != hbh_secret)
		return false;
	cb->secret = 0;
	return true;
}

static struct kmem_cache *hbh_flow_cachep __read_mostly;
static struct Qdisc_ops hbh_qdisc_ops;

/* Feedback older than this leaves a flow uncontrolled. */
static u64 hbh_fb_timeout(const struct hbh_sched_data *q)
{
	return max_t(u64, 50ULL * q->period, 4ULL * q->hoprtt);
}

static bool hbh_controls(const struct hbh_sched_data *q,
			 const struct hbh_flow *f)
{
	if (f == &q->other)
		return false;
	return q->mode == TC_HBH_MODE_HBH ||
	       (q->mode == TC_HBH_MODE_E2E && !f->up_ifindex);
}

/* ---- flow table ---- */

static bool hbh_key_of(const struct sk_buff *skb, struct hbh_flow_key *k)
{
	struct flow_keys keys;

	memset(k, 0, sizeof(*k));
	if (!skb_flow_dissect_flow_keys(skb, &keys, 0))
		return false;
	switch (keys.control.addr_type) {
	case FLOW_DISSECTOR_KEY_IPV4_ADDRS:
		k->saddr[0] = keys.addrs.v4addrs.src;
		k->daddr[0] = keys.addrs.v4addrs.dst;
		k->family = HBH_FB_FAMILY_IPV4;
		break;
	case FLOW_DISSECTOR_KEY_IPV6_ADDRS:
		memcpy(k->saddr, &keys.addrs.v6addrs.src, 16);
		memcpy(k->daddr, &keys.addrs.v6addrs.dst, 16);
		k->family = HBH_FB_FAMILY_IPV6;
		break;
	default:
		return false;
	}
	k->sport = keys.ports.src;
	k->dport = keys.ports.dst;
	k->proto = keys.basic.ip_proto;
	return true;
}

/*
 * The table's bound now: max_flows, but never more than 4 flows a bucket
 * on average (the table was sized for max_flows at creation; raised
 * since, it would only lengthen every lookup's chain).
 */
static u32 hbh_flows_max(const struct hbh_sched_data *q)
{
	return min(READ_ONCE(max_flows), 4 * (q->hash_mask + 1));
}

/*
 * An IPv4 key's other address words are zero: its hash takes the four
 * words that can differ (one jhash round instead of three).  Equal keys
 * hash alike, which is all a lookup needs; the compare is over the whole.
 */
static struct hlist_head *hbh_bucket(const struct hbh_sched_data *q,
				     const struct hbh_flow_key *k)
{
	const u32 *w = (const u32 *)k;
	u32 h;

	BUILD_BUG_ON(sizeof(*k) != 10 * sizeof(u32));
	BUILD_BUG_ON(offsetof(struct hbh_flow_key, sport) != 8 * sizeof(u32));
	if (k->family == HBH_FB_FAMILY_IPV4) {
		u32 v4[4] = { w[0], w[4], w[8], w[9] };

		h = jhash2(v4, ARRAY_SIZE(v4), q->hash_seed);
	} else {
		h = jhash2(w, sizeof(*k) / sizeof(u32), q->hash_seed);
	}
	return &q->hash[h & q->hash_mask];
}

/* Word by word: an out-of-line memcmp() per candidate costs a call. */
static bool hbh_key_eq(const struct hbh_flow_key *a,
		       const struct hbh_flow_key *b)
{
	const u32 *x = (const u32 *)a, *y = (const u32 *)b;
	u32 diff = 0;
	unsigned int i;

	BUILD_BUG_ON(sizeof(*a) % sizeof(u32));
	for (i = 0; i < sizeof(*a) / sizeof(u32); i++)
		diff |= x[i] ^ y[i];
	return !diff;
}

static struct hbh_flow *hbh_lookup(const struct hbh_sched_data *q,
				   const struct hbh_flow_key *k)
{
	struct hbh_flow *f;

	hlist_for_each_entry(f, hbh_bucket(q, k), hnode)
		if (hbh_key_eq(&f->key, k))
			return f;
	return NULL;
}

static void hbh_flow_setup(struct hbh_sched_data *q, struct hbh_flow *f)
{
	INIT_LIST_HEAD(&f->lru);
	INIT_LIST_HEAD(&f->active);
	INIT_LIST_HEAD(&f->rpt);
	RB_CLEAR_NODE(&f->rb);
	hbh_ctl_init(&f->ctl, &q->params);
}

static struct hbh_flow *hbh_classify(struct hbh_sched_data *q,
				     struct sk_buff *skb)
{
	struct hbh_flow *f;
	struct hbh_flow_key k;
	u64 now;

	if (q->mode == TC_HBH_MODE_FIFO || !hbh_key_of(skb, &k))
		return &q->other;
	f = hbh_lookup(q, &k);
	if (f)
		return f;
	if (q->flows >= hbh_flows_max(q))
		goto overflow;
	f = kmem_cache_zalloc(hbh_flow_cachep, GFP_ATOMIC | __GFP_NOWARN);
	if (!f)
		goto overflow;
	hbh_flow_setup(q, f);
	f->key = k;
	now = ktime_get_ns();
	f->dep_at = now;
	if (q->mode == TC_HBH_MODE_HBH && q->nbr_at &&
	    now - q->nbr_at < hbh_fb_timeout(q)) {
		hbh_ctl_ramp(&f->ctl, &q->params);
		f->last_fb = now;
		q->ncontrolled++;
	}
	hlist_add_head(&f->hnode, hbh_bucket(q, &k));
	list_add_tail(&f->lru, &q->lru);
	q->flows++;
	return f;

overflow:
	q->flow_overflow++;
	return &q->other;
}

static void hbh_flow_add_skb(struct hbh_flow *f, struct sk_buff *skb)
{
	skb->next = NULL;
	if (f->head)
		f->tail->next = skb;
	else
		f->head = skb;
	f->tail = skb;
	f->qlen++;
	f->backlog += qdisc_pkt_len(skb);
}

static struct sk_buff *hbh_flow_pop(struct hbh_flow *f)
{
	struct sk_buff *skb = f->head;

	f->head = skb->next;
	skb_mark_not_on_list(skb);
	f->qlen--;
	f->backlog -= qdisc_pkt_len(skb);
	return skb;
}

static void hbh_throttle(struct hbh_sched_data *q, struct hbh_flow *f)
{
	struct rb_node **p = &q->throttled.rb_node, *parent = NULL;

	while (*p) {
		struct hbh_flow *o = rb_entry(*p, struct hbh_flow, rb);

		parent = *p;
		if (f->time_next_packet >= o->time_next_packet)
			p = &parent->rb_right;
		else
			p = &parent->rb_left;
	}
	rb_link_node(&f->rb, parent, p);
	rb_insert_color(&f->rb, &q->throttled);
	f->where = HBH_THROTTLED;
	q->nthrottled++;
}

static void hbh_unthrottle_one(struct hbh_sched_data *q, struct hbh_flow *f)
{
	rb_erase(&f->rb, &q->throttled);
	RB_CLEAR_NODE(&f->rb);
	q->nthrottled--;
	f->where = HBH_IDLE;
}

/* Sent at its own rate: controlled, below the link's. */
static bool hbh_paced(const struct hbh_sched_data *q, const struct hbh_flow *f)
{
	return hbh_controls(q, f) && f->ctl.state == HBH_CONTROLLED &&
	       f->ctl.rate < q->params.rate;
}

/* A flow with packets goes where it can next send. */
static void hbh_schedule_flow(struct hbh_sched_data *q, struct hbh_flow *f,
			      u64 now)
{
	if (f->time_next_packet > now && hbh_paced(q, f)) {
		hbh_throttle(q, f);
	} else {
		list_add_tail(&f->active, &q->active);
		f->where = HBH_ACTIVE;
	}
}

static void hbh_flow_detach(struct hbh_sched_data *q, struct hbh_flow *f)
{
	if (f->where == HBH_THROTTLED)
		hbh_unthrottle_one(q, f);
	else if (f->where == HBH_ACTIVE)
		list_del_init(&f->active);
	f->where = HBH_IDLE;
}

static void hbh_flow_free(struct hbh_sched_data *q, struct hbh_flow *f)
{
	hbh_flow_detach(q, f);
	if (f->ctl.state == HBH_CONTROLLED)
		q->ncontrolled--;
	hlist_del(&f->hnode);
	list_del(&f->lru);
	list_del(&f->rpt);
	q->flows--;
	kmem_cache_free(hbh_flow_cachep, f);
}

/* Drop every packet of @f (reset, destroy), with the qdisc's counts. */
static void hbh_flow_purge(struct Qdisc *sch, struct hbh_flow *f)
{
	while (f->head) {
		struct sk_buff *skb = hbh_flow_pop(f);

		qdisc_qstats_backlog_dec(sch, skb);
		sch->q.qlen--;
		rtnl_kfree_skbs(skb, skb);
	}
}

static void hbh_free_all(struct Qdisc *sch)
{
	struct hbh_sched_data *q = qdisc_priv(sch);
	struct hbh_flow *f, *n;

	list_for_each_entry_safe(f, n, &q->lru, lru) {
		hbh_flow_purge(sch, f);
		hbh_flow_free(q, f);
	}
	hbh_flow_purge(sch, &q->other);
	hbh_flow_detach(q, &q->other);
	hbh_ctl_init(&q->other.ctl, &q->params);
	q->ncontrolled = 0;
}

/* ---- data path ---- */

static int hbh_enqueue_one(struct sk_buff *skb, struct Qdisc *sch,
			   struct sk_buff **to_free)
{
	struct hbh_sched_data *q = qdisc_priv(sch);
	u32 len = qdisc_pkt_len(skb);
	struct hbh_flow *f;

	if (unlikely(hbh_own_report(skb))) {
		/* our own report: ahead of data, charged to the link */
		if (skb_queue_len(&q->ctlq) >= HBH_CTL_LIMIT)
			return qdisc_drop(skb, sch, to_free);
		__skb_queue_tail(&q->ctlq, skb);
		qdisc_qstats_backlog_inc(sch, skb);
		sch->q.qlen++;
		return NET_XMIT_SUCCESS;
	}

	f = hbh_classify(q, skb);
	f->arrived += len;

	/*
	 * The unclassified queue (non-IP, a full table) has the per-flow
	 * limit too, except in fifo mode where it is the only queue.
	 */
	if (unlikely(f->qlen >= q->flow_limit) &&
	    (f != &q->other || q->mode != TC_HBH_MODE_FIFO)) {
		q->flow_dropped++;
		return qdisc_drop(skb, sch, to_free);
	}
	if (unlikely(sch->q.qlen >= sch->limit)) {
		q->overlimit_dropped++;
		return qdisc_drop(skb, sch, to_free);
	}

	/* active, and earning report budget, only for what it admits */
	f->up_ifindex = skb->skb_iif;
	/*
	 * To the tick: last_active serves the report window and gc, the
	 * dequeue sets it exactly; the coarse clock saves a clock read.
	 */
	f->last_active = ktime_get_coarse_ns();
	f->fb_credit = hbh_credit_add(f->fb_credit, len);
	if (f != &q->other) {
		/* the timer looks at the flows that can report (hbh_snapshot) */
		if (f->fb_credit >= HBH_FB_COST) {
			if (f->rpt_on != HBH_RPT_READY) {
				list_move_tail(&f->rpt, &q->ready);
				f->rpt_on = HBH_RPT_READY;
			}
		} else if (f->rpt_on == HBH_RPT_NONE) {
			list_add_tail(&f->rpt, &q->rpt);
			f->rpt_on = HBH_RPT_WAIT;
		}
		/* no timer while idle: armed by the first packet */
		if (unlikely(!q->timer_on)) {
			q->timer_on = true;
			hrtimer_start(&q->timer, ns_to_ktime(q->period),
				      HRTIMER_MODE_REL_SOFT);
		}
	}

	f->avg_len = f->avg_len ? (u32)hbh_ewma8(f->avg_len, len) : len;
	hbh_flow_add_skb(f, skb);
	if (f->where == HBH_IDLE) {
		f->deficit = q->quantum;
		/* the clock only for a flow that may have to wait (paced) */
		hbh_schedule_flow(q, f, f->time_next_packet ? ktime_get_ns() : 0);
	}
	qdisc_qstats_backlog_inc(sch, skb);
	sch->q.qlen++;
	return NET_XMIT_SUCCESS;
}

/*
 * hbh counts packets on the wire: flow_limit, limit, the setpoint and the
 * occupancy a report gives its upstream neighbour are in packets, and a
 * GSO skb (GRO at a router's ingress, TSO from a local sender) is split
 * here, as tbf and cake do, so that each of its segments is queued, paced
 * and counted as the packet it will be.  Neighbours with different
 * offloads then mean the same packets in their reports.
 */
static int hbh_enqueue(struct sk_buff *skb, struct Qdisc *sch,
		       struct sk_buff **to_free)
{
	if (skb_is_gso(skb))
		return congavoid_gso_split(skb, sch, to_free, hbh_enqueue_one);
	return hbh_enqueue_one(skb, sch, to_free);
}

static void hbh_unthrottle(struct hbh_sched_data *q, u64 now)
{
	struct rb_node *p;

	while ((p = rb_first(&q->throttled))) {
		struct hbh_flow *f = rb_entry(p, struct hbh_flow, rb);

		if (f->time_next_packet > now)
			break;
		hbh_unthrottle_one(q, f);
		list_add_tail(&f->active, &q->active);
		f->where = HBH_ACTIVE;
	}
}

static struct sk_buff *hbh_dequeue(struct Qdisc *sch)
{
	struct hbh_sched_data *q = qdisc_priv(sch);
	struct hbh_flow *f;
	struct sk_buff *skb;
	u64 now = ktime_get_ns();
	u32 len;

	skb = __skb_dequeue(&q->ctlq);
	if (skb) {
		/* ahead of data, but its bytes count against the link */
		q->link_next = hbh_advance(q->link_next, now,
					   hbh_len_ns_recip(qdisc_pkt_len(skb),
							    q->link_recip),
					   2ULL * q->period);
		goto out;
	}
	if (!sch->q.qlen)
		return NULL;
	if (now < q->link_next) {
		qdisc_watchdog_schedule_ns(&q->watchdog, q->link_next);
		return NULL;
	}
	hbh_unthrottle(q, now);

	for (;;) {
		f = list_first_entry_or_null(&q->active, struct hbh_flow,
					     active);
		if (!f) {
			struct rb_node *p = rb_first(&q->throttled);

			if (p) {
				f = rb_entry(p, struct hbh_flow, rb);
				qdisc_watchdog_schedule_ns(&q->watchdog,
							   f->time_next_packet);
			}
			return NULL;
		}
		if (f->deficit <= 0) {
			f->deficit += q->quantum;
			list_move_tail(&f->active, &q->active);
			continue;
		}
		break;
	}

	skb = hbh_flow_pop(f);
	len = qdisc_pkt_len(skb);
	f->deficit -= len;
	f->departed += len;
	f->last_active = now;

	if (hbh_controls(q, f) && f->ctl.state == HBH_CONTROLLED &&
	    now - f->last_fb > hbh_fb_timeout(q)) {
		hbh_ctl_expire(&f->ctl, &q->params);
		q->ncontrolled--;
		q->fb_expired++;
	}
	if (hbh_paced(q, f))
		f->time_next_packet = hbh_advance(f->time_next_packet, now,
						  hbh_len_ns(len, f->ctl.rate),
						  q->period);
	else
		f->time_next_packet = 0;	/* the link paces it */
	/* it keeps its turn at the head while it has packets and credit */
	if (!f->qlen || f->deficit <= 0 || f->time_next_packet > now) {
		list_del_init(&f->active);
		f->where = HBH_IDLE;
		if (f->qlen)
			hbh_schedule_flow(q, f, now);
	}
	q->link_next = hbh_advance(q->link_next, now,
				   hbh_len_ns_recip(len, q->link_recip),
				   2ULL * q->period);
out:
	qdisc_qstats_backlog_dec(sch, skb);
	sch->q.qlen--;
	qdisc_bstats_update(sch, skb);
	return skb;
}

static void hbh_reset(struct Qdisc *sch)
{
	struct hbh_sched_data *q = qdisc_priv(sch);

	hbh_free_all(sch);
	__skb_queue_purge(&q->ctlq);
	sch->q.qlen = 0;
	sch->qstats.backlog = 0;
	q->link_next = 0;
	qdisc_watchdog_cancel(&q->watchdog);
}

/* ---- feedback: sending ---- */

static void hbh_fill_entry(struct hbh_fb_entry *e, const struct hbh_flow *f,
			   u32 origin, u32 q_pkts, u32 q_bytes, u32 setpoint,
			   u64 arrived, u64 departed)
{
	e->key = f->key;		/* key.zero is zero in the table */
	e->q_pkts = htonl(q_pkts);
	e->q_bytes = htonl(q_bytes);
	e->setpoint = htonl(setpoint);
	e->origin = htonl(origin);
	e->arrived = cpu_to_be64(arrived);
	e->departed = cpu_to_be64(departed);
}

/* The departure rate since the flow's last measurement, into its EWMA. */
static void hbh_measure(struct hbh_flow *f, u64 now)
{
	if (f->dep_at)
		f->dep_rate = hbh_dep_rate(f->dep_rate,
					   f->departed - f->dep_mark,
					   now - f->dep_at);
	f->dep_mark = f->departed;
	f->dep_at = now;
}

/* Reports from a flow go to its upstream neighbour, if it has one. */
static bool hbh_reports(const struct hbh_sched_data *q,
			const struct hbh_flow *f)
{
	return q->mode != TC_HBH_MODE_FIFO && f->up_ifindex;
}

/* Idle for the report window: @f leaves the timer's lists. */
static bool hbh_rpt_expired(struct hbh_flow *f, u64 now, u64 window)
{
	if (now - f->last_active <= window)
		return false;
	list_del_init(&f->rpt);
	f->rpt_on = HBH_RPT_NONE;
	return true;
}

/* q->fb_buf[@cnt] and its destination: @f's report, measured now. */
static void hbh_report_flow(struct Qdisc *sch, struct hbh_flow *f, u64 now,
			    u64 window, unsigned int cnt)
{
	struct hbh_sched_data *q = qdisc_priv(sch);
	const struct hbh_report *d = &f->down;
	u32 sp;

	/* measured when it reports, over the real interval */
	hbh_measure(f, now);
	sp = hbh_setpoint(q->setpoint, f->avg_len ? : 1, f->dep_rate,
			  sch->limit, q->params.rate);
	if (q->mode == TC_HBH_MODE_E2E && f->down_at &&
	    now - f->down_at <= window && d->q_pkts >= f->qlen)
		hbh_fill_entry(&q->fb_buf[cnt], f, d->origin, d->q_pkts,
			       d->q_bytes, d->setpoint, d->arrived,
			       d->departed);
	else
		hbh_fill_entry(&q->fb_buf[cnt], f, q->node, f->qlen,
			       f->backlog, sp, f->arrived, f->departed);
	q->fb_dest[cnt].ifindex = f->up_ifindex;
}

/*
 * Under the root lock: one entry per recently active flow that came from a
 * neighbour and earned one, with the ifindex to send it on.  Also the
 * per-flow departure rate for the dynamic setpoint, and garbage collection.
 *
 * A flow joins q->rpt with its first admitted packet, moves to q->ready
 * once its report budget holds an entry (hbh_core.h: one per HBH_FB_COST
 * bytes it carried), back to q->rpt when it spent it, and leaves both once
 * it has been idle for the report window.  The timer visits q->ready, where
 * every flow reports (a local one is only measured, for its class stats),
 * then q->rpt for the period's floor: the first flow from a neighbour
 * there reports without budget, so that a lone slow flow is still reported
 * every period (but none twice: those that just spent their budget join
 * q->rpt after the floor's walk).  A router with many slow flows so visits about as many
 * flows as it reports, not every recently active one every period.
 *
 * The work is bounded: at most one visit per HBH_VISIT_NS of period (25 at
 * 100 us, 1000 at 4 ms; HBH_VISIT_MIN..HBH_FB_MAX), each list round robin,
 * the next period continuing where this one stopped.
 */
static unsigned int hbh_snapshot(struct Qdisc *sch, u64 now)
{
	struct hbh_sched_data *q = qdisc_priv(sch);
	u64 window = hbh_fb_timeout(q) / 2;
	u64 gc_age = (u64)READ_ONCE(gc_age_ms) *
		     NSEC_PER_MSEC;
	unsigned int cnt = 0, scanned = 0, budget;
	struct list_head *pos;
	struct hbh_flow *f;
	u32 floor = 1;		/* entries per period beyond the budget */
	u32 no_floor = 0;
	LIST_HEAD(spent);	/* back to q->rpt once the floor is given */

	budget = clamp_t(u32, q->period / HBH_VISIT_NS, HBH_VISIT_MIN,
			 HBH_FB_MAX);
	/*
	 * Each list at most once round per period.  Visited flows that
	 * remain on it stay where they are; one rotation at the end puts
	 * them behind the unvisited ones (not one list move per visit).
	 */
	pos = q->ready.next;
	while (pos != &q->ready && budget && cnt < HBH_FB_MAX) {
		f = list_entry(pos, struct hbh_flow, rpt);
		pos = pos->next;
		budget--;
		if (hbh_rpt_expired(f, now, window))
			continue;
		if (hbh_credit_take(&f->fb_credit, &no_floor)) {
			if (hbh_reports(q, f))
				hbh_report_flow(sch, f, now, window, cnt++);
			else
				hbh_measure(f, now);	/* class stats only */
		}
		if (f->fb_credit < HBH_FB_COST) {
			list_move_tail(&f->rpt, &spent);
			f->rpt_on = HBH_RPT_WAIT;
		}
	}
	if (pos != &q->ready)
		list_rotate_to_front(pos, &q->ready);

	pos = q->rpt.next;
	while (floor && pos != &q->rpt && budget && cnt < HBH_FB_MAX) {
		f = list_entry(pos, struct hbh_flow, rpt);
		pos = pos->next;
		budget--;
		if (hbh_rpt_expired(f, now, window))
			continue;
		if (!hbh_reports(q, f)) {
			hbh_measure(f, now);		/* class stats only */
			continue;
		}
		floor--;	/* its budget holds less than an entry */
		hbh_report_flow(sch, f, now, window, cnt++);
	}
	if (pos != &q->rpt)
		list_rotate_to_front(pos, &q->rpt);
	/* (not visited twice: a flow reports at most once a period) */
	list_splice_tail(&spent, &q->rpt);

	/*
	 * Garbage collection, HBH_GC_SCAN flows per period from the head of
	 * q->lru.  The data path does not reorder the list (it saves two
	 * list moves per packet): a flow found
	 * active since gc_age, or with packets, gets a second chance at the
	 * tail; an idle one is freed.  A flow idle for gc_age is freed
	 * within flows / HBH_GC_SCAN periods.
	 */
	while (scanned++ < HBH_GC_SCAN &&
	       (f = list_first_entry_or_null(&q->lru, struct hbh_flow, lru))) {
		if (f->qlen || now - f->last_active <= gc_age) {
			list_move_tail(&f->lru, &q->lru);
			continue;
		}
		hbh_flow_free(q, f);
		q->flows_gc++;
	}
	return cnt;
}

/*
 * The tag of a keyed report: BLAKE2s-128 under @key over the Ethernet
 * destination, source and Ethertype, then @len bytes of @payload (the
 * frame up to and including the counter).  Built from the addresses, not
 * read from the frame's header, so that a device whose header is longer
 * (a VLAN tag in software) tags the same bytes as its neighbour checks.
 */
static void hbh_tag(const struct hbh_key *key, const u8 *dst, const u8 *src,
		    u16 ethertype, const void *payload, unsigned int len,
		    u8 *tag)
{
	struct blake2s_state st;
	__be16 proto = htons(ethertype);

	blake2s_init_key(&st, HBH_FB_TAG_LEN, key->bytes, key->len);
	blake2s_update(&st, dst, ETH_ALEN);
	blake2s_update(&st, src, ETH_ALEN);
	blake2s_update(&st, (const u8 *)&proto, sizeof(proto));
	blake2s_update(&st, payload, len);
	blake2s_final(&st, tag);
}

/*
 * @n (<= HBH_FB_FRAME_MAX, fitting the MTU) entries fb_buf[idx[0..n)],
 * of Ethertype @ethertype; keyed (@key) with the trailer and its tag.
 * The timer is the only sender (q->fb_ctr, q->seq).
 */
static void hbh_send_frame(struct hbh_sched_data *q, struct net_device *dev,
			   const u8 *daddr, const u16 *idx, unsigned int n,
			   u64 t_meas, const struct hbh_key *key, u16 ethertype)
{
	unsigned int hlen = LL_RESERVED_SPACE(dev);
	unsigned int plen = HBH_FB_LEN(n);
	struct hbh_fb_auth *a;
	struct hbh_fb_hdr *h;
	struct sk_buff *skb;
	unsigned int i, len;
	u8 saddr[ETH_ALEN];

	/* one copy of the address, for the tag and the header alike */
	memcpy(saddr, dev->dev_addr, ETH_ALEN);
	if (key)
		plen += sizeof(*a);
	skb = alloc_skb(hlen + plen + dev->needed_tailroom,
			GFP_ATOMIC | __GFP_NOWARN);
	if (!skb)
		return;
	skb_reserve(skb, hlen);
	skb_reset_network_header(skb);
	h = skb_put(skb, sizeof(*h));
	h->magic = htons(HBH_FB_MAGIC);
	h->version = HBH_FB_VERSION;
	h->type = key ? HBH_FB_TYPE_REPORT_KEYED : HBH_FB_TYPE_REPORT;
	h->count = htons(n);
	h->reserved = 0;
	h->node = htonl(q->node);
	h->seq = htonl(q->seq++);
	h->t_meas = cpu_to_be64(t_meas);
	for (i = 0; i < n; i++)
		skb_put_data(skb, &q->fb_buf[idx[i]], sizeof(q->fb_buf[0]));
	if (key) {
		a = skb_put(skb, sizeof(*a));
		q->fb_ctr = hbh_replay_next(q->fb_ctr,
					    ktime_get_real_seconds());
		a->counter = cpu_to_be64(q->fb_ctr);
		hbh_tag(key, daddr, saddr, ethertype, skb->data,
			skb->len - HBH_FB_TAG_LEN, a->tag);
	}

	skb->dev = dev;
	skb->protocol = htons(ethertype);
	skb->priority = TC_PRIO_CONTROL;
	if (dev_hard_header(skb, dev, ethertype, daddr, saddr, skb->len) < 0) {
		kfree_skb(skb);
		return;
	}
	hbh_skb_cb(skb)->secret = hbh_secret;
	len = skb->len;
	if (dev_queue_xmit(skb) == NET_XMIT_SUCCESS) {
		WRITE_ONCE(q->fb_sent, q->fb_sent + 1);
		WRITE_ONCE(q->fb_bytes, q->fb_bytes + len);
	}
}

/*
 * Reports need an Ethernet header: not on L3 devices (ipip, WireGuard,
 * tun).  The MTU is checked by the caller, from one read of it.
 */
static bool hbh_dev_sendable(const struct net_device *dev)
{
	return netif_running(dev) && dev->type == ARPHRD_ETHER &&
	       dev->header_ops && dev->header_ops->create &&
	       dev->addr_len == ETH_ALEN;
}

static void hbh_neigh_mac(struct neighbour *n, const struct net_device *dev,
			  u8 *mac)
{
	if (n && (READ_ONCE(n->nud_state) & NUD_VALID))
		neigh_ha_snapshot(mac, n, dev);
}

/*
 * The upstream neighbour of a flow: the next hop on @dev towards the
 * flow's source, from the routing table and the neighbour cache (the
 * Ethernet header the flow's packets came with is gone once they are
 * routed).  Broadcast if it is not known (no route on @dev, no valid
 * neighbour entry; nothing is resolved or created here).
 */
static void hbh_upstream_mac(struct net *net, struct net_device *dev,
			     const struct hbh_fb_entry *e, u8 *mac)
{
	struct neighbour *n = NULL;

	memcpy(mac, dev->broadcast, ETH_ALEN);
	if (e->key.family == HBH_FB_FAMILY_IPV4) {
		struct flowi4 fl4 = {
			.daddr		= e->key.saddr[0],
			.flowi4_oif	= dev->ifindex,
		};
		struct rtable *rt = ip_route_output_key(net, &fl4);

		if (IS_ERR(rt))
			return;
		if (rt->dst.dev == dev) {
			__be32 nh = rt_nexthop(rt, e->key.saddr[0]);

			n = __ipv4_neigh_lookup_noref(dev, (__force u32)nh);
		}
		hbh_neigh_mac(n, dev, mac);
		ip_rt_put(rt);
	}
#if IS_BUILTIN(CONFIG_IPV6)
	else if (e->key.family == HBH_FB_FAMILY_IPV6) {
		struct flowi6 fl6 = { .flowi6_oif = dev->ifindex };
		struct dst_entry *dst;

		memcpy(&fl6.daddr, e->key.saddr, sizeof(fl6.daddr));
		dst = ip6_route_output(net, NULL, &fl6);
		if (!dst->error && dst->dev == dev) {
			const struct in6_addr *nh;

			nh = rt6_nexthop((struct rt6_info *)dst, &fl6.daddr);
			n = __ipv6_neigh_lookup_noref(dev, nh);
		}
		hbh_neigh_mac(n, dev, mac);
		dst_release(dst);
	}
#endif
}

/* Drop entries @o[pos..pos+k) from this period's report. */
static void hbh_fb_drop(struct hbh_sched_data *q, unsigned int pos,
			unsigned int k)
{
	while (k--)
		q->fb_dest[q->fb_order[pos++]].ifindex = 0;
}

/* Keep the entries still to be sent, in their order; returns how many. */
static unsigned int hbh_fb_compact(struct hbh_sched_data *q, unsigned int n)
{
	unsigned int i, m = 0;

	for (i = 0; i < n; i++)
		if (q->fb_dest[q->fb_order[i]].ifindex)
			q->fb_order[m++] = q->fb_order[i];
	return m;
}

/*
 * The entries' neighbours: one route and neighbour lookup per interface
 * and source address, at most hbh_fib_budget() of them a period, taken in
 * turn over the sources (q->fib_next): the entries of the sources left
 * over are not sent this period, and their flows are reported on a later
 * visit, once their turn comes.  Returns the entries left to send; those
 * not sent are added to *@unsendable.
 */
static unsigned int hbh_fb_resolve(struct hbh_sched_data *q, struct net *net,
				   unsigned int n, unsigned int *unsendable)
{
	unsigned int i, k, j, nsrc = 0, first = 0, lookups;
	struct net_device *dev = NULL;
	int dev_ifindex = 0;

	hbh_fb_sort(q->fb_order, n, q->fb_buf, q->fb_dest, true);
	for (i = 0; (k = hbh_fb_run(q->fb_order, n, i, n, q->fb_buf,
				    q->fb_dest, true)); i += k)
		nsrc++;
	lookups = clamp_t(u32, READ_ONCE(q->period) / HBH_FIB_NS,
			  HBH_FIB_MIN, HBH_FIB_MAX);
	if (nsrc > lookups) {
		first = q->fib_next % nsrc;
		q->fib_next = first + lookups;
	}
	for (i = 0, j = 0; (k = hbh_fb_run(q->fb_order, n, i, n, q->fb_buf,
					   q->fb_dest, true)); i += k, j++) {
		struct hbh_fb_dest *d = &q->fb_dest[q->fb_order[i]];
		unsigned int m;

		if (d->ifindex != dev_ifindex) {
			dev_ifindex = d->ifindex;
			dev = dev_get_by_index_rcu(net, dev_ifindex);
			if (dev && !hbh_dev_sendable(dev))
				dev = NULL;
		}
		if (!dev || (j + nsrc - first) % nsrc >= lookups) {
			hbh_fb_drop(q, i, k);
			*unsendable += k;
			continue;
		}
		hbh_upstream_mac(net, dev, &q->fb_buf[q->fb_order[i]], d->mac);
		for (m = 1; m < k; m++)
			memcpy(q->fb_dest[q->fb_order[i + m]].mac, d->mac,
			       ETH_ALEN);
	}
	return hbh_fb_compact(q, n);
}

/*
 * The key and Ethertype of the link on @dev, for the reports sent on it:
 * those of @dev's root hbh, which holds that link's key (it checks the
 * reports its neighbour sends back on the same link); @q's own if @dev's
 * root is not an hbh.  Under rcu_read_lock(): the root and its key are
 * freed after a grace period.
 */
static void hbh_link_conf(const struct hbh_sched_data *q,
			  struct net_device *dev, const struct hbh_key **key,
			  u16 *ethertype)
{
	struct Qdisc *root = rcu_dereference(dev->qdisc);

	if (root && root->ops == &hbh_qdisc_ops)
		q = qdisc_priv(root);
	*key = rcu_dereference(q->key);
	*ethertype = READ_ONCE(q->ethertype);
}

/*
 * Outside any qdisc lock: the entries, grouped by upstream interface and
 * neighbour, unicast to the neighbour where it is known.  Entries whose
 * interface is gone, down, cannot carry an Ethernet frame or one entry
 * (its MTU, read once) are counted as unsendable, and so are those of the
 * sources beyond the period's route lookups.  The grouping sorts indices
 * in q->fb_order (hbh_core.h): n log n, nothing on the stack.
 */
static void hbh_send_reports(struct Qdisc *sch, unsigned int cnt, u64 now)
{
	struct hbh_sched_data *q = qdisc_priv(sch);
	struct net *net = dev_net(qdisc_dev(sch));
	unsigned int i, k, n = 0, per = 0, unsendable = 0;
	const struct hbh_key *key = NULL;
	struct net_device *dev = NULL;
	int dev_ifindex = 0;
	u16 ethertype = 0;

	for (i = 0; i < cnt; i++)
		if (q->fb_dest[i].ifindex)
			q->fb_order[n++] = i;
	rcu_read_lock();
	n = hbh_fb_resolve(q, net, n, &unsendable);
	hbh_fb_sort(q->fb_order, n, q->fb_buf, q->fb_dest, false);
	for (i = 0; i < n; i += k) {
		const struct hbh_fb_dest *d = &q->fb_dest[q->fb_order[i]];

		if (d->ifindex != dev_ifindex) {
			dev_ifindex = d->ifindex;
			dev = dev_get_by_index_rcu(net, dev_ifindex);
			if (dev)
				hbh_link_conf(q, dev, &key, &ethertype);
			per = !dev || !hbh_dev_sendable(dev) ? 0 :
			      key ? hbh_fb_per_frame_keyed(READ_ONCE(dev->mtu)) :
				    hbh_fb_per_frame(READ_ONCE(dev->mtu));
		}
		/* at least one entry, at most per and HBH_FB_FRAME_MAX */
		k = hbh_fb_frame(q->fb_order, n, i, per, q->fb_dest);
		if (!per)
			unsendable += k;
		else
			hbh_send_frame(q, dev, d->mac, &q->fb_order[i], k, now,
				       key, ethertype);
	}
	rcu_read_unlock();
	if (unsendable)
		WRITE_ONCE(q->fb_unsendable, q->fb_unsendable + unsendable);
}

static enum hrtimer_restart hbh_timer(struct hrtimer *timer)
{
	struct hbh_sched_data *q = container_of(timer, struct hbh_sched_data,
						timer);
	struct Qdisc *sch = q->sch;
	spinlock_t *root_lock;		/* the root qdisc's */
	unsigned int cnt;
	bool idle;
	u64 now;

	rcu_read_lock();
	root_lock = qdisc_lock(qdisc_root_sleeping(sch));
	spin_lock(root_lock);
	now = ktime_get_ns();
	cnt = hbh_snapshot(sch, now);
	/*
	 * Nothing left to report or collect: stop until the next packet.
	 * An enqueue that sees timer_on false restarts the timer, even while
	 * this callback finishes (it returns NORESTART, the new start stands).
	 */
	idle = !q->flows && list_empty(&q->ready) && list_empty(&q->rpt);
	if (idle)
		q->timer_on = false;
	spin_unlock(root_lock);
	rcu_read_unlock();

	if (cnt)
		hbh_send_reports(sch, cnt, now);
	if (idle)
		return HRTIMER_NORESTART;
	hrtimer_forward_now(timer, ns_to_ktime(READ_ONCE(q->period)));
	return HRTIMER_RESTART;
}

/* ---- feedback: receiving ---- */

static void hbh_apply(struct hbh_sched_data *q, struct hbh_flow *f,
		      const struct hbh_fb_entry *e, u64 t_meas, u64 now,
		      int ifindex)
{
	struct hbh_report r = {
		.t_meas		= t_meas,
		.arrived	= get_unaligned_be64(&e->arrived),
		.departed	= get_unaligned_be64(&e->departed),
		.q_pkts		= get_unaligned_be32(&e->q_pkts),
		.q_bytes	= get_unaligned_be32(&e->q_bytes),
		.setpoint	= get_unaligned_be32(&e->setpoint),
		.origin		= get_unaligned_be32(&e->origin),
	};
	bool was = f->ctl.state == HBH_CONTROLLED;
	enum hbh_update u;

	if (!hbh_controls(q, f)) {
		/* e2e relay: keep the latest for the upstream report */
		f->down = r;
		f->down_at = now;
		return;
	}
	u = hbh_ctl_report(&f->ctl, &q->params, &r, f->departed);
	trace_hbh_rate(ifindex, f->key.saddr, f->key.daddr, ntohs(f->key.sport),
		       ntohs(f->key.dport), f->key.proto, f->key.family, &r,
		       &f->ctl, u);
	if (u == HBH_UPD_STALE)
		return;
	f->last_fb = now;
	if (!was && f->ctl.state == HBH_CONTROLLED)
		q->ncontrolled++;
	/* a flow waiting longer than one packet at its new rate: sooner */
	if (f->ctl.state == HBH_CONTROLLED) {
		u64 soon = now + hbh_len_ns(f->avg_len ? : 1, f->ctl.rate);

		if (f->time_next_packet > soon) {
			f->time_next_packet = soon;
			if (f->where == HBH_THROTTLED) {
				hbh_unthrottle_one(q, f);
				hbh_throttle(q, f);
			}
		}
	}
}

/*
 * A keyed report's tag, checked before anything acts on it and without the
 * qdisc lock: true if @skb (@len bytes of payload, pulled) carries a valid
 * tag under @key.
 */
static bool hbh_tag_ok(const struct hbh_key *key, struct sk_buff *skb,
		       unsigned int len, u16 ethertype)
{
	const struct ethhdr *eth = eth_hdr(skb);	/* checked by hbh_rcv */
	u8 tag[HBH_FB_TAG_LEN];

	hbh_tag(key, eth->h_dest, eth->h_source, ethertype, skb->data,
		len - HBH_FB_TAG_LEN, tag);
	return !crypto_memneq(tag, skb->data + len - HBH_FB_TAG_LEN,
			      HBH_FB_TAG_LEN);
}

/*
 * Reports for the root qdisc of the device they arrive on: the handler is
 * that qdisc's own (q->pt, registered on its device), so frames of our
 * Ethertype elsewhere never reach this module.
 */
static int hbh_rcv(struct sk_buff *skb, struct net_device *dev,
		   struct packet_type *pt, struct net_device *orig_dev)
{
	struct hbh_sched_data *q = container_of(pt, struct hbh_sched_data, pt);
	const struct hbh_key *key;
	const struct hbh_fb_entry *e;
	const struct hbh_fb_hdr *h;
	unsigned int n, i, applied, len;
	struct Qdisc *sch = q->sch;
	u64 now, t_meas, sec, boot, ctr = 0;
	bool keyed;
	u32 node;

	/*
	 * Reports come unicast to us, or broadcast; not to others, and only
	 * while this qdisc is the device's root.  Anything else is let go
	 * before skb_share_check(), which would copy every frame of this
	 * Ethertype that a packet socket also holds.
	 */
	if (skb->pkt_type == PACKET_OTHERHOST ||
	    rcu_dereference(dev->qdisc) != sch)
		goto drop;
	/* our own address as the source: a loop, or a reflection */
	if (!skb_mac_header_was_set(skb) ||
	    skb_mac_header_len(skb) < ETH_HLEN ||
	    ether_addr_equal(eth_hdr(skb)->h_source, dev->dev_addr))
		goto reject;
	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb)
		return NET_RX_DROP;

	/* the frame may be only 2-byte aligned: unaligned reads throughout */
	key = rcu_dereference(q->key);
	h = pskb_may_pull(skb, sizeof(*h)) ? (void *)skb->data : NULL;
	n = h ? get_unaligned_be16(&h->count) : 0;
	len = HBH_FB_LEN(n);
	if (h && h->type == HBH_FB_TYPE_REPORT_KEYED)
		len += sizeof(struct hbh_fb_auth);
	if (!h || get_unaligned_be16(&h->magic) != HBH_FB_MAGIC ||
	    h->version != HBH_FB_VERSION ||
	    (h->type != HBH_FB_TYPE_REPORT &&
	     h->type != HBH_FB_TYPE_REPORT_KEYED) ||
	    get_unaligned_be16(&h->reserved) || !n || n > HBH_FB_FRAME_MAX ||
	    skb->len != len || !pskb_may_pull(skb, len))
		goto reject;
	h = (void *)skb->data;
	e = (void *)(h + 1);
	for (i = 0; i < n; i++)
		if (!hbh_entry_ok(&e[i]))
			goto reject;
	/* keyed at a qdisc without a key, or the other way round: refused */
	keyed = h->type == HBH_FB_TYPE_REPORT_KEYED;
	if (!!key != keyed ||
	    (key && !hbh_tag_ok(key, skb, len, q->ethertype))) {
		atomic64_inc(&q->fb_badauth);
		goto drop;
	}
	if (key)
		ctr = get_unaligned_be64(skb->data + HBH_FB_LEN(n));
	t_meas = get_unaligned_be64(&h->t_meas);
	node = get_unaligned_be32(&h->node);
	now = ktime_get_ns();
	sec = key ? ktime_get_real_seconds() : 0;
	boot = key ? ktime_get_boottime_seconds() : 0;

	spin_lock(qdisc_lock(sch));
	if (q->dead || q->mode == TC_HBH_MODE_FIFO) {
		spin_unlock(qdisc_lock(sch));
		goto reject;
	}
	/* checked against a key (or none) replaced since: not valid now */
	if (rcu_access_pointer(q->key) != key) {
		spin_unlock(qdisc_lock(sch));
		atomic64_inc(&q->fb_badauth);
		goto drop;
	}
	if (key && !hbh_replay_accept(&q->replay, node, ctr, now, sec, boot)) {
		q->fb_replay++;
		spin_unlock(qdisc_lock(sch));
		goto drop;
	}
	for (i = 0, applied = 0; i < n; i++) {
		struct hbh_flow_key k;
		struct hbh_flow *f;

		/* from a byte pointer: the entry may be only 2-byte aligned */
		memcpy(&k, (const u8 *)e + i * sizeof(*e) +
		       offsetof(struct hbh_fb_entry, key), sizeof(k));
		f = hbh_lookup(q, &k);
		if (!f) {
			q->fb_entries_ignored++;
			continue;
		}
		hbh_apply(q, f, &e[i], t_meas, now, dev->ifindex);
		applied++;
	}
	q->fb_received++;
	/* a neighbour reporting on none of our flows does not pace new ones */
	if (applied)
		q->nbr_at = now;
	spin_unlock(qdisc_lock(sch));
	/* the root as seen now: noop_qdisc once this one is deactivated */
	__netif_schedule(qdisc_root(sch));
	consume_skb(skb);
	return NET_RX_SUCCESS;

reject:
	/* no lock: a flood of bad frames must not contend for the root lock */
	atomic64_inc(&q->fb_rejected);
drop:
	kfree_skb(skb);
	return NET_RX_DROP;
}

/* ---- configuration ---- */

/*
 * Each attribute's own range is in the policy: netlink refuses a value
 * outside it (ERANGE, "integer out of range"), points at the attribute and
 * reports the range (NLMSGERR_ATTR_POLICY).  What depends on more than one
 * attribute is checked in hbh_validate().
 */
static struct netlink_range_validation hbh_rate_range = {
	.min = 1, .max = HBH_RATE_MAX,
};

static struct netlink_range_validation hbh_limit_range = {
	.min = 1, .max = HBH_LIMIT_MAX,
};

static struct netlink_range_validation hbh_period_range = {
	.min = HBH_PERIOD_MIN, .max = HBH_PERIOD_MAX,
};

static struct netlink_range_validation hbh_hoprtt_range = {
	.min = HBH_HOPRTT_MIN, .max = HBH_HOPRTT_MAX,
};

static const struct nla_policy hbh_policy[TCA_HBH_MAX + 1] = {
	[TCA_HBH_RATE]		= NLA_POLICY_FULL_RANGE(NLA_U64,
							&hbh_rate_range),
	[TCA_HBH_LIMIT]		= NLA_POLICY_FULL_RANGE(NLA_U32,
							&hbh_limit_range),
	[TCA_HBH_FLOW_LIMIT]	= NLA_POLICY_FULL_RANGE(NLA_U32,
							&hbh_limit_range),
	[TCA_HBH_SETPOINT]	= { .type = NLA_U32 },
	[TCA_HBH_PERIOD]	= NLA_POLICY_FULL_RANGE(NLA_U32,
							&hbh_period_range),
	[TCA_HBH_ALPHA]		= NLA_POLICY_RANGE(NLA_U32, 1, HBH_SCALE),
	[TCA_HBH_BETA]		= NLA_POLICY_RANGE(NLA_U32, 1, HBH_SCALE),
	[TCA_HBH_RISE]		= { .type = NLA_U64 },
	[TCA_HBH_RATE_MIN]	= { .type = NLA_U64 },
	[TCA_HBH_HOPRTT]	= NLA_POLICY_FULL_RANGE(NLA_U32,
							&hbh_hoprtt_range),
	[TCA_HBH_MODE]		= NLA_POLICY_MAX(NLA_U8, TC_HBH_MODE_FIFO),
	[TCA_HBH_DERIVED]	= { .type = NLA_REJECT },	/* dump only */
	[TCA_HBH_KEY]		= { .type = NLA_BINARY, .len = HBH_KEY_MAX },
	[TCA_HBH_KEYED]		= { .type = NLA_REJECT },	/* dump only */
	[TCA_HBH_ETHERTYPE]	= NLA_POLICY_MIN(NLA_U16, HBH_ETHERTYPE_MIN),
};

/*
 * Ethertypes never taken for reports: every one <linux/if_ether.h> names
 * (as of 6.1) from 0x0600 up, a protocol of the stack, a driver or a
 * standard, except 0x88B5, IEEE 802's local experimental one, the default.
 */
static const u16 hbh_ethertypes_taken[] = {
	ETH_P_TSN, ETH_P_ERSPAN2, ETH_P_IP, ETH_P_X25, ETH_P_ARP, ETH_P_BPQ,
	ETH_P_IEEEPUP, ETH_P_IEEEPUPAT, ETH_P_BATMAN, ETH_P_DEC, ETH_P_DNA_DL,
	ETH_P_DNA_RC, ETH_P_DNA_RT, ETH_P_LAT, ETH_P_DIAG, ETH_P_CUST,
	ETH_P_SCA, ETH_P_TEB, ETH_P_RARP, ETH_P_ATALK, ETH_P_AARP, ETH_P_8021Q,
	ETH_P_ERSPAN, ETH_P_IPX, ETH_P_IPV6, ETH_P_PAUSE, ETH_P_SLOW,
	ETH_P_WCCP, ETH_P_MPLS_UC, ETH_P_MPLS_MC, ETH_P_ATMMPOA,
	ETH_P_PPP_DISC, ETH_P_PPP_SES, ETH_P_LINK_CTL, ETH_P_ATMFATE,
	ETH_P_PAE, ETH_P_PROFINET, ETH_P_REALTEK, ETH_P_AOE, ETH_P_ETHERCAT,
	ETH_P_8021AD, ETH_P_PREAUTH, ETH_P_TIPC, ETH_P_LLDP, ETH_P_MRP,
	ETH_P_MACSEC, ETH_P_8021AH, ETH_P_MVRP, ETH_P_1588, ETH_P_NCSI,
	ETH_P_PRP, ETH_P_CFM, ETH_P_FCOE, ETH_P_IBOE, ETH_P_TDLS, ETH_P_FIP,
	ETH_P_80221, ETH_P_HSR, ETH_P_NSH, ETH_P_LOOPBACK, ETH_P_QINQ1,
	ETH_P_QINQ2, ETH_P_QINQ3, ETH_P_EDSA, ETH_P_DSA_8021Q, ETH_P_DSA_A5PSW,
	ETH_P_IFE, ETH_P_AF_IUCV,
};

static bool hbh_ethertype_reserved(u16 t)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(hbh_ethertypes_taken); i++)
		if (t == hbh_ethertypes_taken[i])
			return true;
	return false;
}

static u32 hbh_get_u32(struct nlattr **tb, int attr, u32 cur)
{
	return tb[attr] ? nla_get_u32(tb[attr]) : cur;
}

static u64 hbh_get_u64(struct nlattr **tb, int attr, u64 cur)
{
	return tb[attr] ? nla_get_u64(tb[attr]) : cur;
}

/* Check the new configuration as a whole before anything changes. */
static int hbh_validate(struct nlattr **tb, struct Qdisc *sch, bool create,
			struct netlink_ext_ack *extack)
{
	const struct hbh_sched_data *q = qdisc_priv(sch);
	u64 rate = hbh_get_u64(tb, TCA_HBH_RATE, q->params.rate);
	u64 rate_min = hbh_get_u64(tb, TCA_HBH_RATE_MIN, q->rate_min_cfg);
	u64 rise = hbh_get_u64(tb, TCA_HBH_RISE, q->rise_cfg);
	u32 limit = hbh_get_u32(tb, TCA_HBH_LIMIT, sch->limit);
	u32 flow_limit = hbh_get_u32(tb, TCA_HBH_FLOW_LIMIT, q->flow_limit);
	u32 setpoint = hbh_get_u32(tb, TCA_HBH_SETPOINT, q->setpoint);

	if (create && !tb[TCA_HBH_RATE]) {
		NL_SET_ERR_MSG(extack, "hbh: rate is required");
		return -EINVAL;
	}
	if (tb[TCA_HBH_KEY] && nla_len(tb[TCA_HBH_KEY]) &&
	    nla_len(tb[TCA_HBH_KEY]) != HBH_KEY_MIN &&
	    nla_len(tb[TCA_HBH_KEY]) != HBH_KEY_MAX) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_HBH_KEY],
				    "hbh: key must be 16 or 32 bytes (128 or 256 bits)");
		return -EINVAL;
	}
	if (tb[TCA_HBH_ETHERTYPE]) {
		u16 t = nla_get_u16(tb[TCA_HBH_ETHERTYPE]);

		if (hbh_ethertype_reserved(t)) {
			NL_SET_ERR_MSG_ATTR(extack, tb[TCA_HBH_ETHERTYPE],
					    "hbh: ethertype is one the stack uses");
			return -EINVAL;
		}
		if (!create && t != q->ethertype) {
			NL_SET_ERR_MSG_ATTR(extack, tb[TCA_HBH_ETHERTYPE],
					    "hbh: ethertype is set when the qdisc is created");
			return -EINVAL;
		}
	}
	if (setpoint > flow_limit || setpoint > limit) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_HBH_SETPOINT],
				    "hbh: setpoint must not exceed flow_limit or limit");
		return -EINVAL;
	}
	if (rate_min > rate) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_HBH_RATE_MIN],
				    "hbh: rate_min must not exceed rate");
		return -EINVAL;
	}
	if (rise > rate) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_HBH_RISE],
				    "hbh: rise must not exceed rate");
		return -EINVAL;
	}
	return 0;
}

static void hbh_derive(struct hbh_sched_data *q)
{
	struct hbh_params *p = &q->params;

	hbh_params_derive(p, q->rise_cfg, q->rate_min_cfg);
	p->horizon = q->hoprtt;
	q->link_recip = hbh_ns_recip(p->rate);
}

/*
 * Drop @f's oldest packets while it is above @flow_limit or the qdisc above
 * its limit (a change that lowered them); counted as the matching drops.
 */
static void hbh_trim(struct Qdisc *sch, struct hbh_flow *f, u32 flow_limit,
		     unsigned int *pkts, unsigned int *bytes)
{
	struct hbh_sched_data *q = qdisc_priv(sch);

	while (f->head && (f->qlen > flow_limit || sch->q.qlen > sch->limit)) {
		struct sk_buff *skb = hbh_flow_pop(f);

		if (f->qlen >= flow_limit)
			q->flow_dropped++;
		else
			q->overlimit_dropped++;
		(*pkts)++;
		*bytes += qdisc_pkt_len(skb);
		qdisc_qstats_backlog_dec(sch, skb);
		sch->q.qlen--;
		rtnl_qdisc_drop(skb, sch);
	}
	if (!f->head)
		hbh_flow_detach(q, f);
}

static void hbh_key_free_rcu(struct rcu_head *head)
{
	kfree_sensitive(container_of(head, struct hbh_key, rcu));
}

static void hbh_key_free(struct hbh_key *key)
{
	if (key)
		call_rcu(&key->rcu, hbh_key_free_rcu);
}

/* @a and @b are the same key, or both none */
static bool hbh_key_same(const struct hbh_key *a, const struct hbh_key *b)
{
	if (!a || !b)
		return a == b;
	return a->len == b->len && !crypto_memneq(a->bytes, b->bytes, a->len);
}

static int hbh_change(struct Qdisc *sch, struct nlattr *opt,
		      struct netlink_ext_ack *extack)
{
	struct hbh_sched_data *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_HBH_MAX + 1];
	unsigned int dropped_pkts = 0, dropped_bytes = 0;
	bool create = !q->params.rate;
	struct hbh_key *key = NULL, *old = NULL;
	struct hbh_flow *f;
	u8 mode;
	int err;

	if (!opt) {
		NL_SET_ERR_MSG(extack, "hbh: rate is required");
		return -EINVAL;
	}
	err = nla_parse_nested(tb, TCA_HBH_MAX, opt, hbh_policy, extack);
	if (err < 0)
		return err;
	err = hbh_validate(tb, sch, create, extack);
	if (err)
		return err;
	if (tb[TCA_HBH_KEY] && nla_len(tb[TCA_HBH_KEY])) {
		key = kzalloc(sizeof(*key), GFP_KERNEL);
		if (!key)
			return -ENOMEM;
		key->len = nla_len(tb[TCA_HBH_KEY]);
		nla_memcpy(key->bytes, tb[TCA_HBH_KEY], key->len);
	}

	sch_tree_lock(sch);
	/* at creation only (hbh_validate): hbh_link_conf reads it unlocked */
	if (tb[TCA_HBH_ETHERTYPE] && create)
		WRITE_ONCE(q->ethertype, nla_get_u16(tb[TCA_HBH_ETHERTYPE]));
	/*
	 * A new key (or none): every sender forgotten, and frames from before
	 * the change (less the slack) refused (hbh_core.h).  The same key
	 * again changes nothing.
	 */
	if (tb[TCA_HBH_KEY] && !hbh_key_same(rtnl_dereference(q->key), key)) {
		old = rcu_replace_pointer(q->key, key, lockdep_rtnl_is_held());
		key = NULL;
		if (!create)
			hbh_replay_rekey(&q->replay, ktime_get_real_seconds());
	}
	if (tb[TCA_HBH_RATE])
		q->params.rate = nla_get_u64(tb[TCA_HBH_RATE]);
	if (tb[TCA_HBH_RATE_MIN])
		q->rate_min_cfg = nla_get_u64(tb[TCA_HBH_RATE_MIN]);
	if (tb[TCA_HBH_RISE])
		q->rise_cfg = nla_get_u64(tb[TCA_HBH_RISE]);
	if (tb[TCA_HBH_LIMIT])
		WRITE_ONCE(sch->limit, nla_get_u32(tb[TCA_HBH_LIMIT]));
	if (tb[TCA_HBH_FLOW_LIMIT])
		WRITE_ONCE(q->flow_limit, nla_get_u32(tb[TCA_HBH_FLOW_LIMIT]));
	if (tb[TCA_HBH_SETPOINT])
		WRITE_ONCE(q->setpoint, nla_get_u32(tb[TCA_HBH_SETPOINT]));
	if (tb[TCA_HBH_PERIOD])
		WRITE_ONCE(q->period, nla_get_u32(tb[TCA_HBH_PERIOD]));
	if (tb[TCA_HBH_HOPRTT])
		WRITE_ONCE(q->hoprtt, nla_get_u32(tb[TCA_HBH_HOPRTT]));
	if (tb[TCA_HBH_ALPHA])
		WRITE_ONCE(q->params.alpha, nla_get_u32(tb[TCA_HBH_ALPHA]));
	if (tb[TCA_HBH_BETA])
		WRITE_ONCE(q->params.beta, nla_get_u32(tb[TCA_HBH_BETA]));
	hbh_derive(q);

	mode = tb[TCA_HBH_MODE] ? nla_get_u8(tb[TCA_HBH_MODE]) : q->mode;
	if (mode != q->mode || tb[TCA_HBH_RATE]) {
		/* start every flow again from uncontrolled */
		list_for_each_entry(f, &q->lru, lru) {
			if (f->ctl.state == HBH_CONTROLLED)
				q->ncontrolled--;
			hbh_ctl_init(&f->ctl, &q->params);
			f->time_next_packet = 0;
			f->down_at = 0;
			if (f->where == HBH_THROTTLED) {
				hbh_unthrottle_one(q, f);
				list_add_tail(&f->active, &q->active);
				f->where = HBH_ACTIVE;
			}
		}
		WRITE_ONCE(q->mode, mode);
	}
	if (tb[TCA_HBH_RATE] && q->link_next) {
		/*
		 * The link clock ran at the old rate (at 1 byte/s one packet
		 * puts it minutes ahead): start it again at the new one and
		 * let what is queued go now.
		 */
		q->link_next = 0;
		qdisc_watchdog_cancel(&q->watchdog);
		if (sch->q.qlen)
			__netif_schedule(qdisc_root(sch));
	}

	/* trim every flow to the new limits */
	list_for_each_entry(f, &q->lru, lru)
		hbh_trim(sch, f, q->flow_limit, &dropped_pkts, &dropped_bytes);
	hbh_trim(sch, &q->other, U32_MAX, &dropped_pkts, &dropped_bytes);
	qdisc_tree_reduce_backlog(sch, dropped_pkts, dropped_bytes);
	sch_tree_unlock(sch);
	hbh_key_free(old);
	kfree_sensitive(key);		/* the same key again: not installed */

	return 0;
}

static int hbh_init(struct Qdisc *sch, struct nlattr *opt,
		    struct netlink_ext_ack *extack)
{
	struct hbh_sched_data *q = qdisc_priv(sch);
	u32 buckets;
	int err;

	q->sch = sch;
	sch->limit = HBH_LIMIT_DEFAULT;
	q->flow_limit = HBH_FLOW_LIMIT_DEFAULT;
	q->setpoint = HBH_SETPOINT_DEFAULT;
	q->period = HBH_PERIOD_DEFAULT;
	q->hoprtt = HBH_HOPRTT_DEFAULT;
	q->ethertype = HBH_ETH_P;
	hbh_params_init(&q->params, 0, q->hoprtt);	/* rate 0: not created */
	q->mode = HBH_MODE_DEFAULT;
	q->quantum = 2 * psched_mtu(qdisc_dev(sch));
	q->node = get_random_u32();
	q->hash_seed = get_random_u32();
	INIT_LIST_HEAD(&q->lru);
	INIT_LIST_HEAD(&q->active);
	INIT_LIST_HEAD(&q->ready);
	INIT_LIST_HEAD(&q->rpt);
	q->throttled = RB_ROOT;
	__skb_queue_head_init(&q->ctlq);
	hbh_flow_setup(q, &q->other);
	qdisc_watchdog_init(&q->watchdog, sch);
	hrtimer_init(&q->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	q->timer.function = hbh_timer;

	/*
	 * Sized for max_flows as it is now: chains of 4 flows on average at
	 * a full table, which is also the table's bound if max_flows is
	 * raised later (hbh_flows_max).
	 */
	buckets = roundup_pow_of_two(clamp_t(u32, READ_ONCE(max_flows) / 4,
					     HBH_BUCKETS_MIN, HBH_BUCKETS_MAX));
	q->hash_mask = buckets - 1;
	q->hash = kvcalloc(buckets, sizeof(*q->hash), GFP_KERNEL);
	q->fb_buf = kvcalloc(HBH_FB_MAX, sizeof(*q->fb_buf), GFP_KERNEL);
	q->fb_dest = kvcalloc(HBH_FB_MAX, sizeof(*q->fb_dest), GFP_KERNEL);
	q->fb_order = kvcalloc(HBH_FB_MAX, sizeof(*q->fb_order), GFP_KERNEL);
	if (!q->hash || !q->fb_buf || !q->fb_dest || !q->fb_order)
		return -ENOMEM;		/* destroy frees what was allocated */

	hbh_replay_init(&q->replay, ktime_get_boottime_seconds());
	err = hbh_change(sch, opt, extack);
	if (err)
		return err;
	/* the timer starts with the first packet (hbh_enqueue) */
	hbh_ctl_init(&q->other.ctl, &q->params);
	/*
	 * Reports are for a device's root: only a root hbh listens, on its
	 * own device.  destroy removes the handler; the qdisc's memory is
	 * freed after an RCU grace period, so a receiver still running
	 * finds it (q->dead).
	 */
	if (sch->parent == TC_H_ROOT) {
		q->pt.type = htons(q->ethertype);
		q->pt.dev = qdisc_dev(sch);
		q->pt.func = hbh_rcv;
		dev_add_pack(&q->pt);
		q->pt_added = true;
	}
	return 0;
}

static void hbh_destroy(struct Qdisc *sch)
{
	struct hbh_sched_data *q = qdisc_priv(sch);

	/*
	 * Waits for receivers in flight (synchronize_net), so that nothing
	 * here depends on how the qdisc is freed: 6.1 and 6.12 free it after
	 * a grace period (qdisc_free_rcu) even when a create fails after init
	 * succeeded, older kernels at once.  A grace period per root hbh.
	 */
	if (q->pt_added)
		dev_remove_pack(&q->pt);
	hrtimer_cancel(&q->timer);
	qdisc_watchdog_cancel(&q->watchdog);
	/* feedback may still look this qdisc up until an RCU grace period */
	spin_lock_bh(qdisc_lock(sch));
	q->dead = true;
	if (q->hash)
		hbh_free_all(sch);
	spin_unlock_bh(qdisc_lock(sch));
	__skb_queue_purge(&q->ctlq);
	kvfree(q->hash);
	kvfree(q->fb_buf);
	kvfree(q->fb_dest);
	kvfree(q->fb_order);
	q->hash = NULL;
	hbh_key_free(rcu_replace_pointer(q->key, NULL, 1));
}

/* Which of the dumped values follow rate: configured as 0. */
static u8 hbh_derived(const struct hbh_sched_data *q)
{
	return (READ_ONCE(q->rise_cfg) ? 0 : TC_HBH_DERIVED_RISE) |
	       (READ_ONCE(q->rate_min_cfg) ? 0 : TC_HBH_DERIVED_RATE_MIN);
}

static int hbh_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct hbh_sched_data *q = qdisc_priv(sch);
	struct nlattr *opts;

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, TCA_HBH_RATE, READ_ONCE(q->params.rate),
			      TCA_HBH_PAD) ||
	    nla_put_u32(skb, TCA_HBH_LIMIT, READ_ONCE(sch->limit)) ||
	    nla_put_u32(skb, TCA_HBH_FLOW_LIMIT, READ_ONCE(q->flow_limit)) ||
	    nla_put_u32(skb, TCA_HBH_SETPOINT, READ_ONCE(q->setpoint)) ||
	    nla_put_u32(skb, TCA_HBH_PERIOD, READ_ONCE(q->period)) ||
	    nla_put_u32(skb, TCA_HBH_ALPHA, READ_ONCE(q->params.alpha)) ||
	    nla_put_u32(skb, TCA_HBH_BETA, READ_ONCE(q->params.beta)) ||
	    nla_put_u64_64bit(skb, TCA_HBH_RISE, READ_ONCE(q->params.rise),
			      TCA_HBH_PAD) ||
	    nla_put_u64_64bit(skb, TCA_HBH_RATE_MIN,
			      READ_ONCE(q->params.rate_min), TCA_HBH_PAD) ||
	    nla_put_u32(skb, TCA_HBH_HOPRTT, READ_ONCE(q->hoprtt)) ||
	    nla_put_u8(skb, TCA_HBH_MODE, READ_ONCE(q->mode)) ||
	    nla_put_u8(skb, TCA_HBH_DERIVED, hbh_derived(q)) ||
	    nla_put_u8(skb, TCA_HBH_KEYED, !!rcu_access_pointer(q->key)) ||
	    nla_put_u16(skb, TCA_HBH_ETHERTYPE, READ_ONCE(q->ethertype)))
		goto nla_put_failure;
	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

static int hbh_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct hbh_sched_data *q = qdisc_priv(sch);
	struct tc_hbh_xstats st;

	sch_tree_lock(sch);
	st = (struct tc_hbh_xstats){
		.type			= TC_HBH_XSTATS_QDISC,
		.flows			= q->flows,
		.throttled		= q->nthrottled,
		.fb_sent		= READ_ONCE(q->fb_sent),
		.fb_received		= q->fb_received,
		.fb_rejected		= atomic64_read(&q->fb_rejected),
		.fb_entries_ignored	= q->fb_entries_ignored,
		.overlimit_dropped	= q->overlimit_dropped,
		.flow_dropped		= q->flow_dropped,
		.flows_gc		= q->flows_gc,
		.flow_overflow		= q->flow_overflow,
		.controlled		= q->ncontrolled,
		.buckets		= q->hash_mask + 1,
		.fb_expired		= q->fb_expired,
		.fb_bytes		= READ_ONCE(q->fb_bytes),
		.fb_unsendable		= READ_ONCE(q->fb_unsendable),
		.fb_badauth		= atomic64_read(&q->fb_badauth),
		.fb_replay		= q->fb_replay,
	};
	sch_tree_unlock(sch);

	return gnet_stats_copy_app(d, &st, sizeof(st));
}

/* ---- per-flow state: "tc -s class show dev DEV" ---- */

/*
 * Flows are listed as classes but cannot be addressed, configured or
 * filtered to.  The walk copies each flow's state under the root lock into
 * a snapshot and hands the snapshot to the dumper, so no lock is held while
 * the netlink message is built.  Minor ids number the flows in walk order;
 * a table that changes under traffic is read bucket by bucket, so a dump
 * split across netlink messages may miss or repeat a flow that moved.
 */
#define HBH_WALK_BATCH	16

struct hbh_flow_snap {
	u32 classid;
	struct tc_hbh_flow_xstats st;
};

static void hbh_flow_state(const struct hbh_sched_data *q,
			   const struct hbh_flow *f, u64 now,
			   struct tc_hbh_flow_xstats *st)
{
	static const u8 state[] = {
		[HBH_UNCONTROLLED]	= TC_HBH_FLOW_FREE,
		[HBH_BASELINE]		= TC_HBH_FLOW_BASELINE,
		[HBH_CONTROLLED]	= TC_HBH_FLOW_CONTROLLED,
	};

	*st = (struct tc_hbh_flow_xstats){
		.type		= TC_HBH_XSTATS_FLOW,
		.key		= f->key,
		.state		= hbh_controls(q, f) ? state[f->ctl.state] :
				  TC_HBH_FLOW_RELAY,
		.qlen		= f->qlen,
		.backlog	= f->backlog,
		.up_ifindex	= f->up_ifindex,
		.rate		= f->ctl.rate,
		.mhat		= f->ctl.mhat,
		.xhat		= f->ctl.xhat,
		.dep_rate	= f->dep_rate,
		.arrived	= f->arrived,
		.departed	= f->departed,
		.fb_age		= f->last_fb ? now - f->last_fb : U64_MAX,
	};
}

static struct Qdisc *hbh_leaf(struct Qdisc *sch, unsigned long cl)
{
	return NULL;
}

static unsigned long hbh_find(struct Qdisc *sch, u32 classid)
{
	return 0;
}

static int hbh_dump_class(struct Qdisc *sch, unsigned long cl,
			  struct sk_buff *skb, struct tcmsg *tcm)
{
	const struct hbh_flow_snap *s = (const void *)cl;

	/* a flow's parent is this qdisc (tcm_parent as tc_fill_tclass set
	 * it, its handle), wherever the qdisc sits in the tree
	 */
	tcm->tcm_handle = s->classid;
	return 0;
}

static int hbh_dump_class_stats(struct Qdisc *sch, unsigned long cl,
				struct gnet_dump *d)
{
	struct hbh_flow_snap *s = (void *)cl;
	struct gnet_stats_queue qs = {
		.qlen		= s->st.qlen,
		.backlog	= s->st.backlog,
	};

	if (gnet_stats_copy_queue(d, NULL, &qs, qs.qlen) < 0)
		return -1;
	return gnet_stats_copy_app(d, &s->st, sizeof(s->st));
}

static void hbh_walk(struct Qdisc *sch, struct qdisc_walker *arg)
{
	struct hbh_sched_data *q = qdisc_priv(sch);
	struct hbh_flow_snap *snap;
	unsigned int b, i, n, pos;
	struct hbh_flow *f;
	u32 minor = 0;
	u64 now;

	if (arg->stop)
		return;
	snap = kmalloc_array(HBH_WALK_BATCH, sizeof(*snap), GFP_KERNEL);
	if (!snap) {
		arg->stop = 1;
		return;
	}
	for (b = 0; b <= q->hash_mask && !arg->stop; b++) {
		/* most buckets are empty: look without the lock (a flow added
		 * meanwhile is simply not in this snapshot)
		 */
		if (hlist_empty(&q->hash[b]))
			continue;
		pos = 0;
		do {
			unsigned int k = 0;

			n = 0;
			sch_tree_lock(sch);
			now = ktime_get_ns();
			hlist_for_each_entry(f, &q->hash[b], hnode) {
				if (k++ < pos)
					continue;
				if (n == HBH_WALK_BATCH)
					break;
				hbh_flow_state(q, f, now, &snap[n++].st);
			}
			sch_tree_unlock(sch);
			pos += n;
			for (i = 0; i < n && !arg->stop; i++) {
				/* minors 1..0xffff, wrapping in huge tables */
				snap[i].classid = TC_H_MAKE(sch->handle,
							    minor++ % 0xffff + 1);
				if (arg->count >= arg->skip &&
				    arg->fn(sch, (unsigned long)&snap[i], arg) < 0)
					arg->stop = 1;
				else
					arg->count++;
			}
		} while (n == HBH_WALK_BATCH && !arg->stop);
	}
	kfree(snap);
}

static const struct Qdisc_class_ops hbh_class_ops = {
	.leaf		= hbh_leaf,
	.find		= hbh_find,
	.walk		= hbh_walk,
	.dump		= hbh_dump_class,
	.dump_stats	= hbh_dump_class_stats,
};

static struct Qdisc_ops hbh_qdisc_ops __read_mostly = {
	.cl_ops		= &hbh_class_ops,
	.id		= "hbh",
	.priv_size	= sizeof(struct hbh_sched_data),
	.enqueue	= hbh_enqueue,
	.dequeue	= hbh_dequeue,
	.peek		= qdisc_peek_dequeued,
	.init		= hbh_init,
	.reset		= hbh_reset,
	.destroy	= hbh_destroy,
	.change		= hbh_change,
	.dump		= hbh_dump,
	.dump_stats	= hbh_dump_stats,
	.owner		= THIS_MODULE,
};
MODULE_ALIAS_NET_SCH("hbh");

static int __init hbh_module_init(void)
{
	int err;

	BUILD_BUG_ON((u16)(HBH_FB_MAX - 1) != HBH_FB_MAX - 1);	/* fb_order */
	BUILD_BUG_ON(HBH_FB_ALEN != ETH_ALEN);
	while (!hbh_secret)
		hbh_secret = get_random_u64();
	hbh_flow_cachep = kmem_cache_create("hbh_flow", sizeof(struct hbh_flow),
					    0, 0, NULL);
	if (!hbh_flow_cachep)
		return -ENOMEM;
	err = register_qdisc(&hbh_qdisc_ops);
	if (err) {
		kmem_cache_destroy(hbh_flow_cachep);
		return err;
	}
	return 0;
}

static void __exit hbh_module_exit(void)
{
	unregister_qdisc(&hbh_qdisc_ops);
	/* receivers and key frees started by the last qdiscs' destroy */
	synchronize_net();
	rcu_barrier();
	kmem_cache_destroy(hbh_flow_cachep);
}

module_init(hbh_module_init);
module_exit(hbh_module_exit);

MODULE_AUTHOR("congavoid developers");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Hop-by-hop rate-based congestion control (Mishra & Kanakia)");
