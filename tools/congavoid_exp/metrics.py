# SPDX-License-Identifier: GPL-2.0
"""Metric computations on sampled series.  Pure functions of plain data so
that they can be unit tested on fixed inputs.

A series is a list of (t, value) pairs sorted by time t (seconds)."""

import math

from . import graph as G


def jain(xs):
    """Jain's fairness index (sum x)^2 / (n * sum x^2); 1.0 for equal
    shares, 1/n when one of n takes everything.  Undefined (None) for no
    input, an all-zero input (0/0: nothing was shared, so nothing was
    measured; issue 36) or any missing (None) share: a caller shows it
    as missing and a check reading it fails."""
    xs = list(xs)
    if not xs or any(x is None for x in xs):
        return None
    sq = sum(x * x for x in xs)
    if sq == 0:
        return None
    return sum(xs) ** 2 / (len(xs) * sq)


def mean(xs):
    xs = list(xs)
    return sum(xs) / len(xs) if xs else None


def percentile(xs, p):
    """The p-th percentile (0..100) with linear interpolation between the
    closest ranks (numpy's default method)."""
    xs = sorted(xs)
    if not xs:
        return None
    k = (len(xs) - 1) * p / 100.0
    lo = math.floor(k)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def queue_delays(samples, rate_at):
    """The queueing delay, ms, that each sample of a qdisc's backlog
    stands for: the bytes queued over the link's rate at that moment,
    the wait of a packet arriving then.  SAMPLES are dicts with t and
    backlog (bytes); RATE_AT(t) is the link's rate in bit/s.  Samples
    are taken at fixed times, so their percentiles are those of the
    delay over time, not over packets."""
    return [s["backlog"] * 8 / rate_at(s["t"]) * 1000 for s in samples
            if s.get("backlog") is not None and rate_at(s["t"]) > 0]


def cov(xs):
    """Coefficient of variation (population standard deviation / mean)."""
    xs = list(xs)
    m = mean(xs)
    if not m:
        return None
    var = sum((x - m) ** 2 for x in xs) / len(xs)
    return math.sqrt(var) / m


def power(throughput_bps, rtt_s):
    """Kleinrock's power: throughput divided by delay (bit/s per second);
    None without a throughput or a delay."""
    if not rtt_s or throughput_bps is None:
        return None
    return throughput_bps / rtt_s


def normalized_power(utilization, rtt_s, base_rtt_s):
    """Power relative to its ideal: utilisation divided by the delay in
    units of the base RTT.  1.0 means a full link with no queueing delay."""
    if not rtt_s or not base_rtt_s or utilization is None:
        return None
    return utilization / (rtt_s / base_rtt_s)


def value_at(series, t):
    """Linear interpolation of a cumulative counter series at time t
    (clamped to the first/last sample)."""
    if not series:
        return None
    if t <= series[0][0]:
        return series[0][1]
    if t >= series[-1][0]:
        return series[-1][1]
    lo, hi = 0, len(series) - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if series[mid][0] <= t:
            lo = mid
        else:
            hi = mid
    (t0, v0), (t1, v1) = series[lo], series[hi]
    if t1 == t0:
        return v1
    return v0 + (v1 - v0) * (t - t0) / (t1 - t0)


def rate_between(series, t0, t1):
    """Average rate of a cumulative counter between t0 and t1 (units of
    the counter per second; 0 for an empty interval).  None when the
    series has no sample inside (t0, t1): no sample is no figure, never a
    rate of 0.  A series covering part of the interval counts no growth
    outside its span."""
    if t1 <= t0:
        return 0.0
    if not series or series[-1][0] <= t0 or series[0][0] >= t1:
        return None
    a = max(t0, series[0][0])
    b = min(t1, series[-1][0])
    if b <= a:          # one sample: no span to take a rate over
        return None
    return (value_at(series, b) - value_at(series, a)) / (t1 - t0)


def rate_series(series, step):
    """Rates of a cumulative counter in consecutive bins of `step`
    seconds: list of (bin end time, rate)."""
    if len(series) < 2:
        return []
    out = []
    t = series[0][0]
    while t + step <= series[-1][0] + 1e-9:
        out.append((t + step, rate_between(series, t, t + step)))
        t += step
    return out


def convergence_time(counters, active, change, end, window=1.0,
                     target=0.95, step=0.1):
    """Seconds after `change` until Jain's index of the flows' rates over
    a sliding window first reaches `target`; None if it never does before
    `end`.

    counters: {flow: cumulative byte series}; active: the flows that are
    active after the change (their rates are compared)."""
    t = change + window
    while t <= end + 1e-9:
        rates = [rate_between(counters[f], t - window, t) for f in active]
        j = jain(rates)
        if j is not None and j >= target:
            return t - change
        t += step
    return None


# -- one run's figures ------------------------------------------------------

def window(sc):
    """The measurement window of a dumbbell or chain run, seconds after
    t0: from the warm-up after the first flow's start to the last stop."""
    return (min(f["start"] for f in sc.flows) + sc.warmup,
            max(f["stop"] for f in sc.flows))


def with_packet_queue(res, pq):
    """RES's queue and queueing delay from a trace of the bottleneck's
    packets (tracing.packet_queue) instead of the 100 ms samples, which
    are kept as *_sampled; "queue_from" says which."""
    if not pq or pq["queue_mean"] is None or not pq["qdelay_packets"]:
        res["queue_from"] = "samples"
        return res
    for k in ("queue_mean", "qdelay_p50_ms", "qdelay_p99_ms"):
        res[k + "_sampled"] = res.get(k)
        res[k] = pq[k]
    for k in ("qdelay_max_ms", "qdelay_packets", "queue_unseen",
              "queue_nonempty_frac"):
        res[k] = pq.get(k)
    res["queue_from"] = "packets"
    return res


def dumbbell(sc, arm, samples, flow_results, udp_series):
    """Every figure of one run of a dumbbell or chain scenario, from the
    samples (tcp_info of each flow, counters of the qdiscs under test),
    each flow's result as its traffic tool reported it (bytes,
    throughput_bps, retransmits) and each UDP flow's delivered-bytes
    series from its sink ([(t, bytes)], t on the samples' clock).  SC
    gives the flows, the warm-up and the link's capacity over time."""
    flows = sc.flows
    tcp = [s for s in samples if "flow" in s]
    qs = [s for s in samples if "kind" in s]
    first_link = qs[0]["link"] if qs else None
    first_router = qs[0]["router"] if qs else None
    q1 = [s for s in qs if s["link"] == first_link and
          s["router"] == first_router]
    t_first = min(f["start"] for f in flows)
    t_end = max(f["stop"] for f in flows)
    t_all0 = max(f["start"] for f in flows)
    t_all1 = min(f["stop"] for f in flows)
    w0, w1 = window(sc)

    # cumulative delivered-bytes series per flow (a sample without the
    # counter is left out, not read as 0)
    counters = {}
    for f in flows:
        if f["kind"] == "tcp":
            counters[f["id"]] = [(s["t"], s["bytes_acked"]) for s in tcp
                                 if s["flow"] == f["id"] and
                                 s.get("bytes_acked") is not None]
        else:
            counters[f["id"]] = udp_series.get(f["id"], [])

    per_flow = []
    rtts_all = []
    covs = []
    for f in flows:
        r = {"id": f["id"], "kind": f["kind"], "src": f["src"],
             "cc": (f["cc"] or arm["cc"]) if f["kind"] == "tcp" else None,
             "start": f["start"], "stop": f["stop"]}
        r.update(flow_results[f["id"]])
        fs = [s for s in tcp if s["flow"] == f["id"]]
        lo = f["start"] + sc.warmup
        rtts = [s["rtt"] / 1000 for s in fs if s["t"] >= lo and s.get("rtt")]
        cw = [s["snd_cwnd"] for s in fs
              if max(lo, t_all0) <= s["t"] <= t_all1 and "snd_cwnd" in s]
        r["rtt_mean_ms"] = mean(rtts)
        r["rtt_p95_ms"] = percentile(rtts, 95)
        r["cwnd_mean"] = mean(cw)
        r["cwnd_cov"] = cov(cw)
        mins = [s["min_rtt"] / 1000 for s in fs if s.get("min_rtt")]
        r["min_rtt_ms"] = min(mins) if mins else None
        rtts_all += rtts
        if f["kind"] == "tcp":      # UDP flows have no window
            covs.append(r["cwnd_cov"])
        per_flow.append(r)

    # a flow whose traffic tool reported nothing (runner._flow_result)
    # leaves the totals unknown: never summed as 0
    no_result = [r["id"] for r in per_flow
                 if r.get("bytes") is None or r.get("throughput_bps") is None]
    agg = None if no_result else sum(r["throughput_bps"] for r in per_flow)
    # new data delivered over the whole run / the data the link could
    # carry (payload of full-sized packets: 1448 of 1514 bytes for TCP
    # with timestamps, size of size + 42 for UDP)
    cap_all = sc.capacity(t_first, t_end)
    frac = [1448 / 1514 if f["kind"] == "tcp" else
            f["size"] / (f["size"] + 42) for f in flows]
    cap_data = cap_all * sum(frac) / len(frac)
    useful = sum(r["bytes"] for r in per_flow) * 8 / cap_data \
        if cap_data and not no_result else None
    # the bottleneck's byte counter in the window; no sample of it there
    # is no utilisation, not 0
    sent = [(s["t"], s["bytes"]) for s in q1 if s.get("bytes") is not None]
    cap = sc.capacity(w0, w1)
    sent_rate = rate_between(sent, w0, w1)
    util = sent_rate * (w1 - w0) * 8 / cap \
        if sent_rate is not None and cap else None
    # Jain over the interval in which every flow is active (after
    # warm-up); undefined (None) if a flow has no sample there or no flow
    # delivered anything
    ja0 = t_all0 + sc.warmup
    fair = None
    if t_all1 > ja0:
        fair = jain(rate_between(counters[f["id"]], ja0, t_all1)
                    for f in flows)
    qlen = [s["qlen"] for s in q1 if s["t"] >= w0 and "qlen" in s]
    qdelay = queue_delays([s for s in q1 if s["t"] >= w0], sc.rate_at)

    def delta(key):
        tot, seen = 0, False
        for link in {(s["router"], s["link"]) for s in qs}:
            v = [s[key] for s in qs if (s["router"], s["link"]) == link
                 and s.get(key) is not None]
            if v:
                tot += v[-1] - v[0]
                seen = True
        return tot if seen else None

    # every TCP flow's retransmits, or no total (UDP flows have none)
    rtx = [r["retransmits"] for r in per_flow if r["kind"] == "tcp"]
    if None in rtx:
        rtx = []
    rtt_mean = mean(rtts_all)
    base = [r["min_rtt_ms"] for r in per_flow if r["min_rtt_ms"]]
    base_rtt = min(base) if base else None
    conv = None
    changes = sorted({f["start"] for f in flows} - {t_first})
    if changes:
        c = changes[-1]
        active = [f["id"] for f in flows if f["start"] <= c < f["stop"]]
        end = min(f["stop"] for f in flows if f["id"] in active)
        conv = convergence_time(counters, active, c, end) \
            if len(active) > 1 else None
    res = {
        "arm": arm["name"], "cc": arm["cc"], "qdisc": arm["qdisc"],
        "flows": per_flow,
        "throughput_bps": agg,
        "utilization": util,
        "useful": useful,
        "jain": fair,
        "jain_window_s": [ja0, t_all1],
        "rtt_mean_ms": rtt_mean,
        "rtt_p95_ms": percentile(rtts_all, 95),
        "base_rtt_ms": base_rtt,
        "queue_mean": mean(qlen),
        "queue_max": max(qlen) if qlen else None,
        "qdelay_p50_ms": percentile(qdelay, 50),
        "qdelay_p99_ms": percentile(qdelay, 99),
        "drops": delta("drops"),
        "marks": delta("marks"),
        "retransmits": sum(rtx) if rtx else None,
        "power": power(agg, rtt_mean / 1000) if rtt_mean else None,
        "flows_without_result": no_result,
        "norm_power": normalized_power(util, rtt_mean, base_rtt)
        if rtt_mean else None,
        "convergence_s": conv,
        "convergence_after_s": changes[-1] if changes else None,
        "cwnd_cov": None if None in covs else mean(covs),
        "samples": len(samples),
    }
    return res


def window_delta(samples, key, w0, w1):
    """Sum over qdiscs of key's increase from the first sample at or after
    w0 to the last at or before w1 (None if no qdisc has two)."""
    series = {}
    for s in samples:
        if s.get(key) is not None and w0 <= s["t"] <= w1:
            series.setdefault((s["router"], s["link"]), []).append(
                (s["t"], s[key]))
    deltas = [max(v)[1] - min(v)[1] for v in series.values() if len(v) > 1]
    return sum(deltas) if deltas else None


def graph(sc, arm, gen, samples, final, shift=0.0):
    """Metrics of one run from the generator's summary and the routers'
    qdisc counters.  Counters are taken over the measurement window
    (warm-up to the end of the sources, shifted by the generator's late
    start, if any); the *_all figures cover the whole run."""
    tot = gen["totals"]
    w0, w1 = sc.warmup + shift, sc.duration + shift

    def total(key):
        vals = [q[key] for q in final if q.get(key) is not None]
        return sum(vals) if vals else None

    pool = {}
    for s in samples:
        if s.get("pool_used") is not None and w0 <= s["t"] <= w1:
            pool.setdefault(s["router"], []).append(s["pool_used"])
    inputs = [s["pool_input"] for s in samples
              if s.get("pool_input") is not None]
    used = [s["pool_used"] for s in samples
            if s.get("pool_used") is not None]
    mean_used = [sum(v) / len(v) for v in pool.values()]
    offered = gen["offered_pps"]
    return {
        "arm": arm["name"], "qdisc": "decbit",
        "sweep": arm["sweep"],
        "ibl": G.ibl_fraction(arm["ibl_alpha"],
                            sc.topology["mean_path_nodes"])
        if arm.get("ibl_alpha") else None,
        "start_shift_s": shift,
        "offered_pps": offered,
        "admitted_pps": gen["admitted_pps"],
        "delivered_pps": gen["delivered_pps"],
        "delivered_frac": gen["delivered_pps"] / offered if offered else None,
        "rejected_frac": tot["rejected"] / tot["offered"]
        if tot["offered"] else None,
        "refused_frac": tot["refused"] / tot["offered"]
        if tot["offered"] else None,
        "net_loss_frac": 1 - tot["arrived"] / tot["admitted"]
        if tot["admitted"] else None,
        "refused_all": tot["refused_all"],
        "send_errors": tot["errors_all"],
        "timed_out": tot["timed_out"],
        "late": tot["late"],
        "vc_cov": gen["vc_cov"],
        "delay_mean_ms": gen["delay_mean_ms"],
        "delay_p50_ms": gen.get("delay_p50_ms"),
        "delay_p95_ms": gen["delay_p95_ms"],
        "delay_p99_ms": gen.get("delay_p99_ms"),
        "ibl_dropped": window_delta(samples, "ibl_dropped", w0, w1),
        "pool_dropped": window_delta(samples, "pool_dropped", w0, w1),
        "overlimit_dropped": window_delta(samples, "overlimit_dropped", w0,
                                          w1),
        "ibl_dropped_all": total("ibl_dropped"),
        "pool_dropped_all": total("pool_dropped"),
        "overlimit_dropped_all": total("overlimit_dropped"),
        "pool_used_mean": sum(mean_used) / len(mean_used)
        if mean_used else None,
        "pool_used_max": max(used) if used else None,
        "pool_input_max": max(inputs) if inputs else None,
        # the routers' final counters: a router without them makes the
        # figure unknown (None), never 0
        "pool_input_limit": _final_max(final, "pool_input_limit"),
        "pool_left": _final_pool_left(final),
        "series": gen["series"],
        "vc_delivered_pps": gen["vc_delivered_pps"],
    }


def _final_max(final, key):
    """The largest of KEY over the routers' final counters; None if there
    are none or one lacks KEY."""
    vals = [q.get(key) for q in final]
    return max(vals) if vals and None not in vals else None


def _final_pool_left(final):
    """Buffers still held, summed over routers (a router's qdiscs share
    one pool, so each router counts once); None if there are no final
    counters or a router's lack the pool."""
    used = {}
    for q in final:
        used[q["router"]] = q.get("pool_used")
    if not used or None in used.values():
        return None
    return sum(used.values())
