# SPDX-License-Identifier: GPL-2.0
"""A run as a Flent data file (.flent.gz), so that Flent's plots and
statistics (flent -i FILE -p upload, -f summary) work on it.

The file is one of Flent's "tcp_nup" test (N TCP uploads), data file
format 4: one series "TCP upload::N" per TCP flow, in Mbit/s, from the
bytes each flow's sender saw acknowledged between two 100 ms samples
(tcp_info, the runner's own samples), their sum and mean, and per flow
the raw values Flent's TCP plots read: the smoothed RTT ("tcp_rtt", ms),
the congestion window ("tcp_cwnd", packets) and the delivery rate
("tcp_delivery_rate", Mbit/s).  The runner sends no ICMP pings: the
"Ping (ms) ICMP" series the test defines is there but empty (null), and
the RTT plots are the TCP ones (-p upload_with_ping_and_tcp_rtt,
tcp_delivery_with_rtt).  The metadata say where the data come from.
"""

import gzip
import json
import time
from pathlib import Path

FORMAT_VERSION = 4	# Flent's data file format


def _series(samples, step):
    """x values and per-flow rows from the runner's tcp samples."""
    tcp = [s for s in samples if "flow" in s and "bytes_acked" in s]
    if not tcp:
        raise ValueError("no TCP samples in this run")
    times = sorted({round(s["t"] / step) for s in tcp})
    index = {k: i for i, k in enumerate(times)}
    flows = sorted({s["flow"] for s in tcp})
    rows = {f: [None] * len(times) for f in flows}
    raw = {f: [] for f in flows}
    last = {}
    for s in sorted(tcp, key=lambda x: (x["flow"], x["t"])):
        f, k = s["flow"], round(s["t"] / step)
        prev = last.get(f)
        last[f] = s
        if prev is None or s["t"] <= prev["t"]:
            continue
        mbps = (s["bytes_acked"] - prev["bytes_acked"]) * 8 / \
            (s["t"] - prev["t"]) / 1e6
        rows[f][index[k]] = round(mbps, 4)
        raw[f].append({"t": s["t"], "val": round(mbps, 4),
                       "tcp_rtt": s.get("rtt", 0) / 1000.0,
                       "tcp_cwnd": s.get("snd_cwnd", s.get("cwnd")),
                       "tcp_delivery_rate":
                           s.get("delivery_rate", 0) * 8 / 1e6})
    return [k * step for k in times], rows, raw


def export(run_dir, out=None, title=None, step=0.1):
    """Write RUN_DIR's samples as a Flent data file; returns its path."""
    run_dir = Path(run_dir)
    samples = [json.loads(line) for line in
               (run_dir / "samples.jsonl").read_text().splitlines() if line]
    x, rows, raw = _series(samples, step)
    t0 = 0.0
    if (run_dir / "t0").exists():
        t0 = float((run_dir / "t0").read_text())
    results = {f"TCP upload::{f}": rows[f] for f in rows}
    n = len(rows)
    sums, avgs = [], []
    for i in range(len(x)):
        vals = [rows[f][i] for f in rows if rows[f][i] is not None]
        sums.append(round(sum(vals), 4) if vals else None)
        avgs.append(round(sum(vals) / len(vals), 4) if vals else None)
    results["TCP upload sum"] = sums
    results["TCP upload avg"] = avgs
    results["Ping (ms) ICMP"] = [None] * len(x)
    # absolute times for raw values, as Flent records them
    now = time.time()
    mono = time.monotonic()
    base = now - mono + t0 if t0 else now
    raw_values = {f"TCP upload::{f}": [dict(r, t=base + r["t"]) for r in raw[f]]
                  for f in raw}
    raw_values["Ping (ms) ICMP"] = []
    start = time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime(base))
    name = title or run_dir.name
    meta = {
        "NAME": "tcp_nup",
        "TITLE": name,
        "TIME": start,
        "T0": start,
        "STEP_SIZE": step,
        "LENGTH": max(x) if x else 0,
        "TOTAL_LENGTH": max(x) if x else 0,
        "TEST_PARAMETERS": {"upload_streams": n},
        "HOST": "congavoid testbed",
        "HOSTS": ["congavoid testbed"],
        "DATA_FILENAME": None,
        "SERIES_META": {},
        "NOTE": "congavoid experiment runner: per-flow throughput from "
                "tcp_info bytes_acked in 100 ms samples; no ICMP ping "
                "(the Ping series is empty); tcp_rtt is the sender's "
                "smoothed RTT",
    }
    out = Path(out) if out else run_dir / f"{run_dir.name}.flent.gz"
    meta["DATA_FILENAME"] = out.name
    doc = {"metadata": meta, "version": FORMAT_VERSION, "x_values": x,
           "results": results, "raw_values": raw_values}
    with gzip.open(out, "wt", encoding="utf-8") as fh:
        json.dump(doc, fh)
    return out
