# SPDX-License-Identifier: GPL-2.0
"""Scenario files: loading, validation and expansion into runs.

A scenario is a TOML file (see tools/scenarios/README.md for the format).
Every error names the file, the line and the field."""

import re
import tomllib

from . import graph

TOPOLOGIES = ("dumbbell", "chain", "graph")
FLOW_KINDS = ("tcp", "cbr", "poisson", "onoff", "bursts")
METRICS = ("throughput", "utilization", "jain", "rtt", "queue", "drops",
           "marks", "retransmits", "power", "convergence", "cwnd_cov")
# qdiscs that shape the link themselves (given "rate"); the others get an
# htb parent at the link rate.
SELF_SHAPING = ("decbit", "hbh")
# congestion controls that ask for ECN themselves (TCP_CONG_NEEDS_ECN)
NEEDS_ECN = ("decbit", "dctcp")

_UNITS = {"bit": 1, "kbit": 1e3, "mbit": 1e6, "gbit": 1e9,
          "bps": 8, "kbps": 8e3, "mbps": 8e6, "gbps": 8e9}
_TIMES = {"s": 1.0, "sec": 1.0, "ms": 1e-3, "msec": 1e-3, "us": 1e-6,
          "usec": 1e-6}


class ScenarioError(Exception):
    """A bad scenario file: str() is "file:line: field: message"."""

    def __init__(self, path, line, field, msg):
        self.path, self.line, self.field, self.msg = path, line, field, msg
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: {field}: {msg}" if field
                         else f"{where}: {msg}")


def tc_rate(bps):
    """A rate in bit/s as tc takes it: 2e7 -> "20000000bit" (the inverse
    of parse_rate)."""
    return f"{int(bps)}bit"


def parse_rate(v):
    """'20mbit' / '2.5Mbit' / 1e6 -> bit/s (float)."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        r = float(v)
    elif isinstance(v, str):
        m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([a-zA-Z]*)\s*", v)
        if not m or m.group(2).lower() not in _UNITS:
            raise ValueError(f"bad rate {v!r} (e.g. \"20mbit\")")
        r = float(m.group(1)) * _UNITS[m.group(2).lower()]
    else:
        raise ValueError(f"bad rate {v!r} (e.g. \"20mbit\")")
    if r <= 0:
        raise ValueError(f"rate {v!r} must be positive")
    return r


def parse_time(v):
    """'40ms' / '1.5s' / 2 (seconds) -> seconds (float)."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        t = float(v)
    elif isinstance(v, str):
        m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([a-zA-Z]*)\s*", v)
        unit = (m.group(2) or "s").lower() if m else None
        if not m or unit not in _TIMES:
            raise ValueError(f"bad time {v!r} (e.g. \"40ms\")")
        t = float(m.group(1)) * _TIMES[unit]
    else:
        raise ValueError(f"bad time {v!r} (e.g. \"40ms\")")
    if t < 0:
        raise ValueError(f"time {v!r} must not be negative")
    return t


class _Locator:
    """Finds the line of a field in the TOML text, for error messages."""

    def __init__(self, text):
        self.lines = text.splitlines()

    def line(self, table=None, index=None, key=None):
        start, seen = 0, -1
        if table:
            hdr = re.compile(r"\s*\[\[\s*%s\s*\]\]" % re.escape(table)) \
                if index is not None else \
                re.compile(r"\s*\[\s*%s\s*\]" % re.escape(table))
            for i, ln in enumerate(self.lines):
                if hdr.match(ln):
                    seen += 1
                    if index is None or seen == index:
                        start = i
                        break
            else:
                return None
        if key is None:
            return start + 1 if table else None
        kre = re.compile(r"\s*\"?%s\"?\s*=" % re.escape(key))
        for i in range(start + (1 if table else 0), len(self.lines)):
            ln = self.lines[i]
            if i > start and re.match(r"\s*\[", ln):
                break
            if kre.match(ln):
                return i + 1
        return start + 1 if table else None


class Scenario:
    """A validated scenario.  Attributes: name, path, description,
    duration, repetitions, sample_interval, warmup, topology (dict),
    flows (list of dicts), arms (list of dicts, sweep expanded), metrics."""

    def __init__(self, path, text=None):
        self.path = str(path)
        if text is None:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        self._loc = _Locator(text)
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            m = re.search(r"line (\d+)", str(e))
            raise ScenarioError(self.path, int(m.group(1)) if m else None,
                                None, f"TOML syntax: {e}") from None
        self._validate(data)

    # -- helpers ---------------------------------------------------------
    def _err(self, field, msg, table=None, index=None, key=None):
        return ScenarioError(self.path, self._loc.line(table, index, key),
                             field, msg)

    def _take(self, d, key, conv, default, field, table=None, index=None):
        if key not in d:
            if default is _REQUIRED:
                raise self._err(field, "missing (required)", table, index)
            return default
        try:
            return conv(d[key])
        except (ValueError, TypeError) as e:
            raise self._err(field, str(e), table, index, key) from None

    def _unknown(self, d, allowed, prefix, table=None, index=None):
        for k in d:
            if k not in allowed:
                raise self._err(f"{prefix}{k}", "unknown field (allowed: " +
                                ", ".join(sorted(allowed)) + ")",
                                table, index, k)

    # -- validation --------------------------------------------------------
    def _validate(self, d):
        top = ("name", "description", "duration", "repetitions",
               "sample_interval", "warmup", "metrics", "topology", "flows",
               "arms", "sweep", "paper", "events", "vcs")
        self._unknown(d, top, "")
        self.name = self._take(d, "name", _ident, _REQUIRED, "name")
        self.description = self._take(d, "description", str, "",
                                      "description")
        self.paper = self._take(d, "paper", str, "", "paper")
        self.duration = self._take(d, "duration", _positive(parse_time),
                                   _REQUIRED, "duration")
        self.repetitions = self._take(d, "repetitions", _int_range(1, 100),
                                      1, "repetitions")
        self.sample_interval = self._take(d, "sample_interval",
                                          _positive(parse_time), 0.1,
                                          "sample_interval")
        self.warmup = self._take(d, "warmup", parse_time, 2.0, "warmup")
        self.metrics = self._take(d, "metrics", _choices_list(METRICS),
                                  list(METRICS), "metrics")
        if not isinstance(d.get("topology"), dict):
            raise self._err("topology", "missing table [topology]")
        self.topology = self._topology(d["topology"])
        if self.topology["kind"] == "graph":
            for k in ("flows", "events"):
                if k in d:
                    raise self._err(k, "not used with topology.kind = "
                                    "\"graph\" (its traffic is [vcs])",
                                    k, 0)
            if not isinstance(d.get("vcs"), dict):
                raise self._err("vcs", "missing table [vcs] (the virtual "
                                "channels of a graph topology)")
            self.flows, self.events = [], []
            self.vcs = self._vcs(d["vcs"])
        else:
            if "vcs" in d:
                raise self._err("vcs", "only with topology.kind = "
                                "\"graph\"", "vcs")
            self.flows = self._flows(d.get("flows"))
            self.events = self._events(d.get("events", []))
        self.arms = self._arms(d.get("arms"), d.get("sweep"))
        self._flow_cc_ecn(d.get("flows") or [])

    def _flow_cc_ecn(self, flows):
        """A flow's own cc reaches iperf3 as -C, which it sets after
        connect(): the SYN goes out under the arm's cc and asks for ECN
        only if that cc does or the arm sets ecn = 1.  Without ECN, decbit
        and dctcp fall back to Reno."""
        for i, f in enumerate(flows):
            cc = f.get("cc") if isinstance(f, dict) else None
            if cc not in NEEDS_ECN:
                continue
            for a in self.arms:
                if a["cc"] not in NEEDS_ECN and a["ecn"] != 1:
                    raise self._err(
                        f"flows[{i}].cc", f"{cc} needs ECN from the SYN and "
                        f"iperf3 sets -C after connect(): arm {a['name']!r} "
                        f"runs {a['cc']} on the senders; give that arm "
                        f"ecn = 1", "flows", i, "cc")

    def _topology(self, t):
        tb = "topology"
        kind = self._take(t, "kind", _choice(TOPOLOGIES), _REQUIRED,
                          "topology.kind", tb)
        if kind == "graph":
            return self._graph(t)
        self._unknown(t, ("kind", "hosts", "routers", "rate", "delay",
                          "buffer"), "topology.", tb)
        hosts = self._take(t, "hosts", _int_range(1, 64), 1,
                           "topology.hosts", tb)
        routers = self._take(t, "routers", _int_range(1, 16),
                             2 if kind == "dumbbell" else 3,
                             "topology.routers", tb)
        if kind == "dumbbell" and routers != 2:
            raise self._err("topology.routers", "a dumbbell has 2 routers",
                            tb, None, "routers")
        rate = self._take(t, "rate", parse_rate, _REQUIRED,
                          "topology.rate", tb)
        delay = self._take(t, "delay", parse_time, 0.0, "topology.delay", tb)
        bdp = rate * max(delay, 1e-3) / 8 / 1500
        buffer = self._take(t, "buffer", _buffer(bdp), max(int(bdp), 10),
                            "topology.buffer", tb)
        return {"kind": kind, "hosts": hosts, "routers": routers,
                "rate": rate, "delay": delay, "buffer": buffer,
                "bdp_packets": bdp}

    def _graph(self, t):
        tb, p = "topology", "topology."
        self._unknown(t, ("kind", "nodes", "links", "rate", "buffer",
                          "routes_per_pair"), p, tb)
        nodes = self._take(t, "nodes", _int_range(2, 16), _REQUIRED,
                           p + "nodes", tb)
        if not isinstance(t.get("links"), list):
            raise self._err(p + "links", "a list of \"a-b\" links needed",
                            tb, None, "links" if "links" in t else None)
        links = self._take(t, "links", lambda v: graph.parse_links(v, nodes),
                           _REQUIRED, p + "links", tb)
        rate = self._take(t, "rate", parse_rate, _REQUIRED, p + "rate", tb)
        buffer = self._take(t, "buffer", _int_range(1, 100000), 100,
                            p + "buffer", tb)
        per_pair = self._take(t, "routes_per_pair", _int_range(1, 4), 1,
                              p + "routes_per_pair", tb)
        rts = graph.routes(links, nodes, per_pair)
        if len(rts) > 1000:
            raise self._err(p + "routes_per_pair", f"{len(rts)} routes; at "
                            "most 1000", tb, None, "routes_per_pair")
        return {"kind": "graph", "nodes": nodes, "links": links,
                "rate": rate, "buffer": buffer, "routes_per_pair": per_pair,
                "routes": rts, "mean_path_nodes": graph.mean_path_nodes(rts),
                "hosts": nodes, "delay": 0.0}

    def _vcs(self, v):
        tb, p = "vcs", "vcs."
        self._unknown(v, ("per_route", "lambda", "window", "size",
                          "timeout", "drain", "seed"), p, tb)
        per_route = self._take(v, "per_route", _int_range(1, 16), 1,
                               p + "per_route", tb)
        lam = self._take(v, "lambda", _positive(_number), _REQUIRED,
                         p + "lambda", tb)
        window = self._take(v, "window", _positive(_number), 2,
                            p + "window", tb)
        size = self._take(v, "size", _int_range(64, 1472), 1000,
                          p + "size", tb)
        timeout = self._take(v, "timeout", _positive(parse_time), 2.0,
                             p + "timeout", tb)
        drain = self._take(v, "drain", _positive(parse_time), 6.0,
                           p + "drain", tb)
        seed = self._take(v, "seed", _int_range(0, 2 ** 31), 1, p + "seed",
                          tb)
        if lam * len(self.topology["routes"]) * per_route > 20000:
            raise self._err(p + "lambda", "more than 20000 packets/s "
                            "offered in total", tb, None, "lambda")
        out = []
        for r in self.topology["routes"]:
            w = max(1, round(window * r["links"]))
            for _ in range(per_route):
                out.append({"id": len(out), "route": r["id"],
                            "src": r["src"], "dst": r["dst"], "window": w,
                            "lam": lam})
        return {"per_route": per_route, "lambda": lam, "window": window,
                "size": size, "timeout": timeout, "drain": drain,
                "seed": seed, "list": out}

    def _flows(self, flows):
        if not isinstance(flows, list) or not flows:
            raise self._err("flows", "at least one [[flows]] table needed")
        out = []
        for i, f in enumerate(flows):
            tb, p = "flows", f"flows[{i}]."
            if not isinstance(f, dict):
                raise self._err(f"flows[{i}]", "must be a table")
            self._unknown(f, ("kind", "src", "count", "every", "start",
                              "stop", "cc", "rate", "size", "on", "off"),
                          p, tb, i)
            kind = self._take(f, "kind", _choice(FLOW_KINDS), "tcp",
                              p + "kind", tb, i)
            count = self._take(f, "count", _int_range(1, 64), 1,
                               p + "count", tb, i)
            src = self._take(f, "src", _int_range(1, 64), len(out) + 1,
                             p + "src", tb, i)
            every = self._take(f, "every", parse_time, 0.0, p + "every",
                               tb, i)
            start = self._take(f, "start", parse_time, 0.0, p + "start",
                               tb, i)
            stop = self._take(f, "stop", parse_time, self.duration,
                              p + "stop", tb, i)
            cc = self._take(f, "cc", _ident, None, p + "cc", tb, i)
            rate = self._take(f, "rate", parse_rate, None, p + "rate", tb, i)
            size = self._take(f, "size", _int_range(64, 1472), 1000,
                              p + "size", tb, i)
            on = self._take(f, "on", _positive(parse_time), 1.0, p + "on",
                            tb, i)
            off = self._take(f, "off", _positive(parse_time), 1.0,
                             p + "off", tb, i)
            if kind != "tcp" and rate is None:
                raise self._err(p + "rate", f"a {kind} flow needs a rate",
                                tb, i)
            for k in range(count):
                s, e = start + k * every, stop
                if src + k > self.topology["hosts"]:
                    raise self._err(p + "src", f"host {src + k} does not "
                                    f"exist (topology.hosts = "
                                    f"{self.topology['hosts']})", tb, i,
                                    "src" if "src" in f else "count")
                if not s < e <= self.duration:
                    raise self._err(p + "stop", f"flow {len(out) + 1} "
                                    f"would run from {s:g}s to {e:g}s "
                                    f"(duration {self.duration:g}s)", tb, i,
                                    "stop" if "stop" in f else "start")
                out.append({"id": len(out) + 1, "kind": kind, "src": src + k,
                            "start": s, "stop": e, "cc": cc, "rate": rate,
                            "size": size, "on": on, "off": off})
        return out

    def _events(self, events):
        if not isinstance(events, list):
            raise self._err("events", "must be [[events]] tables")
        out = []
        for i, e in enumerate(events):
            tb, p = "events", f"events[{i}]."
            if not isinstance(e, dict):
                raise self._err(f"events[{i}]", "must be a table")
            self._unknown(e, ("at", "rate"), p, tb, i)
            at = self._take(e, "at", parse_time, _REQUIRED, p + "at", tb, i)
            rate = self._take(e, "rate", parse_rate, _REQUIRED, p + "rate",
                              tb, i)
            if not 0 < at < self.duration:
                raise self._err(p + "at", f"{at:g}s is outside the run "
                                f"(0, {self.duration:g}s)", tb, i, "at")
            out.append({"at": at, "rate": rate})
        return sorted(out, key=lambda e: e["at"])

    def rate_at(self, t):
        """The bottleneck's rate (bit/s) at time t."""
        rate = self.topology["rate"]
        for e in self.events:
            if e["at"] <= t:
                rate = e["rate"]
        return rate

    def capacity(self, t0, t1):
        """Bits the bottleneck can carry between t0 and t1, following the
        rate-change events."""
        cuts = [(0.0, self.topology["rate"])] + \
            [(e["at"], e["rate"]) for e in self.events]
        bits = 0.0
        for k, (start, rate) in enumerate(cuts):
            end = cuts[k + 1][0] if k + 1 < len(cuts) else float("inf")
            lo, hi = max(start, t0), min(end, t1)
            if hi > lo:
                bits += rate * (hi - lo)
        return bits

    def _arms(self, arms, sweep):
        if not isinstance(arms, list) or not arms:
            raise self._err("arms", "at least one [[arms]] table needed")
        values = [None]
        param = None
        if sweep is not None:
            if not isinstance(sweep, dict):
                raise self._err("sweep", "must be a table")
            self._unknown(sweep, ("param", "values"), "sweep.", "sweep")
            param = self._take(sweep, "param", _ident, _REQUIRED,
                               "sweep.param", "sweep")
            values = sweep.get("values")
            if not isinstance(values, list) or not values:
                raise self._err("sweep.values", "a non-empty list needed",
                                "sweep", None, "values")
        out = []
        for i, a in enumerate(arms):
            tb, p = "arms", f"arms[{i}]."
            if not isinstance(a, dict):
                raise self._err(f"arms[{i}]", "must be a table")
            is_graph = self.topology["kind"] == "graph"
            self._unknown(a, ("name", "qdisc", "qdisc_opts", "ibl_alpha",
                              "sysctl") if is_graph else
                          ("name", "cc", "qdisc", "qdisc_opts", "sysctl",
                           "module_params", "ecn", "receiver_cc",
                           "host_qdisc"),
                          p, tb, i)
            name = self._take(a, "name", str, _REQUIRED, p + "name", tb, i)
            cc = self._take(a, "cc", _ident, "reno" if is_graph else
                            _REQUIRED, p + "cc", tb, i)
            qdisc = self._take(a, "qdisc", _ident, "decbit" if is_graph else
                               "pfifo", p + "qdisc", tb, i)
            if is_graph and qdisc != "decbit":
                raise self._err(p + "qdisc", "a graph topology's routers "
                                "run decbit (its buffer pool)", tb, i,
                                "qdisc")
            alpha = self._take(a, "ibl_alpha", _alpha, None,
                               p + "ibl_alpha", tb, i)
            opts = self._take(a, "qdisc_opts", str, None, p + "qdisc_opts",
                              tb, i)
            sysctl = self._take(a, "sysctl", _str_map, {}, p + "sysctl",
                                tb, i)
            mparams = self._take(a, "module_params", _str_map, {},
                                 p + "module_params", tb, i)
            ecn = self._take(a, "ecn", _int_range(0, 2), None, p + "ecn",
                             tb, i)
            rcc = self._take(a, "receiver_cc", _ident, None,
                             p + "receiver_cc", tb, i)
            hq = self._take(a, "host_qdisc", str, None, p + "host_qdisc",
                            tb, i)
            if hq is not None and not re.fullmatch(r"[a-z_][a-z0-9_]*( .*)?",
                                                   hq):
                raise self._err(p + "host_qdisc", "must start with a qdisc "
                                "kind", tb, i, "host_qdisc")
            uses = param is not None and "{%s}" % param in \
                " ".join([opts or ""] + list(mparams.values()))
            for v in (values if uses else [None]):
                subst = {} if v is None else {param: v}
                try:
                    o = _fill(opts, subst, self.topology)
                    h = _fill(hq, subst, self.topology)
                    mp = {k: _fill(x, subst, self.topology)
                          for k, x in mparams.items()}
                except KeyError as e:
                    raise self._err(p + "qdisc_opts", f"unknown placeholder "
                                    f"{e}", tb, i, "qdisc_opts") from None
                out.append({
                    "name": name if v is None else f"{name} {param}={v}",
                    "base": name, "cc": cc, "qdisc": qdisc, "qdisc_opts": o,
                    "sysctl": sysctl, "module_params": mp, "ecn": ecn,
                    "receiver_cc": rcc or cc, "host_qdisc": h,
                    "ibl_alpha": alpha,
                    "sweep": None if v is None else {param: v}})
        names = [a["name"] for a in out]
        for n in names:
            if names.count(n) > 1:
                raise self._err("arms", f"two arms are named {n!r}")
        return out


_REQUIRED = object()


def _fill(s, subst, topo):
    if s is None:
        return None
    vals = {"rate": tc_rate(topo["rate"]), "buffer": topo["buffer"],
            "bdp": max(1, round(topo.get("bdp_packets", 1)))}
    vals.update(subst)
    return str(s).format(**vals)


def _ident(v):
    if not isinstance(v, str) or not re.fullmatch(r"[A-Za-z0-9_.-]+", v):
        raise ValueError(f"{v!r} is not a name (letters, digits, _ . -)")
    return v


def _choice(options):
    def conv(v):
        if v not in options:
            raise ValueError(f"{v!r} is not one of " + ", ".join(options))
        return v
    return conv


def _choices_list(options):
    def conv(v):
        if not isinstance(v, list):
            raise ValueError("must be a list")
        return [_choice(options)(x) for x in v]
    return conv


def _int_range(lo, hi):
    def conv(v):
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise ValueError(f"{v!r} must be an integer in {lo}..{hi}")
        return v
    return conv


def _number(v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ValueError(f"{v!r} is not a number")
    return float(v)


def _alpha(v):
    x = _number(v)
    if not 0 < x <= 1:
        raise ValueError(f"{v!r} must be in (0, 1] (IBL = alpha / H)")
    return x


def _positive(conv):
    def f(v):
        x = conv(v)
        if x <= 0:
            raise ValueError(f"{v!r} must be positive")
        return x
    return f


def _buffer(bdp):
    def conv(v):
        if isinstance(v, str) and re.fullmatch(r"([0-9]*\.?[0-9]+)\s*bdp", v):
            return max(1, round(float(v[:-3]) * bdp))
        return _int_range(1, 100000)(v)
    return conv


def _str_map(v):
    if not isinstance(v, dict):
        raise ValueError("must be a table of name = value")
    out = {}
    for k, x in v.items():
        if isinstance(x, bool) or not isinstance(x, (int, float, str)):
            raise ValueError(f"{k}: value {x!r} must be a number or string")
        out[k] = str(x)
    return out


def load(path):
    return Scenario(path)
