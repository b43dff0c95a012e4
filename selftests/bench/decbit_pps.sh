#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Per-packet cost of sch_decbit: small-packet forwarding rate through a
# router namespace with "decbit" as the root qdisc of its egress, against
# "pfifo", alternated ROUNDS times in the same boot.  Run it in the VM:
#
#   tools/vm 6.12 -- selftests/bench/decbit_pps.sh [ROUNDS] [SECONDS]
#
# DECBIT_OPTS adds options to the decbit arm, e.g. "pool 1 pool_limit
# 100000" to measure admission through a shared buffer pool.
#
# The load is pktgen (60-byte UDP frames, as fast as it can) on the
# sender's veth, not a userspace sender: under TCG iperf3 itself is the
# bottleneck and its rate swings by +-20% between runs, which hides a
# 5% difference.  pktgen runs without a break for the whole benchmark;
# each round replaces r1's root qdisc, lets one second pass, and counts
# what the new qdisc sends in SECONDS.  The two qdiscs take turns in
# going first, and each round gives its own decbit/pfifo ratio, so a
# drift in the host's speed during the run cancels out.  A one-vCPU guest
# (tools/vm --cpus 1) is the least noisy.
#
# Writes results/bench/decbit_pps-<kernel>.json, prints a table and writes
# the results page docs/results/decbit_pps-<kernel>.md (selftests/bench/benchstat.py).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"
bench_cmd=$( { [ -z "${DECBIT_OPTS:-}" ] || printf 'env %q ' "DECBIT_OPTS=$DECBIT_OPTS"
	     printf '%q ' selftests/bench/decbit_pps.sh "$@"; } )
rounds=${1:-8}
secs=${2:-4}
krel=$(uname -r)
out=$top/results/bench
mkdir -p "$out"

grep -q '^sch_decbit ' /proc/modules || insmod "$top/build/$krel/sch_decbit/sch_decbit.ko" || exit 1
modprobe pktgen || { echo "# pktgen is not available" >&2; exit 4; }
dumbbell 1 >/dev/null || exit 1
ip netns exec "$R1" tc qdisc add dev rb0 root pfifo limit 1000

. "$top/selftests/bench/lib_pktgen.sh"
rmac=$(ip -n "$R1" -br link show rs1 | awk '{ print $3 }')
pktgen_start "$S1" eth0 10.9.0.2 "$rmac" 1 1 || exit 1

run() {	# run QDISC ARGS...: packets per second the new root qdisc of rb0 sends
	ip netns exec "$R1" tc qdisc replace dev rb0 root "$@" || return 1
	qdisc_pps "$R1" rb0 "$secs"
}

# pfifo (limit >= 1 packet) may bypass itself: an arrival at an empty,
# idle pfifo goes straight to the driver without enqueue or dequeue, and
# on veth the queue is always empty.  decbit must see every arrival (its
# average and cycles are made of them), so it never bypasses.  bfifo with
# a byte limit below the MTU runs the same FIFO code without the bypass;
# it separates the cost of the qdisc path from that of the algorithm.
res=$(rotate_rounds "$rounds" "pfifo pfifo limit 1000" "bfifo bfifo limit 1000" \
	"decbit decbit limit 1000 ${DECBIT_OPTS:-}") || exit 1
pktgen_stop
pktgen_done

printf '%s\n' "$res" | BENCH_CMD=$bench_cmd python3 "$top/selftests/bench/benchstat.py" pps \
	decbit_pps "Per-packet cost of decbit as a router's root qdisc (veth)" \
	"$out/decbit_pps-$krel.json" \
	--load "pktgen, 60-byte frames through a veth router; $secs s per arm and round${DECBIT_OPTS:+; decbit options: $DECBIT_OPTS}" \
	--ratio "decbit/pfifo=decbit/pfifo" --ratio "decbit/bfifo=decbit/bfifo" \
	--ratio "bfifo/pfifo=bfifo/pfifo"
