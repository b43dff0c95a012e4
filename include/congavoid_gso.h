/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Splitting a GSO skb at a qdisc's enqueue, as tbf and cake do, for the
 * qdiscs that count, pace or mark packets on the wire: each segment goes
 * through @enqueue_one as the packet it will be.
 */
#ifndef _CONGAVOID_GSO_H
#define _CONGAVOID_GSO_H

#include <linux/netdevice.h>
#include <net/sch_generic.h>

/*
 * @skb is consumed.  The parents count one skb of its length if this
 * returns success, nothing if a drop: they are corrected here for the n
 * segments queued, one included (their bytes are not the skb's).  Always
 * inline, so that @enqueue_one is a direct call.
 */
static __always_inline int
congavoid_gso_split(struct sk_buff *skb, struct Qdisc *sch,
		    struct sk_buff **to_free,
		    int (*enqueue_one)(struct sk_buff *skb, struct Qdisc *sch,
				       struct sk_buff **to_free))
{
	netdev_features_t features = netif_skb_features(skb);
	unsigned int len = 0, prev_len = qdisc_pkt_len(skb), n = 0;
	struct sk_buff *segs, *next;

	segs = skb_gso_segment(skb, features & ~NETIF_F_GSO_MASK);
	if (IS_ERR_OR_NULL(segs))
		return qdisc_drop(skb, sch, to_free);

	skb_list_walk_safe(segs, segs, next) {
		skb_mark_not_on_list(segs);
		qdisc_skb_cb(segs)->pkt_len = segs->len;
		len += segs->len;
		if (enqueue_one(segs, sch, to_free) == NET_XMIT_SUCCESS)
			n++;
		else
			len -= segs->len;
	}
	if (n > 0)
		qdisc_tree_reduce_backlog(sch, 1 - (int)n, (int)(prev_len - len));
	consume_skb(skb);
	return n ? NET_XMIT_SUCCESS : NET_XMIT_DROP;
}

#endif /* _CONGAVOID_GSO_H */
