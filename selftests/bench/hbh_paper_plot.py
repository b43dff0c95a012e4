#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The headline plot of hbh_paper.sh: each run's throughput against the
queueing delay at the bottleneck r2, Config 1 and Table 1 side by side.

  hbh_paper_plot.py JSON PNG

A point per run: the mean over the repetitions of the connection's
throughput (± one sample standard deviation) and of the median delay,
a whisker to the right to the mean 99th percentile, each repetition a
small dot.  A run without a figure has no point and is named under the
panel (never a point at 0).  Exits 1 if no run has a point."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from congavoid_exp.report import draw_tput_delay  # noqa: E402

CONFIG1 = ("c1_hbh_udp", "c1_hbh_tcp", "c1_reno_fifo", "c1_hbh_tcp_b20",
           "c1_reno_fifo_b20")
TABLE1 = tuple(f"t1_{m}_{s}" for s in ("10_20", "50_100", "200_400")
               for m in ("hbh", "e2e"))


def points(res, names):
    """[(run, p50, p99, Mbit/s, sd, [(p50, Mbit/s) each repetition])],
    [runs without a figure]."""
    pts, missing = [], []
    for n in names:
        s = res["summary"].get(n, {})
        x50, x99 = (s.get(k, {}).get("mean") for k in ("qdelay_p50_ms",
                                                       "qdelay_p99_ms"))
        y, sd = s.get("bps", {}).get("mean"), s.get("bps", {}).get("sd")
        if None in (x50, x99, y):
            missing.append(n)
            continue
        reps = [(r["qdelay_p50_ms"], r["bps"] / 1e6)
                for r in res["runs"].values() if r["run"] == n and
                r.get("qdelay_p50_ms") is not None and
                r.get("bps") is not None]
        pts.append((n, x50, x99, y / 1e6, None if sd is None else sd / 1e6,
                    reps))
    return pts, missing


def main():
    src, png = sys.argv[1:3]
    res = json.load(open(src))
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(13, 5))
    drawn = 0
    for ax, names, title in ((axes[0], CONFIG1, "Config 1: one connection"),
                             (axes[1], TABLE1,
                              "Table 1: against bursts at r2")):
        pts, missing = points(res, names)
        draw_tput_delay(ax, pts)
        drawn += len(pts)
        ax.set_xlabel("queueing delay at r2, ms (median; whisker: 99th "
                      "percentile)")
        ax.set_ylabel("throughput, Mbit/s (mean ± sd)")
        ax.set_title(title + (f"\n(no point: {', '.join(missing)})"
                              if missing else ""), fontsize="medium")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small", loc="lower right")
    fig.suptitle(f"sch_hbh against Mishra & Kanakia ({res['kernel']}, "
                 f"{res['repetitions']} repetitions)", fontsize="medium")
    fig.tight_layout()
    fig.savefig(png, dpi=80)
    if not drawn:
        sys.exit("hbh_paper_plot: no run has a figure")


if __name__ == "__main__":
    main()
