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
 * paces dequeue), so the packet in service is known exactly and the qdisc
 * can be the bottleneck of a veth link.  Without it the head of the queue
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
#include <linux/spinlock.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>
#include <net/inet_ecn.h>

#include <congavoid/tc_decbit.h>
#include "congavoid_compat.h"
#include "decbit_avg.h"
#include "decbit_pool.h"

/* A router's shared buffers: one per (network namespace, pool id). */
struct decbit_pool {
	struct list_head node;	/* in decbit_pools */
	possible_net_t net;
	u32 id;
	unsigned int users;	/* qdiscs in the pool, under decbit_pools_lock */

	spinlock_t lock;	/* the counts and limits below */
	u32 limit;		/* N_T */
	u32 ibl;		/* millionths of N_T */
	u32 input_limit;	/* N_I */
	u32 used;
	u32 input;
};

static LIST_HEAD(decbit_pools);
static DEFINE_SPINLOCK(decbit_pools_lock);

struct decbit_skb_cb {
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
	u8 nonect;			/* enum tc_decbit_nonect */
	struct decbit_avg avg;
	struct qdisc_watchdog watchdog;

	struct decbit_pool *pool;	/* NULL: no input buffer limits */
	u32 input_qlen;			/* input packets in the queue */
	u32 n_inputs;
	int inputs[DECBIT_INPUT_MAX];	/* ifindexes of input interfaces */

	u64 marked;
	u64 nonect_passed;
	u64 nonect_dropped;
	u64 overlimit_dropped;
	u64 ibl_dropped;
	u64 pool_dropped;
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

static enum decbit_pool_verdict decbit_pool_take(struct decbit_pool *pool,
						 bool input)
{
	enum decbit_pool_verdict v;

	spin_lock_bh(&pool->lock);
	v = decbit_pool_admit(pool->used, pool->input, pool->limit,
			      pool->input_limit, input);
	if (v == DECBIT_POOL_ADMIT) {
		WRITE_ONCE(pool->used, pool->used + 1);
		if (input)
			WRITE_ONCE(pool->input, pool->input + 1);
	}
	spin_unlock_bh(&pool->lock);
	return v;
}

/* Add (or, negative, remove) @pkts packets, @input of them input. */
static void decbit_pool_charge(struct decbit_pool *pool, int pkts, int input)
{
	spin_lock_bh(&pool->lock);
	WRITE_ONCE(pool->used, pool->used + pkts);
	WRITE_ONCE(pool->input, pool->input + input);
	spin_unlock_bh(&pool->lock);
}

/* A queued packet leaves the qdisc, by whatever path. */
static void decbit_release(struct decbit_sched_data *q, struct sk_buff *skb)
{
	bool input = decbit_cb(skb)->input;

	if (input)
		q->input_qlen--;
	if (q->pool)
		decbit_pool_charge(q->pool, -1, -(int)input);
}

/*
 * The pool @id of @net with a reference taken, or NULL.  Creating one needs
 * its limit: @create is a new pool to insert if none exists yet (freed
 * otherwise).
 */
static struct decbit_pool *decbit_pool_get(struct net *net, u32 id,
					   struct decbit_pool *create)
{
	struct decbit_pool *p, *found = NULL;

	spin_lock_bh(&decbit_pools_lock);
	list_for_each_entry(p, &decbit_pools, node) {
		if (p->id == id && net_eq(read_pnet(&p->net), net)) {
			found = p;
			break;
		}
	}
	if (found) {
		found->users++;
	} else if (create) {
		write_pnet(&create->net, net);
		create->id = id;
		create->users = 1;
		list_add(&create->node, &decbit_pools);
		found = create;
	}
	spin_unlock_bh(&decbit_pools_lock);
	if (create && found != create)
		kfree(create);
	return found;
}

static void decbit_pool_put(struct decbit_pool *pool)
{
	bool last;

	if (!pool)
		return;
	spin_lock_bh(&decbit_pools_lock);
	last = !--pool->users;
	if (last)
		list_del(&pool->node);
	spin_unlock_bh(&decbit_pools_lock);
	if (last) {
		WARN_ON_ONCE(pool->used || pool->input);
		kfree(pool);
	}
}

static int decbit_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			  struct sk_buff **to_free)
{
	struct decbit_sched_data *q = qdisc_priv(sch);
	bool congested, input = decbit_is_input(q, skb);

	congested = decbit_avg_arrival(&q->avg, &q->params, ktime_get_ns(),
				       sch->q.qlen);

	if (unlikely(sch->q.qlen >= sch->limit)) {
		q->overlimit_dropped++;
		return qdisc_drop(skb, sch, to_free);
	}
	if (q->pool) {
		switch (decbit_pool_take(q->pool, input)) {
		case DECBIT_POOL_ADMIT:
			break;
		case DECBIT_POOL_IBL:
			q->ibl_dropped++;
			return qdisc_drop(skb, sch, to_free);
		case DECBIT_POOL_FULL:
			q->pool_dropped++;
			return qdisc_drop(skb, sch, to_free);
		}
	}
	if (congested) {
		if (INET_ECN_set_ce(skb)) {
			q->marked++;
		} else if (q->nonect == TC_DECBIT_NONECT_PASS) {
			q->nonect_passed++;
		} else {
			if (q->pool)
				decbit_pool_charge(q->pool, -1, -(int)input);
			q->nonect_dropped++;
			qdisc_qstats_overlimit(sch);
			return qdisc_drop(skb, sch, to_free);
		}
	}
	decbit_cb(skb)->input = input;
	if (input)
		q->input_qlen++;
	return qdisc_enqueue_tail(skb, sch);
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

		/*
		 * A watchdog that fires a little late must not lower the
		 * rate: the link stayed busy if we are late by less than one
		 * service time.
		 */
		start = now - q->avg.busy_until < len_ns ? q->avg.busy_until : now;
		until = start + len_ns;
	}
	decbit_avg_service(&q->avg, now, sch->q.qlen, until);
	skb = qdisc_dequeue_head(sch);
	decbit_release(q, skb);
	return skb;
}

static void decbit_reset(struct Qdisc *sch)
{
	struct decbit_sched_data *q = qdisc_priv(sch);

	if (q->pool && sch->q.qlen)
		decbit_pool_charge(q->pool, -(int)sch->q.qlen,
				   -(int)q->input_qlen);
	q->input_qlen = 0;
	qdisc_reset_queue(sch);
	qdisc_watchdog_cancel(&q->watchdog);
	decbit_avg_init(&q->avg);
}

static const struct nla_policy decbit_policy[TCA_DECBIT_MAX + 1] = {
	[TCA_DECBIT_LIMIT]	= { .type = NLA_U32 },
	[TCA_DECBIT_THRESHOLD]	= { .type = NLA_U32 },
	[TCA_DECBIT_HYSTERESIS]	= { .type = NLA_U32 },
	[TCA_DECBIT_RATE]	= { .type = NLA_U64 },
	[TCA_DECBIT_NONECT]	= { .type = NLA_U8 },
	[TCA_DECBIT_POOL]	= { .type = NLA_U32 },
	[TCA_DECBIT_POOL_LIMIT]	= { .type = NLA_U32 },
	[TCA_DECBIT_IBL]	= { .type = NLA_U32 },
	[TCA_DECBIT_INPUT]	= { .type = NLA_BINARY,
				    .len = DECBIT_INPUT_MAX * sizeof(u32) },
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
	u32 v;

	if (tb[TCA_DECBIT_LIMIT]) {
		v = nla_get_u32(tb[TCA_DECBIT_LIMIT]);
		if (!v || v > DECBIT_LIMIT_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, tb[TCA_DECBIT_LIMIT],
					    "decbit: limit must be 1..1000000 packets");
			return -EINVAL;
		}
	}
	if (tb[TCA_DECBIT_THRESHOLD]) {
		threshold = nla_get_u32(tb[TCA_DECBIT_THRESHOLD]);
		if (!threshold || threshold > DECBIT_THRESHOLD_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, tb[TCA_DECBIT_THRESHOLD],
					    "decbit: threshold must be 0.001..1000000 packets");
			return -EINVAL;
		}
	}
	if (tb[TCA_DECBIT_HYSTERESIS])
		hyst = nla_get_u32(tb[TCA_DECBIT_HYSTERESIS]);
	if (hyst >= 2ULL * threshold) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_DECBIT_HYSTERESIS],
				    "decbit: hysteresis must be less than twice the threshold");
		return -EINVAL;
	}
	if (tb[TCA_DECBIT_NONECT] &&
	    nla_get_u8(tb[TCA_DECBIT_NONECT]) > TC_DECBIT_NONECT_DROP) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_DECBIT_NONECT],
				    "decbit: nonect must be 0 (pass) or 1 (drop)");
		return -EINVAL;
	}
	if (tb[TCA_DECBIT_POOL_LIMIT]) {
		v = nla_get_u32(tb[TCA_DECBIT_POOL_LIMIT]);
		if (!v || v > DECBIT_LIMIT_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, tb[TCA_DECBIT_POOL_LIMIT],
					    "decbit: pool_limit must be 1..1000000 packets");
			return -EINVAL;
		}
	}
	if (tb[TCA_DECBIT_IBL]) {
		v = nla_get_u32(tb[TCA_DECBIT_IBL]);
		if (!v || v > DECBIT_IBL_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, tb[TCA_DECBIT_IBL],
					    "decbit: ibl must be in (0, 1]");
			return -EINVAL;
		}
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
		spin_lock_init(&create->lock);
		create->limit = nla_get_u32(tb[TCA_DECBIT_POOL_LIMIT]);
		create->ibl = DECBIT_IBL_MAX;
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
	decbit_avg_advance(&q->avg, ktime_get_ns(), sch->q.qlen);
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
	if (tb[TCA_DECBIT_RATE]) {
		struct tc_ratespec rs = { .linklayer = TC_LINKLAYER_ETHERNET };
		u64 rate = nla_get_u64(tb[TCA_DECBIT_RATE]);

		psched_ratecfg_precompute(&q->rcfg, &rs, rate);
		WRITE_ONCE(q->rate, rate);
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

	/* Move this queue's charge to the new pool, which may overfill it. */
	if (pool != old) {
		if (old && sch->q.qlen)
			decbit_pool_charge(old, -(int)sch->q.qlen,
					   -(int)q->input_qlen);
		if (pool && sch->q.qlen)
			decbit_pool_charge(pool, sch->q.qlen, q->input_qlen);
		q->pool = pool;
	}
	if (pool && (tb[TCA_DECBIT_POOL_LIMIT] || tb[TCA_DECBIT_IBL])) {
		spin_lock_bh(&pool->lock);
		if (tb[TCA_DECBIT_POOL_LIMIT])
			pool->limit = nla_get_u32(tb[TCA_DECBIT_POOL_LIMIT]);
		if (tb[TCA_DECBIT_IBL])
			pool->ibl = nla_get_u32(tb[TCA_DECBIT_IBL]);
		WRITE_ONCE(pool->input_limit,
			   decbit_pool_input_limit(pool->limit, pool->ibl));
		spin_unlock_bh(&pool->lock);
	}

	while (sch->q.qlen > sch->limit) {
		struct sk_buff *skb = __qdisc_dequeue_head(&sch->q);

		decbit_release(q, skb);
		dropped_pkts++;
		dropped_bytes += qdisc_pkt_len(skb);
		q->overlimit_dropped++;
		qdisc_qstats_backlog_dec(sch, skb);
		rtnl_qdisc_drop(skb, sch);
	}
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

	sch->limit = 1000;
	q->params.threshold = DECBIT_SCALE;
	q->params.hysteresis = 0;
	q->nonect = TC_DECBIT_NONECT_PASS;
	q->rate = 0;
	q->pool = NULL;
	q->input_qlen = 0;
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
	if (q->pool && sch->q.qlen)
		decbit_pool_charge(q->pool, -(int)sch->q.qlen,
				   -(int)q->input_qlen);
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
	    nla_put_u8(skb, TCA_DECBIT_NONECT, READ_ONCE(q->nonect)))
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
						   sch->q.qlen),
		.congested	= q->avg.congested,
		.ibl_dropped	= q->ibl_dropped,
		.pool_dropped	= q->pool_dropped,
		.input_qlen	= q->input_qlen,
	};
	pool = q->pool;
	if (pool) {
		spin_lock_bh(&pool->lock);
		st.pool_used = pool->used;
		st.pool_input = pool->input;
		st.pool_input_limit = pool->input_limit;
		spin_unlock_bh(&pool->lock);
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

static int __init decbit_module_init(void)
{
	return register_qdisc(&decbit_qdisc_ops);
}

static void __exit decbit_module_exit(void)
{
	unregister_qdisc(&decbit_qdisc_ops);
}

module_init(decbit_module_init);
module_exit(decbit_module_exit);

MODULE_AUTHOR("congavoid developers");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("DECbit router: ECN marking on the regeneration-cycle average queue length");
