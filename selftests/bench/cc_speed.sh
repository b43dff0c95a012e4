#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Speed of one tcp_decbit flow on a path that nothing constrains, against
# dctcp and cubic, as ratios within one boot: the throughput and the
# guest's CPU time per gigabyte delivered.  Two paths: a veth pair with
# its offloads on (TSO, GSO, GRO: what a container host has), and two
# real NICs back to back (virtio-net, the driver's defaults: TX
# completions come from the device, so TCP Small Queues throttle).  Run it
# in a VM with one pair of NICs:
#
#   tools/vm --nics 1 --cpus 1 6.12 -- selftests/bench/cc_speed.sh [ROUNDS] [SECONDS]
#
# Each round runs every (path, CC) arm once, in an order that rotates
# every round, one iperf3 flow of SECONDS each, sender and receiver with
# ECN on (decbit and dctcp need it; a fallback to Reno voids the run) and
# large socket buffers.  A flow's figures: its goodput at the receiver
# (iperf3 -J, Mbit/s) and the guest's busy CPU time (/proc/stat: all but
# idle and iowait) over the flow's wall time, per GB delivered (ms/GB).
# Sender and receiver share the guest's CPU, as on a host that terminates
# both ends; the ratio is what this benchmark reports.
#
# Writes results/bench/cc_speed-<kernel>.json and the results page
# docs/results/cc_speed-<kernel>.md (selftests/bench/benchstat.py).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"
bench_cmd=$(printf '%q ' selftests/bench/cc_speed.sh "$@")
rounds=${1:-10}
secs=${2:-5}
krel=$(uname -r)
out=$top/results/bench
mkdir -p "$out"
CCS=(decbit dctcp cubic)

grep -q "^tcp_decbit " /proc/modules || insmod "$top/build/$krel/tcp_decbit/tcp_decbit.ko" || exit 1
modprobe tcp_dctcp || { echo "# tcp_dctcp is not available" >&2; exit 1; }
for cc in "${CCS[@]}"; do
	allow_cc "$cc"
done
require_cmd iperf3

# veth: A 10.60.0.1 - B 10.60.0.2, offloads at veth's defaults
setup_ns A B || exit 1
ip link add name v0 netns "$A" type veth peer name v1 netns "$B" || exit 1
ip -n "$A" addr add 10.60.0.1/24 dev v0
ip -n "$B" addr add 10.60.0.2/24 dev v1
ip -n "$A" link set dev v0 up
ip -n "$B" link set dev v1 up
# nic: C 10.61.0.1 - D 10.61.0.2 over the first pair of real NICs
setup_ns C D || exit 1
for d in "0 $C 10.61.0.1" "1 $D 10.61.0.2"; do
	set -- $d
	name=$(nic_dev 0 "$1")
	[ -n "$name" ] || { echo "# no real NICs (boot with tools/vm --nics 1)" >&2; exit 1; }
	ip link set dev "$name" down
	ip link set dev "$name" netns "$2" name nic0 || exit 1
	ip -n "$2" addr add "$3/24" dev nic0
	ip -n "$2" link set dev nic0 up
done
big_buffers "$A" "$B" "$C" "$D"
# ECN on, and kept by a retransmitted SYN (tcp_ecn_fallback 0), so that a
# lost SYN cannot turn an arm into Reno; run() checks both ends' CC anyway
for ns in "$A" "$B" "$C" "$D"; do
	ip netns exec "$ns" sysctl -qw net.ipv4.tcp_ecn=1 net.ipv4.tcp_ecn_fallback=0 || exit 1
done
# A listener takes its namespace's default CC when it is created (iperf3
# creates it again after each test), and only one that asks for ECN
# accepts the ECT SYN of decbit or dctcp: the receivers' default is
# decbit; iperf3 -C sets the arm's CC on the accepted socket
for ns in "$B" "$D"; do
	ip netns exec "$ns" sysctl -qw net.ipv4.tcp_congestion_control=decbit || exit 1
done
iperf3_servers "$B" 5201 || exit 1
iperf3_servers "$D" 5201 || exit 1
busywait 5000 ip netns exec "$A" ping -c1 -W1 10.60.0.2 >/dev/null || exit 1
busywait 5000 ip netns exec "$C" ping -c1 -W1 10.61.0.2 >/dev/null || exit 1
{
	echo "# offloads on the veth sender: $(ip netns exec "$A" ethtool -k v0 | grep -E '^(tcp-segmentation-offload|generic-segmentation-offload|generic-receive-offload):' | tr -s ' \n' ' ')"
	echo "# offloads on the NIC sender: $(ip netns exec "$C" ethtool -k nic0 | grep -E '^(tcp-segmentation-offload|generic-segmentation-offload|generic-receive-offload):' | tr -s ' \n' ' ')"
	echo "# NIC driver: $(ip netns exec "$C" ethtool -i nic0 | awk '/^driver:/ { print $2 }')"
} >&2

busy_ms() {	# the guest's busy CPU time so far, ms (USER_HZ 100)
	awk '/^cpu / { print ($2 + $3 + $4 + $7 + $8 + $9) * 10; exit }' /proc/stat
}

# run PATH CC: one flow; prints "Mbit/s CPU-ms-per-GB", or fails saying why
run() {
	local path=$1 cc=$2 ns ip j c0 c1 t0 t1 bytes used rused
	case $path in
	veth) ns=$A ip=10.60.0.2 ;;
	nic) ns=$C ip=10.61.0.2 ;;
	esac
	ip netns exec "$ns" sysctl -qw net.ipv4.tcp_congestion_control="$cc" || return 1
	j=$TMP_DIR/flow.json
	c0=$(busy_ms)
	t0=$(date +%s%N)
	ip netns exec "$ns" iperf3 -c "$ip" -p 5201 -C "$cc" -t "$secs" -J >"$j" 2>&1 ||
		{ echo "# $path $cc: iperf3 failed: $(head -c 300 "$j")" >&2; return 1; }
	t1=$(date +%s%N)
	c1=$(busy_ms)
	read -r bytes used rused < <(jq -r '[.end.sum_received.bytes, .end.sender_tcp_congestion, .end.receiver_tcp_congestion] | @tsv' "$j")
	[[ $bytes =~ ^[0-9]+$ ]] && [ "$bytes" -gt 0 ] ||
		{ echo "# $path $cc: nothing received ($bytes)" >&2; return 1; }
	[ "$used" = "$cc" ] && [ "$rused" = "$cc" ] ||
		{ echo "# $path $cc: the flow ran $used, its receiver $rused (ECN not negotiated?); SYN retransmissions so far: $(ip netns exec "$ns" nstat -az TcpExtTCPSynRetrans | awk '/SynRetrans/ { print $2 }')" >&2; return 1; }
	awk -v b="$bytes" -v s="$secs" -v c=$((c1 - c0)) -v w=$(((t1 - t0) / 1000000)) 'BEGIN {
		printf "%d %d %d\n", b * 8 / s / 1e6, c / (b / 1e9), 100 * c / w }'
}

declare -A thr cpu
arms=()
for path in veth nic; do
	for cc in "${CCS[@]}"; do
		arms+=("$path $cc")
	done
done
n=${#arms[@]}
for ((i = 1; i <= rounds; i++)); do
	line="# round $i:"
	for ((k = 0; k < n; k++)); do
		read -r path cc <<<"${arms[(k + i) % n]}"
		r=$(run "$path" "$cc") || exit 1
		read -r mbit cms busy <<<"$r"
		thr[$path $cc]="${thr[$path $cc]:-} $mbit"
		cpu[$path $cc]="${cpu[$path $cc]:-} $cms"
		line="$line $cc@$path $mbit Mbit/s $cms ms/GB (busy $busy %)"
	done
	echo "$line" >&2
done
lib_exit
trap - EXIT

res=$(for a in "${arms[@]}"; do
	read -r path cc <<<"$a"
	echo "thr:$cc@$path${thr[$a]}"
done
for a in "${arms[@]}"; do
	read -r path cc <<<"$a"
	echo "cpu:$cc@$path${cpu[$a]}"
done)
ratios=()
for path in veth nic; do
	for o in dctcp cubic; do
		ratios+=(--ratio "throughput decbit/$o ($path)=thr:decbit@$path/thr:$o@$path")
	done
done
for path in veth nic; do
	for o in dctcp cubic; do
		ratios+=(--ratio "CPU per GB decbit/$o ($path)=cpu:decbit@$path/cpu:$o@$path")
	done
done
printf '%s\n' "$res" | BENCH_CMD=$bench_cmd python3 "$top/selftests/bench/benchstat.py" pps \
	cc_speed "Speed of tcp_decbit on an unconstrained path, against dctcp and cubic" \
	"$out/cc_speed-$krel.json" --unit "median (thr: Mbit/s; cpu: guest CPU ms per GB)" \
	--load "one iperf3 flow of $secs s per arm and round over veth (offloads on) or over two virtio-net NICs back to back, sender and receiver in one guest, ECN on, 32 MiB socket buffers" \
	"${ratios[@]}"
