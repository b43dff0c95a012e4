#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Per-packet cost of sch_decbit and sch_hbh on a router between virtio-net
# NICs in a TCG guest (four queue pairs, GRO on: selftests/lib.sh
# nic_router), as ratios within one boot: decbit against pfifo, hbh (with
# and without a key: keyed, every report it sends is tagged) against fq
# with 1 000 flows, hbh against fq with 10 000.  Run it in a VM with the NICs:
#
#   tools/vm --nics 2 --cpus 1 6.12 -- selftests/bench/nic_pps.sh [ROUNDS] [SECONDS]
#
# pktgen on h0 sends 60-byte UDP frames as fast as it can, from FLOWS
# source ports at random; each round replaces r's root qdisc on its egress
# in turn (the order rotates every round), waits one second and counts
# what the new qdisc sends in SECONDS.  Every round gives its own ratios,
# so a drift in the host's speed cancels out.  hbh runs with a rate far
# above what the router forwards, so that it measures its per-flow work,
# not its shaper.
#
# Writes results/bench/nic_pps-<kernel>.json, prints a table and writes
# the results page docs/results/nic_pps-<kernel>.md (selftests/bench/benchstat.py).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"
bench_cmd=$(printf '%q ' selftests/bench/nic_pps.sh "$@")
rounds=${1:-30}
secs=${2:-2}
krel=$(uname -r)
out=$top/results/bench
mkdir -p "$out"

for m in sch_decbit sch_hbh; do
	grep -q "^$m " /proc/modules || insmod "$top/build/$krel/$m/$m.ko" || exit 1
done
modprobe pktgen || { echo "# pktgen is not available" >&2; exit 4; }
nic_router >/dev/null || exit 1

. "$top/selftests/bench/lib_pktgen.sh"
rmac=$(ip -n "$R" -br link show nic0 | awk '{ print $3 }')
run() {	# run QDISC ARGS...: packets per second the new root qdisc sends
	tc -n "$R" qdisc del dev nic1 root 2>/dev/null
	tc -n "$R" qdisc add dev nic1 root "$@" || return 1
	qdisc_pps "$R" nic1 "$secs"
}

# wedged: why an arm forwarded nothing (seen once on 6.1 after 10 good
# rounds: every arm 0 from then on); the run is void
wedged() {
	{
		echo "# no packet forwarded with: $*"
		tc -n "$R" -s qdisc show dev nic1
		ip -n "$R" -s link show nic0
		ip -n "$R" -s link show nic1
		ip -n "$H0" -s link show nic0
		ip netns exec "$R" sh -c 'grep . /sys/class/net/nic1/queues/tx-*/byte_queue_limits/inflight' 2>/dev/null
		ip netns exec "$H0" sh -c 'grep -A2 "^Result" /proc/net/pktgen/nic0'
	} | sed 's/^/#   /' >&2
	exit 1
}

# pass FLOWS "NAME QDISC ARGS"...: the arms' rounds with FLOWS flows
pass() {
	local flows=$1 a n rest
	shift
	local -a arms=()
	for a in "$@"; do
		read -r n rest <<<"$a"
		arms+=("$n@$flows $rest")
	done
	pktgen_start "$H0" nic0 10.51.0.2 "$rmac" 1 "$flows" || exit 1
	rotate_rounds "$rounds" "${arms[@]}" || exit 1
	pktgen_stop
}
# a 256-bit key: every report r sends upstream is tagged (keyed BLAKE2s)
key=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
res=$( (pass 1000 "pfifo pfifo limit 1000" "decbit decbit limit 1000" "fq fq" \
	"hbh hbh rate 10gbit" "hbhkey hbh rate 10gbit key $key"; pass 10000 "fq fq" "hbh hbh rate 10gbit") ) || exit 1
pktgen_done

printf '%s\n' "$res" | BENCH_CMD=$bench_cmd python3 "$top/selftests/bench/benchstat.py" pps \
	nic_pps "Per-packet cost of decbit and hbh between virtio-net NICs (TCG guest)" \
	"$out/nic_pps-$krel.json" \
	--load "pktgen on h0, 60-byte UDP from 1 000 or 10 000 random source ports, through a router between virtio-net NICs (4 queue pairs, GRO on); $secs s per arm and round; hbh at a rate far above what the router forwards" \
	--ratio "decbit/pfifo (1000 flows)=decbit@1000/pfifo@1000" \
	--ratio "hbh/fq (1000 flows)=hbh@1000/fq@1000" \
	--ratio "hbh keyed/fq (1000 flows)=hbhkey@1000/fq@1000" \
	--ratio "hbh keyed/hbh (1000 flows)=hbhkey@1000/hbh@1000" \
	--ratio "hbh/fq (10000 flows)=hbh@10000/fq@10000"
