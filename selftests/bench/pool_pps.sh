#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Cost of sch_decbit's shared buffer pool when several CPUs admit packets
# into it at once: a router between real NICs (virtio-net, four queue
# pairs: selftests/lib.sh nic_router) with "mq" on its egress and one
# decbit per tx queue, all four in one pool, against the same four
# without a pool and against pfifo, as ratios within one boot.  Run it in
# a VM with two vCPUs and the NICs:
#
#   tools/vm --nics 2 --cpus 2 6.12 -- selftests/bench/pool_pps.sh [ROUNDS] [SECONDS] [append]
#
# With "append" the rounds are added to those already in the JSON file,
# so that a long series can be taken in several boots (a guest under TCG
# with pktgen at full load has been seen to power off after 15-20 min).
#
# Two pktgen threads on h0 (one per vCPU, one tx queue each) send 60-byte
# UDP frames from 1 000 source ports at random; r receives them on
# several queues and forwards on both vCPUs, so the four decbit instances
# take packets from two CPUs at the same time and each admission is a
# compare-and-swap on the pool's one counter.  Each round replaces the
# children of r's mq in turn (the order rotates every round), waits one
# second and counts what the root sends in SECONDS.
#
# DECBIT_KO=PATH loads another build of sch_decbit (an older revision, to
# compare), POOL_TAG=-NAME names its results file.
#
# Writes results/bench/pool_pps-<kernel>[POOL_TAG].json, prints a table and
# writes the page docs/results/pool_pps[POOL_TAG]-<kernel>.md (benchstat.py).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"
bench_cmd=$( { [ -z "${DECBIT_KO:-}" ] || printf 'env %q ' "DECBIT_KO=$DECBIT_KO"
	     [ -z "${POOL_TAG:-}" ] || printf 'env %q ' "POOL_TAG=$POOL_TAG"
	     printf '%q ' selftests/bench/pool_pps.sh "$@"; } )
rounds=${1:-20}
secs=${2:-2}
append=${3:-}
case $append in ""|append) ;; *) echo "pool_pps: third argument: append or nothing" >&2; exit 2 ;; esac
krel=$(uname -r)
out=$top/results/bench
mkdir -p "$out"

grep -q "^sch_decbit " /proc/modules ||
	insmod "${DECBIT_KO:-$top/build/$krel/sch_decbit/sch_decbit.ko}" || exit 1
modprobe pktgen || { echo "# pktgen is not available" >&2; exit 4; }
nic_router >/dev/null || exit 1
ncpu=$(nproc)
[ "$ncpu" -ge 2 ] || echo "# warning: $ncpu vCPU: nothing contends (tools/vm --cpus 2)" >&2

. "$top/selftests/bench/lib_pktgen.sh"
rmac=$(ip -n "$R" -br link show nic0 | awk '{ print $3 }')
ntxq=$(ip netns exec "$R" sh -c 'ls -d /sys/class/net/nic1/queues/tx-*' | wc -l)
# arm ARGS...: mq on nic1, ARGS as the qdisc of every tx queue
arm() {
	local q
	tc -n "$R" qdisc del dev nic1 root 2>/dev/null
	tc -n "$R" qdisc add dev nic1 root handle 1: mq || return 1
	for q in $(seq 1 "$ntxq"); do
		tc -n "$R" qdisc add dev nic1 parent "1:$(printf %x "$q")" "$@" || return 1
	done
}
run() {	# run ARGS...: packets per second r's egress sends with that arm
	arm "$@" || return 1
	qdisc_pps "$R" nic1 "$secs"
}

wedged() {	# (see nic_pps.sh): the run is void
	echo "# no packet forwarded with: $*" >&2
	tc -n "$R" -s qdisc show dev nic1 | sed 's/^/#   /' >&2
	exit 1
}
pktgen_start "$H0" nic0 10.51.0.2 "$rmac" $((ncpu > 1 ? 2 : 1)) 1000 || exit 1
res=$(rotate_rounds "$rounds" "pfifo pfifo limit 1000" "decbit decbit limit 1000" \
	"pooled decbit limit 1000 pool 1 pool_limit 100000") || exit 1
pktgen_stop
pktgen_done

printf '%s\n' "$res" | BENCH_CMD=$bench_cmd python3 "$top/selftests/bench/benchstat.py" pps \
	"pool_pps${POOL_TAG:-}" "Cost of a shared decbit pool under contention${POOL_TAG:+ ($POOL_TAG)}" \
	"$out/pool_pps-$krel${POOL_TAG:-}.json" ${append:+--append} \
	--load "2 pktgen threads, 60-byte UDP from 1 000 source ports, through a router whose virtio-net egress has mq with one decbit per tx queue ($ntxq), $ncpu vCPUs; $secs s per arm and round" \
	--meta "module=${DECBIT_KO:-build/$krel/sch_decbit/sch_decbit.ko}" \
	--ratio "pooled/decbit=pooled/decbit" --ratio "decbit/pfifo=decbit/pfifo" \
	--ratio "pooled/pfifo=pooled/pfifo"
