# SPDX-License-Identifier: GPL-2.0
"""Tables and plots of a scenario's results."""

import json
import re
import shutil
from pathlib import Path

from . import metrics as M
from . import pages

# (key, header, format, scale)
COLUMNS = [
    ("throughput_bps", "thr Mbit/s", "{:.2f}", 1e-6),
    ("utilization", "util", "{:.2f}", 1),
    ("jain", "Jain", "{:.3f}", 1),
    ("rtt_mean_ms", "RTT ms", "{:.1f}", 1),
    ("rtt_p95_ms", "RTT p95", "{:.1f}", 1),
    ("queue_mean", "queue", "{:.1f}", 1),
    ("queue_max", "q max", "{:.0f}", 1),
    ("qdelay_p50_ms", "qdelay p50 ms", "{:.2f}", 1),
    ("qdelay_p99_ms", "qdelay p99 ms", "{:.2f}", 1),
    ("drops", "drops", "{:.0f}", 1),
    ("marks", "marks", "{:.0f}", 1),
    ("retransmits", "rtx", "{:.0f}", 1),
    ("norm_power", "power", "{:.2f}", 1),
    ("convergence_s", "conv s", "{:.1f}", 1),
    ("cwnd_cov", "cwnd CoV", "{:.2f}", 1),
    ("useful", "useful", "{:.2f}", 1),
]

# graph scenarios (virtual channels through a store-and-forward network)
GRAPH_COLUMNS = [
    ("delivered_pps", "delivered pkt/s", "{:.1f}", 1),
    ("offered_pps", "offered pkt/s", "{:.1f}", 1),
    ("delivered_frac", "of offered", "{:.2f}", 1),
    ("rejected_frac", "window rej.", "{:.2f}", 1),
    ("refused_frac", "entry refused", "{:.2f}", 1),
    ("net_loss_frac", "lost in net", "{:.2f}", 1),
    ("vc_cov", "VC CoV", "{:.2f}", 1),
    ("delay_mean_ms", "delay ms", "{:.0f}", 1),
    ("delay_p50_ms", "delay p50 ms", "{:.0f}", 1),
    ("delay_p95_ms", "p95 ms", "{:.0f}", 1),
    ("delay_p99_ms", "p99 ms", "{:.0f}", 1),
    ("ibl_dropped", "ibl drops", "{:.0f}", 1),
    ("pool_dropped", "pool drops", "{:.0f}", 1),
    ("pool_used_mean", "pool mean", "{:.1f}", 1),
    ("pool_used_max", "pool max", "{:.0f}", 1),
]


def _columns(results):
    return GRAPH_COLUMNS if results["topology"]["kind"] == "graph" \
        else COLUMNS


def progress(res):
    """One line of a finished run's figures."""
    if "delivered_pps" in res:
        c = res["vc_cov"]
        return (f"{res['delivered_pps']:.1f} of {res['offered_pps']:.1f} "
                f"pkt/s delivered, VC CoV "
                f"{'–' if c is None else f'{c:.2f}'}")
    thr, u, j = res["throughput_bps"], res["utilization"], res["jain"]
    return (f"{'–' if thr is None else f'{thr / 1e6:.2f}'} Mbit/s, util "
            f"{'–' if u is None else f'{u:.2f}'}, Jain "
            f"{'–' if j is None else f'{j:.3f}'}")


def run_error(res):
    """Why a finished run counts as failed though it has figures (a flow
    whose traffic tool reported nothing), or None."""
    missing = res.get("flows_without_result")
    if missing:
        return (f"flow {', '.join(str(f) for f in missing)}: the traffic "
                "tool reported no result")
    return None


def summarize(reps):
    """Mean (and sample standard deviation) of each column over the
    repetitions of one arm.  A figure that some repetition lacks (None:
    undefined, like Jain's index of flows that delivered nothing, or
    never reached, like a convergence time) is missing from the summary
    too, with KEY_missing counting the repetitions without it: the mean
    of the others would hide it (issue 36)."""
    out = {}
    for key, *_ in COLUMNS + GRAPH_COLUMNS:
        vals = [r.get(key) for r in reps]
        have = [v for v in vals if v is not None]
        m = sd = None
        if have and len(have) == len(vals):
            m = M.mean(have)
            if len(have) > 1:
                sd = (sum((v - m) ** 2 for v in have) /
                      (len(have) - 1)) ** 0.5
        elif have:
            out[key + "_missing"] = len(vals) - len(have)
        out[key] = m
        out[key + "_sd"] = sd
    out["repetitions"] = len(reps)
    # where the queue and delay columns came from (metrics.with_packet_queue)
    src = {r.get("queue_from") for r in reps} - {None}
    if src:
        out["queue_from"] = src.pop() if len(src) == 1 else "mixed"
    return out


# the columns a trace of the bottleneck's packets gives (else the samples)
TRACED = ("queue_mean", "qdelay_p50_ms", "qdelay_p99_ms")


def _cell(summary, key, fmt, scale):
    v = summary.get(key)
    if v is None:
        return "–"
    s = fmt.format(v * scale)
    sd = summary.get(key + "_sd")
    if sd is not None:
        s += " ±" + fmt.format(sd * scale)
    return s


def table(results):
    """Markdown table: one row per arm (skipped arms say why)."""
    cols = _columns(results)
    hdr = ["arm"] + [h for _, h, _, _ in cols]
    lines = ["| " + " | ".join(hdr) + " |",
             "|" + "|".join("---" for _ in hdr) + "|"]
    for arm in results["arms"]:
        if arm.get("skipped"):
            lines.append(f"| {arm['name']} | skipped: {arm['skipped']} |" +
                         " |" * (len(hdr) - 2))
            continue
        if arm.get("error") and not arm.get("summary"):
            lines.append(f"| {arm['name']} | failed: {arm['error']} |" +
                         " |" * (len(hdr) - 2))
            continue
        s = arm["summary"]
        mark = "†" if s.get("queue_from") in ("samples", "mixed") else ""
        lines.append("| " + " | ".join(
            [arm["name"]] + [_cell(s, k, f, sc) + (mark if k in TRACED
                                                    else "")
                             for k, _, f, sc in cols])
            + " |")
    return "\n".join(lines)


def legend(results):
    t = results["topology"]
    if t["kind"] == "graph":
        v = results["vcs"]
        return (
            f"Scenario {results['scenario']}: {t['nodes']} nodes, "
            f"{len(t['links'])} duplex links of {t['rate'] / 1e3:g} kbit/s, "
            f"{len(t['routes'])} routes ({t['routes_per_pair']} per pair, "
            f"H = {t['mean_path_nodes']:.2f} nodes), {v['count']} virtual "
            f"channels of {v['lambda']:g} packets/s ({v['size']} bytes), "
            f"window {v['window']:g} x path links; {results['duration']:g} "
            f"s, measured after {results.get('warmup', 0):g} s, "
            f"{results['repetitions']} repetition(s).\n"
            "delivered: packets/s received by the sinks; offered: Poisson "
            "arrivals/s; window rej.: arrivals rejected at the source "
            "(window full); entry refused: sent but refused by the "
            "source's router (input limit or full pool, the send fails at "
            "once); lost in net: admitted packets not received (dropped "
            "by a transit router; window edges make it approximate); VC "
            "CoV: std/mean of the channels' delivered rates; delay: source "
            "to sink (mean, median, 95th and 99th percentiles); ibl/pool drops: all routers' counters; pool: "
            "buffers held per router (mean over routers, max).")
    return (
        f"Scenario {results['scenario']}: {t['kind']}, {t['hosts']} hosts, "
        f"{t['rate'] / 1e6:g} Mbit/s bottleneck, {t['delay'] * 1e3:g} ms "
        f"added RTT, buffer {t['buffer']} packets; {results['duration']:g} s, "
        f"{results['repetitions']} repetition(s).\n"
        "thr: sum of per-flow goodput (receiver); util: bottleneck busy "
        "fraction after warm-up; Jain: fairness while all flows are active; "
        "RTT: smoothed RTT samples (mean, 95th pct); queue: packets waiting "
        "in the bottleneck qdisc (time average; max of 100 ms samples); "
        "qdelay: each packet's wait in it (both from a trace of its "
        "packets; † from its 100 ms backlog samples where there was no "
        "trace); power: util / (RTT / base RTT); conv: seconds "
        "until Jain >= 0.95 (1 s window) after the last flow joined; "
        "cwnd CoV: per-flow cwnd std/mean while all flows are active; "
        "useful: new data delivered (all flows) / the data the link "
        "could carry in full-sized packets from the first start to the "
        "last stop; –: no figure (a repetition without it, e.g. Jain's "
        "index of flows that delivered nothing, which is undefined).")


def plots(results, outdir):
    """PNG plots of a finished results folder (experiment plot DIR):
    the headline picture, throughput against delay per arm
    (tput-delay.png); each arm's time series of its first repetition
    (timeseries.png: cwnd, queue and throughput; for a graph scenario
    delivered.png); a sweep's curves (sweep-PARAM.png).  Returns the
    files written."""
    outdir = Path(outdir)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ran = [a for a in results["arms"] if a.get("summary")]
    files = []
    f = tput_delay_plot(results, ran, outdir, plt)
    if f:
        files.append(f)
    if results["topology"]["kind"] == "graph":
        return files + _graph_plots(results, ran, outdir, plt)
    f = _timeseries_plot(results, outdir, plt)
    if f:
        files.append(f)
    param, curves = _sweep_curves(ran)
    if curves:
        fig, ax = plt.subplots(1, 2, figsize=(10, 4))
        _sweep_errorbars(ax, curves, ("norm_power", "utilization"))
        ax[0].set_ylabel("normalised power")
        ax[1].set_ylabel("utilisation")
        for axis in ax:
            axis.set_xlabel(param)
            axis.legend(fontsize="small")
        fig.suptitle(f"{results['scenario']}: sweep of {param} (mean ± sd "
                     f"of {results.get('repetitions', 1)} repetitions)")
        fig.tight_layout()
        f = outdir / f"sweep-{slug(param)}.png"
        fig.savefig(f, dpi=90)
        plt.close(fig)
        files.append(f)
    return files


def _nan(v, none=float("nan")):
    return none if v is None else v


# the headline picture: (throughput key, scale, its label, delay keys:
# median, 99th percentile, the delay's label)
TPUT_DELAY = {
    "dumbbell": ("throughput_bps", 1e-6, "throughput, Mbit/s",
                 "qdelay_p50_ms", "qdelay_p99_ms",
                 "queueing delay at the bottleneck, ms"),
    "graph": ("delivered_pps", 1, "delivered packets/s",
              "delay_p50_ms", "delay_p99_ms",
              "source-to-sink delay, ms"),
}


def tput_delay_points(results, ran):
    """The headline picture's points: per arm (name, delay median, delay
    99th percentile, throughput, its sd, [(median, throughput) of each
    repetition]), all scaled, from the summaries (means over the
    repetitions).  An arm without one of the figures is left out and
    named in the second list: it has no point, never one at 0."""
    tk, sc, _, d50, d99, _ = TPUT_DELAY.get(results["topology"]["kind"],
                                           TPUT_DELAY["dumbbell"])
    pts, missing = [], []
    for a in ran:
        s = a["summary"]
        if None in (s.get(tk), s.get(d50), s.get(d99)):
            missing.append(a["name"])
            continue
        reps = [(r[d50], r[tk] * sc) for r in a.get("runs") or []
                if r.get(d50) is not None and r.get(tk) is not None]
        sd = s.get(tk + "_sd")
        pts.append((a["name"], s[d50], s[d99], s[tk] * sc,
                    None if sd is None else sd * sc, reps))
    return pts, missing


def tput_delay_plot(results, ran, outdir, plt):
    """tput-delay.png: each arm's throughput against the delay its
    packets waited (marker: the mean over repetitions of the median
    delay and of the throughput; whisker to the right: the mean 99th
    percentile of the delay; vertical bar: ± sd of the throughput over
    the repetitions; small dots: each repetition).  None without a
    point."""
    pts, missing = tput_delay_points(results, ran)
    if not pts:
        return None
    _, _, ylab, _, _, xlab = TPUT_DELAY.get(results["topology"]["kind"],
                                            TPUT_DELAY["dumbbell"])
    fig, ax = plt.subplots(figsize=(8, 5))
    draw_tput_delay(ax, pts)
    ax.set_xlabel(xlab + " (median; whisker: 99th percentile)")
    ax.set_ylabel(ylab + " (mean ± sd)")
    reps = results.get("repetitions", 1)
    title = f"{results['scenario']}: throughput against delay, " \
        f"{reps} repetition{'s' if reps != 1 else ''}"
    if missing:
        title += f"\n(no point: {', '.join(missing)})"
    ax.set_title(title, fontsize="medium")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small", loc="best")
    fig.tight_layout()
    f = outdir / "tput-delay.png"
    fig.savefig(f, dpi=90)
    plt.close(fig)
    return f


def draw_tput_delay(ax, pts):
    """Draw tput_delay_points' points on AX (also hbh_paper_plot.py's):
    a marker per point at (median delay, throughput), a whisker to the
    right to the 99th percentile, ± sd vertically, each repetition a dot;
    throughput from 0, delay from 0 or on a log scale when it spans more
    than 30 times."""
    markers = "osD^v<>pPX*h"
    for i, (name, x50, x99, y, ysd, reps) in enumerate(pts):
        e = ax.errorbar([x50], [y], xerr=[[0], [max(0.0, x99 - x50)]],
                        yerr=None if ysd is None else [[ysd], [ysd]],
                        fmt=markers[i % len(markers)], ms=7, capsize=4,
                        label=name)
        if len(reps) > 1:
            ax.plot([r[0] for r in reps], [r[1] for r in reps], ".",
                    ms=4, alpha=0.6, color=e[0].get_color())
    xs = [p[1] for p in pts] + [p[2] for p in pts]
    if xs and min(xs) > 0 and max(xs) / min(xs) > 30:
        ax.set_xscale("log")
    else:
        ax.set_xlim(left=0)
    # from 0: a difference at the top is not magnified
    ax.set_ylim(0, ax.get_ylim()[1] * 1.08)


def _sweep_errorbars(ax, curves, keys):
    """A curve per scheme on each of AX for each of KEYS: mean ± sd."""
    for b, pts in curves.items():
        for axis, key in zip(ax, keys):
            axis.errorbar([x for x, _ in pts],
                          [_nan(sm.get(key)) for _, sm in pts],
                          yerr=[_nan(sm.get(key + "_sd"), 0)
                                for _, sm in pts],
                          fmt="o-", capsize=3, label=b)


def _timeseries_plot(results, outdir, plt):
    """timeseries.png: a row per arm (its first repetition): each flow's
    cwnd, the bottleneck's queue, each flow's throughput (0.5 s
    windows).  None if no arm has samples."""
    rows = []
    for arm in results["arms"]:
        d = outdir / slug(arm["name"]) / "rep1"
        if arm.get("runs") and (d / "samples.jsonl").exists():
            rows.append((arm["name"], [json.loads(x) for x in (
                d / "samples.jsonl").read_text().splitlines() if x]))
    if not rows:
        return None
    fig, axes = plt.subplots(len(rows), 3, figsize=(13, 2.3 * len(rows)),
                             sharex=True, squeeze=False)
    for ax, (name, samples) in zip(axes, rows):
        flows = sorted({s["flow"] for s in samples if "flow" in s})
        for fid in flows:
            fs = [s for s in samples if s.get("flow") == fid]
            ax[0].plot([s["t"] for s in fs],
                       [_nan(s.get("snd_cwnd")) for s in fs], lw=0.7)
            ser = [(s["t"], s["bytes_acked"]) for s in fs
                   if s.get("bytes_acked") is not None]
            rs = M.rate_series(ser, 0.5)
            ax[2].plot([t for t, _ in rs], [r * 8e-6 for _, r in rs],
                       lw=0.7)
        qs = [s for s in samples if "kind" in s]
        if qs:
            link = (qs[0]["router"], qs[0]["link"])
            q1 = [s for s in qs if (s["router"], s["link"]) == link]
            ax[1].plot([s["t"] for s in q1], [_nan(s.get("qlen"))
                                              for s in q1],
                       lw=0.7, color="k")
        ax[0].set_ylabel(name, fontsize="small")
    for ax, t in zip(axes[0], ("cwnd, packets (each flow)",
                               "bottleneck queue, packets",
                               "throughput, Mbit/s (each flow)")):
        ax.set_title(t, fontsize="medium")
    for ax in axes[-1]:
        ax.set_xlabel("time, s")
    fig.suptitle(f"{results['scenario']}: each arm's first repetition",
                 fontsize="medium")
    fig.tight_layout()
    f = outdir / "timeseries.png"
    fig.savefig(f, dpi=70)
    plt.close(fig)
    return f


def _sweep_curves(ran):
    """The swept parameter's name and one curve per arm of a sweep: {arm's
    name without its last word (the swept value): [(value, summary)...]
    by value}, in the arms' order; (None, {}) without a sweep."""
    swept = [a for a in ran if a.get("sweep")]
    if not swept:
        return None, {}
    param = next(iter(swept[0]["sweep"]))
    curves = {}
    for a in swept:
        curves.setdefault(a["name"].rsplit(" ", 1)[0], []).append(
            (float(a["sweep"][param]), a["summary"]))
    for pts in curves.values():
        pts.sort(key=lambda p: p[0])
    return param, curves


def _graph_plots(results, ran, outdir, plt):
    """Lam & Lien's figure: delivered throughput (and the channels' CoV)
    against the swept parameter (N_T), one curve per arm; delivered
    packets per second over time for each run."""
    files = []
    param, curves = _sweep_curves(ran)
    if curves:
        fig, ax = plt.subplots(1, 2, figsize=(10, 4))
        _sweep_errorbars(ax, curves, ("delivered_pps", "vc_cov"))
        ax[0].set_ylabel("delivered packets/s")
        ax[1].set_ylabel("per-channel CoV")
        for axis in ax:
            axis.set_xlabel(param)
            axis.set_xscale("log")
            axis.legend(fontsize="small")
        fig.suptitle(f"{results['scenario']}: throughput against {param} "
                     f"(mean ± sd of {results.get('repetitions', 1)} "
                     "repetitions)")
        fig.tight_layout()
        f = outdir / f"sweep-{slug(param)}.png"
        fig.savefig(f, dpi=90)
        plt.close(fig)
        files.append(f)
    if ran:
        fig, ax = plt.subplots(figsize=(8, 4))
        for a in ran:
            s = a["runs"][0].get("series") or []
            ax.plot([t for t, _ in s], [n for _, n in s], lw=0.8,
                    label=a["name"])
        ax.set_xlabel("time (s)")
        ax.set_ylabel("delivered packets/s")
        ax.legend(fontsize="x-small", ncol=2)
        fig.tight_layout()
        f = outdir / "delivered.png"
        fig.savefig(f, dpi=90)
        plt.close(fig)
        files.append(f)
    return files


def slug(name):
    """A run's or arm's name as a file name."""
    return re.sub(r"[^A-Za-z0-9_.=-]+", "_", name).strip("_")


def write(results, outdir):
    outdir = Path(outdir)
    with open(outdir / "results.json", "w", encoding="utf-8") as f:
        json.dump(results, f, indent=1)
    md = f"# {results['scenario']}\n\n{results.get('description', '')}\n\n" \
        + table(results) + "\n\n" + legend(results) + "\n"
    if results.get("paper"):
        md += "\n## The paper\n\n" + results["paper"].strip() + "\n"
    (outdir / "table.md").write_text(md, encoding="utf-8")


# a comparison published in docs/results has at least this many
# repetitions (tools/experiment page refuses fewer there)
PUBLISH_REPS = 3

# beside a page, the run's raw data: everything the run wrote but the
# plots, the packet traces of --trace (trace.txt, megabytes a run; the
# figures taken from them are in each repetition's metrics.json) and
# pages and archives made from it before (make demo's results/demo/page)
RAW_LEFT_OUT = ("*.png", "trace.txt", "*.tar.xz", "*.tar.xz.tmp", "*.md")
RAW_KEPT = ("table.md",)


def raw_archive(outdir, dest):
    """DEST (.tar.xz): the results folder's files (results.json, each
    repetition's samples, flow results and metrics) but RAW_LEFT_OUT.
    Returns (files archived, bytes of the archive, bytes of the packet
    traces left out)."""
    import fnmatch
    import tarfile
    outdir, dest = Path(outdir), Path(dest)
    files = sorted(p for p in outdir.rglob("*") if p.is_file() and (
        p.relative_to(outdir).as_posix() in RAW_KEPT or not any(
            fnmatch.fnmatch(p.name, pat) for pat in RAW_LEFT_OUT)))
    traces = sum(p.stat().st_size for p in outdir.rglob("trace.txt"))
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".tmp")
    with tarfile.open(tmp, "w:xz") as tar:
        for p in files:
            info = tar.gettarinfo(p, arcname=f"{dest.name[:-7]}/"
                                  f"{p.relative_to(outdir)}")
            # the same run gives the same archive: no owner, no times
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.mtime = 0
            with open(p, "rb") as fh:
                tar.addfile(info, fh)
    tmp.replace(dest)
    return len(files), dest.stat().st_size, traces


def _kib(n):
    return f"{n / 1024:.0f} KiB" if n < 10 << 20 else f"{n / 2**20:.0f} MiB"


def page(outdir, pagedir=None):
    """docs/results/<scenario>-<kernel>.md from a finished run's
    results.json (its provenance as the run recorded it, the plotting
    tools' versions added), with beside it its plots (experiment plot
    first) and its raw data (NAME.tar.xz).  Returns the path."""
    outdir = Path(outdir)
    results = json.loads((outdir / "results.json").read_text())
    prov = dict(results.get("meta") or {})
    prov.setdefault("command", f"tools/experiment run {results['scenario']}")
    prov.setdefault("kernel", results.get("kernel", "?"))
    prov.setdefault("machine", "not recorded")
    prov.setdefault("date", "not recorded")
    tools = dict(prov.get("tools") or {})
    try:
        import matplotlib
        tools["matplotlib (plots)"] = matplotlib.__version__
    except ImportError:
        pass
    if tools:
        prov["tools"] = tools
    name = f"{results['scenario']}-{pages.kernel_short(prov['kernel'])}"
    d = Path(pagedir) if pagedir else pages.RESULTS
    d.mkdir(parents=True, exist_ok=True)
    body = [results.get("description", "").strip(), table(results),
            legend(results)]
    reps = results.get("repetitions", 1)
    body.append(f"Cells are the mean ± sample standard deviation of "
                f"{reps} repetitions." if reps > 1 else
                "One repetition: no spread is known.")
    graph = results["topology"]["kind"] == "graph"
    # (file in the results folder, name beside the page, caption)
    figs = [("tput-delay.png", f"{name}.png",
             ("Throughput against delay, one point per arm: the marker is "
              "the mean over the repetitions of the delivered packets per "
              "second and of the median source-to-sink delay" if graph else
              "Throughput against queueing delay, one point per arm: the "
              "marker is the mean over the repetitions of the throughput "
              "(all flows' goodput) and of the median time a packet waited "
              "in the bottleneck's queue (every packet, from a trace of the "
              "queue; in the rows marked † the backlog's samples over the "
              "link's rate)")
             + "; the whisker to the right reaches the mean 99th "
             "percentile of that delay, the vertical bar is ± one standard "
             "deviation of the throughput over the repetitions, and the "
             "small dots are the single repetitions.  Up and to the left "
             "is better.")]
    if graph:
        figs.append(("delivered.png", f"{name}-series.png",
                     "Delivered packets per second over time, one line per "
                     "arm (its first repetition)."))
    else:
        figs.append(("timeseries.png", f"{name}-series.png",
                     "Each arm's first repetition over time (a row per "
                     "arm): every flow's congestion window, the bottleneck "
                     "queue's backlog (sampled every "
                     f"{results.get('sample_interval', 0.1) * 1e3:g} ms) "
                     "and every flow's goodput over 0.5 s windows."))
    param, _ = _sweep_curves([a for a in results["arms"]
                              if a.get("summary")])
    if param:
        figs.append((f"sweep-{slug(param)}.png", f"{name}-sweep.png",
                     f"The figures against the swept {param}, a curve "
                     "per scheme: mean ± one standard deviation over the "
                     "repetitions."))
    for src, dst, caption in figs:
        if (outdir / src).exists():
            shutil.copyfile(outdir / src, d / dst)
            body.append(f"![{caption.split(':')[0]}]({dst})\n\n"
                        f"*{caption}*")
    n, size, traces = raw_archive(outdir, d / f"{name}.tar.xz")
    body.append(f"Raw data: [{name}.tar.xz]({name}.tar.xz) ({_kib(size)}, "
                f"{n} files): `results.json` (every repetition's figures "
                "and flows, the sysctls, offloads, module parameters and "
                "each namespace's qdiscs with their statistics before and "
                "after each run, the scenario file, the tools' versions) "
                "and each repetition's samples (`samples.jsonl`: every "
                "flow's tcp_info and the qdiscs' counters at 100 ms) and "
                "traffic tools' reports."
                + (f"  Left out: the packet traces of `--trace` "
                   f"(`trace.txt`, {_kib(traces)} in all); the figures "
                   "taken from them are in each repetition's "
                   "`metrics.json`." if traces else ""))
    if results.get("paper"):
        body.append("## The paper\n\n" + results["paper"].strip())
    return pages.write(name, f"{results['scenario']} on "
                       f"{pages.kernel_short(prov['kernel'])}",
                       "\n\n".join(b for b in body if b), prov, pagedir)
