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
    ("delay_p95_ms", "p95 ms", "{:.0f}", 1),
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
            "to sink; ibl/pool drops: all routers' counters; pool: "
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
    """PNG plots: per arm cwnd / queue / throughput over time (first
    repetition), and a comparison bar chart.  Returns the files written.
    Works on a finished results folder (experiment plot DIR)."""
    outdir = Path(outdir)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    files = []
    if results["topology"]["kind"] == "graph":
        ran = [a for a in results["arms"] if a.get("summary")]
        return _graph_plots(results, ran, outdir, plt)
    for arm in results["arms"]:
        d = outdir / slug(arm["name"]) / "rep1"
        if not arm.get("runs") or not (d / "samples.jsonl").exists():
            continue
        samples = [json.loads(x) for x in
                   (d / "samples.jsonl").read_text().splitlines()]
        fig, ax = plt.subplots(3, 1, figsize=(8, 8), sharex=True)
        flows = sorted({s["flow"] for s in samples if "flow" in s})
        for fid in flows:
            fs = [s for s in samples if s.get("flow") == fid]
            ax[0].plot([s["t"] for s in fs], [s.get("snd_cwnd") for s in fs],
                       label=f"flow {fid}", lw=0.8)
            ser = [(s["t"], s["bytes_acked"]) for s in fs
                   if s.get("bytes_acked") is not None]
            rs = M.rate_series(ser, 0.5)
            ax[2].plot([t for t, _ in rs], [r * 8e-6 for _, r in rs],
                       label=f"flow {fid}", lw=0.8)
        qs = [s for s in samples if "kind" in s]
        if qs:
            link = (qs[0]["router"], qs[0]["link"])
            q1 = [s for s in qs if (s["router"], s["link"]) == link]
            ax[1].plot([s["t"] for s in q1], [s.get("qlen") for s in q1],
                       lw=0.8, color="k")
        ax[0].set_ylabel("cwnd (packets)")
        ax[1].set_ylabel("queue (packets)")
        ax[2].set_ylabel("throughput (Mbit/s)")
        ax[2].set_xlabel("time (s)")
        if flows:
            ax[0].legend(loc="upper right", fontsize="small")
        ax[0].set_title(f"{results['scenario']}: {arm['name']}")
        fig.tight_layout()
        f = outdir / f"arm-{slug(arm['name'])}.png"
        fig.savefig(f, dpi=90)
        plt.close(fig)
        files.append(f)

    ran = [a for a in results["arms"] if a.get("summary")]
    if ran:
        keys = [("utilization", "utilisation"), ("jain", "Jain index"),
                ("norm_power", "normalised power")]
        fig, ax = plt.subplots(1, len(keys), figsize=(4 * len(keys), 4))
        names = [a["name"] for a in ran]
        for axis, (k, label) in zip(ax, keys):
            vals = bar_values(ran, k)
            axis.bar(range(len(ran)),
                     [float("nan") if v is None else v for v in vals],
                     color="tab:blue")
            # a missing figure gets no bar (a bar of 0 would be a figure)
            for i, v in enumerate(vals):
                if v is None:
                    axis.text(i, 0, "n/a", ha="center", va="bottom",
                              fontsize="small", color="tab:red")
            axis.set_xticks(range(len(ran)), names, rotation=45, ha="right",
                            fontsize="small")
            axis.set_title(label)
        fig.tight_layout()
        f = outdir / "comparison.png"
        fig.savefig(f, dpi=90)
        plt.close(fig)
        files.append(f)
    param, curves = _sweep_curves(ran)
    if curves:
        fig, ax = plt.subplots(1, 2, figsize=(10, 4))
        for b, pts in curves.items():
            for axis, key in zip(ax, ("norm_power", "utilization")):
                axis.plot([x for x, _ in pts],
                          [sm.get(key) for _, sm in pts], "o-", label=b)
        ax[0].set_ylabel("normalised power")
        ax[1].set_ylabel("utilisation")
        for axis in ax:
            axis.set_xlabel(param)
            axis.legend(fontsize="small")
        fig.suptitle(f"{results['scenario']}: sweep of {param}")
        fig.tight_layout()
        f = outdir / f"sweep-{slug(param)}.png"
        fig.savefig(f, dpi=90)
        plt.close(fig)
        files.append(f)
    return files


def bar_values(ran, key):
    """KEY of each arm's summary for the comparison bars, None where the
    figure is missing (drawn as no bar, never as 0)."""
    return [a["summary"].get(key) for a in ran]


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
        for b, pts in curves.items():
            ax[0].plot([x for x, _ in pts],
                       [sm.get("delivered_pps") for _, sm in pts], "o-",
                       label=b)
            ax[1].plot([x for x, _ in pts], [sm.get("vc_cov") for _, sm in
                                             pts], "o-", label=b)
        ax[0].set_ylabel("delivered packets/s")
        ax[1].set_ylabel("per-channel CoV")
        for axis in ax:
            axis.set_xlabel(param)
            axis.set_xscale("log")
            axis.legend(fontsize="small")
        fig.suptitle(f"{results['scenario']}: throughput against {param}")
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


def page(outdir, pagedir=None):
    """docs/results/<scenario>-<kernel>.md from a finished run's
    results.json (its provenance as the run recorded it), with the
    comparison plot beside it when there is one.  Returns the path."""
    outdir = Path(outdir)
    results = json.loads((outdir / "results.json").read_text())
    prov = dict(results.get("meta") or {})
    prov.setdefault("command", f"tools/experiment run {results['scenario']}")
    prov.setdefault("kernel", results.get("kernel", "?"))
    prov.setdefault("machine", "not recorded")
    prov.setdefault("date", "not recorded")
    name = f"{results['scenario']}-{pages.kernel_short(prov['kernel'])}"
    body = [results.get("description", "").strip(), table(results),
            legend(results)]
    reps = results.get("repetitions", 1)
    if reps > 1:
        body.append(f"Cells are the mean ± sample standard deviation of "
                    f"{reps} repetitions.")
    img = outdir / "comparison.png"
    if img.exists():
        d = Path(pagedir) if pagedir else pages.RESULTS
        d.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(img, d / f"{name}.png")
        body.append(f"![throughput, delay and queue of every arm]({name}.png)")
    body.append(f"Everything the run recorded (every flow, the sysctls, "
                f"offloads, module parameters and each namespace's qdiscs "
                f"with their statistics before and after each run, the "
                f"scenario file): `results/{outdir.name}/results.json` on "
                f"the machine that ran it.")
    if results.get("paper"):
        body.append("## The paper\n\n" + results["paper"].strip())
    return pages.write(name, f"{results['scenario']} on "
                       f"{pages.kernel_short(prov['kernel'])}",
                       "\n\n".join(b for b in body if b), prov, pagedir)
