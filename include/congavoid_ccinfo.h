/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What "ss -ti" (and getsockopt(TCP_CC_INFO)) shows of tcp_decbit and
 * tcp_bimodal, in one place; the table is in docs/ss-info.md.
 *
 * ss prints the per-algorithm information only in the layouts it knows,
 * so both modules fill DCTCP's, struct tcp_dctcp_info, shown as
 * "dctcp:(ce_state:R,alpha:A,ab_ecn:E,ab_tot:T)", with the same meaning
 * in both wherever they have one:
 *
 *   dctcp_enabled   1: the module's policy runs; 0: decbit without ECN,
 *                   fallen back to Reno (ss: "dctcp:fallback_mode", as
 *                   for DCTCP)
 *   dctcp_ce_state  R, the reason of the last window decision (decbit) or
 *                   congestion event (bimodal), numbered as the module's
 *                   tracepoint names it; 0 before the first
 *   dctcp_alpha     A, the module's estimate: decbit, the marked fraction
 *                   of the last decision's W_c in 1/1024 (DCTCP's alpha
 *                   is a marked fraction in 1/1024 too); bimodal, the fair
 *                   share in packets while it is known, 0 while unknown
 *   dctcp_ab_ecn    E, packets acknowledged with ECE since the connection
 *                   took the module (tcp_info's delivered_ce, counted from
 *                   then)
 *   dctcp_ab_tot    T, packets acknowledged since then (tcp_info's
 *                   delivered, counted from then)
 *
 * (DCTCP itself counts bytes in ab_ecn and ab_tot, over its current
 * observation window only.)
 */
#ifndef _CONGAVOID_CCINFO_H
#define _CONGAVOID_CCINFO_H

#include <linux/inet_diag.h>
#include <net/tcp.h>

struct congavoid_cc_info {
	u16 enabled;
	u16 reason;
	u32 estimate;
	u32 marked;
	u32 acked;
};

static inline size_t congavoid_get_info(u32 ext, int *attr,
					union tcp_cc_info *info,
					const struct congavoid_cc_info *ci)
{
	/* ss asks for VEGASINFO, not DCTCPINFO: answer either, as DCTCP does */
	if (!(ext & (1 << (INET_DIAG_DCTCPINFO - 1))) &&
	    !(ext & (1 << (INET_DIAG_VEGASINFO - 1))))
		return 0;
	memset(&info->dctcp, 0, sizeof(info->dctcp));
	info->dctcp.dctcp_enabled = ci->enabled;
	info->dctcp.dctcp_ce_state = ci->reason;
	info->dctcp.dctcp_alpha = ci->estimate;
	info->dctcp.dctcp_ab_ecn = ci->marked;
	info->dctcp.dctcp_ab_tot = ci->acked;
	*attr = INET_DIAG_DCTCPINFO;
	return sizeof(info->dctcp);
}

#endif /* _CONGAVOID_CCINFO_H */
