/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The differences between the kernels the modules support (Debian 12's
 * 6.1 and 6.12), in one place.
 */
#ifndef _CONGAVOID_COMPAT_H
#define _CONGAVOID_COMPAT_H

#include <linux/version.h>
#include <linux/module.h>
#include <net/pkt_sched.h>

/*
 * Qdisc autoload: 6.12 asks for "net-sch-<kind>", which MODULE_ALIAS_NET_SCH
 * declares; 6.1 asks for "sch_<kind>", the module's own name.
 */
#ifndef MODULE_ALIAS_NET_SCH
#define MODULE_ALIAS_NET_SCH(id)	MODULE_ALIAS("sch_" id)
#endif

/*
 * tcp_congestion_ops.cong_control gained (ack, flag) in 6.10; declare a
 * handler with CONGAVOID_CONG_CONTROL(name) and it fits either.
 */
#if KERNEL_VERSION(6, 10, 0) <= LINUX_VERSION_CODE
#define CONGAVOID_CONG_CONTROL(name)					\
	void name(struct sock *sk, u32 ack, int flag,			\
		  const struct rate_sample *rs)
#else
#define CONGAVOID_CONG_CONTROL(name)					\
	void name(struct sock *sk, const struct rate_sample *rs)
#endif

/* __tcp_send_ack() takes TCP flags in 6.12 (for AccECN). */
#if KERNEL_VERSION(6, 12, 0) <= LINUX_VERSION_CODE
#define congavoid_send_ack(sk, rcv_nxt)	__tcp_send_ack(sk, rcv_nxt, 0)
#else
#define congavoid_send_ack(sk, rcv_nxt)	__tcp_send_ack(sk, rcv_nxt)
#endif

/* get_unaligned_be64() and friends moved to <linux/unaligned.h> in 6.12. */
#if KERNEL_VERSION(6, 12, 0) <= LINUX_VERSION_CODE
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/* skb_gso_segment() moved from <linux/netdevice.h> to <net/gso.h> in 6.4. */
#if KERNEL_VERSION(6, 4, 0) <= LINUX_VERSION_CODE
#include <net/gso.h>
#endif

/*
 * Module parameters declared with their range and default, so that the
 * module, modinfo and the man pages (generated from these declarations by
 * tools/mkman) say the same: the description gets "(LO..HI, default DEF)"
 * or "(default DEF)" appended.  @var must be initialised with @def; LO, HI
 * and DEF must be plain decimal numbers (or macros that are), true or
 * false.  Writes outside [LO, HI] are refused with -EINVAL.  The
 * description is MODULE_PARM_DESC's own entry, written out so that @name
 * appears once outside # and ## (checkpatch's macro-argument check).
 */
#define CONGAVOID_PARM_DESC(id, desc)	__MODULE_INFO(parm, id, desc)

#define CONGAVOID_PARAM_UINT(name, var, lo, hi, def, desc)		\
	static int congavoid_set_##name(const char *val,		\
					const struct kernel_param *kp)	\
	{								\
		return param_set_uint_minmax(val, kp, lo, hi);		\
	}								\
	static const struct kernel_param_ops congavoid_##name##_ops = {	\
		.set = congavoid_set_##name,				\
		.get = param_get_uint,					\
	};								\
	module_param_cb(name, &congavoid_##name##_ops, &(var), 0644);	\
	CONGAVOID_PARM_DESC(congavoid_desc_##name, #name ":" desc " ("	\
			    __stringify(lo) ".." __stringify(hi)	\
			    ", default " __stringify(def) ")")

#define CONGAVOID_PARAM_BOOL(name, var, def, desc)			\
	module_param_named(name, var, bool, 0644);			\
	CONGAVOID_PARM_DESC(congavoid_desc_##name, #name ":" desc	\
			    " (default " __stringify(def) ")")

#endif /* _CONGAVOID_COMPAT_H */
