# SPDX-License-Identifier: GPL-2.0
"""Results pages: docs/results/NAME.md, written by the tools that measure
(make demo, make reproduce, the benchmarks), never by hand.

Each page starts with where its figures come from (the command, the
kernel, the machine, the date, the project's git revision) and the index,
docs/results/README.md, is rebuilt from the pages' own headers every time
one is written.  tools/vm tells the guest how it was started through
CONGAVOID_VM, CONGAVOID_MACHINE and CONGAVOID_GIT, and the versions of
the host's QEMU and virtme-ng through CONGAVOID_HOST_TOOLS; outside
tools/vm the machine is read from /proc."""

import datetime
import os
import platform
import re
import shlex
import subprocess
import sys
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]
RESULTS = TOP / "docs" / "results"


def kernel_short(release):
    """'6.12.117+deb12-amd64' -> '6.12'"""
    m = re.match(r"(\d+\.\d+)", release)
    return m.group(1) if m else release


def git_revision(top=TOP):
    """'abc1234' or 'abc1234-dirty' (tracked files changed), None if the
    tree is not a git checkout.  tools/vm passes the host's answer in
    CONGAVOID_GIT (git over the guest's shared filesystem is slow)."""
    if os.environ.get("CONGAVOID_GIT") and top == TOP:
        return os.environ["CONGAVOID_GIT"]
    try:
        r = subprocess.run(["git", "-c", "safe.directory=*", "-C", str(top),
                            "describe", "--always", "--dirty",
                            "--exclude", "*"],
                           capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if r.returncode:
        return None
    return r.stdout.strip() or None


def machine():
    """The machine the figures were measured on."""
    env = os.environ.get("CONGAVOID_MACHINE")
    if env:
        return env
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} CPUs (not in tools/vm)"


def command(argv=None):
    """The command that produced the figures, as a user would type it on
    the host: the tools/vm invocation (if any), then the command in it."""
    argv = list(sys.argv if argv is None else argv)
    if argv:
        p = Path(argv[0])
        if p.exists():
            try:
                argv[0] = str(p.resolve().relative_to(TOP))
            except ValueError:
                pass
    cmd = shlex.join(argv)
    vm = os.environ.get("CONGAVOID_VM")
    return f"{vm} -- {cmd}" if vm else cmd


# (name, command, the version in its output): the tools a page's figures
# went through where they were measured
TOOLS = (("iperf3", ["iperf3", "--version"], r"iperf (\S+)"),
         ("iproute2", ["tc", "-V"], r"iproute2-([0-9][\w.]*)"),
         ("ethtool", ["ethtool", "--version"], r"ethtool version (\S+)"))


def _version(argv, pattern):
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    out = r.stdout + r.stderr
    m = re.search(pattern, out)
    if m:
        return m.group(1)
    # ran, but said it another way: its first line, not "not installed"
    return (out.strip().splitlines() or ["unknown"])[0][:60]


def tool_versions():
    """{tool: version} of the tools the figures went through: iperf3,
    iproute2 (tc) and ethtool where the command ran (None: not installed),
    Python, and the host's QEMU and virtme-ng as tools/vm reports them
    (CONGAVOID_HOST_TOOLS, "name=version;..."): the guest cannot see
    them."""
    out = {name: _version(argv, pat) for name, argv, pat in TOOLS}
    out["python"] = platform.python_version()
    for kv in os.environ.get("CONGAVOID_HOST_TOOLS", "").split(";"):
        k, sep, v = kv.partition("=")
        if sep and k.strip():
            out[k.strip()] = v.strip() or None
    return out


def format_tools(tools):
    """"iperf3 3.12, iproute2 6.1.0, ..." ("not installed" for None)."""
    return ", ".join(f"{k} {v if v else 'not installed'}"
                     for k, v in tools.items())


def provenance(cmd=None, kernel=None, when=None):
    """The facts every page starts with, as a dict (also stored in the
    results' JSON)."""
    when = when or datetime.datetime.now(datetime.timezone.utc)
    return {"command": cmd or command(),
            "kernel": kernel or os.uname().release,
            "machine": machine(),
            "date": when.strftime("%Y-%m-%d %H:%M UTC"),
            "git": git_revision(),
            "tools": tool_versions()}


def header(title, prov):
    git = prov.get("git") or "not a git checkout"
    tools = format_tools(prov["tools"]) if prov.get("tools") \
        else "not recorded"
    return (f"# {title}\n\n"
            "Written by the command below; do not edit (run it again).\n\n"
            f"- command: `{prov['command']}`\n"
            f"- kernel: {prov['kernel']}\n"
            f"- machine: {prov['machine']}\n"
            f"- date: {prov['date']}\n"
            f"- project revision: {git}\n"
            f"- tools: {tools}\n")


def write(name, title, body, prov, outdir=None):
    """Write docs/results/NAME.md (header + body) and rebuild the index.
    Returns the page's path."""
    d = Path(outdir) if outdir else RESULTS
    d.mkdir(parents=True, exist_ok=True)
    page = d / f"{name}.md"
    page.write_text(header(title, prov) + "\n" + body.rstrip() + "\n",
                    encoding="utf-8")
    write_index(d)
    return page


_FIELD = re.compile(r"^- (command|kernel|date): (.*)$")


def read_header(page):
    """Title and header fields of a page written by write()."""
    lines = Path(page).read_text(encoding="utf-8").splitlines()
    out = {"title": lines[0][2:] if lines and lines[0].startswith("# ")
           else Path(page).stem}
    for line in lines[1:12]:
        m = _FIELD.match(line)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def write_index(d=None):
    d = Path(d) if d else RESULTS
    rows = []
    for p in sorted(d.glob("*.md")):
        if p.name == "README.md":
            continue
        h = read_header(p)
        if "date" not in h:
            continue
        rows.append(f"| [{h['title']}]({p.name}) | "
                    f"{kernel_short(h.get('kernel', '?'))} | {h['date']} |")
    md = ("# Results\n\n"
          "Every page here is written by the tool that measured it (its "
          "first lines give the command, kernel, machine, date and "
          "project revision); this index is rebuilt with each page.  "
          "Run the command again to refresh a page.\n\n"
          "| page | kernel | date |\n|---|---|---|\n" + "\n".join(rows) + "\n")
    (d / "README.md").write_text(md, encoding="utf-8")


def mean_sd(vals):
    """(mean, sample sd or None) of a list of numbers; (None, None) for
    none, or if one is missing (None): the mean of the others would hide
    it."""
    vals = list(vals)
    if not vals or None in vals:
        return None, None
    m = sum(vals) / len(vals)
    if len(vals) < 2:
        return m, None
    return m, (sum((v - m) ** 2 for v in vals) / (len(vals) - 1)) ** 0.5
