# SPDX-License-Identifier: GPL-2.0
"""Host helpers of the experiment runner: commands in namespaces, tc
with the project's plugins, loading the project's modules."""

import os
import shlex
import subprocess
from pathlib import Path

from .scenario import SELF_SHAPING

TOP = Path(__file__).resolve().parents[2]


class Skip(Exception):
    """An arm that cannot run here (a module that is not built)."""


def sh(*args, ns=None, check=True, capture=False):
    cmd = (["ip", "netns", "exec", ns] if ns else []) + [str(a) for a in args]
    r = subprocess.run(cmd, stdout=subprocess.PIPE if capture else
                       subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if check and r.returncode:
        raise RuntimeError(f"{shlex.join(cmd)}: {r.stderr.strip()}")
    return r.stdout if capture else r.returncode


def tc_env():
    env = dict(os.environ)
    if (TOP / "build/tc").is_dir() and "TC_LIB_DIR" not in env:
        env["TC_LIB_DIR"] = str(TOP / "build/tc")
    return env


def tc(ns, *args):
    cmd = ["ip", "netns", "exec", ns, "tc"] + [str(a) for a in args]
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True, env=tc_env())
    if r.returncode:
        raise RuntimeError(f"{shlex.join(cmd)}: {r.stderr.strip()}")


# -- modules -----------------------------------------------------------------

def _built_module(name):
    for ko in (TOP / "build" / os.uname().release).glob(f"*/{name}.ko"):
        return ko
    return None


def _loaded(name):
    return Path(f"/sys/module/{name}").exists()


def ensure_module(name):
    """Load a kernel module: from the system (modprobe) or from this
    project's build folder for the running kernel.  Raises Skip."""
    if _loaded(name):
        return
    if subprocess.run(["modprobe", "-q", name]).returncode == 0:
        return
    ko = _built_module(name)
    if ko is None:
        raise Skip(f"module {name} is not available (not built for "
                   f"{os.uname().release})")
    r = subprocess.run(["insmod", str(ko)], stderr=subprocess.PIPE,
                       text=True)
    if r.returncode and not _loaded(name):
        raise Skip(f"insmod {ko}: {r.stderr.strip()}")


def ensure_cc(cc):
    avail = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")
    if cc not in avail.read_text().split():
        ensure_module(f"tcp_{cc}")
    allowed = Path("/proc/sys/net/ipv4/tcp_allowed_congestion_control")
    cur = allowed.read_text().split()
    if cc not in cur:
        allowed.write_text(" ".join(cur + [cc]))


def ensure_qdisc(kind):
    if kind in ("pfifo", "bfifo", "pfifo_fast"):
        return
    ensure_module(f"sch_{kind}")
    installed = [Path(d) / f"q_{kind}.so" for d in
                 ("/usr/lib/tc", "/usr/lib/x86_64-linux-gnu/tc")]
    if kind in SELF_SHAPING and not (TOP / f"build/tc/q_{kind}.so").exists() \
            and not any(p.exists() for p in installed):
        raise Skip(f"tc plugin q_{kind}.so is not built")


def set_module_params(cc, params):
    """Write module parameters; returns the old values for restore."""
    old = {}
    for k, v in params.items():
        p = Path(f"/sys/module/tcp_{cc}/parameters/{k}")
        if not p.exists():
            raise RuntimeError(f"module tcp_{cc} has no parameter {k}")
        old[k] = p.read_text().strip()
        p.write_text(str(v))
    return old


def pyenv():
    """The environment for this package's own programs (gen, vcgen)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(TOP / "tools")
    return env
