# SPDX-License-Identifier: GPL-2.0
"""Metric computations on sampled series.  Pure functions of plain data so
that they can be unit tested on fixed inputs.

A series is a list of (t, value) pairs sorted by time t (seconds)."""

import math


def jain(xs):
    """Jain's fairness index (sum x)^2 / (n * sum x^2); 1.0 for equal
    shares, 1/n when one of n takes everything.  None for no input; an
    all-zero input is treated as fair (1.0)."""
    xs = list(xs)
    if not xs:
        return None
    sq = sum(x * x for x in xs)
    if sq == 0:
        return 1.0
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


def cov(xs):
    """Coefficient of variation (population standard deviation / mean)."""
    xs = list(xs)
    m = mean(xs)
    if not m:
        return None
    var = sum((x - m) ** 2 for x in xs) / len(xs)
    return math.sqrt(var) / m


def power(throughput_bps, rtt_s):
    """Kleinrock's power: throughput divided by delay (bit/s per second)."""
    if not rtt_s:
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
    the counter per second); 0 outside the series' span."""
    if t1 <= t0 or not series:
        return 0.0
    a = max(t0, series[0][0])
    b = min(t1, series[-1][0])
    if b <= a:
        return 0.0
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
        if sum(rates) > 0 and jain(rates) >= target:
            return t - change
        t += step
    return None
