#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# sch_decbit with packets the driver handed back: when a transmit queue is
# stopped the core parks dequeued packets on the qdisc's requeue list
# (still counted in its qlen, already released from the pool).  ifb stops
# its queue once txqueuelen packets wait for its tasklet, so with
# txqueuelen 2 a loaded decbit root on a four-queue ifb requeues all the
# time, on any kernel.
#
#   s =eth0/rs0=> r (ingress of rs0 redirected to ifb0, decbit root) => d
#
# Under UDP load: limit shrunk to 1 and back, the qdisc moved between two
# pools, the ifb taken down and up, the qdisc replaced; no oops, no
# warning, and both pools back at 0 buffers once the traffic stops.
#
# Then, deterministically, on congavoid_stopdev (a test NIC whose queues
# the test stops, built from selftests/stopdev): the queue stops after the
# first segment of a 40-segment UDP GSO packet, so the core parks the other
# 39 on decbit's requeue list, and a second GSO packet waits in decbit's
# own queue.  Pool moves and a link reset must leave each pool holding
# exactly the own queue, then nothing; "limit 1" must trim the own queue
# only (the old code took the requeued packets for its own: a NULL
# dequeue once its list was empty, a pool count wrapped below zero).

ALL_TESTS="ifb_requeues stopped_nic"

. "$(dirname "$0")/lib.sh"

require_cmd tc python3
require_module sch_decbit ifb

rt() { tc -n "$R" "$@"; }
st() { qdisc_stat "$R" ifb0 "$1"; }

# load: two senders of bursts of 40 datagrams, stopped when the test ends
load() {
	local i
	for i in 1 2; do
		udp_burst "$S" 10.2.0.2 1000000 >/dev/null 2>&1 &
		defer kill $!
	done
}

# n_times N CMD...: CMD N times, stopping at the first failure
n_times() {
	local i
	for i in $(seq 1 "$1"); do
		"${@:2}" || return 1
	done
}
dec() { rt qdisc change dev ifb0 root decbit "$@"; }
shrink() { dec limit 1 && dec limit 200; }
move() { dec pool 2 && dec pool 1; }
flap() { ip -n "$R" link set ifb0 down && ip -n "$R" link set ifb0 up; }


# Under UDP load through ifb0: limit 1 while packets wait on the requeue
# list, 12 times; the qdisc moved between pools 1 and 2, 12 times; the
# link down and up (the core resets the qdisc), 6 times (each change
# takes a second of a loaded one-vCPU guest; stopped_nic below puts
# packets on the requeue list deterministically)
ifb_requeues() {
	local rq u1 u2
	rt qdisc add dev ifb0 root decbit pool 1 limit 200
	defer rt qdisc del dev ifb0 root
	rt qdisc add dev rs0 handle ffff: ingress
	defer rt qdisc del dev rs0 ingress
	rt filter add dev rs0 parent ffff: matchall action mirred egress redirect dev ifb0
	load
	busywait 10000 sh -c "[ \$(tc -n $R -s -j qdisc show dev ifb0 | jq '.[0].requeues') -gt 100 ]"
	rq=$(st requeues)
	log "requeues under load: $rq"
	check "requeues_happen ($rq)" fcmp "$rq" '>' 100
	check "change_limit_1_under_requeues" n_times 12 shrink
	check "pool_moves_under_requeues" n_times 12 move
	check "link_flaps_under_requeues" n_times 6 flap
	log "requeues at the end of the load: $(st requeues)"

	# traffic stops: nothing is left in either pool (a packet released
	# twice wraps the u32 count and makes the pool refuse everything)
	ip netns pids "$S" | xargs -r kill 2>/dev/null
	busywait 5000 sh -c "[ \$(tc -n $R -s -j qdisc show dev ifb0 | jq '.[0].qlen') = 0 ]"
	u1=$(qdisc_stat "$R" dum1 pool_used); u2=$(qdisc_stat "$R" dum2 pool_used)
	log "after the load: pool 1 used $u1 (qlen $(st qlen)), pool 2 used $u2, pool_dropped $(st pool_dropped)"
	check "pools_empty_after_load (pool 1: $u1, pool 2: $u2)" test "$u1" = 0 -a "$u2" = 0
	rt qdisc replace dev ifb0 root decbit pool 2
	u2=$(qdisc_stat "$R" dum2 pool_used)
	check "pool_empty_after_replace ($u2)" test "$u2" = 0
}

sst() { qdisc_stat "$R" stopdev0 "$1"; }
pools() { echo "$(qdisc_stat "$R" dum1 pool_used) $(qdisc_stat "$R" dum2 pool_used)"; }
stopdev_param() { echo "$2" > "/sys/module/congavoid_stopdev/parameters/$1"; }
# park: one 40-segment packet split by the core, 39 of them handed back,
# then one more 40-segment packet in decbit's own queue
park() {
	stopdev_param stopped N
	stopdev_param stop_after 1
	udp_burst "$R" 10.7.0.2 1
	udp_burst "$R" 10.7.0.2 1
}

# the stopped NIC
stopped_nic() {
	local sd p p1 p2 q o n0 n1
	sd=$TOP_DIR/build/$(uname -r)/testmod/stopdev/congavoid_stopdev.ko
	insmod "$sd" || return 1
	defer rmmod congavoid_stopdev
	ip link set stopdev0 netns "$R" || return 1
	defer ip -n "$R" link set stopdev0 netns 1
	ip -n "$R" addr add 10.7.0.1/24 dev stopdev0
	ip -n "$R" link set stopdev0 up
	rt qdisc replace dev stopdev0 root decbit pool 1 limit 200
	defer rt qdisc del dev stopdev0 root
	park
	log "parked: qlen $(sst qlen), requeues $(sst requeues), pool_used $(pools) (pool 1, pool 2)"
	check "requeue_list_holds_39 (qlen $(sst qlen))" test "$(sst qlen)" -ge 39
	p=$(pools)
	check "pool_holds_own_queue_only ($p)" test "$p" = "40 0"
	rt qdisc change dev stopdev0 root decbit pool 2
	p2=$(pools)
	rt qdisc change dev stopdev0 root decbit pool 1
	p1=$(pools)
	check "pool_moves_carry_own_queue ($p2, back: $p1)" test "$p2" = "0 40" -a "$p1" = "40 0"
	ip -n "$R" link set stopdev0 down
	ip -n "$R" link set stopdev0 up
	p=$(pools)
	check "link_reset_empties_pools ($p)" test "$p" = "0 0"

	# a fresh qdisc without a pool, so that nothing above can spoil this
	rt qdisc del dev stopdev0 root
	rt qdisc add dev stopdev0 root decbit limit 200
	park
	log "parked again: qlen $(sst qlen), overlimit_dropped $(sst overlimit_dropped)"
	check "limit_1_with_requeued_packets" rt qdisc change dev stopdev0 root decbit limit 1
	q=$(sst qlen) o=$(sst overlimit_dropped)
	check "limit_1_drops_own_queue_only (qlen $q, overlimit_dropped $o)" test "$q" = 39 -a "$o" = 40
	rt qdisc change dev stopdev0 root decbit limit 200 pool 1
	n0=$(sst packets)
	stopdev_param stopped N
	udp_burst "$R" 10.7.0.2 20
	busywait 3000 sh -c "[ \$(tc -n $R -s -j qdisc show dev stopdev0 | jq '.[0].qlen') = 0 ]"
	n1=$(sst packets)
	p=$(pools)
	# (the pools are empty after traffic only if traffic went through)
	check "queue_runs_again (sent $n0 -> $n1)" fcmp "$n1" '>' "$n0"
	check "queue_runs_again_pools_empty ($p, pool_dropped $(sst pool_dropped))" \
		eval '[ "$p" = "0 0" ] && fcmp "$(sst pool_dropped)" "==" 0'
}

setup_prepare() {
	local d
	setup_ns S R D || return 1
	veth_pair "$S" eth0 "$R" rs0 10.1.0.1 10.1.0.254 &&
	veth_pair "$R" rd0 "$D" eth0 10.2.0.1 10.2.0.2 || return 1
	ip -n "$S" route add default via 10.1.0.254
	ip -n "$D" route add default via 10.2.0.1
	# segment the bursts in s (veth would carry them whole)
	ip netns exec "$S" ethtool -K eth0 tx-udp-segmentation off >/dev/null
	ip -n "$R" link add ifb0 numtxqueues 4 txqueuelen 2 type ifb || return 1
	ip -n "$R" link set ifb0 up
	# each pool keeps a member of its own (a dummy device that carries
	# no traffic), so that it lives on while a qdisc moves between them
	for d in dum1 dum2; do
		ip -n "$R" link add $d type dummy && ip -n "$R" link set $d up || return 1
	done
	rt qdisc add dev dum1 root decbit pool 1 pool_limit 300 &&
	rt qdisc add dev dum2 root decbit pool 2 pool_limit 300
}

setup_prepare || exit $ksft_fail
tests_run
