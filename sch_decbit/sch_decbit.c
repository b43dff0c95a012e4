// SPDX-License-Identifier: GPL-2.0
/*
 * sch_decbit.c	DECbit router: ECN marking on the queue length averaged
 *		over regeneration cycles.
 *
 * K. K. Ramakrishnan and R. Jain, "A Binary Feedback Scheme for Congestion
 * Avoidance in Computer Networks", ACM TOCS 8(2), 1990.
 *
 * Every arriving packet is marked (ECN CE) while the average number of
 * packets at the router, queued plus the one in service, taken over the
 * last complete busy+idle cycle and the current one, is at least the
 * threshold (default 1 packet).  The averaging lives in decbit_avg.h.
 *
 * With "rate" the qdisc serves its queue at that rate itself (a watchdog
 * paces dequeue; a late watchdog costs only what exceeds "catchup" of link
 * time, counted in the xstats' lost_ns), so
 * the packet in service is known exactly and the qdisc can be the
 * bottleneck of a veth link.  Without it the head of the queue
 * is the packet in service: right for a root qdisc on a real NIC and for a
 * child of tbf or htb, whose peek does not count as a departure.
 *
 * Input buffer limits (Lam & Lien, decbit_pool.h): the decbit qdiscs of one
 * router (network namespace) that name the same "pool" share its N_T
 * buffers, of which packets entering the network there (arrivals on the
 * "input" interfaces, or sent by the router itself) may hold N_I.  The pool
 * is counted under its own spinlock, always taken inside a root qdisc lock
 * (each interface has its own), so admission is exact across interfaces.
 * Every queued packet remembers whether it is input (its cb), and each qdisc
 * how many it holds, so a packet that leaves by any path returns exactly
 * what it took and a qdisc can move its whole charge between pools.
 */

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/skbuff.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>
#include <net/inet_ecn.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include <congavoid/tc_decbit.h>
#include "congavoid_compat.h"
#include "congavoid_gso.h"
#include "decbit_avg.h"
#include "decbit_pool.h"

/*
 * A router's shared buffers: one per (network namespace, pool id), in the
 * namespace's list.  The counts are one atomic word (used in the low 32
 * bits, input in the high 32), so that admission across interfaces is exact
 * without a lock: a compare-and-swap per packet.
 *
 * The lists and the users counts are under one module-wide mutex (taken
 * only to configure), not a per-namespace one: the last qdisc of a pool
 * can be destroyed after its device moved to another namespace, or after
 * the pool's namespace was dismantled (a tc request that held a reference
 * to the qdisc across "ip link set ... netns" drops it last), so the put
 * must not look up the namespace's state through the device.  A namespace
 * that exits with pools still in use detaches them; their last put frees
 * them.
 */
struct decbit_pool {
	struct list_head node;	/* in decbit_net.pools; empty: detached */
	u32 id;
	unsigned int users;	/* qdiscs in the pool, under decbit_pools_lock */

	atomic64_t held;	/* used | input << 32 */
	u32 limit;		/* N_T */
	u32 ibl;		/* millionths of N_T */
	u32 input_limit;	/* N_I */
};

struct decbit_net {
	struct list_head pools;	/* under decbit_pools_lock */
};

static DEFINE_MUTEX(decbit_pools_lock);

static unsigned int decbit_net_id __read_mostly;

/*
 * Each queued packet remembers how many buffers it holds (its segments) and
 * whether it is input, so that it returns exactly what it took whichever
 * way it leaves.
 */
struct decbit_skb_cb {
	u32 segs;
	bool input;
};

static struct decbit_skb_cb *decbit_cb(struct sk_buff *skb)
{
	qdisc_cb_private_validate(skb, sizeof(struct decbit_skb_cb));
	return (struct decbit_skb_cb *)qdisc_skb_cb(skb)->data;
}

struct decbit_sched_data {
	struct decbit_params params;
	u64 rate;			/* bytes/s, 0: unpaced */
	struct psched_ratecfg rcfg;
	u32 catchup;			/* ns, see TCA_DECBIT_CATCHUP */
	bool head_waited;		/* the head was queued at avg.busy_until */
	u8 nonect;			/* enum tc_decbit_nonect */
	struct decbit_avg avg;
	struct qdisc_watchdog watchdog;

	/*
	 * The qdisc's own queue, in packets on the wire (a GSO skb counts
	 * its segments): what limit, the pool and n(t) count.  sch->q.qlen
	 * also counts the skbs the core holds on its requeue lists
	 * (gso_skb, skb_bad_txq), which have already left these counts.
	 */
	u32 segs;
	u32 input_segs;			/* of which input packets */

	struct decbit_pool *pool;	/* NULL: no input buffer limits */
	u32 n_inputs;
	int inputs[DECBIT_INPUT_MAX];	/* ifindexes of input interfaces */

	u64 marked;
	u64 nonect_passed;
	u64 nonect_dropped;
	u64 overlimit_dropped;
	u64 ibl_dropped;
	u64 pool_dropped;
	u64 lost_ns;			/* link time lost to late dequeues */
};

/* Input: sent by this router itself or arrived on an input interface. */
static bool decbit_is_input(const struct decbit_sched_data *q,
			    const struct sk_buff *skb)
{
	u32 i, n = READ_ONCE(q->n_inputs);

	if (!skb->skb_iif)
		return true;
	for (i = 0; i < n; i++)
		if (READ_ONCE(q->inputs[i]) == skb->skb_iif)
			return true;
	return false;
}

/*
 * Packets on the wire an skb stands for.  gso_segs is not set (or not to
 * be trusted) on a super-packet from a guest, a tap or a packet socket
 * (SKB_GSO_DODGY): count its payload in gso_size pieces, as the core does
 * for the qdisc's byte count.
 */
static u32 decbit_segs(struct sk_buff *skb)
{
	const struct skb_shared_info *sh = skb_shinfo(skb);
	unsigned int hdr;

	if (!skb_is_gso(skb))
		return 1;
	if (likely(sh->gso_segs && !(sh->gso_type & SKB_GSO_DODGY)))
		return sh->gso_segs;
	if (!skb_transport_header_was_set(skb))
		return max_t(u32, sh->gso_segs, 1);
	hdr = skb_transport_offset(skb);
	if (sh->gso_type & (SKB_GSO_TCPV4 | SKB_GSO_TCPV6)) {
		if (hdr + sizeof(struct tcphdr) > skb_headlen(skb))
			return max_t(u32, sh->gso_segs, 1);
		hdr += tcp_hdrlen(skb);
	} else if (sh->gso_type & SKB_GSO_UDP_L4) {
		hdr += sizeof(struct udphdr);
	}
	if (skb->len <= hdr)
		return 1;
	return DIV_ROUND_UP(skb->len - hdr, sh->gso_size);
}

/*
 * n(t) without the packet in service: the own queue, plus, unpaced (where
 * the head of the queue is the packet in service), the skbs the driver
 * handed back, which are still at the router.  Paced, a requeued packet
 * already had its service time.
 */
static u32 decbit_backlog(struct Qdisc *sch)
{
	const struct decbit_sched_data *q = qdisc_priv(sch);

	if (q->rate)
		return q->segs;
	return q->segs + skb_queue_len(&sch->gso_skb) +
	       skb_queue_len(&sch->skb_bad_txq);
}

static enum decbit_pool_verdict decbit_pool_take(struct decbit_pool *pool,
						 bool input, u32 n)
{
	s64 old = atomic64_read(&pool->held), new;
	enum decbit_pool_verdict v;

	do {
		v = decbit_pool_admit_n((u32)old, (u32)((u64)old >> 32),
					READ_ONCE(pool->limit),
					READ_ONCE(pool->input_limit), input, n);
		if (v != DECBIT_POOL_ADMIT)
			return v;
		new = old + decbit_pool_held(n, input ? n : 0);
	} while (!atomic64_try_cmpxchg(&pool->held, &old, new));
	return DECBIT_POOL_ADMIT;
}

/* Add (or, negative, remove) @pkts packets, @input of them input. */
static void decbit_pool_charge(struct decbit_pool *pool, s64 pkts, s64 input)
{
	atomic64_add(decbit_pool_held(pkts, input), &pool->held);
}

/* A packet of the own queue leaves the qdisc, by whatever path. */
static void decbit_release(struct decbit_sched_data *q, struct sk_buff *skb)
{
	const struct decbit_skb_cb *cb = decbit_cb(skb);
	u32 input = cb->input ? cb->segs : 0;

	q->segs -= cb->segs;
	q->input_segs -= input;
	if (q->pool)
		decbit_pool_charge(q->pool, -(s64)cb->segs, -(s64)input);
}

/*
 * The pool @id of @net with a reference taken, or NULL.  Creating one needs
 * its limit: @create is a new pool to insert if none exists yet (freed
 * otherwise).
 */
static struct decbit_pool *decbit_pool_get(struct net *net, u32 id,
					   struct decbit_pool *create)
{
	struct decbit_net *dn = net_generic(net, decbit_net_id);
	struct decbit_pool *p, *found = NULL;

	mutex_lock(&decbit_pools_lock);
	list_for_each_entry(p, &dn->pools, node) {
		if (p->id == id) {
			found = p;
			break;
		}
	}
	if (found) {
		found->users++;
	} else if (create) {
		create->id = id;
		create->users = 1;
		list_add(&create->node, &dn->pools);
		found = create;
	}
	mutex_unlock(&decbit_pools_lock);
	if (create && found != create)
		kfree(create);
	return found;
}

static void decbit_pool_put(struct decbit_pool *pool)
{
	bool last;

	if (!pool)
		return;
	mutex_lock(&decbit_pools_lock);
	last = !--pool->users;
	if (last)
		list_del_init(&pool->node);
	mutex_unlock(&decbit_pools_lock);
	if (last) {
		WARN_ON_ONCE(atomic64_read(&pool->held));
		kfree(pool);
	}
}

/* One packet (or GSO skb of @segs segments) joins the queue. */
static int decbit_enqueue_one(struct sk_buff *skb, struct Qdisc *sch,
			      struct sk_buff **to_free)
{
	struct decbit_sched_data *q = qdisc_priv(sch);
	bool congested, input = decbit_is_input(q, skb);
	u32 segs = decbit_segs(skb);
	u64 now = ktime_get_ns();

	congested = decbit_avg_arrival(&q->avg, &q->params, now,
				       decbit_backlog(sch));

	if (unlikely((u64)q->segs + segs > sch->limit)) {
		q->overlimit_dropped += segs;
		return qdisc_drop(skb, sch, to_free);
	}
	if (q->pool) {
		switch (decbit_pool_take(q->pool, input, segs)) {
		case DECBIT_POOL_ADMIT:
			break;
		case DECBIT_POOL_IBL:
			q->ibl_dropped += segs;
			return qdisc_drop(skb, sch, to_free);
		case DECBIT_POOL_FULL:
			q->pool_dropped += segs;
			return qdisc_drop(skb, sch, to_free);
		}
	}
	if (congested) {
		/* every segment carries the mark: count them all */
		if (INET_ECN_set_ce(skb)) {
			q->marked += segs;
		} else if (q->nonect == TC_DECBIT_NONECT_PASS) {
			q->nonect_passed += segs;
		} else {
			if (q->pool)
				decbit_pool_charge(q->pool, -(s64)segs,
						   input ? -(s64)segs : 0);
			q->nonect_dropped += segs;
			qdisc_qstats_overlimit(sch);
			return qdisc_drop(skb, sch, to_free);
		}
	}
	decbit_cb(skb)->segs = segs;
	decbit_cb(skb)->input = input;
	/* the link is busy: this packet will be waiting when it frees up */
	if (now < q->avg.busy_until)
		q->head_waited = true;
	q->segs += segs;
	if (input)
		q->input_segs += segs;
	return qdisc_enqueue_tail(skb, sch);
}

static int decbit_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			  struct sk_buff **to_free)
{
	struct decbit_sched_data *q = qdisc_priv(sch);

	if (q->rate && skb_is_gso(skb))
		/*
		 * Paced, the qdisc is the bottleneck and serves packets one
		 * by one: each segment is averaged, marked and served as the
		 * packet it will be on the wire.
		 */
		return congavoid_gso_split(skb, sch, to_free,
					   decbit_enqueue_one);
	return decbit_enqueue_one(skb, sch, to_free);
}

/* Paced and the packet in service has not left yet: come back then. */
static bool decbit_throttled(struct decbit_sched_data *q, u64 now)
{
	if (!q->rate || now >= q->avg.busy_until)
		return false;
	qdisc_watchdog_schedule_ns(&q->watchdog, q->avg.busy_until);
	return true;
}

static struct sk_buff *decbit_peek(struct Qdisc *sch)
{
	struct decbit_sched_data *q = qdisc_priv(sch);
	struct sk_buff *skb = qdisc_peek_head(sch);

	if (skb && decbit_throttled(q, ktime_get_ns()))
		return NULL;
	return skb;
}

static struct sk_buff *decbit_dequeue(struct Qdisc *sch)
{
	struct decbit_sched_data *q = qdisc_priv(sch);
	struct sk_buff *skb = qdisc_peek_head(sch);
	u64 now, start, until = 0;

	if (!skb)
		return NULL;
	now = ktime_get_ns();
	if (decbit_throttled(q, now))
		return NULL;
	if (q->rate) {
		u64 len_ns = psched_l2t_ns(&q->rcfg, qdisc_pkt_len(skb));

		/* a late watchdog must not lower the rate (decbit_avg.h) */
		start = decbit_service_start(now, q->avg.busy_until, len_ns,
					     q->head_waited,
					     READ_ONCE(q->catchup));
		q->lost_ns += decbit_service_lost(start, q->avg.busy_until,
						  q->head_waited);
		until = start + len_ns;
	}
	decbit_avg_service(&q->avg, now, decbit_backlog(sch), until);
	skb = qdisc_dequeue_head(sch);
	decbit_release(q, skb);
	/* the next head, if any, is already waiting */
	q->head_waited = q->segs > 0;
	return skb;
}

static void decbit_reset(struct Qdisc *sch)
{
	struct decbit_sched_data *q = qdisc_priv(sch);

	/* only the own queue holds buffers: the core frees its requeued skbs */
	if (q->pool)
		decbit_pool_charge(q->pool, -(s64)q->segs, -(s64)q->input_segs);
	q->segs = 0;
	q->input_segs = 0;
	q->head_waited = false;
	qdisc_reset_queue(sch);
	qdisc_watchdog_cancel(&q->watchdog);
	decbit_avg_init(&q->avg);
}

/*
 * Each attribute's own range is in the policy: netlink refuses a value
 * outside it (ERANGE, "integer out of range"), points at the attribute and
 * reports the range (NLMSGERR_ATTR_POLICY).  What depends on more than one
 * attribute or on the namespace is checked in decbit_validate().
 */
static struct netlink_range_validation decbit_limit_range = {
	.min = 1, .max = DECBIT_LIMIT_MAX,
};

static struct netlink_range_validation decbit_threshold_range = {
	.min = 1, .max = DECBIT_THRESHOLD_MAX,
};

static struct netlink_range_validation decbit_rate_range = {
	.max = DECBIT_RATE_MAX,
};

static struct netlink_range_validation decbit_ibl_range = {
	.min = 1, .max = DECBIT_IBL_MAX,
};

static struct netlink_range_validation decbit_catchup_range = {
	.max = DECBIT_CATCHUP_MAX,
};

static const struct nla_policy decbit_policy[TCA_DECBIT_MAX + 1] = {
	[TCA_DECBIT_LIMIT]	= NLA_POLICY_FULL_RANGE(NLA_U32,
							&decbit_limit_range),
	[TCA_DECBIT_THRESHOLD]	= NLA_POLICY_FULL_RANGE(NLA_U32,
							&decbit_threshold_range),
	[TCA_DECBIT_HYSTERESIS]	= { .type = NLA_U32 },
	[TCA_DECBIT_RATE]	= NLA_POLICY_FULL_RANGE(NLA_U64,
							&decbit_rate_range),
	[TCA_DECBIT_NONECT]	= NLA_POLICY_MAX(NLA_U8, TC_DECBIT_NONECT_DROP),
	[TCA_DECBIT_POOL]	= { .type = NLA_U32 },
	[TCA_DECBIT_POOL_LIMIT]	= NLA_POLICY_FULL_RANGE(NLA_U32,
							&decbit_limit_range),
	[TCA_DECBIT_IBL]	= NLA_POLICY_FULL_RANGE(NLA_U32,
							&decbit_ibl_range),
	[TCA_DECBIT_INPUT]	= { .type = NLA_BINARY,
				    .len = DECBIT_INPUT_MAX * sizeof(u32) },
	[TCA_DECBIT_CATCHUP]	= NLA_POLICY_FULL_RANGE(NLA_U32,
							&decbit_catchup_range),
};

/* Input interfaces: existing devices of this namespace, each named once. */
static int decbit_validate_inputs(const struct nlattr *attr, struct Qdisc *sch,
				  struct netlink_ext_ack *extack)
{
	struct net *net = dev_net(qdisc_dev(sch));
	int len, i, j, ifindex;
	const u32 *idx;

	if (!attr)
		return 0;
	len = nla_len(attr);
	if (len % sizeof(u32)) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "decbit: input must be a list of 32-bit interface indexes");
		return -EINVAL;
	}
	idx = nla_data(attr);
	for (i = 0; i < len / (int)sizeof(u32); i++) {
		ifindex = idx[i];
		if (ifindex <= 0 || !__dev_get_by_index(net, ifindex)) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "decbit: input names no interface of this namespace");
			return -ENODEV;
		}
		for (j = 0; j < i; j++) {
			if (idx[j] == idx[i]) {
				NL_SET_ERR_MSG_ATTR(extack, attr,
						    "decbit: input names an interface twice");
				return -EINVAL;
			}
		}
	}
	return 0;
}

static int decbit_validate(struct nlattr **tb, struct Qdisc *sch,
			   struct netlink_ext_ack *extack)
{
	const struct decbit_sched_data *q = qdisc_priv(sch);
	u32 threshold = q->params.threshold, hyst = q->params.hysteresis;

	if (tb[TCA_DECBIT_THRESHOLD])
		threshold = nla_get_u32(tb[TCA_DECBIT_THRESHOLD]);
	if (tb[TCA_DECBIT_HYSTERESIS])
		hyst = nla_get_u32(tb[TCA_DECBIT_HYSTERESIS]);
	if (hyst >= 2ULL * threshold) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_DECBIT_HYSTERESIS] ? :
					    tb[TCA_DECBIT_THRESHOLD],
				    "decbit: hysteresis must be less than twice the threshold");
		return -EINVAL;
	}
	return decbit_validate_inputs(tb[TCA_DECBIT_INPUT], sch, extack);
}

/*
 * The pool the qdisc is to be in after a change, with a reference taken if
 * it is not the current one: *@pool is NULL for none.  A new pool needs its
 * pool_limit; ibl defaults to 1 (no input limit beyond the pool's).
 */
static int decbit_pool_target(struct Qdisc *sch, struct nlattr **tb,
			      struct decbit_pool **pool,
			      struct netlink_ext_ack *extack)
{
	struct decbit_sched_data *q = qdisc_priv(sch);
	struct decbit_pool *create = NULL;
	u32 id;

	*pool = q->pool;
	if (!tb[TCA_DECBIT_POOL]) {
		if (!q->pool && (tb[TCA_DECBIT_POOL_LIMIT] || tb[TCA_DECBIT_IBL])) {
			NL_SET_ERR_MSG(extack,
				       "decbit: pool_limit and ibl need a pool");
			return -EINVAL;
		}
		return 0;
	}
	id = nla_get_u32(tb[TCA_DECBIT_POOL]);
	if (!id) {
		if (tb[TCA_DECBIT_POOL_LIMIT] || tb[TCA_DECBIT_IBL]) {
			NL_SET_ERR_MSG(extack,
				       "decbit: pool_limit and ibl need a pool");
			return -EINVAL;
		}
		*pool = NULL;
		return 0;
	}
	if (q->pool && q->pool->id == id)
		return 0;
	if (tb[TCA_DECBIT_POOL_LIMIT]) {
		create = kzalloc(sizeof(*create), GFP_KERNEL);
		if (!create)
			return -ENOMEM;
		atomic64_set(&create->held, 0);
		create->limit = nla_get_u32(tb[TCA_DECBIT_POOL_LIMIT]);
		create->ibl = DECBIT_IBL_DEFAULT;
		create->input_limit = create->limit;
	}
	*pool = decbit_pool_get(dev_net(qdisc_dev(sch)), id, create);
	if (!*pool) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_DECBIT_POOL],
				    "decbit: pool_limit is required to create a pool");
		return -EINVAL;
	}
	return 0;
}

static int decbit_change(struct Qdisc *sch, struct nlattr *opt,
			 struct netlink_ext_ack *extack)
{
	struct decbit_sched_data *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_DECBIT_MAX + 1];
	unsigned int dropped_pkts = 0, dropped_bytes = 0;
	struct decbit_pool *pool, *old = q->pool;
	int err;

	err = nla_parse_nested(tb, TCA_DECBIT_MAX, opt, decbit_policy, extack);
	if (err < 0)
		return err;
	err = decbit_validate(tb, sch, extack);
	if (err)
		return err;
	err = decbit_pool_target(sch, tb, &pool, extack);
	if (err)
		return err;

	sch_tree_lock(sch);
	decbit_avg_advance(&q->avg, ktime_get_ns(), decbit_backlog(sch));
	if (tb[TCA_DECBIT_LIMIT])
		WRITE_ONCE(sch->limit, nla_get_u32(tb[TCA_DECBIT_LIMIT]));
	if (tb[TCA_DECBIT_THRESHOLD])
		WRITE_ONCE(q->params.threshold,
			   nla_get_u32(tb[TCA_DECBIT_THRESHOLD]));
	if (tb[TCA_DECBIT_HYSTERESIS])
		WRITE_ONCE(q->params.hysteresis,
			   nla_get_u32(tb[TCA_DECBIT_HYSTERESIS]));
	if (tb[TCA_DECBIT_NONECT])
		WRITE_ONCE(q->nonect, nla_get_u8(tb[TCA_DECBIT_NONECT]));
	if (tb[TCA_DECBIT_CATCHUP])
		WRITE_ONCE(q->catchup, nla_get_u32(tb[TCA_DECBIT_CATCHUP]));
	if (tb[TCA_DECBIT_RATE]) {
		struct tc_ratespec rs = { .linklayer = TC_LINKLAYER_ETHERNET };
		u64 rate = nla_get_u64(tb[TCA_DECBIT_RATE]);

		psched_ratecfg_precompute(&q->rcfg, &rs, rate);
		WRITE_ONCE(q->rate, rate);
		/* never paced: loses nothing (decbit_service_lost()) */
		if (!rate)
			q->avg.busy_until = 0;
	}
	if (tb[TCA_DECBIT_INPUT]) {
		const u32 *idx = nla_data(tb[TCA_DECBIT_INPUT]);
		u32 i, n = nla_len(tb[TCA_DECBIT_INPUT]) / sizeof(u32);

		for (i = 0; i < n; i++)
			WRITE_ONCE(q->inputs[i], idx[i]);
		WRITE_ONCE(q->n_inputs, n);
	}

	/*
	 * Move the own queue's charge to the new pool, which may overfill it.
	 * Requeued skbs hold no buffer: they were released when dequeued.
	 */
	if (pool != old) {
		if (old)
			decbit_pool_charge(old, -(s64)q->segs,
					   -(s64)q->input_segs);
		if (pool)
			decbit_pool_charge(pool, q->segs, q->input_segs);
		q->pool = pool;
	}
	/* the pool's settings change under RTNL; admission reads them racily */
	if (pool && (tb[TCA_DECBIT_POOL_LIMIT] || tb[TCA_DECBIT_IBL])) {
		if (tb[TCA_DECBIT_POOL_LIMIT])
			WRITE_ONCE(pool->limit,
				   nla_get_u32(tb[TCA_DECBIT_POOL_LIMIT]));
		if (tb[TCA_DECBIT_IBL])
			WRITE_ONCE(pool->ibl, nla_get_u32(tb[TCA_DECBIT_IBL]));
		WRITE_ONCE(pool->input_limit,
			   decbit_pool_input_limit(pool->limit, pool->ibl));
	}

	/*
	 * Trim the own queue to the new limit, from its head.  The skbs the
	 * driver handed back (sch->gso_skb) are not decbit's any more: they
	 * left its counts at dequeue and go first when the queue wakes.
	 */
	while (q->segs > sch->limit) {
		struct sk_buff *skb = __qdisc_dequeue_head(&sch->q);

		if (WARN_ON_ONCE(!skb))
			break;
		q->overlimit_dropped += decbit_cb(skb)->segs;
		decbit_release(q, skb);
		dropped_pkts++;
		dropped_bytes += qdisc_pkt_len(skb);
		qdisc_qstats_backlog_dec(sch, skb);
		rtnl_qdisc_drop(skb, sch);
	}
	if (!q->segs)
		q->head_waited = false;
	qdisc_tree_reduce_backlog(sch, dropped_pkts, dropped_bytes);
	sch_tree_unlock(sch);

	if (pool != old)
		decbit_pool_put(old);
	return 0;
}

static int decbit_init(struct Qdisc *sch, struct nlattr *opt,
		       struct netlink_ext_ack *extack)
{
	struct decbit_sched_data *q = qdisc_priv(sch);

	sch->limit = DECBIT_LIMIT_DEFAULT;
	decbit_params_init(&q->params);
	q->nonect = DECBIT_NONECT_DEFAULT;
	q->rate = DECBIT_RATE_DEFAULT;
	q->catchup = DECBIT_CATCHUP_DEFAULT;
	q->head_waited = false;
	q->pool = NULL;
	q->segs = 0;
	q->input_segs = 0;
	q->n_inputs = 0;
	decbit_avg_init(&q->avg);
	qdisc_watchdog_init(&q->watchdog, sch);

	if (opt)
		return decbit_change(sch, opt, extack);
	return 0;
}

static void decbit_destroy(struct Qdisc *sch)
{
	struct decbit_sched_data *q = qdisc_priv(sch);

	qdisc_watchdog_cancel(&q->watchdog);
	/* the core reset the queue first: only an empty qdisc leaves a pool */
	if (q->pool)
		decbit_pool_charge(q->pool, -(s64)q->segs, -(s64)q->input_segs);
	decbit_pool_put(q->pool);
	q->pool = NULL;
}

static int decbit_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct decbit_sched_data *q = qdisc_priv(sch);
	struct decbit_pool *pool = q->pool;
	u32 inputs[DECBIT_INPUT_MAX], i, n;
	struct nlattr *opts;

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		return -EMSGSIZE;
	if (nla_put_u32(skb, TCA_DECBIT_LIMIT, READ_ONCE(sch->limit)) ||
	    nla_put_u32(skb, TCA_DECBIT_THRESHOLD,
			READ_ONCE(q->params.threshold)) ||
	    nla_put_u32(skb, TCA_DECBIT_HYSTERESIS,
			READ_ONCE(q->params.hysteresis)) ||
	    nla_put_u64_64bit(skb, TCA_DECBIT_RATE, READ_ONCE(q->rate),
			      TCA_DECBIT_PAD) ||
	    nla_put_u8(skb, TCA_DECBIT_NONECT, READ_ONCE(q->nonect)) ||
	    nla_put_u32(skb, TCA_DECBIT_CATCHUP, READ_ONCE(q->catchup)))
		goto nla_put_failure;
	/* dump runs under RTNL, as change does: the pool cannot change */
	if (pool &&
	    (nla_put_u32(skb, TCA_DECBIT_POOL, pool->id) ||
	     nla_put_u32(skb, TCA_DECBIT_POOL_LIMIT, READ_ONCE(pool->limit)) ||
	     nla_put_u32(skb, TCA_DECBIT_IBL, READ_ONCE(pool->ibl))))
		goto nla_put_failure;
	n = READ_ONCE(q->n_inputs);
	for (i = 0; i < n; i++)
		inputs[i] = READ_ONCE(q->inputs[i]);
	if (n && nla_put(skb, TCA_DECBIT_INPUT, n * sizeof(u32), inputs))
		goto nla_put_failure;
	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

static int decbit_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct decbit_sched_data *q = qdisc_priv(sch);
	struct decbit_pool *pool;
	struct tc_decbit_xstats st;

	/* The average spans several fields: read them under the lock. */
	sch_tree_lock(sch);
	st = (struct tc_decbit_xstats){
		.marked		= q->marked,
		.nonect_passed	= q->nonect_passed,
		.nonect_dropped	= q->nonect_dropped,
		.overlimit_dropped = q->overlimit_dropped,
		.cycles		= q->avg.cycles,
		.avg		= decbit_avg_milli(&q->avg, ktime_get_ns(),
						   decbit_backlog(sch)),
		.congested	= q->avg.congested,
		.ibl_dropped	= q->ibl_dropped,
		.pool_dropped	= q->pool_dropped,
		.input_qlen	= q->input_segs,
		.lost_ns	= q->lost_ns,
	};
	pool = q->pool;
	if (pool) {
		s64 held = atomic64_read(&pool->held);

		st.pool_used = (u32)held;
		st.pool_input = (u32)((u64)held >> 32);
		st.pool_input_limit = READ_ONCE(pool->input_limit);
	}
	sch_tree_unlock(sch);

	return gnet_stats_copy_app(d, &st, sizeof(st));
}

static struct Qdisc_ops decbit_qdisc_ops __read_mostly = {
	.id		= "decbit",
	.priv_size	= sizeof(struct decbit_sched_data),
	.enqueue	= decbit_enqueue,
	.dequeue	= decbit_dequeue,
	.peek		= decbit_peek,
	.init		= decbit_init,
	.reset		= decbit_reset,
	.destroy	= decbit_destroy,
	.change		= decbit_change,
	.dump		= decbit_dump,
	.dump_stats	= decbit_dump_stats,
	.owner		= THIS_MODULE,
};
MODULE_ALIAS_NET_SCH("decbit");

static int __net_init decbit_net_init(struct net *net)
{
	struct decbit_net *dn = net_generic(net, decbit_net_id);

	INIT_LIST_HEAD(&dn->pools);
	return 0;
}

/*
 * The namespace's devices have left it or are gone, but a qdisc whose
 * last reference a tc request still holds keeps its pool: detach what is
 * left, for the last put to free.
 */
static void __net_exit decbit_net_exit(struct net *net)
{
	struct decbit_net *dn = net_generic(net, decbit_net_id);
	struct decbit_pool *p, *tmp;

	mutex_lock(&decbit_pools_lock);
	list_for_each_entry_safe(p, tmp, &dn->pools, node)
		list_del_init(&p->node);
	mutex_unlock(&decbit_pools_lock);
}

static struct pernet_operations decbit_net_ops = {
	.init	= decbit_net_init,
	.exit	= decbit_net_exit,
	.id	= &decbit_net_id,
	.size	= sizeof(struct decbit_net),
};

static int __init decbit_module_init(void)
{
	int err;

	err = register_pernet_subsys(&decbit_net_ops);
	if (err)
		return err;
	err = register_qdisc(&decbit_qdisc_ops);
	if (err)
		unregister_pernet_subsys(&decbit_net_ops);
	return err;
}

static void __exit decbit_module_exit(void)
{
	unregister_qdisc(&decbit_qdisc_ops);
	unregister_pernet_subsys(&decbit_net_ops);
}

module_init(decbit_module_init);
module_exit(decbit_module_exit);

MODULE_AUTHOR("congavoid developers");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("DECbit router: ECN marking on the regeneration-cycle average queue length");
