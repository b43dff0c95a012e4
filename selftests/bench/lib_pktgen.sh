# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# pktgen load and packet-rate sampling for the pps benchmarks
# (decbit_pps.sh, nic_pps.sh, pool_pps.sh).  Source it after
# selftests/lib.sh (qdisc_stat, PIDS).

# pg NS FILE CMD: one pktgen command in namespace NS
pg() {
	ip netns exec "$1" sh -c "echo '$3' > /proc/net/pktgen/$2" ||
		{ echo "# pktgen: '$3' refused" >&2; return 1; }
}

# pktgen_start NS DEV DST_IP DST_MAC THREADS SRC_PORTS: 60-byte UDP frames
# to DST_IP:9 as fast as pktgen can, from THREADS kernel threads (each on
# its own tx queue of DEV when THREADS > 1) and, if SRC_PORTS > 1, from that
# many source ports at random (one flow each); runs until pktgen_stop
pktgen_start() {
	local ns=$1 dev=$2 dst=$3 mac=$4 threads=$5 ports=$6 t c d
	for ((t = 0; t < threads; t++)); do
		d=$dev
		[ "$threads" -gt 1 ] && d=$dev@$t
		pg "$ns" "kpktgend_$t" rem_device_all &&
			pg "$ns" "kpktgend_$t" "add_device $d" || return 1
		local -a cmds=("count 0" "clone_skb 0" "pkt_size 60" "delay 0"
			       "dst $dst" "dst_mac $mac" "udp_dst_min 9" "udp_dst_max 9")
		[ "$threads" -gt 1 ] && cmds+=("queue_map_min $t" "queue_map_max $t")
		[ "$ports" -gt 1 ] &&
			cmds+=("udp_src_min 1" "udp_src_max $ports" "flag UDPSRC_RND")
		for c in "${cmds[@]}"; do
			pg "$ns" "$d" "$c" || return 1
		done
	done
	ip netns exec "$ns" sh -c 'echo start > /proc/net/pktgen/pgctrl' &
	PIDS+=($!)
	PKTGEN_NS=$ns
}

pktgen_stop() {
	ip netns exec "$PKTGEN_NS" sh -c 'echo stop > /proc/net/pktgen/pgctrl' 2>/dev/null
	wait "${PIDS[-1]}" 2>/dev/null
}

# qdisc_pps NS DEV SECS: packets per second DEV's root qdisc sent over SECS
# seconds, after one second for the qdisc just installed to settle
qdisc_pps() {
	local p0 p1 t0 t1
	sleep 1
	t0=$(date +%s%N); p0=$(qdisc_stat "$1" "$2" packets)
	sleep "$3"
	t1=$(date +%s%N); p1=$(qdisc_stat "$1" "$2" packets)
	echo $(((p1 - p0) * 1000000000 / (t1 - t0)))
}

# wedged QDISC ARGS...: an arm forwarded nothing; the run is void (a
# script may redefine it to print more of the router's state)
wedged() {
	echo "# no packet forwarded with: $*" >&2
	exit 1
}

# rotate_rounds ROUNDS "NAME QDISC ARGS..."...: ROUNDS rounds, each of
# which installs every arm once through the caller's run QDISC ARGS...
# (which prints packets per second), in an order that rotates every round
# so that a drift of the host's speed reaches every arm alike.  Prints a
# line per round on stderr, then "NAME pps1 pps2 ..." per arm on stdout.
rotate_rounds() {
	local rounds=$1 i k a n v line
	shift
	local -a arms=("$@") vals=() spec
	n=${#arms[@]}
	[ "$rounds" -gt 0 ] || { echo "# rotate_rounds: no rounds" >&2; return 1; }
	for ((i = 1; i <= rounds; i++)); do
		line="# round $i:"
		for ((k = 0; k < n; k++)); do
			a=$(((k + i) % n))
			read -ra spec <<<"${arms[a]}"
			v=$(run "${spec[@]:1}") || return 1
			[ "$v" -gt 0 ] || wedged "${spec[@]:1}" || return 1
			vals[a]="${vals[a]:-} $v"
			line="$line ${spec[0]} $v"
		done
		echo "$line pps" >&2
	done
	for ((k = 0; k < n; k++)); do
		read -ra spec <<<"${arms[k]}"
		echo "${spec[0]}${vals[k]}"
	done
}

# pktgen_done: the run's namespaces and pktgen go (after pktgen_stop)
pktgen_done() {
	lib_exit
	trap - EXIT
	rmmod pktgen 2>/dev/null
}
