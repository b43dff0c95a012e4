# SPDX-License-Identifier: GPL-2.0
"""Runs one repetition of one arm: builds the test bed (testbed.py),
loads what the arm needs (host.py), starts the traffic, samples
(samplers.py), tears everything down, and computes the figures
(metrics.py) with what the run needs to be reproduced (meta.py)."""

import json
import subprocess
import sys
import time

from . import graph, meta, metrics, tracing
from .host import ensure_cc, ensure_qdisc, pyenv, set_module_params, sh, \
    tc_env
from .samplers import PoolProbe, QdiscProbe, Sampler, TcpProbe
from .scenario import SELF_SHAPING
from .testbed import GraphTestbed, Testbed

IPERF_BASE, CPORT_BASE, UDP_BASE = 5200, 40000, 6000
# graph scenarios: the virtual channels' port
PORT = 7000


def _wait_listen(ns, port, proto="t", timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        out = sh("ss", f"-Hln{proto}", f"sport = :{port}", ns=ns,
                 capture=True, check=False)
        if out and out.strip():
            return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port} in {ns}")


def run_once(sc, arm, rep, outdir, log, trace=None):
    """One repetition of one arm; returns its metrics dict (raises Skip).
    TRACE (start, seconds): trace the bottleneck's packets over that
    window of the run (tracing.py) and add its breakdown."""
    if sc.topology["kind"] == "graph":
        return _run_graph(sc, arm, rep, outdir, log)
    ccs = {f["cc"] or arm["cc"] for f in sc.flows if f["kind"] == "tcp"}
    for cc in ccs | {arm["receiver_cc"]}:
        ensure_cc(cc)
    ensure_qdisc(arm["qdisc"])
    if arm["host_qdisc"]:
        ensure_qdisc(arm["host_qdisc"].split()[0])
    if sc.topology["delay"] > 0:
        ensure_qdisc("netem")
    if arm["qdisc"] not in SELF_SHAPING:
        ensure_qdisc("htb")
    old_params = set_module_params(arm["cc"], arm["module_params"])
    outdir.mkdir(parents=True, exist_ok=True)
    bed = Testbed(sc.topology, arm, log)
    procs = []
    t_build = time.monotonic()
    record = {"module_params": meta.module_params()}
    tracer = qtracer = None
    try:
        bed.build()
        # each packet's wait at the bottleneck, over the whole run: the
        # device's name must be the only one of its kind in the test bed
        # (a chain has an up0 in every router but the last)
        if len(bed.bottlenecks) == 1 and \
                (tracing.TRACEFS / "instances").is_dir():
            qtracer = tracing.Tracer(bed.bottlenecks[0][1],
                                     name="congavoid-q",
                                     extra=(tracing.DROP_EVENT,))
        if trace:
            if len(bed.bottlenecks) != 1:
                raise RuntimeError("--trace needs one bottleneck link")
            tracer = tracing.Tracer(bed.bottlenecks[0][1],
                                    outdir / "trace.txt")
        d = bed.dst
        log(f"testbed built in {time.monotonic() - t_build:.1f} s")
        t_rec = time.monotonic()
        record["before"] = meta.testbed(bed.ns, bed.prefix, tc_env())
        log(f"testbed recorded in {time.monotonic() - t_rec:.1f} s")
        t_rec = time.monotonic()
        for f in sc.flows:
            if f["kind"] == "tcp":
                port = IPERF_BASE + f["id"]
                procs.append(subprocess.Popen(
                    ["ip", "netns", "exec", d, "iperf3", "-s", "-1", "-p",
                     str(port)], stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL))
        for f in sc.flows:
            if f["kind"] == "tcp":
                _wait_listen(d, IPERF_BASE + f["id"])
        log(f"servers listening in {time.monotonic() - t_rec:.1f} s")
        t0 = time.monotonic() + 0.5
        (outdir / "t0").write_text(f"{t0:.6f}\n")
        for f in sc.flows:
            if f["kind"] != "tcp":
                port = UDP_BASE + f["id"]
                procs.append(subprocess.Popen(
                    ["ip", "netns", "exec", d, sys.executable, "-m",
                     "congavoid_exp.gen", "sink", str(port),
                     f"{t0 + f['stop'] + 1.0:.3f}",
                     str(outdir / f"sink-{f['id']}.json")],
                    env=pyenv()))
        for f in sc.flows:
            if f["kind"] != "tcp":
                _wait_listen(d, UDP_BASE + f["id"], "u")
        tcp = [f for f in sc.flows if f["kind"] == "tcp"]
        sampler = Sampler(
            [TcpProbe([bed.hosts[f["src"] - 1] for f in tcp],
                      {CPORT_BASE + f["id"]: f["id"] for f in tcp}),
             QdiscProbe(bed.bottlenecks)], sc.sample_interval, t0)
        starts = sorted(sc.flows, key=lambda f: f["start"])
        clients = {}
        if qtracer:
            try:
                qtracer.start()
            except OSError as e:
                log(f"no packet trace ({e}): queue and delay from the "
                    "100 ms samples")
                qtracer.remove()
                qtracer = None
        time.sleep(max(0.0, t0 - time.monotonic()))
        try:
            sampler.start()
            timeline = [(f["start"], 0, f) for f in starts] + \
                [(e["at"], 1, e) for e in sc.events]
            if tracer:
                timeline += [(trace[0], 2, tracer.start),
                             (trace[0] + trace[1], 2, tracer.stop)]
            for at, is_event, x in sorted(timeline, key=lambda y: y[:2]):
                time.sleep(max(0.0, t0 + at - time.monotonic()))
                if is_event == 2:
                    x()
                    log(f"{at:g}s: trace {x.__name__}")
                elif is_event:
                    bed.set_rate(x["rate"])
                    log(f"{at:g}s: bottleneck rate {x['rate'] / 1e6:g} Mbit/s")
                else:
                    clients[x["id"]] = _start_flow(bed, arm, x, outdir)
            time.sleep(max(0.0, t0 + sc.duration - time.monotonic()))
            for fid, p in clients.items():
                try:
                    p.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    p.kill()
                    log(f"flow {fid} did not end; killed")
        finally:
            try:
                sampler.stop()
            finally:
                try:
                    if tracer and tracer.inst.exists():
                        tracer.stop()
                finally:
                    if qtracer and qtracer.inst.exists():
                        qtracer.stop()
        for p in procs:
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
        log(f"flows and samplers ended "
            f"{time.monotonic() - t0 - sc.duration:.1f} s after the run's time")
        with open(outdir / "samples.jsonl", "w", encoding="utf-8") as fh:
            for s in sampler.samples:
                fh.write(json.dumps(s) + "\n")
        record["after"] = meta.testbed(bed.ns, bed.prefix, tc_env(),
                                         full=False)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
        t_down = time.monotonic()
        bed.destroy()
        log(f"testbed torn down in {time.monotonic() - t_down:.1f} s")
        if old_params:
            set_module_params(arm["cc"], old_params)
    t_post = time.monotonic()
    results = {f["id"]: _flow_result(f, outdir) for f in sc.flows}
    res = metrics.dumbbell(sc, arm, sampler.samples, results,
                           _udp_series(sc.flows, outdir))
    pq = None
    if qtracer and qtracer.text is not None:
        if qtracer.lost:
            log(f"packet trace lost {qtracer.lost} events: queue and "
                "delay from the 100 ms samples")
        else:
            w0, w1 = metrics.window(sc)
            pq = tracing.packet_queue(qtracer.text, qtracer.dev, t0 + w0,
                                      t0 + w1)
            if pq and pq["queue_unseen"]:
                log(f"packet trace: {pq['queue_unseen']} packets never "
                    "seen leaving the qdisc: the queue is overstated")
    metrics.with_packet_queue(res, pq)
    if tracer and tracer.out.exists():
        text = tracer.out.read_text()
        res["breakdown"] = tracing.breakdown(tracing.parse(text, tracer.dev),
                                             sc.rate_at(trace[0]))
        if res["breakdown"]:
            res["breakdown"]["decisions"] = tracing.decisions(text)
            res["breakdown"]["timers"] = tracing.timer_lateness(text)
        log("trace: " + tracing.summary(res["breakdown"]))
    with open(outdir / "metrics.json", "w", encoding="utf-8") as fh:
        json.dump(res, fh, indent=1)
    log(f"figures computed in {time.monotonic() - t_post:.1f} s")
    res["testbed"] = record
    return res


def _start_flow(bed, arm, f, outdir):
    ns = bed.hosts[f["src"] - 1]
    secs = f["stop"] - f["start"]
    if f["kind"] == "tcp":
        cmd = ["iperf3", "-c", "10.9.0.2", "-p", str(IPERF_BASE + f["id"]),
               "--cport", str(CPORT_BASE + f["id"]), "-C",
               f["cc"] or arm["cc"], "-t", f"{secs:g}", "-J"]
        out = open(outdir / f"iperf-{f['id']}.json", "w", encoding="utf-8")
        env = None
    else:
        cmd = [sys.executable, "-m", "congavoid_exp.gen", "send", "10.9.0.2",
               str(UDP_BASE + f["id"]), f["kind"], str(f["rate"]),
               str(f["size"]), f"{secs:g}", str(f["on"]), str(f["off"])]
        out = open(outdir / f"udp-{f['id']}.json", "w", encoding="utf-8")
        env = pyenv()
    p = subprocess.Popen(["ip", "netns", "exec", ns] + cmd, stdout=out,
                         stderr=subprocess.DEVNULL, env=env)
    out.close()
    return p


# a flow whose traffic tool reported nothing: its figures are unknown,
# never 0 (metrics.dumbbell leaves the run's totals missing and lists the
# flow in flows_without_result; the run fails: report.run_error)
NO_RESULT = {"bytes": None, "throughput_bps": None, "retransmits": None}


def _flow_result(f, outdir):
    """Delivered bytes, goodput and retransmissions of one flow from the
    traffic tool's own report (receiver side); NO_RESULT and an error
    without one (retransmits None if iperf3 did not give them)."""
    if f["kind"] == "tcp":
        try:
            j = json.loads((outdir / f"iperf-{f['id']}.json").read_text())
            e = j["end"]
            return {"bytes": e["sum_received"]["bytes"],
                    "throughput_bps": e["sum_received"]["bits_per_second"],
                    "retransmits": e["sum_sent"].get("retransmits")}
        except (OSError, ValueError, KeyError, TypeError):
            return dict(NO_RESULT, error="iperf3 produced no result")
    try:
        j = json.loads((outdir / f"sink-{f['id']}.json").read_text())
        return {"bytes": j["bytes"],
                "throughput_bps": j["bytes"] * 8 / (f["stop"] - f["start"]),
                "retransmits": None}
    except (OSError, ValueError, KeyError, TypeError):
        return dict(NO_RESULT, error="sink produced no result")


def _udp_series(flows, outdir):
    """Each UDP flow's delivered-bytes series from its sink, on the
    samples' clock (seconds since t0)."""
    out = {}
    for f in flows:
        if f["kind"] == "tcp":
            continue
        try:
            j = json.loads((outdir / f"sink-{f['id']}.json").read_text())
            t0 = float((outdir / "t0").read_text())
            out[f["id"]] = [(t - t0, b) for t, b in j["series"]]
        except (OSError, ValueError, KeyError):
            out[f["id"]] = []
    return out


def _run_graph(sc, arm, rep, outdir, log):
    ensure_qdisc("decbit")
    outdir.mkdir(parents=True, exist_ok=True)
    topo, vcs = sc.topology, sc.vcs
    bed = GraphTestbed(topo, arm, log)
    t_build = time.monotonic()
    gen = None
    sampler = pools = None
    record = {"module_params": meta.module_params()}
    try:
        bed.build()
        record["before"] = meta.testbed(bed.ns, bed.prefix, tc_env())
        log(f"testbed built in {time.monotonic() - t_build:.1f} s "
            f"({len(bed.ns)} namespaces, {len(topo['routes'])} routes, "
            f"{len(vcs['list'])} VCs)")
        t0 = time.monotonic() + 1.0
        (outdir / "t0").write_text(f"{t0:.6f}\n")
        sources = {}
        for v in vcs["list"]:
            sources.setdefault(bed.routers[v["src"] - 1], []).append(v["id"])
        cfg = {"t0": t0, "duration": sc.duration,
               "drain": max(vcs["drain"], vcs["timeout"]),
               "window": [sc.warmup, sc.duration],
               "timeout": vcs["timeout"], "size": vcs["size"], "port": PORT,
               "seed": vcs["seed"] + rep, "sources": sources,
               "sinks": bed.hostns,
               "vcs": [{"id": v["id"], "window": v["window"],
                        "lam": v["lam"],
                        "dst": graph.route_addr(v["route"])}
                       for v in vcs["list"]]}
        (outdir / "vcgen.json").write_text(json.dumps(cfg))
        pools = PoolProbe(bed.routers)
        sampler = Sampler([pools], sc.sample_interval, t0)
        sampler.start()
        gen = subprocess.Popen(
            [sys.executable, "-m", "congavoid_exp.vcgen",
             str(outdir / "vcgen.json"), str(outdir / "vcs.json")],
            env=pyenv())
        try:
            gen.wait(timeout=sc.duration + cfg["drain"] + 60)
        finally:
            final = sampler.stop(final=[pools])
        if gen.returncode:
            raise RuntimeError(f"vcgen exited with {gen.returncode}")
        with open(outdir / "samples.jsonl", "w", encoding="utf-8") as fh:
            for s in sampler.samples:
                fh.write(json.dumps(s) + "\n")
        with open(outdir / "final.json", "w", encoding="utf-8") as fh:
            json.dump(final, fh)
        record["after"] = meta.testbed(bed.ns, bed.prefix, tc_env(),
                                         full=False)
    finally:
        if gen is not None and gen.poll() is None:
            gen.kill()
            gen.wait()
        if sampler is not None and sampler.is_alive():
            sampler.stop()
        elif sampler is None and pools is not None:
            pools.close()
        bed.destroy()
    gen_res = json.loads((outdir / "vcs.json").read_text())
    res = metrics.graph(sc, arm, gen_res, sampler.samples, final,
                        gen_res.get("t0", t0) - t0)
    with open(outdir / "metrics.json", "w", encoding="utf-8") as fh:
        json.dump(res, fh, indent=1)
    res["testbed"] = record
    return res

