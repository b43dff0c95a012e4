#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Mishra & Kanakia's two comparisons, scaled to this testbed, on the chain
# of selftests/sch_hbh.sh (10 ms per link on wire namespaces, bottleneck
# r2 -> r3 at 10 Mbit/s, other links 50 Mbit/s, cross host x at r2):
#
#   h0 => r1 => r2 => r3 => h1,   x => r2
#
# Config 1: one connection, HBH against TCP Reno through a drop-tail
#   queue: time to fill the link, losses, queue; with a 100-packet buffer
#   per connection at the bottleneck (x* = 50) and with 20 (below the
#   path's bandwidth-delay product of ~70 packets).
# Table 1: the connection against uncontrolled cross traffic at r2 (bursts
#   at the access rate with exponential silences, 1-11 s of a 12 s run),
#   HBH against E2E (mode e2e) for (x*, bmax) = (10, 20), (50, 100),
#   (200, 400): throughput, loss at the bottleneck (Loss1) and before it
#   (Loss2).
#
# Run it in the VM:   tools/vm 6.12 -- selftests/bench/hbh_paper.sh
# Every run is repeated HBH_PAPER_REPS times (default 3; about 4 min a
# repetition under TCG).  Writes results/bench/hbh_paper-<kernel>.json
# (every repetition's figures), .md and .png (throughput against
# queueing delay), prints the table and writes the results page
# docs/results/hbh_paper-<kernel>.md with the plot and the JSON beside it.
set -u
bench_cmd=$(printf '%q ' selftests/bench/hbh_paper.sh "$@")	# before any "set --"
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"
. "$top/selftests/lib_hbh.sh"
krel=$(uname -r)
out=$top/results/bench
mkdir -p "$out"
raw=$(mktemp -d)
trap 'rm -rf "$raw"; lib_exit' EXIT

grep -q '^sch_hbh ' /proc/modules || insmod "$top/build/$krel/sch_hbh/sch_hbh.ko" || exit 1
C=10000000

hbh_chain || exit 1
allow_cc reno
iperf3_servers "$H1" 5201

HOPRTT=$(hoprtt_of "$H0" 10.0.0.2)
E2ERTT=$(hoprtt_of "$H0" 10.3.0.2)
echo "# hop round trip $HOPRTT, end-to-end $E2ERTT" >&2

# nodes MODE XSTAR BMAX: every node's qdisc; the sources hold what
# they may not send yet (2000 packets), the routers BMAX per connection
nodes() {
	local mode=$1 sp=$2 b=$3 src=()
	[ "$mode" = e2e ] && src=(hoprtt "$E2ERTT")
	hbh_down "$H0" 50mbit flow_limit 2000 limit 10000 mode "$mode" "${src[@]}" &&
	hbh_down "$X" 50mbit mode fifo limit 10000 &&	# uncontrolled cross traffic
	hbh_down "$R1" 50mbit flow_limit "$b" setpoint "$sp" mode "$mode" &&
	hbh_down "$R2" 10mbit flow_limit "$b" setpoint "$sp" mode "$mode" &&
	hbh_down "$R3" 50mbit mode "$mode"
}
# fifo BUFFER: drop-tail everywhere, BUFFER packets at the bottleneck
fifo() {
	hbh_down "$H0" 50mbit mode fifo limit 10000 && hbh_down "$X" 50mbit mode fifo limit 10000 &&
	hbh_down "$R1" 50mbit mode fifo limit "$1" && hbh_down "$R2" 10mbit mode fifo limit "$1" &&
	hbh_down "$R3" 50mbit mode fifo limit 10000
}
drops() { qdisc_stat "$1" down drops; }

# run NAME SECONDS KIND [CROSS]: one connection h0 -> h1 (KIND udp: 40
# Mbit/s offered; tcp: reno), r2 sampled every 20 ms; CROSS: bursts from x
# during 1 .. SECONDS-1 s.  Appends one JSON line to $raw/runs.
run() {
	local name=$1 secs=$2 kind=$3 cross=${4:-} smp xs d0 d1 d2 d3
	d0=$(drops "$H0") d1=$(drops "$R1") d2=$(drops "$R2") d3=$(drops "$R3")
	"$SELFTESTS_DIR/qdisc_sample.py" "$R2" down $((secs + 1)) 20 >"$raw/$name.q" &
	smp=$!
	busywait 20000 test -s "$raw/$name.q"
	if [ -n "$cross" ]; then
		(
			export PYTHONPATH=$top/tools
			ip netns exec "$H1" python3 -m congavoid_exp.gen sink 5301 \
				"$(python3 -c "import time; print(time.monotonic() + $secs + 1)")" \
				"$raw/$name.sink" &
			sleep 1
			ip netns exec "$X" python3 -m congavoid_exp.gen send 10.3.0.2 5301 bursts \
				50e6 1400 $((secs - 2)) 0.02 0.4 >"$raw/$name.cross"
			wait
		) &
		xs=$!
	fi
	if [ "$kind" = udp ]; then
		ip netns exec "$H0" iperf3 -c 10.3.0.2 -p 5201 -u -b 40M -l 1400 -w 2M \
			-t "$secs" -J >"$raw/$name.iperf" 2>/dev/null
	else
		ip netns exec "$H0" iperf3 -c 10.3.0.2 -p 5201 -C reno -w 512K \
			-t "$secs" -J >"$raw/$name.iperf" 2>/dev/null
	fi
	wait $smp ${xs:-}
	printf '{"name": "%s", "kind": "%s", "drops": {"h0": %d, "r1": %d, "r2": %d, "r3": %d}}\n' \
		"$name" "$kind" $(($(drops "$H0") - d0)) $(($(drops "$R1") - d1)) \
		$(($(drops "$R2") - d2)) $(($(drops "$R3") - d3)) >>"$raw/runs"
	echo "# $name done" >&2
}

# REPS repetitions (HBH_PAPER_REPS, default 3) of every run, one after
# another in the same boot; run NAME.rK
REPS=${HBH_PAPER_REPS:-3}
for rep in $(seq 1 "$REPS"); do
	# Config 1
	fifo 100;		run "c1_fifo_udp.r$rep" 5 udp	# what a shaper carries on this guest
	nodes hbh 50 100;	run "c1_hbh_udp.r$rep" 8 udp
	nodes hbh 50 100;	run "c1_hbh_tcp.r$rep" 8 tcp
	fifo 100;		run "c1_reno_fifo.r$rep" 8 tcp
	nodes hbh 10 20;	run "c1_hbh_tcp_b20.r$rep" 8 tcp
	fifo 20;		run "c1_reno_fifo_b20.r$rep" 8 tcp
	# Table 1
	for sb in "10 20" "50 100" "200 400"; do
		set -- $sb
		for mode in hbh e2e; do
			nodes "$mode" "$1" "$2"
			run "t1_${mode}_$1_$2.r$rep" 12 udp cross
		done
	done
done

python3 - "$raw" "$out/hbh_paper-$krel" "$krel" "$HOPRTT" "$E2ERTT" "$C" "$top" <<'EOF' || exit 1
import json, os, sys

raw, base, krel, hoprtt, e2ertt, c, top = sys.argv[1:8]
c = float(c)
sys.path.insert(0, os.path.join(top, "tools"))
from congavoid_exp.metrics import percentile  # noqa: E402
from congavoid_exp.pages import mean_sd  # noqa: E402


def series(name):
    rows = []
    for line in open(os.path.join(raw, name + ".q")):
        if not line.startswith("#"):
            t, b, q, _, bq = (float(x) for x in line.split()[:5])
            rows.append((t, b, q, bq))
    return rows


def analyse(rows, full):
    """fill: ms from the first 20 ms with data to the first 100 ms at
    >= 95% of FULL; util, queue (packets) and queueing delay (the
    backlog's bytes at C, ms; median and 99th percentile of the 20 ms
    samples) from 1 s after the start to the end.  None: no figure (no
    data went through)."""
    none = dict(fill_ms=None, util=None, q_mean=None, q_max=None,
                qdelay_p50_ms=None, qdelay_p99_ms=None)
    start = next((i for i in range(1, len(rows))
                  if (rows[i][1] - rows[i - 1][1]) * 8
                  / ((rows[i][0] - rows[i - 1][0]) / 1e3) > 1e6), None)
    if start is None:
        return none
    fill = None
    for i in range(start, len(rows)):
        j = next((j for j in range(i, len(rows))
                  if rows[j][0] - rows[i][0] >= 100), None)
        if j is None:
            break
        if (rows[j][1] - rows[i][1]) * 8 / ((rows[j][0] - rows[i][0]) / 1e3) \
                >= 0.95 * full:
            fill = rows[i][0] - rows[start - 1][0]
            break
    i = next((i for i in range(start, len(rows))
              if rows[i][0] - rows[start][0] >= 1000), len(rows) - 1)
    k = len(rows) - 1
    while k > i and rows[k][1] == rows[k - 1][1]:
        k -= 1
    if k <= i:
        return dict(none, fill_ms=fill)
    util = (rows[k][1] - rows[i][1]) * 8 / ((rows[k][0] - rows[i][0]) / 1e3) \
        / c
    qs = [r[2] for r in rows[i:k + 1]]
    ds = [r[3] * 8 / c * 1e3 for r in rows[i:k + 1]]
    return dict(fill_ms=fill, util=util, q_mean=sum(qs) / len(qs),
                q_max=max(qs), qdelay_p50_ms=percentile(ds, 50),
                qdelay_p99_ms=percentile(ds, 99))


runs = {}
for line in open(os.path.join(raw, "runs")):
    r = json.loads(line)
    r["run"], _, rep = r["name"].rpartition(".r")
    r["rep"] = int(rep)
    ip = json.load(open(os.path.join(raw, r["name"] + ".iperf")))
    end = ip.get("end", {})
    if r["kind"] == "udp":
        s = end.get("sum", {})
        got = end.get("sum_received", s)  # received, where iperf3 says it
        r.update(bps=got.get("bits_per_second"),
                 sent=s.get("packets"), lost=s.get("lost_packets"))
    else:
        r.update(bps=end.get("sum_received", {}).get("bits_per_second"),
                 rtx=end.get("sum_sent", {}).get("retransmits"))
    cross = os.path.join(raw, r["name"] + ".cross")
    if os.path.exists(cross):
        sent = json.load(open(cross))["sent_packets"]
        got = json.load(open(os.path.join(raw, r["name"] + ".sink")))["packets"]
        r["cross"] = {"sent": sent, "received": got}
    runs[r["name"]] = r

# what drop-tail at the same shaper carries, each repetition its own
for n, r in runs.items():
    if r["run"] == "c1_fifo_udp":
        r.update(analyse(series(n), c))
        r["carried"] = r["util"] * c if r["util"] else None
for n, r in runs.items():
    if r["run"] != "c1_fifo_udp":
        full = runs[f"c1_fifo_udp.r{r['rep']}"].get("carried")
        r.update(analyse(series(n), full if full else c))
    if r["run"].startswith("t1_"):
        r["loss1"] = r["loss2"] = None  # iperf3 reported nothing: no figure
        if r["sent"] is not None and r["lost"] is not None:
            net = max(r["sent"] - r["drops"]["h0"], 1)
            loss1 = max(r["lost"] - r["drops"]["h0"] - r["drops"]["r1"], 0)
            r["loss1"], r["loss2"] = loss1 / net, r["drops"]["r1"] / net
        r["cross_lost"] = r["cross"]["sent"] - r["cross"]["received"]

reps = sorted({r["rep"] for r in runs.values()})


def each(run, key):
    """KEY of RUN in every repetition (None where one lacks it)."""
    return [runs.get(f"{run}.r{k}", {}).get(key) for k in reps]


def cell(run, key, fmt, scale=1.0):
    m, sd = mean_sd(each(run, key))
    if m is None:
        return "–"
    return fmt.format(m * scale) + ("" if sd is None else
                                    " ± " + fmt.format(sd * scale))


summary = {}
for run in sorted({r["run"] for r in runs.values()}):
    summary[run] = {k: dict(zip(("mean", "sd"), mean_sd(each(run, k))))
                    for k in ("bps", "fill_ms", "util", "q_mean", "q_max",
                              "qdelay_p50_ms", "qdelay_p99_ms", "rtx",
                              "lost", "loss1", "loss2", "cross_lost")}
carried, _ = mean_sd(each("c1_fifo_udp", "carried"))
lines = [f"# sch_hbh: the paper's Config 1 and Table 1, scaled ({krel})", "",
         f"Chain h0-r1-r2-r3-h1, 10 ms per link, bottleneck r2->r3 10 Mbit/s, "
         f"other links 50 Mbit/s; hop RTT {hoprtt}, end-to-end {e2ertt}. "
         f"Drop-tail at the same shaper carries "
         f"{'–' if carried is None else f'{carried / 1e6:.2f}'} Mbit/s on "
         f"this guest; fill = ms to the first 100 ms at 95% of that.  "
         f"{len(reps)} repetitions of every run, one after another in one "
         f"boot: each cell is the mean ± sample standard deviation; "
         f"qdelay: the bottleneck's backlog in bytes at 10 Mbit/s, from "
         f"its 20 ms samples (median and 99th percentile of each run, "
         f"averaged).", "",
         "## Config 1: one connection, HBH against Reno over drop-tail", "",
         "| run | Mbit/s | fill ms | util | queue mean | queue max "
         "| qdelay p50 ms | qdelay p99 ms | drops r1 | drops r2 "
         "| lost or rtx |",
         "|---|---|---|---|---|---|---|---|---|---|---|"]
for run in ("c1_hbh_udp", "c1_hbh_tcp", "c1_reno_fifo", "c1_hbh_tcp_b20",
            "c1_reno_fifo_b20"):
    kind = runs[f"{run}.r{reps[0]}"]["kind"]
    drops = [runs[f"{run}.r{k}"]["drops"] for k in reps]
    lines.append(
        f"| {run} | {cell(run, 'bps', '{:.2f}', 1e-6)} "
        f"| {cell(run, 'fill_ms', '{:.0f}')} | {cell(run, 'util', '{:.2f}')} "
        f"| {cell(run, 'q_mean', '{:.1f}')} | {cell(run, 'q_max', '{:.0f}')} "
        f"| {cell(run, 'qdelay_p50_ms', '{:.1f}')} "
        f"| {cell(run, 'qdelay_p99_ms', '{:.1f}')} "
        f"| {'/'.join(str(d['r1']) for d in drops)} "
        f"| {'/'.join(str(d['r2']) for d in drops)} "
        f"| {'lost' if kind == 'udp' else 'rtx'} "
        f"{cell(run, 'lost' if kind == 'udp' else 'rtx', '{:.1f}')} |")
lines += ["", "(drops: each repetition's count, in order.)", "",
          "## Table 1: against uncontrolled bursts at r2, HBH and E2E", "",
          "Loss1: the connection's packets lost at the bottleneck r2 or after "
          "it (iperf3's lost minus the drops at h0 and r1, floored at 0: "
          "drops of the last packets leave no gap for iperf3 to count); "
          "Loss2: dropped at r1; both per packet the source sent (h0's own "
          "queue excluded).  r2's drops include the cross traffic's.", "",
          "| scheme (x*, bmax) | Mbit/s | Loss1 % | Loss2 % | r2 queue mean "
          "| r2 queue max | qdelay p50 ms | qdelay p99 ms | cross lost |",
          "|---|---|---|---|---|---|---|---|---|"]
for sp, b in (("10", "20"), ("50", "100"), ("200", "400")):
    for mode in ("hbh", "e2e"):
        run = f"t1_{mode}_{sp}_{b}"
        sent = runs[f"{run}.r{reps[0]}"]["cross"]["sent"]
        lines.append(
            f"| {mode.upper()}({sp},{b}) | {cell(run, 'bps', '{:.2f}', 1e-6)} "
            f"| {cell(run, 'loss1', '{:.2f}', 100)} "
            f"| {cell(run, 'loss2', '{:.2f}', 100)} "
            f"| {cell(run, 'q_mean', '{:.1f}')} | {cell(run, 'q_max', '{:.0f}')} "
            f"| {cell(run, 'qdelay_p50_ms', '{:.1f}')} "
            f"| {cell(run, 'qdelay_p99_ms', '{:.1f}')} "
            f"| {cell(run, 'cross_lost', '{:.0f}')} of {sent} |")
json.dump({"kernel": krel, "hoprtt": hoprtt, "e2ertt": e2ertt,
           "repetitions": len(reps), "fifo_carried_bps": carried,
           "summary": summary, "runs": runs},
          open(base + ".json", "w"), indent=1)
open(base + ".md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
EOF
# the headline plot (matplotlib is in the project's venv, not Debian's
# python3 here); no plot, no page
"$top/.venv/bin/python" "$top/selftests/bench/hbh_paper_plot.py" \
	"$out/hbh_paper-$krel.json" "$out/hbh_paper-$krel.png" || exit 1
BENCH_CMD=$bench_cmd python3 "$top/selftests/bench/benchstat.py" page \
	hbh_paper "sch_hbh against Mishra & Kanakia: Config 1 and Table 1" \
	"$out/hbh_paper-$krel.md" --raw "$out/hbh_paper-$krel.json" \
	--figure "$out/hbh_paper-$krel.png=Throughput against queueing delay at the bottleneck r2, a point per run: the marker is the mean over the repetitions of the connection's throughput and of the median delay (the backlog's bytes at 10 Mbit/s, 20 ms samples); the whisker to the right reaches the mean 99th percentile, the vertical bar is ± one standard deviation of the throughput, the small dots are the single repetitions.  Left: Config 1; right: Table 1 (against bursts)."
