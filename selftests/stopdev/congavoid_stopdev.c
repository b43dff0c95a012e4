// SPDX-License-Identifier: GPL-2.0
/*
 * congavoid_stopdev: a test-only Ethernet device whose transmit queues the
 * selftests stop and start, so that a qdisc above it sees what a real NIC
 * under load does to it (the core parks dequeued packets on the qdisc's
 * requeue list), at a moment the test chooses rather than by chance.
 *
 * On load it creates "stopdev0" (four transmit queues, NOARP, checksum
 * offload and scatter-gather but no segmentation offload: the core
 * segments GSO packets in software) in the initial namespace.
 * It transmits by freeing (counted in its tx statistics).  Parameters:
 *
 *   stopped     Y: all transmit queues stopped (N wakes them)
 *   stop_after  N > 0: stop the queues after N more packets, inside the
 *               transmit call, so that the rest of a segmented GSO packet
 *               goes back to the qdisc as a list
 *   hold_root   Y: take a reference to the device's root qdisc, as a tc
 *               request in flight does (tc_new_tfilter() looks the qdisc
 *               up and holds it without the rtnl lock); N drops it.  The
 *               qdisc then outlives a move of the device to another
 *               namespace, and its last put, its destroy, runs when the
 *               test says, not by chance
 *
 * Not for production: it is built only for the selftests.
 */
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <linux/rtnetlink.h>
#include <net/sch_generic.h>

static struct net_device *stopdev;
static bool stopped;
static int stop_after;
static struct Qdisc *held_root;	/* under the rtnl lock */
static bool hold_root;

static netdev_tx_t stopdev_xmit(struct sk_buff *skb, struct net_device *dev)
{
	dev_sw_netstats_tx_add(dev, 1, skb->len);
	dev_kfree_skb_any(skb);
	if (READ_ONCE(stop_after) > 0 && !--stop_after) {
		WRITE_ONCE(stopped, true);
		netif_tx_stop_all_queues(dev);
	}
	return NETDEV_TX_OK;
}

static int stopdev_open(struct net_device *dev)
{
	if (READ_ONCE(stopped))
		netif_tx_stop_all_queues(dev);
	else
		netif_tx_start_all_queues(dev);
	return 0;
}

static const struct net_device_ops stopdev_ops = {
	.ndo_open	= stopdev_open,
	.ndo_start_xmit	= stopdev_xmit,
	.ndo_get_stats64 = dev_get_tstats64,
};

static int stopdev_set_stopped(const char *val, const struct kernel_param *kp)
{
	int err = param_set_bool(val, kp);

	if (err || !stopdev)
		return err;
	if (READ_ONCE(stopped))
		netif_tx_stop_all_queues(stopdev);
	else
		netif_tx_wake_all_queues(stopdev);
	return 0;
}

static const struct kernel_param_ops stopped_ops = {
	.set = stopdev_set_stopped,
	.get = param_get_bool,
};
module_param_cb(stopped, &stopped_ops, &stopped, 0644);
MODULE_PARM_DESC(stopped, "transmit queues stopped (Y) or running (N)");
module_param(stop_after, int, 0644);
MODULE_PARM_DESC(stop_after, "stop the queues after this many more packets (0: never)");

static void stopdev_release_root(void)
{
	qdisc_put(held_root);
	held_root = NULL;
}

static int stopdev_set_hold(const char *val, const struct kernel_param *kp)
{
	struct Qdisc *q;
	bool hold;
	int err;

	err = kstrtobool(val, &hold);
	if (err)
		return err;
	if (!stopdev)
		return -ENODEV;	/* set at load time */
	rtnl_lock();
	if (hold && !held_root) {
		q = rtnl_dereference(stopdev->qdisc);
		if (q && !(q->flags & TCQ_F_BUILTIN)) {
			qdisc_refcount_inc(q);
			held_root = q;
		} else {
			err = -ENOENT;	/* no qdisc of its own to hold */
		}
	} else if (!hold && held_root) {
		stopdev_release_root();
	}
	WRITE_ONCE(hold_root, !!held_root);
	rtnl_unlock();
	return err;
}

static const struct kernel_param_ops hold_ops = {
	.set = stopdev_set_hold,
	.get = param_get_bool,
};
module_param_cb(hold_root, &hold_ops, &hold_root, 0644);
MODULE_PARM_DESC(hold_root, "hold a reference to the root qdisc (Y) or drop it (N)");

static void stopdev_setup(struct net_device *dev)
{
	ether_setup(dev);
	dev->netdev_ops = &stopdev_ops;
	dev->flags |= IFF_NOARP;
	dev->features = NETIF_F_HW_CSUM | NETIF_F_SG;
	dev->hw_features = dev->features;
	dev->needs_free_netdev = true;
	dev->pcpu_stat_type = NETDEV_PCPU_STAT_TSTATS;
	eth_hw_addr_random(dev);
}

static int __init stopdev_init(void)
{
	struct net_device *dev;
	int err;

	dev = alloc_netdev_mqs(0, "stopdev%d", NET_NAME_ENUM, stopdev_setup,
			       4, 1);
	if (!dev)
		return -ENOMEM;
	err = register_netdev(dev);
	if (err) {
		free_netdev(dev);
		return err;
	}
	stopdev = dev;
	return 0;
}

static void __exit stopdev_exit(void)
{
	rtnl_lock();
	if (held_root)
		stopdev_release_root();
	rtnl_unlock();
	unregister_netdev(stopdev);
}

module_init(stopdev_init);
module_exit(stopdev_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("congavoid selftests: a NIC whose transmit queues the tests stop");
