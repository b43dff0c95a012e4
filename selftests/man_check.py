#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks for man_pages.sh: that the man pages, tc's help and the modules
say the same defaults and ranges.  The values come from tools/mkman
--values (the uapi headers and the modules' parameter declarations).

  man_check.py params MOD MODINFO_FILE   modinfo's descriptions carry the
                                         declared range and default
  man_check.py dump KIND TC_JSON         the qdisc's dump of a fresh
                                         instance shows the defaults
  man_check.py help KIND HELP_FILE PAGE  every default in tc's help is the
                                         one of the page

Prints what differs, exits 1 if anything does.
"""
import json
import re
import subprocess
import sys
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent
VALUES = json.loads(subprocess.run([str(TOP / "tools/mkman"), "--values"],
                                   check=True, capture_output=True, text=True).stdout)
C = VALUES["constants"]
WORDS = VALUES["words"]
bad = []


def expect(what, got, want, tol=0.0):
    ok = abs(got - want) <= tol if isinstance(want, float) else got == want
    print(f"# {what}: {got!r} (expected {want!r})")
    if not ok:
        bad.append(what)


def params(mod, modinfo):
    desc = {}
    for line in Path(modinfo).read_text().splitlines():
        name, _, d = line.partition(":")
        desc[name] = d
    for p in VALUES["params"][mod]:
        if p["type"] == "uint":
            tail = f"({p['min']}..{p['max']}, default {p['default']})"
        elif p["type"] == "bool":
            tail = f"(default {'true' if p['default'] else 'false'}) (bool)"
        else:
            continue
        expect(f"{mod}.{p['name']} modinfo ends in {tail}",
               desc.get(p["name"], "").endswith(tail), True)


def dump(kind, path):
    q = [x for x in json.loads(Path(path).read_text()) if x.get("kind") == kind][0]
    o = q["options"]
    if kind == "decbit":
        expect("limit", o["limit"], C["DECBIT_LIMIT_DEFAULT"])
        expect("threshold", float(o["threshold"]), C["DECBIT_THRESHOLD_DEFAULT"] / 1000, 1e-9)
        expect("hysteresis", float(o["hysteresis"]), C["DECBIT_HYSTERESIS_DEFAULT"] / 1000, 1e-9)
        expect("rate", o["rate"], C["DECBIT_RATE_DEFAULT"])
        expect("catchup", o["catchup"], C["DECBIT_CATCHUP_DEFAULT"])
        expect("nonect", o["nonect"], WORDS["nonect"][C["DECBIT_NONECT_DEFAULT"]])
        if "ibl" in o:
            expect("ibl", float(o["ibl"]), C["DECBIT_IBL_DEFAULT"] / 1e6, 1e-9)
    else:
        rate = o["rate"]
        expect("limit", o["limit"], C["HBH_LIMIT_DEFAULT"])
        expect("flow_limit", o["flow_limit"], C["HBH_FLOW_LIMIT_DEFAULT"])
        expect("setpoint", o["setpoint"], C["HBH_SETPOINT_DEFAULT"])
        expect("period", o["period"], C["HBH_PERIOD_DEFAULT"])
        expect("hoprtt", o["hoprtt"], C["HBH_HOPRTT_DEFAULT"])
        expect("alpha", float(o["alpha"]), C["HBH_ALPHA_DEFAULT"] / C["HBH_SCALE"], 1e-5)
        expect("beta", float(o["beta"]), C["HBH_BETA_DEFAULT"] / C["HBH_SCALE"], 1e-5)
        expect("rise", o["rise"], rate // C["HBH_RISE_DIVISOR"])
        expect("rise_derived", o.get("rise_derived"), True)
        expect("rate_min", o["rate_min"], rate // C["HBH_RATE_MIN_DIVISOR"])
        expect("rate_min_derived", o.get("rate_min_derived"), True)
        expect("mode", o["mode"], WORDS["hbh_mode"][C["HBH_MODE_DEFAULT"]])


def help_defaults(text):
    """{option: default} from tc's help: "  name  ... (default X)" blocks."""
    out, cur = {}, None
    for line in text.splitlines():
        m = re.match(r"  (\w+)\s{2,}", line)
        if m:
            cur = m.group(1)
        elif not line.startswith("      "):
            cur = None
        d = re.search(r"default ([^)\s,;]+)", line)
        if cur and d and cur not in out:
            out[cur] = d.group(1)
    return out


def page_defaults(roff):
    """{option: default} from the PARAMETERS section's .TP entries."""
    sect = roff.split(".SH PARAMETERS", 1)[1].split("\n.SH ", 1)[0]
    out = {}
    for entry in sect.split(".TP\n")[1:]:
        head, _, body = entry.partition("\n")
        name = head.split()[1]
        body = re.sub(r"\\f[BIR]|\\-|\n\.[A-Z]+ ?|\n", " ", body)
        d = re.search(r"[Dd]efault ([^)\s,;]+?)(?:[.,;)]?\s|[.]?$)", body)
        if d:
            out[name] = d.group(1)
    return out


def help_vs_page(kind, help_file, page):
    h = help_defaults(Path(help_file).read_text())
    p = page_defaults(Path(page).read_text())
    if not h:
        bad.append("no defaults found in the help")
    for name, d in sorted(h.items()):
        expect(f"{kind} {name}: help's default, page's", p.get(name), d)


def main(argv):
    {"params": params, "dump": dump, "help": help_vs_page}[argv[0]](*argv[1:])
    if bad:
        print("# differ: " + ", ".join(bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
