/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hop-by-hop rate control: the per-flow rate law (P. P. Mishra and
 * H. Kanakia, "A Hop by Hop Rate-based Congestion Control Scheme",
 * SIGCOMM '92, section 3; docs/design/hbh.md has the choices made where
 * the paper is silent).
 *
 * An upstream node U sends each flow towards a downstream node D at a rate
 * lambda.  Every period T, D reports the flow's occupancy x at D and its
 * cumulative arrivals and departures at D.  At each report U:
 *
 *   measures D's service rate	m = delta(departed) / delta(t_meas)
 *   estimates it		m^ <- alpha * m + (1 - alpha) * m^	(Eq 3)
 *   predicts the occupancy at the time the new rate reaches D
 *				x^ = x + (sent - arrived) - m^ * H	(Eq 2)
 *   and sets			lambda = m^ + beta * (x* - x^) / H	(Eq 1)
 *
 * clamped to [rate_min, C], where H is the feedback loop delay (the hop's
 * round trip: a report is one way old, and the new rate needs one more way
 * to reach D).  Eq 2 in the paper sums the rates sent over the last loop
 * delay; its counter form "sent - arrived" (bytes U has sent minus bytes D
 * had received at the measurement) is the same quantity and needs no rate
 * history, and a lost report costs nothing but freshness.  While D's queue
 * is empty the rate instead rises by "rise" per report, the gradual start
 * of Eq 4.  The time constant of the loop is tau = H / beta; the paper's
 * k * T is read as the hop round trip, its more cautious choice.
 *
 * Until the first report a flow is uncontrolled (lambda = C): a next hop
 * without hbh never reports and never throttles anyone.  Where the next
 * hop is known to report (it did for other flows), a new flow instead
 * starts at one rise step (hbh_ctl_ramp).
 *
 * Rates are bytes per second, times nanoseconds, occupancies bytes; gains
 * are 1/1024.  Every input a neighbour controls is clamped before it is
 * used, so no value of a report can overflow an intermediate or divide by
 * zero (the unit test drives it with 10 Gbit/s rates and 1 ns..10 s
 * periods).
 *
 * This file has no kernel-only calls: it is compiled into sch_hbh and into
 * its userspace unit test.
 */
#ifndef _HBH_CORE_H
#define _HBH_CORE_H

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/types.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/time64.h>
#include <linux/stddef.h>
#include <linux/string.h>
#else
#include <stddef.h>
#include <string.h>
#include <arpa/inet.h>
#include "congavoid_user.h"

/* the kernel's unaligned accessors the core uses, for the unit test */
static inline u16 hbh_user_get16(const void *p)
{
	u16 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline u32 hbh_user_get32(const void *p)
{
	u32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

#define get_unaligned(p)	hbh_user_get32(p)	/* 32-bit fields only */
#define get_unaligned_be16(p)	ntohs(hbh_user_get16(p))
#define get_unaligned_be32(p)	ntohl(hbh_user_get32(p))
#endif

#include <congavoid/tc_hbh.h>

#define HBH_DEP_STEP_MAX	BIT_ULL(40)	/* bytes between two reports */
#define HBH_INFLIGHT_MAX	((s64)BIT_ULL(40))	/* |sent - arrived|, bytes */
#define HBH_PIPE_SLOP		65536		/* bytes */
#define HBH_GAP_MAX		(10ULL * NSEC_PER_SEC) /* older: start again */
#define HBH_M_MAX		(2 * HBH_RATE_MAX)

enum hbh_state {
	HBH_UNCONTROLLED,	/* no report yet: lambda = C */
	HBH_BASELINE,		/* one report: counters known, no rate yet */
	HBH_CONTROLLED,		/* lambda follows the rate law */
};

enum hbh_update {
	HBH_UPD_STALE,		/* report not newer than the last: ignored */
	HBH_UPD_BASELINE,	/* counters (re)started, rate unchanged */
	HBH_UPD_RISE,		/* D's queue empty: gradual start */
	HBH_UPD_LAW,		/* lambda from Eq 1 */
};

struct hbh_params {
	u64 rate;		/* C, bytes/s, 1..HBH_RATE_MAX */
	u64 rate_min;		/* bytes/s, 1..rate */
	u64 rise;		/* bytes/s per report */
	u64 horizon;		/* H, ns, > 0 */
	u32 alpha;		/* 1..HBH_SCALE */
	u32 beta;		/* 1..HBH_SCALE */
};

/* One entry of a report, in host order. */
struct hbh_report {
	u64 t_meas;		/* D's clock, ns */
	u64 arrived;		/* cumulative bytes of the flow arrived at D */
	u64 departed;		/* cumulative bytes of the flow D sent on */
	u32 q_pkts;		/* occupancy at D */
	u32 q_bytes;
	u32 setpoint;		/* x*, bytes */
	u32 origin;		/* whose counters these are */
};

struct hbh_ctl {
	u64 rate;		/* lambda, bytes/s */
	u64 mhat;		/* m^, bytes/s */
	s64 xhat;		/* last prediction, bytes (for tracing) */
	s64 offset;		/* sent - arrived at a counter restart */
	u64 last_t;
	u64 last_dep;
	u32 last_origin;
	u8 state;		/* enum hbh_state */
};

/*
 * The rate-derived parameters: @rise_cfg and @rate_min_cfg as configured,
 * 0 for "follow the rate" (rate / HBH_RISE_DIVISOR, rate /
 * HBH_RATE_MIN_DIVISOR, at least 1 byte/s).
 */
static inline void hbh_params_derive(struct hbh_params *p, u64 rise_cfg,
				     u64 rate_min_cfg)
{
	p->rise = rise_cfg ? : max_t(u64, p->rate / HBH_RISE_DIVISOR, 1);
	p->rate_min = rate_min_cfg ? :
		      max_t(u64, p->rate / HBH_RATE_MIN_DIVISOR, 1);
}

/*
 * The law's parameters for a link of @rate bytes/s and a loop delay of
 * @horizon ns, everything else at the defaults of the uapi header (the
 * module, its unit test and the tc plugin's help share them).
 */
static inline void hbh_params_init(struct hbh_params *p, u64 rate,
				   u64 horizon)
{
	*p = (struct hbh_params){
		.rate = rate,
		.horizon = horizon,
		.alpha = HBH_ALPHA_DEFAULT,
		.beta = HBH_BETA_DEFAULT,
	};
	hbh_params_derive(p, 0, 0);
}

static inline void hbh_ctl_init(struct hbh_ctl *c, const struct hbh_params *p)
{
	*c = (struct hbh_ctl){ .rate = p->rate, .state = HBH_UNCONTROLLED };
}

/* No report for too long (next hop without hbh, or gone): run free. */
static inline void hbh_ctl_expire(struct hbh_ctl *c, const struct hbh_params *p)
{
	hbh_ctl_init(c, p);
}

static inline u64 hbh_clamp_rate(u64 rate, const struct hbh_params *p)
{
	return clamp_t(u64, rate, p->rate_min, p->rate);
}

/*
 * A new flow towards a neighbour known to run hbh: gradual start (Eq 4)
 * from one rise step instead of the link rate, so that the first round
 * trip does not flood the next hop before its reports arrive.  The
 * estimate starts at what is sent; the first report only sets counters.
 */
static inline void hbh_ctl_ramp(struct hbh_ctl *c, const struct hbh_params *p)
{
	u64 r = hbh_clamp_rate(p->rise, p);

	*c = (struct hbh_ctl){ .rate = r, .mhat = r,
			       .state = HBH_CONTROLLED };
}

/* Signed a - b of two cumulative counters, within +-HBH_INFLIGHT_MAX. */
static inline s64 hbh_counter_diff(u64 a, u64 b)
{
	s64 d = (s64)(a - b);

	return clamp_t(s64, d, -HBH_INFLIGHT_MAX, HBH_INFLIGHT_MAX);
}

/* bytes / ns -> bytes/s, saturating at HBH_M_MAX. */
static inline u64 hbh_rate_of(u64 bytes, u64 ns)
{
	if (bytes >= mul_u64_u64_div_u64(HBH_M_MAX, ns, NSEC_PER_SEC))
		return HBH_M_MAX;
	return mul_u64_u64_div_u64(bytes, NSEC_PER_SEC, ns);
}

/* beta * err / H in bytes/s for |err| bytes, saturating at HBH_M_MAX. */
static inline u64 hbh_correction(u64 err, const struct hbh_params *p)
{
	u64 num = min_t(u64, err, HBH_INFLIGHT_MAX) * p->beta;
	u64 den = (u64)HBH_SCALE * p->horizon;

	if (num >= mul_u64_u64_div_u64(HBH_M_MAX, den, NSEC_PER_SEC))
		return HBH_M_MAX;
	return mul_u64_u64_div_u64(num, NSEC_PER_SEC, den);
}

static inline void hbh_rebase(struct hbh_ctl *c, const struct hbh_params *p,
			      const struct hbh_report *r, u64 sent)
{
	s64 raw = hbh_counter_diff(sent, r->arrived);
	s64 pipe = (s64)mul_u64_u64_div_u64(p->rate, p->horizon,
					     NSEC_PER_SEC);

	/*
	 * Both ends count the flow from its first packet, so sent - arrived
	 * is what is on the wire: at most a loop at the link rate, and the
	 * real loop may be longer than H (timer latency, serialisation), so
	 * allow twice that and 64 KiB.  Beyond, one end restarted its
	 * counters (its flow entry was collected and made again) and the
	 * difference is off by an unknown amount: assume half a loop of data
	 * in flight.
	 */
	if (raw >= 0 && raw <= 2 * pipe + HBH_PIPE_SLOP)
		c->offset = 0;
	else
		c->offset = raw - (s64)mul_u64_u64_div_u64(c->rate, p->horizon,
							    2 * NSEC_PER_SEC);
	c->last_t = r->t_meas;
	c->last_dep = r->departed;
	c->last_origin = r->origin;
	if (c->state == HBH_UNCONTROLLED)
		c->state = HBH_BASELINE;
}

/*
 * A report for this flow arrived from the next hop; @sent is what this
 * node has sent of the flow so far (cumulative bytes).
 */
static inline enum hbh_update hbh_ctl_report(struct hbh_ctl *c,
					     const struct hbh_params *p,
					     const struct hbh_report *r,
					     u64 sent)
{
	u64 dt, ddep, m, err;
	s64 xhat;

	if (c->state != HBH_UNCONTROLLED && r->origin == c->last_origin &&
	    r->t_meas <= c->last_t)
		return HBH_UPD_STALE;
	if (c->state == HBH_UNCONTROLLED || r->origin != c->last_origin ||
	    r->departed < c->last_dep || r->t_meas - c->last_t > HBH_GAP_MAX) {
		hbh_rebase(c, p, r, sent);
		return HBH_UPD_BASELINE;
	}

	/* Eq 3: the service rate at D and its estimate */
	dt = r->t_meas - c->last_t;
	ddep = min_t(u64, r->departed - c->last_dep, HBH_DEP_STEP_MAX);
	m = hbh_rate_of(ddep, dt);
	if (c->state == HBH_BASELINE)
		c->mhat = m;
	else
		c->mhat = (p->alpha * m + (HBH_SCALE - p->alpha) * c->mhat) /
			  HBH_SCALE;
	c->last_t = r->t_meas;
	c->last_dep = r->departed;
	c->state = HBH_CONTROLLED;

	/* Eq 2: occupancy at D when a new rate would reach it */
	xhat = (s64)min_t(u32, r->q_bytes, U32_MAX) +
	       hbh_counter_diff(hbh_counter_diff(sent, r->arrived), c->offset) -
	       (s64)mul_u64_u64_div_u64(c->mhat, p->horizon, NSEC_PER_SEC);
	c->xhat = xhat;

	/* Eq 4: gradual start while D's queue is empty */
	if (!r->q_pkts) {
		c->rate = hbh_clamp_rate(c->rate + p->rise, p);
		return HBH_UPD_RISE;
	}

	/* Eq 1: steer x^ to x* with time constant H / beta */
	if (xhat <= (s64)r->setpoint) {
		err = (u64)((s64)r->setpoint - xhat);
		c->rate = hbh_clamp_rate(c->mhat + hbh_correction(err, p), p);
	} else {
		err = (u64)(xhat - (s64)r->setpoint);
		m = hbh_correction(err, p);
		c->rate = hbh_clamp_rate(c->mhat > m ? c->mhat - m : 0, p);
	}
	return HBH_UPD_LAW;
}

/* Time to send @len bytes at @rate bytes/s (rate > 0), ns. */
static inline u64 hbh_len_ns(u32 len, u64 rate)
{
	return div64_u64((u64)len * NSEC_PER_SEC, rate);
}

/*
 * The same without a division per packet: @recip = hbh_ns_recip(rate), the
 * nanoseconds per byte in 32.32 fixed point, computed when the rate is set.
 * Never above hbh_len_ns() and at most 1 ns below it (the truncation of
 * @recip costs less than len / 2^32 ns).
 */
static inline u64 hbh_ns_recip(u64 rate)
{
	return div64_u64((u64)NSEC_PER_SEC << 32, rate);
}

static inline u64 hbh_len_ns_recip(u32 len, u64 recip)
{
	return mul_u64_u32_shr(recip, len, 32);
}

/*
 * Advance a send clock by @len_ns: a token bucket of depth max(@slack,
 * @len_ns).  A wake-up L late keeps min(L, depth) of credit, and the next
 * packets go out back to back until the clock catches up: timer latency
 * costs the rate only what exceeds the depth, and the burst the next hop
 * sees is at most depth / len_ns + 1 packets whatever the latency.  Flows
 * get one period of slack, the link two (a burst of at most 10 ms at the
 * link rate by default, 9 full-size frames at 10 Mbit/s).  The end of an
 * idle spell is the same case as a late wake-up, with the same bound.
 */
static inline u64 hbh_advance(u64 clock, u64 now, u64 len_ns, u64 slack)
{
	u64 depth = max_t(u64, len_ns, slack);

	if (now > depth && clock < now - depth)
		clock = now - depth;
	return clock + len_ns;
}

/*
 * The setpoint D reports for a flow, bytes.  Static: @pkts packets of the
 * flow's mean size.  Dynamic (@pkts == 0, Eq 5): the flow's share of the
 * buffers, in proportion to its share of the link, x* = (m / C) * B.
 */
static inline u32 hbh_setpoint(u32 pkts, u32 avg_len, u64 dep_rate,
			       u32 limit, u64 rate)
{
	u64 x;

	if (pkts)
		x = (u64)pkts * avg_len;
	else
		x = mul_u64_u64_div_u64(min_t(u64, dep_rate, rate),
					(u64)limit * avg_len, rate);
	return (u32)clamp_t(u64, x, avg_len, U32_MAX);
}

/* EWMA with gain 1/8, for the per-flow departure rate and packet size. */
static inline u64 hbh_ewma8(u64 avg, u64 sample)
{
	return avg - (avg >> 3) + (sample >> 3);
}

/*
 * The per-flow departure rate, bytes/s, from @bytes departed over the real
 * interval @dt (ns) since the flow's last measurement, which is longer than
 * one period when the timer ran late, the flow was not visited or it did
 * not report (a flow is measured when it reports).  An
 * interval of zero changes nothing.
 */
static inline u64 hbh_dep_rate(u64 avg, u64 bytes, u64 dt)
{
	if (!dt)
		return avg;
	return hbh_ewma8(avg, hbh_rate_of(bytes, dt));
}

/*
 * Report budget.  A flow earns the bytes it carries (packets admitted to
 * its queue); one entry in a report costs HBH_FB_COST of them, 16 times the
 * most an entry can take on the wire (an Ethernet header, a frame header
 * and the entry itself, as if each entry went in a frame of its own).  So
 * the reports about a set of flows never exceed 1/16 of the bytes those
 * flows carried, plus the floor: one entry per period that needs no credit,
 * so that a single slow flow is still reported every period.  A flow holds
 * at most HBH_FB_CREDIT_MAX (an idle flow does not save up a burst).
 */
#define HBH_FB_WIRE_MAX		(14 + sizeof(struct hbh_fb_hdr) + \
				 sizeof(struct hbh_fb_entry))
#define HBH_FB_COST		(16 * HBH_FB_WIRE_MAX)
#define HBH_FB_CREDIT_MAX	(4 * HBH_FB_COST)

static inline u32 hbh_credit_add(u32 credit, u32 len)
{
	return (u32)min_t(u64, (u64)credit + len, HBH_FB_CREDIT_MAX);
}

/*
 * Take one entry's cost from @credit if it holds it, else from the
 * period's floor (*@floor entries left).  False: no report this period.
 */
static inline bool hbh_credit_take(u32 *credit, u32 *floor)
{
	if (*credit >= HBH_FB_COST) {
		*credit -= HBH_FB_COST;
		return true;
	}
	if (*floor) {
		(*floor)--;
		return true;
	}
	return false;
}

/*
 * A received entry is well formed: key.zero zero, a setpoint, a known
 * family, IPv4 addresses padded with zeros.  The entry lies in the frame
 * as it came (2-byte aligned after an Ethernet header, or worse), so every
 * field is read with an unaligned access.
 */
static inline bool hbh_entry_ok(const void *entry)
{
	const u8 *b = entry;
	const u8 *sa = b + offsetof(struct hbh_fb_entry, key.saddr);
	const u8 *da = b + offsetof(struct hbh_fb_entry, key.daddr);
	u8 family = b[offsetof(struct hbh_fb_entry, key.family)];

	if (get_unaligned_be16(b + offsetof(struct hbh_fb_entry, key.zero)) ||
	    !get_unaligned_be32(b + offsetof(struct hbh_fb_entry, setpoint)))
		return false;
	if (family == HBH_FB_FAMILY_IPV4)
		return !(get_unaligned((const u32 *)(sa + 4)) |
			 get_unaligned((const u32 *)(sa + 8)) |
			 get_unaligned((const u32 *)(sa + 12)) |
			 get_unaligned((const u32 *)(da + 4)) |
			 get_unaligned((const u32 *)(da + 8)) |
			 get_unaligned((const u32 *)(da + 12)));
	return family == HBH_FB_FAMILY_IPV6;
}

/*
 * Report frames.  Each period the timer takes at most HBH_FB_MAX entries
 * (one per reported flow); each goes to the upstream neighbour of its flow,
 * an interface and a MAC address on it (struct hbh_fb_dest), in frames of
 * at most HBH_FB_FRAME_MAX entries that fit the interface's MTU.  Who goes
 * in which frame is decided here, without the kernel: the entries' indices
 * are sorted by where they go (a heap sort: n log n comparisons, no
 * recursion, nothing on the stack but a few scalars), and each frame is a
 * run of that order.
 */
#define HBH_FB_MAX		1024	/* entries reported per period */
#define HBH_FB_FRAME_MAX	256	/* entries per frame, sent or accepted */
#define HBH_FB_LEN(n)		(sizeof(struct hbh_fb_hdr) + \
				 (n) * sizeof(struct hbh_fb_entry))
#define HBH_FB_ALEN		6	/* Ethernet address */

struct hbh_fb_dest {
	int ifindex;			/* interface to send on, 0: not sent */
	u8 mac[HBH_FB_ALEN];		/* the neighbour there */
};

/*
 * Entries per frame on a device of @mtu (read once by the caller): 0 when
 * not even one fits, never more than HBH_FB_FRAME_MAX.
 */
static inline unsigned int hbh_fb_per_frame(unsigned int mtu)
{
	if (mtu < HBH_FB_LEN(1))
		return 0;
	return min_t(unsigned int, HBH_FB_FRAME_MAX,
		     (mtu - sizeof(struct hbh_fb_hdr)) /
		     sizeof(struct hbh_fb_entry));
}

/* The same for keyed reports, which end in a struct hbh_fb_auth. */
static inline unsigned int hbh_fb_per_frame_keyed(unsigned int mtu)
{
	if (mtu < sizeof(struct hbh_fb_auth))
		return 0;
	return hbh_fb_per_frame(mtu - sizeof(struct hbh_fb_auth));
}

/*
 * Replay protection for keyed reports.  A report acts once and only while
 * it is recent.  Each sender (header "node") counts its keyed frames
 * (struct hbh_fb_auth "counter") from the time of day: the counter's high
 * 32 bits are seconds, the low 32 a frame number within the second
 * (hbh_replay_next), so counters only grow, across restarts of the sender
 * too.  A receiver keeps, per sender, the highest counter it accepted and
 * which of the HBH_REPLAY_WINDOW counters below that one it has seen: a
 * counter seen before, or older than the window, is a replay; reordering
 * within the window is accepted.
 *
 * A sender the receiver does not know (it has just been created, has
 * forgotten the sender for a ninth, or has a new key) is accepted only
 * above a floor:
 * - the receiver's creation time, less HBH_REPLAY_SLACK_S (neighbours'
 *   clocks may differ by that much).  It is taken anew at each frame as
 *   the time of day now less the time elapsed since creation (boot-time
 *   clock), so a time of day set or stepped after creation moves it too;
 * - the last counter of each sender it forgot, at most its time of day
 *   then less HBH_REPLAY_SLACK_S, so one sender ahead of the others does
 *   not shut them out;
 * - at a key change, its time of day then less HBH_REPLAY_SLACK_S.
 * So a report captured more than HBH_REPLAY_SLACK_S earlier cannot be
 * replayed to a receiver that has since restarted, forgotten its sender
 * or changed its key.  Only frames with a valid tag get here, so only a
 * key holder can make a receiver forget a sender.  Nothing wedges: a
 * sender whose clock is S > HBH_REPLAY_SLACK_S behind the receiver's
 * waits S - HBH_REPLAY_SLACK_S after the receiver is created (or forgets
 * it); a key change forgets every sender, and what a key holder may have
 * recorded against them (a counter far ahead under a sender's node id).
 */
#define HBH_REPLAY_WINDOW	64
#define HBH_REPLAY_PEERS	8
#define HBH_REPLAY_SLACK_S	2

struct hbh_replay {
	u64 top;		/* highest counter accepted */
	u64 seen;		/* bit i: counter top - i accepted */
	u64 last;		/* when last accepted (caller's clock) */
	u32 node;
	bool used;
};

/* A receiver's table: its senders, and the floor for those it does not know. */
struct hbh_replay_table {
	struct hbh_replay peer[HBH_REPLAY_PEERS];
	u64 floor;		/* raised by forgotten senders and key changes */
	u64 born;		/* boot-time clock at creation, seconds */
};

/* The counter of second @sec, frame 0. */
static inline u64 hbh_replay_ctr(u64 sec)
{
	return sec << 32;
}

/* The counter of second @sec less the slack (0 early in 1970). */
static inline u64 hbh_replay_ctr_slack(u64 sec)
{
	return sec > HBH_REPLAY_SLACK_S ?
	       hbh_replay_ctr(sec - HBH_REPLAY_SLACK_S) : 0;
}

/* A sender's next counter after @last at time of day @sec (seconds). */
static inline u64 hbh_replay_next(u64 last, u64 sec)
{
	u64 c = hbh_replay_ctr(sec);

	return c > last ? c : last + 1;
}

/* A new receiver's table at boot-time clock @boot (seconds). */
static inline void hbh_replay_init(struct hbh_replay_table *t, u64 boot)
{
	memset(t->peer, 0, sizeof(t->peer));
	t->floor = 0;
	t->born = boot;
}

/* A new key at time of day @sec: every sender forgotten. */
static inline void hbh_replay_rekey(struct hbh_replay_table *t, u64 sec)
{
	memset(t->peer, 0, sizeof(t->peer));
	t->floor = max_t(u64, t->floor, hbh_replay_ctr_slack(sec));
}

/*
 * The floor for a sender not known, at time of day @sec and boot-time
 * clock @boot: the creation's time of day as the clock reads now, less
 * the slack, or t->floor if higher.
 */
static inline u64 hbh_replay_floor(const struct hbh_replay_table *t, u64 sec,
				   u64 boot)
{
	u64 age = boot > t->born ? boot - t->born : 0;
	u64 created = sec > age ? sec - age : 0;

	return max_t(u64, t->floor, hbh_replay_ctr_slack(created));
}

/* Counter @c of sender @r: fresh (true, recorded) or a replay (false). */
static inline bool hbh_replay_check(struct hbh_replay *r, u64 c)
{
	u64 d;

	if (c > r->top) {
		d = c - r->top;
		r->seen = d >= HBH_REPLAY_WINDOW ? 1 : (r->seen << d) | 1;
		r->top = c;
		return true;
	}
	d = r->top - c;
	if (d >= HBH_REPLAY_WINDOW || (r->seen >> d) & 1)
		return false;
	r->seen |= 1ULL << d;
	return true;
}

/*
 * Frame @c of sender @node at @now (caller's clock, for the LRU), time of
 * day @sec and boot-time clock @boot (seconds), against the table @t: true
 * if it is fresh (and now recorded).
 */
static inline bool hbh_replay_accept(struct hbh_replay_table *t, u32 node,
				     u64 c, u64 now, u64 sec, u64 boot)
{
	struct hbh_replay *r = NULL, *old = &t->peer[0];
	unsigned int i;

	for (i = 0; i < HBH_REPLAY_PEERS; i++) {
		struct hbh_replay *p = &t->peer[i];

		if (p->used && p->node == node) {
			r = p;
			break;
		}
		if (!p->used)
			old = p;
		else if (old->used && p->last < old->last)
			old = p;
	}
	if (r) {
		if (!hbh_replay_check(r, c))
			return false;
		r->last = now;
		return true;
	}
	if (c <= hbh_replay_floor(t, sec, boot))
		return false;
	/* forgotten: its counters up to now less the slack stay replays */
	if (old->used)
		t->floor = max_t(u64, t->floor,
				 min_t(u64, old->top,
				       hbh_replay_ctr_slack(sec)));
	*old = (struct hbh_replay){
		.top = c, .seen = 1, .last = now, .node = node, .used = true,
	};
	return true;
}

/*
 * The order of entries @a and @b (indices into @e and @d): by interface,
 * then by source address (@by_src: one route lookup per source) or by
 * neighbour (one frame per neighbour), then by index, a total order.
 */
static inline int hbh_fb_cmp(const struct hbh_fb_entry *e,
			     const struct hbh_fb_dest *d, u16 a, u16 b,
			     bool by_src)
{
	int c;

	if (d[a].ifindex != d[b].ifindex)
		return d[a].ifindex < d[b].ifindex ? -1 : 1;
	if (by_src) {
		c = (int)e[a].key.family - (int)e[b].key.family;
		if (!c)
			c = memcmp(e[a].key.saddr, e[b].key.saddr,
				   sizeof(e[a].key.saddr));
	} else {
		c = memcmp(d[a].mac, d[b].mac, HBH_FB_ALEN);
	}
	if (c)
		return c;
	return a < b ? -1 : a > b;
}

static inline void hbh_fb_sift(u16 *o, unsigned int root, unsigned int n,
			       const struct hbh_fb_entry *e,
			       const struct hbh_fb_dest *d, bool by_src)
{
	unsigned int child;
	u16 t;

	/* the child index at least doubles: at most log2(n) steps */
	while ((child = 2 * root + 1) < n) {
		if (child + 1 < n &&
		    hbh_fb_cmp(e, d, o[child], o[child + 1], by_src) < 0)
			child++;
		if (hbh_fb_cmp(e, d, o[root], o[child], by_src) >= 0)
			return;
		t = o[root];
		o[root] = o[child];
		o[child] = t;
		root = child;
	}
}

/* Sort the indices @o[0..n) (n <= HBH_FB_MAX) by hbh_fb_cmp(). */
static inline void hbh_fb_sort(u16 *o, unsigned int n,
			       const struct hbh_fb_entry *e,
			       const struct hbh_fb_dest *d, bool by_src)
{
	unsigned int i;
	u16 t;

	if (n < 2)
		return;
	for (i = n / 2; i-- > 0;)
		hbh_fb_sift(o, i, n, e, d, by_src);
	for (i = n - 1; i > 0; i--) {
		t = o[0];
		o[0] = o[i];
		o[i] = t;
		hbh_fb_sift(o, 0, i, e, d, by_src);
	}
}

/* @a and @b go to the same interface and source (@by_src) or neighbour. */
static inline bool hbh_fb_same(const struct hbh_fb_entry *e,
			       const struct hbh_fb_dest *d, u16 a, u16 b,
			       bool by_src)
{
	if (d[a].ifindex != d[b].ifindex)
		return false;
	if (by_src)
		return e[a].key.family == e[b].key.family &&
		       !memcmp(e[a].key.saddr, e[b].key.saddr,
			       sizeof(e[a].key.saddr));
	return !memcmp(d[a].mac, d[b].mac, HBH_FB_ALEN);
}

/*
 * In sorted @o[0..n), the run that starts at @pos: how many entries from
 * there go to the same interface and source (@by_src) or neighbour, at
 * most @max (>= 1).  0 at the end.
 */
static inline unsigned int hbh_fb_run(const u16 *o, unsigned int n,
				      unsigned int pos, unsigned int max,
				      const struct hbh_fb_entry *e,
				      const struct hbh_fb_dest *d, bool by_src)
{
	unsigned int k = 1;

	if (pos >= n)
		return 0;
	while (k < max && pos + k < n &&
	       hbh_fb_same(e, d, o[pos], o[pos + k], by_src))
		k++;
	return k;
}

/*
 * The frame that starts at @pos of @o[0..n) sorted by neighbour: the next
 * entries for that neighbour, at most @per (hbh_fb_per_frame() of its
 * device) and never more than HBH_FB_FRAME_MAX.  @per == 0 (the device
 * carries no frame): the neighbour's whole run, to be counted as not sent.
 * The caller moves @pos on by the count returned; 0 at the end.
 */
static inline unsigned int hbh_fb_frame(const u16 *o, unsigned int n,
					unsigned int pos, unsigned int per,
					const struct hbh_fb_dest *d)
{
	unsigned int max = per ? min_t(unsigned int, per, HBH_FB_FRAME_MAX) :
			   HBH_FB_MAX;

	return hbh_fb_run(o, n, pos, max, NULL, d, false);
}

#endif /* _HBH_CORE_H */
