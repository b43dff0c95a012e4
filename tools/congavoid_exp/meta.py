# SPDX-License-Identifier: GPL-2.0
"""What a result needs to be reproduced from its own folder (as Flent
records it): the system (kernel, machine, project revision, command),
the project's module parameters, the scenario file, and per namespace the sysctls that
change TCP's or the qdiscs' behaviour, each device's offloads and its
qdiscs with their statistics (`tc -s -j`), taken before the traffic and
after it."""

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

# One shell per namespace (forks are slow under TCG): sysctls as
# "S name value", offloads as "O dev feature: on|off", then the JSON of
# tc -s -j qdisc show after a "Q" line.
_SCRIPT = r"""
for k in {sysctls}; do
	f=/proc/sys/$(echo "$k" | tr . /)
	[ -r "$f" ] && printf 'S %s %s\n' "$k" "$(tr '\t' ' ' < "$f")"
done
for d in /sys/class/net/*; do
	d=${{d##*/}}
	[ "$d" = lo ] && continue
	ethtool -k "$d" 2>/dev/null | sed -n "s/^\(${{OFF}}\): \([a-z]*\).*/O $d \1 \2/p"
done
echo Q
tc -s -j qdisc show
"""


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
    head, _, tail = text.partition("\nQ\n")
    if text.startswith("Q\n"):
        head, tail = "", text[2:]
    for line in head.splitlines():
        kind, _, rest = line.partition(" ")
        if kind == "S":
            k, _, v = rest.partition(" ")
            snap["sysctl"][k] = v
        elif kind == "O":
            dev, feat, val = rest.split()
            snap["offloads"].setdefault(dev, {})[feat] = val
    try:
        snap["qdiscs"] = json.loads(tail) if tail.strip() else []
    except ValueError:
        snap["qdiscs"] = tail.strip()
    return snap


def namespace(ns, env=None):
    """Sysctls, offloads and qdiscs (with statistics) of one namespace;
    ENV: the environment tc needs to find the project's plugins."""
    script = _SCRIPT.format(sysctls=" ".join(SYSCTLS))
    env = dict(env or os.environ, OFF="\\|".join(OFFLOADS))
    r = subprocess.run(["ip", "netns", "exec", ns, "sh", "-c", script],
                       capture_output=True, text=True, env=env)
    snap = parse_snapshot(r.stdout)
    if r.returncode:
        snap["error"] = r.stderr.strip()
    return snap


def testbed(namespaces, strip="", env=None):
    """namespace() of each namespace, keyed by its name without the
    run's prefix."""
    return {n[len(strip):] if strip and n.startswith(strip) else n:
            namespace(n, env) for n in namespaces}


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
