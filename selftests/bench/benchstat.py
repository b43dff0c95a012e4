#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Statistics, JSON and results page of a packets-per-second benchmark
(decbit_pps.sh, nic_pps.sh, pool_pps.sh), and the page of any other
benchmark (hbh_paper.sh).

  benchstat.py pps NAME TITLE JSON [--append] [--load TEXT] [--meta K=V]...
               [--ratio LABEL=A/B]... [--unit HEADER]
                                             < "ARM pps1 pps2 ..." lines
  benchstat.py page NAME TITLE BODY.md [--raw FILE]... [--figure PNG=CAPTION]...
  benchstat.py plot JSON PNG        (run by pps with the venv's Python)

Each arm's line holds its packets per second, one per round; the arms of
one round ran in the same boot, one after another, so each round gives
its own ratio A/B and a drift of the host's speed cancels out.  A ratio
is reported as the median of the per-round ratios with the interquartile
range, and as mean ± sample standard deviation.  The figures need not be
packets per second (cc_speed.sh: Mbit/s and CPU ms per GB): --unit names
the column of medians.  --append adds the rounds
to those already in JSON (a series taken over several boots).  The page
goes to docs/results/NAME-KERNEL.md; the command it names is BENCH_CMD
from the environment (the script and its arguments)."""

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from congavoid_exp import pages  # noqa: E402


def ratio(a, b):
    """Per-round ratios a[i]/b[i]: median, interquartile range, mean, sd."""
    r = sorted(x / y for x, y in zip(a, b) if y > 0)
    if not r:
        return None
    # (inclusive: between the rounds measured, as the plot's boxes)
    q = statistics.quantiles(r, n=4, method="inclusive") if len(r) > 1 \
        else [r[0]] * 3
    m, sd = pages.mean_sd(r)
    return {"median": round(statistics.median(r), 3),
            "iqr": [round(q[0], 3), round(q[2], 3)],
            "mean": round(m, 4), "sd": round(sd, 4) if sd is not None
            else None, "rounds": len(r)}


def fmt_ratio(x):
    if x is None:
        return "–"
    sd = f" ± {x['sd']:.3f}" if x["sd"] is not None else ""
    return (f"{x['median']:.3f} ({x['iqr'][0]:.3f}–{x['iqr'][1]:.3f}); "
            f"mean {x['mean']:.3f}{sd}")


def read_arms(text):
    pps = {}
    for line in text.splitlines():
        if line.strip():
            name, *v = line.split()
            pps.setdefault(name, []).extend(int(x) for x in v)
    return pps


def command():
    """BENCH_CMD: the benchmark's command line, shell-quoted."""
    return pages.command(shlex.split(os.environ.get("BENCH_CMD", "")) or None)


def pps_main(a):
    pps = read_arms(sys.stdin.read())
    if not pps or min(len(v) for v in pps.values()) == 0:
        sys.exit("benchstat: no rounds")
    boots = 1
    path = Path(a.json)
    if a.append and path.exists():
        old = json.loads(path.read_text())
        for k, v in old.get("pps", {}).items():
            pps[k] = v + pps.get(k, [])
        boots = old.get("boots", 1) + 1
    specs = []
    for s in a.ratio:
        label, _, expr = s.partition("=")
        num, _, den = expr.partition("/")
        if num not in pps or den not in pps:
            sys.exit(f"benchstat: {s}: no arm {num if num not in pps else den}")
        specs.append((label, num, den))
    res = {**pages.provenance(command()), "load": a.load, "boots": boots,
           "rounds": min(len(v) for v in pps.values()),
           **dict(kv.split("=", 1) for kv in a.meta),
           "pps": pps,
           "median_pps": {k: statistics.median(v) for k, v in pps.items()},
           "ratios": {label: ratio(pps[n], pps[d]) for label, n, d in specs},
           "ratio_arms": {label: [n, d] for label, n, d in specs},
           "unit": a.unit}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(res, indent=1) + "\n")

    rows = [f"| arm | {a.unit} | mean ± sd | rounds |", "|---|---|---|---|"]
    for k, v in pps.items():
        m, sd = pages.mean_sd(v)
        rows.append(f"| {k} | {res['median_pps'][k]:.0f} | {m:.0f}"
                    f"{'' if sd is None else f' ± {sd:.0f}'} | {len(v)} |")
    rows += ["", "| ratio | median (interquartile range); mean ± sd |",
             "|---|---|"]
    rows += [f"| {label} | {fmt_ratio(res['ratios'][label])} |"
             for label, _, _ in specs]
    table = "\n".join(rows)
    print(table)
    name = f"{a.name}-{pages.kernel_short(res['kernel'])}"
    raw = raw_beside(path, name)
    fig = plot_beside(path, name)
    body = (f"Load: {a.load}.  {res['rounds']} rounds"
            f"{f' over {boots} boots' if boots > 1 else ''}; the arms of a "
            "round run one after another in the same boot, in an order that "
            "rotates every round.  A ratio is taken per round, then "
            "summarised.\n\n" + table + "\n\n"
            + "".join(f"- {k}: {v}\n" for k, v in
                      (kv.split("=", 1) for kv in a.meta))
            + f"\n{fig}\n\nRaw data: {raw}: every round's figure of every "
            "arm, in the order they ran, with the tools' versions.")
    page = pages.write(name, a.title, body, res)
    print(f"page: {page}")


def raw_beside(path, name, outdir=None):
    """Copy the raw data PATH beside the page NAME (docs/results/NAME.EXT,
    EXT its last suffix) and return the link to it with its size."""
    d = Path(outdir) if outdir else pages.RESULTS
    d.mkdir(parents=True, exist_ok=True)
    dest = d / (name + Path(path).suffix)
    shutil.copyfile(path, dest)
    return f"[{dest.name}]({dest.name}) ({dest.stat().st_size / 1024:.0f} KiB)"


def plot_beside(path, name, outdir=None):
    """NAME.png beside the page, drawn from the JSON at PATH by the
    project's venv Python (matplotlib; Debian's python3 in the guest has
    none).  Returns the figure's markdown with its caption, or a sentence
    saying why there is none."""
    d = Path(outdir) if outdir else pages.RESULTS
    png = d / f"{name}.png"
    py = pages.TOP / ".venv" / "bin" / "python"
    try:
        r = subprocess.run([str(py), __file__, "plot", str(path), str(png)],
                           capture_output=True, text=True, timeout=900)
        err = r.stderr.strip().splitlines()[-1:] if r.returncode else None
    except (OSError, subprocess.TimeoutExpired) as e:
        err = [str(e)]
    if err is not None:
        return f"No plot: {err[0] if err else 'the plot failed'}."
    caption = ("Left: each arm's figure in every round (box: median and "
               "interquartile range; whiskers: the farthest round within "
               "1.5 IQR; dots: the rounds).  Right: each ratio, taken per "
               "round, the same way; the line marks 1.  A benchmark of cost "
               "at saturation (a sender that never waits) has no queueing "
               "delay to plot the rates against: the spread over rounds is "
               "its picture.")
    return f"![{caption.split('.')[0]}]({png.name})\n\n*{caption}*"


def plot_main(a):
    """plot JSON PNG: the figure plot_beside puts beside the page."""
    res = json.loads(Path(a.json).read_text())
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    arms = list(res["pps"])
    specs = res.get("ratio_arms", {})
    fig, ax = plt.subplots(1, 2, figsize=(12, 4.5),
                           gridspec_kw={"width_ratios": [max(len(arms), 1),
                                                         max(len(specs), 1)]})
    ax[0].boxplot([res["pps"][k] for k in arms])
    ax[0].set_xticks(range(1, len(arms) + 1), arms)
    for i, k in enumerate(arms, 1):
        ax[0].plot([i] * len(res["pps"][k]), res["pps"][k], ".", ms=4,
                   alpha=0.6)
    ax[0].set_ylabel(res.get("unit", "median pps").replace("median ", ""))
    ax[0].set_ylim(0, ax[0].get_ylim()[1] * 1.05)
    ax[0].set_title("each arm, every round", fontsize="medium")
    ratios = {lab: [x / y for x, y in zip(res["pps"][n], res["pps"][d])
                    if y > 0] for lab, (n, d) in specs.items()}
    if ratios:
        ax[1].boxplot(list(ratios.values()))
        ax[1].set_xticks(range(1, len(ratios) + 1), list(ratios))
        for i, v in enumerate(ratios.values(), 1):
            ax[1].plot([i] * len(v), v, ".", ms=4, alpha=0.6)
        ax[1].axhline(1.0, color="k", lw=0.6)
    ax[1].set_title("ratios, per round", fontsize="medium")
    for axis in ax:
        axis.tick_params(axis="x", labelrotation=30, labelsize="small")
    fig.suptitle(f"{Path(a.json).stem}: {res['rounds']} rounds",
                 fontsize="medium")
    fig.tight_layout()
    fig.savefig(a.png, dpi=80)


def page_main(a):
    prov = pages.provenance(command())
    body = Path(a.body).read_text(encoding="utf-8")
    if body.startswith("# "):       # the page has its own title
        body = body.partition("\n")[2]
    name = f"{a.name}-{pages.kernel_short(prov['kernel'])}"
    for f in a.raw:
        body = body.rstrip() + f"\n\nRaw data: {raw_beside(f, name)}.\n"
    pages.RESULTS.mkdir(parents=True, exist_ok=True)
    for i, f in enumerate(a.figure):
        src, _, caption = f.partition("=")
        dest = f"{name}{f'-{i + 1}' if i else ''}{Path(src).suffix}"
        shutil.copyfile(src, pages.RESULTS / dest)
        body = body.rstrip() + f"\n\n![{caption}]({dest})\n\n*{caption}*\n"
    page = pages.write(name, a.title, body, prov)
    print(f"page: {page}")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pps")
    p.add_argument("name")
    p.add_argument("title")
    p.add_argument("json")
    p.add_argument("--append", action="store_true")
    p.add_argument("--load", default="")
    p.add_argument("--meta", action="append", default=[])
    p.add_argument("--ratio", action="append", default=[])
    p.add_argument("--unit", default="median pps")
    g = sub.add_parser("page")
    g.add_argument("name")
    g.add_argument("title")
    g.add_argument("body")
    g.add_argument("--raw", action="append", default=[],
                   help="a file of raw data to put beside the page")
    g.add_argument("--figure", action="append", default=[],
                   metavar="PNG=CAPTION", help="a plot to put beside it")
    pl = sub.add_parser("plot")
    pl.add_argument("json")
    pl.add_argument("png")
    a = ap.parse_args()
    {"pps": pps_main, "page": page_main, "plot": plot_main}[a.cmd](a)


if __name__ == "__main__":
    main()
