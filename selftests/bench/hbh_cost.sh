#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Where sch_hbh's per-packet cost goes, under nic_pps.sh's load (pktgen on
# h0, 60-byte UDP from 1 000 random source ports, a router between
# virtio-net NICs in a TCG guest), as ratios within one boot:
#
#   pfifo            no per-flow work at all
#   fq               on Linux 6.7 and later sends a packet by its fast path
#                    (no flow lookup) while no flow has packets waiting
#   fqslow           fq with "maxrate 10gbit", which turns the fast path
#                    off: fq's per-flow path (plus a division per packet)
#   hbhfifo          hbh in mode fifo: no classification, no timer
#   hbhslow          hbh with period 100ms: classification, a rare timer
#   hbhquiet         hbh, with r's upstream MTU at 68: the timer runs every
#                    period but no report frame fits, none is sent
#   hbh              hbh as nic_pps.sh runs it (period 4ms, reports to h0)
#
# So hbhslow/hbhfifo is the cost of classification, hbh/hbhslow that of
# the timer with its reports, and hbh/hbhquiet that of the report frames
# alone (their transmission at r and their reception at h0, which share
# the guest's one vCPU with the router).  Run it in a VM with the NICs:
#
#   tools/vm --nics 2 --cpus 1 6.12 -- selftests/bench/hbh_cost.sh [ROUNDS] [SECONDS]
#
# Writes results/bench/hbh_cost-<kernel>.json and the results page
# docs/results/hbh_cost-<kernel>.md (selftests/bench/benchstat.py).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"
bench_cmd=$(printf '%q ' selftests/bench/hbh_cost.sh "$@")
rounds=${1:-10}
secs=${2:-2}
krel=$(uname -r)
out=$top/results/bench
mkdir -p "$out"

grep -q "^sch_hbh " /proc/modules || insmod "$top/build/$krel/sch_hbh/sch_hbh.ko" || exit 1
modprobe pktgen || { echo "# pktgen is not available" >&2; exit 4; }
nic_router >/dev/null || exit 1

. "$top/selftests/bench/lib_pktgen.sh"
rmac=$(ip -n "$R" -br link show nic0 | awk '{ print $3 }')
# run [MTU68] QDISC ARGS...: packets per second the new root qdisc sends;
# MTU68: with r's upstream device (nic0, where reports go) at MTU 68
run() {
	local mtu=1500
	[ "$1" = MTU68 ] && { mtu=68; shift; }
	ip -n "$R" link set dev nic0 mtu "$mtu" || return 1
	tc -n "$R" qdisc del dev nic1 root 2>/dev/null
	tc -n "$R" qdisc add dev nic1 root "$@" || return 1
	qdisc_pps "$R" nic1 "$secs"
}

pktgen_start "$H0" nic0 10.51.0.2 "$rmac" 1 1000 || exit 1
res=$(rotate_rounds "$rounds" "pfifo pfifo limit 1000" "fq fq" "fqslow fq maxrate 10gbit" \
	"hbhfifo hbh rate 10gbit mode fifo" "hbhslow hbh rate 10gbit period 100ms" \
	"hbhquiet MTU68 hbh rate 10gbit" "hbh hbh rate 10gbit") || exit 1
pktgen_stop
pktgen_done

printf '%s\n' "$res" | BENCH_CMD=$bench_cmd python3 "$top/selftests/bench/benchstat.py" pps \
	hbh_cost "Where hbh's per-packet cost goes, between virtio-net NICs (TCG guest)" \
	"$out/hbh_cost-$krel.json" \
	--load "pktgen on h0, 60-byte UDP from 1 000 random source ports, through a router between virtio-net NICs (4 queue pairs, GRO on); $secs s per arm and round; hbh at a rate far above what the router forwards.  fqslow: fq maxrate 10gbit (no fast path); hbhfifo: hbh mode fifo (no classification, no timer); hbhslow: period 100ms; hbhquiet: r's upstream MTU 68 (the timer runs, no report frame is sent)" \
	--ratio "fq without its fast path/fq=fqslow/fq" \
	--ratio "hbh fifo/fq without its fast path=hbhfifo/fqslow" \
	--ratio "classification (hbhslow/hbhfifo)=hbhslow/hbhfifo" \
	--ratio "timer and reports (hbh/hbhslow)=hbh/hbhslow" \
	--ratio "report frames (hbh/hbhquiet)=hbh/hbhquiet" \
	--ratio "hbh/fq=hbh/fq" \
	--ratio "hbh/fq without its fast path=hbh/fqslow"
