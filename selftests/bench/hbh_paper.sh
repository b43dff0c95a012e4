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
# Writes results/bench/hbh_paper-<kernel>.json and .md, prints the table and
# writes the results page docs/results/hbh_paper-<kernel>.md.
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

# Config 1
fifo 100;		run c1_fifo_udp 5 udp	# what a shaper carries on this guest
nodes hbh 50 100;	run c1_hbh_udp 8 udp
nodes hbh 50 100;	run c1_hbh_tcp 8 tcp
fifo 100;		run c1_reno_fifo 8 tcp
nodes hbh 10 20;	run c1_hbh_tcp_b20 8 tcp
fifo 20;		run c1_reno_fifo_b20 8 tcp
# Table 1
for sb in "10 20" "50 100" "200 400"; do
	set -- $sb
	for mode in hbh e2e; do
		nodes "$mode" "$1" "$2"
		run "t1_${mode}_$1_$2" 12 udp cross
	done
done

python3 - "$raw" "$out/hbh_paper-$krel" "$krel" "$HOPRTT" "$E2ERTT" "$C" <<'EOF' || exit 1
import json, os, sys

raw, base, krel, hoprtt, e2ertt, c = sys.argv[1:7]
c = float(c)


def series(name):
    rows = []
    for line in open(os.path.join(raw, name + ".q")):
        if not line.startswith("#"):
            t, b, q = (float(x) for x in line.split()[:3])
            rows.append((t, b, q))
    return rows


def analyse(rows, full):
    """fill: ms from the first 20 ms with data to the first 100 ms at
    >= 95% of FULL; util and queue from 1 s after the start to the end."""
    start = next((i for i in range(1, len(rows))
                  if (rows[i][1] - rows[i - 1][1]) * 8
                  / ((rows[i][0] - rows[i - 1][0]) / 1e3) > 1e6), None)
    if start is None:
        return None, 0.0, 0.0, 0
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
    util = (rows[k][1] - rows[i][1]) * 8 / ((rows[k][0] - rows[i][0]) / 1e3) \
        / c if k > i else 0.0
    qs = [r[2] for r in rows[i:k + 1]] or [0]
    return fill, util, sum(qs) / len(qs), max(qs)


runs = {}
for line in open(os.path.join(raw, "runs")):
    r = json.loads(line)
    ip = json.load(open(os.path.join(raw, r["name"] + ".iperf")))
    end = ip.get("end", {})
    if r["kind"] == "udp":
        s = end.get("sum", {})
        got = end.get("sum_received", s)  # received, where iperf3 says it
        r.update(bps=got.get("bits_per_second", 0),
                 sent=s.get("packets", 0), lost=s.get("lost_packets", 0))
    else:
        r.update(bps=end.get("sum_received", {}).get("bits_per_second", 0),
                 rtx=end.get("sum_sent", {}).get("retransmits", 0))
    cross = os.path.join(raw, r["name"] + ".cross")
    if os.path.exists(cross):
        sent = json.load(open(cross))["sent_packets"]
        got = json.load(open(os.path.join(raw, r["name"] + ".sink")))["packets"]
        r["cross"] = {"sent": sent, "received": got}
    runs[r["name"]] = r

full = runs["c1_fifo_udp"]
full["fill_ms"], full["util"], full["q_mean"], full["q_max"] = \
    analyse(series("c1_fifo_udp"), c)
carried = full["util"] * c
for n, r in runs.items():
    if n != "c1_fifo_udp":
        r["fill_ms"], r["util"], r["q_mean"], r["q_max"] = \
            analyse(series(n), carried)

lines = [f"# sch_hbh: the paper's Config 1 and Table 1, scaled ({krel})", "",
         f"Chain h0-r1-r2-r3-h1, 10 ms per link, bottleneck r2->r3 10 Mbit/s, "
         f"other links 50 Mbit/s; hop RTT {hoprtt}, end-to-end {e2ertt}. "
         f"Drop-tail at the same shaper carries {carried / 1e6:.2f} Mbit/s on "
         f"this guest; fill = ms to the first 100 ms at 95% of that.", "",
         "## Config 1: one connection, HBH against Reno over drop-tail", "",
         "| run | Mbit/s | fill ms | util | queue mean/max | drops r1/r2 | lost or rtx |",
         "|---|---|---|---|---|---|---|"]
for n in ("c1_hbh_udp", "c1_hbh_tcp", "c1_reno_fifo", "c1_hbh_tcp_b20",
          "c1_reno_fifo_b20"):
    r = runs[n]
    lr = f"lost {r['lost']}" if r["kind"] == "udp" else f"rtx {r['rtx']}"
    lines.append(f"| {n} | {r['bps'] / 1e6:.2f} | {r['fill_ms'] if r['fill_ms'] is not None else '-'} "
                 f"| {r['util']:.2f} | {r['q_mean']:.1f}/{r['q_max']:.0f} "
                 f"| {r['drops']['r1']}/{r['drops']['r2']} | {lr} |")
lines += ["", "## Table 1: against uncontrolled bursts at r2, HBH and E2E", "",
          "Loss1: the connection's packets lost at the bottleneck r2 or after "
          "it (iperf3's lost minus the drops at h0 and r1, floored at 0: "
          "drops of the last packets leave no gap for iperf3 to count); "
          "Loss2: dropped at r1; both per packet the source sent (h0's own "
          "queue excluded).  r2's drops include the cross traffic's.", "",
          "| scheme (x*, bmax) | Mbit/s | Loss1 | Loss2 | drops r1/r2 | r2 queue mean/max | cross lost |",
          "|---|---|---|---|---|---|---|"]
for n, r in runs.items():
    if not n.startswith("t1_"):
        continue
    _, mode, sp, b = n.split("_")
    net = max(r["sent"] - r["drops"]["h0"], 1)
    x = r["cross"]
    loss1 = max(r["lost"] - r["drops"]["h0"] - r["drops"]["r1"], 0)
    r["loss1"], r["loss2"] = loss1 / net, r["drops"]["r1"] / net
    lines.append(f"| {mode.upper()}({sp},{b}) | {r['bps'] / 1e6:.2f} "
                 f"| {100 * r['loss1']:.2f}% | {100 * r['loss2']:.2f}% "
                 f"| {r['drops']['r1']}/{r['drops']['r2']} "
                 f"| {r['q_mean']:.1f}/{r['q_max']:.0f} "
                 f"| {x['sent'] - x['received']} of {x['sent']} |")
json.dump({"kernel": krel, "hoprtt": hoprtt, "e2ertt": e2ertt,
           "fifo_carried_bps": carried, "runs": runs},
          open(base + ".json", "w"), indent=1)
open(base + ".md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
EOF
BENCH_CMD=$bench_cmd python3 "$top/selftests/bench/benchstat.py" page \
	hbh_paper "sch_hbh against Mishra & Kanakia: Config 1 and Table 1" \
	"$out/hbh_paper-$krel.md" --raw "$out/hbh_paper-$krel.json"
