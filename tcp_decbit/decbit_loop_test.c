// SPDX-License-Identifier: GPL-2.0
/*
 * The DECbit loop with nothing but the two cores in it: sources running
 * decbit_policy.h (tcp_decbit's window policy) share a router running
 * decbit_avg.h (sch_decbit's regeneration-cycle average), in an exact
 * discrete-event model of the selftests' dumbbell.
 *
 *   sources --> router (10 Mbit/s, 1514-byte frames: 1.2112 ms each)
 *           --> 20 ms of propagation --> receiver, which acknowledges every
 *               packet at once and echoes its bit (tcp_decbit's accurate
 *               echo; delayed ACKs and other Linux behaviour are options,
 *               struct model_opts)
 *
 * Each source paces as tcp_decbit does: cwnd / srtt, twice that in slow
 * start, with TCP's smoothed RTT (gain 1/8).  The knee is the bandwidth-
 * delay product plus the packet in service: 20 / 1.2112 + 1 = 17.5 packets.
 *
 * The router serves as sch_decbit's rate does (decbit_service_start()):
 * a dequeue less than one service time after the link freed up, or less
 * than the catch-up allowance for a packet that was waiting, starts its
 * packet then; a later one loses the time in between.  The qdisc's pacing
 * timer can be made to fire late.
 *
 * What the model shows, and the VM tests cannot separate from the
 * emulator's timing:
 *  - one flow at C = 1 keeps its window within a packet or two of the
 *    knee: the 7/8 decrease takes it from just above the knee to below
 *    it, and the +1 per two RTTs climbs back through windows that do not
 *    fill the pipe, gaps the router's catch-up partly fills.
 *  - four paced flows at C = 1 interleave as independent arrivals do, and
 *    the cycle average reaches 1 with the link well short of full (the
 *    paper: the knee of M/M/1 is at 0.5, of D/D/1 at 1); the share stays
 *    fair.
 *  - at C = 2 the same sources fill the link with a mean queue of 1-2.5
 *    packets.
 *  - arrival jitter lowers the one-flow figure (printed: a cost, not a
 *    requirement).
 *  - a pacing timer late by more than a service time costs the router
 *    link time for good; a catch-up allowance for packets that were
 *    waiting gives it back.
 * Each test prints its figures as TAP comments; docs/design/decbit.md
 * has them.
 *
 * What is asserted (issue 36): a figure is bounded on both sides only
 * where the paper or the physics fixes it (the window around the knee,
 * a queue near the threshold, no link time lost to a lateness the
 * service start absorbs); utilisation only from below, so that a better
 * module never fails a test.  The model against what guests measured is
 * test_calibration_against_guests, which also bounds only from below.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "decbit_policy.h"
#include "../sch_decbit/decbit_avg.h"

#define MS		1000000ULL			/* ns */
#define SERVICE		(1514ULL * 8 * 1000 / 10)	/* ns at 10 Mbit/s */
#define PROP		(20 * MS)			/* round trip */
#define KNEE_MILLI	((PROP + SERVICE) * 1000 / SERVICE)	/* 17512 */
#define DEMO_SERVICE	(SERVICE / 2)			/* 20 Mbit/s */
#define DEMO_PROP	(40 * MS)
#define MAX_FLOWS	4
#define MAX_EVENTS	4096

enum ev_type {
	EV_START, EV_SEND, EV_ARRIVE, EV_DEPART, EV_TIMER, EV_RECV, EV_ACK,
	EV_DELACK, EV_IRQ, EV_HOP
};

struct pkt {
	int flow;
	bool mark;
	u64 sent;		/* when it left its source */
	u64 arrived;		/* when it reached the router */
	u32 n;			/* an ACK: the packets it acknowledges */
};

struct event {
	u64 t;
	u64 seq;		/* equal times: in the order scheduled */
	enum ev_type type;
	struct pkt p;
};

struct flow {
	struct decbit_win win;
	u32 inflight;
	u64 srtt;
	u64 next_send;		/* pacing */
	bool send_pending;	/* an EV_SEND is scheduled */
	u64 last_arrival;	/* jitter keeps a flow's packets in order */
	u64 acked;
	u64 acked_from;		/* acked when the measurement began */
	u64 cwnd_sum, cwnd_n;	/* cwnd at every measured ACK */
	u32 cwnd_min, cwnd_max;
	struct pkt held;	/* delayed ACKs: the packet not yet acked */
	bool holding;
	bool limited;		/* the window was full since the last ACK */
};

/*
 * How late a timer fires: uniformly up to @max, or, with @q, as measured:
 * @q[0..LATE_POINTS - 1] are a guest's lateness for that timer (ns) at
 * the percentiles of late_grid (tools/experiment run --trace: "q5_us",
 * then "qtail_us", then the maximum).  The tail needs its own points: the
 * lateness between the 95th percentile and the maximum is far from
 * uniform (in a two-vCPU guest the pacing timer's p95 was 0.88 ms, p99
 * 2.8 ms, the maximum 6 ms), and interpolating it over one step gave
 * late timers twice the weight they had.
 */
#define LATE_POINTS	26
struct lateness {
	u64 max;
	const u64 *q;
};

/* Percentiles of the points of a lateness table, in 1/10000 of a percent */
static const u32 late_grid[LATE_POINTS] = {
	0, 50000, 100000, 150000, 200000, 250000, 300000, 350000, 400000,
	450000, 500000, 550000, 600000, 650000, 700000, 750000, 800000,
	850000, 900000, 950000, 960000, 970000, 980000, 990000, 999000,
	1000000,
};

/* What a run models besides the two cores: all 0 is the exact loop. */
struct model_opts {
	u64 jitter;		/* up to this much between source and router */
	struct lateness late;	/* the router's pacing timer */
	u64 catchup;		/* sch_decbit's catchup; 0: none */
	bool delack;		/* the receiver acks every second packet */
	struct lateness src_late;	/* the sources' pacing timers */
	bool cwnd_limited;	/* grow only if the window was full (Linux) */
	bool credit;		/* TCP's pacing credit for a late send */
	struct lateness hop_late;	/* the delay hop's (netem's) timer */
	u32 pacing;		/* percent of cwnd/srtt; 0: 100 */
	/*
	 * Timers as Linux runs them (struct cpu_clock): armed on one of
	 * @cpus CPUs, run in batches by that CPU's expiry, which comes late
	 * by src_late (softirq: TCP's pacing timers) or by late (hardirq:
	 * every qdisc's watchdog, the router's and each delay hop's); the
	 * delay is two netem hops, one each way.  0: each timer late on its
	 * own, as above.
	 */
	u32 cpus;
};

#define MAX_CPUS	4
#define SOJOURN_BINS	5000	/* of 10 us: up to 50 ms */
#define MAX_TIMERS	(MAX_FLOWS + 3)

/* An hrtimer: raises @type for @p when it runs (o.cpus only). */
struct timer {
	u64 due;
	bool armed;
	enum ev_type type;
	struct pkt p;
	struct cpu_clock *clock;
};

/*
 * One CPU's timers of one kind, and its next expiry: programmed for the
 * earliest due timer, it comes late by a draw of @late and runs every
 * timer due by then.  A timer due earlier reprograms it.
 */
struct cpu_clock {
	const struct lateness *late;
	struct timer *pending[MAX_TIMERS];
	int n;
	bool armed;
	u64 programmed;		/* the due time the expiry is for */
	u32 gen;		/* the EV_IRQ that is current */
};

/* A netem delay hop: a FIFO of packets, each due @delay after entry. */
struct delay_hop {
	u64 delay;
	enum ev_type out;	/* raised for each packet leaving */
	struct { u64 due; struct pkt p; } q[MAX_EVENTS];
	u32 head, len;
	struct timer watchdog;
};

struct loop {
	/* set by the test */
	int nflows;
	u32 threshold;		/* router's C, 1/1000 packet */
	struct model_opts o;
	u64 service;		/* per packet at the router */
	u64 prop;		/* round-trip propagation */
	u64 t_from, t_to;	/* measurement window */
	/* model state */
	struct decbit_policy_params pp;
	struct decbit_params rp;
	struct decbit_avg avg;
	struct flow f[MAX_FLOWS];
	struct timer pace[MAX_FLOWS];	/* o.cpus: the sources' pacing */
	struct timer watchdog;		/* o.cpus: the router's */
	struct cpu_clock clocks[2 * MAX_CPUS];	/* softirq, then hardirq */
	struct delay_hop fwd, rev;	/* o.cpus: the data's, the ACKs' */
	struct event heap[MAX_EVENTS];
	int nev;
	u64 seq;
	struct pkt queue[MAX_EVENTS];	/* waiting at the router */
	u32 qhead, qlen;
	bool busy;
	u64 busy_until;		/* sch_decbit's avg.busy_until */
	u64 hop_fire;		/* the delay hop's timer last fired */
	u64 rng;
	/* measured */
	u64 last_arrival;	/* at the router */
	u64 gaps, gap_lt[4];	/* arrivals within 10, 50, 100, 500 us of one */
	u64 batched;		/* pacing timers run with another flow's */
	u64 pace_runs;		/* pacing timers run */
	u64 idle_queued;	/* ns the link idled while a packet waited */
	u32 sojourn[SOJOURN_BINS];	/* waits at the router, 10 us bins */
	u64 departed;
	u64 q_area, q_last;	/* waiting packets x ns */
	u64 arrivals, marks;
};

static struct loop lp;

static u64 rnd(struct loop *l)
{
	/* xorshift64: every run is the same */
	l->rng ^= l->rng << 13;
	l->rng ^= l->rng >> 7;
	l->rng ^= l->rng << 17;
	return l->rng;
}

static bool late_set(const struct lateness *x)
{
	return x->max || x->q;
}

/* A draw of @x: 0 when unset. */
static u64 late_draw(struct loop *l, const struct lateness *x)
{
	u64 r, i, f;

	if (x->q) {
		/* between two neighbouring percentiles, linearly */
		r = rnd(l) % late_grid[LATE_POINTS - 1];
		for (i = 0; late_grid[i + 1] <= r; i++)
			;
		f = r - late_grid[i];
		return x->q[i] + (x->q[i + 1] - x->q[i]) * f /
			(late_grid[i + 1] - late_grid[i]);
	}
	return x->max ? rnd(l) % (x->max + 1) : 0;
}

static bool before(const struct event *a, const struct event *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void push(struct loop *l, u64 t, enum ev_type type, struct pkt p)
{
	struct event e = { t, l->seq++, type, p };
	int i = l->nev++;

	assert_true(l->nev <= MAX_EVENTS);
	while (i && before(&e, &l->heap[(i - 1) / 2])) {
		l->heap[i] = l->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	l->heap[i] = e;
}

static struct event pop(struct loop *l)
{
	struct event top = l->heap[0], last = l->heap[--l->nev];
	int i = 0, c;

	while ((c = 2 * i + 1) < l->nev) {
		if (c + 1 < l->nev && before(&l->heap[c + 1], &l->heap[c]))
			c++;
		if (!before(&l->heap[c], &last))
			break;
		l->heap[i] = l->heap[c];
		i = c;
	}
	l->heap[i] = last;
	return top;
}

static bool measuring(const struct loop *l, u64 t)
{
	return t >= l->t_from && t < l->t_to;
}

/* (Re)program @c's expiry for @due, the earliest of its timers. */
static void clock_program(struct loop *l, struct cpu_clock *c, u64 due)
{
	c->armed = true;
	c->programmed = due;
	c->gen++;
	push(l, due + late_draw(l, c->late), EV_IRQ,
	     (struct pkt){ (int)(c - l->clocks), false, 0, 0, c->gen });
}

static void timer_cancel(struct timer *t)
{
	struct cpu_clock *c = t->clock;
	int i;

	if (!t->armed)
		return;
	for (i = 0; i < c->n; i++)
		if (c->pending[i] == t)
			c->pending[i] = c->pending[--c->n];
	t->armed = false;
}

/* hrtimer_start(): on a CPU drawn at random, a softirq or hardirq timer. */
static void timer_arm(struct loop *l, struct timer *t, bool hard, u64 due)
{
	struct cpu_clock *c = &l->clocks[(hard ? MAX_CPUS : 0) +
					 rnd(l) % l->o.cpus];

	timer_cancel(t);
	t->due = due;
	t->armed = true;
	t->clock = c;
	assert_true(c->n < MAX_TIMERS);
	c->pending[c->n++] = t;
	if (!c->armed || due < c->programmed)
		clock_program(l, c, due);
}

/* A CPU's expiry at @now: every timer due by then runs, earliest first. */
static void clock_expire(struct loop *l, const struct event *e)
{
	struct cpu_clock *c = &l->clocks[e->p.flow];
	int ran = 0, i;

	if (e->p.n != c->gen)
		return;		/* reprogrammed since */
	c->armed = false;
	for (;;) {
		struct timer *t = NULL;

		for (i = 0; i < c->n; i++)
			if (c->pending[i]->due <= e->t &&
			    (!t || c->pending[i]->due < t->due))
				t = c->pending[i];
		if (!t)
			break;
		timer_cancel(t);
		push(l, e->t, t->type, t->p);
		if (t->type == EV_SEND && measuring(l, e->t)) {
			l->pace_runs++;
			l->batched += ran ? 1 + (ran == 1) : 0;
			ran++;
		}
	}
	if (c->n) {
		u64 due = c->pending[0]->due;

		for (i = 1; i < c->n; i++)
			if (c->pending[i]->due < due)
				due = c->pending[i]->due;
		clock_program(l, c, due);
	}
}

/* A packet enters a delay hop at @now. */
static void hop_enter(struct loop *l, struct delay_hop *h, u64 now,
		      struct pkt p)
{
	assert_true(h->len < MAX_EVENTS);
	h->q[(h->head + h->len) % MAX_EVENTS].due = now + h->delay;
	h->q[(h->head + h->len) % MAX_EVENTS].p = p;
	if (!h->len++)
		timer_arm(l, &h->watchdog, true, now + h->delay);
}

/* netem's dequeue when its watchdog runs: every packet due by now. */
static void hop_leave(struct loop *l, struct delay_hop *h, u64 now)
{
	while (h->len && h->q[h->head].due <= now) {
		push(l, now, h->out, h->q[h->head].p);
		h->head = (h->head + 1) % MAX_EVENTS;
		h->len--;
	}
	if (h->len)
		timer_arm(l, &h->watchdog, true, h->q[h->head].due);
}

/* The number waiting changes at @t: add its area inside the window. */
static void queue_area(struct loop *l, u64 t)
{
	u64 from = l->q_last > l->t_from ? l->q_last : l->t_from;
	u64 to = t < l->t_to ? t : l->t_to;

	if (to > from)
		l->q_area += (u64)l->qlen * (to - from);
	l->q_last = t;
}

static void send_one(struct loop *l, int i, u64 now)
{
	struct flow *f = &l->f[i];
	u64 t = now + (l->o.jitter ? rnd(l) % (l->o.jitter + 1) : 0);

	if (t < f->last_arrival)
		t = f->last_arrival;
	f->last_arrival = t;
	f->inflight++;
	push(l, t, EV_ARRIVE, (struct pkt){ i, false, now, 0, 0 });
	if (f->srtt) {
		u64 pct = f->win.in_ss ? 200 : l->o.pacing ? l->o.pacing : 100;
		u64 gap = f->srtt * 100 / pct / decbit_win_pkts(&f->win);
		/* TCP's pacing (tcp_update_skb_after_send): a packet sent
		 * late by @credit brings the next one forward by as much, up
		 * to half a gap
		 */
		u64 credit = l->o.credit && now > f->next_send &&
			     f->next_send ? now - f->next_send : 0;

		f->next_send = now + gap - (credit < gap / 2 ? credit : gap / 2);
	}
}

/* Send what the window allows, at the pacing rate. */
static void send_window(struct loop *l, int i, u64 now)
{
	struct flow *f = &l->f[i];

	while (!f->send_pending && f->inflight < decbit_win_pkts(&f->win)) {
		if (f->next_send > now) {
			f->send_pending = true;
			if (l->o.cpus) {
				timer_arm(l, &l->pace[i], false, f->next_send);
				return;
			}
			push(l, f->next_send + late_draw(l, &l->o.src_late),
			     EV_SEND, (struct pkt){ i, false, 0, 0, 0 });
			return;
		}
		send_one(l, i, now);
	}
	if (f->inflight >= decbit_win_pkts(&f->win))
		f->limited = true;
}

/*
 * The head of the queue starts service (sch_decbit's dequeue, at @now),
 * when the qdisc would start it (decbit_service_start()).
 */
static void serve(struct loop *l, u64 now)
{
	struct pkt head = l->queue[l->qhead];
	u64 start = decbit_service_start(now, l->busy_until, l->service,
					 head.arrived <= l->busy_until,
					 l->o.catchup);

	if (measuring(l, now)) {
		u64 bin = (now - head.arrived) / 10000;

		l->sojourn[bin < SOJOURN_BINS ? bin : SOJOURN_BINS - 1]++;
		/* link time lost: the head waited while the link was free */
		if (head.arrived <= l->busy_until && start > l->busy_until)
			l->idle_queued += start - l->busy_until;
	}
	l->busy_until = start + l->service;
	decbit_avg_service(&l->avg, now, l->qlen, l->busy_until);
	queue_area(l, now);
	l->qhead = (l->qhead + 1) % MAX_EVENTS;
	l->qlen--;
	l->busy = true;
	push(l, l->busy_until, EV_DEPART, head);
}

static void arrive(struct loop *l, const struct event *e)
{
	/* sch_decbit's enqueue: the state applies to this packet */
	bool mark = decbit_avg_arrival(&l->avg, &l->rp, e->t, l->qlen);

	if (measuring(l, e->t)) {
		if (l->last_arrival) {
			u64 gap = e->t - l->last_arrival;

			l->gaps++;
			l->gap_lt[0] += gap < 10000;
			l->gap_lt[1] += gap < 50000;
			l->gap_lt[2] += gap < 100000;
			l->gap_lt[3] += gap < 500000;
		}
		l->last_arrival = e->t;
		l->arrivals++;
		l->marks += mark;
	}
	queue_area(l, e->t);
	assert_true(l->qlen < MAX_EVENTS);
	l->queue[(l->qhead + l->qlen++) % MAX_EVENTS] =
		(struct pkt){ e->p.flow, mark, e->p.sent, e->t, 0 };
	if (!l->busy)
		serve(l, e->t);
}

/*
 * The receiver, at the router's output (the model's whole round trip is
 * after it): every packet acknowledged at once, or with @delack as
 * Linux's receiver does in a bulk transfer: one ACK for every second
 * packet, a packet held longer than the delayed-ACK timeout acked alone,
 * and a held packet acked at once, with its own CE state, when the next
 * one's state differs (the per-packet echo of tcp_decbit and dctcp).
 * An ACK's RTT sample is its oldest packet's, as TCP's srtt takes it.
 */
#define DELACK_TIMEOUT	(40 * MS)	/* TCP_ATO_MIN */

/*
 * An ACK sent at @t reaches its source one propagation delay later, or
 * with @hop_late as netem delivers it: a packet whose time has come
 * leaves when the hop's timer fires, up to hop_late after that time, with
 * every other packet due by then (the ACKs are due in the order sent).
 */
static void ack_after_hop(struct loop *l, u64 t, struct pkt p)
{
	u64 due = t + l->prop;

	if (l->o.cpus) {
		hop_enter(l, &l->rev, t, p);
		return;
	}
	if (late_set(&l->o.hop_late)) {
		if (due > l->hop_fire)
			l->hop_fire = due + late_draw(l, &l->o.hop_late);
		due = l->hop_fire;
	}
	push(l, due, EV_ACK, p);
}

static void receive(struct loop *l, const struct event *e)
{
	struct flow *f = &l->f[e->p.flow];
	struct pkt p = e->p;

	p.n = 1;
	if (!l->o.delack) {
		ack_after_hop(l, e->t, p);
		return;
	}
	if (f->holding && f->held.mark != p.mark) {
		ack_after_hop(l, e->t, f->held);
		f->holding = false;
	}
	if (!f->holding) {
		f->held = p;
		f->holding = true;
		push(l, e->t + DELACK_TIMEOUT, EV_DELACK, p);
		return;
	}
	f->held.n = 2;
	ack_after_hop(l, e->t, f->held);
	f->holding = false;
}

static void delack_timer(struct loop *l, const struct event *e)
{
	struct flow *f = &l->f[e->p.flow];

	if (f->holding && f->held.sent == e->p.sent) {
		ack_after_hop(l, e->t, f->held);
		f->holding = false;
	}
}

static void ack(struct loop *l, const struct event *e)
{
	struct flow *f = &l->f[e->p.flow];
	u64 rtt = e->t - e->p.sent;

	f->inflight -= e->p.n;
	f->acked += e->p.n;
	f->srtt = f->srtt ? f->srtt - f->srtt / 8 + rtt / 8 : rtt;
	decbit_win_ack(&f->win, &l->pp, e->p.n, e->p.mark ? e->p.n : 0,
		       l->o.cwnd_limited ? f->limited : true);
	f->limited = false;
	if (measuring(l, e->t)) {
		u32 c = decbit_win_pkts(&f->win);

		f->cwnd_sum += c;
		f->cwnd_n++;
		f->cwnd_min = c < f->cwnd_min ? c : f->cwnd_min;
		f->cwnd_max = c > f->cwnd_max ? c : f->cwnd_max;
	}
	send_window(l, e->p.flow, e->t);
}

/*
 * Run @nflows bulk flows started 2 s apart until t_to over a link of
 * @service ns per packet and @prop ns of propagation, with the router at
 * @threshold and up to @jitter ns between source and router.
 */
static struct loop *run_opts(u64 service, u64 prop, int nflows,
			     u32 threshold, const struct model_opts *o,
			     u64 t_from, u64 t_to)
{
	struct loop *l = &lp;
	bool started = false;
	int i;

	assert_true(nflows >= 1 && nflows <= MAX_FLOWS);
	memset(l, 0, sizeof(*l));
	l->nflows = nflows;
	l->o = *o;
	l->service = service;
	l->prop = prop;
	l->t_from = t_from;
	l->t_to = t_to;
	l->pp = (struct decbit_policy_params){
		.cutoff = 50, .increase = DECBIT_W_ONE, .decrease = 896,
		.loss_decrease = 512, .slow_start = true,
	};
	l->rp = (struct decbit_params){ .threshold = threshold };
	l->rng = 0x9e3779b97f4a7c15ULL;
	decbit_avg_init(&l->avg);
	assert_true(o->cpus <= MAX_CPUS);
	for (i = 0; i < MAX_CPUS; i++) {
		l->clocks[i].late = &l->o.src_late;
		l->clocks[MAX_CPUS + i].late = &l->o.late;
	}
	for (i = 0; i < nflows; i++)
		l->pace[i] = (struct timer){ .type = EV_SEND, .p.flow = i };
	l->watchdog.type = EV_TIMER;
	l->fwd = (struct delay_hop){ .delay = prop / 2, .out = EV_RECV,
		.watchdog = { .type = EV_HOP, .p.flow = 0 } };
	l->rev = (struct delay_hop){ .delay = prop - prop / 2, .out = EV_ACK,
		.watchdog = { .type = EV_HOP, .p.flow = 1 } };
	for (i = 0; i < nflows; i++)
		push(l, i * 2000 * MS, EV_START, (struct pkt){ i, false, 0, 0, 0 });

	while (l->nev) {
		struct event e = pop(l);

		if (e.t >= t_to)
			break;
		if (!started && e.t >= t_from) {
			for (i = 0; i < nflows; i++)
				l->f[i].acked_from = l->f[i].acked;
			started = true;
		}
		switch (e.type) {
		case EV_START:
			/* TCP's initial window of 10 */
			decbit_win_init(&l->f[e.p.flow].win, &l->pp, 10);
			l->f[e.p.flow].cwnd_min = ~0U;
			send_window(l, e.p.flow, e.t);
			break;
		case EV_SEND:
			l->f[e.p.flow].send_pending = false;
			send_window(l, e.p.flow, e.t);
			break;
		case EV_ARRIVE:
			arrive(l, &e);
			break;
		case EV_DEPART:
			l->busy = false;
			if (measuring(l, e.t - l->service))
				l->departed++;
			if (l->o.cpus) {
				/* the data's delay hop; the router's watchdog */
				hop_enter(l, &l->fwd, e.t, e.p);
				if (l->qlen)
					timer_arm(l, &l->watchdog, true, e.t);
				break;
			}
			receive(l, &e);
			/* the qdisc's watchdog, which may fire late */
			if (l->qlen && late_set(&l->o.late))
				push(l, e.t + late_draw(l, &l->o.late), EV_TIMER,
				     e.p);
			else if (l->qlen)
				serve(l, e.t);
			break;
		case EV_TIMER:
			/* an arrival may have restarted the queue already */
			if (!l->busy && l->qlen)
				serve(l, e.t);
			break;
		case EV_RECV:
			receive(l, &e);
			break;
		case EV_IRQ:
			clock_expire(l, &e);
			break;
		case EV_HOP:
			hop_leave(l, e.p.flow ? &l->rev : &l->fwd, e.t);
			break;
		case EV_ACK:
			ack(l, &e);
			break;
		case EV_DELACK:
			delack_timer(l, &e);
			break;
		}
	}
	queue_area(l, t_to);
	return l;
}

static struct loop *run_on(u64 service, u64 prop, int nflows, u32 threshold,
			   u64 jitter, u64 t_from, u64 t_to)
{
	const struct model_opts o = {
		.jitter = jitter, .catchup = DECBIT_CATCHUP_DEFAULT,
	};

	return run_opts(service, prop, nflows, threshold, &o, t_from, t_to);
}

/* the selftests' dumbbell: 10 Mbit/s, 20 ms */
static struct loop *run(int nflows, u32 threshold, u64 jitter, u64 t_from,
			u64 t_to)
{
	return run_on(SERVICE, PROP, nflows, threshold, jitter, t_from, t_to);
}

/* Fraction of the window's time the link was busy, in thousandths. */
static u64 util_milli(const struct loop *l)
{
	return l->departed * l->service * 1000 / (l->t_to - l->t_from);
}

/* Mean number waiting, in thousandths of a packet. */
static u64 queue_milli(const struct loop *l)
{
	return l->q_area * 1000 / (l->t_to - l->t_from);
}

/* The @pct-th percentile of the waits at the router, in us (10 us bins). */
static u64 sojourn_us(const struct loop *l, u32 pct)
{
	u64 n = 0, k = 0;
	u32 i;

	for (i = 0; i < SOJOURN_BINS; i++)
		n += l->sojourn[i];
	for (i = 0; i < SOJOURN_BINS; i++) {
		k += l->sojourn[i];
		if (k * 100 >= n * pct)
			break;
	}
	return (u64)i * 10;
}

/* Jain's index of the packets acknowledged in the window, thousandths. */
static u64 jain_milli(const struct loop *l)
{
	u64 s = 0, q = 0;
	int i;

	for (i = 0; i < l->nflows; i++) {
		u64 x = l->f[i].acked - l->f[i].acked_from;

		s += x;
		q += x * x;
	}
	return s * s * 1000 / (l->nflows * q);
}

/* x / 1000 with three decimals, in @buf */
static const char *milli(char *buf, u64 x)
{
	snprintf(buf, 24, "%llu.%03llu", (unsigned long long)x / 1000,
		 (unsigned long long)x % 1000);
	return buf;
}

static void report(const char *name, const struct loop *l)
{
	char u[24], q[24], j[24];
	int i;

	print_message("# %s: util %s, mean queue %s, %llu%% marked, Jain %s\n",
		      name, milli(u, util_milli(l)), milli(q, queue_milli(l)),
		      (unsigned long long)(l->marks * 100 / l->arrivals),
		      milli(j, jain_milli(l)));
	for (i = 0; i < l->nflows; i++) {
		const struct flow *f = &l->f[i];

		print_message("#   flow %d: cwnd mean %s, %u-%u\n", i,
			      milli(u, f->cwnd_sum * 1000 / f->cwnd_n),
			      f->cwnd_min, f->cwnd_max);
	}
}

/*
 * One flow at the paper's C = 1: after start-up the window stays within a
 * few packets of the knee, the queue near empty, the link >= 0.95 busy
 * (the sawtooth's own limit, less what the router's catch-up gives back:
 * see above).
 */
static void test_one_flow_at_knee(void **state)
{
	const struct loop *l = run(1, 1000, 0, 6000 * MS, 36000 * MS);

	(void)state;
	report("one flow, C = 1", l);
	assert_true(l->f[0].cwnd_min * 1000 >= KNEE_MILLI - 3000);
	assert_true(l->f[0].cwnd_max * 1000 <= KNEE_MILLI + 2000);
	assert_true(util_milli(l) >= 950);
	assert_true(queue_milli(l) <= 1000);
	/* only the windows above the knee are marked */
	assert_true(l->marks * 100 < l->arrivals * 50);
}

/* Four flows started 2 s apart: fair over the last 10 s (0.992). */
static void test_four_flows_fair(void **state)
{
	const struct loop *l = run(4, 1000, 0, 26000 * MS, 36000 * MS);
	int i;

	(void)state;
	report("four flows, C = 1", l);
	assert_true(jain_milli(l) >= 980);
	assert_true(util_milli(l) >= 750);
	assert_true(queue_milli(l) <= 1000);
	for (i = 0; i < 4; i++)
		assert_true(l->f[i].cwnd_min >= 1 && l->f[i].cwnd_max <= 10);
}

/* At C = 2 the same sources fill the link, one flow or four. */
static void test_threshold_2_fills_link(void **state)
{
	const struct loop *l = run(1, 2000, 0, 6000 * MS, 36000 * MS);

	(void)state;
	report("one flow, C = 2", l);
	assert_true(util_milli(l) >= 950);
	assert_true(queue_milli(l) <= 3000);
	l = run(4, 2000, 0, 26000 * MS, 36000 * MS);
	report("four flows, C = 2", l);
	assert_true(util_milli(l) >= 950);
	assert_true(queue_milli(l) <= 3000);
	assert_true(jain_milli(l) >= 980);
}

/*
 * Arrival jitter (a late timer, a busy CPU) neither stalls one flow nor
 * makes four flows unfair.  It costs one flow utilisation today (0.933
 * against 0.971 without), printed, not asserted: a policy that lost less
 * to jitter would be better, and nothing in the paper fixes the cost.
 * What is asserted besides the floor is that the jitter reached the
 * router: one flow paced at cwnd/srtt sends a packet every srtt/W, over
 * a millisecond here (21 ms over at most 19 packets), so no two of its
 * packets arrive within 0.5 ms of each other unless the jitter moved
 * them (with up to 1 ms each way, 3 % do).
 */
static void test_jitter(void **state)
{
	const struct loop *l = run(1, 1000, 0, 6000 * MS, 36000 * MS);
	u64 u0 = util_milli(l), close0 = l->gap_lt[3];
	u64 u;

	(void)state;
	l = run(1, 1000, MS, 6000 * MS, 36000 * MS);
	u = util_milli(l);
	report("one flow, C = 1, jitter <= 1 ms", l);
	print_message("#   util %llu/1000 against %llu without jitter; arrivals within 0.5 ms of the last %llu per 1000 (%llu without)\n",
		      (unsigned long long)u, (unsigned long long)u0,
		      (unsigned long long)(l->gap_lt[3] * 1000 / l->gaps),
		      (unsigned long long)close0);
	assert_true(close0 == 0);
	assert_true(l->gap_lt[3] * 100 >= l->gaps);
	assert_true(u >= 850);
	l = run(4, 1000, MS / 2, 26000 * MS, 36000 * MS);
	report("four flows, C = 1, jitter <= 0.5 ms", l);
	assert_true(jain_milli(l) >= 980);
}

/*
 * make demo's dumbbell (20 Mbit/s, 40 ms, four flows 2 s apart, measured
 * over 10-30 s): fair, no standing queue, and the utilisation the cores
 * reach there, for the demo's table to be read against.
 */
static void test_demo_dumbbell(void **state)
{
	const struct loop *l = run_on(DEMO_SERVICE, DEMO_PROP, 4, 1000, 0,
				      10000 * MS, 30000 * MS);

	(void)state;
	report("demo dumbbell, C = 1", l);
	assert_true(jain_milli(l) >= 980);
	assert_true(queue_milli(l) <= 1000);
	l = run_on(DEMO_SERVICE, DEMO_PROP, 4, 2000, 0, 10000 * MS, 30000 * MS);
	report("demo dumbbell, C = 2", l);
	assert_true(jain_milli(l) >= 980);
	assert_true(util_milli(l) >= 930);
}

/*
 * The router's pacing timer firing late (uniformly up to @late) on make
 * demo's dumbbell at C = 2: a dequeue later than one service time (0.61
 * ms) after the link freed up loses the time in between, which no source
 * gives back.  Up to 0.5 ms costs nothing; up to 1 ms takes the link from
 * 0.96 to about 0.81 without a catch-up allowance; sch_decbit's default of
 * 4 ms for packets that were waiting keeps it busy.
 *
 * Asserted is what decbit_service_start() fixes: the link time lost with
 * a packet waiting (idle_queued) is 0 for a lateness under one service
 * time, and under the catch-up allowance when there is one, and not 0
 * beyond one service time without it (the lateness reached the link);
 * the utilisation only from below.  Today's 0.813 / 0.718 / 0.656
 * without catch-up are printed, not capped: the sources cannot give the
 * router's lost time back, but a policy that lost less around it would
 * be no error.
 */
static void test_late_timer(void **state)
{
	static const u64 lates[] = { 0, MS / 2, MS, 2 * MS, 4 * MS };
	u64 u[5], uc[5], lost[5], lostc[5];
	char name[80];
	unsigned int i;

	(void)state;
	for (i = 0; i < 5; i++) {
		const struct loop *l;

		struct model_opts o = { .late.max = lates[i] };

		l = run_opts(DEMO_SERVICE, DEMO_PROP, 4, 2000, &o, 10000 * MS,
			     30000 * MS);
		snprintf(name, sizeof(name),
			 "demo dumbbell, C = 2, timer up to %llu us late, catchup 0",
			 (unsigned long long)lates[i] / 1000);
		report(name, l);
		u[i] = util_milli(l);
		lost[i] = l->idle_queued * 1000 / (l->t_to - l->t_from);
		print_message("#   link idle with a packet waiting %llu/1000 of the time\n",
			      (unsigned long long)lost[i]);
		if (lates[i] < DEMO_SERVICE)
			assert_true(l->idle_queued == 0);
		else
			assert_true(lost[i] >= 10);
		assert_true(jain_milli(l) >= 980);
		o.catchup = DECBIT_CATCHUP_DEFAULT;
		l = run_opts(DEMO_SERVICE, DEMO_PROP, 4, 2000, &o, 10000 * MS,
			     30000 * MS);
		snprintf(name, sizeof(name),
			 "  the same with catchup 4 ms (the default)");
		report(name, l);
		uc[i] = util_milli(l);
		lostc[i] = l->idle_queued * 1000 / (l->t_to - l->t_from);
		print_message("#   link idle with a packet waiting %llu/1000 of the time\n",
			      (unsigned long long)lostc[i]);
		if (lates[i] < DECBIT_CATCHUP_DEFAULT)
			assert_true(l->idle_queued == 0);
		assert_true(jain_milli(l) >= 980);
	}
	/* a lateness under one service time needs no catch-up: the floor
	 * of the catch-up rows (was: equal to on time, 0.960 both)
	 */
	assert_true(u[1] >= 940);
	for (i = 0; i < 4; i++)
		assert_true(uc[i] >= 940);
}

/*
 * make demo's dumbbell at C = 2 with what a Linux source and receiver add
 * to the loop, one at a time and together: delayed ACKs (one per two
 * packets, the first one's RTT in srtt), a window that grows only in
 * epochs where it was full (tcp_is_cwnd_limited), TCP's pacing credit (a
 * packet sent late brings the next one forward by up to half a gap),
 * pacing timers late by up to 1 ms, and pacing faster than cwnd/srtt.
 * None of them takes the loop below 0.93 of the link: what the guest
 * loses (0.90 in make demo) is not in the sources' behaviour modelled
 * here, each timer late on its own.
 */
/*
 * Timer lateness measured in a make demo guest (6.12, two vCPUs, idle
 * host; tools/vm 6.12 -- tools/experiment run demo --arms "decbit+decbit
 * threshold 2" --trace 14:4, rep 1 of 2, which kept the link 0.901
 * busy), ns, at the percentiles of late_grid: the qdiscs' watchdogs
 * (netem's and sch_decbit's) and TCP's pacing timer.
 */
static const u64 guest_watchdog[LATE_POINTS] = {
	0, 12000, 25000, 38000, 49000, 59000, 66000, 73000, 81000, 87000,
	92000, 98000, 103000, 109000, 115000, 123000, 134000, 157000, 211000,
	319000, 362000, 448000, 606000, 1537000, 3989000, 5681000,
};

static const u64 guest_pacing[LATE_POINTS] = {
	0, 38000, 59000, 76000, 89000, 98000, 108000, 118000, 128000, 139000,
	151000, 165000, 183000, 206000, 237000, 274000, 326000, 398000,
	537000, 878000, 1015000, 1294000, 1922000, 2823000, 4335000, 6052000,
};

static void test_linux_sources(void **state)
{
	static const struct {
		const char *name;
		struct model_opts o;
	} cases[] = {
		{ "exact", { } },
		{ "delayed ACKs", { .delack = true } },
		{ "grow only when window-limited", { .cwnd_limited = true } },
		{ "pacing credit", { .credit = true } },
		{ "source timers up to 1 ms late, with credit",
		  { .src_late.max = MS, .credit = true } },
		{ "all four", { .src_late.max = MS, .cwnd_limited = true,
				.delack = true, .credit = true } },
		{ "all four, router timer up to 1 ms late",
		  { .src_late.max = MS, .cwnd_limited = true, .delack = true,
		    .credit = true, .late.max = MS } },
		{ "all four, delay hop's timer up to 1 ms late",
		  { .src_late.max = MS, .cwnd_limited = true, .delack = true,
		    .credit = true, .hop_late.max = MS } },
		{ "all four, delay hop's timer up to 4 ms late",
		  { .src_late.max = MS, .cwnd_limited = true, .delack = true,
		    .credit = true, .hop_late.max = 4 * MS } },
		{ "all four, every timer late as measured in the guest",
		  { .cwnd_limited = true, .delack = true, .credit = true,
		    .src_late.q = guest_pacing, .hop_late.q = guest_watchdog,
		    .late.q = guest_watchdog } },
		{ "all four, pacing 110%",
		  { .src_late.max = MS, .cwnd_limited = true, .delack = true,
		    .credit = true, .pacing = 110 } },
		{ "all four, pacing 120%",
		  { .src_late.max = MS, .cwnd_limited = true, .delack = true,
		    .credit = true, .pacing = 120 } },
	};
	char name[120];
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct model_opts o = cases[i].o;
		const struct loop *l;

		o.catchup = DECBIT_CATCHUP_DEFAULT;
		l = run_opts(DEMO_SERVICE, DEMO_PROP, 4, 2000, &o, 10000 * MS,
			     30000 * MS);
		snprintf(name, sizeof(name), "demo dumbbell, C = 2, %s",
			 cases[i].name);
		report(name, l);
		assert_true(util_milli(l) >= 930);
		assert_true(queue_milli(l) <= 2000);
		assert_true(jain_milli(l) >= 980);
	}
}

/* report(), and how the timers batched and the arrivals clumped */
static void report_batches(const char *name, const struct loop *l)
{
	report(name, l);
	print_message("#   pacing timers batched %llu per 1000; arrivals within 10/50/100 us of the last %llu/%llu/%llu per 1000; wait p50 %llu us, p99 %llu us\n",
		      (unsigned long long)(l->batched * 1000 / l->pace_runs),
		      (unsigned long long)(l->gap_lt[0] * 1000 / l->gaps),
		      (unsigned long long)(l->gap_lt[1] * 1000 / l->gaps),
		      (unsigned long long)(l->gap_lt[2] * 1000 / l->gaps),
		      (unsigned long long)sojourn_us(l, 50),
		      (unsigned long long)sojourn_us(l, 99));
}

/*
 * What the guest loses, found (issue #21): Linux runs the timers due on a
 * CPU together, at that CPU's next expiry, and a TCG guest's expiries
 * come about 0.1 ms late (a sixth of a service time at 20 Mbit/s).  So
 * pacing timers of different flows due within a tenth of a millisecond
 * run in one batch and their packets reach the router as a clump, which
 * the router's average counts (it should: they are queued), and the
 * sources settle at smaller windows; each netem hop likewise releases
 * ACKs and packets in batches.  The model arms each timer on one of two
 * CPUs at random, as the guest's two vCPUs did, and replays the
 * lateness the guest measured.  It lands where the guest does (guest:
 * 6.12, 2 vCPUs, the demo dumbbell, tools/experiment with --trace 14:4):
 *
 *                          guest                              model
 *   utilisation            0.893-0.901 (two traced runs),     0.907
 *                          0.898 (make demo), 0.91 +-0.00
 *                          (decbit-threshold, 3 runs)
 *   mean queue             1.27-1.29 (time average, trace)    1.11
 *   wait at the router     p50 0.64 ms, p99 4.0-4.4 ms        0.63, 2.71
 *   pacing timers run in
 *     another's batch      38-40 %                            24 %
 *   arrivals < 50 / 100 us
 *     after the last       145-158 / 195-202 per 1000         158 / 187
 *   threshold 1            0.77 (make demo), 0.75 +-0.02      0.766
 *   pacing 120 / 150 %     0.03 / 0.06 below 100 %            0.04 / 0.06
 *                          (one run each, another host)
 *
 * With every timer on time no batches form and the link stays 0.957
 * busy; the lateness with each timer alone (test_linux_sources) gives
 * 0.948: the loss is the product of the two, the emulator's clock and
 * Linux's batching, not of the two cores.  A machine whose timers run
 * within a few microseconds of their time (a few hundredths of a
 * service time) is near the on-time row.  The model batches fewer
 * pacing timers than the guest: it draws the per-timer lateness once per
 * expiry, while a timer that joins an expiry already due is less late;
 * and its waits have a shorter tail.  Measured over 10-30 s (the
 * guest's utilisation over the experiment runner's 2-30 s is lower by
 * 0.007-0.014).
 *
 * This test asserts the mechanism, not the guest's figures (those are
 * test_calibration_against_guests'): with every timer on time no timer
 * runs in another's batch and the Linux behaviours keep the link >= 0.95
 * busy; replaying the guest's pacing lateness makes pacing timers run in
 * batches (>= 15 %; 24 % today), i.e. the replay took effect.  What each
 * kind of late timer costs (0.925 / 0.931 / 0.907 against 0.957 on
 * time) is printed, not asserted: until issue 36 the test required each
 * to cost, so a module that lost less to batching would have failed it.
 */
static void test_timer_batches(void **state)
{
	static const struct {
		const char *name;
		bool src, wd;	/* replay the guest's lateness of these */
	} cases[] = {
		{ "as measured", true, true },
		{ "on time", false, false },
		{ "pacing timers late, watchdogs on time", true, false },
		{ "watchdogs late, pacing timers on time", false, true },
	};
	char name[120];
	unsigned int i;

	(void)state;
	for (i = 0; i < 4; i++) {
		struct model_opts o = {
			.cwnd_limited = true, .delack = true, .credit = true,
			.catchup = DECBIT_CATCHUP_DEFAULT, .cpus = 2,
		};
		const struct loop *l;

		if (cases[i].src)
			o.src_late.q = guest_pacing;
		if (cases[i].wd)
			o.late.q = guest_watchdog;
		l = run_opts(DEMO_SERVICE, DEMO_PROP, 4, 2000, &o, 10000 * MS,
			     30000 * MS);
		snprintf(name, sizeof(name),
			 "demo dumbbell, timers batched on 2 CPUs, %s",
			 cases[i].name);
		report_batches(name, l);
		assert_true(jain_milli(l) >= 980);
		if (!cases[i].src && !cases[i].wd) {
			/* on time no batches form: the Linux behaviours alone */
			assert_true(l->batched == 0);
			assert_true(util_milli(l) >= 950);
		}
		if (cases[i].src)
			assert_true(l->batched * 1000 >= l->pace_runs * 150);
	}
}

/*
 * Timer lateness in a one-vCPU guest (6.12, idle host; the same run with
 * tools/vm --cpus 1, rep 1 of 2, link 0.930 busy), ns, at the
 * percentiles of late_grid.
 */
static const u64 guest1_watchdog[LATE_POINTS] = {
	0, 9000, 18000, 28000, 37000, 46000, 55000, 58000, 60000, 62000,
	64000, 65000, 67000, 69000, 71000, 74000, 79000, 88000, 102000,
	125000, 132000, 138000, 147000, 168000, 845000, 2419000,
};

static const u64 guest1_pacing[LATE_POINTS] = {
	0, 37000, 60000, 67000, 72000, 77000, 81000, 88000, 98000, 111000,
	123000, 137000, 152000, 165000, 181000, 201000, 226000, 270000,
	330000, 413000, 437000, 463000, 514000, 574000, 1530000, 2954000,
};

/*
 * Calibration: the model, with the timers batched per CPU and late as a
 * guest measured them, against what that guest measured (the figures
 * are docs/design/decbit.md's).  Each row prints model and guest; the
 * model's utilisation is asserted only from below, at most 0.03 under
 * the guest's lowest figure (the agreement the model claims; the floors
 * kept from before issue 36 are tighter where they were), and never
 * from above: the guest figures are today's module's, and a better
 * module would raise the model's figure, which must not fail.  (Until
 * issue 36 these were ranges: 0.88-0.93, 0.73-0.80, 0.92-0.965 with a
 * queue of 1-2 packets, 0.90-0.96, and pacing 120 / 150 % had to lose
 * more than 100 %.)
 *
 *  - make demo's dumbbell (20 Mbit/s, 40 ms, four flows) in a two-vCPU
 *    guest: C = 2 0.893-0.901 (two traced runs), 0.898 (make demo),
 *    0.91 +-0.00 (decbit-threshold, 3 runs); model 0.907, floor 0.88.
 *    C = 1: 0.77 (make demo), 0.75 +-0.02 (3 runs); model 0.766, floor
 *    0.73.  Pacing 120 / 150 % of cwnd/srtt (decbit-pacing, two runs
 *    each): 0.85 / 0.84; model 0.867 / 0.843, floors 0.82 / 0.81.
 *  - the selftests' dumbbell (10 Mbit/s, 20 ms), two flows at C = 2,
 *    where a service time is 1.2 ms and the guest's 0.1 ms a twelfth of
 *    it: make check's guests measured 0.950-0.952 with 1.4-1.5 packets
 *    queued; model 0.953 and 1.46 (0.967 on time), floor 0.92; the mean
 *    queue at most 2 packets (a bound on the delay, not on the link).
 *  - out of sample, make demo's dumbbell at C = 2 in a guest with one
 *    vCPU, where every timer runs on the same CPU and the measured
 *    lateness is smaller (watchdogs p50 64 us, p99 168-193 us; pacing
 *    p50 123-139 us, p99 574-664 us).  The guest gave 0.930 and 0.929
 *    (two runs), mean queue 1.19-1.30, wait p50 0.58-0.59 ms, p99
 *    3.6-4.8 ms, pacing timers batched 31-34 %, arrivals within 50 /
 *    100 us of the last 9-10 / 15-16 %; the model 0.951, 1.29, 0.53 /
 *    3.89 ms, 26 %, 13 / 15 %: the guest's timers were not used to
 *    build the model, and its prediction is within 0.03.  Floor 0.90.
 */
static void test_calibration_against_guests(void **state)
{
	static const struct {
		const char *name;
		u64 service, prop;
		int nflows;
		u32 threshold, pacing, cpus;
		u64 t_to;
		const char *guest;	/* what the guest measured */
		u64 floor;		/* util, thousandths */
		u64 queue_max;		/* thousandths of a packet; 0: none */
	} cases[] = {
		{ "demo dumbbell, 2 CPUs, C = 2", DEMO_SERVICE, DEMO_PROP, 4,
		  2000, 0, 2, 30000 * MS,
		  "0.893-0.901 (traced), 0.898 (make demo), 0.91 (3 runs)",
		  880, 0 },
		{ "demo dumbbell, 2 CPUs, C = 1", DEMO_SERVICE, DEMO_PROP, 4,
		  1000, 0, 2, 30000 * MS,
		  "0.77 (make demo), 0.75 +-0.02 (3 runs)", 730, 0 },
		{ "demo dumbbell, 2 CPUs, C = 2, pacing 120%", DEMO_SERVICE,
		  DEMO_PROP, 4, 2000, 120, 2, 30000 * MS,
		  "0.85 +-0.00 (2 runs)", 820, 0 },
		{ "demo dumbbell, 2 CPUs, C = 2, pacing 150%", DEMO_SERVICE,
		  DEMO_PROP, 4, 2000, 150, 2, 30000 * MS,
		  "0.84 +-0.01 (2 runs)", 810, 0 },
		{ "selftests' dumbbell, two flows, 2 CPUs, C = 2", SERVICE,
		  PROP, 2, 2000, 0, 2, 38000 * MS,
		  "0.950-0.952, queue 1.4-1.5 (make check)", 920, 2000 },
		{ "demo dumbbell, 1 CPU (its own lateness), C = 2",
		  DEMO_SERVICE, DEMO_PROP, 4, 2000, 0, 1, 30000 * MS,
		  "0.929-0.930, queue 1.19-1.30 (2 traced runs)", 900, 0 },
	};
	char name[120], u[24], q[24];
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct model_opts o = {
			.cwnd_limited = true, .delack = true, .credit = true,
			.catchup = DECBIT_CATCHUP_DEFAULT, .cpus = cases[i].cpus,
			.pacing = cases[i].pacing,
		};
		const struct loop *l;

		if (cases[i].cpus == 1) {
			o.src_late.q = guest1_pacing;
			o.late.q = guest1_watchdog;
		} else {
			o.src_late.q = guest_pacing;
			o.late.q = guest_watchdog;
		}
		l = run_opts(cases[i].service, cases[i].prop, cases[i].nflows,
			     cases[i].threshold, &o, 10000 * MS, cases[i].t_to);
		snprintf(name, sizeof(name), "calibration: %s, as measured",
			 cases[i].name);
		report_batches(name, l);
		print_message("#   model util %s queue %s; guest %s; asserted util >= %s\n",
			      milli(u, util_milli(l)), milli(q, queue_milli(l)),
			      cases[i].guest, milli(name, cases[i].floor));
		assert_true(util_milli(l) >= cases[i].floor);
		if (cases[i].queue_max)
			assert_true(queue_milli(l) <= cases[i].queue_max);
	}
}

/*
 * The delay DECbit's loop leaves, exact loop on make demo's dumbbell: the
 * window moves by +1 and x7/8 once per two round trips and the queue
 * swings with it, so a threshold that keeps the link 0.93 busy lets the
 * 99th percentile of the waits at the router reach 2 ms (3.3 packets),
 * except in a narrow band around 1.27, where both hold by a hair:
 *
 *   threshold  utilisation  mean queue  wait p50 / p99
 *   1          0.877        0.30        0.03 / 1.12 ms
 *   1.25       0.927        0.45        0.15 / 1.78 ms
 *   1.27       0.931        0.48        0.15 / 1.78 ms
 *   1.3        0.934        0.53        0.17 / 2.24 ms
 *   1.5        0.953        0.77        0.24 / 2.87 ms
 *   2          0.960        1.23        0.43 / 3.60 ms
 *   3          0.970        2.40        0.85 / 5.20 ms
 *
 * (1.26 gives 0.930 and 1.78 ms, 1.28 0.930 and 2.39 ms.)
 *
 * Asserted are the good halves only: the waits' p99 under 2 ms up to
 * 1.27, the link >= 0.93 busy from 1.27 on.  The other halves (the link
 * below 0.93 under 1.27, the p99 at or above 2 ms from 1.3 on) are
 * today's policy, printed above, not asserted: until issue 36 they
 * were, and a policy that gave a busier link with shorter waits, which
 * nothing in the paper rules out, would have failed them.
 */
static void test_threshold_trade_off(void **state)
{
	static const u32 thresholds[] = { 1000, 1250, 1270, 1300, 1500, 2000,
					  3000 };
	const struct model_opts o = { .catchup = DECBIT_CATCHUP_DEFAULT };
	u64 u[7], p99[7];
	unsigned int i;

	(void)state;
	for (i = 0; i < 7; i++) {
		const struct loop *l = run_opts(DEMO_SERVICE, DEMO_PROP, 4,
						thresholds[i], &o, 10000 * MS,
						30000 * MS);
		char name[80];

		snprintf(name, sizeof(name), "demo dumbbell, exact, C = %u/1000",
			 thresholds[i]);
		report(name, l);
		u[i] = util_milli(l);
		p99[i] = sojourn_us(l, 99);
		print_message("#   wait p50 %llu us, p99 %llu us\n",
			      (unsigned long long)sojourn_us(l, 50),
			      (unsigned long long)p99[i]);
	}
	/* up to the band: short waits */
	for (i = 0; i < 3; i++)
		assert_true(p99[i] < 2000);
	/* from the band on: the link busy */
	for (i = 2; i < 7; i++)
		assert_true(u[i] >= 930);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_flow_at_knee),
		cmocka_unit_test(test_four_flows_fair),
		cmocka_unit_test(test_threshold_2_fills_link),
		cmocka_unit_test(test_jitter),
		cmocka_unit_test(test_demo_dumbbell),
		cmocka_unit_test(test_late_timer),
		cmocka_unit_test(test_linux_sources),
		cmocka_unit_test(test_timer_batches),
		cmocka_unit_test(test_calibration_against_guests),
		cmocka_unit_test(test_threshold_trade_off),
	};

	return cmocka_run_group_tests_name("decbit_loop", tests, NULL, NULL);
}
