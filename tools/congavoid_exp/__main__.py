# SPDX-License-Identifier: GPL-2.0
"""experiment: run congestion-avoidance scenarios in network namespaces.

  experiment run SCENARIO.toml [--out DIR] [--arms A,B] [--reps N]
                 [--no-plots]
  experiment plot DIR        (plots of a finished run)
  experiment page DIR [--to PAGEDIR]
                             (its results page, NAME-KERNEL.md, in PAGEDIR,
                             default docs/results: publishing is this
                             command, never a side effect of a run)
  experiment flent RUNDIR [-o FILE]
                             (one arm's run as a Flent data file, test
                             tcp_nup: flent -i FILE -p upload)
  experiment validate SCENARIO.toml...
  experiment list
  experiment demo            (= run tools/scenarios/demo.toml)

Needs root and a kernel with the modules loadable (run it in the VM:
tools/vm 6.12 -- tools/experiment run ...)."""

import argparse
import json
import os
import shutil
import sys
import time
import traceback
from pathlib import Path

from . import meta, pages, report, runner
from .host import TOP, Skip
from .scenario import ScenarioError, Scenario

SCEN_DIR = TOP / "tools" / "scenarios"


def find(name):
    p = Path(name)
    if p.exists():
        return p
    q = SCEN_DIR / (name if name.endswith(".toml") else name + ".toml")
    if q.exists():
        return q
    raise FileNotFoundError(f"no scenario {name} (looked in {SCEN_DIR})")


def run(path, out=None, arms=None, reps=None, no_plots=False, trace=None):
    sc = Scenario(path)
    if reps:
        sc.repetitions = reps
    if trace and sum(trace) > sc.duration:
        print(f"{path}: the trace window ends after the run "
              f"({sc.duration:g} s)", file=sys.stderr)
        return 2
    todo = sc.arms
    if arms:
        want = arms.split(",")
        todo = [a for a in sc.arms if a["name"] in want or a["base"] in want]
        if not todo:
            print(f"{path}: no arm named {arms}", file=sys.stderr)
            return 2
    outdir = Path(out) if out else TOP / "results" / sc.name
    if outdir.exists():
        shutil.rmtree(outdir)
    outdir.mkdir(parents=True)
    results = {"scenario": sc.name, "description": sc.description,
               "paper": sc.paper, "file": str(path),
               "kernel": os.uname().release, "topology": sc.topology,
               "duration": sc.duration, "repetitions": sc.repetitions,
               "warmup": sc.warmup, "sample_interval": sc.sample_interval,
               "flows": sc.flows,
               "meta": meta.system(pages.command(["tools/experiment"]
                                                 + sys.argv[1:]), path),
               "arms": []}
    if sc.topology["kind"] == "graph":
        results["vcs"] = {k: v for k, v in sc.vcs.items() if k != "list"}
        results["vcs"]["count"] = len(sc.vcs["list"])
    t_start = time.monotonic()
    n = len(todo)
    for i, arm in enumerate(todo, 1):
        entry = {"name": arm["name"], "cc": arm["cc"], "qdisc": arm["qdisc"],
                 "qdisc_opts": arm["qdisc_opts"], "sweep": arm["sweep"],
                 "runs": []}
        results["arms"].append(entry)
        for rep in range(1, sc.repetitions + 1):
            tag = f"[{i}/{n} {arm['name']} rep {rep}/{sc.repetitions}]"
            print(f"{tag} running ({sc.duration:g} s) ...", flush=True)
            t = time.monotonic()
            d = outdir / report.slug(arm["name"]) / f"rep{rep}"
            try:
                res = runner.run_once(sc, arm, rep, d,
                                      lambda m: print(f"{tag} {m}"), trace)
            except Skip as e:
                entry["skipped"] = str(e)
                print(f"{tag} SKIPPED: {e}", flush=True)
                break
            except Exception as e:     # keep going with the other arms
                entry["error"] = f"{type(e).__name__}: {e}"
                print(f"{tag} FAILED: {entry['error']}", flush=True)
                traceback.print_exc()
                continue
            entry["runs"].append(res)
            print(f"{tag} done in {time.monotonic() - t:.0f} s "
                  f"(elapsed {time.monotonic() - t_start:.0f} s): "
                  f"{report.progress(res)}", flush=True)
            # figures with a flow missing: kept, but the run failed
            err = report.run_error(res)
            if err:
                entry["error"] = f"rep {rep}: {err}"
                print(f"{tag} FAILED: {err}", flush=True)
        if entry["runs"]:
            entry["summary"] = report.summarize(entry["runs"])
    report.write(results, outdir)
    files = [] if no_plots else report.plots(results, outdir)
    print()
    print(report.table(results))
    print()
    print(report.legend(results))
    print(f"\nresults: {outdir}/results.json, table: {outdir}/table.md")
    if files:
        print("plots:   " + ", ".join(str(f) for f in files))
    elif no_plots:
        print(f"plots:   tools/experiment plot {outdir}")
    ran = sum(1 for a in results["arms"] if a.get("runs"))
    failed = sum(1 for a in results["arms"] if a.get("error"))
    return 1 if failed or not ran else 0


def _window(text):
    try:
        start, secs = (float(x) for x in text.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not START:SECS")
    if start < 0 or secs <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: START >= 0, SECS > 0")
    return start, secs


def main(argv=None):
    ap = argparse.ArgumentParser(prog="experiment", description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run a scenario")
    r.add_argument("scenario")
    r.add_argument("--out", help="output folder (default results/NAME)")
    r.add_argument("--arms", help="comma-separated arm names to run")
    r.add_argument("--reps", type=int, help="override repetitions")
    r.add_argument("--no-plots", action="store_true",
                   help="skip the plots (make them later with 'plot')")
    r.add_argument("--trace", metavar="START:SECS", type=_window,
                   help="trace the bottleneck's packets from START for SECS "
                        "seconds of each run\nand break its time down "
                        "(sending, idle with a queue, idle empty)")
    pl = sub.add_parser("plot", help="plot a finished run")
    pl.add_argument("dir")
    pg = sub.add_parser("page", help="write a finished run's results page")
    pg.add_argument("dir")
    pg.add_argument("--to", help="where the page goes (default docs/results)")
    fl = sub.add_parser("flent", help="export one arm's run for Flent")
    fl.add_argument("dir", help="the run's directory (its samples.jsonl)")
    fl.add_argument("-o", "--out", help="the file (default DIR/<name>.flent.gz)")
    v = sub.add_parser("validate", help="check scenario files")
    v.add_argument("scenario", nargs="+")
    sub.add_parser("list", help="list the scenarios in tools/scenarios")
    sub.add_parser("demo", help="run the demo comparison")
    a = ap.parse_args(argv)
    try:
        if a.cmd == "validate":
            rc = 0
            for s in a.scenario:
                try:
                    sc = Scenario(find(s))
                    traffic = f"{len(sc.vcs['list'])} virtual channels" \
                        if sc.topology["kind"] == "graph" else \
                        f"{len(sc.flows)} flows"
                    print(f"{s}: ok ({len(sc.arms)} arms, {traffic}, "
                          f"{sc.duration:g} s x {sc.repetitions})")
                except ScenarioError as e:
                    print(e, file=sys.stderr)
                    rc = 1
            return rc
        if a.cmd == "list":
            for p in sorted(SCEN_DIR.glob("*.toml")):
                try:
                    sc = Scenario(p)
                    print(f"{p.stem:20s} {sc.description.splitlines()[0]}"
                          if sc.description else p.stem)
                except ScenarioError as e:
                    print(f"{p.stem:20s} INVALID: {e}")
            return 0
        if a.cmd == "plot":
            d = Path(a.dir)
            res = json.loads((d / "results.json").read_text())
            for f in report.plots(res, d):
                print(f)
            return 0
        if a.cmd == "flent":
            from . import flent
            print(flent.export(Path(a.dir), a.out))
            return 0
        if a.cmd == "page":
            reps = json.loads((Path(a.dir) / "results.json").read_text()) \
                .get("repetitions", 1)
            if a.to is None and reps < report.PUBLISH_REPS:
                print(f"experiment: {a.dir} has {reps} repetition(s); a "
                      f"page in docs/results needs {report.PUBLISH_REPS} "
                      "or more (--to DIR writes it elsewhere)",
                      file=sys.stderr)
                return 2
            print(report.page(Path(a.dir), a.to))
            return 0
        if os.geteuid() != 0:
            print("experiment: needs root (network namespaces, modules)",
                  file=sys.stderr)
            return 2
        if a.cmd == "demo":
            return run(SCEN_DIR / "demo.toml", no_plots=True)
        return run(find(a.scenario), a.out, a.arms, a.reps, a.no_plots,
                   a.trace)
    except ScenarioError as e:
        print(e, file=sys.stderr)
        return 2
    except FileNotFoundError as e:
        print(f"experiment: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
