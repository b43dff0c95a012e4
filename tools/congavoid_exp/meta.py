# SPDX-License-Identifier: GPL-2.0
"""What a result needs to be reproduced from its own folder (as Flent
records it): the system (kernel, machine, project revision, command),
the project's module parameters, the scenario file, and per namespace the sysctls that
change TCP's or the qdiscs' behaviour, each device's offloads and its
qdiscs with their statistics (`tc -s -j`) before the traffic, and the
qdiscs again after it."""

import json
import os
import subprocess
from pathlib import Path

from . import pages

MODULES = ("sch_decbit", "sch_hbh", "tcp_decbit", "tcp_bimodal",
           "tcp_fixedwin")

SYSCTLS = (
    "net.ipv4.tcp_congestion_control", "net.ipv4.tcp_ecn",
    "net.ipv4.tcp_ecn_fallback", "net.ipv4.tcp_pacing_ss_ratio",
    "net.ipv4.tcp_pacing_ca_ratio", "net.ipv4.tcp_no_metrics_save",
    "net.ipv4.tcp_sack", "net.ipv4.tcp_dsack", "net.ipv4.tcp_recovery",
    "net.ipv4.tcp_early_retrans", "net.ipv4.tcp_frto",
    "net.ipv4.tcp_timestamps", "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem",
    "net.ipv4.tcp_min_tso_segs", "net.ipv4.tcp_limit_output_bytes",
    "net.ipv4.tcp_tso_rtt_log", "net.ipv4.ip_forward",
    "net.core.default_qdisc")

OFFLOADS = ("tcp-segmentation-offload", "generic-segmentation-offload",
            "generic-receive-offload")

# One shell per namespace, and no fork in it but ethtool's (one per
# device) and tc's: forks cost ~0.1 s each under TCG.  It prints
# "S /proc/sys/... value" per sysctl, "D dev" and ethtool -k's lines per
# device, then "Q" and tc -s -j qdisc show's JSON.
_SCRIPT = r"""
for f in {paths}; do
	if [ -r "$f" ]; then read -r v < "$f"; echo "S $f $v"; fi
done
for d in /sys/class/net/*; do
	d=${{d##*/}}
	[ "$d" = lo ] && continue
	echo "D $d"
	ethtool -k "$d" 2>/dev/null
done
echo Q
tc -s -j qdisc show
"""
_PATH = {"/proc/sys/" + k.replace(".", "/"): k for k in SYSCTLS}


def module_params():
    """{module: {param: value}} of the project's loaded modules."""
    out = {}
    for m in MODULES:
        d = Path(f"/sys/module/{m}/parameters")
        if not d.is_dir():
            continue
        vals = {}
        for p in sorted(d.iterdir()):
            try:
                vals[p.name] = p.read_text().strip()
            except OSError:
                pass
        out[m] = vals
    return out


def parse_snapshot(text):
    """The output of _SCRIPT -> {"sysctl": {}, "offloads": {}, "qdiscs": []}"""
    snap = {"sysctl": {}, "offloads": {}, "qdiscs": []}
    head, _, tail = ("\n" + text).partition("\nQ\n")
    dev = None
    for line in head.splitlines():
        if line.startswith("S "):
            _, path, *val = line.split()
            snap["sysctl"][_PATH.get(path, path)] = " ".join(val)
        elif line.startswith("D "):
            dev = line[2:].strip()
        elif dev and ":" in line:
            feat, _, val = line.partition(":")
            if feat.strip() in OFFLOADS:
                snap["offloads"].setdefault(dev, {})[feat.strip()] = \
                    val.split()[0] if val.split() else ""
    try:
        snap["qdiscs"] = json.loads(tail) if tail.strip() else []
    except ValueError:
        snap["qdiscs"] = tail.strip()
    return snap


def namespace(ns, env=None):
    """Sysctls, offloads and qdiscs (with statistics) of one namespace;
    ENV: the environment tc needs to find the project's plugins."""
    script = _SCRIPT.format(paths=" ".join(_PATH))
    env = dict(env or os.environ)
    r = subprocess.run(["ip", "netns", "exec", ns, "sh", "-c", script],
                       capture_output=True, text=True, env=env)
    snap = parse_snapshot(r.stdout)
    if r.returncode:
        snap["error"] = r.stderr.strip()
    return snap


def qdiscs(ns, env=None):
    """The qdiscs of one namespace with their statistics (tc -s -j)."""
    r = subprocess.run(["ip", "netns", "exec", ns, "tc", "-s", "-j", "qdisc",
                        "show"], capture_output=True, text=True, env=env)
    try:
        return json.loads(r.stdout) if r.stdout.strip() else []
    except ValueError:
        return r.stdout.strip()


def testbed(namespaces, strip="", env=None, full=True):
    """namespace() of each namespace, keyed by its name without the
    run's prefix; with full=False only the qdiscs (sysctls and offloads
    do not change during a run, and a fork costs ~0.1 s under TCG)."""
    def key(n):
        return n[len(strip):] if strip and n.startswith(strip) else n
    if full:
        return {key(n): namespace(n, env) for n in namespaces}
    return {key(n): {"qdiscs": qdiscs(n, env)} for n in namespaces}


def system(cmd=None, scenario_file=None):
    """The run's provenance, its module parameters and the scenario file
    itself."""
    out = pages.provenance(cmd)
    out["module_params"] = module_params()
    if scenario_file:
        p = Path(scenario_file)
        out["scenario_file"] = {"path": str(p),
                                "text": p.read_text(encoding="utf-8")}
    return out
