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
 */

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/skbuff.h>
#include <linux/ktime.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>
#include <net/inet_ecn.h>

#include <congavoid/tc_decbit.h>
#include "congavoid_compat.h"
#include "decbit_avg.h"

struct decbit_sched_data {
	struct decbit_params params;
	u64 rate;			/* bytes/s, 0: unpaced */
	struct psched_ratecfg rcfg;
	u8 nonect;			/* enum tc_decbit_nonect */
	struct decbit_avg avg;
	struct qdisc_watchdog watchdog;

	u64 marked;
	u64 nonect_passed;
	u64 nonect_dropped;
	u64 overlimit_dropped;
};

static int decbit_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			  struct sk_buff **to_free)
{
	struct decbit_sched_data *q = qdisc_priv(sch);
	bool congested;

	congested = decbit_avg_arrival(&q->avg, &q->params, ktime_get_ns(),
				       sch->q.qlen);

	if (unlikely(sch->q.qlen >= sch->limit)) {
		q->overlimit_dropped++;
		return qdisc_drop(skb, sch, to_free);
	}
	if (congested) {
		if (INET_ECN_set_ce(skb)) {
			q->marked++;
		} else if (q->nonect == TC_DECBIT_NONECT_PASS) {
			q->nonect_passed++;
		} else {
			q->nonect_dropped++;
			qdisc_qstats_overlimit(sch);
			return qdisc_drop(skb, sch, to_free);
		}
	}
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
	return qdisc_dequeue_head(sch);
}

static void decbit_reset(struct Qdisc *sch)
{
	struct decbit_sched_data *q = qdisc_priv(sch);

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
};

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
	return 0;
}

static int decbit_change(struct Qdisc *sch, struct nlattr *opt,
			 struct netlink_ext_ack *extack)
{
	struct decbit_sched_data *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_DECBIT_MAX + 1];
	unsigned int dropped_pkts = 0, dropped_bytes = 0;
	int err;

	err = nla_parse_nested(tb, TCA_DECBIT_MAX, opt, decbit_policy, extack);
	if (err < 0)
		return err;
	err = decbit_validate(tb, sch, extack);
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

	while (sch->q.qlen > sch->limit) {
		struct sk_buff *skb = __qdisc_dequeue_head(&sch->q);

		dropped_pkts++;
		dropped_bytes += qdisc_pkt_len(skb);
		q->overlimit_dropped++;
		qdisc_qstats_backlog_dec(sch, skb);
		rtnl_qdisc_drop(skb, sch);
	}
	qdisc_tree_reduce_backlog(sch, dropped_pkts, dropped_bytes);
	sch_tree_unlock(sch);
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
}

static int decbit_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct decbit_sched_data *q = qdisc_priv(sch);
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
	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

static int decbit_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct decbit_sched_data *q = qdisc_priv(sch);
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
	};
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
